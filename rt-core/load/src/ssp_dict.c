/*
 * SSP loader: signal dictionaries (ssd:SignalDictionaries with an .ssb file or inline
 * ssb:SignalDictionary content) and ssd:SignalDictionaryReference elements.
 *
 * A dictionary entry is a named signal that elements write to and read from through
 * references, wherever a reference sits below the system that defines the dictionary
 * (names are looked up in the reference's system first, then outwards). The loader models
 * each dictionary as a junction: an rtc__ssp_sys with is_dict whose connectors are the
 * entries, and each reference is a child of its system pointing at that junction. A
 * connection to "reference.entry" is then an edge to the entry's node, and flattening
 * chains writer → entry → every reader exactly as it chains through subsystem connectors
 * (the junction's entries have kind "unspecified", so each edge is oriented by its other
 * end). Entries of one dictionary are one signal however many references name them.
 */
#include "ssp_priv.h"

#include "rtcosim/status.h"

#include <stdlib.h>
#include <string.h>

#define SSB_TYPE "application/x-ssp-signal-dictionary"

/* ssb:DictionaryEntry: a name and a type element (unit kept as for connectors). */
static int read_entry(rtc__xml_ctx *x, const xmlNode *n, rtc__ssp_sys *d)
{
    static const char *const known[] = {"name", "id", "description", NULL};
    rtc__xml_check_attrs(x, n, known);
    rtc_ssp_connector c = {.kind = RTC_SSP_KIND_UNSPECIFIED, .line = rtc__xml_line(n)};
    int rc = rtc__xml_attr_dup(x, n, "name", true, &c.name);
    for (const xmlNode *t = rtc__xml_child(n); rc == RTC_OK && t; t = rtc__xml_next(t)) {
        if (!c.has_type && rtc__ssp_type_of(t, RTC_SSP_NS_SSC, &c.type)) {
            c.has_type = true;
            rc = rtc__ssp_dup(rtc__xml_attr(t, "unit"), &c.unit);
        } else if (!rtc__xml_is(t, "Annotations")) {
            rtc__ssp_unknown(x, t);
        }
    }
    for (size_t i = 0; rc == RTC_OK && i < d->n_connectors; i++) {
        if (strcmp(d->connectors[i].name, c.name) == 0) {
            rtc__xml_attr_error(x, n, "name", "duplicate entry \"%s\" in signal dictionary "
                                "\"%s\" (first at line %u)", c.name, d->name,
                                d->connectors[i].line);
            rc = RTC_EPARSE;
        }
    }
    rtc_ssp_connector *arr = rc == RTC_OK ? realloc(d->connectors, (d->n_connectors + 1) *
                                                                      sizeof *arr)
                                          : NULL;
    if (!arr) {
        rtc__ssp_connector_clear(&c);
        return rc == RTC_OK ? RTC_ENOMEM : rc;
    }
    d->connectors = arr;
    arr[d->n_connectors++] = c;
    return RTC_OK;
}

/* ssb:SignalDictionary (a .ssb file's root or inline): entries, units, enumerations. */
static int read_ssb(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *n, void *arg)
{
    rtc__xml_check_attrs(x, n, rtc__ssp_file_attrs);
    long di = *(const long *)arg;
    if (!rtc__xml_attr(n, "version"))
        rtc__xml_attr_warn(x, n, "version", "missing (required): read as the .ssd's");
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        int rc = RTC_OK;
        if (rtc__ssp_is(c, RTC_SSP_NS_SSB, "DictionaryEntry"))
            rc = read_entry(x, c, &L->systems[di]);
        else if (rtc__ssp_is(c, RTC_SSP_NS_SSB, "Units"))
            rc = rtc__ssp_read_units(L, x, c);
        else if (rtc__ssp_is(c, RTC_SSP_NS_SSB, "Enumerations"))
            rc = rtc__ssp_read_enums(L, x, c);
        else if (!rtc__xml_is(c, "Annotations"))
            rtc__ssp_unknown(x, c);
        if (rc == RTC_ENOMEM)
            return rc;
        rtc__ssp_fail(L, rc);
    }
    return RTC_OK;
}

/* Index of the dictionary named @p name defined directly in system @p sys, or -1. */
static long dict_in(const rtc__ssp_load *L, long sys, const char *name)
{
    for (size_t i = 0; i < L->n_systems; i++) {
        const rtc__ssp_sys *s = &L->systems[i];
        if (s->is_dict && s->parent == sys && strcmp(s->name, name) == 0)
            return (long)i;
    }
    return -1;
}

