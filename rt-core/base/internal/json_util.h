/*
 * json_util.h — internal libjansson helpers for every JSON file rtcosim writes or reads
 * (summary.json, timing.json) and the readers of them (rtcosim replay).
 *
 * Not a public header: it includes <jansson.h>. The layers and the CLI reach it through
 * the rtc_base_json CMake target; no public header (rt-core/<layer>/include, fmu-host,
 * io-drivers) may include it.
 *
 * Writing: build a json_t document (objects keep the order keys were set in), then
 * rtc__json_write() replaces the file whole (rtcosim/ofile.h: temporary, fsync, rename).
 * Every document is dumped with RTC__JSON_FLAGS: two-space indentation and 17 significant
 * digits, so a double read back is the double written. Numbers:
 *   - counts and integer quantities (ticks, ns) are JSON integers (rtc__json_uint for
 *     unsigned counters, json_integer for signed values);
 *   - measured or derived real values are JSON reals (rtc__json_real), written with 17
 *     significant digits ("5.0", "0.10000000000000001"; -0 as 0.0); a non-finite value
 *     (NaN, ±inf) has no JSON number and is written as null.
 * Strings go through rtc__json_str(): jansson escapes quotes, backslashes and control
 * characters; bytes that are not valid UTF-8 (a Latin-1 file name) become U+FFFD.
 *
 * jansson allocates: none of this runs on an RT thread. The files are written after the
 * run, or by the watchdog's (non-RT) thread while the RT thread is stuck.
 *
 * Reading: rtc__json_read() parses a file; rtc__json_need_*() fetch one member and, when
 * it is missing or of the wrong type, write one line "FILE: key \"K\": reason" to @p err.
 */
#ifndef RTC_JSON_UTIL_H
#define RTC_JSON_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/** json_dump flags of every file rtcosim writes. */
#define RTC__JSON_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(17))

/** @p s as a JSON string (NULL is ""); invalid UTF-8 bytes become U+FFFD. NULL only when
 *  out of memory. RT-safe: no. */
json_t *rtc__json_str(const char *s);

/** @p v as a JSON real, or null when @p v is NaN or infinite. NULL only when out of
 *  memory. RT-safe: no. */
json_t *rtc__json_real(double v);

/** @p v as a JSON integer (clamped to INT64_MAX: jansson's integers are signed). */
json_t *rtc__json_uint(uint64_t v);

/** A distribution of times in ns as {"samples", "p50_s", "p99_s", "p999_s", "max_s",
 *  "mean_s"} (seconds; plan.json and summary.json's "feasibility"). NULL only when out of
 *  memory. RT-safe: no. */
json_t *rtc__json_times(uint64_t samples, int64_t p50, int64_t p99, int64_t p999, int64_t max,
                        double mean);

/**
 * Serialize @p doc (RTC__JSON_FLAGS, a final newline) and replace @p path with it whole
 * (rtc_ofile_replace_begin/commit). @p doc NULL (a failed build) writes nothing.
 * Returns RTC_OK, RTC_ENOMEM (@p doc NULL or serializing failed) or -errno (errno kept too;
 * @p path is left as it was). RT-safe: no.
 */
int rtc__json_write(const json_t *doc, const char *path);

/**
 * Parse @p path as a JSON document whose root is an object.
 * Returns RTC_OK and *out (json_decref it); RTC_ENOTFOUND (no such file); RTC_EPARSE
 * (unreadable, malformed or not an object) with one line in @p err:
 * "FILE: line L column C: jansson's reason" or "FILE: the top level is not an object".
 */
int rtc__json_read(const char *path, json_t **out, char *err, size_t cap);

/** Member @p key of @p obj as a string, or NULL with "FILE: key \"K\": missing" /
 *  "...: expected a string, found <type>" in @p err. The string belongs to @p obj. */
const char *rtc__json_need_str(const json_t *obj, const char *key, const char *file,
                               char *err, size_t cap);

/** Member @p key of @p obj as a non-negative integer into *out; false with one line in
 *  @p err when missing, not an integer, or negative. */
bool rtc__json_need_uint(const json_t *obj, const char *key, const char *file, uint64_t *out,
                         char *err, size_t cap);

/** Member @p key of @p obj as an object, or NULL with one line in @p err. */
const json_t *rtc__json_need_obj(const json_t *obj, const char *key, const char *file,
                                 char *err, size_t cap);

#endif
