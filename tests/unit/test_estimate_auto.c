/*
 * Tests of the estimator's own monitor (rtc_est_supply(), rtc_est_get_monitor()), the
 * adaptive Kalman filters (adapt=1, kalman) and the default "auto" (issue 21). Part of the
 * estimate test executable (test_estimate.c registers these suites).
 *
 * Signals are sampled every 1 ms and arrive 5 ms late; the consumer is supplied at every
 * 1 ms tick after the tick's samples were pushed, as the I/O unit does. Exact cases use
 * EXACT (test_estimate_util.h); statistical ones name their bound and why.
 */
#include "test_estimate_util.h"

#include <pthread.h>
#include <stdatomic.h>

#define DELAY MS(5)

typedef double (*signal_fn)(int64_t t_ns, int k);

/* Feed samples of f (sample k at k ms, arriving 5 ms later) to e and supply it at every
 * 1 ms tick up to n ticks; out[j] (optional) gets the value supplied at tick j. Returns
 * the RMS of supplied value minus f at the tick over ticks from @p from on. */
static double drive(rtc_est *e, signal_fn f, int n, int from, double *out)
{
    double sq = 0.0;
    int cnt = 0;
    for (int j = 0; j < n; j++) {
        int k = j - 5; /* the sample that arrives now */
        if (k >= 0) {
            rtc_est_sample s = {.t_ns = MS(k), .arrival_ns = MS(j), .value = f(MS(k), k)};
            CU_ASSERT(rtc_est_push(e, &s) >= 0);
        }
        rtc_est_out o;
        int q = rtc_est_supply(e, MS(j), &o);
        CU_ASSERT(q >= 0);
        if (out)
            out[j] = q == RTC_EST_NODATA ? NAN : o.value;
        if (j >= from && q != RTC_EST_NODATA) {
            double d = o.value - f(MS(j), j);
            sq += d * d;
            cnt++;
        }
    }
    return sqrt(sq / (cnt ? cnt : 1));
}

static double ramp(int64_t t_ns, int k)
{
    (void)k;
    return 2.0 * secs(t_ns) - 1.0;
}

/* Set-point steps: 0.5 for 0.3 s, -1 for 0.7 s, 2 for 0.5 s, ... */
static double setpoint(int64_t t_ns, int k)
{
    (void)k;
    static const double level[] = {0.5, -1.0, 2.0, 2.5, -0.25, 1.0};
    static const double until[] = {0.3, 1.0, 1.5, 2.4, 2.9, 1e9};
    int i = 0;
    while (secs(t_ns) >= until[i])
        i++;
    return level[i];
}

/* A 1 Hz sine with white noise of sigma 0.005 (drawn once per sample index, so the
 * estimator and the truth see the same sample). */
static double noise_at[20000];
static double sine(int64_t t_ns, int k)
{
    return sin(2.0 * M_PI * secs(t_ns)) + (k >= 0 ? noise_at[k] : 0.0);
}
static double sine_truth(int64_t t_ns, int k)
{
    (void)k;
    return sin(2.0 * M_PI * secs(t_ns));
}

static void fill_noise(double sigma)
{
    rng_seed(21);
    for (int i = 0; i < 20000; i++)
        noise_at[i] = sigma * rng_normal();
}

/* ---- the monitor ------------------------------------------------------------------------ */

/* zoh on a ramp of slope 2/s, 5 ms late: a sample finds that the 5 ms-old value was
 * supplied at its own time, an error of exactly -0.01; the delays are all 5 ms. The first
 * samples (1 to 4 ms) are older than the first tick noted (5 ms): they are judged by the
 * estimate from the samples before them, the previous sample, -0.002. */
