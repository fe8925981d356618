/*
 * Safe extraction of zip archives (.fmu, .ssp) and private temporary directories.
 *
 * Extraction runs in two passes over the central directory. The first pass only looks at
 * names, types and declared sizes, so an archive with one bad entry is refused before a
 * single byte is written. The second pass writes the entries below the destination through
 * directory file descriptors (mkdirat/openat with O_NOFOLLOW): no path is ever resolved
 * from the process's working directory, and a link already present in the destination
 * cannot redirect a write. The bytes actually written are counted against the limit as
 * well, because a local header may lie about the uncompressed size.
 *
 * Duplicate entries: some exporters zip a folder twice (the FMI 3 Reference FMU Roberts
 * holds every file of extra/ twice). Two entries of one name with the same content are harmless and the
 * second is skipped after a byte-for-byte comparison with the file the first one wrote;
 * two with different content are refused, since which one an importer sees would be
 * arbitrary. The first pass already refuses pairs whose CRC or size differ.
 */
#include "rtcosim/archive.h"
#include "rtcosim/numparse.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/status.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unzip.h>

#define NAME_MAX_LEN 4096
#define COPY_CHUNK 65536
/* "Version made by" host system values of the zip APPNOTE (upper byte). */
#define ZIP_HOST_UNIX 3

/* A file entry of the central directory, for the duplicate check. */
typedef struct xent {
    char *name;
    uint32_t crc;
    uint64_t size;
    bool later; /* a second (third...) entry of its name */
} xent;

/* State of one extraction, passed to the per-entry helpers. */
typedef struct xctx {
    const char *zip_path;
    const rtc_logger *lg;
    unzFile uf;
    int dest_fd;
    uint64_t max_bytes, max_entries;
    uint64_t written; /* bytes actually written so far, all entries */
    unsigned char *buf;
    xent *ents; /* file entries (pass 1), then only the duplicated names, sorted */
    size_t n_ents, cap_ents;
    char name[NAME_MAX_LEN];
} xctx;

/* True when one component of @p name (separated by '/' or '\\') equals "..". Backslashes
 * count as separators here so a name made on Windows cannot smuggle ".." past the check. */
static bool has_dotdot(const char *name)
{
    const char *p = name;
    while (*p) {
        size_t n = strcspn(p, "/\\");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return true;
        p += n;
        if (*p)
            p++;
    }
    return false;
}

