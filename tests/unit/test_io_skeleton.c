/*
 * The skeleton driver (UDP sample frames, drv_skeleton.c) and through it the driver base:
 * a plain UDP socket of this process is the peer on 127.0.0.1. The driver runs through
 * open, start, frames both ways through the mailboxes, a malformed frame, the safe-value
 * hand-off in the I/O thread and in the caller, the latch and its release by start, the
 * stop path, staleness and the link state, stats and close; two drivers make a bridge;
 * bad settings are refused with one message naming the setting.
 */
#include "cu_main.h"
#include "io_cfg.h"
#include "io_util.h"

#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define WAIT_MS 5000

static io_log LOG;
static io_cfg *CFG, *CFG2;

static int suite_init(void)
{
    io_log_init(&LOG);
    CFG = calloc(1, sizeof *CFG);
    CFG2 = calloc(1, sizeof *CFG2);
    return CFG && CFG2 ? 0 : 1;
}

static int suite_clean(void)
{
    free(CFG);
    free(CFG2);
    return 0;
}

/* ---- the peer: a UDP socket on 127.0.0.1 ---- */

static int peer_open(int *port)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    CU_ASSERT_FATAL(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
                    getsockname(fd, (struct sockaddr *)&a, &al) == 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static void put_be64(uint8_t *p, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    for (int k = 0; k < 8; k++)
        p[k] = (uint8_t)(u >> (56 - 8 * k));
}

static double get_be64(const uint8_t *p)
{
    uint64_t u = 0;
    for (int k = 0; k < 8; k++)
        u = u << 8 | p[k];
    double v;
    memcpy(&v, &u, 8);
    return v;
}

/* Send a frame of n values (mark: "RTCF" unless another is given) to 127.0.0.1:port. */
static void peer_send(int fd, int port, const char *mark, const double *v, size_t n)
{
    uint8_t buf[256];
    memcpy(buf, mark, 4);
    for (size_t i = 0; i < n; i++)
        put_be64(buf + 4 + 8 * i, v[i]);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CU_ASSERT_EQUAL(sendto(fd, buf, 4 + 8 * n, 0, (struct sockaddr *)&a, sizeof a),
                    (ssize_t)(4 + 8 * n));
}

/* Receive frames until one holds exactly the n values want (or timeout_ms passes). */
static bool peer_expect(int fd, const double *want, size_t n, int timeout_ms)
{
    int64_t end = rtc_time_now_ns() + (int64_t)timeout_ms * 1000000;
    uint8_t buf[256];
    for (;;) {
        int left = (int)((end - rtc_time_now_ns()) / 1000000);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, left) <= 0)
            return false;
        ssize_t len = recv(fd, buf, sizeof buf, 0);
        if (len != (ssize_t)(4 + 8 * n) || memcmp(buf, "RTCF", 4) != 0)
            continue;
        size_t i = 0;
        while (i < n && get_be64(buf + 4 + 8 * i) == want[i])
            i++;
        if (i == n)
            return true;
    }
}

/* Discard every frame queued now. */
static void peer_drain(int fd)
{
    uint8_t buf[256];
    while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) >= 0) {
    }
}

/* ---- waits ---- */

typedef struct sample_wait {
    io_cfg *c;
    size_t i;
    double v;
    rtc_quality q;
} sample_wait;

static bool sample_is(void *arg)
{
    sample_wait *w = arg;
    rtc_sample s = io_cfg_get(w->c, w->i);
    return s.value == w->v && s.quality == w->q;
}

/* ---- the whole life of one driver ---- */

