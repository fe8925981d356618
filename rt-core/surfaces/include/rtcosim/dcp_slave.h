/*
 * rtcosim/dcp_slave.h — a session as a DCP 1.0 slave (UDP_IPv4) of one master.
 *
 * The slave's inputs are the session's exposed variables (a DAT_input_output value is a
 * session set: clamped, recorded in inputs.bin, replayed), its outputs the recorded
 * columns but "time" (read from the session's snapshot of each step). Every variable is
 * Float64 in the .dcpx the slave writes (rtc_dcp_slave_write_dcpx); a master may send an
 * input in any numeric type. The time resolution is the run's tick (one DCP step = one
 * tick).
 *
 * Op modes: NRT — the run waits paused and each STC_do_step runs its steps at once (so a
 * fast run is deterministic); SRT — the SCHED_FIFO executive paces the run from the start
 * time of STC_run (paused until then when the session may pause, i.e. without I/O
 * components). HRT is refused at registration; NRT of a system with I/O components is
 * refused at start (a bench does not wait for a master).
 *
 * One master: the first STC_register that is accepted binds the slave to its address;
 * datagrams from any other address are dropped and counted (wrong_sender). A master that
 * sends no INF_state (nor any other request) for heartbeat_ns: the inputs with a safe
 * value take it, the run is stopped, and the slave reports ERRORHANDLING/ERRORRESOLVED.
 *
 * Threads: the surface has two non-RT threads (the socket's and the one that follows the
 * published steps); it calls only the session's public API.
 */
#ifndef RTCOSIM_DCP_SLAVE_H
#define RTCOSIM_DCP_SLAVE_H

#include <stdbool.h>
#include <stdint.h>

#include "rtcosim/log.h"
#include "rtcosim/rtsafe.h"
#include "rtcosim/session.h"

typedef struct rtc_dcp_slave rtc_dcp_slave;

/** Op modes the slave offers (rtc_dcp_slave_options.modes). */
enum { RTC_DCP_SLAVE_SRT = 1u, RTC_DCP_SLAVE_NRT = 2u };

typedef struct rtc_dcp_slave_options {
    const char *host;     /**< IPv4 address to bind (NULL: 127.0.0.1; "0.0.0.0": any) */
    int port;             /**< UDP port of control and data; 0: ephemeral */
    unsigned modes;       /**< RTC_DCP_SLAVE_* (0: SRT, and NRT without I/O components) */
    int64_t heartbeat_ns; /**< MaximumPeriodicInterval; 0: the master is not watched */
    const char *name;     /**< dcpSlaveName (NULL: "rtcosim") */
    const char *seed;     /**< text the uuid is derived from (e.g. the system path) */
    const rtc_logger *lg;
} rtc_dcp_slave_options;

/**
 * Start the slave on session @p s (attached to its executive, not yet running): bind the
 * socket, queue a pause (NRT; SRT when the session may pause) and start the threads.
 * Returns RTC_OK; RTC_EINVAL (a bad option, NRT with I/O components, a tick that is no
 * time resolution, more than 65535 variables: logged with the reason); RTC_ESYS (socket:
 * logged); RTC_ENOMEM. RT-safe: no.
 */
int rtc_dcp_slave_start(rtc_session *s, const rtc_dcp_slave_options *o, rtc_dcp_slave **out);

/** The bound UDP port. RT-safe: yes. Thread: any. */
RTC_RT_SAFE int rtc_dcp_slave_port(const rtc_dcp_slave *d);

/**
 * Write the slave description (.dcpx) to @p path: uuid, op modes, the time resolution,
 * heartbeat, UDP_IPv4 with the bound address and port, capability flags, variables, log
 * templates. Returns RTC_OK, or -errno/RTC_EIO with "PATH: reason" logged. RT-safe: no.
 */
int rtc_dcp_slave_write_dcpx(const rtc_dcp_slave *d, const char *path);

/** The slave's counters: every datagram it does not act on is in exactly one of
 *  wrong_sender .. ignored. */
typedef struct rtc_dcp_slave_stats {
    uint64_t received, requests, nacks;
    uint64_t wrong_sender, malformed, wrong_seq, not_allowed, refused, dropped, ignored;
    uint64_t repeats, dat_in, dat_out, dat_missed, steps, inputs_lost, notifications;
    uint64_t heartbeats_missed;
    uint8_t state;        /**< the DCP state now (rtc_dcp_state) */
} rtc_dcp_slave_stats;

/** The counters now. RT-safe: yes. Thread: any. */
RTC_RT_SAFE void rtc_dcp_slave_stats_get(const rtc_dcp_slave *d, rtc_dcp_slave_stats *out);

/**
 * The run has ended (@p error: by a failure; @p why in a few words, sent by NTF_log):
 * the slave reports STOPPED (or ERRORRESOLVED), then waits up to @p linger_ns for its
 * master to deregister, then stops its threads, closes the socket and frees; the final
 * counters go to @p final (may be NULL). NULL is a no-op. RT-safe: no. Thread: after the
 * run ended.
 */
void rtc_dcp_slave_stop(rtc_dcp_slave *d, bool error, const char *why, int64_t linger_ns,
                        rtc_dcp_slave_stats *final);

#endif
