/*
 * modelDescription.xml reader: typed values of variables (start lists, min/max, Binary
 * hex), and the per-variable rules of the standard that need the whole variable: declared
 * type inheritance, the defaults of variability and initial, and the tables of allowed
 * causality / variability / initial combinations (FMI 2.0 section 2.2.7, FMI 3.0 section
 * 2.4.7.4; FMI 3 structural parameters follow the rules of parameters).
 */
#include "fmu_md_priv.h"

#include "rtcosim/numparse.h"
#include "rtcosim/status.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN_MAX 256

bool rtc__md_is_float(rtc_type t)
{
    return t == RTC_TYPE_FLOAT64 || t == RTC_TYPE_FLOAT32;
}

bool rtc__md_is_signed(rtc_type t)
{
    return t == RTC_TYPE_INT8 || t == RTC_TYPE_INT16 || t == RTC_TYPE_INT32 ||
           t == RTC_TYPE_INT64 || t == RTC_TYPE_ENUM;
}

bool rtc__md_is_unsigned(rtc_type t)
{
    return t == RTC_TYPE_UINT8 || t == RTC_TYPE_UINT16 || t == RTC_TYPE_UINT32 ||
           t == RTC_TYPE_UINT64;
}

/* Width of the integer types for range checks. */
unsigned rtc__md_bits(const md_ctx *c, rtc_type t)
{
    switch (t) {
    case RTC_TYPE_INT8:
    case RTC_TYPE_UINT8:
        return 8;
    case RTC_TYPE_INT16:
    case RTC_TYPE_UINT16:
        return 16;
    case RTC_TYPE_INT32:
    case RTC_TYPE_UINT32:
        return 32;
    case RTC_TYPE_ENUM:
        return c->major == 2 ? 32 : 64;
    default:
        return 64;
    }
}

/* One scalar token; the union member follows the type (see rtcosim/model.h). */
bool rtc__md_parse_value(const md_ctx *c, rtc_type t, const char *tok, rtc_value *out)
{
    double d;
    if (t == RTC_TYPE_FLOAT64)
        return rtc__xml_parse_f64(tok, &out->f64);
    if (t == RTC_TYPE_FLOAT32) {
        /* xs:float: parse as double, refuse what a float cannot hold. */
        if (!rtc__xml_parse_f64(tok, &d) || (isfinite(d) && fabs(d) > FLT_MAX))
            return false;
        out->f32 = (float)d;
        return true;
    }
    if (rtc__md_is_signed(t))
        return rtc__xml_parse_i64(tok, rtc__md_bits(c, t), &out->i64);
    if (rtc__md_is_unsigned(t))
        return rtc__xml_parse_u64(tok, rtc__md_bits(c, t), &out->u64);
    if (t == RTC_TYPE_BOOL)
        return rtc__xml_parse_bool(tok, &out->b);
    return false;
}

const char *rtc__md_type_what(const md_ctx *c, rtc_type t)
{
    if (rtc__md_is_float(t))
        return t == RTC_TYPE_FLOAT32 ? "a 32-bit floating-point number" : "a floating-point number";
    if (rtc__md_is_signed(t))
        return rtc__xml_int_what(true, rtc__md_bits(c, t));
    if (rtc__md_is_unsigned(t))
        return rtc__xml_int_what(false, rtc__md_bits(c, t));
    if (t == RTC_TYPE_BOOL)
        return "a boolean (true, false, 1, 0)";
    return "a value of this type";
}

/* Comparison in the type's own domain: converting a uint64 or int64 to double would
 * make distinct large values compare equal. */
int rtc__md_cmp(rtc_type t, const rtc_value *a, const rtc_value *b)
{
    if (t == RTC_TYPE_FLOAT64)
        return (a->f64 > b->f64) - (a->f64 < b->f64);
    if (t == RTC_TYPE_FLOAT32)
        return (a->f32 > b->f32) - (a->f32 < b->f32);
    if (rtc__md_is_signed(t))
        return (a->i64 > b->i64) - (a->i64 < b->i64);
    if (rtc__md_is_unsigned(t))
        return (a->u64 > b->u64) - (a->u64 < b->u64);
    return 0;
}

