/*
 * A live operator session (rtcosim/session.h): arming the session directory, the RT hook
 * (commands in, snapshot out), the I/O tap, and the writer thread that owns inputs.bin.
 *
 * DESIGN: three threads touch a session.
 *   RT thread       rtc_session_hook() and the tap: pops the command ring (consumer),
 *                   pushes inputs records (producer), writes the snapshot seqlock, and
 *                   releases paced single steps one per period (systems with I/O). Only
 *                   preallocated memory, atomics and rtc_system_set_value/get_value.
 *   control threads rtc_session_set/_control/_poll (session_ops.c), called by the OSC
 *                   control surface and the HTTP panel, each on its own thread; one lock
 *                   (op_mu) serialises them, so the command ring has one producer at a
 *                   time and operator commands and dead-man fallbacks are ordered; they
 *                   check the capabilities and the outstanding-steps bound.
 *   writer thread   drains the inputs ring every 10 ms into inputs.bin (a record stream,
 *                   rtcosim/ofile.h: whole 40-byte records handed to the kernel every
 *                   50 ms, fsynced at close, so a kill leaves a readable prefix), formats
 *                   events.log lines for applied commands (single steps rate-limited: 10
 *                   lines a second, then a count), and polls the I/O units'
 *                   counters every 100 ms for link/staleness events. It sleeps between
 *                   turns (no busy wait); the RT thread never wakes it. The first failed
 *                   write of inputs.bin or events.log is reported here at once and stops
 *                   the run (rtc_exec_request_stop) unless the options say continue.
 * Both rings are SPSC (rtcosim/ring.h): a full ring drops and counts, never waits.
 */
#include "session_priv.h"

#include "rtcosim/driver.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/rt.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <strings.h>
#include <time.h>

#define WRITER_NAP_NS 10000000
#define FLUSH_EVERY 5  /* writer naps between two flushes of inputs.bin: 50 ms */
#define WATCH_EVERY 10 /* writer naps between two looks at the I/O counters */

/* Why the session cannot start: to events.log ("error: ...") and, through its tee, to the
 * operator's stderr — a refusal that only says "see events.log" hides its reason. */
static const rtc_logger *refusal(rtc_session *s)
{
    return rtc_events_logger(s->ev, "session");
}

/* ---- RT side ---- */

/* The I/O units' tap: one sample as consumed (RT thread, during the step's refresh). */
static void tap(void *user, uint32_t signal, int64_t t_ns, const rtc_sample *t)
{
    rtc_session *s = user;
    rtc_inputs_rec r = {.kind = RTC__KIND_SAMPLE, .op = t->quality, .index = signal,
                        .k = t_ns / s->tick_ns, .value = t->value, .a_ns = t->sample_ns,
                        .b_ns = t->arrival_ns};
    rtc_ring_push(s->inputs, &r); /* full: counted by the ring (rtc_ring_dropped) */
}

/* Paced single steps not yet released are dropped by a resume or a stop (the operator
 * left stepping); they count as done, so the outstanding bound frees up. */
static void drop_steps(rtc_session *s)
{
    atomic_fetch_add_explicit(&s->single_steps_done, s->steps_pending, memory_order_relaxed);
    s->steps_pending = 0;
}

/* With I/O components, single steps reach the executive one per period: a bench sees
 * time pass at the run's pace, never a burst. Called at every boundary (about every ms
 * while paused); at most one step is released per call, so the executive has taken the
 * previous one before the next is due. */
static void release_step(rtc_session *s)
{
    if (!s->steps_pending)
        return;
    int64_t now = rtc_time_now_ns();
    if (now < s->step_next_ns)
        return;
    rtc_exec_single_step(s->ex);
    s->step_next_ns = now + s->period_ns;
    s->steps_pending--;
    atomic_fetch_add_explicit(&s->single_steps_done, 1, memory_order_relaxed);
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
    case RTC_SESSION_RESUME:
        drop_steps(s);
        rtc_exec_resume(s->ex);
        break;
    case RTC_SESSION_STOP:
        drop_steps(s);
        rtc_exec_request_stop(s->ex);
        break;
    case RTC_SESSION_STEP:
        if (s->has_io) { /* released one per period by release_step() */
            s->steps_pending += c->index;
            break;
        }
        for (uint32_t i = 0; i < c->index; i++)
            rtc_exec_single_step(s->ex);
        atomic_fetch_add_explicit(&s->single_steps_done, c->index, memory_order_relaxed);
        break;
    default: break;
    }
    rtc_inputs_rec r = {.kind = RTC__KIND_COMMAND, .op = c->op, .index = c->index, .k = k,
                        .value = c->value, .a_ns = k * s->tick_ns, .b_ns = c->origin};
    rtc_ring_push(s->inputs, &r);
    atomic_fetch_add_explicit(&s->applied, 1, memory_order_relaxed);
}

