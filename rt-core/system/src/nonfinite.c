/*
 * Non-finite value detection (rtcosim/nonfinite.h): the tracker and a system's use of it.
 *
 * DESIGN: the check runs on the stepping thread (the RT thread in real time), so it only
 * compares and stores: one isfinite() per value, a flag byte per value so each is
 * recorded once, and the event written before the count is published with release. The
 * text is made later by whoever reports (the executive's monitor, the fast-run loop).
 */
#include "rtcosim/nonfinite.h"

#include "rtcosim/status.h"
#include "system_priv.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rtc_nonfinite {
    size_t n;
    uint8_t *seen;              /* one flag per value */
    rtc_nonfinite_event *ev;    /* at most one event per value: never full */
    _Atomic size_t count;
    size_t *base;               /* system trackers: first id of (unit, F64/F32) */
};

int rtc_nonfinite_policy_parse(const char *text, rtc_nonfinite_policy *out)
{
    if (text && !strcmp(text, "warn"))
        *out = RTC_NONFINITE_WARN;
    else if (text && !strcmp(text, "stop"))
        *out = RTC_NONFINITE_STOP;
    else
        return RTC_EPARSE;
    return RTC_OK;
}

int rtc_nonfinite_new(size_t n_values, rtc_nonfinite **out)
{
    rtc_nonfinite *nf = calloc(1, sizeof *nf);
    if (nf) {
        nf->n = n_values;
        nf->seen = calloc(n_values ? n_values : 1, 1);
        nf->ev = calloc(n_values ? n_values : 1, sizeof *nf->ev);
    }
    if (!nf || !nf->seen || !nf->ev) {
        rtc_nonfinite_free(nf);
        return RTC_ENOMEM;
    }
    *out = nf;
    return RTC_OK;
}

void rtc_nonfinite_free(rtc_nonfinite *nf)
{
    if (!nf)
        return;
    free(nf->seen);
    free(nf->ev);
    free(nf->base);
    free(nf);
}

RTC_RT_SAFE size_t rtc_nonfinite_check(rtc_nonfinite *nf, size_t first_id, const void *values,
                                       size_t n, bool is_float32, int64_t t_ns)
{
    size_t found = 0;
    for (size_t i = 0; i < n && first_id + i < nf->n; i++) {
        double v = is_float32 ? (double)((const float *)values)[i] : ((const double *)values)[i];
        if (isfinite(v) || nf->seen[first_id + i])
            continue;
        nf->seen[first_id + i] = 1;
        size_t c = atomic_load_explicit(&nf->count, memory_order_relaxed); /* one writer */
        nf->ev[c] = (rtc_nonfinite_event){first_id + i, t_ns, v};
        /* release: a reader that sees the new count sees the event */
        atomic_store_explicit(&nf->count, c + 1, memory_order_release);
        found++;
    }
    return found;
}

RTC_RT_SAFE size_t rtc_nonfinite_count(const rtc_nonfinite *nf)
{
    return nf ? atomic_load_explicit(&((rtc_nonfinite *)nf)->count, memory_order_acquire) : 0;
}

RTC_RT_SAFE rtc_nonfinite_event rtc_nonfinite_get(const rtc_nonfinite *nf, size_t i)
{
    return nf->ev[i];
}

/* ---- the system's tracker ---- */

static const rtc_type watched[2] = {RTC_TYPE_FLOAT64, RTC_TYPE_FLOAT32};

int rtc__sys_nonfinite_init(rtc_system *sys)
{
    size_t *base = calloc(sys->n_units * 2 + 1, sizeof *base), n = 0;
    if (!base)
        return RTC_ENOMEM;
    for (size_t u = 0; u < sys->n_units; u++)
        for (size_t t = 0; t < 2; t++) {
            base[u * 2 + t] = n;
            n += sys->units[u].obs[watched[t]].n_values;
        }
    int rc = rtc_nonfinite_new(n, &sys->nonfinite);
    if (rc != RTC_OK) {
        free(base);
        return rc;
    }
    sys->nonfinite->base = base;
    return RTC_OK;
}

RTC_RT_SAFE void rtc__sys_nonfinite_record(rtc_system *sys, size_t u)
{
    rtc_nonfinite *nf = sys->nonfinite;
    const sys_unit *su = &sys->units[u];
    for (size_t t = 0; nf && t < 2; t++) {
        const obs_group *g = &su->obs[watched[t]];
        const void *v = rtc__obs_cur(su, g);
        /* the common case, every value finite, without a call */
        if (g->n_values && !rtc_nonfinite_all_finite(v, g->n_values, t == 1))
            rtc_nonfinite_check(nf, nf->base[u * 2 + t], v, g->n_values, t == 1,
                                sys->start_ns + su->t_cur_ns);
    }
}

/* Only the units whose current outputs changed since they were last checked are looked at
 * (the others' values were checked then), in the units' order. The end of every tick
 * checks the units it made current (masters/master.c); this scan is for a tick that
 * failed before its end, after what its I/O refresh left current. */
RTC_RT_SAFE void rtc__sys_nonfinite_scan(rtc_system *sys)
{
    for (size_t u = 0; u < sys->n_units; u++)
        if (sys->units[u].nf_dirty)
            rtc__sys_nonfinite_check(sys, &sys->units[u]);
}

RTC_RT_SAFE const rtc_nonfinite *rtc_system_nonfinite(const rtc_system *sys)
{
    return sys ? sys->nonfinite : NULL;
}

void rtc_system_nonfinite_name(const rtc_system *sys, size_t id, char *buf, size_t cap)
{
    const rtc_nonfinite *nf = sys->nonfinite;
    snprintf(buf, cap, "value %zu", id);
    for (size_t u = 0; nf && u < sys->n_units; u++)
        for (size_t t = 0; t < 2; t++) {
            const obs_group *g = &sys->units[u].obs[watched[t]];
            size_t b = nf->base[u * 2 + t];
            if (id < b || id >= b + g->n_values)
                continue;
            size_t e = id - b;
            for (size_t k = 0; k < g->n_vr; k++) {
                if (e < g->offset[k] || e >= g->offset[k] + g->count[k])
                    continue;
                const rtc_unit *unit = sys->units[u].unit;
                const char *name = "?";
                for (size_t v = 0; v < unit->md->n_vars; v++)
                    if (unit->md->vars[v].vr == g->vr[k] && unit->md->vars[v].type == watched[t])
                        name = unit->md->vars[v].name;
                if (g->count[k] > 1)
                    snprintf(buf, cap, "%s.%s[%zu]", sys->units[u].name, name,
                             e - g->offset[k] + 1);
                else
                    snprintf(buf, cap, "%s.%s", sys->units[u].name, name);
                return;
            }
        }
}

size_t rtc_system_nonfinite_report(const rtc_system *sys, size_t from, const rtc_logger *lg)
{
    const rtc_nonfinite *nf = rtc_system_nonfinite(sys);
    size_t n = rtc_nonfinite_count(nf);
    for (size_t i = from; i < n; i++) {
        rtc_nonfinite_event e = rtc_nonfinite_get(nf, i);
        char name[300];
        rtc_system_nonfinite_name(sys, e.id, name, sizeof name);
        rtc_log(lg, RTC_LOG_WARNING, "non-finite value: %s = %s at t = %.9g s (reported once "
                "per variable)", name, isnan(e.value) ? "nan" : e.value > 0 ? "inf" : "-inf",
                (double)e.t_ns / 1e9);
    }
    return n;
}