static void monitor_zoh_ramp_error_is_slope_times_delay(void)
{
    rtc_est *e = mk("zoh", "");
    drive(e, ramp, 200, 0, NULL);
    rtc_est_monitor m;
    CU_ASSERT_EQUAL_FATAL(rtc_est_get_monitor(e, &m), RTC_OK);
    /* 195 samples arrived; the first has nothing supplied before it */
    CU_ASSERT_EQUAL(m.samples, 194);
    CU_ASSERT_DOUBLE_EQUAL(m.error_rms, sqrt((4 * 4e-6 + 190 * 1e-4) / 194), EXACT);
    CU_ASSERT_DOUBLE_EQUAL(m.error_max, 0.01, EXACT);
    CU_ASSERT_DOUBLE_EQUAL(m.error_last, -0.01, EXACT);
    CU_ASSERT_EQUAL(m.supplied, 195);
    CU_ASSERT_EQUAL(m.delays, 195);
    /* the histogram reads 5 ms back within its bucket (1/128 of the value) */
    CU_ASSERT(llabs(m.delay_p50_ns - DELAY) <= DELAY / 128);
    CU_ASSERT_EQUAL(m.delay_min_ns, DELAY);
    CU_ASSERT_EQUAL(m.delay_max_ns, DELAY);
    CU_ASSERT_DOUBLE_EQUAL(m.delay_mean_ns, (double)DELAY, 1e-6);
    CU_ASSERT_EQUAL(m.n_candidates, 1);
    CU_ASSERT_EQUAL(m.cand[0].method, RTC_EST_ZOH);
    CU_ASSERT_EQUAL(m.cand[0].ticks, 195);
    CU_ASSERT(isnan(m.cand[0].q) && isnan(m.cand[0].r));
    rtc_est_free(e);
}

/* A sample between two noted ticks is compared with the two notes interpolated: ticks
 * every 2 ms, samples on the odd milliseconds (7 ms late), quadratic on a parabola
 * supplies the parabola exactly at the ticks, and the chord between two ticks misses it
 * at the midpoint by f'' h^2 / 8 = -12 * (2 ms)^2 / 8 = -6e-6: exactly the error. */
static void monitor_interpolates_between_ticks(void)
{
    rtc_est *e = mk("quadratic", "");
    for (int j = 4; j < 100; j++) {
        int64_t now = MS(2 * j), t = now - MS(7);
        rtc_est_sample s = {.t_ns = t, .arrival_ns = now, .value = parabola(t)};
        rtc_est_push(e, &s);
        rtc_est_supply(e, now, NULL);
    }
    rtc_est_monitor m;
    rtc_est_get_monitor(e, &m);
    CU_ASSERT_EQUAL(m.samples, 95);
    CU_ASSERT_DOUBLE_EQUAL(m.error_last, -6e-6, EXACT);
    rtc_est_free(e);
}

/* rtc_est_query() stays a pure question: it notes nothing and changes no monitor. */
static void query_notes_nothing(void)
{
    rtc_est *e = mk("zoh", "");
    for (int k = 0; k < 50; k++) {
        rtc_est_sample s = {.t_ns = MS(k), .arrival_ns = MS(k) + DELAY, .value = ramp(MS(k), k)};
        rtc_est_push(e, &s);
        q(e, MS(k) + DELAY);
    }
    rtc_est_monitor m;
    rtc_est_get_monitor(e, &m);
    CU_ASSERT_EQUAL(m.supplied, 0);
    /* without notes each sample is judged by the estimate from the samples before it:
     * zoh misses the ramp by one sample interval */
    CU_ASSERT_EQUAL(m.samples, 49);
    CU_ASSERT_DOUBLE_EQUAL(m.error_max, 0.002, EXACT);
    rtc_est_free(e);
}

/* The owner pushes and supplies while another thread reads the monitor (the panel's view
 * of a live run): each figure is read whole; under TSan no race is reported. */
static atomic_bool reader_stop;
static void *reader(void *arg)
{
    const rtc_est *e = arg;
    uint64_t last = 0;
    bool monotonic = true;
    while (!atomic_load(&reader_stop)) {
        rtc_est_monitor m;
        rtc_est_get_monitor(e, &m);
        monotonic &= m.supplied >= last && isfinite(m.error_rms);
        last = m.supplied;
    }
    return monotonic ? arg : NULL;
}

