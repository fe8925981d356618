/*
 * SSP loader: entry point, packages, the root element and DefaultExperiment, freeing and
 * lookups. See rtcosim/ssp.h for what is produced and ssp_priv.h for how the files split.
 *
 * Diagnostics of every file go through one wrapper logger owned by the load. It counts
 * errors and warnings (the load fails when any error was logged, after reading as much
 * as possible so the user sees every problem at once) and rewrites paths inside a
 * package's private extraction directory into "PACKAGE.ssp/ENTRY", which the user can
 * relate to; the temporary directory itself is gone when the user reads the message.
 *
 * Conformance policy (SSP 1.0 and 2.0; the README summarises it):
 *   - Refused, with FILE:LINE and the reason, is only what would make a run wrong or
 *     unsafe: a reference that resolves to nothing (element, connector, dictionary, entry,
 *     parameter file), two connections into one input, a unit pair whose base-unit
 *     exponents differ, types, kinds or array sizes that do not fit the FMU, a time finer
 *     than 1 ns, package entries that escape the package, and what is not implemented
 *     (components that are themselves SSD/SSP files), which is said as such.
 *   - Accepted is every construct the standards allow: connectors of the enclosing system
 *     (no startElement/endElement, or the empty one OMSimulator writes), systems nested to
 *     any depth, values bound to components and to system connectors (they flow along the
 *     connections, "B.C.P" hierarchical names, the higher level winning), .ssv/.ssm/.ssb
 *     content in files or inline, signal dictionaries found outwards from the reference,
 *     the SSP 2.0 types and array connectors (FMI 3 arrays or FMI 2 scalars "x[1]"), the
 *     four transformations, unit conversion by factor, offset and base-unit exponents, and
 *     connection direction taken from the connector kinds whatever the written order.
 *   - Harmless deviations that real exporters produce are one warning with FILE:LINE and
 *     the file still runs: unknown elements, attributes and annotation types, a unit not
 *     defined in ssd:Units (the FMU may define it), a connection between a unit and no unit
 *     (unit="" or absent: dimensionless of unknown unit, connected unchanged), an .ssb
 *     without its version.
 */
#include "ssp_priv.h"

#include "rtcosim/archive.h"
#include "rtcosim/numparse.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <limits.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/parser.h>

#define SSD_NAME "SystemStructure.ssd"

enum { KIND_SSD, KIND_ZIP, KIND_DIR };

/* Logger callback of the load: counts, rewrites package paths, forwards. The counts are
 * taken before the user's level filter so that a quiet logger cannot hide an error from
 * the load's own decision to fail. */
static void wrap_log(void *user, int level, const char *msg)
{
    rtc__ssp_load *L = user;
    if (level == RTC_LOG_ERROR)
        L->n_errors++;
    else if (level == RTC_LOG_WARNING)
        L->ssp->warnings++;
    if (!rtc_log_enabled(L->user_lg, level))
        return;
    const char *dir = L->ssp->extract_dir;
    size_t dl = dir ? strlen(dir) : 0;
    if (dir && strncmp(msg, dir, dl) == 0 && msg[dl] == '/')
        rtc_log_write(L->user_lg, level, "%s%s", L->ssp->path, msg + dl);
    else
        L->user_lg->log(L->user_lg->user, level, msg);
}

/* A package is recognised by its zip signature, not its name: "x.ssp" renamed stays one. */
static int classify(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return KIND_DIR;
    FILE *f = fopen(path, "rb");
    if (!f)
        return KIND_SSD; /* the XML reader reports why it cannot be opened */
    unsigned char sig[4] = {0};
    size_t n = fread(sig, 1, sizeof sig, f);
    fclose(f);
    return n == 4 && memcmp(sig, "PK\x03\x04", 4) == 0 ? KIND_ZIP : KIND_SSD;
}

/* Extract the package into a fresh private directory (mode 0700, mkdtemp). Entries with
 * absolute paths, ".." or links are refused by rtc_archive_extract; what it wrote before a
 * failure is removed with the directory by rtc_ssp_free. */
