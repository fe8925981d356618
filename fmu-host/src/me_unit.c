/*
 * Model Exchange units: an ME FMU stepped like a Co-Simulation unit. do_step(t, h) runs
 * `substeps` fixed steps of the chosen solver (me_solver.c) over [t, t + h] and handles the
 * FMU's events on the way (FMI 2.0 §3.2.3 / FMI 3.0 §3.2 call sequences):
 *
 *   - time events: a substep that would pass nextEventTime is cut there;
 *   - state events: after each step the event indicators are compared with the previous
 *     ones (domain z > 0 versus z <= 0); on a change the crossing is located inside the
 *     step by the Illinois variant of regula falsi (the stale end's values are halved when
 *     one end is kept twice), each trial point re-integrating the step from its start with
 *     the same method, and the step ends just past the crossing;
 *   - step events: CompletedIntegratorStep (only when the FMU needs it) asks for Event Mode.
 * At an event: EnterEventMode, the event iteration (NewDiscreteStates / UpdateDiscreteStates
 * until no further iteration is needed: the superdense microsteps of one instant), then
 * EnterContinuousTimeMode and states and indicators are read again; the rest of the
 * substep is integrated from there. terminateSimulation ends the run at that instant.
 *
 * Real time: all buffers are allocated when the unit leaves initialization (arm phase);
 * do_step allocates nothing, and its work is bounded (see me_priv.h): fixed stages per step,
 * at most RTC_ME_SEGMENTS events per substep, RTC_ME_LOCATE_ITER localisation trials per
 * state event and RTC_ME_EVENT_ITER iterations per instant (more is an error, logged).
 * A faulty FMU's error names what it did: a nextEventTime before the current instant, a
 * NaN or infinite event indicator (no crossing could be seen in it), a non-finite entry
 * of the Jacobian (which derivative, which state, from where).
 * The FMU's time and states are only set when they change, so a step costs the FMU calls
 * of the method itself.
 */
#include "me_priv.h"

#include "rtcosim/status.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct me_unit {
    rtc_unit unit;
    rtc_unit *inner; /* the instance (fmi2_cs.c / fmi3_cs.c created for ME) */
    const rtc_me_backend *be;
    rtc_me_call call;
    const rtc_model_desc *md;
    rtc_me_solver solver;
    unsigned substeps;
    bool provides_dd, needs_cis;
    bool plain; /* no indicators, no step events, one substep: plain_step() */
    bool running;              /* between exit_init and terminate */
    bool stale_x, stale_z;     /* states / indicators changed outside do_step */
    size_t nx, nz;
    double *x, *x1, *xb, *xp, *x_fmu, *col, *nom; /* nx each, one block */
    double *z, *za, *zb, *zc;                     /* nz each, same block */
    double *block;                                /* the allocation (x/xb, z/zb swap) */
    uint32_t *x_vr, *dx_vr;
    rtc_me_work w;
    double t_start;
    double t_fmu; /* the FMU holds (t_fmu, x_fmu) when synced */
    bool synced;
    bool next_defined;
    double next_time;
    bool saved_next_defined; /* the time event as of the last get_state (see u_set_state) */
    double saved_next_time;
    uint32_t *event_vrs; /* Float vrs whose set needs Event Mode (discrete, tunable), sorted */
    size_t n_event_vrs;
    rtc_me_events ev;
} me_unit;

static const rtc_unit_ops me_ops;

/* ---- keeping the FMU at (t, x) with as few calls as possible ---- */

/* Copy x into the FMU's copy; true if anything differed (bitwise, like memcmp, but inline:
 * a library call costs more than the handful of states it compares). */
static bool update_copy(double *dst, const double *x, size_t n)
{
    bool changed = false;
    for (size_t i = 0; i < n; i++) {
        changed |= memcmp(&dst[i], &x[i], sizeof *x) != 0;
        dst[i] = x[i];
    }
    return changed;
}

