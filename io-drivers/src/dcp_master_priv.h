/*
 * dcp_master_priv.h — what the two files of the DCP-master driver share: dcp_master.c
 * (open: keys, the .dcpx and the signal map; the ops table and the base's hooks) and
 * dcp_master_link.c (the protocol on the I/O thread: requests and answers, the slave's
 * life cycle from ALIVE to RUNNING and back, the data exchange of SRT/HRT and NRT).
 *
 * Everything below belongs to the I/O thread once start() ran (the base's rule for "I/O"
 * fields), except what open() sets and only reads afterwards.
 */
#ifndef RTC_DCP_MASTER_PRIV_H
#define RTC_DCP_MASTER_PRIV_H

#include "rtcosim/dcp.h"
#include "rtcosim/dcpx.h"
#include "rtcosim/driver_base.h"
#include "rtcosim/lockstep.h"
#include "rtcosim/ratelimit.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

/* The driver's own counters, by index (names in dcp_master.c). */
enum {
    DM_WRONG_SENDER,  /* datagrams from another address than the slave's */
    DM_MALFORMED,     /* undecodable: truncated, oversized, unknown type, bad payload */
    DM_UNEXPECTED,    /* decodable but not now: a PDU a master never gets, wrong state */
    DM_WRONG_SEQ,     /* answers to another request, data older than the last */
    DM_NACKS,         /* RSP_nack received */
    DM_SLAVE_ERRORS,  /* the slave entered an Error state or answered RSP_error_ack */
    DM_RETRANSMITS,   /* requests sent again after a timeout */
    DM_DAT_MISSED,    /* DAT_input_output PDUs of the slave lost (sequence gaps) */
    DM_LOGS,          /* NTF_log received */
    DM_STEPS,         /* NRT: steps completed (STC_do_step .. outputs received) */
    DM_LATE_STEPS,    /* NRT: steps not complete by the next period */
    DM_LIFE_CYCLES,   /* times the slave was walked from ALIVE to its run state */
    DM_N_COUNTERS
};

/* Data ids the master configures: its inputs to the slave, the slave's outputs to it. */
#define DM_DATA_IN 1
#define DM_DATA_OUT 2

/* What the protocol engine is doing (dcp_master_link.c). */
typedef enum dm_phase {
    DM_PROBE = 0, /* asking the slave's state (INF_state) before registering */
    DM_RECOVER,   /* bringing a slave left in another state back to ALIVE */
    DM_SETUP,     /* the script: register, configure, prepare, configure, run */
    DM_RUN,       /* exchanging data */
    DM_DOWN,      /* failed: waiting for the retry time */
    DM_ENDED,     /* stopped and deregistered (end) */
} dm_phase;

/* One entry of the setup script: a request and the state the slave must reach after its
 * acknowledgement (WAIT_NONE: none, it stays; WAIT_RUN: a state of the Run superstate). */
#define WAIT_NONE 0xFF
#define WAIT_RUN 0xFE
typedef struct dm_step {
    rtc_dcp_pdu pdu;
    uint8_t wait_for;
} dm_step;

/* The outstanding request (one at a time). */
typedef struct dm_req {
    bool active;
    bool resynced;           /* sent again with the slave's exp_seq_id once */
    uint8_t type;
    uint8_t state;           /* the slave's state when it was sent */
    uint16_t seq;
    rtc_dcp_pdu pdu;         /* as sent */
    unsigned tries;
    int64_t sent_ns;
    size_t len;
    uint8_t buf[64];
} dm_req;

/* One signal as the slave sees it: its variable, and its place in a DAT payload. */
typedef struct dm_sig {
    const rtc_dcpx_var *var; /* in d->dcpx */
    size_t port;             /* index of the base signal */
} dm_sig;

