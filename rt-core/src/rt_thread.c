/*
 * Real-time thread creation (rtcosim/rt.h).
 *
 * Every attribute is in the pthread_attr before pthread_create (LinuxCNC's way): with
 * PTHREAD_EXPLICIT_SCHED the thread starts with SCHED_FIFO, its priority, its CPU set
 * and its stack, instead of inheriting the creator's and changing later. pthread calls
 * return positive error numbers; errno is not used. EPERM from pthread_create means the
 * kernel refused the policy: one warning per process, then the same attributes with
 * SCHED_OTHER.
 */
#include "rtcosim/rt.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct rtc_rt_thread {
    pthread_t id;
    bool fifo;
    int priority;
};

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
        CPU_SET(o->cpu, &set);
        e = pthread_attr_setaffinity_np(a, sizeof set, &set);
    }
    if (e)
        pthread_attr_destroy(a);
    return e;
}

static int create(rtc_rt_thread *t, const rtc_rt_thread_opts *o, bool fifo,
                  void *(*fn)(void *), void *arg)
{
    pthread_attr_t a;
    int e = make_attr(&a, o, fifo);
    if (e)
        return e;
    e = pthread_create(&t->id, &a, fn, arg);
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
    bool fifo = o->priority > 0;
    int e = create(t, o, fifo, fn, arg);
    if (e == EPERM && fifo) {
        if (!atomic_flag_test_and_set(&fifo_warned))
            rtc_log(lg, RTC_LOG_WARNING, "SCHED_FIFO priority %d refused (no CAP_SYS_NICE or "
                    "RLIMIT_RTPRIO): running SCHED_OTHER, timing will suffer", o->priority);
        e = create(t, o, false, fn, arg);
    }
    if (e) {
        rtc_log(lg, RTC_LOG_ERROR, "cannot create thread%s%s: %s", o->name ? " " : "",
                o->name ? o->name : "", strerror(e));
        free(t);
        return RTC_ESYS;
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
