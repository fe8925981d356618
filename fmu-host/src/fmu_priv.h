/*
 * fmu-host internals: the open FMU, its loaded binary and the per-version function tables.
 *
 * Binding is table driven: each version lists its functions once (name, offset in the
 * table, when it is required), and one loop dlsym()s them all, so a missing function is
 * reported by name without per-function code.
 */
#ifndef RTC_FMU_PRIV_H
#define RTC_FMU_PRIV_H

#include "rtcosim/fmu.h"
#include "rtc_fmi2.h"
#include "rtc_fmi3.h"

#include "rtcosim/rtc_config.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

typedef struct rtc_fmi2_api {
    fmi2GetTypesPlatformTYPE *GetTypesPlatform;
    fmi2GetVersionTYPE *GetVersion;
    fmi2SetDebugLoggingTYPE *SetDebugLogging;
    fmi2InstantiateTYPE *Instantiate;
    fmi2FreeInstanceTYPE *FreeInstance;
    fmi2SetupExperimentTYPE *SetupExperiment;
    fmi2EnterInitializationModeTYPE *EnterInitializationMode;
    fmi2ExitInitializationModeTYPE *ExitInitializationMode;
    fmi2TerminateTYPE *Terminate;
    fmi2ResetTYPE *Reset;
    fmi2GetRealTYPE *GetReal;
    fmi2GetIntegerTYPE *GetInteger;
    fmi2GetBooleanTYPE *GetBoolean;
    fmi2GetStringTYPE *GetString;
    fmi2SetRealTYPE *SetReal;
    fmi2SetIntegerTYPE *SetInteger;
    fmi2SetBooleanTYPE *SetBoolean;
    fmi2SetStringTYPE *SetString;
    fmi2GetFMUstateTYPE *GetFMUstate;
    fmi2SetFMUstateTYPE *SetFMUstate;
    fmi2FreeFMUstateTYPE *FreeFMUstate;
    fmi2SerializedFMUstateSizeTYPE *SerializedFMUstateSize;
    fmi2SerializeFMUstateTYPE *SerializeFMUstate;
    fmi2DeSerializeFMUstateTYPE *DeSerializeFMUstate;
    fmi2GetDirectionalDerivativeTYPE *GetDirectionalDerivative;
    fmi2SetRealInputDerivativesTYPE *SetRealInputDerivatives;
    fmi2GetRealOutputDerivativesTYPE *GetRealOutputDerivatives;
    fmi2DoStepTYPE *DoStep;
    fmi2CancelStepTYPE *CancelStep;
    fmi2GetStatusTYPE *GetStatus;
    fmi2GetRealStatusTYPE *GetRealStatus;
    fmi2GetIntegerStatusTYPE *GetIntegerStatus;
    fmi2GetBooleanStatusTYPE *GetBooleanStatus;
    fmi2GetStringStatusTYPE *GetStringStatus;
    /* Model Exchange */
    fmi2EnterEventModeTYPE *EnterEventMode;
    fmi2NewDiscreteStatesTYPE *NewDiscreteStates;
    fmi2EnterContinuousTimeModeTYPE *EnterContinuousTimeMode;
    fmi2CompletedIntegratorStepTYPE *CompletedIntegratorStep;
    fmi2SetTimeTYPE *SetTime;
    fmi2SetContinuousStatesTYPE *SetContinuousStates;
    fmi2GetDerivativesTYPE *GetDerivatives;
    fmi2GetEventIndicatorsTYPE *GetEventIndicators;
    fmi2GetContinuousStatesTYPE *GetContinuousStates;
    fmi2GetNominalsOfContinuousStatesTYPE *GetNominalsOfContinuousStates;
} rtc_fmi2_api;

