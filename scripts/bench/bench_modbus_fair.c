/*
 * bench_modbus_fair — does a hostile peer cost a PLC anything (issue 10, bullet 6)?
 *
 * A table, not a test: the real Modbus server driver runs in this process on an ephemeral
 * 127.0.0.1 port; a real libmodbus client (the PLC) reads one holding register N times,
 * one read per period (a PLC scan; 1 ms: a phase spans several frame timeouts, so the
 * attackers' close-and-reconnect cycle is part of it), first on a quiet server, then
 * while three slowloris peers each send part of a frame and then nothing (reconnecting
 * whenever the server closes them) and eight idle sockets are open. Request latency p50/p99/max of both phases from the same run, with the difference
 * and the ratio (target: p99 within 2 ms of quiet). Then the lock-out case: at max_clients
 * 8, eight idle sockets connect first; how long until a new PLC is served. Then admission
 * (issue 19): eight PLCs polling every 0.3 s and three half-frame sockets hold the server
 * (default settings, then max_clients 8); a 9th client reads 20 times, one per 100 ms:
 * how many are served (target: 20 of 20 at the defaults; at max_clients 8, where nine
 * clients share eight slots and the one served least recently yields whenever an evicted
 * poller returns, that its first read is served). Between them, the PLC's latency while one thread
 * connects as fast as it can, holding 16 sockets that never speak (a connect storm).
 *
 * The latency phases run with max_clients 16 so that every attacker is admitted: they
 * measure service, the last line measures admission. Exit status 0 unless something failed
 * to run; verdicts are printed, not returned.
 *
 * Usage: bench_modbus_fair [--requests N] [--period-ms P] [--max-seconds S]
 */
#include "rtcosim/driver.h"
#include "rtcosim/iodrivers.h"
#include "rtcosim/mailbox.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <arpa/inet.h>
#include <errno.h>
#include <modbus.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define N_LORIS 3
#define N_IDLE 8

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* ---- the server under test ---- */

typedef struct server {
    rtc_mailbox *mb[2];
    rtc_kv comp[2], sig_kv[2][2];
    rtc_io_signal sig[2];
    void *self;
    int port;
} server;

/* max_clients NULL: the driver's default. */
static int server_start(server *s, const char *max_clients)
{
    memset(s, 0, sizeof *s);
    s->comp[0] = (rtc_kv){"port", "0"};
    s->comp[1] = (rtc_kv){"max_clients", max_clients};
    static const char *const names[] = {"speed", "setpoint"}, *const addr[] = {"0", "1"};
    for (int i = 0; i < 2; i++) {
        if (rtc_mailbox_new(&s->mb[i]) != RTC_OK)
            return -1;
        s->sig_kv[i][0] = (rtc_kv){"address", addr[i]};
        s->sig_kv[i][1] = (rtc_kv){"type", "int16"};
        s->sig[i] = (rtc_io_signal){.name = names[i], .type = RTC_TYPE_FLOAT64,
                                    .dir = i ? RTC_IO_FROM_BENCH : RTC_IO_TO_BENCH,
                                    .settings = s->sig_kv[i], .n_settings = 2,
                                    .mailbox = s->mb[i]};
    }
    rtc_driver_config cfg = {.component = "plc_link", .settings = s->comp,
                             .n_settings = max_clients ? 2 : 1,
                             .signals = s->sig, .n_signals = 2};
    static rtc_logger lg;
    lg = rtc_logger_stderr(RTC_LOG_WARNING);
    if (rtc_modbus_server_ops.open(&cfg, &lg, &s->self) != RTC_OK ||
        rtc_modbus_server_ops.start(s->self) != RTC_OK)
        return -1;
    rtc_driver_stats st = {0};
    rtc_modbus_server_ops.stats(s->self, &st);
    s->port = st.port;
    return 0;
}

static void server_stop(server *s)
{
    rtc_modbus_server_ops.close(s->self);
    for (int i = 0; i < 2; i++)
        rtc_mailbox_free(s->mb[i]);
}

static rtc_driver_stats server_stats(server *s)
{
    rtc_driver_stats st = {0};
    rtc_modbus_server_ops.stats(s->self, &st);
    return st;
}

