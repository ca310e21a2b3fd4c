#include "synth.h"
#include <stdio.h>
#include <string.h>
#include <ctype.h>
#include <math.h>

static inline uint64_t SplitMix64(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z             = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z             = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static inline double Uniform01(uint64_t *s) { return ((SplitMix64(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0); } /* (0,1) */

static PetscErrorCode MatCreateFromCSR_Synth(PetscInt m, PetscInt n, PetscInt *ia, PetscInt *ja, PetscScalar *va, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, m, n, m, n));
  PetscCall(MatSetType(*A, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(*A, ia, ja, va));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SynthPowerLaw(PetscInt n, PetscReal alpha, PetscReal xmin, PetscInt maxlen, PetscReal plocal, uint64_t seed, Mat *A)
{
  PetscInt    *len, *ia, *ja;
  PetscScalar *va;
  uint64_t  s = seed;
  PetscCount   total = 0;

  PetscFunctionBegin;
  PetscCheck(alpha > 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "alpha must be > 1");
  maxlen = PetscMin(maxlen, n);
  PetscCall(PetscMalloc1(n, &len));
  for (PetscInt i = 0; i < n; i++) {
    double l = floor(xmin * pow(Uniform01(&s), -1.0 / (alpha - 1.0)));
    len[i]   = (PetscInt)PetscMax(1.0, PetscMin((double)maxlen, l));
    total += len[i];
  }
  PetscCheck(total < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "Too many nonzeros for PetscInt");
  PetscCall(PetscMalloc1(n + 1, &ia));
  PetscCall(PetscMalloc1(total, &ja));
  PetscCall(PetscMalloc1(total, &va));
  ia[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    PetscInt *c = ja + ia[i], k = 0, w = PetscMax(64, 4 * len[i]);

    c[k++] = i;
    while (k < len[i]) {
      PetscInt col;
      if (Uniform01(&s) < plocal) {
        col = i + (PetscInt)((2 * Uniform01(&s) - 1) * w);
        if (col < 0 || col >= n) continue;
      } else col = (PetscInt)(Uniform01(&s) * n);
      c[k++] = PetscMin(col, n - 1);
    }
    PetscCall(PetscSortRemoveDupsInt(&k, c));
    ia[i + 1] = ia[i] + k;
    for (PetscInt q = 0; q < k; q++) va[ia[i] + q] = (c[q] == i) ? (PetscScalar)(1.0 + k) : (PetscScalar)(2 * Uniform01(&s) - 1);
  }
  PetscCall(MatCreateFromCSR_Synth(n, n, ia, ja, va, A));
  PetscCall(PetscFree(len));
  PetscCall(PetscFree(ia));
  PetscCall(PetscFree(ja));
  PetscCall(PetscFree(va));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SynthQCD(PetscInt L, Mat *A)
{
  PetscInt     nsites = L * L * L * L, n = 3 * nsites, *ia, *ja;
  PetscScalar *va;

  PetscFunctionBegin;
  PetscCheck(L >= 5, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "QCD lattice needs L >= 5 for 13 distinct sites");
  PetscCheck(39 * (PetscCount)n < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "Too many nonzeros for PetscInt");
  PetscCall(PetscMalloc1(n + 1, &ia));
  PetscCall(PetscMalloc1(39 * (size_t)n, &ja));
  PetscCall(PetscMalloc1(39 * (size_t)n, &va));
  for (PetscInt r = 0; r <= n; r++) ia[r] = 39 * r;
  for (PetscInt site = 0; site < nsites; site++) {
    PetscInt x[4] = {site % L, (site / L) % L, (site / (L * L)) % L, site / (L * L * L)}, nb[13], k = 0;
    const PetscInt stride[4] = {1, L, L * L, L * L * L};

    nb[k++] = site;
    for (int mu = 0; mu < 4; mu++) {
      const PetscInt shifts[3] = {1, L - 1, 2};
      for (int q = 0; q < 3; q++) nb[k++] = site + (((x[mu] + shifts[q]) % L) - x[mu]) * stride[mu];
    }
    PetscCall(PetscSortInt(13, nb));
    for (int c = 0; c < 3; c++) {
      PetscInt row = 3 * site + c, p = ia[row];
      for (int q = 0; q < 13; q++)
        for (int d = 0; d < 3; d++) {
          ja[p] = 3 * nb[q] + d;
          va[p] = (nb[q] == site && c == d) ? 4.0 : 0.05 * (1 + ((row + ja[p]) % 7)) * (((row ^ ja[p]) & 1) ? 1 : -1);
          p++;
        }
    }
  }
  PetscCall(MatCreateFromCSR_Synth(n, n, ia, ja, va, A));
  PetscCall(PetscFree(ia));
  PetscCall(PetscFree(ja));
  PetscCall(PetscFree(va));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SynthGrid2D4(PetscInt N, Mat *A)
{
  PetscInt     n = N * N, *ia, *ja, p = 0;
  PetscScalar *va;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n + 1, &ia));
  PetscCall(PetscMalloc1(4 * (size_t)n, &ja));
  PetscCall(PetscMalloc1(4 * (size_t)n, &va));
  ia[0] = 0;
  for (PetscInt j = 0; j < N; j++)
    for (PetscInt i = 0; i < N; i++) {
      PetscInt r = j * N + i;
      if (j > 0) ja[p++] = r - N;
      if (i > 0) ja[p++] = r - 1;
      if (i < N - 1) ja[p++] = r + 1;
      if (j < N - 1) ja[p++] = r + N;
      ia[r + 1] = p;
    }
  for (PetscInt q = 0; q < p; q++) va[q] = 0.25;
  PetscCall(MatCreateFromCSR_Synth(n, n, ia, ja, va, A));
  PetscCall(PetscFree(ia));
  PetscCall(PetscFree(ja));
  PetscCall(PetscFree(va));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatLoadMatrixMarket(const char filename[], Mat *A)
{
  FILE        *fp;
  PetscBool    piped = PETSC_FALSE, pattern = PETSC_FALSE;
  int          symm  = 0; /* 0 general, 1 symmetric, -1 skew */
  char         line[1024], obj[64], fmt[64], field[64], sym[64];
  long         m, n, nz, ne = 0;
  PetscInt    *ri, *ci, *ia, *ja, *fill;
  PetscScalar *vv, *va;
  size_t       len = strlen(filename);

  PetscFunctionBegin;
  if (len > 3 && (!strcmp(filename + len - 3, ".xz") || !strcmp(filename + len - 3, ".gz"))) {
    char cmd[PETSC_MAX_PATH_LEN + 32];
    PetscCall(PetscSNPrintf(cmd, sizeof(cmd), "%s -dc '%s'", !strcmp(filename + len - 3, ".xz") ? "xz" : "gzip", filename));
    fp    = popen(cmd, "r");
    piped = PETSC_TRUE;
  } else fp = fopen(filename, "r");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", filename);
  PetscCheck(fgets(line, sizeof(line), fp), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Empty file %s", filename);
  for (char *c = line; *c; c++) *c = (char)tolower((unsigned char)*c);
  PetscCheck(sscanf(line, "%%%%matrixmarket %63s %63s %63s %63s", obj, fmt, field, sym) == 4, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: not a Matrix Market file", filename);
  PetscCheck(!strcmp(obj, "matrix") && !strcmp(fmt, "coordinate"), PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: only 'matrix coordinate' is supported", filename);
  PetscCheck(!strcmp(field, "real") || !strcmp(field, "integer") || !strcmp(field, "pattern") || !strcmp(field, "double"), PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: field '%s' not supported", filename, field);
  pattern = (PetscBool)!strcmp(field, "pattern");
  if (!strcmp(sym, "symmetric")) symm = 1;
  else if (!strcmp(sym, "skew-symmetric")) symm = -1;
  else PetscCheck(!strcmp(sym, "general"), PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: symmetry '%s' not supported", filename, sym);
  do {
    PetscCheck(fgets(line, sizeof(line), fp), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: no size line", filename);
  } while (line[0] == '%' || line[0] == '\n');
  PetscCheck(sscanf(line, "%ld %ld %ld", &m, &n, &nz) == 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: bad size line", filename);
  PetscCheck((symm ? 2 : 1) * nz < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "Too many nonzeros for PetscInt");
  PetscCall(PetscMalloc3((symm ? 2 : 1) * nz, &ri, (symm ? 2 : 1) * nz, &ci, (symm ? 2 : 1) * nz, &vv));
  for (long k = 0; k < nz; k++) {
    long   i, j;
    double v = 1.0;
    if (pattern) PetscCheck(fscanf(fp, "%ld %ld", &i, &j) == 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: bad entry %ld", filename, k);
    else PetscCheck(fscanf(fp, "%ld %ld %lf", &i, &j, &v) == 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: bad entry %ld", filename, k);
    PetscCheck(i >= 1 && i <= m && j >= 1 && j <= n, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: entry %ld out of range", filename, k);
    ri[ne] = (PetscInt)(i - 1);
    ci[ne] = (PetscInt)(j - 1);
    vv[ne] = v;
    ne++;
    if (symm && i != j) {
      ri[ne] = (PetscInt)(j - 1);
      ci[ne] = (PetscInt)(i - 1);
      vv[ne] = symm * v;
      ne++;
    }
  }
  if (piped) pclose(fp);
  else fclose(fp);
  /* counting sort by row, then sort each row by column and sum duplicates */
  PetscCall(PetscCalloc1(m + 1, &ia));
  for (long k = 0; k < ne; k++) ia[ri[k] + 1]++;
  for (long r = 0; r < m; r++) ia[r + 1] += ia[r];
  PetscCall(PetscMalloc1(m, &fill));
  for (long r = 0; r < m; r++) fill[r] = ia[r];
  PetscCall(PetscMalloc2(ne, &ja, ne, &va));
  for (long k = 0; k < ne; k++) {
    ja[fill[ri[k]]]   = ci[k];
    va[fill[ri[k]]++] = vv[k];
  }
  {
    PetscInt p = 0;
    for (long r = 0; r < m; r++) {
      PetscInt start = ia[r], cnt = ia[r + 1] - ia[r];
      PetscCall(PetscSortIntWithScalarArray(cnt, ja + start, va + start));
      ia[r] = p;
      for (PetscInt q = 0; q < cnt; q++) {
        if (q > 0 && ja[start + q] == ja[p - 1]) va[p - 1] += va[start + q];
        else {
          ja[p] = ja[start + q];
          va[p] = va[start + q];
          p++;
        }
      }
    }
    ia[m] = p;
  }
  PetscCall(MatCreateFromCSR_Synth((PetscInt)m, (PetscInt)n, ia, ja, va, A));
  PetscCall(PetscFree(fill));
  PetscCall(PetscFree(ia));
  PetscCall(PetscFree2(ja, va));
  PetscCall(PetscFree3(ri, ci, vv));
  PetscFunctionReturn(PETSC_SUCCESS);
}