static int move_to(me_unit *u, double t, const double *x)
{
    int rc = RTC_OK;
    if (!u->synced || t != u->t_fmu) {
        rc = u->be->set_time(&u->call, t);
        u->t_fmu = t;
    }
    if (rc == RTC_OK && u->nx && (update_copy(u->x_fmu, x, u->nx) || !u->synced))
        rc = u->be->set_x(&u->call, x, u->nx);
    u->synced = rc == RTC_OK;
    return rc;
}

static int rhs(void *ctx, double t, const double *x, double *dx)
{
    me_unit *u = ctx;
    int rc = move_to(u, t, x);
    return rc == RTC_OK && u->nx ? u->be->get_dx(&u->call, dx, u->nx) : rc;
}

/* Column j of df/dx: the FMU's directional derivative, or a forward difference. */
static int jac(void *ctx, double t, const double *x, const double *fx, double *J)
{
    me_unit *u = ctx;
    size_t n = u->nx;
    int rc = move_to(u, t, x);
    for (size_t j = 0; rc == RTC_OK && j < n; j++) {
        if (u->provides_dd) {
            static const double one = 1.0;
            rc = u->be->dir_der(&u->call, u->dx_vr, n, &u->x_vr[j], 1, &one, u->col);
        } else {
            double d = sqrt(DBL_EPSILON) * fmax(fabs(x[j]), u->nom[j]);
            memcpy(u->xp, x, n * sizeof *x);
            u->xp[j] += d;
            d = u->xp[j] - x[j]; /* the increment actually represented */
            rc = rhs(u, t, u->xp, u->col);
            for (size_t i = 0; i < n; i++)
                u->col[i] = (u->col[i] - fx[i]) / d;
        }
        for (size_t i = 0; i < n; i++)
            J[i * n + j] = u->col[i];
    }
    return rc;
}

/* Name of state @p i ("der(x)" is derivative i of the model structure), into @p buf. */
static const char *state_name(const me_unit *u, size_t i, bool der, char *buf, size_t cap)
{
    const rtc_model_structure *s = &u->md->structure;
    const rtc_var *d = i < s->n_derivatives ? &u->md->vars[s->derivatives[i].var] : NULL;
    if (d && !der && d->derivative_of >= 0)
        snprintf(buf, cap, "%s", u->md->vars[d->derivative_of].name);
    else if (d && der)
        snprintf(buf, cap, "%s", d->name);
    else
        snprintf(buf, cap, "%s%zu", der ? "derivative " : "state ", i + 1);
    return buf;
}

/* Indicators at (t, x). A NaN or infinite one has no sign, so no crossing could ever be
 * seen in it: an error naming it, never a silently missed event. */
static int indicators_at(me_unit *u, double t, const double *x, double *z)
{
    int rc = move_to(u, t, x);
    if (rc != RTC_OK || !u->nz)
        return rc;
    rc = u->be->get_z(&u->call, z, u->nz);
    for (size_t i = 0; rc == RTC_OK && i < u->nz; i++) {
        if (isfinite(z[i]))
            continue;
        const rtc_model_structure *s = &u->md->structure;
        char name[64];
        if (i < s->n_event_indicators) /* FMI 3 names them */
            snprintf(name, sizeof name, " (%s)", u->md->vars[s->event_indicators[i].var].name);
        else
            name[0] = '\0';
        rtc_log(u->call.lg, RTC_LOG_ERROR, "%s: event indicator %zu%s is %g at t = %.17g: no "
                "state event can be detected from it", u->call.name, i + 1, name, z[i], t);
        rc = RTC_EFMU;
    }
    return rc;
}

static bool crossed(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((a[i] > 0.0) != (b[i] > 0.0))
            return true;
    return false;
}

/* Re-read what the FMU changed (after events, sets, state restores); keeps it synced. */
static int reread(me_unit *u, double t, bool x_too)
{
    int rc = RTC_OK;
    if (x_too && u->nx)
        rc = u->be->get_x(&u->call, u->x, u->nx);
    if (x_too) {
        memcpy(u->x_fmu, u->x, u->nx * sizeof *u->x);
        u->t_fmu = t;
        u->synced = false; /* the time may differ after a state restore: set it once */
    }
    if (rc == RTC_OK)
        rc = indicators_at(u, t, u->x, u->z);
    return rc;
}

