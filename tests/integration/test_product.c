/*
 * What the product promises a user of a fresh clone (issue 20 items 4-6): the example
 * folders run as the README writes them, any folder holding a SystemStructure.ssd is a
 * system, `info` prints values in their shortest round-trip form, a real-time run's final
 * line carries its timing, an FMU that repeats one message is reported once with a count,
 * and the plot command draws what a session holds.
 */
#include "cu_main.h"
#include "fmu_util.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

RTC_TEST_RTCOSIM_FIXTURE

/* A shell command in the work directory; its exit status, output in `out`. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[8192];
    int n = snprintf(cmd, sizeof cmd, "cd '%s' && ", work);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd + n, sizeof cmd - (size_t)n, fmt, ap);
    va_end(ap);
    return rtc_test_run(cmd, out, sizeof out);
}

/* `out` holds @p needle (printed when not). */
static bool has(const char *needle)
{
    if (strstr(out, needle))
        return true;
    printf("\nexpected \"%s\" in: %.2000s", needle, out);
    return false;
}

/* ---- item 4: examples run from where the README points ---- */

/* Every `rtcosim ... configs/<name>` command of README.md and configs/README.md, run as
 * written from a directory whose configs/ is the repository's (a link, so the runs write
 * their results here and not into the source tree): exit 0. */
static void readme_example_commands_run_as_written(void)
{
#if !RTC_CONFIG_FMUS
    rtc_test_skip("readme_example_commands_run_as_written",
                  "RTC_CONFIG_FMUS is off in this build: configs/*/resources/ are the plain "
                  "build's");
    return;
#endif
    CU_ASSERT_EQUAL_FATAL(sh("ln -s '%s/configs' configs && "
                             "cat '%s/README.md' '%s/configs/README.md' | "
                             "grep -o '`\\(build/\\)\\{0,1\\}rtcosim [a-z]* configs/[^`]*`' | "
                             "tr -d '`' | sort -u > cmds && cat cmds",
                             RTC_SOURCE_DIR, RTC_SOURCE_DIR, RTC_SOURCE_DIR), 0);
    char path[700];
    snprintf(path, sizeof path, "%s/cmds", work);
    char *cmds = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cmds);
    int n = 0;
    for (char *line = strtok(cmds, "\n"); line; line = strtok(NULL, "\n")) {
        const char *args = strchr(line, ' ') + 1; /* after "rtcosim" or "build/rtcosim" */
        int rc = rtcosim("%s", args);
        if (rc != 0)
            printf("\n'%s' exited %d: %.1500s", line, rc, out);
        CU_ASSERT_EQUAL(rc, 0);
        n++;
    }
    free(cmds);
    /* every example folder at least once, in both files (run, check, plan) */
    CU_ASSERT(n >= 8);
}

/* A directory holding SystemStructure.ssd is a system for info, check and run, whatever
 * its name; one holding modelDescription.xml stays an unpacked FMU. */
static void folder_with_ssd_is_a_system(void)
{
    CU_ASSERT_EQUAL_FATAL(sh("cp -r '%s/stage/msd-jacobi' two_masses", RTC_TEST_CONFIG_DIR), 0);
    CU_ASSERT_EQUAL(rtcosim("info two_masses"), 0);
    CU_ASSERT_TRUE(has("System:        two_masses"));
    CU_ASSERT_TRUE(has("mass1"));
    CU_ASSERT_EQUAL(rtcosim("check two_masses"), 0);
    CU_ASSERT_TRUE(has("2 unit(s)"));
    CU_ASSERT_EQUAL(rtcosim("run two_masses --stop 0.1 --output-dir o"), 0);
    CU_ASSERT_TRUE(has("row(s) in o/results.csv"));
    char csv[700];
    snprintf(csv, sizeof csv, "%s/o/results.csv", work);
    CU_ASSERT_FALSE(isnan(tcsv_last(csv, "mass1.x1")));
    /* a real-time session of it records the folder's .ssd and replays identical */
    CU_ASSERT_EQUAL(rtcosim("run two_masses --realtime --priority 0 --stop 0.2 "
                            "--output-dir s -q"), 0);
    CU_ASSERT_EQUAL(rtcosim("replay s --output-dir r"), 0);
    CU_ASSERT_TRUE(has("identical"));
    /* an unpacked FMU folder is still described as an FMU */
    CU_ASSERT_EQUAL(rtcosim("info '%s/stage/fmi2/Decay'", RTC_TEST_FMU_DIR), 0);
    CU_ASSERT_TRUE(has("Variables ("));
}

/* ---- item 6: what the text output says ---- */

/* Start values in their shortest round-trip form: 9.81, not 9.8100000000000005. */
static void info_prints_shortest_round_trip_values(void)
{
    CU_ASSERT_EQUAL(rtcosim("info '%s'", tfmu_path(2, "BouncingBall")), 0);
    CU_ASSERT_TRUE(has(" 9.81 "));
    CU_ASSERT_TRUE(has(" 0.7 "));
    CU_ASSERT_PTR_NULL(strstr(out, "9.8100000000000005"));
    CU_ASSERT_PTR_NULL(strstr(out, "0.69999999999999996"));
}

