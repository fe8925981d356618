/*
 * events.log of a session (rtcosim/session.h): one line per event, written by non-RT
 * threads — the control thread (operator commands, marks), the session writer (applied
 * commands, I/O link events), the executive's monitor (rtlog lines: overruns, pauses),
 * and the units' loggers (FMU messages, driver messages).
 *
 * DESIGN: several producers, one file: a PRIO_INHERIT mutex around the formatted write
 * (STYLE rule 19 allows a lock off the RT thread). The step index comes from an atomic the
 * RT thread stores every step, so a line says when in the run it happened without asking
 * the RT thread anything. A line raised on a real-time thread during the run (an FMU
 * logging inside doStep, an engine error) never gets here on that thread: rtc_log() there
 * queues it in the executive's rtlog (rtcosim/rtlog.h) and the monitor thread calls
 * source_log() — so the mutex and the stdio below stay off the RT thread.
 */
#include "session_priv.h"

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SOURCES 8

typedef struct source {
    rtc_logger lg;
    rtc_events *ev;
    const char *name;
} source;

struct rtc_events {
    FILE *f;
    pthread_mutex_t mu;
    const rtc_logger *tee;
    _Atomic int64_t k;       /* step index, -1 before the run */
    _Atomic int64_t start_ns, tick_ns;
    _Atomic uint64_t lines;
    source src[MAX_SOURCES];
    size_t n_src;
};

void rtc_session_wall_text(char *buf, size_t cap)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, cap, "%s.%03ldZ", base, ts.tv_nsec / 1000000);
}

static void write_line(rtc_events *ev, int64_t k, const char *source_name, const char *text)
{
    char wall[48], t[40] = "-", ks[24] = "-";
    rtc_session_wall_text(wall, sizeof wall);
    int64_t tick = atomic_load_explicit(&ev->tick_ns, memory_order_relaxed);
    if (k >= 0) {
        snprintf(ks, sizeof ks, "%lld", (long long)k);
        rtc_time_format_s(atomic_load_explicit(&ev->start_ns, memory_order_relaxed) + k * tick,
                          t, sizeof t);
    }
    pthread_mutex_lock(&ev->mu);
    /* one line per event: newlines inside a message would split it */
    fprintf(ev->f, "%s %s %s %s ", ks, t, wall, source_name);
    for (const char *p = text; *p; p++)
        fputc(*p == '\n' || *p == '\r' ? ' ' : *p, ev->f);
    fputc('\n', ev->f);
    fflush(ev->f); /* readers (tests, tail -f) see each event as it happens */
    pthread_mutex_unlock(&ev->mu);
    atomic_fetch_add_explicit(&ev->lines, 1, memory_order_relaxed);
}

static void source_log(void *user, int level, const char *msg)
{
    source *s = user;
    rtc_events *ev = s->ev;
    if (ev->tee && rtc_log_enabled(ev->tee, level))
        ev->tee->log(ev->tee->user, level, msg);
    char line[2048];
    const char *text = msg;
    if (level <= RTC_LOG_WARNING) { /* keep the severity visible in the log */
        snprintf(line, sizeof line, "%s: %s", rtc_log_level_name(level), msg);
        text = line;
    }
    write_line(ev, atomic_load_explicit(&ev->k, memory_order_relaxed), s->name, text);
}

int rtc_events_open(const char *path, const rtc_logger *tee, rtc_events **out)
{
    rtc_events *ev = calloc(1, sizeof *ev);
    if (!ev)
        return RTC_ENOMEM;
    ev->f = fopen(path, "w");
    if (!ev->f) {
        rtc_log(tee, RTC_LOG_ERROR, "%s: cannot create: %s", path, strerror(errno));
        free(ev);
        return RTC_EIO;
    }
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&ev->mu, &a);
    pthread_mutexattr_destroy(&a);
    ev->tee = tee;
    atomic_init(&ev->k, -1);
    atomic_init(&ev->tick_ns, 1);
    fprintf(ev->f, "# k t_s wall_utc source text\n");
    fflush(ev->f);
    *out = ev;
    return RTC_OK;
}

void rtc_events_close(rtc_events *ev)
{
    if (!ev)
        return;
    fclose(ev->f);
    pthread_mutex_destroy(&ev->mu);
    free(ev);
}

const rtc_logger *rtc_events_logger(rtc_events *ev, const char *source_name)
{
    for (size_t i = 0; i < ev->n_src; i++)
        if (!strcmp(ev->src[i].name, source_name))
            return &ev->src[i].lg;
    if (ev->n_src == MAX_SOURCES)
        return NULL;
    source *s = &ev->src[ev->n_src++];
    *s = (source){.lg = {.log = source_log, .user = s, .max_level = RTC_LOG_INFO}, .ev = ev,
                  .name = source_name};
    return &s->lg;
}

void rtc__events_add_at(rtc_events *ev, int64_t k, const char *source_name, const char *fmt,
                        ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    write_line(ev, k, source_name, text);
}

void rtc_events_add(rtc_events *ev, const char *source_name, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    write_line(ev, atomic_load_explicit(&ev->k, memory_order_relaxed), source_name, text);
}

void rtc_events_set_step(rtc_events *ev, int64_t k)
{
    /* relaxed: a log line only needs a recent step index, not ordering with anything */
    atomic_store_explicit(&ev->k, k, memory_order_relaxed);
}

void rtc_events_set_clock(rtc_events *ev, int64_t start_ns, int64_t tick_ns)
{
    atomic_store_explicit(&ev->start_ns, start_ns, memory_order_relaxed);
    atomic_store_explicit(&ev->tick_ns, tick_ns > 0 ? tick_ns : 1, memory_order_relaxed);
}

uint64_t rtc_events_count(const rtc_events *ev)
{
    return ev ? atomic_load_explicit(&ev->lines, memory_order_relaxed) : 0;
}
