/*
 * fmu-host end to end: the project's test FMUs, FMI 2.0 and 3.0, opened, bound,
 * instantiated and stepped through rtc_unit_ops, against analytic solutions.
 */
#include "cu_main.h"
#include "fmu_util.h"

#include "rtcosim/status.h"

#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int step(const tfmu *f, long k, double h, rtc_step_result *res)
{
    return f->unit->ops->do_step(f->unit->self, (double)k * h, h, res);
}

/* x(t) = x0·exp(−k·t): the FMU integrates exactly, so the error is rounding only
 * (1e-12 relative allows ~1000 steps of a few ulps each). */
static void decay_matches_exponential(int v)
{
    tlog log;
    tlog_init(&log);
    tfmu f;
    CU_ASSERT_EQUAL_FATAL(tfmu_start(&f, v, "Decay", 10, &log), RTC_OK);
    CU_ASSERT_EQUAL(f.md->fmi_major, v);
    double h = 0.01, worst = 0;
    for (long k = 0; k < 1000; k++) {
        rtc_step_result res;
        CU_ASSERT_EQUAL_FATAL(step(&f, k, h, &res), RTC_OK);
        CU_ASSERT_EQUAL(res.outcome, RTC_STEP_DONE);
        double t = (double)(k + 1) * h, x = tfmu_get_f64(&f, "x");
        double err = fabs(x - exp(-t)) / exp(-t);
        worst = err > worst ? err : worst;
    }
    CU_ASSERT(worst < 1e-12);
    CU_ASSERT_EQUAL(f.unit->ops->terminate(f.unit->self), RTC_OK);
    tfmu_end(&f);
}
static void decay_fmi2_matches_exponential(void) { decay_matches_exponential(2); }
static void decay_fmi3_matches_exponential(void) { decay_matches_exponential(3); }

static void decay_parameter_set_before_init_changes_rate(void)
{
    for (int v = 2; v <= 3; v++) {
        tlog log;
        tlog_init(&log);
        tfmu f;
        CU_ASSERT_EQUAL_FATAL(tfmu_instantiate(&f, v, "Decay", 10, &log), RTC_OK);
        tfmu_set_f64(&f, "k", 2.0);
        CU_ASSERT_EQUAL(f.unit->ops->enter_init(f.unit->self), RTC_OK);
        CU_ASSERT_EQUAL(f.unit->ops->exit_init(f.unit->self), RTC_OK);
        rtc_step_result res;
        CU_ASSERT_EQUAL(step(&f, 0, 0.5, &res), RTC_OK);
        CU_ASSERT_DOUBLE_EQUAL(tfmu_get_f64(&f, "x"), exp(-1.0), 1e-14);
        tfmu_end(&f);
    }
}

/* Real FMUs reject a communication point that is not where their clock is. */
static void drifting_communication_point_rejected(void)
{
    for (int v = 2; v <= 3; v++) {
        tlog log;
        tlog_init(&log);
        tfmu f;
        CU_ASSERT_EQUAL_FATAL(tfmu_start(&f, v, "Decay", 10, &log), RTC_OK);
        rtc_step_result res;
        CU_ASSERT_EQUAL(step(&f, 0, 0.01, &res), RTC_OK);
        CU_ASSERT_EQUAL(f.unit->ops->do_step(f.unit->self, 0.01 + 1e-6, 0.01, &res), RTC_EFMU);
        CU_ASSERT_TRUE(tlog_has(&log, "inst: fmi") && tlog_has(&log, "DoStep returned Error"));
        tfmu_end(&f);
    }
}