static void monitor_read_while_owner_runs(void)
{
    rtc_est *e = mk("auto", "");
    pthread_t th;
    atomic_store(&reader_stop, false);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, reader, e), 0);
    fill_noise(0.005);
    drive(e, sine, 5000, 0, NULL);
    atomic_store(&reader_stop, true);
    void *ok = NULL;
    pthread_join(th, &ok);
    CU_ASSERT_PTR_EQUAL(ok, e);
    rtc_est_free(e);
}

/* ---- auto --------------------------------------------------------------------------------- */

/* A ramp: auto starts on hold, sees linear predict it exactly, and uses linear from the
 * third sample on; from then on the ramp is supplied exactly at every tick. */
static void auto_follows_a_ramp_after_two_samples(void)
{
    rtc_est *e = mk("auto", "");
    double out[300];
    drive(e, ramp, 300, 0, out);
    rtc_est_monitor m;
    rtc_est_get_monitor(e, &m);
    CU_ASSERT_EQUAL(m.n_candidates, 5);
    CU_ASSERT_EQUAL(m.cand[0].method, RTC_EST_ZOH);
    CU_ASSERT_EQUAL(m.cand[1].method, RTC_EST_LINEAR);
    CU_ASSERT_EQUAL(m.cand[2].method, RTC_EST_DEAD_RECKONING);
    CU_ASSERT_EQUAL(m.cand[3].method, RTC_EST_KALMAN_CV);
    CU_ASSERT_EQUAL(m.cand[4].method, RTC_EST_KALMAN_CA);
    CU_ASSERT_EQUAL(m.in_use, 1);
    CU_ASSERT_EQUAL(m.switches, 1);
    /* samples 0..2 arrive at ticks 5..7; the switch happens at the third */
    CU_ASSERT_EQUAL(m.cand[0].ticks, 2);
    CU_ASSERT_EQUAL(m.cand[1].ticks, 293);
    CU_ASSERT_EQUAL(m.supplied, 295);
    for (int j = 7; j < 300; j++)
        CU_ASSERT_DOUBLE_EQUAL(out[j], ramp(MS(j), j), EXACT);
    rtc_est_free(e);
}

/* Steps and plateaus without noise: no candidate predicts better than holding, so auto
 * stays on hold and supplies exactly what zoh supplies, tick for tick. */
static void auto_stays_on_hold_for_setpoints(void)
{
    rtc_est *a = mk("auto", ""), *z = mk("zoh", "");
    double va[3000], vz[3000];
    drive(a, setpoint, 3000, 0, va);
    drive(z, setpoint, 3000, 0, vz);
    for (int j = 5; j < 3000; j++)
        CU_ASSERT_EQUAL(va[j], vz[j]);
    rtc_est_monitor m;
    rtc_est_get_monitor(a, &m);
    CU_ASSERT_EQUAL(m.in_use, 0);
    CU_ASSERT_EQUAL(m.switches, 0);
    CU_ASSERT_EQUAL(m.cand[0].ticks, m.supplied);
    rtc_est_free(a);
    rtc_est_free(z);
}

/* An operator's set-points, sent on change about once a second (the main job's 100, 50,
 * -80, 120, 60): a sparse signal is held, so the consumer gets exactly the last set-point
 * at every tick. Before the sparse rule auto followed linear's lucky score after the third
 * set-point and the set-point ran away at 130/s until the next one arrived. */
static void auto_holds_sparse_setpoints(void)
{
    static const double sp[] = {100, 50, -80, 120, 60, -20, 90};
    rtc_est *e = mk("auto", "");
    double last = NAN;
    for (int j = 0; j < 8000; j++) {
        if (j % 1000 == 999 && j / 1000 < 7) {
            last = sp[j / 1000];
            rtc_est_sample s = {.t_ns = MS(j), .arrival_ns = MS(j), .value = last};
            rtc_est_push(e, &s);
        }
        rtc_est_out o;
        if (rtc_est_supply(e, MS(j), &o) != RTC_EST_NODATA)
            CU_ASSERT_EQUAL(o.value, last);
    }
    rtc_est_monitor m;
    rtc_est_get_monitor(e, &m);
    CU_ASSERT_EQUAL(m.in_use, 0);
    CU_ASSERT_EQUAL(m.cand[0].ticks, m.supplied);
    rtc_est_free(e);
}

