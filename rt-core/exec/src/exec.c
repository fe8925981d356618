/*
 * The real-time executive's RT thread: the pacing loop, the overrun policies and the
 * control requests (rtcosim/exec.h explains the schedule and the policies).
 *
 * DESIGN: run phase rules hold from rtc_exec_is_rt_thread() turning true to the end of
 * the loop — no allocation (every buffer comes from rtc_exec_new), no lock, no stdio,
 * no blocking call but the deadline sleep; text is never formatted here, conditions go
 * to the rtlog ring as numbers. The schedule is integer nanoseconds on CLOCK_MONOTONIC:
 *     deadline(j) = anchor_wall + (j − anchor_j) · period
 * Resume sets (anchor_wall, anchor_j) to (now, j); skip subtracts the skipped periods
 * from anchor_j. Nothing accumulates floating-point error.
 */
#include "exec_priv.h"

#include "rtcosim/nonfinite.h"
#include "rtcosim/profile.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>

static _Thread_local bool on_rt_thread;

bool rtc_exec_is_rt_thread(void)
{
    return on_rt_thread;
}

/* Sleep to deadline − spin, then busy-wait to the deadline (spin 0: plain sleep). */
static void wait_deadline(const rtc_exec *ex, int64_t deadline)
{
    if (ex->o.spin_ns <= 0) {
        rtc_time_sleep_until_ns(deadline);
        return;
    }
    rtc_time_sleep_until_ns(deadline - ex->o.spin_ns);
    while (rtc_time_now_ns() < deadline)
        ;
}

static inline void bump(_Atomic uint64_t *c, uint64_t by)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + by,
                          memory_order_relaxed);
}

static inline void raise_max(_Atomic int64_t *m, int64_t v)
{
    if (v > atomic_load_explicit(m, memory_order_relaxed))
        atomic_store_explicit(m, v, memory_order_relaxed);
}

/* State of the loop, private to the RT thread. */
typedef struct loop {
    int64_t j;                  /* steps executed */
    int64_t anchor_wall, anchor_j;
    uint64_t consec;            /* consecutive overruns */
    uint32_t steps_taken;       /* single steps honoured */
    uint32_t kick_seen;         /* ex->kick before this turn's hook drained commands */
    bool paused;
    rtc_exec_stop stop;
} loop;

/* A unit's do_step begins/ends on this thread (rtc_system_set_unit_timer): the unit a
 * watchdog finds stuck, and the slowest one an overrun is blamed on. Each unit's work per
 * tick — on this thread or a worker's — comes from the system's unit clock (units_done). */
static void unit_timer(void *user, size_t i, bool end)
{
    rtc_exec *ex = user;
    int64_t t = rtc_time_now_ns();
    if (!end) {
        ex->unit_t0 = t;
        atomic_store_explicit(&ex->cur_unit, (long)i, memory_order_relaxed);
        return;
    }
    int64_t d = t - ex->unit_t0;
    if (d > ex->tick_unit_max_ns) {
        ex->tick_unit_max_ns = d;
        ex->tick_unit_max = (long)i;
    }
    atomic_store_explicit(&ex->cur_unit, -1, memory_order_relaxed);
}

void rtc__exec_install_timer(rtc_exec *ex)
{
    if (ex->sys && ex->o.unit_timing) {
        rtc_system_set_unit_timer(ex->sys, unit_timer, ex);
        rtc_system_set_unit_clock(ex->sys, true);
    }
}

/* After a tick's steps joined: each unit's work in it into its histogram. */
static void units_done(rtc_exec *ex)
{
    for (size_t i = 0; i < ex->n_units; i++) {
        int64_t w = rtc_system_unit_work_ns(ex->sys, i);
        if (w >= 0)
            rtc_hist_add(ex->h_unit[i], w);
    }
}

static void end_with(loop *s, rtc_exec *ex, rtc_exec_stop why, int status, int signo)
{
    s->stop = why;
    ex->stop_status = status;
    ex->stop_signal = signo;
    rtc_rtlog_push_ext(ex->log, RTC_RTLOG_STOPPING, (uint32_t)why, s->j, signo ? signo : status,
                       0);
}

/* Tell the system how logical time maps to the wall clock (I/O units timestamp what
 * arrives with it): t_j = j·tick is due at anchor_wall + (j − anchor_j)·period, so logical
 * 0 is at anchor_wall − anchor_j·period. Called whenever the anchor moves; each base is
 * also kept (timing.json "time_bases": what maps a bench's log onto the run's time). */
