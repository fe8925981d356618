/*
 * Helpers of the SSP loader and the readers of the ssc elements that several SSP files
 * share: ssc:Unit, ssc:Enumeration, the type choice (Real, Int8, ...) and the
 * transformation choice (LinearTransformation and the three mapping transformations).
 *
 * URIs: the standard only requires relative references below the .ssd; we also accept
 * file: URIs and references that leave the directory of a plain .ssd (tools such as
 * OpenMCx write "../fmus/x.fmu"), but inside a package nothing may point outside the
 * extraction directory. Paths are normalized lexically: the FMU need not exist yet, the
 * system builder reports that with the component's line.
 */
#include "ssp_priv.h"

#include "rtcosim/numparse.h"
#include "rtcosim/status.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first failure decides the status returned: later errors are often consequences
 * of it, and callers switch on the status (EIO vs EPARSE vs EUNSUPPORTED). */
void rtc__ssp_fail(rtc__ssp_load *L, int rc)
{
    if (L->first_rc == RTC_OK && rc != RTC_OK)
        L->first_rc = rc;
}

int rtc__ssp_grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return RTC_OK;
    size_t nc = *cap ? *cap * 2 : 8;
    void *p = realloc(*arr, nc * elem);
    if (!p)
        return RTC_ENOMEM;
    /* Zeroed tails let every free function run on a partially filled array. */
    memset((char *)p + *cap * elem, 0, (nc - *cap) * elem);
    *arr = p;
    *cap = nc;
    return RTC_OK;
}

int rtc__ssp_dup(const char *s, char **out)
{
    *out = NULL;
    if (!s)
        return RTC_OK;
    *out = strdup(s);
    return *out ? RTC_OK : RTC_ENOMEM;
}

/* Namespace-aware match: SSP files use any prefix (or a default namespace, as OpenMCx
 * does), so only the namespace URI and the local name identify an element. */
bool rtc__ssp_is(const xmlNode *n, const char *ns, const char *local)
{
    if (!n || n->type != XML_ELEMENT_NODE || strcmp((const char *)n->name, local) != 0)
        return false;
    return n->ns && n->ns->href && strcmp((const char *)n->ns->href, ns) == 0;
}

bool rtc__ssp_in_ssp_ns(const xmlNode *n)
{
    static const char *const spaces[] = {RTC_SSP_NS_SSD, RTC_SSP_NS_SSC, RTC_SSP_NS_SSV,
                                         RTC_SSP_NS_SSM, RTC_SSP_NS_SSB, NULL};
    if (!n->ns || !n->ns->href)
        return false;
    for (const char *const *s = spaces; *s; s++)
        if (strcmp((const char *)n->ns->href, *s) == 0)
            return true;
    return false;
}

const char *rtc__ssp_qname(const xmlNode *n, char *buf, size_t cap)
{
    if (n->ns && n->ns->prefix)
        snprintf(buf, cap, "%s:%s", (const char *)n->ns->prefix, (const char *)n->name);
    else
        snprintf(buf, cap, "%s", (const char *)n->name);
    return buf;
}

void rtc__ssp_unknown(rtc__xml_ctx *x, const xmlNode *n)
{
    /* Presentation and provenance data: understood, and irrelevant to a simulation. */
    static const char *const ignored[] = {"ElementGeometry", "ConnectorGeometry",
                                          "ConnectionGeometry", "SystemGeometry",
                                          "GraphicalElements", "MetaData", "Signature", NULL};
    if (rtc__ssp_in_ssp_ns(n)) {
        for (const char *const *i = ignored; *i; i++)
            if (strcmp((const char *)n->name, *i) == 0)
                return;
    }
    char a[128], b[128];
    rtc__xml_warn(x, n, "unknown element <%s> in <%s> ignored", rtc__ssp_qname(n, a, sizeof a),
                  n->parent && n->parent->type == XML_ELEMENT_NODE
                      ? rtc__ssp_qname(n->parent, b, sizeof b)
                      : "document");
}

/* Append the normalized components of @p rel to the absolute path in @p buf. */
/* Lexical normalization: ".." removes the previous component, "." and empty components
 * vanish. No symlinks are resolved on purpose: the jail check below must judge the path
 * as written, and package entries can hold no links (the extractor refuses them). */
