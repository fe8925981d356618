/*
 * `rtcosim tune SESSION_DIR`: which estimator, with which parameters, fits each late value
 * of a recorded session — measured on the session, not guessed.
 *
 * I/O signals: every sample a signal's estimator took in the live run is in inputs.bin
 * with the step whose refresh consumed it. Each candidate estimator is fed exactly that
 * (sample, step) sequence and asked for the value at every step, as the replay unit does,
 * and its coupling monitor (rtc_est_get_monitor(): what it supplied for each sample's time
 * against the sample) is its score. So the error `tune` prints for a candidate is the one
 * `rtcosim replay` reports in its summary.json once the session's system names that
 * candidate on the signal: same samples, same steps, same arithmetic.
 *
 * A pure co-simulation (no I/O component): each connection with a transport delay or an
 * estimator is re-run with every candidate on it (the others as the session had them),
 * and its destination input is compared, step by step, with the lock-step reference run
 * (the same system with no delays and no estimators); the coupling monitor is shown too.
 *
 * Candidates: the fixed methods, Kalman filters with q and r from the recorded values
 * (rtc_est_noise_estimate(): r, and q at several multiples of the smooth-signal estimate,
 * gate 5 or off), the adaptive filters, kalman and auto with a few windows and margins;
 * each keeps the configured staleness (fresh, stale, policy, fallback) and payback. Every
 * candidate is built from its own printed text, so the annotation reproduces it exactly.
 */
#include "cli.h"
#include "rt_cli.h"

#include "rtcosim/estimate.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/session.h"
#include "rtcosim/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char tune_help[] =
    "usage: rtcosim tune SESSION_DIR [--all] [-v]\n"
    "\n"
    "Evaluate every estimator and parameter set on a recorded real-time session (the\n"
    "--output-dir of 'rtcosim run --realtime') and recommend one per late value:\n"
    "  - each I/O signal from the bench: its recorded samples are fed to each candidate at\n"
    "    the steps the live run consumed them, and the candidate is asked for the value at\n"
    "    every step; its error is what it supplied for each sample's time against that\n"
    "    sample (the coupling monitor of summary.json, which 'rtcosim replay' reproduces\n"
    "    once the session's system names the candidate on the signal);\n"
    "  - in a pure co-simulation (no I/O component), each connection with a delay or an\n"
    "    estimator: the system is re-run with each candidate on it, and the destination\n"
    "    input is compared with the lock-step reference run (no delays, no estimators).\n"
    "Prints a table per signal or connection (best first, the 10 best without --all), the\n"
    "recommendation and the attributes to put on its rtc:Signal or rtc:Connection.\n"
    "Candidates: zoh, linear, quadratic, ei, dead-reckoning, kalman-cv and kalman-ca with q\n"
    "and r estimated from the recorded values (several q, gate 5 or off), the adaptive\n"
    "filters, kalman and auto; each keeps the configured fresh/stale/policy/fallback and\n"
    "payback.\n"
    "Exit status: 0 done (also when nothing is late), 1 the session cannot be read or run,\n"
    "2 usage.\n"
    "\n"
    "options:\n";

/* One candidate and its scores. */
typedef struct cand {
    rtc_est_config cfg;
    char text[256];      /* rtc_est_config_text(): the method and its parameters */
    rtc_est_monitor mon; /* its coupling monitor */
    double ref_rms, ref_max; /* co-simulation: destination input vs the lock-step run */
} cand;

typedef struct cands {
    cand *c;
    size_t n, cap;
} cands;

/* Add @p method with @p params, keeping @p base's staleness, built from its own text (so
 * that the printed annotation reproduces it exactly); duplicates are skipped. */
