/*
 * dcp_slave_priv.h — the DCP slave's protocol machine, apart from its socket and its
 * session (rtcosim/dcp_slave.h is the surface built on it).
 *
 * The machine (dcp_slave_core.c) is pure: it is handed datagrams, the passing of time, the
 * engine's published steps and the end of the run, and answers with datagrams and engine
 * requests through the callbacks of rtc__dcp_engine. It owns no socket, thread or clock,
 * allocates only in rtc__dcp_core_init(), and touches nothing but its own struct, so one
 * thread drives it (the surface's protocol thread) and the fuzz harness
 * (tests/fuzz/fuzz_dcp_slave.c) can feed it any sequence of datagrams.
 *
 * What it speaks: DCP 1.0 over UDP_IPv4 as a slave of one master (rtcosim/dcp.h holds the
 * codec, the state table and the validity checks). Its variables are numbers: inputs
 * (exposed variables of the session) and outputs (recorded columns), every one declared
 * Float64 in the .dcpx; a master may send an input in any numeric type. Its time
 * resolution is fixed to the engine's tick, so a DCP step is one tick. Op modes SRT
 * (the engine paced from the start time) and NRT (a step per STC_do_step); HRT is refused
 * at registration (INVALID_OP_MODE). Log on notification only (CFG_logging); no
 * parameters, no reset (canHandleReset false).
 */
#ifndef RTC_DCP_SLAVE_PRIV_H
#define RTC_DCP_SLAVE_PRIV_H

#include "rtcosim/dcp.h"
#include "rtcosim/rtc_config.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Most data ids a master may configure (inputs and outputs together). */
#define RTC__DCP_MAX_IDS 8
/* Most targets one output data id is sent to. */
#define RTC__DCP_MAX_TARGETS 4
/* Largest STC_do_step (NRT) and CFG_steps (SRT) the slave accepts, in ticks. */
#define RTC__DCP_MAX_STEPS RTC_MAX_SINGLE_STEPS /* the session's bound */
/* Farthest start time STC_run may name (s from now): a day. */
#define RTC__DCP_MAX_WAIT_S 86400
/* Log categories of the slave's templates (1 run, 2 protocol, 3 inputs). */
#define RTC__DCP_N_CATEGORIES 3

/* One variable of the slave as the .dcpx describes it. */
typedef struct rtc__dcp_var {
    const char *name;  /* the .dcpx name */
    const char *unit;  /* NULL: none */
    uint64_t vr;       /* valueReference */
    double start;      /* inputs: the value at arming */
    bool has_min, has_max, has_safe;
    double min, max, safe;
} rtc__dcp_var;

/* What the slave is: fixed when it is made. */
typedef struct rtc__dcp_config {
    const rtc__dcp_var *in, *out;
    size_t n_in, n_out;
    uint8_t uuid[16];
    bool srt, nrt;                  /* the op modes offered */
    uint32_t res_num, res_den;      /* the time resolution: the engine's tick, in s */
    int64_t heartbeat_ns;           /* MaximumPeriodicInterval; 0: not monitored */
    uint32_t ip;                    /* its address (host order; 0: any) */
    uint16_t port;                  /* its control and data port */
    size_t max_pdu;                 /* maxPduSize */
} rtc__dcp_config;

/*
 * What the machine asks of the engine. Every call comes from the thread that drives the
 * machine. None may call back into it.
 */
typedef struct rtc__dcp_engine {
    /* Send @p len bytes to @p ip:@p port (host order). */
    void (*send)(void *user, const uint8_t *buf, size_t len, uint32_t ip, uint16_t port);
    /* Input @p i takes @p value at the next step boundary; returns the value that will be
     * applied (clamped to its range), or NaN when it could not be queued. @p origin is the
     * master (IPv4 << 16 | port). */
    double (*set)(void *user, size_t i, double value, int64_t origin);
    /* SRT: the run begins now (its steps follow the engine's period). */
    void (*start)(void *user, int64_t origin);
    /* NRT: @p n steps, now. */
    void (*step)(void *user, uint32_t n, int64_t origin);
    /* End the run; @p safe: the inputs with a safe value get it first. */
    void (*stop)(void *user, bool safe, int64_t origin);
    /* The newest published outputs into @p out (n_out values) and the tick index they
     * belong to (*k; -1: none published yet). Returns false when none could be read. */
    bool (*outputs)(void *user, double *out, int64_t *k);
    void *user;
} rtc__dcp_engine;

