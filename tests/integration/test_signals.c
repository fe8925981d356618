/*
 * Every way the process can end goes through the stop path (issue 19, outcome 5), driven
 * as a user would, with the signal dispositions a shell leaves (proc_util.h):
 *   - a file-size limit (RLIMIT_FSIZE set in the child before exec, as `ulimit -f` or
 *     systemd LimitFSIZE do; SIGXFSZ at its default action): a write error, exit 4;
 *   - a reader that closes the output pipe early (`run FMU -o - | head -2`; SIGPIPE at its
 *     default action): a write error, exit 4;
 *   - SIGHUP stops a real-time run (129), unless it was ignored from the start (nohup);
 *   - a summary.json that cannot be written is not named by the final line, exit 4;
 *   - a unit that ends the simulation at its initial event: `run FMU` and `run SYSTEM`
 *     (fast and real time) agree — completed, exit 0, the start's row recorded.
 * Each case checks the one line naming the file or cause, the exit status of the README's
 * table, whole rows, summary.json and its row counts (rows_written: rows in the file;
 * rows_lost: rows a write error kept out of it). No temporary directory survives.
 */
#include "cu_main.h"
#include "fmu_util.h"
#include "proc_util.h"

#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

RTC_TEST_CHILD_FIXTURE /* tmp, work, child, setup, teardown (proc_util.h) */

static char *path_of(const char *rel)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, rel);
    return path;
}

