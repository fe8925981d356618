/*
 * Text messages through the real-time log (rtcosim/rtlog.h): printf-style messages raised
 * on a real-time thread (engine errors, FMU log callbacks) are captured without formatting
 * and formatted by the drainer.
 *
 * DESIGN: capture copies the format (truncated, with literal prefix pieces escaped as
 * "%%") into a preallocated slot and walks its conversion specifiers with a small parser
 * (the same one the renderer uses, so capture and rendering agree on every argument):
 * integers, doubles and pointers are stored as numbers, %s strings are copied (truncated)
 * into the slot's string pool. What cannot be taken safely is shown as "<?>": %n (never
 * written), wide strings and characters, %m, and everything from a positional ("%1$d")
 * or unknown specifier on (its argument's size is unknown, so no later argument can be
 * located). Capture calls nothing but memcpy/strnlen: no allocation, lock or system call.
 *
 * Several threads produce (the RT thread, Jacobi workers, substitute units), one consumes,
 * so the slots form a bounded multi-producer queue (D. Vyukov's): a producer claims a slot
 * by CAS on the enqueue index, fills it and publishes it by storing the slot's sequence
 * number (release); the consumer reads that sequence (acquire) before the slot, and hands
 * the slot back by storing sequence + capacity (release). A producer retries only when
 * another producer won the same slot; a full queue drops and counts, never waits.
 */
#include "rtlog_priv.h"

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FMT_MAX 256
#define STR_MAX 512
#define ARGS_MAX 16

enum kind { K_PCT, K_INT, K_UINT, K_CHAR, K_DBL, K_STR, K_PTR, K_SKIP_PTR, K_SKIP_INT, K_NONE,
            K_STOP };

typedef struct spec {
    char flags[8];
    int width, prec;       /* -1: none */
    bool star_w, star_p;   /* taken from the arguments */
    char len;              /* 0, 'H' (hh), 'h', 'l', 'q' (ll), 'j', 'z', 't', 'L' */
    char conv;
    enum kind kind;
    size_t n;              /* characters after the '%' */
} spec;

typedef union targ {
    int64_t i;
    uint64_t u;
    double d;
    const void *p;
} targ;

typedef struct text_rec {
    _Atomic size_t seq;
    const rtc_logger *lg;
    int level;
    unsigned n_args;
    int64_t wall_ns;
    char fmt[FMT_MAX];
    char str[STR_MAX];
    targ args[ARGS_MAX];
} text_rec;

struct rtc__rtlog_text {
    size_t mask;
    text_rec *slot;
    alignas(64) _Atomic size_t enq; /* producers */
    alignas(64) size_t deq;         /* the consumer only */
    _Atomic uint64_t dropped;
};

static _Thread_local rtc_rtlog *bound;

void rtc_rtlog_bind_thread(rtc_rtlog *log)
{
    bound = log;
}

rtc_rtlog *rtc_rtlog_thread(void)
{
    return bound;
}

int rtc__rtlog_text_new(size_t depth, rtc__rtlog_text **out)
{
    size_t cap = 1;
    while (cap < depth)
        cap <<= 1;
    rtc__rtlog_text *q = calloc(1, sizeof *q);
    text_rec *s = q ? calloc(cap, sizeof *s) : NULL;
    if (!s) {
        free(q);
        return RTC_ENOMEM;
    }
    memset(s, 0, cap * sizeof *s); /* touched here, in the arm phase */
    for (size_t i = 0; i < cap; i++)
        atomic_init(&s[i].seq, i);
    q->mask = cap - 1;
    q->slot = s;
    *out = q;
    return RTC_OK;
}

void rtc__rtlog_text_free(rtc__rtlog_text *q)
{
    if (q)
        free(q->slot);
    free(q);
}

uint64_t rtc__rtlog_text_dropped(const rtc__rtlog_text *q)
{
    return atomic_load_explicit(&q->dropped, memory_order_relaxed);
}

/* ---- the specifier parser (capture and rendering) ---- */

static int digits(const char *p, size_t *n)
{
    int v = 0;
    while (p[*n] >= '0' && p[*n] <= '9') {
        v = v < 100000 ? v * 10 + (p[*n] - '0') : v;
        (*n)++;
    }
    return v;
}