static void add(cands *cs, const char *method, const char *params, const rtc_est_config *base)
{
    rtc_est_config c;
    char err[256], text[256], name[64];
    if (rtc_est_config_parse(&c, method, params, err, sizeof err) != RTC_OK)
        return;
    c.fresh_ns = base->fresh_ns;
    c.stale_ns = base->stale_ns;
    c.stale_policy = base->stale_policy;
    c.fallback = base->fallback;
    c.payback = base->payback;
    rtc_est_config_text(&c, text, sizeof text);
    size_t m = strcspn(text, " ");
    snprintf(name, sizeof name, "%.*s", (int)m, text);
    if (rtc_est_config_parse(&c, name, text + m, err, sizeof err) != RTC_OK)
        return;
    for (size_t i = 0; i < cs->n; i++)
        if (!strcmp(cs->c[i].text, text))
            return;
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? 2 * cs->cap : 32;
        cand *p = realloc(cs->c, cap * sizeof *p);
        if (!p)
            return;
        cs->c = p;
        cs->cap = cap;
    }
    cs->c[cs->n] = (cand){.cfg = c};
    snprintf(cs->c[cs->n++].text, sizeof cs->c[0].text, "%s", text);
}

/* The candidates for a value recorded as (t, v) (strictly increasing times). */
static void candidates(cands *cs, const rtc_est_config *base, const int64_t *t, const double *v,
                       size_t n)
{
    static const char *const plain[] = {"zoh", "linear", "quadratic", "ei"};
    for (size_t i = 0; i < 4; i++)
        add(cs, plain[i], "", base);
    char text[256]; /* the one configured now, as it is */
    rtc_est_config_text(base, text, sizeof text);
    size_t m = strcspn(text, " ");
    const char *params = text[m] ? text + m + 1 : "";
    text[m] = '\0';
    add(cs, text, params, base);
    add(cs, "dead-reckoning", "order=1", base);
    double level = 0.0;
    for (size_t i = 0; i < n; i++)
        level = fmax(level, fabs(v[i]));
    rtc_est_noise nz = {0};
    bool measured = n >= 16 && rtc_est_noise_estimate(t, v, n, &nz) == RTC_OK;
    /* r > 0 is required: a noiseless recording gets the round-off of its values */
    double r = fmax(measured ? nz.r : 0.0, 1e-24 * level * level + 1e-300);
    double q[2] = {measured && nz.q_smooth > 0 ? nz.q_smooth : 1.0,
                   measured && nz.q_smooth_ca > 0 ? nz.q_smooth_ca : 1.0};
    static const char *const kf[2] = {"kalman-cv", "kalman-ca"};
    static const double mult[] = {1, 8, 64, 512};
    static const char *const gate[] = {"gate=5", "gate=0"};
    char p[160];
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < 4; i++)
            for (size_t g = 0; g < 2; g++) {
                snprintf(p, sizeof p, "q=%.3g r=%.3g %s", mult[i] * q[k], r, gate[g]);
                add(cs, kf[k], p, base);
            }
    static const struct {
        const char *method, *params;
    } adaptive[] = {{"kalman-cv", "adapt=1"}, {"kalman-ca", "adapt=1"}, {"kalman", ""},
                    {"kalman", "window=64"},  {"auto", ""},              {"auto", "window=16"},
                    {"auto", "window=64"},    {"auto", "margin=0.2"}};
    for (size_t i = 0; i < sizeof adaptive / sizeof adaptive[0]; i++)
        add(cs, adaptive[i].method, adaptive[i].params, base);
}

/* ---- I/O signals ---- */

/* The recorded samples of one signal, in the order the live run consumed them. */
typedef struct trace {
    const rtc_inputs_rec **rec;
    size_t n;
    int64_t tick_ns, end_k;
} trace;

/* Feed @p tr to an estimator for @p cfg as the replay unit does (the samples of step k,
 * then the value at k), and take its monitor. */
static int replay_signal(const rtc_est_config *cfg, const trace *tr, rtc_est_monitor *mon)
{
    rtc_est *e = NULL;
    char err[256];
    int rc = rtc_est_new(cfg, &e, err, sizeof err);
    if (rc != RTC_OK)
        return rc;
    size_t i = 0;
    for (int64_t k = 0; k < tr->end_k; k++) {
        for (; i < tr->n && tr->rec[i]->k <= k; i++) {
            const rtc_inputs_rec *r = tr->rec[i];
            rtc_est_sample s = {.t_ns = r->a_ns, .arrival_ns = r->b_ns, .value = r->value};
            if (r->k == k)
                rtc_est_push(e, &s);
        }
        rtc_est_supply(e, k * tr->tick_ns, NULL);
    }
    rtc_est_get_monitor(e, mon);
    rtc_est_free(e);
    return RTC_OK;
}

