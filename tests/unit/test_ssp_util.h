/*
 * Helpers shared by the two sources of the SSP loader's test executable (test_ssp.c: valid
 * and invalid descriptions; test_ssp_package.c: .ssp packages and unpacked directories).
 */
#ifndef RTC_TEST_SSP_UTIL_H
#define RTC_TEST_SSP_UTIL_H

#include "cu_main.h"

#include "rtcosim/ssp.h"
#include "rtcosim/status.h"

#include <stdio.h>
#include <string.h>

#define DATA RTC_TEST_DATA_DIR "/ssp/"

/** Registers the suite of test_ssp_package.c (called by rtc_test_register()). */
void rtc_test_register_ssp_package(void);

/* Every diagnostic line of one load, with counts per level. */
typedef struct logbuf {
    unsigned errors, warnings, infos;
    char text[32768];
} logbuf;

static inline void capture(void *user, int level, const char *msg)
{
    logbuf *lb = user;
    if (level == RTC_LOG_ERROR)
        lb->errors++;
    else if (level == RTC_LOG_WARNING)
        lb->warnings++;
    else
        lb->infos++;
    size_t len = strlen(lb->text);
    snprintf(lb->text + len, sizeof lb->text - len, "%s: %s\n", rtc_log_level_name(level), msg);
}

static inline int load(const char *path, logbuf *lb, rtc_ssp **out)
{
    memset(lb, 0, sizeof *lb);
    rtc_logger lg = {.log = capture, .user = lb, .max_level = RTC_LOG_DEBUG};
    *out = (rtc_ssp *)&lg; /* must be reset to NULL on failure */
    return rtc_ssp_load(path, &lg, out);
}

/* Load a valid case and check the warning count; prints the log when it differs. */
static inline rtc_ssp *open_ok(const char *path, unsigned warnings)
{
    logbuf lb;
    rtc_ssp *s = NULL;
    int rc = load(path, &lb, &s);
    if (rc != RTC_OK)
        printf("\n%s", lb.text);
    CU_ASSERT_EQUAL_FATAL(rc, RTC_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(lb.errors, 0);
    CU_ASSERT_EQUAL(lb.warnings, warnings);
    CU_ASSERT_EQUAL(s->warnings, warnings);
    if (lb.warnings != warnings)
        printf("\n%s", lb.text);
    return s;
}

/* Load an invalid case: status, no object, exactly @p errors error lines, and @p needle
 * (file:line + message) among them. */
static inline void expect_error(const char *path, int status, unsigned errors, const char *needle)
{
    logbuf lb;
    rtc_ssp *s = NULL;
    int rc = load(path, &lb, &s);
    CU_ASSERT_EQUAL(rc, status);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_EQUAL(lb.errors, errors);
    CU_ASSERT_PTR_NOT_NULL(strstr(lb.text, needle));
    if (!strstr(lb.text, needle) || lb.errors != errors)
        printf("\nexpected \"%s\" in:\n%s", needle, lb.text);
}

static inline const rtc_ssp_component *comp(const rtc_ssp *s, const char *name)
{
    const rtc_ssp_component *c = rtc_ssp_find_component(s, name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

static inline void expect_param(const rtc_ssp *s,
                                const char *c,
                                const char *n,
                                rtc_type type,
                                const char *value,
                                unsigned level)
{
    const rtc_ssp_param *p = rtc_ssp_find_param(s, c, n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(p->type, type);
    CU_ASSERT_STRING_EQUAL(p->value, value);
    CU_ASSERT_EQUAL(p->level, level);
    if (strcmp(p->value, value) != 0)
        printf("\n%s.%s = %s (expected %s)\n", c, n, p->value, value);
}

#endif
