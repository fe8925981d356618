/*
 * The real-time executive (rtcosim/exec.h) and `rtcosim run --realtime`: histogram
 * accuracy, the rtlog's once-then-count, results identical to the fast run, each overrun
 * policy on the Fault FMU's sleeping doStep, pause/resume re-anchoring, SIGINT/SIGTERM,
 * the watchdog and the safe-state callback. Behaviour only: this VM shows multi-ms host
 * spikes, so no assertion depends on a latency value; the overrun scenarios use 50 ms
 * periods and sleeps of several periods so a host spike cannot change their outcome.
 *
 * The safe state is observed through `--test-safe-file F` (cmd_rt.c): a safe-state
 * callback registered like an I/O driver's writes "safe\n" to F on every kind of stop.
 */
#include "cu_main.h"
#include "fmu_util.h"

#include "rtcosim/exec.h"
#include "rtcosim/hist.h"
#include "rtcosim/rtlog.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

RTC_TEST_WORKDIR_FIXTURE
static char out[65536];

/* A shell command line in the work directory; its exit status. */
#define sh(...) rtc_test_sh(work, out, sizeof out, __VA_ARGS__)

/* A whole file of the work directory (NULL if absent; caller frees). */
static char *slurp(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *slurp(const char *fmt, ...)
{
    char rel[600], path[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rel, sizeof rel, fmt, ap);
    va_end(ap);
    snprintf(path, sizeof path, "%s/%s", work, rel);
    return rtc_test_slurp(path, NULL);
}

/* Integer value of "key": in a JSON text (LLONG_MIN when absent). */
static long long json_int(const char *json, const char *key)
{
    char k[128];
    snprintf(k, sizeof k, "\"%s\": ", key);
    const char *p = json ? strstr(json, k) : NULL;
    return p ? strtoll(p + strlen(k), NULL, 10) : LLONG_MIN;
}

/* ---- histograms and the rtlog ---- */

static void hist_percentiles_within_one_percent(void)
{
    rtc_hist *h;
    CU_ASSERT_EQUAL_FATAL(rtc_hist_new(INT64_C(1) << 40, &h), RTC_OK);
    for (int64_t v = 1; v <= 1000000; v++)
        rtc_hist_add(h, v * 37); /* 37 .. 37e6 ns, uniform */
    rtc_hist_summary s;
    rtc_hist_summarize(h, &s);
    CU_ASSERT_EQUAL(s.count, 1000000);
    CU_ASSERT_EQUAL(s.min, 37);
    CU_ASSERT_EQUAL(s.max, 37000000);
    CU_ASSERT_DOUBLE_EQUAL(s.avg, 37 * 500000.5, 1e-6);
    const double q[] = {0.5, 0.99, 0.999, 0.9999};
    const int64_t got[] = {s.p50, s.p99, s.p999, s.p9999};
    for (int i = 0; i < 4; i++) {
        double exact = 37.0 * ceil(q[i] * 1e6);
        CU_ASSERT(fabs((double)got[i] - exact) / exact <= 0.01);
    }
    rtc_hist_reset(h);
    for (int64_t v = 0; v < 200; v++) /* below 256 every value has its own bucket */
        rtc_hist_add(h, v);
    CU_ASSERT_EQUAL(rtc_hist_quantile(h, 0.5), 99);
    CU_ASSERT_EQUAL(rtc_hist_quantile(h, 1.0), 199);
    rtc_hist_add(h, -5); /* negative counts as 0 */
    CU_ASSERT_EQUAL(rtc_hist_quantile(h, 0.0), 0);
    rtc_hist_free(h);
    CU_ASSERT_EQUAL(rtc_hist_new(0, &h), RTC_EINVAL);
}

/* The cyclictest-layout histogram: whole µs truncated, overflow past the last bucket. */
static void ushist_truncates_to_us_and_overflows(void)
{
    rtc_ushist *h, *sum;
    CU_ASSERT_EQUAL_FATAL(rtc_ushist_new(&h), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_ushist_new(&sum), RTC_OK);
    CU_ASSERT_EQUAL(rtc_ushist_quantile_us(h, 0.5), 0); /* empty */
    const int64_t ns[] = {-5, 0, 999, 1000, 1999, 2000, 9999999, 10000000, INT64_MAX};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        rtc_ushist_add(h, ns[i]);
    CU_ASSERT_EQUAL(rtc_ushist_bucket(h, 0), 3);
    CU_ASSERT_EQUAL(rtc_ushist_bucket(h, 1), 2);
    CU_ASSERT_EQUAL(rtc_ushist_bucket(h, 2), 1);
    CU_ASSERT_EQUAL(rtc_ushist_bucket(h, RTC_USHIST_BUCKETS - 1), 1);
    CU_ASSERT_EQUAL(rtc_ushist_bucket(h, RTC_USHIST_BUCKETS), 0); /* out of range */
    CU_ASSERT_EQUAL(rtc_ushist_overflow(h), 2);
    CU_ASSERT_EQUAL(rtc_ushist_count(h), 9);
    CU_ASSERT_EQUAL(rtc_ushist_quantile_us(h, 0.0), 0);
    CU_ASSERT_EQUAL(rtc_ushist_quantile_us(h, 0.5), 1); /* the 5th of 9 values */
    CU_ASSERT_EQUAL(rtc_ushist_quantile_us(h, 1.0), RTC_USHIST_BUCKETS); /* in the overflow */
    /* merged twice and a cyclictest line added: counts add up bucket by bucket */
    rtc_ushist_merge(sum, h);
    rtc_ushist_merge(sum, h);
    rtc_ushist_add_us(sum, 2, 10);
    CU_ASSERT_EQUAL(rtc_ushist_bucket(sum, 0), 6);
    CU_ASSERT_EQUAL(rtc_ushist_bucket(sum, 2), 12);
    CU_ASSERT_EQUAL(rtc_ushist_overflow(sum), 4);
    CU_ASSERT_EQUAL(rtc_ushist_count(sum), 28);
    rtc_ushist_free(h);
    rtc_ushist_free(sum);
    rtc_ushist_free(NULL);
}

static void rtlog_reports_recurring_once_then_counts(void)
{
    tlog log;
    tlog_init(&log);
    rtc_rtlog *rl;
    CU_ASSERT_EQUAL_FATAL(rtc_rtlog_new(4, &log.lg, &rl), RTC_OK);
    rtc_rtlog_set_recurring(rl, RTC_RTLOG_OVERRUN, true);
    CU_ASSERT_TRUE(rtc_rtlog_push(rl, RTC_RTLOG_OVERRUN, 7, 100));
    CU_ASSERT_TRUE(rtc_rtlog_push(rl, RTC_RTLOG_OVERRUN, 8, 200));
    CU_ASSERT_TRUE(rtc_rtlog_push(rl, RTC_RTLOG_PAUSED, 9, 0));
    CU_ASSERT_TRUE(rtc_rtlog_push(rl, RTC_RTLOG_OVERRUN, 10, 300));
    CU_ASSERT_FALSE(rtc_rtlog_push(rl, RTC_RTLOG_OVERRUN, 11, 400)); /* ring of 4: full */
    CU_ASSERT_EQUAL(rtc_rtlog_dropped(rl), 1);
    CU_ASSERT_EQUAL(log.lines, 0); /* nothing formatted by the producer */
    CU_ASSERT_EQUAL(rtc_rtlog_drain(rl), 4);
    CU_ASSERT_EQUAL(log.lines, 2); /* the first overrun and the pause */
    CU_ASSERT_TRUE(tlog_has(&log, "rtlog overrun (1/0): a=7 b=100"));
    CU_ASSERT_TRUE(tlog_has(&log, "reported once; further ones are counted"));
    CU_ASSERT_TRUE(tlog_has(&log, "rtlog paused"));
    CU_ASSERT_FALSE(tlog_has(&log, "a=8"));
    CU_ASSERT_EQUAL(rtc_rtlog_count(rl, RTC_RTLOG_OVERRUN), 3);
    rtc_rtlog_report(rl);
    CU_ASSERT_TRUE(tlog_has(&log, "overrun: 3 in total, 2 more not shown"));
    CU_ASSERT_TRUE(tlog_has(&log, "rtlog: 1 records lost (ring full)"));
    rtc_rtlog_free(rl);
}

/* ---- real-time runs through the CLI ---- */

static void realtime_results_identical_to_fast(void)
{
    const char *ssp = RTC_TEST_CONFIG_DIR "/msd-jacobi.ssp";
    CU_ASSERT_EQUAL_FATAL(sh("'%s' run '%s' --output-dir fast", RTCOSIM_EXE, ssp), 0);
    CU_ASSERT_EQUAL_FATAL(sh("'%s' run '%s' --realtime 10 --output-dir rt --test-safe-file "
                             "rt/safe", RTCOSIM_EXE, ssp), 0);
    size_t na, nb;
    char a[700], b[700];
    snprintf(a, sizeof a, "%s/fast/results.csv", work);
    snprintf(b, sizeof b, "%s/rt/results.csv", work);
    char *ta = rtc_test_slurp(a, &na), *tb = rtc_test_slurp(b, &nb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ta);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tb);
    CU_ASSERT_EQUAL(na, nb);
    CU_ASSERT(na > 10000 && memcmp(ta, tb, na) == 0);
    free(ta);
    free(tb);
    char *t = slurp("rt/timing.json"), *h = slurp("rt/histogram.txt"), *s = slurp("rt/safe");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(json_int(t, "period_ns"), 1000000); /* 10 ms / rtf 10 */
    CU_ASSERT_EQUAL(json_int(t, "steps"), 1000);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"status\": \"completed\""));
    const char *keys[] = {"wakeup_latency_ns", "step_time_ns", "\"mass1\": {", "\"mass2\": {",
                          "\"do_step_ns\": {", "\"p999\"", "\"p9999\"", "\"policy\"",
                          "\"preempt_rt\"", "\"overruns\""};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        CU_ASSERT_PTR_NOT_NULL(strstr(t, keys[i]));
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT(strncmp(h, "# Histogram\n000000 ", 19) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "\n009999 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "# Total: 000001000\n# Min Latencies: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "# Max Latencies: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "# Histogram Overflows: "));
    CU_ASSERT_PTR_NOT_NULL(s);
    CU_ASSERT(s && strcmp(s, "safe\n") == 0); /* the safe state on a normal end too */
    free(t);
    free(h);
    free(s);
    CU_ASSERT_EQUAL(sh("wc -l < rt/latency.csv"), 0);
    CU_ASSERT_EQUAL(atoi(out), 1001); /* header + one line per step */
}

