/*
 * estimate_kalman.c — constant-velocity (2 states) and constant-acceleration (3 states)
 * Kalman filters for coupling signals with irregular, delayed and noisy samples.
 *
 * DESIGN. State x = [value, rate, acceleration] (the first n entries), measurement H = [1 0 0].
 * The filter is updated at each accepted sample's own time (so a late sample is filtered
 * where it belongs) and predicted to the query time on a copy (a query never moves the
 * filter). Process noise is the discrete white-noise model of the brief: a white
 * acceleration (cv) or jerk (ca) held constant over each interval dt, Q = q g g' with
 * g = [dt^2/2, dt] (cv) or [dt^3/6, dt^2/2, dt] (ca); with irregular dt each interval gets
 * its own Q.
 *
 * Initialisation is a least-squares polynomial fit with one coefficient per state over the
 * first samples, with the covariance r (V'V)^-1 of that fit: no arbitrary "large" prior, so
 * no cancellation in P and no unit-dependent constants. A noiseless polynomial of the
 * model's degree is thus reproduced exactly from the first update on.
 *
 * A genuine step (gate_reset consecutive gate rejections) restarts the level only: the old
 * state is predicted to the first rejected sample, the value variance is widened by the
 * squared innovation (the level is now uncertain by about the step), and the rejected run
 * is filtered in without the gate (less any sample far from the run's median: an outlier
 * inside the run). Rate and acceleration, and their covariances, carry
 * over. Refitting all states on the run instead would estimate an acceleration from a few
 * noisy samples a millisecond apart, whose error a 20 ms prediction multiplies by
 * thousands; if the derivatives did change, the following updates learn them.
 *
 * Adaptation (rtc_est_config.adapt) estimates q and r from the filter's own innovations
 * nu with variance S = P00 + r, normalised n = nu / sqrt(S). Two conditions hold for the
 * filter that fits the signal: n has unit variance, and consecutive n are uncorrelated
 * (the innovations of the optimal filter are white). So after each update
 *   - the scale: r, q and P are multiplied by 1 + a (n^2 - 1) (within [0.5, 2]): too large
 *     innovations raise the noise the filter assumes, too small ones lower it;
 *   - the ratio: q is multiplied by exp(a n_k n_k-1) (the product within [-4, 4]; the
 *     exponential to second order): a filter too sluggish for the signal leaves
 *     positively correlated innovations (it lags, and the lag persists), one too nervous
 *     negatively correlated ones (it chases the noise, which the next sample undoes);
 *   - a sample the gate rejects still widens the scale, as an innovation at the gate;
 * with a = 1 / min(updates, 32) (a running mean at first, then an exponential average
 * over 32 updates). The tracking index q dt^4 / r (cv; dt^6 for ca) stays within
 * RTC_EST_ADAPT_RATIO_MIN..MAX and r above RTC_EST_ADAPT_R_FLOOR times the squared level:
 * no noise at all (a deterministic coupling signal) drives the filter to the MAX end,
 * where it extrapolates like a polynomial through the newest samples. Covariance
 * matching on the innovation variance alone cannot separate q from r; whiteness can.
 *
 * All matrices are at most 3x3 on the stack: the update costs a few dozen flops.
 */
#include "estimate_method.h"

#include <float.h>
#include <math.h>

/* Invert the symmetric positive definite n x n matrix a (n <= 3) by Gauss-Jordan with
 * partial pivoting. Returns false when a pivot vanishes. */
static bool invert(int n, double a[3][3], double inv[3][3])
{
    double m[3][6];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            m[i][j] = a[i][j];
            m[i][n + j] = i == j ? 1.0 : 0.0;
        }
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int i = c + 1; i < n; i++)
            if (fabs(m[i][c]) > fabs(m[p][c]))
                p = i;
        if (m[p][c] == 0.0)
            return false;
        for (int j = 0; j < 2 * n; j++) {
            double t = m[c][j];
            m[c][j] = m[p][j];
            m[p][j] = t;
        }
        double d = m[c][c];
        for (int j = 0; j < 2 * n; j++)
            m[c][j] /= d;
        for (int i = 0; i < n; i++) {
            if (i == c)
                continue;
            double f = m[i][c];
            for (int j = 0; j < 2 * n; j++)
                m[i][j] -= f * m[c][j];
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            inv[i][j] = m[i][n + j];
    return true;
}

/* Initialise kf with ns states from a least-squares polynomial fit over the n samples
 * s[0..n-1] (any order, distinct times, n >= ns); state time = newest sample time. */
