/*
 * rtc_fmi3.h — the project's own declaration of the FMI 3.0 C API: all common functions,
 * the Co-Simulation functions, and (declared only) Model Exchange and Scheduled Execution.
 *
 * Written from the function signatures of the FMI 3.0 standard (chapters 2.2, 3.2, 4.2,
 * 5.2). Type names, function names and argument order follow the standard exactly, so the
 * symbols of any conforming FMU match. For every function there is
 *   - a function type `<name>TYPE` (the standard's convention); a host binds with
 *     `fmi3DoStepTYPE *do_step = (fmi3DoStepTYPE *)dlsym(lib, "fmi3DoStep");`
 *   - a prototype `RTC_FMI3_EXPORT <name>TYPE <name>;` for an FMU that defines it. An FMU
 *     built with -fvisibility=hidden defines RTC_FMI3_EXPORT as
 *     `__attribute__((visibility("default")))` before including this header.
 * Array variables are passed flattened (row-major): nValues counts scalar elements.
 */
#ifndef RTC_FMI3_H
#define RTC_FMI3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef RTC_FMI3_EXPORT
#define RTC_FMI3_EXPORT
#endif

/** Value of fmi3GetVersion() and of fmiVersion in modelDescription.xml. */
#define fmi3Version "3.0"

/* ---- Platform types (fmi3PlatformTypes.h of the standard) ---- */

typedef void *fmi3Instance;            /**< an FMU instance */
typedef void *fmi3InstanceEnvironment; /**< host pointer handed back to callbacks */
typedef void *fmi3FMUState;            /**< an opaque saved FMU state */
typedef uint32_t fmi3ValueReference;
typedef float fmi3Float32;
typedef double fmi3Float64;
typedef int8_t fmi3Int8;
typedef uint8_t fmi3UInt8;
typedef int16_t fmi3Int16;
typedef uint16_t fmi3UInt16;
typedef int32_t fmi3Int32;
typedef uint32_t fmi3UInt32;
typedef int64_t fmi3Int64;
typedef uint64_t fmi3UInt64;
typedef bool fmi3Boolean;
typedef char fmi3Char;
typedef const fmi3Char *fmi3String;
typedef uint8_t fmi3Byte;
typedef const fmi3Byte *fmi3Binary; /**< value of a Binary variable; size passed aside */
typedef bool fmi3Clock;             /**< fmi3ClockActive / fmi3ClockInactive */

#define fmi3True true
#define fmi3False false
#define fmi3ClockActive true
#define fmi3ClockInactive false

/* ---- Enumerations ---- */

/** Return status, ordered by severity (a host merges with "worst wins"). */
typedef enum {
    fmi3OK,
    fmi3Warning,
    fmi3Discard, /**< result invalid; see the function for what may follow */
    fmi3Error,   /**< instance unusable except fmi3Reset / fmi3SetFMUState / free */
    fmi3Fatal    /**< all instances unusable */
} fmi3Status;

/** Interface kind (informational; each interface has its own instantiate function). */
typedef enum { fmi3ModelExchange, fmi3CoSimulation, fmi3ScheduledExecution } fmi3Type;

/** Kind of dependency reported by fmi3GetVariableDependencies. */
typedef enum {
    fmi3Independent,
    fmi3Constant,
    fmi3Fixed,
    fmi3Tunable,
    fmi3Discrete,
    fmi3Dependent
} fmi3DependencyKind;

/** Qualifier of a clock interval from fmi3GetInterval*. */
typedef enum {
    fmi3IntervalNotYetKnown,
    fmi3IntervalUnchanged,
    fmi3IntervalChanged
} fmi3IntervalQualifier;

/* ---- Callbacks provided by the host ---- */

/** Logger; message is plain text (not a format). */
typedef void (*fmi3LogMessageCallback)(fmi3InstanceEnvironment instanceEnvironment,
                                       fmi3Status status,
                                       fmi3String category,
                                       fmi3String message);
/** Co-Simulation intermediate update (providesIntermediateUpdate); may be NULL. */
typedef void (*fmi3IntermediateUpdateCallback)(fmi3InstanceEnvironment instanceEnvironment,
                                               fmi3Float64 intermediateUpdateTime,
                                               fmi3Boolean intermediateVariableSetRequested,
                                               fmi3Boolean intermediateVariableGetAllowed,
                                               fmi3Boolean intermediateStepFinished,
                                               fmi3Boolean canReturnEarly,
                                               fmi3Boolean *earlyReturnRequested,
                                               fmi3Float64 *earlyReturnTime);
