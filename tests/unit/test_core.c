/* Unit tests of rt-core's foundation modules: status, log, time, numfmt, csv. */
#include "cu_main.h"

#include "rtcosim/csv.h"
#include "rtcosim/log.h"
#include "rtcosim/model.h"
#include "rtcosim/numfmt.h"
#include "rtcosim/numparse.h"
#include "rtcosim/ofile.h"
#include "rtcosim/rt.h"
#include "rtcosim/sha256.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- status / log ---- */

static void strerror_known_and_unknown_codes_have_text(void)
{
    CU_ASSERT_STRING_EQUAL(rtc_strerror(RTC_OK), "success");
    CU_ASSERT_STRING_EQUAL(rtc_strerror(RTC_EPARSE), "malformed input");
    CU_ASSERT_STRING_EQUAL(rtc_strerror(12345), "unknown status");
    CU_ASSERT_STRING_EQUAL(rtc_strerror(RTC_E_OWN - 1000), "unknown status");
    /* system errors are -errno: the C library's text, the number kept */
    CU_ASSERT_STRING_EQUAL(rtc_strerror(-ENOENT), "No such file or directory");
    CU_ASSERT_STRING_EQUAL(rtc_strerror(RTC_EIO), "input/output error");
    CU_ASSERT_EQUAL(rtc_status_from_errno(ENOSPC), -ENOSPC);
    CU_ASSERT_EQUAL(rtc_status_errno(rtc_status_from_errno(ENOSPC)), ENOSPC);
    CU_ASSERT_EQUAL(rtc_status_from_errno(0), RTC_ESYS);
    CU_ASSERT_EQUAL(rtc_status_errno(RTC_ESYS), 0);
    CU_ASSERT_EQUAL(rtc_status_errno(RTC_EPARSE), 0);
    CU_ASSERT_EQUAL(rtc_status_errno(RTC_ENOMEM), ENOMEM);
    CU_ASSERT_EQUAL(rtc_status_errno(RTC_ETIMEDOUT), ETIMEDOUT);
    CU_ASSERT_EQUAL(rtc_status_errno(RTC_OK), 0);
    /* every named code has its own text; the own codes lie outside the errno range */
#define CHECK_CODE(name, value, text)                                                              \
    CU_ASSERT_STRING_EQUAL(rtc_strerror(RTC_##name), text);                                        \
    CU_ASSERT_TRUE(RTC_##name == RTC_OK || RTC_##name == RTC_EINVAL ||                             \
                   RTC_##name == RTC_ENOMEM || RTC_##name == RTC_EIO ||                            \
                   RTC_##name == RTC_ETIMEDOUT || rtc_status_errno(RTC_##name) == 0);
    RTC_STATUS_MAP(CHECK_CODE)
#undef CHECK_CODE
}

typedef struct {
    int calls;
    int level;
    char msg[600];
} capture;

static void capture_log(void *user, int level, const char *msg)
{
    capture *c = user;
    c->calls++;
    c->level = level;
    snprintf(c->msg, sizeof c->msg, "%s", msg);
}

static int evaluated;
static int side_effect(void)
{
    return ++evaluated;
}

static void log_below_threshold_not_evaluated(void)
{
    capture c = {0};
    rtc_logger lg = {.log = capture_log, .user = &c, .max_level = RTC_LOG_WARNING};
    evaluated = 0;
    rtc_log(&lg, RTC_LOG_DEBUG, "x=%d", side_effect());
    CU_ASSERT_EQUAL(c.calls, 0);
    CU_ASSERT_EQUAL(evaluated, 0);
    rtc_log(&lg, RTC_LOG_ERROR, "x=%d\n", side_effect());
    CU_ASSERT_EQUAL(c.calls, 1);
    CU_ASSERT_EQUAL(evaluated, 1);
    CU_ASSERT_STRING_EQUAL(c.msg, "x=1"); /* trailing newline dropped */
    rtc_log((const rtc_logger *)NULL, RTC_LOG_ERROR, "dropped");
}

static void log_long_message_truncated(void)
{
    capture c = {0};
    rtc_logger lg = {.log = capture_log, .user = &c, .max_level = RTC_LOG_DEBUG};
    char big[2000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    rtc_log(&lg, RTC_LOG_INFO, "%s", big);
    CU_ASSERT_EQUAL(c.calls, 1);
    CU_ASSERT_TRUE(strlen(c.msg) > 100 && strlen(c.msg) < sizeof big - 1);
}

/* ---- time ---- */

static void time_multiples_avoid_float_trap(void)
{
    /* 12 × 3 µs by float summation is not 36 µs; by integer k·h it is. */
    double sum = 0;
    for (int i = 0; i < 12; i++)
        sum += 3e-6;
    CU_ASSERT_NOT_EQUAL(sum, 36e-6);
    int64_t h;
    CU_ASSERT_EQUAL(rtc_parse_seconds("3e-6", &h), RTC_OK);
    CU_ASSERT_EQUAL(rtc_time_to_s(12 * h), 36e-6);
    /* 0.1 added 3 times is 0.30000000000000004; 3·100 ms converts to the double 0.3. */
    CU_ASSERT_EQUAL(rtc_time_to_s(3 * 100000000), 0.3);
}

static void time_format_exact_decimal(void)
{
    char b[40];
    CU_ASSERT_EQUAL(rtc_time_format_s(300000000, b, sizeof b), 3);
    CU_ASSERT_STRING_EQUAL(b, "0.3");
    rtc_time_format_s(12 * RTC_NS_PER_S, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "12");
    rtc_time_format_s(-1000, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "-0.000001");
    rtc_time_format_s(0, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "0");
    rtc_time_format_s(INT64_MAX, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "9223372036.854775807");
    CU_ASSERT_EQUAL(rtc_time_gcd(2000, 3000), 1000);
    CU_ASSERT_EQUAL(rtc_time_gcd(0, 7), 7);
}

static void sdtime_orders_microsteps_within_an_instant(void)
{
    rtc_sdtime a = {1000, 0}, b = {1000, 1}, c = {1001, 0}, d = {1000, 1};
    CU_ASSERT(rtc_sdtime_cmp(a, b) < 0);
    CU_ASSERT(rtc_sdtime_cmp(b, c) < 0); /* any microstep comes before a later instant */
    CU_ASSERT(rtc_sdtime_cmp(c, a) > 0);
    CU_ASSERT_EQUAL(rtc_sdtime_cmp(b, d), 0);
    rtc_sdtime big = {999, UINT32_MAX};
    CU_ASSERT(rtc_sdtime_cmp(big, a) < 0);
}

/* ---- numfmt ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void fmt_double_round_trips_and_matches_printf(void)
{
    char ours[RTC_NUMFMT_MAX], ref[64];
    unsigned differ = 0, n = 0;
    for (int i = 0; i < 300000; i++) {
        double v;
        uint64_t bits = rng();
        if (i % 3 == 0) {
            memcpy(&v, &bits, sizeof v); /* any bit pattern, incl. subnormals */
        } else {
            v = (double)(int64_t)(bits >> 11) * pow(10.0, (double)(int)(rng() % 40) - 20) *
                (i % 2 ? 1 : -1) / 1e5;
        }
        if (!isfinite(v))
            continue;
        n++;
        rtc_fmt_double(v, ours);
        CU_ASSERT_EQUAL_FATAL(strtod(ours, NULL), v);
        snprintf(ref, sizeof ref, "%.17g", v);
        differ += strcmp(ours, ref) != 0;
    }
    CU_ASSERT_EQUAL(differ, 0);
    CU_ASSERT_TRUE(n > 250000);
    /* Exact and near ties (resolved by the slow path). */
    const double ties[] = {563293858329807.625, -86938.975734860694, 0.5, 2.5e-7};
    for (size_t i = 0; i < sizeof ties / sizeof ties[0]; i++) {
        rtc_fmt_double(ties[i], ours);
        snprintf(ref, sizeof ref, "%.17g", ties[i]);
        CU_ASSERT_STRING_EQUAL(ours, ref);
    }
}

/* Shortest round trip: the listed texts, and for random values text that reads back,
 * with no shorter %g text that would (the digit count is minimal). */
static void fmt_short_is_shortest_round_trip(void)
{
    char b[RTC_NUMFMT_MAX], shorter[400];
    const struct {
        double v;
        const char *s;
    } cases[] = {
        {0.1, "0.1"},         {0.0794, "0.0794"},      {19.84, "19.84"},
        {1.0 / 3, "0.3333333333333333"},               {0.1 + 0.2, "0.30000000000000004"},
        {0.0, "0"},           {-0.0, "0"},             {1e-5, "1e-05"},
        {123456.0, "123456"}, {5e-324, "5e-324"},      {100.0, "100"},
        {1e15, "1000000000000000"},                    {1e16, "1e+16"},
        {-1.5e-7, "-1.5e-07"},      {1.7976931348623157e308,
                                                        "1.7976931348623157e+308"},
        {NAN, "nan"},         {-INFINITY, "-inf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = rtc_fmt_double_short(cases[i].v, b);
        CU_ASSERT_STRING_EQUAL(b, cases[i].s);
        CU_ASSERT_EQUAL(n, strlen(cases[i].s));
    }
    for (int i = 0; i < 20000; i++) {
        double v;
        uint64_t bits = rng();
        memcpy(&v, &bits, sizeof v);
        if (i % 2)
            v = (double)(int64_t)(bits >> 40) / 1000.0; /* short decimals: 1.234 */
        if (!isfinite(v))
            continue;
        rtc_fmt_double_short(v, b);
        CU_ASSERT_EQUAL_FATAL(strtod(b, NULL), v);
        /* significant digits: no sign, point, exponent, leading or trailing zeros */
        char sig[RTC_NUMFMT_MAX] = "";
        size_t ns = 0;
        for (const char *p = b; *p && *p != 'e'; p++)
            if (*p >= '0' && *p <= '9' && (ns || *p != '0'))
                sig[ns++] = *p;
        while (ns > 1 && sig[ns - 1] == '0')
            ns--;
        int fewest = 1;
        while (snprintf(shorter, sizeof shorter, "%.*g", fewest, v) > 0 &&
               strtod(shorter, NULL) != v)
            fewest++;
        CU_ASSERT_EQUAL(ns, (size_t)fewest);
    }
    const struct {
        float v;
        const char *s;
    } fcases[] = {{0.1f, "0.1"}, {3.14159274f, "3.1415927"}, {1e-3f, "0.001"},
                  {16777216.0f, "16777216"}, {-2.5f, "-2.5"}};
    for (size_t i = 0; i < sizeof fcases / sizeof fcases[0]; i++) {
        rtc_fmt_float_short(fcases[i].v, b);
        CU_ASSERT_STRING_EQUAL(b, fcases[i].s);
        CU_ASSERT_EQUAL(strtof(b, NULL), fcases[i].v);
    }
}

static void fmt_double_special_values(void)
{
    char b[RTC_NUMFMT_MAX];
    const struct {
        double v;
        const char *s;
    } cases[] = {
        {0.0, "0"},          {-0.0, "0"},      {1.0, "1"},    {-2.5, "-2.5"},
        {0.1, "0.10000000000000001"},          {1e-5, "1.0000000000000001e-05"},
        {1e17, "1e+17"},     {123456.0, "123456"},            {5e-324, "4.9406564584124654e-324"},
        {1.7976931348623157e308, "1.7976931348623157e+308"},  {0.0001, "0.0001"},
        {INFINITY, "inf"},   {-INFINITY, "-inf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = rtc_fmt_double(cases[i].v, b);
        CU_ASSERT_STRING_EQUAL(b, cases[i].s);
        CU_ASSERT_EQUAL(n, strlen(cases[i].s));
    }
    rtc_fmt_double(NAN, b);
    CU_ASSERT_STRING_EQUAL(b, "nan");
    rtc_fmt_i64(INT64_MIN, b);
    CU_ASSERT_STRING_EQUAL(b, "-9223372036854775808");
    rtc_fmt_u64(UINT64_MAX, b);
    CU_ASSERT_STRING_EQUAL(b, "18446744073709551615");
}

/* The time column: exact decimal seconds, against the same text built with printf. */
static void fmt_time_ns_is_the_exact_decimal(void)
{
    char ours[RTC_NUMFMT_MAX], ref[64];
    unsigned differ = 0;
    const int64_t edges[] = {0, 1, -1, 999999999, 1000000000, -1000000000, 20000, 10,
                             INT64_MAX, INT64_MIN, 123456789012345678};
    for (int i = 0; i < 300000 + (int)(sizeof edges / sizeof edges[0]); i++) {
        int64_t ns = i < (int)(sizeof edges / sizeof edges[0]) ? edges[i] : (int64_t)rng();
        if (i % 3 == 1)
            ns %= 100 * RTC_NS_PER_S; /* the usual range: a few digits of seconds */
        if (i % 5 == 2)
            ns -= ns % 1000; /* trailing zeros in the fraction */
        uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
        int n = snprintf(ref, sizeof ref, "%s%llu.%09llu", ns < 0 ? "-" : "",
                         (unsigned long long)(u / 1000000000u),
                         (unsigned long long)(u % 1000000000u));
        while (ref[n - 1] == '0') /* the fraction without trailing zeros, or no fraction */
            ref[--n] = '\0';
        if (ref[n - 1] == '.')
            ref[--n] = '\0';
        size_t len = rtc_fmt_time_ns(ns, ours);
        differ += strcmp(ours, ref) != 0 || len != (size_t)n;
    }
    CU_ASSERT_EQUAL(differ, 0);
    rtc_fmt_time_ns(INT64_MIN, ours);
    CU_ASSERT_STRING_EQUAL(ours, "-9223372036.854775808");
    char small[8]; /* rtc_time_format_s still cuts to the room it is given */
    CU_ASSERT_EQUAL(rtc_time_format_s(1234567890, small, sizeof small), 7);
    CU_ASSERT_STRING_EQUAL(small, "1.23456");
}

/* ---- csv ---- */

static void csv_header_rows_and_escaping(void)
{
    char dir[256], path[300];
    rtc_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/r.csv", dir);
    rtc_csv *w = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_csv_open(path, &w), RTC_OK);
    rtc_csv_str(w, "time");
    rtc_csv_str(w, "a \"q\"");
    rtc_csv_str(w, "b");
    rtc_csv_end_row(w);
    for (int k = 0; k < 3; k++) {
        rtc_csv_time(w, k * 100000000);
        rtc_csv_f64(w, 0.5 * k);
        rtc_csv_bool(w, k == 1);
        rtc_csv_i64(w, -k);
        uint8_t bin[2] = {0x0f, (uint8_t)(0xa0 + k)};
        rtc_csv_hex(w, bin, 2);
        rtc_csv_end_row(w);
    }
    CU_ASSERT_EQUAL(rtc_csv_close(w), RTC_OK);
    char *text = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_STRING_EQUAL(text, "\"time\",\"a \"\"q\"\"\",\"b\"\n"
                                 "0,0,0,0,0fa0\n"
                                 "0.1,0.5,1,-1,0fa1\n"
                                 "0.2,1,0,-2,0fa2\n");
    free(text);
    rtc_test_rmtree(dir);
}

static void csv_large_output_streams_through_buffer(void)
{
    char dir[256], path[300];
    rtc_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/big.csv", dir);
    rtc_csv *w = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_csv_open(path, &w), RTC_OK);
    long rows = 100000;
    for (long k = 0; k < rows; k++) {
        rtc_csv_time(w, k * 1000000);
        rtc_csv_f64(w, 1.0 / (double)(k + 1));
        rtc_csv_end_row(w);
    }
    CU_ASSERT_EQUAL(rtc_csv_close(w), RTC_OK);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[128];
    long n = 0;
    int bad = 0;
    while (fgets(line, sizeof line, f)) {
        double t, v;
        if (sscanf(line, "%lf,%lf", &t, &v) != 2 || v != 1.0 / (double)(n + 1))
            bad++;
        n++;
    }
    fclose(f);
    CU_ASSERT_EQUAL(n, rows);
    CU_ASSERT_EQUAL(bad, 0);
    rtc_test_rmtree(dir);
}

/* A new r.csv in a new directory (@p dir, 256 bytes; @p path, 300) with the header
 * "time","<col>". */
static rtc_csv *csv_with_header(char *dir, char *path, const char *col)
{
    rtc_test_tmpdir(dir, 256);
    snprintf(path, 300, "%s/r.csv", dir);
    rtc_csv *w = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_csv_open(path, &w), RTC_OK);
    rtc_csv_str(w, "time");
    rtc_csv_str(w, col);
    rtc_csv_end_row(w);
    return w;
}

