/*
 * dcp_slave_core.c — the DCP slave's protocol machine (dcp_slave_priv.h): registration,
 * configuration, the state machine and the data exchange, on no socket and no session.
 *
 * DESIGN. Every datagram goes through the same gate, in this order: the sender (once
 * registered, only the master's address: anything else is counted and dropped unread),
 * a repeat of the last request (its answer is sent again, nothing is done twice), the
 * spec's validity checks (rtc_dcp_slave_check: type, receiver, sequence id, support,
 * length, state, state id), then what the request means. A request is answered by exactly
 * one RSP (acknowledged, refused with the DCP error code, or the state/error asked for);
 * every change of state is then announced by NTF_state_changed to the master's address.
 * A refused request does not move the sequence id on: the master sends the id the NACK
 * says it expects (spec 3.4.1).
 *
 * The engine is asked, never waited for: an STC_do_step (NRT) queues the steps and the
 * slave sits in COMPUTING until the engine publishes the tick they lead to; an STC_stop
 * asks the run to end and the slave sits in STOPPING until rtc__dcp_core_ended(). Inputs
 * received go to the engine at once while an SRT run goes, at the next STC_do_step in NRT
 * (spec: "applied at the next COMPUTING"), and at STC_initialize or the start otherwise.
 *
 * Refusals are counted, one counter per datagram (dcp_slave_priv.h): nothing a peer
 * sends is written to a log here; the surface reports the counters.
 */
#include "dcp_slave_priv.h"

#include "rtcosim/status.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define BUMP(ctr) atomic_fetch_add_explicit(&c->ct.ctr, 1, memory_order_relaxed)
#define NS_PER_S 1000000000LL

/* The templates the .dcpx declares (categories: 1 run, 2 protocol, 3 inputs; levels:
 * 0 fatal, 1 error, 2 warning, 3 information, 4 debug). */
enum { TPL_STARTED = 1, TPL_ENDED, TPL_HEARTBEAT, TPL_REFUSED, TPL_CLAMPED };
const rtc__dcp_template rtc__dcp_templates[] = {
    {TPL_STARTED, 1, 3, "run started (%string) at tick %uint64"},
    {TPL_ENDED, 1, 1, "run ended: %string"},
    {TPL_HEARTBEAT, 2, 1, "no INF_state for %uint32 ms: inputs set to their safe values, "
                          "run stopped"},
    {TPL_REFUSED, 2, 2, "%uint64 datagram(s) refused in the last second (%uint64 from "
                        "other senders)"},
    {TPL_CLAMPED, 3, 2, "input %string = %float64 clamped to %float64"},
};
const size_t rtc__dcp_n_templates = sizeof rtc__dcp_templates / sizeof rtc__dcp_templates[0];
const char *const rtc__dcp_category_names[RTC__DCP_N_CATEGORIES + 1] = {"", "run", "protocol",
                                                                        "inputs"};

/* ---- sending ---- */

static void emit(rtc__dcp_core *c, const rtc_dcp_pdu *p, uint32_t ip, uint16_t port)
{
    uint8_t b[64];
    size_t n = rtc_dcp_encode(p, b, sizeof b);
    if (n)
        c->eng.send(c->eng.user, b, n, ip, port);
}

/* The answer to the request being handled (kept, to be sent again for a repeat). */
static void answer(rtc__dcp_core *c, const rtc_dcp_pdu *p, uint32_t ip, uint16_t port)
{
    size_t n = rtc_dcp_encode(p, c->last_rsp, sizeof c->last_rsp);
    c->last_rsp_len = n;
    if (n)
        c->eng.send(c->eng.user, c->last_rsp, n, ip, port);
}

static void ack(rtc__dcp_core *c, const rtc_dcp_pdu *req)
{
    BUMP(requests);
    c->last_seq = req->seq;
    rtc_dcp_pdu r = {.type_id = RTC_DCP_RSP_ACK, .seq = req->seq, .slave = c->slave_id};
    answer(c, &r, c->master_ip, c->master_port);
}

