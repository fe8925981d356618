/*
 * Unit tests of the Parallel Fast scheduling mathematics (rtcosim/pfast.h): the
 * synchronization rule (Eq. 2) on the paper's four-unit example, the extrapolation measure
 * Ê (Eqs. 10-18), the duration estimate D̂ (Eqs. 19-23) and the planner (Eq. 24).
 *
 * Reference numbers: Holzinger et al., "Parallel Fast", as reworked in
 * shared/research/hybrid-time-parallel-fast-devs.md §2.3 and §2.7. The note rounds its
 * tables to 3 decimals, so each value is asserted twice: against the note's rounded value
 * with tolerance 1e-3 (half a unit in the last printed place would be 5e-4; 1e-3 accepts
 * the note's rounding but still fails on any different pattern, whose values differ by
 * >= 0.03), and against the exact rational recomputed independently (Python fractions)
 * with tolerance 1e-12: Q is one division of exact integers and Ê a sum of six such ratios,
 * so the double result is within a few ulp (~1e-15) of the rational.
 *
 * System of the paper (order A, B, C, D): h = (2, 3, 1, 2) s, connections of Eq. 7:
 * A→B, A→D, B→C, C→D, D→A, D→C.
 */
#include "cu_main.h"

#include "rtcosim/pfast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S(x) ((int64_t)((x)*1e9 + 0.5)) /* decimal seconds (<= 9 places) to ns */
#define MS(x) ((int64_t)((x)*1e6 + 0.5))
#define EXACT 1e-12
#define NOTE 1e-3

enum { A, B, C, D };

static const int64_t H4[4] = {2000000000, 3000000000, 1000000000, 2000000000};

/* Eq. 7, rows senders, columns receivers. */
static const double A7[16] = {
    0, 1, 0, 1, /* A -> B, D */
    0, 0, 1, 0, /* B -> C    */
    0, 0, 0, 1, /* C -> D    */
    1, 0, 1, 0, /* D -> A, C */
};

static rtc_pf_system sys4(const int64_t *h, const double *d)
{
    return (rtc_pf_system){.m = 4, .h_ns = h, .d = d, .conn = A7};
}

/* ---- the rule: Fig. 2 ------------------------------------------------------------------- */

/* Expected per interval ζ = 0..8 for H = 1.4 s: the qualifying step index n of A, B, C, D
 * (0 = does not qualify) and the exchanging links. n·h is the sync time the note lists. */
static const int64_t fig2_n[9][4] = {
    {0, 0, 0, 0},  /* [0, 1.4): nobody (ζ = 0 never qualifies)    */
    {1, 0, 2, 1},  /* [H, 2H):  A, C, D at t = 2                  */
    {2, 1, 3, 2},  /* [2H, 3H): A@4 B@3 C@3 D@4                   */
    {0, 0, 5, 0},  /* [3H, 4H): only C@5 -> no exchange           */
    {3, 2, 6, 3},  /* [4H, 5H): all @6                            */
    {4, 0, 7, 4},  /* [5H, 6H): A@8 C@7 D@8                       */
    {0, 3, 9, 0},  /* [6H, 7H): B@9 C@9                           */
    {5, 0, 10, 5}, /* [7H, 8H): A, C, D @10                       */
    {6, 4, 12, 6}, /* [8H, 9H): all @12                           */
};

static const char *fig2_links[9] = {
    "",   "AD CD DA DC", "AB AD BC CD DA DC", "", "AB AD BC CD DA DC", "AD CD DA DC",
    "BC", "AD CD DA DC", "AB AD BC CD DA DC",
};

static void links_text(const rtc_pf_link *l, size_t n, char *buf)
{
    buf[0] = '\0';
    for (size_t k = 0; k < n; k++) {
        char one[4] = {(char)('A' + l[k].from), (char)('A' + l[k].to), ' ', '\0'};
        strcat(buf, one);
    }
    if (n)
        buf[strlen(buf) - 1] = '\0';
}

static void test_events_fig2_h1p4_matches_note(void)
{
    int64_t n[4];
    rtc_pf_link links[12];
    size_t nl = 99;
    char text[64];
    for (int z = 0; z <= 8; z++) {
        int q = rtc_pf_events(H4, 4, S(1.4), A7, z, n, links, 12, &nl);
        int expect_q = 0;
        for (int i = 0; i < 4; i++) {
            CU_ASSERT_EQUAL(n[i], fig2_n[z][i]);
            expect_q += fig2_n[z][i] != 0;
            /* the sync time the note lists is n·h_i */
            if (n[i])
                CU_ASSERT_EQUAL(n[i] * H4[i], fig2_n[z][i] * H4[i]);
        }
        CU_ASSERT_EQUAL(q, expect_q);
        links_text(links, nl, text);
        CU_ASSERT_STRING_EQUAL(text, fig2_links[z]);
        if (strcmp(text, fig2_links[z]) != 0)
            printf("\n  zeta %d: links '%s', expected '%s'\n", z, text, fig2_links[z]);
    }
}

static void test_qualifies_fig2_matches_events(void)
{
    for (int z = 0; z <= 8; z++) {
        for (int i = 0; i < 4; i++) {
            int64_t n = -1;
            int q = rtc_pf_qualifies(H4[i], S(1.4), z, &n);
            CU_ASSERT_EQUAL(q, fig2_n[z][i] != 0);
            if (q == 1)
                CU_ASSERT_EQUAL(n, fig2_n[z][i]);
        }
    }
}

