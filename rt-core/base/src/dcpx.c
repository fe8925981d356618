/*
 * dcpx.c — the DCP slave description reader (rtcosim/dcpx.h): one function per element,
 * every problem logged as "FILE:LINE: <Element> <attribute>: reason" through base's XML
 * helpers (xml_util.h: no network, no entities), all of them before the read fails.
 * Element and attribute names and defaults are those of the DCP 1.0 schema
 * (dcpSlaveDescription.xsd, dcpVariable.xsd, dcpTransportProtocolTypes.xsd).
 */
#include "rtcosim/dcpx.h"

#include "rtcosim/dcp.h"
#include "rtcosim/status.h"

#include "xml_util.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct rd {
    rtc__xml_ctx x;
    rtc_dcpx *d;
    int rc; /* the worst outcome so far: RTC_OK, RTC_EPARSE, RTC_ENOMEM */
} rd;

/* Keep the first failure; out of memory beats a parse error (it stops the read). */
static int note(rd *r, int rc)
{
    if (rc == RTC_ENOMEM || (rc != RTC_OK && r->rc == RTC_OK))
        r->rc = rc;
    return rc;
}

static void *grow(rd *r, void *arr, size_t n, size_t size)
{
    void *p = realloc(arr, (n + 1) * size);
    if (!p) {
        note(r, RTC_ENOMEM);
        return NULL;
    }
    memset((char *)p + n * size, 0, size);
    return p;
}

static uint32_t attr_u32(rd *r, const xmlNode *n, const char *name, uint32_t dflt, bool *has)
{
    uint64_t v = dflt;
    note(r, rtc__xml_attr_u64(&r->x, n, name, 32, &v, has));
    return (uint32_t)v;
}

static bool attr_bool(rd *r, const xmlNode *n, const char *name, bool dflt)
{
    bool v = dflt;
    note(r, rtc__xml_attr_bool(&r->x, n, name, &v, NULL));
    return v;
}

static char *attr_str(rd *r, const xmlNode *n, const char *name, bool required)
{
    char *s = NULL;
    note(r, rtc__xml_attr_dup(&r->x, n, name, required, &s));
    return s;
}

/* ---- OpMode, TimeRes, Heartbeat, CapabilityFlags ---- */

static void read_op_mode(rd *r, const xmlNode *n)
{
    rtc_dcpx *d = r->d;
    d->op_mode_line = rtc__xml_line(n);
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (rtc__xml_is(c, "HardRealTime")) {
            d->hrt = true;
        } else if (rtc__xml_is(c, "SoftRealTime")) {
            d->srt = true;
        } else if (rtc__xml_is(c, "NonRealTime")) {
            bool has_min, has_max;
            d->nrt = true;
            d->nrt_default_steps = attr_u32(r, c, "defaultSteps", 1, NULL);
            d->nrt_fixed_steps = attr_bool(r, c, "fixedSteps", true);
            d->nrt_min_steps = attr_u32(r, c, "minSteps", 0, &has_min);
            d->nrt_max_steps = attr_u32(r, c, "maxSteps", 0, &has_max);
            if (has_min && has_max && d->nrt_max_steps < d->nrt_min_steps)
                note(r, (rtc__xml_attr_error(&r->x, c, "maxSteps", "below minSteps"),
                         RTC_EPARSE));
        } else {
            rtc__xml_unknown_child(&r->x, c);
        }
    }
    if (!d->hrt && !d->srt && !d->nrt) {
        rtc__xml_error(&r->x, n, "OpMode: none of HardRealTime, SoftRealTime, NonRealTime");
        note(r, RTC_EPARSE);
    }
}

