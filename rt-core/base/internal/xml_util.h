/*
 * xml_util.h — internal libxml2 helpers shared by the XML readers of rtcosim
 * (fmu-host's modelDescription.xml parser, rt-core's SSP loader).
 *
 * Not a public header: it includes libxml2. Siblings reach it through the
 * rtc_rtcore_internal CMake target.
 *
 * Diagnostics: every message goes to the rtc_logger as one line "FILE:LINE: text"; the
 * attribute helpers write "FILE:LINE: <Element> <attribute>: reason". Errors and warnings
 * are counted in the rtc__xml_ctx so a reader can collect several problems and fail once.
 */
#ifndef RTC_XML_UTIL_H
#define RTC_XML_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

#include "rtcosim/log.h"

/** Diagnostics state of one XML file. */
typedef struct rtc__xml_ctx {
    const char *file; /**< path shown in messages (not copied) */
    const rtc_logger *lg;
    unsigned n_errors; /**< error lines logged so far */
    unsigned n_warnings;
} rtc__xml_ctx;

/** Set up @p x for @p file; @p lg may be NULL (messages are dropped, still counted). */
void rtc__xml_init(rtc__xml_ctx *x, const char *file, const rtc_logger *lg);

/**
 * Parse x->file with XML_PARSE_NONET: no network, no DTD loading, no entity substitution.
 * A DOCTYPE that declares entities is refused before any reference is parsed. libxml2's
 * own first error is logged as "FILE:LINE: message".
 * Returns: RTC_OK and *out (free with xmlFreeDoc); -errno (cannot open, e.g. -ENOENT),
 * RTC_EIO (not a regular file), RTC_EPARSE
 * (malformed, entity declarations, no root element), RTC_ENOMEM. RT-safe: no.
 * Thread: any (the error handler is per parser context).
 */
int rtc__xml_read(rtc__xml_ctx *x, xmlDoc **out);

/** Line of @p n in the file (0 if unknown). */
unsigned rtc__xml_line(const xmlNode *n);
/** Element name as a C string. */
const char *rtc__xml_name(const xmlNode *n);
/** True if @p n is an element named @p name (no namespace check). */
bool rtc__xml_is(const xmlNode *n, const char *name);
/** First element child of @p n, or NULL. */
xmlNode *rtc__xml_child(const xmlNode *n);
/** Next element sibling of @p n, or NULL. */
xmlNode *rtc__xml_next(const xmlNode *n);
/** Number of element children of @p n named @p name (every element when NULL). */
size_t rtc__xml_count(const xmlNode *n, const char *name);

/** Log "FILE:LINE: text" as an error (counted). */
void rtc__xml_error(rtc__xml_ctx *x, const xmlNode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** Log "FILE:LINE: text" as a warning (counted). */
void rtc__xml_warn(rtc__xml_ctx *x, const xmlNode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** Log "FILE:LINE: <Element> <attr>: text" as an error (counted). */
void rtc__xml_attr_error(rtc__xml_ctx *x, const xmlNode *n, const char *attr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/** Log "FILE:LINE: <Element> <attr>: text" as a warning (counted). */
void rtc__xml_attr_warn(rtc__xml_ctx *x, const xmlNode *n, const char *attr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/** True for vendor annotation elements (Annotations, VendorAnnotations) that readers skip
 *  without a warning. */
bool rtc__xml_is_annotation(const xmlNode *n);
/** Warn "unknown element <X> in <Parent> ignored" unless @p c is an annotation. */
void rtc__xml_unknown_child(rtc__xml_ctx *x, const xmlNode *c);
/** Warn about every attribute of @p n whose name is not in NULL-terminated @p known
 *  (xml: and xsi: attributes are accepted). */
void rtc__xml_check_attrs(rtc__xml_ctx *x, const xmlNode *n, const char *const *known);

/** Attribute text, or NULL when absent. Points into the document (no copy). */
const char *rtc__xml_attr(const xmlNode *n, const char *name);

/**
 * Copy attribute @p name into *out (malloc'd; NULL when absent). With @p required an absent
 * attribute is an error "missing". Returns RTC_OK, RTC_EPARSE (logged), RTC_ENOMEM.
 */
int rtc__xml_attr_dup(
    rtc__xml_ctx *x, const xmlNode *n, const char *name, bool required, char **out);

/*
 * Typed attributes. Each returns RTC_OK when the attribute is absent (*out untouched,
 * *has false) or valid (*out set, *has true), and RTC_EPARSE after logging
 * "FILE:LINE: <Element> <attr>: not a ... ("text")". @p has may be NULL.
 * Surrounding white space is allowed (XML Schema whitespace collapse).
 */
int rtc__xml_attr_f64(rtc__xml_ctx *x, const xmlNode *n, const char *name, double *out, bool *has);
/** Signed integer of @p bits (8, 16, 32, 64) bits. */
int rtc__xml_attr_i64(
    rtc__xml_ctx *x, const xmlNode *n, const char *name, unsigned bits, int64_t *out, bool *has);
/** Unsigned integer of @p bits (8, 16, 32, 64) bits. */
int rtc__xml_attr_u64(
    rtc__xml_ctx *x, const xmlNode *n, const char *name, unsigned bits, uint64_t *out, bool *has);
/** xs:boolean: "true", "false", "1", "0". */
int rtc__xml_attr_bool(rtc__xml_ctx *x, const xmlNode *n, const char *name, bool *out, bool *has);
/** One of the NULL-terminated @p names; *out is its index. */
int rtc__xml_attr_enum(rtc__xml_ctx *x,
                       const xmlNode *n,
                       const char *name,
                       const char *const *names,
                       int *out,
                       bool *has);

/*
 * The same conversions on a NUL-terminated token (no logging). Return true when the whole
 * token (after trimming white space) is a valid value in range.
 */
bool rtc__xml_parse_f64(const char *s, double *out);
bool rtc__xml_parse_i64(const char *s, unsigned bits, int64_t *out);
bool rtc__xml_parse_u64(const char *s, unsigned bits, uint64_t *out);
bool rtc__xml_parse_bool(const char *s, bool *out);
/** "a signed 32-bit integer", "an unsigned 8-bit integer", ... for messages. */
const char *rtc__xml_int_what(bool is_signed, unsigned bits);

#endif
