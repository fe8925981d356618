/*
 * test_fmus — smoke test of the project's own test FMUs (tests/fmus/), independent of the
 * engine's fmu-host: it dlopens the built shared objects from the unpacked staging folders
 *   RTC_TEST_FMU_DIR/stage/fmi2/<Name>/binaries/linux64/<Name>.so
 *   RTC_TEST_FMU_DIR/stage/fmi3/<Name>/binaries/x86_64-linux/<Name>.so
 * and drives them through the raw FMI 2 / FMI 3 functions. It checks the numbers the
 * engine's tests rely on (analytic solutions, start values, fault timing) and the
 * rejections (drifting communication point, wrong GUID, call sequence), each with the
 * logged message and with the state unchanged afterwards.
 */
#include "cu_main.h"
#include "rtc_fmi2.h"
#include "rtc_fmi3.h"

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STAGE RTC_TEST_FMU_DIR "/stage"
#define TOKEN(n) "{a3c2f1d0-5b6e-4c71-9d2a-00000000000" #n "}"
#define TOK_DECAY TOKEN(1)
#define TOK_MASS1 TOKEN(2)
#define TOK_MASSMONO TOKEN(4)
#define TOK_PI TOKEN(5)
#define TOK_BALL TOKEN(6)
#define TOK_PASS TOKEN(7)
#define TOK_FAULT TOKEN(8)

/* ---- captured log lines ---- */

static char log_text[16384];
static size_t log_len;

static void log_reset(void)
{
    log_len = 0;
    log_text[0] = '\0';
}

static void log_append(const char *cat, const char *msg)
{
    int n = snprintf(log_text + log_len, sizeof log_text - log_len, "[%s] %s\n", cat, msg);
    if (n > 0 && log_len + (size_t)n < sizeof log_text)
        log_len += (size_t)n;
}

static bool log_has(const char *needle)
{
    return strstr(log_text, needle) != NULL;
}

static void logger2(fmi2ComponentEnvironment env,
                    fmi2String name,
                    fmi2Status st,
                    fmi2String cat,
                    fmi2String fmt,
                    ...)
{
    char msg[1024];
    va_list ap;
    (void)env, (void)name, (void)st;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log_append(cat, msg);
}

static void logger3(fmi3InstanceEnvironment env, fmi3Status st, fmi3String cat, fmi3String msg)
{
    (void)env, (void)st;
    log_append(cat, msg);
}

static const fmi2CallbackFunctions cb2 = {logger2, calloc, free, NULL, NULL};

/* ---- loading ---- */

#define MAX_LIBS 16
static void *libs[MAX_LIBS];
static int nlibs;

/* dlopen a staged FMU binary; kept open until the suite cleanup. */
static void *open_fmu(int version, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/fmi%d/%s/binaries/%s/%s.so", STAGE, version, name,
             version == 2 ? "linux64" : "x86_64-linux", name);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        return NULL;
    }
    if (nlibs < MAX_LIBS)
        libs[nlibs++] = lib;
    return lib;
}

static int close_libs(void)
{
    while (nlibs > 0)
        dlclose(libs[--nlibs]);
    return 0;
}

typedef struct fmu2 {
    fmi2InstantiateTYPE *instantiate;
    fmi2FreeInstanceTYPE *free_instance;
    fmi2SetupExperimentTYPE *setup;
    fmi2EnterInitializationModeTYPE *enter_init;
    fmi2ExitInitializationModeTYPE *exit_init;
    fmi2DoStepTYPE *do_step;
    fmi2TerminateTYPE *terminate;
    fmi2GetRealTYPE *get_real;
    fmi2SetRealTYPE *set_real;
    fmi2GetIntegerTYPE *get_int;
    fmi2SetIntegerTYPE *set_int;
    fmi2GetBooleanTYPE *get_bool;
    fmi2SetBooleanTYPE *set_bool;
    fmi2GetStringTYPE *get_str;
    fmi2SetStringTYPE *set_str;
    fmi2GetBooleanStatusTYPE *get_bool_status;
    fmi2GetRealStatusTYPE *get_real_status;
    fmi2GetFMUstateTYPE *get_state;
    fmi2SetFMUstateTYPE *set_state;
    fmi2FreeFMUstateTYPE *free_state;
    fmi2SerializedFMUstateSizeTYPE *ser_size;
    fmi2SerializeFMUstateTYPE *serialize;
    fmi2DeSerializeFMUstateTYPE *deserialize;
} fmu2;

