/*
 * The browser operator panel (rtcosim/panel.h) attacked and used over real sockets on
 * 127.0.0.1: `rtcosim run controller-plant.ssp --realtime --http 0` as a child process,
 * raw HTTP requests from this process.
 *   - the page and dygraphs come from the binary; /api/info lists the exposed variable
 *     with its clamp, rate and safe value; the stream delivers frames;
 *   - path traversal, malformed requests, oversized headers, announced bodies (huge or
 *     chunked), a slowloris that trickles its headers, too many streams, a command flood:
 *     answered or closed, never a crash, a hang or a write;
 *   - commands need the panel header, a loopback Host, the capability (--control-allow),
 *     a number in range (bad values refused with the reason, clamps reported);
 *   - --http-token: every request carries it; another address without a token is refused;
 *   - OSC and the panel at once: every accepted set is applied once, and logged or
 *     counted once (the session's command path serialises both surfaces; events.log takes
 *     20 peer lines a second and counts the rest).
 * The panel's admission, deadlines, token throttle and Origin rule: test_panel_trust.c.
 * Waits are bounded (30 s) and wait for events, never for a time window.
 */
#include "cu_main.h"
#include "panel_util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- tests ---- */

static void test_panel_page_and_info_served_from_binary(void)
{
    io_child run;
    int port = start_panel(&run, "page", "", NULL);
    CU_ASSERT_EQUAL(req(port, "GET", "/", ""), 200);
    CU_ASSERT_TRUE(has("rtcosim operator panel") && has("Content-Security-Policy"));
    CU_ASSERT_EQUAL(req(port, "GET", "/dygraph.min.js", ""), 200);
    CU_ASSERT_TRUE(strlen(resp) > 100000 && has("Dygraph"));
    CU_ASSERT_EQUAL(req(port, "GET", "/api/info", ""), 200);
    CU_ASSERT_TRUE(has("{\"name\":\"controller.r\",\"unit\":\"1\",\"min\":"));
    CU_ASSERT_TRUE(has("\"caps\":\"set,pause,step,stop,mark\""));
    json_t *info = body_json(), *var = json_array_get(json_object_get(info, "vars"), 0);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(var, "name")), "controller.r");
    CU_ASSERT_EQUAL(num(var, "min"), -1.0);
    CU_ASSERT_EQUAL(num(var, "max"), 2.0);
    CU_ASSERT_EQUAL(num(var, "rate"), 5.0);
    CU_ASSERT_EQUAL(num(var, "safe"), 0.0);
    CU_ASSERT_EQUAL(num(var, "column"), 0.0); /* recorded: results.csv's first column */
    CU_ASSERT_EQUAL(num(var, "value"), 0.5);  /* its current value, before any set */
    const char *unit = json_string_value(json_array_get(json_object_get(info, "units"), 0));
    CU_ASSERT_STRING_EQUAL(unit ? unit : "(none)", "1");
    CU_ASSERT_EQUAL(json_array_size(json_object_get(info, "io")), 0);
    CU_ASSERT_EQUAL(num(info, "tick_s"), 0.001); /* baseStep of the example */
    CU_ASSERT_EQUAL(num(info, "frame_hz"), 25.0);
    CU_ASSERT_TRUE(json_is_false(json_object_get(info, "has_io")));
    json_decref(info);
    CU_ASSERT_EQUAL(stop_run(&run, port), 0);
}

static void test_panel_traversal_and_unknown_paths_not_found(void)
{
    io_child run;
    int port = start_panel(&run, "traversal", "", NULL);
    static const char *const paths[] = {"/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
                                        "/panel.js/../../../etc/passwd", "//etc/passwd",
                                        "/index.html%00.js", "/api/../../etc/passwd",
                                        "/usr/share/javascript/dygraphs/dygraph.js"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        int st = req(port, "GET", paths[i], "");
        if (st != 404 && st != 400)
            printf("\n    GET %s: %d", paths[i], st);
        CU_ASSERT_TRUE(st == 404 || st == 400);
        CU_ASSERT_PTR_NULL(strstr(resp, "root:"));
    }
    CU_ASSERT_TRUE(alive(&run));
    CU_ASSERT_EQUAL(stop_run(&run, port), 0);
}

