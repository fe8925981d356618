/*
 * The panel's listener against the attacks of issue 19, over real sockets on 127.0.0.1
 * (`rtcosim run controller-plant.ssp --realtime --http 0` as a child process; other hosts
 * are played from 127.0.0.2-3, which the loopback answers too):
 *   - request headers must arrive within 2 s, however slowly they trickle;
 *   - 40 connections that never finish their headers do not lock anybody out, with or
 *     without a token: a new connection makes the oldest waiting one yield;
 *   - one address holds at most half the connections;
 *   - wrong tokens are throttled per address (refused unread), and counted;
 *   - a token shorter than 16 bytes is refused before anything runs (exit 2);
 *   - a command whose Origin is another site is refused;
 *   - summary.json's "surfaces" counts each case.
 * Waits are bounded (30 s) and wait for events; the one upper bound on time (the header
 * deadline) is checked against three times the deadline.
 */
#include "cu_main.h"
#include "panel_util.h"

#include "rtcosim/time.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOKEN "s3cret-token-for-tests-0" /* 24 bytes */

/* A token file (mode 0600) holding @p text; its path into @p path. */
static void token_file(const char *name, const char *text, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", work, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
    CU_ASSERT_EQUAL(chmod(path, 0600), 0);
}

/* A connection from @p src that sends the start of a request and no more; -1 when it
 * could not (no assertion: threads call it too). */
