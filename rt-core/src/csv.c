/*
 * Streaming CSV writer. A 256 KiB buffer absorbs rows; whenever fewer than RESERVE bytes
 * remain it is written out with write(2), so every field append can format in place
 * without bounds checks per character. Strings longer than the reserve are streamed in
 * pieces.
 */
#include "rtcosim/csv.h"
#include "rtcosim/numfmt.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF_SIZE (256 * 1024)
#define RESERVE 256 /* room for any single numeric field plus separators */

struct rtc_csv {
    int fd;
    bool own_fd;
    bool row_open; /* a field was written on the current row */
    int error;
    size_t len;
    char buf[BUF_SIZE];
};

int rtc_csv_open(const char *path, rtc_csv **out)
{
    rtc_csv *w = malloc(sizeof *w);
    if (!w)
        return RTC_ENOMEM;
    w->own_fd = strcmp(path, "-") != 0;
    w->fd = w->own_fd ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
                      : STDOUT_FILENO;
    if (w->fd < 0) {
        int e = errno;
        free(w);
        errno = e;
        return RTC_ESYS;
    }
    w->row_open = false;
    w->error = RTC_OK;
    w->len = 0;
    *out = w;
    return RTC_OK;
}

int rtc_csv_flush(rtc_csv *w)
{
    size_t off = 0;
    while (off < w->len && w->error == RTC_OK) {
        ssize_t n = write(w->fd, w->buf + off, w->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            w->error = RTC_ESYS;
        else
            off += (size_t)n;
    }
    w->len = 0;
    return w->error;
}

int rtc_csv_close(rtc_csv *w)
{
    if (!w)
        return RTC_OK;
    int st = rtc_csv_flush(w);
    if (w->own_fd && close(w->fd) != 0 && st == RTC_OK)
        st = RTC_ESYS;
    free(w);
    return st;
}

int rtc_csv_error(const rtc_csv *w)
{
    return w->error;
}

/* Make room for RESERVE bytes and emit the separator of a new field. */
static char *field(rtc_csv *w)
{
    if (BUF_SIZE - w->len < RESERVE)
        rtc_csv_flush(w);
    if (w->row_open)
        w->buf[w->len++] = ',';
    w->row_open = true;
    return w->buf + w->len;
}

void rtc_csv_str(rtc_csv *w, const char *s)
{
    field(w);
    w->buf[w->len++] = '"';
    for (; *s; s++) {
        if (BUF_SIZE - w->len < 4)
            rtc_csv_flush(w);
        if (*s == '"')
            w->buf[w->len++] = '"';
        w->buf[w->len++] = *s;
    }
    w->buf[w->len++] = '"';
}

void rtc_csv_time(rtc_csv *w, int64_t ns)
{
    char *p = field(w);
    w->len += rtc_time_format_s(ns, p, RESERVE);
}

void rtc_csv_f64(rtc_csv *w, double v)
{
    char *p = field(w);
    w->len += rtc_fmt_double(v, p);
}

void rtc_csv_i64(rtc_csv *w, int64_t v)
{
    char *p = field(w);
    w->len += rtc_fmt_i64(v, p);
}

void rtc_csv_u64(rtc_csv *w, uint64_t v)
{
    char *p = field(w);
    w->len += rtc_fmt_u64(v, p);
}

void rtc_csv_bool(rtc_csv *w, bool v)
{
    char *p = field(w);
    *p = v ? '1' : '0';
    w->len++;
}

void rtc_csv_hex(rtc_csv *w, const uint8_t *data, size_t size)
{
    static const char hex[] = "0123456789abcdef";
    field(w);
    for (size_t i = 0; i < size; i++) {
        if (BUF_SIZE - w->len < 4)
            rtc_csv_flush(w);
        w->buf[w->len++] = hex[data[i] >> 4];
        w->buf[w->len++] = hex[data[i] & 15];
    }
}

void rtc_csv_end_row(rtc_csv *w)
{
    if (BUF_SIZE - w->len < RESERVE)
        rtc_csv_flush(w);
    w->buf[w->len++] = '\n';
    w->row_open = false;
}
