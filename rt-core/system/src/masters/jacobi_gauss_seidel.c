/*
 * Jacobi and Gauss-Seidel on the stepping thread, with strong coupling (rtcosim/system.h).
 *
 * Both walk the units due at t once: Jacobi in declaration order with inputs taken at t,
 * Gauss-Seidel in dependency order (system_graph.c) with inputs taken at the end of the
 * unit's step, so the fresh outputs of the units before it are visible. With --iterate the
 * members of an algebraic loop (units that can save and restore their state) step where
 * the first of them comes, together, repeatedly from the saved state until their Float64
 * outputs stop changing: each iteration is one microstep of the same instant.
 */
#include "master_priv.h"

#include "rtcosim/status.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- strong coupling: iterate the units of an algebraic loop to a fixed point ---- */

/* Largest change of a Float64 output between two iterates, relative to its size. */
static double change(const sys_unit *u, const double *prev)
{
    const obs_group *g = &u->obs[RTC_TYPE_FLOAT64];
    const double *now = rtc__obs_nxt(u, g);
    double worst = 0;
    for (size_t i = 0; i < g->n_values; i++) {
        double d = fabs(now[i] - prev[i]) / (1.0 + fabs(now[i]));
        worst = d > worst ? d : worst;
    }
    return worst;
}

static int iterate_loop(rtc_system *sys, int64_t t)
{
    int rc = RTC_OK;
    for (size_t i = 0; rc == RTC_OK && i < sys->n_units; i++)
        if (sys->units[i].in_loop && rtc__master_due(sys, &sys->units[i], t))
            rc = sys->units[i].unit->ops->get_state(sys->units[i].unit->self,
                                                    &sys->units[i].state);
    unsigned it = 0;
    double worst = INFINITY;
    for (; rc == RTC_OK && it < sys->max_iter && worst > sys->tol; it++) {
        worst = 0;
        for (size_t j = 0; rc == RTC_OK && j < sys->n_units; j++) {
            sys_unit *u = &sys->units[sys->order[j]];
            if (!u->in_loop || !rtc__master_due(sys, u, t))
                continue;
            double *prev = u->iter_prev;
            memcpy(prev, rtc__obs_nxt(u, &u->obs[RTC_TYPE_FLOAT64]),
                   u->obs[RTC_TYPE_FLOAT64].n_values * sizeof(double));
            if (it > 0)
                rc = u->unit->ops->set_state(u->unit->self, u->state);
            /* The end-of-step query sees the other loop members' latest iterate. */
            rtc__sys_inputs_at(sys, u, t + u->step_ns);
            if (rc == RTC_OK)
                rc = rtc__master_step_unit(sys, u, t);
            double c = it > 0 ? change(u, prev) : INFINITY;
            worst = c > worst ? c : worst;
        }
    }
    sys->coupling.iterated_steps++;
    sys->coupling.iterations += it;
    sys->microstep = it; /* each iteration is one microstep at the same logical time */
    if (rc == RTC_OK && worst > sys->tol && sys->coupling.not_converged++ == 0)
        rtc_log(sys->lg, RTC_LOG_WARNING,
                "strong coupling did not converge within %u iterations at t=%.9g s "
                "(relative change %.3g > %.3g); reported once, counted in the summary",
                sys->max_iter, (double)(sys->start_ns + t) / 1e9, worst, sys->tol);
    return rc;
}

void rtc_system_coupling_stats(const rtc_system *sys, rtc_coupling_stats *out)
{
    *out = sys->coupling;
}

/* The previous iterate of every loop member's Float64 outputs. */
static int arm(rtc_system *sys)
{
    for (size_t i = 0; i < sys->n_units; i++) {
        sys_unit *u = &sys->units[i];
        if (!u->in_loop)
            continue;
        u->iter_prev = calloc(u->obs[RTC_TYPE_FLOAT64].n_values + 1, sizeof(double));
        if (!u->iter_prev)
            return RTC_ENOMEM;
    }
    return RTC_OK;
}

static void release(rtc_system *sys)
{
    for (size_t i = 0; i < sys->n_units; i++) {
        free(sys->units[i].iter_prev);
        sys->units[i].iter_prev = NULL;
    }
}

/* ---- the walk over the due units ---- */

/* Inline in both ticks, always: the compiler would keep one copy for the two and pay a call
 * and its register saves per tick. */
__attribute__((always_inline)) static inline int sequential(rtc_system *sys, int64_t t,
                                                            bool gauss_seidel)
{
    bool iterated = false;
    for (size_t j = 0; j < sys->n_units; j++) {
        sys_unit *u = &sys->units[gauss_seidel ? sys->order[j] : j];
        if (!rtc__master_due(sys, u, t) || (u->in_loop && iterated))
            continue;
        int rc;
        if (u->in_loop) {
            /* the loop's members step together where the first of them comes in the order */
            iterated = true;
            rc = iterate_loop(sys, t);
        } else {
            if (u->n_links_in)
                rtc__sys_inputs_at(sys, u, gauss_seidel ? t + u->step_ns : t);
            rc = rtc__master_step_unit(sys, u, t);
        }
        if (rc != RTC_OK)
            return rc;
    }
    return RTC_OK;
}

static int jacobi_tick(rtc_system *sys, int64_t t)
{
    return sequential(sys, t, false);
}

static int gauss_seidel_tick(rtc_system *sys, int64_t t)
{
    return sequential(sys, t, true);
}

const rtc__master_ops rtc__master_jacobi = {
    .name = "jacobi",
    .threads = RTC__ON_STEPPER,
    .arm = arm,
    .tick = jacobi_tick,
    .free = release,
};

const rtc__master_ops rtc__master_gauss_seidel = {
    .name = "gauss-seidel",
    .threads = RTC__ON_STEPPER,
    .in_order = true,
    .arm = arm,
    .tick = gauss_seidel_tick,
    .free = release,
};