/* ---- events ---- */

/* The event iteration at one instant; leaves Event Mode unless the FMU terminates. */
static int event_iteration(me_unit *u, double t, bool *terminate)
{
    rtc_me_event_info ev = {.again = true};
    int rc = RTC_OK;
    for (unsigned i = 0; rc == RTC_OK && ev.again && i < RTC_ME_EVENT_ITER; i++) {
        rc = u->be->update(&u->call, &ev);
        u->ev.iterations++;
    }
    if (rc == RTC_OK && ev.again) {
        rtc_log(u->call.lg, RTC_LOG_ERROR, "%s: event iteration at t = %.17g did not converge "
                "in %d iterations", u->call.name, t, RTC_ME_EVENT_ITER);
        return RTC_EFMU;
    }
    /* a time event before the current instant can never be reached (integrating towards it
     * would only repeat events here): the FMU is at fault, and says so in this line */
    if (rc == RTC_OK && ev.next_defined && !ev.terminate &&
        !(ev.next_time >= t - 1e-12 * fmax(1.0, fabs(t)))) {
        rtc_log(u->call.lg, RTC_LOG_ERROR, "%s: nextEventTime %.17g s is %s the current time "
                "t = %.17g s: a time event in the past (the FMU's event handling is at fault)",
                u->call.name,
                ev.next_time, isnan(ev.next_time) ? "not a number at" : "before", t);
        return RTC_EFMU;
    }
    *terminate = ev.terminate;
    u->next_defined = ev.next_defined;
    u->next_time = ev.next_time;
    if (rc != RTC_OK || ev.terminate)
        return rc;
    rc = u->be->enter_ct(&u->call);
    if (rc == RTC_OK && ev.nominals_changed && u->nx) /* only the differences use them */
        rc = u->be->get_nominals(&u->call, u->nom, u->nx);
    return rc == RTC_OK ? reread(u, t, true) : rc;
}

static int handle_event(me_unit *u, double t, bool *terminate)
{
    int rc = u->be->enter_event(&u->call);
    return rc == RTC_OK ? event_iteration(u, t, terminate) : rc;
}

/* Illinois search for the first domain change in (ts, tb]: on return u->xb / u->zb hold the
 * states and indicators at *t_event, the earliest point found past the crossing. */
static int locate(me_unit *u, double ts, double tb, double *t_event)
{
    size_t nz = u->nz;
    double ta = ts, tol = 4.0 * DBL_EPSILON * fmax(1.0, fabs(tb));
    int kept = 0, rc = RTC_OK; /* kept: -1 a, +1 b retained by the last trial */
    memcpy(u->za, u->z, nz * sizeof *u->z);
    for (unsigned it = 0; rc == RTC_OK && it < RTC_ME_LOCATE_ITER && tb - ta > tol; it++) {
        double tc = tb;
        for (size_t i = 0; i < nz; i++)
            if ((u->za[i] > 0.0) != (u->zb[i] > 0.0))
                tc = fmin(tc, ta + (tb - ta) * u->za[i] / (u->za[i] - u->zb[i]));
        if (!(tc > ta && tc < tb))
            tc = 0.5 * (ta + tb);
        rc = rtc__me_step(&u->w, u->solver, rhs, jac, u, ts, tc - ts, u->x, u->x1);
        if (rc == RTC_OK)
            rc = indicators_at(u, tc, u->x1, u->zc);
        bool left = crossed(u->za, u->zc, nz);
        double *keep = left ? u->za : u->zb;
        if (kept == (left ? -1 : 1)) /* same end kept twice: halve its values (Illinois) */
            for (size_t i = 0; i < nz; i++)
                keep[i] *= 0.5;
        kept = left ? -1 : 1;
        if (left) {
            tb = tc;
            memcpy(u->zb, u->zc, nz * sizeof *u->zc);
            memcpy(u->xb, u->x1, u->nx * sizeof *u->x1);
        } else {
            ta = tc;
            memcpy(u->za, u->zc, nz * sizeof *u->zc);
        }
    }
    *t_event = tb;
    /* the indicators at tb were halved at most; read them again where the FMU is put */
    return rc == RTC_OK ? indicators_at(u, tb, u->xb, u->zb) : rc;
}

