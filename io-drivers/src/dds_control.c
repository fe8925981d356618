/*
 * The control plane of a distributed real-time run (rtcosim/nodectl.h): its topics, its
 * listeners, its thread, the stop and the status. Joining, the clock and the start are
 * in dds_control_start.c.
 *
 * DESIGN (DESIGN.md T3; the Cyclone DDS facts are the feasibility note's, section 1):
 *   - two topics in the run's partition (the node bridges' publisher and subscriber, so
 *     another run or session never sees them): "rtcosim/control", reliable and
 *     TRANSIENT_LOCAL with one sample kept per node and kind (a node that matches late
 *     still gets the epoch, the stops, everyone's last status), and "rtcosim/clock",
 *     reliable and volatile (pings and pongs). Readers ignore the process's own samples;
 *   - the listeners run on Cyclone's receive thread: they take, copy what they keep
 *     under the plane's lock and bump a generation word that waits sleep on (the
 *     engine's futex helper), and the leader's answers a ping at once, so a round trip
 *     costs two DDS hops and no thread hand-off;
 *   - a stop is the run's business: the first one that is not at the stop time (this
 *     node's, or one another node published) is the run's stop; a remote one calls the
 *     on-stop callback, which only asks the executive to stop. A node stopped that way
 *     publishes its stop with cause "node" and is never taken for the origin, so every
 *     summary names the node where it began;
 *   - the plane's thread (SCHED_OTHER) publishes the node's status twice a second (its
 *     executive's counters through the status callback, its bridges' link figures from
 *     their stats) and, on a follower that runs, measures the clock again every second.
 * Bridges register themselves here at open (before the plane exists: the plane and its
 * registry are per process, like the DDS presence).
 */
#include "dds_ctl_priv.h"

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct reg {
    char peer[RTC_NODECTL_NAME_CAP];
    void *bridge;
    int (*stats)(void *bridge, rtc_driver_stats *out);
} reg[RTC_NODECTL_LINKS_CAP]; /* under reg_lock */
static rtc_nodectl *the_ctl;   /* under reg_lock */
static _Atomic int64_t agreed_t0; /* logical 0 (CLOCK_MONOTONIC); 0 before the start */
static atomic_bool plane_open;    /* the_ctl is set (read without the lock) */

static const char *const cause_names[] = {"completed", "interrupted", "error", "overruns",
                                          "watchdog",  "link",        "node"};

const char *rtc_nodectl_cause_name(int cause)
{
    return cause >= 0 && cause < (int)(sizeof cause_names / sizeof cause_names[0])
               ? cause_names[cause] : "?";
}

/* ---- the bridges' side ---- */

int rtc__ctl_register(const char *peer, void *bridge,
                      int (*stats)(void *bridge, rtc_driver_stats *out))
{
    int rc = RTC_ELIMIT;
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < RTC_NODECTL_LINKS_CAP && rc != RTC_OK; i++) {
        if (!reg[i].bridge) {
            snprintf(reg[i].peer, sizeof reg[i].peer, "%s", peer);
            reg[i].bridge = bridge;
            reg[i].stats = stats;
            rc = RTC_OK;
        }
    }
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

void rtc__ctl_unregister(void *bridge)
{
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < RTC_NODECTL_LINKS_CAP; i++)
        if (reg[i].bridge == bridge)
            reg[i] = (struct reg){0};
    pthread_mutex_unlock(&reg_lock);
}

bool rtc__ctl_active(void)
{
    return atomic_load_explicit(&plane_open, memory_order_acquire);
}

int64_t rtc__ctl_t0_mono(void)
{
    return atomic_load_explicit(&agreed_t0, memory_order_acquire);
}

void rtc__ctl_set_t0(int64_t t0_mono_ns)
{
    atomic_store_explicit(&agreed_t0, t0_mono_ns, memory_order_release);
}

static long find_node(const rtc_nodectl *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strncmp(c->peers[i].name, name, RTC_NODECTL_NAME_CAP))
            return (long)i;
    return -1;
}

bool rtc__ctl_peer_stopped(const char *node)
{
    bool stopped = false;
    pthread_mutex_lock(&reg_lock);
    rtc_nodectl *c = the_ctl;
    if (c) {
        pthread_mutex_lock(&c->lock);
        long i = find_node(c, node);
        stopped = i >= 0 && c->peers[i].stopped;
        pthread_mutex_unlock(&c->lock);
    }
    pthread_mutex_unlock(&reg_lock);
    return stopped;
}

