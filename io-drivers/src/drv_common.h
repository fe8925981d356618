/*
 * Private helpers shared by the io-drivers: settings parsing with diagnostics, lock-free
 * counters that the I/O thread updates and any thread snapshots, the I/O thread with its
 * scheduling policy, the stop flag, the "write safe values now" hand-off, backoff.
 */
#ifndef RTC_IO_DRV_COMMON_H
#define RTC_IO_DRV_COMMON_H

#include "rtcosim/driver.h"
#include "rtcosim/rt.h"

#include <assert.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- settings ---- */

/** Where a setting comes from, for messages: component, optional signal. */
typedef struct drv_ctx {
    const rtc_logger *lg;
    const char *driver;    /* "modbus-client" */
    const char *component; /* SSP component name */
} drv_ctx;

/* Each getter: absent key -> *out = dflt and RTC_OK; malformed or out of [lo, hi] ->
 * logs "<driver> '<component>'[ signal '<sig>']: setting <key>=<value>: <why>" and
 * returns RTC_EINVAL. sig may be NULL (component setting). */
int rtc__drv_get_double(const drv_ctx *c, const char *sig, const rtc_kv *kv, size_t n,
                        const char *key, double dflt, double lo, double hi, double *out);
int rtc__drv_get_int(const drv_ctx *c, const char *sig, const rtc_kv *kv, size_t n, const char *key,
                     long dflt, long lo, long hi, long *out);
int rtc__drv_get_bool(const drv_ctx *c, const char *sig, const rtc_kv *kv, size_t n,
                      const char *key, bool dflt, bool *out);
/* One of the NULL-terminated words in choices; *out = its index (dflt when absent). */
int rtc__drv_get_choice(const drv_ctx *c, const char *sig, const rtc_kv *kv, size_t n,
                        const char *key, const char *const *choices, int dflt, int *out);
/* Optional double: *has = false when absent. */
int rtc__drv_get_opt_double(const drv_ctx *c, const char *sig, const rtc_kv *kv, size_t n,
                            const char *key, bool *has, double *out);
/* Log an error about a setting and return RTC_EINVAL. */
int rtc__drv_bad(const drv_ctx *c, const char *sig, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- counters ---- */

/* Live counters: written by the I/O thread (relaxed atomics: statistics carry no ordering
 * with other data), read by stats() from any thread. */
typedef struct drv_health {
    _Atomic uint8_t quality;
    _Atomic uint64_t updates, stale_events, errors, clamped;
    _Atomic int64_t last_ns;
} drv_health;

/* The generic counters of driver.h, plus the driver's own named ones (named[i] is
 * counted under names[i]; a driver indexes them with its own enum). */
typedef struct drv_stats {
    _Atomic uint64_t cycles, overruns, requests, errors, timeouts, reconnects, connects,
        rejected, safe_writes;
    _Atomic int port;
    _Atomic bool connected;
    rtc_hist *latency; /* request latency in ns; single writer: the I/O thread */
    drv_health *health; /* n_signals entries */
    size_t n_signals;
    const char *kind;         /* rtc_driver_stats.kind */
    const char *const *names; /* n_named static names */
    size_t n_named;
    _Atomic uint64_t named[RTC_DRIVER_MAX_COUNTERS];
} drv_stats;

/* @p kind and the @p n_named @p names (static strings, n_named <= RTC_DRIVER_MAX_COUNTERS)
 * are the driver's own counters. */
int rtc__drv_stats_init(drv_stats *st, size_t n_signals, const char *kind,
                        const char *const *names, size_t n_named);
void rtc__drv_stats_clear(drv_stats *st);
void rtc__drv_count(_Atomic uint64_t *c);
/* Raise a high-water mark (single writer: the I/O thread). */
void rtc__drv_raise(_Atomic uint64_t *c, uint64_t v);
void rtc__drv_latency(drv_stats *st, int64_t ns);
/* rtc_driver_ops.stats of every driver: each driver object starts with its drv_stats
 * (checked where the ops table is defined), so one function serves them all. */
int rtc__drv_stats(void *self, rtc_driver_stats *out);

/* Publish a FROM_BENCH sample and update its health. */
void rtc__drv_publish(drv_stats *st, size_t i, rtc_mailbox *mb, double v, int64_t sample_ns,
                      int64_t arrival_ns);
/* Count a TO_BENCH value delivered to the bench. */
void rtc__drv_publish_sent(drv_stats *st, size_t i);
/* Move signal i to quality q (counts a stale event on entering STALE); mb may be NULL. */
void rtc__drv_set_quality(drv_stats *st, size_t i, rtc_mailbox *mb, rtc_quality q);

/* ---- I/O thread ---- */

/* The I/O thread is created by the engine's one thread creator (rtcosim/rt.h): the
 * scheduling policy, priority, CPU affinity and stack are in its attributes before it
 * exists, and its stack is prefaulted before the driver's loop runs. */
typedef struct drv_thread {
    rtc_rt_thread *th;      /* NULL when not running; touched only by start/stop callers */
    atomic_bool stop;       /* stop request: release by stop(), acquire by the loop */
    atomic_int safe_req;    /* write-safe-values request: 1 pending, 0 idle */
    atomic_int safe_result; /* rtc_status of the last served request */
    sem_t safe_done;        /* posted by the I/O thread after serving a request */
    int priority;           /* SCHED_FIFO priority; 0: SCHED_OTHER */
    int cpu;                /* CPU to pin to; -1: any */
} drv_thread;

int rtc__drv_thread_init(drv_thread *t);
void rtc__drv_thread_clear(drv_thread *t);
/* The component keys of the I/O thread: priority (0..99, default 20) and cpu (-1 or an
 * online CPU, default -1). */
int rtc__drv_get_thread(const drv_ctx *c, const rtc_kv *kv, size_t n, drv_thread *t);
/* Create the thread: SCHED_FIFO at t->priority on t->cpu if permitted, else SCHED_OTHER
 * on t->cpu with one warning per process (rtc_rt_thread_start). */
int rtc__drv_thread_start(drv_thread *t, const drv_ctx *c, void *(*fn)(void *), void *arg);
/* Set the stop flag and join. */
void rtc__drv_thread_stop(drv_thread *t);
static inline bool rtc__drv_should_stop(drv_thread *t)
{
    return atomic_load_explicit(&t->stop, memory_order_acquire);
}
/*
 * write_safe_values() hand-off: when the thread runs, post a request and wait up to
 * timeout_ms for the I/O thread's answer; else run fn(arg) in the caller.
 */
int rtc__drv_safe_request(drv_thread *t, int timeout_ms, int (*fn)(void *), void *arg);
/* I/O thread: serve a pending request with fn(arg). */
void rtc__drv_safe_serve(drv_thread *t, int (*fn)(void *), void *arg);

/* ---- time and backoff ---- */

/* Sleep up to dur_ns in slices of at most 10 ms; returns early (true) on stop. */
bool rtc__drv_sleep_interruptible(drv_thread *t, int64_t dur_ns);
/* Next backoff: doubles cur within [min,max] and returns it with +-25 % jitter. */
int64_t rtc__drv_backoff_next(int64_t *cur_ns, int64_t min_ns, int64_t max_ns, uint64_t *rng);
uint64_t rtc__drv_rand(uint64_t *state);

#endif
