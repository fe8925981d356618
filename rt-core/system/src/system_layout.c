/*
 * The layout of a system's run-time data (system_priv.h), built once in rtc_system_init():
 * which variables each unit hands over per type (its input and observation groups), where
 * their values live, and the table of links in the order the tick carries them.
 *
 * DESIGN: the tick visits every unit, so what it reads is laid out in the order it reads
 * it. All typed values (each unit's inputs, then both halves of its outputs) share one
 * block, unit after unit; the set and get calls (one per type a unit has) form one table,
 * unit after unit; the links form one table sorted by destination, each entry holding the
 * addresses of its source value (in both halves) and destination value, so the common
 * link is a copy with no lookup in between. Measured with scripts/bench-system: at 1000
 * units the former layout (a group record per type per unit, a separate allocation per
 * buffer, link indices per unit) missed the cache about 60 times per unit-step.
 */
#include "system_priv.h"

#include "rtcosim/status.h"

#include <stdlib.h>
#include <string.h>

int rtc__sys_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Distinct value references of @p type among @p reqs for unit @p u, sorted. */
static size_t collect_vrs(const rtc_system *sys, const var_req *reqs, size_t n, size_t u,
                          rtc_type type, uint32_t *out)
{
    const rtc_model_desc *md = sys->units[u].unit->md;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (reqs[i].unit != u || md->vars[reqs[i].var].type != type)
            continue;
        out[m++] = md->vars[reqs[i].var].vr;
    }
    qsort(out, m, sizeof *out, rtc__sys_cmp_u32);
    size_t w = 0;
    for (size_t i = 0; i < m; i++)
        if (w == 0 || out[w - 1] != out[i])
            out[w++] = out[i];
    return w;
}

/* Elements of the variable with value reference @p vr and @p type (1 for scalars). */
static size_t vr_count(const rtc_model_desc *md, rtc_type type, uint32_t vr)
{
    for (size_t i = 0; i < md->n_vars; i++)
        if (md->vars[i].vr == vr && md->vars[i].type == type)
            return rtc_var_count(&md->vars[i]);
    return 1;
}

static int size_obs_group(obs_group *g, const rtc_model_desc *md, rtc_type type)
{
    g->offset = calloc(g->n_vr + 1, sizeof *g->offset);
    g->count = calloc(g->n_vr + 1, sizeof *g->count);
    if (!g->offset || !g->count)
        return RTC_ENOMEM;
    for (size_t i = 0; i < g->n_vr; i++) {
        g->offset[i] = g->n_values;
        g->count[i] = vr_count(md, type, g->vr[i]);
        g->n_values += g->count[i];
    }
    if (type == RTC_TYPE_STRING || type == RTC_TYPE_BINARY) {
        for (int h = 0; h < 2; h++)
            if (!(g->str[h] = calloc(g->n_values + 1, RTC_SYS_STR_CAP)))
                return RTC_ENOMEM;
    }
    return RTC_OK;
}

/* Element offset of (type, vr) in an observation group; the vr list is sorted. */
static size_t obs_offset(const obs_group *g, uint32_t vr)
{
    const uint32_t *p = bsearch(&vr, g->vr, g->n_vr, sizeof vr, rtc__sys_cmp_u32);
    return p ? g->offset[p - g->vr] : 0;
}

static int build_obs(rtc_system *sys, size_t u)
{
    size_t n = sys->n_observe + sys->n_links;
    var_req *reqs = calloc(n + 1, sizeof *reqs);
    uint32_t *tmp = calloc(n + 1, sizeof *tmp);
    int rc = reqs && tmp ? RTC_OK : RTC_ENOMEM;
    for (size_t i = 0; rc == RTC_OK && i < sys->n_observe; i++)
        reqs[i] = sys->observe[i];
    for (size_t i = 0; rc == RTC_OK && i < sys->n_links; i++)
        reqs[sys->n_observe + i] = (var_req){sys->links[i].src, sys->links[i].src_var};
    sys_unit *su = &sys->units[u];
    for (int t = 0; rc == RTC_OK && t < RTC_TYPE_COUNT; t++) {
        obs_group *g = &su->obs[t];
        g->n_vr = collect_vrs(sys, reqs, n, u, (rtc_type)t, tmp);
        g->vr = malloc((g->n_vr + 1) * sizeof *g->vr);
        if (!g->vr) {
            rc = RTC_ENOMEM;
            break;
        }
        memcpy(g->vr, tmp, g->n_vr * sizeof *tmp);
        rc = size_obs_group(g, su->unit->md, (rtc_type)t);
    }
    free(reqs);
    free(tmp);
    return rc;
}

