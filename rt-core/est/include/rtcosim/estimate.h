/*
 * rtcosim/estimate.h — coupling-signal estimation: "the value now" from samples that are
 * late, irregular, noisy or missing.
 *
 * One estimator per coupling input (a connection between units, or an I/O signal from a
 * driver). The producer side pushes timestamped samples; the RT loop asks for the value at
 * its current logical time and gets the value, its rate, the age of the newest sample and
 * a quality flag. Methods, by increasing model content:
 *
 *   zoh        zero-order hold: the newest sample value.
 *   linear     first-order extrapolation through the last two samples.
 *   quadratic  second-order polynomial through the last three samples (Newton divided
 *              differences on the actual sample times, so irregular spacing is exact).
 *   ei         extrapolated-interpolation (co-simulation survey eq. 48-49): a continuous
 *              piecewise-linear signal that starts, when a sample arrives, from its own
 *              current value and reaches the sample one interval later, then holds it until
 *              the next sample arrives; for a ramp it is the ramp delayed by exactly one
 *              interval (plus the transport delay), and it never jumps.
 *   dead-reckoning  position/velocity/acceleration model (order 0, 1 or 2) from the newest
 *              sample, using the derivatives the source sends with it (FMI output
 *              derivatives, a drive's speed) and finite differences where it sends none.
 *   kalman-cv  Kalman filter, constant-velocity model, state [value, rate].
 *   kalman-ca  Kalman filter, constant-acceleration model, state [value, rate, accel].
 *              With adapt=1 the noise parameters q and r are estimated online from the
 *              filter's own innovations (q and r are then only the starting values).
 *   kalman     adaptive Kalman filtering whose model follows the signal: an adaptive
 *              kalman-cv and an adaptive kalman-ca run side by side and the one whose
 *              recent prediction error at the consumer's horizon is lower is used.
 *   auto       the default for a late signal: hold (zoh), linear, dead reckoning and the
 *              two adaptive Kalman filters run side by side; each is scored by its own
 *              prediction error (every arriving sample against what the candidate
 *              supplied for the sample's time, rtc_est_supply()) and the one with the
 *              lowest recent error (window) is used, with hysteresis (margin). It starts on
 *              hold, uses a model only while the model's error over 16 windows is not above
 *              hold's, and holds a sparse signal (RTC_EST_SPARSE_TICKS) whatever the
 *              scores say, so its error is close to hold's where nothing predicts better
 *              and, where a model fits, close to the best candidate's. It can be worse
 *              than hold at a signal's first step after a noisy plateau (a Kalman filter
 *              won the plateau), and right after a model was chosen.
 *
 * Time is int64_t nanoseconds on the engine's logical clock everywhere (sample time,
 * arrival time, query time); values are double. Differences of times are taken in int64
 * before conversion to seconds, so long runs lose no resolution.
 *
 * Phases (DESIGN.md): the configuration is parsed at load (rtc_est_config_parse(), called by
 * the SSP annotation reader), the estimator is allocated once at arm (rtc_est_new()), and
 * in run rtc_est_push() / rtc_est_query() touch only that preallocated object: no
 * allocation, no lock, no system call, no stdio. One estimator belongs to one thread at a
 * time (normally the RT thread, which feeds it from the driver mailbox).
 *
 * Besides the estimator the header holds three small tools:
 *   - rtc_est_dr_sender: the sender-side dead-reckoning rule of distributed simulation (a
 *     source transmits only when the receiver's prediction would be off by more than a
 *     threshold), for drivers and remote nodes that want to cut traffic;
 *   - rtc_est_noise_estimate(): measurement-noise variance r and process-noise q from a
 *     recorded trace, so users need not guess Kalman parameters;
 *   - rtc_est_errmon: the coupling-error monitor (Milne's device), RMS and maximum of
 *     (extrapolated - actual) per connection.
 * Every estimator also monitors itself (rtc_est_get_monitor()): what it supplied to its
 * consumer at each tick (rtc_est_supply()) against the sample for that time once it
 * arrived, the sample delays, and for auto and kalman which candidate was in use.
 */
#ifndef RTCOSIM_ESTIMATE_H
#define RTCOSIM_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/rtsafe.h"
#include "rtcosim/status.h"

/* ---------------------------------------------------------------------------------------- */
/* Methods, qualities, verdicts                                                              */
/* ---------------------------------------------------------------------------------------- */

/** Estimation method. The order is fixed (it indexes the name table). */
typedef enum {
    RTC_EST_ZOH = 0,        /**< zero-order hold ("zoh") */
    RTC_EST_LINEAR,         /**< first-order extrapolation ("linear") */
    RTC_EST_QUADRATIC,      /**< second-order polynomial ("quadratic") */
    RTC_EST_EI,             /**< extrapolated-interpolation ("ei") */
    RTC_EST_DEAD_RECKONING, /**< dead reckoning ("dead-reckoning") */
    RTC_EST_KALMAN_CV,      /**< Kalman, constant velocity ("kalman-cv") */
    RTC_EST_KALMAN_CA,      /**< Kalman, constant acceleration ("kalman-ca") */
    RTC_EST_KALMAN,         /**< adaptive Kalman, cv or ca as the signal needs ("kalman") */
    RTC_EST_AUTO,           /**< the best of several candidates, measured online ("auto") */
    RTC_EST_METHOD_COUNT
} rtc_est_method;

