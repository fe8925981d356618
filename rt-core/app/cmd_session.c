/*
 * The operator session of `rtcosim run SYSTEM --realtime` (rtcosim/session.h): arming it
 * around the executive, the OSC control surface (rtcosim/osc_control.h), the browser
 * panel (rtcosim/panel.h), and the session's counters
 * for summary.json. cmd_system.c opens events.log before loading (so the units' log lines
 * reach it); cmd_rt.c calls these three around rtc_exec_run().
 */
#include "cli.h"
#include "rt_cli.h"

#include "rtcosim/plan.h"

#include "rtcosim/osc_control.h"
#include "rtcosim/panel.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static rtc_osc_control *control; /* one run per process */
static rtc_panel *panel;
static rtc_dcp_slave *dcp;
static const char *session_dir;

/* The secret of --control-token FILE: the file's bytes without one trailing newline. A
 * file other users can read is refused — the token would guard nothing — (RTC_EINVAL, as a
 * file that cannot be read), and so is an empty, short (guessable), oversized or binary
 * token (RTC_EPARSE: the option's value breaks the rule of tokens). The buffer is wiped by
 * the caller after use. */
static int read_token(const char *option, const char *path, char *tok, size_t cap,
                      size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    const char *why = NULL;
    ssize_t n = -1;
    if (fd < 0 || fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    else if (st.st_mode & (S_IROTH | S_IWOTH))
        why = "readable or writable by every user (chmod 600 it)";
    else if ((n = read(fd, tok, cap)) < 0)
        why = strerror(errno);
    if (fd >= 0)
        close(fd);
    size_t k = n > 0 ? (size_t)n : 0;
    while (!why && k && (tok[k - 1] == '\n' || tok[k - 1] == '\r'))
        k--;
    bool rule = false; /* the file is usable; the token in it is not */
    if (!why && ((size_t)n == cap || k == 0 || memchr(tok, '\0', k)))
        why = (size_t)n == cap ? "longer than 255 bytes" : k == 0 ? "empty" : "holds a NUL byte",
        rule = true;
    char short_why[160];
    if (!why && k < RTC_PANEL_MIN_TOKEN) {
        snprintf(short_why, sizeof short_why, "%zu byte(s): a token needs at least %d (e.g. "
                 "head -c 24 /dev/urandom | base64 > FILE)", k, RTC_PANEL_MIN_TOKEN);
        why = short_why;
        rule = true;
    }
    if (why) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "%s %s: %s", option, path, why);
        return rule ? RTC_EPARSE : RTC_EINVAL;
    }
    *len = k;
    return RTC_OK;
}

int rtc_cli_session_check(const rtc_cli_rt *rt)
{
    char tok[RTC_PANEL_MAX_TOKEN > RTC_OSC_CONTROL_MAX_TOKEN ? RTC_PANEL_MAX_TOKEN
                                                             : RTC_OSC_CONTROL_MAX_TOKEN];
    size_t len;
    int rc = rt->control_token ? read_token("--control-token", rt->control_token, tok,
                                            RTC_OSC_CONTROL_MAX_TOKEN, &len)
                               : RTC_OK;
    if (rc == RTC_OK && rt->http_token)
        rc = read_token("--http-token", rt->http_token, tok, RTC_PANEL_MAX_TOKEN, &len);
    explicit_bzero(tok, sizeof tok);
    return rc == RTC_OK ? RTC_EXIT_OK : rc == RTC_EPARSE ? RTC_EXIT_USAGE : RTC_EXIT_ERROR;
}

void rtc_cli_rt_clear(rtc_cli_rt *rt)
{
    free(rt->expose);
    rt->expose = NULL;
    rt->n_expose = 0;
    rtc_plan_free(rt->plan);
    rt->plan = NULL;
    free(rt->unit_measured);
    rt->unit_measured = NULL;
    rt->n_unit_measured = 0;
}

