/*
 * golden — runs one integration case of tests/integration/<case>/ and compares what the run
 * wrote with the case's golden files.
 *
 *   golden CASE_DIR RTCOSIM_EXE FMU_DIR CONFIGS_DIR [--update]
 *
 * A case folder holds case.txt, the files the run reads (a system .ssd, .ssv parameter
 * sets, ...) and expected/ with the golden files. case.txt, one directive per line
 * ('#' starts a comment line):
 *
 *   fmus fmi2|fmi3 NAME...   copy FMU_DIR/<fmi2|fmi3>/NAME.fmu into the staged resources/
 *   run ARG...               the rtcosim arguments (no quoting: one word per argument);
 *                            @OUT@ is the output folder, @FMU2@/@FMU3@ the FMU folders,
 *                            @CONFIGS@ the build's packaged example systems (<name>.ssp)
 *   exit N                   the exit status the run must end with (default 0)
 *   stderr TEXT              stderr must contain TEXT (the rest of the line)
 *   compare FILE [abs=A] [rel=R]
 *                            @OUT@/FILE against expected/FILE. A .csv is compared cell by
 *                            cell: the header and the time column exactly, every other
 *                            numeric cell within A + R*|expected| (default 0: exact);
 *                            any other file byte for byte.
 *
 * The case runs in a fresh folder under $TMPDIR (the case's files copied there, so relative
 * paths in the arguments and the system resolve there) that is removed afterwards.
 * --update writes the run's files into expected/ instead of comparing (review the diff!).
 * Exit status 0 when every check held; each failed check prints one line naming the case,
 * the file, the row and column.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ARGS 64
#define MAX_COMPARES 16

extern char **environ;

typedef struct compare {
    char file[256];
    double abs_tol, rel_tol;
} compare;

typedef struct golden_case {
    char dir[4096], name[4096], stage[4096], out[4200];
    char *argv[MAX_ARGS + 2];
    int argc, exit_status;
    char fmu_kind[8];
    char *fmus[MAX_ARGS];
    int n_fmus;
    char stderr_text[512];
    compare cmp[MAX_COMPARES];
    int n_cmp;
    int failures;
    const char *fmu_dir, *configs_dir; /* the build's tests/fmus and configs folders */
} golden_case;

__attribute__((format(printf, 2, 3))) static void fail(golden_case *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "golden %s: ", c->name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    c->failures++;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = (cap + 4096) * 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, 4096, f);
        n += r;
        if (r < 4096)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* Replaces @OUT@, @FMU2@, @FMU3@, @CONFIGS@ in @p word; the result is heap-allocated. */
static char *expand(const golden_case *c, const char *word)
{
    char buf[8192];
    size_t n = 0;
    for (const char *p = word; *p && n < sizeof buf - 1;) {
        const char *rep = NULL, *sub = NULL;
        char fmu[4200];
        if (!strncmp(p, "@OUT@", 5))
            rep = c->out, sub = p + 5;
        else if (!strncmp(p, "@CONFIGS@", 9))
            rep = c->configs_dir, sub = p + 9;
        else if (!strncmp(p, "@FMU2@", 6) || !strncmp(p, "@FMU3@", 6)) {
            snprintf(fmu, sizeof fmu, "%s/fmi%c", c->fmu_dir, p[4]);
            rep = fmu, sub = p + 6;
        }
        if (rep) {
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s", rep);
            p = sub;
        } else {
            buf[n++] = *p++;
        }
    }
    buf[n < sizeof buf ? n : sizeof buf - 1] = '\0';
    return strdup(buf);
}

static int parse_compare(golden_case *c, char *rest)
{
    if (c->n_cmp == MAX_COMPARES)
        return -1;
    compare *k = &c->cmp[c->n_cmp++];
    char *save = NULL;
    char *tok = strtok_r(rest, " \t", &save);
    if (!tok)
        return -1;
    snprintf(k->file, sizeof k->file, "%s", tok);
    while ((tok = strtok_r(NULL, " \t", &save))) {
        char *end = NULL;
        if (!strncmp(tok, "abs=", 4))
            k->abs_tol = strtod(tok + 4, &end);
        else if (!strncmp(tok, "rel=", 4))
            k->rel_tol = strtod(tok + 4, &end);
        if (!end || *end)
            return -1;
    }
    return 0;
}

