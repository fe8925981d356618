/*
 * Joining, the clock and the start of a distributed real-time run (rtcosim/nodectl.h;
 * the plane's topics, listeners and thread are in dds_control.c).
 *
 * DESIGN (DESIGN.md T3, the feasibility note's sections 1.9 and 2.2):
 *   - the clock: a follower pings the leader over "rtcosim/clock" and the leader's
 *     listener answers at once with its receive and send times (NTP's four timestamps,
 *     all CLOCK_REALTIME). The offset of one exchange is wrong by at most half the
 *     asymmetry of its two paths, which the exchange with the shortest round trip bounds
 *     best: of 16 pings at the start (4 every second while running) that one counts. On
 *     one machine the true offset is 0 and the measurement says a few microseconds;
 *   - the bound: the offset is compensated at the start, but clocks that are that far
 *     apart are not disciplined and drift apart during the run (and the latencies the
 *     bridges report assume one time): above the bound the run is refused, above a
 *     tenth of it a warning says so;
 *   - the start: each node says READY after its initialization (a follower after its
 *     clock too); the leader waits for every node, then publishes an epoch a margin
 *     ahead (what the slowest follower needs to hear it and start its threads: at least
 *     250 ms and 20 ticks) on the TRANSIENT_LOCAL control topic, so a follower that
 *     matches late still gets it. Each node anchors logical time 0 at the instant of
 *     its CLOCK_MONOTONIC that is the epoch on the leader's clock;
 *   - every wait is bounded by the join time and ends early when another node stops or
 *     the user interrupts; a node that cannot start says why to the others, who then
 *     stop at once instead of waiting out their own time.
 */
#include "dds_ctl_priv.h"

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { START_PINGS = 16, RUN_PINGS = 4 };
#define PING_TIMEOUT_NS 100000000LL /* one ping's answer */
#define POLL_NS 5000000LL           /* how often a wait asks whether it was cancelled */
#define MARGIN_MIN_NS 250000000LL   /* the start epoch at least this far ahead */
#define CANCELLED INT64_MIN         /* a wait ended by the user */

typedef bool (*cancel_fn)(void *user);
enum wait_end { GO, HALT, CANCEL, TIMEOUT };

/* ---- the clock ---- */

void rtc__ctl_on_ping(rtc_nodectl *c, const rtc_control_Ping *p, int64_t t_recv)
{
    const rtc__ctl_peer *me = &c->peers[c->self];
    if (p->run_id != c->dn->p.run_id || p->to_key != me->key)
        return;
    if (!p->pong) {
        if (c->self != 0)
            return; /* only the leader answers */
        rtc_control_Ping r = *p;
        r.pong = 1;
        r.from_key = me->key;
        r.to_key = p->from_key;
        r.nonce = c->dn->nonce;
        r.t2_ns = t_recv;
        r.t3_ns = rtc__dds_realtime_ns();
        dds_write(c->clk_wr, &r);
        return;
    }
    if (p->from_key != c->peers[0].key)
        return;
    pthread_mutex_lock(&c->lock);
    if (p->seq == c->ping_seq && !c->pong_got) {
        c->pong_got = true;
        c->pong_t2 = p->t2_ns;
        c->pong_t3 = p->t3_ns;
        c->pong_t4 = t_recv;
    }
    pthread_mutex_unlock(&c->lock);
}

