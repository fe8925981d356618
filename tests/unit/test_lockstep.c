/*
 * The lock-step channel (rtcosim/lockstep.h) between a stepping thread and a driver, with
 * real threads: every round a stepper commits reaches the driver in order and every round
 * the driver stores reaches the stepper whole, across thousands of futex waits (the
 * sanitizer builds run this too); the waits end as documented — the peer's END, a driver's
 * failure from another thread, a bounded wait that runs out, a full ring — and an INIT wait
 * ends with the peer's last pass once it ticks.
 */
#include "cu_main.h"

#include "rtcosim/lockstep.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define N_TICKS 5000u
#define LONG_WAIT_NS (60 * RTC_NS_PER_S) /* a wait that must end by an event, not by time */

/* The driver side of a mirror peer: every round the stepper commits comes back as the
 * peer's round of the same kind and index, each value doubled; stops after the END. */
static void *mirror(void *arg)
{
    rtc_lockstep *ls = arg;
    uint32_t seen = 0;
    double v[2];
    for (;;) {
        const rtc_lockstep_round *r = rtc_lockstep_next_out(ls);
        if (!r) {
            seen = rtc_lockstep_wait_out(ls, seen, rtc_time_now_ns() + LONG_WAIT_NS);
            continue;
        }
        int kind = r->kind;
        for (size_t i = 0; i < 2; i++)
            v[i] = 2 * r->v[i];
        size_t n = kind == RTC_LOCKSTEP_END ? 0 : 2;
        int rc = rtc_lockstep_put(ls, kind, r->idx, r->t_ns, 0, v, n);
        rtc_lockstep_out_done(ls);
        if (rc != RTC_OK)
            rtc_lockstep_fail(ls, "the mirror could not store a round");
        if (kind == RTC_LOCKSTEP_END)
            return NULL;
    }
}

static void rounds_cross_both_ways_in_order_and_whole(void)
{
    rtc_lockstep *ls;
    CU_ASSERT_EQUAL_FATAL(rtc_lockstep_new(2, 2, &ls), RTC_OK);
    CU_ASSERT_FALSE(rtc_lockstep_enabled(ls));
    CU_ASSERT_EQUAL(rtc_lockstep_enable(ls, NULL, LONG_WAIT_NS), RTC_OK);
    CU_ASSERT(rtc_lockstep_enabled(ls));
    CU_ASSERT_EQUAL(rtc_lockstep_tick_ahead(ls), 0);
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, mirror, ls), 0);
    unsigned bad = 0, failed = 0;
    for (uint32_t k = 0; k < N_TICKS && !failed; k++) {
        double *s = rtc_lockstep_stage(ls);
        s[0] = k;
        s[1] = -0.5 * k;
        const rtc_lockstep_round *r = NULL;
        failed += rtc_lockstep_commit(ls, RTC_LOCKSTEP_TICK, k, (int64_t)k * 1000) != RTC_OK;
        failed += rtc_lockstep_wait(ls, RTC_LOCKSTEP_TICK, k, &r) != RTC_OK || !r;
        if (r)
            bad += r->idx != k || r->t_ns != (int64_t)k * 1000 || r->v[0] != 2.0 * k ||
                   r->v[1] != -1.0 * k;
        rtc_lockstep_release(ls);
    }
    CU_ASSERT_EQUAL(rtc_lockstep_commit(ls, RTC_LOCKSTEP_END, N_TICKS, 0), RTC_OK);
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(failed, 0);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(rtc_lockstep_committed(ls), N_TICKS + 1);
    CU_ASSERT_PTR_NULL(rtc_lockstep_failure(ls));
    rtc_lockstep_free(ls);
}

static void *fail_later(void *arg)
{
    rtc_lockstep_fail(arg, "node B left");
    return NULL;
}

