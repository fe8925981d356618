/*
 * The node bridge (application/x-rtcosim-node-bridge): one per connected peer node in each
 * process of a distributed run, carrying every connection between the two nodes over
 * Cyclone DDS (DESIGN.md T3; keys in rtcosim/iodrivers.h; topics, QoS and the IDL in the
 * README, "Distributed runs"). rt-core/assemble places it: it keeps a node's components,
 * adds one bridge per connected peer and rewires each cross-node connection to a bridge
 * signal, so no master knows about nodes.
 *
 * What node A sends node B in a tick is one sample (rtcosim_node.idl: run id, round, the
 * simulation and source times, the values) on topic "rtcosim/values/A/B" in the partition
 * of the run (dds_domain.c). Two modes:
 *   - lock-step (key lockstep, fast runs): the I/O unit hands each tick's values over as a
 *     round of its lock-step channel (rtcosim/lockstep.h) and waits for the peer's round;
 *     this driver sends the rounds (reliable, in order) from its I/O thread and stores the
 *     peer's from the reader's data-available listener, which runs on Cyclone's receive
 *     thread and only takes and copies. The result is the one-process run's, byte for byte.
 *   - mailboxes (real time): every period the to-bench values go out as one sample
 *     (best effort, keep last 1); received values go to the mailboxes with their source
 *     time, and the I/O unit's estimators cover what is late.
 *
 * Before the run starts (begin, in the I/O thread, at initialization) the bridge waits,
 * bounded by join_ms, for the peer's hello and for its writer and reader to match the
 * peer's. A peer with another run id (another system file or placement) is refused in one
 * line naming both nodes. Samples of another run id, or of a process that is not the
 * peer's (its hello's nonce), are counted ("unexpected") and dropped. DDS is never called
 * on the stepping thread.
 */
#include "dds_ctl_priv.h"
#include "dds_priv.h"
#include "dds_rtlink.h"

#include "rtcosim/driver_base.h"
#include "rtcosim/iodrivers.h"
#include "rtcosim/lockstep.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NB_UNEXPECTED, NB_DUPLICATES, NB_OUT_OF_ORDER, NB_OVERFLOW, NB_SENT, NB_RECEIVED,
       NB_LATE, NB_LOST, NB_EMU_DROPPED };
static const char *const nb_counters[] = {"unexpected", "duplicates", "out_of_order",
                                          "overflow",   "sent",       "received",
                                          "late",       "lost",       "emulated_dropped"};

typedef struct nb {
    rtc_drv_base b; /* first: the base's ops take the object as their base */
    rtc__dds_node *node;
    char *self, *peer;
    uint64_t run_id;
    int64_t join_ns;
    rtc_lockstep *ls;           /* lock-step channel, or NULL: mailboxes */
    bool rt;                    /* real time: ticks through dds_rtlink.c (ls, when set,
                                   carries the initialization only) */
    rtc__rtlink rt_link;        /* real time: dds_rtlink.c */
    int64_t init_sent_ns;       /* real time: when the last INIT round went (resent) */
    bool registered;            /* with the control plane (real time) */
    size_t *out_sig, *in_sig;   /* signal index of each value of a sample, per direction */
    dds_entity_t topic_out, topic_in, wr, rd;
    dds_listener_t *listener;
    rtc_node_Sample out;    /* I/O thread: the sample being sent */
    _Atomic uint64_t peer_nonce;  /* the peer process's (its hello), 0: not seen yet */
    atomic_bool joined;         /* begin() saw the peer; its leaving is then a failure */
    atomic_bool heard, lost;    /* listeners: a sample came / the peer's writer died; the
                                   I/O thread turns them into the link's state */
    atomic_bool gone;           /* real time: the peer's writer is not alive now */
    /* listener thread: the order of the peer's rounds */
    int next_kind;
    uint32_t next_round;
} nb;
static_assert(offsetof(nb, b) == 0, "the base must come first");

static const rtc_drv_desc nb_desc;

/* ---- open ---- */

