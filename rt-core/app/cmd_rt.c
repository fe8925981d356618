/*
 * `rtcosim run SYSTEM --realtime`: the real-time path of the system runner (cmd_system.c
 * parses the common options, loads, initializes and starts the recorder; this file paces
 * the run with the executive, rtcosim/exec.h, and writes the timing files).
 *
 * Signals: SIGINT/SIGTERM/SIGHUP handlers store the signal into the executive with one
 * atomic (async-signal-safe); the RT thread stops at its next step boundary, the safe
 * state is applied, and the caller flushes the CSV and writes the summary; the process
 * exits with 128 + signal (130 SIGINT, 143 SIGTERM, 129 SIGHUP: the terminal or the
 * session went away), like a shell reports a killed job. SIGPIPE and SIGXFSZ are ignored
 * for the whole process (main.c), so a closed pipe or a file-size limit is a write error
 * on this same path (exit 4).
 * A unit still inside its step RTC_EXEC_STOP_GRACE_NS (2 s) after the signal is left
 * there: the safe state is applied, the rows so far flushed, summary.json names the unit,
 * the temporary directories are removed, and the process exits without another call into
 * the unit and without unloading it (rescue()). The watchdog (on by default) ends a
 * stuck run the same way, with exit status 3.
 *
 * --test-safe-file PATH (for tests, documented in the help): registers a safe-state
 * callback that writes "safe\n" to PATH — a stand-in for an I/O driver's safe values,
 * so a test can check that every kind of stop reaches the safe state.
 */
#include "cli.h"
#include "cli_nodes.h"
#include "rt_cli.h"

#include "rtcosim/archive.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/driver.h"
#include "rtcosim/mailbox.h"
#include "rtcosim/status.h"

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void rtc_cli_rt_init(rtc_cli_rt *rt)
{
    *rt = (rtc_cli_rt){.rtf = 1.0, .priority = 80, .cpu = -1, .max_overruns = 3,
                       .control_port = -1, .http_port = -1, .dcp_port = -1,
                       .dcp_heartbeat_ms = 3000};
}

/* Whether option @p id (RTC_CLI_REALTIME..RTC_CLI_DCP_HEARTBEAT_MS) was on the command line: the
 * system file's settings fill in the others. */
#define GIVEN(rt, id) ((rt)->given & (1u << ((id) - RTC_CLI_REALTIME)))

bool rtc_cli_rt_option(rtc_cli_rt *rt, int id, const rtc_cli_val *v)
{
    if (id < RTC_CLI_REALTIME || id > RTC_CLI_DCP_HEARTBEAT_MS)
        return false;
    /* --realtime alone leaves the RTF to the system file */
    if (id != RTC_CLI_REALTIME || v->text)
        rt->given |= 1u << (id - RTC_CLI_REALTIME);
    switch (id) {
    case RTC_CLI_REALTIME:
        rt->enabled = true;
        rt->rtf = v->text ? v->d : rt->rtf;
        break;
    case RTC_CLI_PRIORITY: rt->priority = (int)v->i; break;
    case RTC_CLI_CPU: rt->cpu = (int)v->i; break;
    case RTC_CLI_SPIN_US: rt->spin_us = v->i; break;
    case RTC_CLI_OVERRUN: rt->overrun = (rtc_exec_overrun)v->i; break;
    case RTC_CLI_MAX_OVERRUNS: rt->max_overruns = v->i; break;
    case RTC_CLI_WATCHDOG_MS: rt->watchdog_ms = v->i; break;
    case RTC_CLI_SAFE_FILE: rt->safe_file = v->text; break;
    case RTC_CLI_CONTROL_PORT: rt->control_port = v->i; break;
    case RTC_CLI_CONTROL_ALLOW:
        rt->control_caps = (unsigned)v->i;
        rt->control_caps_given = true;
        rt->control_allow = rt->control_caps & RTC_SESSION_CAN_REMOTE;
        break;
    case RTC_CLI_FORCE: rt->force = true; break;
    case RTC_CLI_PLAN: rt->plan_file = v->text; break;
    case RTC_CLI_REPROFILE: rt->reprofile = true; break;
    case RTC_CLI_CONTROL_TOKEN: rt->control_token = v->text; break;
    case RTC_CLI_DEADMAN_MS: rt->deadman_ms = v->i; break;
    case RTC_CLI_HTTP: rt->http_port = v->i; break;
    case RTC_CLI_HTTP_ADDRESS: rt->http_address = v->text; break;
    case RTC_CLI_HTTP_TOKEN: rt->http_token = v->text; break;
    case RTC_CLI_DCP_PORT: rt->dcp_port = v->i; break;
    case RTC_CLI_DCP_HOST: rt->dcp_host = v->text; break;
    case RTC_CLI_DCP_OP_MODE: rt->dcp_modes = (unsigned)v->i; break;
    case RTC_CLI_DCPX: rt->dcpx = v->text; break;
    case RTC_CLI_DCP_HEARTBEAT_MS: rt->dcp_heartbeat_ms = v->i; break;
    case RTC_CLI_EXPOSE: {
        const char **e = realloc(rt->expose, (rt->n_expose + 1) * sizeof *e);
        if (!e)
            return false;
        rt->expose = e;
        e[rt->n_expose++] = v->text;
        break;
    }
    default: break;
    }
    return true;
}

