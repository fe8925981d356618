/*
 * fmu-host internals of the modelDescription.xml reader: fmu_md.c (entry point, free,
 * element readers shared by both versions), fmu_md_var.c (typed values and the per-variable
 * rules), fmu_md_ref.c (references: ModelStructure, derivatives, dimensions, uniqueness),
 * fmu_md2.c (FMI 2.0 elements) and fmu_md3.c (FMI 3.0 elements).
 *
 * Reading happens in three stages: (1) one function per element fills rtc_model_desc and
 * records what can only be checked later (derivative references, dimension references) in
 * md_var_aux; (2) after ModelVariables, references are resolved against the whole variable
 * list (names, value references, indices); (3) ModelStructure is read with everything
 * resolvable. Element-level errors are counted and reading continues to the end of the
 * stage, so one run reports every independent mistake; resolution is skipped once errors
 * exist, because it would only report their consequences.
 */
#ifndef RTC_FMU_MD_PRIV_H
#define RTC_FMU_MD_PRIV_H

#include "rtcosim/fmu.h"
#include "rtcosim/model.h"
#include "xml_util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Per-variable facts needed after all variables are read. */
typedef struct md_var_aux {
    const xmlNode *node;  /* the variable element (ScalarVariable / Float64 / ...) */
    const xmlNode *tnode; /* the element holding the typed attributes (FMI 2: <Real> ...) */
    bool has_derivative;
    uint64_t derivative; /* FMI 2: 1-based index, FMI 3: value reference */
    bool initial_given;
    bool variability_given;
} md_var_aux;

/* Value reference → variable index, sorted by vr (FMI 3 lookups). */
typedef struct md_vr_ent {
    uint32_t vr;
    size_t idx;
} md_vr_ent;

typedef struct md_ctx {
    rtc__xml_ctx x;
    rtc_model_desc *md;
    int major; /* 2 or 3 */
    md_var_aux *aux;
    md_vr_ent *vr_map;
    size_t n_vr_map;
} md_ctx;

/* Stop on out-of-memory at once; keep going on parse errors (they are counted). */
#define MD_TRY(expr)                                                                               \
    do {                                                                                           \
        int md_try_rc_ = (expr);                                                                   \
        if (md_try_rc_ == RTC_ENOMEM)                                                              \
            return RTC_ENOMEM;                                                                     \
        if (md_try_rc_ != RTC_OK)                                                                  \
            rc = md_try_rc_;                                                                       \
    } while (0)

/* ---- fmu_md_var.c: typed values ---- */
bool rtc__md_is_float(rtc_type t);
bool rtc__md_is_signed(rtc_type t);
bool rtc__md_is_unsigned(rtc_type t);
/** Bits of an integer type (ENUM: 32 in FMI 2, 64 in FMI 3). */
unsigned rtc__md_bits(const md_ctx *c, rtc_type t);
/** Parse one token of type @p t (numbers, booleans). */
bool rtc__md_parse_value(const md_ctx *c, rtc_type t, const char *tok, rtc_value *out);
/** "a floating-point number", "an unsigned 8-bit integer", "a boolean" ... */
const char *rtc__md_type_what(const md_ctx *c, rtc_type t);
/** -1, 0, 1 comparing two values of numeric type @p t. */
int rtc__md_cmp(rtc_type t, const rtc_value *a, const rtc_value *b);
/** Next white-space separated token of *p into tok (over-long tokens are made invalid);
 *  false at the end. */
bool rtc__md_next_token(const char **p, char *tok, size_t cap);
/** Format a numeric value for messages. */
void rtc__md_fmt(rtc_type t, const rtc_value *v, char *buf, size_t cap);
/** One typed attribute (min, max) into *out. */
int rtc__md_attr_value(
    md_ctx *c, const xmlNode *n, const char *attr, rtc_type t, rtc_value *out, bool *has);
