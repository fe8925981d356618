/*
 * rtcosim/pfast.h — Parallel Fast scheduling mathematics on integer nanoseconds.
 *
 * Parallel Fast (Holzinger, Schuch, Benedikt, Watzenig; AVL Model.CONNECT) lets every unit i
 * run with its own coupling step h_i and synchronises units only inside the intervals
 * [ζH, (ζ+1)H) of a separate synchronization step H. A unit i qualifies in interval ζ with
 * its step n when (paper Eq. 2)
 *
 *        (n-1)·h_i  <  ζ·H  <=  n·h_i  <  (ζ+1)·H ,     n >= 1
 *
 * i.e. the step that first reaches or crosses ζH also ends inside the interval. Units that
 * qualify in the same interval wait for the slowest of them and exchange data along their
 * connections; a unit that qualifies alone continues without exchange. Interval ζ = 0 never
 * qualifies (n >= 1 makes (n-1)·h_i < 0 impossible).
 *
 * This header holds three layers:
 *   1. the rule itself at run time: rtc_pf_qualifies() (the Parallel Fast master asks
 *      it at every step end, system/src/masters/parallel_fast.c), the per-unit iterator
 *      rtc_pf_iter and rtc_pf_events() (who qualifies, which links exchange) for walking
 *      intervals in order; all RT-safe, no allocation;
 *   2. the paper's model-free estimators for choosing H: the extrapolation measure
 *      Ê(H) (Eqs. 10-18, rtc_pf_q()/rtc_pf_ehat()) and the duration estimate D̂(H)
 *      (Eqs. 19-23, rtc_pf_dhat()/rtc_pf_walltime());
 *   3. the planner behind `rtcosim plan`: Ê and D̂ over candidate H and H* = argmin Ê
 *      (Eq. 24), rtc_pf_plan_new()/rtc_pf_plan_print().
 *
 * Time is int64_t nanoseconds throughout. Repeat periods H̄ = lcm(...) are computed with
 * overflow checks; sums over a period are exact integers, and doubles appear only in the
 * final ratios (Q, Ê, D̂) and in wall-clock times scaled by the real-time factors d_i.
 *
 * Connection matrix: `conn` is m·m doubles, row-major, conn[i*m + j] != 0 means unit i feeds
 * unit j (A_ij of Eq. 7: rows are senders, columns receivers); the value is the weight of
 * the link in Ê (1 for the plain count of Eq. 8, c_k for the weighted form of Eq. 9).
 * Diagonal entries are ignored. NULL means every ordered pair i != j with weight 1.
 */
#ifndef RTCOSIM_PFAST_H
#define RTCOSIM_PFAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
/* stdio.h only for the FILE * of rtc_pf_plan_print(); no third-party header. */
#include <stdio.h>

#include "rtcosim/rtsafe.h"
#include "rtcosim/status.h"

/*
 * Most synchronization intervals one repeat period may hold (H̄/H) before Ê and D̂ refuse
 * with RTC_ELIMIT. Both cost O(links·H̄/H) resp. O(m·H̄/H); 10^7 keeps one evaluation under
 * about a second even for dozens of links.
 */
#define RTC_PF_MAX_INTERVALS INT64_C(10000000)

/** Most candidates the default grid of rtc_pf_default_grid() produces. */
#define RTC_PF_GRID_MAX 256

/* ---------------------------------------------------------------------------------------- */
/* 1. The synchronization rule (run time)                                                    */
/* ---------------------------------------------------------------------------------------- */

/**
 * Does a unit with step @p h_ns qualify in synchronization interval @p zeta (Eq. 2)?
 *
 * @param h_ns  the unit's coupling step h_i, ns (> 0).
 * @param H_ns  the synchronization step H, ns (> 0).
 * @param zeta  interval index ζ >= 0; the interval is [ζ·H, (ζ+1)·H).
 * @param n     out: n = max(1, ceil(ζH/h_i)), the index of the first step of the unit that
 *              ends at or after ζH (it ends at n·h_i). Written whenever the call succeeds,
 *              whether or not the unit qualifies. May be NULL.
 *
 * Returns: 1 when (n-1)·h_i < ζH <= n·h_i < (ζ+1)·H (the unit qualifies, step n ends in the
 * interval), 0 when it does not (always for ζ = 0), or a negative rtc_status.
 * Errors: RTC_EINVAL (h_ns <= 0, H_ns <= 0 or zeta < 0); RTC_ETIME ((ζ+1)·H overflows int64
 * ns). On error *n is unchanged.
 * RT-safe: yes (a few integer divisions). Thread: any.
 */
