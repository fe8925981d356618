/*
 * The operator's side of a session (rtcosim/session.h): the functions the control surfaces
 * (rt-core/surfaces: OSC, the HTTP panel) call, each on its own thread — queue commands,
 * read the published snapshot, the progress and the I/O health, marks, status, the
 * dead-man.
 *
 * DESIGN: one lock (op_mu) makes the surfaces' threads one producer of the command ring at a
 * time, so the operator's commands and the dead-man's fallbacks reach the RT thread in the
 * order they were decided, whichever surface sent them. Checks
 * (allowed? exposed? a finite number? paused for a step? too many steps outstanding?) and
 * the clamp happen here, before queueing, so the RT thread applies only valid commands and
 * inputs.bin records the value applied.
 */
#include "session_priv.h"

#include "rtcosim/estimate.h"

#include "rtcosim/driver.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

void rtc_session_origin_text(int64_t origin, char *buf, size_t cap)
{
    if (origin <= 0) {
        snprintf(buf, cap, "engine");
        return;
    }
    struct in_addr a = {.s_addr = htonl((uint32_t)(origin >> 16))};
    char ip[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &a, ip, sizeof ip);
    snprintf(buf, cap, "%s:%u", ip, (unsigned)(origin & 0xffff));
}

/* The one producer call of the command ring: a full ring means the RT thread has not
 * drained it for 256 commands — it stopped — so the command is refused, never waited for. */
static int queue(rtc_session *s, const rtc__cmd *c, char *err, size_t cap)
{
    if (rtc_ring_push(s->cmd, c)) {
        if (s->ex) /* a paused run looks at once, not after its nap */
            rtc_exec_kick(s->ex);
        return RTC_OK;
    }
    atomic_fetch_add_explicit(&s->cmd_dropped, 1, memory_order_relaxed);
    snprintf(err, cap, "command queue full: the run does not take commands (stopped?)");
    return RTC_ELIMIT;
}

/* ---- capabilities ---- */

static const struct {
    const char *name;
    unsigned bit;
} cap_names[] = {
    {"set", RTC_SESSION_CAN_SET},   {"pause", RTC_SESSION_CAN_PAUSE},
    {"step", RTC_SESSION_CAN_STEP}, {"stop", RTC_SESSION_CAN_STOP},
    {"mark", RTC_SESSION_CAN_MARK}, {"remote", RTC_SESSION_CAN_REMOTE},
};
#define N_CAPS (sizeof cap_names / sizeof cap_names[0])
#define CAN_ALL_LOCAL (RTC_SESSION_CAN_SET | RTC_SESSION_CAN_PAUSE | RTC_SESSION_CAN_STEP | \
                       RTC_SESSION_CAN_STOP | RTC_SESSION_CAN_MARK)

int rtc_session_caps_parse(const char *list, unsigned *caps, char *err, size_t cap)
{
    unsigned bits = 0;
    const char *p = list ? list : "";
    while (*p) {
        size_t n = strcspn(p, ",");
        unsigned bit = 0;
        for (size_t i = 0; i < N_CAPS && !bit; i++)
            bit = strlen(cap_names[i].name) == n && !strncmp(p, cap_names[i].name, n)
                      ? cap_names[i].bit : 0;
        bit |= n == 3 && !strncmp(p, "all", 3) ? CAN_ALL_LOCAL : 0;
        if (!bit && !(n == 4 && !strncmp(p, "none", 4))) {
            snprintf(err, cap, "unknown capability '%.*s' (expected a comma-separated list "
                     "of set, pause, step, stop, mark, remote, all, none)", (int)n, p);
            return RTC_EINVAL;
        }
        bits |= bit;
        p += n + (p[n] == ',');
    }
    *caps = bits;
    return RTC_OK;
}

unsigned rtc_session_caps_default(bool has_io)
{
    return has_io ? RTC_SESSION_CAN_SET | RTC_SESSION_CAN_STOP | RTC_SESSION_CAN_MARK
                  : CAN_ALL_LOCAL;
}

void rtc_session_caps_text(unsigned caps, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_CAPS && len < cap; i++)
        if (caps & cap_names[i].bit) {
            int n = snprintf(buf + len, cap - len, "%s%s", len ? "," : "", cap_names[i].name);
            len += n > 0 ? (size_t)n : 0;
        }
    if (!len)
        snprintf(buf, cap, "none");
}

