/* tests/fuzz/fuzz_util.c — helpers shared by the harnesses (see fuzz_util.h). */
#include "fuzz_util.h"

#include "rtcosim/archive.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t n_errors, n_chars;

/* Touch the message so that an unterminated or garbage string is caught by ASan. */
static void drop(void *user, int level, const char *msg)
{
    (void)user;
    n_chars += strlen(msg);
    n_errors += level == RTC_LOG_ERROR;
}

const rtc_logger *rtc_fuzz_logger(void)
{
    static const rtc_logger lg = {.log = drop, .max_level = RTC_LOG_DEBUG};
    return &lg;
}

void rtc_fuzz_errors_reset(void)
{
    n_errors = 0;
}

void rtc_fuzz_check_reported(int rc, const char *what)
{
    if (rc != RTC_OK && rc != RTC_ENOMEM && n_errors == 0)
        rtc_fuzz_fail("failed without an error line", what);
}

_Noreturn void rtc_fuzz_fail(const char *reason, const char *detail)
{
    fprintf(stderr, "fuzz: %s%s%s\n", reason, detail ? ": " : "", detail ? detail : "");
    abort();
}

void rtc_fuzz_tmpdir(char *out, size_t cap)
{
    if (rtc_tmpdir_new("rtcfuzz-", out, cap) != RTC_OK)
        rtc_fuzz_fail("cannot create a temporary directory", strerror(errno));
}

void rtc_fuzz_write(const char *dir, const char *name, const void *data, size_t size,
                    char *path)
{
    snprintf(path, PATH_MAX, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        rtc_fuzz_fail("cannot write the input file", path);
}

void rtc_fuzz_rmdir(const char *dir)
{
    if (rtc_tmpdir_remove(dir) != RTC_OK)
        rtc_fuzz_fail("cannot remove the temporary directory", dir);
}

void rtc_fuzz_on_file(const char *name, const uint8_t *data, size_t size,
                      void (*fn)(const char *path))
{
    char dir[PATH_MAX], path[PATH_MAX];
    rtc_fuzz_tmpdir(dir, sizeof dir);
    rtc_fuzz_write(dir, name, data, size, path);
    fn(path);
    rtc_fuzz_rmdir(dir);
}
