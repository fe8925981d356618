/*
 * summary.json of a system run (`rtcosim run SYSTEM`, fast and real time): the fillers of
 * its objects — the system's settings and times, connections (with the estimator that
 * gives each value, where it runs, and its coupling monitor), I/O components (each late
 * signal's estimator and monitor), the operator session — and the whole-file write
 * (summary.h: how to add a field).
 */
#include "cli.h"
#include "cli_nodes.h"
#include "rt_cli.h"
#include "summary.h"

#include "rtcosim/dcp.h"
#include "rtcosim/driver.h"
#include "rtcosim/estimate.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* summary.json (summary.h: how to add a field). Each filler sets the members of the
 * object it is given and returns 0, or -1 when one could not be set (out of memory). */

/* Members @p keys[i] = @p v[i] (counters) of @p obj. */
static int set_counts(json_t *obj, const char *const *keys, const uint64_t *v, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= json_object_set_new(obj, keys[i], rtc__json_uint(v[i]));
    return bad;
}

/* One signal of an I/O component: its quality and health counters. */
static json_t *io_signal_json(const char *name, const rtc_signal_health *h)
{
    static const char *const keys[] = {"updates", "stale_events", "clamped"};
    const uint64_t v[] = {h->updates, h->stale_events, h->clamped};
    json_t *o = json_object();
    int bad = !o;
    bad |= json_object_set_new(o, "name", rtc__json_str(name));
    bad |= json_object_set_new(o, "quality", json_string(rtc_quality_name(h->quality)));
    bad |= set_counts(o, keys, v, 3);
    return bad ? (json_decref(o), NULL) : o;
}

/* "estimator" (the method), "estimator_params" (the parameters it ran with, the keys of
 * params=) and "estimated_at" of one estimator configuration (NULL: zoh, none). */
static int estimator_json(json_t *o, const rtc_est_config *cfg, const char *at)
{
    char text[256];
    rtc_est_config_text(cfg, text, sizeof text);
    size_t m = strcspn(text, " ");
    int bad = json_object_set_new(o, "estimator", json_stringn(text, m));
    bad |= json_object_set_new(o, "estimator_params", rtc__json_str(text + m + (text[m] != 0)));
    return bad | json_object_set_new(o, "estimated_at", rtc__json_str(at));
}

/* One candidate of an estimator's monitor: its method, its share of the ticks, its
 * recent RMS prediction error and, for a Kalman filter, the noise it uses now. */
static json_t *candidate_json(const rtc_est_candidate *c, uint64_t supplied)
{
    json_t *o = json_object();
    int bad = !o;
    bad |= json_object_set_new(o, "estimator", json_string(rtc_est_method_name(c->method)));
    bad |= json_object_set_new(o, "share",
                               rtc__json_real(supplied ? (double)c->ticks / (double)supplied
                                                       : 0.0));
    bad |= json_object_set_new(o, "rms", rtc__json_real(c->score_rms));
    if (c->method == RTC_EST_KALMAN_CV || c->method == RTC_EST_KALMAN_CA) {
        bad |= json_object_set_new(o, "q", rtc__json_real(c->q));
        bad |= json_object_set_new(o, "r", rtc__json_real(c->r));
    }
    return bad ? (json_decref(o), NULL) : o;
}

/* The coupling monitor of an estimator into @p o: "coupling_error" (what it supplied for
 * each sample's time against the sample: samples, rms, max), "sample_delay_ns" (arrival
 * minus sample time: samples, min, mean, p50, p99, max) and, for auto and kalman, the
 * candidate "in_use" at the end, "switches" and "candidates"; for a single Kalman filter
 * "noise_in_use" (q, r); with payback, "payback" (the largest and the last correction,
 * and the sample intervals not paid back). */