static void read_resolution(rd *r, const xmlNode *c, rtc_dcpx_res *e)
{
    bool has_from, has_to, has_den;
    e->range = rtc__xml_is(c, "ResolutionRange");
    if (e->range) {
        e->numerator = attr_u32(r, c, "numeratorFrom", 0, &has_from);
        e->numerator_to = attr_u32(r, c, "numeratorTo", 0, &has_to);
        e->denominator = attr_u32(r, c, "denominator", 0, &has_den);
        const char *miss = !has_from ? "numeratorFrom" : !has_to ? "numeratorTo"
                                                      : !has_den ? "denominator" : NULL;
        if (miss)
            note(r, (rtc__xml_attr_error(&r->x, c, miss, "missing (required)"), RTC_EPARSE));
        else if (e->numerator_to < e->numerator)
            note(r, (rtc__xml_attr_error(&r->x, c, "numeratorTo", "below numeratorFrom"),
                     RTC_EPARSE));
    } else {
        e->numerator = e->numerator_to = attr_u32(r, c, "numerator", 1, NULL);
        e->denominator = attr_u32(r, c, "denominator", 1000, NULL);
        e->fixed = attr_bool(r, c, "fixed", true);
        e->recommended = attr_bool(r, c, "recommended", false);
    }
    if (e->numerator == 0 || e->denominator == 0)
        note(r, (rtc__xml_error(&r->x, c, "%s: a time resolution of zero (%u/%u)",
                                rtc__xml_name(c), e->numerator, e->denominator),
                 RTC_EPARSE));
}

static void read_time_res(rd *r, const xmlNode *n)
{
    rtc_dcpx *d = r->d;
    size_t fixed = 0;
    d->time_res_line = rtc__xml_line(n);
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (!rtc__xml_is(c, "Resolution") && !rtc__xml_is(c, "ResolutionRange")) {
            rtc__xml_unknown_child(&r->x, c);
            continue;
        }
        rtc_dcpx_res *a = grow(r, d->res, d->n_res, sizeof *a);
        if (!a)
            return;
        d->res = a;
        read_resolution(r, c, &a[d->n_res]);
        fixed += !a[d->n_res].range && a[d->n_res].fixed;
        d->n_res++;
    }
    if (fixed && d->n_res > 1)
        note(r, (rtc__xml_error(&r->x, n, "TimeRes: a fixed Resolution must be the only "
                                          "resolution (%zu given)", d->n_res),
                 RTC_EPARSE));
}

static void read_heartbeat(rd *r, const xmlNode *n)
{
    const xmlNode *c = rtc__xml_child(n);
    r->d->heartbeat = true;
    r->d->hb_numerator = r->d->hb_denominator = 1;
    if (!c || !rtc__xml_is(c, "MaximumPeriodicInterval"))
        return;
    r->d->hb_numerator = attr_u32(r, c, "numerator", 1, NULL);
    r->d->hb_denominator = attr_u32(r, c, "denominator", 1, NULL);
    if (!r->d->hb_numerator || !r->d->hb_denominator)
        note(r, (rtc__xml_error(&r->x, c, "MaximumPeriodicInterval: zero"), RTC_EPARSE));
}

static void read_capabilities(rd *r, const xmlNode *n)
{
    rtc_dcpx *d = r->d;
    d->can_accept_config_pdus = attr_bool(r, n, "canAcceptConfigPdus", false);
    d->can_handle_reset = attr_bool(r, n, "canHandleReset", false);
    d->can_handle_variable_steps = attr_bool(r, n, "canHandleVariableSteps", false);
    d->can_monitor_heartbeat = attr_bool(r, n, "canMonitorHeartbeat", false);
    d->can_provide_log_on_request = attr_bool(r, n, "canProvideLogOnRequest", false);
    d->can_provide_log_on_notification = attr_bool(r, n, "canProvideLogOnNotification", false);
}

/* ---- TransportProtocols ---- */

