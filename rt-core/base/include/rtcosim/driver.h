/*
 * rtcosim/driver.h — the driver interface: anything that exchanges signals with the
 * outside world (a Modbus client polling I/O modules, a Modbus server a PLC polls, OSC).
 *
 * rt-core declares this interface and the factory registry; io-drivers implements the
 * drivers and registers them (DESIGN.md dependency direction). A driver is a const vtable
 * (rtc_driver_ops, like libmodbus' modbus_backend_t) plus an opaque object:
 *
 *   load:  open(config) parses the settings and computes the signal -> register/offset/
 *          scale map once (this is "configure"); all buffers are sized here.
 *   arm:   start() spawns the driver's own I/O thread (SCHED_FIFO at the configured
 *          priority when permitted, else SCHED_OTHER with one warning per process).
 *   run:   the I/O thread talks to the bench and exchanges samples with the RT loop only
 *          through the per-signal mailboxes of the config (rtcosim/mailbox.h). The RT
 *          thread never calls a driver operation.
 *   stop:  stop() joins the thread; write_safe_values() puts the bench in its safe state
 *          (callable on every stop path, from any non-RT thread); close() frees.
 *
 * Signals: a TO_BENCH signal is written by the RT loop into its mailbox and sent to the
 * bench by the driver; a FROM_BENCH signal is received by the driver and published in its
 * mailbox with sample/arrival timestamps and quality (fresh/stale/error).
 *
 * Settings: a driver reads its own component and signal keys (string key/values of the
 * SSP annotation, rtc_kv) and documents them where it is implemented — the built-in
 * drivers in io-drivers (rtcosim/iodrivers.h). The I/O unit (rtcosim/io_unit.h) reads the
 * per-signal "estimator"/"params" keys itself. A driver runs its I/O thread through the
 * engine's one thread creator (rtcosim/rt.h) with the priority and CPU it is configured
 * with.
 *
 * Statistics: rtc_driver_stats has a generic part every driver fills in the same sense
 * and a list of named driver-specific counters under the driver's kind, which reports
 * (summary.json) show without knowing the driver.
 *
 * Implementing: rtcosim/driver_base.h holds what every driver does (common keys, the I/O
 * thread and its loop, stop, the safe-value hand-off, backoff, link state, counters,
 * stats); a driver embeds it first and implements open() and a few hooks, and its ops
 * table points start/stop/write_safe_values/close/stats at the base. The skeleton driver
 * (io-drivers/src/drv_skeleton.c) is the template. A new driver registers its vtable and
 * touches nothing in rt-core.
 */
#ifndef RTCOSIM_DRIVER_H
#define RTCOSIM_DRIVER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/hist.h"
#include "rtcosim/lockstep.h"
#include "rtcosim/log.h"
#include "rtcosim/mailbox.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/unit.h" /* rtc_kv */
#include "rtcosim/model.h"
#include "rtcosim/rtsafe.h"


/** Direction of a signal, seen from the engine. */
typedef enum {
    RTC_IO_TO_BENCH = 0,   /**< engine output: RT loop writes the mailbox, driver sends */
    RTC_IO_FROM_BENCH = 1, /**< engine input: driver receives and writes the mailbox */
} rtc_io_dir;

/** One signal of an I/O component (an SSP connector). */
typedef struct rtc_io_signal {
    const char *name;       /**< connector name */
    rtc_type type;          /**< engine-side type; the mailbox always carries a double */
    rtc_io_dir dir;
    const rtc_kv *settings; /**< per-signal keys (the driver's own) */
    size_t n_settings;
    rtc_mailbox *mailbox;   /**< caller-owned; must outlive the driver */
} rtc_io_signal;

/**
 * What the engine wrote to the bench last: after each batch of TO_BENCH values it wrote
 * (one per value type and tick, the batches of a tick microseconds apart, all stamped
 * with the tick's time), it stores their logical time (ns from the start) in t_ns and
 * bumps seq, waking a thread asleep on seq (rtc_rt_wait_change_until with
 * &waiters, rtcosim/rt.h) — a driver that sends as soon as the values are there (a node
 * bridge in real time) sleeps on it instead of polling. The driver may bump seq too, to
 * wake its own thread. Owned by the caller.
 */
typedef struct rtc_driver_tx {
    _Atomic uint32_t seq, waiters;
    _Atomic int64_t t_ns;
} rtc_driver_tx;

