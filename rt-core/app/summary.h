/*
 * How a run ended, for summary.json and the exit status (summary.c). One table, the
 * README's "Exit status" section:
 *
 *   status               cause                          exit
 *   completed            end (stop time, or a unit      0
 *                        ended the simulation)
 *   completed-nonfinite  end, with non-finite values    0   (--on-nonfinite warn)
 *   stopped              signal (SIGINT / SIGTERM /     130 / 143 / 129
 *                        SIGHUP)
 *   stopped              request (control surface)      0
 *   failed               error, overruns, nonfinite     1
 *   failed               watchdog                       3
 *   failed               write (a result file could     4
 *                        not be written: disk full, a
 *                        file-size limit, a closed
 *                        output pipe; summary.json
 *                        itself)
 *   failed               link (a required I/O link not  6
 *                        up by its connect deadline, or
 *                        lost past its on_loss policy)
 *   degraded             end, but a required link was   7
 *                        lost and on_loss=continue kept
 *                        the run going
 *   (none: no summary)   infeasible (run --realtime:    8
 *                        the check before arming
 *                        found the system does not
 *                        fit its period; nothing ran,
 *                        nothing is left behind)
 *   stopped              node (another node of a        9
 *                        distributed real-time run
 *                        stopped it: "distributed".
 *                        "stopped_by" names it and why)
 * A unit left hung in its step adds "hung_unit" (the exit stays that of the cause).
 */
#ifndef RTC_APP_SUMMARY_H
#define RTC_APP_SUMMARY_H

#include "rtcosim/log.h"
#include "rtcosim/nonfinite.h"
#include "rtcosim/unit.h"

#include "json_util.h" /* private to the CLI and the layers: libjansson */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct rtc_cli_end {
    const char *cause;     /**< "end", "signal", "request", "error", "overruns", "watchdog",
                                "nonfinite", "write", "link", "infeasible", "node" */
    int signo;             /**< cause "signal" */
    char reason[512];      /**< one line */
    int64_t last_tick;     /**< ticks (steps) completed */
    int64_t last_time_ns;  /**< absolute logical time reached */
    size_t nonfinite;      /**< values that became non-finite */
    const char *hung_unit; /**< a unit left inside its step, or NULL */
    const char *link;      /**< cause "link": the I/O component whose link failed */
    bool degraded;         /**< a required link was lost and on_loss=continue let the run
                                go on: an "end" is "degraded" */
    char timing[96];       /**< a real-time run's "wake-up p99 X µs, N overrun(s)" for the
                                final line ("" otherwise) */
} rtc_cli_end;

/** "completed", "completed-nonfinite", "degraded", "stopped" or "failed". */
const char *rtc_cli_end_status(const rtc_cli_end *e);
/** The exit status of the table above. */
int rtc_cli_end_exit(const rtc_cli_end *e);

/** Names of tracker values for the "nonfinite" list. */
typedef void (*rtc_cli_name_fn)(const void *user, size_t id, char *buf, size_t cap);

/*
 * summary.json is a jansson document (internal/json_util.h: RTC__JSON_FLAGS, strings via
 * rtc__json_str, reals via rtc__json_real with null for non-finite values, counters via
 * rtc__json_uint) written whole by rtc_cli_summary_write(). Each part of it is filled by
 * a function that takes the json_t object to fill and returns 0, or -1 when a member
 * could not be set (out of memory); the fillers' results are OR-ed and a document that
 * failed anywhere is not written.
 *
 * Adding a field: set it in the filler of the object it belongs to, in the order it
 * should appear (objects keep insertion order), e.g.
 *     bad |= json_object_set_new(obj, "me_events", rtc__json_uint(n));
 * The fillers: rtc_cli_summary_end() below (how the run ended: every mode), and in
 * summary_system.c (every run: a system or one FMU, fast and real time, with or without a
 * session) summary_top() (top level), unit_json() (one entry of "units"), link_json() (one
 * of "connections"), io_json() (one of "io"), links_entry() (one of "links": an I/O link's
 * contract and how it held), session_json() ("session"), write_step_stats() and
 * summary_fmu() (a single FMU's unit fields at the top level).
 */

/** Write @p doc (its reference is taken and released) over @p path whole (tmp + fsync +
 *  rename), unless @p built is nonzero (a filler failed: nothing is written). Logs
 *  "PATH: ..." and returns false on failure. RT-safe: no. */
bool rtc_cli_summary_write(json_t *doc, int built, const char *path);

/** summary.json (@p path) could not be written: a run that would have exited 0 ends with
 *  the write error's cause and exit status 4 instead (a script must not take a missing
 *  summary for success); a failed or stopped run keeps its own. For the final line, which
 *  then names no summary. */
