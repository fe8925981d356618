/*
 * Shared declarations of the rtcosim command-line front end. Each sub-command lives in its
 * own cmd_<name>.c and returns the process exit status: 0 on success, 1 on any error (after
 * a one-line message on stderr), 2 on a usage error; the runs add 3 (watchdog), 4 (write
 * error) and 130/143/129 (SIGINT/SIGTERM/SIGHUP): the table is in summary.h and the README.
 */
#ifndef RTC_APP_CLI_H
#define RTC_APP_CLI_H

#include "rtcosim/log.h"
#include "rtcosim/recorder.h"

#include <stdbool.h>
#include <stddef.h>

enum { RTC_EXIT_OK = 0, RTC_EXIT_ERROR = 1, RTC_EXIT_USAGE = 2,
       RTC_EXIT_WRITE = 4,   /**< a recording or result file could not be written */
       RTC_EXIT_PARTIAL = 5, /**< replay: the session ended abnormally; its recorded prefix
                                  is identical */
       RTC_EXIT_LINK = 6,    /**< a link lost past its on_loss policy */
       RTC_EXIT_NODE = 8     /**< another node of a distributed run stopped this one */ };

/** The process-wide logger: errors and warnings to stderr, info with -v. */
extern rtc_logger rtc_cli_log;

int rtc_cmd_info(int argc, char **argv);
int rtc_cmd_run(int argc, char **argv);
int rtc_cmd_run_system(int argc, char **argv);
int rtc_cmd_check(int argc, char **argv);
int rtc_cmd_plan(int argc, char **argv);
/** `rtcosim plot`: runs the rtcosim-plot script beside the executable (cmd_plot.c). */
int rtc_cmd_plot(int argc, char **argv);
int rtc_cmd_merge(int argc, char **argv);

/** A file the commands read as a system: an .ssd or .ssp by its name (any case), or a
 *  directory holding SystemStructure.ssd (an unpacked SSP, such as configs/<name>). Anything
 *  else (.fmu, a directory with modelDescription.xml) is read as an FMU. (main.c) */
bool rtc_cli_is_system_path(const char *path);

int rtc_cmd_tune(int argc, char **argv);

/** `rtcosim run --help`: every option of the FMU, system, real-time and operator session
 *  runs, grouped, on stdout. */
void rtc_cli_run_help(void);
/** The FMU group of it (cmd_run.c). */
extern const char rtc_cli_fmu_help[];

/* ---- the recording of a run (cli_record.c) ---- */

/** The --on-write-error lines of a --help text. */
extern const char rtc_cli_on_write_error_help[];

/** Parse --on-write-error stop|continue into *@p cont. Returns RTC_EXIT_OK or the usage
 *  error's exit status. */
int rtc_cli_on_write_error(const char *cmd, const char *arg, bool *cont);

/** Create @p path (results.csv) and start the recorder with @p o (its write errors are
 *  reported on the CLI logger at once). Failures are logged. Returns an rtc status. */
int rtc_cli_recording_open(const char *path, rtc_record *rec, const rtc_recorder_opts *o,
                           rtc_csv **csv, rtc_recorder **r);

/** Stop the recorder (NULL: none), fill @p stats (may be NULL), flush, fsync and close the
 *  CSV. On any write error of the recording's life: reported once, @p status gets
 *  "write error: FILE: reason" and RTC_EIO is returned; else RTC_OK. */
int rtc_cli_recording_close(rtc_recorder *r, rtc_csv *csv, rtc_recorder_stats *stats,
                            char *status, size_t cap);

/** Remove the whole-file outcomes of an earlier run in @p dir (summary.json, timing.json,
 *  histogram.txt), so a run that fails before writing its own leaves none, never a stale
 *  "completed". */
void rtc_cli_remove_stale(const char *dir);

/* ---- checked option values (cli_args.c) ---- */

/** Whole-string integer in lo..hi into *@p out. Returns NULL, or why not ("missing value",
 *  "not an integer", "out of range"); *@p out is unchanged then. */
const char *rtc_cli_num_long(const char *text, long lo, long hi, long *out);
/** Whole-string finite number in lo..hi (NaN never), as rtc_cli_num_long. */
const char *rtc_cli_num_double(const char *text, double lo, double hi, double *out);

/** --@p opt @p text as an integer in lo..hi; else a usage error naming the option, the
 *  text and the reason. Returns RTC_EXIT_OK or RTC_EXIT_USAGE. */
int rtc_cli_parse_long(const char *cmd, const char *opt, const char *text, long lo, long hi,
                       long *out);
/** The same for a number (double) in lo..hi. */
int rtc_cli_parse_double(const char *cmd, const char *opt, const char *text, double lo,
                         double hi, double *out);

/** getopt_long (optstring starting with ':') returned @p c, '?' or ':': the usage error
 *  "unknown option '--x'" or "--stop: missing value". Returns RTC_EXIT_USAGE. */
int rtc_cli_getopt_error(const char *cmd, int c, int argc, char **argv);

/** Print "rtcosim: error: <msg>" and return RTC_EXIT_USAGE. */
int rtc_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
