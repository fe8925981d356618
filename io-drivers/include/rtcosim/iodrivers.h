/*
 * rtcosim/iodrivers.h — the built-in I/O drivers (io-drivers library).
 *
 * Each driver implements rtc_driver_ops (rtcosim/driver.h) on the driver base
 * (rtcosim/driver_base.h), which does what every driver does: the common keys, the I/O
 * thread and its loop, the stop flag, the safe-value hand-off and latch, reconnect
 * backoff, the link state, counters and stats. The executable calls
 * rtc_iodrivers_register() once during load; tests and embedders may also use the vtables
 * directly. Each driver's I/O thread is created by the engine's one thread creator
 * (rtc_rt_thread_start, rtcosim/rt.h): SCHED_FIFO at `priority` on `cpu` when permitted
 * (else SCHED_OTHER with one warning per process), its stack prefaulted, named
 * "io-<component>" (what ps/top show).
 *
 * A new driver goes in io-drivers/src/<name>.c, copied from drv_skeleton.c (the template:
 * the base first, open() and the hooks, the ops table on the base), with its type and ops
 * below, its registration in iodrivers.c, its keys in this comment, and a test
 * tests/unit/test_io_<name>.c against a real peer. Nothing in rt-core changes.
 *
 * ---- Settings keys (strings; numbers in C locale; booleans true/false/1/0) ----
 * Component keys common to all drivers (read by the driver base):
 *   priority      I/O thread SCHED_FIFO priority 1..99; 0 = SCHED_OTHER   [default 20]
 *   cpu           CPU the I/O thread is pinned to; -1 = any                 [-1]
 *   stale_ms      age after which a FROM_BENCH value is flagged stale; 0 = never
 *                 (Modbus client, UDP frames: [the loss time]; Modbus server: [0];
 *                 OSC: none)
 *   safe_timeout_ms  how long the stop path may wait for write_safe_values() (kept in
 *                 rtc_drv_base.safe_timeout_ms; the I/O unit still waits 200 ms)  [500]
 *   heartbeat     "coil:<addr>" or "holding:<addr>" (Modbus) / OSC path: a watchdog
 *                 value changed every cycle                                 [none]
 *   heartbeat_mode  toggle (0/1) or count (0,1,2,... wraps at 65536)         [toggle]
 * The link contract (DESIGN.md T2; rtcosim/driver_base.h), component keys of every driver:
 *   required      the run does not start without this link: refused (exit 6) when it is
 *                 not up within connect_ms        [true; OSC: false (an operator may never
 *                                                  send)]
 *   connect_ms    deadline from the driver's start (before t0); an optional link not up
 *                 by then is flagged degraded and the run goes on   [2000; Modbus server:
 *                                                  10000; OSC: none (stays connecting)]
 *   on_loss       what a lost link does: estimate:T (the estimators extrapolate at most T,
 *                 a duration "0.5", "500ms"; then the run stops, exit 6, safe values
 *                 written), stop (at once), continue (the run goes on, the link flagged
 *                 degraded; a required one makes the run end "degraded", exit 7)
 *                                                  [estimate:0.5s; optional: continue]
 *   loss_ms       nothing fresh for this long is a loss (besides the peer going away);
 *                 0 = only the peer going away        [Modbus client, UDP frames: derived,
 *                                                  max(3 periods, 3 x round trip, stale_ms
 *                                                  when set); Modbus server, OSC: 0]
 *   A link is "connecting" until it is first up (a client connected and measured, a
 *   server's first client, an OSC input's first message, UDP frames' first frame), then
 *   "up", "late" (nothing fresh for half the loss time), "lost" (the peer gone or
 *   nothing fresh for the loss time) or "degraded". A receive-only link (OSC in, a
 *   Modbus server) is up while it has a peer: silence alone is no loss unless loss_ms
 *   says so. Nothing is sent to a bench before the run's first tick.
 * Per-signal key common to all drivers:
 *   safe          safe value (TO_BENCH) written by write_safe_values() and on the stop
 *                 path, then latched until the next start             [none: untouched]
 *
 * Modbus client (application/x-rtcosim-modbus-client), component keys:
 *   transport     tcp | rtu                                                 [tcp]
 *   host, port    TCP peer                                                  [127.0.0.1, 502]
 *   device, baud, parity (N|E|O), data_bits, stop_bits   RTU line  [-, 19200, N, 8, 1]
 *   unit_id       Modbus unit / slave id                                    [1]
 *   poll_ms       poll and write period                                     [10]
 *   timeout_ms    response timeout; must be below poll_ms   [derived: min(poll_ms,
 *                 max(2 x round trip, poll_ms/2)); before a measurement poll_ms/2]
 *                 Each connection first measures the round trip with
 *                 RTC_MODBUS_CLIENT_PROBES reads of its first batch (a write batch's
 *                 registers are read back), each allowed max(poll_ms, 1 s). On TCP a
 *                 request that times out (counted in timeouts) waits for its late answer
 *                 (up to the loss time, plus T under on_loss=estimate:T) and takes it: a
 *                 read's values are published as a late sample, and the link stays.
 *   write_mode    on_change | cycle (to-bench outputs)                      [on_change]
 *   reconnect_min_ms, reconnect_max_ms  backoff bounds (doubling, +-25% jitter) [100, 5000]
 *   max_gap       registers of unmapped gap a read batch may span           [0]
 * Modbus server (application/x-rtcosim-modbus-server), component keys:
 *   transport, device, baud, parity, data_bits, stop_bits, unit_id   as above
 *   bind, port    TCP listen address; port 0 = ephemeral (see stats.port)   [127.0.0.1, 502]
 *   max_clients   simultaneous TCP clients; a new one is always let in: when slots are
 *                 short, a connection that has not completed a request or holds a
 *                 partial frame yields (oldest first), else the one served least
 *                 recently (of the most crowded address)                   [32]
 *   max_clients_per_peer  connections one IPv4 address may hold; a new one beyond
 *                 makes room among that address's own             [16, at most max_clients]
 *   frame_timeout_ms  a request must arrive whole within this from its first byte,
 *                 else its connection is closed                             [500]
 *   idle_timeout_ms   a connection without a byte for this long is closed; 0 = never
 *                                                                           [60000]
 *   update_ms     period of copying outputs into the register map           [1]
 * Modbus per-signal keys (the register map):
 *   table         coil | discrete | holding | input. FROM_BENCH on the client may use all
 *                 four; TO_BENCH on the client needs coil|holding. On the server TO_BENCH
 *                 (outputs a PLC reads) may use all four, FROM_BENCH (a PLC writes) needs
 *                 coil|holding.                              [holding; coil for bool]
 *   address       0-based PDU address of the first coil/register (0..65535)  [required]
 *   type          bool | int16 | uint16 | int32 | uint32 | float32 | int64 | uint64 | float64
 *                 (registers used: 1, 1, 1, 2, 2, 2, 4, 4, 4; bool in a register is 0/1)
 *                 [bool for coil/discrete; else from the signal's rtc_type, FLOAT64->float32]
 *   word_order    big (most significant word at the lowest address) | little     [big]
 *   byte_swap     swap the two bytes inside each register                   [false]
 *   scale, offset engineering = raw * scale + offset                        [1, 0]
 *   min, max      clamp of the engineering value (counted in the signal health's clamped)  [none]
 * OSC (application/x-rtcosim-osc), component keys:
 *   port          UDP port to receive on; 0 = ephemeral (see stats.port)     [0]
 *   bind          127.0.0.1 accepts loopback senders only (liblo 0.31 binds every
 *                 interface, so this is enforced by sender filtering); 0.0.0.0 accepts any
 *                                                                            [127.0.0.1]
 *   allow         comma-separated sender IPv4 addresses; when set, only these  [none]
 *   targets       comma-separated host:port list that outbound bundles go to  [none]
 *   rate_hz       outbound stream rate                                       [50]
 *   timetag_bound_s  a bundle timetag farther than this from the arrival (future or
 *                 past) is replaced by the arrival, counted in timetags_clamped  [1]
 * OSC per-signal keys:
 *   path          OSC address pattern-free path, e.g. /plant/setpoint        [/<name>]
 *   osc_type      outbound argument type f | d | i                           [f]
 *   min, max      inbound clamp (clamped and counted)                        [none]
 *   (safe: streamed once by write_safe_values(), then in every bundle while latched)
 * UDP frames, the skeleton driver (application/x-rtcosim-udp-frame), component keys:
 *   port          UDP port on 127.0.0.1 to receive on; 0 = ephemeral (stats.port)  [0]
 *   peer_host, peer_port  where frames go (IPv4); peer_port 0 = receive only [127.0.0.1, 0]
 *   period_ms     send period                                                [10]
 *   A frame is "RTCF" then one IEEE-754 float64 per signal of the sender's to-bench
 *   signals, in their order, all big-endian; a frame received must carry exactly this
 *   side's from-bench signals (else counted malformed). Samples are dated by arrival; the
 *   link is up while frames arrive and lost after the loss time (3 periods) without one.
 *   Before its run's first tick a side sends "RTCH" frames (no values): "here".
 * Node bridge (application/x-rtcosim-node-bridge, dds_bridge.c): one per peer node a node
 * shares a connection with in a distributed run, placed and keyed by rt-core/assemble
 * (users do not write it; README "Distributed runs"). Component keys:
 *   node, peer    this process's node and the peer node                      [required]
 *   run_id        the run's digest of system file and placement, 16 hex digits [required]
 *   system        the system's name, shown to other nodes                    [""]
 *   session       session tag: DDS Discovery Tag and partitions rtc/<session>[/<run_id>]
 *                                                                            [rtcosim]
 *   domain        DDS domain id, 0..230                                      [0]
 *   address, peers  this node's interface address and the other nodes' addresses
 *                 (comma-separated) for a run across machines; without them the engine
 *                 configures loopback, or Cyclone reads CYCLONEDDS_URI when it is set
 *   lockstep      true: exchange numbered rounds and wait for the peer's every tick
 *                 (fast runs: results equal the one-process run's)           [false]
 *   join_ms       how long initialization waits for the peer to join         [30000]
 *   loss_ms       lock-step: how long a tick waits for the peer's values     [10000]
 *   period_ms     real time: the base tick (lateness); lock-step: housekeeping [10]
 *   on_loss       the link contract's (driver_base.h), for a lost peer: estimate:T (real
 *                 time: the estimators cover it for T, then the run stops, cause "link"),
 *                 stop or continue                                         [estimate:0.5]
 *   emulate_delay_ms, emulate_jitter_ms, emulate_loss, emulate_seed  real time: hold back
 *                 every received sample delay +- jitter ms (uniform; jitter <= delay) and
 *                 drop it with probability loss, from a generator seeded with seed and the
 *                 sample's tick (a slow, jittery, lossy link where no netem is)  [0 0 0 1]
 * Per-signal keys (from-bench signals): ahead  1 for a value the peer makes in the same
 *   tick before this node steps (Gauss-Seidel across nodes), else 0          [0]
 *   Link contract: required; connect_ms defaults to join_ms; silence alone is no loss
 *   (a lock-step peer may compute for long): the link is lost when the peer's DDS
 *   liveliness is (its process died or hangs: about 1 s, in real time 250 ms); on_loss
 *   as for every link.
 * DCP slaves, driven by the DCP master (application/x-dcp-slave; the component's source is
 * the slave's .dcpx; its connectors are named as the slave's variables: kind="input" for
 * an Input, kind="output" for an Output; numeric scalars only), component keys:
 *   host, port    the slave's control endpoint (IPv4)       [the .dcpx UDP_IPv4 Control]
 *   dat_port      where the slave receives its inputs (data id 1)
 *                                    [the first DAT_input_output port, else the control port]
 *   bind, local_port  this end's address and port; the slave sends its outputs (data id 2)
 *                 there              [the address the route to the slave leaves from, 0]
 *   op_mode       hrt | srt | nrt; one the .dcpx offers
 *                 [lockstep: nrt when offered; else srt, else hrt, else nrt]
 *   step_ms       communication step: steps x a time resolution the slave offers
 *                 [the fixed resolution x the outputs' defaultSteps (NRT: NonRealTime's),
 *                 else 10]
 *   slave_id      the id the slave is registered with, 1..255                [1]
 *   timeout_ms    a request unanswered this long is sent again (same sequence id)   [100]
 *   retries       times a request is sent again before the link fails       [3]
 *   setup_timeout_ms  a state the slave must reach (PREPARED, CONFIGURED, ...)  [5000]
 *   start_delay_s STC_run's start time: 0 = now, else now + N whole seconds   [0]
 *   initialize    STC_initialize and STC_send_outputs once before STC_run
 *                 [false; always with lockstep]
 *   lockstep      step the slave in lock-step through the I/O unit's channel
 *                 (rtcosim/lockstep.h): NRT only; each tick DAT_input_output, STC_do_step,
 *                 STC_send_outputs, and the tick waits for the outputs   [false; a fast
 *                 run of rtcosim sets it for every DCP slave component]
 *   reconnect_min_ms, reconnect_max_ms  backoff before walking the slave again [100, 5000]
 *   (safe: sent as one DAT_input_output before STC_stop on every stop path)
 *
 * ---- Driver-specific counters (rtc_driver_stats.counters, under .kind) ----
 * The generic counters of rtc_driver_stats mean: requests = Modbus requests sent (client)
 * or served (server), OSC messages received, UDP frames sent and received (well-formed);
 * errors = failed exchanges other than timeouts; rejected = writes refused (a disallowed
 * OSC sender or output path, a Modbus write to a register that is not a from-bench
 * signal). On top of them:
 *   "modbus_client": exceptions (exception responses received)
 *   "modbus_server": exceptions (sent), write_refused (write requests refused with
 *                 exception 02, whatever the function code), fc_unsupported (exception
 *                 01), bad_requests (length, byte count or quantity wrong: exception 03;
 *                 or a broken MBAP header: connection closed), frame_timeouts (closed: a
 *                 request not whole within frame_timeout_ms), idle_closed (closed after
 *                 idle_timeout_ms), evicted (closed to let a new one in), evicted_peer
 *                 (of these, for max_clients_per_peer while slots were free),
 *                 clients_refused (refused: only connections accepted in the same turn
 *                 of the I/O loop could yield, a connect storm), clients (open now),
 *                 clients_max (most open at once)
 *   "udp_frame":  malformed (frames of the wrong size or without the "RTCF"/"RTCH" mark)
 *   "dcp_master": wrong_sender (datagrams from another IPv4 address than the slave's),
 *                 malformed (undecodable, truncated, oversized, unknown type, a DAT of the
 *                 wrong size), unexpected (requests, others' notifications, DAT of another
 *                 data id or phase), wrong_seq (answers to another request, DAT older than
 *                 the last), nacks, slave_errors (Error states, RSP_error_ack), retransmits,
 *                 dat_missed (the slave's DAT lost: sequence gaps), logs (NTF_log),
 *                 steps and late_steps (NRT), life_cycles (walks from ALIVE to running)
 *   "osc":        malformed (undecodable packets, wrong argument types or counts),
 *                 unknown (messages for unmapped paths), sent (bundles sent, per target),
 *                 timetags_clamped (bundle timetags farther than timetag_bound_s from
 *                 arrival, replaced by the arrival time)
 *   "node_bridge": sent, received (samples), unexpected (of another run or process:
 *                 dropped), duplicates, out_of_order (lock-step: a round missing, the run
 *                 stops; real time: older than one used, dropped), overflow (the peer ran
 *                 further ahead than the lock-step window); real time also late (used more
 *                 than a tick after its time), lost (a tick never seen), emulated_dropped
 *                 (by emulate_loss)
 */
