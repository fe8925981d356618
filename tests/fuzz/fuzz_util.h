/*
 * tests/fuzz/fuzz_util.h — what every libFuzzer harness of tests/fuzz shares.
 *
 * Each harness defines LLVMFuzzerTestOneInput(). Built with RTC_FUZZ=ON (clang,
 * -fsanitize=fuzzer) it is a libFuzzer target run by scripts/fuzz; in the normal build it
 * is linked with fuzz_driver.c, whose main() feeds it every file of the directories named
 * on the command line (the seed corpus and the regression inputs), so every input that
 * once crashed a parser is replayed by the plain, ASan/UBSan and TSan suites.
 */
#ifndef RTC_FUZZ_UTIL_H
#define RTC_FUZZ_UTIL_H

#include "rtcosim/log.h"

#include <stddef.h>
#include <stdint.h>

/** The libFuzzer entry point each harness defines. Returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** A logger that formats every message (so format paths are exercised) and drops it,
 *  counting the error lines. */
const rtc_logger *rtc_fuzz_logger(void);

/** Start counting error lines afresh. */
void rtc_fuzz_errors_reset(void);

/** A reader returned @p rc: a failure (other than running out of memory) must have been
 *  reported in at least one error line, never silently; abort otherwise. */
void rtc_fuzz_check_reported(int rc, const char *what);

/** Create a private directory (mkdtemp, 0700) or abort: a harness cannot go on without. */
void rtc_fuzz_tmpdir(char *out, size_t cap);

/** Write @p size bytes to DIR/NAME, path into @p path (cap PATH_MAX); abort on failure. */
void rtc_fuzz_write(const char *dir, const char *name, const void *data, size_t size,
                    char *path);

/** Write the input as NAME in a fresh private directory, call @p fn with its path, then
 *  remove the directory: for the readers that take a path. */
void rtc_fuzz_on_file(const char *name, const uint8_t *data, size_t size,
                      void (*fn)(const char *path));

/** Remove a directory made by rtc_fuzz_tmpdir(); abort if it cannot be removed. */
void rtc_fuzz_rmdir(const char *dir);

/** Print "fuzz: REASON" to stderr and abort(): a finding, never a silent pass. */
_Noreturn void rtc_fuzz_fail(const char *reason, const char *detail);

#endif