int64_t rtc__ctl_offset(const char *node)
{
    int64_t off = 0;
    pthread_mutex_lock(&reg_lock);
    rtc_nodectl *c = the_ctl;
    if (c) {
        pthread_mutex_lock(&c->lock);
        long i = find_node(c, node);
        off = i < 0 ? 0 : (size_t)i == c->self ? c->clock.offset_ns : c->peers[i].offset_ns;
        pthread_mutex_unlock(&c->lock);
    }
    pthread_mutex_unlock(&reg_lock);
    return off;
}

int64_t rtc__ctl_mono_of_real(int64_t real_ns)
{
    /* the pair of readings closest together of three: the two clocks at one instant */
    int64_t best = INT64_MAX, diff = 0;
    for (int i = 0; i < 3; i++) {
        int64_t m0 = rtc_time_now_ns(), r = rtc__dds_realtime_ns(), m1 = rtc_time_now_ns();
        if (m1 - m0 < best) {
            best = m1 - m0;
            diff = r - (m0 + (m1 - m0) / 2);
        }
    }
    return real_ns - diff;
}

/* ---- publishing and waiting ---- */

int rtc__ctl_publish(rtc_nodectl *c, int kind, rtc_control_Sample *s)
{
    const rtc__ctl_peer *me = &c->peers[c->self];
    s->node_key = me->key;
    s->kind = (uint8_t)kind;
    s->run_id = c->dn->p.run_id;
    s->nonce = c->dn->nonce;
    snprintf(s->node, sizeof s->node, "%s", me->name);
    return dds_write(c->ctl_wr, s);
}

uint32_t rtc__ctl_wait(rtc_nodectl *c, uint32_t seen, int64_t until_ns)
{
    return rtc_rt_wait_change_until(&c->gen, &c->gen_waiters, seen, 0, until_ns);
}

static void bump(rtc_nodectl *c)
{
    atomic_fetch_add_explicit(&c->gen, 1, memory_order_release);
    rtc_rt_wake(&c->gen, &c->gen_waiters);
}

void rtc__ctl_set_stop(rtc_nodectl *c, const char *node, int cause, int64_t tick,
                       const char *reason, bool remote)
{
    if (c->stop_set)
        return;
    c->stop_set = true;
    c->stop = (rtc_nodectl_stop){.cause = cause, .tick = tick, .remote = remote};
    snprintf(c->stop.node, sizeof c->stop.node, "%s", node);
    snprintf(c->stop.reason, sizeof c->stop.reason, "%s", reason ? reason : "");
}

/* ---- the listeners (Cyclone's receive thread) ---- */

/* One control sample of another node of this run. Returns true when it stops the run
 * here (the on-stop callback is due). Lock held. */
static bool on_control_sample(rtc_nodectl *c, const rtc_control_Sample *s)
{
    long i = find_node(c, s->node);
    if (i < 0 || (size_t)i == c->self || s->run_id != c->dn->p.run_id)
        return false;
    rtc__ctl_peer *p = &c->peers[i];
    if (!p->nonce)
        p->nonce = s->nonce;
    if (s->nonce != p->nonce)
        return false; /* an earlier process of that node: its samples are not this run's */
    switch (s->kind) {
    case rtc_control_KIND_READY:
        p->ready = true;
        p->offset_ns = s->offset_ns;
        p->status.offset_rtt_ns = s->offset_rtt_ns; /* the leader sizes its margin */
        return false;
    case rtc_control_KIND_START:
        if (i == 0 && !c->epoch_ns)
            c->epoch_ns = s->epoch_ns;
        return false;
    case rtc_control_KIND_STATUS:
        p->status = *s;
        p->heard = true;
        p->status_at_ns = rtc_time_now_ns();
        p->offset_ns = s->offset_ns;
        return false;
    case rtc_control_KIND_STOP:
        p->stopped = true;
        /* the stop time ends every node on its own; a node stopped by another tells
         * where it began in its text but is not where it began */
        if (s->cause == rtc_control_CAUSE_COMPLETED ||
            s->cause == rtc_control_CAUSE_NODE || c->stop_set)
            return false;
        char text[sizeof s->text + 1];
        snprintf(text, sizeof text, "%.*s", (int)sizeof s->text, s->text);
        rtc__ctl_set_stop(c, p->name, s->cause, s->tick, text, true);
        return true;
    default:
        return false;
    }
}

