/*
 * fmi3_wrap.c — generic FMI 3.0 wrapper around one test model (model.h): instances, modes,
 * state, event mode and fmi3DoStep here; typed access in fmi3_wrap_values.c, Model Exchange
 * in fmi3_wrap_me.c, clocks in fmi3_wrap_clocks.c (what they share: fmi3_wrap.h).
 *
 * Exports every common, Co-Simulation and Model Exchange function of FMI 3.0 (Model
 * Exchange works for models with `me`, wrap_me.c) plus the Scheduled Execution functions
 * (models with clocks, wrap_events.c), and nothing else (the library
 * is built with -fvisibility=hidden). Behaviour a host can rely on:
 *   - fmi3InstantiateCoSimulation returns NULL (with a logged reason when logMessage is
 *     given) for an empty instanceName, an instantiationToken that differs from the
 *     modelDescription's, a NULL logMessage, eventModeUsed or required intermediate
 *     variables (hasEventMode / providesIntermediateUpdate are false), or an unreadable
 *     resource folder;
 *   - calls out of sequence return fmi3Error "illegal call sequence" and change nothing;
 *   - fmi3DoStep rejects a drifting communication point, h <= 0 and steps past a defined
 *     stopTime; a model's termination request gives fmi3OK with *terminateSimulation =
 *     true and *lastSuccessfulTime = the time reached;
 *   - models with has_event_mode accept eventModeUsed and run Event Mode (wrap_events.c);
 *     models with clocks instantiate only as Scheduled Execution (clock functions there);
 *     for every other model event-mode, clock, derivative and dependency functions return
 *     fmi3Error with a logged "not supported";
 *   - array variables are flattened; nValues must equal the total element count;
 *   - no allocation in fmi3DoStep, fmi3Get*, fmi3Set*.
 * Build with -DRTC_TEST_OMIT_DOSTEP to leave fmi3DoStep out (the NoSymbol loader fixture).
 */
#include "fmi3_wrap.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fmi3_inst {
    rtc_tm_inst core; /* first: the core and the wrapper share the pointer */
    fmi3InstanceEnvironment env;
    fmi3LogMessageCallback log;
    fmi3ClockUpdateCallback clock_update;
} fmi3_inst;

static void emit3(rtc_tm_inst *in, rtc_tm_status st, const char *cat, const char *msg)
{
    fmi3_inst *x = (fmi3_inst *)in;
    x->log(x->env, (fmi3Status)st, cat, msg);
}

static void step_emit3(rtc_tm_inst *in, long k, double t, const char *what)
{
    fmi3_inst *x = (fmi3_inst *)in;
    snprintf(in->msg, sizeof in->msg, "step %ld from t = %.6f s: %s (100%%)", k, t, what);
    x->log(x->env, fmi3Warning, RTC_TM_LOG_WARNING, in->msg);
}

static void early_error(fmi3LogMessageCallback log,
                        fmi3InstanceEnvironment env,
                        const char *fn,
                        const char *what,
                        const char *arg)
{
    char msg[RTC_TM_MSG_CAP];
    snprintf(msg, sizeof msg, "%s: %s%s", fn, what, arg ? arg : "");
    log(env, fmi3Error, RTC_TM_LOG_ERROR, msg);
}

static bool blank(const char *s)
{
    for (; s && *s; s++)
        if (!isspace((unsigned char)*s))
            return false;
    return true;
}

static fmi3_inst *new_inst(fmi3String instanceName,
                           fmi3String instantiationToken,
                           fmi3Boolean eventModeUsed,
                           size_t nRequired,
                           fmi3String resourcePath,
                           fmi3Boolean loggingOn,
                           fmi3InstanceEnvironment instanceEnvironment,
                           fmi3LogMessageCallback logMessage,
                           const char *fn);

static void clock_update3(rtc_tm_inst *in)
{
    fmi3_inst *x = (fmi3_inst *)in;
    x->clock_update(x->env);
}

const char *fmi3GetVersion(void)
{
    return fmi3Version;
}

fmi3Status fmi3SetDebugLogging(fmi3Instance instance,
                               fmi3Boolean loggingOn,
                               size_t nCategories,
                               const fmi3String categories[])
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_set_debug_logging(in, "fmi3SetDebugLogging", loggingOn, nCategories,
                                                 categories);
}

