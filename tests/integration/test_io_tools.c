/*
 * Bench tools with the Modbus client driver: rtcosim-bench-sim (a DC-motor bench as a
 * child process on an ephemeral port) reaches the analytic steady-state speed; killed and
 * restarted mid-run, the driver flags the signal stale, reconnects and counts it;
 * rtcosim-fault-proxy adds at least its configured delay (lower bounds only: the machine
 * is noisy) and its disconnects make the driver reconnect; UDP loss and reordering.
 */
#include "cu_main.h"
#include "io_cfg.h"
#include "io_util.h"

#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <arpa/inet.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

IO_CFG_FIXTURE

/* Start a tool and return the port it printed ("...: listening on 127.0.0.1:PORT"). */
static int spawn_tool(io_child *c, char **argv)
{
    char line[256];
    if (io_child_spawn(c, argv, false) != 0)
        return -1;
    if (!io_child_line(c, argv[0][0] == '/' ? "rtcosim-" : "", line, sizeof line, 5000)) {
        io_child_kill(c, SIGKILL);
        return -1;
    }
    const char *colon = strrchr(line, ':');
    return colon ? atoi(colon + 1) : -1;
}

static int spawn_bench(io_child *c, const char *port)
{
    char *argv[] = {RTC_BENCH_SIM_EXE, "--port", (char *)port, "--rate", "1000", NULL};
    return spawn_tool(c, argv);
}

/* Client driver on the bench's map: voltage out, speed/position/time in. */
static void bench_client(io_cfg *c, int port, const char *poll_ms, const char *timeout_ms)
{
    char p[16];
    snprintf(p, sizeof p, "%d", port);
    io_cfg_init(c, "motor_bench");
    io_cfg_set(c, "port", p);
    io_cfg_set(c, "poll_ms", poll_ms);
    io_cfg_set(c, "timeout_ms", timeout_ms);
    io_cfg_set(c, "stale_ms", "100");
    io_cfg_set(c, "reconnect_min_ms", "20");
    io_cfg_set(c, "reconnect_max_ms", "200");
    io_cfg_sig(c, "voltage", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "address", "0", "type",
               "float32", "safe", "0", NULL);
    io_cfg_sig(c, "speed", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "table", "input", "address", "0",
               "type", "float32", NULL);
    io_cfg_sig(c, "position", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "table", "input", "address",
               "2", "type", "float32", NULL);
    io_cfg_sig(c, "bench_time", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, "table", "input",
               "address", "6", "type", "float32", NULL);
    io_cfg_put(c, 0, 12.0);
}

enum { SIG_V = 0, SIG_SPEED = 1, SIG_POS = 2, SIG_TIME = 3 };

typedef struct cond {
    io_drv *d;
    io_cfg *c;
    uint8_t quality;
    uint64_t reconnects;
    double bench_time;
} cond;

static bool speed_quality_is(void *arg)
{
    cond *w = arg;
    rtc_signal_health h[4];
    rtc_driver_stats st = io_drv_stats(w->d, h, 4);
    return h[SIG_SPEED].quality == w->quality && st.reconnects >= w->reconnects &&
           io_cfg_get(w->c, SIG_TIME).value >= w->bench_time;
}

static void print_latency(const char *what, const rtc_driver_stats *st)
{
    printf("\n    %s: n=%llu min=%lld p50=%lld p99=%lld max=%lld ns\n", what,
           (unsigned long long)st->latency.count, (long long)st->latency.min,
           (long long)st->latency.p50,
           (long long)st->latency.p99, (long long)st->latency.max);
}