static int get_keys(nb *d, const rtc_driver_config *cfg, rtc__dds_params *p, bool *lockstep,
                    int64_t *loss_ns)
{
    rtc_drv_base *b = &d->b;
    const rtc_kv *kv = cfg->settings;
    size_t n = cfg->n_settings;
    const char *node = rtc_kv_get(kv, n, "node"), *peer = rtc_kv_get(kv, n, "peer");
    const char *run = rtc_kv_get(kv, n, "run_id");
    long domain = 0;
    double join_ms = 0, loss_ms = 0;
    char *end = NULL;
    if (!node || !peer || !node[0] || !peer[0] || !strcmp(node, peer))
        return rtc_drv_bad(b, NULL, "settings node and peer must name two different nodes");
    d->run_id = run ? strtoull(run, &end, 16) : 0;
    if (!run || !run[0] || *end)
        return rtc_drv_bad(b, NULL, "setting run_id=%s: not a hexadecimal run id",
                           run ? run : "");
    int rc = rtc_drv_get_int(b, NULL, kv, n, "domain", 0, 0, 230, &domain);
    if (rc == RTC_OK)
        rc = rtc_drv_get_bool(b, NULL, kv, n, "lockstep", false, lockstep);
    if (rc == RTC_OK)
        rc = rtc_drv_get_double(b, NULL, kv, n, "join_ms", 30000, 0, 86400000, &join_ms);
    if (rc == RTC_OK)
        rc = rtc_drv_get_double(b, NULL, kv, n, "loss_ms", 10000, 1, 86400000, &loss_ms);
    d->self = strdup(node);
    d->peer = strdup(peer);
    d->join_ns = (int64_t)(join_ms * 1e6);
    *loss_ns = (int64_t)(loss_ms * 1e6);
    const char *session = rtc_kv_get(kv, n, "session");
    *p = (rtc__dds_params){.node = node, .system = rtc_kv_get(kv, n, "system"),
                           .session = session && session[0] ? session : "rtcosim",
                           .run_id = d->run_id, .domain = (int)domain,
                           .address = rtc_kv_get(kv, n, "address"),
                           .peers = rtc_kv_get(kv, n, "peers")};
    return rc == RTC_OK && (!d->self || !d->peer) ? RTC_ENOMEM : rc;
}

/* Each sample value's signal, per direction, and the lock-step "ahead" of each incoming
 * value (signal key ahead: 1 for a value the peer makes in the tick before this node
 * steps, Gauss-Seidel across nodes). */
static int map_signals(nb *d, const rtc_driver_config *cfg, uint8_t *ahead)
{
    rtc_drv_base *b = &d->b;
    size_t no = 0, ni = 0;
    if (b->n_to_bench > rtc_node_VALUES_CAP || b->n_from_bench > rtc_node_VALUES_CAP)
        return rtc_drv_bad(b, NULL, "%zu values to and %zu from node %s: at most %d each way "
                           "(the IDL's VALUES_CAP)", b->n_to_bench, b->n_from_bench, d->peer,
                           rtc_node_VALUES_CAP);
    for (size_t i = 0; i < cfg->n_signals; i++) {
        const rtc_io_signal *s = &cfg->signals[i];
        if (s->dir == RTC_IO_TO_BENCH) {
            d->out_sig[no++] = i;
            continue;
        }
        long a = 0;
        int rc = rtc_drv_get_int(b, s->name, s->settings, s->n_settings, "ahead", 0, 0, 1, &a);
        if (rc != RTC_OK)
            return rc;
        ahead[ni] = (uint8_t)a;
        d->in_sig[ni++] = i;
    }
    return RTC_OK;
}

static void on_data(dds_entity_t rd, void *arg);

/* Real time: the link of dds_rtlink.c on this bridge's counters, and its place in the
 * node's status (the control plane). */
static int open_rt(nb *d, const rtc_driver_config *cfg)
{
    _Atomic uint64_t *n = d->b.st.named;
    _Atomic uint64_t *const ctr[RTC_RTL_N] = {
        [RTC_RTL_RECEIVED] = &n[NB_RECEIVED], [RTC_RTL_LATE] = &n[NB_LATE],
        [RTC_RTL_LOST] = &n[NB_LOST], [RTC_RTL_DUPLICATES] = &n[NB_DUPLICATES],
        [RTC_RTL_OUT_OF_ORDER] = &n[NB_OUT_OF_ORDER],
        [RTC_RTL_EMU_DROPPED] = &n[NB_EMU_DROPPED]};
    int rc = rtc__rtlink_open(&d->rt_link, &d->b, cfg, d->in_sig, d->out_sig, d->self,
                              d->peer, ctr);
    if (rc == RTC_OK)
        d->registered = rtc__ctl_register(d->peer, d, rtc_drv_stats) == RTC_OK;
    return rc;
}
static void on_liveliness(dds_entity_t rd, const dds_liveliness_changed_status_t st, void *arg);

