/*
 * Fast %.17g-style formatting.
 *
 * Method: with E = floor(log10|v|), the 17 significant digits are N = round(|v|·10^(16−E)),
 * an integer below 10^17 < 2^57. The product is formed exactly enough in integers: v's
 * 53-bit significand times a 128-bit power of ten from a generated table
 * (pow10_table.h, scripts/dev/gen-pow10-table). Its error is far below the last digit, so
 * the rounding is decided from the product's fraction; only a fraction within that error
 * of one half is settled by an exact 128-bit comparison, half to even like printf. The
 * digits therefore equal glibc's %.17g; magnitudes outside the table go to snprintf.
 */
#include "rtcosim/numfmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/* 10^k as the nearest double, k = -323..309, for the decimal exponent estimate. */
static const double pow10_tab[] = {1e-323, 1e-322, 1e-321, 1e-320, 1e-319, 1e-318, 1e-317, 1e-316, 1e-315, 1e-314, 1e-313, 1e-312, 1e-311, 1e-310, 1e-309, 1e-308, 1e-307, 1e-306, 1e-305, 1e-304, 1e-303, 1e-302, 1e-301, 1e-300, 1e-299, 1e-298, 1e-297, 1e-296, 1e-295, 1e-294, 1e-293, 1e-292, 1e-291, 1e-290, 1e-289, 1e-288, 1e-287, 1e-286, 1e-285, 1e-284, 1e-283, 1e-282, 1e-281, 1e-280, 1e-279, 1e-278, 1e-277, 1e-276, 1e-275, 1e-274, 1e-273, 1e-272, 1e-271, 1e-270, 1e-269, 1e-268, 1e-267, 1e-266, 1e-265, 1e-264, 1e-263, 1e-262, 1e-261, 1e-260, 1e-259, 1e-258, 1e-257, 1e-256, 1e-255, 1e-254, 1e-253, 1e-252, 1e-251, 1e-250, 1e-249, 1e-248, 1e-247, 1e-246, 1e-245, 1e-244, 1e-243, 1e-242, 1e-241, 1e-240, 1e-239, 1e-238, 1e-237, 1e-236, 1e-235, 1e-234, 1e-233, 1e-232, 1e-231, 1e-230, 1e-229, 1e-228, 1e-227, 1e-226, 1e-225, 1e-224, 1e-223, 1e-222, 1e-221, 1e-220, 1e-219, 1e-218, 1e-217, 1e-216, 1e-215, 1e-214, 1e-213, 1e-212, 1e-211, 1e-210, 1e-209, 1e-208, 1e-207, 1e-206, 1e-205, 1e-204, 1e-203, 1e-202, 1e-201, 1e-200, 1e-199, 1e-198, 1e-197, 1e-196, 1e-195, 1e-194, 1e-193, 1e-192, 1e-191, 1e-190, 1e-189, 1e-188, 1e-187, 1e-186, 1e-185, 1e-184, 1e-183, 1e-182, 1e-181, 1e-180, 1e-179, 1e-178, 1e-177, 1e-176, 1e-175, 1e-174, 1e-173, 1e-172, 1e-171, 1e-170, 1e-169, 1e-168, 1e-167, 1e-166, 1e-165, 1e-164, 1e-163, 1e-162, 1e-161, 1e-160, 1e-159, 1e-158, 1e-157, 1e-156, 1e-155, 1e-154, 1e-153, 1e-152, 1e-151, 1e-150, 1e-149, 1e-148, 1e-147, 1e-146, 1e-145, 1e-144, 1e-143, 1e-142, 1e-141, 1e-140, 1e-139, 1e-138, 1e-137, 1e-136, 1e-135, 1e-134, 1e-133, 1e-132, 1e-131, 1e-130, 1e-129, 1e-128, 1e-127, 1e-126, 1e-125, 1e-124, 1e-123, 1e-122, 1e-121, 1e-120, 1e-119, 1e-118, 1e-117, 1e-116, 1e-115, 1e-114, 1e-113, 1e-112, 1e-111, 1e-110, 1e-109, 1e-108, 1e-107, 1e-106, 1e-105, 1e-104, 1e-103, 1e-102, 1e-101, 1e-100, 1e-99, 1e-98, 1e-97, 1e-96, 1e-95, 1e-94, 1e-93, 1e-92, 1e-91, 1e-90, 1e-89, 1e-88, 1e-87, 1e-86, 1e-85, 1e-84, 1e-83, 1e-82, 1e-81, 1e-80, 1e-79, 1e-78, 1e-77, 1e-76, 1e-75, 1e-74, 1e-73, 1e-72, 1e-71, 1e-70, 1e-69, 1e-68, 1e-67, 1e-66, 1e-65, 1e-64, 1e-63, 1e-62, 1e-61, 1e-60, 1e-59, 1e-58, 1e-57, 1e-56, 1e-55, 1e-54, 1e-53, 1e-52, 1e-51, 1e-50, 1e-49, 1e-48, 1e-47, 1e-46, 1e-45, 1e-44, 1e-43, 1e-42, 1e-41, 1e-40, 1e-39, 1e-38, 1e-37, 1e-36, 1e-35, 1e-34, 1e-33, 1e-32, 1e-31, 1e-30, 1e-29, 1e-28, 1e-27, 1e-26, 1e-25, 1e-24, 1e-23, 1e-22, 1e-21, 1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31, 1e32, 1e33, 1e34, 1e35, 1e36, 1e37, 1e38, 1e39, 1e40, 1e41, 1e42, 1e43, 1e44, 1e45, 1e46, 1e47, 1e48, 1e49, 1e50, 1e51, 1e52, 1e53, 1e54, 1e55, 1e56, 1e57, 1e58, 1e59, 1e60, 1e61, 1e62, 1e63, 1e64, 1e65, 1e66, 1e67, 1e68, 1e69, 1e70, 1e71, 1e72, 1e73, 1e74, 1e75, 1e76, 1e77, 1e78, 1e79, 1e80, 1e81, 1e82, 1e83, 1e84, 1e85, 1e86, 1e87, 1e88, 1e89, 1e90, 1e91, 1e92, 1e93, 1e94, 1e95, 1e96, 1e97, 1e98, 1e99, 1e100, 1e101, 1e102, 1e103, 1e104, 1e105, 1e106, 1e107, 1e108, 1e109, 1e110, 1e111, 1e112, 1e113, 1e114, 1e115, 1e116, 1e117, 1e118, 1e119, 1e120, 1e121, 1e122, 1e123, 1e124, 1e125, 1e126, 1e127, 1e128, 1e129, 1e130, 1e131, 1e132, 1e133, 1e134, 1e135, 1e136, 1e137, 1e138, 1e139, 1e140, 1e141, 1e142, 1e143, 1e144, 1e145, 1e146, 1e147, 1e148, 1e149, 1e150, 1e151, 1e152, 1e153, 1e154, 1e155, 1e156, 1e157, 1e158, 1e159, 1e160, 1e161, 1e162, 1e163, 1e164, 1e165, 1e166, 1e167, 1e168, 1e169, 1e170, 1e171, 1e172, 1e173, 1e174, 1e175, 1e176, 1e177, 1e178, 1e179, 1e180, 1e181, 1e182, 1e183, 1e184, 1e185, 1e186, 1e187, 1e188, 1e189, 1e190, 1e191, 1e192, 1e193, 1e194, 1e195, 1e196, 1e197, 1e198, 1e199, 1e200, 1e201, 1e202, 1e203, 1e204, 1e205, 1e206, 1e207, 1e208, 1e209, 1e210, 1e211, 1e212, 1e213, 1e214, 1e215, 1e216, 1e217, 1e218, 1e219, 1e220, 1e221, 1e222, 1e223, 1e224, 1e225, 1e226, 1e227, 1e228, 1e229, 1e230, 1e231, 1e232, 1e233, 1e234, 1e235, 1e236, 1e237, 1e238, 1e239, 1e240, 1e241, 1e242, 1e243, 1e244, 1e245, 1e246, 1e247, 1e248, 1e249, 1e250, 1e251, 1e252, 1e253, 1e254, 1e255, 1e256, 1e257, 1e258, 1e259, 1e260, 1e261, 1e262, 1e263, 1e264, 1e265, 1e266, 1e267, 1e268, 1e269, 1e270, 1e271, 1e272, 1e273, 1e274, 1e275, 1e276, 1e277, 1e278, 1e279, 1e280, 1e281, 1e282, 1e283, 1e284, 1e285, 1e286, 1e287, 1e288, 1e289, 1e290, 1e291, 1e292, 1e293, 1e294, 1e295, 1e296, 1e297, 1e298, 1e299, 1e300, 1e301, 1e302, 1e303, 1e304, 1e305, 1e306, 1e307, 1e308};

