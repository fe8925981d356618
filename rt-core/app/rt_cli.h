/*
 * The runs of `rtcosim run FMU|SYSTEM`: their options (cmd_run.c), the run itself, fast or
 * real time (cmd_system.c; a single FMU runs as a system of one unit), the real-time path
 * (cmd_rt.c), the operator session (cmd_session.c), and `rtcosim bench` (cmd_bench.c).
 */
#ifndef RTC_APP_RT_CLI_H
#define RTC_APP_RT_CLI_H

#include "rtcosim/csv.h"
#include "rtcosim/dcp_slave.h"
#include "rtcosim/exec.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/nonfinite.h"
#include "rtcosim/osc_control.h"
#include "rtcosim/panel.h"
#include "rtcosim/placement.h"
#include "rtcosim/recorder.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/session.h"
#include "rtcosim/system.h"

#include "cli.h"
#include "cli_nodes.h"
#include "summary.h"

#include <stdbool.h>
#include <stdint.h>

/** Recorder ring of a real-time run, in rows: rows are never waited for, so the ring
 *  must absorb the recorder thread's hiccups (65536 rows = 65 s at 1 kHz). */
#define RTC_CLI_RT_RING_ROWS RTC_RECORDER_RT_ROWS

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
    /* operator session (cmd_session.c) */
    const char **expose;   /**< --expose NAME[:k=v...] (repeatable; malloc'd array) */
    size_t n_expose;
    long control_port;     /**< --control-port N (-1: no control surface) */
    bool control_allow;    /**< --control-allow ...,remote: accept non-loopback senders */
    unsigned control_caps; /**< --control-allow LIST: RTC_SESSION_CAN_* bits */
    bool control_caps_given;
    const char *control_token; /**< --control-token FILE */
    long deadman_ms;       /**< --deadman-ms N (0: the file's, else none) */
    long http_port;        /**< --http PORT: the browser panel (-1: none; 0: ephemeral) */
    const char *http_address; /**< --http-address ADDR (NULL: 127.0.0.1) */
    const char *http_token;   /**< --http-token FILE */
    long dcp_port;         /**< --dcp-port PORT: the session as a DCP slave (-1: not;
                                0: ephemeral) */
    const char *dcp_host;  /**< --dcp-host ADDR (NULL: 127.0.0.1) */
    unsigned dcp_modes;    /**< --dcp-op-mode: RTC_DCP_SLAVE_* (0: what the system allows) */
    const char *dcpx;      /**< --dcpx FILE: where the slave description goes */
    long dcp_heartbeat_ms; /**< --dcp-heartbeat-ms N (0: the master is not watched) */
    bool write_continue;   /**< --on-write-error continue (set by cmd_system.c) */
    rtc_events *events;    /**< set by cmd_system.c: the session's events.log */
    rtc_record *record;    /**< set by cmd_system.c: the recorded columns */
    const char *system_path;
    const rtc_system_options *sys_options;
    const char *const *record_names;
    size_t n_record_names;
    unsigned given;        /**< bit (id − RTC_CLI_REALTIME) per option on the command
                                line: the system file's settings fill in the others */
    bool stop_on_nonfinite; /**< --on-nonfinite stop (cmd_system.c) */
    double t0_wall_s;      /**< set by cmd_system.c: when the run began (wall_time_s) */
    struct rtc_cli_nodes *nodes; /**< set by cmd_system.c: a node of a distributed run
                                      (cli_nodes.h; NULL otherwise) */
    const char *node;       /**< set by cmd_system.c: --node (session.conf), else NULL */
    const char *const *places; /**< its --place arguments */
    size_t n_places;
    const char *summary_path; /**< where summary.json goes (NULL: none) */
    bool fmu_run;          /**< run FMU: summary.json names the "fmu" and has its unit's
                                fields at the top level */
    bool started;          /**< the first step began (a failure before it leaves nothing) */
    /* outcome */
    rtc_cli_end end;       /**< how the run ended (summary.h); cause NULL while unknown */
    bool has_session;
    rtc_session_stats session; /**< the session's counters, for summary.json */
    bool has_osc, has_panel, has_dcp; /**< the surfaces' counters ("surfaces") */
    rtc_dcp_slave_stats dcp;
    rtc_osc_control_stats osc;
    rtc_panel_stats panel;
    /* feasibility (cli_feasible.c): the check before arming, and what the run measured
     * beside it for summary.json ("feasibility") */
    bool force;            /**< --force: arm an infeasible system anyway */
    bool reprofile;        /**< --reprofile: measure again, whatever the cache holds */
    const char *plan_file; /**< --plan FILE: judge with this plan.json */
    struct rtc_plan *plan; /**< the check's plan (owned), NULL: none */
    char plan_dir[4096];   /**< where its plan.json is ("" when not kept) */
    bool has_measured;     /**< the executive's figures below are filled */
    rtc_hist_summary *unit_measured; /**< per unit: work per tick in the live run */
    size_t n_unit_measured;
    rtc_hist_summary busy; /**< the live run's tick work (step + hand-off) */
    uint64_t steps, overruns;
} rtc_cli_rt;

