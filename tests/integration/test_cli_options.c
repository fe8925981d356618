/*
 * The command line's promises (issue 20): one option checker for every sub-command — the
 * test walks the option tables themselves (rt-core/app/cli_opts.c, linked in) and gives
 * every option of every command a bad, missing or out-of-range value: one line naming it,
 * exit 2; an option of the other kind of input says so. A single FMU is a system of one
 * unit: `run FMU` with --output-dir equals the output `run FMU` always wrote (the golden
 * fmu-* cases) byte for byte, and `run FMU --realtime --output-dir S` makes a session that
 * replays identical. Output folders are made with their parents, a result file that is a
 * device gets no summary beside it, and a refused configuration leaves nothing behind.
 */
#include "cu_main.h"
#include "fmu_util.h"

#include "cli.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

RTC_TEST_RTCOSIM_FIXTURE

#define MSD RTC_TEST_CONFIG_DIR "/stage/msd-jacobi/SystemStructure.ssd"
#define GOLDEN RTC_TEST_DATA_DIR "/../integration"

static bool one_line(void)
{
    return strchr(out, '\n') == strrchr(out, '\n') && strchr(out, '\n');
}

static bool exists(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, rel);
    return access(path, F_OK) == 0;
}

/* ---- the walk over the option tables ---- */

static char decay[1024];
static int walked, refused_ok;

/* "rtcosim CMD [FILE] ARGS" must be one usage line naming @p name, exit 2, and make
 * nothing in the work folder. */
static void expect_usage(const char *cmd, const char *file, const char *args, const char *name,
                         const char *want)
{
    int before = rtc_test_entries(work);
    int rc = rtcosim("%s %s%s%s %s", cmd, file ? "'" : "", file ? file : "", file ? "'" : "",
                     args);
    char head[64];
    snprintf(head, sizeof head, "rtcosim %s: error: ", cmd);
    bool ok = rc == 2 && one_line() && !strncmp(out, head, strlen(head)) && strstr(out, name) &&
              (!want || strstr(out, want)) && rtc_test_entries(work) == before;
    walked++;
    refused_ok += ok;
    if (!ok)
        printf("\n    rtcosim %s %s %s: exit %d, want one line with \"%s\"%s%s: %.300s", cmd,
               file ? "FILE" : "", args, rc, name, want ? " and " : "", want ? want : "", out);
}

/* A value the option accepts (for the wrong-kind check, which comes after the values). */
static void good_value(const rtc_cli_opt *o, char *buf, size_t cap)
{
    char list[256];
    switch (o->kind) {
    case RTC_CLI_INT: snprintf(buf, cap, "%ld", (long)o->lo); break;
    case RTC_CLI_REAL: snprintf(buf, cap, "%.17g", o->hi); break;
    case RTC_CLI_CHOICE:
        o->choices(list, sizeof list, ",", ",");
        snprintf(buf, cap, "%.*s", (int)strcspn(list, ","), list);
        break;
    case RTC_CLI_ASSIGN: snprintf(buf, cap, "a=1"); break;
    case RTC_CLI_FLAG:
    case RTC_CLI_FACTOR: buf[0] = '\0'; break;
    default: /* a text; an address where the row wants one (--dds-address, --dds-peers) */
        snprintf(buf, cap, "%s", o->check && o->check("1") ? "127.0.0.1" : "1");
        break;
    }
}

typedef struct bad_text {
    const char *text, *why; /* a value ("=..." glued to the name) and what the line says */
} bad_text;

