/*
 * Real-time thread creation (rtcosim/rt.h).
 *
 * Every attribute is in the pthread_attr before pthread_create (LinuxCNC's way): with
 * PTHREAD_EXPLICIT_SCHED the thread starts with SCHED_FIFO, its priority, its CPU set
 * and its stack, instead of inheriting the creator's and changing later. pthread calls
 * return positive error numbers; errno is not used. EPERM from pthread_create means the
 * kernel refused the policy: one warning per process, then the same attributes with
 * SCHED_OTHER.
 *
 * Every thread starts in a trampoline that, before the thread's function runs, binds the
 * prefaults half of its stack (with memory locked, the pages then stay) and binds the
 * thread to the rtlog of its options (so rtc_log() on it never formats: rtcosim/rtlog.h).
 * This is the one creator of threads in the library (tests/check/check_sources.py fails on a
 * pthread_create anywhere else): the executive's RT thread, the Jacobi workers
 * (masters/jacobi_workers.c), the substitute units (masters/substitute.c), the drivers' I/O
 * threads, and with priority 0 the recorder, monitor, watchdog, session writer, control
 * surface.
 */
#include "rtcosim/rt.h"
#include "rtcosim/rtlog.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct rtc_rt_thread {
    pthread_t id;
    bool fifo;
    int priority;
    void *(*fn)(void *);
    void *arg;
    rtc_rtlog *log;
    size_t prefault;
};

static void *trampoline(void *p)
{
    rtc_rt_thread *t = p;
    rtc_rt_prefault_stack(t->prefault); /* may allocate (pthread_getattr_np): not bound yet */
    rtc_rtlog_bind_thread(t->log);
    void *r = t->fn(t->arg);
    rtc_rtlog_bind_thread(NULL); /* the thread's end is not real-time work */
    return r;
}

static atomic_flag fifo_warned = ATOMIC_FLAG_INIT;

/* Build the attributes; returns 0 or a pthread error number. */
static int make_attr(pthread_attr_t *a, const rtc_rt_thread_opts *o, bool fifo)
{
    int e = pthread_attr_init(a);
    if (e)
        return e;
    struct sched_param sp = {.sched_priority = fifo ? o->priority : 0};
    e = pthread_attr_setinheritsched(a, PTHREAD_EXPLICIT_SCHED);
    if (!e)
        e = pthread_attr_setschedpolicy(a, fifo ? SCHED_FIFO : SCHED_OTHER);
    if (!e)
        e = pthread_attr_setschedparam(a, &sp);
    if (!e)
        e = pthread_attr_setstacksize(a, o->stack_bytes ? o->stack_bytes : (size_t)1 << 20);
    if (!e && o->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (int c = 0; c < rtc_rt_cpu_count() && c < CPU_SETSIZE; c++)
            if ((c == o->cpu) != o->avoid_cpu)
                CPU_SET(c, &set);
        if (CPU_COUNT(&set) > 0) /* avoiding the only CPU: run anywhere */
            e = pthread_attr_setaffinity_np(a, sizeof set, &set);
    }
    if (e)
        pthread_attr_destroy(a);
    return e;
}

static int create(rtc_rt_thread *t, const rtc_rt_thread_opts *o, bool fifo)
{
    pthread_attr_t a;
    int e = make_attr(&a, o, fifo);
    if (e)
        return e;
    e = pthread_create(&t->id, &a, trampoline, t);
    pthread_attr_destroy(&a);
    t->fifo = fifo;
    t->priority = fifo ? o->priority : 0;
    return e;
}

