static const char help[] = "Column-index compression on any numbering (issue 17, host only): for PETSc binary matrices (-bin a.bin,b.bin),\n"
                           "the share of slices, rows and entries of ELLWARP's own slices (host analysis, default choice) that fit\n"
                           "16-bit (and 8-bit) column offsets under candidate schemes, and the bytes per nonzero each gives:\n"
                           "  row     : 16-bit offsets from the lane's row (exists)\n"
                           "  pos     : 16-bit offsets from row + a bias per entry position of the slice (exists, 'biased')\n"
                           "  rowbase : 16-bit offsets from a 32-bit base per row of the slice (the row's midpoint)\n"
                           "  base2   : two 32-bit bases per row, the offset's sign picks one (each cluster spans <= 32767)\n"
                           "  base4   : four bases per row, 2 bits of the offset pick one (each spans <= 16383)\n"
                           "  delta16 : per lane, the gap from the lane's previous column (unsigned 16 bits), gaps that do not fit escape\n"
                           "  delta8  : the same with 8-bit gaps\n"
                           "  dictN   : a table of N 32-bit window bases per slice, the offset's top log2(N) bits pick one, the rest is\n"
                           "            the offset from it (each window spans 65536 / N columns); N = 4 .. 128\n"
                           "Bytes per slot model: 8 (value) + index bytes + bases; slices take the cheapest mode that fits (32-bit: 12).\n";
#include <petscmat.h>
#include <petscellwarp.h>
#include <petscellwarp/private/ellwarplayout.h>
#include "hostlayout.h"

/* greedy clustering of a sorted row with span S: the fewest clusters [a, a + S] covering the columns */
static PetscInt Clusters(PetscInt n, const PetscInt *c, PetscInt S)
{
  PetscInt k = 0;
  for (PetscInt i = 0; i < n;) {
    PetscInt a = c[i];
    k++;
    while (i < n && c[i] - a <= S) i++;
  }
  return k;
}

/* windows of 1 << lw columns covering the sorted columns c: aligned (base a multiple of 1 << lw: the distinct c >> lw), or
   greedy (base the first column not yet covered) */
static PetscInt Windows(PetscInt n, const PetscInt *c, PetscInt lw, PetscBool aligned)
{
  PetscInt k = 0;
  if (!aligned) return Clusters(n, c, ((PetscInt)1 << lw) - 1);
  for (PetscInt i = 0; i < n; i++)
    if (!i || (c[i] >> lw) != (c[i - 1] >> lw)) k++;
  return k;
}