void rtc__md_fmt(rtc_type t, const rtc_value *v, char *buf, size_t cap)
{
    if (t == RTC_TYPE_FLOAT64)
        snprintf(buf, cap, "%.17g", v->f64);
    else if (t == RTC_TYPE_FLOAT32)
        snprintf(buf, cap, "%.9g", (double)v->f32);
    else if (rtc__md_is_signed(t))
        snprintf(buf, cap, "%lld", (long long)v->i64);
    else if (rtc__md_is_unsigned(t))
        snprintf(buf, cap, "%llu", (unsigned long long)v->u64);
    else if (t == RTC_TYPE_BOOL)
        snprintf(buf, cap, "%s", v->b ? "true" : "false");
    else
        snprintf(buf, cap, "?");
}

int rtc__md_attr_value(
    md_ctx *c, const xmlNode *n, const char *attr, rtc_type t, rtc_value *out, bool *has)
{
    const char *s = rtc__xml_attr(n, attr);
    *has = false;
    if (!s)
        return RTC_OK;
    if (!rtc__md_parse_value(c, t, s, out)) {
        rtc__xml_attr_error(&c->x, n, attr, "not %s (\"%s\")", rtc__md_type_what(c, t), s);
        return RTC_EPARSE;
    }
    *has = true;
    return RTC_OK;
}

/* Next white-space separated token of @p *p into @p tok; false at the end. Over-long
 * tokens are cut, which makes them fail to parse (and be reported) rather than pass. */
bool rtc__md_next_token(const char **p, char *tok, size_t cap)
{
    const char *s = *p + strspn(*p, " \t\r\n");
    if (*s == '\0')
        return false;
    size_t len = strcspn(s, " \t\r\n");
    size_t k = len < cap - 1 ? len : cap - 1;
    memcpy(tok, s, k);
    tok[k] = '\0';
    if (len >= cap - 1 && cap > 1)
        tok[0] = '#';
    *p = s + len;
    return true;
}

/* Lists are counted first so start[] is allocated once at its final size. */
static size_t count_tokens(const char *s)
{
    char tok[TOKEN_MAX];
    size_t k = 0;
    while (rtc__md_next_token(&s, tok, sizeof tok))
        k++;
    return k;
}

/* start="..." is an xs:list in FMI 3 (arrays in row-major order) and a single value in
 * FMI 2; the count is checked against the dimensions once they are resolved. */
int rtc__md_start_list(md_ctx *c, const xmlNode *n, rtc_var *v)
{
    const char *s = rtc__xml_attr(n, "start");
    if (!s)
        return RTC_OK;
    if (v->type == RTC_TYPE_STRING) {
        /* FMI 2 String start: the whole attribute text is the one value. */
        v->start = calloc(1, sizeof *v->start);
        char *dup = strdup(s);
        if (!v->start || !dup) {
            free(dup);
            return RTC_ENOMEM;
        }
        v->start[0].str = dup;
        v->n_start = 1;
        return RTC_OK;
    }
    size_t k = count_tokens(s);
    if (k == 0 && v->type != RTC_TYPE_BINARY) {
        rtc__xml_attr_error(&c->x, n, "start", "empty (expected %s)",
                            rtc__md_type_what(c, v->type));
        return RTC_EPARSE;
    }
    if (k == 0)
        return RTC_OK;
    v->start = calloc(k, sizeof *v->start);
    if (!v->start)
        return RTC_ENOMEM;
    char tok[TOKEN_MAX];
    int rc = RTC_OK;
    for (const char *p = s; rc == RTC_OK && rtc__md_next_token(&p, tok, sizeof tok);) {
        if (v->type == RTC_TYPE_BINARY) {
            /* Pre-release FMI 3 schemas had Binary start as a hexBinary list. */
            rc = rtc__md_hex(c, n, "start", tok, &v->start[v->n_start].bin);
        } else if (!rtc__md_parse_value(c, v->type, tok, &v->start[v->n_start])) {
            rtc__xml_attr_error(&c->x, n, "start", "not %s (\"%s\")", rtc__md_type_what(c, v->type),
                                tok);
            rc = RTC_EPARSE;
        }
        /* Counted even on failure so the free function sees an allocated Binary value. */
        v->n_start++;
    }
    return rc;
}

