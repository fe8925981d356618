/*
 * The HTTP panel's memory of the run (panel_priv.h, rtc__panel_hist): the recorded columns
 * as the session published them, sampled at every frame tick, and the RTF over the last
 * second — so a viewer who opens the page mid-run sees the recent past and the present,
 * never a frame kept from whoever watched before.
 *
 * DESIGN: the panel thread (not the RT thread) reads the session's snapshot once per frame
 * tick, whether a page is open or not, and keeps every new step it sees as a point of a
 * ring sized once at start (RTC__PANEL_HIST_S seconds of frame ticks, fewer for very wide
 * recordings). A point records its step k, so its time and values are exactly those of
 * results.csv's row k. The ring marks a point that does not continue its predecessor — the
 * panel thread did not get to look for several frame ticks while the run moved on — and a
 * page draws a gap there instead of a line through values nobody saw. Streams read the
 * ring with their own cursor (sequence numbers), so a slow page misses no point and a new
 * one starts from the oldest point held.
 */
#include "panel_priv.h"

#include "rtcosim/status.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HIST_MAX_BYTES (16u << 20) /* the ring's values at most (a very wide recording) */
#define HIST_MIN_POINTS 64
#define GAP_TURNS 3 /* frame ticks without a look at the snapshot that break the line */

int rtc__panel_hist_init(rtc__panel_hist *h, rtc_session *s)
{
    *h = (rtc__panel_hist){.n_col = rtc_session_columns(s), .n_var = rtc_session_vars(s),
                           .row_k = -1, .last_k = -1};
    size_t want = (size_t)RTC__PANEL_HIST_S * (1000000000u / RTC__PANEL_FRAME_NS);
    size_t fit = HIST_MAX_BYTES / ((h->n_col + 1) * sizeof(double));
    h->cap = h->n_col ? (want < fit ? want : fit > HIST_MIN_POINTS ? fit : HIST_MIN_POINTS) : 0;
    h->k = calloc(h->cap + 1, sizeof *h->k);
    h->gap = calloc(h->cap + 1, sizeof *h->gap);
    h->v = calloc(h->cap * h->n_col + 1, sizeof *h->v);
    h->row = calloc(h->n_col + 1, sizeof *h->row);
    h->xval = calloc(h->n_var + 1, sizeof *h->xval);
    h->xtgt = calloc(h->n_var + 1, sizeof *h->xtgt);
    if (!h->k || !h->gap || !h->v || !h->row || !h->xval || !h->xtgt) {
        rtc__panel_hist_clear(h);
        return RTC_ENOMEM;
    }
    for (size_t i = 0; i < h->n_var; i++)
        h->xval[i] = h->xtgt[i] = NAN;
    return RTC_OK;
}

void rtc__panel_hist_clear(rtc__panel_hist *h)
{
    free(h->k);
    free(h->gap);
    free(h->v);
    free(h->row);
    free(h->xval);
    free(h->xtgt);
    *h = (rtc__panel_hist){0};
}

/* The RTF window: simulated over wall time across the last RTC__PANEL_RTF_N turns. */
static void rtf_turn(rtc__panel_hist *h, int64_t now_ns, int64_t sim_ns)
{
    h->rtf_wall[h->rtf_next] = now_ns;
    h->rtf_sim[h->rtf_next] = sim_ns;
    h->rtf_next = (h->rtf_next + 1) % RTC__PANEL_RTF_N;
    if (h->rtf_n < RTC__PANEL_RTF_N)
        h->rtf_n++;
}

double rtc__panel_hist_rtf(const rtc__panel_hist *h)
{
    if (h->rtf_n < 2)
        return NAN; /* not measured yet: the page shows a dash, not a made-up 0 */
    size_t newest = (h->rtf_next + RTC__PANEL_RTF_N - 1) % RTC__PANEL_RTF_N;
    size_t oldest = (h->rtf_next + RTC__PANEL_RTF_N - h->rtf_n) % RTC__PANEL_RTF_N;
    int64_t wall = h->rtf_wall[newest] - h->rtf_wall[oldest];
    return wall > 0 ? (double)(h->rtf_sim[newest] - h->rtf_sim[oldest]) / (double)wall : NAN;
}

void rtc__panel_hist_turn(rtc__panel_hist *h, rtc_session *s, int64_t now_ns)
{
    rtc_session_progress pr;
    rtc_session_progress_get(s, &pr);
    rtf_turn(h, now_ns, pr.sim_time_ns);
    int64_t k;
    if (!rtc_session_snapshot(s, h->row, h->xval, h->xtgt, &k))
        return; /* the RT thread kept writing: next turn (a late turn may mark a gap) */
    bool late = h->last_turn_ns && now_ns - h->last_turn_ns > GAP_TURNS * RTC__PANEL_FRAME_NS;
    h->last_turn_ns = now_ns;
    h->row_k = k;
    if (!h->cap || k < 0 || k == h->last_k)
        return; /* nothing recorded, nothing published yet, or no new step (paused) */
    size_t slot = (size_t)(h->next % h->cap);
    h->k[slot] = k;
    h->gap[slot] = late && h->last_k >= 0;
    memcpy(&h->v[slot * h->n_col], h->row, h->n_col * sizeof *h->row);
    h->last_k = k;
    h->next++;
    if (h->n < h->cap)
        h->n++;
}

uint64_t rtc__panel_hist_first(const rtc__panel_hist *h)
{
    return h->next - h->n;
}

/* [t, null, ...]: where a page's line must break, half a tick before @p t_s. */
static json_t *gap_row(rtc_session *s, size_t n_col, double t_s)
{
    json_t *r = json_array();
    int bad = json_array_append_new(r, rtc__json_real(t_s - (double)rtc_session_tick_ns(s)
                                                                / 2e9));
    for (size_t i = 0; i < n_col && !bad; i++)
        bad = json_array_append_new(r, json_null());
    if (bad) {
        json_decref(r);
        return NULL;
    }
    return r;
}

static json_t *point_row(const rtc__panel_hist *h, size_t slot, double t_s)
{
    json_t *r = json_array();
    int bad = json_array_append_new(r, rtc__json_real(t_s));
    for (size_t i = 0; i < h->n_col && !bad; i++)
        bad = json_array_append_new(r, rtc__json_real(h->v[slot * h->n_col + i]));
    if (bad) {
        json_decref(r);
        return NULL;
    }
    return r;
}

int rtc__panel_hist_rows(const rtc__panel_hist *h, rtc_session *s, uint64_t *cursor,
                         bool broken, size_t max, json_t *rows)
{
    uint64_t first = rtc__panel_hist_first(h);
    if (*cursor < first) { /* the page fell behind the ring: what it missed is a gap */
        broken = broken || *cursor > 0;
        *cursor = first;
    }
    for (size_t n = 0; *cursor < h->next && n < max; n++, (*cursor)++) {
        size_t slot = (size_t)(*cursor % h->cap);
        double t = rtc_session_time_s(s, h->k[slot]);
        if ((h->gap[slot] || broken) && json_array_append_new(rows, gap_row(s, h->n_col, t)))
            return -1;
        broken = false;
        if (json_array_append_new(rows, point_row(h, slot, t)))
            return -1;
    }
    return 0;
}