/* A noisy sine 5 ms late: holding lags by 5 ms (RMS about 0.022); auto moves to a Kalman
 * candidate and its error is below a quarter of hold's (the adaptive filters reach about
 * 0.11 x hold here in scripts/bench-estimation; 0.25 leaves room for the seed). */
static void auto_beats_hold_on_a_noisy_sine(void)
{
    fill_noise(0.005);
    rtc_est *a = mk("auto", ""), *z = mk("zoh", "");
    double ea = drive(a, sine, 10000, 1000, NULL);
    fill_noise(0.005);
    double ez = drive(z, sine, 10000, 1000, NULL);
    (void)sine_truth;
    CU_ASSERT(ez > 0.015);
    CU_ASSERT(ea < 0.25 * ez);
    rtc_est_monitor m;
    rtc_est_get_monitor(a, &m);
    CU_ASSERT(m.in_use >= 3); /* a Kalman filter */
    CU_ASSERT(m.cand[3].ticks + m.cand[4].ticks > 8 * m.supplied / 10);
    /* the noise the filters use: r near 0.005^2 (within a factor 2: 32-sample averages) */
    CU_ASSERT(m.cand[3].r > 0.5 * 2.5e-5 && m.cand[3].r < 2.0 * 2.5e-5);
    rtc_est_free(a);
    rtc_est_free(z);
}

/* Same samples, same ticks: the same choices and bit-identical values (replay). */
static void auto_is_deterministic(void)
{
    double v1[4000], v2[4000];
    fill_noise(0.01);
    rtc_est *a = mk("auto", ""), *b = mk("auto", "");
    drive(a, sine, 4000, 0, v1);
    drive(b, sine, 4000, 0, v2);
    CU_ASSERT_EQUAL(memcmp(v1 + 5, v2 + 5, sizeof v1 - 5 * sizeof v1[0]), 0);
    rtc_est_monitor ma, mb;
    rtc_est_get_monitor(a, &ma);
    rtc_est_get_monitor(b, &mb);
    CU_ASSERT_EQUAL(ma.switches, mb.switches);
    CU_ASSERT_EQUAL(ma.error_rms, mb.error_rms);
    rtc_est_free(a);
    rtc_est_free(b);
}

/* reset forgets the samples and the choice (back on hold), keeps the counters. */
static void auto_reset_back_on_hold(void)
{
    rtc_est *e = mk("auto", "");
    drive(e, ramp, 100, 0, NULL);
    rtc_est_monitor m;
    rtc_est_get_monitor(e, &m);
    CU_ASSERT_EQUAL(m.in_use, 1);
    CU_ASSERT_EQUAL(rtc_est_reset(e), RTC_OK);
    rtc_est_get_monitor(e, &m);
    CU_ASSERT_EQUAL(m.in_use, 0);
    CU_ASSERT_EQUAL(m.supplied, 95);
    CU_ASSERT_EQUAL(q(e, MS(200)).quality, RTC_EST_NODATA);
    rtc_est_free(e);
}

/* ---- adaptive Kalman ---------------------------------------------------------------------- */

/* A constant with white noise of variance 0.01, the filter started at r = 1e-6: the
 * innovations teach it r (within 30 %: averages over 32 samples of a chi-square) and a
 * small tracking index (it averages). */
static double noisy_constant(int64_t t_ns, int k)
{
    (void)t_ns;
    return 3.0 + (k >= 0 ? noise_at[k] : 0.0);
}

