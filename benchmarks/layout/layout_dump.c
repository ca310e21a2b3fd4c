static const char help[] = "Writes the scalar ELLWARP layout (host analysis, the default choice) of PETSc binary matrices to flat files, for\n"
                           "benchmarks/spmv/slice_order_probe's -layout mode (the product's access pattern on a real layout, without\n"
                           "PETSc).  -bin a.bin[,b.bin...]: each a.bin gives a.lay.  Format (little-endian): int64 nrows, ncols,\n"
                           "nslices, nsliceslots, ncol16, ncol32, ncolbias; then int64 sliceptr[nslices+1], int32 slicerow[nslices+1],\n"
                           "uint8 meta[nslices], int64 colbase[nslices], int16 col16[ncol16], int32 col32[ncol32], int64\n"
                           "biasbase[nslices], int32 colbias[ncolbias], int32 rowperm[nrows].  Layouts with long rows or dictionary\n"
                           "slices are refused (the probe has no code for them).\n";
#include <petscmat.h>
#include <petscellwarp.h>
#include "hostlayout.h"

/* n elements of the given size as they are in memory (int16, int32, uint8 arrays of the layout) */
static PetscErrorCode WriteRaw(FILE *fp, const void *a, size_t size, PetscCount n)
{
  PetscFunctionBegin;
  PetscCheck(fwrite(a, size, (size_t)n, fp) == (size_t)n, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "short write");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PetscCount and PetscInt arrays widened or narrowed to the file's int64 and int32, element by element */
static PetscErrorCode WriteI64(FILE *fp, const PetscCount *a, PetscCount n)
{
  PetscFunctionBegin;
  for (PetscCount i = 0; i < n; i++) {
    const int64_t v = (int64_t)a[i];
    PetscCheck(fwrite(&v, sizeof(v), 1, fp) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "short write");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteI32(FILE *fp, const PetscInt *a, PetscCount n)
{
  PetscFunctionBegin;
  for (PetscCount i = 0; i < n; i++) {
    const int32_t v = (int32_t)a[i];
    PetscCheck(fwrite(&v, sizeof(v), 1, fp) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "short write");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      list[PETSC_MAX_PATH_LEN * 8];
  PetscBool set;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bin", list, sizeof(list), &set));
  PetscCheck(set, PETSC_COMM_SELF, PETSC_ERR_USER, "Give -bin a.bin[,b.bin...]");
  for (char *f = strtok(list, ","); f; f = strtok(NULL, ",")) {
    HostLayout      h;
    EllwarpLayout  *L;
    char            out[PETSC_MAX_PATH_LEN];
    FILE           *fp;
    size_t          len = strlen(f);

    PetscCheck(len > 4 && !strcmp(f + len - 4, ".bin"), PETSC_COMM_SELF, PETSC_ERR_USER, "%s: not a .bin file", f);
    PetscCall(HostLayoutLoad(f, &h));
    L = h.L;
    PetscCheck(!L->nlong && !L->ndict, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: %" PetscInt_FMT " long rows, %" PetscInt_FMT " dictionary slices: the probe has no code for them", f, L->nlong, L->ndict);
    PetscCall(PetscStrncpy(out, f, sizeof(out)));
    out[len - 4] = 0;
    PetscCall(PetscStrlcat(out, ".lay", sizeof(out)));
    fp = fopen(out, "wb");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", out);
    {
      const PetscCount hdr[7] = {L->nrows, L->ncols, L->nslices, L->nsliceslots, L->ncol16, L->ncol32, L->ncolbias};
      PetscCall(WriteI64(fp, hdr, 7));
    }
    PetscCall(WriteI64(fp, L->sliceptr, L->nslices + 1));
    PetscCall(WriteI32(fp, L->slicerow, L->nslices + 1));
    PetscCall(WriteRaw(fp, L->meta, 1, L->nslices));
    PetscCall(WriteI64(fp, L->colbase, L->nslices));
    PetscCall(WriteRaw(fp, L->col16, sizeof(short), L->ncol16));
    PetscCall(WriteRaw(fp, L->col32, sizeof(int), L->ncol32));
    PetscCall(WriteI64(fp, L->biasbase, L->nslices));
    PetscCall(WriteRaw(fp, L->colbias, sizeof(int), L->ncolbias));
    PetscCall(WriteI32(fp, L->rowperm, L->nrows));
    PetscCheck(!fclose(fp), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot close %s", out);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# wrote %s: %" PetscInt_FMT " rows, %" PetscInt_FMT " slices (16-bit %" PetscInt_FMT ", biased %" PetscInt_FMT "), kernel %s T %" PetscInt_FMT " window %" PetscInt_FMT " block %" PetscInt_FMT ", slots/nnz %.4f\n", out, L->nrows, L->nslices, L->n16, L->nbias, MatEllwarpKernels[L->kernel], L->threshold, L->sortwindow, L->blocksize, (double)L->nslots / (double)L->nnz));
    PetscCall(HostLayoutDestroy(&h));
  }
  PetscCall(PetscFinalize());
  return 0;
}
