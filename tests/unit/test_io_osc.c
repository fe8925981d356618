/*
 * OSC driver tests with real liblo peers on 127.0.0.1: a liblo client sends set-points
 * (plain and in timestamped bundles), bad input is counted and ignored, a sender on
 * 127.0.0.2 that is not allowed changes nothing, and a liblo server in this process
 * receives the outbound stream as bundles dated with the samples' time.
 */
#include "cu_main.h"
#include "io_cfg.h"
#include "io_util.h"

#include "rtcosim/iodrivers.h"
#include "rtcosim/rt.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <lo/lo.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static io_log LOG;
static io_cfg *CFG;

static int suite_init(void)
{
    io_log_init(&LOG);
    CFG = calloc(1, sizeof *CFG);
    return CFG ? 0 : 1;
}

static int suite_clean(void)
{
    free(CFG);
    return 0;
}

typedef struct req_wait {
    io_drv *d;
    uint64_t n;
} req_wait;

static bool requests_reached(void *arg)
{
    req_wait *w = arg;
    return io_drv_stats(w->d, NULL, 0).requests >= w->n;
}

/* Wall-clock NTP timetag of a CLOCK_MONOTONIC instant (the test's own conversion). */
static lo_timetag tt_of_mono(int64_t mono)
{
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    int64_t wall = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec - (rtc_time_now_ns() - mono);
    lo_timetag tt = {(uint32_t)(wall / 1000000000 + 2208988800LL),
                     (uint32_t)(((uint64_t)(wall % 1000000000) << 32) / 1000000000u)};
    return tt;
}

static int64_t tt_diff_ns(lo_timetag a, lo_timetag b)
{
    return (int64_t)(lo_timetag_diff(a, b) * 1e9);
}

/* Send one message from a UDP socket bound to src_ip (liblo serialises it). */
static void send_from(const char *src_ip, int port, const char *path, lo_message m)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in src = {.sin_family = AF_INET}, dst = {.sin_family = AF_INET};
    inet_pton(AF_INET, src_ip, &src.sin_addr);
    inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
    dst.sin_port = htons((uint16_t)port);
    CU_ASSERT_EQUAL(bind(fd, (struct sockaddr *)&src, sizeof src), 0);
    size_t len = 0;
    void *buf = lo_message_serialise(m, path, NULL, &len);
    CU_ASSERT_EQUAL(sendto(fd, buf, len, 0, (struct sockaddr *)&dst, sizeof dst), (ssize_t)len);
    free(buf);
    close(fd);
}

