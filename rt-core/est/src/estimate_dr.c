/*
 * estimate_dr.c — dead reckoning: the receiver's model (the "dead-reckoning" method) and the
 * sender-side threshold rule.
 *
 * DESIGN. Receiver and sender must predict with the same arithmetic, otherwise the sender's
 * promise "the receiver is within the threshold" breaks by round-off at the boundary. Both
 * go through rtc_est_dr_predict() on a sample that carries its derivatives: the sender
 * transmits the derivatives it used, and the receiver uses supplied derivatives before any
 * finite difference of its own.
 */
#include "estimate_method.h"

#include <math.h>

double rtc_est_dr_predict(const rtc_est_sample *s, uint32_t order, int64_t t_ns)
{
    if (!s)
        return NAN;
    double dt = EST_NS_TO_S(t_ns - s->t_ns);
    double v = s->value;
    if (order >= 1 && s->n_deriv >= 1)
        v += s->deriv[0] * dt;
    if (order >= 2 && s->n_deriv >= 2)
        v += 0.5 * s->deriv[1] * dt * dt;
    return v;
}

/* The state to dead-reckon from: *eff gets the newest sample h[0] with the derivatives the
 * model of the given order needs (supplied ones first, finite differences of the n newest
 * samples h[0..n-1] otherwise). */
static void dr_state(const rtc_est_sample *h, uint32_t n, uint32_t order, rtc_est_sample *eff)
{
    *eff = h[0];
    if (order == 0) {
        eff->n_deriv = 0;
        return;
    }
    double d1 = 0.0, d2 = 0.0, unused;
    if (h[0].n_deriv >= 1)
        d1 = h[0].deriv[0];
    else if (n >= 2)
        est_newton(h, n, order, h[0].t_ns, &unused, &d1);
    if (order >= 2) {
        if (h[0].n_deriv >= 2) {
            d2 = h[0].deriv[1];
        } else if (n >= 2 && h[0].n_deriv >= 1 && h[1].n_deriv >= 1) {
            /* The source sends rates: difference them rather than the values (one order
             * less noise amplification). */
            d2 = (h[0].deriv[0] - h[1].deriv[0]) / EST_NS_TO_S(h[0].t_ns - h[1].t_ns);
        } else if (n >= 3) {
            double t1 = EST_NS_TO_S(h[1].t_ns - h[0].t_ns);
            double t2 = EST_NS_TO_S(h[2].t_ns - h[0].t_ns);
            double f01 = (h[1].value - h[0].value) / t1;
            double f12 = (h[2].value - h[1].value) / (t2 - t1);
            d2 = 2.0 * (f12 - f01) / t2;
        }
    }
    eff->deriv[0] = d1;
    eff->deriv[1] = d2;
    eff->n_deriv = order;
}

/* Through the same rtc_est_dr_predict() as the sender, so a sender's threshold promise
 * holds here to the last bit. */
static void dr_eval(const est_leaf *m, const rtc_est_config *cfg, const est_hist *h,
                    int64_t t_ns, double *value, double *rate)
{
    (void)m;
    rtc_est_sample eff;
    dr_state(h->s, h->n, cfg->order, &eff);
    *value = rtc_est_dr_predict(&eff, cfg->order, t_ns);
    *rate = (eff.n_deriv >= 1 ? eff.deriv[0] : 0.0) +
            (eff.n_deriv >= 2 ? eff.deriv[1] * EST_NS_TO_S(t_ns - eff.t_ns) : 0.0);
}

const est_method rtc__est_dead_reckoning = {.eval = dr_eval};

int rtc_est_dr_sender_init(rtc_est_dr_sender *snd, const rtc_est_dr_config *cfg)
{
    if (!snd || !cfg || cfg->order > 2 || cfg->heartbeat_ns < 0)
        return RTC_EINVAL;
    if (!isfinite(cfg->threshold_abs) || !isfinite(cfg->threshold_rel) ||
        !isfinite(cfg->amplitude) || cfg->threshold_abs < 0 || cfg->threshold_rel < 0 ||
        cfg->amplitude < 0)
        return RTC_EINVAL;
    double thr = fmax(cfg->threshold_abs, cfg->threshold_rel * cfg->amplitude);
    if (!(thr > 0))
        return RTC_EINVAL;
    *snd = (rtc_est_dr_sender){.cfg = *cfg, .threshold = thr};
    return RTC_OK;
}

int rtc_est_dr_sender_offer(rtc_est_dr_sender *snd,
                            int64_t t_ns,
                            double value,
                            const double *deriv,
                            uint32_t n_deriv,
                            rtc_est_sample *tx)
{
    if (!snd || !tx || n_deriv > 2 || (n_deriv > 0 && !deriv) || !isfinite(value))
        return RTC_EINVAL;
    if (snd->n_prev > 0 && t_ns <= snd->prev[0].t_ns)
        return RTC_EINVAL;
    rtc_est_sample cur = {.t_ns = t_ns, .arrival_ns = t_ns, .value = value, .n_deriv = n_deriv};
    for (uint32_t i = 0; i < n_deriv; i++) {
        if (!isfinite(deriv[i]))
            return RTC_EINVAL;
        cur.deriv[i] = deriv[i];
    }
    /* Strictly greater than the threshold ("deviates by more than"), so a receiver error
     * of exactly the threshold is still acceptable and the count on a known signal is
     * exact. */
    uint32_t order = snd->cfg.order;
    bool send = !snd->have_last;
    if (!send && snd->cfg.heartbeat_ns > 0 && t_ns - snd->last.t_ns >= snd->cfg.heartbeat_ns)
        send = true;
    if (!send && fabs(value - rtc_est_dr_predict(&snd->last, order, t_ns)) > snd->threshold)
        send = true;
    snd->offered++;
    if (send) {
        /* The state the receiver will dead-reckon from: supplied derivatives, the rest by
         * backward differences over the offers (the same rule the receiver would apply). */
        rtc_est_sample h[3] = {cur, snd->prev[0], snd->prev[1]};
        dr_state(h, 1 + snd->n_prev, order, &snd->last);
        snd->have_last = true;
        snd->transmitted++;
        *tx = snd->last;
    }
    /* Every offer enters the history, transmitted or not: the backward differences must
     * span one offer interval, or the derivative estimate would depend on the traffic. */
    snd->prev[1] = snd->prev[0];
    snd->prev[0] = cur;
    if (snd->n_prev < 2)
        snd->n_prev++;
    return send ? 1 : 0;
}
