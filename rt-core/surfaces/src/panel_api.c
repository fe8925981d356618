/*
 * The HTTP panel's JSON (rtcosim/panel.h): what the page learns once (/api/info), the live
 * frames it is streamed (/api/stream), and the commands it sends (/api/cmd).
 *
 * DESIGN: every command calls the same session functions as the OSC control surface
 * (osc_control.c), with the same origin encoding (IPv4 << 16 | port): the session checks
 * the capability, clamps, queues, records the command in inputs.bin and logs it in
 * events.log, so a command from the panel replays exactly as one from OSC. Values come
 * from the session's published snapshot (what results.csv holds, after every step) and
 * the event log's in-memory tail, never from the files. The JSON is built with jansson
 * (base's json_util.h: strings always valid UTF-8 and escaped, reals with 17 significant
 * digits or null when not finite) and written compact, one document per line.
 */
#include "panel_priv.h"

#include "rtcosim/numparse.h"
#include "rtcosim/status.h"

#include <math.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- bytes ---- */

void rtc__panel_buf_add(rtc__panel_buf *b, const char *bytes, size_t n)
{
    if (b->oom || n == 0)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n)
            cap *= 2;
        char *q = cap <= b->max ? realloc(b->p, cap) : NULL;
        if (!q) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, bytes, n);
    b->len += n;
}

static int dump_to_buf(const char *bytes, size_t n, void *user)
{
    rtc__panel_buf *b = user;
    rtc__panel_buf_add(b, bytes, n);
    return b->oom ? -1 : 0;
}

void rtc__panel_buf_json(rtc__panel_buf *b, json_t *doc)
{
    if (!doc || json_dump_callback(doc, dump_to_buf, b, RTC__PANEL_JSON_FLAGS) != 0)
        b->oom = true;
    json_decref(doc);
}

static void add_text(rtc__panel_buf *b, const char *text)
{
    rtc__panel_buf_add(b, text, strlen(text));
}

/* @p doc when it was built whole (@p bad 0), else NULL (and @p doc released). */
static json_t *whole(json_t *doc, int bad)
{
    if (!bad)
        return doc;
    json_decref(doc);
    return NULL;
}

void rtc__panel_buf_line(rtc__panel_buf *b, json_t *doc)
{
    rtc__panel_buf_json(b, doc);
    add_text(b, "\n");
}

json_t *rtc__panel_reply(bool ok, const char *op, const char *error)
{
    json_t *o = json_object();
    int bad = json_object_set_new(o, "ok", json_boolean(ok));
    if (op)
        bad |= json_object_set_new(o, "op", rtc__json_str(op));
    if (error)
        bad |= json_object_set_new(o, "error", rtc__json_str(error));
    return whole(o, bad);
}

/* ---- /api/info ---- */

/* A unit as the page shows it: the string, or null when the variable has none. */
static json_t *unit_json(const char *unit)
{
    return unit && *unit ? rtc__json_str(unit) : json_null();
}

static json_t *info_var(rtc_panel *p, size_t i, const rtc_session_var *v)
{
    json_t *o = json_object();
    int bad = json_object_set_new(o, "name", rtc__json_str(v->name));
    bad |= json_object_set_new(o, "unit", unit_json(v->unit));
    bad |= json_object_set_new(o, "min", rtc__json_real(v->has_min ? v->min : NAN));
    bad |= json_object_set_new(o, "max", rtc__json_real(v->has_max ? v->max : NAN));
    bad |= json_object_set_new(o, "rate", rtc__json_real(v->has_rate ? v->rate : NAN));
    bad |= json_object_set_new(o, "safe", rtc__json_real(v->has_safe ? v->safe : NAN));
    bad |= json_object_set_new(o, "column", json_integer(rtc_session_column(p->s, v->name)));
    /* what the page shows before its first frame: the newest snapshot's */
    bad |= json_object_set_new(o, "value", rtc__json_real(p->hist.xval[i]));
    bad |= json_object_set_new(o, "target", rtc__json_real(p->hist.xtgt[i]));
    return whole(o, bad);
}

/* Every I/O component with its signals per direction: the page lists them at once, and
 * the frames then say how each direction is doing. */