static void kalman_adapt_learns_r_from_innovations(void)
{
    fill_noise(0.1);
    rtc_est *e = mk("kalman-cv", "adapt=1");
    drive(e, noisy_constant, 4000, 0, NULL);
    rtc_est_monitor m;
    rtc_est_get_monitor(e, &m);
    CU_ASSERT_EQUAL(m.n_candidates, 1);
    CU_ASSERT(m.cand[0].r > 0.7e-2 && m.cand[0].r < 1.3e-2);
    double idx = m.cand[0].q * 1e-12 / m.cand[0].r; /* q dt^4 / r, dt = 1 ms */
    CU_ASSERT(idx >= RTC_EST_ADAPT_RATIO_MIN * 0.999 && idx < 1e-3);
    /* without adapt the configuration's q and r stay */
    rtc_est *f = mk("kalman-cv", "q=2 r=3e-6");
    drive(f, noisy_constant, 100, 0, NULL);
    rtc_est_get_monitor(f, &m);
    CU_ASSERT_EQUAL(m.cand[0].q, 2.0);
    CU_ASSERT_EQUAL(m.cand[0].r, 3e-6);
    rtc_est_free(e);
    rtc_est_free(f);
}

/* Bounds: a noiseless ramp is the cv model itself; its innovations vanish, so r falls to
 * its floor (1e-24 x the squared level) and the tracking index to its minimum — and the
 * ramp is still supplied exactly. */
static void kalman_adapt_stays_within_bounds(void)
{
    rtc_est *e = mk("kalman-cv", "adapt=1");
    double out[3000];
    drive(e, ramp, 3000, 0, out);
    rtc_est_monitor m;
    rtc_est_get_monitor(e, &m);
    double level = ramp(MS(2994), 0);
    CU_ASSERT(m.cand[0].r >= RTC_EST_ADAPT_R_FLOOR * level * level * 0.999);
    double idx = m.cand[0].q * 1e-12 / m.cand[0].r;
    CU_ASSERT(idx >= RTC_EST_ADAPT_RATIO_MIN * 0.999 && idx <= RTC_EST_ADAPT_RATIO_MAX * 1.001);
    CU_ASSERT_DOUBLE_EQUAL(out[2999], ramp(MS(2999), 0), 1e-9);
    rtc_est_free(e);
}

/* kalman: adaptive cv and ca side by side; on a noisy sine its error at the consumer is
 * below a third of hold's and it reports both candidates with their noise. */
static void kalman_chooses_between_cv_and_ca(void)
{
    fill_noise(0.005);
    rtc_est *e = mk("kalman", "");
    double err = drive(e, sine, 8000, 1000, NULL);
    CU_ASSERT(err < 0.006); /* hold: about 0.022; the adaptive filters: about 0.0026 */
    rtc_est_monitor m;
    rtc_est_get_monitor(e, &m);
    CU_ASSERT_EQUAL(m.n_candidates, 2);
    CU_ASSERT_EQUAL(m.cand[0].method, RTC_EST_KALMAN_CV);
    CU_ASSERT_EQUAL(m.cand[1].method, RTC_EST_KALMAN_CA);
    CU_ASSERT(isfinite(m.cand[0].q) && isfinite(m.cand[1].r));
    CU_ASSERT_EQUAL(m.cand[0].ticks + m.cand[1].ticks, m.supplied);
    rtc_est_free(e);
}

/* ---- configuration ------------------------------------------------------------------------ */

static void config_auto_and_kalman_defaults_and_text(void)
{
    rtc_est_config c;
    char err[200] = "", text[256];
    CU_ASSERT_EQUAL(rtc_est_config_parse(&c, "auto", NULL, err, sizeof err), RTC_OK);
    CU_ASSERT_EQUAL(c.method, RTC_EST_AUTO);
    CU_ASSERT_TRUE(c.adapt);
    CU_ASSERT_EQUAL(c.window, 32);
    CU_ASSERT_DOUBLE_EQUAL(c.margin, 0.1, 0.0);
    CU_ASSERT_EQUAL(c.gate_reset, 2);
    rtc_est_config_text(&c, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text,
                           "auto q=1 r=1e-06 gate=5 gate_reset=2 window=32 margin=0.1 order=2");
    /* the text reads back as the same configuration */
    rtc_est_config back;
    CU_ASSERT_EQUAL(rtc_est_config_parse(&back, "auto", strchr(text, ' '), err, sizeof err),
                    RTC_OK);
    CU_ASSERT_TRUE(cfg_same(&c, &back));
    CU_ASSERT_EQUAL(rtc_est_config_parse(&c, "kalman-adaptive", "window=64 margin=0.2", err,
                                         sizeof err), RTC_OK);
    CU_ASSERT_EQUAL(c.method, RTC_EST_KALMAN);
    CU_ASSERT_EQUAL(c.window, 64);
    CU_ASSERT_EQUAL(rtc_est_config_parse(&c, "kalman-cv", "adapt=on", err, sizeof err), RTC_OK);
    CU_ASSERT_TRUE(c.adapt);
    rtc_est_config_text(&c, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "kalman-cv q=1 r=1e-06 gate=5 gate_reset=3 adapt=1");
    CU_ASSERT_EQUAL(rtc_est_config_parse(&c, "kalman-ca", NULL, err, sizeof err), RTC_OK);
    CU_ASSERT_FALSE(c.adapt);
}

