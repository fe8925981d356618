/*
 * fmi3_wrap_values.c — typed access of the generic FMI 3.0 wrapper (see fmi3_wrap.c):
 * fmi3Get and fmi3Set of every type, arrays flattened.
 */
#include "fmi3_wrap.h"

#include <string.h>

/*
 * Typed access. The model stores every FMI 3 type in its own C representation, so numeric
 * get/set is a validated memcpy of n elements per variable (arrays flattened in order).
 */
static fmi3Status get_values(fmi3Instance instance,
                             const char *fn,
                             unsigned mask,
                             const fmi3ValueReference vrs[],
                             size_t nvr,
                             void *values,
                             size_t nValues)
{
    GET_INST(instance);
    if ((nValues > 0 && !values) ||
        rtc__tm_check_access(in, fn, vrs, nvr, mask, nValues, false) != RTC_TM_OK)
        return fmi3Error;
    unsigned char *dst = values;
    for (size_t i = 0; i < nvr; i++) {
        const rtc_tm_var *v = rtc__tm_find(in->model, vrs[i]);
        size_t bytes = rtc__tm_elsize(v->type) * v->n;
        memcpy(dst, rtc__tm_ptr(in, v), bytes);
        dst += bytes;
    }
    return fmi3OK;
}

static fmi3Status set_values(fmi3Instance instance,
                             const char *fn,
                             unsigned mask,
                             const fmi3ValueReference vrs[],
                             size_t nvr,
                             const void *values,
                             size_t nValues)
{
    GET_INST(instance);
    if ((nValues > 0 && !values) ||
        rtc__tm_check_access(in, fn, vrs, nvr, mask, nValues, true) != RTC_TM_OK)
        return fmi3Error;
    const unsigned char *src = values;
    for (size_t i = 0; i < nvr; i++) {
        const rtc_tm_var *v = rtc__tm_find(in->model, vrs[i]);
        size_t bytes = rtc__tm_elsize(v->type) * v->n;
        memcpy(rtc__tm_ptr(in, v), src, bytes);
        src += bytes;
    }
    rtc__tm_after_set(in);
    return fmi3OK;
}

/* One getter and one setter per numeric type; the C types match the storage exactly. */
#define RTC_TM_GETSET(T, MASK)                                                                     \
    fmi3Status fmi3Get##T(fmi3Instance instance, const fmi3ValueReference valueReferences[],       \
                          size_t nValueReferences, fmi3##T values[], size_t nValues)               \
    {                                                                                              \
        return get_values(instance, "fmi3Get" #T, (MASK), valueReferences, nValueReferences,       \
                          values, nValues);                                                        \
    }                                                                                              \
    fmi3Status fmi3Set##T(fmi3Instance instance, const fmi3ValueReference valueReferences[],       \
                          size_t nValueReferences, const fmi3##T values[], size_t nValues)         \
    {                                                                                              \
        return set_values(instance, "fmi3Set" #T, (MASK), valueReferences, nValueReferences,       \
                          values, nValues);                                                        \
    }
RTC_TM_GETSET(Float32, 1u << RTC_TM_F32)
RTC_TM_GETSET(Float64, 1u << RTC_TM_F64)
RTC_TM_GETSET(Int8, 1u << RTC_TM_I8)
RTC_TM_GETSET(UInt8, 1u << RTC_TM_U8)
RTC_TM_GETSET(Int16, 1u << RTC_TM_I16)
RTC_TM_GETSET(UInt16, 1u << RTC_TM_U16)
RTC_TM_GETSET(Int32, 1u << RTC_TM_I32)
RTC_TM_GETSET(UInt32, 1u << RTC_TM_U32)
RTC_TM_GETSET(Int64, (1u << RTC_TM_I64) | (1u << RTC_TM_ENUM)) /* Enumerations too */
RTC_TM_GETSET(UInt64, 1u << RTC_TM_U64)
RTC_TM_GETSET(Boolean, 1u << RTC_TM_BOOL)
#undef RTC_TM_GETSET

