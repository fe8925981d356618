/*
 * Placement of a system's units on nodes (rtcosim/plan.h, rtc_plan_place): every node
 * runs its own real-time thread and ticks its own units, connections between nodes go
 * through the node bridges (a sample per node pair, direction and tick, the far side's
 * estimator covering its age). So a placement must fit every node's period, and each
 * cut connection costs coupling accuracy: the planner minimises the cut connections among
 * the placements that fit, then the busiest node's load.
 *
 * DESIGN: the search judges a node by a bound that is quick to add up — the wake-up and
 * engine work at the percentile plus each of its units' work at the percentile (a sum of
 * percentiles is never below the percentile of the sum) — and every node of the chosen
 * placement is then predicted by the model itself (rtc_plan_predict with the other
 * nodes' units left out). Small systems are searched exhaustively (nodes^units up to
 * 2^20); larger ones greedily (heaviest unit first, onto the node that cuts least) and
 * improved by single moves until none helps.
 */
#include "rtcosim/plan.h"

#include "rtcosim/status.h"

#include <stdlib.h>
#include <string.h>

#define EXHAUSTIVE_MAX (1u << 20)

typedef struct place_ctx {
    const rtc_plan *plan;
    const rtc_system *sys;
    size_t n, k;          /* units, nodes */
    const size_t *fixed;  /* per unit: its node, or SIZE_MAX */
    int64_t *q;           /* per unit: work at the percentile (0: no work) */
    int64_t base;         /* wake-up + engine at the percentile */
    int64_t limit;        /* (1 - margin) · period */
    size_t *ends;         /* links: 2 per connection */
    size_t n_links;
} place_ctx;

/* Score of an assignment: fits (all nodes within the limit), cut, busiest node's bound. */
typedef struct score {
    bool fits;
    size_t cut;
    int64_t busiest;
} score;

static score score_of(const place_ctx *c, const size_t *node, int64_t *load)
{
    score s = {.fits = true};
    for (size_t j = 0; j < c->k; j++)
        load[j] = 0;
    for (size_t i = 0; i < c->n; i++)
        load[node[i]] += c->q[i];
    for (size_t j = 0; j < c->k; j++) {
        int64_t l = load[j] ? c->base + load[j] : 0; /* an empty node has no tick */
        s.fits &= l <= c->limit;
        s.busiest = l > s.busiest ? l : s.busiest;
    }
    for (size_t e = 0; e < c->n_links; e++)
        s.cut += node[c->ends[2 * e]] != node[c->ends[2 * e + 1]];
    return s;
}

static bool better(score a, score b)
{
    if (a.fits != b.fits)
        return a.fits;
    if (a.fits && a.cut != b.cut)
        return a.cut < b.cut;
    return a.busiest < b.busiest || (a.busiest == b.busiest && a.cut < b.cut);
}

static bool allowed(const place_ctx *c, const size_t *node)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->fixed && c->fixed[i] != SIZE_MAX && c->fixed[i] != node[i])
            return false;
    return true;
}

/* Every assignment (odometer over nodes^units). */
static void exhaustive(const place_ctx *c, size_t *best, int64_t *load)
{
    size_t *node = calloc(c->n + 1, sizeof *node);
    score bs = {.fits = false, .cut = SIZE_MAX, .busiest = INT64_MAX};
    for (bool more = node != NULL; more;) {
        if (allowed(c, node)) {
            score s = score_of(c, node, load);
            if (better(s, bs)) {
                bs = s;
                memcpy(best, node, c->n * sizeof *node);
            }
        }
        size_t i = 0;
        while (i < c->n && ++node[i] == c->k)
            node[i++] = 0;
        more = i < c->n;
    }
    free(node);
}

/* Heaviest first onto the best node, then single moves while one improves the score. */
static void greedy(const place_ctx *c, size_t *node, int64_t *load)
{
    bool *done = calloc(c->n + 1, sizeof *done);
    for (size_t placed = 0; done && placed < c->n; placed++) {
        size_t u = SIZE_MAX;
        for (size_t i = 0; i < c->n; i++)
            if (!done[i] && (u == SIZE_MAX || c->q[i] > c->q[u]))
                u = i;
        done[u] = true;
        score bs = {.fits = false, .cut = SIZE_MAX, .busiest = INT64_MAX};
        size_t bj = 0;
        for (size_t j = 0; j < c->k; j++) {
            if (c->fixed && c->fixed[u] != SIZE_MAX && c->fixed[u] != j)
                continue;
            node[u] = j;
            score s = score_of(c, node, load); /* units not yet placed sit on node 0 */
            if (better(s, bs)) {
                bs = s;
                bj = j;
            }
        }
        node[u] = bj;
    }
    free(done);
    for (bool moved = true; moved;) {
        moved = false;
        score cur = score_of(c, node, load);
        for (size_t i = 0; i < c->n; i++) {
            size_t was = node[i];
            for (size_t j = 0; j < c->k && !(c->fixed && c->fixed[i] != SIZE_MAX); j++) {
                node[i] = j;
                score s = score_of(c, node, load);
                if (better(s, cur)) {
                    cur = s;
                    was = j;
                    moved = true;
                }
            }
            node[i] = was;
        }
    }
}

