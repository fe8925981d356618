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
 * Each line is one record of a record stream (rtcosim/ofile.h) handed to the kernel at
 * once in one write(2): a kill never leaves half a line, and the first failed write is
 * kept (errno) for the session writer, which reports it and stops the run.
 *
 * Lines a network peer causes (operator commands, marks and clamps from the control
 * surfaces, the dead-man a surface's silence fires, set-points from I/O peers) pass one
 * limiter (rtcosim/ratelimit.h, under the
 * lock: every producer thread takes from it): the first PEER_BURST of each second are
 * written, the rest are counted, and the session writer writes one line a second with
 * the count. A flood of commands costs a few lines a second whatever its rate; inputs.bin
 * still holds every command and sample, and summary.json the count (events_suppressed).
 */
#include "session_priv.h"

#include "rtcosim/ofile.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SOURCES 8
#define TAIL_LINE 320 /* bytes kept of each line for the panel's feed */
#define PEER_BURST 20 /* lines caused by peers written one by one in each second */

typedef struct source {
    rtc_logger lg;
    rtc_events *ev;
    const char *name;
} source;

struct rtc_events {
    rtc_ofile *f;
    pthread_mutex_t mu;
    const rtc_logger *tee;
    _Atomic int64_t k;       /* step index, -1 before the run */
    _Atomic int64_t start_ns, tick_ns;
    _Atomic uint64_t lines;
    rtc_ratelimit peer;           /* lines caused by peers (under mu) */
    _Atomic uint64_t suppressed;  /* of them, only counted */
    source src[MAX_SOURCES];
    size_t n_src;
    /* the newest lines, for rtc_events_tail() (under mu): line seq sits at seq % TAIL */
    uint64_t tail_seq;
    char tail[RTC_EVENTS_TAIL][TAIL_LINE];
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
    char line[2300];
    int n = snprintf(line, sizeof line, "%s %s %s %s ", ks, t, wall, source_name);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof line - 2 ? (size_t)n : sizeof line - 2;
    /* one line per event: newlines inside a message would split it */
    for (const char *p = text; *p && len < sizeof line - 1; p++)
        line[len++] = *p == '\n' || *p == '\r' ? ' ' : *p;
    line[len++] = '\n';
    pthread_mutex_lock(&ev->mu);
    size_t keep = len - 1 < TAIL_LINE - 1 ? len - 1 : TAIL_LINE - 1;
    char *t_line = ev->tail[++ev->tail_seq % RTC_EVENTS_TAIL];
    memcpy(t_line, line, keep);
    t_line[keep] = '\0';
    rtc_ofile_append(ev->f, line, len);
    rtc_ofile_end_record(ev->f);
    rtc_ofile_flush(ev->f); /* readers (tests, tail -f) see each event as it happens */
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
    int rc = rtc_ofile_open(path, &ev->f);
    if (rc != RTC_OK) {
        rtc_log(tee, RTC_LOG_ERROR, "%s: cannot create: %s", path, rtc_strerror(rc));
        free(ev);
        return rc;
    }
    rtc_ofile_set_delimiter(ev->f, '\n');
    rtc_ofile_set_retry(ev->f, true); /* later events are worth a try: lines are whole */
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&ev->mu, &a);
    pthread_mutexattr_destroy(&a);
    ev->tee = tee;
    atomic_init(&ev->k, -1);
    atomic_init(&ev->tick_ns, 1);
    ev->peer = (rtc_ratelimit){.window_ns = 1000000000, .burst = PEER_BURST};
    static const char header[] = "# k t_s wall_utc source text\n";
    rtc_ofile_append(ev->f, header, sizeof header - 1);
    rtc_ofile_end_record(ev->f);
    rtc_ofile_flush(ev->f);
    *out = ev;
    return RTC_OK;
}

void rtc_events_close(rtc_events *ev)
{
    if (!ev)
        return;
    int e = rtc_ofile_errno(ev->f); /* reported by the session writer when it ran */
    char path[4096];
    snprintf(path, sizeof path, "%s", rtc_ofile_path(ev->f));
    if (rtc_ofile_close(ev->f) != RTC_OK && !e) /* the final fsync or close */
        rtc_log(ev->tee, RTC_LOG_ERROR, "%s: write failed: %s", path, strerror(errno));
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

void rtc__events_peer_at(rtc_events *ev, int64_t k, const char *source_name, const char *fmt,
                         ...)
{
    pthread_mutex_lock(&ev->mu);
    bool take = rtc_ratelimit_take(&ev->peer, rtc_time_now_ns());
    pthread_mutex_unlock(&ev->mu);
    if (!take) {
        atomic_fetch_add_explicit(&ev->suppressed, 1, memory_order_relaxed);
        return;
    }
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    write_line(ev, k == RTC__EVENTS_NOW ? atomic_load_explicit(&ev->k, memory_order_relaxed) : k,
               source_name, text);
}

void rtc__events_peer_due(rtc_events *ev, bool force)
{
    pthread_mutex_lock(&ev->mu);
    uint64_t n = rtc_ratelimit_due(&ev->peer, rtc_time_now_ns(), force);
    pthread_mutex_unlock(&ev->mu);
    if (n)
        rtc_events_add(ev, "session", "%llu more line(s) caused by peers (operator commands "
                       "and marks, set-points from I/O peers) in the last %.0f s, not logged "
                       "one by one (inputs.bin holds every command and sample)",
                       (unsigned long long)n, (double)ev->peer.window_ns / 1e9);
}

uint64_t rtc_events_suppressed(const rtc_events *ev)
{
    return ev ? atomic_load_explicit(&ev->suppressed, memory_order_relaxed) : 0;
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

int rtc_events_write_error(rtc_events *ev, char *path, size_t cap)
{
    pthread_mutex_lock(&ev->mu);
    int e = rtc_ofile_errno(ev->f);
    if (e && path)
        snprintf(path, cap, "%s", rtc_ofile_path(ev->f));
    pthread_mutex_unlock(&ev->mu);
    return e;
}

const rtc_logger *rtc__events_tee(const rtc_events *ev)
{
    return ev->tee;
}

uint64_t rtc_events_count(const rtc_events *ev)
{
    return ev ? atomic_load_explicit(&ev->lines, memory_order_relaxed) : 0;
}

uint64_t rtc_events_tail(rtc_events *ev, uint64_t after,
                         void (*fn)(void *user, uint64_t seq, const char *line), void *user)
{
    pthread_mutex_lock(&ev->mu);
    uint64_t last = ev->tail_seq;
    uint64_t first = last > RTC_EVENTS_TAIL ? last - RTC_EVENTS_TAIL + 1 : 1;
    for (uint64_t q = after + 1 > first ? after + 1 : first; q <= last; q++)
        fn(user, q, ev->tail[q % RTC_EVENTS_TAIL]);
    pthread_mutex_unlock(&ev->mu);
    return last;
}