static void config_window_margin_adapt_ranges(void)
{
    rtc_est_config c, before;
    char err[200] = "";
    rtc_est_config_parse(&c, "auto", NULL, err, sizeof err);
    before = c;
    CU_ASSERT_EQUAL(rtc_est_config_set(&c, "window", "3", err, sizeof err), RTC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "window must be 4 to 4096"));
    CU_ASSERT_EQUAL(rtc_est_config_set(&c, "margin", "0.95", err, sizeof err), RTC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "margin must be 0 to 0.9"));
    CU_ASSERT_EQUAL(rtc_est_config_set(&c, "adapt", "maybe", err, sizeof err), RTC_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "'adapt'"));
    CU_ASSERT_TRUE(cfg_same(&c, &before));
    CU_ASSERT_EQUAL(rtc_est_config_set(&c, "adapt", "off", err, sizeof err), RTC_OK);
    CU_ASSERT_FALSE(c.adapt);
}

/* ---- payback ----------------------------------------------------------------------------- */

#define PB_DELAY 20 /* ms */

/* A force that rises at 3 N/s from -1 for 0.1 s, then stays (the mass-spring-damper's
 * start, scripts/bench-estimation). */
static double force(int64_t t_ns, int k)
{
    (void)k;
    double t = secs(t_ns);
    return -1.0 + 3.0 * (t < 0.1 ? t : 0.1);
}

/* The coupled link of rtcosim/system.h for n 1 ms ticks: sample k (at k ms) arrives
 * PB_DELAY ms later; until the first arrives the consumer is held at the first sample,
 * then supplied by e. The consumer holds each value over its tick, as does the lock-step
 * run it is compared with (the true force at the tick): *p gets the integral of supplied
 * minus true (momentum) and *x the integral of that (position) at the end; out[j] the
 * value supplied at tick j. */
static void pb_drive(rtc_est *e, int n, double *p, double *x, double *out)
{
    const double h = 1e-3;
    *p = *x = 0.0;
    for (int j = 0; j < n; j++) {
        int k = j - PB_DELAY;
        double v = force(0, 0);
        if (k >= 0) {
            rtc_est_sample s = {.t_ns = MS(k), .arrival_ns = MS(j), .value = force(MS(k), k)};
            CU_ASSERT(rtc_est_push(e, &s) >= 0);
            rtc_est_out o;
            CU_ASSERT(rtc_est_supply(e, MS(j), &o) < RTC_EST_NODATA);
            v = o.value;
        }
        if (out)
            out[j] = v;
        *p += (v - force(MS(j), j)) * h;
        *x += *p * h;
    }
}

/* Payback pays back every error supplied, the blind start's and the estimate's own: on
 * hold, linear and auto the consumer ends with neither momentum nor position error against
 * the lock-step run, to round-off (1e-9 of the blind start's debt, -3 N/s * (0 + 1 + ...
 * + 19) ms * 1 ms = -5.7e-4 N s). Exact because the samples fall on ticks and the notes
 * are at most two ticks apart (1/16 of the delay): the integral of the values supplied up
 * to a sample's time is the note's before it plus its value held for one tick. Without
 * payback: hold keeps 20 ms of the rise (-6e-3 N s) and its position error; linear returns
 * the momentum itself (its overshoot where the rise ends) but keeps a position error; auto
 * both. */
