/* The host-thread helper of the set-up loops (include/petscellwarp/private/ellwarpthreads.h).  Why plain pthreads
   and not OpenMP: PETSc is configured without OpenMP here, and the loops are a handful of independent ranges
   (no scheduling, no reductions), which a spawn and a join cover. */
#if !defined(_GNU_SOURCE)
  #define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include <sched.h>
#include <pthread.h>
#include <unistd.h>
#include <petscellwarp/private/ellwarpthreads.h>

#define ELLWARP_MAX_THREADS 64

PetscErrorCode PetscEllwarpThreadsGetCount(PetscInt requested, PetscCount n, PetscCount grain, PetscInt *nthreads)
{
  PetscInt nth = requested;

  PetscFunctionBegin;
  if (nth <= 0) {
#if defined(CPU_COUNT)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (!sched_getaffinity(0, sizeof(set), &set)) nth = (PetscInt)CPU_COUNT(&set);
#endif
    if (nth <= 0) nth = (PetscInt)sysconf(_SC_NPROCESSORS_ONLN);
  }
  if (grain < 1) grain = 1;
  nth       = PetscMin(nth, ELLWARP_MAX_THREADS);
  nth       = (PetscInt)PetscMin((PetscCount)nth, n / grain + 1);
  *nthreads = PetscMax(1, nth);
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscEllwarpRangeWork work;
  void                 *ctx;
  PetscInt              range;
  PetscCount            begin, end;
  int                   err;
} RangeArg;

static void *RangeMain(void *arg)
{
  RangeArg *r = (RangeArg *)arg;
  r->err      = r->work(r->ctx, r->range, r->begin, r->end);
  return NULL;
}

PetscErrorCode PetscEllwarpThreadsRun(PetscInt nthreads, PetscCount n, PetscEllwarpRangeWork work, void *ctx)
{
  RangeArg  r[ELLWARP_MAX_THREADS];
  pthread_t th[ELLWARP_MAX_THREADS];
  PetscInt  nth = PetscMax(1, PetscMin(nthreads, ELLWARP_MAX_THREADS)), started = 1;
  int       err = 0;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < nth; t++) r[t] = (RangeArg){work, ctx, t, n * t / nth, n * (t + 1) / nth, 0};
  for (PetscInt t = 1; t < nth; t++, started++)
    if (pthread_create(&th[t], NULL, RangeMain, &r[t])) break;
  /* threads that could not start: their ranges run here, after range 0 (same results: ranges are independent) */
  for (PetscInt t = 0; t < nth; t++)
    if (t == 0 || t >= started) RangeMain(&r[t]);
  for (PetscInt t = 1; t < started; t++)
    if (pthread_join(th[t], NULL)) err = 1;
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_SYS, "petsc-ellwarp: could not join a host thread");
  for (PetscInt t = 0; t < nth; t++) PetscCheck(!r[t].err, PETSC_COMM_SELF, (PetscErrorCode)r[t].err, "petsc-ellwarp: host thread %" PetscInt_FMT " of %" PetscInt_FMT " failed on items %" PetscCount_FMT " .. %" PetscCount_FMT " (PETSc error code %d)", t, nth, r[t].begin, r[t].end - 1, r[t].err);
  PetscFunctionReturn(PETSC_SUCCESS);
}
