/*
 * Placement of a distributed run (rtcosim/placement.h): which node runs which component,
 * the connections that cross nodes, the checks that keep a fast (lock-step) run exact, and
 * the run id every node exchanges at discovery.
 *
 * The whole system is loaded once (as rtc_load_system() would load it: every FMU and
 * driver opened, nothing instantiated) because what a crossing connection needs is only
 * known there: the destination's type and unit when the .ssd does not give them, every
 * unit's step, the base tick, the stepping order and the iterated loops. Every node loads
 * the same file the same way, so every node derives the same bridges, signal order and
 * run id without talking to the others.
 */
#include "placement_priv.h"

#include "rtcosim/assemble.h"
#include "rtcosim/sha256.h"
#include "rtcosim/status.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One error line, counted. */
__attribute__((format(printf, 2, 3))) static void bad(rtc_partition *p, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rtc_log(p->lg, RTC_LOG_ERROR, "%s", msg);
    p->errors++;
}

static long find_node(const rtc_partition *p, const char *name)
{
    for (size_t i = 0; i < p->n_nodes; i++)
        if (!strcmp(p->nodes[i], name))
            return (long)i;
    return -1;
}

/* "A, B, C" (the first nodes that fit a line). */
static const char *node_list(rtc_partition *p)
{
    size_t len = 0;
    p->list[0] = '\0';
    for (size_t i = 0; i < p->n_nodes && len < sizeof p->list; i++)
        len += (size_t)snprintf(p->list + len, sizeof p->list - len, "%s%s", i ? ", " : "",
                                p->nodes[i]);
    return p->list;
}

static int add_node(rtc_partition *p, const char *name, size_t *idx)
{
    long i = find_node(p, name);
    if (i >= 0) {
        *idx = (size_t)i;
        return RTC_OK;
    }
    char **n = realloc(p->nodes, (p->n_nodes + 1) * sizeof *n);
    if (!n)
        return RTC_ENOMEM;
    p->nodes = n;
    if (!(n[p->n_nodes] = strdup(name)))
        return RTC_ENOMEM;
    *idx = p->n_nodes++;
    return RTC_OK;
}

/* The node each component is placed on: the annotation, then --place (which wins). */
static int resolve(rtc_partition *p)
{
    const rtc_ssp *ssp = p->ssp;
    const char **named = calloc(ssp->n_components + 1, sizeof *named);
    p->node_of = calloc(ssp->n_components + 1, sizeof *p->node_of);
    if (!named || !p->node_of) {
        free(named);
        return RTC_ENOMEM;
    }
    for (size_t i = 0; i < ssp->n_components; i++)
        named[i] = ssp->components[i].node;
    for (size_t k = 0; k < p->po.n_places; k++) {
        const char *a = p->po.places[k], *eq = strrchr(a, '=');
        const rtc_ssp_component *c = NULL;
        for (size_t i = 0; eq && i < ssp->n_components; i++)
            if (strlen(ssp->components[i].name) == (size_t)(eq - a) &&
                !strncmp(ssp->components[i].name, a, (size_t)(eq - a)))
                c = &ssp->components[i];
        const char *why = eq ? rtc_ssp_node_name_check(eq + 1) : NULL;
        if (!eq || eq == a)
            bad(p, "--place %s: expected COMPONENT=NODE", a);
        else if (!c)
            bad(p, "--place %s: %s has no component %.*s", a, ssp->display_path,
                (int)(eq - a), a);
        else if (why)
            bad(p, "--place %s: %s", a, why);
        else
            named[c - ssp->components] = eq + 1;
    }
    bool any = false;
    for (size_t i = 0; i < ssp->n_components && !p->errors; i++)
        any |= named[i] != NULL; /* (after a bad --place, what is unplaced says nothing) */
    int rc = RTC_OK;
    for (size_t i = 0; any && rc == RTC_OK && i < ssp->n_components; i++) {
        const rtc_ssp_component *c = &ssp->components[i];
        if (named[i])
            rc = add_node(p, named[i], &p->node_of[i]);
        else
            bad(p, "%s:%u: Component %s is not placed on a node: once any component is, "
                "every one is (rtc:Component node=\"...\" or --place %s=NODE)",
                ssp->display_path, c->line, c->name, c->name);
    }
    free(named);
    return rc;
}