static void test_panel_malformed_requests_answered_or_closed(void)
{
    io_child run;
    int port = start_panel(&run, "malformed", "", NULL);
    static const char garbage[] = "\x00\x01\x02\xff garbage\r\n\r\n";
    CU_ASSERT_TRUE(raw(port, garbage, sizeof garbage - 1) >= 0);
    static const char *const bad[] = {"GET\r\n\r\n", "GET / HTTP/9.9\r\n\r\n",
                                      "GET / HTTP/1.1\r\nno colon here\r\n\r\n",
                                      "\r\n\r\n\r\n", "POST /api/cmd?op=stop HTTP/1.1\r\n\r\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT_TRUE(raw(port, bad[i], strlen(bad[i])) != 200);
    /* a header beyond the connection's memory: 431 or closed, never served */
    size_t n = 40000;
    char *big = malloc(n + 200);
    int len = snprintf(big, 200, "GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Big: ",
                       port);
    memset(big + len, 'a', n);
    memcpy(big + len + n, "\r\n\r\n", 4);
    int st = raw(port, big, (size_t)len + n + 4);
    CU_ASSERT_TRUE(st != 200 && st != -1);
    free(big);
    CU_ASSERT_TRUE(alive(&run));
    CU_ASSERT_EQUAL(req(port, "GET", "/api/info", ""), 200);
    CU_ASSERT_FALSE(events_have("malformed", "stop (before step"));
    CU_ASSERT_EQUAL(stop_run(&run, port), 0);
}

static void test_panel_bodies_refused_before_read(void)
{
    io_child run;
    int port = start_panel(&run, "bodies", "", NULL);
    char head[512];
    int n = snprintf(head, sizeof head, "POST /api/cmd?op=stop HTTP/1.1\r\nHost: 127.0.0.1:%d"
                     "\r\nX-Rtcosim-Panel: 1\r\nContent-Length: 100000000\r\n\r\n", port);
    char *body = calloc(1, (size_t)n + 65536);
    memcpy(body, head, (size_t)n);
    CU_ASSERT_EQUAL(raw(port, body, (size_t)n + 65536), 413);
    CU_ASSERT_TRUE(has("carry no body"));
    n = snprintf(head, sizeof head, "POST /api/cmd?op=stop HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                 "X-Rtcosim-Panel: 1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n",
                 port);
    CU_ASSERT_EQUAL(raw(port, head, (size_t)n), 413);
    free(body);
    CU_ASSERT_TRUE(alive(&run));
    CU_ASSERT_FALSE(events_have("bodies", "stop (before step"));
    CU_ASSERT_EQUAL(stop_run(&run, port), 0);
}

/* A client that trickles its request headers, one byte every 200 ms, keeps MHD's idle
 * timeout from firing; the panel's header deadline (2 s) shuts it down. Meanwhile other
 * clients are served. */
static void test_panel_slowloris_shut_down_others_served(void)
{
    io_child run;
    int port = start_panel(&run, "slowloris", "", NULL);
    int fd = io_tcp_connect(port);
    CU_ASSERT_FATAL(fd >= 0);
    io_tcp_send(fd, "GET / HTTP/1.1\r\nX-Slow: ", 24);
    bool closed = false;
    for (int i = 0; i < 150 && !closed; i++) { /* 30 s at most */
        struct pollfd p = {.fd = fd, .events = POLLIN};
        char c;
        if (!io_tcp_send(fd, "a", 1) ||
            (poll(&p, 1, 200) > 0 && recv(fd, &c, 1, MSG_DONTWAIT) <= 0))
            closed = true;
        if (i == 5)
            CU_ASSERT_EQUAL(req(port, "GET", "/api/info", ""), 200);
    }
    CU_ASSERT_TRUE(closed);
    close(fd);
    CU_ASSERT_EQUAL(stop_run(&run, port), 0);
}

static void test_panel_set_values_checked_with_reason(void)
{
    io_child run;
    int port = start_panel(&run, "values", "", NULL);
    CU_ASSERT_EQUAL(cmd(port, "op=set&name=controller.r&value=abc"), 400);
    CU_ASSERT_TRUE(has("value 'abc' is not a number"));
    CU_ASSERT_EQUAL(cmd(port, "op=set&name=controller.r&value=nan"), 400);
    CU_ASSERT_TRUE(has("not a finite number"));
    CU_ASSERT_EQUAL(cmd(port, "op=set&name=controller.r&value=1e999"), 400);
    CU_ASSERT_EQUAL(cmd(port, "op=set&name=controller.r"), 400);
    CU_ASSERT_EQUAL(cmd(port, "op=set&name=plant.x1&value=1"), 404);
    CU_ASSERT_TRUE(has("plant.x1 is not exposed"));
    CU_ASSERT_EQUAL(cmd(port, "op=step&n=0"), 400);
    CU_ASSERT_EQUAL(cmd(port, "op=step&n=1e300"), 400);
    CU_ASSERT_EQUAL(cmd(port, "op=set&name=controller.r&value=5"), 200);
    json_t *set = body_json();
    CU_ASSERT_TRUE(json_is_true(json_object_get(set, "ok")));
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(set, "name")), "controller.r");
    CU_ASSERT_EQUAL(num(set, "applied"), 2.0);
    CU_ASSERT_TRUE(json_is_true(json_object_get(set, "clamped")));
    json_decref(set);
    CU_ASSERT_EQUAL(stop_run(&run, port), 0);
    /* the refused ones changed nothing: one applied set, the clamped one */
    CU_ASSERT_EQUAL(events_count("values", "set controller.r = "), 2); /* clamp + applied */
    CU_ASSERT_EQUAL(events_count("values", "set controller.r = 2 (applied before step"), 1);
}