RTC_RT_SAFE int rtc_pf_qualifies(int64_t h_ns, int64_t H_ns, int64_t zeta, int64_t *n);

/**
 * Per-unit iterator over synchronization intervals: O(1) per interval.
 * Caller-owned; all fields are readable and describe the current interval ζ.
 */
typedef struct rtc_pf_iter {
    int64_t h_ns;     /**< the unit's step h_i, ns */
    int64_t H_ns;     /**< the synchronization step H, ns */
    int64_t zeta;     /**< current interval index ζ */
    int64_t start_ns; /**< ζ·H, start of the interval (inclusive) */
    int64_t end_ns;   /**< (ζ+1)·H, end of the interval (exclusive) */
    int64_t n;        /**< first step index (>= 1) whose end n·h_i is >= start_ns */
    int64_t steps;    /**< number of the unit's step ends inside [start_ns, end_ns) */
    bool qualifies;   /**< Eq. 2 holds: ζ >= 1 and step n ends inside the interval */
} rtc_pf_iter;

/**
 * Position @p it on interval ζ = 0 for a unit with step @p h_ns and sync step @p H_ns.
 * In ζ = 0 the unit never qualifies; it.steps tells how many steps it runs freely.
 *
 * Returns: RTC_OK.
 * Errors: RTC_EINVAL (it NULL, h_ns <= 0 or H_ns <= 0); *it is unchanged on error.
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE int rtc_pf_iter_init(rtc_pf_iter *it, int64_t h_ns, int64_t H_ns);

/**
 * Advance @p it to the next interval ζ+1 and evaluate the rule there.
 *
 * Returns: 1 when the unit qualifies in the new interval, 0 when it does not.
 * Errors: RTC_EINVAL (it NULL or not initialised); RTC_ETIME (the interval end would
 * overflow int64 ns, after about 292 years of simulated time); *it is unchanged on error.
 * RT-safe: yes (one addition and two divisions, no loop). Thread: the iterator's owner.
 */
RTC_RT_SAFE int rtc_pf_iter_next(rtc_pf_iter *it);

/** One data exchange in an interval: unit `from` feeds unit `to` (A_from,to != 0). */
typedef struct rtc_pf_link {
    uint32_t from; /**< sending unit index */
    uint32_t to;   /**< receiving unit index */
} rtc_pf_link;

/**
 * The synchronization events of interval @p zeta for a set of units: who qualifies, and
 * which links exchange (connected AND both ends qualify). Links are listed sender-major
 * (from ascending, then to ascending). When fewer than two units qualify, nobody waits and
 * nothing is exchanged; a qualifying unit without a qualifying partner continues alone.
 *
 * @param h_ns       m unit steps, ns (each > 0).
 * @param m          number of units (1 .. INT32_MAX).
 * @param H_ns       synchronization step, ns (> 0).
 * @param conn       connection matrix (see the file comment) or NULL (all pairs).
 * @param zeta       interval index (>= 0).
 * @param n_out      out, m entries: the qualifying step index n of unit i, or 0 when unit i
 *                   does not qualify in this interval.
 * @param links      out, up to @p links_cap entries: the exchanging links (NULL only with
 *                   links_cap == 0, i.e. for a system without connections).
 * @param links_cap  capacity of @p links; must be at least the number of connections
 *                   (off-diagonal nonzero entries of conn, or m·(m-1) when conn is NULL),
 *                   checked before anything is written, so the result never truncates.
 * @param n_links    out: number of links written.
 *
 * Returns: the number of qualifying units (>= 0).
 * Errors: RTC_EINVAL (NULL h_ns/n_out/n_links, m == 0, a step or H <= 0, zeta < 0);
 * RTC_ETIME ((ζ+1)·H overflows); RTC_ELIMIT (links_cap below the number of connections).
 * On error nothing is written.
 * RT-safe: yes, O(m²). Thread: any.
 */
RTC_RT_SAFE int rtc_pf_events(const int64_t *h_ns,
                              size_t m,
                              int64_t H_ns,
                              const double *conn,
                              int64_t zeta,
                              int64_t *n_out,
                              rtc_pf_link *links,
                              size_t links_cap,
                              size_t *n_links);

