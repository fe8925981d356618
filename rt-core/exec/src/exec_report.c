/*
 * The executive's result files (rtcosim/exec.h): timing.json (a libjansson document,
 * internal/json_util.h) and histogram.txt.
 *
 * histogram.txt follows cyclictest's `-h` output so the same scripts read both: one line
 * "%06d %06llu" per 1-µs bucket, then "# Total", "# Min/Avg/Max Latencies" (µs,
 * "%05llu") and "# Histogram Overflows". Wake-up latencies are truncated to whole µs
 * before bucketing, as cyclictest does. Written after the run (or by the watchdog's
 * non-RT thread while the RT thread is stuck: the counters are atomics, so a snapshot is
 * still well formed; jansson allocates, so it never runs on the RT thread),
 * each to a temporary name renamed over the final one (rtcosim/ofile.h): a reader never
 * finds an empty or half-written file, and a failed write keeps no temporary.
 */
#include "exec_priv.h"
#include "json_util.h"

#include "rtcosim/io_unit.h"
#include "rtcosim/ofile.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* timing.json is a jansson document (internal/json_util.h): names are escaped whatever
 * they hold, "avg" and "rtf" are reals written to round-trip, the rest integers. Each
 * filler returns 0, or -1 when a member could not be set (out of memory). */

static int put_hist(json_t *obj, const char *key, const rtc_hist_summary *s)
{
    json_t *o = json_object();
    int bad = json_object_set_new(o, "count", rtc__json_uint(s->count));
    bad |= json_object_set_new(o, "min", json_integer(s->min));
    bad |= json_object_set_new(o, "avg", rtc__json_real(s->avg));
    bad |= json_object_set_new(o, "p50", json_integer(s->p50));
    bad |= json_object_set_new(o, "p99", json_integer(s->p99));
    bad |= json_object_set_new(o, "p999", json_integer(s->p999));
    bad |= json_object_set_new(o, "p9999", json_integer(s->p9999));
    bad |= json_object_set_new(o, "max", json_integer(s->max));
    return bad | json_object_set_new(obj, key, o);
}

static int put_kernel(json_t *obj, const rtc_rt_info *k)
{
    json_t *o = json_object();
    int bad = json_object_set_new(o, "release", rtc__json_str(k->kernel_release));
    bad |= json_object_set_new(o, "version", rtc__json_str(k->kernel_version));
    bad |= json_object_set_new(o, "preempt_rt", json_boolean(k->preempt_rt));
    bad |= json_object_set_new(o, "isolated_cpus", rtc__json_str(k->isolated_cpus));
    bad |= json_object_set_new(o, "nohz_full", rtc__json_str(k->nohz_full));
    bad |= json_object_set_new(obj, "kernel", o);
    bad |= json_object_set_new(obj, "memory_locked", json_boolean(k->memory_locked));
    return bad | json_object_set_new(obj, "dma_latency_held", json_boolean(k->dma_latency_held));
}

/* "units": {NAME: {"do_step_ns" (an I/O unit: "refresh_ns"): {...}}} (a name that is not UTF-8 keyed as
 * rtc__json_str shows it). */
static int put_units(json_t *obj, const rtc_exec *ex)
{
    json_t *units = json_object();
    int bad = 0;
    for (size_t i = 0; i < ex->n_units; i++) {
        rtc_hist_summary s;
        rtc_exec_unit_stats(ex, i, &s);
        json_t *name = rtc__json_str(rtc_system_unit(ex->sys, i)->name), *u = json_object();
        bad |= put_hist(u, rtc_io_unit_is(rtc_system_unit(ex->sys, i)) ? "refresh_ns"
                                                                        : "do_step_ns", &s);
        bad |= name ? json_object_set_new(units, json_string_value(name), u)
                    : (json_decref(u), -1);
        json_decref(name);
    }
    return bad | json_object_set_new(obj, "units", units);
}

/* "time_bases": [{"from_tick": K, "t0_monotonic_ns": T}, ...] — from step K on, logical
 * time is (CLOCK_MONOTONIC − T)·rtf; "time_bases_dropped" counts those beyond the list. */
static int put_time_bases(json_t *o, const rtc_exec *ex)
{
    uint32_t n = atomic_load_explicit(&ex->n_bases, memory_order_acquire);
    uint32_t kept = n < RTC__EXEC_TIME_BASES ? n : RTC__EXEC_TIME_BASES;
    json_t *list = json_array();
    int bad = list ? 0 : -1;
    for (uint32_t i = 0; list && i < kept; i++) {
        json_t *b = json_object();
        bad |= b ? 0 : -1;
        bad |= json_object_set_new(b, "from_tick", json_integer(ex->bases[i].from_tick));
        bad |= json_object_set_new(b, "t0_monotonic_ns", json_integer(ex->bases[i].t0_mono_ns));
        bad |= json_array_append_new(list, b);
    }
    bad |= json_object_set_new(o, "time_bases", list);
    return bad | json_object_set_new(o, "time_bases_dropped", rtc__json_uint(n - kept));
}

