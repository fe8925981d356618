/*
 * Model Exchange units (issue 12 items 1, 2, 5, 6), driven through the rtcosim executable
 * as a user would, on the ME interfaces of the project's test FMUs (FMI 2 and FMI 3):
 *   - convergence orders measured by halving the step: Euler 1, Heun 2, RK4 4 on Dahlquist
 *     (analytic exp(-t)) and Van der Pol (reference: RK4 with 64 substeps);
 *   - BouncingBall: bounce times located inside the step against the analytic ones, and
 *     the trajectory equal to the FMU's exact Co-Simulation one (RK4 is exact for it);
 *   - Stair: time events exactly on whole seconds whatever the communication grid;
 *   - Stiff: explicit Euler diverges at a step where the linearly implicit method stays
 *     accurate, with the FMU's directional derivatives (FMI 3) and finite differences
 *     (FMI 2, whose modelDescription does not provide them);
 *   - step events (CompletedIntegratorStep), terminateSimulation, an FMU without states (Feedthrough), --interface me|cs, info,
 *     per-component interface/solver/substeps in a system, fast and real-time runs.
 * Tolerances are stated where they are asserted and follow from the method's error.
 */
#include "cu_main.h"
#include "fmu_util.h"
#include "json_util.h"
#include "rtcosim/status.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmp[512];
static char work[512];
static char out[65536];

static int setup(void)
{
    rtc_test_tmpdir(tmp, sizeof tmp);
    rtc_test_tmpdir(work, sizeof work);
    return 0;
}

static int teardown(void)
{
    rtc_test_rmtree(tmp);
    rtc_test_rmtree(work);
    return 0;
}

static int rtcosim(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int rtcosim(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = rtc_test_vrtcosim(work, tmp, out, sizeof out, fmt, ap);
    va_end(ap);
    return rc;
}

/* Column @p col in the last row of work/@p file (NAN when unreadable). */
static double last_value(const char *file, const char *col)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", work, file);
    return tcsv_last(path, col);
}

/* x(t_end) of an ME run with @p solver and @p n substeps per 0.1 s step. */
static double me_final(int v, const char *fmu, const char *solver, int n, const char *stop,
                       const char *col)
{
    int rc = rtcosim("run '%s' --interface me --solver %s --substeps %d --stop %s --step 0.1 "
                     "-o r.csv",
                     tfmu_path(v, fmu), solver, n, stop);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc != 0)
        fprintf(stderr, "%s\n", out);
    return last_value("r.csv", col);
}

/* Observed order log2(e(h) / e(h/2)) twice (h = 0.1, 0.05, 0.025) within 0.2 of p. */
static void check_order(const char *what, const double err[3], double p)
{
    for (int i = 0; i < 2; i++) {
        double q = log2(err[i] / err[i + 1]);
        if (fabs(q - p) > 0.2)
            fprintf(stderr, "%s: observed order %.3f, expected %.0f (errors %g %g)\n", what, q,
                    p, err[i], err[i + 1]);
        CU_ASSERT_DOUBLE_EQUAL(q, p, 0.2);
    }
}

static void dahlquist_orders_euler1_heun2_rk4_4(void)
{
    static const char *const solvers[] = {"euler", "heun", "rk4"};
    static const double orders[] = {1, 2, 4};
    for (int v = 2; v <= 3; v++)
        for (int s = 0; s < 3; s++) {
            double err[3];
            for (int i = 0; i < 3; i++)
                err[i] = fabs(me_final(v, "Dahlquist", solvers[s], 1 << i, "1", "x") - exp(-1.0));
            check_order(solvers[s], err, orders[s]);
        }
}

static void vanderpol_orders_against_fine_rk4(void)
{
    static const char *const solvers[] = {"euler", "heun", "rk4"};
    static const double orders[] = {1, 2, 4};
    double ref = me_final(3, "VanDerPol", "rk4", 64, "2", "x0"); /* error ~1e-13 */
    for (int s = 0; s < 3; s++) {
        double err[3];
        for (int i = 0; i < 3; i++)
            err[i] = fabs(me_final(3, "VanDerPol", solvers[s], 1 << i, "2", "x0") - ref);
        check_order(solvers[s], err, orders[s]);
    }
    /* the linearly implicit method is first order as well */
    double e1 = fabs(me_final(2, "VanDerPol", "implicit", 4, "2", "x0") - ref);
    double e2 = fabs(me_final(2, "VanDerPol", "implicit", 8, "2", "x0") - ref);
    CU_ASSERT_DOUBLE_EQUAL(log2(e1 / e2), 1.0, 0.2);
}

