/*
 * Feasibility planning (rtcosim/plan.h): the model built from a profile, the sampled
 * response of a tick under a structure, and the verdict.
 *
 * DESIGN: everything is integer nanoseconds until the final ratios. Units' work samples
 * are kept whole and sorted, so a quantile is an order statistic, never an interpolation
 * that invents values the machine never showed. The sampling draws from those samples
 * with a fixed-seed xorshift generator: a plan is a pure function of its profile and
 * options, so the check before a run and `rtcosim plan` agree on the same profile.
 */
#include "plan_priv.h"

#include "rtcosim/io_unit.h"
#include "rtcosim/status.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rtc_plan_verdict_name(rtc_plan_verdict v)
{
    static const char *const names[] = {"feasible", "tight", "infeasible"};
    return (unsigned)v < 3 ? names[v] : "?";
}

bool rtc_plan_scheduling_only(const rtc_plan *plan)
{
    return plan && plan->wakeup_bound && plan->work_q <= plan->o.period_ns;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int64_t rtc_plan_quantile(const int64_t *sorted, size_t n, double q)
{
    if (n == 0)
        return 0;
    double r = ceil(q * (double)n);
    size_t i = r < 1 ? 0 : (size_t)r - 1;
    return sorted[i < n ? i : n - 1];
}

/* The distribution of @p v (n values, sorted in place). */
static rtc_plan_dist dist_of(int64_t *v, size_t n)
{
    rtc_plan_dist d = {.samples = n};
    if (n == 0)
        return d;
    qsort(v, n, sizeof *v, cmp_i64);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double)v[i];
    d.mean = sum / (double)n;
    d.p50 = rtc_plan_quantile(v, n, 0.5);
    d.p99 = rtc_plan_quantile(v, n, 0.99);
    d.p999 = rtc_plan_quantile(v, n, 0.999);
    d.max = v[n - 1];
    return d;
}

/* ---- the model ---- */

/* Thread of unit i under @p workers (0 without workers). */
static size_t thread_of(const plan_model *m, unsigned workers, const size_t *thread, size_t i)
{
    if (workers == 0)
        return 0;
    return thread ? thread[i] : rtc_system_worker_owner(m->sys, workers, i);
}

/* The units' part of one tick's work: I/O refreshes, then the longest thread. */
static int64_t compose(const plan_model *m, const int64_t *x, const bool *due,
                       unsigned workers, const size_t *thread, int64_t *per)
{
    int64_t io = 0, longest = 0;
    memset(per, 0, ((size_t)workers + 1) * sizeof *per);
    for (size_t i = 0; i < m->n; i++) {
        if (x[i] < 0 || (due && !due[i] && !m->io[i]))
            continue;
        if (m->io[i])
            io += x[i];
        else
            per[thread_of(m, workers, thread, i)] += x[i];
    }
    for (size_t t = 0; t <= workers; t++)
        longest = per[t] > longest ? per[t] : longest;
    return io + longest;
}