static void on_control(dds_entity_t rd, void *arg)
{
    rtc_nodectl *c = arg;
    enum { BATCH = 8 };
    void *buf[BATCH] = {NULL};
    dds_sample_info_t si[BATCH];
    dds_return_t n;
    bool fire = false;
    while ((n = dds_take(rd, buf, si, BATCH, BATCH)) > 0) {
        pthread_mutex_lock(&c->lock);
        for (dds_return_t i = 0; i < n; i++)
            if (si[i].valid_data)
                fire |= on_control_sample(c, buf[i]);
        pthread_mutex_unlock(&c->lock);
        dds_return_loan(rd, buf, n);
    }
    bump(c);
    pthread_mutex_lock(&c->lock);
    if (fire && c->on_stop) /* under the lock, as every callback */
        c->on_stop(c->on_stop_user);
    pthread_mutex_unlock(&c->lock);
}

static void on_clock(dds_entity_t rd, void *arg)
{
    rtc_nodectl *c = arg;
    enum { BATCH = 8 };
    void *buf[BATCH] = {NULL};
    dds_sample_info_t si[BATCH];
    dds_return_t n;
    while ((n = dds_take(rd, buf, si, BATCH, BATCH)) > 0) {
        int64_t now = rtc__dds_realtime_ns();
        for (dds_return_t i = 0; i < n; i++)
            if (si[i].valid_data)
                rtc__ctl_on_ping(c, buf[i], now);
        dds_return_loan(rd, buf, n);
    }
    bump(c);
}

/* ---- the status ---- */

/* The links of this node's bridges, from their stats. */
static uint16_t fill_links(rtc_control_LinkStatus *out)
{
    uint16_t n = 0;
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < RTC_NODECTL_LINKS_CAP; i++) {
        rtc_driver_stats st = {0};
        if (!reg[i].bridge || reg[i].stats(reg[i].bridge, &st) != RTC_OK)
            continue;
        rtc_control_LinkStatus *l = &out[n++];
        *l = (rtc_control_LinkStatus){.state = (uint8_t)st.link,
                                      .latency_p50_ns = st.latency.p50,
                                      .latency_p99_ns = st.latency.p99,
                                      .latency_max_ns = st.latency.max};
        snprintf(l->peer, sizeof l->peer, "%.*s", (int)sizeof l->peer - 1, reg[i].peer);
        rtc_driver_stats_counter(&st, "received", &l->received);
        rtc_driver_stats_counter(&st, "late", &l->late);
        rtc_driver_stats_counter(&st, "lost", &l->lost);
        rtc_driver_stats_counter(&st, "duplicates", &l->duplicates);
        rtc_driver_stats_counter(&st, "out_of_order", &l->out_of_order);
    }
    pthread_mutex_unlock(&reg_lock);
    return n;
}

static void publish_status(rtc_nodectl *c)
{
    rtc_control_Sample s = {0};
    rtc_nodectl_local me = {0};
    pthread_mutex_lock(&c->lock);
    s.state = (uint8_t)c->state;
    s.offset_ns = c->clock.offset_ns;
    s.offset_rtt_ns = c->clock.rtt_ns;
    if (c->on_status) /* under the lock: once unset, no call is in progress */
        c->on_status(c->on_status_user, &me);
    pthread_mutex_unlock(&c->lock);
    s.tick = me.tick;
    s.sim_time_ns = me.sim_time_ns;
    s.overruns = me.overruns;
    s.wakeup_p99_ns = me.wakeup_p99_ns;
    s.n_links = fill_links(s.links);
    pthread_mutex_lock(&c->lock);
    c->peers[c->self].status = s;
    c->peers[c->self].heard = true;
    c->peers[c->self].status_at_ns = rtc_time_now_ns();
    pthread_mutex_unlock(&c->lock);
    rtc__ctl_publish(c, rtc_control_KIND_STATUS, &s);
}

