/*
 * Master algorithms: what happens in one base tick (rtcosim/system.h).
 *
 * Every algorithm is the same loop over the units that start a step at t = k·tick; they
 * differ only in when a unit's inputs are taken:
 *   Jacobi        at t, from what is visible at t (all units as of the last exchange);
 *   Gauss-Seidel  at t + h (the end of the unit's step), in dependency order, so units
 *                 earlier in the order pass their fresh outputs on;
 *   Parallel Fast only at synchronization points (pfast.h), from the partners'
 *                 outputs at their own qualifying step end; otherwise inputs are held.
 * No allocation, no lock, no text formatting: this runs on the real-time thread. Failures
 * are logged once, then the run stops; in a real-time run the thread is bound to the
 * executive's rtlog, so rtc_log() here only queues the format and its numbers and strings
 * (rtcosim/rtlog.h) — arguments must be plain values (no text made here beforehand).
 */
#include "../system_priv.h"

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <math.h>
#include <string.h>

static bool due(const rtc_system *sys, const sys_unit *u, int64_t t)
{
    return !u->io && t % u->step_ns == 0 && t + u->step_ns <= sys->stop_ns;
}

/* I/O units first: what arrived from outside becomes their outputs at t (estimated at t),
 * and what goes out is taken from what is visible at t. They never step. */
static int refresh_io(rtc_system *sys, int64_t t)
{
    for (size_t i = 0; i < sys->n_units; i++) {
        sys_unit *u = &sys->units[i];
        if (!u->io)
            continue;
        int rc = u->unit->ops->refresh(u->unit->self, t);
        if (rc == RTC_OK)
            rc = rtc__sys_fetch(sys, u, false);
        u->t_cur_ns = t;
        rtc__sys_inputs_at(sys, u, t);
        if (rc == RTC_OK)
            rc = rtc__sys_set_inputs(sys, u);
        if (rc != RTC_OK)
            return rc;
    }
    return RTC_OK;
}

/* An input whose estimator reported FAULT stops the run (the safe-state path). */
static int check_faults(rtc_system *sys, const sys_unit *u)
{
    for (size_t i = 0; i < u->n_links_in; i++) {
        const sys_link *l = &sys->links[u->links_in[i]];
        if (l->fault) {
            rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: %s: input stale beyond its limit (estimator "
                    "fault policy): stopping", l->file, l->line, l->desc);
            return RTC_ESTALE;
        }
    }
    return RTC_OK;
}

void rtc__sys_count_events(sys_unit *u, const rtc_step_result *res)
{
    u->events += res->events;
    u->early_returns += res->early_returns;
    if (res->microsteps > u->microsteps_tick)
        u->microsteps_tick = res->microsteps;
    if (res->microsteps > u->microsteps_max)
        u->microsteps_max = res->microsteps;
}

/* The tick's superdense index also counts the event iterations of units (FMI 3 event
 * mode) that stepped in it; substitute-policy units step on their own clocks and are
 * left out (counted per unit only). Runs after the tick's steps have joined. */
static void fold_microsteps(rtc_system *sys)
{
    for (size_t i = 0; i < sys->n_units; i++) {
        sys_unit *u = &sys->units[i];
        if (u->as)
            continue;
        if (u->microsteps_tick > sys->microstep)
            sys->microstep = u->microsteps_tick;
        u->microsteps_tick = 0;
    }
}

/* Set inputs, step [t, t + h], fetch the outputs for t + h into nxt. */
static int step_unit(rtc_system *sys, sys_unit *u, int64_t t)
{
    int rc = check_faults(sys, u);
    if (rc == RTC_OK)
        rc = rtc__sys_set_inputs(sys, u);
    if (rc != RTC_OK)
        return rc;
    rtc_step_result res = {0};
    size_t idx = (size_t)(u - sys->units);
    /* the timer's bookkeeping belongs to the RT thread: units a worker steps are not
     * timed one by one (their time is in the coordinator's wait) */
    bool timed = sys->unit_timer && (!sys->workers || u->owner == 0);
    if (timed)
        sys->unit_timer(sys->unit_timer_user, idx, false);
    rc = u->unit->ops->do_step(u->unit->self, rtc_time_to_s(sys->start_ns + t),
                               rtc_time_to_s(u->step_ns), &res);
    if (timed)
        sys->unit_timer(sys->unit_timer_user, idx, true);
    if (rc != RTC_OK)
        return rc;
    rtc__sys_count_events(u, &res);
    if (res.outcome != RTC_STEP_DONE) {
        rtc_log(sys->lg, RTC_LOG_WARNING, "%s: %s the step from t=%.9g s; stopping the system "
                "there",
                u->name,
                res.outcome == RTC_STEP_TERMINATE ? "requested termination during"
                : res.outcome == RTC_STEP_EARLY   ? "returned early from"
                                                  : "discarded",
                rtc_time_to_s(sys->start_ns + t));
        return RTC_ETERMINATED;
    }
    rc = rtc__sys_fetch(sys, u, true);
    u->t_nxt_ns = t + u->step_ns;
    u->has_nxt = true;
    return rc;
}