static void set_state(rtc__dcp_core *c, uint8_t s)
{
    c->state = s;
    atomic_store_explicit(&c->state_pub, s, memory_order_relaxed);
    if (!c->registered)
        return;
    BUMP(notifications);
    rtc_dcp_pdu n = {.type_id = RTC_DCP_NTF_STATE_CHANGED, .slave = c->slave_id, .state_id = s};
    emit(c, &n, c->master_ip, c->master_port);
}

static int64_t origin(const rtc__dcp_core *c)
{
    return (int64_t)c->master_ip << 16 | c->master_port;
}

/* ---- NTF_log (log on notification, as CFG_logging asked) ---- */

static const rtc__dcp_template *template_of(uint8_t id)
{
    for (size_t i = 0; i < rtc__dcp_n_templates; i++)
        if (rtc__dcp_templates[i].id == id)
            return &rtc__dcp_templates[i];
    return NULL;
}

static bool wants_log(const rtc__dcp_core *c, uint8_t id)
{
    const rtc__dcp_template *t = template_of(id);
    return c->registered && t && c->log_level[t->category] >= 0 &&
           t->level <= c->log_level[t->category];
}

/* Arguments: 's' a string, 'd' a float64, 'u' a uint32, 'U' a uint64 (as @p types says). */
static void log_ntf(rtc__dcp_core *c, uint8_t id, int64_t wall_ns, const char *types, ...)
{
    if (!wants_log(c, id))
        return;
    uint8_t arg[200], b[256];
    size_t off = 0;
    va_list ap;
    va_start(ap, types);
    for (const char *t = types; *t; t++) {
        if (*t == 's') {
            const char *s = va_arg(ap, const char *);
            size_t n = strnlen(s, 120);
            rtc_dcp_put_value(arg, sizeof arg, &off, RTC_DCP_UINT32, (double)n, NULL);
            memcpy(arg + off, s, n);
            off += n;
        } else {
            uint8_t ty = *t == 'd' ? RTC_DCP_FLOAT64 : *t == 'u' ? RTC_DCP_UINT32 : RTC_DCP_UINT64;
            double v = *t == 'd' ? va_arg(ap, double) : (double)va_arg(ap, uint64_t);
            rtc_dcp_put_value(arg, sizeof arg, &off, ty, v, NULL);
        }
    }
    va_end(ap);
    rtc_dcp_pdu p = {.type_id = RTC_DCP_NTF_LOG, .slave = c->slave_id, .time = wall_ns / NS_PER_S,
                     .log_template_id = id, .payload = arg, .payload_len = off};
    size_t n = rtc_dcp_encode(&p, b, sizeof b);
    if (n) {
        BUMP(notifications);
        c->eng.send(c->eng.user, b, n, c->master_ip, c->master_port);
    }
}

/* ---- data ---- */

static bool in_scope(const rtc__dcp_id *d, bool init)
{
    return d->scope_set && (d->scope == RTC_DCP_SCOPE_ALL ||
                            d->scope == (init ? RTC_DCP_SCOPE_INIT : RTC_DCP_SCOPE_RUN));
}

static void send_id(rtc__dcp_core *c, rtc__dcp_id *d)
{
    size_t off = 0;
    for (size_t k = 0; k < d->n_out_pos; k++) {
        size_t v = c->out_slot[c->out_order[d->out_first + k]].var;
        rtc_dcp_put_value(c->tx + 5, c->tx_cap - 5, &off, RTC_DCP_FLOAT64, c->outv[v], NULL);
    }
    rtc_dcp_pdu p = {.type_id = RTC_DCP_DAT_INPUT_OUTPUT, .seq = d->seq_out++, .id = d->id,
                     .payload = c->tx + 5, .payload_len = off};
    size_t n = rtc_dcp_encode(&p, c->tx, c->tx_cap);
    for (size_t t = 0; n && t < d->n_tgt; t++) {
        BUMP(dat_out);
        c->eng.send(c->eng.user, c->tx, n, d->tgt_ip[t], d->tgt_port[t]);
    }
}

