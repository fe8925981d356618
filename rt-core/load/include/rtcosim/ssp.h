/*
 * rtcosim/ssp.h — the SSP loader: System Structure and Parameterization 1.0 / 2.0
 * (Modelica Association) read into one plain, fully resolved and flattened description.
 *
 * Input: an .ssd file, an .ssp package (zip with SystemStructure.ssd and resources/), or a
 * directory holding an unpacked package. Output: an rtc_ssp that the system builder turns
 * into units and links without touching XML:
 *   - every component of every nested system, named by its dotted path ("sub.plant"; the
 *     top-level system's own name is not part of the path), its FMU source resolved to an
 *     absolute file path, its connectors, and its own step size;
 *   - connections between two component connectors only: connections that pass through the
 *     connectors of subsystems (and of the top-level system) are chained into one
 *     end-to-end connection, with their transformations composed;
 *   - the final value of every bound parameter after the standard's precedence rules;
 *   - units, enumerations, the default experiment as exact integer nanoseconds, and the
 *     real-time settings of the org.rtcosim.realtime annotation (or, when it is absent,
 *     the step size annotation of libcosim, OMSimulator or OpenMCx).
 *
 * Diagnostics: every problem is one line "FILE:LINE: <Element> <attribute>: reason" to the
 * caller's logger. Anything the loader does not understand (an unknown element or attribute
 * in the SSP namespaces, an unknown annotation type) is one warning, never silence. Errors
 * are collected (several per file) and the load fails once, at the end.
 *
 * Ownership: every string and array belongs to the rtc_ssp root; rtc_ssp_free() releases
 * all of it, and removes the package's extraction directory.
 *
 * ---------------------------------------------------------------------------------------
 * The org.rtcosim.realtime annotation (schema; also in configs/README.md)
 * ---------------------------------------------------------------------------------------
 * Namespace "urn:rtcosim:realtime:1" (prefix rtc below), inside
 * <ssc:Annotation type="org.rtcosim.realtime">. Times are decimal seconds, converted
 * exactly to nanoseconds (a value finer than 1 ns is an error, never rounded).
 *
 *   On the top-level ssd:System or on ssd:DefaultExperiment (one of them):
 *     <rtc:RealTime baseStep="0.001"          communication step of every unit without
 *                                               its own step
 *                   algorithm="jacobi"          jacobi | gauss-seidel | parallel-fast
 *                   syncStep="0.002"            Parallel Fast synchronization step H
 *                   rtf="1"                     real-time factor (simulated s per wall s);
 *                                               0 = as fast as possible
 *                   priority="80"               SCHED_FIFO priority of the RT thread, 1..99
 *                   cpu="1"                     CPU the RT thread is pinned to
 *                   overrun="catch-up"          catch-up | skip | substitute | stop
 *                   maxOverruns="3"             consecutive overruns tolerated
 *                   estimator="zoh"             default estimator of every connection
 *                   decimation="1"              record every n-th base tick
 *                   record="a.x b.y"            recorded signals (component.variable),
 *                                               white-space separated; absent = outputs
 *                   expose="a.u b.k:rate=0.5"   variables an operator may set in a
 *                                               real-time session (white-space separated
 *                                               component.variable, each with optional
 *                                               ":min=X", ":max=X" (narrow the declared
 *                                               range; values beyond are clamped),
 *                                               ":rate=R" (at most R units per simulated
 *                                               second) and ":safe=X" (dead-man value))
 *                   deadman="0.5"/>             dead-man time: when the control surface
 *                                               is silent this long, exposed variables
 *                                               with a safe value fall back to it
 *     Child elements of rtc:RealTime are kept as opaque settings (for I/O drivers).
 *
 *   In a ssd:Component's Annotations:
 *     <rtc:Component stepSize="0.002" .../>    the component's own communication step;
 *                                               every other attribute and child element is
 *                                               kept as an opaque setting (I/O settings)
 *
 *   In a ssd:Connection's Annotations:
 *     <rtc:Connection estimator="kalman-cv"     estimator method of this connection
 *                     params="q=50 r=1e-4"      its key=value parameters (kept as text)
 *                     breakLoop="true"          break an algebraic loop at this connection
 *                     delay="0.005"/>           transport delay: the consumer sees values
 *                                               this much later (models a network or bench
 *                                               link; the estimator compensates it)
 *
 * Without our annotation, the loader reads (and reports in step_source):
 *   libcosim     <ssc:Annotation type="com.opensimulationplatform"> <osp:Algorithm>
 *                <osp:FixedStepAlgorithm baseStepSize="1e-4"/>, per component
 *                <osp:StepSizeHint value="..."/>;
 *   OMSimulator  <ssc:Annotation type="org.openmodelica"> [<oms:Annotations>]
 *                <oms:SimulationInformation> <oms:FixedStepMaster stepSize="..."/>;
 *   OpenMCx      <ssc:Annotation type="com.avl.model.connect.ssp.task">
 *                <mc:Task deltaTime="..."/>.
 * When several are present the first in this list wins.
 */
