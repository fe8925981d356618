/* SPSC ring and recorder: ordering across threads, full-ring accounting, lossless drain. */
#include "cu_main.h"

#include "rtcosim/recorder.h"
#include "rtcosim/ring.h"
#include "rtcosim/status.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_RECORDS 2000000u

typedef struct {
    uint64_t seq;
    uint64_t check; /* ~seq: a torn record would not match */
} rec_t;

static void *producer(void *arg)
{
    rtc_ring *ring = arg;
    for (uint64_t i = 0; i < N_RECORDS;) {
        rec_t *slot = rtc_ring_reserve(ring);
        if (!slot) {
            sched_yield();
            continue;
        }
        slot->seq = i;
        slot->check = ~i;
        rtc_ring_commit(ring);
        i++;
    }
    return NULL;
}

static void ring_two_threads_keep_order_and_content(void)
{
    rtc_ring *ring;
    CU_ASSERT_EQUAL_FATAL(rtc_ring_new(sizeof(rec_t), 1000, &ring), RTC_OK);
    CU_ASSERT_EQUAL(rtc_ring_capacity(ring), 1024);
    pthread_t t;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, producer, ring), 0);
    uint64_t expect = 0, bad = 0;
    while (expect < N_RECORDS) {
        const rec_t *r = rtc_ring_peek(ring);
        if (!r) {
            sched_yield();
            continue;
        }
        bad += r->seq != expect || r->check != ~expect;
        rtc_ring_release(ring);
        expect++;
    }
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_PTR_NULL(rtc_ring_peek(ring));
    CU_ASSERT_EQUAL(rtc_ring_dropped(ring), 0);
    rtc_ring_free(ring);
}

static void ring_full_push_fails_and_counts_without_overwriting(void)
{
    rtc_ring *ring;
    CU_ASSERT_EQUAL_FATAL(rtc_ring_new(sizeof(uint64_t), 4, &ring), RTC_OK);
    for (uint64_t i = 0; i < 4; i++)
        CU_ASSERT_TRUE(rtc_ring_push(ring, &i));
    uint64_t extra = 99;
    CU_ASSERT_FALSE(rtc_ring_push(ring, &extra));
    CU_ASSERT_FALSE(rtc_ring_push(ring, &extra));
    CU_ASSERT_EQUAL(rtc_ring_dropped(ring), 2);
    CU_ASSERT_EQUAL(rtc_ring_used(ring), 4);
    CU_ASSERT_EQUAL(rtc_ring_high_water(ring), 4);
    for (uint64_t i = 0; i < 4; i++) {
        const uint64_t *v = rtc_ring_peek(ring);
        CU_ASSERT_PTR_NOT_NULL_FATAL(v);
        CU_ASSERT_EQUAL(*v, i); /* the rejected pushes changed nothing */
        rtc_ring_release(ring);
    }
    CU_ASSERT_PTR_NULL(rtc_ring_peek(ring));
    rtc_ring_free(ring);
    rtc_ring *none = NULL;
    CU_ASSERT_EQUAL(rtc_ring_new(0, 4, &none), RTC_EINVAL);
    CU_ASSERT_PTR_NULL(none); /* untouched on rejection */
    rtc_ring_free(NULL);
}

/* A fake unit with one Float64 output whose value is a counter, to drive the recorder. */
static double counter;
static int fake_get(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, void *v,
                    size_t n)
{
    (void)self;
    (void)vr;
    (void)n_vr;
    if (type != RTC_TYPE_FLOAT64 || n != 1)
        return RTC_EINVAL;
    *(double *)v = counter;
    return RTC_OK;
}

static void recorder_lossless_writes_every_row(void)
{
    static rtc_var var = {.name = "y", .vr = 7, .type = RTC_TYPE_FLOAT64,
                          .causality = RTC_CAUSALITY_OUTPUT, .derivative_of = -1};
    static rtc_model_desc md = {.n_vars = 1, .vars = &var};
    static const rtc_unit_ops ops = {.kind = "fake", .get = fake_get};
    rtc_unit unit = {.ops = &ops, .md = &md, .name = "u"};
    char dir[256], path[300];
    rtc_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/r.csv", dir);
    rtc_record *rec;
    rtc_csv *csv;
    CU_ASSERT_EQUAL_FATAL(rtc_record_new(&rec), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_record_add_outputs(rec, &unit, "u."), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_csv_open(path, &csv), RTC_OK);
    rtc_recorder *r;
    CU_ASSERT_EQUAL_FATAL(rtc_recorder_start(rec, csv, &(rtc_recorder_opts){.ring_rows = 16, .lossless = true}, &r), RTC_OK);
    const int rows = 100000;
    for (int k = 0; k < rows; k++) {
        counter = k;
        CU_ASSERT_EQUAL(rtc_recorder_push(r, (int64_t)k * 1000000), RTC_OK);
    }
    rtc_recorder_stats st;
    CU_ASSERT_EQUAL(rtc_recorder_stop(r, &st), RTC_OK);
    CU_ASSERT_EQUAL(st.rows_written, (uint64_t)rows);
    CU_ASSERT_EQUAL(st.rows_dropped, 0);
    CU_ASSERT_EQUAL(st.ring_capacity, 16);
    CU_ASSERT_EQUAL(rtc_csv_close(csv), RTC_OK);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[128];
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    CU_ASSERT_STRING_EQUAL(line, "\"time\",\"u.y\"\n");
    int n = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        double t, y;
        bad += sscanf(line, "%lf,%lf", &t, &y) != 2 || y != n || t != n / 1000.0; /* division is correctly rounded */
        n++;
    }
    fclose(f);
    CU_ASSERT_EQUAL(n, rows);
    CU_ASSERT_EQUAL(bad, 0);
    rtc_record_free(rec);
    rtc_test_rmtree(dir);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"ring_two_threads_keep_order_and_content", ring_two_threads_keep_order_and_content},
        {"ring_full_push_fails_and_counts_without_overwriting",
         ring_full_push_fails_and_counts_without_overwriting},
        {"recorder_lossless_writes_every_row", recorder_lossless_writes_every_row},
        {NULL, NULL}};
    rtc_test_add_suite("ring", NULL, NULL, cases);
}
