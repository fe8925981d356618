/*
 * `rtcosim bench`: timing-jitter benchmark of the real-time executive.
 *
 * Without --system the executive runs its bare pacing loop (sleep to the deadline,
 * measure, account — no model); with a system it runs the full step. --load spins one
 * hog thread on every other CPU for the whole benchmark. --compare-cyclictest alternates
 * runs of equal length of rtcosim and cyclictest (rt-tests) at the same period, priority
 * and CPU, both with memory locked and /dev/cpu_dma_latency held at 0, and compares the
 * wake-up latency histograms. Both sides are read from 1-µs histograms with latencies
 * truncated to whole µs (cyclictest's convention), and the percentiles of both are taken
 * the same way, so the ratios compare like with like. Whether a rate holds: rtcosim's
 * overruns (steps ending after the next deadline) against the share of cyclictest's
 * wake-ups late enough that rtcosim's median step after them would have overrun.
 */
#include "cli.h"
#include "rt_cli.h"

#include "rtcosim/assemble.h"
#include "rtcosim/numparse.h"
#include "rtcosim/ofile.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char bench_help[] =
    "usage: rtcosim bench [options]\n"
    "\n"
    "Measure the wake-up latency of the real-time executive (and, with a system, its step\n"
    "time) and optionally compare it with cyclictest on the same CPU and priority.\n"
    "\n"
    "options:\n";

typedef struct bench_opts {
    long period_us, duration_s, rounds, spin_us;
    int priority, cpu;
    const char *system, *dir;
    bool load, compare;
} bench_opts;

/* One side of the comparison: its 1-µs latency histogram (cyclictest's layout,
 * rtcosim/hist.h) and the exact min/max/sum, the form both tools are compared in. */
typedef struct us_hist {
    rtc_ushist *h;
    double sum_us;
    long min_us, max_us;
    uint64_t overruns; /* rtcosim: steps that ended after the next deadline */
    int64_t busy_ns;   /* rtcosim: the largest median step + hand-off of its rounds */
} us_hist;

/* The options (cli_opts.c has the table: names, ranges, help). */
static int parse(int argc, char **argv, bench_opts *o)
{
    const rtc_cli_command *cmd = rtc_cli_command_find("bench");
    rtc_cli_args a;
    int st = rtc_cli_parse(cmd, argc, argv, &a);
    for (size_t i = 0; st == RTC_EXIT_OK && i < a.n; i++) {
        const rtc_cli_val *v = &a.args[i].v;
        switch (a.args[i].opt->id) {
        case RTC_CLI_PERIOD: o->period_us = v->i; break;
        case RTC_CLI_DURATION: o->duration_s = v->i; break;
        case RTC_CLI_SYSTEM: o->system = v->text; break;
        case RTC_CLI_PRIORITY: o->priority = (int)v->i; break;
        case RTC_CLI_CPU: o->cpu = (int)v->i; break;
        case RTC_CLI_SPIN_US: o->spin_us = v->i; break;
        case RTC_CLI_LOAD: o->load = true; break;
        case RTC_CLI_COMPARE: o->compare = true; break;
        case RTC_CLI_ROUNDS: o->rounds = v->i; break;
        case RTC_CLI_OUTPUT_DIR: o->dir = v->text; break;
        case RTC_CLI_VERBOSE: rtc_cli_log.max_level = RTC_LOG_INFO; break;
        default: break;
        }
    }
    if (st == RTC_EXIT_OK && a.help) {
        fputs(bench_help, stdout);
        rtc_cli_print_options(cmd, RTC_CLI_G_OPTIONS, stdout);
        st = -1;
    }
    rtc_cli_args_clear(&a);
    return st;
}

/* ---- the CPU hog of --load ---- */

typedef struct hog {
    _Atomic bool stop;
    rtc_rt_thread *t[256];
    int n;
} hog;

static void *hog_main(void *arg)
{
    hog *h = arg;
    volatile uint64_t x = 0;
    while (!atomic_load_explicit(&h->stop, memory_order_relaxed))
        x = x * 6364136223846793005u + 1; /* keep the core and its caches busy */
    return NULL;
}