static int by_error(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    double ex = x->ref_rms >= 0 ? x->ref_rms : x->mon.error_rms;
    double ey = y->ref_rms >= 0 ? y->ref_rms : y->mon.error_rms;
    if (ex != ey)
        return ex < ey ? -1 : 1;
    return x < y ? -1 : x > y; /* ties: the simpler, listed first */
}

/* The table of one signal or connection, best first, and the recommendation. */
static void print_table(cands *cs, bool all, bool cosim, const char *where)
{
    for (size_t i = 0; i < cs->n; i++)
        if (!cosim)
            cs->c[i].ref_rms = -1.0;
    double zoh = 0.0;
    for (size_t i = 0; i < cs->n; i++)
        if (!strncmp(cs->c[i].text, "zoh", 3))
            zoh = cosim ? cs->c[i].ref_rms : cs->c[i].mon.error_rms;
    qsort(cs->c, cs->n, sizeof *cs->c, by_error);
    printf("  %4s  %-14s %12s %12s %7s %12s  %s\n", "rank", "estimator",
           cosim ? "RMS lockstep" : "RMS", cosim ? "max lockstep" : "max", "/zoh",
           cosim ? "coupling RMS" : "samples", "parameters");
    for (size_t i = 0; i < cs->n && (all || i < 10); i++) {
        const cand *c = &cs->c[i];
        size_t m = strcspn(c->text, " ");
        double rms = cosim ? c->ref_rms : c->mon.error_rms;
        char last[32];
        snprintf(last, sizeof last, cosim ? "%.4e" : "%.0f",
                 cosim ? c->mon.error_rms : (double)c->mon.samples);
        printf("  %4zu  %-14.*s %12.4e %12.4e %7.3f %12s  %s\n", i + 1, (int)m, c->text, rms,
               cosim ? c->ref_max : c->mon.error_max, zoh > 0 ? rms / zoh : 0.0, last,
               c->text + m + (c->text[m] != 0));
    }
    const cand *b = &cs->c[0];
    size_t m = strcspn(b->text, " ");
    char cpl[64] = "";
    if (cosim)
        snprintf(cpl, sizeof cpl, ", coupling RMS %.9e", b->mon.error_rms);
    printf("  recommended: estimator=\"%.*s\" params=\"%s\" (%s RMS %.9e over %llu %s%s)\n",
           (int)m, b->text, b->text + m + (b->text[m] != 0),
           cosim ? "error against the lock-step run" : "prediction error",
           cosim ? b->ref_rms : b->mon.error_rms,
           (unsigned long long)(cosim ? b->mon.supplied : b->mon.samples),
           cosim ? "steps" : "samples", cpl);
    printf("  annotation: estimator=\"%.*s\" params=\"%s\"  (attributes of %s)\n", (int)m,
           b->text, b->text + m + (b->text[m] != 0), where);
}

/* The recorded samples of inputs signal @p s, and their strictly increasing (t, v). */
static size_t collect(const rtc_inputs *in, size_t s, trace *tr, int64_t *t, double *v)
{
    size_t n = 0, nv = 0;
    for (size_t i = 0; i < in->n_recs; i++) {
        const rtc_inputs_rec *r = &in->recs[i];
        if (r->kind != 1 || r->index != s)
            continue;
        tr->rec[n++] = r;
        if (nv == 0 || r->a_ns > t[nv - 1]) {
            t[nv] = r->a_ns;
            v[nv++] = r->value;
        }
    }
    tr->n = n;
    return nv;
}

static int64_t end_of(const rtc_inputs *in)
{
    int64_t end = in->has_end ? in->end_k : 0;
    for (size_t i = 0; !in->has_end && i < in->n_recs; i++)
        end = in->recs[i].k + 1 > end ? in->recs[i].k + 1 : end;
    return end;
}

