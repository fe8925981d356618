/*
 * Loading an FMU's shared library and binding its FMI functions.
 *
 * The library is dlopen()ed with RTLD_LOCAL so two FMUs exporting the same fmi2* names do
 * not interpose on each other, and RTLD_NOW so an unresolved dependency fails here, at load,
 * rather than in the middle of a real-time run. Each version's functions are listed once
 * with the condition under which the standard (or a capability flag the FMU claims) makes
 * them mandatory; optional ones stay NULL when absent.
 */
#include "fmu_priv.h"

#include "rtcosim/status.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef enum {
    NEED_ALWAYS,      /* the engine calls it on every FMU */
    NEED_CS,          /* Co-Simulation units only (not Scheduled Execution ones) */
    NEED_ME,          /* Model Exchange units only */
    NEED_ME_OR_EVENT, /* Model Exchange, or Co-Simulation with hasEventMode (FMI 3) */
    NEED_OPTIONAL,    /* bound when present */
    NEED_STATE,       /* canGetAndSetFMUstate */
    NEED_SERIALIZE,   /* canSerializeFMUstate */
    NEED_DIRECTIONAL, /* providesDirectionalDerivative(s) */
    NEED_ADJOINT,     /* providesAdjointDerivatives */
    NEED_INPUT_DER,   /* canInterpolateInputs (FMI 2) */
    NEED_OUTPUT_DER,  /* maxOutputDerivativeOrder > 0 */
    NEED_EVENT_MODE,  /* hasEventMode (FMI 3), Co-Simulation units */
    NEED_SE,          /* Scheduled Execution units (FMI 3 FMUs with only that interface) */
} need;

typedef struct binding {
    const char *name;
    size_t offset;
    need when;
} binding;

#define B2(fn, w) {"fmi2" #fn, offsetof(rtc_fmi2_api, fn), w}
static const binding fmi2_table[] = {
    B2(GetTypesPlatform, NEED_ALWAYS),     B2(GetVersion, NEED_ALWAYS),
    B2(SetDebugLogging, NEED_ALWAYS),      B2(Instantiate, NEED_ALWAYS),
    B2(FreeInstance, NEED_ALWAYS),         B2(SetupExperiment, NEED_ALWAYS),
    B2(EnterInitializationMode, NEED_ALWAYS), B2(ExitInitializationMode, NEED_ALWAYS),
    B2(Terminate, NEED_ALWAYS),            B2(Reset, NEED_OPTIONAL),
    B2(GetReal, NEED_ALWAYS),              B2(GetInteger, NEED_ALWAYS),
    B2(GetBoolean, NEED_ALWAYS),           B2(GetString, NEED_ALWAYS),
    B2(SetReal, NEED_ALWAYS),              B2(SetInteger, NEED_ALWAYS),
    B2(SetBoolean, NEED_ALWAYS),           B2(SetString, NEED_ALWAYS),
    B2(GetFMUstate, NEED_STATE),           B2(SetFMUstate, NEED_STATE),
    B2(FreeFMUstate, NEED_STATE),          B2(SerializedFMUstateSize, NEED_SERIALIZE),
    B2(SerializeFMUstate, NEED_SERIALIZE), B2(DeSerializeFMUstate, NEED_SERIALIZE),
    B2(GetDirectionalDerivative, NEED_DIRECTIONAL),
    B2(SetRealInputDerivatives, NEED_INPUT_DER),
    B2(GetRealOutputDerivatives, NEED_OUTPUT_DER),
    B2(DoStep, NEED_CS),                   B2(CancelStep, NEED_OPTIONAL),
    B2(GetStatus, NEED_OPTIONAL),          B2(GetRealStatus, NEED_OPTIONAL),
    B2(GetIntegerStatus, NEED_OPTIONAL),   B2(GetBooleanStatus, NEED_CS),
    B2(GetStringStatus, NEED_OPTIONAL),
    B2(EnterEventMode, NEED_ME),           B2(NewDiscreteStates, NEED_ME),
    B2(EnterContinuousTimeMode, NEED_ME),  B2(CompletedIntegratorStep, NEED_ME),
    B2(SetTime, NEED_ME),                  B2(SetContinuousStates, NEED_ME),
    B2(GetDerivatives, NEED_ME),           B2(GetEventIndicators, NEED_ME),
    B2(GetContinuousStates, NEED_ME),      B2(GetNominalsOfContinuousStates, NEED_ME),
};

