/*
 * fmi2_wrap.c — generic FMI 2.0 Co-Simulation wrapper around one test model (model.h).
 *
 * Exports every common and Co-Simulation function of FMI 2.0 (and nothing else: the
 * library is built with -fvisibility=hidden). Behaviour a host can rely on:
 *   - fmi2Instantiate returns NULL (with a logged reason when a logger exists) for an empty
 *     instanceName, a fmuType other than fmi2CoSimulation, a GUID that differs from the
 *     modelDescription's, missing logger, or an unreadable resource folder;
 *   - instance memory comes from functions->allocateMemory when given (else calloc), once;
 *   - calls out of sequence return fmi2Error "illegal call sequence" and change nothing;
 *   - fmi2DoStep rejects a communication point that drifts from the FMU's own time,
 *     h <= 0 and steps past a defined stopTime (fmi2Error, nothing changed);
 *   - a model's termination request makes fmi2DoStep return fmi2Discard; then
 *     fmi2GetBooleanStatus(fmi2Terminated) is fmi2True and fmi2GetRealStatus(
 *     fmi2LastSuccessfulTime) the time reached;
 *   - no allocation in fmi2DoStep, fmi2Get*, fmi2Set*.
 * Build with -DRTC_TEST_OMIT_DOSTEP to leave fmi2DoStep out (the NoSymbol loader fixture).
 */
#define RTC_FMI2_EXPORT __attribute__((visibility("default")))
#include "rtc_fmi2.h"
#include "wrap_core.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fmi2_inst {
    rtc_tm_inst core; /* first: the core and the wrapper share the pointer */
    const fmi2CallbackFunctions *cb;
    bool setup_done; /* fmi2SetupExperiment called since instantiate/reset */
    double start_time, stop_time;
    bool stop_defined;
} fmi2_inst;

/* Masks of storage types reachable through each FMI 2 type. */
#define MASK_REAL (1u << RTC_TM_F64)
#define MASK_INTEGER ((1u << RTC_TM_I32) | (1u << RTC_TM_ENUM))
#define MASK_BOOLEAN (1u << RTC_TM_BOOL)
#define MASK_STRING (1u << RTC_TM_STR)

#define GET_INST(c)                                                                                \
    rtc_tm_inst *in = (rtc_tm_inst *)(c);                                                          \
    if (!in)                                                                                       \
    return fmi2Error

static void emit2(rtc_tm_inst *in, rtc_tm_status st, const char *cat, const char *msg)
{
    const fmi2CallbackFunctions *cb = ((fmi2_inst *)in)->cb;
    /* The logger's message is a format: pass ours as an argument so '%' stays literal. */
    cb->logger(cb->componentEnvironment, in->name, (fmi2Status)st, cat, "%s", msg);
}

static void step_emit2(rtc_tm_inst *in, long k, double t, const char *what)
{
    const fmi2CallbackFunctions *cb = ((fmi2_inst *)in)->cb;
    /* the host formats: a real printf-style call with a long, a double and a string */
    cb->logger(cb->componentEnvironment, in->name, fmi2Warning, RTC_TM_LOG_WARNING,
               "step %ld from t = %.6f s: %s (100%%)", k, t, what);
}

/* Report an instantiation failure before an instance exists. */
static void
early_error(const fmi2CallbackFunctions *f, const char *name, const char *what, const char *arg)
{
    char msg[RTC_TM_MSG_CAP];
    snprintf(msg, sizeof msg, "fmi2Instantiate: %s%s", what, arg ? arg : "");
    f->logger(f->componentEnvironment, name ? name : "", fmi2Error, RTC_TM_LOG_ERROR, "%s", msg);
}

static bool blank(const char *s)
{
    for (; s && *s; s++)
        if (!isspace((unsigned char)*s))
            return false;
    return true;
}

const char *fmi2GetTypesPlatform(void)
{
    return fmi2TypesPlatform;
}

const char *fmi2GetVersion(void)
{
    return fmi2Version;
}

