/*
 * ssp_priv.h — internals of the SSP loader shared by its files:
 *   ssp.c          entry point, packages, root element, DefaultExperiment, free, lookups
 *   ssp_common.c   helpers (namespaces, lists, URIs), Units, Enumerations, type choice,
 *                  transformations (shared by the .ssd, .ssv and .ssm readers)
 *   ssp_system.c   System, Elements, Component, Connectors, Connections
 *   ssp_dict.c     signal dictionaries (.ssb or inline) and references to them
 *   ssp_flatten.c  chaining connections through subsystem connectors and dictionaries
 *   ssp_param.c    ParameterBindings, .ssv parameter sets, .ssm mappings, precedence
 *   ssp_annot.c    Annotations: ours (org.rtcosim.realtime) and the foreign step sizes
 */
#ifndef RTC_SSP_PRIV_H
#define RTC_SSP_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/ssp.h"
#include "xml_util.h"

#define RTC_SSP_NS_SSD "http://ssp-standard.org/SSP1/SystemStructureDescription"
#define RTC_SSP_NS_SSC "http://ssp-standard.org/SSP1/SystemStructureCommon"
#define RTC_SSP_NS_SSV "http://ssp-standard.org/SSP1/SystemStructureParameterValues"
#define RTC_SSP_NS_SSM "http://ssp-standard.org/SSP1/SystemStructureParameterMapping"
#define RTC_SSP_NS_SSB "http://ssp-standard.org/SSP1/SystemStructureSignalDictionary"
#define RTC_SSP_NS_RTC "urn:rtcosim:realtime:1"
#define RTC_SSP_ANNOT_RTC "org.rtcosim.realtime"
#define RTC_SSP_FMU_TYPE "application/x-fmu-sharedlibrary"

/** An element that a system contains, by its local name. */
typedef struct rtc__ssp_child {
    char *name;
    long comp; /**< index in rtc_ssp.components, or -1 */
    long sys;  /**< index in the load's systems, or -1 */
    unsigned line;
} rtc__ssp_child;

/** A system as read (the top-level one and every subsystem); flattened away later. */
typedef struct rtc__ssp_sys {
    char *path;   /**< dotted path; "" for the top-level system */
    char *name;   /**< as written */
    unsigned depth;
    long parent;  /**< enclosing system, -1 for the top-level one */
    /** A signal dictionary, modelled as a junction whose connectors are its entries
     *  (ssp_dict.c); parent is the system that defines it. */
    bool is_dict;
    size_t n_connectors;
    rtc_ssp_connector *connectors; /**< the top-level system's are moved to the root */
    size_t n_children, cap_children;
    rtc__ssp_child *children;
} rtc__ssp_sys;

/** A node of the connection graph: a component connector or a system connector. */
typedef struct rtc__ssp_node {
    bool is_sys;
    long owner; /**< component index, or system index with is_sys */
    long conn;  /**< connector index */
} rtc__ssp_node;

/** One ssd:Connection as written, with its ends resolved to graph nodes. */
typedef struct rtc__ssp_edge {
    long sys;
    rtc__ssp_node from, to;
    bool suppress;
    rtc_ssp_transform tr;
    rtc_ssp_link_settings set;
    unsigned line;
} rtc__ssp_edge;

/** A candidate base step of a foreign annotation. */
typedef struct rtc__ssp_step {
    bool has;
    int64_t ns;
    unsigned line;
} rtc__ssp_step;

/** Indices of the foreign step candidates. */
enum { RTC__SSP_OSP = 0, RTC__SSP_OMS, RTC__SSP_MCX, RTC__SSP_N_FOREIGN };

/** Where an Annotations element sits: decides which annotation contents apply. */
typedef enum {
    RTC__SSP_AT_ROOT = 0,
    RTC__SSP_AT_TOP_SYSTEM,
    RTC__SSP_AT_SUBSYSTEM,
    RTC__SSP_AT_EXPERIMENT,
    RTC__SSP_AT_COMPONENT,
    RTC__SSP_AT_CONNECTION,
    RTC__SSP_AT_OTHER,
} rtc__ssp_at;