static void test_iter_fig2_matches_events(void)
{
    for (int i = 0; i < 4; i++) {
        rtc_pf_iter it;
        CU_ASSERT_EQUAL_FATAL(rtc_pf_iter_init(&it, H4[i], S(1.4)), RTC_OK);
        CU_ASSERT_FALSE(it.qualifies);
        for (int z = 1; z <= 8; z++) {
            int q = rtc_pf_iter_next(&it);
            CU_ASSERT_EQUAL(it.zeta, z);
            CU_ASSERT_EQUAL(it.start_ns, z * S(1.4));
            CU_ASSERT_EQUAL(it.end_ns, (z + 1) * S(1.4));
            CU_ASSERT_EQUAL(q, fig2_n[z][i] != 0);
            CU_ASSERT_EQUAL(it.qualifies, fig2_n[z][i] != 0);
            if (q == 1)
                CU_ASSERT_EQUAL(it.n, fig2_n[z][i]);
        }
    }
}

/* Fig. 3b, H = 1.5: C alone in [0, 1.5) (one free step, no sync); C runs 4->5 alone in
 * [4.5, 6) and syncs at 6 with everyone. */
static void test_iter_h1p5_c_runs_alone(void)
{
    rtc_pf_iter it;
    static const int64_t n_c[5] = {1, 2, 3, 5, 6};
    static const int64_t steps_c[5] = {1, 1, 2, 1, 2}; /* ends 6 and 7 in [6, 7.5) */
    static const int qual_c[5] = {0, 1, 1, 1, 1};
    CU_ASSERT_EQUAL_FATAL(rtc_pf_iter_init(&it, H4[C], S(1.5)), RTC_OK);
    for (int z = 0; z < 5; z++) {
        if (z > 0)
            CU_ASSERT_EQUAL(rtc_pf_iter_next(&it), qual_c[z]);
        CU_ASSERT_EQUAL(it.n, n_c[z]);
        CU_ASSERT_EQUAL(it.steps, steps_c[z]);
        CU_ASSERT_EQUAL(it.qualifies, qual_c[z]);
    }
    /* ζ = 3 ([4.5, 6)): only C qualifies, so no exchange at all. */
    int64_t n[4];
    rtc_pf_link links[6];
    size_t nl = 99;
    CU_ASSERT_EQUAL(rtc_pf_events(H4, 4, S(1.5), A7, 3, n, links, 6, &nl), 1);
    CU_ASSERT_EQUAL(nl, 0);
    CU_ASSERT_EQUAL(n[C], 5);
}

/* T-002-one-exchange: h = 1, H = 3: three step ends per interval, one qualification (at the
 * first of them, n = 3ζ). */
static void test_iter_small_step_qualifies_once_per_interval(void)
{
    rtc_pf_iter it;
    CU_ASSERT_EQUAL_FATAL(rtc_pf_iter_init(&it, S(1), S(3)), RTC_OK);
    CU_ASSERT_EQUAL(it.steps, 2); /* ends at 1 and 2 in [0, 3), free steps */
    for (int z = 1; z <= 1000; z++) {
        CU_ASSERT_EQUAL(rtc_pf_iter_next(&it), 1);
        CU_ASSERT_EQUAL(it.n, 3 * z);
        CU_ASSERT_EQUAL(it.steps, 3);
    }
}

static void test_qualifies_zeta0_never(void)
{
    static const int64_t hs[] = {1, 2, 3, 7, 1000000000};
    static const int64_t Hs[] = {1, 2, 5, 1400000000, INT64_C(6000000000)};
    for (size_t i = 0; i < 5; i++) {
        for (size_t k = 0; k < 5; k++) {
            int64_t n = -1;
            CU_ASSERT_EQUAL(rtc_pf_qualifies(hs[i], Hs[k], 0, &n), 0);
            CU_ASSERT_EQUAL(n, 1);
        }
    }
}

static void test_rule_bad_arguments_rejected_unchanged(void)
{
    int64_t n = 77;
    CU_ASSERT_EQUAL(rtc_pf_qualifies(0, S(1), 1, &n), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_pf_qualifies(-5, S(1), 1, &n), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_pf_qualifies(S(1), 0, 1, &n), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_pf_qualifies(S(1), -1, 1, &n), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_pf_qualifies(S(1), S(1), -1, &n), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_pf_qualifies(S(1), S(1), INT64_MAX / 1000, &n), RTC_ETIME);
    CU_ASSERT_EQUAL(n, 77);

    rtc_pf_iter it, before;
    memset(&it, 0x5a, sizeof it);
    before = it;
    CU_ASSERT_EQUAL(rtc_pf_iter_init(&it, 0, S(1)), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_pf_iter_init(&it, S(1), -3), RTC_EINVAL);
    CU_ASSERT_EQUAL(memcmp(&it, &before, sizeof it), 0);
    /* the interval end would pass INT64_MAX: refused, iterator unchanged */
    CU_ASSERT_EQUAL_FATAL(rtc_pf_iter_init(&it, 3, INT64_MAX / 2 + 1), RTC_OK);
    before = it;
    CU_ASSERT_EQUAL(rtc_pf_iter_next(&it), RTC_ETIME);
    CU_ASSERT_EQUAL(memcmp(&it, &before, sizeof it), 0);

    int64_t nout[4] = {9, 9, 9, 9};
    rtc_pf_link links[6];
    size_t nl = 42;
    static const int64_t bad_h[4] = {S(2), 0, S(1), S(2)};
    CU_ASSERT_EQUAL(rtc_pf_events(bad_h, 4, S(1.4), A7, 2, nout, links, 6, &nl), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_pf_events(H4, 4, 0, A7, 2, nout, links, 6, &nl), RTC_EINVAL);
    /* six connections do not fit in five slots: refused before anything is written */
    CU_ASSERT_EQUAL(rtc_pf_events(H4, 4, S(1.4), A7, 2, nout, links, 5, &nl), RTC_ELIMIT);
    /* NULL matrix = all 12 ordered pairs */
    CU_ASSERT_EQUAL(rtc_pf_events(H4, 4, S(1.4), NULL, 2, nout, links, 6, &nl), RTC_ELIMIT);
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(nout[i], 9);
    CU_ASSERT_EQUAL(nl, 42);
}