static char length_of(const char *p, size_t *n)
{
    char c = p[*n];
    if ((c == 'h' || c == 'l') && p[*n + 1] == c) {
        *n += 2;
        return c == 'h' ? 'H' : 'q';
    }
    if (c == 'h' || c == 'l' || c == 'j' || c == 'z' || c == 't' || c == 'L' || c == 'q') {
        (*n)++;
        return c;
    }
    return 0;
}

static enum kind kind_of(char conv, char len)
{
    switch (conv) {
    case '%': return K_PCT;
    case 'd': case 'i': return K_INT;
    case 'u': case 'o': case 'x': case 'X': return K_UINT;
    case 'c': return len == 'l' ? K_SKIP_INT : K_CHAR;
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A': return K_DBL;
    case 's': return len == 'l' ? K_SKIP_PTR : K_STR;
    case 'p': return K_PTR;
    case 'n': return K_SKIP_PTR;
    case 'm': return K_NONE;
    default: return K_STOP;
    }
}

/* Parse the specifier after a '%' at p; unknown and positional ones are K_STOP. */
static void parse_spec(const char *p, spec *s)
{
    *s = (spec){.width = -1, .prec = -1};
    size_t n = 0, nf = 0;
    while (p[n] && strchr("-+ #0'", p[n]) && nf < sizeof s->flags - 1)
        s->flags[nf++] = p[n++];
    if (p[n] == '*') {
        s->star_w = true;
        n++;
    } else {
        s->width = p[n] >= '0' && p[n] <= '9' ? digits(p, &n) : -1;
    }
    if (p[n] == '$') { /* positional: parsed whole, so that rendering skips all of it */
        parse_spec(p + n + 1, s);
        s->n += n + 1;
        s->kind = K_STOP;
        return;
    }
    if (p[n] == '.') {
        n++;
        if (p[n] == '*') {
            s->star_p = true;
            n++;
        } else {
            s->prec = digits(p, &n);
        }
    }
    s->len = length_of(p, &n);
    s->conv = p[n];
    s->kind = !p[n] ? K_STOP : kind_of(p[n], s->len);
    s->n = p[n] ? n + 1 : n;
}

/* ---- capture (any RT thread) ---- */

typedef struct capture {
    text_rec *r;
    size_t str_used;
    va_list ap;
} capture;

static void put_arg(capture *c, targ v)
{
    if (c->r->n_args < ARGS_MAX)
        c->r->args[c->r->n_args] = v;
    c->r->n_args++; /* beyond ARGS_MAX: counted, rendered as "<?>" */
}

static int64_t take_int(capture *c, char len)
{
    switch (len) {
    case 'l': return va_arg(c->ap, long);
    case 'q': return va_arg(c->ap, long long);
    case 'j': return va_arg(c->ap, intmax_t);
    case 'z': return (int64_t)va_arg(c->ap, size_t);
    case 't': return va_arg(c->ap, ptrdiff_t);
    default: return va_arg(c->ap, int);
    }
}

static uint64_t take_uint(capture *c, char len)
{
    switch (len) {
    case 'H': return (unsigned char)va_arg(c->ap, unsigned);
    case 'h': return (unsigned short)va_arg(c->ap, unsigned);
    case 'l': return va_arg(c->ap, unsigned long);
    case 'q': return va_arg(c->ap, unsigned long long);
    case 'j': return va_arg(c->ap, uintmax_t);
    case 'z': return va_arg(c->ap, size_t);
    case 't': return (uint64_t)va_arg(c->ap, ptrdiff_t);
    default: return va_arg(c->ap, unsigned);
    }
}

/* Copy a %s argument into the string pool; the argument holds its offset. */
static void take_str(capture *c, const spec *s, int prec)
{
    const char *v = va_arg(c->ap, const char *);
    if (!v)
        v = "(null)";
    size_t room = STR_MAX - c->str_used;
    if (room <= 1) { /* the pool is full: the last byte is always a '\0' */
        c->r->str[STR_MAX - 1] = '\0';
        put_arg(c, (targ){.u = STR_MAX - 1});
        return;
    }
    size_t max = room - 1;
    if ((s->star_p || s->prec >= 0) && prec >= 0 && (size_t)prec < max)
        max = (size_t)prec;
    size_t len = strnlen(v, max);
    memcpy(c->r->str + c->str_used, v, len);
    c->r->str[c->str_used + len] = '\0';
    put_arg(c, (targ){.u = c->str_used});
    c->str_used += len + 1;
}

