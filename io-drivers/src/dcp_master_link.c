/*
 * dcp_master_link.c — the DCP master's protocol, on the driver's I/O thread only.
 *
 * One request is outstanding at a time (DCP numbers them with one counter per slave): it
 * is sent again with the same sequence id after timeout_ms, up to `retries` times (spec
 * App. F: UDP loses datagrams), and answered by an RSP whose sender and resp_seq_id match.
 * The slave's state is what its last NTF_state_changed or RSP_state_ack said; a state the
 * master waits for and does not hear about within timeout_ms is asked for (INF_state).
 *
 * Phases:
 *   PROBE    INF_state: a slave in ALIVE is registered at once (SETUP); one left in
 *   RECOVER  another state by an earlier master is brought back first (spec App. E):
 *            stoppable -> STC_stop, STOPPED / CONFIGURATION / ERRORRESOLVED ->
 *            STC_deregister, STOPPING / ERRORHANDLING -> wait; then ALIVE.
 *   SETUP    the script (rtc__dm_script, dcp_master_script.c): STC_register, CFG_scope / input / output /
 *            steps / network information / time_res, STC_prepare, STC_configure,
 *            [STC_initialize, STC_send_outputs], STC_run; each STC waits for the state its
 *            signal leads to (PREPARED, CONFIGURED, ...). SYNCHRONIZED gets a second
 *            STC_run (DCPLib's slaves wait for it to go RUNNING).
 *   RUN      SRT/HRT: one DAT_input_output of the inputs every period, the slave's own
 *            DAT_input_output published as it comes; NRT: every period DAT_input_output,
 *            STC_do_step, (COMPUTED) STC_send_outputs, the outputs.
 *   DOWN     something failed (a NACK, an Error state, silence, no answer): one line
 *            naming the slave and the PDU, the outputs stale, the link down; after a
 *            backoff, PROBE again.
 * end() (rtc__dm_shutdown) runs RECOVER to ALIVE with a deadline: STC_stop, STOPPED,
 * STC_deregister, after the base sent the safe values.
 */
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include "dcp_master_priv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

void rtc__dm_reset(dm *d, int64_t now)
{
    for (size_t i = 0; i < d->n_script; i++) {
        rtc_dcp_pdu *p = &d->script[i].pdu;
        if (p->type_id == RTC_DCP_CFG_TARGET_NETWORK_INFORMATION) {
            p->port = ntohs(d->local.sin_port);
            p->ip_address = ntohl(d->local.sin_addr.s_addr);
        }
    }
    d->phase = DM_PROBE;
    d->req.active = false;
    d->state_known = false;
    d->seq_set = false;
    d->wait_for = -1;
    d->poll_ns = now;
    d->stepping = false;
}

/* ---- sending ---- */

static void send_to(dm *d, const uint8_t *buf, size_t len, const struct sockaddr_in *to)
{
    if (sendto(d->fd, buf, len, 0, (const struct sockaddr *)to, sizeof *to) < 0)
        rtc_drv_count(&d->b.st.errors);
}

/* Send request @p p (seq, receiver and, for STC, state_id filled in) and keep it for
 * retransmission and matching. */
static void request(dm *d, rtc_dcp_pdu p, int64_t now)
{
    p.seq = d->seq_set ? rtc_dcp_seq_next(d->seq) : 0;
    p.slave = d->slave_id;
    if (rtc_dcp_family_of(p.type_id) == RTC_DCP_FAMILY_STC)
        p.state_id = d->state;
    if (p.type_id == RTC_DCP_STC_RUN && !p.start_time && d->start_delay_s)
        p.start_time = (int64_t)time(NULL) + d->start_delay_s; /* whole seconds, spec 3.3.7 */
    d->seq = p.seq;
    d->seq_set = true;
    d->req.pdu = p;
    d->req.resynced = false;
    d->req.state = d->state;
    d->req.type = p.type_id;
    d->req.seq = p.seq;
    d->req.tries = 1;
    d->req.sent_ns = now;
    d->req.len = rtc_dcp_encode(&p, d->req.buf, sizeof d->req.buf);
    d->req.active = d->req.len > 0;
    rtc_drv_count(&d->b.st.requests);
    send_to(d, d->req.buf, d->req.len, &d->slave);
}