/* One ping and its pong by @p until: this node's offset and the round trip. */
static bool ping_once(rtc_nodectl *c, int64_t until, int64_t *offset, int64_t *rtt)
{
    pthread_mutex_lock(&c->lock);
    uint32_t seq = ++c->ping_seq;
    c->pong_got = false;
    uint32_t gen = atomic_load_explicit(&c->gen, memory_order_acquire);
    pthread_mutex_unlock(&c->lock);
    rtc_control_Ping p = {.from_key = c->peers[c->self].key, .to_key = c->peers[0].key,
                              .run_id = c->dn->p.run_id, .nonce = c->dn->nonce, .seq = seq,
                              .t1_ns = rtc__dds_realtime_ns()};
    if (dds_write(c->clk_wr, &p) != DDS_RETCODE_OK)
        return false;
    for (;;) {
        pthread_mutex_lock(&c->lock);
        bool got = c->pong_got;
        int64_t t2 = c->pong_t2, t3 = c->pong_t3, t4 = c->pong_t4;
        pthread_mutex_unlock(&c->lock);
        if (got) {
            *rtt = (t4 - p.t1_ns) - (t3 - t2);
            *offset = ((p.t1_ns - t2) + (t4 - t3)) / 2;
            return true;
        }
        if (rtc_time_now_ns() >= until)
            return false;
        gen = rtc__ctl_wait(c, gen, until);
    }
}

/* @p n pings by @p until: the offset of the one with the shortest round trip. Returns
 * how many were answered. */
static int measure(rtc_nodectl *c, int n, int64_t until, cancel_fn cancelled, void *user,
                   int64_t *offset, int64_t *rtt)
{
    int got = 0;
    *rtt = INT64_MAX;
    for (int i = 0; i < n && rtc_time_now_ns() < until; i++) {
        if (cancelled && cancelled(user))
            break;
        int64_t o, r, t = rtc_time_now_ns() + PING_TIMEOUT_NS;
        if (!ping_once(c, t < until ? t : until, &o, &r))
            continue;
        got++;
        if (r < *rtt) {
            *rtt = r;
            *offset = o;
        }
    }
    return got;
}

void rtc__ctl_remeasure(rtc_nodectl *c)
{
    int64_t off, rtt;
    if (!measure(c, RUN_PINGS, rtc_time_now_ns() + RUN_PINGS * PING_TIMEOUT_NS, NULL, NULL,
                 &off, &rtt))
        return;
    pthread_mutex_lock(&c->lock);
    int64_t d = off - c->clock.offset_ns;
    d = d < 0 ? -d : d;
    if (d > c->clock.drift_max_ns)
        c->clock.drift_max_ns = d;
    c->clock.measurements++;
    pthread_mutex_unlock(&c->lock);
}

/* ---- waiting ---- */

/* Wait until @p done (called with the lock held) says so, the run stopped, @p cancelled
 * says so, or @p until. */
static enum wait_end wait_for(rtc_nodectl *c, bool (*done)(const rtc_nodectl *c),
                              int64_t until, cancel_fn cancelled, void *user)
{
    uint32_t gen = atomic_load_explicit(&c->gen, memory_order_acquire);
    for (;;) {
        pthread_mutex_lock(&c->lock);
        bool ok = done(c), stopped = c->stop_set;
        pthread_mutex_unlock(&c->lock);
        if (ok)
            return GO;
        if (stopped)
            return HALT;
        if (cancelled && cancelled(user))
            return CANCEL;
        int64_t now = rtc_time_now_ns();
        if (now >= until)
            return TIMEOUT;
        gen = rtc__ctl_wait(c, gen, now + POLL_NS < until ? now + POLL_NS : until);
    }
}

static bool all_ready(const rtc_nodectl *c)
{
    for (size_t i = 0; i < c->n; i++)
        if (i != c->self && !c->peers[i].ready)
            return false;
    return true;
}

static bool have_epoch(const rtc_nodectl *c)
{
    return c->epoch_ns != 0;
}

/* "b, c" of the nodes @p pick says (lock held when it reads the plane). */
static size_t list_nodes(const rtc_nodectl *c, bool (*pick)(const rtc_nodectl *, size_t),
                         char *buf, size_t cap)
{
    size_t n = 0, len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < c->n; i++)
        if (i != c->self && pick(c, i) && len < cap)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", n++ ? ", " : "",
                                    c->peers[i].name);
    return n;
}

static bool not_ready(const rtc_nodectl *c, size_t i)
{
    return !c->peers[i].ready;
}

