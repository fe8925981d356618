/*
 * The Modbus server driver against hostile peers on 127.0.0.1 (ephemeral ports): writes
 * to engine outputs through every write function code, slowloris and idle sockets beside
 * a polling PLC, frame and idle timeouts, admission (a new client beside pollers, half
 * frames, one host's crowd and a connect storm), malformed MBAP headers and PDUs.
 * The PLC is a real libmodbus client; the attackers are raw TCP sockets. Nothing here
 * asserts a latency: a PLC that is starved times out (generous response timeouts), and
 * the figures come from scripts/bench/bench_modbus_fair.
 */
#include "cu_main.h"
#include "io_cfg.h"
#include "io_util.h"

#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WAIT_MS 30000 /* events only; generous for TSan on a loaded 2-core machine */

IO_CFG_FIXTURE

/* The map of every test: holding 0 and coil 10 are engine outputs (read-only for the
 * peer), holding 1 and coil 11 engine inputs (writable). */
enum { OUT_REG, IN_REG, OUT_COIL, IN_COIL };

/* Open and start a server with the map above and settings kv (NULL-terminated pairs). */
static int srv_start(io_drv *d, const char *const *kv)
{
    io_cfg *c = CFG;
    io_cfg_init(c, "plc_link");
    io_cfg_set(c, "port", "0");
    for (; kv && kv[0]; kv += 2)
        io_cfg_set(c, kv[0], kv[1]);
    io_cfg_sig(c, "out", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "address", "0", "type", "int16",
               NULL);
    io_cfg_sig(c, "in", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "1", "type", "int16",
               NULL);
    io_cfg_sig(c, "cout", RTC_IO_TO_BENCH, RTC_TYPE_BOOL, "table", "coil", "address", "10",
               NULL);
    io_cfg_sig(c, "cin", RTC_IO_FROM_BENCH, RTC_TYPE_BOOL, "table", "coil", "address", "11",
               NULL);
    io_cfg_put(c, OUT_REG, 7.0);
    io_cfg_put(c, OUT_COIL, 1.0);
    *d = (io_drv){&rtc_modbus_server_ops, NULL};
    if (d->ops->open(&c->cfg, &LOG.lg, &d->self) != RTC_OK || d->ops->start(d->self) != RTC_OK)
        return -1;
    return io_drv_stats(d, NULL, 0).port;
}

static void srv_stop(io_drv *d)
{
    d->ops->close(d->self);
    io_cfg_free(CFG);
}

static bool outputs_sent(void *arg)
{
    rtc_signal_health h[4];
    io_drv_stats(arg, h, 4);
    return h[OUT_REG].updates > 0 && h[OUT_COIL].updates > 0;
}

/* ---- least privilege: every write function code ---- */

typedef struct seq_wait {
    size_t i;
    uint32_t seq;
} seq_wait;

static bool seq_reached(void *arg)
{
    seq_wait *w = arg;
    return io_cfg_get(CFG, w->i).seq >= w->seq;
}

static void expect_refused(int rc)
{
    int e = errno;
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_EQUAL(e, EMBXILADD);
}

