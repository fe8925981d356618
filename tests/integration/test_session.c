/*
 * Operator sessions end to end: `rtcosim run --realtime --control-port 0` driven by a liblo
 * client in this process (pause, step, set, get, subscribe, resume, mark, status, stop),
 * the session directory it leaves (events.log lines, inputs.bin, the effect of each set on
 * results.csv, checked against the Lag FMU's exact discrete solution), `rtcosim replay`
 * reproducing results.csv byte for byte, and replay refusing a changed FMU or a tampered
 * inputs.bin with a clear one-line message. Also: the dead-man fallback, and a Modbus
 * bench session behind the fault proxy (delays, a disconnect) replayed identically.
 *
 * Lag (tests/fmus): y_{k+1} = T + (y_k − T)·e^(−h/τ), T = k1·u1 + k2·u2 + b with τ = 1,
 * k1 = k2 = 0.5, b = 1; h = 1 ms. The results row of tick k holds y_k, so a set applied
 * before step K changes T from row K+1 on — and not before.
 */
#include "cu_main.h"
#include "fmu_util.h"
#include "io_util.h"
#include "session_util.h"
#include "rtcosim/osc_args.h"

#include <arpa/inet.h>
#include <lo/lo.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* One Lag step: y' = T + (y − T)·e^(−h/τ). */
static double lag_next(double y, double u1, double u2)
{
    double T = 0.5 * u1 + 0.5 * u2 + 1.0;
    return T + (y - T) * exp(-0.001);
}

/* ---- the operator session ---- */

static int osc_port_live;

/* Pause, step, set (clamped, refused, rate-limited), subscribe, resume, mark, status, stop. */
static void drive_session(client *c, int osc_port)
{
    CU_ASSERT_TRUE_FATAL(status_until(c, 0, 50)); /* running */
    char p[16];
    snprintf(p, sizeof p, "%d", osc_port);
    lo_address op = lo_address_new("127.0.0.1", p);
    lo_send(op, "/sp", "f", 2.0f); /* the OSC component's set-point, a recorded sample */
    lo_address_free(op);
    bool seen = false;
    for (int i = 0; i < 200 && !seen; i++, io_sleep_ms(10))
        seen = call(c, "/rtcosim/get", msg("s", "op.sp")) && c->last.d[2] == 2.0;
    CU_ASSERT_TRUE_FATAL(seen);
    CU_ASSERT_TRUE(call(c, "/rtcosim/pause", lo_message_new()) && reply_ok(c, "pause"));
    CU_ASSERT_TRUE_FATAL(status_until(c, 1, 0));
    CU_ASSERT_TRUE(call(c, "/rtcosim/get", msg("s", "lag.y")));
    double k0 = c->last.d[4];
    /* 9 is beyond max=5: clamped, and the reply says what will be applied */
    CU_ASSERT_TRUE(call(c, "/rtcosim/set", msg("sf", "lag.u2", 9.0)));
    CU_ASSERT_STRING_EQUAL(c->last.s[0], "set");
    CU_ASSERT_DOUBLE_EQUAL(c->last.d[2], 5.0, 0.0);
    CU_ASSERT_TRUE(call(c, "/rtcosim/set", msg("sd", "lag2.u2", 1.0)));
    CU_ASSERT_DOUBLE_EQUAL(c->last.d[2], 1.0, 0.0);
    CU_ASSERT_TRUE(call(c, "/rtcosim/set", msg("si", "lag.y", 1)));
    CU_ASSERT_STRING_EQUAL(c->last.path, "/rtcosim/error");
    CU_ASSERT_PTR_NOT_NULL(strstr(c->last.s[0], "lag.y is not exposed"));
    CU_ASSERT_TRUE(call(c, "/rtcosim/step", msg("i", 20)) && reply_ok(c, "step"));
    bool stepped = false; /* paused: exactly 20 steps later */
    for (int i = 0; i < 200 && !stepped; i++, io_sleep_ms(10))
        stepped = call(c, "/rtcosim/get", msg("s", "lag.y")) && c->last.d[4] == k0 + 20;
    CU_ASSERT_TRUE(stepped);
    CU_ASSERT_TRUE(call(c, "/rtcosim/subscribe", msg("sd", "lag.y", 50.0)));
    CU_ASSERT_STRING_EQUAL(c->last.s[0], "subscribe");
    CU_ASSERT_TRUE(call(c, "/rtcosim/resume", lo_message_new()) && reply_ok(c, "resume"));
    pump(c, 400);
    CU_ASSERT(c->values >= 5); /* 50 Hz for 0.4 s: about 20 */
    CU_ASSERT_TRUE(call(c, "/rtcosim/mark", msg("s", "valve 3 opened")) && reply_ok(c, "mark"));
    CU_ASSERT_TRUE(call(c, "/rtcosim/unsubscribe", lo_message_new()));
    CU_ASSERT_DOUBLE_EQUAL(c->last.d[1], 1.0, 0.0);
    CU_ASSERT_TRUE(call(c, "/rtcosim/status", lo_message_new()));
    CU_ASSERT_STRING_EQUAL(c->last.s[0], "status");
    CU_ASSERT(c->last.d[1] > 0.1 && c->last.d[3] > k0 + 20 && c->last.d[6] == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(c->last.s[7], "op: "));
    CU_ASSERT_TRUE(call(c, "/rtcosim/bogus", lo_message_new()));
    CU_ASSERT_PTR_NOT_NULL(strstr(c->last.s[0], "unknown address /rtcosim/bogus"));
    CU_ASSERT_TRUE(call(c, "/rtcosim/stop", lo_message_new()) && reply_ok(c, "stop"));
}