unsigned rtc_session_caps(const rtc_session *s)
{
    return s->caps;
}

bool rtc_session_has_io(const rtc_session *s)
{
    return s->has_io;
}

int rtc_session_check(const rtc_session *s, unsigned can, const char *what, char *err,
                      size_t cap)
{
    if (s->caps & can)
        return RTC_OK;
    const char *name = "?";
    for (size_t i = 0; i < N_CAPS; i++)
        name = cap_names[i].bit == can ? cap_names[i].name : name;
    char have[96];
    rtc_session_caps_text(s->caps, have, sizeof have);
    snprintf(err, cap, "%s needs the capability '%s' (this run allows %s%s; name it in "
             "--control-allow)", what, name, have,
             s->has_io ? ", the run has I/O components" : "");
    return RTC_ESTATE;
}

/* ---- commands ---- */

static unsigned cap_of(rtc_session_control_op op)
{
    return op == RTC_SESSION_STEP   ? RTC_SESSION_CAN_STEP
           : op == RTC_SESSION_STOP ? RTC_SESSION_CAN_STOP
                                    : RTC_SESSION_CAN_PAUSE;
}

/* A step is accepted once a pause is queued, not only once the RT thread has parked:
 * "pause; step 5" from a script must work without polling the status in between. The
 * outstanding bound counts steps queued but not yet run, so no sequence of commands can
 * line up more than RTC_SESSION_MAX_STEPS of them. */
static int control_locked(rtc_session *s, rtc_session_control_op op, long n, int64_t origin,
                          char *err, size_t cap)
{
    static const char *const names[] = {"pause", "resume", "step", "stop"};
    const char *what = op >= RTC_SESSION_PAUSE && op <= RTC_SESSION_STOP
                           ? names[op - RTC_SESSION_PAUSE] : "control";
    if (!s->ex) {
        snprintf(err, cap, "no run to control");
        return RTC_ESTATE;
    }
    int rc = rtc_session_check(s, cap_of(op), what, err, cap);
    if (rc != RTC_OK)
        return rc;
    uint64_t out =
        s->steps_asked - atomic_load_explicit(&s->single_steps_done, memory_order_relaxed);
    if (op == RTC_SESSION_STEP && !(s->pause_queued || rtc_exec_is_paused(s->ex))) {
        snprintf(err, cap, "step needs a paused run (send /rtcosim/pause first)");
        return RTC_ESTATE;
    }
    if (op == RTC_SESSION_STEP && (n < 1 || (uint64_t)n + out > RTC_SESSION_MAX_STEPS)) {
        snprintf(err, cap, "step %ld: expected 1..%llu steps (%d at most outstanding, %llu "
                 "still to run)", n, (unsigned long long)(RTC_SESSION_MAX_STEPS - out),
                 RTC_SESSION_MAX_STEPS, (unsigned long long)out);
        return RTC_EINVAL;
    }
    rtc__cmd c = {.op = (uint8_t)op, .index = op == RTC_SESSION_STEP ? (uint32_t)n : 0,
                  .origin = origin};
    rc = queue(s, &c, err, cap);
    if (rc == RTC_OK && op == RTC_SESSION_STEP)
        s->steps_asked += (uint64_t)n;
    if (rc == RTC_OK && (op == RTC_SESSION_PAUSE || op == RTC_SESSION_RESUME))
        s->pause_queued = op == RTC_SESSION_PAUSE;
    return rc;
}

static long find_var(const rtc_session *s, const char *name)
{
    for (size_t i = 0; i < s->n_var; i++)
        if (!strcmp(s->var[i].name, name))
            return (long)i;
    return -1;
}

/* The clamp happens here, on the control thread, and the clamped value is what is queued
 * and recorded: the RT thread and a replay never see an out-of-range value. */