/* Each node's tick of the chosen placement, predicted by the model. */
static int verify(const place_ctx *c, const rtc_profile *prof, rtc_plan_placement *out)
{
    bool *drop = calloc(c->n + 1, sizeof *drop);
    if (!drop)
        return RTC_ENOMEM;
    out->fits = true;
    for (size_t j = 0; j < c->k; j++) {
        bool any = false;
        for (size_t i = 0; i < c->n; i++) {
            drop[i] = out->node[i] != j;
            any |= !drop[i];
        }
        out->utilisation[j] = 0;
        for (size_t i = 0; i < c->n; i++)
            out->utilisation[j] += drop[i] ? 0 : c->plan->units[i].share;
        out->response_ns[j] = any ? rtc_plan_predict(c->plan, c->sys, prof, 0, NULL, NULL, drop,
                                                     c->plan->o.period_ns, NULL)
                                  : 0;
        if (out->response_ns[j] < 0) {
            free(drop);
            return RTC_ENOMEM;
        }
        out->fits &= (double)out->response_ns[j] <= (1 - c->plan->o.margin) *
                                                        (double)c->plan->o.period_ns &&
                     out->utilisation[j] < 1;
    }
    free(drop);
    return RTC_OK;
}

static int context(place_ctx *c, const rtc_plan *plan, const rtc_system *sys,
                   const rtc_profile *prof, size_t n_nodes, const size_t *fixed)
{
    *c = (place_ctx){.plan = plan, .sys = sys, .n = plan->n_units, .k = n_nodes,
                     .fixed = fixed, .n_links = rtc_system_link_count(sys)};
    (void)prof;
    c->q = calloc(c->n + 1, sizeof *c->q);
    c->ends = calloc(2 * c->n_links + 1, sizeof *c->ends);
    if (!c->q || !c->ends)
        return RTC_ENOMEM;
    double q = plan->o.percentile;
    for (size_t i = 0; i < c->n; i++) {
        const rtc_plan_dist *d = &plan->units[i].work;
        c->q[i] = q >= 0.999 ? d->p999 : q >= 0.99 ? d->p99 : d->p50;
    }
    const rtc_plan_dist *w = &plan->wakeup, *e = &plan->engine;
    c->base = q >= 0.999 ? w->p999 + e->p999 : q >= 0.99 ? w->p99 + e->p99 : w->p50 + e->p50;
    c->limit = (int64_t)((1 - plan->o.margin) * (double)plan->o.period_ns);
    for (size_t l = 0; l < c->n_links; l++)
        rtc_system_link_ends(sys, l, &c->ends[2 * l], &c->ends[2 * l + 1]);
    return RTC_OK;
}

int rtc_plan_place(const rtc_plan *plan, const rtc_system *sys, const rtc_profile *prof,
                   size_t n_nodes, const size_t *fixed, rtc_plan_placement *out)
{
    if (!plan || !sys || !prof || !out || n_nodes == 0 || n_nodes > RTC_PLAN_MAX_NODES ||
        rtc_system_unit_count(sys) != plan->n_units)
        return RTC_EINVAL;
    for (size_t i = 0; fixed && i < plan->n_units; i++)
        if (fixed[i] != SIZE_MAX && fixed[i] >= n_nodes)
            return RTC_EINVAL;
    *out = (rtc_plan_placement){.n_nodes = n_nodes};
    place_ctx c;
    int64_t load[RTC_PLAN_MAX_NODES];
    int rc = context(&c, plan, sys, prof, n_nodes, fixed);
    out->node = calloc(plan->n_units + 1, sizeof *out->node);
    rc = rc == RTC_OK && !out->node ? RTC_ENOMEM : rc;
    double space = 1;
    for (size_t i = 0; i < c.n && space <= EXHAUSTIVE_MAX; i++)
        space *= (double)n_nodes;
    out->exhaustive = space <= EXHAUSTIVE_MAX;
    if (rc == RTC_OK && out->exhaustive)
        exhaustive(&c, out->node, load);
    else if (rc == RTC_OK)
        greedy(&c, out->node, load);
    if (rc == RTC_OK) {
        out->cut = score_of(&c, out->node, load).cut;
        rc = verify(&c, prof, out);
    }
    free(c.q);
    free(c.ends);
    if (rc != RTC_OK)
        rtc_plan_placement_clear(out);
    return rc;
}

void rtc_plan_placement_clear(rtc_plan_placement *p)
{
    free(p->node);
    p->node = NULL;
}