/* Argument checks of fmi2Instantiate; logs and returns false on the first problem. */
static bool
instantiate_args_ok(fmi2String name, fmi2Type type, fmi2String guid, const fmi2CallbackFunctions *f)
{
    const rtc_tm_model *md = &rtc_tm_model_def;
    if (blank(name)) {
        early_error(f, name, "instanceName must be a non-empty string", NULL);
        return false;
    }
    if (type != fmi2CoSimulation && !(type == fmi2ModelExchange && md->me)) {
        early_error(f, name, "only fmi2CoSimulation is supported by ", md->name);
        return false;
    }
    if (type == fmi2CoSimulation && !md->step) {
        early_error(f, name, "no Co-Simulation interface in ", md->name);
        return false;
    }
    if (!guid || strcmp(guid, md->token) != 0) {
        early_error(f, name, "GUID does not match the modelDescription: ", guid ? guid : "(null)");
        return false;
    }
    if (!f->allocateMemory != !f->freeMemory) {
        early_error(f, name, "allocateMemory and freeMemory must be given together", NULL);
        return false;
    }
    return true;
}

fmi2Component fmi2Instantiate(fmi2String instanceName,
                              fmi2Type fmuType,
                              fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
    const rtc_tm_model *md = &rtc_tm_model_def;
    char dir[PATH_MAX];
    const char *res = NULL;
    (void)visible;
    if (!functions || !functions->logger)
        return NULL; /* nobody to tell: a real exporter fails silently here too */
    if (!instantiate_args_ok(instanceName, fmuType, fmuGUID, functions))
        return NULL;
    if (md->needs_resources) {
        if (rtc__tm_uri_to_path(fmuResourceLocation, dir, sizeof dir) != 0) {
            early_error(functions, instanceName, "cannot use fmuResourceLocation ",
                        fmuResourceLocation ? fmuResourceLocation : "(null)");
            return NULL;
        }
        res = dir;
    }
    size_t size = rtc__tm_alloc_size(md, sizeof(fmi2_inst));
    void *(*alloc)(size_t, size_t) = functions->allocateMemory ? functions->allocateMemory : calloc;
    fmi2_inst *x = alloc(1, size);
    if (!x) {
        early_error(functions, instanceName, "out of memory", NULL);
        return NULL;
    }
    x->cb = functions;
    x->core.fmi = "fmi2";
    x->core.emit = emit2;
    x->core.step_emit = step_emit2;
    x->core.alloc = alloc;
    x->core.release = functions->freeMemory ? functions->freeMemory : free;
    if (rtc__tm_init(&x->core, sizeof *x, instanceName, loggingOn, res) != 0) {
        x->core.release(x);
        return NULL;
    }
    x->core.me = fmuType == fmi2ModelExchange;
    return x;
}

void fmi2FreeInstance(fmi2Component c)
{
    rtc_tm_inst *in = c;
    if (in)
        in->release(in);
}

fmi2Status fmi2SetDebugLogging(fmi2Component c,
                               fmi2Boolean loggingOn,
                               size_t nCategories,
                               const fmi2String categories[])
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_set_debug_logging(in, "fmi2SetDebugLogging", loggingOn != fmi2False,
                                                 nCategories, categories);
}

fmi2Status fmi2SetupExperiment(fmi2Component c,
                               fmi2Boolean toleranceDefined,
                               fmi2Real tolerance,
                               fmi2Real startTime,
                               fmi2Boolean stopTimeDefined,
                               fmi2Real stopTime)
{
    GET_INST(c);
    fmi2_inst *x = c;
    (void)toleranceDefined;
    (void)tolerance;
    if (!rtc__tm_allowed(in, RTC_TM_PH_INSTANTIATED, "fmi2SetupExperiment"))
        return fmi2Error;
    x->setup_done = true;
    x->start_time = startTime;
    x->stop_defined = stopTimeDefined != fmi2False;
    x->stop_time = stopTime;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    GET_INST(c);
    fmi2_inst *x = c;
    if (!x->setup_done && in->phase == RTC_TM_PH_INSTANTIATED) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "fmi2EnterInitializationMode: illegal call sequence "
                     "(fmi2SetupExperiment was not called)");
        return fmi2Error;
    }
    return (fmi2Status)rtc__tm_enter_init(in, "fmi2EnterInitializationMode", x->start_time,
                                          x->stop_defined, x->stop_time);
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_exit_init(in, "fmi2ExitInitializationMode");
}

