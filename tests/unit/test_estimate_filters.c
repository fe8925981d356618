/*
 * Unit tests of rt-core's coupling-signal estimators, part 2: dead reckoning (receiver and
 * sender rule), Kalman filters and the noise-parameter helper. Registered from
 * test_estimate.c. Tolerances: see test_estimate_util.h and each case's comment.
 */
#include "test_estimate_util.h"

/* ---- dead reckoning --------------------------------------------------------------------- */

static void dr_receiver_uses_supplied_derivatives(void)
{
    rtc_est *e = mk("dr", "order=2");
    rtc_est_sample s = smp(MS(100), 2.0);
    s.n_deriv = 2;
    s.deriv[0] = -3.0;
    s.deriv[1] = 8.0;
    CU_ASSERT_EQUAL(rtc_est_push(e, &s), RTC_EST_ACCEPTED);
    rtc_est_out o = q(e, MS(150));
    CU_ASSERT_DOUBLE_EQUAL(o.value, 2.0 - 3.0 * 0.05 + 4.0 * 0.05 * 0.05, EXACT);
    CU_ASSERT_DOUBLE_EQUAL(o.rate, -3.0 + 8.0 * 0.05, EXACT);
    CU_ASSERT_DOUBLE_EQUAL(rtc_est_dr_predict(&s, 1, MS(150)), 2.0 - 0.15, EXACT);
    CU_ASSERT_DOUBLE_EQUAL(rtc_est_dr_predict(&s, 0, MS(150)), 2.0, 0.0);
    rtc_est_free(e);
}

static void dr_receiver_without_derivatives_matches_polynomial(void)
{
    rtc_est *dr = mk("dr", "order=2"), *quad = mk("quadratic", NULL);
    for (int k = 0; k < 5; k++) {
        push(dr, jittered(k), parabola(jittered(k)));
        push(quad, jittered(k), parabola(jittered(k)));
    }
    for (int j = 0; j < 10; j++) {
        int64_t t = jittered(4) + MS(3) * j;
        CU_ASSERT_DOUBLE_EQUAL(q(dr, t).value, parabola(t), 1e-10);
        CU_ASSERT_DOUBLE_EQUAL(q(dr, t).value, q(quad, t).value, 1e-10);
    }
    rtc_est_free(dr);
    rtc_est_free(quad);
}

/* Offer f(t_k) at t_k = k * 1 ms for k = 0..K and count transmissions. */
static uint64_t
dr_count(uint32_t order, double thr, int K, int64_t hb_ns, int kind, double *max_rx_err)
{
    rtc_est_dr_config c = {.order = order, .threshold_abs = thr, .heartbeat_ns = hb_ns};
    rtc_est_dr_sender snd;
    CU_ASSERT_FATAL(rtc_est_dr_sender_init(&snd, &c) == RTC_OK);
    char params[32];
    snprintf(params, sizeof params, "order=%u", order);
    rtc_est *rx = mk("dr", params);
    *max_rx_err = 0.0;
    for (int k = 0; k <= K; k++) {
        int64_t t = MS(k);
        double ts = secs(t), v, d[1];
        rtc_est_sample tx;
        int sent;
        if (kind == 0) { /* ramp 2 t, no derivative */
            v = 2.0 * ts;
            sent = rtc_est_dr_sender_offer(&snd, t, v, NULL, 0, &tx);
        } else if (kind == 1) { /* parabola t^2 with its exact derivative 2 t */
            v = ts * ts;
            d[0] = 2.0 * ts;
            sent = rtc_est_dr_sender_offer(&snd, t, v, d, 1, &tx);
        } else if (kind == 2) { /* parabola t^2, derivative estimated by the sender */
            v = ts * ts;
            sent = rtc_est_dr_sender_offer(&snd, t, v, NULL, 0, &tx);
        } else { /* constant */
            v = 1.0;
            sent = rtc_est_dr_sender_offer(&snd, t, v, NULL, 0, &tx);
        }
        CU_ASSERT(sent == 0 || sent == 1);
        if (sent == 1)
            CU_ASSERT_EQUAL(rtc_est_push(rx, &tx), RTC_EST_ACCEPTED);
        *max_rx_err = fmax(*max_rx_err, fabs(q(rx, t).value - v));
    }
    CU_ASSERT_EQUAL(snd.offered, (uint64_t)K + 1);
    rtc_est_free(rx);
    return snd.transmitted;
}

