/*
 * `rtcosim plan SYSTEM`: Parallel Fast planning — Ê(H), D̂(H) and H* — with the units'
 * real-time factors measured on this machine (or typed with --rtf); and
 * `rtcosim plan --realtime SYSTEM`: real-time feasibility — per unit, engine, wake-up,
 * per thread, the tick, slack, predicted overruns, the verdict and what to change
 * (plan_cli.h, rtcosim/plan.h). The check `run --realtime` makes is here too
 * (rtc_cli_rt_guard): the same plan, the same verdict.
 */
#include "cli.h"
#include "plan_cli.h"

#include "rtcosim/archive.h"
#include "rtcosim/pfast.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "12.3 us" below a millisecond, "1.234 ms" above. */
static const char *t_text(int64_t ns, char *buf, size_t cap)
{
    if (ns < 0)
        snprintf(buf, cap, "-");
    else if (ns < 1000000)
        snprintf(buf, cap, "%.1f us", (double)ns / 1e3);
    else
        snprintf(buf, cap, "%.3f ms", (double)ns / 1e6);
    return buf;
}

#define T(ns) t_text((ns), (char[24]){0}, 24)

const char *rtc_cli_plan_verdict(const rtc_plan *plan, char *buf, size_t cap)
{
    double q = plan->o.percentile * 100;
    if (plan->verdict == RTC_PLAN_FEASIBLE)
        snprintf(buf, cap, "feasible with %.0f %% headroom at p%g", plan->headroom * 100, q);
    else if (plan->verdict == RTC_PLAN_TIGHT && plan->headroom >= 0)
        snprintf(buf, cap, "tight: %.0f %% headroom at p%g (margin %.0f %%)",
                 plan->headroom * 100, q, plan->o.margin * 100);
    else
        snprintf(buf, cap, "%s: %s", rtc_plan_verdict_name(plan->verdict), plan->reason);
    return buf;
}

static void print_dist(FILE *f, const char *name, const char *kind, const char *step,
                       const rtc_plan_dist *d, const char *tail)
{
    fprintf(f, "  %-22.22s %-8.8s %-9s %7llu %10s %10s %10s %10s%s\n", name, kind, step,
            (unsigned long long)d->samples, T(d->p50), T(d->p99), T(d->p999), T(d->max), tail);
}

static void print_units(FILE *f, const rtc_plan *p)
{
    fprintf(f, "  %-22s %-8s %-9s %7s %10s %10s %10s %10s  %s\n", "unit", "kind", "step",
            "samples", "p50", "p99", "p99.9", "max", "share thread");
    for (size_t i = 0; i < p->n_units; i++) {
        const rtc_plan_unit *u = &p->units[i];
        char step[24], tail[64];
        rtc_time_format_s(u->step_ns, step, sizeof step);
        strcat(step, " s");
        snprintf(tail, sizeof tail, "  %4.1f %% %s", u->share * 100,
                 u->thread ? "worker" : "RT");
        if (u->thread)
            snprintf(tail + strlen(tail), sizeof tail - strlen(tail), " %zu", u->thread);
        print_dist(f, u->name, u->kind, step, &u->work, tail);
    }
    print_dist(f, "engine", "(own)", "per tick", &p->engine, "  exchange, link estimators, "
               "hand-off");
    print_dist(f, "wake-up latency", "", "per tick", &p->wakeup, "");
}

static void print_head(FILE *f, const rtc_cli_feas *fe, const char *path)
{
    const rtc_plan *p = fe->plan;
    const rtc_profile_info *in = &fe->info;
    fprintf(f, "%s: period %s (rtf %g), %u worker%s; profile of %zu ticks paced at %s, %.1f s%s\n",
            path, T(p->o.period_ns), p->o.rtf, p->o.workers, p->o.workers == 1 ? "" : "s",
            fe->ticks, T(in->period_ns), in->wall_s, fe->cached ? " (cached)" : "");
    fprintf(f, "  measured with %s %d, %s, memory %slocked; load average %.2f on %d CPU%s\n",
            in->policy, in->priority, in->cpu >= 0 ? "pinned" : "CPU not pinned",
            in->memory_locked ? "" : "not ", in->loadavg, in->cpus, in->cpus == 1 ? "" : "s");
}