/* The sets took effect exactly at the steps events.log names: Lag's exact solution. */
static void check_effects(void)
{
    long K = event_k("live", "set lag.u2 = 5 (applied before step");
    long K2 = event_k("live", "set lag2.u2 = 1 (applied before step");
    CU_ASSERT_FATAL(K > 10 && K2 > 10);
    char path[800];
    snprintf(path, sizeof path, "%s/live/results.csv", work);
    tcsv t;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &t));
    long y = tcsv_col(&t, "lag.y"), y2 = tcsv_col(&t, "lag2.y"), sp = tcsv_col(&t, "op.sp");
    CU_ASSERT_FATAL(y > 0 && y2 > 0 && sp > 0 && t.n_rows > (size_t)K2 + 20);
    double u1 = tcsv_at(&t, (size_t)K + 1, (size_t)sp);
    CU_ASSERT_DOUBLE_EQUAL(u1, 2.0, 0.0);
    /* u2 = 0 up to step K − 1, 5 from step K on */
    CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&t, (size_t)K, (size_t)y),
                           lag_next(tcsv_at(&t, (size_t)K - 1, (size_t)y), u1, 0.0), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&t, (size_t)K + 1, (size_t)y),
                           lag_next(tcsv_at(&t, (size_t)K, (size_t)y), u1, 5.0), 1e-12);
    /* lag2.u2 ramps at rate=100/s: 0.1 per 1-ms step, reaching 1 after 10 steps */
    for (int j = 0; j < 15; j++) {
        double u = j + 1 < 10 ? 0.1 * (j + 1) : 1.0;
        CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&t, (size_t)(K2 + j + 1), (size_t)y2),
                               lag_next(tcsv_at(&t, (size_t)(K2 + j), (size_t)y2), 0.0, u),
                               1e-12);
    }
    tcsv_free(&t);
}

static void operator_session_over_osc_is_recorded(void)
{
    char ssd[700];
    snprintf(ssd, sizeof ssd, "%s/op.ssd", work);
    osc_port_live = io_free_port(SOCK_DGRAM);
    write_osc_system(ssd, osc_port_live, "0.001",
                     "expose=\"lag.u2:min=-1:max=5 lag2.u2:rate=100\"");
    io_child run; /* an I/O component: pausing and stepping must be allowed explicitly */
    int port = start_run(&run, "op.ssd", "live", "--control-allow set,pause,step,stop,mark");
    CU_ASSERT_FATAL(port > 0);
    client c;
    client_open(&c, port);
    drive_session(&c, osc_port_live);
    client_close(&c);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
    /* events.log: every operator action with its sender and step */
    CU_ASSERT_TRUE(events_have("live", "set lag.u2 = 9 clamped to 5 (range -1..5)"));
    CU_ASSERT_TRUE(events_have("live", ": pause (before step"));
    CU_ASSERT_TRUE(events_have("live", ": step 20 (from step"));
    CU_ASSERT_TRUE(events_have("live", ": mark valve 3 opened"));
    CU_ASSERT_TRUE(events_have("live", ": subscribe lag.y at 50 Hz"));
    CU_ASSERT_TRUE(events_have("live", "refused: set: lag.y is not exposed"));
    CU_ASSERT_TRUE(events_have("live", " rt paused before tick "));
    CU_ASSERT_TRUE(events_have("live", ": stop (before step"));
    char path[800];
    snprintf(path, sizeof path, "%s/live/summary.json", work);
    char *sum = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    CU_ASSERT_PTR_NOT_NULL(strstr(sum, "\"inputs_written\": "));
    CU_ASSERT_PTR_NOT_NULL(strstr(sum, "\"inputs_dropped\": 0,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(sum, "\"rows_dropped\": 0,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(sum, "\"status\": \"stopped\""));
    free(sum);
    check_effects();
}