static void test_panel_commands_need_header_host_and_capability(void)
{
    io_child run;
    int port = start_panel(&run, "guarded", "--control-allow set,stop", NULL);
    CU_ASSERT_EQUAL(req(port, "POST", "/api/cmd?op=stop", ""), 403);
    CU_ASSERT_TRUE(has("X-Rtcosim-Panel"));
    CU_ASSERT_EQUAL(cmd(port, "op=pause"), 403);
    CU_ASSERT_TRUE(has("needs the capability 'pause'"));
    CU_ASSERT_EQUAL(cmd(port, "op=mark&text=hello"), 403);
    CU_ASSERT_EQUAL(cmd(port, "op=bogus"), 400);
    CU_ASSERT_EQUAL(req(port, "GET", "/api/cmd?op=stop", "X-Rtcosim-Panel: 1\r\n"), 405);
    char r[512];
    int n = snprintf(r, sizeof r, "POST /api/cmd?op=stop HTTP/1.1\r\nHost: evil.example:%d\r\n"
                     "X-Rtcosim-Panel: 1\r\nConnection: close\r\n\r\n", port);
    CU_ASSERT_EQUAL(raw(port, r, (size_t)n), 421);
    CU_ASSERT_TRUE(alive(&run));
    CU_ASSERT_EQUAL(stop_run(&run, port), 0);
    CU_ASSERT_FALSE(events_have("guarded", "pause (before step"));
    CU_ASSERT_FALSE(events_have("guarded", "mark hello"));
    CU_ASSERT_TRUE(events_have("guarded", "refused: pause needs the capability 'pause'"));
}