/**
 * Quality of one estimate, ordered by severity (a merge of several inputs keeps the worst).
 *
 * FRESH: the newest sample is at most the fresh window old (a sample at exactly the query
 * time is always fresh). EXTRAPOLATED: older than that, the method's model bridges the gap.
 * STALE: at least the staleness limit old; the value is what the stale policy says (hold or
 * fallback). NODATA: no sample accepted yet; the value is the fallback value. FAULT: the
 * staleness limit was reached under the fault policy; the value is the fallback value and the
 * caller takes the fault path (DESIGN.md "Safety").
 */
typedef enum {
    RTC_EST_FRESH = 0,
    RTC_EST_EXTRAPOLATED = 1,
    RTC_EST_STALE = 2,
    RTC_EST_NODATA = 3,
    RTC_EST_FAULT = 4,
} rtc_est_quality;

/** What the staleness limit does once the newest sample is that old. */
typedef enum {
    RTC_EST_STALE_HOLD = 0, /**< freeze the estimate at its value at the limit (continuous) */
    RTC_EST_STALE_FALLBACK, /**< switch to the configured fallback value */
    RTC_EST_STALE_FAULT,    /**< report RTC_EST_FAULT (value = fallback) */
} rtc_est_stale_policy;

/** Outcome of rtc_est_push() for one sample (non-negative; errors are negative rtc_status). */
typedef enum {
    RTC_EST_ACCEPTED = 0,      /**< sample taken into the estimate */
    RTC_EST_ACCEPTED_RESET,    /**< accepted, and it completed gate_reset consecutive gate
                                    rejections: the Kalman filter restarted its level on the
                                    rejected run */
    RTC_EST_DROPPED_OLD,       /**< sample time older than the newest sample seen: dropped */
    RTC_EST_DROPPED_DUPLICATE, /**< sample time equal to the newest sample seen: dropped */
    RTC_EST_REJECTED_OUTLIER,  /**< Kalman innovation outside the gate: rejected */
    RTC_EST_REJECTED_INVALID,  /**< value or a supplied derivative is NaN or infinite */
} rtc_est_verdict;

/** Most consecutive gate rejections the filter buffers before it re-initialises. */
#define RTC_EST_GATE_MAX 16

/* ---------------------------------------------------------------------------------------- */
/* Configuration (filled at load by the SSP annotation reader or by code)                    */
/* ---------------------------------------------------------------------------------------- */

/**
 * Configuration of one estimator. Start from rtc_est_config_init() and change fields, or let
 * rtc_est_config_parse() fill it from a method name and "key=value" parameters. Fields a
 * method does not use are ignored by it (but still validated).
 *
 * Parameter keys of rtc_est_config_parse() are given in brackets. Durations accept a unit
 * suffix ns, us, ms or s; a bare number is in seconds (the SSP convention).
 */