typedef struct dm {
    rtc_drv_base b; /* first: the base's ops take the object as their base */
    /* open */
    rtc_dcpx *dcpx;
    char *name;              /* "slave 'NAME' at HOST:PORT", for messages */
    struct sockaddr_in slave, slave_dat, local;
    uint8_t slave_id, op_mode;
    uint32_t res_num, res_den, steps; /* time resolution and steps per communication step */
    int64_t timeout_ns, setup_timeout_ns;
    unsigned retries;
    unsigned start_delay_s;
    bool initialize;
    dm_sig *in, *out;        /* to the slave (data id 1) / from it (data id 2), in pos order */
    size_t n_in, n_out;
    size_t in_len, out_len;  /* payload bytes of each direction */
    dm_step *script;
    size_t n_script;
    rtc_lockstep *ls;        /* fast run, NRT: the lock-step channel (NULL: mailboxes) */
    double *ls_vals;         /* lock-step: the slave's outputs as last received (n_out) */
    uint8_t *tx;             /* one DAT_input_output to the slave */
    size_t tx_cap;
    /* I/O thread */
    int fd;
    dm_phase phase;
    size_t at;               /* next script entry */
    int wait_for;            /* state awaited after an acknowledged request, -1: none */
    int64_t wait_since_ns, poll_ns, retry_ns, hb_ns, stepped_ns;
    uint8_t state;           /* the slave's state as last heard */
    bool state_known;
    bool registered;         /* this master registered the slave (not deregistered since) */
    uint16_t seq;            /* the last request's pdu_seq_id */
    bool seq_set;
    dm_req req;
    uint16_t dat_seq;        /* the next DAT_input_output to the slave */
    uint16_t rx_seq;         /* the last DAT of the slave */
    bool rx_seq_set;
    bool stepping, step_out; /* NRT: a step in progress; its outputs came */
    int step_phase;          /* NRT: 1 STC_do_step sent, 2 STC_send_outputs sent */
    bool ls_pending;         /* lock-step: the round being stepped is not answered yet */
    bool ls_have_init;       /* lock-step: the initial outputs came (STC_send_outputs) */
    bool ls_tick0;           /* lock-step: round 0 (the initial outputs) was put */
    uint32_t ls_k;           /* lock-step: the tick round being stepped */
    bool ls_ran;             /* lock-step: the slave reached its run once */
    const char *ls_fail;     /* lock-step: why to fail the channel once the link is down */
    int64_t ls_begin_ns;     /* lock-step: begin(), from which connect_ms counts */
    bool asked_error;        /* INF_error asked in this Error state */
    unsigned state_asks;     /* INF_state after INVALID_STATE_ID since the last ack */
    int64_t rx_ns;           /* the last DAT of the slave (0: none this life cycle) */
    bool sent_run_again;     /* SRT: STC_run sent in SYNCHRONIZED */
    bool said_running;       /* the line about the run said in this life cycle */
    const char *why;         /* why the link went down last (static text or d->why_buf) */
    char why_buf[200];
    rtc_ratelimit lines;     /* log lines caused by the slave's traffic */
    uint8_t rx[RTC_DCP_UDP_MAX_PDU + 1];
} dm;

/* ---- dcp_master_script.c ---- */

/** Build the setup script from the open configuration. Returns RTC_OK or RTC_ENOMEM. */
int rtc__dm_script(dm *d);

/* ---- dcp_master_link.c ---- */

/** begin(): reset the protocol state (phase PROBE). */
void rtc__dm_reset(dm *d, int64_t now_ns);
/** Receive and handle what is waiting on the socket, until @p until_ns. */
void rtc__dm_receive(dm *d, int64_t until_ns);
/** One period: timeouts, the next request, the period's data or NRT step. */
void rtc__dm_cycle(dm *d, int64_t now_ns);
/** Send one DAT_input_output of @p vals (the to-bench values in signal order), or with
 *  NULL of the current (or, latched, safe) values of the mailboxes. */
void rtc__dm_send_inputs(dm *d, const double *vals);
/** Lock-step: the driver's wait (rounds, answers), until @p until_ns. */
void rtc__dm_lockstep_wait(dm *d, int64_t until_ns);
/** end(): safe values sent before, now stop and deregister the slave, bounded. */
void rtc__dm_shutdown(dm *d);

#endif
