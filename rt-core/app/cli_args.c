/*
 * The one option checker of the command line (cli.h): every option of every sub-command is
 * a row of a table (cli_opts.c), and this reads a command line against it. Every value is
 * checked here, before anything runs, with the one number parser (rtcosim/numparse.h):
 * "--decimation 10x", "--workers -1", "--step 0", "--tolerance nan" or a missing value is
 * one line naming the option, the text and what it accepts, exit status 2 — never a silent
 * 10, 4294967295, NaN or default (atoi/strtod accept a prefix, wrap around and never fail),
 * and "0.5" means one half whatever the locale. The --help texts are printed from the same
 * rows, so they list exactly what is accepted.
 */
#include "cli.h"

#include "rtcosim/numparse.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rtc_cli_num_long(const char *text, long lo, long hi, long *out)
{
    if (!text || !*text)
        return "missing value";
    int64_t v;
    int rc = rtc_parse_i64(text, lo, hi, 0, &v);
    if (rc != RTC_OK)
        return rc == RTC_ELIMIT ? "out of range" : "not an integer";
    *out = (long)v;
    return NULL;
}

const char *rtc_cli_num_double(const char *text, double lo, double hi, double *out)
{
    if (!text || !*text)
        return "missing value";
    int rc = rtc_parse_f64(text, lo, hi, 0, out);
    if (rc != RTC_OK)
        return rc == RTC_ELIMIT ? "out of range" : "not a number";
    return NULL;
}

/* Every row of a command's tables. */
#define FOR_ROWS(cmd, r)                                                                     \
    for (const rtc_cli_opt *const *tab_ = (cmd)->tables; *tab_; tab_++)                     \
        for (const rtc_cli_opt *r = *tab_; r->name; r++)

static long int_hi(const rtc_cli_opt *o)
{
    return o->hi_fn ? o->hi_fn() : (long)o->hi;
}

/* What the option accepts, for its messages: "an integer in 1..1000000000". */
static const char *expected(const rtc_cli_opt *o, char *buf, size_t cap)
{
    switch (o->kind) {
    case RTC_CLI_INT: snprintf(buf, cap, "an integer in %ld..%ld", (long)o->lo, int_hi(o)); break;
    case RTC_CLI_REAL:
        if (o->flags & RTC_CLI_LO_OPEN)
            snprintf(buf, cap, isinf(o->hi) ? "a number > %g" : "a number > %g and <= %g",
                     o->lo, o->hi);
        else
            snprintf(buf, cap, "a number in %g..%g", o->lo, o->hi);
        break;
    case RTC_CLI_TIME:
        snprintf(buf, cap, "a time in seconds%s, a whole number of nanoseconds",
                 o->flags & RTC_CLI_LO_OPEN ? " > 0" : "");
        break;
    case RTC_CLI_CHOICE: o->choices(buf, cap, ", ", " or "); break;
    case RTC_CLI_ASSIGN: snprintf(buf, cap, "NAME=VALUE"); break;
    case RTC_CLI_FACTOR: snprintf(buf, cap, "a real-time factor > 0"); break;
    case RTC_CLI_TIMES: snprintf(buf, cap, "comma-separated times in seconds > 0"); break;
    case RTC_CLI_REALS:
        snprintf(buf, cap, "comma-separated numbers in %g..%g", o->lo, o->hi);
        break;
    default: snprintf(buf, cap, "%s", o->meta ? o->meta : "a value"); break;
    }
    return buf;
}

/* One item of a comma-separated list; NULL or why not. */
static const char *list_item(const rtc_cli_opt *o, const char *item)
{
    int64_t ns;
    double d;
    if (o->kind == RTC_CLI_REALS)
        return rtc_cli_num_double(item, o->lo, o->hi, &d);
    int rc = rtc_parse_seconds(item, &ns);
    return rc == RTC_ETIME ? "not a whole number of nanoseconds"
           : rc != RTC_OK  ? "not a number of seconds"
           : ns <= 0       ? "out of range"
                           : NULL;
}

static const char *check_list(const rtc_cli_opt *o, const char *text, char *buf, size_t cap)
{
    char copy[4096], *save = NULL;
    snprintf(copy, sizeof copy, "%s", text);
    if (strlen(text) >= sizeof copy || text[0] == ',' || text[strlen(text) - 1] == ',' ||
        strstr(text, ",,"))
        return "not a comma-separated list";
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const char *why = list_item(o, tok);
        if (why) {
            snprintf(buf, cap, "item \"%s\": %s", tok, why);
            return buf;
        }
    }
    return NULL;
}

