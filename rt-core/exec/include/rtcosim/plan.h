/*
 * rtcosim/plan.h — real-time feasibility from a measured profile (rtcosim/profile.h):
 * will this system keep its period on this machine, by how much, and what to change if
 * not. `rtcosim plan --realtime` prints it; `rtcosim run --realtime` refuses to arm an
 * infeasible system with it.
 *
 * The model (../shared/DESIGN.md, T5):
 *   - each unit's work per step X_i is the distribution measured in the profile (one
 *     sample per tick it worked in); the engine's own work per tick E (exchange, link
 *     estimators, hand-off) is what the profiled ticks took beyond their units; the
 *     wake-up latency W is the profile's;
 *   - a tick's work is E + compose(X_i of the units due in it): the sum on one thread
 *     (Jacobi, Gauss-Seidel, Parallel Fast — every master steps the due units of a base
 *     tick on the real-time thread), the I/O units' refresh plus the longest thread with
 *     Jacobi workers (each worker's units in sequence, rtc_system_worker_owner());
 *   - multi-rate: the units due at tick k repeat with the hyperperiod lcm(h_i)/tick; every
 *     distinct set of due units is a pattern, weighted by how often it occurs; the worst
 *     pattern decides (a heavy tick that comes every hyperperiod overruns every time);
 *   - the response of a tick is W + work; its distribution is sampled (Monte Carlo,
 *     fixed seed: the same profile gives the same plan) drawing each unit's X_i
 *     independently and E, W from one profiled tick;
 *   - utilisation of a thread = its expected work per tick / period; slack = period −
 *     response at the percentile; headroom = slack / period; the predicted overrun rate is
 *     the sampled P(response > period), weighted over the patterns.
 *
 * Verdict: infeasible when a thread's utilisation is >= 1, when even the median tick of
 * the worst pattern misses the period, or when the response at the percentile does and
 * the profile is trustworthy; tight when the headroom is below the margin, or when only
 * an untrustworthy profile's tail misses; else feasible. A profile is not trustworthy
 * (plan.confident false, plan.doubts says why) when it ran without SCHED_FIFO, on a
 * loaded machine (1-minute load average above 0.7 per CPU), with a wake-up p99 above a
 * quarter of the period, with too few ticks for the percentile (fewer than 2 expected
 * beyond it), or with a unit that never worked in it. A noisy machine therefore gives a
 * plan that says so, never a confident verdict drawn from the noise.
 */
#ifndef RTCOSIM_PLAN_H
#define RTCOSIM_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/profile.h"
#include "rtcosim/rtsafe.h"
#include "rtcosim/system.h"

/** Most options one plan lists. */
#define RTC_PLAN_MAX_OPTIONS 16
/** Hand-off to Jacobi workers per tick when a profile without workers cannot show it
 *  (futex wake and wait, both ways): an assumption, stated where it is used. */
#define RTC_PLAN_WORKER_HANDOFF_NS INT64_C(20000)

/** A distribution, ns: from the profile (measured) or from the model (predicted). */
typedef struct rtc_plan_dist {
    uint64_t samples;
    int64_t p50, p99, p999, max;
    double mean;
} rtc_plan_dist;

typedef enum {
    RTC_PLAN_FEASIBLE = 0,
    RTC_PLAN_TIGHT,
    RTC_PLAN_INFEASIBLE,
} rtc_plan_verdict;

/** "feasible", "tight", "infeasible". RT-safe: yes. */
RTC_RT_SAFE const char *rtc_plan_verdict_name(rtc_plan_verdict v);

/** What the caller knows of a unit that the system layer does not (a Model Exchange
 *  unit's solver, from its plug-in). */
typedef struct rtc_plan_unit_hint {
    bool me;              /**< a Model Exchange unit */
    const char *solver;   /**< "euler", "heun", "rk4", "implicit" (copied) */
    unsigned substeps;    /**< solver steps per communication step */
} rtc_plan_unit_hint;

/** Settings of an analysis. */
typedef struct rtc_plan_opts {
    int64_t period_ns;    /**< the run's period: tick / rtf (> 0) */
    double rtf;           /**< the run's real-time factor (> 0) */
    unsigned workers;     /**< Jacobi workers of the run */
    bool substitute;      /**< the run's overrun policy is substitute */
    bool iterate;         /**< strong coupling (no workers then) */
    unsigned profile_workers; /**< workers of the profiling run (its E includes their
                                   hand-off); usually = workers */
    double percentile;    /**< e.g. 0.999 (0: 0.999) */
    double margin;        /**< headroom below which the plan is tight (0: 0.2) */
    const rtc_plan_unit_hint *hints; /**< per unit, or NULL */
} rtc_plan_opts;