static int model_samples(plan_model *m, const rtc_profile *prof)
{
    for (size_t i = 0; i < m->n; i++) {
        m->x[i] = malloc((m->nt ? m->nt : 1) * sizeof **m->x);
        if (!m->x[i])
            return RTC_ENOMEM;
        for (size_t k = 0; k < m->nt; k++) {
            int64_t v = rtc_profile_row(prof, k, NULL)[RTC_PROFILE_UNIT0 + i];
            if (v >= 0)
                m->x[i][m->nx[i]++] = v;
        }
        qsort(m->x[i], m->nx[i], sizeof **m->x, cmp_i64);
    }
    int64_t *row = malloc((m->n + 1) * sizeof *row), *per = malloc((m->profile_workers + 1) *
                                                                   sizeof *per);
    if (!row || !per) {
        free(row);
        free(per);
        return RTC_ENOMEM;
    }
    for (size_t k = 0; k < m->nt; k++) {
        const int64_t *r = rtc_profile_row(prof, k, NULL);
        for (size_t i = 0; i < m->n; i++)
            row[i] = r[RTC_PROFILE_UNIT0 + i];
        int64_t units = compose(m, row, NULL, m->profile_workers, NULL, per);
        int64_t e = r[RTC_PROFILE_STEP] + r[RTC_PROFILE_HANDOFF] - units;
        m->e[k] = e > 0 ? e : 0;
        m->w[k] = r[RTC_PROFILE_WAKEUP];
        if (m->w[k] >= 0)
            m->wv[m->nw++] = m->w[k];
    }
    qsort(m->wv, m->nw, sizeof *m->wv, cmp_i64);
    free(row);
    free(per);
    return RTC_OK;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Ticks in one hyperperiod of the stepping units (0: beyond PLAN_MAX_PHASES). */
static int64_t hyper_ticks(const plan_model *m)
{
    int64_t l = 1;
    for (size_t i = 0; i < m->n; i++) {
        if (m->io[i])
            continue;
        int64_t h = rtc_system_unit_step_ns(m->sys, i) / m->tick_ns;
        h = h > 0 ? h : 1;
        l = l / gcd64(l, h) * h;
        if (l > PLAN_MAX_PHASES)
            return 0;
    }
    return l;
}

/* The distinct sets of due units over a hyperperiod (or its first PLAN_MAX_PHASES ticks),
 * each with the fraction of ticks it occurs in. */
static int model_patterns(plan_model *m)
{
    int64_t ph = hyper_ticks(m);
    m->truncated = ph == 0;
    ph = ph ? ph : PLAN_MAX_PHASES;
    m->hyper_ns = m->truncated ? 0 : ph * m->tick_ns;
    m->due = calloc(PLAN_MAX_PATTERNS * m->n + 1, sizeof *m->due);
    m->weight = calloc(PLAN_MAX_PATTERNS, sizeof *m->weight);
    bool *cur = calloc(m->n + 1, sizeof *cur);
    if (!m->due || !m->weight || !cur) {
        free(cur);
        return RTC_ENOMEM;
    }
    for (int64_t k = 0; k < ph; k++) {
        for (size_t i = 0; i < m->n; i++)
            cur[i] = m->io[i] || (k * m->tick_ns) % rtc_system_unit_step_ns(m->sys, i) == 0;
        size_t p = 0;
        while (p < m->np && memcmp(m->due + p * m->n, cur, m->n * sizeof *cur))
            p++;
        if (p == m->np && m->np < PLAN_MAX_PATTERNS)
            memcpy(m->due + m->np++ * m->n, cur, m->n * sizeof *cur);
        m->folded |= p == PLAN_MAX_PATTERNS;
        m->weight[p < m->np ? p : 0] += 1.0 / (double)ph; /* folded: into tick 0's, the
                                                              fullest pattern */
    }
    for (size_t i = 0; i < m->n; i++)
        for (size_t p = 0; p < m->np; p++)
            m->freq[i] += m->due[p * m->n + i] ? m->weight[p] : 0;
    free(cur);
    return RTC_OK;
}

void rtc__plan_model_clear(plan_model *m)
{
    for (size_t i = 0; m->x && i < m->n; i++)
        free(m->x[i]);
    free(m->x);
    free(m->nx);
    free(m->io);
    free(m->e);
    free(m->w);
    free(m->wv);
    free(m->due);
    free(m->weight);
    free(m->freq);
    memset(m, 0, sizeof *m);
}

int rtc__plan_model_init(plan_model *m, const rtc_system *sys, const rtc_profile *prof,
                         unsigned profile_workers)
{
    *m = (plan_model){.sys = sys, .n = rtc_system_unit_count(sys),
                      .tick_ns = rtc_system_tick_ns(sys), .nt = rtc_profile_ticks(prof),
                      .profile_workers = profile_workers};
    if (m->nt == 0 || rtc_profile_units(prof) != m->n || m->tick_ns <= 0)
        return RTC_EINVAL;
    size_t n1 = m->n + 1;
    m->x = calloc(n1, sizeof *m->x);
    m->nx = calloc(n1, sizeof *m->nx);
    m->io = calloc(n1, sizeof *m->io);
    m->freq = calloc(n1, sizeof *m->freq);
    m->e = calloc(m->nt, sizeof *m->e);
    m->w = calloc(m->nt, sizeof *m->w);
    m->wv = calloc(m->nt, sizeof *m->wv);
    if (!m->x || !m->nx || !m->io || !m->freq || !m->e || !m->w || !m->wv)
        return RTC_ENOMEM;
    for (size_t i = 0; i < m->n; i++)
        m->io[i] = rtc_io_unit_is(rtc_system_unit(sys, i));
    int rc = model_samples(m, prof);
    return rc == RTC_OK ? model_patterns(m) : rc;
}

/* ---- sampling ---- */

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s; /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * UINT64_C(2685821657736338717);
}

