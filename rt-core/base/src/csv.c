/*
 * Streaming CSV writer on a record stream (rtcosim/ofile.h): each row is one record, so
 * the file only ever grows by whole rows. Every field formats in place into room reserved
 * from the stream (RESERVE bytes covers any number; strings and binaries reserve their
 * exact worst case), so there are no bounds checks per character.
 */
#include "rtcosim/csv.h"
#include "rtcosim/numfmt.h"
#include "rtcosim/ofile.h"
#include "rtcosim/status.h"

#include <stdlib.h>
#include <string.h>

#define RESERVE 256 /* room for any single numeric field plus separators */

struct rtc_csv {
    rtc_ofile *f;
    bool row_open; /* a field was written on the current row */
};

int rtc_csv_open(const char *path, rtc_csv **out)
{
    rtc_csv *w = malloc(sizeof *w);
    if (!w)
        return RTC_ENOMEM;
    int rc = rtc_ofile_open(path, &w->f);
    if (rc != RTC_OK) {
        free(w);
        return rc;
    }
    rtc_ofile_set_delimiter(w->f, '\n');
    w->row_open = false;
    *out = w;
    return RTC_OK;
}

int rtc_csv_flush(rtc_csv *w)
{
    return rtc_ofile_flush(w->f);
}

int rtc_csv_close(rtc_csv *w)
{
    if (!w)
        return RTC_OK;
    int st = rtc_ofile_close(w->f);
    free(w);
    return st;
}

int rtc_csv_error(const rtc_csv *w)
{
    return rtc_ofile_error(w->f);
}

void rtc_csv_set_retry(rtc_csv *w, bool retry)
{
    rtc_ofile_set_retry(w->f, retry);
}

int rtc_csv_errno(const rtc_csv *w)
{
    return rtc_ofile_errno(w->f);
}

uint64_t rtc_csv_rows(const rtc_csv *w)
{
    return rtc_ofile_records(w->f);
}

uint64_t rtc_csv_rows_lost(const rtc_csv *w)
{
    return rtc_ofile_records_lost(w->f);
}

const char *rtc_csv_path(const rtc_csv *w)
{
    return rtc_ofile_path(w->f);
}

size_t rtc_csv_pending(const rtc_csv *w)
{
    return rtc_ofile_pending(w->f);
}

/* Room for @p n bytes plus the separator of a new field, which is written here; the
 * field goes at the returned pointer (NULL: out of memory, latched by the stream). */
static char *field(rtc_csv *w, size_t n)
{
    char *p = rtc_ofile_room(w->f, n + 1);
    if (!p)
        return NULL;
    if (w->row_open) {
        *p++ = ',';
        rtc_ofile_put(w->f, 1);
    }
    w->row_open = true;
    return p;
}

size_t rtc_csv_quote(char *dst, const char *s)
{
    char *q = dst;
    *q++ = '"';
    for (; *s; s++) {
        if (*s == '"')
            *q++ = '"';
        *q++ = *s;
    }
    *q++ = '"';
    return (size_t)(q - dst);
}

void rtc_csv_str(rtc_csv *w, const char *s)
{
    char *p = field(w, 2 * strlen(s) + 2);
    if (p)
        rtc_ofile_put(w->f, rtc_csv_quote(p, s));
}

void rtc_csv_time(rtc_csv *w, int64_t ns)
{
    char *p = field(w, RESERVE);
    if (p)
        rtc_ofile_put(w->f, rtc_fmt_time_ns(ns, p));
}

void rtc_csv_f64(rtc_csv *w, double v)
{
    char *p = field(w, RESERVE);
    if (p)
        rtc_ofile_put(w->f, rtc_fmt_double(v, p));
}

void rtc_csv_i64(rtc_csv *w, int64_t v)
{
    char *p = field(w, RESERVE);
    if (p)
        rtc_ofile_put(w->f, rtc_fmt_i64(v, p));
}

void rtc_csv_u64(rtc_csv *w, uint64_t v)
{
    char *p = field(w, RESERVE);
    if (p)
        rtc_ofile_put(w->f, rtc_fmt_u64(v, p));
}

void rtc_csv_bool(rtc_csv *w, bool v)
{
    char *p = field(w, 1);
    if (p) {
        *p = v ? '1' : '0';
        rtc_ofile_put(w->f, 1);
    }
}

size_t rtc_csv_hex_text(char *dst, const uint8_t *data, size_t size)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < size; i++) {
        dst[2 * i] = hex[data[i] >> 4];
        dst[2 * i + 1] = hex[data[i] & 15];
    }
    return 2 * size;
}

void rtc_csv_hex(rtc_csv *w, const uint8_t *data, size_t size)
{
    char *p = field(w, 2 * size);
    if (p)
        rtc_ofile_put(w->f, rtc_csv_hex_text(p, data, size));
}

void rtc_csv_end_row(rtc_csv *w)
{
    rtc_ofile_append(w->f, "\n", 1);
    rtc_ofile_end_record(w->f);
    w->row_open = false;
}

char *rtc_csv_row_room(rtc_csv *w, size_t max)
{
    return rtc_ofile_room(w->f, max);
}

void rtc_csv_row_done(rtc_csv *w, size_t n)
{
    rtc_ofile_put(w->f, n);
    rtc_ofile_end_record(w->f);
}
