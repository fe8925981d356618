/*
 * Master algorithms: the table of strategies, picking and arming a row, and the frame of
 * one base tick (rtcosim/system.h, master_priv.h; stepping one unit is in step_unit.c).
 *
 * Every algorithm is the same loop over the units that start a step at t = k·tick; they
 * differ only in when a unit's inputs are taken:
 *   Jacobi        at t, from what is visible at t (all units as of the last exchange);
 *   Gauss-Seidel  at t + h (the end of the unit's step), in dependency order, so units
 *                 earlier in the order pass their fresh outputs on;
 *   Parallel Fast only at synchronization points (pfast.h), from the partners'
 *                 outputs at their own qualifying step end; otherwise inputs are held.
 * and in which threads call the units (master_priv.h).
 * No allocation, no lock, no text formatting on the tick path: it runs on the real-time
 * thread. Failures are logged once, then the run stops; in a real-time run the thread is
 * bound to the executive's rtlog, so rtc_log() here only queues the format and its numbers
 * and strings (rtcosim/rtlog.h) — arguments must be plain values (no text made beforehand).
 */
#include "master_priv.h"

#include "rtcosim/io_unit.h"
#include "rtcosim/nonfinite.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <stdio.h>
#include <string.h>

/* Every strategy, one row each, defined in its own file. The algorithms first appear in the
 * order of the rtc_master constants (the first is the default); an algorithm's further
 * rows (other threads) may follow anywhere. */
extern const rtc__master_ops rtc__master_jacobi, rtc__master_gauss_seidel,
    rtc__master_parallel_fast, rtc__master_jacobi_workers, rtc__master_substitute;
const rtc__master_ops *const rtc__masters[] = {
    &rtc__master_jacobi,
    &rtc__master_gauss_seidel,
    &rtc__master_parallel_fast,
    &rtc__master_jacobi_workers,
    &rtc__master_substitute,
};
const size_t rtc__n_masters = sizeof rtc__masters / sizeof rtc__masters[0];

/* Is row i the first row of its algorithm? */
static bool first_of_name(size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (!strcmp(rtc__masters[j]->name, rtc__masters[i]->name))
            return false;
    return true;
}

const rtc__master_ops *rtc__master_algorithm(rtc_master m)
{
    size_t n = 0;
    for (size_t i = 0; i < rtc__n_masters; i++)
        if (first_of_name(i) && n++ == (size_t)m)
            return rtc__masters[i];
    return NULL;
}

size_t rtc_master_count(void)
{
    size_t n = 0;
    for (size_t i = 0; i < rtc__n_masters; i++)
        n += first_of_name(i);
    return n;
}

const char *rtc_master_name(rtc_master m)
{
    const rtc__master_ops *row = rtc__master_algorithm(m);
    return row ? row->name : "?";
}

int rtc_master_parse(const char *name, rtc_master *out)
{
    for (size_t m = 0; name && m < rtc_master_count(); m++) {
        if (!strcmp(name, rtc_master_name((rtc_master)m))) {
            *out = (rtc_master)m;
            return RTC_OK;
        }
    }
    return RTC_EPARSE;
}

/* ---- picking the row ---- */

static rtc__master_threads threads_of(const rtc_system *sys)
{
    return sys->substitute ? RTC__ON_OWN_THREAD : sys->n_workers ? RTC__ON_WORKERS
                                                                 : RTC__ON_STEPPER;
}

static const rtc__master_ops *find_row(const char *name, rtc__master_threads threads)
{
    for (size_t i = 0; i < rtc__n_masters; i++)
        if (rtc__masters[i]->threads == threads && !strcmp(rtc__masters[i]->name, name))
            return rtc__masters[i];
    return NULL;
}

/* "jacobi" or "jacobi or x": the algorithms that have a row running on @p threads. */
static const char *names_on(rtc__master_threads threads, char *buf, size_t cap)
{
    size_t n = 0, len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < rtc__n_masters; i++)
        if (rtc__masters[i]->threads == threads && len < cap)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", n++ ? " or " : "",
                                    rtc__masters[i]->name);
    return buf;
}

int rtc__master_check(rtc_system *sys)
{
    rtc__master_threads th = threads_of(sys);
    const char *name = rtc_master_name(sys->algorithm);
    /* strong coupling saves and restores states on the stepping thread; a unit is called
     * from one thread, so the thread options exclude each other */
    if (find_row(name, th) && (th == RTC__ON_STEPPER || !sys->iterate) &&
        !(sys->substitute && sys->n_workers))
        return RTC_OK;
    char names[128];
    names_on(th, names, sizeof names);
    if (th == RTC__ON_OWN_THREAD)
        rtc_log(sys->lg, RTC_LOG_ERROR, "%s: the substitute overrun policy steps every unit "
                "on its own thread: it needs the %s master, without --iterate or --workers",
                sys->path, names);
    else if (th == RTC__ON_WORKERS)
        rtc_log(sys->lg, RTC_LOG_ERROR, "%s: parallel stepping on worker threads needs the "
                "%s master without --iterate (units then step independently)", sys->path,
                names);
    else
        rtc_log(sys->lg, RTC_LOG_ERROR, "%s: no master algorithm number %d (there are %zu)",
                sys->path, (int)sys->algorithm, rtc_master_count());
    return RTC_EINVAL;
}

