/*
 * estimate.c — the estimator: lifecycle, sample intake, queries, the notes of supplied
 * values and the monitor, and the coupling-error monitor; the dispatcher over the methods.
 *
 * DESIGN. An estimator is one fixed-size object allocated at arm time. rtc_est_push(),
 * rtc_est_query() and rtc_est_supply() only read and write that object, in bounded time:
 * the RT loop calls them for every coupling input on every tick. The object is a closed
 * tagged union: the configured method is the tag, state holds that method's own state, and
 * the table below gives the method's hooks (estimate_method.h); the method code lives in
 * one leaf file per method (estimate_poly.c, estimate_ei.c, estimate_dr.c,
 * estimate_kalman.c), which never calls back here; auto and kalman are the selector
 * (estimate_select.c) over leaves. What every method shares is done here once.
 * Invariants:
 *   - hist holds the accepted samples, newest first, with strictly increasing times, so
 *     every divided difference has a non-zero denominator;
 *   - a rejected or dropped sample changes no estimate (only counters, the order check and
 *     the method's run of gate rejections), which the unit tests assert;
 *   - queries are const: a method predicts on copies. rtc_est_supply() is a query plus a
 *     note of what was supplied (and, for the selector, what each candidate would have
 *     supplied) in the ring "notes", newest last, times increasing;
 *   - a sample is judged before it is taken: the value supplied for its time (notes
 *     interpolated, or the estimate from the samples before it when no notes bracket its
 *     time) against its value feeds the monitor and the selector's scores;
 *   - what another thread may read while the owner runs (the monitor, "pub") is written
 *     with relaxed single-writer atomic stores: each figure whole, the set approximately
 *     consistent (the pattern of rtcosim/hist.h, whose histogram holds the delays).
 * Configuration text (names, parameters) is in estimate_config.c, the noise helper in
 * estimate_noise.c.
 */
#include "estimate_method.h"

#include "rtcosim/hist.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The methods, indexed by rtc_est_method: one row per leaf method (auto and kalman are
 * the selector). */
static const est_method *const methods[RTC_EST_METHOD_COUNT] = {
    [RTC_EST_ZOH] = &rtc__est_zoh,
    [RTC_EST_LINEAR] = &rtc__est_linear,
    [RTC_EST_QUADRATIC] = &rtc__est_quadratic,
    [RTC_EST_EI] = &rtc__est_ei,
    [RTC_EST_DEAD_RECKONING] = &rtc__est_dead_reckoning,
    [RTC_EST_KALMAN_CV] = &rtc__est_kalman,
    [RTC_EST_KALMAN_CA] = &rtc__est_kalman,
};

#define NOTE_VALS (1 + RTC_EST_MAX_CANDIDATES)

/* One note: the tick, the value supplied, and each candidate's (selector only); payback:
 * the integral of the values supplied before the tick and the value supplied at it, both
 * without the corrections. */
typedef struct est_note {
    int64_t t_ns;
    double v[NOTE_VALS];
    double s, u;
} est_note;

/* The monitor as other threads read it (single writer: the owner). */
typedef struct est_pub {
    _Atomic uint64_t samples, supplied, switches;
    _Atomic double sum_sq, max_abs, last;
    _Atomic uint32_t in_use;
    _Atomic uint64_t ticks[RTC_EST_MAX_CANDIDATES];
    _Atomic double score[RTC_EST_MAX_CANDIDATES], q[RTC_EST_MAX_CANDIDATES],
        r[RTC_EST_MAX_CANDIDATES];
    _Atomic double payback_last, payback_max;
    _Atomic uint64_t payback_unpaid;
} est_pub;

struct rtc_est {
    rtc_est_config cfg;
    const est_method *method; /* methods[cfg.method]; NULL for the selector */
    est_hist hist;
    /* Newest sample time seen (accepted or gate-rejected): the order check. */
    bool have_seen;
    int64_t t_seen_ns;
    est_state state; /* the method's own, tagged by cfg.method */
    rtc_est_stats st;
    double delay_sum_ns;
    est_note notes[RTC_EST_NOTES]; /* ring: first, n */
    uint32_t notes_first, notes_n;
    /* Ticks supplied since the last accepted sample, and their average per sample (an
     * exponential average over 8 samples): how sparse the signal is for its consumer. */
    uint32_t since;
    double per_sample;
    rtc_hist *delays;
    est_payback payback; /* cfg.payback > 0 (estimate_payback.c) */
    est_pub pub;
};

