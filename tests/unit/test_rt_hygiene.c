/*
 * RT hygiene of the executive (issue 4, item 2): while the coupled mass-spring-damper runs
 * in real time with recording and the latency trace on, the RT thread makes no
 * malloc/calloc/realloc/free call and takes no page fault.
 *
 * How: this executable defines malloc, calloc, realloc and free itself (they win over
 * libc's at symbol resolution) and forwards them to glibc's __libc_* entry points,
 * counting the calls made while rtc_exec_is_rt_thread() is true — the executive sets that
 * thread-local flag on its RT thread after arming and clears it at the end of the loop.
 * Under ASan/TSan, whose allocators must stay in charge, the sanitizers' own malloc/free
 * hooks count instead. A positive control proves the counters are live: clock_nanosleep is
 * interposed too, and the RT thread must be seen sleeping in it (flag true) on every step.
 * Page faults: the executive reads getrusage(RUSAGE_THREAD) on the RT thread before and
 * after its loop; both counts must be 0 — asserted only when memory could be locked
 * (otherwise the skip and its reason are printed).
 */
#include "cu_main.h"
#include "fmu_util.h"

#include "rtcosim/csv.h"
#include "rtcosim/exec.h"
#include "rtcosim/recorder.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static _Atomic unsigned long rt_mallocs, rt_frees, any_mallocs, rt_sleeps;

static void count_alloc(void)
{
    atomic_fetch_add_explicit(&any_mallocs, 1, memory_order_relaxed);
    if (rtc_exec_is_rt_thread())
        atomic_fetch_add_explicit(&rt_mallocs, 1, memory_order_relaxed);
}

static void count_free(void)
{
    if (rtc_exec_is_rt_thread())
        atomic_fetch_add_explicit(&rt_frees, 1, memory_order_relaxed);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* From the sanitizers' allocator interface (compiler-rt allocator_interface.h; GCC
 * does not install the header): hooks called on every malloc and free. */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));

static void san_malloc_hook(const volatile void *p, size_t n)
{
    (void)p;
    (void)n;
    count_alloc();
}

static void san_free_hook(const volatile void *p)
{
    (void)p;
    count_free();
}

static void install_counting(void)
{
    __sanitizer_install_malloc_and_free_hooks(san_malloc_hook, san_free_hook);
}
#else
/* glibc's real allocator entry points (exported for exactly this kind of wrapper). */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

void *malloc(size_t n)
{
    count_alloc();
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    count_alloc();
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    count_alloc();
    return __libc_realloc(p, n);
}

void free(void *p)
{
    if (p)
        count_free();
    __libc_free(p);
}

static void install_counting(void)
{
}
#endif

/* Positive control: the RT thread's sleeps, seen through the same flag. */
typedef int (*nanosleep_fn)(clockid_t, int, const struct timespec *, struct timespec *);
static nanosleep_fn real_clock_nanosleep;

int clock_nanosleep(clockid_t c, int flags, const struct timespec *t, struct timespec *rem)
{
    if (rtc_exec_is_rt_thread())
        atomic_fetch_add_explicit(&rt_sleeps, 1, memory_order_relaxed);
    return real_clock_nanosleep(c, flags, t, rem);
}

static char work[512];

static int setup(void)
{
    /* resolved here, on the main thread: dlsym may allocate */
    real_clock_nanosleep = (nanosleep_fn)dlsym(RTLD_NEXT, "clock_nanosleep");
    install_counting();
    rtc_test_tmpdir(work, sizeof work);
    return real_clock_nanosleep ? 0 : -1;
}

static int teardown(void)
{
    rtc_test_rmtree(work);
    return 0;
}

typedef struct run {
    rtc_system *sys;
    rtc_record *rec;
    rtc_csv *csv;
    rtc_recorder *r;
    rtc_exec *ex;
    tlog log;
} run;