typedef struct rtc_est_config {
    rtc_est_method method;
    /** [fresh] Age up to which an estimate is RTC_EST_FRESH, ns (>= 0; default 0: only a
     *  sample at exactly the query time, or newer, is fresh). */
    int64_t fresh_ns;
    /** [stale] Staleness limit, ns: at an age >= this the stale policy applies. 0 disables
     *  staleness (default). Must be greater than fresh_ns when set. */
    int64_t stale_ns;
    /** [policy] hold | fallback | fault (default hold). */
    rtc_est_stale_policy stale_policy;
    /** [fallback] Value for NODATA, the fallback policy and FAULT, in signal units (default 0,
     *  must be finite). */
    double fallback;
    /** [q] Kalman process noise. kalman-cv: variance of a white acceleration held constant
     *  over each sample interval, (units/s^2)^2, so Q = q*[dt^4/4, dt^3/2; dt^3/2, dt^2].
     *  kalman-ca: variance of a white jerk held constant over each interval, (units/s^3)^2,
     *  so Q = q*g*g' with g = [dt^3/6, dt^2/2, dt]. >= 0 (default 1). */
    double q;
    /** [r] Kalman measurement-noise variance, units^2, > 0 (default 1e-6). Use
     *  rtc_est_noise_estimate() on a recorded trace to find it. */
    double r;
    /** [gate] Kalman innovation gate in standard deviations: a sample whose normalised
     *  innovation nu^2/S exceeds gate^2 (chi-square, 1 degree of freedom) is rejected as an
     *  outlier. 0 disables gating. Default 5 (false rejection rate 6e-7 per sample). */
    double gate;
    /** [gate_reset] After this many consecutive rejections the filter assumes a genuine step
     *  and restarts its level on the rejected samples (value variance widened by the squared
     *  innovation, rate and acceleration kept), and counts a reset. 1 to RTC_EST_GATE_MAX;
     *  default 3, 2 for kalman and auto (1 turns the gate into a step detector that never
     *  rejects). */
    uint32_t gate_reset;
    /** [order] Dead-reckoning model order: 0 position, 1 + velocity, 2 + acceleration
     *  (default 2). */
    uint32_t order;
    /** [interval] Extrapolated-interpolation interval H, ns; 0 (default) uses the spacing of
     *  the last two samples. */
    int64_t interval_ns;
    /** [adapt] Kalman filters: 1 estimates q and r online from the innovation sequence
     *  (whiteness of the innovations sets the ratio q/r, their variance the scale; both
     *  kept within the bounds RTC_EST_ADAPT_RATIO_MIN..MAX and r >= RTC_EST_ADAPT_R_FLOOR
     *  relative to the signal), starting from q and r; 0 keeps q and r fixed. Default 1
     *  for kalman and auto, 0 for kalman-cv and kalman-ca. The values in use are in
     *  rtc_est_get_monitor(). */
    bool adapt;
    /** [window] auto and kalman: the number of recent samples whose prediction errors
     *  score each candidate (an exponential average of that length; auto also keeps one
     *  over 16 windows, see RTC_EST_AUTO). 4 to 4096, default 32. (An adaptive filter
     *  averages its innovations over 32 updates, whatever the window.) */
    uint32_t window;
    /** [margin] auto and kalman: hysteresis. The candidate in use is replaced only by one
     *  whose recent RMS prediction error is below (1 - margin) times its own. 0 to 0.9,
     *  default 0.1. */
    double margin;
    /** [payback] The payback coupling element, for a signal whose integral the consumer
     *  accumulates (a force into a mass, a current into a capacitor): 0 off (default, every
     *  method). k > 0: every error supplied is learned when the samples for its time arrive
     *  — the blind start's (the consumer held at the first sample's value until it arrived)
     *  and then each sample against what was supplied for its time — and paid back, in
     *  momentum (its integral) and position (the integral of that), by a correction added
     *  to every supplied value that brings both debts to zero critically damped with the
     *  rate w = 1/(k × mean delay) (the sample spacing when nothing is delayed), at
     *  most 0.5 / the consumer's tick. The
     *  consumer then ends with the delay-free coupling's momentum and position; the price
     *  is a larger instantaneous error (the corrections), and on a noisy signal the
     *  integral follows the noise. Wrong for a level, a position or a set-point. The
     *  monitor measures the supplied value, correction included, and reports the
     *  correction. >= 0, finite. */
    double payback;
} rtc_est_config;

/** Bounds of an adaptive Kalman filter (rtc_est_config.adapt): the tracking index
 *  q dt^4 / r (cv) or q dt^6 / r (ca), dt the mean sample interval, stays within
 *  [MIN, MAX] (MAX: the filter follows the samples like linear or quadratic extrapolation;
 *  MIN: it averages over about a thousand samples), and r stays at least FLOOR times the
 *  squared signal level (1e-12: below double round-off of the values it filters). */
#define RTC_EST_ADAPT_RATIO_MIN 1e-9
#define RTC_EST_ADAPT_RATIO_MAX 1e3
#define RTC_EST_ADAPT_R_FLOOR 1e-24

/**
 * Fill @p cfg with the defaults listed in rtc_est_config and the given method.
 *
 * @param cfg     written completely (caller-owned).
 * @param method  the method to configure.
 * Returns: RTC_OK.
 * Errors: RTC_EINVAL when @p cfg is NULL or @p method out of range (cfg untouched).
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE int rtc_est_config_init(rtc_est_config *cfg, rtc_est_method method);

/**
 * Check every field of @p cfg against the ranges documented in rtc_est_config.
 *
 * @param err, err_cap  optional buffer (may be NULL/0) for a message naming the field, e.g.
 *                      "estimator kalman-cv: r must be finite and > 0".
 * Returns: RTC_OK when valid.
 * Errors: RTC_EINVAL with a message.
 * RT-safe: no (formats text). Thread: any.
 */
int rtc_est_config_validate(const rtc_est_config *cfg, char *err, size_t err_cap);

/**
 * Set one parameter of @p cfg from text, as read from an SSP annotation attribute.
 * Keys are the bracketed names in rtc_est_config: fresh, stale, policy, fallback, q, r, gate,
 * gate_reset, order, interval, adapt (0/1, off/on, false/true), window, margin, payback. The result
 * is validated as a whole; on any error @p cfg is left unchanged.
 *
 * @param key, value  NUL-terminated text; surrounding white space is ignored.
 * Returns: RTC_OK.
 * Errors: RTC_EINVAL for NULL arguments; RTC_ENOTFOUND for an unknown key ("unknown
 *         estimator parameter 'x'"); RTC_EPARSE for a malformed number or duration; RTC_EINVAL
 *         for an out-of-range value. @p err receives a message naming the key.
 * RT-safe: no. Thread: any.
 */
