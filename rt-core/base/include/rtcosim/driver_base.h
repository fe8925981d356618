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
 *   - the link contract (DESIGN.md T2): the keys required, connect_ms, on_loss and
 *     loss_ms (and timeout_ms for drivers that send requests), the timeouts derived from
 *     the period and the round trip measured while connecting, and the bookkeeping of
 *     how the link held (first connect, outages, time up), logged as it changes;
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
 *         the link judged (up, late, lost, degraded; outages counted, changes logged)
 *     safe() as stop_safe says;  end()
 *
 * The link contract. The driver says when its link is made and when it is gone
 * (rtc_drv_link_up / rtc_drv_link_down with the reason) and marks every fresh exchange
 * (rtc_drv_alive; rtc_drv_publish does it for a received value); the base judges the rest
 * after every turn of the loop:
 *     never up          CONNECTING (DEGRADED once past connect_ms when optional)
 *     gone              LOST since the driver said so
 *     nothing fresh     LOST since alive + loss time (when the loss time is not 0),
 *                       LATE after half of it
 *     else              UP
 * and LOST becomes DEGRADED under on_loss=continue. Derived times (DESIGN.md T2): a
 * driver that measures its round trip while connecting reports the slowest probe
 * (rtc_drv_link_measured); then, unless the keys set them,
 *     request timeout = min(period, max(2 rtt, period / 2))
 *     loss time       = max(3 periods, 3 rtt, stale_ms when the key is set)
 *                                                 (drivers that judge silence)
 *     stale_ms        = the loss time             (drivers with a stale_ms key)
 * The engine reads the contract through rtc_link_connect_check() (before t0) and
 * rtc_link_must_stop() (every tick, on the RT thread: atomics only).
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
#include "rtcosim/ratelimit.h"
#include "rtcosim/rt.h"
#include "rtcosim/rtsafe.h"

typedef struct rtc_drv_base rtc_drv_base;
struct pollfd; /* <poll.h> */

