/* Public interface of the DM-level GPU finite-element assembler (src/dm/assembly, issue 6).

   A DMAssembly is attached to a DMPlex with a scalar P1 PetscFE (tetrahedra or triangles), or any scalar Lagrange
   PetscFE on triangles/tetrahedra and Q1 on quadrilaterals/hexahedra (DMAssemblyLagrangeKernels(); the fused P1
   methods sharednz/localrow do not apply there).  DMAssemblySetUp()
   builds, once per mesh, the element -> dof map, the Jacobian pattern and the per-nonzero / per-dof
   reduction lists; the first DMAssemblyComputeJacobian() into a given matrix packs the lists in that
   matrix's storage order (ELLWARP value slots, or CSR for AIJ/AIJCUSPARSE).  Later assemblies run
   gather -> element callback -> reduction with no analysis at all.  See src/dm/assembly/README.md. */
#pragma once

#include <petscdmplex.h>
#include <petscsnes.h>

/* MANSEC = DM */

typedef struct _p_DMAssembly *DMAssembly;
typedef const char           *DMAssemblyType;
#define DMASSEMBLYGLOBALNZ "globalnz" /* element kernel -> element matrices in global memory -> reduction by nonzero */
#define DMASSEMBLYATOMIC   "atomic"   /* element matrices scattered with atomicAdd (comparison; not reproducible) */
#define DMASSEMBLYCOLOR    "color"    /* element colouring, one scatter launch per colour (comparison) */
#define DMASSEMBLYHOST     "host"     /* plain-C reference: same element kernels on the host, same reduction plan */
#define DMASSEMBLYSHAREDNZ "sharednz"
#define DMASSEMBLYLOCALNZ  "localnz"  /* built-in kernels: one thread per nonzero recomputes each of its contributions */
#define DMASSEMBLYLOCALROW "localrow" /* built-in kernels: one thread per row computes its rows of the elements around it (fused, fixed order) */
#define DMASSEMBLYKIRAN    "kiran"    /* hex8 elasticity: Kiran, Sharma, Gautam's strategies (element, warp, PPNI, two kernels) with colouring */

PETSC_EXTERN PetscClassId DMASSEMBLY_CLASSID;
PETSC_EXTERN PetscLogEvent DMASSEMBLY_SetUp, DMASSEMBLY_Plan, DMASSEMBLY_Gather, DMASSEMBLY_Element, DMASSEMBLY_Reduce;
/* the phases of DMAssemblySetUp(): the element map from the DM, the pattern, the colouring (color), the residual plan,
   the type's own set-up and the element buffers (device allocations and uploads) */
PETSC_EXTERN PetscLogEvent DMASSEMBLY_ElementMap, DMASSEMBLY_Pattern, DMASSEMBLY_Color, DMASSEMBLY_ResPlan, DMASSEMBLY_Buffers, DMASSEMBLY_Ordering;

/* Element kernels: BATCHED callbacks.  The assembler gathers, per element, the element's node coordinates
   and nodal solution values into structure-of-arrays buffers (entry-major: array[k*nelem + e], so
   consecutive elements are consecutive in memory = coalesced on the GPU) and calls the user's function once
   per batch; the user's function launches its own CUDA kernel (mtype == PETSC_MEMTYPE_DEVICE) or runs a host
   loop (PETSC_MEMTYPE_HOST) writing element matrices/vectors in the same entry-major layout.
   xe: coordinate d of node a of element e at xe[(a*dim + d)*nelem + e] (dim = the mesh dimension, 3 for tets);
   beyond P1 the element's VERTICES only (a < 3/4 for simplices, 4/8 for Q1 cells, closure order).
   Per-element user data lives in ctx; e0 is the global index of the batch's first element (cells in
   DMPlex order from the first cell of height 0). */
