/*
 * FMI 2.0 co-simulation units: rtc_unit_ops over an FMU's fmi2* functions.
 *
 * Types map as the standard defines them: FLOAT64 → fmi2Real, INT32 → fmi2Integer,
 * ENUM → fmi2Integer (widened to int64 here), BOOL → fmi2Boolean (an int in FMI 2),
 * STRING → fmi2String. BOOL and ENUM need conversion; the scratch arrays for it are sized
 * from the description at creation, so set/get/do_step never allocate.
 */
#include "fmu_priv.h"

#include "rtcosim/rtlog.h"
#include "rtcosim/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What set, get and do_step read leads (unit, api, c, scratch_n, setup): one or two cache
 * lines per call, not the log filter's message buffer in between. */
typedef struct fmi2_unit {
    rtc_unit unit;
    const rtc_fmi2_api *api;
    fmi2Component c;
    size_t scratch_n;
    fmi2Integer *iscratch;
    fmi2Boolean *bscratch;
    bool fatal; /* after a Fatal status the standard allows no further call */
    bool me;    /* instantiated for Model Exchange (me_unit.c steps it) */
    rtc_unit_setup setup;
    rtc_fmu *fmu;
    const rtc_logger *lg;
    char *name;
    fmi2CallbackFunctions cb;
    rtc__fmu_repeat rep;      /* the FMU's own messages: repeats counted (fmu_log.c) */
    const rtc_logger *fmu_lg; /* where they go: &rep.lg (or lg when it logs nothing) */
} fmi2_unit;

/* The FMU's logger: a printf-style message routed to the engine log. On a real-time thread
 * (bound to an rtlog) nothing is formatted here: the format and its arguments go to an
 * rtlog text slot (copied, truncated; see rtcosim/rtlog.h) and the drainer formats them. */
static void fmu_logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                       fmi2String category, fmi2String message, ...)
{
    fmi2_unit *u = env;
    int level = rtc__fmu_log_level((int)status);
    if (!u || !rtc_log_enabled(u->fmu_lg, level))
        return;
    va_list ap;
    va_start(ap, message);
    rtc_rtlog *rt = rtc_rtlog_thread();
    if (rt) {
        const char *prefix[] = {instance ? instance : u->name, " [", category ? category : "",
                                "]: ", NULL};
        rtc_rtlog_vtext(rt, u->fmu_lg, level, prefix, message ? message : "", ap);
    } else {
        char text[1024];
        vsnprintf(text, sizeof text, message ? message : "", ap);
        rtc__fmu_log_message(u->fmu_lg, instance ? instance : u->name, (int)status, category,
                             text);
    }
    va_end(ap);
}

static inline int check(fmi2_unit *u, const char *fn, fmi2Status st)
{
    if (st <= fmi2Warning) /* the usual return: no call on the step's path */
        return RTC_OK;
    if (st == fmi2Fatal)
        u->fatal = true;
    return rtc__fmu_check(u->name, fn, (int)st, u->lg);
}

static int u_instantiate(void *self, const rtc_unit_setup *setup)
{
    fmi2_unit *u = self;
    const rtc_model_desc *md = u->fmu->md;
    char res[PATH_MAX + 64], uri[3 * PATH_MAX + 16];
    snprintf(res, sizeof res, "%s/resources", u->fmu->dir);
    if (rtc__fmu_file_uri(res, uri, sizeof uri) != RTC_OK)
        return RTC_ELIMIT;
    u->setup = *setup;
    /* The standard declares the members const: build the table, then copy it into the
     * instance, where it must live as long as the FMU instance does. */
    const fmi2CallbackFunctions cb = {.logger = fmu_logger,
                                      .allocateMemory = calloc,
                                      .freeMemory = free,
                                      .stepFinished = NULL,
                                      .componentEnvironment = u};
    memcpy(&u->cb, &cb, sizeof cb);
    u->c = u->api->Instantiate(u->name, u->me ? fmi2ModelExchange : fmi2CoSimulation, md->guid,
                               uri, &u->cb, fmi2False,
                               setup->logging_on ? fmi2True : fmi2False);
    if (!u->c) {
        rtc_log(u->lg, RTC_LOG_ERROR, "%s: fmi2Instantiate failed (returned NULL)", u->name);
        return RTC_EFMU;
    }
    return RTC_OK;
}