static void hog_start(hog *h, int rt_cpu)
{
    for (int cpu = 0; cpu < rtc_rt_cpu_count() && h->n < 256; cpu++) {
        if (cpu == rt_cpu)
            continue;
        rtc_rt_thread_opts o = {.priority = 0, .cpu = cpu, .stack_bytes = 64 << 10,
                                .name = "rtcosim-hog"};
        if (rtc_rt_thread_start(&o, hog_main, h, &rtc_cli_log, &h->t[h->n]) == RTC_OK)
            h->n++;
    }
}

static void hog_stop(hog *h)
{
    atomic_store_explicit(&h->stop, true, memory_order_relaxed);
    for (int i = 0; i < h->n; i++)
        rtc_rt_thread_join(h->t[i]);
}

/* ---- histograms ---- */

static int hist_init(us_hist *h)
{
    *h = (us_hist){.min_us = -1};
    return rtc_ushist_new(&h->h);
}

/* Value at quantile q in µs (in the overflow: the exact max). */
static double hist_q(const us_hist *h, double q)
{
    int64_t us = rtc_ushist_quantile_us(h->h, q);
    return us < RTC_USHIST_BUCKETS ? (double)us : (double)h->max_us;
}

/* Add one rtcosim run (its exec histogram and exact min/max/avg). */
static void add_exec(us_hist *h, const rtc_exec *ex)
{
    rtc_ushist_merge(h->h, rtc_exec_latency_us(ex));
    rtc_exec_stats st;
    rtc_exec_stats_get(ex, &st);
    h->sum_us += st.wakeup.avg / 1000.0 * (double)st.wakeup.count;
    long mn = (long)(st.wakeup.min / 1000), mx = (long)(st.wakeup.max / 1000);
    h->min_us = h->min_us < 0 || mn < h->min_us ? mn : h->min_us;
    h->max_us = mx > h->max_us ? mx : h->max_us;
    h->overruns += st.overruns;
    int64_t busy = st.step.p50 + st.handoff.p50;
    h->busy_ns = busy > h->busy_ns ? busy : h->busy_ns;
}

/* Wake-ups of @p h at @p us or later (the overflow counts: every one of them is later). */
static uint64_t count_from(const us_hist *h, int64_t us)
{
    uint64_t n = rtc_ushist_overflow(h->h);
    for (size_t b = us < 0 ? 0 : (size_t)us; b < RTC_USHIST_BUCKETS; b++)
        n += rtc_ushist_bucket(h->h, b);
    return n;
}

/* ---- cyclictest ---- */

/* The text before the first @p sep of @p line as an integer >= 0 (false: none). */
static bool leading_int(const char *line, const char *sep, int64_t hi, int64_t *v)
{
    char first[32];
    size_t n = strcspn(line, sep);
    if (!line[n] || n >= sizeof first)
        return false;
    memcpy(first, line, n);
    first[n] = '\0';
    return rtc_parse_i64(first, 0, hi, 0, v) == RTC_OK;
}

/* A histogram line of cyclictest -h: "BUCKET COUNT", the bucket in range. */
static bool hist_line(const char *line, int64_t *bucket, uint64_t *count)
{
    return leading_int(line, " \t", RTC_USHIST_BUCKETS - 1, bucket) &&
           rtc_parse_u64(line + strcspn(line, " \t"), 0, UINT64_MAX, 0, count) == RTC_OK;
}

/* A summary line "PREFIX NUMBER" of cyclictest (one thread: one number). */
static bool after(const char *line, const char *prefix, int64_t *v)
{
    size_t n = strlen(prefix);
    return strncmp(line, prefix, n) == 0 && rtc_parse_i64(line + n, 0, INT64_MAX, 0, v) == RTC_OK;
}

