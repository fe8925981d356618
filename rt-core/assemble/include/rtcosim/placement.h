/*
 * rtcosim/placement.h — distributed runs: which node runs which component, and the part of
 * a system one node runs (DESIGN.md T3).
 *
 * Every component of a system is placed on a named node by the annotation
 * rtc:Component node="B" or on the command line (--place COMPONENT=NODE, which wins).
 * A system without any placement runs in one process as always. With one, every component
 * must be placed, and each process runs one node (--node NAME) of the same system file:
 *
 *   - rtc_partition_new() resolves and checks the placement against the whole system
 *     (loaded once, to know every unit's step, type and the stepping order), lists the
 *     nodes (in the order their first component is declared) and every connection that
 *     crosses nodes, and computes the run id: a digest of the system file, the placement
 *     and the settings the nodes must share (master, tick, start and stop, mode) and the
 *     version of the nodes' protocol (RTC_NODE_PROTOCOL), which every node exchanges at
 *     discovery;
 *   - rtc_load_system_node() loads the node's part: its own components, plus one node
 *     bridge I/O component (application/x-rtcosim-node-bridge, io-drivers) per peer node
 *     it shares a connection with (every peer, when it shares none), carrying every
 *     connection between the two; a connection to a component on another
 *     node is rewired to a bridge signal. The masters never know about nodes.
 *
 * Real time: a connection that crosses from node A to node B keeps its conversion,
 * transformation and delay on A's side, and its estimator (the one it names, else auto)
 * moves to B's bridge signal, where the late value arrives (io_unit.h: the one estimator of
 * a value from outside); the bridges' period is the base tick.
 *
 * Exactness of fast runs (lock-step): a connection that crosses from node A to node B keeps
 * its conversion, transformation, delay and estimator on A's side (A's link into the
 * bridge is the original connection, read when the consumer would read it); B's bridge
 * hands the value over unchanged. Jacobi reads tick k-1's values; Gauss-Seidel, when the
 * source comes first in the order, tick k's (the nodes then step in that order: each
 * node's components must be together in the order). Refused at load: an iterated loop
 * across nodes, Parallel Fast across nodes, a Gauss-Seidel order that interleaves nodes, a
 * crossing connection whose values a one-process run reads between base ticks
 * (Gauss-Seidel with a source slower than the base tick; a delay or estimator on a
 * crossing connection into a unit slower than the base tick, or read before its source
 * steps), and values that are not numbers or not scalars.
 */
#ifndef RTCOSIM_PLACEMENT_H
#define RTCOSIM_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/log.h"
#include "rtcosim/system.h"

/** How a process takes part in a distributed run. */
typedef struct rtc_placement_opts {
    const char *node;            /**< --node: run this node's part (NULL: the whole
                                      system, which then must place nothing) */
    const char *const *places;   /**< "COMPONENT=NODE" (--place; wins over the file) */
    size_t n_places;
    const char *session;         /**< session tag (NULL: "rtcosim"): two sessions with
                                      different tags never see each other */
    int domain;                  /**< DDS domain id, 0..230 */
    bool lockstep;               /**< a fast run: the bridges exchange lock-step rounds */
    double join_ms;              /**< how long a node waits for its peers (0: 30 s) */
    const char *address;         /**< this node's network interface address for DDS
                                      (NULL: loopback, or CYCLONEDDS_URI when set) */
    const char *peers;           /**< the other nodes' addresses, comma-separated */
    const char *const *records;  /**< --record names (the recording selection; none: the
                                      file's, else every output) */
    size_t n_records;
    const char *const *bridge_sets; /**< --bridge "NODE:KEY=VALUE": a key of this node's
                                      bridge to NODE (on_loss, emulate_delay_ms, ...:
                                      iodrivers.h); must outlive the partition */
    size_t n_bridge_sets;
} rtc_placement_opts;

/** One connection between components on different nodes. Strings point into the
 *  partition. */
typedef struct rtc_crossing {
    const char *from_node, *to_node;
    const char *src, *dst;       /**< "component.connector" */
    const char *estimator;       /**< the connection's, or NULL */
    const char *params;          /**< its parameters, or NULL */
    int64_t delay_ns;            /**< the connection's transport delay (0: none) */
    bool ahead;                  /**< Gauss-Seidel: the source steps first, so the
                                      consumer reads the tick's own value */
    unsigned index;              /**< its value in the samples of its direction */
} rtc_crossing;

typedef struct rtc_partition rtc_partition;

/**
 * Resolve the placement of the system at @p path (loaded with @p opt, as a run would) and
 * check it for the mode of @p po. Every problem is logged as one line naming the file or
 * option and the component or node. A system that places nothing gives a partition
 * without nodes (rtc_partition_node_count 0) unless @p po asks for a node.
 * Returns RTC_OK and *@p out; RTC_EPARSE (a bad placement, see the log); the load's errors.
 * RT-safe: no. Thread: the main thread (load).
 */