/** One unit in a plan. */
typedef struct rtc_plan_unit {
    char name[128];
    const char *kind;     /**< the unit's kind ("fmi2-cs", ...; "io" for I/O units) */
    int64_t step_ns;      /**< its communication step (I/O units: every tick) */
    size_t thread;        /**< under the analysed structure: 0 the RT thread, w a worker */
    rtc_plan_dist work;   /**< measured work per tick it worked in */
    double share;         /**< mean work per tick / period */
    double d;             /**< real-time factor d_i = work at the percentile / (h_i/rtf)
                               (Parallel Fast's input; > 1: slower than real time) */
} rtc_plan_unit;

/** One concrete change and its predicted effect; only changes predicted to shorten the
 *  response by at least 5 % are listed. */
typedef struct rtc_plan_option {
    char change[256];     /**< what to type or edit ("--workers 1", ...) */
    char effect[256];     /**< what it does, in a sentence */
    int64_t response_ns;  /**< predicted response at the percentile (worst pattern) */
    double headroom;      /**< predicted headroom (negative: still misses) */
    rtc_plan_verdict verdict;
} rtc_plan_option;

/** Result of rtc_plan_new(). Plain data; free with rtc_plan_free(). */
typedef struct rtc_plan {
    rtc_plan_opts o;      /**< with defaults filled in (hints: NULL) */
    size_t n_units;
    rtc_plan_unit *units;
    size_t n_threads;     /**< RT thread + workers */
    double *utilisation;  /**< per thread: expected work per tick / period */
    rtc_plan_dist wakeup;   /**< measured */
    rtc_plan_dist engine;   /**< measured: E per tick */
    rtc_plan_dist measured; /**< the profile's own ticks: step + hand-off (a check of the
                                 model on the profiled structure) */
    rtc_plan_dist work;     /**< predicted tick work (E + units), all ticks */
    rtc_plan_dist response; /**< predicted W + work, all ticks */
    rtc_plan_dist worst;    /**< predicted response of the worst pattern */
    char worst_units[256];  /**< the units due in it ("a b c") */
    size_t n_patterns;      /**< distinct sets of due units in a hyperperiod */
    int64_t hyperperiod_ns; /**< 0: beyond what was enumerated (the first patterns used) */
    int64_t response_ns;    /**< worst pattern's response at the percentile */
    int64_t slack_ns;       /**< period − response_ns */
    double headroom;        /**< slack / period */
    double overrun_rate;    /**< predicted fraction of ticks that overrun */
    double rate_floor;      /**< 1 / profiled ticks: rates below it are not resolved */
    long dominant;          /**< unit with the largest share, -1 none */
    int64_t wakeup_q;       /**< wake-up latency at the percentile (measured) */
    int64_t work_q;         /**< tick work at the percentile (predicted, all ticks) */
    bool wakeup_bound;      /**< it is more than half the response: this machine's
                                 scheduling, not the system's work, decides */
    rtc_plan_verdict verdict;
    bool confident;
    char doubts[512];       /**< why not confident ("" when confident) */
    char reason[512];       /**< the verdict in one clause ("the median tick ... misses") */
    size_t n_options;
    rtc_plan_option options[RTC_PLAN_MAX_OPTIONS];
} rtc_plan;

/**
 * Analyse @p prof (measured on @p sys with the same units) for the run @p o describes.
 * Lists options (workers, another thread assignment, a longer step for the dominating
 * unit with the substitute policy, another solver or substep count of a Model Exchange
 * unit, a slower pace) when the verdict is not feasible.
 * Returns RTC_OK and *out; RTC_EINVAL (no ticks in the profile, units differ, bad
 * options); RTC_ENOMEM. RT-safe: no. Thread: any.
 */
int rtc_plan_new(const rtc_system *sys, const rtc_profile *prof, const rtc_plan_opts *o,
                 rtc_plan **out);

/** Free; NULL is a no-op. RT-safe: no. */
void rtc_plan_free(rtc_plan *plan);