static void test_panel_token_required_when_given(void)
{
    char tok[600], out[4096];
    snprintf(tok, sizeof tok, "%s/token", work);
    FILE *f = fopen(tok, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("s3cret-token-for-tests-0\n", f);
    fclose(f);
    chmod(tok, 0644); /* readable by everyone: refused */
    char line[1600];
    snprintf(line, sizeof line, "cd '%s' && '%s' run '%s' --realtime --priority 0 --stop 1 "
             "--http 0 --http-token '%s' --output-dir tok0", work, RTCOSIM_EXE, SYSTEM, tok);
    CU_ASSERT_NOT_EQUAL(rtc_test_run(line, out, sizeof out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--http-token"));
    snprintf(line, sizeof line, "cd '%s' && '%s' run '%s' --realtime --priority 0 --stop 1 "
             "--http 0 --http-address 0.0.0.0 --output-dir tok1", work, RTCOSIM_EXE, SYSTEM);
    CU_ASSERT_NOT_EQUAL(rtc_test_run(line, out, sizeof out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "needs a token"));
    chmod(tok, 0600);
    snprintf(line, sizeof line, "cd '%s' && '%s' run '%s' --realtime --priority 0 --stop 1 "
             "--http 0 --http-address 127.0.0.1.5 --http-token '%s' --output-dir tok1", work,
             RTCOSIM_EXE, SYSTEM, tok);
    CU_ASSERT_NOT_EQUAL(rtc_test_run(line, out, sizeof out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--http-address 127.0.0.1.5: not an IPv4 address"));
    char extra[700];
    snprintf(extra, sizeof extra, "--http-token '%s'", tok);
    io_child run;
    int port = start_panel(&run, "tok2", extra, NULL);
    CU_ASSERT_EQUAL(req(port, "GET", "/api/info", ""), 401);
    CU_ASSERT_EQUAL(req(port, "GET", "/api/info",
                        "X-Rtcosim-Token: s3cret-token-for-tests-X\r\n"), 401);
    CU_ASSERT_EQUAL(req(port, "GET", "/api/info?token=s3cret", ""), 401);
    CU_ASSERT_EQUAL(req(port, "GET", "/api/info",
                        "X-Rtcosim-Token: s3cret-token-for-tests-0\r\n"), 200);
    CU_ASSERT_EQUAL(req(port, "GET", "/?token=s3cret-token-for-tests-0", ""), 200);
    CU_ASSERT_EQUAL(req(port, "POST", "/api/cmd?op=stop", "X-Rtcosim-Panel: 1\r\n"), 401);
    CU_ASSERT_TRUE(alive(&run));
    CU_ASSERT_EQUAL(req(port, "POST", "/api/cmd?op=stop",
                        "X-Rtcosim-Panel: 1\r\nX-Rtcosim-Token: s3cret-token-for-tests-0\r\n"),
                    200);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
}

/* Bad panel options: one line naming the option, a non-zero exit, nothing listening. */
static void test_panel_bad_options_refused(void)
{
    static const struct {
        const char *args, *needle;
    } cases[] = {
        {"--http 0", "--http needs --realtime"},
        {"--realtime --priority 0 --http 70000", "--http 70000"},
        {"--realtime --priority 0 --http-token /nonexistent", "--http-token needs the panel"},
        {"--realtime --priority 0 --http 0 --http-token /nonexistent",
         "--http-token /nonexistent"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char line[1600], out[4096];
        snprintf(line, sizeof line, "cd '%s' && '%s' run '%s' --stop 1 %s --output-dir bad",
                 work, RTCOSIM_EXE, SYSTEM, cases[i].args);
        CU_ASSERT_NOT_EQUAL(rtc_test_run(line, out, sizeof out), 0);
        if (!strstr(out, cases[i].needle))
            printf("\n    expected '%s' in: %.300s", cases[i].needle, out);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].needle));
    }
}

/* A flood of commands: the bucket refuses what is beyond 50 a second (429), and events.log
 * gets a bounded number of refusal lines. */
static void test_panel_command_flood_rate_limited(void)
{
    io_child run;
    int port = start_panel(&run, "flood", "", NULL);
    int ok = 0, limited = 0;
    for (int i = 0; i < 300; i++) {
        int st = cmd(port, "op=mark&text=flood");
        ok += st == 200;
        limited += st == 429;
    }
    CU_ASSERT_TRUE(limited > 0);
    CU_ASSERT_EQUAL(ok + limited, 300);
    printf("\n    %d mark(s) accepted, %d refused (429)", ok, limited);
    CU_ASSERT_EQUAL(stop_run(&run, port), 0);
    /* each accepted mark is logged or counted (events.log: 20 peer lines a second) */
    size_t marks = events_count("flood", "mark flood");
    double suppressed = summary_num("flood", "session", NULL, "events_suppressed");
    CU_ASSERT_TRUE(marks <= (size_t)ok && marks + suppressed >= ok &&
                   marks + suppressed <= ok + 1.0); /* (+ the stop command's line) */
    /* 5 refusal lines a second plus one summary per window, not one per request */
    CU_ASSERT_TRUE(events_count("flood", "refused") < (size_t)limited);
    CU_ASSERT_TRUE(events_have("flood", "more panel request(s)"));
    /* the run's own count: every 429 (the flood's, and stop_run's retries) */
    char path[700];
    snprintf(path, sizeof path, "%s/flood/events.log", work);
    char *text = rtc_test_slurp(path, NULL), *q = text ? strstr(text, "answered, ") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_TRUE(strtol(q + 10, NULL, 10) >= limited);
    free(text);
}

/* The first whole frame in @p sse (a stream's bytes) is one line of JSON with the run's
 * state, tick and the newest value of the one recorded column. */
static void check_frame(const char *sse)
{
    const char *d = strstr(sse, "event: frame\ndata: "), *end = d ? strstr(d, "\n\n") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(end);
    d += strlen("event: frame\ndata: ");
    json_error_t e;
    json_t *f = json_loadb(d, (size_t)(end - d), JSON_REJECT_DUPLICATES, &e);
    if (!f)
        printf("\n    frame: %s: %.300s", e.text, d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(f, "state")), "running");
    CU_ASSERT_TRUE(json_is_integer(json_object_get(f, "tick")));
    CU_ASSERT_TRUE(num(f, "sim_t") >= 0);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(f, "v")), 1);
    CU_ASSERT_TRUE(json_is_array(json_object_get(f, "io")));
    CU_ASSERT_TRUE(json_is_array(json_object_get(f, "estimates"))); /* none late here */
    json_decref(f);
}

