/* rtcosim info FMU — describe an FMU without loading its binary (a system: cmd_info_system.c). */
#include "cli.h"
#include "rt_cli.h"

#include "rtcosim/fmu.h"
#include "rtcosim/numfmt.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char help[] =
    "usage: rtcosim info [options] FMU\n"
    "       rtcosim info [options] SYSTEM   (.ssd, .ssp, a folder with SystemStructure.ssd)\n"
    "       rtcosim info --samples SESSION  (a real-time run's --output-dir, or inputs.bin)\n"
    "\n"
    "FMU: print an FMI 2.0 or 3.0 FMU's version, model name, GUID/instantiation token,\n"
    "capabilities, default experiment and a table of its variables.\n"
    "SYSTEM: print its master and times, its components with their connectors (units),\n"
    "its I/O components with each signal's direction, unit and estimator, its connections\n"
    "with unit, estimator and delay, and the variables exposed to the operator; when it\n"
    "places its components on nodes (rtc:Component node, --place), the nodes and every\n"
    "connection between them.\n"
    "\n"
    "options:\n";

/* @p what: "CoSimulation" or "ModelExchange" (the same flags struct holds either). */
static void print_caps(const char *what, const rtc_cs_caps *cs)
{
    const struct {
        bool on;
        const char *name;
    } flags[] = {
        {cs->needs_execution_tool, "needsExecutionTool"},
        {cs->can_be_instantiated_only_once_per_process, "canBeInstantiatedOnlyOncePerProcess"},
        {cs->can_get_and_set_fmu_state, "canGetAndSetFMUState"},
        {cs->can_serialize_fmu_state, "canSerializeFMUState"},
        {cs->provides_directional_derivatives, "providesDirectionalDerivatives"},
        {cs->provides_adjoint_derivatives, "providesAdjointDerivatives"},
        {cs->provides_per_element_dependencies, "providesPerElementDependencies"},
        {cs->can_handle_variable_communication_step_size,
         "canHandleVariableCommunicationStepSize"},
        {cs->can_interpolate_inputs, "canInterpolateInputs"},
        {cs->can_run_asynchronuously, "canRunAsynchronuously"},
        {cs->can_not_use_memory_management_functions, "canNotUseMemoryManagementFunctions"},
        {cs->can_return_early_after_intermediate_update, "canReturnEarlyAfterIntermediateUpdate"},
        {cs->has_event_mode, "hasEventMode"},
        {cs->provides_intermediate_update, "providesIntermediateUpdate"},
        {cs->might_return_early_from_do_step, "mightReturnEarlyFromDoStep"},
        {cs->provides_evaluate_discrete_states, "providesEvaluateDiscreteStates"},
        {cs->needs_completed_integrator_step, "needsCompletedIntegratorStep"},
    };
    printf("%s capabilities:\n", what);
    int any = 0;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        if (flags[i].on) {
            printf("  %s\n", flags[i].name);
            any = 1;
        }
    }
    if (cs->max_output_derivative_order)
        printf("  maxOutputDerivativeOrder=%u\n", cs->max_output_derivative_order), any = 1;
    if (cs->has_fixed_internal_step_size) {
        char h[RTC_NUMFMT_MAX];
        rtc_fmt_double_short(cs->fixed_internal_step_size, h);
        printf("  fixedInternalStepSize=%s\n", h);
        any = 1;
    }
    if (!any)
        printf("  (none)\n");
}

static void print_start(const rtc_var *v, char *buf, size_t cap)
{
    buf[0] = '\0';
    size_t pos = 0;
    for (size_t i = 0; i < v->n_start && pos + RTC_NUMFMT_MAX + 2 < cap; i++) {
        char num[RTC_NUMFMT_MAX];
        const rtc_value *s = &v->start[i];
        switch (v->type) {
        case RTC_TYPE_FLOAT64: rtc_fmt_double_short(s->f64, num); break;
        case RTC_TYPE_FLOAT32: rtc_fmt_float_short(s->f32, num); break;
        case RTC_TYPE_UINT8: case RTC_TYPE_UINT16: case RTC_TYPE_UINT32:
        case RTC_TYPE_UINT64: rtc_fmt_u64(s->u64, num); break;
        case RTC_TYPE_BOOL: snprintf(num, sizeof num, "%s", s->b ? "true" : "false"); break;
        case RTC_TYPE_STRING: snprintf(num, sizeof num, "\"%.20s\"", s->str ? s->str : ""); break;
        case RTC_TYPE_BINARY: snprintf(num, sizeof num, "(%zu bytes)", s->bin.size); break;
        default: rtc_fmt_i64(s->i64, num); break;
        }
        pos += (size_t)snprintf(buf + pos, cap - pos, "%s%s", i ? " " : "", num);
    }
}

