/*
 * Result columns. Columns are grouped into "fetch groups" — one per (unit, type) — so a row
 * costs one get call per group, not one per column. Each group owns a slice of the row
 * buffer; columns remember where their element lives in that slice, so writing a row
 * walks the columns in the user's order while fetching walks the groups.
 *
 * Writing is the recorder thread's whole job, so its per-row cost is kept to the
 * formatting itself: layout() resolves every column to its type and byte offsets once,
 * and a row is formatted straight into room reserved for the longest possible row (one
 * bounds check per row, not per field).
 */
#include "rtcosim/record.h"
#include "rtcosim/numfmt.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR_CAP RTC_MAX_STRING_BYTES /* bytes kept per string value in a row */
#define BIN_CAP RTC_MAX_BINARY_BYTES /* bytes kept per binary value in a row */

typedef struct group {
    const rtc_unit *unit;
    rtc_type type;
    size_t n_vr, n_values;
    uint32_t *vr;
    size_t offset; /* of the typed value array in the row */
    size_t copy_offset; /* of the string/binary copies in the row */
    bool indirect;      /* strings, binaries: the get returns pointers (sample_indirect) */
} group;

typedef struct column {
    char *name;
    size_t group;
    size_t element;   /* index in the group's value array */
    const char *unit; /* the variable's unit (its unit's description owns it), or NULL */
    /* resolved by layout(): */
    rtc_type type;
    size_t at;      /* offset of the value in the row */
    size_t copy_at; /* strings/binaries: offset of the copy in the row */
} column;

struct rtc_record {
    size_t n_groups, n_columns;
    group *groups;
    column *columns;
    size_t row_size;
    size_t text_max; /* the longest text of one row, newline included */
    void *scratch;   /* pointer arrays for string/binary gets */
};

int rtc_record_new(rtc_record **out)
{
    rtc_record *rec = calloc(1, sizeof *rec);
    if (!rec)
        return RTC_ENOMEM;
    *out = rec;
    return RTC_OK;
}

void rtc_record_free(rtc_record *rec)
{
    if (!rec)
        return;
    for (size_t i = 0; i < rec->n_groups; i++)
        free(rec->groups[i].vr);
    for (size_t i = 0; i < rec->n_columns; i++)
        free(rec->columns[i].name);
    free(rec->groups);
    free(rec->columns);
    free(rec->scratch);
    free(rec);
}

/* Bytes a group occupies in the row: the typed array, plus copies for strings/binaries. */
static size_t group_bytes(const group *g)
{
    size_t n = g->n_values * rtc_type_size(g->type);
    if (g->type == RTC_TYPE_STRING)
        n += g->n_values * STR_CAP;
    else if (g->type == RTC_TYPE_BINARY)
        n += g->n_values * BIN_CAP;
    return (n + 15) & ~(size_t)15;
}

/* The longest text of a value of type @p t, its separator included. */
static size_t text_bytes(rtc_type t)
{
    switch (t) {
    case RTC_TYPE_BOOL: return 2;
    case RTC_TYPE_STRING: return 1 + 2 * STR_CAP + 2; /* every quote doubled */
    case RTC_TYPE_BINARY: return 1 + 2 * BIN_CAP;
    default: return 1 + RTC_NUMFMT_MAX; /* the formatters' room */
    }
}

/* Recompute every group's offsets and every column's place (called after each add; load
 * phase only). */
static int layout(rtc_record *rec)
{
    size_t off = 0, max_ptrs = 0;
    for (size_t i = 0; i < rec->n_groups; i++) {
        group *g = &rec->groups[i];
        g->offset = off;
        g->copy_offset = off + g->n_values * rtc_type_size(g->type);
        off += group_bytes(g);
        if (g->n_values > max_ptrs)
            max_ptrs = g->n_values;
    }
    rec->text_max = RTC_NUMFMT_MAX + 1; /* the time and the newline */
    for (size_t i = 0; i < rec->n_columns; i++) {
        column *c = &rec->columns[i];
        const group *g = &rec->groups[c->group];
        size_t cap = g->type == RTC_TYPE_STRING ? STR_CAP : BIN_CAP;
        c->type = g->type;
        c->at = g->offset + c->element * rtc_type_size(g->type);
        c->copy_at = g->copy_offset + c->element * cap;
        rec->text_max += text_bytes(g->type);
    }
    rec->row_size = off ? off : 16;
    free(rec->scratch);
    rec->scratch = calloc(max_ptrs ? max_ptrs : 1, sizeof(rtc_binary));
    return rec->scratch ? RTC_OK : RTC_ENOMEM;
}

