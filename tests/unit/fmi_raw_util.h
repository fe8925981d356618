/*
 * Helpers of test_fmus (test_fmus.c FMI 2, test_fmus_fmi3.c FMI 3): the staged test FMU
 * binaries dlopened and bound to their raw FMI functions (no fmu-host), their log lines
 * captured, and the small helpers the cases share.
 */
#ifndef RTC_TEST_FMI_RAW_UTIL_H
#define RTC_TEST_FMI_RAW_UTIL_H

#include "cu_main.h"
#include "rtc_fmi2.h"
#include "rtc_fmi3.h"

#include <stdbool.h>
#include <stddef.h>

#define STAGE RTC_TEST_FMU_DIR "/stage"
#define TOKEN(n) "{a3c2f1d0-5b6e-4c71-9d2a-00000000000" #n "}"
#define TOK_DECAY TOKEN(1)
#define TOK_MASS1 TOKEN(2)
#define TOK_MASSMONO TOKEN(4)
#define TOK_PI TOKEN(5)
#define TOK_BALL TOKEN(6)
#define TOK_PASS TOKEN(7)
#define TOK_FAULT TOKEN(8)

/* ---- captured log lines (every instance of the cases logs here) ---- */
void log_reset(void);
bool log_has(const char *needle);
void logger3(fmi3InstanceEnvironment env, fmi3Status st, fmi3String cat, fmi3String msg);
extern const fmi2CallbackFunctions cb2;

/* ---- loading: dlopen a staged FMU binary, kept open until close_libs() (a suite
 * cleanup); load2/load3 bind the functions the cases call ---- */
void *open_fmu(int version, const char *name);
int close_libs(void);

typedef struct fmu2 {
    fmi2InstantiateTYPE *instantiate;
    fmi2FreeInstanceTYPE *free_instance;
    fmi2SetupExperimentTYPE *setup;
    fmi2EnterInitializationModeTYPE *enter_init;
    fmi2ExitInitializationModeTYPE *exit_init;
    fmi2DoStepTYPE *do_step;
    fmi2TerminateTYPE *terminate;
    fmi2GetRealTYPE *get_real;
    fmi2SetRealTYPE *set_real;
    fmi2GetIntegerTYPE *get_int;
    fmi2SetIntegerTYPE *set_int;
    fmi2GetBooleanTYPE *get_bool;
    fmi2SetBooleanTYPE *set_bool;
    fmi2GetStringTYPE *get_str;
    fmi2SetStringTYPE *set_str;
    fmi2GetBooleanStatusTYPE *get_bool_status;
    fmi2GetRealStatusTYPE *get_real_status;
    fmi2GetFMUstateTYPE *get_state;
    fmi2SetFMUstateTYPE *set_state;
    fmi2FreeFMUstateTYPE *free_state;
    fmi2SerializedFMUstateSizeTYPE *ser_size;
    fmi2SerializeFMUstateTYPE *serialize;
    fmi2DeSerializeFMUstateTYPE *deserialize;
} fmu2;

bool load2(const char *name, fmu2 *f);

typedef struct fmu3 {
    fmi3InstantiateCoSimulationTYPE *instantiate;
    fmi3FreeInstanceTYPE *free_instance;
    fmi3EnterInitializationModeTYPE *enter_init;
    fmi3ExitInitializationModeTYPE *exit_init;
    fmi3DoStepTYPE *do_step;
    fmi3TerminateTYPE *terminate;
    fmi3EnterEventModeTYPE *enter_event;
    fmi3GetFloat64TYPE *get_f64;
    fmi3SetFloat64TYPE *set_f64;
    fmi3GetInt32TYPE *get_i32;
    fmi3SetInt32TYPE *set_i32;
    fmi3GetFMUStateTYPE *get_state;
    fmi3SetFMUStateTYPE *set_state;
    fmi3FreeFMUStateTYPE *free_state;
    void *lib;
} fmu3;

bool load3(const char *name, fmu3 *f);
/* The FMI 3 cases (test_fmus_fmi3.c). */
extern const rtc_test_case fmi3_cases[];

/* ---- small helpers ---- */
fmi2Component inst2(const fmu2 *f, const char *guid, const char *res);
/* Instantiate, set parameters (Integer then Real), initialize at t = 0. */
fmi2Component start2(const fmu2 *f,
                     const char *guid,
                     const char *res,
                     fmi2ValueReference ivr,
                     fmi2Integer ival,
                     const fmi2ValueReference *rvr,
                     const fmi2Real *rval,
                     size_t nr);
double get2(const fmu2 *f, fmi2Component c, fmi2ValueReference vr);
fmi3Instance inst3(const fmu3 *f, const char *token, const char *res);
fmi3Instance start3(const fmu3 *f, const char *token, const char *res);
double get3(const fmu3 *f, fmi3Instance c, fmi3ValueReference vr);
fmi3Status step3(const fmu3 *f, fmi3Instance c, double t, double h, bool *term, double *last);
double rel_err(double a, double b);
/* R1 of the survey (m = c = d = 1, x0 = 1, v0 = 0, Fe = 0): analytic position/velocity. */
void msd_exact(double t, double *x, double *v);
double now_s(void);
/* The number in the source tree's Fault/resources/value.txt, as the staged copy has it. */
double resource_file_value(int version);

#endif
