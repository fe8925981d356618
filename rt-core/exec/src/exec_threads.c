/*
 * The executive's non-RT side (rtcosim/exec.h): rtc_exec_run() (process set-up, thread
 * start on a barrier, join, the safe state), the monitor thread (rtlog lines, the latency
 * trace file, the status line) and the watchdog.
 *
 * DESIGN: the RT thread only ever produces into rings and single-writer atomics; every
 * formatting and file write happens here, on SCHED_OTHER threads that may block. The RT
 * thread is bound to the rtlog at creation (rtc_rt_thread_opts.log), so its rtc_log()
 * calls — and those of the workers and unit threads stepping for it — are queued as
 * format + arguments and formatted by rtc_rtlog_drain() here. The
 * monitor polls every 20 ms: a ring of RTC_EXEC trace records is sized so that 20 ms of
 * steps at 10 kHz (200 records) is far from filling it. The watchdog needs no cooperation
 * from the RT thread beyond the timestamp the thread publishes when a tick begins, so it
 * still works when the RT thread is stuck inside an FMU call.
 */
#include "exec_priv.h"

#include "rtcosim/nonfinite.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MONITOR_NAP_NS 20000000
#define STATUS_EVERY_NS 250000000

void rtc__exec_block_signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP); /* a stop signal too (the terminal went away) */
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void nap_ns(int64_t ns)
{
    struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static const char *unit_name(const rtc_exec *ex, long i)
{
    if (!ex->sys || i < 0 || (size_t)i >= rtc_system_unit_count(ex->sys))
        return "?";
    return rtc_system_unit(ex->sys, (size_t)i)->name;
}

/* Logical time of step j as text, for log lines. */
static void when(const rtc_exec *ex, int64_t j, char *buf, size_t cap)
{
    int64_t tick = ex->sys ? rtc_system_tick_ns(ex->sys) : ex->period_ns;
    rtc_time_format_s((ex->sys ? rtc_system_start_ns(ex->sys) : 0) + j * tick, buf, cap);
}

static int format_overrun(const rtc_exec *ex, const rtc_rtlog_rec *r, char *buf, size_t cap)
{
    char t[32];
    when(ex, r->a, t, sizeof t);
    long unit = (long)(r->detail >> 4) - 1;
    char cause[200];
    if (unit >= 0)
        snprintf(cause, sizeof cause, "step, unit %s (do_step %.3f ms)", unit_name(ex, unit),
                 (double)r->c / 1e6);
    else
        snprintf(cause, sizeof cause, "%s (%.3f ms)",
                 rtc_exec_phase_name((rtc_exec_phase)(r->detail & 15)), (double)r->c / 1e6);
    snprintf(buf, cap, "overrun at tick %lld (t = %s s): finished %.3f ms after the next "
             "deadline; cause: %s; policy %s", (long long)r->a, t, (double)r->b / 1e6, cause,
             rtc_exec_overrun_name(ex->o.overrun));
    return RTC_LOG_WARNING;
}

static int format_stop(const rtc_exec *ex, const rtc_rtlog_rec *r, char *buf, size_t cap)
{
    rtc_exec_stop why = (rtc_exec_stop)r->detail;
    if (why == RTC_EXEC_OVERRUNS)
        snprintf(buf, cap, "stopping at tick %lld after %u consecutive overruns (policy stop)",
                 (long long)r->a, ex->o.max_overruns);
    else if (why == RTC_EXEC_SIGNAL)
        snprintf(buf, cap, "stopping at tick %lld: signal %lld", (long long)r->a,
                 (long long)r->b);
    else if (why == RTC_EXEC_NONFINITE)
        snprintf(buf, cap, "stopping at tick %lld: a value became non-finite "
                 "(--on-nonfinite stop)", (long long)r->a);
    else if (why == RTC_EXEC_ERROR)
        snprintf(buf, cap, "stopping at tick %lld: %s", (long long)r->a, rtc_strerror((int)r->b));
    else if (why == RTC_EXEC_LINK)
        snprintf(buf, cap, "stopping at tick %lld: I/O component %s lost its link past its "
                 "on_loss policy", (long long)r->a, unit_name(ex, ex->stop_unit));
    else
        snprintf(buf, cap, "stopping at tick %lld: %s", (long long)r->a, rtc_exec_stop_name(why));
    return why == RTC_EXEC_END || why == RTC_EXEC_REQUEST ? RTC_LOG_INFO : RTC_LOG_WARNING;
}

/* rtlog formatter: runs on the monitor thread (or the caller after the join). */
static int format_rec(void *user, const rtc_rtlog_rec *r, char *buf, size_t cap)
{
    const rtc_exec *ex = user;
    long long k = (long long)r->a;
    switch (r->code) {
    case RTC_RTLOG_OVERRUN: return format_overrun(ex, r, buf, cap);
    case RTC_RTLOG_STOPPING: return format_stop(ex, r, buf, cap);
    case RTC_RTLOG_SKIP:
        snprintf(buf, cap, "skip after tick %lld: %lld period(s) skipped, gap %.3f ms; logical "
                 "time unchanged", k, (long long)r->b, (double)r->c / 1e6);
        return RTC_LOG_WARNING;
    case RTC_RTLOG_STEP_FAILED:
        snprintf(buf, cap, "tick %lld: step failed: %s", k, rtc_strerror((int)r->b));
        return RTC_LOG_ERROR;
    case RTC_RTLOG_PAUSED: snprintf(buf, cap, "paused before tick %lld", k); break;
    case RTC_RTLOG_RESUMED:
        snprintf(buf, cap, "resumed at tick %lld: schedule re-anchored to now", k);
        break;
    case RTC_RTLOG_SINGLE_STEP: snprintf(buf, cap, "single step: tick %lld", k); break;
    case RTC_RTLOG_ROW_DROPPED:
        snprintf(buf, cap, "tick %lld: result row dropped (recorder ring full)", k);
        return RTC_LOG_WARNING;
    case RTC_RTLOG_SUBSTITUTE:
        snprintf(buf, cap, "substitute: a unit missed tick %lld's deadline and keeps running; its "
                 "outputs are extrapolated until it catches up (%lld late step(s) so far)", k,
                 (long long)r->b);
        return RTC_LOG_WARNING;
    case EXEC_RTLOG_NONFINITE: {
        const rtc_nonfinite *nf = rtc_system_nonfinite(ex->sys);
        if (!nf || (size_t)r->b >= rtc_nonfinite_count(nf))
            break;
        rtc_nonfinite_event e = rtc_nonfinite_get(nf, (size_t)r->b);
        char name[300];
        rtc_system_nonfinite_name(ex->sys, e.id, name, sizeof name);
        snprintf(buf, cap, "non-finite value: %s = %s at t = %.9g s, tick %lld (reported once "
                 "per variable)", name, e.value != e.value ? "nan" : e.value > 0 ? "inf" : "-inf",
                 (double)e.t_ns / 1e9, k);
        return RTC_LOG_WARNING;
    }
    case RTC_RTLOG_TRACE_DROPPED:
        snprintf(buf, cap, "tick %lld: latency trace record dropped (ring full)", k);
        return RTC_LOG_WARNING;
    default:
        snprintf(buf, cap, "rtlog code %u: %lld %lld %lld", r->code, k, (long long)r->b,
                 (long long)r->c);
    }
    return RTC_LOG_INFO;
}

/* Trace records to latency.csv; flushed every batch so readers (scripts/plot, a test
 * waiting for the run to start) see the file grow while the run goes on. */
static void drain_trace(rtc_exec *ex)
{
    const trace_rec *r;
    bool any = false;
    while (ex->trace && (r = rtc_ring_peek(ex->trace)) != NULL) {
        if (ex->trace_file)
            fprintf(ex->trace_file, "%lld,%lld,%lld\n", (long long)r->k,
                    (long long)r->wakeup_ns, (long long)r->step_ns);
        rtc_ring_release(ex->trace);
        any = true;
    }
    if (any && ex->trace_file)
        fflush(ex->trace_file);
}

/* One status line: simulated time, measured RTF over the last interval, p99, overruns. */
static void status_line(rtc_exec *ex, int64_t *last_wall, int64_t *last_sim)
{
    int64_t now = rtc_time_now_ns(), sim = atomic_load_explicit(&ex->sim_ns,
                                                                  memory_order_relaxed);
    double rtf = now > *last_wall ? (double)(sim - *last_sim) / (double)(now - *last_wall) : 0;
    char extra[256] = "";
    if (ex->o.status_extra)
        ex->o.status_extra(ex->o.status_user, extra, sizeof extra);
    fprintf(stderr, "\r\033[Ksim %.3f s  RTF %.2f  p99 wake-up %.1f us  overruns %llu%s%s%s",
            (double)sim / 1e9, rtf, (double)rtc_hist_quantile(ex->h_wake, 0.99) / 1e3,
            (unsigned long long)atomic_load_explicit(&ex->overruns, memory_order_relaxed),
            rtc_exec_is_paused(ex) ? "  [paused]" : "", extra[0] ? "  " : "", extra);
    *last_wall = now;
    *last_sim = sim;
}

void *rtc__exec_monitor_main(void *arg)
{
    rtc_exec *ex = arg;
    rtc__exec_block_signals();
    bool status = ex->o.status_line && isatty(STDERR_FILENO);
    int64_t last_wall = rtc_time_now_ns(), last_sim = 0, next_status = last_wall;
    for (;;) {
        /* acquire: after the RT thread's join (main stores with release), all its
         * records are in the rings and drained below */
        bool last = atomic_load_explicit(&ex->mon_stop, memory_order_acquire);
        rtc_rtlog_drain(ex->log);
        drain_trace(ex);
        if (status && (last || rtc_time_now_ns() >= next_status)) {
            status_line(ex, &last_wall, &last_sim);
            next_status += STATUS_EVERY_NS;
        }
        if (last)
            break;
        nap_ns(MONITOR_NAP_NS);
    }
    if (status)
        fputc('\n', stderr);
    return NULL;
}

static void watchdog_fire(rtc_exec *ex, int64_t stuck_ns)
{
    long u = atomic_load_explicit(&ex->cur_unit, memory_order_relaxed);
    char where[200] = "";
    if (u >= 0)
        snprintf(where, sizeof where, " in unit %s (do_step)", unit_name(ex, u));
    rtc_log(ex->lg, RTC_LOG_ERROR, "watchdog: the real-time thread has been in tick %lld for "
            "%.1f ms (limit %.1f ms)%s; applying the safe state and exiting",
            (long long)atomic_load_explicit(&ex->cur_k, memory_order_relaxed),
            (double)stuck_ns / 1e6, (double)ex->o.watchdog_ns / 1e6, where);
    ex->hung_unit = u;
    atomic_store_explicit(&ex->stop, RTC_EXEC_WATCHDOG, memory_order_release);
    rtc__exec_apply_safe(ex);
    if (ex->o.on_watchdog)
        ex->o.on_watchdog(ex, ex->o.watchdog_user);
    _exit(RTC_EXEC_WATCHDOG_EXIT); /* the stuck call cannot be cancelled */
}

void *rtc__exec_watchdog_main(void *arg)
{
    rtc_exec *ex = arg;
    rtc__exec_block_signals();
    int64_t limit = ex->o.watchdog_ns, nap = limit / 4;
    nap = nap > 20000000 ? 20000000 : nap < 1000000 ? 1000000 : nap;
    while (!atomic_load_explicit(&ex->mon_stop, memory_order_acquire)) {
        nap_ns(nap);
        int64_t begin = atomic_load_explicit(&ex->step_begin_ns, memory_order_relaxed);
        int64_t now = rtc_time_now_ns();
        if (begin != 0 && now - begin > limit)
            watchdog_fire(ex, now - begin);
    }
    return NULL;
}

/* Wait on ex->wake up to the absolute CLOCK_REALTIME time @p until (NULL: forever).
 * Returns false on the timeout. */
static bool wake_wait(rtc_exec *ex, const struct timespec *until)
{
    for (;;) {
        int r = until ? sem_timedwait(&ex->wake, until) : sem_wait(&ex->wake);
        if (r == 0)
            return true;
        if (errno != EINTR)
            return false; /* ETIMEDOUT */
    }
}

/* Block until the RT thread's loop ends. Once a stop is requested, wait stop_grace_ns
 * more; a thread still inside a unit's step then is abandoned (exec_priv.h, RT_ABANDONED)
 * and false is returned — it must not be joined. A thread that is between steps (it won
 * the race) is waited for without limit: it is at most one boundary away. */
static struct timespec realtime_in(int64_t ns)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    ns += t.tv_nsec;
    t.tv_sec += (time_t)(ns / 1000000000);
    t.tv_nsec = ns % 1000000000;
    return t;
}