#ifndef RTCOSIM_SSP_H
#define RTCOSIM_SSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/log.h"
#include "rtcosim/model.h"
#include "rtcosim/rtsafe.h"

/** Kind of a connector (SSP 1.0 set, then the SSP 2.0 additions). Order indexes tables. */
typedef enum {
    RTC_SSP_KIND_INPUT = 0,
    RTC_SSP_KIND_OUTPUT,
    RTC_SSP_KIND_PARAMETER,
    RTC_SSP_KIND_CALCULATED_PARAMETER,
    RTC_SSP_KIND_INOUT,
    RTC_SSP_KIND_STRUCTURAL_PARAMETER, /**< 2.0 */
    RTC_SSP_KIND_CONSTANT,             /**< 2.0 */
    RTC_SSP_KIND_LOCAL,                /**< 2.0 */
    RTC_SSP_KIND_UNSPECIFIED,          /**< 2.0 */
} rtc_ssp_kind;

/** One ssd:Connector of a component or of the top-level system. */
typedef struct rtc_ssp_connector {
    char *name;
    rtc_ssp_kind kind;
    /** False when the connector has no type element (allowed: the type then comes from
     *  the FMU variable). */
    bool has_type;
    /** ssc:Real → FLOAT64, Integer → INT32, Boolean → BOOL, String, Enumeration → ENUM,
     *  Binary; SSP 2.0 Float64, Float32, Int8..UInt64, Clock map one to one. */
    rtc_type type;
    char *unit;        /**< Real/Float64/Float32 unit attribute, or NULL */
    char *enumeration; /**< Enumeration: the name of the ssc:Enumeration, else NULL */
    char *mime_type;   /**< Binary: mime-type (default application/octet-stream), else NULL */
    /** SSP 2.0 array connector: one entry per ssc:Dimension (none: a scalar connector);
     *  0 where the size is not fixed in the SSD (sizeConnector, or neither attribute) and
     *  comes from the component. Elements are connected one by one, row-major. */
    size_t n_dims;
    uint64_t *dims;
    unsigned line;     /**< line of the ssd:Connector element */
} rtc_ssp_connector;

/**
 * One opaque setting: an attribute of one of our annotation elements that the loader does
 * not interpret itself (I/O settings read by drivers later). @c element is "" for the
 * annotation element's own attributes, else the local name of the child element; @c group
 * numbers the child elements (0 for the element itself, 1.. for its children in order), so
 * repeated children (e.g. several registers) stay apart.
 */
typedef struct rtc_ssp_setting {
    char *element;
    unsigned group;
    char *key;
    char *value;
    unsigned line;
} rtc_ssp_setting;

/** Which annotation a step size came from. */
typedef enum {
    RTC_SSP_STEP_NONE = 0,   /**< no step size given */
    RTC_SSP_STEP_RTCOSIM,    /**< org.rtcosim.realtime (ours) */
    RTC_SSP_STEP_LIBCOSIM,   /**< com.opensimulationplatform */
    RTC_SSP_STEP_OMSIMULATOR,/**< org.openmodelica */
    RTC_SSP_STEP_OPENMCX,    /**< com.avl.model.connect.ssp.task */
} rtc_ssp_step_source;

/** The implementation attribute of ssd:Component. */
typedef enum {
    RTC_SSP_IMPL_ANY = 0,
    RTC_SSP_IMPL_MODEL_EXCHANGE,
    RTC_SSP_IMPL_CO_SIMULATION,
    RTC_SSP_IMPL_SCHEDULED_EXECUTION, /**< 2.0 */
} rtc_ssp_impl;

