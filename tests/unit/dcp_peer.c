/*
 * The DCP slave of the master's tests (dcp_peer.h): a state machine after spec 3.2, one
 * thread, one socket. Answers go to the address the request came from; outputs to the
 * address of CFG_target_network_information.
 */
#include "dcp_peer.h"

#include "rtcosim/time.h"

#include <arpa/inet.h>
#include <poll.h>
#include <time.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void send_pdu(dcp_peer *p, const rtc_dcp_pdu *q, const struct sockaddr_in *to)
{
    uint8_t buf[256];
    size_t n = rtc_dcp_encode(q, buf, sizeof buf);
    if (n && !atomic_load(&p->mute))
        sendto(p->fd, buf, n, 0, (const struct sockaddr *)to, sizeof *to);
}

static void set_state(dcp_peer *p, uint8_t s)
{
    atomic_store(&p->state, s);
    if (p->has_master && !p->no_ntf) {
        rtc_dcp_pdu n = {.type_id = RTC_DCP_NTF_STATE_CHANGED, .slave = p->id, .state_id = s};
        send_pdu(p, &n, &p->master);
    }
}

static void answer(dcp_peer *p, uint8_t type, uint16_t seq, uint8_t sender,
                   const struct sockaddr_in *to, uint16_t code)
{
    rtc_dcp_pdu r = {.type_id = type, .seq = seq, .slave = sender,
                     .state_id = (uint8_t)atomic_load(&p->state), .error_code = code,
                     .exp_seq_id = rtc_dcp_seq_next(p->last_seq)};
    send_pdu(p, &r, to);
}

/* The junk a broken slave (or something next to it) sends: each must be refused. */
static void evil(dcp_peer *p)
{
    uint8_t buf[70000];
    rtc_dcp_pdu q = {.type_id = RTC_DCP_DAT_INPUT_OUTPUT, .seq = p->out_seq, .id = 2,
                     .payload = buf + 100, .payload_len = 8};
    memset(buf, 0, sizeof buf);
    size_t n = rtc_dcp_encode(&q, buf, 64);
    sendto(p->fd, buf, n - 3, 0, (struct sockaddr *)&p->out_to, sizeof p->out_to); /* short */
    sendto(p->fd, buf, 65600, 0, (struct sockaddr *)&p->out_to, sizeof p->out_to); /* huge */
    buf[0] = 0x7E;
    sendto(p->fd, buf, n, 0, (struct sockaddr *)&p->out_to, sizeof p->out_to); /* unknown */
    buf[0] = RTC_DCP_DAT_INPUT_OUTPUT;
    sendto(p->fd2, buf, n, 0, (struct sockaddr *)&p->out_to, sizeof p->out_to); /* 127.0.0.2 */
    q.seq = (uint16_t)(p->out_seq - 3); /* an old one, late: its values are not taken */
    n = rtc_dcp_encode(&q, buf, 64);
    sendto(p->fd, buf, n, 0, (struct sockaddr *)&p->out_to, sizeof p->out_to);
    rtc_dcp_pdu r = {.type_id = RTC_DCP_RSP_ACK, .seq = (uint16_t)(p->last_seq + 77),
                     .slave = p->id};
    send_pdu(p, &r, &p->master); /* an answer to nothing */
    r = (rtc_dcp_pdu){.type_id = RTC_DCP_NTF_STATE_CHANGED, .slave = (uint8_t)(p->id + 1),
                      .state_id = RTC_DCP_STATE_STOPPED};
    send_pdu(p, &r, &p->master); /* another slave's notification */
    r = (rtc_dcp_pdu){.type_id = RTC_DCP_STC_STOP, .seq = 1, .slave = p->id};
    send_pdu(p, &r, &p->master); /* a request, to a master */
}