static bool wait_rt(rtc_exec *ex)
{
    struct timespec until, budget = realtime_in(ex->o.max_wall_ns);
    bool grace = false, limited = ex->o.max_wall_ns > 0;
    while (!atomic_load_explicit(&ex->rt_done, memory_order_acquire)) {
        if (!grace && atomic_load_explicit(&ex->ctl_stop, memory_order_acquire) &&
            ex->o.stop_grace_ns > 0) {
            grace = true;
            until = realtime_in(ex->o.stop_grace_ns);
        }
        if (limited && !grace) { /* max_wall_ns: the run's time is up, a stop request */
            if (!wake_wait(ex, &budget)) {
                limited = false;
                rtc_exec_request_stop(ex);
            }
            continue;
        }
        if (wake_wait(ex, grace ? &until : NULL) || !grace)
            continue;
        long u = atomic_load_explicit(&ex->cur_unit, memory_order_relaxed);
        int in = RT_IN_STEP;
        if (atomic_compare_exchange_strong_explicit(&ex->rt_phase, &in, RT_ABANDONED,
                                                    memory_order_acq_rel,
                                                    memory_order_acquire)) {
            ex->hung_unit = u;
            rtc_log(ex->lg, RTC_LOG_ERROR, "stop: unit %s has been inside its step for more "
                    "than the %.1f s grace; leaving it (no further call into it)",
                    unit_name(ex, u), (double)ex->o.stop_grace_ns / 1e9);
            return false;
        }
        grace = false; /* it left the step: wait for the boundary */
        ex->o.stop_grace_ns = 0;
    }
    return true;
}

