/*
 * The one number parser (rtcosim/numparse.h): integers with ranges and the hexadecimal
 * option, reals with the non-finite policy and correct rounding, exact seconds and
 * durations, and the same answers under a locale whose decimal point is a comma.
 */
#include "cu_main.h"

#include "rtcosim/model.h"
#include "rtcosim/numparse.h"
#include "rtcosim/ssp.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <float.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- integers ---- */

static void i64_whole_text_in_range_parsed(void)
{
    int64_t v = 0;
    CU_ASSERT_EQUAL(rtc_parse_i64("42", 0, 100, 0, &v), RTC_OK);
    CU_ASSERT_EQUAL(v, 42);
    CU_ASSERT_EQUAL(rtc_parse_i64(" -7\n", -10, 10, 0, &v), RTC_OK); /* XML white space */
    CU_ASSERT_EQUAL(v, -7);
    CU_ASSERT_EQUAL(rtc_parse_i64("+010", 0, 100, 0, &v), RTC_OK); /* no octal */
    CU_ASSERT_EQUAL(v, 10);
    CU_ASSERT_EQUAL(rtc_parse_i64("-9223372036854775808", INT64_MIN, INT64_MAX, 0, &v), RTC_OK);
    CU_ASSERT_EQUAL(v, INT64_MIN);
    CU_ASSERT_EQUAL(rtc_parse_i64("9223372036854775807", INT64_MIN, INT64_MAX, 0, &v), RTC_OK);
    CU_ASSERT_EQUAL(v, INT64_MAX);
    CU_ASSERT_EQUAL(rtc_parse_i64("0x1F", 0, 100, RTC_PARSE_HEX, &v), RTC_OK);
    CU_ASSERT_EQUAL(v, 31);
    CU_ASSERT_EQUAL(rtc_parse_i64("-0X10", -100, 100, RTC_PARSE_HEX, &v), RTC_OK);
    CU_ASSERT_EQUAL(v, -16);
}

static void i64_bad_text_or_range_refused_unchanged(void)
{
    int64_t v = 99;
    static const char *const junk[] = {"", " ", "10x", "1.5", "1e3", "--1", "+", "0x10", "1 2",
                                       "٣", "1,000"};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
        CU_ASSERT_EQUAL(rtc_parse_i64(junk[i], INT64_MIN, INT64_MAX, 0, &v), RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_parse_i64(NULL, 0, 1, 0, &v), RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_parse_i64("0x", 0, 1, RTC_PARSE_HEX, &v), RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_parse_i64("0xg", 0, 1, RTC_PARSE_HEX, &v), RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_parse_i64("101", 0, 100, 0, &v), RTC_ELIMIT);
    CU_ASSERT_EQUAL(rtc_parse_i64("-1", 0, 100, 0, &v), RTC_ELIMIT);
    CU_ASSERT_EQUAL(rtc_parse_i64("9223372036854775808", INT64_MIN, INT64_MAX, 0, &v),
                    RTC_ELIMIT);
    CU_ASSERT_EQUAL(rtc_parse_i64("-9223372036854775809", INT64_MIN, INT64_MAX, 0, &v),
                    RTC_ELIMIT);
    CU_ASSERT_EQUAL(rtc_parse_i64("99999999999999999999999", INT64_MIN, INT64_MAX, 0, &v),
                    RTC_ELIMIT);
    CU_ASSERT_EQUAL(v, 99);
}