void rtc_cli_summary_failed(rtc_cli_end *e, const char *path);

/** The common fields into @p obj: "status", "cause", "reason", "exit_code", "last_tick",
 *  "last_time_s", "hung_unit" (when one hung), "link" (cause link: the component),
 *  "nonfinite_values" and the "nonfinite"
 *  list (first 100: "variable", "t_s", "value" as "nan" / "inf" / "-inf").
 *  Returns 0, or -1 when a member could not be set. */
int rtc_cli_summary_end(json_t *obj, const rtc_cli_end *e, const rtc_nonfinite *nf,
                        rtc_cli_name_fn name, const void *name_user);

struct rtc_cli_rt;
/** "feasibility" of a real-time run checked against a plan (summary_plan.c): the plan's
 *  verdict, and per unit and for the tick the predicted step times beside the measured
 *  ones, the predicted beside the measured overrun rate. Nothing without a plan.
 *  Returns 0, or -1 (a member could not be set). */
int rtc_cli_summary_feasibility(json_t *doc, const struct rtc_cli_rt *rt);

/** The events a Model Exchange unit handled, as the object "me_events" of @p obj:
 *  "time", "state", "step", "input" (events of each kind), "iterations" (event iterations,
 *  the superdense microsteps, initialization included), "solver_steps" and "terminated".
 *  Nothing when @p unit is not a Model Exchange unit. Returns 0, or -1 (a member could not
 *  be set). Thread: after the unit's stepping is done. */
int rtc_cli_me_events_json(json_t *obj, const rtc_unit *unit);

/** The last error line logged through rtc_cli_log ("" when none): the reason of a
 *  failed run. */
const char *rtc_cli_last_error(void);
/** Wrap @p inner so that error lines are kept for rtc_cli_last_error(). */
rtc_logger rtc_cli_capture(const rtc_logger *inner);

/** At the start of the process: SIGPIPE and SIGXFSZ ignored, so a closed output pipe and
 *  a file-size limit (ulimit -f, LimitFSIZE) are write errors (EPIPE, EFBIG) that take the
 *  stop path with exit status 4, instead of killing the process mid-row; and whether
 *  SIGHUP came ignored (nohup), which then stays so. */
void rtc_cli_process_signals(void);

/** The stop signals SIGINT, SIGTERM and SIGHUP (unless it came ignored) to @p handler
 *  (NULL: their default actions). */
void rtc_cli_stop_handler(void (*handler)(int));

/** "SIGINT", "SIGTERM", "SIGHUP", else "a signal": for reasons. */
const char *rtc_cli_signal_name(int signo);

/** Install SIGINT/SIGTERM/SIGHUP handlers that store the signal (rtc_cli_stop_signal); a
 *  second signal while stopping ends the process at once. @p on false restores the
 *  defaults. */
void rtc_cli_stop_signals(bool on);
/** The signal that asked the run to stop, 0 while none. Async-signal-safe. */
int rtc_cli_stop_signal(void);

/* ---- progress and the final line (cli_progress.c) ---- */

/** -q, --quiet: no progress bar or status line (the final line stays). */
extern bool rtc_cli_quiet;

/** The progress bar of a fast run (drawn only on a terminal, without -q, after 1 s;
 *  RTCOSIM_PROGRESS_AFTER_S overrides the second, for tests). */
typedef struct rtc_cli_progress {
    bool on, shown;
    unsigned calls;
    int64_t start_ns, stop_ns;
    double t0_s, next_s;
} rtc_cli_progress;

void rtc_cli_progress_start(rtc_cli_progress *p, int64_t start_ns, int64_t stop_ns);
/** After a step that reached the absolute time @p t_ns. Cheap: reads the clock every 256
 *  calls. */
void rtc_cli_progress_tick(rtc_cli_progress *p, int64_t t_ns);
/** Erase the bar (before the final line). */
void rtc_cli_progress_end(rtc_cli_progress *p);

/** The last word of a run on stderr: "rtcosim run: STATUS: N row(s) in FILE [(M lost)],
 *  summary FILE (reason)[; TIMING]" (TIMING: e->timing of a real-time run). @p rows: rows
 *  in the file; @p lost: rows that never reached it (dropped or lost to a write error; 0:
 *  not shown). @p results: the result file ("-": standard output; NULL: none); @p summary:
 *  NULL when none was written (never name a summary the disk refused). */
void rtc_cli_final_line(const char *results, unsigned long long rows, unsigned long long lost,
                        const char *summary, const rtc_cli_end *e);

#endif
