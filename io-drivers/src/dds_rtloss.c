/*
 * A real-time node bridge's on_loss policy (dds_rtlink.h; DESIGN.md T2 and T3).
 *
 * DESIGN:
 *   - the peer is lost when its data writer's DDS liveliness is lost (its process died,
 *     hangs, or the cable is out: a lease of 250 ms, dds_bridge.c) or when no sample came
 *     for the silence time (loss_ms), while the run goes on; a peer that said it stopped
 *     (its STOP on the control topic) only ended, the control plane handles that;
 *   - a loss is one warning line naming the node, this node's tick and the peer's last
 *     tick; the estimator at each of the bridge's signals goes on covering the values
 *     from their last sample (nothing here touches the mailboxes), so every recorded row
 *     is kept;
 *   - then on_loss: estimate:T (the default, T = 500 ms) stops the run T after the loss,
 *     stop stops it at once, continue lets it go on (the link stays "lost" in the
 *     status). A stop goes through the control plane: the run's stop is this node's,
 *     cause "link", and the executive stops at its next tick with the safe values; the
 *     CLI tells the other nodes, whose summaries then name this node and the reason;
 *   - a sample after a loss (the peer was only cut off for a while) ends it, logged.
 */
#include "dds_ctl_priv.h"
#include "dds_rtlink.h"

#include "rtcosim/log.h"
#include "rtcosim/numparse.h"
#include "rtcosim/status.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rtc__rtlink_loss_open(rtc__rtlink *l, const rtc_driver_config *cfg, int64_t silence_ns)
{
    const char *v = rtc_kv_get(cfg->settings, cfg->n_settings, "on_loss");
    l->on_loss = RTC_RTL_ON_LOSS_ESTIMATE;
    l->hold_ns = (int64_t)RTC_RTL_HOLD_MS * 1000000;
    l->silence_ns = silence_ns;
    if (!v || !strcmp(v, "estimate"))
        return RTC_OK;
    if (!strcmp(v, "stop")) {
        l->on_loss = RTC_RTL_ON_LOSS_STOP;
        return RTC_OK;
    }
    if (!strcmp(v, "continue")) {
        l->on_loss = RTC_RTL_ON_LOSS_CONTINUE;
        return RTC_OK;
    }
    double ms = 0;
    if (!strncmp(v, "estimate:", 9) &&
        rtc_parse_f64(v + 9, 0, 86400000, 0, &ms) == RTC_OK) {
        l->hold_ns = (int64_t)(ms * 1e6);
        return RTC_OK;
    }
    return rtc_drv_bad(l->b, NULL, "setting on_loss=%s: not estimate, estimate:MS (0 to "
                       "86400000), stop or continue", v);
}

/* This node's tick now: the one of the values it sent last (-1 before the start). */
static int64_t own_tick(const rtc__rtlink *l)
{
    int64_t per = l->b->period_ns > 0 ? l->b->period_ns : 1;
    return rtc__rtlink_idle(l) ? -1 : (l->sent_t + per / 2) / per;
}

static void act(rtc__rtlink *l, const char *why)
{
    char reason[192];
    int64_t ms = l->hold_ns / 1000000;
    if (l->on_loss == RTC_RTL_ON_LOSS_STOP)
        snprintf(reason, sizeof reason, "node %s lost at tick %" PRId64 " (%s); on_loss stop",
                 l->peer, l->lost_tick, why);
    else
        snprintf(reason, sizeof reason, "node %s lost at tick %" PRId64 " (%s); estimated "
                 "for %" PRId64 " ms, then stopped at tick %" PRId64 " (on_loss estimate:%"
                 PRId64 ")", l->peer, l->lost_tick, why, ms, own_tick(l), ms);
    l->loss_acted = true;
    if (rtc__ctl_link_lost(own_tick(l), reason))
        rtc_log(l->b->lg, RTC_LOG_ERROR, "node-bridge '%s': %s", l->b->component, reason);
}

bool rtc__rtlink_check_loss(rtc__rtlink *l, bool gone, int64_t now)
{
    if (rtc__rtlink_idle(l))
        return false; /* the run has not started: joining is bounded elsewhere */
    bool quiet = l->silence_ns > 0 && l->last_arrival && now - l->last_arrival > l->silence_ns;
    if (!l->lost_at && (gone || quiet) && !rtc__ctl_peer_stopped(l->peer)) {
        l->lost_at = now;
        l->lost_tick = own_tick(l);
        l->lost_why = gone ? "its DDS liveliness was lost" : "no sample for loss_ms";
        const char *then = l->on_loss == RTC_RTL_ON_LOSS_STOP       ? "stopping"
                           : l->on_loss == RTC_RTL_ON_LOSS_CONTINUE ? "estimating (on_loss "
                                                                       "continue)"
                                                                     : "estimating";
        rtc_log(l->b->lg, RTC_LOG_WARNING, "node-bridge '%s': node %s lost at tick %" PRId64
                " (%s; its last sample: tick %" PRId64 "): %s", l->b->component, l->peer,
                l->lost_tick, l->lost_why, l->any ? l->last : -1, then);
    } else if (l->lost_at && !gone && l->last_arrival > l->lost_at) {
        rtc_log(l->b->lg, RTC_LOG_WARNING, "node-bridge '%s': node %s is back after %.1f ms",
                l->b->component, l->peer, (double)(now - l->lost_at) / 1e6);
        l->lost_at = 0;
        return false;
    }
    if (!l->lost_at || l->loss_acted || l->on_loss == RTC_RTL_ON_LOSS_CONTINUE)
        return l->lost_at != 0;
    if (l->on_loss == RTC_RTL_ON_LOSS_STOP || now - l->lost_at >= l->hold_ns)
        act(l, l->lost_why);
    return true;
}