static bool path_append(char *buf, size_t cap, const char *rel)
{
    const char *p = rel;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 2 && p[0] == '.' && p[1] == '.') {
            char *slash = strrchr(buf, '/');
            if (slash)
                *(slash == buf ? slash + 1 : slash) = '\0';
        } else if (len > 0 && !(len == 1 && p[0] == '.')) {
            size_t bl = strlen(buf);
            bool root = bl == 1 && buf[0] == '/';
            if (bl + len + 2 > cap)
                return false;
            if (!root)
                buf[bl++] = '/';
            memcpy(buf + bl, p, len);
            buf[bl + len] = '\0';
        }
        p += len + (e ? 1 : 0);
    }
    return true;
}

/* @p rel resolved against absolute directory @p base (an absolute @p rel ignores it). */
static char *normalize(const char *base, const char *rel)
{
    char buf[PATH_MAX];
    if (rel[0] == '/')
        snprintf(buf, sizeof buf, "/");
    else if (strlen(base) < sizeof buf)
        snprintf(buf, sizeof buf, "%s", base);
    else
        return NULL;
    if (rel[0] != '/' && !path_append(buf, sizeof buf, "."))
        return NULL;
    if (!path_append(buf, sizeof buf, rel))
        return NULL;
    return strdup(buf);
}

char *rtc__ssp_abspath(const char *path)
{
    char cwd[PATH_MAX];
    if (path[0] == '/')
        return normalize("/", path);
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    return normalize(cwd, path);
}

int rtc__ssp_display(const rtc__ssp_load *L, const char *path, char **out)
{
    const char *d = L->ssp->extract_dir;
    size_t dl = d ? strlen(d) : 0;
    if (!d || strncmp(path, d, dl) != 0 || path[dl] != '/')
        return rtc__ssp_dup(path, out);
    size_t len = strlen(L->ssp->path) + strlen(path + dl) + 1;
    if (!(*out = malloc(len)))
        return RTC_ENOMEM;
    snprintf(*out, len, "%s%s", L->ssp->path, path + dl);
    return RTC_OK;
}

char *rtc__ssp_dirname(const char *path)
{
    char *d = strdup(path);
    if (!d)
        return NULL;
    char *slash = strrchr(d, '/');
    if (slash == d)
        d[1] = '\0';
    else if (slash)
        *slash = '\0';
    return d;
}

/* Decode %XX escapes; false for a malformed escape or an encoded NUL or slash. */
/* Relative references are URIs too: "a%20b.fmu" names "a b.fmu". An escaped slash or
 * NUL would smuggle a path separator or terminator past the checks, so it is refused. */
static bool percent_decode(const char *s, char *out, size_t cap)
{
    size_t o = 0;
    for (; *s; s++) {
        char c = *s;
        if (c == '%') {
            if (!isxdigit((unsigned char)s[1]) || !isxdigit((unsigned char)s[2]))
                return false;
            char hex[3] = {s[1], s[2], 0};
            uint8_t b = 0;
            size_t nb;
            rtc_hex_decode(hex, &b, 1, &nb); /* two hex digits: cannot fail */
            c = (char)b;
            if (c == '\0' || c == '/')
                return false;
            s += 2;
        }
        if (o + 1 >= cap)
            return false;
        out[o++] = c;
    }
    out[o] = '\0';
    return true;
}

/* Length of the URI scheme of @p uri ("file" → 4), 0 when it has none (RFC 3986). */
static size_t scheme_len(const char *uri)
{
    if (!isalpha((unsigned char)uri[0]))
        return 0;
    size_t i = 1;
    while (isalnum((unsigned char)uri[i]) || uri[i] == '+' || uri[i] == '-' || uri[i] == '.')
        i++;
    return uri[i] == ':' ? i : 0;
}

/* Strip "file:" (and an empty or localhost authority) from @p uri. */
/* "file:///p", "file://localhost/p" and "file:/p" all name the local path /p;
 * another host cannot be reached through a file path, so it is refused. */
static const char *strip_file_scheme(const char *uri)
{
    const char *p = uri + 5;
    if (strncmp(p, "//", 2) == 0) {
        p += 2;
        if (strncmp(p, "localhost", 9) == 0)
            p += 9;
        if (*p != '/')
            return NULL; /* another host */
    }
    return p;
}

