/*
 * Every stop is a clean stop (issue 10, bullets 2, 4 and 5), driven as a user would:
 * SIGINT/SIGTERM of `run FMU`, of a fast system run and of a real-time run; a unit hung
 * in its step; the default watchdog; extraction directories a killed process left behind;
 * non-finite outputs (warn and stop); a system file that lies in the output folder.
 *
 * Each rtcosim runs as a child with TMPDIR pointing at a private directory that must be
 * empty once it has ended: no rtcosim-fmu-* (or any other) temporary directory survives
 * any of these stops. Waits are on events (a file growing, the child's exit) with
 * generous timeouts; nothing asserts a duration.
 */
#include "cu_main.h"
#include "fmu_util.h"

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

static char tmp[512];   /* TMPDIR of the children */
static char work[512];  /* their output */
static char out[65536]; /* captured output of rtc_test_run */

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

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* Start "rtcosim ARGS" (split on spaces) in WORK with the private TMPDIR; output to
 * WORK/child.log. */
static pid_t spawn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static pid_t spawn(const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char *argv[64];
    int n = 0;
    argv[n++] = (char *)RTCOSIM_EXE;
    for (char *save = NULL, *t = strtok_r(line, " ", &save); t && n < 63;
         t = strtok_r(NULL, " ", &save))
        argv[n++] = t;
    argv[n] = NULL;
    char log[700];
    snprintf(log, sizeof log, "%s/child.log", work);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        if (chdir(work) != 0 || setenv("TMPDIR", tmp, 1) != 0)
            _exit(127);
        execv(RTCOSIM_EXE, argv);
        _exit(127);
    }
    return pid;
}

/* Wait until WORK/REL has at least @p lines newline characters (30 s at most). */
static bool wait_lines(const char *rel, long lines)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", work, rel);
    for (int i = 0; i < 3000; i++) {
        size_t n = 0;
        char *text = rtc_test_slurp(path, &n);
        long count = 0;
        for (size_t k = 0; text && k < n; k++)
            count += text[k] == '\n';
        free(text);
        if (count >= lines)
            return true;
        nap_ms(10);
    }
    return false;
}

/* The child's exit status (1000 + signal if killed by one), waiting up to 60 s; -1 on timeout
 * (the child is then killed). */
static int wait_exit(pid_t pid)
{
    int st;
    for (int i = 0; i < 6000; i++) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
        nap_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
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
    pid_t pid = spawn("run %s --stop 1000000 --step 0.001 -o r.csv", tfmu_path(2, "Decay"));
    CU_ASSERT_TRUE(wait_lines("r.csv", 2));
    kill(pid, sig);
    CU_ASSERT_EQUAL(wait_exit(pid), code);
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
    pid_t pid = spawn("run %s/msd-jacobi.ssp --stop 100000 --output-dir s%s", RTC_TEST_CONFIG_DIR,
                      realtime ? " --realtime" : "");
    /* real time: the monitor flushes latency.csv as steps go; fast: rows fill the CSV */
    CU_ASSERT_TRUE(wait_lines(realtime ? "s/latency.csv" : "s/results.csv", 20));
    kill(pid, sig);
    CU_ASSERT_EQUAL(wait_exit(pid), code);
    assert_complete_rows("s/results.csv");
    assert_summary("s/summary.json", "stopped", name);
    char *s = slurp("s/summary.json");
    char want[64];
    snprintf(want, sizeof want, "\"exit_code\": %d", code);
    CU_ASSERT(s && strstr(s, want));
    free(s);
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

/* ---- a unit hung in its step; the watchdog ---- */

/* A Fault unit "f" with base step @p step_s whose step at 0.5 s sleeps 1000 s. */
static void write_hang_ssd(const char *name, double step_s)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", work, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f,
            "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" name=\"t\" "
            "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
            "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "
            "xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\" "
            "xmlns:rtc=\"urn:rtcosim:realtime:1\">\n<ssd:System name=\"s\">\n<ssd:Elements>\n"
            "<ssd:Component name=\"f\" source=\"%s/fmi2/Fault.fmu\">\n<ssd:Connectors>"
            "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real/></ssd:Connector>"
            "</ssd:Connectors>\n<ssd:ParameterBindings><ssd:ParameterBinding>"
            "<ssd:ParameterValues><ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters>"
            "<ssv:Parameter name=\"mode\"><ssv:Integer value=\"5\"/></ssv:Parameter>"
            "<ssv:Parameter name=\"t_fault\"><ssv:Real value=\"0.5\"/></ssv:Parameter>"
            "<ssv:Parameter name=\"sleep_s\"><ssv:Real value=\"1000\"/></ssv:Parameter>"
            "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding>"
            "</ssd:ParameterBindings>\n</ssd:Component>\n</ssd:Elements>\n<ssd:Annotations>"
            "<ssc:Annotation type=\"org.rtcosim.realtime\"><rtc:RealTime baseStep=\"%g\"/>"
            "</ssc:Annotation></ssd:Annotations>\n</ssd:System>\n<ssd:DefaultExperiment "
            "startTime=\"0\" stopTime=\"100\"/>\n</ssd:SystemStructureDescription>\n",
            RTC_TEST_FMU_DIR, step_s);
    fclose(f);
}

