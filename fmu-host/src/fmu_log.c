/*
 * The FMU's own messages, reported once with a count when they repeat.
 *
 * An FMU in trouble often says the same thing on every call: a violated assertion each
 * step, "illegal call sequence" on every call after an error, one failing derivative per
 * solver stage. Each unit's logger callback goes through a filter (rtc__fmu_repeat) that
 * prints a message once and counts the identical ones that follow; the count is printed
 * as "<unit>: last message repeated N more time(s)" before the next different message, at
 * terminate and at free, so nothing is lost but the copies.
 *
 * DESIGN: the filter's log function never runs on a real-time thread — there rtc_log()
 * only queues the format and its arguments, and the rtlog drainer (a monitor thread)
 * formats the line and calls the filter. Its state is therefore guarded by a plain mutex:
 * the drainer and the thread that terminates or frees the unit may both reach it.
 */
#include "fmu_priv.h"

#include <stdio.h>
#include <string.h>

/* The pending count, as one line at the repeated message's level (mu held). */
static void flush_locked(rtc__fmu_repeat *r)
{
    if (r->repeats && r->inner && rtc_log_enabled(r->inner, r->level))
        rtc_log_write(r->inner, r->level, "%s: last message repeated %lu more time(s)", r->unit,
                      r->repeats);
    r->repeats = 0;
}

static void repeat_log(void *user, int level, const char *msg)
{
    rtc__fmu_repeat *r = user;
    pthread_mutex_lock(&r->mu);
    if (r->has_last && level == r->level && !strcmp(msg, r->last)) {
        r->repeats++;
        pthread_mutex_unlock(&r->mu);
        return;
    }
    flush_locked(r);
    snprintf(r->last, sizeof r->last, "%s", msg);
    r->has_last = true;
    r->level = level;
    r->inner->log(r->inner->user, level, msg);
    pthread_mutex_unlock(&r->mu);
}

const rtc_logger *rtc__fmu_repeat_init(rtc__fmu_repeat *r, const char *unit,
                                       const rtc_logger *inner)
{
    memset(r, 0, sizeof *r);
    r->unit = unit;
    r->inner = inner;
    if (!inner || !inner->log)
        return inner;
    pthread_mutex_init(&r->mu, NULL);
    r->ready = true;
    r->lg = (rtc_logger){.log = repeat_log, .user = r, .max_level = inner->max_level};
    return &r->lg;
}

void rtc__fmu_repeat_flush(rtc__fmu_repeat *r)
{
    if (!r->ready)
        return;
    pthread_mutex_lock(&r->mu);
    flush_locked(r);
    r->has_last = false; /* a message after this point is news again */
    pthread_mutex_unlock(&r->mu);
}

void rtc__fmu_repeat_clear(rtc__fmu_repeat *r)
{
    if (!r->ready)
        return;
    rtc__fmu_repeat_flush(r);
    pthread_mutex_destroy(&r->mu);
    r->ready = false;
}
