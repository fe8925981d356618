/*
 * The link contract (issue 19, DESIGN.md T2) with the real engine and the real bench
 * simulator, on the README's main job (configs/hil-demo as scripts/demo runs it, the
 * operator's OSC port left to the OS):
 *   - nothing listens on the bench port: the run is refused at its connect deadline
 *     (exit 6), the reason names the component, its address and the error, no tick ran;
 *   - the bench is killed mid-run (kill -9): the run stops by the loss policy
 *     (estimate:0.5s, exit 6), the rows so far kept and the outage in summary.json;
 *   - under on_loss=continue the bench killed and started again: the link comes back,
 *     every tick is recorded, and the run ends "degraded" (exit 7);
 *   - two busy loops beside the demo (started, bounded and stopped by the test): the
 *     bench link neither reconnects nor goes stale.
 * Every wait is for an event (a line in a file, a process exit), bounded generously.
 */
#include "cu_main.h"
#include "fmu_util.h"
#include "io_util.h"

#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define STAGE RTC_TEST_CONFIG_DIR "/stage/hil-demo"
#define EVENT_MS 30000 /* an event a test waits for: generous, the machine may be busy */

static char work[512];

static int setup(void)
{
    rtc_test_tmpdir(work, sizeof work);
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

static int teardown(void)
{
    rtc_test_rmtree(work);
    return 0;
}

/* Replace every @p from in @p s (malloc'd) by @p to; returns the new string. */
static char *replace(char *s, const char *from, const char *to)
{
    size_t n = 0, lf = strlen(from), lt = strlen(to);
    for (const char *p = s; (p = strstr(p, from)) != NULL; p += lf)
        n++;
    char *out = malloc(strlen(s) + n * lt + 1), *o = out;
    const char *p = s, *q;
    while ((q = strstr(p, from)) != NULL) {
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, lt);
        o += lt;
        p = q + lf;
    }
    strcpy(o, p);
    free(s);
    return out;
}

/* WORK/NAME.ssd: the hil-demo system as scripts/demo writes it — the bench on
 * 127.0.0.1:@p bench_port, the FMUs from the build's stage, the operator's OSC port 0 —
 * with on_loss=@p on_loss when given. */
static void write_demo(const char *name, int bench_port, const char *on_loss)
{
    char *s = rtc_test_slurp(STAGE "/SystemStructure.ssd", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    char port[32], policy[64], path[700];
    snprintf(port, sizeof port, "port=\"%d\"", bench_port);
    s = replace(s, "port=\"1503\"", port);
    s = replace(s, "port=\"9000\"", "port=\"0\"");
    s = replace(s, "resources/", STAGE "/resources/");
    if (on_loss) {
        snprintf(policy, sizeof policy, "on_loss=\"%s\"", on_loss);
        s = replace(s, "on_loss=\"estimate:0.5s\"", policy);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(s, port));
    snprintf(path, sizeof path, "%s/%s.ssd", work, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(s, f);
    fclose(f);
    free(s);
}

/* rtcosim-bench-sim on @p port ("0": any) as the demo starts it; returns its port. */
static int spawn_bench(io_child *sim, const char *port)
{
    char *argv[] = {RTC_BENCH_SIM_EXE, "--port", (char *)port, "--noise", "0.002",
                    "--delay-ms", "2", "--duration", "120", NULL};
    char line[256];
    if (io_child_spawn(sim, argv, true) != 0 ||
        !io_child_line(sim, "rtcosim-bench-sim: listening on", line, sizeof line, EVENT_MS))
        return -1;
    return atoi(strrchr(line, ':') + 1);
}

/* `rtcosim run NAME.ssd --realtime EXTRA --output-dir NAME` in the background, its output
 * in NAME.log. */
static void start_run(io_child *run, const char *name, const char *extra)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && exec '%s' run %s.ssd --realtime %s --output-dir %s "
             "> %s.log 2>&1", work, RTCOSIM_EXE, name, extra, name, name);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    CU_ASSERT_EQUAL_FATAL(io_child_spawn(run, argv, false), 0);
}

