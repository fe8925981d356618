/*
 * The HTTP operator panel (rtcosim/panel.h): the server thread, the trust checks, routing
 * and the live streams. panel_api.c builds the JSON.
 *
 * DESIGN: libmicrohttpd runs in its external polling mode on one thread of our own
 * (rtc_rt_thread_start, SCHED_OTHER), not on threads of its own: every callback — the
 * requests, the stream readers, the connection notices — then runs on that one thread, so
 * the panel's state needs no lock, the session sees a single caller from the panel, and
 * the thread is created like every other thread of the engine. The loop waits at most
 * 10 ms in MHD_run_wait(), rebuilds the frame every 40 ms (25 a second) from the session's
 * lock-free snapshot, and resumes the streams that wait for it: a stream whose reader has
 * nothing to send suspends its connection (MHD_suspend_connection), so no stream spins.
 *
 * Bounds: per-connection memory (request headers beyond it are answered 431/413 by MHD),
 * an idle timeout, and our own header deadline: a connection that has not delivered its
 * request headers header_ms after it opened (or after its last request) is shut down from
 * this loop, so a peer that trickles bytes holds a slot for seconds, not for ever. At most
 * RTC__PANEL_MAX_STREAMS streams; at most commands_per_s commands in each second
 * (rtc_ratelimit_admit, all clients together). Requests carry no body: one that announces
 * one is refused before it is read.
 *
 * Admission: nobody is locked out by connections that merely wait. MHD's own limit is
 * twice ours; when a new connection makes ours (max_conn in all, max_per_peer of one
 * address, loopback included) overflow, one connection waiting for its headers is shut
 * down: of the newcomer's address when that is the limit hit; one that carried a wrong
 * token, then one never trusted (right token, or a request served), before a trusted one;
 * the oldest first; never one younger than 100 ms, accepted in this turn of the loop or
 * holding bytes MHD has not read (a request on its way in). When none may yield (a storm
 * of connects), the limit is made good at a later turn, below MHD's own.
 *
 * Trust, as early as possible: a "?token=" on the request line is checked when the line
 * arrives (MHD's URI callback) and marks the connection trusted, or first to yield; every
 * request is then checked first thing, before its Host, body or route: a peer blocked for
 * wrong tokens (surface_priv.h) is refused unread, a wrong or missing token is refused
 * and counted. Commands (POST) with an Origin header not naming this panel are refused:
 * a page of another site cannot drive the run through the operator's browser.
 */
#include "panel_priv.h"

#include "rtcosim/numparse.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <arpa/inet.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define MEMORY_LIMIT 16384 /* per connection: request line and headers must fit */

/* ---- answers ---- */

/* Headers every answer carries: nothing is cached, sniffed, framed or referred, and the
 * page runs only its own scripts. */
static void common_headers(struct MHD_Response *r, const char *mime)
{
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, mime);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                            "frame-ancestors 'none'");
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *mime,
                              const void *data, size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)data, mode);
    if (!r)
        return MHD_NO;
    common_headers(r, mime);
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result answer_json(struct MHD_Connection *c, unsigned status,
                                   rtc__panel_buf *b)
{
    enum MHD_Result ok = b->oom ? answer(c, 500, "text/plain", "out of memory\n", 14,
                                         MHD_RESPMEM_PERSISTENT)
                                : answer(c, status, "application/json", b->p, b->len,
                                         MHD_RESPMEM_MUST_COPY);
    free(b->p);
    return ok;
}

void rtc__panel_note_refusal(rtc_panel *p, const char *who, const char *why)
{
    atomic_fetch_add_explicit(&p->refused, 1, memory_order_relaxed);
    if (rtc__surface_lines_take(&p->lines, who))
        rtc_session_note(p->s, who, "refused: %s", why);
}

