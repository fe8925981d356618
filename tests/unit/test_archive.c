/*
 * Tests of safe zip extraction and private temporary directories (rtcosim/archive.h).
 *
 * The archives are written at run time with minizip's writer (zip.h) into a fresh
 * temporary directory, so every hostile shape (traversal names, symlink entries, sizes
 * over the limit, lying headers, truncation, corrupt data) is built exactly as needed.
 */
#include "cu_main.h"

#include "rtcosim/archive.h"
#include "rtcosim/status.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

typedef struct entry {
    const char *name;
    const void *data;
    size_t len;
    bool symlink;       /* Unix host, S_IFLNK in the external attributes */
    uint64_t fake_size; /* != 0: stored raw, central directory claims this size */
} entry;

typedef struct capture {
    char text[4096];
    unsigned n_error;
} capture;

static void capture_log(void *user, int level, const char *msg)
{
    capture *c = user;
    if (level == RTC_LOG_ERROR)
        c->n_error++;
    size_t len = strlen(c->text);
    snprintf(c->text + len, sizeof c->text - len, "%s\n", msg);
}

RTC_TEST_WORKDIR_FIXTURE /* tests use distinct names in work */

/* CRC-32 (IEEE, reflected) for the raw entries; bitwise, so the test needs no -lz. */
static uint32_t crc32_ieee(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static int add_entry(zipFile zf, const entry *e)
{
    zip_fileinfo zi;
    memset(&zi, 0, sizeof zi);
    uLong made_by = 20; /* MS-DOS host: no Unix mode bits */
    if (e->symlink) {
        made_by = (3u << 8) | 20u;
        zi.external_fa = (uLong)(S_IFLNK | 0777) << 16;
    }
    bool raw = e->fake_size != 0;
    int rc = zipOpenNewFileInZip4_64(zf, e->name, &zi, NULL, 0, NULL, 0, NULL, raw ? 0 : Z_DEFLATED,
                                     raw ? 0 : Z_DEFAULT_COMPRESSION, raw, -MAX_WBITS,
                                     DEF_MEM_LEVEL, Z_DEFAULT_STRATEGY, NULL, 0, made_by, 0, 0);
    if (rc != ZIP_OK)
        return rc;
    if (e->len && (rc = zipWriteInFileInZip(zf, e->data, (unsigned)e->len)) != ZIP_OK)
        return rc;
    if (!raw)
        return zipCloseFileInZip(zf);
    uLong crc = crc32_ieee(e->data, e->len);
    return zipCloseFileInZipRaw64(zf, e->fake_size, crc);
}

/* Write @p n entries into <work>/<name>; returns the path in @p out. */
static void make_zip(const char *name, const entry *entries, size_t n, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", work, name);
    zipFile zf = zipOpen64(out, APPEND_STATUS_CREATE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(zf);
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_EQUAL_FATAL(add_entry(zf, &entries[i]), ZIP_OK);
    CU_ASSERT_EQUAL_FATAL(zipClose(zf, NULL), ZIP_OK);
}

/* A fresh empty destination directory <work>/<name>. */
static void make_dest(const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", work, name);
    CU_ASSERT_EQUAL_FATAL(mkdir(out, 0700), 0);
}

static int extract(const char *zip, const char *dest, uint64_t limit, capture *cap)
{
    memset(cap, 0, sizeof *cap);
    rtc_logger lg = {.log = capture_log, .user = cap, .max_level = RTC_LOG_DEBUG};
    rtc_archive_limits lim = {.max_total_bytes = limit, .max_entries = 0};
    return rtc_archive_extract(zip, dest, limit ? &lim : NULL, &lg);
}

static bool exists(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0;
}

static size_t dir_entries(const char *path)
{
    DIR *d = opendir(path);
    size_t n = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static bool file_equals(const char *path, const void *data, size_t len)
{
    size_t got = 0;
    char *s = rtc_test_slurp(path, &got);
    bool ok = s && got == len && memcmp(s, data, len) == 0;
    free(s);
    return ok;
}

/* ---- extraction ---- */

static void test_extract_nested_dirs_byte_identical(void)
{
    static unsigned char bin[100000];
    unsigned x = 12345;
    for (size_t i = 0; i < sizeof bin; i++) {
        x = x * 1103515245u + 12345u; /* deterministic, mildly compressible noise */
        bin[i] = (unsigned char)((x >> 16) & 0x3f);
    }
    const char *txt = "modelDescription\n";
    const entry es[] = {
        {.name = "modelDescription.xml", .data = txt, .len = strlen(txt)},
        {.name = "binaries/linux64/m.so", .data = bin, .len = sizeof bin},
        {.name = "resources/deep/er/c.txt", .data = "c", .len = 1},
        {.name = "resources/empty.txt", .data = "", .len = 0},
        {.name = "documentation/", .data = "", .len = 0},
    };
    char zip[1024], dest[1024], p[2048];
    make_zip("ok.zip", es, 5, zip, sizeof zip);
    make_dest("ok", dest, sizeof dest);
    capture cap;
    CU_ASSERT_EQUAL(extract(zip, dest, 0, &cap), RTC_OK);
    CU_ASSERT_EQUAL(cap.n_error, 0);
    snprintf(p, sizeof p, "%s/modelDescription.xml", dest);
    CU_ASSERT_TRUE(file_equals(p, txt, strlen(txt)));
    snprintf(p, sizeof p, "%s/binaries/linux64/m.so", dest);
    CU_ASSERT_TRUE(file_equals(p, bin, sizeof bin));
    snprintf(p, sizeof p, "%s/resources/deep/er/c.txt", dest);
    CU_ASSERT_TRUE(file_equals(p, "c", 1));
    snprintf(p, sizeof p, "%s/resources/empty.txt", dest);
    CU_ASSERT_TRUE(file_equals(p, "", 0));
    struct stat sb;
    snprintf(p, sizeof p, "%s/documentation", dest);
    CU_ASSERT_TRUE(stat(p, &sb) == 0 && S_ISDIR(sb.st_mode));
    snprintf(p, sizeof p, "%s/binaries", dest);
    CU_ASSERT_TRUE(stat(p, &sb) == 0 && (sb.st_mode & 0777) == 0700);
}

/* One hostile name: refused as unsafe, nothing written anywhere. */
static void check_unsafe_name(const char *tag, const char *name, const char *reason)
{
    const entry es[] = {
        {.name = "good.txt", .data = "g", .len = 1},
        {.name = name, .data = "evil", .len = 4},
    };
    char zipname[64], zip[1024], dest[1024], outside[1024];
    snprintf(zipname, sizeof zipname, "%s.zip", tag);
    make_zip(zipname, es, 2, zip, sizeof zip);
    make_dest(tag, dest, sizeof dest);
    capture cap;
    CU_ASSERT_EQUAL(extract(zip, dest, 0, &cap), RTC_EUNSAFE);
    CU_ASSERT_EQUAL(cap.n_error, 1);
    char want[2048];
    snprintf(want, sizeof want, "%s: %s: %s", zip, name, reason);
    if (!strstr(cap.text, want))
        printf("\nwant \"%s\" in \"%s\"\n", want, cap.text);
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, want));
    /* Names were checked before writing: even the good entry is absent. */
    CU_ASSERT_EQUAL(dir_entries(dest), 0);
    snprintf(outside, sizeof outside, "%s/evil", work);
    CU_ASSERT_FALSE(exists(outside));
}

static void test_extract_traversal_names_unsafe(void)
{
    check_unsafe_name("t1", "../evil", "\"..\" path component");
    check_unsafe_name("t2", "a/../../evil", "\"..\" path component");
    check_unsafe_name("t3", "/abs/path", "absolute path");
    CU_ASSERT_FALSE(exists("/abs/path"));
    check_unsafe_name("t4", "..\\evil", "\"..\" path component");
    check_unsafe_name("t5", "a\\..\\..\\evil", "\"..\" path component");
    check_unsafe_name("t6", "C:/evil", "absolute path (drive letter)");
}

static void test_extract_symlink_entry_unsafe(void)
{
    const entry es[] = {{.name = "link", .data = "/etc/passwd", .len = 11, .symlink = true}};
    char zip[1024], dest[1024];
    make_zip("link.zip", es, 1, zip, sizeof zip);
    make_dest("link", dest, sizeof dest);
    capture cap;
    CU_ASSERT_EQUAL(extract(zip, dest, 0, &cap), RTC_EUNSAFE);
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, "link.zip: link: symbolic link entry"));
    CU_ASSERT_EQUAL(dir_entries(dest), 0);
}