/* The plane's thread: the status twice a second, the clock every second once running. */
static void *ctl_main(void *arg)
{
    rtc_nodectl *c = arg;
    int64_t next_status = rtc_time_now_ns(), next_clock = next_status + 1000000000;
    while (!atomic_load_explicit(&c->quit, memory_order_acquire)) {
        int64_t now = rtc_time_now_ns();
        if (now >= next_status) {
            publish_status(c);
            next_status = now + 500000000;
        }
        pthread_mutex_lock(&c->lock);
        bool running = c->state == rtc_control_STATE_RUNNING;
        pthread_mutex_unlock(&c->lock);
        if (c->self != 0 && running && now >= next_clock) {
            rtc__ctl_remeasure(c);
            next_clock = now + 1000000000;
        }
        rtc_time_sleep_until_ns(rtc_time_now_ns() + 50000000);
    }
    return NULL;
}

/* ---- open and close ---- */

/* Topic, writer and reader (with its listener) of one of the plane's topics. */
static int make_topic(rtc_nodectl *c, const dds_topic_descriptor_t *desc, const char *name,
                      bool durable, dds_entity_t *topic, dds_entity_t *wr, dds_entity_t *rd,
                      dds_listener_t *ls)
{
    *topic = dds_create_topic(c->dn->pp, desc, name, NULL, NULL);
    if (*topic < 0)
        return *topic;
    dds_qos_t *q = dds_create_qos();
    dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_MSECS(100));
    dds_qset_durability(q, durable ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
    dds_qset_history(q, DDS_HISTORY_KEEP_LAST, durable ? 1 : 16);
    /* a node killed is noticed by the bridges' leases; this one only bounds the wait for
     * acknowledgements at the end */
    dds_qset_liveliness(q, DDS_LIVELINESS_AUTOMATIC, DDS_SECS(1));
    *wr = dds_create_writer(c->dn->pub, *topic, q, NULL);
    dds_qset_ignorelocal(q, DDS_IGNORELOCAL_PARTICIPANT);
    *rd = *wr >= 0 ? dds_create_reader(c->dn->sub, *topic, q, ls) : *wr;
    dds_delete_qos(q);
    return *rd < 0 ? *rd : 0;
}

static void free_ctl(rtc_nodectl *c)
{
    if (!c)
        return;
    dds_entity_t ents[] = {c->ctl_rd, c->clk_rd, c->ctl_wr, c->clk_wr, c->ctl_topic,
                           c->clk_topic};
    for (size_t i = 0; i < sizeof ents / sizeof ents[0]; i++)
        if (ents[i] > 0)
            dds_delete(ents[i]); /* a reader's delete waits for its listener */
    if (c->ctl_ls)
        dds_delete_listener(c->ctl_ls);
    if (c->clk_ls)
        dds_delete_listener(c->clk_ls);
    rtc__dds_node_put(c->dn);
    pthread_mutex_destroy(&c->lock);
    free(c->peers);
    free(c);
}

/* The nodes of @p cfg into the plane; false when one is unusable (logged). */
static bool set_nodes(rtc_nodectl *c, const rtc_nodectl_config *cfg)
{
    long self = -1;
    for (size_t i = 0; i < cfg->n_nodes; i++) {
        if (!cfg->nodes[i] || strlen(cfg->nodes[i]) >= RTC_NODECTL_NAME_CAP) {
            rtc_log(c->lg, RTC_LOG_ERROR, "control plane: node name '%s' empty or longer "
                    "than %d bytes", cfg->nodes[i] ? cfg->nodes[i] : "",
                    RTC_NODECTL_NAME_CAP - 1);
            return false;
        }
        snprintf(c->peers[i].name, sizeof c->peers[i].name, "%s", cfg->nodes[i]);
        c->peers[i].key = rtc__dds_name_key(cfg->nodes[i]);
        if (cfg->self && !strcmp(cfg->self, cfg->nodes[i]))
            self = (long)i;
    }
    if (self < 0)
        rtc_log(c->lg, RTC_LOG_ERROR, "control plane: node '%s' is not one of the %zu nodes "
                "of the placement", cfg->self ? cfg->self : "", cfg->n_nodes);
    c->self = (size_t)self;
    return self >= 0;
}

