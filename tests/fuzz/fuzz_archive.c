/*
 * tests/fuzz/fuzz_archive.c — zip extraction (FMU / SSP packages) through
 * rtc_archive_extract(). Layout of each run, in a fresh private directory ROOT:
 *     ROOT/in.zip   the input
 *     ROOT/d/.../d/out/   the destination
 * with the destination DEPTH directories below ROOT (ROOT/d/d/.../out), so that a ".."
 * escape of up to DEPTH levels lands inside ROOT. Afterwards the harness asserts that
 * nothing was written outside ROOT/d/.../out (ROOT holds only in.zip and d, each d only the
 * next), that nothing below out is a symbolic link or a special file, and that the bytes
 * written stay under the limit it passed; then it removes ROOT.
 */
#include "fuzz_util.h"

#include "rtcosim/archive.h"

#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define DEPTH 8
#define MAX_BYTES (1u << 20) /* far above any seed, far below a disk-filling bomb */

static unsigned long long walked_bytes;

static int check_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)ftw;
    if (type == FTW_SL || type == FTW_SLN || !(S_ISREG(sb->st_mode) || S_ISDIR(sb->st_mode)))
        rtc_fuzz_fail("extraction created a link or special file", path);
    if (S_ISREG(sb->st_mode))
        walked_bytes += (unsigned long long)sb->st_size;
    return 0;
}

/* @p dir must hold nothing but @p a and (when not NULL) @p b. */
static void check_only(const char *dir, const char *a, const char *b)
{
    DIR *d = opendir(dir);
    if (!d)
        rtc_fuzz_fail("cannot list the temporary directory", dir);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, a) &&
            (!b || strcmp(e->d_name, b)))
            rtc_fuzz_fail("extraction wrote outside its destination", e->d_name);
    }
    closedir(d);
}

/* Create ROOT/d/.../d/out in @p out, checking on the way back (@p check) that each level
 * holds only what the harness put there. */
static void dest_path(const char *root, char *out, size_t cap, bool check)
{
    size_t len = (size_t)snprintf(out, cap, "%s", root);
    for (int i = 0; i <= DEPTH; i++) {
        const char *next = i < DEPTH ? "d" : "out";
        if (check)
            check_only(out, next, i == 0 ? "in.zip" : NULL);
        len += (size_t)snprintf(out + len, cap - len, "/%s", next);
        if (!check && mkdir(out, 0700) != 0)
            rtc_fuzz_fail("cannot create the destination", out);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char root[PATH_MAX], zip[PATH_MAX], out[PATH_MAX + 2 * DEPTH + 8];
    rtc_fuzz_tmpdir(root, sizeof root);
    rtc_fuzz_write(root, "in.zip", data, size, zip);
    dest_path(root, out, sizeof out, false);
    const rtc_archive_limits lim = {.max_total_bytes = MAX_BYTES, .max_entries = 256};
    rtc_fuzz_errors_reset();
    rtc_fuzz_check_reported(rtc_archive_extract(zip, out, &lim, rtc_fuzz_logger()),
                            "rtc_archive_extract");
    dest_path(root, out, sizeof out, true);
    walked_bytes = 0;
    if (nftw(out, check_entry, 16, FTW_PHYS) != 0)
        rtc_fuzz_fail("cannot walk the destination", out);
    if (walked_bytes > MAX_BYTES)
        rtc_fuzz_fail("extraction wrote more than the byte limit", out);
    rtc_fuzz_rmdir(root);
    return 0;
}