/* Other schemes (http:, proxyfmu:, ...) would need a network or a service; they are
 * refused with the scheme named. Queries and fragments select things we cannot (a variant
 * SSD of a nested package) and are refused as well. */
int rtc__ssp_resolve(rtc__xml_ctx *x, const xmlNode *n, const char *attr, const char *uri,
                     const char *base_dir, const char *jail, char **out)
{
    *out = NULL;
    size_t sl = scheme_len(uri);
    const char *ref = uri;
    if (sl == 4 && strncasecmp(uri, "file", 4) == 0) {
        ref = strip_file_scheme(uri);
        if (!ref) {
            rtc__xml_attr_error(x, n, attr, "file URI with a remote host (\"%s\")", uri);
            return RTC_EUNSUPPORTED;
        }
    } else if (sl > 0) {
        rtc__xml_attr_error(x, n, attr, "URI scheme \"%.*s\" is not supported (\"%s\")",
                            (int)sl, uri, uri);
        return RTC_EUNSUPPORTED;
    }
    char dec[PATH_MAX];
    if (strpbrk(ref, "?#") || !percent_decode(ref, dec, sizeof dec) || dec[0] == '\0') {
        rtc__xml_attr_error(x, n, attr, "not a usable file reference (\"%s\")", uri);
        return RTC_EPARSE;
    }
    char *p = normalize(base_dir, dec);
    if (!p)
        return RTC_ENOMEM;
    size_t jl = jail ? strlen(jail) : 0;
    if (jail && !(strncmp(p, jail, jl) == 0 && (p[jl] == '/' || p[jl] == '\0'))) {
        rtc__xml_attr_error(x, n, attr, "\"%s\" points outside the package", uri);
        free(p);
        return RTC_EUNSAFE;
    }
    *out = p;
    return RTC_OK;
}

/* ---- ssc:Unit ---- */

/* A real attribute that must be finite: xs:double admits INF and NaN, but a factor or an
 * offset that is not a number would turn every value it touches into one. */
static int finite_attr(rtc__xml_ctx *x, const xmlNode *n, const char *name, double *out)
{
    if (rtc__xml_attr_f64(x, n, name, out, NULL) != RTC_OK)
        return RTC_EPARSE;
    if (!isfinite(*out)) {
        rtc__xml_attr_error(x, n, name, "must be a finite number (\"%s\")",
                            rtc__xml_attr(n, name));
        return RTC_EPARSE;
    }
    return RTC_OK;
}

/* ssc:BaseUnit: exponents default to 0, factor to 1, offset to 0 (XSD defaults). A zero
 * or non-finite factor would make the unit impossible to convert from, so it is an error
 * here, like a non-finite offset. */
static int read_base_unit(rtc__xml_ctx *x, const xmlNode *n, rtc_base_unit *b)
{
    static const char *const known[] = {"kg", "m", "s", "A", "K", "mol", "cd", "rad",
                                        "factor", "offset", NULL};
    int *exps[] = {&b->kg, &b->m, &b->s, &b->A, &b->K, &b->mol, &b->cd, &b->rad};
    int rc = RTC_OK;
    rtc__xml_check_attrs(x, n, known);
    for (size_t i = 0; i < 8; i++) {
        int64_t v = 0;
        if (rtc__xml_attr_i64(x, n, known[i], 32, &v, NULL) != RTC_OK)
            rc = RTC_EPARSE;
        *exps[i] = (int)v;
    }
    b->factor = 1.0;
    b->offset = 0.0;
    if (finite_attr(x, n, "factor", &b->factor) != RTC_OK)
        rc = RTC_EPARSE;
    if (finite_attr(x, n, "offset", &b->offset) != RTC_OK)
        rc = RTC_EPARSE;
    if (rc == RTC_OK && b->factor == 0.0) {
        rtc__xml_attr_error(x, n, "factor", "must not be zero");
        rc = RTC_EPARSE;
    }
    return rc;
}

/* Units are global to the description. The same definition may appear again (every
 * .ssv may carry the units it uses); a different definition under the same name would
 * make conversions ambiguous and is an error. */
