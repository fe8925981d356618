/*
 * estimate.c — the estimator: lifecycle, sample intake, queries and the coupling-error
 * monitor; the dispatcher over the methods.
 *
 * DESIGN. An estimator is one fixed-size object allocated at arm time. rtc_est_push() and
 * rtc_est_query() only read and write that object, in bounded time: the RT loop calls them
 * for every coupling input on every tick. The object is a closed tagged union: the
 * configured method is the tag, state holds that method's own state, and the table below
 * gives the method's hooks (estimate_method.h); the method code lives in one leaf file per
 * method (estimate_poly.c, estimate_ei.c, estimate_dr.c, estimate_kalman.c), which never
 * calls back here. What every method shares is done here once. Invariants:
 *   - hist holds the accepted samples, newest first, with strictly increasing times, so
 *     every divided difference has a non-zero denominator;
 *   - a rejected or dropped sample changes no estimate (only counters, the order check and
 *     the method's run of gate rejections), which the unit tests assert;
 *   - queries are const: a method predicts on copies.
 * Configuration text (names, parameters) is in estimate_config.c, the noise helper in
 * estimate_noise.c.
 */
#include "estimate_method.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The methods, indexed by rtc_est_method: one row per method. */
static const est_method *const methods[RTC_EST_METHOD_COUNT] = {
    [RTC_EST_ZOH] = &rtc__est_zoh,
    [RTC_EST_LINEAR] = &rtc__est_linear,
    [RTC_EST_QUADRATIC] = &rtc__est_quadratic,
    [RTC_EST_EI] = &rtc__est_ei,
    [RTC_EST_DEAD_RECKONING] = &rtc__est_dead_reckoning,
    [RTC_EST_KALMAN_CV] = &rtc__est_kalman,
    [RTC_EST_KALMAN_CA] = &rtc__est_kalman,
};

struct rtc_est {
    rtc_est_config cfg;
    const est_method *method; /* methods[cfg.method] */
    est_hist hist;
    /* Newest sample time seen (accepted or gate-rejected): the order check. */
    bool have_seen;
    int64_t t_seen_ns;
    est_state state; /* the method's own, tagged by cfg.method */
    rtc_est_stats st;
    double delay_sum_ns;
};

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
    rtc_est_reset(e);
    *out = e;
    return RTC_OK;
}

void rtc_est_free(rtc_est *est)
{
    free(est);
}

int rtc_est_reset(rtc_est *e)
{
    if (!e)
        return RTC_EINVAL;
    e->hist.n = 0;
    e->have_seen = false;
    e->t_seen_ns = 0;
    memset(&e->state, 0, sizeof e->state);
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
    est_take r = {.verdict = RTC_EST_ACCEPTED};
    if (e->method->take)
        e->method->take(&e->state, &e->cfg, &e->hist, s, &r);
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
                e->method->eval(&e->state, &e->cfg, &e->hist, newest + e->cfg.stale_ns,
                                &o.value, &rate);
            } else if (e->cfg.stale_policy == RTC_EST_STALE_FAULT) {
                o.quality = RTC_EST_FAULT;
            }
        } else {
            e->method->eval(&e->state, &e->cfg, &e->hist, t_ns, &o.value, &o.rate);
            o.quality = o.age_ns <= e->cfg.fresh_ns ? RTC_EST_FRESH : RTC_EST_EXTRAPOLATED;
        }
    }
    if (out)
        *out = o;
    return (int)o.quality;
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
