/*
 * A node of a distributed real-time run (cli_nodes.h): the CLI's side of the control
 * plane. The order of a node's run:
 *
 *   load the node's part (its bridges make the DDS presence)   cmd_system.c
 *   rtc_cli_nodes_open      the control plane
 *   rtc_cli_nodes_join      every node there (bounded by --join-timeout)
 *   initialize the system   the bridges match their peers
 *   executive: start hook   clock, READY, the leader's epoch: logical 0 everywhere at once
 *   run                     another node's stop stops this one (on_stop)
 *   rtc_cli_nodes_stopped   tell the others why this one stopped
 *   summary.json            "distributed": who stopped the run and why, clocks, nodes
 */
#include "cli_nodes.h"

#include "cli.h"

#include "rtcosim/driver.h"
#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- callbacks (the plane's threads) ---- */

/* Another node stopped the run: this one stops at its next tick boundary. */
static void on_stop(void *user)
{
    rtc_cli_nodes *n = user;
    atomic_store_explicit(&n->halted, true, memory_order_release);
    rtc_exec *ex = atomic_load_explicit(&n->ex, memory_order_acquire);
    if (ex)
        rtc_exec_request_stop(ex);
}

static void on_status(void *user, rtc_nodectl_local *out)
{
    rtc_cli_nodes *n = user;
    rtc_exec *ex = atomic_load_explicit(&n->ex, memory_order_acquire);
    if (!ex)
        return;
    rtc_exec_progress p;
    rtc_exec_progress_get(ex, &p);
    *out = (rtc_nodectl_local){.tick = (int64_t)p.steps, .sim_time_ns = p.sim_time_ns,
                               .overruns = p.overruns, .wakeup_p99_ns = p.wakeup_p99_ns};
}

static bool interrupted(void *user)
{
    (void)user;
    return rtc_cli_stop_signal() != 0;
}

static bool stop_asked(void *user)
{
    return rtc_exec_stop_requested(user);
}

/* The executive's start hook: the agreed instant of logical 0. */
static int64_t start_at(void *user, rtc_exec *ex)
{
    rtc_cli_nodes *n = user;
    atomic_store_explicit(&n->ex, ex, memory_order_release);
    int64_t t0 = rtc_nodectl_start(n->ctl, stop_asked, ex);
    if (t0 == 0) /* interrupted, or another node stopped: the run ends at its first tick */
        rtc_exec_request_stop(ex);
    return t0;
}

/* ---- the run ---- */

int rtc_cli_nodes_open(rtc_cli_nodes *n, const rtc_partition *part,
                       const rtc_placement_opts *place, int64_t tick_ns, double clock_max_ms)
{
    memset(n, 0, sizeof *n);
    if (!part)
        return RTC_OK;
    size_t k = rtc_partition_node_count(part);
    const char **nodes = calloc(k + 1, sizeof *nodes);
    if (!nodes)
        return RTC_ENOMEM;
    for (size_t i = 0; i < k; i++)
        nodes[i] = rtc_partition_node(part, i);
    n->part = part;
    n->session_tag = place->session ? place->session : "rtcosim";
    n->clock_max_ns = (int64_t)(clock_max_ms * 1e6);
    rtc_nodectl_config c = {.nodes = nodes, .n_nodes = k, .self = place->node,
                            .join_ns = (int64_t)((place->join_ms > 0 ? place->join_ms
                                                                     : 30000) * 1e6),
                            .clock_max_ns = n->clock_max_ns, .tick_ns = tick_ns};
    int rc = rtc_nodectl_open(&c, &rtc_cli_log, &n->ctl);
    free(nodes);
    if (rc == RTC_OK)
        rtc_nodectl_on_stop(n->ctl, on_stop, n);
    return rc;
}

int rtc_cli_nodes_join(rtc_cli_nodes *n)
{
    /* the node bridges' own wait for their peers (fast runs, and real time after the
     * plane's join) ends at a Ctrl-C too, not at --join-timeout */
    rtc_node_bridge_set_cancel(interrupted, NULL);
    return n->ctl ? rtc_nodectl_join(n->ctl, interrupted, NULL) : RTC_OK;
}

void rtc_cli_nodes_exec_options(rtc_cli_nodes *n, rtc_exec_options *eo)
{
    if (!n || !n->ctl)
        return;
    eo->start_at = start_at;
    eo->start_user = n;
}

static size_t session_nodes(void *user, rtc_session_node *out, size_t cap);

void rtc_cli_nodes_attach(rtc_cli_nodes *n, rtc_exec *ex, rtc_session *s)
{
    if (!n || !n->ctl)
        return;
    atomic_store_explicit(&n->ex, ex, memory_order_release);
    rtc_nodectl_on_status(n->ctl, on_status, n);
    if (s)
        rtc_session_set_nodes(s, session_nodes, n);
    if (atomic_load_explicit(&n->halted, memory_order_acquire))
        rtc_exec_request_stop(ex); /* it came before there was an executive to stop */
}