static void print_tick(FILE *f, const rtc_plan *p)
{
    fprintf(f, "per thread:");
    for (size_t t = 0; t < p->n_threads; t++)
        fprintf(f, "%s %s %.1f %%", t ? "," : "", t ? "worker" : "RT thread",
                p->utilisation[t] * 100);
    fprintf(f, " of the period\n");
    fprintf(f, "tick work (predicted)  p50 %s  p99 %s  p99.9 %s; the profile's own ticks: "
            "p50 %s  p99 %s\n", T(p->work.p50), T(p->work.p99), T(p->work.p999),
            T(p->measured.p50), T(p->measured.p99));
    fprintf(f, "worst tick (%s; %zu pattern%s", p->worst_units, p->n_patterns,
            p->n_patterns == 1 ? "" : "s");
    if (p->hyperperiod_ns > p->o.period_ns)
        fprintf(f, " over a %s hyperperiod", T(p->hyperperiod_ns));
    fprintf(f, "): response p50 %s  p99 %s  p99.9 %s\n", T(p->worst.p50), T(p->worst.p99),
            T(p->worst.p999));
    fprintf(f, "slack at p%g: %s of %s", p->o.percentile * 100,
            p->slack_ns >= 0 ? T(p->slack_ns) : "none", T(p->o.period_ns));
    if (p->overrun_rate > 0 || p->rate_floor <= 0)
        fprintf(f, "; predicted overruns %.3g %% of ticks\n", p->overrun_rate * 100);
    else
        fprintf(f, "; predicted overruns below %.2g %% (not resolved by %.0f ticks)\n",
                p->rate_floor * 100, 1 / p->rate_floor);
}

/* The proposed placement on nodes: per node its units and predicted tick, then the
 * --place options that give it. */
static void print_placement(FILE *f, const rtc_cli_feas *fe)
{
    const rtc_plan *p = fe->plan;
    const rtc_plan_placement *pl = &fe->place;
    fprintf(f, "placement on %zu node%s: %zu connection%s cross%s nodes; %s (%s search)\n",
            pl->n_nodes, pl->n_nodes == 1 ? "" : "s", pl->cut, pl->cut == 1 ? "" : "s",
            pl->cut == 1 ? "es" : "", pl->fits ? "every node fits its period with the margin"
                                               : "no placement fits every node",
            pl->exhaustive ? "exhaustive" : "local");
    for (size_t j = 0; j < pl->n_nodes; j++) {
        fprintf(f, "  node %-12s", fe->node_names[j]);
        bool any = false;
        for (size_t i = 0; i < p->n_units; i++)
            if (pl->node[i] == j) {
                fprintf(f, " %s", p->units[i].name);
                any = true;
            }
        if (any)
            fprintf(f, "; tick %s at p%g, %.1f %% busy\n", T(pl->response_ns[j]),
                    p->o.percentile * 100, pl->utilisation[j] * 100);
        else
            fprintf(f, " (no unit)\n");
    }
    fprintf(f, " ");
    for (size_t i = 0; i < p->n_units; i++)
        fprintf(f, " --place %s=%s", p->units[i].name, fe->node_names[pl->node[i]]);
    fprintf(f, "\n");
}