/** Everything a driver is opened with. Strings and arrays are only read during open(). */
typedef struct rtc_driver_config {
    const char *component;  /**< SSP component name, used in log messages */
    const rtc_kv *settings; /**< component keys */
    size_t n_settings;
    const rtc_io_signal *signals;
    size_t n_signals;
    /** The I/O unit's lock-step channel (rtcosim/lockstep.h), sized for the signals of
     *  each direction, disabled; a driver that runs its link lock-step enables it in
     *  open() and then exchanges rounds through it instead of the mailboxes. NULL when
     *  the caller offers none. Owned by the caller; must outlive the driver. */
    rtc_lockstep *lockstep;
    /** Where the engine says it wrote to the bench (rtc_driver_tx); NULL when the caller
     *  does not. Owned by the caller; must outlive the driver. */
    rtc_driver_tx *tx;
    const char *source;     /**< the component's source file (resolved path; a DCP
                                 slave's .dcpx), NULL when it has none */
    bool hold;              /**< send nothing to the bench until rtc_link_release() (the
                                 engine releases at the run's first tick, so a run refused
                                 before t0 has written no bench value) */
} rtc_driver_config;

/* ---- statistics ---- */

/** Health of one signal. */
typedef struct rtc_signal_health {
    uint8_t quality;      /**< rtc_quality of the last published state */
    uint64_t updates;     /**< samples published (FROM_BENCH) or sent (TO_BENCH) */
    uint64_t stale_events;/**< transitions into STALE */
    uint64_t errors;      /**< exception responses / type errors touching this signal */
    uint64_t clamped;     /**< values clamped to min/max or to the register type's range */
    int64_t last_ns;      /**< arrival time of the last good value (0: none) */
} rtc_signal_health;

/**
 * State of a driver's link to its peer (rtc_driver_stats.link), as the link contract of
 * DESIGN.md T2 sees it (rtcosim/driver_base.h keeps it; the keys are in iodrivers.h):
 * a link is up while fresh exchanges come within its loss time, and lost when the peer
 * is gone or nothing fresh came for the loss time.
 */
typedef enum rtc_link_state {
    RTC_LINK_IDLE = 0,   /**< the driver is not running */
    RTC_LINK_CONNECTING, /**< running, never up yet: a client connecting and measuring its
                              round trip, a server waiting for its first client, a receiver
                              waiting for its first datagram */
    RTC_LINK_UP,         /**< up: connected (client), a peer (server), datagrams arriving
                              (receiver), fresh within the loss time */
    RTC_LINK_LOST,       /**< was up and is not: the peer is gone, or nothing fresh came
                              for the loss time; on_loss (estimate:T or stop) judges it */
    RTC_LINK_LATE,       /**< up, but nothing fresh for more than half the loss time */
    RTC_LINK_DEGRADED,   /**< running without it, flagged: lost under on_loss=continue, or
                              optional and not up within connect_ms */
} rtc_link_state;

/** What a run does when a link is lost (the component key on_loss). */
typedef enum rtc_link_policy {
    RTC_LINK_ESTIMATE = 0, /**< estimate:T — the estimators extrapolate at most T, then the
                                run stops with the safe state */
    RTC_LINK_STOP,         /**< stop — the run stops with the safe state at once */
    RTC_LINK_CONTINUE,     /**< continue — the run goes on, the link flagged degraded */
} rtc_link_policy;

/**
 * A link's contract and how it has held (rtc_driver_stats.contract). Times are
 * CLOCK_MONOTONIC ns, durations ns; outages count from the first time up.
 */
typedef struct rtc_link_info {
    bool required;         /**< required: the run does not start without it */
    rtc_link_policy on_loss;
    int64_t estimate_ns;   /**< on_loss estimate:T: T */
    int64_t connect_ns;    /**< connect_ms: the deadline from start(); < 0: none */
    int64_t loss_ns;       /**< loss time in force: nothing fresh for this long is a loss
                                (0: only the peer going away is) */
    int64_t timeout_ns;    /**< request timeout in force (0: the driver sends no requests) */
    bool derived;          /**< loss_ns / timeout_ns derived from the period and rtt_ns, not
                                set by loss_ms / timeout_ms */
    int64_t rtt_ns;        /**< round trip measured while connecting (the slowest of the
                                probes; 0: not measured) */
    const char *address;   /**< the peer or endpoint, e.g. "127.0.0.1:1503" ("" unknown);
                                valid while the driver is open */
    const char *error;     /**< why the link last failed (a static text), NULL: never */
    const char *lost_why;  /**< why the last outage began (static), NULL: none yet */
    int64_t start_ns;      /**< start() (0: never started) */
    int64_t first_up_ns;   /**< first time up (0: never) */
    int64_t lost_ns;       /**< when the current outage began (0: none) */
    uint64_t outages;      /**< outages so far, the current one included */
    int64_t outage_total_ns, outage_max_ns; /**< the current one counts up to now */
    int64_t up_ns;         /**< time up or late since start() */
    int64_t run_ns;        /**< time since start() (up to stop()) */
    int64_t end_ns;        /**< now, or stop() (the end of run_ns) */
} rtc_link_info;

