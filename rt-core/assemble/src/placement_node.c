/*
 * The part of a system one node runs (rtcosim/placement.h): the SSP description, as read,
 * is edited before the system is built from it — the node's components stay, the others go,
 * one node bridge per peer node it shares a connection with comes in (bridged()), and every
 * connection to a component of another node is rewired to a signal of the bridge of that
 * node.
 *
 * A crossing connection A.y -> B.u becomes, on A, A.y -> bridge@B.<B.u> (the original
 * connection: its conversion, transformation, delay and estimator, read when B.u would
 * read it) and, on B, bridge@A.<B.u> -> B.u (unchanged values: same type, same unit). The
 * signal is named after the destination, which is fed once; each direction's signals are
 * in the file's order of the connections, which both nodes see alike.
 */
#include "placement_priv.h"

#include "json_util.h"

#include "rtcosim/assemble.h"
#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rtc__placement_bridge_name(const char *peer, char *buf, size_t cap)
{
    snprintf(buf, cap, "bridge@%s", peer);
}

static int add_setting(rtc_ssp_component *c, unsigned group, const char *element,
                       const char *key, const char *value)
{
    rtc_ssp_setting *s = realloc(c->settings, (c->n_settings + 1) * sizeof *s);
    if (!s)
        return RTC_ENOMEM;
    c->settings = s;
    s = &s[c->n_settings];
    *s = (rtc_ssp_setting){.group = group, .element = strdup(element), .key = strdup(key),
                           .value = strdup(value)};
    c->n_settings++;
    return s->element && s->key && s->value ? RTC_OK : RTC_ENOMEM;
}

static int add_connector(rtc_ssp_component *c, const cross_sig *s, bool input)
{
    rtc_ssp_connector *k = realloc(c->connectors, (c->n_connectors + 1) * sizeof *k);
    if (!k)
        return RTC_ENOMEM;
    c->connectors = k;
    k = &k[c->n_connectors];
    *k = (rtc_ssp_connector){.name = strdup(s->name),
                             .kind = input ? RTC_SSP_KIND_INPUT : RTC_SSP_KIND_OUTPUT,
                             .has_type = true, .type = s->type,
                             .unit = s->unit ? strdup(s->unit) : NULL,
                             .enumeration = s->enumeration ? strdup(s->enumeration) : NULL};
    c->n_connectors++;
    return k->name && (k->unit || !s->unit) && (k->enumeration || !s->enumeration)
               ? RTC_OK : RTC_ENOMEM;
}

/* The --bridge keys of the bridge to node @p peer ("NODE:KEY=VALUE"). */
static int bridge_sets(const rtc_partition *p, size_t peer, rtc_ssp_component *c)
{
    int rc = RTC_OK;
    for (size_t i = 0; rc == RTC_OK && i < p->po.n_bridge_sets; i++) {
        const char *e = p->po.bridge_sets[i], *colon = strchr(e, ':');
        const char *eq = colon ? strchr(colon, '=') : NULL;
        size_t len = colon ? (size_t)(colon - e) : 0;
        if (!eq || strncmp(e, p->nodes[peer], len) || p->nodes[peer][len])
            continue;
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(eq - colon - 1), colon + 1);
        rc = add_setting(c, 0, "", key, eq + 1);
    }
    return rc;
}

/* Every --bridge names a peer node and a key: one line for the first that does not. */
static int check_bridge_sets(const rtc_partition *p)
{
    for (size_t i = 0; i < p->po.n_bridge_sets; i++) {
        const char *e = p->po.bridge_sets[i], *colon = strchr(e, ':');
        const char *eq = colon ? strchr(colon, '=') : NULL;
        size_t len = colon ? (size_t)(colon - e) : 0, k = 0;
        while (k < p->n_nodes && (strncmp(e, p->nodes[k], len) || p->nodes[k][len]))
            k++;
        const char *why = !eq || eq == colon + 1 || eq - colon > 64 ? "expected NODE:KEY=VALUE"
                          : k == p->n_nodes                         ? "no such node"
                          : k == (size_t)p->self ? "this node (a bridge goes to another)" : NULL;
        if (why) {
            char nodes[256];
            size_t n = 0;
            nodes[0] = '\0';
            for (size_t j = 0; j < p->n_nodes && n < sizeof nodes; j++)
                n += (size_t)snprintf(nodes + n, sizeof nodes - n, "%s%s", j ? ", " : "",
                                      p->nodes[j]);
            rtc_log(p->lg, RTC_LOG_ERROR, "--bridge %s: %s (nodes: %s)", e, why, nodes);
            return RTC_EINVAL;
        }
    }
    return RTC_OK;
}