static void bench_sim_motor_reaches_steady_speed(void)
{
    io_child sim;
    int port = spawn_bench(&sim, "0");
    CU_ASSERT_TRUE_FATAL(port > 0);
    io_cfg *c = CFG;
    bench_client(c, port, "10", "9");
    io_drv d = {&rtc_modbus_client_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    /* 1 s of bench time = 12 mechanical time constants (J R / (Kt Ke) = 80 ms) */
    cond w = {&d, c, RTC_QUALITY_FRESH, 0, 1.0};
    CU_ASSERT_TRUE(io_wait(speed_quality_is, &w, 5000));
    /* steady state: w = Kt V / (R b + Kt Ke) = 0.05 * 12 / (2e-5 + 0.0025) */
    double w_ss = 0.05 * 12.0 / (2.0 * 1e-5 + 0.05 * 0.05);
    double speed = io_cfg_get(c, SIG_SPEED).value;
    CU_ASSERT_DOUBLE_EQUAL(speed, w_ss, 1e-3 * w_ss); /* exp(-12) residue, float32 */
    CU_ASSERT_TRUE(io_cfg_get(c, SIG_POS).value > 0.5 * w_ss * 0.5);
    d.ops->stop(d.self);
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    print_latency("client request latency, loopback bench-sim", &st);
    /* No protocol error on loopback. A response timeout (9 ms) is the loaded machine's, not
     * the path's: each one only costs a reconnect (the late-answer resync is tested in
     * io_modbus), so timeouts are reported, not asserted. */
    CU_ASSERT_EQUAL(st.errors, 0);
    printf("    timeouts under this machine's load: %llu\n", (unsigned long long)st.timeouts);
    d.ops->close(d.self);
    io_cfg_free(c);
    CU_ASSERT_EQUAL(io_child_kill(&sim, SIGTERM), 0); /* clean exit on SIGTERM */
}

static void bench_sim_restart_stale_then_reconnect(void)
{
    io_child sim;
    int port = spawn_bench(&sim, "0");
    CU_ASSERT_TRUE_FATAL(port > 0);
    io_cfg *c = CFG;
    bench_client(c, port, "10", "9");
    io_drv d = {&rtc_modbus_client_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    cond w = {&d, c, RTC_QUALITY_FRESH, 0, 0.2};
    CU_ASSERT_TRUE(io_wait(speed_quality_is, &w, 5000));
    CU_ASSERT_TRUE(io_wait_link(&d, RTC_LINK_UP, 5000)); /* connected and measured */
    io_child_kill(&sim, SIGKILL); /* the bench dies mid-run */
    w = (cond){&d, c, RTC_QUALITY_STALE, 0, 0.0};
    CU_ASSERT_TRUE(io_wait(speed_quality_is, &w, 3000));
    rtc_sample last = io_cfg_get(c, SIG_SPEED);
    CU_ASSERT_EQUAL(last.quality, RTC_QUALITY_STALE);
    CU_ASSERT_TRUE(last.value > 0); /* the last good value stays readable */
    io_sleep_ms(150); /* several failed reconnects while the bench is down */
    CU_ASSERT_EQUAL(io_cfg_get(c, SIG_SPEED).seq, last.seq);
    CU_ASSERT_FALSE(io_drv_stats(&d, NULL, 0).connected);
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    CU_ASSERT_EQUAL_FATAL(spawn_bench(&sim, ps), port); /* same port, like a rebooted bench */
    w = (cond){&d, c, RTC_QUALITY_FRESH, 1, 0.0};
    CU_ASSERT_TRUE(io_wait(speed_quality_is, &w, 5000));
    rtc_signal_health h[4];
    rtc_driver_stats st = io_drv_stats(&d, h, 4);
    /* one reconnect for the restart, plus at most one per response timeout under load */
    CU_ASSERT_TRUE(st.reconnects >= 1 && st.reconnects <= 1 + st.timeouts);
    CU_ASSERT_TRUE(h[SIG_SPEED].stale_events >= 1);
    CU_ASSERT_TRUE(io_cfg_get(c, SIG_SPEED).seq > last.seq);
    d.ops->close(d.self);
    io_cfg_free(c);
    io_child_kill(&sim, SIGTERM);
}

static void fault_proxy_delays_and_disconnects(void)
{
    io_child sim, px;
    int port = spawn_bench(&sim, "0");
    CU_ASSERT_TRUE_FATAL(port > 0);
    char target[64];
    snprintf(target, sizeof target, "127.0.0.1:%d", port);
    char *argv[] = {RTC_FAULT_PROXY_EXE, "--tcp", "--target", target, "--delay-ms", "5",
                    "--jitter-ms", "1", NULL};
    int pport = spawn_tool(&px, argv);
    CU_ASSERT_TRUE_FATAL(pport > 0);
    io_cfg *c = CFG;
    bench_client(c, pport, "30", "25");
    io_drv d = {&rtc_modbus_client_ops, NULL};
    CU_ASSERT_EQUAL_FATAL(d.ops->open(&c->cfg, &LOG.lg, &d.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(d.ops->start(d.self), RTC_OK);
    cond w = {&d, c, RTC_QUALITY_FRESH, 0, 0.3};
    CU_ASSERT_TRUE(io_wait(speed_quality_is, &w, 5000));
    CU_ASSERT_TRUE(io_wait_link(&d, RTC_LINK_UP, 5000)); /* connected and measured */
    rtc_driver_stats st = io_drv_stats(&d, NULL, 0);
    /* request and response each wait >= 5 ms in the proxy: round trip >= 10 ms */
    CU_ASSERT_TRUE(st.latency.count >= 5);
    CU_ASSERT_TRUE(st.latency.min >= 10000000);
    print_latency("client request latency through fault proxy (5 ms +- 1 ms each way)", &st);
    kill(px.pid, SIGUSR1); /* drop the connection now */
    w = (cond){&d, c, RTC_QUALITY_FRESH, 1, 0.0};
    CU_ASSERT_TRUE(io_wait(speed_quality_is, &w, 5000));
    st = io_drv_stats(&d, NULL, 0);
    /* the dropped connection, plus at most one per response timeout under load */
    CU_ASSERT_TRUE(st.reconnects >= 1 && st.reconnects <= 1 + st.timeouts);
    CU_ASSERT_EQUAL(st.connects, st.reconnects + 1);
    d.ops->close(d.self);
    io_cfg_free(c);
    CU_ASSERT_EQUAL(io_child_kill(&px, SIGTERM), 0);
    io_child_kill(&sim, SIGTERM);
}

/* ---- UDP: delay lower bound, loss, reordering ---- */

static int udp_socket(int *port)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    socklen_t sl = sizeof sa;
    bind(fd, (struct sockaddr *)&sa, sizeof sa);
    getsockname(fd, (struct sockaddr *)&sa, &sl);
    *port = ntohs(sa.sin_port);
    return fd;
}

static void udp_send(int fd, int port, int value)
{
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    sendto(fd, &value, sizeof value, 0, (struct sockaddr *)&to, sizeof to);
}

/* Receive ints until timeout_ms of silence; returns the count. */
static int udp_collect(int fd, int *out, int cap, int timeout_ms)
{
    int n = 0;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (n < cap && poll(&p, 1, timeout_ms) > 0) {
        int v;
        if (recv(fd, &v, sizeof v, 0) == (ssize_t)sizeof v)
            out[n++] = v;
    }
    return n;
}

static int spawn_udp_proxy(io_child *px, int target_port, const char *loss, const char *reorder)
{
    char target[64];
    snprintf(target, sizeof target, "127.0.0.1:%d", target_port);
    char *argv[] = {RTC_FAULT_PROXY_EXE, "--udp", "--target", target, "--delay-ms", "5",
                    "--loss", (char *)loss, "--reorder", (char *)reorder, "--seed", "7", NULL};
    return spawn_tool(px, argv);
}

static void fault_proxy_udp_delay_loss_reorder(void)
{
    int tport, sport;
    int target = udp_socket(&tport), sender = udp_socket(&sport);
    io_child px;
    int pport = spawn_udp_proxy(&px, tport, "0", "0");
    CU_ASSERT_TRUE_FATAL(pport > 0);
    int64_t t0 = rtc_time_now_ns();
    udp_send(sender, pport, 1);
    int got[64];
    CU_ASSERT_EQUAL(udp_collect(target, got, 1, 2000), 1);
    CU_ASSERT_TRUE(rtc_time_now_ns() - t0 >= 5000000); /* lower bound only */
    CU_ASSERT_EQUAL(got[0], 1);
    io_child_kill(&px, SIGTERM);

    pport = spawn_udp_proxy(&px, tport, "1", "0"); /* lose everything */
    CU_ASSERT_TRUE_FATAL(pport > 0);
    for (int k = 0; k < 10; k++)
        udp_send(sender, pport, k);
    CU_ASSERT_EQUAL(udp_collect(target, got, 64, 200), 0);
    io_child_kill(&px, SIGTERM);

    pport = spawn_udp_proxy(&px, tport, "0", "0.5");
    CU_ASSERT_TRUE_FATAL(pport > 0);
    for (int k = 0; k < 20; k++) {
        udp_send(sender, pport, k);
        io_sleep_ms(1);
    }
    int n = udp_collect(target, got, 64, 300);
    CU_ASSERT_EQUAL(n, 20); /* reordered, none lost */
    int inversions = 0;
    for (int k = 1; k < n; k++)
        inversions += got[k] < got[k - 1];
    CU_ASSERT_TRUE(inversions >= 1);
    io_child_kill(&px, SIGTERM);
    close(target);
    close(sender);
}

static void tools_print_help_and_reject_bad_options(void)
{
    char out[8192], cmd[512];
    snprintf(cmd, sizeof cmd, "%s --help", RTC_BENCH_SIM_EXE);
    CU_ASSERT_EQUAL(rtc_test_run(cmd, out, sizeof out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "holding 0-1      voltage command [V] float32"));
    snprintf(cmd, sizeof cmd, "%s --register-map bcd", RTC_BENCH_SIM_EXE);
    CU_ASSERT_EQUAL(rtc_test_run(cmd, out, sizeof out), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--register-map must be float32 or int16"));
    snprintf(cmd, sizeof cmd, "%s --udp", RTC_FAULT_PROXY_EXE);
    CU_ASSERT_EQUAL(rtc_test_run(cmd, out, sizeof out), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "bad or missing option"));
    snprintf(cmd, sizeof cmd, "%s --port 0 --duration 0.2", RTC_BENCH_SIM_EXE);
    CU_ASSERT_EQUAL(rtc_test_run(cmd, out, sizeof out), 0); /* --duration ends it */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "stopped after"));
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"bench_sim_motor_reaches_steady_speed", bench_sim_motor_reaches_steady_speed},
        {"bench_sim_restart_stale_then_reconnect", bench_sim_restart_stale_then_reconnect},
        {"fault_proxy_delays_and_disconnects", fault_proxy_delays_and_disconnects},
        {"fault_proxy_udp_delay_loss_reorder", fault_proxy_udp_delay_loss_reorder},
        {"tools_print_help_and_reject_bad_options", tools_print_help_and_reject_bad_options},
        {NULL, NULL},
    };
    rtc_test_add_suite("io_tools", suite_init, suite_clean, cases);
}