/* xs:hexBinary: an even number of hex digits, either case; "" is zero bytes. */
int rtc__md_hex(md_ctx *c, const xmlNode *n, const char *attr, const char *s, rtc_binary *out)
{
    s += strspn(s, " \t\r\n");
    size_t len = strcspn(s, " \t\r\n");
    if (s[len + strspn(s + len, " \t\r\n")] != '\0' || len % 2 != 0) {
        rtc__xml_attr_error(&c->x, n, attr, "not hexadecimal bytes (\"%s\")", s);
        return RTC_EPARSE;
    }
    uint8_t *data = malloc(len / 2 + 1);
    size_t nb = 0;
    if (!data)
        return RTC_ENOMEM;
    if (rtc_hex_decode(s, data, len / 2 + 1, &nb) != RTC_OK) { /* one run, no inner space */
        free(data);
        rtc__xml_attr_error(&c->x, n, attr, "not hexadecimal bytes (\"%s\")", s);
        return RTC_EPARSE;
    }
    out->data = data;
    out->size = nb;
    return RTC_OK;
}

/* One <Start value=".."/> child of a String or Binary variable into v->start[v->n_start]. */
static int start_child(md_ctx *c, const xmlNode *s, rtc_var *v)
{
    static const char *const known[] = {"value", NULL};
    rtc__xml_check_attrs(&c->x, s, known);
    const char *val = rtc__xml_attr(s, "value");
    rtc_value *dst = &v->start[v->n_start];
    if (!val) {
        rtc__xml_attr_error(&c->x, s, "value", "missing (required)");
        return RTC_EPARSE;
    }
    if (v->type == RTC_TYPE_BINARY) {
        int rc = rtc__md_hex(c, s, "value", val, &dst->bin);
        if (rc == RTC_OK)
            v->n_start++;
        return rc;
    }
    char *dup = strdup(val);
    if (!dup)
        return RTC_ENOMEM;
    dst->str = dup;
    v->n_start++;
    return RTC_OK;
}

/* FMI 3 String and Binary start values are <Start value=".."/> children, one per array
 * element, because a string list could not hold spaces. */
int rtc__md_start_children(md_ctx *c, const xmlNode *n, rtc_var *v)
{
    size_t k = rtc__xml_count(n, "Start");
    if (k == 0)
        return RTC_OK;
    if (v->n_start > 0) {
        rtc__xml_error(&c->x, n, "%s: both a start attribute and <Start> elements",
                       rtc__xml_name(n));
        return RTC_EPARSE;
    }
    v->start = calloc(k, sizeof *v->start);
    if (!v->start)
        return RTC_ENOMEM;
    int rc = RTC_OK;
    for (const xmlNode *s = rtc__xml_child(n); s; s = rtc__xml_next(s))
        if (rtc__xml_is(s, "Start"))
            MD_TRY(start_child(c, s, v));
    return rc;
}

/* The schema says max >= min; a violation makes every range check meaningless, so it is
 * an error rather than a warning. */
int rtc__md_check_range(md_ctx *c,
                        const xmlNode *n,
                        rtc_type t,
                        bool has_min,
                        const rtc_value *min,
                        bool has_max,
                        const rtc_value *max)
{
    if (!has_min || !has_max || rtc__md_cmp(t, min, max) <= 0)
        return RTC_OK;
    char a[64], b[64];
    rtc__md_fmt(t, min, a, sizeof a);
    rtc__md_fmt(t, max, b, sizeof b);
    rtc__xml_attr_error(&c->x, n, "max", "max (%s) is less than min (%s)", b, a);
    return RTC_EPARSE;
}

/* Frees what one variable owns; start members are pointers only for String and Binary. */
void rtc__md_var_clear(rtc_var *v)
{
    free(v->name);
    free(v->description);
    free(v->declared_type);
    free(v->quantity);
    free(v->unit);
    free(v->display_unit);
    for (size_t k = 0; v->start && k < v->n_start; k++) {
        if (v->type == RTC_TYPE_STRING)
            free((char *)v->start[k].str);
        else if (v->type == RTC_TYPE_BINARY)
            free((uint8_t *)v->start[k].bin.data);
    }
    free(v->start);
    free(v->dims);
    free(v->clocks);
    memset(v, 0, sizeof *v);
}