/** Scheduled Execution: a clock ticked inside the FMU. */
typedef void (*fmi3ClockUpdateCallback)(fmi3InstanceEnvironment instanceEnvironment);
/** Scheduled Execution: enter / leave a section that must not be preempted. */
typedef void (*fmi3LockPreemptionCallback)(void);
typedef void (*fmi3UnlockPreemptionCallback)(void);

/* ---- Common functions: inquiry, logging ---- */

typedef const char *fmi3GetVersionTYPE(void);
typedef fmi3Status fmi3SetDebugLoggingTYPE(fmi3Instance instance,
                                           fmi3Boolean loggingOn,
                                           size_t nCategories,
                                           const fmi3String categories[]);

/* ---- Instantiation (one function per interface; NULL on failure) ---- */

typedef fmi3Instance fmi3InstantiateModelExchangeTYPE(fmi3String instanceName,
                                                      fmi3String instantiationToken,
                                                      fmi3String resourcePath,
                                                      fmi3Boolean visible,
                                                      fmi3Boolean loggingOn,
                                                      fmi3InstanceEnvironment instanceEnvironment,
                                                      fmi3LogMessageCallback logMessage);
/** resourcePath is an absolute native path ending in '/' (or NULL without resources). */
typedef fmi3Instance
fmi3InstantiateCoSimulationTYPE(fmi3String instanceName,
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
                                fmi3IntermediateUpdateCallback intermediateUpdate);
typedef fmi3Instance
fmi3InstantiateScheduledExecutionTYPE(fmi3String instanceName,
                                      fmi3String instantiationToken,
                                      fmi3String resourcePath,
                                      fmi3Boolean visible,
                                      fmi3Boolean loggingOn,
                                      fmi3InstanceEnvironment instanceEnvironment,
                                      fmi3LogMessageCallback logMessage,
                                      fmi3ClockUpdateCallback clockUpdate,
                                      fmi3LockPreemptionCallback lockPreemption,
                                      fmi3UnlockPreemptionCallback unlockPreemption);
typedef void fmi3FreeInstanceTYPE(fmi3Instance instance);

/* ---- Common functions: modes ---- */

typedef fmi3Status fmi3EnterInitializationModeTYPE(fmi3Instance instance,
                                                   fmi3Boolean toleranceDefined,
                                                   fmi3Float64 tolerance,
                                                   fmi3Float64 startTime,
                                                   fmi3Boolean stopTimeDefined,
                                                   fmi3Float64 stopTime);
typedef fmi3Status fmi3ExitInitializationModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3EnterEventModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3TerminateTYPE(fmi3Instance instance);
typedef fmi3Status fmi3ResetTYPE(fmi3Instance instance);
typedef fmi3Status fmi3EnterConfigurationModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3ExitConfigurationModeTYPE(fmi3Instance instance);

/* ---- Common functions: variable access ----
 * valueReferences[0..nValueReferences) select variables; values[0..nValues) holds their
 * elements in order (arrays flattened), so nValues >= nValueReferences. */

#define RTC_FMI3_GETSET_TYPES(T)                                                                   \
    typedef fmi3Status fmi3Get##T##TYPE(                                                           \
        fmi3Instance instance, const fmi3ValueReference valueReferences[],                         \
        size_t nValueReferences, fmi3##T values[], size_t nValues);                                \
    typedef fmi3Status fmi3Set##T##TYPE(                                                           \
        fmi3Instance instance, const fmi3ValueReference valueReferences[],                         \
        size_t nValueReferences, const fmi3##T values[], size_t nValues);
RTC_FMI3_GETSET_TYPES(Float32)
RTC_FMI3_GETSET_TYPES(Float64)
RTC_FMI3_GETSET_TYPES(Int8)
RTC_FMI3_GETSET_TYPES(UInt8)
RTC_FMI3_GETSET_TYPES(Int16)
RTC_FMI3_GETSET_TYPES(UInt16)
RTC_FMI3_GETSET_TYPES(Int32)
RTC_FMI3_GETSET_TYPES(UInt32)
RTC_FMI3_GETSET_TYPES(Int64) /* also Enumeration variables */
RTC_FMI3_GETSET_TYPES(UInt64)
RTC_FMI3_GETSET_TYPES(Boolean)
RTC_FMI3_GETSET_TYPES(String) /* get: FMU-owned strings, valid until the next call */
#undef RTC_FMI3_GETSET_TYPES

