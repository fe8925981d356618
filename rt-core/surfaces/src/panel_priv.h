/*
 * Internals of the HTTP operator panel (rtcosim/panel.h): panel.c (the server thread,
 * trust checks, routing, streams) and panel_api.c (JSON: the page's info, the live frames,
 * the commands). Everything here runs on the panel thread only. The JSON is jansson's,
 * through base's helpers (json_util.h), with their number and string rules.
 */
#ifndef RTC_PANEL_PRIV_H
#define RTC_PANEL_PRIV_H

#include "json_util.h"
#include "surface_priv.h"

#include "rtcosim/panel.h"
#include "rtcosim/ratelimit.h"
#include "rtcosim/rt.h"

#include <stdatomic.h>

/* One embedded file of the page (generated at build time by cmake/embed_assets.cmake). */
typedef struct rtc__panel_asset {
    const char *path, *mime;
    const unsigned char *data;
    size_t len;
} rtc__panel_asset;
extern const rtc__panel_asset rtc__panel_assets[];
extern const size_t rtc__panel_n_assets;

/* JSON on the wire: one line (a Server-Sent Events data line holds no newline), reals
 * with 17 significant digits as in every file rtcosim writes (json_util.h). */
#define RTC__PANEL_JSON_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY)

/* Bytes for a client (an answer, a stream's pending events, the newest frame). Growing
 * beyond max or out of memory, it stops growing and says so (oom). */
typedef struct rtc__panel_buf {
    char *p;
    size_t len, cap, max;
    bool oom;
} rtc__panel_buf;
void rtc__panel_buf_add(rtc__panel_buf *b, const char *bytes, size_t n);
/* @p doc serialized (RTC__PANEL_JSON_FLAGS) onto @p b, then released; NULL (a document
 * that could not be built) sets oom. */
void rtc__panel_buf_json(rtc__panel_buf *b, json_t *doc);
/* The same, then a newline: an HTTP answer's body. */
void rtc__panel_buf_line(rtc__panel_buf *b, json_t *doc);
/* An answer {"ok":OK,"op":OP,"error":ERROR} (op, error NULL: left out); NULL when out of
 * memory. */
json_t *rtc__panel_reply(bool ok, const char *op, const char *error);

#define RTC__PANEL_MAX_STREAMS 8
#define RTC__PANEL_FRAME_NS 40000000 /* 25 frames a second */
/* A connection this young never yields to a newcomer: its request may be on its way (a
 * client across a network sends it half a round trip after the connect completes). */
#define RTC__PANEL_GRACE_NS 100000000
#define RTC__PANEL_HIST_S 120        /* seconds of history a new page gets */
#define RTC__PANEL_RTF_N 32          /* frame ticks of the RTF window (1.28 s) */

/* What the panel remembers of the run (panel_hist.c): every step it saw at a frame tick
 * (a ring of points: step, values, "breaks the line"), the newest snapshot, the RTF
 * window. Filled on the panel thread at every frame tick, watched or not. */
typedef struct rtc__panel_hist {
    size_t n_col, n_var, cap;
    uint64_t next;        /* sequence number of the next point: the ring holds
                             [next - n, next) */
    size_t n;
    int64_t *k;           /* cap: the step of each point */
    bool *gap;            /* cap: the point does not continue the one before it */
    double *v;            /* cap × n_col values */
    double *row;          /* the newest snapshot: n_col columns, */
    double *xval, *xtgt;  /* n_var exposed values and their targets */
    int64_t row_k;        /* its step (-1: none published yet) */
    int64_t last_k;       /* the newest point's step (-1: none) */
    int64_t last_turn_ns; /* the last turn that read the snapshot */
    int64_t rtf_wall[RTC__PANEL_RTF_N], rtf_sim[RTC__PANEL_RTF_N];
    size_t rtf_n, rtf_next;
} rtc__panel_hist;

int rtc__panel_hist_init(rtc__panel_hist *h, rtc_session *s);
void rtc__panel_hist_clear(rtc__panel_hist *h);
/* One frame tick: the progress into the RTF window, the snapshot into row/xval/xtgt, and
 * a new step into the ring. */
