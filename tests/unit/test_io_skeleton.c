/*
 * The skeleton driver (UDP sample frames, drv_skeleton.c) and through it the driver base:
 * a plain UDP socket of this process is the peer on 127.0.0.1. The driver runs through
 * open, start, frames both ways through the mailboxes, a malformed frame, the safe-value
 * hand-off in the I/O thread and in the caller, the latch and its release by start, the
 * stop path, staleness and the link state, stats and close; two drivers make a bridge;
 * bad settings are refused with one message naming the setting. The link contract of the
 * base (DESIGN.md T2): its keys and defaults, a link lost by silence and back (outages,
 * the loss policy's verdict), the connect deadline, and the outputs held until released.
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
#include <math.h>
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

/* The next frame into @p buf (256 bytes): its length, or -1 at @p end_ns. */
static ssize_t peer_recv(int fd, uint8_t *buf, int64_t end_ns)
{
    int left = (int)((end_ns - rtc_time_now_ns()) / 1000000);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (left <= 0 || poll(&p, 1, left) <= 0)
        return -1;
    return recv(fd, buf, 256, 0);
}

/* Receive frames until one holds exactly the n values want (or timeout_ms passes). */
static bool peer_expect(int fd, const double *want, size_t n, int timeout_ms)
{
    int64_t end = rtc_time_now_ns() + (int64_t)timeout_ms * 1000000;
    uint8_t buf[256];
    for (;;) {
        ssize_t len = peer_recv(fd, buf, end);
        if (len < 0)
            return false;
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
    CU_ASSERT_TRUE(io_wait_link(&d, RTC_LINK_LOST, WAIT_MS));

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

/* The two ends of a bridge in CFG and CFG2: node_a sends y (signal 0) and receives u (1),
 * node_b receives y (0) and sends u (1), on two loopback ports. */
static void bridge_cfgs(bool hold)
{
    io_cfg *a = CFG, *b = CFG2;
    int pa = io_free_port(SOCK_DGRAM), pb = io_free_port(SOCK_DGRAM);
    io_cfg_init(a, "node_a");
    io_cfg_set_int(a, "port", pa);
    io_cfg_set_int(a, "peer_port", pb);
    io_cfg_sig(a, "y", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, NULL);
    io_cfg_sig(a, "u", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
    io_cfg_init(b, "node_b");
    io_cfg_set_int(b, "port", pb);
    io_cfg_set_int(b, "peer_port", pa);
    io_cfg_sig(b, "y", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
    io_cfg_sig(b, "u", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, NULL);
    a->cfg.hold = b->cfg.hold = hold;
}

static void udp_frame_two_drivers_make_a_bridge(void)
{
    io_cfg *a = CFG, *b = CFG2;
    io_drv da = {&rtc_udp_frame_ops, NULL}, db = {&rtc_udp_frame_ops, NULL};
    bridge_cfgs(false);
    size_t a_out = 0, a_in = 1, b_in = 0, b_out = 1;
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
        {"required", "maybe", NULL, "setting required=maybe: expected true or false"},
        {"connect_ms", "-1", NULL, "setting connect_ms=-1: out of range [0, 3.6e+06]"},
        {"loss_ms", "-5", NULL, "setting loss_ms=-5: out of range [0, 1e+07]"},
        {"on_loss", "sometimes", NULL, "setting on_loss=sometimes: expected estimate:T (T a "
                                       "duration above 0, e.g. 0.5s or 200ms), stop or "
                                       "continue"},
        {"on_loss", "estimate:0", NULL, "setting on_loss=estimate:0: expected estimate:T"},
        {"on_loss", "estimate:soon", NULL, "setting on_loss=estimate:soon: expected"},
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

/* ---- the link contract (driver base) ---- */

/* The contract's keys: the defaults, each form of on_loss, the derived loss time. */
static void contract_keys_and_defaults(void)
{
    static const struct {
        const char *key, *value;
        bool required;
        rtc_link_policy on_loss;
        int64_t estimate_ms, connect_ms, loss_ms;
    } cases[] = {
        {NULL, NULL, true, RTC_LINK_ESTIMATE, 500, 2000, 30}, /* period 10: 3 periods */
        {"on_loss", "estimate:200ms", true, RTC_LINK_ESTIMATE, 200, 2000, 30},
        {"on_loss", "estimate:2", true, RTC_LINK_ESTIMATE, 2000, 2000, 30},
        {"on_loss", "estimate", true, RTC_LINK_ESTIMATE, 500, 2000, 30},
        {"on_loss", "STOP", true, RTC_LINK_STOP, 500, 2000, 30},
        {"on_loss", "continue", true, RTC_LINK_CONTINUE, 500, 2000, 30},
        {"required", "false", false, RTC_LINK_CONTINUE, 500, 2000, 30},
        {"connect_ms", "50", true, RTC_LINK_ESTIMATE, 500, 50, 30},
        {"loss_ms", "0", true, RTC_LINK_ESTIMATE, 500, 2000, 0},
        {"stale_ms", "100", true, RTC_LINK_ESTIMATE, 500, 2000, 100}, /* not lost before stale */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        io_cfg *c = CFG;
        io_cfg_init(c, "keys");
        io_cfg_set(c, "period_ms", "10");
        if (cases[k].key)
            io_cfg_set(c, cases[k].key, cases[k].value);
        io_cfg_sig(c, "x", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
        io_drv d = {&rtc_udp_frame_ops, NULL};
        CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
        CU_ASSERT_PTR_NOT_NULL(d.ops->link(d.self));
        rtc_link_info ci = io_drv_stats(&d, NULL, 0).contract;
        CU_ASSERT_EQUAL(ci.required, cases[k].required);
        CU_ASSERT_EQUAL(ci.on_loss, cases[k].on_loss);
        CU_ASSERT_EQUAL(ci.estimate_ns, cases[k].estimate_ms * 1000000);
        CU_ASSERT_EQUAL(ci.connect_ns, cases[k].connect_ms * 1000000);
        CU_ASSERT_EQUAL(ci.loss_ns, cases[k].loss_ms * 1000000);
        CU_ASSERT_EQUAL(ci.timeout_ns, 0); /* frames are no requests */
        CU_ASSERT_EQUAL(ci.start_ns, 0);   /* never started */
        CU_ASSERT_EQUAL(ci.outages, 0);
        char pol[48];
        rtc_link_policy_text(&ci, pol, sizeof pol);
        CU_ASSERT_STRING_EQUAL(pol, ci.on_loss == RTC_LINK_STOP       ? "stop"
                                    : ci.on_loss == RTC_LINK_CONTINUE ? "continue"
                                    : cases[k].estimate_ms == 200     ? "estimate:0.2s"
                                    : cases[k].estimate_ms == 2000    ? "estimate:2s"
                                                                      : "estimate:0.5s");
        d.ops->close(d.self);
        io_cfg_free(c);
    }
}

/* A frames link under its contract: connecting until the first frame (the connect check
 * waits, then fails past connect_ms), up, lost by silence after loss_ms (one outage; the
 * policy estimate:T stops the run only T after the loss), and back with the next frame. */
static void contract_link_lost_by_silence_and_back(void)
{
    int pport, pfd = peer_open(&pport);
    io_cfg *c = CFG;
    io_cfg_init(c, "frames");
    io_cfg_set(c, "period_ms", "10");
    io_cfg_set(c, "loss_ms", "100");
    io_cfg_set(c, "on_loss", "estimate:1s");
    io_cfg_sig(c, "x", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
    io_drv d = {&rtc_udp_frame_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    io_log_reset(&LOG);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    const rtc_link *l = d.ops->link(d.self);
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    int64_t start = st.contract.start_ns;
    CU_ASSERT_TRUE(start > 0);
    CU_ASSERT_EQUAL(rtc_link_connect_check(l, start + 1000000), RTC_LINK_CONNECT_WAIT);
    CU_ASSERT_EQUAL(rtc_link_connect_check(l, start + 2000000000), RTC_LINK_CONNECT_FAILED);
    CU_ASSERT_EQUAL(rtc_link_must_stop(l, start + 10000000000), 0); /* never up: no loss */
    CU_ASSERT_STRING_EQUAL(st.contract.error, "no frame received");

    peer_send(pfd, st.port, "RTCF", (double[]){1.0}, 1);
    CU_ASSERT_TRUE(io_wait_link(&d, RTC_LINK_UP, WAIT_MS));
    st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_TRUE(st.contract.first_up_ns >= start);
    CU_ASSERT_EQUAL(rtc_link_connect_check(l, start + 2000000000), RTC_LINK_CONNECT_READY);
    /* silence: lost once nothing came for loss_ms (late on the way) */
    CU_ASSERT_TRUE(io_wait_link(&d, RTC_LINK_LOST, WAIT_MS));
    st = io_drv_stats(&d, NULL, 0);
    int64_t lost = st.contract.lost_ns;
    CU_ASSERT_TRUE(lost > st.contract.first_up_ns);
    CU_ASSERT_EQUAL(st.contract.outages, 1); /* the one under way */
    CU_ASSERT_FALSE(st.connected);
    CU_ASSERT_EQUAL(rtc_link_must_stop(l, lost + 999999999), 0); /* within T */
    CU_ASSERT_EQUAL(rtc_link_must_stop(l, lost + 1000000000), lost);
    CU_ASSERT_TRUE(io_log_has(&LOG, "udp-frame 'frames': link lost"));
    CU_ASSERT_TRUE(io_log_has(&LOG, "nothing fresh for 100 ms; on_loss estimate:1s"));

    peer_send(pfd, st.port, "RTCF", (double[]){2.0}, 1);
    CU_ASSERT_TRUE(io_wait_link(&d, RTC_LINK_UP, WAIT_MS));
    st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(st.contract.outages, 1);
    CU_ASSERT_EQUAL(st.contract.lost_ns, 0);
    CU_ASSERT_TRUE(st.contract.outage_total_ns > 0);
    CU_ASSERT_EQUAL(st.contract.outage_total_ns, st.contract.outage_max_ns);
    CU_ASSERT_TRUE(st.contract.up_ns < st.contract.run_ns);
    CU_ASSERT_TRUE(rtc_link_up_share(&st.contract) < 1.0);
    CU_ASSERT_EQUAL(rtc_link_must_stop(l, rtc_time_now_ns()), 0);
    CU_ASSERT_TRUE(io_log_has(&LOG, "udp-frame 'frames': link back after a "));
    d.ops->close(d.self);
    io_cfg_free(c);
    close(pfd);
}

typedef struct policy_case {
    const char *on_loss;
    rtc_link_state lost_state;
    bool stops_at_once;
} policy_case;

/* on_loss=stop ends the run as soon as the link is lost; continue never does: the link is
 * flagged degraded and still counted as an outage. */
static void contract_stop_and_continue_policies(void)
{
    static const policy_case cases[] = {{"stop", RTC_LINK_LOST, true},
                                        {"continue", RTC_LINK_DEGRADED, false}};
    for (size_t k = 0; k < 2; k++) {
        int pport, pfd = peer_open(&pport);
        io_cfg *c = CFG;
        io_cfg_init(c, "policy");
        io_cfg_set(c, "loss_ms", "50");
        io_cfg_set(c, "on_loss", cases[k].on_loss);
        io_cfg_sig(c, "x", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
        io_drv d = {&rtc_udp_frame_ops, NULL};
        CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
        CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
        peer_send(pfd, io_drv_stats(&d, NULL, 0).port, "RTCF", (double[]){1.0}, 1);
        CU_ASSERT_TRUE(io_wait_link(&d, RTC_LINK_UP, WAIT_MS));
        CU_ASSERT_TRUE(io_wait_link(&d, cases[k].lost_state, WAIT_MS));
        rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
        int64_t lost = st.contract.lost_ns;
        CU_ASSERT_TRUE(lost > 0);
        CU_ASSERT_EQUAL(st.contract.outages, 1);
        CU_ASSERT_EQUAL(rtc_link_must_stop(d.ops->link(d.self), lost),
                        cases[k].stops_at_once ? lost : 0);
        CU_ASSERT_EQUAL(rtc_link_must_stop(d.ops->link(d.self), lost + 3600000000000),
                        cases[k].stops_at_once ? lost : 0);
        d.ops->close(d.self);
        io_cfg_free(c);
        close(pfd);
    }
}

/* An optional link not up within connect_ms is flagged degraded, and the run may start. */
static void contract_optional_link_degraded_after_its_deadline(void)
{
    io_cfg *c = CFG;
    io_cfg_init(c, "opt");
    io_cfg_set(c, "required", "false");
    io_cfg_set(c, "connect_ms", "50");
    io_cfg_sig(c, "x", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
    io_drv d = {&rtc_udp_frame_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    io_log_reset(&LOG);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    CU_ASSERT_TRUE(io_wait_link(&d, RTC_LINK_DEGRADED, WAIT_MS));
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(rtc_link_connect_check(d.ops->link(d.self), rtc_time_now_ns()),
                    RTC_LINK_CONNECT_READY);
    CU_ASSERT_EQUAL(st.contract.outages, 0); /* never up: no outage */
    CU_ASSERT_EQUAL(rtc_link_up_share(&st.contract), -1.0);
    CU_ASSERT_TRUE(io_log_has(&LOG, "not up within connect_ms=50"));
    CU_ASSERT_TRUE(io_log_has(&LOG, "running without it (optional)"));
    d.ops->close(d.self);
    io_cfg_free(c);
}

/* Frames received by @p fd (up to @p timeout_ms) until one carries @p want (NaN: until five
 * empty ones came): counts the empty ("RTCH") and the value ("RTCF") ones. */
static bool peer_count_until(int fd, double want, int *here, int *values, int timeout_ms)
{
    int64_t end = rtc_time_now_ns() + (int64_t)timeout_ms * 1000000;
    uint8_t buf[256];
    for (;;) {
        ssize_t len = peer_recv(fd, buf, end);
        if (len < 0)
            return false;
        bool value = len == 12 && memcmp(buf, "RTCF", 4) == 0;
        *here += len == 4 && memcmp(buf, "RTCH", 4) == 0;
        *values += value;
        if (value && get_be64(buf + 4) == want)
            return true;
        if (isnan(want) && *here >= 5) /* NaN: count five empty frames */
            return true;
    }
}

/* Held (rtc_driver_config.hold): only empty frames go out — the peer's link comes up, no
 * value reaches it — until rtc_link_release(); then the values. */
static void contract_outputs_held_until_released(void)
{
    int pport, pfd = peer_open(&pport);
    io_cfg *c = CFG;
    io_cfg_init(c, "held");
    io_cfg_set_int(c, "peer_port", pport);
    io_cfg_set(c, "period_ms", "5");
    size_t out = io_cfg_sig(c, "y", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, NULL);
    c->cfg.hold = true;
    io_cfg_put(c, out, 6.5);
    io_drv d = {&rtc_udp_frame_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    int here = 0, values = 0;
    CU_ASSERT_TRUE(peer_count_until(pfd, NAN, &here, &values, WAIT_MS));
    CU_ASSERT_EQUAL(values, 0); /* five frames while held: none carried a value */
    rtc_link_release(d.ops->link(d.self));
    CU_ASSERT_TRUE(peer_count_until(pfd, 6.5, &here, &values, WAIT_MS));
    CU_ASSERT_EQUAL(values, 1); /* the first value frame carries the mailbox's value */
    d.ops->close(d.self);
    io_cfg_free(c);
    close(pfd);
}

/* An empty frame makes a receiving link: two held bridge ends see each other up before
 * either side's run starts, and neither mailbox gets a value. */
static void contract_held_ends_see_each_other_up(void)
{
    io_cfg *a = CFG, *b = CFG2;
    io_drv da = {&rtc_udp_frame_ops, NULL}, db = {&rtc_udp_frame_ops, NULL};
    bridge_cfgs(true);
    size_t a_out = 0, a_in = 1, b_in = 0, b_out = 1;
    io_cfg_put(a, a_out, 1.0);
    io_cfg_put(b, b_out, 2.0);
    CU_ASSERT_EQUAL_FATAL(da.ops->open(&a->cfg, &LOG.lg, &da.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(db.ops->open(&b->cfg, &LOG.lg, &db.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(da.ops->start(da.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(db.ops->start(db.self), RTC_OK);
    CU_ASSERT_TRUE(io_wait_link(&da, RTC_LINK_UP, WAIT_MS));
    CU_ASSERT_TRUE(io_wait_link(&db, RTC_LINK_UP, WAIT_MS));
    CU_ASSERT_EQUAL(io_cfg_get(a, a_in).seq, 0);
    CU_ASSERT_EQUAL(io_cfg_get(b, b_in).seq, 0);
    da.ops->close(da.self);
    db.ops->close(db.self);
    io_cfg_free(a);
    io_cfg_free(b);
}

static void udp_frame_registered_under_its_type(void)
{
    CU_ASSERT_EQUAL(rtc_iodrivers_register(), RTC_OK);
    CU_ASSERT_PTR_EQUAL(rtc_driver_find(RTC_DRIVER_TYPE_UDP_FRAME), &rtc_udp_frame_ops);
    CU_ASSERT_TRUE(rtc_driver_is_io_type(RTC_DRIVER_TYPE_UDP_FRAME));
    CU_ASSERT_STRING_EQUAL(rtc_link_state_name(RTC_LINK_UP), "up");
    CU_ASSERT_STRING_EQUAL(rtc_link_state_name(RTC_LINK_LOST), "lost");
    CU_ASSERT_STRING_EQUAL(rtc_link_state_name(RTC_LINK_LATE), "late");
    CU_ASSERT_STRING_EQUAL(rtc_link_state_name(RTC_LINK_DEGRADED), "degraded");
    CU_ASSERT_STRING_EQUAL(rtc_link_state_name(RTC_LINK_CONNECTING), "connecting");
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"udp_frame_lives_through_every_operation", udp_frame_lives_through_every_operation},
        {"udp_frame_two_drivers_make_a_bridge", udp_frame_two_drivers_make_a_bridge},
        {"udp_frame_start_fails_on_a_taken_port", udp_frame_start_fails_on_a_taken_port},
        {"udp_frame_open_rejects_bad_settings", udp_frame_open_rejects_bad_settings},
        {"udp_frame_registered_under_its_type", udp_frame_registered_under_its_type},
        {"contract_keys_and_defaults", contract_keys_and_defaults},
        {"contract_link_lost_by_silence_and_back", contract_link_lost_by_silence_and_back},
        {"contract_stop_and_continue_policies", contract_stop_and_continue_policies},
        {"contract_optional_link_degraded_after_its_deadline",
         contract_optional_link_degraded_after_its_deadline},
        {"contract_outputs_held_until_released", contract_outputs_held_until_released},
        {"contract_held_ends_see_each_other_up", contract_held_ends_see_each_other_up},
        {NULL, NULL},
    };
    rtc_test_add_suite("io_skeleton", suite_init, suite_clean, cases);
}
