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
 * ---- Settings keys (strings; numbers in C locale; booleans true/false/1/0) ----
 * Component keys common to all drivers:
 *   priority      I/O thread SCHED_FIFO priority 1..99; 0 = SCHED_OTHER   [default 20]
 *   stale_ms      age after which a FROM_BENCH value is flagged stale      [3 x period]
 *   safe_timeout_ms  limit of write_safe_values() when called by stop()     [500]
 *   heartbeat     "coil:<addr>" or "holding:<addr>" (Modbus) / OSC path: a watchdog
 *                 value changed every cycle                                 [none]
 *   heartbeat_mode  toggle (0/1) or count (0,1,2,... wraps at 65536)         [toggle]
 *
 * Modbus client (application/x-rtcosim-modbus-client), component keys:
 *   transport     tcp | rtu                                                 [tcp]
 *   host, port    TCP peer                                                  [127.0.0.1, 502]
 *   device, baud, parity (N|E|O), data_bits, stop_bits   RTU line  [-, 19200, N, 8, 1]
 *   unit_id       Modbus unit / slave id                                    [1]
 *   poll_ms       poll and write period                                     [10]
 *   timeout_ms    response timeout; must be below poll_ms                   [poll_ms/2]
 *   write_mode    on_change | cycle (to-bench outputs)                      [on_change]
 *   reconnect_min_ms, reconnect_max_ms  backoff bounds (doubling, +-25% jitter) [100, 5000]
 *   max_gap       registers of unmapped gap a read batch may span           [0]
 * Modbus server (application/x-rtcosim-modbus-server), component keys:
 *   transport, device, baud, parity, data_bits, stop_bits, unit_id   as above
 *   bind, port    TCP listen address; port 0 = ephemeral (see stats.port)   [127.0.0.1, 502]
 *   max_clients   simultaneous TCP clients; at the limit the connection idle the
 *                 longest (idle at least frame_timeout_ms) yields to a new one   [8]
 *   frame_timeout_ms  a request must arrive whole within this from its first byte,
 *                 else its connection is closed                             [500]
 *   idle_timeout_ms   a connection without a byte for this long is closed; 0 = never
 *                                                                           [60000]
 *   update_ms     period of copying outputs into the register map           [1]
 * Modbus per-signal keys (the register map):
 *   table         coil | discrete | holding | input. FROM_BENCH on the client may use all
 *                 four; TO_BENCH on the client needs coil|holding. On the server TO_BENCH
 *                 (outputs a PLC reads) may use all four, FROM_BENCH (a PLC writes) needs
 *                 coil|holding.                              [holding; coil for bool]
 *   address       0-based PDU address of the first coil/register (0..65535)  [required]
 *   type          bool | int16 | uint16 | int32 | uint32 | float32 | int64 | uint64 | float64
 *                 (registers used: 1, 1, 1, 2, 2, 2, 4, 4, 4; bool in a register is 0/1)
 *                 [bool for coil/discrete; else from the signal's rtc_type, FLOAT64->float32]
 *   word_order    big (most significant word at the lowest address) | little     [big]
 *   byte_swap     swap the two bytes inside each register                   [false]
 *   scale, offset engineering = raw * scale + offset                        [1, 0]
 *   min, max      clamp of the engineering value (counted in health.clamped)  [none]
 *   safe          safe value (TO_BENCH) written by write_safe_values()       [none: untouched]
 * OSC (application/x-rtcosim-osc), component keys:
 *   port          UDP port to receive on; 0 = ephemeral (see stats.port)     [0]
 *   bind          127.0.0.1 accepts loopback senders only (liblo 0.31 binds every
 *                 interface, so this is enforced by sender filtering); 0.0.0.0 accepts any
 *                                                                            [127.0.0.1]
 *   allow         comma-separated sender IPv4 addresses; when set, only these  [none]
 *   targets       comma-separated host:port list that outbound bundles go to  [none]
 *   rate_hz       outbound stream rate                                       [50]
 *   timetag_bound_s  a bundle timetag farther than this from the arrival (future or
 *                 past) is replaced by the arrival, counted in timetags_clamped  [1]
 * OSC per-signal keys:
 *   path          OSC address pattern-free path, e.g. /plant/setpoint        [/<name>]
 *   osc_type      outbound argument type f | d | i                           [f]
 *   min, max      inbound clamp (clamped and counted)                        [none]
 *   safe          value streamed once by write_safe_values()                 [none]
 */
#ifndef RTCOSIM_DRIVER_H
#define RTCOSIM_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/log.h"
#include "rtcosim/mailbox.h"
#include "rtcosim/unit.h"
#include "rtcosim/model.h"

/** SSP component types of the built-in drivers. */
#define RTC_DRIVER_TYPE_MODBUS_CLIENT "application/x-rtcosim-modbus-client"
#define RTC_DRIVER_TYPE_MODBUS_SERVER "application/x-rtcosim-modbus-server"
#define RTC_DRIVER_TYPE_OSC "application/x-rtcosim-osc"


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
    const rtc_kv *settings; /**< per-signal keys (see the table above) */
    size_t n_settings;
    rtc_mailbox *mailbox;   /**< caller-owned; must outlive the driver */
} rtc_io_signal;

/** Everything a driver is opened with. Strings and arrays are only read during open(). */
typedef struct rtc_driver_config {
    const char *component;  /**< SSP component name, used in log messages */
    const rtc_kv *settings; /**< component keys */
    size_t n_settings;
    const rtc_io_signal *signals;
    size_t n_signals;
} rtc_driver_config;

/* ---- request latency histogram (log-linear) ---- */