int main(int argc, char **argv)
{
  char      list[4096] = "";
  PetscBool set, aligned = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bin", list, sizeof(list), &set));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-aligned", &aligned, NULL));
  PetscCheck(set, PETSC_COMM_SELF, PETSC_ERR_USER, "Give -bin a.bin[,b.bin...]");
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "# matrix rows nnz | slices: 32bit-now row pos | slices fitting: rowbase base2 base4 | rows fitting: rowbase base2 base4 | entries escaping: delta16 delta8 | bytes/nnz (values+index+bases, per-slice cheapest): now +rowbase +rowbase+base2 +base4 all\n"));
  for (char *f = strtok(list, ","); f; f = strtok(NULL, ",")) {
    HostLayout      h;
    Mat             A;
    const PetscInt *ai, *aj;
    PetscInt        m, n;
    EllwarpLayout  *L;
    PetscCount      n32 = 0, nrow = 0, npos = 0, fR = 0, f2 = 0, f4 = 0, rR = 0, r2 = 0, r4 = 0, rows = 0, esc16 = 0, esc8 = 0;
    double          b[5] = {0, 0, 0, 0, 0}, bd = 0;
    PetscCount      fd[6] = {0, 0, 0, 0, 0, 0}, fdany = 0;
    PetscInt       *cols;

    PetscCall(HostLayoutLoad(f, &h));
    A  = h.A;
    m  = h.m;
    n  = h.n;
    ai = h.ai;
    aj = h.aj;
    L  = h.L;
    PetscCall(PetscMalloc1(L->maxrowlen * ELLWARP_LANES + 1, &cols));
    for (PetscInt s = 0; s < L->nslices; s++) {
      const PetscInt   l2 = L->meta[s] & 15, nr = L->slicerow[s + 1] - L->slicerow[s];
      const PetscCount slots = L->sliceptr[s + 1] - L->sliceptr[s], w = slots / ELLWARP_LANES;
      PetscBool        okR = PETSC_TRUE, ok2 = PETSC_TRUE, ok4 = PETSC_TRUE;
      double           now, cR, c2, c4;

      if (L->meta[s] & 32) npos++;
      else if (L->meta[s] & 16) nrow++;
      else n32++;
      for (PetscInt q = 0; q < nr; q++) {
        const PetscInt row = L->rowperm[L->slicerow[s] + q], len = ai[row + 1] - ai[row];
        const PetscInt *c  = aj + ai[row];
        const PetscInt  k1 = Clusters(len, c, 65534), k2 = Clusters(len, c, 32767), k4 = Clusters(len, c, 16383);
        rows++;
        if (k1 <= 1) rR++;
        else okR = PETSC_FALSE;
        if (k2 <= 2) r2++;
        else ok2 = PETSC_FALSE;
        if (k4 <= 4) r4++;
        else ok4 = PETSC_FALSE;
        /* per lane (entries j, j + tpr, ...): the gap from the lane's previous column; a lane's first entry from the row */
        for (PetscInt e = 0; e < len; e++) {
          const PetscInt prev = e >= (1 << l2) ? c[e - (1 << l2)] : row, g = c[e] - prev;
          if (g < (e >= (1 << l2) ? 0 : -32767) || g > 65535) esc16++;
          if (g < (e >= (1 << l2) ? 0 : -127) || g > 255) esc8++;
        }
      }
      { /* the slice's distinct columns, then the fewest windows of each span (greedy) */
        PetscInt nc = 0, best = -1;
        double   cbest = 1e300;
        for (PetscInt q = 0; q < nr; q++) {
          const PetscInt row = L->rowperm[L->slicerow[s] + q];
          for (PetscInt k = ai[row]; k < ai[row + 1]; k++) cols[nc++] = aj[k];
        }
        PetscCall(PetscSortRemoveDupsInt(&nc, cols));
        for (PetscInt t = 0; t < 6; t++) { /* N = 4 << t windows of 65536 / N columns */
          const PetscInt N = 4 << t;
          if (Windows(nc, cols, 16 - 2 - t, aligned) <= N) {
            fd[t]++;
            if (10.0 * slots + 4.0 * N < cbest) {
              cbest = 10.0 * slots + 4.0 * N;
              best  = t;
            }
          }
        }
        if (best >= 0) fdany++;
        bd += PetscMin(cbest, (L->meta[s] & 16) ? 10.0 * slots + ((L->meta[s] & 32) ? 4.0 * (double)(w << l2) : 0) : 12.0 * slots);
      }
      if (okR) fR++;
      if (ok2) f2++;
      if (ok4) f4++;
      now = (L->meta[s] & 16) ? 10.0 * slots + ((L->meta[s] & 32) ? 4.0 * (double)(w << l2) : 0) : 12.0 * slots;
      cR  = okR ? 10.0 * slots + 4.0 * nr : 1e300;
      c2  = ok2 ? 10.0 * slots + 8.0 * nr : 1e300;
      c4  = ok4 ? 10.0 * slots + 16.0 * nr : 1e300;
      b[0] += now;
      b[1] += PetscMin(now, cR);
      b[2] += PetscMin(PetscMin(now, cR), c2);
      b[3] += PetscMin(now, c4);
      b[4] += PetscMin(PetscMin(PetscMin(now, cR), c2), c4);
    }
    for (int i = 0; i < 5; i++) b[i] += 12.0 * (double)(L->nslots - L->nsliceslots); /* long rows: 32-bit */
    bd += 12.0 * (double)(L->nslots - L->nsliceslots);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s dict%s: slices fitting N=4 %.4f 8 %.4f 16 %.4f 32 %.4f 64 %.4f 128 %.4f any %.4f | bytes/nnz now+dict %.3f\n", f, aligned ? " (aligned windows)" : "", (double)fd[0] / L->nslices, (double)fd[1] / L->nslices, (double)fd[2] / L->nslices, (double)fd[3] / L->nslices, (double)fd[4] / L->nslices, (double)fd[5] / L->nslices, (double)fdany / L->nslices, bd / L->nnz));
    PetscCall(PetscFree(cols));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %" PetscInt_FMT " %" PetscCount_FMT " | %.4f %.4f %.4f | %.4f %.4f %.4f | %.4f %.4f %.4f | %.4f %.4f | %.3f %.3f %.3f %.3f %.3f\n", f, m, L->nnz, (double)n32 / L->nslices, (double)nrow / L->nslices, (double)npos / L->nslices, (double)fR / L->nslices, (double)f2 / L->nslices, (double)f4 / L->nslices, (double)rR / rows,
                          (double)r2 / rows, (double)r4 / rows, (double)esc16 / L->nnz, (double)esc8 / L->nnz, b[0] / L->nnz, b[1] / L->nnz, b[2] / L->nnz, b[3] / L->nnz, b[4] / L->nnz));
    for (int dict = 0; dict < 2; dict++) { /* the layout as built (host analysis), without and with the dictionary mode, and its product against SeqAIJ's */
      Mat            B;
      Vec            x, y, z;
      MatEllwarpInfo info;
      PetscReal      err, nrm;
      PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_backend", "host"));
      PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_tune", dict ? "compress_dict=1" : "compress_dict=0"));
      PetscCall(MatConvert(A, MATSEQELLWARP, MAT_INITIAL_MATRIX, &B));
      PetscCall(MatCreateVecs(A, &x, &y));
      PetscCall(VecDuplicate(y, &z));
      PetscCall(VecSetRandom(x, NULL));
      PetscCall(MatMult(A, x, y));
      PetscCall(MatMult(B, x, z));
      PetscCall(VecAXPY(z, -1.0, y));
      PetscCall(VecNorm(z, NORM_INFINITY, &err));
      PetscCall(VecNorm(y, NORM_INFINITY, &nrm));
      PetscCall(MatEllwarpGetInfo(B, &info));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s layout compress_dict=%d: kernel %s T=%" PetscInt_FMT " slices %" PetscInt_FMT ": 16-bit %" PetscInt_FMT " (biased %" PetscInt_FMT ", dictionary %" PetscInt_FMT ", %.1f %%) | bytes/nnz %.3f | MatMult vs SeqAIJ: rel err %.2e\n", f, dict, MatEllwarpKernels[info.kernel], info.threshold, info.nslices, info.n16, info.nbias, info.ndict, 100.0 * info.ndict / PetscMax(info.nslices, 1), info.bytes_mult / (double)info.nnz, (double)(err / nrm)));
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
      PetscCall(VecDestroy(&z));
      PetscCall(MatDestroy(&B));
    }
    PetscCall(HostLayoutDestroy(&h));
  }
  PetscCall(PetscFinalize());
  return 0;
}