void rtc__dm_send_inputs(dm *d, const double *vals)
{
    size_t off = 0;
    for (size_t i = 0; i < d->n_in; i++) {
        rtc_drv_signal *s = &d->b.sig[d->in[i].port];
        rtc_sample smp = {0};
        bool clamped = false;
        double v = d->in[i].var->has_start ? d->in[i].var->start : 0;
        if (vals)
            v = vals[i];
        else if (d->b.latched && s->has_safe)
            v = s->safe;
        else if (rtc_mailbox_read(s->mb, &smp) && smp.seq != 0)
            v = smp.value;
        rtc_dcp_put_value(d->tx + 5, d->tx_cap - 5, &off, d->in[i].var->type, v, &clamped);
        if (clamped)
            rtc_drv_count(&s->clamped);
        rtc_drv_sent(&d->b, d->in[i].port);
    }
    rtc_dcp_pdu p = {.type_id = RTC_DCP_DAT_INPUT_OUTPUT, .seq = d->dat_seq++,
                     .id = DM_DATA_IN, .payload = d->tx + 5, .payload_len = off};
    size_t n = rtc_dcp_encode(&p, d->tx, d->tx_cap);
    if (n && d->n_in)
        send_to(d, d->tx, n, &d->slave_dat);
}

/* ---- failing and logging ---- */

/* One line about the slave at warning level, rate-limited (its traffic causes it). */
static void say(dm *d, int64_t now, const char *msg)
{
    if (rtc_ratelimit_take(&d->lines, now))
        rtc_log(d->b.lg, RTC_LOG_WARNING, "dcp-master '%s': %s: %s", d->b.component, d->name,
                msg);
    uint64_t more = rtc_ratelimit_due(&d->lines, now, false);
    if (more)
        rtc_log(d->b.lg, RTC_LOG_WARNING, "dcp-master '%s': %llu more line(s) about %s in "
                "the last second", d->b.component, (unsigned long long)more, d->name);
}

/* The link failed for the reason @p fmt: said once, outputs stale, link down with @p why
 * (a static text: what the link contract reports), retry after a backoff (from PROBE:
 * whatever state the slave is left in). */
static void fail(dm *d, int64_t now, const char *why, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fail(dm *d, int64_t now, const char *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->why_buf, sizeof d->why_buf, fmt, ap);
    va_end(ap);
    d->why = d->why_buf;
    rtc_drv_stale_all(&d->b); /* before the line: who reads it sees the link gone */
    rtc_drv_link_error(&d->b, why);
    rtc_drv_link_down(&d->b, why);
    /* a fast run: the tick waiting for the slave ends, with why, as soon as the base has
     * judged the link lost (the run reads that: rtc__dm_lockstep_wait); before its run the
     * slave is tried until connect_ms */
    if (d->ls && d->ls_ran && !d->ls_fail)
        d->ls_fail = why;
    say(d, now, d->why_buf);
    d->req.active = false;
    d->stepping = false;
    if (d->phase == DM_ENDED)
        return;
    d->phase = DM_DOWN;
    d->retry_ns = now + rtc_drv_backoff(&d->b);
}

static void check_timeout(dm *d, int64_t now)
{
    if (!d->req.active || now - d->req.sent_ns < d->timeout_ns)
        return;
    rtc_drv_count(&d->b.st.timeouts);
    if (d->req.tries > d->retries) {
        fail(d, now, "no answer from the DCP slave",
             "no answer to %s (sequence id %u) after %u tries of %lld ms",
             rtc_dcp_type_name(d->req.type), d->req.seq, d->req.tries,
             (long long)(d->timeout_ns / 1000000));
        return;
    }
    d->req.tries++;
    d->req.sent_ns = now;
    rtc_drv_count(&d->b.st.named[DM_RETRANSMITS]);
    send_to(d, d->req.buf, d->req.len, &d->slave); /* the same sequence id (spec 3.4.10) */
}

/* ---- the slave's state ---- */

static bool in_run(uint8_t s)
{
    return rtc_dcp_superstates(s) & RTC_DCP_SUPER_RUN;
}

static bool reached(const dm *d)
{
    return d->wait_for < 0 || (d->wait_for == WAIT_RUN ? in_run(d->state)
                                                       : d->state == d->wait_for);
}

/* The slave says it is in @p s (in @p pdu): an Error state during setup or run, or a
 * state outside the run during it (the slave stopped by itself), takes the link down. */
