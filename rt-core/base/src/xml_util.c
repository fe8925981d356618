/*
 * libxml2 helpers shared by rtcosim's XML readers: a hardened file read, per-context error
 * capture, element iteration and typed attribute conversion with "FILE:LINE:" diagnostics.
 *
 * Security: documents come from archives of unknown origin. Parsing uses XML_PARSE_NONET
 * only (never NOENT, DTDLOAD or DTDATTR), so no entity is substituted and no external
 * resource is fetched; on top of that a SAX hook stops the parser at the first entity
 * declaration, which turns "billion laughs" style documents into a clear error before any
 * reference to such an entity is even parsed.
 *
 * Numbers go through the one number parser (rtcosim/numparse.h), in the C locale: XML
 * Schema numbers always use '.', whatever LC_NUMERIC the embedding application has set.
 */
#include "xml_util.h"

#include "rtcosim/numparse.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

#define TOKEN_MAX 256
#define RTC_XML_MSG_MAX RTC_LOG_MSG_MAX
#define XSI_NS "http://www.w3.org/2001/XMLSchema-instance"

/* What the parser callbacks record for one read (reached through ctxt->_private). */
typedef struct read_state {
    rtc__xml_ctx *x;
    bool failed;       /* a fatal error or an entity declaration was seen */
    bool entity_found; /* stopped because of an entity declaration */
} read_state;

void rtc__xml_init(rtc__xml_ctx *x, const char *file, const rtc_logger *lg)
{
    x->file = file;
    x->lg = lg;
    x->n_errors = 0;
    x->n_warnings = 0;
}

static void vlog_at(rtc__xml_ctx *x, int level, unsigned line, const char *fmt, va_list ap)
{
    if (level == RTC_LOG_ERROR)
        x->n_errors++;
    else
        x->n_warnings++;
    if (!rtc_log_enabled(x->lg, level))
        return;
    char msg[RTC_XML_MSG_MAX];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (line)
        rtc_log_write(x->lg, level, "%s:%u: %s", x->file, line, msg);
    else
        rtc_log_write(x->lg, level, "%s: %s", x->file, msg);
}

