/* The run-time kernel variants (EllwarpTune: -mat_ellwarp_tune mult_*, long_*, coo_*)
   against the default kernels, the host reference and SeqAIJ:
   - MatMult, MatMultAdd and the in-place y += A x of every variant within 1e-13 of SeqAIJ, on irregular
     matrices with long rows (chunk path), 16- and 32-bit column slices, a regular matrix without padding,
     an FE matrix and stencil matrices with biased 16-bit slices (a periodic lattice; a common stencil mixed
     with the other column modes), under K1, K2 (2..32 lanes per row) and the automatic choice;
   - with the cuda backend, variants that keep the order of summation (lanes per thread, nc loads, the
     unrolled chunk loop) give bitwise the default kernel's products (another device kernel), and every
     variant is also compared with the host reference of the same variant (-mat_ellwarp_tune mult_acc changes
     the order on both).  The host reference ignores those device-only variants, so on the host backend
     such a bitwise check would compare the host code with itself: there only the SeqAIJ checks run;
   - COO with duplicates (P1 tets), INSERT then ADD, every COO variant against a SeqAIJ matrix assembled
     entry by entry with MatSetValues(ADD_VALUES) -- not against SeqAIJ's MatSetValuesCOO, whose jmap/perm
     MATSEQELLWARP's COO plan is built from (a fault there would be in both);
   - bad variant options give clear errors.

   ellwarp_add_test(variants.host -backend host)
   ellwarp_add_test(variants.cuda -backend cuda GPU)
*/
#include <petscellwarp.h>
#include <petscellwarp/private/ellwarpkuhn.h>
#include "stenciltestutil.h"
#include "tunetestutil.h"

static PetscInt nchecks;

typedef enum {
  BW_NONE,    /* another order of summation: only the tolerance checks */
  BW_DEFAULT, /* bitwise the default kernels' products (same block size) */
  BW_ACC1     /* bitwise the products of "mult_acc=1" (one accumulator; the default differs on irregular matrices) */
} Bitwise;

typedef struct {
  const char *opts;
  Bitwise     bitwise;
} Variant;

static const Variant mult_variants[] = {
  {"",                                                       BW_DEFAULT},
  {"-mat_ellwarp_tune mult_lanes=2",                         BW_DEFAULT},
  {"-mat_ellwarp_tune mult_lanes=4",                         BW_DEFAULT},
  {"-mat_ellwarp_tune mult_nc=1",                            BW_DEFAULT},
  {"-mat_ellwarp_tune mult_lanes=4,mult_nc=1",               BW_DEFAULT},
  {"-mat_ellwarp_tune long_unroll=8",                        BW_DEFAULT},
  {"-mat_ellwarp_tune mult_unroll=8",                        BW_DEFAULT},
  {"-mat_ellwarp_tune mult_unroll=8,mult_lanes=2,mult_nc=1", BW_DEFAULT},
  {"-mat_ellwarp_tune mult_unroll=8,mult_acc=2",             BW_NONE   },
  {"-mat_ellwarp_tune long_unroll=2,mult_lanes=2",           BW_DEFAULT},
  {"-mat_ellwarp_tune mult_acc=2",                           BW_NONE   },
  {"-mat_ellwarp_tune mult_acc=4",                           BW_NONE   },
  {"-mat_ellwarp_tune mult_lanes=2,mult_acc=2",              BW_NONE   },
  {"-mat_ellwarp_tune mult_lanes=4,mult_acc=4,mult_nc=1",    BW_NONE   },
  {"-mat_ellwarp_tune long_unroll=4",                        BW_DEFAULT},
  {"-mat_ellwarp_tune long_unroll=4,mult_lanes=4",           BW_DEFAULT},
  {"-mat_ellwarp_tune mult_acc=1",                           BW_NONE   },
  {"-mat_ellwarp_tune mult_batch=2",                         BW_ACC1   },
  {"-mat_ellwarp_tune mult_batch=4",                         BW_ACC1   },
  {"-mat_ellwarp_tune mult_batch=8",                         BW_ACC1   },
  {"-mat_ellwarp_tune mult_batch=4,mult_regs=32",            BW_ACC1   },
  {"-mat_ellwarp_tune mult_batch=8,mult_regs=40",            BW_ACC1   },
  {"-mat_ellwarp_tune mult_batch=4,mult_prefetch=1",         BW_ACC1   },
  {"-mat_ellwarp_tune mult_batch=8,mult_prefetch=1",         BW_ACC1   },
  {"-mat_ellwarp_tune mult_batch=8,mult_prefetch=1,long_row=60", BW_NONE},
};