/**
 * Whether only this machine's scheduling stands between @p plan and its period: the wake-up
 * latency decides the response (wakeup_bound) while the system's own work at the
 * percentile fits the period. Such a verdict says how busy the machine was while it was
 * profiled, not what the system needs: `run --realtime` warns and arms instead of refusing.
 * Returns: false for NULL. RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE bool rtc_plan_scheduling_only(const rtc_plan *plan);

/**
 * Predicted response at the percentile of @p plan's system for another structure: its
 * worst pattern with @p workers and the thread of each unit in @p thread (NULL: the
 * engine's rule), each unit's work scaled by @p scale (NULL: 1), units with @p drop set
 * left out (NULL: none), and the period @p period_ns. Writes the overrun rate too (may be
 * NULL). Returns the response, or -1 (out of memory). RT-safe: no.
 */
int64_t rtc_plan_predict(const rtc_plan *plan, const rtc_system *sys, const rtc_profile *prof,
                         unsigned workers, const size_t *thread, const double *scale,
                         const bool *drop, int64_t period_ns, double *overrun_rate);

/* ---- placement on nodes (distributed runs: one process per node) ---- */

/** Most nodes a placement spreads over. */
#define RTC_PLAN_MAX_NODES 8

/** Units on nodes (rtc_plan_place()). */
typedef struct rtc_plan_placement {
    size_t n_nodes;
    size_t *node;          /**< per unit: its node (index into the caller's names) */
    size_t cut;            /**< connections between units on different nodes */
    int64_t response_ns[RTC_PLAN_MAX_NODES]; /**< each node's tick response at the
                                                  percentile, predicted (0: no unit) */
    double utilisation[RTC_PLAN_MAX_NODES];  /**< each node's RT thread, units only */
    bool fits;             /**< every node within its period less the margin */
    bool exhaustive;       /**< the best of every placement (else a local optimum) */
} rtc_plan_placement;

/**
 * Place @p plan's units (profiled in @p prof, of @p sys) on @p n_nodes nodes: among the
 * placements whose every node fits its period with the margin, the one that cuts the
 * fewest connections (each cut connection crosses the network: a tick of delay the
 * estimators must cover), then the one whose busiest node is least loaded; when none fits,
 * the one whose busiest node is least loaded. Each node is a tick of its own: wake-up,
 * engine and its units in sequence (no workers). @p fixed (per unit: a node, or SIZE_MAX;
 * NULL: none) pins units, e.g. an I/O component to the node wired to its bench.
 * Returns RTC_OK and @p out (rtc_plan_placement_clear() it); RTC_EINVAL (no node, more
 * than RTC_PLAN_MAX_NODES, a pin out of range, another system); RTC_ENOMEM.
 * RT-safe: no.
 */
int rtc_plan_place(const rtc_plan *plan, const rtc_system *sys, const rtc_profile *prof,
                   size_t n_nodes, const size_t *fixed, rtc_plan_placement *out);
void rtc_plan_placement_clear(rtc_plan_placement *p);

/* ---- on disk: DIR/plan.json and DIR/samples.csv (README, "Feasibility") ---- */

/** What a plan file was measured for. */
typedef struct rtc_plan_meta {
    char key[65];        /**< the cache key (64 hex digits): system, units' files,
                              options and machine */
    const char *system;  /**< the system's path as given */
    const char *machine; /**< one line naming the machine */
    const char *options; /**< one line: the options the profile depends on */
    const char *inputs;  /**< the session whose recorded inputs fed it, or NULL */
    int64_t ticks_asked; /**< ticks the profiling run was asked for */
} rtc_plan_meta;

/**
 * Write @p dir/samples.csv (the profile: a header naming the units of @p sys, then one
 * line per tick) and @p dir/plan.json (@p meta, the profiling run, the analysis, the
 * options), each replaced whole. Returns RTC_OK, RTC_ENOMEM or -errno. RT-safe: no.
 */
int rtc_plan_save(const rtc_plan *plan, const rtc_profile *prof, const rtc_system *sys,
                  const rtc_plan_meta *meta, const char *dir);

/**
 * Read the profile kept in @p dir back, for @p sys (the same units in the same order).
 * With @p key, a plan.json of another key is refused (RTC_EINVAL). *ticks_asked gets the
 * ticks its profiling run was asked for.
 * Returns RTC_OK and *out; RTC_ENOTFOUND (no plan there); RTC_EPARSE or RTC_EINVAL with
 * one line in @p err; RTC_ENOMEM. RT-safe: no.
 */
int rtc_plan_load_profile(const char *dir, const rtc_system *sys, const char *key,
                          rtc_profile **out, int64_t *ticks_asked, char *err, size_t cap);

/** Quantile @p q (0..1) of @p n sorted values, nearest rank. RT-safe: yes. */
RTC_RT_SAFE int64_t rtc_plan_quantile(const int64_t *sorted, size_t n, double q);

#endif