/* The wrong values of @p o by its kind (@p hi, @p lo: buffers for its bounds). */
static void bad_texts(const rtc_cli_opt *o, bad_text bad[4], char *hi, char *lo)
{
    long top = o->hi_fn ? o->hi_fn() : (long)o->hi;
    switch (o->kind) {
    case RTC_CLI_INT:
        snprintf(hi, 64, "%ld", top + 1);
        snprintf(lo, 64, "%ld", (long)o->lo - 1);
        bad[0] = (bad_text){"7x", "not an integer"};
        bad[1] = (bad_text){hi, "out of range (expected an integer in"};
        bad[2] = (bad_text){lo, "out of range (expected an integer in"};
        break;
    case RTC_CLI_REAL:
        snprintf(hi, 64, "%.17g", o->hi * 2 + 1);
        snprintf(lo, 64, "%.17g", o->lo);
        bad[0] = (bad_text){"nan", "not a number"};
        bad[1] = (bad_text){hi, "out of range (expected a number"};
        if (o->flags & RTC_CLI_LO_OPEN)
            bad[2] = (bad_text){lo, "out of range (expected a number >"};
        break;
    case RTC_CLI_TIME:
        bad[0] = (bad_text){"1x", "not a number (expected a time in seconds"};
        bad[1] = (bad_text){"1e-12", "not a whole number of nanoseconds"};
        if (o->flags & RTC_CLI_LO_OPEN)
            bad[2] = (bad_text){"-0.01", "out of range (expected a time in seconds > 0"};
        break;
    case RTC_CLI_CHOICE: bad[0] = (bad_text){"no-such-word", ": expected "}; break;
    case RTC_CLI_ASSIGN: bad[0] = (bad_text){"novalue", ": expected NAME=VALUE"}; break;
    case RTC_CLI_FACTOR:
        bad[0] = (bad_text){"=0", "out of range (expected a real-time factor > 0"};
        bad[1] = (bad_text){"=x", "not a number"};
        break;
    case RTC_CLI_TIMES:
    case RTC_CLI_REALS: bad[0] = (bad_text){"1,x", "item \"x\""}; break;
    default:
        bad[0] = (bad_text){"=", "missing value"};
        if (o->check)
            bad[1] = (bad_text){"1.2.3.4.5", o->check("1.2.3.4.5")};
        break;
    }
}

/* Every way the value of @p o can be wrong, each on @p cmd with @p file. */
static void bad_values(const char *cmd, const char *file, const rtc_cli_opt *o)
{
    char name[64], arg[256];
    snprintf(name, sizeof name, "--%s", o->name);
    if (o->kind == RTC_CLI_FLAG) {
        snprintf(arg, sizeof arg, "%s=1", name);
        expect_usage(cmd, file, arg, name, "takes no value");
        return;
    }
    if (o->kind != RTC_CLI_FACTOR)
        expect_usage(cmd, file, name, name, "missing value (expected");
    if (o->letter) {
        snprintf(arg, sizeof arg, "-%c", o->letter);
        expect_usage(cmd, file, arg, arg, "missing value (expected");
    }
    bad_text bad[4] = {{NULL, NULL}};
    char hi[64], lo[64];
    bad_texts(o, bad, hi, lo);
    for (size_t i = 0; i < 4 && bad[i].text; i++) {
        if (bad[i].text[0] == '=')
            snprintf(arg, sizeof arg, "%s%s", name, bad[i].text);
        else
            snprintf(arg, sizeof arg, "%s '%s'", name, bad[i].text);
        expect_usage(cmd, file, arg, name, bad[i].why);
    }
}

/* The inputs a row of run/check/plan applies to: both, or the one its kinds say. */
static void walk_row(const rtc_cli_command *c, const rtc_cli_opt *o)
{
    const char *file = NULL;
    if (!strcmp(c->name, "replay"))
        file = "no-such-session";
    else if (!strcmp(c->name, "info"))
        file = decay;
    if (c->kinds != RTC_CLI_FOR_ANY || !strcmp(c->name, "info")) {
        bad_values(c->name, file, o);
        return;
    }
    if (!o->kinds || (o->kinds & RTC_CLI_FOR_FMU))
        bad_values(c->name, decay, o);
    if (!o->kinds || (o->kinds & RTC_CLI_FOR_SYSTEM))
        bad_values(c->name, MSD, o);
    /* an option of the other kind of input says so */
    if (o->kinds == RTC_CLI_FOR_FMU || o->kinds == RTC_CLI_FOR_SYSTEM) {
        char name[64], value[64], arg[200];
        snprintf(name, sizeof name, "--%s", o->name);
        good_value(o, value, sizeof value);
        snprintf(arg, sizeof arg, "%s %s", name, value);
        expect_usage(c->name, o->kinds == RTC_CLI_FOR_FMU ? MSD : decay, arg, name,
                     o->kinds == RTC_CLI_FOR_FMU ? "an option of FMU runs, not of a system"
                                                 : "an option of system runs, not of an FMU");
    }
}