/* Ballistic flight until the first impact at t1 = sqrt(2·h0/g), then v jumps to e·g·t1. */
static void bouncing_ball_matches_ballistic_solution(void)
{
    for (int v = 2; v <= 3; v++) {
        tlog log;
        tlog_init(&log);
        tfmu f;
        CU_ASSERT_EQUAL_FATAL(tfmu_start(&f, v, "BouncingBall", 3, &log), RTC_OK);
        double g = 9.81, e = 0.7, h0 = 1.0, t1 = sqrt(2 * h0 / g), h = 0.001;
        for (long k = 0; k < 1000; k++) {
            rtc_step_result res;
            CU_ASSERT_EQUAL_FATAL(step(&f, k, h, &res), RTC_OK);
            double t = (double)(k + 1) * h, want_h, want_v;
            if (t < t1) {
                want_h = h0 - g * t * t / 2;
                want_v = -g * t;
            } else {
                double v1 = e * g * t1, dt = t - t1;
                want_h = v1 * dt - g * dt * dt / 2;
                want_v = v1 - g * dt;
            }
            /* exact event location: only rounding errors remain */
            CU_ASSERT_DOUBLE_EQUAL(tfmu_get_f64(&f, "h"), want_h, 1e-9);
            CU_ASSERT_DOUBLE_EQUAL(tfmu_get_f64(&f, "v"), want_v, 1e-9);
        }
        tfmu_end(&f);
    }
}

/* Set <T>_input, read <T>_output back (the Passthrough FMU's outputs follow its inputs). */
static void roundtrip(const tfmu *f, const char *in, const char *out, rtc_type type,
                      const void *value, void *back, size_t n)
{
    long i = rtc_model_find_var(f->md, in), o = rtc_model_find_var(f->md, out);
    CU_ASSERT_FATAL(i >= 0 && o >= 0);
    CU_ASSERT_EQUAL(f->md->vars[i].type, type);
    uint32_t vri = f->md->vars[i].vr, vro = f->md->vars[o].vr;
    CU_ASSERT_EQUAL(f->unit->ops->set(f->unit->self, type, &vri, 1, value, n), RTC_OK);
    rtc_step_result res;
    CU_ASSERT_EQUAL(f->unit->ops->do_step(f->unit->self, 0, 0.1, &res), RTC_OK);
    CU_ASSERT_EQUAL(f->unit->ops->get(f->unit->self, type, &vro, 1, back, n), RTC_OK);
    /* one step per round trip: rewind the FMU's clock by restarting is not needed because
     * every round trip restarts the instance (see callers). */
}

#define ROUNDTRIP(fmu, ver, T, ctype, rtype, val)                                                 \
    do {                                                                                           \
        tfmu f_;                                                                                   \
        tlog l_;                                                                                   \
        tlog_init(&l_);                                                                            \
        CU_ASSERT_EQUAL_FATAL(tfmu_start(&f_, ver, fmu, 10, &l_), RTC_OK);                         \
        ctype in_ = (val), out_;                                                                   \
        memset(&out_, 0, sizeof out_);                                                             \
        roundtrip(&f_, T "_input", T "_output", rtype, &in_, &out_, 1);                            \
        CU_ASSERT(memcmp(&in_, &out_, sizeof in_) == 0);                                           \
        tfmu_end(&f_);                                                                             \
    } while (0)

