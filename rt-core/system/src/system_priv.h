/*
 * Internals of rtcosim/system.h: the system model that every file of the layer shares —
 * system.c (runtime state, initialization, recording views), system_exchange.c (the value
 * path), system_load.c and system_link.c (building and validation), system_graph.c
 * (dependency analysis), nonfinite.c, and the masters (masters/master_priv.h, which adds
 * the strategies' interface on top of this one).
 *
 * Value flow of one unit u:
 *   links → in[type].values ──set──▶ FMU ──do_step──▶ ──get──▶ obs[type] next half (t_nxt)
 *   the next half becomes the current one when the tick reaches t_nxt; links and recording
 *   read the current half (or the next when the consumer's query time has reached t_nxt:
 *   Gauss-Seidel). A link from an I/O signal reads the signal's estimate instead
 *   (sys_link.bench, io_unit.c).
 * Every buffer is sized in rtc_system_init(); stepping allocates nothing. The data the tick
 * walks is laid out for it: units' tick fields first in their records, all values in one
 * block (sys->values, unit after unit), the links in one table in the order the tick takes
 * them (sys->tick_links), so that a tick over 1000 units stays in the cache.
 */
#ifndef RTC_SYSTEM_PRIV_H
#define RTC_SYSTEM_PRIV_H

#include "rtcosim/estimate.h"
#include "rtcosim/rt.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"

#include <math.h>

#define RTC_SYS_STR_CAP RTC_MAX_STRING_BYTES /* bytes kept per observed string value */

typedef struct rtc_async_unit rtc_async_unit;
struct rtc__master_ops;

/* Variables of one type that the system reads from a unit after each step. Its values
 * have two halves: the current outputs (what links and the recording read) and the next
 * ones (what the unit's last step computed, not yet visible); sys_unit.cur says which is
 * which, so that making the next outputs current is one flip per unit, not a swap per group. */
typedef struct obs_group {
    size_t n_vr, n_values;
    uint32_t *vr;      /* sorted ascending, for the recording view's lookups */
    size_t *offset;    /* first element of vr[i] in the value arrays */
    size_t *count;     /* elements of vr[i] */
    void *half[2];     /* typed arrays of n_values elements (in sys->values) */
    char *str[2];      /* string copies of each half (STRING and BINARY only) */
} obs_group;

/* Inputs of one type that links write and one set call hands to the unit. */
typedef struct in_group {
    size_t n_vr, n_values;
    uint32_t *vr;
    void *values;      /* in sys->values */
} in_group;

/* One set or get call of the tick, copied from a unit's group at init: sys->calls holds,
 * unit after unit, its set calls (input groups) and then its get calls (observation
 * groups), so the tick reads the calls of a unit from one place, next to the next unit's. */
typedef struct tick_call {
    const uint32_t *vr;
    void *val[2];      /* set: the input values (twice); get: the two halves */
    uint32_t n_vr, n_values;
    uint8_t type;      /* rtc_type */
    bool str;          /* get of STRING or BINARY: copy the strings (obs group's str) */
} tick_call;

/*
 * One unit. The fields the tick reads for every unit fill its first cache line, so that a
 * tick over many units reads one line of each record, plus its calls (sys->calls), its
 * values (sys->values) and its input links (sys->tick_links), three tables the tick walks
 * in order.
 */