/* y = 2 a + 1 + steps: which input made which output is readable from it. */
static void send_outputs(dcp_peer *p)
{
    uint8_t pay[64];
    size_t off = 0;
    int silent = atomic_load(&p->silent_after);
    if (!p->has_out || (silent > 0 && atomic_load(&p->outputs) >= silent))
        return;
    for (size_t i = 0; i < p->n_out; i++)
        rtc_dcp_put_value(pay, sizeof pay, &off, RTC_DCP_FLOAT64, p->y, NULL);
    rtc_dcp_pdu q = {.type_id = RTC_DCP_DAT_INPUT_OUTPUT, .seq = p->out_seq++, .id = 2,
                     .payload = pay, .payload_len = off};
    send_pdu(p, &q, &p->out_to);
    atomic_fetch_add(&p->outputs, 1);
    if (p->log_each) {
        uint8_t arg[16] = {0};
        size_t n = 0;
        rtc_dcp_put_value(arg, sizeof arg, &n, RTC_DCP_UINT32, atomic_load(&p->outputs), NULL);
        arg[n] = 1; /* string "y": uint32 length 1, then the byte */
        arg[n + 4] = 'y';
        rtc_dcp_pdu l = {.type_id = RTC_DCP_NTF_LOG, .slave = p->id, .time = 1,
                         .log_template_id = 7, .payload = arg, .payload_len = n + 5};
        send_pdu(p, &l, &p->master);
    }
    if (atomic_load(&p->evil))
        evil(p);
    int stop = atomic_load(&p->stop_after);
    if (stop > 0 && atomic_load(&p->outputs) >= stop) { /* SIG_stop: its own decision */
        atomic_store(&p->stop_after, 0);
        set_state(p, RTC_DCP_STATE_STOPPING);
        set_state(p, RTC_DCP_STATE_STOPPED);
        return;
    }
    int err = atomic_load(&p->error_after);
    if (err > 0 && atomic_load(&p->outputs) >= err) {
        p->error = RTC_DCP_E_PROTOCOL_ERROR_GENERIC;
        set_state(p, RTC_DCP_STATE_ERRORHANDLING);
        set_state(p, RTC_DCP_STATE_ERRORRESOLVED);
    }
}

static void compute(dcp_peer *p, uint32_t steps)
{
    p->n_steps += steps;
    p->y = p->echo ? p->a : 2 * p->a + 1 + (double)p->n_steps;
    atomic_fetch_add(&p->steps, 1);
}

static void configure(dcp_peer *p, const rtc_dcp_pdu *q)
{
    switch (q->type_id) {
    case RTC_DCP_CFG_INPUT:
        if (q->pos < DCP_PEER_MAX_VARS) {
            p->in_vr[q->pos] = q->vr;
            p->in_type[q->pos] = q->source_data_type;
            p->n_in = q->pos + 1u > p->n_in ? q->pos + 1u : p->n_in;
        }
        break;
    case RTC_DCP_CFG_OUTPUT:
        if (q->pos < DCP_PEER_MAX_VARS) {
            p->out_vr[q->pos] = q->vr;
            p->n_out = q->pos + 1u > p->n_out ? q->pos + 1u : p->n_out;
        }
        break;
    case RTC_DCP_CFG_TARGET_NETWORK_INFORMATION:
        p->out_to = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons(q->port),
                                         .sin_addr.s_addr = htonl(q->ip_address)};
        p->has_out = true;
        break;
    case RTC_DCP_CFG_TIME_RES:
        p->num = q->numerator;
        p->den = q->denominator;
        break;
    case RTC_DCP_CFG_STEPS: p->steps_cfg = q->steps; break;
    case RTC_DCP_CFG_CLEAR: p->n_in = p->n_out = 0; break;
    default: break;
    }
}

static int64_t step_ns(const dcp_peer *p)
{
    uint32_t steps = p->steps_cfg ? p->steps_cfg : 1;
    return p->den ? (int64_t)steps * p->num * 1000000000 / p->den : 10000000;
}

