/*
 * I/O units: SSP components whose type names a driver (Modbus client/server, OSC) become
 * units of the system, so their signals connect to FMUs with ordinary connections (units,
 * transformations and delays apply). See DESIGN.md "One communication step".
 *
 * Each connector is a signal with a mailbox shared with the driver's I/O thread: an output
 * connector carries what the bench sends (FROM_BENCH), an input connector what goes to it
 * (TO_BENCH). The master refreshes an I/O unit at the start of every tick (ops->refresh):
 * new samples are pushed, with their own sample and arrival times mapped to logical time,
 * into the signal's estimator, which answers "the value at t" — late, irregular or noisy
 * bench data is estimated at the engine's current instant instead of being held stale
 * (by default "auto", which measures its candidates on the signal: the estimator notes
 * what it supplied at each tick, and its monitor compares that with the samples that
 * arrive later).
 * The RT side touches only mailboxes and estimators: no allocation, lock or system call.
 *
 * DESIGN: the value path of one bench sample, from a Modbus register to fmi2SetReal.
 * One estimator (the signal's: an estimator a connection from the signal names runs here
 * too, system_link.c) and one conversion to the FMU input's type. Copies of the value at
 * each hop, for a float32 input register feeding an FMI 2 Real input:
 *
 *   hop                                             where                       copies
 *   1 socket -> response frame -> uint16 registers  libmodbus, I/O thread       2
 *   2 registers -> double: word order, type, scale,  rtc__mb_decode_regs         0 (locals;
 *     offset, clamp (to engineering units)                                        1 conversion)
 *   3 -> mailbox (value, sample/arrival time, seq)  rtc_mailbox_write (seqlock) 1
 *   ---- RT thread, refresh at t_k ------------------------------------------------------
 *   4 mailbox -> rtc_sample (only when seq is new)  take_new                    1
 *   5 -> rtc_est_sample (times mapped to logical)   take_new                    1
 *   6 -> the estimator's history                    rtc_est_push                1
 *   7 estimate at t_k -> the signal's value         u_refresh (rtc_est_supply,  1
 *                                                   within_type)
 *   8 value -> k·x + d or map -> the input's type,  rtc__sys_link_apply         1 (the one
 *     into the unit's input buffer                  (system_link.c)               conversion)
 *   9 input buffer -> fmi2SetReal(vr[], values[])   rtc__sys_set_inputs         0 (handed
 *                                                                                 as it is)
 *
 * Besides the path: the session's tap copies each pushed sample into the recording ring
 * (hop 6), and rtc__sys_fetch copies the signal's value into the unit's typed output
 * buffer for results and surfaces (hop 7); neither feeds the FMU. A connector that is not
 * Real keeps the estimate within its type at hop 7 (an Integer one rounds), so what is
 * recorded is what every link converts; FMI 2 Boolean and enumeration inputs take one more
 * copy in the FMU host's scratch array (fmi2Boolean and fmi2Integer differ from bool and
 * int64). The OSC driver's path differs only before hop 3 (one message argument -> double).
 */
#include "rtcosim/driver.h"
#include "rtcosim/estimate.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/lockstep.h"
#include "rtcosim/rt.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"
#include "rtcosim/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct io_signal {
    rtc_mailbox *mb;
    rtc_est *est;       /* FROM_BENCH: the one estimator of the bench value */
    const char *est_by; /* who named it: "its rtc:Signal", "connection a.y -> b.u"; NULL:
                         * a default (auto, or the system's rtc:RealTime estimator) */
    uint32_t seen_seq;  /* newest mailbox sequence pushed into est */
    rtc_type type;      /* the connector's type */
    double value;       /* output: the estimate, within the connector type's values (what
                         * links read); input: the last value sent */
    bool from_bench;
    /* an operator's value replacing the bench's (set on an output): it holds from the
     * tick it was set at until a sample newer than that tick arrives */
    bool forced, force_new;
    double force_value;
    long feed_idx;      /* replay: the signal's index in the recorded feed, -1: none */
    size_t ls_pos;      /* lock-step: the signal's value in a round of its direction */
} io_signal;

