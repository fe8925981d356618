/*
 * The executive's result files (rtcosim/exec.h): timing.json and histogram.txt.
 *
 * histogram.txt follows cyclictest's `-h` output so the same scripts read both: one line
 * "%06d %06llu" per 1-µs bucket, then "# Total", "# Min/Avg/Max Latencies" (µs,
 * "%05llu") and "# Histogram Overflows". Wake-up latencies are truncated to whole µs
 * before bucketing, as cyclictest does. Written after the run (or by the watchdog while
 * the RT thread is stuck: the counters are atomics, so a snapshot is still well formed),
 * each to a temporary name renamed over the final one (rtcosim/ofile.h): a reader never
 * finds an empty or half-written file, and a failed write keeps no temporary.
 */
#include "exec_priv.h"

#include "rtcosim/ofile.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void put_summary(FILE *f, const char *key, const rtc_hist_summary *s, const char *tail)
{
    fprintf(f, "  \"%s\": {\"count\": %llu, \"min\": %lld, \"avg\": %.1f, \"p50\": %lld, "
            "\"p99\": %lld, \"p999\": %lld, \"p9999\": %lld, \"max\": %lld}%s\n", key,
            (unsigned long long)s->count, (long long)s->min, s->avg, (long long)s->p50,
            (long long)s->p99, (long long)s->p999, (long long)s->p9999, (long long)s->max, tail);
}

/* JSON string body: the names we print (unit names, kernel strings) may hold quotes. */
static void put_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char)*s >= 0x20)
            fputc(*s, f);
    }
    fputc('"', f);
}

static void put_kernel(FILE *f, const rtc_rt_info *k)
{
    fprintf(f, "  \"kernel\": {\"release\": ");
    put_str(f, k->kernel_release);
    fprintf(f, ", \"version\": ");
    put_str(f, k->kernel_version);
    fprintf(f, ", \"preempt_rt\": %s, \"isolated_cpus\": ", k->preempt_rt ? "true" : "false");
    put_str(f, k->isolated_cpus);
    fprintf(f, ", \"nohz_full\": ");
    put_str(f, k->nohz_full);
    fprintf(f, "},\n  \"memory_locked\": %s,\n  \"dma_latency_held\": %s,\n",
            k->memory_locked ? "true" : "false", k->dma_latency_held ? "true" : "false");
}

static void put_units(FILE *f, const rtc_exec *ex)
{
    fprintf(f, "  \"units\": {");
    for (size_t i = 0; i < ex->n_units; i++) {
        rtc_hist_summary s;
        rtc_exec_unit_stats(ex, i, &s);
        fprintf(f, "%s\n    ", i ? "," : "");
        put_str(f, rtc_system_unit(ex->sys, i)->name);
        fprintf(f, ": {\"do_step_ns\": {\"count\": %llu, \"min\": %lld, \"avg\": %.1f, "
                "\"p50\": %lld, \"p99\": %lld, \"p999\": %lld, \"p9999\": %lld, \"max\": %lld}}",
                (unsigned long long)s.count, (long long)s.min, s.avg, (long long)s.p50,
                (long long)s.p99, (long long)s.p999, (long long)s.p9999, (long long)s.max);
    }
    fprintf(f, "%s}\n", ex->n_units ? "\n  " : "");
}