/* Every output data id of the scope (Initialization or Run) with the newest outputs. */
static void send_scope(rtc__dcp_core *c, bool init)
{
    int64_t k;
    if (!c->eng.outputs(c->eng.user, c->outv, &k))
        return;
    for (size_t i = 0; i < RTC__DCP_MAX_IDS; i++)
        if (c->ids[i].used && c->ids[i].n_out_pos && in_scope(&c->ids[i], init))
            send_id(c, &c->ids[i]);
}

/* The inputs received so far go to the engine (clamps are said by NTF_log). */
static void flush_inputs(rtc__dcp_core *c, int64_t wall_ns)
{
    for (size_t i = 0; i < c->cfg->n_in; i++) {
        if (!c->dirty[i])
            continue;
        c->dirty[i] = false;
        double v = c->pending[i];
        double a = c->eng.set(c->eng.user, i, v, origin(c));
        if (isnan(a))
            BUMP(inputs_lost);
        else if (a != v)
            log_ntf(c, TPL_CLAMPED, wall_ns, "sdd", c->cfg->in[i].name, v, a);
    }
}

static bool applies_now(const rtc__dcp_core *c)
{
    return c->started && c->op_mode != RTC_DCP_OP_NRT &&
           (c->state == RTC_DCP_STATE_SYNCHRONIZED || c->state == RTC_DCP_STATE_RUNNING);
}

static void on_data(rtc__dcp_core *c, const rtc_dcp_pdu *p, int64_t wall_ns)
{
    unsigned sup = rtc_dcp_superstates(c->state);
    rtc__dcp_id *d = rtc__dcp_find_id(c, p->id, false);
    if (c->state == RTC_DCP_STATE_STOPPING || c->state == RTC_DCP_STATE_STOPPED ||
        (sup & RTC_DCP_SUPER_ERROR) || p->type_id != RTC_DCP_DAT_INPUT_OUTPUT) {
        BUMP(ignored); /* received but ignored (spec Table 63); no parameters here */
        return;
    }
    if (!d || !d->n_in_pos) {
        BUMP(dropped);
        return;
    }
    if (p->payload_len != d->in_len) {
        BUMP(malformed);
        return;
    }
    int32_t gap = d->seq_in_set ? rtc_dcp_seq_gap(d->seq_in, p->seq) : 0;
    if (gap < 0) { /* a repeat, or overtaken by a newer one */
        BUMP(wrong_seq);
        return;
    }
    atomic_fetch_add_explicit(&c->ct.dat_missed, (uint64_t)gap, memory_order_relaxed);
    d->seq_in = p->seq;
    d->seq_in_set = true;
    BUMP(dat_in);
    size_t off = 0;
    for (size_t k = 0; k < d->n_in_pos; k++) {
        size_t v = c->in_order[d->in_first + k];
        double x = 0;
        rtc_dcp_get_value(p->payload, p->payload_len, &off, c->in_slot[v].type, &x);
        if (isfinite(x)) {
            c->pending[v] = x;
            c->dirty[v] = true;
        } else {
            BUMP(inputs_lost); /* a NaN or infinity never reaches the engine */
        }
    }
    if (applies_now(c))
        flush_inputs(c, wall_ns);
}

/* ---- state changes the master asks for ---- */

static void nack(rtc__dcp_core *c, const rtc_dcp_pdu *req, uint16_t err, uint32_t ip,
                 uint16_t port)
{
    BUMP(nacks);
    switch (err) {
    case RTC_DCP_E_INVALID_SEQUENCE_ID: BUMP(wrong_seq); break;
    case RTC_DCP_E_PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE: BUMP(not_allowed); break;
    case RTC_DCP_E_INVALID_LENGTH:
    case RTC_DCP_E_NOT_SUPPORTED_PDU_SIZE: BUMP(malformed); break;
    default: BUMP(refused); break;
    }
    rtc_dcp_pdu r = {.type_id = RTC_DCP_RSP_NACK, .seq = req->seq, .error_code = err,
                     .slave = c->registered ? c->slave_id : req->slave,
                     .exp_seq_id = c->registered ? rtc_dcp_seq_next(c->last_seq) : req->seq};
    if (c->registered)
        answer(c, &r, c->master_ip, c->master_port);
    else
        answer(c, &r, ip, port);
}

