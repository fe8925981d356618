/*
 * What a run tells the person who started it, on stderr:
 *   - a progress bar with rate and ETA for a fast run that lasts longer than a second,
 *     only on a terminal and never with -q (a CI log or a wrapper script gets no '\r'
 *     noise); the real-time status line is the executive's (rtcosim/exec.h);
 *   - one final line, always, once the run has started stepping: how it ended, the rows
 *     and where the results are.
 * The bar is drawn from the stepping loop itself (fast runs have no RT constraint); the
 * clock is read every 256 steps so a cheap step stays cheap.
 */
#include "cli.h"
#include "summary.h"

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

bool rtc_cli_quiet;

/* How long a fast run goes before the bar appears, and how often it is redrawn. */
#define PROGRESS_AFTER_S 1.0
#define PROGRESS_EVERY_S 0.2

static double now_s(void)
{
    return rtc_time_to_s(rtc_time_now_ns());
}

void rtc_cli_progress_start(rtc_cli_progress *p, int64_t start_ns, int64_t stop_ns)
{
    *p = (rtc_cli_progress){.start_ns = start_ns, .stop_ns = stop_ns, .t0_s = now_s()};
    p->on = !rtc_cli_quiet && isatty(STDERR_FILENO) && stop_ns > start_ns;
    /* tests see the bar at once; a person only on a run worth waiting for */
    double after = PROGRESS_AFTER_S;
    const char *env = getenv("RTCOSIM_PROGRESS_AFTER_S");
    if (env && rtc_cli_num_double(env, 0, 3600, &after))
        after = PROGRESS_AFTER_S;
    p->next_s = p->t0_s + after;
}

static void draw(rtc_cli_progress *p, int64_t t_ns, double now)
{
    double frac = (double)(t_ns - p->start_ns) / (double)(p->stop_ns - p->start_ns);
    frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
    double wall = now - p->t0_s, sim = (double)(t_ns - p->start_ns) / 1e9;
    double rate = wall > 0 ? sim / wall : 0; /* simulated seconds per wall second */
    double eta = rate > 0 ? (double)(p->stop_ns - t_ns) / 1e9 / rate : 0;
    char bar[31];
    int fill = (int)(frac * 30);
    for (int i = 0; i < 30; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[30] = '\0';
    fprintf(stderr, "\r\033[K[%s] %3.0f%%  t %.3g/%.3g s  %.3gx real time  ETA %.0f s", bar,
            frac * 100, (double)t_ns / 1e9, (double)p->stop_ns / 1e9, rate, eta);
    p->shown = true;
}

void rtc_cli_progress_tick(rtc_cli_progress *p, int64_t t_ns)
{
    if (!p->on || (++p->calls & 255u))
        return;
    double now = now_s();
    if (now < p->next_s)
        return;
    p->next_s = now + PROGRESS_EVERY_S;
    draw(p, t_ns, now);
}

void rtc_cli_progress_end(rtc_cli_progress *p)
{
    if (p->shown)
        fputs("\r\033[K", stderr); /* the final line takes its place */
    p->shown = false;
}

void rtc_cli_final_line(const char *results, unsigned long long rows, unsigned long long lost,
                        const char *summary, const rtc_cli_end *e)
{
    char where[4400] = "no result file";
    if (results && !strcmp(results, "-"))
        snprintf(where, sizeof where, "on standard output");
    else if (results)
        snprintf(where, sizeof where, "in %s", results);
    char status[64];
    if (e->nonfinite && !strcmp(rtc_cli_end_status(e), "completed-nonfinite"))
        snprintf(status, sizeof status, "completed with %zu non-finite value(s)", e->nonfinite);
    else
        snprintf(status, sizeof status, "%s", rtc_cli_end_status(e));
    char missing[64] = "";
    if (lost)
        snprintf(missing, sizeof missing, " (%llu lost)", lost);
    fprintf(stderr, "rtcosim run: %s: %llu row(s) %s%s%s%s (%s)%s%s\n", status, rows, where,
            missing,
            summary ? ", summary " : "", summary ? summary : "",
            e->reason[0] ? e->reason : e->cause, e->timing[0] ? "; " : "", e->timing);
}