/* A Fault unit "f" stepping every 50 ms for 1 s, its fault at 0.5 s (tick 10). */
static void write_fault_ssd(const char *name, int mode, double sleep_s)
{
    char path[700], fmu[600], params[400];
    snprintf(path, sizeof path, "%s/%s.ssd", work, name);
    snprintf(fmu, sizeof fmu, "%s/fmi2/Fault.fmu", RTC_TEST_FMU_DIR);
    snprintf(params, sizeof params,
             "<ssv:Parameter name=\"mode\"><ssv:Integer value=\"%d\"/></ssv:Parameter>"
             "<ssv:Parameter name=\"t_fault\"><ssv:Real value=\"0.5\"/></ssv:Parameter>"
             "<ssv:Parameter name=\"sleep_s\"><ssv:Real value=\"%g\"/></ssv:Parameter>",
             mode, sleep_s);
    tfmu_write_param_system(path, "f", fmu, "y", "Real", params,
                            "<ssc:Annotation type=\"org.rtcosim.realtime\">"
                            "<rtc:RealTime baseStep=\"0.05\"/></ssc:Annotation>", "1");
}

/* Logical time ran on regardless of the wall clock: 21 rows, y = t in each. */
static void assert_all_rows(const char *dir)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s/results.csv", work, dir);
    tcsv c;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
    CU_ASSERT_EQUAL(c.n_rows, 21);
    long y = tcsv_col(&c, "f.y");
    CU_ASSERT_FATAL(y > 0);
    for (size_t r = 0; r < c.n_rows; r++) {
        CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&c, r, 0), 0.05 * (double)r, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&c, r, (size_t)y), 0.05 * (double)r, 1e-12);
    }
    tcsv_free(&c);
}

