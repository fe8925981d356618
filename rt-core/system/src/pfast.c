/*
 * pfast.c — Parallel Fast scheduling mathematics: the synchronization rule, the estimators
 * Ê(H) and D̂(H), and the planner behind `rtcosim plan` (see rtcosim/pfast.h).
 *
 * DESIGN. Everything a unit does in one synchronization interval [s, e) follows from two
 * integer divisions: its first step ending at or after s is n = max(1, ceil(s/h)), and the
 * number of its step ends inside the interval is ceil(e/h) - n. Eq. 2 holds exactly when
 * s > 0 and that count is at least one, because n = ceil(s/h) already gives (n-1)h < s <= nh.
 * So the rule, the iterator, the event lister, Q and the wall-clock recursion all share
 * cell() and never loop over individual steps: the cost per interval is O(1) per unit
 * however small h_i is against H.
 *
 * Exactness: times are int64 ns; every product that could overflow is checked and reported
 * as RTC_ETIME. Q's sum over a repeat period grows like (H̄/h)·H̄, which can exceed int64,
 * so it is accumulated in 128 bits; the only floating-point operations are the final
 * division to a ratio, the weights of Ê, and wall times scaled by the real-time factors d_i.
 */
#include "rtcosim/pfast.h"

#include "rtcosim/time.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* GCC and Clang provide 128-bit integers; __extension__ keeps -pedantic quiet about them. */
__extension__ typedef __int128 pf_i128;

/* ---- checked integer helpers ------------------------------------------------------------ */

static bool mul64(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_mul_overflow(a, b, r);
}

static bool add64(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_add_overflow(a, b, r);
}

/* ceil(a / b) for a >= 0, b > 0; cannot overflow. */
static int64_t ceil_div(int64_t a, int64_t b)
{
    return a / b + (a % b != 0);
}

static int lcm64(int64_t a, int64_t b, int64_t *r)
{
    int64_t g = rtc_time_gcd(a, b);
    return mul64(a / g, b, r) ? RTC_OK : RTC_ETIME;
}

/* What one unit does in one interval [start, end), start >= 0. */
typedef struct pf_cell {
    int64_t n;     /* first step index >= 1 whose end n·h is >= start */
    int64_t steps; /* number of step ends inside [start, end) */
} pf_cell;

static pf_cell cell(int64_t h, int64_t start, int64_t end)
{
    pf_cell c;
    c.n = ceil_div(start, h);
    if (c.n < 1)
        c.n = 1;
    /* ceil(end/h) - 1 is the last step index whose end lies strictly below end. */
    int64_t last = ceil_div(end, h) - 1;
    c.steps = last >= c.n ? last - c.n + 1 : 0;
    return c;
}

/* Eq. 2: qualifying needs a step end in the interval and ζ >= 1 (start > 0). */
static bool cell_qualifies(pf_cell c, int64_t start)
{
    return start > 0 && c.steps > 0;
}

