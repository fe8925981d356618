/*
 * What to change when a plan is not feasible (rtcosim/plan.h): each option is a concrete
 * change — a command-line option or an attribute of the system file — with its effect
 * predicted by the same model on the same profile (plan.c), so options and verdict are
 * comparable numbers.
 *
 *   --workers N             Jacobi on N worker threads, the engine's assignment
 *                           (rtc_system_worker_owner), with the longest-first (LPT)
 *                           assignment's figure beside it when that is better;
 *   stepSize + substitute   the dominating unit steps every m-th tick on its own thread
 *                           (overrun policy substitute), its outputs extrapolated between;
 *   substeps / solver       a Model Exchange unit with fewer substeps or a cheaper
 *                           explicit solver (work scales with the derivative evaluations);
 *   --realtime RTF          a slower pace that fits with the margin.
 */
#include "plan_priv.h"

#include "rtcosim/rt.h"
#include "rtcosim/status.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add(rtc_plan *plan, int64_t response_ns, int64_t period_ns, const char *change,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* One option; its headroom is against @p period_ns (the run's, or a slower pace's). */
static void add(rtc_plan *plan, int64_t response_ns, int64_t period_ns, const char *change,
                const char *fmt, ...)
{
    if (plan->n_options >= RTC_PLAN_MAX_OPTIONS || response_ns < 0 ||
        (period_ns == plan->o.period_ns && (double)response_ns > 0.95 * (double)plan->response_ns))
        return; /* no better: not an option */
    rtc_plan_option *op = &plan->options[plan->n_options++];
    snprintf(op->change, sizeof op->change, "%s", change);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(op->effect, sizeof op->effect, fmt, ap);
    va_end(ap);
    op->response_ns = response_ns;
    op->headroom = 1 - (double)response_ns / (double)period_ns;
    op->verdict = op->headroom < 0                ? RTC_PLAN_INFEASIBLE
                  : op->headroom < plan->o.margin ? RTC_PLAN_TIGHT
                                                  : RTC_PLAN_FEASIBLE;
}

static int64_t predict(const plan_model *m, const rtc_plan *plan, unsigned workers,
                       const size_t *thread, const double *scale, const bool *drop,
                       int64_t period_ns)
{
    plan_what w = {workers, thread, scale, drop, period_ns, plan->o.percentile};
    plan_result r;
    return rtc__plan_predict(m, &w, &r) == RTC_OK ? r.worst_q : -1;
}

static bool fits(const rtc_plan *plan, int64_t response_ns, int64_t period_ns)
{
    return response_ns >= 0 && (double)response_ns <= (1 - plan->o.margin) * (double)period_ns;
}

/* Longest-first: units of one FMU file stay together (one thread calls one binary),
 * heaviest group first onto the least loaded thread; the RT thread starts with the
 * engine's work. Fills @p thread; returns false when out of memory. */
static bool lpt(const rtc_plan *plan, const plan_model *m, unsigned workers, size_t *thread)
{
    double *load = calloc((size_t)workers + 1, sizeof *load);
    bool *done = calloc(m->n + 1, sizeof *done);
    if (!load || !done) {
        free(load);
        free(done);
        return false;
    }
    load[0] = plan->engine.mean;
    for (;;) {
        long best = -1;
        double best_w = -1;
        for (size_t i = 0; i < m->n; i++) {
            if (done[i] || m->io[i])
                continue;
            double w = 0; /* the group of i's FMU */
            for (size_t j = 0; j < m->n; j++)
                if (!m->io[j] && rtc_system_unit(m->sys, j)->md == rtc_system_unit(m->sys, i)->md)
                    w += plan->units[j].work.mean * m->freq[j];
            if (w > best_w) {
                best_w = w;
                best = (long)i;
            }
        }
        if (best < 0)
            break;
        size_t t = 0;
        for (size_t k = 1; k <= workers; k++)
            t = load[k] < load[t] ? k : t;
        load[t] += best_w;
        for (size_t j = 0; j < m->n; j++)
            if (!m->io[j] && rtc_system_unit(m->sys, j)->md == rtc_system_unit(m->sys, best)->md) {
                thread[j] = t;
                done[j] = true;
            }
    }
    free(load);
    free(done);
    return true;
}

