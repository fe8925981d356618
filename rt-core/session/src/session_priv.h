/*
 * Internals of operator sessions (rtcosim/session.h), shared by session.c (arming, the RT
 * hook, the writer thread), session_ops.c (the control thread's operator functions),
 * session_events.c (events.log), session_apply.c (exposed variables: parsing, clamping,
 * rate limits — used identically by live sessions and replay) and session_inputs.c
 * (inputs.bin: encoding, reading, the replay feed).
 */
#ifndef RTC_SESSION_PRIV_H
#define RTC_SESSION_PRIV_H

#include "rtcosim/exec.h"
#include "rtcosim/ratelimit.h"
#include "rtcosim/ofile.h"
#include "rtcosim/ring.h"
#include "rtcosim/session.h"

#include <pthread.h>
#include <stdatomic.h>

#define RTC__INPUTS_MAGIC "RTCINPUT"
#define RTC__INPUTS_VERSION 1
#define RTC__INPUTS_RECORD 40
#define RTC__INPUTS_HEADER 48

enum { RTC__KIND_SAMPLE = 1, RTC__KIND_COMMAND = 2, RTC__KIND_END = 3, RTC__KIND_PROGRESS = 4 };
enum { RTC__OP_SET = 1, RTC__OP_SAFE = 2 }; /* 3..6: rtc_session_control_op */

/* One exposed variable: what the operator may set, and its ramp (RT thread state). */
typedef struct rtc__xvar {
    char *spec;       /* the entry as written: "unit.var[:key=value]..." */
    char *name;       /* "unit.var" */
    size_t unit, var;
    bool has_min, has_max, has_rate, has_safe;
    double min, max;  /* declared range, narrowed by the entry's min/max */
    double rate;      /* units per simulated second */
    double safe;
    bool ramping;     /* RT thread: moving towards target by rate·tick per step */
    double target, cur;
} rtc__xvar;

/* session_apply.c */
int rtc__xvar_parse(rtc_system *sys, const char *spec, rtc__xvar *x, char *err, size_t cap);
void rtc__xvar_clear(rtc__xvar *x);
/* Every exposed variable of a session: the system file's entries, then @p expose; no
 * name twice. On failure nothing is kept (*out NULL) and @p err says why. */
int rtc__xvars_parse(rtc_system *sys, const char *const *expose, size_t n_expose,
                     rtc__xvar **out, size_t *n_out, char *err, size_t cap);
/* Clamp @p v to the variable's range; true when it was changed. */
bool rtc__xvar_clamp(const rtc__xvar *x, double *v);
/* Apply op SET (rate-limited) or SAFE (immediate) on the stepping thread. */
int rtc__xvar_apply(rtc_system *sys, rtc__xvar *x, unsigned op, double value);
/* Move every ramping variable one step (before the step of each tick). */
int rtc__xvar_ramp(rtc_system *sys, rtc__xvar *xs, size_t n, int64_t tick_ns);

/* session_ops.c: set-points from I/O peers in events.log. _init after the signal table
 * (false for other drivers' signals); _event per sample record. */
int rtc__setpoints_init(rtc_session *s);
void rtc__setpoint_event(rtc_session *s, const rtc_inputs_rec *r);
void rtc__setpoints_clear(rtc_session *s);

/* session_events.c */
/* A line a network peer caused (a command, a mark, a set-point): written when the peer
 * limit admits it (PEER_BURST a second, all peers together), else only counted. @p k: the
 * step it belongs to, or RTC__EVENTS_NOW (the current one). Thread: any non-RT thread. */