static bool is_select(const rtc_est *e)
{
    return e->method == NULL;
}

static void publish_candidates(rtc_est *e);

/* ---- lifecycle ------------------------------------------------------------------------- */

int rtc_est_new(const rtc_est_config *cfg, rtc_est **out, char *err, size_t cap)
{
    if (!out) {
        if (err && cap)
            snprintf(err, cap, "NULL argument");
        return RTC_EINVAL;
    }
    *out = NULL;
    int rc = rtc_est_config_validate(cfg, err, cap);
    if (rc != RTC_OK)
        return rc;
    /* The only allocation in the estimator's life (arm phase); run touches nothing else. */
    rtc_est *e = calloc(1, sizeof *e);
    if (!e) {
        if (err && cap)
            snprintf(err, cap, "out of memory");
        return RTC_ENOMEM;
    }
    e->cfg = *cfg;
    e->method = methods[cfg->method];
    /* delays up to 1 s resolved (larger ones counted in the top bucket, max exact) */
    if (rtc_hist_new(1000000000, &e->delays) != RTC_OK) {
        free(e);
        if (err && cap)
            snprintf(err, cap, "out of memory");
        return RTC_ENOMEM;
    }
    rtc_est_reset(e);
    publish_candidates(e);
    *out = e;
    return RTC_OK;
}

void rtc_est_free(rtc_est *est)
{
    if (est)
        rtc_hist_free(est->delays);
    free(est);
}

int rtc_est_reset(rtc_est *e)
{
    if (!e)
        return RTC_EINVAL;
    e->hist.n = 0;
    e->have_seen = false;
    e->t_seen_ns = 0;
    e->notes_first = e->notes_n = 0;
    memset(&e->state, 0, sizeof e->state);
    e->payback = (est_payback){.unpaid = e->payback.unpaid}; /* the count is the run's */
    if (is_select(e)) {
        rtc__est_select_init(&e->state.sel, &e->cfg);
        atomic_store_explicit(&e->pub.in_use, 0, memory_order_relaxed);
    }
    e->st.newest_t_ns = INT64_MIN;
    return RTC_OK;
}

const rtc_est_config *rtc_est_get_config(const rtc_est *est)
{
    return est ? &est->cfg : NULL;
}

int rtc_est_get_stats(const rtc_est *e, rtc_est_stats *out)
{
    if (!e || !out)
        return RTC_EINVAL;
    *out = e->st;
    out->delay_mean_ns = e->st.accepted ? e->delay_sum_ns / (double)e->st.accepted : 0.0;
    return RTC_OK;
}

/* ---- push and query -------------------------------------------------------------------- */

/* One NaN would poison every later estimate of a filter, so it is stopped at the door. */
static bool sample_finite(const rtc_est_sample *s)
{
    if (!isfinite(s->value))
        return false;
    for (uint32_t i = 0; i < s->n_deriv; i++)
        if (!isfinite(s->deriv[i]))
            return false;
    return true;
}

/* Take s into the history, newest first (s is newer than everything there). */
static void hist_push(est_hist *h, const rtc_est_sample *s)
{
    memmove(&h->s[1], &h->s[0], (EST_HIST - 1) * sizeof h->s[0]);
    h->s[0] = *s;
    if (h->n < EST_HIST)
        h->n++;
}

/* Count s as accepted and update the delay statistics (accepted samples only: a dropped
 * one arrived after a newer one, so its delay is not the delay the estimate works with). */
static void count_accepted(rtc_est *e, const rtc_est_sample *s)
{
    int64_t delay = s->arrival_ns - s->t_ns;
    e->st.accepted++;
    e->st.newest_t_ns = s->t_ns;
    e->st.delay_last_ns = delay;
    if (e->st.accepted == 1 || delay > e->st.delay_max_ns)
        e->st.delay_max_ns = delay;
    e->delay_sum_ns += (double)delay;
}