static void on_state(dm *d, uint8_t s, int64_t now, const char *pdu)
{
    uint8_t was = d->state;
    unsigned sup = rtc_dcp_superstates(s);
    d->state = s;
    d->state_known = true;
    if (d->phase != DM_SETUP && d->phase != DM_RUN)
        return;
    if (sup & RTC_DCP_SUPER_ERROR) {
        rtc_drv_count(&d->b.st.named[DM_SLAVE_ERRORS]);
        fail(d, now, "the DCP slave is in an error state", "went from %s to %s (%s)",
             rtc_dcp_state_name(was), rtc_dcp_state_name(s), pdu);
    } else if (d->phase == DM_RUN && !(sup & (RTC_DCP_SUPER_RUN | RTC_DCP_SUPER_NONREALTIME))) {
        fail(d, now, "the DCP slave left its run", "left the run for %s (%s)",
             rtc_dcp_state_name(s), pdu);
    }
}

/* Waiting for the state an acknowledged request leads to: true while it has not come
 * (asked for every timeout_ms; a failure after setup_timeout_ms). */
static bool waiting(dm *d, int64_t now)
{
    if (reached(d)) {
        d->wait_for = -1;
        return false;
    }
    if (now - d->wait_since_ns > d->setup_timeout_ns) {
        int w = d->wait_for;
        d->wait_for = -1;
        fail(d, now, "the DCP slave did not reach the state asked",
             "did not reach %s within %lld ms (it is %s)",
             w == WAIT_RUN ? "SYNCHRONIZING or RUNNING" : rtc_dcp_state_name((uint8_t)w),
             (long long)(d->setup_timeout_ns / 1000000), rtc_dcp_state_name(d->state));
        return true;
    }
    if (!d->req.active && now - d->poll_ns >= d->timeout_ns) { /* its NTF may be lost */
        d->poll_ns = now;
        request(d, (rtc_dcp_pdu){.type_id = RTC_DCP_INF_STATE}, now);
    }
    return true;
}

static void wait_state(dm *d, int state, int64_t now)
{
    d->wait_for = state;
    d->wait_since_ns = d->poll_ns = now;
}

/* Half the slave's MaximumPeriodicInterval (1 ns at least), 0 without a heartbeat. */
static int64_t hb_half_ns(const dm *d)
{
    const rtc_dcpx *x = d->dcpx;
    if (!x->can_monitor_heartbeat || !x->heartbeat || !x->hb_denominator)
        return 0;
    int64_t half = (int64_t)x->hb_numerator * 500000000 / x->hb_denominator;
    return half > 0 ? half : 1;
}

/* ---- answers ---- */

static void on_ack(dm *d, int64_t now)
{
    d->state_asks = 0;
    int to = rtc_dcp_stc_target(d->req.state, d->req.type);
    if (to >= 0 && d->state == d->req.state) /* its NTF may come before or after the ack */
        d->state = (uint8_t)to;
    if (d->req.type == RTC_DCP_STC_REGISTER) /* the slave's heartbeat watch starts */
        d->hb_ns = now + hb_half_ns(d);
    d->registered = d->req.type == RTC_DCP_STC_REGISTER ||
                    (d->registered && d->req.type != RTC_DCP_STC_DEREGISTER);
    if (d->phase == DM_SETUP && d->at < d->n_script &&
        d->req.type == d->script[d->at].pdu.type_id) {
        uint8_t w = d->script[d->at++].wait_for;
        if (w != WAIT_NONE)
            wait_state(d, w, now);
    } else if (d->phase == DM_RUN && d->req.type == RTC_DCP_STC_DO_STEP) {
        d->stepped_ns = now;
    } else if (d->req.type == RTC_DCP_STC_STOP) { /* RECOVER, ENDED */
        wait_state(d, RTC_DCP_STATE_STOPPED, now);
    }
}

