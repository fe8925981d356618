/*
 * Modbus client driver tests against a plain libmodbus server (a thread of this process)
 * on 127.0.0.1 with an ephemeral port: every type both ways, request batching and the
 * heartbeat, write_mode=on_change, exception responses, reconnects, late answers and safe
 * values. Expected register contents are written out by hand (the codec cases of
 * io_cfg.h), not computed with the driver's codec.
 */
#include "cu_main.h"
#include "io_cfg.h"
#include "io_util.h"

#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* Every wait is for an event, bounded generously: the suite runs under TSan on a loaded
 * 2-core machine. Tests that count requests per cycle poll slowly, so that a response
 * timeout (a wall-clock window the client driver needs) is far above any scheduling delay;
 * none asserts a speed. */
#define WAIT_MS 30000

IO_CFG_FIXTURE

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
    io_cfg_seq_wait w = {c, 0, N_CASES};
    CU_ASSERT_TRUE(io_wait(io_cfg_all_written, &w, WAIT_MS));
    io_cfg_seq_wait wb = {c, ci, 3};
    CU_ASSERT_TRUE(io_wait(io_cfg_all_written, &wb, WAIT_MS));
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
    /* (each connection first measures its round trip: PROBES reads of the read batch) */
    int probes = RTC_MODBUS_CLIENT_PROBES * (int)st.connects;
    CU_ASSERT_TRUE(reads <= (int)st.cycles + probes && writes <= (int)st.cycles);
    CU_ASSERT_TRUE(beats <= (int)st.cycles);
    if (st.timeouts + st.errors == 0) /* a calm run: exactly three per cycle */
        CU_ASSERT_EQUAL(st.requests, 3 * st.cycles + (uint64_t)probes);
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
    /* one read per cycle + two writes (+ the probes of each connection); a timed-out
     * write is retried (one more request) */
    uint64_t base = st.cycles + 2 + RTC_MODBUS_CLIENT_PROBES * st.connects;
    CU_ASSERT_TRUE(st.requests >= base && st.requests <= base + st.timeouts);
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
    io_cfg_seq_wait w = {c, good, 1};
    CU_ASSERT_TRUE(io_wait(io_cfg_all_written, &w, WAIT_MS));
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
    CU_ASSERT_TRUE(io_wait_link(&d, RTC_LINK_UP, WAIT_MS)); /* (the probes are over) */
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

/* A client polling register 0 (7 there) of @p srv every 10 ms (response timeout 9 ms),
 * with component key @p key = @p value (NULL: none), up and reading; then the next answer
 * goes out @p late_ms late, the register becomes 11, and the client reads 11. */
