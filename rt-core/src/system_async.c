/*
 * The "substitute" overrun policy: every unit steps on its own thread, and the real-time
 * thread waits for them only until the step's budget (shortly before the next deadline).
 * A unit still running then is left running: its outputs keep their last visible values,
 * which its consumers' estimators extrapolate, while the rest of the system — and the
 * bench — stay on time. When the late unit finishes, its results become visible and it
 * steps again at once, back to back, until it has caught up with the tick.
 *
 * Without lateness the result equals Jacobi exactly: a unit steps from t with inputs
 * taken at t, and its outputs become visible at t + h.
 *
 * Hand-off per unit: the RT thread writes the unit's inputs and the job, then stores
 * state = RUN (release) and wakes the unit's thread (futex wake: a non-blocking system
 * call); the thread runs the job and stores state = DONE (release); the RT thread reads
 * DONE (acquire) before it touches the results. Each FMU instance is called only from its
 * own thread, from instantiation to free.
 */
#include "system_priv.h"

#include "rtcosim/status.h"

#include <linux/futex.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { A_IDLE, A_RUN, A_DONE, A_QUIT };

struct rtc_async_unit {
    pthread_t thread;
    _Atomic uint32_t state;
    rtc_system *sys;
    sys_unit *u;
    rtc__unit_job job;
    void *arg;
    int rc;
    int64_t t_start;  /* logical start of the step being run */
    bool late;        /* counted as late for this step already */
};

static void futex_wake(_Atomic uint32_t *addr)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *async_main(void *p)
{
    rtc_async_unit *a = p;
    for (;;) {
        uint32_t s;
        /* acquire: the inputs and the job written before RUN are visible */
        while ((s = atomic_load_explicit(&a->state, memory_order_acquire)) != A_RUN &&
               s != A_QUIT)
            syscall(SYS_futex, (uint32_t *)&a->state, FUTEX_WAIT_PRIVATE, s, NULL, NULL, 0);
        if (s == A_QUIT)
            return NULL;
        a->rc = a->job(a->sys, a->u, a->arg);
        /* release: the step's results (nxt buffers, rc) are visible with DONE */
        atomic_store_explicit(&a->state, A_DONE, memory_order_release);
    }
}

static void dispatch(rtc_async_unit *a, rtc__unit_job job, void *arg)
{
    a->job = job;
    a->arg = arg;
    atomic_store_explicit(&a->state, A_RUN, memory_order_release);
    futex_wake(&a->state);
}

static bool done(rtc_async_unit *a)
{
    return atomic_load_explicit(&a->state, memory_order_acquire) == A_DONE;
}

int rtc__async_start(rtc_system *sys)
{
    for (size_t i = 0; i < sys->n_units; i++) {
        sys_unit *u = &sys->units[i];
        u->as = calloc(1, sizeof *u->as);
        if (!u->as)
            return RTC_ENOMEM;
        *u->as = (rtc_async_unit){.sys = sys, .u = u};
        if (pthread_create(&u->as->thread, NULL, async_main, u->as) != 0) {
            free(u->as);
            u->as = NULL;
            return RTC_ESYS;
        }
    }
    return RTC_OK;
}

/* Run @p job for every unit on its own thread and wait for all (load phase, teardown). */
int rtc__async_run_all(rtc_system *sys, rtc__unit_job job, void *arg)
{
    for (size_t i = 0; i < sys->n_units; i++) {
        rtc_async_unit *a = sys->units[i].as;
        /* a late step may still run (the end of a run): let it finish first */
        while (atomic_load_explicit(&a->state, memory_order_acquire) == A_RUN)
            sched_yield();
        dispatch(a, job, arg);
    }
    int rc = RTC_OK;
    for (size_t i = 0; i < sys->n_units; i++) {
        rtc_async_unit *a = sys->units[i].as;
        while (!done(a))
            sched_yield();
        if (rc == RTC_OK)
            rc = a->rc;
        atomic_store_explicit(&a->state, A_IDLE, memory_order_relaxed);
    }
    return rc;
}