static void server_refuses_writes_to_outputs_whatever_the_function_code(void)
{
    io_drv d;
    int port = srv_start(&d, NULL);
    CU_ASSERT_TRUE_FATAL(port > 0);
    CU_ASSERT_TRUE(io_wait(outputs_sent, &d, WAIT_MS));
    modbus_t *cl = io_mb_client(port, 5000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cl);
    uint16_t regs[2] = {0x1111, 0x2222}, back[2] = {0};
    uint8_t bits[2] = {0, 1}, bit = 0;
    expect_refused(modbus_mask_write_register(cl, 0, 0x0000, 0x1234)); /* FC 22 */
    expect_refused(modbus_write_bit(cl, 10, 0));                       /* FC 5 */
    expect_refused(modbus_write_bits(cl, 10, 2, bits));                /* FC 15 */
    expect_refused(modbus_write_register(cl, 0, 5));                   /* FC 6 */
    expect_refused(modbus_write_registers(cl, 0, 2, regs));            /* FC 16 */
    expect_refused(modbus_write_and_read_registers(cl, 0, 1, regs, 1, 1, back)); /* FC 23 */
    expect_refused(modbus_mask_write_register(cl, 500, 0, 1)); /* outside the map */
    /* unchanged: the outputs keep the engine's values, the inputs got nothing */
    CU_ASSERT_EQUAL(modbus_read_registers(cl, 0, 1, back), 1);
    CU_ASSERT_EQUAL(back[0], 7);
    CU_ASSERT_EQUAL(modbus_read_bits(cl, 10, 1, &bit), 1);
    CU_ASSERT_EQUAL(bit, 1);
    CU_ASSERT_EQUAL(io_cfg_get(CFG, IN_REG).seq, 0);
    CU_ASSERT_EQUAL(io_cfg_get(CFG, IN_COIL).seq, 0);
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(io_counter(&st, "write_refused"), 7);
    CU_ASSERT_EQUAL(st.rejected, 6); /* the six inside the map */
    CU_ASSERT_EQUAL(io_counter(&st, "exceptions"), 7);
    /* the writable input takes FC 22 and the write half of FC 23 (published just after
     * the reply went out: wait for the sample) */
    seq_wait w = {IN_REG, 1};
    CU_ASSERT_EQUAL(modbus_mask_write_register(cl, 1, 0x0000, 0x0005), 1);
    CU_ASSERT_TRUE(io_wait(seq_reached, &w, WAIT_MS));
    CU_ASSERT_EQUAL(io_cfg_get(CFG, IN_REG).value, 5.0);
    regs[0] = 9;
    CU_ASSERT_EQUAL(modbus_write_and_read_registers(cl, 1, 1, regs, 0, 2, back), 2);
    CU_ASSERT_EQUAL(back[0], 7);
    CU_ASSERT_EQUAL(back[1], 9);
    w.seq = 2;
    CU_ASSERT_TRUE(io_wait(seq_reached, &w, WAIT_MS));
    CU_ASSERT_EQUAL(io_cfg_get(CFG, IN_REG).value, 9.0);
    CU_ASSERT_EQUAL(io_drv_counter(&d, "write_refused"), 7);
    io_mb_client_free(cl);
    srv_stop(&d);
}

/* ---- fairness: slowloris and idle sockets beside a polling PLC ---- */

/* Build an MBAP frame (unit 1) around pdu into b; returns its length. */
static size_t mbap(uint8_t *b, uint16_t tid, const uint8_t *pdu, size_t n)
{
    b[0] = (uint8_t)(tid >> 8);
    b[1] = (uint8_t)tid;
    b[2] = b[3] = 0;
    b[4] = (uint8_t)((n + 1) >> 8);
    b[5] = (uint8_t)(n + 1);
    b[6] = 1;
    memcpy(b + 7, pdu, n);
    return 7 + n;
}

/* Three slowloris peers: each trickles 253-byte FC 16 requests, one byte per 20 ms (below
 * libmodbus' byte timeouts, so a server blocked in modbus_receive waits 5 s per frame). */
typedef struct loris {
    int fd[3];
    atomic_int sent_min; /* bytes every socket has sent so far */
    atomic_bool stop;
    pthread_t tid;
} loris;

static void *loris_thread(void *arg)
{
    loris *l = arg;
    uint8_t pdu[246] = {16, 0, 100, 0, 120, 240}, frame[260];
    size_t n = mbap(frame, 1, pdu, sizeof pdu);
    for (size_t k = 0; !atomic_load(&l->stop); k++) {
        for (int s = 0; s < 3; s++)
            io_tcp_send(l->fd[s], frame + k % n, 1);
        atomic_store(&l->sent_min, (int)k + 1);
        io_sleep_ms(20);
    }
    return NULL;
}

static bool loris_started(void *arg)
{
    return atomic_load(&((loris *)arg)->sent_min) >= 10;
}

typedef struct count_wait {
    io_drv *d;
    uint64_t connects;
} count_wait;

static bool connects_reached(void *arg)
{
    count_wait *w = arg;
    return io_drv_stats(w->d, NULL, 0).connects >= w->connects;
}