/* ---- signals: one atomic pointer, read by the handler ---- */

static _Atomic(rtc_exec *) signal_target;

static void on_signal(int signo)
{
    rtc_exec *ex = atomic_load_explicit(&signal_target, memory_order_acquire);
    if (ex)
        rtc_exec_signal(ex, signo); /* a lock-free atomic store: async-signal-safe */
}

void rtc_cli_rt_signals(rtc_exec *ex)
{
    atomic_store_explicit(&signal_target, ex, memory_order_release);
    if (!ex) {
        rtc_cli_stop_signals(true); /* back to the flag the rest of the run checks */
        return;
    }
    rtc_cli_stop_handler(on_signal);
    int early = rtc_cli_stop_signal(); /* one that came while the run was being armed */
    if (early)
        rtc_exec_signal(ex, early);
}

/* ---- safe state and watchdog ---- */

static void write_safe_marker(void *user)
{
    int fd = open((const char *)user, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
        ssize_t n = write(fd, "safe\n", 5);
        (void)n;
        close(fd);
    }
}

typedef struct wd_ctx {
    rtc_system *sys;
    rtc_recorder *rec;
    rtc_csv *csv;
    const char *dir;
    rtc_cli_rt *rt;
} wd_ctx;

/* The RT thread is stuck in a unit (watchdog, or a stop whose grace ran out) and the
 * process is about to end without freeing anything: the safe state is already applied;
 * keep the rows so far, timing.json and a summary naming the unit, remove the temporary
 * directories. No call into any unit; the stepping thread's statistics are not read. */
static void rescue(rtc_exec *ex, const wd_ctx *w, const char *status, long u)
{
    char path[4096];
    rtc_recorder_stats rs = {0};
    rtc_recorder_stop(w->rec, &rs); /* rows queued so far reach results.csv */
    rtc_csv_close(w->csv);
    snprintf(path, sizeof path, "%s/timing.json", w->dir);
    rtc_exec_write_timing(ex, path, status);
    snprintf(path, sizeof path, "%s/histogram.txt", w->dir);
    rtc_exec_write_histogram(ex, path);
    rtc_cli_end *e = &w->rt->end;
    e->hung_unit = u >= 0 && (size_t)u < rtc_system_unit_count(w->sys)
                       ? rtc_system_unit(w->sys, (size_t)u)->name : "?";
    int64_t tick, sim;
    rtc_exec_position(ex, &tick, &sim);
    e->last_tick = tick;
    e->last_time_ns = rtc_system_start_ns(w->sys) + sim;
    e->nonfinite = rtc_nonfinite_count(rtc_system_nonfinite(w->sys));
    rtc_cli_nodes_stopped(w->rt->nodes, e, tick); /* the other nodes stop with this one */
    rtc_cli_write_summary(w->sys, w->rt->system_path, e, rtc_cli_now_s() - w->rt->t0_wall_s,
                          &rs, w->rt, false);
    rtc_tmpdir_remove_all(); /* safe with the unit's library still mapped (archive.h) */
}

/* The watchdog fired (its thread; the process exits with status 3 afterwards). */
static void on_watchdog(rtc_exec *ex, void *user)
{
    wd_ctx *w = user;
    long u;
    rtc_exec_abandoned(ex, &u);
    w->rt->end.cause = "watchdog";
    snprintf(w->rt->end.reason, sizeof w->rt->end.reason, "watchdog: a tick took longer than "
             "%ld ms; unit %s was inside its step", w->rt->watchdog_ms,
             u >= 0 && (size_t)u < rtc_system_unit_count(w->sys)
                 ? rtc_system_unit(w->sys, (size_t)u)->name : "?");
    rescue(ex, w, "watchdog", u);
    fprintf(stderr, "rtcosim run: %s\n", w->rt->end.reason);
}

/* "NAME STATE" of one I/O component on the status line: lost and degraded links with the
 * time they have been so, and its stale signals. */
