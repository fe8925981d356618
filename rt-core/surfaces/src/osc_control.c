/*
 * The operator control surface over OSC (rtcosim/osc_control.h has the address table).
 *
 * DESIGN: one SCHED_OTHER thread owns a plain UDP socket (bound to 127.0.0.1 unless remote
 * senders are allowed — liblo 0.31's lo_server binds every interface, so the socket is our
 * own and liblo only decodes and encodes messages). The thread polls with a 10 ms cap,
 * handles every datagram, streams due subscriptions and checks the dead-man. It is the
 * session's control thread: the only caller of the operator functions, so the command
 * ring keeps one producer. Nothing here runs on the RT thread; values come from the
 * session's lock-free snapshot.
 *
 * Trust: with a token, every message must carry it as its first argument (a string,
 * compared in constant time) before anything else is looked at; wrong ones are counted.
 * They are not throttled per sender as the panel's are: a UDP sender address can be
 * forged, so blocking an address would let anyone shut the operator out with a few
 * datagrams, and a token of at least RTC_OSC_CONTROL_MIN_TOKEN bytes is not guessed at
 * any datagram rate. Remote senders (0.0.0.0) need a token: refused at start without one.
 * What a sender may do beyond reading is the session's capability list. Every refusal is
 * answered, but only the first few per second are written to events.log one by one: a
 * flood costs one line per second ("refused N more datagram(s) ..."), not one per
 * datagram.
 */
#include "surface_priv.h"

#include "rtcosim/osc_args.h"
#include "rtcosim/osc_control.h"

#include "rtcosim/rt.h"
#include "rtcosim/status.h"
#include "rtcosim/udp.h"
#include "rtcosim/time.h"

#include <arpa/inet.h>
#include <errno.h>
#include <lo/lo.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NAP_NS 10000000

typedef struct sub {
    bool used;
    struct sockaddr_in to;
    size_t col;
    int64_t period_ns, next_ns;
} sub;

struct rtc_osc_control {
    rtc_session *s;
    const rtc_logger *lg;
    int fd, port;
    bool allow_remote;
    rtc_rt_thread *thread;
    _Atomic bool stop;
    _Atomic uint64_t messages, refused, wrong_tokens;
    char token[RTC_OSC_CONTROL_MAX_TOKEN];
    size_t token_len;       /* 0: no token required */
    rtc__surface_lines lines; /* events.log lines for refusals and subscriptions */
    sub subs[RTC_OSC_CONTROL_MAX_SUBS];
    /* the message being handled */
    struct sockaddr_in from;
    int64_t origin;
    char who[64];
};

/* ---- replies ---- */

/* Serialise into a stack buffer and send from the control socket, so the reply comes
 * from the port the operator talks to (NAT-free on loopback, and what OSC tools expect).
 * MSG_DONTWAIT: a slow or vanished receiver never blocks the control thread. */
static void send_to(rtc_osc_control *c, const struct sockaddr_in *to, lo_message m,
                    const char *path)
{
    unsigned char buf[2048];
    size_t n = sizeof buf;
    if (lo_message_length(m, path) <= sizeof buf && lo_message_serialise(m, path, buf, &n))
        sendto(c->fd, buf, n, MSG_DONTWAIT, (const struct sockaddr *)to, sizeof *to);
    lo_message_free(m);
}

/* May this datagram's event be written to events.log one by one? Otherwise it is counted
 * and the loop writes one line for the window. */
static bool may_log(rtc_osc_control *c)
{
    return rtc__surface_lines_take(&c->lines, c->who);
}