static int u_enter_init(void *self)
{
    fmi2_unit *u = self;
    const rtc_unit_setup *s = &u->setup;
    int rc = check(u, "fmi2SetupExperiment",
                   u->api->SetupExperiment(u->c, s->tolerance_defined, s->tolerance,
                                           s->start_time_s, s->stop_time_defined,
                                           s->stop_time_s));
    if (rc != RTC_OK)
        return rc;
    return check(u, "fmi2EnterInitializationMode", u->api->EnterInitializationMode(u->c));
}

static int u_exit_init(void *self)
{
    fmi2_unit *u = self;
    return check(u, "fmi2ExitInitializationMode", u->api->ExitInitializationMode(u->c));
}

static int u_set(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, const void *values,
                 size_t n_values)
{
    fmi2_unit *u = self;
    if (n_values != n_vr || n_vr > u->scratch_n)
        return RTC_EINVAL;
    switch (type) {
    case RTC_TYPE_FLOAT64:
        return check(u, "fmi2SetReal", u->api->SetReal(u->c, vr, n_vr, values));
    case RTC_TYPE_INT32:
        return check(u, "fmi2SetInteger", u->api->SetInteger(u->c, vr, n_vr, values));
    case RTC_TYPE_ENUM:
        for (size_t i = 0; i < n_vr; i++)
            u->iscratch[i] = (fmi2Integer)((const int64_t *)values)[i];
        return check(u, "fmi2SetInteger", u->api->SetInteger(u->c, vr, n_vr, u->iscratch));
    case RTC_TYPE_BOOL:
        for (size_t i = 0; i < n_vr; i++)
            u->bscratch[i] = ((const bool *)values)[i] ? fmi2True : fmi2False;
        return check(u, "fmi2SetBoolean", u->api->SetBoolean(u->c, vr, n_vr, u->bscratch));
    case RTC_TYPE_STRING:
        return check(u, "fmi2SetString", u->api->SetString(u->c, vr, n_vr, values));
    default:
        return RTC_EUNSUPPORTED;
    }
}

static int u_get(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, void *values,
                 size_t n_values)
{
    fmi2_unit *u = self;
    int rc;
    if (n_values != n_vr || n_vr > u->scratch_n)
        return RTC_EINVAL;
    switch (type) {
    case RTC_TYPE_FLOAT64:
        return check(u, "fmi2GetReal", u->api->GetReal(u->c, vr, n_vr, values));
    case RTC_TYPE_INT32:
        return check(u, "fmi2GetInteger", u->api->GetInteger(u->c, vr, n_vr, values));
    case RTC_TYPE_ENUM:
        rc = check(u, "fmi2GetInteger", u->api->GetInteger(u->c, vr, n_vr, u->iscratch));
        for (size_t i = 0; rc == RTC_OK && i < n_vr; i++)
            ((int64_t *)values)[i] = u->iscratch[i];
        return rc;
    case RTC_TYPE_BOOL:
        rc = check(u, "fmi2GetBoolean", u->api->GetBoolean(u->c, vr, n_vr, u->bscratch));
        for (size_t i = 0; rc == RTC_OK && i < n_vr; i++)
            ((bool *)values)[i] = u->bscratch[i] != fmi2False;
        return rc;
    case RTC_TYPE_STRING:
        /* The strings stay owned by the FMU until its next call: callers copy them. */
        return check(u, "fmi2GetString", u->api->GetString(u->c, vr, n_vr, values));
    default:
        return RTC_EUNSUPPORTED;
    }
}

/* After fmi2Discard: ask whether the FMU wants to end, and where it stopped. */
static void discard_details(fmi2_unit *u, double t_s, rtc_step_result *res)
{
    fmi2Boolean terminated = fmi2False;
    if (u->api->GetBooleanStatus(u->c, fmi2Terminated, &terminated) > fmi2Warning)
        terminated = fmi2False;
    res->outcome = terminated ? RTC_STEP_TERMINATE : RTC_STEP_DISCARD;
    res->last_time_s = t_s;
    fmi2Real last;
    if (u->api->GetRealStatus &&
        u->api->GetRealStatus(u->c, fmi2LastSuccessfulTime, &last) <= fmi2Warning)
        res->last_time_s = last;
}

