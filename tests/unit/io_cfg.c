/* Test config builder (see io_cfg.h). */
#include "io_cfg.h"

#include "rtcosim/time.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void io_cfg_init(io_cfg *c, const char *component)
{
    memset(c, 0, sizeof *c);
    c->cfg.component = strdup(component);
    c->cfg.settings = c->comp;
    c->cfg.signals = c->sig;
}

void io_cfg_set(io_cfg *c, const char *key, const char *value)
{
    rtc_kv *kv = &c->comp[c->cfg.n_settings++];
    kv->key = strdup(key);
    kv->value = strdup(value);
}

void io_cfg_set_int(io_cfg *c, const char *key, long value)
{
    char v[24];
    snprintf(v, sizeof v, "%ld", value);
    io_cfg_set(c, key, v);
}

size_t io_cfg_sig(io_cfg *c, const char *name, rtc_io_dir dir, rtc_type type, ...)
{
    size_t i = c->cfg.n_signals++;
    rtc_io_signal *s = &c->sig[i];
    s->name = strdup(name);
    s->dir = dir;
    s->type = type;
    s->settings = c->skv[i];
    rtc_mailbox_new(&s->mailbox);
    va_list ap;
    va_start(ap, type);
    const char *k;
    while ((k = va_arg(ap, const char *)) != NULL) {
        const char *v = va_arg(ap, const char *);
        c->skv[i][s->n_settings].key = strdup(k);
        c->skv[i][s->n_settings].value = strdup(v);
        s->n_settings++;
    }
    va_end(ap);
    return i;
}

void io_cfg_free(io_cfg *c)
{
    for (size_t k = 0; k < c->cfg.n_settings; k++) {
        free((char *)c->comp[k].key);
        free((char *)c->comp[k].value);
    }
    for (size_t i = 0; i < c->cfg.n_signals; i++) {
        for (size_t k = 0; k < c->sig[i].n_settings; k++) {
            free((char *)c->skv[i][k].key);
            free((char *)c->skv[i][k].value);
        }
        free((char *)c->sig[i].name);
        rtc_mailbox_free(c->sig[i].mailbox);
    }
    free((char *)c->cfg.component);
    memset(c, 0, sizeof *c);
}

void io_cfg_put(io_cfg *c, size_t i, double v)
{
    int64_t now = rtc_time_now_ns();
    rtc_sample s = {.value = v, .sample_ns = now, .arrival_ns = now,
                    .quality = RTC_QUALITY_FRESH};
    rtc_mailbox_write(c->sig[i].mailbox, &s);
}

rtc_sample io_cfg_get(io_cfg *c, size_t i)
{
    rtc_sample s = {0};
    rtc_mailbox_read(c->sig[i].mailbox, &s);
    return s;
}

/* ---- the Modbus codec cases ---- */

const codec_case CASES[] = {
    {"bool", "big", "false", 1.0, {0x0001}, "1", "0"},
    {"int16", "big", "false", -2.0, {0xFFFE}, "1", "0"},
    {"int16", "big", "true", -2.0, {0xFEFF}, "1", "0"},
    {"uint16", "big", "false", 65000.0, {0xFDE8}, "1", "0"},
    {"int32", "big", "false", -123456.0, {0xFFFE, 0x1DC0}, "1", "0"},
    {"int32", "little", "false", -123456.0, {0x1DC0, 0xFFFE}, "1", "0"},
    {"int32", "big", "true", -123456.0, {0xFEFF, 0xC01D}, "1", "0"},
    {"uint32", "big", "false", 3000000000.0, {0xB2D0, 0x5E00}, "1", "0"},
    {"uint32", "little", "true", 3000000000.0, {0x005E, 0xD0B2}, "1", "0"},
    {"float32", "big", "false", 1.5, {0x3FC0, 0x0000}, "1", "0"},
    {"float32", "little", "false", 1.5, {0x0000, 0x3FC0}, "1", "0"},
    {"float32", "little", "true", 1.5, {0x0000, 0xC03F}, "1", "0"},
    {"float32", "big", "true", -0.15625, {0x20BE, 0x0000}, "1", "0"},
    {"int64", "big", "false", -5.0, {0xFFFF, 0xFFFF, 0xFFFF, 0xFFFB}, "1", "0"},
    {"int64", "little", "false", -5.0, {0xFFFB, 0xFFFF, 0xFFFF, 0xFFFF}, "1", "0"},
    {"uint64", "big", "false", 1099511627783.0, {0x0000, 0x0100, 0x0000, 0x0007}, "1", "0"},
    {"uint64", "little", "true", 1099511627783.0, {0x0700, 0x0000, 0x0001, 0x0000}, "1", "0"},
    {"float64", "big", "false", -2.75, {0xC006, 0, 0, 0}, "1", "0"},
    {"float64", "little", "false", -2.75, {0, 0, 0, 0xC006}, "1", "0"},
    {"float64", "big", "true", -2.75, {0x06C0, 0, 0, 0}, "1", "0"},
    {"float64", "little", "true", -2.75, {0, 0, 0, 0x06C0}, "1", "0"},
    {"int16", "big", "false", 12.3, {0x007B}, "0.1", "0"},      /* raw 123 */
    {"uint16", "big", "false", 25.0, {0x0046}, "0.5", "-10"},   /* raw (25+10)/0.5 = 70 */
};
_Static_assert(sizeof CASES / sizeof CASES[0] == N_CASES, "N_CASES counts CASES");

int case_regs(const codec_case *c)
{
    if (strncmp(c->type, "int64", 5) == 0 || strncmp(c->type, "uint64", 6) == 0 ||
        strcmp(c->type, "float64") == 0)
        return 4;
    if (strstr(c->type, "32"))
        return 2;
    return 1;
}

void add_case_signals(io_cfg *c, const char *prefix, rtc_io_dir dir, int base)
{
    for (size_t k = 0; k < N_CASES; k++) {
        char name[32], addr[16];
        snprintf(name, sizeof name, "%s%zu", prefix, k);
        snprintf(addr, sizeof addr, "%d", base + 10 * (int)k);
        io_cfg_sig(c, name, dir, RTC_TYPE_FLOAT64, "table", "holding", "address", addr, "type",
                   CASES[k].type, "word_order", CASES[k].order, "byte_swap", CASES[k].swap,
                   "scale", CASES[k].scale, "offset", CASES[k].offset, NULL);
    }
}

bool io_cfg_all_written(void *arg)
{
    io_cfg_seq_wait *w = arg;
    for (size_t i = w->first; i < w->first + w->n; i++)
        if (rtc_mailbox_seq(w->c->sig[i].mailbox) == 0)
            return false;
    return true;
}