/** The share of the time since @p c was first up that it was up (or late), 0..1; -1
 *  when it never was. RT-safe: yes. */
RTC_RT_SAFE double rtc_link_up_share(const rtc_link_info *c);

/** Most driver-specific counters a driver reports (rtc_driver_stats.counters). */
#define RTC_DRIVER_MAX_COUNTERS 16

/** One driver-specific counter: what only this kind of driver counts (a Modbus server's
 *  refused writes, OSC's malformed packets). Names are static strings of [a-z0-9_], so a
 *  report can use them as keys. */
typedef struct rtc_driver_counter {
    const char *name;
    uint64_t value;
} rtc_driver_counter;

/**
 * Counters of one driver, copied out by rtc_driver_ops.stats(). The generic part means
 * the same for every driver (a driver that has no such event leaves it 0); what only one
 * kind of driver counts is in counters[], under that driver's @p kind, so a new driver
 * reports its own counters without a change here, and a report shows each driver only
 * the counters it has.
 */
typedef struct rtc_driver_stats {
    uint64_t cycles;      /**< I/O loop iterations */
    uint64_t overruns;    /**< cycles that started after their deadline */
    uint64_t requests;    /**< exchanges with the bench: requests sent or served, messages
                               received */
    uint64_t errors;      /**< failed exchanges other than timeouts */
    uint64_t timeouts;    /**< requests without a response in time */
    uint64_t reconnects;  /**< successful re-connections after a failure */
    uint64_t connects;    /**< every successful connection (client) / accepted peer */
    uint64_t rejected;    /**< writes refused: disallowed sender, read-only target */
    uint64_t safe_writes; /**< completed write_safe_values() */
    int port;             /**< bound TCP/UDP port (servers, OSC), else 0 */
    bool connected;       /**< link is RTC_LINK_UP or RTC_LINK_LATE (client: connected;
                               server: a peer; receiver: datagrams came) */
    rtc_hist_summary latency; /**< per exchange in ns (client: request->response; server:
                                   receive->reply sent; OSC out: one bundle send) */
    rtc_signal_health *signals; /**< in: caller's array; out: filled up to n_signals_cap */
    size_t n_signals_cap;       /**< in: capacity of signals */
    size_t n_signals;           /**< out: the driver's signal count */
    const char *kind;           /**< out: the group name of counters[], [a-z0-9_]
                                     (e.g. "modbus_server"); NULL when n_counters is 0 */
    rtc_driver_counter counters[RTC_DRIVER_MAX_COUNTERS]; /**< out: driver-specific */
    size_t n_counters;                                    /**< out: entries of counters */
    rtc_link_state link;  /**< out: the link's state now */
    int64_t link_since_ns; /**< out: when it entered that state (CLOCK_MONOTONIC; 0: never
                                started) */
    rtc_link_info contract; /**< out: the link contract and how it held */
} rtc_driver_stats;

/**
 * The driver-specific counter @p name of @p st into @p value.
 * Returns true, or false (value untouched) when the driver reports no such counter.
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE bool rtc_driver_stats_counter(const rtc_driver_stats *st, const char *name,
                                          uint64_t *value);

/* ---- the driver vtable ---- */

typedef struct rtc_link rtc_link; /* a driver's link: rtcosim/driver_base.h */

/** Operations of a driver; every function pointer is set but describe and link (optional).
 *  See the file comment. */
typedef struct rtc_driver_ops {
    const char *name; /**< short name for messages, e.g. "modbus-client" */
    /**
     * Parse @p cfg, validate and compute the signal map, allocate every buffer. Nothing
     * connects yet. Errors are logged through @p lg (which must outlive the driver) with
     * the component, signal and key named. Returns RTC_OK, RTC_EINVAL (bad settings),
     * RTC_ENOMEM. RT-safe: no. Thread: any non-RT.
     */
    int (*open)(const rtc_driver_config *cfg, const rtc_logger *lg, void **self);
    /** Spawn the I/O thread. Returns RTC_OK, RTC_ESTATE (running), RTC_ESYS. RT-safe: no. */
    int (*start)(void *self);
    /** Ask the I/O thread to end and join it (a no-op when not running); the thread writes
     *  the safe values on its way out when any are configured. RT-safe: no. */
    int (*stop)(void *self);
    /**
     * Write the configured safe values to the bench now and latch them (later cycles do not
     * overwrite them with mailbox values until the next start()). Runs in the I/O thread
     * when it is running (this call waits for it), else in the caller's thread.
     * Returns RTC_OK, RTC_EIO (bench unreachable or refused), RTC_ETIME (not done within
     * @p timeout_ms). RT-safe: no. Thread: any non-RT thread.
     */
    int (*write_safe_values)(void *self, int timeout_ms);
    /** Stop if running and free everything; NULL is a no-op. RT-safe: no. */
    void (*close)(void *self);
    /** Copy the counters (lock-free snapshot; counters may advance between fields);
     *  out->signals / n_signals_cap are the caller's. Returns RTC_OK, RTC_EINVAL (NULL).
     *  RT-safe: no (copies ~2 KiB). Thread: any. */
    int (*stats)(void *self, rtc_driver_stats *out);
    /** Optional (NULL: nothing to say): what the driver talks to and how, as it was opened —
     *  a few lines ('\n'-separated, no trailing newline) for `rtcosim info` and `check`,
     *  written into @p buf (@p cap bytes, NUL-terminated, truncated to fit). Returns the
     *  length written. RT-safe: no. Thread: any, after open(). */
    size_t (*describe)(void *self, char *buf, size_t cap);
    /** The link's live state for the contract checks (the RT thread reads it every tick:
     *  rtc_link_must_stop()), valid from open() to close(); NULL (or a NULL op): the
     *  driver has no contract. RT-safe: yes. Thread: any. */
    rtc_link *(*link)(void *self);
} rtc_driver_ops;

