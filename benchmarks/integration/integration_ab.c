/* A/B timing of two builds of the library's host element integration in ONE process (issue 20: the host prism
   bodies were compared this way on the shared 2-core build host, whose speed moves by tens of per cent between
   processes seconds apart).  Two copies of libpetscellwarp (e.g. the library before and after a change, copied to
   different paths) are loaded with dlopen, each makes its own DMAssemblyIntegration of the same prism problem, and
   their Applies alternate: A, B, A, B, ... -reps times each; prints the fastest, the 10th percentile and the median of
   the single Apply times of each.  Not built by CMake (it links no ellwarp library); build and run by hand:
     source scripts/env.sh
     mpicc -O2 -Iinclude -isystem $ELLWARP_PETSC_PREFIX/include benchmarks/integration/integration_ab.c -o /tmp/integration_ab \
       -L$ELLWARP_PETSC_PREFIX/lib -lpetsc -ldl -Wl,-rpath,$ELLWARP_PETSC_PREFIX/lib
     OMP_NUM_THREADS=1 taskset -c 1 /tmp/integration_ab -a /tmp/old/libpetscellwarp.so -b build/lib/libpetscellwarp.so.0.1.0
   Options: -a, -b the two library files; -n prisms (1024); -reps (2000); -prob 0 Poisson, 1 conv-diff; -var 0 qss,
   1 sqs, 2 ssq; -isa 0 base, 1 avx2, 2 avx512; -st 1 streaming stores; each object reads its options with the
   prefix a_ or b_ (DMAssemblyIntegrationSetFromOptions), e.g. the same library twice, -b_dm_assembly_integration_host_chunk 32. */
#include <petscellwarpintegrate.h>
#include <petscfe.h>
#include <petsctime.h>
#include <stdint.h>
#include <dlfcn.h>

typedef PetscErrorCode (*IGCreateFn)(PetscFE, DMAssemblyIntegrationProblem, DMAssemblyIntegration *);
typedef PetscErrorCode (*IGSetVariantFn)(DMAssemblyIntegration, DMAssemblyIntegrationVariant, PetscInt, PetscInt);
typedef PetscErrorCode (*IGSetHostFn)(DMAssemblyIntegration, PetscInt, PetscInt);
typedef PetscErrorCode (*IGApplyFn)(DMAssemblyIntegration, PetscMemType, DMAssemblyIntegrationOutput, PetscInt, const PetscReal[], const PetscReal[], PetscInt, const PetscScalar[], PetscScalar[], PetscScalar[]);
typedef PetscErrorCode (*IGSetFromOptionsFn)(DMAssemblyIntegration, const char[]);
typedef PetscErrorCode (*IGGetSizesFn)(DMAssemblyIntegration, PetscInt *, PetscInt *, PetscInt *);

