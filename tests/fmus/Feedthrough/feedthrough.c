/*
 * Feedthrough (FMI 3.0 only) — the interface of the Modelica Reference FMU of that name
 * (same variable names, types, value references, causalities, variabilities, initial
 * attributes and start values), written here from that interface: every output is the
 * value of its input at the same instant, so a run's expected CSV follows from the inputs
 * alone. Exercises what importers got wrong on the real file: inputs with initial="exact"
 * (FMI 3.0's only value for inputs), integer inputs whose variability defaults to
 * discrete, a String parameter and a Binary input with <Start> elements, an Enumeration
 * with a declared type, fixed and tunable Float64 parameters.
 */
#include "model.h"

#include <string.h>

typedef struct feedthrough {
    float f32_ci, f32_co, f32_di, f32_do;
    double f64_fixed, f64_tunable, f64_ci, f64_co, f64_di, f64_do;
    int8_t i8_in, i8_out;
    uint8_t u8_in, u8_out;
    int16_t i16_in, i16_out;
    uint16_t u16_in, u16_out;
    int32_t i32_in, i32_out;
    uint32_t u32_in, u32_out;
    int64_t i64_in, i64_out;
    uint64_t u64_in, u64_out;
    bool bool_in, bool_out;
    char str_param[RTC_TM_STR_CAP];
    rtc_tm_binary bin_in, bin_out;
    int64_t enum_in, enum_out;
} feedthrough;

#define FT(name, f, vr, type, caus, var)                                                           \
    {                                                                                              \
        name, (vr), (type), (caus), (var), offsetof(feedthrough, f), 1                             \
    }
#define IN_OUT(T, f, vr, type, var)                                                                \
    FT(T "_input", f##_in, (vr), (type), RTC_TM_INPUT, (var)),                                     \
        FT(T "_output", f##_out, (vr) + 1, (type), RTC_TM_OUTPUT, (var))

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    FT("Float32_continuous_input", f32_ci, 1, RTC_TM_F32, RTC_TM_INPUT, RTC_TM_CONTINUOUS),
    FT("Float32_continuous_output", f32_co, 2, RTC_TM_F32, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    FT("Float32_discrete_input", f32_di, 3, RTC_TM_F32, RTC_TM_INPUT, RTC_TM_DISCRETE),
    FT("Float32_discrete_output", f32_do, 4, RTC_TM_F32, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    FT("Float64_fixed_parameter", f64_fixed, 5, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    FT("Float64_tunable_parameter", f64_tunable, 6, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_TUNABLE),
    FT("Float64_continuous_input", f64_ci, 7, RTC_TM_F64, RTC_TM_INPUT, RTC_TM_CONTINUOUS),
    FT("Float64_continuous_output", f64_co, 8, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    FT("Float64_discrete_input", f64_di, 9, RTC_TM_F64, RTC_TM_INPUT, RTC_TM_DISCRETE),
    FT("Float64_discrete_output", f64_do, 10, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    IN_OUT("Int8", i8, 11, RTC_TM_I8, RTC_TM_DISCRETE),
    IN_OUT("UInt8", u8, 13, RTC_TM_U8, RTC_TM_DISCRETE),
    IN_OUT("Int16", i16, 15, RTC_TM_I16, RTC_TM_DISCRETE),
    IN_OUT("UInt16", u16, 17, RTC_TM_U16, RTC_TM_DISCRETE),
    IN_OUT("Int32", i32, 19, RTC_TM_I32, RTC_TM_DISCRETE),
    IN_OUT("UInt32", u32, 21, RTC_TM_U32, RTC_TM_DISCRETE),
    IN_OUT("Int64", i64, 23, RTC_TM_I64, RTC_TM_DISCRETE),
    IN_OUT("UInt64", u64, 25, RTC_TM_U64, RTC_TM_DISCRETE),
    IN_OUT("Boolean", bool, 27, RTC_TM_BOOL, RTC_TM_DISCRETE),
    FT("String_parameter", str_param, 29, RTC_TM_STR, RTC_TM_PARAMETER, RTC_TM_FIXED),
    IN_OUT("Binary", bin, 30, RTC_TM_BIN, RTC_TM_DISCRETE),
    IN_OUT("Enumeration", enum, 32, RTC_TM_ENUM, RTC_TM_DISCRETE),
};

/* The start values of the modelDescription (all zero / false but these). */
static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    feedthrough *m = mv;
    (void)ctx, (void)resource_dir;
    strcpy(m->str_param, "Set me!");
    m->bin_in.size = 3;
    memcpy(m->bin_in.data, "foo", 3);
    m->enum_in = 1;
    return 0;
}

static void outputs(void *mv)
{
    feedthrough *m = mv;
    m->f32_co = m->f32_ci;
    m->f32_do = m->f32_di;
    m->f64_co = m->f64_ci;
    m->f64_do = m->f64_di;
    m->i8_out = m->i8_in;
    m->u8_out = m->u8_in;
    m->i16_out = m->i16_in;
    m->u16_out = m->u16_in;
    m->i32_out = m->i32_in;
    m->u32_out = m->u32_in;
    m->i64_out = m->i64_in;
    m->u64_out = m->u64_in;
    m->bool_out = m->bool_in;
    m->bin_out = m->bin_in;
    m->enum_out = m->enum_in;
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    (void)ctx, (void)t0;
    outputs(mv);
    return 0;
}

static rtc_tm_status step(void *mv, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info)
{
    (void)ctx, (void)t, (void)h, (void)info;
    outputs(mv);
    return RTC_TM_OK;
}

const rtc_tm_model rtc_tm_model_def = {
    .name = "Feedthrough",
    .token = "{8c4e810f-3df3-4a00-8276-176fa3c9f004}",
    .size = sizeof(feedthrough),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .outputs = outputs,
    .step = step,
    .me = &(const rtc_tm_me){.nx = 0}, /* no states, no events: outputs follow the inputs */
};