/* The method's value and rate at t_ns (the history holds a sample). */
static void eval(const rtc_est *e, int64_t t_ns, double *value, double *rate)
{
    if (is_select(e))
        rtc__est_select_eval(&e->state.sel, &e->hist, t_ns, value, rate);
    else
        e->method->eval(&e->state.leaf, &e->cfg, &e->hist, t_ns, value, rate);
}

/* What the consumer is supplied at t_ns (v[0]) and each candidate's value (v[1..]). */
static void note_values(const rtc_est *e, int64_t t_ns, const rtc_est_out *o, double *v)
{
    v[0] = o->value;
    if (is_select(e))
        rtc__est_select_note(&e->state.sel, &e->hist, t_ns, v + 1);
}

static const est_note *note_at(const rtc_est *e, uint32_t i)
{
    return &e->notes[(e->notes_first + i) % RTC_EST_NOTES];
}

/* What was supplied for the time t_ns (and what each candidate would have supplied), into
 * v, and the payback's integral of the values supplied up to t_ns into *s: the two notes
 * around t_ns interpolated (the integral: the value of the note before t_ns held from it,
 * exact up to the next tick); without notes around it, the estimate for t_ns from the
 * samples so far (*s NaN). Returns false when there is nothing to compare (no sample
 * yet). */
static bool supplied_for(const rtc_est *e, int64_t t_ns, double *v, double *s)
{
    *s = NAN;
    uint32_t n = e->notes_n, k = is_select(e) ? 1 + e->state.sel.n : 1;
    if (n > 0 && note_at(e, 0)->t_ns <= t_ns && t_ns <= note_at(e, n - 1)->t_ns) {
        uint32_t i = n - 1; /* the newest note at or before t_ns: delays are short */
        while (i > 0 && note_at(e, i)->t_ns > t_ns)
            i--;
        const est_note *lo = note_at(e, i), *hi = note_at(e, i + 1 < n ? i + 1 : i);
        double w = hi->t_ns > lo->t_ns
                       ? (double)(t_ns - lo->t_ns) / (double)(hi->t_ns - lo->t_ns) : 0.0;
        for (uint32_t j = 0; j < k; j++)
            v[j] = lo->v[j] + w * (hi->v[j] - lo->v[j]);
        *s = t_ns == hi->t_ns ? hi->s : lo->s + lo->u * EST_NS_TO_S(t_ns - lo->t_ns);
        return true;
    }
    rtc_est_out o;
    if (rtc_est_query(e, t_ns, &o) == RTC_EST_NODATA)
        return false;
    note_values(e, t_ns, &o, v);
    return true;
}

/* The monitor's share of an accepted sample: its error against what was supplied, and its
 * delay. */
static void monitor_sample(rtc_est *e, const rtc_est_sample *s, bool judged, double supplied)
{
    rtc_hist_add(e->delays, s->arrival_ns - s->t_ns);
    if (!judged)
        return;
    double d = supplied - s->value;
    if (!isfinite(d))
        return;
    est_pub *p = &e->pub;
    uint64_t n = atomic_load_explicit(&p->samples, memory_order_relaxed);
    double sq = atomic_load_explicit(&p->sum_sq, memory_order_relaxed);
    double mx = atomic_load_explicit(&p->max_abs, memory_order_relaxed);
    atomic_store_explicit(&p->sum_sq, sq + d * d, memory_order_relaxed);
    atomic_store_explicit(&p->max_abs, fmax(mx, fabs(d)), memory_order_relaxed);
    atomic_store_explicit(&p->last, d, memory_order_relaxed);
    atomic_store_explicit(&p->samples, n + 1, memory_order_relaxed);
}