void rtc_cli_rt_init(rtc_cli_rt *rt);

/**
 * Apply a real-time or operator-session option (ids RTC_CLI_REALTIME..RTC_CLI_HTTP_TOKEN)
 * whose value the option checker took (cli.h). Returns false for another id (or when the
 * --expose list cannot grow).
 */
bool rtc_cli_rt_option(rtc_cli_rt *rt, int id, const rtc_cli_val *v);

/**
 * Run @p sys (initialized) in real time with the executive; rows go to @p rec (started in
 * non-lossless mode); DIR gets timing.json, histogram.txt and latency.csv. Handles
 * SIGINT/SIGTERM/SIGHUP (stop at the next step boundary; rt->end says how it ended). A
 * unit left inside its step after the grace, or the watchdog, ends the process here after the
 * rows, timing.json and summary.json are saved and the temporary directories removed.
 * Returns the run's rtc status (RTC_ETERMINATED: a unit ended the simulation).
 */
int rtc_cli_rt_run(rtc_system *sys, rtc_recorder *rec, rtc_csv *csv, long decimation,
                   const char *dir, rtc_cli_rt *rt);

/**
 * summary.json of a run into rt->summary_path (nothing when NULL; summary_system.c).
 * @p full: also the statistics the stepping thread keeps (connections, I/O, coupling) —
 * false when that thread may still be running (watchdog, a hung unit). @p rs may be NULL.
 * Returns whether it was written (a failure is logged: "FILE: write failed: ...").
 */
bool rtc_cli_write_summary(const rtc_system *sys, const char *path, const rtc_cli_end *end,
                           double wall_s, const rtc_recorder_stats *rs, const rtc_cli_rt *rt,
                           bool full);
double rtc_cli_now_s(void);

/** The reason of a run stopped by I/O unit @p unit's link (summary_system.c): refused
 *  before t0 (@p lost_ns 0) or lost past its on_loss; names the component, its driver
 *  and address, and the error. */
void rtc_cli_link_reason(const rtc_system *sys, long unit, int64_t lost_ns, char *buf,
                         size_t cap);
/** True when a required link was lost under on_loss=continue (the run is "degraded"),
 *  its account in @p buf. */
bool rtc_cli_links_degraded(const rtc_system *sys, char *buf, size_t cap);

/** Install SIGINT/SIGTERM/SIGHUP handlers that stop @p ex (NULL: back to the flag of
 *  rtc_cli_stop_signals()). */
void rtc_cli_rt_signals(rtc_exec *ex);

/** The system file's real-time settings (rtc:RealTime) where the command line is silent:
 *  RTF, priority, CPU, overrun policy, max overruns. */
