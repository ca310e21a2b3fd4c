/* The test suite's one device check: exit 0 when a CUDA device is usable here, else 1.  tests/support/run_expect.sh
   runs it before every GPU-labelled test (ellwarp_add_test(... GPU)) and skips the test (or, in a build with
   -DELLWARP_GPU_TESTS=ON, fails it) when it exits 1.  No PETSc: the answer must not depend on PETSc starting. */
#include "testutil.h"

int main(void)
{
  if (EllwarpTestHaveDevice()) {
    printf("CUDA device present\n");
    return 0;
  }
  printf("no CUDA device\n");
  return 1;
}