fmi2Status fmi2Terminate(fmi2Component c)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_terminate(in, "fmi2Terminate");
}

fmi2Status fmi2Reset(fmi2Component c)
{
    GET_INST(c);
    rtc_tm_status st = rtc__tm_reset(in, "fmi2Reset");
    if (st == RTC_TM_OK)
        ((fmi2_inst *)c)->setup_done = false;
    return (fmi2Status)st;
}

/* Common head of every get/set: instance, value pointer and whole-call validation. */
static rtc_tm_status access_ok(rtc_tm_inst *in,
                               const char *fn,
                               const fmi2ValueReference vr[],
                               size_t nvr,
                               const void *value,
                               unsigned mask,
                               bool set)
{
    if (nvr > 0 && !value) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: NULL value array", fn);
        return RTC_TM_ERROR;
    }
    return rtc__tm_check_access(in, fn, vr, nvr, mask, nvr, set);
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[])
{
    GET_INST(c);
    if (access_ok(in, "fmi2GetReal", vr, nvr, value, MASK_REAL, false) != RTC_TM_OK)
        return fmi2Error;
    for (size_t i = 0; i < nvr; i++)
        value[i] = *(const double *)rtc__tm_ptr(in, rtc__tm_find(in->model, vr[i]));
    return fmi2OK;
}

fmi2Status
fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[])
{
    GET_INST(c);
    if (access_ok(in, "fmi2GetInteger", vr, nvr, value, MASK_INTEGER, false) != RTC_TM_OK)
        return fmi2Error;
    for (size_t i = 0; i < nvr; i++) {
        const rtc_tm_var *v = rtc__tm_find(in->model, vr[i]);
        const void *p = rtc__tm_ptr(in, v);
        /* Enumerations are stored as int64 (FMI 3's type) and narrowed here. */
        value[i] = v->type == RTC_TM_I32 ? *(const int32_t *)p : (fmi2Integer) * (const int64_t *)p;
    }
    return fmi2OK;
}

fmi2Status
fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[])
{
    GET_INST(c);
    if (access_ok(in, "fmi2GetBoolean", vr, nvr, value, MASK_BOOLEAN, false) != RTC_TM_OK)
        return fmi2Error;
    for (size_t i = 0; i < nvr; i++)
        value[i] =
            *(const bool *)rtc__tm_ptr(in, rtc__tm_find(in->model, vr[i])) ? fmi2True : fmi2False;
    return fmi2OK;
}

fmi2Status
fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[])
{
    GET_INST(c);
    if (access_ok(in, "fmi2GetString", vr, nvr, value, MASK_STRING, false) != RTC_TM_OK)
        return fmi2Error;
    for (size_t i = 0; i < nvr; i++)
        value[i] = rtc__tm_ptr(in, rtc__tm_find(in->model, vr[i]));
    return fmi2OK;
}

fmi2Status
fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[])
{
    GET_INST(c);
    if (access_ok(in, "fmi2SetReal", vr, nvr, value, MASK_REAL, true) != RTC_TM_OK)
        return fmi2Error;
    for (size_t i = 0; i < nvr; i++)
        *(double *)rtc__tm_ptr(in, rtc__tm_find(in->model, vr[i])) = value[i];
    rtc__tm_after_set(in);
    return fmi2OK;
}

fmi2Status fmi2SetInteger(fmi2Component c,
                          const fmi2ValueReference vr[],
                          size_t nvr,
                          const fmi2Integer value[])
{
    GET_INST(c);
    if (access_ok(in, "fmi2SetInteger", vr, nvr, value, MASK_INTEGER, true) != RTC_TM_OK)
        return fmi2Error;
    for (size_t i = 0; i < nvr; i++) {
        const rtc_tm_var *v = rtc__tm_find(in->model, vr[i]);
        void *p = rtc__tm_ptr(in, v);
        if (v->type == RTC_TM_I32)
            *(int32_t *)p = value[i];
        else
            *(int64_t *)p = value[i];
    }
    rtc__tm_after_set(in);
    return fmi2OK;
}

