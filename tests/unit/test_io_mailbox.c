/*
 * Mailbox (seqlock) tests: contract on one thread, then a writer and a reader hammering
 * the same mailbox; every snapshot the reader gets must be one the writer wrote as a
 * whole (fields derived from one counter), and sequence numbers never go backwards.
 * Meant to run under TSan as well (build-io-tsan).
 */
#include "cu_main.h"

#include "rtcosim/driver.h"
#include "rtcosim/hist.h"
#include "rtcosim/mailbox.h"
#include "rtcosim/status.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static void mailbox_new_empty_reads_default(void)
{
    rtc_mailbox *mb = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_mailbox_new(&mb), RTC_OK);
    rtc_sample s = {.value = 99.0, .seq = 77, .quality = 9};
    CU_ASSERT_TRUE(rtc_mailbox_read(mb, &s));
    CU_ASSERT_EQUAL(s.value, 0.0);
    CU_ASSERT_EQUAL(s.seq, 0);
    CU_ASSERT_EQUAL(s.quality, RTC_QUALITY_NONE);
    CU_ASSERT_EQUAL(rtc_mailbox_seq(mb), 0);
    CU_ASSERT_EQUAL(rtc_mailbox_new(NULL), RTC_EINVAL);
    rtc_mailbox_free(mb);
    rtc_mailbox_free(NULL);
}

static void mailbox_write_read_roundtrips_and_counts(void)
{
    rtc_mailbox *mb = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_mailbox_new(&mb), RTC_OK);
    rtc_sample w = {.value = -1.25, .sample_ns = 1000, .arrival_ns = 1500, .seq = 12345,
                    .quality = RTC_QUALITY_FRESH};
    CU_ASSERT_EQUAL(rtc_mailbox_write(mb, &w), 1); /* seq assigned by the mailbox */
    w.value = 2.5;
    CU_ASSERT_EQUAL(rtc_mailbox_write(mb, &w), 2);
    rtc_sample r;
    CU_ASSERT_TRUE(rtc_mailbox_read(mb, &r));
    CU_ASSERT_EQUAL(r.value, 2.5);
    CU_ASSERT_EQUAL(r.sample_ns, 1000);
    CU_ASSERT_EQUAL(r.arrival_ns, 1500);
    CU_ASSERT_EQUAL(r.seq, 2);
    CU_ASSERT_EQUAL(r.quality, RTC_QUALITY_FRESH);
    /* quality change keeps value and seq: no new sample arrived */
    rtc_mailbox_set_quality(mb, RTC_QUALITY_STALE);
    CU_ASSERT_TRUE(rtc_mailbox_read(mb, &r));
    CU_ASSERT_EQUAL(r.value, 2.5);
    CU_ASSERT_EQUAL(r.seq, 2);
    CU_ASSERT_EQUAL(r.quality, RTC_QUALITY_STALE);
    CU_ASSERT_EQUAL(rtc_mailbox_seq(mb), 2);
    CU_ASSERT_EQUAL(rtc_mailbox_read_failures(mb), 0);
    CU_ASSERT_STRING_EQUAL(rtc_quality_name(RTC_QUALITY_STALE), "stale");
    rtc_mailbox_free(mb);
}

#define HAMMER_WRITES 400000u

typedef struct hammer {
    rtc_mailbox *mb;
    atomic_bool done;
    uint64_t reads, torn, backwards, fails;
} hammer;

static void *writer(void *arg)
{
    hammer *h = arg;
    for (uint32_t i = 1; i <= HAMMER_WRITES; i++) {
        /* every field derived from i: a mix of two writes is detectable */
        rtc_sample s = {.value = (double)i, .sample_ns = (int64_t)i * 10,
                        .arrival_ns = (int64_t)i * 10 + 3, .quality = (uint8_t)(1 + i % 3)};
        rtc_mailbox_write(h->mb, &s);
    }
    atomic_store_explicit(&h->done, true, memory_order_release);
    return NULL;
}

