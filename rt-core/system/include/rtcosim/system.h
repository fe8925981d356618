/*
 * rtcosim/system.h — a coupled system of units and the master algorithms that step it.
 *
 * A system is built in the load phase from an SSP description (or a single FMU): units are
 * created through registered factories (fmu-host registers FMUs), connections become links
 * with their type/unit conversion and transformation, and everything is validated. Then
 * it is initialized (parameters, start values, consistent initial coupling) and stepped
 * one base tick at a time:
 *
 *     t_k = k · tick,   tick = gcd of every unit's step (and the sync step H)
 *
 * A unit with step h_i starts a step at every tick where t_k is a multiple of h_i; its
 * outputs for t + h_i become visible to others at t + h_i (never earlier, so results do
 * not depend on how fast the computer is). Master algorithms:
 *   - Jacobi: every due unit steps from t with inputs taken at t (extrapolated per link);
 *     units may step in parallel on worker threads.
 *   - Gauss-Seidel: due units step in dependency order; a later unit takes its inputs at
 *     the end of its step, i.e. the fresh outputs of the units before it.
 *   - Parallel Fast (Holzinger et al.): units step at their own h_i and exchange data only
 *     at the synchronization points of the sync step H (rtcosim/pfast.h).
 *   - Strong coupling (option of Jacobi/Gauss-Seidel): units in an algebraic loop that can
 *     save and restore their state iterate each step to a fixed point.
 */
#ifndef RTCOSIM_SYSTEM_H
#define RTCOSIM_SYSTEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/log.h"
#include "rtcosim/record.h"
#include "rtcosim/rtsafe.h"
#include "rtcosim/time.h"
#include "rtcosim/unit.h"

typedef struct rtc_system rtc_system;

/** A master algorithm: 0 .. rtc_master_count() - 1, in the order of the library's table
 *  of masters. The constants name the built-in ones; any master, including one added
 *  later, is found by its name (rtc_master_parse()). */
typedef enum {
    RTC_MASTER_JACOBI = 0, /**< the default */
    RTC_MASTER_GAUSS_SEIDEL,
    RTC_MASTER_PARALLEL_FAST,
} rtc_master;

/** Number of master algorithms. RT-safe: yes. */
RTC_RT_SAFE size_t rtc_master_count(void);
/** Name of a master algorithm ("jacobi", "gauss-seidel", "parallel-fast"), "?" for a value
 *  out of range. RT-safe: yes. */
RTC_RT_SAFE const char *rtc_master_name(rtc_master m);
/** Parse a master algorithm name. Returns RTC_OK or RTC_EPARSE. RT-safe: yes. */
RTC_RT_SAFE int rtc_master_parse(const char *name, rtc_master *out);

/** Overrides of the system file's settings (zero/NULL: keep the file's). */
struct rtc_ssp;

