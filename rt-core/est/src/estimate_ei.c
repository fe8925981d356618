/*
 * estimate_ei.c — extrapolated interpolation (co-simulation survey eq. 48-49): a continuous
 * piecewise-linear signal that, when a sample arrives, starts from its own current value and
 * reaches the sample one interval later, then holds it until the next sample arrives.
 *
 * DESIGN. Each segment is anchored at the newest sample's arrival, not at its sample time: a
 * late sample then still continues the output without a jump, at the price of lagging one
 * interval plus the delay. The segment is built in take(), before the sample enters the
 * history, from the segment the previous samples left.
 */
#include "estimate_method.h"

static void ei_eval(const est_leaf *m, const rtc_est_config *cfg, const est_hist *h,
                    int64_t t_ns, double *value, double *rate)
{
    (void)cfg, (void)h;
    const est_ei *e = &m->ei;
    if (e->h_s <= 0.0) {
        *value = e->end;
        *rate = 0.0;
        return;
    }
    /* Beyond the window (next sample late) hold the sample rather than extend the line:
     * with drops and jitter the gap can be many intervals long. */
    double x = EST_NS_TO_S(t_ns - e->anchor_ns);
    if (x > e->h_s) {
        *value = e->end;
        *rate = 0.0;
        return;
    }
    double slope = (e->end - e->start) / e->h_s;
    *value = e->start + slope * x;
    *rate = slope;
}

/* A new segment for sample s: it begins where the current segment is at the sample's
 * arrival, so the output never jumps. */
static void ei_take(est_leaf *m, const rtc_est_config *cfg, const est_hist *h,
                    const rtc_est_sample *s, est_take *out)
{
    est_ei *e = &m->ei;
    /* A source clock ahead of ours (arrival before sample time) anchors at the sample
     * time. */
    int64_t anchor = s->arrival_ns > s->t_ns ? s->arrival_ns : s->t_ns;
    if (h->n == 0) {
        e->start = e->end = s->value;
        e->h_s = 0.0;
    } else {
        double rate;
        ei_eval(m, cfg, h, anchor, &e->start, &rate);
        e->end = s->value;
        int64_t span = cfg->interval_ns > 0 ? cfg->interval_ns : s->t_ns - h->s[0].t_ns;
        e->h_s = EST_NS_TO_S(span);
    }
    e->anchor_ns = anchor;
    out->verdict = RTC_EST_ACCEPTED;
}

const est_method rtc__est_ei = {.take = ei_take, .eval = ei_eval};
