/*
 * The value path between units (rtcosim/system.h): a unit's outputs are fetched into its
 * observation buffers, links carry them (converted, transformed, delayed, estimated) into
 * the consumers' input groups (one conversion each; a bench value arrives already estimated
 * at its I/O signal, io_unit.c), and one set call per type hands those to each unit. Every
 * master steps with these on the real-time path: none of them allocates or locks.
 *
 * Visibility rule: a unit's outputs for t + h (computed when it steps from t) sit in its
 * "nxt" buffer and are read by a consumer only once the consumer's query time has reached
 * t + h; otherwise the consumer reads "cur", the outputs at the unit's last step end. With
 * this one rule Jacobi (query at t), Gauss-Seidel (query at the end of the consumer's
 * step) and multi-rate sample-and-hold all follow, and results never depend on how fast
 * the machine steps.
 */
#include "system_priv.h"

#include "rtcosim/status.h"

#include <stdio.h>
#include <string.h>

/* The link's one conversion of a value on its way in: y = k·x + d (unit conversion and
 * linear transformation) or the mapping, then the destination's type. */
static rtc_value to_dst(const sys_link *l, double x)
{
    if (l->mode != LINK_MAP)
        return rtc_value_from_double(l->dst_type, l->mode == LINK_AFFINE ? l->k * x + l->d : x);
    int64_t key = (int64_t)x; /* a Boolean source: 0 or 1 */
    for (size_t i = 0; i < l->n_map; i++)
        if (l->map[i].from == key)
            return rtc_value_from_double(l->dst_type, (double)l->map[i].to);
    return rtc_value_from_double(l->dst_type, (double)key); /* unmapped values pass unchanged */
}

/* A typed source value: copied as it is, or converted once. */
static rtc_value convert(const sys_link *l, rtc_value v)
{
    return l->mode == LINK_COPY ? v : to_dst(l, rtc_value_to_double(l->src_type, v));
}

/* The half of the source's outputs a consumer querying at @p q_ns sees. */
static inline int visible_half(const sys_unit *s, int64_t q_ns)
{
    return s->has_nxt && s->t_nxt_ns <= q_ns ? s->cur ^ 1 : s->cur;
}

/* The source buffer a consumer querying at @p q_ns sees, and its time. */
static const void *visible(const sys_unit *s, rtc_type t, int64_t q_ns, int64_t *t_ns)
{
    int h = visible_half(s, q_ns);
    *t_ns = h == s->cur ? s->t_cur_ns : s->t_nxt_ns;
    return s->obs[t].half[h];
}

/* The estimator's value at q, the consumer's tick (noted for the link's monitor); a FAULT
 * quality (stale beyond the limit under the fault policy) marks the link so that the
 * master stops the run at this step. */
static double estimate(sys_link *l, int64_t q_ns, double fallback)
{
    rtc_est_out o;
    int q = rtc_est_supply(l->est, q_ns, &o);
    if (q == RTC_EST_FAULT)
        l->fault = true;
    return q >= 0 && q != RTC_EST_NODATA ? o.value : fallback;
}

/* A delayed link: record the source's newest sample, then deliver (to the estimator, or
 * as the held value) every sample that has arrived by q, i.e. sampled at or before
 * q − delay. Until the first arrival the oldest known value is held. */