typedef struct rtc_system_options {
    bool has_algorithm;
    rtc_master algorithm;
    int64_t step_ns;      /**< communication step of every unit without its own step */
    int64_t sync_step_ns; /**< Parallel Fast H */
    int64_t start_ns;     /**< used only with has_start */
    bool has_start;
    int64_t stop_ns;      /**< used only with has_stop */
    bool has_stop;
    unsigned workers;     /**< Jacobi: worker threads for parallel stepping (0: none) */
    bool iterate;         /**< strong coupling of algebraic loops (units that can get/set
                               their state): iterate every step to a fixed point */
    double tolerance;     /**< relative change that counts as converged (0: 1e-10) */
    unsigned max_iterations; /**< iteration cap per step (0: 50) */
    bool substitute;      /**< every unit steps on its own thread; with a step deadline
                               (rtc_system_set_step_deadline) a unit still running at the
                               deadline is left running and its outputs are substituted
                               (extrapolated by its consumers) until it catches up. Jacobi
                               only. Without lateness the results equal Jacobi's. */
    /** Resolve relative FMU sources and parameter files of an .ssd against this directory
     *  instead of the file's own (NULL: the file's). A session's copy of a system is
     *  loaded this way by `rtcosim replay`. */
    const char *source_dir;
    /** "NAME=VALUE" assignments applied before initialization after the file's own
     *  parameter values (so they win): NAME is "unit.variable" or an input connector of
     *  the top-level system (then every component input it feeds gets VALUE). An unknown
     *  or unsettable NAME fails the load. Arrays: space-separated elements. */
    const char *const *sets;
    size_t n_sets;
    /** Coupling passes in Initialization Mode, at least (0: the units + 1). Every node of a
     *  distributed run makes the same number, since its lock-step bridges exchange values
     *  each pass (rtc_io_unit_lockstep_pass). */
    size_t init_passes;
    /** Called with the SSP description right after it is read, before anything is built
     *  from it (NULL: none): a program may edit it (rt-core/assemble keeps the components
     *  of one node and adds its bridges, rtcosim/placement.h). A non-zero return fails the
     *  load with that status (the hook logs why). */
    int (*ssp_hook)(void *user, struct rtc_ssp *ssp);
    void *ssp_hook_user;
    /** A single FMU only (a .fmu path): the settings of its unit as an SSP component's
     *  rtc:Component attributes give them — "interface" (auto|cs|me), "solver" and
     *  "substeps" (Model Exchange), "event_mode" (auto|on|off; configs/README.md). The
     *  components of an SSP file carry their own; NULL: none. */
    const rtc_kv *unit_settings;
    size_t n_unit_settings;
    /** Turn on the debug logging of every FMU unit (FMI loggingOn). */
    bool fmu_logging;
} rtc_system_options;

/**
 * Load a system: an SSP file (.ssd, .ssp) or a single FMU (.fmu, run as a system of one
 * unit named after its model, as `rtcosim run FMU` runs it: its variables are found and
 * recorded by their own names — "x" as well as "Decay.x" — its DefaultExperiment gives
 * start, stop, step and tolerance, and when the stop time is off its step grid and the FMU
 * can vary its step, its last step is shorter and ends at the stop time). Creates every
 * unit (not yet instantiated) through the
 * factory registered for its component type, builds the links and validates the whole:
 * every problem is logged as one line "FILE:LINE: reason" (errors and warnings), and the
 * load fails when any error was found.
 *
 * @param factories  unit factories by component type; their release() is called by
 *                   rtc_system_free() (also when the load fails).
 * Returns RTC_OK and *out; RTC_EPARSE (invalid system, see log); RTC_EIO; RTC_ENOMEM.
 * RT-safe: no.
 */
int rtc_system_load(const char *path, const rtc_unit_factory *factories, size_t n_factories,
                    const rtc_system_options *opt, const rtc_logger *lg, rtc_system **out);

/** Whether rtc_system_load() reads @p path as a single FMU: a .fmu file, or a folder that
 *  holds an unpacked FMU (modelDescription.xml) and no SystemStructure.ssd (an unpacked
 *  SSP). RT-safe: no. */
bool rtc_system_is_fmu_path(const char *path);

/** Terminate (if initialized), free every unit and the system. NULL is a no-op.
 *  RT-safe: no. */
void rtc_system_free(rtc_system *sys);

/** Real-time settings the system file asks for (org.rtcosim.realtime); each has_* says
 *  it was given. The command line overrides them. */
typedef struct rtc_system_rt_hints {
    bool has_rtf, has_priority, has_cpu, has_overrun, has_max_overruns, has_decimation;
    double rtf;
    int priority, cpu;
    const char *overrun; /**< "catch-up", "skip", "substitute", "stop" */
    uint32_t max_overruns, decimation;
    bool has_deadman;
    int64_t deadman_ns;  /**< operator dead-man time (rtc:RealTime deadman) */
    const char *const *expose; /**< operator-settable variables, "unit.var[:key=value]..." */
    size_t n_expose;
} rtc_system_rt_hints;

/** The file's real-time settings (valid while the system lives). RT-safe: yes. */
RTC_RT_SAFE const rtc_system_rt_hints *rtc_system_rt(const rtc_system *sys);

/** Substitute policy: the wall-clock time (CLOCK_MONOTONIC ns) by which the next step must
 *  be done; 0: no limit. RT-safe: yes. */
