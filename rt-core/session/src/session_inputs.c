/*
 * inputs.bin (format in rtcosim/session.h): encoding of records, the checked reader, and
 * the replay of recorded samples and commands (`rtcosim replay`).
 *
 * DESIGN: the reader trusts nothing — a session directory may have been copied, edited or
 * truncated — and names the first problem with the record number and byte offset. The
 * replay feeds each I/O signal's samples back at the tick whose refresh consumed them live
 * (the k of the record), through the same push-then-query path of io_unit.c, and applies
 * the recorded set/safe commands through session_apply.c exactly as the live RT hook did.
 */
#include "session_priv.h"

#include "rtcosim/driver.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Decoding never casts the buffer to a struct: the file is bytes in a fixed order,
 * whatever the reading machine's endianness and alignment. */
static uint64_t get_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

void rtc__inputs_encode(const rtc_inputs_rec *r, unsigned char out[RTC__INPUTS_RECORD])
{
    uint64_t bits;
    memcpy(&bits, &r->value, sizeof bits);
    memset(out, 0, RTC__INPUTS_RECORD);
    out[0] = r->kind;
    out[1] = r->op;
    put_le(out + 4, r->index, 4);
    put_le(out + 8, (uint64_t)r->k, 8);
    put_le(out + 16, bits, 8);
    put_le(out + 24, (uint64_t)r->a_ns, 8);
    put_le(out + 32, (uint64_t)r->b_ns, 8);
}

static void decode(const unsigned char *p, rtc_inputs_rec *r)
{
    uint64_t bits = get_le(p + 16, 8);
    *r = (rtc_inputs_rec){.kind = p[0], .op = p[1], .index = (uint32_t)get_le(p + 4, 4),
                          .k = (int64_t)get_le(p + 8, 8), .a_ns = (int64_t)get_le(p + 24, 8),
                          .b_ns = (int64_t)get_le(p + 32, 8)};
    memcpy(&r->value, &bits, sizeof bits);
}

const char *rtc_inputs_op_name(unsigned op)
{
    static const char *const names[] = {"?", "set", "safe", "pause", "resume", "step", "stop"};
    return op < 7 ? names[op] : "?";
}

/* A length-prefixed string of the header at *pos (bounded by end). */
static char *take_str(const unsigned char *buf, size_t end, size_t *pos)
{
    if (*pos + 2 > end)
        return NULL;
    size_t n = (size_t)get_le(buf + *pos, 2);
    if (*pos + 2 + n > end)
        return NULL;
    char *s = strndup((const char *)buf + *pos + 2, n);
    *pos += 2 + n;
    return s;
}

/* Every size in the header is checked against the file before it is used: a corrupt
 * count must give a message, not a huge allocation or a read past the end. */
static int read_header(const unsigned char *b, size_t size, rtc_inputs *in, size_t *hdr,
                       char *err, size_t cap)
{
    if (size < RTC__INPUTS_HEADER || memcmp(b, RTC__INPUTS_MAGIC, 8) != 0) {
        snprintf(err, cap, "inputs.bin: bad magic: not an rtcosim inputs file (expected "
                 "\"RTCINPUT\" in the first 8 bytes)");
        return RTC_EPARSE;
    }
    uint32_t version = (uint32_t)get_le(b + 8, 4), recsz = (uint32_t)get_le(b + 16, 4);
    *hdr = (size_t)get_le(b + 12, 4);
    if (version != RTC__INPUTS_VERSION || recsz != RTC__INPUTS_RECORD) {
        snprintf(err, cap, "inputs.bin: version %u with %u-byte records is not supported "
                 "(expected version %d, %d bytes)", version, recsz, RTC__INPUTS_VERSION,
                 RTC__INPUTS_RECORD);
        return RTC_EPARSE;
    }
    in->n_signals = (size_t)get_le(b + 20, 4);
    in->n_vars = (size_t)get_le(b + 24, 4);
    in->tick_ns = (int64_t)get_le(b + 32, 8);
    in->start_ns = (int64_t)get_le(b + 40, 8);
    if (*hdr < RTC__INPUTS_HEADER || *hdr > size || *hdr % 8 || in->tick_ns <= 0 ||
        in->n_signals > *hdr || in->n_vars > *hdr) {
        snprintf(err, cap, "inputs.bin: corrupt header (header size %zu, file size %zu, tick "
                 "%lld ns)", *hdr, size, (long long)in->tick_ns);
        return RTC_EPARSE;
    }
    in->sig_unit = calloc(in->n_signals + 1, sizeof *in->sig_unit);
    in->sig_name = calloc(in->n_signals + 1, sizeof *in->sig_name);
    in->var_spec = calloc(in->n_vars + 1, sizeof *in->var_spec);
    if (!in->sig_unit || !in->sig_name || !in->var_spec)
        return RTC_ENOMEM;
    size_t pos = RTC__INPUTS_HEADER;
    bool ok = true;
    for (size_t i = 0; ok && i < in->n_signals; i++)
        ok = (in->sig_unit[i] = take_str(b, *hdr, &pos)) && (in->sig_name[i] = take_str(b, *hdr, &pos));
    for (size_t i = 0; ok && i < in->n_vars; i++)
        ok = (in->var_spec[i] = take_str(b, *hdr, &pos)) != NULL;
    if (!ok) {
        snprintf(err, cap, "inputs.bin: the signal/variable tables run past the header");
        return RTC_EPARSE;
    }
    return RTC_OK;
}

