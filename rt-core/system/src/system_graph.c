/*
 * Dependency analysis of a system: the Gauss-Seidel stepping order, algebraic loops found
 * from the units' ModelStructure (output-to-input feedthrough) with Tarjan's strongly
 * connected components, and the unit groups that strong coupling iterates.
 *
 * Two graphs are used. The unit graph has an edge u → v for every link from u to v; its
 * cycles decide the Gauss-Seidel order (a cycle is cut at the edge the user marked
 * breakLoop, else at the edges pointing back in declaration order, and reported). The
 * port graph has a node per connected variable, an edge per link and, inside a unit, an
 * edge input → output wherever the output depends on the input directly; its cycles are
 * algebraic loops, which no explicit master solves exactly.
 */
#include "system_priv.h"

#include "rtcosim/io_unit.h"
#include "rtcosim/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct graph {
    size_t n;
    size_t *head, *next, *to; /* adjacency lists: edges of node a are head[a], next[...] */
    size_t n_edges, cap;
} graph;

static int graph_init(graph *g, size_t n)
{
    memset(g, 0, sizeof *g);
    g->n = n;
    g->head = malloc((n + 1) * sizeof *g->head);
    if (!g->head)
        return RTC_ENOMEM;
    for (size_t i = 0; i < n; i++)
        g->head[i] = SIZE_MAX;
    return RTC_OK;
}

static int graph_edge(graph *g, size_t a, size_t b)
{
    if (g->n_edges == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 16;
        size_t *nx = realloc(g->next, g->cap * sizeof *nx), *to = realloc(g->to, g->cap * sizeof *to);
        if (nx)
            g->next = nx;
        if (to)
            g->to = to;
        if (!nx || !to)
            return RTC_ENOMEM;
    }
    g->to[g->n_edges] = b;
    g->next[g->n_edges] = g->head[a];
    g->head[a] = g->n_edges++;
    return RTC_OK;
}

static void graph_free(graph *g)
{
    free(g->head);
    free(g->next);
    free(g->to);
}

/* Tarjan's SCC, iterative (no recursion depth limit). comp[v] = component id. */
typedef struct tarjan {
    size_t *index, *low, *comp, *stack, *call, *edge;
    bool *on;
    size_t counter, sp, n_comp;
} tarjan;

static void strongconnect(const graph *g, tarjan *t, size_t root)
{
    size_t depth = 0;
    t->call[depth] = root;
    t->edge[depth] = g->head[root];
    t->index[root] = t->low[root] = t->counter++;
    t->stack[t->sp++] = root;
    t->on[root] = true;
    while (true) {
        size_t v = t->call[depth], e = t->edge[depth];
        if (e != SIZE_MAX) {
            t->edge[depth] = g->next[e];
            size_t w = g->to[e];
            if (t->index[w] == SIZE_MAX) {
                t->index[w] = t->low[w] = t->counter++;
                t->stack[t->sp++] = w;
                t->on[w] = true;
                t->call[++depth] = w;
                t->edge[depth] = g->head[w];
            } else if (t->on[w] && t->index[w] < t->low[v]) {
                t->low[v] = t->index[w];
            }
            continue;
        }
        if (t->low[v] == t->index[v]) {
            size_t w;
            do {
                w = t->stack[--t->sp];
                t->on[w] = false;
                t->comp[w] = t->n_comp;
            } while (w != v);
            t->n_comp++;
        }
        if (depth == 0)
            return;
        size_t parent = t->call[--depth];
        if (t->low[v] < t->low[parent])
            t->low[parent] = t->low[v];
    }
}