/** values[i] points to valueSizes[i] bytes owned by the FMU (valid until the next call). */
typedef fmi3Status fmi3GetBinaryTYPE(fmi3Instance instance,
                                     const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences,
                                     size_t valueSizes[],
                                     fmi3Binary values[],
                                     size_t nValues);
typedef fmi3Status fmi3SetBinaryTYPE(fmi3Instance instance,
                                     const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences,
                                     const size_t valueSizes[],
                                     const fmi3Binary values[],
                                     size_t nValues);
/** Clocks are scalar: one value per reference. */
typedef fmi3Status fmi3GetClockTYPE(fmi3Instance instance,
                                    const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences,
                                    fmi3Clock values[]);
typedef fmi3Status fmi3SetClockTYPE(fmi3Instance instance,
                                    const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences,
                                    const fmi3Clock values[]);

/* ---- Common functions: variable dependencies (providesPerElementDependencies) ---- */

typedef fmi3Status fmi3GetNumberOfVariableDependenciesTYPE(fmi3Instance instance,
                                                           fmi3ValueReference valueReference,
                                                           size_t *nDependencies);
typedef fmi3Status fmi3GetVariableDependenciesTYPE(fmi3Instance instance,
                                                   fmi3ValueReference dependent,
                                                   size_t elementIndicesOfDependent[],
                                                   fmi3ValueReference independents[],
                                                   size_t elementIndicesOfIndependents[],
                                                   fmi3DependencyKind dependencyKinds[],
                                                   size_t nDependencies);

/* ---- Common functions: FMU state (canGetAndSetFMUState, canSerializeFMUState) ---- */

/** *FMUState == NULL: allocate a new state; otherwise overwrite the given one. */
typedef fmi3Status fmi3GetFMUStateTYPE(fmi3Instance instance, fmi3FMUState *FMUState);
typedef fmi3Status fmi3SetFMUStateTYPE(fmi3Instance instance, fmi3FMUState FMUState);
/** Frees *FMUState and sets it to NULL. */
typedef fmi3Status fmi3FreeFMUStateTYPE(fmi3Instance instance, fmi3FMUState *FMUState);
typedef fmi3Status
fmi3SerializedFMUStateSizeTYPE(fmi3Instance instance, fmi3FMUState FMUState, size_t *size);
typedef fmi3Status fmi3SerializeFMUStateTYPE(fmi3Instance instance,
                                             fmi3FMUState FMUState,
                                             fmi3Byte serializedState[],
                                             size_t size);
typedef fmi3Status fmi3DeserializeFMUStateTYPE(fmi3Instance instance,
                                               const fmi3Byte serializedState[],
                                               size_t size,
                                               fmi3FMUState *FMUState);

/* ---- Common functions: partial derivatives ---- */

typedef fmi3Status fmi3GetDirectionalDerivativeTYPE(fmi3Instance instance,
                                                    const fmi3ValueReference unknowns[],
                                                    size_t nUnknowns,
                                                    const fmi3ValueReference knowns[],
                                                    size_t nKnowns,
                                                    const fmi3Float64 seed[],
                                                    size_t nSeed,
                                                    fmi3Float64 sensitivity[],
                                                    size_t nSensitivity);
typedef fmi3Status fmi3GetAdjointDerivativeTYPE(fmi3Instance instance,
                                                const fmi3ValueReference unknowns[],
                                                size_t nUnknowns,
                                                const fmi3ValueReference knowns[],
                                                size_t nKnowns,
                                                const fmi3Float64 seed[],
                                                size_t nSeed,
                                                fmi3Float64 sensitivity[],
                                                size_t nSensitivity);

/* ---- Common functions: clocks (interval/shift) and discrete states ---- */

typedef fmi3Status fmi3GetIntervalDecimalTYPE(fmi3Instance instance,
                                              const fmi3ValueReference valueReferences[],
                                              size_t nValueReferences,
                                              fmi3Float64 intervals[],
                                              fmi3IntervalQualifier qualifiers[]);
typedef fmi3Status fmi3GetIntervalFractionTYPE(fmi3Instance instance,
                                               const fmi3ValueReference valueReferences[],
                                               size_t nValueReferences,
                                               fmi3UInt64 counters[],
                                               fmi3UInt64 resolutions[],
                                               fmi3IntervalQualifier qualifiers[]);
typedef fmi3Status fmi3GetShiftDecimalTYPE(fmi3Instance instance,
                                           const fmi3ValueReference valueReferences[],
                                           size_t nValueReferences,
                                           fmi3Float64 shifts[]);