/* floor(log10 v) for a positive finite v: an estimate from the binary exponent, corrected
 * by one comparison with the power of ten (a near-miss is caught by digits17's checks). */
static int decimal_exponent(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int e2 = (int)((bits >> 52) & 0x7ff);
    e2 = e2 ? e2 - 1023 : -1074 + 63 - __builtin_clzll(bits & ((UINT64_C(1) << 52) - 1));
    int e = (e2 * 78913) >> 18; /* floor(e2 · log10 2) for |e2| < 1650, no libm call */
    if (e + 1 <= 308 && v >= pow10_tab[e + 1 + 323])
        e++;
    return e;
}

/* Exactly: is v·10^p above (1), below (-1) or on (0) the midpoint n + 1/2? With
 * v = m·2^q this compares m·10^p·2^(q+1) with 2n+1 in 128-bit integers; returns 2 when
 * the operands do not fit (very large or small magnitudes). */
static int midpoint_side(double v, int p, uint64_t n)
{
    int q;
    uint64_t m = (uint64_t)ldexp(frexp(v, &q), 53);
    q -= 53 - 1; /* v = m·2^(q−1): fold the factor 2 of the midpoint into q */
    unsigned __int128 a = m, b = 2 * (unsigned __int128)n + 1;
    for (int i = 0; i < p; i++) {
        if (a > ~(unsigned __int128)0 / 10)
            return 2;
        a *= 10;
    }
    for (int i = 0; i < -p; i++) {
        if (b > ~(unsigned __int128)0 / 10)
            return 2;
        b *= 10;
    }
    /* now compare a·2^q with b */
    int bits_a = 128 - (a >> 64 ? __builtin_clzll((uint64_t)(a >> 64)) : 64 + __builtin_clzll((uint64_t)a));
    int bits_b = 128 - (b >> 64 ? __builtin_clzll((uint64_t)(b >> 64)) : 64 + __builtin_clzll((uint64_t)b));
    if (q >= 0) {
        if (bits_a + q > 127)
            return 2;
        a <<= q;
    } else {
        if (bits_b - q > 127)
            return 2;
        b <<= -q;
    }
    return a > b ? 1 : a < b ? -1 : 0;
}

