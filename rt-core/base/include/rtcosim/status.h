/*
 * rtcosim/status.h — status codes shared by every rtcosim library.
 *
 * RTC_OK is 0; every error is negative, in two ranges (the way libuv's UV_E* codes keep
 * errno):
 * - -1 .. -4095: a system error, -errno exactly as the failing call reported it. A function
 *   whose system call fails returns rtc_status_from_errno(errno) saved right after the
 *   call, so the reason travels with the status: rtc_strerror(-ENOENT) is "No such file or
 *   directory", and rtc_status_errno() gives the number back. RTC_EINVAL, RTC_ENOMEM and
 *   RTC_EIO are the three with names here: they equal -EINVAL, -ENOMEM and -EIO (also
 *   when the library itself detects the condition: a corrupt archive is RTC_EIO).
 * - RTC_E_OWN (-4096) and below: rtcosim's own conditions, which no errno describes.
 * Where an older header comment says RTC_EIO or RTC_ESYS for a file or system call that
 * failed (open, write, thread creation), the status is that call's -errno; test
 * rtc_status_errno(st) != 0 for "the operating system said why", never st == RTC_ESYS.
 * RTC_ESYS is left for an operating-system failure whose errno is unknown.
 *
 * The codes and their texts come from one X-macro table (RTC_STATUS_MAP) so
 * rtc_strerror() can never drift from the enum.
 */
#ifndef RTCOSIM_STATUS_H
#define RTCOSIM_STATUS_H

#include "rtcosim/rtsafe.h"

/** Status values above this one (and below 0) are -errno; own codes are at or below it. */
#define RTC_E_OWN (-4096)

/* X(name, value, text). EINVAL, ENOMEM, EIO and ETIMEDOUT are -errno on Linux (status.c
 * checks it). */
#define RTC_STATUS_MAP(X)                                                                          \
    X(OK, 0, "success")                                                                            \
    X(EINVAL, -22, "invalid argument")                                                             \
    X(ENOMEM, -12, "out of memory")                                                                \
    X(EIO, -5, "input/output error")                                                               \
    X(ETIMEDOUT, -110, "timed out: the peer did not answer in time")                              \
    X(EPARSE, RTC_E_OWN - 1, "malformed input")                                                    \
    X(ENOTFOUND, RTC_E_OWN - 2, "not found")                                                       \
    X(EUNSUPPORTED, RTC_E_OWN - 3, "not supported")                                                \
    X(ELIMIT, RTC_E_OWN - 4, "capacity or size limit exceeded")                                    \
    X(EUNSAFE, RTC_E_OWN - 5, "unsafe archive entry")                                              \
    X(ESYMBOL, RTC_E_OWN - 6, "missing FMI function")                                              \
    X(EFMU, RTC_E_OWN - 7, "FMU call failed")                                                      \
    X(EFATAL, RTC_E_OWN - 8, "FMU reported a fatal error")                                         \
    X(ETERMINATED, RTC_E_OWN - 9, "FMU requested termination")                                     \
    X(ESTATE, RTC_E_OWN - 10, "call not allowed in this state")                                    \
    X(ETIME, RTC_E_OWN - 11, "time value not representable")                                       \
    X(ESYS, RTC_E_OWN - 12, "operating-system call failed")                                        \
    X(ESTALE, RTC_E_OWN - 13, "input signal stale beyond its limit")

/** Status of every rtcosim call: RTC_OK (0), -errno, or a negative RTC_E* code. */
typedef enum {
#define RTC_STATUS_ENUM(name, value, text) RTC_##name = value,
    RTC_STATUS_MAP(RTC_STATUS_ENUM)
#undef RTC_STATUS_ENUM
} rtc_status;

/**
 * Text of a status code: the table's text for a named code ("malformed input"), the C
 * library's description of the errno for other system errors ("No such file or
 * directory"; English, whatever the locale).
 *
 * Returns: a static string; "unknown status" for values that are neither.
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE const char *rtc_strerror(int status);

/**
 * The status of a system call that failed with error number @p errnum (saved right after
 * the call): -errnum, or RTC_ESYS when @p errnum is not an error number (0: the call set
 * none). RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE static inline int rtc_status_from_errno(int errnum)
{
    return errnum > 0 && errnum < -RTC_E_OWN ? -errnum : RTC_ESYS;
}

/**
 * The error number a status carries: errno for a system error (RTC_EIO gives EIO,
 * RTC_ENOMEM ENOMEM), 0 for RTC_OK and rtcosim's own codes. RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE static inline int rtc_status_errno(int status)
{
    return status < 0 && status > RTC_E_OWN ? -status : 0;
}

#endif
