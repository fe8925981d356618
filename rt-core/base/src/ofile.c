/*
 * Output files in whole records (rtcosim/ofile.h).
 *
 * DESIGN: the buffer holds [complete records | the record being built]; `done` is the
 * boundary. A flush writes buf[0, done) and moves the unfinished tail to the front, so no
 * write(2) ever ends inside a record. `off` is the file size made of whole records; a
 * write that fails after part of a flush reached the file is cut back to `off` with
 * ftruncate, which a disk filling up or an RLIMIT_FSIZE still allows. A failed flush
 * discards its records (counted as lost, not retried forever) so the buffer never grows
 * without bound while a disk is full. Later flushes write again only when asked to
 * (rtc_ofile_set_retry): by default the file stays a gap-free prefix.
 *
 * Counting: `n_done` records make up buf[0, done). A flush moves them to `records` (in the
 * file) or `lost` (discarded); after a partial write the records kept are the delimiters
 * in the bytes kept (the same boundary cut_back() cuts at), so the two counts always add
 * up to the records completed and `records` is what a reader finds in the file.
 */
#include "rtcosim/ofile.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUF_INITIAL (RTC_OFILE_FLUSH_BYTES + 64 * 1024)

struct rtc_ofile {
    int fd;
    bool own_fd, regular;
    bool retry;            /* after an error, later flushes still write */
    int delim;             /* byte ending every record, or -1 */
    int error, errnum;
    char *buf;
    size_t len, done, cap; /* bytes in buf, bytes of complete records, capacity */
    size_t n_done;         /* complete records in buf[0, done) */
    uint64_t records, lost; /* records that reached the file; records discarded */
    off_t off;             /* file size in whole records */
    char path[];
};

int rtc_ofile_open(const char *path, rtc_ofile **out)
{
    size_t n = strlen(path) + 1;
    rtc_ofile *f = calloc(1, sizeof *f + n);
    char *buf = malloc(BUF_INITIAL);
    if (!f || !buf) {
        free(f);
        free(buf);
        return RTC_ENOMEM;
    }
    memcpy(f->path, path, n);
    f->own_fd = strcmp(path, "-") != 0;
    f->fd = f->own_fd ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
                      : STDOUT_FILENO;
    struct stat st;
    if (f->fd < 0) {
        int e = errno;
        free(buf);
        free(f);
        errno = e;
        return rtc_status_from_errno(e);
    }
    f->regular = fstat(f->fd, &st) == 0 && S_ISREG(st.st_mode);
    f->delim = -1;
    f->buf = buf;
    f->cap = BUF_INITIAL;
    *out = f;
    return RTC_OK;
}

static void fail(rtc_ofile *f, int status, int errnum)
{
    if (f->error == RTC_OK) {
        f->error = status;
        f->errnum = errnum;
    }
}

/* Whole records in the first @p bytes of the buffer (all of them when the flush went
 * through; otherwise, with a delimiter, the delimiters in them; without one, none). */
static size_t records_in(const rtc_ofile *f, size_t bytes)
{
    if (bytes == f->done)
        return f->n_done;
    size_t n = 0;
    for (const char *p = f->buf, *end = f->buf + bytes; f->delim >= 0 && p < end; n++) {
        p = memchr(p, f->delim, (size_t)(end - p));
        if (!p)
            break;
        p++;
    }
    return n;
}

/* After a failed write that left @p at bytes of this flush in the file: cut the file back
 * to the last record boundary in them (the last delimiter, else the flush's start).
 * Returns the bytes of this flush that stay in the file. */
static size_t cut_back(rtc_ofile *f, size_t at)
{
    size_t keep = 0;
    if (f->delim >= 0) {
        const char *p = memrchr(f->buf, f->delim, at);
        keep = p ? (size_t)(p - f->buf) + 1 : 0;
    }
    if (at > 0 && f->regular && ftruncate(f->fd, f->off + (off_t)keep) == 0)
        lseek(f->fd, f->off + (off_t)keep, SEEK_SET); /* a next flush starts there */
    else
        keep = at; /* a device or pipe: what went out cannot be taken back */
    f->off += (off_t)keep;
    return keep;
}

/* Hand buf[0, done) to the kernel; on failure cut the file back to its last boundary.
 * Once failed (and not asked to retry), records are dropped unwritten: the file stays a
 * prefix of the recording, with no gap a reader could miss. */
