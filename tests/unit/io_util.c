/*
 * Shared I/O test helpers (see io_util.h). Peers run inside the test process or as child
 * processes the test owns by pid: nothing is found or killed by name.
 */
#include "io_util.h"

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <CUnit/CUnit.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- logger ---- */

static void io_log_cb(void *user, int level, const char *msg)
{
    io_log *l = user;
    pthread_mutex_lock(&l->mu);
    size_t len = strlen(l->text);
    snprintf(l->text + len, sizeof l->text - len, "%s: %s\n", rtc_log_level_name(level), msg);
    l->n_errors += level == RTC_LOG_ERROR;
    l->n_warnings += level == RTC_LOG_WARNING;
    pthread_mutex_unlock(&l->mu);
    if (getenv("RTC_TEST_VERBOSE"))
        fprintf(stderr, "[log] %s\n", msg);
}

void io_log_init(io_log *l)
{
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->mu, NULL);
    l->lg = (rtc_logger){.log = io_log_cb, .user = l, .max_level = RTC_LOG_INFO};
}

bool io_log_has(io_log *l, const char *needle)
{
    pthread_mutex_lock(&l->mu);
    bool has = strstr(l->text, needle) != NULL;
    pthread_mutex_unlock(&l->mu);
    return has;
}

void io_log_reset(io_log *l)
{
    pthread_mutex_lock(&l->mu);
    l->text[0] = '\0';
    l->n_errors = l->n_warnings = 0;
    pthread_mutex_unlock(&l->mu);
}

void io_sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

bool io_wait(bool (*pred)(void *), void *arg, int timeout_ms)
{
    int64_t end = rtc_time_now_ns() + (int64_t)timeout_ms * 1000000;
    while (!pred(arg)) {
        if (rtc_time_now_ns() > end)
            return pred(arg);
        io_sleep_ms(1);
    }
    return true;
}

/* ---- plain server ---- */

static void srv_serve(plain_srv *s, int fd)
{
    uint8_t q[MODBUS_TCP_MAX_ADU_LENGTH];
    pthread_mutex_lock(&s->mu);
    int k = 0;
    while (k < s->n_clients && s->clients[k] != fd)
        k++;
    if (k == s->n_clients) { /* kicked meanwhile */
        pthread_mutex_unlock(&s->mu);
        return;
    }
    modbus_set_socket(s->ctx, fd);
    int rc = modbus_receive(s->ctx, q);
    if (rc > 0) {
        int late = atomic_exchange(&s->delay_next_ms, 0);
        if (late > 0)
            io_sleep_ms(late); /* an answer that arrives after the client gave up */
        modbus_reply(s->ctx, q, rc, s->map);
        atomic_fetch_add(&s->served, 1);
        if (rc >= 12 && s->n_log < (int)(sizeof s->log / sizeof s->log[0]))
            s->log[s->n_log++] = (plain_req){q[7], (uint16_t)(q[8] << 8 | q[9]),
                                            (uint16_t)(q[10] << 8 | q[11])};
    } else if (rc == -1) {
        close(fd);
        s->clients[k] = s->clients[--s->n_clients];
    }
    pthread_mutex_unlock(&s->mu);
}

static void *srv_thread(void *arg)
{
    plain_srv *s = arg;
    while (!atomic_load(&s->stop)) {
        struct pollfd p[9] = {{.fd = s->lfd, .events = POLLIN}};
        pthread_mutex_lock(&s->mu);
        int n = s->n_clients;
        for (int k = 0; k < n; k++)
            p[k + 1] = (struct pollfd){.fd = s->clients[k], .events = POLLIN};
        pthread_mutex_unlock(&s->mu);
        if (poll(p, (nfds_t)n + 1, 10) <= 0)
            continue;
        for (int k = n - 1; k >= 0; k--)
            if (p[k + 1].revents)
                srv_serve(s, p[k + 1].fd);
        if (p[0].revents & POLLIN) {
            int fd = accept(s->lfd, NULL, NULL);
            pthread_mutex_lock(&s->mu);
            if (fd >= 0 && s->n_clients < 8) {
                s->clients[s->n_clients++] = fd;
                atomic_fetch_add(&s->accepted, 1);
            } else if (fd >= 0) {
                close(fd);
            }
            pthread_mutex_unlock(&s->mu);
        }
    }
    return NULL;
}

