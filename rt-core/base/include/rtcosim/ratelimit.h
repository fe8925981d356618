/*
 * rtcosim/ratelimit.h — "log the first few, then count": the rate limit for log lines
 * caused by traffic a peer controls (refused datagrams, single steps). DESIGN.md: anything
 * logged in response to network traffic is rate-limited.
 *
 * In each window of window_ns the first burst events are logged one line each; the rest
 * are only counted, and when the window has passed the owner writes one line with the
 * count ("refused 1234 more datagram(s) in the last 1 s"). So a flood of N events costs at
 * most burst + 1 lines per window, however large N is.
 *
 * The same limiter admits requests (rtc_ratelimit_admit: the panel's commands): the first
 * burst events of each window pass, the rest are refused, and the next window starts
 * afresh.
 *
 * Header-only (the operator surfaces use it too). Not thread-safe: one owner thread per
 * limiter. RT-safe: yes (no allocation, no call).
 */
#ifndef RTCOSIM_RATELIMIT_H
#define RTCOSIM_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "rtcosim/rtsafe.h"

typedef struct rtc_ratelimit {
    int64_t window_ns;   /**< length of a window (set by the owner) */
    unsigned burst;      /**< events logged in full per window (set by the owner) */
    int64_t start_ns;    /**< start of the current window (0: none yet) */
    unsigned logged;     /**< events logged in full in this window */
    uint64_t suppressed; /**< events only counted in this window */
} rtc_ratelimit;

/** One event at @p now_ns: true when it may be logged in full, false when it was counted
 *  (rtc_ratelimit_due() reports the count later). RT-safe: yes. Thread: the owner. */
RTC_RT_SAFE static inline bool rtc_ratelimit_take(rtc_ratelimit *r, int64_t now_ns)
{
    if (r->start_ns == 0 || now_ns - r->start_ns >= r->window_ns) {
        if (r->suppressed) { /* the owner has not reported the last window yet */
            r->suppressed++;
            return false;
        }
        r->start_ns = now_ns;
        r->logged = 0;
    }
    if (r->logged < r->burst) {
        r->logged++;
        return true;
    }
    r->suppressed++;
    return false;
}

/** When the window has passed and events were only counted: their number (the owner
 *  writes one line for them), and a new window begins; otherwise 0.
 *  RT-safe: yes. Thread: the owner. */
RTC_RT_SAFE static inline uint64_t rtc_ratelimit_due(rtc_ratelimit *r, int64_t now_ns, bool force)
{
    if (!r->suppressed || (!force && now_ns - r->start_ns < r->window_ns))
        return 0;
    uint64_t n = r->suppressed;
    r->suppressed = 0;
    r->start_ns = now_ns;
    r->logged = r->burst; /* the window that starts now has just had its line */
    return n;
}

/** One request at @p now_ns: true when it is among the first burst of the current window
 *  (admitted), false when it is beyond them (refused, counted in suppressed). Unlike
 *  rtc_ratelimit_take() a window does not wait for rtc_ratelimit_due(): each one admits
 *  burst requests, however many the one before refused. RT-safe: yes. Thread: the owner. */
RTC_RT_SAFE static inline bool rtc_ratelimit_admit(rtc_ratelimit *r, int64_t now_ns)
{
    if (r->start_ns == 0 || now_ns - r->start_ns >= r->window_ns)
        r->suppressed = 0; /* refused requests need no report line: a fresh window */
    return rtc_ratelimit_take(r, now_ns);
}

#endif
