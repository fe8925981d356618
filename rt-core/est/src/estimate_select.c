/*
 * estimate_select.c — the selector behind "auto" and "kalman": several candidate methods
 * run side by side over one sample history, each is scored by its own prediction error,
 * and the one with the lowest recent error answers, with hysteresis.
 *
 * DESIGN. The dispatcher (estimate.c) notes at every consumer tick what each candidate
 * would have supplied (rtc__est_select_note), and when a sample arrives it hands over what
 * each candidate had supplied for the sample's time (the notes interpolated): the
 * prediction error at the consumer's real horizon — delay plus age —, not at the sample
 * spacing. Scores are exponential averages of the squared error over the window (a running
 * mean until the window is full); the candidate in use changes only when another one's
 * recent RMS error is below (1 - margin) times its own, and not before two samples were
 * scored. Ties keep the candidate in use; the first candidate (hold, for auto) is in use
 * until the evidence says otherwise, so a signal made of steps and plateaus, where no
 * model predicts better than holding, stays on hold.
 *
 * A sparse signal — fewer than one sample per RTC_EST_SPARSE_TICKS consumer ticks, on
 * average — is held by auto whatever the scores say: a model would bridge gaps of many
 * ticks blind, and slow sources are mostly set-points sent on change, whose value between
 * two samples is exactly the last one while a sample's own value (the next set-point) is
 * what a mean-reverting filter "predicts" best. Scoring by the next sample is the wrong
 * question there; holding is the right answer (an operator's set-point never runs away).
 *
 * "Never worse than holding" needs a second, longer memory: a model that predicts a noisy
 * plateau better than hold but lags at the rare step wins the recent score almost all the
 * time and loses the run at the steps, which a window of 32 samples has forgotten by the
 * next one. So auto also keeps each candidate's error over 16 windows, and a candidate may
 * be used only while that long error is not above hold's; among those the recent error
 * decides (which lets a Kalman filter's cv and ca alternate with the phase of the signal).
 *
 * Candidates: auto = zoh, linear, dead-reckoning (the configured order), kalman-cv and
 * kalman-ca (adaptive unless adapt=0; q and r as starting values); kalman = kalman-cv and
 * kalman-ca. Each candidate has its own configuration (the parent's, method changed) and
 * leaf state; a Kalman candidate's gate rejects an outlier inside that candidate only.
 * Everything is fixed-size and deterministic: a replay of the same samples and ticks
 * chooses the same candidates at the same ticks.
 */
#include "estimate_method.h"

#include <math.h>

/* Samples scored before the first switch: two, so that a signal that starts to move is
 * followed from the third sample on (with one, every candidate has only the first sample
 * and says the same). */
#define EST_SELECT_MIN 2

/* The leaf row of a candidate's method. */
static const est_method *row(rtc_est_method m)
{
    switch (m) {
    case RTC_EST_ZOH:
        return &rtc__est_zoh;
    case RTC_EST_LINEAR:
        return &rtc__est_linear;
    case RTC_EST_QUADRATIC:
        return &rtc__est_quadratic;
    case RTC_EST_EI:
        return &rtc__est_ei;
    case RTC_EST_DEAD_RECKONING:
        return &rtc__est_dead_reckoning;
    default:
        return &rtc__est_kalman;
    }
}

void rtc__est_select_init(est_select *s, const rtc_est_config *cfg)
{
    static const rtc_est_method auto_cands[] = {RTC_EST_ZOH, RTC_EST_LINEAR,
                                                RTC_EST_DEAD_RECKONING, RTC_EST_KALMAN_CV,
                                                RTC_EST_KALMAN_CA};
    static const rtc_est_method kalman_cands[] = {RTC_EST_KALMAN_CV, RTC_EST_KALMAN_CA};
    bool is_auto = cfg->method == RTC_EST_AUTO;
    const rtc_est_method *c = is_auto ? auto_cands : kalman_cands;
    *s = (est_select){.n = is_auto ? 5 : 2};
    for (uint32_t i = 0; i < s->n; i++) {
        s->cfg[i] = *cfg;
        s->cfg[i].method = c[i];
    }
}

/* Candidate i may be used: for auto, only while its error over the long window is not
 * above hold's (candidate 0); kalman's candidates always. */
static bool eligible(const est_select *s, const rtc_est_config *cfg, uint32_t i)
{
    return cfg->method != RTC_EST_AUTO || i == 0 || s->slow[i] <= s->slow[0];
}

/* An exponential average with weight w of the new squared error x. A candidate whose
 * prediction was not finite has failed: its average becomes infinite (it cannot be
 * chosen), and starts again from the next finite error. */
static double average(double avg, double x, double w)
{
    if (!isfinite(x))
        return HUGE_VAL;
    return isfinite(avg) ? avg + w * (x - avg) : x;
}

void rtc__est_select_judge(est_select *s, const rtc_est_config *cfg, const double *pred,
                           double z, bool sparse)
{
    uint32_t slow_window = 16 * cfg->window;
    if (s->scored < slow_window)
        s->scored++;
    double a = 1.0 / (double)(s->scored < cfg->window ? s->scored : cfg->window);
    double b = 1.0 / (double)s->scored;
    for (uint32_t i = 0; i < s->n; i++) {
        double e = pred[i] - z;
        s->score[i] = average(s->score[i], e * e, a);
        s->slow[i] = average(s->slow[i], e * e, b);
    }
    uint32_t best = 0;
    for (uint32_t i = 1; i < s->n; i++)
        if (eligible(s, cfg, i) && s->score[i] < s->score[best])
            best = i;
    /* Hysteresis on the RMS, (1 - margin)^2 on the mean squares; a candidate that lost its
     * eligibility is left at once. */
    double keep = (1.0 - cfg->margin) * (1.0 - cfg->margin);
    bool lost = !eligible(s, cfg, s->cur);
    if (sparse && cfg->method == RTC_EST_AUTO)
        best = 0; /* a sparse signal is held (the file's DESIGN) */
    if (best != s->cur && s->scored >= EST_SELECT_MIN &&
        (lost || s->score[best] < keep * s->score[s->cur])) {
        s->cur = best;
        s->switches++;
    }
}

void rtc__est_select_take(est_select *s, const est_hist *h, const rtc_est_sample *smp)
{
    for (uint32_t i = 0; i < s->n; i++) {
        const est_method *m = row(s->cfg[i].method);
        if (m->take) {
            est_take r = {.verdict = RTC_EST_ACCEPTED};
            m->take(&s->leaf[i], &s->cfg[i], h, smp, &r);
        }
    }
}

void rtc__est_select_eval(const est_select *s, const est_hist *h, int64_t t_ns, double *value,
                          double *rate)
{
    row(s->cfg[s->cur].method)->eval(&s->leaf[s->cur], &s->cfg[s->cur], h, t_ns, value, rate);
}

void rtc__est_select_note(const est_select *s, const est_hist *h, int64_t t_ns, double *vals)
{
    for (uint32_t i = 0; i < s->n; i++) {
        double rate;
        row(s->cfg[i].method)->eval(&s->leaf[i], &s->cfg[i], h, t_ns, &vals[i], &rate);
    }
}