int io_free_port(int type)
{
    int fd = socket(AF_INET, type, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

rtc_driver_stats io_drv_stats(io_drv *d, rtc_signal_health *h, size_t cap)
{
    rtc_driver_stats st = {.signals = h, .n_signals_cap = cap};
    d->ops->stats(d->self, &st);
    return st;
}

uint64_t io_counter(const rtc_driver_stats *st, const char *name)
{
    uint64_t v = UINT64_MAX;
    if (!rtc_driver_stats_counter(st, name, &v)) {
        fprintf(stderr, "driver reports no counter %s\n", name);
        CU_FAIL("driver-specific counter missing");
    }
    return v;
}

uint64_t io_drv_counter(io_drv *d, const char *name)
{
    rtc_driver_stats st = io_drv_stats(d, NULL, 0);
    return io_counter(&st, name);
}

void io_expect_refused(const rtc_driver_ops *ops, const rtc_driver_config *cfg, io_log *log,
                       const char *who, const char *msg)
{
    io_log_reset(log);
    void *self = (void *)&ops; /* must stay untouched on rejection */
    CU_ASSERT_EQUAL(ops->open(cfg, &log->lg, &self), RTC_EINVAL);
    CU_ASSERT_PTR_EQUAL(self, (void *)&ops);
    if (!io_log_has(log, msg))
        printf("\n    expected '%s' in:\n%s", msg, log->text);
    CU_ASSERT_TRUE(io_log_has(log, msg));
    CU_ASSERT_TRUE(io_log_has(log, who));
    CU_ASSERT_EQUAL(log->n_errors, 1);
}

typedef struct drv_wait {
    io_drv *d;
    const char *name;
    uint64_t min;
    rtc_link_state link;
} drv_wait;

static bool counter_reached(void *arg)
{
    drv_wait *w = arg;
    return io_drv_counter(w->d, w->name) >= w->min;
}

bool io_wait_counter(io_drv *d, const char *name, uint64_t min, int timeout_ms)
{
    drv_wait w = {.d = d, .name = name, .min = min};
    return io_wait(counter_reached, &w, timeout_ms);
}

static bool link_is(void *arg)
{
    drv_wait *w = arg;
    return io_drv_stats(w->d, NULL, 0).link == w->link;
}

bool io_wait_link(io_drv *d, rtc_link_state s, int timeout_ms)
{
    drv_wait w = {.d = d, .link = s};
    return io_wait(link_is, &w, timeout_ms);
}

int plain_srv_start(plain_srv *s)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    s->ctx = modbus_new_tcp("127.0.0.1", 0);
    s->map = modbus_mapping_new(2000, 2000, 2000, 2000);
    if (!s->ctx || !s->map)
        return -1;
    s->lfd = modbus_tcp_listen(s->ctx, 8);
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    if (s->lfd < 0 || getsockname(s->lfd, (struct sockaddr *)&sa, &sl) != 0)
        return -1;
    s->port = ntohs(sa.sin_port);
    return pthread_create(&s->tid, NULL, srv_thread, s) == 0 ? 0 : -1;
}

void plain_srv_kick(plain_srv *s)
{
    pthread_mutex_lock(&s->mu);
    while (s->n_clients > 0)
        close(s->clients[--s->n_clients]);
    pthread_mutex_unlock(&s->mu);
}

void plain_srv_stop(plain_srv *s)
{
    atomic_store(&s->stop, true);
    pthread_join(s->tid, NULL);
    plain_srv_kick(s);
    close(s->lfd);
    modbus_set_socket(s->ctx, -1);
    modbus_free(s->ctx);
    modbus_mapping_free(s->map);
    pthread_mutex_destroy(&s->mu);
}

/* ---- children ---- */

int io_child_spawn(io_child *c, char *const argv[], bool merge_stderr)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    if (merge_stderr)
        posix_spawn_file_actions_adddup2(&fa, p[1], 2);
    int rc = posix_spawn(&c->pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    if (rc != 0) {
        close(p[0]);
        return -1;
    }
    c->out_fd = p[0];
    return 0;
}

bool io_child_realtime(io_child *c, int prio)
{
    struct sched_param sp = {.sched_priority = prio};
    if (sched_setscheduler(c->pid, SCHED_FIFO, &sp) == 0)
        return true;
    printf("\n    (SCHED_FIFO %d for pid %d refused: %s; it runs at normal priority)", prio,
           (int)c->pid, strerror(errno));
    return false;
}

bool io_child_line(io_child *c, const char *prefix, char *line, size_t cap, int timeout_ms)
{
    size_t len = 0;
    int64_t end = rtc_time_now_ns() + (int64_t)timeout_ms * 1000000;
    for (;;) {
        int left = (int)((end - rtc_time_now_ns()) / 1000000);
        struct pollfd p = {.fd = c->out_fd, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, left) <= 0)
            return false;
        char ch;
        if (read(c->out_fd, &ch, 1) != 1)
            return false;
        if (ch != '\n') {
            if (len + 1 < cap)
                line[len++] = ch;
            continue;
        }
        line[len] = '\0';
        if (strncmp(line, prefix, strlen(prefix)) == 0)
            return true;
        len = 0;
    }
}

int io_child_kill(io_child *c, int sig)
{
    int st = -1;
    if (c->pid <= 0)
        return -1;
    kill(c->pid, sig);
    for (int i = 0; i < 5000; i++) {
        if (waitpid(c->pid, &st, WNOHANG) == c->pid)
            goto out;
        io_sleep_ms(1);
    }
    kill(c->pid, SIGKILL);
    waitpid(c->pid, &st, 0);
out:
    close(c->out_fd);
    c->pid = 0;
    return st;
}

