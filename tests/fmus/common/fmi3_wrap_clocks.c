/*
 * fmi3_wrap_clocks.c — the Scheduled Execution clock functions of the generic FMI 3.0
 * wrapper (see fmi3_wrap.c; wrap_events.c does the work), refused for models without clocks.
 */
#include "fmi3_wrap.h"

fmi3Status fmi3GetClock(fmi3Instance instance,
                        const fmi3ValueReference valueReferences[],
                        size_t nValueReferences,
                        fmi3Clock values[])
{
    GET_INST(instance);
    if (!in->model->nclocks)
        return (fmi3Status)rtc__tm_unsupported(in, "fmi3GetClock", NO_CLOCKS);
    return (fmi3Status)rtc__tm_get_clocks(in, "fmi3GetClock", valueReferences, nValueReferences,
                                          values);
}

fmi3Status fmi3ActivateModelPartition(fmi3Instance instance,
                                      fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime)
{
    GET_INST(instance);
    if (!in->model->nclocks)
        return (fmi3Status)rtc__tm_unsupported(in, "fmi3ActivateModelPartition", NO_CLOCKS);
    return (fmi3Status)rtc__tm_activate(in, "fmi3ActivateModelPartition", clockReference,
                                        activationTime);
}

fmi3Status fmi3SetClock(fmi3Instance instance,
                        const fmi3ValueReference valueReferences[],
                        size_t nValueReferences,
                        const fmi3Clock values[])
{
    GET_INST(instance);
    (void)valueReferences, (void)nValueReferences, (void)values;
    return (fmi3Status)rtc__tm_unsupported(in, "fmi3SetClock", NO_CLOCKS);
}

fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance,
                                  const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences,
                                  fmi3Float64 intervals[],
                                  fmi3IntervalQualifier qualifiers[])
{
    GET_INST(instance);
    if (!in->model->nclocks || !intervals || !qualifiers)
        return (fmi3Status)rtc__tm_unsupported(in, "fmi3GetIntervalDecimal", NO_CLOCKS);
    int q[16];
    if (nValueReferences > sizeof q / sizeof *q)
        return (fmi3Status)rtc__tm_unsupported(in, "fmi3GetIntervalDecimal", "> 16 clocks");
    rtc_tm_status st = rtc__tm_get_intervals(in, "fmi3GetIntervalDecimal", valueReferences,
                                             nValueReferences, intervals, q);
    for (size_t i = 0; st < RTC_TM_ERROR && i < nValueReferences; i++)
        qualifiers[i] = (fmi3IntervalQualifier)q[i];
    return (fmi3Status)st;
}

fmi3Status fmi3GetIntervalFraction(fmi3Instance instance,
                                   const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences,
                                   fmi3UInt64 counters[],
                                   fmi3UInt64 resolutions[],
                                   fmi3IntervalQualifier qualifiers[])
{
    GET_INST(instance);
    (void)valueReferences, (void)nValueReferences, (void)counters, (void)resolutions;
    (void)qualifiers;
    return (fmi3Status)rtc__tm_unsupported(in, "fmi3GetIntervalFraction", NO_CLOCKS);
}

fmi3Status fmi3GetShiftDecimal(fmi3Instance instance,
                               const fmi3ValueReference valueReferences[],
                               size_t nValueReferences,
                               fmi3Float64 shifts[])
{
    GET_INST(instance);
    (void)valueReferences, (void)nValueReferences, (void)shifts;
    return (fmi3Status)rtc__tm_unsupported(in, "fmi3GetShiftDecimal", NO_CLOCKS);
}

fmi3Status fmi3GetShiftFraction(fmi3Instance instance,
                                const fmi3ValueReference valueReferences[],
                                size_t nValueReferences,
                                fmi3UInt64 counters[],
                                fmi3UInt64 resolutions[])
{
    GET_INST(instance);
    (void)valueReferences, (void)nValueReferences, (void)counters, (void)resolutions;
    return (fmi3Status)rtc__tm_unsupported(in, "fmi3GetShiftFraction", NO_CLOCKS);
}

fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance,
                                  const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences,
                                  const fmi3Float64 intervals[])
{
    GET_INST(instance);
    (void)valueReferences, (void)nValueReferences, (void)intervals;
    return (fmi3Status)rtc__tm_unsupported(in, "fmi3SetIntervalDecimal", NO_CLOCKS);
}

fmi3Status fmi3SetIntervalFraction(fmi3Instance instance,
                                   const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences,
                                   const fmi3UInt64 counters[],
                                   const fmi3UInt64 resolutions[])
{
    GET_INST(instance);
    (void)valueReferences, (void)nValueReferences, (void)counters, (void)resolutions;
    return (fmi3Status)rtc__tm_unsupported(in, "fmi3SetIntervalFraction", NO_CLOCKS);
}

fmi3Status fmi3SetShiftDecimal(fmi3Instance instance,
                               const fmi3ValueReference valueReferences[],
                               size_t nValueReferences,
                               const fmi3Float64 shifts[])
{
    GET_INST(instance);
    (void)valueReferences, (void)nValueReferences, (void)shifts;
    return (fmi3Status)rtc__tm_unsupported(in, "fmi3SetShiftDecimal", NO_CLOCKS);
}

fmi3Status fmi3SetShiftFraction(fmi3Instance instance,
                                const fmi3ValueReference valueReferences[],
                                size_t nValueReferences,
                                const fmi3UInt64 counters[],
                                const fmi3UInt64 resolutions[])
{
    GET_INST(instance);
    (void)valueReferences, (void)nValueReferences, (void)counters, (void)resolutions;
    return (fmi3Status)rtc__tm_unsupported(in, "fmi3SetShiftFraction", NO_CLOCKS);
}