/* WORK/child.log: the child's stderr (and stdout unless piped). */
static char *child_log(void)
{
    char *log = rtc_test_slurp(path_of("child.log"), NULL);
    return log ? log : strdup("");
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* WORK/REL parsed (NULL when missing or not JSON). */
static json_t *summary(const char *rel)
{
    json_error_t err;
    return json_load_file(path_of(rel), 0, &err);
}

static long long jint(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? json_integer_value(v) : -1;
}

static const char *jstr(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* The outcome every write error shares: status, cause, exit code in summary.json. */
static void assert_write_failed(const json_t *s, const char *reason)
{
    CU_ASSERT_STRING_EQUAL(jstr(s, "status"), "failed");
    CU_ASSERT_STRING_EQUAL(jstr(s, "cause"), "write");
    CU_ASSERT_EQUAL(jint(s, "exit_code"), 4);
    CU_ASSERT_PTR_NOT_NULL(strstr(jstr(s, "reason"), reason));
}

/* ---- a file-size limit: SIGXFSZ as a shell leaves it ---- */

/* `ulimit -f 2048` (2 MiB, above any extracted FMU binary) against a 12 MB run, once with
 * the default --on-write-error stop and once with continue: one line naming the file,
 * exit 4, whole rows, and rows_written = the rows a reader finds in the file; the rows
 * the limit kept out are counted as lost (continue: every row is one or the other). */
static void file_size_limit_is_a_write_error_rows_counted(void)
{
    rtc_test_child c = child;
    c.fsize_bytes = 2048 * 1024;
    for (int cont = 0; cont < 2; cont++) {
        pid_t pid = rtc_test_spawn(&c, "run %s --stop 30 --step 0.0001 -o big.csv%s",
                                   tfmu_path(2, "Decay"),
                                   cont ? " --on-write-error continue" : "");
        CU_ASSERT_EQUAL(rtc_test_wait_exit(pid), 4); /* not 1000 + SIGXFSZ */
        char *log = child_log();
        CU_ASSERT_EQUAL(count(log, "big.csv: write failed: File too large"), 1);
        long rows = tcsv_whole_rows(path_of("big.csv"));
        CU_ASSERT(rows > 1000 && rows < 300001);
        json_t *s = summary("summary.json");
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        assert_write_failed(s, "write error: big.csv: File too large");
        CU_ASSERT_EQUAL(jint(s, "rows_written"), rows);
        CU_ASSERT(jint(s, "rows_lost") > 0); /* at least the row the limit cut */
        if (cont) /* it ran to the end: each of the 300 001 rows is in the file or lost */
            CU_ASSERT_EQUAL(jint(s, "rows_written") + jint(s, "rows_lost"), 300001);
        char want[200];
        snprintf(want, sizeof want, "rtcosim run: failed: %ld row(s) in big.csv (%lld lost)",
                 rows, jint(s, "rows_lost"));
        CU_ASSERT_PTR_NOT_NULL(strstr(log, want));
        json_decref(s);
        free(log);
        CU_ASSERT_EQUAL(rtc_test_entries(tmp), 0);
    }
}

/* ---- the output pipe closed by its reader: SIGPIPE as a shell leaves it ---- */

/* `rtcosim run FMU -o - | head -2`: the reader takes the header and one row and goes away;
 * the next write fails with EPIPE instead of killing the process (141): one line naming
 * standard output, exit 4, summary.json (asked for with --summary) saying so. */
static void closed_output_pipe_is_a_write_error(void)
{
    int fds[2];
    CU_ASSERT_EQUAL_FATAL(pipe2(fds, O_CLOEXEC), 0); /* the child keeps no read end open */
    rtc_test_child c = child;
    c.out_fd = fds[1];
    pid_t pid = rtc_test_spawn(&c, "run %s --stop 100 --step 0.001 -o - --summary pipe.json",
                               tfmu_path(3, "Decay"));
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    char line[256];
    int got = 0; /* 100 000 rows are far more than the pipe holds: it is still running */
    while (got < 2 && fgets(line, sizeof line, in))
        got++;
    CU_ASSERT_EQUAL(got, 2);
    fclose(in); /* as head does after two lines */
    CU_ASSERT_EQUAL(rtc_test_wait_exit(pid), 4); /* not 1000 + SIGPIPE */
    char *log = child_log();
    CU_ASSERT_EQUAL(count(log, "standard output: write failed: Broken pipe"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "rtcosim run: failed: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "row(s) on standard output"));
    json_t *s = summary("pipe.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    assert_write_failed(s, "write error: standard output: Broken pipe");
    CU_ASSERT(jint(s, "rows_written") >= 1); /* the row read, at least */
    CU_ASSERT(jint(s, "rows_lost") > 0);
    json_decref(s);
    free(log);
    CU_ASSERT_EQUAL(rtc_test_entries(tmp), 0);
}

/* ---- SIGHUP under nohup ---- */

/* A real-time run in WORK/DIR (SIGHUP ignored from the start: @p nohup) gets SIGHUP once it
 * runs; with nohup it must go on stepping, and SIGTERM ends it. Returns the exit status. */
static int hup_realtime_run(const char *dir, bool nohup)
{
    rtc_test_child c = child;
    c.hup_ignored = nohup;
    pid_t pid = rtc_test_spawn(&c, "run %s/msd-jacobi.ssp --realtime --stop 100000 "
                               "--output-dir %s", RTC_TEST_CONFIG_DIR, dir);
    char trace[64];
    snprintf(trace, sizeof trace, "%.8s/latency.csv", dir);
    CU_ASSERT_TRUE(rtc_test_wait_lines(path_of(trace), 20));
    kill(pid, SIGHUP);
    if (nohup) {
        long seen = rtc_test_lines(path_of(trace));
        CU_ASSERT_TRUE(rtc_test_wait_lines(path_of(trace), seen + 20)); /* steps on */
        kill(pid, SIGTERM);
    }
    return rtc_test_wait_exit(pid);
}

/* SIGHUP (the terminal went away) stops a real-time run like SIGTERM, exit 129 — but one
 * ignored when rtcosim starts (nohup, a supervisor that wants it so) stays ignored. */
static void sighup_stops_unless_ignored_from_the_start(void)
{
    CU_ASSERT_EQUAL(hup_realtime_run("h", false), 129);
    CU_ASSERT_EQUAL(hup_realtime_run("n", true), 143);
    static const char *const want[] = {"stopped by SIGHUP", "stopped by SIGTERM"};
    static const char *const dirs[] = {"h/summary.json", "n/summary.json"};
    for (int i = 0; i < 2; i++) {
        json_t *s = summary(dirs[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        CU_ASSERT_STRING_EQUAL(jstr(s, "reason"), want[i]);
        json_decref(s);
    }
    CU_ASSERT_EQUAL(rtc_test_entries(tmp), 0);
}

/* ---- a summary the disk refuses ---- */

/* summary.json cannot be written (here: a directory holds its name, so the rename over it
 * fails — the same failed whole-file write a full disk gives, without filling one): the
 * error is one line, the final line names no summary, and the otherwise completed run
 * exits 4, so a script does not take a missing summary for success. */
static void summary_not_written_is_not_named(void)
{
    CU_ASSERT_EQUAL_FATAL(mkdir(path_of("d"), 0755), 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(path_of("d/summary.json"), 0755), 0);
    pid_t pid = rtc_test_spawn(&child, "run %s/msd-jacobi.ssp --stop 0.5 --output-dir d",
                               RTC_TEST_CONFIG_DIR);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(pid), 4);
    char *log = child_log();
    CU_ASSERT_EQUAL(count(log, "d/summary.json: write failed"), 2); /* the error, the reason */
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "rtcosim run: failed: 51 row(s) in d/results.csv ("));
    CU_ASSERT_PTR_NULL(strstr(log, "summary d/summary.json"));
    CU_ASSERT_EQUAL(tcsv_whole_rows(path_of("d/results.csv")), 51);
    CU_ASSERT_EQUAL(rtc_test_entries(path_of("d/summary.json")), 0);
    CU_ASSERT_EQUAL(count(log, "\n"), 2);
    free(log);
    CU_ASSERT_EQUAL(rtc_test_entries(tmp), 0);
}

/* ---- a unit that ends the simulation at its initial event ---- */

/* A system of one FMU "u" (@p fmu, output connector @p out of SSP type @p type) with the
 * Int32 parameter @p param = @p value, run 0..3 s. */
static void write_unit_ssd(const char *rel, const char *fmu, const char *out, const char *type,
                           const char *param, int value)
{
    char p[200];
    snprintf(p, sizeof p, "<ssv:Parameter name=\"%.40s\"><ssv:Integer value=\"%d\"/>"
             "</ssv:Parameter>", param, value);
    tfmu_write_param_system(path_of(rel), "u", fmu, out, type, p, "", "3");
}

/* Give component "u" of the system at @p rel the rtc:Component attribute @p attr (e.g.
 * event_mode="on"). */
static void component_annotation(const char *rel, const char *attr)
{
    char *ssd = rtc_test_slurp(path_of(rel), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ssd);
    char *end = strstr(ssd, "</ssd:Component>");
    CU_ASSERT_PTR_NOT_NULL_FATAL(end);
    FILE *f = fopen(path_of(rel), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "%.*s<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\">"
            "<rtc:Component %s/></ssc:Annotation></ssd:Annotations>%s",
            (int)(end - ssd), ssd, attr, end);
    fclose(f);
    free(ssd);
}

/* The run in WORK/DIR ended at its start: exit 0, completed, the one row at t = 0. */
static void assert_ended_at_start(int rc, const char *csv, const char *json)
{
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(tcsv_whole_rows(path_of(csv)), 1);
    json_t *s = summary(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_STRING_EQUAL(jstr(s, "status"), "completed");
    CU_ASSERT_EQUAL(jint(s, "exit_code"), 0);
    CU_ASSERT_EQUAL(jint(s, "rows_written"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(jstr(s, "reason"), "initial event"));
    char *log = child_log();
    CU_ASSERT_PTR_NULL(strstr(log, "error")); /* a request of the model, not a failure */
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "rtcosim run: completed: 1 row(s)"));
    free(log);
    json_decref(s);
    CU_ASSERT_EQUAL(rtc_test_entries(tmp), 0);
}

static int run_child(const char *args)
{
    return rtc_test_wait_exit(rtc_test_spawn(&child, "%s", args));
}

/* FMI 3 terminateSimulation from the initial event, through both of fmu-host's paths:
 * Events (Co-Simulation in event mode, asked for: terminate_at = 0) and Stair (Model
 * Exchange, counter_max = 1). `run FMU` and `run SYSTEM`, fast and in real time, give the same. */
static void unit_ending_at_initial_event_same_status_everywhere(void)
{
    static const struct {
        const char *name, *out, *type, *param;
        int value;
        const char *fmu_opt, *attr; /* how each path is asked for Event Mode, or "" */
    } units[] = {{"Events", "x", "Real", "terminate_at", 0, " --event-mode on",
                  "event_mode=\"on\""},
                 {"Stair", "counter", "Integer", "counter_max", 1, "", ""}};
    for (size_t i = 0; i < 2; i++) {
        char fmu[1024], args[2048];
        snprintf(fmu, sizeof fmu, "%s", tfmu_path(3, units[i].name));
        snprintf(args, sizeof args, "run %s --set %s=%d -o f.csv%s", fmu, units[i].param,
                 units[i].value, units[i].fmu_opt);
        assert_ended_at_start(run_child(args), "f.csv", "summary.json");
        write_unit_ssd("end.ssd", fmu, units[i].out, units[i].type, units[i].param,
                       units[i].value);
        if (*units[i].attr)
            component_annotation("end.ssd", units[i].attr);
        assert_ended_at_start(run_child("run end.ssd --step 0.1 --output-dir sf"),
                              "sf/results.csv", "sf/summary.json");
        assert_ended_at_start(run_child("run end.ssd --step 0.1 --realtime --output-dir sr "
                                        "--test-safe-file sr/safe"),
                              "sr/results.csv", "sr/summary.json");
        char *safe = rtc_test_slurp(path_of("sr/safe"), NULL);
        CU_ASSERT(safe && !strcmp(safe, "safe\n")); /* the stop path ran */
        free(safe);
        unlink(path_of("sr/safe"));
    }
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"file_size_limit_is_a_write_error_rows_counted",
         file_size_limit_is_a_write_error_rows_counted},
        {"closed_output_pipe_is_a_write_error", closed_output_pipe_is_a_write_error},
        {"sighup_stops_unless_ignored_from_the_start",
         sighup_stops_unless_ignored_from_the_start},
        {"summary_not_written_is_not_named", summary_not_written_is_not_named},
        {"unit_ending_at_initial_event_same_status_everywhere",
         unit_ending_at_initial_event_same_status_everywhere},
        {NULL, NULL}};
    rtc_test_add_suite("signals", setup, teardown, cases);
}