typedef struct draw {
    int64_t v;
    double wt;
} draw;

static int cmp_draw(const void *a, const void *b)
{
    int64_t x = ((const draw *)a)->v, y = ((const draw *)b)->v;
    return (x > y) - (x < y);
}

/* Weighted quantiles and mean of @p d (sorted by value). */
static rtc_plan_dist wdist(draw *d, size_t n, uint64_t samples)
{
    rtc_plan_dist r = {.samples = samples};
    if (n == 0)
        return r;
    qsort(d, n, sizeof *d, cmp_draw);
    double total = 0, mean = 0, acc = 0;
    for (size_t i = 0; i < n; i++) {
        total += d[i].wt;
        mean += d[i].wt * (double)d[i].v;
    }
    const double qs[3] = {0.5, 0.99, 0.999};
    int64_t *out[3] = {&r.p50, &r.p99, &r.p999};
    size_t j = 0;
    for (size_t i = 0; i < n && j < 3; i++) {
        acc += d[i].wt;
        while (j < 3 && acc >= qs[j] * total * (1 - 1e-12))
            *out[j++] = d[i].v;
    }
    while (j < 3)
        *out[j++] = d[n - 1].v;
    r.max = d[n - 1].v;
    r.mean = total > 0 ? mean / total : 0;
    return r;
}

/* One sampled tick of pattern p: its work (E + units) and response (W + work). */
static void sample_tick(const plan_model *m, const plan_what *w, size_t p, uint64_t *s,
                        int64_t *x, int64_t *per, int64_t *work, int64_t *resp)
{
    size_t r = (size_t)(rnd(s) % m->nt);
    int64_t wake = m->w[r] >= 0 ? m->w[r] : m->nw ? m->wv[rnd(s) % m->nw] : 0;
    for (size_t i = 0; i < m->n; i++) {
        bool skip = !m->due[p * m->n + i] || m->nx[i] == 0 || (w->drop && w->drop[i]);
        x[i] = skip ? -1 : m->x[i][rnd(s) % m->nx[i]];
        if (!skip && w->scale)
            x[i] = (int64_t)((double)x[i] * w->scale[i] + 0.5);
    }
    int64_t units = compose(m, x, NULL, w->workers, w->thread, per);
    int64_t extra = w->workers > m->profile_workers ? RTC_PLAN_WORKER_HANDOFF_NS : 0;
    *work = m->e[r] + units + extra;
    *resp = wake + *work;
}

int rtc__plan_predict(const plan_model *m, const plan_what *w, plan_result *out)
{
    size_t per_p = PLAN_DRAWS / (m->np ? m->np : 1);
    per_p = per_p < PLAN_MIN_DRAWS ? PLAN_MIN_DRAWS : per_p;
    size_t total = per_p * m->np;
    draw *dw = malloc(total * sizeof *dw), *dr = malloc(total * sizeof *dr);
    draw *pat = malloc(per_p * sizeof *pat);
    int64_t *x = malloc((m->n + 1) * sizeof *x), *per = malloc((w->workers + 1) * sizeof *per);
    int rc = dw && dr && pat && x && per ? RTC_OK : RTC_ENOMEM;
    uint64_t s = UINT64_C(0x9E3779B97F4A7C15);
    double over = 0;
    *out = (plan_result){.worst_q = -1};
    for (size_t p = 0; rc == RTC_OK && p < m->np; p++) {
        size_t exceed = 0;
        for (size_t d = 0; d < per_p; d++) {
            int64_t work, resp;
            sample_tick(m, w, p, &s, x, per, &work, &resp);
            double wt = m->weight[p] / (double)per_p;
            dw[p * per_p + d] = (draw){work, wt};
            dr[p * per_p + d] = pat[d] = (draw){resp, 1};
            exceed += resp > w->period_ns;
        }
        over += m->weight[p] * (double)exceed / (double)per_p;
        for (size_t d = 0; d < per_p; d++)
            dr[p * per_p + d].wt = m->weight[p] / (double)per_p;
        rtc_plan_dist pd = wdist(pat, per_p, m->nt); /* sorts pat */
        size_t i = (size_t)ceil(w->q * (double)per_p);
        int64_t q = pat[(i ? (i <= per_p ? i : per_p) : 1) - 1].v;
        if (q > out->worst_q) {
            out->worst_q = q;
            out->worst = pd;
            out->worst_pattern = p;
        }
    }
    if (rc == RTC_OK) {
        out->work = wdist(dw, total, m->nt);
        out->response = wdist(dr, total, m->nt);
        out->overrun_rate = over;
    }
    free(dw);
    free(dr);
    free(pat);
    free(x);
    free(per);
    return rc;
}

