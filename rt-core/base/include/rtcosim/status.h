/*
 * rtcosim/status.h — status codes shared by every rtcosim library.
 *
 * RTC_OK is 0; every error is negative. The codes and their texts come from one
 * X-macro table (RTC_STATUS_MAP) so rtc_strerror() can never drift from the enum.
 */
#ifndef RTCOSIM_STATUS_H
#define RTCOSIM_STATUS_H

#include "rtcosim/rtsafe.h"

/* X(name, value, text) */
#define RTC_STATUS_MAP(X)                                                                          \
    X(OK, 0, "success")                                                                            \
    X(EINVAL, -1, "invalid argument")                                                              \
    X(ENOMEM, -2, "out of memory")                                                                 \
    X(EIO, -3, "input/output error")                                                               \
    X(EPARSE, -4, "malformed input")                                                               \
    X(ENOTFOUND, -5, "not found")                                                                  \
    X(EUNSUPPORTED, -6, "not supported")                                                           \
    X(ELIMIT, -7, "capacity or size limit exceeded")                                               \
    X(EUNSAFE, -8, "unsafe archive entry")                                                         \
    X(ESYMBOL, -9, "missing FMI function")                                                         \
    X(EFMU, -10, "FMU call failed")                                                                \
    X(EFATAL, -11, "FMU reported a fatal error")                                                   \
    X(ETERMINATED, -12, "FMU requested termination")                                               \
    X(ESTATE, -13, "call not allowed in this state")                                               \
    X(ETIME, -14, "time value not representable")                                                  \
    X(ESYS, -15, "operating-system call failed")                                                   \
    X(ESTALE, -16, "input signal stale beyond its limit")

/** Status of every rtcosim call: RTC_OK (0) or a negative RTC_E* code. */
typedef enum {
#define RTC_STATUS_ENUM(name, value, text) RTC_##name = value,
    RTC_STATUS_MAP(RTC_STATUS_ENUM)
#undef RTC_STATUS_ENUM
} rtc_status;

/**
 * Text of a status code, e.g. "malformed input".
 *
 * Returns: a static string; "unknown status" for values outside the table.
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE const char *rtc_strerror(int status);

#endif