/* A row formatted by the caller into one reserved room reads as the same row written
 * field by field; a row still being formatted is not flushed. */
static void csv_row_room_writes_the_same_rows(void)
{
    char dir[256], path[300];
    rtc_csv *w = csv_with_header(dir, path, "s");
    const uint8_t bin[2] = {0x0f, 0xa1};
    char *p = rtc_csv_row_room(w, 128), *start = p;
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    p += rtc_fmt_time_ns(100000000, p);
    *p++ = ',';
    p += rtc_csv_quote(p, "a \"q\"");
    *p++ = ',';
    p += rtc_csv_hex_text(p, bin, sizeof bin);
    *p++ = '\n';
    rtc_csv_row_done(w, (size_t)(p - start));
    p = rtc_csv_row_room(w, 128); /* begun, not done: stays out of the file */
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    memcpy(p, "9,9\n", 4);
    CU_ASSERT_EQUAL(rtc_csv_flush(w), RTC_OK);
    CU_ASSERT_EQUAL(rtc_csv_rows(w), 2);
    CU_ASSERT_EQUAL(rtc_csv_close(w), RTC_OK);
    char *text = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_STRING_EQUAL(text, "\"time\",\"s\"\n0.1,\"a \"\"q\"\"\",0fa1\n");
    free(text);
    rtc_test_rmtree(dir);
}