static void signal_header(const char *unit, const char *name, const rtc_est_config *cfg,
                          const trace *tr, const rtc_est_monitor *m)
{
    char text[256];
    rtc_est_config_text(cfg, text, sizeof text);
    printf("\nI/O signal %s.%s: %zu samples over %lld steps, delay p50 %.3g ms, p99 %.3g ms; "
           "configured: %s\n", unit, name, tr->n, (long long)tr->end_k,
           (double)m->delay_p50_ns / 1e6, (double)m->delay_p99_ns / 1e6, text);
}

/* Tune one I/O signal: @p s is its index in inputs.bin. */
static void tune_signal(const rtc_inputs *in, size_t s, const rtc_unit *u, size_t var, bool all)
{
    const rtc_est_config *base = rtc_io_unit_estimator(u, var);
    trace tr = {.tick_ns = in->tick_ns, .end_k = end_of(in)};
    tr.rec = calloc(in->n_recs + 1, sizeof *tr.rec);
    int64_t *t = calloc(in->n_recs + 1, sizeof *t);
    double *v = calloc(in->n_recs + 1, sizeof *v);
    cands cs = {0};
    if (!tr.rec || !t || !v) {
        fprintf(stderr, "rtcosim tune: out of memory\n");
        goto out;
    }
    size_t nv = collect(in, s, &tr, t, v);
    if (tr.n < 3) {
        printf("\nI/O signal %s.%s: %zu samples recorded, too few to tune\n", u->name,
               u->md->vars[var].name, tr.n);
        goto out;
    }
    candidates(&cs, base, t, v, nv);
    for (size_t i = 0; i < cs.n; i++)
        replay_signal(&cs.c[i].cfg, &tr, &cs.c[i].mon);
    signal_header(u->name, u->md->vars[var].name, base, &tr, &cs.c[0].mon);
    char where[600];
    snprintf(where, sizeof where, "<rtc:Signal name=\"%s\"> of component %s",
             u->md->vars[var].name, u->name);
    print_table(&cs, all, false, where);
out:
    free(cs.c);
    free(tr.rec);
    free(t);
    free(v);
}

/* Every I/O signal of @p sys with samples in @p in. Returns how many were tuned. */
static size_t tune_signals(const rtc_system *sys, const rtc_inputs *in, bool all)
{
    size_t done = 0;
    for (size_t s = 0; s < in->n_signals; s++) {
        size_t ui, vi;
        char name[600];
        snprintf(name, sizeof name, "%s.%s", in->sig_unit[s], in->sig_name[s]);
        if (rtc_system_find_var(sys, name, &ui, &vi) != RTC_OK ||
            !rtc_io_unit_estimator(rtc_system_unit(sys, ui), vi))
            continue; /* a signal to the bench: nothing estimated */
        tune_signal(in, s, rtc_system_unit(sys, ui), vi, all);
        done++;
    }
    return done;
}

/* ---- pure co-simulation ---- */

/* One run of the session's system: connection @p link given @p cfg (its delay kept), or,
 * with @p link SIZE_MAX, the lock-step reference (every late connection without delay and
 * estimator). dst[k] / src[k] (optional) get the connection's destination input and source
 * output after step k; @p mon (optional) its monitor. */
typedef struct cosim {
    const char *dir;
    const rtc_cli_session_conf *conf;
    const rtc_inputs *in;
    int64_t steps;
} cosim;

static bool late(const rtc_link_stats *ls)
{
    return ls->scalar && (ls->delay_ns > 0 || ls->config);
}

/* Set up run @p link of @p cs on a loaded @p sys (see cosim_run). */
static int cosim_setup(rtc_system *sys, size_t link, const rtc_est_config *cfg)
{
    char err[600] = "";
    int rc = RTC_OK;
    for (size_t i = 0; rc == RTC_OK && i < rtc_system_link_count(sys); i++) {
        rtc_link_stats ls;
        rtc_system_link_stats(sys, i, &ls);
        if (link == SIZE_MAX && late(&ls))
            rc = rtc_system_set_link_estimator(sys, i, NULL, 0, err, sizeof err);
        else if (i == link)
            rc = rtc_system_set_link_estimator(sys, i, cfg, ls.delay_ns, err, sizeof err);
    }
    if (rc != RTC_OK)
        fprintf(stderr, "rtcosim tune: %s\n", err);
    return rc;
}