/* Publish what the candidates use now: the one in use, scores, Kalman noise. */
static void publish_candidates(rtc_est *e)
{
    est_pub *p = &e->pub;
    if (!is_select(e)) {
        if (e->cfg.method == RTC_EST_KALMAN_CV || e->cfg.method == RTC_EST_KALMAN_CA) {
            double q, r;
            rtc__est_kalman_noise(&e->state.leaf, &e->cfg, &q, &r);
            atomic_store_explicit(&p->q[0], q, memory_order_relaxed);
            atomic_store_explicit(&p->r[0], r, memory_order_relaxed);
        }
        return;
    }
    const est_select *sel = &e->state.sel;
    for (uint32_t i = 0; i < sel->n; i++) {
        atomic_store_explicit(&p->score[i], sel->score[i], memory_order_relaxed);
        rtc_est_method m = sel->cfg[i].method;
        if (m == RTC_EST_KALMAN_CV || m == RTC_EST_KALMAN_CA) {
            double q, r;
            rtc__est_kalman_noise(&sel->leaf[i], &sel->cfg[i], &q, &r);
            atomic_store_explicit(&p->q[i], q, memory_order_relaxed);
            atomic_store_explicit(&p->r[i], r, memory_order_relaxed);
        }
    }
    atomic_store_explicit(&p->in_use, sel->cur, memory_order_relaxed);
    atomic_store_explicit(&p->switches, sel->switches, memory_order_relaxed);
}

int rtc_est_push(rtc_est *e, const rtc_est_sample *s)
{
    if (!e || !s || s->n_deriv > 2)
        return RTC_EINVAL;
    e->st.offered++;
    if (!sample_finite(s)) {
        e->st.rejected_invalid++;
        return RTC_EST_REJECTED_INVALID;
    }
    /* Against the newest time seen, gate-rejected samples included: the run collected for
     * a reset must be in time order too, and a sample older than what a filter has
     * already been predicted past cannot be used without rewinding it. */
    if (e->have_seen && s->t_ns <= e->t_seen_ns) {
        if (s->t_ns < e->t_seen_ns) {
            e->st.dropped_old++;
            return RTC_EST_DROPPED_OLD;
        }
        e->st.dropped_duplicate++;
        return RTC_EST_DROPPED_DUPLICATE;
    }
    /* Judged before it is taken: what was supplied for its time came from the samples
     * before it. */
    double pred[NOTE_VALS], sint;
    bool judged = supplied_for(e, s->t_ns, pred, &sint);
    est_take r = {.verdict = RTC_EST_ACCEPTED};
    if (is_select(e)) {
        if (judged)
            rtc__est_select_judge(&e->state.sel, &e->cfg, pred + 1, s->value,
                                  e->per_sample > RTC_EST_SPARSE_TICKS);
        rtc__est_select_take(&e->state.sel, &e->hist, s);
    } else if (e->method->take) {
        e->method->take(&e->state.leaf, &e->cfg, &e->hist, s, &r);
    }
    e->have_seen = true;
    e->t_seen_ns = s->t_ns;
    if (r.verdict == RTC_EST_REJECTED_OUTLIER) {
        e->st.rejected_outlier++;
        return RTC_EST_REJECTED_OUTLIER;
    }
    if (r.verdict == RTC_EST_ACCEPTED_RESET) {
        e->hist.n = 0;
        for (uint32_t i = 0; i < r.n_rebase; i++)
            hist_push(&e->hist, &r.rebase[i]);
        e->st.resets++;
    } else {
        hist_push(&e->hist, s);
    }
    count_accepted(e, s);
    if (e->cfg.payback > 0) {
        rtc__est_payback_sample(&e->payback, s, sint);
        atomic_store_explicit(&e->pub.payback_unpaid, e->payback.unpaid,
                              memory_order_relaxed);
    }
    if (e->st.accepted <= 2) /* the first interval is the first estimate */
        e->per_sample = e->since;
    else
        e->per_sample += ((double)e->since - e->per_sample) / 8.0;
    e->since = 0;
    monitor_sample(e, s, judged, pred[0]);
    publish_candidates(e);
    return (int)r.verdict;
}

