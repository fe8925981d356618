/*
 * Unit tests of rt-core's coupling-signal estimators (rtcosim/estimate.h), part 1:
 * configuration parsing, the polynomial methods, extrapolated-interpolation, staleness and
 * the coupling-error monitor. Part 2 (dead reckoning, Kalman filters, noise estimation) is
 * test_estimate_filters.c in the same executable. Analytic cases only; no timing
 * assertions. Tolerances: see test_estimate_util.h.
 */
#include "test_estimate_util.h"

/* ---- configuration ---------------------------------------------------------------------- */

static void config_init_defaults_as_documented(void)
{
    rtc_est_config c;
    CU_ASSERT_EQUAL(rtc_est_config_init(&c, RTC_EST_KALMAN_CV), RTC_OK);
    CU_ASSERT_EQUAL(c.method, RTC_EST_KALMAN_CV);
    CU_ASSERT_EQUAL(c.fresh_ns, 0);
    CU_ASSERT_EQUAL(c.stale_ns, 0);
    CU_ASSERT_EQUAL(c.stale_policy, RTC_EST_STALE_HOLD);
    CU_ASSERT_EQUAL(c.gate_reset, 3);
    CU_ASSERT_EQUAL(c.order, 2);
    CU_ASSERT_DOUBLE_EQUAL(c.gate, 5.0, 0.0);
    CU_ASSERT_EQUAL(rtc_est_config_validate(&c, NULL, 0), RTC_OK);
    CU_ASSERT_EQUAL(rtc_est_config_init(&c, RTC_EST_METHOD_COUNT), RTC_EINVAL);
    CU_ASSERT_EQUAL(c.method, RTC_EST_KALMAN_CV); /* untouched on error */
}