static int monitor_json(json_t *o, const rtc_est *est)
{
    rtc_est_monitor m;
    if (!est || rtc_est_get_monitor(est, &m) != RTC_OK)
        return 0;
    json_t *ce = json_object(), *d = json_object();
    int bad = json_object_set_new(o, "coupling_error", ce);
    bad |= json_object_set_new(ce, "samples", rtc__json_uint(m.samples));
    bad |= json_object_set_new(ce, "rms", rtc__json_real(m.error_rms));
    bad |= json_object_set_new(ce, "max", rtc__json_real(m.error_max));
    bad |= json_object_set_new(o, "sample_delay_ns", d);
    bad |= json_object_set_new(d, "samples", rtc__json_uint(m.delays));
    bad |= json_object_set_new(d, "min", json_integer(m.delay_min_ns));
    bad |= json_object_set_new(d, "mean", rtc__json_real(m.delay_mean_ns));
    bad |= json_object_set_new(d, "p50", json_integer(m.delay_p50_ns));
    bad |= json_object_set_new(d, "p99", json_integer(m.delay_p99_ns));
    bad |= json_object_set_new(d, "max", json_integer(m.delay_max_ns));
    const rtc_est_candidate *c = m.cand;
    if (m.n_candidates == 1 && !isnan(c->q)) {
        json_t *n = json_object();
        bad |= json_object_set_new(o, "noise_in_use", n);
        bad |= json_object_set_new(n, "q", rtc__json_real(c->q));
        bad |= json_object_set_new(n, "r", rtc__json_real(c->r));
    }
    if (rtc_est_get_config(est)->payback > 0) { /* the correction inside what was supplied */
        json_t *pb = json_object();
        bad |= json_object_set_new(o, "payback", pb);
        bad |= json_object_set_new(pb, "max", rtc__json_real(m.payback_max));
        bad |= json_object_set_new(pb, "last", rtc__json_real(m.payback_last));
        bad |= json_object_set_new(pb, "unpaid", json_integer((json_int_t)m.payback_unpaid));
    }
    if (m.n_candidates < 2)
        return bad;
    json_t *cands = json_array();
    bad |= json_object_set_new(o, "in_use", json_string(rtc_est_method_name(c[m.in_use].method)));
    bad |= json_object_set_new(o, "switches", rtc__json_uint(m.switches));
    bad |= json_object_set_new(o, "candidates", cands);
    for (uint32_t i = 0; i < m.n_candidates; i++)
        bad |= json_array_append_new(cands, candidate_json(&c[i], m.supplied));
    return bad;
}

/* What only this kind of driver counts, as the object "<kind>" of @p o: each unit shows
 * its own driver's counters and no other's. */
static int io_counters_json(json_t *o, const rtc_driver_stats *st)
{
    if (!st->kind || !st->n_counters)
        return 0;
    json_t *k = json_object();
    int bad = !k;
    for (size_t i = 0; k && i < st->n_counters && i < RTC_DRIVER_MAX_COUNTERS; i++)
        bad |= json_object_set_new(k, st->counters[i].name,
                                   rtc__json_uint(st->counters[i].value));
    return bad | json_object_set_new(o, st->kind, k);
}

/* One I/O component (one entry of "io"): the generic driver counters, request latency,
 * signals, and its driver's own counters. */
static int io_json(json_t *o, const rtc_unit *u, const rtc_driver_stats *st)
{
    static const char *const keys[] = {"requests", "errors", "timeouts", "reconnects",
                                       "rejected"};
    const uint64_t c[] = {st->requests, st->errors, st->timeouts, st->reconnects,
                          st->rejected};
    int bad = json_object_set_new(o, "unit", rtc__json_str(u->name));
    bad |= set_counts(o, keys, c, 5);
    json_t *lat = json_object(), *sigs = json_array();
    bad |= json_object_set_new(lat, "min", json_integer(st->latency.min));
    bad |= json_object_set_new(lat, "p50", json_integer(st->latency.p50));
    bad |= json_object_set_new(lat, "p99", json_integer(st->latency.p99));
    bad |= json_object_set_new(lat, "max", json_integer(st->latency.max));
    bad |= json_object_set_new(o, "request_latency_ns", lat);
    for (size_t k = 0; k < st->n_signals && k < st->n_signals_cap; k++) {
        json_t *sj = io_signal_json(u->md->vars[k].name, &st->signals[k]);
        const rtc_est_config *cfg = rtc_io_unit_estimator(u, k); /* from the bench only */
        if (sj && cfg) {
            bad |= estimator_json(sj, cfg, "I/O signal");
            bad |= monitor_json(sj, rtc_io_unit_est(u, k));
        }
        bad |= json_array_append_new(sigs, sj);
    }
    bad |= json_object_set_new(o, "signals", sigs);
    return bad | io_counters_json(o, st);
}