/* Take the arguments of one specifier; false when the rest cannot be located. */
static bool take(capture *c, const spec *s)
{
    int prec = s->prec;
    if (s->kind == K_STOP)
        return false;
    if (s->star_w)
        put_arg(c, (targ){.i = va_arg(c->ap, int)});
    if (s->star_p)
        put_arg(c, (targ){.i = prec = va_arg(c->ap, int)});
    switch (s->kind) {
    case K_INT: put_arg(c, (targ){.i = take_int(c, s->len)}); break;
    case K_UINT: put_arg(c, (targ){.u = take_uint(c, s->len)}); break;
    case K_CHAR: case K_SKIP_INT: put_arg(c, (targ){.i = va_arg(c->ap, int)}); break;
    case K_DBL:
        put_arg(c, (targ){.d = s->len == 'L' ? (double)va_arg(c->ap, long double)
                                              : va_arg(c->ap, double)});
        break;
    case K_STR: take_str(c, s, prec); break;
    case K_PTR: case K_SKIP_PTR: put_arg(c, (targ){.p = va_arg(c->ap, const void *)}); break;
    default: break;
    }
    return true;
}

/* Copy the prefix pieces ('%' doubled) and the format into the slot, truncated. */
static void copy_format(char *dst, const char *const *prefix, const char *fmt)
{
    size_t n = 0;
    for (size_t i = 0; prefix && prefix[i]; i++)
        for (const char *p = prefix[i]; *p && n + 2 < FMT_MAX; p++) {
            if (*p == '%')
                dst[n++] = '%';
            dst[n++] = *p;
        }
    size_t len = fmt ? strnlen(fmt, FMT_MAX - 1 - n) : 0;
    memcpy(dst + n, fmt ? fmt : "", len);
    dst[n + len] = '\0';
}

static text_rec *claim(rtc__rtlog_text *q, size_t *pos_out)
{
    size_t pos = atomic_load_explicit(&q->enq, memory_order_relaxed);
    for (;;) {
        text_rec *r = &q->slot[pos & q->mask];
        /* acquire: the consumer is done reading a slot it handed back */
        size_t seq = atomic_load_explicit(&r->seq, memory_order_acquire);
        intptr_t diff = (intptr_t)seq - (intptr_t)pos;
        if (diff == 0 && atomic_compare_exchange_weak_explicit(
                             &q->enq, &pos, pos + 1, memory_order_relaxed, memory_order_relaxed)) {
            *pos_out = pos;
            return r;
        }
        if (diff < 0)
            return NULL; /* full */
        if (diff > 0)
            pos = atomic_load_explicit(&q->enq, memory_order_relaxed);
    }
}

bool rtc__rtlog_text_push(rtc__rtlog_text *q, const rtc_logger *lg, int level,
                          const char *const *prefix, const char *fmt, va_list ap)
{
    size_t pos;
    text_rec *r = claim(q, &pos);
    if (!r) {
        atomic_fetch_add_explicit(&q->dropped, 1, memory_order_relaxed);
        return false;
    }
    r->lg = lg;
    r->level = level;
    r->n_args = 0;
    r->wall_ns = rtc_time_now_ns();
    copy_format(r->fmt, prefix, fmt);
    capture c = {.r = r};
    va_copy(c.ap, ap);
    for (const char *p = r->fmt; *p; p++) {
        if (*p != '%')
            continue;
        spec s;
        parse_spec(p + 1, &s);
        if (!take(&c, &s))
            break;
        p += s.n;
    }
    va_end(c.ap);
    /* release: the filled slot is visible to the consumer that sees this sequence */
    atomic_store_explicit(&r->seq, pos + 1, memory_order_release);
    return true;
}

/* ---- rendering (the draining thread) ---- */

typedef struct out {
    char *buf;
    size_t cap, n;
} out;

