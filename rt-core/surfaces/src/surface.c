/*
 * What the operator surfaces share (surface_priv.h): the token check, the throttle of
 * wrong tokens per peer address, and the rate-limited events.log lines. DESIGN.md:
 * anything logged in response to network traffic is rate-limited; every peer gets least
 * privilege.
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

/* The entry of addr, or NULL. */
static rtc__surface_peer *find_peer(rtc__surface_guard *g, uint32_t addr)
{
    for (size_t i = 0; i < RTC__SURFACE_PEERS; i++)
        if (g->peer[i].fails && g->peer[i].addr == addr)
            return &g->peer[i];
    return NULL;
}

int64_t rtc__surface_blocked_ns(const rtc__surface_guard *g, uint32_t addr, int64_t now_ns)
{
    const rtc__surface_peer *e = find_peer((rtc__surface_guard *)g, addr);
    return e && e->until_ns > now_ns ? e->until_ns - now_ns : 0;
}

/* A new entry: a free one, else the least recently seen one that blocks nobody now, else
 * the least recently seen. */
static rtc__surface_peer *new_peer(rtc__surface_guard *g, int64_t now_ns)
{
    rtc__surface_peer *v = NULL;
    for (size_t i = 0; i < RTC__SURFACE_PEERS; i++) {
        rtc__surface_peer *e = &g->peer[i];
        if (!e->fails)
            return e;
        bool e_free = e->until_ns <= now_ns, v_free = v && v->until_ns <= now_ns;
        if (!v || (e_free && !v_free) || (e_free == v_free && e->seen_ns < v->seen_ns))
            v = e;
    }
    return v;
}

void rtc__surface_token_result(rtc__surface_guard *g, uint32_t addr, bool ok, int64_t now_ns)
{
    rtc__surface_peer *e = find_peer(g, addr);
    if (ok) {
        if (e)
            *e = (rtc__surface_peer){0};
        return;
    }
    if (!e) {
        e = new_peer(g, now_ns);
        *e = (rtc__surface_peer){.addr = addr};
    }
    e->seen_ns = now_ns;
    if (++e->fails <= RTC__SURFACE_FREE_GUESSES)
        return;
    unsigned doublings = e->fails - RTC__SURFACE_FREE_GUESSES - 1;
    /* 1, 2, 4, ... 32 s, then the cap */
    e->until_ns = now_ns + (doublings >= 6 ? RTC__SURFACE_BLOCK_MAX_NS
                                           : 1000000000LL << doublings);
}
