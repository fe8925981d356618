/*
 * The runtime state of a system (rtcosim/system.h): the buffers sized before the run,
 * the recording view, initialization, stepping through the chosen master, accessors and
 * teardown. The value path between units is in system_exchange.c, the masters in
 * masters/, building and validation in system_load.c.
 */
#include "system_priv.h"

#include "rtcosim/io_unit.h"

#include "masters/master_priv.h"

#include "rtcosim/nonfinite.h"

#include "rtcosim/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rtc__sys_observe(rtc_system *sys, size_t unit, size_t var)
{
    var_req *o = realloc(sys->observe, (sys->n_observe + 1) * sizeof *o);
    if (!o)
        return RTC_ENOMEM;
    sys->observe = o;
    o[sys->n_observe++] = (var_req){unit, var};
    return RTC_OK;
}

/* ---- the recording view: get() answers from what is visible at the current tick ---- */

/* The same value references in the same order (inline: a row's handful of references
 * cost less compared here than a library call costs). */
static bool same_vrs(const uint32_t *a, const uint32_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* A selection of the group's values: one search per value reference. Out of line, so the
 * whole-group copy of view_get() does not pay for its frame. */
__attribute__((noinline)) static int view_pick(const sys_unit *u, const obs_group *g,
                                               size_t sz, const uint32_t *vr, size_t n_vr,
                                               void *values, size_t n_values)
{
    size_t w = 0;
    for (size_t i = 0; i < n_vr; i++) {
        const uint32_t *p = bsearch(&vr[i], g->vr, g->n_vr, sizeof *vr, rtc__sys_cmp_u32);
        if (!p)
            return RTC_ENOTFOUND;
        size_t j = (size_t)(p - g->vr);
        if (w + g->count[j] > n_values)
            return RTC_EINVAL;
        memcpy((char *)values + w * sz, (const char *)rtc__obs_cur(u, g) + g->offset[j] * sz,
               g->count[j] * sz);
        w += g->count[j];
    }
    return RTC_OK;
}

static int view_get(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, void *values,
                    size_t n_values)
{
    const sys_unit *u = self;
    const obs_group *g = &u->obs[type];
    /* the recording of every observed value in the group's order (a run's default, every
     * output): the values as they lie, one copy per row instead of a search per value */
    if (n_vr == g->n_vr && n_values == g->n_values && same_vrs(vr, g->vr, n_vr)) {
        memcpy(values, rtc__obs_cur(u, g), n_values * rtc_type_size(type));
        return RTC_OK;
    }
    return view_pick(u, g, rtc_type_size(type), vr, n_vr, values, n_values);
}

static const rtc_unit_ops view_ops = {.kind = "system-view", .get = view_get};

/* The column prefix of unit @p u's variables: "unit.", none for a single FMU (its columns
 * are named as `rtcosim run FMU` always named them). */
static void unit_prefix(const rtc_system *sys, size_t u, char *buf, size_t cap)
{
    if (sys->single)
        buf[0] = '\0';
    else
        snprintf(buf, cap, "%s.", sys->units[u].name);
}

int rtc_system_record(rtc_system *sys, rtc_record *rec, const char *const *names, size_t n)
{
    if (sys->initialized)
        return RTC_ESTATE; /* the observation buffers are sized by rtc_system_init() */
    for (size_t u = 0; u < sys->n_units; u++) {
        sys_unit *su = &sys->units[u];
        su->view = (rtc_unit){.ops = &view_ops, .self = su, .md = su->unit->md, .name = su->name};
    }
    if (n == 0 && sys->n_record) {
        names = (const char *const *)sys->record; /* the system file's selection */
        n = sys->n_record;
    }
    for (size_t u = 0; u < sys->n_units && n == 0; u++) {
        const rtc_model_desc *md = sys->units[u].unit->md;
        for (size_t v = 0; v < md->n_vars; v++) {
            if (md->vars[v].causality != RTC_CAUSALITY_OUTPUT || md->vars[v].type == RTC_TYPE_CLOCK)
                continue;
            char prefix[512];
            unit_prefix(sys, u, prefix, sizeof prefix);
            int rc = rtc__sys_observe(sys, u, v);
            if (rc == RTC_OK)
                rc = rtc_record_add(rec, &sys->units[u].view, v, prefix);
            if (rc != RTC_OK)
                return rc;
        }
    }
    for (size_t i = 0; i < sys->n_ports && n == 0; i++) { /* and the system's outputs */
        const struct sys_port *p = &sys->ports[i];
        int rc = p->input ? RTC_OK : rtc__sys_observe(sys, p->unit, p->var);
        if (rc == RTC_OK && !p->input)
            rc = rtc_record_add_as(rec, &sys->units[p->unit].view, p->var, "", p->name);
        if (rc != RTC_OK)
            return rc;
    }
    for (size_t i = 0; i < n; i++) {
        size_t u = 0, v = 0;
        if (rtc_system_find_var(sys, names[i], &u, &v) != RTC_OK) {
            /* a single FMU's names come from --record only (an SSP file has record=) */
            rtc_log(sys->lg, RTC_LOG_ERROR, sys->single ? "--record %s: no variable of that "
                    "name in %s" : "record %s: no such unit.variable in %s", names[i], sys->path);
            return RTC_ENOTFOUND;
        }
        char prefix[512];
        size_t ul = (size_t)snprintf(prefix, sizeof prefix, "%s.", sys->units[u].name);
        int rc = rtc__sys_observe(sys, u, v);
        /* a system connector keeps its own name as the column's */
        bool port = !sys->single && strncmp(names[i], prefix, ul) != 0;
        unit_prefix(sys, u, prefix, sizeof prefix);
        if (rc == RTC_OK)
            rc = port ? rtc_record_add_as(rec, &sys->units[u].view, v, "", names[i])
                      : rtc_record_add(rec, &sys->units[u].view, v, prefix);
        if (rc != RTC_OK)
            return rc;
    }
    return RTC_OK;
}

/* ---- initialization ---- */

int rtc__sys_value_parse(const rtc_model_desc *md, const rtc_var *var, const char *text,
                         sys_value *out, char *why, size_t cap)
{
    size_t bin_cap = strlen(text) / 2 + 1;
    out->text = strdup(text);
    out->vals = calloc(rtc_var_count(var) + 1, rtc_type_size(var->type));
    out->bin = var->type == RTC_TYPE_BINARY ? malloc(bin_cap) : NULL;
    if (!out->text || !out->vals || (!out->bin && var->type == RTC_TYPE_BINARY))
        return RTC_ENOMEM;
    return rtc_var_parse_text(md, var, out->text, out->vals, out->bin, bin_cap, why, cap);
}

void rtc__sys_value_free(sys_value *v)
{
    free(v->bin);
    free(v->vals);
    free(v->text);
    *v = (sys_value){0};
}

/* One parameter value (every element of an array, an enumeration by item name, a binary
 * in hex: rtc_var_parse_text) through the unit's set. */
static int set_param(rtc_system *sys, sys_unit *u, const rtc_var *v, const struct sys_param *p)
{
    sys_value val;
    char why[300];
    int rc = rtc__sys_value_parse(u->unit->md, v, p->text, &val, why, sizeof why);
    if (rc != RTC_OK && rc != RTC_ENOMEM)
        rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: parameter %s.%s: %s", p->file, p->line,
                u->name, v->name, why);
    if (rc == RTC_OK)
        rc = u->unit->ops->set(u->unit->self, v->type, &v->vr, 1, val.vals, rtc_var_count(v));
    rtc__sys_value_free(&val);
    return rc;
}