/* ---- attackers: partial frames and idle sockets, one thread ---- */

static int tcp_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
        return fd;
    if (fd >= 0)
        close(fd);
    return -1;
}

typedef struct attack {
    int port;
    int fd[N_LORIS + N_IDLE];
    atomic_bool stop;
    atomic_uint reconnects;
    pthread_t tid;
} attack;

/* (Re)open socket k: a slowloris sends the first 3 bytes of an MBAP header, an idle one
 * sends nothing. */
static void attacker_open(attack *a, int k)
{
    static const uint8_t part[3] = {0x00, 0x01, 0x00};
    a->fd[k] = tcp_connect(a->port);
    if (a->fd[k] >= 0 && k < N_LORIS)
        (void)!send(a->fd[k], part, sizeof part, MSG_NOSIGNAL);
}

static void *attack_thread(void *arg)
{
    attack *a = arg;
    struct pollfd p[N_LORIS + N_IDLE];
    while (!atomic_load(&a->stop)) {
        for (int k = 0; k < N_LORIS + N_IDLE; k++)
            p[k] = (struct pollfd){.fd = a->fd[k], .events = POLLIN};
        if (poll(p, N_LORIS + N_IDLE, 10) <= 0)
            continue;
        uint8_t junk[64];
        for (int k = 0; k < N_LORIS + N_IDLE; k++) {
            if (!p[k].revents || recv(a->fd[k], junk, sizeof junk, MSG_DONTWAIT) > 0)
                continue;
            close(a->fd[k]); /* the server closed it: come back at once */
            attacker_open(a, k);
            atomic_fetch_add(&a->reconnects, 1);
        }
    }
    return NULL;
}

static int attack_start(attack *a, int port)
{
    a->port = port;
    for (int k = 0; k < N_LORIS + N_IDLE; k++)
        attacker_open(a, k);
    return pthread_create(&a->tid, NULL, attack_thread, a) == 0 ? 0 : -1;
}

static void attack_stop(attack *a)
{
    atomic_store(&a->stop, true);
    pthread_join(a->tid, NULL);
    for (int k = 0; k < N_LORIS + N_IDLE; k++)
        if (a->fd[k] >= 0)
            close(a->fd[k]);
}

/* ---- a connect storm: connects as fast as one thread can, 16 held at a time ---- */

#define N_STORM 16

typedef struct storm {
    int port;
    atomic_bool stop;
    atomic_uint connects;
    pthread_t tid;
} storm;

static void *storm_thread(void *arg)
{
    storm *st = arg;
    int fd[N_STORM];
    for (int k = 0; k < N_STORM; k++)
        fd[k] = -1;
    for (unsigned k = 0; !atomic_load(&st->stop); k = (k + 1) % N_STORM) {
        if (fd[k] >= 0)
            close(fd[k]); /* the oldest goes, a new one comes */
        fd[k] = tcp_connect(st->port);
        atomic_fetch_add(&st->connects, 1);
    }
    for (int k = 0; k < N_STORM; k++)
        if (fd[k] >= 0)
            close(fd[k]);
    return NULL;
}

/* ---- the PLC ---- */

typedef struct phase {
    const char *name;
    int n, failed;
    double p50_ms, p99_ms, max_ms;
} phase;

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static modbus_t *plc_new(int port, int timeout_ms)
{
    modbus_t *cl = modbus_new_tcp("127.0.0.1", port);
    if (!cl)
        return NULL;
    modbus_set_response_timeout(cl, (uint32_t)timeout_ms / 1000,
                                (uint32_t)(timeout_ms % 1000) * 1000);
    if (modbus_connect(cl) == 0)
        return cl;
    modbus_free(cl);
    return NULL;
}

typedef struct plan {
    int n;
    int64_t period_ns;
    double max_s;
} plan;

/* One read per period (absolute deadlines; a late read starts the next at once), at most
 * max_s seconds; failed reads are counted, not timed. */