/* "impact K at t = T" lines the FMU logs (logEvents); returns how many were read. */
static int impacts(double t[], int cap)
{
    int n = 0;
    for (const char *p = strstr(out, "impact "); p && n < cap; p = strstr(p + 1, "impact ")) {
        int k;
        double tk;
        if (sscanf(p, "impact %d at t = %lf", &k, &tk) == 2 && k == n + 1)
            t[n++] = tk;
    }
    return n;
}

static void bouncingball_bounces_located_to_1e9(void)
{
    const double g = 9.81, e = 0.7, h0 = 1.0;
    for (int v = 2; v <= 3; v++) {
        CU_ASSERT_EQUAL(rtcosim("run '%s' --interface me --solver rk4 --fmu-logging -v -o b.csv",
                                tfmu_path(v, "BouncingBall")),
                        0);
        double t[8];
        CU_ASSERT_EQUAL_FATAL(impacts(t, 8), 8);
        /* analytic: t1 = sqrt(2 h0 / g), then flights of 2 e^k v1 / g */
        double tk = sqrt(2.0 * h0 / g), vk = g * tk;
        for (int k = 0; k < 8; k++) {
            /* RK4 is exact on the parabola; the located time is within a few ulps, and the
             * analytic sum itself carries ~1e-15: 1e-9 leaves room for neither to matter */
            CU_ASSERT_DOUBLE_EQUAL(t[k], tk, 1e-9);
            vk *= e;
            tk += 2.0 * vk / g;
        }
        CU_ASSERT_DOUBLE_EQUAL(last_value("b.csv", "bounces"), 20.0, 0.0);
    }
}

static void bouncingball_me_equals_exact_cs(void)
{
    for (int v = 2; v <= 3; v++) {
        const char *bb = tfmu_path(v, "BouncingBall");
        CU_ASSERT_EQUAL(rtcosim("run '%s' --interface cs -o cs.csv", bb), 0);
        CU_ASSERT_EQUAL(rtcosim("run '%s' --interface me --solver rk4 -o me.csv", bb), 0);
        char p1[700], p2[700];
        snprintf(p1, sizeof p1, "%s/cs.csv", work);
        snprintf(p2, sizeof p2, "%s/me.csv", work);
        tcsv a, b;
        CU_ASSERT_FATAL(tcsv_read(p1, &a) && tcsv_read(p2, &b));
        CU_ASSERT_EQUAL_FATAL(a.n_rows, b.n_rows);
        long h = tcsv_col(&a, "h"), hv = tcsv_col(&b, "h");
        double worst = 0.0;
        for (size_t r = 0; r < a.n_rows; r++)
            worst = fmax(worst, fabs(tcsv_at(&a, r, (size_t)h) - tcsv_at(&b, r, (size_t)hv)));
        /* the CS step is exact; RK4 plus located events reproduce it to rounding */
        CU_ASSERT(worst < 1e-9);
        tcsv_free(&a);
        tcsv_free(&b);
    }
}

static void stair_time_events_exactly_on_seconds(void)
{
    for (int v = 2; v <= 3; v++) {
        /* a 0.3 s grid never lands on a whole second after t = 0 except at 3, 6, 9 */
        CU_ASSERT_EQUAL(rtcosim("run '%s' --step 0.3 --fmu-logging -v -o s.csv",
                                tfmu_path(v, "Stair")),
                        0);
        for (int k = 1; k <= 9; k++) {
            char want[64];
            snprintf(want, sizeof want, "counter = %d at t = %d\n", k + 1, k);
            CU_ASSERT_PTR_NOT_NULL(strstr(out, want)); /* the time the FMU was set to: exact */
        }
        char path[700];
        snprintf(path, sizeof path, "%s/s.csv", work);
        tcsv c;
        CU_ASSERT_FATAL(tcsv_read(path, &c));
        for (size_t r = 0; r < c.n_rows; r++) {
            double t = tcsv_at(&c, r, 0);
            CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&c, r, 1), 1.0 + floor(t + 1e-9), 0.0);
        }
        tcsv_free(&c);
    }
}