static void test_extract_over_size_limit(void)
{
    static char big[1000];
    memset(big, 'x', sizeof big);
    const entry es[] = {
        {.name = "a", .data = big, .len = sizeof big},
        {.name = "b", .data = big, .len = sizeof big},
    };
    char zip[1024], dest[1024];
    make_zip("big.zip", es, 2, zip, sizeof zip);
    make_dest("big", dest, sizeof dest);
    capture cap;
    CU_ASSERT_EQUAL(extract(zip, dest, 1500, &cap), RTC_ELIMIT);
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, "big.zip: b: total uncompressed size exceeds the "
                                            "limit of 1500 bytes"));
    CU_ASSERT_EQUAL(dir_entries(dest), 0);
    /* Exactly at the limit is fine. */
    char dest2[1024];
    make_dest("big2", dest2, sizeof dest2);
    CU_ASSERT_EQUAL(extract(zip, dest2, 2000, &cap), RTC_OK);
    CU_ASSERT_EQUAL(dir_entries(dest2), 2);
}

/* A header that under-states the size: the real bytes never get past the declared size
 * and the limit (the CRC covers the real data, so the short read is reported). */
static void test_extract_lying_size_header_refused(void)
{
    static char data[5000];
    memset(data, 'y', sizeof data);
    const entry es[] = {{.name = "liar", .data = data, .len = sizeof data, .fake_size = 10}};
    char zip[1024], dest[1024], p[2048];
    make_zip("liar.zip", es, 1, zip, sizeof zip);
    make_dest("liar", dest, sizeof dest);
    capture cap;
    int rc = extract(zip, dest, 100, &cap);
    CU_ASSERT_TRUE(rc == RTC_EIO || rc == RTC_ELIMIT);
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, "liar.zip: liar: "));
    snprintf(p, sizeof p, "%s/liar", dest);
    struct stat sb;
    CU_ASSERT_TRUE(stat(p, &sb) != 0 || sb.st_size <= 100);
}

