/*
 * rtcosim as a child process the way a user starts it: its own working directory and
 * TMPDIR, the signal dispositions a shell gives it (SIGPIPE, SIGXFSZ, SIGHUP, SIGINT,
 * SIGTERM at their defaults, whatever this test process has), and optionally a file-size
 * limit (RLIMIT_FSIZE, as `ulimit -f` or systemd LimitFSIZE set it), SIGHUP ignored (as
 * under nohup), or its standard output on a descriptor of the test's (a pipe). Waits are
 * on events (a file's lines, the child's exit), bounded by generous timeouts.
 */
#ifndef RTC_TEST_PROC_UTIL_H
#define RTC_TEST_PROC_UTIL_H

#include "cu_main.h"

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct rtc_test_child {
    const char *work;      /**< working directory; WORK/child.log gets stdout and stderr */
    const char *tmpdir;    /**< the child's TMPDIR (NULL: inherited) */
    long long fsize_bytes; /**< > 0: RLIMIT_FSIZE set in the child before exec */
    int out_fd;            /**< >= 0: the child's stdout (closed in the child after dup2;
                                the caller closes its own copy; a pipe's other end must
                                be O_CLOEXEC, or the child holds it open) */
    bool hup_ignored;      /**< SIGHUP ignored at exec, as nohup leaves it */
} rtc_test_child;

/**
 * The fixture of a test file whose cases start rtcosim children: `tmp` (their TMPDIR, which
 * must be empty again after each run), `work` (their directory), `child` (the plain child
 * in them: output to WORK/child.log), and setup() / teardown() for rtc_test_add_suite().
 * Expands to file-scope definitions: use once per test file.
 */
#define RTC_TEST_CHILD_FIXTURE                                                                \
    static char tmp[512];                                                                     \
    static char work[512];                                                                    \
    static rtc_test_child child;                                                              \
    static int setup(void)                                                                    \
    {                                                                                         \
        rtc_test_tmpdir(tmp, sizeof tmp);                                                     \
        rtc_test_tmpdir(work, sizeof work);                                                   \
        child = (rtc_test_child){.work = work, .tmpdir = tmp, .out_fd = -1};                  \
        return 0;                                                                             \
    }                                                                                         \
    static int teardown(void)                                                                 \
    {                                                                                         \
        rtc_test_rmtree(tmp);                                                                 \
        rtc_test_rmtree(work);                                                                \
        return 0;                                                                             \
    }

/*
 * The cases of a test whose children are the nodes of one distributed run (after
 * RTC_TEST_CHILD_FIXTURE): base is WORK/<case>; domain() is this test process's DDS domain
 * (rtc_test_dds_domain(SHIFT));
 * begin(tag) makes WORK/<tag> and returns a session tag no other test run uses (PREFIX,
 * pid, tag); in_dir(name) makes BASE/<name> and returns a child that runs there.
 */
#define RTC_TEST_NODE_CASES(PREFIX, SHIFT)                                                     \
    static char base[540];                                                                    \
    static int domain(void)                                                                   \
    {                                                                                         \
        static int d;                                                                         \
        if (!d)                                                                               \
            d = rtc_test_dds_domain(SHIFT);                                                   \
        return d;                                                                             \
    }                                                                                         \
    static const char *begin(const char *tag)                                                 \
    {                                                                                         \
        static char s[64];                                                                    \
        snprintf(base, sizeof base, "%s/%s", work, tag);                                      \
        mkdir(base, 0755);                                                                    \
        snprintf(s, sizeof s, PREFIX "%ld-%s", (long)getpid(), tag);                          \
        return s;                                                                             \
    }                                                                                         \
    static rtc_test_child in_dir(const char *name, char *dir, size_t cap)                     \
    {                                                                                         \
        snprintf(dir, cap, "%s/%s", base, name);                                              \
        mkdir(dir, 0755);                                                                     \
        return (rtc_test_child){.work = dir, .tmpdir = tmp, .out_fd = -1};                    \
    }

/** A DDS domain, 1 to 98, that no other process of this machine holds while this one lives
 *  (an exclusive flock on /tmp/rtcosim-test-dds-N.lock — /tmp, not the TMPDIR each test
 *  sets for itself —, released when the process ends): two tests, or two test runs, that
 *  start nodes at the same time never share a domain, whose participants would discover
 *  each other and trade discovery traffic for nothing (their sessions keep their samples
 *  apart; a pid-derived domain was shared by 1 pair in 98). The search starts at
 *  1 + (pid + @p shift) % 98. Below 99, so that the ports Cyclone DDS sends discovery to on
 *  127.0.0.1, 7400 + 250 x domain and a few above, stay under the kernel's ephemeral range
 *  (32768 and up), where another test's UDP socket may be bound and would receive them. */
int rtc_test_dds_domain(int shift);

/** Prepare folder @p dir for a system of the staged msd-jacobi FMUs: DIR/resources linked to
 *  its resources (Mass1.fmu, Mass2.fmu), and DIR/SystemStructure.ssd opened for writing.
 *  Returns that file, or NULL when the link or the file cannot be made. */
FILE *rtc_test_msd_ssd(const char *dir);

/** Start "RTCOSIM_EXE ARGS" (ARGS split on spaces) as @p c says. Returns the pid, or -1. */
pid_t rtc_test_spawn(const rtc_test_child *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** The child's exit status (1000 + signal if a signal killed it), waiting up to 60 s; -1
 *  on timeout (the child is then killed). */
int rtc_test_wait_exit(pid_t pid);

/** Wait until @p path has at least @p lines newline characters (30 s at most). */
bool rtc_test_wait_lines(const char *path, long lines);

/** Newline characters in @p path (0 when unreadable). */
long rtc_test_lines(const char *path);

#endif
