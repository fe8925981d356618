/*
 * rtcosim/exec.h — the real-time executive: paces a system against the wall clock.
 *
 * The executive owns one real-time (RT) thread that steps a system (or, for benchmarks,
 * runs the bare pacing loop without one) at absolute deadlines on CLOCK_MONOTONIC:
 *
 *     deadline_j = t0 + j · period_ns,   period_ns = round(tick_ns / rtf)
 *
 * j is an integer step count; t0 is re-anchored on resume and moved by whole periods by
 * the skip policy. rtf is a double only to compute period_ns once: the period is rounded
 * to the nearest nanosecond, so a non-integer tick/rtf drifts from the ideal schedule by
 * less than 0.5 ns per step (rtf = 1 and integer divisors are exact).
 *
 * One step j (DESIGN.md, "one communication step"):
 *   1. sleep to deadline_j with clock_nanosleep(TIMER_ABSTIME) (optionally sleep to
 *      deadline_j − spin and busy-wait the rest); wake-up latency = now − deadline_j;
 *   2. rtc_system_step() (phase "step"; each unit's do_step is timed too);
 *   3. hand-off: a result row to the recorder ring every `decimation` ticks and a record
 *      to the latency trace ring (phase "handoff");
 *   4. overrun check: the step is late when it finished after deadline_{j+1}; it is
 *      counted, its lateness kept (max), its cause (the longest phase, and within "step"
 *      the slowest unit) logged through the rtlog ring, and the policy applied:
 *        catch-up  nothing: the next deadlines are already past, late steps run back to
 *                  back until the schedule is met again;
 *        skip      deadline_{j+1} moves by whole periods to the first one in the future;
 *                  logical time is unchanged (no tick is dropped), the gap is recorded;
 *        stop      after max_overruns consecutive overruns the run stops (safe state);
 *        substitute  every unit steps on its own thread and must be done a tenth of a
 *                  period before the next deadline; a unit that is not is left running,
 *                  its outputs extrapolated by its consumers until it catches up, while
 *                  the other units and the I/O stay on time (the system must have been
 *                  loaded or switched with the substitute option; per-unit do_step times
 *                  are not measured in this mode).
 *
 * Three phases: rtc_exec_new() allocates everything (histograms, rings, tables) — the
 * arm phase; rtc_exec_run() prepares the process (rtcosim/rt.h), starts the threads and
 * blocks until the run stops; during the run the RT thread keeps the real-time rules
 * (README, "Real-time rules"). Control requests (pause, resume, single step, stop, signals) are atomics
 * honoured at step boundaries. Every stop — the end, a unit's error, the overrun policy,
 * a signal, a request — takes one path: the RT thread leaves its loop, the executive
 * calls every registered safe-state callback once (drivers write their safe values)
 * and returns; the caller then stops the recorder, frees the system (units terminate) and
 * writes the summary. A watchdog thread (optional) notices an RT thread stuck in one
 * tick longer than watchdog_ns: it applies the safe state, calls on_watchdog (to write
 * what can be written) and exits the process with RTC_EXEC_WATCHDOG_EXIT — an FMU call
 * cannot be cancelled. A stop request (signal, request) is honoured even when a unit
 * never returns from its step: rtc_exec_run() waits stop_grace_ns for the step, then
 * abandons the RT thread (a CAS on its step mark: the thread parks forever if the unit
 * ever returns, touching nothing), applies the safe state and returns;
 * rtc_exec_abandoned() tells the caller, who must then end the process without freeing.
 * After each step the system's non-finite values (rtcosim/nonfinite.h) go to the rtlog
 * as numbers; stop_on_nonfinite ends the run on the first (RTC_EXEC_NONFINITE).
 * The link contract of the system's I/O components (rtcosim/driver.h, DESIGN.md T2): the
 * run waits before t0 for its required links up to their connect deadlines and does not
 * start (RTC_EXEC_LINK, no tick) when one is not up; at every step boundary the RT
 * thread asks each link's loss policy and stops the run (RTC_EXEC_LINK, the safe state
 * applied) when a lost link's estimate:T has run out, or at once under stop.
 *
 * Threads: the RT thread (SCHED_FIFO, pinned), a monitor thread (drains the rtlog and
 * the latency trace, draws the status line) and the watchdog; all but the caller's
 * block SIGINT/SIGTERM/SIGHUP so the application's handler runs on the caller's thread.
 */
