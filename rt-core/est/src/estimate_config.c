/*
 * estimate_config.c — estimator configuration: method names and aliases, defaults, the
 * range check, and the "key=value" parameters of SSP annotations (rtc_est_config_parse()),
 * and the one-line text of a configuration. Load-time code: it formats messages.
 */
#include "rtcosim/estimate.h"
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
    "zoh", "linear", "quadratic", "ei", "dead-reckoning", "kalman-cv", "kalman-ca", "kalman",
    "auto",
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
    {"kalman-adaptive", RTC_EST_KALMAN},
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
    bool kalman = c->method == RTC_EST_KALMAN_CV || c->method == RTC_EST_KALMAN_CA ||
                  c->method == RTC_EST_KALMAN || c->method == RTC_EST_AUTO;
    bool select = c->method == RTC_EST_KALMAN || c->method == RTC_EST_AUTO;
    if (kalman)
        ADD(" q=%g r=%g gate=%g gate_reset=%u", c->q, c->r, c->gate, c->gate_reset);
    /* adapt only where it differs from the method's default */
    if (kalman && c->adapt != select)
        ADD(" adapt=%d", c->adapt ? 1 : 0);
    if (select)
        ADD(" window=%u margin=%g", c->window, c->margin);
    if (c->method == RTC_EST_DEAD_RECKONING || c->method == RTC_EST_AUTO)
        ADD(" order=%u", c->order);
    if (c->method == RTC_EST_EI && c->interval_ns)
        ADD(" interval=%.9gs", (double)c->interval_ns / 1e9);
    if (c->payback > 0)
        ADD(" payback=%g", c->payback);
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
        /* an adaptive filter (kalman, auto's candidates) restarts on the second rejection:
         * it follows a step one sample later than hold, not two (scripts/bench-estimation) */
        .gate_reset = method == RTC_EST_KALMAN || method == RTC_EST_AUTO ? 2 : 3,
        .order = 2,
        .interval_ns = 0,
        .adapt = method == RTC_EST_KALMAN || method == RTC_EST_AUTO,
        .window = 32,
        .margin = 0.1,
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
    else if (c->window < 4 || c->window > 4096)
        bad = "window must be 4 to 4096 samples";
    else if (!isfinite(c->margin) || c->margin < 0 || c->margin > 0.9)
        bad = "margin must be 0 to 0.9";
    else if (!isfinite(c->payback) || c->payback < 0)
        bad = "payback must be finite and >= 0";
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

static bool parse_bool(const char *s, bool *out)
{
    static const char *const no[] = {"0", "off", "false", "no"}, *const yes[] = {"1", "on",
                                                                                "true", "yes"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(s, no[i]) == 0 || strcasecmp(s, yes[i]) == 0) {
            *out = strcasecmp(s, yes[i]) == 0;
            return true;
        }
    }
    return false;
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
 * chain rather than a table: fourteen keys of five value types, read once at load. */
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
    else if (strcmp(key, "adapt") == 0)
        ok = parse_bool(val, &c->adapt);
    else if (strcmp(key, "window") == 0)
        ok = parse_u32(val, &c->window);
    else if (strcmp(key, "margin") == 0)
        ok = parse_double(val, &c->margin);
    else if (strcmp(key, "payback") == 0)
        ok = parse_double(val, &c->payback);
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