static void every_option_of_every_command_refuses_bad_values(void)
{
    snprintf(decay, sizeof decay, "%s", tfmu_path(2, "Decay"));
    walked = refused_ok = 0;
    size_t commands = 0;
    for (const rtc_cli_command *c = rtc_cli_commands; c->name; c++, commands++)
        for (const rtc_cli_opt *const *t = c->tables; *t; t++)
            for (const rtc_cli_opt *o = *t; o->name; o++)
                walk_row(c, o);
    printf("\n    %d bad command lines over %zu commands, %d refused as promised", walked,
           commands, refused_ok);
    CU_ASSERT(commands >= 6 && walked > 300);
    CU_ASSERT_EQUAL(refused_ok, walked);
}

/* Every option is in its command's --help (printed from the same rows). */
static void help_lists_every_option(void)
{
    for (const rtc_cli_command *c = rtc_cli_commands; c->name; c++) {
        if (!strcmp(c->name, "check"))
            continue; /* its help points to run's options, which it takes */
        CU_ASSERT_EQUAL(rtcosim("%s --help", c->name), 0);
        bool all = !strcmp(c->name, "run"); /* plan lists its own and points to run's */
        for (const rtc_cli_opt *const *t = c->tables; *t && (all || t == c->tables); t++) {
            for (const rtc_cli_opt *o = *t; o->name; o++) {
                char name[64];
                snprintf(name, sizeof name, "--%s", o->name);
                CU_ASSERT_PTR_NOT_NULL(strstr(out, name));
                if (!strstr(out, name))
                    printf("\n    '%s --help' lacks %s", c->name, name);
            }
        }
    }
    /* the words come from the library: the master algorithms, the Model Exchange solvers */
    CU_ASSERT_EQUAL(rtcosim("run --help"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "jacobi | gauss-seidel | parallel-fast"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "rk4 | euler | heun | implicit"));
}

/* What the issue named: --step 0 and --step -0.01 on a system, a bad --stop on an FMU,
 * "--set k 1". */
static void named_cases_are_usage_errors(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s' --step 0 --output-dir s0", MSD), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--step 0: out of range (expected a time in seconds > 0"));
    CU_ASSERT_FALSE(exists("s0"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --step -0.01", MSD), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--step -0.01: out of range"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 1y", tfmu_path(2, "Decay")), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "rtcosim run: error: --stop 1y: not a number"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --set k 1", tfmu_path(2, "Decay")), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--set k: expected NAME=VALUE"));
    CU_ASSERT_TRUE(one_line());
}

/* ---- a single FMU is a system of one unit ---- */

/* The words of @p case_dir/case.txt's run line and its exit status. */
static int read_case(const char *case_dir, char *args, size_t cap, int *exit_status)
{
    char path[1100], line[2048];
    snprintf(path, sizeof path, "%s/case.txt", case_dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    args[0] = '\0';
    *exit_status = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strncmp(line, "run run ", 8))
            snprintf(args, cap, "%s", line + 4); /* "run ..." */
        sscanf(line, "exit %d", exit_status);
    }
    fclose(f);
    return args[0] ? 0 : -1;
}

/* @p args with @FMU2@/@FMU3@ and @OUT@ put in, and "-o @OUT@/results.csv" replaced by
 * --output-dir (the system path's own output) when @p as_dir. */
static void expand(const char *args, const char *dir, bool as_dir, char *buf, size_t cap)
{
    size_t n = 0;
    for (const char *p = args; *p && n + 1 < cap;) {
        const char *sub = NULL, *tok = NULL;
        if (as_dir && !strncmp(p, "-o @OUT@/results.csv", 20))
            tok = "-o @OUT@/results.csv", sub = "--output-dir @OUT@";
        else if (!strncmp(p, "@FMU2@", 6))
            tok = "@FMU2@", sub = RTC_TEST_FMU_DIR "/fmi2";
        else if (!strncmp(p, "@FMU3@", 6))
            tok = "@FMU3@", sub = RTC_TEST_FMU_DIR "/fmi3";
        else if (!strncmp(p, "@OUT@", 5))
            tok = "@OUT@", sub = dir;
        if (!tok) {
            buf[n++] = *p++;
            continue;
        }
        n += (size_t)snprintf(buf + n, cap - n, "%s", sub == dir || tok[0] == '-' ? "" : sub);
        if (sub == dir || tok[0] == '-')
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", tok[0] == '-' ? "--output-dir " : "",
                                  dir);
        p += strlen(tok);
    }
    buf[n < cap ? n : cap - 1] = '\0';
}