RTC_RT_SAFE void rtc_system_set_step_deadline(rtc_system *sys, int64_t mono_ns);
/** Substitute policy: steps that missed their deadline (left running). RT-safe: yes. */
RTC_RT_SAFE uint64_t rtc_system_late_steps(const rtc_system *sys);
/** Substitute policy: the first unit whose step is still running on its own thread (a late
 *  step left running), or -1. Freeing the system waits for such a step: a caller that must
 *  not wait forever checks this first. RT-safe: yes. Thread: any. */
RTC_RT_SAFE long rtc_system_unit_in_step(const rtc_system *sys);
/** Switch a loaded, not yet initialized system to the substitute option (see
 *  rtc_system_options.substitute). Returns RTC_OK, RTC_ESTATE (already initialized) or
 *  RTC_EINVAL (not Jacobi, or with --iterate/--workers; logged). RT-safe: no. */
int rtc_system_use_substitute(rtc_system *sys);
/** Attributes (SCHED_FIFO priority, CPU, stack; rtcosim/rt.h) of the Jacobi worker and
 *  substitute threads rtc_system_init() creates; without this call they are SCHED_OTHER.
 *  A real-time run gives the RT thread's priority and its CPU @p rt_cpu, which these
 *  threads keep off (they run beside the RT thread, never in its way; -1: any CPU).
 *  Returns RTC_OK or RTC_ESTATE (already initialized). RT-safe: no. */
int rtc_system_set_threads(rtc_system *sys, int priority, int rt_cpu);
/** The thread that steps unit @p i when Jacobi runs with @p workers worker threads (0:
 *  the stepping thread itself, 1..workers: a worker): round-robin over the distinct FMUs in
 *  declaration order, every instance of one FMU file with the first. The rule
 *  rtc_system_init() follows, and the one a planner needs for "what if N workers".
 *  O(i²). RT-safe: yes. */
RTC_RT_SAFE size_t rtc_system_worker_owner(const rtc_system *sys, unsigned workers, size_t i);

/** True when the system was loaded with the substitute option. RT-safe: yes. */
RTC_RT_SAFE bool rtc_system_substitutes(const rtc_system *sys);

/** True when the system has I/O components (drivers): such a system runs only in real
 *  time, against the wall clock. RT-safe: yes. */
RTC_RT_SAFE bool rtc_system_has_io(const rtc_system *sys);

/**
 * The wall clock of a real-time run: logical time t corresponds to CLOCK_MONOTONIC
 * t0_mono_ns + t / rtf. Call when the run is anchored and at every re-anchoring (resume);
 * I/O units map the timestamps of what arrives with it. RT-safe: yes (no allocation).
 */
RTC_RT_SAFE void rtc_system_set_time_base(rtc_system *sys, int64_t t0_mono_ns, double rtf);

/**
 * Put every I/O component in its safe state now (drivers write their configured safe
 * values). The one call of every stop path: normal end, error, fault, overrun policy,
 * signals, watchdog. Returns the first failure (all are attempted). RT-safe: no.
 * Thread: any non-RT thread.
 */
int rtc_system_write_safe(rtc_system *sys);

/** Number of warnings found while loading and validating. RT-safe: yes. */
RTC_RT_SAFE unsigned rtc_system_warnings(const rtc_system *sys);

/**
 * Instantiate every unit, apply parameter values and start values, enter and exit
 * initialization with the coupling made consistent (outputs propagated to inputs in
 * dependency order). A unit that ends the simulation at its initial event (FMI 3
 * terminateSimulation; logged) is no failure: the outputs at the start are visible, and
 * the first rtc_system_step() returns RTC_ETERMINATED at tick 0, as a termination later
 * would. Returns RTC_OK or the first failing unit's status (logged).
 * RT-safe: no.
 */
int rtc_system_init(rtc_system *sys);

/**
 * Advance by one base tick: the due units step, outputs that become visible are
 * published. Returns RTC_OK; RTC_ETERMINATED when a unit ended the simulation (its
 * reason was logged; the system stands at rtc_system_time_ns()); a unit's error status.
 * A unit that ends the simulation at a time inside its step (FMI terminateSimulation,
 * an early return or a discard after the step's start) first makes its outputs at that
 * time visible: that step returns RTC_OK with rtc_system_time_ns() there, so a caller
 * records the row, and the next call returns RTC_ETERMINATED.
 * RT-safe: yes (the units' own code aside).
 */