/* One I/O component of a replay (no driver, no counters): its signals from the bench with
 * their estimators and coupling monitors. */
static int replay_io_json(json_t *o, const rtc_unit *u)
{
    json_t *sigs = json_array();
    int bad = json_object_set_new(o, "unit", rtc__json_str(u->name));
    bad |= json_object_set_new(o, "driver", json_string("replay"));
    bad |= json_object_set_new(o, "signals", sigs);
    for (size_t k = 0; k < u->md->n_vars; k++) {
        const rtc_est_config *cfg = rtc_io_unit_estimator(u, k);
        if (!cfg)
            continue;
        json_t *sj = json_object();
        bad |= json_object_set_new(sj, "name", rtc__json_str(u->md->vars[k].name));
        bad |= estimator_json(sj, cfg, "I/O signal");
        bad |= monitor_json(sj, rtc_io_unit_est(u, k));
        bad |= json_array_append_new(sigs, sj);
    }
    return bad;
}

/* "io": the I/O components' driver counters, request latency and per-signal health (a
 * replay's: their signals' estimators). */
static int write_io_stats(json_t *obj, const rtc_system *sys)
{
    json_t *io = json_array();
    int bad = 0;
    for (size_t i = 0; i < rtc_system_unit_count(sys); i++) {
        const rtc_unit *u = rtc_system_unit(sys, i);
        rtc_signal_health h[64];
        rtc_driver_stats st = {.signals = h, .n_signals_cap = 64};
        bool live = rtc_io_unit_stats(u, &st) == RTC_OK;
        if (!live && !rtc_io_unit_is(u))
            continue;
        json_t *o = json_object();
        bad |= !o ? -1 : live ? io_json(o, u, &st) : replay_io_json(o, u);
        bad |= json_array_append_new(io, o);
    }
    return bad | json_object_set_new(obj, "io", io);
}

/* ---- the link contract (DESIGN.md T2): "links" ---- */

static json_t *secs_or_null(int64_t ns, bool known)
{
    return known ? rtc__json_real((double)ns / 1e9) : json_null();
}

/* "outages" of one link: count, total and longest (the one under way counts so far). */
static json_t *outages_json(const rtc_link_info *c)
{
    json_t *o = json_object();
    int bad = !o;
    bad |= json_object_set_new(o, "count", rtc__json_uint(c->outages));
    bad |= json_object_set_new(o, "total_s", rtc__json_real((double)c->outage_total_ns / 1e9));
    bad |= json_object_set_new(o, "longest_s", rtc__json_real((double)c->outage_max_ns / 1e9));
    return bad ? (json_decref(o), NULL) : o;
}

/* The contract part of one "links" entry: what was promised, the times in force. */
static int contract_json(json_t *o, const rtc_link_info *c)
{
    char pol[48];
    int bad = json_object_set_new(o, "required", json_boolean(c->required));
    bad |= json_object_set_new(o, "connect_ms", c->connect_ns < 0 ? json_null()
                               : rtc__json_real((double)c->connect_ns / 1e6));
    bad |= json_object_set_new(o, "on_loss", json_string(rtc_link_policy_text(c, pol,
                                                                                 sizeof pol)));
    bad |= json_object_set_new(o, "loss_ms", rtc__json_real((double)c->loss_ns / 1e6));
    bad |= json_object_set_new(o, "timeout_ms", c->timeout_ns ? rtc__json_real(
                               (double)c->timeout_ns / 1e6) : json_null());
    bad |= json_object_set_new(o, "derived", json_boolean(c->derived));
    return bad | json_object_set_new(o, "rtt_connect_ms", c->rtt_ns ? rtc__json_real(
                                     (double)c->rtt_ns / 1e6) : json_null());
}

