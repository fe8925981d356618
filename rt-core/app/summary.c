/*
 * summary.json's account of how a run ended, the exit-status table (summary.h), the
 * capture of the last error line for its reason, the process's signal dispositions, and
 * the stop signals of the runs that have no executive (`run FMU`, a system run without
 * --realtime).
 *
 * summary.json is a libjansson document (summary.h says how to add a field) written to a
 * temporary name, synced and renamed over summary.json (rtcosim/ofile.h): an older
 * summary is replaced whole or not at all, never left stale beside a new run or cut.
 */
#include "cli.h"
#include "summary.h"

#include "rtcosim/exec.h"
#include "rtcosim/fmu.h"
#include "rtcosim/status.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NONFINITE_LISTED 100

const char *rtc_cli_end_status(const rtc_cli_end *e)
{
    if (!strcmp(e->cause, "end"))
        return e->degraded ? "degraded" : e->nonfinite ? "completed-nonfinite" : "completed";
    if (!strcmp(e->cause, "signal") || !strcmp(e->cause, "request") ||
        !strcmp(e->cause, "node"))
        return "stopped";
    return "failed";
}

int rtc_cli_end_exit(const rtc_cli_end *e)
{
    if (!strcmp(e->cause, "end") && e->degraded)
        return RTC_EXIT_DEGRADED;
    if (!strcmp(e->cause, "end") || !strcmp(e->cause, "request"))
        return RTC_EXIT_OK;
    if (!strcmp(e->cause, "link"))
        return RTC_EXIT_LINK;
    if (!strcmp(e->cause, "signal"))
        return 128 + e->signo;
    if (!strcmp(e->cause, "write"))
        return RTC_EXIT_WRITE;
    if (!strcmp(e->cause, "infeasible"))
        return RTC_EXIT_INFEASIBLE;
    if (!strcmp(e->cause, "node"))
        return RTC_EXIT_NODE;
    if (!strcmp(e->cause, "link"))
        return RTC_EXIT_LINK;
    return !strcmp(e->cause, "watchdog") ? RTC_EXEC_WATCHDOG_EXIT : RTC_EXIT_ERROR;
}

bool rtc_cli_summary_write(json_t *doc, int built, const char *path)
{
    int rc = built ? RTC_ENOMEM : rtc__json_write(doc, path);
    json_decref(doc);
    if (rc == RTC_OK)
        return true;
    rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "%s: write failed: %s", path, rtc_strerror(rc));
    return false;
}

void rtc_cli_summary_failed(rtc_cli_end *e, const char *path)
{
    if (rtc_cli_end_exit(e) != RTC_EXIT_OK)
        return; /* a failure or a stop says more than the missing summary */
    e->cause = "write";
    if (*rtc_cli_last_error()) /* "PATH: write failed: reason", from rtc_cli_summary_write */
        snprintf(e->reason, sizeof e->reason, "%s", rtc_cli_last_error());
    else
        snprintf(e->reason, sizeof e->reason, "%s: could not be written", path);
}

/* One entry of "nonfinite": the value's name, when, and which non-finite it was (a
 * string: JSON has no NaN or infinity). */