/* Parameter values of one unit (called on the unit's owner thread): before
 * initialization and again in Initialization Mode (see rtc_var_settable_at_init()). */
static int job_params(rtc_system *sys, sys_unit *u, void *arg)
{
    (void)arg;
    for (size_t i = 0; i < sys->n_params; i++) {
        const struct sys_param *p = &sys->params[i];
        if (&sys->units[p->unit] != u)
            continue;
        const rtc_var *v = &u->unit->md->vars[p->var];
        if (!rtc_var_settable_at_init(v)) {
            bool sp = v->causality == RTC_CAUSALITY_STRUCTURAL_PARAMETER;
            rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: parameter %s.%s: %s", p->file, p->line,
                    u->name, v->name,
                    sp ? "a structural parameter changes only in Configuration Mode, which is "
                         "not supported"
                       : "the variable cannot be set at initialization");
            return RTC_EUNSUPPORTED;
        }
        int rc = set_param(sys, u, v, p);
        if (rc != RTC_OK)
            return rc;
    }
    return RTC_OK;
}

static int job_instantiate(rtc_system *sys, sys_unit *u, void *arg)
{
    (void)arg;
    bool has_stop = sys->stop_ns != INT64_MAX;
    const rtc_default_experiment *x = &u->unit->md->experiment;
    rtc_unit_setup s = {.instance_name = u->name,
                        .logging_on = sys->fmu_logging,
                        .start_time_s = (double)sys->start_ns / 1e9,
                        .stop_time_defined = has_stop,
                        .stop_time_s = has_stop ? (double)(sys->start_ns + sys->stop_ns) / 1e9 : 0,
                        /* a single FMU runs as `rtcosim run FMU` always ran it */
                        .tolerance_defined = sys->single && x->has_tolerance,
                        .tolerance = x->tolerance,
                        .may_rollback = u->in_loop};
    int rc = u->unit->ops->instantiate(u->unit->self, &s);
    return rc == RTC_OK ? job_params(sys, u, NULL) : rc;
}

