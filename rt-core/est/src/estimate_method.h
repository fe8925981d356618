/*
 * estimate_method.h — what one estimation method (a leaf) sees: the sample history, the
 * primitives every leaf shares, its own state, and the two hooks the dispatcher calls;
 * and the selector (auto, kalman), which runs leaves as its candidates.
 *
 * DESIGN. The estimator is a closed tagged union: rtc_est_config.method is the tag, and
 * est_state holds the state of exactly one method, inside the one fixed-size object
 * rtc_est_new() allocates. estimate.c (the dispatcher) owns everything methods have in
 * common — argument checks, the finite check, the sample-order check, the history,
 * counters, freshness and staleness, the notes of supplied values and the monitor — and
 * calls the method's row of its table:
 *   take  before an in-order, finite sample enters the history: update the method's state
 *         and give the verdict (accept, reject as an outlier, or accept with a restart of
 *         the history from a run of samples);
 *   eval  the method's value and rate at any time, from its state and the history (the
 *         history holds at least one sample).
 * Leaves include only this header (and rtcosim/estimate.h through it): they never call
 * the dispatcher or each other. Both hooks run on the RT thread: bounded work, no
 * allocation, no state outside the arguments.
 *
 * The selector (estimate_select.c) is the one composite: auto and kalman hold up to
 * RTC_EST_MAX_CANDIDATES leaves, each with its own configuration and leaf state, over the
 * dispatcher's one history. It calls the leaves' rows (never the dispatcher), scores each
 * candidate with the prediction errors the dispatcher measures for it, and answers with
 * the one in use.
 *
 * Adding a method: one enum value and name (rtcosim/estimate.h, estimate_config.c), one
 * leaf file with its state in est_leaf, one row in the dispatcher's table.
 */
#ifndef RTCOSIM_ESTIMATE_METHOD_H
#define RTCOSIM_ESTIMATE_METHOD_H

#include "rtcosim/estimate.h"

/* Samples the history keeps (quadratic needs three). */
#define EST_HIST 3

/* Nanoseconds to seconds; applied only to time differences, never to absolute times. */
#define EST_NS_TO_S(ns) ((double)(ns)*1e-9)

/* Accepted samples, newest first, with strictly increasing times (the dispatcher's order
 * check), so every divided difference has a non-zero denominator. */
typedef struct est_hist {
    rtc_est_sample s[EST_HIST];
    uint32_t n;
} est_hist;

/* ---- primitives ------------------------------------------------------------------------ */

/* Value and first derivative at t_ns of the Newton polynomial of degree min(deg, n-1)
 * through the n newest samples h[0..n-1] (newest first, n >= 1). Newton form around the
 * newest sample with times relative to it, so absolute times of hours (1e13 ns) cost no
 * precision; divided differences on the actual sample times, exact for jittered spacing. */
static inline void est_newton(
    const rtc_est_sample *h, uint32_t n, uint32_t deg, int64_t t_ns, double *value, double *rate)
{
    double x = EST_NS_TO_S(t_ns - h[0].t_ns);
    double v = h[0].value, d = 0.0;
    if (deg > n - 1)
        deg = n - 1;
    if (deg >= 1) {
        double t1 = EST_NS_TO_S(h[1].t_ns - h[0].t_ns);
        double f01 = (h[1].value - h[0].value) / t1;
        v += f01 * x;
        d = f01;
        if (deg >= 2) {
            double t2 = EST_NS_TO_S(h[2].t_ns - h[0].t_ns);
            double f12 = (h[2].value - h[1].value) / (t2 - t1);
            double f012 = (f12 - f01) / t2;
            v += f012 * x * (x - t1);
            d += f012 * (2.0 * x - t1);
        }
    }
    *value = v;
    *rate = d;
}

/* ---- method states (the members of the union) ------------------------------------------ */

/* Extrapolated interpolation: the segment starts at ei_start at the anchor (the newest
 * sample's arrival) and reaches ei_end one interval h_s later; h_s = 0: constant ei_end. */
typedef struct est_ei {
    int64_t anchor_ns;
    double start, end, h_s;
} est_ei;

/* Kalman filter: n = 0 until initialised, else 2 (cv) or 3 (ca) states; the current run of
 * consecutive gate rejections, oldest first. */
typedef struct est_kalman {
    int n;
    int64_t t_ns; /* time the state x belongs to (the last update) */
    double x[3];  /* value, rate, acceleration */
    double P[3][3];
    rtc_est_sample gated[RTC_EST_GATE_MAX];
    uint32_t n_gated;
    /* Noise in use: the configuration's, or (adapt) estimated from the innovations. */
    double q, r;
    /* Adaptation (estimate_kalman.c): exponential averages of the normalised innovation
     * squared and of the product of consecutive normalised innovations, the previous
     * normalised innovation, the mean sample interval, and the updates averaged so far. */
    double nis, corr, nu_prev, dt_mean;
    uint32_t n_adapt;
} est_kalman;

typedef union est_leaf {
    est_ei ei;      /* ei */
    est_kalman kf;  /* kalman-cv, kalman-ca */
} est_leaf;

/* The selector's state (estimate_select.c): its candidates, their leaf states and their
 * scores (exponential averages of the squared prediction error). */