#include "pow10_table.h"

/* 17 significant digits of a positive finite v: returns N in [10^16, 10^17) and sets *e10
 * so that v ≈ N · 10^(*e10 − 16); 0 when the value is outside the table or its rounding
 * cannot be decided (the caller then uses snprintf).
 *
 * v = m·2^q and 10^p = T·2^E with a 128-bit T rounded down, so v·10^p = (m·T)·2^(q+E):
 * the 181-bit product, shifted right by s = −(q+E) bits, is N and its fraction. T is low
 * by less than one unit, so the product is low by less than m < 2^53 units of its last
 * bit: a fraction within 2^54 of one half is checked exactly (midpoint_side). */
static uint64_t digits17(double v, int *e10)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int be = (int)((bits >> 52) & 0x7ff);
    uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
    int q = be ? be - 1075 : -1074;
    m |= be ? UINT64_C(1) << 52 : 0;
    int e = decimal_exponent(v);
    for (int tries = 0; tries < 3; tries++) {
        int p = 16 - e;
        if (p < POW10_MIN || p > POW10_MAX)
            return 0;
        const struct pow10_entry *t = &pow10_table[p - POW10_MIN];
        unsigned __int128 lo = (unsigned __int128)m * t->lo, hi = (unsigned __int128)m * t->hi;
        unsigned __int128 mid = (lo >> 64) + (uint64_t)hi;
        uint64_t p0 = (uint64_t)lo, p1 = (uint64_t)mid;
        uint64_t p2 = (uint64_t)(hi >> 64) + (uint64_t)(mid >> 64);
        int s = -(q + t->e);
        if (s <= 64 || s >= 128)
            return 0;
        /* N = (p2:p1) >> (s − 64); fraction F = low s bits; half H = 2^(s−1) */
        int sh = s - 64;
        unsigned __int128 top = ((unsigned __int128)p2 << 64) | p1;
        uint64_t n = (uint64_t)(top >> sh);
        unsigned __int128 f = ((unsigned __int128)(p1 & ((UINT64_C(1) << sh) - 1)) << 64) | p0;
        unsigned __int128 h = (unsigned __int128)1 << (s - 1);
        unsigned __int128 slack = (unsigned __int128)1 << 54;
        if (f + slack >= h && f <= h + slack) {
            int side = midpoint_side(v, p, n);
            if (side == 2)
                return 0;
            n += side > 0 || (side == 0 && (n & 1));
        } else {
            n += f > h;
        }
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
    return 0;
}