typedef struct {
  PetscInt nen; /* nodes (= dofs, scalar fields) per element: 4 for P1 tets, 3 for P1 triangles */
  PetscErrorCode (*residual)(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe /*[nen*dim][nelem]*/, const PetscScalar *ue /*[nen][nelem]*/, const PetscScalar *ae /*[nen][nelem] or NULL*/, PetscScalar *fe /*[nen][nelem]*/, void *ctx);
  PetscErrorCode (*jacobian)(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *ke /*[nen*nen][nelem], row-major a*nen+b */, void *ctx);
  void *ctx;
} DMAssemblyElementKernels;

PETSC_EXTERN PetscErrorCode DMAssemblyInitializePackage(void);
PETSC_EXTERN PetscErrorCode DMAssemblyCreate(DM, DMAssembly *);
PETSC_EXTERN PetscErrorCode DMAssemblySetType(DMAssembly, DMAssemblyType);
PETSC_EXTERN PetscErrorCode DMAssemblyRegister(const char[], PetscErrorCode (*)(DMAssembly));
PETSC_EXTERN PetscErrorCode DMAssemblyRegisterAll(void);
PETSC_EXTERN PetscErrorCode DMAssemblyGetType(DMAssembly, DMAssemblyType *);
PETSC_EXTERN PetscErrorCode DMAssemblySetFromOptions(DMAssembly);
PETSC_EXTERN PetscErrorCode DMAssemblySetElementKernels(DMAssembly, const DMAssemblyElementKernels *);
PETSC_EXTERN PetscErrorCode DMAssemblySetAuxiliaryVec(DMAssembly, Vec);
PETSC_EXTERN PetscErrorCode DMAssemblySetUp(DMAssembly);
PETSC_EXTERN PetscErrorCode DMAssemblyCreateMatrix(DMAssembly, Mat *);
PETSC_EXTERN PetscErrorCode DMAssemblyCreateMatrixFree(DMAssembly, Mat *); /* matrix-free Q_p mass/Poisson operator (dmasmmatfree.c) */
PETSC_EXTERN PetscErrorCode DMAssemblyMatFreeAssemble(Mat, Mat); /* its element matrices assembled into a Mat through COO (dmasmmatfree.c) */
PETSC_EXTERN PetscErrorCode DMAssemblyComputeResidual(DMAssembly, Vec, Vec);
PETSC_EXTERN PetscErrorCode DMAssemblyComputeJacobian(DMAssembly, Vec, Mat);
PETSC_EXTERN PetscErrorCode DMAssemblySetSNES(DMAssembly, SNES);
PETSC_EXTERN PetscErrorCode DMAssemblyGetMemType(DMAssembly, PetscMemType *);
PETSC_EXTERN PetscErrorCode DMAssemblyView(DMAssembly, PetscViewer);
PETSC_EXTERN PetscErrorCode DMAssemblyDestroy(DMAssembly *);

/* added: the Jacobian kernel does not read ue/ae (linear problems): no gather before it, ue = ae = NULL */
PETSC_EXTERN PetscErrorCode DMAssemblySetJacobianUsesState(DMAssembly, PetscBool);

/* added: the kernels read the nodal state through the element map themselves (no ue/ae buffers): the map and the
   arrays during a callback from DMAssemblyGetNodalState() */
PETSC_EXTERN PetscErrorCode DMAssemblySetNodalState(DMAssembly, PetscBool);
PETSC_EXTERN PetscErrorCode DMAssemblyGetNodalState(DMAssembly, const PetscInt *[], const PetscScalar *[], const PetscScalar *[]);

/* added: atomic/color with the built-in kernels compute each element inside the scatter (default PETSC_TRUE) */
PETSC_EXTERN PetscErrorCode DMAssemblySetFuse(DMAssembly, PetscBool);

/* added: a locality numbering of the DM's dofs, given to the DM once before its global section, vectors and
   matrices exist (dmasmordering.c; -dm_assembly_ordering): the ELL-WARP paper's Kr/Krs through the assembler */
