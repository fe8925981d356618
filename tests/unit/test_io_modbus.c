/*
 * Modbus driver tests against real libmodbus peers on 127.0.0.1 with ephemeral ports:
 * the server driver polled by a plain libmodbus client, configuration rejections, RTU over
 * a socat pty pair, and Debian's mbpoll as a third-party client (the client driver polling
 * a plain libmodbus server: test_io_modbus_client.c). Expected register contents are
 * written out by hand (IEEE-754 and two's complement bit patterns, io_cfg.h), not computed
 * with the driver's codec.
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

IO_CFG_FIXTURE

/* ---- predicates for io_wait ---- */
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
    io_cfg_seq_wait w = {c, N_CASES, N_CASES};
    CU_ASSERT_TRUE(io_wait(io_cfg_all_written, &w, WAIT_MS));
    int64_t t_after = rtc_time_now_ns();
    for (size_t k = 0; k < N_CASES; k++) {
        rtc_sample s = io_cfg_get(c, N_CASES + k);
        CU_ASSERT_DOUBLE_EQUAL(s.value, CASES[k].value, 1e-9 * (1 + fabs(CASES[k].value)));
        CU_ASSERT_EQUAL(s.seq, 1);
        CU_ASSERT_EQUAL(s.quality, RTC_QUALITY_FRESH);
        CU_ASSERT_TRUE(s.sample_ns >= t_before && s.sample_ns <= t_after);
        CU_ASSERT_TRUE(s.arrival_ns >= s.sample_ns);
    }
    io_cfg_seq_wait wc = {c, cin, 1};
    CU_ASSERT_TRUE(io_wait(io_cfg_all_written, &wc, WAIT_MS));
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
    io_cfg_seq_wait w1 = {c, cs, 1}, w2 = {srv_c, cmd, 1};
    CU_ASSERT_TRUE(io_wait(io_cfg_all_written, &w1, WAIT_MS));
    CU_ASSERT_TRUE(io_wait(io_cfg_all_written, &w2, WAIT_MS));
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
    io_cfg_seq_wait w = {c, sp, 1};
    CU_ASSERT_TRUE(io_wait(io_cfg_all_written, &w, WAIT_MS));
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
    CU_ASSERT_EQUAL_FATAL(n, 6);
    CU_ASSERT_STRING_EQUAL(types[0], RTC_DRIVER_TYPE_MODBUS_CLIENT);
    CU_ASSERT_STRING_EQUAL(types[1], RTC_DRIVER_TYPE_MODBUS_SERVER);
    CU_ASSERT_STRING_EQUAL(types[2], RTC_DRIVER_TYPE_OSC);
    CU_ASSERT_STRING_EQUAL(types[3], RTC_DRIVER_TYPE_UDP_FRAME);
    CU_ASSERT_STRING_EQUAL(types[4], RTC_DRIVER_TYPE_NODE_BRIDGE);
    CU_ASSERT_STRING_EQUAL(types[5], RTC_DRIVER_TYPE_DCP_SLAVE);
    CU_ASSERT_PTR_EQUAL(rtc_driver_find(RTC_DRIVER_TYPE_DCP_SLAVE), &rtc_dcp_master_ops);
    CU_ASSERT_EQUAL(rtc_driver_types(NULL, 0), 6);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"server_outputs_encode_every_type", server_outputs_encode_every_type},
        {"open_rejects_bad_maps_with_message", open_rejects_bad_maps_with_message},
        {"rtu_over_pty_pair_roundtrips", rtu_over_pty_pair_roundtrips},
        {"mbpoll_reads_and_writes_server_map", mbpoll_reads_and_writes_server_map},
        {"register_all_finds_drivers", register_all_finds_drivers},
        {NULL, NULL},
    };
    rtc_test_add_suite("io_modbus", suite_init, suite_clean, cases);
}