static int build_inputs(rtc_system *sys, size_t u)
{
    sys_unit *su = &sys->units[u];
    const rtc_model_desc *md = su->unit->md;
    for (size_t i = 0; i < sys->n_links; i++) {
        sys_link *l = &sys->links[i];
        if (l->dst != u)
            continue;
        in_group *g = &su->in[l->dst_type];
        /* element links into one array input share that input's slot: the first one
         * registers the whole variable */
        size_t base = SIZE_MAX;
        for (size_t j = 0; l->dst_part && j < i && base == SIZE_MAX; j++)
            if (sys->links[j].dst == u && sys->links[j].dst_part &&
                sys->links[j].dst_var == l->dst_var)
                base = sys->links[j].dst_off - sys->links[j].dst_elem;
        if (base != SIZE_MAX) {
            l->dst_off = base + l->dst_elem;
            continue;
        }
        uint32_t *vr = realloc(g->vr, (g->n_vr + 1) * sizeof *vr);
        if (!vr)
            return RTC_ENOMEM;
        g->vr = vr;
        g->vr[g->n_vr++] = md->vars[l->dst_var].vr;
        l->dst_off = g->n_values + l->dst_elem;
        g->n_values += l->dst_part ? rtc_var_count(&md->vars[l->dst_var]) : l->count;
    }
    return RTC_OK;
}

/* Delayed links keep the source's samples still in flight: delay / source step + 2. */
static int build_delays(rtc_system *sys)
{
    for (size_t i = 0; i < sys->n_links; i++) {
        sys_link *l = &sys->links[i];
        if (!l->delay_ns)
            continue;
        l->hist_cap = (size_t)(l->delay_ns / sys->units[l->src].step_ns) + 3;
        l->hist = calloc(l->hist_cap, sizeof *l->hist);
        if (!l->hist)
            return RTC_ENOMEM;
    }
    return RTC_OK;
}

/* ---- one block for every value ---- */

/* Bytes of @p n elements of @p type, rounded up to 8 (the largest element alignment). */
static size_t span(rtc_type type, size_t n)
{
    return (rtc_type_size(type) * n + 7) & ~(size_t)7;
}

/* Place unit u's values at @p at in the block (NULL: only count); returns the bytes taken.
 * Units called from several threads start on a cache line of their own, so that two
 * threads never write one line. An empty group points where the next one starts (no call
 * reads it). */
static size_t place_unit(sys_unit *u, char *at, size_t line)
{
    size_t n = 0;
    for (int t = 0; t < RTC_TYPE_COUNT; t++) {
        u->in[t].values = at ? at + n : NULL;
        n += span((rtc_type)t, u->in[t].n_values);
    }
    for (int h = 0; h < 2; h++)
        for (int t = 0; t < RTC_TYPE_COUNT; t++) {
            u->obs[t].half[h] = at ? at + n : NULL;
            n += span((rtc_type)t, u->obs[t].n_values);
        }
    return (n + line - 1) / line * line;
}

static int place_values(rtc_system *sys)
{
    size_t line = sys->n_workers || sys->substitute ? 64 : 8, total = 8;
    for (size_t u = 0; u < sys->n_units; u++)
        total += place_unit(&sys->units[u], NULL, line);
    if (posix_memalign(&sys->values, 64, total) != 0)
        return RTC_ENOMEM;
    memset(sys->values, 0, total);
    char *at = sys->values;
    for (size_t u = 0; u < sys->n_units; u++)
        at += place_unit(&sys->units[u], at, line);
    return RTC_OK;
}

/* ---- the calls and the links in the order the tick takes them ---- */