static void announce_time_base(rtc_exec *ex, const loop *s)
{
    int64_t t0 = s->anchor_wall - s->anchor_j * ex->period_ns;
    if (ex->sys)
        rtc_system_set_time_base(ex->sys, t0, ex->o.rtf);
    uint32_t n = atomic_load_explicit(&ex->n_bases, memory_order_relaxed);
    if (n < RTC__EXEC_TIME_BASES) {
        ex->bases[n].from_tick = s->j;
        ex->bases[n].t0_mono_ns = t0;
    }
    /* release: a reader that sees the count sees the entry */
    atomic_store_explicit(&ex->n_bases, n + 1, memory_order_release);
}

/* Apply the overrun policy after a step that finished after deadline(j+1). */
static void overrun(rtc_exec *ex, loop *s, const int64_t t[4], int64_t next)
{
    int64_t late = t[3] - next;
    int64_t ph[3] = {t[1] - t[0], t[2] - t[1], t[3] - t[2]};
    int phase = ph[1] >= ph[0] && ph[1] >= ph[2] ? RTC_EXEC_PHASE_STEP
                : ph[0] >= ph[2]                 ? RTC_EXEC_PHASE_WAKEUP
                                                 : RTC_EXEC_PHASE_HANDOFF;
    long unit = phase == RTC_EXEC_PHASE_STEP ? ex->tick_unit_max : -1;
    bump(&ex->overruns, 1);
    s->consec++;
    raise_max(&ex->max_late, late);
    if (s->consec > atomic_load_explicit(&ex->max_consec, memory_order_relaxed))
        atomic_store_explicit(&ex->max_consec, s->consec, memory_order_relaxed);
    rtc_rtlog_push_ext(ex->log, RTC_RTLOG_OVERRUN, (uint32_t)phase | (uint32_t)(unit + 1) << 4,
                       s->j, late, unit >= 0 ? ex->tick_unit_max_ns : ph[phase]);
    if (ex->o.overrun == RTC_EXEC_SKIP) {
        /* first deadline after the finish: next + n·period > t_end */
        int64_t n = late / ex->period_ns + 1;
        s->anchor_j -= n;
        bump(&ex->skipped, (uint64_t)n);
        atomic_store_explicit(&ex->gap_ns,
                              atomic_load_explicit(&ex->gap_ns, memory_order_relaxed) +
                                  n * ex->period_ns,
                              memory_order_relaxed);
        rtc_rtlog_push_ext(ex->log, RTC_RTLOG_SKIP, 0, s->j, n, n * ex->period_ns);
        announce_time_base(ex, s);
    } else if (ex->o.overrun == RTC_EXEC_STOP && s->consec >= ex->o.max_overruns) {
        end_with(s, ex, RTC_EXEC_OVERRUNS, RTC_ELIMIT, 0);
    }
}

/* Record the step's telemetry; t = {deadline, woke, stepped, handed off}. */
static void account(rtc_exec *ex, loop *s, const int64_t t[4])
{
    int64_t wake = t[1] - t[0], next = t[0] + ex->period_ns;
    rtc_hist_add(ex->h_wake, wake);
    rtc_hist_add(ex->h_step, t[2] - t[1]);
    rtc_hist_add(ex->h_handoff, t[3] - t[2]);
    rtc_hist_add(ex->h_busy, t[3] - t[1]);
    rtc_ushist_add(ex->lat_us, wake);
    if (ex->o.profile)
        rtc_profile_add(ex->o.profile, s->j, t, ex->sys);
    if (t[3] > next) {
        overrun(ex, s, t, next);
    } else {
        s->consec = 0;
        rtc_hist_add(ex->h_slack, next - t[3]);
    }
}

/* Hand-off: a result row (as `rtcosim run` does: every decimation-th tick) and the trace. */
static int handoff(rtc_exec *ex, loop *s, const int64_t t[3])
{
    rtc_system *sys = ex->sys;
    if (sys && ex->o.recorder && rtc_system_tick_index(sys) % ex->o.decimation == 0) {
        int rc = rtc_recorder_push(ex->o.recorder,
                                   rtc_system_start_ns(sys) + rtc_system_time_ns(sys));
        if (rc == RTC_ELIMIT) {
            bump(&ex->rows_dropped, 1);
            rtc_rtlog_push(ex->log, RTC_RTLOG_ROW_DROPPED, s->j, 0);
        } else if (rc != RTC_OK) {
            return rc;
        }
    }
    if (ex->trace) {
        trace_rec r = {s->j, t[1] - t[0], t[2] - t[1]};
        if (!rtc_ring_push(ex->trace, &r)) {
            bump(&ex->trace_dropped, 1);
            rtc_rtlog_push(ex->log, RTC_RTLOG_TRACE_DROPPED, s->j, 0);
        }
    }
    return RTC_OK;
}