/* Byte for byte: DIR/results.csv of the run against the case's golden file. */
static bool same_bytes(const char *golden, const char *made)
{
    size_t na = 0, nb = 0;
    char *a = rtc_test_slurp(golden, &na), *b = rtc_test_slurp(made, &nb);
    bool same = a && b && na == nb && !memcmp(a, b, na);
    if (!same)
        printf("\n    %s differs from %s", made, golden);
    free(a);
    free(b);
    return same;
}

/* Every golden fmu-* case (written by `run FMU` before it ran as a system of one unit):
 * the same run with -o FILE, and with --output-dir DIR, writes those bytes. */
static void fmu_run_as_system_equals_run_fmu_bytes(void)
{
    DIR *d = opendir(GOLDEN);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    struct dirent *e;
    int cases = 0;
    while ((e = readdir(d))) {
        char dir[1024], args[2048], line[4096], golden[1200], made[1200];
        int want;
        snprintf(dir, sizeof dir, "%s/%s", GOLDEN, e->d_name);
        if (strncmp(e->d_name, "fmu-", 4) || read_case(dir, args, sizeof args, &want))
            continue;
        snprintf(golden, sizeof golden, "%s/expected/results.csv", dir);
        for (int as_dir = 0; as_dir < 2; as_dir++) {
            char out_dir[1100];
            snprintf(out_dir, sizeof out_dir, "%s/%s-%d", work, e->d_name, as_dir);
            mkdir(out_dir, 0755);
            expand(args, out_dir, as_dir, line, sizeof line);
            int rc = rtcosim("%s", line);
            CU_ASSERT_EQUAL(rc, want);
            if (rc != want)
                printf("\n    rtcosim %s: exit %d: %.300s", line, rc, out);
            snprintf(made, sizeof made, "%s/results.csv", out_dir);
            CU_ASSERT_TRUE(same_bytes(golden, made));
        }
        cases++;
    }
    closedir(d);
    CU_ASSERT(cases >= 8);
}

/* rows of @p rel, 0 when unreadable */
static long rows_of(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, rel);
    return tcsv_whole_rows(path);
}

static bool files_equal(const char *a, const char *b)
{
    char pa[1024], pb[1024];
    snprintf(pa, sizeof pa, "%s/%s", work, a);
    snprintf(pb, sizeof pb, "%s/%s", work, b);
    return same_bytes(pa, pb);
}

/* `run FMU --realtime --output-dir S`: a session (its files, the FMU's copy), which
 * replays identical and equals the fast run — also where the FMU ends the simulation
 * itself, takes a shorter last step, or runs as Model Exchange with unit options. */
