/*
 * Stepping one unit: what the strategies share (master_priv.h). A unit steps from t with
 * the inputs its strategy took for it; its outputs for t + h go to its "nxt" buffer and
 * become visible when the tick reaches t + h (system_exchange.c). Runs on the thread that
 * owns the unit: no allocation, no lock, no text formatting (rtc_log on an RT thread only
 * queues the format and plain values, rtcosim/rtlog.h).
 */
#include "master_priv.h"

#include "rtcosim/status.h"
#include "rtcosim/time.h"

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

void rtc__master_count_events(sys_unit *u, const rtc_step_result *res)
{
    u->events += res->events;
    u->early_returns += res->early_returns;
    if (res->microsteps > u->microsteps_tick)
        u->microsteps_tick = res->microsteps;
    if (res->microsteps > u->microsteps_max)
        u->microsteps_max = res->microsteps;
}

int rtc__master_step_unit(rtc_system *sys, sys_unit *u, int64_t t)
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
    bool timed = sys->unit_timer && u->owner == 0;
    if (timed)
        sys->unit_timer(sys->unit_timer_user, idx, false);
    int64_t t0 = sys->unit_clock ? rtc_time_now_ns() : 0;
    rc = u->unit->ops->do_step(u->unit->self, rtc_time_to_s(sys->start_ns + t),
                               rtc_time_to_s(u->step_ns), &res);
    if (sys->unit_clock)
        rtc__master_add_work(u, rtc_time_now_ns() - t0);
    if (timed)
        sys->unit_timer(sys->unit_timer_user, idx, true);
    if (rc != RTC_OK)
        return rc;
    rtc__master_count_events(u, &res);
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