static void server_serves_plc_beside_slowloris_and_idle_sockets(void)
{
    static const char *const kv[] = {"max_clients", "16", "frame_timeout_ms", "60000",
                                     "idle_timeout_ms", "0", NULL};
    io_drv d;
    int port = srv_start(&d, kv);
    CU_ASSERT_TRUE_FATAL(port > 0);
    int idle[8];
    for (int k = 0; k < 8; k++)
        idle[k] = io_tcp_connect(port);
    loris l = {.sent_min = 0};
    for (int s = 0; s < 3; s++)
        l.fd[s] = io_tcp_connect(port);
    count_wait cw = {&d, 11};
    CU_ASSERT_TRUE(io_wait(connects_reached, &cw, WAIT_MS));
    CU_ASSERT_EQUAL_FATAL(pthread_create(&l.tid, NULL, loris_thread, &l), 0);
    CU_ASSERT_TRUE(io_wait(loris_started, &l, WAIT_MS));
    /* the PLC's timeout is far below the 5 s a trickled frame holds a blocking server */
    modbus_t *cl = io_mb_client(port, 2000);
    CU_ASSERT_PTR_NOT_NULL(cl);
    int ok = 0;
    for (int k = 0; cl && k < 20; k++) {
        uint16_t v = 0;
        if (modbus_read_registers(cl, 0, 1, &v) == 1 && v == 7)
            ok++;
    }
    CU_ASSERT_EQUAL(ok, 20);
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(io_counter(&st, "clients"), 12);
    CU_ASSERT_EQUAL(io_counter(&st, "frame_timeouts") + io_counter(&st, "idle_closed") +
                        io_counter(&st, "evicted"),
                    0);
    atomic_store(&l.stop, true);
    pthread_join(l.tid, NULL);
    io_mb_client_free(cl);
    for (int k = 0; k < 8; k++)
        close(idle[k]);
    for (int s = 0; s < 3; s++)
        close(l.fd[s]);
    srv_stop(&d);
}

/* ---- timeouts and max_clients ---- */

static void server_closes_stalled_frames_and_idle_connections(void)
{
    static const char *const kv[] = {"frame_timeout_ms", "200", "idle_timeout_ms", "400",
                                     NULL};
    io_drv d;
    int port = srv_start(&d, kv);
    CU_ASSERT_TRUE_FATAL(port > 0);
    uint8_t pdu[5] = {3, 0, 0, 0, 1}, f[16];
    size_t n = mbap(f, 1, pdu, sizeof pdu);
    int part = io_tcp_connect(port), lie = io_tcp_connect(port), quiet = io_tcp_connect(port);
    CU_ASSERT_TRUE(io_tcp_send(part, f, 3));     /* half a header, then nothing */
    f[5] = 20;                                   /* MBAP length says 20, 6 bytes follow */
    CU_ASSERT_TRUE(io_tcp_send(lie, f, n));
    CU_ASSERT_TRUE(io_tcp_wait_closed(part, WAIT_MS));
    CU_ASSERT_TRUE(io_tcp_wait_closed(lie, WAIT_MS));
    CU_ASSERT_TRUE(io_tcp_wait_closed(quiet, WAIT_MS));
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(io_counter(&st, "frame_timeouts"), 2);
    CU_ASSERT_EQUAL(io_counter(&st, "idle_closed"), 1);
    CU_ASSERT_EQUAL(st.requests, 0);
    modbus_t *cl = io_mb_client(port, 5000); /* the server is as good as new */
    uint16_t v = 0;
    CU_ASSERT_EQUAL(cl ? modbus_read_registers(cl, 0, 1, &v) : -1, 1);
    io_mb_client_free(cl);
    close(part);
    close(lie);
    close(quiet);
    srv_stop(&d);
}

/* ---- admission: a new client beside clients that hold the slots ---- */

/* One read of holding 0 on a raw socket: true when it is answered with 7. */
static bool raw_read(int fd, uint16_t tid)
{
    uint8_t pdu[5] = {3, 0, 0, 0, 1}, f[16], r[32];
    return fd >= 0 && io_tcp_send(fd, f, mbap(f, tid, pdu, sizeof pdu)) &&
           io_tcp_recv_frame(fd, r, sizeof r, WAIT_MS) == 11 && (r[9] << 8 | r[10]) == 7;
}

/* One read of holding 0 by a libmodbus client: true when it is answered with 7. */
static bool mb_read(modbus_t *cl)
{
    uint16_t v = 0;
    return cl && modbus_read_registers(cl, 0, 1, &v) == 1 && v == 7;
}

