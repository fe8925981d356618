/*
 * Fast %.17g-style formatting.
 *
 * Method: with E = floor(log10|v|), the 17 significant digits are N = round(|v|·10^(16−E)),
 * an integer below 10^17 < 2^57. The product is computed in x87 long double (64-bit
 * mantissa) from correctly rounded powers of ten and rounded half-to-even like printf; it is
 * off from the exact product by less than ~0.02 units of the last digit. When its
 * fractional part is within 0.03 of one half (about 1 value in 150, exact ties included)
 * the rounding direction is uncertain and the value goes to snprintf; otherwise the digits
 * equal glibc's exactly. Integer digit generation then avoids any libc call.
 */
#include "rtcosim/numfmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char digit_pairs[201] = "00010203040506070809"
                                     "10111213141516171819"
                                     "20212223242526272829"
                                     "30313233343536373839"
                                     "40414243444546474849"
                                     "50515253545556575859"
                                     "60616263646566676869"
                                     "70717273747576777879"
                                     "80818283848586878889"
                                     "90919293949596979899";

/* Write the decimal digits of u right-aligned ending at end; return the start. */
static char *u64_digits(uint64_t u, char *end)
{
    while (u >= 100) {
        unsigned r = (unsigned)(u % 100);
        u /= 100;
        end -= 2;
        memcpy(end, digit_pairs + 2 * r, 2);
    }
    if (u >= 10) {
        end -= 2;
        memcpy(end, digit_pairs + 2 * u, 2);
    } else {
        *--end = (char)('0' + u);
    }
    return end;
}

size_t rtc_fmt_u64(uint64_t v, char *buf)
{
    char tmp[24];
    char *s = u64_digits(v, tmp + sizeof tmp);
    size_t n = (size_t)(tmp + sizeof tmp - s);
    memcpy(buf, s, n);
    buf[n] = '\0';
    return n;
}

size_t rtc_fmt_i64(int64_t v, char *buf)
{
    if (v >= 0)
        return rtc_fmt_u64((uint64_t)v, buf);
    buf[0] = '-';
    return 1 + rtc_fmt_u64((uint64_t)0 - (uint64_t)v, buf + 1);
}

/* 10^e as the correctly rounded long double, for |e| <= 360: an exact 10^(e mod 32)
 * times a literal 10^(32·q) (both correctly rounded by the compiler). */
static long double pow10l_approx(int e)
{
    static const long double small[32] = {
        1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,  1e10L,
        1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L,
        1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L, 1e28L, 1e29L, 1e30L, 1e31L,
    };
    static const long double big[12] = {
        1e0L,   1e32L,  1e64L,  1e96L,  1e128L, 1e160L,
        1e192L, 1e224L, 1e256L, 1e288L, 1e320L, 1e352L,
    };
    static const long double big_neg[13] = {
        1e0L,    1e-32L,  1e-64L,  1e-96L,  1e-128L, 1e-160L, 1e-192L,
        1e-224L, 1e-256L, 1e-288L, 1e-320L, 1e-352L, 1e-384L,
    };
    if (e >= 0)
        return small[e % 32] * big[e / 32];
    int q = (-e + 31) / 32; /* 10^e = 10^(32q + e) · 10^(−32q), with 0 <= 32q + e < 32 */
    return small[32 * q + e] * big_neg[q];
}

/* 17 significant digits of a positive finite v: returns N in [10^16, 10^17) and sets *e10
 * so that v ≈ N · 10^(*e10 − 16). Returns 0 when the scaled value lies so close to a
 * rounding tie that the long double error could pick the wrong neighbour. */
static uint64_t digits17(double v, int *e10)
{
    int e2;
    frexp(v, &e2);
    /* log10(2) ≈ 0.30103: an estimate of floor(log10 v), corrected below. */
    int e = (int)floor((e2 - 1) * 0.30102999566398119521);
    for (;;) {
        long double scaled = (long double)v * pow10l_approx(16 - e);
        uint64_t n = (uint64_t)llrintl(scaled);
        long double tie = scaled - floorl(scaled) - 0.5L;
        if (tie > -0.03L && tie < 0.03L)
            return 0; /* near tie: let the caller use the exact printf path */
        if (n >= UINT64_C(100000000000000000)) {
            e++;
            continue;
        }
        if (n < UINT64_C(10000000000000000)) {
            e--;
            continue;
        }
        *e10 = e;
        return n;
    }
}

size_t rtc_fmt_double(double v, char *buf)
{
    char *p = buf;
    if (isnan(v)) {
        memcpy(buf, "nan", 4);
        return 3;
    }
    if (signbit(v)) {
        *p++ = '-';
        v = -v;
    }
    if (isinf(v)) {
        memcpy(p, "inf", 4);
        return (size_t)(p - buf) + 3;
    }
    if (v == 0) {
        *p++ = '0';
        *p = '\0';
        return (size_t)(p - buf);
    }
    int e;
    uint64_t n = digits17(v, &e);
    if (n == 0) /* about 1 value in 150: exact but slower */
        return (size_t)(p - buf) + (size_t)snprintf(p, RTC_NUMFMT_MAX - 1, "%.17g", v);
    char d[17];
    u64_digits(n, d + 17);
    int nd = 17;
    while (nd > 1 && d[nd - 1] == '0')
        nd--;
    if (e < -4 || e >= 17) {
        /* d.ddde±XX */
        *p++ = d[0];
        if (nd > 1) {
            *p++ = '.';
            memcpy(p, d + 1, (size_t)nd - 1);
            p += nd - 1;
        }
        *p++ = 'e';
        *p++ = e < 0 ? '-' : '+';
        int ae = e < 0 ? -e : e;
        if (ae >= 100)
            *p++ = (char)('0' + ae / 100);
        *p++ = (char)('0' + ae / 10 % 10);
        *p++ = (char)('0' + ae % 10);
    } else if (e < 0) {
        /* 0.000ddd */
        *p++ = '0';
        *p++ = '.';
        for (int i = -1; i > e; i--)
            *p++ = '0';
        memcpy(p, d, (size_t)nd);
        p += nd;
    } else {
        /* ddd.ddd with e+1 integer digits */
        int ni = e + 1;
        for (int i = 0; i < ni; i++)
            *p++ = i < nd ? d[i] : '0';
        if (nd > ni) {
            *p++ = '.';
            memcpy(p, d + ni, (size_t)(nd - ni));
            p += nd - ni;
        }
    }
    *p = '\0';
    return (size_t)(p - buf);
}