/* One 275 ms doStep at 0.5 s with 50 ms periods: the step ends 225 ms after the next
 * deadline; catch-up then runs ticks 11..14 back to back, each finishing late, and
 * tick 15 is on time again: 5 overruns, no gap, every tick executed. */
static void overrun_catch_up_runs_late_steps_back_to_back(void)
{
    write_fault_ssd("once", 5, 0.275);
    int rc = sh("'%s' run once.ssd --realtime --overrun catch-up --output-dir cu "
                "--test-safe-file cu/safe", RTCOSIM_EXE);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "overrun at tick 10 (t = 0.5 s): finished "));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "cause: step, unit f (do_step 2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "policy catch-up"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "more not shown")); /* once, then counted */
    char *t = slurp("cu/timing.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(json_int(t, "steps"), 20);
    CU_ASSERT(json_int(t, "overruns") >= 5);
    CU_ASSERT(json_int(t, "max_lateness_ns") >= 200000000);
    CU_ASSERT_EQUAL(json_int(t, "skipped_periods"), 0);
    CU_ASSERT_EQUAL(json_int(t, "gap_ns"), 0);
    CU_ASSERT(json_int(t, "count") > 0);
    free(t);
    assert_all_rows("cu");
}

/* skip: the late step is followed by the first future deadline — 5 periods later — and
 * no tick is dropped from logical time; the gap is recorded. */