/* DAT_input_output / DAT_parameter: host and the ports offered. */
static void read_dat_ports(rd *r, const xmlNode *n, char **host, rtc_dcpx_ports **ports,
                           size_t *n_ports)
{
    *host = attr_str(r, n, "host", false);
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        bool range = rtc__xml_is(c, "AvailablePortRange");
        if (!range && !rtc__xml_is(c, "AvailablePort")) {
            rtc__xml_unknown_child(&r->x, c);
            continue;
        }
        uint64_t from = 0, to = 0;
        bool has_from, has_to;
        const char *a = range ? "from" : "port";
        note(r, rtc__xml_attr_u64(&r->x, c, a, 16, &from, &has_from));
        note(r, rtc__xml_attr_u64(&r->x, c, range ? "to" : "port", 16, &to, &has_to));
        if (!has_from || !has_to) {
            note(r, (rtc__xml_attr_error(&r->x, c, has_from ? "to" : a, "missing (required)"),
                     RTC_EPARSE));
            continue;
        }
        if (to < from)
            note(r, (rtc__xml_attr_error(&r->x, c, "to", "below from"), RTC_EPARSE));
        rtc_dcpx_ports *p = grow(r, *ports, *n_ports, sizeof *p);
        if (!p)
            return;
        *ports = p;
        p[(*n_ports)++] = (rtc_dcpx_ports){(uint16_t)from, (uint16_t)to};
    }
}

static void read_udp(rd *r, const xmlNode *n)
{
    rtc_dcpx *d = r->d;
    d->udp = true;
    d->udp_line = rtc__xml_line(n);
    d->udp_max_pdu = attr_u32(r, n, "maxPduSize", RTC_DCP_UDP_MAX_PDU, NULL);
    if (d->udp_max_pdu < 16 || d->udp_max_pdu > RTC_DCP_UDP_MAX_PDU)
        note(r, (rtc__xml_attr_error(&r->x, n, "maxPduSize", "%u is not a UDP_IPv4 size "
                                     "(16 to %u bytes)", d->udp_max_pdu, RTC_DCP_UDP_MAX_PDU),
                 RTC_EPARSE));
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (rtc__xml_is(c, "Control")) {
            uint64_t port = 0;
            d->control_host = attr_str(r, c, "host", false);
            note(r, rtc__xml_attr_u64(&r->x, c, "port", 16, &port, NULL));
            d->control_port = (uint16_t)port;
        } else if (rtc__xml_is(c, "DAT_input_output")) {
            read_dat_ports(r, c, &d->dat_host, &d->dat_ports, &d->n_dat_ports);
        } else if (rtc__xml_is(c, "DAT_parameter")) {
            read_dat_ports(r, c, &d->param_host, &d->param_ports, &d->n_param_ports);
        } else {
            rtc__xml_unknown_child(&r->x, c);
        }
    }
}

static void read_transports(rd *r, const xmlNode *n)
{
    rtc_dcpx *d = r->d;
    d->transport_line = rtc__xml_line(n);
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (rtc__xml_is(c, "UDP_IPv4"))
            read_udp(r, c);
        else if (rtc__xml_is(c, "TCP_IPv4"))
            d->tcp = true;
        else if (rtc__xml_is(c, "CAN"))
            d->can = true;
        else if (rtc__xml_is(c, "USB2"))
            d->usb = true;
        else if (rtc__xml_is(c, "Bluetooth"))
            d->bluetooth = true;
        else
            rtc__xml_unknown_child(&r->x, c);
    }
    if (!d->udp && !d->tcp && !d->can && !d->usb && !d->bluetooth)
        note(r, (rtc__xml_error(&r->x, n, "TransportProtocols: no transport protocol"),
                 RTC_EPARSE));
}

/* ---- Variables ---- */

static const char *const type_elems[] = {"Uint8", "Uint16", "Uint32",  "Uint64",
                                         "Int8",  "Int16",  "Int32",   "Int64",
                                         "Float32", "Float64", "String", "Binary", NULL};

/* One number of @p type in @p tok (a whole token): within the type's range, finite. */
static bool parse_value(uint8_t type, const char *tok, double *v)
{
    static const unsigned bits[] = {8, 16, 32, 64, 8, 16, 32, 64};
    if (type <= RTC_DCP_UINT64) {
        uint64_t u;
        if (!rtc__xml_parse_u64(tok, bits[type], &u))
            return false;
        *v = (double)u;
    } else if (type <= RTC_DCP_INT64) {
        int64_t i;
        if (!rtc__xml_parse_i64(tok, bits[type], &i))
            return false;
        *v = (double)i;
    } else if (!rtc__xml_parse_f64(tok, v) || !isfinite(*v) ||
               (type == RTC_DCP_FLOAT32 && fabs(*v) > FLT_MAX)) {
        return false;
    }
    return true;
}