/** Linear sub-bins per power of two. */
#define RTC_LATHIST_SUB 8
/** Powers of two covered: bin 0 holds [0, 1024) ns; the last octave starts at 2^(10+N-1). */
#define RTC_LATHIST_OCTAVES 30
#define RTC_LATHIST_BINS (1 + RTC_LATHIST_SUB * RTC_LATHIST_OCTAVES)

/** A snapshot of a latency histogram: counts per bin plus exact min/max/mean. */
typedef struct rtc_lathist {
    uint64_t count[RTC_LATHIST_BINS];
    uint64_t n;     /**< total samples */
    int64_t min_ns; /**< 0 when n == 0 */
    int64_t max_ns;
    int64_t sum_ns; /**< for the mean */
} rtc_lathist;

/** Bin index of a latency (negative counts as 0). RT-safe: yes. */
RTC_RT_SAFE size_t rtc_lathist_bin(int64_t ns);

/** Lower bound in ns of bin @p bin (bin < RTC_LATHIST_BINS). RT-safe: yes. */
RTC_RT_SAFE int64_t rtc_lathist_bin_lower_ns(size_t bin);

/** Add one sample to a single-threaded histogram. RT-safe: yes. */
RTC_RT_SAFE void rtc_lathist_add(rtc_lathist *h, int64_t ns);

/**
 * Upper bound of the bin that holds the @p q quantile (0 < q <= 1), clipped to max_ns.
 * Returns 0 for an empty histogram. RT-safe: yes.
 */
RTC_RT_SAFE int64_t rtc_lathist_quantile_ns(const rtc_lathist *h, double q);

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

/** Counters of one driver, copied out by rtc_driver_ops.stats(). */
typedef struct rtc_driver_stats {
    uint64_t cycles;      /**< I/O loop iterations */
    uint64_t overruns;    /**< cycles that started after their deadline */
    uint64_t requests;    /**< Modbus requests sent/served, OSC messages received */
    uint64_t errors;      /**< failed requests other than timeouts and exceptions */
    uint64_t timeouts;    /**< requests without a response in time */
    uint64_t exceptions;  /**< Modbus exception responses (received or sent) */
    uint64_t reconnects;  /**< successful re-connections after a failure */
    uint64_t connects;    /**< every successful connection (client) / accepted client */
    uint64_t malformed;   /**< OSC: undecodable packets, wrong argument types */
    uint64_t unknown;     /**< OSC: messages for unmapped paths */
    uint64_t rejected;    /**< writes refused: disallowed sender, read-only register */
    uint64_t sent;        /**< OSC: bundles sent (per target) */
    uint64_t safe_writes; /**< completed write_safe_values() */
    int port;             /**< bound TCP/UDP port (servers, OSC), else 0 */
    bool connected;       /**< client: link up; server: at least one peer */
    rtc_lathist latency;  /**< per request (client: request->response; server: receive->
                               reply sent; OSC out: one bundle send) */
    rtc_signal_health *signals; /**< in: caller's array; out: filled up to n_signals_cap */
    size_t n_signals_cap;       /**< in: capacity of signals */
    size_t n_signals;           /**< out: the driver's signal count */
    /* Modbus server: request checks and connection hygiene (0 for the other drivers) */
    uint64_t write_refused;   /**< write requests refused with exception 02 (any target not
                                   mapped as a from-bench signal), whatever the function code */
    uint64_t fc_unsupported;  /**< requests with a function code not served (exception 01) */
    uint64_t bad_requests;    /**< malformed requests: length, byte count or quantity wrong
                                   (exception 03), or a broken MBAP header (connection closed) */
    uint64_t frame_timeouts;  /**< connections closed: a request not complete in frame_timeout_ms */
    uint64_t idle_closed;     /**< connections closed after idle_timeout_ms without a byte */
    uint64_t evicted;         /**< idle connections closed to admit a new one at max_clients */
    uint64_t clients_refused; /**< connections refused at max_clients with none idle */
    int clients;              /**< TCP connections open now */
    int clients_max;          /**< most TCP connections open at once */
    uint64_t timetags_clamped;  /**< OSC: bundle timetags farther than timetag_bound_s
                                     from arrival, replaced by the arrival time */
} rtc_driver_stats;

/* ---- the driver vtable ---- */

/** Operations of a driver; every function pointer is set. See the file comment. */
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
    /** Copy the counters (lock-free snapshot; counters may advance between fields).
     *  Returns RTC_OK. RT-safe: no (copies ~2 KiB). Thread: any. */
    int (*stats)(void *self, rtc_driver_stats *out);
} rtc_driver_ops;

/* ---- factory registry (by SSP component type) ---- */

/** Most driver types the registry holds. */
#define RTC_DRIVER_MAX_TYPES 16

/**
 * Register @p ops for SSP component type @p type (both must be static). Registering the
 * same type again replaces the entry.
 * Returns RTC_OK, RTC_EINVAL (NULL), RTC_ELIMIT (registry full).
 * RT-safe: no. Thread: main thread during load, before any lookup from other threads.
 */
int rtc_driver_register(const char *type, const rtc_driver_ops *ops);

/** The ops registered for @p type, or NULL. RT-safe: yes. Thread: any, after registration. */
const rtc_driver_ops *rtc_driver_find(const char *type);

/** True when @p type names an I/O component type ("application/x-rtcosim-..."), registered
 *  or not (for diagnostics). RT-safe: yes. */
bool rtc_driver_is_io_type(const char *type);

/* ---- helpers for implementations and callers ---- */


/** CLOCK_MONOTONIC now in ns (the time base of mailbox samples). RT-safe: yes (vDSO). */
RTC_RT_SAFE int64_t rtc_driver_now_ns(void);

/** Name of a quality value: "none", "fresh", "stale", "error". RT-safe: yes. */
const char *rtc_quality_name(int quality);

#endif
