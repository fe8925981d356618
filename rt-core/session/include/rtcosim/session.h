/*
 * rtcosim/session.h — operator sessions: the session directory of a real-time run, the
 * operator command queue, the event log, and the recorded inputs that `rtcosim replay`
 * feeds back (DESIGN.md "Outputs of a run", "One communication step").
 *
 * A session directory holds results.csv, summary.json, timing.json, histogram.txt (written
 * by the caller) and, from this module:
 *   events.log   one line per event: "K T_S WALL SOURCE TEXT" — step index k (or "-"
 *                before the run), logical time in s, wall time (CLOCK_REALTIME, ISO-8601
 *                UTC with ms), a source word (operator, io, rt, unit, system, session)
 *                and the text. Written by non-RT threads under a mutex.
 *   inputs.bin   every external sample exactly as the RT loop consumed it and every
 *                operator command with the step at which it took effect (format below).
 *   system.ssd | system.ssp | system.fmu   a copy of the system file.
 *   fmus.sha256  "HASH  UNIT  PATH" per unit created from a file (an FMU), sha256 in hex.
 *   session.conf the command-line settings replay needs: "key=value" lines (system,
 *                source_dir, algorithm, step_ns, sync_step_ns, start_ns, stop_ns,
 *                iterate, tolerance, max_iterations, workers, decimation, record=NAME...).
 *
 * Threads. The RT thread calls rtc_session_hook() (installed as the executive's loop hook)
 * and the I/O units' tap; both only move fixed-size records through preallocated SPSC
 * rings and atomics. The control surfaces — the rtcosim command's OSC control surface and
 * HTTP panel (rt-core/surfaces), or an embedder's own — each on its own non-RT thread,
 * see the session through this header only: they call the operator functions
 * (rtc_session_set, _control, _check, _mark, _poll) and read the live state (_get,
 * _snapshot, _status_get, _progress_get, _io_info, _io_dirs, _var_info); one lock inside
 * the session serialises
 * the operator functions, so the command ring has a single producer at a time and every
 * surface takes the same path (same checks, same records, same replay). A writer thread
 * drains the inputs ring into inputs.bin, turns command records into events.log lines, and
 * watches the I/O components' counters (reconnects, link up/down, stale signals) for I/O
 * events. Nothing on the RT side blocks or formats; a full ring drops the record and counts
 * it (summary.json "session"; zero in normal runs).
 *
 * Operator commands take effect at a step boundary: every command the control thread
 * queued is applied on the RT thread before the next step (also while paused), and
 * recorded with that step index k. `set` writes an exposed variable; values beyond the
 * variable's range (declared min/max narrowed by the expose options) are clamped and the
 * clamp is logged; a variable with a rate limit approaches its target by at most
 * rate·tick per step; pause/resume/step/stop map to the executive's controls. The
 * dead-man (rtc_session_poll) puts every exposed variable with a safe value to it when
 * the control surface has been silent too long (applied immediately, no rate limit).
 *
 * Capabilities (`--control-allow LIST`, rtc_session_caps_parse): what the operator may do.
 * Reading (get, status, subscribe, unsubscribe) is always allowed. A system with I/O
 * components drives a real bench, so by default its operator may set, stop and mark but
 * neither pause nor single-step it (a paused bench sees frozen outputs, and steps are
 * what a bench sees as time passing); a system without I/O components allows every
 * command. An explicit list replaces the default. Single steps of a system with I/O
 * components are released one per period (paced like the run, never a burst); without
 * I/O they run at once. At most RTC_SESSION_MAX_STEPS steps may be outstanding.
 *
 * Exposed variables: "unit.variable[:min=X][:max=X][:rate=R][:safe=X]" (rtc:RealTime
 * expose="..." and `rtcosim run --expose`). Only variables rtc_system_check_settable()
 * accepts may be exposed.
 *
 * ---- inputs.bin (version 1, little-endian) ----
 *   header   0  char[8]  magic "RTCINPUT"
 *            8  u32      version (1)
 *           12  u32      header_bytes: offset of the first record (a multiple of 8)
 *           16  u32      record_bytes (40)
 *           20  u32      n_signals
 *           24  u32      n_vars
 *           28  u32      0
 *           32  i64      tick_ns (the base tick)
 *           40  i64      start_ns (the system's start time)
 *           48  signal table: n_signals x (u16 length + unit name, u16 length + signal
 *                            name), the I/O components' connectors in declaration order
 *               variable table: n_vars x (u16 length + expose entry "unit.var[:k=v]...")
 *               zero padding to header_bytes
 *   records (40 bytes each, k never decreasing):
 *            0  u8   kind: 1 sample, 2 command, 3 end
 *            1  u8   sample: quality (rtc_quality); command: op (1 set, 2 safe, 3 pause,
 *                    4 resume, 5 step, 6 stop)
 *            2  u16  0
 *            4  u32  sample: signal table index; set/safe: variable table index;
 *                    step: number of steps; otherwise 0
 *            8  i64  k: the step index — sample: the tick whose refresh consumed it;
 *                    command: the boundary before step k; end: the last tick reached
 *           16  f64  sample: value; set/safe: the value applied (after clamping)
 *           24  i64  sample: logical time the value was true (ns); command: k·tick
 *           32  i64  sample: logical arrival time (ns); command: the sender, IPv4
 *                    address << 16 | UDP port (0: the engine itself, e.g. the dead-man)
 *   Within one k, commands precede samples (commands are applied before the step's
 *   refresh). The end record is written when the session closes cleanly.
 */