static int add_unit(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *n, const char *name,
                    const rtc_base_unit *b)
{
    rtc_ssp *s = L->ssp;
    for (size_t i = 0; i < s->n_units; i++) {
        if (strcmp(s->units[i].name, name) != 0)
            continue;
        if (memcmp(&s->units[i].base, b, sizeof *b) == 0)
            return RTC_OK; /* a parameter set repeating the system's definition */
        rtc__xml_attr_error(x, n, "name", "unit \"%s\" already defined differently (line %u)",
                            name, s->units[i].line);
        return RTC_EPARSE;
    }
    if (rtc__ssp_grow((void **)&s->units, &L->cap_units, s->n_units, sizeof *s->units))
        return RTC_ENOMEM;
    rtc_ssp_unit *u = &s->units[s->n_units];
    if (rtc__ssp_dup(name, &u->name))
        return RTC_ENOMEM;
    u->base = *b;
    u->line = rtc__xml_line(n);
    s->n_units++;
    return RTC_OK;
}

/* ssc:Unit with its required name and ssc:BaseUnit. */
static int read_unit(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *n)
{
    static const char *const known[] = {"name", "id", "description", NULL};
    rtc__xml_check_attrs(x, n, known);
    const char *name = rtc__xml_attr(n, "name");
    if (!name) {
        rtc__xml_attr_error(x, n, "name", "missing (required)");
        return RTC_EPARSE;
    }
    const xmlNode *bu = NULL;
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (rtc__ssp_is(c, RTC_SSP_NS_SSC, "BaseUnit") && !bu)
            bu = c;
        else if (!rtc__ssp_is(c, RTC_SSP_NS_SSC, "Annotations"))
            rtc__ssp_unknown(x, c);
    }
    if (!bu) {
        rtc__xml_error(x, n, "Unit \"%s\": missing ssc:BaseUnit", name);
        return RTC_EPARSE;
    }
    rtc_base_unit b = {0};
    if (read_base_unit(x, bu, &b) != RTC_OK)
        return RTC_EPARSE;
    return add_unit(L, x, n, name, &b);
}

int rtc__ssp_read_units(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *n)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (!rtc__ssp_is(c, RTC_SSP_NS_SSC, "Unit")) {
            rtc__ssp_unknown(x, c);
            continue;
        }
        int rc = read_unit(L, x, c);
        if (rc == RTC_ENOMEM)
            return rc;
        rtc__ssp_fail(L, rc);
    }
    return RTC_OK;
}

/* ---- ssc:Enumeration ---- */

/* ssc:Item: name and an xs:int value, both required. */
static int read_item(rtc__xml_ctx *x, const xmlNode *n, rtc_ssp_enum *e)
{
    static const char *const known[] = {"name", "value", NULL};
    rtc__xml_check_attrs(x, n, known);
    int64_t v = 0;
    bool has = false;
    if (rtc__xml_attr_i64(x, n, "value", 32, &v, &has) != RTC_OK)
        return RTC_EPARSE;
    if (!has) {
        rtc__xml_attr_error(x, n, "value", "missing (required)");
        return RTC_EPARSE;
    }
    rtc_enum_item *it = &e->items[e->n_items];
    if (rtc__xml_attr_dup(x, n, "name", true, &it->name) != RTC_OK)
        return it->name ? RTC_ENOMEM : RTC_EPARSE;
    it->value = v;
    e->n_items++;
    return RTC_OK;
}

/* ssc:Enumeration. The item array is sized from the child count before reading so
 * that items never move while being filled. */
static int read_enum(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *n)
{
    static const char *const known[] = {"name", "id", "description", NULL};
    rtc_ssp *s = L->ssp;
    rtc__xml_check_attrs(x, n, known);
    if (rtc__ssp_grow((void **)&s->enums, &L->cap_enums, s->n_enums, sizeof *s->enums))
        return RTC_ENOMEM;
    rtc_ssp_enum *e = &s->enums[s->n_enums];
    int rc = rtc__xml_attr_dup(x, n, "name", true, &e->name);
    if (rc != RTC_OK)
        return rc;
    s->n_enums++; /* counted now so that rtc_ssp_free releases its items */
    e->line = rtc__xml_line(n);
    e->items = calloc(rtc__xml_count(n, NULL) + 1, sizeof *e->items);
    if (!e->items)
        return RTC_ENOMEM;
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (rtc__ssp_is(c, RTC_SSP_NS_SSC, "Item")) {
            if ((rc = read_item(x, c, e)) == RTC_ENOMEM)
                return rc;
            rtc__ssp_fail(L, rc);
        } else if (!rtc__ssp_is(c, RTC_SSP_NS_SSC, "Annotations")) {
            rtc__ssp_unknown(x, c);
        }
    }
    return RTC_OK;
}