static json_t *nonfinite_json(const rtc_nonfinite_event *ev, rtc_cli_name_fn name,
                              const void *name_user)
{
    char v[300];
    name(name_user, ev->id, v, sizeof v);
    json_t *o = json_object();
    int bad = !o;
    bad |= json_object_set_new(o, "variable", rtc__json_str(v));
    bad |= json_object_set_new(o, "t_s", rtc__json_real((double)ev->t_ns / 1e9));
    bad |= json_object_set_new(o, "value", json_string(isnan(ev->value) ? "nan"
                                                      : ev->value > 0 ? "inf" : "-inf"));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int rtc_cli_summary_end(json_t *obj, const rtc_cli_end *e, const rtc_nonfinite *nf,
                        rtc_cli_name_fn name, const void *name_user)
{
    int bad = 0;
    bad |= json_object_set_new(obj, "status", json_string(rtc_cli_end_status(e)));
    bad |= json_object_set_new(obj, "cause", json_string(e->cause));
    bad |= json_object_set_new(obj, "reason", rtc__json_str(e->reason));
    bad |= json_object_set_new(obj, "exit_code", json_integer(rtc_cli_end_exit(e)));
    bad |= json_object_set_new(obj, "last_tick", json_integer(e->last_tick));
    bad |= json_object_set_new(obj, "last_time_s", rtc__json_real((double)e->last_time_ns / 1e9));
    if (e->hung_unit)
        bad |= json_object_set_new(obj, "hung_unit", rtc__json_str(e->hung_unit));
    if (e->link)
        bad |= json_object_set_new(obj, "link", rtc__json_str(e->link));
    size_t n = rtc_nonfinite_count(nf);
    bad |= json_object_set_new(obj, "nonfinite_values", rtc__json_uint(n));
    json_t *list = json_array();
    for (size_t i = 0; list && i < n && i < NONFINITE_LISTED; i++) {
        rtc_nonfinite_event ev = rtc_nonfinite_get(nf, i);
        bad |= json_array_append_new(list, nonfinite_json(&ev, name, name_user));
    }
    bad |= json_object_set_new(obj, "nonfinite", list);
    return bad;
}

/* ---- the last error line ---- */

static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_error[512];
static rtc_logger capture_inner;

static void capture_log(void *user, int level, const char *msg)
{
    (void)user;
    if (level <= RTC_LOG_ERROR) { /* fast runs and load only: no RT thread logs here */
        pthread_mutex_lock(&err_lock);
        snprintf(last_error, sizeof last_error, "%s", msg);
        pthread_mutex_unlock(&err_lock);
    }
    /* the wrapper's max_level (raised by -v) already filtered: forward as is */
    capture_inner.log(capture_inner.user, level, msg);
}

const char *rtc_cli_last_error(void)
{
    static char copy[512];
    pthread_mutex_lock(&err_lock);
    memcpy(copy, last_error, sizeof copy);
    pthread_mutex_unlock(&err_lock);
    return copy;
}

rtc_logger rtc_cli_capture(const rtc_logger *inner)
{
    capture_inner = *inner;
    /* max_level follows the inner one (-v raises it): the wrapper sees every error */
    return (rtc_logger){.log = capture_log, .user = NULL, .max_level = inner->max_level};
}

/* ---- signals ---- */

/* SIGHUP was ignored when the process started (nohup, a supervisor): it stays ignored */
static bool hup_ignored;

void rtc_cli_process_signals(void)
{
    struct sigaction old;
    hup_ignored = sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
    /* Their default action kills the process between two instructions: no message, no
     * safe values, half a row, no summary. Ignored, the write that caused them fails with
     * EPIPE / EFBIG instead, and every writer reports that and takes the stop path like a
     * full disk. (Sockets get EPIPE too; no child is ever exec'd to inherit this.) */
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    sigemptyset(&ign.sa_mask);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, NULL);
    sigaction(SIGXFSZ, &ign, NULL);
}

const char *rtc_cli_signal_name(int signo)
{
    switch (signo) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
    }
}

void rtc_cli_stop_handler(void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = handler ? handler : SIG_DFL;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (!hup_ignored)
        sigaction(SIGHUP, &sa, NULL);
}

static atomic_int stop_signo;

static void on_stop_signal(int signo)
{
    int none = 0;
    if (!atomic_compare_exchange_strong(&stop_signo, &none, signo)) {
        /* a second signal while stopping: the user insists; end at once */
        signal(signo, SIG_DFL);
        raise(signo);
    }
}

void rtc_cli_stop_signals(bool on)
{
    rtc_cli_stop_handler(on ? on_stop_signal : NULL);
}

int rtc_cli_stop_signal(void)
{
    return atomic_load(&stop_signo);
}

int rtc_cli_me_events_json(json_t *obj, const rtc_unit *unit)
{
    rtc_me_events ev;
    if (!unit || !rtc_fmu_unit_events(unit, &ev))
        return 0;
    json_t *o = json_object();
    int bad = !o;
    bad |= json_object_set_new(o, "time", rtc__json_uint(ev.time_events));
    bad |= json_object_set_new(o, "state", rtc__json_uint(ev.state_events));
    bad |= json_object_set_new(o, "step", rtc__json_uint(ev.step_events));
    bad |= json_object_set_new(o, "input", rtc__json_uint(ev.input_events));
    bad |= json_object_set_new(o, "iterations", rtc__json_uint(ev.iterations));
    bad |= json_object_set_new(o, "solver_steps", rtc__json_uint(ev.substeps));
    bad |= json_object_set_new(o, "terminated", json_boolean(ev.terminated));
    return bad | json_object_set_new(obj, "me_events", o);
}