fmi2Status fmi2SetBoolean(fmi2Component c,
                          const fmi2ValueReference vr[],
                          size_t nvr,
                          const fmi2Boolean value[])
{
    GET_INST(c);
    if (access_ok(in, "fmi2SetBoolean", vr, nvr, value, MASK_BOOLEAN, true) != RTC_TM_OK)
        return fmi2Error;
    for (size_t i = 0; i < nvr; i++)
        *(bool *)rtc__tm_ptr(in, rtc__tm_find(in->model, vr[i])) = value[i] != fmi2False;
    rtc__tm_after_set(in);
    return fmi2OK;
}

fmi2Status
fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[])
{
    GET_INST(c);
    rtc_tm_status worst = access_ok(in, "fmi2SetString", vr, nvr, value, MASK_STRING, true);
    if (worst != RTC_TM_OK)
        return fmi2Error;
    for (size_t i = 0; i < nvr; i++) {
        if (!value[i]) { /* checked before any copy, so a rejection changes nothing */
            rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "fmi2SetString: NULL string");
            return fmi2Error;
        }
    }
    for (size_t i = 0; i < nvr; i++) {
        rtc_tm_status st =
            rtc__tm_set_str(in, rtc__tm_find(in->model, vr[i]), value[i], "fmi2SetString");
        worst = st > worst ? st : worst;
    }
    rtc__tm_after_set(in);
    return (fmi2Status)worst;
}

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_state_get(in, "fmi2GetFMUstate", FMUstate);
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_state_set(in, "fmi2SetFMUstate", FMUstate);
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_state_free(in, "fmi2FreeFMUstate", FMUstate);
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
    GET_INST(c);
    (void)FMUstate;
    if (!size)
        return fmi2Error;
    *size = rtc__tm_state_size(in);
    return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c,
                                 fmi2FMUstate FMUstate,
                                 fmi2Byte serializedState[],
                                 size_t size)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_state_serialize(in, "fmi2SerializeFMUstate", FMUstate,
                                               serializedState, size);
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c,
                                   const fmi2Byte serializedState[],
                                   size_t size,
                                   fmi2FMUstate *FMUstate)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_state_deserialize(in, "fmi2DeSerializeFMUstate", serializedState,
                                                 size, FMUstate);
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c,
                                        const fmi2ValueReference vUnknown_ref[],
                                        size_t nUnknown,
                                        const fmi2ValueReference vKnown_ref[],
                                        size_t nKnown,
                                        const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
    GET_INST(c);
    if (in->me && in->model->me->jacobian)
        return (fmi2Status)rtc__tm_me_dir_der(in, "fmi2GetDirectionalDerivative", vUnknown_ref,
                                              nUnknown, vKnown_ref, nKnown, dvKnown, dvUnknown);
    return (fmi2Status)rtc__tm_unsupported(in, "fmi2GetDirectionalDerivative",
                                           "providesDirectionalDerivative=false");
}

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c,
                                       const fmi2ValueReference vr[],
                                       size_t nvr,
                                       const fmi2Integer order[],
                                       const fmi2Real value[])
{
    GET_INST(c);
    (void)vr, (void)nvr, (void)order, (void)value;
    return (fmi2Status)rtc__tm_unsupported(in, "fmi2SetRealInputDerivatives",
                                           "canInterpolateInputs=false");
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c,
                                        const fmi2ValueReference vr[],
                                        size_t nvr,
                                        const fmi2Integer order[],
                                        fmi2Real value[])
{
    GET_INST(c);
    (void)vr, (void)nvr, (void)order, (void)value;
    return (fmi2Status)rtc__tm_unsupported(in, "fmi2GetRealOutputDerivatives",
                                           "maxOutputDerivativeOrder=0");
}