static size_t status_io(const rtc_unit *u, const rtc_driver_stats *st, size_t stale,
                        bool first, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s%.24s %s", first ? "I/O " : ", ", u->name,
                     rtc_io_unit_link(u, st));
    size_t pos = n > 0 ? (size_t)n : 0;
    int64_t lost = st->contract.lost_ns;
    if (lost && pos < cap)
        n = snprintf(buf + pos, cap - pos, " %.1f s", (double)(rtc_time_now_ns() - lost) / 1e9);
    else
        n = 0;
    pos += n > 0 ? (size_t)n : 0;
    if (stale && pos < cap) {
        n = snprintf(buf + pos, cap - pos, " (%zu stale)", stale);
        pos += n > 0 ? (size_t)n : 0;
    }
    return pos < cap ? pos : cap;
}

/* The I/O health and the session directory on the status line: per I/O component its
 * link (connecting, up, late, lost, degraded) and its stale signals. */
static void status_extra(void *user, char *buf, size_t cap)
{
    const wd_ctx *w = user;
    size_t pos = 0;
    for (size_t i = 0; i < rtc_system_unit_count(w->sys) && pos + 64 < cap; i++) {
        const rtc_unit *u = rtc_system_unit(w->sys, i);
        rtc_signal_health h[64];
        rtc_driver_stats st = {.signals = h, .n_signals_cap = 64};
        if (rtc_io_unit_stats(u, &st) != RTC_OK)
            continue;
        size_t stale = 0;
        for (size_t k = 0; k < st.n_signals && k < 64; k++)
            stale += h[k].quality == RTC_QUALITY_STALE || h[k].quality == RTC_QUALITY_ERROR;
        pos += status_io(u, &st, stale, pos == 0, buf + pos, cap - pos);
    }
    if (pos + 8 < cap)
        snprintf(buf + pos, cap - pos, "%s-> %s", pos ? "  " : "", w->dir);
}

static void options_of(const rtc_cli_rt *rt, rtc_recorder *rec, long decimation,
                       const char *trace, rtc_exec_options *eo)
{
    rtc_exec_options_init(eo);
    eo->rtf = rt->rtf;
    eo->priority = rt->priority;
    eo->cpu = rt->cpu;
    eo->spin_ns = (int64_t)rt->spin_us * 1000;
    eo->overrun = rt->overrun;
    eo->max_overruns = (uint32_t)rt->max_overruns;
    eo->watchdog_ns = (int64_t)rt->watchdog_ms * 1000000;
    eo->stop_on_nonfinite = rt->stop_on_nonfinite;
    eo->recorder = rec;
    eo->decimation = decimation;
    eo->trace_path = trace;
    eo->status_line = !rtc_cli_quiet;
    eo->lg = &rtc_cli_log;
}

/* The executive's stop as the summary's cause and reason (summary.h). */
static void stop_cause(const rtc_exec_stats *st, const rtc_system *sys, rtc_cli_rt *rt)
{
    rtc_cli_end *e = &rt->end;
    const char *sig = rtc_cli_signal_name(st->stop_signal);
    switch (st->stop) {
    case RTC_EXEC_SIGNAL:
        e->cause = "signal";
        e->signo = st->stop_signal;
        snprintf(e->reason, sizeof e->reason, "stopped by %s", sig);
        break;
    case RTC_EXEC_REQUEST:
        e->cause = "request";
        snprintf(e->reason, sizeof e->reason, "stopped on request (control surface)");
        break;
    case RTC_EXEC_OVERRUNS:
        e->cause = "overruns";
        snprintf(e->reason, sizeof e->reason, "%ld consecutive overruns (--overrun stop)",
                 rt->max_overruns);
        break;
    case RTC_EXEC_NONFINITE:
        e->cause = "nonfinite";
        snprintf(e->reason, sizeof e->reason, "a value became non-finite (--on-nonfinite "
                 "stop; see the log)");
        break;
    case RTC_EXEC_ERROR:
        e->cause = "error";
        snprintf(e->reason, sizeof e->reason, "a unit failed: %s (see events.log)",
                 rtc_strerror(st->stop_status));
        break;
    case RTC_EXEC_LINK:
        e->cause = "link";
        e->link = st->stop_unit >= 0 && (size_t)st->stop_unit < rtc_system_unit_count(sys)
                      ? rtc_system_unit(sys, (size_t)st->stop_unit)->name : "?";
        rtc_cli_link_reason(sys, st->stop_unit, st->stop_lost_ns, e->reason,
                            sizeof e->reason);
        if (!st->stop_lost_ns && rt->events) /* refused before t0: no tick logs it */
            rtc_events_add(rt->events, "rt", "%s", e->reason);
        break;
    default: /* the end: settled by cmd_system.c; a required link lost under continue */
        e->degraded = rtc_cli_links_degraded(sys, e->reason, sizeof e->reason);
        break;
    }
}