static json_t *info_io(rtc_panel *p)
{
    json_t *io = json_array();
    rtc_session_io h;
    rtc_session_link_dir in, out;
    for (size_t i = 0; io && i < rtc_session_io_count(p->s); i++) {
        if (!rtc_session_io_info(p->s, i, &h) || !rtc_session_io_dirs(p->s, i, &in, &out))
            continue;
        json_t *o = json_object();
        int bad = json_object_set_new(o, "name", rtc__json_str(h.name));
        bad |= json_object_set_new(o, "in", rtc__json_uint(in.signals));
        bad |= json_object_set_new(o, "out", rtc__json_uint(out.signals));
        if (json_array_append_new(io, whole(o, bad))) /* releases o when it fails */
            return whole(io, 1);
    }
    return io;
}

/* The recorded columns' names and units, the exposed variables and the I/O components
 * into @p doc; nonzero when out of memory. */
static int info_lists(rtc_panel *p, json_t *doc)
{
    rtc_session *s = p->s;
    json_t *cols = json_array(), *units = json_array(), *vars = json_array();
    int bad = json_object_set_new(doc, "columns", cols);
    bad |= json_object_set_new(doc, "units", units);
    bad |= json_object_set_new(doc, "vars", vars);
    bad |= json_object_set_new(doc, "io", info_io(p));
    for (size_t i = 0; i < rtc_session_columns(s) && !bad; i++) {
        bad = json_array_append_new(cols, rtc__json_str(rtc_session_column_name(s, i)));
        bad |= json_array_append_new(units, unit_json(rtc_session_column_unit(s, i)));
    }
    rtc_session_var v;
    for (size_t i = 0; i < rtc_session_vars(s) && !bad; i++)
        bad = !rtc_session_var_info(s, i, &v) || json_array_append_new(vars, info_var(p, i, &v));
    return bad;
}

void rtc__panel_info(rtc_panel *p, rtc__panel_buf *b)
{
    rtc_session *s = p->s;
    char caps[96];
    rtc_session_caps_text(rtc_session_caps(s), caps, sizeof caps);
    json_t *doc = json_object();
    int bad = json_object_set_new(doc, "caps", rtc__json_str(caps));
    bad |= json_object_set_new(doc, "has_io", json_boolean(rtc_session_has_io(s)));
    bad |= json_object_set_new(doc, "tick_s",
                               rtc__json_real((double)rtc_session_tick_ns(s) / 1e9));
    bad |= json_object_set_new(doc, "frame_hz", json_integer(1000000000 / RTC__PANEL_FRAME_NS));
    bad |= json_object_set_new(doc, "history_s",
                               rtc__json_real((double)p->hist.cap * RTC__PANEL_FRAME_NS / 1e9));
    bad |= json_object_set_new(doc, "deadman_ms",
                               json_integer(llround((double)rtc_session_deadman_ns(s) / 1e6)));
    bad |= info_lists(p, doc);
    rtc__panel_buf_line(b, whole(doc, bad));
}

/* ---- frames ---- */

/* A link's outages as summary.json "links" has them: count (the one under way included),
 * total and longest in seconds. */
static json_t *outages_json(const rtc_session_io *h)
{
    json_t *o = json_object();
    int bad = json_object_set_new(o, "count", rtc__json_uint(h->outages));
    bad |= json_object_set_new(o, "total_s", rtc__json_real(h->outage_total_s));
    bad |= json_object_set_new(o, "longest_s", rtc__json_real(h->outage_longest_s));
    return whole(o, bad);
}

/* Every I/O component's health, as the OSC status's text says it, but one object each:
 * its link's state and outages are the link contract's (summary.json "links"). */
static json_t *frame_io(rtc_panel *p)
{
    json_t *io = json_array();
    rtc_session_io h;
    for (size_t i = 0; io && i < rtc_session_io_count(p->s); i++) {
        if (!rtc_session_io_info(p->s, i, &h))
            continue;
        json_t *o = json_object();
        int bad = json_object_set_new(o, "name", rtc__json_str(h.name));
        bad |= json_object_set_new(o, "up", json_boolean(h.up));
        bad |= json_object_set_new(o, "link", rtc__json_str(h.link));
        bad |= json_object_set_new(o, "signals", rtc__json_uint(h.signals));
        bad |= json_object_set_new(o, "stale", json_integer(h.stale));
        bad |= json_object_set_new(o, "reconnects", rtc__json_uint(h.reconnects));
        bad |= json_object_set_new(o, "errors", rtc__json_uint(h.errors));
        bad |= json_object_set_new(o, "outages", outages_json(&h));
        if (json_array_append_new(io, whole(o, bad))) /* releases o when it fails */
            return whole(io, 1);
    }
    return io;
}

/* Every late value's estimator and its prediction error (the coupling monitor), one
 * object each: which estimator each late signal uses and how well it predicts. */