static int parse_line(golden_case *c, char *line)
{
    char *save = NULL;
    char *key = strtok_r(line, " \t", &save);
    char *rest = save ? save + strspn(save, " \t") : NULL;
    if (!key || key[0] == '#')
        return 0;
    if (!strcmp(key, "stderr")) {
        snprintf(c->stderr_text, sizeof c->stderr_text, "%s", rest ? rest : "");
        return 0;
    }
    if (!strcmp(key, "exit"))
        return sscanf(rest ? rest : "", "%d", &c->exit_status) == 1 ? 0 : -1;
    if (!strcmp(key, "compare"))
        return rest ? parse_compare(c, rest) : -1;
    char *tok;
    if (!strcmp(key, "run")) {
        while ((tok = strtok_r(NULL, " \t", &save)) && c->argc < MAX_ARGS)
            c->argv[++c->argc] = expand(c, tok);
        return tok ? -1 : 0;
    }
    if (!strcmp(key, "fmus")) {
        tok = strtok_r(NULL, " \t", &save);
        if (!tok || (strcmp(tok, "fmi2") && strcmp(tok, "fmi3")))
            return -1;
        snprintf(c->fmu_kind, sizeof c->fmu_kind, "%s", tok);
        while ((tok = strtok_r(NULL, " \t", &save)) && c->n_fmus < MAX_ARGS)
            c->fmus[c->n_fmus++] = strdup(tok);
        return 0;
    }
    return -1;
}

static int load_case(golden_case *c)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/case.txt", c->dir);
    char *text = slurp(path, NULL);
    if (!text) {
        fprintf(stderr, "golden: %s: %s\n", path, strerror(errno));
        return -1;
    }
    int lineno = 0, rc = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", line);
        if (parse_line(c, line) != 0) {
            fprintf(stderr, "golden: %s:%d: cannot read '%s'\n", path, lineno, copy);
            rc = -1;
        }
    }
    free(text);
    if (rc == 0 && c->argc == 0) {
        fprintf(stderr, "golden: %s: no 'run' line\n", path);
        rc = -1;
    }
    return rc;
}

static int copy_file(const char *from, const char *to)
{
    size_t n;
    char *data = slurp(from, &n);
    if (!data)
        return -1;
    FILE *f = fopen(to, "wb");
    int rc = f && fwrite(data, 1, n, f) == n ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    free(data);
    return rc;
}

/* Copies the case's own files (not case.txt, not expected/) and the FMUs into the stage. */
static int stage_case(golden_case *c)
{
    char from[8400], to[8400];
    DIR *d = opendir(c->dir);
    if (!d)
        return -1;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        struct stat st;
        snprintf(from, sizeof from, "%s/%s", c->dir, e->d_name);
        if (!strcmp(e->d_name, "case.txt") || stat(from, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        snprintf(to, sizeof to, "%s/%s", c->stage, e->d_name);
        rc = copy_file(from, to);
    }
    closedir(d);
    if (rc != 0)
        return -1;
    snprintf(to, sizeof to, "%s/resources", c->stage);
    if (mkdir(to, 0700) != 0 || mkdir(c->out, 0700) != 0)
        return -1;
    for (int i = 0; i < c->n_fmus; i++) {
        snprintf(from, sizeof from, "%s/%s/%s.fmu", c->fmu_dir, c->fmu_kind, c->fmus[i]);
        snprintf(to, sizeof to, "%s/resources/%s.fmu", c->stage, c->fmus[i]);
        if (copy_file(from, to) != 0) {
            fprintf(stderr, "golden %s: cannot copy %s\n", c->name, from);
            return -1;
        }
    }
    return 0;
}

static int run_case(golden_case *c, const char *exe)
{
    char err_path[4400];
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", c->stage);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    c->argv[0] = (char *)exe;
    c->argv[c->argc + 1] = NULL;
    char *cwd = getcwd(NULL, 0);
    pid_t pid;
    int rc = chdir(c->stage) == 0 ? posix_spawn(&pid, exe, &fa, NULL, c->argv, environ) : errno;
    if (cwd && chdir(cwd) != 0)
        rc = rc ? rc : errno;
    free(cwd);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fail(c, "cannot start %s: %s", exe, strerror(rc));
        return -1;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    char *err = slurp(err_path, NULL);
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    char want[32], got[32];
    snprintf(want, sizeof want, "%d", c->exit_status);
    snprintf(got, sizeof got, "%d", code);
    if (code != c->exit_status)
        fail(c, "exit status %s, expected %s", got, want);
    if (c->stderr_text[0] && (!err || !strstr(err, c->stderr_text)))
        fail(c, "stderr lacks '%s' (it says: %s)", c->stderr_text, err ? err : "");
    if (c->failures && err)
        fprintf(stderr, "golden %s: the run's stderr:\n%s", c->name, err);
    free(err);
    return 0;
}

/* Splits one CSV line into cells in place (rtcosim writes no commas inside quotes). */
static int split_cells(char *line, char **cells, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save))
        cells[n++] = t;
    return n;
}