static void overrun_skip_reanchors_with_logical_time_unchanged(void)
{
    write_fault_ssd("once", 5, 0.275);
    CU_ASSERT_EQUAL(sh("'%s' run once.ssd --realtime --overrun skip --output-dir sk",
                       RTCOSIM_EXE), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "skip after tick 10: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "period(s) skipped, gap "));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "logical time unchanged"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "overrun at tick 10 (t = 0.5 s)"));
    char *t = slurp("sk/timing.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(json_int(t, "steps"), 20);
    CU_ASSERT(json_int(t, "overruns") >= 1);
    CU_ASSERT(json_int(t, "skipped_periods") >= 5);
    CU_ASSERT(json_int(t, "gap_ns") >= 250000000);
    CU_ASSERT(json_int(t, "max_consecutive_overruns") < 5); /* not catching up */
    free(t);
    assert_all_rows("sk");
}

/* stop: every step from 0.5 s sleeps 60 ms > 50 ms: ticks 10, 11, 12 overrun, the third
 * stops the run at the safe state; logical time ends at 0.65 s. */
static void overrun_stop_after_n_consecutive_goes_to_safe_state(void)
{
    write_fault_ssd("every", 4, 0.06);
    /* --force: the feasibility check refuses this system, rightly (issue 24) */
    int rc = sh("'%s' run every.ssd --realtime --force --overrun stop --max-overruns 3 "
                "--output-dir st --test-safe-file st/safe", RTCOSIM_EXE);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "after 3 consecutive overruns (policy stop)"));
    char *t = slurp("st/timing.json"), *s = slurp("st/summary.json"), *safe = slurp("st/safe");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"status\": \"overruns\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"status\": \"failed\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"cause\": \"overruns\""));
    CU_ASSERT_EQUAL(json_int(s, "exit_code"), 1);
    CU_ASSERT(json_int(t, "overruns") >= 3);
    CU_ASSERT(json_int(s, "ticks") >= 12 && json_int(s, "ticks") <= 13);
    CU_ASSERT(safe && strcmp(safe, "safe\n") == 0);
    free(t);
    free(s);
    free(safe);
}

/* substitute: a Fault unit "f" whose every step from 0.5 s sleeps 120 ms (2.4 periods)
 * beside a Decay unit "d" with the same 50 ms step. f is left running on its own thread
 * and falls behind; d steps at every tick on time — its results are exactly e^(-t) — and
 * logical time runs to the end. */
static void overrun_substitute_keeps_the_other_units_on_time(void)
{
    write_fault_ssd("sub", 4, 0.12);
    char path[700];
    snprintf(path, sizeof path, "%s/sub.ssd", work);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "sed -i 's|</ssd:Elements>|<ssd:Component name=\"d\" "
             "source=\"%s/fmi2/Decay.fmu\"><ssd:Connectors><ssd:Connector name=\"x\" "
             "kind=\"output\"><ssc:Real/></ssd:Connector></ssd:Connectors></ssd:Component>"
             "</ssd:Elements>|' '%s'", RTC_TEST_FMU_DIR, path);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    CU_ASSERT_EQUAL(sh("'%s' run sub.ssd --realtime --force --overrun substitute "
                       "--output-dir su --test-safe-file su/safe", RTCOSIM_EXE), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "substitute: a unit missed tick 10's deadline"));
    char *t = slurp("su/timing.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(json_int(t, "steps"), 20);
    free(t);
    snprintf(path, sizeof path, "%s/su/results.csv", work);
    tcsv c;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
    CU_ASSERT_EQUAL(c.n_rows, 21);
    long x = tcsv_col(&c, "d.x"), y = tcsv_col(&c, "f.y");
    CU_ASSERT_FATAL(x > 0 && y > 0);
    for (size_t r = 0; r < c.n_rows; r++)
        CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&c, r, (size_t)x), exp(-0.05 * (double)r), 1e-12);
    CU_ASSERT(tcsv_at(&c, c.n_rows - 1, (size_t)y) < 0.9); /* f's outputs lag behind t = 1 */
    tcsv_free(&c);
    char *safe = slurp("su/safe");
    CU_ASSERT(safe && strcmp(safe, "safe\n") == 0);
    free(safe);
    /* with nothing late, substitute is exactly Jacobi: byte-identical to the fast run
     * (10 ms periods leave every unit ample time, host spikes aside) */
    CU_ASSERT_EQUAL(sh("'%s' run '%s/msd-jacobi.ssp' --stop 1 --output-dir sfast", RTCOSIM_EXE,
                       RTC_TEST_CONFIG_DIR), 0);
    CU_ASSERT_EQUAL(sh("'%s' run '%s/msd-jacobi.ssp' --stop 1 --realtime --overrun substitute "
                       "--output-dir sreal", RTCOSIM_EXE, RTC_TEST_CONFIG_DIR), 0);
    /* a loaded host can make a unit miss its budget for real: then it was substituted
     * and the results may differ — the premise "nothing late" did not hold */
    if (strstr(out, "substitute: "))
        rtc_test_skip("substitute equals jacobi", "a unit was late on this loaded host");
    else
        CU_ASSERT_EQUAL(sh("cmp sfast/results.csv sreal/results.csv"), 0);
    write_fault_ssd("plain", 0, 0);
    CU_ASSERT_EQUAL(sh("'%s' run plain.ssd --realtime --overrun sometimes", RTCOSIM_EXE), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "expected catch-up, skip, stop or substitute"));
    CU_ASSERT_EQUAL(sh("'%s' run plain.ssd --realtime 0", RTCOSIM_EXE), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--realtime 0: out of range (expected a real-time "
                                       "factor > 0)"));
}