/* The bridge to node @p peer: its keys, one input per value to the peer and one output
 * per value from it (ahead as the partition says). */
static int make_bridge(const rtc_partition *p, size_t peer, rtc_ssp_component *c)
{
    char name[128], run[24], domain[16], join[32], period[32];
    rtc__placement_bridge_name(p->nodes[peer], name, sizeof name);
    snprintf(run, sizeof run, "%016" PRIx64, p->run_id);
    snprintf(domain, sizeof domain, "%d", p->po.domain);
    snprintf(join, sizeof join, "%.17g", p->po.join_ms > 0 ? p->po.join_ms : 30000);
    *c = (rtc_ssp_component){.name = strdup(name), .type = strdup(RTC_DRIVER_TYPE_NODE_BRIDGE),
                             .has_step = true, .step_ns = p->tick_ns,
                             .step_source = RTC_SSP_STEP_RTCOSIM, .depth = 1};
    const char *self = p->nodes[p->self];
    const char *keys[][2] = {{"node", self}, {"peer", p->nodes[peer]}, {"run_id", run},
                             {"system", p->ssp->name ? p->ssp->name : ""},
                             {"session", p->session}, {"domain", domain},
                             {"lockstep", p->po.lockstep ? "true" : "false"},
                             {"join_ms", join}, {"address", p->po.address},
                             {"peers", p->po.peers}};
    int rc = c->name && c->type ? RTC_OK : RTC_ENOMEM;
    for (size_t i = 0; rc == RTC_OK && i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i][1])
            rc = add_setting(c, 0, "", keys[i][0], keys[i][1]);
    /* real time: one sample per tick, judged late against the tick */
    snprintf(period, sizeof period, "%.17g", (double)p->tick_ns / 1e6);
    if (rc == RTC_OK && !p->po.lockstep)
        rc = add_setting(c, 0, "", "period_ms", period);
    if (rc == RTC_OK)
        rc = bridge_sets(p, peer, c);
    unsigned group = 0;
    for (size_t i = 0; rc == RTC_OK && i < p->n_cross; i++) {
        const cross_sig *s = &p->sig[i];
        bool out = s->from == (size_t)p->self && s->to == peer;
        bool in = s->to == (size_t)p->self && s->from == peer;
        if (out || in)
            rc = add_connector(c, s, out);
        if (rc != RTC_OK || !in || !p->po.lockstep)
            continue;
        /* lock-step: the value arrives estimated and converted on the sender's side; a
         * zero-order hold hands it over unchanged (the default estimator would not) */
        rc = add_setting(c, ++group, "Signal", "name", s->name);
        if (rc == RTC_OK)
            rc = add_setting(c, group, "Signal", "estimator", "zoh");
        if (rc == RTC_OK && p->cross[i].ahead)
            rc = add_setting(c, group, "Signal", "ahead", "1");
    }
    return rc;
}

/* Does node @p a cross a connection with node @p b (@p b = n_nodes: with any node)? */
static bool crosses(const rtc_partition *p, size_t a, size_t b)
{
    for (size_t i = 0; i < p->n_cross; i++) {
        const cross_sig *s = &p->sig[i];
        if ((s->from == a && (b == p->n_nodes || s->to == b)) ||
            (s->to == a && (b == p->n_nodes || s->from == b)))
            return true;
    }
    return false;
}

