/*
 * Exposed variables of a session (rtcosim/session.h): parsing "unit.var[:key=value]...",
 * the operator-safety rules (range clamp, rate limit, safe value) and their application.
 *
 * DESIGN: the live RT hook and `rtcosim replay` call the same two functions in the same
 * order — rtc__xvar_apply() for each command recorded at step k, then rtc__xvar_ramp()
 * once before the step — so a rate-limited set produces the same sequence of values in
 * both (replay identity). Only the clamp happens on the control thread, before the command
 * is recorded: inputs.bin holds the value actually applied.
 */
#include "session_priv.h"

#include "rtcosim/numparse.h"
#include "rtcosim/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A declared min/max as a double (numeric types). */
static bool declared(const rtc_var *v, bool has, rtc_value x, double *out)
{
    if (!has)
        return false;
    switch (v->type) {
    case RTC_TYPE_FLOAT64: *out = x.f64; return true;
    case RTC_TYPE_FLOAT32: *out = x.f32; return true;
    case RTC_TYPE_UINT8: case RTC_TYPE_UINT16: case RTC_TYPE_UINT32:
    case RTC_TYPE_UINT64: *out = (double)x.u64; return true;
    case RTC_TYPE_BOOL: return false;
    default: *out = (double)x.i64; return true;
    }
}

/* One ":key=value" option of an entry. */
static int option(rtc__xvar *x, const char *opt, char *err, size_t cap)
{
    const char *eq = strchr(opt, '=');
    double v = 0;
    if (!eq || rtc_parse_f64(eq + 1, -HUGE_VAL, HUGE_VAL, 0, &v) != RTC_OK) {
        snprintf(err, cap, "expose %s: option \"%s\": expected key=number", x->spec, opt);
        return RTC_EINVAL;
    }
    size_t n = (size_t)(eq - opt);
    if (n == 3 && !strncmp(opt, "min", 3)) {
        x->min = x->has_min && x->min > v ? x->min : v; /* narrows the declared range */
        x->has_min = true;
    } else if (n == 3 && !strncmp(opt, "max", 3)) {
        x->max = x->has_max && x->max < v ? x->max : v;
        x->has_max = true;
    } else if (n == 4 && !strncmp(opt, "rate", 4) && v > 0) {
        x->has_rate = true;
        x->rate = v;
    } else if (n == 4 && !strncmp(opt, "safe", 4)) {
        x->has_safe = true;
        x->safe = v;
    } else {
        snprintf(err, cap, "expose %s: option \"%s\": expected min=, max=, rate= (> 0) or "
                 "safe=", x->spec, opt);
        return RTC_EINVAL;
    }
    return RTC_OK;
}

int rtc__xvar_parse(rtc_system *sys, const char *spec, rtc__xvar *x, char *err, size_t cap)
{
    *x = (rtc__xvar){.spec = strdup(spec)};
    size_t n = strcspn(spec, ":");
    x->name = strndup(spec, n);
    if (!x->spec || !x->name)
        return RTC_ENOMEM;
    if (rtc_system_find_var(sys, x->name, &x->unit, &x->var) != RTC_OK) {
        snprintf(err, cap, "expose %s: no such unit.variable", x->name);
        return RTC_ENOTFOUND;
    }
    if (rtc_system_check_settable(sys, x->unit, x->var, err, cap) != RTC_OK) {
        char why[400];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, cap, "expose %s: cannot be set during a run: %s", x->name, why);
        return RTC_EINVAL;
    }
    const rtc_var *v = &rtc_system_unit(sys, x->unit)->md->vars[x->var];
    x->has_min = declared(v, v->has_min, v->min, &x->min);
    x->has_max = declared(v, v->has_max, v->max, &x->max);
    char *opts = strdup(spec + n);
    int rc = opts ? RTC_OK : RTC_ENOMEM;
    char *save = NULL;
    for (char *o = opts ? strtok_r(opts, ":", &save) : NULL; o && rc == RTC_OK;
         o = strtok_r(NULL, ":", &save))
        rc = option(x, o, err, cap);
    free(opts);
    if (rc == RTC_OK && x->has_min && x->has_max && x->min > x->max) {
        snprintf(err, cap, "expose %s: min %g is above max %g", x->spec, x->min, x->max);
        rc = RTC_EINVAL;
    }
    if (rc == RTC_OK && x->has_safe && rtc__xvar_clamp(x, &x->safe)) {
        snprintf(err, cap, "expose %s: the safe value is outside min..max", x->spec);
        rc = RTC_EINVAL;
    }
    return rc;
}