int rtc_est_config_set(
    rtc_est_config *cfg, const char *key, const char *value, char *err, size_t err_cap);

/**
 * Build a configuration from a method name and a parameter list: rtc_est_config_init() for
 * the method, then rtc_est_config_set() for each "key=value" item. Items are separated by
 * ';', ',' or white space, e.g. method "kalman-ca", params "q=3e4; r=2.5e-5; stale=50ms".
 *
 * @param method  one of the names of rtc_est_method_name(), plus the aliases "hold" and
 *                "constant" (zoh), "poly2" (quadratic), "dr" (dead-reckoning),
 *                "kalman-adaptive" (kalman); case-insensitive.
 * @param params  may be NULL or empty (defaults only).
 * @param cfg     written only on success.
 * Returns: RTC_OK.
 * Errors: RTC_ENOTFOUND unknown method or key, RTC_EPARSE malformed item (no '=', bad
 *         number), RTC_EINVAL out-of-range value; the message in @p err names the item.
 * RT-safe: no. Thread: any.
 */
int rtc_est_config_parse(
    rtc_est_config *cfg, const char *method, const char *params, char *err, size_t err_cap);

/**
 * Canonical name of a method ("zoh", "linear", "quadratic", "ei", "dead-reckoning",
 * "kalman-cv", "kalman-ca", "kalman", "auto").
 *
 * Returns: a static string; "?" for values out of range.
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE const char *rtc_est_method_name(rtc_est_method method);

/**
 * @p cfg as one line of text: the method name and the parameters it uses, with the keys of
 * rtc_est_config_set() ("kalman-cv q=1 r=1e-06 gate=5 gate_reset=3 stale=0.05s policy=hold
 * fallback=0"); NULL: "zoh" (no estimator). Truncated to @p cap.
 * RT-safe: no (formats text). Thread: any.
 */
void rtc_est_config_text(const rtc_est_config *cfg, char *buf, size_t cap);

/**
 * Method from its name or alias (case-insensitive).
 *
 * Returns: RTC_OK and *out set.
 * Errors: RTC_EINVAL NULL argument; RTC_ENOTFOUND unknown name (*out untouched).
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE int rtc_est_method_from_name(const char *name, rtc_est_method *out);

/**
 * Name of a quality ("fresh", "extrapolated", "stale", "nodata", "fault") for logs and the
 * run summary.
 *
 * Returns: a static string; "?" for values out of range.
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE const char *rtc_est_quality_name(rtc_est_quality quality);

/* ---------------------------------------------------------------------------------------- */
/* The estimator                                                                             */
/* ---------------------------------------------------------------------------------------- */

/** One sample of a coupling signal, as the producer stamped it. */
typedef struct rtc_est_sample {
    int64_t t_ns;       /**< time the value belongs to (source's logical time), ns */
    int64_t arrival_ns; /**< time the receiver got it, same clock, ns; set it to t_ns when
                             unknown. Used for delay statistics and to anchor "ei" */
    double value;       /**< the value, signal units */
    double deriv[2];    /**< optional first and second time derivative, units/s, units/s^2 */
    uint32_t n_deriv;   /**< how many entries of deriv[] are valid: 0, 1 or 2 */
} rtc_est_sample;

/** Result of one query. */
typedef struct rtc_est_out {
    double value;            /**< estimate at the query time, signal units */
    double rate;             /**< estimated first derivative, units/s (0 for zoh and for
                                  fallback/held values) */
    int64_t age_ns;          /**< query time minus the newest accepted sample time, ns;
                                  negative when that sample is newer than the query time;
                                  INT64_MAX when no sample was accepted yet */
    rtc_est_quality quality; /**< also the return value of rtc_est_query() */
} rtc_est_out;

/** Counters of one estimator since rtc_est_new() (rtc_est_reset() keeps them). */
typedef struct rtc_est_stats {
    uint64_t offered;           /**< calls of rtc_est_push() with valid arguments */
    uint64_t accepted;          /**< verdicts ACCEPTED + ACCEPTED_RESET */
    uint64_t dropped_old;       /**< out-of-order samples dropped */
    uint64_t dropped_duplicate; /**< samples with an already seen time dropped */
    uint64_t rejected_outlier;  /**< samples rejected by the innovation gate */
    uint64_t rejected_invalid;  /**< non-finite samples rejected */
    uint64_t resets;            /**< filter re-initialisations after gate_reset rejections */
    int64_t newest_t_ns;        /**< time of the newest accepted sample; INT64_MIN if none */
    int64_t delay_last_ns;      /**< arrival_ns - t_ns of the last accepted sample */
    int64_t delay_max_ns;       /**< largest such delay seen (accepted samples) */
    double delay_mean_ns;       /**< mean of such delays (accepted samples), 0 if none */
} rtc_est_stats;

