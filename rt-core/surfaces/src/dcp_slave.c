/*
 * dcp_slave.c — the session as a DCP slave (rtcosim/dcp_slave.h): the UDP socket, the
 * two threads, and the engine the protocol machine (dcp_slave_core.c) asks, made of the
 * session's public API.
 *
 * DESIGN. The machine is driven by two non-RT threads under one mutex: the socket thread
 * (each datagram, and the machine's timers: start time, heartbeat, refusal reports) and
 * the step thread, which sleeps in rtc_session_wait_step() and hands every published step
 * to the machine (NRT: COMPUTED; SRT: the outputs due). The engine's requests become
 * session calls: an input is rtc_session_set() (clamped, recorded in inputs.bin, so a
 * replay needs no master), STC_do_step is rtc_session_control(STEP) on the paused run,
 * the start is RESUME, a stop STOP. The RT thread is never waited for and never sees the
 * surface. What a peer sends is counted, never logged line by line; events.log gets the
 * registration, the start, the loss of the master and the counters at the end.
 */
#include "dcp_slave_priv.h"

#include "rtcosim/dcp_slave.h"
#include "rtcosim/rt.h"
#include "rtcosim/sha256.h"
#include "rtcosim/status.h"
#include "rtcosim/udp.h"
#include "rtcosim/time.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S 1000000000LL

struct rtc_dcp_slave {
    rtc_session *s;
    const rtc_logger *lg;
    rtc__dcp_config cfg;
    rtc__dcp_core core;
    rtc__dcp_var *vars;   /* inputs, then outputs */
    size_t *out_col;      /* session column of each output */
    double *cols;         /* snapshot buffer */
    char name[64];
    int fd;
    bool paused_at_start; /* a pause was queued at start (RESUME at the start time) */
    pthread_mutex_t mu;
    rtc_rt_thread *rx, *stepper;
    _Atomic bool quit;    /* the threads end at their next turn (relaxed: it orders nothing;
                             the join does) */
    /* as the events say them */
    bool was_registered, was_lost;
};

static int64_t wall_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * NS_PER_S + t.tv_nsec;
}

/* ---- the engine: the session's public API ---- */

static void eng_send(void *user, const uint8_t *buf, size_t len, uint32_t ip, uint16_t port)
{
    rtc_dcp_slave *d = user;
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port),
                             .sin_addr.s_addr = htonl(ip)};
    /* a full socket buffer or an unreachable peer loses the datagram, as UDP does */
    (void)sendto(d->fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)&to, sizeof to);
}

static double eng_set(void *user, size_t i, double value, int64_t origin)
{
    rtc_dcp_slave *d = user;
    double applied = value;
    char err[200];
    if (rtc_session_set(d->s, d->cfg.in[i].name, value, origin, &applied, err, sizeof err) !=
        RTC_OK)
        return NAN;
    return applied;
}

static void control(rtc_dcp_slave *d, rtc_session_control_op op, long n, int64_t origin)
{
    char err[200];
    if (rtc_session_control(d->s, op, n, origin, err, sizeof err) != RTC_OK)
        rtc_session_note(d->s, "dcp", "DCP slave: %s", err);
}

static void eng_start(void *user, int64_t origin)
{
    rtc_dcp_slave *d = user;
    if (d->paused_at_start)
        control(d, RTC_SESSION_RESUME, 0, origin);
}

static void eng_step(void *user, uint32_t n, int64_t origin)
{
    control(user, RTC_SESSION_STEP, (long)n, origin);
}

static void eng_stop(void *user, bool safe, int64_t origin)
{
    rtc_dcp_slave *d = user;
    for (size_t i = 0; safe && i < d->cfg.n_in; i++)
        if (d->cfg.in[i].has_safe)
            (void)eng_set(d, i, d->cfg.in[i].safe, origin);
    control(d, RTC_SESSION_STOP, 0, origin);
}

static bool eng_outputs(void *user, double *out, int64_t *k)
{
    rtc_dcp_slave *d = user;
    if (!rtc_session_snapshot(d->s, d->cols, NULL, NULL, k))
        return false;
    for (size_t i = 0; i < d->cfg.n_out; i++)
        out[i] = *k < 0 ? 0.0 : d->cols[d->out_col[i]];
    return true;
}