/* A socket holding the first 3 bytes of an MBAP header, then nothing. */
static int half_frame(int port)
{
    static const uint8_t part[3] = {0x00, 0x01, 0x00};
    int fd = io_tcp_connect(port);
    CU_ASSERT_TRUE(fd >= 0 && io_tcp_send(fd, part, sizeof part));
    return fd;
}

/* Eight PLCs, each reading once every 0.3 s; one whose read fails reconnects. */
typedef struct pollers {
    int port;
    atomic_bool stop;
    atomic_int ok, failed, ready;
    pthread_t tid[8];
} pollers;

static void *poller_main(void *arg)
{
    pollers *p = arg;
    modbus_t *cl = io_mb_client(p->port, 5000);
    bool first = true;
    for (int64_t due = rtc_time_now_ns(); !atomic_load(&p->stop); due += 300000000) {
        rtc_time_sleep_until_ns(due);
        if (mb_read(cl)) {
            atomic_fetch_add(&p->ok, 1);
            if (first)
                atomic_fetch_add(&p->ready, 1);
            first = false;
            continue;
        }
        atomic_fetch_add(&p->failed, 1);
        io_mb_client_free(cl);
        cl = io_mb_client(p->port, 5000);
    }
    io_mb_client_free(cl);
    return NULL;
}

static bool pollers_ready(void *arg)
{
    return atomic_load(&((pollers *)arg)->ready) == 8;
}

/* Issue 19: eight polling PLCs and three half frames used to hold every slot (8) and the
 * 9th client was refused for as long as they polled. */
static void server_admits_a_ninth_client_beside_eight_pollers_and_half_frames(void)
{
    io_drv d;
    int port = srv_start(&d, NULL); /* the default settings */
    CU_ASSERT_TRUE_FATAL(port > 0);
    pollers p = {.port = port};
    for (int i = 0; i < 8; i++)
        CU_ASSERT_EQUAL_FATAL(pthread_create(&p.tid[i], NULL, poller_main, &p), 0);
    CU_ASSERT_TRUE(io_wait(pollers_ready, &p, WAIT_MS));
    int half[3];
    for (int k = 0; k < 3; k++)
        half[k] = half_frame(port);
    count_wait cw = {&d, 11};
    CU_ASSERT_TRUE(io_wait(connects_reached, &cw, WAIT_MS));
    modbus_t *cl = io_mb_client(port, 5000);
    int ok = 0;
    int64_t t0 = rtc_time_now_ns();
    for (int k = 0; k < 20; k++) { /* a PLC scan: one read per 100 ms */
        rtc_time_sleep_until_ns(t0 + k * 100000000LL);
        ok += mb_read(cl);
    }
    CU_ASSERT_EQUAL(ok, 20);
    atomic_store(&p.stop, true);
    for (int i = 0; i < 8; i++)
        pthread_join(p.tid[i], NULL);
    CU_ASSERT_EQUAL(atomic_load(&p.failed), 0); /* and nobody was pushed out for it */
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(io_counter(&st, "clients_refused"), 0);
    CU_ASSERT_EQUAL(io_counter(&st, "evicted"), 0);
    io_mb_client_free(cl);
    for (int k = 0; k < 3; k++)
        close(half[k]);
    srv_stop(&d);
}

/* At max_clients the connection that yields is, in order: one that never completed a
 * request or holds a partial frame (oldest first, long before frame_timeout_ms), then the
 * client served least recently. */