typedef struct rtc_fmi3_api {
    fmi3GetVersionTYPE *GetVersion;
    fmi3SetDebugLoggingTYPE *SetDebugLogging;
    fmi3InstantiateCoSimulationTYPE *InstantiateCoSimulation;
    fmi3FreeInstanceTYPE *FreeInstance;
    fmi3EnterInitializationModeTYPE *EnterInitializationMode;
    fmi3ExitInitializationModeTYPE *ExitInitializationMode;
    fmi3EnterEventModeTYPE *EnterEventMode;
    fmi3TerminateTYPE *Terminate;
    fmi3ResetTYPE *Reset;
    fmi3GetFloat32TYPE *GetFloat32;
    fmi3GetFloat64TYPE *GetFloat64;
    fmi3GetInt8TYPE *GetInt8;
    fmi3GetUInt8TYPE *GetUInt8;
    fmi3GetInt16TYPE *GetInt16;
    fmi3GetUInt16TYPE *GetUInt16;
    fmi3GetInt32TYPE *GetInt32;
    fmi3GetUInt32TYPE *GetUInt32;
    fmi3GetInt64TYPE *GetInt64;
    fmi3GetUInt64TYPE *GetUInt64;
    fmi3GetBooleanTYPE *GetBoolean;
    fmi3GetStringTYPE *GetString;
    fmi3GetBinaryTYPE *GetBinary;
    fmi3GetClockTYPE *GetClock;
    fmi3SetFloat32TYPE *SetFloat32;
    fmi3SetFloat64TYPE *SetFloat64;
    fmi3SetInt8TYPE *SetInt8;
    fmi3SetUInt8TYPE *SetUInt8;
    fmi3SetInt16TYPE *SetInt16;
    fmi3SetUInt16TYPE *SetUInt16;
    fmi3SetInt32TYPE *SetInt32;
    fmi3SetUInt32TYPE *SetUInt32;
    fmi3SetInt64TYPE *SetInt64;
    fmi3SetUInt64TYPE *SetUInt64;
    fmi3SetBooleanTYPE *SetBoolean;
    fmi3SetStringTYPE *SetString;
    fmi3SetBinaryTYPE *SetBinary;
    fmi3SetClockTYPE *SetClock;
    fmi3GetNumberOfVariableDependenciesTYPE *GetNumberOfVariableDependencies;
    fmi3GetVariableDependenciesTYPE *GetVariableDependencies;
    fmi3GetFMUStateTYPE *GetFMUState;
    fmi3SetFMUStateTYPE *SetFMUState;
    fmi3FreeFMUStateTYPE *FreeFMUState;
    fmi3SerializedFMUStateSizeTYPE *SerializedFMUStateSize;
    fmi3SerializeFMUStateTYPE *SerializeFMUState;
    fmi3DeserializeFMUStateTYPE *DeserializeFMUState;
    fmi3GetDirectionalDerivativeTYPE *GetDirectionalDerivative;
    fmi3GetAdjointDerivativeTYPE *GetAdjointDerivative;
    fmi3EnterConfigurationModeTYPE *EnterConfigurationMode;
    fmi3ExitConfigurationModeTYPE *ExitConfigurationMode;
    fmi3UpdateDiscreteStatesTYPE *UpdateDiscreteStates;
    fmi3EnterStepModeTYPE *EnterStepMode;
    fmi3GetOutputDerivativesTYPE *GetOutputDerivatives;
    fmi3DoStepTYPE *DoStep;
    /* Model Exchange */
    fmi3InstantiateModelExchangeTYPE *InstantiateModelExchange;
    fmi3EnterContinuousTimeModeTYPE *EnterContinuousTimeMode;
    fmi3CompletedIntegratorStepTYPE *CompletedIntegratorStep;
    fmi3SetTimeTYPE *SetTime;
    fmi3SetContinuousStatesTYPE *SetContinuousStates;
    fmi3GetContinuousStateDerivativesTYPE *GetContinuousStateDerivatives;
    fmi3GetEventIndicatorsTYPE *GetEventIndicators;
    fmi3GetContinuousStatesTYPE *GetContinuousStates;
    fmi3GetNominalsOfContinuousStatesTYPE *GetNominalsOfContinuousStates;
    fmi3GetNumberOfContinuousStatesTYPE *GetNumberOfContinuousStates;
    fmi3GetNumberOfEventIndicatorsTYPE *GetNumberOfEventIndicators;
    /* Scheduled Execution (fmi3_se.c) */
    fmi3InstantiateScheduledExecutionTYPE *InstantiateScheduledExecution;
    fmi3ActivateModelPartitionTYPE *ActivateModelPartition;
    fmi3GetIntervalDecimalTYPE *GetIntervalDecimal;
} rtc_fmi3_api;

struct rtc_fmu {
    char dir[PATH_MAX];      /* extraction directory (owned, removed on close) */
    bool own_dir;            /* false when opened from an existing directory */
    rtc_model_desc *md;
    const rtc_logger *lg;
    /* load-time messages name the .fmu the user gave, not the extraction directory
     * (rtc__fmu_named) */
    char shown[PATH_MAX], src[PATH_MAX]; /* as named to the user; as opened */
    rtc_logger named;
    const rtc_logger *named_inner;
    void *dl;                /* dlopen handle, NULL until the first unit */
    const char *dl_id;       /* the modelIdentifier dl was loaded for (one binary per FMU) */
    _Atomic int units;       /* live units: the library stays loaded while > 0 (units may
                                be freed on different threads, hence atomic) */
    /* the FMU refused to instantiate with eventModeUsed: its later units do without, and
     * the warning is said once (units may be instantiated on different threads) */
    atomic_bool no_event_mode;
    union {
        rtc_fmi2_api fmi2;
        rtc_fmi3_api fmi3;
    } api;
};