RTC_RT_SAFE int rtc_system_step(rtc_system *sys);

/**
 * Advance by up to @p n base ticks, as @p n calls of rtc_system_step() would, without a
 * call per tick: for a caller that has nothing to do between ticks (no row to record, no
 * clock to wait for). Returns after the first tick that did not return RTC_OK, that left
 * the system finished (rtc_system_finished()) or standing where a unit ended the
 * simulation, or at whose end a value was found non-finite for the first time (a new
 * entry of rtc_system_nonfinite()), so that a caller that checks those after each call
 * acts at the tick where they happened; the ticks taken are the difference of
 * rtc_system_tick_index(). Returns the last tick's status, as rtc_system_step(); RTC_OK
 * when @p n <= 0 (no tick).
 * RT-safe: yes (the units' own code aside).
 */
RTC_RT_SAFE int rtc_system_step_n(rtc_system *sys, int64_t n);

/**
 * Whether the run is over: the stop time is reached, or is less than a base tick away and
 * no shorter last step is due. Step while it is false (and rtc_system_step() returns
 * RTC_OK). RT-safe: yes.
 */
RTC_RT_SAFE bool rtc_system_finished(const rtc_system *sys);

/** Logical time of the current tick, ns from the start time. RT-safe: yes. */
RTC_RT_SAFE int64_t rtc_system_time_ns(const rtc_system *sys);
/** Superdense time of the system: the current tick's time and the microstep reached in
 *  it (strong-coupling iterations of the last step, or the most event iterations a unit
 *  ran at one instant in it (FMI 3 event mode); 0 when the step took none).
 *  RT-safe: yes. */
RTC_RT_SAFE rtc_sdtime rtc_system_superdense_time(const rtc_system *sys);
/** Index k of the current tick. RT-safe: yes. */
RTC_RT_SAFE int64_t rtc_system_tick_index(const rtc_system *sys);
/** The base tick, ns. RT-safe: yes. */
RTC_RT_SAFE int64_t rtc_system_tick_ns(const rtc_system *sys);
/** Start time (absolute, ns) and stop time (ns from the start; INT64_MAX if none). */
int64_t rtc_system_start_ns(const rtc_system *sys);
int64_t rtc_system_stop_ns(const rtc_system *sys);
rtc_master rtc_system_algorithm(const rtc_system *sys);

/** Units, in declaration order. RT-safe: yes. */
RTC_RT_SAFE size_t rtc_system_unit_count(const rtc_system *sys);
const rtc_unit *rtc_system_unit(const rtc_system *sys, size_t i);
int64_t rtc_system_unit_step_ns(const rtc_system *sys, size_t i);
/** Where unit @p i comes in the system's dependency order (the order Gauss-Seidel steps
 *  in; 0 first), or SIZE_MAX for no such unit. RT-safe: no (a search). */
size_t rtc_system_order_position(const rtc_system *sys, size_t i);
/** True when unit @p i belongs to an algebraic loop that strong coupling (--iterate)
 *  iterates. RT-safe: yes. */
RTC_RT_SAFE bool rtc_system_unit_iterated(const rtc_system *sys, size_t i);

/** The file unit @p i was created from, as messages name it (its FMU; for a component of
 *  an .ssp package "PACKAGE.ssp/resources/X.fmu", since the extraction folder is removed
 *  after the load), or NULL (I/O components). Valid while the system lives. RT-safe: yes. */
RTC_RT_SAFE const char *rtc_system_unit_source(const rtc_system *sys, size_t i);

/** SHA-256 (64 hex digits) of that file as it was when the system was loaded, or NULL
 *  (no source, or unreadable). RT-safe: yes. */
RTC_RT_SAFE const char *rtc_system_unit_sha256(const rtc_system *sys, size_t i);

/* ---- operator access to variables (rtcosim/session.h applies commands with these) ---- */