/* An accepted STC request: acknowledged, then its transitions (spec 3.2.5). */
static void transition(dcp_peer *p, const rtc_dcp_pdu *q, uint8_t s)
{
    switch (q->type_id) {
    case RTC_DCP_STC_REGISTER: set_state(p, RTC_DCP_STATE_CONFIGURATION); break;
    case RTC_DCP_STC_DEREGISTER:
        p->registered = p->has_out = false;
        p->n_in = p->n_out = 0;
        p->steps_cfg = 0;
        atomic_fetch_add(&p->deregisters, 1); /* before the state a test waits for */
        set_state(p, RTC_DCP_STATE_ALIVE);
        p->has_master = false;
        break;
    case RTC_DCP_STC_PREPARE:
        set_state(p, RTC_DCP_STATE_PREPARING);
        set_state(p, RTC_DCP_STATE_PREPARED);
        break;
    case RTC_DCP_STC_CONFIGURE:
        set_state(p, RTC_DCP_STATE_CONFIGURING);
        set_state(p, RTC_DCP_STATE_CONFIGURED);
        break;
    case RTC_DCP_STC_INITIALIZE:
        set_state(p, RTC_DCP_STATE_INITIALIZING);
        p->y = 2 * p->a + 1;
        set_state(p, RTC_DCP_STATE_INITIALIZED);
        break;
    case RTC_DCP_STC_SEND_OUTPUTS:
        set_state(p, s == RTC_DCP_STATE_INITIALIZED ? RTC_DCP_STATE_SENDING_I
                                                    : RTC_DCP_STATE_SENDING_D);
        send_outputs(p);
        set_state(p, s == RTC_DCP_STATE_INITIALIZED ? RTC_DCP_STATE_CONFIGURED : p->run_state);
        break;
    case RTC_DCP_STC_RUN:
        if (s == RTC_DCP_STATE_SYNCHRONIZED) {
            set_state(p, RTC_DCP_STATE_RUNNING);
            break;
        }
        set_state(p, RTC_DCP_STATE_SYNCHRONIZING);
        p->next_out_ns = rtc_time_now_ns() + step_ns(p);
        if (q->start_time > (int64_t)time(NULL)) /* whole seconds: wait for it */
            p->next_out_ns += (q->start_time - (int64_t)time(NULL)) * 1000000000;
        if (p->op_mode == RTC_DCP_OP_NRT || !p->sync_needs_run)
            set_state(p, p->op_mode == RTC_DCP_OP_NRT ? RTC_DCP_STATE_SYNCHRONIZED
                                                      : RTC_DCP_STATE_RUNNING);
        break;
    case RTC_DCP_STC_DO_STEP:
        p->run_state = s;
        set_state(p, RTC_DCP_STATE_COMPUTING);
        compute(p, q->steps);
        set_state(p, RTC_DCP_STATE_COMPUTED);
        break;
    case RTC_DCP_STC_STOP:
        set_state(p, RTC_DCP_STATE_STOPPING);
        set_state(p, RTC_DCP_STATE_STOPPED);
        break;
    case RTC_DCP_STC_RESET: set_state(p, RTC_DCP_STATE_CONFIGURATION); break;
    default: break;
    }
}

static void on_request(dcp_peer *p, const rtc_dcp_pdu *q, const struct sockaddr_in *from)
{
    uint8_t s = (uint8_t)atomic_load(&p->state);
    if (q->type_id == RTC_DCP_STC_REGISTER) {
        p->last_inf_ns = rtc_time_now_ns(); /* the watch starts */
        p->id = q->slave;
        p->op_mode = q->op_mode;
        p->master = *from;
        p->has_master = p->registered = true;
        atomic_fetch_add(&p->registers, 1);
    }
    p->last_seq = q->seq;
    int n = atomic_load(&p->n_log);
    if (n < DCP_PEER_LOG) {
        p->log[n] = q->type_id;
        atomic_store(&p->n_log, n + 1);
    }
    if (q->type_id == RTC_DCP_INF_STATE) {
        p->last_inf_ns = rtc_time_now_ns();
        atomic_fetch_add(&p->inf_states, 1);
        answer(p, RTC_DCP_RSP_STATE_ACK, q->seq, s == RTC_DCP_STATE_ALIVE ? q->slave : p->id,
               from, 0);
        return;
    }
    if (q->type_id == RTC_DCP_INF_ERROR) {
        atomic_fetch_add(&p->errors_acked, 1);
        answer(p, RTC_DCP_RSP_ERROR_ACK, q->seq, p->id, from, p->error);
        return;
    }
    answer(p, RTC_DCP_RSP_ACK, q->seq, p->id, from, 0);
    configure(p, q);
    transition(p, q, s);
}

static void on_data(dcp_peer *p, const rtc_dcp_pdu *q)
{
    size_t off = 0;
    if (q->type_id != RTC_DCP_DAT_INPUT_OUTPUT || q->id != 1)
        return;
    for (size_t i = 0; i < p->n_in; i++) {
        double v;
        if (!rtc_dcp_get_value(q->payload, q->payload_len, &off, p->in_type[i], &v))
            return;
        if (p->in_vr[i] == 2)
            p->a = v;
    }
    atomic_store(&p->last_a, p->a);
    atomic_fetch_add(&p->inputs, 1);
}