int rtc__ssp_read_enums(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *n)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (!rtc__ssp_is(c, RTC_SSP_NS_SSC, "Enumeration")) {
            rtc__ssp_unknown(x, c);
            continue;
        }
        int rc = read_enum(L, x, c);
        if (rc == RTC_ENOMEM)
            return rc;
        rtc__ssp_fail(L, rc);
    }
    return RTC_OK;
}

/* ---- type choice ---- */

/* The SSP 1.0 names map to the FMI 2 types (Real is float64, Integer int32); the SSP 2.0
 * names map one to one to the FMI 3 types of model.h. */
bool rtc__ssp_type_of(const xmlNode *n, const char *ns, rtc_type *type)
{
    static const struct {
        const char *name;
        rtc_type type;
    } map[] = {
        {"Real", RTC_TYPE_FLOAT64},  {"Float64", RTC_TYPE_FLOAT64}, {"Float32", RTC_TYPE_FLOAT32},
        {"Integer", RTC_TYPE_INT32}, {"Int8", RTC_TYPE_INT8},       {"UInt8", RTC_TYPE_UINT8},
        {"Int16", RTC_TYPE_INT16},   {"UInt16", RTC_TYPE_UINT16},   {"Int32", RTC_TYPE_INT32},
        {"UInt32", RTC_TYPE_UINT32}, {"Int64", RTC_TYPE_INT64},     {"UInt64", RTC_TYPE_UINT64},
        {"Boolean", RTC_TYPE_BOOL},  {"String", RTC_TYPE_STRING},   {"Enumeration", RTC_TYPE_ENUM},
        {"Binary", RTC_TYPE_BINARY}, {"Clock", RTC_TYPE_CLOCK},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (rtc__ssp_is(n, ns, map[i].name)) {
            *type = map[i].type;
            return true;
        }
    }
    return false;
}

/* ---- transformations ---- */

/* ssc:LinearTransformation: target = factor * source + offset (unit conversion, when
 * not suppressed, happens before it; that is the system builder's business). */
static int read_linear(rtc__xml_ctx *x, const xmlNode *n, rtc_ssp_transform *tr)
{
    static const char *const known[] = {"factor", "offset", NULL};
    rtc__xml_check_attrs(x, n, known);
    tr->kind = RTC_SSP_TRANSFORM_LINEAR;
    tr->factor = 1.0;
    tr->offset = 0.0;
    int rc = finite_attr(x, n, "factor", &tr->factor);
    if (finite_attr(x, n, "offset", &tr->offset) != RTC_OK)
        rc = RTC_EPARSE;
    if (rc != RTC_OK)
        return rc;
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c))
        rtc__ssp_unknown(x, c);
    return RTC_OK;
}

/* One side of a MapEntry: booleans and integers as integers, enumerations as names. */
static int read_map_side(rtc__xml_ctx *x, const xmlNode *n, rtc_ssp_transform_kind kind,
                         const char *attr, int64_t *v, char **name)
{
    bool has = false, b = false;
    int rc;
    if (kind == RTC_SSP_TRANSFORM_BOOLEAN_MAP) {
        rc = rtc__xml_attr_bool(x, n, attr, &b, &has);
        *v = b;
    } else if (kind == RTC_SSP_TRANSFORM_INTEGER_MAP) {
        rc = rtc__xml_attr_i64(x, n, attr, 64, v, &has);
    } else {
        return rtc__xml_attr_dup(x, n, attr, true, name);
    }
    if (rc == RTC_OK && !has) {
        rtc__xml_attr_error(x, n, attr, "missing (required)");
        rc = RTC_EPARSE;
    }
    return rc;
}