/* What the run measured, for summary.json beside the plan's prediction. */
static void keep_measured(const rtc_exec *ex, const rtc_exec_stats *st, rtc_cli_rt *rt)
{
    size_t n = rtc_exec_unit_count(ex);
    free(rt->unit_measured);
    rt->unit_measured = calloc(n + 1, sizeof *rt->unit_measured);
    rt->n_unit_measured = rt->unit_measured ? n : 0;
    for (size_t i = 0; i < rt->n_unit_measured; i++)
        rtc_exec_unit_stats(ex, i, &rt->unit_measured[i]);
    rt->busy = st->busy;
    rt->steps = st->steps;
    rt->overruns = st->overruns;
    rt->has_measured = true;
}

/* timing.json, histogram.txt and the outcome for the summary and the exit status.
 * Returns RTC_ETERMINATED when a unit ended the simulation (as a fast run's last step
 * does), else RTC_OK. */
static int finish(rtc_exec *ex, const rtc_system *sys, const char *dir, rtc_cli_rt *rt)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/timing.json", dir);
    rtc_exec_write_timing(ex, path, NULL);
    snprintf(path, sizeof path, "%s/histogram.txt", dir);
    rtc_exec_write_histogram(ex, path);
    rtc_exec_stats st;
    rtc_exec_stats_get(ex, &st);
    rtc_log(&rtc_cli_log, RTC_LOG_INFO, "real time (%s %d): %llu steps, wake-up latency p50 "
            "%.1f us p99 %.1f us max %.1f us, %llu overrun(s)", st.sched_policy, st.priority,
            (unsigned long long)st.steps, st.wakeup.p50 / 1e3, st.wakeup.p99 / 1e3,
            st.wakeup.max / 1e3, (unsigned long long)st.overruns);
    /* the final line says it too, without -v: a real-time run's first question (a run
     * that never ticked has no timing to tell) */
    if (st.steps)
        snprintf(rt->end.timing, sizeof rt->end.timing, "wake-up p99 %.1f µs, %llu "
                 "overrun(s)", st.wakeup.p99 / 1e3, (unsigned long long)st.overruns);
    keep_measured(ex, &st, rt);
    stop_cause(&st, sys, rt);
    return st.stop == RTC_EXEC_END && st.stop_status == RTC_ETERMINATED ? RTC_ETERMINATED
                                                                        : RTC_OK;
}

/* The system file's org.rtcosim.realtime settings where the command line is silent
 * (an RTF on --realtime itself counts as given only when a number followed it). */
void rtc_cli_rt_hints(const rtc_system *sys, rtc_cli_rt *rt)
{
    const rtc_system_rt_hints *h = rtc_system_rt(sys);
    if (h->has_rtf && h->rtf > 0 && !GIVEN(rt, RTC_CLI_REALTIME))
        rt->rtf = h->rtf;
    if (h->has_priority && !GIVEN(rt, RTC_CLI_PRIORITY))
        rt->priority = h->priority;
    if (h->has_cpu && !GIVEN(rt, RTC_CLI_CPU))
        rt->cpu = h->cpu;
    if (h->has_overrun && !GIVEN(rt, RTC_CLI_OVERRUN))
        rtc_exec_overrun_parse(h->overrun, &rt->overrun);
    if (h->has_max_overruns && !GIVEN(rt, RTC_CLI_MAX_OVERRUNS))
        rt->max_overruns = (long)h->max_overruns;
}

/* Every stop path: the I/O components write their safe values (exec's safe callbacks). */
static void system_safe(void *user)
{
    rtc_system_write_safe(user);
}

int rtc_cli_rt_prepare(rtc_system *sys, rtc_cli_rt *rt)
{
    rtc_cli_rt_hints(sys, rt);
    /* the RT thread waits for its workers and substitute units: they run at its priority,
     * off its CPU (so they run in parallel with it) */
    rtc_system_set_threads(sys, rt->priority, rt->cpu);
    return rt->overrun == RTC_EXEC_SUBSTITUTE ? rtc_system_use_substitute(sys) : RTC_OK;
}

/* --watchdog-ms unless given: max(1 s, 100 periods) — far above any sound tick, far
 * below "forever". */
