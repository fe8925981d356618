/*
 * The trust rules of the operator control surface, end to end: `rtcosim run --realtime
 * --control-port 0` driven by a liblo client in this process and by scripts/operator.
 *   - a system with I/O components refuses pause and step unless --control-allow names
 *     them (the reply names the missing capability); with them, single steps are paced at
 *     the period and their count is bounded; non-finite counts are refused unconverted;
 *   - --control-token FILE: every message must start with the secret; a world-readable
 *     or short (< 16 bytes) file is refused; scripts/operator --token-file sends it;
 *     wrong tokens are counted and never lock the sender out; --control-allow remote
 *     without a token is refused before anything runs (exit 2);
 *   - scripts/operator refuses text that is not a number before sending anything;
 *   - a flood of refused datagrams, and of steps, marks and sets, costs a bounded number
 *     of events.log lines; summary.json counts what was left out.
 * Timing assertions are lower bounds only (a loaded machine makes them truer).
 */
#include "cu_main.h"
#include "fmu_util.h"
#include "io_util.h"
#include "session_util.h"

#include "rtcosim/driver.h"
#include "rtcosim/time.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TOKEN "s3cret-token-for-tests-0" /* 24 bytes */

/* The I/O system (an OSC component feeding lag.u1) with lag.u2 exposed; @p step: s.
 * Returns the OSC component's port. */
static int io_system(const char *name, const char *step)
{
    char ssd[700];
    snprintf(ssd, sizeof ssd, "%s/%s", work, name);
    int port = io_free_port(SOCK_DGRAM);
    write_osc_system(ssd, port, step, "expose=\"lag.u2\"");
    return port;
}

static double now_s(void)
{
    return (double)rtc_time_now_ns() * 1e-9;
}

static bool error_has(client *c, const char *needle)
{
    bool ok = !strcmp(c->last.path, "/rtcosim/error") && strstr(c->last.s[0], needle);
    if (!ok)
        printf("\n    expected an error with '%s', got %s '%s'", needle, c->last.path,
               c->last.s[0]);
    return ok;
}

/* The tick of the newest published row (lag.y's k). */
static double current_k(client *c)
{
    return call(c, "/rtcosim/get", msg("s", "lag.y")) ? c->last.d[4] : -1;
}

/* ---- capabilities ---- */

static void io_system_refuses_pause_and_step_without_capability(void)
{
    int osc = io_system("cap.ssd", "0.001");
    io_child run;
    int port = start_run(&run, "cap.ssd", "cap", "");
    client c;
    client_open(&c, port);
    CU_ASSERT_TRUE_FATAL(status_until(&c, 0, 10));
    char p[16]; /* a set-point dated a day ahead: clamped, counted in summary.json */
    snprintf(p, sizeof p, "%d", osc);
    lo_address op = lo_address_new("127.0.0.1", p);
    lo_timetag tt;
    lo_timetag_now(&tt);
    tt.sec += 86400;
    lo_bundle b = lo_bundle_new(tt);
    lo_bundle_add_message(b, "/sp", msg("f", 2.0));
    CU_ASSERT_TRUE(lo_send_bundle(op, b) > 0);
    lo_bundle_free_recursive(b);
    lo_address_free(op);
    bool seen = false; /* the sample reached the run (and so the counter moved) */
    for (int i = 0; i < 3000 && !seen; i++, io_sleep_ms(10))
        seen = call(&c, "/rtcosim/get", msg("s", "op.sp")) && c.last.d[2] == 2.0;
    CU_ASSERT_TRUE(seen);
    CU_ASSERT_TRUE(call(&c, "/rtcosim/pause", lo_message_new()));
    CU_ASSERT_TRUE(error_has(&c, "pause needs the capability 'pause'"));
    CU_ASSERT_TRUE(call(&c, "/rtcosim/step", msg("i", 3)));
    CU_ASSERT_TRUE(error_has(&c, "step needs the capability 'step'"));
    CU_ASSERT_TRUE(call(&c, "/rtcosim/resume", lo_message_new()));
    CU_ASSERT_TRUE(error_has(&c, "needs the capability 'pause'"));
    /* the defaults of a bench run: set, stop and mark stay allowed */
    CU_ASSERT_TRUE(call(&c, "/rtcosim/set", msg("sd", "lag.u2", 1.5)));
    CU_ASSERT_STRING_EQUAL(c.last.s[0], "set");
    CU_ASSERT_TRUE(call(&c, "/rtcosim/mark", msg("s", "checked")) && reply_ok(&c, "mark"));
    double k = current_k(&c);
    CU_ASSERT_TRUE(status_until(&c, 0, k + 20)); /* still running, never paused */
    CU_ASSERT_TRUE(call(&c, "/rtcosim/stop", lo_message_new()) && reply_ok(&c, "stop"));
    client_close(&c);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
    CU_ASSERT_TRUE(events_have("cap", "the operator may: set,stop,mark"));
    char path[800];
    snprintf(path, sizeof path, "%s/cap/summary.json", work);
    char *sum = rtc_test_slurp(path, NULL);
    const char *tc = sum ? strstr(sum, "\"timetags_clamped\": ") : NULL; /* in "osc" */
    CU_ASSERT_TRUE(tc && strtol(tc + strlen("\"timetags_clamped\": "), NULL, 10) == 1);
    free(sum);
    CU_ASSERT_TRUE(events_have("cap", "refused: pause: pause needs the capability 'pause'"));
    CU_ASSERT_FALSE(events_have("cap", ": pause (before step"));
}