/* Abandoned by a stop that could not wait for this step (exec_priv.h, RT_ABANDONED): the
 * main thread is saving what it can and ending the process; touch nothing, ever. */
static void park_forever(void)
{
    for (;;)
        rtc_time_sleep_until_ns(rtc_time_now_ns() + 1000000000);
}

/* rtc_system_step() under the IN_STEP mark the stop path may abandon. */
static int guarded_step(rtc_exec *ex)
{
    atomic_store_explicit(&ex->rt_phase, RT_IN_STEP, memory_order_release);
    int rc = rtc_system_step(ex->sys);
    int in = RT_IN_STEP;
    if (!atomic_compare_exchange_strong_explicit(&ex->rt_phase, &in, RT_IDLE,
                                                 memory_order_acq_rel, memory_order_acquire))
        park_forever();
    return rc;
}

/* New non-finite values (rtcosim/nonfinite.h) to the rtlog, as numbers; true when the
 * run must stop for them. */
static bool nonfinite_seen(rtc_exec *ex, const loop *s)
{
    size_t n = rtc_nonfinite_count(rtc_system_nonfinite(ex->sys));
    if (n == ex->nf_seen)
        return false;
    for (; ex->nf_seen < n; ex->nf_seen++)
        rtc_rtlog_push(ex->log, EXEC_RTLOG_NONFINITE, s->j, (int64_t)ex->nf_seen);
    return ex->o.stop_on_nonfinite;
}

/* The k the loop hook is given: the system's tick index (the bare loop: steps done). */
static int64_t hook_k(const rtc_exec *ex, const loop *s)
{
    return ex->sys ? rtc_system_tick_index(ex->sys) : s->j;
}

/* One step at deadline t0 (woken at t1); paced = false for single steps while paused. */
static void tick(rtc_exec *ex, loop *s, int64_t deadline, int64_t woke, bool paced)
{
    int64_t t[4] = {deadline, woke, 0, 0};
    /* relaxed: the watchdog only needs a recent timestamp, not ordering with the step */
    atomic_store_explicit(&ex->cur_k, s->j, memory_order_relaxed);
    atomic_store_explicit(&ex->step_begin_ns, woke, memory_order_relaxed);
    ex->tick_unit_max_ns = 0;
    ex->tick_unit_max = -1;
    uint64_t late = 0;
    if (ex->sys && ex->o.overrun == RTC_EXEC_SUBSTITUTE) {
        /* the units must be done a tenth of a period before the next deadline; one that
         * is not is left running and substituted (rtcosim/system.h) */
        rtc_system_set_step_deadline(ex->sys, paced ? deadline + ex->period_ns -
                                                          ex->period_ns / 10 : 0);
        late = rtc_system_late_steps(ex->sys);
    }
    if (ex->o.hook)
        ex->o.hook(ex->o.hook_user, RTC_EXEC_AT_STEP, hook_k(ex, s));
    int rc = ex->sys ? guarded_step(ex) : RTC_OK;
    if (ex->sys && ex->o.overrun == RTC_EXEC_SUBSTITUTE && rtc_system_late_steps(ex->sys) > late)
        rtc_rtlog_push(ex->log, RTC_RTLOG_SUBSTITUTE, s->j,
                       (int64_t)rtc_system_late_steps(ex->sys));
    t[2] = rtc_time_now_ns();
    if (rc == RTC_OK && ex->n_units)
        units_done(ex); /* bookkeeping: counted in the hand-off */
    if (rc == RTC_OK)
        rc = handoff(ex, s, t);
    t[3] = rtc_time_now_ns();
    atomic_store_explicit(&ex->step_begin_ns, 0, memory_order_relaxed);
    if (rc != RTC_OK) {
        if (rc != RTC_ETERMINATED)
            rtc_rtlog_push(ex->log, RTC_RTLOG_STEP_FAILED, s->j, rc);
        end_with(s, ex, rc == RTC_ETERMINATED ? RTC_EXEC_END : RTC_EXEC_ERROR, rc, 0);
        return;
    }
    bump(&ex->steps, 1);
    atomic_store_explicit(&ex->sim_ns,
                          ex->sys ? rtc_system_time_ns(ex->sys) : (s->j + 1) * ex->period_ns,
                          memory_order_relaxed);
    if (paced)
        account(ex, s, t);
    s->j++;
    if (ex->o.hook)
        ex->o.hook(ex->o.hook_user, RTC_EXEC_AT_STEPPED, hook_k(ex, s));
    if (ex->sys && nonfinite_seen(ex, s))
        end_with(s, ex, RTC_EXEC_NONFINITE, RTC_OK, 0);
}

