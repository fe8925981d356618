/*
 * What the rtcosim command line tells a newcomer (issue 14): checked option values that
 * name the option and the bad text, one grouped `run --help`, the progress bar only on a
 * terminal and one final line always, `check` running run's own validations, `info` on a
 * system, FMU errors naming the .fmu, and refusals that say why on stderr. A terminal is
 * provided by script(1) (util-linux, Essential in Debian).
 */
#include "cu_main.h"
#include "fmu_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmp[512];   /* TMPDIR of the commands */
static char work[512];  /* output files */
static char out[65536]; /* captured stdout+stderr */

#define MSD RTC_TEST_CONFIG_DIR "/stage/msd-jacobi/SystemStructure.ssd"

static int setup(void)
{
    rtc_test_tmpdir(tmp, sizeof tmp);
    rtc_test_tmpdir(work, sizeof work);
    return 0;
}

static int teardown(void)
{
    rtc_test_rmtree(tmp);
    rtc_test_rmtree(work);
    return 0;
}

static int rtcosim(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int rtcosim(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = rtc_test_vrtcosim(work, tmp, out, sizeof out, fmt, ap);
    va_end(ap);
    CU_ASSERT_EQUAL(rtc_test_entries(tmp), 0);
    return rc;
}

/* "rtcosim ARGS" on a pseudo-terminal (script -qec), ENV before it; the exit status. */
static int on_tty(const char *env, const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && TMPDIR='%s' %s script -qec \"'%s' %s\" /dev/null",
             work, tmp, env, RTCOSIM_EXE, args);
    return rtc_test_run(cmd, out, sizeof out);
}

static bool one_line(void)
{
    return strchr(out, '\n') == strrchr(out, '\n');
}

/* Usage error: exit 2, one line holding @p want. */
#define USAGE(want, ...)                                                                      \
    do {                                                                                      \
        CU_ASSERT_EQUAL(rtcosim(__VA_ARGS__), 2);                                             \
        CU_ASSERT_PTR_NOT_NULL(strstr(out, want));                                            \
        CU_ASSERT_TRUE(one_line());                                                           \
        if (!strstr(out, want))                                                               \
            printf("\nexpected \"%s\" in: %s", want, out);                                    \
    } while (0)

/* Every number an option takes is checked: trailing garbage, range, a missing value. */
static void option_values_checked_and_named(void)
{
    char decay[1024];
    snprintf(decay, sizeof decay, "%s", tfmu_path(2, "Decay"));
    USAGE("--decimation 10x: not an integer", "run '%s' --decimation 10x", MSD);
    USAGE("--workers -1: out of range", "run '%s' --workers -1", MSD);
    USAGE("--max-iterations 5.5: not an integer", "run '%s' --max-iterations 5.5", MSD);
    USAGE("--tolerance nan: not a number", "run '%s' --tolerance nan", MSD);
    USAGE("--tolerance 1e-6x: not a number", "run '%s' --tolerance 1e-6x", MSD);
    USAGE("--control-port 70000: out of range", "run '%s' --realtime --control-port 70000", MSD);
    USAGE("--stop: missing value", "run '%s' --stop", MSD);
    USAGE("--stop: missing value", "run '%s' --stop", decay);
    USAGE("-o: missing value", "run '%s' -o", decay);
    USAGE("unknown option '--bogus'", "run '%s' --bogus", MSD);
    USAGE("unknown option '--bogus'", "run '%s' --bogus=3", decay);
    /* a slip of the fingers gets the option it was meant to be; a stranger does not */
    USAGE("unknown option '--stpo'; did you mean --stop?", "run '%s' --stpo 1", MSD);
    USAGE("unknown option '--realtmie'; did you mean --realtime?", "run '%s' --realtmie", MSD);
    USAGE("'--outptu-dir'; did you mean --output-dir?", "run '%s' --outptu-dir x", decay);
    USAGE("'--duartion'; did you mean --duration?", "bench --duartion 1");
    CU_ASSERT_EQUAL(rtcosim("run '%s' --bogus", MSD), 2);
    CU_ASSERT_PTR_NULL(strstr(out, "did you mean"));
    USAGE("--fast: takes no value", "run '%s' --fast=3", MSD);
    USAGE("--period 1000us: not an integer", "bench --period 1000us");
    USAGE("--rounds 0: out of range", "bench --rounds 0");
    USAGE("--duration: missing value", "bench --duration");
    USAGE("--rtf: missing value", "plan '%s' --rtf", MSD);
    USAGE("--output-dir: missing value", "replay somewhere --output-dir");
    /* an FMU run's times are checked by the same table as a system's */
    USAGE("--stop 1x: not a number", "run '%s' --stop 1x", decay);
}

