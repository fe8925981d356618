/*
 * The one rate limiter (rtcosim/ratelimit.h) in both of its uses: log lines caused by a
 * peer (take, then one summary line per window with due) and requests a peer sends
 * (admit: the operator panel's commands). Time is passed in, so the windows are exact.
 */
#include "cu_main.h"

#include "rtcosim/ratelimit.h"

#include <stdint.h>

#define S INT64_C(1000000000) /* one window: 1 s in ns */

/* burst lines per window in full; the rest counted, reported once, then a new window. */
static void take_burst_then_counted_and_reported_once(void)
{
    rtc_ratelimit r = {.window_ns = S, .burst = 3};
    int full = 0;
    for (int i = 0; i < 10; i++)
        full += rtc_ratelimit_take(&r, S + i);
    CU_ASSERT_EQUAL(full, 3);
    CU_ASSERT_EQUAL(rtc_ratelimit_due(&r, S + 100, false), 0); /* the window is not over */
    CU_ASSERT_EQUAL(rtc_ratelimit_due(&r, 2 * S, false), 7);
    CU_ASSERT_EQUAL(rtc_ratelimit_due(&r, 2 * S + 1, true), 0); /* reported: nothing left */
    /* the summary line took the budget of the window it started */
    CU_ASSERT_FALSE(rtc_ratelimit_take(&r, 2 * S + 2));
    CU_ASSERT_EQUAL(rtc_ratelimit_due(&r, 3 * S + 2, false), 1);
    CU_ASSERT_TRUE(rtc_ratelimit_take(&r, 4 * S + 3));
}

/* A counted window holds take() back until due() reported it. */
static void take_waits_for_the_report_of_a_counted_window(void)
{
    rtc_ratelimit r = {.window_ns = S, .burst = 1};
    CU_ASSERT_TRUE(rtc_ratelimit_take(&r, S));
    CU_ASSERT_FALSE(rtc_ratelimit_take(&r, S + 1));
    CU_ASSERT_FALSE(rtc_ratelimit_take(&r, 5 * S)); /* counted too: not reported yet */
    CU_ASSERT_EQUAL(rtc_ratelimit_due(&r, 5 * S, false), 2);
}

/* admit(): burst requests in each window, however many the one before refused; the
 * refused ones of the current window are in suppressed. */
static void admit_each_window_afresh(void)
{
    rtc_ratelimit r = {.window_ns = S, .burst = 50};
    for (int64_t w = 1; w <= 5; w++) {
        int ok = 0;
        for (int i = 0; i < 300; i++)
            ok += rtc_ratelimit_admit(&r, w * S + i * 1000);
        CU_ASSERT_EQUAL(ok, 50);
        CU_ASSERT_EQUAL(r.suppressed, 250);
    }
    /* a steady client (one request every 50 ms) past a flood is admitted every time */
    int ok = 0;
    for (int i = 0; i < 40; i++)
        ok += rtc_ratelimit_admit(&r, 6 * S + (int64_t)i * 50000000);
    CU_ASSERT_EQUAL(ok, 40);
}

/* A limit of 0 admits nothing, and refusing changes nothing but the count. */
static void admit_zero_burst_refuses_all(void)
{
    rtc_ratelimit r = {.window_ns = S, .burst = 0};
    CU_ASSERT_FALSE(rtc_ratelimit_admit(&r, S));
    CU_ASSERT_FALSE(rtc_ratelimit_admit(&r, 3 * S));
    CU_ASSERT_EQUAL(r.suppressed, 1);
    CU_ASSERT_EQUAL(r.start_ns, 3 * S);
    CU_ASSERT_EQUAL(r.logged, 0);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"take_burst_then_counted_and_reported_once", take_burst_then_counted_and_reported_once},
        {"take_waits_for_the_report_of_a_counted_window",
         take_waits_for_the_report_of_a_counted_window},
        {"admit_each_window_afresh", admit_each_window_afresh},
        {"admit_zero_burst_refuses_all", admit_zero_burst_refuses_all},
        {NULL, NULL}};
    rtc_test_add_suite("ratelimit", NULL, NULL, cases);
}