#ifndef RTCOSIM_SESSION_H
#define RTCOSIM_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rtcosim/log.h"
#include "rtcosim/record.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/rtsafe.h"
#include "rtcosim/system.h"

struct rtc_exec;

/* ---- events.log ---- */

typedef struct rtc_events rtc_events;

/**
 * Create (truncate) @p path and write its header line. Lines logged through the event
 * log's loggers are also passed to @p tee (may be NULL) when its level admits them.
 * Returns RTC_OK, RTC_EIO (logged to @p tee) or RTC_ENOMEM. RT-safe: no.
 */
int rtc_events_open(const char *path, const rtc_logger *tee, rtc_events **out);

/** Flush, fsync and close (a failure not reported before is logged to the tee); NULL is
 *  a no-op. Every logger obtained from it must be unused by then. RT-safe: no. */
void rtc_events_close(rtc_events *ev);

/** errno of the first failed write of the event log (0: none); the file's path goes to
 *  @p path (capacity @p cap; may be NULL). RT-safe: no (takes the log's lock). */
int rtc_events_write_error(rtc_events *ev, char *path, size_t cap);

/**
 * A logger whose lines go to the event log with source word @p source (a static
 * string: "unit", "io", "rt", ...) and to the tee. At most 8 sources per event log.
 * Returns a pointer valid until rtc_events_close(), or NULL when the table is full.
 * RT-safe: no. Thread: any (the logger itself: any non-RT thread).
 */
const rtc_logger *rtc_events_logger(rtc_events *ev, const char *source);

/**
 * The newest event lines (at most RTC_EVENTS_TAIL are kept in memory) with a sequence
 * number above @p after, oldest first: @p fn gets each line (without the newline) under
 * the log's lock, so it must not log. Returns the newest sequence number (0: none yet).
 * For the HTTP panel's events feed: lines reach it without reading the file back.
 * RT-safe: no. Thread: any non-RT thread.
 */
#define RTC_EVENTS_TAIL 128
uint64_t rtc_events_tail(rtc_events *ev, uint64_t after,
                         void (*fn)(void *user, uint64_t seq, const char *line), void *user);