static int cosim_run(const cosim *cs, size_t link, size_t of, const rtc_est_config *cfg,
                     double *dst, double *src, rtc_est_monitor *mon)
{
    rtc_replay *rp = NULL;
    rtc_system *sys = NULL;
    char err[1024] = "";
    int rc = rtc_replay_new(cs->in, &rp);
    if (rc == RTC_OK)
        rc = rtc_cli_session_load(cs->dir, cs->conf, rtc_replay_feed(rp), &sys);
    if (rc == RTC_OK)
        rc = cosim_setup(sys, link, cfg);
    if (rc == RTC_OK)
        rc = rtc_system_init(sys);
    if (rc == RTC_OK && (rc = rtc_replay_bind(rp, sys, err, sizeof err)) != RTC_OK)
        fprintf(stderr, "rtcosim tune: %s\n", err);
    rtc_link_stats ls;
    size_t su = 0, du = 0;
    if (rc == RTC_OK) {
        rtc_system_link_stats(sys, of, &ls);
        rtc_system_link_ends(sys, of, &su, &du);
    }
    for (int64_t k = 0; rc == RTC_OK && k < cs->steps; k++) {
        rc = rtc_replay_before_step(rp, k);
        if (rc == RTC_OK)
            rc = rtc_system_step(sys);
        if (rc == RTC_OK && dst)
            rtc_system_get_value(sys, du, ls.dst_var, &dst[k]);
        if (rc == RTC_OK && src)
            rtc_system_get_value(sys, su, ls.src_var, &src[k]);
    }
    rc = rc == RTC_ETERMINATED ? RTC_OK : rc;
    if (rc == RTC_OK && mon) {
        rtc_system_link_stats(sys, of, &ls);
        *mon = (rtc_est_monitor){0};
        if (ls.est)
            rtc_est_get_monitor(ls.est, mon);
    }
    rtc_system_free(sys);
    rtc_replay_free(rp);
    return rc;
}

/* Tune connection @p i: the reference, then every candidate on it. */
static int tune_link(const cosim *cs, size_t i, const rtc_link_stats *ls0, bool all)
{
    size_t n = (size_t)cs->steps;
    double *ref = calloc(n + 1, sizeof *ref), *src = calloc(n + 1, sizeof *src);
    double *dst = calloc(n + 1, sizeof *dst);
    int64_t *t = calloc(n + 1, sizeof *t);
    cands cd = {0};
    int rc = ref && src && dst && t ? RTC_OK : RTC_ENOMEM;
    if (rc == RTC_OK)
        rc = cosim_run(cs, SIZE_MAX, i, NULL, ref, src, NULL);
    rtc_est_config base;
    rtc_est_config_init(&base, RTC_EST_ZOH);
    if (ls0->config)
        base = *ls0->config;
    for (size_t k = 0; k < n; k++)
        t[k] = (int64_t)(k + 1) * cs->in->tick_ns;
    if (rc == RTC_OK)
        candidates(&cd, &base, t, src, n);
    for (size_t c = 0; rc == RTC_OK && c < cd.n; c++) {
        cand *x = &cd.c[c];
        rc = cosim_run(cs, i, i, &x->cfg, dst, NULL, &x->mon);
        double sq = 0.0;
        for (size_t k = 0; k < n; k++) {
            double d = dst[k] - ref[k];
            sq += d * d;
            x->ref_max = fmax(x->ref_max, fabs(d));
        }
        x->ref_rms = sqrt(sq / (double)(n ? n : 1));
    }
    if (rc == RTC_OK) {
        char text[256];
        rtc_est_config_text(ls0->config, text, sizeof text);
        printf("\nconnection %s: delay %.9g s, %lld steps against the lock-step run; "
               "configured: %s\n", ls0->desc, (double)ls0->delay_ns / 1e9,
               (long long)cs->steps, ls0->config ? text : "none");
        char where[700];
        snprintf(where, sizeof where, "the <rtc:Connection> of %s", ls0->desc);
        print_table(&cd, all, true, where);
    }
    free(cd.c);
    free(ref);
    free(src);
    free(dst);
    free(t);
    return rc;
}