static void on_nack(dm *d, const rtc_dcp_pdu *p, int64_t now)
{
    rtc_drv_count(&d->b.st.named[DM_NACKS]);
    if (p->error_code == RTC_DCP_E_INVALID_SEQUENCE_ID && d->req.tries > 1 &&
        p->exp_seq_id == rtc_dcp_seq_next(d->req.seq)) {
        d->seq = d->req.seq; /* a copy sent again: the first was taken, its answer was late */
        on_ack(d, now);
        return;
    }
    /* the next request takes the id the slave expects: a refused request did not count
     * (spec 3.4.1), and one from an earlier master may have set its counter */
    d->seq = (uint16_t)(p->exp_seq_id - 1u);
    if (p->error_code == RTC_DCP_E_INVALID_SEQUENCE_ID && !d->req.resynced) {
        rtc_dcp_pdu again = d->req.pdu;
        request(d, again, now);
        d->req.resynced = true;
        return;
    }
    if (p->error_code == RTC_DCP_E_INVALID_START_TIME && d->req.type == RTC_DCP_STC_RUN &&
        d->req.pdu.start_time == 0) { /* "now" refused: the next whole second but one */
        rtc_dcp_pdu again = d->req.pdu;
        again.start_time = (int64_t)time(NULL) + 2;
        request(d, again, now);
        return;
    }
    if (p->error_code == RTC_DCP_E_INVALID_STATE_ID && d->state_asks < 3) {
        d->state_asks++; /* it moved since it last said (a step ending): ask, then again */
        if (d->req.type == RTC_DCP_STC_DO_STEP)
            d->stepping = false; /* the next period steps */
        else if (d->req.type == RTC_DCP_STC_SEND_OUTPUTS)
            d->step_phase = 1;   /* asked again once it says COMPUTED */
        request(d, (rtc_dcp_pdu){.type_id = RTC_DCP_INF_STATE}, now);
        return;
    }
    fail(d, now, "the DCP slave answered RSP_nack", "answered %s with RSP_nack %s (0x%04X)",
         rtc_dcp_type_name(d->req.type), rtc_dcp_error_name(p->error_code), p->error_code);
}

static void on_answer(dm *d, const rtc_dcp_pdu *p, int64_t now)
{
    rtc_dcp_error e = rtc_dcp_master_check(p, d->slave_id, d->req.seq);
    if (!d->req.active || e != RTC_DCP_E_NONE) {
        rtc_drv_count(&d->b.st.named[e == RTC_DCP_E_PROTOCOL_ERROR_GENERIC ? DM_UNEXPECTED
                                                                          : DM_WRONG_SEQ]);
        return;
    }
    d->req.active = false;
    rtc_drv_alive(&d->b, now); /* an answer: the slave is there (the contract's loss time) */
    if (d->req.tries == 1)
        rtc_drv_latency(&d->b, now - d->req.sent_ns);
    switch (p->type_id) {
    case RTC_DCP_RSP_ACK: on_ack(d, now); break;
    case RTC_DCP_RSP_NACK: on_nack(d, p, now); break;
    case RTC_DCP_RSP_STATE_ACK: on_state(d, p->state_id, now, "RSP_state_ack"); break;
    case RTC_DCP_RSP_ERROR_ACK: {
        char msg[96];
        rtc_drv_count(&d->b.st.named[DM_SLAVE_ERRORS]);
        snprintf(msg, sizeof msg, "reports %s (RSP_error_ack, in %s)",
                 rtc_dcp_error_name(p->error_code), rtc_dcp_state_name(d->state));
        say(d, now, msg);
        break;
    }
    default: break; /* RSP_log_ack: nothing asks for it */
    }
}

/* The slave's DAT_input_output of data id 2: its outputs, in pos order. */
static void take_outputs(dm *d, const rtc_dcp_pdu *p, int64_t now)
{
    if (p->payload_len != d->out_len) {
        rtc_drv_count(&d->b.st.named[DM_MALFORMED]);
        return;
    }
    if (d->rx_seq_set) {
        int32_t gap = rtc_dcp_seq_gap(d->rx_seq, p->seq);
        if (gap < 0) { /* a repeat, or later than a newer one */
            rtc_drv_count(&d->b.st.named[DM_WRONG_SEQ]);
            return;
        }
        for (int32_t k = 0; k < gap; k++)
            rtc_drv_count(&d->b.st.named[DM_DAT_MISSED]);
    }
    d->rx_seq = p->seq;
    d->rx_seq_set = true;
    size_t off = 0;
    for (size_t i = 0; i < d->n_out; i++) {
        double v = 0;
        rtc_dcp_get_value(p->payload, p->payload_len, &off, d->out[i].var->type, &v);
        rtc_drv_publish(&d->b, d->out[i].port, v, now, now);
        if (d->ls_vals)
            d->ls_vals[i] = v;
    }
    d->ls_have_init |= d->ls && d->phase == DM_SETUP;
    d->rx_ns = now;
    d->step_out = true;
    rtc_drv_count(&d->b.st.requests); /* after the values: a reader sees them with it */
    if (d->phase == DM_RUN && !d->b.link.conn)
        rtc_drv_link_up(&d->b);
}