/* A real-time run's final line says how it kept time, without -v (and with -q). */
static void realtime_final_line_has_latency_and_overruns(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s/msd-jacobi.ssp' --realtime --priority 0 --stop 0.2 "
                            "--output-dir s -q", RTC_TEST_CONFIG_DIR), 0);
    CU_ASSERT_TRUE(has("rtcosim run: completed: 21 row(s) in s/results.csv"));
    CU_ASSERT_TRUE(has("(reached the stop time); wake-up p99 "));
    CU_ASSERT_TRUE(has(" µs, ")); /* 0 overruns as a rule; a loaded machine may have one */
    CU_ASSERT_TRUE(has(" overrun(s)\n"));
    /* the run's last line (warnings, e.g. of a late wake-up on a loaded machine, precede) */
    const char *fin = strstr(out, "rtcosim run: ");
    CU_ASSERT_TRUE(fin && strchr(fin, '\n') == strrchr(out, '\n'));
    /* a fast run has no timing to tell */
    CU_ASSERT_EQUAL(rtcosim("run '%s/msd-jacobi.ssp' --stop 0.2 --output-dir f",
                            RTC_TEST_CONFIG_DIR), 0);
    CU_ASSERT_TRUE(has("(reached the stop time)\n"));
    CU_ASSERT_PTR_NULL(strstr(out, "wake-up"));
}

/* Occurrences of @p needle in `out`. */
static int count(const char *needle)
{
    int n = 0;
    for (const char *p = strstr(out, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* An FMU that logs the same error in every step from t = 1 s (Fault mode 7): the message
 * once, then "last message repeated N more time(s)" with the exact count — for FMI 2 and 3,
 * in a fast run of the FMU and in a real-time run (where the monitor thread formats the
 * FMU's messages). Steps of 0.01 s to 1.5 s: 50 steps start at t >= 1. */
static void fmu_message_repeats_reported_once_with_count(void)
{
    for (int v = 2; v <= 3; v++) {
        CU_ASSERT_EQUAL(rtcosim("run '%s' --set mode=7 --step 0.01 --stop 1.5 -o f.csv",
                                tfmu_path(v, "Fault")), 0);
        CU_ASSERT_EQUAL(count("Fault: sensor value out of range"), 1);
        CU_ASSERT_TRUE(has("Fault: last message repeated 49 more time(s)"));
        char ssd[700];
        snprintf(ssd, sizeof ssd, "%s/one%d.ssd", work, v);
        tfmu_write_system(ssd, tfmu_path(v, "Fault"), "y", "", "1.5");
        CU_ASSERT_EQUAL(rtcosim("run one%d.ssd --set ball.mode=7 --realtime 10 --priority 0 "
                                "--output-dir s%d -q", v, v), 0);
        CU_ASSERT_EQUAL(count("Fault: sensor value out of range"), 1);
        CU_ASSERT_TRUE(has("ball: last message repeated 49 more time(s)"));
        /* the count comes before the run's final line, which stays the last */
        const char *rep = strstr(out, "last message repeated"), *fin = strstr(out, "rtcosim run:");
        CU_ASSERT_TRUE(rep && fin && rep < fin);
    }
}

/* timing.json keeps every time base of a real-time run (what maps a bench's log onto the
 * run's time): the start's, and one per skip; each skip moves t0 by exactly the gap. A
 * step of Fault (mode 5) sleeps 0.2 s once at t = 0.5 s; the skip policy re-anchors. */
static void timing_json_lists_every_time_base(void)
{
    char ssd[700];
    snprintf(ssd, sizeof ssd, "%s/sleep.ssd", work);
    tfmu_write_system(ssd, tfmu_path(2, "Fault"), "y", "", "1");
    CU_ASSERT_EQUAL_FATAL(rtcosim("run sleep.ssd --set ball.mode=5 --set ball.t_fault=0.5 "
                                  "--set ball.sleep_s=0.2 --realtime --overrun skip "
                                  "--output-dir t -q"), 0);
    char path[700];
    snprintf(path, sizeof path, "%s/t/timing.json", work);
    json_t *doc = json_load_file(path, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    json_t *bases = json_object_get(doc, "time_bases");
    CU_ASSERT_EQUAL_FATAL(json_array_size(bases), 2);
    json_int_t t0 = json_integer_value(json_object_get(doc, "t0_monotonic_ns"));
    json_t *b0 = json_array_get(bases, 0), *b1 = json_array_get(bases, 1);
    CU_ASSERT(t0 > 0);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(b0, "from_tick")), 0);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(b0, "t0_monotonic_ns")), t0);
    json_int_t k1 = json_integer_value(json_object_get(b1, "from_tick"));
    CU_ASSERT(k1 >= 50 && k1 <= 52); /* the step from 0.5 s overran */
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(b1, "t0_monotonic_ns")) - t0,
                    json_integer_value(json_object_get(doc, "gap_ns")));
    CU_ASSERT(json_integer_value(json_object_get(doc, "gap_ns")) >= 150000000);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(doc, "time_bases_dropped")), 0);
    json_decref(doc);
}

