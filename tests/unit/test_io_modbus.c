/*
 * Modbus driver tests against real libmodbus peers on 127.0.0.1 with ephemeral ports:
 * the server driver polled by a plain libmodbus client, the client driver polling a plain
 * libmodbus server (a thread of this process), RTU over a socat pty pair, and Debian's
 * mbpoll as a third-party client. Expected register contents are written out by hand
 * (IEEE-754 and two's complement bit patterns), not computed with the driver's codec.
 */
#include "cu_main.h"
#include "io_cfg.h"
#include "io_util.h"

#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every wait is for an event, bounded generously: the suite runs under TSan on a loaded
 * 2-core machine. Tests that count requests per cycle poll slowly, so that a response
 * timeout (a wall-clock window the client driver needs) is far above any scheduling delay;
 * none asserts a speed. */
#define WAIT_MS 30000

static io_log LOG;
static io_cfg *CFG;

static int suite_init(void)
{
    io_log_init(&LOG);
    CFG = calloc(1, sizeof *CFG);
    signal(SIGPIPE, SIG_IGN);
    return CFG ? 0 : 1;
}

static int suite_clean(void)
{
    free(CFG);
    return 0;
}

/* ---- the codec cases: type, word order, byte swap, value, registers, scale, offset ---- */
typedef struct codec_case {
    const char *type, *order;
    const char *swap;
    double value;
    uint16_t regs[4];
    const char *scale, *offset;
} codec_case;

static const codec_case CASES[] = {
    {"bool", "big", "false", 1.0, {0x0001}, "1", "0"},
    {"int16", "big", "false", -2.0, {0xFFFE}, "1", "0"},
    {"int16", "big", "true", -2.0, {0xFEFF}, "1", "0"},
    {"uint16", "big", "false", 65000.0, {0xFDE8}, "1", "0"},
    {"int32", "big", "false", -123456.0, {0xFFFE, 0x1DC0}, "1", "0"},
    {"int32", "little", "false", -123456.0, {0x1DC0, 0xFFFE}, "1", "0"},
    {"int32", "big", "true", -123456.0, {0xFEFF, 0xC01D}, "1", "0"},
    {"uint32", "big", "false", 3000000000.0, {0xB2D0, 0x5E00}, "1", "0"},
    {"uint32", "little", "true", 3000000000.0, {0x005E, 0xD0B2}, "1", "0"},
    {"float32", "big", "false", 1.5, {0x3FC0, 0x0000}, "1", "0"},
    {"float32", "little", "false", 1.5, {0x0000, 0x3FC0}, "1", "0"},
    {"float32", "little", "true", 1.5, {0x0000, 0xC03F}, "1", "0"},
    {"float32", "big", "true", -0.15625, {0x20BE, 0x0000}, "1", "0"},
    {"int64", "big", "false", -5.0, {0xFFFF, 0xFFFF, 0xFFFF, 0xFFFB}, "1", "0"},
    {"int64", "little", "false", -5.0, {0xFFFB, 0xFFFF, 0xFFFF, 0xFFFF}, "1", "0"},
    {"uint64", "big", "false", 1099511627783.0, {0x0000, 0x0100, 0x0000, 0x0007}, "1", "0"},
    {"uint64", "little", "true", 1099511627783.0, {0x0700, 0x0000, 0x0001, 0x0000}, "1", "0"},
    {"float64", "big", "false", -2.75, {0xC006, 0, 0, 0}, "1", "0"},
    {"float64", "little", "false", -2.75, {0, 0, 0, 0xC006}, "1", "0"},
    {"float64", "big", "true", -2.75, {0x06C0, 0, 0, 0}, "1", "0"},
    {"float64", "little", "true", -2.75, {0, 0, 0, 0x06C0}, "1", "0"},
    {"int16", "big", "false", 12.3, {0x007B}, "0.1", "0"},      /* raw 123 */
    {"uint16", "big", "false", 25.0, {0x0046}, "0.5", "-10"},   /* raw (25+10)/0.5 = 70 */
};
#define N_CASES (sizeof CASES / sizeof CASES[0])

static int case_regs(const codec_case *c)
{
    if (strncmp(c->type, "int64", 5) == 0 || strncmp(c->type, "uint64", 6) == 0 ||
        strcmp(c->type, "float64") == 0)
        return 4;
    if (strstr(c->type, "32"))
        return 2;
    return 1;
}

/* Add one holding-register signal per case at base + 10 k. */
static void add_case_signals(io_cfg *c, const char *prefix, rtc_io_dir dir, int base)
{
    for (size_t k = 0; k < N_CASES; k++) {
        char name[32], addr[16];
        snprintf(name, sizeof name, "%s%zu", prefix, k);
        snprintf(addr, sizeof addr, "%d", base + 10 * (int)k);
        io_cfg_sig(c, name, dir, RTC_TYPE_FLOAT64, "table", "holding", "address", addr, "type",
                   CASES[k].type, "word_order", CASES[k].order, "byte_swap", CASES[k].swap,
                   "scale", CASES[k].scale, "offset", CASES[k].offset, NULL);
    }
}

/* ---- predicates for io_wait ---- */
typedef struct seq_wait {
    io_cfg *c;
    size_t first, n;
} seq_wait;

static bool all_written(void *arg)
{
    seq_wait *w = arg;
    for (size_t i = w->first; i < w->first + w->n; i++)
        if (rtc_mailbox_seq(w->c->sig[i].mailbox) == 0)
            return false;
    return true;
}

typedef struct sent_wait {
    io_drv *d;
    size_t first, n;
    uint64_t min;
} sent_wait;