/** State of one rtc_ssp_load() call. */
typedef struct rtc__ssp_load {
    rtc_ssp *ssp;
    const rtc_logger *user_lg;
    rtc_logger lg;     /**< counting and path-rewriting wrapper around user_lg */
    unsigned n_errors; /**< error lines so far (all files) */
    int first_rc;      /**< status of the first error */
    rtc__xml_ctx x;    /**< diagnostics of the .ssd */
    char *ssd_dir;     /**< absolute directory of the .ssd (base of relative URIs) */
    const char *base_dir; /**< rtc_ssp_load_from(): base of relative URIs instead, or NULL */
    size_t cap_components, cap_units, cap_enums, cap_params;
    size_t n_systems, cap_systems;
    rtc__ssp_sys *systems;
    size_t n_edges, cap_edges;
    rtc__ssp_edge *edges;
    size_t cap_connections;
    rtc__ssp_step foreign[RTC__SSP_N_FOREIGN];
} rtc__ssp_load;

/* ---- ssp.c ---- */

/** Time attribute in decimal seconds, exact (logs "<Element> <attr>: reason").
 *  RTC_OK with *has false when absent; RTC_EPARSE; RTC_ETIME (finer than 1 ns). */
int rtc__ssp_attr_time(rtc__xml_ctx *x, const xmlNode *n, const char *attr, int64_t *ns,
                       bool *has);

/* ---- ssp_common.c ---- */

/** Record a failure status (the first one is returned by rtc_ssp_load). */
void rtc__ssp_fail(rtc__ssp_load *L, int rc);
/** Make room for one more element in *arr (capacity *cap, count n). RTC_OK/RTC_ENOMEM. */
int rtc__ssp_grow(void **arr, size_t *cap, size_t n, size_t elem);
/** strdup that tolerates NULL (*out = NULL). RTC_OK or RTC_ENOMEM. */
int rtc__ssp_dup(const char *s, char **out);
/** True if @p n is an element named @p local in namespace @p ns. */
bool rtc__ssp_is(const xmlNode *n, const char *ns, const char *local);
/** True if @p n is in one of the SSP namespaces (ssd, ssc, ssv, ssm, ssb). */
bool rtc__ssp_in_ssp_ns(const xmlNode *n);
/** Warn about a child element that is not understood, unless it is geometry, MetaData or
 *  Signature (understood and ignored). */
void rtc__ssp_unknown(rtc__xml_ctx *x, const xmlNode *n);
/** Element name with its prefix for messages ("ssd:Component"). Static buffer-free: uses
 *  the element's own prefix. Writes into @p buf. */
const char *rtc__ssp_qname(const xmlNode *n, char *buf, size_t cap);
/**
 * Resolve URI @p uri against directory @p base_dir into an absolute normalized path
 * (*out, malloc'd). Accepts relative references and file: URIs; with @p jail (the package
 * directory) the result must stay inside it. Logs "<Element> <attr>: reason" on error.
 * Returns RTC_OK, RTC_EPARSE, RTC_EUNSUPPORTED, RTC_EUNSAFE, RTC_ENOMEM.
 */
int rtc__ssp_resolve(rtc__xml_ctx *x, const xmlNode *n, const char *attr, const char *uri,
                     const char *base_dir, const char *jail, char **out);
/** Path @p path as shown to the user (package paths as "PACKAGE/ENTRY"); malloc'd. */
int rtc__ssp_display(const rtc__ssp_load *L, const char *path, char **out);
/** Directory part of absolute path @p path (malloc'd), or NULL (ENOMEM). */
char *rtc__ssp_dirname(const char *path);
/** Absolute normalized form of @p path (relative to the working directory). */
char *rtc__ssp_abspath(const char *path);
/** ssc:Units / ssv:Units: append unit definitions to the root (duplicates: same
 *  definition is fine, a different one is an error). */
int rtc__ssp_read_units(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *n);
/** ssd:Enumerations / ssv:Enumerations. */
int rtc__ssp_read_enums(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *n);
/**
 * If @p n is a type element of ssc:GTypeChoice (in namespace @p ns: ssc for connectors,
 * ssv for parameter values), set *type and return true.
 */
bool rtc__ssp_type_of(const xmlNode *n, const char *ns, rtc_type *type);
/**
 * If @p n is a ssc transformation element, read it into @p tr (logging errors) and
 * return true; *rc receives the status.
 */
bool rtc__ssp_read_transform(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *n,
                             rtc_ssp_transform *tr, int *rc);
/** Release what @p tr owns. */
void rtc__ssp_transform_clear(rtc_ssp_transform *tr);
/** Release what a connector owns. */
void rtc__ssp_connector_clear(rtc_ssp_connector *c);
/** Release an array of settings. */
void rtc__ssp_settings_free(rtc_ssp_setting *s, size_t n);