/* One entry of "links": the contract, how it held (state, first connect, time up,
 * outages), the exchanges and their round trip, the last error. */
static int links_entry(json_t *o, const rtc_unit *u, const rtc_driver_stats *st)
{
    const rtc_link_info *c = &st->contract;
    static const char *const keys[] = {"requests", "errors", "timeouts", "reconnects"};
    const uint64_t v[] = {st->requests, st->errors, st->timeouts, st->reconnects};
    int bad = json_object_set_new(o, "component", rtc__json_str(u->name));
    bad |= json_object_set_new(o, "driver", rtc__json_str(rtc_io_unit_driver(u)));
    bad |= json_object_set_new(o, "address", rtc__json_str(c->address));
    bad |= json_object_set_new(o, "state", json_string(rtc_link_state_name(st->link)));
    bad |= contract_json(o, c);
    bad |= json_object_set_new(o, "first_connect_s",
                               secs_or_null(c->first_up_ns - c->start_ns, c->first_up_ns != 0));
    double share = rtc_link_up_share(c);
    bad |= json_object_set_new(o, "connected_share", share >= 0 ? rtc__json_real(share)
                                                                : json_null());
    bad |= json_object_set_new(o, "outages", outages_json(c));
    bad |= set_counts(o, keys, v, 4);
    json_t *rtt = json_object();
    bad |= json_object_set_new(rtt, "count", rtc__json_uint(st->latency.count));
    bad |= json_object_set_new(rtt, "p50", json_integer(st->latency.p50));
    bad |= json_object_set_new(rtt, "p99", json_integer(st->latency.p99));
    bad |= json_object_set_new(rtt, "max", json_integer(st->latency.max));
    bad |= json_object_set_new(o, "rtt_ns", rtt);
    bad |= json_object_set_new(o, "lost_because", c->lost_why ? json_string(c->lost_why)
                                                             : json_null());
    return bad | json_object_set_new(o, "error", c->error ? json_string(c->error) : json_null());
}

/* "links": every I/O component with a link contract. */
static int write_links(json_t *obj, const rtc_system *sys)
{
    json_t *links = json_array();
    int bad = !links;
    for (size_t i = 0; sys && i < rtc_system_unit_count(sys); i++) {
        const rtc_unit *u = rtc_system_unit(sys, i);
        rtc_driver_stats st = {0};
        if (!rtc_io_unit_contract(u) || rtc_io_unit_stats(u, &st) != RTC_OK)
            continue;
        json_t *o = json_object();
        bad |= o ? links_entry(o, u, &st) : -1;
        bad |= json_array_append_new(links, o);
    }
    return bad | json_object_set_new(obj, "links", links);
}

void rtc_cli_link_reason(const rtc_system *sys, long unit, int64_t lost_ns, char *buf,
                         size_t cap)
{
    const rtc_unit *u = unit >= 0 && (size_t)unit < rtc_system_unit_count(sys)
                            ? rtc_system_unit(sys, (size_t)unit) : NULL;
    rtc_driver_stats st = {0};
    if (!u || rtc_io_unit_stats(u, &st) != RTC_OK) {
        snprintf(buf, cap, "an I/O link failed its contract");
        return;
    }
    const rtc_link_info *c = &st.contract;
    char pol[48];
    if (!lost_ns)
        snprintf(buf, cap, "I/O component %s (%s %s) not up within connect_ms=%.0f: %s; "
                 "the run did not start", u->name, rtc_io_unit_driver(u), c->address,
                 (double)c->connect_ns / 1e6, c->error ? c->error : "no answer");
    else
        snprintf(buf, cap, "I/O component %s (%s %s) lost its link (%s) and on_loss %s "
                 "stopped the run", u->name, rtc_io_unit_driver(u), c->address,
                 c->lost_why ? c->lost_why : c->error ? c->error : "nothing fresh",
                 rtc_link_policy_text(c, pol, sizeof pol));
}