/* The template's text with its placeholders (%uint8 .. %float64, %string) replaced by the
 * arguments of the NTF_log, in order; an argument that is missing or malformed ends it. */
static void format_log(const char *tpl, const uint8_t *arg, size_t len, char *out, size_t cap)
{
    size_t o = 0, off = 0;
    while (*tpl && o + 1 < cap) {
        int k = 0;
        while (*tpl == '%' && k <= RTC_DCP_STRING &&
               strncmp(tpl + 1, rtc_dcp_data_type_name((uint8_t)k),
                       strlen(rtc_dcp_data_type_name((uint8_t)k))) != 0)
            k++;
        if (*tpl != '%' || k > RTC_DCP_STRING) {
            out[o++] = *tpl++;
            continue;
        }
        tpl += 1 + strlen(rtc_dcp_data_type_name((uint8_t)k));
        double v;
        size_t at = off;
        int n = 0;
        if (k == RTC_DCP_STRING && rtc_dcp_skip_value(arg, len, &off, (uint8_t)k))
            n = snprintf(out + o, cap - o, "%.*s", (int)(off - at - 4), (const char *)arg + at + 4);
        else if (k != RTC_DCP_STRING && rtc_dcp_get_value(arg, len, &off, (uint8_t)k, &v))
            n = snprintf(out + o, cap - o, "%.17g", v);
        else
            break;
        o = n > 0 && o + (size_t)n < cap ? o + (size_t)n : cap - 1;
    }
    out[o < cap ? o : cap - 1] = '\0';
}

static void on_log(dm *d, const rtc_dcp_pdu *p, int64_t now)
{
    const rtc_dcpx_template *t = rtc_dcpx_template_find(d->dcpx, p->log_template_id);
    char text[128] = "", msg[200];
    rtc_drv_count(&d->b.st.named[DM_LOGS]);
    if (t)
        format_log(t->msg, p->payload, p->payload_len, text, sizeof text);
    snprintf(msg, sizeof msg, "says (NTF_log, template %u%s): %s", p->log_template_id,
             t ? "" : ", not in its .dcpx", text);
    say(d, now, msg);
}

static bool from_slave(const dm *d, const struct sockaddr_in *from)
{
    return from->sin_family == AF_INET &&
           (from->sin_addr.s_addr == d->slave.sin_addr.s_addr ||
            from->sin_addr.s_addr == d->slave_dat.sin_addr.s_addr);
}

/* One datagram of @p n bytes from @p from (the sending port is not checked: spec 4.2.1). */
static void handle(dm *d, size_t n, const struct sockaddr_in *from, int64_t now)
{
    rtc_dcp_pdu p;
    if (!from_slave(d, from)) {
        rtc_drv_count(&d->b.st.named[DM_WRONG_SENDER]);
        return;
    }
    if (rtc_dcp_decode(d->rx, n, &p) != RTC_DCP_E_NONE) {
        rtc_drv_count(&d->b.st.named[DM_MALFORMED]);
        return;
    }
    switch (rtc_dcp_family_of(p.type_id)) {
    case RTC_DCP_FAMILY_RSP: on_answer(d, &p, now); return;
    case RTC_DCP_FAMILY_NTF:
        if (rtc_dcp_master_check(&p, d->slave_id, 0) != RTC_DCP_E_NONE)
            rtc_drv_count(&d->b.st.named[DM_UNEXPECTED]);
        else if (p.type_id == RTC_DCP_NTF_STATE_CHANGED)
            on_state(d, p.state_id, now, "NTF_state_changed");
        else
            on_log(d, &p, now);
        return;
    case RTC_DCP_FAMILY_DAT:
        if (p.type_id == RTC_DCP_DAT_INPUT_OUTPUT && p.id == DM_DATA_OUT &&
            (d->phase == DM_RUN || d->phase == DM_SETUP))
            take_outputs(d, &p, now);
        else
            rtc_drv_count(&d->b.st.named[DM_UNEXPECTED]);
        return;
    default: rtc_drv_count(&d->b.st.named[DM_UNEXPECTED]); return; /* a request, to us */
    }
}

/* ---- what to do next ---- */