typedef fmi3Status fmi3GetShiftFractionTYPE(fmi3Instance instance,
                                            const fmi3ValueReference valueReferences[],
                                            size_t nValueReferences,
                                            fmi3UInt64 counters[],
                                            fmi3UInt64 resolutions[]);
typedef fmi3Status fmi3SetIntervalDecimalTYPE(fmi3Instance instance,
                                              const fmi3ValueReference valueReferences[],
                                              size_t nValueReferences,
                                              const fmi3Float64 intervals[]);
typedef fmi3Status fmi3SetIntervalFractionTYPE(fmi3Instance instance,
                                               const fmi3ValueReference valueReferences[],
                                               size_t nValueReferences,
                                               const fmi3UInt64 counters[],
                                               const fmi3UInt64 resolutions[]);
typedef fmi3Status fmi3SetShiftDecimalTYPE(fmi3Instance instance,
                                           const fmi3ValueReference valueReferences[],
                                           size_t nValueReferences,
                                           const fmi3Float64 shifts[]);
typedef fmi3Status fmi3SetShiftFractionTYPE(fmi3Instance instance,
                                            const fmi3ValueReference valueReferences[],
                                            size_t nValueReferences,
                                            const fmi3UInt64 counters[],
                                            const fmi3UInt64 resolutions[]);
typedef fmi3Status fmi3EvaluateDiscreteStatesTYPE(fmi3Instance instance);
typedef fmi3Status fmi3UpdateDiscreteStatesTYPE(fmi3Instance instance,
                                                fmi3Boolean *discreteStatesNeedUpdate,
                                                fmi3Boolean *terminateSimulation,
                                                fmi3Boolean *nominalsOfContinuousStatesChanged,
                                                fmi3Boolean *valuesOfContinuousStatesChanged,
                                                fmi3Boolean *nextEventTimeDefined,
                                                fmi3Float64 *nextEventTime);

/* ---- Co-Simulation functions ---- */

typedef fmi3Status fmi3EnterStepModeTYPE(fmi3Instance instance);
/** orders[i] >= 1; values flattened like fmi3GetFloat64. */
typedef fmi3Status fmi3GetOutputDerivativesTYPE(fmi3Instance instance,
                                                const fmi3ValueReference valueReferences[],
                                                size_t nValueReferences,
                                                const fmi3Int32 orders[],
                                                fmi3Float64 values[],
                                                size_t nValues);
/**
 * One communication step. On return: eventHandlingNeeded (enter Event Mode),
 * terminateSimulation (the FMU wants to stop; call fmi3Terminate), earlyReturn (stopped
 * before the end) and lastSuccessfulTime (time actually reached).
 */
typedef fmi3Status fmi3DoStepTYPE(fmi3Instance instance,
                                  fmi3Float64 currentCommunicationPoint,
                                  fmi3Float64 communicationStepSize,
                                  fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                  fmi3Boolean *eventHandlingNeeded,
                                  fmi3Boolean *terminateSimulation,
                                  fmi3Boolean *earlyReturn,
                                  fmi3Float64 *lastSuccessfulTime);

/* ---- Model Exchange functions (declared for completeness; not used by rtcosim) ---- */

typedef fmi3Status fmi3EnterContinuousTimeModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3CompletedIntegratorStepTYPE(fmi3Instance instance,
                                                   fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                                   fmi3Boolean *enterEventMode,
                                                   fmi3Boolean *terminateSimulation);
typedef fmi3Status fmi3SetTimeTYPE(fmi3Instance instance, fmi3Float64 time);
typedef fmi3Status fmi3SetContinuousStatesTYPE(fmi3Instance instance,
                                               const fmi3Float64 continuousStates[],
                                               size_t nContinuousStates);
typedef fmi3Status fmi3GetContinuousStateDerivativesTYPE(fmi3Instance instance,
                                                         fmi3Float64 derivatives[],
                                                         size_t nContinuousStates);
typedef fmi3Status fmi3GetEventIndicatorsTYPE(fmi3Instance instance,
                                              fmi3Float64 eventIndicators[],
                                              size_t nEventIndicators);
typedef fmi3Status fmi3GetContinuousStatesTYPE(fmi3Instance instance,
                                               fmi3Float64 continuousStates[],
                                               size_t nContinuousStates);
typedef fmi3Status fmi3GetNominalsOfContinuousStatesTYPE(fmi3Instance instance,
                                                         fmi3Float64 nominals[],
                                                         size_t nContinuousStates);