static void passthrough_fmi3_every_type_round_trips(void)
{
    ROUNDTRIP("Passthrough", 3, "Float64", double, RTC_TYPE_FLOAT64, -1.0 / 3.0);
    ROUNDTRIP("Passthrough", 3, "Float32", float, RTC_TYPE_FLOAT32, 0.1f);
    ROUNDTRIP("Passthrough", 3, "Int8", int8_t, RTC_TYPE_INT8, -128);
    ROUNDTRIP("Passthrough", 3, "UInt8", uint8_t, RTC_TYPE_UINT8, 255);
    ROUNDTRIP("Passthrough", 3, "Int16", int16_t, RTC_TYPE_INT16, -32768);
    ROUNDTRIP("Passthrough", 3, "UInt16", uint16_t, RTC_TYPE_UINT16, 65535);
    ROUNDTRIP("Passthrough", 3, "Int32", int32_t, RTC_TYPE_INT32, INT32_MIN);
    ROUNDTRIP("Passthrough", 3, "UInt32", uint32_t, RTC_TYPE_UINT32, UINT32_MAX);
    ROUNDTRIP("Passthrough", 3, "Int64", int64_t, RTC_TYPE_INT64, INT64_MIN);
    ROUNDTRIP("Passthrough", 3, "UInt64", uint64_t, RTC_TYPE_UINT64, UINT64_MAX);
    ROUNDTRIP("Passthrough", 3, "Boolean", bool, RTC_TYPE_BOOL, true);
    ROUNDTRIP("Passthrough", 3, "Enumeration", int64_t, RTC_TYPE_ENUM, 2);

    tfmu f;
    tlog log;
    tlog_init(&log);
    CU_ASSERT_EQUAL_FATAL(tfmu_start(&f, 3, "Passthrough", 10, &log), RTC_OK);
    const char *s = "grüße, \"quoted\"", *sback = NULL;
    roundtrip(&f, "String_input", "String_output", RTC_TYPE_STRING, &s, &sback, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sback);
    CU_ASSERT_STRING_EQUAL(sback, s);
    tfmu_end(&f);

    CU_ASSERT_EQUAL_FATAL(tfmu_start(&f, 3, "Passthrough", 10, &log), RTC_OK);
    static const uint8_t bytes[] = {0x00, 0x01, 0xfe, 0xff, 0x7f};
    rtc_binary b = {bytes, sizeof bytes}, bback = {0};
    roundtrip(&f, "Binary_input", "Binary_output", RTC_TYPE_BINARY, &b, &bback, 1);
    CU_ASSERT_EQUAL(bback.size, sizeof bytes);
    CU_ASSERT(bback.data && memcmp(bback.data, bytes, sizeof bytes) == 0);
    tfmu_end(&f);
}