/** Append one event line. Thread: any non-RT thread. RT-safe: no. */
void rtc_events_add(rtc_events *ev, const char *source, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** Set the step index and tick used for the K and T_S fields of later lines (the RT
 *  hook updates it every step). RT-safe: yes (one relaxed atomic store). */
RTC_RT_SAFE void rtc_events_set_step(rtc_events *ev, int64_t k);
void rtc_events_set_clock(rtc_events *ev, int64_t start_ns, int64_t tick_ns);

/** Lines written so far. RT-safe: yes. */
RTC_RT_SAFE uint64_t rtc_events_count(const rtc_events *ev);

/** Lines a network peer caused (operator commands, marks and clamps, the dead-man's,
 *  set-points from I/O peers) that the log's rate limit kept out: 20 a second are
 *  written one by one, the rest counted into one line a second. RT-safe: yes.
 *  Thread: any. */
RTC_RT_SAFE uint64_t rtc_events_suppressed(const rtc_events *ev);

/* ---- the live session ---- */

typedef struct rtc_session rtc_session;

typedef struct rtc_session_options {
    const char *dir;             /**< the session directory (exists) */
    const char *system_path;     /**< the system file: copied into dir */
    const char *const *expose;   /**< exposed variables beyond the system file's */
    size_t n_expose;
    int64_t deadman_ns;          /**< 0: the file's deadman, else no dead-man */
    size_t inputs_ring;          /**< inputs records the ring holds (default 65536) */
    size_t command_ring;         /**< queued operator commands (default 256) */
    rtc_record *record;          /**< the recorded columns, for get/subscribe (may be NULL) */
    /** session.conf: the command line's overrides of the system, for replay */
    const rtc_system_options *sys_options;
    const char *const *record_names; /**< --record names (none: the default selection) */
    size_t n_record_names;
    long decimation;
    const char *node;            /**< a distributed run: this node (--node), else NULL */
    const char *const *places;   /**< its --place COMPONENT=NODE arguments */
    size_t n_places;
    unsigned caps;               /**< RTC_SESSION_CAN_* the operator has (see caps_given) */
    bool caps_given;             /**< false: rtc_session_caps_default() for the system */
    /** a failed write of inputs.bin or events.log: false (default) reports it and stops
     *  the run (rtc_exec_request_stop); true reports it and goes on */
    bool continue_on_write_error;
} rtc_session_options;

/**
 * Check the exposed variables a session of @p sys would have (the system file's, then
 * @p expose) exactly as rtc_session_new() does, without starting anything: what
 * `rtcosim check` runs. Returns RTC_OK, or the refusal with its one-line reason in @p err
 * (RTC_ENOTFOUND, RTC_EINVAL, RTC_ENOMEM). RT-safe: no.
 */
int rtc_session_check_expose(rtc_system *sys, const char *const *expose, size_t n_expose,
                             char *err, size_t cap);

/**
 * Arm a session for initialized system @p sys: parse and check the exposed variables
 * (logged, with the reason, when one cannot be set), copy the system file, hash every
 * FMU (fmus.sha256), write session.conf and the inputs.bin header, register the tap on
 * every I/O unit, allocate the rings and the snapshot, start the writer thread. Events go
 * to @p ev (must outlive the session).
 * Returns RTC_OK; RTC_EINVAL (a bad expose entry); RTC_EIO; RTC_ENOMEM; RTC_ESYS.
 * RT-safe: no.
 */
int rtc_session_new(rtc_system *sys, const rtc_session_options *o, rtc_events *ev,
                    rtc_session **out);

/** The executive whose pause/resume/step/stop the operator commands drive (before the
 *  run). RT-safe: no. */
void rtc_session_attach(rtc_session *s, struct rtc_exec *ex);

/**
 * The executive's loop hook (rtc_exec_options.hook, hook_user = the session): drains the
 * command queue at RTC_EXEC_AT_BOUNDARY, moves rate-limited variables at
 * RTC_EXEC_AT_STEP, publishes the snapshot of the recorded columns at
 * RTC_EXEC_AT_STEPPED. RT-safe: yes. Thread: the RT thread.
 */
RTC_RT_SAFE void rtc_session_hook(void *session, int at, int64_t k);

/**
 * End the session: stop the writer (draining everything), write the end record (@p end_k:
 * the tick index reached; negative: none), close inputs.bin, fill @p stats (may be NULL)
 * with the final counters and free. NULL is a no-op.
 * RT-safe: no. Thread: after the RT thread and the control thread stopped.
 */
struct rtc_session_stats;
void rtc_session_close(rtc_session *s, int64_t end_k, struct rtc_session_stats *stats);

/** Counters for summary.json. */
typedef struct rtc_session_stats {
    uint64_t inputs_written, inputs_dropped; /**< inputs.bin records (end record excluded) */
    uint64_t commands_applied, commands_dropped; /**< operator commands (queue full: dropped) */
    uint64_t events;                         /**< events.log lines */
    uint64_t events_suppressed;              /**< peer-caused lines only counted */
    size_t inputs_high_water;                /**< inputs ring high-water mark (records) */
    size_t n_exposed;
    /** "write error: FILE: reason" of the first failed write of inputs.bin or events.log
     *  (the writer thread's, reported at once), "" when none; filled by
     *  rtc_session_close() */
    char write_error[600];
} rtc_session_stats;

/** Snapshot of the counters. RT-safe: yes. Thread: any. */
RTC_RT_SAFE void rtc_session_stats_get(const rtc_session *s, rtc_session_stats *out);

/* ---- operator capabilities ---- */

/** What a control surface may do beyond reading (bits of rtc_session_options.caps). */
enum {
    RTC_SESSION_CAN_SET = 1u << 0,    /**< "set": exposed variables */
    RTC_SESSION_CAN_PAUSE = 1u << 1,  /**< "pause": pause and resume */
    RTC_SESSION_CAN_STEP = 1u << 2,   /**< "step": single steps while paused */
    RTC_SESSION_CAN_STOP = 1u << 3,   /**< "stop": end the run */
    RTC_SESSION_CAN_MARK = 1u << 4,   /**< "mark": annotations in events.log */
    RTC_SESSION_CAN_REMOTE = 1u << 5, /**< "remote": senders beyond loopback (the control
                                           surface binds 0.0.0.0) */
};

/** Most single steps outstanding (asked for, not yet run) at any time. */
#define RTC_SESSION_MAX_STEPS RTC_MAX_SINGLE_STEPS

/**
 * Parse a comma-separated capability list ("set,pause,step,stop,mark,remote"; "all" is the
 * first five; "none" or "" allows only reading) into RTC_SESSION_CAN_* bits.
 * Returns RTC_OK or RTC_EINVAL with "unknown capability 'x' (expected ...)" in @p err.
 * RT-safe: no.
 */
int rtc_session_caps_parse(const char *list, unsigned *caps, char *err, size_t cap);

/** The default capabilities: set,stop,mark with I/O components, else set,pause,step,stop,
 *  mark. RT-safe: yes. */
RTC_RT_SAFE unsigned rtc_session_caps_default(bool has_io);

/** "set,pause,..." for @p caps into @p buf ("none" when empty). RT-safe: no. */
void rtc_session_caps_text(unsigned caps, char *buf, size_t cap);

/** The session's capabilities, and whether its system has I/O components. RT-safe: yes. */
RTC_RT_SAFE unsigned rtc_session_caps(const rtc_session *s);
bool rtc_session_has_io(const rtc_session *s);

/**
 * Check that the session allows @p can (one RTC_SESSION_CAN_* bit) for command @p what;
 * when not, one line naming the missing capability in @p err and RTC_ESTATE.
 * RT-safe: no. Thread: any non-RT.
 */
int rtc_session_check(const rtc_session *s, unsigned can, const char *what, char *err,
                      size_t cap);

/* ---- operator functions: the control surfaces' threads (serialised inside) ---- */

/** Operator controls (the executive's). */
typedef enum {
    RTC_SESSION_PAUSE = 3,
    RTC_SESSION_RESUME = 4,
    RTC_SESSION_STEP = 5,
    RTC_SESSION_STOP = 6,
} rtc_session_control_op;

/**
 * Queue @p op (STEP: @p n steps, only while paused, at most RTC_SESSION_MAX_STEPS
 * outstanding) from @p origin (IPv4 << 16 | port; 0: the engine). Takes effect at the next
 * step boundary; a resume or stop drops the steps not yet run.
 * Returns RTC_OK; RTC_EINVAL or RTC_ESTATE (also: the capability is missing) with the
 * reason in @p err; RTC_ELIMIT (queue full). RT-safe: no. Thread: the control thread.
 */
int rtc_session_control(rtc_session *s, rtc_session_control_op op, long n, int64_t origin,
                        char *err, size_t cap);

/**
 * Queue a set of exposed variable @p name to @p value: clamped to its range (the clamp is
 * logged as an event); *applied receives the value that will be applied.
 * Returns RTC_OK; RTC_ENOTFOUND ("not exposed", in @p err); RTC_EINVAL (not a finite
 * number); RTC_ESTATE (no "set" capability); RTC_ELIMIT (queue full). RT-safe: no. Thread: the control thread.
 */
int rtc_session_set(rtc_session *s, const char *name, double value, int64_t origin,
                    double *applied, char *err, size_t cap);

/** One exposed variable as the operator may set it: its range (declared, narrowed by
 *  the expose entry), rate limit (units per simulated second) and dead-man safe value. */
typedef struct rtc_session_var {
    const char *name; /**< "unit.var", valid while the session lives */
    const char *unit; /**< the variable's unit (model description; an I/O component's
                           SSP connector), or NULL; valid while the session lives */
    bool has_min, has_max, has_rate, has_safe;
    double min, max, rate, safe;
} rtc_session_var;

/** Number of exposed variables. RT-safe: yes. Thread: any. */
RTC_RT_SAFE size_t rtc_session_vars(const rtc_session *s);

/** Exposed variable @p i into @p out (false: out of range). RT-safe: yes. Thread: any. */
RTC_RT_SAFE bool rtc_session_var_info(const rtc_session *s, size_t i, rtc_session_var *out);

/**
 * The newest published value of recorded column @p name and the tick index it belongs to.
 * Returns RTC_OK or RTC_ENOTFOUND (not a recorded column). RT-safe: yes (lock-free read).
 * Thread: any.
 */
RTC_RT_SAFE int rtc_session_get(rtc_session *s, const char *name, double *value, int64_t *k);

/** Index of recorded column @p name (-1: none), their count, and a column's value by
 *  index (for subscriptions). RT-safe: yes. */
RTC_RT_SAFE long rtc_session_column(const rtc_session *s, const char *name);
size_t rtc_session_columns(const rtc_session *s);
const char *rtc_session_column_name(const rtc_session *s, size_t i);
bool rtc_session_get_column(rtc_session *s, size_t i, double *value, int64_t *k);

/** Unit of recorded column @p i (as rtc_record_column_unit(): the variable's, or an I/O
 *  component's SSP connector unit), or NULL when it has none. RT-safe: yes. Thread: any. */
RTC_RT_SAFE const char *rtc_session_column_unit(const rtc_session *s, size_t i);

/**
 * The newest published step as one consistent row: every recorded column's value into
 * @p cols (rtc_session_columns() doubles), every exposed variable's value as its unit holds
 * it into @p values and the set-point it is moving to (the value itself unless a rate
 * limit is ramping it) into @p targets (rtc_session_vars() doubles each); any of the three
 * may be NULL. *k receives the step they belong to (-1: no step published yet; the
 * exposed variables then hold their values at arming). The RT hook publishes after every
 * step (a seqlock); a reader that keeps meeting a write in progress gives up.
 * Returns true, or false (nothing written) when the read did not succeed in 1000 tries —
 * the caller tries again at its next turn.
 * RT-safe: yes (lock-free, no allocation). Thread: any.
 */
RTC_RT_SAFE bool rtc_session_snapshot(rtc_session *s, double *cols, double *values,
                                      double *targets, int64_t *k);

/**
 * Wait until a step after tick @p after_k is published (the snapshot's k > @p after_k),
 * or until CLOCK_MONOTONIC @p deadline_ns. For a surface that follows the run step by step
 * (the DCP slave sends its outputs every communication step): the RT hook wakes it right
 * after publishing, with one FUTEX_WAKE while someone sleeps here.
 * Returns the newest published tick index: > @p after_k, or, at the deadline, what it was
 * (-1: nothing published yet; also at once when the session publishes no row).
 * RT-safe: no (sleeps). Thread: any non-RT.
 */
int64_t rtc_session_wait_step(rtc_session *s, int64_t after_k, int64_t deadline_ns);

/** Logical time of step @p k in seconds (absolute: start time + k·tick). RT-safe: yes. */
RTC_RT_SAFE double rtc_session_time_s(const rtc_session *s, int64_t k);

/** An operator mark: one events.log line "operator <origin text>: mark <text>".
 *  RT-safe: no. Thread: any non-RT. */
void rtc_session_mark(rtc_session *s, const char *text, const char *who);

/** Log an operator event (e.g. a rejected command) with the sender. RT-safe: no. */
void rtc_session_note(rtc_session *s, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** Status for /rtcosim/status. */
typedef struct rtc_session_status {
    double sim_time_s;      /**< logical time reached */
    int64_t k;              /**< tick index reached */
    double rtf;             /**< measured since the previous status call (or the start) */
    uint64_t overruns;
    double p99_wakeup_us;   /**< wake-up latency p99 */
    bool paused;
    char health[512];       /**< "name: STATE, stale N, reconnects N; ..." per I/O unit */
} rtc_session_status;

/** The event log the session writes to (rtc_session_new()'s @p ev), e.g. for a surface's
 *  feed of rtc_events_tail(). RT-safe: yes. Thread: any. */
RTC_RT_SAFE rtc_events *rtc_session_events(const rtc_session *s);

/** Fill @p out (rtf: measured since the previous call, by whichever surface made it).
 *  RT-safe: no. Thread: the control thread. */
void rtc_session_status_get(rtc_session *s, rtc_session_status *out);

/** The base tick in ns: the logical time between step k and k+1. RT-safe: yes.
 *  Thread: any. */
RTC_RT_SAFE int64_t rtc_session_tick_ns(const rtc_session *s);

/** The run's progress as the executive publishes it (rtc_session_status without the RTF
 *  and the health text). */
typedef struct rtc_session_progress {
    int64_t sim_time_ns;  /**< logical time reached since the start time, ns */
    double sim_time_s;    /**< logical time reached, start time included, s */
    int64_t k;            /**< tick index reached */
    uint64_t overruns;
    double p99_wakeup_us; /**< wake-up latency p99 so far */
    bool paused;
} rtc_session_progress;

/**
 * Fill @p out from the executive the session is attached to (before rtc_session_attach():
 * zeros, sim_time_s the start time). Unlike rtc_session_status_get() it takes no lock and
 * changes nothing, so a surface may call it at any rate and measure its own RTF.
 * RT-safe: no. Thread: any non-RT.
 */
void rtc_session_progress_get(const rtc_session *s, rtc_session_progress *out);

/** One I/O component's health, as the status text (health) says it, and its link
 *  contract (DESIGN.md T2; summary.json "links" has the same). */
typedef struct rtc_session_io {
    const char *name;        /**< the component's name, valid while the session lives */
    const char *link;        /**< the link's state: "connecting" (a client connecting, a
                                  server or an OSC input nobody has reached yet: waiting
                                  is not a fault), "up", "late", "lost", "degraded",
                                  "idle" (static text) */
    bool up;                 /**< the link is up (or late): a receive-only link is up once
                                  a peer has sent, and stays up while it is there */
    size_t signals;          /**< the component's connectors */
    unsigned stale;          /**< signals now stale or in error */
    uint64_t reconnects;
    uint64_t errors;         /**< failed requests, timeouts and Modbus exceptions */
    /* the link contract and how it held */
    const char *driver;      /**< "modbus-client", "modbus-server", "osc", "udp-frame" */
    const char *address;     /**< peer or endpoint ("127.0.0.1:1503"), valid while the
                                  session lives */
    bool required;           /**< the run does not start without it */
    char on_loss[48];        /**< "estimate:0.5s", "stop" or "continue" */
    double state_s;          /**< seconds in the current state */
    double first_connect_s;  /**< from the driver's start to its first time up; < 0: never */
    double connected_share;  /**< of the time since it was first up, the share it was up
                                  (or late), 0..1; < 0: never up */
    uint64_t outages;        /**< the one under way included */
    double outage_total_s, outage_longest_s;
    uint64_t requests, timeouts;
    double rtt_p50_ms, rtt_p99_ms, rtt_max_ms; /**< per exchange (0: none yet) */
    double timeout_ms, loss_ms; /**< in force (derived from the round trip unless set) */
    const char *error;       /**< why the link last failed (static text), NULL: never */
} rtc_session_io;

/**
 * One direction of an I/O component's link: "in" carries the peer's values to the engine
 * (FROM_BENCH signals), "out" the engine's to the peer (TO_BENCH). A receive-only link
 * (an OSC operator input) has no "out", and is up while it receives.
 */
typedef struct rtc_session_link_dir {
    size_t signals;     /**< the component's connectors in this direction (0: none) */
    /** The link's state under its contract (DESIGN.md T2, rtc_link_state_name()):
     *  "idle" (the driver is not running), "connecting" (never up yet), "up", "late"
     *  (nothing fresh for half the loss time, or up with a signal of this direction
     *  stale or in error), "lost", "degraded" (lost under on_loss=continue, or optional
     *  and not up within connect_ms). */
    const char *state;
    unsigned stale;     /**< signals of this direction now stale or in error */
    uint64_t updates;   /**< samples received (in) or values handed to the peer (out) */
    int64_t age_ns;     /**< since the last of them (CLOCK_MONOTONIC); -1: none yet */
} rtc_session_link_dir;

/**
 * Both directions of I/O component @p i into @p in and @p out (either may be NULL), from
 * its driver's counters at the time of the call.
 * Returns false when @p i is out of range (or the driver gives no counters).
 * RT-safe: no (asks the driver). Thread: any non-RT.
 */
bool rtc_session_io_dirs(const rtc_session *s, size_t i, rtc_session_link_dir *in,
                         rtc_session_link_dir *out);

/** Number of I/O components of the session's system. RT-safe: yes. Thread: any. */
RTC_RT_SAFE size_t rtc_session_io_count(const rtc_session *s);

/**
 * I/O component @p i (0 .. rtc_session_io_count() - 1, in declaration order) into @p out,
 * from its driver's counters at the time of the call.
 * Returns false when @p i is out of range (or the driver gives no counters).
 * RT-safe: no (asks the driver). Thread: any non-RT.
 */
bool rtc_session_io_info(const rtc_session *s, size_t i, rtc_session_io *out);

/**
 * One late value of the session's system and how its estimator is doing: an I/O signal
 * from the bench, or a connection with its own estimator (a transport delay). Figures come
 * from the estimator's coupling monitor (rtcosim/estimate.h rtc_est_get_monitor()): what it
 * supplied for each sample's time against that sample once it arrived.
 */
typedef struct rtc_session_estimate {
    char name[256];        /**< "bench.speed" (an I/O signal) or "a.y -> b.u" (a connection) */
    const char *estimator; /**< its method ("auto", "kalman-cv", ...) */
    const char *in_use;    /**< auto and kalman: the candidate in use now; else the method */
    uint64_t samples;      /**< samples compared so far */
    double error_rms, error_max; /**< prediction error, the value's units */
    double delay_p50_ms, delay_p99_ms; /**< sample delays (arrival - sample time) */
} rtc_session_estimate;

/** Late values of the session's system (I/O signals from the bench, then connections with
 *  their own estimator). RT-safe: no. Thread: any non-RT. */
size_t rtc_session_estimate_count(const rtc_session *s);

/**
 * Late value @p i (0 .. rtc_session_estimate_count() - 1) into @p out, its monitor read
 * now (each figure whole; the set approximately consistent while the run goes).
 * Returns false when @p i is out of range.
 * RT-safe: no. Thread: any non-RT.
 */
bool rtc_session_estimate_info(const rtc_session *s, size_t i, rtc_session_estimate *out);

/* ---- the nodes of a distributed real-time run (DESIGN.md T3) ---- */

/** Links one node's status holds. */
#define RTC_SESSION_NODE_LINKS 8

/** One link of a node (to node @c peer), as that node's bridge counts it. */
typedef struct rtc_session_node_link {
    char peer[48];
    const char *state;      /**< the link contract's word (rtc_link_state_name) */
    double latency_p50_ms, latency_p99_ms, latency_max_ms; /**< one way */
    uint64_t received, late, lost, duplicates, out_of_order; /**< samples */
} rtc_session_node_link;

/** One node as its last status says (every node of the run, this one included). */
typedef struct rtc_session_node {
    char name[48];
    bool self, leader, heard; /**< heard: a status came */
    const char *state;        /**< "joining", "ready", "running", "stopped", "lost" */
    double age_s;             /**< since its status came */
    int64_t k;                /**< tick reached */
    uint64_t overruns;
    double wakeup_p99_us;
    double clock_offset_ms;   /**< its clock minus the leader's */
    size_t n_links;
    rtc_session_node_link links[RTC_SESSION_NODE_LINKS];
} rtc_session_node;

/** Where the nodes' status comes from (the CLI: the control plane): up to @p cap nodes
 *  into @p out, returns how many. Called from any non-RT thread. */
typedef size_t (*rtc_session_nodes_fn)(void *user, rtc_session_node *out, size_t cap);

/** Set the source of rtc_session_nodes() (before surfaces read it). RT-safe: no. */
void rtc_session_set_nodes(rtc_session *s, rtc_session_nodes_fn fn, void *user);

/** Every node of a distributed run into @p out (at most @p cap); returns how many (0: the
 *  run is not distributed). RT-safe: no. Thread: any non-RT. */
size_t rtc_session_nodes(const rtc_session *s, rtc_session_node *out, size_t cap);

/**
 * The control surface heard from an operator (@p heard true) — or just time passing.
 * Checks the dead-man: when the surface has been silent for the dead-man time, every
 * exposed variable with a safe value is set to it (one event line); it re-arms when the
 * surface speaks again. Returns true when the fallback fired on this call.
 * RT-safe: no. Thread: the control thread.
 */
bool rtc_session_poll(rtc_session *s, bool heard);

/** The dead-man time in ns (0: none). RT-safe: yes. */
RTC_RT_SAFE int64_t rtc_session_deadman_ns(const rtc_session *s);

/* ---- reading inputs.bin (replay) ---- */

/** One record of inputs.bin, decoded. */
typedef struct rtc_inputs_rec {
    uint8_t kind, op;  /**< kind 1 sample (op: quality), 2 command (op), 3 end */
    uint32_t index;
    int64_t k;
    double value;
    int64_t a_ns, b_ns; /**< sample: sample/arrival logical ns; command: k·tick / origin */
} rtc_inputs_rec;

/** A decoded inputs.bin. */
typedef struct rtc_inputs {
    int64_t tick_ns, start_ns;
    size_t n_signals, n_vars;
    char **sig_unit, **sig_name; /**< n_signals each */
    char **var_spec;             /**< n_vars */
    rtc_inputs_rec *recs;
    size_t n_recs;
    bool has_end;
    int64_t end_k;
    int64_t progress_k; /**< the last progress record's k: records of the steps before it
                             are complete (−1: none; a session killed early) */
} rtc_inputs;

/**
 * Read and check @p path: magic, version, tables, whole records, k never decreasing,
 * indices inside the tables, known kinds and ops. A problem is one line in @p err
 * ("inputs.bin: record 12 at offset 528: step 7 after step 9 (out of order)").
 * Returns RTC_OK; RTC_EPARSE (err says why); RTC_EIO; RTC_ENOMEM. RT-safe: no.
 */
int rtc_inputs_read(const char *path, rtc_inputs *out, char *err, size_t cap);

/** Free what rtc_inputs_read() allocated. RT-safe: no. */
void rtc_inputs_clear(rtc_inputs *in);

/** Name of a command op ("set", "safe", "pause", "resume", "step", "stop"). */
const char *rtc_inputs_op_name(unsigned op);

/* ---- replay of recorded inputs and commands ---- */

typedef struct rtc_replay rtc_replay;

/**
 * Prepare a replay of @p in (which must outlive it): the feed for the replay I/O units
 * (rtc_io_unit_replay_factory). Returns RTC_OK or RTC_ENOMEM. RT-safe: no.
 */
int rtc_replay_new(const rtc_inputs *in, rtc_replay **out);
void rtc_replay_free(rtc_replay *r);
const struct rtc_io_sample_source *rtc_replay_feed(rtc_replay *r);

/**
 * After the system is loaded and initialized: check that every recorded signal is an I/O
 * signal of @p sys and resolve the recorded exposed variables. Returns RTC_OK or
 * RTC_EPARSE with one line in @p err. RT-safe: no.
 */
int rtc_replay_bind(rtc_replay *r, rtc_system *sys, char *err, size_t cap);

/**
 * Before step k: apply the commands recorded at k (set/safe exactly as live, rate limits
 * included; pause/resume/step/stop change nothing logical and are skipped) and move the
 * rate-limited variables. Returns RTC_OK or a unit's error. RT-safe: yes.
 */
RTC_RT_SAFE int rtc_replay_before_step(rtc_replay *r, int64_t k);

/** Samples recorded but never consumed (a replay that diverged in timing): 0 when every
 *  recorded sample was fed. */
size_t rtc_replay_unconsumed(const rtc_replay *r);

/* ---- helpers ---- */

/** "127.0.0.1:9000" for an origin (IPv4 << 16 | port), "engine" for 0. */
void rtc_session_origin_text(int64_t origin, char *buf, size_t cap);

/** ISO-8601 UTC CLOCK_REALTIME now with milliseconds, e.g. "2024-05-01T12:00:00.123Z". */
void rtc_session_wall_text(char *buf, size_t cap);

#endif