/* Run cyclictest for @p secs and add its -h output to @p h; a copy goes to @p raw. */
static int run_cyclictest(const bench_opts *o, long secs, us_hist *h, FILE *raw)
{
    char cmd[512];
    /* clock_nanosleep with TIMER_ABSTIME is cyclictest's default mode (rt-tests ≥ 2.0
     * dropped -n); -q: only the histogram and summary at the end */
    snprintf(cmd, sizeof cmd, "cyclictest -m -q -p %d -i %ld -D %ld -a %d -h %d 2>&1",
             o->priority, o->period_us, secs, o->cpu, RTC_USHIST_BUCKETS);
    FILE *p = popen(cmd, "r");
    if (!p)
        return rtc_status_from_errno(errno);
    char line[512];
    long mn = -1, mx = -1, lines = 0;
    int64_t v;
    uint64_t cnt, n = 0;
    double avg = 0;
    while (fgets(line, sizeof line, p)) {
        if (raw)
            fputs(line, raw);
        if (hist_line(line, &v, &cnt)) {
            rtc_ushist_add_us(h->h, v, cnt);
            n += cnt;
            lines++;
        } else if (after(line, "# Min Latencies:", &v)) {
            mn = (long)v;
        } else if (after(line, "# Avg Latencies:", &v)) {
            avg = (double)v;
        } else if (after(line, "# Max Latencies:", &v)) {
            mx = (long)v;
        } else if (after(line, "# Histogram Overflows:", &v)) {
            rtc_ushist_add_us(h->h, RTC_USHIST_BUCKETS, (uint64_t)v);
            n += (uint64_t)v;
        }
    }
    int st = pclose(p);
    if (st != 0 || lines == 0 || mx < 0) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "'%s' failed (status %d) or printed no "
                "histogram: is rt-tests installed (scripts/setup)?", cmd, st);
        return RTC_ESYS;
    }
    h->sum_us += avg * (double)n; /* cyclictest prints only the rounded average */
    h->min_us = h->min_us < 0 || mn < h->min_us ? mn : h->min_us;
    h->max_us = mx > h->max_us ? mx : h->max_us;
    return RTC_OK;
}

/* ---- rtcosim ---- */

static long long trace_steps; /* latency.csv rows so far, over the rounds */

static int load_system(const bench_opts *o, long secs, rtc_system **sys)
{
    rtc_system_options so = {.has_stop = true, .has_start = true, .start_ns = 0};
    so.stop_ns = (int64_t)secs * RTC_NS_PER_S;
    if (o->period_us > 0)
        so.step_ns = (int64_t)o->period_us * 1000;
    int rc = rtc_load_system(o->system, &so, &rtc_cli_log, sys);
    if (rc == RTC_OK)
        rc = rtc_system_init(*sys);
    return rc;
}

/* histogram.txt of every round (the sum the table reports), cyclictest -h layout. */
static int write_us_hist(const char *path, const us_hist *h)
{
    char tmp[4200];
    FILE *f = rtc_ofile_replace_begin(path, tmp, sizeof tmp);
    if (!f)
        return rtc_status_from_errno(errno);
    uint64_t n = rtc_ushist_count(h->h);
    fprintf(f, "# Histogram\n");
    for (size_t i = 0; i < RTC_USHIST_BUCKETS; i++)
        fprintf(f, "%06zu %06llu\n", i, (unsigned long long)rtc_ushist_bucket(h->h, i));
    fprintf(f, "# Total: %09llu\n# Min Latencies: %05ld\n# Avg Latencies: %05.0f\n"
               "# Max Latencies: %05ld\n# Histogram Overflows: %05llu\n",
            (unsigned long long)n, h->min_us < 0 ? 0 : h->min_us,
            n ? h->sum_us / (double)n : 0.0, h->max_us,
            (unsigned long long)rtc_ushist_overflow(h->h));
    return rtc_ofile_replace_commit(f, tmp, path);
}

/* Append round @p round's latency trace @p part to DIR/latency.csv (the first round's
 * trace is that file), its step numbers continuing the earlier rounds' (@p *steps). */
static int append_trace(const char *dir, const char *part, long round, long long *steps)
{
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/latency.csv", dir);
    FILE *in = fopen(part, "r"), *out = round ? fopen(path, "a") : NULL;
    long long last = -1;
    int rc = in && (out || !round) ? RTC_OK : rtc_status_from_errno(errno);
    while (rc == RTC_OK && fgets(line, sizeof line, in)) {
        int64_t k;
        if (!leading_int(line, ",", INT64_MAX, &k)) /* the header */
            continue;
        last = k;
        if (out)
            fprintf(out, "%lld%s", (long long)(k + *steps), line + strcspn(line, ","));
    }
    *steps += last + 1;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        rc = rtc_status_from_errno(errno);
    if (round)
        unlink(part);
    return rc;
}

/* One rtcosim run of @p secs: round @p round's trace goes to DIR/latency.csv (round 0) or
 * a part appended to it; the last round writes timing.json. */