/* Why the linearly implicit method could not step from @p ts: a Jacobian entry that is
 * not a number (named: which derivative, which state, from where), or a singular matrix. */
static void solver_failed(const me_unit *u, double ts)
{
    size_t e = u->w.bad_entry, n = u->nx;
    if (e == SIZE_MAX || !n) {
        rtc_log(u->call.lg, RTC_LOG_ERROR, "%s: linearly implicit step at t = %.17g: the "
                "matrix I - h J is singular", u->call.name, ts);
        return;
    }
    char dn[64], xn[64];
    rtc_log(u->call.lg, RTC_LOG_ERROR, "%s: linearly implicit step at t = %.17g: the Jacobian "
            "is not finite: d %s / d %s = %g (%s)", u->call.name, ts,
            state_name(u, e / n, true, dn, sizeof dn), state_name(u, e % n, false, xn, sizeof xn),
            u->w.bad_value, u->provides_dd ? "the FMU's directional derivative"
                                           : "finite differences of the FMU's derivatives");
}

/* One solver step from (ts, u->x) to te, stopped at the first state event inside it. */
static int segment(me_unit *u, double ts, double te, bool *state_event, double *t_reached)
{
    int rc = rtc__me_step(&u->w, u->solver, rhs, jac, u, ts, te - ts, u->x, u->xb);
    if (rc == RTC_EINVAL) /* the only failure of the solver itself */
        solver_failed(u, ts);
    if (rc == RTC_OK)
        rc = indicators_at(u, te, u->xb, u->zb);
    *t_reached = te;
    *state_event = rc == RTC_OK && u->nz && crossed(u->z, u->zb, u->nz);
    if (*state_event)
        rc = locate(u, ts, te, t_reached);
    double *x = u->x, *z = u->z; /* accept the step: the new values become the current ones */
    u->x = u->xb, u->xb = x;
    u->z = u->zb, u->zb = z;
    return rc;
}

/* Events due at t_end of a segment: time, state, step; handles them all as one instant. */
static int after_segment(me_unit *u, double t, bool time_ev, bool state_ev, bool *term)
{
    bool step_ev = false;
    int rc = RTC_OK;
    u->ev.substeps++;
    if (u->needs_cis)
        rc = u->be->completed(&u->call, &step_ev, term);
    if (rc != RTC_OK || *term)
        return rc;
    u->ev.time_events += time_ev;
    u->ev.state_events += state_ev;
    u->ev.step_events += step_ev;
    return time_ev || state_ev || step_ev ? handle_event(u, t, term) : RTC_OK;
}

/* One substep [ts, te], split at events; *t_end is where it ended (< te on termination). */
static int substep(me_unit *u, double ts, double te, bool *term, double *t_end)
{
    double eps = u->next_defined ? 1e-12 * fmax(1.0, fabs(te)) : 0.0;
    int rc = RTC_OK;
    for (unsigned seg = 0; rc == RTC_OK && !*term && ts < te; seg++) {
        if (seg == RTC_ME_SEGMENTS) {
            rtc_log(u->call.lg, RTC_LOG_ERROR, "%s: more than %d events in the solver step at "
                    "t = %.17g; use a smaller step", u->call.name, RTC_ME_SEGMENTS, ts);
            return RTC_EFMU;
        }
        double tend = te;
        bool time_ev = u->next_defined && u->next_time <= te + eps, state_ev = false;
        if (time_ev && u->next_time <= ts + eps) { /* due now: no integration */
            u->ev.time_events++;
            rc = handle_event(u, ts, term);
            continue;
        }
        if (time_ev && u->next_time < te - eps)
            tend = u->next_time;
        double reached;
        rc = segment(u, ts, tend, &state_ev, &reached);
        time_ev = time_ev && reached >= tend;
        if (rc == RTC_OK)
            rc = after_segment(u, reached, time_ev, state_ev, term);
        ts = reached;
    }
    *t_end = ts;
    return rc;
}