int64_t rtc_plan_predict(const rtc_plan *plan, const rtc_system *sys, const rtc_profile *prof,
                         unsigned workers, const size_t *thread, const double *scale,
                         const bool *drop, int64_t period_ns, double *overrun_rate)
{
    plan_model m;
    plan_result r;
    int rc = rtc__plan_model_init(&m, sys, prof, plan->o.profile_workers);
    plan_what w = {workers, thread, scale, drop, period_ns, plan->o.percentile};
    if (rc == RTC_OK)
        rc = rtc__plan_predict(&m, &w, &r);
    rtc__plan_model_clear(&m);
    if (rc != RTC_OK)
        return -1;
    if (overrun_rate)
        *overrun_rate = r.overrun_rate;
    return r.worst_q;
}

/* ---- the plan ---- */

void rtc_plan_free(rtc_plan *plan)
{
    if (!plan)
        return;
    free(plan->units);
    free(plan->utilisation);
    free(plan);
}

static void defaults(rtc_plan_opts *o)
{
    o->percentile = o->percentile > 0 && o->percentile < 1 ? o->percentile : 0.999;
    o->margin = o->margin > 0 && o->margin < 1 ? o->margin : 0.2;
    o->rtf = o->rtf > 0 ? o->rtf : 1.0;
    o->workers = o->substitute || o->iterate ? 0 : o->workers;
    o->hints = NULL;
}

/* Per unit: its work, share of the period, real-time factor, thread; per thread: load. */
static void fill_units(rtc_plan *plan, const plan_model *m)
{
    const rtc_plan_opts *o = &plan->o;
    for (size_t i = 0; i < m->n; i++) {
        rtc_plan_unit *u = &plan->units[i];
        const rtc_unit *un = rtc_system_unit(m->sys, i);
        snprintf(u->name, sizeof u->name, "%s", un->name);
        u->kind = m->io[i] ? "io" : un->ops->kind;
        u->step_ns = m->io[i] ? m->tick_ns : rtc_system_unit_step_ns(m->sys, i);
        u->thread = m->io[i] ? 0 : thread_of(m, o->workers, NULL, i);
        int64_t *v = malloc((m->nx[i] ? m->nx[i] : 1) * sizeof *v);
        if (v) {
            memcpy(v, m->x[i], m->nx[i] * sizeof *v);
            u->work = dist_of(v, m->nx[i]);
            int64_t xq = rtc_plan_quantile(v, m->nx[i], o->percentile);
            u->d = (double)xq / ((double)u->step_ns / o->rtf);
        }
        free(v);
        u->share = u->work.mean * m->freq[i] / (double)o->period_ns;
        plan->utilisation[u->thread] += u->share;
        if (!m->io[i] && (plan->dominant < 0 || u->share > plan->units[plan->dominant].share))
            plan->dominant = (long)i;
    }
}