static void config_parse_all_keys_fields_set(void)
{
    rtc_est_config c;
    char err[200] = "";
    int rc = rtc_est_config_parse(&c, "Kalman-CA",
                                  "q=3e4; r=2.5e-5, stale=50ms gate = 4\tgate_reset=5 "
                                  "policy=fault;fallback=-1.5 fresh=2ms order=1 interval=500us",
                                  err, sizeof err);
    CU_ASSERT_EQUAL_FATAL(rc, RTC_OK);
    CU_ASSERT_EQUAL(c.method, RTC_EST_KALMAN_CA);
    CU_ASSERT_DOUBLE_EQUAL(c.q, 3e4, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(c.r, 2.5e-5, 0.0);
    CU_ASSERT_EQUAL(c.stale_ns, MS(50));
    CU_ASSERT_DOUBLE_EQUAL(c.gate, 4.0, 0.0);
    CU_ASSERT_EQUAL(c.gate_reset, 5);
    CU_ASSERT_EQUAL(c.stale_policy, RTC_EST_STALE_FAULT);
    CU_ASSERT_DOUBLE_EQUAL(c.fallback, -1.5, 0.0);
    CU_ASSERT_EQUAL(c.fresh_ns, MS(2));
    CU_ASSERT_EQUAL(c.order, 1);
    CU_ASSERT_EQUAL(c.interval_ns, US(500));
}

static void config_set_durations_units_converted(void)
{
    rtc_est_config c;
    rtc_est_config_init(&c, RTC_EST_ZOH);
    CU_ASSERT_EQUAL(rtc_est_config_set(&c, "stale", "0.02", NULL, 0), RTC_OK);
    CU_ASSERT_EQUAL(c.stale_ns, MS(20)); /* bare number: seconds */
    CU_ASSERT_EQUAL(rtc_est_config_set(&c, " stale ", " 250us ", NULL, 0), RTC_OK);
    CU_ASSERT_EQUAL(c.stale_ns, US(250));
    CU_ASSERT_EQUAL(rtc_est_config_set(&c, "stale", "1500ns", NULL, 0), RTC_OK);
    CU_ASSERT_EQUAL(c.stale_ns, 1500);
    CU_ASSERT_EQUAL(rtc_est_config_set(&c, "stale", "2s", NULL, 0), RTC_OK);
    CU_ASSERT_EQUAL(c.stale_ns, MS(2000));
}

static void config_parse_unknown_method_rejected_unchanged(void)
{
    rtc_est_config c, before;
    char err[200] = "";
    rtc_est_config_init(&c, RTC_EST_LINEAR);
    before = c;
    CU_ASSERT_EQUAL(rtc_est_config_parse(&c, "spline", "", err, sizeof err), RTC_ENOTFOUND);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown estimator method 'spline'"));
    CU_ASSERT(cfg_same(&c, &before));
}

static void config_parse_bad_items_rejected_unchanged(void)
{
    static const struct {
        const char *method, *params;
        int rc;
        const char *msg;
    } cases[] = {
        {"zoh", "x=1", RTC_ENOTFOUND, "unknown estimator parameter 'x'"},
        {"kalman-cv", "q=abc", RTC_EPARSE, "'q': malformed value 'abc'"},
        {"kalman-cv", "stale=20min", RTC_EPARSE, "'stale': malformed value '20min'"},
        {"kalman-cv", "q 5", RTC_EPARSE, "want key=value"},
        {"kalman-cv", "r=0", RTC_EINVAL, "r must be finite and > 0"},
        {"kalman-ca", "gate_reset=0", RTC_EINVAL, "gate_reset must be 1 to RTC_EST_GATE_MAX"},
        {"kalman-cv", "gate_reset=17", RTC_EINVAL, "gate_reset must be 1 to RTC_EST_GATE_MAX"},
        {"zoh", "fresh=10ms stale=10ms", RTC_EINVAL, "stale must be greater than fresh"},
        {"dr", "order=3", RTC_EINVAL, "order must be 0, 1 or 2"},
        {"zoh", "policy=panic", RTC_EPARSE, "malformed value 'panic'"},
        {"zoh", "gate_reset=-1", RTC_EPARSE, "malformed value '-1'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rtc_est_config c, before;
        char err[200] = "";
        rtc_est_config_init(&c, RTC_EST_EI);
        before = c;
        int rc = rtc_est_config_parse(&c, cases[i].method, cases[i].params, err, sizeof err);
        CU_ASSERT_EQUAL(rc, cases[i].rc);
        if (!strstr(err, cases[i].msg))
            printf("\n  case %zu: message '%s' lacks '%s'\n", i, err, cases[i].msg);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].msg));
        CU_ASSERT(cfg_same(&c, &before));
    }
}

static void config_set_invalid_value_rejected_unchanged(void)
{
    rtc_est_config c, before;
    char err[200] = "";
    rtc_est_config_init(&c, RTC_EST_KALMAN_CV);
    before = c;
    CU_ASSERT_EQUAL(rtc_est_config_set(&c, "q", "-1", err, sizeof err), RTC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "q must be finite and >= 0"));
    CU_ASSERT(cfg_same(&c, &before));
    CU_ASSERT_EQUAL(rtc_est_config_set(&c, "nope", "1", err, sizeof err), RTC_ENOTFOUND);
    CU_ASSERT(cfg_same(&c, &before));
}

static void method_names_round_trip_and_aliases(void)
{
    for (int m = 0; m < RTC_EST_METHOD_COUNT; m++) {
        rtc_est_method back;
        CU_ASSERT_EQUAL(rtc_est_method_from_name(rtc_est_method_name(m), &back), RTC_OK);
        CU_ASSERT_EQUAL(back, m);
    }
    rtc_est_method m = RTC_EST_KALMAN_CA;
    CU_ASSERT_EQUAL(rtc_est_method_from_name("HOLD", &m), RTC_OK);
    CU_ASSERT_EQUAL(m, RTC_EST_ZOH);
    CU_ASSERT_EQUAL(rtc_est_method_from_name("dr", &m), RTC_OK);
    CU_ASSERT_EQUAL(m, RTC_EST_DEAD_RECKONING);
    CU_ASSERT_EQUAL(rtc_est_method_from_name("cubic", &m), RTC_ENOTFOUND);
    CU_ASSERT_EQUAL(m, RTC_EST_DEAD_RECKONING);
    CU_ASSERT_STRING_EQUAL(rtc_est_method_name(RTC_EST_METHOD_COUNT), "?");
    CU_ASSERT_STRING_EQUAL(rtc_est_quality_name(RTC_EST_STALE), "stale");
}