static void a_failure_from_the_driver_ends_the_wait(void)
{
    rtc_lockstep *ls;
    CU_ASSERT_EQUAL_FATAL(rtc_lockstep_new(1, 1, &ls), RTC_OK);
    CU_ASSERT_EQUAL(rtc_lockstep_enable(ls, NULL, LONG_WAIT_NS), RTC_OK);
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, fail_later, ls), 0);
    const rtc_lockstep_round *r = NULL;
    CU_ASSERT_EQUAL(rtc_lockstep_wait(ls, RTC_LOCKSTEP_TICK, 0, &r), RTC_EIO);
    pthread_join(th, NULL);
    CU_ASSERT_STRING_EQUAL(rtc_lockstep_failure(ls), "node B left");
    /* the first failure wins, and every later call fails at once */
    rtc_lockstep_fail(ls, "something else");
    CU_ASSERT_STRING_EQUAL(rtc_lockstep_failure(ls), "node B left");
    CU_ASSERT_EQUAL(rtc_lockstep_commit(ls, RTC_LOCKSTEP_TICK, 0, 0), RTC_EIO);
    rtc_lockstep_free(ls);
}

static void the_peers_end_before_the_tick_fails_the_wait(void)
{
    rtc_lockstep *ls;
    double v = 1;
    const rtc_lockstep_round *r = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_lockstep_new(0, 1, &ls), RTC_OK);
    CU_ASSERT_EQUAL(rtc_lockstep_enable(ls, NULL, LONG_WAIT_NS), RTC_OK);
    for (uint32_t k = 0; k < 3; k++)
        CU_ASSERT_EQUAL(rtc_lockstep_put(ls, RTC_LOCKSTEP_TICK, k, 0, 0, &v, 1), RTC_OK);
    CU_ASSERT_EQUAL(rtc_lockstep_put(ls, RTC_LOCKSTEP_END, 3, 0, 0, NULL, 0), RTC_OK);
    CU_ASSERT_EQUAL(rtc_lockstep_wait(ls, RTC_LOCKSTEP_TICK, 2, &r), RTC_OK);
    CU_ASSERT(r && r->idx == 2);
    rtc_lockstep_release(ls);
    CU_ASSERT_EQUAL(rtc_lockstep_wait(ls, RTC_LOCKSTEP_TICK, 5, &r), RTC_EIO);
    CU_ASSERT_PTR_NOT_NULL(rtc_lockstep_failure(ls));
    rtc_lockstep_free(ls);
}

static void an_init_wait_ends_with_the_last_pass_once_the_peer_ticks(void)
{
    rtc_lockstep *ls;
    const rtc_lockstep_round *r = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_lockstep_new(0, 1, &ls), RTC_OK);
    const uint8_t ahead[1] = {1};
    CU_ASSERT_EQUAL(rtc_lockstep_enable(ls, ahead, LONG_WAIT_NS), RTC_OK);
    CU_ASSERT_EQUAL(rtc_lockstep_tick_ahead(ls), 1);
    CU_ASSERT_EQUAL(rtc_lockstep_ahead(ls, 0), 1);
    for (uint32_t p = 0; p < 2; p++) {
        double v = 10 + p;
        CU_ASSERT_EQUAL(rtc_lockstep_put(ls, RTC_LOCKSTEP_INIT, p, 0, 0, &v, 1), RTC_OK);
    }
    double v = 99;
    CU_ASSERT_EQUAL(rtc_lockstep_put(ls, RTC_LOCKSTEP_TICK, 0, 0, 0, &v, 1), RTC_OK);
    /* this side makes more passes than the peer did: the peer's last one stands */
    CU_ASSERT_EQUAL(rtc_lockstep_wait(ls, RTC_LOCKSTEP_INIT, 4, &r), RTC_OK);
    CU_ASSERT(r && r->kind == RTC_LOCKSTEP_INIT && r->idx == 1 && r->v[0] == 11);
    rtc_lockstep_release(ls);
    CU_ASSERT_EQUAL(rtc_lockstep_wait(ls, RTC_LOCKSTEP_TICK, 0, &r), RTC_OK);
    CU_ASSERT(r && r->v[0] == 99);
    rtc_lockstep_free(ls);
}