/* ---- ssp_system.c ---- */

/** Append a system (or a dictionary junction) below @p parent (-1: the top-level one);
 *  *out receives its index. RTC_OK or RTC_ENOMEM. */
int rtc__ssp_add_system(rtc__ssp_load *L, long parent, const char *name, long *out);

/** Read the top-level ssd:System (and everything below it). */
int rtc__ssp_read_top_system(rtc__ssp_load *L, const xmlNode *n);
/** Read one ssd:Connector into @p c (connector of a component or system). */
int rtc__ssp_read_connector(rtc__ssp_load *L, const xmlNode *n, rtc_ssp_connector *c);
/** Release the load's systems and edges. */
void rtc__ssp_systems_free(rtc__ssp_load *L);

/* ---- ssp_dict.c ---- */

/** ssd:SignalDictionaries of system @p sys (read before its elements, which refer to them). */
int rtc__ssp_read_dictionaries(rtc__ssp_load *L, const xmlNode *n, long sys);
/** ssd:SignalDictionaryReference in system @p sys: *dict receives the junction index of
 *  the dictionary it names (looked up in @p sys, then in the enclosing systems). */
int rtc__ssp_read_dict_ref(rtc__ssp_load *L, const xmlNode *n, long sys, long *dict);

/* ---- ssp_flatten.c ---- */

/** Chain the edges into rtc_ssp.connections. */
int rtc__ssp_flatten(rtc__ssp_load *L);

/* ---- ssp_param.c ---- */

/** Attributes of the root element of .ssm and .ssb content (version and metadata). */
extern const char *const rtc__ssp_file_attrs[];
/** Reader of one referenced file's root element (.ssv, .ssm, .ssb). */
typedef int (*rtc__ssp_root_reader)(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *root,
                                    void *arg);
/**
 * Read the file named by the source attribute of @p n (relative to the .ssd, or with
 * sourceBase="component" to component @p comp's source), check that its root element is
 * @p root in namespace @p ns, and hand it to @p fn. Problems are reported at @p n.
 */
int rtc__ssp_read_source_file(rtc__ssp_load *L, const xmlNode *n, long comp, const char *ns,
                              const char *root, rtc__ssp_root_reader fn, void *arg);

/**
 * Read an ssd:ParameterBindings element of a component (@p comp ≥ 0) or of system
 * @p sys (comp == -1) at hierarchy depth @p level, and merge the values into the root
 * with the precedence rules.
 */
int rtc__ssp_read_bindings(rtc__ssp_load *L, const xmlNode *n, long comp, long sys,
                           unsigned level);
/** Release one parameter. */
void rtc__ssp_param_clear(rtc_ssp_param *p);

/** One parameter value being applied. */
typedef struct rtc__ssp_value {
    const char *name;
    rtc_type type;
    char *text; /**< owned */
    const char *unit, *mime;
    bool suppress;
    const char *file; /**< display path */
    unsigned line;
    const xmlNode *node; /**< the ssv:Parameter, for diagnostics */
} rtc__ssp_value;

/** Store @p v (its text is taken over) for (comp, name) unless a value from a higher
 *  hierarchy level is already there. */
int rtc__ssp_merge(rtc__ssp_load *L, const char *comp, bool is_sys, const char *name,
                   unsigned level, rtc__ssp_value *v);
/** Apply a transformation to @p v; the kinds must fit the value type (else reported). */
int rtc__ssp_transform_value(rtc__xml_ctx *x, const rtc_ssp_transform *tr, rtc__ssp_value *v);

/* ---- ssp_propagate.c ---- */

/** After flattening: let every value bound to a system connector flow along the
 *  connections into the component connectors it feeds (rtc_ssp_param.n_targets). */
int rtc__ssp_propagate_params(rtc__ssp_load *L);

/* ---- ssp_annot.c ---- */

/**
 * Read an ssd:Annotations element found at @p at. @p comp / @p set receive the component
 * step and settings or the connection settings when @p at says so (else NULL).
 */
int rtc__ssp_read_annotations(rtc__ssp_load *L, const xmlNode *n, rtc__ssp_at at,
                              rtc_ssp_component *comp, rtc_ssp_link_settings *set);
/** After the whole file: choose the base step (ours, else the first foreign one). */
void rtc__ssp_finish_realtime(rtc__ssp_load *L);
/** Release what the realtime settings own. */
void rtc__ssp_realtime_clear(rtc_ssp_realtime *rt);

#endif