static void print_vars(const rtc_model_desc *md)
{
    printf("Variables (%zu):\n", md->n_vars);
    printf("  %-32s %10s %-11s %-19s %-11s %-10s %-16s %s\n", "name", "vr", "type", "causality",
           "variability", "initial", "start", "unit");
    for (size_t i = 0; i < md->n_vars; i++) {
        const rtc_var *v = &md->vars[i];
        char start[128], type[40];
        print_start(v, start, sizeof start);
        if (v->n_dims)
            snprintf(type, sizeof type, "%s[%zu]", rtc_type_name(v->type), rtc_var_count(v));
        else
            snprintf(type, sizeof type, "%s", rtc_type_name(v->type));
        printf("  %-32s %10u %-11s %-19s %-11s %-10s %-16s %s\n", v->name, v->vr, type,
               rtc_causality_name(v->causality), rtc_variability_name(v->variability),
               rtc_initial_name(v->initial), start, v->unit ? v->unit : "");
    }
}

/* Name of the variable with value reference @p vr (FMI 3 value references are unique). */
static const char *name_of_vr(const rtc_model_desc *md, uint32_t vr)
{
    for (size_t i = 0; i < md->n_vars; i++)
        if (md->vars[i].vr == vr)
            return md->vars[i].name;
    return "?";
}

/* What a run does with the FMU's events (FMI 3): event mode and early return of a
 * co-simulation FMU, or the clock schedule of a Scheduled Execution one. */
static void print_events(const rtc_model_desc *md)
{
    if (md->fmi_major != 3)
        return;
    if (md->has_cs && md->cs.has_event_mode)
        printf("Events:        hasEventMode: with --event-mode on (event_mode=\"on\" in a "
               "system), or for clocks, the engine handles the events fmi3DoStep reports in "
               "Event Mode (counted per unit); else the FMU handles them itself\n");
    if (md->has_cs && md->cs.might_return_early_from_do_step)
        printf("Early return:  mightReturnEarlyFromDoStep: allowed; the step is resumed to the "
               "communication point\n");
    if (!md->has_cs && md->has_se)
        printf("Scheduled Execution: input clocks activate model partitions on the step grid, "
               "in priority order\n");
}

static const char *const clock_kinds[] = {"constant", "fixed",     "tunable",
                                          "changing", "countdown", "triggered"};

/* One Clock variable. A Scheduled Execution FMU's clocks with their kind, interval and
 * priority (what the schedule uses); a co-simulation FMU's input clocks are refused by run. */
static void print_clock(const rtc_model_desc *md, const rtc_var *v)
{
    const rtc_clock_info *c = &v->clock;
    bool in = v->causality == RTC_CAUSALITY_INPUT;
    printf("  %-32s clock (%s)", v->name, rtc_causality_name(v->causality));
    if (md->has_cs || !md->has_se) {
        printf("%s\n", in ? ": needs clock support, refused by run" : "");
        return;
    }
    printf(": %s", clock_kinds[c->interval_variability]);
    if (c->has_interval)
        printf(", interval %.9g s", (double)c->interval_ns / 1e9);
    if (c->has_priority)
        printf(", priority %u", (unsigned)c->priority);
    printf("\n");
}

/* FMI 3 clocks and clocked variables. A Scheduled Execution FMU's input clocks are ticked
 * by the engine's schedule; a co-simulation FMU's input clocks would need clock activation
 * in event mode, which the engine does not do, so they are marked as refused at run time. */
static void print_clocks(const rtc_model_desc *md)
{
    size_t n = 0;
    for (size_t i = 0; i < md->n_vars; i++)
        n += md->vars[i].type == RTC_TYPE_CLOCK || md->vars[i].n_clocks > 0;
    if (n == 0)
        return;
    printf("Clocks and clocked variables (%zu; %s):\n", n,
           !md->has_cs && md->has_se ? "input clocks ticked by the clock schedule"
                                     : "clocks are not ticked by this engine");
    for (size_t i = 0; i < md->n_vars; i++) {
        const rtc_var *v = &md->vars[i];
        if (v->type == RTC_TYPE_CLOCK) {
            print_clock(md, v);
        } else if (v->n_clocks > 0) {
            printf("  %-32s clocked by", v->name);
            for (size_t k = 0; k < v->n_clocks; k++)
                printf(" %s", name_of_vr(md, v->clocks[k]));
            printf("\n");
        }
    }
}

static void print_aliases(const rtc_model_desc *md)
{
    if (md->n_aliases == 0)
        return;
    printf("Aliases (%zu):\n", md->n_aliases);
    for (size_t i = 0; i < md->n_aliases; i++)
        printf("  %-32s = %s\n", md->aliases[i].name, md->vars[md->aliases[i].var].name);
}