/* Check @p text as the value of @p o into *v; NULL, or why not (in @p buf or static). */
static const char *take(const rtc_cli_opt *o, const char *text, rtc_cli_val *v, char *buf,
                        size_t cap)
{
    v->text = text;
    if (!text || (!*text && o->kind != RTC_CLI_FACTOR))
        return "missing value";
    switch (o->kind) {
    case RTC_CLI_INT: return rtc_cli_num_long(text, (long)o->lo, int_hi(o), &v->i);
    case RTC_CLI_REAL: {
        const char *why = rtc_cli_num_double(text, o->lo, o->hi, &v->d);
        return why ? why : (o->flags & RTC_CLI_LO_OPEN) && v->d <= o->lo ? "out of range" : NULL;
    }
    case RTC_CLI_FACTOR: {
        const char *why = rtc_cli_num_double(text, -HUGE_VAL, HUGE_VAL, &v->d);
        return why ? why : v->d > 0 ? NULL : "out of range";
    }
    case RTC_CLI_TIME: {
        int rc = rtc_parse_seconds(text, &v->ns);
        if (rc != RTC_OK)
            return rc == RTC_ETIME ? "not a whole number of nanoseconds" : "not a number";
        return (o->flags & RTC_CLI_LO_OPEN) && v->ns <= 0 ? "out of range" : NULL;
    }
    case RTC_CLI_CHOICE: return o->choose(text, &v->i) ? "not accepted" : NULL;
    case RTC_CLI_ASSIGN:
        return text[0] != '=' && strchr(text, '=') ? NULL : "not accepted";
    case RTC_CLI_TIMES:
    case RTC_CLI_REALS: return check_list(o, text, buf, cap);
    default: return o->check ? o->check(text) : NULL;
    }
}

/* The usage error of a refused value: one line naming the option and what it accepts. */
static int refuse(const char *cmd, const rtc_cli_opt *o, const char *label, const char *text,
                  const char *why)
{
    char want[256];
    expected(o, want, sizeof want);
    if (!text || (!*text && !strcmp(why, "missing value")))
        return rtc_cli_usage_error(cmd, "%s: missing value (expected %s)", label, want);
    if (!strcmp(why, "not accepted")) /* a word, or NAME=VALUE: what it should be says it */
        return rtc_cli_usage_error(cmd, "%s %s: expected %s", label, text, want);
    if (o->kind == RTC_CLI_TEXT) /* its check's reason says what it should be */
        return rtc_cli_usage_error(cmd, "%s %s: %s", label, text, why);
    return rtc_cli_usage_error(cmd, "%s %s: %s (expected %s)", label, text, why, want);
}

/* Optimal string alignment distance between @p a (@p n bytes) and @p b: insertions,
 * deletions, substitutions and swaps of two neighbours each count 1. Names past 63 bytes
 * are never close (RTC_CLI_FAR). */
enum { RTC_CLI_FAR = 64 };
static size_t typo_distance(const char *a, size_t n, const char *b)
{
    size_t m = strlen(b), d[3][RTC_CLI_FAR + 1];
    if (n >= RTC_CLI_FAR || m >= RTC_CLI_FAR)
        return RTC_CLI_FAR;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t *row = d[i % 3], *up = d[(i - 1) % 3], *up2 = d[(i + 1) % 3];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t c = up[j - 1] + (a[i - 1] != b[j - 1]);
            c = up[j] + 1 < c ? up[j] + 1 : c;
            c = row[j - 1] + 1 < c ? row[j - 1] + 1 : c;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                up2[j - 2] + 1 < c)
                c = up2[j - 2] + 1;
            row[j] = c;
        }
    }
    return d[n % 3][m];
}

/* "unknown option '--stpo'", with "; did you mean --stop?" when one option of @p cmd is
 * within two typing slips of it (the nearest; the first in the table on a tie). */