static void payback_leaves_no_momentum_or_position(void)
{
    enum { N = 3000 };
    static const char *const methods[] = {"zoh", "linear", "auto"};
    const double debt = 5.7e-4; /* the blind start's */
    for (size_t i = 0; i < 3; i++) {
        double p0, x0, p1, x1;
        rtc_est *e = mk(methods[i], ""), *f = mk(methods[i], "payback=2");
        pb_drive(e, N, &p0, &x0, NULL);
        pb_drive(f, N, &p1, &x1, NULL);
        printf("\n  %s: momentum %.3g -> %.3g N s, position %.3g -> %.3g N s^2", methods[i],
               p0, p1, x0, x1);
        CU_ASSERT(fabs(x0) > 1e-5);
        CU_ASSERT(fabs(p1) < 1e-9 * debt);
        CU_ASSERT(fabs(x1) < 1e-9 * debt * 1.0);
        rtc_est_monitor m;
        rtc_est_get_monitor(f, &m);
        CU_ASSERT(m.payback_max > 0.01 && fabs(m.payback_last) < 1e-9);
        CU_ASSERT_EQUAL(m.payback_unpaid, 0);
        rtc_est_get_monitor(e, &m); /* off: nothing added, nothing reported */
        CU_ASSERT(m.payback_max == 0.0 && m.payback_last == 0.0 && m.payback_unpaid == 0);
        rtc_est_free(e);
        rtc_est_free(f);
    }
}

/* Any k is safe: a tiny one (the rate capped at half the tick rate, where the held
 * correction still settles without overshoot) pays back as exactly; a huge one pays
 * back slowly; every value supplied stays finite. Without the cap, k = 0.001 (w = 5e4/s
 * against a 1 ms tick) doubled the debts each tick, to infinity within a second. */
static void payback_is_stable_for_any_k(void)
{
    enum { N = 3000 };
    static double out[N];
    static const char *const params[] = {"payback=0.001", "payback=0.05", "payback=1e6"};
    for (size_t i = 0; i < 3; i++) {
        double p, x;
        rtc_est *e = mk("linear", params[i]);
        pb_drive(e, N, &p, &x, out);
        bool finite = true;
        for (int j = 0; j < N; j++)
            finite = finite && isfinite(out[j]) && fabs(out[j]) < 10.0;
        CU_ASSERT_TRUE(finite);
        if (i < 2) {
            CU_ASSERT(fabs(p) < 1e-9 * 5.7e-4);
            CU_ASSERT(fabs(x) < 1e-9 * 5.7e-4);
        }
        rtc_est_free(e);
    }
}

/* Samples lost for 0.5 s while the force keeps rising at 3 N/s: linear extrapolates the
 * ramp right through the gap, but nothing tells what the force did there. Taking the
 * sample before the gap as the truth over it would owe 3 N/s * 0.5^2 s^2 / 2 = 0.375 N s
 * and pay it back as a pulse of about 2 w 0.375 = 19 N (w = 1/40 ms); the gap is counted
 * unpaid instead, and the corrections stay those of the regular intervals. */
static void payback_does_not_guess_over_a_gap(void)
{
    rtc_est *e = mk("linear", "payback=2");
    for (int j = 0; j < 1500; j++) {
        int k = j - PB_DELAY;
        if (k >= 0 && (k < 300 || k >= 800)) {
            rtc_est_sample s = {.t_ns = MS(k), .arrival_ns = MS(j), .value = -1.0 + 3e-3 * k};
            CU_ASSERT(rtc_est_push(e, &s) >= 0);
        }
        rtc_est_out o;
        if (k >= 0)
            CU_ASSERT(rtc_est_supply(e, MS(j), &o) < RTC_EST_NODATA);
    }
    rtc_est_monitor m;
    rtc_est_get_monitor(e, &m);
    printf("\n  largest correction %.3g N, unpaid %llu", m.payback_max,
           (unsigned long long)m.payback_unpaid);
    CU_ASSERT(m.payback_max < 0.1);
    CU_ASSERT_EQUAL(m.payback_unpaid, 1);
    rtc_est_free(e);
}