static void test_events_null_matrix_all_pairs(void)
{
    int64_t n[4];
    rtc_pf_link links[12];
    size_t nl = 0;
    CU_ASSERT_EQUAL(rtc_pf_events(H4, 4, S(1.4), NULL, 6, n, links, 12, &nl), 2);
    CU_ASSERT_EQUAL(nl, 2); /* B<->C both ways */
    CU_ASSERT_EQUAL(rtc_pf_events(H4, 4, S(1.4), NULL, 8, n, links, 12, &nl), 4);
    CU_ASSERT_EQUAL(nl, 12);
}

static void test_period_fig2_and_overflow(void)
{
    int64_t p = 5;
    CU_ASSERT_EQUAL(rtc_pf_period(H4, 4, 0, &p), RTC_OK);
    CU_ASSERT_EQUAL(p, S(6));
    CU_ASSERT_EQUAL(rtc_pf_period(H4, 4, S(1.4), &p), RTC_OK);
    CU_ASSERT_EQUAL(p, S(42));
    static const int64_t primes[3] = {1000000007, 1000000009, 998244353};
    p = 5;
    CU_ASSERT_EQUAL(rtc_pf_period(primes, 3, 0, &p), RTC_ETIME);
    CU_ASSERT_EQUAL(p, 5);
}

/* ---- Ê ----------------------------------------------------------------------------------- */

typedef struct ehat_ref {
    double H_s;
    double note;   /* value printed in the note (3 decimals) */
    long num, den; /* exact rational */
} ehat_ref;

static const ehat_ref ehat_literal[] = {
    {0.25, 7.5, 15, 2},     {0.5, 7.5, 15, 2},     {1.0, 7.5, 15, 2},      {1.25, 7.2, 36, 5},
    {1.5, 6.833, 41, 6},    {1.75, 6.643, 93, 14}, {1.95, 6.410, 250, 39}, {2.0, 6.667, 20, 3},
    {2.25, 6.917, 83, 12},  {2.5, 7.283, 437, 60}, {3.0, 8.0, 8, 1},       {4.0, 9.375, 75, 8},
    {5.0, 11.083, 133, 12}, {6.0, 13.0, 13, 1},
};

static void check_ehat(const ehat_ref *r, size_t n, rtc_pf_view view)
{
    rtc_pf_system s = sys4(H4, NULL);
    for (size_t k = 0; k < n; k++) {
        double e = -1;
        CU_ASSERT_EQUAL(rtc_pf_ehat(&s, S(r[k].H_s), view, &e), RTC_OK);
        CU_ASSERT_DOUBLE_EQUAL(e, r[k].note, NOTE);
        CU_ASSERT_DOUBLE_EQUAL(e, (double)r[k].num / (double)r[k].den, EXACT);
        if (fabs(e - r[k].note) > NOTE)
            printf("\n  %s H = %g: E_hat %.6f, note %.3f\n", rtc_pf_view_name(view), r[k].H_s, e,
                   r[k].note);
    }
}

static void test_ehat_literal_table(void)
{
    check_ehat(ehat_literal, sizeof ehat_literal / sizeof ehat_literal[0], RTC_PF_LITERAL);
}

static void test_ehat_receiver_values(void)
{
    static const ehat_ref r[] = {
        {0.5, 8.0, 8, 1},
        {1.0, 8.0, 8, 1},
        {2.0, 7.417, 89, 12},
        {6.0, 14.5, 29, 2},
    };
    check_ehat(r, sizeof r / sizeof r[0], RTC_PF_RECEIVER);
    /* the note: the receiver variant is minimal at 1.95 on a 0.05 grid */
    rtc_pf_system s = sys4(H4, NULL);
    double best = INFINITY, e;
    int64_t arg = 0;
    for (int k = 1; k <= 120; k++) {
        CU_ASSERT_EQUAL_FATAL(rtc_pf_ehat(&s, k * S(0.05), RTC_PF_RECEIVER, &e), RTC_OK);
        if (e < best) {
            best = e;
            arg = k * S(0.05);
        }
    }
    CU_ASSERT_EQUAL(arg, S(1.95));
    CU_ASSERT_DOUBLE_EQUAL(best, 545.0 / 78.0, EXACT);
}