/* Streams: frames arrive; beyond RTC__PANEL_MAX_STREAMS (8) a stream is refused (503). */
static void test_panel_streams_frames_and_bounded(void)
{
    io_child run;
    int port = start_panel(&run, "streams", "", NULL);
    int fds[8];
    char r[256];
    int n = snprintf(r, sizeof r, "GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n",
                     port);
    for (int i = 0; i < 8; i++) {
        fds[i] = io_tcp_connect(port);
        CU_ASSERT_FATAL(fds[i] >= 0);
        io_tcp_send(fds[i], r, (size_t)n);
    }
    /* the first stream: three frames */
    size_t len = 0, frames = 0;
    char *buf = calloc(1, 1 << 20);
    for (int i = 0; i < 300 && frames < 3; i++) {
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        if (poll(&p, 1, 100) > 0) {
            ssize_t got = recv(fds[0], buf + len, (1 << 20) - 1 - len, 0);
            len += got > 0 ? (size_t)got : 0;
            buf[len] = '\0';
            frames = 0;
            for (char *q = buf; (q = strstr(q, "event: frame")) != NULL; q++)
                frames++;
        }
    }
    CU_ASSERT_TRUE(frames >= 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"state\":\"running\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "event: log"));
    check_frame(buf);
    free(buf);
    CU_ASSERT_EQUAL(req(port, "GET", "/api/stream", ""), 503);
    for (int i = 0; i < 8; i++)
        close(fds[i]);
    CU_ASSERT_EQUAL(stop_run(&run, port), 0);
}

/* A system with an I/O component (an OSC set-point feeding a Lag FMU): the frames carry
 * its health, and the bench's default capabilities hold for the panel too (no pause). */
static void test_panel_io_health_and_bench_capabilities(void)
{
    char ssd[700];
    snprintf(ssd, sizeof ssd, "%s/io.ssd", work);
    write_osc_system(ssd, io_free_port(SOCK_DGRAM), "0.001", "");
    io_child run;
    int port = start_panel_run(&run, ssd, "io", "", NULL);
    CU_ASSERT_EQUAL(req(port, "GET", "/api/info", ""), 200);
    CU_ASSERT_TRUE(has("\"caps\":\"set,stop,mark\",\"has_io\":true"));
    CU_ASSERT_EQUAL(cmd(port, "op=pause"), 403);
    CU_ASSERT_TRUE(has("needs the capability 'pause'"));
    int fd = io_tcp_connect(port);
    CU_ASSERT_FATAL(fd >= 0);
    char r[256], *buf = calloc(1, 1 << 16);
    int n = snprintf(r, sizeof r, "GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n",
                     port);
    io_tcp_send(fd, r, (size_t)n);
    size_t len = 0;
    for (int i = 0; i < 300 && !strstr(buf, "\"io\":[{\"name\":\"op\",\"up\":"); i++) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 100) > 0 && len + 1 < (1 << 16)) {
            ssize_t got = recv(fd, buf + len, (1 << 16) - 1 - len, 0);
            len += got > 0 ? (size_t)got : 0;
        }
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"io\":[{\"name\":\"op\",\"up\":"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"signals\":1,"));
    free(buf);
    close(fd);
    CU_ASSERT_EQUAL(stop_run(&run, port), 0);
    CU_ASSERT_FALSE(events_have("io", "pause (before step"));
}