int rtc_cli_session_start(rtc_system *sys, const char *dir, long decimation, rtc_cli_rt *rt,
                          rtc_exec_options *eo, rtc_session **out)
{
    *out = NULL;
    session_dir = dir;
    if (!rt->events)
        return RTC_OK;
    rtc_session_options so = {.dir = dir, .system_path = rt->system_path,
                              .expose = rt->expose, .n_expose = rt->n_expose,
                              .deadman_ns = (int64_t)rt->deadman_ms * 1000000,
                              .record = rt->record, .sys_options = rt->sys_options,
                              .record_names = rt->record_names,
                              .n_record_names = rt->n_record_names, .decimation = decimation,
                              .node = rt->node, .places = rt->places,
                              .n_places = rt->n_places,
                              .caps = rt->control_caps, .caps_given = rt->control_caps_given,
                              .continue_on_write_error = rt->write_continue};
    int rc = rtc_session_new(sys, &so, rt->events, out);
    /* a refusal (bad expose entry: RTC_EINVAL, a file it cannot write: RTC_EIO) was logged
     * with its reason, on stderr too; a lack of memory or threads (-errno) is not */
    if (rc != RTC_OK && rc != RTC_EINVAL && rc != RTC_EIO) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "%s: cannot start the session: %s",
                rt->system_path, rtc_strerror(rc));
    }
    if (rc != RTC_OK)
        return rc;
    eo->hook = rtc_session_hook;
    eo->hook_user = *out;
    const rtc_logger *lg = rtc_events_logger(rt->events, "rt"); /* rtlog lines, too */
    if (lg)
        eo->lg = lg;
    return RTC_OK;
}

/* The session as a DCP slave (--dcp-port, rtcosim dcp-slave): its .dcpx written before
 * the run, so a master may read it as soon as the port is printed. */
static int start_dcp(rtc_session *s, rtc_cli_rt *rt)
{
    char path[4200];
    if (rt->dcpx)
        snprintf(path, sizeof path, "%s", rt->dcpx);
    else
        snprintf(path, sizeof path, "%s/slave.dcpx", session_dir);
    rtc_dcp_slave_options o = {.host = rt->dcp_host, .port = (int)rt->dcp_port,
                               .modes = rt->dcp_modes,
                               .heartbeat_ns = (int64_t)rt->dcp_heartbeat_ms * 1000000,
                               .seed = rt->system_path, .lg = &rtc_cli_log};
    int rc = rtc_dcp_slave_start(s, &o, &dcp);
    if (rc == RTC_OK)
        rc = rtc_dcp_slave_write_dcpx(dcp, path);
    if (rc != RTC_OK)
        return rc;
    const char *host = rt->dcp_host ? rt->dcp_host : "127.0.0.1";
    rtc_events_add(rt->events, "session", "DCP slave on UDP %s:%d, description %s", host,
                   rtc_dcp_slave_port(dcp), path);
    fprintf(stderr, "rtcosim: DCP slave on %s:%d, description %s\n", host,
            rtc_dcp_slave_port(dcp), path);
    return RTC_OK;
}

/* The browser panel: its own thread, the same session command path as OSC. */
static int start_panel(rtc_session *s, rtc_cli_rt *rt)
{
    char tok[RTC_PANEL_MAX_TOKEN];
    rtc_panel_options po = {.port = (int)rt->http_port, .address = rt->http_address,
                            .lg = &rtc_cli_log, .token = tok};
    int rc = rt->http_token ? read_token("--http-token", rt->http_token, tok, sizeof tok,
                                         &po.token_len)
                            : RTC_OK;
    if (rc == RTC_OK)
        rc = rtc_panel_start(s, &po, &panel);
    explicit_bzero(tok, sizeof tok);
    if (rc != RTC_OK)
        return rc;
    const char *addr = rt->http_address ? rt->http_address : "127.0.0.1";
    rtc_events_add(rt->events, "session", "operator panel: http://%s:%d/, %s", addr,
                   rtc_panel_port(panel), po.token_len ? "token required" : "no token");
    fprintf(stderr, "rtcosim: operator panel on http://%s:%d/\n", addr, rtc_panel_port(panel));
    return RTC_OK;
}