static void unknown_long(const rtc_cli_command *cmd, const char *name, size_t len)
{
    const rtc_cli_opt *near = NULL;
    size_t best = 3;
    FOR_ROWS(cmd, r) {
        size_t d = typo_distance(name, len, r->name);
        if (d < best && d < strlen(r->name)) {
            best = d;
            near = r;
        }
    }
    if (near)
        rtc_cli_usage_error(cmd->name, "unknown option '--%.*s'; did you mean --%s?", (int)len,
                            name, near->name);
    else
        rtc_cli_usage_error(cmd->name, "unknown option '--%.*s'", (int)len, name);
}

/* The row named --@p name (exactly, else a unique prefix); NULL after the usage error. */
static const rtc_cli_opt *find_long(const rtc_cli_command *cmd, const char *name, size_t len)
{
    const rtc_cli_opt *hit = NULL;
    size_t hits = 0;
    char all[512] = "";
    FOR_ROWS(cmd, r) {
        if (strlen(r->name) == len && !strncmp(r->name, name, len))
            return r;
        if (len && !strncmp(r->name, name, len)) {
            size_t n = strlen(all);
            snprintf(all + n, sizeof all - n, "%s--%s", hits ? ", " : "", r->name);
            hit = r;
            hits++;
        }
    }
    if (hits == 1)
        return hit;
    if (hits > 1)
        rtc_cli_usage_error(cmd->name, "'--%.*s' is ambiguous: %s", (int)len, name, all);
    else
        unknown_long(cmd, name, len);
    return NULL;
}

static const rtc_cli_opt *find_letter(const rtc_cli_command *cmd, char c)
{
    FOR_ROWS(cmd, r) {
        if (r->letter == c)
            return r;
    }
    rtc_cli_usage_error(cmd->name, "unknown option '-%c'", c);
    return NULL;
}

static int push(rtc_cli_args *a, const rtc_cli_opt *o, const rtc_cli_val *v)
{
    rtc_cli_arg *n = realloc(a->args, (a->n + 1) * sizeof *n);
    if (!n)
        return RTC_EXIT_ERROR;
    a->args = n;
    n[a->n++] = (rtc_cli_arg){o, *v};
    a->help |= o->id == RTC_CLI_HELP;
    return RTC_EXIT_OK;
}

/* Whether @p word can be the RTF after --realtime (a number; anything else is the next
 * option or the file). */
static bool rtf_word(const char *word)
{
    double d;
    return word && rtc_cli_num_double(word, -HUGE_VAL, HUGE_VAL, &d) == NULL;
}

/* --name[=value] at argv[*i]. */
static int long_opt(const rtc_cli_command *cmd, int argc, char **argv, int *i, rtc_cli_args *a)
{
    const char *word = argv[*i] + 2, *eq = strchr(word, '=');
    size_t len = eq ? (size_t)(eq - word) : strlen(word);
    const rtc_cli_opt *o = find_long(cmd, word, len);
    if (!o)
        return RTC_EXIT_USAGE;
    char label[96], buf[256];
    snprintf(label, sizeof label, "--%s", o->name);
    const char *text = eq ? eq + 1 : NULL;
    if (o->kind == RTC_CLI_FLAG && eq)
        return rtc_cli_usage_error(cmd->name, "%s: takes no value", label);
    if (o->kind == RTC_CLI_FACTOR && !eq && *i + 1 < argc && rtf_word(argv[*i + 1]))
        text = argv[++*i];
    else if (o->kind != RTC_CLI_FLAG && o->kind != RTC_CLI_FACTOR && !eq && *i + 1 < argc)
        text = argv[++*i];
    rtc_cli_val v = {0};
    const char *why = o->kind == RTC_CLI_FLAG || (o->kind == RTC_CLI_FACTOR && !text)
                          ? NULL : take(o, text, &v, buf, sizeof buf);
    return why ? refuse(cmd->name, o, label, text, why) : push(a, o, &v);
}