/* Why the run ended (rtc__dcp_core_ended). */
typedef enum rtc__dcp_end {
    RTC__DCP_END_STOP = 0, /* a stop the master or the operator asked for, or its end */
    RTC__DCP_END_ERROR,    /* a unit's error, overruns, a non-finite value, ... */
} rtc__dcp_end;

/* Counters; each datagram the slave does not act on is counted in exactly one of the
 * refusal counters (wrong_sender .. ignored). Written by the driving thread, read by any
 * (relaxed: each is read whole; nothing is ordered by them). */
typedef struct rtc__dcp_counters {
    _Atomic uint64_t received;     /* datagrams handed to the machine */
    _Atomic uint64_t requests;     /* requests acted on (acknowledged or answered) */
    _Atomic uint64_t nacks;        /* RSP_nack sent (each also counted below) */
    _Atomic uint64_t wrong_sender; /* from another address than the master's */
    _Atomic uint64_t malformed;    /* undecodable: truncated, oversized, unknown type,
                                      a payload not of the configured length */
    _Atomic uint64_t wrong_seq;    /* requests with a wrong sequence id (also NACKed),
                                      data older than the last of its data id */
    _Atomic uint64_t not_allowed;  /* requests not allowed in the state (also NACKed),
                                      data before the slave is configured */
    _Atomic uint64_t refused;      /* requests refused for what they ask (NACKed: a wrong
                                      uuid, op mode, value reference, start time ...) */
    _Atomic uint64_t dropped;      /* not for this slave (receiver), notifications and
                                      responses, data of an unconfigured data id */
    _Atomic uint64_t ignored;      /* data while stopping, stopped or in error */
    _Atomic uint64_t repeats;      /* a request sent again: its answer sent again */
    _Atomic uint64_t dat_in, dat_out, dat_missed; /* data PDUs; gaps in their sequence */
    _Atomic uint64_t steps;        /* NRT: STC_do_step acted on */
    _Atomic uint64_t inputs_lost;  /* input values the engine could not queue */
    _Atomic uint64_t notifications; /* NTF_state_changed and NTF_log sent */
    _Atomic uint64_t heartbeats_missed;
} rtc__dcp_counters;

/* One data id as configured. */
typedef struct rtc__dcp_id {
    bool used;
    uint16_t id;
    bool scope_set;
    uint8_t scope;
    uint32_t steps;                /* CFG_steps (0: not given) */
    bool source;                   /* CFG_source_network_information given */
    uint32_t tgt_ip[RTC__DCP_MAX_TARGETS];
    uint16_t tgt_port[RTC__DCP_MAX_TARGETS];
    size_t n_tgt;
    /* made at STC_prepare: its inputs and outputs in pos order */
    size_t in_first, n_in_pos, in_len;
    size_t out_first, n_out_pos;
    uint16_t seq_in, seq_out;
    bool seq_in_set;
    int64_t next_k;                /* SRT: the tick of its next output */
} rtc__dcp_id;

/* An input's slot (configured by CFG_input) and an output's (CFG_output). */
typedef struct rtc__dcp_in_slot {
    bool set;
    uint16_t id, pos;
    uint8_t type;                  /* source_data_type */
} rtc__dcp_in_slot;

typedef struct rtc__dcp_out_slot {
    uint16_t id, pos;
    size_t var;
} rtc__dcp_out_slot;