#ifndef RTCOSIM_EXEC_H
#define RTCOSIM_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/hist.h"
#include "rtcosim/log.h"
#include "rtcosim/recorder.h"
#include "rtcosim/rt.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/rtsafe.h"
#include "rtcosim/system.h"

typedef struct rtc_exec rtc_exec;

/** Exit status of a process ended by the watchdog. */
#define RTC_EXEC_WATCHDOG_EXIT 3
/** Most safe-state callbacks one executive holds. */
#define RTC_EXEC_MAX_SAFE 16

typedef enum {
    RTC_EXEC_CATCH_UP = 0,
    RTC_EXEC_SKIP,
    RTC_EXEC_SUBSTITUTE, /**< late units left running, their outputs substituted */
    RTC_EXEC_STOP,
} rtc_exec_overrun;

/** Why a run stopped. */
typedef enum {
    RTC_EXEC_RUNNING = 0,
    RTC_EXEC_END,      /**< stop time or step count reached, or a unit ended the run */
    RTC_EXEC_ERROR,    /**< a unit's Error/Fatal (rtc_exec_stop_status() has it) */
    RTC_EXEC_OVERRUNS, /**< the stop policy: max_overruns consecutive overruns */
    RTC_EXEC_SIGNAL,   /**< rtc_exec_signal() (SIGINT/SIGTERM/SIGHUP handler) */
    RTC_EXEC_REQUEST,  /**< rtc_exec_request_stop() */
    RTC_EXEC_WATCHDOG, /**< the watchdog fired (the process then exits) */
    RTC_EXEC_NONFINITE, /**< a value became NaN/Inf and on_nonfinite is STOP */
    RTC_EXEC_LINK,     /**< the link contract (rtcosim/driver.h): a required I/O link not
                            up by its connect deadline (no tick ran), or a link lost past
                            its on_loss policy (rtc_exec_stats.stop_unit names it) */
} rtc_exec_stop;

/** Default of rtc_exec_options.stop_grace_ns: how long a stop request (signal, request)
 *  waits for a unit still inside its step before the run abandons it. */
#define RTC_EXEC_STOP_GRACE_NS 2000000000LL

/** Phase an overrun is blamed on (the longest of the late step). */
typedef enum {
    RTC_EXEC_PHASE_WAKEUP = 0, /**< woke up late (sleep/scheduling) */
    RTC_EXEC_PHASE_STEP,       /**< rtc_system_step(): the units */
    RTC_EXEC_PHASE_HANDOFF,    /**< recorder and trace rings */
} rtc_exec_phase;

/** A safe-state callback (an I/O driver writes its safe values). Called on a non-RT
 *  thread, once per run, on every kind of stop. */
typedef void (*rtc_exec_safe_fn)(void *user);

/** Points of the loop where rtc_exec_options.hook is called. */
enum { RTC_EXEC_AT_BOUNDARY = 0, RTC_EXEC_AT_STEP = 1, RTC_EXEC_AT_STEPPED = 2 };