void rtc_cli_plan_print(FILE *f, const rtc_cli_feas *fe, const char *path)
{
    const rtc_plan *p = fe->plan;
    char v[700];
    print_head(f, fe, path);
    print_units(f, p);
    print_tick(f, p);
    fprintf(f, "verdict: %s\n", rtc_cli_plan_verdict(p, v, sizeof v));
    if (!p->confident)
        fprintf(f, "confidence: low — %s\n", p->doubts);
    if (p->verdict != RTC_PLAN_FEASIBLE) {
        fprintf(f, p->n_options ? "options (predicted with the same profile):\n"
                                : "options: none of those the planner knows fits\n");
        for (size_t i = 0; i < p->n_options; i++) {
            const rtc_plan_option *o = &p->options[i];
            fprintf(f, "  %s\n      %s; response %s at p%g, %s (%.0f %% headroom)\n",
                    o->change, o->effect, T(o->response_ns), p->o.percentile * 100,
                    rtc_plan_verdict_name(o->verdict), o->headroom * 100);
        }
    }
    if (fe->placed)
        print_placement(f, fe);
    if (fe->dir[0])
        fprintf(f, "plan: %s/plan.json\n", fe->dir);
}

/* ---- the check before `run --realtime` arms ---- */

static void guard_options(const rtc_plan *p, const rtc_logger *lg, int level)
{
    for (size_t i = 0; i < p->n_options; i++)
        rtc_log(lg, level, "option: %s — %s (predicted: %s, %.0f %% headroom)",
                p->options[i].change, p->options[i].effect,
                rtc_plan_verdict_name(p->options[i].verdict), p->options[i].headroom * 100);
}

/* A unit hung in the check's profile: refused unless --force (the profiled copy stays
 * loaded, its thread parked inside that unit; the run loads its own). */
static int guard_hung(const char *path, const rtc_cli_feas *fe, rtc_cli_rt *rt,
                      const rtc_logger *lg)
{
    rtc_tmpdir_remove_all(); /* the copy's extracted files (its library stays mapped) */
    rtc_cli_end *e = &rt->end;
    snprintf(e->reason, sizeof e->reason, "infeasible: unit %.100s did not return from its "
             "step within the feasibility profile's %.1f s", fe->hung, RTC_CLI_GUARD_SECONDS);
    rtc_log(lg, rt->force ? RTC_LOG_WARNING : RTC_LOG_ERROR, "%s: %s%s", path, e->reason,
            rt->force ? "; --force: arming it anyway (the watchdog stops a tick that hangs)"
                      : "; refusing to arm: nothing was started, no bench value written");
    if (rt->force) {
        e->reason[0] = '\0';
        return RTC_OK;
    }
    e->cause = "infeasible";
    return RTC_EINVAL;
}

/* Whether `run --realtime` refuses a plan (without --force): infeasible by the system's
 * work; a verdict only this machine's scheduling makes infeasible is warned and armed. */
static bool refused_plan(const rtc_plan *p)
{
    return p->verdict == RTC_PLAN_INFEASIBLE && !rtc_plan_scheduling_only(p);
}

static int guard_verdict(const char *path, const rtc_cli_feas *fe, rtc_cli_rt *rt,
                         const rtc_logger *lg)
{
    const rtc_plan *p = fe->plan;
    char v[700];
    rtc_cli_plan_verdict(p, v, sizeof v);
    char where[4200] = "not kept";
    if (fe->dir[0])
        snprintf(where, sizeof where, "%s/plan.json", fe->dir);
    if (p->verdict == RTC_PLAN_FEASIBLE) {
        rtc_log(lg, RTC_LOG_INFO, "%s: %s on this machine (plan: %s)", path, v, where);
        return RTC_OK;
    }
    bool refuse = refused_plan(p) && !rt->force;
    int level = refuse ? RTC_LOG_ERROR : RTC_LOG_WARNING;
    rtc_log(lg, level, "%s: %s on this machine%s%s (plan: %s)", path, v,
            p->confident ? "" : "; confidence low: ", p->confident ? "" : p->doubts, where);
    if (p->verdict == RTC_PLAN_INFEASIBLE)
        guard_options(p, lg, level);
    if (!refuse) {
        if (p->verdict == RTC_PLAN_INFEASIBLE)
            rtc_log(lg, RTC_LOG_WARNING, "%s: %s: arming it anyway; expect overruns "
                    "(predicted: %.3g %% of ticks)", path,
                    rt->force ? "--force"
                              : "the system's work fits the period, this machine's wake-up "
                                "latency does not",
                    p->overrun_rate * 100);
        return RTC_OK;
    }
    rtc_log(lg, RTC_LOG_ERROR, "%s: refusing to arm: nothing was started, no bench value "
            "written ('rtcosim plan --realtime' explains, --force runs it anyway)", path);
    rt->end.cause = "infeasible";
    snprintf(rt->end.reason, sizeof rt->end.reason, "%.500s", v);
    return RTC_EINVAL;
}

