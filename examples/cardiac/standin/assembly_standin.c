/* STAND-IN for the DM GPU assembler of issue 6 (same API as include/petscellwarpassembly.h of branch
   "assembly"), so that the cardiac example runs before the real one is merged.  One batch = all cells.
   Gather: host loop or CUDA kernel (assembly_standin.cu) into entry-major buffers; element callbacks;
   reduction: PETSc COO assembly (MatSetValuesCOO / VecSetValuesCOO), whose summation order is fixed by the
   COO lists, so results are reproducible.  Serial (one rank). */
#include "petscellwarpassembly.h"
#include <string.h>

struct _p_DMAssembly {
  DM                       dm;
  char                     type[32];
  DMAssemblyElementKernels k;
  Vec                      aux;
  PetscMemType             mtype;
  PetscBool                setup;
  PetscInt                 nelem, nen, ndof;
  PetscInt                *conn;       /* [nen][nelem] global dof, host */
  PetscInt                *mi, *mj;    /* matrix COO lists [nen*nen][nelem] (entry-major, = ke's layout) */
  PetscReal               *xe;         /* [nen*3][nelem] host */
  PetscScalar             *ue, *ae, *fe, *ke;   /* host buffers (host type) */
  PetscInt                *d_conn;     /* device copies (device type) */
  PetscReal               *d_xe;
  PetscScalar             *d_ue, *d_ae, *d_fe, *d_ke;
};

PetscErrorCode DMAssemblyCreate(DM dm, DMAssembly *as)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(as));
  (*as)->dm = dm;
  PetscCall(PetscObjectReference((PetscObject)dm));
  PetscCall(PetscStrncpy((*as)->type, DMASSEMBLYHOST, sizeof((*as)->type)));