/* The substitute policy is a thread option: valid when a row runs the algorithm with it. */
int rtc_system_use_substitute(rtc_system *sys)
{
    if (sys->initialized)
        return RTC_ESTATE;
    sys->substitute = true;
    int rc = rtc__master_check(sys);
    sys->substitute = rc == RTC_OK;
    return rc;
}

int rtc__master_arm(rtc_system *sys)
{
    sys->master = find_row(rtc_master_name(sys->algorithm), threads_of(sys));
    if (!sys->master)
        return rtc__master_check(sys); /* validated at load: cannot happen */
    int rc = sys->master->arm ? sys->master->arm(sys) : RTC_OK;
    if (rc != RTC_OK)
        rtc__master_free(sys);
    return rc;
}

int rtc__master_each(rtc_system *sys, rtc__unit_job job, void *arg)
{
    if (sys->master && sys->master->each)
        return sys->master->each(sys, job, arg);
    int rc = RTC_OK;
    for (size_t i = 0; i < sys->n_units && rc == RTC_OK; i++)
        rc = job(sys, &sys->units[i], arg);
    return rc;
}

void rtc__master_free(rtc_system *sys)
{
    if (sys->master && sys->master->free)
        sys->master->free(sys);
    sys->master = NULL;
}

/* ---- the frame of one tick ---- */

/* What goes out through a lock-step I/O unit at t: what is visible at t, set as soon as it
 * is known (before its refresh hands it over and waits for the peer's). */
static int set_lockstep(rtc_system *sys, sys_unit *u, int64_t t)
{
    rtc__sys_inputs_at(sys, u, t);
    return rtc__sys_set_inputs(sys, u);
}

/* I/O units first: what arrived from outside becomes their outputs at t (estimated at t),
 * and what goes out is taken from what is visible at t. They never step. A lock-step unit
 * (rtc_io_unit_lockstep: a node bridge in a fast run) got its values for t at the end of
 * the previous tick, or here at tick 0, since its refresh waits for the peer's. */
static int refresh_io(rtc_system *sys, int64_t t)
{
    for (size_t i = 0; i < sys->n_units; i++) {
        sys_unit *u = &sys->units[i];
        if (!u->io)
            continue;
        int64_t t0 = sys->unit_clock ? rtc_time_now_ns() : 0;
        bool lockstep = rtc_io_unit_lockstep(u->unit);
        int rc = lockstep && sys->k == 0 ? set_lockstep(sys, u, t) : RTC_OK;
        if (rc == RTC_OK)
            rc = u->unit->ops->refresh(u->unit->self, t);
        if (sys->unit_clock)
            rtc__master_add_work(u, rtc_time_now_ns() - t0);
        if (rc == RTC_OK)
            rc = rtc__sys_fetch(sys, u, false);
        u->t_cur_ns = t;
        if (!lockstep)
            rtc__sys_inputs_at(sys, u, t);
        if (rc == RTC_OK && !lockstep)
            rc = rtc__sys_set_inputs(sys, u);
        if (rc != RTC_OK)
            return rc;
    }
    return RTC_OK;
}

/* After a tick: the values of t_(k+1) for the lock-step I/O units (the last tick's go out
 * when the unit terminates), and for one refreshed early (rtc_io_unit_lockstep_early) at
 * once its refresh of t_(k+1): round k+1 out, the peer's in, so that the row of t_(k+1)
 * shows what the peer made for t_(k+1), as it shows a unit's inside the process. */
static int stage_lockstep(rtc_system *sys, int64_t t)
{
    int rc = RTC_OK;
    for (size_t i = 0; i < sys->n_units && rc == RTC_OK; i++) {
        sys_unit *u = &sys->units[i];
        if (!u->io || !rtc_io_unit_lockstep(u->unit))
            continue;
        rc = set_lockstep(sys, u, t);
        if (rc == RTC_OK && rtc_io_unit_lockstep_early(u->unit))
            rc = u->unit->ops->refresh(u->unit->self, t);
        if (rc == RTC_OK && rtc_io_unit_lockstep_early(u->unit))
            rc = rtc__sys_fetch(sys, u, false);
    }
    return rc;
}