/* Whether nodes @p a and @p b have a bridge: when a connection crosses between them. A
 * pair that shares none exchanges nothing a tick needs: in lock-step its rounds would
 * only cost each tick samples, wake-ups and a wait. A node that crosses nothing with any
 * node keeps a bridge to every other one, so that it still meets them (run id checked,
 * --join-timeout) and, in lock-step, keeps their pace. Both ends decide alike (same
 * system file and placement). */
static bool bridged(const rtc_partition *p, size_t a, size_t b)
{
    return crosses(p, a, b) || !crosses(p, a, p->n_nodes) || !crosses(p, b, p->n_nodes);
}

/* The connector of bridge component @p b named @p sig. */
static long connector_of(const rtc_ssp_component *b, const char *sig)
{
    for (size_t k = 0; k < b->n_connectors; k++)
        if (!strcmp(b->connectors[k].name, sig))
            return (long)k;
    return -1;
}

/* Point endpoint @p e at signal @p sig of the bridge at component index @p bi. */
static int to_bridge(rtc_ssp_endpoint *e, const rtc_ssp *ssp, size_t bi, const char *sig)
{
    free(e->element);
    free(e->name);
    e->component = (long)bi;
    e->connector = connector_of(&ssp->components[bi], sig);
    e->element = strdup(ssp->components[bi].name);
    e->name = strdup(sig);
    return e->element && e->name ? RTC_OK : RTC_ENOMEM;
}

/* A connection from the peer's bridge: the value arrives converted; nothing of the
 * original (transformation, delay) applies twice. Its estimator comes along when @p est
 * (real time: the value is late here, on this side). */
static void plain(rtc_ssp_connection *c, bool est)
{
    rtc_ssp_connection keep = {.start = c->start, .end = c->end, .file = c->file,
                               .line = c->line, .suppress_unit_conversion = true};
    if (est) {
        keep.settings = (rtc_ssp_link_settings){.present = c->settings.estimator != NULL,
                                                .estimator = c->settings.estimator,
                                                .params = c->settings.params,
                                                .line = c->settings.line};
        c->settings.estimator = c->settings.params = NULL;
    }
    c->start = c->end = (rtc_ssp_endpoint){0};
    c->file = NULL;
    rtc_ssp_connection_clear(c);
    *c = keep;
}

/* Real time: the source's side of a crossing connection estimates nothing (the peer
 * does, where the value arrives late). */
static void no_estimator(rtc_ssp_connection *c)
{
    free(c->settings.estimator);
    free(c->settings.params);
    c->settings.estimator = c->settings.params = NULL;
}

/* Rewire every connection: kept (both ends here, or the system's own connector and a
 * component here), rewired to a bridge (one end here), or dropped. */
static int rewire(const rtc_partition *p, rtc_ssp *ssp, const long *map, const size_t *bridge)
{
    size_t n = 0;
    int rc = RTC_OK;
    for (size_t j = 0; j < ssp->n_connections; j++) {
        rtc_ssp_connection c = ssp->connections[j];
        long s = c.start.component, e = c.end.component;
        long ms = s < 0 ? -2 : map[s], me = e < 0 ? -2 : map[e];
        const cross_sig *x = NULL;
        for (size_t i = 0; i < p->n_cross; i++)
            if (p->sig[i].conn == j)
                x = &p->sig[i];
        if (rc == RTC_OK && x && (ms >= 0) != (me >= 0)) {
            c.settings.break_loop = false; /* a cut means something in the whole only */
            if (ms >= 0) {
                c.start.component = ms;
                rc = to_bridge(&c.end, ssp, bridge[x->to], x->name);
                if (!p->po.lockstep)
                    no_estimator(&c);
            } else {
                c.end.component = me;
                rc = to_bridge(&c.start, ssp, bridge[x->from], x->name);
                plain(&c, !p->po.lockstep);
            }
            ssp->connections[n++] = c;
        } else if (rc == RTC_OK && ms != -1 && me != -1) {
            c.start.component = ms >= 0 ? ms : -1;
            c.end.component = me >= 0 ? me : -1;
            ssp->connections[n++] = c;
        } else {
            rtc_ssp_connection_clear(&c);
        }
    }
    ssp->n_connections = n;
    return rc;
}

