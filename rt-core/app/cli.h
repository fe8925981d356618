/*
 * Shared declarations of the rtcosim command-line front end. Each sub-command lives in its
 * own cmd_<name>.c and returns the process exit status: 0 on success, 1 on any error (after
 * a one-line message on stderr), 2 on a usage error; the runs add 3 (watchdog), 4 (write
 * error), 6 (a bench link failed its contract), 7 (degraded) and 130/143/129
 * (SIGINT/SIGTERM/SIGHUP): the table is in summary.h and the README.
 */
#ifndef RTC_APP_CLI_H
#define RTC_APP_CLI_H

#include "rtcosim/log.h"
#include "rtcosim/recorder.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { RTC_EXIT_OK = 0, RTC_EXIT_ERROR = 1, RTC_EXIT_USAGE = 2,
       RTC_EXIT_WRITE = 4,   /**< a recording or result file could not be written */
       RTC_EXIT_PARTIAL = 5, /**< replay: the session ended abnormally; its recorded prefix
                                  is identical */
       RTC_EXIT_LINK = 6,    /**< a required I/O link not up by its connect deadline, or a
                                  link lost past its on_loss policy */
       RTC_EXIT_DEGRADED = 7, /**< the run ended, but a required link was lost and its
                                   on_loss=continue kept the run going */
       RTC_EXIT_INFEASIBLE = 8, /**< run --realtime refused before arming, plan --realtime:
                                     the system does not fit its period on this machine */
       RTC_EXIT_NODE = 9     /**< another node of a distributed run stopped this one */ };

/** The process-wide logger: errors and warnings to stderr, info with -v. */
extern rtc_logger rtc_cli_log;

int rtc_cmd_info(int argc, char **argv);
int rtc_cmd_run(int argc, char **argv);
int rtc_cmd_check(int argc, char **argv);
int rtc_cmd_plan(int argc, char **argv);
/** `rtcosim plot`: runs the rtcosim-plot script beside the executable (cmd_plot.c). */
int rtc_cmd_plot(int argc, char **argv);
int rtc_cmd_merge(int argc, char **argv);

int rtc_cmd_tune(int argc, char **argv);

/** `rtcosim run --help`: every option of the runs of an FMU or a system, fast, real time
 *  and with an operator session, grouped, on stdout (cmd_run.c). */
void rtc_cli_run_help(void);

/* ---- the recording of a run (cli_record.c) ---- */

/** Create @p path (results.csv) and start the recorder with @p o (its write errors are
 *  reported on the CLI logger at once). Failures are logged. Returns an rtc status. */
int rtc_cli_recording_open(const char *path, rtc_record *rec, const rtc_recorder_opts *o,
                           rtc_csv **csv, rtc_recorder **r);

/** Stop the recorder (NULL: none), fill @p stats (may be NULL), flush, fsync and close the
 *  CSV. On any write error of the recording's life: reported once, @p status gets
 *  "write error: FILE: reason" and RTC_EIO is returned; else RTC_OK. */
int rtc_cli_recording_close(rtc_recorder *r, rtc_csv *csv, rtc_recorder_stats *stats,
                            char *status, size_t cap);

/* ---- the folders and files a run makes (cli_files.c) ---- */

/** What a run made, so that a run refused before its first step takes it away again. */
typedef struct rtc_cli_made {
    char *top;       /**< the topmost folder it made (NULL: none) */
    char **files;    /**< noted files that did not exist yet */
    size_t n_files;
} rtc_cli_made;

void rtc_cli_made_init(rtc_cli_made *m);
/** Create the folder @p path with its parents (mkdir -p), remembering in @p m (may be
 *  NULL) the topmost one made. Returns RTC_OK, or the failure after one line "PATH: cannot
 *  create: reason". */
int rtc_cli_make_dir(const char *path, rtc_cli_made *m);
/** Note @p path: if it does not exist now, rtc_cli_made_undo() removes it. */
void rtc_cli_made_note(rtc_cli_made *m, const char *path);
/** Remove what @p m noted as made: the files, then the topmost folder with what is in it. */
void rtc_cli_made_undo(rtc_cli_made *m);
void rtc_cli_made_clear(rtc_cli_made *m);

/** Remove the whole-file outcomes of an earlier run in @p dir (summary.json, timing.json,
 *  histogram.txt), so a run that fails before writing its own leaves none, never a stale
 *  "completed". */
void rtc_cli_remove_stale(const char *dir);

/* ---- the option checker (cli_args.c) and the option tables (cli_opts.c) ----
 *
 * Every option of every sub-command is a row of a table (cli_opts.c): its name, the kind
 * and range of its value, the kinds of input it applies to, its --help text. One parser
 * (rtc_cli_parse) reads a command line against it, so a bad, missing or out-of-range value
 * is one line naming the option and what it accepts, exit status 2, before anything runs;
 * and every --help text is printed from the same rows.
 */

