/*
 * What the operator surfaces (osc_control.c, panel.c) share: the check of a peer's token,
 * the throttle of peers that send wrong ones (the panel's: a TCP peer's address is real,
 * a UDP sender's can be forged), and the rate-limited events.log lines a peer's traffic
 * causes. Each surface calls these on its own thread only.
 */
#ifndef RTC_SURFACE_PRIV_H
#define RTC_SURFACE_PRIV_H

#include "rtcosim/ratelimit.h"
#include "rtcosim/session.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Whether @p sent (NUL-terminated, at most @p sent_max bytes looked at; NULL: none)
 * equals the secret @p secret of @p secret_len bytes. Constant time in the secret: every
 * byte of it is compared whatever @p sent holds, and the length difference is folded into
 * the same accumulator, so the answer's timing tells nothing about how much of a guess
 * was right.
 */
bool rtc__surface_token_ok(const char *secret, size_t secret_len, const char *sent,
                           size_t sent_max);

/*
 * events.log lines caused by a peer (refusals, subscriptions): the first 5 a second one by
 * one, the rest counted into one line a second (rtcosim/ratelimit.h), which reads
 * "<what> N more <items> in the last 1 s, not logged one by one (this <peer> was the
 * last; every one was answered)".
 */
typedef struct rtc__surface_lines {
    rtc_ratelimit limit;
    const char *what, *items, *peer; /* static strings of the summary line */
    char last[96];                   /* the peer of the last event only counted */
} rtc__surface_lines;

void rtc__surface_lines_init(rtc__surface_lines *l, const char *what, const char *items,
                             const char *peer);

/* One event caused by @p who: true when its line may be written now; otherwise it is
 * counted (and @p who remembered for the summary line). */
bool rtc__surface_lines_take(rtc__surface_lines *l, const char *who);

/* Once per turn of the surface's loop (and with @p force at its end): the summary line of
 * the window's counted events into @p s's events.log, when one is due. */
void rtc__surface_lines_due(rtc__surface_lines *l, rtc_session *s, bool force);

/*
 * Wrong tokens, per peer address (IPv4, host order): a peer's first
 * RTC__SURFACE_FREE_GUESSES wrong tokens are only refused; each further one blocks the
 * peer for 1 s, doubling up to RTC__SURFACE_BLOCK_MAX_NS, during which its requests are
 * refused without their token being looked at (a guess then tells nothing). A right token
 * clears the peer's count. A brute force of a 16-byte token from one address gets a few
 * guesses a minute. The table keeps RTC__SURFACE_PEERS addresses (the least recently seen
 * unblocked one makes room), so it is bounded whatever the number of senders.
 */
#define RTC__SURFACE_PEERS 64
#define RTC__SURFACE_FREE_GUESSES 3
#define RTC__SURFACE_BLOCK_MAX_NS 60000000000LL

typedef struct rtc__surface_peer {
    uint32_t addr;
    unsigned fails;   /* wrong tokens since the last right one (0: unused entry) */
    int64_t until_ns; /* refused unread until then */
    int64_t seen_ns;
} rtc__surface_peer;

typedef struct rtc__surface_guard {
    rtc__surface_peer peer[RTC__SURFACE_PEERS];
} rtc__surface_guard;

/* How long @p addr is still blocked at @p now_ns (0: not blocked). */
int64_t rtc__surface_blocked_ns(const rtc__surface_guard *g, uint32_t addr, int64_t now_ns);

/* The outcome of a check of @p addr's token (@p ok: right) at @p now_ns. */
void rtc__surface_token_result(rtc__surface_guard *g, uint32_t addr, bool ok, int64_t now_ns);

#endif