/** An estimator (opaque; one per coupling input). */
typedef struct rtc_est rtc_est;

/**
 * Allocate an estimator for @p cfg (arm phase). The object is fixed-size: nothing is
 * allocated after this call.
 *
 * @param cfg  validated here; copied, the caller keeps ownership.
 * @param out  receives the new estimator, to be released with rtc_est_free().
 * @param err, err_cap  optional message buffer for a rejected configuration.
 * Returns: RTC_OK.
 * Errors: RTC_EINVAL NULL argument or invalid configuration (message in @p err);
 *         RTC_ENOMEM. *out is NULL on error.
 * RT-safe: no (allocates). Thread: any.
 */
int rtc_est_new(const rtc_est_config *cfg, rtc_est **out, char *err, size_t err_cap);

/**
 * Release an estimator. NULL is a no-op.
 *
 * RT-safe: no. Thread: the owner, when no other call is running on @p est.
 */
void rtc_est_free(rtc_est *est);

/**
 * Forget every sample and the filter state (as just after rtc_est_new()); keep the
 * counters. For a reconnecting source whose clock may have restarted.
 *
 * Returns: RTC_OK.
 * Errors: RTC_EINVAL when @p est is NULL.
 * RT-safe: yes. Thread: the owner.
 */
RTC_RT_SAFE int rtc_est_reset(rtc_est *est);

/**
 * Offer one sample. Samples are taken in sample-time order: a sample not newer than the
 * newest one seen (accepted or gate-rejected) is dropped and counted. For the Kalman methods
 * an accepted sample updates the filter at its own time t_ns, however late it arrived; a
 * sample whose innovation fails the gate is rejected and counted, and the filter state is
 * unchanged, until gate_reset consecutive rejections prove a genuine step: then the filter
 * restarts its level on the rejected run (see rtc_est_config.gate_reset) and the verdict is
 * RTC_EST_ACCEPTED_RESET. Kalman filters ignore supplied derivatives; dead reckoning uses
 * them. An in-order sample is first compared with what was supplied for its time
 * (rtc_est_supply()): the monitor's error, and for auto and kalman their candidates'
 * scores. An adaptive filter's gate rejection widens its noise scale (the estimate itself
 * does not move).
 *
 * @param est     the estimator.
 * @param sample  read only; not kept.
 * Returns: a non-negative rtc_est_verdict.
 * Errors: RTC_EINVAL (negative) when @p est or @p sample is NULL or n_deriv > 2 (nothing
 *         counted, nothing changed).
 * RT-safe: yes (bounded time, no allocation). Thread: the owner.
 */
RTC_RT_SAFE int rtc_est_push(rtc_est *est, const rtc_est_sample *sample);

/**
 * Estimate the signal at time @p t_ns without changing the estimator (the Kalman state is
 * predicted forward to @p t_ns on a copy). Any query time is allowed, also one older than
 * the newest sample.
 *
 * Quality and value: no sample yet -> NODATA, fallback. Age <= fresh_ns -> FRESH, the
 * method's estimate. Age < stale_ns (or staleness off) -> EXTRAPOLATED, the estimate. Age
 * >= stale_ns -> by policy: HOLD gives STALE with the estimate evaluated at (newest sample
 * time + stale_ns), constant from then on; FALLBACK gives STALE with the fallback value;
 * FAULT gives FAULT with the fallback value.
 *
 * @param est    the estimator (not modified).
 * @param t_ns   query time on the same clock as the sample times.
 * @param out    receives value, rate, age and quality; may be NULL when only the quality
 *               matters.
 * Returns: the rtc_est_quality (non-negative).
 * Errors: RTC_EINVAL (negative) when @p est is NULL.
 * RT-safe: yes. Thread: the owner.
 */
RTC_RT_SAFE int rtc_est_query(const rtc_est *est, int64_t t_ns, rtc_est_out *out);

/**
 * The consumer's query at its tick: rtc_est_query(), and a note of what was supplied at
 * @p t_ns (for auto and kalman: what every candidate would have supplied). When a sample
 * for a time between two noted ticks arrives later, the value supplied for its time (the
 * two notes interpolated linearly) is compared with it: that is the prediction error of
 * rtc_est_get_monitor(), and what auto and kalman choose their candidate by. The real-time
 * loop calls this once per tick and consumer; rtc_est_query() stays a pure question.
 * With payback (rtc_est_config.payback > 0) the value supplied, and noted, includes the
 * payback correction (the value of an estimate only, not a fallback value); the call then
 * also pays that correction into the debts, so call it once per tick, in time order.
 *
 * Notes are kept for the latest RTC_EST_NOTES ticks, spaced by at least 1/16 of the mean
 * sample delay (so they reach back twice the mean delay, or more); a sample older than the
 * oldest note, or newer than the newest (no delay), is compared with the estimate for its
 * time from the samples before it. Queries not after the newest note, and queries without
 * data (NODATA), are answered but not noted.
 *
 * Returns / Errors: as rtc_est_query().
 * RT-safe: yes (bounded time, no allocation). Thread: the owner.
 */