/**
 * Repeat period H̄ = lcm(h_0, ..., h_{m-1}, H): the synchronization pattern of the system
 * is periodic with it. Pass H_ns = 0 for lcm of the steps alone.
 *
 * Returns: RTC_OK and *period_ns.
 * Errors: RTC_EINVAL (NULL pointers, m == 0, a step <= 0, H_ns < 0); RTC_ETIME (the lcm
 * overflows int64 ns). *period_ns is unchanged on error.
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE int rtc_pf_period(const int64_t *h_ns, size_t m, int64_t H_ns, int64_t *period_ns);

/* ---------------------------------------------------------------------------------------- */
/* 2. Estimators Ê(H) and D̂(H)                                                                */
/* ---------------------------------------------------------------------------------------- */

/**
 * Perspective of the extrapolation ratio Q in W (Eq. 17). The paper leaves open whether i
 * in Q(h_i, h_j, H) is the sender or the receiver of link i→j; both give the same argmin on
 * the paper's example.
 */
typedef enum {
    RTC_PF_LITERAL = 0,  /**< W_ij = Q(h_i, h_j, H) for link i→j, as printed (default) */
    RTC_PF_RECEIVER = 1, /**< W_ij = Q(h_j, h_i, H): the receiving unit's steps */
} rtc_pf_view;

/** A system for the estimators: steps, real-time factors and connections (caller-owned). */
typedef struct rtc_pf_system {
    size_t m;            /**< number of units (1 .. INT32_MAX) */
    const int64_t *h_ns; /**< m coupling steps h_i, ns (> 0) */
    const double *d;     /**< m real-time factors d_i (> 0: wall s per simulated s); NULL = 1 */
    const double *conn;  /**< m·m connection weights (file comment) or NULL = all pairs */
} rtc_pf_system;

/**
 * Extrapolation ratio Q(h_i, h_j, H) of Eq. 15 over H̄ = lcm(h_i, h_j, H):
 *
 *   Q = (1/H̄) Σ_{ζ=1}^{H̄/H} s_e,i·s_e,j · f_i · Δτ_ij^(ext)
 *
 * where s_e are the Eq. 2 indicators of both units in interval ζ, and at each joint
 * qualification with steps n (unit i) and m (unit j), after the previous joint
 * qualification at step ñ of unit i (ñ = 0 at t = 0):
 *   Δτ^(syn) = (n-ñ)·h_i                              (Eq. 10)
 *   Δτ^(int) = min(Δτ^(syn), max(0, m·h_j - n·h_i))   (Eqs. 11-12, clamped)
 *   Δτ^(ext) = Δτ^(syn) - Δτ^(int)                    (Eq. 13)
 *   f_i      = (n-ñ+1)/2                              (Eq. 14)
 * The sum is accumulated exactly in integer ns (128-bit); only Q itself is a double.
 *
 * Returns: RTC_OK and *q (dimensionless, e.g. 1 for h_i = h_j = H).
 * Errors: RTC_EINVAL (a step <= 0, q NULL); RTC_ETIME (H̄ overflows int64 ns); RTC_ELIMIT
 * (H̄/H > RTC_PF_MAX_INTERVALS). *q is unchanged on error.
 * RT-safe: yes, but O(H̄/H): call it at load, not in the loop. Thread: any.
 */
RTC_RT_SAFE int rtc_pf_q(int64_t hi_ns, int64_t hj_ns, int64_t H_ns, double *q);

/**
 * Extrapolation-error estimate Ê(H) = Σ_ij W_ij · A_ij (Eqs. 17-18) with W from rtc_pf_q()
 * in the perspective @p view and A the connection weights of @p sys (d is not used).
 * With equal steps and H equal to them, Ê is the number of links (Eq. 8).
 *
 * Returns: RTC_OK and *ehat.
 * Errors: RTC_EINVAL (NULL sys/ehat, m == 0, a step or H <= 0, a weight negative or not
 * finite, unknown view); RTC_ETIME (a pairwise repeat period overflows); RTC_ELIMIT (too
 * many intervals in a period, see RTC_PF_MAX_INTERVALS). *ehat is unchanged on error.
 * RT-safe: yes (no allocation), but O(links·H̄/H). Thread: any.
 */
RTC_RT_SAFE int rtc_pf_ehat(const rtc_pf_system *sys, int64_t H_ns, rtc_pf_view view, double *ehat);