static int write_done(rtc_ofile *f)
{
    size_t at = 0;
    int e = 0;
    while (at < f->done && (f->error == RTC_OK || f->retry)) {
        ssize_t n = write(f->fd, f->buf + at, f->done - at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e = n < 0 ? errno : ENOSPC; /* write() returning 0 on a file: no space */
            break;
        }
        at += (size_t)n;
    }
    size_t kept = at; /* == done, or 0 when a failed stream skipped the write */
    if (e == 0)
        f->off += (off_t)at;
    else
        kept = cut_back(f, at);
    size_t in = records_in(f, kept);
    f->records += in;
    f->lost += f->n_done - in;
    f->n_done = 0;
    memmove(f->buf, f->buf + f->done, f->len - f->done);
    f->len -= f->done;
    f->done = 0;
    if (e)
        fail(f, rtc_status_from_errno(e), e);
    return e;
}

void rtc_ofile_set_delimiter(rtc_ofile *f, int delim)
{
    f->delim = delim;
}

void rtc_ofile_set_retry(rtc_ofile *f, bool retry)
{
    f->retry = retry;
}

int rtc_ofile_flush(rtc_ofile *f)
{
    if (f->done)
        write_done(f);
    return f->error;
}

char *rtc_ofile_room(rtc_ofile *f, size_t n)
{
    if (f->cap - f->len >= n)
        return f->buf + f->len;
    if (f->done)
        write_done(f);
    if (f->cap - f->len < n) { /* one record larger than the buffer: grow, never split */
        size_t cap = f->cap;
        while (cap - f->len < n)
            cap *= 2;
        char *b = realloc(f->buf, cap);
        if (!b) {
            fail(f, RTC_ENOMEM, ENOMEM);
            return NULL;
        }
        f->buf = b;
        f->cap = cap;
    }
    return f->buf + f->len;
}

void rtc_ofile_put(rtc_ofile *f, size_t n)
{
    f->len += n;
}

void rtc_ofile_append(rtc_ofile *f, const void *data, size_t n)
{
    char *p = rtc_ofile_room(f, n);
    if (p) {
        memcpy(p, data, n);
        f->len += n;
    }
}

int rtc_ofile_end_record(rtc_ofile *f)
{
    f->done = f->len;
    f->n_done++;
    if (f->done >= RTC_OFILE_FLUSH_BYTES)
        write_done(f);
    return f->error;
}

size_t rtc_ofile_pending(const rtc_ofile *f)
{
    return f->done;
}

int rtc_ofile_error(const rtc_ofile *f)
{
    return f->error;
}

int rtc_ofile_errno(const rtc_ofile *f)
{
    return f->errnum;
}

uint64_t rtc_ofile_records(const rtc_ofile *f)
{
    return f->records;
}

uint64_t rtc_ofile_records_lost(const rtc_ofile *f)
{
    return f->lost;
}

const char *rtc_ofile_path(const rtc_ofile *f)
{
    return f->path;
}

int rtc_ofile_close(rtc_ofile *f)
{
    if (!f)
        return RTC_OK;
    rtc_ofile_flush(f);
    /* fsync: what the run recorded is on the disk when the command returns, not only in
     * the page cache (a power cut after the exit keeps it) */
    if (f->regular && fsync(f->fd) != 0)
        fail(f, rtc_status_from_errno(errno), errno);
    if (f->own_fd && close(f->fd) != 0)
        fail(f, rtc_status_from_errno(errno), errno);
    int rc = f->error;
    if (rc != RTC_OK)
        errno = f->errnum;
    free(f->buf);
    free(f);
    return rc;
}

/* ---- whole files ---- */

FILE *rtc_ofile_replace_begin(const char *path, char *tmp, size_t cap)
{
    static _Atomic unsigned serial;
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned s = serial++;
        int n = snprintf(tmp, cap, "%s.tmp.%ld.%u", path, (long)getpid(), s);
        if (n < 0 || (size_t)n >= cap) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        /* O_EXCL: never write through a file (or link) someone else put there */
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0)
            return NULL;
        FILE *f = fdopen(fd, "w");
        if (!f) {
            int e = errno;
            close(fd);
            unlink(tmp);
            errno = e;
        }
        return f;
    }
    errno = EEXIST;
    return NULL;
}

int rtc_ofile_replace_commit(FILE *f, const char *tmp, const char *path)
{
    if (!f)
        return rtc_status_from_errno(errno); /* begin's errno, if it is still there */
    int e = 0;
    errno = 0;
    if (fflush(f) != 0 || ferror(f))
        e = errno ? errno : EIO;
    if (!e && fsync(fileno(f)) != 0)
        e = errno;
    if (fclose(f) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, path) != 0)
        e = errno;
    if (e) {
        unlink(tmp);
        errno = e;
        return rtc_status_from_errno(e);
    }
    return RTC_OK;
}