/* Component id of every node; returns the number of components or 0 on ENOMEM. */
static size_t scc(const graph *g, size_t *comp)
{
    tarjan t = {0};
    size_t n = g->n + 1;
    t.index = malloc(n * sizeof(size_t));
    t.low = malloc(n * sizeof(size_t));
    t.stack = malloc(n * sizeof(size_t));
    t.call = malloc(n * sizeof(size_t));
    t.edge = malloc(n * sizeof(size_t));
    t.on = calloc(n, sizeof(bool));
    t.comp = comp;
    size_t r = 0;
    if (t.index && t.low && t.stack && t.call && t.edge && t.on) {
        for (size_t i = 0; i < g->n; i++)
            t.index[i] = SIZE_MAX;
        for (size_t i = 0; i < g->n; i++)
            if (t.index[i] == SIZE_MAX)
                strongconnect(g, &t, i);
        r = t.n_comp;
    }
    free(t.index);
    free(t.low);
    free(t.stack);
    free(t.call);
    free(t.edge);
    free(t.on);
    return r;
}

/* ---- algebraic loops on the port graph ---- */

typedef struct ports {
    size_t n;
    var_req *p;
} ports;

static size_t port_id(ports *ps, size_t unit, size_t var)
{
    for (size_t i = 0; i < ps->n; i++)
        if (ps->p[i].unit == unit && ps->p[i].var == var)
            return i;
    ps->p[ps->n] = (var_req){unit, var};
    return ps->n++;
}

/* Does output @p out of @p md depend directly on input @p in? Unlisted or absent
 * dependencies mean "on every input" (the standard's conservative default). */
static bool depends(const rtc_model_desc *md, size_t out, size_t in)
{
    for (size_t i = 0; i < md->structure.n_outputs; i++) {
        const rtc_unknown *u = &md->structure.outputs[i];
        if (u->var != out)
            continue;
        if (!u->deps_given)
            return true;
        for (size_t d = 0; d < u->n_deps; d++)
            if (u->deps[d] == in)
                return true;
        return false;
    }
    return true;
}

static int build_port_graph(const rtc_system *sys, ports *ps, graph *g)
{
    ps->p = calloc(2 * sys->n_links + 1, sizeof *ps->p);
    if (!ps->p)
        return RTC_ENOMEM;
    for (size_t i = 0; i < sys->n_links; i++) {
        port_id(ps, sys->links[i].src, sys->links[i].src_var);
        port_id(ps, sys->links[i].dst, sys->links[i].dst_var);
    }
    int rc = graph_init(g, ps->n);
    for (size_t i = 0; rc == RTC_OK && i < sys->n_links; i++) {
        const sys_link *l = &sys->links[i];
        rc = graph_edge(g, port_id(ps, l->src, l->src_var), port_id(ps, l->dst, l->dst_var));
    }
    for (size_t a = 0; rc == RTC_OK && a < ps->n; a++) {
        for (size_t b = 0; rc == RTC_OK && b < ps->n; b++) {
            if (a == b || ps->p[a].unit != ps->p[b].unit)
                continue;
            const rtc_model_desc *md = sys->units[ps->p[a].unit].unit->md;
            const rtc_var *in = &md->vars[ps->p[a].var], *out = &md->vars[ps->p[b].var];
            if (in->causality == RTC_CAUSALITY_INPUT && out->causality == RTC_CAUSALITY_OUTPUT &&
                depends(md, ps->p[b].var, ps->p[a].var))
                rc = graph_edge(g, a, b);
        }
    }
    return rc;
}

/* Print one cycle through the component of @p start: a breadth-first search inside the
 * component back to @p start gives the shortest loop. */