/* The destination's type and unit (the .ssd's connector, else the FMU's variable): the
 * bridge signal's. Refuses what cannot cross: non-numbers and arrays. */
static int describe_signal(rtc_partition *p, const rtc_system *whole, cross_sig *s)
{
    const rtc_ssp_connection *c = &p->ssp->connections[s->conn];
    const rtc_ssp_component *dc = &p->ssp->components[c->end.component];
    const rtc_ssp_connector *k = &dc->connectors[c->end.connector];
    const rtc_model_desc *md = rtc_system_unit(whole, (size_t)c->end.component)->md;
    long v = rtc_model_find_var(md, c->end.name);
    if (v < 0)
        return RTC_OK; /* the whole system's load reported it */
    const rtc_var *var = &md->vars[v];
    s->type = var->type;
    const char *unit = k->unit ? k->unit : var->unit;
    bool number = s->type <= RTC_TYPE_UINT64 || s->type == RTC_TYPE_BOOL ||
                  s->type == RTC_TYPE_ENUM;
    if (!number || rtc_var_count(var) != 1 || k->n_dims)
        bad(p, "%s:%u: Connection %s.%s -> %s: crosses from node %s to node %s, but only "
            "scalar numbers (Real, Integer, Boolean, Enumeration) cross nodes",
            c->file, c->line, c->start.element, c->start.name, s->name, p->nodes[s->from],
            p->nodes[s->to]);
    if ((unit && !(s->unit = strdup(unit))) ||
        (k->enumeration && !(s->enumeration = strdup(k->enumeration))))
        return RTC_ENOMEM;
    return RTC_OK;
}

/* Every connection between components on two nodes, in the file's order. */
static int find_crossings(rtc_partition *p, const rtc_system *whole)
{
    const rtc_ssp *ssp = p->ssp;
    p->sig = calloc(ssp->n_connections + 1, sizeof *p->sig);
    p->cross = calloc(ssp->n_connections + 1, sizeof *p->cross);
    if (!p->sig || !p->cross)
        return RTC_ENOMEM;
    unsigned *per_pair = calloc(p->n_nodes * p->n_nodes + 1, sizeof *per_pair);
    if (!per_pair)
        return RTC_ENOMEM;
    int rc = RTC_OK;
    for (size_t j = 0; rc == RTC_OK && j < ssp->n_connections; j++) {
        const rtc_ssp_connection *c = &ssp->connections[j];
        if (c->start.component < 0 || c->end.component < 0)
            continue;
        size_t a = p->node_of[c->start.component], b = p->node_of[c->end.component];
        if (a == b)
            continue;
        cross_sig *s = &p->sig[p->n_cross];
        *s = (cross_sig){.conn = j, .from = a, .to = b};
        size_t len = strlen(c->end.element) + strlen(c->end.name) + 2;
        if (!(s->name = malloc(len))) {
            rc = RTC_ENOMEM;
            break;
        }
        snprintf(s->name, len, "%s.%s", c->end.element, c->end.name);
        char *src = malloc(strlen(c->start.element) + strlen(c->start.name) + 2);
        if (!src) {
            rc = RTC_ENOMEM;
            break;
        }
        sprintf(src, "%s.%s", c->start.element, c->start.name);
        p->cross[p->n_cross] = (rtc_crossing){
            .from_node = p->nodes[a], .to_node = p->nodes[b], .src = src, .dst = s->name,
            .estimator = c->settings.estimator, .params = c->settings.params,
            .delay_ns = c->settings.has_delay ? c->settings.delay_ns : 0,
            .index = per_pair[a * p->n_nodes + b]++};
        p->n_cross++;
        rc = describe_signal(p, whole, s);
    }
    free(per_pair);
    return rc;
}

