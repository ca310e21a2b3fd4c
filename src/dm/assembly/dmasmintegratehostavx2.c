/* The element integration's host back end for CPUs with AVX2 and FMA: dmasmintegratehost.c compiled with
   -mavx2 -mfma (CMakeLists.txt, x86-64 only), 4 elements in the lanes of one vector.  dmasmintegrate.c runs it only
   where the CPU says it has those instructions (__builtin_cpu_supports). */
#if defined(ELLWARP_IG_HOST_AVX2)
  #define DMASM_IG_HOST_ISA 1
  #include "dmasmintegratehost.c"
#else
typedef int DMAsmIGHostAVX2Unused; /* not an x86-64 build: nothing here (ISO C: no empty translation unit) */
#endif
