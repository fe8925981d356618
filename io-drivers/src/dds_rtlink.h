/*
 * The real-time side of a node bridge (dds_bridge.c): what it sends each tick, what it
 * makes of what arrives, and the engine's own emulation of a slow, jittery, lossy link
 * (this kernel has no netem). Used only when the bridge is not lock-step; everything here
 * runs on the bridge's I/O thread, which is then the one thread that takes from DDS and
 * writes the mailboxes (the reader's listener only wakes it). Names: rtc__rtlink_*.
 */
#ifndef RTC_DDS_RTLINK_H
#define RTC_DDS_RTLINK_H

#include "dds_priv.h"

#include "rtcosim/driver_base.h"

#include <stdbool.h>
#include <stdint.h>

/** The counters a real-time link keeps, in the bridge's named counters. */
enum {
    RTC_RTL_RECEIVED = 0, /**< samples used (delivered to the mailboxes) */
    RTC_RTL_LATE,         /**< used more than one period after their source time */
    RTC_RTL_LOST,         /**< ticks of the peer never received */
    RTC_RTL_DUPLICATES,   /**< a tick received twice */
    RTC_RTL_OUT_OF_ORDER, /**< older than one already used (dropped: the newer stands) */
    RTC_RTL_EMU_DROPPED,  /**< dropped by the emulated loss */
    RTC_RTL_N
};

/** A sample held back by the emulated delay. */
typedef struct rtc__rtlink_held {
    int64_t due_ns;       /**< CLOCK_MONOTONIC when it is delivered */
    int64_t arrival_real; /**< when it really arrived (CLOCK_REALTIME) */
    rtc_node_Sample s;
} rtc__rtlink_held;

/** One bridge's real-time link. I/O thread only, after open. */
typedef struct rtc__rtlink {
    rtc_drv_base *b;
    const size_t *in_sig, *out_sig; /**< the signal of each value, per direction */
    const char *self, *peer;
    rtc_driver_tx *tx;              /**< the engine's "values written" word (woken here) */
    _Atomic uint64_t *ctr[RTC_RTL_N];
    /* emulation (keys emulate_*) */
    bool emulate;
    int64_t delay_ns, jitter_ns;
    double loss;
    uint64_t seed;
    rtc__rtlink_held *held;         /**< samples waiting for their delay */
    size_t n_held, cap_held;
    /* receiving: the order of the peer's ticks */
    bool any;
    int64_t last;                   /**< newest tick used */
    uint64_t window;                /**< bit i: tick last - i used */
    uint64_t n[RTC_RTL_N];
    int64_t self_off, peer_off;     /**< clocks minus the leader's (latencies) */
    int64_t offsets_at;             /**< when they were last read */
    int64_t last_arrival;           /**< CLOCK_MONOTONIC of the newest sample used (0: none) */
    /* the peer's loss (dds_rtloss.c) */
    int64_t lost_at;                /**< CLOCK_MONOTONIC the loss was found (0: none) */
    char lost_why[160];             /**< in words: the node, the ticks */
    /* sending */
    uint32_t tx_seen;
    int64_t sent_t;                 /**< logical time of the values sent last */
} rtc__rtlink;

/**
 * Read the emulation keys (emulate_delay_ms, emulate_jitter_ms, emulate_loss,
 * emulate_seed: iodrivers.h) and set the link up for bridge @p b: @p in_sig / @p out_sig
 * map each value of an incoming / outgoing sample to its signal, @p ctr are the bridge's
 * counters (RTC_RTL_*). Errors are logged through the base. Returns RTC_OK, RTC_EINVAL,
 * RTC_ENOMEM. RT-safe: no. Thread: open.
 */
int rtc__rtlink_open(rtc__rtlink *l, rtc_drv_base *b, const rtc_driver_config *cfg,
                     const size_t *in_sig, const size_t *out_sig, const char *self,
                     const char *peer, _Atomic uint64_t *const ctr[RTC_RTL_N]);

/** True until the first tick's values went out (the run has not started). RT-safe: yes. */
RTC_RT_SAFE bool rtc__rtlink_idle(const rtc__rtlink *l);

/** Free what open allocated; a zeroed link is fine. RT-safe: no. */
void rtc__rtlink_clear(rtc__rtlink *l);

/** Something arrived: wake the I/O thread (the reader's listener). RT-safe: yes. */
RTC_RT_SAFE void rtc__rtlink_kick(rtc__rtlink *l);

/**
 * Sleep until the engine wrote new values or something arrived (true), or until a held
 * sample is due or @p until_ns passes (false). RT-safe: no (sleeps). Thread: I/O.
 */
bool rtc__rtlink_wait(rtc__rtlink *l, int64_t until_ns);

/**
 * A sample of the peer (checked by the bridge) that arrived at @p arrival_real: used now,
 * or held back by the emulation. Returns true when values reached the mailboxes.
 * RT-safe: yes. Thread: I/O.
 */
RTC_RT_SAFE bool rtc__rtlink_arrive(rtc__rtlink *l, const rtc_node_Sample *s,
                                    int64_t arrival_real);

/** Held samples due by now: used, in their due order. Returns true when values reached
 *  the mailboxes. RT-safe: yes. Thread: I/O. */
RTC_RT_SAFE bool rtc__rtlink_release(rtc__rtlink *l);

/**
 * The values the engine wrote for a tick not sent yet, into @p s (kind, round = tick,
 * sim_time_ns, count, values): true when there are some. Before the nodes agreed on the
 * start nothing is sent (the engine has not ticked). RT-safe: yes. Thread: I/O.
 */
RTC_RT_SAFE bool rtc__rtlink_collect(rtc__rtlink *l, rtc_node_Sample *s);

/**
 * Judge the link at @p now (CLOCK_MONOTONIC): the peer lost when @p gone (its DDS
 * liveliness lost) while the run goes on and the peer did not say it stopped. A loss is
 * logged once, naming the node and the ticks, and the link goes down with that reason:
 * the link contract applies the bridge's on_loss. Its liveliness back brings the link up
 * (logged). Returns true while the peer is lost. RT-safe: no (logs). Thread: I/O.
 */
bool rtc__rtlink_check_loss(rtc__rtlink *l, bool gone, int64_t now);

#endif
