/*
 * A node of a distributed real-time run as the CLI runs it (cli_nodes.c): the control
 * plane (rtcosim/nodectl.h) opened after the node's part is loaded, the join before its
 * initialization, the start epoch as the executive's start hook, the stop told to the
 * other nodes (and theirs stopping this one), the node's status for theirs, every node's
 * for the session (panel), and the "distributed" object of summary.json.
 */
#ifndef RTC_APP_CLI_NODES_H
#define RTC_APP_CLI_NODES_H

#include "rtcosim/exec.h"
#include "rtcosim/nodectl.h"
#include "rtcosim/placement.h"
#include "rtcosim/session.h"
#include "rtcosim/system.h"

#include "summary.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/** One process's node. Zeroed: no distributed real-time run (every call a no-op). */
typedef struct rtc_cli_nodes {
    rtc_nodectl *ctl;
    const rtc_partition *part;
    const char *session_tag;
    _Atomic(rtc_exec *) ex;   /**< the run's executive once armed (the on-stop target) */
    atomic_bool halted;       /**< another node stopped the run */
    int64_t clock_max_ns;
} rtc_cli_nodes;

/**
 * Open the control plane of node @p place->node of partition @p part (a real-time run):
 * @p tick_ns the base tick, @p clock_max_ms the --clock-offset-max bound (0: default).
 * Returns RTC_OK (also when @p part is NULL: nothing to do), or the plane's error (logged).
 */
int rtc_cli_nodes_open(rtc_cli_nodes *n, const rtc_partition *part,
                       const rtc_placement_opts *place, int64_t tick_ns, double clock_max_ms);

/** Wait until every node joined (before the system's initialization). RTC_OK or
 *  RTC_ETIMEDOUT (the missing nodes named). */
int rtc_cli_nodes_join(rtc_cli_nodes *n);

/** The executive's start hook and status of this node (before rtc_exec_new). */
void rtc_cli_nodes_exec_options(rtc_cli_nodes *n, rtc_exec_options *eo);
/* (these, _attach and _summary take NULL @p n too: not a distributed run) */

/** The run's executive and session (after they are made): another node's stop stops
 *  @p ex; the session shows every node's status. */
void rtc_cli_nodes_attach(rtc_cli_nodes *n, rtc_exec *ex, rtc_session *s);

/** Before the executive is freed: the plane's callbacks no longer touch it (a status
 *  being made, or a late stop, was a use after free). */
void rtc_cli_nodes_detach(rtc_cli_nodes *n);

/**
 * The run stopped at tick @p tick as @p end says: tell the other nodes (from the
 * watchdog too); when another node stopped it, @p end becomes cause "node" with that
 * node and its reason. NULL @p n: nothing.
 */
void rtc_cli_nodes_stopped(rtc_cli_nodes *n, rtc_cli_end *end, int64_t tick);

/** "distributed" of summary.json: node, nodes, leader, session, stopped_by, clock, and
 *  every node's last status. Returns 0, -1 (a member could not be set). */
int rtc_cli_nodes_summary(rtc_cli_nodes *n, json_t *doc);

/** Close the plane (after the stop was told). */
void rtc_cli_nodes_close(rtc_cli_nodes *n);

#endif