/* A refusal: the reason goes back to the client (JSON) and, rate-limited, to events.log. */
static enum MHD_Result refuse(rtc_panel *p, struct MHD_Connection *c, const char *who,
                              unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static enum MHD_Result refuse(rtc_panel *p, struct MHD_Connection *c, const char *who,
                              unsigned status, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    rtc__panel_note_refusal(p, who, why);
    rtc__panel_buf b = {.max = 4096};
    rtc__panel_buf_line(&b, rtc__panel_reply(false, NULL, why));
    return answer_json(c, status, &b);
}

/* ---- streams ---- */

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    rtc__panel_stream *st = cls;
    if (st->closing)
        return MHD_CONTENT_READER_END_OF_STREAM;
    if (st->off == st->out.len) {
        st->off = st->out.len = 0;
        rtc__panel_stream_fill(st->p, st);
    }
    if (st->out.oom)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    if (st->out.len == 0) { /* nothing new: wait for the next frame, not in a spin */
        MHD_suspend_connection(st->conn);
        st->suspended = true;
        return 0;
    }
    size_t n = st->out.len - st->off < max ? st->out.len - st->off : max;
    memcpy(buf, st->out.p + st->off, n);
    st->off += n;
    return (ssize_t)n;
}

static void stream_free(void *cls)
{
    rtc__panel_stream *st = cls;
    free(st->out.p);
    *st = (rtc__panel_stream){0};
}

static enum MHD_Result open_stream(rtc_panel *p, struct MHD_Connection *c, const char *who)
{
    rtc__panel_stream *st = NULL;
    for (size_t i = 0; i < RTC__PANEL_MAX_STREAMS && !st; i++)
        st = p->streams[i].used ? NULL : &p->streams[i];
    if (!st)
        return refuse(p, c, who, 503, "%d live streams already (close a panel tab)",
                      RTC__PANEL_MAX_STREAMS);
    *st = (rtc__panel_stream){.p = p, .used = true, .conn = c, .out = {.max = 1 << 20}};
    /* a browser reconnecting names the last event it had: no line or point twice */
    rtc__panel_stream_resume(p, st, MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                                "Last-Event-ID"));
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, stream_read, st,
                                          stream_free);
    if (!r) {
        st->used = false;
        return MHD_NO;
    }
    common_headers(r, "text/event-stream");
    enum MHD_Result ok = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r); /* stream_free runs when the connection is done with it */
    return ok;
}

/* A new frame is out: every waiting stream is resumed (or, at the end, told to close). */
static void wake_streams(rtc_panel *p, bool closing)
{
    for (size_t i = 0; i < RTC__PANEL_MAX_STREAMS; i++) {
        rtc__panel_stream *st = &p->streams[i];
        st->closing = st->closing || (st->used && closing);
        if (st->used && st->suspended) {
            st->suspended = false;
            MHD_resume_connection(st->conn);
        }
    }
}

static bool any_stream(const rtc_panel *p)
{
    for (size_t i = 0; i < RTC__PANEL_MAX_STREAMS; i++)
        if (p->streams[i].used)
            return true;
    return false;
}

/* ---- trust ---- */

/* Constant time in the secret (surface_priv.h). */
static bool token_ok(const rtc_panel *p, const char *sent)
{
    return rtc__surface_token_ok(p->token, p->token_len, sent, RTC_PANEL_MAX_TOKEN + 1);
}

/* Without a token the page is reachable only as http://127.0.0.1:PORT or
 * http://localhost:PORT: a Host naming anything else is a rebinding attempt. */
static bool host_ok(const rtc_panel *p, const char *host)
{
    if (p->token_len)
        return true;
    if (!host)
        return false;
    char a[64], b[64];
    snprintf(a, sizeof a, "127.0.0.1:%d", p->port);
    snprintf(b, sizeof b, "localhost:%d", p->port);
    return !strcmp(host, a) || !strcmp(host, b);
}

/* The connection's bookkeeping slot (admission, slowloris deadline). */
static rtc__panel_conn *conn_slot(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

static int64_t peer(struct MHD_Connection *c, bool *remote)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    *remote = true;
    if (!ci || !ci->client_addr || ci->client_addr->sa_family != AF_INET)
        return 0;
    const struct sockaddr_in *a = (const struct sockaddr_in *)ci->client_addr;
    uint32_t ip = ntohl(a->sin_addr.s_addr);
    *remote = (ip >> 24) != 127;
    return (int64_t)ip << 16 | ntohs(a->sin_port);
}

/* ---- routing ---- */

static const rtc__panel_asset *asset(const char *url)
{
    if (!strcmp(url, "/"))
        url = "/index.html";
    for (size_t i = 0; i < rtc__panel_n_assets; i++)
        if (!strcmp(rtc__panel_assets[i].path, url))
            return &rtc__panel_assets[i];
    return NULL;
}

