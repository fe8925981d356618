/*
 * The executive's arm phase and accessors (rtcosim/exec.h): options, validation, every
 * allocation of a run (histograms, rings, the 1-µs latency table), and the snapshots that
 * non-RT threads read while the RT thread writes (relaxed loads of single-writer atomics).
 */
#include "exec_priv.h"

#include "rtcosim/rtc_config.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Histogram range: 1000 s in ns — anything longer is clamped into the top bucket. */
#define HIST_MAX_NS INT64_C(1000000000000)

static const char *const overrun_names[] = {"catch-up", "skip", "substitute", "stop"};

void rtc_exec_options_init(rtc_exec_options *o)
{
    *o = (rtc_exec_options){
        .rtf = 1.0,
        .priority = 80,
        .cpu = -1,
        .overrun = RTC_EXEC_CATCH_UP,
        .max_overruns = 3,
        .lock_memory = true,
        .heap_reserve = (size_t)16 << 20,
        .stack_bytes = (size_t)1 << 20,
        .rtlog_depth = RTC_RTLOG_DEPTH,
        .decimation = 1,
        .trace_depth = RTC_TRACE_DEPTH,
        .unit_timing = true,
        .stop_grace_ns = RTC_EXEC_STOP_GRACE_NS,
    };
}

const char *rtc_exec_overrun_name(rtc_exec_overrun p)
{
    return (unsigned)p < 4 ? overrun_names[p] : "?";
}

int rtc_exec_overrun_parse(const char *name, rtc_exec_overrun *out)
{
    for (int i = 0; i < 4; i++) {
        if (!strcmp(name, overrun_names[i])) {
            *out = (rtc_exec_overrun)i;
            return RTC_OK;
        }
    }
    return RTC_EPARSE;
}

const char *rtc_exec_stop_name(rtc_exec_stop s)
{
    static const char *const names[] = {"running", "completed", "error",    "overruns",
                                        "signal",  "stopped",   "watchdog", "nonfinite",
                                        "link"};
    return (unsigned)s < 9 ? names[s] : "?";
}

const char *rtc_exec_phase_name(rtc_exec_phase p)
{
    static const char *const names[] = {"wakeup", "step", "handoff"};
    return (unsigned)p < 3 ? names[p] : "?";
}

/* Options that make no run; each reason logged. */
static int validate(const rtc_system *sys, const rtc_exec_options *o, const rtc_logger *lg)
{
    if (o->overrun == RTC_EXEC_SUBSTITUTE && (!sys || !rtc_system_substitutes(sys))) {
        rtc_log(lg, RTC_LOG_ERROR, "overrun policy 'substitute' needs a system loaded with "
                "the substitute option (every unit on its own thread)");
        return RTC_EUNSUPPORTED;
    }
    const char *bad = !(o->rtf > 0 && o->rtf < 1e9)          ? "rtf must be > 0"
                      : !sys && o->period_ns <= 0             ? "the bare loop needs a period"
                      : !sys && o->max_steps <= 0             ? "the bare loop needs a step count"
                      : o->priority < 0 || o->priority > 99   ? "priority must be 0..99"
                      : o->cpu >= rtc_rt_cpu_count()          ? "no such CPU"
                      : o->spin_ns < 0 || o->watchdog_ns < 0 ||
                        o->max_wall_ns < 0                    ? "negative time"
                      : (unsigned)o->overrun > RTC_EXEC_STOP  ? "unknown overrun policy"
                      : o->max_overruns < 1                   ? "max overruns must be >= 1"
                      : o->decimation < 1                     ? "decimation must be >= 1"
                      : o->rtlog_depth < 1                    ? "rtlog depth must be >= 1"
                                                              : NULL;
    if (bad) {
        rtc_log(lg, RTC_LOG_ERROR, "real-time executive: %s", bad);
        return RTC_EINVAL;
    }
    return RTC_OK;
}

/* period = round(tick / rtf), computed once; integer ns from here on. */
static int64_t period_of(const rtc_system *sys, const rtc_exec_options *o)
{
    if (!sys || o->period_ns > 0)
        return o->period_ns;
    double p = (double)rtc_system_tick_ns(sys) / o->rtf + 0.5;
    return p < 1 ? 1 : (int64_t)p;
}

static int alloc_tables(rtc_exec *ex)
{
    int rc = RTC_OK;
    rtc_hist **h[] = {&ex->h_wake, &ex->h_step, &ex->h_handoff, &ex->h_slack, &ex->h_busy};
    for (size_t i = 0; rc == RTC_OK && i < 5; i++)
        rc = rtc_hist_new(HIST_MAX_NS, h[i]);
    if (rc == RTC_OK && ex->n_units) {
        ex->h_unit = calloc(ex->n_units, sizeof *ex->h_unit);
        rc = ex->h_unit ? RTC_OK : RTC_ENOMEM;
    }
    for (size_t i = 0; rc == RTC_OK && i < ex->n_units; i++)
        rc = rtc_hist_new(HIST_MAX_NS, &ex->h_unit[i]);
    if (rc == RTC_OK) {
        rc = rtc_ushist_new(&ex->lat_us);
    }
    if (rc == RTC_OK)
        rc = rtc_rtlog_new(ex->o.rtlog_depth, ex->lg, &ex->log);
    if (rc == RTC_OK && ex->o.trace_path) {
        /* our own copy: the caller's string may be gone by the time the run starts */
        ex->o.trace_path = ex->trace_path_copy = strdup(ex->o.trace_path);
        rc = ex->trace_path_copy ? RTC_OK : RTC_ENOMEM;
    }
    if (rc == RTC_OK && ex->o.trace_path)
        rc = rtc_ring_new(sizeof(trace_rec), ex->o.trace_depth ? ex->o.trace_depth : RTC_TRACE_DEPTH,
                          &ex->trace);
    return rc;
}