/* Its exit status once it ended (up to a minute; then it is killed: 128 + 9). */
static int wait_exit(io_child *run)
{
    int st = 0;
    for (int i = 0; i < 6000; i++) {
        if (waitpid(run->pid, &st, WNOHANG) == run->pid) {
            close(run->out_fd);
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        io_sleep_ms(10);
    }
    return io_child_kill(run, SIGKILL) == 0 ? -1 : 128 + SIGKILL;
}

typedef struct file_wait {
    char path[800];
    const char *needle;
    long min_lines;
} file_wait;

static bool file_ready(void *arg)
{
    file_wait *w = arg;
    size_t n = 0;
    char *t = rtc_test_slurp(w->path, &n);
    bool ok = t && (!w->needle || strstr(t, w->needle));
    long lines = 0;
    for (size_t i = 0; t && i < n; i++)
        lines += t[i] == '\n';
    free(t);
    return ok && lines >= w->min_lines;
}

/* Wait until WORK/DIR/FILE holds @p needle (NULL: anything) and @p min_lines lines. */
static bool wait_file(const char *dir, const char *file, const char *needle, long min_lines)
{
    file_wait w = {.needle = needle, .min_lines = min_lines};
    snprintf(w.path, sizeof w.path, "%s/%s/%s", work, dir, file);
    return io_wait(file_ready, &w, EVENT_MS);
}

static bool file_has(const char *dir, const char *file, const char *needle)
{
    file_wait w = {.needle = needle};
    snprintf(w.path, sizeof w.path, "%s/%s/%s", work, dir, file);
    return file_ready(&w);
}

static json_t *summary_of(const char *dir)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s/summary.json", work, dir);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j)
        printf("\n    %s: %s", path, err.text);
    return j;
}

/* The "links" entry of @p component. */
static json_t *link_of(json_t *sum, const char *component)
{
    json_t *links = json_object_get(sum, "links");
    for (size_t i = 0; i < json_array_size(links); i++) {
        json_t *l = json_array_get(links, i);
        if (!strcmp(json_string_value(json_object_get(l, "component")), component))
            return l;
    }
    return NULL;
}

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static long long num(json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}

/* ---- nothing listens on the bench port ---- */

static void main_job_without_bench_is_refused_at_its_deadline(void)
{
    int port = io_free_port(SOCK_STREAM); /* free a moment ago: nothing listens there */
    CU_ASSERT_FATAL(port > 0);
    write_demo("absent", port, NULL);
    char cmd[2048], out[8192], want[256];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' run absent.ssd --realtime --stop 3 "
             "--output-dir absent", work, RTCOSIM_EXE);
    int rc = rtc_test_run(cmd, out, sizeof out);
    CU_ASSERT_EQUAL(rc, 6);
    snprintf(want, sizeof want, "I/O component bench (modbus-client 127.0.0.1:%d) not up "
             "within connect_ms=2000: Connection refused; the run did not start", port);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "rtcosim run: failed: 0 row(s)"));
    CU_ASSERT_PTR_NULL(strstr(out, "wake-up p99")); /* it never ticked: no timing to tell */
    /* the bench never reached was sent nothing: its safe values are tried once, one line */
    const char *safe = strstr(out, "safe values not written");
    CU_ASSERT_PTR_NULL(safe ? strstr(safe + 1, "safe values not written") : NULL);
    if (rc != 6 || !strstr(out, want))
        printf("\n    %s", out);
    json_t *sum = summary_of("absent");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    CU_ASSERT_STRING_EQUAL(str(sum, "status"), "failed");
    CU_ASSERT_STRING_EQUAL(str(sum, "cause"), "link");
    CU_ASSERT_STRING_EQUAL(str(sum, "link"), "bench");
    CU_ASSERT_STRING_EQUAL(str(sum, "reason"), want);
    CU_ASSERT_EQUAL(num(sum, "exit_code"), 6);
    CU_ASSERT_EQUAL(num(sum, "last_tick"), 0); /* refused before t0 */
    CU_ASSERT_EQUAL(num(sum, "rows_written"), 0);
    json_t *b = link_of(sum, "bench");
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_STRING_EQUAL(str(b, "state"), "connecting");
    CU_ASSERT_STRING_EQUAL(str(b, "error"), "Connection refused");
    CU_ASSERT_TRUE(json_is_true(json_object_get(b, "required")));
    CU_ASSERT_TRUE(json_is_null(json_object_get(b, "first_connect_s")));
    json_t *op = link_of(sum, "operator"); /* optional: no reason to wait for it */
    CU_ASSERT_PTR_NOT_NULL(op);
    CU_ASSERT_TRUE(json_is_false(json_object_get(op, "required")));
    json_decref(sum);
    CU_ASSERT_TRUE(file_has("absent", "events.log",
                            "waiting for I/O component bench to connect before the first tick"));
    CU_ASSERT_TRUE(file_has("absent", "events.log", want)); /* why, where the operator looks */
    CU_ASSERT_TRUE(file_has("absent", "results.csv", "\"time\""));
    char path[800];
    snprintf(path, sizeof path, "%s/absent/results.csv", work);
    size_t n = 0;
    char *csv = rtc_test_slurp(path, &n);
    CU_ASSERT_TRUE(csv && n > 0 && memchr(csv, '\n', n) == csv + n - 1); /* the header only */
    free(csv);
}