static bool cell_matches(const char *got, const char *want, const compare *k, int col)
{
    if (!strcmp(got, want))
        return true;
    if (col == 0)
        return false; /* the time column is exact k*h: it must match byte for byte */
    char *e1, *e2;
    double g = strtod(got, &e1), w = strtod(want, &e2);
    if (*e1 || *e2 || e1 == got || e2 == want)
        return false;
    if (isnan(g) || isnan(w))
        return isnan(g) && isnan(w);
    return fabs(g - w) <= k->abs_tol + k->rel_tol * fabs(w);
}

static void compare_csv(golden_case *c, const compare *k, char *got, char *want)
{
    char *sg = NULL, *sw = NULL;
    char *lg = strtok_r(got, "\n", &sg), *lw = strtok_r(want, "\n", &sw);
    char *cg[512], *cw[512];
    for (long row = 0; lg || lw; row++) {
        char where[320], detail[256];
        if (!lg || !lw) {
            snprintf(where, sizeof where, "%s row %ld", k->file, row);
            fail(c, "%s: %s", where, lg ? "more rows than expected" : "fewer rows than expected");
            return;
        }
        int ng = split_cells(lg, cg, 512), nw = split_cells(lw, cw, 512);
        if (ng != nw) {
            snprintf(where, sizeof where, "%s row %ld", k->file, row);
            fail(c, "%s: %s", where, "a different number of columns");
            return;
        }
        for (int i = 0; i < ng; i++) {
            if (row == 0 ? strcmp(cg[i], cw[i]) == 0 : cell_matches(cg[i], cw[i], k, i))
                continue;
            snprintf(where, sizeof where, "%s row %ld column %d", k->file, row, i + 1);
            snprintf(detail, sizeof detail, "'%s', expected '%s'", cg[i], cw[i]);
            fail(c, "%s: %s", where, detail);
            return;
        }
        lg = strtok_r(NULL, "\n", &sg);
        lw = strtok_r(NULL, "\n", &sw);
    }
}

static void compare_file(golden_case *c, const compare *k, bool update)
{
    char got_path[4600], want_path[4600];
    snprintf(got_path, sizeof got_path, "%s/%s", c->out, k->file);
    snprintf(want_path, sizeof want_path, "%s/expected/%s", c->dir, k->file);
    if (update) {
        if (copy_file(got_path, want_path) != 0)
            fail(c, "cannot update %s from %s", want_path, got_path);
        return;
    }
    size_t ng, nw;
    char *got = slurp(got_path, &ng), *want = slurp(want_path, &nw);
    if (!got || !want)
        fail(c, "missing %s", got ? want_path : got_path);
    else if (strlen(k->file) > 4 && !strcmp(k->file + strlen(k->file) - 4, ".csv"))
        compare_csv(c, k, got, want);
    else if (ng != nw || memcmp(got, want, ng) != 0)
        fail(c, "%s differs from %s", got_path, want_path);
    free(got);
    free(want);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int main(int argc, char **argv)
{
    bool update = argc == 6 && !strcmp(argv[5], "--update");
    if (argc != 5 && !update) {
        fprintf(stderr, "usage: golden CASE_DIR RTCOSIM_EXE FMU_DIR CONFIGS_DIR [--update]\n");
        return 2;
    }
    static golden_case c;
    /* the run starts in the stage folder: every path given here is made absolute */
    char *abs[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 4; i++)
        if (!(abs[i] = realpath(argv[i + 1], NULL))) {
            fprintf(stderr, "golden: %s: %s\n", argv[i + 1], strerror(errno));
            return 1;
        }
    snprintf(c.dir, sizeof c.dir, "%s", abs[0]);
    const char *slash = strrchr(c.dir, '/');
    snprintf(c.name, sizeof c.name, "%s", slash ? slash + 1 : c.dir);
    const char *tmp = getenv("TMPDIR");
    snprintf(c.stage, sizeof c.stage, "%s/rtc-golden-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(c.stage)) {
        fprintf(stderr, "golden: cannot create %s: %s\n", c.stage, strerror(errno));
        return 1;
    }
    snprintf(c.out, sizeof c.out, "%s/out", c.stage);
    c.fmu_dir = abs[2];
    c.configs_dir = abs[3];
    int rc = load_case(&c) == 0 && stage_case(&c) == 0 ? 0 : 1;
    if (rc == 0 && run_case(&c, abs[1]) == 0)
        for (int i = 0; i < c.n_cmp; i++)
            compare_file(&c, &c.cmp[i], update);
    nftw(c.stage, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    for (int i = 1; i <= c.argc; i++)
        free(c.argv[i]);
    for (int i = 0; i < c.n_fmus; i++)
        free(c.fmus[i]);
    for (int i = 0; i < 4; i++)
        free(abs[i]);
    if (rc == 0 && c.failures == 0)
        printf("golden %s: %d file(s) %s\n", c.name, c.n_cmp, update ? "updated" : "as expected");
    return rc || c.failures ? 1 : 0;
}