static void *reader(void *arg)
{
    hammer *h = arg;
    uint32_t last = 0;
    while (!atomic_load_explicit(&h->done, memory_order_acquire)) {
        rtc_sample s;
        if (!rtc_mailbox_read(h->mb, &s)) {
            h->fails++;
            continue;
        }
        h->reads++;
        if (s.seq == 0)
            continue;
        if ((double)s.seq != s.value || s.sample_ns != (int64_t)s.seq * 10 ||
            s.arrival_ns != s.sample_ns + 3 || s.quality != 1 + s.seq % 3)
            h->torn++;
        if (s.seq < last)
            h->backwards++;
        last = s.seq;
    }
    return NULL;
}

static void mailbox_two_threads_snapshots_consistent(void)
{
    hammer h = {0};
    CU_ASSERT_EQUAL_FATAL(rtc_mailbox_new(&h.mb), RTC_OK);
    pthread_t tw, tr;
    pthread_create(&tr, NULL, reader, &h);
    pthread_create(&tw, NULL, writer, &h);
    pthread_join(tw, NULL);
    pthread_join(tr, NULL);
    printf("\n    mailbox hammer: %u writes, %llu consistent reads, %llu gave up\n",
           HAMMER_WRITES, (unsigned long long)h.reads, (unsigned long long)h.fails);
    CU_ASSERT_EQUAL(h.torn, 0);
    CU_ASSERT_EQUAL(h.backwards, 0);
    CU_ASSERT_EQUAL(h.fails, rtc_mailbox_read_failures(h.mb));
    rtc_sample s;
    CU_ASSERT_TRUE(rtc_mailbox_read(h.mb, &s));
    CU_ASSERT_EQUAL(s.seq, HAMMER_WRITES);
    CU_ASSERT_EQUAL(s.value, (double)HAMMER_WRITES);
    rtc_mailbox_free(h.mb);
}

/* The drivers' request latency is the base histogram (rtcosim/hist.h), summarized. */
static void latency_hist_summary_within_bucket(void)
{
    rtc_hist *h = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_hist_new(INT64_C(1000000000000), &h), RTC_OK);
    for (int i = 1; i <= 100; i++)
        rtc_hist_add(h, i * 10000); /* 10 us .. 1 ms */
    rtc_hist_summary s;
    rtc_hist_summarize(h, &s);
    CU_ASSERT_EQUAL(s.count, 100);
    CU_ASSERT_EQUAL(s.min, 10000);
    CU_ASSERT_EQUAL(s.max, 1000000);
    /* the 50th value is 500 us; a bucket is at most 1/128 of its lower bound wide */
    CU_ASSERT_TRUE(s.p50 >= 500000 * 127 / 128 && s.p50 <= 500000 * 129 / 128);
    CU_ASSERT_EQUAL(rtc_hist_quantile(h, 1.0), 1000000);
    rtc_hist_free(h);
}

static void registry_finds_registered_types(void)
{
    static const rtc_driver_ops dummy = {.name = "dummy"};
    CU_ASSERT_PTR_NULL(rtc_driver_find("application/x-rtcosim-test"));
    CU_ASSERT_EQUAL(rtc_driver_register("application/x-rtcosim-test", &dummy), RTC_OK);
    CU_ASSERT_PTR_EQUAL(rtc_driver_find("application/x-rtcosim-test"), &dummy);
    CU_ASSERT_EQUAL(rtc_driver_register(NULL, &dummy), RTC_EINVAL);
    CU_ASSERT_TRUE(rtc_driver_is_io_type("application/x-rtcosim-osc"));
    CU_ASSERT_FALSE(rtc_driver_is_io_type("application/x-fmu-sharedlibrary"));
    rtc_kv kv[] = {{"a", "1"}, {"b", "2"}, {"a", "3"}};
    CU_ASSERT_STRING_EQUAL(rtc_kv_get(kv, 3, "a"), "3");
    CU_ASSERT_PTR_NULL(rtc_kv_get(kv, 3, "c"));
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"mailbox_new_empty_reads_default", mailbox_new_empty_reads_default},
        {"mailbox_write_read_roundtrips_and_counts", mailbox_write_read_roundtrips_and_counts},
        {"mailbox_two_threads_snapshots_consistent", mailbox_two_threads_snapshots_consistent},
        {"latency_hist_summary_within_bucket", latency_hist_summary_within_bucket},
        {"registry_finds_registered_types", registry_finds_registered_types},
        {NULL, NULL},
    };
    rtc_test_add_suite("io_mailbox", NULL, NULL, cases);
}