static void test_extract_entry_count_limit(void)
{
    const entry es[] = {
        {.name = "1", .data = "1", .len = 1},
        {.name = "2", .data = "2", .len = 1},
        {.name = "3", .data = "3", .len = 1},
    };
    char zip[1024], dest[1024];
    make_zip("count.zip", es, 3, zip, sizeof zip);
    make_dest("count", dest, sizeof dest);
    capture cap = {0};
    rtc_logger lg = {.log = capture_log, .user = &cap, .max_level = RTC_LOG_DEBUG};
    rtc_archive_limits lim = {.max_total_bytes = 0, .max_entries = 2};
    CU_ASSERT_EQUAL(rtc_archive_extract(zip, dest, &lim, &lg), RTC_ELIMIT);
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, "count.zip: 3: more than 2 entries"));
    CU_ASSERT_EQUAL(dir_entries(dest), 0);
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(data, 1, len, f), len);
    fclose(f);
}

static void test_extract_truncated_archive_eio(void)
{
    static char data[20000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (char)(i * 7 % 251);
    const entry es[] = {
        {.name = "one", .data = data, .len = sizeof data},
        {.name = "two", .data = data, .len = sizeof data},
    };
    char zip[1024], dest[1024];
    make_zip("trunc.zip", es, 2, zip, sizeof zip);
    size_t len = 0;
    char *all = rtc_test_slurp(zip, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    write_file(zip, all, len / 2);
    free(all);
    make_dest("trunc", dest, sizeof dest);
    capture cap;
    CU_ASSERT_EQUAL(extract(zip, dest, 0, &cap), RTC_EIO);
    CU_ASSERT_EQUAL(cap.n_error, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, "trunc.zip: not a zip archive, or truncated"));
}

/* Damaged compressed data inside a complete archive: the error names the entry. */
static void test_extract_corrupt_entry_eio(void)
{
    static char data[20000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (char)(i * 13 % 253);
    const entry es[] = {{.name = "payload.bin", .data = data, .len = sizeof data}};
    char zip[1024], dest[1024];
    make_zip("corrupt.zip", es, 1, zip, sizeof zip);
    size_t len = 0;
    char *all = rtc_test_slurp(zip, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    /* Local header (30 bytes + name) then deflate data: flip bytes well inside it. */
    for (size_t i = 60; i < 90 && i < len; i++)
        all[i] = (char)~all[i];
    write_file(zip, all, len);
    free(all);
    make_dest("corrupt", dest, sizeof dest);
    capture cap;
    CU_ASSERT_EQUAL(extract(zip, dest, 0, &cap), RTC_EIO);
    CU_ASSERT_EQUAL(cap.n_error, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, "corrupt.zip: payload.bin: "));
}

static void test_extract_missing_archive_enoent(void)
{
    char zip[1024], dest[1024];
    snprintf(zip, sizeof zip, "%s/none.zip", work);
    make_dest("none", dest, sizeof dest);
    capture cap;
    CU_ASSERT_EQUAL(extract(zip, dest, 0, &cap), -ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, "none.zip: cannot open: No such file or directory"));
}

/* Links already in the destination are never followed, as file or as directory. */
static void test_extract_preexisting_links_not_followed(void)
{
    char dest[1024], zip[1024], p[2048], target[1024], tdir[1024];
    make_dest("pre", dest, sizeof dest);
    snprintf(target, sizeof target, "%s/pre_target.txt", work);
    write_file(target, "keep", 4);
    make_dest("pre_dir", tdir, sizeof tdir);
    snprintf(p, sizeof p, "%s/x", dest);
    CU_ASSERT_EQUAL_FATAL(symlink(target, p), 0);
    snprintf(p, sizeof p, "%s/d", dest);
    CU_ASSERT_EQUAL_FATAL(symlink(tdir, p), 0);
    const entry e1[] = {{.name = "x", .data = "overwritten", .len = 11}};
    const entry e2[] = {{.name = "d/f", .data = "planted", .len = 7}};
    capture cap;
    make_zip("pre1.zip", e1, 1, zip, sizeof zip);
    CU_ASSERT_EQUAL(extract(zip, dest, 0, &cap), RTC_EUNSAFE);
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, "pre1.zip: x: cannot create file"));
    CU_ASSERT_TRUE(file_equals(target, "keep", 4));
    make_zip("pre2.zip", e2, 1, zip, sizeof zip);
    CU_ASSERT_EQUAL(extract(zip, dest, 0, &cap), RTC_EUNSAFE);
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, "pre2.zip: d/f: cannot create directory"));
    CU_ASSERT_EQUAL(dir_entries(tdir), 0);
}