void rtc__panel_hist_turn(rtc__panel_hist *h, rtc_session *s, int64_t now_ns);
/* Simulated over wall time across the window; NAN until two ticks were seen. */
double rtc__panel_hist_rtf(const rtc__panel_hist *h);
/* The sequence number of the oldest point held. */
uint64_t rtc__panel_hist_first(const rtc__panel_hist *h);
/* At most @p max points from *cursor on, appended to @p rows as [t, v...] (t: the step's
 * logical time in s), each preceded by a null row [t', null...] where the line must break:
 * the point does not continue its predecessor, @p broken (the page lost its place), or
 * the cursor fell behind the ring (then it moves to the oldest point). *cursor advances
 * past what was appended. Returns 0, or -1 when out of memory. */
int rtc__panel_hist_rows(const rtc__panel_hist *h, rtc_session *s, uint64_t *cursor,
                         bool broken, size_t max, json_t *rows);

/* A live stream (Server-Sent Events): its pending bytes and its cursors. */
typedef struct rtc__panel_stream {
    struct rtc_panel *p;
    bool used, suspended, closing;
    struct MHD_Connection *conn;
    rtc__panel_buf out;
    size_t off;          /* bytes of out already sent */
    uint64_t frame_seq;  /* the last frame queued */
    uint64_t ev_seq;     /* the last events.log line queued */
    uint64_t pt_next;    /* the next history point it gets */
    bool pt_resumed;     /* it continues a page's earlier stream (Last-Event-ID) */
    bool pt_sent;        /* a points event went out on this stream */
} rtc__panel_stream;

/* A connection's bookkeeping: its peer, whether it may be shut for a newcomer, and its
 * header deadline (slowloris). fd -1: shut down, MHD has not closed it yet. */
typedef struct rtc__panel_conn {
    int fd;
    uint32_t addr;       /* the peer's IPv4 address, host order */
    int64_t since_ns;    /* connection start, or end of its last request */
    uint64_t turn;       /* the panel loop's turn that accepted it */
    uint64_t busy_turn;  /* the turn it was found holding bytes MHD had not read */
    bool in_request;     /* its request headers arrived */
    bool trusted;        /* it carried the right token (no token: a request was served) */
    bool wrong;          /* it carried a wrong token */
    bool used;
} rtc__panel_conn;

struct rtc_panel {
    rtc_session *s;
    struct MHD_Daemon *d;
    int port;
    uint32_t bind_ip;    /* host order */
    rtc_rt_thread *thread;
    _Atomic bool stop;
    _Atomic uint64_t requests, refused, wrong_tokens, throttled, cross_origin,
        header_timeouts, evicted;
    char token[RTC_PANEL_MAX_TOKEN];
    size_t token_len;
    unsigned max_conn, max_per_peer, timeout_s;
    int64_t header_ns;
    unsigned n_slots;           /* conns[]: MHD's own limit, max_conn with room for
                                   newcomers that make others yield */
    uint64_t turn;              /* turns of the panel loop */
    bool overflow;              /* a newcomer found nobody to yield: enforce() next turn */
    rtc__surface_guard guard;   /* wrong tokens per peer */
    rtc_ratelimit commands;     /* at most commands_per_s commands a second */
    rtc__surface_lines lines;   /* events.log lines for refusals */
    /* the newest frame (an SSE event), rebuilt every RTC__PANEL_FRAME_NS whether a page
     * watches or not, from the history's newest snapshot */
    rtc__panel_buf frame;
    uint64_t frame_seq;
    int64_t next_frame_ns;
    rtc__panel_hist hist;
    uint64_t epoch;      /* this panel's start (ns): event ids of another run are not ours */
    rtc__panel_stream streams[RTC__PANEL_MAX_STREAMS];
    rtc__panel_conn *conns;
};

/* panel_api.c */
void rtc__panel_info(rtc_panel *p, rtc__panel_buf *b);
void rtc__panel_frame(rtc_panel *p, int64_t now_ns);
/* A command from @p who (origin: IPv4 << 16 | port): the HTTP status and the JSON answer. */
unsigned rtc__panel_command(rtc_panel *p, struct MHD_Connection *conn, int64_t origin,
                            const char *who, bool remote, rtc__panel_buf *b);
/* Queue the stream's next bytes (frame, history points, new events) when it has none
 * pending. */
void rtc__panel_stream_fill(rtc_panel *p, rtc__panel_stream *st);
/* A new stream's cursors from the browser's Last-Event-ID (NULL: a new page). */
void rtc__panel_stream_resume(rtc_panel *p, rtc__panel_stream *st, const char *last_id);
/* A refusal: logged within the rate limit. */
void rtc__panel_note_refusal(rtc_panel *p, const char *who, const char *why);

#endif