typedef struct sys_unit {
    rtc_unit *unit;
    int64_t step_ns;
    int64_t t_cur_ns, t_nxt_ns; /* times of the current and next outputs (ns from start) */
    uint32_t link0, n_links_in; /* its input links: sys->tick_links[link0 .. + n_links_in) */
    uint32_t call0;       /* its calls: sys->calls[call0 ..], n_set set calls, n_get get calls */
    uint8_t n_set, n_get;
    uint8_t cur;          /* which half of every obs group holds the current outputs */
    bool has_nxt;         /* the next half holds a step's outputs, visible from t_nxt_ns */
    bool io;              /* exchanges with the outside (ops->refresh): never steps */
    bool in_loop;         /* member of an iterated algebraic loop (system_graph.c) */
    bool est_in;          /* an input link has an estimator (which may report FAULT) */
    bool nf_dirty;        /* the current outputs changed since the non-finite check */
    uint32_t microsteps_tick; /* in the current tick (folded into sys->microstep) */
    rtc_async_unit *as;   /* the unit's own thread (substitute.c), or NULL */
    /* ---- read or written only when it happens ---- */
    /* Set by the armed master (masters/): who calls the unit, strong coupling's buffers */
    size_t owner;         /* worker thread that makes every call of this unit (0: the
                             stepping thread), jacobi_workers.c */
    /* Events inside the unit's steps (rtc_step_result), written only by the thread that
     * steps it; read by the RT thread after the tick's steps joined, or after the run. */
    uint64_t events, early_returns;
    uint32_t microsteps_max;  /* over the run */
    in_group in[RTC_TYPE_COUNT];
    obs_group obs[RTC_TYPE_COUNT];
    char *name;
    char *source;         /* file the unit was created from (spec.source), or NULL */
    char sha256[65];      /* its sha256 at load time (hex), "" when none */
    rtc_unit view;        /* get() reads what is visible at the current tick */
    bool ended_at_init;   /* its exit_init ended the simulation (RTC_ETERMINATED) */
    unsigned line;        /* declaration in the system file */
    void *state;          /* saved FMU state (strong coupling) */
    double *iter_prev;    /* Float64 outputs of the previous iterate (strong coupling) */
    /* With the unit clock on (rtc_system_set_unit_clock): wall time the unit spent in its
     * do_steps (an I/O unit: its refresh) during the current tick, -1 when it did none;
     * reset by the tick's frame, added to by the thread that steps the unit, read after
     * the tick's steps joined. */
    int64_t work_ns;
    /* The unit ended the simulation inside its step, at ended_ns (ns from the start; its
     * outputs there are in its next half): written by the thread that steps it, read after
     * the tick joined */
    bool ended;
    int64_t ended_ns;
} sys_unit;

/* The current and the next outputs of group @p g of unit @p u. */
static inline void *rtc__obs_cur(const sys_unit *u, const obs_group *g)
{
    return g->half[u->cur];
}

static inline void *rtc__obs_nxt(const sys_unit *u, const obs_group *g)
{
    return g->half[u->cur ^ 1];
}

typedef enum {
    LINK_COPY,    /* same type, no conversion: element copy */
    LINK_AFFINE,  /* numeric: y = k·x + d (unit conversion and linear transformation) */
    LINK_MAP,     /* boolean / integer / enumeration mapping */
} link_mode;

typedef struct map_entry {
    int64_t from, to;
} map_entry;

typedef struct sys_link {
    size_t src, dst;            /* unit indices */
    rtc_type src_type, dst_type;
    size_t src_var, dst_var;    /* variable indices in the units' descriptions */
    size_t src_off, dst_off;    /* element offsets in obs[src_type] / in[dst_type] */
    size_t count;               /* elements (arrays) */
    size_t src_elem, dst_elem;  /* element-wise links of SSP array connectors: which one */
    bool dst_part;              /* feeds one element of an array input (dst_elem) */
    link_mode mode;
    double k, d;
    map_entry *map;
    size_t n_map;
    bool break_loop;            /* Gauss-Seidel: the user cut the loop here */
    int64_t delay_ns;           /* transport delay (0: none) */
    struct delayed {            /* delayed links: source samples in flight, oldest first */
        int64_t t_ns;
        double v;
    } *hist;
    size_t hist_cap, hist_first, hist_n, hist_arrived; /* ring; arrived = already delivered */
    const double *bench;        /* from an I/O signal: its estimated value (the one
                                   estimator of a bench value runs there), else NULL */
    rtc_est *est;               /* NULL: zero-order hold without an estimator; its
                                   monitor is the link's coupling error */
    int64_t fed_ns;             /* newest source time fed to est */
    bool fault;                 /* the estimator reported FAULT (stale input, fault policy) */
    char *desc;                 /* "a.y -> b.u" */
    char *file;
    unsigned line;
} sys_link;

