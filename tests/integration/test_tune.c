/*
 * The coupling monitor in summary.json and `rtcosim tune` (issue 21), end to end with the
 * rtcosim executable:
 *   - a connection with a transport delay gets the default estimator auto, and its entry
 *     in summary.json carries the coupling monitor: error, sample delays, candidates;
 *   - a delayed connection carries the source's settled value at t = 0 (not the value
 *     before the initialization passes settled the coupling);
 *   - `tune` on a recorded session of the main job (configs/hil-demo: the PI controller
 *     and the motor model FMUs, rtcosim-bench-sim behind rtcosim-fault-proxy with 5 +- 2 ms
 *     each way) recommends an estimator for the bench's speed, and `rtcosim replay` of the
 *     session with that estimator named on the signal reports exactly the error tune
 *     printed;
 *   - `tune` on a pure co-simulation session compares each candidate with the lock-step
 *     run, and a run with its annotation reproduces the coupling error it printed.
 * JSON is read with jansson.
 */
#include "cu_main.h"
#include "fmu_util.h"
#include "io_util.h"

#include <jansson.h>
#include <lo/lo.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

RTC_TEST_RTCOSIM_FIXTURE

#define STAGE RTC_TEST_CONFIG_DIR "/stage"
#define FORCE "<ssd:Connection startElement=\"mass2\" startConnector=\"Fc\" " \
              "endElement=\"mass1\" endConnector=\"Fe\"/>"

/* Run a shell command in the work directory; its exit status. */
#define sh(...) rtc_test_sh(work, out, sizeof out, __VA_ARGS__)

static json_t *load_json(const char *rel)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", work, rel);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    if (!j)
        printf("\n    %s: line %d: %s", rel, e.line, e.text);
    return j;
}

/* The entry of "connections" whose link starts with @p prefix. */
static json_t *connection(json_t *doc, const char *prefix)
{
    json_t *c;
    size_t i;
    json_array_foreach(json_object_get(doc, "connections"), i, c)
        if (!strncmp(json_string_value(json_object_get(c, "link")), prefix, strlen(prefix)))
            return c;
    return NULL;
}

static double num(json_t *o, const char *a, const char *b)
{
    json_t *x = json_object_get(o, a);
    return json_number_value(b ? json_object_get(x, b) : x);
}

/* The msd-jacobi example at 1 ms with the force connection annotated by @p annot (an
 * rtc:Connection element, or "" for none), into @p name in the work directory. */
static void write_msd(const char *name, const char *annot)
{
    char conn[1024] = FORCE;
    if (annot[0])
        snprintf(conn, sizeof conn, "<ssd:Connection startElement=\"mass2\" startConnector=\"Fc\" "
                 "endElement=\"mass1\" endConnector=\"Fe\"><ssd:Annotations><ssc:Annotation "
                 "type=\"org.rtcosim.realtime\">%s</ssc:Annotation></ssd:Annotations>"
                 "</ssd:Connection>", annot);
    CU_ASSERT_EQUAL_FATAL(sh("mkdir -p %s && cp -r '%s/msd-jacobi/resources' %s/ && "
                             "sed -e 's|baseStep=\"0.01\"|baseStep=\"0.001\"|' "
                             "-e 's|%s|%s|' '%s/msd-jacobi/SystemStructure.ssd' > "
                             "%s/SystemStructure.ssd", name, STAGE, name, FORCE, conn, STAGE,
                             name), 0);
}

/* ---- the coupling monitor ---- */

/* No estimator named on a connection with a 20 ms delay: auto runs there, and summary.json
 * shows its monitor. Before issue 21 the connection held the delayed samples (zoh) with no
 * monitor at all. */