static int set_locked(rtc_session *s, const char *name, double value, int64_t origin,
                      double *applied, char *err, size_t cap)
{
    int rc = rtc_session_check(s, RTC_SESSION_CAN_SET, "set", err, cap);
    if (rc != RTC_OK)
        return rc;
    long i = find_var(s, name);
    if (i < 0) {
        snprintf(err, cap, "%s is not exposed (only variables named by expose= or --expose "
                 "can be set)", name);
        return RTC_ENOTFOUND;
    }
    if (!isfinite(value)) {
        snprintf(err, cap, "set %s: the value is not a finite number", name);
        return RTC_EINVAL;
    }
    double v = value;
    if (rtc__xvar_clamp(&s->var[i], &v)) {
        char who[64];
        rtc_session_origin_text(origin, who, sizeof who);
        rtc__events_peer_at(s->ev, RTC__EVENTS_NOW, "operator",
                            "%s: set %s = %.17g clamped to %.17g (range %g..%g)", who, name,
                            value, v, s->var[i].has_min ? s->var[i].min : -INFINITY,
                            s->var[i].has_max ? s->var[i].max : INFINITY);
    }
    rtc__cmd c = {.op = RTC__OP_SET, .index = (uint32_t)i, .value = v, .origin = origin};
    rc = queue(s, &c, err, cap);
    if (rc == RTC_OK && applied)
        *applied = v;
    return rc;
}

/* The operator functions below are called by every control surface (OSC, the HTTP panel),
 * each on its own thread: op_mu makes them one producer of the command ring at a time and
 * keeps the outstanding-steps, pause and dead-man bookkeeping consistent. Never taken on
 * the RT thread. */
int rtc_session_control(rtc_session *s, rtc_session_control_op op, long n, int64_t origin,
                        char *err, size_t cap)
{
    pthread_mutex_lock(&s->op_mu);
    int rc = control_locked(s, op, n, origin, err, cap);
    pthread_mutex_unlock(&s->op_mu);
    return rc;
}

int rtc_session_set(rtc_session *s, const char *name, double value, int64_t origin,
                    double *applied, char *err, size_t cap)
{
    pthread_mutex_lock(&s->op_mu);
    int rc = set_locked(s, name, value, origin, applied, err, cap);
    pthread_mutex_unlock(&s->op_mu);
    return rc;
}

size_t rtc_session_vars(const rtc_session *s)
{
    return s->n_var;
}

bool rtc_session_var_info(const rtc_session *s, size_t i, rtc_session_var *out)
{
    if (i >= s->n_var)
        return false;
    const rtc__xvar *x = &s->var[i];
    const rtc_unit *u = rtc_system_unit(s->sys, x->unit);
    *out = (rtc_session_var){.name = x->name, .unit = u->md->vars[x->var].unit,
                             .has_min = x->has_min, .min = x->min,
                             .has_max = x->has_max, .max = x->max, .has_rate = x->has_rate,
                             .rate = x->rate, .has_safe = x->has_safe, .safe = x->safe};
    return true;
}

long rtc_session_column(const rtc_session *s, const char *name)
{
    for (size_t i = 0; i < s->n_col; i++)
        if (!strcmp(rtc_record_column_name(s->rec, i), name))
            return (long)i;
    return -1;
}

size_t rtc_session_columns(const rtc_session *s)
{
    return s->n_col;
}

const char *rtc_session_column_name(const rtc_session *s, size_t i)
{
    return i < s->n_col ? rtc_record_column_name(s->rec, i) : NULL;
}

/* Seqlock read (C11, Boehm): retry while the RT thread is writing the snapshot. */
bool rtc_session_get_column(rtc_session *s, size_t i, double *value, int64_t *k)
{
    if (i >= s->n_col)
        return false;
    for (int tries = 0; tries < 1000; tries++) {
        uint32_t q1 = atomic_load_explicit(&s->snap_seq, memory_order_acquire);
        if (q1 & 1)
            continue;
        /* Acquire loads keep the re-check of the count below them (see mailbox.c). */
        uint64_t bits = atomic_load_explicit(&s->snap[i], memory_order_acquire);
        int64_t kk = atomic_load_explicit(&s->snap_k, memory_order_acquire);
        if (atomic_load_explicit(&s->snap_seq, memory_order_relaxed) != q1)
            continue;
        memcpy(value, &bits, sizeof *value);
        *k = q1 ? kk : -1; /* -1: nothing published yet */
        return true;
    }
    return false;
}

int rtc_session_get(rtc_session *s, const char *name, double *value, int64_t *k)
{
    long i = rtc_session_column(s, name);
    if (i < 0 || !rtc_session_get_column(s, (size_t)i, value, k))
        return RTC_ENOTFOUND;
    return RTC_OK;
}

