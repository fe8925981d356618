/*
 * test_fmus — smoke test of the project's own test FMUs (tests/fmus/), independent of the
 * engine's fmu-host: it dlopens the built shared objects from the unpacked staging folders
 *   RTC_TEST_FMU_DIR/stage/fmi2/<Name>/binaries/linux64/<Name>.so
 *   RTC_TEST_FMU_DIR/stage/fmi3/<Name>/binaries/x86_64-linux/<Name>.so
 * and drives them through the raw FMI 2 / FMI 3 functions. It checks the numbers the
 * engine's tests rely on (analytic solutions, start values, fault timing) and the
 * rejections (drifting communication point, wrong GUID, call sequence), each with the
 * logged message and with the state unchanged afterwards. The FMI 2 cases are here, the
 * FMI 3 cases in test_fmus_fmi3.c, the bindings and shared helpers in fmi_raw_util.c.
 */
#include "cu_main.h"
#include "fmi_raw_util.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ======================= FMI 2 ======================= */

static void fmi2_decay_matches_exp_over_100_steps(void)
{
    fmu2 f;
    fmi2ValueReference k_vr = 1;
    fmi2Real k = 0.5;
    CU_ASSERT_FATAL(load2("Decay", &f));
    fmi2Component c = start2(&f, TOK_DECAY, NULL, 0, 0, &k_vr, &k, 1);
    double worst = 0.0;
    CU_ASSERT_EQUAL(get2(&f, c, 3), 1.0);
    for (int i = 0; i < 100; i++) {
        /* t_i = i * h as the engine computes it; the FMU's own time is a running sum. */
        CU_ASSERT_EQUAL_FATAL(f.do_step(c, i * 0.01, 0.01, fmi2True), fmi2OK);
        double x = get2(&f, c, 3);
        worst = fmax(worst, rel_err(x, exp(-k * (i + 1) * 0.01)));
        CU_ASSERT_DOUBLE_EQUAL(get2(&f, c, 4), -k * x, 1e-15);
    }
    CU_ASSERT(worst <= 1e-12);
    f.free_instance(c);
}

static void fmi2_doStep_drifting_point_rejected_state_kept(void)
{
    fmu2 f;
    CU_ASSERT_FATAL(load2("Decay", &f));
    fmi2Component c = start2(&f, TOK_DECAY, NULL, 0, 0, NULL, NULL, 0);
    for (int i = 0; i < 50; i++)
        CU_ASSERT_EQUAL_FATAL(f.do_step(c, i * 0.01, 0.01, fmi2True), fmi2OK);
    double before = get2(&f, c, 3);
    log_reset();
    CU_ASSERT_EQUAL(f.do_step(c, 0.5 + 1e-6, 0.01, fmi2True), fmi2Error);
    CU_ASSERT(log_has("communication point drift"));
    CU_ASSERT_EQUAL(get2(&f, c, 3), before);
    log_reset();
    CU_ASSERT_EQUAL(f.do_step(c, 0.5, 0.0, fmi2True), fmi2Error);
    CU_ASSERT(log_has("must be finite and > 0"));
    CU_ASSERT_EQUAL(get2(&f, c, 3), before);
    /* Not in an error state: the right point still steps, and round-off drift is fine. */
    CU_ASSERT_EQUAL(f.do_step(c, 0.5, 0.01, fmi2True), fmi2OK);
    CU_ASSERT(rel_err(get2(&f, c, 3), exp(-0.51)) <= 1e-12);
    CU_ASSERT_EQUAL(f.do_step(c, 0.51 + 1e-13, 0.01, fmi2True), fmi2OK);
    f.free_instance(c);
}

