/*
 * wrap_state.c — FMU state snapshots (get/set/free/serialize/deserialize) and resource
 * location decoding for the test FMU wrappers.
 *
 * A snapshot is one flat block: a header (magic, sizes, token, the wrapper's time and
 * state) followed by a byte copy of the model struct. Models hold no pointers, so the same
 * block is its own serialized form and survives a process boundary on the same platform.
 * Getting a state into an existing block reuses it, so a host that rolls back every step
 * allocates only once.
 */
#include "wrap_core.h"

#include <string.h>

#define SNAP_MAGIC "RTCTMST1"
#define TOKEN_CAP 64

typedef struct snap_head {
    char magic[8];
    uint64_t total;      /**< bytes of the whole block */
    uint64_t model_size; /**< bytes of the model copy that follows */
    char token[TOKEN_CAP];
    double time, start_time, stop_time, last_ok_time;
    uint32_t phase;
    uint8_t stop_defined, terminate_requested;
} snap_head;

#define MODEL_OFFSET ((sizeof(snap_head) + 15u) & ~(size_t)15u)

size_t rtc__tm_state_size(const rtc_tm_inst *in)
{
    return MODEL_OFFSET + in->model->size;
}

/* Does buf hold a snapshot of this model? Logs why not. */
static bool snap_valid(rtc_tm_inst *in, const char *fn, const void *buf, size_t size)
{
    const snap_head *h = buf;
    if (!buf || size < sizeof *h || memcmp(h->magic, SNAP_MAGIC, 8) != 0 ||
        h->total != rtc__tm_state_size(in) || h->model_size != in->model->size ||
        strncmp(h->token, in->model->token, TOKEN_CAP - 1) != 0 || size < h->total) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "%s: not an FMU state of model %s (size %zu)", fn, in->model->name, size);
        return false;
    }
    return true;
}

rtc_tm_status rtc__tm_state_get(rtc_tm_inst *in, const char *fn, void **state)
{
    size_t size = rtc__tm_state_size(in);
    if (!rtc__tm_allowed(in, RTC_TM_PH_ANY, fn))
        return RTC_TM_ERROR;
    if (!state) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: NULL FMUstate pointer", fn);
        return RTC_TM_ERROR;
    }
    if (*state && !snap_valid(in, fn, *state, size))
        return RTC_TM_ERROR;
    snap_head *h = *state ? *state : in->alloc(1, size);
    if (!h) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: out of memory", fn);
        return RTC_TM_ERROR;
    }
    memset(h, 0, sizeof *h);
    memcpy(h->magic, SNAP_MAGIC, 8);
    h->total = size;
    h->model_size = in->model->size;
    strncpy(h->token, in->model->token, TOKEN_CAP - 1);
    h->time = in->time;
    h->start_time = in->start_time;
    h->stop_time = in->stop_time;
    h->last_ok_time = in->last_ok_time;
    h->phase = in->phase;
    h->stop_defined = in->stop_defined;
    h->terminate_requested = in->terminate_requested;
    memcpy((unsigned char *)h + MODEL_OFFSET, in->m, in->model->size);
    *state = h;
    return RTC_TM_OK;
}

rtc_tm_status rtc__tm_state_set(rtc_tm_inst *in, const char *fn, const void *state)
{
    if (!rtc__tm_allowed(in, RTC_TM_PH_ANY, fn) ||
        !snap_valid(in, fn, state, rtc__tm_state_size(in)))
        return RTC_TM_ERROR;
    const snap_head *h = state;
    in->time = h->time;
    in->start_time = h->start_time;
    in->stop_time = h->stop_time;
    in->last_ok_time = h->last_ok_time;
    in->phase = h->phase;
    in->stop_defined = h->stop_defined;
    in->terminate_requested = h->terminate_requested;
    memcpy(in->m, (const unsigned char *)h + MODEL_OFFSET, in->model->size);
    return RTC_TM_OK;
}

rtc_tm_status rtc__tm_state_free(rtc_tm_inst *in, const char *fn, void **state)
{
    if (!state) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: NULL FMUstate pointer", fn);
        return RTC_TM_ERROR;
    }
    if (*state)
        in->release(*state);
    *state = NULL;
    return RTC_TM_OK;
}

rtc_tm_status
rtc__tm_state_serialize(rtc_tm_inst *in, const char *fn, const void *state, void *buf, size_t size)
{
    size_t need = rtc__tm_state_size(in);
    if (!snap_valid(in, fn, state, need))
        return RTC_TM_ERROR;
    if (!buf || size != need) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "%s: buffer of %zu bytes, the serialized state has %zu", fn, size, need);
        return RTC_TM_ERROR;
    }
    memcpy(buf, state, need);
    return RTC_TM_OK;
}

rtc_tm_status rtc__tm_state_deserialize(
    rtc_tm_inst *in, const char *fn, const void *buf, size_t size, void **state)
{
    size_t need = rtc__tm_state_size(in);
    if (!state) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: NULL FMUstate pointer", fn);
        return RTC_TM_ERROR;
    }
    if (!snap_valid(in, fn, buf, size) || (*state && !snap_valid(in, fn, *state, need)))
        return RTC_TM_ERROR;
    void *dst = *state ? *state : in->alloc(1, need);
    if (!dst) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: out of memory", fn);
        return RTC_TM_ERROR;
    }
    memcpy(dst, buf, need);
    *state = dst;
    return RTC_TM_OK;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Drop trailing '/' (but keep a lone root). */
static void strip_slash(char *s)
{
    size_t n = strlen(s);
    while (n > 1 && s[n - 1] == '/')
        s[--n] = '\0';
}

int rtc__tm_uri_to_path(const char *uri, char *out, size_t cap)
{
    const char *p;
    if (!uri || cap == 0)
        return -1;
    /* RFC 8089 forms seen from real importers: file:///p, file://localhost/p, file:/p. */
    if (strncmp(uri, "file://localhost/", 17) == 0)
        p = uri + 16;
    else if (strncmp(uri, "file:///", 8) == 0)
        p = uri + 7;
    else if (strncmp(uri, "file:/", 6) == 0 && uri[6] != '/')
        p = uri + 5;
    else
        return -1;
    size_t n = 0;
    while (*p) {
        int c = (unsigned char)*p;
        if (c == '%') {
            int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);
            if (hi < 0 || lo < 0)
                return -1;
            c = hi * 16 + lo;
            p += 3;
        } else {
            p++;
        }
        if (n + 1 >= cap || c == 0)
            return -1;
        out[n++] = (char)c;
    }
    out[n] = '\0';
    strip_slash(out);
    return 0;
}

int rtc__tm_dir_copy(const char *dir, char *out, size_t cap)
{
    if (!dir || !*dir || strlen(dir) >= cap)
        return -1;
    memcpy(out, dir, strlen(dir) + 1);
    strip_slash(out);
    return 0;
}
