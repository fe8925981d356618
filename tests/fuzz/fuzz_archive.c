/*
 * tests/fuzz/fuzz_archive.c — zip extraction (FMU / SSP packages) through
 * rtc_archive_extract(). Layout of each run, in a fresh private directory ROOT:
 *     ROOT/in.zip   the input
 *     ROOT/out/     the destination
 * Afterwards the harness asserts that nothing was written outside ROOT/out (ROOT holds
 * exactly in.zip and out), that nothing below out is a symbolic link or a special file,
 * and that the bytes written stay under the limit it passed; then it removes ROOT.
 */
#include "fuzz_util.h"

#include "rtcosim/archive.h"

#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

/* ROOT must hold exactly in.zip and out/. */
static void check_root(const char *root)
{
    DIR *d = opendir(root);
    if (!d)
        rtc_fuzz_fail("cannot list the temporary directory", root);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "in.zip") &&
            strcmp(e->d_name, "out"))
            rtc_fuzz_fail("extraction wrote outside its destination", e->d_name);
    }
    closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char root[PATH_MAX], zip[PATH_MAX], out[PATH_MAX + 8];
    rtc_fuzz_tmpdir(root, sizeof root);
    rtc_fuzz_write(root, "in.zip", data, size, zip);
    snprintf(out, sizeof out, "%s/out", root);
    if (mkdir(out, 0700) != 0)
        rtc_fuzz_fail("cannot create the destination", out);
    const rtc_archive_limits lim = {.max_total_bytes = MAX_BYTES, .max_entries = 256};
    rtc_archive_extract(zip, out, &lim, rtc_fuzz_logger());
    check_root(root);
    walked_bytes = 0;
    if (nftw(out, check_entry, 16, FTW_PHYS) != 0)
        rtc_fuzz_fail("cannot walk the destination", out);
    if (walked_bytes > MAX_BYTES)
        rtc_fuzz_fail("extraction wrote more than the byte limit", out);
    rtc_fuzz_rmdir(root);
    return 0;
}