bool rtc_cli_links_degraded(const rtc_system *sys, char *buf, size_t cap)
{
    for (size_t i = 0; sys && i < rtc_system_unit_count(sys); i++) {
        const rtc_unit *u = rtc_system_unit(sys, i);
        rtc_driver_stats st = {0};
        if (!rtc_io_unit_contract(u) || rtc_io_unit_stats(u, &st) != RTC_OK)
            continue;
        const rtc_link_info *c = &st.contract;
        if (c->required && c->on_loss == RTC_LINK_CONTINUE && c->outages) {
            snprintf(buf, cap, "reached the stop time degraded: I/O component %s (%s) was "
                     "lost %llu time(s), %.3f s in all (on_loss continue)", u->name,
                     c->address, (unsigned long long)c->outages,
                     (double)c->outage_total_ns / 1e9);
            return true;
        }
    }
    return false;
}

/* "session": the operator session's counters (real-time runs): all zero drops in a
 * sound run. */
static int session_json(json_t *obj, const rtc_cli_rt *rt, const rtc_recorder_stats *rs)
{
    if (!rt->has_session)
        return 0;
    const rtc_session_stats *s = &rt->session;
    static const char *const keys[] = {
        "inputs_written", "inputs_dropped", "inputs_ring_high_water", "commands_applied",
        "commands_dropped", "events", "events_suppressed", "exposed",
        "recorder_ring_high_water", "recorder_ring_capacity"};
    const uint64_t v[] = {s->inputs_written, s->inputs_dropped, s->inputs_high_water,
                          s->commands_applied, s->commands_dropped, s->events,
                          s->events_suppressed, s->n_exposed, rs->ring_high_water,
                          rs->ring_capacity};
    json_t *o = json_object();
    int bad = o ? set_counts(o, keys, v, 10) : -1;
    return bad | json_object_set_new(obj, "session", o);
}

/* "surfaces": what the operator surfaces (OSC control, panel) took and refused, and why
 * (real-time runs that had one). */
/* "dcp_slave": every datagram acted on or counted in one refusal counter. */
static int dcp_json(json_t *o, const rtc_dcp_slave_stats *d)
{
    static const char *const keys[] = {
        "received", "requests", "nacks", "wrong_sender", "malformed", "wrong_seq",
        "not_allowed", "refused", "dropped", "ignored", "repeats", "dat_in", "dat_out",
        "dat_missed", "steps", "inputs_lost", "notifications", "heartbeats_missed"};
    const uint64_t v[] = {d->received, d->requests, d->nacks, d->wrong_sender, d->malformed,
                          d->wrong_seq, d->not_allowed, d->refused, d->dropped, d->ignored,
                          d->repeats, d->dat_in, d->dat_out, d->dat_missed, d->steps,
                          d->inputs_lost, d->notifications, d->heartbeats_missed};
    json_t *j = json_object();
    if (!j)
        return -1;
    int bad = set_counts(j, keys, v, sizeof v / sizeof v[0]);
    bad |= json_object_set_new(j, "state", json_string(rtc_dcp_state_name(d->state)));
    return bad | json_object_set_new(o, "dcp_slave", j);
}

