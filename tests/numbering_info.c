/* The -info line of MATSEQELLWARP's analysis on the cost of a matrix's numbering (issue 17): a 3-D 7-point
   Laplacian in lexicographic order (every offset col - row within 16 bits: no line) and the same matrix after a
   random symmetric permutation (offsets everywhere: the line, with a saving between 3 % and 2 bytes per slot
   over the layout's bytes).  The line must also agree with the layout it describes: its slice counts are
   MatEllwarpGetInfo's.  The info output goes to a file (PetscInfoSetFile), read back after each analysis.
   With -gpu the cuda backend (the device analysis) must print the same.

   ellwarp_add_test(numbering_info -info :mat)
   ellwarp_add_test(numbering_info.gpu -info :mat -gpu GPU)
*/
#include <petscellwarp.h>

#define CHECK(c, ...) \
  do { \
    if (!(c)) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__); \
  } while (0)

static PetscErrorCode Laplacian3D(PetscInt n, Mat *A)
{
  const PetscInt N = n * n * n;

  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, N, N, 7, NULL, A));
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++) {
        PetscInt    row = (k * n + j) * n + i, cols[7], nc = 0;
        PetscScalar v[7];
        cols[nc] = row;
        v[nc++]  = 6.0;
        if (i > 0) cols[nc] = row - 1, v[nc++] = -1.0;
        if (i < n - 1) cols[nc] = row + 1, v[nc++] = -1.0;
        if (j > 0) cols[nc] = row - n, v[nc++] = -1.0;
        if (j < n - 1) cols[nc] = row + n, v[nc++] = -1.0;
        if (k > 0) cols[nc] = row - n * n, v[nc++] = -1.0;
        if (k < n - 1) cols[nc] = row + n * n, v[nc++] = -1.0;
        PetscCall(MatSetValues(*A, 1, &row, nc, cols, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a random symmetric permutation (fixed seed: the same matrix everywhere) */
static PetscErrorCode Scramble(Mat A, Mat *B)
{
  PetscInt    N, *p;
  IS          is;
  PetscRandom r;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(PetscMalloc1(N, &p));
  for (PetscInt i = 0; i < N; i++) p[i] = i;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetSeed(r, 17));
  PetscCall(PetscRandomSeed(r));
  for (PetscInt i = N - 1; i > 0; i--) {
    PetscReal u;
    PetscInt  k, t;
    PetscCall(PetscRandomGetValueReal(r, &u));
    k    = PetscMin(i, (PetscInt)(u * (i + 1)));
    t    = p[i];
    p[i] = p[k];
    p[k] = t;
  }
  PetscCall(PetscRandomDestroy(&r));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, N, p, PETSC_OWN_POINTER, &is));
  PetscCall(ISSetPermutation(is));
  PetscCall(MatPermute(A, is, is, B));
  PetscCall(ISDestroy(&is));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the info file's text from byte `from` on */
static PetscErrorCode ReadInfo(const char *file, long from, char **text, long *end)
{
  char *name;
  FILE *fp, *rd;
  long        n;

  PetscFunctionBegin;
  PetscCall(PetscInfoGetFile(&name, &fp));
  fflush(fp);
  rd = fopen(file, "r");
  CHECK(rd, "cannot read the info file %s", file);
  fseek(rd, 0, SEEK_END);
  *end = ftell(rd);
  n    = *end - from;
  PetscCall(PetscCalloc1(n + 1, text));
  fseek(rd, from, SEEK_SET);
  CHECK(fread(*text, 1, (size_t)n, rd) == (size_t)n, "short read of %s", file);
  fclose(rd);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* analyse A as MATSEQELLWARP (a product checks it too) and return the info lines that it printed */
static PetscErrorCode Analyse(Mat A, const char *file, long *pos, char **text, MatEllwarpInfo *info)
{
  Mat       E;
  Vec       x, y, z;
  PetscReal err, nrm;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATSEQELLWARP, MAT_INITIAL_MATRIX, &E));
  PetscCall(MatCreateVecs(E, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(VecSetValue(x, 0, 2.0, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(x));
  PetscCall(VecAssemblyEnd(x));
  PetscCall(MatMult(E, x, y));
  PetscCall(MatEllwarpGetInfo(E, info));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(MatMult(A, x, z));
  PetscCall(VecAXPY(z, -1.0, y));
  PetscCall(VecNorm(z, NORM_INFINITY, &err));
  PetscCall(VecNorm(y, NORM_INFINITY, &nrm));
  CHECK(err <= 1e-12 * nrm, "ELLWARP product differs from SeqAIJ's by %g", (double)err);
  PetscCall(ReadInfo(file, *pos, text, pos));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(MatDestroy(&E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat            A, B;
  PetscBool      gpu = PETSC_FALSE;
  PetscInt       n   = 64;
  char          *text, *line, file[PETSC_MAX_PATH_LEN];
  long           pos = 0;
  MatEllwarpInfo info;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu", &gpu, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  if (!gpu) PetscCall(PetscOptionsSetValue(NULL, "-mat_ellwarp_backend", "host"));
  {
    PetscBool on;
    PetscCall(PetscInfoEnabled(MAT_CLASSID, &on));
    CHECK(on, "run with -info :mat");
  }
  PetscCall(PetscInfoSetFile("numbering_info.log", "w"));
  PetscCall(PetscSNPrintf(file, sizeof(file), "numbering_info.log.0"));

  /* banded: n^2 = 4096 < 32767, every slice has 16-bit columns, no line */
  PetscCall(Laplacian3D(n, &A));
  PetscCall(Analyse(A, file, &pos, &text, &info));
  CHECK(strstr(text, "Analysed pattern"), "no \"Analysed pattern\" line: is -info on for Mat?\n%s", text);
  CHECK(info.n16 == info.nslices, "lexicographic Laplacian: %" PetscInt_FMT " of %" PetscInt_FMT " slices 16-bit", info.n16, info.nslices);
  CHECK(!strstr(text, "Numbering cost"), "a numbering-cost line for the banded matrix:\n%s", text);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "banded (%" PetscInt_FMT " rows): %" PetscInt_FMT "/%" PetscInt_FMT " slices 16-bit, no numbering-cost line\n", n * n * n, info.n16, info.nslices));
  PetscCall(PetscFree(text));

  /* scrambled: offsets up to n^3 = 262144, beyond what a bias per entry position covers (65534): (almost) every slice 32-bit, the line with the layout's counts */
  PetscCall(Scramble(A, &B));
  PetscCall(Analyse(B, file, &pos, &text, &info));
  line = strstr(text, "Numbering cost");
  CHECK(line, "no numbering-cost line for the scrambled matrix:\n%s", text);
  {
    long   n32, ns;
    double bpn, bpn16, span, save;
    char  *end = strchr(line, '\n');
    if (end) *end = 0;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "scrambled: %s\n", line));
    CHECK(sscanf(line, "Numbering cost: %ld of %ld slices", &n32, &ns) == 2, "cannot parse the slice counts: %s", line);
    CHECK(n32 == info.nslices - info.n16 && ns == info.nslices, "the line says %ld of %ld slices 32-bit, the layout %" PetscInt_FMT " of %" PetscInt_FMT, n32, ns, info.nslices - info.n16, info.nslices);
    CHECK(n32 > ns / 2, "only %ld of %ld slices 32-bit after a random permutation", n32, ns);
    line = strstr(line, "bias), ");
    CHECK(line && sscanf(line, "bias), %lf bytes per nonzero moved, %lf with 16-bit", &bpn, &bpn16) == 2, "cannot parse the bytes per nonzero");
    CHECK(bpn16 < bpn && bpn - bpn16 <= 2.0 * (double)info.nslots / (double)info.nnz + 1e-9, "bytes per nonzero %g -> %g: not a saving of at most 2 bytes per slot", bpn, bpn16);
    CHECK(PetscAbs(bpn - (double)info.bytes_mult / (double)info.nnz) < 0.01, "bytes per nonzero %g, layout %g", bpn, (double)info.bytes_mult / (double)info.nnz);
    line = strstr(line, "spans ");
    CHECK(line && sscanf(line, "spans %lf columns", &span) == 1, "cannot parse the span");
    CHECK(span > 32767, "median span %g of a random permutation", span);
    line = strstr(line, "save ~");
    CHECK(line && sscanf(line, "save ~%lf", &save) == 1, "cannot parse the saving");
    CHECK(save >= 3.0 && save <= 100.0 * (bpn - bpn16) / bpn + 0.1, "saving %g %%", save);
  }
  PetscCall(PetscFree(text));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