/* ---- factory registry (by SSP component type) ---- */

/** Most driver types the registry holds. */
#define RTC_DRIVER_MAX_TYPES RTC_MAX_DRIVER_TYPES

/**
 * Register @p ops for SSP component type @p type (both must be static). Registering the
 * same type again replaces the entry.
 * Returns RTC_OK, RTC_EINVAL (NULL), RTC_ELIMIT (registry full).
 * RT-safe: no. Thread: main thread during load, before any lookup from other threads.
 */
int rtc_driver_register(const char *type, const rtc_driver_ops *ops);

/** The ops registered for @p type, or NULL. RT-safe: yes. Thread: any, after registration. */
RTC_RT_SAFE const rtc_driver_ops *rtc_driver_find(const char *type);

/**
 * The registered SSP component types, in registration order: up to @p cap of them into
 * @p types (static strings), so a program makes I/O units for every driver it linked
 * without naming them. Returns how many are registered. RT-safe: yes. Thread: any, after
 * registration.
 */
RTC_RT_SAFE size_t rtc_driver_types(const char **types, size_t cap);

/** True when @p type names an I/O component type ("application/x-rtcosim-..."), registered
 *  or not (for diagnostics). RT-safe: yes. */
RTC_RT_SAFE bool rtc_driver_is_io_type(const char *type);

/* ---- helpers for implementations and callers ---- */


/** Name of a quality value: "none", "fresh", "stale", "error". RT-safe: yes. */
RTC_RT_SAFE const char *rtc_quality_name(int quality);

/** Name of a link state: "idle", "connecting", "up", "lost", "late", "degraded".
 *  RT-safe: yes. */
RTC_RT_SAFE const char *rtc_link_state_name(int state);

/** @p c's on_loss as its key says it: "estimate:0.5s", "stop", "continue" into @p buf.
 *  Returns buf. RT-safe: no (formats). */
const char *rtc_link_policy_text(const rtc_link_info *c, char *buf, size_t cap);

/* ---- the link contract, checked by the engine (any thread, the RT thread included) ---- */

/** Where a link stands against its connect deadline (rtc_link_connect_check()). */
typedef enum rtc_link_connect {
    RTC_LINK_CONNECT_READY = 0, /**< up (or was), or optional: the run may start */
    RTC_LINK_CONNECT_WAIT,      /**< required, not up yet, its deadline still ahead */
    RTC_LINK_CONNECT_FAILED,    /**< required and not up by its deadline: refuse the run */
} rtc_link_connect;

/** Let a driver opened with rtc_driver_config.hold send to the bench from now on.
 *  RT-safe: yes (one atomic store). Thread: any. */
RTC_RT_SAFE void rtc_link_release(rtc_link *l);

/** Link @p l against its connect deadline at @p now_ns (CLOCK_MONOTONIC). RT-safe: yes.
 *  Thread: any. */
RTC_RT_SAFE rtc_link_connect rtc_link_connect_check(const rtc_link *l, int64_t now_ns);

/**
 * The loss policy of link @p l at @p now_ns: 0 while the run may go on (up, late, never
 * up, or lost under continue, or under estimate:T for less than T); else the
 * CLOCK_MONOTONIC time the link was lost (its on_loss is stop, or T has run out), and
 * the run must stop. A link whose driver stopped reporting (its I/O thread stuck) is
 * judged from its last fresh exchange. Reads atomics only. RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE int64_t rtc_link_must_stop(const rtc_link *l, int64_t now_ns);

#endif