/**
 * Find "unit.variable" (unit names may contain dots: every split is tried), or the name
 * of a connector of the top-level SSP system: an input stands for the first component
 * input it feeds, an output for the component output that feeds it.
 * Returns RTC_OK with *unit / *var (indices into rtc_system_unit() and its md->vars);
 * RTC_ENOTFOUND; RTC_EINVAL (NULL). RT-safe: yes (no allocation).
 */
RTC_RT_SAFE int rtc_system_find_var(const rtc_system *sys, const char *name, size_t *unit,
                                    size_t *var);

/**
 * Whether variable @p var of unit @p unit may be set while the system runs: a scalar
 * numeric/boolean input that no connection drives, a tunable parameter, or an output of
 * an I/O component (the value overrides the bench's until a newer sample arrives). With
 * worker threads, only units stepped by the calling (coordinator) thread qualify.
 * Call after rtc_system_init(). Returns RTC_OK or RTC_EINVAL with the reason in @p why
 * ("lag.k1 is a fixed parameter ..."). RT-safe: no.
 */
int rtc_system_check_settable(const rtc_system *sys, size_t unit, size_t var, char *why,
                              size_t cap);

/**
 * Write @p value (converted to the variable's type: rounded for integers, non-zero is
 * true) through the unit's set operation. Call between steps on the stepping thread.
 * Returns RTC_OK; RTC_EINVAL (not settable, see rtc_system_check_settable); RTC_ESTATE
 * (not initialized, or a unit failed); the unit's error.
 * RT-safe: yes (no allocation or formatting; the unit's own code aside).
 */
RTC_RT_SAFE int rtc_system_set_value(rtc_system *sys, size_t unit, size_t var, double value);

/**
 * Read a scalar numeric/boolean variable's current value from the unit (its get
 * operation; for an FMU input or parameter: the value last set). Call between steps on
 * the stepping thread. Returns RTC_OK, RTC_EINVAL, RTC_ESTATE or the unit's error.
 * RT-safe: yes (the unit's own code aside).
 */
RTC_RT_SAFE int rtc_system_get_value(const rtc_system *sys, size_t unit, size_t var,
                                     double *out);

/** Connections (links) between units, and the units at their ends. RT-safe: yes. */
RTC_RT_SAFE size_t rtc_system_link_count(const rtc_system *sys);
void rtc_system_link_ends(const rtc_system *sys, size_t i, size_t *src_unit, size_t *dst_unit);

/** What one connection did during the run. */
typedef struct rtc_link_stats {
    const char *desc;      /**< "unit.var -> unit.var" */
    const char *estimator; /**< method name, "zoh" without an estimator */
    int64_t delay_ns;      /**< configured transport delay */
    uint64_t samples;      /**< coupling-error pairs accumulated (estimated links) */
    double error_rms, error_max; /**< coupling error: the value supplied to the consumer
                                      for an instant minus the source's value for that
                                      instant once it arrived (Milne's device at the
                                      consumer's horizon; rtc_est_get_monitor()) */
    const struct rtc_est_config *config; /**< the estimator's parameters
                                              (rtc_est_config_text()), NULL without one */
    const struct rtc_est *est; /**< the connection's estimator, for its whole monitor
                                    (rtc_est_get_monitor(): delays, candidates); NULL
                                    without one */
    size_t src_var, dst_var;   /**< the variables at its ends (rtc_system_link_ends() gives
                                    the units) */
    bool scalar;               /**< it moves one numeric value (an estimator may run on it) */
} rtc_link_stats;

/**
 * Give connection @p i the estimator @p cfg (NULL: none — the consumer reads the source
 * directly, or what has arrived when delayed) and the transport delay @p delay_ns (0:
 * none), before rtc_system_init(). `rtcosim tune` re-runs a system with each candidate on
 * one connection, and its lock-step reference without delays and estimators.
 * Returns RTC_OK. Errors: RTC_EINVAL (@p i out of range, negative delay, a connection from
 * an I/O signal — its estimator is the signal's, rtc_io_unit_set_estimator() —, an array
 * or non-numeric connection, or @p cfg invalid; the reason in @p err, naming the
 * connection); RTC_ESTATE after rtc_system_init(); RTC_ENOMEM. RT-safe: no.
 */