static bool no_hello(const rtc_nodectl *c, size_t i)
{
    rtc_node_Hello h;
    return rtc__dds_find_hello(c->dn, c->peers[i].name, &h) <= 0;
}

/* ---- join ---- */

int rtc_nodectl_join(rtc_nodectl *c, bool (*cancelled)(void *user), void *user)
{
    if (!c)
        return RTC_EINVAL;
    int64_t deadline = rtc_time_now_ns() + c->join_ns;
    char missing[512];
    size_t n;
    while ((n = list_nodes(c, no_hello, missing, sizeof missing)) > 0) {
        if (cancelled && cancelled(user))
            return RTC_ESTATE;
        if (rtc_time_now_ns() >= deadline) {
            rtc_log(c->lg, RTC_LOG_ERROR, "node%s %s did not join node %s within %.0f s "
                    "(session %s, DDS domain %d): start %s with --node and the same system "
                    "and placement", n > 1 ? "s" : "", missing, c->peers[c->self].name,
                    (double)c->join_ns / 1e9, c->dn->p.session, c->dn->p.domain,
                    n > 1 ? "each" : "it");
            return RTC_ETIMEDOUT;
        }
        rtc_time_sleep_until_ns(rtc_time_now_ns() + POLL_NS);
    }
    return RTC_OK;
}

/* ---- start ---- */