/* Topics, writer and reader of this pair; the reader's listener. Lock-step: reliable and
 * every round kept until sent; real time: best effort, the writer keeps its newest sample
 * only, the reader a few (so that no pass of the initialization is overwritten before the
 * I/O thread took it; of ticks, dds_rtlink.c uses the newest). */
static int make_entities(nb *d, bool lockstep)
{
    char name[160];
    snprintf(name, sizeof name, RTC_DDS_VALUES_TOPIC_FMT, d->self, d->peer);
    d->topic_out = dds_create_topic(d->node->pp, &rtc_node_Sample_desc, name, NULL, NULL);
    snprintf(name, sizeof name, RTC_DDS_VALUES_TOPIC_FMT, d->peer, d->self);
    d->topic_in = dds_create_topic(d->node->pp, &rtc_node_Sample_desc, name, NULL, NULL);
    if (d->topic_out < 0 || d->topic_in < 0)
        return d->topic_out < 0 ? d->topic_out : d->topic_in;
    dds_qos_t *q = dds_create_qos();
    if (lockstep) {
        dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
        dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 4 * RTC_LOCKSTEP_DEPTH);
    } else {
        dds_qset_reliability(q, DDS_RELIABILITY_BEST_EFFORT, 0);
        dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 1);
    }
    /* a writer's process that dies is noticed within a second (lease), not the 10 s of
     * the participant's */
    dds_qset_liveliness(q, DDS_LIVELINESS_AUTOMATIC, lockstep ? DDS_SECS(1) : DDS_MSECS(250));
    d->wr = dds_create_writer(d->node->pub, d->topic_out, q, NULL);
    if (!lockstep)
        dds_qset_history(q, DDS_HISTORY_KEEP_LAST, RTC_LOCKSTEP_DEPTH);
    d->listener = dds_create_listener(d);
    dds_lset_data_available(d->listener, on_data);
    dds_lset_liveliness_changed(d->listener, on_liveliness);
    d->rd = d->wr >= 0 ? dds_create_reader(d->node->sub, d->topic_in, q, d->listener) : 0;
    dds_delete_qos(q);
    return d->wr < 0 ? d->wr : d->rd;
}

static int nb_open(const rtc_driver_config *cfg, const rtc_logger *lg, void **self)
{
    rtc_drv_base *b;
    int rc = cfg && self ? rtc_drv_open(&nb_desc, sizeof(nb), cfg, lg, &b) : RTC_EINVAL;
    if (rc != RTC_OK)
        return rc;
    nb *d = (nb *)b;
    rtc__dds_params p;
    bool lockstep = false;
    int64_t loss_ns = 0;
    uint8_t *ahead = calloc(b->n_sig + 1, 1);
    d->out_sig = calloc(b->n_sig + 1, sizeof *d->out_sig);
    d->in_sig = calloc(b->n_sig + 1, sizeof *d->in_sig);
    rc = ahead && d->out_sig && d->in_sig ? get_keys(d, cfg, &p, &lockstep, &loss_ns)
                                          : RTC_ENOMEM;
    if (rc == RTC_OK)
        rc = map_signals(d, cfg, ahead);
    /* the link contract (rtcosim/driver_base.h): the run waits for the peer as long as
     * begin() does (join_ms), unless connect_ms says otherwise */
    if (rc == RTC_OK && !rtc_kv_get(cfg->settings, cfg->n_settings, "connect_ms"))
        b->link.connect_ns = d->join_ns;
    if (rc == RTC_OK)
        rtc_drv_link_address(b, "node %s, DDS domain %d", d->peer, p.domain);
    if (rc == RTC_OK && lockstep && !cfg->lockstep)
        rc = rtc_drv_bad(b, NULL, "setting lockstep=true: the engine offers no lock-step "
                         "channel here");
    if (rc == RTC_OK && lockstep && (rc = rtc_lockstep_enable(cfg->lockstep, ahead, loss_ns)) ==
                                        RTC_OK)
        d->ls = cfg->lockstep;
    /* real time: the same coupled initial state as a one-process run (INIT rounds), then
     * mailboxes: the ticks never wait */
    d->rt = !lockstep;
    if (rc == RTC_OK && d->rt && cfg->lockstep &&
        (rc = rtc_lockstep_enable_init(cfg->lockstep, d->join_ns)) == RTC_OK)
        d->ls = cfg->lockstep;
    free(ahead);
    if (rc == RTC_OK && d->rt)
        rc = open_rt(d, cfg);
    /* real time, when this process may use SCHED_FIFO: Cyclone's receive thread just
     * under the I/O thread it wakes */
    if (d->rt && b->priority > 1)
        p.recv_priority = b->priority - 1;
    if (rc == RTC_OK)
        rc = rtc__dds_node_get(&p, lg, b->component, &d->node);
    int drc = rc == RTC_OK ? make_entities(d, lockstep) : 0;
    if (drc < 0)
        rc = rtc_drv_error(b, RTC_EIO, "DDS refused the topics of node %s: %s", d->peer,
                           dds_strretcode(drc));
    if (rc != RTC_OK) {
        rtc_drv_close(b);
        return rc;
    }
    *self = d;
    return RTC_OK;
}