/* run --help is one text with every option, grouped, whatever the file argument. */
static void run_help_lists_every_group(void)
{
    static const char *const want[] = {
        "usage: rtcosim run [options] FMU", "rtcosim run [options] SYSTEM", "FMU options",
        "--fmu-logging", "System options", "--algorithm A", "--set NAME=VALUE",
        "Real-time options", "--realtime [RTF]", "--overrun P", "Operator session options",
        "--control-port N", "--expose NAME", "--on-write-error P", "-q, --quiet"};
    const char *forms[] = {"run --help", "run x.fmu --help", "run x.ssd --help"};
    for (size_t f = 0; f < 3; f++) {
        CU_ASSERT_EQUAL(rtcosim("%s", forms[f]), 0);
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
            CU_ASSERT_PTR_NOT_NULL(strstr(out, want[i]));
            if (!strstr(out, want[i]))
                printf("\n'%s' lacks \"%s\"", forms[f], want[i]);
        }
    }
}

/* Not a terminal (this pipe): no '\r' bar, only the final line. On a terminal: the bar
 * (shown at once here through RTCOSIM_PROGRESS_AFTER_S=0), none with -q; the final line
 * every time. */
static void progress_only_on_terminal_final_line_always(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s' --output-dir fast", MSD), 0);
    CU_ASSERT_PTR_NULL(strchr(out, '\r'));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "rtcosim run: completed: 1001 row(s) in fast/results.csv"
                                       ", summary fast/summary.json (reached the stop time)"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 1 --step 0.5 -o d.csv", tfmu_path(2, "Decay")), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "rtcosim run: completed: 3 row(s) in d.csv"));
    char args[2048];
    snprintf(args, sizeof args, "run '%s' --output-dir tty", MSD);
    CU_ASSERT_EQUAL(on_tty("RTCOSIM_PROGRESS_AFTER_S=0", args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "ETA"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "real time"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "rtcosim run: completed: 1001 row(s)"));
    snprintf(args, sizeof args, "run '%s' --output-dir tty -q", MSD);
    CU_ASSERT_EQUAL(on_tty("RTCOSIM_PROGRESS_AFTER_S=0", args), 0);
    CU_ASSERT_PTR_NULL(strstr(out, "ETA"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "rtcosim run: completed: 1001 row(s)"));
    /* real time: the executive's status line gains the session directory */
    snprintf(args, sizeof args, "run '%s' --realtime --priority 0 --stop 0.2 --output-dir rt",
             MSD);
    CU_ASSERT_EQUAL(on_tty("", args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "RTF"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "-> rt"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "rtcosim run: completed: 21 row(s) in rt/results.csv"));
}