static void snap_put(rtc_session *s, size_t i, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    atomic_store_explicit(&s->snap[i], bits, memory_order_release);
}

/* Every exposed variable's value as its unit holds it, and where a ramp takes it, into
 * the snapshot's slots after the columns (RT thread, or the arming thread before it). */
static void put_vars(rtc_session *s)
{
    for (size_t i = 0; i < s->n_var; i++) {
        const rtc__xvar *x = &s->var[i];
        double v = NAN;
        if (rtc_system_get_value(s->sys, x->unit, x->var, &v) != RTC_OK)
            v = NAN;
        snap_put(s, s->n_col + 2 * i, v);
        snap_put(s, s->n_col + 2 * i + 1, x->ramping ? x->target : v);
    }
}

/* Publish the recorded columns and the exposed variables (seqlock: odd while writing;
 * readers retry). */
static void publish(rtc_session *s, int64_t k)
{
    if ((!s->n_col && !s->n_var) || (s->n_col && rtc_record_sample(s->rec, s->row) != RTC_OK))
        return;
    uint32_t q = atomic_load_explicit(&s->snap_seq, memory_order_relaxed);
    /* Release stores of the values keep the odd count from being seen late (the same
     * fence-free seqlock as rt-core/base/src/mailbox.c). */
    atomic_store_explicit(&s->snap_seq, q + 1, memory_order_relaxed);
    for (size_t i = 0; i < s->n_col; i++) {
        double v = 0;
        rtc_record_column_double(s->rec, s->row, i, &v);
        snap_put(s, i, v);
    }
    put_vars(s);
    atomic_store_explicit(&s->snap_k, k, memory_order_release);
    atomic_store_explicit(&s->snap_seq, q + 2, memory_order_release);
    /* a surface waiting for the step (rtc_session_wait_step): FUTEX_WAKE only when one
     * sleeps, a non-blocking call */
    rtc_rt_wake(&s->snap_seq, &s->snap_waiters);
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
        release_step(s);
    } else if (at == RTC_EXEC_AT_STEP) {
        if (k != s->ramp_k) { /* once per tick, however often the boundary ran */
            s->ramp_k = k;
            rtc__xvar_ramp(s->sys, s->var, s->n_var, s->tick_ns);
        }
    } else if (at == RTC_EXEC_AT_STEPPED) {
        publish(s, k);
        /* release: every record of the steps before k was pushed before this store, so
         * the writer can vouch for them in a progress record */
        atomic_store_explicit(&s->steps_done, k, memory_order_release);
    }
}

/* ---- writer thread ---- */

/* events.log line of an applied command: formatted here, off the RT thread, from the
 * record the RT thread wrote — so the line carries the exact step it took effect at.
 * Every command comes from a peer, or from a peer's silence (the dead-man's safe values):
 * its line passes the peer-line limit (session_events.c). */
static void command_event(rtc_session *s, const rtc_inputs_rec *r)
{
    char who[64], what[160];
    rtc_session_origin_text(r->b_ns, who, sizeof who);
    if (r->op == RTC__OP_SET || r->op == RTC__OP_SAFE)
        snprintf(what, sizeof what, "%s %s = %.17g (applied before step %lld)",
                 rtc_inputs_op_name(r->op), s->var[r->index].name, r->value, (long long)r->k);
    else if (r->op == RTC_SESSION_STEP)
        snprintf(what, sizeof what, "step %u (from step %lld)", r->index, (long long)r->k);
    else
        snprintf(what, sizeof what, "%s (before step %lld)", rtc_inputs_op_name(r->op),
                 (long long)r->k);
    rtc__events_peer_at(s->ev, r->k, "operator", "%s: %s", who, what);
}

/* A progress record: every record of the steps before @p done is in the file. Written
 * when records came since the last one, else every 250 ms (an idle bench adds 160 bytes
 * a second, a busy one a record per flush). */