/* The common step of a unit without event indicators, time events or step events, in one
 * substep: what substep() does in that case (the same arithmetic, the same FMU calls: the
 * FMU ends at (t + h, x(t + h)), as the outputs are read there), without the event
 * machinery's per-step bookkeeping. */
static int plain_step(me_unit *u, double t, double h)
{
    double te = t + h; /* te - t, as substep() steps, not h: the same bits */
    int rc = rtc__me_step(&u->w, u->solver, rhs, jac, u, t, te - t, u->x, u->xb);
    if (rc == RTC_EINVAL)
        solver_failed(u, t);
    if (rc == RTC_OK)
        rc = move_to(u, te, u->xb);
    double *x = u->x; /* accept the step */
    u->x = u->xb, u->xb = x;
    u->ev.substeps += rc == RTC_OK;
    return rc;
}

/* A step in which events may happen: `substeps` substeps, each split at its events. Kept
 * out of u_do_step() (noinline) so the plain step does not pay for its frame. */
__attribute__((noinline)) static int event_step(me_unit *u, double t, double h,
                                                rtc_step_result *res)
{
    bool term = false;
    double t_end = t;
    int rc = RTC_OK;
    if (u->stale_x || u->stale_z)
        rc = reread(u, t, u->stale_x);
    u->stale_x = u->stale_z = false;
    double hs = h / u->substeps;
    for (unsigned i = 0; rc == RTC_OK && !term && i < u->substeps; i++) {
        double te = i + 1 == u->substeps ? t + h : t + (i + 1) * hs;
        rc = substep(u, t_end, te, &term, &t_end);
    }
    if (rc == RTC_OK && term) {
        u->ev.terminated = true;
        *res = (rtc_step_result){.outcome = RTC_STEP_TERMINATE, .last_time_s = t_end};
    }
    return rc;
}

static int u_do_step(void *self, double t, double h, rtc_step_result *res)
{
    me_unit *u = self;
    *res = (rtc_step_result){.outcome = RTC_STEP_DONE, .last_time_s = t + h};
    if (!u->plain || u->next_defined || u->stale_x)
        return event_step(u, t, h, res);
    /* stale_z alone: reread() would only move the FMU to (t, x), as the first stage does
     * anyway, for indicators there are none of */
    u->stale_z = false;
    return plain_step(u, t, h);
}

/* ---- initialization ---- */

static int alloc_buffers(me_unit *u)
{
    size_t nx = u->nx ? u->nx : 1, nz = u->nz ? u->nz : 1;
    double *bx = u->block = calloc(7 * nx + 4 * nz, sizeof *bx);
    if (!bx)
        return RTC_ENOMEM;
    double **px[] = {&u->x, &u->x1, &u->xb, &u->xp, &u->x_fmu, &u->col, &u->nom};
    for (size_t i = 0; i < 7; i++)
        *px[i] = bx + i * nx;
    double **pz[] = {&u->z, &u->za, &u->zb, &u->zc};
    for (size_t i = 0; i < 4; i++)
        *pz[i] = bx + 7 * nx + i * nz;
    return rtc__me_work_init(&u->w, u->nx);
}

/* Directional derivatives need scalar states whose vrs name them one to one. */
static bool scalar_states(const rtc_model_desc *md, size_t nx)
{
    if (md->structure.n_derivatives != nx)
        return false;
    for (size_t i = 0; i < nx; i++) {
        const rtc_var *d = &md->vars[md->structure.derivatives[i].var];
        if (d->n_dims || d->derivative_of < 0 || md->vars[d->derivative_of].n_dims)
            return false;
    }
    return true;
}

