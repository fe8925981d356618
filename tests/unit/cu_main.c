/* Runner and helpers shared by every CUnit test executable (see cu_main.h). */
#include "cu_main.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned skips;

void rtc_test_add_suite(const char *name, CU_InitializeFunc init, CU_CleanupFunc clean,
                        const rtc_test_case *cases)
{
    CU_pSuite s = CU_add_suite(name, init, clean);
    if (!s) {
        fprintf(stderr, "cannot add suite %s: %s\n", name, CU_get_error_msg());
        exit(2);
    }
    for (const rtc_test_case *c = cases; c->name; c++) {
        if (!CU_add_test(s, c->name, c->fn)) {
            fprintf(stderr, "cannot add test %s.%s: %s\n", name, c->name, CU_get_error_msg());
            exit(2);
        }
    }
}

void rtc_test_skip(const char *what, const char *reason)
{
    skips++;
    printf("\n  SKIP %s: %s\n", what, reason);
    fflush(stdout);
}

int rtc_test_run(const char *cmd, char *out, size_t cap)
{
    char full[8192];
    snprintf(full, sizeof full, "(%s) 2>&1", cmd);
    FILE *p = popen(full, "r");
    if (!p)
        return -1;
    size_t n = 0;
    if (out && cap) {
        size_t r;
        while (n + 1 < cap && (r = fread(out + n, 1, cap - 1 - n, p)) > 0)
            n += r;
        out[n] = '\0';
    }
    char sink[4096];
    while (fread(sink, 1, sizeof sink, p) > 0)
        ;
    int st = pclose(p);
    if (st == -1)
        return -1;
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return -1;
}

int rtc_test_sh(const char *dir, char *out, size_t cap, const char *fmt, ...)
{
    char args[6144], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s", dir, args);
    return rtc_test_run(cmd, out, cap);
}

int rtc_test_vrtcosim(const char *work, const char *tmpdir, char *out, size_t cap,
                      const char *fmt, va_list ap)
{
    char args[4096], env[600] = "", cmd[8192];
    vsnprintf(args, sizeof args, fmt, ap);
    if (tmpdir)
        snprintf(env, sizeof env, "TMPDIR='%s' ", tmpdir);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s'%s' %s", work, env, RTCOSIM_EXE, args);
    return rtc_test_run(cmd, out, cap);
}

int rtc_test_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

void rtc_test_tmpdir(char *buf, size_t cap)
{
    const char *base = getenv("TMPDIR");
    snprintf(buf, cap, "%s/rtctest.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(buf)) {
        perror("mkdtemp");
        exit(2);
    }
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void rtc_test_rmtree(const char *path)
{
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

char *rtc_test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (cap - n - 1 == 0) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = n;
    }
    return buf;
}

/* Every test executable runs with TMPDIR at a private directory: whatever its tests and
 * their children extract (rtcosim-fmu-*, rtcssp-*, rtcssv-*) must be gone at the end, or
 * the run fails — the suite leaves nothing in /tmp, and other processes' directories
 * there cannot make it pass or fail. */
static void private_tmpdir(char *buf, size_t cap)
{
    rtc_test_tmpdir(buf, cap);
    setenv("TMPDIR", buf, 1);
}

static int leftovers(const char *dir)
{
    static const char *const prefixes[] = {"rtcosim-", "rtcssp-", "rtcssv-"};
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)) != NULL)
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
            if (!strncmp(e->d_name, prefixes[i], strlen(prefixes[i]))) {
                fprintf(stderr, "LEFT BEHIND in TMPDIR: %s\n", e->d_name);
                n++;
            }
    if (d)
        closedir(d);
    return n;
}

int main(void)
{
    char tmp[512];
    private_tmpdir(tmp, sizeof tmp);
    if (CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
        return 2;
    }
    rtc_test_register();
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned run = CU_get_number_of_tests_run();
    int err = CU_get_error();
    CU_cleanup_registry();
    if (skips)
        printf("skipped assertion blocks (not counted as passed): %u\n", skips);
    int left = leftovers(tmp);
    rtc_test_rmtree(tmp);
    if (run == 0) {
        fprintf(stderr, "no test ran\n");
        return 1;
    }
    return (failed || err || left) ? 1 : 0;
}
