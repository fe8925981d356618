/*
 * fmi3_wrap_me.c — the Model Exchange functions of the generic FMI 3.0 wrapper (see
 * fmi3_wrap.c; wrap_me.c does the work) and the derivative functions.
 */
#include "fmi3_wrap.h"

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance,
                                        const fmi3ValueReference unknowns[],
                                        size_t nUnknowns,
                                        const fmi3ValueReference knowns[],
                                        size_t nKnowns,
                                        const fmi3Float64 seed[],
                                        size_t nSeed,
                                        fmi3Float64 sensitivity[],
                                        size_t nSensitivity)
{
    GET_INST(instance);
    (void)nSeed, (void)nSensitivity; /* scalars only: nSeed = nKnowns, nSensitivity = nUnknowns */
    if (in->me && in->model->me->jacobian)
        return (fmi3Status)rtc__tm_me_dir_der(in, "fmi3GetDirectionalDerivative", unknowns,
                                              nUnknowns, knowns, nKnowns, seed, sensitivity);
    return (fmi3Status)rtc__tm_unsupported(in, "fmi3GetDirectionalDerivative",
                                           "providesDirectionalDerivatives=false");
}

fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance,
                                    const fmi3ValueReference unknowns[],
                                    size_t nUnknowns,
                                    const fmi3ValueReference knowns[],
                                    size_t nKnowns,
                                    const fmi3Float64 seed[],
                                    size_t nSeed,
                                    fmi3Float64 sensitivity[],
                                    size_t nSensitivity)
{
    GET_INST(instance);
    (void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed;
    (void)sensitivity, (void)nSensitivity;
    return (fmi3Status)rtc__tm_unsupported(in, "fmi3GetAdjointDerivative",
                                           "providesAdjointDerivatives=false");
}

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_me_mode(in, "fmi3EnterContinuousTimeMode", false);
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance,
                                       fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode,
                                       fmi3Boolean *terminateSimulation)
{
    GET_INST(instance);
    bool enter, term;
    (void)noSetFMUStatePriorToCurrentPoint;
    rtc_tm_status st = rtc__tm_me_completed(in, "fmi3CompletedIntegratorStep", &enter, &term);
    *enterEventMode = enter;
    *terminateSimulation = term;
    return (fmi3Status)st;
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_me_set_time(in, "fmi3SetTime", time);
}

fmi3Status fmi3SetContinuousStates(fmi3Instance instance,
                                   const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_me_set_x(in, "fmi3SetContinuousStates", continuousStates,
                                       nContinuousStates);
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance,
                                             fmi3Float64 derivatives[],
                                             size_t nContinuousStates)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_me_get(in, "fmi3GetContinuousStateDerivatives", 'd', derivatives,
                                      nContinuousStates);
}

fmi3Status fmi3GetEventIndicators(fmi3Instance instance,
                                  fmi3Float64 eventIndicators[],
                                  size_t nEventIndicators)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_me_get(in, "fmi3GetEventIndicators", 'z', eventIndicators,
                                      nEventIndicators);
}

fmi3Status fmi3GetContinuousStates(fmi3Instance instance,
                                   fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_me_get(in, "fmi3GetContinuousStates", 'x', continuousStates,
                                      nContinuousStates);
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance,
                                             fmi3Float64 nominals[],
                                             size_t nContinuousStates)
{
    GET_INST(instance);
    return (fmi3Status)rtc__tm_me_get(in, "fmi3GetNominalsOfContinuousStates", 'n', nominals,
                                      nContinuousStates);
}

/* Sizes as the modelDescription has them (no structural parameters). */
fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators)
{
    GET_INST(instance);
    const rtc_tm_me *me = in->model->me;
    *nEventIndicators = me ? me->nz : 0;
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates)
{
    GET_INST(instance);
    const rtc_tm_me *me = in->model->me;
    *nContinuousStates = me ? me->nx : 0;
    return fmi3OK;
}