RTC_RT_SAFE int rtc_est_supply(rtc_est *est, int64_t t_ns, rtc_est_out *out);

/** auto holds a signal that arrives, on average, less often than once per this many
 *  consumer ticks (rtc_est_supply() calls): a sparse signal — mostly a set-point sent on
 *  change — is not extrapolated across its gaps. */
#define RTC_EST_SPARSE_TICKS 50

/** Ticks of supplied values an estimator remembers for its monitor (rtc_est_supply()). */
#define RTC_EST_NOTES 48

/** Candidates auto runs (and the most any estimator has). */
#define RTC_EST_MAX_CANDIDATES 5

/** One candidate of an estimator: for auto and kalman each of theirs, for any other
 *  method the method itself. */
typedef struct rtc_est_candidate {
    rtc_est_method method; /**< the candidate's method */
    uint64_t ticks;        /**< supplied values (ticks) while it was the one in use; its
                                share of the time is ticks / rtc_est_monitor.supplied */
    double score_rms;      /**< its recent RMS prediction error (the exponential average
                                over the window auto and kalman choose by); 0 until scored */
    double q, r;           /**< Kalman candidates: the process and measurement noise in use
                                now (adapted, or as configured); NaN for other methods */
} rtc_est_candidate;

/** What an estimator did for its consumer (rtc_est_get_monitor()). */
typedef struct rtc_est_monitor {
    uint64_t samples;      /**< accepted samples compared with what was supplied for their
                                time (the first sample has nothing to be compared with) */
    double error_rms;      /**< RMS of (supplied for the sample's time - sample), units */
    double error_max;      /**< largest |supplied - sample|, units */
    double error_last;     /**< the last signed error, units */
    uint64_t supplied;     /**< ticks a value was supplied at (rtc_est_supply(), quality
                                not NODATA) */
    uint64_t delays;       /**< delays measured: accepted samples */
    int64_t delay_min_ns, delay_p50_ns, delay_p99_ns, delay_max_ns; /**< arrival - sample
                                time of the accepted samples (percentiles within 1 %;
                                negative delays count as 0); 0 when none */
    double delay_mean_ns;
    uint32_t n_candidates; /**< entries of cand[]: 1 for a single method */
    uint32_t in_use;       /**< index into cand[] of the candidate in use now */
    uint64_t switches;     /**< changes of the candidate in use */
    rtc_est_candidate cand[RTC_EST_MAX_CANDIDATES];
    double payback_last;   /**< payback: the correction in the last supplied value, units
                                (0 when payback is off) */
    double payback_max;    /**< payback: the largest |correction| supplied, units */
    uint64_t payback_unpaid; /**< payback: sample intervals whose error could not be
                                  learned, so not paid back: older than the notes reach,
                                  or a gap (over 4 times the samples' average spacing) */
} rtc_est_monitor;

/**
 * The monitor of @p est: prediction error, delays, candidates and their noise parameters.
 * Each figure is read whole; read while the owner runs, the set is only approximately
 * consistent (a live view), exact once the owner has stopped.
 *
 * Returns: RTC_OK.
 * Errors: RTC_EINVAL for NULL arguments.
 * RT-safe: yes. Thread: any (the owner's writes are single-writer atomics).
 */
RTC_RT_SAFE int rtc_est_get_monitor(const rtc_est *est, rtc_est_monitor *out);

/**
 * Copy the counters and delay statistics of @p est into @p out.
 *
 * Returns: RTC_OK.
 * Errors: RTC_EINVAL for NULL arguments.
 * RT-safe: yes. Thread: the owner (or another thread while the owner is stopped).
 */
RTC_RT_SAFE int rtc_est_get_stats(const rtc_est *est, rtc_est_stats *out);

/**
 * The configuration @p est was created with.
 *
 * Returns: a pointer into @p est, valid until rtc_est_free(); NULL when @p est is NULL.
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE const rtc_est_config *rtc_est_get_config(const rtc_est *est);

/* ---------------------------------------------------------------------------------------- */
/* Coupling-error monitor (Milne's device)                                                   */
/* ---------------------------------------------------------------------------------------- */

/**
 * Accumulated coupling error of one connection: for each step, what the estimator supplied
 * for an instant minus what the source produced for that instant once it arrived. Plain
 * caller-owned data, so the master keeps one per connection and the run summary reads it.
 */
typedef struct rtc_est_errmon {
    uint64_t count;   /**< pairs accumulated */
    double sum_sq;    /**< sum of squared errors, units^2 */
    double max_abs;   /**< largest absolute error, units */
    double last;      /**< last signed error (predicted - actual), units */
    uint64_t invalid; /**< pairs skipped because one side was not finite */
} rtc_est_errmon;

/**
 * Zero a monitor.
 *
 * RT-safe: yes. Thread: the owner. A NULL @p mon is ignored.
 */