/* ---- receiving: the reader's listener, on Cyclone's receive thread ---- */

/* Is the sample the peer's, of this run, and the next of its rounds? Counts what is not. */
static bool accept(nb *d, const rtc_node_Sample *s)
{
    uint64_t want = atomic_load_explicit(&d->peer_nonce, memory_order_acquire);
    if (!want && s->run_id == d->run_id && /* data before the hello: the hello must agree */
        atomic_compare_exchange_strong(&d->peer_nonce, &want, s->nonce))
        want = s->nonce;
    if (s->run_id != d->run_id || s->nonce != want || s->kind > rtc_node_KIND_END) {
        rtc_drv_count(&d->b.st.named[NB_UNEXPECTED]);
        return false;
    }
    if (d->rt && s->kind != rtc_node_KIND_INIT)
        return true; /* real time: the newest tick is what counts (dds_rtlink.c) */
    if (s->kind < d->next_kind || (s->kind == d->next_kind && s->round < d->next_round)) {
        rtc_drv_count(&d->b.st.named[NB_DUPLICATES]);
        return false;
    }
    /* in order: the next round of this kind, or the first of a later kind (a peer without
     * lock-step passes at initialization starts with tick 0; the end mark may come any
     * time); of a peer that sends no values, every RTC_LOCKSTEP_PACE-th tick only */
    bool paced = s->kind == rtc_node_KIND_TICK && !rtc_lockstep_n_in(d->ls);
    bool next = s->kind == d->next_kind ? s->round == d->next_round ||
                                              (paced && s->round > d->next_round)
                                        : s->kind == rtc_node_KIND_END || s->round == 0;
    if (!next) {
        rtc_drv_count(&d->b.st.named[NB_OUT_OF_ORDER]);
        rtc_lockstep_fail(d->ls, "a round from the peer is missing (out of order)");
        return false;
    }
    d->next_kind = s->kind;
    d->next_round = s->round + 1;
    return true;
}

/* One accepted lock-step sample: a round for the stepping thread (real time: take_rt). */
static void deliver(nb *d, const rtc_node_Sample *s, int64_t now_real)
{
    rtc_drv_base *b = &d->b;
    rtc_drv_count(&b->st.named[NB_RECEIVED]);
    rtc_drv_latency(b, now_real - s->source_time_ns); /* one way, on synchronized clocks */
    int rc = rtc_lockstep_put(d->ls, s->kind, s->round, s->sim_time_ns, s->source_time_ns,
                              s->values, s->kind == rtc_node_KIND_END ? 0 : s->count);
    if (rc == RTC_ELIMIT) {
        rtc_drv_count(&b->st.named[NB_OVERFLOW]);
        rtc_lockstep_fail(d->ls, "the peer ran too far ahead of this node");
    } else if (rc != RTC_OK) {
        rtc_drv_count(&b->st.named[NB_UNEXPECTED]);
        rtc_lockstep_fail(d->ls, "the peer sends another number of values");
    }
}