static const rtc_type_def *find_type_def(const md_ctx *c, const char *name)
{
    for (size_t k = 0; k < c->md->n_type_defs; k++)
        if (c->md->type_defs[k].name && strcmp(c->md->type_defs[k].name, name) == 0)
            return &c->md->type_defs[k];
    return NULL;
}

/* Copy (not share) inherited strings: every string has exactly one owner. */
static int dup_if_null(char **dst, const char *src)
{
    if (*dst || !src)
        return RTC_OK;
    *dst = strdup(src);
    return *dst ? RTC_OK : RTC_ENOMEM;
}

/* declaredType: the variable's own attributes win, the type definition fills the rest. */
static int inherit_declared(md_ctx *c, size_t i)
{
    rtc_var *v = &c->md->vars[i];
    const xmlNode *tn = c->aux[i].tnode;
    if (!v->declared_type) {
        if (v->type != RTC_TYPE_ENUM)
            return RTC_OK;
        rtc__xml_attr_error(&c->x, tn, "declaredType", "missing (required for Enumeration)");
        return RTC_EPARSE;
    }
    const rtc_type_def *td = find_type_def(c, v->declared_type);
    if (!td) {
        rtc__xml_attr_error(&c->x, tn, "declaredType", "unknown type \"%s\"", v->declared_type);
        return RTC_EPARSE;
    }
    if (td->type != v->type) {
        rtc__xml_attr_error(&c->x, tn, "declaredType", "type \"%s\" is a %s type, not %s", td->name,
                            rtc_type_name(td->type), rtc_type_name(v->type));
        return RTC_EPARSE;
    }
    if (dup_if_null(&v->quantity, td->quantity) != RTC_OK ||
        dup_if_null(&v->unit, td->unit) != RTC_OK ||
        dup_if_null(&v->display_unit, td->display_unit) != RTC_OK)
        return RTC_ENOMEM;
    if (!v->has_min && td->has_min) {
        v->has_min = true;
        v->min = td->min;
    }
    if (!v->has_max && td->has_max) {
        v->has_max = true;
        v->max = td->max;
    }
    if (!v->has_nominal && td->has_nominal) {
        v->has_nominal = true;
        v->nominal = td->nominal;
    }
    return RTC_OK;
}

/* Allowed causality per variability: [variability][causality]. Same table in FMI 2.0
 * (section 2.2.7) and 3.0 (section 2.4.7.4); structuralParameter follows parameter. */
static const bool combo_ok[5][7] = {
    /* param calc  input  output local  indep  struct */
    {false, false, false, true, true, false, false}, /* constant */
    {true, true, false, false, true, false, true},   /* fixed */
    {true, true, false, false, true, false, true},   /* tunable */
    {false, false, true, true, true, false, false},  /* discrete */
    {false, false, true, true, true, true, false},   /* continuous */
};

#define INIT_BIT(i) (1u << (i))
enum {
    INIT_E = INIT_BIT(RTC_INITIAL_EXACT),
    INIT_A = INIT_BIT(RTC_INITIAL_APPROX),
    INIT_C = INIT_BIT(RTC_INITIAL_CALCULATED),
};

/* The standard's initial table for an allowed causality/variability pair: the values
 * allowed (bit set) and the default. FMI 2.0 (table in 2.2.7) and FMI 3.0 (Table 22 in
 * 2.4.7.5) agree except for inputs: FMI 2.0 allows no initial, FMI 3.0 allows only (and
 * defaults to) exact. Independent variables and clocks never have one. */
typedef struct init_rule {
    unsigned allowed;
    rtc_initial dflt;
} init_rule;

static init_rule initial_rule(int major, const rtc_var *v)
{
    if (v->type == RTC_TYPE_CLOCK || v->causality == RTC_CAUSALITY_INDEPENDENT)
        return (init_rule){0, RTC_INITIAL_NONE};
    if (v->causality == RTC_CAUSALITY_INPUT)
        return major == 2 ? (init_rule){0, RTC_INITIAL_NONE}
                          : (init_rule){INIT_E, RTC_INITIAL_EXACT};
    if (v->variability == RTC_VARIABILITY_CONSTANT || v->causality == RTC_CAUSALITY_PARAMETER ||
        v->causality == RTC_CAUSALITY_STRUCTURAL_PARAMETER)
        return (init_rule){INIT_E, RTC_INITIAL_EXACT};
    if (v->variability == RTC_VARIABILITY_FIXED || v->variability == RTC_VARIABILITY_TUNABLE)
        return (init_rule){INIT_A | INIT_C, RTC_INITIAL_CALCULATED};
    return (init_rule){INIT_E | INIT_A | INIT_C, RTC_INITIAL_CALCULATED};
}

