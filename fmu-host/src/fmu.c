/*
 * Opening and closing FMU packages.
 *
 * An archive is extracted into a fresh mkdtemp() directory that only this process can
 * read, so two runs of the same FMU never share files and nothing depends on the working
 * directory (no chdir anywhere). Every failure path removes that directory again: a bad
 * FMU leaves no trace in /tmp.
 */
#include "fmu_priv.h"
#include "me_priv.h"

#include "rtcosim/archive.h"
#include "rtcosim/numparse.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/status.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void named_log(void *user, int level, const char *msg)
{
    rtc_fmu *fmu = user;
    size_t n = strlen(fmu->dir), m = strlen(fmu->src);
    char line[RTC_LOG_MSG_MAX + PATH_MAX];
    if (!strncmp(msg, fmu->dir, n) && msg[n] == '/') /* a file of the extracted FMU */
        snprintf(line, sizeof line, "%s: %s", fmu->shown, msg + n + 1);
    else if (m && !strncmp(msg, fmu->src, m)) /* the archive as opened (in a package) */
        snprintf(line, sizeof line, "%s%s", fmu->shown, msg + m);
    else
        snprintf(line, sizeof line, "%s", msg);
    fmu->named_inner->log(fmu->named_inner->user, level, line);
}

const rtc_logger *rtc__fmu_named(rtc_fmu *fmu, const rtc_logger *lg)
{
    if (!fmu->own_dir || !lg || !lg->log)
        return lg;
    fmu->named_inner = lg;
    fmu->named = (rtc_logger){.log = named_log, .user = fmu, .max_level = lg->max_level};
    return &fmu->named;
}

static int read_description(rtc_fmu *fmu, const char *fmu_path, const rtc_logger *lg)
{
    char xml[PATH_MAX + 32];
    snprintf(xml, sizeof xml, "%s/modelDescription.xml", fmu->dir);
    struct stat st;
    if (stat(xml, &st) != 0) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: no modelDescription.xml in the FMU",
                fmu->own_dir ? fmu->shown : fmu_path);
        return RTC_ENOTFOUND;
    }
    return rtc_fmu_md_read(xml, rtc__fmu_named(fmu, lg), &fmu->md);
}

int rtc_fmu_open(const char *path, const rtc_fmu_options *opt, const rtc_logger *lg,
                 rtc_fmu **out)
{
    if (!path || !out)
        return RTC_EINVAL;
    struct stat st;
    if (stat(path, &st) != 0) {
        int rc = rtc_status_from_errno(errno);
        rtc_log(lg, RTC_LOG_ERROR, "%s: cannot open: %s", path, rtc_strerror(rc));
        return rc;
    }
    rtc_fmu *fmu = calloc(1, sizeof *fmu);
    if (!fmu)
        return RTC_ENOMEM;
    fmu->lg = lg;
    int rc;
    if (S_ISDIR(st.st_mode)) {
        /* An already extracted FMU: used in place, never removed. */
        if (!realpath(path, fmu->dir)) {
            rc = RTC_ESYS;
            goto out;
        }
    } else {
        rc = rtc_tmpdir_new("rtcosim-fmu-", fmu->dir, sizeof fmu->dir);
        if (rc != RTC_OK) {
            rtc_log(lg, RTC_LOG_ERROR, "%s: cannot create a temporary directory", path);
            goto out;
        }
        fmu->own_dir = true;
        snprintf(fmu->shown, sizeof fmu->shown, "%s", opt && opt->display ? opt->display : path);
        snprintf(fmu->src, sizeof fmu->src, "%s", path);
        rtc_archive_limits lim = {.max_total_bytes = opt ? opt->max_unzip_bytes : 0};
        rc = rtc_archive_extract(path, fmu->dir, &lim, rtc__fmu_named(fmu, lg));
        if (rc != RTC_OK)
            goto out;
    }
    rc = read_description(fmu, path, lg);
out:
    if (rc != RTC_OK) {
        rtc_fmu_close(fmu);
        return rc;
    }
    *out = fmu;
    return RTC_OK;
}

const rtc_model_desc *rtc_fmu_model(const rtc_fmu *fmu)
{
    return fmu->md;
}

const char *rtc_fmu_dir(const rtc_fmu *fmu)
{
    return fmu->dir;
}

/* An FMI 3 input clock is activated by the importer. Scheduled Execution FMUs get that
 * from their clock schedule (fmi3_se.c); a co-simulation FMU's input clocks would need
 * clock handling in event mode, which this engine does not do: a run would silently never
 * tick them and compute wrong results, so that is refused here. Output and local clocks,
 * and variables clocked by them, are handled inside the FMU and are no obstacle. */