/* Load msd-jacobi, record every output, arm the executive at rtf 10 (1 ms period). */
static void arm(run *x)
{
    rtc_unit_factory f;
    char path[700], trace[700];
    CU_ASSERT_EQUAL_FATAL(rtc_fmu_factory(&f), RTC_OK);
    tlog_init(&x->log);
    x->log.lg.max_level = RTC_LOG_WARNING;
    snprintf(path, sizeof path, "%s/msd-jacobi.ssp", RTC_TEST_CONFIG_DIR);
    rtc_system_options so = {.has_stop = true, .stop_ns = INT64_C(2000000000)};
    CU_ASSERT_EQUAL_FATAL(rtc_system_load(path, &f, 1, &so, &x->log.lg, &x->sys), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_record_new(&x->rec), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_system_record(x->sys, x->rec, NULL, 0), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_system_init(x->sys), RTC_OK);
    snprintf(path, sizeof path, "%s/results.csv", work);
    CU_ASSERT_EQUAL_FATAL(rtc_csv_open(path, &x->csv), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_recorder_start(x->rec, x->csv, &(rtc_recorder_opts){.ring_rows = 65536}, &x->r), RTC_OK);
    rtc_exec_options o;
    rtc_exec_options_init(&o);
    o.rtf = 2; /* 10 ms tick → 5 ms period, 200 steps, 1 s */
    o.recorder = x->r;
    snprintf(trace, sizeof trace, "%s/latency.csv", work);
    o.trace_path = trace;
    o.lg = &x->log.lg;
    CU_ASSERT_EQUAL_FATAL(rtc_exec_new(x->sys, &o, &x->ex), RTC_OK);
}

static void disarm(run *x)
{
    rtc_exec_free(x->ex);
    rtc_recorder_stats rs;
    CU_ASSERT_EQUAL(rtc_recorder_stop(x->r, &rs), RTC_OK);
    CU_ASSERT_EQUAL(rs.rows_written, 201);
    CU_ASSERT_EQUAL(rs.rows_dropped, 0);
    rtc_csv_close(x->csv);
    rtc_system_free(x->sys);
    rtc_record_free(x->rec);
}

static void rt_thread_allocates_nothing_and_takes_no_page_fault(void)
{
    run x;
    arm(&x);
    /* the counters work: an allocation here (main thread) counts as "any", not as RT */
    unsigned long before = atomic_load(&any_mallocs);
    void *volatile probe = malloc(64);
    free(probe);
    CU_ASSERT(atomic_load(&any_mallocs) > before);
    CU_ASSERT_FALSE(rtc_exec_is_rt_thread());
    atomic_store(&rt_mallocs, 0);
    atomic_store(&rt_frees, 0);
    atomic_store(&rt_sleeps, 0);

    int rc = rtc_exec_run(x.ex);
    if (rc != RTC_OK)
        printf("\n    run failed: %s; log:\n%s", rtc_strerror(rc), x.log.text);
    CU_ASSERT_EQUAL_FATAL(rc, RTC_OK);
    rtc_exec_stats st;
    rtc_exec_stats_get(x.ex, &st);
    printf("\n    %llu steps (%s), RT thread: %lu mallocs, %lu frees, %lu sleeps, "
           "%ld minor / %ld major faults", (unsigned long long)st.steps, st.sched_policy,
           atomic_load(&rt_mallocs), atomic_load(&rt_frees), atomic_load(&rt_sleeps),
           st.minor_faults, st.major_faults);
    CU_ASSERT_EQUAL(st.steps, 200);
    CU_ASSERT_EQUAL(st.stop, RTC_EXEC_END);
    CU_ASSERT(atomic_load(&rt_sleeps) >= 200); /* positive control: the flag was live */
    CU_ASSERT_EQUAL(atomic_load(&rt_mallocs), 0);
    CU_ASSERT_EQUAL(atomic_load(&rt_frees), 0);
    CU_ASSERT_FALSE(rtc_exec_is_rt_thread());
    if (st.rt.memory_locked) {
        CU_ASSERT_EQUAL(st.minor_faults, 0);
        CU_ASSERT_EQUAL(st.major_faults, 0);
    } else {
        rtc_test_skip("rt_thread page-fault assertion",
                      st.rt.sanitizer ? "sanitizer build: memory is not locked"
                                      : "mlockall failed (no privileges): faults are possible");
        CU_ASSERT(st.minor_faults >= 0); /* measured all the same */
    }
    disarm(&x);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"rt_thread_allocates_nothing_and_takes_no_page_fault",
         rt_thread_allocates_nothing_and_takes_no_page_fault},
        {NULL, NULL}};
    rtc_test_add_suite("rt_hygiene", setup, teardown, cases);
}