static void on_data(dds_entity_t rd, void *arg)
{
    nb *d = arg;
    if (d->rt) { /* real time: the I/O thread takes (it alone writes the mailboxes) */
        rtc__rtlink_kick(&d->rt_link);
        return;
    }
    enum { BATCH = 8 };
    void *buf[BATCH] = {NULL}; /* a loan: the reader's buffers, no copy, no allocation */
    dds_sample_info_t si[BATCH];
    dds_return_t n;
    while ((n = dds_take(rd, buf, si, BATCH, BATCH)) > 0) {
        int64_t now = rtc__dds_realtime_ns();
        for (dds_return_t i = 0; i < n; i++) {
            const rtc_node_Sample *s = buf[i];
            if (si[i].valid_data && accept(d, s))
                deliver(d, s, now);
        }
        dds_return_loan(rd, buf, n);
    }
}

/* The peer's writer lost its liveliness (its process died or hangs): a lock-step tick
 * would wait for it in vain. */
static void on_liveliness(dds_entity_t rd, const dds_liveliness_changed_status_t st, void *arg)
{
    (void)rd;
    nb *d = arg;
    if (st.alive_count == 0 && atomic_load_explicit(&d->joined, memory_order_acquire)) {
        if (d->ls)
            rtc_lockstep_fail(d->ls, "the peer node left (its DDS liveliness was lost)");
        atomic_store_explicit(&d->lost, true, memory_order_relaxed);
    }
    if (atomic_load_explicit(&d->joined, memory_order_acquire))
        atomic_store_explicit(&d->gone, st.alive_count == 0, memory_order_relaxed);
}

/* ---- the I/O thread ---- */

static bool matched(const nb *d)
{
    dds_publication_matched_status_t pm;
    dds_subscription_matched_status_t sm;
    return dds_get_publication_matched_status(d->wr, &pm) == DDS_RETCODE_OK &&
           dds_get_subscription_matched_status(d->rd, &sm) == DDS_RETCODE_OK &&
           pm.current_count > 0 && sm.current_count > 0;
}

/* The peer's hello: RTC_OK when it runs this run (and *seen), an error when it runs
 * another (logged, naming both nodes). */
static int check_hello(nb *d, bool *seen)
{
    rtc_node_Hello h;
    int f = rtc__dds_find_hello(d->node, d->peer, &h);
    if (f <= 0)
        return RTC_OK;
    if (h.run_id != d->run_id) {
        /* the peer refuses too, once it has read this node's hello, which dies with this
         * process: stay a moment (bounded) so both say why */
        rtc_drv_sleep(&d->b, 1500000000);
        return rtc_drv_error(&d->b, RTC_EINVAL, "node %s runs another system or placement "
                             "than node %s (run id %016" PRIx64 " there, %016" PRIx64 " here): "
                             "start every node with the same system file and placements",
                             d->peer, d->self, (uint64_t)h.run_id, d->run_id);
    }
    uint64_t want = 0;
    if (!atomic_compare_exchange_strong(&d->peer_nonce, &want, h.nonce) && want != h.nonce)
        return rtc_drv_error(&d->b, RTC_EINVAL, "two processes run node %s (pid %lld and "
                             "another): start each node once", d->peer, (long long)h.pid);
    *seen = true;
    return RTC_OK;
}

/* The process's question "stop waiting?" (rtc_node_bridge_set_cancel): a Ctrl-C on the
 * main thread, which is blocked in a bridge's start while begin() waits here. */
static struct {
    _Atomic(bool (*)(void *)) fn;
    _Atomic(void *) user;
} join_cancel;

void rtc_node_bridge_set_cancel(bool (*cancelled)(void *user), void *user)
{
    /* user first: a thread that sees the new function sees its argument */
    atomic_store_explicit(&join_cancel.user, user, memory_order_relaxed);
    atomic_store_explicit(&join_cancel.fn, cancelled, memory_order_release);
}

static bool join_cancelled(void)
{
    bool (*fn)(void *) = atomic_load_explicit(&join_cancel.fn, memory_order_acquire);
    return fn && fn(atomic_load_explicit(&join_cancel.user, memory_order_relaxed));
}

/* Wait (join_ms) for the peer's hello and for the two directions to match; a stop of the
 * driver or the process's cancel question ends the wait at once. */