/* A browser names the page a POST comes from (Origin): it must be this panel's own,
 * http://HOST with the request's Host. A client that sends none (curl, scripts) is not a
 * browser driven by another site. */
static bool same_origin(struct MHD_Connection *c, const char **sent)
{
    const char *o = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    *sent = o;
    return !o || (h && !strncmp(o, "http://", 7) && !strcmp(o + 7, h));
}

/* A command: POST, the panel's header, its own origin, within the rate (all clients
 * together). */
static enum MHD_Result command(rtc_panel *p, struct MHD_Connection *c, int64_t origin,
                               const char *who, bool remote)
{
    const char *from;
    if (!same_origin(c, &from)) {
        atomic_fetch_add_explicit(&p->cross_origin, 1, memory_order_relaxed);
        return refuse(p, c, who, 403, "cross-origin command refused (Origin %.200s is not "
                      "this panel)", from);
    }
    if (!MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Rtcosim-Panel"))
        return refuse(p, c, who, 403, "commands need the X-Rtcosim-Panel header (sent by "
                      "the panel page; a cross-site form cannot send it)");
    if (!rtc_ratelimit_admit(&p->commands, rtc_time_now_ns()))
        return refuse(p, c, who, 429, "too many commands (at most %u a second)",
                      p->commands.burst);
    rtc__panel_buf b = {.max = 4096};
    unsigned status = rtc__panel_command(p, c, origin, who, remote, &b);
    return answer_json(c, status, &b);
}

static enum MHD_Result route(rtc_panel *p, struct MHD_Connection *c, const char *url,
                             const char *method, int64_t origin, const char *who,
                             bool remote)
{
    bool get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    bool post = !strcmp(method, "POST");
    const rtc__panel_asset *a = asset(url);
    if (get && a)
        return answer(c, 200, a->mime, a->data, a->len, MHD_RESPMEM_PERSISTENT);
    if (get && !strcmp(url, "/favicon.ico")) /* asked by every browser: no refusal line */
        return answer(c, 204, "image/x-icon", "", 0, MHD_RESPMEM_PERSISTENT);
    if (get && !strcmp(url, "/api/info")) {
        rtc__panel_buf b = {.max = 1 << 20};
        rtc__panel_info(p, &b);
        return answer_json(c, 200, &b);
    }
    if (get && !strcmp(url, "/api/stream"))
        return open_stream(p, c, who);
    if (post && !strcmp(url, "/api/cmd"))
        return command(p, c, origin, who, remote);
    if (a || !strcmp(url, "/api/info") || !strcmp(url, "/api/stream") ||
        !strcmp(url, "/api/cmd"))
        return refuse(p, c, who, 405, "%.16s %.200s: method not allowed", method, url);
    return refuse(p, c, who, 404, "%.16s %.200s: no such page", method, url);
}

typedef enum { TOKEN_OK, TOKEN_WRONG, TOKEN_BLOCKED } token_verdict;

/* The request's token (header, else ?token=), checked in constant time; the outcome
 * counts for its peer's throttle. While the peer is blocked it is not looked at. */
static token_verdict check_token(rtc_panel *p, struct MHD_Connection *c,
                                 rtc__panel_conn *slot, uint32_t addr)
{
    int64_t now = rtc_time_now_ns();
    if (rtc__surface_blocked_ns(&p->guard, addr, now))
        return TOKEN_BLOCKED;
    const char *tok = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Rtcosim-Token");
    if (!tok)
        tok = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    bool ok = token_ok(p, tok);
    if (tok && *tok) /* a guess; a page opened without one is not */
        rtc__surface_token_result(&p->guard, addr, ok, now);
    if (slot && !ok)
        slot->wrong = true;
    return ok ? TOKEN_OK : TOKEN_WRONG;
}

/* 401 for a wrong or missing token (saying so when it blocks the peer from now on), 429
 * while the peer is blocked (its token was not looked at). */
static enum MHD_Result refuse_token(rtc_panel *p, struct MHD_Connection *c, const char *who,
                                   token_verdict v, uint32_t addr)
{
    int64_t wait = rtc__surface_blocked_ns(&p->guard, addr, rtc_time_now_ns());
    double wait_s = ceil((double)wait / 1e9);
    if (v == TOKEN_BLOCKED) {
        atomic_fetch_add_explicit(&p->throttled, 1, memory_order_relaxed);
        return refuse(p, c, who, 429, "too many wrong tokens from this address: try again "
                      "in %.0f s", wait_s);
    }
    atomic_fetch_add_explicit(&p->wrong_tokens, 1, memory_order_relaxed);
    if (wait)
        return refuse(p, c, who, 401, "wrong token (X-Rtcosim-Token header or ?token=); too "
                      "many from this address: refused unread for %.0f s", wait_s);
    return refuse(p, c, who, 401, "missing or wrong token (X-Rtcosim-Token header or "
                  "?token=)");
}

/* Every request is answered on its first call, with its headers only: the panel takes no
 * request bodies, so one that announces a body is refused before any of it is read (MHD
 * then closes the connection). */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size, void **ctx)
{
    (void)version, (void)upload_data;
    rtc_panel *p = cls;
    if (*ctx) { /* a body arrived after all (announced as 0): discard it */
        *upload_size = 0;
        return MHD_YES;
    }
    *ctx = p;
    rtc__panel_conn *slot = conn_slot(c);
    if (slot)
        slot->in_request = true;
    atomic_fetch_add_explicit(&p->requests, 1, memory_order_relaxed);
    bool remote;
    int64_t origin = peer(c, &remote);
    char who[96], addr[64];
    rtc_session_origin_text(origin, addr, sizeof addr);
    snprintf(who, sizeof who, "panel %s", addr);
    token_verdict tv = p->token_len ? check_token(p, c, slot, (uint32_t)(origin >> 16))
                                    : TOKEN_OK;
    if (tv != TOKEN_OK)
        return refuse_token(p, c, who, tv, (uint32_t)(origin >> 16));
    if (!host_ok(p, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host")))
        return refuse(p, c, who, 421, "Host must be 127.0.0.1:%d or localhost:%d", p->port,
                      p->port);
    if (slot)
        slot->trusted = true;
    const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    if ((len && strcmp(len, "0")) ||
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding"))
        return refuse(p, c, who, 413, "requests to the panel carry no body");
    return route(p, c, url, method, origin, who, remote);
}

/* "%HH" decoding of the path and the arguments, except that a byte that would end the C
 * string early (%00) or a control character stays escaped: "/index.html%00.js" must not
 * become "/index.html", nor a mark text carry a terminal escape. */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls, (void)c;
    char *out = s;
    for (const char *in = s; *in; in++) {
        char hex[3] = {in[0] == '%' ? in[1] : '\0', in[1] ? in[2] : '\0', '\0'};
        uint8_t v;
        size_t n;
        if (hex[0] && rtc_hex_decode(hex, &v, 1, &n) == RTC_OK && n == 1 && v >= 0x20 &&
            v != 0x7f) {
            *out++ = (char)v;
            in += 2;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
    return (size_t)(out - s);
}

/* ---- connections ---- */

/* Whether k yields before v (NULL: none chosen yet) when a newcomer needs room: a wrong
 * token first, then never trusted, then trusted; the oldest first. */
static bool yields_before(const rtc__panel_conn *k, const rtc__panel_conn *v)
{
    int rk = k->wrong ? 0 : k->trusted ? 2 : 1, rv = !v ? 3 : v->wrong ? 0 : v->trusted ? 2 : 1;
    return rk != rv ? rk < rv : k->since_ns < v->since_ns;
}

/* Bytes MHD has not read yet wait on k's socket: a request that arrived whole and is
 * about to be handled, not a slowloris (whose trickle MHD reads as it comes). */
static bool unread(rtc__panel_conn *k)
{
    char c;
    return recv(k->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

/* A live connection waiting for its headers (of @p addr when @p only) that may yield to
 * the newcomer @p nk; NULL when none. One younger than RTC__PANEL_GRACE_NS, accepted in
 * this turn, or with bytes MHD has not read yet has not had its chance: it is skipped (so
 * a client is never pushed out between its connect and the server reading its request,
 * however fast others connect). */
static rtc__panel_conn *victim(rtc_panel *p, const rtc__panel_conn *nk, bool only,
                               uint32_t addr)
{
    int64_t young = rtc_time_now_ns() - RTC__PANEL_GRACE_NS;
    for (;;) {
        rtc__panel_conn *v = NULL;
        for (size_t i = 0; i < p->n_slots; i++) {
            rtc__panel_conn *k = &p->conns[i];
            if (k->used && k->fd >= 0 && k != nk && !k->in_request && k->turn != p->turn &&
                k->busy_turn != p->turn && k->since_ns <= young &&
                (!only || k->addr == addr) && yields_before(k, v))
                v = k;
        }
        if (!v || !unread(v))
            return v;
        v->busy_turn = p->turn; /* not again in this turn */
    }
}

/* Live connections (of @p addr when @p only). */
static unsigned live(const rtc_panel *p, bool only, uint32_t addr)
{
    unsigned n = 0;
    for (size_t i = 0; i < p->n_slots; i++)
        n += p->conns[i].used && p->conns[i].fd >= 0 && (!only || p->conns[i].addr == addr);
    return n;
}

/* Shut down @p v (MHD closes it at its next turn); false when there is none. */
static bool evict(rtc_panel *p, rtc__panel_conn *v)
{
    if (!v)
        return false;
    shutdown(v->fd, SHUT_RDWR);
    v->fd = -1;
    atomic_fetch_add_explicit(&p->evicted, 1, memory_order_relaxed);
    return true;
}

/* The newcomer @p nk made a limit overflow: one connection waiting for its headers is
 * shut down. When none may yield now (a storm of connects), the limit stays overflowed
 * until the next turn of the loop (enforce()); MHD's own limit bounds it meanwhile. */
static void admit(rtc_panel *p, rtc__panel_conn *nk)
{
    bool peer_full = live(p, true, nk->addr) > p->max_per_peer;
    if (!peer_full && live(p, false, 0) <= p->max_conn)
        return;
    if (!evict(p, victim(p, nk, peer_full, nk->addr)))
        p->overflow = true;
}

/* A turn later, the limits a storm overflowed are made good: the connections it brought
 * have had their turn to be read. */
static void enforce(rtc_panel *p)
{
    if (!p->overflow)
        return;
    p->overflow = false;
    for (size_t i = 0; i < p->n_slots; i++) {
        const rtc__panel_conn *k = &p->conns[i];
        while (k->used && k->fd >= 0 && live(p, true, k->addr) > p->max_per_peer)
            if (!evict(p, victim(p, NULL, true, k->addr))) {
                p->overflow = true; /* still: the next turn again */
                break;
            }
    }
    while (live(p, false, 0) > p->max_conn)
        if (!evict(p, victim(p, NULL, false, 0))) {
            p->overflow = true;
            break;
        }
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_ctx,
                          enum MHD_ConnectionNotificationCode code)
{
    rtc_panel *p = cls;
    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        rtc__panel_conn *slot = *socket_ctx;
        if (slot)
            slot->used = false;
        return;
    }
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    bool remote;
    uint32_t addr = (uint32_t)(peer(c, &remote) >> 16);
    for (size_t i = 0; ci && i < p->n_slots; i++)
        if (!p->conns[i].used) {
            p->conns[i] = (rtc__panel_conn){.fd = ci->connect_fd, .addr = addr, .used = true,
                                            .turn = p->turn, .since_ns = rtc_time_now_ns()};
            *socket_ctx = &p->conns[i];
            admit(p, &p->conns[i]);
            return;
        }
}

/* The request line has arrived (its headers not yet): a "?token=" on it is checked now,
 * so a connection with the right one is trusted, and one with a wrong one the first to
 * yield, before it has sent a single header. Returns NULL (no request context). */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    rtc_panel *p = cls;
    rtc__panel_conn *slot = conn_slot(c);
    const char *q = strchr(uri, '?');
    if (!p->token_len || !slot || !q)
        return NULL;
    for (q++; *q; q += strcspn(q, "&"), q += *q == '&') {
        if (strncmp(q, "token=", 6))
            continue;
        char tok[3 * RTC_PANEL_MAX_TOKEN + 8];
        snprintf(tok, sizeof tok, "%.*s", (int)strcspn(q + 6, "&"), q + 6);
        unescape(NULL, c, tok);
        bool ok = token_ok(p, tok);
        slot->trusted = slot->trusted || ok;
        slot->wrong = !ok;
    }
    return NULL;
}

/* A request is over: the connection's next request headers have header_ms again. */
static void on_completed(void *cls, struct MHD_Connection *c, void **ctx,
                         enum MHD_RequestTerminationCode code)
{
    (void)cls, (void)ctx, (void)code;
    rtc__panel_conn *slot = conn_slot(c);
    if (slot) {
        slot->in_request = false;
        slot->since_ns = rtc_time_now_ns();
    }
}

/* Slowloris: connections whose request headers are late are shut down; MHD sees the end
 * of the stream at its next turn and closes them itself (the descriptor stays MHD's). */
static void reap_late(rtc_panel *p, int64_t now)
{
    for (size_t i = 0; i < p->n_slots; i++) {
        rtc__panel_conn *k = &p->conns[i];
        if (k->used && !k->in_request && k->fd >= 0 && now - k->since_ns > p->header_ns) {
            shutdown(k->fd, SHUT_RDWR);
            k->fd = -1; /* once */
            atomic_fetch_add_explicit(&p->header_timeouts, 1, memory_order_relaxed);
        }
    }
}

static void *panel_main(void *arg)
{
    rtc_panel *p = arg;
    p->next_frame_ns = rtc_time_now_ns();
    while (!atomic_load_explicit(&p->stop, memory_order_acquire)) {
        p->turn++;
        enforce(p);
        if (MHD_run_wait(p->d, 10) != MHD_YES) { /* never a spin, whatever MHD says */
            struct timespec nap = {0, 10000000};
            nanosleep(&nap, NULL);
        }
        int64_t now = rtc_time_now_ns();
        if (now >= p->next_frame_ns) {
            rtc_session_poll(p->s, false); /* the dead-man, also without OSC */
            /* watched or not: the history and the RTF go on, and a page that opens
             * gets this frame, never one from when the last page left */
            rtc__panel_frame(p, now);
            p->frame_seq++;
            wake_streams(p, false);
            p->next_frame_ns += RTC__PANEL_FRAME_NS;
            if (p->next_frame_ns <= now) /* fell behind: no burst of frames */
                p->next_frame_ns = now + RTC__PANEL_FRAME_NS;
        }
        reap_late(p, now);
        rtc__surface_lines_due(&p->lines, p->s, false);
    }
    /* streams end cleanly: MHD must not be stopped with suspended connections */
    wake_streams(p, true);
    for (int i = 0; i < 100 && any_stream(p); i++)
        MHD_run_wait(p->d, 10);
    rtc__surface_lines_due(&p->lines, p->s, true);
    return NULL;
}

/* ---- start and stop ---- */

static int parse_address(const rtc_panel_options *o, rtc_panel *p)
{
    struct in_addr a;
    const char *addr = o->address ? o->address : "127.0.0.1";
    if (inet_pton(AF_INET, addr, &a) != 1) {
        rtc_log(o->lg, RTC_LOG_ERROR, "--http-address %s: not an IPv4 address", addr);
        return RTC_EINVAL;
    }
    p->bind_ip = ntohl(a.s_addr);
    if ((p->bind_ip >> 24) != 127 && !o->token_len) {
        rtc_log(o->lg, RTC_LOG_ERROR, "--http-address %s: a panel reachable from other hosts "
                "needs a token (--http-token FILE)", addr);
        return RTC_EINVAL;
    }
    return RTC_OK;
}

/* A token short enough to guess is no guard: refused, not started with. */
static int check_token_length(const rtc_panel_options *o)
{
    if (!o->token_len || o->token_len >= RTC_PANEL_MIN_TOKEN)
        return RTC_OK;
    rtc_log(o->lg, RTC_LOG_ERROR, "panel: the token is %zu byte(s); at least %d are needed "
            "(e.g. head -c 24 /dev/urandom | base64 > FILE)", o->token_len, RTC_PANEL_MIN_TOKEN);
    return RTC_EINVAL;
}

static int open_daemon(rtc_panel *p, const rtc_panel_options *o)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)o->port),
                             .sin_addr.s_addr = htonl(p->bind_ip)};
    /* MHD refuses beyond n_slots itself; our limits (admit) make room below it */
    p->d = MHD_start_daemon(
        MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME, (uint16_t)o->port, NULL, NULL, on_request, p,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
        MHD_OPTION_CONNECTION_LIMIT, p->n_slots,
        MHD_OPTION_CONNECTION_TIMEOUT, p->timeout_s,
        MHD_OPTION_URI_LOG_CALLBACK, on_uri, p,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MEMORY_LIMIT,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, p,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, p,
        MHD_OPTION_UNESCAPE_CALLBACK, unescape, p, MHD_OPTION_END);
    const union MHD_DaemonInfo *di =
        p->d ? MHD_get_daemon_info(p->d, MHD_DAEMON_INFO_BIND_PORT) : NULL;
    if (!di) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
        rtc_log(o->lg, RTC_LOG_ERROR, "panel: cannot listen on http://%s:%d (port in use, "
                "or the address is not this host's)", ip, o->port);
        return RTC_EIO;
    }
    p->port = di->port;
    return RTC_OK;
}

