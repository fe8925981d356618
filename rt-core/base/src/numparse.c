/*
 * The one number parser (rtcosim/numparse.h).
 *
 * DESIGN: every parser first scans the text with its own small grammar, so what is
 * accepted never depends on the locale or on the extras of the C library's strto*
 * (leading white space only, hexadecimal floats, "nan(chars)", octal, wrap-around of
 * unsigned values). Integers and exact times are then computed here with overflow checks.
 * Reals are converted by strtod_l in the C locale, but only over a span the scanner has
 * already accepted: correct rounding is the C library's job, the syntax is ours.
 *
 * Exact times: the mantissa digits are read as an integer and the decimal exponent is
 * applied by integer scaling, so "0.1" s is exactly 100000000 ns; anything that does not
 * land on a whole nanosecond is refused rather than rounded, because a rounded step size
 * silently changes every communication point of a run.
 */
#include "rtcosim/numparse.h"
#include "rtcosim/status.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Exponents beyond this are saturated: far outside every type, still in a long. */
#define EXP_SATURATE 100000L

/* ---- the scanner ---- */

/* White space of the C locale (space, \t \n \v \f \r), whatever the current locale. */
static bool is_space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int hex_value(char c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static const char *skip_space(const char *p)
{
    while (is_space(*p))
        p++;
    return p;
}

/* Only white space is left at @p p. */
static bool at_end(const char *p)
{
    return *skip_space(p) == '\0';
}

/* An optional sign at *p, consumed: true for '-'. */
static bool read_sign(const char **p)
{
    char c = **p;
    if (c == '+' || c == '-')
        (*p)++;
    return c == '-';
}

/* Digits of an unsigned integer at *p (hexadecimal after "0x" with RTC_PARSE_HEX) into
 * *mag; *overflow is set when they exceed 64 bits. Returns the number of digits. */
static int read_uint(const char **p, unsigned flags, uint64_t *mag, bool *overflow)
{
    unsigned base = 10;
    if ((flags & RTC_PARSE_HEX) && (*p)[0] == '0' && ((*p)[1] == 'x' || (*p)[1] == 'X')) {
        base = 16;
        *p += 2;
    }
    int n = 0;
    *mag = 0;
    for (;; (*p)++, n++) {
        int d = base == 16 ? hex_value(**p) : is_digit(**p) ? **p - '0' : -1;
        if (d < 0)
            break;
        if (__builtin_mul_overflow(*mag, base, mag) ||
            __builtin_add_overflow(*mag, (unsigned)d, mag))
            *overflow = true;
    }
    return n;
}

/* A decimal number as read: value = ±mant · 10^(exp10 − frac). */
typedef struct {
    bool neg;
    bool overflow; /* mant did not fit in an int64_t */
    int64_t mant;
    long frac;  /* digits after the point */
    long exp10; /* the exponent part, saturated at ±EXP_SATURATE */
} decimal;

/* [+-] (digits [. digits*] | . digits) [(e|E) [+-] digits] at *p, consumed. False (and *p
 * anywhere) when the mantissa has no digit or an exponent mark no digit after it. */
static bool read_decimal(const char **p, decimal *d)
{
    *d = (decimal){.neg = read_sign(p)};
    int digits = 0;
    bool point = false;
    for (;; (*p)++) {
        char c = **p;
        if (c == '.' && !point) {
            point = true;
            continue;
        }
        if (!is_digit(c))
            break;
        digits++;
        if (__builtin_mul_overflow(d->mant, 10, &d->mant) ||
            __builtin_add_overflow(d->mant, c - '0', &d->mant))
            d->overflow = true;
        d->frac += point;
    }
    if (digits == 0)
        return false;
    if (**p != 'e' && **p != 'E')
        return true;
    (*p)++;
    bool eneg = read_sign(p);
    if (!is_digit(**p))
        return false;
    for (; is_digit(**p); (*p)++)
        if (d->exp10 < EXP_SATURATE)
            d->exp10 = d->exp10 * 10 + (**p - '0');
    if (eneg)
        d->exp10 = -d->exp10;
    return true;
}

/* ---- integers ---- */

/* The whole of @p text as an optionally signed integer: its sign and magnitude. */
static int scan_int(const char *text, unsigned flags, bool *neg, uint64_t *mag)
{
    if (!text)
        return RTC_EPARSE;
    const char *p = skip_space(text);
    bool overflow = false;
    *neg = read_sign(&p);
    if (read_uint(&p, flags, mag, &overflow) == 0 || !at_end(p))
        return RTC_EPARSE;
    return overflow ? RTC_ELIMIT : RTC_OK;
}

int rtc_parse_i64(const char *text, int64_t lo, int64_t hi, unsigned flags, int64_t *out)
{
    bool neg;
    uint64_t mag;
    int rc = scan_int(text, flags, &neg, &mag);
    if (rc != RTC_OK)
        return rc;
    if (mag > (uint64_t)INT64_MAX + neg)
        return RTC_ELIMIT;
    /* -(mag - 1) - 1: INT64_MIN's magnitude does not fit in an int64_t */
    int64_t v = neg && mag ? -(int64_t)(mag - 1) - 1 : (int64_t)mag;
    if (v < lo || v > hi)
        return RTC_ELIMIT;
    *out = v;
    return RTC_OK;
}

int rtc_parse_u64(const char *text, uint64_t lo, uint64_t hi, unsigned flags, uint64_t *out)
{
    bool neg;
    uint64_t v;
    int rc = scan_int(text, flags, &neg, &v);
    if (rc != RTC_OK)
        return rc;
    if ((neg && v != 0) || v < lo || v > hi)
        return RTC_ELIMIT;
    *out = v;
    return RTC_OK;
}

/* ---- reals ---- */

/* Case-insensitive @p word (lower case) at *p, consumed. */
static bool read_word(const char **p, const char *word)
{
    size_t n = 0;
    for (; word[n]; n++) {
        char c = (*p)[n];
        if (c != word[n] && c != word[n] - 'a' + 'A')
            return false;
    }
    *p += n;
    return true;
}

enum { REAL_DECIMAL, REAL_INF, REAL_NAN };

/* Scan a real: *start is where the C library may convert it (sign included), *neg the
 * sign of an infinity. Returns REAL_* or RTC_EPARSE. */
static int scan_real(const char *text, unsigned flags, const char **start, bool *neg)
{
    if (!text)
        return RTC_EPARSE;
    const char *p = *start = skip_space(text);
    decimal d;
    const char *q = p;
    *neg = read_sign(&q);
    int kind = REAL_DECIMAL;
    if (read_word(&q, "infinity") || read_word(&q, "inf"))
        kind = REAL_INF;
    else if (read_word(&q, "nan"))
        kind = REAL_NAN;
    else if (!read_decimal(&p, &d))
        return RTC_EPARSE;
    if (kind != REAL_DECIMAL) {
        if (!(flags & RTC_PARSE_NONFINITE))
            return RTC_EPARSE;
        p = q;
    }
    return at_end(p) ? kind : RTC_EPARSE;
}

static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale;

/* glibc hands out its static C locale object here: no allocation, never freed. */
static void make_c_locale(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static locale_t the_c_locale(void)
{
    pthread_once(&c_locale_once, make_c_locale);
    return c_locale;
}

int rtc_parse_f64(const char *text, double lo, double hi, unsigned flags, double *out)
{
    const char *start;
    bool neg;
    int kind = scan_real(text, flags, &start, &neg);
    if (kind < 0)
        return kind;
    double v;
    if (kind == REAL_NAN) {
        *out = NAN;
        return RTC_OK;
    }
    if (kind == REAL_INF) {
        v = neg ? -HUGE_VAL : HUGE_VAL;
    } else {
        /* without a locale object (not on glibc) strtod reads the scanned span in the
         * C locale only when the process never called setlocale */
        locale_t c = the_c_locale();
        v = c ? strtod_l(start, NULL, c) : strtod(start, NULL);
        if (isinf(v))
            return RTC_ELIMIT; /* a finite text beyond DBL_MAX */
    }
    if (!(v >= lo && v <= hi))
        return RTC_ELIMIT;
    *out = v;
    return RTC_OK;
}

int rtc_parse_f32(const char *text, unsigned flags, float *out)
{
    const char *start;
    bool neg;
    int kind = scan_real(text, flags, &start, &neg);
    if (kind < 0)
        return kind;
    if (kind != REAL_DECIMAL) {
        *out = kind == REAL_NAN ? NAN : neg ? -HUGE_VALF : HUGE_VALF;
        return RTC_OK;
    }
    locale_t c = the_c_locale();
    float v = c ? strtof_l(start, NULL, c) : strtof(start, NULL);
    if (isinf(v))
        return RTC_ELIMIT;
    *out = v;
    return RTC_OK;
}

/* ---- exact times ---- */

/* ±mant · 10^(exp10 − frac + shift) as an exact int64_t. */
static int exact_ns(const decimal *d, int shift, int64_t *ns)
{
    if (d->overflow)
        return RTC_ETIME;
    int64_t m = d->mant;
    long e = d->exp10 - d->frac + shift;
    if (m == 0) {
        *ns = 0;
        return RTC_OK;
    }
    if (e > 19)
        return RTC_ETIME;
    for (; e > 0; e--)
        if (__builtin_mul_overflow(m, 10, &m))
            return RTC_ETIME;
    /* trailing zeros may cancel a negative exponent; any other digit is below 1 ns */
    for (; e < 0; e++) {
        if (m % 10 != 0)
            return RTC_ETIME;
        m /= 10;
    }
    *ns = d->neg ? -m : m;
    return RTC_OK;
}

int rtc_parse_seconds(const char *text, int64_t *ns)
{
    if (!text)
        return RTC_EPARSE;
    const char *p = skip_space(text);
    decimal d;
    if (!read_decimal(&p, &d) || !at_end(p))
        return RTC_EPARSE;
    return exact_ns(&d, 9, ns);
}

int rtc_parse_duration(const char *text, int64_t *ns)
{
    static const struct {
        char unit[3];
        int shift;
    } units[] = {{"ns", 0}, {"us", 3}, {"ms", 6}, {"s", 9}, {"", 9}};
    if (!text)
        return RTC_EPARSE;
    const char *p = skip_space(text);
    decimal d;
    if (!read_decimal(&p, &d))
        return RTC_EPARSE;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t n = strlen(units[i].unit);
        if (strncmp(p, units[i].unit, n) == 0 && at_end(p + n))
            return exact_ns(&d, units[i].shift, ns);
    }
    return RTC_EPARSE;
}

/* ---- binary values ---- */

int rtc_hex_decode(const char *text, uint8_t *buf, size_t cap, size_t *n)
{
    size_t len = 0;
    int hi = -1;
    for (const char *p = text; *p; p++) {
        if (is_space(*p))
            continue;
        int d = hex_value(*p);
        if (d < 0)
            return RTC_EPARSE;
        if (hi < 0) {
            hi = d;
            continue;
        }
        if (len >= cap)
            return RTC_ELIMIT;
        buf[len++] = (uint8_t)(hi << 4 | d);
        hi = -1;
    }
    if (hi >= 0)
        return RTC_EPARSE;
    *n = len;
    return RTC_OK;
}