static json_t *frame_estimates(rtc_panel *p)
{
    json_t *a = json_array();
    rtc_session_estimate e;
    for (size_t i = 0; a && rtc_session_estimate_info(p->s, i, &e); i++) {
        json_t *o = json_object();
        int bad = json_object_set_new(o, "name", rtc__json_str(e.name));
        bad |= json_object_set_new(o, "estimator", rtc__json_str(e.estimator));
        bad |= json_object_set_new(o, "in_use", rtc__json_str(e.in_use));
        bad |= json_object_set_new(o, "samples", rtc__json_uint(e.samples));
        bad |= json_object_set_new(o, "rms", rtc__json_real(e.error_rms));
        bad |= json_object_set_new(o, "max", rtc__json_real(e.error_max));
        bad |= json_object_set_new(o, "delay_p50_ms", rtc__json_real(e.delay_p50_ms));
        if (json_array_append_new(a, whole(o, bad)))
            return whole(a, 1);
    }
    return a;
}

static json_t *link_json(const char *name, const char *dir, const rtc_session_link_dir *d)
{
    json_t *o = json_object();
    int bad = json_object_set_new(o, "name", rtc__json_str(name));
    bad |= json_object_set_new(o, "dir", json_string(dir));
    bad |= json_object_set_new(o, "state", rtc__json_str(d->state));
    bad |= json_object_set_new(o, "signals", rtc__json_uint(d->signals));
    bad |= json_object_set_new(o, "stale", json_integer(d->stale));
    bad |= json_object_set_new(o, "age_s", rtc__json_real(d->age_ns >= 0 ? (double)d->age_ns
                                                                             / 1e9 : NAN));
    return whole(o, bad);
}

/* Every I/O component's link per direction that has signals: {name, dir, state, ...}. A
 * receive-only link has one entry, "in", up while it receives. */
static json_t *frame_links(rtc_panel *p)
{
    json_t *links = json_array();
    rtc_session_io h;
    rtc_session_link_dir d[2];
    for (size_t i = 0; links && i < rtc_session_io_count(p->s); i++) {
        if (!rtc_session_io_info(p->s, i, &h) || !rtc_session_io_dirs(p->s, i, &d[0], &d[1]))
            continue;
        for (int j = 0; j < 2; j++)
            if (d[j].signals && json_array_append_new(links, link_json(h.name, j ? "out" : "in",
                                                                       &d[j])))
                return whole(links, 1);
    }
    return links;
}

/* One node of a distributed run and its links, as its last status says. */
static json_t *node_json(const rtc_session_node *n)
{
    json_t *o = json_object(), *links = json_array();
    int bad = !o || !links;
    bad |= json_object_set_new(o, "name", rtc__json_str(n->name));
    bad |= json_object_set_new(o, "self", json_boolean(n->self));
    bad |= json_object_set_new(o, "leader", json_boolean(n->leader));
    bad |= json_object_set_new(o, "state", rtc__json_str(n->state));
    bad |= json_object_set_new(o, "age_s", n->heard ? rtc__json_real(n->age_s) : json_null());
    bad |= json_object_set_new(o, "tick", json_integer(n->k));
    bad |= json_object_set_new(o, "overruns", rtc__json_uint(n->overruns));
    bad |= json_object_set_new(o, "p99_us", rtc__json_real(n->wakeup_p99_us));
    bad |= json_object_set_new(o, "offset_ms", rtc__json_real(n->clock_offset_ms));
    for (size_t i = 0; !bad && i < n->n_links && i < RTC_SESSION_NODE_LINKS; i++) {
        const rtc_session_node_link *l = &n->links[i];
        json_t *lo = json_object();
        bad |= !lo || json_object_set_new(lo, "peer", rtc__json_str(l->peer));
        bad |= json_object_set_new(lo, "state", rtc__json_str(l->state));
        bad |= json_object_set_new(lo, "p50_ms", rtc__json_real(l->latency_p50_ms));
        bad |= json_object_set_new(lo, "p99_ms", rtc__json_real(l->latency_p99_ms));
        bad |= json_object_set_new(lo, "max_ms", rtc__json_real(l->latency_max_ms));
        bad |= json_object_set_new(lo, "received", rtc__json_uint(l->received));
        bad |= json_object_set_new(lo, "late", rtc__json_uint(l->late));
        bad |= json_object_set_new(lo, "lost", rtc__json_uint(l->lost));
        bad |= json_array_append_new(links, lo);
    }
    bad |= json_object_set_new(o, "links", links);
    return whole(o, bad);
}