/* After the tick's steps joined, at the new k, one pass over the units: the tick's
 * superdense index takes in the event iterations of the units (FMI 3 event mode) that
 * stepped in it — substitute-policy units step on their own clocks and are left out
 * (counted per unit only) — every unit whose next outputs are due now (k·tick, or where
 * a shorter last step or a unit's end left the system) makes them
 * current (system_priv.h: one flip of its halves), and the outputs that became current
 * are checked for non-finite values, in the units' order. */
__attribute__((always_inline)) static inline void end_tick(rtc_system *sys) /* (as tick) */
{
    int64_t t = rtc__sys_now(sys);
    for (size_t i = 0; i < sys->n_units; i++) {
        sys_unit *u = &sys->units[i];
        if (u->microsteps_tick && !u->as) {
            if (u->microsteps_tick > sys->microstep)
                sys->microstep = u->microsteps_tick;
            u->microsteps_tick = 0;
        }
        if (u->has_nxt && u->t_nxt_ns <= t) {
            u->cur ^= 1;
            u->t_cur_ns = u->t_nxt_ns;
            u->has_nxt = false;
            u->nf_dirty = true;
        }
        /* made current now, or refreshed (I/O units), or at the start; a unit whose
         * outputs nobody reads has none to check */
        if (u->nf_dirty && u->n_get)
            rtc__sys_nonfinite_check(sys, u);
    }
}

/* After a tick that returned RTC_ETERMINATED: the earliest time inside the tick at which a
 * unit ended the simulation (its outputs there are in its nxt), or -1. */
static int64_t ended_at(const rtc_system *sys, int64_t t)
{
    int64_t end = -1;
    for (size_t i = 0; i < sys->n_units; i++) {
        const sys_unit *u = &sys->units[i];
        if (u->ended && u->ended_ns > t && (end < 0 || u->ended_ns < end))
            end = u->ended_ns;
    }
    return end;
}

/* The tick at @p t returned @p rc (not RTC_OK): mark a failed call, and when a unit ended
 * the simulation inside the tick, let the system stand where it did (RTC_OK: the frame
 * goes on); else the tick's error. */
static int tick_failed(rtc_system *sys, int64_t t, int rc)
{
    if (rc != RTC_ETERMINATED) {
        sys->failed = true;
        return rc;
    }
    int64_t end = ended_at(sys, t);
    if (end < 0)
        return rc;
    sys->has_t_end = true;
    sys->t_end_ns = end;
    sys->unit_ended = true;
    return RTC_OK;
}

/* One base tick: inline in rtc__master_tick and in rtc__master_ticks' loop, always (the
 * compiler would keep one copy for the two and pay a call and its register saves per
 * tick). */
__attribute__((always_inline)) static inline int tick(rtc_system *sys)
{
    int64_t t = rtc__sys_now(sys);
    if (t >= sys->stop_ns)
        return RTC_ESTATE;
    int rc;
    sys->microstep = 0;
    for (size_t i = 0; sys->unit_clock && i < sys->n_units; i++)
        sys->units[i].work_ns = -1; /* before any job is handed to a worker */
    if (sys->has_io && (rc = refresh_io(sys, t)) != RTC_OK)
        return rc;
    rc = sys->master->tick(sys, t);
    if (rc != RTC_OK && (rc = tick_failed(sys, t, rc)) != RTC_OK)
        return rc;
    sys->k++;
    /* a unit's end inside the tick (tick_failed), or a shorter last step (short_last): the
     * system stands there, not at k·tick; the next step returns RTC_ETERMINATED / finds
     * it finished */
    if (!sys->has_t_end && sys->k * sys->tick_ns > sys->stop_ns) {
        sys->has_t_end = true;
        sys->t_end_ns = sys->stop_ns;
    }
    end_tick(sys);
    return sys->has_io ? stage_lockstep(sys, sys->k * sys->tick_ns) : RTC_OK;
}

int rtc__master_tick(rtc_system *sys)
{
    return tick(sys);
}

/* Whether the check of the last tick found a value non-finite for the first time (the
 * entries are looked up only after a check found one: a value that stays NaN is no news). */
static bool new_nonfinite(const rtc_system *sys, uint64_t *hits, size_t n0)
{
    if (sys->nonfinite_hits == *hits)
        return false;
    *hits = sys->nonfinite_hits;
    return rtc_nonfinite_count(sys->nonfinite) != n0;
}

int rtc__master_ticks(rtc_system *sys, int64_t n)
{
    uint64_t hits = sys->nonfinite_hits;
    size_t n0 = rtc_nonfinite_count(sys->nonfinite);
    int rc = RTC_OK;
    for (int64_t i = 0; i < n && rc == RTC_OK; i++) {
        rc = tick(sys);
        /* the caller looks at each of these before the next tick: a unit's end or the
         * shorter last step (has_t_end), new non-finite values, the stop */
        if (sys->has_t_end || new_nonfinite(sys, &hits, n0) || rtc__sys_finished(sys))
            break;
    }
    return rc;
}