static void kf_fit(est_kalman *kf, int ns, const rtc_est_sample *s, uint32_t n, double r)
{
    int64_t t_ref = s[0].t_ns;
    for (uint32_t i = 1; i < n; i++)
        if (s[i].t_ns > t_ref)
            t_ref = s[i].t_ns;
    /* Fit in scaled time u = tau / T in [-1, 0] so that V'V is well conditioned even for
     * samples 1 ms apart (unscaled, the u^2 column would be ~1e-6 of the first). */
    double T = 0.0;
    for (uint32_t i = 0; i < n; i++)
        T = fmax(T, fabs(EST_NS_TO_S(s[i].t_ns - t_ref)));
    double M[3][3] = {{0}}, b[3] = {0}, Mi[3][3];
    for (uint32_t i = 0; i < n; i++) {
        double u = EST_NS_TO_S(s[i].t_ns - t_ref) / T;
        double phi[3] = {1.0, u, 0.5 * u * u};
        for (int j = 0; j < ns; j++) {
            b[j] += phi[j] * s[i].value;
            for (int k = 0; k < ns; k++)
                M[j][k] += phi[j] * phi[k];
        }
    }
    kf->n = ns;
    kf->t_ns = t_ref;
    if (!(T > 0.0) || !invert(ns, M, Mi)) {
        /* Unreachable with distinct times and n >= ns; stay defined anyway. */
        kf->x[0] = s[0].value;
        kf->x[1] = kf->x[2] = 0.0;
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                kf->P[j][k] = j == k ? r : 0.0;
        return;
    }
    /* Back to seconds: d^j/dt^j = T^-j d^j/du^j. */
    double D[3] = {1.0, 1.0 / T, 1.0 / (T * T)};
    for (int j = 0; j < 3; j++) {
        kf->x[j] = 0.0;
        for (int k = 0; k < 3; k++)
            kf->P[j][k] = 0.0;
    }
    for (int j = 0; j < ns; j++) {
        for (int k = 0; k < ns; k++) {
            kf->x[j] += Mi[j][k] * b[k];
            kf->P[j][k] = r * Mi[j][k] * D[j] * D[k];
        }
        kf->x[j] *= D[j];
    }
}

