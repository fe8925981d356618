/* Names and sizes for the plain-data model description (rtcosim/model.h). */
#include "rtcosim/model.h"
#include "rtcosim/numparse.h"
#include "rtcosim/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rtc_type_name(rtc_type type)
{
    static const char *const names[RTC_TYPE_COUNT] = {
        "Float64", "Float32", "Int8",   "UInt8",  "Int16",  "UInt16",      "Int32", "UInt32",
        "Int64",   "UInt64",  "Boolean", "String", "Binary", "Enumeration", "Clock",
    };
    return (unsigned)type < RTC_TYPE_COUNT ? names[type] : "?";
}

const char *rtc_causality_name(rtc_causality c)
{
    static const char *const names[] = {
        "parameter", "calculatedParameter", "input", "output",
        "local",     "independent",         "structuralParameter",
    };
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "?";
}

const char *rtc_variability_name(rtc_variability v)
{
    static const char *const names[] = {"constant", "fixed", "tunable", "discrete", "continuous"};
    return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : "?";
}

const char *rtc_initial_name(rtc_initial i)
{
    static const char *const names[] = {"", "exact", "approx", "calculated"};
    return (unsigned)i < sizeof names / sizeof names[0] ? names[i] : "?";
}

size_t rtc_type_size(rtc_type type)
{
    static const size_t sizes[RTC_TYPE_COUNT] = {
        sizeof(double),  sizeof(float),    sizeof(int8_t),       sizeof(uint8_t),
        sizeof(int16_t), sizeof(uint16_t), sizeof(int32_t),      sizeof(uint32_t),
        sizeof(int64_t), sizeof(uint64_t), sizeof(bool),         sizeof(const char *),
        sizeof(rtc_binary), sizeof(int64_t), sizeof(bool),
    };
    return (unsigned)type < RTC_TYPE_COUNT ? sizes[type] : 0;
}

size_t rtc_var_count(const rtc_var *v)
{
    size_t n = 1;
    for (size_t i = 0; i < v->n_dims; i++)
        n *= (size_t)v->dims[i].start;
    return n;
}

bool rtc_var_settable_at_init(const rtc_var *v)
{
    if (v->variability == RTC_VARIABILITY_CONSTANT || v->type == RTC_TYPE_CLOCK ||
        v->causality == RTC_CAUSALITY_STRUCTURAL_PARAMETER)
        return false;
    return v->causality == RTC_CAUSALITY_INPUT || v->initial == RTC_INITIAL_EXACT ||
           v->initial == RTC_INITIAL_APPROX;
}

long rtc_model_find_var(const rtc_model_desc *md, const char *name)
{
    for (size_t i = 0; i < md->n_vars; i++)
        if (strcmp(md->vars[i].name, name) == 0)
            return (long)i;
    for (size_t i = 0; i < md->n_aliases; i++)
        if (strcmp(md->aliases[i].name, name) == 0)
            return (long)md->aliases[i].var;
    return -1;
}

/* Inclusive ranges of the integer types, indexed by rtc_type (signed ones in i64). */
static bool int_range(rtc_type t, int64_t *lo, int64_t *hi, uint64_t *uhi)
{
    switch (t) {
    case RTC_TYPE_INT8: *lo = INT8_MIN, *hi = INT8_MAX; return true;
    case RTC_TYPE_INT16: *lo = INT16_MIN, *hi = INT16_MAX; return true;
    case RTC_TYPE_INT32: *lo = INT32_MIN, *hi = INT32_MAX; return true;
    case RTC_TYPE_INT64:
    case RTC_TYPE_ENUM: *lo = INT64_MIN, *hi = INT64_MAX; return true;
    case RTC_TYPE_UINT8: *uhi = UINT8_MAX; return false;
    case RTC_TYPE_UINT16: *uhi = UINT16_MAX; return false;
    case RTC_TYPE_UINT32: *uhi = UINT32_MAX; return false;
    default: *uhi = UINT64_MAX; return false;
    }
}

static int parse_int(rtc_type type, const char *text, rtc_value *out)
{
    int64_t lo = 0, hi = 0;
    uint64_t uhi = 0;
    if (int_range(type, &lo, &hi, &uhi))
        return rtc_parse_i64(text, lo, hi, 0, &out->i64);
    return rtc_parse_u64(text, 0, uhi, 0, &out->u64);
}