static uint16_t check_register(const rtc__dcp_core *c, const rtc_dcp_pdu *p)
{
    bool offered = p->op_mode == RTC_DCP_OP_SRT ? c->cfg->srt
                   : p->op_mode == RTC_DCP_OP_NRT ? c->cfg->nrt : false; /* no HRT */
    if (memcmp(p->slave_uuid, c->cfg->uuid, 16) != 0)
        return RTC_DCP_E_INVALID_UUID;
    if (!offered)
        return RTC_DCP_E_INVALID_OP_MODE;
    if (p->major_version != RTC_DCP_VERSION_MAJOR)
        return RTC_DCP_E_INVALID_MAJOR_VERSION;
    if (p->minor_version != RTC_DCP_VERSION_MINOR)
        return RTC_DCP_E_INVALID_MINOR_VERSION;
    return c->ended ? RTC_DCP_E_PROTOCOL_ERROR_GENERIC : RTC_DCP_E_NONE; /* run is over */
}

static void on_register(rtc__dcp_core *c, const rtc_dcp_pdu *p, uint32_t ip, uint16_t port,
                        int64_t now_ns)
{
    uint16_t e = check_register(c, p);
    if (e != RTC_DCP_E_NONE) {
        nack(c, p, e, ip, port);
        return;
    }
    c->registered = true;
    c->slave_id = p->slave;
    c->master_ip = ip;
    c->master_port = port;
    c->op_mode = p->op_mode;
    c->error = RTC_DCP_E_NONE;
    c->hb_ns = now_ns;
    rtc__dcp_clear_config(c);
    ack(c, p);
    set_state(c, RTC_DCP_STATE_CONFIGURATION);
}

static void on_deregister(rtc__dcp_core *c, const rtc_dcp_pdu *p)
{
    ack(c, p);
    set_state(c, RTC_DCP_STATE_ALIVE);
    c->registered = false;
    c->last_req_len = 0;
    rtc__dcp_clear_config(c);
    memset(c->pending, 0, c->cfg->n_in * sizeof *c->pending);
    memset(c->dirty, 0, c->cfg->n_in * sizeof *c->dirty);
    if (c->ended)
        c->released = true;
}

/* SRT: the start time has come: inputs so far to the engine, the engine runs. */
static void start_run(rtc__dcp_core *c, int64_t wall_ns)
{
    int64_t k = -1;
    c->start_due = false;
    c->started = true;
    flush_inputs(c, wall_ns);
    c->eng.outputs(c->eng.user, c->outv, &k);
    c->k0 = c->k = k < 0 ? 0 : k;
    for (size_t i = 0; i < RTC__DCP_MAX_IDS; i++)
        c->ids[i].next_k = c->k0 + c->ids[i].steps;
    if (c->op_mode != RTC_DCP_OP_NRT)
        c->eng.start(c->eng.user, origin(c));
    set_state(c, RTC_DCP_STATE_SYNCHRONIZED);
    log_ntf(c, TPL_STARTED, wall_ns, "sU", rtc_dcp_op_mode_name(c->op_mode), (uint64_t)c->k0);
}