static void est_new_invalid_config_fails_with_message(void)
{
    rtc_est_config c;
    rtc_est_config_init(&c, RTC_EST_KALMAN_CV);
    c.r = -1.0;
    rtc_est *e = (rtc_est *)&c; /* must be overwritten with NULL */
    char err[200] = "";
    CU_ASSERT_EQUAL(rtc_est_new(&c, &e, err, sizeof err), RTC_EINVAL);
    CU_ASSERT_PTR_NULL(e);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "estimator kalman-cv: r must be finite and > 0"));
    CU_ASSERT_EQUAL(rtc_est_push(NULL, NULL), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_est_query(NULL, 0, NULL), RTC_EINVAL);
    rtc_est_free(NULL);
}

/* ---- polynomial methods ------------------------------------------------------------------ */

static void query_before_any_sample_nodata_fallback(void)
{
    rtc_est *e = mk("linear", "fallback=4.25");
    rtc_est_out o = q(e, MS(5));
    CU_ASSERT_EQUAL(o.quality, RTC_EST_NODATA);
    CU_ASSERT_DOUBLE_EQUAL(o.value, 4.25, 0.0);
    CU_ASSERT_EQUAL(o.age_ns, INT64_MAX);
    rtc_est_free(e);
}

static void zoh_constant_reproduced_exactly(void)
{
    rtc_est *e = mk("zoh", NULL);
    for (int k = 0; k < 5; k++)
        CU_ASSERT_EQUAL(push(e, jittered(k), 7.5), RTC_EST_ACCEPTED);
    for (int j = 0; j < 20; j++) {
        rtc_est_out o = q(e, jittered(4) + MS(3) * j);
        CU_ASSERT_DOUBLE_EQUAL(o.value, 7.5, 0.0);
        CU_ASSERT_DOUBLE_EQUAL(o.rate, 0.0, 0.0);
    }
    rtc_est_free(e);
}

static void linear_ramp_irregular_times_exact(void)
{
    rtc_est *e = mk("linear", NULL);
    for (int k = 0; k < 6; k++) {
        push(e, jittered(k), 3.0 - 2.5 * secs(jittered(k)));
        for (int j = 0; j <= 10; j++) {
            int64_t t = jittered(k) + MS(4) * j;
            rtc_est_out o = q(e, t);
            if (k == 0)
                continue; /* one sample: a constant */
            CU_ASSERT_DOUBLE_EQUAL(o.value, 3.0 - 2.5 * secs(t), EXACT);
            CU_ASSERT_DOUBLE_EQUAL(o.rate, -2.5, 1e-9); /* slope: difference / 10 ms */
        }
    }
    rtc_est_free(e);
}

static void quadratic_parabola_irregular_times_exact(void)
{
    rtc_est *e = mk("quadratic", NULL);
    for (int k = 0; k < 7; k++)
        push(e, jittered(k), parabola(jittered(k)));
    for (int j = -5; j <= 30; j++) {
        int64_t t = jittered(6) + MS(2) * j;
        rtc_est_out o = q(e, t);
        CU_ASSERT_DOUBLE_EQUAL(o.value, parabola(t), EXACT);
        CU_ASSERT_DOUBLE_EQUAL(o.rate, 4.0 - 12.0 * secs(t), 1e-9);
    }
    rtc_est_free(e);
}