static void plc_run(modbus_t *cl, phase *ph, const plan *pl, int64_t *lat)
{
    int64_t start = rtc_time_now_ns(), end = start + (int64_t)(pl->max_s * 1e9);
    int got = 0;
    ph->failed = 0;
    for (int k = 0; k < pl->n && rtc_time_now_ns() < end; k++) {
        int64_t due = start + k * pl->period_ns;
        rtc_time_sleep_until_ns(due);
        uint16_t v;
        int64_t t0 = rtc_time_now_ns();
        if (modbus_read_registers(cl, 0, 1, &v) == 1)
            lat[got++] = rtc_time_now_ns() - t0;
        else
            ph->failed++;
    }
    ph->n = got;
    qsort(lat, (size_t)got, sizeof *lat, cmp_i64);
    ph->p50_ms = got ? (double)lat[got / 2] / 1e6 : 0;
    ph->p99_ms = got ? (double)lat[(got * 99) / 100 < got ? (got * 99) / 100 : got - 1] / 1e6 : 0;
    ph->max_ms = got ? (double)lat[got - 1] / 1e6 : 0;
}

static void print_phase(const phase *p)
{
    printf("%-28s %6d %8d %10.3f %10.3f %10.3f\n", p->name, p->n, p->failed, p->p50_ms,
           p->p99_ms, p->max_ms);
}

/* ---- lock-out: 8 idle sockets first, at the default max_clients ---- */

static void lockout(double max_s)
{
    server s;
    if (server_start(&s, "8") != 0) {
        printf("lock-out: server did not start\n");
        return;
    }
    int idle[N_IDLE];
    for (int k = 0; k < N_IDLE; k++)
        idle[k] = tcp_connect(s.port);
    int64_t t0 = rtc_time_now_ns(), end = t0 + (int64_t)(max_s * 1e9);
    double served_ms = -1;
    while (served_ms < 0 && rtc_time_now_ns() < end) {
        modbus_t *cl = plc_new(s.port, 500);
        uint16_t v;
        if (cl && modbus_read_registers(cl, 0, 1, &v) == 1)
            served_ms = (double)(rtc_time_now_ns() - t0) / 1e6;
        if (cl) {
            modbus_close(cl);
            modbus_free(cl);
        }
        if (served_ms < 0)
            sleep_ms(20);
    }
    if (served_ms >= 0)
        printf("lock-out (max_clients 8, 8 idle sockets first): new PLC served after %.1f ms\n",
               served_ms);
    else
        printf("lock-out (max_clients 8, 8 idle sockets first): new PLC NOT served in %.0f s\n",
               max_s);
    for (int k = 0; k < N_IDLE; k++)
        if (idle[k] >= 0)
            close(idle[k]);
    server_stop(&s);
}

/* ---- admission: eight polling PLCs and three half frames hold the server ---- */

#define N_POLLERS 8
#define POLL_NS 300000000 /* each poller reads once every 0.3 s */

typedef struct pollers {
    int port;
    atomic_bool stop;
    atomic_int ok, failed, started;
    pthread_t tid[N_POLLERS];
} pollers;

/* One poller: a libmodbus client reading one register every 0.3 s; a failed read
 * (dropped by the server) reconnects at once, as a real PLC does. */
static void *poller_thread(void *arg)
{
    pollers *p = arg;
    modbus_t *cl = plc_new(p->port, 1000);
    bool counted = false;
    for (int64_t due = rtc_time_now_ns(); !atomic_load(&p->stop); due += POLL_NS) {
        rtc_time_sleep_until_ns(due);
        uint16_t v;
        if (cl && modbus_read_registers(cl, 0, 1, &v) == 1) {
            atomic_fetch_add(&p->ok, 1);
            if (!counted)
                atomic_fetch_add(&p->started, 1);
            counted = true;
            continue;
        }
        atomic_fetch_add(&p->failed, 1);
        if (cl) {
            modbus_close(cl);
            modbus_free(cl);
        }
        cl = plc_new(p->port, 1000);
    }
    if (cl) {
        modbus_close(cl);
        modbus_free(cl);
    }
    return NULL;
}

/* The 9th client: 20 reads, one per 100 ms (a PLC scan); a failed read reconnects.
 * Returns the reads served; their latencies go to lat; *first: the first was served. */