/* Every node of a distributed run (none: not distributed): the frame's "nodes". */
static int frame_nodes(rtc_panel *p, json_t *doc)
{
    enum { CAP = 64 };
    rtc_session_node *v = calloc(CAP, sizeof *v);
    size_t n = v ? rtc_session_nodes(p->s, v, CAP) : 0;
    json_t *a = n ? json_array() : NULL;
    int bad = n && !a;
    for (size_t i = 0; a && i < n; i++)
        bad |= json_array_append_new(a, node_json(&v[i]));
    free(v);
    return a ? bad | json_object_set_new(doc, "nodes", a) : bad;
}

/* @p n reals (NULL @p v: n nulls). */
static json_t *reals(const double *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, rtc__json_real(v ? v[i] : NAN)))
            return whole(a, 1);
    return a;
}

/* The newest snapshot, all of one step: every recorded column's value (v), the step (k,
 * -1: none yet) and its time, every exposed variable's value (x) and target (xt). */
static int frame_values(rtc_panel *p, json_t *doc)
{
    const rtc__panel_hist *h = &p->hist;
    int64_t k = h->row_k;
    int bad = json_object_set_new(doc, "k", json_integer(k));
    bad |= json_object_set_new(doc, "t", rtc__json_real(k >= 0 ? rtc_session_time_s(p->s, k)
                                                               : NAN));
    bad |= json_object_set_new(doc, "v", reals(k >= 0 ? h->row : NULL, h->n_col));
    bad |= json_object_set_new(doc, "x", reals(h->xval, h->n_var));
    bad |= json_object_set_new(doc, "xt", reals(h->xtgt, h->n_var));
    return bad;
}

/* Read the session (history, RTF, snapshot) and rebuild the frame every page gets next. */
void rtc__panel_frame(rtc_panel *p, int64_t now_ns)
{
    rtc__panel_hist_turn(&p->hist, p->s, now_ns);
    rtc_session_progress st;
    rtc_session_progress_get(p->s, &st);
    json_t *doc = json_object();
    int bad = json_object_set_new(doc, "state", json_string(st.paused ? "paused"
                                                                      : "running"));
    bad |= json_object_set_new(doc, "sim_t", rtc__json_real(st.sim_time_s));
    bad |= json_object_set_new(doc, "tick", json_integer(st.k));
    bad |= json_object_set_new(doc, "overruns", rtc__json_uint(st.overruns));
    bad |= json_object_set_new(doc, "p99_us", rtc__json_real(st.p99_wakeup_us));
    bad |= json_object_set_new(doc, "rtf", rtc__json_real(rtc__panel_hist_rtf(&p->hist)));
    bad |= frame_values(p, doc);
    bad |= json_object_set_new(doc, "io", frame_io(p));
    bad |= json_object_set_new(doc, "estimates", frame_estimates(p));
    bad |= json_object_set_new(doc, "links", frame_links(p));
    bad |= frame_nodes(p, doc);
    rtc__panel_buf *b = &p->frame;
    b->len = 0;
    b->oom = false;
    add_text(b, "event: frame\ndata: ");
    rtc__panel_buf_json(b, whole(doc, bad));
    add_text(b, "\n\n");
}

/* ---- streams ---- */

/* Every event with an id names both cursors and the panel's epoch ("EV.POINT.EPOCH"): a
 * browser that reconnects (EventSource does so by itself) sends the last one back as
 * Last-Event-ID and continues where it was, without a line or a point twice. */
static void add_id(rtc__panel_buf *b, const rtc_panel *p, uint64_t ev, uint64_t pt)
{
    char id[96];
    int n = snprintf(id, sizeof id, "id: %llu.%llu.%llu\n", (unsigned long long)ev,
                     (unsigned long long)pt, (unsigned long long)p->epoch);
    rtc__panel_buf_add(b, id, (size_t)n);
}

static void add_event(void *user, uint64_t seq, const char *line)
{
    rtc__panel_stream *st = user;
    add_text(&st->out, "event: log\n");
    add_id(&st->out, st->p, seq, st->pt_next);
    add_text(&st->out, "data: ");
    rtc__panel_buf_json(&st->out, rtc__json_str(line));
    add_text(&st->out, "\n\n");
}

/* Rows of history per points event: a few hundred, fewer for a wide recording (an event
 * stays well inside the stream's buffer). */
static size_t chunk_rows(const rtc_panel *p)
{
    size_t n = (256u << 10) / ((p->hist.n_col + 1) * 26);
    return n < 1 ? 1 : n > 500 ? 500 : n;
}