typedef struct io_unit {
    rtc_unit unit;
    rtc_model_desc md;
    const rtc_driver_ops *ops;
    void *drv;
    rtc_link *link;     /* the driver's link contract (NULL: none, or replay) */
    bool released;      /* the driver may send to the bench (from the first refresh) */
    const rtc_logger *lg;
    char *name;
    io_signal *sig;
    size_t n;
    int64_t t0_mono_ns; /* wall clock of logical time 0 */
    double rtf;
    int64_t now_ns;     /* logical time of the last refresh */
    bool started, clock;
    void **owned;       /* copies of every string and list handed to the driver */
    size_t n_owned;
    /* session recording: every sample pushed into an estimator goes to the tap */
    rtc_io_sample_fn tap;
    void *tap_user;
    uint32_t tap_base;  /* session signal index of signal 0 */
    const rtc_io_sample_source *feed; /* replay unit: samples come from here, no driver */
    /* lock-step (the driver enabled the channel, rtcosim/lockstep.h): rounds instead of
     * mailboxes; the stepping thread waits for the peer's round of each tick */
    rtc_lockstep *ls;
    rtc_driver_tx tx;   /* what went to the bench last: the driver may sleep on it */
    uint32_t ls_k;      /* the next tick round */
    bool ls_done;       /* an initialization-only channel after the initialization: the
                         * unit runs on mailboxes (rtc_lockstep_enable_init) */
    int64_t ls_dt_ns;   /* the base tick, as the refreshes are apart */
    bool ls_ended;      /* the last round went out (terminate) */
    double *init_vals;  /* the peer's values of each initialization pass, per incoming
                         * signal (RTC_IO_INIT_PASSES_CAP passes), for the recording */
    size_t n_init, n_in;
} io_unit;

/* Logical time of a CLOCK_MONOTONIC instant under the current time base. */
static int64_t to_logical(const io_unit *u, int64_t mono_ns)
{
    double d = (double)(mono_ns - u->t0_mono_ns) * u->rtf;
    return u->rtf == 1.0 ? mono_ns - u->t0_mono_ns : (int64_t)d;
}

static int64_t to_mono(const io_unit *u, int64_t t_ns)
{
    return u->t0_mono_ns + (u->rtf == 1.0 ? t_ns : (int64_t)((double)t_ns / u->rtf));
}

/* The one place a sample enters a signal's estimator: live from the mailbox and in replay
 * from the recorded feed, so both feed the same (sample, query) sequence at the same tick.
 * The tap copies what was pushed (numbers only) for the session recording. */
static void push_sample(io_unit *u, size_t i, int64_t t_ns, const rtc_est_sample *e,
                        uint8_t quality)
{
    rtc_est_push(u->sig[i].est, e);
    if (u->tap)
        u->tap(u->tap_user, u->tap_base + (uint32_t)i, t_ns,
               &(rtc_sample){.value = e->value, .sample_ns = e->t_ns,
                             .arrival_ns = e->arrival_ns, .quality = quality});
}

/* New samples of signal i at t: from the mailbox (live) or the feed (replay). */
static bool take_new(io_unit *u, size_t i, int64_t t_ns)
{
    io_signal *s = &u->sig[i];
    bool any = false;
    rtc_est_sample e = {0};
    if (u->feed) {
        while (s->feed_idx >= 0 && u->feed->next(u->feed->user, s->feed_idx, t_ns, &e.value,
                                                 &e.t_ns, &e.arrival_ns)) {
            push_sample(u, i, t_ns, &e, RTC_QUALITY_FRESH);
            any = true;
        }
        return any;
    }
    rtc_sample smp;
    /* the sequence first: on most ticks nothing new arrived, and nothing is copied */
    if (u->clock && rtc_mailbox_seq(s->mb) != s->seen_seq && rtc_mailbox_read(s->mb, &smp) &&
        smp.seq && smp.seq != s->seen_seq && smp.quality == RTC_QUALITY_FRESH) {
        e = (rtc_est_sample){.t_ns = to_logical(u, smp.sample_ns),
                             .arrival_ns = to_logical(u, smp.arrival_ns), .value = smp.value};
        push_sample(u, i, t_ns, &e, smp.quality);
        s->seen_seq = smp.seq;
        any = true;
    }
    return any;
}

/* @p x as the connector's type holds it (an Integer connector's value is whole, a Boolean
 * one 0 or 1; a Real one unchanged), still a double: what the recorded column shows is
 * what every link from the signal converts, once, to its destination's type. */
static double within_type(rtc_type type, double x)
{
    if (type == RTC_TYPE_FLOAT64)
        return x;
    rtc_value slot; /* a typed slot of an output buffer, as rtc__sys_fetch fills it */
    rtc_value v = rtc_value_from_double(type, x);
    rtc_value_store(type, &v, &slot, 0);
    return rtc_value_to_double(type, rtc_value_load(type, &slot, 0));
}

/* ---- lock-step (rtcosim/lockstep.h): rounds instead of mailboxes ---- */

