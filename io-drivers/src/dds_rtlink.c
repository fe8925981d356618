/*
 * The real-time side of a node bridge (dds_rtlink.h).
 *
 * DESIGN (DESIGN.md T3, "Real time"; the feasibility note's sections 1.4-1.6 and 2.2):
 *   - sending: the engine stamps what it wrote to the bench with the tick's logical time
 *     and wakes this thread (rtc_driver_tx); one sample carries every value to the peer
 *     with that time and its tick (best effort, keep last 1: a newer one replaces an
 *     older one not yet delivered). A tick's values of several types come in one batch
 *     per type, microseconds apart: the sample waits (bounded) until every mailbox
 *     carries the same stamp;
 *   - receiving: the values reach the mailboxes stamped with their source logical time
 *     mapped to this node's clock (the agreed start makes logical time the same on every
 *     node), and arrival now, so the estimator at the bridge's signal (the connection's:
 *     zoh, linear, dead reckoning, Kalman, auto) answers the value at each tick from the
 *     newest sample and its age. A sample older than one used is dropped (the estimator
 *     takes samples in time order) and counted out of order; a tick seen twice is a
 *     duplicate; a tick never seen is lost (until it comes after all: then it was only
 *     out of order); a sample used more than one period after its time is late;
 *   - latency: arrival minus the source's timestamp, both CLOCK_REALTIME, corrected by
 *     each node's measured offset to the leader, so it is one way on one time;
 *   - emulation (keys emulate_*, for tests and trials: this kernel has no netem): each
 *     received sample is dropped with probability emulate_loss, else held back for
 *     emulate_delay_ms +- emulate_jitter_ms (uniform), from a generator seeded with
 *     emulate_seed and the sample's tick, so a run's emulated link is the same every time
 *     it sees the same ticks. Jitter reorders samples as a real network does.
 */
#include "dds_rtlink.h"

#include "dds_ctl_priv.h"

#include "rtcosim/rt.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <stdlib.h>
#include <string.h>

#define COLLECT_WAIT_NS 200000 /* a tick's batches of values: microseconds apart */

int rtc__rtlink_open(rtc__rtlink *l, rtc_drv_base *b, const rtc_driver_config *cfg,
                     const size_t *in_sig, const size_t *out_sig, const char *self,
                     const char *peer, _Atomic uint64_t *const ctr[RTC_RTL_N])
{
    *l = (rtc__rtlink){.b = b, .in_sig = in_sig, .out_sig = out_sig, .self = self,
                       .peer = peer, .tx = cfg->tx, .sent_t = INT64_MIN};
    memcpy(l->ctr, ctr, sizeof l->ctr);
    const rtc_kv *kv = cfg->settings;
    size_t n = cfg->n_settings;
    double delay = 0, jitter = 0;
    long seed = 1;
    int rc = rtc_drv_get_double(b, NULL, kv, n, "emulate_delay_ms", 0, 0, 60000, &delay);
    if (rc == RTC_OK)
        rc = rtc_drv_get_double(b, NULL, kv, n, "emulate_jitter_ms", 0, 0, 60000, &jitter);
    if (rc == RTC_OK)
        rc = rtc_drv_get_double(b, NULL, kv, n, "emulate_loss", 0, 0, 1, &l->loss);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(b, NULL, kv, n, "emulate_seed", 1, 0, 0x7fffffffL, &seed);
    if (rc == RTC_OK && jitter > delay)
        rc = rtc_drv_bad(b, NULL, "setting emulate_jitter_ms=%g: above emulate_delay_ms=%g "
                         "(a sample cannot arrive before it was sent)", jitter, delay);
    if (rc != RTC_OK)
        return rc;
    l->delay_ns = (int64_t)(delay * 1e6);
    l->jitter_ns = (int64_t)(jitter * 1e6);
    l->seed = (uint64_t)seed;
    l->emulate = l->delay_ns > 0 || l->loss > 0;
    if (!l->emulate)
        return RTC_OK;
    /* every sample of one delay span, and a margin */
    int64_t per = b->period_ns > 0 ? b->period_ns : 1000000;
    int64_t span = (l->delay_ns + l->jitter_ns) / per + 16;
    l->cap_held = (size_t)(span < 4096 ? span : 4096);
    l->held = calloc(l->cap_held, sizeof *l->held);
    return l->held ? RTC_OK : RTC_ENOMEM;
}

