/* DMAssembly keeps no plan whose target map has changed.

   The assembler caches where each element entry goes in the target matrix's value array.  Every way that map can
   change must make the next DMAssemblyComputeJacobian() rebuild the plan (MatGetAssemblyTarget's state), never
   scatter into the old slots.  On a P1 Laplacian Jacobian over a small box (the built-in kernels, alpha = 1,
   no mass, no source) assembled into MATELLWARP, after each of
     - a new layout of the same pattern at the same nonzero state (MatEllwarpSetKernel: K1 -> K2 with a small
       threshold, then K2 -> K1: re-analysis each time),
     - MatDuplicate (a second matrix) and back to the first,
     - MatConvert in place to AIJ (host) or AIJCUSPARSE (-gpu) and back to ELLWARP, and MatConvert to a new matrix,
     - a new nonzero state (one more entry in row 0),
     - a matrix type with no assembly target (MATSEQBAIJ, block size 1: through MatSetValuesCOO),
   the Jacobian must equal PETSc's own closure assembly (DMPlexMatSetClosure into AIJ, tests/assemblytestutil.h)
   to a relative 1e-12 in the Frobenius norm.  Assembling again with nothing changed must reuse the plan (no new
   plan) and a change must build one, so the test also fails if the state never changes or changes every call.
   -gpu: the assembler and the ELLWARP layout on the device (cuda backend).  On several processes (the mesh made
   on rank 0, distributed with overlap 1): MATMPIELLWARP, whose two blocks' layouts change, the MPIAIJ(CUSPARSE)
   conversion and MATMPIBAIJ through MatSetValuesCOO; the new-nonzero-state step runs on one process only.

   Before MatGetAssemblyTarget the plan was keyed on the layout's address: a re-analysis at the same nonzero
   state that reused the address gave a Jacobian off by a relative ~1 with no error. */
#include <petscellwarp.h>
#include <petscellwarpassembly.h>
#include <petscdmplex.h>
#include <petscellwarp/private/dmasmp1.h>
#include "testutil.h"
#include "assemblytestutil.h"

/* ellwarp_add_test(assembly_layout.cpu -faces 3) */
/* ellwarp_add_test(assembly_layout.cpu_localrow -faces 3 -dm_assembly_type localrow) */
/* ellwarp_add_test(assembly_layout.cpu_sharednz -faces 3 -dm_assembly_type sharednz -dm_assembly_shared_partition metis) */
/* ellwarp_add_test(assembly_layout.gpu -faces 4 -gpu GPU) */
/* ellwarp_add_test(assembly_layout.np2 NPROCS 2 -faces 4) */
/* ellwarp_add_test(assembly_layout.gpu_np2 NPROCS 2 -faces 5 -gpu GPU) */

typedef struct {
  DMAssembly as;
  Vec        U;
  Mat        Jref;
  PetscInt   nfail;
} Ctx;

/* relative Frobenius error of J against the AIJ reference, through an AIJ copy (the host values brought up to
   date first: after a device assembly they live on the device) */