#ifndef RTC_TEST_OMIT_DOSTEP
fmi2Status fmi2DoStep(fmi2Component c,
                      fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    GET_INST(c);
    rtc_tm_step_info info = {0};
    (void)noSetFMUStatePriorToCurrentPoint;
    rtc_tm_status st =
        rtc__tm_do_step(in, "fmi2DoStep", currentCommunicationPoint, communicationStepSize, &info);
    if (st < RTC_TM_ERROR && info.terminate) {
        /* FMI 2 has no terminate flag on doStep: Discard + fmi2Terminated status. */
        in->phase = RTC_TM_PH_STEP_FAILED;
        rtc__tm_logf(in, RTC_TM_DISCARD, RTC_TM_LOG_DISCARD,
                     "fmi2DoStep: model requested termination at t = %.17g "
                     "(fmi2Discard, fmi2Terminated = fmi2True)",
                     in->last_ok_time);
        return fmi2Discard;
    }
    return (fmi2Status)st;
}
#endif

fmi2Status fmi2CancelStep(fmi2Component c)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_unsupported(in, "fmi2CancelStep", "canRunAsynchronuously=false");
}

/* Status queries: answered in every state but Fatal; unsupported kinds give Discard. */
fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
    GET_INST(c);
    (void)s;
    (void)value;
    if (!rtc__tm_allowed(in, RTC_TM_PH_ANY, "fmi2GetStatus"))
        return fmi2Error;
    return fmi2Discard; /* fmi2DoStepStatus exists only for a pending asynchronous step */
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
    GET_INST(c);
    if (!rtc__tm_allowed(in, RTC_TM_PH_ANY, "fmi2GetRealStatus") || !value)
        return fmi2Error;
    if (s != fmi2LastSuccessfulTime)
        return fmi2Discard;
    *value = in->last_ok_time;
    return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
    GET_INST(c);
    (void)s;
    (void)value;
    if (!rtc__tm_allowed(in, RTC_TM_PH_ANY, "fmi2GetIntegerStatus"))
        return fmi2Error;
    return fmi2Discard; /* no integer status kind is defined */
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
    GET_INST(c);
    if (!rtc__tm_allowed(in, RTC_TM_PH_ANY, "fmi2GetBooleanStatus") || !value)
        return fmi2Error;
    if (s != fmi2Terminated)
        return fmi2Discard;
    *value = in->terminate_requested ? fmi2True : fmi2False;
    return fmi2OK;
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
    GET_INST(c);
    (void)s;
    (void)value;
    if (!rtc__tm_allowed(in, RTC_TM_PH_ANY, "fmi2GetStringStatus"))
        return fmi2Error;
    return fmi2Discard; /* fmi2PendingStatus exists only for a pending asynchronous step */
}

/* ---- Model Exchange (wrap_me.c does the work) ---- */

fmi2Status fmi2EnterEventMode(fmi2Component c)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_me_mode(in, "fmi2EnterEventMode", true);
}

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *info)
{
    GET_INST(c);
    rtc_tm_event_info ev;
    rtc_tm_status st = rtc__tm_me_update(in, "fmi2NewDiscreteStates", &ev);
    info->newDiscreteStatesNeeded = ev.again;
    info->terminateSimulation = ev.terminate;
    info->nominalsOfContinuousStatesChanged = fmi2False;
    info->valuesOfContinuousStatesChanged = ev.values_changed;
    info->nextEventTimeDefined = ev.next_defined;
    info->nextEventTime = ev.next_time;
    return (fmi2Status)st;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_me_mode(in, "fmi2EnterContinuousTimeMode", false);
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c,
                                       fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode,
                                       fmi2Boolean *terminateSimulation)
{
    GET_INST(c);
    bool enter, term;
    (void)noSetFMUStatePriorToCurrentPoint;
    rtc_tm_status st = rtc__tm_me_completed(in, "fmi2CompletedIntegratorStep", &enter, &term);
    *enterEventMode = enter;
    *terminateSimulation = term;
    return (fmi2Status)st;
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_me_set_time(in, "fmi2SetTime", time);
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_me_set_x(in, "fmi2SetContinuousStates", x, nx);
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_me_get(in, "fmi2GetDerivatives", 'd', derivatives, nx);
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[], size_t ni)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_me_get(in, "fmi2GetEventIndicators", 'z', eventIndicators, ni);
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_me_get(in, "fmi2GetContinuousStates", 'x', x, nx);
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx)
{
    GET_INST(c);
    return (fmi2Status)rtc__tm_me_get(in, "fmi2GetNominalsOfContinuousStates", 'n', x_nominal,
                                      nx);
}