/* Process set-up, rtlog formatting, the trace file: everything before the threads. */
static int arm_run(rtc_exec *ex)
{
    int rc = RTC_OK;
    if (ex->o.lock_memory)
        rc = rtc_rt_prepare_process(ex->o.heap_reserve, ex->o.hard, ex->lg, &ex->info);
    else
        rtc_rt_detect(&ex->info);
    if (rc != RTC_OK)
        return rc;
    static const uint32_t recurring[] = {RTC_RTLOG_OVERRUN, RTC_RTLOG_SKIP,
                                         RTC_RTLOG_ROW_DROPPED, RTC_RTLOG_TRACE_DROPPED,
                                         RTC_RTLOG_SUBSTITUTE};
    for (size_t i = 0; i < sizeof recurring / sizeof recurring[0]; i++)
        rtc_rtlog_set_recurring(ex->log, recurring[i], true);
    rtc_rtlog_set_format(ex->log, format_rec, ex);
    if (ex->o.trace_path) {
        ex->trace_file = fopen(ex->o.trace_path, "w");
        if (!ex->trace_file) {
            int st = rtc_status_from_errno(errno);
            rtc_log(ex->lg, RTC_LOG_ERROR, "%s: cannot create the latency trace: %s",
                    ex->o.trace_path, rtc_strerror(st));
            return st;
        }
        fprintf(ex->trace_file, "step,wakeup_latency_ns,step_time_ns\n");
    }
    return RTC_OK;
}