static void fmu_realtime_session_replays_identical(void)
{
    static const struct {
        const char *fmu, *args;
        int v;
    } runs[] = {
        {"Decay", "--stop 1 --step 0.01", 2},
        {"Decay", "--stop 1 --step 0.3", 3},
        {"Stair", "--set counter_max=3", 3},
        {"BouncingBall", "--interface me --solver euler --substeps 3 --stop 1", 2},
    };
    static const char *const session[] = {"results.csv", "summary.json", "events.log",
                                          "inputs.bin", "session.conf", "fmus.sha256",
                                          "system.fmu", "timing.json"};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char fmu[1024], s[64], fast[64], rel[128];
        snprintf(fmu, sizeof fmu, "%s", tfmu_path(runs[i].v, runs[i].fmu));
        snprintf(s, sizeof s, "s%zu", i);
        snprintf(fast, sizeof fast, "fast%zu.csv", i);
        CU_ASSERT_EQUAL(rtcosim("run '%s' %s --realtime 20 --priority 0 -q --output-dir %s",
                                fmu, runs[i].args, s), 0);
        for (size_t k = 0; k < sizeof session / sizeof session[0]; k++) {
            snprintf(rel, sizeof rel, "%s/%s", s, session[k]);
            CU_ASSERT_TRUE(exists(rel));
        }
        CU_ASSERT_EQUAL(rtcosim("replay %s", s), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "identical"));
        CU_ASSERT_EQUAL(rtcosim("run '%s' %s -q -o %s", fmu, runs[i].args, fast), 0);
        snprintf(rel, sizeof rel, "%s/results.csv", s);
        CU_ASSERT_TRUE(files_equal(fast, rel));
        CU_ASSERT(rows_of(rel) > 1);
    }
    /* its summary names the FMU and keeps its unit's fields at the top */
    char path[1024];
    snprintf(path, sizeof path, "%s/s2/summary.json", work);
    char *sum = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    CU_ASSERT_PTR_NOT_NULL(strstr(sum, "\"fmu\": "));
    CU_ASSERT_PTR_NOT_NULL(strstr(sum, "\"terminated\": true"));
    free(sum);
}

/* An FMU session has an operator: --expose and the browser panel. */
static void fmu_session_has_operator_surfaces(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 0.3 --step 0.1 --realtime --priority 0 -q "
                            "--expose Float64_input:min=0:max=5 --http 0 --output-dir op",
                            tfmu_path(3, "Passthrough")), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "operator panel on http://127.0.0.1:"));
    char path[1024];
    snprintf(path, sizeof path, "%s/op/events.log", work);
    char *ev = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    CU_ASSERT_PTR_NOT_NULL(strstr(ev, "1 exposed variable(s)"));
    free(ev);
    CU_ASSERT_EQUAL(rtcosim("replay op"), 0);
}

/* ---- where the files go ---- */

static void output_dirs_made_with_parents(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 0.1 --step 0.01 -q --output-dir a/b/c",
                            tfmu_path(2, "Decay")), 0);
    CU_ASSERT_TRUE(exists("a/b/c/results.csv") && exists("a/b/c/summary.json"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 0.1 -q --output-dir d/e/f", MSD), 0);
    CU_ASSERT_TRUE(exists("d/e/f/results.csv"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 0.1 --step 0.01 --realtime 10 --priority 0 -q "
                            "--output-dir g/h", tfmu_path(2, "Decay")), 0);
    CU_ASSERT_EQUAL(rtcosim("replay g/h --output-dir i/j/k"), 0);
    CU_ASSERT_TRUE(exists("i/j/k/results.csv"));
    /* a folder that cannot be: one line, exit 1, nothing made */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "touch '%s/plain'", work);
    CU_ASSERT_EQUAL(rtc_test_run(cmd, NULL, 0), 0);
    CU_ASSERT_EQUAL(rtcosim("run '%s' --output-dir plain/x", MSD), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "plain/x: cannot create"));
    CU_ASSERT_TRUE(one_line());
}

/* A result file that is a device or a pipe gets no summary beside it; --summary still
 * writes one where asked; a summary that cannot be written is a write error (exit 4). */
static void device_output_has_no_summary_beside_it(void)
{
    const char *fmu = tfmu_path(2, "Decay");
    char stale[1024];
    snprintf(stale, sizeof stale, "%s/summary.json", work);
    unlink(stale); /* an earlier case's */
    bool dev_had = access("/dev/summary.json", F_OK) == 0; /* root could write there */
    CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 0.1 --step 0.01 -o /dev/null", fmu), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "rtcosim run: completed: 11 row(s) in /dev/null ("));
    CU_ASSERT_PTR_NULL(strstr(out, "summary"));
    CU_ASSERT_FALSE(exists("summary.json"));
    CU_ASSERT_TRUE(dev_had || access("/dev/summary.json", F_OK) != 0);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && mkfifo pipe && (cat pipe > piped.csv &) && '%s' run "
             "'%s' --stop 0.1 --step 0.01 -o pipe", work, RTCOSIM_EXE, fmu);
    CU_ASSERT_EQUAL(rtc_test_run(cmd, out, sizeof out), 0);
    CU_ASSERT_PTR_NULL(strstr(out, "summary"));
    CU_ASSERT_FALSE(exists("summary.json"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 0.1 --step 0.01 -o /dev/null --summary s.json",
                            fmu), 0);
    CU_ASSERT_TRUE(exists("s.json"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 0.1 --step 0.01 -o r.csv --summary no/s.json",
                            fmu), 4);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "no/s.json: write failed"));
}

