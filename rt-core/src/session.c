/*
 * A live operator session (rtcosim/session.h): arming the session directory, the RT hook
 * (commands in, snapshot out), the I/O tap, and the writer thread that owns inputs.bin.
 *
 * DESIGN: three threads touch a session.
 *   RT thread       rtc_session_hook() and the tap: pops the command ring (consumer),
 *                   pushes inputs records (producer), writes the snapshot seqlock. Only
 *                   preallocated memory, atomics and rtc_system_set_value/get_value.
 *   control thread  rtc_session_set/_control/_poll (session_ops.c): the command ring's
 *                   only producer, so operator commands and dead-man fallbacks are ordered.
 *   writer thread   drains the inputs ring every 10 ms into inputs.bin (one buffered
 *                   FILE), formats events.log lines for applied commands, and polls the
 *                   I/O units' counters every 100 ms for link/staleness events.
 * Both rings are SPSC (rtcosim/ring.h): a full ring drops and counts, never waits.
 */
#include "session_priv.h"

#include "rtcosim/driver.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define WRITER_NAP_NS 10000000
#define WATCH_EVERY 10 /* writer naps between two looks at the I/O counters */

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- RT side ---- */

/* The I/O units' tap: one sample as consumed (RT thread, during the step's refresh). */
static void tap(void *user, const rtc_io_tap_rec *t)
{
    rtc_session *s = user;
    rtc_inputs_rec r = {.kind = RTC__KIND_SAMPLE, .op = t->quality, .index = t->signal,
                        .k = t->t_ns / s->tick_ns, .value = t->value, .a_ns = t->sample_ns,
                        .b_ns = t->arrival_ns};
    rtc_ring_push(s->inputs, &r); /* full: counted by the ring (rtc_ring_dropped) */
}

/* Apply one queued command at boundary k and record it with that k. The executive's
 * controls are atomics honoured at its next boundary; a set goes through the same
 * rtc__xvar_apply() a replay uses. A failing set (a unit's error) is not reported here —
 * the RT thread formats nothing — but the unit logged it and the next step fails too. */
static void apply_cmd(rtc_session *s, const rtc__cmd *c, int64_t k)
{
    switch (c->op) {
    case RTC__OP_SET:
    case RTC__OP_SAFE:
        rtc__xvar_apply(s->sys, &s->var[c->index], c->op, c->value);
        break;
    case RTC_SESSION_PAUSE: rtc_exec_pause(s->ex); break;
    case RTC_SESSION_RESUME: rtc_exec_resume(s->ex); break;
    case RTC_SESSION_STOP: rtc_exec_request_stop(s->ex); break;
    case RTC_SESSION_STEP:
        for (uint32_t i = 0; i < c->index; i++)
            rtc_exec_single_step(s->ex);
        break;
    default: break;
    }
    rtc_inputs_rec r = {.kind = RTC__KIND_COMMAND, .op = c->op, .index = c->index, .k = k,
                        .value = c->value, .a_ns = k * s->tick_ns, .b_ns = c->origin};
    rtc_ring_push(s->inputs, &r);
    atomic_fetch_add_explicit(&s->applied, 1, memory_order_relaxed);
}

/* Publish the recorded columns (seqlock: odd while writing; readers retry). */
static void publish(rtc_session *s, int64_t k)
{
    if (!s->n_col || rtc_record_sample(s->rec, s->row) != RTC_OK)
        return;
    uint32_t q = atomic_load_explicit(&s->snap_seq, memory_order_relaxed);
    /* Release stores of the values keep the odd count from being seen late (the same
     * fence-free seqlock as rt-core/src/mailbox.c). */
    atomic_store_explicit(&s->snap_seq, q + 1, memory_order_relaxed);
    for (size_t i = 0; i < s->n_col; i++) {
        double v = 0;
        uint64_t bits;
        rtc_record_column_double(s->rec, s->row, i, &v);
        memcpy(&bits, &v, sizeof bits);
        atomic_store_explicit(&s->snap[i], bits, memory_order_release);
    }
    atomic_store_explicit(&s->snap_k, k, memory_order_release);
    atomic_store_explicit(&s->snap_seq, q + 2, memory_order_release);
}