#ifndef RTCOSIM_IODRIVERS_H
#define RTCOSIM_IODRIVERS_H

#include "rtcosim/driver.h"

/** SSP component types of the built-in drivers. */
#define RTC_DRIVER_TYPE_MODBUS_CLIENT "application/x-rtcosim-modbus-client"
/** Round-trip probes of the Modbus client on each new connection (requests counted). */
#define RTC_MODBUS_CLIENT_PROBES 5
#define RTC_DRIVER_TYPE_MODBUS_SERVER "application/x-rtcosim-modbus-server"
#define RTC_DRIVER_TYPE_OSC "application/x-rtcosim-osc"
#define RTC_DRIVER_TYPE_UDP_FRAME "application/x-rtcosim-udp-frame"
#define RTC_DRIVER_TYPE_NODE_BRIDGE "application/x-rtcosim-node-bridge"
/** A DCP 1.0 slave (its .dcpx is the component's source), driven by the DCP master. */
#define RTC_DRIVER_TYPE_DCP_SLAVE "application/x-dcp-slave"

/** Modbus client over TCP or RTU (libmodbus): polls the bench, writes outputs. */
extern const rtc_driver_ops rtc_modbus_client_ops;
/** Modbus server over TCP or RTU (libmodbus): a PLC/SCADA polls the engine. */
extern const rtc_driver_ops rtc_modbus_server_ops;
/** OSC over UDP (liblo): operator set-points in, streamed outputs out. */
extern const rtc_driver_ops rtc_osc_ops;
/** UDP sample frames, the skeleton driver (drv_skeleton.c): the template of a new one. */
extern const rtc_driver_ops rtc_udp_frame_ops;
/** The node bridge of a distributed run over Cyclone DDS (dds_bridge.c). */
extern const rtc_driver_ops rtc_node_bridge_ops;
/**
 * What the node bridges of this process ask while they wait for their peers before the run
 * (their start: hello and matching, bounded by join_ms): when @p cancelled returns true (a
 * Ctrl-C came), the wait ends at once and the bridge's start fails with RTC_ESTATE, so
 * the caller's stop path names the signal instead of waiting out --join-timeout. NULL: no
 * question (the default). Asked from the bridges' I/O threads, every few milliseconds.
 * RT-safe: no. Thread: any; set it before the system is initialized.
 */
void rtc_node_bridge_set_cancel(bool (*cancelled)(void *user), void *user);

/** The DCP master of one DCP 1.0 slave over UDP_IPv4 (dcp_master.c). */
extern const rtc_driver_ops rtc_dcp_master_ops;

/**
 * Register the six drivers under RTC_DRIVER_TYPE_MODBUS_CLIENT, _MODBUS_SERVER, _OSC,
 * _UDP_FRAME, _NODE_BRIDGE and _DCP_SLAVE.
 *
 * Returns: RTC_OK or the first rtc_driver_register() error.
 * RT-safe: no. Thread: main thread, during load.
 */
int rtc_iodrivers_register(void);

#endif