/* ---- the threads ---- */

static void peer_text(uint32_t ip, uint16_t port, char *buf, size_t cap)
{
    snprintf(buf, cap, "%u.%u.%u.%u:%u", ip >> 24, ip >> 16 & 255, ip >> 8 & 255, ip & 255,
             port);
}

/* After the machine moved (under the mutex): what events.log should know. */
static void say(rtc_dcp_slave *d)
{
    rtc__dcp_core *c = &d->core;
    char who[32];
    if (c->registered != d->was_registered) {
        peer_text(c->master_ip, c->master_port, who, sizeof who);
        if (c->registered)
            rtc_session_note(d->s, "dcp", "DCP slave: registered by master %s, op mode %s",
                             who, rtc_dcp_op_mode_name(c->op_mode));
        else
            rtc_session_note(d->s, "dcp", "DCP slave: deregistered by master %s", who);
        d->was_registered = c->registered;
    }
    if (c->master_lost && !d->was_lost) {
        peer_text(c->master_ip, c->master_port, who, sizeof who);
        rtc_session_note(d->s, "dcp", "DCP slave: no request from master %s for %lld ms: "
                         "inputs to their safe values, run stopped", who,
                         (long long)(d->cfg.heartbeat_ns / 1000000));
        d->was_lost = true;
    }
}

static void *rx_main(void *arg)
{
    rtc_dcp_slave *d = arg;
    uint8_t *buf = malloc(RTC_DCP_UDP_MAX_PDU + 1);
    int64_t next = INT64_MAX;
    while (buf && !atomic_load_explicit(&d->quit, memory_order_relaxed)) {
        int64_t now = rtc_time_now_ns();
        int64_t wait_ms = next == INT64_MAX ? 50 : (next - now) / 1000000 + 1;
        struct pollfd p = {.fd = d->fd, .events = POLLIN};
        int n = poll(&p, 1, (int)(wait_ms < 0 ? 0 : wait_ms > 50 ? 50 : wait_ms));
        pthread_mutex_lock(&d->mu);
        if (n > 0) {
            struct sockaddr_in from;
            socklen_t fl = sizeof from;
            ssize_t len;
            int left = 64; /* a flood lets the step thread in between turns */
            while (left-- > 0 && (len = recvfrom(d->fd, buf, RTC_DCP_UDP_MAX_PDU + 1,
                                                 MSG_DONTWAIT, (struct sockaddr *)&from,
                                                 &fl)) >= 0) {
                rtc__dcp_core_receive(&d->core, buf, (size_t)len, ntohl(from.sin_addr.s_addr),
                                      ntohs(from.sin_port), rtc_time_now_ns(), wall_ns());
                fl = sizeof from;
            }
        }
        next = rtc__dcp_core_tick(&d->core, rtc_time_now_ns(), wall_ns());
        say(d);
        pthread_mutex_unlock(&d->mu);
    }
    free(buf);
    return NULL;
}

static void *stepper_main(void *arg)
{
    rtc_dcp_slave *d = arg;
    int64_t k = -1;
    while (!atomic_load_explicit(&d->quit, memory_order_relaxed)) {
        int64_t until = rtc_time_now_ns() + 50000000;
        int64_t got = rtc_session_wait_step(d->s, k, until);
        if (got <= k) { /* at once when the session publishes no row: wait out the turn */
            rtc_time_sleep_until_ns(until);
            continue;
        }
        k = got;
        pthread_mutex_lock(&d->mu);
        rtc__dcp_core_stepped(&d->core, k, wall_ns());
        pthread_mutex_unlock(&d->mu);
    }
    return NULL;
}

/* ---- the configuration ---- */

/* The time resolution num/den s of @p tick_ns, reduced. */
static bool resolution(int64_t tick_ns, uint32_t *num, uint32_t *den)
{
    int64_t g = rtc_time_gcd(tick_ns, NS_PER_S);
    if (tick_ns <= 0 || g <= 0 || tick_ns / g > UINT32_MAX)
        return false;
    *num = (uint32_t)(tick_ns / g);
    *den = (uint32_t)(NS_PER_S / g);
    return true;
}