static void stiff_euler_diverges_implicit_stays_accurate(void)
{
    const double lambda = 1000.0, t = 1.0;
    double x2 = exp(-t) + (exp(-t) - exp(-lambda * t)) / (lambda - 1.0);
    for (int v = 2; v <= 3; v++) {
        const char *fmu = tfmu_path(v, "Stiff");
        /* h = 0.01: |1 - h lambda| = 9, explicit Euler is unstable */
        CU_ASSERT_EQUAL(rtcosim("run '%s' --solver euler --step 0.01 -o e.csv", fmu), 0);
        CU_ASSERT(!(fabs(last_value("e.csv", "x2")) < 1e6));
        CU_ASSERT_EQUAL(rtcosim("run '%s' --solver implicit --step 0.01 -o i.csv", fmu), 0);
        /* backward Euler's global error on the slow mode ~ h/2 * t * e^-t = 1.8e-3 */
        CU_ASSERT_DOUBLE_EQUAL(last_value("i.csv", "x2"), x2, 5e-3);
        CU_ASSERT_DOUBLE_EQUAL(last_value("i.csv", "x1"), 0.0, 1e-12);
    }
}

static void implicit_directional_and_differences_agree(void)
{
    /* VanDerPol FMI 3 provides directional derivatives; Stiff FMI 2 does not (differences) */
    double dd = me_final(3, "Stiff", "implicit", 1, "1", "x2");
    double fd = me_final(2, "Stiff", "implicit", 1, "1", "x2");
    CU_ASSERT_DOUBLE_EQUAL(dd, fd, 1e-6); /* forward differences: ~sqrt(eps) relative */
    double a = me_final(3, "VanDerPol", "implicit", 10, "2", "x0");
    double b = me_final(2, "VanDerPol", "implicit", 10, "2", "x0");
    CU_ASSERT_DOUBLE_EQUAL(a, b, 1e-12); /* both versions provide them: same numbers */
}

static void write_system(const char *name, int v, const char *attrs);

/* me_events.<key> of the summary.json at work/@p rel (-1 when absent). */
static long long me_event(const char *rel, const char *unit, const char *key)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", work, rel);
    json_t *doc = json_load_file(path, 0, NULL), *o = doc;
    if (o && unit) { /* a system: the entry of "units" with that name */
        json_t *units = json_object_get(doc, "units"), *u;
        size_t i;
        o = NULL;
        json_array_foreach(units, i, u)
            if (!strcmp(json_string_value(json_object_get(u, "name")), unit))
                o = u;
    }
    json_t *v = json_object_get(json_object_get(o, "me_events"), key);
    long long n = json_is_integer(v) ? json_integer_value(v) : json_is_boolean(v) ? json_is_true(v)
                                                                                 : -1;
    json_decref(doc);
    return n;
}

static void summary_counts_events_per_unit(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s' --interface me -o bb.csv", tfmu_path(2, "BouncingBall")), 0);
    CU_ASSERT_EQUAL(me_event("summary.json", NULL, "state"), 20);
    CU_ASSERT_EQUAL(me_event("summary.json", NULL, "time"), 0);
    CU_ASSERT_EQUAL(me_event("summary.json", NULL, "solver_steps"), 300 + 20);
    CU_ASSERT_EQUAL(rtcosim("run '%s' --set step_events=5 -o st.csv", tfmu_path(3, "Stair")), 0);
    CU_ASSERT_EQUAL(me_event("summary.json", NULL, "time"), 10);
    CU_ASSERT_EQUAL(me_event("summary.json", NULL, "step"), 10); /* 50 steps of 0.2 s */
    CU_ASSERT_EQUAL(me_event("summary.json", NULL, "terminated"), 0);
    CU_ASSERT_EQUAL(rtcosim("run '%s' --set counter_max=4 -o st.csv", tfmu_path(2, "Stair")), 0);
    CU_ASSERT_EQUAL(me_event("summary.json", NULL, "terminated"), 1);
    CU_ASSERT_EQUAL(me_event("summary.json", NULL, "time"), 3);
    CU_ASSERT_EQUAL(rtcosim("run '%s' --interface cs -o cs.csv", tfmu_path(2, "BouncingBall")), 0);
    CU_ASSERT_EQUAL(me_event("summary.json", NULL, "state"), -1); /* CS: no such object */
    write_system("sys.ssd", 3, "interface=\"me\" substeps=\"2\"");
    CU_ASSERT_EQUAL(rtcosim("run sys.ssd --output-dir sys"), 0);
    CU_ASSERT_EQUAL(me_event("sys/summary.json", "ball", "state"), 1); /* t = 0.45 s of 1 s */
}