/* Fast runs must equal the one-process run: what each crossing is read as (ahead), and
 * refusals where a node boundary cannot keep that (placement.h, the file comment). */
static void check_lockstep(rtc_partition *p, const rtc_system *whole)
{
    rtc_master m = rtc_system_algorithm(whole);
    bool gs = !strcmp(rtc_master_name(m), "gauss-seidel");
    if (!gs && strcmp(rtc_master_name(m), "jacobi")) {
        bad(p, "%s: the %s master cannot run across nodes: use jacobi or gauss-seidel",
            p->ssp->display_path, rtc_master_name(m));
        return;
    }
    for (size_t i = 0; i < p->n_cross; i++) {
        const rtc_ssp_connection *c = &p->ssp->connections[p->sig[i].conn];
        size_t su = (size_t)c->start.component, du = (size_t)c->end.component;
        rtc_crossing *x = &p->cross[i];
        x->ahead = gs && rtc_system_order_position(whole, su) <
                             rtc_system_order_position(whole, du);
        bool stateful = x->delay_ns > 0 || x->estimator;
        const char *why = NULL;
        if (rtc_system_unit_iterated(whole, su) && rtc_system_unit_iterated(whole, du))
            why = "an iterated loop (--iterate) cannot span nodes";
        else if (gs && rtc_system_unit_step_ns(whole, su) != p->tick_ns)
            why = "gauss-seidel across nodes needs the source to step every base tick";
        else if (stateful && rtc_system_unit_step_ns(whole, du) != p->tick_ns)
            why = "a delay or estimator across nodes needs the consumer to step every base "
                  "tick";
        else if (stateful && gs && !x->ahead)
            why = "a delay or estimator across nodes needs the source to step first";
        if (why)
            bad(p, "%s:%u: Connection %s -> %s (node %s to %s): %s", c->file, c->line, x->src,
                x->dst, x->from_node, x->to_node, why);
    }
    /* Gauss-Seidel: the nodes step one after the other, each node's components together */
    size_t n = rtc_system_unit_count(whole), last = SIZE_MAX, blocks = 0;
    for (size_t pos = 0; gs && pos < n; pos++) {
        for (size_t u = 0; u < n; u++) {
            if (rtc_system_order_position(whole, u) != pos)
                continue;
            blocks += p->node_of[u] != last;
            last = p->node_of[u];
        }
    }
    if (gs && blocks > p->n_nodes)
        bad(p, "%s: gauss-seidel across nodes steps the nodes one after the other, but the "
            "stepping order interleaves them: place each node's components together in the "
            "order (or mark another connection breakLoop), or use jacobi",
            p->ssp->display_path);
}

/* The run id: the system file, the placement and what every node must share. */
static void make_run_id(rtc_partition *p, const rtc_system *whole)
{
    rtc_sha256 h;
    char hex[65] = "", line[512];
    rtc_sha256_init(&h);
    if (rtc_sha256_file(p->ssp->ssd_path, hex) == RTC_OK)
        rtc_sha256_update(&h, hex, strlen(hex));
    for (size_t i = 0; i < p->ssp->n_components; i++) {
        int n = snprintf(line, sizeof line, "\n%s=%s", p->ssp->components[i].name,
                         p->nodes[p->node_of[i]]);
        rtc_sha256_update(&h, line, (size_t)n);
    }
    int n = snprintf(line, sizeof line, "\n%s %s tick=%" PRId64 " start=%" PRId64 " stop=%"
                     PRId64 " protocol=%d", p->po.lockstep ? "lockstep" : "realtime",
                     rtc_master_name(rtc_system_algorithm(whole)), p->tick_ns,
                     rtc_system_start_ns(whole), rtc_system_stop_ns(whole), RTC_NODE_PROTOCOL);
    rtc_sha256_update(&h, line, (size_t)n);
    uint8_t d[32];
    rtc_sha256_final(&h, d);
    p->run_id = 0;
    for (int i = 0; i < 8; i++)
        p->run_id = p->run_id << 8 | d[i];
}