/* Duplicates of differing content: refused in the first pass, naming the entry, before a
 * byte is written (which copy counts would be arbitrary). */
static void test_extract_duplicate_entry_unsafe(void)
{
    const entry es[] = {
        {.name = "ok", .data = "x", .len = 1},
        {.name = "d/same", .data = "first", .len = 5},
        {.name = "d/same", .data = "second", .len = 6},
    };
    char zip[1024], dest[1024], p[2048];
    make_zip("dup.zip", es, 3, zip, sizeof zip);
    make_dest("dup", dest, sizeof dest);
    capture cap;
    CU_ASSERT_EQUAL(extract(zip, dest, 0, &cap), RTC_EUNSAFE);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(cap.text, "dup.zip: d/same: duplicate entry with different content"));
    snprintf(p, sizeof p, "%s/ok", dest);
    CU_ASSERT_FALSE(exists(p));
}

/* Three entries of one name after another duplicated name: every pair is compared, so the
 * differing third is refused before anything is written. */
static void test_extract_third_duplicate_differs(void)
{
    const entry es[] = {
        {.name = "a", .data = "1", .len = 1}, {.name = "a", .data = "1", .len = 1},
        {.name = "b", .data = "2", .len = 1}, {.name = "b", .data = "2", .len = 1},
        {.name = "b", .data = "3", .len = 1},
    };
    char zip[1024], dest[1024], p[2048];
    make_zip("dup3.zip", es, 5, zip, sizeof zip);
    make_dest("dup3", dest, sizeof dest);
    capture cap;
    CU_ASSERT_EQUAL(extract(zip, dest, 0, &cap), RTC_EUNSAFE);
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, "dup3.zip: b: duplicate entry with different content"));
    snprintf(p, sizeof p, "%s/a", dest);
    CU_ASSERT_FALSE(exists(p));
}

