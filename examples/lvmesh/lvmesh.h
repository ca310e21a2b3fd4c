/* ellwarplvmesh, the project's mesh library (examples/lvmesh): idealized left-ventricle tetrahedral meshes, gmsh
   files read through PETSc, refinement, renumberings, and P1 finite-element matrices for the benchmarks and tests.
   Geometry: Land et al. 2015 (cardiac mechanics benchmark, problem 2): truncated ellipsoids of revolution,
   endocardium semi-axes 7 mm / 17 mm, epicardium 10 mm / 20 mm, cut by the base plane z = 5 mm. */
#pragma once

#include <petscmat.h>

typedef struct {
  PetscInt   nv;  /* vertices */
  PetscInt   nt;  /* tetrahedra */
  PetscReal *xyz; /* 3*nv coordinates (mm) */
  PetscInt  *tet; /* 4*nt vertex numbers (0-based) */
} LVMesh;

/* Structured mesh: nt transmural node layers, nc circumferential nodes (periodic), nl longitudinal node rings
   (ring 0 is the apex pole, one node per transmural layer). Hexahedra are split into 6 tets (Kuhn); the cells
   touching the pole are degenerate hexahedra, their 3 non-degenerate Kuhn tets are kept (conforming).
   Numbering: longitudinal outer, circumferential, transmural inner. */
PetscErrorCode LVMeshCreateStructured(PetscInt nt, PetscInt nc, PetscInt nl, LVMesh *mesh);
/* Same, with the three counts chosen for roughly isotropic cells and about `nodes` vertices. */
PetscErrorCode LVMeshCreateStructuredByNodes(PetscCount nodes, LVMesh *mesh);
/* gmsh .msh through PETSc's reader (DMPlexCreateGmshFromFile: ASCII or binary, 2.2/4.0/4.1): every 3-D cell must
   be a linear tetrahedron; nodes no tet uses are dropped; file order kept.  Names ending in .xz or .gz are
   decompressed into a temporary file first (lvmesh_gmsh.c). */
PetscErrorCode LVMeshReadGmsh(const char filename[], LVMesh *mesh);
/* Same, also returning (when not NULL; PetscFree them) the gmsh tag of each kept vertex and each tet, for reading
   data sections ($NodeData, $ElementData) that refer to those tags (ASCII files). */
PetscErrorCode LVMeshReadGmshTags(const char filename[], LVMesh *mesh, PetscInt **vtag, PetscInt **ttag);
/* The tets around each vertex: those of vertex v are n2e[n2e_i[v] .. n2e_i[v+1]), in increasing order (a tet listed
   once per time it names v), built on the host's cores; PetscFree both. */
PetscErrorCode LVMeshNodeToTets(const LVMesh *mesh, PetscInt **n2e_i, PetscInt **n2e);
/* Uniform refinement, 1 tet -> 8 (Bey 1995; the inner octahedron is cut along its shortest diagonal). */
PetscErrorCode LVMeshRefineUniform(const LVMesh *coarse, LVMesh *fine);
/* Renumber the vertices by reverse Cuthill-McKee of the node graph: LVMeshRCMOrdering, the permutation PETSc's
   MATORDERINGRCM gives, computed on the graph directly (no Mat). */
PetscErrorCode LVMeshRenumberRCM(LVMesh *mesh);
/* The same through PETSc: MatGetOrdering(MATORDERINGRCM) of the node graph as a SeqAIJ matrix (the reference). */
PetscErrorCode LVMeshRenumberRCMPetsc(LVMesh *mesh);
/* SPARSEPACK's GENRCM (PETSc's MATORDERINGRCM) on a symmetric graph in CSR with sorted rows, the diagonal included
   (what MatGetRowIJ(symmetric) gives PETSc's ordering), 0-based: perm[k] is the vertex numbered k. */
PetscErrorCode LVMeshRCMOrdering(PetscInt nv, const PetscInt *ia, const PetscInt *ja, PetscInt *perm);
/* Renumber the vertices along a space-filling curve through their coordinates (Hilbert, or Morton/Z-order when
   hilbert is false; one cubic bounding box, 21 bits per axis): a contiguous range of vertex numbers is then a compact
   3-D cluster (surface ~ volume^(2/3)) rather than RCM's thin level-set sheet, which is what block-wise assemblers
   (sharednz: elements computed once per block they touch) and caches want.  The bandwidth is larger than RCM's. */
PetscErrorCode LVMeshRenumberSFC(LVMesh *mesh, PetscBool hilbert);
/* Renumber the vertices part by part of a METIS partition of the node graph into parts of about `partsize`
   vertices (recursive bisection, so that neighbouring part numbers are neighbouring regions); inside a part the
   current order is kept (apply after RCM).  A contiguous range of vertex numbers is then a METIS part: what the
   sharednz assembler's contiguous target blocks see as its blocks (Cecka, Lew, Darve 4.2.4 partition the
   elements with METIS).  Needs METIS at build time (else a clear error). */
PetscErrorCode LVMeshRenumberMETIS(LVMesh *mesh, PetscInt partsize);
PetscErrorCode LVMeshDestroy(LVMesh *mesh);
/* Signed volume sum check etc.: total volume (mm^3) and number of inverted/degenerate tets */
PetscErrorCode LVMeshGetVolume(const LVMesh *mesh, PetscReal *volume, PetscInt *ndegenerate);

/* Rule-based fibre direction at p: transmural coordinate t in [0,1] (0 endocardium, 1 epicardium) from the
   family of ellipsoids between the two surfaces, helix angle (degrees, from the circumferential direction
   towards the apex-base direction) going linearly from helix_endo to helix_epi. */
void LVMeshFibre(const PetscReal p[3], PetscReal helix_endo, PetscReal helix_epi, PetscReal f[3]);
/* the rule fibre of every tet at its centroid into fib[d*nt + e] (entry-major), on nthreads host threads (<= 0:
   the CPUs this process may run on, at most 64; PetscEllwarpThreadsRun); the result does not depend on the thread count */
PetscErrorCode LVMeshFibres(const LVMesh *mesh, PetscReal helix_endo, PetscReal helix_epi, PetscInt nthreads, PetscReal *fib);
/* P1 scalar diffusion: K = int grad(u) . D grad(v) + c_mass int u v, D = I + 3 f f^T with a fibre direction f
   rotating transmurally (helix angle +60 deg endo -> -60 deg epi). SPD. Assembled directly in CSR. */
PetscErrorCode LVMeshAssembleDiffusion(const LVMesh *mesh, Mat *A);
/* P1 linear elasticity, 3 interleaved dofs per node, E = 1, nu = 0.3, plus a small mass term (SPD). */
PetscErrorCode LVMeshAssembleElasticity(const LVMesh *mesh, Mat *A);