/* min, max or start (the first of its list: values of the elements) of a numeric type. */
static void read_number(rd *r, const xmlNode *t, const char *name, uint8_t type, bool *has,
                        double *v)
{
    const char *s = rtc__xml_attr(t, name);
    char tok[128];
    *has = false;
    if (!s || !rtc_dcp_type_numeric(type))
        return;
    s += strspn(s, " \t\r\n");
    size_t len = strcspn(s, " \t\r\n");
    bool ok = len > 0 && len < sizeof tok;
    if (ok) {
        memcpy(tok, s, len);
        tok[len] = '\0';
        ok = parse_value(type, tok, v);
    }
    if (!ok) {
        rtc__xml_attr_error(&r->x, t, name, "not a finite %s value (\"%s\")",
                            rtc_dcp_data_type_name(type), s);
        note(r, RTC_EPARSE);
        return;
    }
    *has = true;
}

static void read_type(rd *r, const xmlNode *t, rtc_dcpx_var *v)
{
    int k = 0;
    while (type_elems[k] && !rtc__xml_is(t, type_elems[k]))
        k++;
    v->type = (uint8_t)k;
    if (v->type > RTC_DCP_FLOAT64) {
        v->has_start = rtc__xml_attr(t, "start") != NULL;
        return;
    }
    read_number(r, t, "start", v->type, &v->has_start, &v->start);
    read_number(r, t, "min", v->type, &v->has_min, &v->min);
    read_number(r, t, "max", v->type, &v->has_max, &v->max);
    if (v->has_min && v->has_max && v->max < v->min)
        note(r, (rtc__xml_attr_error(&r->x, t, "max", "below min"), RTC_EPARSE));
    if (v->type >= RTC_DCP_FLOAT32)
        v->unit = attr_str(r, t, "unit", false);
}

static void read_dimensions(rd *r, const xmlNode *n, rtc_dcpx_var *v)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        uint64_t k = 0;
        bool has_k = false;
        if (!rtc__xml_is(c, "Dimension")) {
            rtc__xml_unknown_child(&r->x, c);
            continue;
        }
        note(r, rtc__xml_attr_u64(&r->x, c, "constant", 64, &k, &has_k));
        bool linked = rtc__xml_attr(c, "linkedVR") != NULL;
        if (has_k == linked || (has_k && k == 0))
            note(r, (rtc__xml_error(&r->x, c, "Dimension: exactly one of constant (>= 1) "
                                              "and linkedVR"),
                     RTC_EPARSE));
        v->n_elems = linked || !has_k ? 0 : v->n_elems * (size_t)(k > SIZE_MAX ? 0 : k);
    }
}

/* Input / Output / Parameter / StructuralParameter and what it holds. */
static void read_causality(rd *r, const xmlNode *n, rtc_dcpx_var *v)
{
    const xmlNode *t = rtc__xml_child(n);
    int k = 0;
    v->n_elems = 1;
    while (t && type_elems[k] && !rtc__xml_is(t, type_elems[k]))
        k++;
    if (!t || !type_elems[k]) {
        rtc__xml_error(&r->x, n, "%s of variable '%s': no type element (Float64, Int32, ...) "
                       "first", rtc__xml_name(n), v->name ? v->name : "?");
        note(r, RTC_EPARSE);
        return;
    }
    read_type(r, t, v);
    if (!rtc__xml_attr(t, "start") && v->causality != RTC_DCPX_OUTPUT)
        note(r, (rtc__xml_attr_error(&r->x, t, "start", "missing (required for an %s)",
                                     rtc__xml_name(n)),
                 RTC_EPARSE));
    for (const xmlNode *c = rtc__xml_next(t); c; c = rtc__xml_next(c))
        if (rtc__xml_is(c, "Dimensions"))
            read_dimensions(r, c, v);
        else if (!rtc__xml_is(c, "Dependencies"))
            rtc__xml_unknown_child(&r->x, c);
    if (v->causality == RTC_DCPX_OUTPUT) {
        bool has_min, has_max;
        v->default_steps = attr_u32(r, n, "defaultSteps", 1, NULL);
        v->fixed_steps = attr_bool(r, n, "fixedSteps", true);
        v->min_steps = attr_u32(r, n, "minSteps", 0, &has_min);
        v->max_steps = attr_u32(r, n, "maxSteps", 0, &has_max);
        v->initialization = attr_bool(r, n, "initialization", false);
        if (v->default_steps == 0)
            note(r, (rtc__xml_attr_error(&r->x, n, "defaultSteps", "0 (at least 1)"),
                     RTC_EPARSE));
    }
}