double rtc_session_time_s(const rtc_session *s, int64_t k)
{
    return (double)(s->start_ns + (k > 0 ? k : 0) * s->tick_ns) / 1e9;
}

void rtc_session_mark(rtc_session *s, const char *text, const char *who)
{
    rtc__events_peer_at(s->ev, RTC__EVENTS_NOW, "operator", "%s: mark %s", who, text);
}

void rtc_session_note(rtc_session *s, const char *who, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    rtc_events_add(s->ev, "operator", "%s: %s", who, text);
}

/* The link contract's part of an rtc_session_io, from the driver's counters. */
static void contract_info(const rtc_driver_stats *st, rtc_session_io *out)
{
    const rtc_link_info *c = &st->contract;
    int64_t now = rtc_time_now_ns();
    rtc_link_policy_text(c, out->on_loss, sizeof out->on_loss);
    out->address = c->address;
    out->required = c->required;
    out->error = c->error;
    out->state_s = st->link_since_ns ? (double)(now - st->link_since_ns) / 1e9 : 0;
    out->first_connect_s = c->first_up_ns ? (double)(c->first_up_ns - c->start_ns) / 1e9 : -1;
    out->connected_share = rtc_link_up_share(c);
    out->outages = c->outages;
    out->outage_total_s = (double)c->outage_total_ns / 1e9;
    out->outage_longest_s = (double)c->outage_max_ns / 1e9;
    out->requests = st->requests;
    out->timeouts = st->timeouts;
    out->rtt_p50_ms = (double)st->latency.p50 / 1e6;
    out->rtt_p99_ms = (double)st->latency.p99 / 1e6;
    out->rtt_max_ms = (double)st->latency.max / 1e6;
    out->timeout_ms = (double)c->timeout_ns / 1e6;
    out->loss_ms = (double)c->loss_ns / 1e6;
}

size_t rtc_session_io_count(const rtc_session *s)
{
    return s->n_watch;
}

bool rtc_session_io_info(const rtc_session *s, size_t i, rtc_session_io *out)
{
    const rtc_unit *u = i < s->n_watch ? rtc_system_unit(s->sys, s->watch[i].unit) : NULL;
    rtc_signal_health h[64];
    rtc_driver_stats st = {.signals = h, .n_signals_cap = 64};
    if (!u || rtc_io_unit_stats(u, &st) != RTC_OK)
        return false;
    unsigned stale = 0;
    for (size_t k = 0; k < st.n_signals && k < 64; k++)
        stale += h[k].quality == RTC_QUALITY_STALE || h[k].quality == RTC_QUALITY_ERROR;
    uint64_t exceptions = 0; /* a Modbus driver's own counter; other drivers have none */
    rtc_driver_stats_counter(&st, "exceptions", &exceptions);
    *out = (rtc_session_io){.name = u->name, .up = st.connected, .signals = st.n_signals,
                            .link = rtc_io_unit_link(u, &st),
                            .stale = stale, .reconnects = st.reconnects,
                            .errors = st.errors + st.timeouts + exceptions};
    contract_info(&st, out);
    out->driver = rtc_io_unit_driver(u);
    return true;
}

/* The estimator of late value @p i — the I/O signals from the bench in unit order, then
 * the connections with their own estimator — and its name into @p name (NULL: out of
 * range). */
static const rtc_est *late_value(const rtc_session *s, size_t i, char *name, size_t cap)
{
    for (size_t u = 0; u < rtc_system_unit_count(s->sys); u++) {
        const rtc_unit *unit = rtc_system_unit(s->sys, u);
        for (size_t v = 0; rtc_io_unit_is(unit) && v < unit->md->n_vars; v++) {
            const rtc_est *e = rtc_io_unit_est(unit, v);
            if (e && i-- == 0) {
                snprintf(name, cap, "%s.%s", unit->name, unit->md->vars[v].name);
                return e;
            }
        }
    }
    for (size_t l = 0; l < rtc_system_link_count(s->sys); l++) {
        rtc_link_stats ls;
        rtc_system_link_stats(s->sys, l, &ls);
        if (ls.est && i-- == 0) {
            snprintf(name, cap, "%s", ls.desc);
            return ls.est;
        }
    }
    return NULL;
}