/* ---- the bench dies ---- */

/* Start the demo against a fresh bench and wait until it drives it: the link is up and
 * rows are recorded. Returns the bench's port. */
static int drive_demo(io_child *sim, io_child *run, const char *name, const char *on_loss,
                      const char *stop)
{
    int port = spawn_bench(sim, "0");
    CU_ASSERT_FATAL(port > 0);
    write_demo(name, port, on_loss);
    char extra[64];
    snprintf(extra, sizeof extra, "--stop %s", stop);
    start_run(run, name, extra);
    CU_ASSERT_TRUE_FATAL(wait_file(name, "events.log", "modbus-client 'bench': link up after",
                                   0));
    CU_ASSERT_TRUE_FATAL(wait_file(name, "results.csv", NULL, 201)); /* 200 rows */
    return port;
}

static void bench_killed_mid_run_stops_by_its_loss_policy(void)
{
    io_child sim, run;
    int port = drive_demo(&sim, &run, "killed", NULL, "60");
    io_child_kill(&sim, SIGKILL);
    int rc = wait_exit(&run);
    CU_ASSERT_EQUAL(rc, 6);
    json_t *sum = summary_of("killed");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    char want[200];
    snprintf(want, sizeof want, "I/O component bench (modbus-client 127.0.0.1:%d) lost its "
             "link (", port);
    CU_ASSERT_STRING_EQUAL(str(sum, "status"), "failed");
    CU_ASSERT_STRING_EQUAL(str(sum, "cause"), "link");
    CU_ASSERT_STRING_EQUAL(str(sum, "link"), "bench");
    CU_ASSERT_PTR_NOT_NULL(strstr(str(sum, "reason"), want));
    CU_ASSERT_PTR_NOT_NULL(strstr(str(sum, "reason"), "on_loss estimate:0.5s stopped the run"));
    if (rc != 6)
        printf("\n    reason: %s", str(sum, "reason"));
    json_t *b = link_of(sum, "bench");
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    json_t *out = json_object_get(b, "outages");
    CU_ASSERT_EQUAL(num(out, "count"), 1);
    CU_ASSERT_TRUE(json_real_value(json_object_get(out, "total_s")) >= 0.5); /* T ran out */
    CU_ASSERT_STRING_EQUAL(str(b, "state"), "lost");
    CU_ASSERT_TRUE(json_real_value(json_object_get(b, "first_connect_s")) > 0);
    CU_ASSERT_TRUE(json_is_true(json_object_get(b, "derived"))); /* no timeout_ms in it */
    CU_ASSERT_TRUE(json_real_value(json_object_get(b, "rtt_connect_ms")) > 0);
    /* the rows up to the stop are kept, whole */
    long long rows = num(sum, "rows_written");
    CU_ASSERT_TRUE(rows >= 200);
    CU_ASSERT_TRUE(num(sum, "last_tick") >= 200);
    json_decref(sum);
    char path[800];
    snprintf(path, sizeof path, "%s/killed/results.csv", work);
    tcsv c;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
    CU_ASSERT_EQUAL((long long)c.n_rows, rows);
    tcsv_free(&c);
    /* events.log: the loss, then the stop; the stop path tried the safe values */
    CU_ASSERT_TRUE(file_has("killed", "events.log", "modbus-client 'bench': link lost (127.0.0.1:"));
    CU_ASSERT_TRUE(file_has("killed", "events.log", "lost its link past its on_loss policy"));
    CU_ASSERT_TRUE(file_has("killed", "events.log", "safe values not written"));
}