#define B3(fn, w) {"fmi3" #fn, offsetof(rtc_fmi3_api, fn), w}
static const binding fmi3_table[] = {
    B3(GetVersion, NEED_ALWAYS),        B3(SetDebugLogging, NEED_ALWAYS),
    B3(InstantiateCoSimulation, NEED_CS), B3(FreeInstance, NEED_ALWAYS),
    B3(EnterInitializationMode, NEED_ALWAYS), B3(ExitInitializationMode, NEED_ALWAYS),
    B3(EnterEventMode, NEED_ME_OR_EVENT), B3(Terminate, NEED_ALWAYS),
    B3(Reset, NEED_OPTIONAL),           B3(GetFloat32, NEED_ALWAYS),
    B3(GetFloat64, NEED_ALWAYS),        B3(GetInt8, NEED_ALWAYS),
    B3(GetUInt8, NEED_ALWAYS),          B3(GetInt16, NEED_ALWAYS),
    B3(GetUInt16, NEED_ALWAYS),         B3(GetInt32, NEED_ALWAYS),
    B3(GetUInt32, NEED_ALWAYS),         B3(GetInt64, NEED_ALWAYS),
    B3(GetUInt64, NEED_ALWAYS),         B3(GetBoolean, NEED_ALWAYS),
    B3(GetString, NEED_ALWAYS),         B3(GetBinary, NEED_ALWAYS),
    B3(GetClock, NEED_OPTIONAL),        B3(SetFloat32, NEED_ALWAYS),
    B3(SetFloat64, NEED_ALWAYS),        B3(SetInt8, NEED_ALWAYS),
    B3(SetUInt8, NEED_ALWAYS),          B3(SetInt16, NEED_ALWAYS),
    B3(SetUInt16, NEED_ALWAYS),         B3(SetInt32, NEED_ALWAYS),
    B3(SetUInt32, NEED_ALWAYS),         B3(SetInt64, NEED_ALWAYS),
    B3(SetUInt64, NEED_ALWAYS),         B3(SetBoolean, NEED_ALWAYS),
    B3(SetString, NEED_ALWAYS),         B3(SetBinary, NEED_ALWAYS),
    B3(SetClock, NEED_OPTIONAL),
    B3(GetNumberOfVariableDependencies, NEED_OPTIONAL),
    B3(GetVariableDependencies, NEED_OPTIONAL),
    B3(GetFMUState, NEED_STATE),        B3(SetFMUState, NEED_STATE),
    B3(FreeFMUState, NEED_STATE),       B3(SerializedFMUStateSize, NEED_SERIALIZE),
    B3(SerializeFMUState, NEED_SERIALIZE), B3(DeserializeFMUState, NEED_SERIALIZE),
    B3(GetDirectionalDerivative, NEED_DIRECTIONAL),
    B3(GetAdjointDerivative, NEED_ADJOINT),
    B3(EnterConfigurationMode, NEED_OPTIONAL), B3(ExitConfigurationMode, NEED_OPTIONAL),
    B3(UpdateDiscreteStates, NEED_ME_OR_EVENT), B3(EnterStepMode, NEED_EVENT_MODE),
    B3(GetOutputDerivatives, NEED_OUTPUT_DER), B3(DoStep, NEED_CS),
    B3(InstantiateModelExchange, NEED_ME), B3(EnterContinuousTimeMode, NEED_ME),
    B3(CompletedIntegratorStep, NEED_ME), B3(SetTime, NEED_ME),
    B3(SetContinuousStates, NEED_ME),   B3(GetContinuousStateDerivatives, NEED_ME),
    B3(GetEventIndicators, NEED_ME),    B3(GetContinuousStates, NEED_ME),
    B3(GetNominalsOfContinuousStates, NEED_ME), B3(GetNumberOfContinuousStates, NEED_ME),
    B3(GetNumberOfEventIndicators, NEED_ME),
    B3(InstantiateScheduledExecution, NEED_SE), B3(ActivateModelPartition, NEED_SE),
    B3(GetIntervalDecimal, NEED_SE),
};

/* A unit runs an FMU through one interface: Model Exchange (@p me), else Co-Simulation,
 * or Scheduled Execution when the FMU has only that (FMI 3). */
static bool is_se(const rtc_model_desc *md, bool me)
{
    return !me && md->fmi_major == 3 && !md->has_cs && md->has_se;
}