/* The 8 decimal digits of x < 10^8 as 8 bytes of values 0..9, the first digit in the
 * lowest byte (memory order on little-endian machines), computed for all lanes at once
 * (SWAR): two 4-digit halves in 32-bit lanes, each split into two pairs in 16-bit lanes,
 * each pair into two digits in 8-bit lanes. Each division is a multiplication by a
 * reciprocal, exact over the lane's range (x·10486 >> 20 = x/100 below 10^4, x·103 >> 10
 * = x/10 below 100) and too small to carry into the next lane. */
static inline uint64_t digits8(uint32_t x)
{
    uint64_t v = x / 10000 | (uint64_t)(x % 10000) << 32;
    uint64_t h = (v * 10486) >> 20 & 0x0000007F0000007Fu;
    v = h | (v - 100 * h) << 16;
    uint64_t t = (v * 103) >> 10 & 0x000F000F000F000Fu;
    return t | (v - 10 * t) << 8;
}

#define ASCII_ZEROS 0x3030303030303030u

/* Store the 8 digits of x < 10^8 as text at p (no terminator); returns how many of them
 * are trailing zeros (8 when x is 0). */
static inline int put_digits8(uint32_t x, char *p)
{
    uint64_t d = digits8(x), text = d + ASCII_ZEROS;
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    text = __builtin_bswap64(text);
#endif
    memcpy(p, &text, 8);
    return d ? __builtin_clzll(d) / 8 : 8; /* zero digits at the end: the high zero bytes */
}

/* The 17 digits of n in [10^16, 10^17) at d; returns their count without trailing zeros. */
static int write17(uint64_t n, char *d)
{
    uint64_t a = n / 100000000; /* the first 9 digits */
    uint32_t a0 = (uint32_t)(a / 100000000);
    d[0] = (char)('0' + a0);
    int z1 = put_digits8((uint32_t)(a % 100000000), d + 1);
    int z2 = put_digits8((uint32_t)(n % 100000000), d + 9);
    return z2 < 8 ? 17 - z2 : 9 - z1;
}