static bool all_sent(void *arg)
{
    sent_wait *w = arg;
    rtc_signal_health h[IO_CFG_MAX_SIGS];
    rtc_driver_stats st = io_drv_stats(w->d, h, IO_CFG_MAX_SIGS);
    for (size_t i = w->first; i < w->first + w->n; i++)
        if (i >= st.n_signals || h[i].updates < w->min)
            return false;
    return true;
}

/* ---- server driver <-> plain libmodbus client ---- */

static modbus_t *plain_client(int port)
{
    return io_mb_client(port, 5000);
}

static void server_outputs_encode_every_type(void)
{
    io_cfg *c = CFG;
    io_cfg_init(c, "plc_link");
    io_cfg_set(c, "port", "0");
    io_cfg_set(c, "update_ms", "1");
    add_case_signals(c, "out", RTC_IO_TO_BENCH, 0);
    add_case_signals(c, "in", RTC_IO_FROM_BENCH, 1000);
    size_t cout = io_cfg_sig(c, "cout", RTC_IO_TO_BENCH, RTC_TYPE_BOOL, "table", "coil",
                             "address", "500", NULL);
    size_t cin = io_cfg_sig(c, "cin", RTC_IO_FROM_BENCH, RTC_TYPE_BOOL, "table", "coil",
                            "address", "501", NULL);
    size_t dout = io_cfg_sig(c, "dout", RTC_IO_TO_BENCH, RTC_TYPE_BOOL, "table", "discrete",
                             "address", "7", NULL);
    size_t iout = io_cfg_sig(c, "iout", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "table", "input",
                             "address", "3", "type", "float32", NULL);
    for (size_t k = 0; k < N_CASES; k++)
        io_cfg_put(c, k, CASES[k].value);
    io_cfg_put(c, cout, 1.0);
    io_cfg_put(c, dout, 1.0);
    io_cfg_put(c, iout, -0.15625);
    io_drv d = {&rtc_modbus_server_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_TRUE_FATAL(st.port > 0);
    sent_wait sw = {&d, 0, N_CASES, 1};
    CU_ASSERT_TRUE(io_wait(all_sent, &sw, WAIT_MS));
    modbus_t *cl = plain_client(st.port);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cl);
    for (size_t k = 0; k < N_CASES; k++) {
        uint16_t regs[4] = {0};
        int n = case_regs(&CASES[k]);
        CU_ASSERT_EQUAL(modbus_read_registers(cl, 10 * (int)k, n, regs), n);
        if (memcmp(regs, CASES[k].regs, (size_t)n * 2) != 0)
            printf("\n    case %zu (%s %s swap=%s): got %04x %04x %04x %04x", k, CASES[k].type,
                   CASES[k].order, CASES[k].swap, regs[0], regs[1], regs[2], regs[3]);
        CU_ASSERT_EQUAL(memcmp(regs, CASES[k].regs, (size_t)n * 2), 0);
    }
    uint8_t bit = 0;
    CU_ASSERT_EQUAL(modbus_read_bits(cl, 500, 1, &bit), 1);
    CU_ASSERT_EQUAL(bit, 1);
    bit = 0;
    CU_ASSERT_EQUAL(modbus_read_input_bits(cl, 7, 1, &bit), 1);
    CU_ASSERT_EQUAL(bit, 1);
    uint16_t ir[2];
    CU_ASSERT_EQUAL(modbus_read_input_registers(cl, 3, 2, ir), 2);
    CU_ASSERT_EQUAL(ir[0], 0xBE20);
    CU_ASSERT_EQUAL(ir[1], 0x0000);

    /* the peer writes every input: each becomes a timestamped sample */
    int64_t t_before = rtc_time_now_ns();
    for (size_t k = 0; k < N_CASES; k++)
        CU_ASSERT_EQUAL(modbus_write_registers(cl, 1000 + 10 * (int)k, case_regs(&CASES[k]),
                                               CASES[k].regs), case_regs(&CASES[k]));
    CU_ASSERT_EQUAL(modbus_write_bit(cl, 501, 1), 1);
    seq_wait w = {c, N_CASES, N_CASES};
    CU_ASSERT_TRUE(io_wait(all_written, &w, WAIT_MS));
    int64_t t_after = rtc_time_now_ns();
    for (size_t k = 0; k < N_CASES; k++) {
        rtc_sample s = io_cfg_get(c, N_CASES + k);
        CU_ASSERT_DOUBLE_EQUAL(s.value, CASES[k].value, 1e-9 * (1 + fabs(CASES[k].value)));
        CU_ASSERT_EQUAL(s.seq, 1);
        CU_ASSERT_EQUAL(s.quality, RTC_QUALITY_FRESH);
        CU_ASSERT_TRUE(s.sample_ns >= t_before && s.sample_ns <= t_after);
        CU_ASSERT_TRUE(s.arrival_ns >= s.sample_ns);
    }
    seq_wait wc = {c, cin, 1};
    CU_ASSERT_TRUE(io_wait(all_written, &wc, WAIT_MS));
    CU_ASSERT_EQUAL(io_cfg_get(c, cin).value, 1.0);

    /* an engine output is read-only for the peer: refused, register unchanged */
    uint16_t evil[1] = {0x1234}, back[1];
    errno = 0;
    CU_ASSERT_EQUAL(modbus_write_registers(cl, 10, 1, evil), -1);
    CU_ASSERT_EQUAL(errno, EMBXILADD);
    CU_ASSERT_EQUAL(modbus_read_registers(cl, 10, 1, back), 1);
    CU_ASSERT_EQUAL(back[0], CASES[1].regs[0]);
    errno = 0;
    CU_ASSERT_EQUAL(modbus_read_registers(cl, 1900, 2, back), -1); /* outside the map */
    CU_ASSERT_EQUAL(errno, EMBXILADD);
    st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(st.rejected, 1);
    CU_ASSERT_EQUAL(io_counter(&st, "exceptions"), 2);
    CU_ASSERT_TRUE(st.connected);
    CU_ASSERT_TRUE(st.latency.count >= N_CASES * 2);

    /* a second client at the same time */
    modbus_t *cl2 = plain_client(st.port);
    CU_ASSERT_PTR_NOT_NULL(cl2);
    uint16_t r2[2] = {0};
    if (cl2) {
        CU_ASSERT_EQUAL(modbus_read_registers(cl2, 90, 2, r2), 2);
        CU_ASSERT_EQUAL(r2[0], 0x3FC0);
        CU_ASSERT_EQUAL(modbus_read_registers(cl, 90, 2, r2), 2); /* first still served */
        modbus_close(cl2);
        modbus_free(cl2);
    }
    printf("\n    server latency (receive->reply): n=%llu p50=%lld ns p99=%lld ns max=%lld ns\n",
           (unsigned long long)st.latency.count, (long long)st.latency.p50,
           (long long)st.latency.p99, (long long)st.latency.max);
    modbus_close(cl);
    modbus_free(cl);
    d.ops->close(d.self);
    io_cfg_free(c);
}

