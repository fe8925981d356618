/*
 * rtcosim/driver_base.h — what every driver does, in one struct each driver embeds first.
 *
 * A driver (rtcosim/driver.h) is a const ops table plus an object. Most of the object's
 * work is the same for a Modbus client, a Modbus server, OSC, a node bridge or a DCP
 * master, and lives here once:
 *   - the common keys: priority and cpu of the I/O thread, the period (under the
 *     driver's own key: poll_ms, update_ms, rate_hz), stale_ms, safe_timeout_ms and, for
 *     drivers that reconnect, reconnect_min_ms / reconnect_max_ms; per signal, safe;
 *   - the I/O thread, made by the engine's one thread creator (rtc_rt_thread_start), and
 *     the one loop it runs (below); the stop flag;
 *   - the safe-value hand-off: write_safe_values() runs the driver's safe() in the I/O
 *     thread while it runs (the caller waits, bounded), else in the caller's thread; the
 *     latch that keeps later cycles from overwriting them until the next start();
 *   - reconnect backoff (doubling, +-25 % jitter) and the link state (rtc_link_state);
 *   - the generic counters, per-signal health and staleness, the latency histogram and
 *     the stats copy-out, with the driver's own named counters.
 *
 * A driver embeds rtc_drv_base as the FIRST member of its object, describes itself in one
 * static const rtc_drv_desc (name, counters, period key, hooks), opens through
 * rtc_drv_open(), and points start, stop, write_safe_values, close and stats of its ops
 * table at the rtc_drv_* functions of the same names. It writes open() and the hooks,
 * nothing else. io-drivers/src/drv_skeleton.c is the template to copy.
 *
 * The I/O thread, between start() and stop():
 *
 *     rc = begin()                    open the endpoint (bind, listen); start() returns rc
 *     while not stopped:
 *         a pending write_safe_values()?   safe()
 *         a period deadline reached?       cycle(now): true  one period's work, counted
 *                                                            in cycles; missed deadlines
 *                                                            are skipped and counted in
 *                                                            overruns (like cyclictest)
 *                                                      false the link is down: retry
 *                                                            after rtc_drv_backoff()
 *         wait(until)                 input up to the next deadline, at most 10 ms away
 *                                     (NULL: sleep), so stop and safe requests are seen
 *     safe() as stop_safe says;  end()
 *
 * Threads: the fields below are the driver's to read, but touched as their comments say:
 * "open" fields are set by rtc_drv_open() and only read afterwards; "I/O" fields belong to
 * the I/O thread while it runs and to the caller of open/start/write_safe_values/close
 * while it does not (thread creation and join order the two); atomics are read by any
 * thread (stats) and written by the I/O thread. C11 only (the struct holds _Atomic
 * members); the names have the prefix rtc_drv_.
 */
#ifndef RTCOSIM_DRIVER_BASE_H
#define RTCOSIM_DRIVER_BASE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/driver.h"
#include "rtcosim/hist.h"
#include "rtcosim/log.h"
#include "rtcosim/mailbox.h"
#include "rtcosim/rt.h"
#include "rtcosim/rtsafe.h"

typedef struct rtc_drv_base rtc_drv_base;
struct pollfd; /* <poll.h> */

/** What the I/O thread does with the safe values on its way out (stop(), close()). */
typedef enum rtc_drv_stop_safe {
    RTC_DRV_STOP_SAFE_NONE = 0,       /**< nothing (a server's map ends with its endpoint) */
    RTC_DRV_STOP_SAFE_UNLESS_LATCHED, /**< write them unless write_safe_values() did */
    RTC_DRV_STOP_SAFE_ALWAYS,         /**< write them, latched or not (Modbus client) */
} rtc_drv_stop_safe;

/**
 * A driver as the base sees it: one static const per driver, beside its ops table.
 * Hooks get the base pointer, which is the driver's object (the base is its first member).
 */