bool rtc__rtlink_idle(const rtc__rtlink *l)
{
    return l->sent_t == INT64_MIN;
}

void rtc__rtlink_clear(rtc__rtlink *l)
{
    free(l->held);
    l->held = NULL;
    l->n_held = l->cap_held = 0;
}

void rtc__rtlink_kick(rtc__rtlink *l)
{
    if (!l->tx)
        return;
    atomic_fetch_add_explicit(&l->tx->seq, 1, memory_order_release);
    rtc_rt_wake(&l->tx->seq, &l->tx->waiters);
}

/* ---- waiting ---- */

static int64_t next_due(const rtc__rtlink *l)
{
    int64_t d = INT64_MAX;
    for (size_t i = 0; i < l->n_held; i++)
        if (l->held[i].due_ns < d)
            d = l->held[i].due_ns;
    return d;
}

bool rtc__rtlink_wait(rtc__rtlink *l, int64_t until_ns)
{
    int64_t due = next_due(l), wake = due < until_ns ? due : until_ns;
    if (!l->tx) {
        rtc_time_sleep_until_ns(wake);
        return false;
    }
    uint32_t seq = atomic_load_explicit(&l->tx->seq, memory_order_acquire);
    if (seq == l->tx_seen)
        seq = rtc_rt_wait_change_until(&l->tx->seq, &l->tx->waiters, seq, 0, wake);
    bool news = seq != l->tx_seen;
    l->tx_seen = seq;
    return news;
}

/* ---- receiving ---- */

static void publish_counts(rtc__rtlink *l)
{
    for (int i = 0; i < RTC_RTL_N; i++)
        atomic_store_explicit(l->ctr[i], l->n[i], memory_order_relaxed);
}

/* Is tick @p k the newest so far? Counts duplicates, reordering and gaps. */
static bool in_order(rtc__rtlink *l, int64_t k)
{
    if (!l->any) {
        l->any = true;
        l->n[RTC_RTL_LOST] += k > 0 ? (uint64_t)k : 0; /* ticks before the first: never came */
        l->last = k;
        l->window = 1;
        return true;
    }
    if (k > l->last) {
        int64_t gap = k - l->last - 1;
        l->n[RTC_RTL_LOST] += (uint64_t)gap;
        l->window = gap + 1 >= 64 ? 1 : (l->window << (gap + 1)) | 1;
        l->last = k;
        return true;
    }
    int64_t d = l->last - k;
    if (d < 64 && ((l->window >> d) & 1)) {
        l->n[RTC_RTL_DUPLICATES]++;
    } else {
        l->n[RTC_RTL_OUT_OF_ORDER]++;
        if (d < 64) { /* counted lost when the newer one came: it was only late */
            l->window |= 1ULL << d;
            l->n[RTC_RTL_LOST] -= l->n[RTC_RTL_LOST] > 0;
        }
    }
    return false;
}

/* The clocks' offsets to the leader, read again every second (the plane re-measures). */
static void refresh_offsets(rtc__rtlink *l, int64_t now)
{
    if (l->offsets_at && now - l->offsets_at < 1000000000)
        return;
    l->offsets_at = now;
    l->self_off = rtc__ctl_offset(l->self);
    l->peer_off = rtc__ctl_offset(l->peer);
}

/* Use sample @p s now (@p real_now: CLOCK_REALTIME): its values into the mailboxes. */
static bool use(rtc__rtlink *l, const rtc_node_Sample *s, int64_t real_now)
{
    rtc_drv_base *b = l->b;

    int64_t k = (int64_t)s->round;
    bool newest = in_order(l, k);
    if (newest) {
        int64_t now = rtc_time_now_ns();
        refresh_offsets(l, now);
        int64_t lat = (real_now - l->self_off) - (s->source_time_ns - l->peer_off);
        rtc_drv_latency(b, lat > 0 ? lat : 0);
        /* logical time is the same on every node: the source's time is this node's */
        int64_t t0 = rtc__ctl_t0_mono();
        int64_t at = t0 ? t0 + s->sim_time_ns : now - (lat > 0 ? lat : 0);
        if (t0 && now - at > b->period_ns)
            l->n[RTC_RTL_LATE]++;
        for (size_t i = 0; i < s->count; i++)
            rtc_drv_publish(b, l->in_sig[i], s->values[i], at, now);
        l->n[RTC_RTL_RECEIVED]++;
        l->last_arrival = now;
    }
    publish_counts(l);
    return newest;
}