/* This node cannot start: one line, and the others hear why. */
static int64_t refuse(rtc_nodectl *c, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int64_t refuse(rtc_nodectl *c, int rc, const char *fmt, ...)
{
    char why[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    rtc_log(c->lg, RTC_LOG_ERROR, "node %s: %s", c->peers[c->self].name, why);
    rtc_nodectl_stopped(c, RTC_NODECTL_ERROR, 0, why);
    return rc;
}

/* A follower's clock against the leader's: measured, judged against the bound. */
static int64_t clock_at_start(rtc_nodectl *c, int64_t until, cancel_fn cancelled, void *user)
{
    int64_t off = 0, rtt = 0;
    int got = measure(c, START_PINGS, until, cancelled, user, &off, &rtt);
    if (cancelled && cancelled(user))
        return 0;
    if (!got)
        return refuse(c, RTC_ETIMEDOUT, "the leader %s answered no clock ping within %.0f s",
                      c->peers[0].name, (double)c->join_ns / 1e9);
    pthread_mutex_lock(&c->lock);
    c->clock.measured = true;
    c->clock.offset_ns = off;
    c->clock.rtt_ns = rtt;
    c->clock.measurements = 1;
    pthread_mutex_unlock(&c->lock);
    int64_t a = off < 0 ? -off : off;
    if (a > c->clock_max_ns)
        return refuse(c, RTC_ELIMIT, "clock offset to the leader %s is %.3f ms (round trip "
                      "%.3f ms), above the bound of %.3f ms (--clock-offset-max): discipline "
                      "the clocks with chrony or linuxptp (README \"Distributed runs\")",
                      c->peers[0].name, (double)off / 1e6, (double)rtt / 1e6,
                      (double)c->clock_max_ns / 1e6);
    if (a > c->clock_max_ns / 10)
        rtc_log(c->lg, RTC_LOG_WARNING, "node %s: clock offset to the leader %s is %.3f ms "
                "(round trip %.3f ms): compensated at the start, but clocks that far apart "
                "drift (chrony or linuxptp: README \"Distributed runs\")",
                c->peers[c->self].name, c->peers[0].name, (double)off / 1e6,
                (double)rtt / 1e6);
    return 1;
}

/* The leader: every node ready, then the epoch. Returns 1, 0 (halted) or an error. */
static int64_t lead(rtc_nodectl *c, int64_t until, cancel_fn cancelled, void *user)
{
    enum wait_end w = wait_for(c, all_ready, until, cancelled, user);
    if (w == TIMEOUT) {
        char missing[512];
        pthread_mutex_lock(&c->lock);
        size_t n = list_nodes(c, not_ready, missing, sizeof missing);
        pthread_mutex_unlock(&c->lock);
        return refuse(c, RTC_ETIMEDOUT, "node%s %s not ready to start within %.0f s",
                      n > 1 ? "s" : "", missing, (double)c->join_ns / 1e9);
    }
    if (w != GO)
        return w == CANCEL ? CANCELLED : 0;
    int64_t margin = 20 * c->tick_ns;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 1; i < c->n; i++) {
        int64_t r = c->peers[i].status.offset_rtt_ns;
        margin = 4 * r > margin ? 4 * r : margin;
    }
    int64_t epoch = rtc__dds_realtime_ns() + (margin > MARGIN_MIN_NS ? margin : MARGIN_MIN_NS);
    c->epoch_ns = epoch;
    pthread_mutex_unlock(&c->lock);
    rtc_control_Sample s = {.epoch_ns = epoch};
    rtc__ctl_publish(c, rtc_control_KIND_START, &s);
    return 1;
}

/* A follower: the leader's epoch. */
static int64_t follow(rtc_nodectl *c, int64_t until, cancel_fn cancelled, void *user)
{
    enum wait_end w = wait_for(c, have_epoch, until, cancelled, user);
    if (w == TIMEOUT)
        return refuse(c, RTC_ETIMEDOUT, "the leader %s did not start the run within %.0f s",
                      c->peers[0].name, (double)c->join_ns / 1e9);
    return w == GO ? 1 : w == CANCEL ? CANCELLED : 0;
}

/* READY, with the offset (its round trip helps the leader size the margin). */
static void say_ready(rtc_nodectl *c)
{
    rtc_control_Sample s = {0};
    pthread_mutex_lock(&c->lock);
    s.offset_ns = c->clock.offset_ns;
    s.offset_rtt_ns = c->clock.rtt_ns;
    s.state = rtc_control_STATE_READY;
    c->state = rtc_control_STATE_READY;
    c->peers[c->self].status.offset_rtt_ns = c->clock.rtt_ns;
    pthread_mutex_unlock(&c->lock);
    rtc__ctl_publish(c, rtc_control_KIND_READY, &s);
}

int64_t rtc_nodectl_start(rtc_nodectl *c, bool (*cancelled)(void *user), void *user)
{
    if (!c)
        return RTC_EINVAL;
    int64_t until = rtc_time_now_ns() + c->join_ns;
    int64_t r = c->self == 0 ? 1 : clock_at_start(c, until, cancelled, user);
    if (r > 0) {
        say_ready(c);
        r = c->self == 0 ? lead(c, until, cancelled, user) : follow(c, until, cancelled, user);
    }
    if (r == CANCELLED || (r == 0 && cancelled && cancelled(user))) {
        rtc_nodectl_stopped(c, RTC_NODECTL_INTERRUPTED, 0, "interrupted before the start");
        return 0;
    }
    if (r <= 0)
        return r; /* halted by another node (0), or refused (logged, told) */
    pthread_mutex_lock(&c->lock);
    int64_t epoch = c->epoch_ns, off = c->clock.offset_ns;
    pthread_mutex_unlock(&c->lock);
    /* the epoch on the leader's clock is epoch + offset on this one */
    int64_t t0 = rtc__ctl_mono_of_real(epoch + off), ahead = t0 - rtc_time_now_ns();
    if (ahead < c->tick_ns)
        return refuse(c, RTC_ELIMIT, "the start epoch was %.1f ms past when this node got "
                      "it (a start or clock slower than the leader's margin)",
                      (double)-ahead / 1e6);
    pthread_mutex_lock(&c->lock);
    c->clock.epoch_ns = epoch;
    c->clock.t0_mono_ns = t0;
    c->state = rtc_control_STATE_RUNNING;
    pthread_mutex_unlock(&c->lock);
    rtc__ctl_set_t0(t0);
    return t0;
}