static void dr_sender_zoh_model_ramp_analytic_count(void)
{
    /* u = a t, a = 2/s, offered every h = 1 ms, receiver holds (order 0), threshold
     * T = 0.0105: after a transmission the receiver error after m offers is a m h, and
     * transmission needs a m h > T, so the interval is m = floor(T / (a h)) + 1 = 6 offers;
     * over k = 0..K with K = 1000 that gives floor(K / m) + 1 = 167 transmissions. */
    double err;
    int m = (int)floor(0.0105 / (2.0 * 1e-3)) + 1;
    CU_ASSERT_EQUAL(m, 6);
    CU_ASSERT_EQUAL(dr_count(0, 0.0105, 1000, 0, 0, &err), (uint64_t)(1000 / m + 1));
    CU_ASSERT_EQUAL(dr_count(0, 0.0105, 1000, 0, 0, &err), 167);
    CU_ASSERT(err <= 0.0105); /* receiver within the threshold at every offered instant */
}

static void dr_sender_linear_model_parabola_exact_derivative_count(void)
{
    /* u = t^2 with u' = 2t sent along; the linear receiver's error m offers after a
     * transmission at t0 is (m h)^2, independent of t0. Transmit when (m h)^2 > T with
     * T = 5.5e-5, h = 1 ms: m^2 > 55, m = 8; transmissions floor(1000 / 8) + 1 = 126. */
    double err;
    CU_ASSERT_EQUAL(dr_count(1, 5.5e-5, 1000, 0, 1, &err), 126);
    CU_ASSERT(err <= 5.5e-5);
}

static void dr_sender_linear_model_parabola_estimated_derivative_count(void)
{
    /* Without u' the sender uses the backward difference (t^2 - (t-h)^2)/h = 2t - h, so
     * the receiver error is (m h)^2 + h * m h = m (m + 1) h^2: m (m + 1) > 55 gives m = 7.
     * The first transmission (t = 0, no history) has slope 0, error (m h)^2, so m = 8
     * first. Transmissions at 0, 8, 15, 22, ... <= 1000: 2 + floor((1000 - 8) / 7) = 143. */
    double err;
    CU_ASSERT_EQUAL(dr_count(1, 5.5e-5, 1000, 0, 2, &err), 2 + (1000 - 8) / 7);
    CU_ASSERT(err <= 5.5e-5);
}

static void dr_sender_exactly_at_threshold_not_sent(void)
{
    /* "More than the threshold": a deviation of exactly T (binary-exact 0.25) is not sent,
     * anything above is. */
    rtc_est_dr_config c = {.order = 0, .threshold_abs = 0.25};
    rtc_est_dr_sender snd;
    rtc_est_sample tx;
    CU_ASSERT_EQUAL(rtc_est_dr_sender_init(&snd, &c), RTC_OK);
    CU_ASSERT_EQUAL(rtc_est_dr_sender_offer(&snd, MS(1), 1.0, NULL, 0, &tx), 1);
    CU_ASSERT_EQUAL(rtc_est_dr_sender_offer(&snd, MS(2), 1.25, NULL, 0, &tx), 0);
    CU_ASSERT_EQUAL(rtc_est_dr_sender_offer(&snd, MS(3), 0.75, NULL, 0, &tx), 0);
    CU_ASSERT_EQUAL(rtc_est_dr_sender_offer(&snd, MS(4), 1.2500001, NULL, 0, &tx), 1);
    CU_ASSERT_DOUBLE_EQUAL(tx.value, 1.2500001, 0.0);
    CU_ASSERT_EQUAL(tx.t_ns, MS(4));
    CU_ASSERT_EQUAL(snd.transmitted, 2);
    CU_ASSERT_EQUAL(snd.offered, 4);
}

static void dr_sender_heartbeat_forces_transmissions(void)
{
    /* A constant never exceeds the threshold: only the first offer and one heartbeat each
     * 100 ms (at 100, 200, ... 1000 ms) are sent: 11. Without heartbeat: 1. */
    double err;
    CU_ASSERT_EQUAL(dr_count(2, 1e-3, 1000, MS(100), 3, &err), 11);
    CU_ASSERT_EQUAL(dr_count(2, 1e-3, 1000, 0, 3, &err), 1);
    CU_ASSERT_DOUBLE_EQUAL(err, 0.0, 0.0);
}

