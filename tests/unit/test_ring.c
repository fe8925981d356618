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
#include <time.h>

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
static bool get_fails;
static int fake_get(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, void *v,
                    size_t n)
{
    (void)self;
    (void)vr;
    (void)n_vr;
    if (type != RTC_TYPE_FLOAT64 || n != 1 || get_fails)
        return RTC_EINVAL;
    *(double *)v = counter;
    return RTC_OK;
}

/* A recording of the fake unit's output "u.y" into a fresh r.csv. */
typedef struct rec_fixture {
    rtc_unit unit;
    rtc_record *rec;
    rtc_csv *csv;
    rtc_recorder *r;
    char dir[256], path[300];
} rec_fixture;

static void rec_open(rec_fixture *x, size_t ring_rows)
{
    static rtc_var var = {.name = "y", .vr = 7, .type = RTC_TYPE_FLOAT64,
                          .causality = RTC_CAUSALITY_OUTPUT, .derivative_of = -1};
    static rtc_model_desc md = {.n_vars = 1, .vars = &var};
    static const rtc_unit_ops ops = {.kind = "fake", .get = fake_get};
    x->unit = (rtc_unit){.ops = &ops, .md = &md, .name = "u"};
    rtc_test_tmpdir(x->dir, sizeof x->dir);
    snprintf(x->path, sizeof x->path, "%s/r.csv", x->dir);
    CU_ASSERT_EQUAL_FATAL(rtc_record_new(&x->rec), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_record_add_outputs(x->rec, &x->unit, "u."), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_csv_open(x->path, &x->csv), RTC_OK);
    rtc_recorder_opts o = {.ring_rows = ring_rows, .lossless = true};
    CU_ASSERT_EQUAL_FATAL(rtc_recorder_start(x->rec, x->csv, &o, &x->r), RTC_OK);
}

/* Stop the recorder (its stats into @p st), close the file. */
static void rec_close(rec_fixture *x, rtc_recorder_stats *st)
{
    CU_ASSERT_EQUAL(rtc_recorder_stop(x->r, st), RTC_OK);
    CU_ASSERT_EQUAL(rtc_csv_close(x->csv), RTC_OK);
}

static void rec_free(rec_fixture *x)
{
    rtc_record_free(x->rec);
    rtc_test_rmtree(x->dir);
}

static void recorder_lossless_writes_every_row(void)
{
    rec_fixture x;
    rec_open(&x, 16);
    const int rows = 100000;
    for (int k = 0; k < rows; k++) {
        counter = k;
        CU_ASSERT_EQUAL(rtc_recorder_push(x.r, (int64_t)k * 1000000), RTC_OK);
    }
    rtc_recorder_stats st;
    rec_close(&x, &st);
    CU_ASSERT_EQUAL(st.rows_written, (uint64_t)rows);
    CU_ASSERT_EQUAL(st.rows_dropped, 0);
    CU_ASSERT_EQUAL(st.ring_capacity, 16);
    FILE *f = fopen(x.path, "r");
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
    rec_free(&x);
}

/* Lines in @p path now (0 when it cannot be read). */
static int file_lines(const char *path)
{
    char *text = rtc_test_slurp(path, NULL);
    int n = 0;
    for (const char *p = text; p && *p; p++)
        n += *p == '\n';
    free(text);
    return n;
}

/* Rows fewer than a batch still reach the file on the recorder's flush tick while the
 * producer pushes nothing more; a push whose values cannot be fetched queues nothing. */
static void recorder_flushes_a_partial_batch_on_its_tick(void)
{
    rec_fixture x;
    rec_open(&x, 4096);
    const int rows = 5; /* fewer than the recorder takes at once */
    for (int k = 0; k < rows; k++) {
        counter = 0.25 * k;
        CU_ASSERT_EQUAL(rtc_recorder_push(x.r, (int64_t)k * 1000000), RTC_OK);
    }
    get_fails = true;
    CU_ASSERT_EQUAL(rtc_recorder_push(x.r, rows * 1000000), RTC_EINVAL);
    get_fails = false;
    /* the header and every row, with no further push and no stop (deadline: a failure) */
    for (int i = 0; i < 3000 && file_lines(x.path) < 1 + rows; i++)
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    CU_ASSERT_EQUAL(file_lines(x.path), 1 + rows);
    rtc_recorder_stats st;
    rec_close(&x, &st);
    CU_ASSERT_EQUAL(st.rows_written, (uint64_t)rows);
    char *text = rtc_test_slurp(x.path, NULL);
    CU_ASSERT_STRING_EQUAL(text, "\"time\",\"u.y\"\n0,0\n0.001,0.25\n0.002,0.5\n0.003,0.75\n"
                                 "0.004,1\n");
    free(text);
    rec_free(&x);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"ring_two_threads_keep_order_and_content", ring_two_threads_keep_order_and_content},
        {"ring_full_push_fails_and_counts_without_overwriting",
         ring_full_push_fails_and_counts_without_overwriting},
        {"recorder_lossless_writes_every_row", recorder_lossless_writes_every_row},
        {"recorder_flushes_a_partial_batch_on_its_tick",
         recorder_flushes_a_partial_batch_on_its_tick},
        {NULL, NULL}};
    rtc_test_add_suite("ring", NULL, NULL, cases);
}
