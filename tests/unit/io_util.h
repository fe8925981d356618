/*
 * Helpers shared by the I/O driver tests: a logger that keeps messages for substring
 * assertions, condition polling with a deadline, a plain libmodbus TCP server running in
 * a thread of the test process on an ephemeral 127.0.0.1 port, child processes with their
 * stdout piped (bench tools), and socat pty pairs.
 */
#ifndef RTC_TEST_IO_UTIL_H
#define RTC_TEST_IO_UTIL_H

#include "rtcosim/driver.h"

#include <modbus.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

/* ---- logger that remembers ---- */
typedef struct io_log {
    rtc_logger lg;
    pthread_mutex_t mu;
    char text[16384];
    int n_errors, n_warnings;
} io_log;
void io_log_init(io_log *l);
/* True when some logged line contains needle. */
bool io_log_has(io_log *l, const char *needle);
void io_log_reset(io_log *l);

/* Poll pred(arg) every ms until true or timeout_ms passed; returns the last result. */
bool io_wait(bool (*pred)(void *), void *arg, int timeout_ms);
void io_sleep_ms(int ms);

/* A loopback port of the given socket type (SOCK_STREAM, SOCK_DGRAM) that was free a
 * moment ago (bind to 0, read it back, release it); -1 on failure. */
int io_free_port(int type);

/* ---- a driver under test: its operations and its instance ---- */
typedef struct io_drv {
    const rtc_driver_ops *ops;
    void *self;
} io_drv;
/* The driver's counters, with up to cap signals' health into h. */
rtc_driver_stats io_drv_stats(io_drv *d, rtc_signal_health *h, size_t cap);
/* A driver-specific counter of @p st (rtc_driver_stats_counter); a counter the driver does
 * not report fails the test and reads UINT64_MAX, so no equality with it can pass. */
uint64_t io_counter(const rtc_driver_stats *st, const char *name);
/* The driver-specific counter @p name of @p d now. */
uint64_t io_drv_counter(io_drv *d, const char *name);
/* open() must refuse @p cfg: RTC_EINVAL, the out pointer untouched, exactly one error
 * logged into @p log, containing @p who ("<driver> '<component>'") and @p msg. */
void io_expect_refused(const rtc_driver_ops *ops, const rtc_driver_config *cfg, io_log *log,
                       const char *who, const char *msg);
/* Wait up to timeout_ms until the driver-specific counter @p name reaches @p min. */
bool io_wait_counter(io_drv *d, const char *name, uint64_t min, int timeout_ms);
/* Wait up to timeout_ms until the driver's link is in state @p s. */
bool io_wait_link(io_drv *d, rtc_link_state s, int timeout_ms);

/* ---- a plain libmodbus TCP server in a thread ---- */
/* A request it served: function code, first address, and the quantity (reads, FC 15/16)
 * or the value (FC 5/6). */
typedef struct plain_req {
    uint8_t fc;
    uint16_t addr, arg;
} plain_req;
typedef struct plain_srv {
    modbus_t *ctx;
    modbus_mapping_t *map; /* 2000 of each table from address 0; lock mu to touch */
    pthread_mutex_t mu;
    int lfd, port;
    int clients[8], n_clients;
    atomic_bool stop;
    atomic_int accepted, served;
    atomic_int delay_next_ms; /* >0: the next answer goes out this late (once) */
    pthread_t tid;
    plain_req log[256]; /* the first requests served (lock mu) */
    int n_log;
} plain_srv;
int plain_srv_start(plain_srv *s);
void plain_srv_stop(plain_srv *s);
/* Drop every connected client (simulates a device reboot), keep listening. */
void plain_srv_kick(plain_srv *s);

/* ---- child processes ---- */
typedef struct io_child {
    pid_t pid;
    int out_fd; /* child's stdout (and stderr when merged) */
} io_child;
/* Spawn argv (argv[0] a path), stdout piped; returns 0 or -1. */
int io_child_spawn(io_child *c, char *const argv[], bool merge_stderr);
/* Run the child (a single-threaded bench emulator or proxy) SCHED_FIFO at @p prio: it
 * stands in for a device or a network with a processor of its own, which other programs on
 * this machine must not starve. false, with the reason printed, where the kernel refuses
 * (no root or CAP_SYS_NICE): the child goes on at its normal priority. */
bool io_child_realtime(io_child *c, int prio);
/* Read lines from the child until one starts with prefix (within timeout_ms); copy it. */
bool io_child_line(io_child *c, const char *prefix, char *line, size_t cap, int timeout_ms);
/* Send sig and reap (waits up to 5 s, then SIGKILL); returns the wait status. */
int io_child_kill(io_child *c, int sig);
/* Wait up to @p timeout_ms for the child to exit (then SIGKILL it); its exit status, or
 * 128 + the signal that ended it. */
int io_child_wait(io_child *c, int timeout_ms);
/* Start a tool that prints "... listening on ADDR:PORT" first (rtcosim-bench-sim,
 * rtcosim-fault-proxy); returns the port (0 when it did not say). */
int io_tool_port(io_child *c, char *const argv[]);

/* socat pty pair: fills a and b with /dev/pts paths. false (reason in why) if unavailable. */
bool io_pty_pair(io_child *socat, char *a, char *b, size_t cap, char *why, size_t why_cap);

/* ---- raw TCP peers (hostile Modbus clients) ---- */
/* A blocking TCP socket connected to 127.0.0.1:port, or -1. */
int io_tcp_connect(int port);
/* The same from source address @p src (the loopback answers every 127.x.y.z, so a test
 * can play several hosts). */
int io_tcp_connect_from(int port, const char *src);
/* Send all n bytes; false on error. */
bool io_tcp_send(int fd, const void *buf, size_t n);
/* Read one Modbus TCP frame (MBAP header + what its length field says) into buf, waiting
 * up to timeout_ms; returns its length, 0 when the peer closed, -1 on timeout or error. */
int io_tcp_recv_frame(int fd, uint8_t *buf, size_t cap, int timeout_ms);
/* True when the peer closes the connection (EOF or reset) within timeout_ms; bytes that
 * arrive meanwhile are discarded. */
bool io_tcp_wait_closed(int fd, int timeout_ms);
/* A libmodbus TCP client connected to 127.0.0.1:port with the given response timeout, or
 * NULL; io_mb_client_free() closes and frees it (NULL is a no-op). */
modbus_t *io_mb_client(int port, int timeout_ms);
void io_mb_client_free(modbus_t *cl);

#endif