static void bench_back_under_continue_ends_degraded(void)
{
    io_child sim, run;
    int port = drive_demo(&sim, &run, "back", "continue", "8");
    io_child_kill(&sim, SIGKILL);
    CU_ASSERT_TRUE(wait_file("back", "events.log", "modbus-client 'bench': link lost", 0));
    char p[16];
    snprintf(p, sizeof p, "%d", port);
    CU_ASSERT_EQUAL_FATAL(spawn_bench(&sim, p), port); /* the same port: a rebooted bench */
    CU_ASSERT_TRUE(wait_file("back", "events.log", "modbus-client 'bench': link back after", 0));
    int rc = wait_exit(&run);
    io_child_kill(&sim, SIGTERM);
    CU_ASSERT_EQUAL(rc, 7);
    json_t *sum = summary_of("back");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    CU_ASSERT_STRING_EQUAL(str(sum, "status"), "degraded");
    CU_ASSERT_STRING_EQUAL(str(sum, "cause"), "end");
    CU_ASSERT_EQUAL(num(sum, "exit_code"), 7);
    CU_ASSERT_PTR_NOT_NULL(strstr(str(sum, "reason"), "reached the stop time degraded: I/O "
                                                      "component bench"));
    json_t *b = link_of(sum, "bench");
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_TRUE(num(json_object_get(b, "outages"), "count") >= 1); /* the kill, at least */
    CU_ASSERT_TRUE(num(b, "reconnects") >= 1);
    CU_ASSERT_STRING_EQUAL(str(b, "state"), "up");
    CU_ASSERT_STRING_EQUAL(str(b, "on_loss"), "continue");
    double share = json_real_value(json_object_get(b, "connected_share"));
    CU_ASSERT_TRUE(share > 0 && share < 1);
    json_decref(sum);
    /* every tick recorded, in order: the time column has no gap */
    char path[800];
    snprintf(path, sizeof path, "%s/back/results.csv", work);
    tcsv c;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
    CU_ASSERT_EQUAL(c.n_rows, 8001);
    int gaps = 0;
    for (size_t r = 0; r < c.n_rows; r++)
        gaps += fabs(tcsv_at(&c, r, 0) - (double)r / 1000.0) > 1e-9;
    CU_ASSERT_EQUAL(gaps, 0);
    tcsv_free(&c);
}

/* ---- a busy machine ---- */

/* A CPU hog: a child spinning until killed, or for @p max_s seconds at most. */
static pid_t busy_loop(unsigned max_s)
{
    pid_t pid = fork();
    if (pid == 0) {
        alarm(max_s); /* bounded even if the test dies */
        for (volatile unsigned long x = 0;; x++) {
        }
    }
    return pid;
}

static void stop_busy_loop(pid_t pid)
{
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
}