int rtc_cli_rt_guard(const char *path, const rtc_system_options *so, rtc_cli_rt *rt,
                     const char *const *records, size_t n_records, const rtc_logger *lg)
{
    rtc_cli_feas_opts fo = {.path = path, .so = so, .rt = rt, .ticks = RTC_CLI_GUARD_TICKS,
                            .seconds = RTC_CLI_GUARD_SECONDS, .reprofile = rt->reprofile,
                            .any_length = true, .plan = rt->plan_file, .records = records,
                            .n_records = n_records, .lg = lg};
    static const rtc_logger silent = {NULL, NULL, -1}; /* the copy's units: the run's say it */
    fo.copy_lg = &silent;
    rtc_cli_feas fe;
    int rc = rtc_cli_feasibility(&fo, &fe);
    if (rc == RTC_ETIME)
        return guard_hung(path, &fe, rt, lg);
    if (rc == RTC_ESTATE) /* a unit ended or failed at once: the run will say so */
        return RTC_OK;
    if (rc != RTC_OK) { /* no verdict is no refusal: the run's own load reports the cause */
        rtc_log(lg, RTC_LOG_WARNING, "%s: the feasibility check could not be made (%s); "
                "arming unchecked", path, rtc_strerror(rc));
        return rt->plan_file ? rc : RTC_OK; /* a --plan that does not fit is an error */
    }
    rc = guard_verdict(path, &fe, rt, lg);
    rt->plan = fe.plan; /* summary.json sets it beside what the run measures */
    snprintf(rt->plan_dir, sizeof rt->plan_dir, "%s", fe.dir);
    return rc;
}

/* ---- rtcosim plan ---- */

static const char plan_help[] =
    "usage: rtcosim plan [options] SYSTEM\n"
    "       rtcosim plan --realtime [RTF] [options] SYSTEM\n"
    "\n"
    "Parallel Fast planning (Holzinger et al.): for candidate synchronization steps H,\n"
    "print the extrapolation-error estimate E(H) and the real-time-factor estimate D(H) of\n"
    "the system's units and connections, the recommended H* = argmin E(H), and the H* of a\n"
    "paced run (D(H) <= 1 - margin). The units' real-time factors d_i are measured on this\n"
    "machine (a profile, as --realtime makes), unless --rtf gives them.\n"
    "\n"
    "With --realtime: real-time feasibility on this machine. Each unit (FMUs, Model\n"
    "Exchange units with their solver, I/O units with their estimators) and the engine's\n"
    "own work per tick are profiled on the cores and at the priority of the real run\n"
    "(SCHED_FIFO where permitted, memory locked) for a bounded number of ticks from the\n"
    "system's start, on a copy whose I/O components are replayed (no bench is touched).\n"
    "It prints per unit the work per step (p50, p99, p99.9, max, samples), the engine and\n"
    "the wake-up latency, the utilisation of each thread, the tick (the worst one of a\n"
    "multi-rate hyperperiod), the slack, the predicted overrun rate and a verdict; when\n"
    "not feasible, concrete options with their predicted effect. The plan is kept\n"
    "(plan.json, samples.csv) in the cache ($RTCOSIM_CACHE_DIR, else\n"
    "$XDG_CACHE_HOME/rtcosim, else ~/.cache/rtcosim; plans/KEY/), keyed by the system\n"
    "file, the units' files, the options and the machine, and 'run --realtime' checks it.\n"
    "\n"
    "options:\n";