int rtc_cli_session_attach(rtc_session *s, rtc_exec *ex, rtc_cli_rt *rt)
{
    if (!s)
        return RTC_OK;
    rtc_session_attach(s, ex);
    int rc = rt->http_port >= 0 ? start_panel(s, rt) : RTC_OK;
    if (rc == RTC_OK && rt->dcp_port >= 0)
        rc = start_dcp(s, rt);
    if (rc != RTC_OK || rt->control_port < 0)
        return rc;
    char tok[RTC_OSC_CONTROL_MAX_TOKEN];
    rtc_osc_control_options co = {.port = (int)rt->control_port,
                                  .allow_remote = rt->control_allow, .lg = &rtc_cli_log};
    rc = rt->control_token ? read_token("--control-token", rt->control_token, tok, sizeof tok,
                                        &co.token_len)
                           : RTC_OK;
    co.token = tok;
    if (rc == RTC_OK)
        rc = rtc_osc_control_start(s, &co, &control);
    explicit_bzero(tok, sizeof tok);
    if (rc != RTC_OK)
        return rc;
    int port = rtc_osc_control_port(control);
    char caps[96];
    rtc_session_caps_text(rtc_session_caps(s), caps, sizeof caps);
    rtc_events_add(rt->events, "session", "control surface: OSC on UDP %s:%d, %s, "
                   "allowed: %s", rt->control_allow ? "0.0.0.0" : "127.0.0.1", port,
                   co.token_len ? "token required" : "no token", caps);
    fprintf(stderr, "rtcosim: control surface listening on %s:%d\n",
            rt->control_allow ? "0.0.0.0" : "127.0.0.1", port);
    return RTC_OK;
}

/* A run that ended by a failure: the DCP master is told ERROR, not STOPPED. */
static bool failed(const rtc_cli_end *e)
{
    static const char *const ok[] = {"end", "signal", "request"};
    for (size_t i = 0; e->cause && i < sizeof ok / sizeof ok[0]; i++)
        if (!strcmp(e->cause, ok[i]))
            return false;
    return e->cause != NULL;
}

void rtc_cli_session_end(rtc_session *s, rtc_system *sys, rtc_cli_rt *rt)
{
    if (dcp) { /* STOPPED said, the master's deregistration awaited (bounded) */
        int64_t linger = rt->dcp_heartbeat_ms > 0 ? rt->dcp_heartbeat_ms * 1000000LL
                                                  : 5000000000LL;
        rtc_dcp_slave_stop(dcp, failed(&rt->end),
                           rt->end.reason[0] ? rt->end.reason : rt->end.cause, linger,
                           &rt->dcp);
        rt->has_dcp = true;
        dcp = NULL;
    }
    if (control) { /* for summary.json ("surfaces") */
        rt->has_osc = true;
        rtc_osc_control_stats_get(control, &rt->osc);
    }
    rtc_osc_control_stop(control);
    control = NULL;
    if (panel) { /* what the panel served, for the record (a flood shows here too) */
        rt->has_panel = true;
        rtc_panel_stats_get(panel, &rt->panel);
        rtc_events_add(rt->events, "session", "operator panel: %llu request(s) answered, "
                       "%llu refused", (unsigned long long)rt->panel.requests,
                       (unsigned long long)rt->panel.refused);
    }
    rtc_panel_stop(panel);
    panel = NULL;
    if (!s)
        return;
    rt->has_session = true;
    rtc_session_close(s, rtc_system_tick_index(sys), &rt->session);
    rt->session.events = rtc_events_count(rt->events);
    if (rt->session.inputs_dropped || rt->session.commands_dropped)
        rtc_log(&rtc_cli_log, RTC_LOG_WARNING, "session: %llu input record(s) and %llu "
                "command(s) dropped: a replay of this session cannot be exact",
                (unsigned long long)rt->session.inputs_dropped,
                (unsigned long long)rt->session.commands_dropped);
}
