/*
 * Passthrough — every FMI type in, the same value out. Outputs are the inputs of the same
 * instant: they are recomputed every time an input is set (direct feedthrough) and a step
 * changes nothing. Strings and binaries live in fixed buffers (common/model.h), so set
 * never allocates. FMI 2 sees the Real/Integer/Boolean/String/Enumeration subset under
 * the names Real_*, Integer_*, Boolean_*, String_*, Enumeration_* (same value references
 * as Float64_*, Int32_*, Boolean_*, String_*, Enumeration_*).
 */
#include "model.h"

#include <string.h>

typedef struct passthrough {
    double f64_in, f64_out;
    float f32_in, f32_out;
    int8_t i8_in, i8_out;
    uint8_t u8_in, u8_out;
    int16_t i16_in, i16_out;
    uint16_t u16_in, u16_out;
    int32_t i32_in, i32_out;
    uint32_t u32_in, u32_out;
    int64_t i64_in, i64_out;
    uint64_t u64_in, u64_out;
    bool bool_in, bool_out;
    char str_in[RTC_TM_STR_CAP], str_out[RTC_TM_STR_CAP];
    rtc_tm_binary bin_in, bin_out;
    int64_t enum_in, enum_out;
    double arr_in[3], arr_out[3];
} passthrough;

/* One table row for field f; PAIR makes the input row (vr) and its output row (vr + 1). */
#define PT(name, f, vr, type, caus, var, n)                                                        \
    {                                                                                              \
        name, (vr), (type), (caus), (var), offsetof(passthrough, f), (n)                           \
    }
#define PAIR(T, f, vr, type, var)                                                                  \
    PT(T "_input", f##_in, (vr), (type), RTC_TM_INPUT, (var), 1),                                  \
        PT(T "_output", f##_out, (vr) + 1, (type), RTC_TM_OUTPUT, (var), 1)

/* Names are the FMI 3 names; vr = index; input vr odd, its output vr + 1. */
static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    PAIR("Float64", f64, 1, RTC_TM_F64, RTC_TM_CONTINUOUS),
    PAIR("Float32", f32, 3, RTC_TM_F32, RTC_TM_CONTINUOUS),
    PAIR("Int8", i8, 5, RTC_TM_I8, RTC_TM_DISCRETE),
    PAIR("UInt8", u8, 7, RTC_TM_U8, RTC_TM_DISCRETE),
    PAIR("Int16", i16, 9, RTC_TM_I16, RTC_TM_DISCRETE),
    PAIR("UInt16", u16, 11, RTC_TM_U16, RTC_TM_DISCRETE),
    PAIR("Int32", i32, 13, RTC_TM_I32, RTC_TM_DISCRETE),
    PAIR("UInt32", u32, 15, RTC_TM_U32, RTC_TM_DISCRETE),
    PAIR("Int64", i64, 17, RTC_TM_I64, RTC_TM_DISCRETE),
    PAIR("UInt64", u64, 19, RTC_TM_U64, RTC_TM_DISCRETE),
    PAIR("Boolean", bool, 21, RTC_TM_BOOL, RTC_TM_DISCRETE),
    PAIR("String", str, 23, RTC_TM_STR, RTC_TM_DISCRETE),
    PAIR("Binary", bin, 25, RTC_TM_BIN, RTC_TM_DISCRETE),
    PAIR("Enumeration", enum, 27, RTC_TM_ENUM, RTC_TM_DISCRETE),
    PT("Float64_array_input", arr_in, 29, RTC_TM_F64, RTC_TM_INPUT, RTC_TM_CONTINUOUS, 3),
    PT("Float64_array_output", arr_out, 30, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS, 3),
};

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    passthrough *m = mv;
    (void)ctx, (void)resource_dir;
    /* Non-trivial starts, so a host that ignores start values is caught. */
    m->f64_in = 1.5;
    m->f32_in = 2.5f;
    m->i8_in = -3;
    m->u8_in = 200;
    m->i16_in = -1234;
    m->u16_in = 54321;
    m->i32_in = -123456;
    m->u32_in = 4000000000u;
    m->i64_in = -1234567890123LL;
    m->u64_in = UINT64_MAX;
    m->bool_in = true;
    strcpy(m->str_in, "hello");
    m->bin_in.size = 3;
    memcpy(m->bin_in.data, "\x01\x02\xff", 3);
    m->enum_in = 2;
    m->arr_in[0] = 1.5;
    m->arr_in[1] = 2.5;
    m->arr_in[2] = 3.5;
    return 0;
}

static void outputs(void *mv)
{
    passthrough *m = mv;
    m->f64_out = m->f64_in;
    m->f32_out = m->f32_in;
    m->i8_out = m->i8_in;
    m->u8_out = m->u8_in;
    m->i16_out = m->i16_in;
    m->u16_out = m->u16_in;
    m->i32_out = m->i32_in;
    m->u32_out = m->u32_in;
    m->i64_out = m->i64_in;
    m->u64_out = m->u64_in;
    m->bool_out = m->bool_in;
    memcpy(m->str_out, m->str_in, sizeof m->str_out);
    m->bin_out = m->bin_in;
    m->enum_out = m->enum_in;
    memcpy(m->arr_out, m->arr_in, sizeof m->arr_out);
}

static rtc_tm_status step(void *mv, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info)
{
    (void)mv, (void)ctx, (void)t, (void)h, (void)info;
    return RTC_TM_OK; /* outputs already equal the inputs; the wrapper calls outputs() */
}

const rtc_tm_model rtc_tm_model_def = {
    .name = "Passthrough",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000007}",
    .size = sizeof(passthrough),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .outputs = outputs,
    .step = step,
};