int rtc_exec_new(rtc_system *sys, const rtc_exec_options *o, rtc_exec **out)
{
    int rc = validate(sys, o, o->lg);
    if (rc != RTC_OK)
        return rc;
    rtc_exec *ex = calloc(1, sizeof *ex);
    if (!ex)
        return RTC_ENOMEM;
    ex->sys = sys;
    ex->o = *o;
    ex->lg = o->lg;
    ex->period_ns = period_of(sys, o);
    ex->n_units = sys && o->unit_timing ? rtc_system_unit_count(sys) : 0;
    ex->policy = "";
    atomic_init(&ex->cur_unit, -1);
    ex->hung_unit = -1;
    ex->stop_unit = -1;
    if (sem_init(&ex->wake, 0, 0) != 0) {
        int st = rtc_status_from_errno(errno);
        free(ex);
        return st;
    }
    atomic_flag_clear(&ex->safe_done);
    rc = alloc_tables(ex);
    if (rc == RTC_OK)
        rc = rtc__exec_links_arm(ex);
    if (rc != RTC_OK) {
        rtc_exec_free(ex);
        return rc;
    }
    rtc__exec_install_timer(ex);
    *out = ex;
    return RTC_OK;
}

void rtc_exec_free(rtc_exec *ex)
{
    if (!ex)
        return;
    if (ex->sys) {
        rtc_system_set_unit_timer(ex->sys, NULL, NULL);
        rtc_system_set_unit_clock(ex->sys, false);
    }
    rtc_hist_free(ex->h_wake);
    rtc_hist_free(ex->h_step);
    rtc_hist_free(ex->h_handoff);
    rtc_hist_free(ex->h_slack);
    rtc_hist_free(ex->h_busy);
    for (size_t i = 0; ex->h_unit && i < ex->n_units; i++)
        rtc_hist_free(ex->h_unit[i]);
    free(ex->h_unit);
    rtc_ushist_free(ex->lat_us);
    rtc_rtlog_free(ex->log);
    rtc_ring_free(ex->trace);
    rtc__exec_links_free(ex);
    free(ex->trace_path_copy);
    sem_destroy(&ex->wake);
    free(ex);
}

int rtc_exec_add_safe(rtc_exec *ex, rtc_exec_safe_fn fn, void *user)
{
    if (ex->n_safe >= RTC_EXEC_MAX_SAFE)
        return RTC_ELIMIT;
    ex->safe[ex->n_safe] = fn;
    ex->safe_user[ex->n_safe++] = user;
    return RTC_OK;
}

#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)

void rtc_exec_stats_get(const rtc_exec *ex, rtc_exec_stats *out)
{
    *out = (rtc_exec_stats){
        .period_ns = ex->period_ns, .steps = LOAD(ex->steps), .sim_time_ns = LOAD(ex->sim_ns),
        .overruns = LOAD(ex->overruns), .max_consecutive = LOAD(ex->max_consec),
        .max_lateness_ns = LOAD(ex->max_late), .skipped_periods = LOAD(ex->skipped),
        .gap_ns = LOAD(ex->gap_ns), .minor_faults = LOAD(ex->minflt),
        .major_faults = LOAD(ex->majflt), .rtlog_dropped = rtc_rtlog_dropped(ex->log),
        .trace_dropped = LOAD(ex->trace_dropped), .rows_dropped = LOAD(ex->rows_dropped),
        .sched_policy = ex->policy, .priority = ex->priority, .cpu = ex->o.cpu,
        .rt = ex->info, .stop = rtc_exec_stop_reason(ex), .stop_status = ex->stop_status,
        .stop_signal = ex->stop_signal, .stop_unit = ex->stop_unit,
        .stop_lost_ns = ex->stop_lost_ns};
    if (!ex->ran)
        out->minor_faults = out->major_faults = -1;
    if (atomic_load_explicit(&ex->n_bases, memory_order_acquire) > 0)
        out->t0_monotonic_ns = ex->bases[0].t0_mono_ns;
    rtc_hist_summarize(ex->h_wake, &out->wakeup);
    rtc_hist_summarize(ex->h_step, &out->step);
    rtc_hist_summarize(ex->h_handoff, &out->handoff);
    rtc_hist_summarize(ex->h_slack, &out->slack);
    rtc_hist_summarize(ex->h_busy, &out->busy);
}

void rtc_exec_progress_get(const rtc_exec *ex, rtc_exec_progress *out)
{
    /* only atomics and the histograms: safe while rtc_exec_run() is still setting up */
    *out = (rtc_exec_progress){.sim_time_ns = LOAD(ex->sim_ns), .steps = LOAD(ex->steps),
                               .overruns = LOAD(ex->overruns),
                               .wakeup_p99_ns = rtc_hist_quantile(ex->h_wake, 0.99),
                               .paused = rtc_exec_is_paused(ex)};
}

size_t rtc_exec_unit_count(const rtc_exec *ex)
{
    return ex->n_units;
}

void rtc_exec_unit_stats(const rtc_exec *ex, size_t i, rtc_hist_summary *out)
{
    if (i < ex->n_units)
        rtc_hist_summarize(ex->h_unit[i], out);
    else
        *out = (rtc_hist_summary){0};
}

const rtc_ushist *rtc_exec_latency_us(const rtc_exec *ex)
{
    return ex->lat_us;
}