static void u64_never_wraps_a_sign(void)
{
    uint64_t v = 5;
    CU_ASSERT_EQUAL(rtc_parse_u64("18446744073709551615", 0, UINT64_MAX, 0, &v), RTC_OK);
    CU_ASSERT_EQUAL(v, UINT64_MAX);
    CU_ASSERT_EQUAL(rtc_parse_u64("-0", 0, 10, 0, &v), RTC_OK); /* XML Schema allows it */
    CU_ASSERT_EQUAL(v, 0);
    v = 5;
    CU_ASSERT_EQUAL(rtc_parse_u64("-1", 0, UINT64_MAX, 0, &v), RTC_ELIMIT);
    CU_ASSERT_EQUAL(rtc_parse_u64("18446744073709551616", 0, UINT64_MAX, 0, &v), RTC_ELIMIT);
    CU_ASSERT_EQUAL(rtc_parse_u64("256", 0, UINT8_MAX, 0, &v), RTC_ELIMIT);
    CU_ASSERT_EQUAL(rtc_parse_u64("0", 1, 10, 0, &v), RTC_ELIMIT);
    CU_ASSERT_EQUAL(rtc_parse_u64("0xFF", 0, 255, 0, &v), RTC_EPARSE); /* hex not asked */
    CU_ASSERT_EQUAL(v, 5);
    CU_ASSERT_EQUAL(rtc_parse_u64("0xFF", 0, 255, RTC_PARSE_HEX, &v), RTC_OK);
    CU_ASSERT_EQUAL(v, 255);
}

/* ---- reals ---- */

static void f64_correctly_rounded_as_strtod_in_c_locale(void)
{
    /* strtod rounds correctly; the parser must give the same double for every decimal
     * form it accepts (the process is in the C locale: nothing calls setlocale) */
    static const char *const texts[] = {
        "0.1", "-2.5", ".5", "5.", "1e23", "9007199254740993", "2.2250738585072011e-308",
        "4.9e-324", "1.7976931348623157e308", "0.30000000000000004", "123456789012345678901234",
        "+1E-5", "0e999999999999"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        double v = NAN;
        CU_ASSERT_EQUAL(rtc_parse_f64(texts[i], -HUGE_VAL, HUGE_VAL, 0, &v), RTC_OK);
        CU_ASSERT_EQUAL(v, strtod(texts[i], NULL));
    }
    double v = 1;
    CU_ASSERT_EQUAL(rtc_parse_f64("1e-400", -1, 1, 0, &v), RTC_OK); /* nearest: zero */
    CU_ASSERT_EQUAL(v, 0.0);
    float f = 0;
    CU_ASSERT_EQUAL(rtc_parse_f32("0.1", 0, &f), RTC_OK);
    CU_ASSERT_EQUAL(f, 0.1f);
    CU_ASSERT_EQUAL(rtc_parse_f32("1e39", 0, &f), RTC_ELIMIT);
    CU_ASSERT_EQUAL(f, 0.1f);
}

static void f64_bad_text_nonfinite_or_range_refused_unchanged(void)
{
    double v = 7;
    static const char *const junk[] = {"", "1e", "1e+", ".", "-.", "0x1p3", "1.5.2", "1,5",
                                       "nan(1)", "infx", "1 2", "e5", "- 1"};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
        CU_ASSERT_EQUAL(rtc_parse_f64(junk[i], -HUGE_VAL, HUGE_VAL, RTC_PARSE_NONFINITE, &v),
                        RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_parse_f64("nan", -HUGE_VAL, HUGE_VAL, 0, &v), RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_parse_f64("inf", -HUGE_VAL, HUGE_VAL, 0, &v), RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_parse_f64("1e999", -HUGE_VAL, HUGE_VAL, RTC_PARSE_NONFINITE, &v),
                    RTC_ELIMIT);
    CU_ASSERT_EQUAL(rtc_parse_f64("1.5", 0, 1, 0, &v), RTC_ELIMIT);
    CU_ASSERT_EQUAL(rtc_parse_f64("INF", -HUGE_VAL, DBL_MAX, RTC_PARSE_NONFINITE, &v),
                    RTC_ELIMIT);
    CU_ASSERT_EQUAL(v, 7);
    CU_ASSERT_EQUAL(rtc_parse_f64(" -Infinity ", -HUGE_VAL, HUGE_VAL, RTC_PARSE_NONFINITE, &v),
                    RTC_OK);
    CU_ASSERT_TRUE(isinf(v) && v < 0);
    CU_ASSERT_EQUAL(rtc_parse_f64("NaN", 0, 1, RTC_PARSE_NONFINITE, &v), RTC_OK);
    CU_ASSERT_TRUE(isnan(v));
}

/* ---- times ---- */