static void read_variable(rd *r, const xmlNode *n, rtc_dcpx_var *v)
{
    static const char *const kinds[] = {"Input", "Output", "Parameter", "StructuralParameter",
                                        NULL};
    bool has_vr;
    v->line = rtc__xml_line(n);
    v->name = attr_str(r, n, "name", true);
    note(r, rtc__xml_attr_u64(&r->x, n, "valueReference", 64, &v->vr, &has_vr));
    if (!has_vr && rtc__xml_attr(n, "valueReference") == NULL)
        note(r, (rtc__xml_attr_error(&r->x, n, "valueReference", "missing (required)"),
                 RTC_EPARSE));
    v->variability = attr_str(r, n, "variability", false);
    v->declared_type = attr_str(r, n, "declaredType", false);
    v->max_consec_missed = attr_u32(r, n, "maxConsecMissedPdus", 0, NULL);
    const xmlNode *which = NULL;
    size_t count = 0;
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        int k = 0;
        while (kinds[k] && !rtc__xml_is(c, kinds[k]))
            k++;
        if (!kinds[k]) {
            rtc__xml_unknown_child(&r->x, c);
            continue;
        }
        count++;
        which = c;
        v->causality = (uint8_t)k;
    }
    if (count != 1) {
        rtc__xml_error(&r->x, n, "Variable '%s': %s of Input, Output, Parameter, "
                       "StructuralParameter", v->name ? v->name : "?",
                       count ? "more than one" : "none");
        note(r, RTC_EPARSE);
        return;
    }
    read_causality(r, which, v);
}

static int by_name(const void *a, const void *b)
{
    const rtc_dcpx_var *x = *(const rtc_dcpx_var *const *)a, *y = *(const rtc_dcpx_var *const *)b;
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static int by_vr(const void *a, const void *b)
{
    const rtc_dcpx_var *x = *(const rtc_dcpx_var *const *)a, *y = *(const rtc_dcpx_var *const *)b;
    return x->vr < y->vr ? -1 : x->vr > y->vr;
}

/* Names and value references are unique (sorted copies: large files stay fast). */
static void check_unique(rd *r)
{
    size_t n = r->d->n_vars;
    if (n < 2)
        return; /* (qsort must not see the NULL of an empty list) */
    const rtc_dcpx_var **p = malloc(n * sizeof *p);
    if (!p) {
        note(r, RTC_ENOMEM);
        return;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++)
            p[i] = &r->d->vars[i];
        qsort(p, n, sizeof *p, pass ? by_vr : by_name);
        for (size_t i = 1; i < n; i++) {
            if ((pass ? by_vr : by_name)(&p[i - 1], &p[i]) != 0 || (!pass && !p[i]->name))
                continue;
            const rtc_dcpx_var *a = p[i - 1]->line < p[i]->line ? p[i - 1] : p[i];
            const rtc_dcpx_var *b = a == p[i] ? p[i - 1] : p[i];
            if (pass)
                rtc_log(r->x.lg, RTC_LOG_ERROR, "%s:%u: Variable '%s': valueReference %llu "
                        "already used by '%s' at line %u", r->x.file, b->line,
                        b->name ? b->name : "?", (unsigned long long)b->vr,
                        a->name ? a->name : "?", a->line);
            else
                rtc_log(r->x.lg, RTC_LOG_ERROR, "%s:%u: Variable '%s': name already used at "
                        "line %u", r->x.file, b->line, b->name, a->line);
            r->x.n_errors++;
            note(r, RTC_EPARSE);
        }
    }
    free(p);
}