static const char *const kernel_configs[] = {"", "-mat_ellwarp_kernel k1", "-mat_ellwarp_kernel k2 -mat_ellwarp_tune threshold=4", "-mat_ellwarp_kernel k2 -mat_ellwarp_tune threshold=2", "-mat_ellwarp_kernel k2 -mat_ellwarp_tune threshold=1,block_size=64,long_row=300"};

static const char *const coo_variants[] = {"", "-mat_ellwarp_tune coo_unroll=1", "-mat_ellwarp_tune coo_unroll=2", "-mat_ellwarp_tune coo_unroll=4", "-mat_ellwarp_tune coo_unroll=8", "-mat_ellwarp_tune coo_unroll=16", "-mat_ellwarp_tune coo_unroll=4,coo_block_size=128", "-mat_ellwarp_tune coo_block_size=1024", "-mat_ellwarp_kernel k2 -mat_ellwarp_tune threshold=2,long_row=20", "-mat_ellwarp_kernel k2 -mat_ellwarp_tune coo_unroll=2,threshold=2,long_row=20"};

static char backend[16] = "host";

/* an ELLWARP copy of A with the options opts (under a fresh prefix) on the given backend */
static PetscErrorCode MakeEllwarp(Mat A, const char *be, const char *kopts, const char *vopts, Mat *B)
{
  static int count;
  char       prefix[32], buf[512];
  PetscBool  assembled;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "v%d_", count++));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "-%smat_ellwarp_backend %s", prefix, be));
  PetscCall(PetscOptionsInsertString(NULL, buf));
  for (int k = 0; k < 2; k++) { /* prefix every option of kopts and vopts; their -mat_ellwarp_tune keys go into one option */
    const char *s = k ? vopts : kopts;
    char        tmp[512], *tok, *save = NULL;
    PetscCall(PetscStrncpy(tmp, s, sizeof(tmp)));
    buf[0] = 0;
    for (tok = strtok_r(tmp, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
      size_t    l = strlen(buf);
      PetscBool tune;
      PetscCall(PetscStrcmp(tok, "-mat_ellwarp_tune", &tune));
      if (tune) {
        tok = strtok_r(NULL, " ", &save);
        PetscCheck(tok, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-mat_ellwarp_tune without a value in '%s'", s);
        PetscCall(TestTuneAppend(prefix, tok));
      } else if (tok[0] == '-' && (tok[1] < '0' || tok[1] > '9')) PetscCall(PetscSNPrintf(buf + l, sizeof(buf) - l, " -%s%s", prefix, tok + 1));
      else PetscCall(PetscSNPrintf(buf + l, sizeof(buf) - l, " %s", tok));
    }
    PetscCall(PetscOptionsInsertString(NULL, buf));
  }
  PetscCall(MatAssembled(A, &assembled));
  if (assembled) PetscCall(MatConvert(A, MATSEQELLWARP, MAT_INITIAL_MATRIX, B));
  else { /* an empty matrix of A's size (COO preallocation follows) */
    PetscInt m, n;
    PetscCall(MatGetSize(A, &m, &n));
    PetscCall(MatCreate(PETSC_COMM_SELF, B));
    PetscCall(MatSetSizes(*B, m, n, m, n));
    PetscCall(MatSetType(*B, MATSEQELLWARP));
  }
  PetscCall(MatSetOptionsPrefix(*B, prefix));
  PetscCall(MatSetFromOptions(*B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* copy a host array into a vector of B's type */
static PetscErrorCode VecFrom(Mat B, const PetscScalar *h, PetscBool left, Vec *v)
{
  PetscScalar *a;
  PetscInt     n;

  PetscFunctionBegin;
  if (left) PetscCall(MatCreateVecs(B, NULL, v));
  else PetscCall(MatCreateVecs(B, v, NULL));
  PetscCall(VecGetLocalSize(*v, &n));
  PetscCall(VecGetArrayWrite(*v, &a));
  PetscCall(PetscArraycpy(a, h, n));
  PetscCall(VecRestoreArrayWrite(*v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the three products of B on host inputs x, z, into host arrays: A x, A x + z, z += A x (in place) */
static PetscErrorCode Products(Mat B, PetscInt m, const PetscScalar *x, const PetscScalar *z, PetscScalar *out[3])
{
  Vec                xv, zv, yv;
  const PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(VecFrom(B, x, PETSC_FALSE, &xv));
  PetscCall(VecFrom(B, z, PETSC_TRUE, &zv));
  PetscCall(MatCreateVecs(B, NULL, &yv));
  PetscCall(MatMult(B, xv, yv));
  PetscCall(VecGetArrayRead(yv, &a));
  PetscCall(PetscArraycpy(out[0], a, m));
  PetscCall(VecRestoreArrayRead(yv, &a));
  PetscCall(MatMultAdd(B, xv, zv, yv));
  PetscCall(VecGetArrayRead(yv, &a));
  PetscCall(PetscArraycpy(out[1], a, m));
  PetscCall(VecRestoreArrayRead(yv, &a));
  PetscCall(MatMultAdd(B, xv, zv, zv));
  PetscCall(VecGetArrayRead(zv, &a));
  PetscCall(PetscArraycpy(out[2], a, m));
  PetscCall(VecRestoreArrayRead(zv, &a));
  PetscCall(VecDestroy(&xv));
  PetscCall(VecDestroy(&zv));
  PetscCall(VecDestroy(&yv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckClose(PetscInt m, const PetscScalar *ref, const PetscScalar *y, PetscReal tol, const char *what, const char *mname, const char *k, const char *v)
{
  PetscReal mx = 1.0, err = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < m; i++) mx = PetscMax(mx, PetscAbsScalar(ref[i]));
  for (PetscInt i = 0; i < m; i++) err = PetscMax(err, PetscAbsScalar(ref[i] - y[i]));
  PetscCheck(err <= tol * mx, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s [%s] [%s] [%s]: relative error %g > %g", what, mname, k, v, (double)(err / mx), (double)tol);
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckBitwise(PetscInt m, const PetscScalar *ref, const PetscScalar *y, const char *what, const char *mname, const char *k, const char *v)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < m; i++) PetscCheck(ref[i] == y[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s [%s] [%s] [%s]: row %" PetscInt_FMT " differs from the default kernel (%.17g vs %.17g)", what, mname, k, v, i, (double)PetscRealPart(y[i]), (double)PetscRealPart(ref[i]));
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestMult(Mat A, const char *mname)
{
  PetscInt     m, n;
  PetscScalar *x, *z, *yref[3], *ydef[3], *yacc1[3], *yv[3], *yh[3];
  PetscRandom  rnd;
  const char  *what[3] = {"MatMult", "MatMultAdd", "MatMultAdd in place"};
  PetscBool    cuda    = (PetscBool)!strcmp(backend, "cuda");

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(PetscMalloc2(n, &x, m, &z));
  for (int q = 0; q < 3; q++) PetscCall(PetscMalloc5(m, &yref[q], m, &ydef[q], m, &yacc1[q], m, &yv[q], m, &yh[q]));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (PetscInt i = 0; i < n; i++) PetscCall(PetscRandomGetValue(rnd, &x[i]));
  for (PetscInt i = 0; i < m; i++) PetscCall(PetscRandomGetValue(rnd, &z[i]));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(Products(A, m, x, z, yref));
  for (size_t kc = 0; kc < PETSC_STATIC_ARRAY_LENGTH(kernel_configs); kc++) {
    const char *k = kernel_configs[kc];
    for (size_t vi = 0; vi < PETSC_STATIC_ARRAY_LENGTH(mult_variants); vi++) {
      const Variant *v = &mult_variants[vi];
      Mat            B;
      PetscCall(MakeEllwarp(A, backend, k, v->opts, &B));
      PetscCall(Products(B, m, x, z, yv));
      PetscCall(MatDestroy(&B));
      for (int q = 0; q < 3; q++) {
        PetscCall(CheckClose(m, yref[q], yv[q], 1e-13, what[q], mname, k, v->opts));
        if (vi == 0) PetscCall(PetscArraycpy(ydef[q], yv[q], m));
        else if (v->bitwise == BW_DEFAULT && cuda) PetscCall(CheckBitwise(m, ydef[q], yv[q], what[q], mname, k, v->opts));
        if (!strcmp(v->opts, "-mat_ellwarp_tune mult_acc=1")) PetscCall(PetscArraycpy(yacc1[q], yv[q], m)); /* listed before the BW_ACC1 variants */
        else if (v->bitwise == BW_ACC1 && cuda) PetscCall(CheckBitwise(m, yacc1[q], yv[q], what[q], mname, k, v->opts));
      }
      if (cuda) { /* the device variant against the host reference of the same variant */
        PetscCall(MakeEllwarp(A, "host", k, v->opts, &B));
        PetscCall(Products(B, m, x, z, yh));
        PetscCall(MatDestroy(&B));
        for (int q = 0; q < 3; q++) PetscCall(CheckClose(m, yh[q], yv[q], 1e-13, what[q], mname, k, v->opts));
      }
    }
  }
  for (int q = 0; q < 3; q++) PetscCall(PetscFree5(yref[q], ydef[q], yacc1[q], yv[q], yh[q]));
  PetscCall(PetscFree2(x, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* random rows: lengths len(i), columns random in [0, n) or within +-band of the row */
static PetscErrorCode RandomMatrix(PetscInt m, PetscInt n, PetscInt (*len)(PetscInt, PetscRandom), PetscInt band, Mat *A)
{
  PetscRandom  rnd;
  PetscInt    *nnz, *cols;
  PetscScalar *vals;

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscMalloc1(m, &nnz));
  for (PetscInt i = 0; i < m; i++) nnz[i] = PetscMin(len(i, rnd), band > 0 ? PetscMin(2 * band + 1, n) : n);
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, n, 0, nnz, A));
  PetscCall(PetscMalloc2(n, &cols, n, &vals));
  for (PetscInt i = 0; i < m; i++) {
    PetscInt lo = band > 0 ? PetscMax(0, i - band) : 0, hi = band > 0 ? PetscMin(n, i + band + 1) : n, span = hi - lo, c = 0;
    PetscInt l = PetscMin(nnz[i], span);
    /* l distinct columns: a random start and stride through [lo, hi) coprime-ish walk */
    PetscReal r;
    PetscCall(PetscRandomGetValueReal(rnd, &r));
    PetscInt start = (PetscInt)(r * span), step = 1 + 2 * (PetscInt)(r * 7);
    while (span % step == 0 && step > 1) step -= 2;
    for (PetscInt t = 0; t < l; t++) {
      PetscReal vr;
      cols[c] = lo + (start + t * step) % span;
      PetscCall(PetscRandomGetValueReal(rnd, &vr));
      vals[c++] = 2 * vr - 1;
    }
    PetscCall(MatSetValues(*A, 1, &i, c, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree2(cols, vals));
  PetscCall(PetscFree(nnz));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt LenPowerLaw(PetscInt i, PetscRandom rnd)
{
  PetscReal r;
  if (PetscRandomGetValueReal(rnd, &r)) return 1;
  if (i % 797 == 5) return 600 + (PetscInt)(r * 2500); /* long rows: the chunk path (> 512 entries) */
  if (i % 11 == 3) return 0;                          /* empty rows */
  return 1 + (PetscInt)(60 * r * r * r);
}
static PetscInt LenRegular(PetscInt i, PetscRandom rnd)
{
  (void)i;
  (void)rnd;
  return 39;
}

/* the independent COO reference: a SeqAIJ matrix assembled entry by entry with MatSetValues(ADD_VALUES) */
static PetscErrorCode ReferenceByMatSetValues(PetscInt nv, PetscCount n, const PetscInt *ci, const PetscInt *cj, const PetscScalar *v, Mat *R)
{
  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, nv, nv, 27, NULL, R)); /* P1 Kuhn tets: at most 15 neighbours per vertex */
  for (PetscCount k = 0; k < n; k++) PetscCall(MatSetValue(*R, ci[k], cj[k], v[k], ADD_VALUES));
  PetscCall(MatAssemblyBegin(*R, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*R, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C (from the ELLWARP matrix) against scale * R: same pattern, values within tol relative to max |R| */
static PetscErrorCode CheckCOO(Mat C, Mat R, PetscScalar scale, PetscReal tol, const char *what, const char *v)
{
  PetscInt           n, m;
  const PetscInt    *ia, *ja, *ib, *jb;
  const PetscScalar *a, *r;
  PetscBool          done;
  PetscReal          mx = 0, err = 0;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(C, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(MatGetRowIJ(R, 0, PETSC_FALSE, PETSC_FALSE, &m, &ib, &jb, &done));
  PetscCheck(n == m && ia[n] == ib[m], PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO %s [%s]: %" PetscInt_FMT " nonzeros, the MatSetValues reference %" PetscInt_FMT, what, v, ia[n], ib[m]);
  for (PetscInt k = 0; k < ia[n]; k++) PetscCheck(ja[k] == jb[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO %s [%s]: pattern differs from the MatSetValues reference at nonzero %" PetscInt_FMT, what, v, k);
  PetscCall(MatSeqAIJGetArrayRead(C, &a));
  PetscCall(MatSeqAIJGetArrayRead(R, &r));
  for (PetscInt k = 0; k < ia[n]; k++) {
    mx  = PetscMax(mx, PetscAbsScalar(scale * r[k]));
    err = PetscMax(err, PetscAbsScalar(a[k] - scale * r[k]));
  }
  PetscCheck(err <= tol * mx, PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO %s [%s]: max |difference| %g from the MatSetValues reference (max |value| %g, tolerance %g relative)", what, v, (double)err, (double)mx, (double)tol);
  PetscCall(MatSeqAIJRestoreArrayRead(C, &a));
  PetscCall(MatSeqAIJRestoreArrayRead(R, &r));
  PetscCall(MatRestoreRowIJ(C, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(MatRestoreRowIJ(R, 0, PETSC_FALSE, PETSC_FALSE, &m, &ib, &jb, &done));
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestCOO(void)
{
  Mat          A, R;
  PetscInt     N = 7, nv, *ci, *cj;
  PetscCount   n;
  PetscScalar *v;

  PetscFunctionBegin;
  nv = (N + 1) * (N + 1) * (N + 1);
  PetscCall(EllwarpKuhnCOO(N, &n, &ci, &cj));
  PetscCall(PetscMalloc1(n, &v));
  for (PetscCount k = 0; k < n; k++) v[k] = 1.0 / 3.0 + (PetscScalar)((k * 7919) % 1000) / 997.0;
  PetscCall(ReferenceByMatSetValues(nv, n, ci, cj, v, &R));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, nv, nv, 0, NULL, &A)); /* only gives MakeEllwarp the sizes */
  for (size_t vi = 0; vi < PETSC_STATIC_ARRAY_LENGTH(coo_variants); vi++) {
    Mat B, C;
    PetscCall(MakeEllwarp(A, backend, "", coo_variants[vi], &B)); /* the type and options; the COO pattern follows */
    { /* MatSetPreallocationCOO() may modify the index arrays it is given: a fresh copy for each matrix */
      PetscInt  *ci2, *cj2;
      PetscCount n2;
      PetscCall(EllwarpKuhnCOO(N, &n2, &ci2, &cj2));
      PetscCall(MatSetPreallocationCOO(B, n2, ci2, cj2));
      PetscCall(PetscFree2(ci2, cj2));
    }
    for (int round = 0; round < 2; round++) { /* INSERT: the sums; ADD: the sums added again (2x, exact) */
      PetscCall(MatSetValuesCOO(B, v, round ? ADD_VALUES : INSERT_VALUES));
      PetscCall(MatConvert(B, MATSEQAIJ, MAT_INITIAL_MATRIX, &C));
      /* both sum a nonzero's <= 24 entries from 0, possibly in other orders: measured 6e-16 relative (host) */
      PetscCall(CheckCOO(C, R, round ? 2.0 : 1.0, 1e-14, round ? "ADD" : "INSERT", coo_variants[vi]));
      PetscCall(MatDestroy(&C));
    }
    PetscCall(MatDestroy(&B));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(PetscFree2(ci, cj));
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bad variant options: a clear error at MatSetFromOptions, out of range or (the batched kernel has one lane and one
   accumulator per thread) not combining with the other step-loop variants */
static PetscErrorCode TestBadOptions(Mat A)
{
  const struct {
    const char    *opts;
    PetscErrorCode err;
  } bad[] = {
    {"-mat_ellwarp_tune mult_lanes=3",                          PETSC_ERR_ARG_OUTOFRANGE},
    {"-mat_ellwarp_tune mult_unroll=6",                         PETSC_ERR_ARG_OUTOFRANGE},
    {"-mat_ellwarp_tune mult_batch=3",                          PETSC_ERR_ARG_OUTOFRANGE},
    {"-mat_ellwarp_tune mult_batch=16",                         PETSC_ERR_ARG_OUTOFRANGE},
    {"-mat_ellwarp_tune mult_regs=48",                          PETSC_ERR_ARG_OUTOFRANGE},
    {"-mat_ellwarp_tune block_batch=3",                         PETSC_ERR_ARG_OUTOFRANGE},
    {"-mat_ellwarp_tune mult_acc=8",                            PETSC_ERR_ARG_OUTOFRANGE},
    {"-mat_ellwarp_tune long_unroll=3",                         PETSC_ERR_ARG_OUTOFRANGE},
    {"-mat_ellwarp_tune long_unroll=16",                        PETSC_ERR_ARG_OUTOFRANGE},
    {"-mat_ellwarp_tune coo_unroll=3",                          PETSC_ERR_ARG_OUTOFRANGE},
    {"-mat_ellwarp_tune coo_block_size=2048",                   PETSC_ERR_ARG_OUTOFRANGE},
    {"-mat_ellwarp_tune mult_batch=8,mult_acc=2",               PETSC_ERR_ARG_INCOMP    },
    {"-mat_ellwarp_tune mult_batch=4,mult_lanes=2",             PETSC_ERR_ARG_INCOMP    },
    {"-mat_ellwarp_tune mult_batch=8,mult_unroll=8",            PETSC_ERR_ARG_INCOMP    },
    {"-mat_ellwarp_tune mult_batch=4,mult_regs=32,mult_prefetch=1", PETSC_ERR_ARG_INCOMP},
  };

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(bad); i++) {
    Mat            B = NULL;
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MakeEllwarp(A, backend, "", bad[i].opts, &B);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == bad[i].err, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s was not refused with error %d (got %d)", bad[i].opts, (int)bad[i].err, (int)ierr);
    PetscCall(MatDestroy(&B));
    nchecks++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat A;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-backend", backend, sizeof(backend), NULL));
  /* irregular, 16-bit columns (all within +-32767: 5000 columns) with long rows */
  PetscCall(RandomMatrix(5000, 5000, LenPowerLaw, 0, &A));
  PetscCall(TestMult(A, "powerlaw 16-bit"));
  PetscCall(TestBadOptions(A));
  PetscCall(MatDestroy(&A));
  /* irregular, 32-bit columns (70000 columns, random) */
  PetscCall(RandomMatrix(3000, 70000, LenPowerLaw, 0, &A));
  PetscCall(TestMult(A, "powerlaw 32-bit"));
  PetscCall(MatDestroy(&A));
  /* regular: every row 39 entries, no padding (QCD-like) */
  PetscCall(RandomMatrix(4000, 4000, LenRegular, 40, &A));
  PetscCall(TestMult(A, "regular"));
  PetscCall(MatDestroy(&A));
  { /* stencils far from the diagonal: biased 16-bit slices (K1, and K2 with 2..8 lanes per row) */
    const PetscInt dims[3] = {64, 270, 5};
    const PetscInt off[13] = {-90017, -47011, -40009, -2003, -1001, 0, 1001, 2003, 33013, 40009, 47017, 65011, 90019};
    PetscInt       nn, *ai, *aj;
    PetscRandom    r;
    PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
    PetscCall(PetscRandomSetInterval(r, -1.0, 1.0));
    PetscCall(StencilLatticeCSR(3, dims, 1, &nn, &ai, &aj));
    PetscCall(StencilMat(nn, nn, ai, aj, r, &A));
    PetscCall(PetscFree(ai));
    PetscCall(PetscFree(aj));
    PetscCall(TestMult(A, "lattice biased"));
    PetscCall(MatDestroy(&A));
    PetscCall(StencilOffsetsCSR(3000, 100000, 13, off, PETSC_TRUE, &ai, &aj));
    PetscCall(StencilMat(3000, 100000, ai, aj, r, &A));
    PetscCall(PetscFree(ai));
    PetscCall(PetscFree(aj));
    PetscCall(TestMult(A, "stencil mixed modes"));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscRandomDestroy(&r));
  }
  /* P1 tets: COO with duplicates, then the assembled FE matrix */
  PetscCall(TestCOO());
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "variants (%s backend): %" PetscInt_FMT " checks passed\n", backend, nchecks));
  PetscCall(PetscFinalize());
  return 0;
}
