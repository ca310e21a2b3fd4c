/* Vertex renumberings of the LV benchmark meshes (examples/lvmesh, the ellwarplvmesh library): RCM, Hilbert and Morton
   space-filling curves.  For each: the renumbering is a bijection applied consistently to coordinates and
   tetrahedra (every tet keeps its vertices' coordinates, in the same local order, so orientation and volume are
   unchanged), and the assembled P1 diffusion matrix equals the original one permuted (MatPermute), rel. error
   <= 1e-13.  Prints, without asserting, a locality measure: the mean bounding-box diagonal of blocks of -block
   consecutive vertices (what a block-wise assembler's patch looks like), for the original numbering and each order.
   Then the direct RCM (LVMeshRCMOrdering) against PETSc's MatGetOrdering(MATORDERINGRCM): the same numbering, on the
   structured LV, a two-component mesh and the gmsh LV refined once (-rcm_mesh, -rcm_refine). */
#include <petscmat.h>
#include "lvmesh.h" /* the mesh library ellwarplvmesh (examples/lvmesh) */

/* mean over blocks of nb consecutive vertices of the diagonal of the block's bounding box */
static PetscReal BlockDiameter(const LVMesh *m, PetscInt nb)
{
  PetscReal sum = 0;
  PetscInt  nblk = 0;
  for (PetscInt v0 = 0; v0 < m->nv; v0 += nb, nblk++) {
    PetscReal lo[3], hi[3], d2 = 0;
    for (int d = 0; d < 3; d++) lo[d] = hi[d] = m->xyz[3 * v0 + d];
    for (PetscInt v = v0; v < PetscMin(v0 + nb, m->nv); v++)
      for (int d = 0; d < 3; d++) {
        lo[d] = PetscMin(lo[d], m->xyz[3 * v + d]);
        hi[d] = PetscMax(hi[d], m->xyz[3 * v + d]);
      }
    for (int d = 0; d < 3; d++) d2 += (hi[d] - lo[d]) * (hi[d] - lo[d]);
    sum += PetscSqrtReal(d2);
  }
  return nblk ? sum / nblk : 0;
}