/* Start the RT thread (waiting on the barrier), the monitor and the watchdog. */
static int start_threads(rtc_exec *ex)
{
    rtc_rt_thread_opts to = {.priority = ex->o.priority, .cpu = ex->o.cpu,
                             .stack_bytes = ex->o.stack_bytes, .name = "rtcosim-rt",
                             .log = ex->log}; /* its rtc_log() lines: queued, formatted here */
    int rc = rtc_rt_thread_start(&to, rtc__exec_rt_main, ex, ex->lg, &ex->rt);
    if (rc != RTC_OK)
        return rc;
    ex->policy = rtc_rt_thread_policy(ex->rt);
    ex->priority = rtc_rt_thread_priority(ex->rt);
    /* the helpers stay off the RT thread's CPU (when there is another one), so their
     * wake-ups never compete with it for its core */
    rtc_rt_thread_opts ho = {.priority = 0, .cpu = ex->o.cpu, .avoid_cpu = true,
                             .name = "rtcosim-monitor"};
    rc = rtc_rt_thread_start(&ho, rtc__exec_monitor_main, ex, ex->lg, &ex->mon);
    ho.name = "rtcosim-watch";
    if (rc == RTC_OK && ex->o.watchdog_ns > 0)
        rc = rtc_rt_thread_start(&ho, rtc__exec_watchdog_main, ex, ex->lg, &ex->wd);
    if (rc != RTC_OK) {
        rtc_log(ex->lg, RTC_LOG_ERROR, "cannot start the monitor/watchdog thread");
        rtc_exec_request_stop(ex); /* the RT thread stops at its first boundary */
    }
    return rc;
}