/** One component (of any nesting depth). */
typedef struct rtc_ssp_component {
    char *name;       /**< dotted path below the top-level system, e.g. "sub.plant" */
    char *type;       /**< MIME type; default "application/x-fmu-sharedlibrary" */
    char *source_uri; /**< the source attribute as written, or NULL when absent (2.0) */
    /** Absolute, lexically normalized file path of the source (inside the extraction
     *  directory for a package), or NULL when the component has no source. */
    char *source;
    rtc_ssp_impl implementation;
    size_t n_connectors;
    rtc_ssp_connector *connectors;
    /** Own communication step (rtc:Component stepSize, else osp:StepSizeHint). */
    bool has_step;
    int64_t step_ns;
    rtc_ssp_step_source step_source;
    size_t n_settings; /**< opaque settings of rtc:Component */
    rtc_ssp_setting *settings;
    /** The node it runs on in a distributed run (rtc:Component node="B"), or NULL; the
     *  placement is resolved by rt-core/assemble (rtcosim/placement.h). */
    char *node;
    unsigned node_line; /**< line of the rtc:Component that placed it (0: none) */
    unsigned depth; /**< 1 for a component of the top-level system, 2 one level down, ... */
    unsigned line;  /**< line of the ssd:Component element in the .ssd */
} rtc_ssp_component;

/** Transformation of a connection or parameter mapping (ssc:GTransformationChoice). */
typedef enum {
    RTC_SSP_TRANSFORM_NONE = 0,
    RTC_SSP_TRANSFORM_LINEAR,      /**< target = factor * source + offset */
    RTC_SSP_TRANSFORM_BOOLEAN_MAP, /**< MapEntry source/target booleans */
    RTC_SSP_TRANSFORM_INTEGER_MAP, /**< MapEntry source/target integers */
    RTC_SSP_TRANSFORM_ENUM_MAP,    /**< MapEntry source/target enumeration item names */
} rtc_ssp_transform_kind;

/** One MapEntry. Booleans are 0/1 in source/target; enumeration maps use the names. */
typedef struct rtc_ssp_map_entry {
    int64_t source, target;
    char *source_name, *target_name; /**< ENUM_MAP only, else NULL */
} rtc_ssp_map_entry;

typedef struct rtc_ssp_transform {
    rtc_ssp_transform_kind kind;
    double factor, offset; /**< LINEAR (1 and 0 otherwise) */
    size_t n_entries;      /**< *_MAP */
    rtc_ssp_map_entry *entries;
    unsigned line;         /**< line of the transformation element (0 for NONE) */
} rtc_ssp_transform;

/**
 * One end of a flattened connection: a connector of a component, or (component == -1)
 * a connector of the top-level system itself (an end nothing outside is connected to).
 */
typedef struct rtc_ssp_endpoint {
    long component;  /**< index in rtc_ssp.components, or -1 for the top-level system */
    long connector;  /**< index in that component's connectors (or rtc_ssp.connectors) */
    char *element;   /**< dotted component name, NULL for the top-level system */
    char *name;      /**< connector name */
} rtc_ssp_endpoint;

/** Our per-connection settings (rtc:Connection). */
typedef struct rtc_ssp_link_settings {
    bool present;
    char *estimator; /**< method name, e.g. "kalman-cv", or NULL */
    char *params;    /**< "key=value ..." as written (the estimation library parses it) */
    bool break_loop;
    bool has_delay;
    int64_t delay_ns; /**< transport delay: the consumer sees the source's values this late */
    unsigned line;
} rtc_ssp_link_settings;

/**
 * One connection after flattening. @c start is where the data comes from and @c end where
 * it goes: SSP's startElement/endElement do not denote the data flow, so each connection is
 * oriented by the kinds of its connectors (output → input, calculatedParameter →
 * parameter; a system's own input feeds its inside). When the kinds do not tell (inout,
 * unspecified, two outputs), the file's order is kept and the builder reports the clash.
 */
typedef struct rtc_ssp_connection {
    rtc_ssp_endpoint start, end;
    /** True when any connection of the chain suppresses unit conversion. */
    bool suppress_unit_conversion;
    rtc_ssp_transform transform; /**< composed along the chain */
    rtc_ssp_link_settings settings;
    /** Subsystem connectors the chain passes through, "sub.u sub.inner.u", or NULL for a
     *  direct connection. */
    char *via;
    char *file;    /**< file shown in diagnostics (the .ssd) */
    unsigned line; /**< line of the ssd:Connection that reaches the end connector */
} rtc_ssp_connection;

/** A unit definition (ssc:Unit): SI exponents and value_SI = factor * value + offset. */
typedef struct rtc_ssp_unit {
    char *name;
    rtc_base_unit base;
    unsigned line;
} rtc_ssp_unit;

/** An enumeration definition (ssc:Enumeration). */
typedef struct rtc_ssp_enum {
    char *name;
    size_t n_items;
    rtc_enum_item *items; /**< description is always NULL */
    unsigned line;
} rtc_ssp_enum;