/* With "pause,step" a bench run can be stepped — one step per period: 8 steps with a
 * 50 ms period cannot be done before 7 periods have passed since they were asked for. */
static void io_system_single_steps_paced_and_bounded(void)
{
    io_system("paced.ssd", "0.05");
    io_child run;
    int port = start_run(&run, "paced.ssd", "paced", "--control-allow pause,step,stop");
    client c;
    client_open(&c, port);
    CU_ASSERT_TRUE_FATAL(status_until(&c, 0, 2));
    CU_ASSERT_TRUE(call(&c, "/rtcosim/set", msg("sd", "lag.u2", 1.0)));
    CU_ASSERT_TRUE(error_has(&c, "set needs the capability 'set'")); /* not in the list */
    CU_ASSERT_TRUE(call(&c, "/rtcosim/pause", lo_message_new()) && reply_ok(&c, "pause"));
    CU_ASSERT_TRUE_FATAL(status_until(&c, 1, 0));
    double k0 = current_k(&c);
    /* refused before any conversion, the value quoted as sent */
    CU_ASSERT_TRUE(call(&c, "/rtcosim/step", msg("d", (double)INFINITY)));
    CU_ASSERT_TRUE(error_has(&c, "step inf: the count must be a whole number in 1..10000"));
    CU_ASSERT_TRUE(call(&c, "/rtcosim/step", msg("d", (double)NAN)));
    CU_ASSERT_TRUE(error_has(&c, "step nan: the count must be a whole number"));
    CU_ASSERT_TRUE(call(&c, "/rtcosim/step", msg("d", 2.5)));
    CU_ASSERT_TRUE(error_has(&c, "step 2.5: the count must be a whole number"));
    CU_ASSERT_TRUE(call(&c, "/rtcosim/step", msg("i", 10001)));
    CU_ASSERT_TRUE(error_has(&c, "in 1..10000"));
    CU_ASSERT_EQUAL(current_k(&c), k0); /* nothing ran */
    double t_req = now_s();
    CU_ASSERT_TRUE(call(&c, "/rtcosim/step", msg("i", 8)) && reply_ok(&c, "step"));
    double k = k0;
    for (int i = 0; i < 3000 && k < k0 + 8; i++, io_sleep_ms(10))
        k = current_k(&c);
    double t_done = now_s();
    CU_ASSERT_EQUAL(k, k0 + 8);
    printf("\n    8 single steps at a 50 ms period took %.0f ms", (t_done - t_req) * 1e3);
    CU_ASSERT(t_done - t_req >= 7 * 0.05);
    io_sleep_ms(100);
    CU_ASSERT_EQUAL(current_k(&c), k0 + 8); /* exactly 8: paused again */
    CU_ASSERT_TRUE(call(&c, "/rtcosim/stop", lo_message_new()) && reply_ok(&c, "stop"));
    client_close(&c);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
    CU_ASSERT_TRUE(events_have("paced", ": step 8 (from step"));
}

/* ---- token ---- */

static void write_file(const char *name, const char *text, mode_t mode)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s", work, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
    CU_ASSERT_EQUAL(chmod(path, mode), 0);
}

/* scripts/operator as a user runs it, against the operator built with the tests. */
static int operator_run(const char *args, char *out, size_t cap)
{
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "cd '%s' && RTCOSIM_BUILD='%s' '%s/scripts/operator' %s", work,
             RTC_OPERATOR_DIR, RTC_SOURCE_DIR, args);
    return rtc_test_run(cmd, out, cap);
}