typedef struct rtc_drv_desc {
    const char *name;            /**< as rtc_driver_ops.name, in every message */
    const char *kind;            /**< rtc_driver_stats.kind of its counters, [a-z0-9_] */
    const char *const *counters; /**< names of its own counters (static), may be NULL */
    size_t n_counters;           /**< at most RTC_DRIVER_MAX_COUNTERS */
    /* component keys the base reads for the driver */
    const char *period_key;      /**< key of the period ("poll_ms"); NULL: no period key,
                                      the period is period_default ms */
    bool period_hz;              /**< the key is a rate in Hz ("rate_hz"), else in ms */
    double period_default, period_min, period_max; /**< in the key's unit */
    double stale_periods;        /**< default stale_ms in periods (0: off); < 0: no
                                      stale_ms key (never stale) */
    bool reconnects;             /**< reads reconnect_min_ms and reconnect_max_ms */
    /* hooks (NULL where the comment allows) */
    /** I/O thread, first: open the endpoint. Its result is start()'s; on failure it logs
     *  why (component, address, error) and the loop does not run. NULL: RTC_OK. */
    int (*begin)(rtc_drv_base *b);
    /** I/O thread, at each period deadline: one period's work. false: the link is down
     *  and could not be brought up now; the base retries after a backoff. */
    bool (*cycle)(rtc_drv_base *b, int64_t now_ns);
    /** I/O thread, between cycles: wait for input and handle it, returning by @p until_ns
     *  (CLOCK_MONOTONIC, at most 10 ms ahead). NULL: sleep until then. */
    void (*wait)(rtc_drv_base *b, int64_t until_ns);
    /** Write the safe values now (b->latched is already true): in the I/O thread while it
     *  runs, else in the caller's. RTC_OK (counted in safe_writes) or RTC_EIO, logged.
     *  NULL: the driver has no safe values (RTC_OK, not counted). */
    int (*safe)(rtc_drv_base *b);
    /** I/O thread, last (also after a failed begin): close the endpoint. NULL: nothing. */
    void (*end)(rtc_drv_base *b);
    /** close(): free what the driver allocated, tolerating a partial open (fields the
     *  driver's open() had not set yet are zero). The base frees its own part and the
     *  object. NULL: nothing. */
    void (*clear)(rtc_drv_base *b);
} rtc_drv_desc;

/** Per-signal state the base keeps: where the signal's samples go, and its health
 *  (copied out as rtc_signal_health). Relaxed atomics: statistics, no ordering. */
typedef struct rtc_drv_signal {
    rtc_mailbox *mb;           /**< open: the config's mailbox */
    rtc_io_dir dir;            /**< open */
    bool has_safe;             /**< open: the signal key safe is set */
    double safe;               /**< open: its value (used for TO_BENCH signals) */
    _Atomic uint8_t quality;   /**< rtc_quality of the last published state */
    _Atomic uint64_t updates, stale_events, errors, clamped;
    _Atomic int64_t last_ns;   /**< arrival of the last good value (0: none yet) */
} rtc_drv_signal;

/** The generic counters of rtc_driver_stats, plus the driver's own (named[k] is counted
 *  under desc->counters[k]; a driver indexes them with its own enum). Relaxed atomics. */
typedef struct rtc_drv_counters {
    _Atomic uint64_t cycles, overruns, requests, errors, timeouts, reconnects, connects,
        rejected, safe_writes;
    _Atomic int port;
    _Atomic uint64_t named[RTC_DRIVER_MAX_COUNTERS];
} rtc_drv_counters;

/**
 * The link's state: written by the I/O thread (rtc_drv_link_*), read by stats. This is
 * where the link contract of DESIGN.md T2 (issue 19) adds its keys and bookkeeping:
 * required/optional, connect_ms, on_loss, first-connect time, outages (count, total,
 * longest) and the round-trip distribution.
 */
typedef struct rtc_drv_link {
    _Atomic int state;        /**< rtc_link_state */
    _Atomic int64_t since_ns; /**< when it entered state */
    bool ever_up;             /**< I/O: up at least once since open (counts reconnects) */
} rtc_drv_link;

/** The embedded base. Read the fields; change them only through the functions below,
 *  except where a comment says a driver sets one. */
struct rtc_drv_base {
    const rtc_drv_desc *desc;  /**< open */
    const rtc_logger *lg;      /**< open: the caller's logger, must outlive the driver */
    char *component;           /**< open: the SSP component name (owned copy) */
    /* common keys (open) */
    int priority;              /**< priority: 0..99, 0 = SCHED_OTHER [20] */
    int cpu;                   /**< cpu: -1 = any [-1] */
    int64_t period_ns;         /**< the period key, in ns */
    int64_t stale_ns;          /**< stale_ms in ns; 0: never stale */
    int64_t backoff_min_ns, backoff_max_ns; /**< reconnect_min_ms / _max_ms [100, 5000] */
    int safe_timeout_ms;       /**< safe_timeout_ms [500] */
    rtc_drv_stop_safe stop_safe; /**< open: set by the driver's open() [NONE] */
    /* signals, counters, link */
    rtc_drv_signal *sig;       /**< open: one per config signal, same order */
    size_t n_sig;
    size_t n_to_bench, n_from_bench; /**< open: signals of each direction */
    size_t n_safe;             /**< open: TO_BENCH signals with a safe value */
    rtc_drv_counters st;
    rtc_hist *latency;         /**< ns per exchange; I/O thread writes (rtc_drv_latency) */
    rtc_drv_link link;
    bool latched;              /**< I/O: safe values latched (reset by start()) */
    /* I/O thread and hand-offs (the base's own) */
    rtc_rt_thread *th;
    atomic_bool stop;          /**< release by stop(), acquire by the loop */
    _Atomic uint32_t ready, ready_waiters; /**< start(): the thread has run begin() */
    atomic_int start_rc;
    _Atomic uint32_t safe_req, safe_done, safe_waiters; /**< request / served sequence */
    atomic_int safe_result;
    uint32_t safe_served;      /**< I/O */
    int64_t backoff_ns;        /**< I/O */
    uint64_t rng;              /**< I/O: jitter */
};