/* The uuid: a hash of the seed and the variables (a version-4-shaped RFC 4122 layout), so
 * the same slave keeps its .dcpx across restarts. */
static void make_uuid(rtc_dcp_slave *d, const char *seed)
{
    rtc_sha256 h;
    uint8_t out[32];
    rtc_sha256_init(&h);
    rtc_sha256_update(&h, seed, strlen(seed) + 1);
    for (size_t i = 0; i < d->cfg.n_in + d->cfg.n_out; i++)
        rtc_sha256_update(&h, d->vars[i].name, strlen(d->vars[i].name) + 1);
    rtc_sha256_final(&h, out);
    memcpy(d->cfg.uuid, out, 16);
    d->cfg.uuid[6] = (uint8_t)((d->cfg.uuid[6] & 0x0F) | 0x40);
    d->cfg.uuid[8] = (uint8_t)((d->cfg.uuid[8] & 0x3F) | 0x80);
}

static int make_vars(rtc_dcp_slave *d)
{
    rtc_session *s = d->s;
    size_t n_in = rtc_session_vars(s), n_col = rtc_session_columns(s), n_out = 0;
    d->vars = calloc(n_in + n_col + 1, sizeof *d->vars);
    d->out_col = calloc(n_col + 1, sizeof *d->out_col);
    d->cols = calloc(n_col + 1, sizeof *d->cols);
    if (!d->vars || !d->out_col || !d->cols)
        return RTC_ENOMEM;
    for (size_t i = 0; i < n_in; i++) {
        rtc_session_var v;
        rtc_session_var_info(s, i, &v);
        d->vars[i] = (rtc__dcp_var){.name = v.name, .unit = v.unit, .vr = i + 1,
                                    .has_min = v.has_min, .min = v.min, .has_max = v.has_max,
                                    .max = v.max, .has_safe = v.has_safe, .safe = v.safe};
    }
    for (size_t i = 0; i < n_col; i++) {
        const char *name = rtc_session_column_name(s, i);
        if (!strcmp(name, "time"))
            continue;
        d->out_col[n_out] = i;
        d->vars[n_in + n_out] = (rtc__dcp_var){.name = name,
                                               .unit = rtc_session_column_unit(s, i),
                                               .vr = n_in + n_out + 1};
        n_out++;
    }
    double *start = calloc(n_in + 1, sizeof *start);
    int64_t k;
    if (!start)
        return RTC_ENOMEM;
    if (rtc_session_snapshot(s, NULL, start, NULL, &k))
        for (size_t i = 0; i < n_in; i++)
            d->vars[i].start = start[i];
    free(start);
    d->cfg.in = d->vars;
    d->cfg.n_in = n_in;
    d->cfg.out = d->vars + n_in;
    d->cfg.n_out = n_out;
    return n_in + n_out > 65535 ? RTC_EINVAL : RTC_OK;
}

static int bind_socket(rtc_dcp_slave *d, const rtc_dcp_slave_options *o)
{
    const char *host = o->host ? o->host : "127.0.0.1";
    struct in_addr ip;
    if (inet_pton(AF_INET, host, &ip) != 1) {
        rtc_log(d->lg, RTC_LOG_ERROR, "DCP slave: --dcp-host %s: not an IPv4 address", host);
        return RTC_EINVAL;
    }
    uint16_t port = (uint16_t)o->port;
    int rc = rtc_udp_bind(ntohl(ip.s_addr), &port, false, &d->fd);
    if (rc != RTC_OK) {
        rtc_log(d->lg, RTC_LOG_ERROR, "DCP slave: UDP %s:%d: %s", host, o->port,
                rtc_strerror(rc));
        return RTC_ESYS;
    }
    d->cfg.ip = ntohl(ip.s_addr);
    d->cfg.port = port;
    return RTC_OK;
}