static void log_at(rtc__xml_ctx *x, int level, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void log_at(rtc__xml_ctx *x, int level, unsigned line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog_at(x, level, line, fmt, ap);
    va_end(ap);
}

/* Structured error handler of one parser context. Only the first error is logged: after
 * it libxml2 reports consequences of the same mistake, which would only add noise. */
static void on_xml_error(void *user, xmlErrorPtr e)
{
    xmlParserCtxtPtr ctxt = user;
    read_state *rs = ctxt ? ctxt->_private : NULL;
    if (!rs || !e || rs->entity_found)
        return;
    char msg[RTC_XML_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", e->message ? e->message : "XML error");
    size_t len = strlen(msg);
    while (len > 0 && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
        msg[--len] = '\0';
    if (e->level == XML_ERR_WARNING) {
        log_at(rs->x, RTC_LOG_WARNING, (unsigned)(e->line > 0 ? e->line : 0), "%s", msg);
        return;
    }
    if (!rs->failed)
        log_at(rs->x, RTC_LOG_ERROR, (unsigned)(e->line > 0 ? e->line : 0), "%s", msg);
    rs->failed = true;
}

/* SAX entityDecl hook: refuse the document at the first declaration (general or
 * parameter entity) and stop the parser, so nothing is ever expanded or checked. */
static void on_entity_decl(void *user,
                           const xmlChar *name,
                           int type,
                           const xmlChar *public_id,
                           const xmlChar *system_id,
                           xmlChar *content)
{
    (void)type;
    (void)public_id;
    (void)system_id;
    (void)content;
    xmlParserCtxtPtr ctxt = user;
    read_state *rs = ctxt->_private;
    if (!rs->entity_found) {
        log_at(rs->x, RTC_LOG_ERROR, (unsigned)xmlSAX2GetLineNumber(ctxt),
               "DOCTYPE declares entity \"%s\": entity declarations are refused", name);
    }
    rs->entity_found = true;
    rs->failed = true;
    xmlStopParser(ctxt);
}

/* Process-wide libxml2 defaults that would enable entity substitution or DTD loading for
 * parsers created without explicit options. The options passed to xmlCtxtReadFile already
 * rule both out; this guards against an embedding application that changed the defaults.
 * The setters are deprecated (and unnecessary) from libxml2 2.12 on. */
static void harden_defaults(void)
{
#if LIBXML_VERSION < 21200
    xmlSubstituteEntitiesDefault(0);
    xmlLoadExtDtdDefaultValue = 0;
    xmlDoValidityCheckingDefaultValue = 0;
#endif
}

static int check_readable(rtc__xml_ctx *x)
{
    struct stat sb;
    if (stat(x->file, &sb) != 0) {
        int rc = rtc_status_from_errno(errno);
        log_at(x, RTC_LOG_ERROR, 0, "cannot open: %s", rtc_strerror(rc));
        return rc;
    }
    if (!S_ISREG(sb.st_mode)) {
        log_at(x, RTC_LOG_ERROR, 0, "cannot open: not a regular file");
        return RTC_EIO;
    }
    return RTC_OK;
}

int rtc__xml_read(rtc__xml_ctx *x, xmlDoc **out)
{
    int rc = check_readable(x);
    if (rc != RTC_OK)
        return rc;
    xmlInitParser();
    harden_defaults();
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt)
        return RTC_ENOMEM;
    read_state rs = {.x = x};
    /* Errors reach on_xml_error with the context as user data; _private carries our
     * state, so concurrent reads in different threads never share a handler. */
    ctxt->_private = &rs;
    ctxt->sax->serror = on_xml_error;
    ctxt->sax->entityDecl = on_entity_decl;
    xmlDoc *doc = xmlCtxtReadFile(ctxt, x->file, NULL, XML_PARSE_NONET | XML_PARSE_BIG_LINES);
    if (!rs.failed && (!doc || !ctxt->wellFormed)) {
        log_at(x, RTC_LOG_ERROR, 0, "not well-formed XML");
        rs.failed = true;
    }
    if (!rs.failed && !xmlDocGetRootElement(doc)) {
        log_at(x, RTC_LOG_ERROR, 0, "no root element");
        rs.failed = true;
    }
    xmlFreeParserCtxt(ctxt);
    if (rs.failed) {
        xmlFreeDoc(doc);
        return RTC_EPARSE;
    }
    *out = doc;
    return RTC_OK;
}

unsigned rtc__xml_line(const xmlNode *n)
{
    long l = n ? xmlGetLineNo(n) : 0;
    return l > 0 ? (unsigned)l : 0;
}

const char *rtc__xml_name(const xmlNode *n)
{
    return n && n->name ? (const char *)n->name : "?";
}

bool rtc__xml_is(const xmlNode *n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static xmlNode *skip_to_elem(xmlNode *n)
{
    while (n && n->type != XML_ELEMENT_NODE)
        n = n->next;
    return n;
}

xmlNode *rtc__xml_child(const xmlNode *n)
{
    return n ? skip_to_elem(n->children) : NULL;
}

xmlNode *rtc__xml_next(const xmlNode *n)
{
    return n ? skip_to_elem(n->next) : NULL;
}

size_t rtc__xml_count(const xmlNode *n, const char *name)
{
    size_t k = 0;
    for (xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c))
        if (!name || rtc__xml_is(c, name))
            k++;
    return k;
}

void rtc__xml_error(rtc__xml_ctx *x, const xmlNode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog_at(x, RTC_LOG_ERROR, rtc__xml_line(n), fmt, ap);
    va_end(ap);
}

void rtc__xml_warn(rtc__xml_ctx *x, const xmlNode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog_at(x, RTC_LOG_WARNING, rtc__xml_line(n), fmt, ap);
    va_end(ap);
}

static void attr_vlog(
    rtc__xml_ctx *x, int level, const xmlNode *n, const char *attr, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
static void attr_vlog(
    rtc__xml_ctx *x, int level, const xmlNode *n, const char *attr, const char *fmt, va_list ap)
{
    char msg[RTC_XML_MSG_MAX];
    vsnprintf(msg, sizeof msg, fmt, ap);
    log_at(x, level, rtc__xml_line(n), "%s %s: %s", rtc__xml_name(n), attr, msg);
}

void rtc__xml_attr_error(rtc__xml_ctx *x, const xmlNode *n, const char *attr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    attr_vlog(x, RTC_LOG_ERROR, n, attr, fmt, ap);
    va_end(ap);
}

void rtc__xml_attr_warn(rtc__xml_ctx *x, const xmlNode *n, const char *attr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    attr_vlog(x, RTC_LOG_WARNING, n, attr, fmt, ap);
    va_end(ap);
}

bool rtc__xml_is_annotation(const xmlNode *n)
{
    return rtc__xml_is(n, "Annotations") || rtc__xml_is(n, "VendorAnnotations");
}

void rtc__xml_unknown_child(rtc__xml_ctx *x, const xmlNode *c)
{
    if (rtc__xml_is_annotation(c))
        return;
    rtc__xml_warn(x, c, "unknown element <%s> in <%s> ignored", rtc__xml_name(c),
                  rtc__xml_name(c->parent));
}

void rtc__xml_check_attrs(rtc__xml_ctx *x, const xmlNode *n, const char *const *known)
{
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        /* Schema locations and xml:lang belong to XML itself, not to the format. */
        if (a->ns && a->ns->href &&
            (strcmp((const char *)a->ns->href, XSI_NS) == 0 ||
             strcmp((const char *)a->ns->href, (const char *)XML_XML_NAMESPACE) == 0))
            continue;
        bool ok = false;
        for (const char *const *k = known; *k && !ok; k++)
            ok = !a->ns && strcmp((const char *)a->name, *k) == 0;
        if (!ok)
            rtc__xml_warn(x, n, "%s: unknown attribute \"%s\" ignored", rtc__xml_name(n),
                          (const char *)a->name);
    }
}

const char *rtc__xml_attr(const xmlNode *n, const char *name)
{
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        if (a->ns || strcmp((const char *)a->name, name) != 0)
            continue;
        /* With entity declarations refused, libxml2 resolves predefined and character
         * references inside attribute values into one text node. */
        const xmlNode *t = a->children;
        if (!t)
            return "";
        return t->content ? (const char *)t->content : "";
    }
    return NULL;
}

int rtc__xml_attr_dup(
    rtc__xml_ctx *x, const xmlNode *n, const char *name, bool required, char **out)
{
    const char *s = rtc__xml_attr(n, name);
    *out = NULL;
    if (!s) {
        if (!required)
            return RTC_OK;
        rtc__xml_attr_error(x, n, name, "missing (required)");
        return RTC_EPARSE;
    }
    *out = strdup(s);
    return *out ? RTC_OK : RTC_ENOMEM;
}

/* Copy @p s without surrounding XML white space into @p buf; false if it does not fit. */
static bool trim_copy(const char *s, char *buf, size_t cap)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    size_t len = strlen(s);
    while (len > 0 && strchr(" \t\n\r", s[len - 1]))
        len--;
    if (len >= cap)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return true;
}