static int add_column(rtc_partition *p, const rtc_system *whole, const char *name)
{
    size_t u = 0, v = 0;
    if (rtc_system_find_var(whole, name, &u, &v) != RTC_OK) {
        bad(p, "record %s: no such unit.variable in %s", name, p->ssp->display_path);
        return RTC_OK;
    }
    char **c = realloc(p->columns, (p->n_columns + 1) * sizeof *c);
    size_t *cn = realloc(p->column_node, (p->n_columns + 1) * sizeof *cn);
    if (c)
        p->columns = c;
    if (cn)
        p->column_node = cn;
    if (!c || !cn || !(c[p->n_columns] = strdup(name)))
        return RTC_ENOMEM;
    cn[p->n_columns++] = p->node_of[u];
    return RTC_OK;
}

/* The one-process run's recording selection: --record, the file's, else every output and
 * every output connector of the system (as rtc_system_record() chooses). */
static int find_columns(rtc_partition *p, const rtc_system *whole,
                        const char *const *records, size_t n_records)
{
    const rtc_ssp *ssp = p->ssp;
    int rc = RTC_OK;
    if (!n_records) {
        records = (const char *const *)ssp->realtime.record;
        n_records = ssp->realtime.n_record;
    }
    for (size_t i = 0; rc == RTC_OK && i < n_records; i++)
        rc = add_column(p, whole, records[i]);
    for (size_t u = 0; rc == RTC_OK && !n_records && u < rtc_system_unit_count(whole); u++) {
        const rtc_model_desc *md = rtc_system_unit(whole, u)->md;
        for (size_t v = 0; rc == RTC_OK && v < md->n_vars; v++) {
            char name[1024];
            if (md->vars[v].causality != RTC_CAUSALITY_OUTPUT ||
                md->vars[v].type == RTC_TYPE_CLOCK)
                continue;
            snprintf(name, sizeof name, "%s.%s", ssp->components[u].name, md->vars[v].name);
            rc = add_column(p, whole, name);
        }
    }
    for (size_t j = 0; rc == RTC_OK && !n_records && j < ssp->n_connections; j++) {
        const rtc_ssp_connection *c = &ssp->connections[j];
        if (c->end.component < 0 && c->start.component >= 0)
            rc = add_column(p, whole, c->end.name);
    }
    return rc;
}

/* Everything known only from the loaded whole system. */
static int inspect_whole(rtc_partition *p, const char *path, const rtc_system_options *opt)
{
    rtc_system_options o = opt ? *opt : (rtc_system_options){0};
    o.ssp_hook = NULL;
    rtc_system *whole = NULL;
    /* errors only: the node's own load says the warnings once */
    rtc_logger quiet = p->lg ? *p->lg : (rtc_logger){0};
    if (quiet.max_level > RTC_LOG_ERROR)
        quiet.max_level = RTC_LOG_ERROR;
    int rc = rtc_load_system(path, &o, p->lg ? &quiet : NULL, &whole);
    if (rc != RTC_OK)
        return rc;
    p->tick_ns = rtc_system_tick_ns(whole);
    p->n_units = rtc_system_unit_count(whole);
    rc = find_crossings(p, whole);
    if (rc == RTC_OK && p->po.lockstep)
        check_lockstep(p, whole);
    if (rc == RTC_OK)
        rc = find_columns(p, whole, p->po.records, p->po.n_records);
    make_run_id(p, whole);
    rtc_system_free(whole);
    return rc;
}

/* A single FMU is a system of one unit that places nothing. */
static int empty_ssp(const char *path, rtc_ssp **out)
{
    rtc_ssp *s = calloc(1, sizeof *s);
    if (s && !(s->display_path = strdup(path))) {
        free(s);
        s = NULL;
    }
    *out = s;
    return s ? RTC_OK : RTC_ENOMEM;
}