static const char plan_tail[] =
    "  plus the options of 'rtcosim run' (--realtime RTF, --priority, --cpu, --workers,\n"
    "  --step, --algorithm, --overrun, --reprofile, --plan FILE, ...): the run to plan\n"
    "Exit status: 0 feasible or tight (and Parallel Fast planning), 8 infeasible, 1 error,\n"
    "2 usage.\n";

/* The options only `plan` has (the rest are `run`'s, in rtc_cli_sys). */
typedef struct plan_args {
    const char *candidates, *rtf; /* Parallel Fast: H candidates, given d_i */
    bool receiver;                /* Parallel Fast: Q from the receiver's view */
    const char *inputs;           /* --inputs SESSION */
    const char *nodes;            /* --nodes LIST */
    const char **pins;            /* --place C=NODE (malloc'd array) */
    size_t n_pins;
    long ticks;                   /* --ticks (RTC_CLI_PLAN_TICKS) */
    double seconds;               /* --seconds (RTC_CLI_PLAN_SECONDS) */
    double percentile;            /* --percentile as a fraction (0: default) */
    double margin;                /* --margin as a fraction (0: default) */
} plan_args;

/* Split "a,b,c" and parse each item; returns the count or -1. */
static long parse_list(const char *text, bool times, int64_t *ns, double *d, size_t cap)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", text);
    long n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if ((size_t)n >= cap)
            return -1;
        if (times ? rtc_parse_seconds(tok, &ns[n]) != RTC_OK
                  : rtc_cli_num_double(tok, 1e-9, 1e9, &d[n]) != NULL)
            return -1;
        n++;
    }
    return n;
}

/* The H* of a paced run with the d_i used, or why there is none. */
static void print_paced(const rtc_pf_plan *plan, const double *d, size_t m, const rtc_system *sys,
                        double limit, bool measured)
{
    long r = rtc_pf_plan_best_paced(plan, limit);
    if (r >= 0) {
        char h[32];
        rtc_time_format_s(plan->rows[r].H_ns, h, sizeof h);
        printf("paced: H* = %s s (argmin of E_hat among D_hat <= %.2f, %s real-time factors)\n",
               h, limit, measured ? "measured" : "given");
        return;
    }
    size_t worst = 0;
    for (size_t i = 1; i < m; i++)
        worst = d[i] > d[worst] ? i : worst;
    printf("paced: no H keeps up (D_hat > %.2f for every candidate): unit %s alone has d = "
           "%.3g, slower than real time at any synchronization step\n", limit,
           rtc_system_unit(sys, worst)->name, d[worst]);
}

/* Parallel Fast planning of @p sys with the d_i of --rtf, else @p d_measured (n_measured
 * values), else 1; prints the table, H*, and the paced H* (D̂ <= 1 − @p margin) when the d_i
 * are known. Returns an rtc status. */