int rtc_est_query(const rtc_est *e, int64_t t_ns, rtc_est_out *out)
{
    if (!e)
        return RTC_EINVAL;
    rtc_est_out o = {.value = e->cfg.fallback, .rate = 0.0, .age_ns = INT64_MAX};
    if (e->hist.n == 0) {
        o.quality = RTC_EST_NODATA;
    } else {
        int64_t newest = e->hist.s[0].t_ns;
        o.age_ns = t_ns - newest;
        if (e->cfg.stale_ns > 0 && o.age_ns >= e->cfg.stale_ns) {
            o.quality = RTC_EST_STALE;
            if (e->cfg.stale_policy == RTC_EST_STALE_HOLD) {
                /* Frozen at the limit instant: the held value continues the estimate
                 * without a jump, and its rate is 0 because it no longer moves. */
                double rate;
                eval(e, newest + e->cfg.stale_ns, &o.value, &rate);
            } else if (e->cfg.stale_policy == RTC_EST_STALE_FAULT) {
                o.quality = RTC_EST_FAULT;
            }
        } else {
            eval(e, t_ns, &o.value, &o.rate);
            o.quality = o.age_ns <= e->cfg.fresh_ns ? RTC_EST_FRESH : RTC_EST_EXTRAPOLATED;
        }
    }
    if (out)
        *out = o;
    return (int)o.quality;
}

/* Note what was supplied at t_ns, unless it is not after the newest note or too close to
 * it: notes are spaced by 1/16 of the mean delay, so the ring reaches back three times
 * the mean delay. */
static void note(rtc_est *e, int64_t t_ns, const rtc_est_out *o)
{
    if (e->notes_n > 0) {
        int64_t last = note_at(e, e->notes_n - 1)->t_ns;
        double gap = e->st.accepted ? e->delay_sum_ns / (double)e->st.accepted / 16.0 : 0.0;
        if (t_ns <= last || (double)(t_ns - last) < gap)
            return;
    }
    uint32_t slot = (e->notes_first + e->notes_n) % RTC_EST_NOTES;
    if (e->notes_n < RTC_EST_NOTES)
        e->notes_n++;
    else
        e->notes_first = (e->notes_first + 1) % RTC_EST_NOTES;
    e->notes[slot].t_ns = t_ns;
    e->notes[slot].s = e->payback.s_int;
    e->notes[slot].u = e->payback.s_last;
    note_values(e, t_ns, o, e->notes[slot].v);
}

/* The payback correction added to the value o supplied at t_ns (cfg.payback > 0): only to
 * an estimate (fresh, extrapolated or held stale), never to a fallback value. */
static void pay_back(rtc_est *e, int64_t t_ns, rtc_est_out *o)
{
    bool estimate = o->quality == RTC_EST_FRESH || o->quality == RTC_EST_EXTRAPOLATED ||
                    (o->quality == RTC_EST_STALE && e->cfg.stale_policy == RTC_EST_STALE_HOLD);
    /* the time scale: the mean delay, or without one (samples that arrive at once) the
     * newest sample spacing, so that a debt is always paid */
    double scale = e->st.accepted ? e->delay_sum_ns / (double)e->st.accepted * 1e-9 : 0.0;
    if (!(scale > 0.0) && e->hist.n >= 2)
        scale = EST_NS_TO_S(e->hist.s[0].t_ns - e->hist.s[1].t_ns);
    double w = estimate && scale > 0.0 ? 1.0 / (e->cfg.payback * scale) : 0.0;
    double c = rtc__est_payback_supply(&e->payback, t_ns, w, o->value);
    o->value += c;
    est_pub *p = &e->pub;
    double mx = atomic_load_explicit(&p->payback_max, memory_order_relaxed);
    atomic_store_explicit(&p->payback_max, fmax(mx, fabs(c)), memory_order_relaxed);
    atomic_store_explicit(&p->payback_last, c, memory_order_relaxed);
}