/* ---- signals and the watchdog ---- */

/* Start a 10 s real-time run, wait until it paces (latency.csv grows), send @p sig. */
static int run_and_signal(const char *dir, const char *sig)
{
    /* "true;" ends sh()'s "cd DIR &&" list, so only rtcosim goes to the background */
    return sh("true; '%s' run '%s/msd-jacobi.ssp' --realtime --output-dir %s --test-safe-file "
              "%s/safe & pid=$!; i=0; while [ $i -lt 400 ] && ! [ -s %s/latency.csv ]; do "
              "sleep 0.05; i=$((i+1)); done; sleep 0.3; kill -%s $pid; wait $pid; echo exit=$?",
              RTCOSIM_EXE, RTC_TEST_CONFIG_DIR, dir, dir, dir, sig);
}

/* The CSV is complete: a row per tick up to where the run stopped, the last line whole. */
static void assert_complete_csv(const char *dir, long long ticks)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s/results.csv", work, dir);
    size_t n;
    char *text = rtc_test_slurp(path, &n);
    CU_ASSERT_FATAL(text && n > 0);
    CU_ASSERT_EQUAL(text[n - 1], '\n');
    free(text);
    tcsv c;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
    CU_ASSERT_EQUAL((long long)c.n_rows, ticks + 1);
    for (size_t r = 0; r < c.n_rows; r++)
        CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&c, r, 0), 0.01 * (double)r, 1e-9);
    tcsv_free(&c);
}

static void sigint_stops_at_a_boundary_exit_130(void)
{
    CU_ASSERT_EQUAL(run_and_signal("si", "INT"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "exit=130"));
    char *t = slurp("si/timing.json"), *s = slurp("si/summary.json"), *safe = slurp("si/safe");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"status\": \"signal\""));
    CU_ASSERT_EQUAL(json_int(t, "stop_signal"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"status\": \"stopped\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"reason\": \"stopped by SIGINT\""));
    CU_ASSERT_EQUAL(json_int(s, "exit_code"), 130);
    long long ticks = json_int(s, "ticks");
    CU_ASSERT(ticks > 10 && ticks < 1000); /* stopped early, at a step boundary */
    CU_ASSERT_EQUAL(json_int(t, "steps"), ticks);
    CU_ASSERT(safe && strcmp(safe, "safe\n") == 0);
    assert_complete_csv("si", ticks);
    free(t);
    free(s);
    free(safe);
}