static void linear_lower_degree_misses_parabola(void)
{
    /* Control for the case above: the test can fail, linear is off by h1*h2*c. */
    rtc_est *e = mk("linear", NULL);
    push(e, MS(0), parabola(MS(0)));
    push(e, MS(10), parabola(MS(10)));
    rtc_est_out o = q(e, MS(20));
    /* Linear extrapolation error of c t^2 at 2h from {0, h}: c * 2h * h = -6 * 2e-4. */
    CU_ASSERT_DOUBLE_EQUAL(o.value - parabola(MS(20)), 6.0 * 2e-4, EXACT);
    rtc_est_free(e);
}

/* T-91: ramp u = 2t sampled every 1 ms, delivered 20 ms late; at each arrival instant the
 * delay-compensated estimate is the current truth, ZOH lags by slope * delay. */
static void ramp_delay_20ms_linear_and_kalman_exact_zoh_lags(void)
{
    rtc_est *lin = mk("linear", NULL);
    rtc_est *kf = mk("kalman-cv", "q=1 r=1e-8");
    rtc_est *zoh = mk("zoh", NULL);
    double worst_lin = 0, worst_kf = 0;
    for (int k = 0; k < 200; k++) {
        rtc_est_sample s = smp(MS(k), 2.0 * secs(MS(k)));
        s.arrival_ns = MS(k) + MS(20);
        CU_ASSERT_EQUAL(rtc_est_push(lin, &s), RTC_EST_ACCEPTED);
        CU_ASSERT_EQUAL(rtc_est_push(kf, &s), RTC_EST_ACCEPTED);
        rtc_est_push(zoh, &s);
        int64_t now = s.arrival_ns;
        double truth = 2.0 * secs(now);
        if (k >= 2) {
            worst_lin = fmax(worst_lin, fabs(q(lin, now).value - truth));
            worst_kf = fmax(worst_kf, fabs(q(kf, now).value - truth));
        }
        CU_ASSERT_DOUBLE_EQUAL(truth - q(zoh, now).value, 2.0 * 0.020, EXACT);
        CU_ASSERT_EQUAL(q(lin, now).age_ns, MS(20));
    }
    CU_ASSERT(worst_lin < 1e-9);
    CU_ASSERT(worst_kf < 1e-9);
    rtc_est_stats st;
    rtc_est_get_stats(kf, &st);
    CU_ASSERT_EQUAL(st.delay_max_ns, MS(20));
    CU_ASSERT_DOUBLE_EQUAL(st.delay_mean_ns, 2e7, 1e-3);
    rtc_est_free(lin);
    rtc_est_free(kf);
    rtc_est_free(zoh);
}

static void quality_fresh_at_sample_time_then_extrapolated(void)
{
    rtc_est *e = mk("linear", "fresh=2ms");
    push(e, MS(0), 0.0);
    push(e, MS(10), 1.0);
    CU_ASSERT_EQUAL(q(e, MS(10)).quality, RTC_EST_FRESH);
    CU_ASSERT_EQUAL(q(e, MS(5)).quality, RTC_EST_FRESH); /* sample newer than the query */
    CU_ASSERT_EQUAL(q(e, MS(5)).age_ns, -MS(5));
    CU_ASSERT_EQUAL(q(e, MS(12)).quality, RTC_EST_FRESH);
    CU_ASSERT_EQUAL(q(e, MS(12) + 1).quality, RTC_EST_EXTRAPOLATED);
    CU_ASSERT_EQUAL(q(e, MS(12) + 1).age_ns, MS(2) + 1);
    rtc_est_free(e);
}