int rtc_est_supply(rtc_est *e, int64_t t_ns, rtc_est_out *out)
{
    rtc_est_out o;
    int q = rtc_est_query(e, t_ns, &o);
    if (q < 0)
        return q;
    if (q != RTC_EST_NODATA) {
        if (e->cfg.payback > 0)
            pay_back(e, t_ns, &o);
        note(e, t_ns, &o);
        if (e->since < UINT32_MAX)
            e->since++;
        est_pub *p = &e->pub;
        uint32_t c = is_select(e) ? e->state.sel.cur : 0;
        atomic_store_explicit(&p->ticks[c],
                              atomic_load_explicit(&p->ticks[c], memory_order_relaxed) + 1,
                              memory_order_relaxed);
        atomic_store_explicit(&p->supplied,
                              atomic_load_explicit(&p->supplied, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    }
    if (out)
        *out = o;
    return q;
}

int rtc_est_get_monitor(const rtc_est *e, rtc_est_monitor *out)
{
    if (!e || !out)
        return RTC_EINVAL;
    const est_pub *p = &e->pub;
    rtc_hist_summary d;
    rtc_hist_summarize(e->delays, &d);
    uint64_t n = atomic_load_explicit(&p->samples, memory_order_relaxed);
    double sq = atomic_load_explicit(&p->sum_sq, memory_order_relaxed);
    *out = (rtc_est_monitor){
        .samples = n,
        .error_rms = n ? sqrt(sq / (double)n) : 0.0,
        .error_max = atomic_load_explicit(&p->max_abs, memory_order_relaxed),
        .error_last = atomic_load_explicit(&p->last, memory_order_relaxed),
        .supplied = atomic_load_explicit(&p->supplied, memory_order_relaxed),
        .delays = d.count, .delay_min_ns = d.min, .delay_p50_ns = d.p50,
        .delay_p99_ns = d.p99, .delay_max_ns = d.max, .delay_mean_ns = d.avg,
        .n_candidates = is_select(e) ? e->state.sel.n : 1,
        .in_use = atomic_load_explicit(&p->in_use, memory_order_relaxed),
        .switches = atomic_load_explicit(&p->switches, memory_order_relaxed),
        .payback_last = atomic_load_explicit(&p->payback_last, memory_order_relaxed),
        .payback_max = atomic_load_explicit(&p->payback_max, memory_order_relaxed),
        .payback_unpaid = atomic_load_explicit(&p->payback_unpaid, memory_order_relaxed),
    };
    for (uint32_t i = 0; i < out->n_candidates; i++) {
        rtc_est_method m = is_select(e) ? e->state.sel.cfg[i].method : e->cfg.method;
        bool kf = m == RTC_EST_KALMAN_CV || m == RTC_EST_KALMAN_CA;
        double score = atomic_load_explicit(&p->score[i], memory_order_relaxed);
        out->cand[i] = (rtc_est_candidate){
            .method = m,
            .ticks = atomic_load_explicit(&p->ticks[i], memory_order_relaxed),
            .score_rms = sqrt(score),
            .q = kf ? atomic_load_explicit(&p->q[i], memory_order_relaxed) : NAN,
            .r = kf ? atomic_load_explicit(&p->r[i], memory_order_relaxed) : NAN,
        };
    }
    return RTC_OK;
}

/* ---- coupling-error monitor ------------------------------------------------------------ */

void rtc_est_errmon_init(rtc_est_errmon *mon)
{
    if (mon)
        *mon = (rtc_est_errmon){0};
}

void rtc_est_errmon_push(rtc_est_errmon *mon, double predicted, double actual)
{
    if (!mon)
        return;
    double d = predicted - actual;
    if (!isfinite(d)) {
        mon->invalid++;
        return;
    }
    mon->count++;
    mon->sum_sq += d * d;
    if (fabs(d) > mon->max_abs)
        mon->max_abs = fabs(d);
    mon->last = d;
}

double rtc_est_errmon_rms(const rtc_est_errmon *mon)
{
    if (!mon || mon->count == 0)
        return 0.0;
    return sqrt(mon->sum_sq / (double)mon->count);
}

int rtc_est_push_monitored(rtc_est *e, const rtc_est_sample *s, rtc_est_errmon *mon)
{
    if (!e || !s || !mon)
        return RTC_EINVAL;
    /* Queried before the push: the value a consumer at the sample's instant would have
     * been given, which is what Milne's device compares with the truth. */
    rtc_est_out before;
    int q = rtc_est_query(e, s->t_ns, &before);
    int rc = rtc_est_push(e, s);
    bool taken = rc == RTC_EST_ACCEPTED || rc == RTC_EST_ACCEPTED_RESET;
    if (taken && q != RTC_EST_NODATA)
        rtc_est_errmon_push(mon, before.value, s->value);
    return rc;
}