RTC_RT_SAFE void rtc_est_errmon_init(rtc_est_errmon *mon);

/**
 * Accumulate one pair (value the estimator supplied for an instant, value the source
 * produced for it). Non-finite pairs are counted in @c invalid and otherwise ignored.
 *
 * RT-safe: yes. Thread: the owner. A NULL @p mon is ignored.
 */
RTC_RT_SAFE void rtc_est_errmon_push(rtc_est_errmon *mon, double predicted, double actual);

/**
 * Root mean square of the accumulated errors.
 *
 * Returns: sqrt(sum_sq / count); 0 when nothing was accumulated or @p mon is NULL.
 * RT-safe: yes. Thread: any, while the owner does not push.
 */
RTC_RT_SAFE double rtc_est_errmon_rms(const rtc_est_errmon *mon);

/**
 * Push @p sample into @p est and feed @p mon with Milne's indicator for it: the estimate the
 * estimator gave for the sample's own time just before the sample was pushed, against the
 * sample's value. The pair is accumulated only when the sample is accepted and an estimate
 * existed (quality not NODATA); rejected and dropped samples do not count.
 *
 * This is the hook for the master: call it instead of rtc_est_push() for every connection
 * whose coupling error is monitored.
 *
 * Returns / Errors: as rtc_est_push(); RTC_EINVAL also when @p mon is NULL.
 * RT-safe: yes. Thread: the owner of both.
 */
RTC_RT_SAFE int
rtc_est_push_monitored(rtc_est *est, const rtc_est_sample *sample, rtc_est_errmon *mon);

/* ---------------------------------------------------------------------------------------- */
/* Sender-side dead reckoning                                                                */
/* ---------------------------------------------------------------------------------------- */

/**
 * Sender-side dead-reckoning rule (distributed interactive simulation): the source keeps
 * the receiver's model of the last transmitted state and transmits a new sample only when
 * that model would deviate from the true value by more than the threshold, or when the
 * heartbeat interval has passed. A receiver running a "dead-reckoning" estimator of the same
 * order then stays within the threshold at every offered instant (without transport delay).
 */
typedef struct rtc_est_dr_config {
    uint32_t order;       /**< receiver model: 0 position, 1 + velocity, 2 + acceleration */
    double threshold_abs; /**< absolute threshold, signal units (>= 0) */
    double threshold_rel; /**< threshold relative to @c amplitude (>= 0); the effective
                               threshold is max(threshold_abs, threshold_rel * amplitude),
                               and must be > 0 */
    double amplitude;     /**< signal amplitude for threshold_rel, units (>= 0) */
    int64_t heartbeat_ns; /**< transmit at least this often, ns; 0 = never forced */
} rtc_est_dr_config;

/** State of one sender (caller-owned, fixed size; fields are read-only for callers). */
typedef struct rtc_est_dr_sender {
    rtc_est_dr_config cfg;
    double threshold;       /**< effective threshold, units */
    uint64_t offered;       /**< values offered */
    uint64_t transmitted;   /**< values that had to be transmitted */
    bool have_last;         /**< a transmission happened */
    rtc_est_sample last;    /**< last transmitted state (the receiver's model) */
    rtc_est_sample prev[2]; /**< previous two offers, newest first (derivative estimates) */
    uint32_t n_prev;        /**< how many of prev[] are valid (0..2) */
} rtc_est_dr_sender;

/**
 * Initialise a sender from @p cfg.
 *
 * Returns: RTC_OK.
 * Errors: RTC_EINVAL NULL argument, order > 2, negative or non-finite thresholds or
 *         amplitude, effective threshold 0, negative heartbeat (*snd untouched).
 * RT-safe: yes. Thread: the owner.
 */
RTC_RT_SAFE int rtc_est_dr_sender_init(rtc_est_dr_sender *snd, const rtc_est_dr_config *cfg);

/**
 * Offer the true value at @p t_ns (times must increase). Decide whether the receiver needs
 * it: the first offer, a heartbeat due (t_ns - last transmission >= heartbeat_ns), or
 * |value - receiver prediction| > threshold. When transmitting, @p tx receives the sample to
 * send (arrival_ns = t_ns, value, the derivatives the receiver model needs).
 *
 * @param deriv    true derivatives when the source knows them (1 or 2 entries, see
 *                 @p n_deriv), else NULL: the sender then estimates them by backward
 *                 differences of the offered values.
 * @param n_deriv  number of entries in @p deriv (0..2).
 * @param tx       receives the sample when the function returns 1; untouched otherwise.
 * Returns: 1 transmit @p tx, 0 nothing to send.
 * Errors: RTC_EINVAL NULL sender/tx, n_deriv > 2, or t_ns not after the previous offer
 *         (nothing changed).
 * RT-safe: yes. Thread: the owner.
 */