static int nb_begin(rtc_drv_base *b)
{
    nb *d = (nb *)b;
    int64_t deadline = rtc_time_now_ns() + d->join_ns;
    bool seen = false;
    for (;;) {
        int rc = check_hello(d, &seen);
        if (rc != RTC_OK)
            return rc;
        if (seen && matched(d))
            break;
        if (join_cancelled())
            return RTC_ESTATE; /* the caller names the signal */
        if (rtc_time_now_ns() < deadline) {
            if (rtc_drv_sleep(b, 5000000))
                return RTC_ESTATE; /* stopped while waiting: the stop says why */
        } else { /* the link's own reason: a link not up in time ends the run (exit 6) */
            rtc_drv_link_error(b, seen ? "the node did not connect" : "the node did not join");
            return rtc_drv_error(b, RTC_ETIMEDOUT, "node %s did not %s within %.0f s (session %s, "
                                 "DDS domain %d): start it with --node %s", d->peer,
                                 seen ? "connect" : "join", (double)d->join_ns / 1e9,
                                 d->node->p.session, d->node->p.domain, d->peer);
        }
    }
    atomic_store_explicit(&d->joined, true, memory_order_release);
    rtc_drv_alive(b, rtc_time_now_ns());
    rtc_drv_link_up(b);
    return RTC_OK;
}

/* Send one sample of @p n values (the mailboxes' or a lock-step round's). */
static void send_sample(nb *d, int kind, uint32_t round, int64_t t_ns, const double *v,
                        size_t n)
{
    rtc_node_Sample *s = &d->out;
    s->run_id = d->run_id;
    s->nonce = d->node->nonce;
    s->kind = (uint8_t)kind;
    s->round = round;
    s->sim_time_ns = t_ns;
    s->count = (uint16_t)n;
    if (v)
        memcpy(s->values, v, n * sizeof *v);
    s->source_time_ns = rtc__dds_realtime_ns();
    if (dds_write(d->wr, s) != DDS_RETCODE_OK) {
        rtc_drv_count(&d->b.st.errors);
        if (d->ls)
            rtc_lockstep_fail(d->ls, "a round could not be sent");
        return;
    }
    rtc_drv_count(&d->b.st.requests);
    rtc_drv_count(&d->b.st.named[NB_SENT]);
    for (size_t i = 0; kind != rtc_node_KIND_END && i < n; i++)
        rtc_drv_sent(&d->b, d->out_sig[i]);
}

/* Lock-step: send every round the stepping thread committed. */
static void send_rounds(nb *d)
{
    const rtc_lockstep_round *r;
    while ((r = rtc_lockstep_next_out(d->ls))) {
        send_sample(d, r->kind, r->idx, r->t_ns, r->v, rtc_lockstep_n_out(d->ls));
        rtc_lockstep_out_done(d->ls);
    }
}

/* Real time: what arrived, taken on this thread (dds_rtlink.c uses it or holds it back). */
static void take_rt(nb *d)
{
    rtc_drv_base *b = &d->b;
    enum { BATCH = 8 };
    void *buf[BATCH] = {NULL}; /* a loan: the reader's buffers, no copy, no allocation */
    dds_sample_info_t si[BATCH];
    dds_return_t n;
    bool used = false;
    while ((n = dds_take(d->rd, buf, si, BATCH, BATCH)) > 0) {
        int64_t now = rtc__dds_realtime_ns();
        for (dds_return_t i = 0; i < n; i++) {
            const rtc_node_Sample *s = buf[i];
            if (!si[i].valid_data || !accept(d, s) || s->kind == rtc_node_KIND_END)
                continue;
            if (s->kind == rtc_node_KIND_INIT && d->ls)
                deliver(d, s, now); /* a pass of the initialization */
            else if (s->kind == rtc_node_KIND_TICK && s->count == b->n_from_bench)
                used |= rtc__rtlink_arrive(&d->rt_link, s, now);
            else
                rtc_drv_count(&b->st.named[NB_UNEXPECTED]);
        }
        dds_return_loan(d->rd, buf, n);
    }
    used |= rtc__rtlink_release(&d->rt_link);
    if (used)
        atomic_store_explicit(&d->heard, true, memory_order_relaxed);
}

/* Real time, between cycles: take what arrives and send each tick's values as soon as
 * the engine wrote them (it wakes this thread), until @p until or a held sample is due. */