static void dr_sender_relative_threshold_and_rejections(void)
{
    rtc_est_dr_sender snd, before;
    rtc_est_dr_config c = {.order = 1, .threshold_rel = 0.01, .amplitude = 5.0};
    CU_ASSERT_EQUAL(rtc_est_dr_sender_init(&snd, &c), RTC_OK);
    CU_ASSERT_DOUBLE_EQUAL(snd.threshold, 0.05, 1e-15);
    rtc_est_sample tx;
    CU_ASSERT_EQUAL(rtc_est_dr_sender_offer(&snd, MS(10), 1.0, NULL, 0, &tx), 1);
    before = snd;
    /* Time not increasing, NaN value, too many derivatives: rejected, nothing changes. */
    CU_ASSERT_EQUAL(rtc_est_dr_sender_offer(&snd, MS(10), 1.0, NULL, 0, &tx), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_est_dr_sender_offer(&snd, MS(11), NAN, NULL, 0, &tx), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_est_dr_sender_offer(&snd, MS(11), 1.0, NULL, 3, &tx), RTC_EINVAL);
    CU_ASSERT_EQUAL(snd.offered, before.offered);
    CU_ASSERT_EQUAL(snd.transmitted, before.transmitted);
    CU_ASSERT_EQUAL(snd.n_prev, before.n_prev);
    CU_ASSERT_EQUAL(snd.prev[0].t_ns, before.prev[0].t_ns);
    CU_ASSERT_EQUAL(snd.last.t_ns, before.last.t_ns);
    CU_ASSERT_DOUBLE_EQUAL(snd.last.value, before.last.value, 0.0);
    CU_ASSERT_EQUAL(rtc_est_dr_sender_offer(&snd, MS(11), 1.04, NULL, 0, &tx), 0);
    CU_ASSERT_EQUAL(rtc_est_dr_sender_offer(&snd, MS(12), 1.06, NULL, 0, &tx), 1);
    CU_ASSERT_EQUAL(snd.transmitted, 2);
    /* Threshold 0 (both parts 0) is refused. */
    rtc_est_dr_config z = {.order = 1};
    CU_ASSERT_EQUAL(rtc_est_dr_sender_init(&snd, &z), RTC_EINVAL);
    CU_ASSERT_EQUAL(snd.transmitted, 2);
}

/* ---- Kalman ----------------------------------------------------------------------------- */

static void kalman_cv_noiseless_ramp_exact_from_init(void)
{
    rtc_est *e = mk("kalman-cv", "q=0.5 r=1e-6");
    for (int k = 0; k < 30; k++) {
        push(e, jittered(k), -1.0 + 0.8 * secs(jittered(k)));
        if (k < 1)
            continue;
        rtc_est_out o = q(e, jittered(k) + MS(25));
        CU_ASSERT_DOUBLE_EQUAL(o.value, -1.0 + 0.8 * secs(jittered(k) + MS(25)), EXACT);
        CU_ASSERT_DOUBLE_EQUAL(o.rate, 0.8, 1e-9);
    }
    rtc_est_free(e);
}

static void kalman_cv_steady_state_gains_match_kalata(void)
{
    /* The kalman-cv noise model (white acceleration held over each interval T) has the
     * closed-form steady-state gains of Kalata's alpha-beta filter: tracking index
     * lambda = sqrt(q) T^2 / sqrt(r), alpha = -(l^2 + 8l - (l+4) sqrt(l^2+8l)) / 8,
     * beta = (l^2 + 4l - l sqrt(l^2+8l)) / 4, K = [alpha, beta / T]. P does not depend on
     * the data, so two filters fed the same samples differ, after one sample perturbed by
     * delta, by exactly K delta. 3000 updates settle P to round-off (the closed-loop poles
     * are about 0.9 in magnitude here). Tolerance 1e-8 on gains of order 0.2 and 2. */
    const double T = 0.01, qv = 4.0, r = 1e-4, delta = 1e-3;
    rtc_est *a = mk("kalman-cv", "q=4 r=1e-4 gate=0");
    rtc_est *b = mk("kalman-cv", "q=4 r=1e-4 gate=0");
    int k;
    for (k = 0; k < 3000; k++) {
        push(a, MS(10) * k, 0.0);
        push(b, MS(10) * k, 0.0);
    }
    push(a, MS(10) * k, 0.0);
    push(b, MS(10) * k, delta);
    double l = sqrt(qv) * T * T / sqrt(r), root = sqrt(l * l + 8 * l);
    double alpha = -(l * l + 8 * l - (l + 4) * root) / 8;
    double beta = (l * l + 4 * l - l * root) / 4;
    rtc_est_out oa = q(a, MS(10) * k), ob = q(b, MS(10) * k);
    CU_ASSERT_DOUBLE_EQUAL((ob.value - oa.value) / delta, alpha, 1e-8);
    CU_ASSERT_DOUBLE_EQUAL((ob.rate - oa.rate) / delta, beta / T, 1e-8);
    CU_ASSERT_DOUBLE_EQUAL(alpha, 0.181201, 1e-6); /* lambda = 0.02 */
    rtc_est_free(a);
    rtc_est_free(b);
}

/* Gains of a filter for one sample: feed twins the same history, then 0 and delta. */
static void twin_gains(const char *method, const char *params, int n_hist, double T, double gain[3])
{
    const double delta = 1e-3;
    rtc_est *a = mk(method, params), *b = mk(method, params);
    int k;
    for (k = 0; k < n_hist; k++) {
        push(a, MS(10) * k, 0.0);
        push(b, MS(10) * k, 0.0);
    }
    push(a, MS(10) * k, 0.0);
    push(b, MS(10) * k, delta);
    int64_t t = MS(10) * k;
    gain[0] = (q(b, t).value - q(a, t).value) / delta;
    gain[1] = (q(b, t).rate - q(a, t).rate) / delta;
    /* The acceleration gain shows as the rate difference growing over T. */
    gain[2] = ((q(b, t + MS(10)).rate - q(a, t + MS(10)).rate) / delta - gain[1]) / T;
    rtc_est_free(a);
    rtc_est_free(b);
}