void rtc_session_set_nodes(rtc_session *s, rtc_session_nodes_fn fn, void *user)
{
    s->nodes_user = user; /* set once, before the function is published */
    atomic_store_explicit(&s->nodes_fn, fn, memory_order_release);
}

size_t rtc_session_nodes(const rtc_session *s, rtc_session_node *out, size_t cap)
{
    rtc_session_nodes_fn fn = s ? atomic_load_explicit(&((rtc_session *)s)->nodes_fn,
                                                       memory_order_acquire) : NULL;
    return fn ? fn(s->nodes_user, out, cap) : 0;
}

size_t rtc_session_estimate_count(const rtc_session *s)
{
    size_t n = 0;
    char name[8];
    while (late_value(s, n, name, sizeof name))
        n++;
    return n;
}

bool rtc_session_estimate_info(const rtc_session *s, size_t i, rtc_session_estimate *out)
{
    rtc_session_estimate o;
    memset(&o, 0, sizeof o);
    const rtc_est *e = late_value(s, i, o.name, sizeof o.name);
    rtc_est_monitor m;
    if (!e || rtc_est_get_monitor(e, &m) != RTC_OK)
        return false;
    o.estimator = rtc_est_method_name(rtc_est_get_config(e)->method);
    o.in_use = rtc_est_method_name(m.cand[m.in_use].method);
    o.samples = m.samples;
    o.error_rms = m.error_rms;
    o.error_max = m.error_max;
    o.delay_p50_ms = (double)m.delay_p50_ns / 1e6;
    o.delay_p99_ms = (double)m.delay_p99_ns / 1e6;
    *out = o;
    return true;
}

/* "bench: up, stale 0, reconnects 1; operator: connecting, ..." for every I/O unit. */
static void health(const rtc_session *s, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    rtc_session_io h;
    for (size_t i = 0; i < rtc_session_io_count(s) && len < cap; i++) {
        if (!rtc_session_io_info(s, i, &h))
            continue;
        int n = snprintf(buf + len, cap - len, "%s%s: %s, stale %u, reconnects %llu",
                         len ? "; " : "", h.name, h.link, h.stale,
                         (unsigned long long)h.reconnects);
        len += n > 0 ? (size_t)n : 0;
    }
}

rtc_events *rtc_session_events(const rtc_session *s)
{
    return s->ev;
}

int64_t rtc_session_tick_ns(const rtc_session *s)
{
    return s->tick_ns;
}

void rtc_session_progress_get(const rtc_session *s, rtc_session_progress *out)
{
    rtc_exec_progress st = {0};
    if (s->ex)
        rtc_exec_progress_get(s->ex, &st);
    *out = (rtc_session_progress){.sim_time_ns = st.sim_time_ns,
                                  .sim_time_s = (double)(s->start_ns + st.sim_time_ns) / 1e9,
                                  .k = st.sim_time_ns / s->tick_ns, .overruns = st.overruns,
                                  .p99_wakeup_us = (double)st.wakeup_p99_ns / 1e3,
                                  .paused = st.paused};
}

/* RTF is measured between two status calls (simulated over wall time), the way an
 * operator watching the status sees the run keep up — or not. */
void rtc_session_status_get(rtc_session *s, rtc_session_status *out)
{
    pthread_mutex_lock(&s->op_mu); /* the RTF window is shared by the surfaces */
    rtc_session_progress pr;
    rtc_session_progress_get(s, &pr);
    int64_t now = rtc_time_now_ns();
    if (!s->status_wall_ns) /* the first call measures from the arming of the session */
        s->status_wall_ns = s->armed_ns;
    double dt = (double)(now - s->status_wall_ns);
    *out = (rtc_session_status){
        .sim_time_s = pr.sim_time_s,
        .k = pr.k,
        .rtf = dt > 0 ? (double)(pr.sim_time_ns - s->status_sim_ns) / dt : 0,
        .overruns = pr.overruns,
        .p99_wakeup_us = pr.p99_wakeup_us,
        .paused = pr.paused};
    s->status_wall_ns = now;
    s->status_sim_ns = pr.sim_time_ns;
    pthread_mutex_unlock(&s->op_mu);
    health(s, out->health, sizeof out->health);
}