static void wait_rt(nb *d, int64_t until)
{
    /* initializing (no tick yet): its rounds go out, and the last one again every 20 ms
     * (best effort may lose one; the peer drops what it has); the wait short, as a
     * committed round does not wake this thread */
    bool init = d->ls && rtc__rtlink_idle(&d->rt_link);
    if (init) {
        int64_t now = rtc_time_now_ns();
        const rtc_lockstep_round *r = rtc_lockstep_next_out(d->ls);
        if (r) {
            send_rounds(d);
            d->init_sent_ns = now;
        } else if (d->init_sent_ns && now - d->init_sent_ns > 20000000) {
            dds_write(d->wr, &d->out);
            d->init_sent_ns = now;
        }
        until = now + 1000000 < until ? now + 1000000 : until;
    }
    do {
        take_rt(d);
        if (rtc__rtlink_collect(&d->rt_link, &d->out))
            send_sample(d, rtc_node_KIND_TICK, d->out.round, d->out.sim_time_ns, NULL,
                        d->out.count);
    } while (!rtc_drv_should_stop(&d->b) && rtc__rtlink_wait(&d->rt_link, until));
    take_rt(d);
}

static bool nb_cycle(rtc_drv_base *b, int64_t now)
{
    nb *d = (nb *)b;
    bool lost = atomic_exchange_explicit(&d->lost, false, memory_order_relaxed);
    /* real time: the peer's loss, named, to the link contract (dds_rtloss.c) */
    if (d->rt)
        lost = rtc__rtlink_check_loss(&d->rt_link,
                                      atomic_load_explicit(&d->gone, memory_order_relaxed), now);
    else if (lost)
        rtc_drv_link_down(b, "the peer node left (its DDS liveliness was lost)");
    if (!lost && atomic_exchange_explicit(&d->heard, false, memory_order_relaxed)) {
        rtc_drv_alive(b, now);
        rtc_drv_link_up(b); /* (no-op while it is made) */
    }
    /* no stale marks in real time: a mark would hide a sample not taken yet (the peer's
     * values of t = 0, sent before the start), and the estimator at the signal judges a
     * value's age from its own time */
    return true;
}

static void nb_wait(rtc_drv_base *b, int64_t until)
{
    nb *d = (nb *)b;
    if (d->rt) {
        wait_rt(d, until);
        return;
    }
    uint32_t seen = rtc_lockstep_committed(d->ls);
    send_rounds(d);
    if (rtc_lockstep_committed(d->ls) == seen)
        rtc_lockstep_wait_out(d->ls, seen, until);
    send_rounds(d);
}

/* Last: what the stepping thread committed at its end goes out, and is acknowledged
 * before the writer is deleted (bounded). */
static void nb_end(rtc_drv_base *b)
{
    nb *d = (nb *)b;
    if (d->ls)
        send_rounds(d);
    if (d->wr > 0)
        dds_wait_for_acks(d->wr, DDS_SECS(2));
}

static void nb_clear(rtc_drv_base *b)
{
    nb *d = (nb *)b;
    if (d->rd > 0)
        dds_delete(d->rd); /* waits for a listener call in progress */
    if (d->wr > 0)
        dds_delete(d->wr);
    if (d->topic_in > 0)
        dds_delete(d->topic_in);
    if (d->topic_out > 0)
        dds_delete(d->topic_out);
    if (d->listener)
        dds_delete_listener(d->listener);
    rtc__dds_node_put(d->node);
    if (d->registered)
        rtc__ctl_unregister(d);
    rtc__rtlink_clear(&d->rt_link);
    free(d->out_sig);
    free(d->in_sig);
    free(d->self);
    free(d->peer);
}

static const rtc_drv_desc nb_desc = {
    .name = "node-bridge", .kind = "node_bridge", .counters = nb_counters,
    .n_counters = sizeof nb_counters / sizeof nb_counters[0], .period_key = "period_ms",
    .period_default = 10, .period_min = 0.05, .period_max = 60000, .stale_periods = 3,
    /* required; silence alone is no loss (a lock-step peer may compute for long): the
     * peer's liveliness says when it is gone (rtc_drv_link_down) */
    .connect_ms = 30000, .judge_silence = false,
    .begin = nb_begin, .cycle = nb_cycle, .wait = nb_wait, .end = nb_end, .clear = nb_clear};

const rtc_driver_ops rtc_node_bridge_ops = {
    .name = "node-bridge", .open = nb_open, .start = rtc_drv_start, .stop = rtc_drv_stop,
    .write_safe_values = rtc_drv_write_safe_values, .close = rtc_drv_close,
    .stats = rtc_drv_stats, .link = rtc_drv_link};