/* The peer's values of tick k into the estimators at t_k: a sample true at t_k that arrived
 * at t_k, which the zero-order hold the link runs with answers unchanged. Each signal takes
 * the round its "ahead" names: r0 (made before this tick) or r1 (made in it). */
static void ls_take(io_unit *u, const rtc_lockstep_round *r0, const rtc_lockstep_round *r1,
                    int64_t t_ns)
{
    for (size_t i = 0; i < u->n; i++) {
        io_signal *s = &u->sig[i];
        const rtc_lockstep_round *r = !s->from_bench ? NULL
                                      : rtc_lockstep_ahead(u->ls, s->ls_pos) ? r1 : r0;
        if (!r)
            continue;
        rtc_est_sample e = {.t_ns = t_ns, .arrival_ns = t_ns, .value = r->v[s->ls_pos]};
        push_sample(u, i, t_ns, &e, RTC_QUALITY_FRESH);
    }
}

/* Tick k: hand over the values staged for t_k (set after tick k-1, or after initialization),
 * then wait for the peer's rounds this tick reads: k, and k+1 for values it makes first
 * (Gauss-Seidel across nodes); without incoming values, every RTC_LOCKSTEP_PACE ticks the
 * round that many back keeps the peer within the channel's depth. Without outgoing
 * values, only those rounds go (the peer waits for nothing else). */
static int ls_tick(io_unit *u, int64_t t_ns)
{
    uint32_t k = u->ls_k++;
    const rtc_lockstep_round *r0 = NULL, *r1 = NULL, *r = NULL;
    int ahead = rtc_lockstep_tick_ahead(u->ls);
    bool any0 = false;
    for (size_t i = 0; i < u->n; i++)
        any0 |= u->sig[i].from_bench && !rtc_lockstep_ahead(u->ls, u->sig[i].ls_pos);
    bool paced = k % RTC_LOCKSTEP_PACE == 0;
    int rc = rtc_lockstep_n_out(u->ls) || paced ? rtc_lockstep_commit(u->ls, RTC_LOCKSTEP_TICK,
                                                                      k, t_ns)
                                                : RTC_OK;
    if (rc == RTC_OK && ahead < 0 && paced && k > 0)
        rc = rtc_lockstep_wait(u->ls, RTC_LOCKSTEP_TICK, k - RTC_LOCKSTEP_PACE, &r);
    if (rc == RTC_OK && any0)
        rc = rtc_lockstep_wait(u->ls, RTC_LOCKSTEP_TICK, k, &r0);
    if (rc == RTC_OK && ahead > 0)
        rc = rtc_lockstep_wait(u->ls, RTC_LOCKSTEP_TICK, k + 1, &r1);
    if (rc != RTC_OK) {
        const char *why = rtc_lockstep_failure(u->ls);
        rtc_log(u->lg, RTC_LOG_ERROR, "%s: lock-step tick %lld: %s", u->name, (long long)k,
                why ? why : rc == RTC_ETIME ? "the peer's values did not come in time"
                                            : "the link failed");
        return rc;
    }
    ls_take(u, r0, r1, t_ns);
    rtc_lockstep_release(u->ls);
    return RTC_OK;
}

bool rtc_io_unit_lockstep(const rtc_unit *unit)
{
    const io_unit *u = rtc_io_unit_is(unit) ? unit->self : NULL;
    return u && u->ls && !u->ls_done;
}

int rtc_io_unit_lockstep_pass(rtc_unit *unit, uint32_t pass)
{
    if (!rtc_io_unit_lockstep(unit))
        return RTC_EINVAL;
    io_unit *u = unit->self;
    const rtc_lockstep_round *r = NULL;
    int rc = rtc_lockstep_commit(u->ls, RTC_LOCKSTEP_INIT, pass, 0);
    if (rc == RTC_OK)
        rc = rtc_lockstep_wait(u->ls, RTC_LOCKSTEP_INIT, pass, &r);
    if (rc != RTC_OK) {
        const char *why = rtc_lockstep_failure(u->ls);
        rtc_log(u->lg, RTC_LOG_ERROR, "%s: lock-step initialization, pass %u: %s", u->name,
                pass, why ? why : rc == RTC_ETIME ? "the peer's values did not come in time"
                                                  : "the link failed");
        return rc;
    }
    for (size_t i = 0; r && i < u->n; i++)
        if (u->sig[i].from_bench)
            u->sig[i].value = within_type(u->sig[i].type, r->v[u->sig[i].ls_pos]);
    if (r && u->init_vals && pass == u->n_init && pass < RTC_IO_INIT_PASSES_CAP)
        memcpy(u->init_vals + (size_t)pass * u->n_in, r->v, u->n_in * sizeof *r->v),
            u->n_init++;
    rtc_lockstep_release(u->ls);
    return RTC_OK;
}