void rtc_cli_rt_hints(const rtc_system *sys, rtc_cli_rt *rt);

/**
 * Before rtc_system_init(): take the system file's real-time settings where the command
 * line is silent, and load the substitute policy's per-unit threads when it is chosen.
 * Returns RTC_OK or the system's refusal (logged).
 */
int rtc_cli_rt_prepare(rtc_system *sys, rtc_cli_rt *rt);

int rtc_cmd_bench(int argc, char **argv);

/* cli_partition.c: the nodes and the connections between them (info, check) */
void rtc_cli_print_partition(const rtc_partition *p);
/* Resolve the placement of @p path (the file's and @p po's) and print it when it places
 * anything; the problems are logged. Returns rtc_partition_new()'s status. */
int rtc_cli_show_partition(const char *path, const rtc_system_options *so,
                           const rtc_placement_opts *po);

/** Load the system at @p path with every unit factory (FMUs, the built-in I/O drivers);
 *  failures are logged to @p lg. Returns an rtc status (cmd_system.c). */
int rtc_cli_load_system(const char *path, const rtc_system_options *so, const rtc_logger *lg,
                        rtc_system **sys);
/** `rtcosim info SYSTEM` (cmd_info_system.c); @p units: `info --units`, one
 *  "unit.variable<TAB>unit" line per variable (for rtcosim plot); @p places: --place
 *  COMPONENT=NODE (over the file's rtc:Component node). Returns the exit status. */
int rtc_cli_info_system(const char *path, bool units, const char *const *places,
                        size_t n_places);
/** `info --samples`: the bench samples of a session (its folder or its inputs.bin) as
 *  "signal k sample_s arrival_s value" lines (cmd_info_samples.c). Returns the exit status. */
int rtc_cli_info_samples(const char *path);
void rtc_cli_print_units(const rtc_system *sys);

/** What the driver of I/O unit @p u talks to (rtc_io_unit_describe), each line after
 *  @p indent; nothing for a driver with nothing to say. */
void rtc_cli_print_io_description(const rtc_unit *u, const char *indent);

/* ---- run, check and plan: their options (cmd_run.c) and the run (cmd_system.c) ---- */

/** What run, check and plan were told. */
typedef struct rtc_cli_sys {
    rtc_system_options so;
    const char *path;      /**< the FMU or SYSTEM */
    unsigned kind;         /**< RTC_CLI_FOR_FMU or RTC_CLI_FOR_SYSTEM */
    const char *dir;       /**< --output-dir (NULL: not given) */
    const char **records;  /**< --record (repeatable; malloc'd array) */
    size_t n_records;
    const char **sets;     /**< --set, handed to the system as so.sets (malloc'd array) */
    long decimation;
    bool write_continue;   /**< --on-write-error continue */
    /* FMU runs */
    const char *output;    /**< -o FILE (NULL: not given) */
    bool no_output;        /**< --no-output */
    const char *summary;   /**< --summary FILE (NULL: not given) */
    rtc_kv unit_settings[4]; /**< --interface, --solver, --substeps, --event-mode, as
                                  so.unit_settings */
    char substeps[24];
    rtc_cli_rt rt;         /**< --realtime and its options (cmd_rt.c) */
    /* distributed runs (rtcosim/placement.h) */
    rtc_placement_opts place; /**< --node, --place, --session, --dds-*, --join-timeout */
    const char **places;   /**< --place (repeatable; malloc'd array), as place.places */
    rtc_partition *part;   /**< a node's run: the partition it belongs to (owned) */
    const char **bridge_sets; /**< --bridge (repeatable; malloc'd), as place.bridge_sets */
    double clock_max_ms;   /**< --clock-offset-max (0: the default) */
    rtc_cli_nodes nodes;   /**< a node of a real-time distributed run (cli_nodes.h) */
    bool summary_failed;   /**< outcome: summary.json could not be written (exit 4) */
    unsigned long long rows, lost; /**< outcome: rows written, and dropped or lost, for
                                        the final line (after the units' last words) */
} rtc_cli_sys;