/* ---- a refused configuration leaves nothing behind ---- */

/* A socket of @p type bound (and listening, for TCP) on 127.0.0.1: its port is busy. */
static int busy_port(int type, int *fd)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    *fd = socket(AF_INET, type, 0);
    if (*fd < 0 || bind(*fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        (type == SOCK_STREAM && listen(*fd, 1) != 0) ||
        getsockname(*fd, (struct sockaddr *)&a, &len) != 0)
        return -1;
    return ntohs(a.sin_port);
}

static void refused_configurations_leave_nothing(void)
{
    int ufd, tfd;
    int uport = busy_port(SOCK_DGRAM, &ufd), tport = busy_port(SOCK_STREAM, &tfd);
    CU_ASSERT_FATAL(uport > 0 && tport > 0);
    const char *rt = "--realtime --priority 0 --stop 0.5";
    CU_ASSERT_EQUAL(rtcosim("run '%s' %s --control-port %d --output-dir u/v", MSD, rt, uport), 1);
    CU_ASSERT_FALSE(exists("u"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' %s --http %d --output-dir h", MSD, rt, tport), 1);
    CU_ASSERT_FALSE(exists("h"));
    /* a folder that was there stays, empty as it was */
    char empty[1024];
    snprintf(empty, sizeof empty, "%s/empty", work);
    CU_ASSERT_EQUAL_FATAL(mkdir(empty, 0755), 0);
    CU_ASSERT_EQUAL(rtcosim("run '%s' %s --step 0.01 --control-port %d --output-dir empty",
                            tfmu_path(2, "Decay"), rt, uport), 1);
    CU_ASSERT_EQUAL(rtc_test_entries(empty), 0);
    close(ufd);
    close(tfd);
    char tok[1024];
    snprintf(tok, sizeof tok, "%s/tok", work);
    FILE *f = fopen(tok, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("secret\n", f);
    fclose(f);
    chmod(tok, 0644);
    CU_ASSERT_EQUAL(rtcosim("run '%s' %s --control-port 0 --control-token '%s' --output-dir t",
                            MSD, rt, tok), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "readable or writable by every user"));
    CU_ASSERT_TRUE(one_line());
    CU_ASSERT_FALSE(exists("t"));
    unlink(tok);
    CU_ASSERT_EQUAL(rtcosim("run '%s' %s --cpu 4096 --output-dir c", MSD, rt), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--cpu 4096: out of range (expected an integer in 0.."));
    CU_ASSERT_FALSE(exists("c"));
    CU_ASSERT_EQUAL(rtcosim("run no-such.ssd %s --output-dir l", rt), 1);
    CU_ASSERT_FALSE(exists("l"));
    CU_ASSERT_EQUAL(rtcosim("run no-such.fmu --output-dir m/n"), 1);
    CU_ASSERT_FALSE(exists("m"));
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"every_option_of_every_command_refuses_bad_values",
         every_option_of_every_command_refuses_bad_values},
        {"help_lists_every_option", help_lists_every_option},
        {"named_cases_are_usage_errors", named_cases_are_usage_errors},
        {"fmu_run_as_system_equals_run_fmu_bytes", fmu_run_as_system_equals_run_fmu_bytes},
        {"fmu_realtime_session_replays_identical", fmu_realtime_session_replays_identical},
        {"fmu_session_has_operator_surfaces", fmu_session_has_operator_surfaces},
        {"output_dirs_made_with_parents", output_dirs_made_with_parents},
        {"device_output_has_no_summary_beside_it", device_output_has_no_summary_beside_it},
        {"refused_configurations_leave_nothing", refused_configurations_leave_nothing},
        {NULL, NULL}};
    rtc_test_add_suite("cli_options", setup, teardown, cases);
}