static void recover_step(dm *d, int64_t now)
{
    if (!d->state_known) { /* stopping while it was being asked */
        request(d, (rtc_dcp_pdu){.type_id = RTC_DCP_INF_STATE}, now);
        return;
    }
    if (waiting(d, now))
        return;
    uint8_t s = d->state;
    unsigned sup = rtc_dcp_superstates(s);
    if (s == RTC_DCP_STATE_ALIVE) {
        if (d->phase == DM_RECOVER) {
            d->phase = DM_SETUP;
            d->at = 0;
        }
    } else if ((sup & RTC_DCP_SUPER_ERROR) && !d->asked_error) {
        d->asked_error = true;
        request(d, (rtc_dcp_pdu){.type_id = RTC_DCP_INF_ERROR}, now);
    } else if (sup & RTC_DCP_SUPER_STOPPABLE) {
        request(d, (rtc_dcp_pdu){.type_id = RTC_DCP_STC_STOP}, now);
    } else if (s == RTC_DCP_STATE_CONFIGURATION || s == RTC_DCP_STATE_STOPPED ||
               s == RTC_DCP_STATE_ERRORRESOLVED) {
        request(d, (rtc_dcp_pdu){.type_id = RTC_DCP_STC_DEREGISTER}, now);
    } else { /* STOPPING, ERRORHANDLING: the slave moves by itself */
        wait_state(d, s == RTC_DCP_STATE_STOPPING ? RTC_DCP_STATE_STOPPED
                                                  : RTC_DCP_STATE_ERRORRESOLVED, now);
    }
}

static void enter_run(dm *d)
{
    d->phase = DM_RUN;
    d->rx_seq_set = false;
    d->sent_run_again = false;
    d->stepping = false;
    d->rx_ns = 0;
    rtc_drv_count(&d->b.st.named[DM_LIFE_CYCLES]);
    d->ls_ran = true;
    rtc_drv_count(&d->b.st.connects);
    d->said_running = false;
    rtc_drv_link_up(&d->b);
}

/* One line when the run is on: RUNNING (SRT/HRT), a run state (NRT, stepped). */
static void say_running(dm *d)
{
    if (d->said_running || (d->op_mode != RTC_DCP_OP_NRT && d->state != RTC_DCP_STATE_RUNNING))
        return;
    d->said_running = true;
    rtc_log(d->b.lg, RTC_LOG_INFO, "dcp-master '%s': %s is %s (%s, communication step %u x "
            "%u/%u s)", d->b.component, d->name, rtc_dcp_state_name(d->state),
            rtc_dcp_op_mode_name(d->op_mode), d->steps, d->res_num, d->res_den);
}

/* NRT: the step in progress, after its STC_do_step was acknowledged. */
static void nrt_step(dm *d, int64_t now)
{
    if (d->step_phase == 1 && d->state == RTC_DCP_STATE_COMPUTED) {
        d->step_phase = 2;
        request(d, (rtc_dcp_pdu){.type_id = RTC_DCP_STC_SEND_OUTPUTS}, now);
    } else if (d->step_phase == 2 && in_run(d->state) && (d->step_out || !d->n_out)) {
        d->stepping = false;
        rtc_drv_count(&d->b.st.named[DM_STEPS]);
    } else if (now - d->poll_ns >= d->timeout_ns) { /* an NTF may be lost */
        d->poll_ns = now;
        request(d, (rtc_dcp_pdu){.type_id = RTC_DCP_INF_STATE}, now);
    }
}

static void put_round(dm *d, int kind, uint32_t idx)
{
    int64_t t = kind == RTC_LOCKSTEP_TICK ? (int64_t)idx * d->b.period_ns : 0;
    int rc = rtc_lockstep_put(d->ls, kind, idx, t, rtc_time_now_ns(), d->ls_vals, d->n_out);
    if (rc != RTC_OK)
        rtc_lockstep_fail(d->ls, "the engine did not take the DCP slave's outputs");
}

/* Lock-step (a fast run): each round of the engine in turn. An INIT pass is answered with
 * the initial outputs; tick k's inputs go out as DAT_input_output, STC_do_step makes the
 * slave compute t_k .. t_(k+1), and its outputs, once STC_send_outputs brought them, are
 * round k+1 (round 0 is the initial outputs). */