void rtc__xvar_clear(rtc__xvar *x)
{
    free(x->spec);
    free(x->name);
    x->spec = x->name = NULL;
}

bool rtc__xvar_clamp(const rtc__xvar *x, double *v)
{
    double c = *v;
    if (x->has_min && c < x->min)
        c = x->min;
    if (x->has_max && c > x->max)
        c = x->max;
    bool changed = c != *v;
    *v = c;
    return changed;
}

int rtc__xvar_apply(rtc_system *sys, rtc__xvar *x, unsigned op, double value)
{
    if (op == RTC__OP_SET && x->has_rate) {
        /* a ramp starts from the variable's current value; a running one gets a new
         * target and continues from where it is */
        if (!x->ramping && rtc_system_get_value(sys, x->unit, x->var, &x->cur) != RTC_OK)
            return rtc_system_set_value(sys, x->unit, x->var, value);
        x->target = value;
        x->ramping = x->cur != value;
        return RTC_OK;
    }
    x->ramping = false; /* SAFE, or no rate limit: at once */
    x->cur = x->target = value;
    return rtc_system_set_value(sys, x->unit, x->var, value);
}

int rtc__xvar_ramp(rtc_system *sys, rtc__xvar *xs, size_t n, int64_t tick_ns)
{
    double h_s = (double)tick_ns / 1e9;
    for (size_t i = 0; i < n; i++) {
        rtc__xvar *x = &xs[i];
        if (!x->ramping)
            continue;
        double d = x->target - x->cur, max = x->rate * h_s;
        if (fabs(d) <= max) {
            x->cur = x->target;
            x->ramping = false;
        } else {
            x->cur += d > 0 ? max : -max;
        }
        int rc = rtc_system_set_value(sys, x->unit, x->var, x->cur);
        if (rc != RTC_OK)
            return rc;
    }
    return RTC_OK;
}

int rtc__xvars_parse(rtc_system *sys, const char *const *expose, size_t n_expose,
                     rtc__xvar **out, size_t *n_out, char *err, size_t cap)
{
    const rtc_system_rt_hints *h = rtc_system_rt(sys);
    size_t n = h->n_expose + n_expose;
    rtc__xvar *xs = calloc(n + 1, sizeof *xs);
    int rc = xs ? RTC_OK : RTC_ENOMEM;
    for (size_t i = 0; rc == RTC_OK && i < n; i++) {
        rc = rtc__xvar_parse(sys, i < h->n_expose ? h->expose[i] : expose[i - h->n_expose],
                             &xs[i], err, cap);
        for (size_t j = 0; rc == RTC_OK && j < i; j++)
            if (!strcmp(xs[j].name, xs[i].name)) {
                snprintf(err, cap, "expose %s: exposed twice", xs[i].name);
                rc = RTC_EINVAL;
            }
    }
    if (rc != RTC_OK) {
        for (size_t i = 0; xs && i < n; i++)
            rtc__xvar_clear(&xs[i]);
        free(xs);
        xs = NULL;
        n = 0;
    }
    *out = xs;
    *n_out = n;
    return rc;
}

int rtc_session_check_expose(rtc_system *sys, const char *const *expose, size_t n_expose,
                             char *err, size_t cap)
{
    rtc__xvar *xs;
    size_t n;
    int rc = rtc__xvars_parse(sys, expose, n_expose, &xs, &n, err, cap);
    for (size_t i = 0; i < n; i++)
        rtc__xvar_clear(&xs[i]);
    free(xs);
    return rc;
}