bool rtc__xml_parse_f64(const char *s, double *out)
{
    return rtc_parse_f64(s, -HUGE_VAL, HUGE_VAL, RTC_PARSE_NONFINITE, out) == RTC_OK;
}

/* Signed and unsigned @p bits-bit integers: the ranges of the number parser. */
bool rtc__xml_parse_i64(const char *s, unsigned bits, int64_t *out)
{
    int64_t lim = bits < 64 ? INT64_C(1) << (bits - 1) : 0;
    return rtc_parse_i64(s, bits < 64 ? -lim : INT64_MIN, bits < 64 ? lim - 1 : INT64_MAX, 0,
                         out) == RTC_OK;
}

bool rtc__xml_parse_u64(const char *s, unsigned bits, uint64_t *out)
{
    uint64_t hi = bits < 64 ? (UINT64_C(1) << bits) - 1 : UINT64_MAX;
    return rtc_parse_u64(s, 0, hi, 0, out) == RTC_OK;
}

bool rtc__xml_parse_bool(const char *s, bool *out)
{
    char buf[8];
    if (!trim_copy(s, buf, sizeof buf))
        return false;
    if (strcmp(buf, "true") == 0 || strcmp(buf, "1") == 0)
        *out = true;
    else if (strcmp(buf, "false") == 0 || strcmp(buf, "0") == 0)
        *out = false;
    else
        return false;
    return true;
}

