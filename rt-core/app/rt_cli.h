/*
 * The real-time path of `rtcosim run SYSTEM --realtime` (cmd_rt.c), plugged into the
 * option parser and run_ticks() of cmd_system.c, and `rtcosim bench` (cmd_bench.c).
 */
#ifndef RTC_APP_RT_CLI_H
#define RTC_APP_RT_CLI_H

#include "rtcosim/csv.h"
#include "rtcosim/exec.h"
#include "rtcosim/recorder.h"
#include "rtcosim/system.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

/** Recorder ring of a real-time run, in rows: rows are never waited for, so the ring
 *  must absorb the recorder thread's hiccups (65536 rows = 65 s at 1 kHz). */
#define RTC_CLI_RT_RING_ROWS 65536

/** Options of the real-time path (and their outcome). */
typedef struct rtc_cli_rt {
    bool enabled;          /**< --realtime given */
    double rtf;            /**< --realtime RTF (default 1) */
    int priority;          /**< --priority (default 80; 0: SCHED_OTHER) */
    int cpu;               /**< --cpu (default -1: not pinned) */
    long spin_us;          /**< --spin-us */
    rtc_exec_overrun overrun;
    long max_overruns;
    long watchdog_ms;
    const char *safe_file; /**< --test-safe-file: a safe-state callback writes it */
    unsigned given;        /**< bit (c − RTC_CLI_RT_OPT_FIRST) per option on the command
                                line: the system file's settings fill in the others */
    /* outcome */
    int exit_code;         /**< 128 + signal when stopped by SIGINT/SIGTERM, else 0 */
    const char *status;    /**< summary status when not "completed", else NULL */
} rtc_cli_rt;

/* getopt_long codes of the real-time options (above those of cmd_system.c). */
enum { RTC_CLI_RT_OPT_FIRST = 400, RTC_CLI_RT_OPT_LAST = 407 };

/** The getopt_long entries (NULL-name terminated, RTC_CLI_RT_OPT_* codes). */
extern const struct option rtc_cli_rt_longopts[];
/** The lines of `rtcosim run --help` describing them. */
extern const char rtc_cli_rt_help[];

void rtc_cli_rt_init(rtc_cli_rt *rt);

/**
 * Handle one real-time option @p c (RTC_CLI_RT_OPT_FIRST..LAST) with its argument; may
 * consume argv[optind] as the optional RTF of --realtime. Returns RTC_EXIT_OK or the
 * usage error's exit status.
 */
int rtc_cli_rt_option(rtc_cli_rt *rt, int c, const char *arg, int argc, char **argv,
                      const char *cmd);

/**
 * Run @p sys (initialized) in real time with the executive; rows go to @p rec (started in
 * non-lossless mode); DIR gets timing.json, histogram.txt and latency.csv. Handles
 * SIGINT/SIGTERM (stop at the next step boundary; rt->exit_code = 128 + signal).
 * Returns the run's rtc status.
 */
int rtc_cli_rt_run(rtc_system *sys, rtc_recorder *rec, rtc_csv *csv, long decimation,
                   const char *dir, rtc_cli_rt *rt);

/** Install SIGINT/SIGTERM handlers that stop @p ex (NULL: restore the defaults). */
void rtc_cli_rt_signals(rtc_exec *ex);

int rtc_cmd_bench(int argc, char **argv);

#endif