#define BIND(lib, dst, sym) ((dst) = (__typeof__(dst))dlsym((lib), (sym)), (dst) != NULL)

static bool load2(const char *name, fmu2 *f)
{
    void *l = open_fmu(2, name);
    return l && BIND(l, f->instantiate, "fmi2Instantiate") &&
           BIND(l, f->free_instance, "fmi2FreeInstance") &&
           BIND(l, f->setup, "fmi2SetupExperiment") &&
           BIND(l, f->enter_init, "fmi2EnterInitializationMode") &&
           BIND(l, f->exit_init, "fmi2ExitInitializationMode") &&
           BIND(l, f->do_step, "fmi2DoStep") && BIND(l, f->terminate, "fmi2Terminate") &&
           BIND(l, f->get_real, "fmi2GetReal") && BIND(l, f->set_real, "fmi2SetReal") &&
           BIND(l, f->get_int, "fmi2GetInteger") && BIND(l, f->set_int, "fmi2SetInteger") &&
           BIND(l, f->get_bool, "fmi2GetBoolean") && BIND(l, f->set_bool, "fmi2SetBoolean") &&
           BIND(l, f->get_str, "fmi2GetString") && BIND(l, f->set_str, "fmi2SetString") &&
           BIND(l, f->get_bool_status, "fmi2GetBooleanStatus") &&
           BIND(l, f->get_real_status, "fmi2GetRealStatus") &&
           BIND(l, f->get_state, "fmi2GetFMUstate") && BIND(l, f->set_state, "fmi2SetFMUstate") &&
           BIND(l, f->free_state, "fmi2FreeFMUstate") &&
           BIND(l, f->ser_size, "fmi2SerializedFMUstateSize") &&
           BIND(l, f->serialize, "fmi2SerializeFMUstate") &&
           BIND(l, f->deserialize, "fmi2DeSerializeFMUstate");
}

typedef struct fmu3 {
    fmi3InstantiateCoSimulationTYPE *instantiate;
    fmi3FreeInstanceTYPE *free_instance;
    fmi3EnterInitializationModeTYPE *enter_init;
    fmi3ExitInitializationModeTYPE *exit_init;
    fmi3DoStepTYPE *do_step;
    fmi3TerminateTYPE *terminate;
    fmi3EnterEventModeTYPE *enter_event;
    fmi3GetFloat64TYPE *get_f64;
    fmi3SetFloat64TYPE *set_f64;
    fmi3GetInt32TYPE *get_i32;
    fmi3SetInt32TYPE *set_i32;
    fmi3GetFMUStateTYPE *get_state;
    fmi3SetFMUStateTYPE *set_state;
    fmi3FreeFMUStateTYPE *free_state;
    void *lib;
} fmu3;

static bool load3(const char *name, fmu3 *f)
{
    void *l = f->lib = open_fmu(3, name);
    return l && BIND(l, f->instantiate, "fmi3InstantiateCoSimulation") &&
           BIND(l, f->free_instance, "fmi3FreeInstance") &&
           BIND(l, f->enter_init, "fmi3EnterInitializationMode") &&
           BIND(l, f->exit_init, "fmi3ExitInitializationMode") &&
           BIND(l, f->do_step, "fmi3DoStep") && BIND(l, f->terminate, "fmi3Terminate") &&
           BIND(l, f->enter_event, "fmi3EnterEventMode") && BIND(l, f->get_f64, "fmi3GetFloat64") &&
           BIND(l, f->set_f64, "fmi3SetFloat64") && BIND(l, f->get_i32, "fmi3GetInt32") &&
           BIND(l, f->set_i32, "fmi3SetInt32") && BIND(l, f->get_state, "fmi3GetFMUState") &&
           BIND(l, f->set_state, "fmi3SetFMUState") && BIND(l, f->free_state, "fmi3FreeFMUState");
}

