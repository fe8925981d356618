/*
 * Fixed-step solvers of Model Exchange units: explicit Euler, Heun, classic RK4 and the
 * linearly implicit Euler method. Pure numerics over a right-hand-side callback, so their
 * orders can be checked without an FMU, and their cost per step is fixed: 1, 2, 4 and
 * 1 + Jacobian evaluations, plus an nx^3/3 LU for the implicit method. No allocation here:
 * the work buffers are sized once by rtc__me_work_init().
 */
#include "me_priv.h"

#include "rtcosim/status.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

int rtc__me_work_init(rtc_me_work *w, size_t nx)
{
    size_t n = nx ? nx : 1;
    *w = (rtc_me_work){.nx = nx};
    w->k1 = calloc(5 * n + n * n, sizeof(double));
    w->piv = calloc(n, sizeof *w->piv);
    if (!w->k1 || !w->piv) {
        rtc__me_work_clear(w);
        return RTC_ENOMEM;
    }
    w->k2 = w->k1 + n;
    w->k3 = w->k2 + n;
    w->k4 = w->k3 + n;
    w->tmp = w->k4 + n;
    w->jac = w->tmp + n;
    return RTC_OK;
}

void rtc__me_work_clear(rtc_me_work *w)
{
    free(w->k1);
    free(w->piv);
    *w = (rtc_me_work){0};
}

/* out = a + s * b (restrict: out never overlaps a or b here, so the loop needs no
 * run-time overlap checks, which cost more than the few states themselves) */
static void axpy(size_t n, const double *restrict a, double s, const double *restrict b,
                 double *restrict out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = a[i] + s * b[i];
}

static int rk4(rtc_me_work *w, rtc_me_rhs_fn *f, void *ctx, double t, double h, const double *x0,
               double *x1)
{
    size_t n = w->nx;
    int rc = f(ctx, t, x0, w->k1);
    axpy(n, x0, 0.5 * h, w->k1, w->tmp);
    if (rc == RTC_OK)
        rc = f(ctx, t + 0.5 * h, w->tmp, w->k2);
    axpy(n, x0, 0.5 * h, w->k2, w->tmp);
    if (rc == RTC_OK)
        rc = f(ctx, t + 0.5 * h, w->tmp, w->k3);
    axpy(n, x0, h, w->k3, w->tmp);
    if (rc == RTC_OK)
        rc = f(ctx, t + h, w->tmp, w->k4);
    const double *restrict k1 = w->k1, *restrict k2 = w->k2, *restrict k3 = w->k3,
                           *restrict k4 = w->k4;
    double *restrict out = x1;
    for (size_t i = 0; i < n; i++)
        out[i] = x0[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    return rc;
}

/* In-place LU of the row-major n*n matrix a with partial pivoting; false if singular. */
static bool lu_factor(double *a, size_t n, size_t *piv)
{
    for (size_t k = 0; k < n; k++) {
        size_t p = k;
        for (size_t i = k + 1; i < n; i++)
            p = fabs(a[i * n + k]) > fabs(a[p * n + k]) ? i : p;
        piv[k] = p;
        if (a[p * n + k] == 0.0 || !isfinite(a[p * n + k]))
            return false;
        for (size_t j = 0; p != k && j < n; j++) {
            double s = a[k * n + j];
            a[k * n + j] = a[p * n + j];
            a[p * n + j] = s;
        }
        for (size_t i = k + 1; i < n; i++) {
            double l = a[i * n + k] /= a[k * n + k];
            for (size_t j = k + 1; j < n; j++)
                a[i * n + j] -= l * a[k * n + j];
        }
    }
    return true;
}

static void lu_solve(const double *a, size_t n, const size_t *piv, double *b)
{
    for (size_t k = 0; k < n; k++) {
        double s = b[k];
        b[k] = b[piv[k]];
        b[piv[k]] = s;
        for (size_t i = k + 1; i < n; i++)
            b[i] -= a[i * n + k] * b[k];
    }
    for (size_t k = n; k-- > 0;) {
        for (size_t j = k + 1; j < n; j++)
            b[k] -= a[k * n + j] * b[j];
        b[k] /= a[k * n + k];
    }
}

/* (I - h J) d = h f(t, x0): one Newton step of backward Euler from x0 (Rosenbrock-Euler). */
static int linearly_implicit(rtc_me_work *w, rtc_me_rhs_fn *f, rtc_me_jac_fn *jac, void *ctx,
                             double t, double h, const double *x0, double *x1)
{
    size_t n = w->nx;
    w->bad_entry = SIZE_MAX;
    int rc = f(ctx, t, x0, w->k1);
    if (rc == RTC_OK)
        rc = jac(ctx, t, x0, w->k1, w->jac);
    if (rc != RTC_OK)
        return rc;
    /* a NaN or an infinity would reach the LU as a "singular" pivot, or as a NaN step:
     * say where it came from instead */
    for (size_t e = 0; e < n * n; e++) {
        if (!isfinite(w->jac[e])) {
            w->bad_entry = e;
            w->bad_value = w->jac[e];
            return RTC_EINVAL;
        }
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++)
            w->jac[i * n + j] = (i == j ? 1.0 : 0.0) - h * w->jac[i * n + j];
        w->tmp[i] = h * w->k1[i];
    }
    if (!lu_factor(w->jac, n, w->piv))
        return RTC_EINVAL;
    lu_solve(w->jac, n, w->piv, w->tmp);
    axpy(n, x0, 1.0, w->tmp, x1);
    return RTC_OK;
}

int rtc__me_step(rtc_me_work *w, rtc_me_solver m, rtc_me_rhs_fn *f, rtc_me_jac_fn *jac,
                 void *ctx, double t, double h, const double *x0, double *x1)
{
    size_t n = w->nx;
    int rc;
    switch (m) {
    case RTC_ME_EULER:
        rc = f(ctx, t, x0, w->k1);
        axpy(n, x0, h, w->k1, x1);
        return rc;
    case RTC_ME_HEUN:
        rc = f(ctx, t, x0, w->k1);
        axpy(n, x0, h, w->k1, w->tmp);
        if (rc == RTC_OK)
            rc = f(ctx, t + h, w->tmp, w->k2);
        for (size_t i = 0; i < n; i++)
            x1[i] = x0[i] + 0.5 * h * (w->k1[i] + w->k2[i]);
        return rc;
    case RTC_ME_RK4:
        return rk4(w, f, ctx, t, h, x0, x1);
    case RTC_ME_IMPLICIT:
        return linearly_implicit(w, f, jac, ctx, t, h, x0, x1);
    }
    return RTC_EINVAL;
}