static void print_loop(const rtc_system *sys, const ports *ps, const graph *g,
                       const size_t *comp, size_t start, int level)
{
    size_t *prev = malloc(g->n * sizeof *prev), *queue = malloc(g->n * sizeof *queue);
    char text[1024];
    size_t len = 0, qh = 0, qt = 0, hit = SIZE_MAX;
    if (!prev || !queue)
        goto out;
    for (size_t i = 0; i < g->n; i++)
        prev[i] = SIZE_MAX;
    queue[qt++] = start;
    while (qh < qt && hit == SIZE_MAX) {
        size_t v = queue[qh++];
        for (size_t e = g->head[v]; e != SIZE_MAX && hit == SIZE_MAX; e = g->next[e]) {
            size_t w = g->to[e];
            if (comp[w] != comp[start])
                continue;
            if (w == start)
                hit = v;
            else if (prev[w] == SIZE_MAX) {
                prev[w] = v;
                queue[qt++] = w;
            }
        }
    }
    /* walk back from the last node before start, then print forwards */
    size_t path[64], n = 0;
    for (size_t v = hit; v != SIZE_MAX && v != start && n < 63; v = prev[v])
        path[n++] = v;
    path[n++] = start;
    for (size_t i = n; i-- > 0;) {
        const var_req *p = &ps->p[path[i]];
        len += (size_t)snprintf(text + len, sizeof text - len, "%s.%s -> ",
                                sys->units[p->unit].name,
                                sys->units[p->unit].unit->md->vars[p->var].name);
        if (len >= sizeof text)
            break;
    }
    if (len < sizeof text)
        snprintf(text + len, sizeof text - len, "%s.%s", sys->units[ps->p[start].unit].name,
                 sys->units[ps->p[start].unit].unit->md->vars[ps->p[start].var].name);
    rtc_log(sys->lg, level, "%s: algebraic loop: %s", sys->path, text);
out:
    free(prev);
    free(queue);
}

unsigned rtc__sys_find_loops(rtc_system *sys, int level)
{
    ports ps = {0};
    graph g = {0};
    unsigned loops = 0;
    size_t *comp = NULL, *size = NULL;
    if (build_port_graph(sys, &ps, &g) != RTC_OK)
        goto out;
    comp = calloc(g.n + 1, sizeof *comp);
    size = calloc(g.n + 1, sizeof *size);
    size_t nc = comp && size ? scc(&g, comp) : 0;
    for (size_t v = 0; v < g.n; v++)
        size[comp[v]]++;
    for (size_t c = 0; c < nc; c++) {
        if (size[c] < 2)
            continue;
        for (size_t v = 0; v < g.n; v++) {
            if (comp[v] == c && sys->units[ps.p[v].unit].unit->md->vars[ps.p[v].var].causality ==
                                    RTC_CAUSALITY_OUTPUT) {
                print_loop(sys, &ps, &g, comp, v, level);
                break;
            }
        }
        loops++;
    }
out:
    graph_free(&g);
    free(comp);
    free(size);
    free(ps.p);
    return loops;
}

/* ---- Gauss-Seidel order and strong-coupling groups on the unit graph ---- */

/* A lock-step I/O unit (a node bridge, rtc_io_unit_lockstep) has its values for the tick
 * before the tick starts, whatever its consumers do in it: no edge leaves it, so no cycle
 * runs through it (none is cut, none reported). */
static int unit_graph(const rtc_system *sys, graph *g, bool keep_breaks)
{
    int rc = graph_init(g, sys->n_units);
    for (size_t i = 0; rc == RTC_OK && i < sys->n_links; i++) {
        const sys_link *l = &sys->links[i];
        const sys_unit *src = &sys->units[l->src];
        if (src->io && rtc_io_unit_lockstep(src->unit))
            continue;
        if (l->src != l->dst && (keep_breaks || !l->break_loop))
            rc = graph_edge(g, l->src, l->dst);
    }
    return rc;
}

/* Mark the units of every unit-level cycle for iteration when all of them can save and
 * restore their state and share one step size; say why otherwise. */