/** What the I/O thread does with the safe values on its way out (stop(), close()). */
typedef enum rtc_drv_stop_safe {
    RTC_DRV_STOP_SAFE_NONE = 0,       /**< nothing (a server's map ends with its endpoint) */
    RTC_DRV_STOP_SAFE_UNLESS_LATCHED, /**< write them unless write_safe_values() did */
    RTC_DRV_STOP_SAFE_ALWAYS,         /**< write them, latched or not (Modbus client);
                                           but once only when the link was never up */
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
    /* the link contract's defaults (keys required, connect_ms, on_loss, loss_ms) */
    bool optional;               /**< required=false unless the key says otherwise (an
                                      operator's input may never speak) */
    double connect_ms;           /**< default connect_ms; < 0: none (stays connecting) */
    bool judge_silence;          /**< the loss time defaults to max(3 periods, 3 rtt):
                                      nothing fresh for that long is a loss (a client
                                      polling, frames every period); else silence is a
                                      loss only with loss_ms */
    bool requests;               /**< sends requests: reads timeout_ms (below the period;
                                      default derived, see the file comment) */
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
 * The link and its contract (DESIGN.md T2). The contract is set by rtc_drv_open() and
 * read-only afterwards; the atomics are written by the I/O thread (rtc_drv_link_*, the
 * loop's judge, start and stop) and read by any thread: the engine's checks on the RT
 * thread (rtc_link_must_stop), stats. Relaxed: each value is read whole, and a reader
 * that sees a state a moment late only acts a tick later.
 */
struct rtc_link {
    /* the contract (open) */
    bool required;
    rtc_link_policy on_loss;
    int64_t estimate_ns;        /**< on_loss estimate:T */
    int64_t connect_ns;         /**< connect_ms; < 0: none */
    int64_t loss_set_ns;        /**< loss_ms (-1: not set, derived) */
    int64_t timeout_set_ns;     /**< timeout_ms (-1: not set, derived) */
    char address[96];           /**< peer or endpoint (rtc_drv_link_address) */
    /* published */
    _Atomic int state;          /**< rtc_link_state */
    _Atomic int64_t since_ns;   /**< when it entered state */
    _Atomic int64_t alive_ns;   /**< the last fresh exchange */
    _Atomic int64_t loss_ns, timeout_ns, rtt_ns; /**< in force / measured */
    _Atomic int64_t start_ns, stop_ns, first_up_ns;
    _Atomic int64_t lost_ns;    /**< start of the current outage, 0: none */
    _Atomic int64_t down_ns;    /**< when the driver said the link went, 0: it is not */
    _Atomic uint64_t outages;   /**< completed outages */
    _Atomic int64_t outage_total_ns, outage_max_ns; /**< of the completed ones */
    _Atomic int64_t up_total_ns, up_since_ns; /**< completed time up; start of the current
                                                   stretch up (0: not up) */
    _Atomic(const char *) error; /**< why it last failed: a static text */
    _Atomic(const char *) lost_why; /**< why the last outage began: a static text */
    atomic_bool held;           /**< TO_BENCH values held (rtc_driver_config.hold) until
                                     rtc_link_release() */
    /* I/O thread */
    bool conn;                  /**< the driver says the link is made */
    bool ever_up;               /**< up at least once since open (counts reconnects) */
    rtc_ratelimit lines;        /**< the change lines it logs */
};

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
    int64_t stale_ns;          /**< stale_ms in ns; 0: never stale (I/O: derived from the
                                    loss time when the key is absent) */
    bool stale_set;            /**< open: the stale_ms key was given */
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
    rtc_link link;
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
 *  RTC_OK, RTC_EINVAL, RTC_EIO, RTC_ETIMEDOUT. RT-safe: no. Thread: any non-RT. */
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

/** The link is made (a client connected and measured, a server's first client, a
 *  receiver's first datagram; no-op while it is): backoff reset, a reconnect counted when
 *  it was up before (since open); the judge makes it UP. The driver counts connects (each
 *  connection it makes or accepts). RT-safe: yes. Thread: I/O. */
RTC_RT_SAFE void rtc_drv_link_up(rtc_drv_base *b);
/** The link is gone (no-op when it is not made): @p why (a static text, e.g.
 *  strerrordesc_np(errno); NULL: keep the last) is what the engine reports; the judge
 *  makes it LOST (or DEGRADED). RT-safe: yes. Thread: I/O. */
RTC_RT_SAFE void rtc_drv_link_down(rtc_drv_base *b, const char *why);
/** The text of errno value @p e for rtc_drv_link_down / rtc_drv_link_error: static
 *  (strerrordesc_np), "unknown error" for a value it does not know. RT-safe: yes. */
RTC_RT_SAFE const char *rtc_drv_strerror(int e);
/** An attempt to make the link failed, for @p why (a static text): reported as the link's
 *  error (e.g. "Connection refused" while it never came up). RT-safe: yes. Thread: I/O. */
RTC_RT_SAFE void rtc_drv_link_error(rtc_drv_base *b, const char *why);
/** Mark a fresh exchange with the peer at @p now_ns (an answer, a datagram, a request
 *  served): the loss time counts from the last one. RT-safe: yes. Thread: I/O. */
RTC_RT_SAFE void rtc_drv_alive(rtc_drv_base *b, int64_t now_ns);
/** The round trip @p rtt_ns measured while connecting (the slowest probe): derives the
 *  request timeout, the loss time and stale_ms where the keys did not set them (see the
 *  file comment). RT-safe: yes. Thread: I/O. */
RTC_RT_SAFE void rtc_drv_link_measured(rtc_drv_base *b, int64_t rtt_ns);
/** The request timeout in force (timeout_ms, or derived; before a measurement: timeout_ms
 *  or half the period). RT-safe: yes. Thread: any. */
RTC_RT_SAFE int64_t rtc_drv_timeout_ns(rtc_drv_base *b);
/** Set the peer or endpoint the link is reported with ("127.0.0.1:1503"), at open or in
 *  begin. RT-safe: no. Thread: open or the I/O thread's begin. */
void rtc_drv_link_address(rtc_drv_base *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/** True while the engine holds what goes to the bench (rtc_driver_config.hold, until
 *  rtc_link_release()): send no TO_BENCH value. RT-safe: yes. Thread: any. */
RTC_RT_SAFE bool rtc_drv_held(rtc_drv_base *b);
/** The link's state now. RT-safe: yes. Thread: any. */
RTC_RT_SAFE rtc_link_state rtc_drv_link_state(rtc_drv_base *b);
/** rtc_driver_ops.link: the base's link. RT-safe: yes. */
RTC_RT_SAFE rtc_link *rtc_drv_link(void *self);

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

#endif