typedef struct rtc__dcp_core {
    const rtc__dcp_config *cfg;
    rtc__dcp_engine eng;
    rtc__dcp_counters ct;
    /* registration */
    _Atomic uint8_t state_pub;     /* state, for other threads */
    uint8_t state, run_state, op_mode, slave_id;
    bool registered;
    uint32_t master_ip;
    uint16_t master_port;
    uint16_t last_seq;
    uint16_t error;                /* what INF_error answers */
    int64_t hb_ns;                 /* the last INF_state (or registration) */
    /* configuration */
    rtc__dcp_id ids[RTC__DCP_MAX_IDS];
    rtc__dcp_in_slot *in_slot;     /* n_in */
    rtc__dcp_out_slot *out_slot;   /* out_cap */
    size_t n_out_slot, out_cap;
    size_t *in_order, *out_order;  /* slot indices by data id and pos (STC_prepare) */
    int8_t log_level[RTC__DCP_N_CATEGORIES + 1]; /* -1: not logged; else the least
                                                    severe level sent */
    /* inputs received and not yet handed to the engine */
    double *pending;
    bool *dirty;
    /* the run */
    bool started;                  /* SRT: the engine runs; NRT: stepping may begin */
    bool ended, stop_asked, master_lost, released;
    bool start_due;                /* SRT: SYNCHRONIZING until start_wall_s */
    int64_t start_wall_s;
    int64_t k0, k;                 /* the tick the run started at; the newest published */
    int64_t step_target;           /* NRT: COMPUTING until this tick is published */
    /* the last request of the master and its answer (sent again for a repeat) */
    uint8_t last_req[64], last_rsp[16];
    size_t last_req_len, last_rsp_len;
    /* buffers */
    double *outv;                  /* n_out */
    uint8_t *tx;
    size_t tx_cap;
    uint64_t refusals_said;        /* refusals reported by NTF_log so far */
    int64_t said_ns;
} rtc__dcp_core;

/* Size the machine for @p cfg (which must outlive it) and its engine. Returns RTC_OK or
 * RTC_ENOMEM. */
int rtc__dcp_core_init(rtc__dcp_core *c, const rtc__dcp_config *cfg,
                       const rtc__dcp_engine *eng);
void rtc__dcp_core_clear(rtc__dcp_core *c);

/* One datagram of @p len bytes from @p ip:@p port (host order) at CLOCK_MONOTONIC
 * @p now_ns and wall time @p wall_ns (CLOCK_REALTIME, ns since the epoch). */
void rtc__dcp_core_receive(rtc__dcp_core *c, const uint8_t *buf, size_t len, uint32_t ip,
                           uint16_t port, int64_t now_ns, int64_t wall_ns);

/* Time passes: the start time, the heartbeat. Returns the CLOCK_MONOTONIC time at which
 * it wants to be called again at the latest (INT64_MAX: no hurry). */
int64_t rtc__dcp_core_tick(rtc__dcp_core *c, int64_t now_ns, int64_t wall_ns);

/* The engine published tick @p k (its outputs readable by eng.outputs). */
void rtc__dcp_core_stepped(rtc__dcp_core *c, int64_t k, int64_t wall_ns);

/* The run has ended (@p why), @p text saying why in a few words. */
void rtc__dcp_core_ended(rtc__dcp_core *c, rtc__dcp_end why, const char *text,
                         int64_t wall_ns);

/* True once the slave is done with its master: deregistered after the run ended, or its
 * master lost (heartbeat) and the run ended. */
bool rtc__dcp_core_released(const rtc__dcp_core *c);

/* ---- dcp_slave_cfg.c: the configuration ---- */

/* Forget every CFG request (registration, deregistration, CFG_clear). */
void rtc__dcp_clear_config(rtc__dcp_core *c);
/* The record of data id @p id, made when @p make (NULL: unknown, or no room left). */
rtc__dcp_id *rtc__dcp_find_id(rtc__dcp_core *c, uint16_t id, bool make);
/* A CFG request in CONFIGURATION: RTC_DCP_E_NONE (to acknowledge) or why it is refused. */
uint16_t rtc__dcp_on_cfg(rtc__dcp_core *c, const rtc_dcp_pdu *p);
/* STC_prepare: the configuration complete (RTC_DCP_E_NONE, each data id's payload laid
 * out) or the first fault in the spec's order. */
uint16_t rtc__dcp_prepare(rtc__dcp_core *c);

/* ---- the slave's log templates (the .dcpx's Log element) ---- */

typedef struct rtc__dcp_template {
    uint8_t id, category, level;
    const char *msg;
} rtc__dcp_template;

extern const rtc__dcp_template rtc__dcp_templates[];
/* dcp_slave_dcpx.c: the slave description of @p cfg named @p name to @p f. */
void rtc__dcp_write_dcpx(const rtc__dcp_config *cfg, const char *name, FILE *f);
extern const size_t rtc__dcp_n_templates;
extern const char *const rtc__dcp_category_names[RTC__DCP_N_CATEGORIES + 1];

#endif