static void out_of_order_and_duplicate_dropped_counted_unchanged(void)
{
    static const char *const methods[] = {"zoh", "linear",    "quadratic", "ei",
                                          "dr",  "kalman-cv", "kalman-ca"};
    for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
        rtc_est *e = mk(methods[m], "gate=0"); /* the order check alone */
        for (int k = 0; k < 5; k++)
            CU_ASSERT_EQUAL(push(e, MS(10) * k, sin(0.3 * k)), RTC_EST_ACCEPTED);
        rtc_est_out a = q(e, MS(47)), b;
        rtc_est_stats st;
        CU_ASSERT_EQUAL(push(e, MS(35), 9.0), RTC_EST_DROPPED_OLD);
        CU_ASSERT_EQUAL(push(e, MS(40), 9.0), RTC_EST_DROPPED_DUPLICATE);
        b = q(e, MS(47));
        CU_ASSERT(out_same(a, b));
        rtc_est_get_stats(e, &st);
        CU_ASSERT_EQUAL(st.offered, 7);
        CU_ASSERT_EQUAL(st.accepted, 5);
        CU_ASSERT_EQUAL(st.dropped_old, 1);
        CU_ASSERT_EQUAL(st.dropped_duplicate, 1);
        CU_ASSERT_EQUAL(st.newest_t_ns, MS(40));
        rtc_est_free(e);
    }
}

static void nonfinite_sample_rejected_counted_unchanged(void)
{
    rtc_est *e = mk("kalman-ca", NULL);
    for (int k = 0; k < 5; k++)
        push(e, MS(10) * k, 0.5 * k);
    rtc_est_out a = q(e, MS(55)), b;
    CU_ASSERT_EQUAL(push(e, MS(50), NAN), RTC_EST_REJECTED_INVALID);
    rtc_est_sample s = smp(MS(50), 1.0);
    s.n_deriv = 1;
    s.deriv[0] = INFINITY;
    CU_ASSERT_EQUAL(rtc_est_push(e, &s), RTC_EST_REJECTED_INVALID);
    s.n_deriv = 3;
    CU_ASSERT_EQUAL(rtc_est_push(e, &s), RTC_EINVAL);
    b = q(e, MS(55));
    CU_ASSERT(out_same(a, b));
    rtc_est_stats st;
    rtc_est_get_stats(e, &st);
    CU_ASSERT_EQUAL(st.rejected_invalid, 2);
    CU_ASSERT_EQUAL(st.offered, 7); /* the EINVAL call is not an offer */
    /* The invalid sample did not block its time slot. */
    CU_ASSERT_EQUAL(push(e, MS(50), 2.5), RTC_EST_ACCEPTED);
    rtc_est_free(e);
}

static void reset_forgets_samples_keeps_counters(void)
{
    rtc_est *e = mk("linear", NULL);
    push(e, MS(10), 1.0);
    push(e, MS(20), 2.0);
    CU_ASSERT_EQUAL(rtc_est_reset(e), RTC_OK);
    CU_ASSERT_EQUAL(q(e, MS(20)).quality, RTC_EST_NODATA);
    CU_ASSERT_EQUAL(push(e, MS(5), 3.0), RTC_EST_ACCEPTED); /* the clock may restart */
    rtc_est_stats st;
    rtc_est_get_stats(e, &st);
    CU_ASSERT_EQUAL(st.accepted, 3);
    CU_ASSERT_EQUAL(st.newest_t_ns, MS(5));
    rtc_est_free(e);
}

/* ---- extrapolated-interpolation --------------------------------------------------------- */

static void ei_no_jump_at_sample_arrival(void)
{
    rtc_est *e = mk("ei", NULL);
    double max_jump = 0.0;
    for (int k = 0; k < 50; k++) {
        int64_t t = jittered(k);
        rtc_est_out before = q(e, t);
        push(e, t, sin(2.0 * M_PI * secs(t)));
        rtc_est_out after = q(e, t);
        if (k > 0)
            max_jump = fmax(max_jump, fabs(after.value - before.value));
    }
    /* The new segment starts at the old segment's value at the arrival: exactly equal. */
    CU_ASSERT_DOUBLE_EQUAL(max_jump, 0.0, 0.0);
    /* Control: ZOH on the same samples jumps by the sample difference (~2 pi * 10 ms). */
    rtc_est_free(e);
}

