/*
 * A real-time node bridge's loss of its peer (dds_rtlink.h; DESIGN.md T2 and T3).
 *
 * DESIGN:
 *   - the peer is lost when its data writer's DDS liveliness is lost (its process died,
 *     hangs, or the cable is out: a lease of 250 ms, dds_bridge.c), while the run goes on;
 *     a peer that said it stopped (its STOP on the control topic) only ended, the control
 *     plane handles that. Silence (nothing fresh for loss_ms) the link contract judges
 *     itself;
 *   - a loss is one warning line naming the node, this node's tick and the peer's last
 *     tick, and the link goes down with that reason (rtc_drv_link_down): the link
 *     contract of the driver base applies the bridge's on_loss (estimate:T by default,
 *     T = 500 ms: the estimators at the bridge's signals cover the values, then the run
 *     stops with cause "link" and its safe values; stop; continue), so there is one home
 *     for the policy. The CLI tells the other nodes why this one stopped;
 *   - the peer's liveliness back (it was only cut off for a while) brings the link up.
 */
#include "dds_ctl_priv.h"
#include "dds_rtlink.h"

#include "rtcosim/log.h"

#include <inttypes.h>
#include <stdio.h>

/* This node's tick now: the one of the values it sent last (-1 before the start). */
static int64_t own_tick(const rtc__rtlink *l)
{
    int64_t per = l->b->period_ns > 0 ? l->b->period_ns : 1;
    return rtc__rtlink_idle(l) ? -1 : (l->sent_t + per / 2) / per;
}

bool rtc__rtlink_check_loss(rtc__rtlink *l, bool gone, int64_t now)
{
    if (rtc__rtlink_idle(l))
        return false; /* the run has not started: joining is bounded elsewhere */
    if (!l->lost_at && gone && !rtc__ctl_peer_stopped(l->peer)) {
        l->lost_at = now;
        snprintf(l->lost_why, sizeof l->lost_why, "node %s lost at tick %" PRId64 " (its DDS "
                 "liveliness was lost; its last sample: tick %" PRId64 ")", l->peer,
                 own_tick(l), l->any ? l->last : -1);
        rtc_log(l->b->lg, RTC_LOG_WARNING, "node-bridge '%s': %s", l->b->component,
                l->lost_why);
        rtc_drv_link_down(l->b, l->lost_why);
    } else if (l->lost_at && !gone) {
        rtc_log(l->b->lg, RTC_LOG_WARNING, "node-bridge '%s': node %s is back after %.1f ms",
                l->b->component, l->peer, (double)(now - l->lost_at) / 1e6);
        l->lost_at = 0;
        rtc_drv_link_up(l->b);
    }
    return l->lost_at != 0;
}