typedef struct est_select {
    uint32_t n;                              /* candidates */
    uint32_t cur;                            /* the one in use */
    uint32_t scored;                         /* samples scored (saturates at 16 windows) */
    uint64_t switches;
    rtc_est_config cfg[RTC_EST_MAX_CANDIDATES];
    est_leaf leaf[RTC_EST_MAX_CANDIDATES];
    double score[RTC_EST_MAX_CANDIDATES];    /* over the window: whom to use */
    double slow[RTC_EST_MAX_CANDIDATES];     /* over 16 windows: who may be used (auto) */
} est_select;

typedef union est_state {
    est_leaf leaf;    /* a single method */
    est_select sel;   /* auto, kalman */
} est_state;

/* ---- the hooks ------------------------------------------------------------------------- */

/* What take() decided. rebase/n_rebase (ACCEPTED_RESET only): the history restarts from
 * these samples, oldest first, at most EST_HIST (they stay valid until the next call). */
typedef struct est_take {
    rtc_est_verdict verdict; /* ACCEPTED, ACCEPTED_RESET or REJECTED_OUTLIER */
    const rtc_est_sample *rebase;
    uint32_t n_rebase;
} est_take;

typedef struct est_method {
    /* NULL: every sample is accepted and the method keeps no state of its own */
    void (*take)(est_leaf *m, const rtc_est_config *cfg, const est_hist *h,
                 const rtc_est_sample *s, est_take *out);
    void (*eval)(const est_leaf *m, const rtc_est_config *cfg, const est_hist *h,
                 int64_t t_ns, double *value, double *rate);
} est_method;

/* The leaves' rows (estimate_poly.c, estimate_ei.c, estimate_dr.c, estimate_kalman.c). */
extern const est_method rtc__est_zoh, rtc__est_linear, rtc__est_quadratic, rtc__est_ei,
    rtc__est_dead_reckoning, rtc__est_kalman;

/* The noise a Kalman leaf state uses now (q, r; NaN when it is not initialised yet: the
 * configuration's then). */
void rtc__est_kalman_noise(const est_leaf *m, const rtc_est_config *cfg, double *q, double *r);

/* ---- the payback coupling element (estimate_payback.c) ------------------------------- */

/* The debts of the errors supplied (rtc_est_config.payback > 0), kept beside the method. */
typedef struct est_payback {
    bool started;       /* the first sample was taken */
    bool covered;       /* a sample at or after the blind interval's end was taken */
    int64_t t_end_ns;   /* the blind interval's end, the first supply (INT64_MAX until then) */
    double held;        /* what the consumer was held at: the first sample's value */
    int64_t t_prev_ns;  /* the newest sample taken, and its value */
    double v_prev;
    int64_t t_clock_ns; /* the time p and x are integrated to */
    double p, x;        /* momentum debt (units·s) and position debt (units·s²) */
    double c;           /* the correction supplied since t_clock_ns */
    /* the integral of the values supplied (without the corrections) from the blind
     * interval's end to t_clock_ns, the last of them, and the integral up to t_prev_ns
     * (NaN when unknown) */
    double s_int, s_last, s_prev;
    double spacing_ns; /* the samples' spacing, an exponential average (1/8) */
    uint64_t unpaid;   /* sample intervals whose share was unknown: not in the notes, or a
                        * gap (no samples, so no true signal to compare with) */
} est_payback;

/* An accepted sample: the first starts the blind interval, later ones add their share of
 * it, then of the estimate's own error; @p s_int the integral of the values supplied up to
 * the sample's time (from the notes; NaN when unknown: that share is counted unpaid). */
void rtc__est_payback_sample(est_payback *pb, const rtc_est_sample *s, double s_int);
/* The correction to add to the value @p v supplied at t_ns, with the debts paid up to
 * t_ns; w (1/s): the rate of the payback, 0 supplies none (the debts stay). */
double rtc__est_payback_supply(est_payback *pb, int64_t t_ns, double w, double v);

/* ---- the selector (estimate_select.c) -------------------------------------------------- */

/* Set up the candidates of @p cfg (auto or kalman) in @p s. */
void rtc__est_select_init(est_select *s, const rtc_est_config *cfg);
/* Score every candidate with its prediction error for the sample @p z (pred[i]: what
 * candidate i supplied for the sample's time), then switch with hysteresis; @p sparse: the
 * signal arrives less often than once per RTC_EST_SPARSE_TICKS ticks (auto holds it). */
void rtc__est_select_judge(est_select *s, const rtc_est_config *cfg, const double *pred,
                           double z, bool sparse);
/* The sample enters every candidate's state (the history takes it after: the verdict is
 * always ACCEPTED, a Kalman candidate's gate acts inside that candidate only). */
void rtc__est_select_take(est_select *s, const est_hist *h, const rtc_est_sample *smp);
/* Value and rate of the candidate in use. */
void rtc__est_select_eval(const est_select *s, const est_hist *h, int64_t t_ns,
                          double *value, double *rate);
/* Every candidate's value at t_ns into vals[0 .. s->n - 1]. */
void rtc__est_select_note(const est_select *s, const est_hist *h, int64_t t_ns, double *vals);

#endif