/** One synchronization found by the wall-clock estimator (rtc_pf_walltime()). */
typedef struct rtc_pf_sync {
    int64_t zeta;   /**< interval index */
    int64_t sim_ns; /**< latest step end among the synchronised units (simulated time) */
    size_t units;   /**< number of units that waited for each other (>= 2) */
    double wall_ns; /**< wall-clock time at which the slowest of them finished, ns */
} rtc_pf_sync;

/**
 * Wall-clock recursion of Eqs. 19-22 over one repeat period H̄ = lcm(all h_i, H): each unit
 * spends d_i·h_i wall time per step; in every interval where two or more units qualify,
 * those units wait for the slowest of them (connections do not matter for waiting). The
 * period ends with the synchronization of all units at t = H̄ (every h_i divides H̄, so all
 * qualify there), and D̂ = max_i t_w,i(H̄) / H̄ (Eq. 23).
 *
 * Wall times are kept as (wall time at the unit's last synchronization) + d_i·(integer ns
 * simulated since), never as a running floating-point sum.
 *
 * @param syncs    out, up to @p cap records in interval order (may be NULL if cap is 0).
 * @param n_syncs  out: number of synchronizations in the period (may exceed cap: only the
 *                 first cap are written). May be NULL.
 * @param dhat     out: D̂ (1 = real time, 2 = twice slower than real time). May be NULL.
 *
 * Returns: RTC_OK.
 * Errors: RTC_EINVAL (NULL sys, m == 0, a step or H <= 0, a d_i <= 0 or not finite);
 * RTC_ETIME (H̄ overflows); RTC_ELIMIT (H̄/H > RTC_PF_MAX_INTERVALS); RTC_ENOMEM. Outputs
 * are unchanged on error.
 * RT-safe: no (allocates O(m) scratch). Thread: any.
 */
int rtc_pf_walltime(const rtc_pf_system *sys,
                    int64_t H_ns,
                    rtc_pf_sync *syncs,
                    size_t cap,
                    size_t *n_syncs,
                    double *dhat);

/**
 * Duration estimate D̂(H) (Eq. 23): rtc_pf_walltime() without the sync records.
 *
 * Returns: RTC_OK and *dhat.
 * Errors: as rtc_pf_walltime(), plus RTC_EINVAL for a NULL dhat. *dhat unchanged on error.
 * RT-safe: no. Thread: any.
 */
int rtc_pf_dhat(const rtc_pf_system *sys, int64_t H_ns, double *dhat);

/* ---------------------------------------------------------------------------------------- */
/* 3. Planner (`rtcosim plan`)                                                                */
/* ---------------------------------------------------------------------------------------- */

/**
 * Default candidate grid for a set of steps (used by the planner when no candidates are
 * given). With h_min, h_max the smallest and largest step, g = gcd(h_i), L = lcm(h_i):
 *   - range [lo, hi] with lo = h_min/20 and hi = min(L, 2·h_max) (hi = 2·h_max when L
 *     overflows): below h_min the pattern no longer changes much, and beyond L nothing new
 *     happens but the extrapolation horizon grows;
 *   - a "nice number" ladder {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8}·10^k times h_min inside the
 *     range, each rounded to the nearest ns (values below 1 ns dropped);
 *   - every h_i, and the multiples of g that divide L inside the range (at most 32, the
 *     largest first, found by trying at most 100000 values j·g downwards from hi), because
 *     such H give the shortest repeat periods and start intervals on common step ends;
 *   - sorted ascending, duplicates removed.
 * For h = (2, 3, 1, 2) s this is {0.05, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.4,
 * 0.5, 0.6, 0.8, 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6} s, the paper's range [0.05, 6] s, whose
 * argmin of Ê is 2 s; in ms the same grid in ms.
 *
 * @param out  out, up to @p cap candidates (RTC_PF_GRID_MAX always suffices).
 * @param n    out: number written.
 *
 * Returns: RTC_OK.
 * Errors: RTC_EINVAL (NULL pointers, m == 0, a step <= 0); RTC_ELIMIT (cap too small;
 * nothing written). Outputs unchanged on error.
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE int
rtc_pf_default_grid(const int64_t *h_ns, size_t m, int64_t *out, size_t cap, size_t *n);

/** One row of a plan: one candidate H. */
typedef struct rtc_pf_plan_row {
    int64_t H_ns;      /**< candidate synchronization step, ns */
    int64_t period_ns; /**< repeat period lcm(all h_i, H), ns (0 when it overflows) */
    double ehat;       /**< Ê(H) (valid when status == RTC_OK) */
    double dhat;       /**< D̂(H) (valid when status == RTC_OK) */
    int status;        /**< RTC_OK, or why this candidate could not be evaluated
                            (RTC_ETIME period overflow, RTC_ELIMIT too many intervals) */
} rtc_pf_plan_row;