size_t rtc_fmt_time_ns(int64_t ns, char *buf)
{
    char *p = buf;
    uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    uint64_t s = u / 1000000000u;
    uint32_t frac = (uint32_t)(u - s * 1000000000u);
    if (ns < 0)
        *p++ = '-';
    if (s < 10) { /* the usual few seconds: no call */
        *p++ = (char)('0' + s);
    } else if (s < 100) {
        memcpy(p, digit_pairs + 2 * s, 2);
        p += 2;
    } else {
        p += rtc_fmt_u64(s, p);
    }
    if (frac) {
        /* nine digits written at once, the trailing zeros then cut off */
        p[0] = '.';
        p[1] = (char)('0' + frac / 100000000u);
        p += 10 - put_digits8(frac % 100000000u, p + 2);
    }
    *p = '\0';
    return (size_t)(p - buf);
}

size_t rtc_fmt_double(double v, char *buf)
{
    char *p = buf;
    if (isnan(v)) {
        memcpy(buf, "nan", 4);
        return 3;
    }
    if (v == 0) { /* -0 too: zero is printed without a sign */
        memcpy(buf, "0", 2);
        return 1;
    }
    if (signbit(v)) {
        *p++ = '-';
        v = -v;
    }
    if (isinf(v)) {
        memcpy(p, "inf", 4);
        return (size_t)(p - buf) + 3;
    }
    int e;
    uint64_t n = digits17(v, &e);
    if (n == 0) /* extreme magnitudes near a tie: exact but slower */
        return (size_t)(p - buf) + (size_t)snprintf(p, RTC_NUMFMT_MAX - 1, "%.17g", v);
    /* The layouts copy fixed sizes (8, 16 or 17 bytes, beyond the digits used) rather
     * than loop or call memcpy per length: every store stays below buf + 26. */
    char d[24];
    int nd = write17(n, d);
    memset(d + 17, '0', 7); /* read, never shown */
    if (e < -4 || e >= 17) {
        /* d.ddde±XX */
        *p++ = d[0];
        if (nd > 1) {
            *p++ = '.';
            memcpy(p, d + 1, 16);
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
        /* 0.000ddd: "0." and -e-1 zeros */
        memcpy(p, "0.000", 5);
        p += 1 - e;
        memcpy(p, d, 17);
        p += nd;
    } else {
        /* ddd.ddd with e+1 integer digits (d holds the zeros an integer may end with) */
        int ni = e + 1, nf = nd - ni;
        memcpy(p, d, 17);
        p += ni;
        if (nf > 0) {
            *p = '.';
            memcpy(p + 1, d + ni, 8);
            if (nf > 8)
                memcpy(p + 9, d + ni + 8, 8);
            p += 1 + nf;
        }
    }
    *p = '\0';
    return (size_t)(p - buf);
}

/* Shortest round trip: the correctly rounded N-digit text is the N-digit decimal closest
 * to v, so if any N-digit decimal reads back to v, this one does; the first N that reads
 * back is therefore the fewest digits possible. Whole numbers below 10^16 stay in fixed
 * notation: 100 needs one digit, but reads "100", not "1e+02" (as Python's repr). At
 * most 17 (9 for a float) tries: these serve text people read, not the result files. */
static size_t fmt_short(double v, int max_digits, bool as_float, char *buf)
{
    if (!isfinite(v) || v == 0)
        return rtc_fmt_double(v, buf);
    int digits = 1;
    for (; digits < max_digits; digits++) {
        snprintf(buf, RTC_NUMFMT_MAX, "%.*g", digits, v);
        if (as_float ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
            break;
    }
    int e = decimal_exponent(fabs(v));
    if (e >= digits && e < 16)
        digits = e + 1; /* whole numbers below 10^16 in fixed notation */
    return (size_t)snprintf(buf, RTC_NUMFMT_MAX, "%.*g", digits, v);
}

size_t rtc_fmt_double_short(double v, char *buf)
{
    return fmt_short(v, 17, false, buf);
}

size_t rtc_fmt_float_short(float v, char *buf)
{
    return fmt_short(v, 9, true, buf);
}