/* @p lg with every "<extraction dir>/x" at the start of a message shown as "<the .fmu
 * path>: x" (an archive's temporary directory means nothing to the user); @p lg itself for
 * an FMU opened from a directory. Valid until the next call or close (fmu.c). */
const rtc_logger *rtc__fmu_named(rtc_fmu *fmu, const rtc_logger *lg);

/* Load binaries/<platform>/<id>.so of the interface (me: ModelExchange, else CoSimulation)
 * and bind the version's function table, checking what that interface needs (fmu_bin.c). */
int rtc__fmu_bind(rtc_fmu *fmu, bool me, const rtc_logger *lg);

/* Unit constructors of each version (fmi2_cs.c, fmi3_cs.c). With @p me the instance is
 * created for Model Exchange (fmi2ModelExchange / fmi3InstantiateModelExchange) and its
 * do_step is not used: me_unit.c wraps it. */
int rtc__fmi2_unit_new(rtc_fmu *fmu, const char *instance_name, bool me, const rtc_logger *lg,
                       rtc_unit **out);
int rtc__fmi3_unit_new(rtc_fmu *fmu, const char *instance_name, bool me,
                       rtc_fmu_event_mode event_mode, const rtc_logger *lg, rtc_unit **out);

/* True when the model has a variable of type Clock (FMI 3 then needs Event Mode). */
bool rtc__fmu_has_clocks(const rtc_model_desc *md);

/* The FMI instance of a unit from the constructors above (after instantiate), and the flag
 * its calls set on a Fatal status (the standard then allows no further call but free). */
void *rtc__fmi2_unit_instance(rtc_unit *unit, bool **fatal);
void *rtc__fmi3_unit_instance(rtc_unit *unit, bool **fatal);

/* Called by a unit's free: drops the FMU's unit count. */
void rtc__fmu_unit_released(rtc_fmu *fmu);

/*
 * Map an FMI status (fmi2Status and fmi3Status share the order OK, Warning, Discard, Error,
 * Fatal, [Pending]) to rtc_status: OK and Warning → RTC_OK, Discard → RTC_ETERMINATED,
 * Error → RTC_EFMU, Fatal → RTC_EFATAL, anything else → RTC_EUNSUPPORTED. Failures are logged
 * once as "<instance>: <function> returned <status>".
 */
int rtc__fmu_check(const char *instance, const char *function, int fmi_status,
                   const rtc_logger *lg);

/* Name of an FMI status value ("OK", "Warning", "Discard", "Error", "Fatal", "Pending"). */
const char *rtc__fmu_status_name(int fmi_status);

/* Route one message of an FMU's logger callback to the engine log: status decides the
 * level, the line reads "<instance> [<category>]: <message>". */
/* Engine log level of an FMU status (OK: info, Warning/Discard: warning, else error). */
int rtc__fmu_log_level(int fmi_status);
void rtc__fmu_log_message(const rtc_logger *lg, const char *instance, int fmi_status,
                          const char *category, const char *message);

/*
 * The filter of one unit's FMU messages (fmu_log.c): a message equal to the one before it
 * (same text and level) is counted, not printed; the count is printed as "<unit>: last
 * message repeated N more time(s)" before the next different message and at flush.
 * rtc__fmu_repeat_init returns the logger to hand the FMU's messages to (@p inner itself
 * when it logs nothing); @p unit must outlive the filter. _flush prints a pending count
 * (at terminate), _clear flushes and releases (at free; then init again to reuse).
 */
typedef struct rtc__fmu_repeat {
    rtc_logger lg;
    const rtc_logger *inner;
    const char *unit;
    pthread_mutex_t mu;
    bool ready, has_last;
    int level;
    unsigned long repeats;
    char last[RTC_LOG_MSG_MAX];
} rtc__fmu_repeat;
const rtc_logger *rtc__fmu_repeat_init(rtc__fmu_repeat *r, const char *unit,
                                       const rtc_logger *inner);
void rtc__fmu_repeat_flush(rtc__fmu_repeat *r);
void rtc__fmu_repeat_clear(rtc__fmu_repeat *r);

/* RTC_UNIT_* capability flags from the CoSimulation (or, with @p me, ModelExchange)
 * element. */
unsigned rtc__fmu_caps(const rtc_model_desc *md, bool me);

/* Percent-encode an absolute path into a file:// URI (FMI 2 resource location). */
int rtc__fmu_file_uri(const char *path, char *out, size_t cap);

#endif
