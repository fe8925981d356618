/*
 * Shared runner for the CUnit test executables. Each test_<module>.c defines
 * rtc_test_register(), which adds its suites to the registry; cu_main.c runs them in
 * verbose basic mode, prints the CUnit summary and exits non-zero on any failure.
 */
#ifndef RTC_TEST_CU_MAIN_H
#define RTC_TEST_CU_MAIN_H

#include <CUnit/CUnit.h>
#include <stdarg.h>
#include <stddef.h>

/** Defined by each test file: add its suites (CU_add_suite...) and tests. */
void rtc_test_register(void);

/** Add a suite and its tests from a NULL-terminated table; aborts the run on failure. */
typedef struct rtc_test_case {
    const char *name;
    CU_TestFunc fn;
} rtc_test_case;
void rtc_test_add_suite(const char *name, CU_InitializeFunc init, CU_CleanupFunc clean,
                        const rtc_test_case *cases);

/** Print a visible reason for a skipped assertion block ("SKIP <test>: <reason>"); the
 *  count of skips is printed next to the CUnit summary, never as a pass. */
void rtc_test_skip(const char *what, const char *reason);

/**
 * Run a command line through /bin/sh, capture stdout+stderr (up to cap-1 bytes) into out.
 * Returns the exit status (0..255), 128+signal, or -1 when the command could not start.
 */
int rtc_test_run(const char *cmd, char *out, size_t cap);

/**
 * Run "RTCOSIM_EXE ARGS" (ARGS from @p fmt and @p ap) in directory @p work through
 * rtc_test_run(), with TMPDIR=@p tmpdir when @p tmpdir is not NULL. Returns its exit status.
 */
int rtc_test_vrtcosim(const char *work, const char *tmpdir, char *out, size_t cap,
                      const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/**
 * Run the shell command line @p fmt... in directory @p dir through rtc_test_run(), its
 * stdout+stderr into @p out. Returns its exit status.
 */
int rtc_test_sh(const char *dir, char *out, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/**
 * The fixture of a test file whose cases need a directory of their own, written once here:
 * `work` (a fresh private directory per suite) and setup() and teardown() for
 * rtc_test_add_suite(). Expands to file-scope definitions: use once per test file.
 */
#define RTC_TEST_WORKDIR_FIXTURE                                                              \
    static char work[512];                                                                    \
    static int setup(void)                                                                    \
    {                                                                                         \
        rtc_test_tmpdir(work, sizeof work);                                                   \
        return 0;                                                                             \
    }                                                                                         \
    static int teardown(void)                                                                 \
    {                                                                                         \
        rtc_test_rmtree(work);                                                                \
        return 0;                                                                             \
    }

/**
 * The fixture of a test file whose cases run rtcosim: RTC_TEST_WORKDIR_FIXTURE, `out`
 * (stdout+stderr of the last command), and rtcosim(fmt, ...) running "RTCOSIM_EXE ARGS" in
 * `work` (its exit status). Use once per test file.
 */
#define RTC_TEST_RTCOSIM_FIXTURE                                                              \
    RTC_TEST_WORKDIR_FIXTURE                                                                  \
    static char out[65536];                                                                   \
    static int rtcosim(const char *fmt, ...) __attribute__((format(printf, 1, 2)));           \
    static int rtcosim(const char *fmt, ...)                                                  \
    {                                                                                         \
        va_list ap;                                                                           \
        va_start(ap, fmt);                                                                    \
        int rc = rtc_test_vrtcosim(work, NULL, out, sizeof out, fmt, ap);                     \
        va_end(ap);                                                                           \
        return rc;                                                                            \
    }

/** Entries of @p dir other than "." and ".." (0 when it cannot be opened). */
int rtc_test_entries(const char *dir);

/** A fresh private temporary directory (mkdtemp) under $TMPDIR or /tmp; written to buf. */
void rtc_test_tmpdir(char *buf, size_t cap);

/** Remove a directory tree (nftw, depth first); missing is fine. */
void rtc_test_rmtree(const char *path);

/** Read a whole file into a malloc'd NUL-terminated string (NULL on error). */
char *rtc_test_slurp(const char *path, size_t *len);

#endif