/* Why @p name must not be extracted, or NULL when it is acceptable. */
static const char *name_problem(const char *name, size_t declared_len)
{
    if (name[0] == '\0')
        return "empty entry name";
    if (strlen(name) != declared_len)
        return "entry name contains a NUL byte";
    if (name[0] == '/' || name[0] == '\\')
        return "absolute path";
    /* "C:..." is absolute (or drive-relative) on Windows; never a sane FMU entry. */
    if (((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z')) &&
        name[1] == ':')
        return "absolute path (drive letter)";
    if (has_dotdot(name))
        return "\"..\" path component";
    return NULL;
}

static bool is_symlink_entry(const unz_file_info64 *fi)
{
    if ((fi->version >> 8) != ZIP_HOST_UNIX)
        return false;
    return ((fi->external_fa >> 16) & S_IFMT) == S_IFLNK;
}

/* Read the current entry's header into x->name / *fi. */
static int entry_info(xctx *x, unz_file_info64 *fi)
{
    int rc = unzGetCurrentFileInfo64(x->uf, fi, x->name, sizeof x->name, NULL, 0, NULL, 0);
    if (rc != UNZ_OK) {
        rtc_log(x->lg, RTC_LOG_ERROR, "%s: cannot read the central directory (minizip %d)",
                x->zip_path, rc);
        return RTC_EIO;
    }
    if (fi->size_filename >= sizeof x->name) {
        x->name[sizeof x->name - 1] = '\0';
        rtc_log(x->lg, RTC_LOG_ERROR, "%s: %.64s...: entry name longer than %d bytes", x->zip_path,
                x->name, NAME_MAX_LEN - 1);
        return RTC_EUNSAFE;
    }
    return RTC_OK;
}

/* Keep a file entry's name, CRC and size for check_duplicates(). */
static int remember_entry(xctx *x, const unz_file_info64 *fi)
{
    size_t len = strlen(x->name);
    if (len == 0 || x->name[len - 1] == '/')
        return RTC_OK; /* directory entries may repeat freely */
    if (x->n_ents == x->cap_ents) {
        size_t cap = x->cap_ents ? 2 * x->cap_ents : 64;
        xent *e = realloc(x->ents, cap * sizeof *e);
        if (!e)
            return RTC_ENOMEM;
        x->ents = e;
        x->cap_ents = cap;
    }
    char *name = strdup(x->name);
    if (!name)
        return RTC_ENOMEM;
    x->ents[x->n_ents++] = (xent){name, (uint32_t)fi->crc, fi->uncompressed_size, false};
    return RTC_OK;
}

static int cmp_ent(const void *a, const void *b)
{
    return strcmp(((const xent *)a)->name, ((const xent *)b)->name);
}

static void free_ents(xctx *x)
{
    for (size_t i = 0; i < x->n_ents; i++)
        free(x->ents[i].name);
    free(x->ents);
    x->ents = NULL;
    x->n_ents = x->cap_ents = 0;
}

static int report_differing(const xctx *x, const char *name)
{
    rtc_log(x->lg, RTC_LOG_ERROR,
            "%s: %s: duplicate entry with different content (which copy counts would be "
            "arbitrary)",
            x->zip_path, name);
    return RTC_EUNSAFE;
}

/* Refuse duplicates whose declared content differs; keep only the duplicated names (one
 * each, sorted) for pass 2, which compares the bytes. */
static int check_duplicates(xctx *x)
{
    qsort(x->ents, x->n_ents, sizeof *x->ents, cmp_ent);
    for (size_t i = 1; i < x->n_ents; i++) {
        xent *e = &x->ents[i], *prev = &x->ents[i - 1];
        e->later = strcmp(e->name, prev->name) == 0;
        if (e->later && (e->crc != prev->crc || e->size != prev->size))
            return report_differing(x, e->name);
    }
    /* Compact in place: slots below kept are done, so swapping whole entries into them
     * never disturbs an entry still to be looked at. */
    size_t kept = 0;
    for (size_t i = 0; i < x->n_ents; i++) {
        if (!x->ents[i].later ||
            (kept > 0 && strcmp(x->ents[kept - 1].name, x->ents[i].name) == 0))
            continue;
        xent t = x->ents[kept];
        x->ents[kept++] = x->ents[i];
        x->ents[i] = t;
    }
    for (size_t i = kept; i < x->n_ents; i++)
        free(x->ents[i].name);
    x->n_ents = kept;
    return RTC_OK;
}

/* Pass 1: every name, type and declared size, before anything is written. */
static int check_all(xctx *x)
{
    uint64_t total = 0, count = 0;
    int rc = unzGoToFirstFile(x->uf);
    while (rc == UNZ_OK) {
        unz_file_info64 fi;
        int st = entry_info(x, &fi);
        if (st != RTC_OK)
            return st;
        const char *why = name_problem(x->name, fi.size_filename);
        if (!why && is_symlink_entry(&fi))
            why = "symbolic link entry";
        if (why) {
            rtc_log(x->lg, RTC_LOG_ERROR, "%s: %s: %s", x->zip_path, x->name, why);
            return RTC_EUNSAFE;
        }
        if (x->max_entries && ++count > x->max_entries) {
            rtc_log(x->lg, RTC_LOG_ERROR, "%s: %s: more than %llu entries", x->zip_path, x->name,
                    (unsigned long long)x->max_entries);
            return RTC_ELIMIT;
        }
        /* Written as a subtraction so a huge declared size cannot wrap the sum. */
        if (fi.uncompressed_size > x->max_bytes - total) {
            rtc_log(x->lg, RTC_LOG_ERROR,
                    "%s: %s: total uncompressed size exceeds the limit of %llu bytes", x->zip_path,
                    x->name, (unsigned long long)x->max_bytes);
            return RTC_ELIMIT;
        }
        total += fi.uncompressed_size;
        st = remember_entry(x, &fi);
        if (st != RTC_OK)
            return st;
        rc = unzGoToNextFile(x->uf);
    }
    if (rc != UNZ_END_OF_LIST_OF_FILE) {
        rtc_log(x->lg, RTC_LOG_ERROR, "%s: corrupt central directory (minizip %d)", x->zip_path,
                rc);
        return RTC_EIO;
    }
    return check_duplicates(x);
}

/* Open (creating if needed) directory @p comp below @p dir_fd without following a link. */
static int subdir_open(int dir_fd, const char *comp)
{
    if (mkdirat(dir_fd, comp, 0700) != 0 && errno != EEXIST)
        return -1;
    return openat(dir_fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/*
 * Walk the directory part of x->name from the destination, creating directories. Returns
 * a directory fd for the last directory and points *base at the final component (empty for
 * a directory entry). "." and empty components are skipped.
 */
static int walk_dirs(xctx *x, const char **base, int *out_fd)
{
    int fd = dup(x->dest_fd);
    char *p = x->name;
    for (;;) {
        char *slash = strchr(p, '/');
        if (fd < 0 || !slash)
            break;
        *slash = '\0';
        if (p[0] != '\0' && strcmp(p, ".") != 0) {
            int next = subdir_open(fd, p);
            close(fd);
            fd = next;
        }
        *slash = '/';
        p = slash + 1;
    }
    if (fd < 0) {
        int err = errno;
        rtc_log(x->lg, RTC_LOG_ERROR, "%s: %s: cannot create directory: %s", x->zip_path, x->name,
                strerror(err));
        return err == ELOOP || err == ENOTDIR ? RTC_EUNSAFE : rtc_status_from_errno(err);
    }
    *base = p;
    *out_fd = fd;
    return RTC_OK;
}

/* Copy the open current entry into @p fd, counting bytes against the total limit. */
static int copy_data(xctx *x, int fd)
{
    for (;;) {
        int n = unzReadCurrentFile(x->uf, x->buf, COPY_CHUNK);
        if (n == 0)
            return RTC_OK;
        if (n < 0) {
            rtc_log(x->lg, RTC_LOG_ERROR, "%s: %s: truncated or corrupt data (minizip %d)",
                    x->zip_path, x->name, n);
            return RTC_EIO;
        }
        if ((uint64_t)n > x->max_bytes - x->written) {
            rtc_log(x->lg, RTC_LOG_ERROR,
                    "%s: %s: data exceeds the limit of %llu bytes (size in header is wrong)",
                    x->zip_path, x->name, (unsigned long long)x->max_bytes);
            return RTC_ELIMIT;
        }
        x->written += (uint64_t)n;
        for (int off = 0; off < n;) {
            ssize_t w = write(fd, x->buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                int e = w < 0 ? errno : ENOSPC;
                rtc_log(x->lg, RTC_LOG_ERROR, "%s: %s: write failed: %s", x->zip_path, x->name,
                        strerror(e));
                return rtc_status_from_errno(e);
            }
            off += (int)w;
        }
    }
}

/* Read up to @p n bytes (fewer only at end of file); -1 on error. */
static ssize_t read_full(int fd, unsigned char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* Does the open current entry hold exactly the bytes of file @p fd? Reading stops at the
 * first difference, so a duplicate never costs more than the file already written. */
static int same_content(xctx *x, int fd, bool *same)
{
    unsigned char mine[4096];
    for (;;) {
        int n = unzReadCurrentFile(x->uf, x->buf, sizeof mine);
        if (n < 0) {
            rtc_log(x->lg, RTC_LOG_ERROR, "%s: %s: truncated or corrupt data (minizip %d)",
                    x->zip_path, x->name, n);
            return RTC_EIO;
        }
        /* At the entry's end the file must end too: ask for one byte more. */
        ssize_t r = read_full(fd, mine, n == 0 ? 1 : (size_t)n);
        if (r < 0)
            return rtc_status_from_errno(errno);
        if (n == 0 || r != n || memcmp(mine, x->buf, (size_t)n) != 0) {
            *same = n == 0 && r == 0;
            return RTC_OK;
        }
    }
}

#define NOT_A_DUPLICATE 1

/* A second entry of a name whose first entry was already written: accepted when the
 * content is the same byte for byte. NOT_A_DUPLICATE when the name occurs once in the
 * archive (then whatever is there was not written by this extraction). */
static int duplicate_entry(xctx *x, int dir_fd, const char *base)
{
    xent key = {.name = x->name};
    if (!bsearch(&key, x->ents, x->n_ents, sizeof *x->ents, cmp_ent))
        return NOT_A_DUPLICATE;
    int fd = openat(dir_fd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NOT_A_DUPLICATE;
    bool same = false;
    int st = unzOpenCurrentFile(x->uf);
    int rc = st == UNZ_OK ? same_content(x, fd, &same) : RTC_EIO;
    if (st != UNZ_OK)
        rtc_log(x->lg, RTC_LOG_ERROR, "%s: %s: cannot open entry (minizip %d)", x->zip_path,
                x->name, st);
    else
        unzCloseCurrentFile(x->uf);
    close(fd);
    return rc == RTC_OK && !same ? report_differing(x, x->name) : rc;
}

/* Write the current entry's data to @p base in @p dir_fd. O_EXCL|O_NOFOLLOW: a file or
 * link already there is never reused; only an identical duplicate entry is skipped. */
static int write_file(xctx *x, int dir_fd, const char *base)
{
    int fd = openat(dir_fd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) {
        int st = duplicate_entry(x, dir_fd, base);
        if (st != NOT_A_DUPLICATE)
            return st;
        errno = EEXIST;
    }
    if (fd < 0) {
        int err = errno;
        rtc_log(x->lg, RTC_LOG_ERROR, "%s: %s: cannot create file: %s", x->zip_path, x->name,
                strerror(err));
        return err == EEXIST || err == ELOOP ? RTC_EUNSAFE : rtc_status_from_errno(err);
    }
    int st = unzOpenCurrentFile(x->uf);
    if (st != UNZ_OK) {
        rtc_log(x->lg, RTC_LOG_ERROR, "%s: %s: cannot open entry (minizip %d)", x->zip_path,
                x->name, st);
        close(fd);
        return RTC_EIO;
    }
    int rc = copy_data(x, fd);
    /* unzCloseCurrentFile compares the CRC only when the whole entry was read. */
    st = unzCloseCurrentFile(x->uf);
    if (rc == RTC_OK && st == UNZ_CRCERROR) {
        rtc_log(x->lg, RTC_LOG_ERROR, "%s: %s: CRC mismatch (corrupt archive)", x->zip_path,
                x->name);
        rc = RTC_EIO;
    } else if (rc == RTC_OK && st != UNZ_OK) {
        rtc_log(x->lg, RTC_LOG_ERROR, "%s: %s: corrupt entry (minizip %d)", x->zip_path, x->name,
                st);
        rc = RTC_EIO;
    }
    if (close(fd) != 0 && rc == RTC_OK) {
        rc = rtc_status_from_errno(errno);
        rtc_log(x->lg, RTC_LOG_ERROR, "%s: %s: close failed: %s", x->zip_path, x->name,
                rtc_strerror(rc));
    }
    return rc;
}

static int extract_entry(xctx *x)
{
    unz_file_info64 fi;
    int rc = entry_info(x, &fi);
    if (rc != RTC_OK)
        return rc;
    if (fi.flag & 1u) {
        rtc_log(x->lg, RTC_LOG_ERROR, "%s: %s: encrypted entries are not supported", x->zip_path,
                x->name);
        return RTC_EIO;
    }
    const char *base = NULL;
    int dir_fd = -1;
    rc = walk_dirs(x, &base, &dir_fd);
    if (rc != RTC_OK)
        return rc;
    /* A name ending in '/' is a directory entry: walk_dirs already created it. */
    if (base[0] != '\0' && strcmp(base, ".") != 0)
        rc = write_file(x, dir_fd, base);
    close(dir_fd);
    return rc;
}

/* Pass 2: write every entry. */
static int extract_all(xctx *x)
{
    int rc = unzGoToFirstFile(x->uf);
    while (rc == UNZ_OK) {
        int st = extract_entry(x);
        if (st != RTC_OK)
            return st;
        rc = unzGoToNextFile(x->uf);
    }
    if (rc != UNZ_END_OF_LIST_OF_FILE) {
        rtc_log(x->lg, RTC_LOG_ERROR, "%s: corrupt central directory (minizip %d)", x->zip_path,
                rc);
        return RTC_EIO;
    }
    return RTC_OK;
}

int rtc_archive_extract(const char *zip_path,
                        const char *dest_dir,
                        const rtc_archive_limits *limits,
                        const rtc_logger *lg)
{
    if (!zip_path || !dest_dir)
        return RTC_EINVAL;
    xctx x = {.zip_path = zip_path, .lg = lg, .dest_fd = -1};
    x.max_bytes =
        limits && limits->max_total_bytes ? limits->max_total_bytes : (uint64_t)RTC_MAX_UNZIP_BYTES;
    x.max_entries = limits ? limits->max_entries : 0;
    int rc = RTC_OK;

    struct stat sb;
    if (stat(zip_path, &sb) != 0) {
        rc = rtc_status_from_errno(errno);
        rtc_log(lg, RTC_LOG_ERROR, "%s: cannot open: %s", zip_path, rtc_strerror(rc));
        return rc;
    }
    if (!S_ISREG(sb.st_mode)) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: cannot open: not a regular file", zip_path);
        return RTC_EIO;
    }
    x.dest_fd = open(dest_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (x.dest_fd < 0) {
        rc = rtc_status_from_errno(errno);
        rtc_log(lg, RTC_LOG_ERROR, "%s: destination %s: %s", zip_path, dest_dir,
                rtc_strerror(rc));
        return rc;
    }
    x.uf = unzOpen64(zip_path);
    if (!x.uf) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: not a zip archive, or truncated (no central directory)",
                zip_path);
        rc = RTC_EIO;
        goto out;
    }
    x.buf = malloc(COPY_CHUNK);
    if (!x.buf) {
        rc = RTC_ENOMEM;
        goto out;
    }
    rc = check_all(&x);
    if (rc == RTC_OK)
        rc = extract_all(&x);
out:
    free_ents(&x);
    free(x.buf);
    if (x.uf)
        unzClose(x.uf);
    close(x.dest_fd);
    return rc;
}

/* ---- private temporary directories ----
 *
 * A directory's name carries its owner: "<prefix><pid>-<start>-XXXXXX", start being the
 * owner's start time in clock ticks since boot (/proc/PID/stat field 22), so that a later
 * process with the same pid is not taken for the owner. A process killed before it could
 * clean up (SIGKILL, the watchdog, a hung unit) leaves its directories behind; the next
 * rtc_tmpdir_new() with the same prefix removes every one of ours whose owner is gone.
 * Directories of live owners, of other users, and names that do not parse are never
 * touched. Every directory this process creates is kept in a small table until removed,
 * so an emergency exit can remove what is left (rtc_tmpdir_remove_all). */

#define TMPDIR_TABLE 64

static pthread_mutex_t tmp_lock = PTHREAD_MUTEX_INITIALIZER;
static char *tmp_table[TMPDIR_TABLE]; /* owned paths, NULL = free slot */

static void table_add(const char *path)
{
    pthread_mutex_lock(&tmp_lock);
    for (size_t i = 0; i < TMPDIR_TABLE; i++) {
        if (!tmp_table[i]) {
            tmp_table[i] = strdup(path); /* NULL on ENOMEM: only the emergency path loses */
            break;
        }
    }
    pthread_mutex_unlock(&tmp_lock);
}

static void table_remove(const char *path)
{
    pthread_mutex_lock(&tmp_lock);
    for (size_t i = 0; i < TMPDIR_TABLE; i++) {
        if (tmp_table[i] && !strcmp(tmp_table[i], path)) {
            free(tmp_table[i]);
            tmp_table[i] = NULL;
        }
    }
    pthread_mutex_unlock(&tmp_lock);
}

/* Start time of process @p pid in clock ticks (field 22 of /proc/PID/stat); 0 when the
 * process does not exist, -1 when it exists but its start time cannot be read. */
static long long proc_start(long pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* the command name (field 2) may hold spaces and ')': fields resume after the last ')' */
    char *p = strrchr(buf, ')');
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (!p)
        return -1;
    p++;
    p[strcspn(p, " ")] = '\0';
    int64_t start;
    return rtc_parse_i64(p, 0, INT64_MAX, 0, &start) == RTC_OK ? start : -1;
}

/* "<pid>-<start>-XXXXXX" after the prefix: true and the owner's identity when it parses. */
static bool parse_owner(const char *rest, long *pid, long long *start)
{
    const char *d1 = strchr(rest, '-'), *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
    char a[24], b[24];
    int64_t v, w;
    if (!d2 || strlen(d2 + 1) != 6 || d1 - rest >= (ptrdiff_t)sizeof a ||
        d2 - d1 > (ptrdiff_t)sizeof b)
        return false;
    snprintf(a, sizeof a, "%.*s", (int)(d1 - rest), rest);
    snprintf(b, sizeof b, "%.*s", (int)(d2 - d1 - 1), d1 + 1);
    if (rtc_parse_i64(a, 1, LONG_MAX, 0, &v) != RTC_OK ||
        rtc_parse_i64(b, 0, INT64_MAX, 0, &w) != RTC_OK)
        return false;
    *pid = (long)v;
    *start = w;
    return true;
}

static const char *tmp_base(void)
{
    const char *base = getenv("TMPDIR");
    return base && *base ? base : "/tmp";
}

int rtc_tmpdir_sweep(const char *prefix)
{
    if (!prefix || !*prefix)
        return 0;
    DIR *d = opendir(tmp_base());
    if (!d)
        return 0;
    int removed = 0;
    size_t plen = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid;
        long long start;
        if (strncmp(e->d_name, prefix, plen) || !parse_owner(e->d_name + plen, &pid, &start))
            continue;
        struct stat sb;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", tmp_base(), e->d_name);
        if (lstat(path, &sb) != 0 || !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid())
            continue;
        long long now = proc_start(pid);
        if (now != 0 && (now < 0 || now == start))
            continue; /* the owner lives (or cannot be told apart): keep */
        if (rtc_tmpdir_remove(path) == RTC_OK)
            removed++;
    }
    closedir(d);
    return removed;
}

int rtc_tmpdir_new(const char *prefix, char *out, size_t cap)
{
    if (!out)
        return RTC_EINVAL;
    prefix = prefix ? prefix : "rtcosim.";
    rtc_tmpdir_sweep(prefix);
    long long start = proc_start((long)getpid());
    int n = snprintf(out, cap, "%s/%s%ld-%lld-XXXXXX", tmp_base(), prefix, (long)getpid(),
                     start > 0 ? start : 0);
    if (n < 0 || (size_t)n >= cap) {
        if (cap)
            out[0] = '\0';
        return RTC_ELIMIT;
    }
    if (!mkdtemp(out)) {
        out[0] = '\0';
        return rtc_status_from_errno(errno);
    }
    table_add(out);
    return RTC_OK;
}

/* nftw callback: FTW_PHYS reports links as links (FTW_SL), so unlink removes the link
 * itself and never its target; FTW_DEPTH gives the directories after their contents. */
static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    int r = (flag == FTW_DP || flag == FTW_D) ? rmdir(path) : unlink(path);
    return r == 0 || errno == ENOENT ? 0 : -1;
}

int rtc_tmpdir_remove(const char *path)
{
    if (!path || !*path)
        return RTC_EINVAL;
    table_remove(path);
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return errno == ENOENT ? RTC_OK : rtc_status_from_errno(errno);
    /* A link given as the root is removed as a link, not walked into. */
    if (!S_ISDIR(sb.st_mode))
        return unlink(path) == 0 ? RTC_OK : rtc_status_from_errno(errno);
    /* nftw returns remove_entry's -1 with the failing call's errno left in place */
    return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? RTC_OK
                                                                     : rtc_status_from_errno(errno);
}

void rtc_tmpdir_remove_all(void)
{
    pthread_mutex_lock(&tmp_lock);
    for (size_t i = 0; i < TMPDIR_TABLE; i++) {
        if (tmp_table[i]) {
            char *p = tmp_table[i];
            tmp_table[i] = NULL;
            pthread_mutex_unlock(&tmp_lock); /* rtc_tmpdir_remove takes it again */
            rtc_tmpdir_remove(p);
            free(p);
            pthread_mutex_lock(&tmp_lock);
        }
    }
    pthread_mutex_unlock(&tmp_lock);
}