static void late_answer_then_11(plain_srv *srv, io_drv *d, const char *key,
                                const char *value, int late_ms)
{
    CU_ASSERT_EQUAL_FATAL(plain_srv_start(srv), 0);
    io_cfg *c = CFG;
    client_cfg(c, srv->port, "10");
    if (key)
        io_cfg_set(c, key, value);
    size_t in = io_cfg_sig(c, "in", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "0",
                           "type", "int16", NULL);
    pthread_mutex_lock(&srv->mu);
    srv->map->tab_registers[0] = 7;
    pthread_mutex_unlock(&srv->mu);
    *d = (io_drv){&rtc_modbus_client_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d->ops->open(&c->cfg, &LOG.lg, &d->self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d->ops->start(d->self), RTC_OK);
    value_wait vw = {c, in, 7};
    CU_ASSERT_TRUE_FATAL(io_wait(reads_value, &vw, WAIT_MS));
    /* up: the round-trip probes (which read the value too) are over */
    CU_ASSERT_TRUE_FATAL(io_wait_link(d, RTC_LINK_UP, WAIT_MS));
    served_wait sw = {srv, atomic_load(&srv->served)};
    atomic_store(&srv->delay_next_ms, late_ms);
    CU_ASSERT_TRUE(io_wait(served_more, &sw, WAIT_MS)); /* the late answer went out */
    pthread_mutex_lock(&srv->mu);
    srv->map->tab_registers[0] = 11;
    pthread_mutex_unlock(&srv->mu);
    vw.want = 11;
    CU_ASSERT_TRUE(io_wait(reads_value, &vw, WAIT_MS));
}

/* An answer that comes after the response timeout must not be paired with the next
 * request: libmodbus would then reject every later answer (transaction id one behind) and
 * the signal would freeze. The client resynchronises and reads the new value. */
static void client_recovers_from_late_answer(void)
{
    plain_srv srv;
    io_drv d;
    late_answer_then_11(&srv, &d, NULL, NULL, 20); /* past the 9 ms timeout */
    io_cfg *c = CFG;
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

/* ---- the link contract ---- */

/* A late answer (after the response timeout, within the loss time) costs a timeout, not
 * the link: the client waits for it and takes it as a (late) sample, and the next request
 * pairs with its own answer. (Before, every TCP timeout closed and re-made the connection:
 * a busy machine made the link flap.) */
static void client_late_answer_keeps_the_link(void)
{
    plain_srv srv;
    io_drv d;
    late_answer_then_11(&srv, &d, "loss_ms", "2000", 30); /* past 9 ms, within the loss */
    io_cfg *c = CFG;
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_TRUE(st.timeouts >= 1);
    CU_ASSERT_EQUAL(st.reconnects, 0);
    CU_ASSERT_EQUAL(st.connects, 1);
    /* the late answer was taken as a sample: its round trip (>= 30 ms) is measured */
    CU_ASSERT_TRUE(st.latency.max >= 30000000);
    CU_ASSERT_EQUAL(st.errors, 0);
    CU_ASSERT_EQUAL(st.contract.outages, 0);
    CU_ASSERT_EQUAL(atomic_load(&srv.accepted), 1);
    d.ops->close(d.self);
    io_cfg_free(c);
    plain_srv_stop(&srv);
}

/* Each connection measures its round trip first (PROBES reads of the read batch), and
 * the request timeout and loss time follow from it and the period (driver_base.h). */
static void client_measures_round_trip_and_derives_timeouts(void)
{
    plain_srv srv;
    CU_ASSERT_EQUAL_FATAL(plain_srv_start(&srv), 0);
    io_cfg *c = CFG;
    io_cfg_init(c, "measured");
    io_cfg_set_int(c, "port", srv.port);
    io_cfg_set(c, "poll_ms", "20"); /* no timeout_ms, loss_ms, stale_ms: all derived */
    io_cfg_sig(c, "in", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "4", "type", "int16",
               NULL);
    io_drv d = {&rtc_modbus_client_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    rtc_link_info ci = io_drv_stats(&d, NULL, 0).contract;
    CU_ASSERT_EQUAL(ci.timeout_ns, 10000000); /* before a measurement: half the period */
    CU_ASSERT_EQUAL(ci.loss_ns, 60000000);    /* three periods */
    CU_ASSERT_FALSE(ci.derived);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    CU_ASSERT_TRUE(io_wait_link(&d, RTC_LINK_UP, WAIT_MS));
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    ci = st.contract;
    int64_t per = 20000000, rtt = ci.rtt_ns;
    int64_t t = 2 * rtt > per / 2 ? 2 * rtt : per / 2;
    CU_ASSERT_TRUE(rtt > 0 && ci.derived);
    CU_ASSERT_EQUAL(ci.timeout_ns, t < per ? t : per);
    CU_ASSERT_EQUAL(ci.loss_ns, 3 * rtt > 3 * per ? 3 * rtt : 3 * per);
    CU_ASSERT_TRUE(st.latency.count >= RTC_MODBUS_CLIENT_PROBES);
    CU_ASSERT_EQUAL(st.latency.max >= rtt, true); /* the slowest probe is the measurement */
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", srv.port);
    CU_ASSERT_STRING_EQUAL(ci.address, addr);
    /* the device saw the probes first: reads of the batch, nothing else */
    pthread_mutex_lock(&srv.mu);
    int probes = 0;
    for (int k = 0; k < srv.n_log && k < RTC_MODBUS_CLIENT_PROBES; k++)
        probes += srv.log[k].fc == 3 && srv.log[k].addr == 4 && srv.log[k].arg == 1;
    pthread_mutex_unlock(&srv.mu);
    CU_ASSERT_EQUAL(probes, RTC_MODBUS_CLIENT_PROBES);
    d.ops->close(d.self);
    io_cfg_free(c);
    plain_srv_stop(&srv);
}

/* Opened with hold (the engine before the run's first tick): the client reads but writes
 * nothing until rtc_link_release(). */
static void client_holds_writes_until_released(void)
{
    plain_srv srv;
    CU_ASSERT_EQUAL_FATAL(plain_srv_start(&srv), 0);
    io_cfg *c = CFG;
    client_cfg(c, srv.port, "20");
    size_t in = io_cfg_sig(c, "in", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "0",
                           "type", "int16", NULL);
    size_t out = io_cfg_sig(c, "out", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "address", "10",
                            "type", "int16", NULL);
    c->cfg.hold = true;
    io_cfg_put(c, out, 5);
    pthread_mutex_lock(&srv.mu);
    srv.map->tab_registers[0] = 3;
    pthread_mutex_unlock(&srv.mu);
    io_drv d = {&rtc_modbus_client_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    value_wait vw = {c, in, 3};
    CU_ASSERT_TRUE(io_wait(reads_value, &vw, WAIT_MS));
    CU_ASSERT_TRUE(more_cycles(&d, 3));
    pthread_mutex_lock(&srv.mu);
    int writes = 0;
    for (int k = 0; k < srv.n_log; k++)
        writes += srv.log[k].fc == 6 || srv.log[k].fc == 16;
    uint16_t held = srv.map->tab_registers[10];
    pthread_mutex_unlock(&srv.mu);
    CU_ASSERT_EQUAL(writes, 0);
    CU_ASSERT_EQUAL(held, 0);
    rtc_link_release(d.ops->link(d.self));
    uint16_t want5[1] = {5};
    regs_wait rw = {&srv, 10, 1, want5};
    CU_ASSERT_TRUE(io_wait(srv_regs_equal, &rw, WAIT_MS));
    d.ops->close(d.self);
    io_cfg_free(c);
    plain_srv_stop(&srv);
}

static bool has_error(void *arg)
{
    return io_drv_stats(arg, NULL, 0).contract.error != NULL;
}

/* Nothing listens: the link stays connecting, its error says why, and the connect check
 * refuses the run once connect_ms has passed. */
static void client_never_up_says_why(void)
{
    int port = io_free_port(SOCK_STREAM);
    CU_ASSERT_FATAL(port > 0);
    io_cfg *c = CFG;
    client_cfg(c, port, "20");
    io_cfg_set(c, "connect_ms", "100");
    io_cfg_sig(c, "in", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "address", "0", NULL);
    io_drv d = {&rtc_modbus_client_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    CU_ASSERT_TRUE(io_wait(has_error, &d, WAIT_MS));
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    CU_ASSERT_STRING_EQUAL(st.contract.error, "Connection refused");
    CU_ASSERT_EQUAL(st.link, RTC_LINK_CONNECTING);
    CU_ASSERT_EQUAL(st.contract.first_up_ns, 0);
    const rtc_link *l = d.ops->link(d.self);
    CU_ASSERT_EQUAL(rtc_link_connect_check(l, st.contract.start_ns + 99000000),
                    RTC_LINK_CONNECT_WAIT);
    CU_ASSERT_EQUAL(rtc_link_connect_check(l, st.contract.start_ns + 100000000),
                    RTC_LINK_CONNECT_FAILED);
    d.ops->close(d.self);
    io_cfg_free(c);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"client_roundtrips_every_type", client_roundtrips_every_type},
        {"client_batches_contiguous_and_counts_heartbeat",
         client_batches_contiguous_and_counts_heartbeat},
        {"client_on_change_writes_only_new_samples", client_on_change_writes_only_new_samples},
        {"client_exception_counted_not_fatal", client_exception_counted_not_fatal},
        {"client_reconnects_after_peer_drop", client_reconnects_after_peer_drop},
        {"client_recovers_from_late_answer", client_recovers_from_late_answer},
        {"client_safe_values_latched_and_on_stop", client_safe_values_latched_and_on_stop},
        {"client_late_answer_keeps_the_link", client_late_answer_keeps_the_link},
        {"client_measures_round_trip_and_derives_timeouts",
         client_measures_round_trip_and_derives_timeouts},
        {"client_holds_writes_until_released", client_holds_writes_until_released},
        {"client_never_up_says_why", client_never_up_says_why},
        {NULL, NULL},
    };
    rtc_test_add_suite("io_modbus_client", suite_init, suite_clean, cases);
}
