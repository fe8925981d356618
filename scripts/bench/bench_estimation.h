/*
 * bench_estimation.h — what the two parts of the estimation benchmark share: the
 * deterministic random numbers and the estimator factory (bench_estimation.c: the grid of
 * synthetic scenarios, the acceptance checks, dead reckoning, cost; bench_cases.c: the
 * realistic cases, every fixed estimator against the default).
 */
#ifndef RTC_BENCH_ESTIMATION_H
#define RTC_BENCH_ESTIMATION_H

#include "rtcosim/estimate.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NS_PER_MS 1000000LL

/* ---- deterministic random numbers (xoshiro256**, splitmix64 seeding, Box-Muller) ------- */

typedef struct {
    uint64_t s[4];
    bool have_spare;
    double spare;
} rng_t;

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline void rng_seed(rng_t *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        r->s[i] = z ^ (z >> 31);
    }
    r->have_spare = false;
    r->spare = 0.0;
}

static inline uint64_t rng_next(rng_t *r)
{
    uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return res;
}

static inline double rng_uniform(rng_t *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

static inline double rng_normal(rng_t *r)
{
    if (r->have_spare) {
        r->have_spare = false;
        return r->spare;
    }
    double u1 = rng_uniform(r), u2 = rng_uniform(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    double m = sqrt(-2.0 * log(u1));
    r->spare = m * sin(2.0 * M_PI * u2);
    r->have_spare = true;
    return m * cos(2.0 * M_PI * u2);
}

/* An estimator from a method and its parameters; exits on a bad configuration (the
 * benchmark's own tables name only valid ones). */
static inline rtc_est *bench_est(const char *method, const char *params)
{
    rtc_est_config cfg;
    rtc_est *e = NULL;
    char err[200];
    if (rtc_est_config_parse(&cfg, method, params, err, sizeof err) != RTC_OK ||
        rtc_est_new(&cfg, &e, err, sizeof err) != RTC_OK) {
        fprintf(stderr, "bench_estimation: %s: %s\n", method, err);
        exit(1);
    }
    return e;
}

/** (iv) The realistic cases: every fixed estimator and the default, one table. */
void bench_cases(double seconds);

#endif