static void passthrough_fmi3_array_round_trips(void)
{
    tfmu f;
    tlog log;
    tlog_init(&log);
    CU_ASSERT_EQUAL_FATAL(tfmu_start(&f, 3, "Passthrough", 10, &log), RTC_OK);
    const rtc_var *in = NULL, *out = NULL;
    for (size_t i = 0; i < f.md->n_vars; i++) {
        const rtc_var *v = &f.md->vars[i];
        if (v->n_dims && v->causality == RTC_CAUSALITY_INPUT)
            in = v;
        if (v->n_dims && v->causality == RTC_CAUSALITY_OUTPUT)
            out = v;
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_EQUAL(rtc_var_count(in), 3);
    double a[3] = {1.5, -2.25, 1e300}, back[3] = {0};
    roundtrip(&f, in->name, out->name, RTC_TYPE_FLOAT64, a, back, 3);
    CU_ASSERT(memcmp(a, back, sizeof a) == 0);
    tfmu_end(&f);
}

static void passthrough_fmi2_every_type_round_trips(void)
{
    ROUNDTRIP("Passthrough", 2, "Real", double, RTC_TYPE_FLOAT64, 6.02214076e23);
    ROUNDTRIP("Passthrough", 2, "Integer", int32_t, RTC_TYPE_INT32, -2147483647);
    ROUNDTRIP("Passthrough", 2, "Boolean", bool, RTC_TYPE_BOOL, true);
    ROUNDTRIP("Passthrough", 2, "Enumeration", int64_t, RTC_TYPE_ENUM, 3);
    tfmu f;
    tlog log;
    tlog_init(&log);
    CU_ASSERT_EQUAL_FATAL(tfmu_start(&f, 2, "Passthrough", 10, &log), RTC_OK);
    const char *s = "fmi2 string", *sback = NULL;
    roundtrip(&f, "String_input", "String_output", RTC_TYPE_STRING, &s, &sback, 1);
    CU_ASSERT(sback && strcmp(sback, s) == 0);
    /* FMI 2 has no Binary: the unit refuses rather than calling a wrong function. */
    uint32_t vr = 0;
    rtc_binary b = {0};
    CU_ASSERT_EQUAL(f.unit->ops->get(f.unit->self, RTC_TYPE_BINARY, &vr, 1, &b, 1),
                    RTC_EUNSUPPORTED);
    tfmu_end(&f);
}

/* Fault FMU: mode 1 Error, 2 Fatal, 3 terminate, each at t_fault = 1 s by default. */
static int run_fault(int v, int mode, tlog *log, long *steps, rtc_step_result *last)
{
    tfmu f;
    int rc = tfmu_instantiate(&f, v, "Fault", 10, log);
    if (rc == RTC_OK)
        rc = tfmu_set_i32(&f, "mode", mode);
    if (rc == RTC_OK)
        rc = f.unit->ops->enter_init(f.unit->self);
    if (rc == RTC_OK)
        rc = f.unit->ops->exit_init(f.unit->self);
    *steps = 0;
    while (rc == RTC_OK && *steps < 500) {
        rc = step(&f, *steps, 0.01, last);
        if (rc != RTC_OK || last->outcome != RTC_STEP_DONE)
            break;
        (*steps)++;
    }
    tfmu_end(&f);
    return rc;
}

static void fault_error_fatal_and_terminate_reported(void)
{
    for (int v = 2; v <= 3; v++) {
        tlog log;
        long n;
        rtc_step_result res;
        tlog_init(&log);
        CU_ASSERT_EQUAL(run_fault(v, 1, &log, &n, &res), RTC_EFMU);
        CU_ASSERT_EQUAL(n, 100); /* the step starting at t = 1 s fails */
        CU_ASSERT_TRUE(tlog_has(&log, "returned Error"));
        tlog_init(&log);
        CU_ASSERT_EQUAL(run_fault(v, 2, &log, &n, &res), RTC_EFATAL);
        CU_ASSERT_EQUAL(n, 100);
        CU_ASSERT_TRUE(tlog_has(&log, "returned Fatal"));
        tlog_init(&log);
        CU_ASSERT_EQUAL(run_fault(v, 3, &log, &n, &res), RTC_OK);
        CU_ASSERT_EQUAL(res.outcome, RTC_STEP_TERMINATE);
        CU_ASSERT_EQUAL(n, 100);
        CU_ASSERT_DOUBLE_EQUAL(res.last_time_s, 1.0, 0.0100001);
    }
}

/* The resource file is found through each version's resource location convention. */
static void fault_reads_resource_file(void)
{
    for (int v = 2; v <= 3; v++) {
        tlog log;
        tlog_init(&log);
        tfmu f;
        CU_ASSERT_EQUAL_FATAL(tfmu_start(&f, v, "Fault", 10, &log), RTC_OK);
        char path[1200];
        snprintf(path, sizeof path, "%s/resources/value.txt", rtc_fmu_dir(f.fmu));
        char *text = rtc_test_slurp(path, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        CU_ASSERT_DOUBLE_EQUAL(tfmu_get_f64(&f, "resource_value"), strtod(text, NULL), 0.0);
        free(text);
        tfmu_end(&f);
    }
}

static void state_restore_reproduces_step(void)
{
    for (int v = 2; v <= 3; v++) {
        tlog log;
        tlog_init(&log);
        tfmu f;
        CU_ASSERT_EQUAL_FATAL(tfmu_start(&f, v, "Mass1", 10, &log), RTC_OK);
        CU_ASSERT_TRUE(f.unit->caps & RTC_UNIT_CAN_GET_SET_STATE);
        rtc_step_result res;
        tfmu_set_f64(&f, "Fe", 0.5);
        CU_ASSERT_EQUAL(step(&f, 0, 0.1, &res), RTC_OK);
        void *s = NULL;
        CU_ASSERT_EQUAL_FATAL(f.unit->ops->get_state(f.unit->self, &s), RTC_OK);
        CU_ASSERT_EQUAL(step(&f, 1, 0.1, &res), RTC_OK);
        double x_a = tfmu_get_f64(&f, "x1");
        CU_ASSERT_EQUAL(f.unit->ops->set_state(f.unit->self, s), RTC_OK);
        CU_ASSERT_EQUAL(step(&f, 1, 0.1, &res), RTC_OK);
        CU_ASSERT_EQUAL(tfmu_get_f64(&f, "x1"), x_a);
        CU_ASSERT_EQUAL(f.unit->ops->free_state(f.unit->self, &s), RTC_OK);
        tfmu_end(&f);
    }
}

static void missing_symbol_named_in_error(void)
{
    for (int v = 2; v <= 3; v++) {
        tlog log;
        tlog_init(&log);
        tfmu f;
        CU_ASSERT_EQUAL(tfmu_instantiate(&f, v, "NoSymbol", 1, &log), RTC_ESYMBOL);
        CU_ASSERT_PTR_NULL(f.unit);
        CU_ASSERT_TRUE(tlog_has(&log, v == 2 ? "missing required function fmi2DoStep"
                                             : "missing required function fmi3DoStep"));
        CU_ASSERT_EQUAL(log.errors, 1);
        tfmu_end(&f);
    }
}

static void missing_binary_reported(void)
{
    for (int v = 2; v <= 3; v++) {
        tlog log;
        tlog_init(&log);
        tfmu f;
        CU_ASSERT_EQUAL(tfmu_instantiate(&f, v, "NoBinary", 1, &log), RTC_EUNSUPPORTED);
        CU_ASSERT_TRUE(tlog_has(&log, "no binary for this platform"));
        CU_ASSERT_TRUE(tlog_has(&log, v == 2 ? "binaries/linux64/NoBinary.so"
                                             : "binaries/x86_64-linux/NoBinary.so"));
        tfmu_end(&f);
    }
}

static void close_removes_extraction_directory(void)
{
    tlog log;
    tlog_init(&log);
    tfmu f;
    CU_ASSERT_EQUAL_FATAL(tfmu_start(&f, 2, "Decay", 1, &log), RTC_OK);
    char dir[1100];
    snprintf(dir, sizeof dir, "%s", rtc_fmu_dir(f.fmu));
    struct stat st;
    CU_ASSERT_EQUAL(stat(dir, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0700);
    tfmu_end(&f);
    CU_ASSERT_NOT_EQUAL(stat(dir, &st), 0);
}

static void missing_fmu_file_reported(void)
{
    tlog log;
    tlog_init(&log);
    rtc_fmu *fmu = NULL;
    CU_ASSERT_EQUAL(rtc_fmu_open("/nonexistent/x.fmu", NULL, &log.lg, &fmu), -ENOENT);
    CU_ASSERT_PTR_NULL(fmu);
    CU_ASSERT_TRUE(tlog_has(&log, "/nonexistent/x.fmu: cannot open"));
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"decay_fmi2_matches_exponential", decay_fmi2_matches_exponential},
        {"decay_fmi3_matches_exponential", decay_fmi3_matches_exponential},
        {"decay_parameter_set_before_init_changes_rate",
         decay_parameter_set_before_init_changes_rate},
        {"drifting_communication_point_rejected", drifting_communication_point_rejected},
        {"bouncing_ball_matches_ballistic_solution", bouncing_ball_matches_ballistic_solution},
        {"passthrough_fmi3_every_type_round_trips", passthrough_fmi3_every_type_round_trips},
        {"passthrough_fmi3_array_round_trips", passthrough_fmi3_array_round_trips},
        {"passthrough_fmi2_every_type_round_trips", passthrough_fmi2_every_type_round_trips},
        {"fault_error_fatal_and_terminate_reported", fault_error_fatal_and_terminate_reported},
        {"fault_reads_resource_file", fault_reads_resource_file},
        {"state_restore_reproduces_step", state_restore_reproduces_step},
        {"missing_symbol_named_in_error", missing_symbol_named_in_error},
        {"missing_binary_reported", missing_binary_reported},
        {"close_removes_extraction_directory", close_removes_extraction_directory},
        {"missing_fmu_file_reported", missing_fmu_file_reported},
        {NULL, NULL}};
    rtc_test_add_suite("fmu_host", NULL, NULL, cases);
}