static void reply_error(rtc_osc_control *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Every refusal is answered, and logged within the rate limit: the operator sees why,
 * and events.log keeps what was attempted without growing with a flood. */
static void reply_error(rtc_osc_control *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    atomic_fetch_add_explicit(&c->refused, 1, memory_order_relaxed);
    if (may_log(c))
        rtc_session_note(c->s, c->who, "refused: %s", msg);
    lo_message m = lo_message_new();
    if (!m)
        return;
    lo_message_add_string(m, msg);
    send_to(c, &c->from, m, "/rtcosim/error");
}

static void reply_ok(rtc_osc_control *c, const char *what)
{
    lo_message m = lo_message_new();
    if (!m)
        return;
    lo_message_add_string(m, what);
    lo_message_add_string(m, "ok");
    send_to(c, &c->from, m, "/rtcosim/reply");
}

/* ---- arguments ---- */

static bool is_str(const char *types, int i)
{
    return types[i] == LO_STRING || types[i] == LO_SYMBOL;
}

/* ---- commands ---- */

static void do_control(rtc_osc_control *c, const char *what, rtc_session_control_op op, long n)
{
    char err[256];
    if (rtc_session_control(c->s, op, n, c->origin, err, sizeof err) == RTC_OK)
        reply_ok(c, what);
    else
        reply_error(c, "%s: %s", what, err);
}

/* The count is checked as a double — finite, whole, in range — before it becomes a long:
 * converting Inf or 1e300 would be undefined behaviour. */
static void do_step(rtc_osc_control *c, const char *types, lo_arg **argv, int argc)
{
    double n = 1;
    if (argc > 1 || (argc == 1 && !rtc_osc_number(types[0], argv[0], &n))) {
        reply_error(c, "usage: /rtcosim/step [i:N]");
        return;
    }
    if (!isfinite(n) || n != floor(n) || n < 1 || n > RTC_SESSION_MAX_STEPS) {
        reply_error(c, "step %g: the count must be a whole number in 1..%d", n,
                    RTC_SESSION_MAX_STEPS);
        return;
    }
    do_control(c, "step", RTC_SESSION_STEP, (long)n);
}

static void do_set(rtc_osc_control *c, const char *types, lo_arg **argv, int argc)
{
    double v, applied = 0;
    char err[512];
    if (argc != 2 || !is_str(types, 0) || !rtc_osc_number(types[1], argv[1], &v)) {
        reply_error(c, "usage: /rtcosim/set s:NAME f|d|i:VALUE");
        return;
    }
    const char *name = (const char *)argv[0];
    if (rtc_session_set(c->s, name, v, c->origin, &applied, err, sizeof err) != RTC_OK) {
        reply_error(c, "set: %s", err);
        return;
    }
    lo_message m = lo_message_new();
    if (!m)
        return;
    lo_message_add_string(m, "set");
    lo_message_add_string(m, name);
    lo_message_add_double(m, applied);
    send_to(c, &c->from, m, "/rtcosim/reply");
}

static void do_get(rtc_osc_control *c, const char *types, lo_arg **argv, int argc)
{
    double v;
    int64_t k;
    if (argc != 1 || !is_str(types, 0)) {
        reply_error(c, "usage: /rtcosim/get s:NAME");
        return;
    }
    const char *name = (const char *)argv[0];
    if (rtc_session_get(c->s, name, &v, &k) != RTC_OK) {
        reply_error(c, "get: %s is not a recorded column (get and subscribe read the "
                    "results.csv columns)", name);
        return;
    }
    lo_message m = lo_message_new();
    if (!m)
        return;
    lo_message_add_string(m, "get");
    lo_message_add_string(m, name);
    lo_message_add_double(m, v);
    lo_message_add_double(m, rtc_session_time_s(c->s, k));
    lo_message_add_int64(m, k);
    send_to(c, &c->from, m, "/rtcosim/reply");
}

static bool same_peer(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
    return a->sin_addr.s_addr == b->sin_addr.s_addr && a->sin_port == b->sin_port;
}

/* One stream per (sender, column): subscribing again changes the rate instead of
 * doubling the traffic. Streams belong to the sender's address and port. */
static void do_subscribe(rtc_osc_control *c, const char *types, lo_arg **argv, int argc)
{
    double hz;
    if (argc != 2 || !is_str(types, 0) || !rtc_osc_number(types[1], argv[1], &hz)) {
        reply_error(c, "usage: /rtcosim/subscribe s:NAME f|d|i:RATE_HZ");
        return;
    }
    const char *name = (const char *)argv[0];
    long col = rtc_session_column(c->s, name);
    if (col < 0 || !(hz > 0 && hz <= 1000)) {
        reply_error(c, col < 0 ? "subscribe: %s is not a recorded column"
                               : "subscribe: %s: the rate must be in (0, 1000] Hz", name);
        return;
    }
    sub *free_slot = NULL;
    for (size_t i = 0; i < RTC_OSC_CONTROL_MAX_SUBS; i++) {
        sub *u = &c->subs[i];
        if (u->used && u->col == (size_t)col && same_peer(&u->to, &c->from))
            free_slot = u; /* a new rate for an existing stream */
        else if (!u->used && !free_slot)
            free_slot = u;
    }
    if (!free_slot) {
        reply_error(c, "subscribe: %d subscriptions already", RTC_OSC_CONTROL_MAX_SUBS);
        return;
    }
    *free_slot = (sub){.used = true, .to = c->from, .col = (size_t)col,
                       .period_ns = (int64_t)(1e9 / hz), .next_ns = rtc_time_now_ns()};
    if (may_log(c)) /* a flood of re-subscriptions, too */
        rtc_session_note(c->s, c->who, "subscribe %s at %g Hz", name, hz);
    lo_message m = lo_message_new();
    if (!m)
        return;
    lo_message_add_string(m, "subscribe");
    lo_message_add_string(m, name);
    lo_message_add_double(m, hz);
    send_to(c, &c->from, m, "/rtcosim/reply");
}

static void do_unsubscribe(rtc_osc_control *c, const char *types, lo_arg **argv, int argc)
{
    if (argc > 1 || (argc == 1 && !is_str(types, 0))) {
        reply_error(c, "usage: /rtcosim/unsubscribe [s:NAME]");
        return;
    }
    long col = argc == 1 ? rtc_session_column(c->s, (const char *)argv[0]) : -1;
    int removed = 0;
    for (size_t i = 0; i < RTC_OSC_CONTROL_MAX_SUBS; i++) {
        sub *u = &c->subs[i];
        if (u->used && same_peer(&u->to, &c->from) && (argc == 0 || (long)u->col == col)) {
            u->used = false;
            removed++;
        }
    }
    if (may_log(c))
        rtc_session_note(c->s, c->who, "unsubscribe %s (%d stream(s))",
                         argc == 1 ? (const char *)argv[0] : "all", removed);
    lo_message m = lo_message_new();
    if (!m)
        return;
    lo_message_add_string(m, "unsubscribe");
    lo_message_add_int32(m, removed);
    send_to(c, &c->from, m, "/rtcosim/reply");
}

static void do_status(rtc_osc_control *c)
{
    rtc_session_status st;
    rtc_session_status_get(c->s, &st);
    lo_message m = lo_message_new();
    if (!m)
        return;
    lo_message_add_string(m, "status");
    lo_message_add_double(m, st.sim_time_s);
    lo_message_add_double(m, st.rtf);
    lo_message_add_int64(m, st.k);
    lo_message_add_int64(m, (int64_t)st.overruns);
    lo_message_add_double(m, st.p99_wakeup_us);
    lo_message_add_int32(m, st.paused);
    lo_message_add_string(m, st.health);
    send_to(c, &c->from, m, "/rtcosim/reply");
}

static void do_mark(rtc_osc_control *c, const char *types, lo_arg **argv, int argc)
{
    char err[256];
    if (argc != 1 || !is_str(types, 0)) {
        reply_error(c, "usage: /rtcosim/mark s:TEXT");
        return;
    }
    if (rtc_session_check(c->s, RTC_SESSION_CAN_MARK, "mark", err, sizeof err) != RTC_OK) {
        reply_error(c, "%s", err);
        return;
    }
    rtc_session_mark(c->s, (const char *)argv[0], c->who);
    reply_ok(c, "mark");
}

/* The token: the first argument, a string, compared in constant time. */
static bool token_ok(const rtc_osc_control *c, const char *types, lo_arg **argv, int argc)
{
    return argc >= 1 && types[0] == LO_STRING &&
           rtc__surface_token_ok(c->token, c->token_len, (const char *)argv[0],
                                 RTC_OSC_CONTROL_MAX_TOKEN + 1);
}

/* The token of a message; a refusal is answered and counted. */
static bool check_token(rtc_osc_control *c, const char *path, const char *types,
                        lo_arg **argv, int argc)
{
    if (token_ok(c, types, argv, argc))
        return true;
    atomic_fetch_add_explicit(&c->wrong_tokens, 1, memory_order_relaxed);
    reply_error(c, "%s: missing or wrong token (the first argument of every message must be "
                "the --control-token string)", path);
    return false;
}

/* Table-driven dispatch on the address; argument checks are in each handler. */
static void dispatch(rtc_osc_control *c, const char *path, lo_message msg)
{
    const char *types = lo_message_get_types(msg);
    int argc = lo_message_get_argc(msg);
    lo_arg **argv = lo_message_get_argv(msg);
    types = types ? types : "";
    if (c->token_len) { /* the token goes first; the command sees the rest */
        if (!check_token(c, path, types, argv, argc))
            return;
        types++, argv++, argc--;
    }
    /* the surface is alive: re-arm the dead-man — only for a message that passed the
     * token, so a sender without it cannot keep the fallback from firing */
    rtc_session_poll(c->s, true);
    bool bare = argc == 0;
    if (!strcmp(path, "/rtcosim/pause") && bare)
        do_control(c, "pause", RTC_SESSION_PAUSE, 0);
    else if (!strcmp(path, "/rtcosim/resume") && bare)
        do_control(c, "resume", RTC_SESSION_RESUME, 0);
    else if (!strcmp(path, "/rtcosim/stop") && bare)
        do_control(c, "stop", RTC_SESSION_STOP, 0);
    else if (!strcmp(path, "/rtcosim/step"))
        do_step(c, types, argv, argc);
    else if (!strcmp(path, "/rtcosim/set"))
        do_set(c, types, argv, argc);
    else if (!strcmp(path, "/rtcosim/get"))
        do_get(c, types, argv, argc);
    else if (!strcmp(path, "/rtcosim/subscribe"))
        do_subscribe(c, types, argv, argc);
    else if (!strcmp(path, "/rtcosim/unsubscribe"))
        do_unsubscribe(c, types, argv, argc);
    else if (!strcmp(path, "/rtcosim/status") && bare)
        do_status(c);
    else if (!strcmp(path, "/rtcosim/mark"))
        do_mark(c, types, argv, argc);
    else if (!strcmp(path, "/rtcosim/pause") || !strcmp(path, "/rtcosim/resume") ||
             !strcmp(path, "/rtcosim/stop") || !strcmp(path, "/rtcosim/status"))
        reply_error(c, "%s takes no arguments", path);
    else
        reply_error(c, "unknown address %s (see the README, \"Operator control surface\")",
                    path);
}

static bool sender_ok(const rtc_osc_control *c)
{
    return c->allow_remote || (ntohl(c->from.sin_addr.s_addr) >> 24) == 127;
}

/* One datagram. Disallowed senders are dropped silently and counted (answering would
 * confirm to a remote host that the port is an rtcosim control surface). */
static void handle(rtc_osc_control *c, unsigned char *buf, size_t n)
{
    c->origin = (int64_t)ntohl(c->from.sin_addr.s_addr) << 16 | ntohs(c->from.sin_port);
    rtc_session_origin_text(c->origin, c->who, sizeof c->who);
    if (!sender_ok(c)) { /* never answered: an outsider learns nothing */
        atomic_fetch_add_explicit(&c->refused, 1, memory_order_relaxed);
        return;
    }
    atomic_fetch_add_explicit(&c->messages, 1, memory_order_relaxed);
    if (n >= 8 && !memcmp(buf, "#bundle", 8)) {
        reply_error(c, "OSC bundles are not supported: send single messages");
        return;
    }
    int res = 0;
    const char *path = lo_get_path(buf, (ssize_t)n);
    lo_message msg = path ? lo_message_deserialise(buf, n, &res) : NULL;
    if (!msg) {
        reply_error(c, "malformed OSC message (%zu bytes)", n);
        return;
    }
    dispatch(c, path, msg);
    lo_message_free(msg);
}

/* Every subscription that is due gets the newest published value. */
static int64_t stream(rtc_osc_control *c, int64_t now)
{
    int64_t next = now + NAP_NS;
    for (size_t i = 0; i < RTC_OSC_CONTROL_MAX_SUBS; i++) {
        sub *u = &c->subs[i];
        if (!u->used)
            continue;
        double v;
        int64_t k;
        if (now >= u->next_ns && rtc_session_get_column(c->s, u->col, &v, &k)) {
            lo_message m = lo_message_new();
            if (m) {
                lo_message_add_string(m, rtc_session_column_name(c->s, u->col));
                lo_message_add_double(m, v);
                lo_message_add_double(m, rtc_session_time_s(c->s, k));
                send_to(c, &u->to, m, "/rtcosim/value");
            }
            u->next_ns += u->period_ns;
            if (u->next_ns <= now) /* fell behind (a slow consumer): no burst */
                u->next_ns = now + u->period_ns;
        }
        if (u->next_ns < next)
            next = u->next_ns;
    }
    return next;
}

/* The loop sleeps in poll() at most 10 ms or until the next subscription is due, so
 * streams keep their rate and the dead-man its resolution without a timer thread. */
static void *control_main(void *arg)
{
    rtc_osc_control *c = arg;
    unsigned char buf[4096];
    while (!atomic_load_explicit(&c->stop, memory_order_acquire)) {
        int64_t now = rtc_time_now_ns(), next = stream(c, now);
        int wait_ms = (int)((next - now + 999999) / 1000000);
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        if (poll(&p, 1, wait_ms < 0 ? 0 : wait_ms > 10 ? 10 : wait_ms) > 0) {
            for (int i = 0; i < 64; i++) {
                socklen_t len = sizeof c->from;
                ssize_t n = recvfrom(c->fd, buf, sizeof buf, MSG_DONTWAIT,
                                     (struct sockaddr *)&c->from, &len);
                if (n < 0)
                    break;
                handle(c, buf, (size_t)n);
            }
        }
        rtc_session_poll(c->s, false);
        rtc__surface_lines_due(&c->lines, c->s, false);
    }
    rtc__surface_lines_due(&c->lines, c->s, true);
    return NULL;
}

/* Our own socket rather than lo_server: liblo 0.31 cannot bind one interface, and
 * loopback-only must be enforced by the kernel, not only by filtering senders. */
static int open_socket(rtc_osc_control *c, int port)
{
    uint16_t bound = (uint16_t)port;
    int rc = rtc_udp_bind(c->allow_remote ? INADDR_ANY : INADDR_LOOPBACK, &bound, false, &c->fd);
    if (rc != RTC_OK) {
        rtc_log(c->lg, RTC_LOG_ERROR, "control surface: cannot bind UDP %s:%d: %s",
                c->allow_remote ? "0.0.0.0" : "127.0.0.1", port, rtc_strerror(rc));
        return rc;
    }
    c->port = bound;
    return RTC_OK;
}

int rtc_osc_control_start(rtc_session *s, const rtc_osc_control_options *o,
                          rtc_osc_control **out)
{
    if (!s || !o || !out || o->port < 0 || o->port > 65535)
        return RTC_EINVAL;
    rtc_osc_control *c = calloc(1, sizeof *c);
    if (!c)
        return RTC_ENOMEM;
    if (o->token_len > sizeof c->token || (o->token_len && !o->token)) {
        free(c);
        return RTC_EINVAL;
    }
    bool short_token = o->token_len && o->token_len < RTC_OSC_CONTROL_MIN_TOKEN;
    if (short_token)
        rtc_log(o->lg, RTC_LOG_ERROR, "control surface: the token is %zu byte(s); at least "
                "%d are needed", o->token_len, RTC_OSC_CONTROL_MIN_TOKEN);
    else if (o->allow_remote && !o->token_len)
        rtc_log(o->lg, RTC_LOG_ERROR, "control surface: remote senders (--control-allow "
                "remote) need a token (--control-token FILE)");
    if (short_token || (o->allow_remote && !o->token_len)) {
        free(c);
        return RTC_EINVAL;
    }
    *c = (rtc_osc_control){.s = s, .lg = o->lg, .fd = -1, .allow_remote = o->allow_remote,
                           .token_len = o->token_len};
    rtc__surface_lines_init(&c->lines, "refused (or subscription changes)", "datagram(s)",
                            "sender");
    if (o->token_len)
        memcpy(c->token, o->token, o->token_len);
    int rc = open_socket(c, o->port);
    if (rc == RTC_OK)
        rc = rtc_rt_thread_start(&(rtc_rt_thread_opts){.cpu = -1, .name = "rtcosim-control"},
                                 control_main, c, o->lg, &c->thread);
    if (rc != RTC_OK) {
        if (c->fd >= 0)
            close(c->fd);
        free(c);
        return rc;
    }
    rtc_log(o->lg, RTC_LOG_INFO, "control surface: OSC on UDP %s:%d",
            o->allow_remote ? "0.0.0.0" : "127.0.0.1", c->port);
    *out = c;
    return RTC_OK;
}

int rtc_osc_control_port(const rtc_osc_control *c)
{
    return c->port;
}

uint64_t rtc_osc_control_messages(const rtc_osc_control *c)
{
    return atomic_load_explicit(&c->messages, memory_order_relaxed);
}

uint64_t rtc_osc_control_refused(const rtc_osc_control *c)
{
    return atomic_load_explicit(&c->refused, memory_order_relaxed);
}

void rtc_osc_control_stats_get(const rtc_osc_control *c, rtc_osc_control_stats *out)
{
    *out = (rtc_osc_control_stats){
        .messages = atomic_load_explicit(&c->messages, memory_order_relaxed),
        .refused = atomic_load_explicit(&c->refused, memory_order_relaxed),
        .wrong_tokens = atomic_load_explicit(&c->wrong_tokens, memory_order_relaxed)};
}

void rtc_osc_control_stop(rtc_osc_control *c)
{
    if (!c)
        return;
    atomic_store_explicit(&c->stop, true, memory_order_release);
    rtc_rt_thread_join(c->thread);
    close(c->fd);
    explicit_bzero(c->token, sizeof c->token);
    free(c);
}