static int check_clocks(const rtc_model_desc *md, bool me, const rtc_logger *lg)
{
    if (!me && md->fmi_major == 3 && !md->has_cs && md->has_se)
        return RTC_OK;
    for (size_t i = 0; i < md->n_vars; i++) {
        const rtc_var *v = &md->vars[i];
        if (v->type == RTC_TYPE_CLOCK && v->causality == RTC_CAUSALITY_INPUT) {
            rtc_log(lg, RTC_LOG_ERROR,
                    "%s:%u: input clock \"%s\" needs clock support (activation in event "
                    "mode), which this engine has for Scheduled Execution FMUs only",
                    md->path, v->line, v->name);
            return RTC_EUNSUPPORTED;
        }
    }
    return RTC_OK;
}

bool rtc__fmu_has_clocks(const rtc_model_desc *md)
{
    for (size_t i = 0; i < md->n_vars; i++)
        if (md->vars[i].type == RTC_TYPE_CLOCK)
            return true;
    return false;
}

/* event_mode of a Co-Simulation unit: off cannot be had with clocks (FMI 3 makes
 * eventModeUsed mandatory for them); on is a wish that an FMU without Event Mode (any
 * FMI 2 one) cannot grant: said, not refused. */
static int check_event_mode(const rtc_model_desc *md, rtc_fmu_event_mode m, const rtc_logger *lg)
{
    bool fmi3_cs = md->fmi_major == 3 && md->has_cs;
    if (m == RTC_FMU_EVENT_MODE_OFF && fmi3_cs && rtc__fmu_has_clocks(md)) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: event_mode off: the FMU has clocks, which need Event "
                "Mode (FMI 3 requires eventModeUsed for them)", md->path);
        return RTC_EUNSUPPORTED;
    }
    if (m == RTC_FMU_EVENT_MODE_ON && !(fmi3_cs && md->cs.has_event_mode))
        rtc_log(lg, RTC_LOG_WARNING, "%s: event_mode on: the FMU has no Event Mode (%s): it "
                "handles its events itself", md->path,
                md->fmi_major == 3 ? "hasEventMode is false" : "FMI 2 Co-Simulation");
    return RTC_OK;
}

int rtc_fmu_unit_new(rtc_fmu *fmu, const char *instance_name, const rtc_logger *lg,
                     rtc_unit **out)
{
    return rtc_fmu_unit_new_opts(fmu, instance_name, NULL, lg, out);
}

int rtc_fmu_unit_new_opts(rtc_fmu *fmu, const char *instance_name, const rtc_fmu_unit_opts *opt,
                          const rtc_logger *lg, rtc_unit **out)
{
    static const rtc_fmu_unit_opts defaults = {0};
    if (!fmu || !instance_name || !*instance_name || !out)
        return RTC_EINVAL;
    opt = opt ? opt : &defaults;
    const rtc_model_desc *md = fmu->md;
    bool me = opt->iface == RTC_FMU_IFACE_ME || (opt->iface == RTC_FMU_IFACE_AUTO && !md->has_cs &&
                                                 md->has_me);
    int rc = check_clocks(md, me, rtc__fmu_named(fmu, lg));
    if (rc != RTC_OK)
        return rc;
    rc = rtc__fmu_bind(fmu, me, rtc__fmu_named(fmu, lg));
    if (rc != RTC_OK)
        return rc;
    if (!me && (rc = check_event_mode(md, opt->event_mode, rtc__fmu_named(fmu, lg))) != RTC_OK)
        return rc;
    rtc_unit *u = NULL;
    rc = md->fmi_major == 2 ? rtc__fmi2_unit_new(fmu, instance_name, me, lg, &u)
                            : rtc__fmi3_unit_new(fmu, instance_name, me, opt->event_mode, lg, &u);
    if (rc != RTC_OK)
        return rc;
    atomic_fetch_add_explicit(&fmu->units, 1, memory_order_relaxed); /* a count only */
    if (me)
        return rtc__me_unit_new(fmu, u, opt, lg, out); /* frees u on failure */
    *out = u;
    return RTC_OK;
}

void rtc__fmu_unit_released(rtc_fmu *fmu)
{
    atomic_fetch_sub_explicit(&fmu->units, 1, memory_order_relaxed);
}

void rtc_fmu_close(rtc_fmu *fmu)
{
    if (!fmu)
        return;
    int alive = atomic_load_explicit(&fmu->units, memory_order_relaxed);
    if (alive > 0)
        rtc_log(fmu->lg, RTC_LOG_WARNING, "%s: closed with %d unit(s) still alive", fmu->dir,
                alive);
    else if (fmu->dl)
        dlclose(fmu->dl);
    rtc_fmu_md_free(fmu->md);
    if (fmu->own_dir)
        rtc_tmpdir_remove(fmu->dir);
    free(fmu);
}

int rtc__fmu_file_uri(const char *path, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    const char *prefix = "file://";
    for (const char *p = prefix; *p; p++) {
        if (n + 1 >= cap)
            return RTC_ELIMIT;
        out[n++] = *p;
    }
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        /* RFC 3986 unreserved characters and '/' pass; everything else is %XX. */
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p >= '0' && *p <= '9') || strchr("-._~/", *p);
        if (n + (plain ? 1 : 3) >= cap)
            return RTC_ELIMIT;
        if (plain) {
            out[n++] = (char)*p;
        } else {
            out[n++] = '%';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 15];
        }
    }
    out[n] = '\0';
    return RTC_OK;
}