int rtc_partition_new(const char *path, const rtc_system_options *opt,
                      const rtc_placement_opts *po, const rtc_logger *lg, rtc_partition **out);

/** Free; NULL is a no-op. RT-safe: no. */
void rtc_partition_free(rtc_partition *p);

/** How many nodes (0: the system places nothing). RT-safe: yes. */
RTC_RT_SAFE size_t rtc_partition_node_count(const rtc_partition *p);
/** Node @p i, in the order their first component is declared. RT-safe: yes. */
RTC_RT_SAFE const char *rtc_partition_node(const rtc_partition *p, size_t i);

/** Components of the system file. RT-safe: yes. */
RTC_RT_SAFE size_t rtc_partition_component_count(const rtc_partition *p);
/** The name of component @p i (declaration order). RT-safe: yes. */
RTC_RT_SAFE const char *rtc_partition_component(const rtc_partition *p, size_t i);
/** The node of component @p i (NULL when nothing is placed). RT-safe: yes. */
RTC_RT_SAFE const char *rtc_partition_component_node(const rtc_partition *p, size_t i);

/** Connections that cross nodes. RT-safe: yes. */
RTC_RT_SAFE size_t rtc_partition_crossing_count(const rtc_partition *p);
/** Crossing connection @p i, in the system file's order. RT-safe: yes. */
RTC_RT_SAFE const rtc_crossing *rtc_partition_crossing(const rtc_partition *p, size_t i);

/** The nodes' protocol, part of the run id: which bridges exist and which rounds they send
 *  (2: bridges only between nodes that share a connection, a side with nothing to send
 *  commits every RTC_LOCKSTEP_PACE-th tick round). Nodes of builds that differ in it are
 *  refused as running another run, not left to wait for rounds that never come. */
#define RTC_NODE_PROTOCOL 2

/** The run id (see the file comment). RT-safe: yes. */
RTC_RT_SAFE uint64_t rtc_partition_run_id(const rtc_partition *p);

/**
 * Load node @p po->node's part of the system at @p path (see the file comment): its
 * components and a bridge per peer node it shares a connection with. Without a placement in the file or @p po, and
 * without @p po->node, this is rtc_load_system(). The recording selection becomes the
 * node's columns of the one-process run's (in its order); --set names of other nodes'
 * components are left to them.
 * @p part (may be NULL) receives the partition of a distributed run (NULL otherwise);
 * free it with rtc_partition_free().
 * Returns and errors as rtc_load_system() and rtc_partition_new(). RT-safe: no. Thread:
 * the main thread.
 */
int rtc_load_system_node(const char *path, const rtc_system_options *opt,
                         const rtc_placement_opts *po, const rtc_logger *lg, rtc_system **out,
                         rtc_partition **part);

/**
 * rtc_load_system_node() for `rtcosim replay` of a node's session: the same part of the
 * system, but every I/O component (the bridges included) a replay unit fed by @p feed
 * (rtc_load_system_replay()), so no DDS and no peer is needed. @p po as the live run's
 * (node and --place; lockstep false: a recorded session is a real-time run's).
 * Returns and errors as rtc_load_system_node(). RT-safe: no. Thread: the main thread.
 */
struct rtc_io_sample_source;
int rtc_load_system_node_replay(const char *path, const rtc_system_options *opt,
                                const rtc_placement_opts *po,
                                const struct rtc_io_sample_source *feed,
                                const rtc_logger *lg, rtc_system **out);

/** How many names the one-process run records (rtc_partition_column). RT-safe: yes. */
RTC_RT_SAFE size_t rtc_partition_column_count(const rtc_partition *p);
/**
 * Recorded name @p i of the one-process run of the partition's system, in its order
 * ("unit.variable", or a system connector's name), as rtc_system_record() chooses them by
 * default or from the selection: what `rtcosim merge` puts back together. The string
 * points into the partition. RT-safe: yes.
 */
RTC_RT_SAFE const char *rtc_partition_column(const rtc_partition *p, size_t i);

/** Index of this process's node (rtc_placement_opts.node), -1: none. RT-safe: yes. */
RTC_RT_SAFE long rtc_partition_self(const rtc_partition *p);

/**
 * Write DIR/node.json: this node, the run id, every node and the one-process run's columns
 * with the node each comes from — what `rtcosim merge` needs to put the nodes' results.csv
 * back together. Returns RTC_OK, RTC_EIO, RTC_ENOMEM. RT-safe: no.
 */
int rtc_partition_write_node(const rtc_partition *p, const char *dir);

#endif