static int size_unit(me_unit *u)
{
    const rtc_model_desc *md = u->md;
    int rc = u->be->sizes(&u->call, md, &u->nx, &u->nz);
    if (rc == RTC_OK)
        rc = alloc_buffers(u);
    if (rc != RTC_OK)
        return rc;
    bool scalar = scalar_states(md, u->nx);
    u->provides_dd = md->me.provides_directional_derivatives && scalar;
    u->x_vr = calloc(u->nx ? u->nx : 1, sizeof *u->x_vr);
    u->dx_vr = calloc(u->nx ? u->nx : 1, sizeof *u->dx_vr);
    if (!u->x_vr || !u->dx_vr)
        return RTC_ENOMEM;
    for (size_t i = 0; scalar && i < u->nx; i++) {
        const rtc_var *d = &md->vars[md->structure.derivatives[i].var];
        u->dx_vr[i] = d->vr;
        u->x_vr[i] = md->vars[d->derivative_of].vr;
    }
    u->plain = u->nz == 0 && !u->needs_cis && u->substeps == 1;
    return u->nx ? u->be->get_nominals(&u->call, u->nom, u->nx) : RTC_OK;
}

static int u_instantiate(void *self, const rtc_unit_setup *setup)
{
    me_unit *u = self;
    int rc = u->inner->ops->instantiate(u->inner->self, setup);
    u->t_start = setup->start_time_s;
    u->call.no_prior = !setup->may_rollback;
    if (rc == RTC_OK)
        u->call.inst = u->md->fmi_major == 2 ? rtc__fmi2_unit_instance(u->inner, &u->call.fatal)
                                             : rtc__fmi3_unit_instance(u->inner, &u->call.fatal);
    return rc;
}

static int u_enter_init(void *self)
{
    me_unit *u = self;
    return u->inner->ops->enter_init(u->inner->self);
}

/* Initialization ends in Event Mode: size the buffers, iterate, go to Continuous Time. */
static int u_exit_init(void *self)
{
    me_unit *u = self;
    bool term = false;
    int rc = u->inner->ops->exit_init(u->inner->self);
    if (rc == RTC_OK && !u->x)
        rc = size_unit(u);
    if (rc == RTC_OK)
        rc = event_iteration(u, u->t_start, &term);
    if (rc == RTC_OK && term) {
        u->ev.terminated = true;
        /* a request, not an error: the run ends at its start (rtcosim/unit.h) */
        rtc_log(u->call.lg, RTC_LOG_WARNING, "%s: the FMU asked to terminate during "
                "initialization", u->call.name);
        rc = RTC_ETERMINATED;
    }
    u->running = rc == RTC_OK;
    return rc;
}

/* ---- values ---- */