/* check refuses what run refuses before its first step: recorded and exposed names. */
static void check_runs_the_validations_of_run(void)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cp -r '%s/stage/msd-jacobi' '%s/bad' && sed -i "
             "'s/record=\"mass1.x1/record=\"mass1.nosuch mass1.x1/' '%s/bad/SystemStructure.ssd'",
             RTC_TEST_CONFIG_DIR, work, work);
    CU_ASSERT_EQUAL_FATAL(rtc_test_run(cmd, out, sizeof out), 0);
    CU_ASSERT_EQUAL(rtcosim("run bad/SystemStructure.ssd --output-dir r"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "record mass1.nosuch: no such unit.variable"));
    CU_ASSERT_EQUAL(rtcosim("check bad/SystemStructure.ssd"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "record mass1.nosuch: no such unit.variable"));
    CU_ASSERT_PTR_NULL(strstr(out, ": OK"));
    CU_ASSERT_EQUAL(rtcosim("check '%s' --record mass2.nosuch", MSD), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "record mass2.nosuch"));
    /* --expose belongs to a real-time run: without --realtime check refuses it as run does */
    CU_ASSERT_EQUAL(rtcosim("check '%s' --expose mass1.nosuch", MSD), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--expose needs --realtime"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --expose mass1.nosuch --output-dir e", MSD), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--expose needs --realtime"));
    CU_ASSERT_EQUAL(rtcosim("check '%s' --realtime --expose mass1.nosuch", MSD), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "expose mass1.nosuch: no such unit.variable"));
    CU_ASSERT_EQUAL(rtcosim("check '%s' --realtime --expose mass1.x1", MSD), 1); /* output */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "expose mass1.x1: cannot be set during a run"));
    CU_ASSERT_EQUAL(rtcosim("check '%s' --record mass1.x1", MSD), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, ": OK"));
}

/* A refused --expose says why on stderr (not only in events.log). */
static void expose_refusal_says_why(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s' --realtime --priority 0 --stop 0.1 --output-dir x "
                            "--expose mass1.nosuch", MSD), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "expose mass1.nosuch: no such unit.variable"));
    CU_ASSERT_PTR_NULL(strstr(out, "see "));
}

/* info on a system (an .ssp archive and an .ssd): components, connectors with units, I/O
 * signals with their estimators, connections. */
static void info_describes_a_system(void)
{
    CU_ASSERT_EQUAL(rtcosim("info '%s/hil-demo.ssp'", RTC_TEST_CONFIG_DIR), 0);
    static const char *const want[] = {
        "Master:        jacobi, base tick 0.001 s", "Components (2):", "controller",
        "I/O components (2):", "from speed [rad/s]  estimator kalman-cv q=",
        "bench.speed -> controller.y [rad/s]  estimator kalman-cv", "(at the I/O signal)",
        "Connections (5):", "hil-demo.ssp/resources/PI.fmu)"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CU_ASSERT_PTR_NOT_NULL(strstr(out, want[i]));
        if (!strstr(out, want[i]))
            printf("\ninfo lacks \"%s\"", want[i]);
    }
    CU_ASSERT_PTR_NULL(strstr(out, "rtcssp-")); /* the extraction folder is gone by now */
    CU_ASSERT_EQUAL(rtcosim("info '%s'", MSD), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "      in   Fe [N]\n      out  x1 [m], v1 [m/s]\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "mass2.Fc -> mass1.Fe [N]  estimator zoh"));
}

/* Errors about an FMU archive name the .fmu, never the temporary extraction folder. */
static void fmu_errors_name_the_fmu(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s' --no-output", tfmu_path(2, "NoSymbol")), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "NoSymbol.fmu: binaries/"));
    CU_ASSERT_PTR_NULL(strstr(out, "rtcosim-fmu-"));
    CU_ASSERT_EQUAL(rtcosim("info '%s'", tfmu_path(3, "NoBinary")), 0);
    CU_ASSERT_EQUAL(rtcosim("run '%s' --no-output", tfmu_path(3, "NoBinary")), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "NoBinary.fmu: modelDescription.xml: no binary"));
    CU_ASSERT_PTR_NULL(strstr(out, "rtcosim-fmu-"));
    /* an FMU inside an .ssp: named inside the package, not in its extraction folder */
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && cp -r '%s/stage/msd-jacobi' pk && cd pk && "
             "head -c 300 '%s' > resources/Mass1.fmu && cmake -E tar cf ../pk.ssp "
             "--format=zip SystemStructure.ssd resources", work, RTC_TEST_CONFIG_DIR,
             tfmu_path(2, "Decay"));
    CU_ASSERT_EQUAL_FATAL(rtc_test_run(cmd, out, sizeof out), 0);
    CU_ASSERT_EQUAL(rtcosim("check pk.ssp"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "pk.ssp/resources/Mass1.fmu: "));
    CU_ASSERT_PTR_NULL(strstr(out, "rtcssp-"));
}

