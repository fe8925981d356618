/*
 * rtcosim/osc_args.h — read liblo message arguments safely.
 *
 * liblo hands each argument as a pointer into the packet, which OSC aligns to 4 bytes
 * only: reading an 8-byte h or d argument through the lo_arg union would be a misaligned
 * access (undefined behaviour; UBSan reports it). These readers copy the bytes out.
 * Header-only, so the tools that link liblo without the driver library can use it too.
 */
#ifndef RTCOSIM_OSC_ARGS_H
#define RTCOSIM_OSC_ARGS_H

#include <lo/lo.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline double rtc_osc_f64(const lo_arg *a)
{
    double v;
    memcpy(&v, (const void *)a, sizeof v);
    return v;
}

static inline float rtc_osc_f32(const lo_arg *a)
{
    float v;
    memcpy(&v, (const void *)a, sizeof v);
    return v;
}

static inline int64_t rtc_osc_i64(const lo_arg *a)
{
    int64_t v;
    memcpy(&v, (const void *)a, sizeof v);
    return v;
}

static inline int32_t rtc_osc_i32(const lo_arg *a)
{
    int32_t v;
    memcpy(&v, (const void *)a, sizeof v);
    return v;
}

/** A numeric argument (type i, h, f or d) as a double; false for any other type. The
 *  value may be NaN or infinite: callers decide whether that is acceptable. */
static inline bool rtc_osc_number(char type, const lo_arg *a, double *v)
{
    switch (type) {
    case LO_INT32: *v = rtc_osc_i32(a); return true;
    case LO_INT64: *v = (double)rtc_osc_i64(a); return true;
    case LO_FLOAT: *v = rtc_osc_f32(a); return true;
    case LO_DOUBLE: *v = rtc_osc_f64(a); return true;
    default: return false;
    }
}

#endif
