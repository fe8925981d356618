/*
 * The recording of a run, shared by `run FMU`, `run SYSTEM` (fast and real time) and
 * `replay`: results.csv through the recorder thread, and one policy for write errors.
 *
 * A write error is reported by the recorder thread at once (one line: file and reason)
 * and, with --on-write-error stop (the default), ends the run through its stop path:
 * rtc_recorder_push() returns the error, which the fast loops and the executive treat as a
 * failed step. Here, at the end, an error the thread could not have seen (the final flush,
 * fsync, close) is reported too, and the caller gets the summary status text and the exit
 * status RTC_EXIT_WRITE.
 */
#include "cli.h"

#include "rtcosim/status.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int rtc_cli_recording_open(const char *path, rtc_record *rec, const rtc_recorder_opts *o,
                           rtc_csv **csv, rtc_recorder **r)
{
    int rc = rtc_csv_open(path, csv);
    if (rc != RTC_OK) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "%s: cannot create: %s", path, rtc_strerror(rc));
        return rc;
    }
    rtc_recorder_opts ro = *o;
    ro.lg = &rtc_cli_log;
    rc = rtc_recorder_start(rec, *csv, &ro, r);
    if (rc != RTC_OK)
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "%s: cannot start the recorder: %s", path,
                rtc_strerror(rc));
    return rc;
}

int rtc_cli_recording_close(rtc_recorder *r, rtc_csv *csv, rtc_recorder_stats *stats,
                            char *status, size_t cap)
{
    bool reported = rtc_recorder_failed(r) != RTC_OK;
    int rc = rtc_recorder_stop(r, stats);
    if (!csv)
        return RTC_OK;
    char path[4096]; /* "-": a closed pipe (EPIPE) fails here like a full disk */
    snprintf(path, sizeof path, "%s", strcmp(rtc_csv_path(csv), "-") ? rtc_csv_path(csv)
                                                                      : "standard output");
    int st = rtc_csv_error(csv), closed = rtc_csv_close(csv);
    st = st != RTC_OK ? st : closed; /* else the final flush, fsync or close */
    if (rc == RTC_OK && st == RTC_OK)
        return RTC_OK;
    st = st != RTC_OK ? st : RTC_EIO;
    if (!reported)
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "%s: write failed: %s", path, rtc_strerror(st));
    if (status)
        snprintf(status, cap, "write error: %s: %s", path, rtc_strerror(st));
    return st;
}

void rtc_cli_remove_stale(const char *dir)
{
    static const char *const names[] = {"summary.json", "timing.json", "histogram.txt"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path); /* ENOENT: nothing stale */
    }
}