/** Result of rtc_pf_plan_new(); owned by the caller, released by rtc_pf_plan_free(). */
typedef struct rtc_pf_plan {
    size_t m;              /**< number of units */
    rtc_pf_view view;      /**< Q perspective used for Ê */
    int64_t tick_ns;       /**< gcd of the steps */
    int64_t lcm_ns;        /**< lcm of the steps (0 when it overflows int64 ns) */
    bool default_grid;     /**< candidates came from rtc_pf_default_grid() */
    size_t n_rows;         /**< number of candidates */
    rtc_pf_plan_row *rows; /**< n_rows rows, in the candidates' order */
    size_t best;           /**< index of the row of H* */
} rtc_pf_plan;

/**
 * Evaluate Ê(H) and D̂(H) for every candidate H and choose H* = argmin Ê (Eq. 24; the
 * duration estimate is reported but not used, as in the paper). Ties (Ê equal within a
 * relative 1e-12, e.g. the flat region H <= h_min) go to the larger H: fewer
 * synchronizations for the same estimated error.
 *
 * A candidate whose repeat period overflows or holds too many intervals gets that status
 * in its row and takes no part in the choice; the plan fails only if no candidate can be
 * evaluated.
 *
 * @param sys     the system; copied as needed, the caller keeps ownership.
 * @param cand_ns candidates H, ns, each > 0; NULL or n_cand == 0 selects the default grid
 *                (rtc_pf_default_grid()).
 * @param view    Q perspective (RTC_PF_LITERAL by default).
 * @param out     out: the new plan (free with rtc_pf_plan_free()).
 * @param err     out, optional: a message naming the offending unit/candidate on error.
 * @param errcap  capacity of @p err.
 *
 * Returns: RTC_OK.
 * Errors: RTC_EINVAL (bad system: m == 0, a step <= 0, a d_i or weight out of range; a
 * candidate <= 0; unknown view); RTC_ETIME / RTC_ELIMIT (no candidate could be evaluated;
 * the first row's reason); RTC_ENOMEM. *out is unchanged on error.
 * RT-safe: no (allocates). Thread: any.
 */
int rtc_pf_plan_new(const rtc_pf_system *sys,
                    const int64_t *cand_ns,
                    size_t n_cand,
                    rtc_pf_view view,
                    rtc_pf_plan **out,
                    char *err,
                    size_t errcap);

/**
 * H* for a paced (real-time) run: the candidate with the smallest Ê among those whose D̂ is
 * at most @p limit (e.g. 1 − a margin: the units keep up with the wall clock), ties to the
 * larger H as in rtc_pf_plan_new(). D̂ is only as good as the d_i the plan was made with:
 * give measured ones (`rtcosim plan` takes them from a profile of this machine).
 *
 * Returns: the row index, or -1 when no candidate keeps up — then no H helps (a unit
 * slower than real time on its own, d_i > limit, makes every D̂ exceed it; Holzinger et al.
 * §4, d_a = 1.6) — or @p plan is NULL.
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE long rtc_pf_plan_best_paced(const rtc_pf_plan *plan, double limit);

/**
 * Release a plan. NULL is a no-op.
 * RT-safe: no. Thread: any.
 */
void rtc_pf_plan_free(rtc_pf_plan *plan);

/**
 * Print @p plan as a table (one row per candidate: H [s], period [s], Ê, D̂, a marker on
 * H*) followed by a line naming H*. Times are printed exactly in seconds.
 *
 * Returns: RTC_OK.
 * Errors: RTC_EINVAL (NULL arguments); RTC_EIO (a write to @p f failed).
 * RT-safe: no (stdio). Thread: any.
 */
int rtc_pf_plan_print(const rtc_pf_plan *plan, FILE *f);

/** Name of a view: "literal" or "receiver" ("?" for other values). RT-safe: yes. */
RTC_RT_SAFE const char *rtc_pf_view_name(rtc_pf_view view);

#endif