static group *find_group(rtc_record *rec, const rtc_unit *unit, rtc_type type)
{
    for (size_t i = 0; i < rec->n_groups; i++)
        if (rec->groups[i].unit == unit && rec->groups[i].type == type)
            return &rec->groups[i];
    group *gs = realloc(rec->groups, (rec->n_groups + 1) * sizeof *gs);
    if (!gs)
        return NULL;
    rec->groups = gs;
    group *g = &gs[rec->n_groups++];
    *g = (group){.unit = unit, .type = type,
                 .indirect = type == RTC_TYPE_STRING || type == RTC_TYPE_BINARY};
    return g;
}

/* "name[i,j]" for element @p e of a variable with the given dimensions (1-based). */
static char *element_name(const char *prefix, const char *base, const rtc_var *v, size_t e)
{
    char idx[128] = "";
    if (v->n_dims > 0) {
        size_t pos = 0, rem = e, stride = rtc_var_count(v);
        idx[pos++] = '[';
        for (size_t d = 0; d < v->n_dims && pos < sizeof idx - 24; d++) {
            stride /= (size_t)v->dims[d].start;
            pos += (size_t)snprintf(idx + pos, sizeof idx - pos, "%s%zu", d ? "," : "",
                                    rem / stride + 1);
            rem %= stride;
        }
        snprintf(idx + pos, sizeof idx - pos, "]");
    }
    char *name;
    if (asprintf(&name, "%s%s%s", prefix ? prefix : "", base, idx) < 0)
        return NULL;
    return name;
}

int rtc_record_add(rtc_record *rec, const rtc_unit *unit, size_t var_index, const char *prefix)
{
    return rtc_record_add_as(rec, unit, var_index, prefix,
                             unit->md->vars[var_index].name);
}

int rtc_record_add_as(rtc_record *rec, const rtc_unit *unit, size_t var_index,
                      const char *prefix, const char *name)
{
    const rtc_var *v = &unit->md->vars[var_index];
    if (v->type == RTC_TYPE_CLOCK)
        return RTC_EUNSUPPORTED;
    size_t count = rtc_var_count(v);
    group *g = find_group(rec, unit, v->type);
    if (!g)
        return RTC_ENOMEM;
    uint32_t *vr = realloc(g->vr, (g->n_vr + 1) * sizeof *vr);
    column *cols = realloc(rec->columns, (rec->n_columns + count) * sizeof *cols);
    if (vr)
        g->vr = vr;
    if (cols)
        rec->columns = cols;
    if (!vr || !cols)
        return RTC_ENOMEM;
    g->vr[g->n_vr++] = v->vr;
    size_t gi = (size_t)(g - rec->groups);
    for (size_t e = 0; e < count; e++) {
        char *col = element_name(prefix, name, v, e);
        if (!col)
            return RTC_ENOMEM;
        rec->columns[rec->n_columns++] = (column){.name = col, .group = gi,
                                                  .element = g->n_values + e, .unit = v->unit};
    }
    g->n_values += count;
    return layout(rec);
}

int rtc_record_add_outputs(rtc_record *rec, const rtc_unit *unit, const char *prefix)
{
    for (size_t i = 0; i < unit->md->n_vars; i++) {
        const rtc_var *v = &unit->md->vars[i];
        if (v->causality != RTC_CAUSALITY_OUTPUT || v->type == RTC_TYPE_CLOCK)
            continue;
        int rc = rtc_record_add(rec, unit, i, prefix);
        if (rc != RTC_OK)
            return rc;
    }
    return RTC_OK;
}

size_t rtc_record_columns(const rtc_record *rec)
{
    return rec->n_columns;
}

size_t rtc_record_row_size(const rtc_record *rec)
{
    return rec->row_size;
}

void rtc_record_write_header(const rtc_record *rec, rtc_csv *csv)
{
    rtc_csv_str(csv, "time");
    for (size_t i = 0; i < rec->n_columns; i++)
        rtc_csv_str(csv, rec->columns[i].name);
    rtc_csv_end_row(csv);
}

/* The string and binary groups of a row: the unit's pointers, copied into the row. */
static int sample_indirect(rtc_record *rec, const group *g, char *r)
{
    const rtc_unit *u = g->unit;
    int rc = u->ops->get(u->self, g->type, g->vr, g->n_vr, rec->scratch, g->n_values);
    if (rc == RTC_OK) /* they point into the unit's memory: copies go into the row */
        rtc_value_copy_indirect(g->type, rec->scratch, r + g->offset, g->n_values,
                                r + g->copy_offset,
                                g->type == RTC_TYPE_STRING ? STR_CAP : BIN_CAP);
    return rc;
}