/* -x, -xVALUE, -x VALUE, or a cluster of short flags (-qv) at argv[*i]. */
static int short_opts(const rtc_cli_command *cmd, int argc, char **argv, int *i,
                      rtc_cli_args *a)
{
    for (const char *p = argv[*i] + 1; *p; p++) {
        const rtc_cli_opt *o = find_letter(cmd, *p);
        if (!o)
            return RTC_EXIT_USAGE;
        rtc_cli_val v = {0};
        if (o->kind == RTC_CLI_FLAG) {
            if (push(a, o, &v) != RTC_EXIT_OK)
                return RTC_EXIT_ERROR;
            if (o->id == RTC_CLI_HELP)
                return RTC_EXIT_OK;
            continue;
        }
        char label[8], buf[256];
        snprintf(label, sizeof label, "-%c", *p);
        const char *text = p[1] ? p + 1 : *i + 1 < argc ? argv[++*i] : NULL;
        const char *why = take(o, text, &v, buf, sizeof buf);
        return why ? refuse(cmd->name, o, label, text, why) : push(a, o, &v);
    }
    return RTC_EXIT_OK;
}

int rtc_cli_parse(const rtc_cli_command *cmd, int argc, char **argv, rtc_cli_args *out)
{
    *out = (rtc_cli_args){0};
    out->words = calloc((size_t)argc + 1, sizeof *out->words);
    if (!out->words)
        return RTC_EXIT_ERROR;
    bool options = true;
    int st = RTC_EXIT_OK;
    for (int i = 1; st == RTC_EXIT_OK && !out->help && i < argc; i++) {
        const char *w = argv[i];
        if (options && !strcmp(w, "--"))
            options = false;
        else if (options && !strncmp(w, "--", 2))
            st = long_opt(cmd, argc, argv, &i, out);
        else if (options && w[0] == '-' && w[1])
            st = short_opts(cmd, argc, argv, &i, out);
        else
            out->words[out->n_words++] = argv[i];
    }
    int want = cmd->positionals < 0 ? -cmd->positionals : cmd->positionals;
    bool more = cmd->positionals < 0; /* N or more */
    if (st == RTC_EXIT_OK && !out->help &&
        ((int)out->n_words < want || (!more && (int)out->n_words > want))) {
        if ((int)out->n_words > want)
            st = rtc_cli_usage_error(cmd->name, "unexpected argument '%s'", out->words[want]);
        else
            st = rtc_cli_usage_error(cmd->name, "expected %s", cmd->operand ? cmd->operand
                                     : cmd->kinds == RTC_CLI_FOR_ANY ? "an FMU or a SYSTEM file"
                                                                     : "a SESSION_DIR");
    }
    if (st != RTC_EXIT_OK)
        rtc_cli_args_clear(out);
    return st;
}

void rtc_cli_args_clear(rtc_cli_args *a)
{
    free(a->args);
    free(a->words);
    *a = (rtc_cli_args){0};
}

int rtc_cli_check_kind(const rtc_cli_command *cmd, const rtc_cli_args *a, const char *path,
                       unsigned *kind)
{
    *kind = rtc_system_is_fmu_path(path) ? RTC_CLI_FOR_FMU : RTC_CLI_FOR_SYSTEM;
    for (size_t i = 0; i < a->n; i++) {
        const rtc_cli_opt *o = a->args[i].opt;
        if (!o->kinds || (o->kinds & *kind))
            continue;
        bool fmu = *kind == RTC_CLI_FOR_FMU;
        return rtc_cli_usage_error(cmd->name, "--%s: an option of %s, not of %s", o->name,
                                   fmu ? "system runs" : "FMU runs", fmu ? "an FMU" : "a system");
    }
    return RTC_EXIT_OK;
}

/* The left column of a row's --help line: "-o, --output FILE", "--realtime [RTF]". */
static void left_column(const rtc_cli_opt *o, char *buf, size_t cap)
{
    int n = o->letter ? snprintf(buf, cap, "-%c, ", o->letter) : 0;
    snprintf(buf + n, cap - (size_t)n, "--%s%s%s", o->name, o->meta ? " " : "",
             o->meta ? o->meta : "");
}

void rtc_cli_print_options(const rtc_cli_command *cmd, int group, FILE *f)
{
    FOR_ROWS(cmd, r) {
        if (r->group != group || !r->help)
            continue;
        char left[96], list[256] = "";
        left_column(r, left, sizeof left);
        if (r->choices)
            r->choices(list, sizeof list, " | ", " | ");
        fprintf(f, "  %-20s ", left);
        for (const char *p = r->help; *p; p++) {
            if (p[0] == '{' && p[1] == '}') {
                fputs(list, f);
                p++;
            } else {
                fputc(*p, f);
                if (*p == '\n')
                    fprintf(f, "%23s", "");
            }
        }
        fputc('\n', f);
    }
}