#if defined(ELLWARP_HAVE_CUDA)
  {
    VecType   vt;
    PetscBool cuda;
    PetscCall(DMGetVecType(dm, &vt));
    PetscCall(PetscStrbeginswith(vt, "cuda", &cuda));
    if (!cuda) PetscCall(PetscStrcmp(vt, VECSEQCUDA, &cuda));
    if (cuda) PetscCall(PetscStrncpy((*as)->type, DMASSEMBLYGLOBALNZ, sizeof((*as)->type)));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAssemblySetType(DMAssembly as, DMAssemblyType type)
{
  PetscBool host, gnz;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(type, DMASSEMBLYHOST, &host));
  PetscCall(PetscStrcmp(type, DMASSEMBLYGLOBALNZ, &gnz));
  PetscCheck(host || gnz, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly stand-in: type %s not available (host or globalnz)", type);
#if !defined(ELLWARP_HAVE_CUDA)
  PetscCheck(host, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly type %s needs a CUDA build", type);
#endif
  PetscCheck(!as->setup, PETSC_COMM_SELF, PETSC_ERR_ORDER, "DMAssemblySetType() after DMAssemblySetUp()");
  PetscCall(PetscStrncpy(as->type, type, sizeof(as->type)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAssemblyGetType(DMAssembly as, DMAssemblyType *type)
{
  PetscFunctionBegin;
  *type = as->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAssemblySetFromOptions(DMAssembly as)
{
  char      type[32];
  PetscBool set;

  PetscFunctionBegin;
  PetscOptionsBegin(PetscObjectComm((PetscObject)as->dm), NULL, "DM assembly (stand-in) options", NULL);
  PetscCall(PetscOptionsString("-dm_assembly_type", "host or globalnz", "DMAssemblySetType", as->type, type, sizeof(type), &set));
  PetscOptionsEnd();
  if (set) PetscCall(DMAssemblySetType(as, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAssemblySetElementKernels(DMAssembly as, const DMAssemblyElementKernels *k)
{
  PetscFunctionBegin;
  as->k = *k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAssemblySetAuxiliaryVec(DMAssembly as, Vec A)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectReference((PetscObject)A));
  PetscCall(VecDestroy(&as->aux));
  as->aux = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAssemblyGetMemType(DMAssembly as, PetscMemType *mtype)
{
  PetscBool host;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(as->type, DMASSEMBLYHOST, &host));
  *mtype = host ? PETSC_MEMTYPE_HOST : PETSC_MEMTYPE_DEVICE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAssemblySetUp(DMAssembly as)
{
  PetscInt     cStart, cEnd, vStart, vEnd, nen, ne;
  PetscSection s, cs;
  Vec          coords;
  const PetscScalar *c;
  PetscMPIInt  size;

  PetscFunctionBegin;
  if (as->setup) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)as->dm), &size));
  PetscCheck(size == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly stand-in: one rank only");
  PetscCheck(as->k.residual && as->k.jacobian, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "DMAssemblySetElementKernels() first");
  PetscCall(DMAssemblyGetMemType(as, &as->mtype));
  PetscCall(DMPlexGetHeightStratum(as->dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(as->dm, 0, &vStart, &vEnd));
  PetscCall(DMGetLocalSection(as->dm, &s));
  PetscCall(DMGetCoordinateSection(as->dm, &cs));
  PetscCall(DMGetCoordinatesLocal(as->dm, &coords));
  PetscCall(VecGetArrayRead(coords, &c));
  ne = as->nelem = cEnd - cStart;
  nen = as->nen = as->k.nen;
  PetscCheck(nen == 4, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly stand-in: P1 tetrahedra only (nen = 4)");
  as->ndof = vEnd - vStart;
  PetscCall(PetscMalloc1((size_t)nen * ne, &as->conn));
  PetscCall(PetscMalloc1((size_t)nen * 3 * ne, &as->xe));
  for (PetscInt e = 0; e < ne; e++) {
    PetscInt *pts = NULL, npts, a = 0;
    PetscCall(DMPlexGetTransitiveClosure(as->dm, cStart + e, PETSC_TRUE, &npts, &pts));
    for (PetscInt q = 0; q < npts; q++) {
      PetscInt pt = pts[2 * q], off, coff, dof;
      if (pt < vStart || pt >= vEnd) continue;
      PetscCheck(a < nen, PETSC_COMM_SELF, PETSC_ERR_SUP, "cell %" PetscInt_FMT " has more than %" PetscInt_FMT " vertices", e, nen);
      PetscCall(PetscSectionGetDof(s, pt, &dof));
      PetscCheck(dof == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssembly stand-in: one dof per vertex (scalar P1)");
      PetscCall(PetscSectionGetOffset(s, pt, &off));
      PetscCall(PetscSectionGetOffset(cs, pt, &coff));
      as->conn[(PetscCount)a * ne + e] = off;
      for (int d = 0; d < 3; d++) as->xe[(PetscCount)(3 * a + d) * ne + e] = PetscRealPart(c[coff + d]);
      a++;
    }
    PetscCall(DMPlexRestoreTransitiveClosure(as->dm, cStart + e, PETSC_TRUE, &npts, &pts));
  }
  PetscCall(VecRestoreArrayRead(coords, &c));
  PetscCall(PetscMalloc2((size_t)nen * nen * ne, &as->mi, (size_t)nen * nen * ne, &as->mj));
  for (PetscInt a = 0; a < nen; a++)
    for (PetscInt b = 0; b < nen; b++)
      for (PetscInt e = 0; e < ne; e++) {
        as->mi[(PetscCount)(a * nen + b) * ne + e] = as->conn[(PetscCount)a * ne + e];
        as->mj[(PetscCount)(a * nen + b) * ne + e] = as->conn[(PetscCount)b * ne + e];
      }
  if (as->mtype == PETSC_MEMTYPE_HOST) {
    PetscCall(PetscMalloc4((size_t)nen * ne, &as->ue, (size_t)nen * ne, &as->ae, (size_t)nen * ne, &as->fe, (size_t)nen * nen * ne, &as->ke));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(StandinDeviceMalloc((void **)&as->d_conn, sizeof(PetscInt) * nen * ne));
    PetscCall(StandinDeviceMalloc((void **)&as->d_xe, sizeof(PetscReal) * 3 * nen * ne));
    PetscCall(StandinDeviceMalloc((void **)&as->d_ue, sizeof(PetscScalar) * nen * ne));
    PetscCall(StandinDeviceMalloc((void **)&as->d_ae, sizeof(PetscScalar) * nen * ne));
    PetscCall(StandinDeviceMalloc((void **)&as->d_fe, sizeof(PetscScalar) * nen * ne));
    PetscCall(StandinDeviceMalloc((void **)&as->d_ke, sizeof(PetscScalar) * nen * nen * ne));
    PetscCall(StandinDeviceUpload(as->d_conn, as->conn, sizeof(PetscInt) * nen * ne));
    PetscCall(StandinDeviceUpload(as->d_xe, as->xe, sizeof(PetscReal) * 3 * nen * ne));
#endif
  }
  PetscCall(PetscInfo(as->dm, "DMAssembly stand-in: %" PetscInt_FMT " cells, %s\n", ne, as->type));
  as->setup = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* COO preallocation once per target object (marked by a composed container) */
static PetscErrorCode EnsureCOO(DMAssembly as, PetscObject obj, PetscBool isvec)
{
  PetscObject mark;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery(obj, "DMAssemblyStandinCOO", &mark));
  if (mark) PetscFunctionReturn(PETSC_SUCCESS);
  if (isvec) {
    PetscCall(VecSetPreallocationCOO((Vec)obj, (PetscCount)as->nen * as->nelem, as->conn));
  } else {
    PetscInt *i, *j;
    size_t    n = (size_t)as->nen * as->nen * as->nelem;
    PetscCall(PetscMalloc2(n, &i, n, &j)); /* MatSetPreallocationCOO may modify its lists */
    PetscCall(PetscArraycpy(i, as->mi, n));
    PetscCall(PetscArraycpy(j, as->mj, n));
    PetscCall(MatSetPreallocationCOO((Mat)obj, (PetscCount)n, i, j));
    PetscCall(PetscFree2(i, j));
  }
  {
    PetscContainer c;
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
    PetscCall(PetscObjectCompose(obj, "DMAssemblyStandinCOO", (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* gather U and the auxiliary vector into the element buffers; returns the buffers to use */
static PetscErrorCode Gather(DMAssembly as, Vec U, const PetscReal **xe, const PetscScalar **ue, const PetscScalar **ae)
{
  PetscCount n = (PetscCount)as->nen * as->nelem;

  PetscFunctionBegin;
  if (as->mtype == PETSC_MEMTYPE_HOST) {
    Vec vs[2] = {U, as->aux};
    PetscScalar *bufs[2] = {as->ue, as->ae};
    for (int v = 0; v < 2; v++) {
      const PetscScalar *u;
      if (!vs[v]) continue;
      PetscCall(VecGetArrayRead(vs[v], &u));
      for (PetscCount i = 0; i < n; i++) bufs[v][i] = u[as->conn[i]];
      PetscCall(VecRestoreArrayRead(vs[v], &u));
    }
    *xe = as->xe;
    *ue = as->ue;
    *ae = as->aux ? as->ae : NULL;
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    Vec vs[2] = {U, as->aux};
    PetscScalar *bufs[2] = {as->d_ue, as->d_ae};
    for (int v = 0; v < 2; v++) {
      const PetscScalar *u;
      PetscMemType       mt;
      if (!vs[v]) continue;
      PetscCall(VecGetArrayReadAndMemType(vs[v], &u, &mt));
      PetscCheck(PetscMemTypeDevice(mt), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "DMAssembly %s: vectors must live on the device (-dm_vec_type cuda)", as->type);
      PetscCall(StandinDeviceGather(n, as->d_conn, u, bufs[v]));
      PetscCall(VecRestoreArrayReadAndMemType(vs[v], &u));
    }
    *xe = as->d_xe;
    *ue = as->d_ue;
    *ae = as->aux ? as->d_ae : NULL;
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAssemblyComputeResidual(DMAssembly as, Vec U, Vec F)
{
  const PetscReal   *xe;
  const PetscScalar *ue, *ae;
  PetscScalar       *fe;

  PetscFunctionBegin;
  PetscCall(DMAssemblySetUp(as));
  PetscCall(EnsureCOO(as, (PetscObject)F, PETSC_TRUE));
  PetscCall(Gather(as, U, &xe, &ue, &ae));
  fe = as->mtype == PETSC_MEMTYPE_HOST ? as->fe : as->d_fe;
  PetscCall(as->k.residual(as->mtype, 0, as->nelem, xe, ue, ae, fe, as->k.ctx));
  PetscCall(VecSetValuesCOO(F, fe, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAssemblyComputeJacobian(DMAssembly as, Vec U, Mat J)
{
  const PetscReal   *xe;
  const PetscScalar *ue, *ae;
  PetscScalar       *ke;

  PetscFunctionBegin;
  PetscCall(DMAssemblySetUp(as));
  PetscCall(EnsureCOO(as, (PetscObject)J, PETSC_FALSE));
  PetscCall(Gather(as, U, &xe, &ue, &ae));
  ke = as->mtype == PETSC_MEMTYPE_HOST ? as->ke : as->d_ke;
  PetscCall(as->k.jacobian(as->mtype, 0, as->nelem, xe, ue, ae, ke, as->k.ctx));
  PetscCall(MatSetValuesCOO(J, ke, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SNESResidual(SNES snes, Vec U, Vec F, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(DMAssemblyComputeResidual((DMAssembly)ctx, U, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SNESJacobian(SNES snes, Vec U, Mat J, Mat P, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(DMAssemblyComputeJacobian((DMAssembly)ctx, U, P));
  if (J != P) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAssemblySetSNES(DMAssembly as, SNES snes)
{
  PetscFunctionBegin;
  PetscCall(SNESSetFunction(snes, NULL, SNESResidual, as));
  PetscCall(SNESSetJacobian(snes, NULL, NULL, SNESJacobian, as));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAssemblyView(DMAssembly as, PetscViewer v)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(v, "DMAssembly (stand-in, COO reduction): type %s, %" PetscInt_FMT " elements of %" PetscInt_FMT " nodes, %" PetscInt_FMT " dofs, callbacks on the %s\n", as->type, as->nelem, as->nen, as->ndof, as->mtype == PETSC_MEMTYPE_HOST ? "host" : "device"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMAssemblyDestroy(DMAssembly *as)
{
  PetscFunctionBegin;
  if (!*as) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree((*as)->conn));
  PetscCall(PetscFree((*as)->xe));
  PetscCall(PetscFree2((*as)->mi, (*as)->mj));
  PetscCall(PetscFree4((*as)->ue, (*as)->ae, (*as)->fe, (*as)->ke));
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(StandinDeviceFree((*as)->d_conn));
  PetscCall(StandinDeviceFree((*as)->d_xe));
  PetscCall(StandinDeviceFree((*as)->d_ue));
  PetscCall(StandinDeviceFree((*as)->d_ae));
  PetscCall(StandinDeviceFree((*as)->d_fe));
  PetscCall(StandinDeviceFree((*as)->d_ke));
#endif
  PetscCall(VecDestroy(&(*as)->aux));
  PetscCall(DMDestroy(&(*as)->dm));
  PetscCall(PetscFree(*as));
  PetscFunctionReturn(PETSC_SUCCESS);
}