/* ssd:SignalDictionary: its content from the source file or inline. Other types than
 * SSP's own are another specification's business: reported and skipped. */
static int read_dictionary(rtc__ssp_load *L, const xmlNode *n, long sys)
{
    static const char *const known[] = {"name", "type", "source", "id", "description", NULL};
    rtc__xml_check_attrs(&L->x, n, known);
    const char *name = rtc__xml_attr(n, "name"), *type = rtc__xml_attr(n, "type");
    if (!name || !name[0]) {
        rtc__xml_attr_error(&L->x, n, "name", name ? "empty" : "missing (required)");
        return RTC_EPARSE;
    }
    if (type && strcmp(type, SSB_TYPE) != 0) {
        rtc__xml_attr_warn(&L->x, n, "type", "signal dictionary type \"%s\" not supported: "
                           "ignored", type);
        return RTC_OK;
    }
    if (dict_in(L, sys, name) >= 0) {
        rtc__xml_attr_error(&L->x, n, "name", "duplicate signal dictionary \"%s\"", name);
        return RTC_EPARSE;
    }
    long di = -1;
    int rc = rtc__ssp_add_system(L, sys, name, &di);
    if (rc != RTC_OK)
        return rc;
    L->systems[di].is_dict = true;
    if (rtc__xml_attr(n, "source"))
        return rtc__ssp_read_source_file(L, n, -1, RTC_SSP_NS_SSB, "SignalDictionary",
                                         read_ssb, &di);
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (rtc__ssp_is(c, RTC_SSP_NS_SSB, "SignalDictionary"))
            rc = read_ssb(L, &L->x, c, &di);
        else
            rtc__ssp_unknown(&L->x, c);
        if (rc != RTC_OK)
            return rc;
    }
    return RTC_OK;
}

int rtc__ssp_read_dictionaries(rtc__ssp_load *L, const xmlNode *n, long sys)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (!rtc__ssp_is(c, RTC_SSP_NS_SSD, "SignalDictionary")) {
            rtc__ssp_unknown(&L->x, c);
            continue;
        }
        int rc = read_dictionary(L, c, sys);
        if (rc == RTC_ENOMEM)
            return rc;
        rtc__ssp_fail(L, rc);
    }
    return RTC_OK;
}

/* The reference's own connectors must name entries of its dictionary (their kinds only
 * say how the reference uses an entry; the connections carry the data flow). */
static int check_ref_connectors(rtc__ssp_load *L, const xmlNode *n, long dict)
{
    const rtc__ssp_sys *d = &L->systems[dict];
    int rc = RTC_OK;
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (!rtc__ssp_is(c, RTC_SSP_NS_SSD, "Connectors"))
            continue;
        for (const xmlNode *k = rtc__xml_child(c); k; k = rtc__xml_next(k)) {
            const char *name = rtc__xml_attr(k, "name");
            bool found = false;
            for (size_t i = 0; name && i < d->n_connectors && !found; i++)
                found = strcmp(d->connectors[i].name, name) == 0;
            if (name && !found) {
                rtc__xml_attr_error(&L->x, k, "name", "no entry \"%s\" in signal dictionary "
                                    "\"%s\"", name, d->name);
                rc = RTC_EPARSE;
            }
        }
    }
    return rc;
}

int rtc__ssp_read_dict_ref(rtc__ssp_load *L, const xmlNode *n, long sys, long *dict)
{
    static const char *const known[] = {"name", "dictionary", "id", "description", NULL};
    rtc__xml_check_attrs(&L->x, n, known);
    const char *name = rtc__xml_attr(n, "dictionary");
    *dict = -1;
    if (!name) {
        rtc__xml_attr_error(&L->x, n, "dictionary", "missing (required)");
        return RTC_EPARSE;
    }
    for (long s = sys; s >= 0 && *dict < 0; s = L->systems[s].parent)
        *dict = dict_in(L, s, name);
    if (*dict < 0) {
        rtc__xml_attr_error(&L->x, n, "dictionary", "no signal dictionary \"%s\" in system "
                            "\"%s\" or a system enclosing it", name, L->systems[sys].name);
        return RTC_EPARSE;
    }
    return check_ref_connectors(L, n, *dict);
}