static void sigterm_stops_exit_143(void)
{
    CU_ASSERT_EQUAL(run_and_signal("term", "TERM"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "exit=143"));
    char *t = slurp("term/timing.json"), *s = slurp("term/summary.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(json_int(t, "stop_signal"), 15);
    assert_complete_csv("term", json_int(s, "ticks"));
    free(t);
    free(s);
}

/* A doStep that sleeps 2 s at 0.5 s: the watchdog (300 ms) names the unit, applies the
 * safe state, keeps the rows so far and timing.json, and exits with status 3. */
static void watchdog_exits_with_safe_state_when_a_unit_hangs(void)
{
    write_fault_ssd("hang", 5, 2.0);
    CU_ASSERT_EQUAL(sh("'%s' run hang.ssd --realtime --force --watchdog-ms 300 "
                       "--output-dir wd --test-safe-file wd/safe", RTCOSIM_EXE),
                    RTC_EXEC_WATCHDOG_EXIT);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "watchdog: the real-time thread has been in tick 10 for"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "in unit f (do_step); applying the safe state"));
    char *t = slurp("wd/timing.json"), *safe = slurp("wd/safe");
    CU_ASSERT_PTR_NOT_NULL(t && strstr(t, "\"status\": \"watchdog\""));
    CU_ASSERT(safe && strcmp(safe, "safe\n") == 0);
    free(t);
    free(safe);
    char path[700];
    snprintf(path, sizeof path, "%s/wd/results.csv", work);
    tcsv c;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
    CU_ASSERT_EQUAL(c.n_rows, 11); /* t = 0 .. 0.5: every row before the hanging step */
    tcsv_free(&c);
}

/* ---- pause / resume through the API ---- */

typedef struct bg_run {
    rtc_exec *ex;
    int rc;
} bg_run;

static void *bg_main(void *arg)
{
    bg_run *b = arg;
    b->rc = rtc_exec_run(b->ex);
    return NULL;
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static uint64_t steps_of(const rtc_exec *ex)
{
    rtc_exec_stats st;
    rtc_exec_stats_get(ex, &st);
    return st.steps;
}

/* 10 ms period. Paused for 400 ms, nothing advances except two single steps; after the
 * resume the schedule restarts from now: 300 ms later about 30 steps ran, not the 70 a
 * catch-up of the paused time would have produced. */
static void pause_resume_reanchors_without_burst(void)
{
    rtc_unit_factory f;
    CU_ASSERT_EQUAL_FATAL(rtc_fmu_factory(&f), RTC_OK);
    tlog log;
    tlog_init(&log);
    rtc_system *sys = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_system_load(RTC_TEST_CONFIG_DIR "/msd-jacobi.ssp", &f, 1, NULL,
                                          &log.lg, &sys), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_system_init(sys), RTC_OK);
    rtc_exec_options o;
    rtc_exec_options_init(&o);
    o.lg = &log.lg;
    bg_run b = {0};
    CU_ASSERT_EQUAL_FATAL(rtc_exec_new(sys, &o, &b.ex), RTC_OK);
    pthread_t t;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, bg_main, &b), 0);
    nap_ms(200);
    rtc_exec_pause(b.ex);
    for (int i = 0; i < 200 && !rtc_exec_is_paused(b.ex); i++)
        nap_ms(5);
    CU_ASSERT_TRUE(rtc_exec_is_paused(b.ex));
    uint64_t s0 = steps_of(b.ex);
    CU_ASSERT(s0 > 0);
    nap_ms(200);
    CU_ASSERT_EQUAL(steps_of(b.ex), s0); /* paused: nothing advances */
    rtc_exec_single_step(b.ex);
    rtc_exec_single_step(b.ex);
    for (int i = 0; i < 200 && steps_of(b.ex) < s0 + 2; i++)
        nap_ms(5);
    nap_ms(200);
    CU_ASSERT_EQUAL(steps_of(b.ex), s0 + 2); /* exactly the two single steps */
    rtc_exec_resume(b.ex);
    for (int i = 0; i < 200 && rtc_exec_is_paused(b.ex); i++)
        nap_ms(1);
    uint64_t s1 = steps_of(b.ex);
    nap_ms(300);
    uint64_t ran = steps_of(b.ex) - s1;
    printf("\n    %llu steps in the 300 ms after resume", (unsigned long long)ran);
    CU_ASSERT(ran >= 10 && ran <= 45);
    rtc_exec_request_stop(b.ex);
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(b.rc, RTC_OK);
    CU_ASSERT_EQUAL(rtc_exec_stop_reason(b.ex), RTC_EXEC_REQUEST);
    CU_ASSERT_TRUE(tlog_has(&log, "paused before tick"));
    CU_ASSERT_TRUE(tlog_has(&log, "single step: tick"));
    CU_ASSERT_TRUE(tlog_has(&log, "schedule re-anchored to now"));
    CU_ASSERT_EQUAL((int64_t)steps_of(b.ex), rtc_system_tick_index(sys));
    /* per-unit do_step timing (on by default): a summary per unit, none past the last */
    CU_ASSERT_EQUAL(rtc_exec_unit_count(b.ex), rtc_system_unit_count(sys));
    for (size_t i = 0; i <= rtc_exec_unit_count(b.ex); i++) {
        rtc_hist_summary us;
        rtc_exec_unit_stats(b.ex, i, &us);
        bool timed = i < rtc_exec_unit_count(b.ex);
        CU_ASSERT(timed ? us.count > 0 && us.count <= steps_of(b.ex) && us.max >= us.min
                        : us.count == 0);
    }
    rtc_exec_free(b.ex);
    rtc_system_free(sys);
}