static void stair_terminate_simulation_ends_run(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s' --set counter_max=3 -o t.csv", tfmu_path(3, "Stair")), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "terminate"));
    CU_ASSERT_DOUBLE_EQUAL(last_value("t.csv", "time"), 2.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(last_value("t.csv", "counter"), 3.0, 0.0);
}

static void stair_step_events_from_completed_integrator_step(void)
{
    for (int v = 2; v <= 3; v++) {
        /* FMI 2 omits completedIntegratorStepNotNeeded (so it is needed), FMI 3 says
         * needsCompletedIntegratorStep="true": every 2nd of 10 steps asks for Event Mode */
        CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 1 --step 0.1 --set step_events=2 -o p.csv",
                                tfmu_path(v, "Stair")),
                        0);
        CU_ASSERT_DOUBLE_EQUAL(last_value("p.csv", "step_count"), 5.0, 0.0);
        CU_ASSERT_DOUBLE_EQUAL(last_value("p.csv", "counter"), 2.0, 0.0);
    }
}

static void endless_event_iteration_is_bounded(void)
{
    for (int v = 2; v <= 3; v++) {
        CU_ASSERT_EQUAL(rtcosim("run '%s' --set endless=true -o e.csv", tfmu_path(v, "Stair")),
                        1);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "event iteration at t = 1 did not converge in 32"));
        CU_ASSERT_DOUBLE_EQUAL(last_value("e.csv", "time"), 0.8, 1e-12); /* rows kept */
        CU_ASSERT_EQUAL(me_event("summary.json", NULL, "iterations"), 1 + 32);
    }
}

/* A faulty FMU's error names what it did, not what it led to: a nextEventTime in the past
 * (was "more than 8 events in the solver step; use a smaller step"), a NaN in the FMU's
 * directional derivatives (was "the matrix I - h J is singular"), a NaN event indicator
 * (was ignored: no crossing, the ball fell through the floor). Rows before it are kept. */
static void faulty_fmu_errors_name_the_cause(void)
{
    for (int v = 2; v <= 3; v++) {
        CU_ASSERT_EQUAL(rtcosim("run '%s' --set past_event=true -o pe.csv",
                                tfmu_path(v, "Stair")), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "Stair: nextEventTime 0.5 s is before the current "
                                           "time t = 1 s: a time event in the past"));
        CU_ASSERT_PTR_NULL(strstr(out, "smaller step"));
        CU_ASSERT_DOUBLE_EQUAL(last_value("pe.csv", "time"), 0.8, 1e-12);
        CU_ASSERT_EQUAL(rtcosim("run '%s' --interface me --set z_fault=true -o z.csv",
                                tfmu_path(v, "BouncingBall")), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, v == 3 ? "BouncingBall: event indicator 1 (z) is nan "
                                                    "at t = 0.5: no state event can be detected"
                                                  : "BouncingBall: event indicator 1 is nan at t "
                                                    "= 0.5: no state event can be detected"));
        CU_ASSERT_DOUBLE_EQUAL(last_value("z.csv", "time"), 0.49, 1e-12);
    }
    CU_ASSERT_EQUAL(rtcosim("run '%s' --interface me --solver implicit --set jac_fault=true "
                            "--stop 0.1 --step 0.01 -o j.csv", tfmu_path(3, "Stiff")), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Stiff: linearly implicit step at t = 0: the Jacobian is "
                                       "not finite: d der(x2) / d x1 = nan (the FMU's "
                                       "directional derivative)"));
    CU_ASSERT_PTR_NULL(strstr(out, "singular"));
}