/* ---- OSC and the panel at once ---- */

typedef struct osc_flood {
    int port, accepted;
} osc_flood;

static void *osc_sets(void *arg)
{
    osc_flood *o = arg;
    client c;
    client_open(&c, o->port);
    for (int i = 0; i < 100; i++)
        if (call(&c, "/rtcosim/set", msg("sd", "controller.r", 0.01 * i)) &&
            !strcmp(c.last.path, "/rtcosim/reply"))
            o->accepted++;
    client_close(&c);
    return NULL;
}

static void test_panel_and_osc_share_the_command_path(void)
{
    io_child run;
    osc_flood o = {0};
    int port = start_panel(&run, "both", "", &o.port);
    pthread_t t;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, osc_sets, &o), 0);
    int accepted = 0;
    for (int i = 0; i < 40; i++) { /* within the panel's command rate */
        char q[128];
        snprintf(q, sizeof q, "op=set&name=controller.r&value=%d", -1 + i % 3);
        accepted += cmd(port, q) == 200;
    }
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(accepted, 40);
    CU_ASSERT_EQUAL(o.accepted, 100);
    CU_ASSERT_EQUAL(stop_run(&run, port), 0);
    size_t sets = events_count("both", "(applied before step");
    double suppressed = summary_num("both", "session", NULL, "events_suppressed");
    printf("\n    140 sets: %zu line(s), %.0f counted", sets, suppressed);
    CU_ASSERT_TRUE(sets + suppressed >= 140 && sets + suppressed <= 141); /* (+ stop) */
    char line[1200], out[4096];
    snprintf(line, sizeof line, "cd '%s' && '%s' replay both", work, RTCOSIM_EXE);
    CU_ASSERT_EQUAL(rtc_test_run(line, out, sizeof out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "identical"));
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"panel_page_and_info_served_from_binary", test_panel_page_and_info_served_from_binary},
        {"panel_traversal_and_unknown_paths_not_found",
         test_panel_traversal_and_unknown_paths_not_found},
        {"panel_malformed_requests_answered_or_closed",
         test_panel_malformed_requests_answered_or_closed},
        {"panel_bodies_refused_before_read", test_panel_bodies_refused_before_read},
        {"panel_slowloris_shut_down_others_served", test_panel_slowloris_shut_down_others_served},
        {"panel_set_values_checked_with_reason", test_panel_set_values_checked_with_reason},
        {"panel_commands_need_header_host_and_capability",
         test_panel_commands_need_header_host_and_capability},
        {"panel_token_required_when_given", test_panel_token_required_when_given},
        {"panel_bad_options_refused", test_panel_bad_options_refused},
        {"panel_command_flood_rate_limited", test_panel_command_flood_rate_limited},
        {"panel_streams_frames_and_bounded", test_panel_streams_frames_and_bounded},
        {"panel_io_health_and_bench_capabilities", test_panel_io_health_and_bench_capabilities},
        {"panel_and_osc_share_the_command_path", test_panel_and_osc_share_the_command_path},
        {NULL, NULL}};
    rtc_test_add_suite("panel", session_setup, session_teardown, cases);
}