static void bare_loop_options_validated(void)
{
    rtc_exec_options o;
    rtc_exec_options_init(&o);
    tlog log;
    tlog_init(&log);
    o.lg = &log.lg;
    rtc_exec *ex = NULL;
    CU_ASSERT_EQUAL(rtc_exec_new(NULL, &o, &ex), RTC_EINVAL); /* no period */
    CU_ASSERT_TRUE(tlog_has(&log, "the bare loop needs a period"));
    CU_ASSERT_PTR_NULL(ex);
    o.period_ns = 1000000;
    o.max_steps = 50;
    o.rtf = -1;
    CU_ASSERT_EQUAL(rtc_exec_new(NULL, &o, &ex), RTC_EINVAL);
    CU_ASSERT_TRUE(tlog_has(&log, "rtf must be > 0"));
    o.rtf = 1;
    CU_ASSERT_EQUAL_FATAL(rtc_exec_new(NULL, &o, &ex), RTC_OK);
    CU_ASSERT_EQUAL(rtc_exec_run(ex), RTC_OK);
    CU_ASSERT_EQUAL(rtc_exec_run(ex), RTC_ESTATE); /* once per executive */
    rtc_exec_stats st;
    rtc_exec_stats_get(ex, &st);
    CU_ASSERT_EQUAL(st.steps, 50);
    CU_ASSERT_EQUAL(st.wakeup.count, 50);
    CU_ASSERT_EQUAL(st.sim_time_ns, 50000000);
    const rtc_ushist *us = rtc_exec_latency_us(ex);
    uint64_t sum = rtc_ushist_overflow(us);
    for (size_t i = 0; i < RTC_USHIST_BUCKETS; i++)
        sum += rtc_ushist_bucket(us, i);
    CU_ASSERT_EQUAL(sum, 50);
    CU_ASSERT_EQUAL(rtc_ushist_count(us), 50);
    rtc_exec_free(ex);
}

static void bench_bare_loop_prints_the_table(void)
{
    CU_ASSERT_EQUAL(sh("'%s' bench --period 1000 --duration 1 --output-dir bench",
                       RTCOSIM_EXE), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "wake-up latency (us)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "rtcosim "));
    char *t = slurp("bench/timing.json");
    CU_ASSERT_EQUAL(json_int(t, "steps"), 1000);
    free(t);
}

/* ---- write errors and whole files (rtcosim/ofile.h, cli_record.c) ---- */

/* Run msd-jacobi under `ulimit -f` @p kib KiB, SIGXFSZ left at its default action as a
 * user's shell leaves it: rtcosim itself must turn the write past the limit into EFBIG (a
 * real kernel error, no root) and a write error, not die of the signal. The limit must
 * stay above the extracted FMU binaries (sanitizer builds: ~300 KiB). */
static int run_fsize(int kib, const char *dir, const char *more)
{
    return sh("ulimit -f %d && '%s' run '%s/msd-jacobi.ssp' --output-dir %s %s", kib,
              RTCOSIM_EXE, RTC_TEST_CONFIG_DIR, dir, more);
}

/* The outcome of a run stopped by a write error of its results.csv: one line naming the
 * file, summary.json saying so, whole rows only, stopped before the end; rows_written is
 * what the file holds, and the rows the error kept out of it are counted as lost. */
static void assert_write_error_outcome(const char *dir, long long all_ticks)
{
    char needle[700];
    snprintf(needle, sizeof needle, "%s/results.csv: write failed: File too large", dir);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, needle));
    char *s = slurp("%s/summary.json", dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    snprintf(needle, sizeof needle, "\"reason\": \"write error: %s/results.csv: File too large\"",
             dir);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, needle));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"cause\": \"write\""));
    long long ticks = json_int(s, "ticks");
    CU_ASSERT(ticks > 0 && ticks < all_ticks); /* stopped mid-run */
    char path[700];
    snprintf(path, sizeof path, "%s/%s/results.csv", work, dir);
    long rows = tcsv_whole_rows(path);
    CU_ASSERT(rows > 1000);
    CU_ASSERT_EQUAL(json_int(s, "rows_written"), rows);
    CU_ASSERT(json_int(s, "rows_lost") > 0); /* at least the row the limit cut */
    free(s);
}

