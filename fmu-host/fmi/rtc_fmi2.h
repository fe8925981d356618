/*
 * rtc_fmi2.h — the project's own declaration of the FMI 2.0 C API (Co-Simulation and the
 * common functions; the Model Exchange functions are declared too, for completeness).
 *
 * Written from the function signatures of the FMI 2.0.x standard (section 2.1 and 4.2).
 * Type names, function names and argument order follow the standard exactly, so the
 * symbols of any conforming FMU match. For every function there is
 *   - a function type `<name>TYPE` (the standard's convention); a host binds with
 *     `fmi2DoStepTYPE *do_step = (fmi2DoStepTYPE *)dlsym(lib, "fmi2DoStep");`
 *   - a prototype `RTC_FMI2_EXPORT <name>TYPE <name>;` for an FMU that defines it. An FMU
 *     built with -fvisibility=hidden defines RTC_FMI2_EXPORT as
 *     `__attribute__((visibility("default")))` before including this header.
 * Only standard C types; no rtcosim header is needed.
 */
#ifndef RTC_FMI2_H
#define RTC_FMI2_H

#include <stddef.h>

#ifndef RTC_FMI2_EXPORT
#define RTC_FMI2_EXPORT
#endif

/** Value of fmi2GetVersion() and of fmiVersion in modelDescription.xml. */
#define fmi2Version "2.0"
/** Value of fmi2GetTypesPlatform() for the standard type definitions below. */
#define fmi2TypesPlatform "default"

/* ---- Platform types (fmi2TypesPlatform.h of the standard, "default" platform) ---- */

typedef void *fmi2Component;            /**< an FMU instance */
typedef void *fmi2ComponentEnvironment; /**< host pointer handed back to the logger */
typedef void *fmi2FMUstate;             /**< an opaque saved FMU state */
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean; /**< fmi2True or fmi2False */
typedef char fmi2Char;
typedef const fmi2Char *fmi2String;
typedef char fmi2Byte; /**< element of a serialized FMU state */

#define fmi2True 1
#define fmi2False 0

/* ---- Enumerations ---- */

/** Return status, ordered by severity (a host merges with "worst wins"). */
typedef enum {
    fmi2OK,
    fmi2Warning,
    fmi2Discard, /**< step not done / result invalid; time may be retried */
    fmi2Error,   /**< instance unusable except fmi2Reset / fmi2SetFMUstate / free */
    fmi2Fatal,   /**< all instances unusable */
    fmi2Pending  /**< asynchronous fmi2DoStep still running */
} fmi2Status;

/** Interface requested by fmi2Instantiate. */
typedef enum { fmi2ModelExchange, fmi2CoSimulation } fmi2Type;

/** Kind argument of the fmi2Get*Status functions (Co-Simulation). */
typedef enum {
    fmi2DoStepStatus,       /**< fmi2GetStatus: status of a pending asynchronous step */
    fmi2PendingStatus,      /**< fmi2GetStringStatus: text describing a pending step */
    fmi2LastSuccessfulTime, /**< fmi2GetRealStatus: end time of the last good step */
    fmi2Terminated          /**< fmi2GetBooleanStatus: the slave wants to stop */
} fmi2StatusKind;

/* ---- Callbacks provided by the host ---- */

/** Logger: message is a printf format for the trailing arguments. Must be non-NULL. */
typedef void (*fmi2CallbackLogger)(fmi2ComponentEnvironment componentEnvironment,
                                   fmi2String instanceName,
                                   fmi2Status status,
                                   fmi2String category,
                                   fmi2String message,
                                   ...);
/** calloc-like allocator (zeroed memory for nobj * size bytes). */
typedef void *(*fmi2CallbackAllocateMemory)(size_t nobj, size_t size);
/** Frees memory from fmi2CallbackAllocateMemory. */
typedef void (*fmi2CallbackFreeMemory)(void *obj);
/** Completion signal of an asynchronous fmi2DoStep (may be NULL). */
typedef void (*fmi2StepFinished)(fmi2ComponentEnvironment componentEnvironment, fmi2Status status);