static int surfaces_json(json_t *obj, const rtc_cli_rt *rt)
{
    if (!rt->has_osc && !rt->has_panel && !rt->has_dcp)
        return 0;
    static const char *const osc_keys[] = {"messages", "refused", "wrong_tokens"};
    const uint64_t osc_v[] = {rt->osc.messages, rt->osc.refused, rt->osc.wrong_tokens};
    static const char *const panel_keys[] = {"requests",  "refused",      "wrong_tokens",
                                             "throttled", "cross_origin", "header_timeouts",
                                             "evicted"};
    const rtc_panel_stats *ps = &rt->panel;
    const uint64_t panel_v[] = {ps->requests,  ps->refused,      ps->wrong_tokens,
                                ps->throttled, ps->cross_origin, ps->header_timeouts,
                                ps->evicted};
    json_t *o = json_object(), *osc = rt->has_osc ? json_object() : NULL,
           *panel = rt->has_panel ? json_object() : NULL;
    int bad = o ? 0 : -1;
    if (rt->has_dcp)
        bad |= dcp_json(o, &rt->dcp);
    if (rt->has_osc)
        bad |= (osc ? set_counts(osc, osc_keys, osc_v, 3) : -1) |
               json_object_set_new(o, "osc_control", osc);
    if (rt->has_panel)
        bad |= (panel ? set_counts(panel, panel_keys, panel_v, 7) : -1) |
               json_object_set_new(o, "panel", panel);
    return bad | json_object_set_new(obj, "surfaces", o);
}

static void nf_name(const void *user, size_t id, char *buf, size_t cap)
{
    rtc_system_nonfinite_name(user, id, buf, cap);
}

/* One entry of "connections": the link, the estimator that gives its value and where it
 * runs (the connection's own, or the I/O signal it comes from: a bench value is
 * estimated there), its delay, and that estimator's coupling monitor (monitor_json: rms
 * and max are reals, null when non-finite). A connection without an estimator (not late,
 * read directly) has no monitor. */
static int link_json(json_t *o, const rtc_system *sys, const rtc_link_stats *ls)
{
    int bad = json_object_set_new(o, "link", rtc__json_str(ls->desc));
    char src[512], at[600] = "connection";
    snprintf(src, sizeof src, "%.*s", (int)strcspn(ls->desc, " "), ls->desc);
    size_t u, v;
    const rtc_est_config *cfg = ls->config;
    const rtc_est *est = ls->est;
    if (!cfg && rtc_system_find_var(sys, src, &u, &v) == RTC_OK &&
        (cfg = rtc_io_unit_estimator(rtc_system_unit(sys, u), v)) != NULL) {
        snprintf(at, sizeof at, "I/O signal %s", src);
        est = rtc_io_unit_est(rtc_system_unit(sys, u), v);
    }
    bad |= json_object_set_new(o, "delay_ns", json_integer(ls->delay_ns));
    bad |= estimator_json(o, cfg, at);
    return bad | monitor_json(o, est);
}

/* What only the stepping thread writes: read once it has stopped (full summaries). */
static int write_step_stats(json_t *obj, const rtc_system *sys, const rtc_cli_rt *rt,
                            const rtc_recorder_stats *rs)
{
    rtc_coupling_stats cs;
    rtc_system_coupling_stats(sys, &cs);
    static const char *const keys[] = {"iterated_steps", "iterations", "not_converged"};
    const uint64_t v[] = {cs.iterated_steps, cs.iterations, cs.not_converged};
    json_t *sc = json_object(), *links = json_array();
    int bad = sc ? set_counts(sc, keys, v, 3) : -1;
    bad |= json_object_set_new(obj, "strong_coupling", sc);
    for (size_t i = 0; i < rtc_system_link_count(sys); i++) {
        rtc_link_stats ls;
        rtc_system_link_stats(sys, i, &ls);
        json_t *o = json_object();
        bad |= o ? link_json(o, sys, &ls) : -1;
        bad |= json_array_append_new(links, o);
    }
    bad |= json_object_set_new(obj, "connections", links);
    bad |= write_io_stats(obj, sys);
    bad |= write_links(obj, sys);
    return bad | session_json(obj, rt, rs) | surfaces_json(obj, rt);
}

/* One entry of "units": its step and the events handled inside its steps (FMI 3 event
 * mode, early returns, clock activations). */