static void on_run(rtc__dcp_core *c, const rtc_dcp_pdu *p, int64_t wall_ns)
{
    int64_t now_s = wall_ns / NS_PER_S;
    if (c->state == RTC_DCP_STATE_SYNCHRONIZED) {
        ack(c, p);
        set_state(c, RTC_DCP_STATE_RUNNING);
        return;
    }
    /* CONFIGURED: NRT synchronizes at once; SRT waits for the start time (whole seconds
     * of the wall clock; 0: now; one already past is refused, spec 3.3.7, and so is one
     * more than RTC__DCP_MAX_WAIT_S ahead: no bench waits that long, and the wait in ns
     * stays far from overflowing) */
    if (c->op_mode != RTC_DCP_OP_NRT && p->start_time &&
        (p->start_time < now_s || p->start_time - now_s > RTC__DCP_MAX_WAIT_S)) {
        nack(c, p, RTC_DCP_E_INVALID_START_TIME, 0, 0);
        return;
    }
    ack(c, p);
    set_state(c, RTC_DCP_STATE_SYNCHRONIZING);
    c->start_wall_s = p->start_time ? p->start_time : now_s;
    c->start_due = true;
    if (c->op_mode == RTC_DCP_OP_NRT || c->start_wall_s <= now_s)
        start_run(c, wall_ns);
}

static void on_do_step(rtc__dcp_core *c, const rtc_dcp_pdu *p, int64_t wall_ns)
{
    if (p->steps < 1 || p->steps > RTC__DCP_MAX_STEPS) {
        nack(c, p, RTC_DCP_E_INVALID_STEPS, 0, 0);
        return;
    }
    flush_inputs(c, wall_ns); /* applied before the step, at its boundary */
    c->eng.step(c->eng.user, p->steps, origin(c));
    BUMP(steps);
    c->run_state = c->state;
    c->step_target = c->k + p->steps;
    ack(c, p);
    set_state(c, RTC_DCP_STATE_COMPUTING);
}

static void on_send_outputs(rtc__dcp_core *c, const rtc_dcp_pdu *p)
{
    bool init = c->state == RTC_DCP_STATE_INITIALIZED;
    ack(c, p);
    set_state(c, init ? RTC_DCP_STATE_SENDING_I : RTC_DCP_STATE_SENDING_D);
    send_scope(c, init);
    set_state(c, init ? RTC_DCP_STATE_CONFIGURED : c->run_state);
}

static void on_stop(rtc__dcp_core *c, const rtc_dcp_pdu *p)
{
    ack(c, p);
    set_state(c, RTC_DCP_STATE_STOPPING);
    c->start_due = false;
    if (c->ended) {
        set_state(c, RTC_DCP_STATE_STOPPED);
    } else if (!c->stop_asked) {
        c->stop_asked = true;
        c->eng.stop(c->eng.user, false, origin(c));
    }
}

/* The STC requests after registration (each allowed in its state: checked before). */
static void on_stc(rtc__dcp_core *c, const rtc_dcp_pdu *p, int64_t wall_ns)
{
    uint16_t e;
    switch (p->type_id) {
    case RTC_DCP_STC_DEREGISTER: on_deregister(c, p); return;
    case RTC_DCP_STC_PREPARE:
        if ((e = rtc__dcp_prepare(c)) != RTC_DCP_E_NONE) {
            nack(c, p, e, 0, 0);
            return;
        }
        ack(c, p);
        set_state(c, RTC_DCP_STATE_PREPARING);
        set_state(c, RTC_DCP_STATE_PREPARED); /* one socket, open already */
        return;
    case RTC_DCP_STC_CONFIGURE:
        ack(c, p);
        set_state(c, RTC_DCP_STATE_CONFIGURING);
        for (size_t i = 0; i < RTC__DCP_MAX_IDS; i++)
            c->ids[i].seq_in_set = false;
        set_state(c, RTC_DCP_STATE_CONFIGURED);
        return;
    case RTC_DCP_STC_INITIALIZE:
        ack(c, p);
        set_state(c, RTC_DCP_STATE_INITIALIZING);
        flush_inputs(c, wall_ns);
        set_state(c, RTC_DCP_STATE_INITIALIZED);
        return;
    case RTC_DCP_STC_RUN: on_run(c, p, wall_ns); return;
    case RTC_DCP_STC_DO_STEP: on_do_step(c, p, wall_ns); return;
    case RTC_DCP_STC_SEND_OUTPUTS: on_send_outputs(c, p); return;
    case RTC_DCP_STC_STOP: on_stop(c, p); return;
    default: nack(c, p, RTC_DCP_E_NOT_SUPPORTED_PDU, 0, 0); return; /* STC_reset */
    }
}