static void control_token_guards_every_command(void)
{
    char out[4096], args[1200];
    io_system("tok.ssd", "0.001");
    write_file("tok644", TOKEN "\n", 0644);
    snprintf(args, sizeof args, "cd '%s' && '%s' run tok.ssd --realtime --priority 0 "
             "--control-port 0 --control-token tok644 --stop 0.2 --output-dir t644", work,
             RTCOSIM_EXE);
    CU_ASSERT_NOT_EQUAL(rtc_test_run(args, out, sizeof out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--control-token tok644: readable or writable by "
                                       "every user"));
    write_file("tok", TOKEN "\n", 0600);
    io_child run;
    int port = start_run(&run, "tok.ssd", "tokrun", "--control-token tok --deadman-ms 2000");
    client c;
    client_open(&c, port);
    static const char *const wrong[] = {"s3cret-token-for-tests-X", "s3cret", TOKEN "!", ""};
    CU_ASSERT_TRUE(call(&c, "/rtcosim/status", lo_message_new()));
    CU_ASSERT_TRUE(error_has(&c, "missing or wrong token"));
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        CU_ASSERT_TRUE(call(&c, "/rtcosim/set", msg("ssd", wrong[i], "lag.u2", 2.0)));
        CU_ASSERT_TRUE(error_has(&c, "missing or wrong token"));
    }
    CU_ASSERT_TRUE(call(&c, "/rtcosim/status", msg("s", TOKEN)));
    CU_ASSERT_STRING_EQUAL(c.last.s[0], "status");
    CU_ASSERT_TRUE(call(&c, "/rtcosim/set", msg("ssd", TOKEN, "lag.u2", 1.5)));
    CU_ASSERT_STRING_EQUAL(c.last.s[0], "set");
    CU_ASSERT_DOUBLE_EQUAL(c.last.d[2], 1.5, 0.0);
    snprintf(args, sizeof args, "%d set lag.u2 2.5", port);
    CU_ASSERT_EQUAL(operator_run(args, out, sizeof out), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "missing or wrong token"));
    snprintf(args, sizeof args, "--token-file tok %d set lag.u2 2.25", port);
    CU_ASSERT_EQUAL(operator_run(args, out, sizeof out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "set lag.u2 2.25"));
    snprintf(args, sizeof args, "%d stop", port);
    CU_ASSERT_EQUAL(operator_run(args, out, sizeof out), 1); /* no token: not stopped */
    CU_ASSERT_TRUE(call(&c, "/rtcosim/status", msg("s", TOKEN)));
    CU_ASSERT_STRING_EQUAL(c.last.s[0], "status");
    /* messages without the token do not keep the dead-man (2 s) from firing */
    for (int i = 0; i < 1000 && !events_have("tokrun", "dead-man: the control surface was "
                                            "silent"); i++) {
        CU_ASSERT_TRUE(call(&c, "/rtcosim/status", lo_message_new()));
        io_sleep_ms(20);
    }
    CU_ASSERT_TRUE(events_have("tokrun", "dead-man: the control surface was silent"));
    snprintf(args, sizeof args, "RTCOSIM_CONTROL_TOKEN_FILE=tok && export "
             "RTCOSIM_CONTROL_TOKEN_FILE && '%s/scripts/operator' %d stop", RTC_SOURCE_DIR,
             port);
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "cd '%s' && RTCOSIM_BUILD='%s' && export RTCOSIM_BUILD && %s",
             work, RTC_OPERATOR_DIR, args);
    CU_ASSERT_EQUAL(rtc_test_run(cmd, out, sizeof out), 0);
    client_close(&c);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
    CU_ASSERT_TRUE(events_have("tokrun", "token required"));
    CU_ASSERT_TRUE(events_have("tokrun", ": set lag.u2 = 1.5 (applied"));
    CU_ASSERT_TRUE(events_have("tokrun", ": set lag.u2 = 2.25 (applied"));
    CU_ASSERT_FALSE(events_have("tokrun", "set lag.u2 = 2 (applied"));
    CU_ASSERT_FALSE(events_have("tokrun", "set lag.u2 = 2.5 (applied"));
}