int rtc_panel_start(rtc_session *s, const rtc_panel_options *o, rtc_panel **out)
{
    if (!s || !o || !out || o->port < 0 || o->port > 65535 ||
        o->token_len > RTC_PANEL_MAX_TOKEN || (o->token_len && !o->token))
        return RTC_EINVAL;
    rtc_panel *p = calloc(1, sizeof *p);
    if (!p)
        return RTC_ENOMEM;
    p->s = s;
    p->token_len = o->token_len;
    if (o->token_len)
        memcpy(p->token, o->token, o->token_len);
    p->max_conn = o->max_connections ? o->max_connections : 32;
    p->max_per_peer = o->max_per_peer ? o->max_per_peer
                                      : p->max_conn / 2 ? p->max_conn / 2 : 1;
    p->n_slots = 2 * p->max_conn;
    p->timeout_s = o->timeout_s ? o->timeout_s : 10;
    p->header_ns = (int64_t)(o->header_ms ? o->header_ms : 2000) * 1000000;
    p->commands = (rtc_ratelimit){.window_ns = 1000000000,
                                  .burst = o->commands_per_s ? o->commands_per_s : 50};
    rtc__surface_lines_init(&p->lines, "refused", "panel request(s)", "client");
    p->frame.max = 1 << 20;
    p->epoch = (uint64_t)rtc_time_now_ns();
    p->conns = calloc(p->n_slots, sizeof *p->conns);
    int rc = p->conns ? check_token_length(o) : RTC_ENOMEM;
    if (rc == RTC_OK)
        rc = rtc__panel_hist_init(&p->hist, s);
    if (rc == RTC_OK)
        rc = parse_address(o, p);
    if (rc == RTC_OK)
        rc = open_daemon(p, o);
    rtc_rt_thread_opts to = {.priority = 0, .cpu = -1, .name = "rtc-panel"};
    if (rc == RTC_OK)
        rc = rtc_rt_thread_start(&to, panel_main, p, o->lg, &p->thread);
    if (rc != RTC_OK) {
        if (p->d)
            MHD_stop_daemon(p->d);
        rtc__panel_hist_clear(&p->hist);
        free(p->conns);
        explicit_bzero(p->token, sizeof p->token);
        free(p);
        return rc;
    }
    *out = p;
    return RTC_OK;
}