static int job_enter_init(rtc_system *sys, sys_unit *u, void *arg)
{
    int rc = u->unit->ops->enter_init(u->unit->self);
    return rc == RTC_OK ? job_params(sys, u, arg) : rc;
}

/* A unit that ends the simulation at its initial event (FMI 3 terminateSimulation) is not
 * a failure: the others leave initialization too, the start's outputs are fetched (the
 * run records them), and the first step ends the run as a termination mid-run would. */
static int job_exit_init(rtc_system *sys, sys_unit *u, void *arg)
{
    (void)sys, (void)arg;
    int rc = u->unit->ops->exit_init(u->unit->self);
    u->ended_at_init = rc == RTC_ETERMINATED; /* read after the jobs joined */
    return u->ended_at_init ? RTC_OK : rc;
}

static int job_fetch_cur(rtc_system *sys, sys_unit *u, void *arg)
{
    (void)arg;
    return rtc__sys_fetch(sys, u, false);
}

static int job_set_inputs(rtc_system *sys, sys_unit *u, void *arg)
{
    (void)arg;
    return rtc__sys_set_inputs(sys, u);
}

/* Before coupling pass @p pass: the lock-step I/O units exchange the values of the pass
 * before with their peers, replay units take what was recorded of it
 * (rtc_io_unit_init_pass). */
static int exchange_lockstep(rtc_system *sys, size_t pass)
{
    int rc = RTC_OK;
    for (size_t i = 0; pass > 0 && rc == RTC_OK && i < sys->n_units; i++)
        if (sys->units[i].io && rtc_io_unit_init_exchange(sys->units[i].unit))
            rc = rtc_io_unit_init_pass(sys->units[i].unit, (uint32_t)(pass - 1));
    return rc;
}

/* In initialization mode, propagate outputs to inputs until the coupling is consistent
 * (one pass per unit suffices for acyclic feedthrough; loops get the same bounded number;
 * a node of a distributed run makes the number every node makes, init_passes). */
static int settle_coupling(rtc_system *sys)
{
    int rc = RTC_OK;
    size_t passes = sys->n_units + 1 > sys->init_passes ? sys->n_units + 1 : sys->init_passes;
    for (size_t pass = 0; rc == RTC_OK && pass < passes; pass++) {
        rc = exchange_lockstep(sys, pass);
        if (rc == RTC_OK)
            rc = rtc__master_each(sys, job_fetch_cur, NULL);
        for (size_t i = 0; rc == RTC_OK && i < sys->n_links; i++)
            rtc__sys_link_apply(sys, &sys->links[i], 0, NULL);
        if (rc == RTC_OK)
            rc = rtc__master_each(sys, job_set_inputs, NULL);
    }
    return rc;
}

int rtc_system_init(rtc_system *sys)
{
    int rc = rtc__sys_build_buffers(sys);
    if (rc == RTC_OK)
        rc = rtc__sys_nonfinite_init(sys);
    if (rc == RTC_OK)
        rc = rtc__master_arm(sys); /* its threads make the units' calls from here on */
    if (rc == RTC_OK)
        rc = rtc__master_each(sys, job_instantiate, NULL);
    if (rc == RTC_OK)
        rc = rtc__master_each(sys, job_enter_init, NULL);
    if (rc == RTC_OK)
        rc = settle_coupling(sys);
    if (rc == RTC_OK)
        rc = rtc__master_each(sys, job_exit_init, NULL);
    if (rc == RTC_OK)
        rc = rtc__master_each(sys, job_fetch_cur, NULL);
    for (size_t i = 0; i < sys->n_units; i++)
        sys->ended_at_init |= sys->units[i].ended_at_init;
    sys->initialized = rc == RTC_OK;
    sys->failed = rc == RTC_EFMU || rc == RTC_EFATAL;
    sys->k = 0;
    if (rc == RTC_OK)
        rtc__sys_nonfinite_scan(sys); /* the start values too: a NaN at t0 is one */
    return rc;
}

