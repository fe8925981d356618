/*
 * The executive's side of the link contract (DESIGN.md T2, rtcosim/driver.h): before t0
 * the run waits for its required links up to their connect deadlines and is refused when
 * one is not up (no tick runs, nothing was sent to a bench: the I/O units hold their
 * outputs until the first tick); at every tick boundary the RT thread asks each link's
 * loss policy whether the run must stop (estimate:T run out, or stop).
 *
 * DESIGN: the links are collected at arm (rtc_exec_new): pointers into the drivers'
 * bases, valid while the system lives. The RT thread's check reads their atomics only
 * (rtc_link_must_stop): no lock, no call into a driver, no allocation.
 */
#include "exec_priv.h"

#include "rtcosim/io_unit.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <stdlib.h>

#define CONNECT_SLICE_NS INT64_C(5000000) /* the wait looks at the links this often */

int rtc__exec_links_arm(rtc_exec *ex)
{
    size_t n = ex->sys ? rtc_system_unit_count(ex->sys) : 0, k = 0;
    for (size_t i = 0; i < n; i++)
        k += rtc_io_unit_contract(rtc_system_unit(ex->sys, i)) != NULL;
    if (!k)
        return RTC_OK;
    ex->links = calloc(k, sizeof *ex->links);
    ex->link_unit = calloc(k, sizeof *ex->link_unit);
    if (!ex->links || !ex->link_unit)
        return RTC_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        rtc_link *l = rtc_io_unit_contract(rtc_system_unit(ex->sys, i));
        if (l) {
            ex->links[ex->n_links] = l;
            ex->link_unit[ex->n_links++] = i;
        }
    }
    return RTC_OK;
}

void rtc__exec_links_free(rtc_exec *ex)
{
    free(ex->links);
    free(ex->link_unit);
}

/* The first link that is not ready at @p now, and whether the run may still wait for it;
 * -1 when every required one is up. */
static long first_waiting(const rtc_exec *ex, int64_t now, bool *failed)
{
    for (size_t i = 0; i < ex->n_links; i++) {
        rtc_link_connect c = rtc_link_connect_check(ex->links[i], now);
        if (c != RTC_LINK_CONNECT_READY) {
            *failed = c == RTC_LINK_CONNECT_FAILED;
            return (long)i;
        }
    }
    return -1;
}

/* Sleep on the stop semaphore up to @p ns (a signal or a stop request wakes it). */
static void nap(rtc_exec *ex, int64_t ns)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    int64_t t = until.tv_nsec + ns;
    until.tv_sec += (time_t)(t / 1000000000);
    until.tv_nsec = t % 1000000000;
    if (sem_timedwait(&ex->wake, &until) == 0)
        sem_post(&ex->wake); /* (the stop path waits on it again) */
}

bool rtc__exec_links_ready(rtc_exec *ex)
{
    bool failed = false, said = false;
    long i;
    while ((i = first_waiting(ex, rtc_time_now_ns(), &failed)) >= 0 && !failed) {
        int req = atomic_load_explicit(&ex->ctl_stop, memory_order_acquire);
        if (req) { /* a signal or a request while waiting: that is the stop */
            ex->stop_signal = req >> 8;
            atomic_store_explicit(&ex->stop, req & 0xff, memory_order_release);
            return false;
        }
        if (!said && ex->sys)
            rtc_log(ex->lg, RTC_LOG_INFO, "waiting for I/O component %s to connect before "
                    "the first tick", rtc_system_unit(ex->sys, ex->link_unit[i])->name);
        said = true;
        nap(ex, CONNECT_SLICE_NS);
    }
    if (i < 0)
        return true;
    ex->stop_unit = (long)ex->link_unit[i];
    ex->stop_lost_ns = 0; /* never up: refused before t0 */
    atomic_store_explicit(&ex->stop, RTC_EXEC_LINK, memory_order_release);
    return false;
}

bool rtc__exec_links_lost(rtc_exec *ex, int64_t now, long *unit, int64_t *lost)
{
    for (size_t i = 0; i < ex->n_links; i++) {
        int64_t at = rtc_link_must_stop(ex->links[i], now);
        if (at) {
            *unit = (long)ex->link_unit[i];
            *lost = at;
            return true;
        }
    }
    return false;
}