static int run_rtcosim(const bench_opts *o, long secs, us_hist *h, long round, bool last)
{
    rtc_system *sys = NULL;
    rtc_exec *ex = NULL;
    char path[4096] = "";
    int rc = o->system ? load_system(o, secs, &sys) : RTC_OK;
    rtc_exec_options eo;
    rtc_exec_options_init(&eo);
    eo.period_ns = sys ? 0 : (int64_t)o->period_us * 1000;
    eo.max_steps = (int64_t)secs * 1000000 / o->period_us;
    eo.priority = o->priority;
    eo.cpu = o->cpu;
    eo.spin_ns = (int64_t)o->spin_us * 1000;
    eo.overrun = RTC_EXEC_SKIP; /* like cyclictest: a late wake-up skips missed periods */
    eo.lg = &rtc_cli_log;
    eo.status_line = true;
    if (o->dir) {
        snprintf(path, sizeof path, round ? "%s/latency.part.csv" : "%s/latency.csv", o->dir);
        eo.trace_path = path;
    }
    if (rc == RTC_OK)
        rc = rtc_exec_new(sys, &eo, &ex);
    if (rc == RTC_OK) {
        rtc_cli_rt_signals(ex);
        rc = rtc_exec_run(ex);
        rtc_cli_rt_signals(NULL);
    }
    if (rc == RTC_OK) {
        add_exec(h, ex);
        if (rtc_exec_stop_reason(ex) == RTC_EXEC_SIGNAL)
            rc = RTC_ETERMINATED;
    }
    if (ex && last && o->dir) {
        char tpath[4096];
        snprintf(tpath, sizeof tpath, "%s/timing.json", o->dir);
        rtc_exec_write_timing(ex, tpath, NULL);
    }
    if (ex && sys) {
        rtc_exec_stats st;
        rtc_exec_stats_get(ex, &st);
        printf("rtcosim step time: p50 %.1f us, p99 %.1f us, max %.1f us (%zu units)\n",
               st.step.p50 / 1e3, st.step.p99 / 1e3, st.step.max / 1e3,
               rtc_system_unit_count(sys));
    }
    rtc_exec_free(ex); /* closes the trace */
    rtc_system_free(sys);
    if (rc == RTC_OK && o->dir)
        rc = append_trace(o->dir, path, round, &trace_steps);
    return rc;
}

/* ---- report ---- */

static void print_row(FILE *f, const char *name, const us_hist *h)
{
    uint64_t n = rtc_ushist_count(h->h);
    fprintf(f, "%-11s %10llu %7ld %7.1f %7.0f %7.0f %7.0f %7ld %9llu\n", name,
            (unsigned long long)n, h->min_us, n ? h->sum_us / (double)n : 0.0, hist_q(h, 0.50),
            hist_q(h, 0.99), hist_q(h, 0.999), h->max_us,
            (unsigned long long)rtc_ushist_overflow(h->h));
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : a > 0 ? INFINITY : 1.0;
}

static double share(uint64_t k, uint64_t n)
{
    return n ? 100.0 * (double)k / (double)n : 0.0;
}

/* Does the rate hold? rtcosim's overruns against the share of cyclictest's wake-ups so
 * late that rtcosim's median step and hand-off after them would end past the next
 * deadline (latency >= period - that time, in cyclictest's whole µs): what the machine
 * would have cost rtcosim had its own steps taken no time beyond the median. */
static void report_late(FILE *f, const bench_opts *o, const us_hist *r, const us_hist *c)
{
    uint64_t n = rtc_ushist_count(r->h);
    fprintf(f, "overruns: rtcosim %llu of %llu steps (%.3f %%)\n",
            (unsigned long long)r->overruns, (unsigned long long)n, share(r->overruns, n));
    if (!c)
        return;
    int64_t late_us = o->period_us - (r->busy_ns + 999) / 1000;
    uint64_t k = count_from(c, late_us), m = rtc_ushist_count(c->h);
    fprintf(f, "late wake-ups: cyclictest %llu of %llu (%.3f %%) at >= %lld us (period - "
            "rtcosim's median step and hand-off, %.1f us)\n", (unsigned long long)k,
            (unsigned long long)m, share(k, m), (long long)late_us, (double)r->busy_ns / 1e3);
    fprintf(f, "ratio overruns/late wake-ups: %.2f (<= 1: the rate holds as well as the "
            "machine allows)\n", ratio(share(r->overruns, n), share(k, m)));
}

