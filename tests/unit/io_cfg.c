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