/** The callback block passed to fmi2Instantiate; must outlive the instance. */
typedef struct {
    const fmi2CallbackLogger logger;
    const fmi2CallbackAllocateMemory allocateMemory;
    const fmi2CallbackFreeMemory freeMemory;
    const fmi2StepFinished stepFinished;
    const fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;

/** Model Exchange event information (fmi2NewDiscreteStates). */
typedef struct {
    fmi2Boolean newDiscreteStatesNeeded;
    fmi2Boolean terminateSimulation;
    fmi2Boolean nominalsOfContinuousStatesChanged;
    fmi2Boolean valuesOfContinuousStatesChanged;
    fmi2Boolean nextEventTimeDefined;
    fmi2Real nextEventTime;
} fmi2EventInfo;

/* ---- Common functions: inquiry, logging, lifecycle ---- */

typedef const char *fmi2GetTypesPlatformTYPE(void);
typedef const char *fmi2GetVersionTYPE(void);
typedef fmi2Status fmi2SetDebugLoggingTYPE(fmi2Component c,
                                           fmi2Boolean loggingOn,
                                           size_t nCategories,
                                           const fmi2String categories[]);
/** Returns NULL on failure (bad name, GUID mismatch, missing callbacks, ...). */
typedef fmi2Component fmi2InstantiateTYPE(fmi2String instanceName,
                                          fmi2Type fmuType,
                                          fmi2String fmuGUID,
                                          fmi2String fmuResourceLocation,
                                          const fmi2CallbackFunctions *functions,
                                          fmi2Boolean visible,
                                          fmi2Boolean loggingOn);
typedef void fmi2FreeInstanceTYPE(fmi2Component c);
typedef fmi2Status fmi2SetupExperimentTYPE(fmi2Component c,
                                           fmi2Boolean toleranceDefined,
                                           fmi2Real tolerance,
                                           fmi2Real startTime,
                                           fmi2Boolean stopTimeDefined,
                                           fmi2Real stopTime);
typedef fmi2Status fmi2EnterInitializationModeTYPE(fmi2Component c);
typedef fmi2Status fmi2ExitInitializationModeTYPE(fmi2Component c);
typedef fmi2Status fmi2TerminateTYPE(fmi2Component c);
typedef fmi2Status fmi2ResetTYPE(fmi2Component c);

/* ---- Common functions: variable access (vr[i] pairs with value[i]) ---- */

typedef fmi2Status
fmi2GetRealTYPE(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]);
typedef fmi2Status
fmi2GetIntegerTYPE(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[]);
typedef fmi2Status
fmi2GetBooleanTYPE(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[]);
/** Returned strings are owned by the FMU, valid until its next call. */
typedef fmi2Status
fmi2GetStringTYPE(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[]);
typedef fmi2Status
fmi2SetRealTYPE(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[]);
typedef fmi2Status fmi2SetIntegerTYPE(fmi2Component c,
                                      const fmi2ValueReference vr[],
                                      size_t nvr,
                                      const fmi2Integer value[]);
typedef fmi2Status fmi2SetBooleanTYPE(fmi2Component c,
                                      const fmi2ValueReference vr[],
                                      size_t nvr,
                                      const fmi2Boolean value[]);
/** The FMU copies the strings; the caller keeps ownership. */
typedef fmi2Status fmi2SetStringTYPE(fmi2Component c,
                                     const fmi2ValueReference vr[],
                                     size_t nvr,
                                     const fmi2String value[]);

/* ---- Common functions: FMU state (canGetAndSetFMUstate, canSerializeFMUstate) ---- */

/** *FMUstate == NULL: allocate a new state; otherwise overwrite the given one. */
typedef fmi2Status fmi2GetFMUstateTYPE(fmi2Component c, fmi2FMUstate *FMUstate);
typedef fmi2Status fmi2SetFMUstateTYPE(fmi2Component c, fmi2FMUstate FMUstate);
/** Frees *FMUstate and sets it to NULL. */
typedef fmi2Status fmi2FreeFMUstateTYPE(fmi2Component c, fmi2FMUstate *FMUstate);
typedef fmi2Status
fmi2SerializedFMUstateSizeTYPE(fmi2Component c, fmi2FMUstate FMUstate, size_t *size);
typedef fmi2Status fmi2SerializeFMUstateTYPE(fmi2Component c,
                                             fmi2FMUstate FMUstate,
                                             fmi2Byte serializedState[],
                                             size_t size);