#define PLOT RTC_TEST_DATA_DIR "/../../scripts/plot"

/* A file of the work directory holds @p needle. */
static bool file_has(const char *rel, const char *needle)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, rel);
    char *t = rtc_test_slurp(path, NULL);
    bool yes = t && strstr(t, needle);
    if (!yes)
        printf("\n%s lacks \"%s\"", rel, needle);
    free(t);
    return yes;
}

/* A whole PNG image: the signature, some size, and the IEND chunk gnuplot writes last. */
static bool png_ok(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, rel);
    size_t n = 0;
    char *t = rtc_test_slurp(path, &n);
    bool yes = t && n > 2000 && !memcmp(t, "\x89PNG\r\n\x1a\n", 8) && memmem(t, n, "IEND", 4);
    if (!yes)
        printf("\n%s: not a whole PNG (%zu bytes)", rel, n);
    free(t);
    return yes;
}

static bool have_gnuplot(void)
{
    char o[256];
    if (rtc_test_run("command -v gnuplot", o, sizeof o) == 0)
        return true;
    rtc_test_skip("plots", "gnuplot is not installed (scripts/setup installs gnuplot-nox)");
    return false;
}

/* Signals of any results.csv: the chosen ones, units in the labels, one panel per unit;
 * a real-time session's latency plots in seconds with the deadline and percentiles. The
 * PNGs are non-empty images; the SVG twins show the series. */
static void plots_of_signals_and_latency(void)
{
    if (!have_gnuplot())
        return;
    CU_ASSERT_EQUAL_FATAL(rtcosim("run '%s' --realtime --priority 0 --stop 0.5 --output-dir s "
                                  "-q", MSD), 0);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && RTCOSIM='%s' '%s' s/results.csv --signals "
             "mass1.x1,mass2.Fc,mass2.x2 --output s/sel.png && RTCOSIM='%s' '%s' s && "
             "RTCOSIM='%s' '%s' s --format svg && RTCOSIM='%s' '%s' s/results.csv --signals "
             "mass1.x1,mass2.Fc --output s/sel.svg --format svg", work, RTCOSIM_EXE, PLOT,
             RTCOSIM_EXE, PLOT, RTCOSIM_EXE, PLOT, RTCOSIM_EXE, PLOT);
    CU_ASSERT_EQUAL_FATAL(rtc_test_run(cmd, out, sizeof out), 0);
    static const char *const pngs[] = {"s/sel.png", "s/signals.png", "s/latency-histogram.png",
                                       "s/latency-time.png"};
    for (size_t i = 0; i < 4; i++)
        CU_ASSERT_TRUE(png_ok(pngs[i]));
    CU_ASSERT_TRUE(file_has("s/sel.svg", "mass1.x1 [m]"));
    CU_ASSERT_TRUE(file_has("s/sel.svg", "mass2.Fc [N]"));
    CU_ASSERT_TRUE(file_has("s/sel.svg", "time [s]"));
    CU_ASSERT_TRUE(file_has("s/latency-histogram.svg", "rtcosim (p50 "));
    CU_ASSERT_TRUE(file_has("s/latency-histogram.svg", "deadline (period 10000 µs)"));
    CU_ASSERT_TRUE(file_has("s/latency-histogram.svg", "p99.9 "));
    CU_ASSERT_TRUE(file_has("s/latency-time.svg", "time [s]"));
    CU_ASSERT_TRUE(file_has("s/latency-time.svg", "deadline (period)"));
    CU_ASSERT_TRUE(file_has("s/latency-time.svg", "step time"));
    snprintf(cmd, sizeof cmd, "cd '%s' && RTCOSIM='%s' '%s' s/results.csv --signals nosuch "
             "--output x.png", work, RTCOSIM_EXE, PLOT);
    CU_ASSERT_EQUAL(rtc_test_run(cmd, out, sizeof out), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--signals nosuch: no such column"));
}