/* The stream's next history points as one event. A new page's first one says reset: it
 * replaces whatever the page drew before (a page from a previous connection, or run). */
static void add_points(rtc_panel *p, rtc__panel_stream *st)
{
    bool reset = !st->pt_sent && !st->pt_resumed;
    if (!reset && st->pt_next >= p->hist.next)
        return;
    json_t *doc = json_object(), *rows = json_array();
    int bad = json_object_set_new(doc, "reset", json_boolean(reset));
    bad |= json_object_set_new(doc, "rows", rows);
    if (!bad)
        bad = rtc__panel_hist_rows(&p->hist, p->s, &st->pt_next, false, chunk_rows(p), rows);
    add_text(&st->out, "event: points\n");
    add_id(&st->out, p, st->ev_seq, st->pt_next);
    add_text(&st->out, "data: ");
    rtc__panel_buf_json(&st->out, whole(doc, bad));
    add_text(&st->out, "\n\n");
    st->pt_sent = true;
}

/* The stream's next bytes: the newest frame once, history points it has not had, then
 * the event lines it has not had. A new stream starts with the current frame, the whole
 * history the ring holds (in chunks) and the event log's tail (the last RTC_EVENTS_TAIL
 * lines). */
void rtc__panel_stream_fill(rtc_panel *p, rtc__panel_stream *st)
{
    st->out.oom = false;
    if (st->frame_seq != p->frame_seq && p->frame.len && !p->frame.oom) {
        rtc__panel_buf_add(&st->out, p->frame.p, p->frame.len);
        st->frame_seq = p->frame_seq;
    }
    add_points(p, st);
    st->ev_seq = rtc_events_tail(rtc_session_events(p->s), st->ev_seq, add_event, st);
}

void rtc__panel_stream_resume(rtc_panel *p, rtc__panel_stream *st, const char *last_id)
{
    char id[80];
    if (!last_id || strlen(last_id) >= sizeof id)
        return; /* a new page (or an id that is not ours): the whole history */
    memcpy(id, last_id, strlen(last_id) + 1);
    char *ev_text = id, *pt_text = strchr(id, '.');
    char *epoch_text = pt_text ? strchr(pt_text + 1, '.') : NULL;
    if (!epoch_text)
        return;
    *pt_text++ = '\0';
    *epoch_text++ = '\0';
    uint64_t ev, pt, epoch;
    if (rtc_parse_u64(ev_text, 0, UINT64_MAX, 0, &ev) != RTC_OK ||
        rtc_parse_u64(pt_text, 0, UINT64_MAX, 0, &pt) != RTC_OK ||
        rtc_parse_u64(epoch_text, 0, UINT64_MAX, 0, &epoch) != RTC_OK || epoch != p->epoch ||
        pt > p->hist.next)
        return; /* another run's page: it starts over */
    st->ev_seq = ev;
    st->pt_next = pt;
    st->pt_resumed = true;
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

static int do_set(rtc_panel *p, struct MHD_Connection *c, int64_t origin, json_t **doc,
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
    if (rc == RTC_OK && (*doc = rtc__panel_reply(true, "set", NULL)) != NULL &&
        (json_object_set_new(*doc, "name", rtc__json_str(name)) ||
         json_object_set_new(*doc, "applied", rtc__json_real(applied)) ||
         json_object_set_new(*doc, "clamped", json_boolean(applied != v)))) {
        json_decref(*doc);
        *doc = NULL; /* out of memory: the plain {"ok":true,"op":"set"} answers */
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
                    const char *who, json_t **doc, char *err, size_t cap)
{
    if (!strcmp(op, "set"))
        return do_set(p, c, origin, doc, err, cap);
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
                            const char *who, bool remote, rtc__panel_buf *b)
{
    char err[512] = "";
    json_t *doc = NULL;
    const char *op = arg(c, "op");
    op = op ? op : "";
    int rc = remote ? rtc_session_check(p->s, RTC_SESSION_CAN_REMOTE, op, err, sizeof err)
                    : RTC_OK;
    if (rc == RTC_OK) {
        rtc_session_poll(p->s, true); /* the operator is there: re-arm the dead-man */
        rc = dispatch(p, c, op, origin, who, &doc, err, sizeof err);
    }
    if (rc != RTC_OK) {
        rtc__panel_note_refusal(p, who, err);
        json_decref(doc);
        doc = rtc__panel_reply(false, op, err);
    } else if (!doc) {
        doc = rtc__panel_reply(true, op, NULL);
    }
    rtc__panel_buf_line(b, doc);
    return status_of(rc);
}