static void add_doubt(rtc_plan *plan, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_doubt(rtc_plan *plan, const char *fmt, ...)
{
    size_t n = strlen(plan->doubts);
    if (n + 4 >= sizeof plan->doubts)
        return;
    if (n)
        n += (size_t)snprintf(plan->doubts + n, sizeof plan->doubts - n, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(plan->doubts + n, sizeof plan->doubts - n, fmt, ap);
    va_end(ap);
    plan->confident = false;
}

/* Why the profile may not carry a confident verdict (plan.h). */
static void doubts(rtc_plan *plan, const plan_model *m, const rtc_profile *prof)
{
    const rtc_profile_info *in = rtc_profile_info_get(prof);
    plan->confident = true;
    if (strcmp(in->policy, "SCHED_FIFO") != 0)
        add_doubt(plan, "the profile ran at %s, not SCHED_FIFO",
                  in->policy[0] ? in->policy : "an unknown policy");
    if (in->cpus > 0 && in->loadavg > 0.7 * in->cpus)
        add_doubt(plan, "the machine was loaded (load average %.1f on %d CPU%s)", in->loadavg,
                  in->cpus, in->cpus == 1 ? "" : "s");
    if (plan->wakeup.samples && plan->wakeup.p99 * 4 > plan->o.period_ns)
        add_doubt(plan, "wake-up latency p99 %.0f us is above a quarter of the period",
                  (double)plan->wakeup.p99 / 1e3);
    double beyond = (double)m->nt * (1 - plan->o.percentile);
    if (beyond < 2)
        add_doubt(plan, "%zu ticks are too few for p%g (%.1f expected beyond it)", m->nt,
                  plan->o.percentile * 100, beyond);
    for (size_t i = 0; i < m->n; i++)
        if (m->nx[i] == 0)
            add_doubt(plan, "unit %s did no work in the profile", plan->units[i].name);
    if (in->status != RTC_OK)
        add_doubt(plan, "the profile ended after %zu ticks: %s", m->nt, rtc_strerror(in->status));
    if (in->hung_unit >= 0 || in->budget_hit)
        add_doubt(plan, "the profile's time budget ran out after %zu ticks", m->nt);
}

rtc_plan_verdict rtc__plan_judge(const rtc_plan *plan, int64_t response_ns, double headroom)
{
    (void)response_ns;
    for (size_t t = 0; t < plan->n_threads; t++)
        if (plan->utilisation[t] >= 1)
            return RTC_PLAN_INFEASIBLE;
    if (headroom < 0)
        return plan->confident ? RTC_PLAN_INFEASIBLE : RTC_PLAN_TIGHT;
    return headroom < plan->o.margin ? RTC_PLAN_TIGHT : RTC_PLAN_FEASIBLE;
}

/* The verdict and its reason, naming the dominating unit. */
static void verdict(rtc_plan *plan)
{
    const rtc_plan_opts *o = &plan->o;
    plan->response_ns = plan->worst.samples ? plan->response_ns : 0;
    plan->slack_ns = o->period_ns - plan->response_ns;
    plan->headroom = (double)plan->slack_ns / (double)o->period_ns;
    plan->verdict = rtc__plan_judge(plan, plan->response_ns, plan->headroom);
    const char *dom = plan->dominant >= 0 ? plan->units[plan->dominant].name : NULL;
    char by[240] = "";
    if (dom)
        snprintf(by, sizeof by, "; unit %s works %.3f ms (p50) per step, %.0f %% of the period "
                 "on average", dom, (double)plan->units[plan->dominant].work.p50 / 1e6,
                 plan->units[plan->dominant].share * 100);
    size_t busiest = 0;
    for (size_t t = 1; t < plan->n_threads; t++)
        busiest = plan->utilisation[t] > plan->utilisation[busiest] ? t : busiest;
    if (plan->utilisation[busiest] >= 1) {
        snprintf(plan->reason, sizeof plan->reason, "%s is busy %.0f %% of the period%s",
                 busiest ? "a worker thread" : "the real-time thread",
                 plan->utilisation[busiest] * 100, by);
        return;
    }
    /* a miss the wake-up latency decides is named as the machine's, not a unit's */
    bool misses = plan->verdict != RTC_PLAN_FEASIBLE || plan->worst.p50 > o->period_ns;
    if (plan->wakeup_bound && misses)
        snprintf(by, sizeof by, "; the wake-up latency alone is %.3f ms at p%g: this machine's "
                 "scheduling, not the system's work (%.3f ms at p%g)",
                 (double)plan->wakeup_q / 1e6, o->percentile * 100,
                 (double)plan->work_q / 1e6, o->percentile * 100);
    if (plan->worst.p50 > o->period_ns) {
        plan->verdict = RTC_PLAN_INFEASIBLE; /* even a typical heavy tick misses */
        snprintf(plan->reason, sizeof plan->reason, "the median tick with %.120s takes %.3f ms, "
                 "more than the %.3f ms period%s", plan->worst_units,
                 (double)plan->worst.p50 / 1e6, (double)o->period_ns / 1e6, by);
        return;
    }
    snprintf(plan->reason, sizeof plan->reason, "the tick with %.120s responds in %.3f ms at p%g "
             "against a %.3f ms period%s", plan->worst_units, (double)plan->response_ns / 1e6,
             o->percentile * 100, (double)o->period_ns / 1e6,
             plan->verdict == RTC_PLAN_FEASIBLE ? "" : by);
}

static void worst_names(rtc_plan *plan, const plan_model *m, size_t p)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n && n + 2 < sizeof plan->worst_units; i++) {
        if (!m->due[p * m->n + i])
            continue;
        int k = snprintf(plan->worst_units + n, sizeof plan->worst_units - n, "%s%s",
                         n ? " " : "", plan->units[i].name);
        n += k > 0 ? (size_t)k : 0;
    }
    if (n >= sizeof plan->worst_units)
        memcpy(plan->worst_units + sizeof plan->worst_units - 4, "...", 4);
}

