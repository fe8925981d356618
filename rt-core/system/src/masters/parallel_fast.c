/*
 * Parallel Fast (Holzinger et al.; rtcosim/pfast.h): every unit steps at its own h_i and
 * takes new inputs only at a synchronization point. In each interval [ζH, (ζ+1)H) of the
 * sync step H a unit's qualifying step is its first step that ends at or after ζH, if it
 * also ends inside the interval (Eq. 2, rtc_pf_qualifies() of pfast.c, the one
 * overflow-checked statement of the rule). At the start of the step that follows its
 * qualifying end, a unit takes from each partner the outputs of the partner's own
 * qualifying step end in the same interval, if the partner qualifies there; otherwise its
 * inputs are held.
 *
 * A unit's outputs at its qualifying end are kept as a snapshot tagged with ζ: at most two
 * intervals are open at once (a partner with a longer step may still start its step of
 * the older one), so two slots per unit suffice and the older is reused.
 */
#include "master_priv.h"

#include "rtcosim/pfast.h"
#include "rtcosim/status.h"

#include <stdlib.h>
#include <string.h>

typedef struct pf_unit {
    void *snap[2][RTC_TYPE_COUNT]; /* outputs at a qualifying step end, per type */
    int64_t zeta[2];               /* the interval of each slot, -1: empty */
} pf_unit;

typedef struct pf_state {
    rtc_sync_event ev; /* the interval being collected */
    pf_unit unit[];    /* one per unit */
} pf_state;

/* Is the step of a unit with step h that ends at t_end its qualifying step of the interval
 * holding t_end? (n−1)h < ζH ≤ nh = t_end < (ζ+1)H with ζ = ⌊t_end/H⌋. */
static bool qualifying_end(int64_t h, int64_t H, int64_t t_end)
{
    int64_t n;
    return rtc_pf_qualifies(h, H, t_end / H, &n) == 1 && n * h == t_end;
}

/* Slot of unit u's snapshot for interval zeta, or -1. */
static int snap_slot(const pf_unit *p, int64_t zeta)
{
    return p->zeta[0] == zeta ? 0 : p->zeta[1] == zeta ? 1 : -1;
}

/* Keep the outputs of u's step from t_start if it was its qualifying step. */
static void take_snapshot(const sys_unit *u, pf_unit *p, int64_t t_start, int64_t H)
{
    int64_t end = t_start + u->step_ns;
    if (!qualifying_end(u->step_ns, H, end))
        return;
    int slot = p->zeta[0] <= p->zeta[1] ? 0 : 1;
    for (int ty = 0; ty < RTC_TYPE_COUNT; ty++)
        if (p->snap[slot][ty])
            memcpy(p->snap[slot][ty], rtc__obs_nxt(u, &u->obs[ty]),
                   u->obs[ty].n_values * rtc_type_size(ty));
    p->zeta[slot] = end / H;
}

static void report_interval(rtc_system *sys, rtc_sync_event *ev)
{
    if (sys->sync_hook && ev->units)
        sys->sync_hook(sys->sync_user, ev);
    memset(ev, 0, sizeof *ev);
}

/* At a qualifying start, take each partner's snapshot of the interval if it qualifies. */
static void take_inputs(rtc_system *sys, const sys_unit *u, int64_t t, int64_t zeta)
{
    const pf_state *ps = sys->master_state;
    for (uint32_t l = 0; l < u->n_links_in; l++) {
        sys_link *lk = &sys->links[sys->tick_links[u->link0 + l].link];
        const sys_unit *s = &sys->units[lk->src];
        if (rtc_pf_qualifies(s->step_ns, sys->sync_ns, zeta, NULL) != 1)
            continue;
        int slot = snap_slot(&ps->unit[lk->src], zeta);
        if (slot >= 0)
            rtc__sys_link_apply(sys, lk, t, ps->unit[lk->src].snap[slot][lk->src_type]);
    }
}

static int pf_tick(rtc_system *sys, int64_t t)
{
    pf_state *ps = sys->master_state;
    rtc_sync_event *ev = &ps->ev;
    int64_t H = sys->sync_ns, zeta = t / H;
    if (t > 0 && t % H == 0)
        report_interval(sys, ev);
    for (size_t i = 0; i < sys->n_units; i++) {
        sys_unit *u = &sys->units[i];
        if (!rtc__master_due(sys, u, t))
            continue;
        if (qualifying_end(u->step_ns, H, t)) { /* this start follows a qualifying end */
            take_inputs(sys, u, t, zeta);
            if (i < 64) {
                ev->zeta = zeta;
                ev->units |= UINT64_C(1) << i;
                ev->t_ns[i] = t;
            }
        }
        int rc = rtc__master_step_unit(sys, u, t);
        if (rc != RTC_OK)
            return rc;
        take_snapshot(u, &ps->unit[i], t, H);
    }
    if (t + sys->tick_ns >= sys->stop_ns)
        report_interval(sys, ev); /* the last, possibly partial interval */
    return RTC_OK;
}

static int pf_arm(rtc_system *sys)
{
    pf_state *ps = calloc(1, sizeof *ps + (sys->n_units + 1) * sizeof ps->unit[0]);
    if (!ps)
        return RTC_ENOMEM;
    sys->master_state = ps;
    for (size_t i = 0; i < sys->n_units; i++) {
        pf_unit *p = &ps->unit[i];
        p->zeta[0] = p->zeta[1] = -1;
        for (int t = 0; t < RTC_TYPE_COUNT; t++) {
            size_t n = sys->units[i].obs[t].n_values;
            for (int s = 0; s < 2 && n; s++)
                if (!(p->snap[s][t] = calloc(n, rtc_type_size((rtc_type)t))))
                    return RTC_ENOMEM;
        }
    }
    return RTC_OK;
}

static void pf_free(rtc_system *sys)
{
    pf_state *ps = sys->master_state;
    for (size_t i = 0; ps && i < sys->n_units; i++)
        for (int t = 0; t < RTC_TYPE_COUNT; t++) {
            free(ps->unit[i].snap[0][t]);
            free(ps->unit[i].snap[1][t]);
        }
    free(ps);
    sys->master_state = NULL;
}

const rtc__master_ops rtc__master_parallel_fast = {
    .name = "parallel-fast",
    .threads = RTC__ON_STEPPER,
    .sync_step = true,
    .arm = pf_arm,
    .tick = pf_tick,
    .free = pf_free,
};

void rtc_system_on_sync(rtc_system *sys, rtc_sync_hook hook, void *user)
{
    sys->sync_hook = hook;
    sys->sync_user = user;
}