static void progress(rtc_session *s, int64_t done)
{
    int64_t now = rtc_time_now_ns();
    if (done <= s->progress_k || (!s->unflushed && now - s->progress_ns < 250000000))
        return;
    rtc_inputs_rec r = {.kind = RTC__KIND_PROGRESS, .k = done, .a_ns = done * s->tick_ns};
    unsigned char b[RTC__INPUTS_RECORD];
    rtc__inputs_encode(&r, b);
    rtc_ofile_append(s->bin, b, sizeof b);
    rtc_ofile_end_record(s->bin);
    s->progress_k = done;
    s->progress_ns = now;
    s->unflushed = false;
}

/* Everything the ring holds, in one batch: one release of the consumer index per batch
 * keeps the producer's cache line quiet. A record that cannot be written is lost for the
 * file but not counted as written, so summary.json tells. With @p done ≥ 0 (a flush
 * turn) a progress record goes in before the first record of step done or later, keeping
 * the file in step order. */
static size_t drain(rtc_session *s, int64_t done)
{
    size_t n = rtc_ring_ready(s->inputs);
    bool vouched = done < 0;
    for (size_t i = 0; i < n; i++) {
        const rtc_inputs_rec *r = rtc_ring_at(s->inputs, i);
        if (!vouched && r->k >= done) {
            progress(s, done);
            vouched = true;
        }
        s->unflushed = true;
        unsigned char b[RTC__INPUTS_RECORD];
        rtc__inputs_encode(r, b);
        rtc_ofile_append(s->bin, b, sizeof b);
        if (rtc_ofile_end_record(s->bin) == RTC_OK)
            atomic_fetch_add_explicit(&s->written, 1, memory_order_relaxed);
        if (r->kind == RTC__KIND_COMMAND)
            command_event(s, r);
        else if (r->kind == RTC__KIND_SAMPLE)
            rtc__setpoint_event(s, r);
    }
    rtc_ring_release_n(s->inputs, n);
    if (!vouched)
        progress(s, done);
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
    if (w->seen && st.reconnects > w->reconnects)
        rtc_events_add(s->ev, "io", "%s: reconnected (%llu reconnect(s) so far)", u->name,
                       (unsigned long long)st.reconnects);
    if (w->seen && stale > w->stale)
        rtc_events_add(s->ev, "io", "%s: %llu signal(s) went stale (%llu stale event(s) so "
                       "far)", u->name, (unsigned long long)(stale - w->stale),
                       (unsigned long long)stale);
    uint64_t exceptions = 0; /* a Modbus driver's own counter; other drivers have none */
    rtc_driver_stats_counter(&st, "exceptions", &exceptions);
    uint64_t errors = st.errors + st.timeouts + exceptions;
    if (w->seen && errors > w->errors)
        rtc_events_add(s->ev, "io", "%s: %llu failed request(s) (errors %llu, timeouts %llu, "
                       "exceptions %llu)", u->name, (unsigned long long)(errors - w->errors),
                       (unsigned long long)st.errors, (unsigned long long)st.timeouts,
                       (unsigned long long)exceptions);
    *w = (rtc__io_watch){.unit = w->unit, .seen = true, .connected = st.connected,
                         .reconnects = st.reconnects, .stale = stale, .errors = errors};
}

/* The first failed write of inputs.bin or events.log: one line at once on the command
 * line's logger, then the stop unless asked to continue. */
static void check_writes(rtc_session *s)
{
    if (s->write_error[0])
        return;
    char path[4096] = "";
    int e = rtc_ofile_errno(s->bin);
    if (e)
        snprintf(path, sizeof path, "%s", rtc_ofile_path(s->bin));
    else
        e = rtc_events_write_error(s->ev, path, sizeof path);
    if (!e)
        return;
    snprintf(s->write_error, sizeof s->write_error, "write error: %.500s: %s", path,
             strerror(e));
    rtc_log(rtc__events_tee(s->ev), RTC_LOG_ERROR, "%s: write failed: %s; %s", path,
            strerror(e), s->write_continue ? "continuing as asked (--on-write-error continue)"
                                           : "stopping the run");
    if (!s->write_continue && s->ex)
        rtc_exec_request_stop(s->ex);
}