/* "a→0 b→1" for an assignment. */
static void assignment_text(const rtc_plan *plan, const plan_model *m, const size_t *thread,
                            char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < m->n && n + 2 < cap; i++) {
        if (m->io[i])
            continue;
        int k = snprintf(buf + n, cap - n, "%s%s on %s", n ? ", " : "", plan->units[i].name,
                         thread[i] ? "worker" : "the RT thread");
        if (thread[i] && k > 0 && (size_t)k < cap - n)
            k += snprintf(buf + n + k, cap - n - (size_t)k, " %zu", thread[i]);
        n += k > 0 ? (size_t)k : 0;
    }
}

static void opt_workers(rtc_plan *plan, const plan_model *m, unsigned cpus)
{
    size_t stepping = 0;
    for (size_t i = 0; i < m->n; i++)
        stepping += !m->io[i];
    size_t *thread = calloc(m->n + 1, sizeof *thread);
    unsigned most = stepping > 1 ? (unsigned)stepping - 1 : 0;
    most = most > cpus - 1 ? cpus - 1 : most; /* a worker needs a CPU beside the RT thread */
    most = most > 4 ? 4 : most;
    for (unsigned w = plan->o.workers + 1; thread && w <= most; w++) {
        int64_t r = predict(m, plan, w, NULL, NULL, NULL, plan->o.period_ns);
        int64_t rl = lpt(plan, m, w, thread) ? predict(m, plan, w, thread, NULL, NULL,
                                                      plan->o.period_ns) : -1;
        char change[64], alt[200] = "";
        snprintf(change, sizeof change, "--workers %u", w);
        if (rl >= 0 && r >= 0 && (double)rl < 0.95 * (double)r) {
            char who[160];
            assignment_text(plan, m, thread, who, sizeof who);
            snprintf(alt, sizeof alt, "; longest-first (%s): %.3f ms", who, (double)rl / 1e6);
        }
        add(plan, r, plan->o.period_ns, change, "units step on %u worker thread%s beside the "
            "RT thread, one CPU each (+ %.0f us hand-off assumed unless profiled with "
            "workers)%s", w, w == 1 ? "" : "s", (double)RTC_PLAN_WORKER_HANDOFF_NS / 1e3, alt);
        if (fits(plan, r, plan->o.period_ns) || fits(plan, rl, plan->o.period_ns))
            break;
    }
    free(thread);
}

/* The dominating unit every m-th tick on its own thread (substitute): it must finish
 * before its next step is due, less the tenth of a period the policy keeps. */
static void opt_substitute(rtc_plan *plan, const plan_model *m)
{
    long d = plan->dominant;
    if (d < 0 || plan->o.workers || plan->o.iterate)
        return;
    const rtc_plan_unit *u = &plan->units[d];
    int64_t xq = rtc_plan_quantile(m->x[d], m->nx[d], plan->o.percentile);
    if (5 * xq < plan->o.period_ns)
        return; /* a light unit: moving it out frees little */
    bool *drop = calloc(m->n + 1, sizeof *drop);
    if (!drop)
        return;
    drop[d] = true;
    static const int mult[] = {2, 3, 4, 5, 8, 10, 20};
    for (size_t k = 0; k < sizeof mult / sizeof mult[0]; k++) {
        int64_t span = mult[k] * plan->o.period_ns;
        if ((double)xq > 0.9 * (double)span)
            continue;
        int64_t r = predict(m, plan, 0, NULL, NULL, drop, plan->o.period_ns);
        char change[256];
        snprintf(change, sizeof change, "stepSize=\"%.9g\" on %s (rtc:Component) and --overrun "
                 "substitute", (double)(u->step_ns * mult[k]) / 1e9, u->name);
        add(plan, r, plan->o.period_ns, change, "%s steps every %d ticks on its own thread "
            "(busy %.0f %% of it at p%g), its outputs extrapolated in between; the other units' "
            "tick responds in %.3f ms", u->name, mult[k], 100.0 * (double)xq / (double)span,
            plan->o.percentile * 100, (double)r / 1e6);
        break;
    }
    free(drop);
}

/* Derivative evaluations per solver step. */
static double stages(const char *solver)
{
    return !solver ? 0 : !strcmp(solver, "euler") ? 1 : !strcmp(solver, "heun") ? 2
                       : !strcmp(solver, "rk4")  ? 4 : 0;
}