const char *rtc__fmu_status_name(int fmi_status)
{
    static const char *const names[] = {"OK", "Warning", "Discard", "Error", "Fatal", "Pending"};
    return fmi_status >= 0 && fmi_status < 6 ? names[fmi_status] : "invalid status";
}

int rtc__fmu_check(const char *instance, const char *function, int fmi_status,
                   const rtc_logger *lg)
{
    /* Both versions order statuses by severity: OK < Warning < Discard < Error < Fatal. */
    static const int map[] = {RTC_OK, RTC_OK, RTC_ETERMINATED, RTC_EFMU, RTC_EFATAL};
    if (fmi_status == 0 || fmi_status == 1)
        return RTC_OK;
    /* on a real-time thread this line is queued, not formatted (rtcosim/rtlog.h) */
    rtc_log(lg, RTC_LOG_ERROR, "%s: %s returned %s", instance, function,
            rtc__fmu_status_name(fmi_status));
    return fmi_status > 0 && fmi_status < 5 ? map[fmi_status] : RTC_EUNSUPPORTED;
}

int rtc__fmu_log_level(int fmi_status)
{
    return fmi_status <= 0 ? RTC_LOG_INFO : fmi_status <= 2 ? RTC_LOG_WARNING : RTC_LOG_ERROR;
}

/* On a thread bound to an rtlog (a real-time thread in the run phase), rtc_log() copies
 * the three strings (truncated) into a text slot; the drainer formats the line. */
void rtc__fmu_log_message(const rtc_logger *lg, const char *instance, int fmi_status,
                          const char *category, const char *message)
{
    rtc_log(lg, rtc__fmu_log_level(fmi_status), "%s [%s]: %s", instance ? instance : "?", category ? category : "",
            message ? message : "");
}

unsigned rtc__fmu_caps(const rtc_model_desc *md, bool me)
{
    const rtc_cs_caps *cs = me ? &md->me : &md->cs;
    /* an ME unit is integrated by the engine, over any step */
    return (cs->can_get_and_set_fmu_state ? RTC_UNIT_CAN_GET_SET_STATE : 0u) |
           (me || cs->can_handle_variable_communication_step_size ? RTC_UNIT_CAN_VARY_STEP : 0u) |
           (cs->can_serialize_fmu_state ? RTC_UNIT_CAN_SERIALIZE_STATE : 0u) |
           (cs->can_interpolate_inputs ? RTC_UNIT_CAN_INTERPOLATE_INPUTS : 0u);
}

static const char *const solver_names[] = {[RTC_ME_RK4] = "rk4", [RTC_ME_EULER] = "euler",
                                           [RTC_ME_HEUN] = "heun", [RTC_ME_IMPLICIT] = "implicit"};

const char *rtc_me_solver_name(rtc_me_solver s)
{
    return (unsigned)s < sizeof solver_names / sizeof *solver_names ? solver_names[s] : "?";
}

/* The options whose value is one word of a list: the word's index is the enum value. */
static const char *const iface_words[] = {"auto", "cs", "me"};
static const char *const event_mode_words[] = {"auto", "on", "off"};
static const struct word_opt {
    const char *key;
    const char *const *words;
    size_t n;
    const char *expected;
} word_opts[] = {
    {"interface", iface_words, 3, "auto, cs or me"},
    {"solver", solver_names, sizeof solver_names / sizeof *solver_names,
     "euler, heun, rk4 or implicit"},
    {"event_mode", event_mode_words, 3, "auto, on or off"},
};

int rtc_fmu_unit_opt_set(rtc_fmu_unit_opts *opt, const char *key, const char *value, char *err,
                         size_t err_cap)
{
    for (size_t k = 0; k < sizeof word_opts / sizeof *word_opts; k++) {
        const struct word_opt *w = &word_opts[k];
        if (strcmp(key, w->key) != 0)
            continue;
        for (size_t i = 0; i < w->n; i++) {
            if (strcmp(value, w->words[i]) != 0)
                continue;
            if (k == 0)
                opt->iface = (rtc_fmu_iface)i;
            else if (k == 1)
                opt->solver = (rtc_me_solver)i;
            else
                opt->event_mode = (rtc_fmu_event_mode)i;
            return RTC_OK;
        }
        snprintf(err, err_cap, "%s \"%s\": expected %s", key, value, w->expected);
        return RTC_EINVAL;
    }
    if (!strcmp(key, "substeps")) {
        uint64_t n;
        if (rtc_parse_u64(value, 1, RTC_ME_MAX_SUBSTEPS, 0, &n) != RTC_OK) {
            snprintf(err, err_cap, "substeps \"%s\": expected an integer from 1 to %u", value,
                     RTC_ME_MAX_SUBSTEPS);
            return RTC_EINVAL;
        }
        opt->substeps = (unsigned)n;
        return RTC_OK;
    }
    return RTC_ENOTFOUND;
}