/* Byte-identical results from the recorded inputs and commands. */
static void replay_of_session_is_identical(void)
{
    char cmd[1200], out[4096];
    snprintf(cmd, sizeof cmd, "'%s' replay '%s/live' --output-dir '%s/rep'", RTCOSIM_EXE,
             work, work);
    CU_ASSERT_EQUAL(rtc_test_run(cmd, out, sizeof out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "identical"));
    char a[800], b[800];
    snprintf(a, sizeof a, "%s/live/results.csv", work);
    snprintf(b, sizeof b, "%s/rep/results.csv", work);
    size_t na = 0, nb = 0;
    char *x = rtc_test_slurp(a, &na), *y = rtc_test_slurp(b, &nb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(y);
    CU_ASSERT_EQUAL(na, nb);
    CU_ASSERT(na == nb && memcmp(x, y, na) == 0);
    free(x);
    free(y);
}

/* ---- replay refuses what would make it meaningless ---- */

/* Copy the live session to @p name and run replay on it; output in out. */
static int replay_copy(const char *name, const char *prep, char *out, size_t cap)
{
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "cd '%s' && rm -rf %s && cp -r live %s && %s", work, name, name,
             prep ? prep : "true");
    CU_ASSERT_EQUAL(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s' replay '%s/%s'", RTCOSIM_EXE, work, name);
    return rtc_test_run(cmd, out, cap);
}

/* Patch @p n bytes at @p off of NAME/inputs.bin (off < 0: from the end, truncating). */
static void patch_inputs(const char *name, long off, const void *bytes, size_t n)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s/inputs.bin", work, name);
    FILE *f = fopen(path, "r+b");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    if (off < 0) {
        fseek(f, 0, SEEK_END);
        CU_ASSERT_EQUAL(ftruncate(fileno(f), ftell(f) + off), 0);
    } else {
        fseek(f, off, SEEK_SET);
        fwrite(bytes, 1, n, f);
    }
    fclose(f);
}

/* Offset of the first record of @p kind in the live session's inputs.bin. */
static long first_record(int kind, long *last)
{
    char path[800];
    snprintf(path, sizeof path, "%s/live/inputs.bin", work);
    size_t n = 0;
    unsigned char *b = (unsigned char *)rtc_test_slurp(path, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    long hdr = b[12] | b[13] << 8 | b[14] << 16 | (long)b[15] << 24, found = -1;
    for (long off = hdr; off + 40 <= (long)n && found < 0; off += 40)
        if (b[off] == kind)
            found = off;
    *last = (long)n - 40;
    free(b);
    return found;
}

/* `rtcosim replay NAME` on an already prepared copy. */
static int replay_dir(const char *name, char *out, size_t cap)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "'%s' replay '%s/%s'", RTCOSIM_EXE, work, name);
    return rtc_test_run(cmd, out, cap);
}

static void replay_rejects_tampered_inputs(void)
{
    char out[4096];
    CU_ASSERT_EQUAL(replay_copy("t1", NULL, out, sizeof out), 0); /* the untouched copy */
    patch_inputs("t1", 0, "XTCINPUT", 8);
    CU_ASSERT_EQUAL(replay_dir("t1", out, sizeof out), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "inputs.bin: bad magic"));
    replay_copy("t2", NULL, out, sizeof out);
    patch_inputs("t2", -7, NULL, 0);
    CU_ASSERT_EQUAL(replay_dir("t2", out, sizeof out), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "inputs.bin: truncated record at offset"));
    long last = 0, sample = first_record(1, &last);
    CU_ASSERT_FATAL(sample > 0 && last > sample);
    replay_copy("t3", NULL, out, sizeof out);
    static const unsigned char zero[8];
    patch_inputs("t3", last + 8, zero, 8); /* the end record at step 0: out of order */
    CU_ASSERT_EQUAL(replay_dir("t3", out, sizeof out), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "step 0 after step"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "(out of order)"));
    replay_copy("t4", NULL, out, sizeof out);
    static const unsigned char idx[4] = {99, 0, 0, 0};
    patch_inputs("t4", sample + 4, idx, 4);
    CU_ASSERT_EQUAL(replay_dir("t4", out, sizeof out), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "unknown signal index 99 (the table has 1 signals)"));
    CU_ASSERT_PTR_NULL(strstr(out, "identical")); /* refused before any replay */
}