int io_child_wait(io_child *c, int timeout_ms)
{
    int st = 0;
    for (int i = 0; i < timeout_ms / 10; i++) {
        if (waitpid(c->pid, &st, WNOHANG) == c->pid) {
            close(c->out_fd);
            c->pid = 0;
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        io_sleep_ms(10);
    }
    return io_child_kill(c, SIGKILL);
}

int io_tool_port(io_child *c, char *const argv[])
{
    char line[256] = "";
    if (io_child_spawn(c, argv, true) != 0)
        return 0;
    const char *name = strrchr(argv[0], '/');
    if (!io_child_line(c, name ? name + 1 : argv[0], line, sizeof line, 5000))
        return 0;
    const char *colon = strrchr(line, ':');
    return colon ? atoi(colon + 1) : 0;
}

bool io_pty_pair(io_child *socat, char *a, char *b, size_t cap, char *why, size_t why_cap)
{
    const char *path = access("/usr/bin/socat", X_OK) == 0 ? "/usr/bin/socat" : NULL;
    if (!path) {
        snprintf(why, why_cap, "socat not installed (scripts/setup installs it)");
        return false;
    }
    char *argv[] = {(char *)path, "-d", "-d", "pty,raw,echo=0", "pty,raw,echo=0", NULL};
    if (io_child_spawn(socat, argv, true) != 0) {
        snprintf(why, why_cap, "cannot start socat");
        return false;
    }
    /* socat -d -d prints "... N PTY is /dev/pts/X" for each side, then "starting data
     * transfer loop" once both exist. */
    char line[256], *out[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        const char *p = NULL;
        while (!p) {
            if (!io_child_line(socat, "", line, sizeof line, 5000)) {
                snprintf(why, why_cap, "socat printed no pty path");
                io_child_kill(socat, SIGTERM);
                return false;
            }
            p = strstr(line, "PTY is ");
        }
        snprintf(out[k], cap, "%s", p + 7);
    }
    while (io_child_line(socat, "", line, sizeof line, 5000))
        if (strstr(line, "starting data transfer loop"))
            return true;
    snprintf(why, why_cap, "socat did not start its transfer loop");
    io_child_kill(socat, SIGTERM);
    return false;
}

/* ---- raw TCP peers ---- */

int io_tcp_connect(int port)
{
    return io_tcp_connect_from(port, "127.0.0.1");
}

int io_tcp_connect_from(int port, const char *src)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in from = {.sin_family = AF_INET},
                       to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd >= 0 && inet_pton(AF_INET, src, &from.sin_addr) == 1 &&
        bind(fd, (struct sockaddr *)&from, sizeof from) == 0 &&
        connect(fd, (struct sockaddr *)&to, sizeof to) == 0)
        return fd;
    if (fd >= 0)
        close(fd);
    return -1;
}

bool io_tcp_send(int fd, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Read exactly n bytes by deadline_ns (CLOCK_MONOTONIC); 0: the peer closed. */
static int read_full(int fd, uint8_t *buf, size_t n, int64_t deadline_ns)
{
    size_t have = 0;
    while (have < n) {
        int64_t left_ms = (deadline_ns - rtc_time_now_ns()) / 1000000;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (left_ms < 0 || poll(&p, 1, (int)left_ms) <= 0)
            return -1;
        ssize_t r = recv(fd, buf + have, n - have, 0);
        if (r == 0 || (r < 0 && errno == ECONNRESET))
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
        have += r > 0 ? (size_t)r : 0;
    }
    return (int)n;
}

int io_tcp_recv_frame(int fd, uint8_t *buf, size_t cap, int timeout_ms)
{
    int64_t deadline = rtc_time_now_ns() + (int64_t)timeout_ms * 1000000;
    if (cap < 7)
        return -1;
    int r = read_full(fd, buf, 6, deadline);
    if (r <= 0)
        return r;
    size_t len = (size_t)(buf[4] << 8 | buf[5]);
    if (6 + len > cap)
        return -1;
    r = read_full(fd, buf + 6, len, deadline);
    return r <= 0 ? r : (int)(6 + len);
}

bool io_tcp_wait_closed(int fd, int timeout_ms)
{
    int64_t deadline = rtc_time_now_ns() + (int64_t)timeout_ms * 1000000;
    uint8_t junk[256];
    for (;;) {
        int64_t left_ms = (deadline - rtc_time_now_ns()) / 1000000;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (left_ms < 0 || poll(&p, 1, (int)left_ms) <= 0)
            return false;
        ssize_t r = recv(fd, junk, sizeof junk, 0);
        if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
            return true;
    }
}

modbus_t *io_mb_client(int port, int timeout_ms)
{
    modbus_t *cl = modbus_new_tcp("127.0.0.1", port);
    if (!cl)
        return NULL;
    modbus_set_response_timeout(cl, (uint32_t)timeout_ms / 1000,
                                (uint32_t)(timeout_ms % 1000) * 1000);
    if (modbus_connect(cl) == 0)
        return cl;
    modbus_free(cl);
    return NULL;
}

void io_mb_client_free(modbus_t *cl)
{
    if (cl) {
        modbus_close(cl);
        modbus_free(cl);
    }
}
