/*
 * rtcosim/io_unit.h — I/O units: SSP components of a driver type as units of the system.
 *
 * A component whose type names a registered driver (rtcosim/driver.h) becomes a unit whose
 * connectors are the driver's signals: output connectors carry what the bench sends,
 * input connectors what goes to it. The master refreshes it every tick; each FROM_BENCH
 * signal's new samples are pushed into its estimator ("estimator"/"params" keys of its
 * rtc:Signal, or the one a connection from it names; default zoh), which answers the value
 * at the tick's logical time: the one estimator between the bench and an FMU input.
 *
 * Two generic hooks let a higher layer observe and substitute those samples without the
 * system layer knowing why (the session records them for `rtcosim replay` and replays
 * them, rtcosim/session.h):
 *   - a sample observer (rtc_io_unit_set_tap) sees every sample pushed into an estimator;
 *   - a sample source (rtc_io_unit_replay_factory) replaces the driver: the unit opens no
 *     driver and takes its samples from the source at the ticks the source names.
 */
#ifndef RTCOSIM_IO_UNIT_H
#define RTCOSIM_IO_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/driver.h"
#include "rtcosim/mailbox.h"
#include "rtcosim/rtsafe.h"
#include "rtcosim/unit.h"

struct rtc_unit_factory;

/**
 * The unit factory for SSP components of a registered driver @p type (see the file
 * comment). The driver is opened — and its map checked — when the unit is created.
 * Returns RTC_OK or RTC_ENOTFOUND (no driver registered for @p type). RT-safe: no.
 */
int rtc_io_unit_factory(struct rtc_unit_factory *out, const char *type);

/**
 * Driver statistics of an I/O unit (a unit made by rtc_io_unit_factory()); the caller
 * provides @p out->signals / n_signals_cap for the per-signal health, as for
 * rtc_driver_ops.stats. Returns RTC_OK, or RTC_EINVAL when @p unit is not an I/O unit
 * with a driver. RT-safe: no. Thread: any.
 */
int rtc_io_unit_stats(const rtc_unit *unit, rtc_driver_stats *out);

/** True when @p unit was made by rtc_io_unit_factory() or rtc_io_unit_replay_factory().
 *  RT-safe: yes. */
RTC_RT_SAFE bool rtc_io_unit_is(const rtc_unit *unit);

/** The driver of I/O unit @p unit ("modbus-client", "modbus-server", "osc"; "replay" for
 *  a replay unit), or NULL when @p unit is not an I/O unit. RT-safe: yes. */
RTC_RT_SAFE const char *rtc_io_unit_driver(const rtc_unit *unit);

/** What the driver of I/O unit @p unit talks to and how (rtc_driver_ops.describe): lines
 *  into @p buf; "" when it has nothing to say or @p unit is no live I/O unit. Returns the
 *  length written. RT-safe: no. Thread: any, after the load. */
size_t rtc_io_unit_describe(const rtc_unit *unit, char *buf, size_t cap);

/** The link of I/O unit @p unit in one word from its @p st (rtc_io_unit_stats()): the
 *  state's name (rtc_link_state_name): "connecting" (a server no peer has reached yet,
 *  an OSC input nobody has sent to: waiting is not a fault), "up", "late", "lost",
 *  "degraded", "idle"; "?" when @p unit is not an I/O unit. RT-safe: yes. */
RTC_RT_SAFE const char *rtc_io_unit_link(const rtc_unit *unit, const rtc_driver_stats *st);

/**
 * The link contract of I/O unit @p unit (rtcosim/driver.h: rtc_link_connect_check,
 * rtc_link_must_stop), valid while the unit lives; NULL for a replay unit, a driver
 * without a contract, or a unit that is not an I/O unit. The unit holds what goes to the
 * bench until its first refresh (the run's first tick) and then releases it.
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE rtc_link *rtc_io_unit_contract(const rtc_unit *unit);

struct rtc_est_config;
/** The estimator configuration of signal @p i (the unit's variable i) of I/O unit
 *  @p unit: what `rtcosim info` and summary.json describe. NULL when @p unit is not an
 *  I/O unit or the signal has no estimator (a signal to the bench). RT-safe: yes. */