static void apply_delayed(sys_link *l, double x, int64_t t_src, int64_t q_ns, void *dst)
{
    size_t last = (l->hist_first + l->hist_n + l->hist_cap - 1) % l->hist_cap;
    if (l->hist_n == 0 || l->hist[last].t_ns < t_src) {
        if (l->hist_n == l->hist_cap) { /* cannot happen with the sized ring; stay safe */
            l->hist_first = (l->hist_first + 1) % l->hist_cap;
            l->hist_n--;
            l->hist_arrived -= l->hist_arrived > 0;
        }
        l->hist[(l->hist_first + l->hist_n++) % l->hist_cap] = (struct delayed){t_src, x};
    } else if (l->hist[last].t_ns == t_src && l->hist_arrived < l->hist_n) {
        /* the same instant again, refined before it left (the initialization passes that
         * settle the coupling at t = 0): the newest value is the source's */
        l->hist[last].v = x;
    }
    double held = l->hist[l->hist_first].v;
    while (l->hist_arrived < l->hist_n) {
        const struct delayed *d = &l->hist[(l->hist_first + l->hist_arrived) % l->hist_cap];
        if (d->t_ns > q_ns - l->delay_ns)
            break;
        if (l->est) {
            rtc_est_sample smp = {.t_ns = d->t_ns, .value = d->v,
                                  .arrival_ns = d->t_ns + l->delay_ns};
            rtc_est_push(l->est, &smp);
        }
        l->hist_arrived++;
    }
    /* keep the newest arrived sample as the held value; drop older ones */
    while (l->hist_arrived > 1) {
        l->hist_first = (l->hist_first + 1) % l->hist_cap;
        l->hist_n--;
        l->hist_arrived--;
    }
    held = l->hist_arrived ? l->hist[l->hist_first].v : held;
    if (l->est && l->hist_arrived)
        held = estimate(l, q_ns, held);
    rtc_value w = convert(l, rtc_value_from_double(l->src_type, held));
    rtc_value_store(l->dst_type, &w, dst, l->dst_off);
}

void rtc__sys_link_apply(rtc_system *sys, sys_link *l, int64_t q_ns, const void *src_override)
{
    const sys_unit *s = &sys->units[l->src];
    int64_t t_src = q_ns;
    const void *src = src_override ? src_override : visible(s, l->src_type, q_ns, &t_src);
    void *dst = sys->units[l->dst].in[l->dst_type].values;
    if (l->bench && !src_override) {
        /* a bench value, estimated where it arrived: converted once, into the input */
        if (l->delay_ns) {
            apply_delayed(l, *l->bench, t_src, q_ns, dst);
        } else {
            rtc_value w = to_dst(l, *l->bench);
            rtc_value_store(l->dst_type, &w, dst, l->dst_off);
        }
        return;
    }
    if (l->delay_ns) {
        double x = rtc_value_to_double(l->src_type, rtc_value_load(l->src_type, src, l->src_off));
        apply_delayed(l, x, t_src, q_ns, dst);
        return;
    }
    if (l->est) {
        /* Estimated link: feed the source's newest value once, then ask for time q. */
        rtc_value v = rtc_value_load(l->src_type, src, l->src_off);
        if (t_src > l->fed_ns) {
            rtc_est_sample smp = {.t_ns = t_src, .value = rtc_value_to_double(l->src_type, v),
                                  .arrival_ns = q_ns};
            rtc_est_push(l->est, &smp);
            l->fed_ns = t_src;
        }
        double x = estimate(l, q_ns, rtc_value_to_double(l->src_type, v));
        v = rtc_value_from_double(l->src_type, x);
        rtc_value w = convert(l, v);
        rtc_value_store(l->dst_type, &w, dst, l->dst_off);
        return;
    }
    for (size_t e = 0; e < l->count; e++) {
        rtc_value w = convert(l, rtc_value_load(l->src_type, src, l->src_off + e));
        rtc_value_store(l->dst_type, &w, dst, l->dst_off + e);
    }
}

/* The tick's walk over a unit's input links (sys->tick_links): a plain link is one copy
 * (or k·x + d) between addresses resolved at init; the rest take the general path. */
void rtc__sys_inputs_at(rtc_system *sys, sys_unit *u, int64_t q_ns)
{
    const tick_link *tl = sys->tick_links + u->link0, *end = tl + u->n_links_in;
    for (; tl < end; tl++) {
        if (tl->kind == TICK_GENERAL) {
            rtc__sys_link_apply(sys, &sys->links[tl->link], q_ns, NULL);
            continue;
        }
        const void *x = tl->src_val[visible_half(&sys->units[tl->src], q_ns)];
        if (tl->kind == TICK_AFFINE) {
            double v;
            memcpy(&v, x, sizeof v);
            v = tl->k * v + tl->d; /* the same expression as to_dst() */
            memcpy(tl->dst_val, &v, sizeof v);
        } else if (tl->bytes == sizeof(double)) {
            memcpy(tl->dst_val, x, sizeof(double));
        } else {
            memcpy(tl->dst_val, x, tl->bytes);
        }
    }
}
