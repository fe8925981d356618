/*
 * Jacobi on worker threads (--workers N): the inputs of every due unit are taken at t first
 * (they read only "cur" buffers), then every owner steps its due units in parallel (each
 * writing only its own units' "nxt" buffers), so the results equal sequential Jacobi's.
 *
 * Worker threads each own a fixed set of units. An FMU instance is always called from the
 * same thread — its owner — from instantiation to free, because some FMUs keep
 * thread-local state; all instances of one FMU file share an owner, so one binary never
 * runs two of its instances at once.
 *
 * Workers are made by the one RT-thread creator (rtcosim/rt.h): SCHED_FIFO at the
 * priority the system was given (rtc_system_set_threads), stack prefaulted before they
 * run a job.
 *
 * DESIGN — hand-off without locks, waits without sched_yield (rtc_rt_wait_change/wake):
 *   coordinator (the RT thread in a real-time run): writes job, arg and its own rtlog
 *     binding, sets done = 0, bumps `gen` (seq_cst: release for the job fields), then
 *     wakes the workers (FUTEX_WAKE only if one sleeps); runs its own units; then waits
 *     until done == n: a spin of spin_ns, then FUTEX_WAIT on `done`.
 *   worker: waits for gen to change (spin of spin_ns, then FUTEX_WAIT on `gen`), reads
 *     the job (acquire through gen), binds the coordinator's rtlog (so its units' log
 *     messages are queued, not formatted), runs its units, bumps `done` (seq_cst: release
 *     for the results); the worker that completes the count wakes the coordinator.
 * In real-time runs the spin covers the usual case (a tick's work takes microseconds)
 * without a system call; a longer wait sleeps in the kernel instead of keeping a CPU from
 * other threads. Fast mode does not spin (see RT_SPIN_NS).
 * The only system calls on the RT thread are these futex waits and wakes.
 */
#include "master_priv.h"

#include "rtcosim/status.h"

#include "rtcosim/rtlog.h"

#include <stdatomic.h>
#include <stdlib.h>

/* Spin before sleeping, in real-time runs only (SCHED_FIFO workers, cores meant for the
 * run): longer than a typical tick's work. In fast mode (SCHED_OTHER, a shared machine)
 * no spin: measured with scripts/bench-system 300000 1 on a loaded 2-core machine, a 3 µs
 * spin cost 58 µs per tick and 20 µs cost 174 µs, against 18 µs with none (the partner
 * thread often waits for the very CPU the spinner holds). */
#define RT_SPIN_NS 10000

typedef struct rtc_workers {
    size_t n;
    rtc_rt_thread **threads;
    _Atomic uint32_t gen;      /* job generation: a new value means a new job (futex word) */
    _Atomic uint32_t gen_waiters;
    _Atomic uint32_t done;     /* workers finished with the current generation (futex word) */
    _Atomic uint32_t done_waiters;
    _Atomic bool quit;
    rtc_system *sys;
    rtc__unit_job job;     /* what to run for each owned unit */
    void *arg;
    rtc_rtlog *log;        /* the coordinator's rtlog binding for this job */
    int64_t spin_ns;       /* RT_SPIN_NS with SCHED_FIFO threads, else 0 */
    int *rc;               /* per unit */
    bool *due;             /* per unit: steps in the current tick */
} rtc_workers;

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
    uint32_t seen = 0;
    for (;;) {
        /* acquire: the job fields written before the generation bump are visible */
        seen = rtc_rt_wait_change(&w->gen, &w->gen_waiters, seen, w->spin_ns);
        if (atomic_load_explicit(&w->quit, memory_order_acquire))
            break;
        rtc_rtlog_bind_thread(w->log);
        run_owned(w, a->index);
        /* release: our units' results are visible to the coordinator */
        if (atomic_fetch_add_explicit(&w->done, 1, memory_order_seq_cst) + 1 == w->n)
            rtc_rt_wake(&w->done, &w->done_waiters);
    }
    free(a);
    return NULL;
}