/** The space-separated start list of @p n's "start" attribute into v->start / v->n_start. */
int rtc__md_start_list(md_ctx *c, const xmlNode *n, rtc_var *v);
/** FMI 3 <Start value=".."/> children (String, Binary) into v->start. */
int rtc__md_start_children(md_ctx *c, const xmlNode *n, rtc_var *v);
/** Hex text ("0a1B...") into malloc'd bytes. */
int rtc__md_hex(md_ctx *c, const xmlNode *n, const char *attr, const char *s, rtc_binary *out);
/** min/max/nominal: min <= max and nominal > 0 (errors). */
int rtc__md_check_range(md_ctx *c,
                        const xmlNode *n,
                        rtc_type t,
                        bool has_min,
                        const rtc_value *min,
                        bool has_max,
                        const rtc_value *max);
/** declaredType lookup, inheritance, defaults, combination tables, start checks. */
int rtc__md_var_finish(md_ctx *c, size_t i);
/** Free one variable's owned memory. */
void rtc__md_var_clear(rtc_var *v);

/* ---- fmu_md.c: shared element readers ---- */
int rtc__md_units(md_ctx *c, const xmlNode *n);
int rtc__md_log_categories(md_ctx *c, const xmlNode *n);
int rtc__md_experiment(md_ctx *c, const xmlNode *n);
int rtc__md_enum_items(md_ctx *c, const xmlNode *n, rtc_type_def *td);
/** Common typed attributes of a variable's type element (declaredType, quantity, unit,
 *  displayUnit, min, max, nominal, start, derivative). */
int rtc__md_var_typed(md_ctx *c, size_t i, const xmlNode *tn);
/** Common variable attributes (name, valueReference, description, causality, ...). */
int rtc__md_var_common(md_ctx *c, size_t i, const xmlNode *n);
/* ---- fmu_md_ref.c ---- */
/** Index of the variable with value reference @p vr (FMI 3), or -1. */
long rtc__md_find_vr(const md_ctx *c, uint32_t vr);
/** One ModelStructure unknown: FMI 2 index / FMI 3 valueReference, dependencies,
 *  dependenciesKind, resolved to variable indices. */
int rtc__md_unknown(md_ctx *c, const xmlNode *n, rtc_unknown *u);

/* Table rows for rtc__md_strings / rtc__md_flags. */
typedef struct md_str_attr {
    const char *attr;
    char **dst;
    bool required;
} md_str_attr;
typedef struct md_flag {
    const char *attr;
    size_t off; /* offset of a bool in the target struct */
} md_flag;

/** Find the known child sections of @p root (names NULL-terminated, out[] zeroed by the
 *  caller); a section twice is an error, an unknown child a warning. */
int rtc__md_sections(md_ctx *c, const xmlNode *root, const char *const *names, const xmlNode **out);
/** Copy string attributes per table. */
int rtc__md_strings(md_ctx *c, const xmlNode *n, const md_str_attr *t, size_t count);
/** Read boolean attributes into the bools at base + off. */
int rtc__md_flags(md_ctx *c, const xmlNode *n, const md_flag *t, size_t count, void *base);
/** quantity, unit, displayUnit, nominal, min, max (and Items) of a type definition whose
 *  td->type is set. */
int rtc__md_type_attrs(md_ctx *c, const xmlNode *tn, rtc_type_def *td);
/** Error when type_defs[idx] repeats an earlier name. */
int rtc__md_type_unique(md_ctx *c, const xmlNode *n, size_t idx);
/** Read every @p child element of @p n as an unknown into a new array. */
int rtc__md_unknown_list(
    md_ctx *c, const xmlNode *n, const char *child, rtc_unknown **arr, size_t *count);
/** Allocate md->vars and c->aux for the elements of @p n accepted by @p is_var. */
int rtc__md_alloc_vars(md_ctx *c, const xmlNode *n, bool (*is_var)(const xmlNode *));

/* ---- fmu_md2.c / fmu_md3.c: per-version root readers ---- */
int rtc__md2_read(md_ctx *c, const xmlNode *root);
int rtc__md3_read(md_ctx *c, const xmlNode *root);

/* ---- fmu_md.c: stages shared by both versions ---- */
/** Sort the vr map, report duplicate names (and duplicate vrs in FMI 3). */
int rtc__md_index(md_ctx *c);
/** Resolve derivatives and dimensions, check start counts. */
int rtc__md_resolve(md_ctx *c);

#endif