/** What an option's value is. */
typedef enum rtc_cli_kind {
    RTC_CLI_FLAG,     /**< no value */
    RTC_CLI_INT,      /**< a whole number in lo..hi */
    RTC_CLI_REAL,     /**< a finite number in lo..hi (RTC_CLI_LO_OPEN: > lo) */
    RTC_CLI_TIME,     /**< seconds, a whole number of ns (RTC_CLI_LO_OPEN: > 0) */
    RTC_CLI_CHOICE,   /**< a word the row's choose() accepts */
    RTC_CLI_TEXT,     /**< non-empty text (a name, a file), checked by check() if set */
    RTC_CLI_ASSIGN,   /**< NAME=VALUE */
    RTC_CLI_FACTOR,   /**< --realtime [RTF]: an optional number > 0, also as the next word */
    RTC_CLI_TIMES,    /**< comma-separated times in seconds > 0 */
    RTC_CLI_REALS,    /**< comma-separated numbers in lo..hi */
} rtc_cli_kind;

/** The kinds of input an option applies to (run, check, plan: an FMU or a system). */
enum { RTC_CLI_FOR_FMU = 1u, RTC_CLI_FOR_SYSTEM = 2u, RTC_CLI_FOR_ANY = 3u };
/** Row flags. */
enum { RTC_CLI_LO_OPEN = 1u, /**< the value must be above lo */
       RTC_CLI_NEEDS_RT = 2u /**< run: only with --realtime */ };

/** A checked value: the text as given and what it parsed to. */
typedef struct rtc_cli_val {
    const char *text; /**< the value as given (NULL for a flag, or --realtime alone) */
    long i;           /**< INT; CHOICE: the word's code */
    double d;         /**< REAL, RTF */
    int64_t ns;       /**< TIME */
} rtc_cli_val;

/** One option. */
typedef struct rtc_cli_opt {
    const char *name;  /**< long name without "--" */
    char letter;       /**< short option ('o', 'v') or 0 */
    int id;            /**< what the command's switch tells apart */
    rtc_cli_kind kind;
    double lo, hi;     /**< INT, REAL, REALS range; hi_fn overrides hi */
    unsigned flags;    /**< RTC_CLI_LO_OPEN, RTC_CLI_NEEDS_RT */
    unsigned kinds;    /**< RTC_CLI_FOR_* (0: any) */
    int group;         /**< the --help group it is printed in */
    const char *meta;  /**< the value's name in --help ("T", "FILE", ...) */
    const char *help;  /**< --help lines (continuation lines start with the text; "{}"
                            is replaced by choices()) */
    /** CHOICE: parse @p text into *@p code; 0, or -1 (choices() says what is accepted). */
    int (*choose)(const char *text, long *code);
    /** CHOICE: the accepted words joined by @p sep, the last by @p last. */
    const char *(*choices)(char *buf, size_t cap, const char *sep, const char *last);
    /** TEXT: why @p text is refused, or NULL. */
    const char *(*check)(const char *text);
    /** INT: the upper bound when it depends on the machine (--cpu). */
    long (*hi_fn)(void);
} rtc_cli_opt;

/** Option ids shared by the commands' tables. */
enum rtc_cli_opt_id {
    RTC_CLI_END = 0, RTC_CLI_HELP, RTC_CLI_VERBOSE, RTC_CLI_QUIET,
    /* every run */
    RTC_CLI_START, RTC_CLI_STOP, RTC_CLI_STEP, RTC_CLI_SET, RTC_CLI_RECORD,
    RTC_CLI_DECIMATION, RTC_CLI_OUTPUT_DIR, RTC_CLI_NONFINITE, RTC_CLI_WRITE_ERROR,
    RTC_CLI_FAST, RTC_CLI_FMU_LOGGING,
    /* FMU runs */
    RTC_CLI_OUTPUT, RTC_CLI_NO_OUTPUT, RTC_CLI_SUMMARY, RTC_CLI_INTERFACE, RTC_CLI_SOLVER,
    RTC_CLI_SUBSTEPS, RTC_CLI_EVENT_MODE,
    /* system runs */
    RTC_CLI_ALGORITHM, RTC_CLI_SYNC_STEP, RTC_CLI_WORKERS, RTC_CLI_ITERATE, RTC_CLI_TOLERANCE,
    RTC_CLI_MAX_ITERATIONS,
    /* distributed runs */
    RTC_CLI_NODE, RTC_CLI_PLACE, RTC_CLI_SESSION_TAG, RTC_CLI_DDS_DOMAIN, RTC_CLI_JOIN_TIMEOUT,
    RTC_CLI_DDS_ADDRESS, RTC_CLI_DDS_PEERS, RTC_CLI_BRIDGE, RTC_CLI_CLOCK_MAX,
    /* real time */
    RTC_CLI_REALTIME, RTC_CLI_PRIORITY, RTC_CLI_CPU, RTC_CLI_SPIN_US, RTC_CLI_OVERRUN,
    RTC_CLI_MAX_OVERRUNS, RTC_CLI_WATCHDOG_MS, RTC_CLI_SAFE_FILE, RTC_CLI_FORCE, RTC_CLI_PLAN,
    RTC_CLI_REPROFILE,
    /* operator session */
    RTC_CLI_EXPOSE, RTC_CLI_CONTROL_PORT, RTC_CLI_CONTROL_ALLOW, RTC_CLI_CONTROL_TOKEN,
    RTC_CLI_DEADMAN_MS, RTC_CLI_HTTP, RTC_CLI_HTTP_ADDRESS, RTC_CLI_HTTP_TOKEN,
    /* the session as a DCP slave */
    RTC_CLI_DCP_PORT, RTC_CLI_DCP_HOST, RTC_CLI_DCP_OP_MODE, RTC_CLI_DCPX, RTC_CLI_DCP_HEARTBEAT_MS,
    /* plan, info, bench */
    RTC_CLI_CANDIDATES, RTC_CLI_RTF, RTC_CLI_RECEIVER, RTC_CLI_UNITS, RTC_CLI_PERIOD,
    RTC_CLI_DURATION, RTC_CLI_SYSTEM, RTC_CLI_LOAD, RTC_CLI_COMPARE, RTC_CLI_ROUNDS,
    /* plan --realtime (cmd_plan.c) */
    RTC_CLI_TICKS, RTC_CLI_SECONDS, RTC_CLI_PERCENTILE, RTC_CLI_MARGIN, RTC_CLI_INPUTS,
    RTC_CLI_NODES, RTC_CLI_PIN,
    /* info --samples, tune, plot */
    RTC_CLI_SAMPLES, RTC_CLI_ALL, RTC_CLI_SIGNALS, RTC_CLI_PLOT_OUTPUT, RTC_CLI_FORMAT,
    /* merge */
    RTC_CLI_MERGE_OUTPUT,
};