/* A number in work/@p dir/summary.json after "@p key": " (the first one), or -1. */
static long summary_count(const char *dir, const char *key)
{
    char path[800], needle[128];
    snprintf(path, sizeof path, "%s/%s/summary.json", work, dir);
    snprintf(needle, sizeof needle, "\"%s\": ", key);
    char *sum = rtc_test_slurp(path, NULL);
    const char *q = sum ? strstr(sum, needle) : NULL;
    long v = q ? strtol(q + strlen(needle), NULL, 10) : -1;
    free(sum);
    return v;
}

/* Remote senders without a token, and a token shorter than 16 bytes: one line naming the
 * option, exit 2, before anything runs (no summary.json); `check` refuses them alike. */
static void control_remote_needs_a_token(void)
{
    char out[4096], args[1200];
    io_system("remote.ssd", "0.001");
    write_file("short", "fifteen-bytes!!\n", 0600);
    static const struct {
        const char *opts, *dir, *needle;
    } cases[] = {
        {"--control-allow set,remote", "remote0",
         "--control-allow remote needs --control-token FILE"},
        {"--control-allow set,remote --control-token short", "remote1",
         "--control-token short: 15 byte(s): a token needs at least 16"},
        {"--control-token short", "remote2", "a token needs at least 16"},
    };
    for (size_t k = 0; k < 2 * sizeof cases / sizeof cases[0]; k++) {
        size_t i = k / 2;
        snprintf(args, sizeof args, "cd '%s' && '%s' %s remote.ssd --realtime --priority 0 "
                 "--control-port 0 %s --stop 0.2 --output-dir %s", work, RTCOSIM_EXE,
                 k % 2 ? "check" : "run", cases[i].opts, cases[i].dir);
        CU_ASSERT_EQUAL(rtc_test_run(args, out, sizeof out), 2);
        if (!strstr(out, cases[i].needle))
            printf("\n    expected '%s' in: %.300s", cases[i].needle, out);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].needle));
        CU_ASSERT_PTR_NULL(strchr(strchr(out, '\n') ? strchr(out, '\n') + 1 : "", '\n'));
        CU_ASSERT_EQUAL(summary_count(cases[i].dir, "status"), -1); /* nothing ran */
    }
}

/* Wrong tokens are answered and counted, and do not shut the sender's address out: its
 * next message with the right token is served (a UDP address can be forged, so a block
 * would let anybody lock the operator out). */
static void control_wrong_tokens_counted_never_locking_out(void)
{
    io_system("thr.ssd", "0.001");
    write_file("thr-tok", TOKEN "\n", 0600);
    io_child run;
    int port = start_run(&run, "thr.ssd", "thr", "--control-token thr-tok");
    client c;
    client_open(&c, port);
    for (int i = 0; i < 10; i++) {
        CU_ASSERT_TRUE(call(&c, "/rtcosim/status", msg("s", "s3cret-token-for-tests-X")));
        CU_ASSERT_TRUE(error_has(&c, "missing or wrong token"));
    }
    CU_ASSERT_TRUE(call(&c, "/rtcosim/status", msg("s", TOKEN)));
    CU_ASSERT_STRING_EQUAL(c.last.s[0], "status");
    CU_ASSERT_TRUE(call(&c, "/rtcosim/stop", msg("s", TOKEN)) && reply_ok(&c, "stop"));
    client_close(&c);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
    CU_ASSERT_EQUAL(summary_count("thr", "wrong_tokens"), 10);
    CU_ASSERT_EQUAL(summary_count("thr", "messages"), 12);
}

/* ---- scripts/operator ---- */

static void operator_refuses_text_that_is_not_a_number(void)
{
    char out[4096], args[256];
    io_system("num.ssd", "0.001");
    io_child run;
    int port = start_run(&run, "num.ssd", "num", "");
    static const char *const bad[] = {"set lag.u2 abc", "set lag.u2 12abc", "set lag.u2 ''",
                                      "set lag.u2 nan", "set lag.u2 inf", "step abc",
                                      "step 1.5", "watch lag.y abc"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(args, sizeof args, "%d %s", port, bad[i]);
        int rc = operator_run(args, out, sizeof out);
        if (rc != 2)
            printf("\n    '%s': exit %d, output: %s", bad[i], rc, out);
        CU_ASSERT_EQUAL(rc, 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "rtcosim-operator: "));
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "expected a"));
        CU_ASSERT_PTR_NULL(strchr(strchr(out, '\n') ? strchr(out, '\n') + 1 : "", '\n'));
    }
    CU_ASSERT_EQUAL(operator_run("abc status", out, sizeof out), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "PORT 'abc'"));
    snprintf(args, sizeof args, "%d set lag.u2 0.75", port);
    CU_ASSERT_EQUAL(operator_run(args, out, sizeof out), 0); /* a number is sent */
    snprintf(args, sizeof args, "%d stop", port);
    CU_ASSERT_EQUAL(operator_run(args, out, sizeof out), 0);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
    /* the only set that reached the run is the valid one */
    CU_ASSERT_EQUAL(events_count("num", ": set lag.u2 = "), 1);
    CU_ASSERT_TRUE(events_have("num", ": set lag.u2 = 0.75 (applied"));
}