static int analyse(rtc_plan *plan, const plan_model *m, const rtc_profile *prof,
                   const rtc_plan_opts *o)
{
    int64_t *v = malloc(m->nt * sizeof *v);
    if (!v)
        return RTC_ENOMEM;
    memcpy(v, m->wv, m->nw * sizeof *v);
    plan->wakeup = dist_of(v, m->nw);
    memcpy(v, m->e, m->nt * sizeof *v);
    plan->engine = dist_of(v, m->nt);
    for (size_t k = 0; k < m->nt; k++) {
        const int64_t *r = rtc_profile_row(prof, k, NULL);
        v[k] = r[RTC_PROFILE_STEP] + r[RTC_PROFILE_HANDOFF];
    }
    plan->measured = dist_of(v, m->nt);
    free(v);
    plan->utilisation[0] += plan->engine.mean / (double)o->period_ns;
    fill_units(plan, m);
    plan_result r;
    plan_what w = {plan->o.workers, NULL, NULL, NULL, plan->o.period_ns, plan->o.percentile};
    int rc = rtc__plan_predict(m, &w, &r);
    if (rc != RTC_OK)
        return rc;
    plan->work = r.work;
    plan->response = r.response;
    plan->worst = r.worst;
    plan->response_ns = r.worst_q;
    plan->overrun_rate = r.overrun_rate;
    plan->rate_floor = 1.0 / (double)m->nt;
    plan->wakeup_q = rtc_plan_quantile(m->wv, m->nw, plan->o.percentile);
    double q = plan->o.percentile;
    plan->work_q = q >= 0.999 ? r.work.p999 : q >= 0.99 ? r.work.p99 : r.work.p50;
    plan->wakeup_bound = 2 * plan->wakeup_q > plan->response_ns;
    plan->n_patterns = m->np;
    plan->hyperperiod_ns = m->hyper_ns;
    worst_names(plan, m, r.worst_pattern);
    doubts(plan, m, prof);
    verdict(plan);
    if (plan->verdict != RTC_PLAN_FEASIBLE)
        rtc__plan_options(plan, m, o);
    return RTC_OK;
}

int rtc_plan_new(const rtc_system *sys, const rtc_profile *prof, const rtc_plan_opts *o,
                 rtc_plan **out)
{
    if (!sys || !prof || !o || !out || o->period_ns <= 0)
        return RTC_EINVAL;
    rtc_plan *plan = calloc(1, sizeof *plan);
    if (!plan)
        return RTC_ENOMEM;
    plan->o = *o;
    defaults(&plan->o);
    plan->dominant = -1;
    plan->n_units = rtc_system_unit_count(sys);
    plan->n_threads = (size_t)plan->o.workers + 1;
    plan->units = calloc(plan->n_units + 1, sizeof *plan->units);
    plan->utilisation = calloc(plan->n_threads, sizeof *plan->utilisation);
    plan_model m = {0};
    int rc = plan->units && plan->utilisation ? RTC_OK : RTC_ENOMEM;
    if (rc == RTC_OK)
        rc = rtc__plan_model_init(&m, sys, prof, plan->o.profile_workers);
    if (rc == RTC_OK)
        rc = analyse(plan, &m, prof, o);
    rtc__plan_model_clear(&m);
    if (rc != RTC_OK) {
        rtc_plan_free(plan);
        return rc;
    }
    *out = plan;
    return RTC_OK;
}