static void read_variables(rd *r, const xmlNode *n)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (!rtc__xml_is(c, "Variable")) {
            rtc__xml_unknown_child(&r->x, c);
            continue;
        }
        rtc_dcpx_var *a = grow(r, r->d->vars, r->d->n_vars, sizeof *a);
        if (!a)
            return;
        r->d->vars = a;
        read_variable(r, c, &a[r->d->n_vars++]);
    }
    check_unique(r);
}

/* Log/Templates/Template: what an NTF_log names by its template id. */
static void read_log(rd *r, const xmlNode *n)
{
    for (const xmlNode *s = rtc__xml_child(n); s; s = rtc__xml_next(s)) {
        if (!rtc__xml_is(s, "Templates"))
            continue; /* Categories name the categories only */
        for (const xmlNode *t = rtc__xml_child(s); t; t = rtc__xml_next(t)) {
            uint64_t id = 0, cat = 0, lvl = 0;
            if (!rtc__xml_is(t, "Template"))
                continue;
            note(r, rtc__xml_attr_u64(&r->x, t, "id", 8, &id, NULL));
            note(r, rtc__xml_attr_u64(&r->x, t, "category", 8, &cat, NULL));
            note(r, rtc__xml_attr_u64(&r->x, t, "level", 8, &lvl, NULL));
            rtc_dcpx_template *a = grow(r, r->d->templates, r->d->n_templates, sizeof *a);
            if (!a)
                return;
            r->d->templates = a;
            a[r->d->n_templates++] = (rtc_dcpx_template){(uint8_t)id, (uint8_t)cat,
                                                          (uint8_t)lvl,
                                                          attr_str(r, t, "msg", true)};
        }
    }
}

/* ---- the root ---- */

static void read_root_attrs(rd *r, const xmlNode *root)
{
    rtc_dcpx *d = r->d;
    uint64_t major = 0, minor = 0;
    bool has_major, has_minor;
    note(r, rtc__xml_attr_u64(&r->x, root, "dcpMajorVersion", 8, &major, &has_major));
    note(r, rtc__xml_attr_u64(&r->x, root, "dcpMinorVersion", 8, &minor, &has_minor));
    d->major = (unsigned)major;
    d->minor = (unsigned)minor;
    if (!has_major || !has_minor)
        note(r, (rtc__xml_attr_error(&r->x, root, has_major ? "dcpMinorVersion"
                                                            : "dcpMajorVersion",
                                     "missing (required)"),
                 RTC_EPARSE));
    else if (major != RTC_DCP_VERSION_MAJOR || minor != RTC_DCP_VERSION_MINOR)
        note(r, (rtc__xml_error(&r->x, root, "dcpSlaveDescription: DCP %u.%u is not "
                                "supported (this engine speaks DCP 1.0)", d->major, d->minor),
                 RTC_EPARSE));
    d->slave_name = attr_str(r, root, "dcpSlaveName", true);
    d->uuid_text = attr_str(r, root, "uuid", true);
    if (d->uuid_text && !rtc_dcp_uuid_parse(d->uuid_text, d->uuid))
        note(r, (rtc__xml_attr_error(&r->x, root, "uuid", "not a uuid "
                                     "(8-4-4-4-12 hexadecimal digits): \"%s\"", d->uuid_text),
                 RTC_EPARSE));
    d->description = attr_str(r, root, "description", false);
    d->generation_tool = attr_str(r, root, "generationTool", false);
}

typedef struct section {
    const char *name;
    void (*read)(rd *r, const xmlNode *n);
    bool required;
} section;

