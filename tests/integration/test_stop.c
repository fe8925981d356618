/*
 * Every stop is a clean stop (issue 10, bullets 2, 4 and 5), driven as a user would:
 * SIGINT/SIGTERM/SIGHUP of `run FMU`, of a fast system run and of a real-time run (the
 * last with its safe state); a unit hung in its step; the default watchdog; extraction
 * directories a killed process left behind; non-finite outputs (warn and stop); a system
 * file that lies in the output folder.
 *
 * Each rtcosim runs as a child with TMPDIR pointing at a private directory that must be
 * empty once it has ended: no rtcosim-fmu-* (or any other) temporary directory survives
 * any of these stops. Waits are on events (a file growing, the child's exit) with
 * generous timeouts; nothing asserts a duration.
 */
#include "cu_main.h"
#include "fmu_util.h"
#include "proc_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

RTC_TEST_CHILD_FIXTURE                 /* tmp, work, child, setup, teardown */
static char out[65536]; /* captured output of rtc_test_run */

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* Wait until WORK/REL has at least @p lines newline characters (30 s at most). */
static bool wait_lines(const char *rel, long lines)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", work, rel);
    return rtc_test_wait_lines(path, lines);
}

static char *slurp(const char *rel)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", work, rel);
    return rtc_test_slurp(path, NULL);
}

/* The CSV ends with a complete row: a newline at the end and, in every row, as many
 * fields as the header has. */
static void assert_complete_rows(const char *rel)
{
    size_t n = 0;
    char path[700];
    snprintf(path, sizeof path, "%s/%s", work, rel);
    char *text = rtc_test_slurp(path, &n);
    CU_ASSERT_FATAL(text != NULL && n > 0);
    CU_ASSERT_EQUAL(text[n - 1], '\n');
    long fields = -1, rows = 0;
    bool same = true;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        long commas = 0;
        for (char *p = l; *p; p++)
            commas += *p == ',';
        if (fields < 0)
            fields = commas;
        same &= commas == fields;
        rows++;
    }
    CU_ASSERT_TRUE(same);
    CU_ASSERT(rows > 2);
    free(text);
}

static void assert_summary(const char *rel, const char *status, const char *reason)
{
    char *s = slurp(rel);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    char want[200];
    snprintf(want, sizeof want, "\"status\": \"%s\"", status);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, reason));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"last_tick\": "));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"last_time_s\": "));
    if (!strstr(s, want) || !strstr(s, reason)) {
        char *log = slurp("child.log");
        fprintf(stderr, "\n%s: %s\nchild.log: %s\n", rel, s, log ? log : "");
        free(log);
    }
    free(s);
}

/* ---- SIGINT / SIGTERM in every mode ---- */

static void signal_fmu_run(int sig, const char *name, int code)
{
    char path[700];
    snprintf(path, sizeof path, "%s/r.csv", work);
    unlink(path);
    pid_t pid = rtc_test_spawn(&child, "run %s --stop 1000000 --step 0.001 -o r.csv",
                               tfmu_path(2, "Decay"));
    CU_ASSERT_TRUE(wait_lines("r.csv", 2));
    kill(pid, sig);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(pid), code);
    assert_complete_rows("r.csv");
    assert_summary("summary.json", "stopped", name);
    CU_ASSERT_EQUAL(rtc_test_entries(tmp), 0);
}

static void fmu_run_sigint_sigterm_stop_cleanly(void)
{
    signal_fmu_run(SIGINT, "stopped by SIGINT", 130);
    signal_fmu_run(SIGTERM, "stopped by SIGTERM", 143);
}

static void signal_system_run(int sig, const char *name, int code, bool realtime)
{
    char stale[700];
    snprintf(stale, sizeof stale, "%s/s", work);
    rtc_test_rmtree(stale); /* the previous call's files must not be waited on */
    CU_ASSERT_EQUAL_FATAL(mkdir(stale, 0755), 0);
    snprintf(stale, sizeof stale, "%s/s/summary.json", work);
    FILE *f = fopen(stale, "w"); /* an older run's: must not stay */
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{\"status\": \"completed\"}\n", f);
    fclose(f);
    pid_t pid = rtc_test_spawn(&child, "run %s/msd-jacobi.ssp --stop 100000 --output-dir s%s",
                               RTC_TEST_CONFIG_DIR,
                               realtime ? " --realtime --test-safe-file s/safe" : "");
    /* real time: the monitor flushes latency.csv as steps go; fast: rows fill the CSV */
    CU_ASSERT_TRUE(wait_lines(realtime ? "s/latency.csv" : "s/results.csv", 20));
    kill(pid, sig);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(pid), code);
    assert_complete_rows("s/results.csv");
    assert_summary("s/summary.json", "stopped", name);
    char *s = slurp("s/summary.json");
    char want[64];
    snprintf(want, sizeof want, "\"exit_code\": %d", code);
    CU_ASSERT(s && strstr(s, want));
    free(s);
    if (realtime) { /* the I/O components' safe values: the same stop path */
        char *safe = slurp("s/safe");
        CU_ASSERT(safe && !strcmp(safe, "safe\n"));
        free(safe);
    }
    CU_ASSERT_EQUAL(rtc_test_entries(tmp), 0);
}