typedef enum {
  DMASSEMBLY_ORDERING_NONE,   /* the DM's own numbering (DMPlex: point order) */
  DMASSEMBLY_ORDERING_RCM,    /* reverse Cuthill-McKee of the dof-carrying points' coupling graph */
  DMASSEMBLY_ORDERING_ELLWARP /* RCM, then each window of ELLWARP's sort (256 rows) longest row first: ELLWARP's row order */
} DMAssemblyOrdering;
PETSC_EXTERN const char *const DMAssemblyOrderings[];
PETSC_EXTERN PetscErrorCode    DMAssemblySetLocalityOrdering(DMAssembly, DMAssemblyOrdering);
PETSC_EXTERN PetscErrorCode    DMAssemblyGetLocalityOrdering(DMAssembly, DMAssemblyOrdering *);

/* added: sizes and statistics (tests, benchmarks) */
typedef struct {
  PetscInt   nelem, nen, dim, ndof;
  PetscCount nnz;            /* nonzeros of the element-connectivity pattern */
  PetscCount ncontrib;       /* element-matrix entries = nen^2 nelem */
  PetscInt   ncolors;        /* element colours (after setup) */
  PetscInt   njacplans;      /* packed Jacobian plans built so far (1 per target pattern/layout) */
  PetscInt   nreductions;    /* Jacobian assemblies so far */
  PetscCount jacplanentries; /* packed entries of the last Jacobian plan (sources + markers + padding) */
  PetscCount resplanentries;
  PetscBool  idx64;          /* 64-bit source indices in the plans */
  PetscMemType mtype;        /* where callbacks and kernels run */
  PetscInt   shblocks;       /* sharednz Jacobian plan: thread blocks, */
  PetscCount shelements;     /* element computations (>= nelem: border elements once per block they touch), */
  PetscCount shnodes;        /* nodal loads through the scatter array */
  PetscCount shresidualelements; /* sharednz residual plan: element computations, */
  PetscCount shresidualnodes;    /* nodal loads */
} DMAssemblyInfo;
PETSC_EXTERN PetscErrorCode DMAssemblyGetInfo(DMAssembly, DMAssemblyInfo *);
PETSC_EXTERN PetscErrorCode DMAssemblySetPhaseTiming(DMAssembly, PetscBool);
PETSC_EXTERN PetscErrorCode DMAssemblyGetPhaseTimes(DMAssembly, PetscReal[3]);
/* the element -> global dof map (entry-major [nen][nelem], host) and the element colouring (host) */
PETSC_EXTERN PetscErrorCode DMAssemblyGetElementDofs(DMAssembly, PetscInt *, PetscInt *, const PetscInt **);
PETSC_EXTERN PetscErrorCode DMAssemblyGetColoring(DMAssembly, PetscInt *, const PetscInt **, const PetscInt **);
/* the gathered element coordinates, host copy, [nvert*dim][nelem] (vertex coordinates; nvert = nen for P1) */
PETSC_EXTERN PetscErrorCode DMAssemblyGetElementCoordinates(DMAssembly, const PetscReal **);

/* Built-in element kernels for P1 tetrahedra (host C and CUDA, the same double-precision math):
     ke = alpha * int grad(phi_a) . D_e grad(phi_b) + beta * int phi_a phi_b        (consistent mass)
     fe = ke ue - source * |T| / 4
   D: per-element symmetric 3x3 conductivity, cell-major host array [nelem][9] (NULL: identity).  The
   context is owned by the assembler (copied; on the device when the assembler runs there).  Calls
   DMAssemblySetJacobianUsesState(as, PETSC_FALSE): the Jacobian is linear. */
PETSC_EXTERN PetscErrorCode DMAssemblyP1DiffusionMassKernels(DMAssembly, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal D[], DMAssemblyElementKernels *);