fmi3Status fmi3GetString(fmi3Instance instance,
                         const fmi3ValueReference valueReferences[],
                         size_t nValueReferences,
                         fmi3String values[],
                         size_t nValues)
{
    GET_INST(instance);
    if ((nValues > 0 && !values) ||
        rtc__tm_check_access(in, "fmi3GetString", valueReferences, nValueReferences,
                             1u << RTC_TM_STR, nValues, false) != RTC_TM_OK)
        return fmi3Error;
    for (size_t i = 0; i < nValueReferences; i++) /* String variables are scalars here */
        values[i] = rtc__tm_ptr(in, rtc__tm_find(in->model, valueReferences[i]));
    return fmi3OK;
}

fmi3Status fmi3SetString(fmi3Instance instance,
                         const fmi3ValueReference valueReferences[],
                         size_t nValueReferences,
                         const fmi3String values[],
                         size_t nValues)
{
    static const char fn[] = "fmi3SetString";
    GET_INST(instance);
    if ((nValues > 0 && !values) ||
        rtc__tm_check_access(in, fn, valueReferences, nValueReferences, 1u << RTC_TM_STR, nValues,
                             true) != RTC_TM_OK)
        return fmi3Error;
    for (size_t i = 0; i < nValues; i++) {
        if (!values[i]) { /* checked before any copy, so a rejection changes nothing */
            rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: NULL string", fn);
            return fmi3Error;
        }
    }
    rtc_tm_status worst = RTC_TM_OK;
    for (size_t i = 0; i < nValueReferences; i++) {
        rtc_tm_status st =
            rtc__tm_set_str(in, rtc__tm_find(in->model, valueReferences[i]), values[i], fn);
        worst = st > worst ? st : worst;
    }
    rtc__tm_after_set(in);
    return (fmi3Status)worst;
}

fmi3Status fmi3GetBinary(fmi3Instance instance,
                         const fmi3ValueReference valueReferences[],
                         size_t nValueReferences,
                         size_t valueSizes[],
                         fmi3Binary values[],
                         size_t nValues)
{
    GET_INST(instance);
    if ((nValues > 0 && (!values || !valueSizes)) ||
        rtc__tm_check_access(in, "fmi3GetBinary", valueReferences, nValueReferences,
                             1u << RTC_TM_BIN, nValues, false) != RTC_TM_OK)
        return fmi3Error;
    for (size_t i = 0; i < nValueReferences; i++) {
        const rtc_tm_binary *b = rtc__tm_ptr(in, rtc__tm_find(in->model, valueReferences[i]));
        valueSizes[i] = b->size;
        values[i] = b->data;
    }
    return fmi3OK;
}

fmi3Status fmi3SetBinary(fmi3Instance instance,
                         const fmi3ValueReference valueReferences[],
                         size_t nValueReferences,
                         const size_t valueSizes[],
                         const fmi3Binary values[],
                         size_t nValues)
{
    static const char fn[] = "fmi3SetBinary";
    GET_INST(instance);
    if ((nValues > 0 && (!values || !valueSizes)) ||
        rtc__tm_check_access(in, fn, valueReferences, nValueReferences, 1u << RTC_TM_BIN, nValues,
                             true) != RTC_TM_OK)
        return fmi3Error;
    for (size_t i = 0; i < nValues; i++) {
        /* Binary is not truncated (that would corrupt it): too long is an error. */
        if (valueSizes[i] > RTC_TM_BIN_CAP || (valueSizes[i] > 0 && !values[i])) {
            rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                         "%s: value %zu has %zu bytes (capacity %d) or is NULL", fn, i,
                         valueSizes[i], RTC_TM_BIN_CAP);
            return fmi3Error;
        }
    }
    for (size_t i = 0; i < nValueReferences; i++) {
        rtc_tm_binary *b = rtc__tm_ptr(in, rtc__tm_find(in->model, valueReferences[i]));
        b->size = valueSizes[i];
        if (b->size)
            memcpy(b->data, values[i], b->size);
    }
    rtc__tm_after_set(in);
    return fmi3OK;
}
