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
 * DESIGN — hand-off per unit, no lock, no sched_yield, no nap (rtc_rt_wait_change/wake of
 * rtcosim/rt.h: a short spin, then FUTEX_WAIT; FUTEX_WAKE only when someone sleeps):
 *   RT thread: writes the unit's inputs, the job and its own rtlog binding, stores
 *     state = RUN (seq_cst: release for those) and wakes the unit's thread.
 *   unit thread: waits for state to leave IDLE/DONE (acquire), binds the rtlog (its FMU's
 *     log messages are queued, not formatted), runs the job, stores state = DONE
 *     (seq_cst: release for the results, nxt buffers and rc), wakes waiters on its state
 *     word, then bumps the shared count `done` and wakes waiters on that.
 *   RT thread, per tick: waits on `done` until no unit runs or the step's budget
 *     ends (FUTEX_WAIT_BITSET with the absolute deadline); reads DONE (acquire) before it
 *     touches a unit's results. Load phase and teardown wait on each unit's state word.
 * The unit threads come from the RT-thread creator (SCHED_FIFO at the system's priority,
 * prefaulted stack). Each FMU instance is called only from its own thread, from
 * instantiation to free.
 */
#include "master_priv.h"

#include "rtcosim/rtlog.h"
#include "rtcosim/status.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#define RT_SPIN_NS 10000 /* with SCHED_FIFO threads only, as jacobi_workers.c explains */

static int64_t spin_ns(const rtc_system *sys)
{
    return sys->threads.priority > 0 ? RT_SPIN_NS : 0;
}

enum { A_IDLE, A_RUN, A_DONE, A_QUIT };

/* What the unit threads share (sys->master_state). */
typedef struct subst_state {
    _Atomic uint32_t done, waiters; /* steps finished (futex word), its sleepers */
} subst_state;

struct rtc_async_unit {
    rtc_rt_thread *thread;
    _Atomic uint32_t state;   /* futex word */
    _Atomic uint32_t waiters;
    rtc_system *sys;
    subst_state *shared;
    sys_unit *u;
    rtc__unit_job job;
    void *arg;
    rtc_rtlog *log;   /* the dispatcher's rtlog binding for this job */
    int rc;
    int64_t t_start;  /* logical start of the step being run */
    bool late;        /* counted as late for this step already */
};

static void *async_main(void *p)
{
    rtc_async_unit *a = p;
    uint32_t s = A_IDLE;
    for (;;) {
        /* acquire: the inputs and the job written before RUN are visible */
        while ((s = atomic_load_explicit(&a->state, memory_order_acquire)) != A_RUN &&
               s != A_QUIT)
            rtc_rt_wait_change(&a->state, &a->waiters, s, spin_ns(a->sys));
        if (s == A_QUIT)
            return NULL;
        rtc_rtlog_bind_thread(a->log);
        a->rc = a->job(a->sys, a->u, a->arg);
        /* release: the step's results (nxt buffers, rc) are visible with DONE */
        atomic_store_explicit(&a->state, A_DONE, memory_order_seq_cst);
        rtc_rt_wake(&a->state, &a->waiters);
        atomic_fetch_add_explicit(&a->shared->done, 1, memory_order_seq_cst);
        rtc_rt_wake(&a->shared->done, &a->shared->waiters);
    }
}

static void dispatch(rtc_async_unit *a, rtc__unit_job job, void *arg)
{
    a->job = job;
    a->arg = arg;
    a->log = rtc_rtlog_thread();
    atomic_store_explicit(&a->state, A_RUN, memory_order_seq_cst);
    rtc_rt_wake(&a->state, &a->waiters);
}

/* Wait while the unit runs a step (a late one at the end of a run, or the job of
 * run_all); returns the state it left RUN for. */
static uint32_t wait_not_running(rtc_async_unit *a)
{
    uint32_t s;
    while ((s = atomic_load_explicit(&a->state, memory_order_acquire)) == A_RUN)
        rtc_rt_wait_change(&a->state, &a->waiters, A_RUN, spin_ns(a->sys));
    return s;
}

static bool done(rtc_async_unit *a)
{
    return atomic_load_explicit(&a->state, memory_order_acquire) == A_DONE;
}