/* ---- small helpers ---- */

static fmi2Component inst2(const fmu2 *f, const char *guid, const char *res)
{
    log_reset();
    return f->instantiate("test", fmi2CoSimulation, guid, res, &cb2, fmi2False, fmi2False);
}

/* Instantiate, set parameters (Integer then Real), initialize at t = 0. */
static fmi2Component start2(const fmu2 *f,
                            const char *guid,
                            const char *res,
                            fmi2ValueReference ivr,
                            fmi2Integer ival,
                            const fmi2ValueReference *rvr,
                            const fmi2Real *rval,
                            size_t nr)
{
    fmi2Component c = inst2(f, guid, res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    if (ivr)
        CU_ASSERT_EQUAL(f->set_int(c, &ivr, 1, &ival), fmi2OK);
    if (nr)
        CU_ASSERT_EQUAL(f->set_real(c, rvr, nr, rval), fmi2OK);
    CU_ASSERT_EQUAL(f->setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2OK);
    CU_ASSERT_EQUAL(f->enter_init(c), fmi2OK);
    CU_ASSERT_EQUAL(f->exit_init(c), fmi2OK);
    return c;
}

static double get2(const fmu2 *f, fmi2Component c, fmi2ValueReference vr)
{
    fmi2Real v = NAN;
    CU_ASSERT_EQUAL(f->get_real(c, &vr, 1, &v), fmi2OK);
    return v;
}

static fmi3Instance inst3(const fmu3 *f, const char *token, const char *res)
{
    log_reset();
    return f->instantiate("test", token, res, false, false, false, false, NULL, 0, NULL, logger3,
                          NULL);
}

static fmi3Instance start3(const fmu3 *f, const char *token, const char *res)
{
    fmi3Instance c = inst3(f, token, res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(f->enter_init(c, false, 0.0, 0.0, false, 0.0), fmi3OK);
    CU_ASSERT_EQUAL(f->exit_init(c), fmi3OK);
    return c;
}

static double get3(const fmu3 *f, fmi3Instance c, fmi3ValueReference vr)
{
    fmi3Float64 v = NAN;
    CU_ASSERT_EQUAL(f->get_f64(c, &vr, 1, &v, 1), fmi3OK);
    return v;
}

static fmi3Status step3(const fmu3 *f, fmi3Instance c, double t, double h, bool *term, double *last)
{
    fmi3Boolean ev = true, early = true, tm = true;
    fmi3Float64 ls = NAN;
    fmi3Status st = f->do_step(c, t, h, true, &ev, &tm, &early, &ls);
    CU_ASSERT_FALSE(ev);
    CU_ASSERT_FALSE(early);
    if (term)
        *term = tm;
    if (last)
        *last = ls;
    return st;
}

static double rel_err(double a, double b)
{
    return fabs(a - b) / fmax(fabs(b), 1e-300);
}

/* R1 of the survey (m = c = d = 1, x0 = 1, v0 = 0, Fe = 0): analytic position/velocity. */
static void msd_exact(double t, double *x, double *v)
{
    double w = sqrt(3.0) / 2.0;
    *x = exp(-t / 2) * (cos(w * t) + sin(w * t) / sqrt(3.0));
    *v = -(2.0 / sqrt(3.0)) * exp(-t / 2) * sin(w * t);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The number in the source tree's Fault/resources/value.txt, as the staged copy has it. */
static double resource_file_value(int version)
{
    char path[1024];
    double v = NAN;
    snprintf(path, sizeof path, "%s/fmi%d/Fault/resources/value.txt", STAGE, version);
    FILE *fp = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    CU_ASSERT_EQUAL(fscanf(fp, "%lf", &v), 1);
    fclose(fp);
    return v;
}

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
/* ======================= FMI 3 ======================= */

static void fmi3_decay_matches_exp_over_100_steps(void)
{
    fmu3 f;
    bool term = true;
    double last = NAN, worst = 0.0;
    CU_ASSERT_FATAL(load3("Decay", &f));
    fmi3Instance c = start3(&f, TOK_DECAY, NULL);
    for (int i = 0; i < 100; i++) {
        CU_ASSERT_EQUAL_FATAL(step3(&f, c, i * 0.01, 0.01, &term, &last), fmi3OK);
        CU_ASSERT_FALSE(term);
        CU_ASSERT_DOUBLE_EQUAL(last, (i + 1) * 0.01, 1e-12);
        worst = fmax(worst, rel_err(get3(&f, c, 3), exp(-(i + 1) * 0.01)));
    }
    CU_ASSERT(worst <= 1e-12);
    f.free_instance(c);
}

static void fmi3_doStep_drifting_point_rejected_state_kept(void)
{
    fmu3 f;
    double last = NAN;
    CU_ASSERT_FATAL(load3("Decay", &f));
    fmi3Instance c = start3(&f, TOK_DECAY, NULL);
    for (int i = 0; i < 50; i++)
        CU_ASSERT_EQUAL_FATAL(step3(&f, c, i * 0.01, 0.01, NULL, NULL), fmi3OK);
    double before = get3(&f, c, 3);
    log_reset();
    CU_ASSERT_EQUAL(step3(&f, c, 0.5 + 1e-6, 0.01, NULL, &last), fmi3Error);
    CU_ASSERT(log_has("fmi3DoStep: currentCommunicationPoint"));
    CU_ASSERT(log_has("communication point drift"));
    CU_ASSERT_DOUBLE_EQUAL(last, 0.5, 1e-12); /* last successful time unchanged */
    CU_ASSERT_EQUAL(get3(&f, c, 3), before);
    CU_ASSERT_EQUAL(step3(&f, c, 0.5, -0.01, NULL, NULL), fmi3Error);
    CU_ASSERT_EQUAL(step3(&f, c, 0.5, 0.01, NULL, NULL), fmi3OK);
    CU_ASSERT(rel_err(get3(&f, c, 3), exp(-0.51)) <= 1e-12);
    f.free_instance(c);
}

static void fmi3_instantiate_bad_arguments_return_null(void)
{
    fmu3 f;
    fmi3ValueReference vr = 3;
    CU_ASSERT_FATAL(load3("Decay", &f));
    CU_ASSERT_PTR_NULL(inst3(&f, "{bad}", NULL));
    CU_ASSERT(log_has("instantiationToken does not match the modelDescription: {bad}"));
    log_reset();
    CU_ASSERT_PTR_NULL(
        f.instantiate("", TOK_DECAY, NULL, 0, 0, 0, 0, NULL, 0, NULL, logger3, NULL));
    CU_ASSERT(log_has("instanceName must be a non-empty string"));
    CU_ASSERT_PTR_NULL(f.instantiate("x", TOK_DECAY, NULL, 0, 0, 0, 0, NULL, 0, NULL, NULL, NULL));
    log_reset();
    CU_ASSERT_PTR_NULL(
        f.instantiate("x", TOK_DECAY, NULL, 0, 0, true, 0, NULL, 0, NULL, logger3, NULL));
    CU_ASSERT(log_has("hasEventMode is false"));
    CU_ASSERT_PTR_NULL(
        f.instantiate("x", TOK_DECAY, NULL, 0, 0, 0, 0, &vr, 1, NULL, logger3, NULL));
    fmi3InstantiateModelExchangeTYPE *me =
        (fmi3InstantiateModelExchangeTYPE *)dlsym(f.lib, "fmi3InstantiateModelExchange");
    CU_ASSERT_FATAL(me != NULL);
    CU_ASSERT_PTR_NULL(me("x", TOK_DECAY, NULL, 0, 0, NULL, logger3));
}

static void fmi3_call_sequence_and_unsupported_functions(void)
{
    fmu3 f;
    fmi3ValueReference x_vr = 3;
    fmi3Float64 v = 2.0;
    CU_ASSERT_FATAL(load3("Decay", &f));
    fmi3Instance c = inst3(&f, TOK_DECAY, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(step3(&f, c, 0.0, 0.01, NULL, NULL), fmi3Error);
    CU_ASSERT(log_has("fmi3DoStep: illegal call sequence (instance is in state Instantiated)"));
    CU_ASSERT_EQUAL(f.enter_init(c, false, 0.0, 0.0, false, 0.0), fmi3OK);
    CU_ASSERT_EQUAL(f.exit_init(c), fmi3OK);
    CU_ASSERT_EQUAL(f.set_f64(c, &x_vr, 1, &v, 1), fmi3Error);
    CU_ASSERT_EQUAL(get3(&f, c, 3), 1.0);
    log_reset();
    CU_ASSERT_EQUAL(f.enter_event(c), fmi3Error);
    CU_ASSERT(log_has("fmi3EnterEventMode: not supported by this FMU (hasEventMode=false)"));
    f.free_instance(c);
}

static void fmi3_mass1_free_response_matches_analytic(void)
{
    fmu3 f;
    double worst = 0.0, x, v;
    CU_ASSERT_FATAL(load3("Mass1", &f));
    fmi3Instance c = start3(&f, TOK_MASS1, NULL);
    for (int i = 0; i < 50; i++) {
        CU_ASSERT_EQUAL_FATAL(step3(&f, c, i * 0.2, 0.2, NULL, NULL), fmi3OK);
        msd_exact((i + 1) * 0.2, &x, &v);
        worst = fmax(worst, fmax(fabs(get3(&f, c, 7) - x), fabs(get3(&f, c, 8) - v)));
    }
    CU_ASSERT(worst <= 1e-10);
    f.free_instance(c);
}

/* Every numeric type: output equals the start value, then follows a set at once. */
#define ROUND_TRIP(T, VR, START, NEW)                                                              \
    do {                                                                                           \
        fmi3Get##T##TYPE *get = (fmi3Get##T##TYPE *)dlsym(f.lib, "fmi3Get" #T);                    \
        fmi3Set##T##TYPE *set = (fmi3Set##T##TYPE *)dlsym(f.lib, "fmi3Set" #T);                    \
        fmi3ValueReference in = (VR), out = (VR) + 1;                                              \
        fmi3##T got = 0, nv = (NEW);                                                               \
        CU_ASSERT_FATAL(get != NULL && set != NULL);                                               \
        CU_ASSERT_EQUAL(get(c, &out, 1, &got, 1), fmi3OK);                                         \
        CU_ASSERT(got == (START));                                                                 \
        CU_ASSERT_EQUAL(set(c, &in, 1, &nv, 1), fmi3OK);                                           \
        CU_ASSERT_EQUAL(get(c, &out, 1, &got, 1), fmi3OK);                                         \
        CU_ASSERT(got == nv);                                                                      \
    } while (0)

static void fmi3_passthrough_round_trips_numeric_types(void)
{
    fmu3 f;
    CU_ASSERT_FATAL(load3("Passthrough", &f));
    fmi3Instance c = start3(&f, TOK_PASS, NULL);
    ROUND_TRIP(Float64, 1, 1.5, -7.25);
    ROUND_TRIP(Float32, 3, 2.5f, 0.125f);
    ROUND_TRIP(Int8, 5, -3, INT8_MAX);
    ROUND_TRIP(UInt8, 7, 200, UINT8_MAX);
    ROUND_TRIP(Int16, 9, -1234, INT16_MIN);
    ROUND_TRIP(UInt16, 11, 54321, UINT16_MAX);
    ROUND_TRIP(Int32, 13, -123456, INT32_MIN);
    ROUND_TRIP(UInt32, 15, 4000000000u, 1u);
    ROUND_TRIP(Int64, 17, -1234567890123LL, INT64_MIN);
    ROUND_TRIP(UInt64, 19, UINT64_MAX, 0u);
    ROUND_TRIP(Boolean, 21, true, false);
    ROUND_TRIP(Int64, 27, 2, 3); /* Enumeration */
    CU_ASSERT_EQUAL(step3(&f, c, 0.0, 0.1, NULL, NULL), fmi3OK);
    CU_ASSERT_EQUAL(get3(&f, c, 2), -7.25);
    f.free_instance(c);
}

static void fmi3_passthrough_round_trips_string_binary_array(void)
{
    fmu3 f;
    fmi3ValueReference sin = 23, sout = 24, bin = 25, bout = 26, ain = 29, mix[2] = {2, 30};
    fmi3String s = NULL, ns = "world";
    fmi3Binary b = NULL, nb = (const fmi3Byte *)"\xde\xad\xbe\xef";
    size_t bsize = 0, nbsize = 4;
    fmi3Float64 arr[4] = {0}, narr[3] = {-1.0, 0.0, 1e300};
    CU_ASSERT_FATAL(load3("Passthrough", &f));
    fmi3GetStringTYPE *get_s = (fmi3GetStringTYPE *)dlsym(f.lib, "fmi3GetString");
    fmi3SetStringTYPE *set_s = (fmi3SetStringTYPE *)dlsym(f.lib, "fmi3SetString");
    fmi3GetBinaryTYPE *get_b = (fmi3GetBinaryTYPE *)dlsym(f.lib, "fmi3GetBinary");
    fmi3SetBinaryTYPE *set_b = (fmi3SetBinaryTYPE *)dlsym(f.lib, "fmi3SetBinary");
    CU_ASSERT_FATAL(get_s && set_s && get_b && set_b);
    fmi3Instance c = start3(&f, TOK_PASS, NULL);
    CU_ASSERT_EQUAL(get_s(c, &sout, 1, &s, 1), fmi3OK);
    CU_ASSERT_STRING_EQUAL(s, "hello");
    CU_ASSERT_EQUAL(set_s(c, &sin, 1, &ns, 1), fmi3OK);
    CU_ASSERT_EQUAL(get_s(c, &sout, 1, &s, 1), fmi3OK);
    CU_ASSERT_STRING_EQUAL(s, "world");
    CU_ASSERT_EQUAL(get_b(c, &bout, 1, &bsize, &b, 1), fmi3OK);
    CU_ASSERT_EQUAL(bsize, 3);
    CU_ASSERT(b && memcmp(b, "\x01\x02\xff", 3) == 0);
    CU_ASSERT_EQUAL(set_b(c, &bin, 1, &nbsize, &nb, 1), fmi3OK);
    CU_ASSERT_EQUAL(get_b(c, &bout, 1, &bsize, &b, 1), fmi3OK);
    CU_ASSERT(bsize == 4 && memcmp(b, nb, 4) == 0);
    CU_ASSERT_EQUAL(f.get_f64(c, mix, 2, arr, 4), fmi3OK); /* scalar + 3 elements */
    CU_ASSERT(arr[0] == 1.5 && arr[1] == 1.5 && arr[2] == 2.5 && arr[3] == 3.5);
    CU_ASSERT_EQUAL(f.set_f64(c, &ain, 1, narr, 3), fmi3OK);
    CU_ASSERT_EQUAL(f.get_f64(c, &mix[1], 1, arr, 3), fmi3OK);
    CU_ASSERT(memcmp(arr, narr, sizeof narr) == 0);
    log_reset();
    CU_ASSERT_EQUAL(f.set_f64(c, &ain, 1, narr, 1), fmi3Error);
    CU_ASSERT(log_has("nValues is 1 but the variables have 3 elements"));
    CU_ASSERT_EQUAL(f.set_f64(c, mix, 1, narr, 1), fmi3Error); /* an output */
    CU_ASSERT_EQUAL(get3(&f, c, 2), 1.5);
    f.free_instance(c);
}

static void fmi3_fault_modes_error_and_terminate(void)
{
    fmu3 f;
    fmi3ValueReference mode_vr = 1;
    fmi3Int32 mode = 1;
    bool term = false;
    double last = NAN;
    CU_ASSERT_FATAL(load3("Fault", &f));
    fmi3Instance c = inst3(&f, TOK_FAULT, STAGE "/fmi3/Fault/resources/");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(f.set_i32(c, &mode_vr, 1, &mode, 1), fmi3OK);
    CU_ASSERT_EQUAL(f.enter_init(c, false, 0.0, 0.0, false, 0.0), fmi3OK);
    CU_ASSERT_EQUAL(f.exit_init(c), fmi3OK);
    CU_ASSERT_EQUAL(get3(&f, c, 6), resource_file_value(3));
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL_FATAL(step3(&f, c, i * 0.25, 0.25, NULL, NULL), fmi3OK);
    CU_ASSERT_EQUAL(step3(&f, c, 1.0, 0.25, NULL, NULL), fmi3Error);
    CU_ASSERT(log_has("Fault: injected Error"));
    f.free_instance(c);

    mode = 3; /* terminate: in the step 0.9 -> 1.2 the model stops at t_fault = 1 */
    c = inst3(&f, TOK_FAULT, STAGE "/fmi3/Fault/resources/");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(f.set_i32(c, &mode_vr, 1, &mode, 1), fmi3OK);
    CU_ASSERT_EQUAL(f.enter_init(c, false, 0.0, 0.0, false, 0.0), fmi3OK);
    CU_ASSERT_EQUAL(f.exit_init(c), fmi3OK);
    for (int i = 0; i < 3; i++)
        CU_ASSERT_EQUAL_FATAL(step3(&f, c, i * 0.3, 0.3, NULL, NULL), fmi3OK);
    CU_ASSERT_EQUAL(step3(&f, c, 0.9, 0.3, &term, &last), fmi3OK);
    CU_ASSERT_TRUE(term);
    CU_ASSERT_EQUAL(last, 1.0);
    CU_ASSERT_EQUAL(get3(&f, c, 5), 1.0);
    CU_ASSERT_EQUAL(step3(&f, c, 1.0, 0.3, NULL, NULL), fmi3Error);
    CU_ASSERT_EQUAL(f.terminate(c), fmi3OK);
    f.free_instance(c);
    CU_ASSERT_PTR_NULL(inst3(&f, TOK_FAULT, "/nonexistent/"));
    CU_ASSERT(log_has("cannot read a number from resource file '/nonexistent/value.txt'"));
}

static void fmi3_fmu_state_restores(void)
{
    fmu3 f;
    fmi3FMUState s = NULL;
    CU_ASSERT_FATAL(load3("Decay", &f));
    fmi3Instance c = start3(&f, TOK_DECAY, NULL);
    CU_ASSERT_EQUAL(step3(&f, c, 0.0, 0.1, NULL, NULL), fmi3OK);
    double xa = get3(&f, c, 3);
    CU_ASSERT_EQUAL(f.get_state(c, &s), fmi3OK);
    CU_ASSERT_EQUAL(step3(&f, c, 0.1, 0.1, NULL, NULL), fmi3OK);
    void *same = s;
    CU_ASSERT_EQUAL(f.get_state(c, &s), fmi3OK); /* reuses the block: no new allocation */
    CU_ASSERT_PTR_EQUAL(s, same);
    CU_ASSERT_EQUAL(f.set_state(c, s), fmi3OK);
    CU_ASSERT(rel_err(get3(&f, c, 3), exp(-0.2)) <= 1e-12);
    CU_ASSERT(xa > get3(&f, c, 3));
    CU_ASSERT_EQUAL(f.free_state(c, &s), fmi3OK);
    f.free_instance(c);
}

static const rtc_test_case fmi3_cases[] = {
    {"decay_matches_exp_over_100_steps", fmi3_decay_matches_exp_over_100_steps},
    {"doStep_drifting_point_rejected_state_kept", fmi3_doStep_drifting_point_rejected_state_kept},
    {"instantiate_bad_arguments_return_null", fmi3_instantiate_bad_arguments_return_null},
    {"call_sequence_and_unsupported_functions", fmi3_call_sequence_and_unsupported_functions},
    {"mass1_free_response_matches_analytic", fmi3_mass1_free_response_matches_analytic},
    {"passthrough_round_trips_numeric_types", fmi3_passthrough_round_trips_numeric_types},
    {"passthrough_round_trips_string_binary_array",
     fmi3_passthrough_round_trips_string_binary_array},
    {"fault_modes_error_and_terminate", fmi3_fault_modes_error_and_terminate},
    {"fmu_state_restores", fmi3_fmu_state_restores},
    {NULL, NULL},
};

void rtc_test_register(void)
{
    rtc_test_add_suite("fmi2", NULL, close_libs, fmi2_cases);
    rtc_test_add_suite("fmi3", NULL, close_libs, fmi3_cases);
}
