/*
 * rtcosim/osc_args.h — read OSC message arguments safely.
 *
 * liblo hands each argument as a pointer into the packet (a `lo_arg *`), which OSC aligns
 * to 4 bytes only: reading an 8-byte h or d argument through the lo_arg union would be a
 * misaligned access (undefined behaviour; UBSan reports it). These readers copy the bytes
 * out. They take the argument as `const void *` and the type as the OSC type tag
 * character ('i', 'h', 'f', 'd' — the values of liblo's LO_INT32, LO_INT64, LO_FLOAT,
 * LO_DOUBLE), so this public header needs no liblo header: a `lo_arg *` converts
 * implicitly. Header-only, so the tools that link liblo without the driver library can
 * use it too.
 */
#ifndef RTCOSIM_OSC_ARGS_H
#define RTCOSIM_OSC_ARGS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rtcosim/rtsafe.h"

/** The 8-byte double at @p a (an OSC 'd' argument). RT-safe: yes. */
RTC_RT_SAFE static inline double rtc_osc_f64(const void *a)
{
    double v;
    memcpy(&v, a, sizeof v);
    return v;
}

/** The float at @p a (an OSC 'f' argument). RT-safe: yes. */
RTC_RT_SAFE static inline float rtc_osc_f32(const void *a)
{
    float v;
    memcpy(&v, a, sizeof v);
    return v;
}

/** The 8-byte integer at @p a (an OSC 'h' argument). RT-safe: yes. */
RTC_RT_SAFE static inline int64_t rtc_osc_i64(const void *a)
{
    int64_t v;
    memcpy(&v, a, sizeof v);
    return v;
}

/** The 4-byte integer at @p a (an OSC 'i' argument). RT-safe: yes. */
RTC_RT_SAFE static inline int32_t rtc_osc_i32(const void *a)
{
    int32_t v;
    memcpy(&v, a, sizeof v);
    return v;
}

/** A numeric argument (type tag i, h, f or d) as a double; false for any other type. The
 *  value may be NaN or infinite: callers decide whether that is acceptable. RT-safe: yes. */
RTC_RT_SAFE static inline bool rtc_osc_number(char type, const void *a, double *v)
{
    switch (type) {
    case 'i': *v = rtc_osc_i32(a); return true;
    case 'h': *v = (double)rtc_osc_i64(a); return true;
    case 'f': *v = rtc_osc_f32(a); return true;
    case 'd': *v = rtc_osc_f64(a); return true;
    default: return false;
    }
}

#endif