/* ---- client driver <-> plain libmodbus server ---- */

typedef struct cycles_wait {
    io_drv *d;
    uint64_t min;
} cycles_wait;

static bool cycles_reached(void *arg)
{
    cycles_wait *w = arg;
    return io_drv_stats(w->d, NULL, 0).cycles >= w->min;
}

/* Wait until the driver has run n more cycles than now. */
static bool more_cycles(io_drv *d, uint64_t n)
{
    cycles_wait w = {d, io_drv_stats(d, NULL, 0).cycles + n};
    return io_wait(cycles_reached, &w, WAIT_MS);
}

typedef struct regs_wait {
    plain_srv *srv;
    int addr, n;
    const uint16_t *want;
} regs_wait;

static bool srv_regs_equal(void *arg)
{
    regs_wait *w = arg;
    pthread_mutex_lock(&w->srv->mu);
    bool eq = memcmp(w->srv->map->tab_registers + w->addr, w->want, (size_t)w->n * 2) == 0;
    pthread_mutex_unlock(&w->srv->mu);
    return eq;
}

static void client_cfg(io_cfg *c, int port, const char *poll_ms)
{
    char p[16];
    snprintf(p, sizeof p, "%d", port);
    io_cfg_init(c, "io_module");
    io_cfg_set(c, "host", "127.0.0.1");
    io_cfg_set(c, "port", p);
    io_cfg_set(c, "poll_ms", poll_ms);
    /* a generous response timeout: a loaded test machine must not turn into timeouts */
    char tmo[16];
    snprintf(tmo, sizeof tmo, "%g", 0.9 * atof(poll_ms));
    io_cfg_set(c, "timeout_ms", tmo);
    io_cfg_set(c, "reconnect_min_ms", "10");
    io_cfg_set(c, "reconnect_max_ms", "200");
}