static void server_when_full_unproven_connections_yield_first_then_least_recently_served(void)
{
    static const char *const kv[] = {"max_clients", "6", "frame_timeout_ms", "60000",
                                     "idle_timeout_ms", "0", NULL};
    io_drv d;
    int port = srv_start(&d, kv);
    CU_ASSERT_TRUE_FATAL(port > 0);
    modbus_t *plc[4];
    for (int i = 0; i < 4; i++) { /* served in this order: plc[0] least recently */
        plc[i] = io_mb_client(port, 5000);
        CU_ASSERT_TRUE(mb_read(plc[i]));
    }
    int silent = io_tcp_connect(port);
    count_wait cw = {&d, 5};
    CU_ASSERT_TRUE(io_wait(connects_reached, &cw, WAIT_MS));
    int half = half_frame(port);
    cw.connects = 6;
    CU_ASSERT_TRUE(io_wait(connects_reached, &cw, WAIT_MS));
    modbus_t *n9 = io_mb_client(port, 5000); /* full: the silent socket yields */
    int ok = 0;
    for (int k = 0; k < 20; k++)
        ok += mb_read(n9);
    CU_ASSERT_EQUAL(ok, 20);
    CU_ASSERT_EQUAL(io_drv_counter(&d, "evicted"), 1);
    CU_ASSERT_TRUE(io_tcp_wait_closed(silent, WAIT_MS));
    modbus_t *n10 = io_mb_client(port, 5000); /* then the half frame */
    CU_ASSERT_TRUE(mb_read(n10));
    CU_ASSERT_TRUE(io_tcp_wait_closed(half, WAIT_MS));
    modbus_t *n11 = io_mb_client(port, 5000); /* then the client served least recently */
    CU_ASSERT_TRUE(mb_read(n11));
    CU_ASSERT_TRUE(io_tcp_wait_closed(modbus_get_socket(plc[0]), WAIT_MS));
    for (int i = 1; i < 4; i++)
        CU_ASSERT_TRUE(mb_read(plc[i]));
    CU_ASSERT_TRUE(mb_read(n9) && mb_read(n10));
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(io_counter(&st, "evicted"), 3);
    CU_ASSERT_EQUAL(io_counter(&st, "evicted_peer"), 0);
    CU_ASSERT_EQUAL(io_counter(&st, "clients_refused"), 0);
    CU_ASSERT_EQUAL(io_counter(&st, "frame_timeouts"), 0);
    CU_ASSERT_EQUAL(io_counter(&st, "clients"), 6);
    for (int i = 0; i < 4; i++)
        io_mb_client_free(plc[i]);
    io_mb_client_free(n9);
    io_mb_client_free(n10);
    io_mb_client_free(n11);
    close(silent);
    close(half);
    srv_stop(&d);
}

/* A crowd from one host makes room among its own connections (max_clients_per_peer),
 * and at max_clients the most crowded host gives one up, not a PLC elsewhere, even when
 * that PLC was served least recently of all. */
static void server_keeps_one_hosts_crowd_to_its_share(void)
{
    static const char *const kv[] = {"max_clients", "6", "max_clients_per_peer", "3",
                                     "frame_timeout_ms", "60000", "idle_timeout_ms", "0",
                                     NULL};
    io_drv d;
    int port = srv_start(&d, kv);
    CU_ASSERT_TRUE_FATAL(port > 0);
    modbus_t *plc = io_mb_client(port, 5000); /* 127.0.0.1 */
    CU_ASSERT_TRUE(mb_read(plc));
    int crowd[5], other[2], late;
    for (int k = 0; k < 5; k++) /* 127.0.0.2: each served once, in order */
        CU_ASSERT_TRUE(raw_read(crowd[k] = io_tcp_connect_from(port, "127.0.0.2"), 1));
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(io_counter(&st, "evicted_peer"), 2);
    CU_ASSERT_EQUAL(io_counter(&st, "clients"), 4);
    CU_ASSERT_TRUE(io_tcp_wait_closed(crowd[0], WAIT_MS));
    CU_ASSERT_TRUE(io_tcp_wait_closed(crowd[1], WAIT_MS));
    for (int k = 0; k < 2; k++) /* 127.0.0.3: now every slot is taken */
        CU_ASSERT_TRUE(raw_read(other[k] = io_tcp_connect_from(port, "127.0.0.3"), 1));
    CU_ASSERT_TRUE(raw_read(late = io_tcp_connect_from(port, "127.0.0.4"), 1));
    CU_ASSERT_TRUE(io_tcp_wait_closed(crowd[2], WAIT_MS)); /* the crowd's oldest */
    CU_ASSERT_TRUE(mb_read(plc));
    CU_ASSERT_TRUE(raw_read(crowd[3], 2) && raw_read(crowd[4], 2));
    CU_ASSERT_TRUE(raw_read(other[0], 2) && raw_read(other[1], 2));
    st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(io_counter(&st, "evicted"), 3);
    CU_ASSERT_EQUAL(io_counter(&st, "evicted_peer"), 2);
    CU_ASSERT_EQUAL(io_counter(&st, "clients"), 6);
    io_mb_client_free(plc);
    for (int k = 0; k < 5; k++)
        close(crowd[k]);
    close(other[0]);
    close(other[1]);
    close(late);
    srv_stop(&d);
}