static int async_start(rtc_system *sys)
{
    subst_state *st = calloc(1, sizeof *st);
    if (!st)
        return RTC_ENOMEM;
    sys->master_state = st;
    for (size_t i = 0; i < sys->n_units; i++) {
        sys_unit *u = &sys->units[i];
        u->as = calloc(1, sizeof *u->as);
        if (!u->as)
            return RTC_ENOMEM;
        *u->as = (rtc_async_unit){.sys = sys, .shared = st, .u = u};
        rtc_rt_thread_opts o = sys->threads;
        o.name = "rtcosim-unit";
        int rc = rtc_rt_thread_start(&o, async_main, u->as, sys->lg, &u->as->thread);
        if (rc != RTC_OK) {
            free(u->as);
            u->as = NULL;
            return rc;
        }
    }
    return RTC_OK;
}

/* Run @p job for every unit on its own thread and wait for all (load phase, teardown). */
static int run_all(rtc_system *sys, rtc__unit_job job, void *arg)
{
    for (size_t i = 0; i < sys->n_units; i++) {
        rtc_async_unit *a = sys->units[i].as;
        wait_not_running(a); /* a late step may still run (the end of a run) */
        dispatch(a, job, arg);
    }
    int rc = RTC_OK;
    for (size_t i = 0; i < sys->n_units; i++) {
        rtc_async_unit *a = sys->units[i].as;
        wait_not_running(a);
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

static void async_stop(rtc_system *sys)
{
    for (size_t i = 0; i < sys->n_units; i++) {
        rtc_async_unit *a = sys->units[i].as;
        if (!a)
            continue;
        wait_not_running(a); /* a late step still running: it must end before its FMU goes */
        atomic_store_explicit(&a->state, A_QUIT, memory_order_seq_cst);
        rtc_rt_wake(&a->state, &a->waiters);
        rtc_rt_thread_join(a->thread);
        free(a);
        sys->units[i].as = NULL;
    }
    free(sys->master_state);
    sys->master_state = NULL;
}

/* The step of one unit on its own thread: inputs were computed by the RT thread. */
static int job_step(rtc_system *sys, sys_unit *u, void *arg)
{
    (void)arg;
    int64_t t = u->as->t_start;
    int rc = rtc__sys_set_inputs(sys, u);
    rtc_step_result res = {0};
    if (rc == RTC_OK)
        rc = u->unit->ops->do_step(u->unit->self, (double)(sys->start_ns + t) / 1e9,
                                   (double)u->step_ns / 1e9, &res);
    if (rc == RTC_OK)
        rtc__master_count_events(u, &res);
    if (rc == RTC_OK && res.outcome != RTC_STEP_DONE) {
        rtc_log(sys->lg, RTC_LOG_WARNING, "%s: the unit ended the simulation in its step from "
                "t=%.9g s", u->name, (double)(sys->start_ns + t) / 1e9);
        rc = RTC_ETERMINATED;
    }
    return rc == RTC_OK ? rtc__sys_fetch(sys, u, true) : rc;
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

static int async_tick(rtc_system *sys, int64_t t)
{
    subst_state *st = sys->master_state;
    start_due(sys, t);
    /* Wait for the running steps, up to the budget (none: wait for all, as Jacobi): a
     * FUTEX_WAIT on the count of finished steps, read before the states so that a step
     * finishing after the look changes the count and ends the wait. */
    for (;;) {
        uint32_t seen = atomic_load_explicit(&st->done, memory_order_seq_cst);
        bool running = false;
        for (size_t i = 0; i < sys->n_units && !running; i++)
            running = sys->units[i].as &&
                      atomic_load_explicit(&sys->units[i].as->state, memory_order_acquire) == A_RUN;
        if (!running ||
            rtc_rt_wait_change_until(&st->done, &st->waiters, seen, spin_ns(sys),
                                     sys->step_deadline_ns) == seen)
            break; /* all finished, or the budget is spent */
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

const rtc__master_ops rtc__master_substitute = {
    .name = "jacobi",
    .threads = RTC__ON_OWN_THREAD,
    .arm = async_start,
    .tick = async_tick,
    .each = run_all,
    .free = async_stop,
};

/* ---- the policy's public side (rtcosim/system.h) ---- */

bool rtc_system_substitutes(const rtc_system *sys)
{
    return sys->substitute;
}

void rtc_system_set_step_deadline(rtc_system *sys, int64_t mono_ns)
{
    sys->step_deadline_ns = mono_ns;
}

uint64_t rtc_system_late_steps(const rtc_system *sys)
{
    return sys->late_steps;
}