/* One record's consistency with the tables and with the record before it. */
static int check_rec(const rtc_inputs *in, const rtc_inputs_rec *r, size_t i, size_t off,
                     int64_t prev_k, char *err, size_t cap)
{
    const char *bad = NULL;
    char why[200];
    if (r->kind < RTC__KIND_SAMPLE || r->kind > RTC__KIND_PROGRESS)
        snprintf(why, sizeof why, "unknown kind %u", r->kind), bad = why;
    else if (r->k < 0 || r->k < prev_k)
        snprintf(why, sizeof why, "step %lld after step %lld (out of order)", (long long)r->k,
                 (long long)prev_k), bad = why;
    else if (r->k > INT64_MAX / in->tick_ns) /* the replay computes k·tick */
        snprintf(why, sizeof why, "step %lld of a %lld ns tick is past the time range (k·tick "
                 "overflows 64-bit nanoseconds)", (long long)r->k, (long long)in->tick_ns),
            bad = why;
    else if (r->kind == RTC__KIND_SAMPLE && r->index >= in->n_signals)
        snprintf(why, sizeof why, "unknown signal index %u (the table has %zu signals)",
                 r->index, in->n_signals), bad = why;
    else if (r->kind == RTC__KIND_COMMAND && (r->op < RTC__OP_SET || r->op > RTC_SESSION_STOP))
        snprintf(why, sizeof why, "unknown command op %u", r->op), bad = why;
    else if (r->kind == RTC__KIND_COMMAND && r->op <= RTC__OP_SAFE && r->index >= in->n_vars)
        snprintf(why, sizeof why, "unknown variable index %u (the table has %zu variables)",
                 r->index, in->n_vars), bad = why;
    else if (in->has_end)
        snprintf(why, sizeof why, "record after the end record"), bad = why;
    if (bad)
        snprintf(err, cap, "inputs.bin: record %zu at offset %zu: %s", i + 1, off, bad);
    return bad ? RTC_EPARSE : RTC_OK;
}

/* A partial record at the end means the file was cut (a crash, a full disk, a copy
 * interrupted): refused as a whole, since the replay would silently miss inputs. */
static int read_records(const unsigned char *b, size_t size, size_t hdr, rtc_inputs *in,
                        char *err, size_t cap)
{
    size_t body = size - hdr, n = body / RTC__INPUTS_RECORD;
    if (body % RTC__INPUTS_RECORD) {
        snprintf(err, cap, "inputs.bin: truncated record at offset %zu (%zu of %d bytes)",
                 hdr + n * RTC__INPUTS_RECORD, body % RTC__INPUTS_RECORD, RTC__INPUTS_RECORD);
        return RTC_EPARSE;
    }
    in->recs = calloc(n + 1, sizeof *in->recs);
    if (!in->recs)
        return RTC_ENOMEM;
    int64_t prev = 0;
    in->progress_k = -1;
    for (size_t i = 0; i < n; i++) {
        rtc_inputs_rec *r = &in->recs[in->n_recs]; /* samples and commands only */
        size_t off = hdr + i * RTC__INPUTS_RECORD;
        decode(b + off, r);
        int rc = check_rec(in, r, i, off, prev, err, cap);
        if (rc != RTC_OK)
            return rc;
        prev = r->k;
        if (r->kind == RTC__KIND_END) {
            in->has_end = true;
            in->end_k = r->k;
        } else if (r->kind == RTC__KIND_PROGRESS) {
            in->progress_k = r->k;
        } else {
            in->n_recs++;
        }
    }
    return RTC_OK;
}

int rtc_inputs_read(const char *path, rtc_inputs *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        int rc = rtc_status_from_errno(errno);
        snprintf(err, cap, "%s: cannot open: %s", path, rtc_strerror(rc));
        return rc;
    }
    unsigned char *b = NULL;
    size_t size = 0, capb = 0, n;
    int rc = RTC_OK;
    do {
        if (size + 65536 > capb) {
            unsigned char *nb = realloc(b, capb = capb * 2 + 65536);
            if (!nb) {
                rc = RTC_ENOMEM;
                break;
            }
            b = nb;
        }
        n = fread(b + size, 1, capb - size, f);
        size += n;
    } while (n > 0);
    fclose(f);
    size_t hdr = 0;
    if (rc == RTC_OK)
        rc = read_header(b, size, out, &hdr, err, cap);
    if (rc == RTC_OK)
        rc = read_records(b, size, hdr, out, err, cap);
    free(b);
    if (rc != RTC_OK)
        rtc_inputs_clear(out);
    return rc;
}

void rtc_inputs_clear(rtc_inputs *in)
{
    for (size_t i = 0; in->sig_unit && i < in->n_signals; i++)
        free(in->sig_unit[i]);
    for (size_t i = 0; in->sig_name && i < in->n_signals; i++)
        free(in->sig_name[i]);
    for (size_t i = 0; in->var_spec && i < in->n_vars; i++)
        free(in->var_spec[i]);
    free(in->sig_unit);
    free(in->sig_name);
    free(in->var_spec);
    free(in->recs);
    memset(in, 0, sizeof *in);
}