RTC_RT_SAFE const struct rtc_est_config *rtc_io_unit_estimator(const rtc_unit *unit, size_t i);

struct rtc_est;
/** The estimator of FROM_BENCH signal @p i of I/O unit @p unit, for its monitor
 *  (rtc_est_get_monitor(): what it supplied against the samples that came later, delays,
 *  the candidate auto chose), readable from any thread while the run goes. NULL when
 *  @p unit is not an I/O unit or @p i is not a signal from the bench. RT-safe: yes. */
RTC_RT_SAFE const struct rtc_est *rtc_io_unit_est(const rtc_unit *unit, size_t i);

/** rtc_io_unit_estimator_by() of a signal whose rtc:Signal names its estimator. */
#define RTC_IO_EST_BY_SIGNAL "its rtc:Signal"

/**
 * Who named the estimator of FROM_BENCH signal @p i of I/O unit @p unit:
 * RTC_IO_EST_BY_SIGNAL (the signal's "estimator" or "params" key), "connection a.y -> b.u"
 * (a connection from the signal, rtc_io_unit_set_estimator()), or NULL for a default (auto,
 * or the system's rtc:RealTime estimator). NULL also when @p unit is not an I/O unit.
 * RT-safe: yes.
 */
RTC_RT_SAFE const char *rtc_io_unit_estimator_by(const rtc_unit *unit, size_t i);

/**
 * Replace the estimator of FROM_BENCH signal @p i by a new one for @p cfg, named by @p by
 * (e.g. "connection a.y -> b.u"; copied; NULL: a default). A bench value goes through one
 * estimator, the one at its I/O signal, which sees each sample's own sample and arrival
 * time; the system layer moves a connection's estimator here (configs/README.md, "One
 * estimator per bench value"). Load phase, before the run.
 * Returns: RTC_OK. Errors: RTC_EINVAL not an I/O unit, or @p i not a signal from the
 * bench, or @p cfg invalid (message in @p err); RTC_ENOMEM. The old estimator stays on
 * error. RT-safe: no.
 */
int rtc_io_unit_set_estimator(rtc_unit *unit, size_t i, const struct rtc_est_config *cfg,
                              const char *by, char *err, size_t err_cap);

/**
 * The value of FROM_BENCH signal @p i as its estimator gave it at the last refresh (or an
 * operator's override), in the signal's units and within its connector type's values (an
 * Integer connector's value is whole): what a link from the signal converts, once, to its
 * destination's type. The pointer stays valid for the unit's life; read it on the stepping
 * thread, which refreshes it. NULL when @p unit is not an I/O unit or @p i is no signal
 * from the bench. RT-safe: yes.
 */
RTC_RT_SAFE const double *rtc_io_unit_value(const rtc_unit *unit, size_t i);

/* ---- lock-step links (rtcosim/lockstep.h) ---- */

/**
 * True when the driver of I/O unit @p unit runs its link lock-step (it enabled the unit's
 * lock-step channel: a node bridge in a fast distributed run, DESIGN.md T3). Such a unit
 * is driven by the frame of a tick differently (masters/master.c): its inputs are set
 * once they are known — after initialization for tick 0, after tick k-1's steps for tick
 * k — and its refresh at t_k first hands them over as round k, then waits (futex, bounded
 * by the driver's loss time) for the peer's round(s) of tick k. At initialization the
 * system calls rtc_io_unit_lockstep_pass() before every coupling pass but the first.
 * RT-safe: yes.
 */
RTC_RT_SAFE bool rtc_io_unit_lockstep(const rtc_unit *unit);

/**
 * True when lock-step I/O unit @p unit takes no incoming value a round ahead (none made
 * by the peer in the same tick, rtc_lockstep_enable's in_ahead): the master refreshes it
 * for t_(k+1) right after tick k (its refresh at the start of tick k+1 is then a no-op),
 * so the row of t_(k+1) holds the peer's values for t_(k+1), as a unit inside the process
 * gives them (a DCP slave's outputs after its step). RT-safe: yes.
 */
RTC_RT_SAFE bool rtc_io_unit_lockstep_early(const rtc_unit *unit);