static void test_ehat_equal_steps_counts_links(void)
{
    static const int64_t h2[4] = {S(2), S(2), S(2), S(2)};
    rtc_pf_system s = sys4(h2, NULL);
    double e = -1;
    CU_ASSERT_EQUAL(rtc_pf_ehat(&s, S(2), RTC_PF_LITERAL, &e), RTC_OK);
    CU_ASSERT_DOUBLE_EQUAL(e, 6.0, EXACT); /* Eq. 8: six extrapolated inputs */
    /* Eq. 9: weights scale the count */
    double w[16];
    for (int k = 0; k < 16; k++)
        w[k] = A7[k] * 0.5;
    w[A * 4 + B] = 2.0;
    s.conn = w;
    CU_ASSERT_EQUAL(rtc_pf_ehat(&s, S(2), RTC_PF_LITERAL, &e), RTC_OK);
    CU_ASSERT_DOUBLE_EQUAL(e, 2.0 + 5 * 0.5, EXACT);
    /* T-002-Q-equal: Q(h, h, h) = 1 for any h */
    static const int64_t hs[] = {1, 7, 1000, S(0.3), S(2)};
    for (size_t i = 0; i < 5; i++) {
        double q = -1;
        CU_ASSERT_EQUAL(rtc_pf_q(hs[i], hs[i], hs[i], &q), RTC_OK);
        CU_ASSERT_DOUBLE_EQUAL(q, 1.0, EXACT);
    }
}

static void test_q_per_link_at_h2(void)
{
    /* literal Q(h_from, h_to, 2 s) per Eq. 7 link */
    static const struct {
        int from, to;
        double note, exact;
    } l[] = {
        {A, B, 1.167, 7.0 / 6.0}, {A, D, 1.0, 1.0}, {B, C, 1.0, 1.0},
        {C, D, 1.5, 1.5},         {D, A, 1.0, 1.0}, {D, C, 1.0, 1.0},
    };
    for (size_t k = 0; k < 6; k++) {
        double q = -1;
        CU_ASSERT_EQUAL(rtc_pf_q(H4[l[k].from], H4[l[k].to], S(2), &q), RTC_OK);
        CU_ASSERT_DOUBLE_EQUAL(q, l[k].note, NOTE);
        CU_ASSERT_DOUBLE_EQUAL(q, l[k].exact, EXACT);
    }
}

/* T-002-f: n-ñ coupling steps per exchange weigh f = (n-ñ+1)/2: with h_i = 1, h_j = H = k
 * one exchange per period of k, extrapolated over k, so Q = f(k)·k/k = f(k). */
static void test_q_scaling_f(void)
{
    double q = -1;
    CU_ASSERT_EQUAL(rtc_pf_q(S(1), S(1), S(1), &q), RTC_OK);
    CU_ASSERT_DOUBLE_EQUAL(q, 1.0, EXACT);
    CU_ASSERT_EQUAL(rtc_pf_q(S(1), S(3), S(3), &q), RTC_OK);
    CU_ASSERT_DOUBLE_EQUAL(q, 2.0, EXACT);
    CU_ASSERT_EQUAL(rtc_pf_q(S(1), S(6), S(6), &q), RTC_OK);
    CU_ASSERT_DOUBLE_EQUAL(q, 3.5, EXACT);
}

static void test_ehat_scale_invariant(void)
{
    static const int64_t hms[4] = {MS(2), MS(3), MS(1), MS(2)};
    static const double Hs[] = {0.05, 0.4, 1.25, 1.95, 2, 2.5, 4.5, 6};
    rtc_pf_system s = sys4(H4, NULL), sm = sys4(hms, NULL);
    for (size_t k = 0; k < sizeof Hs / sizeof Hs[0]; k++) {
        double e = -1, em = -2;
        CU_ASSERT_EQUAL(rtc_pf_ehat(&s, S(Hs[k]), RTC_PF_LITERAL, &e), RTC_OK);
        CU_ASSERT_EQUAL(rtc_pf_ehat(&sm, MS(Hs[k]), RTC_PF_LITERAL, &em), RTC_OK);
        CU_ASSERT_DOUBLE_EQUAL(e, em, EXACT);
    }
}

static void test_estimators_reject_unchanged(void)
{
    static const int64_t primes[4] = {1000000007, 1000000009, 998244353, 1000000007};
    static const int64_t bad[4] = {S(2), S(3), -1, S(2)};
    rtc_pf_system s = sys4(primes, NULL);
    double v = 123.0, q = 123.0;
    CU_ASSERT_EQUAL(rtc_pf_ehat(&s, S(1), RTC_PF_LITERAL, &v), RTC_ETIME);
    CU_ASSERT_EQUAL(rtc_pf_dhat(&s, S(1), &v), RTC_ETIME);
    CU_ASSERT_EQUAL(rtc_pf_q(primes[0], primes[1], primes[2], &q), RTC_ETIME);
    s = sys4(bad, NULL);
    CU_ASSERT_EQUAL(rtc_pf_ehat(&s, S(1), RTC_PF_LITERAL, &v), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_pf_dhat(&s, S(1), &v), RTC_EINVAL);
    s = sys4(H4, NULL);
    CU_ASSERT_EQUAL(rtc_pf_ehat(&s, 0, RTC_PF_LITERAL, &v), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_pf_ehat(&s, -S(1), RTC_PF_LITERAL, &v), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_pf_ehat(&s, S(1), (rtc_pf_view)7, &v), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_pf_dhat(&s, 0, &v), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_pf_q(S(1), S(1), 0, &q), RTC_EINVAL);
    /* 10^9 + 1 intervals of 1 s in the period lcm(1 s, 1 s + 1 ns): over the work limit */
    static const int64_t near[2] = {S(1), S(1) + 1};
    rtc_pf_system s2 = {.m = 2, .h_ns = near, .conn = NULL};
    CU_ASSERT_EQUAL(rtc_pf_ehat(&s2, S(1), RTC_PF_LITERAL, &v), RTC_ELIMIT);
    CU_ASSERT_EQUAL(rtc_pf_dhat(&s2, S(1), &v), RTC_ELIMIT);
    static const double bad_d[4] = {1, 0, 1, 1};
    s = sys4(H4, bad_d);
    CU_ASSERT_EQUAL(rtc_pf_dhat(&s, S(1), &v), RTC_EINVAL);
    CU_ASSERT_EQUAL(v, 123.0);
    CU_ASSERT_EQUAL(q, 123.0);
}