typedef fmi2Status fmi2DeSerializeFMUstateTYPE(fmi2Component c,
                                               const fmi2Byte serializedState[],
                                               size_t size,
                                               fmi2FMUstate *FMUstate);

/* ---- Common functions: partial derivatives (providesDirectionalDerivative) ---- */

typedef fmi2Status fmi2GetDirectionalDerivativeTYPE(fmi2Component c,
                                                    const fmi2ValueReference vUnknown_ref[],
                                                    size_t nUnknown,
                                                    const fmi2ValueReference vKnown_ref[],
                                                    size_t nKnown,
                                                    const fmi2Real dvKnown[],
                                                    fmi2Real dvUnknown[]);

/* ---- Co-Simulation functions ---- */

/** Input derivatives of the given orders (canInterpolateInputs). */
typedef fmi2Status fmi2SetRealInputDerivativesTYPE(fmi2Component c,
                                                   const fmi2ValueReference vr[],
                                                   size_t nvr,
                                                   const fmi2Integer order[],
                                                   const fmi2Real value[]);
/** Output derivatives up to maxOutputDerivativeOrder. */
typedef fmi2Status fmi2GetRealOutputDerivativesTYPE(fmi2Component c,
                                                    const fmi2ValueReference vr[],
                                                    size_t nvr,
                                                    const fmi2Integer order[],
                                                    fmi2Real value[]);
/** One communication step from currentCommunicationPoint over communicationStepSize. */
typedef fmi2Status fmi2DoStepTYPE(fmi2Component c,
                                  fmi2Real currentCommunicationPoint,
                                  fmi2Real communicationStepSize,
                                  fmi2Boolean noSetFMUStatePriorToCurrentPoint);
typedef fmi2Status fmi2CancelStepTYPE(fmi2Component c);
typedef fmi2Status fmi2GetStatusTYPE(fmi2Component c, const fmi2StatusKind s, fmi2Status *value);
typedef fmi2Status fmi2GetRealStatusTYPE(fmi2Component c, const fmi2StatusKind s, fmi2Real *value);
typedef fmi2Status
fmi2GetIntegerStatusTYPE(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value);
typedef fmi2Status
fmi2GetBooleanStatusTYPE(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value);
typedef fmi2Status
fmi2GetStringStatusTYPE(fmi2Component c, const fmi2StatusKind s, fmi2String *value);

/* ---- Model Exchange functions (declared for completeness; not used by rtcosim) ---- */

typedef fmi2Status fmi2EnterEventModeTYPE(fmi2Component c);
typedef fmi2Status fmi2NewDiscreteStatesTYPE(fmi2Component c, fmi2EventInfo *fmi2eventInfo);
typedef fmi2Status fmi2EnterContinuousTimeModeTYPE(fmi2Component c);
typedef fmi2Status fmi2CompletedIntegratorStepTYPE(fmi2Component c,
                                                   fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                                   fmi2Boolean *enterEventMode,
                                                   fmi2Boolean *terminateSimulation);
typedef fmi2Status fmi2SetTimeTYPE(fmi2Component c, fmi2Real time);
typedef fmi2Status fmi2SetContinuousStatesTYPE(fmi2Component c, const fmi2Real x[], size_t nx);
typedef fmi2Status fmi2GetDerivativesTYPE(fmi2Component c, fmi2Real derivatives[], size_t nx);
typedef fmi2Status
fmi2GetEventIndicatorsTYPE(fmi2Component c, fmi2Real eventIndicators[], size_t ni);
typedef fmi2Status fmi2GetContinuousStatesTYPE(fmi2Component c, fmi2Real x[], size_t nx);
typedef fmi2Status
fmi2GetNominalsOfContinuousStatesTYPE(fmi2Component c, fmi2Real x_nominal[], size_t nx);

/* ---- Prototypes for an FMU that exports the functions ---- */