static int extract_package(rtc__ssp_load *L)
{
    rtc_ssp *s = L->ssp;
    char dir[PATH_MAX];
    int rc = rtc_tmpdir_new("rtcssp-", dir, sizeof dir);
    if (rc != RTC_OK) {
        rtc_log(&L->lg, RTC_LOG_ERROR, "%s: cannot create a temporary directory: %s", s->path,
                rtc_strerror(rc));
        return rc;
    }
    /* Stored before extracting so that every failure path below removes it. */
    s->extract_dir = rtc__ssp_abspath(dir);
    if (!s->extract_dir) {
        rtc_tmpdir_remove(dir);
        return RTC_ENOMEM;
    }
    return rtc_archive_extract(s->path, s->extract_dir, NULL, &L->lg);
}

/* Find the .ssd to read: the file itself, SystemStructure.ssd at the top of an extracted
 * package, or at the top of a directory (an unpacked package). Only the default SSD of a
 * package is read; variant SSDs ("pkg.ssp#Variant.ssd") are not supported. */
static int locate_ssd(rtc__ssp_load *L)
{
    rtc_ssp *s = L->ssp;
    int kind = classify(s->path);
    const char *dir = kind == KIND_ZIP ? s->extract_dir : s->path;
    if (kind == KIND_ZIP) {
        int rc = extract_package(L);
        if (rc != RTC_OK)
            return rc;
        dir = s->extract_dir;
    }
    if (kind == KIND_SSD)
        return rtc__ssp_dup(s->path, &s->ssd_path);
    size_t len = strlen(dir) + sizeof SSD_NAME + 1;
    s->ssd_path = malloc(len);
    if (!s->ssd_path)
        return RTC_ENOMEM;
    snprintf(s->ssd_path, len, "%s/%s", dir, SSD_NAME);
    struct stat sb;
    if (stat(s->ssd_path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        rtc_log(&L->lg, RTC_LOG_ERROR, "%s: no %s at the top of the %s", s->path, SSD_NAME,
                kind == KIND_ZIP ? "package" : "directory");
        return RTC_ENOTFOUND;
    }
    return RTC_OK;
}

/* Times go through rtc_parse_seconds, never through double: "0.1" must be exactly
 * 100000000 ns, and a value that is not a whole number of nanoseconds is refused rather
 * than silently rounded (the base tick is derived from these values). White space around
 * the number is allowed, as XML Schema collapses it. */
int rtc__ssp_attr_time(rtc__xml_ctx *x, const xmlNode *n, const char *attr, int64_t *ns,
                       bool *has)
{
    const char *s = rtc__xml_attr(n, attr);
    *has = false;
    if (!s)
        return RTC_OK;
    int rc = rtc_parse_seconds(s, ns);
    if (rc == RTC_ETIME)
        rtc__xml_attr_error(x, n, attr, "\"%s\" is not a whole number of nanoseconds "
                            "(or out of range)", s);
    else if (rc != RTC_OK)
        rtc__xml_attr_error(x, n, attr, "not a time in seconds (\"%s\")", s);
    *has = rc == RTC_OK;
    return rc;
}

/* ssd:DefaultExperiment: start and stop time; its annotations may carry the step size
 * of our own or of another tool's annotation (libcosim, OpenMCx put it here). */
static int read_experiment(rtc__ssp_load *L, const xmlNode *n)
{
    static const char *const known[] = {"startTime", "stopTime", NULL};
    rtc_ssp *s = L->ssp;
    rtc__xml_check_attrs(&L->x, n, known);
    int rc = rtc__ssp_attr_time(&L->x, n, "startTime", &s->start_ns, &s->has_start);
    rtc__ssp_fail(L, rc);
    rc = rtc__ssp_attr_time(&L->x, n, "stopTime", &s->stop_ns, &s->has_stop);
    rtc__ssp_fail(L, rc);
    int64_t start = s->has_start ? s->start_ns : 0;
    if (s->has_stop && s->stop_ns < start) {
        rtc__xml_attr_error(&L->x, n, "stopTime", "before startTime");
        rtc__ssp_fail(L, RTC_EPARSE);
    }
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "Annotations")) {
            rc = rtc__ssp_read_annotations(L, c, RTC__SSP_AT_EXPERIMENT, NULL, NULL);
            if (rc == RTC_ENOMEM)
                return rc;
        } else {
            rtc__ssp_unknown(&L->x, c);
        }
    }
    return RTC_OK;
}