void rtc_cli_nodes_detach(rtc_cli_nodes *n)
{
    if (!n || !n->ctl)
        return;
    atomic_store_explicit(&n->ex, NULL, memory_order_release);
    /* no status or stop callback runs once these return (the plane's lock) */
    rtc_nodectl_on_status(n->ctl, NULL, NULL);
    rtc_nodectl_on_stop(n->ctl, on_stop, n);
}

/* The control plane's word for the run's cause (summary.h). */
static rtc_nodectl_cause cause_of(const char *cause)
{
    static const struct {
        const char *cause;
        rtc_nodectl_cause c;
    } map[] = {{"end", RTC_NODECTL_COMPLETED},    {"signal", RTC_NODECTL_INTERRUPTED},
               {"request", RTC_NODECTL_INTERRUPTED}, {"overruns", RTC_NODECTL_OVERRUNS},
               {"watchdog", RTC_NODECTL_WATCHDOG}, {"link", RTC_NODECTL_LINK},
               {"node", RTC_NODECTL_NODE}};
    for (size_t i = 0; cause && i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(cause, map[i].cause))
            return map[i].c;
    return RTC_NODECTL_ERROR; /* error, nonfinite, write */
}

void rtc_cli_nodes_stopped(rtc_cli_nodes *n, rtc_cli_end *end, int64_t tick)
{
    if (!n || !n->ctl)
        return;
    rtc_nodectl_stop o;
    bool remote = rtc_nodectl_stop_origin(n->ctl, &o) && o.remote;
    /* stopped on the other node's word (its request), or on its own for the same reason
     * (it saw the same peer vanish): the summary names where the stop began */
    if (remote && end->cause && (!strcmp(end->cause, "request") || !strcmp(end->cause, "link"))) {
        end->cause = "node";
        snprintf(end->reason, sizeof end->reason, "node %s stopped the run at its tick %" PRId64
                 ": %s%s%s", o.node, o.tick, rtc_nodectl_cause_name(o.cause),
                 o.reason[0] ? ": " : "", o.reason);
    }
    rtc_nodectl_stopped(n->ctl, cause_of(end->cause), tick, end->reason);
}

void rtc_cli_nodes_close(rtc_cli_nodes *n)
{
    rtc_nodectl_close(n->ctl);
    n->ctl = NULL;
}

/* ---- what the nodes say: summary.json and the session ---- */

static json_t *ms(int64_t ns)
{
    return rtc__json_real((double)ns / 1e6);
}

static json_t *link_json(const rtc_nodectl_link *l)
{
    json_t *o = json_object();
    int bad = !o;
    bad |= json_object_set_new(o, "peer", rtc__json_str(l->peer));
    bad |= json_object_set_new(o, "state", json_string(rtc_link_state_name(l->state)));
    bad |= json_object_set_new(o, "latency_p50_ms", ms(l->latency_p50_ns));
    bad |= json_object_set_new(o, "latency_p99_ms", ms(l->latency_p99_ns));
    bad |= json_object_set_new(o, "latency_max_ms", ms(l->latency_max_ns));
    bad |= json_object_set_new(o, "received", rtc__json_uint(l->received));
    bad |= json_object_set_new(o, "late", rtc__json_uint(l->late));
    bad |= json_object_set_new(o, "lost", rtc__json_uint(l->lost));
    bad |= json_object_set_new(o, "duplicates", rtc__json_uint(l->duplicates));
    bad |= json_object_set_new(o, "out_of_order", rtc__json_uint(l->out_of_order));
    return bad ? (json_decref(o), NULL) : o;
}

/* One node's last status ("nodes" of "distributed"). */
static json_t *node_json(const rtc_nodectl_node *v)
{
    json_t *o = json_object(), *links = json_array();
    int bad = !o || !links;
    bad |= json_object_set_new(o, "name", rtc__json_str(v->name));
    bad |= json_object_set_new(o, "state", rtc__json_str(v->state));
    bad |= json_object_set_new(o, "tick", json_integer(v->tick));
    bad |= json_object_set_new(o, "overruns", rtc__json_uint(v->overruns));
    bad |= json_object_set_new(o, "wakeup_p99_us", rtc__json_real((double)v->wakeup_p99_ns / 1e3));
    bad |= json_object_set_new(o, "clock_offset_ms", ms(v->offset_ns));
    for (size_t k = 0; !bad && k < v->n_links; k++)
        bad |= json_array_append_new(links, link_json(&v->links[k]));
    bad |= json_object_set_new(o, "links", links);
    return bad ? (json_decref(o), NULL) : o;
}

