/* Raw FMI 2 / FMI 3 bindings of the staged test FMUs for test_fmus (see fmi_raw_util.h). */
#include "fmi_raw_util.h"

#include "cu_main.h"

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


/* ---- captured log lines ---- */

static char log_text[16384];
static size_t log_len;

void log_reset(void)
{
    log_len = 0;
    log_text[0] = '\0';
}

static void log_append(const char *cat, const char *msg)
{
    int n = snprintf(log_text + log_len, sizeof log_text - log_len, "[%s] %s\n", cat, msg);
    if (n > 0 && log_len + (size_t)n < sizeof log_text)
        log_len += (size_t)n;
}

bool log_has(const char *needle)
{
    return strstr(log_text, needle) != NULL;
}

static void logger2(fmi2ComponentEnvironment env,
                    fmi2String name,
                    fmi2Status st,
                    fmi2String cat,
                    fmi2String fmt,
                    ...)
{
    char msg[1024];
    va_list ap;
    (void)env, (void)name, (void)st;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log_append(cat, msg);
}

void logger3(fmi3InstanceEnvironment env, fmi3Status st, fmi3String cat, fmi3String msg)
{
    (void)env, (void)st;
    log_append(cat, msg);
}

const fmi2CallbackFunctions cb2 = {logger2, calloc, free, NULL, NULL};

/* ---- loading ---- */

#define MAX_LIBS 16
static void *libs[MAX_LIBS];
static int nlibs;

/* dlopen a staged FMU binary; kept open until the suite cleanup. */
void *open_fmu(int version, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/fmi%d/%s/binaries/%s/%s.so", STAGE, version, name,
             version == 2 ? "linux64" : "x86_64-linux", name);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        return NULL;
    }
    if (nlibs < MAX_LIBS)
        libs[nlibs++] = lib;
    return lib;
}

int close_libs(void)
{
    while (nlibs > 0)
        dlclose(libs[--nlibs]);
    return 0;
}

#define BIND(lib, dst, sym) ((dst) = (__typeof__(dst))dlsym((lib), (sym)), (dst) != NULL)

bool load2(const char *name, fmu2 *f)
{
    void *l = open_fmu(2, name);
    return l && BIND(l, f->instantiate, "fmi2Instantiate") &&
           BIND(l, f->free_instance, "fmi2FreeInstance") &&
           BIND(l, f->setup, "fmi2SetupExperiment") &&
           BIND(l, f->enter_init, "fmi2EnterInitializationMode") &&
           BIND(l, f->exit_init, "fmi2ExitInitializationMode") &&
           BIND(l, f->do_step, "fmi2DoStep") && BIND(l, f->terminate, "fmi2Terminate") &&
           BIND(l, f->get_real, "fmi2GetReal") && BIND(l, f->set_real, "fmi2SetReal") &&
           BIND(l, f->get_int, "fmi2GetInteger") && BIND(l, f->set_int, "fmi2SetInteger") &&
           BIND(l, f->get_bool, "fmi2GetBoolean") && BIND(l, f->set_bool, "fmi2SetBoolean") &&
           BIND(l, f->get_str, "fmi2GetString") && BIND(l, f->set_str, "fmi2SetString") &&
           BIND(l, f->get_bool_status, "fmi2GetBooleanStatus") &&
           BIND(l, f->get_real_status, "fmi2GetRealStatus") &&
           BIND(l, f->get_state, "fmi2GetFMUstate") && BIND(l, f->set_state, "fmi2SetFMUstate") &&
           BIND(l, f->free_state, "fmi2FreeFMUstate") &&
           BIND(l, f->ser_size, "fmi2SerializedFMUstateSize") &&
           BIND(l, f->serialize, "fmi2SerializeFMUstate") &&
           BIND(l, f->deserialize, "fmi2DeSerializeFMUstate");
}