/* How the tick carries a link (tick_link.kind). */
typedef enum {
    TICK_COPY,    /* same type, no conversion, no estimator or delay: bytes copied */
    TICK_AFFINE,  /* Float64 to Float64, y = k·x + d, no estimator or delay */
    TICK_GENERAL, /* anything else: rtc__sys_link_apply() on the link */
} tick_kind;

/* A link as the tick carries it, in sys->tick_links: ordered by destination unit, so that a
 * unit's input links are one range, with the addresses of the source's value in both halves
 * and of the destination's input resolved at init, so that the common link is one copy. */
typedef struct tick_link {
    const void *src_val[2]; /* the source element in half 0 and half 1 of its obs group */
    void *dst_val;          /* the destination element in the consumer's input group */
    double k, d;            /* TICK_AFFINE */
    uint32_t src;           /* source unit */
    uint32_t link;          /* sys->links[link] */
    uint32_t bytes;         /* TICK_COPY */
    uint8_t kind;           /* tick_kind */
} tick_link;

/* Units' per-type observation/input requests, collected before buffers are sized. */
typedef struct var_req {
    size_t unit, var;
} var_req;

struct rtc_system {
    const rtc_logger *lg;
    char *path;
    rtc_unit_factory *factories;
    size_t n_factories;
    sys_unit *units;
    size_t n_units;
    sys_link *links;
    size_t n_links;
    tick_link *tick_links; /* n_links, by destination (built at init) */
    tick_call *calls; /* every unit's set and get calls (built at init) */
    void *values;     /* every unit's input and output values, unit after unit (init) */
    var_req *observe; /* recorded variables beyond the links' sources */
    size_t n_observe;
    rtc_system_rt_hints rt; /* the file's real-time settings */
    char **record;    /* the system file's recording selection ("unit.variable") */
    size_t n_record;
    char **expose;    /* the system file's exposed variables ("unit.variable[:k=v]...") */
    size_t n_expose;
    rtc_master algorithm;
    int64_t tick_ns, start_ns, stop_ns, sync_ns;
    int64_t k;              /* current tick index */
    uint32_t microstep;     /* zero-time iterations in the last step (superdense index) */
    size_t *order;          /* Gauss-Seidel order (unit indices) */
    bool initialized, terminated;
    bool ended_at_init;     /* a unit ended the simulation at its initial event */
    bool failed;            /* a unit call failed: no further calls but free */
    bool has_io;            /* some unit exchanges with the outside (needs real time) */
    size_t init_passes;     /* coupling passes at initialization, at least (options) */
    bool single;            /* loaded from one .fmu: its variables also by their own names,
                               its DefaultExperiment tolerance (rtc_system_load) */
    bool short_last;        /* single FMU that can vary its step, the stop time off its
                               grid: a shorter last step ends at the stop time */
    bool fmu_logging;       /* every FMU unit's debug logging (rtc_system_options) */
    bool unit_ended;        /* a unit ended the simulation inside the last step */
    bool has_t_end;         /* the system stands at t_end_ns, not k·tick: after a shorter
                               last step, or where a unit ended the simulation */
    int64_t t_end_ns;
    unsigned n_workers;     /* requested worker threads (Jacobi) */
    bool substitute;        /* each unit on its own thread, late units left running */
    int64_t step_deadline_ns; /* substitute: CLOCK_MONOTONIC budget of the current step */
    uint64_t late_steps;    /* substitute: steps that missed their budget */
    rtc_rt_thread_opts threads; /* attributes of worker and substitute threads */
    /* the strategy rtc_system_init() armed (masters/master_priv.h), or NULL, and its own
     * state (threads, snapshots) */
    const struct rtc__master_ops *master;
    void *master_state;
    unsigned warnings;
    /* strong coupling */
    bool iterate;
    double tol;
    unsigned max_iter;
    rtc_coupling_stats coupling;
    /* Parallel Fast */
    rtc_sync_hook sync_hook;
    void *sync_user;
    /* timer around each unit's do_step (rtc_system_set_unit_timer) */
    rtc_unit_timer unit_timer;
    void *unit_timer_user;
    bool unit_clock;      /* measure each unit's work per tick (sys_unit.work_ns) */
    /* parameter values from the system file: (unit, variable, text) */
    struct sys_param {
        size_t unit, var;
        char *text;
        char *file;
        unsigned line;
    } *params;
    size_t n_params;
    struct rtc_nonfinite *nonfinite; /* non-finite outputs (nonfinite.c), from init */
    uint64_t nonfinite_hits; /* checks that found a non-finite value (rtc_system_step_n
                                returns after such a tick) */
    /* the top-level system's own connectors (SSP ports): an input names each component
     * input it feeds (one entry per target), an output the component output feeding it */
    struct sys_port {
        char *name;
        bool input;
        size_t unit, var;
        double k, d; /* input: the component sees k·value + d (units, linear transform) */
    } *ports;
    size_t n_ports;
};