static int half_request_fd(int port, const char *src)
{
    char r[128];
    int n = snprintf(r, sizeof r, "GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: a",
                     port);
    int fd = io_tcp_connect_from(port, src);
    if (fd >= 0 && !io_tcp_send(fd, r, (size_t)n)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static int half_request(int port, const char *src)
{
    int fd = half_request_fd(port, src);
    CU_ASSERT_TRUE(fd >= 0);
    return fd;
}

/* The server has not closed @p fd (no end of stream, no reset, right now). */
static bool still_open(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char c;
    return poll(&p, 1, 0) == 0 || recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

/* A client trickling its headers, one byte per 100 ms, is shut down by the 2 s header
 * deadline: before it has sent 60 bytes (6 s). MHD's idle timeout never fires for it. */
static void panel_headers_must_arrive_within_seconds(void)
{
    io_child run;
    int port = start_panel(&run, "deadline", "", NULL);
    int fd = io_tcp_connect(port);
    CU_ASSERT_FATAL(fd >= 0);
    io_tcp_send(fd, "GET / HTTP/1.1\r\nX-Slow: ", 24);
    int sent = 0;
    bool closed = false;
    while (!closed && sent < 300) { /* 30 s at most */
        struct pollfd p = {.fd = fd, .events = POLLIN};
        char c;
        if (!io_tcp_send(fd, "a", 1) ||
            (poll(&p, 1, 100) > 0 && recv(fd, &c, 1, MSG_DONTWAIT) <= 0))
            closed = true;
        else
            sent++;
    }
    printf("\n    shut down after %d trickled byte(s)", sent);
    CU_ASSERT_TRUE(closed);
    CU_ASSERT_TRUE(sent < 60);
    close(fd);
    CU_ASSERT_EQUAL(stop_run(&run, port), 0);
    CU_ASSERT_TRUE(summary_num("deadline", "surfaces", "panel", "header_timeouts") >= 1);
}

/* 40 half requests hold more than every slot (32, 16 per address); a new client is served
 * at once, again and again: the oldest half requests yield (once 100 ms old: a younger
 * connection may have its request on the way). */
static void forty_slowloris(const char *dir, const char *extra, const char *headers)
{
    io_child run;
    int port = start_panel(&run, dir, extra, NULL);
    int fd[40];
    for (int i = 0; i < 40; i++)
        fd[i] = half_request(port, "127.0.0.1");
    int ok = 0;
    answer_timeout_s = 3; /* reachable: answered in a moment, not when a deadline fires */
    for (int i = 0; i < 5; i++)
        ok += req(port, "GET", "/api/info", headers) == 200;
    answer_timeout_s = 30;
    CU_ASSERT_EQUAL(ok, 5);
    /* served at once, not when the header deadline freed the slots: the 16 newest half
     * requests (fd[24..39]) were let in, the 5 requests made fd[24..28] yield, the rest
     * still wait (before, the deadline had to close fd[0..31]: 10 s) */
    CU_ASSERT_TRUE(still_open(fd[31]));
    for (int i = 0; i < 24; i++) /* the oldest yielded (once 100 ms old) */
        CU_ASSERT_TRUE(io_tcp_wait_closed(fd[i], 30000));
    for (int i = 0; i < 40; i++)
        close(fd[i]);
    char stop[256];
    snprintf(stop, sizeof stop, "op=stop%s%s", *headers ? "&token=" : "",
             *headers ? TOKEN : "");
    CU_ASSERT_EQUAL(cmd(port, stop), 200);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
    CU_ASSERT_TRUE(summary_num(dir, "surfaces", "panel", "evicted") >= 24);
}

static void panel_forty_slowloris_lock_nobody_out(void)
{
    forty_slowloris("loris", "", "");
}

static void panel_forty_slowloris_lock_nobody_out_with_token(void)
{
    char tok[700], extra[800];
    token_file("loris-token", TOKEN "\n", tok, sizeof tok);
    snprintf(extra, sizeof extra, "--http-token '%s'", tok);
    forty_slowloris("loris-tok", extra, "X-Rtcosim-Token: " TOKEN "\r\n");
}

/* 40 half requests that come back at once whenever the server shuts them down, each
 * trickling a byte every 100 ms: what an attacker really runs. */
typedef struct loris {
    int port, fd[40];
    atomic_bool stop;
    atomic_int reconnects;
    pthread_t tid;
} loris;

static void *loris_main(void *arg)
{
    loris *l = arg;
    for (int64_t next = 0; !atomic_load(&l->stop);) {
        struct pollfd p[40];
        for (int i = 0; i < 40; i++)
            p[i] = (struct pollfd){.fd = l->fd[i], .events = POLLIN};
        poll(p, 40, 10);
        bool trickle = rtc_time_now_ns() >= next;
        next = trickle ? rtc_time_now_ns() + 100000000 : next;
        for (int i = 0; i < 40; i++) {
            char c;
            bool gone = l->fd[i] < 0 || ((p[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
                                         recv(l->fd[i], &c, 1, MSG_DONTWAIT) <= 0) ||
                        (trickle && !io_tcp_send(l->fd[i], "a", 1));
            if (!gone)
                continue;
            if (l->fd[i] >= 0)
                close(l->fd[i]);
            l->fd[i] = half_request_fd(l->port, "127.0.0.1");
            atomic_fetch_add(&l->reconnects, 1);
        }
    }
    for (int i = 0; i < 40; i++)
        if (l->fd[i] >= 0)
            close(l->fd[i]);
    return NULL;
}

static bool loris_churning(void *arg)
{
    return atomic_load(&((loris *)arg)->reconnects) >= 24;
}

/* The same attack, coming back: every request of a client is still served, each within
 * 3 s (before, the first waited for the 10 s header deadline). */
static void panel_returning_slowloris_lock_nobody_out(void)
{
    io_child run;
    int port = start_panel(&run, "loris-back", "", NULL);
    loris l = {.port = port};
    for (int i = 0; i < 40; i++)
        l.fd[i] = half_request(port, "127.0.0.1");
    CU_ASSERT_EQUAL_FATAL(pthread_create(&l.tid, NULL, loris_main, &l), 0);
    int ok = 0;
    int64_t t0 = rtc_time_now_ns();
    answer_timeout_s = 3; /* reachable: answered in a moment, not when a deadline fires */
    for (int i = 0; i < 20; i++) { /* over a second: the half requests keep coming back */
        rtc_time_sleep_until_ns(t0 + i * 50000000LL);
        ok += req(port, "GET", "/api/info", "") == 200;
    }
    answer_timeout_s = 30;
    CU_ASSERT_TRUE(io_wait(loris_churning, &l, 30000)); /* the limit pushed them out */
    atomic_store(&l.stop, true);
    pthread_join(l.tid, NULL);
    printf("\n    %d of 20 served beside %d returning half requests", ok,
           atomic_load(&l.reconnects));
    CU_ASSERT_EQUAL(ok, 20);
    CU_ASSERT_EQUAL(stop_run(&run, port), 0);
}

/* 20 half requests from one address: it keeps at most 16 (half of 32) — its own oldest
 * yield — and another address is served beside them without anybody yielding. */
static void panel_one_address_holds_at_most_half(void)
{
    io_child run;
    int port = start_panel(&run, "share", "", NULL);
    int fd[20];
    for (int i = 0; i < 20; i++)
        fd[i] = half_request(port, "127.0.0.2");
    for (int i = 0; i < 4; i++)
        CU_ASSERT_TRUE(io_tcp_wait_closed(fd[i], 30000));
    CU_ASSERT_TRUE(still_open(fd[4])); /* closed for the limit, not by the header deadline */
    char r[256];
    int n = snprintf(r, sizeof r, "GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                     "Connection: close\r\n\r\n", port);
    CU_ASSERT_EQUAL(raw_from(port, "127.0.0.3", r, (size_t)n), 200);
    for (int i = 0; i < 20; i++)
        close(fd[i]);
    CU_ASSERT_EQUAL(stop_run(&run, port), 0);
    CU_ASSERT_EQUAL(summary_num("share", "surfaces", "panel", "evicted"), 4);
}

/* GET /api/info from @p src with @p token (NULL: none). */
static int info_from(int port, const char *src, const char *token)
{
    char r[512];
    int n = snprintf(r, sizeof r, "GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                     "Connection: close\r\n%s%s%s\r\n", port, token ? "X-Rtcosim-Token: " : "",
                     token ? token : "", token ? "\r\n" : "");
    return raw_from(port, src, r, (size_t)n);
}

/* Three wrong tokens are only refused; the fourth blocks its address, whose requests are
 * then refused unread (429, the right token too) while another address is served; the
 * block ends and the right token is taken again. */
static void panel_wrong_tokens_throttled_per_address(void)
{
    char tok[700], extra[800];
    token_file("throttle-token", TOKEN "\n", tok, sizeof tok);
    snprintf(extra, sizeof extra, "--http-token '%s'", tok);
    io_child run;
    int port = start_panel(&run, "throttle", extra, NULL);
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(info_from(port, "127.0.0.2", "s3cret-token-for-tests-X"), 401);
        CU_ASSERT_TRUE(has("missing or wrong token"));
    }
    CU_ASSERT_EQUAL(info_from(port, "127.0.0.2", "s3cret-token-for-tests-Y"), 401);
    CU_ASSERT_TRUE(has("refused unread for"));
    CU_ASSERT_EQUAL(info_from(port, "127.0.0.2", TOKEN), 429);
    CU_ASSERT_TRUE(has("too many wrong tokens from this address"));
    CU_ASSERT_EQUAL(info_from(port, "127.0.0.3", TOKEN), 200);
    int st = 429;
    for (int i = 0; i < 300 && st == 429; i++) /* the block (1 s) ends */
        if ((st = info_from(port, "127.0.0.2", TOKEN)) == 429)
            io_sleep_ms(100);
    CU_ASSERT_EQUAL(st, 200);
    CU_ASSERT_EQUAL(req(port, "POST", "/api/cmd?op=stop",
                        "X-Rtcosim-Panel: 1\r\nX-Rtcosim-Token: " TOKEN "\r\n"), 200);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
    CU_ASSERT_EQUAL(summary_num("throttle", "surfaces", "panel", "wrong_tokens"), 4);
    CU_ASSERT_TRUE(summary_num("throttle", "surfaces", "panel", "throttled") >= 1);
}

/* A 15-byte token: one line naming the option and the rule, exit 2, nothing run. */
static void panel_short_token_refused_before_the_run(void)
{
    char tok[700], line[1600], out[4096];
    token_file("short-token", "fifteen-bytes!!\n", tok, sizeof tok);
    snprintf(line, sizeof line, "cd '%s' && '%s' run '%s' --realtime --priority 0 --stop 1 "
             "--http 0 --http-token '%s' --output-dir short", work, RTCOSIM_EXE, SYSTEM, tok);
    CU_ASSERT_EQUAL(rtc_test_run(line, out, sizeof out), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--http-token"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "15 byte(s): a token needs at least 16"));
    CU_ASSERT_PTR_NULL(strchr(strchr(out, '\n') ? strchr(out, '\n') + 1 : "", '\n'));
    snprintf(line, sizeof line, "%s/short/summary.json", work);
    CU_ASSERT_NOT_EQUAL(access(line, F_OK), 0);
}

/* POST /api/cmd?op=mark&text=... with @p origin ("": no Origin header). */
static int mark_from_origin(int port, const char *origin, const char *text)
{
    char path[128], headers[256];
    snprintf(path, sizeof path, "/api/cmd?op=mark&text=%s", text);
    snprintf(headers, sizeof headers, "X-Rtcosim-Panel: 1\r\n%s%s%s", *origin ? "Origin: " : "",
             origin, *origin ? "\r\n" : "");
    return req(port, "POST", path, headers);
}

/* A command from a page of another origin is refused (a browser names it in Origin);
 * the panel's own origin and clients without one are served. */
static void panel_cross_origin_commands_refused(void)
{
    io_child run;
    int port = start_panel(&run, "origin", "", NULL);
    char own[64];
    snprintf(own, sizeof own, "http://127.0.0.1:%d", port);
    CU_ASSERT_EQUAL(mark_from_origin(port, "http://evil.example", "evil"), 403);
    CU_ASSERT_TRUE(has("cross-origin command refused"));
    CU_ASSERT_EQUAL(mark_from_origin(port, "null", "null"), 403);
    CU_ASSERT_EQUAL(mark_from_origin(port, "http://127.0.0.1:1", "port"), 403);
    CU_ASSERT_EQUAL(mark_from_origin(port, own, "own"), 200);
    CU_ASSERT_EQUAL(mark_from_origin(port, "", "script"), 200);
    CU_ASSERT_EQUAL(stop_run(&run, port), 0);
    CU_ASSERT_FALSE(events_have("origin", "mark evil"));
    CU_ASSERT_FALSE(events_have("origin", "mark null"));
    CU_ASSERT_TRUE(events_have("origin", "mark own"));
    CU_ASSERT_TRUE(events_have("origin", "mark script"));
    CU_ASSERT_EQUAL(summary_num("origin", "surfaces", "panel", "cross_origin"), 3);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"panel_headers_must_arrive_within_seconds", panel_headers_must_arrive_within_seconds},
        {"panel_forty_slowloris_lock_nobody_out", panel_forty_slowloris_lock_nobody_out},
        {"panel_forty_slowloris_lock_nobody_out_with_token",
         panel_forty_slowloris_lock_nobody_out_with_token},
        {"panel_returning_slowloris_lock_nobody_out", panel_returning_slowloris_lock_nobody_out},
        {"panel_one_address_holds_at_most_half", panel_one_address_holds_at_most_half},
        {"panel_wrong_tokens_throttled_per_address", panel_wrong_tokens_throttled_per_address},
        {"panel_short_token_refused_before_the_run", panel_short_token_refused_before_the_run},
        {"panel_cross_origin_commands_refused", panel_cross_origin_commands_refused},
        {NULL, NULL}};
    rtc_test_add_suite("panel_trust", session_setup, session_teardown, cases);
}