static void on_request(rtc__dcp_core *c, const rtc_dcp_pdu *p, uint32_t ip, uint16_t port,
                       int64_t now_ns, int64_t wall_ns)
{
    rtc_dcp_pdu r = {.seq = p->seq, .slave = c->registered ? c->slave_id : p->slave};
    uint16_t e;
    switch (rtc_dcp_family_of(p->type_id)) {
    case RTC_DCP_FAMILY_STC:
        if (p->type_id == RTC_DCP_STC_REGISTER)
            on_register(c, p, ip, port, now_ns);
        else
            on_stc(c, p, wall_ns);
        return;
    case RTC_DCP_FAMILY_CFG:
        if ((e = rtc__dcp_on_cfg(c, p)) == RTC_DCP_E_NONE)
            ack(c, p);
        else
            nack(c, p, e, 0, 0);
        return;
    default: break;
    }
    if (p->type_id == RTC_DCP_INF_LOG) {
        nack(c, p, RTC_DCP_E_NOT_SUPPORTED_LOG_ON_REQUEST, ip, port);
        return;
    }
    BUMP(requests);
    if (p->type_id == RTC_DCP_INF_STATE) {
        c->hb_ns = now_ns; /* the heartbeat */
        r.type_id = RTC_DCP_RSP_STATE_ACK;
        r.state_id = c->state;
    } else { /* INF_error */
        r.type_id = RTC_DCP_RSP_ERROR_ACK;
        r.error_code = c->error;
    }
    if (c->registered)
        c->last_seq = p->seq;
    answer(c, &r, c->registered ? c->master_ip : ip, c->registered ? c->master_port : port);
}

/* ---- the gate ---- */

/* Why a datagram the checks drop is dropped, into one counter. */
static void count_drop(rtc__dcp_core *c, const uint8_t *buf, size_t len, uint16_t err)
{
    rtc_dcp_family f = len ? rtc_dcp_family_of(buf[0]) : RTC_DCP_FAMILY_NONE;
    if (err == RTC_DCP_E_PROTOCOL_ERROR_GENERIC)
        BUMP(dropped); /* addressed to another slave, or to the master */
    else if (err == RTC_DCP_E_PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE)
        BUMP(not_allowed);
    else if ((f == RTC_DCP_FAMILY_RSP || f == RTC_DCP_FAMILY_NTF) &&
             err == RTC_DCP_E_NOT_SUPPORTED_PDU)
        BUMP(dropped); /* what only a master receives */
    else
        BUMP(malformed); /* empty, unknown type, truncated, oversized */
}

/* The master sent its last request again (the same bytes, so the same sequence id): the
 * answer is sent again and nothing is done twice (spec 3.4.10). */
static bool repeat(rtc__dcp_core *c, const uint8_t *buf, size_t len)
{
    if (!c->registered || !c->last_req_len || len != c->last_req_len ||
        memcmp(buf, c->last_req, len) != 0)
        return false;
    BUMP(repeats);
    if (c->last_rsp_len)
        c->eng.send(c->eng.user, c->last_rsp, c->last_rsp_len, c->master_ip, c->master_port);
    return true;
}