RTC_RT_SAFE int rtc_est_dr_sender_offer(rtc_est_dr_sender *snd,
                                        int64_t t_ns,
                                        double value,
                                        const double *deriv,
                                        uint32_t n_deriv,
                                        rtc_est_sample *tx);

/**
 * The receiver's dead-reckoned value at @p t_ns from a transmitted state @p s and model
 * order: value + d1*dt + d2*dt^2/2, dt = t_ns - s->t_ns in seconds, using the derivatives
 * the sample carries up to @p order (missing ones count as 0). The sender and the
 * "dead-reckoning" estimator both call it, so their models agree to the last bit.
 *
 * Returns: the predicted value; NaN when @p s is NULL.
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE double rtc_est_dr_predict(const rtc_est_sample *s, uint32_t order, int64_t t_ns);

/* ---------------------------------------------------------------------------------------- */
/* Noise-parameter estimation                                                                */
/* ---------------------------------------------------------------------------------------- */

/** Result of rtc_est_noise_estimate(). */
typedef struct rtc_est_noise {
    double r;           /**< measurement-noise variance, units^2 */
    double q_process;   /**< kalman-cv q if the signal were the model's own random process
                             (white acceleration held over each interval), (units/s^2)^2 */
    double q_smooth;    /**< mean square acceleration of a smooth deterministic signal,
                             (units/s^2)^2: the kalman-cv q that matches the velocity change
                             per interval of such a signal (see rtc_est_noise_estimate()) */
    double q_smooth_ca; /**< mean square jerk of a smooth signal, (units/s^3)^2: the
                             matching kalman-ca q */
    uint32_t stride;    /**< sample stride used for q_process and q_smooth */
    uint32_t stride_ca; /**< sample stride used for q_smooth_ca */
    double h_s;         /**< median sample interval, s */
    size_t used;        /**< residuals used for r */
} rtc_est_noise;

/**
 * Estimate Kalman noise parameters from a recorded trace of a smooth signal plus white noise.
 *
 * r: each interior sample is compared with the straight line through its two neighbours,
 * e_k = v_k - (w v_{k-1} + (1-w) v_{k+1}), w = (t_{k+1}-t_k)/(t_{k+1}-t_{k-1}), which cancels
 * any linear trend exactly; for white noise var(e_k) = r (1 + w^2 + (1-w)^2) (1.5 r at equal
 * spacing), and the signal's own curvature adds only about (h^2 u''/2)^2, negligible when the
 * trace is sampled much faster than it changes. The scale of e is taken robustly from the
 * median absolute value (median |e| = 0.6745 sigma for a normal), so isolated outliers and
 * steps do not inflate r.
 *
 * Runs of samples whose residual exceeds 6 sigma are classified: a step when the level
 * changes across the run by more than the run's largest residual (a step of height A leaves
 * residuals of A/2 and a level change of A), else outliers (residual A, no level change).
 *
 * q: at a stride s the windows (t_{k-s}, t_k, t_{k+s}) give A = 2 f[...], twice the second
 * divided difference on the actual times, which is u'' for a smooth signal and is not
 * fooled by lost samples (uneven spacing); its noise part is r times the sum of its squared
 * coefficients (6 r / (s h)^4 at even spacing). Windows touching an outlier or spanning a
 * step are left out. The stride doubles from 1 until the signal part m = E[A^2] - E[noise
 * part] exceeds three times the noise part (or s reaches n/8), because at stride 1 a
 * fast-sampled signal is buried in the noise. Then
 *   q_smooth  = m = E[u''^2], the mean square acceleration of a smooth signal;
 *   q_process = m 6 s^3 / (4 s^2 - 1): exact for the kalman-cv noise model itself (white
 *               acceleration of variance q held over each interval gives E[D^2] =
 *               q h^4 s (4 s^2 - 1) / 6 for D = v_{k+s} - 2 v_k + v_{k-s}); for a
 *               deterministic signal it grows with the stride, use q_smooth there;
 *   q_smooth_ca: the same with third divided differences (4 samples, 6 f[...] = u^(3)),
 *               the mean square jerk.
 * Each q is 0 when no signal part was found.
 *
 * Tuning advice: a deterministic signal changes its velocity persistently rather than as
 * white noise, so the filter wants more than the mean square: q of about 30 x q_smooth for
 * kalman-cv and 60 x q_smooth_ca for kalman-ca minimised the RMS error over the sine, ramp
 * and plant cases of scripts/bench-estimation (r as estimated here).
 * The trace should hold at least 16 samples; spacing may vary (h_s reports the median).
 *
 * @param t_ns, v  n sample times (strictly increasing) and values; read only.
 * @param out      written on success.
 * Returns: RTC_OK.
 * Errors: RTC_EINVAL NULL argument, n < 16, times not strictly increasing or a value not
 *         finite; RTC_ENOMEM.
 * RT-safe: no (allocates work arrays, sorts). Thread: any.
 */
int rtc_est_noise_estimate(const int64_t *t_ns, const double *v, size_t n, rtc_est_noise *out);

#endif