int rtc_record_sample(rtc_record *rec, void *row)
{
    char *r = row;
    const group *g = rec->groups, *end = g + rec->n_groups;
    for (; g < end; g++) { /* the stepping thread's per-row work: kept to the get calls */
        int rc = g->indirect ? sample_indirect(rec, g, r)
                             : g->unit->ops->get(g->unit->self, g->type, g->vr, g->n_vr,
                                                 r + g->offset, g->n_values);
        if (rc != RTC_OK)
            return rc;
    }
    return RTC_OK;
}

const char *rtc_record_column_name(const rtc_record *rec, size_t i)
{
    return i < rec->n_columns ? rec->columns[i].name : NULL;
}

const char *rtc_record_column_unit(const rtc_record *rec, size_t i)
{
    return i < rec->n_columns ? rec->columns[i].unit : NULL;
}

bool rtc_record_column_double(const rtc_record *rec, const void *row, size_t i, double *out)
{
    if (i >= rec->n_columns)
        return false;
    const column *c = &rec->columns[i];
    const group *g = &rec->groups[c->group];
    if (g->type == RTC_TYPE_STRING || g->type == RTC_TYPE_BINARY || g->type == RTC_TYPE_CLOCK)
        return false;
    rtc_value v = rtc_value_load(g->type, (const char *)row + g->offset, c->element);
    switch (g->type) {
    case RTC_TYPE_FLOAT64: *out = v.f64; break;
    case RTC_TYPE_FLOAT32: *out = v.f32; break;
    case RTC_TYPE_BOOL: *out = v.b ? 1.0 : 0.0; break;
    case RTC_TYPE_UINT8: case RTC_TYPE_UINT16: case RTC_TYPE_UINT32:
    case RTC_TYPE_UINT64: *out = (double)v.u64; break;
    default: *out = (double)v.i64; break;
    }
    return true;
}

/* Format the value of column @p c of row @p r at @p p; returns the length. Strings and
 * binaries are read from the row's own copies, never through the pointers the unit
 * returned, so a row stays valid after being copied (e.g. through a ring). */
static size_t format_value(const column *c, const char *r, char *p)
{
    const void *v = r + c->at;
    switch (c->type) {
    case RTC_TYPE_FLOAT64: return rtc_fmt_double(*(const double *)v, p);
    case RTC_TYPE_FLOAT32: return rtc_fmt_double(*(const float *)v, p);
    case RTC_TYPE_INT8: return rtc_fmt_i64(*(const int8_t *)v, p);
    case RTC_TYPE_UINT8: return rtc_fmt_u64(*(const uint8_t *)v, p);
    case RTC_TYPE_INT16: return rtc_fmt_i64(*(const int16_t *)v, p);
    case RTC_TYPE_UINT16: return rtc_fmt_u64(*(const uint16_t *)v, p);
    case RTC_TYPE_INT32: return rtc_fmt_i64(*(const int32_t *)v, p);
    case RTC_TYPE_UINT32: return rtc_fmt_u64(*(const uint32_t *)v, p);
    case RTC_TYPE_INT64:
    case RTC_TYPE_ENUM: return rtc_fmt_i64(*(const int64_t *)v, p);
    case RTC_TYPE_UINT64: return rtc_fmt_u64(*(const uint64_t *)v, p);
    case RTC_TYPE_BOOL: *p = *(const bool *)v ? '1' : '0'; return 1;
    case RTC_TYPE_STRING: return rtc_csv_quote(p, r + c->copy_at);
    case RTC_TYPE_BINARY:
        return rtc_csv_hex_text(p, (const uint8_t *)r + c->copy_at,
                                ((const rtc_binary *)v)->size);
    default: return 0; /* clocks are never columns */
    }
}

void rtc_record_write_row(const rtc_record *rec, rtc_csv *csv, int64_t t_ns, const void *row)
{
    char *p = rtc_csv_row_room(csv, rec->text_max), *start = p;
    if (!p)
        return; /* out of memory: the writer's error, reported by the recorder */
    p += rtc_fmt_time_ns(t_ns, p);
    for (size_t i = 0; i < rec->n_columns; i++) {
        *p++ = ',';
        p += format_value(&rec->columns[i], row, p);
    }
    *p++ = '\n';
    rtc_csv_row_done(csv, (size_t)(p - start));
}