typedef struct rtc_exec_options {
    double rtf;              /**< real-time factor, > 0 (default 1) */
    int64_t period_ns;       /**< without a system: the loop period (required); with a
                                  system: 0 = tick/rtf */
    int64_t max_steps;       /**< stop after this many steps (0: the system's stop time;
                                  required without a system) */
    int priority;            /**< SCHED_FIFO priority 1..99 (default 80); 0: SCHED_OTHER */
    int cpu;                 /**< CPU of the RT thread, -1: not pinned (default) */
    int64_t spin_ns;         /**< busy-wait the last spin_ns before each deadline (0) */
    rtc_exec_overrun overrun; /**< default catch-up */
    uint32_t max_overruns;   /**< stop policy: consecutive overruns that stop (default 3) */
    int64_t watchdog_ns;     /**< 0: no watchdog */
    int64_t stop_grace_ns;   /**< a stop request waits this long for the step under way;
                                  then the unit in it is abandoned (rtc_exec_hung_unit;
                                  default RTC_EXEC_STOP_GRACE_NS) */
    bool stop_on_nonfinite;  /**< a non-finite output stops the run (RTC_EXEC_NONFINITE);
                                  either way each is logged once (rtcosim/nonfinite.h) */
    bool lock_memory;        /**< rtc_rt_prepare_process() (default true) */
    bool hard;               /**< RT set-up failures are errors, not warnings (false) */
    size_t heap_reserve;     /**< bytes prefaulted into the heap (default 16 MiB) */
    size_t stack_bytes;      /**< RT thread stack (default 1 MiB; half is prefaulted) */
    size_t rtlog_depth;      /**< rtlog ring records (default RTC_RTLOG_DEPTH) */
    rtc_recorder *recorder;  /**< rows go here (NULL: none); must be in real-time
                                  (non-lossless) mode to keep the RT thread from waiting */
    long decimation;         /**< a row every n-th tick (default 1), as `rtcosim run` */
    const char *trace_path;  /**< per-step latency trace CSV, NULL: none (copied) */
    size_t trace_depth;      /**< trace ring records (default RTC_TRACE_DEPTH) */
    bool status_line;        /**< live status on stderr when it is a terminal */
    bool unit_timing;        /**< time each unit's work per tick: do_step, an I/O unit's
                                  refresh (default true; rtc_system_set_unit_clock()) */
    struct rtc_profile *profile; /**< every paced step's times go here too (NULL: none;
                                  rtcosim/profile.h, feasibility planning) */
    int64_t max_wall_ns;     /**< stop (as a stop request) this long after the run began,
                                  whatever the step count (0: no limit) */
    const rtc_logger *lg;    /**< messages (rtlog lines included); may be NULL */
    /** Called on the RT thread (so it must be RT-safe) at three points of the loop, with
     *  k = the system's tick index (the bare loop: the step count):
     *  RTC_EXEC_AT_BOUNDARY  every turn of the loop before the pause check — once per
     *                        step, and about every millisecond while paused (operator
     *                        commands are drained here: rtcosim/session.h);
     *  RTC_EXEC_AT_STEP      right before the step of tick k (paced or single);
     *  RTC_EXEC_AT_STEPPED   after the step and its hand-off (k is the new tick index).
     *  NULL: none. */
    void (*hook)(void *user, int at, int64_t k);
    void *hook_user;
    /** Called by the watchdog after the safe state, before the process exits. */
    void (*on_watchdog)(rtc_exec *ex, void *user);
    void *watchdog_user;
    /** Called on the caller's thread in rtc_exec_run(), after the process set-up and
     *  before the threads start: the CLOCK_MONOTONIC instant of logical time 0 agreed
     *  with other processes (a distributed run's start epoch, rtcosim/nodectl.h), which
     *  must lie ahead; 0 for the default (one period after the RT thread starts); or a
     *  negative rtc_status, which refuses the run (the callee said why). It may block
     *  while the processes agree; a stop asked meanwhile (rtc_exec_stop_requested) ends
     *  the run at its first boundary. NULL: the default. */
    int64_t (*start_at)(void *user, rtc_exec *ex);
    void *start_user;
    /** Appended to the status line (the monitor thread calls it about once a second):
     *  e.g. the I/O health and the session directory. NULL: nothing. */
    void (*status_extra)(void *user, char *buf, size_t cap);
    void *status_user;
} rtc_exec_options;

/** Summary of a run (a snapshot while it runs). */
typedef struct rtc_exec_stats {
    int64_t period_ns;
    uint64_t steps;              /**< steps executed (paced and single steps) */
    int64_t sim_time_ns;         /**< logical time reached, ns from the start */
    uint64_t overruns;
    uint64_t max_consecutive;    /**< longest run of consecutive overruns */
    int64_t max_lateness_ns;     /**< worst finish after deadline_{j+1} */
    uint64_t skipped_periods;    /**< skip policy: periods jumped over */
    int64_t gap_ns;              /**< skip policy: wall time jumped over */
    int64_t t0_monotonic_ns;     /**< CLOCK_MONOTONIC instant of logical time 0 (the first
                                      step's deadline) when the run began, 0 before: what
                                      maps another program's monotonic timestamps (a bench
                                      log) onto the run's time; each skip and resume moves
                                      it (timing.json "time_bases" lists every base) */
    long minor_faults, major_faults; /**< of the RT thread during the run; -1: unknown */
    rtc_hist_summary wakeup, step, handoff, slack;
    rtc_hist_summary busy;       /**< a paced step's work: step + handoff */
    uint64_t rtlog_dropped, trace_dropped, rows_dropped;
    const char *sched_policy;    /**< "SCHED_FIFO" / "SCHED_OTHER" ("" before the run) */
    int priority, cpu;
    rtc_rt_info rt;
    rtc_exec_stop stop;
    int stop_status;             /**< RTC_ERROR stop: the unit's status; RTC_EXEC_END:
                                      RTC_ETERMINATED when a unit ended the simulation */
    int stop_signal;             /**< RTC_EXEC_SIGNAL stop: the signal number */
    long stop_unit;              /**< RTC_EXEC_LINK stop: the I/O unit (system index), -1 */
    int64_t stop_lost_ns;        /**< RTC_EXEC_LINK stop: when its link was lost
                                      (CLOCK_MONOTONIC); 0: never up (refused before t0) */
} rtc_exec_stats;