typedef fmi3Status fmi3GetNumberOfEventIndicatorsTYPE(fmi3Instance instance,
                                                      size_t *nEventIndicators);
typedef fmi3Status fmi3GetNumberOfContinuousStatesTYPE(fmi3Instance instance,
                                                       size_t *nContinuousStates);

/* ---- Scheduled Execution function (declared for completeness) ---- */

typedef fmi3Status fmi3ActivateModelPartitionTYPE(fmi3Instance instance,
                                                  fmi3ValueReference clockReference,
                                                  fmi3Float64 activationTime);

/* ---- Prototypes for an FMU that exports the functions ---- */

RTC_FMI3_EXPORT fmi3GetVersionTYPE fmi3GetVersion;
RTC_FMI3_EXPORT fmi3SetDebugLoggingTYPE fmi3SetDebugLogging;
RTC_FMI3_EXPORT fmi3InstantiateModelExchangeTYPE fmi3InstantiateModelExchange;
RTC_FMI3_EXPORT fmi3InstantiateCoSimulationTYPE fmi3InstantiateCoSimulation;
RTC_FMI3_EXPORT fmi3InstantiateScheduledExecutionTYPE fmi3InstantiateScheduledExecution;
RTC_FMI3_EXPORT fmi3FreeInstanceTYPE fmi3FreeInstance;
RTC_FMI3_EXPORT fmi3EnterInitializationModeTYPE fmi3EnterInitializationMode;
RTC_FMI3_EXPORT fmi3ExitInitializationModeTYPE fmi3ExitInitializationMode;
RTC_FMI3_EXPORT fmi3EnterEventModeTYPE fmi3EnterEventMode;
RTC_FMI3_EXPORT fmi3TerminateTYPE fmi3Terminate;
RTC_FMI3_EXPORT fmi3ResetTYPE fmi3Reset;
RTC_FMI3_EXPORT fmi3EnterConfigurationModeTYPE fmi3EnterConfigurationMode;
RTC_FMI3_EXPORT fmi3ExitConfigurationModeTYPE fmi3ExitConfigurationMode;
RTC_FMI3_EXPORT fmi3GetFloat32TYPE fmi3GetFloat32;
RTC_FMI3_EXPORT fmi3GetFloat64TYPE fmi3GetFloat64;
RTC_FMI3_EXPORT fmi3GetInt8TYPE fmi3GetInt8;
RTC_FMI3_EXPORT fmi3GetUInt8TYPE fmi3GetUInt8;
RTC_FMI3_EXPORT fmi3GetInt16TYPE fmi3GetInt16;
RTC_FMI3_EXPORT fmi3GetUInt16TYPE fmi3GetUInt16;
RTC_FMI3_EXPORT fmi3GetInt32TYPE fmi3GetInt32;
RTC_FMI3_EXPORT fmi3GetUInt32TYPE fmi3GetUInt32;
RTC_FMI3_EXPORT fmi3GetInt64TYPE fmi3GetInt64;
RTC_FMI3_EXPORT fmi3GetUInt64TYPE fmi3GetUInt64;
RTC_FMI3_EXPORT fmi3GetBooleanTYPE fmi3GetBoolean;
RTC_FMI3_EXPORT fmi3GetStringTYPE fmi3GetString;
RTC_FMI3_EXPORT fmi3GetBinaryTYPE fmi3GetBinary;
RTC_FMI3_EXPORT fmi3GetClockTYPE fmi3GetClock;
RTC_FMI3_EXPORT fmi3SetFloat32TYPE fmi3SetFloat32;
RTC_FMI3_EXPORT fmi3SetFloat64TYPE fmi3SetFloat64;
RTC_FMI3_EXPORT fmi3SetInt8TYPE fmi3SetInt8;
RTC_FMI3_EXPORT fmi3SetUInt8TYPE fmi3SetUInt8;
RTC_FMI3_EXPORT fmi3SetInt16TYPE fmi3SetInt16;
RTC_FMI3_EXPORT fmi3SetUInt16TYPE fmi3SetUInt16;
RTC_FMI3_EXPORT fmi3SetInt32TYPE fmi3SetInt32;
RTC_FMI3_EXPORT fmi3SetUInt32TYPE fmi3SetUInt32;
RTC_FMI3_EXPORT fmi3SetInt64TYPE fmi3SetInt64;
RTC_FMI3_EXPORT fmi3SetUInt64TYPE fmi3SetUInt64;
RTC_FMI3_EXPORT fmi3SetBooleanTYPE fmi3SetBoolean;
RTC_FMI3_EXPORT fmi3SetStringTYPE fmi3SetString;
RTC_FMI3_EXPORT fmi3SetBinaryTYPE fmi3SetBinary;
RTC_FMI3_EXPORT fmi3SetClockTYPE fmi3SetClock;
RTC_FMI3_EXPORT fmi3GetNumberOfVariableDependenciesTYPE fmi3GetNumberOfVariableDependencies;
RTC_FMI3_EXPORT fmi3GetVariableDependenciesTYPE fmi3GetVariableDependencies;
RTC_FMI3_EXPORT fmi3GetFMUStateTYPE fmi3GetFMUState;
RTC_FMI3_EXPORT fmi3SetFMUStateTYPE fmi3SetFMUState;
RTC_FMI3_EXPORT fmi3FreeFMUStateTYPE fmi3FreeFMUState;
RTC_FMI3_EXPORT fmi3SerializedFMUStateSizeTYPE fmi3SerializedFMUStateSize;
RTC_FMI3_EXPORT fmi3SerializeFMUStateTYPE fmi3SerializeFMUState;
RTC_FMI3_EXPORT fmi3DeserializeFMUStateTYPE fmi3DeserializeFMUState;
RTC_FMI3_EXPORT fmi3GetDirectionalDerivativeTYPE fmi3GetDirectionalDerivative;
RTC_FMI3_EXPORT fmi3GetAdjointDerivativeTYPE fmi3GetAdjointDerivative;
RTC_FMI3_EXPORT fmi3GetIntervalDecimalTYPE fmi3GetIntervalDecimal;
RTC_FMI3_EXPORT fmi3GetIntervalFractionTYPE fmi3GetIntervalFraction;
RTC_FMI3_EXPORT fmi3GetShiftDecimalTYPE fmi3GetShiftDecimal;
RTC_FMI3_EXPORT fmi3GetShiftFractionTYPE fmi3GetShiftFraction;
RTC_FMI3_EXPORT fmi3SetIntervalDecimalTYPE fmi3SetIntervalDecimal;
RTC_FMI3_EXPORT fmi3SetIntervalFractionTYPE fmi3SetIntervalFraction;
RTC_FMI3_EXPORT fmi3SetShiftDecimalTYPE fmi3SetShiftDecimal;
RTC_FMI3_EXPORT fmi3SetShiftFractionTYPE fmi3SetShiftFraction;
RTC_FMI3_EXPORT fmi3EvaluateDiscreteStatesTYPE fmi3EvaluateDiscreteStates;
RTC_FMI3_EXPORT fmi3UpdateDiscreteStatesTYPE fmi3UpdateDiscreteStates;
RTC_FMI3_EXPORT fmi3EnterStepModeTYPE fmi3EnterStepMode;
RTC_FMI3_EXPORT fmi3GetOutputDerivativesTYPE fmi3GetOutputDerivatives;
RTC_FMI3_EXPORT fmi3DoStepTYPE fmi3DoStep;
RTC_FMI3_EXPORT fmi3EnterContinuousTimeModeTYPE fmi3EnterContinuousTimeMode;
RTC_FMI3_EXPORT fmi3CompletedIntegratorStepTYPE fmi3CompletedIntegratorStep;
RTC_FMI3_EXPORT fmi3SetTimeTYPE fmi3SetTime;
RTC_FMI3_EXPORT fmi3SetContinuousStatesTYPE fmi3SetContinuousStates;
RTC_FMI3_EXPORT fmi3GetContinuousStateDerivativesTYPE fmi3GetContinuousStateDerivatives;
RTC_FMI3_EXPORT fmi3GetEventIndicatorsTYPE fmi3GetEventIndicators;
RTC_FMI3_EXPORT fmi3GetContinuousStatesTYPE fmi3GetContinuousStates;
RTC_FMI3_EXPORT fmi3GetNominalsOfContinuousStatesTYPE fmi3GetNominalsOfContinuousStates;
RTC_FMI3_EXPORT fmi3GetNumberOfEventIndicatorsTYPE fmi3GetNumberOfEventIndicators;
RTC_FMI3_EXPORT fmi3GetNumberOfContinuousStatesTYPE fmi3GetNumberOfContinuousStates;
RTC_FMI3_EXPORT fmi3ActivateModelPartitionTYPE fmi3ActivateModelPartition;

#endif /* RTC_FMI3_H */