/* inputs.bin dates its records in the live system's ticks (1 ms here): a header with
 * another tick (1 ns, 2 ms) is not this system's recording and is refused with one line,
 * not replayed to "results differ". Every number of session.conf is held to the range run
 * gives its option (workers=1000000 once made the replay allocate for a million threads),
 * and a refused file leaves nothing allocated (checked by LSan in the asan stage). */
static void replay_refuses_foreign_tick_and_out_of_range_conf(void)
{
    char out[4096];
    static const int64_t ticks[] = {1, 2000000};
    for (size_t i = 0; i < 2; i++) {
        const char *name = i ? "k2" : "k1";
        replay_copy(name, NULL, out, sizeof out);
        unsigned char le[8];
        for (int b = 0; b < 8; b++)
            le[b] = (unsigned char)(ticks[i] >> (8 * b));
        patch_inputs(name, 32, le, 8); /* header: tick_ns */
        CU_ASSERT_EQUAL(replay_dir(name, out, sizeof out), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "inputs.bin was recorded with a base tick of "));
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "the session's system has 0.001 s"));
        CU_ASSERT_PTR_NULL(strstr(out, "results differ"));
    }
    static const struct {
        const char *edit, *why;
    } confs[] = {
        {"s/^workers=.*/workers=1000000/", "session.conf: workers=1000000: "},
        {"s/^decimation=.*/decimation=0/", "session.conf: decimation=0: "},
        {"s/^max_iterations=.*/max_iterations=x7/", "session.conf: max_iterations=x7: "},
        {"s/^tolerance=.*/tolerance=nan/", "session.conf: tolerance=nan: "},
        {"s/^step_ns=.*/step_ns=-5/", "session.conf: step_ns=-5: "},
        {"$a algorithm=simplex", "session.conf: algorithm=simplex: not an algorithm"},
    };
    for (size_t i = 0; i < sizeof confs / sizeof confs[0]; i++) {
        char prep[300];
        snprintf(prep, sizeof prep, "sed -i '%s' w%zu/session.conf", confs[i].edit, i);
        char name[8];
        snprintf(name, sizeof name, "w%zu", i);
        CU_ASSERT_EQUAL(replay_copy(name, prep, out, sizeof out), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, confs[i].why));
        if (!strstr(out, confs[i].why))
            printf("\n%s: expected \"%s\" in:\n%s", name, confs[i].why, out);
        CU_ASSERT_PTR_NULL(strchr(strchr(out, '\n') ? strchr(out, '\n') + 1 : "", '\n'));
    }
}

static void replay_detects_changed_fmu(void)
{
    char out[4096], prep[1200];
    /* the system copy now takes lag2 from another FMU (FMI 3 Lag: same variables) */
    snprintf(prep, sizeof prep, "sed -i 's|name=\"lag2\" source=\"[^\"]*\"|name=\"lag2\" "
             "source=\"%s\"|' c1/system.ssd", tfmu_path(3, "Lag"));
    CU_ASSERT_EQUAL(replay_copy("c1", prep, out, sizeof out), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "the FMU of unit lag2 changed since the session"));
    /* the FMU file itself changed: caught before anything is loaded */
    snprintf(prep, sizeof prep, "cp Lag.fmu Lag.keep && printf x >> Lag.fmu");
    CU_ASSERT_EQUAL(replay_copy("c2", prep, out, sizeof out), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "the FMU of unit lag changed since the session"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "/Lag.fmu (sha256 now"));
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cd '%s' && mv Lag.keep Lag.fmu", work);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