static void bounded_waits_and_a_full_ring_are_refused(void)
{
    rtc_lockstep *ls;
    const rtc_lockstep_round *r = NULL;
    double v = 0;
    CU_ASSERT_EQUAL_FATAL(rtc_lockstep_new(1, 1, &ls), RTC_OK);
    CU_ASSERT_EQUAL(rtc_lockstep_enable(ls, NULL, 0), RTC_EINVAL);
    const uint8_t two[1] = {2};
    CU_ASSERT_EQUAL(rtc_lockstep_enable(ls, two, INT64_C(1000000)), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_lockstep_enable(ls, NULL, 20 * INT64_C(1000000)), RTC_OK);
    /* nothing comes: the wait ends when its time is up */
    CU_ASSERT_EQUAL(rtc_lockstep_wait(ls, RTC_LOCKSTEP_TICK, 0, &r), RTC_ETIME);
    /* no driver sends: DEPTH rounds fit, the next one does not */
    for (uint32_t k = 0; k < RTC_LOCKSTEP_DEPTH; k++)
        CU_ASSERT_EQUAL(rtc_lockstep_commit(ls, RTC_LOCKSTEP_TICK, k, 0), RTC_OK);
    CU_ASSERT_EQUAL(rtc_lockstep_commit(ls, RTC_LOCKSTEP_TICK, RTC_LOCKSTEP_DEPTH, 0),
                    RTC_ETIME);
    /* a peer DEPTH rounds ahead of what the stepper released breaks the protocol */
    for (uint32_t k = 0; k < RTC_LOCKSTEP_DEPTH; k++)
        CU_ASSERT_EQUAL(rtc_lockstep_put(ls, RTC_LOCKSTEP_TICK, k, 0, 0, &v, 1), RTC_OK);
    CU_ASSERT_EQUAL(rtc_lockstep_put(ls, RTC_LOCKSTEP_TICK, 99, 0, 0, &v, 1), RTC_ELIMIT);
    CU_ASSERT_EQUAL(rtc_lockstep_put(ls, RTC_LOCKSTEP_TICK, 99, 0, 0, &v, 2), RTC_EINVAL);
    /* the driver sent one, the stepper used one: room on both sides again */
    CU_ASSERT_PTR_NOT_NULL(rtc_lockstep_next_out(ls));
    rtc_lockstep_out_done(ls);
    CU_ASSERT_EQUAL(rtc_lockstep_commit(ls, RTC_LOCKSTEP_TICK, RTC_LOCKSTEP_DEPTH, 0), RTC_OK);
    CU_ASSERT_EQUAL(rtc_lockstep_wait(ls, RTC_LOCKSTEP_TICK, 0, &r), RTC_OK);
    rtc_lockstep_release(ls);
    CU_ASSERT_EQUAL(rtc_lockstep_put(ls, RTC_LOCKSTEP_TICK, 16, 0, 0, &v, 1), RTC_OK);
    rtc_lockstep_free(ls);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"rounds_cross_both_ways_in_order_and_whole",
         rounds_cross_both_ways_in_order_and_whole},
        {"a_failure_from_the_driver_ends_the_wait", a_failure_from_the_driver_ends_the_wait},
        {"the_peers_end_before_the_tick_fails_the_wait",
         the_peers_end_before_the_tick_fails_the_wait},
        {"an_init_wait_ends_with_the_last_pass_once_the_peer_ticks",
         an_init_wait_ends_with_the_last_pass_once_the_peer_ticks},
        {"bounded_waits_and_a_full_ring_are_refused", bounded_waits_and_a_full_ring_are_refused},
        {NULL, NULL}};
    rtc_test_add_suite("lockstep", NULL, NULL, cases);
}