static int cmp_vr(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Discrete variables and tunable parameters may change only in Event Mode. */
static bool needs_event_mode(const me_unit *u, rtc_type type, const uint32_t *vr, size_t n)
{
    if (type != RTC_TYPE_FLOAT64 && type != RTC_TYPE_FLOAT32)
        return n > 0;
    for (size_t i = 0; i < n; i++)
        if (bsearch(&vr[i], u->event_vrs, u->n_event_vrs, sizeof *vr, cmp_vr))
            return true;
    return false;
}

static int u_set(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, const void *values,
                 size_t n_values)
{
    me_unit *u = self;
    if (!u->running || !needs_event_mode(u, type, vr, n_vr)) {
        u->stale_z |= u->running; /* indicators may depend on inputs */
        return u->inner->ops->set(u->inner->self, type, vr, n_vr, values, n_values);
    }
    bool term = false;
    int rc = u->be->enter_event(&u->call);
    if (rc == RTC_OK)
        rc = u->inner->ops->set(u->inner->self, type, vr, n_vr, values, n_values);
    if (rc == RTC_OK) {
        u->ev.input_events++;
        rc = event_iteration(u, u->t_fmu, &term);
    }
    if (rc == RTC_OK && term) {
        u->ev.terminated = true;
        rc = RTC_ETERMINATED;
    }
    return rc;
}

static int u_get(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, void *values,
                 size_t n_values)
{
    me_unit *u = self;
    return u->inner->ops->get(u->inner->self, type, vr, n_vr, values, n_values);
}

/* The pending time event is the importer's knowledge, not part of the FMU state: it is
 * saved with the last state taken and restored with it (the rolling-back masters restore
 * the state they saved last). */
static int u_get_state(void *self, void **state)
{
    me_unit *u = self;
    u->saved_next_defined = u->next_defined;
    u->saved_next_time = u->next_time;
    return u->inner->ops->get_state(u->inner->self, state);
}

static int u_set_state(void *self, void *state)
{
    me_unit *u = self;
    u->stale_x = true;
    u->next_defined = u->saved_next_defined;
    u->next_time = u->saved_next_time;
    return u->inner->ops->set_state(u->inner->self, state);
}

static int u_free_state(void *self, void **state)
{
    me_unit *u = self;
    return u->inner->ops->free_state(u->inner->self, state);
}

static int u_terminate(void *self)
{
    me_unit *u = self;
    u->running = false;
    return u->inner->ops->terminate(u->inner->self);
}

static void u_free(void *self)
{
    me_unit *u = self;
    if (!u)
        return;
    if (u->inner)
        u->inner->ops->free(u->inner->self);
    rtc__me_work_clear(&u->w);
    free(u->block); /* one block: states, then indicators */
    free(u->x_vr);
    free(u->dx_vr);
    free(u->event_vrs);
    free(u);
}

static const rtc_unit_ops me_ops = {
    .kind = "fmi-me",
    .instantiate = u_instantiate,
    .enter_init = u_enter_init,
    .exit_init = u_exit_init,
    .set = u_set,
    .get = u_get,
    .do_step = u_do_step,
    .get_state = u_get_state,
    .set_state = u_set_state,
    .free_state = u_free_state,
    .terminate = u_terminate,
    .free = u_free,
};

static int collect_event_vrs(me_unit *u)
{
    const rtc_model_desc *md = u->md;
    u->event_vrs = calloc(md->n_vars ? md->n_vars : 1, sizeof *u->event_vrs);
    if (!u->event_vrs)
        return RTC_ENOMEM;
    for (size_t i = 0; i < md->n_vars; i++) {
        const rtc_var *v = &md->vars[i];
        if (v->variability == RTC_VARIABILITY_DISCRETE ||
            v->variability == RTC_VARIABILITY_TUNABLE)
            u->event_vrs[u->n_event_vrs++] = v->vr;
    }
    qsort(u->event_vrs, u->n_event_vrs, sizeof *u->event_vrs, cmp_vr);
    return RTC_OK;
}

int rtc__me_unit_new(rtc_fmu *fmu, rtc_unit *inner, const rtc_fmu_unit_opts *opt,
                     const rtc_logger *lg, rtc_unit **out)
{
    const rtc_model_desc *md = fmu->md;
    me_unit *u = calloc(1, sizeof *u);
    if (!u) {
        inner->ops->free(inner->self);
        return RTC_ENOMEM;
    }
    u->inner = inner;
    u->md = md;
    u->be = md->fmi_major == 2 ? &rtc__fmi2_me_backend : &rtc__fmi3_me_backend;
    u->call = (rtc_me_call){.api = &fmu->api, .name = inner->name, .lg = lg};
    u->solver = opt->solver;
    u->substeps = opt->substeps ? opt->substeps : 1;
    u->needs_cis = md->me.needs_completed_integrator_step;
    if (collect_event_vrs(u) != RTC_OK) {
        u_free(u);
        return RTC_ENOMEM;
    }
    u->unit = (rtc_unit){.ops = &me_ops, .self = u, .md = md, .name = inner->name,
                         .caps = inner->caps};
    *out = &u->unit;
    return RTC_OK;
}

bool rtc_fmu_unit_solver(const rtc_unit *unit, rtc_me_solver *solver, unsigned *substeps)
{
    if (!unit || unit->ops != &me_ops)
        return false;
    const me_unit *u = unit->self;
    *solver = u->solver;
    *substeps = u->substeps;
    return true;
}

bool rtc_fmu_unit_events(const rtc_unit *unit, rtc_me_events *out)
{
    if (!unit || unit->ops != &me_ops)
        return false;
    *out = ((const me_unit *)unit->self)->ev;
    return true;
}