static void opt_me_unit(rtc_plan *plan, const plan_model *m, const rtc_plan_unit_hint *h,
                        size_t i, double *scale)
{
    const char *name = plan->units[i].name;
    for (unsigned s = h->substeps; s-- > 1;) { /* the most substeps that fit */
        scale[i] = (double)s / (double)h->substeps;
        int64_t r = predict(m, plan, plan->o.workers, NULL, scale, NULL, plan->o.period_ns);
        if (!fits(plan, r, plan->o.period_ns))
            continue;
        char change[256];
        snprintf(change, sizeof change, "substeps=\"%u\" on %s (rtc:Component)", s, name);
        add(plan, r, plan->o.period_ns, change, "%s integrates with %u instead of %u %s "
            "substeps: coarser, check its accuracy", name, s, h->substeps, h->solver);
        break;
    }
    static const char *const cheaper[] = {"heun", "euler"};
    for (size_t k = 0; k < 2 && stages(h->solver) > 0; k++) {
        if (stages(cheaper[k]) >= stages(h->solver))
            continue;
        scale[i] = stages(cheaper[k]) / stages(h->solver);
        int64_t r = predict(m, plan, plan->o.workers, NULL, scale, NULL, plan->o.period_ns);
        if (!fits(plan, r, plan->o.period_ns))
            continue;
        char change[256];
        snprintf(change, sizeof change, "solver=\"%s\" on %s (rtc:Component)", cheaper[k], name);
        add(plan, r, plan->o.period_ns, change, "%s uses %s (order %g) instead of %s: fewer "
            "derivative evaluations, lower accuracy", name, cheaper[k], stages(cheaper[k]),
            h->solver);
        break;
    }
    scale[i] = 1;
}

static void opt_me(rtc_plan *plan, const plan_model *m, const rtc_plan_unit_hint *hints)
{
    double *scale = malloc((m->n + 1) * sizeof *scale);
    for (size_t i = 0; scale && i < m->n; i++)
        scale[i] = 1;
    for (size_t i = 0; scale && hints && i < m->n; i++)
        if (hints[i].me && plan->units[i].share * 10 > plan->units[plan->dominant].share)
            opt_me_unit(plan, m, &hints[i], i, scale);
    free(scale);
}

/* The fastest pace that fits with the margin, two significant digits, rounded down. */
static void opt_pace(rtc_plan *plan, const plan_model *m)
{
    double need = (double)plan->response_ns / (1 - plan->o.margin);
    if (need <= 0)
        return;
    double rtf = plan->o.rtf * (double)plan->o.period_ns / need;
    double mag = pow(10, floor(log10(rtf)) - 1);
    rtf = floor(rtf / mag) * mag;
    if (!(rtf > 0) || rtf >= plan->o.rtf)
        return;
    int64_t period = (int64_t)((double)plan->o.period_ns * plan->o.rtf / rtf);
    int64_t r = predict(m, plan, plan->o.workers, NULL, NULL, NULL, period);
    char change[64];
    snprintf(change, sizeof change, "--realtime %.2g", rtf);
    add(plan, r, period, change, "simulated time runs at %.2g x the wall clock (period %.3f "
        "ms): a bench in the loop sees a plant slowed down as much", rtf, (double)period / 1e6);
}

/* The wake-up latency decides: the machine is to change, not the system. The effect is
 * the work at the percentile plus the wake-up tail of a quieter CPU (this profile's p99). */
static void opt_quiet_cpu(rtc_plan *plan)
{
    int64_t r = plan->work_q + plan->wakeup.p99;
    add(plan, r, plan->o.period_ns, "--cpu N, with CPU N isolated (isolcpus=N nohz_full=N "
        "rcu_nocbs=N) or a PREEMPT_RT kernel", "the wake-up latency is %.3f ms at p%g on this "
        "machine (load average, other real-time threads): on a quiet CPU, at its p99 here "
        "(%.3f ms), the tick would respond as predicted", (double)plan->wakeup_q / 1e6,
        plan->o.percentile * 100, (double)plan->wakeup.p99 / 1e6);
}

void rtc__plan_options(rtc_plan *plan, const plan_model *m, const rtc_plan_opts *o)
{
    if (plan->wakeup_bound) {
        opt_quiet_cpu(plan);
        if (rtc_plan_scheduling_only(plan)) { /* the work fits: only scheduling is left */
            opt_pace(plan, m);
            return;
        }
    } /* the work alone misses the period, whatever the wake-up: the units' options too */
    bool jacobi = rtc_system_algorithm(m->sys) == RTC_MASTER_JACOBI;
    if (jacobi && !o->iterate && !o->substitute)
        opt_workers(plan, m, (unsigned)rtc_rt_cpu_count());
    if (jacobi && !o->substitute)
        opt_substitute(plan, m);
    opt_me(plan, m, o->hints);
    opt_pace(plan, m);
}