/* Whether the system may take a tick: RTC_ESTATE before init or after terminate,
 * RTC_ETERMINATED once a unit ended the simulation at its initial event (logged by it at
 * rtc_system_init()) or inside the last step (its last row was that step's). */
static int may_step(const rtc_system *sys)
{
    if (!sys->initialized || sys->terminated)
        return RTC_ESTATE;
    return sys->ended_at_init || sys->unit_ended ? RTC_ETERMINATED : RTC_OK;
}

int rtc_system_step(rtc_system *sys)
{
    int rc = may_step(sys);
    if (rc == RTC_OK && (rc = rtc__master_tick(sys)) != RTC_OK)
        rtc__sys_nonfinite_scan(sys); /* what a failed tick left visible (a tick that
                                         completes checks its outputs at its end) */
    return rc;
}

int rtc_system_step_n(rtc_system *sys, int64_t n)
{
    if (n <= 0)
        return RTC_OK;
    int rc = may_step(sys);
    if (rc == RTC_OK && (rc = rtc__master_ticks(sys, n)) != RTC_OK)
        rtc__sys_nonfinite_scan(sys);
    return rc;
}

/* ---- accessors and teardown ---- */

unsigned rtc_system_warnings(const rtc_system *sys) { return sys->warnings; }
int64_t rtc_system_time_ns(const rtc_system *sys) { return rtc__sys_now(sys); }
int64_t rtc_system_tick_index(const rtc_system *sys) { return sys->k; }
rtc_sdtime rtc_system_superdense_time(const rtc_system *sys)
{
    return (rtc_sdtime){rtc__sys_now(sys), sys->microstep};
}

bool rtc_system_finished(const rtc_system *sys) { return rtc__sys_finished(sys); }
int64_t rtc_system_tick_ns(const rtc_system *sys) { return sys->tick_ns; }
int64_t rtc_system_start_ns(const rtc_system *sys) { return sys->start_ns; }
int64_t rtc_system_stop_ns(const rtc_system *sys) { return sys->stop_ns; }
rtc_master rtc_system_algorithm(const rtc_system *sys) { return sys->algorithm; }
size_t rtc_system_unit_count(const rtc_system *sys) { return sys->n_units; }
const rtc_unit *rtc_system_unit(const rtc_system *sys, size_t i) { return sys->units[i].unit; }
int64_t rtc_system_unit_step_ns(const rtc_system *sys, size_t i) { return sys->units[i].step_ns; }

void rtc_system_set_unit_timer(rtc_system *sys, rtc_unit_timer fn, void *user)
{
    sys->unit_timer = fn;
    sys->unit_timer_user = user;
}

/* Owners round-robin over distinct FMUs (owner 0: the coordinating thread). Instances of
 * one FMU file share an owner: the standard does not promise that one binary's instances
 * may run concurrently, and shared libraries with global state exist. */
size_t rtc_system_worker_owner(const rtc_system *sys, unsigned workers, size_t i)
{
    size_t next = 0, owner = 0;
    for (size_t u = 0; u <= i && u < sys->n_units; u++) {
        size_t j = 0;
        while (j < u && sys->units[j].unit->md != sys->units[u].unit->md)
            j++;
        if (j == u)
            owner = next++ % ((size_t)workers + 1);
        else if (u == i)
            return rtc_system_worker_owner(sys, workers, j);
    }
    return owner;
}

void rtc_system_set_unit_clock(rtc_system *sys, bool on)
{
    sys->unit_clock = on;
    for (size_t i = 0; i < sys->n_units; i++)
        sys->units[i].work_ns = -1;
}

int64_t rtc_system_unit_work_ns(const rtc_system *sys, size_t i)
{
    /* a substitute unit steps on its own clock, not inside the tick: never read here */
    if (!sys->unit_clock || i >= sys->n_units || sys->units[i].as)
        return -1;
    return sys->units[i].work_ns;
}

int rtc_system_set_threads(rtc_system *sys, int priority, int rt_cpu)
{
    if (sys->initialized)
        return RTC_ESTATE;
    sys->threads.priority = priority;
    sys->threads.cpu = rt_cpu;
    sys->threads.avoid_cpu = true;
    return RTC_OK;
}

const rtc_system_rt_hints *rtc_system_rt(const rtc_system *sys)
{
    return &sys->rt;
}

bool rtc_system_has_io(const rtc_system *sys)
{
    return sys->has_io;
}