static void lockstep_step(dm *d, int64_t now)
{
    if (d->stepping)
        return;
    if (d->ls_pending) { /* the step of round ls_k is done */
        d->ls_pending = false;
        put_round(d, RTC_LOCKSTEP_TICK, d->ls_k + 1);
        rtc_lockstep_out_done(d->ls);
    }
    const rtc_lockstep_round *r;
    while ((r = rtc_lockstep_next_out(d->ls)) && r->kind != RTC_LOCKSTEP_TICK) {
        if (r->kind == RTC_LOCKSTEP_INIT)
            put_round(d, RTC_LOCKSTEP_INIT, r->idx);
        rtc_lockstep_out_done(d->ls);
    }
    if (!r)
        return;
    if (!d->ls_tick0) {
        d->ls_tick0 = true;
        put_round(d, RTC_LOCKSTEP_TICK, 0);
    }
    rtc__dm_send_inputs(d, r->v); /* applied at the next COMPUTING */
    d->ls_k = r->idx;
    d->ls_pending = true;
    d->stepping = true;
    d->step_phase = 1;
    d->step_out = false;
    d->poll_ns = now;
    request(d, (rtc_dcp_pdu){.type_id = RTC_DCP_STC_DO_STEP, .steps = d->steps}, now);
}

static void run_step(dm *d, int64_t now)
{
    say_running(d);
    if (d->ls) {
        if (d->stepping)
            nrt_step(d, now);
        if (!d->req.active)
            lockstep_step(d, now);
    } else if (d->op_mode == RTC_DCP_OP_NRT) {
        if (d->stepping)
            nrt_step(d, now);
    } else if (d->state == RTC_DCP_STATE_SYNCHRONIZED && !d->sent_run_again) {
        d->sent_run_again = true; /* DCPLib's slaves go RUNNING on a second STC_run */
        request(d, (rtc_dcp_pdu){.type_id = RTC_DCP_STC_RUN}, now);
    } else if (d->n_out && now - (d->rx_ns ? d->rx_ns : d->wait_since_ns) >
                               3 * d->b.period_ns + d->timeout_ns &&
               now - d->poll_ns >= d->timeout_ns) { /* silent: is it still there? */
        d->poll_ns = now;
        request(d, (rtc_dcp_pdu){.type_id = RTC_DCP_INF_STATE}, now);
    }
}

/* A slave that monitors the heartbeat (canMonitorHeartbeat) gets INF_state at half its
 * MaximumPeriodicInterval from registration on, else it goes to ERRORHANDLING. */
static bool heartbeat(dm *d, int64_t now)
{
    if (!d->dcpx->can_monitor_heartbeat || now < d->hb_ns ||
        (d->phase != DM_SETUP && d->phase != DM_RUN) || (d->phase == DM_SETUP && d->at == 0))
        return false;
    d->hb_ns = now + hb_half_ns(d);
    request(d, (rtc_dcp_pdu){.type_id = RTC_DCP_INF_STATE}, now);
    return true;
}

static void advance(dm *d, int64_t now)
{
    if (d->req.active || heartbeat(d, now))
        return;
    switch (d->phase) {
    case DM_PROBE:
        if (!d->state_known)
            request(d, (rtc_dcp_pdu){.type_id = RTC_DCP_INF_STATE}, now);
        else
            d->phase = DM_RECOVER;
        break;
    case DM_RECOVER:
    case DM_ENDED: recover_step(d, now); break;
    case DM_SETUP:
        if (waiting(d, now))
            break;
        if (d->at < d->n_script)
            request(d, d->script[d->at].pdu, now);
        else
            enter_run(d);
        break;
    case DM_RUN: run_step(d, now); break;
    case DM_DOWN:
        if (now >= d->retry_ns) {
            rtc__dm_reset(d, now);
            d->asked_error = false;
        }
        break;
    }
}

void rtc__dm_receive(dm *d, int64_t until)
{
    struct pollfd p = {.fd = d->fd, .events = POLLIN};
    int64_t now;
    if (rtc_drv_poll(&p, 1, until) > 0) {
        struct sockaddr_in from;
        socklen_t fl;
        ssize_t n; /* what came, up to 64 datagrams: the loop must see stop and safe requests */
        for (int k = 0; k < 64; k++) {
            fl = sizeof from;
            n = recvfrom(d->fd, d->rx, sizeof d->rx, 0, (struct sockaddr *)&from, &fl);
            if (n < 0)
                break;
            if ((size_t)n > RTC_DCP_UDP_MAX_PDU) /* the buffer holds one byte more */
                rtc_drv_count(&d->b.st.named[DM_MALFORMED]);
            else
                handle(d, (size_t)n, &from, rtc_time_now_ns());
        }
    }
    now = rtc_time_now_ns();
    check_timeout(d, now);
    advance(d, now);
}