/* SIGTERM while f sleeps in its step (the watchdog off): the run still ends — after the
 * grace — with the safe state, the rows before the hang, a summary naming f, and no
 * temporary directory left. */
static void hung_unit_sigterm_ends_after_grace(void)
{
    write_hang_ssd("hang.ssd", 0.05);
    pid_t pid = spawn("run hang.ssd --realtime --watchdog-ms 0 --output-dir h "
                      "--test-safe-file h/safe");
    /* header + ticks 0..9 in the latency trace: tick 10 (t = 0.5 s, the hang) has begun */
    CU_ASSERT_TRUE(wait_lines("h/latency.csv", 11));
    nap_ms(200);
    kill(pid, SIGTERM);
    CU_ASSERT_EQUAL(wait_exit(pid), 143);
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
    pid_t pid = spawn("run hang.ssd --realtime --overrun substitute --output-dir hs "
                      "--test-safe-file hs/safe");
    CU_ASSERT_TRUE(wait_lines("hs/latency.csv", 16)); /* ticks past the hang at 10 */
    kill(pid, SIGTERM);
    CU_ASSERT_EQUAL(wait_exit(pid), 143);
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
    pid_t pid = spawn("run hang10.ssd --realtime --output-dir w --test-safe-file w/safe");
    CU_ASSERT_EQUAL(wait_exit(pid), 3);
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
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "completed with 2 non-finite value(s)"));
    assert_summary("summary.json", "completed-nonfinite", "\"nonfinite_values\": 2");
    CU_ASSERT_EQUAL(run("run '%s' --set k=nan -o nf.csv --on-nonfinite stop", decay), 1);
    assert_summary("summary.json", "failed", "\"cause\": \"nonfinite\"");
    CU_ASSERT_EQUAL(run("run '%s' --on-nonfinite maybe", decay), 2);
}

/* A Decay unit "d" with k = NaN, 10 ms steps for 0.5 s. */
static void write_nan_ssd(void)
{
    char path[700];
    snprintf(path, sizeof path, "%s/nan.ssd", work);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f,
            "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" name=\"t\" "
            "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
            "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "
            "xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\">\n"
            "<ssd:System name=\"s\">\n<ssd:Elements>\n"
            "<ssd:Component name=\"d\" source=\"%s/fmi2/Decay.fmu\">\n<ssd:Connectors>"
            "<ssd:Connector name=\"x\" kind=\"output\"><ssc:Real/></ssd:Connector>"
            "</ssd:Connectors>\n<ssd:ParameterBindings><ssd:ParameterBinding>"
            "<ssd:ParameterValues><ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters>"
            "<ssv:Parameter name=\"k\"><ssv:Real value=\"nan\"/></ssv:Parameter>"
            "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding>"
            "</ssd:ParameterBindings>\n</ssd:Component>\n</ssd:Elements>\n</ssd:System>\n"
            "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"0.5\"/>\n"
            "</ssd:SystemStructureDescription>\n", RTC_TEST_FMU_DIR);
    fclose(f);
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
    snprintf(cmd, sizeof cmd, "cd '%s' && mkdir -p demo && sed 's/value=\"nan\"/value=\"1\"/' "
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