static int u_do_step(void *self, double t_s, double h_s, rtc_step_result *res)
{
    fmi2_unit *u = self;
    fmi2Status st = u->api->DoStep(u->c, t_s, h_s, u->setup.may_rollback ? fmi2False : fmi2True);
    res->event_needed = false;
    if (st <= fmi2Warning) {
        res->outcome = RTC_STEP_DONE;
        res->last_time_s = t_s + h_s;
        return RTC_OK;
    }
    if (st == fmi2Discard) {
        discard_details(u, t_s, res);
        return RTC_OK;
    }
    return check(u, "fmi2DoStep", st);
}

static int u_get_state(void *self, void **state)
{
    fmi2_unit *u = self;
    if (!u->api->GetFMUstate)
        return RTC_EUNSUPPORTED;
    return check(u, "fmi2GetFMUstate", u->api->GetFMUstate(u->c, (fmi2FMUstate *)state));
}

static int u_set_state(void *self, void *state)
{
    fmi2_unit *u = self;
    if (!u->api->SetFMUstate)
        return RTC_EUNSUPPORTED;
    return check(u, "fmi2SetFMUstate", u->api->SetFMUstate(u->c, state));
}

static int u_free_state(void *self, void **state)
{
    fmi2_unit *u = self;
    if (!u->api->FreeFMUstate || !*state)
        return RTC_OK;
    return check(u, "fmi2FreeFMUstate", u->api->FreeFMUstate(u->c, (fmi2FMUstate *)state));
}

static int u_terminate(void *self)
{
    fmi2_unit *u = self;
    int rc = check(u, "fmi2Terminate", u->api->Terminate(u->c));
    rtc__fmu_repeat_flush(&u->rep);
    return rc;
}

static void u_free(void *self)
{
    fmi2_unit *u = self;
    if (!u)
        return;
    if (u->c && !u->fatal)
        u->api->FreeInstance(u->c);
    rtc__fmu_unit_released(u->fmu);
    rtc__fmu_repeat_clear(&u->rep);
    free(u->iscratch);
    free(u->bscratch);
    free(u->name);
    free(u);
}

static const rtc_unit_ops fmi2_ops = {
    .kind = "fmi2-cs",
    .instantiate = u_instantiate,
    .enter_init = u_enter_init,
    .exit_init = u_exit_init,
    .set = u_set,
    .get = u_get,
    .do_step = u_do_step,
    .get_state = u_get_state,
    .set_state = u_set_state,
    .free_state = u_free_state,
    .terminate = u_terminate,
    .free = u_free,
};

void *rtc__fmi2_unit_instance(rtc_unit *unit, bool **fatal)
{
    fmi2_unit *u = unit->self;
    *fatal = &u->fatal;
    return u->c;
}

int rtc__fmi2_unit_new(rtc_fmu *fmu, const char *instance_name, bool me, const rtc_logger *lg,
                       rtc_unit **out)
{
    const rtc_model_desc *md = fmu->md;
    fmi2_unit *u = calloc(1, sizeof *u);
    if (!u)
        return RTC_ENOMEM;
    u->fmu = fmu;
    u->api = &fmu->api.fmi2;
    u->lg = lg;
    u->me = me;
    u->scratch_n = md->n_vars ? md->n_vars : 1;
    u->name = strdup(instance_name);
    u->iscratch = calloc(u->scratch_n, sizeof *u->iscratch);
    u->bscratch = calloc(u->scratch_n, sizeof *u->bscratch);
    if (!u->name || !u->iscratch || !u->bscratch) {
        free(u->name);
        free(u->iscratch);
        free(u->bscratch);
        free(u);
        return RTC_ENOMEM;
    }
    u->fmu_lg = rtc__fmu_repeat_init(&u->rep, u->name, lg);
    u->unit = (rtc_unit){
        .ops = &fmi2_ops, .self = u, .md = md, .name = u->name, .caps = rtc__fmu_caps(md, me)};
    *out = &u->unit;
    return RTC_OK;
}