static void client_roundtrips_every_type(void)
{
    plain_srv srv;
    CU_ASSERT_EQUAL_FATAL(plain_srv_start(&srv), 0);
    pthread_mutex_lock(&srv.mu);
    for (size_t k = 0; k < N_CASES; k++)
        memcpy(srv.map->tab_registers + 10 * k, CASES[k].regs, (size_t)case_regs(&CASES[k]) * 2);
    srv.map->tab_bits[5] = 1;
    srv.map->tab_input_bits[6] = 1;
    srv.map->tab_input_registers[7] = 0xC006; /* float64 -2.75 over four input registers */
    pthread_mutex_unlock(&srv.mu);

    io_cfg *c = CFG;
    client_cfg(c, srv.port, "50");
    add_case_signals(c, "in", RTC_IO_FROM_BENCH, 0);
    add_case_signals(c, "out", RTC_IO_TO_BENCH, 1000);
    size_t ci = io_cfg_sig(c, "coil_in", RTC_IO_FROM_BENCH, RTC_TYPE_BOOL, "table", "coil",
                           "address", "5", NULL);
    io_cfg_sig(c, "di_in", RTC_IO_FROM_BENCH, RTC_TYPE_BOOL, "table", "discrete", "address", "6",
               NULL);
    io_cfg_sig(c, "ir_in", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "table", "input", "address", "7",
               "type", "float64", NULL);
    size_t co = io_cfg_sig(c, "coil_out", RTC_IO_TO_BENCH, RTC_TYPE_BOOL, "table", "coil",
                           "address", "8", NULL);
    for (size_t k = 0; k < N_CASES; k++)
        io_cfg_put(c, N_CASES + k, CASES[k].value);
    io_cfg_put(c, co, 1.0);
    io_drv d = {&rtc_modbus_client_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    int64_t t0 = rtc_time_now_ns();
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    seq_wait w = {c, 0, N_CASES};
    CU_ASSERT_TRUE(io_wait(all_written, &w, WAIT_MS));
    seq_wait wb = {c, ci, 3};
    CU_ASSERT_TRUE(io_wait(all_written, &wb, WAIT_MS));
    for (size_t k = 0; k < N_CASES; k++) {
        rtc_sample s = io_cfg_get(c, k);
        CU_ASSERT_DOUBLE_EQUAL(s.value, CASES[k].value, 1e-9 * (1 + fabs(CASES[k].value)));
        CU_ASSERT_EQUAL(s.quality, RTC_QUALITY_FRESH);
        CU_ASSERT_TRUE(s.sample_ns > t0 && s.sample_ns <= s.arrival_ns);
    }
    CU_ASSERT_EQUAL(io_cfg_get(c, ci).value, 1.0);
    CU_ASSERT_EQUAL(io_cfg_get(c, ci + 1).value, 1.0);
    CU_ASSERT_EQUAL(io_cfg_get(c, ci + 2).value, -2.75);
    for (size_t k = 0; k < N_CASES; k++) {
        regs_wait rw = {&srv, 1000 + 10 * (int)k, case_regs(&CASES[k]), CASES[k].regs};
        CU_ASSERT_TRUE(io_wait(srv_regs_equal, &rw, WAIT_MS));
    }
    pthread_mutex_lock(&srv.mu);
    CU_ASSERT_EQUAL(srv.map->tab_bits[8], 1);
    pthread_mutex_unlock(&srv.mu);
    d.ops->stop(d.self);
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(st.errors + io_counter(&st, "exceptions"), 0);
    CU_ASSERT_EQUAL(st.connects, 1 + st.reconnects);
    printf("\n    client latency (request->response, loopback): n=%llu p50=%lld ns p99=%lld ns "
           "max=%lld ns\n", (unsigned long long)st.latency.count,
           (long long)st.latency.p50,
           (long long)st.latency.p99, (long long)st.latency.max);
    d.ops->close(d.self);
    io_cfg_free(c);
    plain_srv_stop(&srv);
}

typedef struct beats_wait {
    plain_srv *srv;
    int min;
} beats_wait;

static bool beats_seen(void *arg)
{
    beats_wait *w = arg;
    int n = 0;
    pthread_mutex_lock(&w->srv->mu);
    for (int k = 0; k < w->srv->n_log; k++)
        n += w->srv->log[k].fc == 6;
    pthread_mutex_unlock(&w->srv->mu);
    return n >= w->min;
}

/* Contiguous addresses become one request; heartbeat counts one per cycle. */
static void client_batches_contiguous_and_counts_heartbeat(void)
{
    plain_srv srv;
    CU_ASSERT_EQUAL_FATAL(plain_srv_start(&srv), 0);
    io_cfg *c = CFG;
    client_cfg(c, srv.port, "20");
    io_cfg_set(c, "write_mode", "cycle");
    io_cfg_set(c, "heartbeat", "holding:1999");
    io_cfg_set(c, "heartbeat_mode", "count");
    io_cfg_sig(c, "a", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "0", "type", "int16", NULL);
    io_cfg_sig(c, "b", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "1", "type", "float32",
               NULL);
    io_cfg_sig(c, "c", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "3", "type", "uint16", NULL);
    io_cfg_sig(c, "x", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "address", "100", "type", "int16", NULL);
    io_cfg_sig(c, "y", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "address", "101", "type", "int32", NULL);
    io_drv d = {&rtc_modbus_client_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    beats_wait bw = {&srv, 5};
    CU_ASSERT_TRUE(io_wait(beats_seen, &bw, WAIT_MS));
    d.ops->stop(d.self);
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    /* What the device saw, whatever load did to response times (a timed-out request ends
     * its cycle): 1 read batch (a,b,c), 1 write batch (x,y), heartbeat values 1, 2, 3...
     * (served in any order across a reconnect), at most one of each per cycle. */
    int reads = 0, writes = 0, beats = 0, other = 0, top = 0;
    bool seen[256] = {false};
    pthread_mutex_lock(&srv.mu);
    for (int k = 0; k < srv.n_log; k++) {
        plain_req r = srv.log[k];
        if (r.fc == 3 && r.addr == 0 && r.arg == 4)
            reads++;
        else if (r.fc == 16 && r.addr == 100 && r.arg == 3)
            writes++;
        else if (r.fc == 6 && r.addr == 1999 && r.arg >= 1 && r.arg < 256 && !seen[r.arg])
            seen[r.arg] = true, beats++, top = r.arg > top ? r.arg : top;
        else
            other++;
    }
    pthread_mutex_unlock(&srv.mu);
    CU_ASSERT_EQUAL(other, 0);
    CU_ASSERT_TRUE(beats >= 5);
    CU_ASSERT_EQUAL(top, beats); /* none skipped */
    CU_ASSERT_TRUE(reads <= (int)st.cycles && writes <= (int)st.cycles);
    CU_ASSERT_TRUE(beats <= (int)st.cycles);
    if (st.timeouts + st.errors == 0) /* a calm run: exactly three per cycle */
        CU_ASSERT_EQUAL(st.requests, 3 * st.cycles);
    d.ops->close(d.self);
    io_cfg_free(c);
    plain_srv_stop(&srv);
}

/* write_mode=on_change: an output is written once per new mailbox sample. */
static void client_on_change_writes_only_new_samples(void)
{
    plain_srv srv;
    CU_ASSERT_EQUAL_FATAL(plain_srv_start(&srv), 0);
    io_cfg *c = CFG;
    client_cfg(c, srv.port, "50");
    io_cfg_sig(c, "in", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "0", "type", "int16",
               NULL);
    size_t out = io_cfg_sig(c, "out", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "address", "10",
                            "type", "int16", NULL);
    io_cfg_put(c, out, 11);
    io_drv d = {&rtc_modbus_client_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    uint16_t want11[1] = {11}, want12[1] = {12};
    regs_wait rw = {&srv, 10, 1, want11};
    CU_ASSERT_TRUE(io_wait(srv_regs_equal, &rw, WAIT_MS));
    CU_ASSERT_TRUE(more_cycles(&d, 2));
    io_cfg_put(c, out, 12);
    rw.want = want12;
    CU_ASSERT_TRUE(io_wait(srv_regs_equal, &rw, WAIT_MS));
    CU_ASSERT_TRUE(more_cycles(&d, 2));
    d.ops->stop(d.self);
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    /* one read per cycle + two writes; a timed-out write is retried (one more request) */
    CU_ASSERT_TRUE(st.requests >= st.cycles + 2 && st.requests <= st.cycles + 2 + st.timeouts);
    d.ops->close(d.self);
    io_cfg_free(c);
    plain_srv_stop(&srv);
}

/* An exception response is counted, flags only its batch, keeps the link. */
static void client_exception_counted_not_fatal(void)
{
    plain_srv srv;
    CU_ASSERT_EQUAL_FATAL(plain_srv_start(&srv), 0);
    pthread_mutex_lock(&srv.mu);
    srv.map->tab_registers[10] = 77;
    pthread_mutex_unlock(&srv.mu);
    io_cfg *c = CFG;
    client_cfg(c, srv.port, "20");
    size_t bad = io_cfg_sig(c, "bad", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "5000",
                            "type", "int16", NULL);
    size_t good = io_cfg_sig(c, "good", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "10",
                             "type", "int16", NULL);
    io_drv d = {&rtc_modbus_client_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    seq_wait w = {c, good, 1};
    CU_ASSERT_TRUE(io_wait(all_written, &w, WAIT_MS));
    CU_ASSERT_TRUE(more_cycles(&d, 3));
    d.ops->stop(d.self);
    rtc_signal_health h[2];
    rtc_driver_stats st = io_drv_stats(&d, h, 2);
    CU_ASSERT_TRUE(io_counter(&st, "exceptions") >= 3);
    CU_ASSERT_TRUE(io_counter(&st, "exceptions") <= st.cycles);
    /* the link stays: a reconnect may only follow a timeout (a loaded machine), never an
     * exception */
    CU_ASSERT_TRUE(st.reconnects <= st.timeouts);
    if (st.timeouts == 0)
        CU_ASSERT_EQUAL(io_counter(&st, "exceptions"), st.cycles);
    CU_ASSERT_EQUAL(h[bad].quality, RTC_QUALITY_ERROR);
    CU_ASSERT_EQUAL(h[bad].errors, io_counter(&st, "exceptions"));
    /* only its batch: the good one is never flagged (stale at most, after a timeout) */
    CU_ASSERT_EQUAL(h[good].errors, 0);
    CU_ASSERT_NOT_EQUAL(h[good].quality, RTC_QUALITY_ERROR);
    if (st.timeouts == 0)
        CU_ASSERT_EQUAL(h[good].quality, RTC_QUALITY_FRESH);
    CU_ASSERT_EQUAL(io_cfg_get(c, good).value, 77.0);
    CU_ASSERT_EQUAL(io_cfg_get(c, bad).seq, 0); /* never a value: stays the default */
    d.ops->close(d.self);
    io_cfg_free(c);
    plain_srv_stop(&srv);
}

typedef struct health_wait {
    io_drv *d;
    size_t i;
    uint8_t quality;
    uint64_t min_reconnects;
} health_wait;

static bool health_is(void *arg)
{
    health_wait *w = arg;
    rtc_signal_health h[IO_CFG_MAX_SIGS];
    rtc_driver_stats st = io_drv_stats(w->d, h, IO_CFG_MAX_SIGS);
    return h[w->i].quality == w->quality && st.reconnects >= w->min_reconnects;
}

/* The device drops the connection: stale meanwhile, reconnected, fresh again. */
static void client_reconnects_after_peer_drop(void)
{
    plain_srv srv;
    CU_ASSERT_EQUAL_FATAL(plain_srv_start(&srv), 0);
    io_cfg *c = CFG;
    client_cfg(c, srv.port, "20");
    size_t in = io_cfg_sig(c, "in", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "0",
                           "type", "int16", NULL);
    io_drv d = {&rtc_modbus_client_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    health_wait hw = {&d, in, RTC_QUALITY_FRESH, 0};
    CU_ASSERT_TRUE(io_wait(health_is, &hw, WAIT_MS));
    /* (a loaded machine may have reconnected once already, after a timeout) */
    hw.min_reconnects = io_drv_stats(&d, NULL, 0).reconnects + 1;
    plain_srv_kick(&srv);
    CU_ASSERT_TRUE(io_wait(health_is, &hw, WAIT_MS));
    rtc_signal_health h[1];
    rtc_driver_stats st = io_drv_stats(&d, h, 1);
    /* the drop costs one reconnect; a loaded machine may add one per timeout */
    CU_ASSERT_TRUE(st.reconnects >= 1 && st.reconnects <= 1 + st.timeouts);
    CU_ASSERT_TRUE(h[0].stale_events >= 1); /* (a late cycle may add one by age) */
    CU_ASSERT_TRUE(io_log_has(&LOG, "link lost"));
    d.ops->close(d.self);
    io_cfg_free(c);
    plain_srv_stop(&srv);
}

typedef struct value_wait {
    io_cfg *c;
    size_t i;
    double want;
} value_wait;

static bool reads_value(void *arg)
{
    value_wait *w = arg;
    rtc_sample smp = io_cfg_get(w->c, w->i);
    return smp.value == w->want && smp.quality == RTC_QUALITY_FRESH;
}

typedef struct served_wait {
    plain_srv *srv;
    int more_than;
} served_wait;

static bool served_more(void *arg)
{
    served_wait *w = arg;
    return atomic_load(&w->srv->served) > w->more_than;
}

typedef struct requests_wait {
    io_drv *d;
    uint64_t min;
} requests_wait;

static bool requests_reached(void *arg)
{
    requests_wait *w = arg;
    return io_drv_stats(w->d, NULL, 0).requests >= w->min;
}

/* An answer that comes after the response timeout must not be paired with the next
 * request: libmodbus would then reject every later answer (transaction id one behind) and
 * the signal would freeze. The client resynchronises and reads the new value. */
static void client_recovers_from_late_answer(void)
{
    plain_srv srv;
    CU_ASSERT_EQUAL_FATAL(plain_srv_start(&srv), 0);
    io_cfg *c = CFG;
    client_cfg(c, srv.port, "10");
    size_t in = io_cfg_sig(c, "in", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "0",
                           "type", "int16", NULL);
    pthread_mutex_lock(&srv.mu);
    srv.map->tab_registers[0] = 7;
    pthread_mutex_unlock(&srv.mu);
    io_drv d = {&rtc_modbus_client_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    value_wait vw = {c, in, 7};
    CU_ASSERT_TRUE_FATAL(io_wait(reads_value, &vw, WAIT_MS));
    served_wait sw = {&srv, atomic_load(&srv.served)};
    atomic_store(&srv.delay_next_ms, 20); /* past the 9 ms response timeout, before the next */
    CU_ASSERT_TRUE(io_wait(served_more, &sw, WAIT_MS)); /* the late answer went out */
    pthread_mutex_lock(&srv.mu);
    srv.map->tab_registers[0] = 11;
    pthread_mutex_unlock(&srv.mu);
    vw.want = 11;
    CU_ASSERT_TRUE(io_wait(reads_value, &vw, WAIT_MS));
    rtc_signal_health h[1];
    rtc_driver_stats st = io_drv_stats(&d, h, 1);
    CU_ASSERT_TRUE(st.timeouts >= 1);
    /* back in step: later answers match their requests. The bug failed every other one
     * with a transaction id mismatch (an error); a loaded machine only adds timeouts. */
    requests_wait rq = {&d, st.requests + 5};
    CU_ASSERT_TRUE(io_wait(requests_reached, &rq, WAIT_MS));
    rtc_driver_stats st2 = io_drv_stats(&d, h, 1);
    CU_ASSERT_EQUAL(st2.errors, st.errors);
    d.ops->close(d.self);
    io_cfg_free(c);
    plain_srv_stop(&srv);
}

/* Safe values: written synchronously, latched, and again on the stop path. */
static void client_safe_values_latched_and_on_stop(void)
{
    plain_srv srv;
    CU_ASSERT_EQUAL_FATAL(plain_srv_start(&srv), 0);
    io_cfg *c = CFG;
    /* a safe write must not time out (900 ms) on a loaded machine: it would fail the call */
    client_cfg(c, srv.port, "1000");
    io_cfg_set(c, "heartbeat", "coil:3");
    size_t valve = io_cfg_sig(c, "valve", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "address", "20",
                              "type", "float32", "safe", "7.5", NULL);
    io_cfg_put(c, valve, 3.0);
    io_drv d = {&rtc_modbus_client_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    const uint16_t f3[2] = {0x4040, 0}, f4[2] = {0x4080, 0}, f75[2] = {0x40F0, 0};
    regs_wait rw = {&srv, 20, 2, f3};
    CU_ASSERT_TRUE(io_wait(srv_regs_equal, &rw, WAIT_MS));
    CU_ASSERT_EQUAL(d.ops->write_safe_values(d.self, WAIT_MS), RTC_OK);
    rw.want = f75;
    CU_ASSERT_TRUE(srv_regs_equal(&rw)); /* synchronous: done when the call returns */
    io_cfg_put(c, valve, 4.0);
    CU_ASSERT_TRUE(more_cycles(&d, 1));
    CU_ASSERT_TRUE(srv_regs_equal(&rw)); /* latched: the new sample is not written */
    d.ops->stop(d.self);
    CU_ASSERT_EQUAL(d.ops->start(d.self), RTC_OK); /* a new run releases the latch */
    rw.want = f4;
    CU_ASSERT_TRUE(io_wait(srv_regs_equal, &rw, WAIT_MS));
    d.ops->stop(d.self);
    rw.want = f75;
    CU_ASSERT_TRUE(srv_regs_equal(&rw)); /* stop path wrote the safe value */
    pthread_mutex_lock(&srv.mu);
    srv.map->tab_registers[20] = 0;
    pthread_mutex_unlock(&srv.mu);
    CU_ASSERT_EQUAL(d.ops->write_safe_values(d.self, WAIT_MS), RTC_OK); /* not running */
    CU_ASSERT_TRUE(srv_regs_equal(&rw));
    plain_srv_stop(&srv);
    io_log_reset(&LOG);
    CU_ASSERT_EQUAL(d.ops->write_safe_values(d.self, 500), RTC_EIO); /* nobody listening */
    CU_ASSERT_TRUE(io_log_has(&LOG, "safe values not written"));
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_EQUAL(st.safe_writes, 4); /* running, two stop paths, stopped */
    d.ops->close(d.self);
    io_cfg_free(c);
}

/* ---- configuration rejections: open fails, names the problem, returns no object ---- */

typedef struct bad_case {
    const char *ckey, *cval; /* component setting or NULL */
    const char *skey, *sval; /* extra signal setting or NULL */
    rtc_io_dir dir;
    bool second; /* add an overlapping second signal */
    const char *msg;
} bad_case;

static void open_rejects_bad_maps_with_message(void)
{
    static const bad_case bad[] = {
        {"timeout_ms", "20", NULL, NULL, RTC_IO_FROM_BENCH, false,
         "setting timeout_ms=20 must be below poll_ms=10"},
        {NULL, NULL, NULL, NULL, RTC_IO_FROM_BENCH, true, "holding 1 overlaps signal 'a'"},
        {NULL, NULL, "table", "input", RTC_IO_TO_BENCH, false,
         "table input is read-only: a to-bench signal needs coil or holding"},
        {NULL, NULL, "type", "double", RTC_IO_FROM_BENCH, false,
         "setting type=double: expected one of bool, int16"},
        {NULL, NULL, "word_order", "middle", RTC_IO_FROM_BENCH, false,
         "setting word_order=middle: expected one of big, little"},
        {NULL, NULL, "scale", "0", RTC_IO_FROM_BENCH, false, "scale must be non-zero"},
        {"transport", "rtu", NULL, NULL, RTC_IO_FROM_BENCH, false,
         "transport rtu needs setting device"},
        {"heartbeat", "input:4", NULL, NULL, RTC_IO_FROM_BENCH, false,
         "heartbeat=input:4: table must be coil or holding"},
        {"heartbeat", "holding:0", NULL, NULL, RTC_IO_FROM_BENCH, false,
         "heartbeat holding 0 overlaps signal 'a'"},
        {"poll_ms", "fast", NULL, NULL, RTC_IO_FROM_BENCH, false,
         "setting poll_ms=fast: not a number"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        io_cfg *c = CFG;
        io_cfg_init(c, "bad_io");
        io_cfg_set(c, "poll_ms", "10");
        if (bad[k].ckey)
            io_cfg_set(c, bad[k].ckey, bad[k].cval);
        if (bad[k].skey)
            io_cfg_sig(c, "a", bad[k].dir, RTC_TYPE_FLOAT64, "address", "0", "type", "float32",
                       bad[k].skey, bad[k].sval, NULL);
        else
            io_cfg_sig(c, "a", bad[k].dir, RTC_TYPE_FLOAT64, "address", "0", "type", "float32",
                       NULL);
        if (bad[k].second)
            io_cfg_sig(c, "b", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "1", NULL);
        io_expect_refused(&rtc_modbus_client_ops, &c->cfg, &LOG, "modbus-client 'bad_io'",
                          bad[k].msg);
        io_cfg_free(c);
    }
    /* server: a PLC-written signal cannot live in a read-only table */
    io_cfg *c = CFG;
    io_cfg_init(c, "bad_srv");
    io_cfg_sig(c, "sp", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "table", "input", "address", "0",
               NULL);
    io_log_reset(&LOG);
    void *self = NULL;
    CU_ASSERT_EQUAL(rtc_modbus_server_ops.open(&c->cfg, &LOG.lg, &self), RTC_EINVAL);
    CU_ASSERT_PTR_NULL(self);
    CU_ASSERT_TRUE(io_log_has(&LOG, "signal 'sp': table input is read-only: a from-bench"));
    io_cfg_free(c);
}

/* ---- RTU over a socat pty pair: client driver <-> server driver ---- */

static void rtu_over_pty_pair_roundtrips(void)
{
    io_child socat;
    char a[128], b[128], why[160];
    if (!io_pty_pair(&socat, a, b, sizeof a, why, sizeof why)) {
        rtc_test_skip("rtu_over_pty_pair_roundtrips", why);
        return;
    }
    io_cfg *srv_c = calloc(1, sizeof *srv_c);
    io_cfg *c = CFG;
    io_cfg_init(srv_c, "rtu_plant");
    io_cfg_set(srv_c, "transport", "rtu");
    io_cfg_set(srv_c, "device", a);
    io_cfg_set(srv_c, "baud", "115200");
    io_cfg_set(srv_c, "unit_id", "7");
    size_t speed = io_cfg_sig(srv_c, "speed", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "table",
                              "input", "address", "0", "type", "float32", NULL);
    size_t cmd = io_cfg_sig(srv_c, "cmd", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "10",
                            "type", "int16", NULL);
    io_cfg_put(srv_c, speed, 42.5);
    io_cfg_init(c, "rtu_master");
    io_cfg_set(c, "transport", "rtu");
    io_cfg_set(c, "device", b);
    io_cfg_set(c, "baud", "115200");
    io_cfg_set(c, "unit_id", "7");
    io_cfg_set(c, "poll_ms", "20");
    size_t cs = io_cfg_sig(c, "speed", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "table", "input",
                           "address", "0", "type", "float32", NULL);
    size_t cc = io_cfg_sig(c, "cmd", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "address", "10", "type",
                           "int16", NULL);
    io_cfg_put(c, cc, -7.0);
    io_drv s = {&rtc_modbus_server_ops, NULL}, d = {&rtc_modbus_client_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(s.ops->open(&srv_c->cfg, &LOG.lg, &s.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL(s.ops->start(s.self), RTC_OK);
    CU_ASSERT_EQUAL(d.ops->start(d.self), RTC_OK);
    seq_wait w1 = {c, cs, 1}, w2 = {srv_c, cmd, 1};
    CU_ASSERT_TRUE(io_wait(all_written, &w1, WAIT_MS));
    CU_ASSERT_TRUE(io_wait(all_written, &w2, WAIT_MS));
    CU_ASSERT_EQUAL(io_cfg_get(c, cs).value, 42.5);
    CU_ASSERT_EQUAL(io_cfg_get(srv_c, cmd).value, -7.0);
    d.ops->stop(d.self);
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    printf("\n    RTU 115200 Bd over pty: n=%llu p50=%lld ns max=%lld ns errors=%llu\n",
           (unsigned long long)st.latency.count, (long long)st.latency.p50,
           (long long)st.latency.max, (unsigned long long)(st.errors + st.timeouts));
    CU_ASSERT_TRUE(st.latency.count >= 1); /* the read that delivered the value (the write may
                                          have timed out on a loaded machine, yet landed) */
    d.ops->close(d.self);
    s.ops->close(s.self);
    io_cfg_free(c);
    io_cfg_free(srv_c);
    free(srv_c);
    io_child_kill(&socat, SIGTERM);
}

/* ---- a third-party client: Debian's mbpoll reads and writes the documented map ---- */

static void mbpoll_reads_and_writes_server_map(void)
{
    if (access("/usr/bin/mbpoll", X_OK) != 0) {
        rtc_test_skip("mbpoll_reads_and_writes_server_map",
                      "mbpoll not installed (scripts/setup installs it)");
        return;
    }
    io_cfg *c = CFG;
    io_cfg_init(c, "scada_link");
    io_cfg_set(c, "port", "0");
    size_t t = io_cfg_sig(c, "temp", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "address", "0", "type",
                          "int16", NULL);
    size_t f = io_cfg_sig(c, "flow", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "address", "2", "type",
                          "float32", NULL);
    size_t sp = io_cfg_sig(c, "setpoint", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "10",
                           "type", "int16", "scale", "0.5", NULL);
    io_cfg_put(c, t, -2.0);
    io_cfg_put(c, f, 1.5);
    io_drv d = {&rtc_modbus_server_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    sent_wait sw = {&d, 0, 2, 1};
    CU_ASSERT_TRUE(io_wait(all_sent, &sw, WAIT_MS));
    int port = io_drv_stats(&d, NULL, 0).port;
    char cmd[256], out[4096];
    /* mbpoll's references are 1-based: -r 1 is PDU address 0 */
    snprintf(cmd, sizeof cmd, "mbpoll -m tcp -a 1 -r 1 -c 1 -t 4 -1 -p %d 127.0.0.1", port);
    CU_ASSERT_EQUAL(rtc_test_run(cmd, out, sizeof out), 0);
    if (!strstr(out, "[1]: \t65534 (-2)"))
        printf("\n    mbpoll int16 output:\n%s", out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "[1]: \t65534 (-2)"));
    snprintf(cmd, sizeof cmd, "mbpoll -m tcp -a 1 -0 -r 2 -c 1 -t 4:float -B -1 -p %d 127.0.0.1",
             port);
    CU_ASSERT_EQUAL(rtc_test_run(cmd, out, sizeof out), 0);
    if (!strstr(out, "[2]: \t1.5"))
        printf("\n    mbpoll float output:\n%s", out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "[2]: \t1.5"));
    snprintf(cmd, sizeof cmd, "mbpoll -m tcp -a 1 -0 -r 10 -t 4 -p %d 127.0.0.1 65236", port);
    if (rtc_test_run(cmd, out, sizeof out) != 0)
        printf("\n    mbpoll write output:\n%s", out);
    seq_wait w = {c, sp, 1};
    CU_ASSERT_TRUE(io_wait(all_written, &w, WAIT_MS));
    CU_ASSERT_EQUAL(io_cfg_get(c, sp).value, -150.0); /* 65236 = int16 -300, x scale 0.5 */
    /* writing an engine output is refused */
    snprintf(cmd, sizeof cmd, "mbpoll -m tcp -a 1 -0 -r 0 -t 4 -p %d 127.0.0.1 -- 5", port);
    CU_ASSERT_NOT_EQUAL(rtc_test_run(cmd, out, sizeof out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Illegal data address"));
    CU_ASSERT_EQUAL(io_drv_stats(&d, NULL, 0).rejected, 1);
    d.ops->close(d.self);
    io_cfg_free(c);
}

static void register_all_finds_drivers(void)
{
    CU_ASSERT_EQUAL(rtc_iodrivers_register(), RTC_OK);
    CU_ASSERT_PTR_EQUAL(rtc_driver_find(RTC_DRIVER_TYPE_MODBUS_CLIENT), &rtc_modbus_client_ops);
    CU_ASSERT_PTR_EQUAL(rtc_driver_find(RTC_DRIVER_TYPE_MODBUS_SERVER), &rtc_modbus_server_ops);
    CU_ASSERT_PTR_EQUAL(rtc_driver_find(RTC_DRIVER_TYPE_OSC), &rtc_osc_ops);
    /* the types a program makes I/O units for, without naming them */
    const char *types[RTC_DRIVER_MAX_TYPES];
    size_t n = rtc_driver_types(types, RTC_DRIVER_MAX_TYPES);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    CU_ASSERT_STRING_EQUAL(types[0], RTC_DRIVER_TYPE_MODBUS_CLIENT);
    CU_ASSERT_STRING_EQUAL(types[1], RTC_DRIVER_TYPE_MODBUS_SERVER);
    CU_ASSERT_STRING_EQUAL(types[2], RTC_DRIVER_TYPE_OSC);
    CU_ASSERT_STRING_EQUAL(types[3], RTC_DRIVER_TYPE_UDP_FRAME);
    CU_ASSERT_EQUAL(rtc_driver_types(NULL, 0), 4);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"server_outputs_encode_every_type", server_outputs_encode_every_type},
        {"client_roundtrips_every_type", client_roundtrips_every_type},
        {"client_batches_contiguous_and_counts_heartbeat",
         client_batches_contiguous_and_counts_heartbeat},
        {"client_on_change_writes_only_new_samples", client_on_change_writes_only_new_samples},
        {"client_exception_counted_not_fatal", client_exception_counted_not_fatal},
        {"client_reconnects_after_peer_drop", client_reconnects_after_peer_drop},
        {"client_recovers_from_late_answer", client_recovers_from_late_answer},
        {"client_safe_values_latched_and_on_stop", client_safe_values_latched_and_on_stop},
        {"open_rejects_bad_maps_with_message", open_rejects_bad_maps_with_message},
        {"rtu_over_pty_pair_roundtrips", rtu_over_pty_pair_roundtrips},
        {"mbpoll_reads_and_writes_server_map", mbpoll_reads_and_writes_server_map},
        {"register_all_finds_drivers", register_all_finds_drivers},
        {NULL, NULL},
    };
    rtc_test_add_suite("io_modbus", suite_init, suite_clean, cases);
}
