/*
 * rtcosim/osc_control.h — the operator control surface of a real-time session over OSC.
 *
 * A UDP socket on its own (non-RT) thread receives OSC messages from any control surface
 * (TouchOSC, Open Stage Control, `oscsend`, scripts/operator) and turns them into session
 * calls (rtcosim/session.h); replies and errors go back to the sender's address and port.
 * liblo is used only to decode and encode messages, on this thread. The socket binds
 * 127.0.0.1 and accepts only loopback senders, unless allow_remote (then 0.0.0.0, any
 * sender). Bundles are answered with an error.
 *
 * Token: when options.token is set, every message must carry it as its FIRST argument, a
 * string (s:TOKEN), before the arguments listed below, e.g. /rtcosim/set s:TOKEN s:NAME
 * d:VALUE; a message without it, or with another string, is refused with an error reply
 * and nothing else is looked at. A token is at least RTC_OSC_CONTROL_MIN_TOKEN bytes, and
 * allow_remote needs one (both refused at start). Wrong tokens are counted, not throttled
 * per sender (a UDP sender address can be forged: blocking one would let anyone shut the
 * operator out). Capabilities: set, pause/resume, step, stop and mark
 * need the session's capability (rtcosim/session.h, --control-allow); a refusal names
 * the missing one. Numbers are checked before any conversion (step: a whole number in
 * 1..RTC_SESSION_MAX_STEPS; set: finite; subscribe: (0, 1000] Hz). Refusals are always
 * answered and counted; events.log gets the first 5 refusals or (un)subscriptions per
 * second one by one and then one line with the count.
 *
 * Address table (types after the address; "N" is any of i, h, f, d):
 *   /rtcosim/pause                    pause at the next step boundary
 *   /rtcosim/resume                   resume (the schedule re-anchors to now)
 *   /rtcosim/step [N]                 while paused: N steps (default 1; paced at the
 *                                     period when the system has I/O components)
 *   /rtcosim/stop                     stop the run (safe state, files written)
 *   /rtcosim/set s:NAME N:VALUE       set an exposed variable (clamped, rate-limited)
 *   /rtcosim/get s:NAME               reply the newest value of a recorded column
 *   /rtcosim/subscribe s:NAME N:HZ    stream a recorded column to the sender (0 < HZ <= 1000)
 *   /rtcosim/unsubscribe [s:NAME]     stop the sender's streams (all, or NAME's)
 *   /rtcosim/status                   reply the run's status
 *   /rtcosim/mark s:TEXT              an operator annotation in events.log
 * Replies:
 *   /rtcosim/reply s:COMMAND s:"ok"                       pause, resume, step, stop, mark
 *   /rtcosim/reply s:"set" s:NAME d:APPLIED              the value that will be applied
 *   /rtcosim/reply s:"get" s:NAME d:VALUE d:T_S h:K      T_S/K: the step it belongs to
 *   /rtcosim/reply s:"subscribe" s:NAME d:HZ
 *   /rtcosim/reply s:"unsubscribe" i:REMOVED
 *   /rtcosim/reply s:"status" d:SIM_TIME_S d:RTF h:K h:OVERRUNS d:P99_WAKEUP_US i:PAUSED
 *                  s:DRIVER_HEALTH
 *   /rtcosim/value s:NAME d:VALUE d:T_S                  a subscription's sample
 *   /rtcosim/error s:MESSAGE                              any refusal, with the reason
 * Every well-formed message (with the token, when one is required) re-arms the session's
 * dead-man (rtc_session_poll).
 *
 * Part of the rtcosim command (rt-core/surfaces), not of librtcosim: this header is not
 * installed. It uses rtcosim/session.h alone.
 */
#ifndef RTCOSIM_OSC_CONTROL_H
#define RTCOSIM_OSC_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

#include "rtcosim/log.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/rtsafe.h"
#include "rtcosim/session.h"

typedef struct rtc_osc_control rtc_osc_control;

/** Longest token (bytes). */
#define RTC_OSC_CONTROL_MAX_TOKEN 256
/** Shortest token (bytes): a shorter one is refused at start. */
#define RTC_OSC_CONTROL_MIN_TOKEN 16

typedef struct rtc_osc_control_options {
    int port;           /**< UDP port; 0: ephemeral (see rtc_osc_control_port) */
    bool allow_remote;  /**< bind 0.0.0.0 and accept senders other than loopback (needs
                             a token) */
    const rtc_logger *lg;
    const char *token;  /**< shared secret every message must start with (copied); may
                             be NULL when token_len is 0 */
    size_t token_len;   /**< 0: no token; else RTC_OSC_CONTROL_MIN_TOKEN..MAX_TOKEN */
} rtc_osc_control_options;

/** Most simultaneous subscriptions (all senders together). */
#define RTC_OSC_CONTROL_MAX_SUBS RTC_OSC_MAX_SUBSCRIBERS

/**
 * Bind the socket and start the control thread for @p s (which must outlive it).
 * Returns RTC_OK; RTC_EINVAL (bad port; token too long; token too short, or remote
 * senders without a token: logged); RTC_EIO (cannot bind: logged);
 * RTC_ESYS (thread); RTC_ENOMEM.
 * RT-safe: no.
 */
int rtc_osc_control_start(rtc_session *s, const rtc_osc_control_options *o,
                          rtc_osc_control **out);

/** The bound UDP port. RT-safe: yes. */
RTC_RT_SAFE int rtc_osc_control_port(const rtc_osc_control *c);

/** Messages handled, and refused (disallowed sender, malformed, errors). RT-safe: yes. */
RTC_RT_SAFE uint64_t rtc_osc_control_messages(const rtc_osc_control *c);
uint64_t rtc_osc_control_refused(const rtc_osc_control *c);

/** The surface's counters, for summary.json. */
typedef struct rtc_osc_control_stats {
    uint64_t messages;     /**< datagrams from allowed senders */
    uint64_t refused;      /**< datagrams refused (disallowed sender, malformed, any error) */
    uint64_t wrong_tokens; /**< messages with a missing or wrong token */
} rtc_osc_control_stats;

/** The counters now. RT-safe: yes. Thread: any. */
RTC_RT_SAFE void rtc_osc_control_stats_get(const rtc_osc_control *c,
                                           rtc_osc_control_stats *out);

/** Stop and join the thread, close the socket, free. NULL is a no-op. RT-safe: no. */
void rtc_osc_control_stop(rtc_osc_control *c);

#endif