/* Only the two published versions: content of an unknown version may mean something
 * else, so it is refused with the version named rather than read with guesses. */
static int check_version(rtc__ssp_load *L, const xmlNode *n)
{
    const char *v = rtc__xml_attr(n, "version");
    if (!v) {
        rtc__xml_attr_error(&L->x, n, "version", "missing (required)");
        return RTC_EPARSE;
    }
    if (strcmp(v, "1.0") != 0 && strcmp(v, "2.0") != 0) {
        rtc__xml_attr_error(&L->x, n, "version",
                            "SSP version \"%s\" is not supported (1.0 and 2.0 are)", v);
        return RTC_EUNSUPPORTED;
    }
    return rtc__ssp_dup(v, &L->ssp->version);
}

/* Units and enumerations first: connectors and parameters refer to them. */
static int read_definitions(rtc__ssp_load *L, const xmlNode *root)
{
    for (const xmlNode *c = rtc__xml_child(root); c; c = rtc__xml_next(c)) {
        int rc = RTC_OK;
        if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "Units"))
            rc = rtc__ssp_read_units(L, &L->x, c);
        else if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "Enumerations"))
            rc = rtc__ssp_read_enums(L, &L->x, c);
        if (rc == RTC_ENOMEM)
            return rc;
    }
    return RTC_OK;
}

/* Exactly one ssd:System; DefaultExperiment and Annotations are optional. Units and
 * Enumerations were read by read_definitions() and are skipped here. */
static int read_root_children(rtc__ssp_load *L, const xmlNode *root)
{
    const xmlNode *system = NULL;
    for (const xmlNode *c = rtc__xml_child(root); c; c = rtc__xml_next(c)) {
        int rc = RTC_OK;
        if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "System")) {
            if (system) {
                rtc__xml_error(&L->x, c, "more than one ssd:System (first at line %u)",
                               rtc__xml_line(system));
                rtc__ssp_fail(L, RTC_EPARSE);
                continue;
            }
            system = c;
            rc = rtc__ssp_read_top_system(L, c);
        } else if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "DefaultExperiment")) {
            rc = read_experiment(L, c);
        } else if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "Annotations")) {
            rc = rtc__ssp_read_annotations(L, c, RTC__SSP_AT_ROOT, NULL, NULL);
        } else if (!rtc__ssp_is(c, RTC_SSP_NS_SSD, "Units") &&
                   !rtc__ssp_is(c, RTC_SSP_NS_SSD, "Enumerations")) {
            rtc__ssp_unknown(&L->x, c);
        }
        if (rc == RTC_ENOMEM)
            return rc;
    }
    if (!system) {
        rtc__xml_error(&L->x, root, "SystemStructureDescription: missing ssd:System");
        rtc__ssp_fail(L, RTC_EPARSE);
    }
    return RTC_OK;
}

/* ssd:SystemStructureDescription. The namespace is checked, not just the local name: a
 * document in another namespace is another format, whatever its element names. */
static int read_root(rtc__ssp_load *L, const xmlNode *root)
{
    static const char *const known[] = {
        "version", "name",      "id",      "description",    "author",
        "fileversion", "copyright", "license", "generationTool", "generationDateAndTime",
        NULL};
    if (!rtc__ssp_is(root, RTC_SSP_NS_SSD, "SystemStructureDescription")) {
        char q[128];
        rtc__xml_error(&L->x, root, "root element <%s> is not ssd:SystemStructureDescription "
                       "(namespace %s)", rtc__ssp_qname(root, q, sizeof q), RTC_SSP_NS_SSD);
        return RTC_EPARSE;
    }
    int rc = check_version(L, root);
    if (rc != RTC_OK)
        return rc; /* another version's content would only produce noise */
    rtc__xml_check_attrs(&L->x, root, known);
    rc = rtc__xml_attr_dup(&L->x, root, "name", true, &L->ssp->name);
    if (rc == RTC_ENOMEM)
        return rc;
    rtc__ssp_fail(L, rc);
    rc = read_definitions(L, root);
    return rc == RTC_OK ? read_root_children(L, root) : rc;
}

