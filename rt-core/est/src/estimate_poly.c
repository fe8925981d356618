/*
 * estimate_poly.c — the polynomial methods: zero-order hold, linear and quadratic
 * extrapolation through the newest samples (Newton divided differences on the actual sample
 * times, est_newton()). They keep no state beyond the history.
 */
#include "estimate_method.h"

static void zoh_eval(const est_leaf *m, const rtc_est_config *cfg, const est_hist *h,
                     int64_t t_ns, double *value, double *rate)
{
    (void)m, (void)cfg, (void)t_ns;
    *value = h->s[0].value;
    *rate = 0.0;
}

static void linear_eval(const est_leaf *m, const rtc_est_config *cfg, const est_hist *h,
                        int64_t t_ns, double *value, double *rate)
{
    (void)m, (void)cfg;
    est_newton(h->s, h->n, 1, t_ns, value, rate);
}

static void quadratic_eval(const est_leaf *m, const rtc_est_config *cfg, const est_hist *h,
                           int64_t t_ns, double *value, double *rate)
{
    (void)m, (void)cfg;
    est_newton(h->s, h->n, 2, t_ns, value, rate);
}

const est_method rtc__est_zoh = {.eval = zoh_eval};
const est_method rtc__est_linear = {.eval = linear_eval};
const est_method rtc__est_quadratic = {.eval = quadratic_eval};