int rtc_value_parse(rtc_type type, const char *text, rtc_value *out)
{
    rtc_value v = {0};
    int rc = RTC_OK;
    switch (type) {
    case RTC_TYPE_FLOAT64:
        rc = rtc_parse_f64(text, -HUGE_VAL, HUGE_VAL, RTC_PARSE_NONFINITE, &v.f64);
        break;
    case RTC_TYPE_FLOAT32:
        rc = rtc_parse_f32(text, RTC_PARSE_NONFINITE, &v.f32);
        break;
    case RTC_TYPE_BOOL:
        if (!strcmp(text, "true") || !strcmp(text, "1"))
            v.b = true;
        else if (strcmp(text, "false") && strcmp(text, "0"))
            rc = RTC_EPARSE;
        break;
    case RTC_TYPE_STRING:
        v.str = text;
        break;
    case RTC_TYPE_BINARY:
    case RTC_TYPE_CLOCK:
    case RTC_TYPE_COUNT:
        return RTC_EUNSUPPORTED;
    default:
        rc = parse_int(type, text, &v);
        break;
    }
    if (rc == RTC_OK)
        *out = v;
    return rc;
}

void rtc_value_store(rtc_type type, const rtc_value *v, void *array, size_t i)
{
    switch (type) {
    case RTC_TYPE_FLOAT64: ((double *)array)[i] = v->f64; break;
    case RTC_TYPE_FLOAT32: ((float *)array)[i] = v->f32; break;
    case RTC_TYPE_INT8: ((int8_t *)array)[i] = (int8_t)v->i64; break;
    case RTC_TYPE_UINT8: ((uint8_t *)array)[i] = (uint8_t)v->u64; break;
    case RTC_TYPE_INT16: ((int16_t *)array)[i] = (int16_t)v->i64; break;
    case RTC_TYPE_UINT16: ((uint16_t *)array)[i] = (uint16_t)v->u64; break;
    case RTC_TYPE_INT32: ((int32_t *)array)[i] = (int32_t)v->i64; break;
    case RTC_TYPE_UINT32: ((uint32_t *)array)[i] = (uint32_t)v->u64; break;
    case RTC_TYPE_INT64:
    case RTC_TYPE_ENUM: ((int64_t *)array)[i] = v->i64; break;
    case RTC_TYPE_UINT64: ((uint64_t *)array)[i] = v->u64; break;
    case RTC_TYPE_BOOL:
    case RTC_TYPE_CLOCK: ((bool *)array)[i] = v->b; break;
    case RTC_TYPE_STRING: ((const char **)array)[i] = v->str; break;
    case RTC_TYPE_BINARY: ((rtc_binary *)array)[i] = v->bin; break;
    default: break;
    }
}

rtc_value rtc_value_load(rtc_type type, const void *array, size_t i)
{
    rtc_value v = {0};
    switch (type) {
    case RTC_TYPE_FLOAT64: v.f64 = ((const double *)array)[i]; break;
    case RTC_TYPE_FLOAT32: v.f32 = ((const float *)array)[i]; break;
    case RTC_TYPE_INT8: v.i64 = ((const int8_t *)array)[i]; break;
    case RTC_TYPE_UINT8: v.u64 = ((const uint8_t *)array)[i]; break;
    case RTC_TYPE_INT16: v.i64 = ((const int16_t *)array)[i]; break;
    case RTC_TYPE_UINT16: v.u64 = ((const uint16_t *)array)[i]; break;
    case RTC_TYPE_INT32: v.i64 = ((const int32_t *)array)[i]; break;
    case RTC_TYPE_UINT32: v.u64 = ((const uint32_t *)array)[i]; break;
    case RTC_TYPE_INT64:
    case RTC_TYPE_ENUM: v.i64 = ((const int64_t *)array)[i]; break;
    case RTC_TYPE_UINT64: v.u64 = ((const uint64_t *)array)[i]; break;
    case RTC_TYPE_BOOL:
    case RTC_TYPE_CLOCK: v.b = ((const bool *)array)[i]; break;
    case RTC_TYPE_STRING: v.str = ((const char *const *)array)[i]; break;
    case RTC_TYPE_BINARY: v.bin = ((const rtc_binary *)array)[i]; break;
    default: break;
    }
    return v;
}

double rtc_value_to_double(rtc_type t, rtc_value v)
{
    switch (t) {
    case RTC_TYPE_FLOAT64: return v.f64;
    case RTC_TYPE_FLOAT32: return v.f32;
    case RTC_TYPE_UINT8: case RTC_TYPE_UINT16: case RTC_TYPE_UINT32:
    case RTC_TYPE_UINT64: return (double)v.u64;
    case RTC_TYPE_BOOL: return v.b ? 1.0 : 0.0;
    case RTC_TYPE_STRING: case RTC_TYPE_BINARY: return 0.0;
    default: return (double)v.i64;
    }
}