/* The status carries the errno of the failing open (libuv style): the message can say
 * why, from the status alone. */
static void csv_open_missing_directory_fails_with_enoent(void)
{
    rtc_csv *w = (rtc_csv *)0x1;
    int rc = rtc_csv_open("/nonexistent-dir/x.csv", &w);
    CU_ASSERT_EQUAL(rc, -ENOENT);
    CU_ASSERT_EQUAL(rtc_status_errno(rc), ENOENT);
    CU_ASSERT_STRING_EQUAL(rtc_strerror(rc), "No such file or directory");
    CU_ASSERT_PTR_EQUAL(w, (rtc_csv *)0x1);
}

/* A flush hands the kernel complete rows only: a kill right after it leaves no cut row. */
static void csv_flush_writes_only_complete_rows(void)
{
    char dir[256], path[300];
    rtc_csv *w = csv_with_header(dir, path, "x");
    rtc_csv_time(w, 0);
    rtc_csv_f64(w, 1.5);
    rtc_csv_end_row(w);
    rtc_csv_time(w, 1000000); /* a row being built */
    CU_ASSERT_EQUAL(rtc_csv_flush(w), RTC_OK);
    char *text = rtc_test_slurp(path, NULL);
    CU_ASSERT_STRING_EQUAL(text, "\"time\",\"x\"\n0,1.5\n");
    free(text);
    rtc_csv_f64(w, 2.5);
    rtc_csv_end_row(w);
    CU_ASSERT_EQUAL(rtc_csv_close(w), RTC_OK);
    text = rtc_test_slurp(path, NULL);
    CU_ASSERT_STRING_EQUAL(text, "\"time\",\"x\"\n0,1.5\n0.001,2.5\n");
    free(text);
    rtc_test_rmtree(dir);
}