static void seconds_exact_to_ns(void)
{
    static const struct {
        const char *text;
        int64_t ns;
    } cases[] = {{"0.001", 1000000}, {"1e-3", 1000000}, {"+2.5E+1", INT64_C(25000000000)},
                 {"-0.1", -100000000}, {"3e-6", 3000}, {"1.000000000000", RTC_NS_PER_S},
                 {"0", 0}, {" 0.1\t", 100000000}, {"0.000000001", 1},
                 {"9.223372036854775807e9", INT64_MAX}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t ns = -1;
        CU_ASSERT_EQUAL(rtc_parse_seconds(cases[i].text, &ns), RTC_OK);
        CU_ASSERT_EQUAL(ns, cases[i].ns);
    }
    int64_t ns = -1; /* the name embedders know */
    CU_ASSERT_EQUAL(rtc_time_parse_s("0.25", &ns), RTC_OK);
    CU_ASSERT_EQUAL(ns, 250000000);
}

static void seconds_subnanosecond_or_garbage_refused_unchanged(void)
{
    int64_t ns = 42;
    CU_ASSERT_EQUAL(rtc_parse_seconds("1e-10", &ns), RTC_ETIME);
    CU_ASSERT_EQUAL(rtc_parse_seconds("0.0000000001", &ns), RTC_ETIME);
    CU_ASSERT_EQUAL(rtc_parse_seconds("1e30", &ns), RTC_ETIME);
    CU_ASSERT_EQUAL(rtc_parse_seconds("9.223372036854775808e9", &ns), RTC_ETIME);
    CU_ASSERT_EQUAL(rtc_parse_seconds("abc", &ns), RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_parse_seconds("1.5s", &ns), RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_parse_seconds("", &ns), RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_parse_seconds("1e", &ns), RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_parse_seconds("0,5", &ns), RTC_EPARSE);
    CU_ASSERT_EQUAL(ns, 42);
}

static void duration_units_exact(void)
{
    static const struct {
        const char *text;
        int64_t ns;
    } cases[] = {{"20ms", 20000000}, {"500us", 500000}, {"1e6ns", 1000000},
                 {"0.02s", 20000000}, {"0.02", 20000000}, {"-3ms", -3000000},
                 {"1.5us", 1500}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t ns = -1;
        CU_ASSERT_EQUAL(rtc_parse_duration(cases[i].text, &ns), RTC_OK);
        CU_ASSERT_EQUAL(ns, cases[i].ns);
    }
    int64_t ns = 42;
    CU_ASSERT_EQUAL(rtc_parse_duration("20min", &ns), RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_parse_duration("20 ms", &ns), RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_parse_duration("ms", &ns), RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_parse_duration("1.5ns", &ns), RTC_ETIME); /* never rounded */
    CU_ASSERT_EQUAL(ns, 42);
}

/* ---- locale independence ---- */

RTC_TEST_WORKDIR_FIXTURE

static bool comma_point(locale_t loc)
{
    return loc && strcmp(nl_langinfo_l(RADIXCHAR, loc), ",") == 0;
}

/* A locale whose decimal point is ',': de_DE when installed, else compiled with localedef
 * into the suite's directory (no root needed: LOCPATH points there). NULL and the reason
 * in @p why when neither works. */
static locale_t comma_locale(char *why, size_t cap)
{
    static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "de_DE", "de_DE@euro"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        locale_t loc = newlocale(LC_NUMERIC_MASK, names[i], (locale_t)0);
        if (comma_point(loc))
            return loc;
        if (loc)
            freelocale(loc);
    }
    char cmd[1024], out[4096];
    snprintf(cmd, sizeof cmd, "localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8'", work);
    int st = rtc_test_run(cmd, out, sizeof out);
    setenv("LOCPATH", work, 1);
    locale_t loc = newlocale(LC_NUMERIC_MASK, "de_DE.UTF-8", (locale_t)0);
    unsetenv("LOCPATH");
    if (comma_point(loc))
        return loc;
    if (loc)
        freelocale(loc);
    snprintf(why, cap, "no de_DE locale installed and 'localedef -i de_DE' failed (status %d:"
             " %.200s)", st, out);
    return NULL;
}