/* "exact, approx" ... or "none" for an allowed-set bit mask. */
static void initial_list(unsigned allowed, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (int i = RTC_INITIAL_EXACT; i <= RTC_INITIAL_CALCULATED; i++)
        if (allowed & INIT_BIT(i))
            snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", buf[0] ? ", " : "",
                     rtc_initial_name((rtc_initial)i));
    if (!buf[0])
        snprintf(buf, cap, "none");
}

/* Effective variability (default: continuous for Float types, discrete otherwise) and the
 * causality x variability table. A parameter without a variability attribute gets the
 * schema default "continuous", which no parameter may have: exporters omit the attribute
 * meaning "fixed", so that is read as fixed with a warning (policy: harmless deviation). */
static int check_variability(md_ctx *c, size_t i)
{
    rtc_var *v = &c->md->vars[i];
    const xmlNode *n = c->aux[i].node;
    const char *real = c->major == 2 ? "Real" : "Float32/Float64";
    bool param = v->causality == RTC_CAUSALITY_PARAMETER ||
                 v->causality == RTC_CAUSALITY_CALCULATED_PARAMETER ||
                 v->causality == RTC_CAUSALITY_STRUCTURAL_PARAMETER;
    if (!c->aux[i].variability_given && param) {
        v->variability = RTC_VARIABILITY_FIXED;
        rtc__xml_attr_warn(&c->x, n, "variability",
                           "missing for a %s (the default \"continuous\" is not allowed); "
                           "read as \"fixed\"",
                           rtc_causality_name(v->causality));
    } else if (!c->aux[i].variability_given) {
        v->variability =
            rtc__md_is_float(v->type) ? RTC_VARIABILITY_CONTINUOUS : RTC_VARIABILITY_DISCRETE;
    }
    if (v->variability == RTC_VARIABILITY_CONTINUOUS && !rtc__md_is_float(v->type)) {
        rtc__xml_attr_error(&c->x, n, "variability",
                            "\"continuous\" is only allowed for %s variables, not %s", real,
                            rtc_type_name(v->type));
        return RTC_EPARSE;
    }
    /* FMI 3.0 2.4.7.4: clocks and clocked variables are discrete or tunable, whatever
     * their causality (the table's tunable input/output exclusion does not apply). */
    bool clocked_tunable = c->major == 3 && v->variability == RTC_VARIABILITY_TUNABLE &&
                           (v->type == RTC_TYPE_CLOCK || v->n_clocks > 0);
    if (!combo_ok[v->variability][v->causality] && !clocked_tunable) {
        rtc__xml_attr_error(&c->x, n, "variability", "\"%s\" is not allowed with causality \"%s\"",
                            rtc_variability_name(v->variability), rtc_causality_name(v->causality));
        return RTC_EPARSE;
    }
    return RTC_OK;
}

/* The initial table of the file's own FMI version. An initial the table does not allow is
 * refused, except on inputs and the independent variable: there the importer uses nothing
 * but the start value (required for inputs anyway), so a stray initial (FMI 2 exporters
 * write initial="exact" on inputs, FMI 3's only value) cannot change a run: warning, and
 * the standard's value is used. */
static int check_initial(md_ctx *c, size_t i)
{
    rtc_var *v = &c->md->vars[i];
    const xmlNode *n = c->aux[i].node;
    init_rule r = initial_rule(c->major, v);
    if (!c->aux[i].initial_given) {
        v->initial = r.dflt;
        return RTC_OK;
    }
    if (r.allowed & INIT_BIT(v->initial))
        return RTC_OK;
    char allowed[48];
    initial_list(r.allowed, allowed, sizeof allowed);
    if (v->causality == RTC_CAUSALITY_INPUT || v->causality == RTC_CAUSALITY_INDEPENDENT) {
        rtc__xml_attr_warn(&c->x, n, "initial",
                           "\"%s\" is not defined for causality \"%s\" in FMI %d.0 (allowed: "
                           "%s); ignored",
                           rtc_initial_name(v->initial), rtc_causality_name(v->causality),
                           c->major, allowed);
        v->initial = r.dflt;
        return RTC_OK;
    }
    rtc__xml_attr_error(&c->x, n, "initial",
                        "\"%s\" is not allowed with causality \"%s\" and variability \"%s\" "
                        "(allowed: %s)",
                        rtc_initial_name(v->initial), rtc_causality_name(v->causality),
                        rtc_variability_name(v->variability), allowed);
    return RTC_EPARSE;
}