static PetscErrorCode RelErrJ(Mat J, Mat Ref, PetscReal *err)
{
  Mat         Jc, blk[2] = {NULL, NULL};
  PetscReal   nd, nr;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)J), &size));
  if (size > 1) {
    PetscBool isaij;
    PetscCall(PetscStrbeginswith(((PetscObject)J)->type_name, MATMPIAIJ, &isaij));
    if (isaij) PetscCall(MatMPIAIJGetSeqAIJ(J, &blk[0], &blk[1], NULL));
  } else blk[0] = J;
  for (int b = 0; b < 2; b++) {
    PetscBool          isaij;
    const PetscScalar *v;
    if (!blk[b]) continue;
    PetscCall(PetscStrbeginswith(((PetscObject)blk[b])->type_name, MATSEQAIJ, &isaij));
    if (!isaij) continue;
    PetscCall(MatSeqAIJGetArrayRead(blk[b], &v));
    PetscCall(MatSeqAIJRestoreArrayRead(blk[b], &v));
  }
  PetscCall(MatConvert(J, MATAIJ, MAT_INITIAL_MATRIX, &Jc));
  PetscCall(MatAXPY(Jc, -1.0, Ref, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(Jc, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(Ref, NORM_FROBENIUS, &nr));
  *err = nd / (nr > 0 ? nr : 1);
  PetscCall(MatDestroy(&Jc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* assemble into J, compare with the reference; expect a new plan (rebuild) or the old one */
static PetscErrorCode Check(Ctx *c, Mat J, const char *what, PetscBool rebuild)
{
  DMAssemblyInfo i0, i1;
  PetscReal      err;
  PetscBool      ok;
  MatType        type;

  PetscFunctionBegin;
  PetscCall(DMAssemblyGetInfo(c->as, &i0));
  PetscCall(DMAssemblyComputeJacobian(c->as, c->U, J));
  PetscCall(DMAssemblyGetInfo(c->as, &i1));
  PetscCall(RelErrJ(J, c->Jref, &err));
  PetscCall(MatGetType(J, &type));
  ok = (PetscBool)(err < 1e-12 && (i1.njacplans > i0.njacplans) == rebuild);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-44s %-14s rel. error %.2e, plan %s (expected %s): %s\n", what, type, (double)err, i1.njacplans > i0.njacplans ? "rebuilt" : "reused", rebuild ? "rebuilt" : "reused", ok ? "ok" : "FAIL"));
  if (!ok) c->nfail++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetKernel(Mat J, MatEllwarpKernel k, PetscInt threshold, PetscInt *nanalyses)
{
  MatEllwarpInfo info;
  PetscMPIInt    size;

  PetscFunctionBegin;
  PetscCall(MatEllwarpSetKernel(J, k, threshold));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)J), &size));
  if (size > 1) { /* the blocks' layouts: no single kernel or analysis count to check */
    if (nanalyses) *nanalyses = -1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatEllwarpGetInfo(J, &info));
  PetscCheck(info.kernel == k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the layout's kernel is %s, not %s", MatEllwarpKernels[info.kernel], MatEllwarpKernels[k]);
  if (nanalyses) *nanalyses = info.nanalyses;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM                       dm;
  PetscInt                 faces = 3, dim, nv, nt, *cells, n0, n1;
  PetscReal               *x;
  PetscBool                gpu = PETSC_FALSE;
  PetscMemType             mt;
  DMAssemblyElementKernels k;
  Mat                      J, Jd, Jc, Jb;
  Vec                      F;
  Ctx                      c = {0};
  PetscMPIInt              size, rank;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu", &gpu, NULL)); /* the GPU keyword of the test gates the device */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-faces", &faces, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(SimplexBoxCells(PETSC_TRUE, faces, &dim, &nv, &nt, &cells, &x));
  PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_WORLD, dim, rank ? 0 : nt, rank ? 0 : nv, dim + 1, PETSC_TRUE, cells, dim, x, &dm));
  PetscCall(PetscFree2(cells, x));
  if (size > 1) { /* the assembler needs every cell around the owned vertices: overlap 1 */
    DM dmd;
    PetscCall(DMPlexDistribute(dm, 1, NULL, &dmd));
    PetscCheck(dmd, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "DMPlexDistribute gave no distributed mesh");
    PetscCall(DMDestroy(&dm));
    dm = dmd;
  }
  {
    PetscFE fe;
    PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, dim, 1, PETSC_TRUE, 1, PETSC_DETERMINE, &fe));
    PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
    PetscCall(DMCreateDS(dm));
    PetscCall(PetscFEDestroy(&fe));
  }
  PetscCall(DMCreateGlobalVector(dm, &c.U));
  PetscCall(VecSet(c.U, 1.0));
  PetscCall(ReferenceAssembly(dm, 1.0, 0.0, 0.0, NULL, c.U, &c.Jref, &F));
  PetscCall(VecDestroy(&F));

  PetscCall(DMAssemblyCreate(dm, &c.as));
  PetscCall(DMAssemblySetFromOptions(c.as));
  PetscCall(DMAssemblyP1DiffusionMassKernels(c.as, 1.0, 0.0, 0.0, NULL, &k));
  PetscCall(DMAssemblySetElementKernels(c.as, &k));
  PetscCall(DMAssemblySetUp(c.as));
  PetscCall(DMAssemblyGetMemType(c.as, &mt));
  PetscCheck(!gpu || mt == PETSC_MEMTYPE_DEVICE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "GPU run: the assembler does not run on the device");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "P1 Laplacian, %" PetscInt_FMT " tetrahedra, %" PetscInt_FMT " dofs, %d process(es), assembler on the %s\n", nt, nv, size, mt == PETSC_MEMTYPE_HOST ? "host" : "device"));

  PetscCall(CreateTarget(dm, MATELLWARP, mt, &J));
  PetscCall(SetKernel(J, MAT_ELLWARP_KERNEL_K1, 0, NULL));
  PetscCall(Check(&c, J, "first assembly (K1)", PETSC_TRUE));
  PetscCall(Check(&c, J, "again, nothing changed", PETSC_FALSE));

  /* a new layout at the same nonzero state */
  PetscCall(SetKernel(J, MAT_ELLWARP_KERNEL_K1, 0, &n0));
  PetscCall(SetKernel(J, MAT_ELLWARP_KERNEL_K2, 2, &n1));
  PetscCheck(n1 > n0 || (n0 < 0 && n1 < 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatEllwarpSetKernel did not re-analyse");
  PetscCall(Check(&c, J, "MatEllwarpSetKernel K2 threshold 2", PETSC_TRUE));
  PetscCall(Check(&c, J, "again, nothing changed", PETSC_FALSE));
  PetscCall(SetKernel(J, MAT_ELLWARP_KERNEL_K1, 0, NULL));
  PetscCall(Check(&c, J, "MatEllwarpSetKernel back to K1", PETSC_TRUE));

  /* another matrix, and back */
  PetscCall(MatDuplicate(J, MAT_DO_NOT_COPY_VALUES, &Jd));
  PetscCall(SetKernel(Jd, MAT_ELLWARP_KERNEL_K2, 3, NULL));
  PetscCall(Check(&c, Jd, "MatDuplicate (K2 threshold 3)", PETSC_TRUE));
  PetscCall(Check(&c, J, "the first matrix again", PETSC_TRUE));
  PetscCall(MatDestroy(&Jd));

  /* conversions: in place to AIJ(CUSPARSE) and back, and to a new matrix */
  PetscCall(MatConvert(J, mt == PETSC_MEMTYPE_DEVICE ? MATAIJCUSPARSE : MATAIJ, MAT_INPLACE_MATRIX, &J)); /* a device assembler (any run where a device exists) writes device memory */
  PetscCall(Check(&c, J, "MatConvert in place to AIJ", PETSC_TRUE));
  PetscCall(MatConvert(J, size > 1 ? MATMPIELLWARP : MATSEQELLWARP, MAT_INPLACE_MATRIX, &J));
  PetscCall(MatEllwarpSetBackend(J, mt == PETSC_MEMTYPE_HOST ? MAT_ELLWARP_BACKEND_HOST : MAT_ELLWARP_BACKEND_CUDA));
  PetscCall(SetKernel(J, MAT_ELLWARP_KERNEL_K2, 2, NULL));
  PetscCall(Check(&c, J, "MatConvert in place back to ELLWARP (K2)", PETSC_TRUE));
  PetscCall(MatConvert(J, size > 1 ? MATMPIELLWARP : MATSEQELLWARP, MAT_INITIAL_MATRIX, &Jc));
  PetscCall(Check(&c, Jc, "MatConvert to a new ELLWARP matrix", PETSC_TRUE));
  PetscCall(MatDestroy(&Jc));
  PetscCall(Check(&c, J, "the converted matrix again", PETSC_TRUE));

  /* a new nonzero state: an entry of row 0 outside the element pattern (its value stays 0) */
  if (size == 1) {
    PetscInt           ncol;
    const PetscScalar *v;
    PetscCall(MatGetSize(J, NULL, &ncol));
    PetscCall(MatSeqAIJGetArrayRead(J, &v)); /* the host copy current before host MatSetValues (the assembler left the values in the layout) */
    PetscCall(MatSeqAIJRestoreArrayRead(J, &v));
    PetscCall(MatSetOption(J, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetValue(J, 0, ncol - 1, 0.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
    PetscCall(Check(&c, J, "a new nonzero state", PETSC_TRUE));
    PetscCall(Check(&c, J, "again, nothing changed", PETSC_FALSE));
  }

  /* a matrix type without an assembly target: MatSetValuesCOO */
  {
    PetscBool has;
    PetscCall(MatConvert(c.Jref, MATBAIJ, MAT_INITIAL_MATRIX, &Jb));
    PetscCall(MatZeroEntries(Jb));
    PetscCall(MatHasAssemblyTarget(Jb, &has));
    PetscCheck(!has, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATBAIJ should have no assembly target");
    PetscCall(Check(&c, Jb, "no assembly target: MatSetValuesCOO", PETSC_TRUE));
    PetscCall(Check(&c, Jb, "again, nothing changed", PETSC_FALSE));
    PetscCall(MatDestroy(&Jb));
  }

  PetscCall(MatDestroy(&J));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &c.nfail, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "assembly_layout: %s\n", c.nfail ? "FAIL" : "all checks PASS"));
  PetscCall(DMAssemblyDestroy(&c.as));
  PetscCall(MatDestroy(&c.Jref));
  PetscCall(VecDestroy(&c.U));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return c.nfail ? 1 : 0;
}