/* ---- open and the ops the base implements ---- */

/**
 * Allocate a driver object of @p size bytes (zeroed; rtc_drv_base first), copy the
 * component name, read the common keys of @p desc from @p cfg and set up one signal per
 * config signal (each needs a name and a mailbox), the counters and the histogram.
 * Errors are logged through @p lg as "<name> '<component>': ..." (see rtc_drv_bad); the
 * object is then freed (desc->clear is not called: nothing of the driver's was set up).
 * On success the driver goes on reading its own keys; on any later error it calls
 * rtc_drv_close(), which runs desc->clear.
 * Returns RTC_OK, RTC_EINVAL (bad key, missing name/mailbox), RTC_ENOMEM.
 * RT-safe: no. Thread: any non-RT.
 */
int rtc_drv_open(const rtc_drv_desc *desc, size_t size, const rtc_driver_config *cfg,
                 const rtc_logger *lg, rtc_drv_base **out);

/** rtc_driver_ops.start: release the latch, start the I/O thread at priority/cpu, named
 *  "io-<component>", and wait until begin() ran. Returns RTC_OK, RTC_EINVAL (NULL),
 *  RTC_ESTATE (running), begin()'s error, RTC_ESYS. RT-safe: no. */
int rtc_drv_start(void *self);

/** rtc_driver_ops.stop: set the stop flag and join (no-op when not running); the thread
 *  writes the safe values on its way out as stop_safe says. Returns RTC_OK, RTC_EINVAL.
 *  RT-safe: no. Thread: the one that started it. */
int rtc_drv_stop(void *self);

/** rtc_driver_ops.write_safe_values: latch and run desc->safe in the I/O thread (waiting
 *  up to @p timeout_ms) or, when it is not running, in the caller's thread. Returns
 *  RTC_OK, RTC_EINVAL, RTC_EIO, RTC_ETIME. RT-safe: no. Thread: any non-RT. */
int rtc_drv_write_safe_values(void *self, int timeout_ms);

/** rtc_driver_ops.close: stop, desc->clear, free the base's part and the object. NULL is a
 *  no-op. RT-safe: no. */
void rtc_drv_close(void *self);

/** rtc_driver_ops.stats: copy the counters, health, link and the driver's own counters
 *  (see rtc_driver_ops.stats). Returns RTC_OK, RTC_EINVAL. RT-safe: no. Thread: any. */
int rtc_drv_stats(void *self, rtc_driver_stats *out);

/* ---- messages and settings (during open) ---- */

/**
 * Log "<name> '<component>': <message>" as an error and return @p rc: the one form of a
 * driver's error line (a bind that failed, a peer that is unreachable). RT-safe: no.
 */