/** Defaults (see each field). RT-safe: yes. */
RTC_RT_SAFE void rtc_exec_options_init(rtc_exec_options *o);

/** "catch-up", "skip", "substitute", "stop". RT-safe: yes. */
RTC_RT_SAFE const char *rtc_exec_overrun_name(rtc_exec_overrun p);
/** Parse an overrun policy name. Returns RTC_OK or RTC_EPARSE. RT-safe: yes. */
RTC_RT_SAFE int rtc_exec_overrun_parse(const char *name, rtc_exec_overrun *out);
/** "running", "completed", "error", "overruns", "signal", "stopped", "watchdog",
 *  "nonfinite", "link". */
const char *rtc_exec_stop_name(rtc_exec_stop s);
/** "wakeup", "step", "handoff". RT-safe: yes. */
RTC_RT_SAFE const char *rtc_exec_phase_name(rtc_exec_phase p);

/**
 * Arm: validate @p o, compute the period, allocate and touch every buffer. @p sys
 * (initialized, not yet stepped; may be NULL for the bare loop) must outlive the
 * executive; the executive installs its unit timer on it.
 * Returns RTC_OK; RTC_EINVAL (bad option: logged); RTC_EUNSUPPORTED (substitute policy on
 * a system not loaded with the substitute option: logged); RTC_ENOMEM. RT-safe: no.
 */
int rtc_exec_new(rtc_system *sys, const rtc_exec_options *o, rtc_exec **out);

/** Free (after rtc_exec_run returned, or without running); NULL is a no-op. Removes
 *  the unit timer from the system. RT-safe: no. */
void rtc_exec_free(rtc_exec *ex);

/**
 * Register a safe-state callback (before rtc_exec_run). Returns RTC_OK or RTC_ELIMIT
 * (more than RTC_EXEC_MAX_SAFE). RT-safe: no.
 */
int rtc_exec_add_safe(rtc_exec *ex, rtc_exec_safe_fn fn, void *user);

/**
 * Prepare the process, wait for the required I/O links, start the threads, pace the run
 * until it stops, apply the safe state. Blocks; may be called once per executive.
 * Returns RTC_OK (END, SIGNAL, REQUEST, NONFINITE, and an abandoned run: see
 * rtc_exec_abandoned); the unit's status (ERROR); RTC_ELIMIT (OVERRUNS); RTC_EIO (LINK);
 * -errno (a thread could not be started, or hard mode and the RT set-up failed);
 * start_at's refusal (the run did not start; the safe state was applied). RT-safe: no.
 * Thread: the caller's (should handle SIGINT/SIGTERM/SIGHUP).
 */
int rtc_exec_run(rtc_exec *ex);

/** Pause at the next step boundary. RT-safe: yes. Thread: any. */
RTC_RT_SAFE void rtc_exec_pause(rtc_exec *ex);
/** Resume: the schedule is re-anchored to now (no burst of catch-up steps).
 *  RT-safe: yes. Thread: any. */
RTC_RT_SAFE void rtc_exec_resume(rtc_exec *ex);
/** While paused: run one step at once (unpaced, not in the latency statistics).
 *  RT-safe: yes. Thread: any. */
RTC_RT_SAFE void rtc_exec_single_step(rtc_exec *ex);
/** A command for the loop hook was queued: a paused loop, which naps up to 1 ms between
 *  its looks at the hook, looks at once (an operator's single step, a DCP master's
 *  STC_do_step, runs without that nap). RT-safe: yes (one FUTEX_WAKE while the loop
 *  naps). Thread: any. */
RTC_RT_SAFE void rtc_exec_kick(rtc_exec *ex);
/** Stop at the next step boundary (RTC_EXEC_REQUEST). RT-safe: yes. Thread: any. */
RTC_RT_SAFE void rtc_exec_request_stop(rtc_exec *ex);
/** Stop at the next step boundary because of signal @p signo (RTC_EXEC_SIGNAL).
 *  Async-signal-safe (one lock-free atomic store). RT-safe: yes. Thread: any. */
