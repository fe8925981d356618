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
#include "rtcosim/time.h"

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

void rtc_csv_str(rtc_csv *w, const char *s)
{
    size_t n = strlen(s);
    char *p = field(w, 2 * n + 2), *q = p;
    if (!p)
        return;
    *q++ = '"';
    for (; *s; s++) {
        if (*s == '"')
            *q++ = '"';
        *q++ = *s;
    }
    *q++ = '"';
    rtc_ofile_put(w->f, (size_t)(q - p));
}

void rtc_csv_time(rtc_csv *w, int64_t ns)
{
    char *p = field(w, RESERVE);
    if (p)
        rtc_ofile_put(w->f, rtc_time_format_s(ns, p, RESERVE));
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

void rtc_csv_hex(rtc_csv *w, const uint8_t *data, size_t size)
{
    static const char hex[] = "0123456789abcdef";
    char *p = field(w, 2 * size);
    if (!p)
        return;
    for (size_t i = 0; i < size; i++) {
        p[2 * i] = hex[data[i] >> 4];
        p[2 * i + 1] = hex[data[i] & 15];
    }
    rtc_ofile_put(w->f, 2 * size);
}

void rtc_csv_end_row(rtc_csv *w)
{
    rtc_ofile_append(w->f, "\n", 1);
    rtc_ofile_end_record(w->f);
    w->row_open = false;
}
