/*
 * The FMU unit factory for systems: SSP components of type application/x-fmu-sharedlibrary.
 * Several components may use one FMU file; it is extracted and its binary loaded once, and
 * every component gets its own instance (as FMI intends, unless the FMU declares
 * canBeInstantiatedOnlyOncePerProcess, which is refused with a clear message).
 * The component settings `interface` (auto|cs|me), `solver` and `substeps` (Model Exchange)
 * choose how each component runs (rtc:Component attributes, see configs/README.md).
 */
#include "fmu_priv.h"

#include "rtcosim/status.h"

#include <stdlib.h>
#include <string.h>

typedef struct open_fmu {
    char *source;
    rtc_fmu *fmu;
    unsigned instances;
} open_fmu;

typedef struct factory_ctx {
    open_fmu *open;
    size_t n_open;
} factory_ctx;

/* interface, solver, substeps from the component's settings; the others are not ours. */
static int unit_opts(const rtc_unit_spec *spec, const char *name, const rtc_logger *lg,
                     rtc_fmu_unit_opts *opt)
{
    char err[160];
    *opt = (rtc_fmu_unit_opts){0};
    for (size_t i = 0; i < spec->n_settings; i++)
        if (rtc_fmu_unit_opt_set(opt, spec->settings[i].key, spec->settings[i].value, err,
                                 sizeof err) == RTC_EINVAL) {
            rtc_log(lg, RTC_LOG_ERROR, "%s:%u: Component %s: %s", spec->file, spec->line,
                    name, err);
            return RTC_EINVAL;
        }
    return RTC_OK;
}

/* Both interfaces load the same binary: the once-per-process rule holds across them. */
static int create(void *vctx, const rtc_unit_spec *spec, const rtc_logger *lg, rtc_unit **out)
{
    factory_ctx *ctx = vctx;
    const char *source = spec->source, *name = spec->name;
    if (!source) {
        rtc_log(lg, RTC_LOG_ERROR, "%s:%u: Component %s: an FMU component needs a source",
                spec->file, spec->line, name);
        return RTC_EINVAL;
    }
    open_fmu *o = NULL;
    for (size_t i = 0; i < ctx->n_open && !o; i++)
        if (!strcmp(ctx->open[i].source, source))
            o = &ctx->open[i];
    if (!o) {
        open_fmu *list = realloc(ctx->open, (ctx->n_open + 1) * sizeof *list);
        if (!list)
            return RTC_ENOMEM;
        ctx->open = list;
        o = &list[ctx->n_open];
        *o = (open_fmu){.source = strdup(source)};
        if (!o->source)
            return RTC_ENOMEM;
        rtc_fmu_options fo = {.display = spec->source_display};
        int rc = rtc_fmu_open(source, &fo, lg, &o->fmu);
        if (rc != RTC_OK) {
            free(o->source);
            return rc;
        }
        ctx->n_open++;
    }
    const rtc_model_desc *md = rtc_fmu_model(o->fmu);
    name = name ? name : md->model_name; /* a single FMU is named after its model */
    if (o->instances && (md->cs.can_be_instantiated_only_once_per_process ||
                         md->me.can_be_instantiated_only_once_per_process)) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: component %s: the FMU can be instantiated only once per "
                "process (canBeInstantiatedOnlyOncePerProcess)", source, name);
        return RTC_EUNSUPPORTED;
    }
    rtc_fmu_unit_opts opt;
    int rc = unit_opts(spec, name, lg, &opt);
    if (rc == RTC_OK)
        rc = rtc_fmu_unit_new_opts(o->fmu, name, &opt, lg, out);
    o->instances += rc == RTC_OK;
    return rc;
}

static void release(void *vctx)
{
    factory_ctx *ctx = vctx;
    for (size_t i = 0; i < ctx->n_open; i++) {
        rtc_fmu_close(ctx->open[i].fmu);
        free(ctx->open[i].source);
    }
    free(ctx->open);
    free(ctx);
}

int rtc_fmu_factory(rtc_unit_factory *out)
{
    factory_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return RTC_ENOMEM;
    *out = (rtc_unit_factory){.type = "application/x-fmu-sharedlibrary",
                              .create = create,
                              .release = release,
                              .ctx = ctx};
    return RTC_OK;
}
