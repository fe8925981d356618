/*
 * estimate_payback.c — the payback coupling element (rtc_est_config.payback): every error
 * supplied to the consumer, the blind start's and then the estimate's, is paid back once
 * the samples for its time arrive, in momentum and in position.
 *
 * DESIGN. Until the first sample arrives the consumer is held at that sample's value (the
 * link holds the oldest known value; the estimator is not asked). Its blind interval runs
 * from the first sample's time to the first supply; the samples that cover it arrive one
 * delay later, and each interval between two of them adds its share of the error supplied
 * then (held value minus the sample at the interval's start, clipped at the blind
 * interval's end) to two debts: the momentum P (integral of supplied minus true) and the
 * position X (integral of P: a share p of mid time t adds p·(clock − t)). After the blind
 * interval each sample interval adds its share of the estimate's own error: the integral
 * of what was supplied over it (from the notes, without the corrections) minus the sample
 * at its start held over it. The true signal is taken as held, as the consumer holds its
 * input over each step (a trapezoid would leave a bias of half a step times the signal's
 * change, in no estimator's error). What cannot be learned is counted unpaid (the
 * monitor reports it), never guessed: an interval older than the notes reach (a sample
 * late by more than about three mean delays), and a gap, an interval longer than
 * EST_PAYBACK_GAP times the samples' average spacing (samples lost or never sent: the
 * signal over it is unknown, and holding the sample before it over a long outage would
 * owe, and then pay back as one large pulse, whatever the consumer got meanwhile).
 * Every supply then adds the correction c = −(2wP + w²X) and pays it into the debts
 * (P += c·dt, X += P·dt + c·dt²/2 over the interval it was held): the debts follow
 * X'' + 2wX' + w²X = 0, critically damped, so both return to zero without overshoot within
 * a few 1/w; w is capped at half the tick rate, where the held correction is still a
 * stable, non-oscillating discrete control. Constant work per call, no allocation,
 * deterministic.
 */
#include "estimate_method.h"

#include <math.h>

/* The largest rate times tick of the payback (see rtc__est_payback_supply). */
#define EST_PAYBACK_MAX_WDT 0.5
/* A sample interval this many times the average spacing is a gap (the file's DESIGN). */
#define EST_PAYBACK_GAP 4.0

/* Add a share p (units·s) of an error whose mid time is mid_ns to the debts. */
static void owe(est_payback *pb, double p, int64_t mid_ns)
{
    pb->p += p;
    pb->x += p * EST_NS_TO_S(pb->t_clock_ns - mid_ns);
}

void rtc__est_payback_sample(est_payback *pb, const rtc_est_sample *s, double s_int)
{
    if (!pb->started) {
        *pb = (est_payback){.started = true,
                            .t_end_ns = INT64_MAX,
                            .held = s->value,
                            .t_prev_ns = s->t_ns,
                            .v_prev = s->value,
                            .t_clock_ns = s->t_ns,
                            .s_prev = NAN};
        return;
    }
    if (s->t_ns <= pb->t_prev_ns)
        return;
    /* The consumer holds each value over its step, so the true signal is taken as held
     * too: the sample at t_prev over [t_prev, t) (a trapezoid instead would differ from it
     * by half a step times the signal's change, a bias no estimator's error contains). */
    int64_t a = pb->t_prev_ns, b = s->t_ns < pb->t_end_ns ? s->t_ns : pb->t_end_ns;
    double span = (double)(s->t_ns - a);
    bool gap = pb->spacing_ns > 0.0 && span > EST_PAYBACK_GAP * pb->spacing_ns;
    pb->spacing_ns = pb->spacing_ns > 0.0 ? pb->spacing_ns + (span - pb->spacing_ns) / 8.0
                                          : span;
    if (gap) { /* nothing learned over it; the estimate's part starts again after it */
        pb->unpaid++;
        pb->covered = s->t_ns >= pb->t_end_ns;
        pb->s_prev = pb->covered ? s_int : NAN;
        pb->t_prev_ns = s->t_ns;
        pb->v_prev = s->value;
        return;
    }
    if (!pb->covered && b > a) {
        owe(pb, (pb->held - pb->v_prev) * EST_NS_TO_S(b - a), a + (b - a) / 2);
        if (s->t_ns >= pb->t_end_ns) { /* the estimate's part starts at the end, S = 0 */
            a = b;
            pb->s_prev = 0.0;
        }
    }
    pb->covered = s->t_ns >= pb->t_end_ns;
    if (pb->covered && s->t_ns > a) {
        if (isfinite(s_int) && isfinite(pb->s_prev)) /* supplied minus true over [a, t] */
            owe(pb, s_int - pb->s_prev - pb->v_prev * EST_NS_TO_S(s->t_ns - a),
                a + (s->t_ns - a) / 2);
        else
            pb->unpaid++;
    }
    pb->s_prev = s_int;
    pb->t_prev_ns = s->t_ns;
    pb->v_prev = s->value;
}

double rtc__est_payback_supply(est_payback *pb, int64_t t_ns, double w, double v)
{
    if (!pb->started || t_ns < pb->t_clock_ns)
        return 0.0;
    double dt = EST_NS_TO_S(t_ns - pb->t_clock_ns), tick = 0.0;
    if (pb->t_end_ns == INT64_MAX) { /* the first supply ends the blind interval */
        pb->t_end_ns = t_ns;
        pb->covered = pb->t_prev_ns >= t_ns;
    } else {
        pb->s_int += pb->s_last * dt;
        tick = dt; /* the consumer's tick, known from the second supply on */
    }
    pb->s_last = v;
    pb->x += pb->p * dt + 0.5 * pb->c * dt * dt;
    pb->p += pb->c * dt;
    pb->t_clock_ns = t_ns;
    /* Held over a tick, the correction is a discrete control of the debts: stable for
     * w·tick < 1 and without overshoot up to about 0.55, so the rate is capped at
     * 0.5/tick (a small k or a delay shorter than the tick would otherwise make the debts
     * grow each tick to infinity); nothing is paid until the tick is known. */
    if (tick > 0.0 && w * tick > EST_PAYBACK_MAX_WDT)
        w = EST_PAYBACK_MAX_WDT / tick;
    pb->c = isfinite(w) && w > 0.0 && tick > 0.0 ? -(2.0 * w * pb->p + w * w * pb->x) : 0.0;
    return pb->c;
}