static void feedthrough_without_states_runs_as_me(void)
{
    const char *fmu = tfmu_path(3, "Feedthrough");
    CU_ASSERT_EQUAL(rtcosim("run '%s' --interface me --stop 0.1 --set Float64_continuous_input=2.5 "
                            "-o m.csv", fmu), 0);
    CU_ASSERT_DOUBLE_EQUAL(last_value("m.csv", "Float64_continuous_output"), 2.5, 0.0);
}

static void set_f64(rtc_unit *u, uint32_t vr, double v, int want)
{
    CU_ASSERT_EQUAL(u->ops->set(u->self, RTC_TYPE_FLOAT64, &vr, 1, &v, 1), want);
}

static double get_f64(rtc_unit *u, uint32_t vr)
{
    double v = NAN;
    CU_ASSERT_EQUAL(u->ops->get(u->self, RTC_TYPE_FLOAT64, &vr, 1, &v, 1), RTC_OK);
    return v;
}

/* Discrete inputs change only in Event Mode (the test FMU refuses them in Continuous-Time
 * Mode, as the standard says): the unit sets them inside an event and counts it. */
static void discrete_input_set_while_running_is_an_input_event(void)
{
    tlog log;
    tlog_init(&log);
    rtc_fmu *fmu;
    CU_ASSERT_EQUAL_FATAL(rtc_fmu_open(tfmu_path(3, "Feedthrough"), NULL, &log.lg, &fmu), RTC_OK);
    rtc_fmu_unit_opts o = {.iface = RTC_FMU_IFACE_ME, .solver = RTC_ME_HEUN};
    rtc_unit *u;
    CU_ASSERT_EQUAL_FATAL(rtc_fmu_unit_new_opts(fmu, "ft", &o, &log.lg, &u), RTC_OK);
    rtc_unit_setup s = {.instance_name = "ft", .stop_time_defined = true, .stop_time_s = 1};
    CU_ASSERT_EQUAL_FATAL(u->ops->instantiate(u->self, &s), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(u->ops->enter_init(u->self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(u->ops->exit_init(u->self), RTC_OK);
    rtc_step_result r;
    CU_ASSERT_EQUAL(u->ops->do_step(u->self, 0.0, 0.1, &r), RTC_OK);
    set_f64(u, 9, 3.5, RTC_OK); /* Float64_discrete_input */
    CU_ASSERT_EQUAL(get_f64(u, 10), 3.5);
    set_f64(u, 7, 1.25, RTC_OK); /* Float64_continuous_input: no event */
    CU_ASSERT_EQUAL(u->ops->do_step(u->self, 0.1, 0.1, &r), RTC_OK);
    CU_ASSERT_EQUAL(get_f64(u, 8), 1.25);
    rtc_me_events ev;
    CU_ASSERT_FATAL(rtc_fmu_unit_events(u, &ev));
    CU_ASSERT_EQUAL(ev.input_events, 1);
    CU_ASSERT_EQUAL(ev.substeps, 2);
    CU_ASSERT_FALSE(tlog_has(&log, "can be set only in Event Mode"));
    u->ops->terminate(u->self);
    u->ops->free(u->self);
    rtc_fmu_close(fmu);
}

static void interface_option_chooses_and_refuses(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s' --no-output", tfmu_path(2, "Dahlquist")), 0); /* auto */
    CU_ASSERT_EQUAL(rtcosim("run '%s' --interface cs --no-output", tfmu_path(3, "Dahlquist")), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "no CoSimulation interface"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --interface me --no-output", tfmu_path(2, "Decay")), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "no ModelExchange interface"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --interface both", tfmu_path(2, "Decay")), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--interface both: expected auto, cs or me"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --solver rk5", tfmu_path(2, "Decay")), 2);
    CU_ASSERT_EQUAL(rtcosim("run '%s' --substeps 0", tfmu_path(2, "Decay")), 2);
}

static void info_shows_both_interfaces_and_events(void)
{
    CU_ASSERT_EQUAL(rtcosim("info '%s'", tfmu_path(2, "BouncingBall")), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "ModelExchange (BouncingBall)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "CoSimulation (BouncingBall)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "ModelExchange capabilities"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "2 continuous states, 1 event indicators"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "fmi2NewDiscreteStates"));
    CU_ASSERT_EQUAL(rtcosim("info '%s'", tfmu_path(3, "VanDerPol")), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "providesDirectionalDerivatives"));
}