/* Called by the executive at every turn of its loop (see rtcosim/exec.h). The boundary
 * call may come many times per k while paused (about every ms), so only draining happens
 * there; the ramps move once per step, right before it, so a live run and its replay move
 * them identically however the commands were spread over boundary calls. */
void rtc_session_hook(void *session, int at, int64_t k)
{
    rtc_session *s = session;
    if (at == RTC_EXEC_AT_BOUNDARY) {
        rtc_events_set_step(s->ev, k);
        const rtc__cmd *c;
        while ((c = rtc_ring_peek(s->cmd)) != NULL) {
            apply_cmd(s, c, k);
            rtc_ring_release(s->cmd);
        }
    } else if (at == RTC_EXEC_AT_STEP) {
        if (k != s->ramp_k) { /* once per tick, however often the boundary ran */
            s->ramp_k = k;
            rtc__xvar_ramp(s->sys, s->var, s->n_var, s->tick_ns);
        }
    } else if (at == RTC_EXEC_AT_STEPPED) {
        publish(s, k);
    }
}

/* ---- writer thread ---- */

/* events.log line of an applied command: formatted here, off the RT thread, from the
 * record the RT thread wrote — so the line carries the exact step it took effect at. */
static void command_event(rtc_session *s, const rtc_inputs_rec *r)
{
    char who[64];
    rtc_session_origin_text(r->b_ns, who, sizeof who);
    if (r->op == RTC__OP_SET || r->op == RTC__OP_SAFE)
        rtc__events_add_at(s->ev, r->k, "operator", "%s: %s %s = %.17g (applied before step "
                           "%lld)", who, rtc_inputs_op_name(r->op), s->var[r->index].name,
                           r->value, (long long)r->k);
    else if (r->op == RTC_SESSION_STEP)
        rtc__events_add_at(s->ev, r->k, "operator", "%s: step %u (from step %lld)", who,
                           r->index, (long long)r->k);
    else
        rtc__events_add_at(s->ev, r->k, "operator", "%s: %s (before step %lld)", who,
                           rtc_inputs_op_name(r->op), (long long)r->k);
}

/* Everything the ring holds, in one batch: one release of the consumer index per batch
 * keeps the producer's cache line quiet. A record that cannot be written is lost for the
 * file but not counted as written, so summary.json tells. */
static size_t drain(rtc_session *s)
{
    size_t n = rtc_ring_ready(s->inputs);
    for (size_t i = 0; i < n; i++) {
        const rtc_inputs_rec *r = rtc_ring_at(s->inputs, i);
        unsigned char b[RTC__INPUTS_RECORD];
        rtc__inputs_encode(r, b);
        if (fwrite(b, sizeof b, 1, s->bin) == 1)
            atomic_fetch_add_explicit(&s->written, 1, memory_order_relaxed);
        if (r->kind == RTC__KIND_COMMAND)
            command_event(s, r);
    }
    rtc_ring_release_n(s->inputs, n);
    return n;
}