static void ei_ramp_lag_exactly_one_interval(void)
{
    rtc_est *e = mk("ei", NULL);
    const int64_t H = MS(10);
    for (int k = 0; k < 20; k++) {
        push(e, H * k, 0.5 + 3.0 * secs(H * k));
        if (k < 2)
            continue; /* the first segment starts from a single sample */
        for (int j = 0; j <= 10; j++) {
            int64_t t = H * k + MS(1) * j;
            rtc_est_out o = q(e, t);
            CU_ASSERT_DOUBLE_EQUAL(o.value, 0.5 + 3.0 * secs(t - H), EXACT);
            CU_ASSERT_DOUBLE_EQUAL(o.rate, 3.0, 1e-9);
        }
        /* Survey T-22: window start = previous sample, window end = newest sample. */
        CU_ASSERT_DOUBLE_EQUAL(q(e, H * k).value, 0.5 + 3.0 * secs(H * (k - 1)), EXACT);
        CU_ASSERT_DOUBLE_EQUAL(q(e, H * (k + 1)).value, 0.5 + 3.0 * secs(H * k), EXACT);
    }
    rtc_est_free(e);
}

static void ei_late_sample_holds_after_window(void)
{
    /* When the next sample is late, EI reaches the newest sample one interval after its
     * arrival and then holds it (no open-ended line through a possibly noisy segment). */
    rtc_est *e = mk("ei", NULL);
    push(e, MS(0), 0.0);
    push(e, MS(10), 1.0);
    push(e, MS(20), 3.0);
    /* Segment from 1.0 at 20 ms (the previous segment's value there) to 3.0 at 30 ms. */
    CU_ASSERT_DOUBLE_EQUAL(q(e, MS(25)).value, 2.0, EXACT);
    CU_ASSERT_DOUBLE_EQUAL(q(e, MS(30)).value, 3.0, EXACT);
    CU_ASSERT_DOUBLE_EQUAL(q(e, MS(30)).rate, 200.0, 1e-9);
    rtc_est_out o = q(e, MS(30) + 1);
    CU_ASSERT_DOUBLE_EQUAL(o.value, 3.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(o.rate, 0.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(q(e, MS(95)).value, 3.0, 0.0);
    /* The next sample starts from the held value: no jump. */
    push(e, MS(100), 4.0);
    CU_ASSERT_DOUBLE_EQUAL(q(e, MS(100)).value, 3.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(q(e, MS(140)).value, 3.5, EXACT); /* interval now 80 ms */
    rtc_est_free(e);
}

static void ei_ramp_with_delay_lags_interval_plus_delay(void)
{
    rtc_est *e = mk("ei", "interval=10ms");
    for (int k = 0; k < 20; k++) {
        rtc_est_sample s = smp(MS(10) * k, 3.0 * secs(MS(10) * k));
        s.arrival_ns = s.t_ns + MS(7);
        rtc_est_push(e, &s);
        if (k >= 2) {
            int64_t t = s.arrival_ns + MS(4);
            CU_ASSERT_DOUBLE_EQUAL(q(e, t).value, 3.0 * secs(t - MS(17)), EXACT);
        }
    }
    rtc_est_free(e);
}

/* ---- staleness -------------------------------------------------------------------------- */

/* Linear estimator on u = 2 t with samples at 0 and 10 ms, staleness limit 50 ms. */
static rtc_est *stale_fixture(const char *policy)
{
    char params[80];
    snprintf(params, sizeof params, "stale=50ms policy=%s fallback=-7", policy);
    rtc_est *e = mk("linear", params);
    push(e, MS(0), 0.0);
    push(e, MS(10), 0.02);
    return e;
}

static void stale_hold_applied_exactly_at_limit(void)
{
    rtc_est *e = stale_fixture("hold");
    rtc_est_out o = q(e, MS(60) - 1);
    CU_ASSERT_EQUAL(o.quality, RTC_EST_EXTRAPOLATED);
    CU_ASSERT_DOUBLE_EQUAL(o.value, 2.0 * secs(MS(60) - 1), EXACT);
    CU_ASSERT_EQUAL(o.age_ns, MS(50) - 1);
    o = q(e, MS(60));
    CU_ASSERT_EQUAL(o.quality, RTC_EST_STALE);
    CU_ASSERT_DOUBLE_EQUAL(o.value, 0.12, EXACT); /* frozen at the limit: continuous */
    CU_ASSERT_DOUBLE_EQUAL(o.rate, 0.0, 0.0);
    CU_ASSERT_EQUAL(o.age_ns, MS(50));
    o = q(e, MS(500));
    CU_ASSERT_EQUAL(o.quality, RTC_EST_STALE);
    CU_ASSERT_DOUBLE_EQUAL(o.value, 0.12, EXACT);
    /* A new sample makes it fresh again. */
    push(e, MS(600), 1.2);
    CU_ASSERT_EQUAL(q(e, MS(600)).quality, RTC_EST_FRESH);
    rtc_est_free(e);
}

static void stale_fallback_applied_exactly_at_limit(void)
{
    rtc_est *e = stale_fixture("fallback");
    CU_ASSERT_EQUAL(q(e, MS(60) - 1).quality, RTC_EST_EXTRAPOLATED);
    rtc_est_out o = q(e, MS(60));
    CU_ASSERT_EQUAL(o.quality, RTC_EST_STALE);
    CU_ASSERT_DOUBLE_EQUAL(o.value, -7.0, 0.0);
    rtc_est_free(e);
}

static void stale_fault_applied_exactly_at_limit(void)
{
    rtc_est *e = stale_fixture("fault");
    rtc_est_out o = q(e, MS(60) - 1);
    CU_ASSERT_EQUAL(o.quality, RTC_EST_EXTRAPOLATED);
    CU_ASSERT_DOUBLE_EQUAL(o.value, 2.0 * secs(MS(60) - 1), EXACT);
    CU_ASSERT_EQUAL(rtc_est_query(e, MS(60), &o), RTC_EST_FAULT);
    CU_ASSERT_EQUAL(o.quality, RTC_EST_FAULT);
    CU_ASSERT_DOUBLE_EQUAL(o.value, -7.0, 0.0);
    CU_ASSERT_EQUAL(rtc_est_query(e, MS(61), NULL), RTC_EST_FAULT);
    rtc_est_free(e);
}

/* ---- coupling-error monitor ------------------------------------------------------------- */

static void errmon_known_pairs_rms_max_count(void)
{
    rtc_est_errmon m;
    rtc_est_errmon_init(&m);
    CU_ASSERT_DOUBLE_EQUAL(rtc_est_errmon_rms(&m), 0.0, 0.0);
    rtc_est_errmon_push(&m, 1.0, 0.0);
    rtc_est_errmon_push(&m, 0.0, 2.0);
    rtc_est_errmon_push(&m, 3.0, 3.0);
    rtc_est_errmon_push(&m, NAN, 3.0);
    rtc_est_errmon_push(&m, 1.0, INFINITY);
    CU_ASSERT_EQUAL(m.count, 3);
    CU_ASSERT_EQUAL(m.invalid, 2);
    CU_ASSERT_DOUBLE_EQUAL(m.max_abs, 2.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(m.last, 0.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(rtc_est_errmon_rms(&m), sqrt(5.0 / 3.0), 1e-15);
    rtc_est_errmon_push(NULL, 1.0, 2.0); /* ignored, no crash */
    CU_ASSERT_DOUBLE_EQUAL(rtc_est_errmon_rms(NULL), 0.0, 0.0);
}

static void push_monitored_linear_on_parabola_milne_error(void)
{
    /* u = t^2 at t_k = k h: the linear prediction of u(t_{k+1}) from t_k, t_{k-1} is
     * 2 u_k - u_{k-1} = u_{k+1} - 2 h^2, so every Milne pair has error -2 h^2 once two
     * samples exist; the second sample is predicted by a constant (error -h^2); the first
     * has no prediction and is not counted. Dropped samples never count. */
    const double h = 0.01;
    const int N = 50;
    rtc_est *e = mk("linear", NULL);
    rtc_est_errmon m;
    rtc_est_errmon_init(&m);
    for (int k = 0; k < N; k++) {
        rtc_est_sample s = smp(MS(10) * k, (h * k) * (h * k));
        CU_ASSERT_EQUAL(rtc_est_push_monitored(e, &s, &m), RTC_EST_ACCEPTED);
    }
    rtc_est_sample old = smp(MS(10), 5.0);
    CU_ASSERT_EQUAL(rtc_est_push_monitored(e, &old, &m), RTC_EST_DROPPED_OLD);
    CU_ASSERT_EQUAL(m.count, (uint64_t)N - 1);
    CU_ASSERT_DOUBLE_EQUAL(m.max_abs, 2 * h * h, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(m.last, -2 * h * h, 1e-15);
    double rms = sqrt((pow(h, 4) + (N - 2) * 4 * pow(h, 4)) / (N - 1));
    CU_ASSERT_DOUBLE_EQUAL(rtc_est_errmon_rms(&m), rms, 1e-15);
    CU_ASSERT_EQUAL(rtc_est_push_monitored(e, &old, NULL), RTC_EINVAL);
    rtc_est_free(e);
}

/* ---- registration ----------------------------------------------------------------------- */

void rtc_test_register(void)
{
    static const rtc_test_case config[] = {
        T(config_init_defaults_as_documented),
        T(config_parse_all_keys_fields_set),
        T(config_set_durations_units_converted),
        T(config_parse_unknown_method_rejected_unchanged),
        T(config_parse_bad_items_rejected_unchanged),
        T(config_set_invalid_value_rejected_unchanged),
        T(method_names_round_trip_and_aliases),
        T(est_new_invalid_config_fails_with_message),
        {NULL, NULL},
    };
    static const rtc_test_case poly[] = {
        T(query_before_any_sample_nodata_fallback),
        T(zoh_constant_reproduced_exactly),
        T(linear_ramp_irregular_times_exact),
        T(quadratic_parabola_irregular_times_exact),
        T(linear_lower_degree_misses_parabola),
        T(ramp_delay_20ms_linear_and_kalman_exact_zoh_lags),
        T(quality_fresh_at_sample_time_then_extrapolated),
        T(out_of_order_and_duplicate_dropped_counted_unchanged),
        T(nonfinite_sample_rejected_counted_unchanged),
        T(reset_forgets_samples_keeps_counters),
        {NULL, NULL},
    };
    static const rtc_test_case ei[] = {
        T(ei_no_jump_at_sample_arrival),
        T(ei_ramp_lag_exactly_one_interval),
        T(ei_late_sample_holds_after_window),
        T(ei_ramp_with_delay_lags_interval_plus_delay),
        {NULL, NULL},
    };
    static const rtc_test_case stale[] = {
        T(stale_hold_applied_exactly_at_limit),
        T(stale_fallback_applied_exactly_at_limit),
        T(stale_fault_applied_exactly_at_limit),
        T(errmon_known_pairs_rms_max_count),
        T(push_monitored_linear_on_parabola_milne_error),
        {NULL, NULL},
    };
    rtc_test_add_suite("estimate_config", NULL, NULL, config);
    rtc_test_add_suite("estimate_poly", NULL, NULL, poly);
    rtc_test_add_suite("estimate_ei", NULL, NULL, ei);
    rtc_test_add_suite("estimate_stale_monitor", NULL, NULL, stale);
    rtc_test_register_estimate_filters();
    rtc_test_register_estimate_auto();
}