/* Each unit's set calls, then its get calls: one per type it has. */
static int build_calls(rtc_system *sys)
{
    size_t n = 0;
    for (size_t u = 0; u < sys->n_units; u++)
        for (int t = 0; t < RTC_TYPE_COUNT; t++)
            n += (sys->units[u].in[t].n_vr > 0) + (sys->units[u].obs[t].n_vr > 0);
    sys->calls = calloc(n + 1, sizeof *sys->calls);
    if (!sys->calls)
        return RTC_ENOMEM;
    tick_call *c = sys->calls;
    for (size_t u = 0; u < sys->n_units; u++) {
        sys_unit *su = &sys->units[u];
        su->call0 = (uint32_t)(c - sys->calls);
        for (int t = 0; t < RTC_TYPE_COUNT; t++) {
            const in_group *g = &su->in[t];
            if (g->n_vr)
                *c++ = (tick_call){.vr = g->vr, .val = {g->values, g->values},
                                   .n_vr = (uint32_t)g->n_vr,
                                   .n_values = (uint32_t)g->n_values, .type = (uint8_t)t};
        }
        su->n_set = (uint8_t)(c - sys->calls - su->call0);
        for (int t = 0; t < RTC_TYPE_COUNT; t++) {
            const obs_group *g = &su->obs[t];
            if (g->n_vr)
                *c++ = (tick_call){.vr = g->vr, .val = {g->half[0], g->half[1]},
                                   .n_vr = (uint32_t)g->n_vr,
                                   .n_values = (uint32_t)g->n_values, .type = (uint8_t)t,
                                   .str = g->str[0] != NULL};
        }
        su->n_get = (uint8_t)(c - sys->calls - su->call0 - su->n_set);
    }
    return RTC_OK;
}

static tick_link tick_link_of(rtc_system *sys, size_t i)
{
    const sys_link *l = &sys->links[i];
    const sys_unit *s = &sys->units[l->src];
    const obs_group *g = &s->obs[l->src_type];
    size_t sz = rtc_type_size(l->src_type);
    tick_link t = {.src = (uint32_t)l->src, .link = (uint32_t)i, .k = l->k, .d = l->d,
                   .dst_val = (char *)sys->units[l->dst].in[l->dst_type].values +
                              l->dst_off * rtc_type_size(l->dst_type)};
    for (int h = 0; h < 2; h++)
        t.src_val[h] = (const char *)g->half[h] + l->src_off * sz;
    bool plain = !l->bench && !l->est && !l->delay_ns;
    if (plain && l->mode == LINK_COPY) {
        t.kind = TICK_COPY;
        t.bytes = (uint32_t)(l->count * sz);
    } else if (plain && l->mode == LINK_AFFINE && l->count == 1 &&
               l->src_type == RTC_TYPE_FLOAT64 && l->dst_type == RTC_TYPE_FLOAT64) {
        t.kind = TICK_AFFINE;
    } else {
        t.kind = TICK_GENERAL;
    }
    return t;
}

/* Every unit's input links, in link order within a unit (the order they are applied in). */
static int build_tick_links(rtc_system *sys)
{
    sys->tick_links = calloc(sys->n_links + 1, sizeof *sys->tick_links);
    if (!sys->tick_links)
        return RTC_ENOMEM;
    size_t n = 0;
    for (size_t u = 0; u < sys->n_units; u++) {
        sys_unit *su = &sys->units[u];
        su->link0 = (uint32_t)n;
        for (size_t i = 0; i < sys->n_links; i++) {
            if (sys->links[i].dst != u)
                continue;
            sys->tick_links[n++] = tick_link_of(sys, i);
            su->est_in |= sys->links[i].est != NULL;
        }
        su->n_links_in = (uint32_t)n - su->link0;
    }
    return RTC_OK;
}

int rtc__sys_build_buffers(rtc_system *sys)
{
    int rc = build_delays(sys);
    for (size_t u = 0; rc == RTC_OK && u < sys->n_units; u++) {
        rc = build_obs(sys, u);
        if (rc == RTC_OK)
            rc = build_inputs(sys, u);
    }
    if (rc == RTC_OK)
        rc = place_values(sys);
    for (size_t i = 0; rc == RTC_OK && i < sys->n_links; i++) {
        sys_link *l = &sys->links[i];
        const sys_unit *s = &sys->units[l->src];
        l->src_off = obs_offset(&s->obs[l->src_type], s->unit->md->vars[l->src_var].vr) +
                     l->src_elem;
    }
    for (size_t u = 0; u < sys->n_units; u++)
        sys->units[u].nf_dirty = true; /* the first scan looks at every unit */
    if (rc == RTC_OK)
        rc = build_calls(sys);
    return rc == RTC_OK ? build_tick_links(sys) : rc;
}
