/*
 * Exact conversion between decimal seconds and integer nanoseconds.
 *
 * The parser reads the mantissa digits as an integer and applies the decimal exponent by
 * integer scaling, so "0.1" is exactly 100000000 ns; anything that does not land on a whole
 * nanosecond is refused rather than rounded, because a rounded step size silently changes
 * every communication point of a run.
 */
#include "rtcosim/time.h"
#include "rtcosim/numfmt.h"
#include "rtcosim/status.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Multiply *v by 10^e (e >= 0) with overflow detection. */
static bool scale_up(int64_t *v, int e)
{
    while (e-- > 0) {
        if (__builtin_mul_overflow(*v, 10, v))
            return false;
    }
    return true;
}

/* Read digits [0-9]* with an optional '.', accumulating up to 30 significant digits.
 * Returns the number of digits read; *frac counts digits after the point. */
static int read_mantissa(const char **p, int64_t *mant, int *frac, bool *overflow)
{
    int digits = 0;
    bool point = false;
    *mant = 0;
    *frac = 0;
    for (;; (*p)++) {
        char c = **p;
        if (c == '.' && !point) {
            point = true;
            continue;
        }
        if (!isdigit((unsigned char)c))
            break;
        digits++;
        if (__builtin_mul_overflow(*mant, 10, mant) ||
            __builtin_add_overflow(*mant, c - '0', mant))
            *overflow = true;
        if (point)
            (*frac)++;
    }
    return digits;
}

int rtc_time_parse_s(const char *text, int64_t *ns)
{
    const char *p = text;
    if (!p)
        return RTC_EPARSE;
    while (isspace((unsigned char)*p))
        p++;
    bool neg = false;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    int64_t mant;
    int frac;
    bool overflow = false;
    if (read_mantissa(&p, &mant, &frac, &overflow) == 0)
        return RTC_EPARSE;
    long exp10 = 0;
    if (*p == 'e' || *p == 'E') {
        char *end;
        exp10 = strtol(p + 1, &end, 10);
        if (end == p + 1)
            return RTC_EPARSE;
        p = end;
    }
    while (isspace((unsigned char)*p))
        p++;
    if (*p != '\0')
        return RTC_EPARSE;
    if (overflow)
        return RTC_ETIME;
    /* value = mant · 10^(exp10 − frac) s = mant · 10^(exp10 − frac + 9) ns */
    long e = exp10 - frac + 9;
    if (mant == 0) {
        *ns = 0;
        return RTC_OK;
    }
    if (e >= 0) {
        if (e > 19 || !scale_up(&mant, (int)e))
            return RTC_ETIME;
    } else {
        /* Trailing zeros may cancel a negative exponent; anything else is sub-ns. */
        for (; e < 0; e++) {
            if (mant % 10 != 0)
                return RTC_ETIME;
            mant /= 10;
        }
    }
    *ns = neg ? -mant : mant;
    return RTC_OK;
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
    /* Whole seconds with rtc_fmt_u64, then the nine fraction digits written at once and
     * trimmed: this runs once per result row, so no per-digit loop on the fraction. */
    char tmp[32];
    size_t n = 0;
    uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    uint32_t frac = (uint32_t)(u % 1000000000u);
    if (ns < 0)
        tmp[n++] = '-';
    n += rtc_fmt_u64(u / 1000000000u, tmp + n);
    if (frac) {
        tmp[n++] = '.';
        tmp[n] = (char)('0' + frac / 100000000u);
        rtc_fmt_u64_fixed8(frac % 100000000u, tmp + n + 1);
        size_t nf = 9;
        while (tmp[n + nf - 1] == '0')
            nf--;
        n += nf;
    }
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
