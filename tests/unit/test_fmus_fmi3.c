/*
 * test_fmus, FMI 3 part: the staged FMI 3 test FMU binaries driven through the raw FMI 3
 * functions (see test_fmus.c; registered there as the suite fmi3).
 */
#include "cu_main.h"
#include "fmi_raw_util.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    CU_ASSERT(log_has("eventModeUsed = true but the model has no Event Mode"));
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

const rtc_test_case fmi3_cases[] = {
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