/* A fast system run against RLIMIT_FSIZE: exit 4, the summary names the error. */
static void fast_run_write_error_stops_with_exit_4(void)
{
    CU_ASSERT_EQUAL(run_fsize(2048, "wf", "--stop 3000"), 4);
    assert_write_error_outcome("wf", 300000);
}

/* A real-time run (paced, RTF 100: 10 000 rows a second) against RLIMIT_FSIZE: the first failed write stops it
 * through the stop path: the safe state is applied, summary.json names the error. */
static void realtime_run_write_error_goes_to_safe_state(void)
{
    CU_ASSERT_EQUAL(run_fsize(2048, "wr", "--realtime 100 --stop 1000 --test-safe-file "
                                          "wr/safe"), 4);
    assert_write_error_outcome("wr", 100000);
    char *safe = slurp("wr/safe");
    CU_ASSERT(safe && strcmp(safe, "safe\n") == 0);
    free(safe);
}

/* A "completed" summary.json of an earlier run never survives a run that fails, and whole
 * files leave no temporary behind. */
static void stale_summary_never_survives_a_failed_run(void)
{
    CU_ASSERT_EQUAL(sh("mkdir -p st && printf '{\"status\": \"completed\"}\\n' > st/summary.json "
                       "&& printf x > st/timing.json"), 0);
    CU_ASSERT_EQUAL(sh("'%s' run missing.ssd --output-dir st", RTCOSIM_EXE), 1);
    char *s = slurp("st/summary.json"), *t = slurp("st/timing.json");
    CU_ASSERT(!s || !strstr(s, "completed"));
    CU_ASSERT_PTR_NULL(t);
    free(s);
    free(t);
    CU_ASSERT_EQUAL(sh("'%s' run '%s/msd-jacobi.ssp' --realtime 100 --stop 0.5 --output-dir st",
                       RTCOSIM_EXE, RTC_TEST_CONFIG_DIR), 0);
    s = slurp("st/summary.json");
    CU_ASSERT(s && strstr(s, "\"status\": \"completed\""));
    free(s);
    CU_ASSERT_EQUAL(sh("ls st | grep -c tmp"), 1); /* grep -c prints 0, exits 1 */
    CU_ASSERT_STRING_EQUAL(out, "0\n");
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"hist_percentiles_within_one_percent", hist_percentiles_within_one_percent},
        {"ushist_truncates_to_us_and_overflows", ushist_truncates_to_us_and_overflows},
        {"rtlog_reports_recurring_once_then_counts", rtlog_reports_recurring_once_then_counts},
        {"bare_loop_options_validated", bare_loop_options_validated},
        {"realtime_results_identical_to_fast", realtime_results_identical_to_fast},
        {"overrun_catch_up_runs_late_steps_back_to_back",
         overrun_catch_up_runs_late_steps_back_to_back},
        {"overrun_skip_reanchors_with_logical_time_unchanged",
         overrun_skip_reanchors_with_logical_time_unchanged},
        {"overrun_stop_after_n_consecutive_goes_to_safe_state",
         overrun_stop_after_n_consecutive_goes_to_safe_state},
        {"overrun_substitute_keeps_the_other_units_on_time",
         overrun_substitute_keeps_the_other_units_on_time},
        {"sigint_stops_at_a_boundary_exit_130", sigint_stops_at_a_boundary_exit_130},
        {"sigterm_stops_exit_143", sigterm_stops_exit_143},
        {"watchdog_exits_with_safe_state_when_a_unit_hangs",
         watchdog_exits_with_safe_state_when_a_unit_hangs},
        {"pause_resume_reanchors_without_burst", pause_resume_reanchors_without_burst},
        {"bench_bare_loop_prints_the_table", bench_bare_loop_prints_the_table},
        {NULL, NULL}};
    rtc_test_add_suite("exec", setup, teardown, cases);
    static const rtc_test_case recording[] = {
        {"fast_run_write_error_stops_with_exit_4", fast_run_write_error_stops_with_exit_4},
        {"realtime_run_write_error_goes_to_safe_state",
         realtime_run_write_error_goes_to_safe_state},
        {"stale_summary_never_survives_a_failed_run", stale_summary_never_survives_a_failed_run},
        {NULL, NULL}};
    rtc_test_add_suite("recording", setup, teardown, recording);
}
