/*
 * estimate.c — coupling-signal estimators: configuration, lifecycle, sample intake, queries,
 * the polynomial methods and the coupling-error monitor.
 *
 * DESIGN. An estimator is one fixed-size object allocated at arm time. rtc_est_push() and
 * rtc_est_query() only read and write that object, in bounded time: the RT loop calls them
 * for every coupling input on every tick. Invariants:
 *   - hist[] holds the accepted samples, newest first, with strictly increasing times, so
 *     every divided difference has a non-zero denominator;
 *   - a rejected or dropped sample changes no estimate (only counters, the order check and
 *     the run of gate rejections), which the unit tests assert;
 *   - queries are const: the Kalman state is predicted on a copy.
 * The Kalman filter lives in estimate_kalman.c, dead reckoning and the noise helper in
 * estimate_dr.c.
 */
#include "estimate_priv.h"

#include "rtcosim/numparse.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- names ----------------------------------------------------------------------------- */

static const char *const method_names[RTC_EST_METHOD_COUNT] = {
    "zoh", "linear", "quadratic", "ei", "dead-reckoning", "kalman-cv", "kalman-ca",
};

static const struct {
    const char *alias;
    rtc_est_method method;
} method_aliases[] = {
    {"hold", RTC_EST_ZOH},
    {"constant", RTC_EST_ZOH},
    {"poly2", RTC_EST_QUADRATIC},
    {"dr", RTC_EST_DEAD_RECKONING},
    {"extrapolated-interpolation", RTC_EST_EI},
};

static const char *const policy_names[] = {"hold", "fallback", "fault"};

const char *rtc_est_method_name(rtc_est_method method)
{
    if ((unsigned)method >= RTC_EST_METHOD_COUNT)
        return "?";
    return method_names[method];
}

void rtc_est_config_text(const rtc_est_config *c, char *buf, size_t cap)
{
    if (!buf || !cap)
        return;
    if (!c) {
        snprintf(buf, cap, "zoh");
        return;
    }
    /* keys as rtc_est_config_set() reads them, so the text can be pasted into params= */
    int n = snprintf(buf, cap, "%s", rtc_est_method_name(c->method));
    size_t pos = n > 0 ? (size_t)n : 0;
#define ADD(...) \
    do { \
        if (pos < cap) { \
            int k_ = snprintf(buf + pos, cap - pos, __VA_ARGS__); \
            pos += k_ > 0 ? (size_t)k_ : 0; \
        } \
    } while (0)
    if (c->method == RTC_EST_KALMAN_CV || c->method == RTC_EST_KALMAN_CA)
        ADD(" q=%g r=%g gate=%g gate_reset=%u", c->q, c->r, c->gate, c->gate_reset);
    if (c->method == RTC_EST_DEAD_RECKONING)
        ADD(" order=%u", c->order);
    if (c->method == RTC_EST_EI && c->interval_ns)
        ADD(" interval=%.9gs", (double)c->interval_ns / 1e9);
    if (c->fresh_ns)
        ADD(" fresh=%.9gs", (double)c->fresh_ns / 1e9);
    if (c->stale_ns)
        ADD(" stale=%.9gs policy=%s fallback=%g", (double)c->stale_ns / 1e9,
            (unsigned)c->stale_policy < 3 ? policy_names[c->stale_policy] : "?", c->fallback);
#undef ADD
}

int rtc_est_method_from_name(const char *name, rtc_est_method *out)
{
    if (!name || !out)
        return RTC_EINVAL;
    for (int m = 0; m < RTC_EST_METHOD_COUNT; m++) {
        if (strcasecmp(name, method_names[m]) == 0) {
            *out = (rtc_est_method)m;
            return RTC_OK;
        }
    }
    for (size_t i = 0; i < sizeof method_aliases / sizeof method_aliases[0]; i++) {
        if (strcasecmp(name, method_aliases[i].alias) == 0) {
            *out = method_aliases[i].method;
            return RTC_OK;
        }
    }
    return RTC_ENOTFOUND;
}

