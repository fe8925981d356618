/*
 * estimate_noise.c — Kalman noise parameters from a recorded trace (rtc_est_noise_estimate(),
 * rtcosim/estimate.h explains the method): r from the residuals against the chord through
 * each sample's neighbours, outliers and steps classified and left out, q from divided
 * differences at the smallest stride where the signal stands out of the noise. Load-time
 * tool: it allocates its work arrays and sorts.
 */
#include "estimate_method.h"

#include <math.h>
#include <stdlib.h>

/* Flags of the noise helper: an outlier sample (windows touching it are left out) or a
 * sample at the edge of a step (windows spanning it are left out). */
enum { NZ_OUTLIER = 1, NZ_STEP = 2 };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *w, size_t m)
{
    qsort(w, m, sizeof *w, cmp_double);
    return m % 2 ? w[m / 2] : 0.5 * (w[m / 2 - 1] + w[m / 2]);
}

/* Trend-corrected level change across the flagged run [a, b]: mean of up to three samples
 * after it minus mean of up to three before it, less the local slope times the time between
 * those means. About 0 around an outlier, about the step height across a step. */
static double side_jump(const int64_t *t, const double *v, size_t n, size_t a, size_t b)
{
    size_t l0 = a >= 3 ? a - 3 : 0, r1 = b + 3 < n ? b + 3 : n - 1;
    if (l0 >= a || b + 1 > r1)
        return 0.0; /* run at an end of the trace: no side to compare */
    double vl = 0, tl = 0, vr = 0, tr = 0, slope = 0;
    int slopes = 0;
    for (size_t i = l0; i < a; i++) {
        vl += v[i] / (double)(a - l0);
        tl += EST_NS_TO_S(t[i] - t[a]) / (double)(a - l0);
    }
    for (size_t i = b + 1; i <= r1; i++) {
        vr += v[i] / (double)(r1 - b);
        tr += EST_NS_TO_S(t[i] - t[a]) / (double)(r1 - b);
    }
    if (a - l0 >= 2) {
        slope += (v[a - 1] - v[l0]) / EST_NS_TO_S(t[a - 1] - t[l0]);
        slopes++;
    }
    if (r1 - b >= 2) {
        slope += (v[r1] - v[b + 1]) / EST_NS_TO_S(t[r1] - t[b + 1]);
        slopes++;
    }
    if (slopes)
        slope /= slopes;
    return vr - vl - slope * (tr - tl);
}

/* r from the chord residuals (robust scale); then every run of samples whose residual
 * exceeds 6 sigma is classified: a step if the level changes across it by more than its
 * largest residual (a step of height A leaves residuals of A/2 and a level change of A; an
 * outlier leaves a residual of A and no level change), else outliers. Scale-free, so it
 * also works on noiseless traces whose "sigma" is only curvature. */
static void estimate_r(
    const int64_t *t, const double *v, size_t n, double *w, uint8_t *flag, rtc_est_noise *res)
{
    size_t m = n - 2;
    for (size_t k = 1; k + 1 < n; k++) {
        double wt = (double)(t[k + 1] - t[k]) / (double)(t[k + 1] - t[k - 1]);
        double e = v[k] - (wt * v[k - 1] + (1.0 - wt) * v[k + 1]);
        w[k - 1] = fabs(e) / sqrt(1.0 + wt * wt + (1.0 - wt) * (1.0 - wt));
    }
    double *sorted = w + m; /* second half of the work array */
    for (size_t k = 0; k < m; k++)
        sorted[k] = w[k];
    double sigma = median(sorted, m) / 0.6744897501960817;
    res->r = sigma * sigma;
    res->used = m;
    for (size_t k = 0; k < n; k++)
        flag[k] = 0;
    for (size_t k = 1; k + 1 < n;) {
        if (!(w[k - 1] > 6.0 * sigma)) {
            k++;
            continue;
        }
        size_t a = k;
        double peak = 0.0;
        for (; k + 1 < n && w[k - 1] > 6.0 * sigma; k++)
            peak = fmax(peak, w[k - 1]);
        uint8_t kind = fabs(side_jump(t, v, n, a, k - 1)) > peak ? NZ_STEP : NZ_OUTLIER;
        for (size_t i = a; i < k; i++)
            flag[i] = kind;
    }
}