static void late_connection_gets_auto_and_its_monitor(void)
{
    write_msd("late", "<rtc:Connection delay=\"0.02\"/>");
    CU_ASSERT_EQUAL_FATAL(rtcosim("run '%s/late/SystemStructure.ssd' --stop 2 --output-dir "
                                  "'%s/late/out' -q", work, work), 0);
    json_t *doc = load_json("late/out/summary.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    json_t *c = connection(doc, "mass2.Fc");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(c, "estimator")), "auto");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(c, "delay_ns")), 20000000);
    /* samples from t = 0 arrive from 20 ms on; the first has nothing to be compared with */
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(c, "coupling_error"),
                                                       "samples")), 1979);
    CU_ASSERT(num(c, "coupling_error", "rms") > 0 && num(c, "coupling_error", "rms") < 1e-2);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(c, "sample_delay_ns"),
                                                       "p50")) / 100000, 200);
    json_t *cands = json_object_get(c, "candidates");
    CU_ASSERT_EQUAL(json_array_size(cands), 5);
    double share = 0.0;
    json_t *x;
    size_t i;
    json_array_foreach(cands, i, x)
        share += num(x, "share", NULL);
    CU_ASSERT_DOUBLE_EQUAL(share, 1.0, 1e-12);
    CU_ASSERT_PTR_NOT_NULL(json_object_get(c, "in_use"));
    /* a connection that is not late reads its source directly: no estimator, no monitor */
    json_t *x1 = connection(doc, "mass1.x1");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(x1, "estimator")), "zoh");
    CU_ASSERT_PTR_NULL(json_object_get(x1, "coupling_error"));
    json_decref(doc);
}

/* The force at t = 0 reaches mass1 20 ms later as the coupling settled it (-1 N), and is
 * held until then; before, the delayed link kept the first initialization pass's 0. */
static void delayed_link_carries_the_settled_initial_value(void)
{
    write_msd("init", "<rtc:Connection estimator=\"zoh\" delay=\"0.02\"/>");
    CU_ASSERT_EQUAL_FATAL(rtcosim("run '%s/init/SystemStructure.ssd' --stop 0.05 --record "
                                  "mass2.Fc --record mass1.Fe --output-dir '%s/init/out' -q",
                                  work, work), 0);
    char path[800];
    snprintf(path, sizeof path, "%s/init/out/results.csv", work);
    tcsv t;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &t));
    long fc = tcsv_col(&t, "mass2.Fc"), fe = tcsv_col(&t, "mass1.Fe");
    CU_ASSERT_FATAL(fc > 0 && fe > 0 && t.n_rows > 30);
    CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&t, 0, (size_t)fc), -1.0, 0.0);
    for (size_t k = 1; k <= 20; k++) /* nothing has arrived yet: the value at t = 0 held */
        CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&t, k, (size_t)fe), -1.0, 0.0);
    tcsv_free(&t);
}

/* ---- tune on the main job ---- */

/* "  recommended: estimator="X" params="Y" (... RMS Z over ...)" of the section that
 * starts with @p head in tune's output. */
static bool recommended(const char *head, char *est, char *params, double *rms, double *cpl)
{
    const char *s = strstr(out, head), *r = s ? strstr(s, "recommended: estimator=\"") : NULL;
    if (!r || sscanf(r, "recommended: estimator=\"%63[^\"]\" params=\"%511[^\"]\"", est,
                     params) < 1)
        return false;
    const char *x = strstr(r, " RMS ");
    *rms = x ? strtod(x + 5, NULL) : NAN;
    x = strstr(r, "coupling RMS ");
    if (cpl)
        *cpl = x ? strtod(x + 13, NULL) : NAN;
    return x != NULL || !cpl;
}


/* The panel's frames name each late signal's estimator and its prediction error while the
 * run goes: the bench's speed (kalman-cv, named in the demo) with samples compared, and
 * the operator's set-point (the default, auto, holding a sparse signal). */
static void panel_shows_the_estimates(int port)
{
    int fd = io_tcp_connect(port);
    CU_ASSERT_FATAL(fd >= 0);
    char req[128], *buf = calloc(1, 1 << 20);
    int n = snprintf(req, sizeof req, "GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n",
                     port);
    io_tcp_send(fd, req, (size_t)n);
    json_t *speed = NULL, *sp = NULL, *f = NULL;
    size_t len = 0;
    for (int i = 0; i < 200 && !(speed && sp); i++) { /* frames every 100 ms, 20 s at most */
        struct pollfd p = {.fd = fd, .events = POLLIN};
        ssize_t got = poll(&p, 1, 100) > 0 ? recv(fd, buf + len, (1 << 20) - 1 - len, 0) : 0;
        len += got > 0 ? (size_t)got : 0;
        buf[len] = '\0';
        char *d = strstr(buf, "event: frame\ndata: "), *end = d ? strstr(d, "\n\n") : NULL;
        if (!end)
            continue;
        d += strlen("event: frame\ndata: ");
        json_decref(f);
        f = json_loadb(d, (size_t)(end - d), 0, NULL);
        memmove(buf, end + 2, len - (size_t)(end + 2 - buf) + 1);
        len = strlen(buf);
        json_t *e;
        size_t k;
        speed = sp = NULL;
        json_array_foreach(json_object_get(f, "estimates"), k, e) {
            const char *name = json_string_value(json_object_get(e, "name"));
            if (!strcmp(name, "bench.speed") && json_integer_value(json_object_get(e, "samples")) > 10)
                speed = e;
            if (!strcmp(name, "operator.setpoint"))
                sp = e;
        }
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(speed);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(speed, "estimator")), "kalman-cv");
    CU_ASSERT(json_number_value(json_object_get(speed, "rms")) > 0);
    CU_ASSERT(json_number_value(json_object_get(speed, "delay_p50_ms")) > 3); /* 5 +- 2 ms */
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(sp, "estimator")), "auto");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(sp, "in_use")), "zoh");
    json_decref(f);
    free(buf);
    close(fd);
}

