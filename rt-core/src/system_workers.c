/*
 * Parallel stepping for the Jacobi master: worker threads that each own a fixed set of
 * units. An FMU instance is always called from the same thread — its owner — from
 * instantiation to free, because some FMUs keep thread-local state; all instances of one
 * FMU file share an owner, so one binary never runs two of its instances at once.
 *
 * Hand-off without locks: the coordinator writes the job, then publishes it by bumping
 * `gen` (release); each worker sees the new generation (acquire), runs its units, and
 * bumps `done` (release); the coordinator waits until every worker has (acquire). Both
 * sides spin, yielding the CPU between polls: a tick lasts microseconds, too short for a
 * sleep, and a real-time system dedicates the cores anyway.
 */
#include "system_priv.h"

#include "rtcosim/status.h"

#include <sched.h>
#include <stdlib.h>

struct rtc_workers {
    size_t n;
    pthread_t *threads;
    _Atomic uint64_t gen;  /* job generation: a new value means a new job */
    _Atomic size_t done;   /* workers finished with the current generation */
    _Atomic bool quit;
    rtc_system *sys;
    rtc__unit_job job;     /* what to run for each owned unit */
    void *arg;
    int *rc;               /* per unit */
};

typedef struct worker_arg {
    struct rtc_workers *w;
    size_t index; /* 1-based owner id */
} worker_arg;

static void run_owned(rtc_workers *w, size_t owner)
{
    for (size_t i = 0; i < w->sys->n_units; i++)
        if (w->sys->units[i].owner == owner)
            w->rc[i] = w->job(w->sys, &w->sys->units[i], w->arg);
}

static void *worker_main(void *p)
{
    worker_arg *a = p;
    rtc_workers *w = a->w;
    uint64_t seen = 0;
    for (;;) {
        uint64_t g;
        /* acquire: the job fields written before the generation bump are visible */
        while ((g = atomic_load_explicit(&w->gen, memory_order_acquire)) == seen) {
            if (atomic_load_explicit(&w->quit, memory_order_acquire))
                goto out;
            sched_yield();
        }
        seen = g;
        run_owned(w, a->index);
        /* release: our units' results are visible to the coordinator */
        atomic_fetch_add_explicit(&w->done, 1, memory_order_release);
    }
out:
    free(a);
    return NULL;
}

int rtc__workers_start(rtc_system *sys, size_t n)
{
    rtc_workers *w = calloc(1, sizeof *w);
    if (!w)
        return RTC_ENOMEM;
    w->sys = sys;
    w->threads = calloc(n, sizeof *w->threads);
    w->rc = calloc(sys->n_units + 1, sizeof *w->rc);
    if (!w->threads || !w->rc) {
        free(w->threads);
        free(w->rc);
        free(w);
        return RTC_ENOMEM;
    }
    /* Owners round-robin over distinct FMUs (owner 0: the coordinating thread). Instances of
     * one FMU file share an owner: the standard does not promise that one binary's
     * instances may run concurrently, and shared libraries with global state exist. */
    size_t next = 0;
    for (size_t i = 0; i < sys->n_units; i++) {
        size_t j = 0;
        while (j < i && sys->units[j].unit->md != sys->units[i].unit->md)
            j++;
        sys->units[i].owner = j < i ? sys->units[j].owner : next++ % (n + 1);
    }
    sys->workers = w;
    for (; w->n < n; w->n++) {
        worker_arg *a = malloc(sizeof *a);
        if (a)
            *a = (worker_arg){w, w->n + 1};
        if (!a || pthread_create(&w->threads[w->n], NULL, worker_main, a) != 0) {
            free(a);
            rtc__workers_stop(sys);
            return RTC_ESYS;
        }
    }
    return RTC_OK;
}

int rtc__workers_run(rtc_system *sys, rtc__unit_job job, void *arg)
{
    rtc_workers *w = sys->workers;
    int rc = RTC_OK;
    if (sys->substitute && sys->n_units && sys->units[0].as)
        return rtc__async_run_all(sys, job, arg); /* each unit on its own thread */
    if (!w) {
        for (size_t i = 0; i < sys->n_units && rc == RTC_OK; i++)
            rc = job(sys, &sys->units[i], arg);
        return rc;
    }
    w->job = job;
    w->arg = arg;
    atomic_store_explicit(&w->done, 0, memory_order_relaxed);
    /* release: job and arg are visible to a worker that sees the new generation */
    atomic_fetch_add_explicit(&w->gen, 1, memory_order_release);
    run_owned(w, 0);
    while (atomic_load_explicit(&w->done, memory_order_acquire) < w->n)
        sched_yield();
    for (size_t i = 0; i < sys->n_units && rc == RTC_OK; i++)
        rc = w->rc[i];
    return rc;
}

void rtc__workers_stop(rtc_system *sys)
{
    rtc_workers *w = sys->workers;
    if (!w)
        return;
    atomic_store_explicit(&w->quit, true, memory_order_release);
    for (size_t i = 0; i < w->n; i++)
        pthread_join(w->threads[i], NULL);
    free(w->threads);
    free(w->rc);
    free(w);
    sys->workers = NULL;
}