int rtc_system_set_link_estimator(rtc_system *sys, size_t i, const struct rtc_est_config *cfg,
                                  int64_t delay_ns, char *err, size_t cap);

/** Statistics of connection @p i. RT-safe: yes (reads; call when not stepping; the
 *  estimator's monitor may also be read while stepping). */
RTC_RT_SAFE void rtc_system_link_stats(const rtc_system *sys, size_t i, rtc_link_stats *out);

/**
 * Add result columns to @p rec: @p names (NULL: every output of every unit, and the
 * system's recording selection if the file has one), each "unit.variable". Values are
 * read from what is visible at the current tick, so a recorded row at tick k holds every
 * unit's outputs at its last step end ≤ t_k. Returns RTC_OK or RTC_ENOTFOUND (logged).
 * RT-safe: no.
 */
int rtc_system_record(rtc_system *sys, rtc_record *rec, const char *const *names, size_t n);

/** One Parallel Fast synchronization: interval zeta, the units that qualified (bit i set
 *  for unit i), and their step-end times. */
typedef struct rtc_sync_event {
    int64_t zeta;
    uint64_t units;
    int64_t t_ns[64];
} rtc_sync_event;

/** Called after every synchronization of a Parallel Fast run (for logs and tests). */
typedef void (*rtc_sync_hook)(void *user, const rtc_sync_event *ev);
void rtc_system_on_sync(rtc_system *sys, rtc_sync_hook hook, void *user);

/**
 * Called on the stepping thread right before (@p end false) and right after (@p end true)
 * each unit's do_step, with the unit's index (rtcosim/exec.h times units with it and
 * names the unit a watchdog finds stuck). NULL removes it. The hook must be RT-safe.
 * RT-safe: yes (setting it: not while stepping). Thread: the stepping thread.
 */
typedef void (*rtc_unit_timer)(void *user, size_t unit, bool end);
void rtc_system_set_unit_timer(rtc_system *sys, rtc_unit_timer fn, void *user);

/**
 * Measure each unit's work per tick: with @p on, every base tick records, per unit, the
 * wall time (CLOCK_MONOTONIC) spent in its do_step calls — all of them in the tick, so
 * strong-coupling iterations add up — or, for an I/O unit, in its refresh; on whichever
 * thread steps the unit (Jacobi workers too). Read it with rtc_system_unit_work_ns()
 * between steps. Costs two clock reads per call (vDSO, no system call). Off by default.
 * RT-safe: yes (setting it: not while stepping).
 */
RTC_RT_SAFE void rtc_system_set_unit_clock(rtc_system *sys, bool on);

/**
 * The work of unit @p i in the last completed tick, ns (rtc_system_set_unit_clock()); -1
 * when the unit did no work in it (not due), the clock is off, @p i is out of range, or
 * the unit steps on its own thread (overrun policy substitute: its steps are not part of
 * a tick). RT-safe: yes. Thread: the stepping thread, between steps (or after the run).
 */
RTC_RT_SAFE int64_t rtc_system_unit_work_ns(const rtc_system *sys, size_t i);

/** Statistics of strong coupling: steps iterated, iterations, steps that did not converge. */
typedef struct rtc_coupling_stats {
    uint64_t iterated_steps, iterations, not_converged;
} rtc_coupling_stats;
void rtc_system_coupling_stats(const rtc_system *sys, rtc_coupling_stats *out);

/** Events unit @p i handled inside its steps over the run (FMI 3 co-simulation with event
 *  mode, see rtc_step_result): event instants, early returns resumed to the step's end, and
 *  the most event iterations (microsteps) at one instant. Read after the run (or between
 *  steps on the stepping thread). RT-safe: yes. */
typedef struct rtc_unit_event_stats {
    uint64_t events, early_returns;
    uint32_t max_microsteps;
} rtc_unit_event_stats;
void rtc_system_unit_event_stats(const rtc_system *sys, size_t i, rtc_unit_event_stats *out);

#endif
