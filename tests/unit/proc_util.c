/* rtcosim as a child process (proc_util.h). */
#include "proc_util.h"
#include "cu_main.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* In the child, before exec: what a login shell would have left. */
static void child_setup(const rtc_test_child *c)
{
    static const int sigs[] = {SIGPIPE, SIGXFSZ, SIGHUP, SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    if (c->hup_ignored)
        signal(SIGHUP, SIG_IGN);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (c->fsize_bytes > 0) {
        struct rlimit r = {(rlim_t)c->fsize_bytes, (rlim_t)c->fsize_bytes};
        if (setrlimit(RLIMIT_FSIZE, &r) != 0)
            _exit(126);
    }
    char log[700];
    snprintf(log, sizeof log, "%s/child.log", c->work);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 2) < 0 || dup2(c->out_fd >= 0 ? c->out_fd : fd, 1) < 0)
        _exit(126);
    close(fd);
    if (c->out_fd > 2)
        close(c->out_fd);
    if (chdir(c->work) != 0 || (c->tmpdir && setenv("TMPDIR", c->tmpdir, 1) != 0))
        _exit(127);
}

pid_t rtc_test_spawn(const rtc_test_child *c, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char *argv[64];
    int n = 0;
    argv[n++] = (char *)RTCOSIM_EXE;
    for (char *save = NULL, *t = strtok_r(line, " ", &save); t && n < 63;
         t = strtok_r(NULL, " ", &save))
        argv[n++] = t;
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        child_setup(c);
        execv(RTCOSIM_EXE, argv);
        _exit(127);
    }
    return pid;
}

int rtc_test_wait_exit(pid_t pid)
{
    int st;
    for (int i = 0; i < 6000; i++) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
        nap_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
}

long rtc_test_lines(const char *path)
{
    size_t n = 0;
    char *text = rtc_test_slurp(path, &n);
    long count = 0;
    for (size_t k = 0; text && k < n; k++)
        count += text[k] == '\n';
    free(text);
    return count;
}

bool rtc_test_wait_lines(const char *path, long lines)
{
    for (int i = 0; i < 3000; i++) {
        if (rtc_test_lines(path) >= lines)
            return true;
        nap_ms(10);
    }
    return false;
}

int rtc_test_dds_domain(int shift)
{
    int first = (int)((getpid() + shift) % 98);
    for (int i = 0; i < 98; i++) {
        int d = 1 + (first + i) % 98;
        char path[64];
        snprintf(path, sizeof path, "/tmp/rtcosim-test-dds-%d.lock", d);
        int fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0666); /* any user may lock */
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return d; /* fd stays open: the lock lives as long as this process */
        close(fd);
    }
    return 1 + first; /* every domain held (98 node tests at once): share one */
}

FILE *rtc_test_msd_ssd(const char *dir)
{
    char res[700], path[700];
    snprintf(res, sizeof res, "%s/stage/msd-jacobi/resources", RTC_TEST_CONFIG_DIR);
    snprintf(path, sizeof path, "%s/resources", dir);
    if (symlink(res, path) != 0)
        return NULL;
    snprintf(path, sizeof path, "%s/SystemStructure.ssd", dir);
    return fopen(path, "w");
}