/* A system of one BouncingBall component with the given rtc:Component attributes. */
static void write_system(const char *name, int v, const char *attrs)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", work, name);
    tfmu_write_system(path, tfmu_path(v, "BouncingBall"), "h", attrs, "1");
}

static void system_component_runs_me_fast_and_realtime(void)
{
    write_system("me.ssd", 3, "interface=\"me\" solver=\"rk4\" substeps=\"2\"");
    CU_ASSERT_EQUAL(rtcosim("run me.ssd --output-dir fast"), 0);
    double fast = last_value("fast/results.csv", "ball.h");
    write_system("cs.ssd", 3, "interface=\"cs\"");
    CU_ASSERT_EQUAL(rtcosim("run cs.ssd --output-dir cs"), 0);
    CU_ASSERT_DOUBLE_EQUAL(fast, last_value("cs/results.csv", "ball.h"), 1e-9);
    /* and the settings are honoured: Euler's O(h) error shows against the exact CS run */
    write_system("eu.ssd", 3, "interface=\"me\" solver=\"euler\"");
    CU_ASSERT_EQUAL(rtcosim("run eu.ssd --output-dir eu"), 0);
    CU_ASSERT(fabs(last_value("eu/results.csv", "ball.h") - fast) > 1e-3);
    /* paced at 20x real time: the same numbers (results do not depend on the mode) */
    CU_ASSERT_EQUAL(rtcosim("run me.ssd --realtime 20 --output-dir rt"), 0);
    CU_ASSERT_DOUBLE_EQUAL(last_value("rt/results.csv", "ball.h"), fast, 0.0);
    write_system("bad.ssd", 2, "solver=\"rk7\"");
    CU_ASSERT_NOT_EQUAL(rtcosim("run bad.ssd --output-dir bad"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Component ball: solver \"rk7\""));
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"dahlquist_orders_euler1_heun2_rk4_4", dahlquist_orders_euler1_heun2_rk4_4},
        {"vanderpol_orders_against_fine_rk4", vanderpol_orders_against_fine_rk4},
        {"bouncingball_bounces_located_to_1e9", bouncingball_bounces_located_to_1e9},
        {"bouncingball_me_equals_exact_cs", bouncingball_me_equals_exact_cs},
        {"stair_time_events_exactly_on_seconds", stair_time_events_exactly_on_seconds},
        {"stiff_euler_diverges_implicit_stays_accurate",
         stiff_euler_diverges_implicit_stays_accurate},
        {"implicit_directional_and_differences_agree", implicit_directional_and_differences_agree},
        {"stair_terminate_simulation_ends_run", stair_terminate_simulation_ends_run},
        {"summary_counts_events_per_unit", summary_counts_events_per_unit},
        {"stair_step_events_from_completed_integrator_step",
         stair_step_events_from_completed_integrator_step},
        {"endless_event_iteration_is_bounded", endless_event_iteration_is_bounded},
        {"faulty_fmu_errors_name_the_cause", faulty_fmu_errors_name_the_cause},
        {"feedthrough_without_states_runs_as_me", feedthrough_without_states_runs_as_me},
        {"discrete_input_set_while_running_is_an_input_event",
         discrete_input_set_while_running_is_an_input_event},
        {"interface_option_chooses_and_refuses", interface_option_chooses_and_refuses},
        {"info_shows_both_interfaces_and_events", info_shows_both_interfaces_and_events},
        {"system_component_runs_me_fast_and_realtime", system_component_runs_me_fast_and_realtime},
        {NULL, NULL}};
    rtc_test_add_suite("me", setup, teardown, cases);
}