/* Is "unit.rest" (a parameter's, an exposed or set name's unit) a component of this node?
 * (Names from the partition's copy of the file: the same components, same order.) */
static bool local_name(const rtc_partition *p, const char *name)
{
    const rtc_ssp *ssp = p->ssp;
    for (size_t i = 0; i < ssp->n_components; i++) {
        size_t len = strlen(ssp->components[i].name);
        if (!strncmp(name, ssp->components[i].name, len) && (!name[len] || name[len] == '.'))
            return p->node_of[i] == (size_t)p->self;
    }
    return true; /* a system connector, or unknown: the load judges it */
}

/* Parameters and exposed variables of other nodes' components go; the recording selection
 * becomes this node's columns of the one-process run's. */
static int filter_lists(const rtc_partition *p, rtc_ssp *ssp)
{
    size_t n = 0;
    for (size_t i = 0; i < ssp->n_params; i++) {
        rtc_ssp_param *q = &ssp->params[i];
        if (q->is_system || local_name(p, q->component))
            ssp->params[n++] = *q;
        else
            rtc_ssp_param_clear(q);
    }
    ssp->n_params = n;
    n = 0;
    for (size_t i = 0; i < ssp->realtime.n_expose; i++) {
        if (local_name(p, ssp->realtime.expose[i]))
            ssp->realtime.expose[n++] = ssp->realtime.expose[i];
        else
            free(ssp->realtime.expose[i]);
    }
    ssp->realtime.n_expose = n;
    for (size_t i = 0; i < ssp->realtime.n_record; i++)
        free(ssp->realtime.record[i]);
    free(ssp->realtime.record);
    ssp->realtime.record = calloc(p->n_columns + 1, sizeof(char *));
    ssp->realtime.n_record = 0;
    for (size_t i = 0; ssp->realtime.record && i < p->n_columns; i++)
        if (p->column_node[i] == (size_t)p->self &&
            !(ssp->realtime.record[ssp->realtime.n_record++] = strdup(p->columns[i])))
            return RTC_ENOMEM;
    return ssp->realtime.record ? RTC_OK : RTC_ENOMEM;
}

int rtc__placement_ssp_hook(void *user, rtc_ssp *ssp)
{
    const rtc_partition *p = user;
    size_t nc = ssp->n_components, nb = p->n_nodes - 1;
    long *map = calloc(nc + 1, sizeof *map);
    size_t *bridge = calloc(p->n_nodes + 1, sizeof *bridge);
    rtc_ssp_component *comps = calloc(nc + nb + 1, sizeof *comps);
    if (!map || !bridge || !comps || nc != p->ssp->n_components) {
        free(map);
        free(bridge);
        free(comps);
        return nc != p->ssp->n_components ? RTC_EINVAL : RTC_ENOMEM; /* file changed */
    }
    size_t n = 0;
    for (size_t i = 0; i < nc; i++) {
        map[i] = p->node_of[i] == (size_t)p->self ? (long)n : -1;
        if (map[i] >= 0)
            comps[n++] = ssp->components[i];
        else
            rtc_ssp_component_clear(&ssp->components[i]);
    }
    int rc = check_bridge_sets(p);
    for (size_t k = 0; k < p->n_nodes; k++) {
        if (k == (size_t)p->self || !bridged(p, (size_t)p->self, k))
            continue;
        bridge[k] = n;
        if (rc == RTC_OK)
            rc = make_bridge(p, k, &comps[n]);
        n++;
    }
    int frc = filter_lists(p, ssp);
    free(ssp->components);
    ssp->components = comps;
    ssp->n_components = n;
    if (rc == RTC_OK)
        rc = frc;
    if (rc == RTC_OK)
        rc = rewire(p, ssp, map, bridge);
    free(map);
    free(bridge);
    return rc;
}