/* The logical time the system stands at (ns from the start): k·tick, or where a
 * shorter last step or a unit's end left it. RT-safe. */
static inline int64_t rtc__sys_now(const rtc_system *sys)
{
    return sys->has_t_end ? sys->t_end_ns : sys->k * sys->tick_ns;
}

/* Whether the run is over (rtc_system_finished). RT-safe. */
static inline bool rtc__sys_finished(const rtc_system *sys)
{
    int64_t t = rtc__sys_now(sys);
    return t >= sys->stop_ns || (t + sys->tick_ns > sys->stop_ns && !sys->short_last);
}

/* system.c */
int rtc__sys_observe(rtc_system *sys, size_t unit, size_t var);

/* system_layout.c: size and place every buffer, build the tick's link table (init) */
int rtc__sys_build_buffers(rtc_system *sys);
int rtc__sys_cmp_u32(const void *a, const void *b); /* qsort/bsearch of value references */

/* A parameter value parsed as the initialization sets it (rtc_var_parse_text on a copy of
 * the text): vals holds rtc_var_count() elements, string and binary elements point into
 * text and bin. */
typedef struct sys_value {
    char *text;
    void *vals;
    uint8_t *bin;
} sys_value;
/* Parse @p text for @p var of @p md into @p out (free it with rtc__sys_value_free, also
 * after a failure). Returns RTC_OK, RTC_ENOMEM, or the parse's status with the reason in
 * @p why. */
int rtc__sys_value_parse(const rtc_model_desc *md, const rtc_var *var, const char *text,
                         sys_value *out, char *why, size_t cap);
void rtc__sys_value_free(sys_value *v);

/* system_exchange.c: the value path (RT-safe) */
void rtc__sys_link_apply(rtc_system *sys, sys_link *l, int64_t q_ns, const void *src_override);
/* every link into unit u at query time q */
void rtc__sys_inputs_at(rtc_system *sys, sys_unit *u, int64_t q_ns);

/* Read unit u's observed outputs into its next half (into_nxt) or its current one (an I/O
 * unit's refresh, initialization). Inline: it runs for every unit-step. RT-safe. */