static json_t *clock_json(const rtc_nodectl_clock *c)
{
    json_t *o = json_object();
    int bad = !o;
    bad |= json_object_set_new(o, "leader", rtc__json_str(c->leader));
    bad |= json_object_set_new(o, "measured", json_boolean(c->measured));
    bad |= json_object_set_new(o, "offset_ms", ms(c->offset_ns));
    bad |= json_object_set_new(o, "offset_rtt_ms", ms(c->rtt_ns));
    bad |= json_object_set_new(o, "drift_max_ms", ms(c->drift_max_ns));
    bad |= json_object_set_new(o, "measurements", rtc__json_uint(c->measurements));
    bad |= json_object_set_new(o, "epoch_unix_s", c->epoch_ns ? rtc__json_real(
                               (double)c->epoch_ns / 1e9) : json_null());
    return bad ? (json_decref(o), NULL) : o;
}

static json_t *stop_json(rtc_nodectl *ctl)
{
    rtc_nodectl_stop s;
    if (!rtc_nodectl_stop_origin(ctl, &s))
        return json_null();
    json_t *o = json_object();
    int bad = !o;
    bad |= json_object_set_new(o, "node", rtc__json_str(s.node));
    bad |= json_object_set_new(o, "cause", json_string(rtc_nodectl_cause_name(s.cause)));
    bad |= json_object_set_new(o, "tick", json_integer(s.tick));
    bad |= json_object_set_new(o, "reason", rtc__json_str(s.reason));
    bad |= json_object_set_new(o, "this_node", json_boolean(!s.remote));
    return bad ? (json_decref(o), NULL) : o;
}

int rtc_cli_nodes_summary(rtc_cli_nodes *n, json_t *doc)
{
    if (!n || !n->ctl)
        return 0;
    enum { CAP = 64 };
    rtc_nodectl_node *v = calloc(CAP, sizeof *v);
    json_t *o = json_object(), *names = json_array(), *status = json_array();
    int bad = !v || !o || !names || !status;
    size_t k = bad ? 0 : rtc_nodectl_nodes(n->ctl, v, CAP);
    rtc_nodectl_clock c;
    rtc_nodectl_clock_get(n->ctl, &c);
    char run[24];
    snprintf(run, sizeof run, "%016" PRIx64, rtc_partition_run_id(n->part));
    for (size_t i = 0; i < k && i < CAP; i++) {
        bad |= json_array_append_new(names, rtc__json_str(v[i].name));
        bad |= json_array_append_new(status, node_json(&v[i]));
        if (v[i].self)
            bad |= json_object_set_new(o, "node", rtc__json_str(v[i].name));
    }
    bad |= json_object_set_new(o, "nodes", names);
    bad |= json_object_set_new(o, "session", rtc__json_str(n->session_tag));
    bad |= json_object_set_new(o, "run_id", rtc__json_str(run));
    bad |= json_object_set_new(o, "stopped_by", stop_json(n->ctl));
    bad |= json_object_set_new(o, "clock", clock_json(&c));
    bad |= json_object_set_new(o, "node_status", status);
    free(v);
    return bad | json_object_set_new(doc, "distributed", o);
}

/* Every node's status for the session (the panel), from the plane's. */
static size_t session_nodes(void *user, rtc_session_node *out, size_t cap)
{
    rtc_cli_nodes *n = user;
    enum { CAP = 64 };
    rtc_nodectl_node *v = calloc(CAP, sizeof *v);
    size_t k = v ? rtc_nodectl_nodes(n->ctl, v, CAP) : 0;
    for (size_t i = 0; i < k && i < CAP && i < cap; i++) {
        rtc_session_node *o = &out[i];
        *o = (rtc_session_node){.self = v[i].self, .leader = v[i].leader,
                                .heard = v[i].heard, .state = v[i].state,
                                .age_s = (double)v[i].age_ns / 1e9, .k = v[i].tick,
                                .overruns = v[i].overruns,
                                .wakeup_p99_us = (double)v[i].wakeup_p99_ns / 1e3,
                                .clock_offset_ms = (double)v[i].offset_ns / 1e6,
                                .n_links = v[i].n_links};
        snprintf(o->name, sizeof o->name, "%s", v[i].name);
        for (size_t j = 0; j < v[i].n_links && j < RTC_SESSION_NODE_LINKS; j++) {
            const rtc_nodectl_link *l = &v[i].links[j];
            o->links[j] = (rtc_session_node_link){
                .state = rtc_link_state_name(l->state),
                .latency_p50_ms = (double)l->latency_p50_ns / 1e6,
                .latency_p99_ms = (double)l->latency_p99_ns / 1e6,
                .latency_max_ms = (double)l->latency_max_ns / 1e6, .received = l->received,
                .late = l->late, .lost = l->lost, .duplicates = l->duplicates,
                .out_of_order = l->out_of_order};
            snprintf(o->links[j].peer, sizeof o->links[j].peer, "%s", l->peer);
        }
    }
    free(v);
    return k < cap ? k : cap;
}
