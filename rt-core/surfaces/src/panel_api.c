/*
 * The HTTP panel's JSON (rtcosim/panel.h): what the page learns once (/api/info), the live
 * frames it is streamed (/api/stream), and the commands it sends (/api/cmd).
 *
 * DESIGN: every command calls the same session functions as the OSC control surface
 * (osc_control.c), with the same origin encoding (IPv4 << 16 | port): the session checks
 * the capability, clamps, queues, records the command in inputs.bin and logs it in
 * events.log, so a command from the panel replays exactly as one from OSC. Values come
 * from the session's published snapshot (what results.csv holds, after every step) and
 * the event log's in-memory tail, never from the files.
 */
#include "panel_priv.h"

#include "rtcosim/status.h"

#include <math.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- text ---- */

static bool jb_grow(rtc__jbuf *b, size_t need)
{
    if (b->oom)
        return false;
    if (b->len + need + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + need + 1)
        cap *= 2;
    char *q = cap <= b->max ? realloc(b->p, cap) : NULL;
    if (!q) {
        b->oom = true;
        return false;
    }
    b->p = q;
    b->cap = cap;
    return true;
}

void rtc__jb_printf(rtc__jbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !jb_grow(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void rtc__jb_str(rtc__jbuf *b, const char *s)
{
    rtc__jb_printf(b, "\"");
    for (const unsigned char *c = (const unsigned char *)s; c && *c; c++) {
        if (*c == '"' || *c == '\\')
            rtc__jb_printf(b, "\\%c", *c);
        else if (*c < 0x20 || *c == 0x7f)
            rtc__jb_printf(b, "\\u%04x", *c);
        else if (jb_grow(b, 1))
            b->p[b->len++] = (char)*c;
    }
    rtc__jb_printf(b, "\"");
}

void rtc__jb_num(rtc__jbuf *b, double v)
{
    if (isfinite(v))
        rtc__jb_printf(b, "%.15g", v); /* a plot and a status line need no more */
    else
        rtc__jb_printf(b, "null");
}

/* ---- /api/info ---- */

static void info_var(rtc_panel *p, rtc__jbuf *b, const rtc_session_var *v)
{
    rtc__jb_printf(b, "{\"name\":");
    rtc__jb_str(b, v->name);
    rtc__jb_printf(b, ",\"min\":");
    rtc__jb_num(b, v->has_min ? v->min : NAN);
    rtc__jb_printf(b, ",\"max\":");
    rtc__jb_num(b, v->has_max ? v->max : NAN);
    rtc__jb_printf(b, ",\"rate\":");
    rtc__jb_num(b, v->has_rate ? v->rate : NAN);
    rtc__jb_printf(b, ",\"safe\":");
    rtc__jb_num(b, v->has_safe ? v->safe : NAN);
    rtc__jb_printf(b, ",\"column\":%ld}", rtc_session_column(p->s, v->name));
}

void rtc__panel_info(rtc_panel *p, rtc__jbuf *b)
{
    rtc_session *s = p->s;
    char caps[96];
    rtc_session_caps_text(rtc_session_caps(s), caps, sizeof caps);
    rtc__jb_printf(b, "{\"caps\":");
    rtc__jb_str(b, caps);
    rtc__jb_printf(b, ",\"has_io\":%s,\"tick_s\":", rtc_session_has_io(s) ? "true" : "false");
    rtc__jb_num(b, (double)s->tick_ns / 1e9);
    rtc__jb_printf(b, ",\"frame_hz\":%d,\"deadman_ms\":%.0f,\"columns\":[",
                   (int)(1000000000 / RTC__PANEL_FRAME_NS),
                   (double)rtc_session_deadman_ns(s) / 1e6);
    for (size_t i = 0; i < rtc_session_columns(s); i++) {
        rtc__jb_printf(b, i ? "," : "");
        rtc__jb_str(b, rtc_session_column_name(s, i));
    }
    rtc__jb_printf(b, "],\"vars\":[");
    rtc_session_var v;
    for (size_t i = 0; rtc_session_var_info(s, i, &v); i++) {
        rtc__jb_printf(b, i ? "," : "");
        info_var(p, b, &v);
    }
    rtc__jb_printf(b, "]}\n");
}

/* ---- frames ---- */

/* Every I/O component's health, as the OSC status's text says it, but one object each. */
static void frame_io(rtc_panel *p, rtc__jbuf *b)
{
    bool first = true;
    rtc__io_health h;
    rtc__jb_printf(b, "\"io\":[");
    for (size_t i = 0; i < rtc_system_unit_count(p->s->sys); i++) {
        if (!rtc__session_io_health(p->s, i, &h))
            continue;
        rtc__jb_printf(b, "%s{\"name\":", first ? "" : ",");
        rtc__jb_str(b, h.name);
        rtc__jb_printf(b, ",\"up\":%s,\"signals\":%zu,\"stale\":%u,\"reconnects\":%llu,"
                       "\"errors\":%llu}", h.up ? "true" : "false", h.signals, h.stale,
                       (unsigned long long)h.reconnects, (unsigned long long)h.errors);
        first = false;
    }
    rtc__jb_printf(b, "]");
}

/* The RTF over about a second of wall time: simulated over wall time, as the operator
 * sees the run keep up (or not). */
static void measure_rtf(rtc_panel *p, int64_t now, int64_t sim_ns)
{
    if (!p->rtf_wall_ns || sim_ns < p->rtf_sim_ns) {
        p->rtf_wall_ns = now;
        p->rtf_sim_ns = sim_ns;
        return;
    }
    if (now - p->rtf_wall_ns < 1000000000)
        return;
    p->rtf = (double)(sim_ns - p->rtf_sim_ns) / (double)(now - p->rtf_wall_ns);
    p->rtf_wall_ns = now;
    p->rtf_sim_ns = sim_ns;
}

void rtc__panel_frame(rtc_panel *p, int64_t now_ns)
{
    rtc_session *s = p->s;
    rtc__jbuf *b = &p->frame;
    b->len = 0;
    b->oom = false;
    rtc_exec_progress st = {0};
    if (s->ex)
        rtc_exec_progress_get(s->ex, &st);
    measure_rtf(p, now_ns, st.sim_time_ns);
    int64_t k = -1;
    double v = 0;
    if (rtc_session_columns(s))
        rtc_session_get_column(s, 0, &v, &k);
    rtc__jb_printf(b, "event: frame\ndata: {\"state\":\"%s\",\"sim_t\":", st.paused ? "paused"
                                                                                 : "running");
    rtc__jb_num(b, (double)(s->start_ns + st.sim_time_ns) / 1e9);
    rtc__jb_printf(b, ",\"tick\":%lld,\"overruns\":%llu,\"p99_us\":",
                   (long long)(st.sim_time_ns / s->tick_ns), (unsigned long long)st.overruns);
    rtc__jb_num(b, (double)st.wakeup_p99_ns / 1e3);
    rtc__jb_printf(b, ",\"rtf\":");
    rtc__jb_num(b, p->rtf);
    rtc__jb_printf(b, ",\"k\":%lld,\"t\":", (long long)k);
    rtc__jb_num(b, k >= 0 ? rtc_session_time_s(s, k) : NAN);
    rtc__jb_printf(b, ",\"v\":[");
    for (size_t i = 0; i < rtc_session_columns(s); i++) {
        int64_t kk;
        if (!rtc_session_get_column(s, i, &v, &kk))
            v = NAN;
        rtc__jb_printf(b, i ? "," : "");
        rtc__jb_num(b, v);
    }
    rtc__jb_printf(b, "],");
    frame_io(p, b);
    rtc__jb_printf(b, "}\n\n");
}

/* ---- streams ---- */

static void add_event(void *user, uint64_t seq, const char *line)
{
    rtc__jbuf *b = user;
    rtc__jb_printf(b, "event: log\nid: %llu\ndata: ", (unsigned long long)seq);
    rtc__jb_str(b, line);
    rtc__jb_printf(b, "\n\n");
}

/* The stream's next bytes: the newest frame once, then the event lines it has not had. A
 * new stream starts with the event log's tail (the last RTC_EVENTS_TAIL lines). */
void rtc__panel_stream_fill(rtc_panel *p, rtc__panel_stream *st)
{
    st->out.oom = false;
    if (st->frame_seq != p->frame_seq && p->frame.len && !p->frame.oom) {
        rtc__jb_printf(&st->out, "%.*s", (int)p->frame.len, p->frame.p);
        st->frame_seq = p->frame_seq;
    }
    st->ev_seq = rtc_events_tail(p->s->ev, st->ev_seq, add_event, &st->out);
}

/* ---- commands ---- */

static const char *arg(struct MHD_Connection *c, const char *key)
{
    return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);
}

/* A whole-string finite-or-not number (the session refuses the non-finite with a reason). */
static bool number(const char *s, double *out)
{
    char *end;
    if (!s || !*s || strlen(s) > 64)
        return false;
    *out = strtod(s, &end);
    return *end == '\0';
}

static unsigned status_of(int rc)
{
    return rc == RTC_OK ? 200 : rc == RTC_ENOTFOUND ? 404 : rc == RTC_ESTATE ? 403
           : rc == RTC_ELIMIT ? 503 : 400;
}

static int do_set(rtc_panel *p, struct MHD_Connection *c, int64_t origin, rtc__jbuf *b,
                  char *err, size_t cap)
{
    const char *name = arg(c, "name"), *value = arg(c, "value");
    double v, applied = 0;
    if (!name || !value) {
        snprintf(err, cap, "set: needs name=VARIABLE and value=NUMBER");
        return RTC_EINVAL;
    }
    if (!number(value, &v)) {
        snprintf(err, cap, "set %.200s: value '%.64s' is not a number", name, value);
        return RTC_EINVAL;
    }
    int rc = rtc_session_set(p->s, name, v, origin, &applied, err, cap);
    if (rc == RTC_OK) {
        rtc__jb_printf(b, "{\"ok\":true,\"op\":\"set\",\"name\":");
        rtc__jb_str(b, name);
        rtc__jb_printf(b, ",\"applied\":");
        rtc__jb_num(b, applied);
        rtc__jb_printf(b, ",\"clamped\":%s}\n", applied != v ? "true" : "false");
    }
    return rc;
}

static int do_step(rtc_panel *p, struct MHD_Connection *c, int64_t origin, char *err,
                   size_t cap)
{
    const char *n_text = arg(c, "n");
    double n = 1;
    if (n_text && !number(n_text, &n))
        n = NAN;
    if (!isfinite(n) || n != floor(n) || n < 1 || n > RTC_SESSION_MAX_STEPS) {
        snprintf(err, cap, "step: n must be a whole number in 1..%d", RTC_SESSION_MAX_STEPS);
        return RTC_EINVAL;
    }
    return rtc_session_control(p->s, RTC_SESSION_STEP, (long)n, origin, err, cap);
}

static int do_mark(rtc_panel *p, struct MHD_Connection *c, const char *who, char *err,
                   size_t cap)
{
    const char *text = arg(c, "text");
    if (!text || !*text || strlen(text) > 200) {
        snprintf(err, cap, "mark: needs text=TEXT (1..200 bytes)");
        return RTC_EINVAL;
    }
    int rc = rtc_session_check(p->s, RTC_SESSION_CAN_MARK, "mark", err, cap);
    if (rc == RTC_OK)
        rtc_session_mark(p->s, text, who);
    return rc;
}

static int dispatch(rtc_panel *p, struct MHD_Connection *c, const char *op, int64_t origin,
                    const char *who, rtc__jbuf *b, char *err, size_t cap)
{
    if (!strcmp(op, "set"))
        return do_set(p, c, origin, b, err, cap);
    if (!strcmp(op, "pause"))
        return rtc_session_control(p->s, RTC_SESSION_PAUSE, 0, origin, err, cap);
    if (!strcmp(op, "resume"))
        return rtc_session_control(p->s, RTC_SESSION_RESUME, 0, origin, err, cap);
    if (!strcmp(op, "stop"))
        return rtc_session_control(p->s, RTC_SESSION_STOP, 0, origin, err, cap);
    if (!strcmp(op, "step"))
        return do_step(p, c, origin, err, cap);
    if (!strcmp(op, "mark"))
        return do_mark(p, c, who, err, cap);
    snprintf(err, cap, "unknown op '%.32s' (set, pause, resume, step, stop, mark)", op);
    return RTC_EINVAL;
}

/* One command through the session's operator functions. A peer beyond loopback needs the
 * "remote" capability for anything but reading, as with OSC. */
unsigned rtc__panel_command(rtc_panel *p, struct MHD_Connection *c, int64_t origin,
                            const char *who, bool remote, rtc__jbuf *b)
{
    char err[512] = "";
    const char *op = arg(c, "op");
    op = op ? op : "";
    int rc = remote ? rtc_session_check(p->s, RTC_SESSION_CAN_REMOTE, op, err, sizeof err)
                    : RTC_OK;
    if (rc == RTC_OK) {
        rtc_session_poll(p->s, true); /* the operator is there: re-arm the dead-man */
        rc = dispatch(p, c, op, origin, who, b, err, sizeof err);
    }
    if (rc != RTC_OK) {
        rtc__panel_note_refusal(p, who, err);
        rtc__jb_printf(b, "{\"ok\":false,\"op\":");
        rtc__jb_str(b, op);
        rtc__jb_printf(b, ",\"error\":");
        rtc__jb_str(b, err);
        rtc__jb_printf(b, "}\n");
    } else if (!b->len) {
        rtc__jb_printf(b, "{\"ok\":true,\"op\":");
        rtc__jb_str(b, op);
        rtc__jb_printf(b, "}\n");
    }
    return status_of(rc);
}