/* ---- D̂ ----------------------------------------------------------------------------------- */

static void test_walltime_fig3b(void)
{
    static const double d[4] = {2.0, 1.0 / 3.0, 1.0, 0.5};
    rtc_pf_system s = sys4(H4, d);
    rtc_pf_sync sy[8];
    size_t n = 0;
    double dh = -1;
    CU_ASSERT_EQUAL_FATAL(rtc_pf_walltime(&s, S(1.5), sy, 8, &n, &dh), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    static const int64_t zeta[3] = {1, 2, 4};
    static const double t_s[3] = {2, 4, 6}, wall_s[3] = {4, 8, 12};
    static const size_t units[3] = {3, 4, 4};
    for (int k = 0; k < 3; k++) {
        CU_ASSERT_EQUAL(sy[k].zeta, zeta[k]);
        CU_ASSERT_EQUAL(sy[k].sim_ns, S(t_s[k]));
        CU_ASSERT_EQUAL(sy[k].units, units[k]);
        /* d_b = 1/3 is not a double: 1e-12 relative covers its rounding (~1e-16) */
        CU_ASSERT_DOUBLE_EQUAL(sy[k].wall_ns / 1e9, wall_s[k], EXACT);
    }
    CU_ASSERT_DOUBLE_EQUAL(dh, 2.0, EXACT); /* t_w(6) = 12 s */
    /* a too-small record buffer keeps the count */
    n = 0;
    CU_ASSERT_EQUAL(rtc_pf_walltime(&s, S(1.5), sy, 1, &n, NULL), RTC_OK);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_EQUAL(sy[0].zeta, 1);
}

static void test_walltime_fig3a_equal_steps(void)
{
    static const int64_t h2[4] = {S(2), S(2), S(2), S(2)};
    static const double d[4] = {2.0, 1.0 / 3.0, 1.0, 0.5};
    rtc_pf_system s = sys4(h2, d);
    rtc_pf_sync sy[8];
    size_t n = 0;
    double dh = -1;
    CU_ASSERT_EQUAL_FATAL(rtc_pf_walltime(&s, S(1.5), sy, 8, &n, &dh), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(n, 3); /* t_s = 2, 4, 6, all four, waiting for A */
    for (int k = 0; k < 3; k++) {
        CU_ASSERT_EQUAL(sy[k].sim_ns, S(2 * (k + 1)));
        CU_ASSERT_DOUBLE_EQUAL(sy[k].wall_ns / 1e9, 4.0 * (k + 1), EXACT);
    }
    CU_ASSERT_DOUBLE_EQUAL(dh, 2.0, EXACT);
}

static void test_dhat_table_d1(void)
{
    static const ehat_ref r[] = {
        {0.25, 1.0, 1, 1},       {0.5, 1.0, 1, 1},      {1.0, 1.0, 1, 1},
        {1.25, 1.133, 17, 15},   {1.5, 1.167, 7, 6},    {1.75, 1.167, 7, 6},
        {2.0, 1.167, 7, 6},      {2.25, 1.167, 7, 6},   {2.5, 1.233, 37, 30},
        {2.75, 1.197, 79, 66},   {3.0, 1.167, 7, 6},    {3.5, 1.167, 7, 6},
        {4.25, 1.167, 7, 6},     {4.5, 1.111, 10, 9},   {4.75, 1.167, 7, 6},
        {5.0, 1.167, 7, 6},      {5.25, 1.119, 47, 42}, {5.5, 1.076, 71, 66},
        {5.75, 1.036, 143, 138}, {6.0, 1.0, 1, 1},
    };
    rtc_pf_system s = sys4(H4, NULL);
    for (size_t k = 0; k < sizeof r / sizeof r[0]; k++) {
        double dh = -1;
        CU_ASSERT_EQUAL(rtc_pf_dhat(&s, S(r[k].H_s), &dh), RTC_OK);
        CU_ASSERT_DOUBLE_EQUAL(dh, r[k].note, NOTE);
        CU_ASSERT_DOUBLE_EQUAL(dh, (double)r[k].num / (double)r[k].den, EXACT);
        if (fabs(dh - r[k].note) > NOTE)
            printf("\n  H = %g: D_hat %.6f, note %.3f\n", r[k].H_s, dh, r[k].note);
    }
}

static void dhat_range(double d_a, double *lo, double *hi)
{
    double d[4] = {d_a, 1, 1, 1};
    rtc_pf_system s = sys4(H4, d);
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int k = 1; k <= 24; k++) { /* H = 0.25, 0.5, ..., 6 */
        double dh = -1;
        CU_ASSERT_EQUAL(rtc_pf_dhat(&s, k * S(0.25), &dh), RTC_OK);
        *lo = fmin(*lo, dh);
        *hi = fmax(*hi, dh);
    }
}

static void test_dhat_da_sweep(void)
{
    double lo, hi;
    dhat_range(1.6, &lo, &hi); /* the paper: H no longer matters */
    CU_ASSERT_DOUBLE_EQUAL(lo, 1.6, EXACT);
    CU_ASSERT_DOUBLE_EQUAL(hi, 1.6, EXACT);
    dhat_range(2.0, &lo, &hi);
    CU_ASSERT_DOUBLE_EQUAL(lo, 2.0, EXACT);
    CU_ASSERT_DOUBLE_EQUAL(hi, 2.0, EXACT);
    dhat_range(1.4, &lo, &hi);
    CU_ASSERT_DOUBLE_EQUAL(lo, 1.400, NOTE);
    CU_ASSERT_DOUBLE_EQUAL(hi, 1.447, NOTE);
    CU_ASSERT_DOUBLE_EQUAL(hi, 217.0 / 150.0, EXACT);
    dhat_range(1.0, &lo, &hi);
    CU_ASSERT_DOUBLE_EQUAL(lo, 1.000, EXACT);
    CU_ASSERT_DOUBLE_EQUAL(hi, 37.0 / 30.0, EXACT);
}

static void test_dhat_single_unit_is_its_factor(void)
{
    static const int64_t h1[1] = {S(0.3)};
    static const double d1[1] = {0.75};
    rtc_pf_system s = {.m = 1, .h_ns = h1, .d = d1};
    double dh = -1;
    CU_ASSERT_EQUAL(rtc_pf_dhat(&s, S(0.7), &dh), RTC_OK);
    CU_ASSERT_DOUBLE_EQUAL(dh, 0.75, EXACT);
}

/* ---- planner ---------------------------------------------------------------------------- */

static const double natural[20] = {0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1,   1.2,
                                   1.5,  2,   2.5, 3,   3.5, 4,   4.5, 5,   5.5, 6};

static char *print_plan(const rtc_pf_plan *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(rtc_pf_plan_print(p, f), RTC_OK);
    fclose(f);
    return buf;
}

static void test_plan_natural_grid_picks_2s(void)
{
    int64_t cand[20];
    for (int k = 0; k < 20; k++)
        cand[k] = S(natural[k]);
    rtc_pf_system s = sys4(H4, NULL);
    rtc_pf_plan *p = NULL;
    char err[200] = "";
    CU_ASSERT_EQUAL_FATAL(rtc_pf_plan_new(&s, cand, 20, RTC_PF_LITERAL, &p, err, sizeof err),
                          RTC_OK);
    CU_ASSERT_EQUAL(p->n_rows, 20);
    CU_ASSERT_FALSE(p->default_grid);
    CU_ASSERT_EQUAL(p->tick_ns, S(1));
    CU_ASSERT_EQUAL(p->lcm_ns, S(6));
    CU_ASSERT_EQUAL(p->rows[p->best].H_ns, S(2));
    CU_ASSERT_DOUBLE_EQUAL(p->rows[p->best].ehat, 20.0 / 3.0, EXACT);
    CU_ASSERT_DOUBLE_EQUAL(p->rows[p->best].dhat, 7.0 / 6.0, EXACT);
    CU_ASSERT_DOUBLE_EQUAL(p->rows[19].ehat, 13.0, EXACT); /* H = 6 */
    CU_ASSERT_DOUBLE_EQUAL(p->rows[19].dhat, 1.0, EXACT);  /* D̂ = 1 at the lcm */
    char *text = print_plan(p);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "4 units, gcd(h) 1 s, lcm(h) 6 s, Q view literal"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "   2                 6     6.6667    1.1667  <- H*\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "H* = 2 s (argmin of E_hat = 6.6667"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "0.05                 6     7.5000    1.0000\n"));
    printf("\n%s", text);
    free(text);
    rtc_pf_plan_free(p);
}

static void test_plan_ms_system_picks_2ms(void)
{
    static const int64_t hms[4] = {MS(2), MS(3), MS(1), MS(2)};
    int64_t cand[20];
    for (int k = 0; k < 20; k++)
        cand[k] = MS(natural[k]);
    rtc_pf_system s = sys4(hms, NULL);
    rtc_pf_plan *p = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_pf_plan_new(&s, cand, 20, RTC_PF_LITERAL, &p, NULL, 0), RTC_OK);
    CU_ASSERT_EQUAL(p->rows[p->best].H_ns, MS(2));
    CU_ASSERT_DOUBLE_EQUAL(p->rows[p->best].ehat, 20.0 / 3.0, EXACT);
    rtc_pf_plan_free(p);
}

/* The note says both Q readings have the same argmin; that holds on a fine grid (1.95 for
 * both), but on the natural 20-point grid the receiver reading prefers 1.5 s (22/3 < 89/12). */
static void test_plan_receiver_natural_grid_picks_1p5s(void)
{
    int64_t cand[20];
    for (int k = 0; k < 20; k++)
        cand[k] = S(natural[k]);
    rtc_pf_system s = sys4(H4, NULL);
    rtc_pf_plan *p = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_pf_plan_new(&s, cand, 20, RTC_PF_RECEIVER, &p, NULL, 0), RTC_OK);
    CU_ASSERT_EQUAL(p->rows[p->best].H_ns, S(1.5));
    CU_ASSERT_DOUBLE_EQUAL(p->rows[p->best].ehat, 22.0 / 3.0, EXACT);
    rtc_pf_plan_free(p);
}