static void emit(out *o, const char *s, size_t len)
{
    for (size_t i = 0; i < len && o->n + 1 < o->cap; i++)
        o->buf[o->n++] = s[i];
    o->buf[o->n] = '\0';
}

static targ next_arg(const text_rec *r, unsigned *k, bool *ok)
{
    unsigned i = (*k)++;
    if (i >= r->n_args || i >= ARGS_MAX) {
        *ok = false;
        return (targ){0};
    }
    return r->args[i];
}

/* One specifier with its captured value; "<?>" where the value was not taken. */
static void render_one(out *o, const text_rec *r, const spec *s, unsigned *k)
{
    bool ok = s->kind != K_SKIP_PTR && s->kind != K_SKIP_INT && s->kind != K_NONE;
    int w = s->star_w ? (int)next_arg(r, k, &ok).i : s->width;
    int p = s->star_p ? (int)next_arg(r, k, &ok).i : s->prec;
    targ v = s->kind == K_NONE ? (targ){0} : next_arg(r, k, &ok);
    w = w > 200 ? 200 : w < -200 ? -200 : w; /* a hostile width cannot cost seconds */
    p = p > 200 ? 200 : p;
    if (!ok) {
        emit(o, "<?>", 3);
        return;
    }
    char f[40], ws[12] = "", ps[14] = "", t[512];
    if (s->star_w || w >= 0)
        snprintf(ws, sizeof ws, "%d", w);
    if (p >= 0)
        snprintf(ps, sizeof ps, ".%d", p);
    snprintf(f, sizeof f, "%%%s%s%s%s%c", s->flags, ws, ps,
             s->kind == K_INT || s->kind == K_UINT ? "ll" : "", s->conv);
    int n = 0;
    /* f is rebuilt from parsed pieces: flags, numbers, a length matching the value's
     * type below and a conversion of the kind parse_spec() gave it */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    switch (s->kind) {
    case K_INT: n = snprintf(t, sizeof t, f, (long long)v.i); break;
    case K_UINT: n = snprintf(t, sizeof t, f, (unsigned long long)v.u); break;
    case K_CHAR: n = snprintf(t, sizeof t, f, (int)v.i); break;
    case K_DBL: n = snprintf(t, sizeof t, f, v.d); break;
    case K_STR: n = snprintf(t, sizeof t, f, r->str + (v.u < STR_MAX ? v.u : STR_MAX - 1)); break;
    case K_PTR: n = snprintf(t, sizeof t, f, v.p); break;
    default: break;
    }
#pragma GCC diagnostic pop
    emit(o, t, n < 0 ? 0 : (size_t)n < sizeof t ? (size_t)n : sizeof t - 1);
}

static void render(const text_rec *r, char *buf, size_t cap)
{
    out o = {buf, cap, 0};
    buf[0] = '\0';
    unsigned k = 0;
    bool stopped = false;
    for (const char *p = r->fmt; *p;) {
        const char *pct = strchr(p, '%');
        size_t lit = pct ? (size_t)(pct - p) : strlen(p);
        emit(&o, p, lit);
        if (!pct)
            break;
        spec s;
        parse_spec(pct + 1, &s);
        stopped = stopped || s.kind == K_STOP;
        if (s.kind == K_PCT && !stopped)
            emit(&o, "%", 1);
        else if (stopped)
            emit(&o, "<?>", 3);
        else
            render_one(&o, r, &s, &k);
        p = pct + 1 + s.n;
    }
}

size_t rtc__rtlog_text_drain(rtc__rtlog_text *q)
{
    size_t n = 0;
    for (;;) {
        text_rec *r = &q->slot[q->deq & q->mask];
        /* acquire: the producer's writes to the slot are visible */
        if (atomic_load_explicit(&r->seq, memory_order_acquire) != q->deq + 1)
            return n;
        char line[RTC_LOG_MSG_MAX];
        render(r, line, sizeof line);
        const rtc_logger *lg = r->lg;
        int level = r->level;
        /* release: the slot is free again once the producers see this sequence */
        atomic_store_explicit(&r->seq, q->deq + q->mask + 1, memory_order_release);
        q->deq++;
        n++;
        if (rtc_log_enabled(lg, level))
            lg->log(lg->user, level, line);
    }
}