bool rtc_io_unit_init_exchange(const rtc_unit *unit)
{
    const io_unit *u = rtc_io_unit_is(unit) ? unit->self : NULL;
    return u && (u->feed || (u->ls && !u->ls_done));
}

int rtc_io_unit_init_pass(rtc_unit *unit, uint32_t pass)
{
    if (!rtc_io_unit_init_exchange(unit))
        return RTC_EINVAL;
    io_unit *u = unit->self;
    if (!u->feed)
        return rtc_io_unit_lockstep_pass(unit, pass);
    for (size_t i = 0; i < u->n; i++) {
        io_signal *s = &u->sig[i];
        double v;
        int64_t a, b;
        while (s->from_bench && s->feed_idx >= 0 &&
               u->feed->next(u->feed->user, s->feed_idx, -1 - (int64_t)pass, &v, &a, &b))
            s->value = within_type(s->type, v);
    }
    return RTC_OK;
}

/* The passes kept so far to a tap set after initialization (the session's). */
static void tap_init_passes(io_unit *u)
{
    for (size_t p = 0; u->tap && p < u->n_init; p++)
        for (size_t i = 0; i < u->n; i++)
            if (u->sig[i].from_bench)
                u->tap(u->tap_user, u->tap_base + (uint32_t)i, 0,
                       &(rtc_sample){.value = u->init_vals[p * u->n_in + u->sig[i].ls_pos],
                                     .sample_ns = (int64_t)p, .arrival_ns = (int64_t)p,
                                     .quality = RTC_IO_INIT_PASS_QUALITY});
}

/* The values staged after the last tick (the run's end), then the end mark: a peer
 * stepping after this node (Gauss-Seidel) reads them in its last tick. A unit refreshed
 * early (rtc_io_unit_lockstep_early) sent them with its refresh right after that tick. */
static void ls_finish(io_unit *u)
{
    if (!u->ls || u->ls_ended || u->ls_done)
        return;
    u->ls_ended = true;
    int64_t t = u->now_ns + u->ls_dt_ns; /* one tick after the last refresh */
    if (u->ls_k > 0 && rtc_lockstep_tick_ahead(u->ls) <= 0)
        rtc_lockstep_commit(u->ls, RTC_LOCKSTEP_END, u->ls_k, u->now_ns);
    else if (rtc_lockstep_commit(u->ls, RTC_LOCKSTEP_TICK, u->ls_k, t) == RTC_OK)
        rtc_lockstep_commit(u->ls, RTC_LOCKSTEP_END, u->ls_k + 1, t);
}

bool rtc_io_unit_lockstep_early(const rtc_unit *unit)
{
    return rtc_io_unit_lockstep(unit) &&
           rtc_lockstep_tick_ahead(((const io_unit *)unit->self)->ls) <= 0;
}

static int u_refresh(void *self, int64_t t_ns)
{
    io_unit *u = self;
    if (u->ls && !u->ls_done && u->ls_k > 0 && t_ns == u->now_ns)
        return RTC_OK; /* refreshed for t_ns right after the tick before (masters/master.c) */
    u->ls_dt_ns = t_ns - u->now_ns;
    u->now_ns = t_ns;
    if (!u->released) { /* the run's first tick: the bench gets values from now on */
        u->released = true;
        rtc_link_release(u->link);
    }
    int rc = u->ls && !u->ls_done ? ls_tick(u, t_ns) : RTC_OK;
    if (rc != RTC_OK)
        return rc;
    for (size_t i = 0; i < u->n; i++) {
        io_signal *s = &u->sig[i];
        if (!s->from_bench)
            continue;
        bool fresh = take_new(u, i, t_ns);
        if (s->forced && s->force_new)
            s->force_new = false; /* set at this tick: it wins over this tick's sample */
        else if (s->forced && fresh)
            s->forced = false;    /* the bench spoke again after the operator's value */
        rtc_est_out o;
        int q = rtc_est_supply(s->est, t_ns, &o); /* the tick's value, noted for the monitor */
        if (q == RTC_EST_FAULT && !s->forced)
            return RTC_ESTALE; /* stale beyond the signal's limit, fault policy: stop */
        if (s->forced)
            s->value = s->force_value;
        else if (q >= 0 && q != RTC_EST_NODATA)
            s->value = within_type(s->type, o.value);
    }
    return RTC_OK;
}

static void u_set_time_base(void *self, int64_t t0_mono_ns, double rtf)
{
    io_unit *u = self;
    u->t0_mono_ns = t0_mono_ns;
    u->rtf = rtf > 0 ? rtf : 1.0;
    u->clock = true;
}