/* The factor and offset of the linear transformation in the transforms fixture. */
static bool transform_of_fixture(double *factor, double *offset)
{
    rtc_ssp *s = NULL;
    if (rtc_ssp_load(RTC_TEST_DATA_DIR "/ssp/transforms/SystemStructure.ssd", NULL, &s))
        return false;
    bool found = false;
    for (size_t i = 0; i < s->n_connections; i++) {
        const rtc_ssp_transform *t = &s->connections[i].transform;
        if (t->kind == RTC_SSP_TRANSFORM_LINEAR) {
            *factor = t->factor;
            *offset = t->offset;
            found = true;
        }
    }
    rtc_ssp_free(s);
    return found;
}

static void comma_locale_changes_no_result(void)
{
    char why[512];
    locale_t loc = comma_locale(why, sizeof why);
    if (!loc) {
        rtc_test_skip("comma_locale_changes_no_result", why);
        return;
    }
    locale_t old = uselocale(loc);
    /* positive control: the C library's own strtod now stops at the '.' */
    CU_ASSERT_EQUAL(strtod("0.5", NULL), 0.0);
    CU_ASSERT_EQUAL(strtod("0,5", NULL), 0.5);
    double d = 0, factor = 0, offset = 0;
    float f = 0;
    int64_t ns = 0;
    rtc_value v = {0};
    CU_ASSERT_EQUAL(rtc_parse_f64("0.5", 0, 1, 0, &d), RTC_OK);
    CU_ASSERT_EQUAL(d, 0.5);
    CU_ASSERT_EQUAL(rtc_parse_f64("0,5", 0, 1, 0, &d), RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_parse_f64("-1.25e2", -HUGE_VAL, HUGE_VAL, 0, &d), RTC_OK);
    CU_ASSERT_EQUAL(d, -125.0);
    CU_ASSERT_EQUAL(rtc_parse_f32("0.1", 0, &f), RTC_OK);
    CU_ASSERT_EQUAL(f, 0.1f);
    CU_ASSERT_EQUAL(rtc_value_parse(RTC_TYPE_FLOAT64, "2.5", &v), RTC_OK);
    CU_ASSERT_EQUAL(v.f64, 2.5);
    CU_ASSERT_EQUAL(rtc_parse_duration("0.5ms", &ns), RTC_OK);
    CU_ASSERT_EQUAL(ns, 500000);
    /* a whole SSD read under the comma locale: its LinearTransformation "-2.5", "0.125" */
    CU_ASSERT_TRUE(transform_of_fixture(&factor, &offset));
    CU_ASSERT_EQUAL(factor, -2.5);
    CU_ASSERT_EQUAL(offset, 0.125);
    uselocale(old);
    freelocale(loc);
}

void rtc_test_register(void)
{
    static const rtc_test_case ints[] = {
        {"i64_whole_text_in_range_parsed", i64_whole_text_in_range_parsed},
        {"i64_bad_text_or_range_refused_unchanged", i64_bad_text_or_range_refused_unchanged},
        {"u64_never_wraps_a_sign", u64_never_wraps_a_sign},
        {NULL, NULL}};
    static const rtc_test_case reals[] = {
        {"f64_correctly_rounded_as_strtod_in_c_locale",
         f64_correctly_rounded_as_strtod_in_c_locale},
        {"f64_bad_text_nonfinite_or_range_refused_unchanged",
         f64_bad_text_nonfinite_or_range_refused_unchanged},
        {NULL, NULL}};
    static const rtc_test_case times[] = {
        {"seconds_exact_to_ns", seconds_exact_to_ns},
        {"seconds_subnanosecond_or_garbage_refused_unchanged",
         seconds_subnanosecond_or_garbage_refused_unchanged},
        {"duration_units_exact", duration_units_exact},
        {NULL, NULL}};
    static const rtc_test_case locale_cases[] = {
        {"comma_locale_changes_no_result", comma_locale_changes_no_result},
        {NULL, NULL}};
    rtc_test_add_suite("integers", NULL, NULL, ints);
    rtc_test_add_suite("reals", NULL, NULL, reals);
    rtc_test_add_suite("times", NULL, NULL, times);
    rtc_test_add_suite("locale", setup, teardown, locale_cases);
}