static int workers_start(rtc_system *sys)
{
    size_t n = sys->n_workers;
    rtc_workers *w = calloc(1, sizeof *w);
    if (!w)
        return RTC_ENOMEM;
    w->sys = sys;
    w->spin_ns = sys->threads.priority > 0 ? RT_SPIN_NS : 0;
    w->threads = calloc(n, sizeof *w->threads);
    w->rc = calloc(sys->n_units + 1, sizeof *w->rc);
    w->due = calloc(sys->n_units + 1, sizeof *w->due);
    if (!w->threads || !w->rc || !w->due) {
        free(w->threads);
        free(w->rc);
        free(w->due);
        free(w);
        return RTC_ENOMEM;
    }
    for (size_t i = 0; i < sys->n_units; i++)
        sys->units[i].owner = rtc_system_worker_owner(sys, (unsigned)n, i);
    sys->master_state = w;
    for (; w->n < n; w->n++) {
        worker_arg *a = malloc(sizeof *a);
        if (a)
            *a = (worker_arg){w, w->n + 1};
        rtc_rt_thread_opts o = sys->threads;
        o.name = "rtcosim-worker";
        int rc = a ? rtc_rt_thread_start(&o, worker_main, a, sys->lg, &w->threads[w->n])
                   : RTC_ENOMEM;
        if (rc != RTC_OK) {
            free(a);
            return rc; /* the caller stops what started (workers_stop) */
        }
    }
    return RTC_OK;
}

static int workers_run(rtc_system *sys, rtc__unit_job job, void *arg)
{
    rtc_workers *w = sys->master_state;
    int rc = RTC_OK;
    w->job = job;
    w->arg = arg;
    w->log = rtc_rtlog_thread();
    atomic_store_explicit(&w->done, 0, memory_order_relaxed);
    /* release: job and arg are visible to a worker that sees the new generation */
    atomic_fetch_add_explicit(&w->gen, 1, memory_order_seq_cst);
    rtc_rt_wake(&w->gen, &w->gen_waiters);
    run_owned(w, 0);
    uint32_t d;
    /* acquire: every worker's results are visible once done reaches n */
    while ((d = atomic_load_explicit(&w->done, memory_order_acquire)) < w->n)
        rtc_rt_wait_change(&w->done, &w->done_waiters, d, w->spin_ns);
    for (size_t i = 0; i < sys->n_units && rc == RTC_OK; i++)
        rc = w->rc[i];
    return rc;
}

static void workers_stop(rtc_system *sys)
{
    rtc_workers *w = sys->master_state;
    if (!w)
        return;
    atomic_store_explicit(&w->quit, true, memory_order_release);
    atomic_fetch_add_explicit(&w->gen, 1, memory_order_seq_cst); /* quit is a "job" too */
    rtc_rt_wake(&w->gen, &w->gen_waiters);
    for (size_t i = 0; i < w->n; i++)
        rtc_rt_thread_join(w->threads[i]);
    free(w->threads);
    free(w->rc);
    free(w->due);
    free(w);
    sys->master_state = NULL;
}

/* ---- the tick ---- */

static int job_tick(rtc_system *sys, sys_unit *u, void *arg)
{
    const rtc_workers *w = sys->master_state;
    return w->due[u - sys->units] ? rtc__master_step_unit(sys, u, *(const int64_t *)arg)
                                  : RTC_OK;
}

static int parallel_jacobi(rtc_system *sys, int64_t t)
{
    rtc_workers *w = sys->master_state;
    for (size_t i = 0; i < sys->n_units; i++) {
        sys_unit *u = &sys->units[i];
        w->due[i] = rtc__master_due(sys, u, t);
        if (w->due[i])
            rtc__sys_inputs_at(sys, u, t);
    }
    return workers_run(sys, job_tick, &t);
}

const rtc__master_ops rtc__master_jacobi_workers = {
    .name = "jacobi",
    .threads = RTC__ON_WORKERS,
    .arm = workers_start,
    .tick = parallel_jacobi,
    .each = workers_run,
    .free = workers_stop,
};