/* Boundary checks: a stop request, a link lost past its policy, or the end of the run. */
static bool at_end(rtc_exec *ex, loop *s)
{
    if (s->stop != RTC_EXEC_RUNNING)
        return true;
    int req = atomic_load_explicit(&ex->ctl_stop, memory_order_acquire);
    if (req) {
        end_with(s, ex, (rtc_exec_stop)(req & 0xff), RTC_OK, req >> 8);
        return true;
    }
    long unit;
    int64_t lost;
    if (ex->n_links && rtc__exec_links_lost(ex, rtc_time_now_ns(), &unit, &lost)) {
        ex->stop_unit = unit; /* (read by the main thread after the join) */
        ex->stop_lost_ns = lost;
        end_with(s, ex, RTC_EXEC_LINK, RTC_EIO, 0);
        return true;
    }
    bool done = ex->o.max_steps > 0 && s->j >= ex->o.max_steps;
    if (ex->sys)
        done |= rtc_system_finished(ex->sys);
    if (done)
        end_with(s, ex, RTC_EXEC_END, RTC_OK, 0);
    return done;
}

/* Paused: honour single steps, otherwise nap 1 ms. Returns true while still paused. */
static bool pause_point(rtc_exec *ex, loop *s)
{
    bool want = atomic_load_explicit(&ex->ctl_pause, memory_order_acquire);
    if (want && !s->paused) {
        s->paused = true;
        atomic_store_explicit(&ex->paused, true, memory_order_release);
        rtc_rtlog_push(ex->log, RTC_RTLOG_PAUSED, s->j, 0);
    }
    if (!want && s->paused) {
        /* re-anchor: the first step after a resume is due now, the rest follow at the
         * period — the time spent paused is not owed (no catch-up burst) */
        s->paused = false;
        s->anchor_wall = rtc_time_now_ns();
        s->anchor_j = s->j;
        announce_time_base(ex, s);
        atomic_store_explicit(&ex->paused, false, memory_order_release);
        rtc_rtlog_push(ex->log, RTC_RTLOG_RESUMED, s->j, 0);
    }
    if (!s->paused)
        return false;
    uint32_t asked = atomic_load_explicit(&ex->ctl_step, memory_order_acquire);
    if (asked != s->steps_taken) {
        s->steps_taken++;
        rtc_rtlog_push(ex->log, RTC_RTLOG_SINGLE_STEP, s->j, 0);
        int64_t now = rtc_time_now_ns();
        tick(ex, s, now, now, false);
    } else { /* nap 1 ms, or less when a command comes (rtc_exec_kick) */
        rtc_rt_wait_change_until(&ex->kick, &ex->kick_waiters, s->kick_seen, 0,
                                 rtc_time_now_ns() + 1000000);
    }
    return true;
}

static void run_loop(rtc_exec *ex)
{
    /* logical 0: the instant the nodes of a distributed run agreed on, else a period on */
    loop s = {.anchor_wall = ex->t0_agreed ? ex->t0_agreed : rtc_time_now_ns() + ex->period_ns};
    announce_time_base(ex, &s);
    if (ex->sys && ex->o.recorder &&
        rtc_recorder_push(ex->o.recorder, rtc_system_start_ns(ex->sys)) == RTC_ELIMIT)
        bump(&ex->rows_dropped, 1);
    while (!at_end(ex, &s)) {
        /* acquire: read before the hook drains, so a command queued after the drain
         * changes it and the nap below ends at once */
        s.kick_seen = atomic_load_explicit(&ex->kick, memory_order_acquire);
        if (ex->o.hook) /* operator commands take effect here, before the pause check */
            ex->o.hook(ex->o.hook_user, RTC_EXEC_AT_BOUNDARY, hook_k(ex, &s));
        if (pause_point(ex, &s))
            continue;
        int64_t deadline = s.anchor_wall + (s.j - s.anchor_j) * ex->period_ns;
        wait_deadline(ex, deadline);
        tick(ex, &s, deadline, rtc_time_now_ns(), true);
    }
    atomic_store_explicit(&ex->stop, s.stop, memory_order_release);
}

