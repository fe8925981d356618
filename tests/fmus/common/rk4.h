/*
 * rk4.h — classical Runge-Kutta integration with fixed sub-steps, shared by the mass
 * models. A communication step h is split into ceil(h / RTC_TM_RK4_MAX_DT) equal
 * sub-steps, inputs held constant, so the integration error (O(dt^4), ~1e-16 per second
 * for these models) stays far below the coupling error a co-simulation test measures.
 */
#ifndef RTC_TM_RK4_H
#define RTC_TM_RK4_H

#include <math.h>
#include <stddef.h>

/** Largest internal sub-step in seconds. */
#define RTC_TM_RK4_MAX_DT 1e-4
/** Largest state dimension. */
#define RTC_TM_RK4_MAX_N 4

/** Right-hand side: dx = f(model, x). */
typedef void rtc_tm_deriv_fn(const void *model, const double *x, double *dx);

/** Number of sub-steps for h (>= 1); the 1e-9 slack keeps 0.01 / 1e-4 at exactly 100. */
static inline long rtc_tm_rk4_substeps(double h)
{
    double n = ceil(h / RTC_TM_RK4_MAX_DT - 1e-9);
    return n < 1.0 ? 1 : (long)n;
}

/** Advance x (n <= RTC_TM_RK4_MAX_N states) over h with RK4 sub-steps. Does not allocate. */
static inline void rtc_tm_rk4(const void *model, rtc_tm_deriv_fn *f, double *x, size_t n, double h)
{
    long steps = rtc_tm_rk4_substeps(h);
    double dt = h / (double)steps;
    double k1[RTC_TM_RK4_MAX_N], k2[RTC_TM_RK4_MAX_N], k3[RTC_TM_RK4_MAX_N];
    double k4[RTC_TM_RK4_MAX_N], tmp[RTC_TM_RK4_MAX_N];
    for (long s = 0; s < steps; s++) {
        f(model, x, k1);
        for (size_t i = 0; i < n; i++)
            tmp[i] = x[i] + 0.5 * dt * k1[i];
        f(model, tmp, k2);
        for (size_t i = 0; i < n; i++)
            tmp[i] = x[i] + 0.5 * dt * k2[i];
        f(model, tmp, k3);
        for (size_t i = 0; i < n; i++)
            tmp[i] = x[i] + dt * k3[i];
        f(model, tmp, k4);
        for (size_t i = 0; i < n; i++)
            x[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
}

#endif /* RTC_TM_RK4_H */