static void test_default_grid_fig2(void)
{
    static const double expect[22] = {0.05, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5,
                                      0.6,  0.8,  1,    1.2, 1.5,  2,    2.5, 3,    4,   5,   6};
    int64_t g[RTC_PF_GRID_MAX];
    size_t n = 0;
    CU_ASSERT_EQUAL_FATAL(rtc_pf_default_grid(H4, 4, g, RTC_PF_GRID_MAX, &n), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(n, 22);
    for (size_t k = 0; k < n; k++)
        CU_ASSERT_EQUAL(g[k], S(expect[k]));
    /* capacity below the grid size: refused, nothing written */
    int64_t small[4] = {-1, -1, -1, -1};
    size_t n2 = 99;
    CU_ASSERT_EQUAL(rtc_pf_default_grid(H4, 4, small, 4, &n2), RTC_ELIMIT);
    CU_ASSERT_EQUAL(small[0], -1);
    CU_ASSERT_EQUAL(n2, 99);

    rtc_pf_system s = sys4(H4, NULL);
    rtc_pf_plan *p = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_pf_plan_new(&s, NULL, 0, RTC_PF_LITERAL, &p, NULL, 0), RTC_OK);
    CU_ASSERT_TRUE(p->default_grid);
    CU_ASSERT_EQUAL(p->n_rows, 22);
    CU_ASSERT_EQUAL(p->rows[p->best].H_ns, S(2));
    CU_ASSERT_EQUAL(p->rows[21].H_ns, S(6));
    CU_ASSERT_DOUBLE_EQUAL(p->rows[21].dhat, 1.0, EXACT);
    rtc_pf_plan_free(p);
}