/* One host connects as fast as it can, holding 16 sockets that never speak. */
typedef struct storm {
    int port;
    atomic_bool stop;
    atomic_int connects;
    pthread_t tid;
} storm;

static void *storm_main(void *arg)
{
    storm *s = arg;
    int fd[16];
    for (int k = 0; k < 16; k++)
        fd[k] = -1;
    for (int k = 0; !atomic_load(&s->stop); k = (k + 1) % 16) {
        if (fd[k] >= 0)
            close(fd[k]);
        fd[k] = io_tcp_connect_from(s->port, "127.0.0.2");
        atomic_fetch_add(&s->connects, 1);
    }
    for (int k = 0; k < 16; k++)
        if (fd[k] >= 0)
            close(fd[k]);
    return NULL;
}

static bool storm_going(void *arg)
{
    return atomic_load(&((storm *)arg)->connects) >= 2000;
}

/* Through a connect storm a client of the storming host that was served keeps its slot,
 * and a new PLC on another host is served on its first connection. */
static void server_serves_plcs_through_a_connect_storm(void)
{
    static const char *const kv[] = {"max_clients", "8", "max_clients_per_peer", "4", NULL};
    io_drv d;
    int port = srv_start(&d, kv);
    CU_ASSERT_TRUE_FATAL(port > 0);
    int neighbour = io_tcp_connect_from(port, "127.0.0.2");
    CU_ASSERT_TRUE(raw_read(neighbour, 1));
    storm s = {.port = port};
    CU_ASSERT_EQUAL_FATAL(pthread_create(&s.tid, NULL, storm_main, &s), 0);
    CU_ASSERT_TRUE(io_wait(storm_going, &s, WAIT_MS));
    modbus_t *plc = io_mb_client(port, 5000);
    int ok = 0;
    for (int k = 0; k < 50; k++)
        ok += mb_read(plc);
    CU_ASSERT_EQUAL(ok, 50);
    CU_ASSERT_TRUE(raw_read(neighbour, 2));
    atomic_store(&s.stop, true);
    pthread_join(s.tid, NULL);
    CU_ASSERT_TRUE(raw_read(neighbour, 3));
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_TRUE(io_counter(&st, "evicted_peer") > 0);
    CU_ASSERT_TRUE(io_counter(&st, "clients_max") <= 8);
    io_mb_client_free(plc);
    close(neighbour);
    srv_stop(&d);
}

/* ---- malformed requests ---- */

/* Send a frame on fd and expect the exception fc|0x80, code for transaction tid. */
static void expect_exception(int fd, uint16_t tid, const uint8_t *pdu, size_t n, int code)
{
    uint8_t f[300], r[300];
    CU_ASSERT_TRUE(io_tcp_send(fd, f, mbap(f, tid, pdu, n)));
    int len = io_tcp_recv_frame(fd, r, sizeof r, WAIT_MS);
    CU_ASSERT_EQUAL(len, 9);
    if (len != 9)
        return;
    CU_ASSERT_EQUAL(r[0] << 8 | r[1], tid);
    CU_ASSERT_EQUAL(r[7], pdu[0] | 0x80);
    CU_ASSERT_EQUAL(r[8], code);
}

/* A header the stream cannot be framed by closes that connection, no other. */
static void expect_closed(int port, const uint8_t *head, size_t n)
{
    int fd = io_tcp_connect(port);
    CU_ASSERT_TRUE(io_tcp_send(fd, head, n));
    CU_ASSERT_TRUE(io_tcp_wait_closed(fd, WAIT_MS));
    close(fd);
}