/* Record 3 s of the main job in real time: the bench simulator behind the fault proxy
 * (5 +- 2 ms each way), the demo's system with its ports moved to the tools' and a free
 * one for the operator, who sends set-points over OSC as scripts/demo's does. */
static void record_demo(void)
{
    char *sim_argv[] = {RTC_BENCH_SIM_EXE, "--port", "0", "--noise", "0.002", "--delay-ms",
                        "2", "--duration", "60", NULL};
    io_child sim, proxy;
    int bench = io_tool_port(&sim, sim_argv);
    char target[64];
    snprintf(target, sizeof target, "127.0.0.1:%d", bench);
    char *proxy_argv[] = {RTC_FAULT_PROXY_EXE, "--listen", "127.0.0.1:0", "--target", target,
                          "--delay-ms", "5", "--jitter-ms", "2", "--duration", "60", NULL};
    int pport = io_tool_port(&proxy, proxy_argv);
    CU_ASSERT_FATAL(bench > 0 && pport > 0);
    int osc = io_free_port(SOCK_DGRAM);
    CU_ASSERT_EQUAL_FATAL(sh("cp -r '%s/hil-demo' demo && sed -i -e 's|port=\"1503\"|port=\"%d\"|'"
                             " -e 's|port=\"9000\"|port=\"%d\"|' -e 's|priority=\"60\"|"
                             "priority=\"0\"|' demo/SystemStructure.ssd", STAGE, pport, osc), 0);
    char cmd[2048], line[256] = "";
    snprintf(cmd, sizeof cmd, "exec '%s' run '%s/demo/SystemStructure.ssd' --realtime "
             "--priority 0 --stop 3 --http 0 --output-dir '%s/session'", RTCOSIM_EXE, work,
             work);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    io_child run;
    CU_ASSERT_EQUAL_FATAL(io_child_spawn(&run, argv, true), 0);
    CU_ASSERT_TRUE_FATAL(io_child_line(&run, "rtcosim: operator panel on http://127.0.0.1:",
                                       line, sizeof line, 30000));
    int http = atoi(strrchr(line, ':') + 1);
    char port[16];
    snprintf(port, sizeof port, "%d", osc);
    lo_address op = lo_address_new("127.0.0.1", port);
    static const float sp[] = {100, 50, -80, 120, 60};
    for (int i = 0; i < 5; i++) { /* the stimulus of the run, not a wait for it */
        io_sleep_ms(450);
        lo_send(op, "/hil/setpoint", "f", sp[i]);
    }
    lo_address_free(op);
    panel_shows_the_estimates(http);
    int rc = io_child_wait(&run, 30000);
    io_child_kill(&proxy, SIGTERM);
    io_child_kill(&sim, SIGTERM);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
}

/* tune recommends an estimator for bench.speed; named on the signal in a copy of the
 * session, the replay's summary.json reports the very error tune printed. */
