/*
 * A DCP 1.0 slave for the master's tests: a thread of the test process with its own UDP
 * socket on 127.0.0.1, following the spec's state machine (register, the CFG requests,
 * prepare, configure, initialize, run, do_step, send_outputs, stop, reset, deregister;
 * INF_state, INF_error; NTF_state_changed after every transition) and judging every
 * datagram with the validity checks of the spec (rtc_dcp_slave_check). Its model has the
 * variables of tests/data/dcpx/srt_a_y.dcpx: input a (vr 2), output y (vr 1), and computes
 * y = 2 a + 1 + steps taken, so the master's tests can tell which input produced an output.
 * In SRT/HRT it sends its outputs every communication step on its own clock once running;
 * in NRT on STC_send_outputs.
 *
 * It is a real peer over real sockets, not a stand-in for the driver's code, and it can
 * misbehave on request (the knobs below) to test the master against broken slaves.
 */
#ifndef RTC_TEST_DCP_PEER_H
#define RTC_TEST_DCP_PEER_H

#include "rtcosim/dcp.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define DCP_PEER_MAX_VARS 8
#define DCP_PEER_LOG 512

typedef struct dcp_peer {
    /* knobs (set before dcp_peer_start, or atomically while it runs) */
    bool sync_needs_run;        /* DCPLib: SYNCHRONIZING -> SYNCHRONIZED, RUNNING on a
                                   second STC_run (false: straight to RUNNING) */
    atomic_bool mute;           /* answers nothing, sends nothing */
    atomic_int nack_type;       /* a request of this type gets RSP_nack nack_code */
    atomic_int nack_code;
    atomic_int error_after;     /* > 0: enter ERRORHANDLING after that many outputs */
    atomic_int silent_after;    /* > 0: no outputs after that many (control still answers) */
    atomic_int stop_after;      /* > 0: stops by itself (SIG_stop) after that many outputs */
    atomic_bool evil;           /* with every output, the junk of dcp_peer.c's evil() */
    bool log_each;              /* an NTF_log (template 7: uint32 outputs, string "y") with
                                   each output */
    bool refuse_now;            /* STC_run with start time 0 gets INVALID_START_TIME */
    bool no_ntf;                /* sends no NTF_state_changed (as if every one were lost) */
    bool echo;                  /* the model is y = a (a latency probe), not 2 a + 1 + n */
    int64_t hb_limit_ns;        /* > 0: monitors the heartbeat: no INF_state for this long
                                   while registered -> ERRORHANDLING (HEARTBEAT_MISSED) */
    bool start_registered;      /* begin in RUNNING, registered by a "previous master"
                                   with id 1 and sequence id 1000 */
    /* state, read by the test */
    int fd, port, fd2;          /* fd2: a socket on 127.0.0.2 (wrong-sender junk) */
    pthread_t tid;
    atomic_bool stop;
    atomic_int state;           /* rtc_dcp_state */
    atomic_int outputs, inputs, dropped, nacks, refused, steps, deregisters, registers;
    atomic_int errors_acked, inf_states;
    int64_t last_inf_ns;
    _Atomic double last_a;      /* the last input a received */
    /* the peer's own (its thread) */
    struct sockaddr_in master, out_to;
    bool has_master, has_out;
    uint8_t id, op_mode, run_state;
    uint16_t last_seq, out_seq;
    bool registered;
    uint32_t num, den, steps_cfg;
    uint64_t in_vr[DCP_PEER_MAX_VARS], out_vr[DCP_PEER_MAX_VARS];
    uint8_t in_type[DCP_PEER_MAX_VARS];
    size_t n_in, n_out;
    double a, y;
    uint64_t n_steps;
    int64_t next_out_ns;
    uint16_t error;
    uint8_t log[DCP_PEER_LOG];  /* type ids of the requests accepted, in order */
    atomic_int n_log;
} dcp_peer;

/* Bind 127.0.0.1:0 (and 127.0.0.2:0) and start the thread. Returns 0, -1 on failure. */
int dcp_peer_start(dcp_peer *p);
/* Stop and join the thread, close the sockets. */
void dcp_peer_stop(dcp_peer *p);
/* True when the peer accepted a request of @p type (rtc_dcp_type). */
bool dcp_peer_saw(dcp_peer *p, uint8_t type);

#endif