/* What goes to the bench: one mailbox write per signal, stamped with the tick's time. */
static int u_set(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, const void *values,
                 size_t n_values)
{
    io_unit *u = self;
    if (n_values != n_vr || type == RTC_TYPE_STRING || type == RTC_TYPE_BINARY)
        return RTC_EINVAL;
    int64_t now = u->clock ? to_mono(u, u->now_ns) : rtc_time_now_ns();
    for (size_t i = 0; i < n_vr; i++)
        if (vr[i] >= u->n)
            return RTC_EINVAL;
    bool sent = false;
    for (size_t i = 0; i < n_vr; i++) {
        io_signal *s = &u->sig[vr[i]];
        if (s->from_bench) { /* an operator's override of what the bench sends */
            s->forced = s->force_new = true;
            double x = rtc_value_to_double(type, rtc_value_load(type, values, i));
            s->force_value = s->value = within_type(s->type, x);
            continue;
        }
        s->value = rtc_value_to_double(type, rtc_value_load(type, values, i));
        if (u->ls && !u->ls_done) { /* the next round's value: out with the commit */
            rtc_lockstep_stage(u->ls)[s->ls_pos] = s->value;
            continue;
        }
        rtc_sample smp = {.value = s->value, .sample_ns = now, .arrival_ns = now,
                          .quality = RTC_QUALITY_FRESH};
        rtc_mailbox_write(s->mb, &smp);
        sent = true;
    }
    if (sent) { /* release: a driver that sees seq change sees the mailboxes and t_ns */
        atomic_store_explicit(&u->tx.t_ns, u->now_ns, memory_order_relaxed);
        atomic_fetch_add_explicit(&u->tx.seq, 1, memory_order_release);
        rtc_rt_wake(&u->tx.seq, &u->tx.waiters); /* a futex call only when one sleeps */
    }
    return RTC_OK;
}

static int u_get(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, void *values,
                 size_t n_values)
{
    io_unit *u = self;
    if (n_values != n_vr || type == RTC_TYPE_STRING || type == RTC_TYPE_BINARY)
        return RTC_EINVAL;
    for (size_t i = 0; i < n_vr; i++) {
        if (vr[i] >= u->n)
            return RTC_EINVAL;
        rtc_value v = rtc_value_from_double(type, u->sig[vr[i]].value);
        rtc_value_store(type, &v, values, i);
    }
    return RTC_OK;
}

static int u_instantiate(void *self, const rtc_unit_setup *setup)
{
    (void)self, (void)setup; /* the driver was opened (and its map checked) at creation */
    return RTC_OK;
}

/* The I/O thread starts with initialization, so values flow before the first step. */
static int u_enter_init(void *self)
{
    io_unit *u = self;
    if (!u->drv)
        return RTC_OK; /* replay: nothing to start */
    int rc = u->ops->start(u->drv);
    if (rc != RTC_OK) {
        if (rc != RTC_ESTATE) /* ESTATE: called off (a Ctrl-C): the stop path says why */
            rtc_log(u->lg, RTC_LOG_ERROR, "%s: cannot start the %s driver: %s", u->name,
                    u->ops->name, rtc_strerror(rc));
        return rc;
    }
    u->started = true;
    return RTC_OK;
}

/* An initialization-only lock-step channel has done its work: mailboxes from here on. */
static int u_exit_init(void *self)
{
    io_unit *u = self;
    u->ls_done = rtc_lockstep_init_only(u->ls);
    return RTC_OK;
}

static int u_do_step(void *self, double t_s, double h_s, rtc_step_result *res)
{
    (void)self;
    res->outcome = RTC_STEP_DONE; /* never called: the master refreshes I/O units */
    res->last_time_s = t_s + h_s;
    res->event_needed = false;
    return RTC_OK;
}

static int u_write_safe(void *self)
{
    io_unit *u = self;
    return u->drv ? u->ops->write_safe_values(u->drv, 200) : RTC_OK;
}

/* Terminate: the driver's stop writes the safe values on its way out. */
static int u_terminate(void *self)
{
    io_unit *u = self;
    int rc = RTC_OK;
    ls_finish(u);
    if (u->started)
        rc = u->ops->stop(u->drv);
    u->started = false;
    return rc;
}