/* Built-in kernels for every element the assembler supports beyond the fused P1 path (and P1 itself, unfused):
   scalar Lagrange P1..P5 triangles and tetrahedra of any order (affine), Q1 quadrilaterals and hexahedra:
     ke = alpha * int grad(phi_a) . D grad(phi_b) + beta * int phi_a phi_b,   fe = ke ue - source * int phi_a
   D: constant symmetric dim x dim conductivity (row-major) or NULL (identity).  Reference data tabulated once from
   the DM's PetscFE (exact quadrature on affine simplices; Gauss p+1 per direction on Q1 cells).  For elements
   other than P1 simplices, xe holds the element's VERTEX coordinates [nvert*dim][nelem] (closure order). */
PETSC_EXTERN PetscErrorCode DMAssemblyLagrangeKernels(DMAssembly, PetscReal alpha, PetscReal beta, PetscReal source, const PetscReal D[], DMAssemblyElementKernels *);

/* Built-in kernels of isotropic linear elasticity (src/dm/assembly/dmasmelas.c) for a dim-component P1/Q1 Lagrange
   field (Q1 hexahedra and quadrilaterals, P1 tetrahedra and triangles; 2-D: plane strain), at the PetscFE's own
   quadrature:  ke[(a*dim+i)*nen + b*dim+k] = int lambda d_i phi_a d_k phi_b + mu d_k phi_a d_i phi_b + mu delta_ik
   grad phi_a . grad phi_b,  fe = ke ue.  Vector fields in the element-kernel contract: nen = dofs per element =
   nvert*dim, node-major (dof a*dim + i: component i of vertex a), so ue/fe are [nen][nelem] and ke [nen*nen][nelem]
   as for scalar fields; xe stays the vertex coordinates [nvert*dim][nelem].  E, nu: constants, or per cell arrays
   Ecell/nucell [ncells] (either NULL: the constant). */
PETSC_EXTERN PetscErrorCode DMAssemblyElasticityKernels(DMAssembly, PetscReal E, PetscReal nu, const PetscReal Ecell[], const PetscReal nucell[], DMAssemblyElementKernels *);
/* the same operator as PETSc's pointwise Jacobian g3 (PetscPointJacFn, constants {lambda, mu}): PETSc's own FE assembly of it */
PETSC_EXTERN void DMAssemblyElasticityG3(PetscInt, PetscInt, PetscInt, const PetscInt[], const PetscInt[], const PetscScalar[], const PetscScalar[], const PetscScalar[], const PetscInt[], const PetscInt[], const PetscScalar[], const PetscScalar[], const PetscScalar[], PetscReal, PetscReal, const PetscReal[], PetscInt, const PetscScalar[], PetscScalar[]);

/* DMASSEMBLYKIRAN's strategy (-dm_assembly_kiran_strategy) */
typedef enum {
  DMASSEMBLY_KIRAN_ELEMENT,
  DMASSEMBLY_KIRAN_WARP4,
  DMASSEMBLY_KIRAN_WARP8,
  DMASSEMBLY_KIRAN_PPNI4,
  DMASSEMBLY_KIRAN_PPNI8,
  DMASSEMBLY_KIRAN_TWOKERNEL,
  DMASSEMBLY_KIRAN_PPNIROW,
  DMASSEMBLY_KIRAN_OWNER,
  DMASSEMBLY_KIRAN_OWNERGEO,
  DMASSEMBLY_KIRAN_AUTO /* the default: ownergeo where its requirements hold, else owner or ppnirow (DMAssemblyView says why) */
} DMAssemblyKiranStrategy;
PETSC_EXTERN const char *const DMAssemblyKiranStrategies[];
PETSC_EXTERN PetscErrorCode    DMAssemblyKiranSetStrategy(DMAssembly, DMAssemblyKiranStrategy);
PETSC_EXTERN PetscErrorCode    DMAssemblyKiranGetColoringTime(DMAssembly, PetscLogDouble *);