/* ---- rate-limited events.log ---- */

/* Send @p n copies of @p m (freed) to the control port, letting the surface read. */
static void flood(int port, const char *path, lo_message m, int n)
{
    unsigned char buf[128];
    size_t len = sizeof buf;
    CU_ASSERT_PTR_NOT_NULL_FATAL(lo_message_serialise(m, path, buf, &len));
    lo_message_free(m);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    for (int i = 0; i < n; i++) {
        sendto(fd, buf, len, 0, (struct sockaddr *)&to, sizeof to);
        if (i % 50 == 49)
            io_sleep_ms(1); /* most datagrams must arrive, not overflow the socket */
    }
    close(fd);
}

/* 10000 refused datagrams and 2000 re-subscriptions: answered, counted, and logged at most
 * 5 lines plus one count per 1-s window (plus the windows at both ends). */
static void refused_datagram_flood_logs_bounded_lines(void)
{
    io_system("flood.ssd", "0.001");
    io_child run;
    int port = start_run(&run, "flood.ssd", "flood", "");
    client c;
    client_open(&c, port);
    CU_ASSERT_TRUE_FATAL(status_until(&c, 0, 1));
    double t0 = now_s();
    flood(port, "/rtcosim/bogus", lo_message_new(), 10000);
    flood(port, "/rtcosim/subscribe", msg("sd", "lag.y", 1.0), 2000);
    CU_ASSERT_TRUE(call_status(&c)); /* still answering, once its socket has room again */
    CU_ASSERT_STRING_EQUAL(c.last.s[0], "status");
    CU_ASSERT_TRUE(call(&c, "/rtcosim/stop", lo_message_new()) && reply_ok(&c, "stop"));
    double secs = now_s() - t0;
    client_close(&c);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
    size_t lines = events_count("flood", "refused") + events_count("flood", ": subscribe");
    size_t bound = (size_t)(6 * (ceil(secs) + 2));
    printf("\n    12000 datagrams in %.2f s: %zu events.log line(s) (bound %zu)", secs, lines,
           bound);
    CU_ASSERT(lines <= bound);
    CU_ASSERT_TRUE(events_have("flood", "more datagram(s) in the last 1 s, not logged one"));
}

/* A Lag alone: no I/O components, so the defaults allow pause and (unpaced) steps. */
static void write_lag_system(const char *path)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char fmu[700];
    snprintf(fmu, sizeof fmu, "%s/Lag.fmu", work);
    fprintf(f, "%s", ssd_head);
    lag_component(f, "lag", fmu);
    fprintf(f, "</ssd:Elements>\n<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\">"
               "<rtc:RealTime baseStep=\"0.001\" record=\"lag.y\"/></ssc:Annotation>"
               "</ssd:Annotations>\n</ssd:System>\n<ssd:DefaultExperiment startTime=\"0\" "
               "stopTime=\"30\"/>\n</ssd:SystemStructureDescription>\n");
    fclose(f);
}

/* A run of the Lag system in work/@p dir with @p extra options, @p c connected to it. */
static void start_lag(io_child *run, const char *dir, const char *extra, client *c)
{
    char ssd[700];
    snprintf(ssd, sizeof ssd, "%s/lag.ssd", work);
    write_lag_system(ssd);
    client_open(c, start_run(run, "lag.ssd", dir, extra));
}

/* 300 single steps, 300 marks and 300 sets as fast as the surface answers: every one
 * is accepted, but events.log takes 20 of these lines a second and counts the rest into
 * one line a second (summary.json: events_suppressed). */
