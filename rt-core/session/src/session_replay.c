/*
 * Replay of a session's recorded inputs (rtcosim/session.h, `rtcosim replay`): the feed
 * the replay I/O units read (rtc_io_unit_replay_factory) and the recorded commands.
 *
 * DESIGN: live, the I/O tap recorded every sample with the k of the refresh that pushed
 * it into the estimator; here each signal's samples are kept in file order and handed out
 * only to the refresh at t = k·tick, so every estimator sees the same (sample, query)
 * sequence at the same k. Commands recorded at k are applied before step k with the same
 * code as the live RT hook (session_apply.c), then the rate limits move once.
 */
#include "session_priv.h"

#include "rtcosim/io_unit.h"
#include "rtcosim/status.h"

#include <stdlib.h>
#include <string.h>

struct rtc_replay {
    const rtc_inputs *in;
    rtc_io_sample_source feed;
    size_t *first, *count, *cursor; /* per signal: its samples in order[first..+count) */
    size_t *order;                  /* record indices of samples, grouped by signal */
    bool *bound;                    /* looked up by a replay unit */
    size_t skipped;                 /* samples passed over (never consumed) */
    rtc_system *sys;
    rtc__xvar *var;
    size_t n_var, next_cmd;
};

static long feed_lookup(void *user, const char *unit, const char *signal)
{
    rtc_replay *r = user;
    for (size_t i = 0; i < r->in->n_signals; i++) {
        if (!strcmp(r->in->sig_unit[i], unit) && !strcmp(r->in->sig_name[i], signal)) {
            r->bound[i] = true;
            return (long)i;
        }
    }
    return -1;
}

static bool feed_next(void *user, long sig, int64_t t_ns, double *value, int64_t *sample_ns,
                      int64_t *arrival_ns)
{
    rtc_replay *r = user;
    size_t s = (size_t)sig;
    while (r->cursor[s] < r->count[s]) {
        const rtc_inputs_rec *rec = &r->in->recs[r->order[r->first[s] + r->cursor[s]]];
        /* a value of an initialization pass, asked for by that pass (t_ns = -1 - pass):
         * the passes come before t = 0, in their order */
        int64_t t = rec->op == RTC_IO_INIT_PASS_QUALITY ? INT64_MIN / 2 + rec->a_ns
                                                         : rec->k * r->in->tick_ns;
        int64_t q = t_ns >= 0 ? t_ns : INT64_MIN / 2 + (-1 - t_ns);
        if (t > q)
            return false;
        r->cursor[s]++;
        if (t < q) { /* a refresh that did not happen here: counted, never silent */
            r->skipped++;
            continue;
        }
        *value = rec->value;
        *sample_ns = rec->a_ns;
        *arrival_ns = rec->b_ns;
        return true;
    }
    return false;
}

int rtc_replay_new(const rtc_inputs *in, rtc_replay **out)
{
    rtc_replay *r = calloc(1, sizeof *r);
    if (!r)
        return RTC_ENOMEM;
    size_t n = in->n_signals + 1;
    r->in = in;
    r->first = calloc(n, sizeof *r->first);
    r->count = calloc(n, sizeof *r->count);
    r->cursor = calloc(n, sizeof *r->cursor);
    r->bound = calloc(n, sizeof *r->bound);
    r->order = calloc(in->n_recs + 1, sizeof *r->order);
    if (!r->first || !r->count || !r->cursor || !r->bound || !r->order) {
        rtc_replay_free(r);
        return RTC_ENOMEM;
    }
    for (size_t i = 0; i < in->n_recs; i++)
        if (in->recs[i].kind == RTC__KIND_SAMPLE)
            r->count[in->recs[i].index]++;
    for (size_t s = 1; s < in->n_signals; s++)
        r->first[s] = r->first[s - 1] + r->count[s - 1];
    for (size_t i = 0; i < in->n_recs; i++) /* stable: file order within each signal */
        if (in->recs[i].kind == RTC__KIND_SAMPLE) {
            size_t s = in->recs[i].index;
            r->order[r->first[s] + r->cursor[s]++] = i;
        }
    memset(r->cursor, 0, n * sizeof *r->cursor);
    r->feed = (rtc_io_sample_source){.lookup = feed_lookup, .next = feed_next, .user = r};
    *out = r;
    return RTC_OK;
}

void rtc_replay_free(rtc_replay *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_var; i++)
        rtc__xvar_clear(&r->var[i]);
    free(r->var);
    free(r->first);
    free(r->count);
    free(r->cursor);
    free(r->bound);
    free(r->order);
    free(r);
}

const rtc_io_sample_source *rtc_replay_feed(rtc_replay *r)
{
    return &r->feed;
}

int rtc_replay_bind(rtc_replay *r, rtc_system *sys, char *err, size_t cap)
{
    r->sys = sys;
    for (size_t i = 0; i < r->in->n_signals; i++) {
        if (r->bound[i] || !r->count[i])
            continue;
        snprintf(err, cap, "inputs.bin: signal %s.%s has %zu recorded sample(s), but the "
                 "system has no such I/O signal", r->in->sig_unit[i], r->in->sig_name[i],
                 r->count[i]);
        return RTC_EPARSE;
    }
    r->var = calloc(r->in->n_vars + 1, sizeof *r->var);
    if (!r->var)
        return RTC_ENOMEM;
    for (size_t i = 0; i < r->in->n_vars; i++) {
        char why[512] = "";
        int rc = rtc__xvar_parse(sys, r->in->var_spec[i], &r->var[r->n_var++], why,
                                 sizeof why);
        if (rc != RTC_OK) {
            snprintf(err, cap, "inputs.bin: exposed variable %zu: %s", i + 1, why);
            return RTC_EPARSE;
        }
    }
    return RTC_OK;
}

int rtc_replay_before_step(rtc_replay *r, int64_t k)
{
    const rtc_inputs *in = r->in;
    while (r->next_cmd < in->n_recs && in->recs[r->next_cmd].k < k)
        r->next_cmd++;
    for (; r->next_cmd < in->n_recs && in->recs[r->next_cmd].k == k; r->next_cmd++) {
        const rtc_inputs_rec *c = &in->recs[r->next_cmd];
        if (c->kind != RTC__KIND_COMMAND || c->op > RTC__OP_SAFE)
            continue; /* samples go through the feed; controls change nothing logical */
        int rc = rtc__xvar_apply(r->sys, &r->var[c->index], c->op, c->value);
        if (rc != RTC_OK)
            return rc;
    }
    return rtc__xvar_ramp(r->sys, r->var, r->n_var, in->tick_ns);
}

size_t rtc_replay_unconsumed(const rtc_replay *r)
{
    size_t left = r->skipped;
    for (size_t s = 0; s < r->in->n_signals; s++)
        left += r->count[s] - r->cursor[s];
    return left;
}
