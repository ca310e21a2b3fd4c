/* The element integration's host back end for CPUs with AVX-512 (F, DQ, VL) and FMA: dmasmintegratehost.c compiled
   with -mavx512f -mavx512dq -mavx512vl -mavx2 -mfma (CMakeLists.txt, x86-64 only), 8 elements in the lanes of one
   vector.  dmasmintegrate.c runs it only where the CPU says it has those instructions (__builtin_cpu_supports). */
#if defined(ELLWARP_IG_HOST_AVX512)
  #define DMASM_IG_HOST_ISA 2
  #include "dmasmintegratehost.c"
#else
typedef int DMAsmIGHostAVX512Unused; /* not an x86-64 build: nothing here (ISO C: no empty translation unit) */
#endif
