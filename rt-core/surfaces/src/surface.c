/*
 * What the operator surfaces share (surface_priv.h): the token check and the
 * rate-limited events.log lines. DESIGN.md: anything logged in response to network
 * traffic is rate-limited; every peer gets least privilege.
 */
#include "surface_priv.h"

#include "rtcosim/time.h"

#include <stdio.h>
#include <string.h>

bool rtc__surface_token_ok(const char *secret, size_t secret_len, const char *sent,
                           size_t sent_max)
{
    if (!sent)
        return false;
    size_t n = strnlen(sent, sent_max);
    unsigned diff = n != secret_len;
    for (size_t i = 0; i < secret_len; i++)
        diff |= (unsigned char)secret[i] ^ (unsigned char)(i < n ? sent[i] : 0);
    return diff == 0;
}

void rtc__surface_lines_init(rtc__surface_lines *l, const char *what, const char *items,
                             const char *peer)
{
    *l = (rtc__surface_lines){.limit = {.window_ns = 1000000000, .burst = 5},
                              .what = what, .items = items, .peer = peer};
}

bool rtc__surface_lines_take(rtc__surface_lines *l, const char *who)
{
    if (rtc_ratelimit_take(&l->limit, rtc_time_now_ns()))
        return true;
    snprintf(l->last, sizeof l->last, "%s", who);
    return false;
}

void rtc__surface_lines_due(rtc__surface_lines *l, rtc_session *s, bool force)
{
    uint64_t n = rtc_ratelimit_due(&l->limit, rtc_time_now_ns(), force);
    if (n)
        rtc_session_note(s, l->last, "%s %llu more %s in the last %.0f s, not logged one by "
                         "one (this %s was the last; every one was answered)", l->what,
                         (unsigned long long)n, l->items, (double)l->limit.window_ns / 1e9,
                         l->peer);
}