int rtc_nodectl_open(const rtc_nodectl_config *cfg, const rtc_logger *lg, rtc_nodectl **out)
{
    if (!cfg || !out || cfg->n_nodes < 2 || !cfg->nodes || cfg->join_ns <= 0 ||
        cfg->tick_ns <= 0 || cfg->clock_max_ns < 0)
        return RTC_EINVAL;
    rtc_nodectl *c = calloc(1, sizeof *c);
    if (!c || !(c->peers = calloc(cfg->n_nodes, sizeof *c->peers))) {
        free(c);
        return RTC_ENOMEM;
    }
    pthread_mutex_init(&c->lock, NULL);
    c->lg = lg;
    c->n = cfg->n_nodes;
    c->join_ns = cfg->join_ns;
    c->tick_ns = cfg->tick_ns;
    c->clock_max_ns = cfg->clock_max_ns ? cfg->clock_max_ns : RTC_NODECTL_CLOCK_MAX_NS;
    if (!set_nodes(c, cfg)) {
        free_ctl(c);
        return RTC_EINVAL;
    }
    snprintf(c->clock.leader, sizeof c->clock.leader, "%s", c->peers[0].name);
    c->dn = rtc__dds_node_ref();
    if (!c->dn) {
        rtc_log(lg, RTC_LOG_ERROR, "control plane: no node bridge opened this process's DDS "
                "presence (node %s has no peer?)", cfg->self);
        free_ctl(c);
        return RTC_ESTATE;
    }
    c->ctl_ls = dds_create_listener(c);
    c->clk_ls = dds_create_listener(c);
    dds_lset_data_available(c->ctl_ls, on_control);
    dds_lset_data_available(c->clk_ls, on_clock);
    int drc = make_topic(c, &rtc_control_Sample_desc, RTC_CTL_TOPIC, true, &c->ctl_topic,
                         &c->ctl_wr, &c->ctl_rd, c->ctl_ls);
    if (drc == 0)
        drc = make_topic(c, &rtc_control_Ping_desc, RTC_CTL_CLOCK_TOPIC, false,
                         &c->clk_topic, &c->clk_wr, &c->clk_rd, c->clk_ls);
    if (drc < 0) {
        rtc_log(lg, RTC_LOG_ERROR, "control plane of node %s: DDS refused its topics: %s",
                cfg->self, dds_strretcode(drc));
        free_ctl(c);
        return RTC_EIO;
    }
    pthread_mutex_lock(&reg_lock);
    int rc = the_ctl ? RTC_EINVAL : RTC_OK;
    if (rc == RTC_OK)
        the_ctl = c;
    atomic_store_explicit(&plane_open, the_ctl != NULL, memory_order_release);
    pthread_mutex_unlock(&reg_lock);
    rtc_rt_thread_opts to = {.priority = 0, .cpu = -1, .name = "rtcosim-nodectl"};
    if (rc == RTC_OK && (rc = rtc_rt_thread_start(&to, ctl_main, c, lg, &c->th)) != RTC_OK) {
        pthread_mutex_lock(&reg_lock);
        the_ctl = NULL;
        atomic_store_explicit(&plane_open, false, memory_order_release);
        pthread_mutex_unlock(&reg_lock);
    }
    if (rc != RTC_OK) {
        free_ctl(c);
        return rc;
    }
    *out = c;
    return RTC_OK;
}

void rtc_nodectl_close(rtc_nodectl *c)
{
    if (!c)
        return;
    atomic_store_explicit(&c->quit, true, memory_order_release);
    rtc_rt_thread_join(c->th);
    pthread_mutex_lock(&reg_lock);
    if (the_ctl == c)
        the_ctl = NULL;
    atomic_store_explicit(&plane_open, the_ctl != NULL, memory_order_release);
    pthread_mutex_unlock(&reg_lock);
    atomic_store_explicit(&agreed_t0, 0, memory_order_release);
    if (c->ctl_wr > 0)
        dds_wait_for_acks(c->ctl_wr, DDS_SECS(1)); /* the last stop and status reach all */
    free_ctl(c);
}

/* ---- callbacks, stop, queries ---- */

void rtc_nodectl_on_stop(rtc_nodectl *c, void (*fn)(void *user), void *user)
{
    pthread_mutex_lock(&c->lock);
    c->on_stop = fn;
    c->on_stop_user = user;
    pthread_mutex_unlock(&c->lock);
}