rtc_value rtc_value_from_double(rtc_type t, double x)
{
    rtc_value v = {0};
    switch (t) {
    case RTC_TYPE_FLOAT64: v.f64 = x; break;
    case RTC_TYPE_FLOAT32: v.f32 = (float)x; break;
    case RTC_TYPE_BOOL: v.b = x != 0.0; break;
    case RTC_TYPE_UINT8: case RTC_TYPE_UINT16: case RTC_TYPE_UINT32: case RTC_TYPE_UINT64:
        x = nearbyint(x);
        v.u64 = x <= 0 ? 0 : x >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)x;
        break;
    default:
        x = nearbyint(x);
        v.i64 = x <= -9223372036854775808.0 ? INT64_MIN
                : x >= 9223372036854775807.0 ? INT64_MAX : (int64_t)x;
        break;
    }
    return v;
}

void rtc_value_copy_indirect(rtc_type type, const void *src, void *dst, size_t n, char *store,
                             size_t cap)
{
    for (size_t e = 0; e < n; e++) {
        char *copy = store + e * cap;
        if (type == RTC_TYPE_STRING) {
            const char *s = ((const char *const *)src)[e];
            size_t len = s ? strnlen(s, cap - 1) : 0;
            memcpy(copy, s ? s : "", len);
            copy[len] = '\0';
            ((const char **)dst)[e] = copy;
        } else {
            rtc_binary b = ((const rtc_binary *)src)[e];
            size_t len = b.size < cap ? b.size : cap;
            if (len)
                memcpy(copy, b.data, len);
            ((rtc_binary *)dst)[e] = (rtc_binary){(const uint8_t *)copy, len};
        }
    }
}

/* An enumeration value given by the name of an item of the variable's type. */
static bool enum_item(const rtc_model_desc *md, const rtc_var *v, const char *text, int64_t *out)
{
    for (size_t i = 0; v->declared_type && i < md->n_type_defs; i++) {
        const rtc_type_def *t = &md->type_defs[i];
        if (strcmp(t->name, v->declared_type) != 0)
            continue;
        for (size_t k = 0; k < t->n_items; k++) {
            if (!strcmp(t->items[k].name, text)) {
                *out = t->items[k].value;
                return true;
            }
        }
    }
    return false;
}

/* One element: a binary's bytes go to bin + *used. */
static int parse_element(const rtc_model_desc *md, const rtc_var *v, const char *tok,
                         rtc_value *val, uint8_t *bin, size_t bin_cap, size_t *used)
{
    if (v->type == RTC_TYPE_BINARY) {
        size_t len = 0;
        int rc = bin ? rtc_hex_decode(tok, bin + *used, bin_cap - *used, &len) : RTC_ELIMIT;
        val->bin = (rtc_binary){bin ? bin + *used : NULL, len};
        *used += rc == RTC_OK ? len : 0;
        return rc;
    }
    int rc = rtc_value_parse(v->type, tok, val);
    if (rc == RTC_EPARSE && v->type == RTC_TYPE_ENUM && enum_item(md, v, tok, &val->i64))
        rc = RTC_OK;
    return rc == RTC_ELIMIT ? RTC_ELIMIT : rc == RTC_OK ? RTC_OK : RTC_EPARSE;
}

int rtc_var_parse_text(const rtc_model_desc *md, const rtc_var *v, char *text, void *vals,
                       uint8_t *bin, size_t bin_cap, char *why, size_t why_cap)
{
    size_t count = rtc_var_count(v), n = 0, used = 0;
    bool whole = v->type == RTC_TYPE_STRING || count == 1; /* a string may hold spaces */
    char *save = NULL;
    char *tok = whole ? text : strtok_r(text, " \t", &save);
    for (; tok && n < count; n++) {
        rtc_value val;
        int rc = parse_element(md, v, tok, &val, bin, bin_cap, &used);
        if (rc != RTC_OK) {
            snprintf(why, why_cap, "\"%s\" is %s for a%s %s variable", tok,
                     rc == RTC_ELIMIT ? "out of range" : "not a valid value",
                     v->type == RTC_TYPE_INT8 || v->type == RTC_TYPE_INT16 ||
                             v->type == RTC_TYPE_INT32 || v->type == RTC_TYPE_INT64 ||
                             v->type == RTC_TYPE_ENUM ? "n" : "",
                     rtc_type_name(v->type));
            return rc;
        }
        rtc_value_store(v->type, &val, vals, n);
        tok = whole ? NULL : strtok_r(NULL, " \t", &save);
    }
    if (n != count || tok) {
        snprintf(why, why_cap, "expected %zu value(s)", count);
        return RTC_EPARSE;
    }
    return RTC_OK;
}
