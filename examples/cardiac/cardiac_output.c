/* Output of the cardiac example without external libraries: VTU (binary appended, ParaView), a PVD time
   series index, and a PNG picture of the activation map (z-buffered flat rendering of all tetrahedron faces,
   two views, colour bar; a minimal PNG encoder with stored deflate blocks). */
#include "cardiac.h"
#include <petscellwarp/private/ellwarpthreads.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static PetscErrorCode WriteBlock(FILE *fp, const void *data, uint64_t bytes)
{
  PetscFunctionBegin;
  PetscCheck(fwrite(&bytes, sizeof(bytes), 1, fp) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "VTU write failed");
  if (bytes) PetscCheck(fwrite(data, 1, bytes, fp) == bytes, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "VTU write failed");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* phi nondimensional (written as Phi = 100 phi - 80 mV), r per cell (may be NULL), act per vertex (NULL: none) */
PetscErrorCode CardiacWriteVTU(const char *file, const CardiacMesh *cm, const PetscScalar *phi, const PetscReal *r, const PetscScalar *act, PetscBool fibres)
{
  FILE     *fp;
  PetscInt  nv = cm->m.nv, nt = cm->m.nt;
  uint64_t  off = 0, s;
  double   *buf;
  int32_t  *ibuf;
  uint8_t  *types;

  PetscFunctionBegin;
  fp = fopen(file, "wb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s for writing", file);
  fprintf(fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n<UnstructuredGrid>\n");
  fprintf(fp, "<Piece NumberOfPoints=\"%" PetscInt_FMT "\" NumberOfCells=\"%" PetscInt_FMT "\">\n", nv, nt);
  fprintf(fp, "<PointData Scalars=\"Phi_mV\">\n");
  fprintf(fp, "<DataArray type=\"Float64\" Name=\"Phi_mV\" format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)off);
  off += 8 + 8 * (uint64_t)nv;
  if (act) {
    fprintf(fp, "<DataArray type=\"Float64\" Name=\"activation_ms\" format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)off);
    off += 8 + 8 * (uint64_t)nv;
  }
  fprintf(fp, "</PointData>\n<CellData>\n");
  if (r) {
    fprintf(fp, "<DataArray type=\"Float64\" Name=\"r\" format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)off);
    off += 8 + 8 * (uint64_t)nt;
  }
  if (fibres) {
    fprintf(fp, "<DataArray type=\"Float64\" Name=\"fibre\" NumberOfComponents=\"3\" format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)off);
    off += 8 + 24 * (uint64_t)nt;
  }
  fprintf(fp, "</CellData>\n<Points>\n<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"appended\" offset=\"%llu\"/>\n</Points>\n", (unsigned long long)off);
  off += 8 + 24 * (uint64_t)nv;
  fprintf(fp, "<Cells>\n<DataArray type=\"Int32\" Name=\"connectivity\" format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)off);
  off += 8 + 16 * (uint64_t)nt;
  fprintf(fp, "<DataArray type=\"Int32\" Name=\"offsets\" format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)off);
  off += 8 + 4 * (uint64_t)nt;
  fprintf(fp, "<DataArray type=\"UInt8\" Name=\"types\" format=\"appended\" offset=\"%llu\"/>\n</Cells>\n", (unsigned long long)off);
  fprintf(fp, "</Piece>\n</UnstructuredGrid>\n<AppendedData encoding=\"raw\">\n_");
  PetscCall(PetscMalloc1(3 * (size_t)PetscMax(nv, nt), &buf));
  for (PetscInt i = 0; i < nv; i++) buf[i] = 100.0 * PetscRealPart(phi[i]) - 80.0;
  PetscCall(WriteBlock(fp, buf, 8 * (uint64_t)nv));
  if (act) {
    for (PetscInt i = 0; i < nv; i++) buf[i] = PetscRealPart(act[i]);
    PetscCall(WriteBlock(fp, buf, 8 * (uint64_t)nv));
  }
  if (r) PetscCall(WriteBlock(fp, r, 8 * (uint64_t)nt));
  if (fibres) {
    for (PetscInt e = 0; e < nt; e++)
      for (int d = 0; d < 3; d++) buf[3 * e + d] = cm->fib[(size_t)d * nt + e];
    PetscCall(WriteBlock(fp, buf, 24 * (uint64_t)nt));
  }
  PetscCall(WriteBlock(fp, cm->m.xyz, 24 * (uint64_t)nv));
  PetscCall(PetscFree(buf));
  PetscCall(PetscMalloc1(4 * (size_t)nt, &ibuf));
  PetscCheck(4 * (PetscCount)nt < INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "VTU output: mesh too large for 32-bit connectivity");
  for (PetscInt i = 0; i < 4 * nt; i++) ibuf[i] = (int32_t)cm->m.tet[i];
  PetscCall(WriteBlock(fp, ibuf, 16 * (uint64_t)nt));
  for (PetscInt e = 0; e < nt; e++) ibuf[e] = (int32_t)(4 * (e + 1));
  PetscCall(WriteBlock(fp, ibuf, 4 * (uint64_t)nt));
  PetscCall(PetscFree(ibuf));
  PetscCall(PetscMalloc1((size_t)nt, &types));
  memset(types, 10, (size_t)nt);
  s = (uint64_t)nt;
  PetscCall(WriteBlock(fp, types, s));
  PetscCall(PetscFree(types));
  fprintf(fp, "\n</AppendedData>\n</VTKFile>\n");
  PetscCheck(fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot close %s", file);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CardiacWritePVD(const char *file, PetscInt n, const char *const *vtus, const PetscReal *times)
{
  FILE *fp;

  PetscFunctionBegin;
  fp = fopen(file, "w");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s for writing", file);
  fprintf(fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n<Collection>\n");
  for (PetscInt i = 0; i < n; i++) fprintf(fp, "<DataSet timestep=\"%g\" file=\"%s\"/>\n", (double)times[i], vtus[i]);
  fprintf(fp, "</Collection>\n</VTKFile>\n");
  PetscCheck(fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot close %s", file);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- PNG ------------------------------------------------------------------------------------------- */

static uint32_t Crc32(uint32_t crc, const unsigned char *buf, size_t n)
{
  static uint32_t table[256];
  static int      init = 0;
  if (!init) {
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
    init = 1;
  }
  crc = ~crc;
  for (size_t i = 0; i < n; i++) crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

static void Put32(unsigned char *p, uint32_t v)
{
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
}

static void Chunk(FILE *fp, const char *type, const unsigned char *data, uint32_t n)
{
  unsigned char h[8];
  uint32_t      crc;
  Put32(h, n);
  memcpy(h + 4, type, 4);
  fwrite(h, 1, 8, fp);
  if (n) fwrite(data, 1, n, fp);
  crc = Crc32(Crc32(0, (const unsigned char *)type, 4), data, n);
  Put32(h, crc);
  fwrite(h, 1, 4, fp);
}

/* RGB image, zlib stream of stored (uncompressed) deflate blocks */
static PetscErrorCode WritePNG(const char *file, int w, int h, const unsigned char *rgb)
{
  size_t         raw = (size_t)h * (3 * w + 1), nblk = (raw + 65534) / 65535, zn = 2 + raw + 5 * nblk + 4, q = 0;
  unsigned char *z, *line, ihdr[13];
  uint32_t       a = 1, b = 0;
  FILE          *fp;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(zn, &z));
  PetscCall(PetscMalloc1(raw, &line));
  for (int y = 0; y < h; y++) {
    line[(size_t)y * (3 * w + 1)] = 0;
    memcpy(line + (size_t)y * (3 * w + 1) + 1, rgb + (size_t)y * 3 * w, 3 * (size_t)w);
  }
  z[q++] = 0x78;
  z[q++] = 0x01;
  for (size_t off = 0; off < raw; off += 65535) {
    size_t len = PetscMin((size_t)65535, raw - off);
    z[q++]     = off + len == raw ? 1 : 0;
    z[q++]     = (unsigned char)(len & 0xff);
    z[q++]     = (unsigned char)(len >> 8);
    z[q++]     = (unsigned char)(~len & 0xff);
    z[q++]     = (unsigned char)((~len >> 8) & 0xff);
    memcpy(z + q, line + off, len);
    q += len;
  }
  for (size_t i = 0; i < raw; i++) {
    a = (a + line[i]) % 65521;
    b = (b + a) % 65521;
  }
  Put32(z + q, (b << 16) | a);
  q += 4;
  Put32(ihdr, (uint32_t)w);
  Put32(ihdr + 4, (uint32_t)h);
  ihdr[8]  = 8;
  ihdr[9]  = 2;
  ihdr[10] = ihdr[11] = ihdr[12] = 0;
  fp                               = fopen(file, "wb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s for writing", file);
  fwrite("\x89PNG\r\n\x1a\n", 1, 8, fp);
  Chunk(fp, "IHDR", ihdr, 13);
  Chunk(fp, "IDAT", z, (uint32_t)q);
  Chunk(fp, "IEND", NULL, 0);
  PetscCheck(fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot close %s", file);
  PetscCall(PetscFree(z));
  PetscCall(PetscFree(line));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* blue - cyan - green - yellow - red */
static void ColorMap(PetscReal s, unsigned char c[3])
{
  static const PetscReal k[5][3] = {
    {0.19, 0.07, 0.55},
    {0.00, 0.65, 0.95},
    {0.20, 0.80, 0.25},
    {0.98, 0.85, 0.10},
    {0.80, 0.05, 0.05}
  };
  PetscReal x = PetscMin(1.0, PetscMax(0.0, s)) * 4;
  int       i = PetscMin(3, (int)x);
  PetscReal t = x - i;
  for (int d = 0; d < 3; d++) c[d] = (unsigned char)(255 * ((1 - t) * k[i][d] + t * k[i + 1][d]));
}

/* 3x5 glyphs for digits, '.', 'm', 's' */
static const char *Glyph(char ch)
{
  static const char *dig[10] = {"111101101101111", "010110010010111", "111001111100111", "111001111001111", "101101111001001", "111100111001111", "111100111101111", "111001001001001", "111101111101111", "111101111001111"};
  if (ch >= '0' && ch <= '9') return dig[ch - '0'];
  if (ch == '.') return "000000000000010";
  if (ch == 'm') return "000000111111101";
  if (ch == 's') return "000011010001110";
  return "000000000000000";
}

static void Text(unsigned char *img, int w, int h, int x0, int y0, int scale, const char *s)
{
  for (int k = 0; s[k]; k++) {
    const char *g = Glyph(s[k]);
    for (int gy = 0; gy < 5; gy++)
      for (int gx = 0; gx < 3; gx++)
        if (g[3 * gy + gx] == '1')
          for (int py = 0; py < scale; py++)
            for (int px = 0; px < scale; px++) {
              int x = x0 + (4 * k + gx) * scale + px, y = y0 + gy * scale + py;
              if (x >= 0 && x < w && y >= 0 && y < h) memset(img + 3 * ((size_t)y * w + x), 0, 3);
            }
  }
}

/* The PNG's rasterization, a range of tets per host thread (PetscEllwarpThreadsRun) into the thread's own z-buffer and
   image, merged afterwards.  Why: drawing the faces of the 6 M tets of the 1 M-vertex LV took 6-12 s on one core, most
   of the process's time after the program's "total".  Serially a pixel ends with the first face (in tet and face
   order) of least depth; each thread keeps the first of least depth among its tets, and the merge takes the least
   depth with ties to the lower range, hence the earlier face: the same bytes as one thread, for any thread count. */
typedef struct {
  const CardiacMesh  *cm;
  const PetscScalar  *act;
  PetscReal           tmax, scale, ymin, c[3];
  const PetscReal    *vd, *e_x, *e_y;
  int                 W, H, PW, ox;
  float              *zbuf[64];
  unsigned char      *img[64];
} PNGView;

static int PNGRasterWork(void *ctx, PetscInt range, PetscCount t0, PetscCount t1)
{
  PNGView         *v = (PNGView *)ctx;
  const CardiacMesh *cm = v->cm;
  const int        W = v->W, H = v->H, PW = v->PW, ox = v->ox;
  const PetscReal *vd = v->vd, *e_x = v->e_x, *e_y = v->e_y, *c = v->c, scale = v->scale, ymin = v->ymin, tmax = v->tmax;
  const PetscScalar *act = v->act;
  float           *zbuf;
  unsigned char   *img;
  static const int faces[4][3] = {
    {0, 1, 2},
    {0, 1, 3},
    {0, 2, 3},
    {1, 2, 3}
  };

  zbuf = v->zbuf[range] = (float *)malloc(sizeof(float) * (size_t)W * H);
  img = v->img[range] = (unsigned char *)malloc((size_t)3 * W * H);
  if (!zbuf || !img) return PETSC_ERR_MEM;
  for (size_t i = 0; i < (size_t)W * H; i++) zbuf[i] = 1e30f;
  for (PetscInt t = (PetscInt)t0; t < (PetscInt)t1; t++)
    for (int f = 0; f < 4; f++) {
      PetscReal sx[3], sy[3], sz[3], av[3], nrm[3], e1[3], e2[3], shade;
      PetscBool ok = PETSC_TRUE;
      { /* Lambert shading with the face normal, light from the viewer */
        const PetscReal *p0 = cm->m.xyz + 3 * cm->m.tet[4 * t + faces[f][0]], *p1 = cm->m.xyz + 3 * cm->m.tet[4 * t + faces[f][1]], *p2 = cm->m.xyz + 3 * cm->m.tet[4 * t + faces[f][2]];
        for (int d = 0; d < 3; d++) {
          e1[d] = p1[d] - p0[d];
          e2[d] = p2[d] - p0[d];
        }
        nrm[0] = e1[1] * e2[2] - e1[2] * e2[1];
        nrm[1] = e1[2] * e2[0] - e1[0] * e2[2];
        nrm[2] = e1[0] * e2[1] - e1[1] * e2[0];
        shade  = PetscAbsReal(vd[0] * nrm[0] + vd[1] * nrm[1] + vd[2] * nrm[2]) / PetscMax(1e-30, PetscSqrtReal(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]));
        shade  = 0.55 + 0.45 * shade;
        { /* back-face culling with the tet's outward normal (away from the opposite vertex): halves the work */
          const PetscReal *q = cm->m.xyz + 3 * cm->m.tet[4 * t + (6 - faces[f][0] - faces[f][1] - faces[f][2])];
          PetscReal        out = nrm[0] * (p0[0] - q[0]) + nrm[1] * (p0[1] - q[1]) + nrm[2] * (p0[2] - q[2]);
          if ((out > 0 ? 1.0 : -1.0) * (vd[0] * nrm[0] + vd[1] * nrm[1] + vd[2] * nrm[2]) > 0) continue;
        }
      }
      for (int k = 0; k < 3; k++) {
        PetscInt         vv = cm->m.tet[4 * t + faces[f][k]];
        const PetscReal *p  = cm->m.xyz + 3 * vv;
        PetscReal        u = e_x[0] * (p[0] - c[0]) + e_x[1] * (p[1] - c[1]) + e_x[2] * (p[2] - c[2]), depth = vd[0] * p[0] + vd[1] * p[1] + vd[2] * p[2];
        sx[k] = ox + PW / 2.0 + scale * u;
        sy[k] = 10 + scale * (e_y[0] * p[0] + e_y[1] * p[1] + e_y[2] * p[2] - ymin);
        sz[k] = depth;
        av[k] = PetscRealPart(act[vv]);
        if (av[k] < 0) ok = PETSC_FALSE;
      }
      {
        int       x0 = (int)PetscFloorReal(PetscMin(sx[0], PetscMin(sx[1], sx[2]))), x1 = (int)PetscCeilReal(PetscMax(sx[0], PetscMax(sx[1], sx[2])));
        int       y0 = (int)PetscFloorReal(PetscMin(sy[0], PetscMin(sy[1], sy[2]))), y1 = (int)PetscCeilReal(PetscMax(sy[0], PetscMax(sy[1], sy[2])));
        PetscReal den = (sy[1] - sy[2]) * (sx[0] - sx[2]) + (sx[2] - sx[1]) * (sy[0] - sy[2]);
        if (PetscAbsReal(den) < 1e-12) continue;
        for (int y = PetscMax(0, y0); y <= PetscMin(H - 1, y1); y++)
          for (int x = PetscMax(0, x0); x <= PetscMin(W - 1, x1); x++) {
            PetscReal px = x + 0.5, py = y + 0.5, l0 = ((sy[1] - sy[2]) * (px - sx[2]) + (sx[2] - sx[1]) * (py - sy[2])) / den, l1 = ((sy[2] - sy[0]) * (px - sx[2]) + (sx[0] - sx[2]) * (py - sy[2])) / den, l2 = 1 - l0 - l1;
            float     zz;
            if (l0 < -1e-9 || l1 < -1e-9 || l2 < -1e-9) continue;
            zz = (float)(l0 * sz[0] + l1 * sz[1] + l2 * sz[2]);
            if (zz >= zbuf[(size_t)y * W + x]) continue;
            zbuf[(size_t)y * W + x] = zz;
            {
              unsigned char *px3 = img + 3 * ((size_t)y * W + x);
              if (ok) ColorMap((l0 * av[0] + l1 * av[1] + l2 * av[2]) / tmax, px3);
              else memset(px3, 160, 3);
              for (int d = 0; d < 3; d++) px3[d] = (unsigned char)(px3[d] * shade);
            }
          }
      }
    }
  return 0;
}

PetscErrorCode CardiacWriteActivationPNG(const char *file, const CardiacMesh *cm, const PetscScalar *act, PetscReal tmax)
{
  const int      W = 900, H = 560, PW = 380, PH = 520, views = 2;
  /* view 0: from the side (looking along +y, z up); view 1: from the base (looking down -z into the cavity) */
  const PetscReal vdir[2][3] = {{0, 1, 0}, {0, 0, -1}}, ex[2][3] = {{1, 0, 0}, {1, 0, 0}}, ey[2][3] = {{0, 0, -1}, {0, 1, 0}};
  unsigned char *img;
  float         *zbuf;
  PetscReal      lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {PETSC_MIN_REAL, PETSC_MIN_REAL, PETSC_MIN_REAL}, scale, ext;
  PetscInt       nth;

  PetscFunctionBegin;
  if (tmax <= 0) tmax = 1;
  PetscCall(PetscMalloc1((size_t)3 * W * H, &img));
  PetscCall(PetscMalloc1((size_t)W * H, &zbuf));
  memset(img, 255, (size_t)3 * W * H);
  for (size_t i = 0; i < (size_t)W * H; i++) zbuf[i] = 1e30f;
  for (PetscInt v = 0; v < cm->m.nv; v++)
    for (int d = 0; d < 3; d++) {
      lo[d] = PetscMin(lo[d], cm->m.xyz[3 * v + d]);
      hi[d] = PetscMax(hi[d], cm->m.xyz[3 * v + d]);
    }
  ext   = PetscMax(PetscMax(hi[0] - lo[0], hi[1] - lo[1]), 1e-12);
  scale = PetscMin((PW - 20) / ext, (PH - 20) / PetscMax(hi[2] - lo[2], 1e-12));
  PetscCall(PetscEllwarpThreadsGetCount(0, cm->m.nt, 65536, &nth));
  for (int view = 0; view < views; view++) {
    PNGView        pv;
    PetscErrorCode ierr;

    PetscCall(PetscMemzero(&pv, sizeof(pv)));
    pv.cm    = cm;
    pv.act   = act;
    pv.tmax  = tmax;
    pv.scale = scale;
    pv.vd    = vdir[view];
    pv.e_x   = ex[view];
    pv.e_y   = ey[view];
    pv.W     = W;
    pv.H     = H;
    pv.PW    = PW;
    pv.ox    = 10 + view * (PW + 10);
    pv.ymin  = PETSC_MAX_REAL;
    for (int d = 0; d < 3; d++) pv.c[d] = 0.5 * (lo[d] + hi[d]);
    for (PetscInt v = 0; v < cm->m.nv; v++) pv.ymin = PetscMin(pv.ymin, pv.e_y[0] * cm->m.xyz[3 * v] + pv.e_y[1] * cm->m.xyz[3 * v + 1] + pv.e_y[2] * cm->m.xyz[3 * v + 2]);
    ierr = PetscEllwarpThreadsRun(nth, cm->m.nt, PNGRasterWork, &pv);
    if (!ierr) /* the view's faces come after the previous views' (ties keep the earlier pixel) */
      for (size_t i = 0; i < (size_t)W * H; i++) {
        int best = -1;
        for (PetscInt t = 0; t < nth; t++)
          if (pv.zbuf[t][i] < (best < 0 ? zbuf[i] : pv.zbuf[best][i])) best = (int)t;
        if (best >= 0) {
          zbuf[i] = pv.zbuf[best][i];
          memcpy(img + 3 * i, pv.img[best] + 3 * i, 3);
        }
      }
    for (PetscInt t = 0; t < nth; t++) {
      free(pv.zbuf[t]);
      free(pv.img[t]);
    }
    PetscCall(ierr);
  }
  /* colour bar: 0 at the bottom, tmax at the top */
  for (int y = 40; y < H - 40; y++)
    for (int x = W - 90; x < W - 60; x++) ColorMap(1.0 - (PetscReal)(y - 40) / (H - 81), img + 3 * ((size_t)y * W + x));
  {
    char s[32];
    PetscCall(PetscSNPrintf(s, sizeof(s), "%.0fms", (double)tmax));
    Text(img, W, H, W - 100, 18, 3, s);
    Text(img, W, H, W - 85, H - 32, 3, "0");
  }
  PetscCall(WritePNG(file, W, H, img));
  PetscCall(PetscFree(img));
  PetscCall(PetscFree(zbuf));
  PetscFunctionReturn(PETSC_SUCCESS);
}