/* Duplicates of identical content (the FMI 3 Reference FMU Roberts zips extra/ twice):
 * accepted, one file with that content; directory entries may repeat too. */
static void test_extract_identical_duplicates_accepted(void)
{
    const entry es[] = {
        {.name = "extra/", .data = "", .len = 0},
        {.name = "extra/a.txt", .data = "same bytes", .len = 10},
        {.name = "extra/", .data = "", .len = 0},
        {.name = "extra/a.txt", .data = "same bytes", .len = 10},
        {.name = "extra/empty", .data = "", .len = 0},
        {.name = "extra/empty", .data = "", .len = 0},
    };
    char zip[1024], dest[1024], p[2048];
    make_zip("dupsame.zip", es, 6, zip, sizeof zip);
    make_dest("dupsame", dest, sizeof dest);
    capture cap;
    CU_ASSERT_EQUAL(extract(zip, dest, 0, &cap), RTC_OK);
    snprintf(p, sizeof p, "%s/extra/a.txt", dest);
    CU_ASSERT_TRUE(file_equals(p, "same bytes", 10));
    snprintf(p, sizeof p, "%s/extra/empty", dest);
    CU_ASSERT_TRUE(file_equals(p, "", 0));
}

/* A name that occurs once but finds something already in the destination is still
 * refused: only duplicates inside the archive are compared. */
static void test_extract_existing_file_not_reused(void)
{
    const entry es[] = {{.name = "f", .data = "new", .len = 3}};
    char zip[1024], dest[1024], p[2048];
    make_zip("prefile.zip", es, 1, zip, sizeof zip);
    make_dest("prefile", dest, sizeof dest);
    snprintf(p, sizeof p, "%s/f", dest);
    write_file(p, "new", 3);
    capture cap;
    CU_ASSERT_EQUAL(extract(zip, dest, 0, &cap), RTC_EUNSAFE);
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, "prefile.zip: f: cannot create file: File exists"));
}

/* ---- temporary directories ---- */