/* The capability flags checked are those of the interface being bound. */
static bool is_needed(need when, const rtc_model_desc *md, bool me)
{
    const rtc_cs_caps *cs = me ? &md->me : &md->cs;
    switch (when) {
    case NEED_ALWAYS:
        return true;
    case NEED_CS:
        return !me && md->has_cs;
    case NEED_ME:
        return me;
    case NEED_ME_OR_EVENT:
        return me || cs->has_event_mode;
    case NEED_STATE:
        return cs->can_get_and_set_fmu_state;
    case NEED_SERIALIZE:
        return cs->can_serialize_fmu_state;
    case NEED_DIRECTIONAL:
        return cs->provides_directional_derivatives;
    case NEED_ADJOINT:
        return cs->provides_adjoint_derivatives;
    case NEED_INPUT_DER:
        return cs->can_interpolate_inputs;
    case NEED_OUTPUT_DER:
        return cs->max_output_derivative_order > 0;
    case NEED_EVENT_MODE:
        return !me && cs->has_event_mode;
    case NEED_SE:
        return is_se(md, me);
    default:
        return false;
    }
}

static int bind_table(rtc_fmu *fmu, bool me, const binding *tab, size_t n, const char *so,
                      const rtc_logger *lg)
{
    char *base = (char *)&fmu->api;
    for (size_t i = 0; i < n; i++) {
        void *sym = dlsym(fmu->dl, tab[i].name);
        if (!sym && is_needed(tab[i].when, fmu->md, me)) {
            rtc_log(lg, RTC_LOG_ERROR, "%s: missing required function %s", so, tab[i].name);
            return RTC_ESYMBOL;
        }
        /* POSIX guarantees data and function pointers convert through dlsym's void *. */
        memcpy(base + tab[i].offset, &sym, sizeof sym);
    }
    return RTC_OK;
}

/* Every function of both interfaces is looked up (absent ones stay NULL); what the chosen
 * interface needs must be there. Binding again for the other interface of an FMU whose two
 * interfaces share one binary only re-checks; two different binaries are refused. */
int rtc__fmu_bind(rtc_fmu *fmu, bool me, const rtc_logger *lg)
{
    const rtc_model_desc *md = fmu->md;
    bool se = is_se(md, me);
    if (me ? !md->has_me : !md->has_cs && !se) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: FMU has no %s interface (only %s)", md->path,
                me ? "ModelExchange" : "CoSimulation",
                md->has_me && !me ? "ModelExchange"
                : md->has_cs      ? "CoSimulation"
                : md->has_se      ? "ScheduledExecution"
                                  : "none");
        return RTC_EUNSUPPORTED;
    }
    const char *id = me ? md->me_model_identifier
                     : se ? md->se_model_identifier : md->cs.model_identifier;
    const char *platform = md->fmi_major == 2 ? "linux64" : "x86_64-linux";
    char so[PATH_MAX + 64];
    int n = snprintf(so, sizeof so, "%s/binaries/%s/%s.so", fmu->dir, platform, id);
    if (fmu->dl && strcmp(fmu->dl_id, id) != 0) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: the ModelExchange and CoSimulation binaries differ "
                "(%s, %s): one FMU runs with one of them per process", md->path, fmu->dl_id, id);
        return RTC_EUNSUPPORTED;
    }
    struct stat st;
    if (!fmu->dl && (n < 0 || (size_t)n >= sizeof so || stat(so, &st) != 0)) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: no binary for this platform (binaries/%s/%s.so)",
                md->path, platform, id);
        return RTC_EUNSUPPORTED;
    }
    bool fresh = !fmu->dl;
    if (fresh && !(fmu->dl = dlopen(so, RTLD_NOW | RTLD_LOCAL))) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: cannot load: %s", so, dlerror());
        return RTC_EIO;
    }
    fmu->dl_id = id;
    if (fresh)
        memset(&fmu->api, 0, sizeof fmu->api);
    int st2 = md->fmi_major == 2
                  ? bind_table(fmu, me, fmi2_table, sizeof fmi2_table / sizeof *fmi2_table, so, lg)
                  : bind_table(fmu, me, fmi3_table, sizeof fmi3_table / sizeof *fmi3_table, so, lg);
    if (st2 != RTC_OK && fresh && atomic_load_explicit(&fmu->units, memory_order_relaxed) == 0) {
        dlclose(fmu->dl);
        fmu->dl = NULL;
    }
    return st2;
}