static void u_free(void *self)
{
    io_unit *u = self;
    if (!u)
        return;
    if (u->started)
        u->ops->stop(u->drv);
    if (u->drv && u->ops)
        u->ops->close(u->drv);
    rtc_lockstep_free(u->ls);
    free(u->init_vals);
    for (size_t i = 0; i < u->n; i++) {
        rtc_mailbox_free(u->sig[i].mb);
        rtc_est_free(u->sig[i].est);
        free(u->md.vars[i].start);
    }
    for (size_t i = 0; i < u->n_owned; i++)
        free(u->owned[i]);
    free(u->owned);
    free(u->md.vars);
    free(u->sig);
    free(u->name);
    free(u);
}

static const rtc_unit_ops io_ops = {
    .kind = "io",
    .instantiate = u_instantiate,
    .enter_init = u_enter_init,
    .exit_init = u_exit_init,
    .set = u_set,
    .get = u_get,
    .do_step = u_do_step,
    .terminate = u_terminate,
    .free = u_free,
    .refresh = u_refresh,
    .set_time_base = u_set_time_base,
    .write_safe = u_write_safe,
};

/* Keep @p block (owned by the unit until free); returns it, or NULL (and frees it). */
static void *own(io_unit *u, void *block)
{
    void **l = block ? realloc(u->owned, (u->n_owned + 1) * sizeof *l) : NULL;
    if (!l) {
        free(block);
        return NULL;
    }
    u->owned = l;
    return l[u->n_owned++] = block;
}

/* A copy of @p s kept by the unit (the driver may hold the pointers for its lifetime). */
static const char *keep(io_unit *u, const char *s)
{
    return own(u, strdup(s ? s : ""));
}

static rtc_kv *keep_kv(io_unit *u, const rtc_kv *kv, size_t n)
{
    rtc_kv *c = own(u, calloc(n + 1, sizeof *c));
    for (size_t i = 0; c && i < n; i++)
        c[i] = (rtc_kv){keep(u, kv[i].key), keep(u, kv[i].value)};
    return c;
}

/* Signal i from port i: mailbox, estimator (FROM_BENCH), and its variable. */
static int make_signal(io_unit *u, const rtc_unit_spec *sp, size_t i, rtc_io_signal *cfg)
{
    const rtc_unit_port *p = &sp->ports[i];
    io_signal *s = &u->sig[i];
    rtc_var *v = &u->md.vars[i];
    if (p->causality != RTC_CAUSALITY_INPUT && p->causality != RTC_CAUSALITY_OUTPUT) {
        rtc_log(u->lg, RTC_LOG_ERROR, "%s:%u: Component %s: connector %s must be an input or "
                "an output of an I/O component", sp->file, sp->line, sp->name, p->name);
        return RTC_EINVAL;
    }
    s->from_bench = p->causality == RTC_CAUSALITY_OUTPUT;
    s->type = p->type;
    s->feed_idx = -1;
    int rc = rtc_mailbox_new(&s->mb);
    if (rc != RTC_OK)
        return rc;
    *v = (rtc_var){.name = (char *)keep(u, p->name), .vr = (uint32_t)i, .type = p->type,
                   .causality = p->causality, .derivative_of = -1,
                   .variability = p->type <= RTC_TYPE_FLOAT32 ? RTC_VARIABILITY_CONTINUOUS
                                                              : RTC_VARIABILITY_DISCRETE,
                   .initial = s->from_bench ? RTC_INITIAL_CALCULATED : RTC_INITIAL_NONE,
                   .unit = (char *)keep(u, p->unit)};
    if (!s->from_bench) { /* inputs start at 0, like an unconnected FMU input */
        v->n_start = 1;
        v->start = calloc(1, sizeof *v->start);
    }
    const rtc_kv *kv = keep_kv(u, p->settings, p->n_settings);
    *cfg = (rtc_io_signal){.name = v->name, .type = p->type, .settings = kv,
                           .n_settings = p->n_settings, .mailbox = s->mb,
                           .dir = s->from_bench ? RTC_IO_FROM_BENCH : RTC_IO_TO_BENCH};
    if (!v->name || !kv)
        return RTC_ENOMEM;
    if (!s->from_bench)
        return RTC_OK;
    /* "estimator" and "params" of the rtc:Signal: how late, noisy bench data is estimated
     * (until a connection from the signal names one, auto stands in: set_estimator). A
     * bench value is always late: the default measures its candidates on it. */
    const char *method = rtc_kv_get(p->settings, p->n_settings, "estimator");
    const char *params = rtc_kv_get(p->settings, p->n_settings, "params");
    rtc_est_config ec;
    char err[256] = "";
    rc = rtc_est_config_parse(&ec, method ? method : "auto", params, err, sizeof err);
    if (rc == RTC_OK)
        rc = rtc_est_new(&ec, &s->est, err, sizeof err);
    if (rc == RTC_OK && (method || params))
        s->est_by = RTC_IO_EST_BY_SIGNAL;
    if (rc != RTC_OK)
        rtc_log(u->lg, RTC_LOG_ERROR, "%s:%u: Component %s, signal %s: estimator: %s", sp->file,
                sp->line, sp->name, p->name, err);
    return rc;
}