static const section sections[] = {
    {"OpMode", read_op_mode, true},          {"UnitDefinitions", NULL, false},
    {"TypeDefinitions", NULL, false},        {"VendorAnnotations", NULL, false},
    {"TimeRes", read_time_res, true},        {"Heartbeat", read_heartbeat, false},
    {"TransportProtocols", read_transports, true},
    {"CapabilityFlags", read_capabilities, true},
    {"Variables", read_variables, true},     {"Log", read_log, false},
};
#define N_SECTIONS (sizeof sections / sizeof sections[0])

static void read_root(rd *r, const xmlNode *root)
{
    unsigned seen[N_SECTIONS] = {0};
    read_root_attrs(r, root);
    for (const xmlNode *c = rtc__xml_child(root); c && r->rc != RTC_ENOMEM;
         c = rtc__xml_next(c)) {
        size_t k = 0;
        while (k < N_SECTIONS && !rtc__xml_is(c, sections[k].name))
            k++;
        if (k == N_SECTIONS) {
            rtc__xml_unknown_child(&r->x, c);
            continue;
        }
        if (seen[k]++) {
            rtc__xml_error(&r->x, c, "%s: given twice", sections[k].name);
            note(r, RTC_EPARSE);
        } else if (sections[k].read) {
            sections[k].read(r, c);
        }
    }
    for (size_t k = 0; k < N_SECTIONS; k++)
        if (sections[k].required && !seen[k])
            note(r, (rtc__xml_error(&r->x, root, "dcpSlaveDescription: %s missing "
                                    "(required)", sections[k].name),
                     RTC_EPARSE));
}

int rtc_dcpx_read(const char *path, const rtc_logger *lg, rtc_dcpx **out)
{
    if (!path || !out)
        return RTC_EINVAL;
    rd r = {.rc = RTC_OK};
    xmlDoc *doc = NULL;
    rtc__xml_init(&r.x, path, lg);
    int rc = rtc__xml_read(&r.x, &doc);
    if (rc != RTC_OK)
        return rc;
    r.d = calloc(1, sizeof *r.d);
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (!r.d || !(r.d->path = strdup(path))) {
        note(&r, RTC_ENOMEM);
    } else if (!rtc__xml_is(root, "dcpSlaveDescription")) {
        rtc__xml_error(&r.x, root, "root element <%s> is not dcpSlaveDescription",
                       rtc__xml_name(root));
        note(&r, RTC_EPARSE);
    } else {
        read_root(&r, root);
    }
    if (r.rc == RTC_OK && r.x.n_errors)
        r.rc = RTC_EPARSE; /* an attribute helper logged an error it also returned */
    xmlFreeDoc(doc);
    if (r.rc != RTC_OK) {
        rtc_dcpx_free(r.d);
        return r.rc;
    }
    *out = r.d;
    return RTC_OK;
}

void rtc_dcpx_free(rtc_dcpx *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_vars; i++) {
        free(d->vars[i].name);
        free(d->vars[i].variability);
        free(d->vars[i].declared_type);
        free(d->vars[i].unit);
    }
    for (size_t i = 0; i < d->n_templates; i++)
        free(d->templates[i].msg);
    free(d->vars);
    free(d->templates);
    free(d->res);
    free(d->dat_ports);
    free(d->param_ports);
    free(d->control_host);
    free(d->dat_host);
    free(d->param_host);
    free(d->slave_name);
    free(d->uuid_text);
    free(d->description);
    free(d->generation_tool);
    free(d->path);
    free(d);
}

const rtc_dcpx_var *rtc_dcpx_find(const rtc_dcpx *d, const char *name)
{
    for (size_t i = 0; d && name && i < d->n_vars; i++)
        if (d->vars[i].name && strcmp(d->vars[i].name, name) == 0)
            return &d->vars[i];
    return NULL;
}

const rtc_dcpx_template *rtc_dcpx_template_find(const rtc_dcpx *d, uint8_t id)
{
    for (size_t i = 0; d && i < d->n_templates; i++)
        if (d->templates[i].id == id)
            return &d->templates[i];
    return NULL;
}

const char *rtc_dcpx_causality_name(int causality)
{
    static const char *const names[] = {"Input", "Output", "Parameter", "StructuralParameter"};
    return causality >= 0 && causality < 4 ? names[causality] : "unknown";
}