/* The op modes: NRT waits for its master, which a bench does not do. */
static int op_modes(rtc_dcp_slave *d, unsigned modes)
{
    bool io = rtc_session_has_io(d->s);
    unsigned caps = rtc_session_caps(d->s);
    if (!modes)
        modes = RTC_DCP_SLAVE_SRT | (io ? 0 : RTC_DCP_SLAVE_NRT);
    if ((modes & RTC_DCP_SLAVE_NRT) && io) {
        rtc_log(d->lg, RTC_LOG_ERROR, "DCP slave: op mode nrt refused: the system has I/O "
                "components, which do not wait for a master's STC_do_step (use srt)");
        return RTC_EINVAL;
    }
    if ((modes & RTC_DCP_SLAVE_NRT) &&
        (caps & (RTC_SESSION_CAN_PAUSE | RTC_SESSION_CAN_STEP | RTC_SESSION_CAN_SET)) !=
            (RTC_SESSION_CAN_PAUSE | RTC_SESSION_CAN_STEP | RTC_SESSION_CAN_SET)) {
        rtc_log(d->lg, RTC_LOG_ERROR, "DCP slave: op mode nrt needs the set, pause and step "
                "capabilities (--control-allow)");
        return RTC_EINVAL;
    }
    d->cfg.srt = modes & RTC_DCP_SLAVE_SRT;
    d->cfg.nrt = modes & RTC_DCP_SLAVE_NRT;
    d->paused_at_start = (caps & RTC_SESSION_CAN_PAUSE) != 0;
    return RTC_OK;
}

static int configure(rtc_dcp_slave *d, const rtc_dcp_slave_options *o)
{
    snprintf(d->name, sizeof d->name, "%s", o->name ? o->name : "rtcosim");
    int rc = make_vars(d);
    if (rc == RTC_EINVAL)
        rtc_log(d->lg, RTC_LOG_ERROR, "DCP slave: more than 65535 variables");
    if (rc != RTC_OK)
        return rc;
    if (!resolution(rtc_session_tick_ns(d->s), &d->cfg.res_num, &d->cfg.res_den)) {
        rtc_log(d->lg, RTC_LOG_ERROR, "DCP slave: the tick of %lld ns is no DCP time "
                "resolution", (long long)rtc_session_tick_ns(d->s));
        return RTC_EINVAL;
    }
    if ((rc = op_modes(d, o->modes)) != RTC_OK)
        return rc;
    d->cfg.heartbeat_ns = o->heartbeat_ns > 0 ? o->heartbeat_ns : 0;
    d->cfg.max_pdu = RTC_DCP_UDP_MAX_PDU;
    make_uuid(d, o->seed ? o->seed : d->name);
    return bind_socket(d, o);
}

static void slave_free(rtc_dcp_slave *d)
{
    if (d->fd >= 0)
        close(d->fd);
    rtc__dcp_core_clear(&d->core);
    pthread_mutex_destroy(&d->mu);
    free(d->vars);
    free(d->out_col);
    free(d->cols);
    free(d);
}

int rtc_dcp_slave_start(rtc_session *s, const rtc_dcp_slave_options *o, rtc_dcp_slave **out)
{
    *out = NULL;
    rtc_dcp_slave *d = calloc(1, sizeof *d);
    if (!d)
        return RTC_ENOMEM;
    d->s = s;
    d->lg = o->lg;
    d->fd = -1;
    pthread_mutex_init(&d->mu, NULL);
    int rc = configure(d, o);
    rtc__dcp_engine eng = {.send = eng_send, .set = eng_set, .start = eng_start,
                           .step = eng_step, .stop = eng_stop, .outputs = eng_outputs,
                           .user = d};
    if (rc == RTC_OK)
        rc = rtc__dcp_core_init(&d->core, &d->cfg, &eng);
    if (rc == RTC_OK && d->paused_at_start) /* applied before the first step */
        control(d, RTC_SESSION_PAUSE, 0, 0);
    if (rc == RTC_OK)
        rc = rtc_rt_thread_start(&(rtc_rt_thread_opts){.cpu = -1, .name = "rtcosim-dcp"},
                                 rx_main, d, o->lg, &d->rx);
    if (rc == RTC_OK)
        rc = rtc_rt_thread_start(&(rtc_rt_thread_opts){.cpu = -1, .name = "rtcosim-dcp-k"},
                                 stepper_main, d, o->lg, &d->stepper);
    if (rc != RTC_OK) {
        atomic_store_explicit(&d->quit, true, memory_order_relaxed);
        rtc_rt_thread_join(d->rx);
        slave_free(d);
        return rc;
    }
    *out = d;
    return RTC_OK;
}