/* RLIMIT_FSIZE of @p bytes for this process with SIGXFSZ ignored (writes past it fail
 * with EFBIG); 0 restores both. */
static void file_size_limit(rlim_t bytes)
{
    static struct rlimit saved;
    static struct sigaction saved_sa;
    if (bytes) {
        getrlimit(RLIMIT_FSIZE, &saved);
        struct sigaction ign = {.sa_handler = SIG_IGN};
        sigaction(SIGXFSZ, &ign, &saved_sa);
        struct rlimit r = {bytes, saved.rlim_max};
        CU_ASSERT_EQUAL(setrlimit(RLIMIT_FSIZE, &r), 0);
    } else {
        setrlimit(RLIMIT_FSIZE, &saved);
        sigaction(SIGXFSZ, &saved_sa, NULL);
    }
}

/* A write failing mid-flush (EFBIG) leaves whole records: cut back to the last one. The
 * counts say what the file holds and what was lost: the rest of the failed flush, and
 * records completed after the error (never written: the file stays a prefix). */
static void ofile_write_error_keeps_whole_records(void)
{
    char dir[256], path[300], rec[100];
    rtc_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/s.log", dir);
    memset(rec, 'r', sizeof rec - 1);
    rec[sizeof rec - 1] = '\n';
    rtc_ofile *f = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_ofile_open(path, &f), RTC_OK);
    rtc_ofile_set_delimiter(f, '\n');
    file_size_limit(10050);
    int i = 0;
    for (; i < 1000 && rtc_ofile_error(f) == RTC_OK; i++) {
        rtc_ofile_append(f, rec, sizeof rec);
        rtc_ofile_end_record(f);
        if (i % 7 == 6)
            rtc_ofile_flush(f);
    }
    CU_ASSERT(i < 1000);
    CU_ASSERT_EQUAL(rtc_ofile_errno(f), EFBIG);
    CU_ASSERT_EQUAL(rtc_ofile_records(f), 100);
    CU_ASSERT_EQUAL(rtc_ofile_records_lost(f), (uint64_t)i - 100);
    for (int k = 0; k < 3; k++) {
        rtc_ofile_append(f, rec, sizeof rec);
        rtc_ofile_end_record(f);
    }
    rtc_ofile_flush(f);
    CU_ASSERT_EQUAL(rtc_ofile_records(f), 100);
    CU_ASSERT_EQUAL(rtc_ofile_records_lost(f), (uint64_t)i - 100 + 3);
    CU_ASSERT_EQUAL(rtc_ofile_close(f), -EFBIG);
    file_size_limit(0);
    size_t n = 0;
    char *text = rtc_test_slurp(path, &n);
    CU_ASSERT_EQUAL(n, 10000); /* 100 whole records; the 101st did not fit */
    CU_ASSERT(text && n && text[n - 1] == '\n');
    free(text);
    rtc_test_rmtree(dir);
}