int rtc_panel_port(const rtc_panel *p)
{
    return p->port;
}

uint64_t rtc_panel_requests(const rtc_panel *p)
{
    return atomic_load_explicit(&p->requests, memory_order_relaxed);
}

uint64_t rtc_panel_refused(const rtc_panel *p)
{
    return atomic_load_explicit(&p->refused, memory_order_relaxed);
}

void rtc_panel_stats_get(const rtc_panel *p, rtc_panel_stats *out)
{
    *out = (rtc_panel_stats){
        .requests = atomic_load_explicit(&p->requests, memory_order_relaxed),
        .refused = atomic_load_explicit(&p->refused, memory_order_relaxed),
        .wrong_tokens = atomic_load_explicit(&p->wrong_tokens, memory_order_relaxed),
        .throttled = atomic_load_explicit(&p->throttled, memory_order_relaxed),
        .cross_origin = atomic_load_explicit(&p->cross_origin, memory_order_relaxed),
        .header_timeouts = atomic_load_explicit(&p->header_timeouts, memory_order_relaxed),
        .evicted = atomic_load_explicit(&p->evicted, memory_order_relaxed)};
}

void rtc_panel_stop(rtc_panel *p)
{
    if (!p)
        return;
    atomic_store_explicit(&p->stop, true, memory_order_release);
    rtc_rt_thread_join(p->thread);
    MHD_stop_daemon(p->d);
    free(p->frame.p);
    rtc__panel_hist_clear(&p->hist);
    free(p->conns);
    explicit_bzero(p->token, sizeof p->token);
    free(p);
}