int rtc_partition_new(const char *path, const rtc_system_options *opt,
                      const rtc_placement_opts *po, const rtc_logger *lg, rtc_partition **out)
{
    if (!path || !po || !out)
        return RTC_EINVAL;
    rtc_partition *p = calloc(1, sizeof *p);
    if (!p)
        return RTC_ENOMEM;
    p->lg = lg;
    p->po = *po;
    p->self = -1;
    p->session = strdup(po->session && po->session[0] ? po->session : "rtcosim");
    p->po.session = p->session;
    p->po.address = po->address && po->address[0] ? po->address : NULL;
    p->po.peers = p->po.address ? po->peers : NULL;
    size_t len = strlen(path);
    bool fmu = len > 4 && !strcasecmp(path + len - 4, ".fmu"); /* a system of one unit */
    int rc = !p->session ? RTC_ENOMEM
             : fmu       ? empty_ssp(path, &p->ssp)
                         : rtc_ssp_load_from(path, opt ? opt->source_dir : NULL, lg, &p->ssp);
    if (rc == RTC_OK)
        rc = resolve(p);
    const char *why = po->node ? rtc_ssp_node_name_check(po->node) : NULL;
    if (rc == RTC_OK && why)
        bad(p, "--node %s: %s", po->node, why);
    else if (rc == RTC_OK && po->node && !p->n_nodes && !p->errors)
        bad(p, "--node %s: %s places no component on a node (rtc:Component node=\"...\" or "
            "--place COMPONENT=NODE)", po->node, p->ssp->display_path);
    else if (rc == RTC_OK && po->node && (p->self = find_node(p, po->node)) < 0 && !p->errors)
        bad(p, "--node %s: no component of %s is placed on node %s (nodes: %s)", po->node,
            p->ssp->display_path, po->node, node_list(p));
    if (rc == RTC_OK && !p->errors && p->n_nodes)
        rc = inspect_whole(p, path, opt);
    if (rc == RTC_OK && p->errors)
        rc = RTC_EPARSE;
    if (rc != RTC_OK) {
        rtc_partition_free(p);
        return rc;
    }
    *out = p;
    return RTC_OK;
}

void rtc_partition_free(rtc_partition *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_cross; i++) {
        free((char *)p->cross[i].src);
        free(p->sig[i].name);
        free(p->sig[i].unit);
        free(p->sig[i].enumeration);
    }
    free(p->cross);
    free(p->sig);
    for (size_t i = 0; i < p->n_nodes; i++)
        free(p->nodes[i]);
    free(p->nodes);
    for (size_t i = 0; i < p->n_columns; i++)
        free(p->columns[i]);
    free(p->columns);
    free(p->column_node);
    free(p->node_of);
    free(p->session);
    rtc_ssp_free(p->ssp);
    free(p);
}

size_t rtc_partition_node_count(const rtc_partition *p) { return p->n_nodes; }
const char *rtc_partition_node(const rtc_partition *p, size_t i) { return p->nodes[i]; }
size_t rtc_partition_component_count(const rtc_partition *p) { return p->ssp->n_components; }
size_t rtc_partition_crossing_count(const rtc_partition *p) { return p->n_cross; }
uint64_t rtc_partition_run_id(const rtc_partition *p) { return p->run_id; }
size_t rtc_partition_column_count(const rtc_partition *p) { return p->n_columns; }
const char *rtc_partition_column(const rtc_partition *p, size_t i) { return p->columns[i]; }

const char *rtc_partition_component(const rtc_partition *p, size_t i)
{
    return p->ssp->components[i].name;
}

const char *rtc_partition_component_node(const rtc_partition *p, size_t i)
{
    return p->n_nodes ? p->nodes[p->node_of[i]] : NULL;
}

const rtc_crossing *rtc_partition_crossing(const rtc_partition *p, size_t i)
{
    return &p->cross[i];
}
