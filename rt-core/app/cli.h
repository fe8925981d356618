/*
 * Shared declarations of the rtcosim command-line front end. Each sub-command lives in its
 * own cmd_<name>.c and returns the process exit status: 0 on success, 1 on any error (after
 * a one-line message on stderr), 2 on a usage error; the runs add 3 (watchdog) and
 * 130/143 (SIGINT/SIGTERM): the table is in summary.h and the README.
 */
#ifndef RTC_APP_CLI_H
#define RTC_APP_CLI_H

#include "rtcosim/log.h"

enum { RTC_EXIT_OK = 0, RTC_EXIT_ERROR = 1, RTC_EXIT_USAGE = 2 };

/** The process-wide logger: errors and warnings to stderr, info with -v. */
extern rtc_logger rtc_cli_log;

int rtc_cmd_info(int argc, char **argv);
int rtc_cmd_run(int argc, char **argv);
int rtc_cmd_run_system(int argc, char **argv);
int rtc_cmd_check(int argc, char **argv);
int rtc_cmd_plan(int argc, char **argv);

/** Print "rtcosim: error: <msg>" and return RTC_EXIT_USAGE. */
int rtc_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