static int newcomer(int port, int64_t *lat, int *connects, bool *first)
{
    modbus_t *cl = NULL;
    int got = 0;
    *connects = 0;
    int64_t start = rtc_time_now_ns();
    for (int k = 0; k < 20; k++) {
        rtc_time_sleep_until_ns(start + k * 100000000LL);
        if (!cl) {
            cl = plc_new(port, 1000);
            ++*connects;
        }
        uint16_t v;
        int64_t t0 = rtc_time_now_ns();
        if (cl && modbus_read_registers(cl, 0, 1, &v) == 1) {
            lat[got++] = rtc_time_now_ns() - t0;
            *first = *first || k == 0;
        } else if (cl) {
            modbus_close(cl);
            modbus_free(cl);
            cl = NULL;
        }
    }
    if (cl) {
        modbus_close(cl);
        modbus_free(cl);
    }
    return got;
}

static void admission(const char *max_clients)
{
    server s;
    pollers p = {.port = 0};
    if (server_start(&s, max_clients) != 0) {
        printf("admission: server did not start\n");
        return;
    }
    rtc_mailbox_write(s.mb[0], &(rtc_sample){.value = 7, .quality = RTC_QUALITY_FRESH});
    p.port = s.port;
    int n_threads = 0;
    while (n_threads < N_POLLERS &&
           pthread_create(&p.tid[n_threads], NULL, poller_thread, &p) == 0)
        n_threads++;
    for (int i = 0; i < 500 && atomic_load(&p.started) < N_POLLERS; i++)
        sleep_ms(10); /* every poller served once: they hold their slots */
    int half[N_LORIS];
    static const uint8_t part[3] = {0x00, 0x01, 0x00};
    for (int k = 0; k < N_LORIS; k++) {
        half[k] = tcp_connect(s.port);
        if (half[k] >= 0)
            (void)!send(half[k], part, sizeof part, MSG_NOSIGNAL);
    }
    sleep_ms(200);
    int64_t lat[20];
    int connects;
    bool first = false;
    int got = newcomer(s.port, lat, &connects, &first);
    atomic_store(&p.stop, true);
    for (int i = 0; i < n_threads; i++)
        pthread_join(p.tid[i], NULL);
    qsort(lat, (size_t)got, sizeof *lat, cmp_i64);
    rtc_driver_stats st = server_stats(&s);
    /* at max_clients 8, nine clients share eight slots: the one served least recently
     * yields each time an evicted poller comes back, so the target is admission itself */
    printf("admission (%s): %d pollers every 0.3 s + %d half frames: 9th client served "
           "%d of 20 (%d connect(s)), first read %s, p50 %.3f ms, max %.3f ms [target %s: "
           "%s]\n", max_clients ? "max_clients 8" : "default settings", N_POLLERS, N_LORIS, got,
           connects, first ? "served" : "NOT served", got ? (double)lat[got / 2] / 1e6 : 0.0,
           got ? (double)lat[got - 1] / 1e6 : 0.0,
           max_clients ? "first read served" : "20 of 20",
           (max_clients ? first : got == 20) ? "met" : "MISSED");
    printf("   pollers: %d reads served, %d failed; server:", atomic_load(&p.ok),
           atomic_load(&p.failed));
    for (size_t i = 0; i < st.n_counters; i++)
        printf(" %s %llu", st.counters[i].name, (unsigned long long)st.counters[i].value);
    printf("\n");
    for (int k = 0; k < N_LORIS; k++)
        if (half[k] >= 0)
            close(half[k]);
    server_stop(&s);
}

static int parse_args(int argc, char **argv, plan *pl)
{
    double period_ms = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--requests") == 0 && i + 1 < argc)
            pl->n = atoi(argv[++i]);
        else if (strcmp(argv[i], "--period-ms") == 0 && i + 1 < argc)
            period_ms = atof(argv[++i]);
        else if (strcmp(argv[i], "--max-seconds") == 0 && i + 1 < argc)
            pl->max_s = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_modbus_fair [--requests N] [--period-ms P] "
                            "[--max-seconds S]\n");
            return -1;
        }
    }
    if (pl->n < 1 || pl->n > 10000000 || !(period_ms >= 0 && period_ms <= 10000) ||
        !(pl->max_s > 0 && pl->max_s <= 3600)) {
        fprintf(stderr, "bench_modbus_fair: want --requests 1..1e7, --period-ms 0..10000, "
                        "--max-seconds in (0, 3600]\n");
        return -1;
    }
    pl->period_ns = (int64_t)(period_ms * 1e6);
    return 0;
}

