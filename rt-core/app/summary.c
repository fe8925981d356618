/*
 * summary.json's account of how a run ended, the exit-status table (summary.h), the
 * capture of the last error line for its reason, and the stop signals of the runs that
 * have no executive (`run FMU`, a system run without --realtime).
 *
 * The summary is written to "summary.json.tmp", synced and renamed over summary.json: an
 * older summary is replaced whole or not at all, never left stale beside a new run or cut.
 * (The lead merges this small tmp+rename with the recorder helper's when both land.)
 */
#include "cli.h"
#include "summary.h"

#include "rtcosim/exec.h"
#include "rtcosim/ofile.h"
#include "rtcosim/status.h"

#include <errno.h>
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
        return e->nonfinite ? "completed-nonfinite" : "completed";
    if (!strcmp(e->cause, "signal") || !strcmp(e->cause, "request"))
        return "stopped";
    return "failed";
}

int rtc_cli_end_exit(const rtc_cli_end *e)
{
    if (!strcmp(e->cause, "end") || !strcmp(e->cause, "request"))
        return RTC_EXIT_OK;
    if (!strcmp(e->cause, "signal"))
        return 128 + e->signo;
    if (!strcmp(e->cause, "write"))
        return RTC_EXIT_WRITE;
    return !strcmp(e->cause, "watchdog") ? RTC_EXEC_WATCHDOG_EXIT : RTC_EXIT_ERROR;
}

FILE *rtc_cli_summary_open(const char *path, char *tmp, size_t cap)
{
    FILE *f = rtc_ofile_replace_begin(path, tmp, cap);
    if (!f)
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "%s: cannot create: %s", path, strerror(errno));
    return f;
}

bool rtc_cli_summary_commit(FILE *f, const char *tmp, const char *path)
{
    if (rtc_ofile_replace_commit(f, tmp, path) == RTC_OK)
        return true;
    rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "%s: write failed: %s", path, strerror(errno));
    return false;
}

void rtc_cli_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

void rtc_cli_summary_end(FILE *f, const rtc_cli_end *e, const rtc_nonfinite *nf,
                         rtc_cli_name_fn name, const void *name_user)
{
    fprintf(f, "  \"status\": \"%s\",\n  \"cause\": \"%s\",\n  \"reason\": ",
            rtc_cli_end_status(e), e->cause);
    rtc_cli_json_str(f, e->reason);
    fprintf(f, ",\n  \"exit_code\": %d,\n  \"last_tick\": %lld,\n  \"last_time_s\": %.9g,\n",
            rtc_cli_end_exit(e), (long long)e->last_tick, (double)e->last_time_ns / 1e9);
    if (e->hung_unit) {
        fprintf(f, "  \"hung_unit\": ");
        rtc_cli_json_str(f, e->hung_unit);
        fprintf(f, ",\n");
    }
    size_t n = rtc_nonfinite_count(nf);
    fprintf(f, "  \"nonfinite_values\": %zu,\n  \"nonfinite\": [", n);
    for (size_t i = 0; i < n && i < NONFINITE_LISTED; i++) {
        rtc_nonfinite_event ev = rtc_nonfinite_get(nf, i);
        char v[300];
        name(name_user, ev.id, v, sizeof v);
        fprintf(f, "%s{\"variable\": ", i ? ", " : "");
        rtc_cli_json_str(f, v);
        fprintf(f, ", \"t_s\": %.9g, \"value\": \"%s\"}", (double)ev.t_ns / 1e9,
                isnan(ev.value) ? "nan" : ev.value > 0 ? "inf" : "-inf");
    }
    fprintf(f, "],\n");
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

/* ---- stop signals of the runs without an executive ---- */

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
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on ? on_stop_signal : SIG_DFL;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int rtc_cli_stop_signal(void)
{
    return atomic_load(&stop_signo);
}