static void put_body(FILE *f, const rtc_exec *ex, const rtc_exec_stats *st, const char *status)
{
    fprintf(f, "{\n  \"status\": ");
    put_str(f, status ? status : rtc_exec_stop_name(st->stop));
    fprintf(f, ",\n  \"stop_signal\": %d,\n  \"stop_status\": ", st->stop_signal);
    put_str(f, rtc_strerror(st->stop_status));
    fprintf(f, ",\n  \"period_ns\": %lld,\n  \"rtf\": %.17g,\n  \"steps\": %llu,\n"
            "  \"sim_time_ns\": %lld,\n", (long long)st->period_ns, ex->o.rtf,
            (unsigned long long)st->steps, (long long)st->sim_time_ns);
    fprintf(f, "  \"overruns\": %llu,\n  \"max_consecutive_overruns\": %llu,\n"
            "  \"max_lateness_ns\": %lld,\n  \"overrun_policy\": \"%s\",\n"
            "  \"max_overruns\": %u,\n  \"skipped_periods\": %llu,\n  \"gap_ns\": %lld,\n",
            (unsigned long long)st->overruns, (unsigned long long)st->max_consecutive,
            (long long)st->max_lateness_ns, rtc_exec_overrun_name(ex->o.overrun),
            ex->o.max_overruns, (unsigned long long)st->skipped_periods, (long long)st->gap_ns);
    fprintf(f, "  \"policy\": \"%s\",\n  \"priority\": %d,\n  \"cpu\": %d,\n  \"spin_ns\": %lld,\n",
            st->sched_policy[0] ? st->sched_policy : "none", st->priority, st->cpu,
            (long long)ex->o.spin_ns);
    put_kernel(f, &st->rt);
    fprintf(f, "  \"rt_thread\": {\"minor_faults\": %ld, \"major_faults\": %ld},\n"
            "  \"rtlog_dropped\": %llu,\n  \"trace_dropped\": %llu,\n  \"rows_dropped\": %llu,\n",
            st->minor_faults, st->major_faults, (unsigned long long)st->rtlog_dropped,
            (unsigned long long)st->trace_dropped, (unsigned long long)st->rows_dropped);
    put_summary(f, "wakeup_latency_ns", &st->wakeup, ",");
    put_summary(f, "step_time_ns", &st->step, ",");
    put_summary(f, "handoff_ns", &st->handoff, ",");
    put_summary(f, "slack_ns", &st->slack, ",");
    put_units(f, ex);
    fprintf(f, "}\n");
}

int rtc_exec_write_timing(const rtc_exec *ex, const char *path, const char *status)
{
    char tmp[4200];
    FILE *f = rtc_ofile_replace_begin(path, tmp, sizeof tmp);
    if (!f) {
        rtc_log(ex->lg, RTC_LOG_ERROR, "%s: cannot create: %s", path, strerror(errno));
        return RTC_EIO;
    }
    rtc_exec_stats st;
    rtc_exec_stats_get(ex, &st);
    put_body(f, ex, &st, status);
    if (rtc_ofile_replace_commit(f, tmp, path) != RTC_OK) {
        rtc_log(ex->lg, RTC_LOG_ERROR, "%s: write failed: %s", path, strerror(errno));
        return RTC_EIO;
    }
    return RTC_OK;
}

int rtc_exec_write_histogram(const rtc_exec *ex, const char *path)
{
    uint64_t *b = malloc(RTC_EXEC_HIST_US * sizeof *b), over = 0, total = 0;
    char tmp[4200];
    FILE *f = b ? rtc_ofile_replace_begin(path, tmp, sizeof tmp) : NULL;
    if (!f) {
        rtc_log(ex->lg, RTC_LOG_ERROR, "%s: cannot create: %s", path,
                b ? strerror(errno) : "out of memory");
        free(b);
        return RTC_EIO;
    }
    rtc_exec_latency_us(ex, b, RTC_EXEC_HIST_US, &over);
    rtc_hist_summary s;
    rtc_hist_summarize(ex->h_wake, &s);
    fprintf(f, "# Histogram\n");
    for (size_t i = 0; i < RTC_EXEC_HIST_US; i++) {
        fprintf(f, "%06zu %06llu\n", i, (unsigned long long)b[i]);
        total += b[i];
    }
    fprintf(f, "# Total: %09llu\n", (unsigned long long)(total + over));
    fprintf(f, "# Min Latencies: %05lld\n", (long long)(s.min / 1000));
    fprintf(f, "# Avg Latencies: %05lld\n", (long long)(s.avg / 1000));
    fprintf(f, "# Max Latencies: %05lld\n", (long long)(s.max / 1000));
    fprintf(f, "# Histogram Overflows: %05llu\n", (unsigned long long)over);
    free(b);
    if (rtc_ofile_replace_commit(f, tmp, path) != RTC_OK) {
        rtc_log(ex->lg, RTC_LOG_ERROR, "%s: write failed: %s", path, strerror(errno));
        return RTC_EIO;
    }
    return RTC_OK;
}