bool load3(const char *name, fmu3 *f)
{
    void *l = f->lib = open_fmu(3, name);
    return l && BIND(l, f->instantiate, "fmi3InstantiateCoSimulation") &&
           BIND(l, f->free_instance, "fmi3FreeInstance") &&
           BIND(l, f->enter_init, "fmi3EnterInitializationMode") &&
           BIND(l, f->exit_init, "fmi3ExitInitializationMode") &&
           BIND(l, f->do_step, "fmi3DoStep") && BIND(l, f->terminate, "fmi3Terminate") &&
           BIND(l, f->enter_event, "fmi3EnterEventMode") && BIND(l, f->get_f64, "fmi3GetFloat64") &&
           BIND(l, f->set_f64, "fmi3SetFloat64") && BIND(l, f->get_i32, "fmi3GetInt32") &&
           BIND(l, f->set_i32, "fmi3SetInt32") && BIND(l, f->get_state, "fmi3GetFMUState") &&
           BIND(l, f->set_state, "fmi3SetFMUState") && BIND(l, f->free_state, "fmi3FreeFMUState");
}

/* ---- small helpers ---- */

fmi2Component inst2(const fmu2 *f, const char *guid, const char *res)
{
    log_reset();
    return f->instantiate("test", fmi2CoSimulation, guid, res, &cb2, fmi2False, fmi2False);
}

/* Instantiate, set parameters (Integer then Real), initialize at t = 0. */
fmi2Component start2(const fmu2 *f,
                     const char *guid,
                     const char *res,
                     fmi2ValueReference ivr,
                     fmi2Integer ival,
                     const fmi2ValueReference *rvr,
                     const fmi2Real *rval,
                     size_t nr)
{
    fmi2Component c = inst2(f, guid, res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    if (ivr)
        CU_ASSERT_EQUAL(f->set_int(c, &ivr, 1, &ival), fmi2OK);
    if (nr)
        CU_ASSERT_EQUAL(f->set_real(c, rvr, nr, rval), fmi2OK);
    CU_ASSERT_EQUAL(f->setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2OK);
    CU_ASSERT_EQUAL(f->enter_init(c), fmi2OK);
    CU_ASSERT_EQUAL(f->exit_init(c), fmi2OK);
    return c;
}

double get2(const fmu2 *f, fmi2Component c, fmi2ValueReference vr)
{
    fmi2Real v = NAN;
    CU_ASSERT_EQUAL(f->get_real(c, &vr, 1, &v), fmi2OK);
    return v;
}

fmi3Instance inst3(const fmu3 *f, const char *token, const char *res)
{
    log_reset();
    return f->instantiate("test", token, res, false, false, false, false, NULL, 0, NULL, logger3,
                          NULL);
}

fmi3Instance start3(const fmu3 *f, const char *token, const char *res)
{
    fmi3Instance c = inst3(f, token, res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(f->enter_init(c, false, 0.0, 0.0, false, 0.0), fmi3OK);
    CU_ASSERT_EQUAL(f->exit_init(c), fmi3OK);
    return c;
}

double get3(const fmu3 *f, fmi3Instance c, fmi3ValueReference vr)
{
    fmi3Float64 v = NAN;
    CU_ASSERT_EQUAL(f->get_f64(c, &vr, 1, &v, 1), fmi3OK);
    return v;
}

fmi3Status step3(const fmu3 *f, fmi3Instance c, double t, double h, bool *term, double *last)
{
    fmi3Boolean ev = true, early = true, tm = true;
    fmi3Float64 ls = NAN;
    fmi3Status st = f->do_step(c, t, h, true, &ev, &tm, &early, &ls);
    CU_ASSERT_FALSE(ev);
    CU_ASSERT_FALSE(early);
    if (term)
        *term = tm;
    if (last)
        *last = ls;
    return st;
}

double rel_err(double a, double b)
{
    return fabs(a - b) / fmax(fabs(b), 1e-300);
}

/* R1 of the survey (m = c = d = 1, x0 = 1, v0 = 0, Fe = 0): analytic position/velocity. */
void msd_exact(double t, double *x, double *v)
{
    double w = sqrt(3.0) / 2.0;
    *x = exp(-t / 2) * (cos(w * t) + sin(w * t) / sqrt(3.0));
    *v = -(2.0 / sqrt(3.0)) * exp(-t / 2) * sin(w * t);
}

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The number in the source tree's Fault/resources/value.txt, as the staged copy has it. */
double resource_file_value(int version)
{
    char path[1024];
    double v = NAN;
    snprintf(path, sizeof path, "%s/fmi%d/Fault/resources/value.txt", STAGE, version);
    FILE *fp = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    CU_ASSERT_EQUAL(fscanf(fp, "%lf", &v), 1);
    fclose(fp);
    return v;
}