static void server_answers_malformed_requests_per_spec(void)
{
    io_drv d;
    int port = srv_start(&d, NULL);
    CU_ASSERT_TRUE_FATAL(port > 0);
    CU_ASSERT_TRUE(io_wait(outputs_sent, &d, WAIT_MS));
    modbus_t *cl = io_mb_client(port, 5000);
    int fd = io_tcp_connect(port);
    CU_ASSERT_TRUE_FATAL(fd >= 0);
    static const uint8_t bc_lie[] = {16, 0, 1, 0, 2, 4, 0, 9},   /* 4 data bytes said, 2 sent */
        qty0[] = {3, 0, 0, 0, 0}, qty126[] = {3, 0, 0, 0, 126},
        extra[] = {3, 0, 0, 0, 1, 0xAA, 0xBB},                   /* 2 bytes past the PDU */
        short16[] = {16, 0, 1}, coil_odd[] = {5, 0, 11, 0x12, 0x34},
        fc7[] = {7}, fc17[] = {17}, fc43[] = {43, 14, 1, 0};
    expect_exception(fd, 1, bc_lie, sizeof bc_lie, 3);
    expect_exception(fd, 2, qty0, sizeof qty0, 3);
    expect_exception(fd, 3, qty126, sizeof qty126, 3);
    expect_exception(fd, 4, extra, sizeof extra, 3);
    expect_exception(fd, 5, short16, sizeof short16, 3);
    expect_exception(fd, 6, coil_odd, sizeof coil_odd, 3);
    expect_exception(fd, 7, fc7, sizeof fc7, 1);
    expect_exception(fd, 8, fc17, sizeof fc17, 1);
    expect_exception(fd, 9, fc43, sizeof fc43, 1);
    /* two requests in one segment: two answers, in order, on the same connection */
    uint8_t two[32], r[64];
    static const uint8_t rd[] = {3, 0, 0, 0, 1};
    size_t n = mbap(two, 0x0101, rd, sizeof rd);
    n += mbap(two + n, 0x0102, rd, sizeof rd);
    CU_ASSERT_TRUE(io_tcp_send(fd, two, n));
    for (int k = 1; k <= 2; k++) {
        CU_ASSERT_EQUAL(io_tcp_recv_frame(fd, r, sizeof r, WAIT_MS), 11);
        CU_ASSERT_EQUAL(r[0] << 8 | r[1], 0x0100 + k);
        CU_ASSERT_EQUAL(r[9] << 8 | r[10], 7);
    }
    static const uint8_t len0[] = {0, 1, 0, 0, 0, 0, 1}, len1[] = {0, 1, 0, 0, 0, 1, 1},
                         len300[] = {0, 1, 0, 0, 1, 44, 1}, proto5[] = {0, 1, 0, 5, 0, 6, 1},
                         exc[] = {0, 1, 0, 0, 0, 2, 1, 0x83};
    expect_closed(port, len0, sizeof len0);
    expect_closed(port, len1, sizeof len1);
    expect_closed(port, len300, sizeof len300);
    expect_closed(port, proto5, sizeof proto5);
    expect_closed(port, exc, sizeof exc);
    uint16_t v = 0; /* the other clients never noticed */
    CU_ASSERT_EQUAL(cl ? modbus_read_registers(cl, 0, 1, &v) : -1, 1);
    CU_ASSERT_EQUAL(v, 7);
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(io_counter(&st, "fc_unsupported"), 3);
    CU_ASSERT_EQUAL(io_counter(&st, "bad_requests"), 6 + 5);
    CU_ASSERT_EQUAL(io_counter(&st, "write_refused"), 0);
    CU_ASSERT_EQUAL(io_cfg_get(CFG, IN_COIL).seq, 0);
    close(fd);
    io_mb_client_free(cl);
    srv_stop(&d);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"server_refuses_writes_to_outputs_whatever_the_function_code",
         server_refuses_writes_to_outputs_whatever_the_function_code},
        {"server_serves_plc_beside_slowloris_and_idle_sockets",
         server_serves_plc_beside_slowloris_and_idle_sockets},
        {"server_closes_stalled_frames_and_idle_connections",
         server_closes_stalled_frames_and_idle_connections},
        {"server_admits_a_ninth_client_beside_eight_pollers_and_half_frames",
         server_admits_a_ninth_client_beside_eight_pollers_and_half_frames},
        {"server_when_full_unproven_connections_yield_first_then_least_recently_served",
         server_when_full_unproven_connections_yield_first_then_least_recently_served},
        {"server_keeps_one_hosts_crowd_to_its_share", server_keeps_one_hosts_crowd_to_its_share},
        {"server_serves_plcs_through_a_connect_storm", server_serves_plcs_through_a_connect_storm},
        {"server_answers_malformed_requests_per_spec",
         server_answers_malformed_requests_per_spec},
        {NULL, NULL},
    };
    rtc_test_add_suite("io_modbus_server", suite_init, suite_clean, cases);
}