/* Link and staleness changes of one I/O unit since the last look: events "io". */
static void watch_unit(rtc_session *s, rtc__io_watch *w)
{
    const rtc_unit *u = rtc_system_unit(s->sys, w->unit);
    rtc_signal_health h[64];
    rtc_driver_stats st = {.signals = h, .n_signals_cap = 64};
    if (rtc_io_unit_stats(u, &st) != RTC_OK)
        return;
    uint64_t stale = 0;
    for (size_t i = 0; i < st.n_signals && i < 64; i++)
        stale += h[i].stale_events;
    if (w->seen && st.connected != w->connected)
        rtc_events_add(s->ev, "io", "%s: link %s", u->name, st.connected ? "up" : "down");
    if (w->seen && st.reconnects > w->reconnects)
        rtc_events_add(s->ev, "io", "%s: reconnected (%llu reconnect(s) so far)", u->name,
                       (unsigned long long)st.reconnects);
    if (w->seen && stale > w->stale)
        rtc_events_add(s->ev, "io", "%s: %llu signal(s) went stale (%llu stale event(s) so "
                       "far)", u->name, (unsigned long long)(stale - w->stale),
                       (unsigned long long)stale);
    uint64_t errors = st.errors + st.timeouts + st.exceptions;
    if (w->seen && errors > w->errors)
        rtc_events_add(s->ev, "io", "%s: %llu failed request(s) (errors %llu, timeouts %llu, "
                       "exceptions %llu)", u->name, (unsigned long long)(errors - w->errors),
                       (unsigned long long)st.errors, (unsigned long long)st.timeouts,
                       (unsigned long long)st.exceptions);
    *w = (rtc__io_watch){.unit = w->unit, .seen = true, .connected = st.connected,
                         .reconnects = st.reconnects, .stale = stale, .errors = errors};
}