static PetscErrorCode CopyMesh(const LVMesh *a, LVMesh *b)
{
  PetscFunctionBegin;
  b->nv = a->nv;
  b->nt = a->nt;
  PetscCall(PetscMalloc1(3 * (size_t)a->nv, &b->xyz));
  PetscCall(PetscMalloc1(4 * (size_t)a->nt, &b->tet));
  PetscCall(PetscArraycpy(b->xyz, a->xyz, 3 * (size_t)a->nv));
  PetscCall(PetscArraycpy(b->tet, a->tet, 4 * (size_t)a->nt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* LVMeshRenumberRCM (SPARSEPACK's GENRCM on the graph directly) against LVMeshRenumberRCMPetsc (MatGetOrdering,
   MATORDERINGRCM): the same numbering, tet for tet and coordinate for coordinate */
static PetscErrorCode CompareRCM(const char *name, const LVMesh *m0)
{
  LVMesh a, b;

  PetscFunctionBegin;
  PetscCall(CopyMesh(m0, &a));
  PetscCall(CopyMesh(m0, &b));
  PetscCall(LVMeshRenumberRCM(&a));
  PetscCall(LVMeshRenumberRCMPetsc(&b));
  for (PetscCount q = 0; q < 4 * (PetscCount)a.nt; q++) PetscCheck(a.tet[q] == b.tet[q], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: RCM differs from PETSc's MATORDERINGRCM at tet entry %" PetscCount_FMT, name, q);
  for (PetscCount q = 0; q < 3 * (PetscCount)a.nv; q++) PetscCheck(a.xyz[q] == b.xyz[q], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: RCM coordinates differ from PETSc's at entry %" PetscCount_FMT, name, q);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "rcm      %s (%" PetscInt_FMT " vertices): the same numbering as MatGetOrdering(MATORDERINGRCM)\n", name, a.nv));
  PetscCall(LVMeshDestroy(&a));
  PetscCall(LVMeshDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  LVMesh      m0;
  PetscInt    nodes = 3000, nb = 64;
  Mat         A0;
  const char *names[] = {"rcm", "hilbert", "morton"};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nodes", &nodes, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-block", &nb, NULL));
  PetscCall(LVMeshCreateStructuredByNodes(nodes, &m0));
  PetscCall(LVMeshAssembleDiffusion(&m0, &A0));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "LV mesh %" PetscInt_FMT " vertices, %" PetscInt_FMT " tets; mean diagonal of blocks of %" PetscInt_FMT " vertices: original %.3f mm\n", m0.nv, m0.nt, nb, (double)BlockDiameter(&m0, nb)));
  for (int o = 0; o < 3; o++) {
    LVMesh    m;
    PetscInt *old2new, *new2old;
    IS        perm;
    Mat       A, B;
    PetscReal err, nrm;

    PetscCall(CopyMesh(&m0, &m));
    if (o == 0) PetscCall(LVMeshRenumberRCM(&m));
    else PetscCall(LVMeshRenumberSFC(&m, (PetscBool)(o == 1)));
    PetscCheck(m.nv == m0.nv && m.nt == m0.nt, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: sizes changed", names[o]);
    /* the map old -> new read off the tets: consistent, injective, total, and coordinates carried along */
    PetscCall(PetscMalloc2(m.nv, &old2new, m.nv, &new2old));
    for (PetscInt v = 0; v < m.nv; v++) old2new[v] = new2old[v] = -1;
    for (PetscInt q = 0; q < 4 * m.nt; q++) {
      const PetscInt vo = m0.tet[q], vn = m.tet[q];
      PetscCheck(vn >= 0 && vn < m.nv, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: vertex %" PetscInt_FMT " out of range", names[o], vn);
      PetscCheck(old2new[vo] < 0 || old2new[vo] == vn, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: vertex %" PetscInt_FMT " renumbered inconsistently", names[o], vo);
      PetscCheck(new2old[vn] < 0 || new2old[vn] == vo, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: two vertices renumbered to %" PetscInt_FMT, names[o], vn);
      old2new[vo] = vn;
      new2old[vn] = vo;
      for (int d = 0; d < 3; d++) PetscCheck(m.xyz[3 * vn + d] == m0.xyz[3 * vo + d], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: coordinates of vertex %" PetscInt_FMT " not carried along", names[o], vo);
    }
    for (PetscInt v = 0; v < m.nv; v++) PetscCheck(new2old[v] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: new vertex %" PetscInt_FMT " unused", names[o], v);
    /* B = A0 permuted: row/column i of B is row/column new2old[i] of A0 */
    PetscCall(LVMeshAssembleDiffusion(&m, &A));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, m.nv, new2old, PETSC_USE_POINTER, &perm));
    PetscCall(MatPermute(A0, perm, perm, &B));
    PetscCall(MatNorm(B, NORM_FROBENIUS, &nrm));
    PetscCall(MatAXPY(B, -1.0, A, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatNorm(B, NORM_FROBENIUS, &err));
    PetscCheck(err <= 1e-13 * nrm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: matrix differs from the permuted original: rel. error %g", names[o], (double)(err / nrm));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-8s permutation ok, matrix = permuted original (rel. error %.1e), mean block diagonal %.3f mm\n", names[o], (double)(err / nrm), (double)BlockDiameter(&m, nb)));
    PetscCall(ISDestroy(&perm));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&B));
    PetscCall(PetscFree2(old2new, new2old));
    PetscCall(LVMeshDestroy(&m));
  }
  { /* the direct RCM against PETSc's: this mesh, two disjoint copies of it (components), the gmsh LV refined once */
    LVMesh two, lv, lvr;
    PetscCall(CompareRCM("structured LV", &m0));
    two.nv = 2 * m0.nv;
    two.nt = 2 * m0.nt;
    PetscCall(PetscMalloc1(3 * (size_t)two.nv, &two.xyz));
    PetscCall(PetscMalloc1(4 * (size_t)two.nt, &two.tet));
    for (PetscInt v = 0; v < m0.nv; v++) /* the second copy shifted along x (RCM sees only the graph) */
      for (int d = 0; d < 3; d++) two.xyz[3 * v + d] = two.xyz[3 * (v + m0.nv) + d] = m0.xyz[3 * v + d] + (d == 0 ? 100.0 : 0.0);
    for (PetscInt q = 0; q < 4 * m0.nt; q++) { /* the tets of the second copy (vertices nv..2nv-1) listed first */
      two.tet[q]             = m0.tet[q] + m0.nv;
      two.tet[4 * m0.nt + q] = m0.tet[q];
    }
    PetscCall(CompareRCM("two copies", &two));
    PetscCall(LVMeshDestroy(&two));
    char     file[PETSC_MAX_PATH_LEN] = ELLWARP_LV_DATA_DIR "/lv_6k.msh.xz", name[PETSC_MAX_PATH_LEN + 32];
    PetscInt nref                         = 1; /* -rcm_mesh ELLWARP_LV_DATA_DIR/lv_coarse.msh.xz -rcm_refine 2: the cardiac 1 M LV */
    PetscCall(PetscOptionsGetString(NULL, NULL, "-rcm_mesh", file, sizeof(file), NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-rcm_refine", &nref, NULL));
    PetscCall(LVMeshReadGmsh(file, &lv));
    for (PetscInt k = 0; k < nref; k++) {
      PetscCall(LVMeshRefineUniform(&lv, &lvr));
      PetscCall(LVMeshDestroy(&lv));
      lv = lvr;
    }
    PetscCall(PetscSNPrintf(name, sizeof(name), "gmsh %s refined %" PetscInt_FMT " times", file, nref));
    PetscCall(CompareRCM(name, &lv));
    PetscCall(LVMeshDestroy(&lv));
  }
  PetscCall(MatDestroy(&A0));
  PetscCall(LVMeshDestroy(&m0));
  PetscCall(PetscFinalize());
  return 0;
}