static void fmi2_doStep_past_stop_time_rejected(void)
{
    fmu2 f;
    CU_ASSERT_FATAL(load2("Decay", &f));
    fmi2Component c = inst2(&f, TOK_DECAY, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(f.setup(c, fmi2False, 0.0, 0.0, fmi2True, 0.05), fmi2OK);
    CU_ASSERT_EQUAL(f.enter_init(c), fmi2OK);
    CU_ASSERT_EQUAL(f.exit_init(c), fmi2OK);
    CU_ASSERT_EQUAL(f.do_step(c, 0.0, 0.05, fmi2True), fmi2OK);
    log_reset();
    CU_ASSERT_EQUAL(f.do_step(c, 0.05, 0.01, fmi2True), fmi2Error);
    CU_ASSERT(log_has("goes past stopTime"));
    f.free_instance(c);
}

static void fmi2_instantiate_bad_arguments_return_null(void)
{
    static const fmi2CallbackFunctions no_logger = {NULL, calloc, free, NULL, NULL};
    fmu2 f;
    CU_ASSERT_FATAL(load2("Decay", &f));
    CU_ASSERT_PTR_NULL(inst2(&f, "{bad}", NULL));
    CU_ASSERT(log_has("GUID does not match the modelDescription: {bad}"));
    log_reset();
    CU_ASSERT_PTR_NULL(f.instantiate(" ", fmi2CoSimulation, TOK_DECAY, NULL, &cb2, 0, 0));
    CU_ASSERT(log_has("instanceName must be a non-empty string"));
    log_reset();
    CU_ASSERT_PTR_NULL(f.instantiate("x", fmi2ModelExchange, TOK_DECAY, NULL, &cb2, 0, 0));
    CU_ASSERT(log_has("only fmi2CoSimulation"));
    CU_ASSERT_PTR_NULL(f.instantiate("x", fmi2CoSimulation, TOK_DECAY, NULL, &no_logger, 0, 0));
    CU_ASSERT_PTR_NULL(f.instantiate("x", fmi2CoSimulation, TOK_DECAY, NULL, NULL, 0, 0));
}

static void fmi2_call_sequence_and_causality_enforced(void)
{
    fmu2 f;
    fmi2ValueReference k_vr = 1, x_vr = 3;
    fmi2Real v = 5.0, got = 0.0;
    CU_ASSERT_FATAL(load2("Decay", &f));
    fmi2Component c = inst2(&f, TOK_DECAY, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(f.do_step(c, 0.0, 0.01, fmi2True), fmi2Error);
    CU_ASSERT(log_has("fmi2DoStep: illegal call sequence (instance is in state Instantiated)"));
    CU_ASSERT_EQUAL(f.get_real(c, &x_vr, 1, &got), fmi2Error);
    CU_ASSERT_EQUAL(f.enter_init(c), fmi2Error);
    CU_ASSERT(log_has("fmi2SetupExperiment was not called"));
    CU_ASSERT_EQUAL(f.setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2OK);
    CU_ASSERT_EQUAL(f.enter_init(c), fmi2OK);
    CU_ASSERT_EQUAL(f.exit_init(c), fmi2OK);
    log_reset();
    CU_ASSERT_EQUAL(f.set_real(c, &x_vr, 1, &v), fmi2Error);
    CU_ASSERT(log_has("'x' (vr 3) is not an input or parameter"));
    CU_ASSERT_EQUAL(f.set_real(c, &k_vr, 1, &v), fmi2Error);
    CU_ASSERT(log_has("'k' (vr 1) cannot be set in state StepMode"));
    CU_ASSERT_EQUAL(get2(&f, c, 1), 1.0);
    CU_ASSERT_EQUAL(get2(&f, c, 3), 1.0);
    CU_ASSERT_EQUAL(f.terminate(c), fmi2OK);
    CU_ASSERT_EQUAL(f.do_step(c, 0.0, 0.01, fmi2True), fmi2Error);
    f.free_instance(c);
}

static void fmi2_mass1_free_response_matches_analytic(void)
{
    fmu2 f;
    double worst = 0.0, x, v;
    CU_ASSERT_FATAL(load2("Mass1", &f));
    fmi2Component c = start2(&f, TOK_MASS1, NULL, 0, 0, NULL, NULL, 0);
    for (int i = 0; i < 100; i++) {
        CU_ASSERT_EQUAL_FATAL(f.do_step(c, i * 0.1, 0.1, fmi2True), fmi2OK);
        msd_exact((i + 1) * 0.1, &x, &v);
        worst = fmax(worst, fmax(fabs(get2(&f, c, 7) - x), fabs(get2(&f, c, 8) - v)));
    }
    CU_ASSERT(worst <= 1e-10);
    msd_exact(1.0, &x, &v); /* survey 7.1 R1: x(1) = 0.659700, v(1) = -0.533507 */
    CU_ASSERT_DOUBLE_EQUAL(x, 0.659700, 5e-7);
    CU_ASSERT_DOUBLE_EQUAL(v, -0.533507, 5e-7);
    f.free_instance(c);
}

static void fmi2_massmono_state_at_10_matches_survey(void)
{
    static const double expect[4] = {-0.0309694, -0.0068292, -0.0440917, 0.0049942};
    fmu2 f;
    CU_ASSERT_FATAL(load2("MassMono", &f));
    fmi2Component c = start2(&f, TOK_MASSMONO, NULL, 0, 0, NULL, NULL, 0);
    for (int i = 0; i < 1000; i++)
        CU_ASSERT_EQUAL_FATAL(f.do_step(c, i * 0.01, 0.01, fmi2True), fmi2OK);
    for (int j = 0; j < 4; j++) /* the survey prints 7 decimals */
        CU_ASSERT_DOUBLE_EQUAL(get2(&f, c, (fmi2ValueReference)(13 + j)), expect[j], 1e-7);
    f.free_instance(c);
}

static void fmi2_bouncing_ball_impacts_exact_then_rests(void)
{
    fmu2 f;
    fmi2ValueReference bvr = 8;
    fmi2Integer bounces = -1;
    CU_ASSERT_FATAL(load2("BouncingBall", &f));
    fmi2Component c = start2(&f, TOK_BALL, NULL, 0, 0, NULL, NULL, 0);
    for (int i = 0; i < 50; i++)
        CU_ASSERT_EQUAL_FATAL(f.do_step(c, i * 0.01, 0.01, fmi2True), fmi2OK);
    /* First impact at sqrt(2 h0 / g), rebound speed e * sqrt(2 g h0). */
    double g = 9.81, ti = sqrt(2.0 / g), v1 = 0.7 * sqrt(2.0 * g), s = 0.5 - ti;
    CU_ASSERT_EQUAL(f.get_int(c, &bvr, 1, &bounces), fmi2OK);
    CU_ASSERT_EQUAL(bounces, 1);
    CU_ASSERT_DOUBLE_EQUAL(get2(&f, c, 5), v1 * s - 0.5 * g * s * s, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(get2(&f, c, 6), v1 - g * s, 1e-12);
    for (int i = 50; i < 300; i++)
        CU_ASSERT_EQUAL_FATAL(f.do_step(c, i * 0.01, 0.01, fmi2True), fmi2OK);
    /* Rest once 0.7^n < 1e-3, i.e. after impact 20 (near t = 2.556 s). */
    CU_ASSERT_EQUAL(f.get_int(c, &bvr, 1, &bounces), fmi2OK);
    CU_ASSERT_EQUAL(bounces, 20);
    CU_ASSERT_EQUAL(get2(&f, c, 5), 0.0);
    CU_ASSERT_EQUAL(get2(&f, c, 6), 0.0);
    CU_ASSERT_EQUAL(get2(&f, c, 7), 0.0);
    f.free_instance(c);
}

static void fmi2_pi_feedthrough_and_anti_windup(void)
{
    fmu2 f;
    fmi2ValueReference ry[2] = {5, 6}, umax = 4;
    fmi2Real in[2] = {1.0, 0.0}, lim = 1.05;
    CU_ASSERT_FATAL(load2("PI", &f));
    fmi2Component c = start2(&f, TOK_PI, NULL, 0, 0, NULL, NULL, 0);
    CU_ASSERT_EQUAL(f.set_real(c, ry, 2, in), fmi2OK);
    CU_ASSERT_EQUAL(get2(&f, c, 7), 1.0); /* u = kp e, before any step */
    CU_ASSERT_EQUAL(f.do_step(c, 0.0, 0.1, fmi2True), fmi2OK);
    CU_ASSERT_DOUBLE_EQUAL(get2(&f, c, 7), 1.1, 1e-15);     /* + ki * e * h */
    CU_ASSERT_EQUAL(f.set_real(c, &umax, 1, &lim), fmi2OK); /* tunable in StepMode */
    CU_ASSERT_EQUAL(get2(&f, c, 7), 1.05);
    CU_ASSERT_EQUAL(f.do_step(c, 0.1, 0.1, fmi2True), fmi2OK);
    CU_ASSERT_DOUBLE_EQUAL(get2(&f, c, 8), 0.1, 1e-15); /* frozen while saturated */
    in[1] = 2.0;                                        /* e = -1 */
    CU_ASSERT_EQUAL(f.set_real(c, ry, 2, in), fmi2OK);
    CU_ASSERT_DOUBLE_EQUAL(get2(&f, c, 7), -0.9, 1e-15);
    CU_ASSERT_EQUAL(f.do_step(c, 0.2, 0.1, fmi2True), fmi2OK);
    CU_ASSERT_DOUBLE_EQUAL(get2(&f, c, 7), -1.0, 1e-15);
    f.free_instance(c);
}

/* Passthrough FMI 2 value references: Real 1/2, Integer 13/14, Boolean 21/22,
 * String 23/24, Enumeration 27/28 (input/output). */
static void
pass2_check_outputs(const fmu2 *f, fmi2Component c, double r, int i, int e, int b, const char *s)
{
    fmi2ValueReference ivr[2] = {14, 28}, bvr = 22, svr = 24;
    fmi2Integer iv[2] = {0, 0};
    fmi2Boolean bv = -1;
    fmi2String sv = NULL;
    CU_ASSERT_EQUAL(get2(f, c, 2), r);
    CU_ASSERT_EQUAL(f->get_int(c, ivr, 2, iv), fmi2OK);
    CU_ASSERT_EQUAL(iv[0], i);
    CU_ASSERT_EQUAL(iv[1], e);
    CU_ASSERT_EQUAL(f->get_bool(c, &bvr, 1, &bv), fmi2OK);
    CU_ASSERT_EQUAL(bv, b);
    CU_ASSERT_EQUAL(f->get_str(c, &svr, 1, &sv), fmi2OK);
    CU_ASSERT_STRING_EQUAL(sv ? sv : "(null)", s);
}

static void fmi2_passthrough_round_trips_every_type(void)
{
    fmu2 f;
    fmi2ValueReference rvr = 1, ivr[2] = {13, 27}, bvr = 21, svr = 23;
    fmi2Real r = -7.25;
    fmi2Integer iv[2] = {77, 3};
    fmi2Boolean bv = fmi2False;
    fmi2String sv = "world";
    char longs[301];
    CU_ASSERT_FATAL(load2("Passthrough", &f));
    fmi2Component c = start2(&f, TOK_PASS, NULL, 0, 0, NULL, NULL, 0);
    pass2_check_outputs(&f, c, 1.5, -123456, 2, fmi2True, "hello");
    CU_ASSERT_EQUAL(f.set_real(c, &rvr, 1, &r), fmi2OK);
    CU_ASSERT_EQUAL(f.set_int(c, ivr, 2, iv), fmi2OK);
    CU_ASSERT_EQUAL(f.set_bool(c, &bvr, 1, &bv), fmi2OK);
    CU_ASSERT_EQUAL(f.set_str(c, &svr, 1, &sv), fmi2OK);
    pass2_check_outputs(&f, c, -7.25, 77, 3, fmi2False, "world"); /* feedthrough, no step */
    CU_ASSERT_EQUAL(f.do_step(c, 0.0, 0.1, fmi2True), fmi2OK);
    pass2_check_outputs(&f, c, -7.25, 77, 3, fmi2False, "world");
    memset(longs, 'a', 300);
    longs[300] = '\0';
    sv = longs;
    log_reset();
    CU_ASSERT_EQUAL(f.set_str(c, &svr, 1, &sv), fmi2Warning); /* truncated */
    CU_ASSERT_EQUAL(f.get_str(c, &svr, 1, &sv), fmi2OK);
    CU_ASSERT_EQUAL(strlen(sv), 255);
    CU_ASSERT_EQUAL(f.get_real(c, &ivr[0], 1, &r), fmi2Error);
    CU_ASSERT(log_has("is not of this function's type"));
    f.free_instance(c);
}

static void fmi2_fault_mode1_returns_error_at_t_fault(void)
{
    fmu2 f;
    CU_ASSERT_FATAL(load2("Fault", &f));
    fmi2Component c =
        start2(&f, TOK_FAULT, "file://" STAGE "/fmi2/Fault/resources", 1, 1, NULL, NULL, 0);
    for (int i = 0; i < 10; i++)
        CU_ASSERT_EQUAL_FATAL(f.do_step(c, i * 0.1, 0.1, fmi2True), fmi2OK);
    CU_ASSERT_DOUBLE_EQUAL(get2(&f, c, 5), 1.0, 1e-12);
    log_reset();
    CU_ASSERT_EQUAL(f.do_step(c, 1.0, 0.1, fmi2True), fmi2Error);
    CU_ASSERT(log_has("Fault: injected Error in the step from t = 1"));
    CU_ASSERT_DOUBLE_EQUAL(get2(&f, c, 5), 1.0, 1e-12); /* readable for diagnosis */
    CU_ASSERT_EQUAL(f.do_step(c, 1.0, 0.1, fmi2True), fmi2Error);
    CU_ASSERT(log_has("illegal call sequence (instance is in state Error)"));
    CU_ASSERT_EQUAL(f.terminate(c), fmi2OK);
    f.free_instance(c);
}

static void fmi2_fault_mode3_discards_and_reports_terminated(void)
{
    fmu2 f;
    fmi2Boolean term = fmi2True;
    fmi2Real last = NAN;
    CU_ASSERT_FATAL(load2("Fault", &f));
    fmi2Component c =
        start2(&f, TOK_FAULT, "file:" STAGE "/fmi2/Fault/resources/", 1, 3, NULL, NULL, 0);
    for (int i = 0; i < 3; i++)
        CU_ASSERT_EQUAL_FATAL(f.do_step(c, i * 0.3, 0.3, fmi2True), fmi2OK);
    CU_ASSERT_EQUAL(f.get_bool_status(c, fmi2Terminated, &term), fmi2OK);
    CU_ASSERT_EQUAL(term, fmi2False);
    CU_ASSERT_EQUAL(f.do_step(c, 0.9, 0.3, fmi2True), fmi2Discard);
    CU_ASSERT_EQUAL(f.get_bool_status(c, fmi2Terminated, &term), fmi2OK);
    CU_ASSERT_EQUAL(term, fmi2True);
    CU_ASSERT_EQUAL(f.get_real_status(c, fmi2LastSuccessfulTime, &last), fmi2OK);
    CU_ASSERT_EQUAL(last, 1.0);
    CU_ASSERT_EQUAL(get2(&f, c, 5), 1.0);
    CU_ASSERT_EQUAL(f.do_step(c, 1.0, 0.3, fmi2True), fmi2Error);
    CU_ASSERT_EQUAL(f.terminate(c), fmi2OK);
    f.free_instance(c);
}

static void fmi2_fault_resource_value_read_from_file(void)
{
    fmu2 f;
    CU_ASSERT_FATAL(load2("Fault", &f));
    fmi2Component c =
        start2(&f, TOK_FAULT, "file://" STAGE "/fmi2/Fault/resources", 0, 0, NULL, NULL, 0);
    CU_ASSERT_EQUAL(get2(&f, c, 6), resource_file_value(2));
    CU_ASSERT_EQUAL(get2(&f, c, 6), 42.125);
    f.free_instance(c);
    CU_ASSERT_PTR_NULL(inst2(&f, TOK_FAULT, "file:///nonexistent/resources"));
    CU_ASSERT(
        log_has("cannot read a number from resource file '/nonexistent/resources/value.txt'"));
    CU_ASSERT_PTR_NULL(inst2(&f, TOK_FAULT, STAGE "/fmi2/Fault/resources"));
    CU_ASSERT(log_has("cannot use fmuResourceLocation"));
    CU_ASSERT_PTR_NULL(inst2(&f, TOK_FAULT, NULL));
}

static void fmi2_fault_mode4_sleeps_in_step(void)
{
    fmu2 f;
    fmi2ValueReference vr[2] = {2, 3};
    fmi2Real val[2] = {0.0, 0.02}; /* t_fault = 0, sleep_s = 20 ms */
    CU_ASSERT_FATAL(load2("Fault", &f));
    fmi2Component c =
        start2(&f, TOK_FAULT, "file://" STAGE "/fmi2/Fault/resources", 1, 4, vr, val, 2);
    double t0 = now_s();
    CU_ASSERT_EQUAL(f.do_step(c, 0.0, 0.01, fmi2True), fmi2OK);
    CU_ASSERT(now_s() - t0 >= 0.02);
    f.free_instance(c);
}

static void fmi2_fmu_state_restores_and_serializes(void)
{
    fmu2 f;
    fmi2FMUstate s = NULL, s2 = NULL;
    size_t size = 0;
    CU_ASSERT_FATAL(load2("Decay", &f));
    fmi2Component c = start2(&f, TOK_DECAY, NULL, 0, 0, NULL, NULL, 0);
    for (int i = 0; i < 50; i++)
        CU_ASSERT_EQUAL_FATAL(f.do_step(c, i * 0.01, 0.01, fmi2True), fmi2OK);
    double xa = get2(&f, c, 3);
    CU_ASSERT_EQUAL(f.get_state(c, &s), fmi2OK);
    for (int i = 50; i < 60; i++)
        CU_ASSERT_EQUAL_FATAL(f.do_step(c, i * 0.01, 0.01, fmi2True), fmi2OK);
    CU_ASSERT_EQUAL(f.set_state(c, s), fmi2OK);
    CU_ASSERT_EQUAL(get2(&f, c, 3), xa);
    CU_ASSERT_EQUAL(f.do_step(c, 0.5, 0.01, fmi2True), fmi2OK); /* time restored too */
    CU_ASSERT_EQUAL(f.ser_size(c, s, &size), fmi2OK);
    fmi2Byte *buf = malloc(size);
    CU_ASSERT_FATAL(buf != NULL);
    CU_ASSERT_EQUAL(f.serialize(c, s, buf, size), fmi2OK);
    CU_ASSERT_EQUAL(f.deserialize(c, buf, size, &s2), fmi2OK);
    CU_ASSERT_EQUAL(f.deserialize(c, buf, size - 1, &s2), fmi2Error);
    CU_ASSERT_EQUAL(f.set_state(c, s2), fmi2OK);
    CU_ASSERT_EQUAL(get2(&f, c, 3), xa);
    free(buf);
    CU_ASSERT_EQUAL(f.free_state(c, &s), fmi2OK);
    CU_ASSERT_EQUAL(f.free_state(c, &s2), fmi2OK);
    CU_ASSERT_PTR_NULL(s);
    f.free_instance(c);
}

static void fmi2_binaries_export_only_fmi_functions(void)
{
    void *l = open_fmu(2, "Decay");
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT_PTR_NULL(dlsym(l, "rtc_tm_model_def"));
    CU_ASSERT_PTR_NULL(dlsym(l, "rtc__tm_do_step"));
    fmi2GetTypesPlatformTYPE *plat = (fmi2GetTypesPlatformTYPE *)dlsym(l, "fmi2GetTypesPlatform");
    CU_ASSERT_FATAL(plat != NULL);
    CU_ASSERT_STRING_EQUAL(plat(), "default");
    void *ns = open_fmu(2, "NoSymbol");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ns);
    CU_ASSERT_PTR_NOT_NULL(dlsym(ns, "fmi2Instantiate"));
    CU_ASSERT_PTR_NULL(dlsym(ns, "fmi2DoStep"));
    CU_ASSERT_EQUAL(access(STAGE "/fmi2/NoBinary/modelDescription.xml", R_OK), 0);
    CU_ASSERT_NOT_EQUAL(access(STAGE "/fmi2/NoBinary/binaries", F_OK), 0);
    CU_ASSERT_EQUAL(access(RTC_TEST_FMU_DIR "/fmi2/Decay.fmu", R_OK), 0);
    CU_ASSERT_EQUAL(access(RTC_TEST_FMU_DIR "/fmi2/NoBinary.fmu", R_OK), 0);
}

static const rtc_test_case fmi2_cases[] = {
    {"decay_matches_exp_over_100_steps", fmi2_decay_matches_exp_over_100_steps},
    {"doStep_drifting_point_rejected_state_kept", fmi2_doStep_drifting_point_rejected_state_kept},
    {"doStep_past_stop_time_rejected", fmi2_doStep_past_stop_time_rejected},
    {"instantiate_bad_arguments_return_null", fmi2_instantiate_bad_arguments_return_null},
    {"call_sequence_and_causality_enforced", fmi2_call_sequence_and_causality_enforced},
    {"mass1_free_response_matches_analytic", fmi2_mass1_free_response_matches_analytic},
    {"massmono_state_at_10_matches_survey", fmi2_massmono_state_at_10_matches_survey},
    {"bouncing_ball_impacts_exact_then_rests", fmi2_bouncing_ball_impacts_exact_then_rests},
    {"pi_feedthrough_and_anti_windup", fmi2_pi_feedthrough_and_anti_windup},
    {"passthrough_round_trips_every_type", fmi2_passthrough_round_trips_every_type},
    {"fault_mode1_returns_error_at_t_fault", fmi2_fault_mode1_returns_error_at_t_fault},
    {"fault_mode3_discards_and_reports_terminated",
     fmi2_fault_mode3_discards_and_reports_terminated},
    {"fault_resource_value_read_from_file", fmi2_fault_resource_value_read_from_file},
    {"fault_mode4_sleeps_in_step", fmi2_fault_mode4_sleeps_in_step},
    {"fmu_state_restores_and_serializes", fmi2_fmu_state_restores_and_serializes},
    {"binaries_export_only_fmi_functions", fmi2_binaries_export_only_fmi_functions},
    {NULL, NULL},
};

void rtc_test_register(void)
{
    rtc_test_add_suite("fmi2", NULL, close_libs, fmi2_cases);
    rtc_test_add_suite("fmi3", NULL, close_libs, fmi3_cases);
}