void rtc_nodectl_on_status(rtc_nodectl *c, void (*fn)(void *user, rtc_nodectl_local *out),
                           void *user)
{
    pthread_mutex_lock(&c->lock);
    c->on_status = fn;
    c->on_status_user = user;
    pthread_mutex_unlock(&c->lock);
}

void rtc_nodectl_stopped(rtc_nodectl *c, rtc_nodectl_cause cause, int64_t tick,
                         const char *reason)
{
    if (!c)
        return;
    rtc_control_Sample s = {.cause = (uint8_t)cause, .tick = tick};
    snprintf(s.text, sizeof s.text, "%s", reason ? reason : "");
    pthread_mutex_lock(&c->lock);
    if (cause != RTC_NODECTL_NODE)
        rtc__ctl_set_stop(c, c->peers[c->self].name, cause, tick, reason, false);
    c->state = rtc_control_STATE_STOPPED;
    s.offset_ns = c->clock.offset_ns;
    bool told = c->told; /* a refused start told it already: its cause stands */
    c->told = true;
    pthread_mutex_unlock(&c->lock);
    if (told)
        return;
    rtc__ctl_publish(c, rtc_control_KIND_STOP, &s);
    publish_status(c);
    dds_wait_for_acks(c->ctl_wr, DDS_SECS(1));
}

bool rtc_nodectl_stop_origin(rtc_nodectl *c, rtc_nodectl_stop *out)
{
    if (!c)
        return false;
    pthread_mutex_lock(&c->lock);
    bool set = c->stop_set;
    if (set)
        *out = c->stop;
    pthread_mutex_unlock(&c->lock);
    return set;
}

void rtc_nodectl_clock_get(rtc_nodectl *c, rtc_nodectl_clock *out)
{
    pthread_mutex_lock(&c->lock);
    *out = c->clock;
    pthread_mutex_unlock(&c->lock);
}

static const char *state_name(int st, bool stopped)
{
    static const char *const names[] = {"joining", "ready", "running", "stopped"};
    return stopped ? "stopped" : st >= 0 && st < 4 ? names[st] : "?";
}

/* One node's view from its last status (lock held). */
static void node_view(const rtc_nodectl *c, size_t i, int64_t now, rtc_nodectl_node *o)
{
    const rtc__ctl_peer *p = &c->peers[i];
    const rtc_control_Sample *s = &p->status;
    *o = (rtc_nodectl_node){.self = i == c->self, .leader = i == 0, .heard = p->heard,
                            .age_ns = p->heard ? now - p->status_at_ns : -1,
                            .tick = s->tick, .sim_time_ns = s->sim_time_ns,
                            .overruns = s->overruns, .wakeup_p99_ns = s->wakeup_p99_ns,
                            .offset_ns = i == c->self ? c->clock.offset_ns : p->offset_ns};
    snprintf(o->name, sizeof o->name, "%s", p->name);
    o->state = !p->heard ? "joining" : state_name(s->state, p->stopped);
    /* a node silent for five status periods is gone (killed, or cut off) */
    if (p->heard && i != c->self && !p->stopped && o->age_ns > 2500000000LL)
        o->state = "lost";
    o->n_links = s->n_links < RTC_NODECTL_LINKS_CAP ? s->n_links : RTC_NODECTL_LINKS_CAP;
    for (size_t k = 0; k < o->n_links; k++) {
        const rtc_control_LinkStatus *l = &s->links[k];
        o->links[k] = (rtc_nodectl_link){.state = l->state, .latency_p50_ns = l->latency_p50_ns,
                                         .latency_p99_ns = l->latency_p99_ns,
                                         .latency_max_ns = l->latency_max_ns,
                                         .received = l->received, .late = l->late,
                                         .lost = l->lost, .duplicates = l->duplicates,
                                         .out_of_order = l->out_of_order};
        snprintf(o->links[k].peer, sizeof o->links[k].peer, "%.*s", (int)sizeof l->peer - 1,
                 l->peer);
    }
}

size_t rtc_nodectl_nodes(rtc_nodectl *c, rtc_nodectl_node *out, size_t cap)
{
    if (!c)
        return 0;
    int64_t now = rtc_time_now_ns();
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; out && i < c->n && i < cap; i++)
        node_view(c, i, now, &out[i]);
    pthread_mutex_unlock(&c->lock);
    return c->n;
}