void rtc__dcp_core_receive(rtc__dcp_core *c, const uint8_t *buf, size_t len, uint32_t ip,
                           uint16_t port, int64_t now_ns, int64_t wall_ns)
{
    BUMP(received);
    if (c->registered && ip != c->master_ip) { /* the sending port is not checked (4.2.1) */
        BUMP(wrong_sender);
        return;
    }
    if (repeat(c, buf, len))
        return;
    rtc_dcp_slave_view v = {.state = c->state, .slave_id = c->slave_id,
                            .last_seq = c->last_seq, .registered = c->registered,
                            .nrt = c->op_mode == RTC_DCP_OP_NRT, .can_log = true};
    rtc_dcp_pdu p;
    uint16_t err;
    rtc_dcp_verdict vd = rtc_dcp_slave_check(&v, buf, len, &p, &err);
    if (vd == RTC_DCP_DROP) {
        count_drop(c, buf, len, err);
        return;
    }
    if (rtc_dcp_family_of(p.type_id) == RTC_DCP_FAMILY_DAT) {
        on_data(c, &p, wall_ns);
        return;
    }
    if (c->registered) /* any request of the master shows it is there (heartbeat) */
        c->hb_ns = now_ns;
    c->last_req_len = len <= sizeof c->last_req ? len : 0;
    memcpy(c->last_req, buf, c->last_req_len);
    c->last_rsp_len = 0;
    if (vd == RTC_DCP_NACK)
        nack(c, &p, err, ip, port);
    else
        on_request(c, &p, ip, port, now_ns, wall_ns);
}

/* ---- time, steps, the end ---- */

static void heartbeat_missed(rtc__dcp_core *c, int64_t wall_ns)
{
    BUMP(heartbeats_missed);
    c->master_lost = true;
    c->error = RTC_DCP_E_PROTOCOL_ERROR_HEARTBEAT_MISSED;
    c->start_due = false;
    log_ntf(c, TPL_HEARTBEAT, wall_ns, "u", (uint64_t)(c->cfg->heartbeat_ns / 1000000));
    set_state(c, RTC_DCP_STATE_ERRORHANDLING);
    if (c->ended) {
        set_state(c, RTC_DCP_STATE_ERRORRESOLVED);
        c->released = true;
    } else if (!c->stop_asked) {
        c->stop_asked = true;
        c->eng.stop(c->eng.user, true, origin(c));
    }
}

/* Refusals since the last report, once a second while the master asked for them. */
static int64_t report_refusals(rtc__dcp_core *c, int64_t now_ns, int64_t wall_ns)
{
    if (!wants_log(c, TPL_REFUSED))
        return INT64_MAX;
    uint64_t stranger = atomic_load_explicit(&c->ct.wrong_sender, memory_order_relaxed);
    uint64_t n = stranger + c->ct.malformed + c->ct.dropped + c->ct.not_allowed +
                 c->ct.wrong_seq + c->ct.refused;
    if (n == c->refusals_said)
        return INT64_MAX;
    if (now_ns - c->said_ns < NS_PER_S)
        return c->said_ns + NS_PER_S;
    log_ntf(c, TPL_REFUSED, wall_ns, "UU", n - c->refusals_said, stranger);
    c->refusals_said = n;
    c->said_ns = now_ns;
    return INT64_MAX;
}

int64_t rtc__dcp_core_tick(rtc__dcp_core *c, int64_t now_ns, int64_t wall_ns)
{
    int64_t next = INT64_MAX;
    if (c->start_due && c->state == RTC_DCP_STATE_SYNCHRONIZING) {
        int64_t wait = c->start_wall_s * NS_PER_S - wall_ns;
        if (wait <= 0)
            start_run(c, wall_ns);
        else
            next = now_ns + wait;
    }
    unsigned sup = rtc_dcp_superstates(c->state);
    if (c->registered && c->cfg->heartbeat_ns > 0 && !(sup & RTC_DCP_SUPER_ERROR) &&
        !c->master_lost) {
        if (now_ns - c->hb_ns > c->cfg->heartbeat_ns)
            heartbeat_missed(c, wall_ns);
        else if (c->hb_ns + c->cfg->heartbeat_ns + 1 < next)
            next = c->hb_ns + c->cfg->heartbeat_ns + 1;
    }
    int64_t r = report_refusals(c, now_ns, wall_ns);
    return r < next ? r : next;
}