fmi3Instance fmi3InstantiateScheduledExecution(fmi3String instanceName,
                                               fmi3String instantiationToken,
                                               fmi3String resourcePath,
                                               fmi3Boolean visible,
                                               fmi3Boolean loggingOn,
                                               fmi3InstanceEnvironment instanceEnvironment,
                                               fmi3LogMessageCallback logMessage,
                                               fmi3ClockUpdateCallback clockUpdate,
                                               fmi3LockPreemptionCallback lockPreemption,
                                               fmi3UnlockPreemptionCallback unlockPreemption)
{
    static const char fn[] = "fmi3InstantiateScheduledExecution";
    (void)resourcePath, (void)visible;
    if (!logMessage)
        return NULL;
    if (!rtc_tm_model_def.nclocks) {
        early_error(logMessage, instanceEnvironment, fn, "this FMU supports Co-Simulation only",
                    NULL);
        return NULL;
    }
    if (!clockUpdate || !lockPreemption || !unlockPreemption) {
        early_error(logMessage, instanceEnvironment, fn, "clockUpdate, lockPreemption and "
                    "unlockPreemption are required", NULL);
        return NULL;
    }
    fmi3_inst *x = new_inst(instanceName, instantiationToken, false, 0, NULL, loggingOn,
                            instanceEnvironment, logMessage, fn);
    if (!x)
        return NULL;
    x->core.scheduled = true;
    x->clock_update = clockUpdate;
    x->core.clock_update = clock_update3;
    x->core.lock = lockPreemption;
    x->core.unlock = unlockPreemption;
    return x;
}

/* Argument checks of fmi3Instantiate*; logs and returns false on a problem. */
static bool instantiate_args_ok(const char *fn,
                                fmi3String name,
                                fmi3String token,
                                fmi3Boolean event_mode,
                                size_t n_required,
                                fmi3InstanceEnvironment env,
                                fmi3LogMessageCallback log)
{
    const rtc_tm_model *md = &rtc_tm_model_def;
    if (blank(name)) {
        early_error(log, env, fn, "instanceName must be a non-empty string", NULL);
        return false;
    }
    if (!token || strcmp(token, md->token) != 0) {
        early_error(log, env, fn, "instantiationToken does not match the modelDescription: ",
                    token ? token : "(null)");
        return false;
    }
    if (event_mode && !md->has_event_mode) {
        early_error(log, env, fn, "eventModeUsed = true but the model has no Event Mode", NULL);
        return false;
    }
    if (n_required > 0) {
        early_error(log, env, fn, "no variable supports intermediate update", NULL);
        return false;
    }
    return true;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName,
                                          fmi3String instantiationToken,
                                          fmi3String resourcePath,
                                          fmi3Boolean visible,
                                          fmi3Boolean loggingOn,
                                          fmi3InstanceEnvironment instanceEnvironment,
                                          fmi3LogMessageCallback logMessage)
{
    static const char fn[] = "fmi3InstantiateModelExchange";
    (void)visible;
    if (!logMessage)
        return NULL; /* nobody to tell */
    if (!rtc_tm_model_def.me) {
        early_error(logMessage, instanceEnvironment, fn, "this interface is not supported by ",
                    rtc_tm_model_def.name);
        return NULL;
    }
    fmi3_inst *x = new_inst(instanceName, instantiationToken, false, 0, resourcePath, loggingOn,
                            instanceEnvironment, logMessage, fn);
    if (x)
        x->core.me = true;
    return x;
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName,
                                         fmi3String instantiationToken,
                                         fmi3String resourcePath,
                                         fmi3Boolean visible,
                                         fmi3Boolean loggingOn,
                                         fmi3Boolean eventModeUsed,
                                         fmi3Boolean earlyReturnAllowed,
                                         const fmi3ValueReference requiredIntermediateVariables[],
                                         size_t nRequiredIntermediateVariables,
                                         fmi3InstanceEnvironment instanceEnvironment,
                                         fmi3LogMessageCallback logMessage,
                                         fmi3IntermediateUpdateCallback intermediateUpdate)
{
    static const char fn[] = "fmi3InstantiateCoSimulation";
    (void)visible, (void)requiredIntermediateVariables, (void)intermediateUpdate;
    if (!logMessage)
        return NULL; /* nobody to tell */
    if (rtc_tm_model_def.nclocks) {
        early_error(logMessage, instanceEnvironment, fn,
                    "this FMU supports Scheduled Execution only", NULL);
        return NULL;
    }
    if (!rtc_tm_model_def.step) {
        early_error(logMessage, instanceEnvironment, fn, "this interface is not supported by ",
                    rtc_tm_model_def.name);
        return NULL;
    }
    fmi3_inst *x = new_inst(instanceName, instantiationToken, eventModeUsed,
                            nRequiredIntermediateVariables, resourcePath, loggingOn,
                            instanceEnvironment, logMessage, fn);
    if (x) {
        x->core.event_mode_used = eventModeUsed;
        x->core.early_return_allowed = earlyReturnAllowed;
    }
    return x;
}