static int plan_pf(rtc_system *sys, const plan_args *a, const double *d_measured,
                   size_t n_measured, double margin)
{
    size_t m = rtc_system_unit_count(sys);
    int64_t *h = calloc(m + 1, sizeof *h), cand[256];
    double *conn = calloc(m * m + 1, sizeof *conn), rtf[256];
    long n_cand = a->candidates ? parse_list(a->candidates, true, cand, NULL, 256) : 0;
    long n_rtf = a->rtf ? parse_list(a->rtf, false, NULL, rtf, 256) : 0;
    int rc = h && conn ? RTC_OK : RTC_ENOMEM;
    if (rc == RTC_OK && (n_cand < 0 || n_rtf < 0)) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "%s: at most 256 values",
                n_cand < 0 ? "--candidates" : "--rtf");
        rc = RTC_EINVAL;
    }
    if (rc == RTC_OK && n_rtf > 0 && (size_t)n_rtf != m) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "--rtf: %ld values for %zu units", n_rtf, m);
        rc = RTC_EINVAL;
    }
    const double *d = n_rtf > 0 ? rtf : n_measured == m ? d_measured : NULL;
    for (size_t i = 0; rc == RTC_OK && i < m; i++)
        h[i] = rtc_system_unit_step_ns(sys, i);
    for (size_t i = 0; rc == RTC_OK && i < rtc_system_link_count(sys); i++) {
        size_t s, t;
        rtc_system_link_ends(sys, i, &s, &t);
        if (s != t)
            conn[s * m + t] = 1; /* A_ij = 1: unit i feeds unit j (Eq. 6) */
    }
    double floor_d[256]; /* a d of 0 (no measurable work) is not a valid factor */
    for (size_t i = 0; d && i < m && i < 256; i++)
        floor_d[i] = d[i] > 1e-9 ? d[i] : 1e-9;
    rtc_pf_system ps = {.m = m, .h_ns = h, .d = d ? floor_d : NULL, .conn = conn};
    rtc_pf_plan *plan = NULL;
    char err[256] = "";
    if (rc == RTC_OK)
        rc = rtc_pf_plan_new(&ps, n_cand > 0 ? cand : NULL, n_cand > 0 ? (size_t)n_cand : 0,
                             a->receiver ? RTC_PF_RECEIVER : RTC_PF_LITERAL, &plan, err,
                             sizeof err);
    if (rc == RTC_OK) {
        for (size_t i = 0; i < m; i++) {
            char hs[32];
            rtc_time_format_s(h[i], hs, sizeof hs);
            printf("unit %-20s h = %s s  d = %.3g%s\n", rtc_system_unit(sys, i)->name, hs,
                   d ? floor_d[i] : 1.0, n_rtf > 0 ? " (given)" : d ? " (measured)" : "");
        }
        rc = rtc_pf_plan_print(plan, stdout);
        if (rc == RTC_OK && d)
            print_paced(plan, floor_d, m, sys, 1 - margin, n_rtf == 0);
    } else if (err[0]) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "plan: %s", err);
    }
    rtc_pf_plan_free(plan);
    free(h);
    free(conn);
    return rc;
}


/* `plan --realtime`: the feasibility plan, printed; exit 8 when the run would be refused
 * (infeasible by the system's work, not only by this machine's scheduling). Without
 * --realtime the same profile gives Parallel Fast its measured d_i (unless --rtf). */
static int plan_run(rtc_cli_sys *o, const plan_args *a)
{
    bool feas = o->rt.enabled;
    rtc_cli_feas_opts fo = {.path = o->path, .so = &o->so, .rt = &o->rt, .inputs = a->inputs,
                            .ticks = a->ticks, .seconds = a->seconds,
                            .percentile = a->percentile, .margin = a->margin,
                            .reprofile = o->rt.reprofile, .plan = o->rt.plan_file,
                            .records = o->records, .n_records = o->n_records,
                            .lg = &rtc_cli_log, .nodes = a->nodes, .pins = a->pins,
                            .n_pins = a->n_pins};
    rtc_cli_feas fe = {0};
    int rc = feas || !a->rtf ? rtc_cli_feasibility(&fo, &fe) : RTC_OK;
    if (rc == RTC_ETIME) {
        fprintf(stderr, "rtcosim plan: infeasible: unit %s did not return from its step "
                "within the profile's %.1f s\n", fe.hung, a->seconds);
        rtc_tmpdir_remove_all(); /* the stuck copy's library stays mapped */
        return RTC_EXIT_INFEASIBLE;
    }
    if (feas) {
        if (rc == RTC_OK)
            rtc_cli_plan_print(stdout, &fe, o->path);
        /* exit 8 exactly when `run --realtime` would refuse: not for a verdict that only
         * this machine's scheduling makes infeasible (the run warns and arms) */
        bool refused = rc == RTC_OK && refused_plan(fe.plan);
        int st = rc != RTC_OK ? RTC_EXIT_ERROR : refused ? RTC_EXIT_INFEASIBLE : RTC_EXIT_OK;
        rtc_cli_feas_clear(&fe);
        return st;
    }
    if (rc != RTC_OK) /* no measured d_i: Parallel Fast with d = 1 */
        rtc_log(&rtc_cli_log, RTC_LOG_WARNING, "%s: no profile (%s): real-time factors d = 1",
                o->path, rtc_strerror(rc));
    rtc_system *sys = NULL;
    double margin = fe.plan ? fe.plan->o.margin : a->margin > 0 ? a->margin : 0.2;
    rc = rtc_cli_load_system(o->path, &o->so, &rtc_cli_log, &sys);
    if (rc == RTC_OK)
        rc = plan_pf(sys, a, fe.pf_d, fe.plan ? fe.n_units : 0, margin);
    rtc_system_free(sys);
    rtc_cli_feas_clear(&fe);
    return rc == RTC_OK ? RTC_EXIT_OK : RTC_EXIT_ERROR;
}