void rtc__dcp_core_stepped(rtc__dcp_core *c, int64_t k, int64_t wall_ns)
{
    (void)wall_ns;
    if (k <= c->k)
        return;
    c->k = k;
    if (c->state == RTC_DCP_STATE_COMPUTING && k >= c->step_target) {
        set_state(c, RTC_DCP_STATE_COMPUTED);
        return;
    }
    if (!applies_now(c))
        return;
    bool due = false;
    for (size_t i = 0; i < RTC__DCP_MAX_IDS; i++)
        due |= c->ids[i].used && c->ids[i].n_out_pos && c->ids[i].steps && k >= c->ids[i].next_k;
    int64_t kk;
    if (!due || !c->eng.outputs(c->eng.user, c->outv, &kk))
        return;
    for (size_t i = 0; i < RTC__DCP_MAX_IDS; i++) {
        rtc__dcp_id *d = &c->ids[i];
        if (!d->used || !d->n_out_pos || !d->steps || k < d->next_k || !in_scope(d, false))
            continue;
        send_id(c, d);
        d->next_k = c->k0 + ((k - c->k0) / d->steps + 1) * (int64_t)d->steps;
    }
}

void rtc__dcp_core_ended(rtc__dcp_core *c, rtc__dcp_end why, const char *text,
                         int64_t wall_ns)
{
    if (c->ended)
        return;
    c->ended = true;
    c->start_due = false;
    unsigned sup = rtc_dcp_superstates(c->state);
    log_ntf(c, TPL_ENDED, wall_ns, "s", text ? text : "");
    if (c->state == RTC_DCP_STATE_STOPPING) {
        set_state(c, RTC_DCP_STATE_STOPPED);
    } else if (c->state == RTC_DCP_STATE_ERRORHANDLING) {
        set_state(c, RTC_DCP_STATE_ERRORRESOLVED);
    } else if (why == RTC__DCP_END_ERROR && (sup & RTC_DCP_SUPER_NORMAL)) {
        c->error = RTC_DCP_E_PROTOCOL_ERROR_GENERIC; /* SIG_error: the engine failed */
        set_state(c, RTC_DCP_STATE_ERRORHANDLING);
        set_state(c, RTC_DCP_STATE_ERRORRESOLVED);
    } else if (sup & RTC_DCP_SUPER_STOPPABLE) { /* SIG_stop */
        set_state(c, RTC_DCP_STATE_STOPPING);
        set_state(c, RTC_DCP_STATE_STOPPED);
    }
    if (c->master_lost || !c->registered)
        c->released = true;
}

bool rtc__dcp_core_released(const rtc__dcp_core *c)
{
    return c->released;
}

/* ---- life ---- */

int rtc__dcp_core_init(rtc__dcp_core *c, const rtc__dcp_config *cfg,
                       const rtc__dcp_engine *eng)
{
    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    c->eng = *eng;
    c->out_cap = cfg->n_out * RTC__DCP_MAX_IDS;
    c->tx_cap = 5 + 8 * c->out_cap;
    size_t nin = cfg->n_in ? cfg->n_in : 1, ncap = c->out_cap ? c->out_cap : 1;
    c->in_slot = calloc(nin, sizeof *c->in_slot);
    c->in_order = calloc(nin, sizeof *c->in_order);
    c->pending = calloc(nin, sizeof *c->pending);
    c->dirty = calloc(nin, sizeof *c->dirty);
    c->out_slot = calloc(ncap, sizeof *c->out_slot);
    c->out_order = calloc(ncap, sizeof *c->out_order);
    c->outv = calloc(cfg->n_out ? cfg->n_out : 1, sizeof *c->outv);
    c->tx = malloc(c->tx_cap);
    if (!c->in_slot || !c->in_order || !c->pending || !c->dirty || !c->out_slot ||
        !c->out_order || !c->outv || !c->tx) {
        rtc__dcp_core_clear(c);
        return RTC_ENOMEM;
    }
    c->k = -1;
    rtc__dcp_clear_config(c);
    return RTC_OK;
}

void rtc__dcp_core_clear(rtc__dcp_core *c)
{
    free(c->in_slot);
    free(c->in_order);
    free(c->pending);
    free(c->dirty);
    free(c->out_slot);
    free(c->out_order);
    free(c->outv);
    free(c->tx);
    memset(c, 0, sizeof *c);
}