static int mark_loops(rtc_system *sys, const graph *g)
{
    size_t *comp = calloc(g->n + 1, sizeof *comp), *size = calloc(g->n + 1, sizeof *size);
    if (!comp || !size) {
        free(comp);
        free(size);
        return RTC_ENOMEM;
    }
    size_t nc = scc(g, comp);
    for (size_t v = 0; v < g->n; v++)
        size[comp[v]]++;
    for (size_t c = 0; c < nc; c++) {
        if (size[c] < 2)
            continue;
        const char *why = NULL;
        int64_t h = 0;
        for (size_t v = 0; v < g->n && !why; v++) {
            if (comp[v] != c)
                continue;
            if (!(sys->units[v].unit->caps & RTC_UNIT_CAN_GET_SET_STATE))
                why = sys->units[v].name;
            else if (h && sys->units[v].step_ns != h)
                why = "(units with different step sizes)";
            h = sys->units[v].step_ns;
        }
        for (size_t v = 0; v < g->n && !why; v++)
            sys->units[v].in_loop |= comp[v] == c;
        if (why) {
            rtc_log(sys->lg, RTC_LOG_WARNING,
                    "%s: strong coupling cannot iterate a loop: %s cannot save and restore its "
                    "state; the loop is stepped once per step", sys->path, why);
            sys->warnings++;
        }
    }
    free(comp);
    free(size);
    return RTC_OK;
}

/* Kahn's algorithm with the lowest declaration index first; when only cycles remain, the
 * lowest-index remaining unit goes next and its incoming edges from units still waiting
 * are the ones cut (reported). */
static int gs_order(rtc_system *sys, const graph *g, bool report)
{
    size_t n = sys->n_units, *indeg = calloc(n + 1, sizeof *indeg);
    bool *done = calloc(n + 1, sizeof *done);
    int rc = indeg && done ? RTC_OK : RTC_ENOMEM;
    for (size_t e = 0; rc == RTC_OK && e < g->n_edges; e++)
        indeg[g->to[e]]++;
    for (size_t placed = 0; rc == RTC_OK && placed < n; placed++) {
        size_t pick = SIZE_MAX;
        for (size_t v = 0; v < n && pick == SIZE_MAX; v++)
            if (!done[v] && indeg[v] == 0)
                pick = v;
        for (size_t v = 0; v < n && pick == SIZE_MAX; v++) {
            if (done[v])
                continue;
            pick = v;
            for (size_t i = 0; i < sys->n_links && report; i++) {
                const sys_link *l = &sys->links[i];
                if (l->dst == v && !done[l->src] && l->src != v && !l->break_loop) {
                    rtc_log(sys->lg, RTC_LOG_WARNING,
                            "%s:%u: %s: loop cut at %s (declaration order); mark another "
                            "connection with breakLoop to choose", l->file, l->line,
                            rtc_master_name(sys->algorithm), l->desc);
                    sys->warnings++;
                }
            }
        }
        done[pick] = true;
        sys->order[placed] = pick;
        for (size_t e = g->head[pick]; e != SIZE_MAX; e = g->next[e])
            if (indeg[g->to[e]])
                indeg[g->to[e]]--;
    }
    free(indeg);
    free(done);
    return rc;
}

int rtc__sys_order(rtc_system *sys, bool report_loops)
{
    graph g = {0}, all = {0};
    sys->order = calloc(sys->n_units + 1, sizeof *sys->order);
    int rc = sys->order ? unit_graph(sys, &g, false) : RTC_ENOMEM;
    if (rc == RTC_OK)
        rc = gs_order(sys, &g, report_loops);
    if (rc == RTC_OK && sys->iterate)
        rc = unit_graph(sys, &all, true);
    if (rc == RTC_OK && sys->iterate)
        rc = mark_loops(sys, &all);
    graph_free(&g);
    graph_free(&all);
    return rc;
}

size_t rtc_system_order_position(const rtc_system *sys, size_t i)
{
    for (size_t j = 0; sys->order && j < sys->n_units; j++)
        if (sys->order[j] == i)
            return j;
    return SIZE_MAX;
}

bool rtc_system_unit_iterated(const rtc_system *sys, size_t i)
{
    return i < sys->n_units && sys->units[i].in_loop;
}