/* ---- items 5 and 6: the plot command and what its pictures say ---- */

/* A file of the work directory (malloc'd text; NULL when unreadable). */
static char *work_file(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, rel);
    return rtc_test_slurp(path, NULL);
}

/* Does @p text hold @p needle? Printed when not. */
static bool holds(const char *what, const char *text, const char *needle)
{
    if (text && strstr(text, needle))
        return true;
    printf("\n%s lacks \"%s\"", what, needle);
    return false;
}

/* In the SVG path drawn right after the key entry @p title: the number of 'M' (move) and
 * 'L' (line) commands. Bars (impulses) are one M and one L each; a line joining points has
 * a single M and many L. */
static void path_moves(const char *svg, const char *title, int *m, int *l)
{
    *m = *l = 0;
    const char *at = svg ? strstr(svg, title) : NULL;
    const char *d = at ? strstr(at, " d='") : NULL;
    const char *end = d ? strchr(d + 4, '\'') : NULL;
    for (const char *p = d; p && p < end; p++) {
        *m += *p == 'M';
        *l += *p == 'L';
    }
}

/* `rtcosim plot` (the build's rtcosim-plot beside rtcosim) on a small real session made
 * as the demo makes one (bench_session.sh: the bench simulator with its true state in
 * truth.csv, a PI loop over Modbus, the speed estimated by kalman-cv). estimation.svg
 * draws the true value, the raw samples and the estimate with the RMS error of each,
 * repeated on stdout; the histogram draws every non-empty bucket as its own bar (nothing
 * joins two bars across empty buckets), in µs; titles name the folder relative to the
 * current directory even when given as an absolute path. */
static void plot_draws_a_session(void)
{
    char o[256];
    if (rtc_test_run("command -v gnuplot", o, sizeof o) != 0) {
        rtc_test_skip("plot_draws_a_session", "gnuplot is not installed (scripts/setup)");
        return;
    }
    CU_ASSERT_EQUAL_FATAL(sh("bash '%s/tests/integration/bench_session.sh' '%s' '%s' '%s' s 2",
                             RTC_SOURCE_DIR, RTCOSIM_EXE, RTC_BENCH_SIM_EXE,
                             tfmu_path(2, "PI")), 0);
    CU_ASSERT_EQUAL_FATAL(rtcosim("plot '%s/s' --format svg", work), 0);
    CU_ASSERT_TRUE(has("s/estimation.svg\n"));
    CU_ASSERT_TRUE(has("  bench.speed: RMS against the true value: raw samples held "));
    CU_ASSERT_TRUE(has(", estimate (kalman-cv) "));
    static const char *const files[] = {"s/signals.svg", "s/estimation.svg",
                                        "s/latency-histogram.svg", "s/latency-time.svg"};
    for (size_t i = 0; i < 4; i++) {
        char *svg = work_file(files[i]);
        CU_ASSERT_PTR_NOT_NULL(svg);
        CU_ASSERT_PTR_NULL(svg ? strstr(svg, work) : NULL); /* no absolute path in a title */
        if (i == 1) {
            CU_ASSERT_TRUE(holds(files[i], svg, "true value (truth.csv)"));
            CU_ASSERT_TRUE(holds(files[i], svg, "raw samples, held: RMS error "));
            CU_ASSERT_TRUE(holds(files[i], svg, "estimate (kalman-cv): RMS error "));
            CU_ASSERT_TRUE(holds(files[i], svg, "true value (s)"));
        }
        if (i == 2) {
            CU_ASSERT_TRUE(holds(files[i], svg, "wake-up latency [µs]"));
            CU_ASSERT_PTR_NULL(svg ? strstr(svg, " us)") : NULL); /* µs, not us */
            CU_ASSERT_PTR_NULL(svg ? strstr(svg, "[us]") : NULL);
            int m, l;
            path_moves(svg, "rtcosim (p50 ", &m, &l);
            CU_ASSERT(m >= 5);
            CU_ASSERT_EQUAL(m, l);
        }
        if (i == 3)
            CU_ASSERT_TRUE(holds(files[i], svg, "[µs] (log)"));
        free(svg);
    }
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"readme_example_commands_run_as_written", readme_example_commands_run_as_written},
        {"folder_with_ssd_is_a_system", folder_with_ssd_is_a_system},
        {"info_prints_shortest_round_trip_values", info_prints_shortest_round_trip_values},
        {"realtime_final_line_has_latency_and_overruns",
         realtime_final_line_has_latency_and_overruns},
        {"fmu_message_repeats_reported_once_with_count",
         fmu_message_repeats_reported_once_with_count},
        {"timing_json_lists_every_time_base", timing_json_lists_every_time_base},
        {"plot_draws_a_session", plot_draws_a_session},
        {NULL, NULL}};
    rtc_test_add_suite("product", setup, teardown, cases);
}