/* A lock-step channel for the driver to enable: each signal's place in its direction's
 * rounds, in port order. */
static int offer_lockstep(io_unit *u, rtc_lockstep **out)
{
    size_t n_out = 0, n_in = 0;
    for (size_t i = 0; i < u->n; i++)
        u->sig[i].ls_pos = u->sig[i].from_bench ? n_in++ : n_out++;
    int rc = rtc_lockstep_new(n_out, n_in, &u->ls);
    *out = u->ls;
    u->n_in = n_in;
    if (rc == RTC_OK && n_in && !(u->init_vals = calloc(RTC_IO_INIT_PASSES_CAP * n_in,
                                                        sizeof *u->init_vals)))
        rc = RTC_ENOMEM;
    return rc;
}

/* A live unit (@p ops: its driver is opened) or a replay unit (@p feed: no driver). */
static int create_unit(const rtc_driver_ops *ops, const rtc_io_sample_source *feed,
                       const rtc_unit_spec *sp, const rtc_logger *lg, rtc_unit **out)
{
    io_unit *u = calloc(1, sizeof *u);
    if (!u)
        return RTC_ENOMEM;
    u->ops = ops;
    u->feed = feed;
    u->lg = lg;
    u->rtf = 1.0;
    u->n = sp->n_ports;
    u->name = strdup(sp->name);
    u->sig = calloc(u->n + 1, sizeof *u->sig);
    u->md.vars = calloc(u->n + 1, sizeof *u->md.vars);
    rtc_io_signal *cfg = calloc(u->n + 1, sizeof *cfg);
    int rc = u->name && u->sig && u->md.vars && cfg ? RTC_OK : RTC_ENOMEM;
    for (size_t i = 0; rc == RTC_OK && i < u->n; i++)
        rc = make_signal(u, sp, i, &cfg[i]);
    u->md.n_vars = u->n;
    /* What comes from outside never depends within the tick on what goes out: outputs
     * have no direct feedthrough (no algebraic loop through the bench). */
    u->md.structure.outputs = own(u, calloc(u->n + 1, sizeof(rtc_unknown)));
    for (size_t i = 0; u->md.structure.outputs && i < u->n; i++)
        if (u->sig[i].from_bench)
            u->md.structure.outputs[u->md.structure.n_outputs++] =
                (rtc_unknown){.var = i, .deps_given = true};
    u->md.model_name = u->name;
    u->md.path = (char *)keep(u, sp->file);
    u->md.guid = (char *)keep(u, sp->type);
    /* hold: nothing goes to the bench before the run's first tick (u_refresh releases), so
     * a run refused at its connect deadline has written no bench value */
    rtc_driver_config dc = {.component = u->name, .signals = cfg, .n_signals = u->n,
                            .settings = keep_kv(u, sp->settings, sp->n_settings),
                            .n_settings = sp->n_settings, .tx = &u->tx, .source = sp->source,
                            .hold = true};
    if (rc == RTC_OK && ops)
        rc = offer_lockstep(u, &dc.lockstep);
    if (rc == RTC_OK && ops)
        rc = ops->open(&dc, lg, &u->drv); /* checks the register map / addresses now */
    if (rc == RTC_OK && ops && ops->link)
        u->link = ops->link(u->drv);
    if (rc == RTC_OK && !rtc_lockstep_enabled(u->ls)) {
        rtc_lockstep_free(u->ls); /* the driver runs on mailboxes */
        u->ls = NULL;
    }
    for (size_t i = 0; rc == RTC_OK && feed && i < u->n; i++)
        if (u->sig[i].from_bench)
            u->sig[i].feed_idx = feed->lookup(feed->user, u->name, u->md.vars[i].name);
    free(cfg); /* the driver copied what it keeps; the strings it points to are ours */
    if (rc != RTC_OK) {
        u_free(u);
        return rc;
    }
    u->unit = (rtc_unit){.ops = &io_ops, .self = u, .md = &u->md, .name = u->name};
    *out = &u->unit;
    return RTC_OK;
}

static int io_create(void *ctx, const rtc_unit_spec *sp, const rtc_logger *lg, rtc_unit **out)
{
    return create_unit(ctx, NULL, sp, lg, out);
}

