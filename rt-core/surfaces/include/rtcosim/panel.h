/*
 * rtcosim/panel.h — the browser operator panel of a live session (`rtcosim run --http`).
 *
 * An HTTP server inside the engine serves one page (HTML, JavaScript, CSS and the dygraphs
 * plotting library, all embedded in the binary at build time: nothing is fetched from the
 * internet) that shows live plots of the recorded columns with their units, the run's
 * status (state, time, tick, overruns, wake-up latency, RTF), every I/O component's link
 * per direction and health, and the events feed, and offers the session's controls:
 * pause, resume, single step, stop, mark, and a field per exposed variable at its current
 * set-point with its unit, clamp, rate limit and safe value.
 *
 * What happened, only. The panel samples the session's snapshot at every frame tick
 * whether a page is open or not, and keeps the last 120 seconds of points
 * (each the values of one step, as results.csv holds them) and the RTF of the last second:
 * a page opened mid-run gets the current frame, that history and the RTF at once, and a
 * stretch the panel did not sample reaches the page as a gap, never as a line.
 *
 * Same path as OSC. Every action calls the session's operator functions
 * (rtc_session_control, _set, _check, _mark, _poll) exactly as the OSC control surface
 * does, so the capability list (--control-allow), the clamps, the records in inputs.bin,
 * the events.log lines and the replay are the same whichever surface sent a command.
 *
 * Threads. One non-RT thread (created with rtc_rt_thread_start(), SCHED_OTHER) runs the
 * server in libmicrohttpd's external polling mode: every request, every stream and every
 * check happens on it (the history too). Live data is streamed (Server-Sent Events, 25
 * frames a second) from the session's published snapshot of the recorded columns and
 * exposed variables — the lock-free seqlock the RT hook writes after every step — and from
 * the event log's in-memory tail. The RT thread does no HTTP work and never waits for the
 * panel.
 *
 * Trust. The server binds 127.0.0.1 unless an address is given; any other address needs a
 * token, which every request must then carry (header "X-Rtcosim-Token", or "?token=" on
 * the page and stream URLs a browser opens). Commands are POSTs carrying the header
 * "X-Rtcosim-Panel" (a cross-site page cannot send it without a CORS preflight the server
 * never grants) and no body; without a token, the Host header must name the loopback
 * address (no DNS rebinding); a command carrying an Origin header (every browser's POST
 * does) must come from the panel's own origin. Commands from other hosts need the
 * "remote" capability. A token is at least RTC_PANEL_MIN_TOKEN bytes; a peer that sends
 * wrong tokens is throttled (after 3, its requests are refused unread for 1 s, doubling
 * up to 60 s). Connections, header sizes, streams and the command rate are bounded; a
 * connection that has not sent its request headers within header_ms is shut down
 * (slowloris); when connections are short (in all, or of one address) a new one is let
 * in and one waiting for its headers makes room: one with a wrong token first, then one
 * without the token (or without a request served), the oldest first. Refusals are
 * answered with the reason and logged to events.log within a rate limit.
 *
 * Part of the rtcosim command (rt-core/surfaces), not of librtcosim: this header is not
 * installed, and only the command links libmicrohttpd. It uses rtcosim/session.h alone.
 */
#ifndef RTCOSIM_PANEL_H
#define RTCOSIM_PANEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/log.h"
#include "rtcosim/session.h"

/** Longest token in bytes. */
#define RTC_PANEL_MAX_TOKEN 256
/** Shortest token in bytes: a shorter one is refused at start. */
#define RTC_PANEL_MIN_TOKEN 16

typedef struct rtc_panel rtc_panel;

typedef struct rtc_panel_options {
    int port;                 /**< TCP port, 0: ephemeral (rtc_panel_port()) */
    const char *address;      /**< IPv4 address to bind; NULL: 127.0.0.1 */
    const char *token;        /**< secret every request must carry (NULL/0: none) */
    size_t token_len;
    const rtc_logger *lg;     /**< start-up errors (may be NULL) */
    unsigned max_connections; /**< 0: 32 */
    unsigned max_per_peer;    /**< connections one IPv4 address may hold; 0: half of
                                   max_connections */
    unsigned timeout_s;       /**< idle timeout per connection; 0: 10 s */
    unsigned header_ms;       /**< request headers must be complete this long after the
                                   connection opened or its last request ended; 0: 2000 */
    unsigned commands_per_s;  /**< commands admitted in each second, all clients together
                                   (beyond: 429); 0: 50 */
} rtc_panel_options;

/**
 * Start the panel for session @p s (attached to its executive): bind, start the thread.
 * A non-loopback @p o->address without a token, and a token shorter than
 * RTC_PANEL_MIN_TOKEN, are refused.
 * Returns RTC_OK; RTC_EINVAL (bad address, missing or short token: logged); RTC_EIO (cannot bind:
 * logged with the reason); RTC_ENOMEM; RTC_ESYS. RT-safe: no.
 */
int rtc_panel_start(rtc_session *s, const rtc_panel_options *o, rtc_panel **out);

/** The TCP port the panel listens on. RT-safe: yes. */
RTC_RT_SAFE int rtc_panel_port(const rtc_panel *p);

/** Requests answered so far. RT-safe: yes. Thread: any. */
RTC_RT_SAFE uint64_t rtc_panel_requests(const rtc_panel *p);

/** Requests refused so far. RT-safe: yes. Thread: any. */
RTC_RT_SAFE uint64_t rtc_panel_refused(const rtc_panel *p);

/** What the panel refused and why, for summary.json. */
typedef struct rtc_panel_stats {
    uint64_t requests;        /**< requests answered (refusals included) */
    uint64_t refused;         /**< requests refused, for any reason */
    uint64_t wrong_tokens;    /**< requests with a missing or wrong token */
    uint64_t throttled;       /**< requests refused unread: their peer sent wrong tokens */
    uint64_t cross_origin;    /**< commands refused for their Origin */
    uint64_t header_timeouts; /**< connections shut: headers not complete within header_ms */
    uint64_t evicted;         /**< connections shut to let a new one in */
} rtc_panel_stats;

/** The counters now. RT-safe: yes. Thread: any. */
RTC_RT_SAFE void rtc_panel_stats_get(const rtc_panel *p, rtc_panel_stats *out);

/** Close every stream and connection, stop the thread, free; NULL is a no-op.
 *  RT-safe: no. Thread: not the panel's. */
void rtc_panel_stop(rtc_panel *p);

#endif