/* splitmix64: the emulation's numbers, from the seed and the tick */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static double unit_of(uint64_t x)
{
    return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

bool rtc__rtlink_arrive(rtc__rtlink *l, const rtc_node_Sample *s, int64_t arrival_real)
{
    if (!l->emulate)
        return use(l, s, arrival_real);
    uint64_t r = mix(l->seed ^ mix(s->round));
    if (l->loss > 0 && unit_of(r) < l->loss) {
        l->n[RTC_RTL_EMU_DROPPED]++;
        publish_counts(l);
        return false;
    }
    int64_t d = l->delay_ns;
    if (l->jitter_ns)
        d += (int64_t)((2 * unit_of(mix(r)) - 1) * (double)l->jitter_ns);
    bool used = false;
    if (l->n_held == l->cap_held) { /* full: the earliest goes now */
        size_t e = 0;
        for (size_t i = 1; i < l->n_held; i++)
            if (l->held[i].due_ns < l->held[e].due_ns)
                e = i;
        used = use(l, &l->held[e].s, rtc__dds_realtime_ns());
        l->held[e] = l->held[--l->n_held];
    }
    l->held[l->n_held++] = (rtc__rtlink_held){.due_ns = rtc_time_now_ns() + d,
                                              .arrival_real = arrival_real, .s = *s};
    return used;
}

bool rtc__rtlink_release(rtc__rtlink *l)
{
    bool used = false;
    for (;;) {
        int64_t now = rtc_time_now_ns();
        size_t e = l->n_held;
        for (size_t i = 0; i < l->n_held; i++)
            if (l->held[i].due_ns <= now && (e == l->n_held || l->held[i].due_ns <
                                                                  l->held[e].due_ns))
                e = i;
        if (e == l->n_held)
            return used;
        used |= use(l, &l->held[e].s, rtc__dds_realtime_ns());
        l->held[e] = l->held[--l->n_held];
    }
}

/* ---- sending ---- */

bool rtc__rtlink_collect(rtc__rtlink *l, rtc_node_Sample *s)
{
    rtc_drv_base *b = l->b;
    if (!l->tx || !b->n_to_bench || (rtc__ctl_active() && !rtc__ctl_t0_mono()))
        return false;
    (void)atomic_load_explicit(&l->tx->seq, memory_order_acquire); /* then t_ns and values */
    int64_t t = atomic_load_explicit(&l->tx->t_ns, memory_order_relaxed);
    if (t == l->sent_t || !rtc_mailbox_seq(b->sig[l->out_sig[0]].mb))
        return false; /* nothing new, or nothing written yet (the initialization's values
                       * went by the lock-step channel) */
    int64_t until = rtc_time_now_ns() + COLLECT_WAIT_NS;
    for (;;) {
        bool same = true;
        int64_t stamp = 0;
        for (size_t i = 0; i < b->n_to_bench; i++) {
            rtc_sample smp;
            if (!rtc_mailbox_read(b->sig[l->out_sig[i]].mb, &smp))
                continue; /* the writer held it: the value of the last read stays */
            s->values[i] = smp.value;
            same &= i == 0 || smp.sample_ns == stamp;
            stamp = smp.sample_ns;
        }
        if (same || rtc_time_now_ns() >= until)
            break;
    }
    int64_t per = b->period_ns > 0 ? b->period_ns : 1;
    s->kind = rtc_node_KIND_TICK;
    s->round = (uint32_t)((t + per / 2) / per);
    s->sim_time_ns = t;
    s->count = (uint16_t)b->n_to_bench;
    l->sent_t = t;
    return true;
}
