/*
 * What the operator surfaces (osc_control.c, panel.c) share: the check of a peer's token
 * and the rate-limited events.log lines a peer's traffic causes. Each surface calls these
 * on its own thread only.
 */
#ifndef RTC_SURFACE_PRIV_H
#define RTC_SURFACE_PRIV_H

#include "rtcosim/ratelimit.h"
#include "rtcosim/session.h"

#include <stdbool.h>
#include <stddef.h>

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

#endif
