/*
 * Stepping one unit: what the strategies share (master_priv.h, where the step's common
 * path is inline; here the parts that are not on every step's path). A unit steps from t with
 * the inputs its strategy took for it; its outputs for t + h go to the next half of its
 * buffers and become visible when the tick reaches t + h (system_exchange.c). Runs on the
 * thread that owns the unit: no allocation, no lock, no text formatting (rtc_log on an RT
 * thread only queues the format and plain values, rtcosim/rtlog.h).
 */
#include "master_priv.h"

#include "rtcosim/status.h"
#include "rtcosim/time.h"

/* An input whose estimator reported FAULT stops the run (the safe-state path). */
int rtc__master_check_faults(rtc_system *sys, const sys_unit *u)
{
    for (uint32_t i = 0; i < u->n_links_in; i++) {
        const sys_link *l = &sys->links[sys->tick_links[u->link0 + i].link];
        if (l->fault) {
            rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: %s: input stale beyond its limit (estimator "
                    "fault policy): stopping", l->file, l->line, l->desc);
            return RTC_ESTALE;
        }
    }
    return RTC_OK;
}

void rtc__master_count_events(sys_unit *u, const rtc_step_result *res)
{
    if (!res->events && !res->early_returns && !res->microsteps)
        return; /* the usual step: the counters' cache line stays untouched */
    u->events += res->events;
    u->early_returns += res->early_returns;
    if (res->microsteps > u->microsteps_tick)
        u->microsteps_tick = res->microsteps;
    if (res->microsteps > u->microsteps_max)
        u->microsteps_max = res->microsteps;
}

/* The unit ended the simulation in its step from t (length h): say where and why, and when
 * that is after t, keep its outputs there (valid, as rtcosim/unit.h promises) so the frame
 * makes them visible at that time. */
int rtc__master_step_ended(rtc_system *sys, sys_unit *u, int64_t t, int64_t h,
                           const rtc_step_result *res)
{
    int64_t last = t;
    if (rtc_time_from_s(res->last_time_s, &last) != RTC_OK || last - sys->start_ns < t)
        last = sys->start_ns + t; /* not after the step's start: nothing new to show */
    if (last - sys->start_ns > t + h)
        last = sys->start_ns + t + h;
    if (res->outcome == RTC_STEP_TERMINATE)
        rtc_log(sys->lg, RTC_LOG_WARNING, "%s: the FMU requested to terminate the simulation "
                "at t=%.9g s; stopping there", u->name, rtc_time_to_s(last));
    else
        rtc_log(sys->lg, RTC_LOG_WARNING, "%s: the FMU %s the step at t=%.9g s; a fixed-step "
                "run cannot retry: stopping", u->name,
                res->outcome == RTC_STEP_EARLY ? "returned early from" : "discarded",
                rtc_time_to_s(last));
    if (last - sys->start_ns > t) {
        int rc = rtc__sys_fetch(sys, u, true);
        if (rc != RTC_OK)
            return rc;
        u->t_nxt_ns = u->ended_ns = last - sys->start_ns;
        u->has_nxt = true;
        u->ended = true;
    }
    return RTC_ETERMINATED;
}

int rtc__master_measured_step(rtc_system *sys, sys_unit *u, int64_t t, int64_t h,
                              rtc_step_result *res)
{
    size_t idx = (size_t)(u - sys->units);
    /* the timer's bookkeeping belongs to the RT thread: units a worker steps are not
     * timed one by one (their time is in the coordinator's wait) */
    bool timed = sys->unit_timer && u->owner == 0;
    if (timed)
        sys->unit_timer(sys->unit_timer_user, idx, false);
    int64_t t0 = sys->unit_clock ? rtc_time_now_ns() : 0;
    int rc = u->unit->ops->do_step(u->unit->self, rtc_time_to_s(sys->start_ns + t),
                                   rtc_time_to_s(h), res);
    if (sys->unit_clock)
        rtc__master_add_work(u, rtc_time_now_ns() - t0);
    if (timed)
        sys->unit_timer(sys->unit_timer_user, idx, true);
    return rc;
}