/* One record larger than the buffer is never split: the buffer grows. */
static void ofile_large_record_written_whole(void)
{
    char dir[256], path[300];
    rtc_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/big", dir);
    rtc_ofile *f = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_ofile_open(path, &f), RTC_OK);
    for (int i = 0; i < 3 * 1024; i++) {
        char *p = rtc_ofile_room(f, 1024);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        memset(p, 'a' + i % 26, 1024);
        rtc_ofile_put(f, 1024);
        if (i == 1024) { /* a flush mid-record writes nothing of it */
            CU_ASSERT_EQUAL(rtc_ofile_flush(f), RTC_OK);
            struct stat st;
            CU_ASSERT(stat(path, &st) == 0 && st.st_size == 0);
        }
    }
    rtc_ofile_end_record(f);
    CU_ASSERT_EQUAL(rtc_ofile_close(f), RTC_OK);
    struct stat st;
    CU_ASSERT(stat(path, &st) == 0 && st.st_size == 3 * 1024 * 1024);
    rtc_test_rmtree(dir);
}

/* Whole-file replacement: the new content, or on failure the old one and no temporary. */
static void ofile_replace_is_all_or_nothing(void)
{
    char dir[256], path[300], tmp[400];
    rtc_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    FILE *f = rtc_ofile_replace_begin(path, tmp, sizeof tmp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{\"status\": \"completed\"}\n", f);
    CU_ASSERT_EQUAL(rtc_ofile_replace_commit(f, tmp, path), RTC_OK);
    file_size_limit(4096);
    f = rtc_ofile_replace_begin(path, tmp, sizeof tmp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    for (int i = 0; i < 1000; i++)
        fputs("0123456789", f);
    CU_ASSERT_EQUAL(rtc_ofile_replace_commit(f, tmp, path), -EFBIG);
    CU_ASSERT_EQUAL(errno, EFBIG);
    file_size_limit(0);
    char *text = rtc_test_slurp(path, NULL);
    CU_ASSERT_STRING_EQUAL(text, "{\"status\": \"completed\"}\n");
    free(text);
    CU_ASSERT_NOT_EQUAL(access(tmp, F_OK), 0);
    errno = 0; /* begin failed without saying why */
    CU_ASSERT_EQUAL(rtc_ofile_replace_commit(NULL, tmp, path), RTC_ESYS);
    errno = EACCES;
    CU_ASSERT_EQUAL(rtc_ofile_replace_commit(NULL, tmp, path), -EACCES);
    rtc_test_rmtree(dir);
}

/* FIPS 180-4 example vectors (NIST CSRC "SHA256.pdf" / the usual test strings). */
static void sha256_known_vectors(void)
{
    const struct {
        const char *msg;
        const char *hex;
    } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        rtc_sha256 s;
        uint8_t d[32];
        char hex[65];
        rtc_sha256_init(&s);
        rtc_sha256_update(&s, v[i].msg, strlen(v[i].msg));
        rtc_sha256_final(&s, d);
        for (int j = 0; j < 32; j++)
            snprintf(hex + 2 * j, 3, "%02x", d[j]);
        CU_ASSERT_STRING_EQUAL(hex, v[i].hex);
    }
    /* one million 'a', fed in uneven pieces */
    rtc_sha256 s;
    uint8_t d[32];
    char hex[65], a[997];
    memset(a, 'a', sizeof a);
    rtc_sha256_init(&s);
    size_t left = 1000000;
    while (left) {
        size_t n = left < sizeof a ? left : sizeof a;
        rtc_sha256_update(&s, a, n);
        left -= n;
    }
    rtc_sha256_final(&s, d);
    for (int j = 0; j < 32; j++)
        snprintf(hex + 2 * j, 3, "%02x", d[j]);
    CU_ASSERT_STRING_EQUAL(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void model_type_tables_cover_every_type(void)
{
    for (int t = 0; t < RTC_TYPE_COUNT; t++) {
        CU_ASSERT_STRING_NOT_EQUAL(rtc_type_name((rtc_type)t), "?");
        CU_ASSERT_TRUE(rtc_type_size((rtc_type)t) > 0);
    }
    CU_ASSERT_EQUAL(rtc_type_size(RTC_TYPE_INT16), 2);
    CU_ASSERT_STRING_EQUAL(rtc_causality_name(RTC_CAUSALITY_OUTPUT), "output");
}

/* ---- the one clock, the one sleep, the one thread creator ---- */

static _Atomic int usr1_seen;

static void on_usr1(int sig)
{
    (void)sig;
    atomic_fetch_add_explicit(&usr1_seen, 1, memory_order_relaxed);
}

/* The one copy of strings and binaries out of a unit's memory (recorder rows, the system's
 * observed values): truncated to the slot, NULL as "", in place or into another array. */
static void value_copy_indirect_truncates_into_slots(void)
{
    char store[3 * 4];
    const char *strs[3] = {"ab", "abcdef", NULL}, *out[3] = {0};
    rtc_value_copy_indirect(RTC_TYPE_STRING, strs, out, 3, store, 4);
    CU_ASSERT_STRING_EQUAL(out[0], "ab");
    CU_ASSERT_STRING_EQUAL(out[1], "abc"); /* cap − 1 bytes and the terminator */
    CU_ASSERT_STRING_EQUAL(out[2], "");
    CU_ASSERT_PTR_EQUAL(out[1], store + 4);
    static const uint8_t data[6] = {1, 2, 3, 4, 5, 6};
    rtc_binary bins[2] = {{data, 6}, {data, 2}};
    rtc_value_copy_indirect(RTC_TYPE_BINARY, bins, bins, 2, store, 4); /* in place */
    CU_ASSERT_EQUAL(bins[0].size, 4);
    CU_ASSERT_PTR_EQUAL(bins[0].data, (const uint8_t *)store);
    CU_ASSERT_EQUAL(memcmp(bins[0].data, data, 4), 0);
    CU_ASSERT_EQUAL(bins[1].size, 2);
    CU_ASSERT_EQUAL(bins[1].data[1], 2);
}

typedef struct {
    pthread_t sleeper;
    _Atomic bool sleeping, done;
} interrupter;

/* Signal the sleeper every 5 ms until it is done: each signal interrupts clock_nanosleep
 * (the handler has no SA_RESTART, and an absolute sleep is never restarted by the kernel
 * on its own), so a wrapper that did not sleep again would return early. */
static void *interrupt_main(void *arg)
{
    interrupter *x = arg;
    while (!atomic_load_explicit(&x->sleeping, memory_order_acquire))
        sched_yield();
    while (!atomic_load_explicit(&x->done, memory_order_acquire)) {
        pthread_kill(x->sleeper, SIGUSR1);
        struct timespec nap = {.tv_nsec = 5000000};
        nanosleep(&nap, NULL);
    }
    return NULL;
}

static void sleep_until_reaches_deadline_through_signals(void)
{
    struct sigaction sa = {.sa_handler = on_usr1}, old;
    sigemptyset(&sa.sa_mask);
    CU_ASSERT_EQUAL_FATAL(sigaction(SIGUSR1, &sa, &old), 0);
    interrupter x = {.sleeper = pthread_self()};
    pthread_t t;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, interrupt_main, &x), 0);
    int64_t deadline = rtc_time_now_ns() + 200000000; /* 200 ms: many signals arrive */
    atomic_store_explicit(&x.sleeping, true, memory_order_release);
    int e = rtc_time_sleep_until_ns(deadline);
    int64_t woke = rtc_time_now_ns();
    atomic_store_explicit(&x.done, true, memory_order_release);
    pthread_join(t, NULL);
    sigaction(SIGUSR1, &old, NULL);
    CU_ASSERT_EQUAL(e, 0);
    CU_ASSERT_TRUE(woke >= deadline); /* never early, however many signals came */
    CU_ASSERT_TRUE(atomic_load(&usr1_seen) > 0);
}

static void sleep_until_past_or_negative_deadline(void)
{
    int64_t before = rtc_time_now_ns();
    CU_ASSERT_TRUE(before > 0);
    CU_ASSERT_EQUAL(rtc_time_sleep_until_ns(before - 1000000), 0); /* past: at once */
    CU_ASSERT_TRUE(rtc_time_now_ns() >= before);
    CU_ASSERT_EQUAL(rtc_time_sleep_until_ns(-1), EINVAL);
}

/* What the new thread sees of its own CPU set. */
static void *affinity_main(void *arg)
{
    cpu_set_t *set = arg;
    if (sched_getaffinity(0, sizeof *set, set) != 0)
        CPU_ZERO(set);
    return NULL;
}

static void thread_pinned_or_kept_off_a_cpu(void)
{
    int n = rtc_rt_cpu_count();
    cpu_set_t mine;
    CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof mine, &mine), 0);
    if (n < 2 || CPU_COUNT(&mine) < n || n > CPU_SETSIZE) {
        rtc_test_skip("thread_pinned_or_kept_off_a_cpu", "needs 2+ CPUs, all allowed");
        return;
    }
    cpu_set_t seen;
    rtc_rt_thread *t = NULL;
    /* pinned: exactly the CPU asked for */
    rtc_rt_thread_opts o = {.priority = 0, .cpu = 1, .stack_bytes = 64 << 10, .name = "t-pin"};
    CU_ASSERT_EQUAL_FATAL(rtc_rt_thread_start(&o, affinity_main, &seen, NULL, &t), RTC_OK);
    rtc_rt_thread_join(t);
    CU_ASSERT_EQUAL(CPU_COUNT(&seen), 1);
    CU_ASSERT_TRUE(CPU_ISSET(1, &seen));
    /* kept off: every CPU but that one (a helper beside the RT thread) */
    o.avoid_cpu = true;
    o.name = "t-off";
    CU_ASSERT_EQUAL_FATAL(rtc_rt_thread_start(&o, affinity_main, &seen, NULL, &t), RTC_OK);
    rtc_rt_thread_join(t);
    CU_ASSERT_EQUAL(CPU_COUNT(&seen), n - 1);
    CU_ASSERT_FALSE(CPU_ISSET(1, &seen));
    /* a CPU that does not exist is refused, nothing created */
    o.cpu = n;
    t = NULL;
    CU_ASSERT_EQUAL(rtc_rt_thread_start(&o, affinity_main, &seen, NULL, &t), RTC_EINVAL);
    CU_ASSERT_PTR_NULL(t);
}