static void fast_system_run_sigint_sigterm_stop_cleanly(void)
{
    signal_system_run(SIGINT, "stopped by SIGINT", 130, false);
    signal_system_run(SIGTERM, "stopped by SIGTERM", 143, false);
}

static void realtime_run_sigint_sigterm_stop_cleanly(void)
{
    signal_system_run(SIGINT, "stopped by SIGINT", 130, true);
    signal_system_run(SIGTERM, "stopped by SIGTERM", 143, true);
}

/* SIGHUP (the terminal or the ssh session went away) is a stop like SIGTERM: 128 + 1. */
static void sighup_stops_every_run_cleanly_exit_129(void)
{
    signal_fmu_run(SIGHUP, "stopped by SIGHUP", 129);
    signal_system_run(SIGHUP, "stopped by SIGHUP", 129, false);
    signal_system_run(SIGHUP, "stopped by SIGHUP", 129, true);
}

/* ---- a unit hung in its step; the watchdog ---- */

/* A Fault unit "f" with base step @p step_s whose step at 0.5 s sleeps 1000 s. */
static void write_hang_ssd(const char *name, double step_s)
{
    char path[700], fmu[600], rt[200];
    snprintf(path, sizeof path, "%s/%s", work, name);
    snprintf(fmu, sizeof fmu, "%s/fmi2/Fault.fmu", RTC_TEST_FMU_DIR);
    snprintf(rt, sizeof rt, "<ssc:Annotation type=\"org.rtcosim.realtime\">"
             "<rtc:RealTime baseStep=\"%g\"/></ssc:Annotation>", step_s);
    static const char params[] =
        "<ssv:Parameter name=\"mode\"><ssv:Integer value=\"5\"/></ssv:Parameter>"
        "<ssv:Parameter name=\"t_fault\"><ssv:Real value=\"0.5\"/></ssv:Parameter>"
        "<ssv:Parameter name=\"sleep_s\"><ssv:Real value=\"1000\"/></ssv:Parameter>";
    tfmu_write_param_system(path, "f", fmu, "y", "Real", params, rt, "100");
}

/* SIGTERM while f sleeps in its step (the watchdog off): the run still ends — after the
 * grace — with the safe state, the rows before the hang, a summary naming f, and no
 * temporary directory left. */
static void hung_unit_sigterm_ends_after_grace(void)
{
    write_hang_ssd("hang.ssd", 0.05);
    /* --force: the feasibility check finds f stuck in its profile and would refuse */
    pid_t pid = rtc_test_spawn(&child, "run hang.ssd --realtime --force --watchdog-ms 0 "
                               "--output-dir h --test-safe-file h/safe");
    /* header + ticks 0..9 in the latency trace: tick 10 (t = 0.5 s, the hang) has begun */
    CU_ASSERT_TRUE(wait_lines("h/latency.csv", 11));
    nap_ms(200);
    kill(pid, SIGTERM);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(pid), 143);
    assert_summary("h/summary.json", "stopped", "stopped by SIGTERM; unit f was still inside");
    char *s = slurp("h/summary.json"), *safe = slurp("h/safe");
    CU_ASSERT(s && strstr(s, "\"hung_unit\": \"f\""));
    CU_ASSERT(safe && !strcmp(safe, "safe\n"));
    free(s);
    free(safe);
    assert_complete_rows("h/results.csv");
    CU_ASSERT_EQUAL(rtc_test_entries(tmp), 0);
}

/* The substitute policy leaves a late unit running on its own thread while the rest goes
 * on: SIGTERM stops the run at once, and the unit still in its step is left after the
 * grace instead of being waited for when the system is freed. */
static void hung_unit_substitute_sigterm_ends_after_grace(void)
{
    write_hang_ssd("hang.ssd", 0.05);
    pid_t pid = rtc_test_spawn(&child, "run hang.ssd --realtime --force --overrun substitute "
                               "--output-dir hs --test-safe-file hs/safe");
    CU_ASSERT_TRUE(wait_lines("hs/latency.csv", 16)); /* ticks past the hang at 10 */
    kill(pid, SIGTERM);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(pid), 143);
    assert_summary("hs/summary.json", "stopped", "stopped by SIGTERM; unit f was still inside");
    char *s = slurp("hs/summary.json"), *safe = slurp("hs/safe");
    CU_ASSERT(s && strstr(s, "\"hung_unit\": \"f\""));
    CU_ASSERT(safe && !strcmp(safe, "safe\n"));
    free(s);
    free(safe);
    assert_complete_rows("hs/results.csv");
    CU_ASSERT_EQUAL(rtc_test_entries(tmp), 0);
}