long rtc_system_unit_in_step(const rtc_system *sys)
{
    for (size_t i = 0; i < sys->n_units; i++) {
        rtc_async_unit *a = sys->units[i].as;
        /* acquire: pairs with the DONE store of the unit's thread */
        if (a && atomic_load_explicit(&a->state, memory_order_acquire) == A_RUN)
            return (long)i;
    }
    return -1;
}

void rtc__async_stop(rtc_system *sys)
{
    for (size_t i = 0; i < sys->n_units; i++) {
        rtc_async_unit *a = sys->units[i].as;
        if (!a)
            continue;
        while (atomic_load_explicit(&a->state, memory_order_acquire) == A_RUN)
            sched_yield(); /* a late step still running: it must end before its FMU goes */
        atomic_store_explicit(&a->state, A_QUIT, memory_order_release);
        futex_wake(&a->state);
        pthread_join(a->thread, NULL);
        free(a);
        sys->units[i].as = NULL;
    }
}

/* The step of one unit on its own thread: inputs were computed by the RT thread. */
static int job_step(rtc_system *sys, sys_unit *u, void *arg)
{
    (void)arg;
    int64_t t = u->as->t_start;
    int rc = rtc__sys_set_inputs(sys, u);
    rtc_step_result res;
    if (rc == RTC_OK)
        rc = u->unit->ops->do_step(u->unit->self, (double)(sys->start_ns + t) / 1e9,
                                   (double)u->step_ns / 1e9, &res);
    if (rc == RTC_OK && res.outcome != RTC_STEP_DONE) {
        rtc_log(sys->lg, RTC_LOG_WARNING, "%s: the unit ended the simulation in its step from "
                "t=%.9g s", u->name, (double)(sys->start_ns + t) / 1e9);
        rc = RTC_ETERMINATED;
    }
    return rc == RTC_OK ? rtc__sys_fetch(sys, u, true) : rc;
}

static int64_t mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Start every idle unit that is due at t, or behind t (catching up), from its own time. */
static void start_due(rtc_system *sys, int64_t t)
{
    for (size_t i = 0; i < sys->n_units; i++) {
        sys_unit *u = &sys->units[i];
        rtc_async_unit *a = u->as;
        if (u->io || u->has_nxt || atomic_load_explicit(&a->state, memory_order_relaxed) != A_IDLE)
            continue;
        bool due = u->t_cur_ns == t ? t % u->step_ns == 0 : u->t_cur_ns < t;
        if (!due || u->t_cur_ns + u->step_ns > sys->stop_ns)
            continue;
        rtc__sys_inputs_at(sys, u, u->t_cur_ns); /* Jacobi: inputs at the step's start */
        a->t_start = u->t_cur_ns;
        a->late = false;
        dispatch(a, job_step, NULL);
    }
}

int rtc__async_tick(rtc_system *sys, int64_t t)
{
    start_due(sys, t);
    /* Wait for the running steps, up to the budget (none: wait for all, as Jacobi). The
     * RT thread naps 20 µs between polls rather than spinning: a SCHED_FIFO spin would
     * keep the units' threads off its CPU. */
    for (;;) {
        bool running = false;
        for (size_t i = 0; i < sys->n_units && !running; i++)
            running = sys->units[i].as &&
                      atomic_load_explicit(&sys->units[i].as->state, memory_order_acquire) == A_RUN;
        int64_t now = sys->step_deadline_ns ? mono_now() : 0;
        if (!running || (sys->step_deadline_ns && now >= sys->step_deadline_ns))
            break;
        struct timespec nap = {0, 20000};
        nanosleep(&nap, NULL);
    }
    for (size_t i = 0; i < sys->n_units; i++) {
        sys_unit *u = &sys->units[i];
        rtc_async_unit *a = u->as;
        if (!a || u->io)
            continue;
        if (done(a)) {
            if (a->rc != RTC_OK)
                return a->rc;
            u->t_nxt_ns = a->t_start + u->step_ns; /* visible from then on (promotion) */
            u->has_nxt = true;
            atomic_store_explicit(&a->state, A_IDLE, memory_order_relaxed);
        } else if (atomic_load_explicit(&a->state, memory_order_relaxed) == A_RUN && !a->late) {
            a->late = true; /* left running: its outputs are substituted meanwhile */
            sys->late_steps++;
        }
    }
    return RTC_OK;
}
