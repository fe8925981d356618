/* Helpers shared by the tests that drive the project's test FMUs through fmu-host. */
#ifndef RTC_TEST_FMU_UTIL_H
#define RTC_TEST_FMU_UTIL_H

#include "rtcosim/fmu.h"

#include <stdbool.h>
#include <stddef.h>

/** Path of a built test FMU: RTC_TEST_FMU_DIR/fmi<ver>/<name>.fmu (static buffer). */
const char *tfmu_path(int fmi_version, const char *name);

/** Captures log lines of a logger (all levels) for assertions. */
typedef struct tlog {
    rtc_logger lg;
    int lines, errors;
    char text[8192];
} tlog;
void tlog_init(tlog *t);
bool tlog_has(const tlog *t, const char *needle);

/** Open FMU + create, instantiate and initialize a unit (start 0, stop @p stop_s). */
typedef struct tfmu {
    rtc_fmu *fmu;
    rtc_unit *unit;
    const rtc_model_desc *md;
} tfmu;
int tfmu_start(tfmu *f, int fmi_version, const char *name, double stop_s, tlog *log);
/** Like tfmu_start but stops after instantiate (for setting start values). */
int tfmu_instantiate(tfmu *f, int fmi_version, const char *name, double stop_s, tlog *log);
void tfmu_end(tfmu *f);

/** Value reference of a variable by name (fails the test when absent). */
unsigned tfmu_vr(const tfmu *f, const char *name);
double tfmu_get_f64(const tfmu *f, const char *name);
void tfmu_set_f64(const tfmu *f, const char *name, double v);
int tfmu_set_i32(const tfmu *f, const char *name, int v);

/** A parsed CSV: column names and numeric rows. */
typedef struct tcsv {
    size_t n_cols, n_rows;
    char **names;
    double *values; /* n_rows × n_cols */
    char **time_text; /* the first field of every row, verbatim */
} tcsv;
bool tcsv_read(const char *path, tcsv *out);
long tcsv_col(const tcsv *c, const char *name);
double tcsv_at(const tcsv *c, size_t row, size_t col);
void tcsv_free(tcsv *c);
/** Column @p col in the last row of the CSV file @p path (NAN when unreadable/absent). */
double tcsv_last(const char *path, const char *col);

/** Write an SSP 1.0 system of one FMU component "ball" (source @p fmu, one Real output
 *  connector @p output) whose rtc:Component has stepSize 0.01 and @p attrs, run 0..@p stop. */
void tfmu_write_system(const char *path, const char *fmu, const char *output, const char *attrs,
                       const char *stop);

/** Write an SSP 1.0 system of one FMU component @p name (source @p fmu, one output connector
 *  @p output of SSP type @p type, e.g. "Real") with the ssv:Parameter elements @p params
 *  (XML, "" for none) and the system annotations @p annotations (XML inside
 *  ssd:Annotations, "" for none), run 0..@p stop. */
void tfmu_write_param_system(const char *path, const char *name, const char *fmu,
                             const char *output, const char *type, const char *params,
                             const char *annotations, const char *stop);

/** A result file as a reader of a killed or failed run finds it: the number of data rows
 *  when it is a header followed only by complete rows (newline-terminated, as many fields
 *  as the header), else -1 (empty file, cut row, wrong field count). */
long tcsv_whole_rows(const char *path);

#endif