static void operator_flood_logs_bounded_lines(void)
{
    io_child run;
    client c;
    start_lag(&run, "steps", "--expose lag.u2", &c);
    CU_ASSERT_TRUE_FATAL(status_until(&c, 0, 1));
    CU_ASSERT_TRUE(call(&c, "/rtcosim/pause", lo_message_new()) && reply_ok(&c, "pause"));
    CU_ASSERT_TRUE_FATAL(status_until(&c, 1, 0));
    double k0 = current_k(&c), t0 = now_s();
    int ok = 0;
    for (int i = 0; i < 300; i++) {
        ok += call(&c, "/rtcosim/step", msg("i", 1)) && reply_ok(&c, "step");
        ok += call(&c, "/rtcosim/mark", msg("s", "flood")) && reply_ok(&c, "mark");
        ok += call(&c, "/rtcosim/set", msg("sd", "lag.u2", 0.001 * i)) &&
              !strcmp(c.last.path, "/rtcosim/reply");
    }
    CU_ASSERT_EQUAL(ok, 900);
    double k = k0;
    for (int i = 0; i < 3000 && k < k0 + 300; i++, io_sleep_ms(10))
        k = current_k(&c);
    CU_ASSERT_EQUAL(k, k0 + 300); /* every step ran */
    CU_ASSERT_TRUE(call(&c, "/rtcosim/stop", lo_message_new()) && reply_ok(&c, "stop"));
    double secs = now_s() - t0;
    client_close(&c);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
    size_t lines = events_count("steps", ": step 1 (from step") +
                   events_count("steps", ": mark flood") +
                   events_count("steps", ": set lag.u2 = ");
    size_t bound = (size_t)(20 * (ceil(secs) + 2));
    long suppressed = summary_count("steps", "events_suppressed");
    printf("\n    900 commands in %.2f s: %zu line(s) (bound %zu), %ld counted", secs, lines,
           bound, suppressed);
    CU_ASSERT(lines <= bound);
    /* each one logged or counted (and the pause and stop lines may be counted too) */
    CU_ASSERT_TRUE(lines + (size_t)suppressed >= 900 && lines + (size_t)suppressed <= 902);
    CU_ASSERT_TRUE(events_have("steps", "more line(s) caused by peers"));
    CU_ASSERT_TRUE(events_have("steps", "the operator may: set,pause,step,stop,mark"));
}

/* A sender that falls silent past the dead-man (1 ms) and speaks again, 100 times: each
 * time the dead-man fires (a line, a safe-value command) and re-arms (a line) — lines a
 * peer's rhythm causes, limited like its commands. */
static void deadman_toggles_log_bounded_lines(void)
{
    io_child run;
    client c;
    start_lag(&run, "dm-flood", "--expose lag.u2:safe=0 --deadman-ms 1", &c);
    double t0 = now_s();
    int ok = 0;
    for (int i = 0; i < 100; i++) { /* the surface naps 10 ms without a datagram: it fires */
        ok += call(&c, "/rtcosim/status", lo_message_new()) && !strcmp(c.last.s[0], "status");
        io_sleep_ms(15);
    }
    CU_ASSERT_EQUAL(ok, 100);
    CU_ASSERT_TRUE(call(&c, "/rtcosim/stop", lo_message_new()) && reply_ok(&c, "stop"));
    double secs = now_s() - t0;
    client_close(&c);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
    size_t lines = events_count("dm-flood", "dead-man: ") +
                   events_count("dm-flood", "safe lag.u2 = 0");
    size_t bound = (size_t)(20 * (ceil(secs) + 2));
    printf("\n    100 silences in %.2f s: %zu line(s) (bound %zu)", secs, lines, bound);
    CU_ASSERT_TRUE(events_have("dm-flood", "dead-man: the control surface was silent"));
    CU_ASSERT(lines <= bound);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"io_system_refuses_pause_and_step_without_capability",
         io_system_refuses_pause_and_step_without_capability},
        {"io_system_single_steps_paced_and_bounded", io_system_single_steps_paced_and_bounded},
        {"control_token_guards_every_command", control_token_guards_every_command},
        {"operator_refuses_text_that_is_not_a_number",
         operator_refuses_text_that_is_not_a_number},
        {"refused_datagram_flood_logs_bounded_lines", refused_datagram_flood_logs_bounded_lines},
        {"operator_flood_logs_bounded_lines", operator_flood_logs_bounded_lines},
        {"deadman_toggles_log_bounded_lines", deadman_toggles_log_bounded_lines},
        {"control_remote_needs_a_token", control_remote_needs_a_token},
        {"control_wrong_tokens_counted_never_locking_out",
         control_wrong_tokens_counted_never_locking_out},
        {NULL, NULL}};
    rtc_test_add_suite("session_control", session_setup, session_teardown, cases);
}
