/*
 * Logical time as integer nanoseconds, and the one monotonic clock and sleep.
 *
 * Decimal seconds are read by rtc_parse_seconds() (numparse.c, the one number parser);
 * formatting writes the exact decimal text of a nanosecond count.
 */
#include "rtcosim/time.h"
#include "rtcosim/numfmt.h"
#include "rtcosim/numparse.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

int rtc_time_parse_s(const char *text, int64_t *ns)
{
    return rtc_parse_seconds(text, ns);
}

int rtc_time_from_s(double s, int64_t *ns)
{
    double v = nearbyint(s * 1e9);
    if (!(v > -9.2e18 && v < 9.2e18))
        return RTC_ETIME;
    *ns = (int64_t)v;
    return RTC_OK;
}

size_t rtc_time_format_s(int64_t ns, char *buf, size_t cap)
{
    if (cap >= RTC_NUMFMT_MAX)
        return rtc_fmt_time_ns(ns, buf);
    char tmp[RTC_NUMFMT_MAX];
    size_t n = rtc_fmt_time_ns(ns, tmp);
    if (cap == 0)
        return 0;
    size_t w = n < cap - 1 ? n : cap - 1;
    memcpy(buf, tmp, w);
    buf[w] = '\0';
    return w;
}

int64_t rtc_time_gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int64_t rtc_time_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* vDSO: no system call */
    return (int64_t)ts.tv_sec * RTC_NS_PER_S + ts.tv_nsec;
}

int rtc_time_sleep_until_ns(int64_t deadline_ns)
{
    if (deadline_ns < 0)
        return EINVAL;
    struct timespec ts = {.tv_sec = deadline_ns / RTC_NS_PER_S,
                          .tv_nsec = deadline_ns % RTC_NS_PER_S};
    /* clock_nanosleep returns the error number (errno is untouched); EINTR: a signal
     * handler ran, the deadline is still ahead, sleep again to it */
    int e;
    while ((e = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
        ;
    return e;
}