/** --help groups of `run` (and the other commands' one group, 0). */
enum { RTC_CLI_G_OPTIONS = 0, RTC_CLI_G_RUN, RTC_CLI_G_FMU, RTC_CLI_G_SYSTEM, RTC_CLI_G_NODE,
       RTC_CLI_G_RT, RTC_CLI_G_SESSION, RTC_CLI_G_COMMON };

/** A sub-command: its name, its option rows (tables of rows ending with a row whose name
 *  is NULL, the list ending with NULL), and what it runs on (RTC_CLI_FOR_*; 0: no file). */
typedef struct rtc_cli_command {
    const char *name;
    const rtc_cli_opt *const *tables;
    unsigned kinds;
    int positionals; /**< how many words besides options (bench: 0, others: 1; -N: N or
                          more, merge's NODE_DIR...) */
    const char *operand; /**< the word's name in "expected ..." (NULL: an FMU or a SYSTEM
                              file for run, check, plan and info; else a SESSION_DIR) */
} rtc_cli_command;

/** Every sub-command with options, ending with a NULL name (cli_opts.c). */
extern const rtc_cli_command rtc_cli_commands[];
/** The command named @p name, or NULL. */
const rtc_cli_command *rtc_cli_command_find(const char *name);

/** One option given on the command line, checked. */
typedef struct rtc_cli_arg {
    const rtc_cli_opt *opt;
    rtc_cli_val v;
} rtc_cli_arg;

/** A command line read against a command's table (free with rtc_cli_args_clear). */
typedef struct rtc_cli_args {
    rtc_cli_arg *args; /**< in the order given */
    size_t n;
    char **words;      /**< the non-option words (FILE, SESSION_DIR) */
    size_t n_words;
    bool help;         /**< -h/--help was given (what follows it is not read) */
} rtc_cli_args;

/**
 * Read argv[1..] against @p cmd's table: options as --name VALUE, --name=VALUE, a unique
 * prefix of a name, -x VALUE, -xVALUE, clusters of short flags; "--" ends the options.
 * Every value is checked here. Returns RTC_EXIT_OK, or RTC_EXIT_USAGE after one line naming
 * the option, the text and what it accepts (then *@p out is empty).
 */
int rtc_cli_parse(const rtc_cli_command *cmd, int argc, char **argv, rtc_cli_args *out);
void rtc_cli_args_clear(rtc_cli_args *a);

/**
 * The input kind of the file @p path for @p cmd (RTC_CLI_FOR_FMU for a .fmu, else
 * RTC_CLI_FOR_SYSTEM), and whether every option of @p a applies to it: an option of the
 * other kind is one line ("--algorithm: an option of system runs, not of an FMU") and
 * RTC_EXIT_USAGE.
 */
int rtc_cli_check_kind(const rtc_cli_command *cmd, const rtc_cli_args *a, const char *path,
                       unsigned *kind);

/** The --help lines of every row of @p cmd in @p group, on @p f. */
void rtc_cli_print_options(const rtc_cli_command *cmd, int group, FILE *f);

/** Whole-string integer in lo..hi into *@p out. Returns NULL, or why not ("missing value",
 *  "not an integer", "out of range"); *@p out is unchanged then. */
const char *rtc_cli_num_long(const char *text, long lo, long hi, long *out);
/** Whole-string finite number in lo..hi (NaN never), as rtc_cli_num_long. */
const char *rtc_cli_num_double(const char *text, double lo, double hi, double *out);

/** Print "rtcosim: error: <msg>" and return RTC_EXIT_USAGE. */
int rtc_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