static void kalman_cv_first_update_gains_from_two_point_init(void)
{
    /* Two samples T apart initialise the state by the line through them with covariance
     * r [1, 1/T; 1/T, 2/T^2]. With q = 0 the predicted variance of the value at the third
     * sample is r (1 + 2 + 2) = 5 r and the covariance value/rate 3 r / T, so the gains
     * are 5/6 and (3 / T) / 6 = 0.5 / T. */
    double g[3];
    twin_gains("kalman-cv", "q=0 r=1e-4 gate=0", 2, 0.01, g);
    CU_ASSERT_DOUBLE_EQUAL(g[0], 5.0 / 6.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(g[1], 0.5 / 0.01, 1e-7);
}

static void kalman_ca_steady_state_gains_match_riccati(void)
{
    /* kalman-ca: white jerk of variance q held over each interval, Q = q g g' with
     * g = [T^3/6, T^2/2, T]. The reference is the Riccati recursion written out here
     * independently (P+ = F P F' + Q, K = P+ H' / (H P+ H' + r), P = (I - K H) P+),
     * iterated to its fixed point; the filter's gains must match it. */
    const double T = 0.01, qv = 1e4, r = 1e-4;
    double F[3][3] = {{1, T, T * T / 2}, {0, 1, T}, {0, 0, 1}};
    double g[3] = {T * T * T / 6, T * T / 2, T}, P[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    double K[3] = {0};
    for (int it = 0; it < 20000; it++) {
        double FP[3][3] = {{0}}, Pp[3][3] = {{0}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int m = 0; m < 3; m++)
                    FP[i][j] += F[i][m] * P[m][j];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                Pp[i][j] = qv * g[i] * g[j];
                for (int m = 0; m < 3; m++)
                    Pp[i][j] += FP[i][m] * F[j][m];
            }
        for (int i = 0; i < 3; i++)
            K[i] = Pp[i][0] / (Pp[0][0] + r);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                P[i][j] = Pp[i][j] - K[i] * Pp[0][j];
    }
    double gain[3];
    twin_gains("kalman-ca", "q=1e4 r=1e-4 gate=0", 20000, T, gain);
    CU_ASSERT_DOUBLE_EQUAL(gain[0], K[0], 1e-8 * fabs(K[0]) + 1e-10);
    CU_ASSERT_DOUBLE_EQUAL(gain[1], K[1], 1e-7 * fabs(K[1]));
    CU_ASSERT_DOUBLE_EQUAL(gain[2], K[2], 1e-5 * fabs(K[2]));
}

static void kalman_cv_converges_after_kink_position_and_velocity(void)
{
    /* Hold 1.0 for 1 s, then ramp with slope 2 (a kink the filter must learn). Samples
     * every 10 ms, noiseless; gate off. With q = 10, r = 1e-6 the steady-state gains are
     * close to 1 (the filter trusts the data), so the transient dies within a few dozen
     * updates; after 2 s of ramp the error is at round-off level. Bounds: 1e-9 on the
     * value, 1e-7 on the rate (rate = value difference / 10 ms amplifies round-off 100x). */
    rtc_est *e = mk("kalman-cv", "q=10 r=1e-6 gate=0");
    double ev = 0, er = 0;
    for (int k = 0; k <= 300; k++) {
        double t = 0.01 * k;
        push(e, MS(10) * k, t < 1.0 ? 1.0 : 1.0 + 2.0 * (t - 1.0));
    }
    rtc_est_out o = q(e, MS(3000));
    ev = fabs(o.value - 5.0);
    er = fabs(o.rate - 2.0);
    CU_ASSERT(ev < 1e-9);
    CU_ASSERT(er < 1e-7);
    /* And it was wrong right after the kink (the test can fail). */
    rtc_est *f = mk("kalman-cv", "q=10 r=1e-6 gate=0");
    for (int k = 0; k <= 101; k++) {
        double t = 0.01 * k;
        push(f, MS(10) * k, t < 1.0 ? 1.0 : 1.0 + 2.0 * (t - 1.0));
    }
    CU_ASSERT(fabs(q(f, MS(1010)).rate - 2.0) > 0.1);
    rtc_est_free(e);
    rtc_est_free(f);
}

static void kalman_ca_converges_constant_acceleration(void)
{
    /* Rest at 0 until 1 s, then constant acceleration 3: u = 1.5 (t-1)^2, u' = 3 (t-1),
     * u'' = 3 (continuous value and rate, a jump in acceleration). After 3 s of motion the
     * CA filter holds value, rate and acceleration to round-off (bounds scale 1/dt per
     * derivative order from 1e-9). */
    rtc_est *e = mk("kalman-ca", "q=100 r=1e-6 gate=0");
    for (int k = 0; k <= 400; k++) {
        double t = 0.01 * k, u = t < 1.0 ? 0.0 : 1.5 * (t - 1.0) * (t - 1.0);
        push(e, MS(10) * k, u);
    }
    rtc_est_out o = q(e, MS(4000));
    CU_ASSERT_DOUBLE_EQUAL(o.value, 13.5, 1e-8);
    CU_ASSERT_DOUBLE_EQUAL(o.rate, 9.0, 1e-6);
    /* Acceleration: rate change over 10 ms, checked through a short prediction. */
    rtc_est_out p = q(e, MS(4010));
    CU_ASSERT_DOUBLE_EQUAL((p.rate - o.rate) / 0.01, 3.0, 1e-4);
    CU_ASSERT_DOUBLE_EQUAL(p.value, 1.5 * 3.01 * 3.01, 1e-8);
    rtc_est_free(e);
}

static void kalman_outlier_rejected_counted_estimate_unchanged(void)
{
    rtc_est *e = mk("kalman-cv", "q=1 r=1e-4 gate=4 gate_reset=3");
    for (int k = 0; k < 100; k++)
        CU_ASSERT_EQUAL(push(e, MS(10) * k, 0.3 * secs(MS(10) * k)), RTC_EST_ACCEPTED);
    rtc_est_out a1 = q(e, MS(1000)), a2 = q(e, MS(1234));
    rtc_est_stats s0, s1;
    rtc_est_get_stats(e, &s0);
    CU_ASSERT_EQUAL(push(e, MS(1000), 0.3 + 10.0), RTC_EST_REJECTED_OUTLIER);
    rtc_est_out b1 = q(e, MS(1000)), b2 = q(e, MS(1234));
    CU_ASSERT(out_same(a1, b1));
    CU_ASSERT(out_same(a2, b2));
    rtc_est_get_stats(e, &s1);
    CU_ASSERT_EQUAL(s1.rejected_outlier, s0.rejected_outlier + 1);
    CU_ASSERT_EQUAL(s1.accepted, s0.accepted);
    CU_ASSERT_EQUAL(s1.newest_t_ns, s0.newest_t_ns);
    CU_ASSERT_EQUAL(s1.resets, 0);
    /* The next good sample is accepted and the run of rejections ends. */
    CU_ASSERT_EQUAL(push(e, MS(1010), 0.303), RTC_EST_ACCEPTED);
    CU_ASSERT_DOUBLE_EQUAL(q(e, MS(1020)).value, 0.306, 1e-9);
    CU_ASSERT_EQUAL(push(e, MS(1020), -50.0), RTC_EST_REJECTED_OUTLIER);
    CU_ASSERT_EQUAL(push(e, MS(1030), 0.309), RTC_EST_ACCEPTED);
    rtc_est_get_stats(e, &s1);
    CU_ASSERT_EQUAL(s1.rejected_outlier, 2);
    CU_ASSERT_EQUAL(s1.resets, 0);
    rtc_est_free(e);
}

static void kalman_genuine_step_reinitialised_after_n_rejections(void)
{
    /* Survey T-94: noisy constant 0 (sigma = 0.01), then a genuine step to 1.0 at 1 s.
     * gate = 4 sigma, gate_reset = 3: two rejections, the third post-step sample resets
     * the filter. Overshoot bound: step + 3 sigma (estimate stays <= 1.03), and during the
     * rejection run the estimate does not chase the step (stays within 3 sigma of 0). */
    const double sigma = 0.01;
    rtc_est *e = mk("kalman-cv", "q=1 r=1e-4 gate=4 gate_reset=3");
    rng_seed(94);
    int verdicts[8] = {0};
    double peak = -1e9, worst_before = 0.0, worst_after = 0.0;
    for (int k = 0; k < 300; k++) {
        int64_t t = MS(10) * k;
        double truth = k < 100 ? 0.0 : 1.0;
        int v = push(e, t, truth + sigma * rng_normal());
        if (k >= 100 && k < 108)
            verdicts[k - 100] = v;
        rtc_est_out o = q(e, t + MS(5));
        if (k >= 100)
            peak = fmax(peak, o.value);
        if (k >= 100 && k < 102)
            worst_before = fmax(worst_before, fabs(o.value));
        if (k >= 150)
            worst_after = fmax(worst_after, fabs(o.value - 1.0));
    }
    CU_ASSERT_EQUAL(verdicts[0], RTC_EST_REJECTED_OUTLIER);
    CU_ASSERT_EQUAL(verdicts[1], RTC_EST_REJECTED_OUTLIER);
    CU_ASSERT_EQUAL(verdicts[2], RTC_EST_ACCEPTED_RESET);
    CU_ASSERT_EQUAL(verdicts[3], RTC_EST_ACCEPTED);
    rtc_est_stats st;
    rtc_est_get_stats(e, &st);
    CU_ASSERT_EQUAL(st.resets, 1);
    CU_ASSERT_EQUAL(st.rejected_outlier, 2);
    CU_ASSERT(peak <= 1.0 + 3.0 * sigma);
    CU_ASSERT(worst_before <= 3.0 * sigma);
    /* Settled on the new level: within 3 sigma of the filtered noise (below sigma). */
    CU_ASSERT(worst_after <= 3.0 * sigma);
    rtc_est_free(e);
}

static void kalman_ca_step_restart_keeps_derivatives(void)
{
    /* Noiseless ramp of slope 0.5, then a jump of +2 with the same slope: after 4 rejections
     * the CA filter restarts its level (value variance widened by the squared innovation,
     * 4 ... 16 orders above r) and keeps rate and acceleration, so it is on the new ramp at
     * once. Residual: the restart update leaves r / nu ~ 1e-8 in the value and nudges the
     * rate through the value/rate covariance; 1e-6 covers both with margin. */
    rtc_est *e = mk("kalman-ca", "q=1 r=1e-8 gate=5 gate_reset=4");
    int v = 0;
    for (int k = 0; k < 104; k++) {
        double ts = 0.01 * k;
        v = push(e, MS(10) * k, (k < 100 ? 0.0 : 2.0) + 0.5 * ts);
    }
    CU_ASSERT_EQUAL(v, RTC_EST_ACCEPTED_RESET);
    CU_ASSERT_DOUBLE_EQUAL(q(e, MS(1030)).value, 2.0 + 0.5 * 1.03, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(q(e, MS(1030)).rate, 0.5, 1e-4);
    CU_ASSERT_DOUBLE_EQUAL(q(e, MS(1100)).value, 2.0 + 0.5 * 1.1, 1e-5);
    rtc_est_stats st;
    rtc_est_get_stats(e, &st);
    CU_ASSERT_EQUAL(st.resets, 1);
    CU_ASSERT_EQUAL(st.rejected_outlier, 3);
    rtc_est_free(e);
}

static void kalman_step_run_with_outlier_restart_ignores_it(void)
{
    /* Constant 0, then a step to 1 whose run of rejections contains a spike of +10: the
     * restart follows the run's median (1.0) and leaves the spike out. With r = 1e-6 and
     * gate 5 the spike is 1e4 gate widths away; the restarted value is 1.0 to within the
     * restart's r / nu residue (~1e-6). Control: the same run without the exclusion would
     * land near 1 + 10 K, K ~ 0.5, i.e. several units away. */
    rtc_est *e = mk("kalman-cv", "q=1 r=1e-6 gate=5 gate_reset=3");
    for (int k = 0; k < 50; k++)
        push(e, MS(10) * k, 0.0);
    CU_ASSERT_EQUAL(push(e, MS(500), 11.0), RTC_EST_REJECTED_OUTLIER);
    CU_ASSERT_EQUAL(push(e, MS(510), 1.0), RTC_EST_REJECTED_OUTLIER);
    CU_ASSERT_EQUAL(push(e, MS(520), 1.0), RTC_EST_ACCEPTED_RESET);
    rtc_est_out o = q(e, MS(520));
    CU_ASSERT_DOUBLE_EQUAL(o.value, 1.0, 1e-5);
    CU_ASSERT_DOUBLE_EQUAL(o.rate, 0.0, 1e-3);
    rtc_est_free(e);
}

static void kalman_delayed_jittered_arrivals_updated_at_sample_time(void)
{
    /* Samples of a noiseless ramp arrive 20 ms +- 5 ms late, in order. The filter updates
     * at the sample times and predicts to the query time: exact at every query. */
    rtc_est *e = mk("kalman-ca", "q=1 r=1e-8");
    double worst = 0.0;
    for (int k = 0; k < 100; k++) {
        rtc_est_sample s = smp(MS(k), 4.0 - 1.5 * secs(MS(k)));
        s.arrival_ns = s.t_ns + MS(20) + US(1000 * ((k * 7) % 11) - 5000);
        rtc_est_push(e, &s);
        if (k > 3)
            worst = fmax(worst, fabs(q(e, s.arrival_ns).value - (4.0 - 1.5 * secs(s.arrival_ns))));
    }
    CU_ASSERT(worst < 1e-9);
    rtc_est_free(e);
}

/* ---- noise estimation ------------------------------------------------------------------- */

static void noise_estimate_recovers_r_on_sine(void)
{
    /* 1 Hz unit sine + N(0, 0.01^2) at 1 kHz, 20 s. The MAD-based estimate over 20000
     * residuals has a relative standard error of about 1.1 % on sigma; the curvature of
     * the sine adds (h^2 u''/2)^2 ~ 4e-10 against r = 1e-4. Required: within 20 % (the
     * brief); in practice within a few %. */
    enum { N = 20000 };
    static int64_t t[N];
    static double v[N];
    rng_seed(7);
    for (int k = 0; k < N; k++) {
        t[k] = MS(k);
        v[k] = sin(2 * M_PI * secs(t[k])) + 0.01 * rng_normal();
    }
    rtc_est_noise n;
    CU_ASSERT_EQUAL_FATAL(rtc_est_noise_estimate(t, v, N, &n), RTC_OK);
    CU_ASSERT_DOUBLE_EQUAL(n.r / 1e-4, 1.0, 0.2);
    CU_ASSERT_DOUBLE_EQUAL(n.h_s, 1e-3, 1e-12);
    CU_ASSERT_EQUAL(n.used, N - 2);
    /* q_smooth estimates E[u''^2] = (2 pi)^4 / 2 = 779.3; the trimming correction
     * assumes a normal and overestimates a sine's by 8 %: within 25 %. */
    CU_ASSERT_DOUBLE_EQUAL(n.q_smooth / (pow(2 * M_PI, 4) / 2), 1.0, 0.25);
    /* q_smooth_ca estimates the mean square jerk (2 pi)^6 / 2; at its wider stride the
     * difference operator keeps only (sin x / x)^6 = 0.85 of a 1 Hz sine (x = pi s h):
     * within 25 %. */
    CU_ASSERT_DOUBLE_EQUAL(n.q_smooth_ca / (pow(2 * M_PI, 6) / 2), 1.0, 0.25);
}

static void noise_estimate_robust_to_jitter_and_outliers(void)
{
    /* Same with sample times jittered +-30 % and 0.2 % outliers of 10x amplitude. */
    enum { N = 20000 };
    static int64_t t[N];
    static double v[N];
    rng_seed(11);
    for (int k = 0; k < N; k++) {
        t[k] = MS(k) + (int64_t)(600000.0 * (rng_uniform() - 0.5));
        v[k] = sin(2 * M_PI * secs(t[k])) + 0.02 * rng_normal();
        if (rng_uniform() < 0.002)
            v[k] += 10.0;
    }
    rtc_est_noise n;
    CU_ASSERT_EQUAL_FATAL(rtc_est_noise_estimate(t, v, N, &n), RTC_OK);
    CU_ASSERT_DOUBLE_EQUAL(n.r / 4e-4, 1.0, 0.2);
    /* The outliers are flagged and left out of the differences: q as without them (one
     * spike of 10 in the third differences would add 900 / n to E[D3^2], i.e. 1e17 to q). */
    CU_ASSERT_DOUBLE_EQUAL(n.q_smooth / (pow(2 * M_PI, 4) / 2), 1.0, 0.25);
    CU_ASSERT_DOUBLE_EQUAL(n.q_smooth_ca / (pow(2 * M_PI, 6) / 2), 1.0, 0.25);
}

static void noise_estimate_outliers_and_steps_classified(void)
{
    /* (a) A slow sine (0.25 Hz, E[u''^2] = (pi/2)^4 / 2 = 3.04) with sigma 0.02 needs a
     * stride of hundreds of samples to see its curvature; 0.5 % outliers then lie inside
     * almost every window's span. Recognised as outliers, they only exclude the windows
     * that touch them, and q_smooth comes out within 30 % (trimming and stride effects are
     * below 15 % here). (b) A 0/1 square wave (a step every 500 samples) with sigma 0.01:
     * recognised as steps, every window across one is left out and the flat parts give
     * q_smooth ~ 0; counted as signal they would give E[D^2] / (s h)^4 in the 1e4s. */
    enum { N = 20000 };
    static int64_t t[N];
    static double v[N];
    rtc_est_noise n;
    rng_seed(21);
    for (int k = 0; k < N; k++) {
        t[k] = MS(k);
        v[k] = sin(0.5 * M_PI * secs(t[k])) + 0.02 * rng_normal();
        if (rng_uniform() < 0.005)
            v[k] += rng_uniform() < 0.5 ? 10.0 : -10.0;
    }
    CU_ASSERT_EQUAL_FATAL(rtc_est_noise_estimate(t, v, N, &n), RTC_OK);
    CU_ASSERT_DOUBLE_EQUAL(n.q_smooth / (pow(M_PI / 2, 4) / 2), 1.0, 0.3);
    for (int k = 0; k < N; k++)
        v[k] = ((k / 500) % 2 ? 1.0 : 0.0) + 0.01 * rng_normal();
    CU_ASSERT_EQUAL_FATAL(rtc_est_noise_estimate(t, v, N, &n), RTC_OK);
    CU_ASSERT(n.q_smooth < 1.0);
    CU_ASSERT_DOUBLE_EQUAL(n.r / 1e-4, 1.0, 0.2);
}

static void noise_estimate_recovers_q_of_cv_process(void)
{
    /* A trace of the kalman-cv model itself: white acceleration of variance q = 1e4 held
     * over each 1 ms interval, measured with r = 1e-6. At the chosen stride (16 or more)
     * about n / (2 s) = 3000 independent second differences: standard error ~3 % on q.
     * Required within 15 %. */
    enum { N = 100000 };
    static int64_t t[N];
    static double v[N];
    const double h = 1e-3, qa = 1e4;
    double x = 0.0, vel = 0.0;
    rng_seed(3);
    for (int k = 0; k < N; k++) {
        t[k] = MS(k);
        v[k] = x + 1e-3 * rng_normal();
        double a = sqrt(qa) * rng_normal();
        x += vel * h + 0.5 * a * h * h;
        vel += a * h;
    }
    rtc_est_noise n;
    CU_ASSERT_EQUAL_FATAL(rtc_est_noise_estimate(t, v, N, &n), RTC_OK);
    CU_ASSERT_DOUBLE_EQUAL(n.r / 1e-6, 1.0, 0.2);
    CU_ASSERT_DOUBLE_EQUAL(n.q_process / qa, 1.0, 0.15);
    CU_ASSERT(n.stride >= 16);
}

static void noise_estimate_rejects_bad_input(void)
{
    int64_t t[20];
    double v[20];
    for (int k = 0; k < 20; k++) {
        t[k] = MS(k);
        v[k] = k;
    }
    rtc_est_noise n = {.r = 42.0};
    CU_ASSERT_EQUAL(rtc_est_noise_estimate(t, v, 15, &n), RTC_EINVAL);
    t[7] = t[6];
    CU_ASSERT_EQUAL(rtc_est_noise_estimate(t, v, 20, &n), RTC_EINVAL);
    t[7] = MS(7);
    v[3] = NAN;
    CU_ASSERT_EQUAL(rtc_est_noise_estimate(t, v, 20, &n), RTC_EINVAL);
    CU_ASSERT_DOUBLE_EQUAL(n.r, 42.0, 0.0); /* untouched */
    v[3] = 3.0;
    CU_ASSERT_EQUAL(rtc_est_noise_estimate(t, v, 20, &n), RTC_OK);
    CU_ASSERT_DOUBLE_EQUAL(n.r, 0.0, 1e-20); /* a noiseless line has no residual */
}

/* ---- registration ----------------------------------------------------------------------- */

void rtc_test_register_estimate_filters(void)
{
    static const rtc_test_case dr[] = {
        T(dr_receiver_uses_supplied_derivatives),
        T(dr_receiver_without_derivatives_matches_polynomial),
        T(dr_sender_zoh_model_ramp_analytic_count),
        T(dr_sender_linear_model_parabola_exact_derivative_count),
        T(dr_sender_linear_model_parabola_estimated_derivative_count),
        T(dr_sender_exactly_at_threshold_not_sent),
        T(dr_sender_heartbeat_forces_transmissions),
        T(dr_sender_relative_threshold_and_rejections),
        {NULL, NULL},
    };
    static const rtc_test_case kalman[] = {
        T(kalman_cv_noiseless_ramp_exact_from_init),
        T(kalman_cv_steady_state_gains_match_kalata),
        T(kalman_cv_first_update_gains_from_two_point_init),
        T(kalman_ca_steady_state_gains_match_riccati),
        T(kalman_cv_converges_after_kink_position_and_velocity),
        T(kalman_ca_converges_constant_acceleration),
        T(kalman_outlier_rejected_counted_estimate_unchanged),
        T(kalman_genuine_step_reinitialised_after_n_rejections),
        T(kalman_ca_step_restart_keeps_derivatives),
        T(kalman_step_run_with_outlier_restart_ignores_it),
        T(kalman_delayed_jittered_arrivals_updated_at_sample_time),
        {NULL, NULL},
    };
    static const rtc_test_case noise[] = {
        T(noise_estimate_recovers_r_on_sine),
        T(noise_estimate_robust_to_jitter_and_outliers),
        T(noise_estimate_outliers_and_steps_classified),
        T(noise_estimate_recovers_q_of_cv_process),
        T(noise_estimate_rejects_bad_input),
        {NULL, NULL},
    };
    rtc_test_add_suite("estimate_dr", NULL, NULL, dr);
    rtc_test_add_suite("estimate_kalman", NULL, NULL, kalman);
    rtc_test_add_suite("estimate_noise", NULL, NULL, noise);
}