static void print_model(const char *path, const rtc_model_desc *md)
{
    printf("File:          %s\n", path);
    printf("FMI version:   %s\n", md->fmi_version);
    printf("Model name:    %s\n", md->model_name);
    printf("%s %s\n", md->fmi_major == 2 ? "GUID:         " : "Token:        ", md->guid);
    if (md->description)
        printf("Description:   %s\n", md->description);
    if (md->generation_tool)
        printf("Generated by:  %s%s%s\n", md->generation_tool,
               md->generation_date_and_time ? " on " : "",
               md->generation_date_and_time ? md->generation_date_and_time : "");
    printf("Interfaces:   ");
    if (md->has_cs)
        printf(" CoSimulation (%s)", md->cs.model_identifier);
    if (md->has_me)
        printf(" ModelExchange (%s)", md->me_model_identifier);
    if (md->has_se)
        printf(" ScheduledExecution (%s)", md->se_model_identifier);
    printf("\n");
    const rtc_default_experiment *x = &md->experiment;
    char tol[RTC_NUMFMT_MAX] = "-";
    if (x->has_tolerance)
        rtc_fmt_double_short(x->tolerance, tol);
    printf("Default experiment: start=%s stop=%s tolerance=%s step=%s\n",
           x->has_start ? x->start_text : "-", x->has_stop ? x->stop_text : "-", tol,
           x->has_step ? x->step_text : "-");
    if (md->has_cs)
        print_caps("CoSimulation", &md->cs);
    if (md->has_me) {
        print_caps("ModelExchange", &md->me);
        /* what a Model Exchange run will handle (see rtcosim run --interface me) */
        printf("ModelExchange events: %zu continuous states, %zu event indicators (state "
               "events), time events and event iteration via %s, step events %s\n",
               md->structure.n_derivatives, md->n_event_indicators,
               md->fmi_major == 2 ? "fmi2NewDiscreteStates" : "fmi3UpdateDiscreteStates",
               md->me.needs_completed_integrator_step ? "via CompletedIntegratorStep"
                                                      : "not needed");
    }
    print_events(md);
    print_vars(md);
    print_aliases(md);
    print_clocks(md);
}

int rtc_cmd_info(int argc, char **argv)
{
    const rtc_cli_command *cmd = rtc_cli_command_find("info");
    rtc_cli_args a;
    int st = rtc_cli_parse(cmd, argc, argv, &a);
    bool units = false, samples = false;
    const char **places = calloc(a.n + 1, sizeof *places);
    size_t n_places = 0;
    if (!places)
        st = RTC_EXIT_ERROR;
    for (size_t i = 0; st == RTC_EXIT_OK && i < a.n; i++) {
        units |= a.args[i].opt->id == RTC_CLI_UNITS;
        samples |= a.args[i].opt->id == RTC_CLI_SAMPLES;
        if (a.args[i].opt->id == RTC_CLI_PLACE)
            places[n_places++] = a.args[i].v.text;
        if (a.args[i].opt->id == RTC_CLI_VERBOSE)
            rtc_cli_log.max_level = RTC_LOG_INFO;
    }
    if (st == RTC_EXIT_OK && a.help) {
        fputs(help, stdout);
        rtc_cli_print_options(cmd, RTC_CLI_G_OPTIONS, stdout);
    }
    char *file = st == RTC_EXIT_OK && !a.help ? a.words[0] : NULL;
    rtc_cli_args_clear(&a);
    if (file && n_places && (samples || rtc_system_is_fmu_path(file))) {
        st = rtc_cli_usage_error("info", "--place: an option of systems (%s is not one)", file);
        file = NULL;
    }
    if (!file || samples || !rtc_system_is_fmu_path(file)) { /* the one rule run and check follow */
        if (file)
            st = samples ? rtc_cli_info_samples(file)
                         : rtc_cli_info_system(file, units, places, n_places);
        free(places);
        return st;
    }
    free(places);
    rtc_fmu *fmu = NULL;
    if (rtc_fmu_open(file, NULL, &rtc_cli_log, &fmu) != RTC_OK)
        return RTC_EXIT_ERROR;
    const rtc_model_desc *md = rtc_fmu_model(fmu);
    for (size_t i = 0; units && i < md->n_vars; i++) /* results.csv of `run FMU`: bare names */
        printf("%s\t%s\n", md->vars[i].name, md->vars[i].unit ? md->vars[i].unit : "");
    if (!units)
        print_model(file, md);
    rtc_fmu_close(fmu);
    return RTC_EXIT_OK;
}