/* ---- strong coupling: iterate the units of an algebraic loop to a fixed point ---- */

/* Largest change of a Float64 output between two iterates, relative to its size. */
static double change(const sys_unit *u, const double *prev)
{
    const obs_group *g = &u->obs[RTC_TYPE_FLOAT64];
    const double *now = g->nxt;
    double worst = 0;
    for (size_t i = 0; i < g->n_values; i++) {
        double d = fabs(now[i] - prev[i]) / (1.0 + fabs(now[i]));
        worst = d > worst ? d : worst;
    }
    return worst;
}

static int iterate_loop(rtc_system *sys, int64_t t)
{
    int rc = RTC_OK;
    for (size_t i = 0; rc == RTC_OK && i < sys->n_units; i++)
        if (sys->units[i].in_loop && due(sys, &sys->units[i], t))
            rc = sys->units[i].unit->ops->get_state(sys->units[i].unit->self,
                                                    &sys->units[i].state);
    unsigned it = 0;
    double worst = INFINITY;
    for (; rc == RTC_OK && it < sys->max_iter && worst > sys->tol; it++) {
        worst = 0;
        for (size_t j = 0; rc == RTC_OK && j < sys->n_units; j++) {
            sys_unit *u = &sys->units[sys->order[j]];
            if (!u->in_loop || !due(sys, u, t))
                continue;
            double *prev = u->iter_prev;
            memcpy(prev, u->obs[RTC_TYPE_FLOAT64].nxt,
                   u->obs[RTC_TYPE_FLOAT64].n_values * sizeof(double));
            if (it > 0)
                rc = u->unit->ops->set_state(u->unit->self, u->state);
            /* The end-of-step query sees the other loop members' latest iterate. */
            rtc__sys_inputs_at(sys, u, t + u->step_ns);
            if (rc == RTC_OK)
                rc = step_unit(sys, u, t);
            double c = it > 0 ? change(u, prev) : INFINITY;
            worst = c > worst ? c : worst;
        }
    }
    sys->coupling.iterated_steps++;
    sys->coupling.iterations += it;
    sys->microstep = it; /* each iteration is one microstep at the same logical time */
    if (rc == RTC_OK && worst > sys->tol && sys->coupling.not_converged++ == 0)
        rtc_log(sys->lg, RTC_LOG_WARNING,
                "strong coupling did not converge within %u iterations at t=%.9g s "
                "(relative change %.3g > %.3g); reported once, counted in the summary",
                sys->max_iter, (double)(sys->start_ns + t) / 1e9, worst, sys->tol);
    return rc;
}

/* ---- Jacobi on worker threads: inputs first (they read only "cur" buffers), then every
 * owner steps its due units in parallel (writing only their own "nxt" buffers) ---- */

static int job_tick(rtc_system *sys, sys_unit *u, void *arg)
{
    return u->due_now ? step_unit(sys, u, *(const int64_t *)arg) : RTC_OK;
}

static int parallel_jacobi(rtc_system *sys, int64_t t)
{
    for (size_t i = 0; i < sys->n_units; i++) {
        sys_unit *u = &sys->units[i];
        u->due_now = due(sys, u, t);
        if (u->due_now)
            rtc__sys_inputs_at(sys, u, t);
    }
    return rtc__workers_run(sys, job_tick, &t);
}

/* ---- Jacobi and Gauss-Seidel ---- */

static int sequential(rtc_system *sys, int64_t t, bool gauss_seidel)
{
    bool iterated = false;
    for (size_t j = 0; j < sys->n_units; j++) {
        sys_unit *u = &sys->units[gauss_seidel ? sys->order[j] : j];
        if (!due(sys, u, t) || (u->in_loop && iterated))
            continue;
        int rc;
        if (u->in_loop) {
            /* the loop's members step together where the first of them comes in the order */
            iterated = true;
            rc = iterate_loop(sys, t);
        } else {
            rtc__sys_inputs_at(sys, u, gauss_seidel ? t + u->step_ns : t);
            rc = step_unit(sys, u, t);
        }
        if (rc != RTC_OK)
            return rc;
    }
    return RTC_OK;
}