/* --set names of this node's components (and system connectors); the others' are theirs. */
static const char **local_sets(const rtc_partition *p, const rtc_system_options *o, size_t *n)
{
    const char **sets = calloc(o->n_sets + 1, sizeof *sets);
    *n = 0;
    for (size_t i = 0; sets && i < o->n_sets; i++)
        if (local_name(p, o->sets[i]))
            sets[(*n)++] = o->sets[i];
    return sets;
}

/* The node's part, live (@p feed NULL) or replayed. */
static int load_node(const char *path, const rtc_system_options *opt,
                     const rtc_placement_opts *po, const rtc_io_sample_source *feed,
                     const rtc_logger *lg, rtc_system **out, rtc_partition **part)
{
    rtc_partition *p = NULL;
    if (!path || !po || !out)
        return RTC_EINVAL;
    int rc = rtc_partition_new(path, opt, po, lg, &p);
    if (rc == RTC_OK && p->n_nodes && p->self < 0) {
        rtc_log(lg, RTC_LOG_ERROR, "%s places its components on %zu nodes: run each node with "
                "--node NAME", p->ssp->display_path, p->n_nodes);
        rc = RTC_EINVAL;
    }
    if (rc != RTC_OK || !p->n_nodes) {
        rtc_partition_free(p);
        return rc != RTC_OK ? rc : feed ? rtc_load_system_replay(path, opt, feed, lg, out)
                                        : rtc_load_system(path, opt, lg, out);
    }
    rtc_system_options o = opt ? *opt : (rtc_system_options){0};
    const char **sets = local_sets(p, &o, &o.n_sets);
    o.sets = sets;
    o.init_passes = 2 * p->n_units + 2; /* every node the same, enough for the lag (T3) */
    o.ssp_hook = rtc__placement_ssp_hook;
    o.ssp_hook_user = p;
    rc = !sets ? RTC_ENOMEM : feed ? rtc_load_system_replay(path, &o, feed, lg, out)
                                   : rtc_load_system(path, &o, lg, out);
    free(sets);
    if (rc == RTC_OK && part)
        *part = p;
    else
        rtc_partition_free(p);
    return rc;
}

int rtc_load_system_node(const char *path, const rtc_system_options *opt,
                         const rtc_placement_opts *po, const rtc_logger *lg, rtc_system **out,
                         rtc_partition **part)
{
    return load_node(path, opt, po, NULL, lg, out, part);
}

int rtc_load_system_node_replay(const char *path, const rtc_system_options *opt,
                                const rtc_placement_opts *po, const rtc_io_sample_source *feed,
                                const rtc_logger *lg, rtc_system **out)
{
    return feed ? load_node(path, opt, po, feed, lg, out, NULL) : RTC_EINVAL;
}

long rtc_partition_self(const rtc_partition *p)
{
    return p->self;
}

int rtc_partition_write_node(const rtc_partition *p, const char *dir)
{
    char path[4096], run[24];
    snprintf(path, sizeof path, "%s/node.json", dir);
    snprintf(run, sizeof run, "%016" PRIx64, p->run_id);
    json_t *doc = json_object(), *nodes = json_array(), *cols = json_array();
    bool bad = !doc || !nodes || !cols;
    for (size_t i = 0; !bad && i < p->n_nodes; i++)
        bad |= json_array_append_new(nodes, rtc__json_str(p->nodes[i])) != 0;
    for (size_t i = 0; !bad && i < p->n_columns; i++) {
        json_t *c = json_object();
        bad |= !c || json_object_set_new(c, "name", rtc__json_str(p->columns[i])) ||
               json_object_set_new(c, "node", rtc__json_str(p->nodes[p->column_node[i]])) ||
               json_array_append_new(cols, c);
    }
    if (!bad)
        bad |= json_object_set_new(doc, "node", rtc__json_str(p->nodes[p->self])) ||
               json_object_set_new(doc, "run_id", rtc__json_str(run)) ||
               json_object_set_new(doc, "nodes", nodes) ||
               json_object_set_new(doc, "columns", cols);
    int rc = bad ? RTC_ENOMEM : rtc__json_write(doc, path);
    json_decref(doc);
    return rc;
}