int main(int argc, char **argv)
{
  PetscInt              n = 1024, reps = 2000, prob = 0, isa = 2, st = 0, var = 0, ncoef = 0;
  PetscFE               fe;
  DMAssemblyIntegration ig[2];
  IGApplyFn             apply[2];
  PetscReal            *xe, *coef, *t[2];
  PetscScalar          *buf, *ke, *fv;
  PetscRandom           r;
  char                  lib[2][PETSC_MAX_PATH_LEN] = {"", ""};
  const PetscReal       pri[6][3] = {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-prob", &prob, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-var", &var, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-isa", &isa, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-st", &st, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-a", lib[0], sizeof(lib[0]), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-b", lib[1], sizeof(lib[1]), NULL));
  PetscCheck(lib[0][0] && lib[1][0], PETSC_COMM_SELF, PETSC_ERR_USER, "-a and -b: the two library files");
  PetscCheck(n > 0 && reps > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-n and -reps must be positive");
  PetscCall(PetscFECreateLagrangeByCell(PETSC_COMM_SELF, 3, 1, DM_POLYTOPE_TRI_PRISM, 1, PETSC_DETERMINE, &fe));
  for (int i = 0; i < 2; i++) {
    void *h = dlopen(lib[i], RTLD_NOW | RTLD_LOCAL); /* by path: a second copy loads beside the first */
    PetscCheck(h, PETSC_COMM_SELF, PETSC_ERR_LIB, "dlopen %s: %s", lib[i], dlerror());
    PetscCall(((IGCreateFn)dlsym(h, "DMAssemblyIntegrationCreate"))(fe, (DMAssemblyIntegrationProblem)prob, &ig[i]));
    if (dlsym(h, "DMAssemblyIntegrationSetFromOptions")) PetscCall(((IGSetFromOptionsFn)dlsym(h, "DMAssemblyIntegrationSetFromOptions"))(ig[i], i ? "b_" : "a_"));
    PetscCall(((IGSetVariantFn)dlsym(h, "DMAssemblyIntegrationSetVariant"))(ig[i], (DMAssemblyIntegrationVariant)var, 0, 64));
    PetscCall(((IGSetHostFn)dlsym(h, "DMAssemblyIntegrationSetHost"))(ig[i], isa, st));
    PetscCall(((IGGetSizesFn)dlsym(h, "DMAssemblyIntegrationGetSizes"))(ig[i], NULL, NULL, &ncoef));
    apply[i] = (IGApplyFn)dlsym(h, "DMAssemblyIntegrationApply");
  }
  PetscCall(PetscMalloc4((size_t)18 * n, &xe, (size_t)ncoef * n, &coef, reps, &t[0], reps, &t[1]));
  PetscCall(PetscMalloc1((size_t)42 * n + 24, &buf));
  ke = (PetscScalar *)(((uintptr_t)buf + 63) / 64 * 64); /* aligned: streaming stores possible */
  fv = ke + (size_t)36 * n;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetInterval(r, -1.0, 1.0));
  for (PetscInt e = 0; e < n; e++)
    for (int a = 0; a < 6; a++)
      for (int d = 0; d < 3; d++) {
        PetscReal v;
        PetscCall(PetscRandomGetValueReal(r, &v));
        xe[(a * 3 + d) * n + e] = pri[a][d] + 0.1 * v;
      }
  for (PetscInt i = 0; i < ncoef * n; i++) PetscCall(PetscRandomGetValueReal(r, &coef[i]));
  for (int k = 0; k < 5; k++)
    for (int i = 0; i < 2; i++) PetscCall(apply[i](ig[i], PETSC_MEMTYPE_HOST, DMASSEMBLY_INTEGRATION_OUT_AB, n, xe, coef, n, NULL, ke, fv));
  for (PetscInt k = 0; k < reps; k++)
    for (int i = 0; i < 2; i++) {
      PetscLogDouble t0, t1;
      PetscCall(PetscTime(&t0));
      PetscCall(apply[i](ig[i], PETSC_MEMTYPE_HOST, DMASSEMBLY_INTEGRATION_OUT_AB, n, xe, coef, n, NULL, ke, fv));
      PetscCall(PetscTime(&t1));
      t[i][k] = t1 - t0;
    }
  for (int i = 0; i < 2; i++) {
    PetscCall(PetscSortReal(reps, t[i]));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s (%s): fastest %.2f, 10th percentile %.2f, median %.2f ns per element\n", i ? "B" : "A", lib[i], 1e9 * t[i][0] / n, 1e9 * t[i][reps / 10] / n, 1e9 * t[i][reps / 2] / n));
  }
  PetscCall(PetscFree4(xe, coef, t[0], t[1]));
  PetscCall(PetscFree(buf));
  PetscCall(PetscRandomDestroy(&r));
  PetscCall(PetscFEDestroy(&fe)); /* the two objects belong to the libraries' copies: left to the process's end */
  PetscCall(PetscFinalize());
  return 0;
}