/* Parse the .ssd with the hardened reader (no network, no entity expansion) and read
 * it; relative URIs resolve against the absolute directory of the file. */
static int read_ssd(rtc__ssp_load *L)
{
    rtc__xml_init(&L->x, L->ssp->ssd_path, &L->lg);
    char *abs = rtc__ssp_abspath(L->ssp->ssd_path);
    L->ssd_dir = abs ? rtc__ssp_dirname(abs) : NULL;
    free(abs);
    /* a copied .ssd (a session's system.ssd) resolves against its original directory;
     * a package keeps its own resources */
    if (L->ssd_dir && L->base_dir && !L->ssp->extract_dir) {
        free(L->ssd_dir);
        L->ssd_dir = strdup(L->base_dir);
    }
    if (!L->ssd_dir)
        return RTC_ENOMEM;
    xmlDoc *doc = NULL;
    int rc = rtc__xml_read(&L->x, &doc);
    if (rc != RTC_OK)
        return rc;
    rc = read_root(L, xmlDocGetRootElement(doc));
    if (rc == RTC_OK)
        rtc__ssp_finish_realtime(L);
    xmlFreeDoc(doc);
    return rc;
}

int rtc_ssp_load(const char *path, const rtc_logger *lg, rtc_ssp **out)
{
    return rtc_ssp_load_from(path, NULL, lg, out);
}

int rtc_ssp_load_from(const char *path, const char *base_dir, const rtc_logger *lg,
                      rtc_ssp **out)
{
    if (!path || !out)
        return RTC_EINVAL;
    *out = NULL;
    rtc__ssp_load L = {.user_lg = lg, .base_dir = base_dir};
    L.lg = (rtc_logger){.log = wrap_log, .user = &L, .max_level = RTC_LOG_DEBUG};
    L.ssp = calloc(1, sizeof *L.ssp);
    if (!L.ssp)
        return RTC_ENOMEM;
    int rc = rtc__ssp_dup(path, &L.ssp->path);
    if (rc == RTC_OK)
        rc = locate_ssd(&L);
    if (rc == RTC_OK)
        rc = rtc__ssp_display(&L, L.ssp->ssd_path, &L.ssp->display_path);
    if (rc == RTC_OK)
        rc = read_ssd(&L);
    /* Chaining needs every reference resolved; after an error it would only add noise. */
    if (rc == RTC_OK && L.n_errors == 0)
        rc = rtc__ssp_flatten(&L);
    if (rc == RTC_OK && L.n_errors == 0)
        rc = rtc__ssp_propagate_params(&L);
    if (rc == RTC_OK)
        rc = L.first_rc;
    if (rc == RTC_OK && L.n_errors > 0)
        rc = RTC_EPARSE;
    rtc__ssp_systems_free(&L);
    free(L.ssd_dir);
    if (rc != RTC_OK) {
        rtc_ssp_free(L.ssp);
        return rc;
    }
    *out = L.ssp;
    return RTC_OK;
}

/* The free functions tolerate partially built objects: arrays are zeroed when they
 * grow, and counts are only incremented once an element holds something to free. */
void rtc_ssp_component_clear(rtc_ssp_component *c)
{
    free(c->name);
    free(c->type);
    free(c->source_uri);
    free(c->source);
    free(c->node);
    for (size_t j = 0; c->connectors && j < c->n_connectors; j++)
        rtc__ssp_connector_clear(&c->connectors[j]);
    free(c->connectors);
    rtc__ssp_settings_free(c->settings, c->n_settings);
}

void rtc_ssp_connection_clear(rtc_ssp_connection *c)
{
    free(c->start.element);
    free(c->start.name);
    free(c->end.element);
    free(c->end.name);
    rtc__ssp_transform_clear(&c->transform);
    free(c->settings.estimator);
    free(c->settings.params);
    free(c->via);
    free(c->file);
}