/* bench --compare-cyclictest: histogram.txt and latency.csv hold every round the table
 * counts (not only the last); the plot overlays both tools. */
static void bench_files_cover_every_round(void)
{
    int rc = rtcosim("bench --priority 0 --period 1000 --duration 2 --rounds 2 "
                     "--compare-cyclictest --output-dir b");
    if (rc != 0 && strstr(out, "cyclictest")) {
        rtc_test_skip("bench_files_cover_every_round", "cyclictest did not run here");
        return;
    }
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    unsigned long long n = 0;
    const char *row = strstr(out, "\nrtcosim ");
    CU_ASSERT_FATAL(row && sscanf(row, "\nrtcosim %llu", &n) == 1);
    CU_ASSERT(n > 0); /* two rounds of up to 1000 periods (a late wake-up skips some) */
    /* whether the rate holds: rtcosim's overruns of all its steps against cyclictest's
     * wake-ups later than the period less rtcosim's median step */
    char steps[64];
    snprintf(steps, sizeof steps, "of %llu steps (", n);
    const char *ov = strstr(out, "\noverruns: rtcosim ");
    CU_ASSERT_TRUE(ov && strstr(ov, steps));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nlate wake-ups: cyclictest "));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nratio overruns/late wake-ups: "));
    CU_ASSERT_TRUE(file_has("b/compare.txt", "late wake-ups: cyclictest "));
    char want[64];
    snprintf(want, sizeof want, "# Total: %09llu", n);
    CU_ASSERT_TRUE(file_has("b/histogram.txt", want));
    char path[700];
    snprintf(path, sizeof path, "%s/b/latency.csv", work);
    char *t = rtc_test_slurp(path, NULL);
    unsigned long long lines = 0;
    for (const char *p = t; p && *p; p++)
        lines += *p == '\n';
    free(t);
    CU_ASSERT_EQUAL(lines, n + 1); /* header + one row per sample of the table */
    if (!have_gnuplot())
        return;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && RTCOSIM='%s' '%s' b --format svg", work, RTCOSIM_EXE,
             PLOT);
    CU_ASSERT_EQUAL_FATAL(rtc_test_run(cmd, out, sizeof out), 0);
    CU_ASSERT_TRUE(file_has("b/latency-histogram.svg", "cyclictest (p50 "));
    CU_ASSERT_TRUE(file_has("b/latency-histogram.svg", "rtcosim (p50 "));
    CU_ASSERT_TRUE(file_has("b/latency-histogram.svg", "deadline (period 1000 µs)"));
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"option_values_checked_and_named", option_values_checked_and_named},
        {"run_help_lists_every_group", run_help_lists_every_group},
        {"progress_only_on_terminal_final_line_always",
         progress_only_on_terminal_final_line_always},
        {"check_runs_the_validations_of_run", check_runs_the_validations_of_run},
        {"expose_refusal_says_why", expose_refusal_says_why},
        {"info_describes_a_system", info_describes_a_system},
        {"fmu_errors_name_the_fmu", fmu_errors_name_the_fmu},
        {"plots_of_signals_and_latency", plots_of_signals_and_latency},
        {"bench_files_cover_every_round", bench_files_cover_every_round},
        {NULL, NULL}};
    rtc_test_add_suite("cli_ux", setup, teardown, cases);
}