/* start must be given for exact/approx and inputs; it is pointless when calculated. An
 * input without one is only a warning: the engine never writes a start value itself, so
 * until the input is set the FMU keeps its own value, which is what a start would say
 * (exporters omit it; FMI Library-based importers warn and run). */
static int check_start(md_ctx *c, size_t i)
{
    rtc_var *v = &c->md->vars[i];
    const xmlNode *tn = c->aux[i].tnode;
    if (v->type == RTC_TYPE_CLOCK)
        return RTC_OK;
    bool needed = v->initial == RTC_INITIAL_EXACT || v->initial == RTC_INITIAL_APPROX ||
                  v->causality == RTC_CAUSALITY_INPUT;
    if (needed && v->n_start == 0 && v->causality == RTC_CAUSALITY_INPUT) {
        rtc__xml_attr_warn(&c->x, tn, "start",
                           "missing for an input (required by FMI %d.0); the FMU's own value "
                           "holds until the input is set",
                           c->major);
    } else if (needed && v->n_start == 0) {
        rtc__xml_attr_error(
            &c->x, tn, "start", "missing (required with causality \"%s\" and initial \"%s\")",
            rtc_causality_name(v->causality), v->initial ? rtc_initial_name(v->initial) : "none");
        return RTC_EPARSE;
    }
    if (v->n_start > 0 &&
        (v->initial == RTC_INITIAL_CALCULATED || v->causality == RTC_CAUSALITY_INDEPENDENT))
        rtc__xml_attr_warn(&c->x, tn, "start", "ignored: the variable is %s",
                           v->initial == RTC_INITIAL_CALCULATED ? "calculated" : "independent");
    return RTC_OK;
}

/* min <= max is an error; a start outside [min, max] or nominal <= 0 only a warning. */
static int check_values(md_ctx *c, size_t i)
{
    rtc_var *v = &c->md->vars[i];
    const xmlNode *tn = c->aux[i].tnode;
    if (!rtc__md_is_float(v->type) && !rtc__md_is_signed(v->type) && !rtc__md_is_unsigned(v->type))
        return RTC_OK;
    if (rtc__md_check_range(c, tn, v->type, v->has_min, &v->min, v->has_max, &v->max) != RTC_OK)
        return RTC_EPARSE;
    for (size_t k = 0; k < v->n_start; k++) {
        bool lo = v->has_min && rtc__md_cmp(v->type, &v->start[k], &v->min) < 0;
        bool hi = v->has_max && rtc__md_cmp(v->type, &v->start[k], &v->max) > 0;
        if (lo || hi) {
            char s[64], b[64];
            rtc__md_fmt(v->type, &v->start[k], s, sizeof s);
            rtc__md_fmt(v->type, lo ? &v->min : &v->max, b, sizeof b);
            rtc__xml_attr_warn(&c->x, tn, "start", "%s is %s %s %s", s, lo ? "below" : "above",
                               lo ? "min" : "max", b);
            break; /* one warning per variable is enough */
        }
    }
    if (v->has_nominal && !(v->nominal > 0))
        rtc__xml_attr_warn(&c->x, tn, "nominal", "%g is not positive", v->nominal);
    return RTC_OK;
}

/* Order matters: the declared type may supply attributes the checks below look at, and
 * the initial table is only defined for allowed causality/variability pairs. */
int rtc__md_var_finish(md_ctx *c, size_t i)
{
    int rc = RTC_OK;
    MD_TRY(inherit_declared(c, i));
    MD_TRY(check_variability(c, i));
    if (rc != RTC_OK)
        return rc; /* the initial table needs a valid combination */
    MD_TRY(check_initial(c, i));
    if (rc == RTC_OK)
        MD_TRY(check_start(c, i));
    MD_TRY(check_values(c, i));
    return rc;
}