/* Only variables that can change during a run may be exposed; the reason is given. */
static void expose_refuses_what_cannot_be_set(void)
{
    char ssd[700], cmd[1600], out[4096];
    snprintf(ssd, sizeof ssd, "%s/ex.ssd", work);
    write_osc_system(ssd, io_free_port(SOCK_DGRAM), "0.001", "");
    static const struct {
        const char *expose, *why;
    } cases[] = {
        {"lag.k1", "expose lag.k1: cannot be set during a run: lag.k1 is a fixed parameter"},
        {"lag.u1", "expose lag.u1: cannot be set during a run: lag.u1 is driven by a "
                   "connection"},
        {"lag.nope", "expose lag.nope: no such unit.variable"},
        {"lag.u2:rate=-1", "expose lag.u2:rate=-1: option \"rate=-1\": expected min=, max=, "
                           "rate= (> 0) or safe="},
        {"lag.u2:min=2:max=1", "expose lag.u2:min=2:max=1: min 2 is above max 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(cmd, sizeof cmd, "cd '%s' && '%s' run ex.ssd --realtime --priority 0 --stop 0.1 "
                 "--expose '%s' --output-dir ex", work, RTCOSIM_EXE, cases[i].expose);
        CU_ASSERT_EQUAL(rtc_test_run(cmd, out, sizeof out), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].why)); /* the reason, on stderr */
        char path[800]; /* refused before the run: it leaves no session folder behind */
        snprintf(path, sizeof path, "%s/ex", work);
        CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
        snprintf(cmd, sizeof cmd, "rm -rf '%s/ex'", work);
        CU_ASSERT_EQUAL(system(cmd), 0);
    }
}

/* ---- the dead-man ---- */

/* The control surface falls silent: lag.u2 and the OSC set-point fall back to their safe
 * values at one step, logged, and the run (and its replay) shows it from that step on. */
static void deadman_falls_back_to_safe_values(void)
{
    char ssd[700];
    snprintf(ssd, sizeof ssd, "%s/dm.ssd", work);
    int osc = io_free_port(SOCK_DGRAM);
    write_osc_system(ssd, osc, "0.001", "expose=\"lag.u2:safe=-1 op.sp:safe=0\"");
    io_child run;
    int port = start_run(&run, "dm.ssd", "dm", "--deadman-ms 300 --stop 2");
    client c;
    client_open(&c, port);
    CU_ASSERT_TRUE(status_until(&c, 0, 50));
    char p[16];
    snprintf(p, sizeof p, "%d", osc);
    lo_address op = lo_address_new("127.0.0.1", p);
    lo_send(op, "/sp", "f", 4.0f);
    lo_address_free(op);
    CU_ASSERT_TRUE(call(&c, "/rtcosim/set", msg("sd", "lag.u2", 3.0))); /* then: silence */
    client_close(&c);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
    CU_ASSERT_TRUE(events_have("dm", "dead-man: the control surface was silent for"));
    CU_ASSERT_TRUE(events_have("dm", "2 input(s) fall back to their safe values"));
    long K = event_k("dm", "engine: safe lag.u2 = -1 (applied before step");
    long K2 = event_k("dm", "engine: safe op.sp = 0 (applied before step");
    long Ks = event_k("dm", ": set lag.u2 = 3 (applied before step");
    CU_ASSERT_FATAL(K > 0 && K == K2 && Ks > 0 && K - Ks >= 250);
    char path[800];
    snprintf(path, sizeof path, "%s/dm/results.csv", work);
    tcsv t;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &t));
    long y = tcsv_col(&t, "lag.y"), sp = tcsv_col(&t, "op.sp");
    CU_ASSERT_FATAL(y > 0 && sp > 0 && t.n_rows > (size_t)K + 5);
    CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&t, (size_t)K, (size_t)sp), 4.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&t, (size_t)K + 1, (size_t)sp), 0.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&t, (size_t)K, (size_t)y),
                           lag_next(tcsv_at(&t, (size_t)K - 1, (size_t)y), 4.0, 3.0), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&t, (size_t)K + 1, (size_t)y),
                           lag_next(tcsv_at(&t, (size_t)K, (size_t)y), 0.0, -1.0), 1e-12);
    tcsv_free(&t);
    char out[4096];
    CU_ASSERT_EQUAL(replay_dir("dm", out, sizeof out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "identical"));
}

/* ---- a Modbus bench behind the fault proxy ---- */