int64_t rtc_session_deadman_ns(const rtc_session *s)
{
    return s->deadman_ns;
}

/* The dead-man fires once per silence: the safe values are queued as SAFE commands
 * (applied at once, rate limits ignored — a fallback must not creep) and recorded with
 * origin 0, the engine. Hearing the surface again re-arms it without undoing anything:
 * who sets values after a fallback is the operator's decision. */
static bool poll_locked(rtc_session *s, bool heard)
{
    int64_t now = rtc_time_now_ns();
    if (heard) {
        if (s->deadman_fired) /* a peer's silence and return: limited like its commands */
            rtc__events_peer_at(s->ev, RTC__EVENTS_NOW, "operator", "dead-man: the control "
                                "surface is back; the safe values stay until the operator "
                                "sets new ones");
        s->last_heard_ns = now;
        s->deadman_fired = false;
        return false;
    }
    if (!s->deadman_ns || s->deadman_fired || now - s->last_heard_ns < s->deadman_ns)
        return false;
    s->deadman_fired = true;
    char err[128];
    unsigned n = 0;
    for (size_t i = 0; i < s->n_var; i++) {
        if (!s->var[i].has_safe)
            continue;
        rtc__cmd c = {.op = RTC__OP_SAFE, .index = (uint32_t)i, .value = s->var[i].safe};
        n += queue(s, &c, err, sizeof err) == RTC_OK;
    }
    rtc__events_peer_at(s->ev, RTC__EVENTS_NOW, "operator", "dead-man: the control surface "
                        "was silent for %.0f ms (limit %.0f ms): %u input(s) fall back to "
                        "their safe values", (double)(now - s->last_heard_ns) / 1e6,
                        (double)s->deadman_ns / 1e6, n);
    return true;
}

bool rtc_session_poll(rtc_session *s, bool heard)
{
    pthread_mutex_lock(&s->op_mu);
    bool fired = poll_locked(s, heard);
    pthread_mutex_unlock(&s->op_mu);
    return fired;
}

/* ---- set-points from I/O peers (writer thread) ---- */

/* A PLC writing a Modbus-server register or an operator panel sending OSC sets a value the
 * run then follows: events.log says when and what, like an operator's set through the
 * control surface. A Modbus client's polls are measurements, not set-points: not logged.
 * A peer controls the rate, so the lines pass the peer-line limit (session_events.c). */
int rtc__setpoints_init(rtc_session *s)
{
    s->sig_setpoint = calloc(s->n_sig + 1, sizeof *s->sig_setpoint);
    s->sig_logged = calloc(s->n_sig + 1, sizeof *s->sig_logged);
    s->sig_last = calloc(s->n_sig + 1, sizeof *s->sig_last);
    if (!s->sig_setpoint || !s->sig_logged || !s->sig_last)
        return RTC_ENOMEM;
    size_t sig = 0;
    for (size_t u = 0; u < rtc_system_unit_count(s->sys); u++) {
        const rtc_unit *unit = rtc_system_unit(s->sys, u);
        const char *drv = rtc_io_unit_driver(unit);
        if (!drv)
            continue;
        bool peer_sets = !strcmp(drv, "osc") || !strcmp(drv, "modbus-server");
        for (size_t v = 0; v < unit->md->n_vars && sig < s->n_sig; v++, sig++)
            s->sig_setpoint[sig] = peer_sets &&
                                   unit->md->vars[v].causality == RTC_CAUSALITY_OUTPUT;
    }
    return RTC_OK;
}

void rtc__setpoints_clear(rtc_session *s)
{
    free(s->sig_setpoint);
    free(s->sig_logged);
    free(s->sig_last);
}

void rtc__setpoint_event(rtc_session *s, const rtc_inputs_rec *r)
{
    size_t i = r->index;
    if (i >= s->n_sig || !s->sig_setpoint[i] ||
        (s->sig_logged[i] && s->sig_last[i] == r->value)) /* a repeat is no news */
        return;
    s->sig_logged[i] = true;
    s->sig_last[i] = r->value;
    rtc__events_peer_at(s->ev, r->k, "io", "%s.%s = %.9g set by the I/O peer (applied at "
                        "step %lld)", s->sig_unit[i], s->sig_name[i], r->value,
                        (long long)r->k);
}