/* ---- Parallel Fast ---- */

/* Slot of unit u's snapshot for interval zeta, or -1. */
static int snap_slot(const sys_unit *u, int64_t zeta)
{
    return u->snap_zeta[0] == zeta ? 0 : u->snap_zeta[1] == zeta ? 1 : -1;
}

/* Keep the outputs of a step whose end qualifies in its interval (Eq. 2 of the paper): at
 * most two intervals are open at once, so the older slot is reused. */
static void take_snapshot(sys_unit *u, int64_t t_start, int64_t H)
{
    int64_t end = t_start + u->step_ns, zeta = end / H;
    if (!(t_start < zeta * H))
        return; /* an earlier step of this unit already ended in this interval */
    int slot = u->snap_zeta[0] <= u->snap_zeta[1] ? 0 : 1;
    for (int ty = 0; ty < RTC_TYPE_COUNT; ty++)
        if (u->snap[slot][ty])
            memcpy(u->snap[slot][ty], u->obs[ty].nxt, u->obs[ty].n_values * rtc_type_size(ty));
    u->snap_zeta[slot] = zeta;
}

/* Does unit u's step ending at t_end >= zeta·H qualify? (n−1)h < ζH ≤ nh < (ζ+1)H */
static bool qualifies(const sys_unit *u, int64_t zeta, int64_t H)
{
    int64_t n = (zeta * H + u->step_ns - 1) / u->step_ns; /* first step end >= ζH */
    return n >= 1 && n * u->step_ns < (zeta + 1) * H;
}

static void report_interval(rtc_system *sys, rtc_sync_event *ev)
{
    if (sys->sync_hook && ev->units)
        sys->sync_hook(sys->sync_user, ev);
    memset(ev, 0, sizeof *ev);
}

static int parallel_fast(rtc_system *sys, int64_t t)
{
    rtc_sync_event *ev = &sys->pf_event;
    int64_t H = sys->sync_ns, zeta = t / H;
    if (t > 0 && t % H == 0)
        report_interval(sys, ev);
    for (size_t i = 0; i < sys->n_units; i++) {
        sys_unit *u = &sys->units[i];
        if (!due(sys, u, t))
            continue;
        bool sync = t > 0 && t - u->step_ns < zeta * H; /* this start is a qualifying end */
        for (size_t l = 0; sync && l < u->n_links_in; l++) {
            sys_link *lk = &sys->links[u->links_in[l]];
            sys_unit *s = &sys->units[lk->src];
            int slot = qualifies(s, zeta, H) ? snap_slot(s, zeta) : -1;
            if (slot >= 0)
                rtc__sys_link_apply(sys, lk, t, s->snap[slot][lk->src_type]);
        }
        if (sync && i < 64) {
            ev->zeta = zeta;
            ev->units |= UINT64_C(1) << i;
            ev->t_ns[i] = t;
        }
        int rc = step_unit(sys, u, t);
        if (rc != RTC_OK)
            return rc;
        take_snapshot(u, t, H);
    }
    return RTC_OK;
}

int rtc__master_tick(rtc_system *sys)
{
    int64_t t = sys->k * sys->tick_ns;
    if (t >= sys->stop_ns)
        return RTC_ESTATE;
    int rc;
    sys->microstep = 0;
    if (sys->has_io && (rc = refresh_io(sys, t)) != RTC_OK)
        return rc;
    if (sys->algorithm == RTC_MASTER_PARALLEL_FAST)
        rc = parallel_fast(sys, t);
    else if (sys->substitute)
        rc = rtc__async_tick(sys, t);
    else if (sys->workers)
        rc = parallel_jacobi(sys, t);
    else
        rc = sequential(sys, t, sys->algorithm == RTC_MASTER_GAUSS_SEIDEL);
    if (rc != RTC_OK && rc != RTC_ETERMINATED)
        sys->failed = true;
    if (rc != RTC_OK)
        return rc;
    fold_microsteps(sys);
    sys->k++;
    rtc__sys_promote(sys);
    if (sys->algorithm == RTC_MASTER_PARALLEL_FAST && sys->k * sys->tick_ns >= sys->stop_ns)
        report_interval(sys, &sys->pf_event); /* the last, possibly partial interval */
    return RTC_OK;
}