static void write_bench_system(const char *path, int port)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "%s<ssd:Component name=\"bench\" type=\"application/x-rtcosim-modbus-client\">"
               "<ssd:Connectors><ssd:Connector name=\"voltage\" kind=\"input\"><ssc:Real/>"
               "</ssd:Connector><ssd:Connector name=\"speed\" kind=\"output\"><ssc:Real/>"
               "</ssd:Connector></ssd:Connectors><ssd:Annotations><ssc:Annotation "
               "type=\"org.rtcosim.realtime\"><rtc:Component host=\"127.0.0.1\" port=\"%d\" "
               "poll_ms=\"20\" timeout_ms=\"15\" stale_ms=\"100\" reconnect_min_ms=\"20\" "
               "reconnect_max_ms=\"100\" priority=\"0\"><rtc:Signal name=\"voltage\" "
               "table=\"holding\" address=\"0\" type=\"float32\" safe=\"0\"/><rtc:Signal "
               "name=\"speed\" table=\"input\" address=\"0\" type=\"float32\" "
               "estimator=\"kalman-cv\" params=\"q=1e5 r=0.01 gate=1000 stale=0.5 "
               "policy=hold\"/></rtc:Component></ssc:Annotation></ssd:Annotations>"
               "</ssd:Component>\n", ssd_head, port);
    char fmu[700];
    snprintf(fmu, sizeof fmu, "%s/Lag.fmu", work);
    lag_component(f, "lag", fmu);
    fprintf(f, "</ssd:Elements>\n<ssd:Connections><ssd:Connection startElement=\"bench\" "
               "startConnector=\"speed\" endElement=\"lag\" endConnector=\"u1\"/>"
               "<ssd:Connection startElement=\"lag\" startConnector=\"y\" endElement=\"bench\" "
               "endConnector=\"voltage\"/></ssd:Connections>\n<ssd:Annotations>"
               "<ssc:Annotation type=\"org.rtcosim.realtime\"><rtc:RealTime "
               "baseStep=\"0.001\" record=\"lag.y bench.speed\"/></ssc:Annotation>"
               "</ssd:Annotations>\n</ssd:System>\n<ssd:DefaultExperiment startTime=\"0\" "
               "stopTime=\"3\"/>\n</ssd:SystemStructureDescription>\n");
    fclose(f);
}

static void bench_session_behind_fault_proxy_replays_identically(void)
{
    char *sim_argv[] = {RTC_BENCH_SIM_EXE, "--port", "0", "--noise", "0.002", "--delay-ms", "2",
                        "--duration", "60", NULL};
    io_child sim, proxy, run;
    int bench = io_tool_port(&sim, sim_argv);
    char target[64];
    snprintf(target, sizeof target, "127.0.0.1:%d", bench);
    char *proxy_argv[] = {RTC_FAULT_PROXY_EXE, "--listen", "127.0.0.1:0", "--target", target,
                          "--delay-ms", "1", "--jitter-ms", "1", "--duration", "60", NULL};
    int pport = io_tool_port(&proxy, proxy_argv);
    CU_ASSERT_FATAL(bench > 0 && pport > 0);
    char ssd[700];
    snprintf(ssd, sizeof ssd, "%s/bench.ssd", work);
    write_bench_system(ssd, pport);
    int port = start_run(&run, "bench.ssd", "bs", "");
    CU_ASSERT(port > 0);
    io_sleep_ms(1500);
    kill(proxy.pid, SIGUSR1); /* every connection through the proxy drops */
    CU_ASSERT_EQUAL(wait_run(&run), 0);
    io_child_kill(&proxy, SIGTERM);
    io_child_kill(&sim, SIGTERM);
    CU_ASSERT_TRUE(events_have("bs", " io bench: reconnected"));
    char path[800];
    snprintf(path, sizeof path, "%s/bs/summary.json", work);
    char *sum = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    CU_ASSERT_PTR_NOT_NULL(strstr(sum, "\"inputs_dropped\": 0,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(sum, "\"rows_dropped\": 0,"));
    char *w = strstr(sum, "\"inputs_written\": ");
    CU_ASSERT(w && atol(w + 18) > 50); /* 20 ms polls for 3 s: ~150 samples */
    free(sum);
    char out[4096];
    CU_ASSERT_EQUAL(replay_dir("bs", out, sizeof out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "identical"));
}

/* ---- a killed session ---- */

/* Complete lines of a file so far (0 when absent). */
static long lines_of(const char *path)
{
    size_t n = 0;
    char *t = rtc_test_slurp(path, &n);
    long lines = 0;
    for (size_t i = 0; t && i < n; i++)
        lines += t[i] == '\n';
    free(t);
    return lines;
}