static void test_tmpdir_new_private_and_remove(void)
{
    char dir[512], p[1024];
    CU_ASSERT_EQUAL_FATAL(rtc_tmpdir_new("rtctest.", dir, sizeof dir), RTC_OK);
    struct stat sb;
    CU_ASSERT_TRUE(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) && (sb.st_mode & 0777) == 0700);
    CU_ASSERT_PTR_NOT_NULL(strstr(dir, "/rtctest."));
    snprintf(p, sizeof p, "%s/a", dir);
    CU_ASSERT_EQUAL(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/a/f", dir);
    write_file(p, "f", 1);
    CU_ASSERT_EQUAL(rtc_tmpdir_remove(dir), RTC_OK);
    CU_ASSERT_FALSE(exists(dir));
    CU_ASSERT_EQUAL(rtc_tmpdir_remove(dir), RTC_OK); /* missing is fine */
}

static void test_tmpdir_new_small_buffer_elimit(void)
{
    char small[8] = "unset";
    CU_ASSERT_EQUAL(rtc_tmpdir_new("rtctest.", small, sizeof small), RTC_ELIMIT);
    CU_ASSERT_EQUAL(small[0], '\0');
}

/* Links inside the tree are removed as links: their targets survive. */
static void test_tmpdir_remove_does_not_follow_links(void)
{
    char dir[512], p[1024], outside_file[1024], outside_dir[1024], inner[2048];
    snprintf(outside_file, sizeof outside_file, "%s/survivor.txt", work);
    write_file(outside_file, "alive", 5);
    make_dest("survivor_dir", outside_dir, sizeof outside_dir);
    snprintf(inner, sizeof inner, "%s/inner.txt", outside_dir);
    write_file(inner, "in", 2);
    CU_ASSERT_EQUAL_FATAL(rtc_tmpdir_new("rtctest.", dir, sizeof dir), RTC_OK);
    snprintf(p, sizeof p, "%s/to_file", dir);
    CU_ASSERT_EQUAL(symlink(outside_file, p), 0);
    snprintf(p, sizeof p, "%s/sub", dir);
    CU_ASSERT_EQUAL(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/sub/to_dir", dir);
    CU_ASSERT_EQUAL(symlink(outside_dir, p), 0);
    CU_ASSERT_EQUAL(rtc_tmpdir_remove(dir), RTC_OK);
    CU_ASSERT_FALSE(exists(dir));
    CU_ASSERT_TRUE(file_equals(outside_file, "alive", 5));
    CU_ASSERT_TRUE(file_equals(inner, "in", 2));
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"extract_nested_dirs_byte_identical", test_extract_nested_dirs_byte_identical},
        {"extract_traversal_names_unsafe", test_extract_traversal_names_unsafe},
        {"extract_symlink_entry_unsafe", test_extract_symlink_entry_unsafe},
        {"extract_over_size_limit", test_extract_over_size_limit},
        {"extract_lying_size_header_refused", test_extract_lying_size_header_refused},
        {"extract_entry_count_limit", test_extract_entry_count_limit},
        {"extract_truncated_archive_eio", test_extract_truncated_archive_eio},
        {"extract_corrupt_entry_eio", test_extract_corrupt_entry_eio},
        {"extract_missing_archive_enoent", test_extract_missing_archive_enoent},
        {"extract_preexisting_links_not_followed", test_extract_preexisting_links_not_followed},
        {"extract_duplicate_entry_unsafe", test_extract_duplicate_entry_unsafe},
        {"extract_identical_duplicates_accepted", test_extract_identical_duplicates_accepted},
        {"extract_third_duplicate_differs", test_extract_third_duplicate_differs},
        {"extract_existing_file_not_reused", test_extract_existing_file_not_reused},
        {"tmpdir_new_private_and_remove", test_tmpdir_new_private_and_remove},
        {"tmpdir_new_small_buffer_elimit", test_tmpdir_new_small_buffer_elimit},
        {"tmpdir_remove_does_not_follow_links", test_tmpdir_remove_does_not_follow_links},
        {NULL, NULL},
    };
    rtc_test_add_suite("archive", setup, teardown, cases);
}