void rtc_test_register(void)
{
    static const rtc_test_case status_log[] = {
        {"strerror_known_and_unknown_codes_have_text", strerror_known_and_unknown_codes_have_text},
        {"log_below_threshold_not_evaluated", log_below_threshold_not_evaluated},
        {"log_long_message_truncated", log_long_message_truncated},
        {"model_type_tables_cover_every_type", model_type_tables_cover_every_type},
        {"value_copy_indirect_truncates_into_slots", value_copy_indirect_truncates_into_slots},
        {"sha256_known_vectors", sha256_known_vectors},
        {NULL, NULL}};
    static const rtc_test_case time_cases[] = {
        {"time_multiples_avoid_float_trap", time_multiples_avoid_float_trap},
        {"time_format_exact_decimal", time_format_exact_decimal},
        {"sdtime_orders_microsteps_within_an_instant", sdtime_orders_microsteps_within_an_instant},
        {NULL, NULL}};
    static const rtc_test_case fmt_cases[] = {
        {"fmt_double_round_trips_and_matches_printf", fmt_double_round_trips_and_matches_printf},
        {"fmt_double_special_values", fmt_double_special_values},
        {"fmt_time_ns_is_the_exact_decimal", fmt_time_ns_is_the_exact_decimal},
        {"csv_row_room_writes_the_same_rows", csv_row_room_writes_the_same_rows},
        {"fmt_short_is_shortest_round_trip", fmt_short_is_shortest_round_trip},
        {"csv_header_rows_and_escaping", csv_header_rows_and_escaping},
        {"csv_large_output_streams_through_buffer", csv_large_output_streams_through_buffer},
        {"csv_open_missing_directory_fails_with_enoent",
         csv_open_missing_directory_fails_with_enoent},
        {"csv_flush_writes_only_complete_rows", csv_flush_writes_only_complete_rows},
        {"ofile_write_error_keeps_whole_records", ofile_write_error_keeps_whole_records},
        {"ofile_large_record_written_whole", ofile_large_record_written_whole},
        {"ofile_replace_is_all_or_nothing", ofile_replace_is_all_or_nothing},
        {NULL, NULL}};
    static const rtc_test_case clock_thread_cases[] = {
        {"sleep_until_reaches_deadline_through_signals",
         sleep_until_reaches_deadline_through_signals},
        {"sleep_until_past_or_negative_deadline", sleep_until_past_or_negative_deadline},
        {"thread_pinned_or_kept_off_a_cpu", thread_pinned_or_kept_off_a_cpu},
        {NULL, NULL}};
    rtc_test_add_suite("status_log", NULL, NULL, status_log);
    rtc_test_add_suite("clock_thread", NULL, NULL, clock_thread_cases);
    rtc_test_add_suite("time", NULL, NULL, time_cases);
    rtc_test_add_suite("numfmt_csv", NULL, NULL, fmt_cases);
}