/* No --watchdog-ms: the default (max(1 s, 100 periods) = 1 s at 10 ms) ends the hang with
 * exit status 3, a summary and no temporary directory left. */
static void watchdog_on_by_default_writes_summary(void)
{
    write_hang_ssd("hang10.ssd", 0.01);
    pid_t pid = rtc_test_spawn(&child, "run hang10.ssd --realtime --force --output-dir w "
                               "--test-safe-file w/safe");
    CU_ASSERT_EQUAL(rtc_test_wait_exit(pid), 3);
    assert_summary("w/summary.json", "failed", "watchdog: a tick took longer than 1000 ms");
    char *s = slurp("w/summary.json"), *safe = slurp("w/safe");
    CU_ASSERT(s && strstr(s, "\"hung_unit\": \"f\""));
    CU_ASSERT(s && strstr(s, "\"exit_code\": 3"));
    CU_ASSERT(safe && !strcmp(safe, "safe\n"));
    free(s);
    free(safe);
    CU_ASSERT_EQUAL(rtc_test_entries(tmp), 0);
}

/* ---- extraction directories of a process that is gone ---- */

static long long my_start(void)
{
    char *stat = rtc_test_slurp("/proc/self/stat", NULL);
    char *p = stat ? strrchr(stat, ')') : NULL;
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    long long v = p ? strtoll(p + 1, NULL, 10) : -1;
    free(stat);
    return v;
}

static void make_dir(const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/%s/modelDescription.xml", tmp, name);
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
}

static void stale_extraction_dirs_of_dead_owners_removed(void)
{
    pid_t dead = fork(); /* a pid whose process is gone */
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0);
    char gone[200], reused[200], live[200], other[200];
    snprintf(gone, sizeof gone, "rtcosim-fmu-%ld-%lld-aaaaaa", (long)dead, my_start());
    snprintf(reused, sizeof reused, "rtcosim-fmu-%ld-%lld-bbbbbb", (long)getpid(),
             my_start() + 1); /* this pid, another start time: a previous owner */
    snprintf(live, sizeof live, "rtcosim-fmu-%ld-%lld-cccccc", (long)getpid(), my_start());
    snprintf(other, sizeof other, "rtcosim-fmu-notours");
    make_dir(gone);
    make_dir(reused);
    make_dir(live);
    make_dir(other);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && TMPDIR='%s' '%s' run '%s' --no-output", work, tmp,
             RTCOSIM_EXE, tfmu_path(2, "Decay"));
    CU_ASSERT_EQUAL(rtc_test_run(cmd, out, sizeof out), 0);
    char path[1200];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", tmp, gone);
    CU_ASSERT_NOT_EQUAL(stat(path, &sb), 0);
    snprintf(path, sizeof path, "%s/%s", tmp, reused);
    CU_ASSERT_NOT_EQUAL(stat(path, &sb), 0);
    snprintf(path, sizeof path, "%s/%s", tmp, live);
    CU_ASSERT_EQUAL(stat(path, &sb), 0);
    snprintf(path, sizeof path, "%s/%s", tmp, other);
    CU_ASSERT_EQUAL(stat(path, &sb), 0);
    CU_ASSERT_EQUAL(rtc_test_entries(tmp), 2); /* the live owner's and the unparsable one */
    snprintf(path, sizeof path, "%s/%s", tmp, live);
    rtc_test_rmtree(path);
    snprintf(path, sizeof path, "%s/%s", tmp, other);
    rtc_test_rmtree(path);
}

/* ---- non-finite values ---- */

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char args[4096], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd '%s' && TMPDIR='%s' '%s' %s", work, tmp, RTCOSIM_EXE, args);
    int rc = rtc_test_run(cmd, out, sizeof out);
    CU_ASSERT_EQUAL(rtc_test_entries(tmp), 0);
    return rc;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