static void default_watchdog(const rtc_system *sys, rtc_cli_rt *rt)
{
    if (GIVEN(rt, RTC_CLI_WATCHDOG_MS))
        return;
    double period_ms = (double)rtc_system_tick_ns(sys) / 1e6 / rt->rtf;
    rt->watchdog_ms = period_ms * 100 > 1000 ? (long)(period_ms * 100) : 1000;
}

/* A stop whose grace ran out with unit @p u inside its step: save what can be saved and
 * end the process here (rtcosim/exec.h, rtc_exec_abandoned). */
static void abandon(rtc_exec *ex, wd_ctx *w, long u)
{
    rtc_exec_stats st;
    rtc_exec_stats_get(ex, &st);
    stop_cause(&st, w->sys, w->rt);
    rtc_cli_end *e = &w->rt->end;
    if (!strcmp(e->cause, "end")) /* the run reached its end; a late step did not */
        snprintf(e->reason, sizeof e->reason, "reached the stop time");
    size_t n = strlen(e->reason);
    snprintf(e->reason + n, sizeof e->reason - n, "; unit %s was still inside its step after "
             "the %.0f s grace and was left there", u >= 0 && (size_t)u <
             rtc_system_unit_count(w->sys) ? rtc_system_unit(w->sys, (size_t)u)->name : "?",
             (double)RTC_EXEC_STOP_GRACE_NS / 1e9);
    rescue(ex, w, NULL, u);
    fprintf(stderr, "rtcosim run: %s\n", e->reason);
    fflush(NULL);
    _exit(rtc_cli_end_exit(e)); /* no unload, no call into the unit, no atexit handlers */
}

/* Substitute policy: a late step left running on its unit's thread must end before the
 * system can be freed; wait for it up to the grace. Returns the unit still in its step, or
 * -1. */
static long late_unit(const rtc_system *sys)
{
    long u = rtc_system_unit_in_step(sys);
    for (int64_t waited = 0; u >= 0 && waited < RTC_EXEC_STOP_GRACE_NS; waited += 10000000) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        u = rtc_system_unit_in_step(sys);
    }
    if (u >= 0)
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "stop: unit %s has been inside its step for more "
                "than the %.1f s grace; leaving it (no further call into it)",
                rtc_system_unit(sys, (size_t)u)->name, (double)RTC_EXEC_STOP_GRACE_NS / 1e9);
    return u;
}

int rtc_cli_rt_run(rtc_system *sys, rtc_recorder *rec, rtc_csv *csv, long decimation,
                   const char *dir, rtc_cli_rt *rt)
{
    char trace[4096];
    snprintf(trace, sizeof trace, "%s/latency.csv", dir);
    static wd_ctx w;
    w = (wd_ctx){sys, rec, csv, dir, rt};
    default_watchdog(sys, rt);
    rtc_exec_options eo;
    options_of(rt, rec, decimation, trace, &eo);
    rtc_cli_nodes_exec_options(rt->nodes, &eo); /* a node: the agreed start */
    eo.on_watchdog = on_watchdog;
    eo.watchdog_user = &w;
    eo.status_extra = status_extra;
    eo.status_user = &w;
    rtc_exec *ex = NULL;
    rtc_session *ses = NULL;
    int rc = rtc_cli_session_start(sys, dir, decimation, rt, &eo, &ses);
    if (rc == RTC_OK)
        rc = rtc_exec_new(sys, &eo, &ex);
    if (rc == RTC_OK)
        rc = rtc_cli_session_attach(ses, ex, rt);
    if (rc == RTC_OK)
        rtc_cli_nodes_attach(rt->nodes, ex, ses);
    if (rc == RTC_OK)
        rc = rtc_exec_add_safe(ex, system_safe, sys);
    if (rc == RTC_OK && rt->safe_file)
        rc = rtc_exec_add_safe(ex, write_safe_marker, (void *)rt->safe_file);
    if (rc == RTC_OK) {
        rtc_cli_rt_signals(ex);
        rt->started = true; /* from here on the run ends with its summary */
        rc = rtc_exec_run(ex);
        rtc_cli_rt_signals(NULL);
        long u;
        if (rtc_exec_abandoned(ex, &u) || (u = late_unit(sys)) >= 0)
            abandon(ex, &w, u); /* does not return */
        int end = finish(ex, sys, dir, rt);
        rc = rc == RTC_OK ? end : rc;
        int64_t tick, sim;
        rtc_exec_position(ex, &tick, &sim);
        rtc_cli_nodes_stopped(rt->nodes, &rt->end, tick); /* the others stop too, now */
    }
    rtc_cli_session_end(ses, sys, rt);
    rtc_cli_nodes_detach(rt->nodes); /* the plane's threads leave the executive alone */
    rtc_exec_free(ex);
    return rc;
}