static void osc_setpoints_checked_clamped_and_filtered(void)
{
    io_cfg *c = CFG;
    io_cfg_init(c, "operator");
    io_cfg_set(c, "allow", "127.0.0.1");
    size_t sp = io_cfg_sig(c, "sp", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "path", "/plant/setpoint",
                           "min", "-10", "max", "10", NULL);
    size_t gain = io_cfg_sig(c, "gain", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "path",
                             "/ctrl/gain", NULL);
    io_cfg_sig(c, "y", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, NULL);
    io_drv d = {&rtc_osc_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    int port = io_drv_stats(&d, NULL, 0).port;
    CU_ASSERT_TRUE_FATAL(port > 0);
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    lo_address to = lo_address_new("127.0.0.1", ps);
    req_wait rw = {&d, 0};

    /* a plain message: sample time is its arrival */
    int64_t t0 = rtc_time_now_ns();
    CU_ASSERT_TRUE(lo_send(to, "/plant/setpoint", "f", 2.5f) > 0);
    rw.n = 1;
    CU_ASSERT_TRUE(io_wait(requests_reached, &rw, 2000));
    int64_t t1 = rtc_time_now_ns();
    rtc_sample s = io_cfg_get(c, sp);
    CU_ASSERT_EQUAL(s.value, 2.5);
    CU_ASSERT_EQUAL(s.seq, 1);
    CU_ASSERT_EQUAL(s.sample_ns, s.arrival_ns);
    CU_ASSERT_TRUE(s.arrival_ns >= t0 && s.arrival_ns <= t1);

    /* int, double, true all accepted as numbers */
    lo_send(to, "/ctrl/gain", "i", 3);
    rw.n = 2;
    CU_ASSERT_TRUE(io_wait(requests_reached, &rw, 2000));
    CU_ASSERT_EQUAL(io_cfg_get(c, gain).value, 3.0);
    lo_send(to, "/ctrl/gain", "d", 0.125);
    lo_send(to, "/ctrl/gain", "T");
    rw.n = 4;
    CU_ASSERT_TRUE(io_wait(requests_reached, &rw, 2000));
    CU_ASSERT_EQUAL(io_cfg_get(c, gain).value, 1.0);
    CU_ASSERT_EQUAL(io_cfg_get(c, gain).seq, 3);

    /* a bundle dated 50 ms ago: the sample carries that time, converted to monotonic */
    int64_t when = rtc_time_now_ns() - 50000000;
    lo_bundle b = lo_bundle_new(tt_of_mono(when));
    lo_message m = lo_message_new();
    lo_message_add_double(m, -1.25);
    lo_bundle_add_message(b, "/plant/setpoint", m);
    CU_ASSERT_TRUE(lo_send_bundle(to, b) > 0);
    lo_bundle_free_recursive(b);
    rw.n = 5;
    CU_ASSERT_TRUE(io_wait(requests_reached, &rw, 2000));
    s = io_cfg_get(c, sp);
    CU_ASSERT_EQUAL(s.value, -1.25);
    /* two clock readings on each side of the conversion: 1 ms is generous */
    CU_ASSERT_TRUE(llabs(s.sample_ns - when) < 1000000);
    CU_ASSERT_TRUE(s.arrival_ns - s.sample_ns >= 50000000 - 1000000);

    /* out of range: clamped to max and counted */
    lo_send(to, "/plant/setpoint", "f", 25.0f);
    rw.n = 6;
    CU_ASSERT_TRUE(io_wait(requests_reached, &rw, 2000));
    CU_ASSERT_EQUAL(io_cfg_get(c, sp).value, 10.0);

    /* ignored: unknown path, wrong type, output path, two args, garbage packet */
    uint32_t seq_before = io_cfg_get(c, sp).seq;
    lo_send(to, "/nope", "f", 1.0f);
    lo_send(to, "/plant/setpoint", "s", "hello");
    lo_send(to, "/y", "f", 4.0f);
    lo_send(to, "/plant/setpoint", "ff", 1.0f, 2.0f);
    rw.n = 10;
    CU_ASSERT_TRUE(io_wait(requests_reached, &rw, 2000));
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
    sendto(fd, "garbage!", 8, 0, (struct sockaddr *)&dst, sizeof dst);
    close(fd);

    /* a sender on 127.0.0.2 is not in allow: nothing changes */
    lo_message m2 = lo_message_new();
    lo_message_add_float(m2, -3.0f);
    send_from("127.0.0.2", port, "/plant/setpoint", m2);
    lo_message_free(m2);
    rw.n = 11;
    CU_ASSERT_TRUE(io_wait(requests_reached, &rw, 2000));
    io_sleep_ms(20); /* let the garbage packet be read too (counted, not a request) */
    s = io_cfg_get(c, sp);
    CU_ASSERT_EQUAL(s.value, 10.0);
    CU_ASSERT_EQUAL(s.seq, seq_before);

    rtc_signal_health h[3];
    rtc_driver_stats st = io_drv_stats(&d, h, 3);
    CU_ASSERT_EQUAL(st.requests, 11);
    CU_ASSERT_EQUAL(io_counter(&st, "unknown"), 1);
    CU_ASSERT_EQUAL(st.rejected, 2);   /* output path + disallowed sender */
    CU_ASSERT_EQUAL(io_counter(&st, "malformed"), 3); /* string arg, two args, garbage packet */
    CU_ASSERT_EQUAL(h[sp].clamped, 1);
    CU_ASSERT_EQUAL(h[sp].errors, 2);
    CU_ASSERT_EQUAL(h[sp].updates, 3);
    lo_address_free(to);
    d.ops->close(d.self);
    io_cfg_free(c);
}

/* Without "allow", bind=127.0.0.1 still accepts 127.0.0.2 (loopback); bind=0.0.0.0 with an
 * allow list refuses it. */
static void osc_loopback_default_accepts_loopback_peers(void)
{
    io_cfg *c = CFG;
    io_cfg_init(c, "operator");
    size_t sp = io_cfg_sig(c, "sp", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
    io_drv d = {&rtc_osc_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    io_log_reset(&LOG);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    CU_ASSERT_TRUE(io_log_has(&LOG, "only loopback senders are accepted"));
    int port = io_drv_stats(&d, NULL, 0).port;
    lo_message m = lo_message_new();
    lo_message_add_int32(m, 9);
    send_from("127.0.0.2", port, "/sp", m);
    lo_message_free(m);
    req_wait rw = {&d, 1};
    CU_ASSERT_TRUE(io_wait(requests_reached, &rw, 2000));
    CU_ASSERT_EQUAL(io_cfg_get(c, sp).value, 9.0);
    CU_ASSERT_EQUAL(io_drv_stats(&d, NULL, 0).rejected, 0);
    d.ops->close(d.self);
    io_cfg_free(c);
}

/* ---- outbound stream ---- */

typedef struct rx {
    lo_timetag tt[64];
    int n_bundles;
    float y[64];
    double u[64];
    int hb[64];
    int n_y, n_u, n_hb;
} rx;

static int rx_bundle_start(lo_timetag tt, void *user)
{
    rx *r = user;
    if (r->n_bundles < 64)
        r->tt[r->n_bundles] = tt;
    r->n_bundles++;
    return 0;
}

static int rx_bundle_end(void *user)
{
    (void)user;
    return 0;
}

static int rx_msg(const char *path, const char *types, lo_arg **argv, int argc, lo_message m,
                  void *user)
{
    rx *r = user;
    (void)m;
    if (argc != 1)
        return 0;
    if (strcmp(path, "/plant/y") == 0 && types[0] == 'f') /* the first 64, and the last */
        r->y[r->n_y < 64 ? r->n_y : 63] = argv[0]->f, r->n_y++;
    else if (strcmp(path, "/plant/u") == 0 && types[0] == 'd')
        r->u[r->n_u < 64 ? r->n_u : 63] = argv[0]->d, r->n_u++;
    else if (strcmp(path, "/hb") == 0 && types[0] == 'i' && r->n_hb < 64)
        r->hb[r->n_hb++] = argv[0]->i;
    return 0;
}

static void rx_until(lo_server s, rx *r, int bundles, int timeout_ms)
{
    int64_t end = rtc_time_now_ns() + (int64_t)timeout_ms * 1000000;
    while (r->n_bundles < bundles && rtc_time_now_ns() < end)
        lo_server_recv_noblock(s, 5);
}

static void osc_stream_bundles_dated_by_samples(void)
{
    rx r = {0};
    lo_server recv = lo_server_new_with_proto(NULL, LO_UDP, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(recv);
    lo_server_enable_queue(recv, 0, 1);
    lo_server_add_bundle_handlers(recv, rx_bundle_start, rx_bundle_end, &r);
    lo_server_add_method(recv, NULL, NULL, rx_msg, &r);
    char tg[64];
    snprintf(tg, sizeof tg, "127.0.0.1:%d", lo_server_get_port(recv));
    io_cfg *c = CFG;
    io_cfg_init(c, "stream");
    io_cfg_set(c, "targets", tg);
    io_cfg_set(c, "rate_hz", "200");
    io_cfg_set(c, "heartbeat", "/hb");
    io_cfg_set(c, "heartbeat_mode", "count");
    size_t y = io_cfg_sig(c, "y", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "path", "/plant/y", "safe",
                          "0", NULL);
    size_t u = io_cfg_sig(c, "u", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "path", "/plant/u",
                          "osc_type", "d", NULL);
    int64_t when = rtc_time_now_ns() - 20000000;
    rtc_sample s = {.value = 1.5, .sample_ns = when, .arrival_ns = when, .quality = 1};
    rtc_mailbox_write(c->sig[y].mailbox, &s);
    s.value = -0.25;
    rtc_mailbox_write(c->sig[u].mailbox, &s);
    io_drv d = {&rtc_osc_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    lo_timetag expect = tt_of_mono(when);
    rx_until(recv, &r, 5, 3000);
    CU_ASSERT_TRUE_FATAL(r.n_bundles >= 5);
    for (int k = 0; k < 5; k++) /* timetag = sample time, not send time */
        CU_ASSERT_TRUE(llabs(tt_diff_ns(r.tt[k], expect)) < 1000000);
    CU_ASSERT_TRUE(r.n_y >= 5 && r.n_u >= 5);
    CU_ASSERT_EQUAL(r.y[0], 1.5f);
    CU_ASSERT_EQUAL(r.u[0], -0.25);
    CU_ASSERT_TRUE(r.n_hb >= 5);
    for (int k = 1; k < r.n_hb && k < 5; k++)
        CU_ASSERT_EQUAL(r.hb[k], r.hb[k - 1] + 1); /* count mode: one per period */

    /* safe values: streamed at once and latched */
    CU_ASSERT_EQUAL(d.ops->write_safe_values(d.self, 500), RTC_OK);
    int before = r.n_y;
    /* bundles sent before the latch may still wait in the socket: read until a safe value
     * arrives; three bundles later the latest must still carry it */
    int64_t end = rtc_time_now_ns() + 10000000000LL;
    while (!(r.n_y > before && r.y[r.n_y < 64 ? r.n_y - 1 : 63] == 0.0f) &&
           rtc_time_now_ns() < end)
        lo_server_recv_noblock(recv, 5);
    rx_until(recv, &r, r.n_bundles + 3, 3000);
    CU_ASSERT_TRUE(r.n_y > before);
    CU_ASSERT_EQUAL(r.y[r.n_y < 64 ? r.n_y - 1 : 63], 0.0f);
    /* no safe value: keeps streaming its sample */
    CU_ASSERT_EQUAL(r.u[r.n_u < 64 ? r.n_u - 1 : 63], -0.25);
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_TRUE(io_counter(&st, "sent") >= 5);
    CU_ASSERT_EQUAL(st.errors, 0);
    printf("\n    osc send latency: n=%llu p50=%lld ns max=%lld ns\n",
           (unsigned long long)st.latency.count, (long long)st.latency.p50,
           (long long)st.latency.max);
    d.ops->close(d.self);
    io_cfg_free(c);
    lo_server_free(recv);
}

static void osc_open_rejects_bad_settings(void)
{
    static const struct {
        const char *key, *value, *path, *msg;
    } bad[] = {
        {"bind", "192.168.1.1", "/a", "setting bind=192.168.1.1: liblo 0.31 binds every"},
        {"allow", "localhost", "/a", "setting allow: 'localhost' is not an IPv4 address"},
        {"targets", "127.0.0.1", "/a", "setting targets: '127.0.0.1' is not host:port"},
        {"rate_hz", "0", "/a", "setting rate_hz=0: out of range"},
        {"timetag_bound_s", "0", "/a", "setting timetag_bound_s=0: out of range"},
        {"cpu", "-2", "/a", "setting cpu=-2: out of range"},
        {"cpu", "4096", "/a", "setting cpu=4096: out of range"},
        {NULL, NULL, "a/b", "setting path=a/b: must start with '/'"},
        {NULL, NULL, "/a/*", "setting path=/a/*: must start with '/' and contain no pattern"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        io_cfg *c = CFG;
        io_cfg_init(c, "bad_osc");
        if (bad[k].key)
            io_cfg_set(c, bad[k].key, bad[k].value);
        io_cfg_sig(c, "a", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "path", bad[k].path, NULL);
        io_expect_refused(&rtc_osc_ops, &c->cfg, &LOG, "osc 'bad_osc'", bad[k].msg);
        io_cfg_free(c);
    }
    /* duplicate paths */
    io_cfg *c = CFG;
    io_cfg_init(c, "bad_osc");
    io_cfg_sig(c, "a", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "path", "/x", NULL);
    io_cfg_sig(c, "b", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "path", "/x", NULL);
    io_log_reset(&LOG);
    void *self = NULL;
    CU_ASSERT_EQUAL(rtc_osc_ops.open(&c->cfg, &LOG.lg, &self), RTC_EINVAL);
    CU_ASSERT_TRUE(io_log_has(&LOG, "signal 'b': path /x is already used"));
    io_cfg_free(c);
}

/* Open and start @p d on @p c; the address of its ephemeral port (free with
 * lo_address_free). */
static lo_address start_osc(io_drv *d, io_cfg *c)
{
    CU_ASSERT_EQUAL_FATAL(d->ops->open(&c->cfg, &LOG.lg, &d->self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d->ops->start(d->self), RTC_OK);
    char ps[16];
    snprintf(ps, sizeof ps, "%d", io_drv_stats(d, NULL, 0).port);
    return lo_address_new("127.0.0.1", ps);
}

/* Send @p v to @p path in a bundle dated @p mono (CLOCK_MONOTONIC ns). */
static void send_dated(lo_address to, const char *path, double v, int64_t mono)
{
    lo_bundle b = lo_bundle_new(tt_of_mono(mono));
    lo_message m = lo_message_new();
    lo_message_add_double(m, v);
    lo_bundle_add_message(b, path, m);
    CU_ASSERT_TRUE(lo_send_bundle(to, b) > 0);
    lo_bundle_free_recursive(b);
}

/* A timetag a day ahead or an hour behind is replaced by the arrival and counted, so the
 * samples after it stay newer (the input keeps moving); one within the bound is kept. */
static void osc_far_timetags_clamped_to_arrival(void)
{
    io_cfg *c = CFG;
    io_cfg_init(c, "tt");
    size_t sp = io_cfg_sig(c, "sp", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
    io_drv d = {&rtc_osc_ops, NULL};
    lo_address to = start_osc(&d, c);
    req_wait rw = {&d, 1};
    send_dated(to, "/sp", 1.0, rtc_time_now_ns() + 86400 * 1000000000LL);
    CU_ASSERT_TRUE_FATAL(io_wait(requests_reached, &rw, 5000));
    rtc_sample s1 = io_cfg_get(c, sp);
    CU_ASSERT_EQUAL(s1.value, 1.0);
    CU_ASSERT_EQUAL(s1.sample_ns, s1.arrival_ns);
    CU_ASSERT_EQUAL(io_drv_counter(&d, "timetags_clamped"), 1);
    lo_send(to, "/sp", "d", 2.0); /* a plain message after it: newer, not "older" */
    rw.n = 2;
    CU_ASSERT_TRUE_FATAL(io_wait(requests_reached, &rw, 5000));
    rtc_sample s2 = io_cfg_get(c, sp);
    CU_ASSERT_EQUAL(s2.value, 2.0);
    CU_ASSERT_TRUE(s2.sample_ns >= s1.sample_ns);
    send_dated(to, "/sp", 3.0, rtc_time_now_ns() - 3600 * 1000000000LL);
    rw.n = 3;
    CU_ASSERT_TRUE_FATAL(io_wait(requests_reached, &rw, 5000));
    rtc_sample s3 = io_cfg_get(c, sp);
    CU_ASSERT_EQUAL(s3.value, 3.0);
    CU_ASSERT_EQUAL(s3.sample_ns, s3.arrival_ns);
    CU_ASSERT_TRUE(s3.sample_ns >= s2.sample_ns);
    int64_t when = rtc_time_now_ns() - 200000000; /* inside the 1 s bound: kept */
    send_dated(to, "/sp", 4.0, when);
    rw.n = 4;
    CU_ASSERT_TRUE_FATAL(io_wait(requests_reached, &rw, 5000));
    rtc_sample s4 = io_cfg_get(c, sp);
    CU_ASSERT_EQUAL(s4.value, 4.0);
    CU_ASSERT_TRUE(llabs(s4.sample_ns - when) < 1000000);
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(io_counter(&st, "timetags_clamped"), 2);
    CU_ASSERT_EQUAL(io_counter(&st, "malformed"), 0);
    lo_address_free(to);
    d.ops->close(d.self);
    io_cfg_free(c);
}

/* NaN, Inf, an int64 beyond 2^53 and a value outside an int16 signal's range are refused
 * and counted; the signals keep their last good value. */
static void osc_nonfinite_and_out_of_type_refused(void)
{
    io_cfg *c = CFG;
    io_cfg_init(c, "nf");
    size_t sp = io_cfg_sig(c, "sp", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
    size_t n = io_cfg_sig(c, "n", RTC_IO_FROM_BENCH, RTC_TYPE_INT16, NULL);
    io_drv d = {&rtc_osc_ops, NULL};
    lo_address to = start_osc(&d, c);
    lo_send(to, "/sp", "d", 1.5);
    lo_send(to, "/n", "i", 7);
    req_wait rw = {&d, 2};
    CU_ASSERT_TRUE_FATAL(io_wait(requests_reached, &rw, 5000));
    lo_send(to, "/sp", "d", (double)INFINITY);
    lo_send(to, "/sp", "d", (double)NAN);
    lo_send(to, "/sp", "f", -(float)INFINITY);
    lo_send(to, "/sp", "h", (int64_t)1 << 60);
    lo_send(to, "/n", "i", 1000000);
    lo_send(to, "/n", "d", -40000.0);
    rw.n = 8;
    CU_ASSERT_TRUE_FATAL(io_wait(requests_reached, &rw, 5000));
    rtc_signal_health h[2];
    rtc_driver_stats st = io_drv_stats(&d, h, 2);
    CU_ASSERT_EQUAL(io_counter(&st, "malformed"), 6);
    CU_ASSERT_EQUAL(h[sp].errors, 4);
    CU_ASSERT_EQUAL(h[n].errors, 2);
    CU_ASSERT_EQUAL(io_cfg_get(c, sp).value, 1.5);
    CU_ASSERT_EQUAL(io_cfg_get(c, sp).seq, 1);
    CU_ASSERT_EQUAL(io_cfg_get(c, n).value, 7.0);
    lo_send(to, "/n", "i", -32768); /* the type's own bound is fine */
    rw.n = 9;
    CU_ASSERT_TRUE_FATAL(io_wait(requests_reached, &rw, 5000));
    CU_ASSERT_EQUAL(io_cfg_get(c, n).value, -32768.0);
    lo_address_free(to);
    d.ops->close(d.self);
    io_cfg_free(c);
}

/* ---- the I/O thread comes from the engine's one thread creator (rtcosim/rt.h) ---- */

/* The kernel id of this process's thread named @p name, or -1. */
static pid_t task_named(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    pid_t found = -1;
    for (struct dirent *e; d && found < 0 && (e = readdir(d));) {
        char path[300], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
        if (f && fgets(comm, sizeof comm, f)) {
            comm[strcspn(comm, "\n")] = '\0';
            if (strcmp(comm, name) == 0)
                found = (pid_t)atoi(e->d_name);
        }
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

/* Minor page faults thread @p tid has taken (/proc/self/task/<tid>/stat, field 10). */
static unsigned long task_minflt(pid_t tid)
{
    char path[64], line[1024] = "";
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = '\0';
        fclose(f);
    }
    char *p = strrchr(line, ')'); /* the name may hold spaces; fields follow its ')' */
    unsigned long minflt = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %lu", &minflt) != 1)
        CU_FAIL("cannot read the thread's stat");
    return minflt;
}

static void *idle_thread(void *arg)
{
    return arg;
}

/* Does the kernel grant this process SCHED_FIFO? Asked of the same creator. */
static bool fifo_permitted(void)
{
    rtc_rt_thread *t = NULL;
    rtc_rt_thread_opts o = {.priority = 10, .cpu = -1, .stack_bytes = 64 << 10};
    if (rtc_rt_thread_start(&o, idle_thread, NULL, &LOG.lg, &t) != RTC_OK)
        return false;
    bool fifo = strcmp(rtc_rt_thread_policy(t), "SCHED_FIFO") == 0;
    rtc_rt_thread_join(t);
    return fifo;
}

/* Open and start an OSC driver "pinned" with @p priority on @p cpu; its thread id. */
static pid_t start_pinned(io_drv *d, int priority, int cpu)
{
    io_cfg *c = CFG;
    char p[16], k[16];
    snprintf(p, sizeof p, "%d", priority);
    snprintf(k, sizeof k, "%d", cpu);
    io_cfg_init(c, "pinned");
    io_cfg_set(c, "priority", p);
    io_cfg_set(c, "cpu", k);
    io_cfg_sig(c, "sp", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
    *d = (io_drv){&rtc_osc_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d->ops->open(&c->cfg, &LOG.lg, &d->self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d->ops->start(d->self), RTC_OK); /* returns once the port is bound */
    return task_named("io-pinned");
}

static void osc_io_thread_pinned_and_prefaulted_by_the_rt_creator(void)
{
    cpu_set_t set; /* the highest CPU this process may run on (a cpuset may hide some) */
    CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof set, &set), 0);
    int cpu = rtc_rt_cpu_count() - 1;
    while (cpu > 0 && !CPU_ISSET(cpu, &set))
        cpu--;
    if (CPU_COUNT(&set) == 1)
        printf("\n    note: one CPU allowed: pinning to it cannot be told from no pinning");
    io_drv d;
    pid_t tid = start_pinned(&d, 0, cpu);
    CU_ASSERT_FATAL(tid > 0); /* named after its component by the creator */
    CU_ASSERT_EQUAL(sched_getaffinity(tid, sizeof set, &set), 0);
    CU_ASSERT_EQUAL(CPU_COUNT(&set), 1);
    CU_ASSERT_TRUE(CPU_ISSET(cpu, &set));
    CU_ASSERT_EQUAL(sched_getscheduler(tid), SCHED_OTHER);
    /* the creator touches half of the 1 MiB default stack below its own frame before the
     * loop runs, a fault per page (this process does not lock memory); an idle OSC loop
     * alone touches a few pages. Three quarters of the half leave room for the frames
     * above the prefaulted part. */
    unsigned long pages = ((size_t)1 << 20) / 2 / (size_t)sysconf(_SC_PAGESIZE) * 3 / 4;
    unsigned long minflt = task_minflt(tid);
    if (minflt < pages)
        printf("\n    I/O thread took %lu minor faults, prefault needs %lu", minflt, pages);
    CU_ASSERT_TRUE(minflt >= pages);
    d.ops->close(d.self);
    io_cfg_free(CFG);

    if (!fifo_permitted()) {
        printf("\n    skipped SCHED_FIFO part: the kernel refuses SCHED_FIFO to this process "
               "(no CAP_SYS_NICE / RLIMIT_RTPRIO)");
        return;
    }
    tid = start_pinned(&d, 10, cpu);
    CU_ASSERT_FATAL(tid > 0);
    struct sched_param sp;
    CU_ASSERT_EQUAL(sched_getscheduler(tid), SCHED_FIFO);
    CU_ASSERT_EQUAL(sched_getparam(tid, &sp), 0);
    CU_ASSERT_EQUAL(sp.sched_priority, 10);
    CU_ASSERT_EQUAL(sched_getaffinity(tid, sizeof set, &set), 0);
    CU_ASSERT_TRUE(CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set));
    d.ops->close(d.self);
    io_cfg_free(CFG);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"osc_setpoints_checked_clamped_and_filtered", osc_setpoints_checked_clamped_and_filtered},
        {"osc_loopback_default_accepts_loopback_peers",
         osc_loopback_default_accepts_loopback_peers},
        {"osc_stream_bundles_dated_by_samples", osc_stream_bundles_dated_by_samples},
        {"osc_open_rejects_bad_settings", osc_open_rejects_bad_settings},
        {"osc_far_timetags_clamped_to_arrival", osc_far_timetags_clamped_to_arrival},
        {"osc_nonfinite_and_out_of_type_refused", osc_nonfinite_and_out_of_type_refused},
        {"osc_io_thread_pinned_and_prefaulted_by_the_rt_creator",
         osc_io_thread_pinned_and_prefaulted_by_the_rt_creator},
        {NULL, NULL},
    };
    rtc_test_add_suite("io_osc", suite_init, suite_clean, cases);
}