/**
 * Read the command line of run, check or plan (@p cmd) into @p o, and @p a (the options as
 * given; plan reads its own rows there; clear it with rtc_cli_args_clear()). Prints the
 * help and returns -1 for -h; RTC_EXIT_OK; the usage error's exit status (message printed).
 */
int rtc_cli_sys_parse(const rtc_cli_command *cmd, int argc, char **argv, rtc_cli_sys *o,
                      rtc_cli_args *a);
/** Free what rtc_cli_sys_parse allocated. */
void rtc_cli_sys_clear(rtc_cli_sys *o);

/** `rtcosim run FMU|SYSTEM` with the options read (cmd_system.c). Returns the exit status. */
int rtc_cli_run(rtc_cli_sys *o);

/* ---- operator sessions (cmd_session.c) ---- */


/** Free what the options allocated (the --expose list). */
void rtc_cli_rt_clear(rtc_cli_rt *rt);

/** Before anything of the run exists (nothing is left behind): each token file a surface
 *  will read (--control-token, --http-token) must be usable — a regular file that can be
 *  read and that other users cannot read (else RTC_EXIT_ERROR), holding a token of 16..255
 *  bytes without a NUL (else RTC_EXIT_USAGE). Returns RTC_EXIT_OK or the exit status after
 *  one line naming the option, the file and the reason. (--control-allow remote needs a
 *  token: a usage error of the option checker, cmd_run.c.) */
int rtc_cli_session_check(const rtc_cli_rt *rt);
/** Arm the session (and the control surface when asked) for a run about to start with
 *  @p eo (its hook is set); NULL session when the run has no events log. Returns RTC_OK
 *  or the failure (logged). */
int rtc_cli_session_start(rtc_system *sys, const char *dir, long decimation, rtc_cli_rt *rt,
                          rtc_exec_options *eo, rtc_session **out);
/** The executive exists: let the session drive it, then start the control surfaces (OSC
 *  and the HTTP panel, as asked). */
int rtc_cli_session_attach(rtc_session *s, rtc_exec *ex, rtc_cli_rt *rt);
/** After the run: stop the control surfaces, keep the counters, close the session. */
void rtc_cli_session_end(rtc_session *s, rtc_system *sys, rtc_cli_rt *rt);

/** `rtcosim replay SESSION_DIR [--output-dir DIR]` (cmd_replay.c). */
int rtc_cmd_replay(int argc, char **argv);

/* ---- a recorded session (cmd_replay.c; also `rtcosim tune`, cmd_tune.c) ---- */

/** session.conf: the command line's settings of the live run. */
typedef struct rtc_cli_session_conf {
    rtc_system_options so;
    char *system, *source_dir;
    char **records;
    size_t n_records;
    char **sets; /**< the live run's --set values, in so.sets */
    long decimation;
    char *node;   /**< a distributed run's node (node=), else NULL */
    char **places; /**< its --place arguments (place=) */
    size_t n_places;
    rtc_kv unit[8]; /**< a single FMU's unit settings (--interface, ...), in
                         so.unit_settings */
    char *unit_text[8][2];
} rtc_cli_session_conf;

/** Read SESSION_DIR/session.conf into @p c (a damaged number is named on stderr).
 *  Returns RTC_OK or an rtc status; free with rtc_cli_session_conf_clear(). */
int rtc_cli_session_conf_read(const char *dir, rtc_cli_session_conf *c);
void rtc_cli_session_conf_clear(rtc_cli_session_conf *c);

/** Load the session's copy of the system (system.ssd/.ssp/.fmu in @p dir), its I/O
 *  components as replay units fed by @p feed. Errors are logged. */
int rtc_cli_session_load(const char *dir, const rtc_cli_session_conf *c,
                         const rtc_io_sample_source *feed, rtc_system **sys);

#endif