/* The demo as scripts/demo runs it (the bench behind a fault proxy adding 5 +- 2 ms each
 * way) with two busy loops on the machine's cores: the bench link does not reconnect,
 * because its timeouts fit the round trip it measured and a late answer is a late sample,
 * not a lost connection. (With timeout_ms="18" and a reconnect on every timeout, as
 * before, it reconnected 16 and 92 times in two such runs of 8 s.) The bench and the
 * proxy run SCHED_FIFO 50 where allowed, as scripts/demo runs them: they stand in for a
 * device and a network with processors of their own, which the busy loops (and the other
 * tests running beside this one) would otherwise starve for longer than any link's loss
 * time — a failure of this machine, not of the link. */
static void demo_under_two_busy_loops_does_not_flap(void)
{
    io_child sim, px;
    int bench = spawn_bench(&sim, "0");
    CU_ASSERT_FATAL(bench > 0);
    io_child_realtime(&sim, 50);
    char target[64], line[256];
    snprintf(target, sizeof target, "127.0.0.1:%d", bench);
    char *argv[] = {RTC_FAULT_PROXY_EXE, "--listen", "127.0.0.1:0", "--target", target,
                    "--delay-ms", "5", "--jitter-ms", "2", "--duration", "120", NULL};
    CU_ASSERT_EQUAL_FATAL(io_child_spawn(&px, argv, true), 0);
    io_child_realtime(&px, 50);
    CU_ASSERT_TRUE_FATAL(io_child_line(&px, "rtcosim-fault-proxy: listening on", line,
                                       sizeof line, EVENT_MS));
    write_demo("loaded", atoi(strrchr(line, ':') + 1), NULL);
    pid_t hog1 = busy_loop(120), hog2 = busy_loop(120);
    char cmd[2048], out[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' run loaded.ssd --realtime --stop 8 "
             "--output-dir loaded", work, RTCOSIM_EXE);
    int rc = rtc_test_run(cmd, out, sizeof out);
    stop_busy_loop(hog1);
    stop_busy_loop(hog2);
    io_child_kill(&px, SIGTERM);
    io_child_kill(&sim, SIGTERM);
    CU_ASSERT_EQUAL(rc, 0);
    json_t *sum = summary_of("loaded");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    json_t *io = json_object_get(sum, "io"), *bu = NULL;
    long long stale = 0;
    for (size_t i = 0; i < json_array_size(io); i++) {
        json_t *u = json_array_get(io, i), *sigs = json_object_get(u, "signals");
        if (!strcmp(str(u, "unit"), "bench"))
            bu = u;
        for (size_t k = 0; k < json_array_size(sigs); k++)
            stale += num(json_array_get(sigs, k), "stale_events");
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(bu);
    json_t *lat = json_object_get(bu, "request_latency_ns");
    printf("\n    loaded: %lld requests, %lld timeouts (late answers, taken), %lld "
           "reconnects, %lld stale events; round trip p50 %.1f ms p99 %.1f ms max %.1f ms",
           num(bu, "requests"), num(bu, "timeouts"), num(bu, "reconnects"), stale,
           (double)num(lat, "p50") / 1e6, (double)num(lat, "p99") / 1e6,
           (double)num(lat, "max") / 1e6);
    CU_ASSERT_EQUAL(num(bu, "reconnects"), 0); /* the issue: it reconnected every second */
    if (rc != 0)
        printf("\n    %s", out);
    json_t *b = link_of(sum, "bench");
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    printf(", request timeout %.1f ms, %lld outage(s)",
           json_real_value(json_object_get(b, "timeout_ms")),
           num(json_object_get(b, "outages"), "count"));
    json_decref(sum);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"main_job_without_bench_is_refused_at_its_deadline",
         main_job_without_bench_is_refused_at_its_deadline},
        {"bench_killed_mid_run_stops_by_its_loss_policy",
         bench_killed_mid_run_stops_by_its_loss_policy},
        {"bench_back_under_continue_ends_degraded", bench_back_under_continue_ends_degraded},
        {"demo_under_two_busy_loops_does_not_flap", demo_under_two_busy_loops_does_not_flap},
        {NULL, NULL},
    };
    rtc_test_add_suite("io_contract", setup, teardown, cases);
}