const char *rtc__xml_int_what(bool is_signed, unsigned bits)
{
    static const char *const s[] = {"a signed 8-bit integer", "a signed 16-bit integer",
                                    "a signed 32-bit integer", "a signed 64-bit integer"};
    static const char *const u[] = {"an unsigned 8-bit integer", "an unsigned 16-bit integer",
                                    "an unsigned 32-bit integer", "an unsigned 64-bit integer"};
    unsigned i = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
    return is_signed ? s[i] : u[i];
}

int rtc__xml_attr_f64(rtc__xml_ctx *x, const xmlNode *n, const char *name, double *out, bool *has)
{
    const char *s = rtc__xml_attr(n, name);
    if (has)
        *has = false;
    if (!s)
        return RTC_OK;
    if (!rtc__xml_parse_f64(s, out)) {
        rtc__xml_attr_error(x, n, name, "not a floating-point number (\"%s\")", s);
        return RTC_EPARSE;
    }
    if (has)
        *has = true;
    return RTC_OK;
}

int rtc__xml_attr_i64(
    rtc__xml_ctx *x, const xmlNode *n, const char *name, unsigned bits, int64_t *out, bool *has)
{
    const char *s = rtc__xml_attr(n, name);
    if (has)
        *has = false;
    if (!s)
        return RTC_OK;
    if (!rtc__xml_parse_i64(s, bits, out)) {
        rtc__xml_attr_error(x, n, name, "not %s (\"%s\")", rtc__xml_int_what(true, bits), s);
        return RTC_EPARSE;
    }
    if (has)
        *has = true;
    return RTC_OK;
}

int rtc__xml_attr_u64(
    rtc__xml_ctx *x, const xmlNode *n, const char *name, unsigned bits, uint64_t *out, bool *has)
{
    const char *s = rtc__xml_attr(n, name);
    if (has)
        *has = false;
    if (!s)
        return RTC_OK;
    if (!rtc__xml_parse_u64(s, bits, out)) {
        rtc__xml_attr_error(x, n, name, "not %s (\"%s\")", rtc__xml_int_what(false, bits), s);
        return RTC_EPARSE;
    }
    if (has)
        *has = true;
    return RTC_OK;
}

int rtc__xml_attr_bool(rtc__xml_ctx *x, const xmlNode *n, const char *name, bool *out, bool *has)
{
    const char *s = rtc__xml_attr(n, name);
    if (has)
        *has = false;
    if (!s)
        return RTC_OK;
    if (!rtc__xml_parse_bool(s, out)) {
        rtc__xml_attr_error(x, n, name, "not a boolean (true, false, 1, 0) (\"%s\")", s);
        return RTC_EPARSE;
    }
    if (has)
        *has = true;
    return RTC_OK;
}

int rtc__xml_attr_enum(rtc__xml_ctx *x,
                       const xmlNode *n,
                       const char *name,
                       const char *const *names,
                       int *out,
                       bool *has)
{
    const char *s = rtc__xml_attr(n, name);
    if (has)
        *has = false;
    if (!s)
        return RTC_OK;
    char buf[TOKEN_MAX];
    if (trim_copy(s, buf, sizeof buf)) {
        for (int i = 0; names[i]; i++) {
            if (strcmp(buf, names[i]) == 0) {
                *out = i;
                if (has)
                    *has = true;
                return RTC_OK;
            }
        }
    }
    char list[RTC_XML_MSG_MAX / 2] = "";
    for (int i = 0; names[i]; i++) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
    }
    rtc__xml_attr_error(x, n, name, "\"%s\" is not one of %s", s, list);
    return RTC_EPARSE;
}
