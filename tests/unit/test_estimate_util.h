/*
 * Helpers shared by the three sources of the estimate test executable (test_estimate.c:
 * configuration, polynomial methods, extrapolated-interpolation, staleness, coupling-error
 * monitor; test_estimate_filters.c: dead reckoning, Kalman filters, noise estimation;
 * test_estimate_auto.c: the estimator's own monitor, adaptive Kalman filters, auto).
 *
 * Tolerances: exact-reproduction cases use EXACT = 1e-12 on values of order 1-10: the
 * arithmetic is a handful of operations on time differences of at most 1 s in double
 * (eps 2.2e-16), so round-off stays below 1e-13; 1e-12 leaves a factor 10 and still fails
 * on any modelling error (which would be >= 1e-6 here).
 */
#ifndef RTC_TEST_ESTIMATE_UTIL_H
#define RTC_TEST_ESTIMATE_UTIL_H

#include "cu_main.h"

#include "rtcosim/estimate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS(x) ((int64_t)(x)*1000000)
#define US(x) ((int64_t)(x)*1000)
#define EXACT 1e-12
#define T(fn)                                                                                      \
    {                                                                                              \
#fn, fn                                                                                    \
    }

/** Registers the suites of test_estimate_filters.c (called by rtc_test_register()). */
void rtc_test_register_estimate_filters(void);
/** Registers the suites of test_estimate_auto.c (monitor, adaptive Kalman, auto). */
void rtc_test_register_estimate_auto(void);

/* ---- helpers ---------------------------------------------------------------------------- */

static inline rtc_est *mk(const char *method, const char *params)
{
    rtc_est_config cfg;
    char err[200] = "";
    rtc_est *e = NULL;
    int rc = rtc_est_config_parse(&cfg, method, params, err, sizeof err);
    if (rc == RTC_OK)
        rc = rtc_est_new(&cfg, &e, err, sizeof err);
    if (rc != RTC_OK)
        printf("\n  estimator %s '%s': %s\n", method, params ? params : "", err);
    CU_ASSERT_FATAL(rc == RTC_OK && e != NULL);
    return e;
}

static inline rtc_est_sample smp(int64_t t_ns, double v)
{
    return (rtc_est_sample){.t_ns = t_ns, .arrival_ns = t_ns, .value = v};
}

static inline int push(rtc_est *e, int64_t t_ns, double v)
{
    rtc_est_sample s = smp(t_ns, v);
    return rtc_est_push(e, &s);
}

static inline rtc_est_out q(const rtc_est *e, int64_t t_ns)
{
    rtc_est_out o;
    int rc = rtc_est_query(e, t_ns, &o);
    CU_ASSERT(rc >= 0 && rc == (int)o.quality);
    return o;
}

static inline double secs(int64_t t_ns)
{
    return (double)t_ns * 1e-9;
}

/* Deterministic normal deviates (xorshift64* + Box-Muller) for the noisy cases. */
static uint64_t rng_state __attribute__((unused));
static inline void rng_seed(uint64_t s)
{
    rng_state = s ? s : 1;
}
static inline double rng_uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}
static inline double rng_normal(void)
{
    double u1 = rng_uniform(), u2 = rng_uniform();
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* Irregular sample times: 10 ms grid with a fixed +-3 ms pattern (T-24 jitter). */
static inline int64_t jittered(int k)
{
    static const int off_us[] = {0, 2700, -1900, 3000, -2500, 800, -3000, 1500};
    return MS(10) * k + US(off_us[k % 8]);
}

/* Two query results are identical: value and rate bit for bit, age and quality equal
 * (memcmp of the structs would also compare their indeterminate padding). */
static inline bool out_same(rtc_est_out a, rtc_est_out b)
{
    return memcmp(&a.value, &b.value, sizeof a.value) == 0 &&
           memcmp(&a.rate, &b.rate, sizeof a.rate) == 0 && a.age_ns == b.age_ns &&
           a.quality == b.quality;
}

/* Two configurations are equal field by field. */
static inline bool cfg_same(const rtc_est_config *a, const rtc_est_config *b)
{
    return a->method == b->method && a->fresh_ns == b->fresh_ns && a->stale_ns == b->stale_ns &&
           a->stale_policy == b->stale_policy && a->fallback == b->fallback && a->q == b->q &&
           a->r == b->r && a->gate == b->gate && a->gate_reset == b->gate_reset &&
           a->order == b->order && a->interval_ns == b->interval_ns && a->adapt == b->adapt &&
           a->window == b->window && a->margin == b->margin && a->payback == b->payback;
}

/* A parabola with known derivative: 1 + 4 t - 6 t^2. */
static inline double parabola(int64_t t_ns)
{
    double t = secs(t_ns);
    return 1.0 + 4.0 * t - 6.0 * t * t;
}

#endif