/* The instance both instantiate functions share (arguments checked, model set up). */
static fmi3_inst *new_inst(fmi3String instanceName,
                           fmi3String instantiationToken,
                           fmi3Boolean eventModeUsed,
                           size_t nRequired,
                           fmi3String resourcePath,
                           fmi3Boolean loggingOn,
                           fmi3InstanceEnvironment instanceEnvironment,
                           fmi3LogMessageCallback logMessage,
                           const char *fn)
{
    const rtc_tm_model *md = &rtc_tm_model_def;
    char dir[PATH_MAX];
    const char *res = NULL;
    if (!instantiate_args_ok(fn, instanceName, instantiationToken, eventModeUsed, nRequired,
                             instanceEnvironment, logMessage))
        return NULL;
    if (md->needs_resources) {
        if (rtc__tm_dir_copy(resourcePath, dir, sizeof dir) != 0) {
            early_error(logMessage, instanceEnvironment, fn, "cannot use resourcePath ",
                        resourcePath ? resourcePath : "(null)");
            return NULL;
        }
        res = dir;
    }
    fmi3_inst *x = calloc(1, rtc__tm_alloc_size(md, sizeof(fmi3_inst)));
    if (!x) {
        early_error(logMessage, instanceEnvironment, fn, "out of memory", NULL);
        return NULL;
    }
    x->env = instanceEnvironment;
    x->log = logMessage;
    x->core.fmi = "fmi3";
    x->core.emit = emit3;
    x->core.step_emit = step_emit3;
    x->core.alloc = calloc;
    x->core.release = free;
    if (rtc__tm_init(&x->core, sizeof *x, instanceName, loggingOn, res) != 0) {
        free(x);
        return NULL;
    }
    return x;
}

void fmi3FreeInstance(fmi3Instance instance)
{
    free(instance);
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance,
                                       fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance,
                                       fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined,
                                       fmi3Float64 stopTime)
{
    GET_INST(instance);
    (void)toleranceDefined, (void)tolerance;
    return (fmi3Status)rtc__tm_enter_init(in, "fmi3EnterInitializationMode", startTime,
                                          stopTimeDefined, stopTime);
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_exit_init(in, "fmi3ExitInitializationMode");
}

fmi3Status fmi3Terminate(fmi3Instance instance)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_terminate(in, "fmi3Terminate");
}

fmi3Status fmi3Reset(fmi3Instance instance)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_reset(in, "fmi3Reset");
}

/* Configuration modes: no structural parameters exist, but the transitions are legal. */
fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance)
{
    GET_INST(instance);
    if (!rtc__tm_allowed(in, RTC_TM_PH_INSTANTIATED | RTC_TM_PH_STEP, "fmi3EnterConfigurationMode"))
        return fmi3Error;
    in->phase = in->phase == RTC_TM_PH_STEP ? RTC_TM_PH_RECONFIG : RTC_TM_PH_CONFIG;
    return fmi3OK;
}

fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance)
{
    GET_INST(instance);
    if (!rtc__tm_allowed(in, RTC_TM_PH_CONFIG | RTC_TM_PH_RECONFIG, "fmi3ExitConfigurationMode"))
        return fmi3Error;
    in->phase = in->phase == RTC_TM_PH_RECONFIG ? RTC_TM_PH_STEP : RTC_TM_PH_INSTANTIATED;
    rtc__tm_after_set(in);
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance,
                                               fmi3ValueReference valueReference,
                                               size_t *nDependencies)
{
    GET_INST(instance);
    (void)valueReference, (void)nDependencies;
    return (fmi3Status)rtc__tm_unsupported(in, "fmi3GetNumberOfVariableDependencies",
                                           "providesPerElementDependencies=false");
}