/* A backlog after an outage: samples 0.1 s to 0.6 s do not arrive until 0.6 s, then all
 * at once. The oldest of them are older than the notes reach (about three mean delays),
 * so what was supplied for their time is unknown: those intervals are counted unpaid,
 * not guessed, and the ones the notes still cover are paid back. */
static void payback_counts_what_it_cannot_learn(void)
{
    rtc_est *e = mk("linear", "payback=2");
    int next = 0; /* the next sample to deliver, 1 ms apart */
    for (int j = 0; j < 1000; j++) {
        int upto = j < 100 + PB_DELAY || j >= 600 ? j - PB_DELAY : 100;
        for (; next <= upto; next++) {
            rtc_est_sample s = {.t_ns = MS(next), .arrival_ns = MS(j),
                                .value = force(MS(next), next)};
            CU_ASSERT(rtc_est_push(e, &s) >= 0);
        }
        rtc_est_out o;
        if (next > 0)
            CU_ASSERT(rtc_est_supply(e, MS(j), &o) < RTC_EST_NODATA);
    }
    rtc_est_monitor m;
    rtc_est_get_monitor(e, &m);
    printf("\n  unpaid after the outage: %llu of 500 intervals",
           (unsigned long long)m.payback_unpaid);
    CU_ASSERT(m.payback_unpaid > 100 && m.payback_unpaid < 500);
    rtc_est_free(e);
}

static void config_payback(void)
{
    rtc_est_config c, back;
    char err[200] = "", text[256];
    for (int m = 0; m < RTC_EST_METHOD_COUNT; m++) { /* off by default, every method */
        CU_ASSERT_EQUAL(rtc_est_config_init(&c, (rtc_est_method)m), RTC_OK);
        CU_ASSERT(c.payback == 0.0);
    }
    CU_ASSERT_EQUAL(rtc_est_config_parse(&c, "linear", "payback=2", err, sizeof err), RTC_OK);
    rtc_est_config_text(&c, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "linear payback=2");
    CU_ASSERT_EQUAL(rtc_est_config_parse(&back, "linear", strchr(text, ' '), err, sizeof err),
                    RTC_OK);
    CU_ASSERT_TRUE(cfg_same(&c, &back));
    CU_ASSERT_EQUAL(rtc_est_config_set(&c, "payback", "-1", err, sizeof err), RTC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "payback must be finite and >= 0"));
    CU_ASSERT_EQUAL(rtc_est_config_set(&c, "payback", "inf", err, sizeof err), RTC_EPARSE);
    CU_ASSERT_TRUE(cfg_same(&c, &back));
}

void rtc_test_register_estimate_auto(void)
{
    static const rtc_test_case monitor[] = {
        T(monitor_zoh_ramp_error_is_slope_times_delay),
        T(monitor_interpolates_between_ticks),
        T(query_notes_nothing),
        T(monitor_read_while_owner_runs),
        {NULL, NULL},
    };
    static const rtc_test_case autos[] = {
        T(auto_follows_a_ramp_after_two_samples),
        T(auto_stays_on_hold_for_setpoints),
        T(auto_holds_sparse_setpoints),
        T(auto_beats_hold_on_a_noisy_sine),
        T(auto_is_deterministic),
        T(auto_reset_back_on_hold),
        T(kalman_adapt_learns_r_from_innovations),
        T(kalman_adapt_stays_within_bounds),
        T(kalman_chooses_between_cv_and_ca),
        T(config_auto_and_kalman_defaults_and_text),
        T(config_window_margin_adapt_ranges),
        {NULL, NULL},
    };
    static const rtc_test_case payback[] = {
        T(payback_leaves_no_momentum_or_position),
        T(payback_is_stable_for_any_k),
        T(payback_counts_what_it_cannot_learn),
        T(payback_does_not_guess_over_a_gap),
        T(config_payback),
        {NULL, NULL},
    };
    rtc_test_add_suite("estimate_monitor", NULL, NULL, monitor);
    rtc_test_add_suite("estimate_auto", NULL, NULL, autos);
    rtc_test_add_suite("estimate_payback", NULL, NULL, payback);
}