int rtc_dcp_slave_write_dcpx(const rtc_dcp_slave *d, const char *path)
{
    FILE *f = fopen(path, "w");
    int rc = f ? RTC_OK : -errno;
    if (f) {
        rtc__dcp_write_dcpx(&d->cfg, d->name, f);
        rc = ferror(f) ? RTC_EIO : RTC_OK;
        if (fclose(f) != 0 && rc == RTC_OK)
            rc = -errno;
    }
    if (rc != RTC_OK)
        rtc_log(d->lg, RTC_LOG_ERROR, "%s: cannot write the DCP slave description: %s", path,
                rtc_strerror(rc));
    return rc;
}

int rtc_dcp_slave_port(const rtc_dcp_slave *d)
{
    return d->cfg.port;
}

void rtc_dcp_slave_stats_get(const rtc_dcp_slave *d, rtc_dcp_slave_stats *out)
{
    const rtc__dcp_counters *c = &d->core.ct;
#define G(f) atomic_load_explicit(&c->f, memory_order_relaxed)
    *out = (rtc_dcp_slave_stats){
        .received = G(received), .requests = G(requests), .nacks = G(nacks),
        .wrong_sender = G(wrong_sender), .malformed = G(malformed), .wrong_seq = G(wrong_seq),
        .not_allowed = G(not_allowed), .refused = G(refused), .dropped = G(dropped),
        .ignored = G(ignored), .repeats = G(repeats), .dat_in = G(dat_in),
        .dat_out = G(dat_out), .dat_missed = G(dat_missed), .steps = G(steps),
        .inputs_lost = G(inputs_lost), .notifications = G(notifications),
        .heartbeats_missed = G(heartbeats_missed),
        .state = atomic_load_explicit(&d->core.state_pub, memory_order_relaxed)};
#undef G
}

void rtc_dcp_slave_stop(rtc_dcp_slave *d, bool error, const char *why, int64_t linger_ns,
                        rtc_dcp_slave_stats *final)
{
    if (!d)
        return;
    pthread_mutex_lock(&d->mu);
    rtc__dcp_core_ended(&d->core, error ? RTC__DCP_END_ERROR : RTC__DCP_END_STOP, why,
                        wall_ns());
    bool done = !d->core.registered || rtc__dcp_core_released(&d->core);
    pthread_mutex_unlock(&d->mu);
    /* the master deregisters (or is lost) within the linger; the socket thread answers */
    int64_t until = rtc_time_now_ns() + linger_ns;
    while (!done && rtc_time_now_ns() < until) {
        rtc_time_sleep_until_ns(rtc_time_now_ns() + 2000000);
        pthread_mutex_lock(&d->mu);
        done = !d->core.registered || rtc__dcp_core_released(&d->core);
        pthread_mutex_unlock(&d->mu);
    }
    atomic_store_explicit(&d->quit, true, memory_order_relaxed);
    rtc_rt_thread_join(d->rx);
    rtc_rt_thread_join(d->stepper);
    say(d);
    rtc_dcp_slave_stats st;
    rtc_dcp_slave_stats_get(d, &st);
    rtc_session_note(d->s, "dcp", "DCP slave: %s; %llu datagram(s), %llu request(s), %llu "
                     "refused (%llu from other senders), %llu data in, %llu out, %llu step(s)",
                     done ? "released" : "master gone without deregistering",
                     (unsigned long long)st.received, (unsigned long long)st.requests,
                     (unsigned long long)(st.wrong_sender + st.malformed + st.wrong_seq +
                                          st.not_allowed + st.refused + st.dropped +
                                          st.ignored),
                     (unsigned long long)st.wrong_sender, (unsigned long long)st.dat_in,
                     (unsigned long long)st.dat_out, (unsigned long long)st.steps);
    if (final)
        *final = st;
    slave_free(d);
}
