/*
 * Feasibility planning in the CLI: `rtcosim plan --realtime` (cmd_plan.c) and the check
 * `rtcosim run --realtime` makes before it arms (cli_feasible.c). Both go through
 * rtc_cli_feasibility(): a plan from the cache when one was measured for the same
 * system, unit files, options and machine, else a profiling run (rtcosim/profile.h) of a
 * copy of the system whose I/O components are replay units — no driver is opened, so
 * profiling never touches a bench — then the analysis (rtcosim/plan.h).
 *
 * The cache: RTCOSIM_CACHE_DIR, else $XDG_CACHE_HOME/rtcosim, else ~/.cache/rtcosim; each
 * plan in plans/<first 16 hex digits of its key>/ (plan.json, samples.csv).
 */
#ifndef RTC_APP_PLAN_CLI_H
#define RTC_APP_PLAN_CLI_H

#include "rt_cli.h"

#include "rtcosim/plan.h"
#include "rtcosim/profile.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/** Ticks and wall-time budget of `plan --realtime` and of the check before a run. */
#define RTC_CLI_PLAN_TICKS 3000
#define RTC_CLI_PLAN_SECONDS 6.0
#define RTC_CLI_GUARD_TICKS 500
#define RTC_CLI_GUARD_SECONDS 1.5
/** Longest period of a profile: a system with a longer one (a slow Parallel Fast system,
 *  a 1 s tick) is profiled at this pace, so that its budget holds enough ticks; every
 *  HiL period up to it is profiled at its own pace — the same duty cycle as the run, so
 *  the kernel's real-time throttling (95 % of each second) treats both alike. */
#define RTC_CLI_PLAN_MAX_PERIOD_NS INT64_C(20000000)

/** What to plan. */
typedef struct rtc_cli_feas_opts {
    const char *path;              /**< the system */
    const rtc_system_options *so;
    const rtc_cli_rt *rt;          /**< the run's real-time options (the file's fill in) */
    const char *inputs;            /**< a session directory whose inputs.bin feeds the I/O
                                        units, or NULL */
    int64_t ticks;                 /**< ticks to profile */
    double seconds;                /**< wall-time budget of the profile */
    double percentile, margin;     /**< 0: the defaults of rtcosim/plan.h */
    bool reprofile;                /**< measure again, whatever the cache holds */
    bool any_length;               /**< a cached profile of fewer ticks will do (the run's
                                        check); else it must have been asked for >= ticks */
    const char *plan;              /**< --plan: this plan.json (or its directory) instead of
                                        the cache; NULL: the cache */
    const char *const *records;    /**< the run's --record names (the profile records the
                                        same columns), NULL: the file's */
    size_t n_records;
    const rtc_logger *lg;          /**< errors (and the profile's overruns are not shown) */
    const rtc_logger *copy_lg;     /**< what the profiled copy's units say (NULL: lg) */
    const char *nodes;             /**< --nodes A,B: propose a placement on these nodes */
    const char *const *pins;       /**< --place UNIT=NODE: units the placement must keep */
    size_t n_pins;
} rtc_cli_feas_opts;

/** A plan and where it came from. */
typedef struct rtc_cli_feas {
    rtc_plan *plan;
    rtc_profile_info info;         /**< the profiling run's facts */
    size_t ticks;                  /**< rows in its profile */
    bool cached;                   /**< read from a plan file, not measured now */
    char dir[4096];                /**< where plan.json is ("" when it could not be saved) */
    char hung[160];                /**< a unit that never returned from its step (the plan is
                                        NULL then; the profiling copy is left loaded) */
    double pf_d[256];              /**< per unit: Parallel Fast's d_i at the percentile */
    size_t n_units;
    bool placed;                   /**< --nodes: the placement below */
    rtc_plan_placement place;
    char node_names[RTC_PLAN_MAX_NODES][64];
} rtc_cli_feas;

/**
 * Plan @p o: from a plan file when one fits, else by profiling. Returns RTC_OK and fills
 * @p out (free with rtc_cli_feas_clear()); RTC_ETIME when a unit hung in the profile
 * (out->hung names it; the process must not unload that copy: it is left as it is);
 * RTC_ESTATE when the profile measured no tick (a unit ended or failed at the start:
 * nothing to judge); the load's or the profile's error (logged).
 */
int rtc_cli_feasibility(const rtc_cli_feas_opts *o, rtc_cli_feas *out);
void rtc_cli_feas_clear(rtc_cli_feas *f);

/** The plan as `rtcosim plan --realtime` prints it: per unit, engine, wake-up, per
 *  thread, the tick, slack, overruns, verdict, doubts, options. */
void rtc_cli_plan_print(FILE *f, const rtc_cli_feas *fe, const char *path);

/** The verdict in one line ("feasible with 62 % headroom at p99.9", "infeasible: ...").
 *  Returns @p buf. */
const char *rtc_cli_plan_verdict(const rtc_plan *plan, char *buf, size_t cap);

/**
 * The check before `run --realtime` arms: a plan (cached, --plan, or a quick profile),
 * then: feasible — one info line; tight — a warning; infeasible — the verdict, the unit
 * and the options as errors, and the run is refused (rt->end: cause "infeasible") unless
 * --force (then they are warnings). rt->plan keeps the plan for summary.json.
 * Returns RTC_OK (go on), RTC_EINVAL (refused), or a failure of the planning itself
 * (logged; the run is refused too: it cannot be judged).
 */
int rtc_cli_rt_guard(const char *path, const rtc_system_options *so, rtc_cli_rt *rt,
                     const char *const *records, size_t n_records, const rtc_logger *lg);

#endif