static inline int rtc__sys_fetch(rtc_system *sys, sys_unit *u, bool into_nxt)
{
    int h = u->cur ^ into_nxt;
    const tick_call *c = sys->calls + u->call0 + u->n_set, *end = c + u->n_get;
    for (; c < end; c++) {
        int rc = u->unit->ops->get(u->unit->self, (rtc_type)c->type, c->vr, c->n_vr, c->val[h],
                                   c->n_values);
        if (rc != RTC_OK)
            return rc;
        if (c->str) /* they point into the unit's memory until its next call */
            rtc_value_copy_indirect((rtc_type)c->type, c->val[h], c->val[h], c->n_values,
                                    u->obs[c->type].str[h], RTC_SYS_STR_CAP);
    }
    if (!into_nxt)
        u->nf_dirty = true; /* the current outputs changed */
    return RTC_OK;
}

/* Hand unit u its inputs, one set call per type. RT-safe. */
static inline int rtc__sys_set_inputs(rtc_system *sys, sys_unit *u)
{
    const tick_call *c = sys->calls + u->call0, *end = c + u->n_set;
    for (; c < end; c++) {
        int rc = u->unit->ops->set(u->unit->self, (rtc_type)c->type, c->vr, c->n_vr, c->val[0],
                                   c->n_values);
        if (rc != RTC_OK)
            return rc;
    }
    return RTC_OK;
}

/* system_params.c: the file's parameter bindings and the command line's --set values,
 * checked and queued for initialization (each problem logged; errors counted by the
 * caller) */
struct rtc_ssp;
int rtc__sys_add_params(rtc_system *sys, const struct rtc_ssp *ssp);
int rtc__sys_add_set(rtc_system *sys, const char *assign);

/* system_link.c: build and check the link of one SSP connection between two units */
struct rtc_ssp;
struct rtc_ssp_connection;
/* A type whose values convert to double and back (numbers, Boolean, enumeration). */
bool rtc__sys_is_numeric(rtc_type t);
int rtc__sys_add_link(rtc_system *sys, const struct rtc_ssp *ssp,
                      const struct rtc_ssp_connection *c, size_t src, size_t dst);
/* A unit's SI definition, from the SSP file first, then from the FMU; false if unknown. */
bool rtc__sys_unit_base(const struct rtc_ssp *ssp, const rtc_model_desc *md, const char *name,
                        rtc_base_unit *out);
bool rtc__sys_same_dimension(const rtc_base_unit *a, const rtc_base_unit *b);

/* nonfinite.c: size the system's tracker (init); record unit i's non-finite current
 * outputs; the scan checks every unit whose current outputs changed (nf_dirty) */
int rtc__sys_nonfinite_init(rtc_system *sys);
void rtc__sys_nonfinite_record(rtc_system *sys, size_t i);
void rtc__sys_nonfinite_scan(rtc_system *sys);

/* Check unit u's current Float64 and Float32 outputs once they changed: one isfinite() per
 * value, the recording only when one is not. Inline: it runs for every unit-step. RT-safe. */
static inline void rtc__sys_nonfinite_check(rtc_system *sys, sys_unit *u)
{
    u->nf_dirty = false;
    const tick_call *c = sys->calls + u->call0 + u->n_set, *end = c + u->n_get;
    bool finite = true;
    for (; c < end && finite; c++) {
        const void *v = c->val[u->cur];
        for (size_t i = 0; c->type == RTC_TYPE_FLOAT64 && finite && i < c->n_values; i++)
            finite = isfinite(((const double *)v)[i]);
        for (size_t i = 0; c->type == RTC_TYPE_FLOAT32 && finite && i < c->n_values; i++)
            finite = isfinite(((const float *)v)[i]);
    }
    if (!finite) {
        sys->nonfinite_hits++;
        rtc__sys_nonfinite_record(sys, (size_t)(u - sys->units));
    }
}

/* system_graph.c: Gauss-Seidel order and algebraic-loop detection (logged). Returns the
 * number of algebraic loops found. */
int rtc__sys_order(rtc_system *sys, bool report_loops);
unsigned rtc__sys_find_loops(rtc_system *sys, int level);

#endif