static void on_datagram(dcp_peer *p, const uint8_t *buf, size_t n,
                        const struct sockaddr_in *from)
{
    rtc_dcp_slave_view v = {.state = (uint8_t)atomic_load(&p->state), .slave_id = p->id,
                            .last_seq = p->last_seq, .registered = p->registered,
                            .nrt = p->op_mode == RTC_DCP_OP_NRT};
    rtc_dcp_pdu q;
    uint16_t err;
    if (atomic_load(&p->mute))
        return;
    if (p->has_master && (from->sin_addr.s_addr != p->master.sin_addr.s_addr ||
                          from->sin_port != p->master.sin_port)) {
        atomic_fetch_add(&p->refused, 1);
        return;
    }
    rtc_dcp_verdict vd = rtc_dcp_slave_check(&v, buf, n, &q, &err);
    int nack = atomic_load(&p->nack_type);
    if (vd == RTC_DCP_ACCEPT && nack && q.type_id == nack) {
        vd = RTC_DCP_NACK;
        err = (uint16_t)atomic_load(&p->nack_code);
    }
    if (vd == RTC_DCP_ACCEPT && p->refuse_now && q.type_id == RTC_DCP_STC_RUN &&
        !q.start_time) {
        vd = RTC_DCP_NACK;
        err = RTC_DCP_E_INVALID_START_TIME;
    }
    if (vd == RTC_DCP_DROP) {
        atomic_fetch_add(&p->dropped, 1);
    } else if (vd == RTC_DCP_NACK) {
        atomic_fetch_add(&p->nacks, 1);
        answer(p, RTC_DCP_RSP_NACK, q.seq, v.state == RTC_DCP_STATE_ALIVE ? q.slave : p->id,
               from, err);
    } else if (rtc_dcp_family_of(q.type_id) == RTC_DCP_FAMILY_DAT) {
        on_data(p, &q);
    } else {
        on_request(p, &q, from);
    }
}

static void *peer_main(void *arg)
{
    dcp_peer *p = arg;
    static uint8_t buf[RTC_DCP_UDP_MAX_PDU + 1];
    while (!atomic_load(&p->stop)) {
        struct pollfd pf = {.fd = p->fd, .events = POLLIN};
        uint8_t s = (uint8_t)atomic_load(&p->state);
        bool clock = p->op_mode != RTC_DCP_OP_NRT && (rtc_dcp_superstates(s) & RTC_DCP_SUPER_RUN);
        int64_t now = rtc_time_now_ns();
        if (p->hb_limit_ns && p->registered && now - p->last_inf_ns > p->hb_limit_ns &&
            !(rtc_dcp_superstates(s) & RTC_DCP_SUPER_ERROR) && s != RTC_DCP_STATE_ALIVE) {
            p->error = RTC_DCP_E_PROTOCOL_ERROR_HEARTBEAT_MISSED;
            set_state(p, RTC_DCP_STATE_ERRORHANDLING);
            set_state(p, RTC_DCP_STATE_ERRORRESOLVED);
            continue;
        }
        if (clock && now >= p->next_out_ns) { /* SRT/HRT: a step on its own clock */
            if (s == RTC_DCP_STATE_SYNCHRONIZING && p->sync_needs_run)
                set_state(p, RTC_DCP_STATE_SYNCHRONIZED);
            compute(p, p->steps_cfg ? p->steps_cfg : 1);
            send_outputs(p);
            p->next_out_ns += step_ns(p);
            if (p->next_out_ns < now)
                p->next_out_ns = now + step_ns(p);
        }
        int64_t wait = clock ? p->next_out_ns - now : 5000000;
        wait = wait < 0 ? 0 : wait > 5000000 ? 5000000 : wait;
        struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)wait};
        if (ppoll(&pf, 1, &ts, NULL) <= 0)
            continue;
        struct sockaddr_in from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(p->fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
        if (n >= 0)
            on_datagram(p, buf, (size_t)n, &from);
    }
    return NULL;
}

static int bind_to(const char *ip, int *port)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t al = sizeof a;
    inet_pton(AF_INET, ip, &a.sin_addr);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (port)
        *port = ntohs(a.sin_port);
    return fd;
}

int dcp_peer_start(dcp_peer *p)
{
    p->fd = bind_to("127.0.0.1", &p->port);
    p->fd2 = bind_to("127.0.0.2", NULL);
    if (p->fd < 0 || p->fd2 < 0)
        return -1;
    atomic_store(&p->state, RTC_DCP_STATE_ALIVE);
    if (p->start_registered) { /* left running by a master that went away */
        p->id = 1;
        p->registered = true;
        p->last_seq = 1000;
        p->op_mode = RTC_DCP_OP_SRT;
        atomic_store(&p->state, RTC_DCP_STATE_RUNNING);
    }
    atomic_store(&p->stop, false);
    return pthread_create(&p->tid, NULL, peer_main, p) == 0 ? 0 : -1;
}

void dcp_peer_stop(dcp_peer *p)
{
    atomic_store(&p->stop, true);
    pthread_join(p->tid, NULL);
    close(p->fd);
    close(p->fd2);
}

bool dcp_peer_saw(dcp_peer *p, uint8_t type)
{
    int n = atomic_load(&p->n_log);
    for (int i = 0; i < n; i++)
        if (p->log[i] == type)
            return true;
    return false;
}
