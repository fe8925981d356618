/*
 * libjansson helpers (internal/json_util.h): strings that are always valid JSON, reals
 * that round-trip or become null, whole-file replacement of a document, and member
 * look-ups that name the file and the key when a document read back is not as expected.
 */
#include "json_util.h"

#include "rtcosim/ofile.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at @p p (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 when the byte there starts none. */
static size_t utf8_len(const unsigned char *p)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
             : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    /* the second byte's range closes the overlong, surrogate and >U+10FFFF holes */
    unsigned char lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    unsigned char hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    if (n == 0 || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

json_t *rtc__json_str(const char *s)
{
    s = s ? s : "";
    json_t *j = json_string(s);
    if (j)
        return j;
    /* not UTF-8 (or out of memory): keep what is, mark each stray byte with U+FFFD */
    size_t len = strlen(s), o = 0;
    char *buf = malloc(len * 3 + 1);
    if (!buf)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_len(p);
        if (n) {
            memcpy(buf + o, p, n);
            o += n, p += n;
        } else {
            memcpy(buf + o, "\xEF\xBF\xBD", 3);
            o += 3, p++;
        }
    }
    j = json_stringn(buf, o);
    free(buf);
    return j;
}

json_t *rtc__json_real(double v)
{
    /* + 0.0 turns -0 into 0 (round to nearest): zero is written without a sign */
    return isfinite(v) ? json_real(v + 0.0) : json_null();
}

json_t *rtc__json_uint(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *rtc__json_times(uint64_t samples, int64_t p50, int64_t p99, int64_t p999, int64_t max,
                        double mean)
{
    json_t *o = json_object();
    int bad = !o;
    bad |= json_object_set_new(o, "samples", rtc__json_uint(samples));
    bad |= json_object_set_new(o, "p50_s", rtc__json_real((double)p50 / 1e9));
    bad |= json_object_set_new(o, "p99_s", rtc__json_real((double)p99 / 1e9));
    bad |= json_object_set_new(o, "p999_s", rtc__json_real((double)p999 / 1e9));
    bad |= json_object_set_new(o, "max_s", rtc__json_real((double)max / 1e9));
    bad |= json_object_set_new(o, "mean_s", rtc__json_real(mean / 1e9));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int rtc__json_write(const json_t *doc, const char *path)
{
    /* serialized first: running out of memory then never leaves a truncated file */
    char *text = doc ? json_dumps(doc, RTC__JSON_FLAGS) : NULL;
    if (!text) {
        errno = ENOMEM;
        return RTC_ENOMEM;
    }
    char tmp[4200];
    FILE *f = rtc_ofile_replace_begin(path, tmp, sizeof tmp);
    if (f) {
        fputs(text, f);
        fputc('\n', f);
    }
    free(text);
    return rtc_ofile_replace_commit(f, tmp, path);
}

int rtc__json_read(const char *path, json_t **out, char *err, size_t cap)
{
    *out = NULL;
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        if (json_error_code(&je) == json_error_cannot_open_file && errno == ENOENT)
            return RTC_ENOTFOUND;
        snprintf(err, cap, "%s: line %d column %d: %s", path, je.line, je.column, je.text);
        return RTC_EPARSE;
    }
    if (!json_is_object(root)) {
        snprintf(err, cap, "%s: the top level is not an object", path);
        json_decref(root);
        return RTC_EPARSE;
    }
    *out = root;
    return RTC_OK;
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* Member @p key when it has type @p want, else NULL and the one-line reason. */
static const json_t *member(const json_t *obj, const char *key, json_type want,
                            const char *what, const char *file, char *err, size_t cap)
{
    const json_t *v = json_object_get(obj, key);
    if (!v)
        snprintf(err, cap, "%s: key \"%s\": missing", file, key);
    else if (json_typeof(v) != want)
        snprintf(err, cap, "%s: key \"%s\": expected %s, found %s", file, key, what,
                 type_name(v));
    else
        return v;
    return NULL;
}

const char *rtc__json_need_str(const json_t *obj, const char *key, const char *file,
                               char *err, size_t cap)
{
    const json_t *v = member(obj, key, JSON_STRING, "a string", file, err, cap);
    return v ? json_string_value(v) : NULL;
}

bool rtc__json_need_uint(const json_t *obj, const char *key, const char *file, uint64_t *out,
                         char *err, size_t cap)
{
    const json_t *v = member(obj, key, JSON_INTEGER, "an integer", file, err, cap);
    if (v && json_integer_value(v) < 0) {
        snprintf(err, cap, "%s: key \"%s\": expected a count, found %lld", file, key,
                 (long long)json_integer_value(v));
        return false;
    }
    *out = v ? (uint64_t)json_integer_value(v) : 0;
    return v != NULL;
}

const json_t *rtc__json_need_obj(const json_t *obj, const char *key, const char *file,
                                 char *err, size_t cap)
{
    return member(obj, key, JSON_OBJECT, "an object", file, err, cap);
}