#define RTC__EVENTS_NOW INT64_MIN
void rtc__events_peer_at(rtc_events *ev, int64_t k, const char *source, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* When a window of the peer limit has passed with lines only counted: one line with the
 * count (the session writer calls it every turn, with @p force at the end). */
void rtc__events_peer_due(rtc_events *ev, bool force);
/* The logger every event is also shown on (the command line's). */
const rtc_logger *rtc__events_tee(const rtc_events *ev);

/* session_inputs.c: little-endian encoding of one record into 40 bytes */
void rtc__inputs_encode(const rtc_inputs_rec *r, unsigned char out[RTC__INPUTS_RECORD]);

/* A queued operator command (control thread → RT thread). */
typedef struct rtc__cmd {
    uint8_t op;
    uint32_t index; /* variable index (set/safe), steps (step) */
    double value;
    int64_t origin;
} rtc__cmd;

/* Last observed state of one I/O unit (writer thread: link and staleness events). */
typedef struct rtc__io_watch {
    size_t unit;
    bool seen, connected;
    uint64_t reconnects, stale, errors;
} rtc__io_watch;

struct rtc_session {
    rtc_system *sys;
    rtc_exec *ex;
    /* the nodes of a distributed run (rtc_session_nodes): set while surfaces may read it,
     * so the function is published (release) after its user */
    _Atomic(rtc_session_nodes_fn) nodes_fn;
    void *nodes_user;
    rtc_events *ev;
    rtc_record *rec;
    char *dir;
    int64_t tick_ns, start_ns;
    /* signal table (I/O connectors) and exposed variables */
    size_t n_sig;
    char **sig_unit, **sig_name;
    /* writer thread: set-points a peer sends through an OSC or Modbus-server component,
     * logged to events.log when they change, rate-limited (session_ops.c) */
    bool *sig_setpoint, *sig_logged;
    double *sig_last;
    size_t n_var;
    rtc__xvar *var;
    /* rings: commands (control → RT), inputs records (RT → writer) */
    rtc_ring *cmd, *inputs;
    _Atomic uint64_t cmd_dropped, applied;
    /* writer thread */
    rtc_rt_thread *writer; /* NULL: not running */
    _Atomic bool writer_stop;
    rtc_ofile *bin;               /* inputs.bin: whole 40-byte records (rtcosim/ofile.h) */
    bool write_continue;          /* a write error does not stop the run */
    char write_error[600];        /* writer thread: the first write error, reported */
    _Atomic uint64_t written;
    rtc__io_watch *watch;
    size_t n_watch;
    _Atomic int64_t steps_done;  /* RT thread: steps completed (release after the step) */
    int64_t progress_k;          /* writer: the last progress record's k */
    int64_t progress_ns;         /* writer: when it was written */
    bool unflushed;              /* writer: records appended since the last progress */
    /* snapshot of the recorded columns, then a value and a target per exposed variable:
     * seqlock over relaxed atomics (the RT thread writes every step, readers retry while
     * a write is in progress; session_view.c reads it whole) */
    size_t n_col;
    void *row;
    _Atomic uint64_t *snap;  /* doubles as bits */
    _Atomic int64_t snap_k;
    _Atomic uint32_t snap_seq;
    _Atomic uint32_t snap_waiters; /* threads asleep in rtc_session_wait_step() */
    /* control surfaces (OSC, the HTTP panel): each on its own non-RT thread; op_mu
     * serialises the operator functions, so the command ring keeps one producer at a time
     * and the fields below have one writer at a time */
    pthread_mutex_t op_mu;
    int64_t deadman_ns, last_heard_ns;
    bool deadman_fired, pause_queued;
    int64_t armed_ns, status_wall_ns, status_sim_ns;
    unsigned caps;            /* RTC_SESSION_CAN_*: fixed before the run */
    bool has_io;              /* the system has I/O components: single steps are paced */
    uint64_t steps_asked;     /* single steps queued so far */
    /* single steps: asked − done are outstanding (bounded by RTC_SESSION_MAX_STEPS);
     * the RT thread adds every step it released or dropped to single_steps_done */
    _Atomic uint64_t single_steps_done;
    /* RT thread */
    int64_t ramp_k;
    int64_t period_ns;        /* the executive's wall period (set at attach) */
    uint64_t steps_pending;   /* paced single steps not yet released */
    int64_t step_next_ns;     /* earliest release of the next paced single step */
};

#endif