/* Non-harmonic steps: the grid holds every step and the divisors of the lcm in range. */
static void test_default_grid_contains_steps_and_divisors(void)
{
    static const int64_t h[2] = {MS(1), 1001000}; /* 1 ms and 1.001 ms: lcm 1.001 s */
    int64_t g[RTC_PF_GRID_MAX];
    size_t n = 0;
    CU_ASSERT_EQUAL_FATAL(rtc_pf_default_grid(h, 2, g, RTC_PF_GRID_MAX, &n), RTC_OK);
    bool has_h0 = false, has_h1 = false, has_2ms = false, has_910us = false, sorted = true;
    for (size_t k = 0; k < n; k++) {
        has_h0 |= g[k] == h[0];
        has_h1 |= g[k] == h[1];
        has_2ms |= g[k] == MS(2);    /* ladder: 2·h_min (does not divide 1.001 s) */
        has_910us |= g[k] == 910000; /* divisor: 1.001 s = 1100 · 910 us; not a ladder value */
        sorted &= k == 0 || g[k] > g[k - 1];
        CU_ASSERT(g[k] >= MS(1) / 20 && g[k] <= 2 * 1001000);
    }
    CU_ASSERT_TRUE(has_h0);
    CU_ASSERT_TRUE(has_h1);
    CU_ASSERT_TRUE(has_2ms);
    CU_ASSERT_TRUE(has_910us);
    CU_ASSERT_TRUE(sorted);
    CU_ASSERT_EQUAL(g[0], 50000);           /* h_min/20 (ladder and divisor) */
    CU_ASSERT_EQUAL(g[n - 1], 2 * 1001000); /* 2·h_max (< lcm), a divisor of the lcm */
}

static void test_plan_ties_go_to_larger_h(void)
{
    /* Ê is flat (15/2) for every H <= h_min = 1 s */
    const int64_t cand[4] = {S(0.5), S(1), S(0.25), S(0.8)};
    rtc_pf_system s = sys4(H4, NULL);
    rtc_pf_plan *p = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_pf_plan_new(&s, cand, 4, RTC_PF_LITERAL, &p, NULL, 0), RTC_OK);
    CU_ASSERT_EQUAL(p->best, 1);
    CU_ASSERT_EQUAL(p->rows[p->best].H_ns, S(1));
    rtc_pf_plan_free(p);
}