RTC_FMI2_EXPORT fmi2GetTypesPlatformTYPE fmi2GetTypesPlatform;
RTC_FMI2_EXPORT fmi2GetVersionTYPE fmi2GetVersion;
RTC_FMI2_EXPORT fmi2SetDebugLoggingTYPE fmi2SetDebugLogging;
RTC_FMI2_EXPORT fmi2InstantiateTYPE fmi2Instantiate;
RTC_FMI2_EXPORT fmi2FreeInstanceTYPE fmi2FreeInstance;
RTC_FMI2_EXPORT fmi2SetupExperimentTYPE fmi2SetupExperiment;
RTC_FMI2_EXPORT fmi2EnterInitializationModeTYPE fmi2EnterInitializationMode;
RTC_FMI2_EXPORT fmi2ExitInitializationModeTYPE fmi2ExitInitializationMode;
RTC_FMI2_EXPORT fmi2TerminateTYPE fmi2Terminate;
RTC_FMI2_EXPORT fmi2ResetTYPE fmi2Reset;
RTC_FMI2_EXPORT fmi2GetRealTYPE fmi2GetReal;
RTC_FMI2_EXPORT fmi2GetIntegerTYPE fmi2GetInteger;
RTC_FMI2_EXPORT fmi2GetBooleanTYPE fmi2GetBoolean;
RTC_FMI2_EXPORT fmi2GetStringTYPE fmi2GetString;
RTC_FMI2_EXPORT fmi2SetRealTYPE fmi2SetReal;
RTC_FMI2_EXPORT fmi2SetIntegerTYPE fmi2SetInteger;
RTC_FMI2_EXPORT fmi2SetBooleanTYPE fmi2SetBoolean;
RTC_FMI2_EXPORT fmi2SetStringTYPE fmi2SetString;
RTC_FMI2_EXPORT fmi2GetFMUstateTYPE fmi2GetFMUstate;
RTC_FMI2_EXPORT fmi2SetFMUstateTYPE fmi2SetFMUstate;
RTC_FMI2_EXPORT fmi2FreeFMUstateTYPE fmi2FreeFMUstate;
RTC_FMI2_EXPORT fmi2SerializedFMUstateSizeTYPE fmi2SerializedFMUstateSize;
RTC_FMI2_EXPORT fmi2SerializeFMUstateTYPE fmi2SerializeFMUstate;
RTC_FMI2_EXPORT fmi2DeSerializeFMUstateTYPE fmi2DeSerializeFMUstate;
RTC_FMI2_EXPORT fmi2GetDirectionalDerivativeTYPE fmi2GetDirectionalDerivative;
RTC_FMI2_EXPORT fmi2SetRealInputDerivativesTYPE fmi2SetRealInputDerivatives;
RTC_FMI2_EXPORT fmi2GetRealOutputDerivativesTYPE fmi2GetRealOutputDerivatives;
RTC_FMI2_EXPORT fmi2DoStepTYPE fmi2DoStep;
RTC_FMI2_EXPORT fmi2CancelStepTYPE fmi2CancelStep;
RTC_FMI2_EXPORT fmi2GetStatusTYPE fmi2GetStatus;
RTC_FMI2_EXPORT fmi2GetRealStatusTYPE fmi2GetRealStatus;
RTC_FMI2_EXPORT fmi2GetIntegerStatusTYPE fmi2GetIntegerStatus;
RTC_FMI2_EXPORT fmi2GetBooleanStatusTYPE fmi2GetBooleanStatus;
RTC_FMI2_EXPORT fmi2GetStringStatusTYPE fmi2GetStringStatus;
RTC_FMI2_EXPORT fmi2EnterEventModeTYPE fmi2EnterEventMode;
RTC_FMI2_EXPORT fmi2NewDiscreteStatesTYPE fmi2NewDiscreteStates;
RTC_FMI2_EXPORT fmi2EnterContinuousTimeModeTYPE fmi2EnterContinuousTimeMode;
RTC_FMI2_EXPORT fmi2CompletedIntegratorStepTYPE fmi2CompletedIntegratorStep;
RTC_FMI2_EXPORT fmi2SetTimeTYPE fmi2SetTime;
RTC_FMI2_EXPORT fmi2SetContinuousStatesTYPE fmi2SetContinuousStates;
RTC_FMI2_EXPORT fmi2GetDerivativesTYPE fmi2GetDerivatives;
RTC_FMI2_EXPORT fmi2GetEventIndicatorsTYPE fmi2GetEventIndicators;
RTC_FMI2_EXPORT fmi2GetContinuousStatesTYPE fmi2GetContinuousStates;
RTC_FMI2_EXPORT fmi2GetNominalsOfContinuousStatesTYPE fmi2GetNominalsOfContinuousStates;

#endif /* RTC_FMI2_H */