/**
 * One parameter value after precedence: for each (component, name) only the value that
 * wins is kept ("later bindings override earlier ones at the same level; a higher
 * hierarchy level overrides a lower one"). Names are not checked against the FMU here.
 */
typedef struct rtc_ssp_param {
    /** Dotted name of the component; with is_system, the dotted path of the subsystem
     *  ("" for the top-level system) whose connector @c name is addressed. */
    char *component;
    bool is_system;
    char *name;      /**< variable (or system connector) name, after mapping and prefix */
    rtc_type type;   /**< from the ssv element: Real → FLOAT64, Integer → INT32, ... */
    char *value;     /**< value text after any mapping transformation ("%.17g" for reals) */
    char *unit;      /**< or NULL */
    char *mime_type; /**< Binary values: the mime-type, else NULL */
    /** An .ssm MappingEntry asked not to convert units (value is in the target unit). */
    bool suppress_unit_conversion;
    char *file;      /**< the .ssv (or .ssd for inline values) file, as displayed */
    unsigned line;   /**< line of the ssv:Parameter element */
    unsigned level;  /**< depth of the binding's element: 0 = the top-level system */
    /** is_system only: number of component connectors the value reached by flowing
     *  along the connections (each got its own entry at the same level); 0 when the
     *  connector feeds nothing. */
    unsigned n_targets;
} rtc_ssp_param;

/** Overrun policy of the real-time loop. */
typedef enum {
    RTC_SSP_OVERRUN_CATCH_UP = 0,
    RTC_SSP_OVERRUN_SKIP,
    RTC_SSP_OVERRUN_SUBSTITUTE,
    RTC_SSP_OVERRUN_STOP,
} rtc_ssp_overrun;

/** Settings of the org.rtcosim.realtime annotation; each has_* says it was given. */
typedef struct rtc_ssp_realtime {
    bool present;      /**< rtc:RealTime was found */
    unsigned line;     /**< its line */
    /** Base step: from rtc:RealTime baseStep, else the first foreign annotation found. */
    bool has_base_step;
    int64_t base_step_ns;
    rtc_ssp_step_source step_source;
    unsigned step_line; /**< line of the element the base step came from */
    /** Master algorithm as written, or NULL. The masters belong to the system layer: the
     *  system builder checks the name (rtc_master_parse() of rtcosim/system.h) and reports
     *  an unknown one at this element's line. */
    char *algorithm;
    bool has_sync_step;
    int64_t sync_step_ns;
    bool has_rtf;
    double rtf;        /**< ≥ 0; 0 = as fast as possible */
    bool has_priority;
    int priority;      /**< 1..99 */
    bool has_cpu;
    int cpu;           /**< ≥ 0 */
    bool has_overrun;
    rtc_ssp_overrun overrun;
    bool has_max_overruns;
    uint32_t max_overruns;
    char *estimator;   /**< default estimator text, or NULL */
    bool has_decimation;
    uint32_t decimation; /**< ≥ 1 */
    size_t n_record;   /**< recording selection ("component.variable" each) */
    char **record;
    size_t n_expose;   /**< operator-settable variables ("component.variable[:k=v]...") */
    char **expose;
    bool has_deadman;
    int64_t deadman_ns; /**< dead-man time of the operator control surface */
    size_t n_settings; /**< opaque child elements of rtc:RealTime */
    rtc_ssp_setting *settings;
} rtc_ssp_realtime;

/** The loaded description (root of everything). */
typedef struct rtc_ssp {
    char *path;        /**< the path given to rtc_ssp_load */
    char *ssd_path;    /**< the .ssd actually read (inside the extraction dir for .ssp) */
    /** The .ssd as diagnostics should name it: ssd_path, or "PACKAGE.ssp/SystemStructure.ssd"
     *  for a package (the extraction directory means nothing to the user). */
    char *display_path;
    char *extract_dir; /**< .ssp: private temporary directory, removed by rtc_ssp_free */
    char *version;     /**< "1.0" or "2.0" */
    char *name;        /**< SystemStructureDescription name */
    char *system_name; /**< name of the top-level ssd:System */
    bool has_start, has_stop;
    int64_t start_ns, stop_ns; /**< DefaultExperiment, exact */
    size_t n_connectors;       /**< connectors of the top-level system */
    rtc_ssp_connector *connectors;
    size_t n_components;
    rtc_ssp_component *components;
    size_t n_connections;
    rtc_ssp_connection *connections;
    size_t n_units;
    rtc_ssp_unit *units;
    size_t n_enums;
    rtc_ssp_enum *enums;
    size_t n_params;
    rtc_ssp_param *params;
    rtc_ssp_realtime realtime;
    unsigned warnings; /**< warning lines logged while loading */
} rtc_ssp;