static void nonfinite_fmu_run_warn_and_stop(void)
{
    char decay[1024];
    snprintf(decay, sizeof decay, "%s", tfmu_path(3, "Decay"));
    CU_ASSERT_EQUAL(run("run '%s' --set k=nan -o nf.csv", decay), 0);
    CU_ASSERT_EQUAL(count(out, "non-finite value: Decay.x = nan"), 1); /* once per variable */
    /* at the step it appeared in (x after the first step; der_x at the start) */
    CU_ASSERT_EQUAL(count(out, "Decay.x = nan at t = 0.01 s"), 1);
    CU_ASSERT_EQUAL(count(out, "Decay.der_x = nan at t = 0 s"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "completed with 2 non-finite value(s)"));
    assert_summary("summary.json", "completed-nonfinite", "\"nonfinite_values\": 2");
    CU_ASSERT_EQUAL(run("run '%s' --set k=nan -o nf.csv --on-nonfinite stop", decay), 1);
    assert_summary("summary.json", "failed", "\"cause\": \"nonfinite\"");
    CU_ASSERT_EQUAL(run("run '%s' --on-nonfinite maybe", decay), 2);
}

/* A Decay unit "d" whose x becomes NaN at the first step, 10 ms steps for 0.5 s: x0 = 0 and
 * k = -1e308 (a file's values must be finite), so x = 0 · exp(1e306) = 0 · inf. */
static void write_nan_ssd(void)
{
    char path[700], fmu[600];
    snprintf(path, sizeof path, "%s/nan.ssd", work);
    snprintf(fmu, sizeof fmu, "%s/fmi2/Decay.fmu", RTC_TEST_FMU_DIR);
    tfmu_write_param_system(path, "d", fmu, "x", "Real",
                            "<ssv:Parameter name=\"k\"><ssv:Real value=\"-1e308\"/></ssv:Parameter>"
                            "<ssv:Parameter name=\"x0\"><ssv:Real value=\"0\"/></ssv:Parameter>",
                            "", "0.5");
}

static void nonfinite_system_runs_warn_and_stop(void)
{
    write_nan_ssd();
    for (int rt = 0; rt < 2; rt++) {
        const char *mode = rt ? "--realtime" : "--fast";
        CU_ASSERT_EQUAL(run("run nan.ssd --step 0.01 %s --output-dir nw", mode), 0);
        CU_ASSERT_EQUAL(count(out, "non-finite value: d.x = nan"), 1);
        assert_summary("nw/summary.json", "completed-nonfinite", "\"variable\": \"d.x\"");
        CU_ASSERT_EQUAL(run("run nan.ssd --step 0.01 %s --output-dir ns --on-nonfinite stop",
                            mode), 1);
        assert_summary("ns/summary.json", "failed", "\"cause\": \"nonfinite\"");
        char *s = slurp("ns/summary.json"); /* d.der_x is NaN from t0 (checked after init) */
        CU_ASSERT(s && strstr(s, "\"variable\": \"d.der_x\""));
        free(s);
    }
}

/* ---- the session never writes onto its input ---- */

static void session_keeps_system_file_in_output_dir(void)
{
    write_nan_ssd(); /* any .ssd: here with a finite k */
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && mkdir -p demo && sed 's/value=\"-1e308\"/value=\"1\"/' "
             "nan.ssd > demo/system.ssd && cp demo/system.ssd pristine.ssd", work);
    CU_ASSERT_EQUAL_FATAL(rtc_test_run(cmd, out, sizeof out), 0);
    CU_ASSERT_EQUAL(run("run demo/system.ssd --realtime --step 0.01 --output-dir demo"), 0);
    snprintf(cmd, sizeof cmd, "cd '%s' && cmp pristine.ssd demo/system.ssd", work);
    CU_ASSERT_EQUAL(rtc_test_run(cmd, out, sizeof out), 0);
    CU_ASSERT_EQUAL(run("replay demo"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "identical"));
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"fmu_run_sigint_sigterm_stop_cleanly", fmu_run_sigint_sigterm_stop_cleanly},
        {"fast_system_run_sigint_sigterm_stop_cleanly", fast_system_run_sigint_sigterm_stop_cleanly},
        {"realtime_run_sigint_sigterm_stop_cleanly", realtime_run_sigint_sigterm_stop_cleanly},
        {"sighup_stops_every_run_cleanly_exit_129", sighup_stops_every_run_cleanly_exit_129},
        {"hung_unit_sigterm_ends_after_grace", hung_unit_sigterm_ends_after_grace},
        {"hung_unit_substitute_sigterm_ends_after_grace",
         hung_unit_substitute_sigterm_ends_after_grace},
        {"watchdog_on_by_default_writes_summary", watchdog_on_by_default_writes_summary},
        {"stale_extraction_dirs_of_dead_owners_removed",
         stale_extraction_dirs_of_dead_owners_removed},
        {"nonfinite_fmu_run_warn_and_stop", nonfinite_fmu_run_warn_and_stop},
        {"nonfinite_system_runs_warn_and_stop", nonfinite_system_runs_warn_and_stop},
        {"session_keeps_system_file_in_output_dir", session_keeps_system_file_in_output_dir},
        {NULL, NULL}};
    rtc_test_add_suite("stop", setup, teardown, cases);
}