/**
 * Initialization, before coupling pass @p pass + 1 (rtc_system_init): hand over the values
 * set in pass @p pass and wait for the peer's of the same pass, which become the unit's
 * outputs. Both ends must make the same number of passes (rtc_system_options.init_passes).
 * Returns RTC_OK; RTC_EINVAL (not a lock-step unit); RTC_ETIME, RTC_EIO (the peer's values
 * did not come: logged). RT-safe: yes (may wait on a futex). Thread: the one that
 * initializes the system.
 */
RTC_RT_SAFE int rtc_io_unit_lockstep_pass(rtc_unit *unit, uint32_t pass);

/** Passes of initialization whose values an I/O unit keeps for the session's recording
 *  (a node has n_units + 1 passes: more than this are exchanged, not recorded). */
#define RTC_IO_INIT_PASSES_CAP 64
/** The quality a tap gets (t_ns 0, sample_ns and arrival_ns = the pass) for a value of an
 *  initialization pass: inputs.bin records it as a sample of step 0 with this quality, and
 *  a replay unit takes it back in that pass (rtc_io_unit_init_pass). */
#define RTC_IO_INIT_PASS_QUALITY 16

/** True when I/O unit @p unit takes values in the coupling passes of initialization: a
 *  lock-step unit (rtc_io_unit_lockstep) or a replay unit (its feed's recorded passes).
 *  RT-safe: yes. */
RTC_RT_SAFE bool rtc_io_unit_init_exchange(const rtc_unit *unit);

/**
 * Before coupling pass @p pass + 1: a lock-step unit exchanges (rtc_io_unit_lockstep_pass);
 * a replay unit takes what its feed recorded for that pass (t_ns = -1 - @p pass asked of
 * rtc_io_sample_source.next; a signal with nothing recorded keeps its value).
 * Returns as rtc_io_unit_lockstep_pass; RTC_EINVAL for another unit. RT-safe: yes.
 */
RTC_RT_SAFE int rtc_io_unit_init_pass(rtc_unit *unit, uint32_t pass);

/* ---- sample observer ---- */

/**
 * Called on the stepping (RT) thread for every sample an I/O unit pushes into a signal's
 * estimator: @p signal is first_signal of rtc_io_unit_set_tap() + the unit's port index,
 * @p t_ns the logical time of the refresh that consumed it, @p s the sample (sample and
 * arrival times as the estimator saw them: logical ns from the start of the run; seq 0).
 * Must be RT-safe (copy the numbers into a ring).
 */
typedef void (*rtc_io_sample_fn)(void *user, uint32_t signal, int64_t t_ns,
                                 const rtc_sample *s);

/**
 * Send every sample I/O unit @p unit pushes into its estimators to @p fn (NULL: stop).
 * Set before the run. Returns RTC_OK or RTC_EINVAL (not an I/O unit). RT-safe: no.
 */
int rtc_io_unit_set_tap(rtc_unit *unit, rtc_io_sample_fn fn, void *user, uint32_t first_signal);

/* ---- sample source (instead of a driver) ---- */

/** Samples for I/O units without a driver: @p lookup gives the source's index of a unit's
 *  signal (-1: none); @p next returns, one per call, the samples of signal @p signal that
 *  the refresh at logical time @p t_ns consumes (false when there are no more for that
 *  tick). Called on the stepping thread. */
/* next(): t_ns >= 0 asks the samples of the refresh at t_ns; t_ns < 0 those of
 * initialization pass -1 - t_ns (RTC_IO_INIT_PASS_QUALITY). */
typedef struct rtc_io_sample_source {
    long (*lookup)(void *user, const char *unit, const char *signal);
    bool (*next)(void *user, long signal, int64_t t_ns, double *value, int64_t *sample_ns,
                 int64_t *arrival_ns);
    void *user;
} rtc_io_sample_source;

/**
 * A unit factory for I/O components of type @p type that opens no driver: each signal's
 * samples come from @p src (which must outlive the units) and are pushed into the same
 * estimators, at the same ticks, as the live units push theirs. Outputs to the bench go
 * nowhere. Returns RTC_OK or RTC_EINVAL. RT-safe: no.
 */
int rtc_io_unit_replay_factory(struct rtc_unit_factory *out, const char *type,
                               const rtc_io_sample_source *src);

#endif