static int put_run(json_t *o, const rtc_exec *ex, const rtc_exec_stats *st, const char *status)
{
    int bad = json_object_set_new(o, "status", rtc__json_str(status ? status
                                                            : rtc_exec_stop_name(st->stop)));
    bad |= json_object_set_new(o, "stop_signal", json_integer(st->stop_signal));
    bad |= json_object_set_new(o, "stop_status", json_string(rtc_strerror(st->stop_status)));
    bad |= json_object_set_new(o, "period_ns", json_integer(st->period_ns));
    bad |= json_object_set_new(o, "rtf", rtc__json_real(ex->o.rtf));
    bad |= json_object_set_new(o, "steps", rtc__json_uint(st->steps));
    bad |= json_object_set_new(o, "sim_time_ns", json_integer(st->sim_time_ns));
    bad |= json_object_set_new(o, "overruns", rtc__json_uint(st->overruns));
    bad |= json_object_set_new(o, "max_consecutive_overruns", rtc__json_uint(st->max_consecutive));
    bad |= json_object_set_new(o, "max_lateness_ns", json_integer(st->max_lateness_ns));
    bad |= json_object_set_new(o, "overrun_policy",
                               json_string(rtc_exec_overrun_name(ex->o.overrun)));
    bad |= json_object_set_new(o, "max_overruns", json_integer(ex->o.max_overruns));
    bad |= json_object_set_new(o, "skipped_periods", rtc__json_uint(st->skipped_periods));
    bad |= json_object_set_new(o, "gap_ns", json_integer(st->gap_ns));
    bad |= json_object_set_new(o, "t0_monotonic_ns", json_integer(st->t0_monotonic_ns));
    bad |= put_time_bases(o, ex);
    bad |= json_object_set_new(o, "policy", rtc__json_str(st->sched_policy[0] ? st->sched_policy
                                                                              : "none"));
    bad |= json_object_set_new(o, "priority", json_integer(st->priority));
    bad |= json_object_set_new(o, "cpu", json_integer(st->cpu));
    return bad | json_object_set_new(o, "spin_ns", json_integer(ex->o.spin_ns));
}

static json_t *timing_doc(const rtc_exec *ex, const rtc_exec_stats *st, const char *status)
{
    json_t *o = json_object(), *rt = json_object();
    int bad = put_run(o, ex, st, status);
    bad |= put_kernel(o, &st->rt);
    bad |= json_object_set_new(rt, "minor_faults", json_integer(st->minor_faults));
    bad |= json_object_set_new(rt, "major_faults", json_integer(st->major_faults));
    bad |= json_object_set_new(o, "rt_thread", rt);
    bad |= json_object_set_new(o, "rtlog_dropped", rtc__json_uint(st->rtlog_dropped));
    bad |= json_object_set_new(o, "trace_dropped", rtc__json_uint(st->trace_dropped));
    bad |= json_object_set_new(o, "rows_dropped", rtc__json_uint(st->rows_dropped));
    bad |= put_hist(o, "wakeup_latency_ns", &st->wakeup);
    bad |= put_hist(o, "step_time_ns", &st->step);
    bad |= put_hist(o, "handoff_ns", &st->handoff);
    bad |= put_hist(o, "busy_ns", &st->busy);
    bad |= put_hist(o, "slack_ns", &st->slack);
    bad |= put_units(o, ex);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int rtc_exec_write_timing(const rtc_exec *ex, const char *path, const char *status)
{
    rtc_exec_stats st;
    rtc_exec_stats_get(ex, &st);
    json_t *doc = timing_doc(ex, &st, status);
    int rc = rtc__json_write(doc, path);
    json_decref(doc);
    if (rc != RTC_OK)
        rtc_log(ex->lg, RTC_LOG_ERROR, "%s: write failed: %s", path, rtc_strerror(rc));
    return rc;
}

int rtc_exec_write_histogram(const rtc_exec *ex, const char *path)
{
    char tmp[4200];
    FILE *f = rtc_ofile_replace_begin(path, tmp, sizeof tmp);
    if (!f) {
        int rc = rtc_status_from_errno(errno);
        rtc_log(ex->lg, RTC_LOG_ERROR, "%s: cannot create: %s", path, rtc_strerror(rc));
        return rc;
    }
    /* one snapshot of the buckets: the total is their sum, even while a run goes on */
    uint64_t over = rtc_ushist_overflow(ex->lat_us), total = over;
    rtc_hist_summary s;
    rtc_hist_summarize(ex->h_wake, &s);
    fprintf(f, "# Histogram\n");
    for (size_t i = 0; i < RTC_USHIST_BUCKETS; i++) {
        uint64_t c = rtc_ushist_bucket(ex->lat_us, i);
        fprintf(f, "%06zu %06llu\n", i, (unsigned long long)c);
        total += c;
    }
    fprintf(f, "# Total: %09llu\n", (unsigned long long)total);
    fprintf(f, "# Min Latencies: %05lld\n", (long long)(s.min / 1000));
    fprintf(f, "# Avg Latencies: %05lld\n", (long long)(s.avg / 1000));
    fprintf(f, "# Max Latencies: %05lld\n", (long long)(s.max / 1000));
    fprintf(f, "# Histogram Overflows: %05llu\n", (unsigned long long)over);
    int rc = rtc_ofile_replace_commit(f, tmp, path);
    if (rc != RTC_OK)
        rtc_log(ex->lg, RTC_LOG_ERROR, "%s: write failed: %s", path, rtc_strerror(rc));
    return rc;
}