static void report(FILE *f, const bench_opts *o, const us_hist *r, const us_hist *c)
{
    fprintf(f, "period %ld us, %ld s per side in %ld round(s), priority %d, CPU %d, %s%s%s\n",
            o->period_us, o->duration_s, o->compare ? o->rounds : 1, o->priority, o->cpu,
            o->load ? "load on the other CPUs" : "idle", o->system ? ", system " : ", bare loop",
            o->system ? o->system : "");
    fprintf(f, "wake-up latency (us)   samples     min     avg     p50     p99   p99.9     max "
            " >10ms\n");
    print_row(f, "rtcosim", r);
    if (c) {
        print_row(f, "cyclictest", c);
        fprintf(f, "ratio rtcosim/cyclictest: p50 %.2f  p99 %.2f  p99.9 %.2f  max %.2f\n",
                ratio(hist_q(r, .5), hist_q(c, .5)), ratio(hist_q(r, .99), hist_q(c, .99)),
                ratio(hist_q(r, .999), hist_q(c, .999)),
                ratio((double)r->max_us, (double)c->max_us));
    }
    report_late(f, o, r, c);
}

static int bench_rounds(const bench_opts *o, us_hist *r, us_hist *c)
{
    long rounds = o->compare ? o->rounds : 1, secs = o->duration_s / rounds;
    secs = secs < 1 ? 1 : secs;
    FILE *raw = NULL;
    char path[4096];
    if (o->compare && o->dir) {
        snprintf(path, sizeof path, "%s/cyclictest-histogram.txt", o->dir);
        raw = fopen(path, "w");
    }
    int rc = RTC_OK;
    for (long i = 0; rc == RTC_OK && i < rounds; i++) {
        rtc_log(&rtc_cli_log, RTC_LOG_INFO, "round %ld/%ld: rtcosim %ld s", i + 1, rounds, secs);
        rc = run_rtcosim(o, secs, r, i, i == rounds - 1);
        if (rc == RTC_OK && o->compare) {
            rtc_log(&rtc_cli_log, RTC_LOG_INFO, "round %ld/%ld: cyclictest %ld s", i + 1,
                    rounds, secs);
            rc = run_cyclictest(o, secs, c, raw);
        }
    }
    if (raw)
        fclose(raw);
    char path2[4096];
    snprintf(path2, sizeof path2, "%s/histogram.txt", o->dir ? o->dir : ".");
    if (rc == RTC_OK && o->dir && write_us_hist(path2, r) != RTC_OK)
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "%s: cannot write", path2);
    return rc;
}

int rtc_cmd_bench(int argc, char **argv)
{
    bench_opts o = {.period_us = 1000, .duration_s = 10, .rounds = 2, .priority = 80,
                    .cpu = rtc_rt_cpu_count() - 1};
    int st = parse(argc, argv, &o);
    if (st != RTC_EXIT_OK)
        return st < 0 ? RTC_EXIT_OK : st;
    if (o.dir && rtc_cli_make_dir(o.dir, NULL) != RTC_OK)
        return RTC_EXIT_ERROR;
    us_hist side[2];
    us_hist *r = &side[0], *c = &side[1];
    if (hist_init(r) != RTC_OK || hist_init(c) != RTC_OK) {
        rtc_ushist_free(r->h);
        return RTC_EXIT_ERROR;
    }
    hog h = {.n = 0};
    if (o.load)
        hog_start(&h, o.cpu);
    int rc = bench_rounds(&o, r, c);
    if (o.load)
        hog_stop(&h);
    if (rc == RTC_OK) {
        report(stdout, &o, r, o.compare ? c : NULL);
        char path[4096];
        snprintf(path, sizeof path, "%s/compare.txt", o.dir ? o.dir : ".");
        FILE *f = o.dir ? fopen(path, "w") : NULL;
        if (f) {
            report(f, &o, r, o.compare ? c : NULL);
            fclose(f);
        }
    }
    rtc_ushist_free(r->h);
    rtc_ushist_free(c->h);
    return rc == RTC_OK ? RTC_EXIT_OK : rc == RTC_ETERMINATED ? 130 : RTC_EXIT_ERROR;
}