/* plan's own options (its rows in cli_opts.c, values checked there) into @p p. */
static int plan_take(const rtc_cli_args *a, plan_args *p)
{
    *p = (plan_args){.ticks = RTC_CLI_PLAN_TICKS, .seconds = RTC_CLI_PLAN_SECONDS};
    for (size_t i = 0; i < a->n; i++) {
        const rtc_cli_val *v = &a->args[i].v;
        switch (a->args[i].opt->id) {
        case RTC_CLI_CANDIDATES: p->candidates = v->text; break;
        case RTC_CLI_RTF: p->rtf = v->text; break;
        case RTC_CLI_RECEIVER: p->receiver = true; break;
        case RTC_CLI_INPUTS: p->inputs = v->text; break;
        case RTC_CLI_TICKS: p->ticks = v->i; break;
        case RTC_CLI_SECONDS: p->seconds = v->d; break;
        case RTC_CLI_PERCENTILE: p->percentile = v->d / 100; break;
        case RTC_CLI_MARGIN: p->margin = v->d / 100; break;
        case RTC_CLI_NODES: p->nodes = v->text; break;
        case RTC_CLI_PIN: {
            const char **n = realloc(p->pins, (p->n_pins + 1) * sizeof *n);
            if (!n)
                return RTC_EXIT_ERROR;
            p->pins = n;
            n[p->n_pins++] = v->text;
            break;
        }
        default: break;
        }
    }
    return RTC_EXIT_OK;
}

int rtc_cmd_plan(int argc, char **argv)
{
    const rtc_cli_command *cmd = rtc_cli_command_find("plan");
    rtc_cli_sys o;
    rtc_cli_args a;
    plan_args p = {0};
    int st = rtc_cli_sys_parse(cmd, argc, argv, &o, &a);
    if (st < 0) {
        fputs(plan_help, stdout);
        rtc_cli_print_options(cmd, RTC_CLI_G_OPTIONS, stdout);
        fputs(plan_tail, stdout);
    }
    if (st == RTC_EXIT_OK)
        st = plan_take(&a, &p);
    if (st == RTC_EXIT_OK && (p.nodes || p.n_pins) && !o.rt.enabled)
        st = rtc_cli_usage_error("plan", "--nodes and --place need --realtime (a placement "
                                 "fits each node's period)");
    if (st == RTC_EXIT_OK && p.n_pins && !p.nodes)
        st = rtc_cli_usage_error("plan", "--place needs --nodes");
    if (st == RTC_EXIT_OK)
        st = plan_run(&o, &p);
    free(p.pins);
    rtc_cli_args_clear(&a);
    rtc_cli_sys_clear(&o);
    return st < 0 ? RTC_EXIT_OK : st;
}