static int unit_json(json_t *o, const rtc_system *sys, size_t i)
{
    rtc_unit_event_stats ev;
    rtc_system_unit_event_stats(sys, i, &ev);
    int bad = json_object_set_new(o, "name", rtc__json_str(rtc_system_unit(sys, i)->name));
    bad |= json_object_set_new(o, "step_ns", json_integer(rtc_system_unit_step_ns(sys, i)));
    bad |= json_object_set_new(o, "events", rtc__json_uint(ev.events));
    bad |= json_object_set_new(o, "early_returns", rtc__json_uint(ev.early_returns));
    bad |= json_object_set_new(o, "max_microsteps", rtc__json_uint(ev.max_microsteps));
    return bad | rtc_cli_me_events_json(o, rtc_system_unit(sys, i));
}

/* The system's own settings and times (the system counts from its start time). */
static int summary_top(json_t *doc, const rtc_system *sys, const rtc_cli_end *end)
{
    int bad = json_object_set_new(doc, "algorithm",
                                  json_string(rtc_master_name(rtc_system_algorithm(sys))));
    bad |= json_object_set_new(doc, "tick_ns", json_integer(rtc_system_tick_ns(sys)));
    bad |= json_object_set_new(doc, "ticks", json_integer(end->last_tick));
    bad |= json_object_set_new(doc, "start_time_s",
                               rtc__json_real((double)rtc_system_start_ns(sys) / 1e9));
    return bad | json_object_set_new(doc, "end_time_s",
                                     rtc__json_real((double)end->last_time_ns / 1e9));
}

/* A single FMU's run (`run FMU`): its file as "fmu" and its unit's fields at the top level,
 * as they always were; a system's file as "system" and its units in "units". */
static int summary_fmu(json_t *doc, const rtc_system *sys)
{
    int bad = json_object_set_new(doc, "step_ns", json_integer(rtc_system_unit_step_ns(sys, 0)));
    rtc_unit_event_stats ev;
    rtc_system_unit_event_stats(sys, 0, &ev);
    bad |= rtc_cli_me_events_json(doc, rtc_system_unit(sys, 0));
    bad |= json_object_set_new(doc, "events", rtc__json_uint(ev.events));
    bad |= json_object_set_new(doc, "early_returns", rtc__json_uint(ev.early_returns));
    return bad | json_object_set_new(doc, "max_microsteps", rtc__json_uint(ev.max_microsteps));
}

bool rtc_cli_write_summary(const rtc_system *sys, const char *path, const rtc_cli_end *end,
                           double wall_s, const rtc_recorder_stats *rs, const rtc_cli_rt *rt,
                           bool full)
{
    if (!rt->summary_path)
        return true;
    static const rtc_recorder_stats none;
    rs = rs ? rs : &none;
    bool fmu = rt->fmu_run && sys && rtc_system_unit_count(sys) == 1;
    json_t *doc = json_object(), *units = json_array();
    int bad = !doc;
    bad |= json_object_set_new(doc, rt->fmu_run ? "fmu" : "system", rtc__json_str(path));
    bad |= rtc_cli_summary_end(doc, end, rtc_system_nonfinite(sys), nf_name, sys);
    if (sys)
        bad |= summary_top(doc, sys, end);
    bad |= json_object_set_new(doc, "wall_time_s", rtc__json_real(wall_s));
    bad |= json_object_set_new(doc, "rows_written", rtc__json_uint(rs->rows_written));
    bad |= json_object_set_new(doc, "rows_dropped", rtc__json_uint(rs->rows_dropped));
    bad |= json_object_set_new(doc, "rows_lost", rtc__json_uint(rs->rows_lost));
    if (sys && full)
        bad |= write_step_stats(doc, sys, rt, rs);
    if (rt)
        bad |= rtc_cli_nodes_summary(rt->nodes, doc); /* "distributed" */
    for (size_t i = 0; sys && i < rtc_system_unit_count(sys); i++) {
        json_t *o = json_object();
        bad |= o ? unit_json(o, sys, i) : -1;
        bad |= json_array_append_new(units, o);
    }
    bad |= json_object_set_new(doc, "units", units);
    bad |= rtc_cli_summary_feasibility(doc, rt);
    if (fmu) /* last, where `run FMU` always had them */
        bad |= summary_fmu(doc, sys);
    return rtc_cli_summary_write(doc, bad, rt->summary_path);
}