static int read_map_entry(rtc__xml_ctx *x, const xmlNode *n, rtc_ssp_transform *tr)
{
    static const char *const known[] = {"source", "target", NULL};
    rtc_ssp_map_entry *e = &tr->entries[tr->n_entries];
    rtc__xml_check_attrs(x, n, known);
    int rc = read_map_side(x, n, tr->kind, "source", &e->source, &e->source_name);
    if (rc == RTC_OK)
        rc = read_map_side(x, n, tr->kind, "target", &e->target, &e->target_name);
    if (rc != RTC_OK) {
        free(e->source_name);
        free(e->target_name);
        *e = (rtc_ssp_map_entry){0};
        return rc;
    }
    tr->n_entries++;
    return RTC_OK;
}

/* A source may appear once: two targets for one value would make the map ambiguous. */
static int check_map_unique(rtc__xml_ctx *x, const xmlNode *n, const rtc_ssp_transform *tr)
{
    for (size_t i = 0; i < tr->n_entries; i++) {
        for (size_t j = 0; j < i; j++) {
            const rtc_ssp_map_entry *a = &tr->entries[i], *b = &tr->entries[j];
            bool same = tr->kind == RTC_SSP_TRANSFORM_ENUM_MAP
                            ? strcmp(a->source_name, b->source_name) == 0
                            : a->source == b->source;
            if (same) {
                rtc__xml_error(x, n, "%s: duplicate MapEntry source (entries %zu and %zu)",
                               rtc__xml_name(n), j + 1, i + 1);
                return RTC_EPARSE;
            }
        }
    }
    return RTC_OK;
}

/* The three mapping transformations share one reader; the kind decides how the
 * MapEntry values are typed. At least one entry is required by the XSD. */
static int read_mapping(rtc__xml_ctx *x, const xmlNode *n, rtc_ssp_transform *tr)
{
    rtc__xml_check_attrs(x, n, (const char *const[]){NULL});
    tr->entries = calloc(rtc__xml_count(n, NULL) + 1, sizeof *tr->entries);
    if (!tr->entries)
        return RTC_ENOMEM;
    int rc = RTC_OK;
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (!rtc__ssp_is(c, RTC_SSP_NS_SSC, "MapEntry")) {
            rtc__ssp_unknown(x, c);
            continue;
        }
        int r = read_map_entry(x, c, tr);
        if (r == RTC_ENOMEM)
            return r;
        if (r != RTC_OK)
            rc = r;
    }
    if (rc == RTC_OK && tr->n_entries == 0) {
        rtc__xml_error(x, n, "%s: no MapEntry", rtc__xml_name(n));
        rc = RTC_EPARSE;
    }
    return rc == RTC_OK ? check_map_unique(x, n, tr) : rc;
}

bool rtc__ssp_read_transform(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *n,
                             rtc_ssp_transform *tr, int *rc)
{
    static const struct {
        const char *name;
        rtc_ssp_transform_kind kind;
    } map[] = {{"BooleanMappingTransformation", RTC_SSP_TRANSFORM_BOOLEAN_MAP},
               {"IntegerMappingTransformation", RTC_SSP_TRANSFORM_INTEGER_MAP},
               {"EnumerationMappingTransformation", RTC_SSP_TRANSFORM_ENUM_MAP}};
    (void)L;
    if (rtc__ssp_is(n, RTC_SSP_NS_SSC, "LinearTransformation")) {
        tr->line = rtc__xml_line(n);
        *rc = read_linear(x, n, tr);
        return true;
    }
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (rtc__ssp_is(n, RTC_SSP_NS_SSC, map[i].name)) {
            tr->kind = map[i].kind;
            tr->line = rtc__xml_line(n);
            *rc = read_mapping(x, n, tr);
            return true;
        }
    }
    return false;
}

void rtc__ssp_transform_clear(rtc_ssp_transform *tr)
{
    for (size_t i = 0; tr->entries && i < tr->n_entries; i++) {
        free(tr->entries[i].source_name);
        free(tr->entries[i].target_name);
    }
    free(tr->entries);
    *tr = (rtc_ssp_transform){.factor = 1.0};
}

void rtc__ssp_connector_clear(rtc_ssp_connector *c)
{
    free(c->name);
    free(c->unit);
    free(c->enumeration);
    free(c->mime_type);
    free(c->dims);
    memset(c, 0, sizeof *c);
}

void rtc__ssp_settings_free(rtc_ssp_setting *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++) {
        free(s[i].element);
        free(s[i].key);
        free(s[i].value);
    }
    free(s);
}