static void tune_recommends_what_the_replay_reproduces(void)
{
    record_demo();
    CU_ASSERT_EQUAL_FATAL(rtcosim("tune '%s/session' --all", work), 0);
    char est[64] = "", params[512] = "";
    double rms = NAN;
    CU_ASSERT_TRUE_FATAL(recommended("I/O signal bench.speed:", est, params, &rms, NULL));
    printf("\n    tune: %s %s, RMS %.9g", est, params, rms);
    CU_ASSERT(isfinite(rms) && rms > 0);
    /* the table holds zoh, the default and the configured filter */
    const char *sec = strstr(out, "I/O signal bench.speed:"), *a = strstr(sec, "  auto  ");
    const char *z = strstr(sec, "  zoh  "), *next = strstr(sec + 1, "\nI/O signal ");
    CU_ASSERT(a && z && (!next || (a < next && z < next)));
    CU_ASSERT_PTR_NOT_NULL(strstr(sec, "q=100000 r=0.01 gate=1000 gate_reset=3 stale=0.5s"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "(attributes of <rtc:Signal name=\"speed\"> of "
                                       "component bench)"));
    /* the operator's set-point (a handful of samples) is in the output too */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "I/O signal operator.setpoint:"));
    CU_ASSERT_EQUAL_FATAL(sh("cp -r session named && sed -i 's|estimator=\"kalman-cv\" "
                             "params=\"[^\"]*\"|estimator=\"%s\" params=\"%s\"|' "
                             "named/system.ssd && grep -q 'estimator=\"%s\" params=\"%s\"' "
                             "named/system.ssd", est, params, est, params), 0);
    int rc = rtcosim("replay '%s/named' --output-dir '%s/named/replay'", work, work);
    CU_ASSERT(rc == 0 || rc == 1); /* 1: another estimator, other results */
    json_t *doc = load_json("named/replay/summary.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    json_t *u, *s, *speed = NULL;
    size_t i, j;
    json_array_foreach(json_object_get(doc, "io"), i, u)
        json_array_foreach(json_object_get(u, "signals"), j, s)
            if (!strcmp(json_string_value(json_object_get(s, "name")), "speed"))
                speed = s;
    CU_ASSERT_PTR_NOT_NULL_FATAL(speed);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(speed, "estimator")), est);
    double replayed = num(speed, "coupling_error", "rms");
    printf(", replayed RMS %.9g", replayed);
    CU_ASSERT_DOUBLE_EQUAL(replayed, rms, 1e-8 * rms); /* printed with 10 digits */
    json_decref(doc);
}

/* ---- tune on a pure co-simulation ---- */

/* A real-time session of the msd example with a 20 ms delay on the force: tune compares
 * each candidate with the lock-step run; a run of the system with the recommended
 * annotation has the coupling error tune printed for it (a co-simulation is
 * deterministic: fast and real-time runs agree). */
static void tune_cosim_against_the_lockstep_run(void)
{
    write_msd("cs", "<rtc:Connection delay=\"0.02\"/>");
    CU_ASSERT_EQUAL_FATAL(rtcosim("run '%s/cs/SystemStructure.ssd' --realtime --priority 0 "
                                  "--stop 0.3 --output-dir '%s/cs/session' -q", work, work), 0);
    CU_ASSERT_EQUAL_FATAL(rtcosim("tune '%s/cs/session'", work), 0);
    char est[64] = "", params[512] = "", annot[900];
    double rms = NAN, cpl = NAN;
    CU_ASSERT_TRUE_FATAL(recommended("connection mass2.Fc -> mass1.Fe:", est, params, &rms,
                                     &cpl));
    printf("\n    tune: %s %s, lock-step RMS %.9g, coupling RMS %.9g", est, params, rms, cpl);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "300 steps against the lock-step run"));
    snprintf(annot, sizeof annot, "<rtc:Connection estimator=\"%s\" params=\"%s\" "
             "delay=\"0.02\"/>", est, params);
    write_msd("cs2", annot);
    CU_ASSERT_EQUAL_FATAL(rtcosim("run '%s/cs2/SystemStructure.ssd' --stop 0.3 --output-dir "
                                  "'%s/cs2/out' -q", work, work), 0);
    json_t *doc = load_json("cs2/out/summary.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    json_t *c = connection(doc, "mass2.Fc");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_DOUBLE_EQUAL(num(c, "coupling_error", "rms"), cpl, 1e-8 * cpl);
    json_decref(doc);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"late_connection_gets_auto_and_its_monitor", late_connection_gets_auto_and_its_monitor},
        {"delayed_link_carries_the_settled_initial_value",
         delayed_link_carries_the_settled_initial_value},
        {"tune_recommends_what_the_replay_reproduces",
         tune_recommends_what_the_replay_reproduces},
        {"tune_cosim_against_the_lockstep_run", tune_cosim_against_the_lockstep_run},
        {NULL, NULL}};
    rtc_test_add_suite("tune", setup, teardown, cases);
}
