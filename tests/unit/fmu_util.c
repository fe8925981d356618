/* Helpers shared by the tests that drive the project's test FMUs (see fmu_util.h). */
#include "fmu_util.h"

#include "cu_main.h"
#include "rtcosim/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tfmu_path(int fmi_version, const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/fmi%d/%s.fmu", RTC_TEST_FMU_DIR, fmi_version, name);
    return path;
}

static void tlog_cb(void *user, int level, const char *msg)
{
    tlog *t = user;
    t->lines++;
    t->errors += level == RTC_LOG_ERROR;
    size_t n = strlen(t->text);
    snprintf(t->text + n, sizeof t->text - n, "%s\n", msg);
}

void tlog_init(tlog *t)
{
    memset(t, 0, sizeof *t);
    t->lg = (rtc_logger){.log = tlog_cb, .user = t, .max_level = RTC_LOG_DEBUG};
}

bool tlog_has(const tlog *t, const char *needle)
{
    return strstr(t->text, needle) != NULL;
}

int tfmu_instantiate(tfmu *f, int v, const char *name, double stop_s, tlog *log)
{
    memset(f, 0, sizeof *f);
    int rc = rtc_fmu_open(tfmu_path(v, name), NULL, &log->lg, &f->fmu);
    if (rc != RTC_OK)
        return rc;
    f->md = rtc_fmu_model(f->fmu);
    rc = rtc_fmu_unit_new(f->fmu, "inst", &log->lg, &f->unit);
    if (rc != RTC_OK)
        return rc;
    rtc_unit_setup s = {.instance_name = "inst", .start_time_s = 0, .stop_time_defined = true,
                        .stop_time_s = stop_s};
    return f->unit->ops->instantiate(f->unit->self, &s);
}

int tfmu_start(tfmu *f, int v, const char *name, double stop_s, tlog *log)
{
    int rc = tfmu_instantiate(f, v, name, stop_s, log);
    if (rc == RTC_OK)
        rc = f->unit->ops->enter_init(f->unit->self);
    if (rc == RTC_OK)
        rc = f->unit->ops->exit_init(f->unit->self);
    return rc;
}

void tfmu_end(tfmu *f)
{
    if (f->unit)
        f->unit->ops->free(f->unit->self);
    rtc_fmu_close(f->fmu);
    memset(f, 0, sizeof *f);
}

unsigned tfmu_vr(const tfmu *f, const char *name)
{
    long i = rtc_model_find_var(f->md, name);
    CU_ASSERT_FATAL(i >= 0);
    return f->md->vars[i].vr;
}

double tfmu_get_f64(const tfmu *f, const char *name)
{
    uint32_t vr = tfmu_vr(f, name);
    double v = -12345.678;
    CU_ASSERT_EQUAL(f->unit->ops->get(f->unit->self, RTC_TYPE_FLOAT64, &vr, 1, &v, 1), RTC_OK);
    return v;
}

void tfmu_set_f64(const tfmu *f, const char *name, double v)
{
    uint32_t vr = tfmu_vr(f, name);
    CU_ASSERT_EQUAL(f->unit->ops->set(f->unit->self, RTC_TYPE_FLOAT64, &vr, 1, &v, 1), RTC_OK);
}

int tfmu_set_i32(const tfmu *f, const char *name, int v)
{
    uint32_t vr = tfmu_vr(f, name);
    int32_t x = v;
    return f->unit->ops->set(f->unit->self, RTC_TYPE_INT32, &vr, 1, &x, 1);
}

/* Split one CSV line in place (no quoted commas in the fixtures we read). */
static size_t split(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, ",\n", &save); tok && n < max;
         tok = strtok_r(NULL, ",\n", &save))
        fields[n++] = tok;
    return n;
}

bool tcsv_read(const char *path, tcsv *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    static char line[1 << 16];
    char *fields[512];
    bool ok = fgets(line, sizeof line, f) != NULL;
    size_t n = ok ? split(line, fields, 512) : 0;
    out->n_cols = n;
    out->names = calloc(n ? n : 1, sizeof *out->names);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(fields[i]);
        out->names[i] = strndup(fields[i] + 1, len >= 2 ? len - 2 : 0); /* strip quotes */
    }
    size_t cap = 0;
    while (ok && fgets(line, sizeof line, f)) {
        if (out->n_rows == cap) {
            cap = cap ? 2 * cap : 1024;
            out->values = realloc(out->values, cap * n * sizeof *out->values);
            out->time_text = realloc(out->time_text, cap * sizeof *out->time_text);
        }
        size_t m = split(line, fields, 512);
        ok = m == n;
        out->time_text[out->n_rows] = strdup(m ? fields[0] : "");
        for (size_t i = 0; i < m && i < n; i++)
            out->values[out->n_rows * n + i] = strtod(fields[i], NULL);
        out->n_rows++;
    }
    fclose(f);
    return ok;
}

