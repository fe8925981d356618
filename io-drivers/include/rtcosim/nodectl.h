/*
 * rtcosim/nodectl.h — the control plane of a distributed real-time run (DESIGN.md T3).
 *
 * In a real-time run every node paces its own part of the system against its own clock
 * and never waits on the network. What the nodes must agree on goes over the control
 * plane, a second pair of DDS topics beside the node bridges' samples (io-drivers/idl/
 * rtcosim_control.idl; README "Distributed runs"), in the run's partition:
 *
 *   join      every node of the placement is there (its hello seen), bounded by the join
 *             time; then one line names the nodes that are missing;
 *   clock     each follower measures its clock against the leader's (the first node of
 *             the placement): pings, the sample with the shortest round trip (NTP's
 *             four timestamps); the offset is compensated at the start and reported; a
 *             run whose offset is above the bound is refused (the clocks are not
 *             disciplined: chrony or linuxptp), a tenth of it warns; the control thread
 *             measures again every second and keeps the drift;
 *   start     each node says READY once it initialized; the leader, when every node is
 *             ready, proposes a start epoch (its CLOCK_REALTIME, a margin ahead) and
 *             every node anchors logical time 0 at that instant of its own monotonic
 *             clock (the executive's start hook, rtc_exec_options.start_at);
 *   stop      a node whose run stops for any reason says so (cause, tick, reason); the
 *             others stop at once (the on-stop callback), so every summary can name the
 *             node that stopped the run and why; a stop at the stop time is only noted;
 *   status    every node publishes its state, tick, overruns, wake-up p99 and its links'
 *             latencies and sample counts twice a second; any node shows all of them.
 *
 * The plane uses the process's DDS presence, which the node bridges made when the node's
 * part of the system was loaded; it has one thread of its own (SCHED_OTHER: status,
 * clock), and its listeners run on Cyclone's receive thread. Nothing here runs on the
 * stepping thread.
 */
#ifndef RTCOSIM_NODECTL_H
#define RTCOSIM_NODECTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/log.h"

typedef struct rtc_nodectl rtc_nodectl;

/** Capacities: bytes of a node name; links one node reports (as the IDL's). */
#define RTC_NODECTL_NAME_CAP 48
#define RTC_NODECTL_LINKS_CAP 8
/** Default of rtc_nodectl_config.clock_max_ns: a larger offset refuses the run. */
#define RTC_NODECTL_CLOCK_MAX_NS 10000000LL

/** How the plane is set up (the run's placement and options). */
typedef struct rtc_nodectl_config {
    const char *const *nodes; /**< every node of the placement; nodes[0] leads */
    size_t n_nodes;
    const char *self;         /**< this process's node (one of nodes) */
    int64_t join_ns;          /**< how long to wait for the others (join, ready, start) */
    int64_t clock_max_ns;     /**< offset bound (0: RTC_NODECTL_CLOCK_MAX_NS) */
    int64_t tick_ns;          /**< the base tick (the start margin) */
} rtc_nodectl_config;

/** Why a run stopped, as the nodes tell each other (the IDL's CAUSE_*). */
typedef enum rtc_nodectl_cause {
    RTC_NODECTL_COMPLETED = 0, /**< the stop time */
    RTC_NODECTL_INTERRUPTED,   /**< a signal (Ctrl-C) or a request */
    RTC_NODECTL_ERROR,         /**< a unit's error, a refused start */
    RTC_NODECTL_OVERRUNS,      /**< the overrun policy */
    RTC_NODECTL_WATCHDOG,      /**< the watchdog */
    RTC_NODECTL_LINK,          /**< a link lost beyond its on_loss policy */
    RTC_NODECTL_NODE,          /**< another node stopped it */
} rtc_nodectl_cause;

/** "completed", "interrupted", "error", "overruns", "watchdog", "link", "node". */
const char *rtc_nodectl_cause_name(int cause);

/** The stop of the run that came first (this node's or another's). */
typedef struct rtc_nodectl_stop {
    char node[RTC_NODECTL_NAME_CAP]; /**< the node whose stop it was */
    int cause;                       /**< rtc_nodectl_cause */
    int64_t tick;                    /**< the tick that node stopped at */
    char reason[192];                /**< in words */
    bool remote;                     /**< another node's */
} rtc_nodectl_stop;

/** The clock of this node against the leader's. */
typedef struct rtc_nodectl_clock {
    char leader[RTC_NODECTL_NAME_CAP];
    bool measured;          /**< false on the leader (its offset is 0 by definition) */
    int64_t offset_ns;      /**< this node's clock minus the leader's, at the start */
    int64_t rtt_ns;         /**< round trip of that measurement (its error is below half) */
    int64_t drift_max_ns;   /**< largest |offset now - offset at the start| since */
    uint64_t measurements;  /**< offsets measured (the start's included) */
    int64_t epoch_ns;       /**< the start epoch, the leader's CLOCK_REALTIME (0: none) */
    int64_t t0_mono_ns;     /**< this node's CLOCK_MONOTONIC of logical 0 (0: none) */
} rtc_nodectl_clock;