int rtc_rt_thread_start(const rtc_rt_thread_opts *o, void *(*fn)(void *), void *arg,
                        const rtc_logger *lg, rtc_rt_thread **out)
{
    if (o->priority < 0 || o->priority > 99 || o->cpu >= CPU_SETSIZE ||
        (o->cpu >= 0 && o->cpu >= rtc_rt_cpu_count()))
        return RTC_EINVAL;
    rtc_rt_thread *t = calloc(1, sizeof *t);
    if (!t)
        return RTC_ENOMEM;
    *t = (rtc_rt_thread){.fn = fn, .arg = arg, .log = o->log,
                         .prefault = (o->stack_bytes ? o->stack_bytes : (size_t)1 << 20) / 2};
    bool fifo = o->priority > 0;
    int e = create(t, o, fifo);
    if (e == EPERM && fifo) {
        if (!atomic_flag_test_and_set(&fifo_warned))
            rtc_log(lg, RTC_LOG_WARNING, "SCHED_FIFO priority %d refused (no CAP_SYS_NICE or "
                    "RLIMIT_RTPRIO): running SCHED_OTHER, timing will suffer", o->priority);
        e = create(t, o, false);
    }
    if (e) {
        rtc_log(lg, RTC_LOG_ERROR, "cannot create thread%s%s: %s", o->name ? " " : "",
                o->name ? o->name : "", strerror(e));
        free(t);
        return rtc_status_from_errno(e); /* pthread calls return the error number */
    }
    if (o->name)
        pthread_setname_np(t->id, o->name); /* cosmetic: ps/top show it; errors ignored */
    *out = t;
    return RTC_OK;
}

void rtc_rt_thread_join(rtc_rt_thread *t)
{
    if (!t)
        return;
    pthread_join(t->id, NULL);
    free(t);
}

const char *rtc_rt_thread_policy(const rtc_rt_thread *t)
{
    return t->fifo ? "SCHED_FIFO" : "SCHED_OTHER";
}

int rtc_rt_thread_priority(const rtc_rt_thread *t)
{
    return t->priority;
}

/* ---- waiting for another thread: a bounded spin, then the futex ----
 *
 * Protocol (Dekker's, through seq_cst): the waiter announces itself (waiters++), then
 * reads the word again and sleeps in FUTEX_WAIT only if it is still unchanged — the
 * kernel compares once more under its hash-bucket lock, so a change after the read makes
 * FUTEX_WAIT return at once. The waker changes the word first, then (seq_cst fence) reads
 * waiters and issues FUTEX_WAKE only if someone may sleep. One of the two always sees the
 * other: no lost wake-up, and no system call when nobody sleeps. The word is read with
 * (at least) acquire order, so what the waker wrote before changing it is visible. */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

uint32_t rtc_rt_wait_change(_Atomic uint32_t *word, _Atomic uint32_t *waiters, uint32_t old,
                            int64_t spin_ns)
{
    return rtc_rt_wait_change_until(word, waiters, old, spin_ns, 0);
}

uint32_t rtc_rt_wait_change_until(_Atomic uint32_t *word, _Atomic uint32_t *waiters,
                                  uint32_t old, int64_t spin_ns, int64_t deadline_ns)
{
    uint32_t v = atomic_load_explicit(word, memory_order_acquire);
    int64_t until = v == old && spin_ns > 0 ? rtc_time_now_ns() + spin_ns : 0;
    if (until && deadline_ns && deadline_ns < until)
        until = deadline_ns; /* the spin never outlasts the caller's deadline */
    for (unsigned i = 1; v == old && until; i++) {
        cpu_relax();
        v = atomic_load_explicit(word, memory_order_acquire);
        if ((i & 31) == 0 && rtc_time_now_ns() >= until)
            break;
    }
    /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time (FUTEX_WAIT a relative one) */
    struct timespec at = {.tv_sec = deadline_ns / 1000000000, .tv_nsec = deadline_ns % 1000000000};
    while (v == old && !(deadline_ns && rtc_time_now_ns() >= deadline_ns)) {
        atomic_fetch_add_explicit(waiters, 1, memory_order_seq_cst);
        if ((v = atomic_load_explicit(word, memory_order_seq_cst)) == old)
            syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_BITSET_PRIVATE, old,
                    deadline_ns ? &at : NULL, NULL, FUTEX_BITSET_MATCH_ANY);
        atomic_fetch_sub_explicit(waiters, 1, memory_order_relaxed);
        v = atomic_load_explicit(word, memory_order_acquire);
    }
    return v;
}

void rtc_rt_wake(_Atomic uint32_t *word, _Atomic uint32_t *waiters)
{
    atomic_thread_fence(memory_order_seq_cst); /* the caller's change before the look */
    if (atomic_load_explicit(waiters, memory_order_seq_cst) > 0)
        syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