int rtc_drv_error(const rtc_drv_base *b, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * Log "<name> '<component>'[ signal '<sig>']: <message>" as an error and return
 * RTC_EINVAL. @p sig may be NULL (a component setting). RT-safe: no.
 */
int rtc_drv_bad(const rtc_drv_base *b, const char *sig, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Each getter reads @p key of @p kv[0..n): absent -> *out = dflt, RTC_OK; malformed or
 * outside [lo, hi] -> "setting <key>=<value>: <why>" through rtc_drv_bad, RTC_EINVAL.
 * Numbers in C locale. RT-safe: no. */

/** A real number in [lo, hi]. */
int rtc_drv_get_double(const rtc_drv_base *b, const char *sig, const rtc_kv *kv, size_t n,
                       const char *key, double dflt, double lo, double hi, double *out);
/** An optional real number: *has = false when absent. */
int rtc_drv_get_opt_double(const rtc_drv_base *b, const char *sig, const rtc_kv *kv,
                           size_t n, const char *key, bool *has, double *out);
/** An integer in [lo, hi] (decimal, 0x hex, 0 octal). */
int rtc_drv_get_int(const rtc_drv_base *b, const char *sig, const rtc_kv *kv, size_t n,
                    const char *key, long dflt, long lo, long hi, long *out);
/** true/false/1/0. */
int rtc_drv_get_bool(const rtc_drv_base *b, const char *sig, const rtc_kv *kv, size_t n,
                     const char *key, bool dflt, bool *out);
/** One of the NULL-terminated words @p choices (case-insensitive): *out = its index. */
int rtc_drv_get_choice(const rtc_drv_base *b, const char *sig, const rtc_kv *kv, size_t n,
                       const char *key, const char *const *choices, int dflt, int *out);

/* ---- the I/O thread's helpers ---- */

/** True once stop() asked the thread to end. RT-safe: yes. Thread: any. */
RTC_RT_SAFE bool rtc_drv_should_stop(rtc_drv_base *b);

/** Sleep @p dur_ns in slices of at most 10 ms; true (early) when stop was asked.
 *  RT-safe: no (sleeps). Thread: the I/O thread. */
bool rtc_drv_sleep(rtc_drv_base *b, int64_t dur_ns);

/** ppoll() the @p n descriptors of @p pfd until @p until_ns (CLOCK_MONOTONIC; a wait
 *  hook passes its until). Returns ppoll's result: > 0 when one is ready, 0 at until, -1
 *  on error (EINTR included). RT-safe: no (blocks). Thread: the I/O thread. */
int rtc_drv_poll(struct pollfd *pfd, size_t n, int64_t until_ns);

/** The next reconnect wait: the backoff doubles within [backoff_min_ns, backoff_max_ns]
 *  from one failure to the next (reset by rtc_drv_link_up) and is returned with +-25 %
 *  jitter, so several clients do not reconnect in lockstep. RT-safe: yes. Thread: I/O. */
RTC_RT_SAFE int64_t rtc_drv_backoff(rtc_drv_base *b);

/** A connection was made: state UP, backoff reset, counts connects and, when the link was
 *  up before (since open), reconnects. RT-safe: yes. Thread: I/O. */
RTC_RT_SAFE void rtc_drv_link_up(rtc_drv_base *b);
/** The link was lost: state DOWN when it was UP (else unchanged). RT-safe: yes. */
RTC_RT_SAFE void rtc_drv_link_down(rtc_drv_base *b);
/** Set the state (a server: UP while a peer is connected), counting nothing.
 *  RT-safe: yes. Thread: I/O. */
RTC_RT_SAFE void rtc_drv_link_set(rtc_drv_base *b, rtc_link_state s);
/** The link's state now. RT-safe: yes. Thread: any. */
RTC_RT_SAFE rtc_link_state rtc_drv_link_state(rtc_drv_base *b);
/** The latest arrival of a FROM_BENCH value over all signals (0: none yet).
 *  RT-safe: yes. Thread: any. */
RTC_RT_SAFE int64_t rtc_drv_last_input_ns(rtc_drv_base *b);

/** Count one event (relaxed). RT-safe: yes. Thread: the counter's single writer. */
RTC_RT_SAFE void rtc_drv_count(_Atomic uint64_t *c);
/** Raise a high-water mark to @p v. RT-safe: yes. Thread: the counter's single writer. */
RTC_RT_SAFE void rtc_drv_raise(_Atomic uint64_t *c, uint64_t v);
/** Record the latency of one exchange. RT-safe: yes. Thread: I/O (the single writer). */
RTC_RT_SAFE void rtc_drv_latency(rtc_drv_base *b, int64_t ns);

/** Publish a FROM_BENCH value of signal @p i into its mailbox (FRESH) and its health.
 *  RT-safe: yes. Thread: I/O. */
RTC_RT_SAFE void rtc_drv_publish(rtc_drv_base *b, size_t i, double v, int64_t sample_ns,
                                 int64_t arrival_ns);
/** Count a TO_BENCH value of signal @p i delivered to the bench. RT-safe: yes. */
RTC_RT_SAFE void rtc_drv_sent(rtc_drv_base *b, size_t i);
/** Move signal @p i to quality @p q (a stale event on entering STALE), health and mailbox.
 *  RT-safe: yes. Thread: I/O. */
RTC_RT_SAFE void rtc_drv_set_quality(rtc_drv_base *b, size_t i, rtc_quality q);
/** Every FROM_BENCH signal that had a value becomes STALE (the link is gone; the last
 *  good value stays readable). RT-safe: yes. Thread: I/O. */
RTC_RT_SAFE void rtc_drv_stale_all(rtc_drv_base *b);
/** Every FROM_BENCH signal whose last value arrived more than stale_ns before @p now_ns
 *  becomes STALE (nothing when stale_ns is 0). RT-safe: yes. Thread: I/O. */
RTC_RT_SAFE void rtc_drv_check_stale(rtc_drv_base *b, int64_t now_ns);
/** For a link judged by its input (datagrams): rtc_drv_check_stale(), and the link goes
 *  DOWN when no FROM_BENCH value came for stale_ns. RT-safe: yes. Thread: I/O. */
RTC_RT_SAFE void rtc_drv_check_input(rtc_drv_base *b, int64_t now_ns);

#endif