int main(int argc, char **argv)
{
    plan pl = {.n = 2000, .max_s = 20};
    if (parse_args(argc, argv, &pl) != 0)
        return 2;
    int n = pl.n;
    signal(SIGPIPE, SIG_IGN);
    int64_t *lat = malloc((size_t)n * sizeof *lat);
    server s;
    if (!lat || server_start(&s, "16") != 0) {
        fprintf(stderr, "bench_modbus_fair: cannot start the Modbus server\n");
        return 1;
    }
    rtc_mailbox_write(s.mb[0], &(rtc_sample){.value = 7, .quality = RTC_QUALITY_FRESH});
    modbus_t *cl = plc_new(s.port, 5000);
    if (!cl) {
        fprintf(stderr, "bench_modbus_fair: PLC cannot connect\n");
        return 1;
    }
    phase quiet = {.name = "quiet"}, hit = {.name = "3 slowloris + 8 idle"},
          storm_ph = {.name = "connect storm"};
    plc_run(cl, &quiet, &pl, lat);
    attack a = {.port = 0};
    if (attack_start(&a, s.port) != 0)
        return 1;
    sleep_ms(200); /* every attacker connected and holding its partial frame */
    plc_run(cl, &hit, &pl, lat);
    attack_stop(&a);
    rtc_driver_stats st = server_stats(&s);
    storm sm = {.port = s.port};
    int64_t storm_t0 = rtc_time_now_ns();
    if (pthread_create(&sm.tid, NULL, storm_thread, &sm) != 0)
        return 1;
    plc_run(cl, &storm_ph, &pl, lat);
    atomic_store(&sm.stop, true);
    pthread_join(sm.tid, NULL);
    double storm_s = (double)(rtc_time_now_ns() - storm_t0) / 1e9;
    rtc_driver_stats st2 = server_stats(&s);
    printf("Modbus server fairness: %d reads of 1 holding register by a libmodbus PLC on "
           "127.0.0.1, one per %.3g ms (response timeout 5 s, at most %.0f s per phase)\n", n,
           (double)pl.period_ns / 1e6, pl.max_s);
    printf("%-28s %6s %8s %10s %10s %10s\n", "phase", "n", "failed", "p50_ms", "p99_ms",
           "max_ms");
    print_phase(&quiet);
    print_phase(&hit);
    printf("difference (attacked - quiet): p50 %+.3f ms, p99 %+.3f ms, max %+.3f ms; "
           "p99 ratio %.2f  [target: p99 within 2 ms: %s]\n",
           hit.p50_ms - quiet.p50_ms, hit.p99_ms - quiet.p99_ms, hit.max_ms - quiet.max_ms,
           quiet.p99_ms > 0 ? hit.p99_ms / quiet.p99_ms : 0,
           hit.failed == 0 && hit.n == n && hit.p99_ms - quiet.p99_ms <= 2.0 ? "met" : "MISSED");
    printf("server counters: attacker reconnects %u", atomic_load(&a.reconnects));
    for (size_t i = 0; i < st.n_counters; i++)
        printf(", %s %llu", st.counters[i].name, (unsigned long long)st.counters[i].value);
    printf("\n");
    print_phase(&storm_ph);
    printf("connect storm: %.0f connects a second (16 held), PLC reads failed %d "
           "[target: 0: %s]; server counters after it:", atomic_load(&sm.connects) / storm_s,
           storm_ph.failed, storm_ph.failed == 0 && storm_ph.n == n ? "met" : "MISSED");
    for (size_t i = 0; i < st2.n_counters; i++)
        printf(" %s %llu", st2.counters[i].name, (unsigned long long)st2.counters[i].value);
    printf("\n");
    modbus_close(cl);
    modbus_free(cl);
    server_stop(&s);
    lockout(10);
    admission(NULL);
    admission("8");
    free(lat);
    return 0;
}