static void seterr(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t cap, const char *fmt, ...)
{
    if (!err || cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

/* ---- 1. the rule ------------------------------------------------------------------------- */

int rtc_pf_qualifies(int64_t h_ns, int64_t H_ns, int64_t zeta, int64_t *n)
{
    int64_t start, end;
    if (h_ns <= 0 || H_ns <= 0 || zeta < 0)
        return RTC_EINVAL;
    if (!mul64(zeta, H_ns, &start) || !add64(start, H_ns, &end))
        return RTC_ETIME;
    pf_cell c = cell(h_ns, start, end);
    if (n)
        *n = c.n;
    return cell_qualifies(c, start) ? 1 : 0;
}

/* The iterator keeps no running step counter: everything is recomputed from the interval
 * bounds, so a master that skips intervals or restarts from a snapshot sees the same answer
 * as one that stepped through every interval. */
static void iter_set(rtc_pf_iter *it, int64_t zeta, int64_t start, int64_t end)
{
    pf_cell c = cell(it->h_ns, start, end);
    it->zeta = zeta;
    it->start_ns = start;
    it->end_ns = end;
    it->n = c.n;
    it->steps = c.steps;
    it->qualifies = cell_qualifies(c, start);
}

int rtc_pf_iter_init(rtc_pf_iter *it, int64_t h_ns, int64_t H_ns)
{
    if (!it || h_ns <= 0 || H_ns <= 0)
        return RTC_EINVAL;
    it->h_ns = h_ns;
    it->H_ns = H_ns;
    iter_set(it, 0, 0, H_ns);
    return RTC_OK;
}

int rtc_pf_iter_next(rtc_pf_iter *it)
{
    int64_t end;
    if (!it || it->h_ns <= 0 || it->H_ns <= 0)
        return RTC_EINVAL;
    /* The interval start is the previous end: an integer sum, exact by construction. */
    if (!add64(it->end_ns, it->H_ns, &end))
        return RTC_ETIME;
    iter_set(it, it->zeta + 1, it->end_ns, end);
    return it->qualifies ? 1 : 0;
}

/* A unit never exchanges with itself; the diagonal of A is ignored rather than rejected
 * because weighted matrices built from Eq. 9 may carry self-coupling terms. */
static bool connected(const double *conn, size_t m, size_t i, size_t j)
{
    return i != j && (!conn || conn[i * m + j] != 0.0);
}

static size_t count_connections(const double *conn, size_t m)
{
    size_t count = 0;
    if (!conn)
        return m * (m - 1);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < m; j++)
            count += connected(conn, m, i, j);
    return count;
}

static bool steps_valid(const int64_t *h_ns, size_t m)
{
    for (size_t i = 0; i < m; i++)
        if (h_ns[i] <= 0)
            return false;
    return true;
}

int rtc_pf_events(const int64_t *h_ns,
                  size_t m,
                  int64_t H_ns,
                  const double *conn,
                  int64_t zeta,
                  int64_t *n_out,
                  rtc_pf_link *links,
                  size_t links_cap,
                  size_t *n_links)
{
    int64_t start, end;
    /* m is capped so unit indices fit rtc_pf_link and the count fits the int result. */
    if (!h_ns || !n_out || !n_links || m == 0 || m > INT32_MAX || H_ns <= 0 || zeta < 0 ||
        !steps_valid(h_ns, m))
        return RTC_EINVAL;
    if (!mul64(zeta, H_ns, &start) || !add64(start, H_ns, &end))
        return RTC_ETIME;
    /* Capacity is checked against the static connection count, before anything is written,
     * so a caller sizing links once at arm time can never get a truncated list. */
    size_t need = count_connections(conn, m);
    if (need > links_cap)
        return RTC_ELIMIT;
    if (need > 0 && !links)
        return RTC_EINVAL;

    int qualified = 0;
    for (size_t i = 0; i < m; i++) {
        pf_cell c = cell(h_ns[i], start, end);
        n_out[i] = cell_qualifies(c, start) ? c.n : 0;
        qualified += n_out[i] != 0;
    }
    /* A link needs two distinct qualifying ends, so a unit alone lists nothing. */
    size_t k = 0;
    for (size_t i = 0; qualified >= 2 && i < m; i++)
        for (size_t j = 0; n_out[i] && j < m; j++)
            if (n_out[j] && connected(conn, m, i, j))
                links[k++] = (rtc_pf_link){.from = (uint32_t)i, .to = (uint32_t)j};
    *n_links = k;
    return qualified;
}

int rtc_pf_period(const int64_t *h_ns, size_t m, int64_t H_ns, int64_t *period_ns)
{
    if (!h_ns || !period_ns || m == 0 || H_ns < 0 || !steps_valid(h_ns, m))
        return RTC_EINVAL;
    /* lcm(a, b) = (a / gcd)·b keeps the intermediate as small as possible, so only a result
     * that truly does not fit int64 is reported as an overflow. */
    int64_t p = H_ns > 0 ? H_ns : h_ns[0];
    for (size_t i = 0; i < m; i++)
        if (lcm64(p, h_ns[i], &p) != RTC_OK)
            return RTC_ETIME;
    *period_ns = p;
    return RTC_OK;
}

/* ---- 2. estimators ----------------------------------------------------------------------- */

/* Number of intervals in a period, with the limits every period loop needs: the last
 * interval's end (period + H) must be representable, and the count must stay bounded. */
static int period_intervals(int64_t period, int64_t H_ns, int64_t *zn)
{
    int64_t end;
    if (!add64(period, H_ns, &end))
        return RTC_ETIME;
    if (period / H_ns > RTC_PF_MAX_INTERVALS)
        return RTC_ELIMIT;
    *zn = period / H_ns;
    return RTC_OK;
}

int rtc_pf_q(int64_t hi_ns, int64_t hj_ns, int64_t H_ns, double *q)
{
    int64_t period, zn;
    if (hi_ns <= 0 || hj_ns <= 0 || H_ns <= 0 || !q)
        return RTC_EINVAL;
    int rc = lcm64(hi_ns, hj_ns, &period);
    if (rc == RTC_OK)
        rc = lcm64(period, H_ns, &period);
    if (rc == RTC_OK)
        rc = period_intervals(period, H_ns, &zn);
    if (rc != RTC_OK)
        return rc;

    /* acc holds 2·Σ f_i·Δτ^(ext), so f_i = (n-ñ+1)/2 stays an integer factor. ñ = 0: the
     * period starts with the exchange at t = 0, which is the one at t = H̄ of the previous
     * period (every step divides H̄, so both units qualify in the last interval). */
    pf_i128 acc = 0;
    int64_t ntil = 0, start = 0;
    for (int64_t z = 1; z <= zn; z++) {
        start += H_ns;
        pf_cell ci = cell(hi_ns, start, start + H_ns);
        pf_cell cj = cell(hj_ns, start, start + H_ns);
        if (ci.steps == 0 || cj.steps == 0)
            continue;
        int64_t syn = (ci.n - ntil) * hi_ns;              /* Eq. 10 */
        int64_t intp = cj.n * hj_ns - ci.n * hi_ns;       /* Eq. 11 */
        intp = intp < 0 ? 0 : (intp > syn ? syn : intp);  /* Eq. 12, clamped to the step */
        acc += (pf_i128)(ci.n - ntil + 1) * (syn - intp); /* Eqs. 13-15 */
        ntil = ci.n;
    }
    /* The only rounding: two conversions to double and one division, each correct to half
     * an ulp, so Q is within about 2e-16 relative of the exact rational. */
    *q = (double)acc / (2.0 * (double)period);
    return RTC_OK;
}

/* Validate a system; d is checked only when the caller uses it. NaN or negative weights and
 * factors are refused here because they would turn Ê or D̂ into NaN, and NaN compares false
 * in the argmin, silently hiding a row instead of reporting the bad input. */
static int check_system(const rtc_pf_system *sys, bool use_d, char *err, size_t cap)
{
    if (!sys || sys->m == 0 || !sys->h_ns || sys->m > INT32_MAX) {
        seterr(err, cap, "system has no units");
        return RTC_EINVAL;
    }
    for (size_t i = 0; i < sys->m; i++) {
        if (sys->h_ns[i] <= 0) {
            seterr(err, cap, "unit %zu: step h must be > 0 ns (got %lld)", i,
                   (long long)sys->h_ns[i]);
            return RTC_EINVAL;
        }
        if (use_d && sys->d && !(isfinite(sys->d[i]) && sys->d[i] > 0.0)) {
            seterr(err, cap, "unit %zu: real-time factor d must be finite and > 0 (got %g)", i,
                   sys->d[i]);
            return RTC_EINVAL;
        }
    }
    for (size_t k = 0; sys->conn && k < sys->m * sys->m; k++) {
        if (!(isfinite(sys->conn[k]) && sys->conn[k] >= 0.0)) {
            seterr(err, cap, "connection %zu->%zu: weight must be finite and >= 0 (got %g)",
                   k / sys->m, k % sys->m, sys->conn[k]);
            return RTC_EINVAL;
        }
    }
    return RTC_OK;
}

int rtc_pf_ehat(const rtc_pf_system *sys, int64_t H_ns, rtc_pf_view view, double *ehat)
{
    int rc = check_system(sys, false, NULL, 0);
    if (rc != RTC_OK)
        return rc;
    if (H_ns <= 0 || !ehat || (view != RTC_PF_LITERAL && view != RTC_PF_RECEIVER))
        return RTC_EINVAL;
    /* Q is recomputed per link instead of cached per (h_i, h_j) pair: links are few, and
     * the function then needs no scratch memory, which keeps it RT-safe. */
    const int64_t *h = sys->h_ns;
    double sum = 0.0;
    for (size_t i = 0; i < sys->m; i++) {
        for (size_t j = 0; j < sys->m; j++) {
            if (!connected(sys->conn, sys->m, i, j))
                continue;
            double w = sys->conn ? sys->conn[i * sys->m + j] : 1.0, q;
            /* Link i->j: literal reads Q(h_i, h_j) as printed (sender's horizon), receiver
             * swaps the roles so the receiving unit's steps set the horizon. */
            rc = view == RTC_PF_LITERAL ? rtc_pf_q(h[i], h[j], H_ns, &q)
                                        : rtc_pf_q(h[j], h[i], H_ns, &q);
            if (rc != RTC_OK)
                return rc;
            sum += w * q;
        }
    }
    *ehat = sum;
    return RTC_OK;
}

/* Scratch of the wall-clock recursion. A unit's wall time is base + d·ns: base is the wall
 * time of its last synchronization, ns the simulated time it has stepped since. */
typedef struct pf_wall {
    const rtc_pf_system *sys;
    double *base;
    int64_t *ns;
    pf_cell *c;
} pf_wall;

static double unit_wall(const pf_wall *w, size_t i)
{
    double d = w->sys->d ? w->sys->d[i] : 1.0;
    return w->base[i] + d * (double)w->ns[i];
}

/* One interval: qualifying units run their step that ends in it; if two or more qualify
 * they all wait for the slowest (Eq. 19, connections play no part in waiting). Returns the
 * number of units that synchronised (0 when fewer than two qualified). */
static size_t wall_interval(pf_wall *w, int64_t start, int64_t H_ns, rtc_pf_sync *rec)
{
    size_t m = w->sys->m, q = 0;
    double wmax = 0.0;
    int64_t tmax = 0;
    for (size_t i = 0; i < m; i++) {
        w->c[i] = cell(w->sys->h_ns[i], start, start + H_ns);
        if (!cell_qualifies(w->c[i], start))
            continue;
        w->ns[i] += w->sys->h_ns[i];
        double t = unit_wall(w, i);
        wmax = q == 0 || t > wmax ? t : wmax;
        int64_t ts = w->c[i].n * w->sys->h_ns[i];
        tmax = ts > tmax ? ts : tmax;
        q++;
    }
    if (q < 2)
        return 0;
    for (size_t i = 0; i < m; i++) {
        if (cell_qualifies(w->c[i], start)) {
            w->base[i] = wmax;
            w->ns[i] = 0;
        }
    }
    *rec = (rtc_pf_sync){.sim_ns = tmax, .units = q, .wall_ns = wmax};
    return q;
}

/* After the synchronization point: every unit runs its remaining steps of the interval. */
static void wall_free_steps(pf_wall *w, int64_t start)
{
    for (size_t i = 0; i < w->sys->m; i++) {
        int64_t k = w->c[i].steps - (cell_qualifies(w->c[i], start) ? 1 : 0);
        w->ns[i] += k * w->sys->h_ns[i];
    }
}

int rtc_pf_walltime(const rtc_pf_system *sys,
                    int64_t H_ns,
                    rtc_pf_sync *syncs,
                    size_t cap,
                    size_t *n_syncs,
                    double *dhat)
{
    int64_t period, zn;
    int rc = check_system(sys, true, NULL, 0);
    if (rc != RTC_OK)
        return rc;
    if (H_ns <= 0 || (cap > 0 && !syncs))
        return RTC_EINVAL;
    rc = rtc_pf_period(sys->h_ns, sys->m, H_ns, &period);
    if (rc == RTC_OK)
        rc = period_intervals(period, H_ns, &zn);
    if (rc != RTC_OK)
        return rc;

    /* O(m) scratch from the heap: m is not bounded at compile time, and this estimator runs
     * at load or in the planner, never in the RT loop. */
    size_t m = sys->m, count = 0;
    pf_wall w = {.sys = sys};
    w.base = calloc(m, sizeof *w.base);
    w.ns = calloc(m, sizeof *w.ns);
    w.c = calloc(m, sizeof *w.c);
    if (!w.base || !w.ns || !w.c) {
        rc = RTC_ENOMEM;
        goto out;
    }
    /* Intervals 0 .. H̄/H; the last one holds the synchronization of all units at t = H̄,
     * after which the period is complete (steps beyond H̄ belong to the next period). */
    int64_t start = 0;
    for (int64_t z = 0; z <= zn; z++, start += H_ns) {
        rtc_pf_sync rec;
        if (wall_interval(&w, start, H_ns, &rec) > 0) {
            rec.zeta = z;
            if (count < cap)
                syncs[count] = rec;
            count++;
        }
        if (z < zn)
            wall_free_steps(&w, start);
    }
    /* With two or more units everyone synchronised at H̄, so all wall times are equal; the
     * maximum also covers a single unit, which never synchronises. */
    double tw = 0.0;
    for (size_t i = 0; i < m; i++)
        tw = fmax(tw, unit_wall(&w, i));
    if (n_syncs)
        *n_syncs = count;
    if (dhat)
        *dhat = tw / (double)period;
out:
    free(w.c);
    free(w.ns);
    free(w.base);
    return rc;
}

int rtc_pf_dhat(const rtc_pf_system *sys, int64_t H_ns, double *dhat)
{
    if (!dhat)
        return RTC_EINVAL;
    return rtc_pf_walltime(sys, H_ns, NULL, 0, NULL, dhat);
}

const char *rtc_pf_view_name(rtc_pf_view view)
{
    switch (view) {
    case RTC_PF_LITERAL:
        return "literal";
    case RTC_PF_RECEIVER:
        return "receiver";
    }
    return "?";
}

/* ---- 3. default grid and planner ---------------------------------------------------------- */

/* A sorted set of at most RTC_PF_GRID_MAX candidates; inserts beyond that are dropped. */
typedef struct pf_grid {
    int64_t v[RTC_PF_GRID_MAX];
    size_t n;
} pf_grid;

/* Sorted insertion: the set is at most a few hundred values built once per plan, so a
 * linear scan and memmove are simpler than sorting and deduplicating afterwards. */
static void grid_add(pf_grid *g, int64_t x)
{
    size_t i = 0;
    while (i < g->n && g->v[i] < x)
        i++;
    if ((i < g->n && g->v[i] == x) || g->n == RTC_PF_GRID_MAX)
        return;
    memmove(&g->v[i + 1], &g->v[i], (g->n - i) * sizeof g->v[0]);
    g->v[i] = x;
    g->n++;
}

/* The "nice number" ladder {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8}·10^k·h_min inside
 * [h_min/20, hi], compared as exact rationals vn/vd and rounded to the nearest ns only when
 * added. Decades start at 10^-2 because h_min/20 = 0.05·h_min. The decade loop stops once
 * the decade starts beyond hi, so vn stays far inside 128 bits. */
static void grid_ladder(pf_grid *g, int64_t h_min, int64_t hi)
{
    static const int tenths[10] = {10, 12, 15, 20, 25, 30, 40, 50, 60, 80};
    for (int k = -2; k <= 20; k++) {
        pf_i128 dec_n = h_min, dec_d = 10; /* h_min·10^k, times ten (tenths above) */
        for (int e = 0; e < (k < 0 ? -k : k); e++)
            *(k < 0 ? &dec_d : &dec_n) *= 10;
        if (dec_n * 10 > (pf_i128)hi * dec_d) /* 10^k·h_min > hi: no more candidates */
            break;
        for (int i = 0; i < 10; i++) {
            pf_i128 vn = dec_n * tenths[i], vd = dec_d;
            if (vn * 20 < (pf_i128)h_min * vd || vn > (pf_i128)hi * vd)
                continue;
            int64_t v = (int64_t)((2 * vn + vd) / (2 * vd));
            if (v >= 1)
                grid_add(g, v);
        }
    }
}

/* Multiples j·g of the base tick that divide L: the H whose intervals start on common step
 * ends. Searched downwards from hi, because divisors near the steps matter more than tiny
 * ones, and bounded (100000 tries, at most 32 found) so the grid stays cheap and small. */
static void grid_divisors(pf_grid *g, int64_t tick, int64_t lcm, int64_t h_min, int64_t hi)
{
    int found = 0;
    int64_t j_hi = hi / tick;
    for (int64_t j = j_hi; j >= 1 && j > j_hi - 100000 && found < 32; j--) {
        int64_t d = j * tick;
        if ((pf_i128)d * 20 < h_min) /* below lo = h_min/20: all further ones are too */
            break;
        if (lcm % d == 0) {
            grid_add(g, d);
            found++;
        }
    }
}

int rtc_pf_default_grid(const int64_t *h_ns, size_t m, int64_t *out, size_t cap, size_t *n)
{
    int64_t lcm, h_min, h_max, tick = 0, hi;
    if (!h_ns || !out || !n || m == 0 || !steps_valid(h_ns, m))
        return RTC_EINVAL;
    h_min = h_max = h_ns[0];
    for (size_t i = 0; i < m; i++) {
        h_min = h_ns[i] < h_min ? h_ns[i] : h_min;
        h_max = h_ns[i] > h_max ? h_ns[i] : h_max;
        tick = rtc_time_gcd(tick, h_ns[i]);
    }
    bool have_lcm = rtc_pf_period(h_ns, m, 0, &lcm) == RTC_OK;
    if (!mul64(h_max, 2, &hi))
        hi = INT64_MAX;
    if (have_lcm && lcm < hi)
        hi = lcm;

    /* Insertion order is priority order: when the set is full, later kinds are dropped. The
     * steps themselves come first (H = h_i is the natural choice a user compares against),
     * then the divisors of L, then the ladder that fills the gaps. */
    pf_grid g = {.n = 0};
    for (size_t i = 0; i < m; i++)
        grid_add(&g, h_ns[i]);
    if (have_lcm)
        grid_divisors(&g, tick, lcm, h_min, hi);
    grid_ladder(&g, h_min, hi);
    if (g.n > cap)
        return RTC_ELIMIT;
    memcpy(out, g.v, g.n * sizeof g.v[0]);
    *n = g.n;
    return RTC_OK;
}

/* Evaluate one candidate into its row; failures stay in the row's status. A candidate that
 * cannot be evaluated (an awkward H such as 1 ns, or one whose period overflows) must not
 * sink the whole plan: the user still wants the table for the others. */
static void plan_row(const rtc_pf_system *sys, rtc_pf_view view, rtc_pf_plan_row *row)
{
    row->period_ns = 0;
    row->ehat = row->dhat = NAN;
    row->status = rtc_pf_period(sys->h_ns, sys->m, row->H_ns, &row->period_ns);
    if (row->status == RTC_OK)
        row->status = rtc_pf_ehat(sys, row->H_ns, view, &row->ehat);
    if (row->status == RTC_OK)
        row->status = rtc_pf_dhat(sys, row->H_ns, &row->dhat);
}

/* H* = argmin Ê; a relative difference up to 1e-12 counts as a tie (Ê values are sums of
 * exact ratios rounded to double), and ties go to the larger H: fewer synchronizations. */
static bool plan_better(const rtc_pf_plan_row *a, const rtc_pf_plan_row *best)
{
    double tol = 1e-12 * fmax(fabs(a->ehat), fabs(best->ehat));
    if (a->ehat < best->ehat - tol)
        return true;
    return a->ehat <= best->ehat + tol && a->H_ns > best->H_ns;
}

static int plan_choose(rtc_pf_plan *p)
{
    bool any = false;
    for (size_t r = 0; r < p->n_rows; r++) {
        if (p->rows[r].status != RTC_OK)
            continue;
        if (!any || plan_better(&p->rows[r], &p->rows[p->best]))
            p->best = r;
        any = true;
    }
    return any ? RTC_OK : p->rows[0].status;
}

static int plan_candidates(const rtc_pf_system *sys,
                           const int64_t *cand_ns,
                           size_t n_cand,
                           int64_t *grid,
                           size_t *n,
                           char *err,
                           size_t errcap)
{
    if (!cand_ns || n_cand == 0)
        return rtc_pf_default_grid(sys->h_ns, sys->m, grid, RTC_PF_GRID_MAX, n);
    for (size_t k = 0; k < n_cand; k++) {
        if (cand_ns[k] <= 0) {
            seterr(err, errcap, "candidate %zu: H must be > 0 ns (got %lld)", k,
                   (long long)cand_ns[k]);
            return RTC_EINVAL;
        }
    }
    *n = n_cand;
    return RTC_OK;
}

int rtc_pf_plan_new(const rtc_pf_system *sys,
                    const int64_t *cand_ns,
                    size_t n_cand,
                    rtc_pf_view view,
                    rtc_pf_plan **out,
                    char *err,
                    size_t errcap)
{
    int64_t grid[RTC_PF_GRID_MAX];
    size_t n = 0;
    rtc_pf_plan *p = NULL;
    int rc = RTC_EINVAL;
    if (!out || (view != RTC_PF_LITERAL && view != RTC_PF_RECEIVER)) {
        seterr(err, errcap, "plan: no output or unknown Q view %d", (int)view);
        goto out;
    }
    rc = check_system(sys, true, err, errcap);
    if (rc == RTC_OK)
        rc = plan_candidates(sys, cand_ns, n_cand, grid, &n, err, errcap);
    if (rc != RTC_OK)
        goto out;
    const int64_t *cand = cand_ns && n_cand ? cand_ns : grid;
    p = calloc(1, sizeof *p);
    if (p)
        p->rows = calloc(n, sizeof *p->rows);
    if (!p || !p->rows) {
        seterr(err, errcap, "plan: out of memory");
        rc = RTC_ENOMEM;
        goto out;
    }
    p->m = sys->m;
    p->view = view;
    p->default_grid = cand == grid;
    p->n_rows = n;
    for (size_t i = 0; i < sys->m; i++)
        p->tick_ns = rtc_time_gcd(p->tick_ns, sys->h_ns[i]);
    if (rtc_pf_period(sys->h_ns, sys->m, 0, &p->lcm_ns) != RTC_OK)
        p->lcm_ns = 0;
    for (size_t r = 0; r < n; r++) {
        p->rows[r].H_ns = cand[r];
        plan_row(sys, view, &p->rows[r]);
    }
    rc = plan_choose(p);
    if (rc != RTC_OK) {
        seterr(err, errcap, "plan: no candidate H could be evaluated (first: %s)",
               rc == RTC_ETIME ? "repeat period overflows int64 ns"
                               : "too many synchronization intervals in the repeat period");
        goto out;
    }
    *out = p;
    p = NULL;
out:
    rtc_pf_plan_free(p);
    return rc;
}

void rtc_pf_plan_free(rtc_pf_plan *plan)
{
    if (!plan)
        return;
    free(plan->rows);
    free(plan);
}

static const char *row_reason(int status)
{
    switch (status) {
    case RTC_ETIME:
        return "repeat period overflows int64 ns";
    case RTC_ELIMIT:
        return "too many intervals in the repeat period";
    default:
        return rtc_strerror(status);
    }
}

static int print_row(const rtc_pf_plan *p, size_t r, FILE *f)
{
    const rtc_pf_plan_row *row = &p->rows[r];
    char hs[32], ps[32];
    /* Times print through rtc_time_format_s so the table shows exactly the ns the engine
     * would use (0.000052, not 5.2e-05 or a rounded 0.0001). */
    rtc_time_format_s(row->H_ns, hs, sizeof hs);
    if (row->status != RTC_OK)
        return fprintf(f, "%16s  %16s  %s\n", hs, "-", row_reason(row->status));
    rtc_time_format_s(row->period_ns, ps, sizeof ps);
    return fprintf(f, "%16s  %16s  %9.4f  %8.4f%s\n", hs, ps, row->ehat, row->dhat,
                   r == p->best ? "  <- H*" : "");
}

long rtc_pf_plan_best_paced(const rtc_pf_plan *plan, double limit)
{
    long best = -1;
    for (size_t r = 0; plan && r < plan->n_rows; r++) {
        const rtc_pf_plan_row *row = &plan->rows[r];
        if (row->status != RTC_OK || !(row->dhat <= limit))
            continue;
        double e = best < 0 ? 0 : plan->rows[best].ehat;
        bool tie = best >= 0 && fabs(row->ehat - e) <= 1e-12 * fmax(fabs(row->ehat), fabs(e));
        if (best < 0 || (!tie && row->ehat < e) || (tie && row->H_ns > plan->rows[best].H_ns))
            best = (long)r;
    }
    return best;
}

int rtc_pf_plan_print(const rtc_pf_plan *plan, FILE *f)
{
    char tick[32], lcm[32], best[32];
    if (!plan || !f || plan->n_rows == 0)
        return RTC_EINVAL;
    rtc_time_format_s(plan->tick_ns, tick, sizeof tick);
    rtc_time_format_s(plan->lcm_ns, lcm, sizeof lcm);
    rtc_time_format_s(plan->rows[plan->best].H_ns, best, sizeof best);
    int bad = fprintf(f,
                      "Parallel Fast plan: %zu units, gcd(h) %s s, lcm(h) %s s, Q view %s, "
                      "%zu candidates (%s)\n",
                      plan->m, tick, plan->lcm_ns ? lcm : "overflow", rtc_pf_view_name(plan->view),
                      plan->n_rows, plan->default_grid ? "default grid" : "given") < 0;
    bad |= fprintf(f, "%16s  %16s  %9s  %8s\n", "H [s]", "period [s]", "E_hat", "D_hat") < 0;
    for (size_t r = 0; r < plan->n_rows; r++)
        bad |= print_row(plan, r, f) < 0;
    bad |= fprintf(f, "H* = %s s (argmin of E_hat = %.4f; ties go to the larger H)\n", best,
                   plan->rows[plan->best].ehat) < 0;
    return bad ? RTC_EIO : RTC_OK;
}