static int replay_create(void *ctx, const rtc_unit_spec *sp, const rtc_logger *lg,
                         rtc_unit **out)
{
    return create_unit(NULL, ctx, sp, lg, out);
}

int rtc_io_unit_factory(rtc_unit_factory *out, const char *type)
{
    const rtc_driver_ops *ops = rtc_driver_find(type);
    if (!ops)
        return RTC_ENOTFOUND;
    *out = (rtc_unit_factory){.type = type, .create = io_create, .ctx = (void *)ops};
    return RTC_OK;
}

int rtc_io_unit_replay_factory(rtc_unit_factory *out, const char *type,
                               const rtc_io_sample_source *feed)
{
    if (!out || !type || !feed || !feed->lookup || !feed->next)
        return RTC_EINVAL;
    *out = (rtc_unit_factory){.type = type, .create = replay_create, .ctx = (void *)feed};
    return RTC_OK;
}

int rtc_io_unit_stats(const rtc_unit *unit, rtc_driver_stats *out)
{
    if (!unit || unit->ops != &io_ops)
        return RTC_EINVAL;
    const io_unit *u = unit->self;
    return u->drv ? u->ops->stats(u->drv, out) : RTC_EINVAL;
}

bool rtc_io_unit_is(const rtc_unit *unit)
{
    return unit && unit->ops == &io_ops;
}

const char *rtc_io_unit_driver(const rtc_unit *unit)
{
    if (!rtc_io_unit_is(unit))
        return NULL;
    const io_unit *u = unit->self;
    return u->ops ? u->ops->name : "replay";
}

size_t rtc_io_unit_describe(const rtc_unit *unit, char *buf, size_t cap)
{
    if (!buf || !cap)
        return 0;
    buf[0] = '\0';
    if (!rtc_io_unit_is(unit))
        return 0;
    const io_unit *u = unit->self;
    return u->ops && u->drv && u->ops->describe ? u->ops->describe(u->drv, buf, cap) : 0;
}

const char *rtc_io_unit_link(const rtc_unit *unit, const rtc_driver_stats *st)
{
    if (!rtc_io_unit_driver(unit) || !st)
        return "?";
    return rtc_link_state_name(st->link);
}

rtc_link *rtc_io_unit_contract(const rtc_unit *unit)
{
    return rtc_io_unit_is(unit) ? ((const io_unit *)unit->self)->link : NULL;
}

const rtc_est_config *rtc_io_unit_estimator(const rtc_unit *unit, size_t i)
{
    if (!rtc_io_unit_is(unit))
        return NULL;
    const io_unit *u = unit->self;
    return i < u->n && u->sig[i].est ? rtc_est_get_config(u->sig[i].est) : NULL;
}

const rtc_est *rtc_io_unit_est(const rtc_unit *unit, size_t i)
{
    if (!rtc_io_unit_is(unit))
        return NULL;
    const io_unit *u = unit->self;
    return i < u->n ? u->sig[i].est : NULL;
}

const char *rtc_io_unit_estimator_by(const rtc_unit *unit, size_t i)
{
    if (!rtc_io_unit_is(unit))
        return NULL;
    const io_unit *u = unit->self;
    return i < u->n ? u->sig[i].est_by : NULL;
}

int rtc_io_unit_set_estimator(rtc_unit *unit, size_t i, const rtc_est_config *cfg,
                              const char *by, char *err, size_t err_cap)
{
    if (!rtc_io_unit_value(unit, i) || !cfg)
        return RTC_EINVAL; /* not a signal from the bench */
    io_unit *u = unit->self;
    io_signal *s = &u->sig[i];
    const char *kept = by ? keep(u, by) : NULL;
    rtc_est *e = NULL;
    int rc = by && !kept ? RTC_ENOMEM : rtc_est_new(cfg, &e, err, err_cap);
    if (rc != RTC_OK)
        return rc;
    rtc_est_free(s->est);
    s->est = e;
    s->est_by = kept;
    return RTC_OK;
}

const double *rtc_io_unit_value(const rtc_unit *unit, size_t i)
{
    if (!rtc_io_unit_is(unit))
        return NULL;
    const io_unit *u = unit->self;
    return i < u->n && u->sig[i].from_bench ? &u->sig[i].value : NULL;
}

int rtc_io_unit_set_tap(rtc_unit *unit, rtc_io_sample_fn fn, void *user, uint32_t first_signal)
{
    if (!rtc_io_unit_is(unit))
        return RTC_EINVAL;
    io_unit *u = unit->self;
    u->tap = fn;
    u->tap_user = user;
    u->tap_base = first_signal;
    tap_init_passes(u);
    return RTC_OK;
}