/* NRT: a new step this period, unless the last one is still running. */
static void nrt_kick(dm *d, int64_t now)
{
    if (d->stepping || d->req.active) {
        rtc_drv_count(&d->b.st.named[DM_LATE_STEPS]);
        return;
    }
    rtc__dm_send_inputs(d, NULL); /* applied at the next COMPUTING */
    d->stepping = true;
    d->step_phase = 1;
    d->step_out = false;
    d->poll_ns = now;
    request(d, (rtc_dcp_pdu){.type_id = RTC_DCP_STC_DO_STEP, .steps = d->steps}, now);
}

void rtc__dm_cycle(dm *d, int64_t now)
{
    check_timeout(d, now);
    if (d->phase == DM_RUN && rtc_drv_held(&d->b)) { /* before the run's first tick: no */
        rtc_drv_check_stale(&d->b, now);              /* input, no step (NRT) yet */
    } else if (d->phase == DM_RUN && !d->ls) { /* lock-step: the rounds step it */
        if (d->op_mode == RTC_DCP_OP_NRT)
            nrt_kick(d, now);
        else
            rtc__dm_send_inputs(d, NULL);
        rtc_drv_check_stale(&d->b, now);
    }
    advance(d, now);
}

void rtc__dm_lockstep_wait(dm *d, int64_t until)
{
    if (d->ls_fail && rtc_drv_link_state(&d->b) != RTC_LINK_UP &&
        !rtc_lockstep_failure(d->ls))
        rtc_lockstep_fail(d->ls, d->ls_fail);
    for (int64_t now = rtc_time_now_ns(); now < until && !rtc_drv_should_stop(&d->b) &&
                                          (!d->ls_fail || rtc_lockstep_failure(d->ls));
         now = rtc_time_now_ns()) {
        if (!d->ls_ran && now - d->ls_begin_ns >= d->b.link.connect_ns &&
            !rtc_lockstep_failure(d->ls)) { /* the link contract: not up within connect_ms */
            if (!d->why) /* (else fail() gave the link its reason) */
                rtc_drv_link_error(&d->b, "the DCP slave is not running");
            rtc_lockstep_fail(d->ls, "the DCP slave was not running within connect_ms");
        }
        bool idle = d->phase == DM_RUN && !d->req.active && !d->stepping && !d->ls_pending;
        if (idle && !rtc_lockstep_next_out(d->ls)) { /* nothing to do: sleep on the engine */
            uint32_t seen = rtc_lockstep_committed(d->ls);
            int64_t nap = now + d->timeout_ns < until ? now + d->timeout_ns : until;
            if (!rtc_lockstep_next_out(d->ls))
                rtc_lockstep_wait_out(d->ls, seen, nap);
        }
        rtc__dm_receive(d, idle ? now : until);
    }
}

void rtc__dm_shutdown(dm *d)
{
    int64_t now = rtc_time_now_ns();
    dm_phase was = d->phase;
    d->phase = DM_ENDED;
    if (!d->registered || (d->state_known && d->state == RTC_DCP_STATE_ALIVE))
        return; /* never registered by this master, or not any more */
    d->req.active = false;
    d->wait_for = -1;
    d->asked_error = true; /* no time for questions: stop and deregister */
    int64_t bound = 2 * (int64_t)(d->retries + 1) * d->timeout_ns + 1000000000;
    int64_t deadline = now + (bound < d->setup_timeout_ns ? bound : d->setup_timeout_ns);
    const char *why_before = d->why;
    while (now < deadline && d->why == why_before &&
           !(d->state == RTC_DCP_STATE_ALIVE && !d->req.active)) {
        int64_t until = now + 10000000;
        rtc__dm_receive(d, until < deadline ? until : deadline); /* runs recover_step */
        now = rtc_time_now_ns();
    }
    if (d->state != RTC_DCP_STATE_ALIVE)
        rtc_log(d->b.lg, RTC_LOG_WARNING, "dcp-master '%s': %s not stopped and deregistered "
                "(it is %s%s%s)", d->b.component, d->name, rtc_dcp_state_name(d->state),
                d->why != why_before ? ": " : "", d->why != why_before ? d->why : "");
    (void)was;
}