static void test_plan_rejections_leave_out_unchanged(void)
{
    rtc_pf_plan sentinel_obj, *sentinel = &sentinel_obj, *p = sentinel;
    char err[200] = "";
    rtc_pf_system s = sys4(H4, NULL);
    const int64_t cand[3] = {S(1), 0, S(2)};
    CU_ASSERT_EQUAL(rtc_pf_plan_new(&s, cand, 3, RTC_PF_LITERAL, &p, err, sizeof err), RTC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "candidate 1: H must be > 0 ns (got 0)"));
    CU_ASSERT_PTR_EQUAL(p, sentinel);

    static const int64_t bad[4] = {S(2), S(3), S(1), -S(2)};
    rtc_pf_system sb = sys4(bad, NULL);
    CU_ASSERT_EQUAL(rtc_pf_plan_new(&sb, NULL, 0, RTC_PF_LITERAL, &p, err, sizeof err), RTC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unit 3: step h must be > 0 ns"));
    CU_ASSERT_PTR_EQUAL(p, sentinel);

    static const double bad_d[4] = {1, 1, NAN, 1};
    rtc_pf_system sd = sys4(H4, bad_d);
    CU_ASSERT_EQUAL(rtc_pf_plan_new(&sd, NULL, 0, RTC_PF_LITERAL, &p, err, sizeof err), RTC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unit 2: real-time factor d must be finite and > 0"));
    CU_ASSERT_PTR_EQUAL(p, sentinel);

    /* lcm overflow for every candidate: no plan */
    static const int64_t primes[3] = {1000000007, 1000000009, 998244353};
    rtc_pf_system sp = {.m = 3, .h_ns = primes};
    const int64_t c1[2] = {S(1), S(2)};
    CU_ASSERT_EQUAL(rtc_pf_plan_new(&sp, c1, 2, RTC_PF_LITERAL, &p, err, sizeof err), RTC_ETIME);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "repeat period overflows int64 ns"));
    CU_ASSERT_PTR_EQUAL(p, sentinel);
}

/* One candidate over the work limit: its row says why, the others still decide H*. */
static void test_plan_partial_rows_keep_status(void)
{
    const int64_t cand[3] = {1, S(2), S(1.5)}; /* H = 1 ns: 6·10^9 intervals */
    rtc_pf_system s = sys4(H4, NULL);
    rtc_pf_plan *p = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_pf_plan_new(&s, cand, 3, RTC_PF_LITERAL, &p, NULL, 0), RTC_OK);
    CU_ASSERT_EQUAL(p->rows[0].status, RTC_ELIMIT);
    CU_ASSERT_EQUAL(p->rows[1].status, RTC_OK);
    CU_ASSERT_EQUAL(p->best, 1);
    char *text = print_plan(p);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "0.000000001                 -  too many intervals"));
    free(text);
    rtc_pf_plan_free(p);
    rtc_pf_plan_free(NULL); /* no-op */
}

void rtc_test_register(void)
{
    static const rtc_test_case rule[] = {
        {"events_fig2_h1p4_matches_note", test_events_fig2_h1p4_matches_note},
        {"qualifies_fig2_matches_events", test_qualifies_fig2_matches_events},
        {"iter_fig2_matches_events", test_iter_fig2_matches_events},
        {"iter_h1p5_c_runs_alone", test_iter_h1p5_c_runs_alone},
        {"iter_small_step_qualifies_once_per_interval",
         test_iter_small_step_qualifies_once_per_interval},
        {"qualifies_zeta0_never", test_qualifies_zeta0_never},
        {"rule_bad_arguments_rejected_unchanged", test_rule_bad_arguments_rejected_unchanged},
        {"events_null_matrix_all_pairs", test_events_null_matrix_all_pairs},
        {"period_fig2_and_overflow", test_period_fig2_and_overflow},
        {NULL, NULL},
    };
    static const rtc_test_case ehat[] = {
        {"ehat_literal_table", test_ehat_literal_table},
        {"ehat_receiver_values", test_ehat_receiver_values},
        {"ehat_equal_steps_counts_links", test_ehat_equal_steps_counts_links},
        {"q_per_link_at_h2", test_q_per_link_at_h2},
        {"q_scaling_f", test_q_scaling_f},
        {"ehat_scale_invariant", test_ehat_scale_invariant},
        {"estimators_reject_unchanged", test_estimators_reject_unchanged},
        {NULL, NULL},
    };
    static const rtc_test_case dhat[] = {
        {"walltime_fig3b", test_walltime_fig3b},
        {"walltime_fig3a_equal_steps", test_walltime_fig3a_equal_steps},
        {"dhat_table_d1", test_dhat_table_d1},
        {"dhat_da_sweep", test_dhat_da_sweep},
        {"dhat_single_unit_is_its_factor", test_dhat_single_unit_is_its_factor},
        {NULL, NULL},
    };
    static const rtc_test_case plan[] = {
        {"plan_natural_grid_picks_2s", test_plan_natural_grid_picks_2s},
        {"plan_ms_system_picks_2ms", test_plan_ms_system_picks_2ms},
        {"plan_receiver_natural_grid_picks_1p5s", test_plan_receiver_natural_grid_picks_1p5s},
        {"default_grid_fig2", test_default_grid_fig2},
        {"default_grid_contains_steps_and_divisors", test_default_grid_contains_steps_and_divisors},
        {"plan_ties_go_to_larger_h", test_plan_ties_go_to_larger_h},
        {"plan_rejections_leave_out_unchanged", test_plan_rejections_leave_out_unchanged},
        {"plan_partial_rows_keep_status", test_plan_partial_rows_keep_status},
        {NULL, NULL},
    };
    rtc_test_add_suite("pfast_rule", NULL, NULL, rule);
    rtc_test_add_suite("pfast_ehat", NULL, NULL, ehat);
    rtc_test_add_suite("pfast_dhat", NULL, NULL, dhat);
    rtc_test_add_suite("pfast_plan", NULL, NULL, plan);
}