static void *writer_main(void *arg)
{
    rtc_session *s = arg;
    unsigned turn = 0;
    for (;;) {
        /* acquire: after the stop flag, every record the RT thread pushed is visible */
        bool last = atomic_load_explicit(&s->writer_stop, memory_order_acquire);
        bool flush = last || ++turn % FLUSH_EVERY == 0;
        /* acquire, before the drain: the records of the steps before `done` are in the
         * ring now */
        int64_t done = atomic_load_explicit(&s->steps_done, memory_order_acquire);
        drain(s, flush ? done : -1);
        rtc__events_peer_due(s->ev, last);
        if (last || turn % WATCH_EVERY == 0)
            for (size_t i = 0; i < s->n_watch; i++)
                watch_unit(s, &s->watch[i]);
        if (flush)
            rtc_ofile_flush(s->bin);
        check_writes(s);
        if (last)
            break;
        struct timespec ts = {0, WRITER_NAP_NS};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* ---- arming ---- */

/* Byte copy of the system file: a replay must load exactly what this run loaded. The
 * session never writes onto its input: when @p to already is @p from (the system lies in
 * the output folder under that name: same device and inode), it stays as it is; otherwise
 * the copy goes to a temporary name first and is renamed over @p to when complete, so the
 * destination is never opened with O_TRUNC while the source might be it. */
static int copy_file(const char *from, const char *to)
{
    struct stat a, b;
    if (stat(from, &a) == 0 && stat(to, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return RTC_OK;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", to);
    FILE *in = fopen(from, "rb"), *out = in ? fopen(tmp, "wb") : NULL;
    int rc = in && out ? RTC_OK : rtc_status_from_errno(errno);
    char buf[65536];
    size_t n;
    while (rc == RTC_OK && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            rc = rtc_status_from_errno(errno);
    if (in && ferror(in) && rc == RTC_OK)
        rc = RTC_EIO; /* stdio keeps no errno for a read error */
    if (out && fclose(out) != 0 && rc == RTC_OK)
        rc = rtc_status_from_errno(errno);
    if (in)
        fclose(in);
    if (rc == RTC_OK && rename(tmp, to) != 0)
        rc = rtc_status_from_errno(errno);
    if (rc != RTC_OK && out)
        unlink(tmp);
    return rc;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcasecmp(s + n - m, suf);
}

/* A system given as a directory (an unpacked SSP) is its SystemStructure.ssd, read with
 * the directory as its source directory: true and the file's path in @p ssd. */
static bool unpacked_ssp(const char *system_path, char *ssd, size_t cap)
{
    struct stat st;
    if (stat(system_path, &st) != 0 || !S_ISDIR(st.st_mode))
        return false;
    snprintf(ssd, cap, "%s/SystemStructure.ssd", system_path);
    return true;
}

/* system.<ext> and fmus.sha256 ("HASH  UNIT  PATH" for every unit made from a file). */
static int write_copies(rtc_session *s, const char *system_path)
{
    const char *ext = has_suffix(system_path, ".ssp")   ? "ssp"
                      : has_suffix(system_path, ".fmu") ? "fmu"
                                                        : "ssd";
    char path[4096], ssd[4200];
    if (unpacked_ssp(system_path, ssd, sizeof ssd))
        system_path = ssd;
    snprintf(path, sizeof path, "%s/system.%s", s->dir, ext);
    int rc = copy_file(system_path, path);
    if (rc != RTC_OK) {
        rtc_log(refusal(s), RTC_LOG_ERROR, "cannot copy %s to %s: %s", system_path, path,
                rtc_strerror(rc));
        return rc;
    }
    snprintf(path, sizeof path, "%s/fmus.sha256", s->dir);
    char tmp[4200];
    FILE *f = rtc_ofile_replace_begin(path, tmp, sizeof tmp); /* renamed when complete */
    if (!f)
        return rtc_status_from_errno(errno);
    for (size_t i = 0; i < rtc_system_unit_count(s->sys); i++) {
        const char *src = rtc_system_unit_source(s->sys, i);
        const char *hex = rtc_system_unit_sha256(s->sys, i); /* hashed at load time */
        if (!src || has_suffix(src, ".ssd") || has_suffix(src, ".ssp"))
            continue;
        if (!hex) {
            rtc_log(refusal(s), RTC_LOG_ERROR, "cannot hash %s", src);
            rc = RTC_EIO; /* the hash was not made at load: the file could not be read */
            continue;
        }
        fprintf(f, "%s  %s  %s\n", hex, rtc_system_unit(s->sys, i)->name, src);
    }
    int wrc = rtc_ofile_replace_commit(f, tmp, path);
    return wrc != RTC_OK ? wrc : rc;
}

/* session.conf: the command line's overrides, which replay must repeat. */
static int write_conf(rtc_session *s, const rtc_session_options *o)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/session.conf", s->dir);
    char tmp[4200];
    FILE *f = rtc_ofile_replace_begin(path, tmp, sizeof tmp); /* renamed when complete */
    if (!f)
        return rtc_status_from_errno(errno);
    static const rtc_system_options none;
    const rtc_system_options *so = o->sys_options ? o->sys_options : &none;
    char *abs = realpath(o->system_path, NULL), ssd[4200];
    fprintf(f, "# rtcosim session: settings for 'rtcosim replay'\nsystem=%s\n",
            abs ? abs : o->system_path);
    if (abs && unpacked_ssp(abs, ssd, sizeof ssd)) /* its resources/ are in it */
        fprintf(f, "source_dir=%s\n", abs);
    else if (abs && strrchr(abs, '/'))
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
    if (o->node) /* a node's part of a distributed run: replay loads the same part */
        fprintf(f, "node=%s\n", o->node);
    for (size_t i = 0; o->node && i < o->n_places; i++)
        fprintf(f, "place=%s\n", o->places[i]);
    for (size_t i = 0; i < so->n_unit_settings; i++) /* a single FMU's --interface, ... */
        fprintf(f, "unit.%s=%s\n", so->unit_settings[i].key, so->unit_settings[i].value);
    if (so->fmu_logging)
        fprintf(f, "fmu_logging=1\n");
    return rtc_ofile_replace_commit(f, tmp, path);
}

/* Little-endian writers: inputs.bin is the same on every machine that reads it. */
static void put_u16(rtc_ofile *f, size_t v)
{
    unsigned char b[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    rtc_ofile_append(f, b, 2);
}

static void put_str(rtc_ofile *f, const char *str)
{
    size_t n = strlen(str);
    n = n > 65535 ? 65535 : n;
    put_u16(f, n);
    rtc_ofile_append(f, str, n);
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
    rtc_ofile_append(s->bin, h, sizeof h);
    for (size_t i = 0; i < s->n_sig; i++) {
        put_str(s->bin, s->sig_unit[i]);
        put_str(s->bin, s->sig_name[i]);
    }
    for (size_t i = 0; i < s->n_var; i++)
        put_str(s->bin, s->var[i].spec);
    static const unsigned char pad[8];
    rtc_ofile_append(s->bin, pad, total - len);
    rtc_ofile_end_record(s->bin); /* the header is one record: never seen half written */
    return rtc_ofile_flush(s->bin);
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
    char err[512] = "";
    int rc = rtc__xvars_parse(s->sys, o->expose, o->n_expose, &s->var, &s->n_var, err,
                              sizeof err);
    if (rc != RTC_OK)
        rtc_log(refusal(s), RTC_LOG_ERROR, "%s", err[0] ? err : rtc_strerror(rc));
    return rc;
}

/* The published snapshot has one double per recorded column — what get and subscribe
 * serve is exactly what results.csv holds, sampled after every step — then a value and a
 * target per exposed variable, filled here already so a surface shows them before the
 * first step (the system is initialized; the RT thread does not run yet). */
static int build_snapshot(rtc_session *s, rtc_record *rec)
{
    s->rec = rec;
    s->n_col = rec ? rtc_record_columns(rec) : 0;
    if (!s->n_col && !s->n_var)
        return RTC_OK;
    s->row = s->n_col ? calloc(1, rtc_record_row_size(rec)) : NULL;
    s->snap = calloc(s->n_col + 2 * s->n_var, sizeof *s->snap);
    if ((s->n_col && !s->row) || !s->snap)
        return RTC_ENOMEM;
    put_vars(s);
    return RTC_OK;
}

/* A record stream: the writer thread issues one write() per flush tick even at thousands
 * of samples per second, always ending on a record boundary. */
static int open_bin(rtc_session *s)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/inputs.bin", s->dir);
    int rc = rtc_ofile_open(path, &s->bin);
    if (rc != RTC_OK) {
        rtc_log(refusal(s), RTC_LOG_ERROR, "%s: cannot create: %s", path, rtc_strerror(rc));
        return rc;
    }
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
    s->progress_k = 0; /* progress 0 says nothing: the first one is for step 1 or later */
    s->write_continue = o->continue_on_write_error;
    pthread_mutexattr_t ma; /* off the RT thread only; PI as every lock of the engine */
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&s->op_mu, &ma);
    pthread_mutexattr_destroy(&ma);
    const rtc_system_rt_hints *h = rtc_system_rt(sys);
    s->deadman_ns = o->deadman_ns > 0 ? o->deadman_ns : h->has_deadman ? h->deadman_ns : 0;
    rtc_events_set_clock(ev, s->start_ns, s->tick_ns);
    int rc = s->dir ? RTC_OK : RTC_ENOMEM;
    /* before the taps: a unit hands them its initialization's values at once */
    if (rc == RTC_OK)
        rc = rtc_ring_new(sizeof(rtc_inputs_rec), o->inputs_ring ? o->inputs_ring : 65536,
                          &s->inputs);
    if (rc == RTC_OK)
        rc = build_signals(s);
    if (rc == RTC_OK)
        rc = rtc__setpoints_init(s);
    s->has_io = s->n_watch > 0;
    s->caps = o->caps_given ? o->caps : rtc_session_caps_default(s->has_io);
    if (rc == RTC_OK)
        rc = build_vars(s, o);
    if (rc == RTC_OK)
        rc = build_snapshot(s, o->record);
    if (rc == RTC_OK)
        rc = rtc_ring_new(sizeof(rtc__cmd), o->command_ring ? o->command_ring : 256, &s->cmd);
    if (rc == RTC_OK)
        rc = write_copies(s, o->system_path);
    if (rc == RTC_OK)
        rc = write_conf(s, o);
    if (rc == RTC_OK)
        rc = open_bin(s);
    if (rc == RTC_OK) {
        s->armed_ns = s->last_heard_ns = rtc_time_now_ns();
        rtc_rt_thread_opts to = {.priority = 0, .cpu = -1, .name = "rtcosim-session"};
        rc = rtc_rt_thread_start(&to, writer_main, s, rtc__events_tee(ev), &s->writer);
    }
    if (rc != RTC_OK) {
        rtc_session_close(s, -1, NULL);
        return rc;
    }
    char caps[96];
    rtc_session_caps_text(s->caps, caps, sizeof caps);
    rtc_events_add(ev, "session", "session armed: %zu I/O signal(s) recorded, %zu exposed "
                   "variable(s), %zu column(s) published%s; the operator may: %s", s->n_sig,
                   s->n_var, s->n_col, s->deadman_ns ? ", dead-man armed" : "", caps);
    *out = s;
    return RTC_OK;
}

void rtc_session_attach(rtc_session *s, rtc_exec *ex)
{
    s->ex = ex;
    rtc_exec_stats st;
    rtc_exec_stats_get(ex, &st);
    s->period_ns = st.period_ns; /* paced single steps follow the run's wall period */
}

void rtc_session_close(rtc_session *s, int64_t end_k, rtc_session_stats *stats)
{
    if (!s)
        return;
    /* the writer drains what is left before it exits (its last turn sees the stop flag
     * with acquire), so the end record really is the last one */
    if (s->writer) {
        atomic_store_explicit(&s->writer_stop, true, memory_order_release);
        rtc_rt_thread_join(s->writer);
        s->writer = NULL;
    }
    if (s->bin && end_k >= 0) {
        rtc_inputs_rec r = {.kind = RTC__KIND_END, .k = end_k, .a_ns = end_k * s->tick_ns};
        unsigned char b[RTC__INPUTS_RECORD];
        rtc__inputs_encode(&r, b);
        rtc_ofile_append(s->bin, b, sizeof b);
        rtc_ofile_end_record(s->bin);
    }
    if (s->bin) {
        rtc_ofile_flush(s->bin);
        check_writes(s); /* the writer has stopped: the last flush is checked here */
        char path[4096];
        snprintf(path, sizeof path, "%s", rtc_ofile_path(s->bin));
        if (rtc_ofile_close(s->bin) != RTC_OK && !s->write_error[0]) { /* fsync, close */
            snprintf(s->write_error, sizeof s->write_error, "write error: %.500s: %s", path,
                     strerror(errno));
            rtc_log(rtc__events_tee(s->ev), RTC_LOG_ERROR, "%s: write failed: %s", path,
                    strerror(errno));
        }
        s->bin = NULL;
    }
    if (stats)
        rtc_session_stats_get(s, stats);
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
    rtc__setpoints_clear(s);
    free(s->var);
    free(s->watch);
    free(s->row);
    free(s->snap);
    rtc_ring_free(s->cmd);
    rtc_ring_free(s->inputs);
    pthread_mutex_destroy(&s->op_mu);
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
        .events_suppressed = rtc_events_suppressed(s->ev),
        .inputs_high_water = rtc_ring_high_water(s->inputs),
        .n_exposed = s->n_var};
    snprintf(out->write_error, sizeof out->write_error, "%s", s->write_error);
}