const char *rtc_est_quality_name(rtc_est_quality quality)
{
    static const char *const names[] = {"fresh", "extrapolated", "stale", "nodata", "fault"};
    if ((unsigned)quality > RTC_EST_FAULT)
        return "?";
    return names[quality];
}

/* ---- configuration --------------------------------------------------------------------- */

__attribute__((format(printf, 3, 4))) static void
seterr(char *err, size_t cap, const char *fmt, ...)
{
    if (!err || cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

int rtc_est_config_init(rtc_est_config *cfg, rtc_est_method method)
{
    if (!cfg || (unsigned)method >= RTC_EST_METHOD_COUNT)
        return RTC_EINVAL;
    /* A 5 sigma gate rejects a good sample with probability 6e-7 (once per half hour at
     * 1 kHz), and one false rejection costs nothing: only gate_reset = 3 in a row reset.
     * Staleness is off by default because only the user knows the signal's time scale. */
    *cfg = (rtc_est_config){
        .method = method,
        .fresh_ns = 0,
        .stale_ns = 0,
        .stale_policy = RTC_EST_STALE_HOLD,
        .fallback = 0.0,
        .q = 1.0,
        .r = 1e-6,
        .gate = 5.0,
        .gate_reset = 3,
        .order = 2,
        .interval_ns = 0,
    };
    return RTC_OK;
}

int rtc_est_config_validate(const rtc_est_config *c, char *err, size_t cap)
{
    if (!c) {
        seterr(err, cap, "no estimator configuration");
        return RTC_EINVAL;
    }
    const char *bad = NULL;
    if ((unsigned)c->method >= RTC_EST_METHOD_COUNT)
        bad = "method is out of range";
    else if (c->fresh_ns < 0)
        bad = "fresh must be >= 0";
    else if (c->stale_ns < 0)
        bad = "stale must be >= 0";
    else if (c->stale_ns > 0 && c->stale_ns <= c->fresh_ns)
        bad = "stale must be greater than fresh"; /* else an age could be both */
    else if ((unsigned)c->stale_policy > RTC_EST_STALE_FAULT)
        bad = "policy is out of range";
    else if (!isfinite(c->fallback))
        bad = "fallback must be finite";
    else if (!isfinite(c->q) || c->q < 0)
        bad = "q must be finite and >= 0";
    else if (!isfinite(c->r) || !(c->r > 0))
        bad = "r must be finite and > 0";
    else if (!isfinite(c->gate) || c->gate < 0)
        bad = "gate must be finite and >= 0";
    else if (c->gate_reset < 1 || c->gate_reset > RTC_EST_GATE_MAX)
        bad = "gate_reset must be 1 to RTC_EST_GATE_MAX (16)";
    else if (c->order > 2)
        bad = "order must be 0, 1 or 2";
    else if (c->interval_ns < 0)
        bad = "interval must be >= 0";
    if (bad) {
        seterr(err, cap, "estimator %s: %s", rtc_est_method_name(c->method), bad);
        return RTC_EINVAL;
    }
    return RTC_OK;
}

/* Whole-string double; finite only. */
static bool parse_double(const char *s, double *out)
{
    return rtc_parse_f64(s, -HUGE_VAL, HUGE_VAL, 0, out) == RTC_OK;
}

/* Duration "20ms", "500us", "1e6ns", "0.02s" or "0.02" (seconds) to whole ns, exactly
 * (rtc_parse_duration). A bare number is seconds because SSP expresses every time in
 * seconds; the sign is left to rtc_est_config_validate() so that the message names the
 * rule. */
static bool parse_duration(const char *s, int64_t *out)
{
    return rtc_parse_duration(s, out) == RTC_OK;
}

static bool parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (rtc_parse_u64(s, 0, UINT32_MAX, 0, &v) != RTC_OK)
        return false;
    *out = (uint32_t)v;
    return true;
}

static bool parse_policy(const char *s, rtc_est_stale_policy *out)
{
    for (int i = 0; i <= RTC_EST_STALE_FAULT; i++) {
        if (strcasecmp(s, policy_names[i]) == 0) {
            *out = (rtc_est_stale_policy)i;
            return true;
        }
    }
    return false;
}

/* Apply one key to c; RTC_ENOTFOUND for an unknown key, RTC_EPARSE for a bad value. A flat
 * chain rather than a table: ten keys of four value types, read once at load. */
static int apply_key(rtc_est_config *c, const char *key, const char *val)
{
    bool ok;
    if (strcmp(key, "fresh") == 0)
        ok = parse_duration(val, &c->fresh_ns);
    else if (strcmp(key, "stale") == 0)
        ok = parse_duration(val, &c->stale_ns);
    else if (strcmp(key, "interval") == 0)
        ok = parse_duration(val, &c->interval_ns);
    else if (strcmp(key, "policy") == 0)
        ok = parse_policy(val, &c->stale_policy);
    else if (strcmp(key, "fallback") == 0)
        ok = parse_double(val, &c->fallback);
    else if (strcmp(key, "q") == 0)
        ok = parse_double(val, &c->q);
    else if (strcmp(key, "r") == 0)
        ok = parse_double(val, &c->r);
    else if (strcmp(key, "gate") == 0)
        ok = parse_double(val, &c->gate);
    else if (strcmp(key, "gate_reset") == 0)
        ok = parse_u32(val, &c->gate_reset);
    else if (strcmp(key, "order") == 0)
        ok = parse_u32(val, &c->order);
    else
        return RTC_ENOTFOUND;
    return ok ? RTC_OK : RTC_EPARSE;
}

/* Copy [s, s+n) into buf (cap bytes) without surrounding white space. */
static bool copy_trimmed(char *buf, size_t cap, const char *s, size_t n)
{
    while (n > 0 && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    if (n >= cap)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return true;
}

/* Set key=value on *c (not validated as a whole). */
static int set_one(rtc_est_config *c, const char *key, const char *val, char *err, size_t cap)
{
    int rc = apply_key(c, key, val);
    if (rc == RTC_ENOTFOUND)
        seterr(err, cap, "unknown estimator parameter '%s'", key);
    else if (rc == RTC_EPARSE)
        seterr(err, cap, "estimator parameter '%s': malformed value '%s'", key, val);
    return rc;
}

int rtc_est_config_set(
    rtc_est_config *cfg, const char *key, const char *value, char *err, size_t cap)
{
    if (!cfg || !key || !value) {
        seterr(err, cap, "NULL argument");
        return RTC_EINVAL;
    }
    char k[64], v[128];
    if (!copy_trimmed(k, sizeof k, key, strlen(key)) ||
        !copy_trimmed(v, sizeof v, value, strlen(value))) {
        seterr(err, cap, "estimator parameter too long");
        return RTC_EPARSE;
    }
    rtc_est_config tmp = *cfg;
    int rc = set_one(&tmp, k, v, err, cap);
    if (rc == RTC_OK)
        rc = rtc_est_config_validate(&tmp, err, cap);
    if (rc == RTC_OK)
        *cfg = tmp;
    return rc;
}

/* Scan one "key = value" item at *p (after separators); advance *p past it.
 * Returns 1 item read, 0 end of text, RTC_EPARSE malformed. */
static int scan_item(const char **p, char *k, size_t kcap, char *v, size_t vcap)
{
    const char *s = *p;
    while (*s && (*s == ';' || *s == ',' || isspace((unsigned char)*s)))
        s++;
    if (*s == '\0')
        return 0;
    const char *k0 = s;
    while (*s && (isalnum((unsigned char)*s) || *s == '_'))
        s++;
    size_t kn = (size_t)(s - k0);
    while (isspace((unsigned char)*s))
        s++;
    if (kn == 0 || *s != '=' || !copy_trimmed(k, kcap, k0, kn)) {
        snprintf(k, kcap, "%.*s", (int)(kn ? kn : 1), k0);
        return RTC_EPARSE;
    }
    s++;
    while (isspace((unsigned char)*s))
        s++;
    const char *v0 = s;
    while (*s && *s != ';' && *s != ',' && !isspace((unsigned char)*s))
        s++;
    if (s == v0 || !copy_trimmed(v, vcap, v0, (size_t)(s - v0)))
        return RTC_EPARSE;
    *p = s;
    return 1;
}

int rtc_est_config_parse(
    rtc_est_config *cfg, const char *method, const char *params, char *err, size_t cap)
{
    if (!cfg || !method) {
        seterr(err, cap, "NULL argument");
        return RTC_EINVAL;
    }
    rtc_est_method m;
    if (rtc_est_method_from_name(method, &m) != RTC_OK) {
        seterr(err, cap, "unknown estimator method '%s'", method);
        return RTC_ENOTFOUND;
    }
    rtc_est_config tmp;
    rtc_est_config_init(&tmp, m);
    const char *p = params ? params : "";
    char k[64], v[128];
    int rc;
    while ((rc = scan_item(&p, k, sizeof k, v, sizeof v)) == 1) {
        rc = set_one(&tmp, k, v, err, cap);
        if (rc != RTC_OK)
            return rc;
    }
    if (rc != 0) {
        seterr(err, cap, "estimator parameters: malformed item near '%s' (want key=value)", k);
        return RTC_EPARSE;
    }
    rc = rtc_est_config_validate(&tmp, err, cap);
    if (rc == RTC_OK)
        *cfg = tmp;
    return rc;
}

/* ---- lifecycle ------------------------------------------------------------------------- */

int rtc_est_new(const rtc_est_config *cfg, rtc_est **out, char *err, size_t cap)
{
    if (!out) {
        seterr(err, cap, "NULL argument");
        return RTC_EINVAL;
    }
    *out = NULL;
    int rc = rtc_est_config_validate(cfg, err, cap);
    if (rc != RTC_OK)
        return rc;
    /* The only allocation in the estimator's life (arm phase); run touches nothing else. */
    rtc_est *e = calloc(1, sizeof *e);
    if (!e) {
        seterr(err, cap, "out of memory");
        return RTC_ENOMEM;
    }
    e->cfg = *cfg;
    e->st = (rtc_est_stats){0};
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
    e->n_hist = 0;
    e->have_seen = false;
    e->t_seen_ns = 0;
    e->ei_anchor_ns = 0;
    e->ei_start = e->ei_end = e->ei_h_s = 0.0;
    e->kf = (est_kf){0};
    e->n_gated = 0;
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

/* ---- polynomial methods ---------------------------------------------------------------- */

void rtc__est_poly_eval(
    const rtc_est_sample *h, uint32_t n, uint32_t deg, int64_t t_ns, double *value, double *rate)
{
    /* Newton form around the newest sample; times relative to it, so that absolute times
     * of hours (1e13 ns) cost no precision. */
    double x = EST_NS_TO_S(t_ns - h[0].t_ns);
    double v = h[0].value, d = 0.0;
    if (deg > n - 1)
        deg = n - 1;
    /* Divided differences on the actual sample times: exact for jittered spacing, and the
     * order check guarantees the denominators are non-zero. */
    if (deg >= 1) {
        double t1 = EST_NS_TO_S(h[1].t_ns - h[0].t_ns);
        double f01 = (h[1].value - h[0].value) / t1;
        v += f01 * x;
        d = f01;
        if (deg >= 2) {
            double t2 = EST_NS_TO_S(h[2].t_ns - h[0].t_ns);
            double f12 = (h[2].value - h[1].value) / (t2 - t1);
            double f012 = (f12 - f01) / t2;
            v += f012 * x * (x - t1);
            d += f012 * (2.0 * x - t1);
        }
    }
    *value = v;
    *rate = d;
}

static void ei_eval(const rtc_est *e, int64_t t_ns, double *value, double *rate)
{
    if (e->ei_h_s <= 0.0) {
        *value = e->ei_end;
        *rate = 0.0;
        return;
    }
    /* Beyond the window (next sample late) hold the sample rather than extend the line:
     * with drops and jitter the gap can be many intervals long. */
    double x = EST_NS_TO_S(t_ns - e->ei_anchor_ns);
    if (x > e->ei_h_s) {
        *value = e->ei_end;
        *rate = 0.0;
        return;
    }
    double slope = (e->ei_end - e->ei_start) / e->ei_h_s;
    *value = e->ei_start + slope * x;
    *rate = slope;
}

/* Start a new EI segment for sample s (called before s enters hist): it begins where the
 * current segment is at the sample's arrival, so the output never jumps. */
static void ei_push(rtc_est *e, const rtc_est_sample *s)
{
    /* Anchored at the arrival (not the sample time): a late sample then still continues
     * the output without a jump, at the price of lagging one interval plus the delay. A
     * source clock ahead of ours (arrival before sample time) anchors at the sample time. */
    int64_t anchor = s->arrival_ns > s->t_ns ? s->arrival_ns : s->t_ns;
    if (e->n_hist == 0) {
        e->ei_start = e->ei_end = s->value;
        e->ei_h_s = 0.0;
    } else {
        double rate;
        ei_eval(e, anchor, &e->ei_start, &rate);
        e->ei_end = s->value;
        int64_t h = e->cfg.interval_ns > 0 ? e->cfg.interval_ns : s->t_ns - e->hist[0].t_ns;
        e->ei_h_s = EST_NS_TO_S(h);
    }
    e->ei_anchor_ns = anchor;
}

/* The method's estimate at t_ns (at least one accepted sample exists). */
static void evaluate(const rtc_est *e, int64_t t_ns, double *value, double *rate)
{
    rtc_est_sample eff;
    switch (e->cfg.method) {
    case RTC_EST_ZOH:
        *value = e->hist[0].value;
        *rate = 0.0;
        break;
    case RTC_EST_LINEAR:
        rtc__est_poly_eval(e->hist, e->n_hist, 1, t_ns, value, rate);
        break;
    case RTC_EST_QUADRATIC:
        rtc__est_poly_eval(e->hist, e->n_hist, 2, t_ns, value, rate);
        break;
    case RTC_EST_EI:
        ei_eval(e, t_ns, value, rate);
        break;
    case RTC_EST_DEAD_RECKONING:
        /* Through the same rtc_est_dr_predict() as the sender, so a sender's threshold
         * promise holds here to the last bit. */
        rtc__est_dr_state(e->hist, e->n_hist, e->cfg.order, &eff);
        *value = rtc_est_dr_predict(&eff, e->cfg.order, t_ns);
        *rate = (eff.n_deriv >= 1 ? eff.deriv[0] : 0.0) +
                (eff.n_deriv >= 2 ? eff.deriv[1] * EST_NS_TO_S(t_ns - eff.t_ns) : 0.0);
        break;
    default: /* Kalman; before initialisation, the polynomial through what there is */
        if (e->kf.n > 0)
            rtc__est_kf_eval(&e->kf, t_ns, value, rate);
        else
            rtc__est_poly_eval(e->hist, e->n_hist, 2, t_ns, value, rate);
        break;
    }
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

/* Take s into the history and the EI segment (s is newer than everything seen). */
static void hist_push(rtc_est *e, const rtc_est_sample *s)
{
    if (e->cfg.method == RTC_EST_EI)
        ei_push(e, s);
    memmove(&e->hist[1], &e->hist[0], (EST_HIST - 1) * sizeof e->hist[0]);
    e->hist[0] = *s;
    if (e->n_hist < EST_HIST)
        e->n_hist++;
    e->have_seen = true;
    e->t_seen_ns = s->t_ns;
    e->n_gated = 0;
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

/* Kalman intake of an in-order, finite sample. Until the filter has one sample per state
 * it is not initialised, and queries use the polynomial through the samples so far. */
static int push_kalman(rtc_est *e, const rtc_est_sample *s)
{
    int states = rtc__est_kf_states(e->cfg.method);
    if (e->kf.n == 0) {
        hist_push(e, s);
        if (e->n_hist >= (uint32_t)states)
            rtc__est_kf_fit(&e->kf, states, e->hist, (uint32_t)states, e->cfg.r);
        count_accepted(e, s);
        return RTC_EST_ACCEPTED;
    }
    if (rtc__est_kf_update(&e->kf, &e->cfg, s->t_ns, s->value, e->cfg.gate)) {
        hist_push(e, s);
        count_accepted(e, s);
        return RTC_EST_ACCEPTED;
    }
    /* Rejected: remember it; only the order check and the rejection run change. */
    e->gated[e->n_gated++] = *s;
    e->have_seen = true;
    e->t_seen_ns = s->t_ns;
    if (e->n_gated < e->cfg.gate_reset) {
        e->st.rejected_outlier++;
        return RTC_EST_REJECTED_OUTLIER;
    }
    /* gate_reset consecutive rejections: a genuine step. Restart the level on the run and
     * restart the polynomial history from it, so nothing from before the step survives
     * there. The earlier samples of the run stay counted as rejected; the current one is
     * the accepted one. */
    uint32_t n = e->n_gated;
    rtc__est_kf_restart(&e->kf, &e->cfg, e->gated, n);
    e->n_hist = 0;
    for (uint32_t i = n > EST_HIST ? n - EST_HIST : 0; i < n; i++)
        hist_push(e, &e->gated[i]);
    count_accepted(e, s);
    e->st.resets++;
    return RTC_EST_ACCEPTED_RESET;
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
     * a reset must be in time order too, and a sample older than what the filter has
     * already been predicted past cannot be used without rewinding it. */
    if (e->have_seen && s->t_ns <= e->t_seen_ns) {
        if (s->t_ns < e->t_seen_ns) {
            e->st.dropped_old++;
            return RTC_EST_DROPPED_OLD;
        }
        e->st.dropped_duplicate++;
        return RTC_EST_DROPPED_DUPLICATE;
    }
    if (rtc__est_kf_states(e->cfg.method) > 0)
        return push_kalman(e, s);
    hist_push(e, s);
    count_accepted(e, s);
    return RTC_EST_ACCEPTED;
}

int rtc_est_query(const rtc_est *e, int64_t t_ns, rtc_est_out *out)
{
    if (!e)
        return RTC_EINVAL;
    rtc_est_out o = {.value = e->cfg.fallback, .rate = 0.0, .age_ns = INT64_MAX};
    if (e->n_hist == 0) {
        o.quality = RTC_EST_NODATA;
    } else {
        int64_t newest = e->hist[0].t_ns;
        o.age_ns = t_ns - newest;
        if (e->cfg.stale_ns > 0 && o.age_ns >= e->cfg.stale_ns) {
            o.quality = RTC_EST_STALE;
            if (e->cfg.stale_policy == RTC_EST_STALE_HOLD) {
                /* Frozen at the limit instant: the held value continues the estimate
                 * without a jump, and its rate is 0 because it no longer moves. */
                double rate;
                evaluate(e, newest + e->cfg.stale_ns, &o.value, &rate);
            } else if (e->cfg.stale_policy == RTC_EST_STALE_FAULT) {
                o.quality = RTC_EST_FAULT;
            }
        } else {
            evaluate(e, t_ns, &o.value, &o.rate);
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