/* SIGKILL of a real-time run once results.csv holds rows: the file is a complete prefix
 * (header, whole rows, nothing cut), and replay compares that prefix and says so (exit 5). */
static void killed_session_keeps_a_whole_prefix_that_replays(void)
{
    char cmd[2048], path[700];
    snprintf(cmd, sizeof cmd, "exec '%s' run '%s/msd-jacobi.ssp' --realtime --priority 0 "
             "--stop 60 --output-dir '%s/killed'", RTCOSIM_EXE, RTC_TEST_CONFIG_DIR, work);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    io_child run;
    CU_ASSERT_EQUAL_FATAL(io_child_spawn(&run, argv, true), 0);
    snprintf(path, sizeof path, "%s/killed/results.csv", work);
    for (int i = 0; i < 3000 && lines_of(path) < 51; i++) /* 30 s for 50 rows to arrive */
        io_sleep_ms(10);
    int st = io_child_kill(&run, SIGKILL);
    CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    long rows = tcsv_whole_rows(path);
    CU_ASSERT_FATAL(rows >= 50);
    snprintf(cmd, sizeof cmd, "'%s' replay '%s/killed'", RTCOSIM_EXE, work);
    char out[4096], want[200];
    CU_ASSERT_EQUAL(rtc_test_run(cmd, out, sizeof out), 5);
    snprintf(want, sizeof want, "identical over the %ld rows recorded; the session ended "
             "abnormally at t=%g s\n", rows, 0.01 * (double)(rows - 1));
    CU_ASSERT_STRING_EQUAL(out, want);
}

/* A killed operator session: a set reaches inputs.bin, then SIGKILL. The replay applies
 * the recorded command and compares the rows that inputs.bin vouches for (its progress
 * records): identical, exit 5. */
static void killed_operator_session_replays_its_prefix(void)
{
    char ssd[700], path[700];
    snprintf(ssd, sizeof ssd, "%s/ko.ssd", work);
    write_osc_system(ssd, io_free_port(SOCK_DGRAM), "0.001", "expose=\"lag.u2\"");
    io_child run;
    int port = start_run(&run, "ko.ssd", "ko", "--stop 60");
    client c;
    client_open(&c, port);
    CU_ASSERT_TRUE(status_until(&c, 0, 50));
    CU_ASSERT_TRUE(call(&c, "/rtcosim/set", msg("sd", "lag.u2", 3.0)));
    client_close(&c);
    long ks = -1;
    for (int i = 0; i < 3000 && (ks = event_k("ko", ": set lag.u2 = 3 (applied")) < 0; i++)
        io_sleep_ms(10);
    snprintf(path, sizeof path, "%s/ko/results.csv", work);
    for (int i = 0; i < 3000 && lines_of(path) < ks + 1200; i++) /* > 1 s after the set */
        io_sleep_ms(10);
    int st = io_child_kill(&run, SIGKILL);
    CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    CU_ASSERT_FATAL(ks > 0 && tcsv_whole_rows(path) > ks + 1000);
    char cmd[1200], out[4096];
    snprintf(cmd, sizeof cmd, "'%s' replay '%s/ko'", RTCOSIM_EXE, work);
    CU_ASSERT_EQUAL(rtc_test_run(cmd, out, sizeof out), 5);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "identical over the "));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "the session ended abnormally at t="));
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"operator_session_over_osc_is_recorded", operator_session_over_osc_is_recorded},
        {"replay_of_session_is_identical", replay_of_session_is_identical},
        {"replay_rejects_tampered_inputs", replay_rejects_tampered_inputs},
        {"replay_refuses_foreign_tick_and_out_of_range_conf",
         replay_refuses_foreign_tick_and_out_of_range_conf},
        {"replay_detects_changed_fmu", replay_detects_changed_fmu},
        {"expose_refuses_what_cannot_be_set", expose_refuses_what_cannot_be_set},
        {"deadman_falls_back_to_safe_values", deadman_falls_back_to_safe_values},
        {"bench_session_behind_fault_proxy_replays_identically",
         bench_session_behind_fault_proxy_replays_identically},
        {"killed_session_keeps_a_whole_prefix_that_replays",
         killed_session_keeps_a_whole_prefix_that_replays},
        {"killed_operator_session_replays_its_prefix",
         killed_operator_session_replays_its_prefix},
        {NULL, NULL}};
    rtc_test_add_suite("session", session_setup, session_teardown, cases);
}
