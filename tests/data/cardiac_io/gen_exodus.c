/* Writes the box of tests/cardiac_io.c (BoxCreate) through the SEACAS ExodusII C library (Debian
   libexodusii-dev 6.02 / netCDF 4.9.0), for the fixtures box_libexodus_*.exo; not built by CMake:
     mpicc -O1 -DELLWARP_HAVE_EXODUSII=1 -I$PETSC_DIR/include -Iinclude -Iexamples/lvmesh -Iexamples/cardiac -Itests \
       tests/data/cardiac_io/gen_exodus.c examples/lvmesh/lvmesh.c examples/lvmesh/lvmesh_gmsh.c \
       -L$PETSC_DIR/lib -lpetsc -lexoIIv2c -lnetcdf -lm -o gen_exodus
     ./gen_exodus DIR
   normal model (coord, vals_nod_var) with element variables; large model (coordx/y/z, vals_nod_var<k>) with
   element attributes and nodal variables; large model with nodal variables only; normal model with nodal variables only. */
#define main cardiac_io_main
#include "../../cardiac_io.c"
#undef main
#include <exodusII.h>

#define EXCALL(x) PetscCheck((x) >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "exodus call failed: %s", #x)

static PetscErrorCode Write(const char *file, const Box *b, int mode, int kind /* 0 elemvar, 1 attrib + nodal, 2 nodal */)
{
  int       cpu = 8, io = 8, ex, h = (int)(b->nt / 2), bn[3] = {h, (int)b->nt - h, (int)b->ntri}, ids[3] = {10, 20, 30};
  double   *x, *y, *z, t = 0;
  int      *conn;
  PetscInt  off[2] = {0, h};

  PetscFunctionBegin;
  ex = ex_create(file, EX_CLOBBER | mode, &cpu, &io);
  PetscCheck(ex >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "ex_create %s", file);
  EXCALL(ex_put_init(ex, "cardiac_io box", 3, (int)b->nv, (int)(b->nt + b->ntri), 3, 0, 0));
  PetscCall(PetscMalloc3(b->nv, &x, b->nv, &y, b->nv, &z));
  for (PetscInt v = 0; v < b->nv; v++) x[v] = b->xyz[3 * v], y[v] = b->xyz[3 * v + 1], z[v] = b->xyz[3 * v + 2];
  EXCALL(ex_put_coord(ex, x, y, z));
  for (int k = 0; k < 3; k++) {
    int npe = k < 2 ? 4 : 3;
    EXCALL(ex_put_elem_block(ex, ids[k], k < 2 ? "TETRA" : "TRI3", bn[k], npe, kind == 1 && k < 2 ? 3 : 0));
    PetscCall(PetscMalloc1(npe * bn[k], &conn));
    for (int q = 0; q < npe * bn[k]; q++) conn[q] = (int)((k < 2 ? b->tet[4 * off[k] + q] : b->tri[q]) + 1);
    EXCALL(ex_put_elem_conn(ex, ids[k], conn));
    PetscCall(PetscFree(conn));
    if (kind == 1 && k < 2) {
      double *a;
      char   *names[3] = {"fiber_x", "fiber_y", "fiber_z"};
      PetscCall(PetscMalloc1(3 * bn[k], &a));
      for (int e = 0; e < bn[k]; e++)
        for (int d = 0; d < 3; d++) a[3 * e + d] = b->fib[3 * (off[k] + e) + d];
      EXCALL(ex_put_elem_attr(ex, ids[k], a));
      EXCALL(ex_put_elem_attr_names(ex, ids[k], names));
      PetscCall(PetscFree(a));
    }
  }
  EXCALL(ex_put_time(ex, 1, &t));
  if (kind == 0) {
    char *names[4] = {"pressure", "fibres_1", "fibres_2", "fibres_3"};
    int   truth[12] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
    EXCALL(ex_put_var_param(ex, "e", 4));
    EXCALL(ex_put_var_names(ex, "e", 4, names));
    EXCALL(ex_put_elem_var_tab(ex, 3, 4, truth));
    for (int k = 0; k < 2; k++)
      for (int v = 0; v < 4; v++) {
        double *val;
        PetscCall(PetscMalloc1(bn[k], &val));
        for (int e = 0; e < bn[k]; e++) val[e] = v ? b->fib[3 * (off[k] + e) + v - 1] : 1.0;
        EXCALL(ex_put_elem_var(ex, 1, v + 1, ids[k], bn[k], val));
        PetscCall(PetscFree(val));
      }
  } else {
    char *names[3] = {"FibreX", "FibreY", "FibreZ"};
    EXCALL(ex_put_var_param(ex, "n", 3));
    EXCALL(ex_put_var_names(ex, "n", 3, names));
    for (int d = 0; d < 3; d++) {
      for (PetscInt v = 0; v < b->nv; v++) x[v] = b->nfib[3 * v + d];
      EXCALL(ex_put_nodal_var(ex, 1, d + 1, (int)b->nv, x));
    }
  }
  EXCALL(ex_close(ex));
  PetscCall(PetscFree3(x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Box  b;
  char f[PETSC_MAX_PATH_LEN];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCheck(argc > 1, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "usage: gen_exodus DIR");
  PetscCall(BoxCreate(&b));
  PetscCall(PetscSNPrintf(f, sizeof(f), "%s/box_libexodus_normal_elemvar.exo", argv[1]));
  PetscCall(Write(f, &b, EX_NORMAL_MODEL, 0));
  PetscCall(PetscSNPrintf(f, sizeof(f), "%s/box_libexodus_large_attrib.exo", argv[1]));
  PetscCall(Write(f, &b, EX_LARGE_MODEL, 1));
  PetscCall(PetscSNPrintf(f, sizeof(f), "%s/box_libexodus_large_nodal.exo", argv[1]));
  PetscCall(Write(f, &b, EX_LARGE_MODEL, 2));
  PetscCall(PetscSNPrintf(f, sizeof(f), "%s/box_libexodus_normal_nodal.exo", argv[1]));
  PetscCall(Write(f, &b, EX_NORMAL_MODEL, 2));
  PetscCall(BoxDestroy(&b));
  PetscCall(PetscFinalize());
  return 0;
}