long tcsv_col(const tcsv *c, const char *name)
{
    for (size_t i = 0; i < c->n_cols; i++)
        if (!strcmp(c->names[i], name))
            return (long)i;
    return -1;
}

double tcsv_at(const tcsv *c, size_t row, size_t col)
{
    return c->values[row * c->n_cols + col];
}

void tcsv_free(tcsv *c)
{
    for (size_t i = 0; i < c->n_cols; i++)
        free(c->names[i]);
    for (size_t i = 0; i < c->n_rows; i++)
        free(c->time_text[i]);
    free(c->names);
    free(c->values);
    free(c->time_text);
    memset(c, 0, sizeof *c);
}

static size_t fields_of(const char *line, const char *end)
{
    size_t n = 1;
    bool q = false;
    for (const char *p = line; p < end; p++) {
        q ^= *p == '"';
        n += *p == ',' && !q;
    }
    return n;
}

void tfmu_write_param_system(const char *path, const char *name, const char *fmu,
                             const char *output, const char *type, const char *params,
                             const char *annotations, const char *stop)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f,
            "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" name=\"t\" "
            "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
            "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "
            "xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\" "
            "xmlns:rtc=\"urn:rtcosim:realtime:1\">\n<ssd:System name=\"s\">\n<ssd:Elements>\n"
            "<ssd:Component name=\"%s\" source=\"%s\">\n<ssd:Connectors>"
            "<ssd:Connector name=\"%s\" kind=\"output\"><ssc:%s/></ssd:Connector>"
            "</ssd:Connectors>\n", name, fmu, output, type);
    if (*params)
        fprintf(f, "<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>"
                "<ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters>%s"
                "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues>"
                "</ssd:ParameterBinding></ssd:ParameterBindings>\n", params);
    fprintf(f, "</ssd:Component>\n</ssd:Elements>\n");
    if (*annotations)
        fprintf(f, "<ssd:Annotations>%s</ssd:Annotations>\n", annotations);
    fprintf(f, "</ssd:System>\n<ssd:DefaultExperiment startTime=\"0\" stopTime=\"%s\"/>\n"
            "</ssd:SystemStructureDescription>\n", stop);
    fclose(f);
}

long tcsv_whole_rows(const char *path)
{
    size_t len = 0;
    char *text = rtc_test_slurp(path, &len);
    long rows = -1;
    if (text && len > 0 && text[len - 1] == '\n') {
        const char *line = text, *end = strchr(line, '\n');
        size_t cols = fields_of(line, end);
        rows = 0;
        for (line = end + 1; *line; line = end + 1) {
            end = strchr(line, '\n');
            if (fields_of(line, end) != cols) {
                rows = -1;
                break;
            }
            rows++;
        }
    }
    free(text);
    return rows;
}

double tcsv_last(const char *path, const char *col)
{
    tcsv c;
    if (!tcsv_read(path, &c))
        return NAN;
    long k = tcsv_col(&c, col);
    double v = k >= 0 && c.n_rows ? tcsv_at(&c, c.n_rows - 1, (size_t)k) : NAN;
    tcsv_free(&c);
    return v;
}

void tfmu_write_system(const char *path, const char *fmu, const char *output, const char *attrs,
                       const char *stop)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f,
            "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" name=\"one\" "
            "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
            "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "
            "xmlns:rtc=\"urn:rtcosim:realtime:1\">\n<ssd:System name=\"s\">\n<ssd:Elements>\n"
            "<ssd:Component name=\"ball\" source=\"%s\">\n<ssd:Connectors>\n"
            "<ssd:Connector name=\"%s\" kind=\"output\"><ssc:Real/></ssd:Connector>\n"
            "</ssd:Connectors>\n<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\">"
            "<rtc:Component stepSize=\"0.01\" %s/></ssc:Annotation></ssd:Annotations>\n"
            "</ssd:Component>\n</ssd:Elements>\n</ssd:System>\n"
            "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"%s\"/>\n"
            "</ssd:SystemStructureDescription>\n",
            fmu, output, attrs, stop);
    fclose(f);
}
