/*
 * Helpers of the panel tests (test_panel.c, test_panel_trust.c): `rtcosim run --realtime
 * --http 0` as a child process, raw HTTP requests over real sockets on 127.0.0.1 (from
 * any 127.x.y.z source address, to play several hosts), answers parsed as JSON.
 */
#include "panel_util.h"

#include "cu_main.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

char resp[1 << 18];
int answer_timeout_s = 30;

/* The controller-plant example, controller.r exposed and recorded. */
int start_panel(io_child *run, const char *dir, const char *extra, int *osc_port)
{
    char args[1024];
    snprintf(args, sizeof args, "%s %s", EXPOSE, extra);
    return start_panel_run(run, SYSTEM, dir, args, osc_port);
}

bool alive(io_child *run)
{
    int st;
    return waitpid(run->pid, &st, WNOHANG) == 0;
}

/* Send @p req (n bytes) on a new connection and read the answer until the server closes
 * (at most 30 s). Returns the HTTP status, 0 when closed without an answer, -1: no
 * connection. */
int raw(int port, const char *req, size_t n)
{
    return raw_from(port, "127.0.0.1", req, n);
}

int raw_from(int port, const char *src, const char *req, size_t n)
{
    int fd = io_tcp_connect_from(port, src);
    if (fd < 0)
        return -1;
    struct timeval tv = {.tv_sec = answer_timeout_s};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    io_tcp_send(fd, req, n); /* the server may close early: what it answered still counts */
    size_t len = 0;
    ssize_t r;
    while (len + 1 < sizeof resp && (r = recv(fd, resp + len, sizeof resp - 1 - len, 0)) > 0)
        len += (size_t)r;
    resp[len] = '\0';
    close(fd);
    int status = 0;
    return sscanf(resp, "HTTP/1.%*d %d", &status) == 1 ? status : 0;
}

/* METHOD PATH with the loopback Host, Connection: close and @p headers ("" or lines). */
int req(int port, const char *method, const char *path, const char *headers)
{
    char r[4096];
    int n = snprintf(r, sizeof r, "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: "
                     "close\r\n%s\r\n", method, path, port, headers);
    return raw(port, r, (size_t)n);
}

int cmd(int port, const char *query)
{
    char path[512];
    snprintf(path, sizeof path, "/api/cmd?%s", query);
    return req(port, "POST", path, "X-Rtcosim-Panel: 1\r\n");
}

bool has(const char *needle)
{
    bool ok = strstr(resp, needle) != NULL;
    if (!ok)
        printf("\n    expected '%s' in: %.300s", needle, resp);
    return ok;
}

/* The last answer's body as JSON: one compact document on one line (NULL, with the answer
 * printed, when it is not). */
json_t *body_json(void)
{
    const char *b = strstr(resp, "\r\n\r\n");
    json_error_t e;
    json_t *j = b && strchr(b + 4, '\n') == b + 4 + strlen(b + 4) - 1
                    ? json_loads(b + 4, JSON_REJECT_DUPLICATES, &e) : NULL;
    if (!j)
        printf("\n    expected one line of JSON in: %.300s", resp);
    return j;
}

/* Member @p key of @p o as a number; NAN when it is missing or not a number. */
double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Stop the run from the panel and wait for its exit status (after a flood the command
 * bucket refills first: 429 is retried, for up to 30 s). */
int stop_run(io_child *run, int port)
{
    int st = 429;
    for (int i = 0; i < 600 && st == 429; i++)
        if ((st = cmd(port, "op=stop")) == 429)
            io_sleep_ms(50);
    CU_ASSERT_EQUAL(st, 200);
    return wait_run(run);
}

double summary_num(const char *dir, const char *obj, const char *sub, const char *key)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s/summary.json", work, dir);
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e), *o = json_object_get(doc, obj);
    if (sub)
        o = json_object_get(o, sub);
    double v = num(o, key);
    if (isnan(v))
        printf("\n    %s: no number at %s.%s%s%s", path, obj, sub ? sub : "", sub ? "." : "",
               key);
    json_decref(doc);
    return v;
}