static void udp_frame_lives_through_every_operation(void)
{
    int pport, pfd = peer_open(&pport);
    io_cfg *c = CFG;
    io_cfg_init(c, "link");
    io_cfg_set_int(c, "peer_port", pport);
    io_cfg_set(c, "period_ms", "5");
    io_cfg_set(c, "stale_ms", "200");
    size_t valve = io_cfg_sig(c, "valve", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "safe", "7.5", NULL);
    size_t pump = io_cfg_sig(c, "pump", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, NULL);
    size_t level = io_cfg_sig(c, "level", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
    size_t temp = io_cfg_sig(c, "temp", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
    io_drv d = {&rtc_udp_frame_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL(io_drv_stats(&d, NULL, 0).link, RTC_LINK_IDLE);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    CU_ASSERT_EQUAL(d.ops->start(d.self), RTC_ESTATE);
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_TRUE(st.port > 0); /* bound before start() returned */
    CU_ASSERT_EQUAL(st.link, RTC_LINK_CONNECTING);
    CU_ASSERT_FALSE(st.connected);

    /* out: the mailboxes' values reach the peer */
    io_cfg_put(c, valve, 1.5);
    io_cfg_put(c, pump, -2.0);
    CU_ASSERT_TRUE(peer_expect(pfd, (double[]){1.5, -2.0}, 2, WAIT_MS));
    /* in: a frame sets the from-bench mailboxes, and the link is up */
    peer_send(pfd, st.port, "RTCF", (double[]){3.25, 4.5}, 2);
    sample_wait sw = {c, temp, 4.5, RTC_QUALITY_FRESH};
    CU_ASSERT_TRUE(io_wait(sample_is, &sw, WAIT_MS));
    CU_ASSERT_EQUAL(io_cfg_get(c, level).value, 3.25);
    st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(st.link, RTC_LINK_UP);
    CU_ASSERT_TRUE(st.connected);
    CU_ASSERT_EQUAL(st.connects, 1);
    /* a frame of the wrong size or mark is counted and changes nothing */
    peer_send(pfd, st.port, "RTCF", (double[]){9, 9, 9}, 3);
    peer_send(pfd, st.port, "XXXX", (double[]){9, 9}, 2);
    CU_ASSERT_TRUE(io_wait_counter(&d, "malformed", 2, WAIT_MS));
    CU_ASSERT_EQUAL(io_cfg_get(c, level).value, 3.25);

    /* safe values in the I/O thread: the call returns when they went out, then latched */
    CU_ASSERT_EQUAL(d.ops->write_safe_values(d.self, WAIT_MS), RTC_OK);
    io_cfg_put(c, valve, 2.0);
    io_cfg_put(c, pump, -3.0);
    /* a frame built after the new samples (pump -3) still carries the safe valve: latched;
     * pump has no safe value and goes on */
    CU_ASSERT_TRUE(peer_expect(pfd, (double[]){7.5, -3.0}, 2, WAIT_MS));

    /* no frame for stale_ms: the inputs go stale (last value kept), the link down */
    sw = (sample_wait){c, level, 3.25, RTC_QUALITY_STALE};
    CU_ASSERT_TRUE(io_wait(sample_is, &sw, WAIT_MS));
    CU_ASSERT_TRUE(io_wait_link(&d, RTC_LINK_DOWN, WAIT_MS));

    /* stop: latched already, so the stop path sends nothing new; the link is idle */
    CU_ASSERT_EQUAL(d.ops->stop(d.self), RTC_OK);
    st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(st.link, RTC_LINK_IDLE);
    CU_ASSERT_EQUAL(st.safe_writes, 1);
    peer_drain(pfd); /* the thread is joined: every frame it sent is queued */
    /* safe values while stopped: written by the caller */
    CU_ASSERT_EQUAL(d.ops->write_safe_values(d.self, WAIT_MS), RTC_OK);
    CU_ASSERT_TRUE(peer_expect(pfd, (double[]){7.5, -3.0}, 2, WAIT_MS));
    CU_ASSERT_EQUAL(io_drv_stats(&d, NULL, 0).safe_writes, 2);

    /* a new run releases the latch; its stop path writes the safe values once */
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    CU_ASSERT_TRUE(peer_expect(pfd, (double[]){2.0, -3.0}, 2, WAIT_MS));
    CU_ASSERT_EQUAL(d.ops->stop(d.self), RTC_OK);
    CU_ASSERT_TRUE(peer_expect(pfd, (double[]){7.5, -3.0}, 2, WAIT_MS));
    rtc_signal_health h[4];
    st = io_drv_stats(&d, h, 4);
    CU_ASSERT_EQUAL(st.safe_writes, 3);
    CU_ASSERT_TRUE(st.cycles > 0);
    CU_ASSERT_EQUAL(st.n_signals, 4);
    CU_ASSERT_STRING_EQUAL(st.kind, "udp_frame");
    CU_ASSERT_EQUAL(io_counter(&st, "malformed"), 2);
    CU_ASSERT_EQUAL(h[level].updates, 1);
    CU_ASSERT_EQUAL(h[level].stale_events, 1);
    CU_ASSERT_TRUE(h[valve].updates > 0);
    CU_ASSERT_EQUAL(LOG.n_errors, 0);
    d.ops->close(d.self);
    d.ops->close(NULL);
    io_cfg_free(c);
    close(pfd);
}

/* ---- two drivers, two "engines": values cross both ways ---- */

static void udp_frame_two_drivers_make_a_bridge(void)
{
    io_cfg *a = CFG, *b = CFG2;
    io_drv da = {&rtc_udp_frame_ops, NULL}, db = {&rtc_udp_frame_ops, NULL};
    int pa = io_free_port(SOCK_DGRAM), pb = io_free_port(SOCK_DGRAM);
    io_cfg_init(a, "node_a");
    io_cfg_set_int(a, "port", pa);
    io_cfg_set_int(a, "peer_port", pb);
    size_t a_out = io_cfg_sig(a, "y", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, NULL);
    size_t a_in = io_cfg_sig(a, "u", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
    io_cfg_init(b, "node_b");
    io_cfg_set_int(b, "port", pb);
    io_cfg_set_int(b, "peer_port", pa);
    size_t b_in = io_cfg_sig(b, "y", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
    size_t b_out = io_cfg_sig(b, "u", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, NULL);
    CU_ASSERT_EQUAL_FATAL(da.ops->open(&a->cfg, &LOG.lg, &da.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(db.ops->open(&b->cfg, &LOG.lg, &db.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(da.ops->start(da.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(db.ops->start(db.self), RTC_OK);
    io_cfg_put(a, a_out, 42.0);
    io_cfg_put(b, b_out, -1.25);
    sample_wait wb = {b, b_in, 42.0, RTC_QUALITY_FRESH}, wa = {a, a_in, -1.25, RTC_QUALITY_FRESH};
    CU_ASSERT_TRUE(io_wait(sample_is, &wb, WAIT_MS));
    CU_ASSERT_TRUE(io_wait(sample_is, &wa, WAIT_MS));
    CU_ASSERT_TRUE(io_wait_link(&da, RTC_LINK_UP, WAIT_MS));
    CU_ASSERT_TRUE(io_wait_link(&db, RTC_LINK_UP, WAIT_MS));
    da.ops->close(da.self);
    db.ops->close(db.self);
    io_cfg_free(a);
    io_cfg_free(b);
}

/* ---- the port is taken: start() fails with the reason, and a later start works ---- */

static void udp_frame_start_fails_on_a_taken_port(void)
{
    int pport, pfd = peer_open(&pport);
    io_cfg *c = CFG;
    io_cfg_init(c, "taken");
    io_cfg_set_int(c, "port", pport);
    io_cfg_sig(c, "x", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
    io_drv d = {&rtc_udp_frame_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    io_log_reset(&LOG);
    CU_ASSERT_EQUAL(d.ops->start(d.self), -EADDRINUSE); /* the errno of bind() */
    CU_ASSERT_TRUE(io_log_has(&LOG, "udp-frame 'taken': cannot bind 127.0.0.1:"));
    CU_ASSERT_EQUAL(io_drv_stats(&d, NULL, 0).link, RTC_LINK_IDLE);
    close(pfd); /* the port is free again */
    CU_ASSERT_EQUAL(d.ops->start(d.self), RTC_OK);
    d.ops->close(d.self);
    io_cfg_free(c);
}

/* ---- bad settings: open refuses with one message and returns no object ---- */

static void udp_frame_open_rejects_bad_settings(void)
{
    static const struct {
        const char *key, *value, *sig_safe, *msg;
    } bad[] = {
        {"peer_host", "localhost", NULL, "setting peer_host=localhost: not an IPv4 address"},
        {"peer_port", "70000", NULL, "setting peer_port=70000: out of range [0, 65535]"},
        {"period_ms", "0", NULL, "setting period_ms=0: out of range"},
        {"stale_ms", "soon", NULL, "setting stale_ms=soon: not a number"},
        {"priority", "100", NULL, "setting priority=100: out of range [0, 99]"},
        {NULL, NULL, "hot", "signal 'x': setting safe=hot: not a number"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        io_cfg *c = CFG;
        io_cfg_init(c, "bad_link");
        if (bad[k].key)
            io_cfg_set(c, bad[k].key, bad[k].value);
        if (bad[k].sig_safe)
            io_cfg_sig(c, "x", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "safe", bad[k].sig_safe, NULL);
        else
            io_cfg_sig(c, "x", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, NULL);
        io_expect_refused(&rtc_udp_frame_ops, &c->cfg, &LOG, "udp-frame 'bad_link'", bad[k].msg);
        io_cfg_free(c);
    }
}

static void udp_frame_registered_under_its_type(void)
{
    CU_ASSERT_EQUAL(rtc_iodrivers_register(), RTC_OK);
    CU_ASSERT_PTR_EQUAL(rtc_driver_find(RTC_DRIVER_TYPE_UDP_FRAME), &rtc_udp_frame_ops);
    CU_ASSERT_TRUE(rtc_driver_is_io_type(RTC_DRIVER_TYPE_UDP_FRAME));
    CU_ASSERT_STRING_EQUAL(rtc_link_state_name(RTC_LINK_UP), "up");
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"udp_frame_lives_through_every_operation", udp_frame_lives_through_every_operation},
        {"udp_frame_two_drivers_make_a_bridge", udp_frame_two_drivers_make_a_bridge},
        {"udp_frame_start_fails_on_a_taken_port", udp_frame_start_fails_on_a_taken_port},
        {"udp_frame_open_rejects_bad_settings", udp_frame_open_rejects_bad_settings},
        {"udp_frame_registered_under_its_type", udp_frame_registered_under_its_type},
        {NULL, NULL},
    };
    rtc_test_add_suite("io_skeleton", suite_init, suite_clean, cases);
}