fmi3Status fmi3GetVariableDependencies(fmi3Instance instance,
                                       fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[],
                                       fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[],
                                       fmi3DependencyKind dependencyKinds[],
                                       size_t nDependencies)
{
    GET_INST(instance);
    (void)dependent, (void)elementIndicesOfDependent, (void)independents;
    (void)elementIndicesOfIndependents, (void)dependencyKinds, (void)nDependencies;
    return (fmi3Status)rtc__tm_unsupported(in, "fmi3GetVariableDependencies",
                                           "providesPerElementDependencies=false");
}

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_state_get(in, "fmi3GetFMUState", FMUState);
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_state_set(in, "fmi3SetFMUState", FMUState);
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_state_free(in, "fmi3FreeFMUState", FMUState);
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState, size_t *size)
{
    GET_INST(instance);
    (void)FMUState;
    if (!size)
        return fmi3Error;
    *size = rtc__tm_state_size(in);
    return fmi3OK;
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance,
                                 fmi3FMUState FMUState,
                                 fmi3Byte serializedState[],
                                 size_t size)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_state_serialize(in, "fmi3SerializeFMUState", FMUState,
                                               serializedState, size);
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance,
                                   const fmi3Byte serializedState[],
                                   size_t size,
                                   fmi3FMUState *FMUState)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_state_deserialize(in, "fmi3DeserializeFMUState", serializedState,
                                                 size, FMUState);
}

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_unsupported(in, "fmi3EvaluateDiscreteStates", NO_EVENTS);
}

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance,
                                    fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation,
                                    fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged,
                                    fmi3Boolean *nextEventTimeDefined,
                                    fmi3Float64 *nextEventTime)
{
    static const char fn[] = "fmi3UpdateDiscreteStates";
    GET_INST(instance);
    /* Model Exchange: the model's event iteration (time events, changed states); with
     * co-simulation the FMU schedules its own time events, continuous states are its own. */
    rtc_tm_event_info ev = {0};
    rtc_tm_status st;
    if (in->me)
        st = rtc__tm_me_update(in, fn, &ev);
    else if (!in->model->has_event_mode)
        return (fmi3Status)rtc__tm_unsupported(in, fn, NO_EVENTS);
    else
        st = rtc__tm_update(in, fn, &ev.again, &ev.terminate);
    /* every out-argument is optional in the signature's sense: write those given */
    if (discreteStatesNeedUpdate)
        *discreteStatesNeedUpdate = ev.again;
    if (terminateSimulation)
        *terminateSimulation = ev.terminate;
    if (nominalsOfContinuousStatesChanged)
        *nominalsOfContinuousStatesChanged = false;
    if (valuesOfContinuousStatesChanged)
        *valuesOfContinuousStatesChanged = ev.values_changed;
    if (nextEventTimeDefined)
        *nextEventTimeDefined = ev.next_defined;
    if (nextEventTime)
        *nextEventTime = ev.next_time;
    return (fmi3Status)st;
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance)
{
    GET_INST(instance);
    if (in->me)
        return (fmi3Status)rtc__tm_me_mode(in, "fmi3EnterEventMode", true);
    if (!in->model->has_event_mode)
        return (fmi3Status)rtc__tm_unsupported(in, "fmi3EnterEventMode", NO_EVENTS);
    return (fmi3Status)rtc__tm_enter_event(in, "fmi3EnterEventMode");
}

fmi3Status fmi3EnterStepMode(fmi3Instance instance)
{
    GET_INST(instance);
    if (in->me || !in->model->has_event_mode)
        return (fmi3Status)rtc__tm_unsupported(in, "fmi3EnterStepMode", NO_EVENTS);
    return (fmi3Status)rtc__tm_enter_step(in, "fmi3EnterStepMode");
}

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance,
                                    const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences,
                                    const fmi3Int32 orders[],
                                    fmi3Float64 values[],
                                    size_t nValues)
{
    GET_INST(instance);
    (void)valueReferences, (void)nValueReferences, (void)orders, (void)values, (void)nValues;
    return (fmi3Status)rtc__tm_unsupported(in, "fmi3GetOutputDerivatives",
                                           "maxOutputDerivativeOrder=0");
}

#ifndef RTC_TEST_OMIT_DOSTEP
fmi3Status fmi3DoStep(fmi3Instance instance,
                      fmi3Float64 currentCommunicationPoint,
                      fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                      fmi3Boolean *eventHandlingNeeded,
                      fmi3Boolean *terminateSimulation,
                      fmi3Boolean *earlyReturn,
                      fmi3Float64 *lastSuccessfulTime)
{
    GET_INST(instance);
    rtc_tm_step_info info = {0};
    bool event = false, early = false;
    (void)noSetFMUStatePriorToCurrentPoint;
    rtc_tm_status st;
    if (in->model->has_event_mode) {
        st = rtc__tm_step_events(in, "fmi3DoStep", currentCommunicationPoint,
                                 communicationStepSize, &event, &early);
        info.terminate = in->terminate_requested;
    } else {
        st = rtc__tm_do_step(in, "fmi3DoStep", currentCommunicationPoint, communicationStepSize,
                             &info);
    }
    /* The out-arguments are written on every return so a host never reads garbage. */
    if (eventHandlingNeeded)
        *eventHandlingNeeded = st < RTC_TM_ERROR && event;
    if (earlyReturn)
        *earlyReturn = st < RTC_TM_ERROR && early;
    if (terminateSimulation)
        *terminateSimulation = st < RTC_TM_ERROR && info.terminate;
    if (lastSuccessfulTime)
        *lastSuccessfulTime = in->last_ok_time;
    if (st < RTC_TM_ERROR && info.terminate)
        rtc__tm_logf(in, RTC_TM_OK, RTC_TM_LOG_EVENTS,
                     "fmi3DoStep: model requested termination at t = %.17g", in->last_ok_time);
    return (fmi3Status)st;
}
#endif