RTC_RT_SAFE void rtc_exec_signal(rtc_exec *ex, int signo);
/** True once a stop was asked (rtc_exec_request_stop, rtc_exec_signal), also before the
 *  run began (a start_at hook that waits asks it). RT-safe: yes. Thread: any. */
RTC_RT_SAFE bool rtc_exec_stop_requested(const rtc_exec *ex);
/** True once the RT thread is parked in a pause. RT-safe: yes. Thread: any. */
RTC_RT_SAFE bool rtc_exec_is_paused(const rtc_exec *ex);

/**
 * True on the executive's RT thread between arming and the end of its loop (a
 * thread-local flag, for tests that count what the RT thread does). RT-safe: yes.
 */
RTC_RT_SAFE bool rtc_exec_is_rt_thread(void);

/** Snapshot of the counters and histograms. RT-safe: no. Thread: any. */
void rtc_exec_stats_get(const rtc_exec *ex, rtc_exec_stats *out);

/** What a live status display needs (rtcosim/session.h status). */
typedef struct rtc_exec_progress {
    int64_t sim_time_ns;   /**< logical time reached */
    uint64_t steps, overruns;
    int64_t wakeup_p99_ns; /**< wake-up latency p99 so far */
    bool paused;
} rtc_exec_progress;

/** Snapshot of the live counters, safe from any thread at any time — also while
 *  rtc_exec_run() is still starting up (rtc_exec_stats_get() also reads the scheduling
 *  set-up, written then). RT-safe: no. Thread: any. */
void rtc_exec_progress_get(const rtc_exec *ex, rtc_exec_progress *out);

/** Units timed (0 without a system or unit timing), and one's work per tick (do_step
 *  calls; an I/O unit's refresh), over the ticks it worked in: units on Jacobi workers
 *  too, none under the substitute policy. */
size_t rtc_exec_unit_count(const rtc_exec *ex);
void rtc_exec_unit_stats(const rtc_exec *ex, size_t i, rtc_hist_summary *out);

/**
 * The 1-µs wake-up latency histogram (cyclictest -h layout, rtcosim/hist.h), valid until
 * rtc_exec_free(); read it while the run goes on or after. RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE const rtc_ushist *rtc_exec_latency_us(const rtc_exec *ex);

/**
 * After rtc_exec_run() returned (or in on_watchdog): true when a stop request found the
 * RT thread still inside a step after stop_grace_ns and the run was abandoned, or when
 * the watchdog fired. The RT thread is then left
 * parked (or still inside the unit): the caller must not free the executive, the system
 * or anything a unit may touch, must make no call into the units, and should end the
 * process after saving what it can (flush the recording, write the summary).
 * @p unit gets the index of the unit found inside its do_step (-1: unknown).
 * RT-safe: no.
 */
bool rtc_exec_abandoned(const rtc_exec *ex, long *unit);

/** Tick the RT thread was in (or is at) and the logical time reached, for the summary
 *  of any stop (also a watchdog's or an abandoned run's). RT-safe: yes. Thread: any. */
RTC_RT_SAFE void rtc_exec_position(const rtc_exec *ex, int64_t *tick, int64_t *sim_ns);

/** Why the run stopped (RTC_EXEC_RUNNING while it runs). RT-safe: yes. */
RTC_RT_SAFE rtc_exec_stop rtc_exec_stop_reason(const rtc_exec *ex);

/**
 * Write timing.json: period, steps, overruns, policy, scheduling, kernel, and min/avg/
 * p50/p99/p999/p9999/max of wakeup_latency_ns, step_time_ns, handoff_ns, busy_ns (step
 * + handoff), slack_ns and units.<name>.do_step_ns (an I/O unit: refresh_ns). @p status overrides the stop name (NULL: from the stop).
 * Returns RTC_OK, RTC_ENOMEM or -errno (logged with the path). RT-safe: no.
 */
int rtc_exec_write_timing(const rtc_exec *ex, const char *path, const char *status);

/** Write histogram.txt in cyclictest's -h layout. Returns RTC_OK or -errno (logged).
 *  RT-safe: no. */
int rtc_exec_write_histogram(const rtc_exec *ex, const char *path);

#endif