/* Mean of (order! divided difference)^2 minus its noise part over the stride-s windows
 * (order 2: samples k-s, k, k+s; order 3: also k+2s) that touch no outlier and span no step:
 * the mean square of u'' (order 2) or u^(3) (order 3). Divided differences on the actual
 * times keep lost samples (uneven spacing) from posing as signal; each window's noise part
 * is r times its squared coefficients. *noise receives the mean noise part. */
static double window_ms(const int64_t *t,
                        const double *v,
                        const uint8_t *flag,
                        const uint32_t *nstep,
                        size_t n,
                        size_t s,
                        int order,
                        double r,
                        double *noise)
{
    double sum = 0.0, sum_noise = 0.0;
    size_t cnt = 0;
    for (size_t k = s; k + (size_t)(order - 1) * s < n; k++) {
        size_t idx[4] = {k - s, k, k + s, k + 2 * s};
        size_t hi = idx[order];
        if (nstep[hi + 1] != nstep[k - s])
            continue;
        bool touched = false;
        for (int i = 0; i <= order; i++)
            touched |= flag[idx[i]] == NZ_OUTLIER;
        if (touched)
            continue;
        double d = 0.0, c2 = 0.0;
        for (int i = 0; i <= order; i++) {
            double c = order == 2 ? 2.0 : 6.0;
            for (int j = 0; j <= order; j++)
                if (j != i)
                    c /= EST_NS_TO_S(t[idx[i]] - t[idx[j]]);
            d += c * v[idx[i]];
            c2 += c * c;
        }
        sum += d * d;
        sum_noise += r * c2;
        cnt++;
    }
    *noise = cnt ? sum_noise / (double)cnt : 0.0;
    return cnt ? (sum - sum_noise) / (double)cnt : 0.0;
}

/* Signal part at the smallest stride (doubling from 1) where it exceeds 3x the noise part,
 * or at the last stride below n/8; *stride receives the stride used. */
static double signal_part(const int64_t *t,
                          const double *v,
                          const uint8_t *flag,
                          const uint32_t *nstep,
                          size_t n,
                          int order,
                          double r,
                          uint32_t *stride)
{
    double sig, noise;
    size_t s = 1;
    for (;;) {
        sig = window_ms(t, v, flag, nstep, n, s, order, r, &noise);
        if (sig >= 3.0 * noise || 2 * s > n / 8)
            break;
        s *= 2;
    }
    *stride = (uint32_t)s;
    return sig;
}

int rtc_est_noise_estimate(const int64_t *t, const double *v, size_t n, rtc_est_noise *out)
{
    if (!t || !v || !out || n < 16)
        return RTC_EINVAL;
    for (size_t k = 0; k < n; k++)
        if (!isfinite(v[k]) || (k > 0 && t[k] <= t[k - 1]))
            return RTC_EINVAL;
    double *w = malloc(2 * n * sizeof *w);
    uint8_t *flag = malloc(n);
    uint32_t *nstep = malloc((n + 1) * sizeof *nstep);
    int rc = RTC_ENOMEM;
    if (!w || !flag || !nstep)
        goto out;
    rtc_est_noise res = {0};
    estimate_r(t, v, n, w, flag, &res);
    nstep[0] = 0;
    for (size_t k = 0; k < n; k++)
        nstep[k + 1] = nstep[k] + (flag[k] == NZ_STEP);
    for (size_t k = 0; k + 1 < n; k++)
        w[k] = EST_NS_TO_S(t[k + 1] - t[k]);
    res.h_s = median(w, n - 1);
    double sig = signal_part(t, v, flag, nstep, n, 2, res.r, &res.stride);
    if (sig > 0.0) {
        double sd = (double)res.stride;
        res.q_smooth = sig;
        /* The cv model's white acceleration gives E[D^2] = q h^4 s (4 s^2 - 1) / 6 at
         * stride s, where a smooth signal gives (s h)^4 E[u''^2]. */
        res.q_process = sig * 6.0 * sd * sd * sd / (4.0 * sd * sd - 1.0);
    }
    sig = signal_part(t, v, flag, nstep, n, 3, res.r, &res.stride_ca);
    if (sig > 0.0)
        res.q_smooth_ca = sig;
    *out = res;
    rc = RTC_OK;
out:
    free(w);
    free(flag);
    free(nstep);
    return rc;
}