void *rtc__exec_rt_main(void *arg)
{
    rtc_exec *ex = arg;
    rtc__exec_block_signals(); /* the stack was prefaulted by the thread creator */
    (void)rtc_time_now_ns(); /* bind the vDSO call before the run */
    pthread_barrier_wait(&ex->start);
    struct rusage r0, r1;
    bool ru = getrusage(RUSAGE_THREAD, &r0) == 0;
    on_rt_thread = true;
    run_loop(ex);
    on_rt_thread = false;
    /* release: the main thread that sees rt_done sees the loop's outcome */
    atomic_store_explicit(&ex->rt_done, true, memory_order_release);
    sem_post(&ex->wake);
    if (ru && getrusage(RUSAGE_THREAD, &r1) == 0) {
        atomic_store_explicit(&ex->minflt, r1.ru_minflt - r0.ru_minflt, memory_order_relaxed);
        atomic_store_explicit(&ex->majflt, r1.ru_majflt - r0.ru_majflt, memory_order_relaxed);
    }
    return NULL;
}

/* ---- control requests (any thread) ---- */

void rtc_exec_pause(rtc_exec *ex)
{
    atomic_store_explicit(&ex->ctl_pause, true, memory_order_release);
}

void rtc_exec_resume(rtc_exec *ex)
{
    atomic_store_explicit(&ex->ctl_pause, false, memory_order_release);
}

void rtc_exec_kick(rtc_exec *ex)
{
    /* release: what the caller queued before is visible to the woken loop's hook */
    atomic_fetch_add_explicit(&ex->kick, 1, memory_order_release);
    rtc_rt_wake(&ex->kick, &ex->kick_waiters);
}

void rtc_exec_single_step(rtc_exec *ex)
{
    atomic_fetch_add_explicit(&ex->ctl_step, 1, memory_order_acq_rel);
}

void rtc_exec_request_stop(rtc_exec *ex)
{
    int none = 0;
    /* the first request wins (a signal after a request does not rewrite the reason) */
    atomic_compare_exchange_strong_explicit(&ex->ctl_stop, &none,
                                            STOP_REQ(RTC_EXEC_REQUEST, 0),
                                            memory_order_acq_rel, memory_order_relaxed);
    sem_post(&ex->wake); /* the main thread starts the grace */
}

void rtc_exec_signal(rtc_exec *ex, int signo)
{
    int none = 0;
    /* lock-free atomic CAS: async-signal-safe */
    atomic_compare_exchange_strong_explicit(&ex->ctl_stop, &none,
                                            STOP_REQ(RTC_EXEC_SIGNAL, signo),
                                            memory_order_acq_rel, memory_order_relaxed);
    sem_post(&ex->wake); /* async-signal-safe (POSIX) */
}

bool rtc_exec_abandoned(const rtc_exec *ex, long *unit)
{
    bool a = atomic_load_explicit(&((rtc_exec *)ex)->rt_phase, memory_order_acquire) ==
                 RT_ABANDONED ||
             rtc_exec_stop_reason(ex) == RTC_EXEC_WATCHDOG;
    if (unit)
        *unit = a ? ex->hung_unit : -1;
    return a;
}

void rtc_exec_position(const rtc_exec *ex, int64_t *tick, int64_t *sim_ns)
{
    /* relaxed: single-writer counters, each read whole */
    *tick = (int64_t)atomic_load_explicit(&ex->steps, memory_order_relaxed);
    *sim_ns = atomic_load_explicit(&ex->sim_ns, memory_order_relaxed);
}

bool rtc_exec_stop_requested(const rtc_exec *ex)
{
    return atomic_load_explicit(&((rtc_exec *)ex)->ctl_stop, memory_order_acquire) != 0;
}

bool rtc_exec_is_paused(const rtc_exec *ex)
{
    return atomic_load_explicit(&ex->paused, memory_order_acquire);
}

rtc_exec_stop rtc_exec_stop_reason(const rtc_exec *ex)
{
    return (rtc_exec_stop)atomic_load_explicit(&ex->stop, memory_order_acquire);
}

void rtc__exec_apply_safe(rtc_exec *ex)
{
    /* once per run, whichever thread gets here first (main or watchdog) */
    if (atomic_flag_test_and_set(&ex->safe_done))
        return;
    for (size_t i = 0; i < ex->n_safe; i++)
        ex->safe[i](ex->safe_user[i]);
}