/**
 * Load an SSP description.
 *
 * @param path  an .ssd file, an .ssp package (recognised by its zip signature), or a
 *              directory containing SystemStructure.ssd.
 * @param lg    receives every diagnostic, one line each ("FILE:LINE: ..."); may be NULL.
 * @param out   set to the new description on success, NULL on failure.
 * Returns: RTC_OK; RTC_EINVAL (NULL path/out); RTC_EIO (unreadable file, bad archive);
 * RTC_ENOTFOUND (package without SystemStructure.ssd); RTC_EUNSUPPORTED (SSP version other
 * than 1.0/2.0); RTC_EPARSE (malformed XML or invalid content: see the log); RTC_ETIME
 * (a time finer than 1 ns); RTC_EUNSAFE / RTC_ELIMIT (archive refused); RTC_ENOMEM.
 * Errors: when several problems are found, the status of the first one is returned and
 * every one was logged. Nothing is left behind on failure (temporary files removed).
 * RT-safe: no (parses, allocates, extracts). Thread: any; no shared state.
 */
int rtc_ssp_load(const char *path, const rtc_logger *lg, rtc_ssp **out);

/**
 * As rtc_ssp_load(), but relative URIs of an .ssd (FMU sources, parameter files) resolve
 * against @p base_dir instead of the file's own directory (NULL: the file's); packages
 * (.ssp) are unaffected. Used to load the copy of a system kept in a session directory.
 * Returns as rtc_ssp_load(). RT-safe: no.
 */
int rtc_ssp_load_from(const char *path, const char *base_dir, const rtc_logger *lg,
                      rtc_ssp **out);

/** Free @p ssp and everything it owns; remove its extraction directory. NULL is a no-op,
 *  and a partially built object is fine. RT-safe: no. */
void rtc_ssp_free(rtc_ssp *ssp);

/** Component with dotted name @p name, or NULL. Linear scan. RT-safe: yes. */
RTC_RT_SAFE const rtc_ssp_component *rtc_ssp_find_component(const rtc_ssp *ssp, const char *name);

/** Index of the connector named @p name in @p c, or -1. RT-safe: yes. */
RTC_RT_SAFE long rtc_ssp_find_connector(const rtc_ssp_component *c, const char *name);

/** Unit definition named @p name, or NULL. RT-safe: yes. */
RTC_RT_SAFE const rtc_ssp_unit *rtc_ssp_find_unit(const rtc_ssp *ssp, const char *name);

/** Final value of parameter @p name of component @p component (not system connectors),
 *  or NULL. RT-safe: yes. */
RTC_RT_SAFE const rtc_ssp_param *rtc_ssp_find_param(const rtc_ssp *ssp, const char *component,
                                                    const char *name);

/** Texts for messages: "input", "calculatedParameter", ... (as in the standard).
 *  RT-safe: yes. */
RTC_RT_SAFE const char *rtc_ssp_kind_name(rtc_ssp_kind kind);
/** "none", "org.rtcosim.realtime", "com.opensimulationplatform", "org.openmodelica",
 *  "com.avl.model.connect.ssp.task". RT-safe: yes. */
RTC_RT_SAFE const char *rtc_ssp_step_source_name(rtc_ssp_step_source src);
/** "catch-up", "skip", "substitute", "stop". RT-safe: yes. */
RTC_RT_SAFE const char *rtc_ssp_overrun_name(rtc_ssp_overrun o);

/* Freeing the parts of a description that a program edits before building a system from
 * it (rt-core/assemble keeps a node's components and adds bridges, rtcosim/placement.h):
 * each frees what the element owns, not the element itself; a zeroed element is fine.
 * RT-safe: no. */
void rtc_ssp_component_clear(rtc_ssp_component *c);
void rtc_ssp_connection_clear(rtc_ssp_connection *c);
void rtc_ssp_param_clear(rtc_ssp_param *p);

/** Longest node name (rtc:Component node, --place, --node). */
#define RTC_SSP_NODE_NAME_MAX 40

/** NULL when @p name is a valid node name (1..RTC_SSP_NODE_NAME_MAX of letters, digits,
 *  '_' and '-': it is part of DDS topic names and command lines), else why not (a static
 *  text). RT-safe: yes. */
RTC_RT_SAFE const char *rtc_ssp_node_name_check(const char *name);

#endif