int rtc_exec_run(rtc_exec *ex)
{
    if (ex->ran)
        return RTC_ESTATE;
    ex->ran = true;
    int rc = arm_run(ex);
    if (rc != RTC_OK)
        goto out;
    bool go = rtc__exec_links_ready(ex); /* before t0: the required links are up */
    int64_t t0 = go && ex->o.start_at ? ex->o.start_at(ex->o.start_user, ex) : 0;
    if (t0 < 0) { /* refused before t0: the drivers still go to their safe values */
        rc = (int)t0;
        rtc__exec_apply_safe(ex);
        goto out;
    }
    ex->t0_agreed = t0;
    pthread_barrier_init(&ex->start, NULL, 2);
    rc = go ? start_threads(ex) : RTC_OK;
    bool joined = true;
    if (ex->rt) {
        pthread_barrier_wait(&ex->start); /* every thread exists: the run begins */
        joined = wait_rt(ex);
        if (joined) {
            rtc_rt_thread_join(ex->rt);
        } else {
            /* the RT thread cannot record why it stopped: the request says it */
            int req = atomic_load_explicit(&ex->ctl_stop, memory_order_acquire);
            ex->stop_signal = req >> 8;
            atomic_store_explicit(&ex->stop, req & 0xff, memory_order_release);
        }
        ex->rt = NULL; /* abandoned: the thread stays parked until the process ends */
    }
    pthread_barrier_destroy(&ex->start);
    /* release: the monitor's last drain sees every record of the joined RT thread */
    atomic_store_explicit(&ex->mon_stop, true, memory_order_release);
    rtc_rt_thread_join(ex->mon);
    rtc_rt_thread_join(ex->wd);
    ex->mon = ex->wd = NULL;
    rtc__exec_apply_safe(ex); /* every stop, one path: drivers to their safe values */
    rtc_rtlog_drain(ex->log);
    rtc_rtlog_report(ex->log);
    if (rc == RTC_OK) {
        rtc_exec_stop why = rtc_exec_stop_reason(ex);
        rc = why == RTC_EXEC_ERROR ? ex->stop_status : why == RTC_EXEC_OVERRUNS ? RTC_ELIMIT
             : why == RTC_EXEC_LINK ? RTC_EIO : RTC_OK;
    }
out:
    if (ex->trace_file)
        fclose(ex->trace_file);
    ex->trace_file = NULL;
    rtc_rt_release_process();
    return rc;
}
