/*
 * How a run ended, for summary.json and the exit status (summary.c). One table, the
 * README's "Exit status" section:
 *
 *   status               cause                          exit
 *   completed            end (stop time, or a unit      0
 *                        ended the simulation)
 *   completed-nonfinite  end, with non-finite values    0   (--on-nonfinite warn)
 *   stopped              signal (SIGINT / SIGTERM)      130 / 143
 *   stopped              request (control surface)      0
 *   failed               error, overruns, nonfinite     1
 *   failed               watchdog                       3
 *   failed               write (a result file could     4
 *                        not be written: disk full)
 * A unit left hung in its step adds "hung_unit" (the exit stays that of the cause).
 */
#ifndef RTC_APP_SUMMARY_H
#define RTC_APP_SUMMARY_H

#include "rtcosim/log.h"
#include "rtcosim/nonfinite.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>



typedef struct rtc_cli_end {
    const char *cause;     /**< "end", "signal", "request", "error", "overruns", "watchdog",
                                "nonfinite", "write" */
    int signo;             /**< cause "signal" */
    char reason[512];      /**< one line */
    int64_t last_tick;     /**< ticks (steps) completed */
    int64_t last_time_ns;  /**< absolute logical time reached */
    size_t nonfinite;      /**< values that became non-finite */
    const char *hung_unit; /**< a unit left inside its step, or NULL */
} rtc_cli_end;

/** "completed", "completed-nonfinite", "stopped" or "failed". */
const char *rtc_cli_end_status(const rtc_cli_end *e);
/** The exit status of the table above. */
int rtc_cli_end_exit(const rtc_cli_end *e);

/** Names of tracker values for the "nonfinite" list. */
typedef void (*rtc_cli_name_fn)(const void *user, size_t id, char *buf, size_t cap);

/**
 * Open a temporary file next to @p path (its name goes into @p tmp, rtcosim/ofile.h);
 * rtc_cli_summary_commit() renames it over @p path, so a reader never sees a half-written
 * or stale summary.json. NULL on failure (logged).
 */
FILE *rtc_cli_summary_open(const char *path, char *tmp, size_t cap);
/** fflush + fsync + fclose + rename (rtc_ofile_replace_commit); logs and returns false on
 *  failure. */
bool rtc_cli_summary_commit(FILE *f, const char *tmp, const char *path);

/** The common fields: "status", "cause", "reason", "exit_code", "last_tick",
 *  "last_time_s", "hung_unit", "nonfinite_values" and the "nonfinite" list (first 100),
 *  each line ending with ",\n". */
void rtc_cli_summary_end(FILE *f, const rtc_cli_end *e, const rtc_nonfinite *nf,
                         rtc_cli_name_fn name, const void *name_user);

/** @p s as a JSON string (quotes included). */
void rtc_cli_json_str(FILE *f, const char *s);

/** The last error line logged through rtc_cli_log ("" when none): the reason of a
 *  failed run. */
const char *rtc_cli_last_error(void);
/** Wrap @p inner so that error lines are kept for rtc_cli_last_error(). */
rtc_logger rtc_cli_capture(const rtc_logger *inner);

/** Install SIGINT/SIGTERM handlers that store the signal (rtc_cli_stop_signal); a second
 *  signal while stopping ends the process at once. @p on false restores the defaults. */
void rtc_cli_stop_signals(bool on);
/** The signal that asked the run to stop, 0 while none. Async-signal-safe. */
int rtc_cli_stop_signal(void);

#endif