/** One link of a node as its status says. */
typedef struct rtc_nodectl_link {
    char peer[RTC_NODECTL_NAME_CAP];
    int state;              /**< rtc_link_state */
    int64_t latency_p50_ns, latency_p99_ns, latency_max_ns;
    uint64_t received, late, lost, duplicates, out_of_order;
} rtc_nodectl_link;

/** What a node's latest status says (rtc_nodectl_nodes). */
typedef struct rtc_nodectl_node {
    char name[RTC_NODECTL_NAME_CAP];
    bool self, leader;
    bool heard;             /**< a status came (false: nothing yet) */
    const char *state;      /**< "joining", "ready", "running", "stopped", "lost" */
    int64_t age_ns;         /**< since its status came (CLOCK_MONOTONIC) */
    int64_t tick, sim_time_ns;
    uint64_t overruns;
    int64_t wakeup_p99_ns;
    int64_t offset_ns;      /**< its clock minus the leader's */
    size_t n_links;
    rtc_nodectl_link links[RTC_NODECTL_LINKS_CAP];
} rtc_nodectl_node;

/** What this node tells the others about itself (the status callback fills it). */
typedef struct rtc_nodectl_local {
    int64_t tick, sim_time_ns;
    uint64_t overruns;
    int64_t wakeup_p99_ns;
} rtc_nodectl_local;

/**
 * Open the control plane of this process's node (see the file comment) on the DDS
 * presence the node bridges made, and start its thread. At most one per process.
 * Returns RTC_OK and *@p out; RTC_EINVAL (bad config, self not among nodes, a plane
 * open already); RTC_ESTATE (no node bridge opened: no DDS presence); RTC_EIO (DDS
 * refused the topics: logged); RTC_ENOMEM. RT-safe: no. Thread: main (load).
 */
int rtc_nodectl_open(const rtc_nodectl_config *cfg, const rtc_logger *lg, rtc_nodectl **out);

/** Stop the thread, withdraw from the topics (after the last stop sample was
 *  acknowledged, bounded) and free. NULL is a no-op. RT-safe: no. */
void rtc_nodectl_close(rtc_nodectl *c);

/**
 * Wait, bounded by the join time, until every node's hello is seen.
 * Returns RTC_OK; RTC_ETIMEDOUT (one line names every missing node); RTC_ESTATE (@p
 * cancelled said so). RT-safe: no (blocks). Thread: main.
 */
int rtc_nodectl_join(rtc_nodectl *c, bool (*cancelled)(void *user), void *user);

/**
 * Agree on the start (see the file comment): measure the clock (followers), say READY,
 * wait for the others (leader) or for the epoch (followers), each bounded by the join
 * time. @p cancelled (may be NULL) is asked about every 5 ms: when it says so, this node
 * tells the others it stopped (interrupted) and the call returns 0 at once.
 * Returns the CLOCK_MONOTONIC instant of logical time 0 (> 0); 0 when cancelled, or when
 * another node stopped before the start (the on-stop callback ran); a negative
 * rtc_status when this node cannot start (a node not ready in time: RTC_ETIMEDOUT; the clock
 * offset above the bound, the epoch already past: RTC_ELIMIT), logged in one line and
 * told to the others. RT-safe: no (blocks). Thread: main, once.
 */
int64_t rtc_nodectl_start(rtc_nodectl *c, bool (*cancelled)(void *user), void *user);

/** Set the callback that stops this node's run when another node stopped or a link was
 *  lost past its policy (called once, on a DDS or bridge thread, under the plane's lock:
 *  it must only ask the executive to stop). Once this returns, a callback replaced or
 *  unset is not running. RT-safe: no. */
void rtc_nodectl_on_stop(rtc_nodectl *c, void (*fn)(void *user), void *user);

/** Set the callback that fills this node's status (called by the plane's thread about
 *  twice a second, under the plane's lock; it must not block). Once this returns, a
 *  callback replaced or unset (NULL) is not running: unset it before what it reads goes.
 *  RT-safe: no. */
void rtc_nodectl_on_status(rtc_nodectl *c, void (*fn)(void *user, rtc_nodectl_local *out),
                           void *user);

/**
 * This node's run stopped: tell the others (@p cause, the tick, @p reason in words) and
 * wait (bounded, 1 s) until they acknowledged. Once per run: a later call (after a
 * refused start told its own) changes nothing. The first stop of the run (this or an
 * earlier remote one) is what rtc_nodectl_stop_origin() reports. RT-safe: no.
 */
void rtc_nodectl_stopped(rtc_nodectl *c, rtc_nodectl_cause cause, int64_t tick,
                         const char *reason);

/** The first stop of the run into @p out: false when nothing stopped yet. RT-safe: no. */
bool rtc_nodectl_stop_origin(rtc_nodectl *c, rtc_nodectl_stop *out);

/** This node's clock against the leader's. RT-safe: no. */
void rtc_nodectl_clock_get(rtc_nodectl *c, rtc_nodectl_clock *out);

/** Every node's latest status, in the placement's order, into @p out (at most @p cap);
 *  returns the number of nodes. RT-safe: no. Thread: any non-RT. */
size_t rtc_nodectl_nodes(rtc_nodectl *c, rtc_nodectl_node *out, size_t cap);

#endif