void rtc_system_set_time_base(rtc_system *sys, int64_t t0_mono_ns, double rtf)
{
    for (size_t i = 0; i < sys->n_units; i++) {
        const rtc_unit *u = sys->units[i].unit;
        if (u && u->ops->set_time_base)
            u->ops->set_time_base(u->self, t0_mono_ns, rtf);
    }
}

int rtc_system_write_safe(rtc_system *sys)
{
    int first = RTC_OK;
    for (size_t i = 0; i < sys->n_units; i++) {
        const rtc_unit *u = sys->units[i].unit;
        int rc = u && u->ops->write_safe ? u->ops->write_safe(u->self) : RTC_OK;
        if (first == RTC_OK)
            first = rc;
    }
    return first;
}

size_t rtc_system_link_count(const rtc_system *sys)
{
    return sys->n_links;
}

void rtc_system_link_ends(const rtc_system *sys, size_t i, size_t *src_unit, size_t *dst_unit)
{
    *src_unit = sys->links[i].src;
    *dst_unit = sys->links[i].dst;
}

void rtc_system_link_stats(const rtc_system *sys, size_t i, rtc_link_stats *out)
{
    const sys_link *l = &sys->links[i];
    rtc_est_monitor m = {0};
    if (l->est)
        rtc_est_get_monitor(l->est, &m);
    *out = (rtc_link_stats){
        .desc = l->desc,
        .estimator = l->est ? rtc_est_method_name(rtc_est_get_config(l->est)->method) : "zoh",
        .config = l->est ? rtc_est_get_config(l->est) : NULL,
        .est = l->est,
        .delay_ns = l->delay_ns,
        .samples = m.samples,
        .error_rms = m.error_rms,
        .error_max = m.error_max,
        .src_var = l->src_var,
        .dst_var = l->dst_var,
        .scalar = l->count == 1 && rtc__sys_is_numeric(l->src_type),
    };
}

void rtc_system_unit_event_stats(const rtc_system *sys, size_t i, rtc_unit_event_stats *out)
{
    const sys_unit *u = &sys->units[i];
    *out = (rtc_unit_event_stats){u->events, u->early_returns, u->microsteps_max};
}

/* Terminate (when initialized and healthy) and free one unit, on its owner thread. */
static int job_release(rtc_system *sys, sys_unit *u, void *arg)
{
    (void)arg;
    if (!u->unit)
        return RTC_OK;
    if (sys->initialized && !sys->terminated && !sys->failed)
        u->unit->ops->terminate(u->unit->self);
    if (u->state)
        u->unit->ops->free_state(u->unit->self, &u->state);
    u->unit->ops->free(u->unit->self);
    u->unit = NULL;
    return RTC_OK;
}

static void free_unit(sys_unit *u)
{
    for (int t = 0; t < RTC_TYPE_COUNT; t++) {
        obs_group *g = &u->obs[t];
        free(g->vr);
        free(g->offset);
        free(g->count);
        free(g->str[0]);
        free(g->str[1]);
        free(u->in[t].vr);
    }
    free(u->name);
    free(u->source);
}

void rtc_system_free(rtc_system *sys)
{
    if (!sys)
        return;
    rtc__master_each(sys, job_release, NULL);
    rtc__master_free(sys);
    for (size_t i = 0; i < sys->n_units; i++)
        free_unit(&sys->units[i]);
    for (size_t i = 0; i < sys->n_links; i++) {
        rtc_est_free(sys->links[i].est);
        free(sys->links[i].hist);
        free(sys->links[i].map);
        free(sys->links[i].desc);
        free(sys->links[i].file);
    }
    for (size_t i = 0; i < sys->n_params; i++) {
        free(sys->params[i].text);
        free(sys->params[i].file);
    }
    for (size_t i = 0; i < sys->n_factories; i++)
        if (sys->factories[i].release)
            sys->factories[i].release(sys->factories[i].ctx);
    for (size_t i = 0; i < sys->n_record; i++)
        free(sys->record[i]);
    free(sys->record);
    for (size_t i = 0; i < sys->n_expose; i++)
        free(sys->expose[i]);
    free(sys->expose);
    free(sys->factories);
    free(sys->params);
    for (size_t i = 0; i < sys->n_ports; i++)
        free(sys->ports[i].name);
    free(sys->ports);
    free(sys->units);
    free(sys->links);
    free(sys->tick_links);
    free(sys->calls);
    free(sys->values);
    free(sys->observe);
    free(sys->order);
    free(sys->path);
    rtc_nonfinite_free(sys->nonfinite);
    free(sys);
}