/* x and P predicted over dt seconds (F x, F P F' + Q). */
static void predict(const est_kalman *kf, double q, double dt, double x[3], double P[3][3])
{
    int n = kf->n;
    double F[3][3] = {{1.0, dt, 0.5 * dt * dt}, {0.0, 1.0, dt}, {0.0, 0.0, 1.0}};
    double g[3];
    if (n == 2) {
        g[0] = 0.5 * dt * dt;
        g[1] = dt;
    } else {
        g[0] = dt * dt * dt / 6.0;
        g[1] = 0.5 * dt * dt;
        g[2] = dt;
    }
    double FP[3][3];
    for (int i = 0; i < n; i++) {
        x[i] = 0.0;
        for (int k = 0; k < n; k++) {
            x[i] += F[i][k] * kf->x[k];
            FP[i][k] = 0.0;
            for (int m = 0; m < n; m++)
                FP[i][k] += F[i][m] * kf->P[m][k];
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double v = q * g[i] * g[j];
            for (int m = 0; m < n; m++)
                v += FP[i][m] * F[j][m];
            P[i][j] = v;
        }
}

/* Updates the adaptation averages over: short enough to follow a signal whose character
 * changes within a second at 1 kHz, long enough that q and r move smoothly (16 and 64 did
 * worse on the sines of scripts/bench-estimation). */
#define EST_ADAPT_WINDOW 32

/* Keep the adapted noise sane: r above the floor relative to the level, q within the
 * tracking-index bounds for the mean sample interval. */
static void adapt_bounds(est_kalman *kf)
{
    double floor = RTC_EST_ADAPT_R_FLOOR * kf->x[0] * kf->x[0];
    kf->r = fmax(kf->r, fmax(floor, DBL_MIN));
    double dt = kf->dt_mean, dt2 = dt * dt, idx = kf->n == 3 ? dt2 * dt2 * dt2 : dt2 * dt2;
    if (!(idx > 0.0))
        return;
    kf->q = fmin(fmax(kf->q, RTC_EST_ADAPT_RATIO_MIN * kf->r / idx),
                 RTC_EST_ADAPT_RATIO_MAX * kf->r / idx);
}

/* The weight of the newest update in the adaptation's averages. */
static double adapt_weight(const est_kalman *kf)
{
    uint32_t n = kf->n_adapt;
    return 1.0 / (double)(n < EST_ADAPT_WINDOW ? (n < 4 ? 4 : n) : EST_ADAPT_WINDOW);
}

/* The scale step: r, q and P times 1 + a (nn^2 - 1), within [0.5, 2]. */
static void adapt_scale(est_kalman *kf, double nn, double a)
{
    kf->nis += a * (nn * nn - kf->nis);
    double f = fmin(fmax(1.0 + a * (nn * nn - 1.0), 0.5), 2.0);
    kf->r *= f;
    kf->q *= f;
    for (int i = 0; i < kf->n; i++)
        for (int j = 0; j < kf->n; j++)
            kf->P[i][j] *= f;
}

/* A sample the gate rejected still says the noise may be larger than assumed: the scale
 * learns from it as from an innovation at the gate (a robust, Huber-like step). Without
 * this, a filter whose r adapted to a noiseless signal would reject every sample after a
 * change of its acceleration and never learn that its S was too small. The estimate does
 * not move (x is kept; only P, q and r grow). */
static void adapt_gated(est_kalman *kf, double gate)
{
    adapt_scale(kf, gate, adapt_weight(kf));
    adapt_bounds(kf);
}

/* One adaptation step after an update whose normalised innovation was nn over dt seconds
 * (the file's DESIGN). */
static void adapt(est_kalman *kf, double nn, double dt)
{
    uint32_t n = kf->n_adapt < UINT32_MAX ? ++kf->n_adapt : kf->n_adapt;
    double a = adapt_weight(kf);
    kf->dt_mean = n == 1 ? dt : kf->dt_mean + a * (dt - kf->dt_mean);
    adapt_scale(kf, nn, a);
    if (n > 1) {
        /* exp(a rho) to second order: |a rho| <= 1 (a <= 1/4, |rho| <= 4), where it stays
         * positive and within 2 % of exp — a few flops instead of a libm call per update */
        double rho = fmin(fmax(nn * kf->nu_prev, -4.0), 4.0), x = a * rho;
        kf->corr += a * (rho - kf->corr);
        kf->q *= 1.0 + x * (1.0 + 0.5 * x);
    }
    kf->nu_prev = nn;
    adapt_bounds(kf);
}

/* Predict kf to t_ns and update with measurement z. When gate > 0 and the normalised
 * innovation exceeds gate^2 nothing is changed and false is returned. With @p learn (and
 * the configuration's adapt) the noise parameters adapt to the innovation. */
static bool kf_update(est_kalman *kf,
                      const rtc_est_config *cfg,
                      int64_t t_ns,
                      double z,
                      double gate,
                      bool learn)
{
    int n = kf->n;
    double x[3] = {0}, P[3][3] = {{0}}, dt = EST_NS_TO_S(t_ns - kf->t_ns);
    predict(kf, kf->q, dt, x, P);
    double S = P[0][0] + kf->r;
    double nu = z - x[0];
    /* Mahalanobis gate on the 1-D innovation: nu^2 / S against a chi-square threshold. */
    if (gate > 0.0 && nu * nu > gate * gate * S) {
        if (learn && cfg->adapt && kf->n_adapt > 0)
            adapt_gated(kf, gate);
        return false;
    }
    double K[3];
    for (int i = 0; i < n; i++)
        K[i] = P[i][0] / S;
    for (int i = 0; i < n; i++) {
        kf->x[i] = x[i] + K[i] * nu;
        for (int j = 0; j < n; j++)
            kf->P[i][j] = P[i][j] - K[i] * P[0][j];
    }
    /* Keep P exactly symmetric; round-off would otherwise let it drift over millions of
     * updates. */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            kf->P[i][j] = kf->P[j][i] = 0.5 * (kf->P[i][j] + kf->P[j][i]);
    kf->t_ns = t_ns;
    if (learn && cfg->adapt && S > 0.0)
        adapt(kf, nu / sqrt(S), dt);
    return true;
}

/* Median of the run's values (n <= RTC_EST_GATE_MAX: insertion sort on the stack). */
static double run_median(const rtc_est_sample *run, uint32_t n)
{
    double v[RTC_EST_GATE_MAX];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = i;
        for (; j > 0 && v[j - 1] > run[i].value; j--)
            v[j] = v[j - 1];
        v[j] = run[i].value;
    }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Restart the level after a genuine step: predict to run[0], widen the value variance by
 * the squared innovation, then update with the n run samples (oldest first) without gate. */
static void kf_restart(est_kalman *kf,
                       const rtc_est_config *cfg,
                       const rtc_est_sample *run,
                       uint32_t n)
{
    /* An outlier can sit inside the run that proves the step; samples farther than the
     * gate from the run's median (sqrt(2 r): the difference of two noisy samples) are left
     * out, so the restart follows the majority of the run. */
    double med = run_median(run, n), lim = cfg->gate * sqrt(2.0 * kf->r);
    uint32_t first = 0;
    while (first + 1 < n && fabs(run[first].value - med) > lim)
        first++;
    double x[3] = {0}, P[3][3] = {{0}};
    predict(kf, kf->q, EST_NS_TO_S(run[first].t_ns - kf->t_ns), x, P);
    double nu = run[first].value - x[0];
    for (int i = 0; i < kf->n; i++) {
        kf->x[i] = x[i];
        for (int j = 0; j < kf->n; j++)
            kf->P[i][j] = P[i][j];
    }
    kf->P[0][0] += nu * nu;
    kf->t_ns = run[first].t_ns;
    for (uint32_t i = first; i < n; i++)
        if (i == first || fabs(run[i].value - med) <= lim)
            kf_update(kf, cfg, run[i].t_ns, run[i].value, 0.0, false);
}

/* Value and rate of the filter state predicted to t_ns (kf unchanged). */
static void kf_eval(const est_kalman *kf, int64_t t_ns, double *value, double *rate)
{
    double dt = EST_NS_TO_S(t_ns - kf->t_ns);
    double a = kf->n == 3 ? kf->x[2] : 0.0;
    *value = kf->x[0] + dt * (kf->x[1] + 0.5 * a * dt);
    *rate = kf->x[1] + a * dt;
}

/* Filter states of the method: 2 (cv) or 3 (ca). */
static int kf_states(const rtc_est_config *cfg)
{
    return cfg->method == RTC_EST_KALMAN_CA ? 3 : 2;
}

/* Until the filter has one sample per state it is not initialised (queries use the
 * polynomial through the samples so far); then every sample is predicted, gated and
 * filtered in at its own time. */
static void kf_take(est_leaf *m, const rtc_est_config *cfg, const est_hist *h,
                    const rtc_est_sample *s, est_take *out)
{
    est_kalman *kf = &m->kf;
    int states = kf_states(cfg);
    if (kf->n == 0) {
        /* the history as it will be with s, newest first */
        rtc_est_sample fit[EST_HIST] = {*s};
        for (uint32_t i = 0; i < h->n && i + 1 < EST_HIST; i++)
            fit[i + 1] = h->s[i];
        kf->q = cfg->q;
        kf->r = cfg->r;
        if (h->n + 1 >= (uint32_t)states)
            kf_fit(kf, states, fit, (uint32_t)states, cfg->r);
        out->verdict = RTC_EST_ACCEPTED;
        return;
    }
    if (kf_update(kf, cfg, s->t_ns, s->value, cfg->gate, true)) {
        kf->n_gated = 0;
        out->verdict = RTC_EST_ACCEPTED;
        return;
    }
    /* Rejected: remember it; nothing else changes until the run proves a step. */
    kf->gated[kf->n_gated++] = *s;
    if (kf->n_gated < cfg->gate_reset) {
        out->verdict = RTC_EST_REJECTED_OUTLIER;
        return;
    }
    /* gate_reset consecutive rejections: a genuine step. Restart the level on the run, and
     * the history from its newest samples, so nothing from before the step survives
     * there. The earlier samples of the run stay counted as rejected; the current one is
     * the accepted one. */
    uint32_t n = kf->n_gated;
    kf_restart(kf, cfg, kf->gated, n);
    kf->n_gated = 0;
    out->verdict = RTC_EST_ACCEPTED_RESET;
    out->rebase = kf->gated + (n > EST_HIST ? n - EST_HIST : 0);
    out->n_rebase = n > EST_HIST ? EST_HIST : n;
}

/* Before initialisation, the polynomial through what there is. */
static void kf_eval_hook(const est_leaf *m, const rtc_est_config *cfg, const est_hist *h,
                         int64_t t_ns, double *value, double *rate)
{
    (void)cfg;
    if (m->kf.n > 0)
        kf_eval(&m->kf, t_ns, value, rate);
    else
        est_newton(h->s, h->n, 2, t_ns, value, rate);
}

const est_method rtc__est_kalman = {.take = kf_take, .eval = kf_eval_hook};

void rtc__est_kalman_noise(const est_leaf *m, const rtc_est_config *cfg, double *q, double *r)
{
    bool on = m->kf.n > 0;
    *q = on ? m->kf.q : cfg->q;
    *r = on ? m->kf.r : cfg->r;
}