static void free_tables(rtc_ssp *s)
{
    for (size_t i = 0; s->units && i < s->n_units; i++)
        free(s->units[i].name);
    free(s->units);
    for (size_t i = 0; s->enums && i < s->n_enums; i++) {
        for (size_t j = 0; s->enums[i].items && j < s->enums[i].n_items; j++)
            free(s->enums[i].items[j].name);
        free(s->enums[i].items);
        free(s->enums[i].name);
    }
    free(s->enums);
    for (size_t i = 0; s->params && i < s->n_params; i++)
        rtc__ssp_param_clear(&s->params[i]);
    free(s->params);
}

void rtc_ssp_param_clear(rtc_ssp_param *p)
{
    rtc__ssp_param_clear(p);
}

void rtc_ssp_free(rtc_ssp *s)
{
    if (!s)
        return;
    if (s->extract_dir)
        rtc_tmpdir_remove(s->extract_dir);
    for (size_t i = 0; s->connectors && i < s->n_connectors; i++)
        rtc__ssp_connector_clear(&s->connectors[i]);
    free(s->connectors);
    for (size_t i = 0; s->components && i < s->n_components; i++)
        rtc_ssp_component_clear(&s->components[i]);
    free(s->components);
    for (size_t i = 0; s->connections && i < s->n_connections; i++)
        rtc_ssp_connection_clear(&s->connections[i]);
    free(s->connections);
    free_tables(s);
    rtc__ssp_realtime_clear(&s->realtime);
    free(s->path);
    free(s->ssd_path);
    free(s->display_path);
    free(s->extract_dir);
    free(s->version);
    free(s->name);
    free(s->system_name);
    free(s);
}

const rtc_ssp_component *rtc_ssp_find_component(const rtc_ssp *ssp, const char *name)
{
    for (size_t i = 0; ssp && name && i < ssp->n_components; i++)
        if (strcmp(ssp->components[i].name, name) == 0)
            return &ssp->components[i];
    return NULL;
}

long rtc_ssp_find_connector(const rtc_ssp_component *c, const char *name)
{
    for (size_t i = 0; c && name && i < c->n_connectors; i++)
        if (strcmp(c->connectors[i].name, name) == 0)
            return (long)i;
    return -1;
}

const rtc_ssp_unit *rtc_ssp_find_unit(const rtc_ssp *ssp, const char *name)
{
    for (size_t i = 0; ssp && name && i < ssp->n_units; i++)
        if (strcmp(ssp->units[i].name, name) == 0)
            return &ssp->units[i];
    return NULL;
}

const rtc_ssp_param *rtc_ssp_find_param(const rtc_ssp *ssp, const char *component,
                                        const char *name)
{
    for (size_t i = 0; ssp && component && name && i < ssp->n_params; i++) {
        const rtc_ssp_param *p = &ssp->params[i];
        if (!p->is_system && strcmp(p->component, component) == 0 && strcmp(p->name, name) == 0)
            return p;
    }
    return NULL;
}

/* Name tables follow the enum order; out-of-range values give "?", never a crash. */
const char *rtc_ssp_kind_name(rtc_ssp_kind kind)
{
    static const char *const names[] = {"input",    "output",   "parameter",
                                        "calculatedParameter", "inout",
                                        "structuralParameter", "constant", "local",
                                        "unspecified"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

const char *rtc_ssp_step_source_name(rtc_ssp_step_source src)
{
    static const char *const names[] = {"none", RTC_SSP_ANNOT_RTC, "com.opensimulationplatform",
                                        "org.openmodelica", "com.avl.model.connect.ssp.task"};
    return (unsigned)src < sizeof names / sizeof names[0] ? names[src] : "?";
}

const char *rtc_ssp_overrun_name(rtc_ssp_overrun o)
{
    static const char *const names[] = {"catch-up", "skip", "substitute", "stop"};
    return (unsigned)o < sizeof names / sizeof names[0] ? names[o] : "?";
}

const char *rtc_ssp_node_name_check(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0)
        return "a node name must not be empty";
    if (n > RTC_SSP_NODE_NAME_MAX)
        return "a node name has at most 40 characters";
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
            return "a node name has only letters, digits, '_' and '-'";
    return NULL;
}