/* Every late connection of a system without I/O components. Returns how many were tuned,
 * or -1 when a run failed. */
static long tune_links(const cosim *cs, const rtc_system *sys, bool all)
{
    long done = 0;
    for (size_t i = 0; i < rtc_system_link_count(sys); i++) {
        rtc_link_stats ls;
        rtc_system_link_stats(sys, i, &ls);
        if (!late(&ls))
            continue;
        if (tune_link(cs, i, &ls, all) != RTC_OK)
            return -1;
        done++;
    }
    return done;
}

/* ---- the command ---- */

/* The options (cli_opts.c); -1 after the help. */
static int parse_args(int argc, char **argv, const char **dir, bool *all)
{
    const rtc_cli_command *cmd = rtc_cli_command_find("tune");
    rtc_cli_args a;
    int st = rtc_cli_parse(cmd, argc, argv, &a);
    for (size_t i = 0; st == RTC_EXIT_OK && i < a.n; i++) {
        if (a.args[i].opt->id == RTC_CLI_VERBOSE)
            rtc_cli_log.max_level = RTC_LOG_INFO;
        *all |= a.args[i].opt->id == RTC_CLI_ALL;
    }
    if (st == RTC_EXIT_OK && a.help) {
        fputs(tune_help, stdout);
        rtc_cli_print_options(cmd, RTC_CLI_G_OPTIONS, stdout);
        st = -1;
    }
    *dir = st == RTC_EXIT_OK ? a.words[0] : NULL;
    rtc_cli_args_clear(&a);
    return st;
}

int rtc_cmd_tune(int argc, char **argv)
{
    const char *dir = NULL;
    bool all = false;
    int st = parse_args(argc, argv, &dir, &all);
    if (st != RTC_EXIT_OK)
        return st < 0 ? RTC_EXIT_OK : st;
    rtc_cli_session_conf c;
    rtc_inputs in = {0};
    rtc_replay *rp = NULL;
    rtc_system *sys = NULL;
    char path[4096], err[1024] = "";
    if (rtc_cli_session_conf_read(dir, &c) != RTC_OK)
        return RTC_EXIT_ERROR;
    snprintf(path, sizeof path, "%s/inputs.bin", dir);
    int rc = rtc_inputs_read(path, &in, err, sizeof err);
    if (rc != RTC_OK)
        fprintf(stderr, "rtcosim tune: %s\n", err);
    if (rc == RTC_OK)
        rc = rtc_replay_new(&in, &rp);
    if (rc == RTC_OK) /* the session's system: its signals, connections and estimators */
        rc = rtc_cli_session_load(dir, &c, rtc_replay_feed(rp), &sys);
    long done = 0;
    if (rc == RTC_OK && rtc_system_has_io(sys)) {
        done = (long)tune_signals(sys, &in, all);
    } else if (rc == RTC_OK) {
        cosim cs = {dir, &c, &in, in.has_end ? in.end_k
                                             : rtc_system_stop_ns(sys) / rtc_system_tick_ns(sys)};
        done = tune_links(&cs, sys, all);
        rc = done < 0 ? RTC_EINVAL : RTC_OK;
    }
    if (rc == RTC_OK && done == 0)
        printf("rtcosim tune: nothing to tune in %s: no I/O signal from a bench with recorded "
               "samples, no connection with a delay or an estimator\n", dir);
    rtc_system_free(sys);
    rtc_replay_free(rp);
    rtc_inputs_clear(&in);
    rtc_cli_session_conf_clear(&c);
    return rc == RTC_OK ? RTC_EXIT_OK : RTC_EXIT_ERROR;
}
