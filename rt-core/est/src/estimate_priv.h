/*
 * estimate_priv.h — the estimator object and the helpers shared by estimate.c (config,
 * lifecycle, polynomial methods), estimate_kalman.c (Kalman filters) and estimate_dr.c
 * (dead reckoning, noise estimation).
 */
#ifndef RTCOSIM_ESTIMATE_PRIV_H
#define RTCOSIM_ESTIMATE_PRIV_H

#include "rtcosim/estimate.h"

/* Samples the polynomial methods look back on (quadratic needs three). */
#define EST_HIST 3

/* Nanoseconds to seconds; applied only to time differences, never to absolute times. */
#define EST_NS_TO_S(ns) ((double)(ns)*1e-9)

/** Kalman filter state: n = 0 until initialised, else 2 (cv) or 3 (ca) states. */
typedef struct est_kf {
    int n;
    int64_t t_ns; /* time the state x belongs to (the last update) */
    double x[3];  /* value, rate, acceleration */
    double P[3][3];
} est_kf;

struct rtc_est {
    rtc_est_config cfg;
    /* Accepted samples, newest first. */
    rtc_est_sample hist[EST_HIST];
    uint32_t n_hist;
    /* Newest sample time seen (accepted or gate-rejected): the order check. */
    bool have_seen;
    int64_t t_seen_ns;
    /* Extrapolated-interpolation segment: start value at the anchor (the newest sample's
     * arrival), reaching end value one interval h_s later. h_s = 0: constant end value. */
    int64_t ei_anchor_ns;
    double ei_start;
    double ei_end;
    double ei_h_s;
    /* Kalman filter and the current run of consecutive gate rejections (oldest first). */
    est_kf kf;
    rtc_est_sample gated[RTC_EST_GATE_MAX];
    uint32_t n_gated;
    rtc_est_stats st;
    double delay_sum_ns;
};

/* Value and first derivative of the Newton polynomial of degree min(deg, n-1) through the
 * n newest samples hist[0..n-1] (newest first), at t_ns. */
void rtc__est_poly_eval(const rtc_est_sample *hist,
                        uint32_t n,
                        uint32_t deg,
                        int64_t t_ns,
                        double *value,
                        double *rate);

/* Dead reckoning from the sample history: fills *eff with the newest sample and the
 * derivatives the model of the given order needs (supplied ones first, finite differences
 * of the history otherwise). */
void rtc__est_dr_state(const rtc_est_sample *hist, uint32_t n, uint32_t order, rtc_est_sample *eff);

/* Number of filter states of a Kalman method (2 or 3), 0 for other methods. */
int rtc__est_kf_states(rtc_est_method method);

/* Initialise kf with n_states states from a least-squares polynomial fit over the n samples
 * s[0..n-1] (any order, distinct times, n >= n_states); state time = newest sample time. */
void rtc__est_kf_fit(est_kf *kf, int n_states, const rtc_est_sample *s, uint32_t n, double r);

/* Restart the level after a genuine step: predict to run[0], widen the value variance by
 * the squared innovation, then update with the n run samples (oldest first) without gate. */
void rtc__est_kf_restart(est_kf *kf,
                         const rtc_est_config *cfg,
                         const rtc_est_sample *run,
                         uint32_t n);

/* Predict kf to t_ns and update with measurement z. When gate > 0 and the normalised
 * innovation exceeds gate^2 nothing is changed and false is returned. */
bool rtc__est_kf_update(est_kf *kf, const rtc_est_config *cfg, int64_t t_ns, double z, double gate);

/* Value and rate of the filter state predicted to t_ns (kf unchanged). */
void rtc__est_kf_eval(const est_kf *kf, int64_t t_ns, double *value, double *rate);

#endif