static void *writer_main(void *arg)
{
    rtc_session *s = arg;
    unsigned turn = 0;
    for (;;) {
        /* acquire: after the stop flag, every record the RT thread pushed is visible */
        bool last = atomic_load_explicit(&s->writer_stop, memory_order_acquire);
        drain(s);
        if (last || ++turn % WATCH_EVERY == 0) {
            for (size_t i = 0; i < s->n_watch; i++)
                watch_unit(s, &s->watch[i]);
            fflush(s->bin);
        }
        if (last)
            break;
        struct timespec ts = {0, WRITER_NAP_NS};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* ---- arming ---- */

/* Byte copy of the system file: a replay must load exactly what this run loaded. */
static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    int rc = in && out ? RTC_OK : RTC_EIO;
    char buf[65536];
    size_t n;
    while (rc == RTC_OK && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            rc = RTC_EIO;
    if (in && ferror(in))
        rc = RTC_EIO;
    if (out && fclose(out) != 0)
        rc = RTC_EIO;
    if (in)
        fclose(in);
    return rc;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcasecmp(s + n - m, suf);
}

/* system.<ext> and fmus.sha256 ("HASH  UNIT  PATH" for every unit made from a file). */
static int write_copies(rtc_session *s, const char *system_path)
{
    const char *ext = has_suffix(system_path, ".ssp")   ? "ssp"
                      : has_suffix(system_path, ".fmu") ? "fmu"
                                                        : "ssd";
    char path[4096];
    snprintf(path, sizeof path, "%s/system.%s", s->dir, ext);
    if (copy_file(system_path, path) != RTC_OK) {
        rtc_events_add(s->ev, "session", "error: cannot copy %s to %s", system_path, path);
        return RTC_EIO;
    }
    snprintf(path, sizeof path, "%s/fmus.sha256", s->dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return RTC_EIO;
    int rc = RTC_OK;
    for (size_t i = 0; i < rtc_system_unit_count(s->sys); i++) {
        const char *src = rtc_system_unit_source(s->sys, i);
        const char *hex = rtc_system_unit_sha256(s->sys, i); /* hashed at load time */
        if (!src || has_suffix(src, ".ssd") || has_suffix(src, ".ssp"))
            continue;
        if (!hex) {
            rtc_events_add(s->ev, "session", "error: cannot hash %s", src);
            rc = RTC_EIO;
            continue;
        }
        fprintf(f, "%s  %s  %s\n", hex, rtc_system_unit(s->sys, i)->name, src);
    }
    return fclose(f) == 0 ? rc : RTC_EIO;
}

/* session.conf: the command line's overrides, which replay must repeat. */
static int write_conf(rtc_session *s, const rtc_session_options *o)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/session.conf", s->dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return RTC_EIO;
    static const rtc_system_options none;
    const rtc_system_options *so = o->sys_options ? o->sys_options : &none;
    char *abs = realpath(o->system_path, NULL);
    fprintf(f, "# rtcosim session: settings for 'rtcosim replay'\nsystem=%s\n",
            abs ? abs : o->system_path);
    if (abs && strrchr(abs, '/'))
        fprintf(f, "source_dir=%.*s\n", (int)(strrchr(abs, '/') - abs), abs);
    free(abs);
    if (so->has_algorithm)
        fprintf(f, "algorithm=%s\n", rtc_master_name(so->algorithm));
    fprintf(f, "step_ns=%lld\nsync_step_ns=%lld\n", (long long)so->step_ns,
            (long long)so->sync_step_ns);
    if (so->has_start)
        fprintf(f, "start_ns=%lld\n", (long long)so->start_ns);
    if (so->has_stop)
        fprintf(f, "stop_ns=%lld\n", (long long)so->stop_ns);
    fprintf(f, "iterate=%d\ntolerance=%.17g\nmax_iterations=%u\nworkers=%u\ndecimation=%ld\n",
            so->iterate, so->tolerance, so->max_iterations, so->workers,
            o->decimation > 0 ? o->decimation : 1);
    for (size_t i = 0; i < o->n_record_names; i++)
        fprintf(f, "record=%s\n", o->record_names[i]);
    for (size_t i = 0; i < so->n_sets; i++) /* --set values are part of the run */
        fprintf(f, "set=%s\n", so->sets[i]);
    return fclose(f) == 0 ? RTC_OK : RTC_EIO;
}

/* Little-endian writers: inputs.bin is the same on every machine that reads it. */
static void put_u16(FILE *f, size_t v)
{
    unsigned char b[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    fwrite(b, 1, 2, f);
}

static void put_str(FILE *f, const char *str)
{
    size_t n = strlen(str);
    n = n > 65535 ? 65535 : n;
    put_u16(f, n);
    fwrite(str, 1, n, f);
}

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* inputs.bin's header: fixed part, signal table, variable table, padding to 8. */
static int write_header(rtc_session *s)
{
    size_t len = RTC__INPUTS_HEADER;
    for (size_t i = 0; i < s->n_sig; i++)
        len += 4 + strlen(s->sig_unit[i]) + strlen(s->sig_name[i]);
    for (size_t i = 0; i < s->n_var; i++)
        len += 2 + strlen(s->var[i].spec);
    size_t total = (len + 7) & ~(size_t)7;
    unsigned char h[RTC__INPUTS_HEADER] = {0};
    memcpy(h, RTC__INPUTS_MAGIC, 8);
    put_le(h + 8, RTC__INPUTS_VERSION, 4);
    put_le(h + 12, total, 4);
    put_le(h + 16, RTC__INPUTS_RECORD, 4);
    put_le(h + 20, s->n_sig, 4);
    put_le(h + 24, s->n_var, 4);
    put_le(h + 32, (uint64_t)s->tick_ns, 8);
    put_le(h + 40, (uint64_t)s->start_ns, 8);
    fwrite(h, 1, sizeof h, s->bin);
    for (size_t i = 0; i < s->n_sig; i++) {
        put_str(s->bin, s->sig_unit[i]);
        put_str(s->bin, s->sig_name[i]);
    }
    for (size_t i = 0; i < s->n_var; i++)
        put_str(s->bin, s->var[i].spec);
    static const unsigned char pad[8];
    fwrite(pad, 1, total - len, s->bin);
    return fflush(s->bin) == 0 ? RTC_OK : RTC_EIO;
}

/* The signal table: every connector of every I/O unit; each unit's tap starts at its
 * first connector's index. */
static int build_signals(rtc_session *s)
{
    size_t n = 0, nu = rtc_system_unit_count(s->sys);
    for (size_t u = 0; u < nu; u++)
        if (rtc_io_unit_is(rtc_system_unit(s->sys, u)))
            n += rtc_system_unit(s->sys, u)->md->n_vars;
    s->sig_unit = calloc(n + 1, sizeof *s->sig_unit);
    s->sig_name = calloc(n + 1, sizeof *s->sig_name);
    s->watch = calloc(nu + 1, sizeof *s->watch);
    if (!s->sig_unit || !s->sig_name || !s->watch)
        return RTC_ENOMEM;
    for (size_t u = 0; u < nu; u++) {
        rtc_unit *unit = (rtc_unit *)rtc_system_unit(s->sys, u);
        if (!rtc_io_unit_is(unit))
            continue;
        rtc_io_unit_set_tap(unit, tap, s, (uint32_t)s->n_sig);
        s->watch[s->n_watch++] = (rtc__io_watch){.unit = u};
        for (size_t v = 0; v < unit->md->n_vars; v++, s->n_sig++)
            if (!(s->sig_unit[s->n_sig] = strdup(unit->name)) ||
                !(s->sig_name[s->n_sig] = strdup(unit->md->vars[v].name)))
                return RTC_ENOMEM;
    }
    return RTC_OK;
}

/* Exposed variables: the system file's entries, then the command line's. */
static int build_vars(rtc_session *s, const rtc_session_options *o)
{
    const rtc_system_rt_hints *h = rtc_system_rt(s->sys);
    size_t n = h->n_expose + o->n_expose;
    s->var = calloc(n + 1, sizeof *s->var);
    if (!s->var)
        return RTC_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const char *spec = i < h->n_expose ? h->expose[i] : o->expose[i - h->n_expose];
        char err[512] = "";
        rtc__xvar *x = &s->var[s->n_var++];
        int rc = rtc__xvar_parse(s->sys, spec, x, err, sizeof err);
        for (size_t j = 0; rc == RTC_OK && j + 1 < s->n_var; j++)
            if (!strcmp(s->var[j].name, x->name)) {
                snprintf(err, sizeof err, "expose %s: exposed twice", x->name);
                rc = RTC_EINVAL;
            }
        if (rc != RTC_OK) {
            rtc_events_add(s->ev, "session", "error: %s", err);
            return rc;
        }
    }
    return RTC_OK;
}

/* The published snapshot has one double per recorded column: what get and subscribe
 * serve is exactly what results.csv holds, sampled after every step. */
static int build_snapshot(rtc_session *s, rtc_record *rec)
{
    s->rec = rec;
    s->n_col = rec ? rtc_record_columns(rec) : 0;
    if (!s->n_col)
        return RTC_OK;
    s->row = calloc(1, rtc_record_row_size(rec));
    s->snap = calloc(s->n_col, sizeof *s->snap);
    return s->row && s->snap ? RTC_OK : RTC_ENOMEM;
}

/* A large stdio buffer: the writer thread issues few write() calls even at thousands of
 * samples per second. */
static int open_bin(rtc_session *s)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/inputs.bin", s->dir);
    s->bin = fopen(path, "wb");
    if (!s->bin) {
        rtc_events_add(s->ev, "session", "error: %s: cannot create: %s", path,
                       strerror(errno));
        return RTC_EIO;
    }
    setvbuf(s->bin, NULL, _IOFBF, 1 << 16);
    return write_header(s);
}

int rtc_session_new(rtc_system *sys, const rtc_session_options *o, rtc_events *ev,
                    rtc_session **out)
{
    rtc_session *s = calloc(1, sizeof *s);
    if (!s)
        return RTC_ENOMEM;
    s->sys = sys;
    s->ev = ev;
    s->dir = strdup(o->dir);
    s->tick_ns = rtc_system_tick_ns(sys);
    s->start_ns = rtc_system_start_ns(sys);
    s->ramp_k = -1;
    const rtc_system_rt_hints *h = rtc_system_rt(sys);
    s->deadman_ns = o->deadman_ns > 0 ? o->deadman_ns : h->has_deadman ? h->deadman_ns : 0;
    rtc_events_set_clock(ev, s->start_ns, s->tick_ns);
    int rc = s->dir ? RTC_OK : RTC_ENOMEM;
    if (rc == RTC_OK)
        rc = build_signals(s);
    if (rc == RTC_OK)
        rc = build_vars(s, o);
    if (rc == RTC_OK)
        rc = build_snapshot(s, o->record);
    if (rc == RTC_OK)
        rc = rtc_ring_new(sizeof(rtc__cmd), o->command_ring ? o->command_ring : 256, &s->cmd);
    if (rc == RTC_OK)
        rc = rtc_ring_new(sizeof(rtc_inputs_rec), o->inputs_ring ? o->inputs_ring : 65536,
                          &s->inputs);
    if (rc == RTC_OK)
        rc = write_copies(s, o->system_path);
    if (rc == RTC_OK)
        rc = write_conf(s, o);
    if (rc == RTC_OK)
        rc = open_bin(s);
    if (rc == RTC_OK) {
        s->armed_ns = s->last_heard_ns = mono_ns();
        s->writer_started = pthread_create(&s->writer, NULL, writer_main, s) == 0;
        rc = s->writer_started ? RTC_OK : RTC_ESYS;
    }
    if (rc != RTC_OK) {
        rtc_session_close(s, -1, NULL);
        return rc;
    }
    rtc_events_add(ev, "session", "session armed: %zu I/O signal(s) recorded, %zu exposed "
                   "variable(s), %zu column(s) published%s", s->n_sig, s->n_var, s->n_col,
                   s->deadman_ns ? ", dead-man armed" : "");
    *out = s;
    return RTC_OK;
}

void rtc_session_attach(rtc_session *s, rtc_exec *ex)
{
    s->ex = ex;
}

void rtc_session_close(rtc_session *s, int64_t end_k, rtc_session_stats *stats)
{
    if (!s)
        return;
    /* the writer drains what is left before it exits (its last turn sees the stop flag
     * with acquire), so the end record really is the last one */
    if (s->writer_started) {
        atomic_store_explicit(&s->writer_stop, true, memory_order_release);
        pthread_join(s->writer, NULL);
    }
    if (stats)
        rtc_session_stats_get(s, stats);
    if (s->bin && end_k >= 0) {
        rtc_inputs_rec r = {.kind = RTC__KIND_END, .k = end_k, .a_ns = end_k * s->tick_ns};
        unsigned char b[RTC__INPUTS_RECORD];
        rtc__inputs_encode(&r, b);
        fwrite(b, sizeof b, 1, s->bin);
    }
    if (s->bin && fclose(s->bin) != 0)
        rtc_events_add(s->ev, "session", "error: inputs.bin: write failed");
    for (size_t i = 0; i < s->n_sig; i++) {
        free(s->sig_unit[i]);
        free(s->sig_name[i]);
    }
    for (size_t i = 0; i < s->n_var; i++)
        rtc__xvar_clear(&s->var[i]);
    for (size_t u = 0; u < rtc_system_unit_count(s->sys); u++) /* no tap into freed memory */
        if (rtc_io_unit_is(rtc_system_unit(s->sys, u)))
            rtc_io_unit_set_tap((rtc_unit *)rtc_system_unit(s->sys, u), NULL, NULL, 0);
    free(s->sig_unit);
    free(s->sig_name);
    free(s->var);
    free(s->watch);
    free(s->row);
    free(s->snap);
    rtc_ring_free(s->cmd);
    rtc_ring_free(s->inputs);
    free(s->dir);
    free(s);
}

void rtc_session_stats_get(const rtc_session *s, rtc_session_stats *out)
{
    *out = (rtc_session_stats){
        .inputs_written = atomic_load_explicit(&s->written, memory_order_relaxed),
        .inputs_dropped = rtc_ring_dropped(s->inputs),
        .commands_applied = atomic_load_explicit(&s->applied, memory_order_relaxed),
        .commands_dropped = atomic_load_explicit(&s->cmd_dropped, memory_order_relaxed),
        .events = rtc_events_count(s->ev),
        .inputs_high_water = rtc_ring_high_water(s->inputs),
        .n_exposed = s->n_var};
}
