/*
 * rtcosim merge NODE_DIR... [-o FILE]: the results.csv of a distributed run's nodes put
 * back together into the one-process run's file (README "Distributed runs").
 *
 * Each node of a run wrote DIR/results.csv with its own columns and DIR/node.json (rtcosim/
 * placement.h, rtc_partition_write_node): the run id, every node, and the one-process
 * run's recorded names in their order with the node each comes from. The merge checks
 * that the directories are the nodes of one run, all of them, then writes the time column
 * and every name's columns (an array's several) from its node, row by row: fields are
 * copied as written, so the merge of a fast (lock-step) run equals the one-process
 * results.csv byte for byte. Rows must agree in number and time.
 */
#include "cli.h"
#include "json_util.h"

#include "rtcosim/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char merge_help[] =
    "usage: rtcosim merge NODE_DIR... [-o FILE]\n"
    "\n"
    "Put the results of a distributed run together: every NODE_DIR is one node's output\n"
    "directory (its results.csv and node.json); FILE (default results.csv) gets the\n"
    "columns of the one-process run of the same system, in its order, row by row. The\n"
    "directories must be the nodes of one run (the same run id), all of them, with the\n"
    "same rows (times).\n"
    "\n"
    "options:\n";

/* One node's output: its header fields and, as the rows are read, its current row's. */
typedef struct node_file {
    const char *dir;
    char node[64];
    FILE *f;
    char *line;       /* the current line, split in place */
    size_t cap;
    char **field;     /* pointers into line */
    size_t n_field, field_cap;
    char **head;      /* header fields (copies) */
    size_t n_head;
    size_t next;      /* the next header field not yet assigned a column */
} node_file;

/* Split @p line (CSV, quoted fields with "" escapes) in place at the commas between
 * fields; fields keep their quotes, so they are copied out as written. */
static int split(node_file *n, char *line)
{
    n->n_field = 0;
    for (char *p = line; p;) {
        if (n->n_field == n->field_cap) {
            size_t cap = n->field_cap ? 2 * n->field_cap : 64;
            char **f = realloc(n->field, cap * sizeof *f);
            if (!f)
                return RTC_ENOMEM;
            n->field = f;
            n->field_cap = cap;
        }
        n->field[n->n_field++] = p;
        bool quoted = false;
        for (; *p && (quoted || *p != ','); p++)
            if (*p == '"')
                quoted = !quoted;
        p = *p ? (*p = '\0', p + 1) : NULL;
    }
    return RTC_OK;
}

/* The next line of @p n without its newline, split; false at the end. */
static bool next_row(node_file *n)
{
    ssize_t len = getline(&n->line, &n->cap, n->f);
    if (len <= 0)
        return false;
    if (n->line[len - 1] == '\n')
        n->line[--len] = '\0';
    return split(n, n->line) == RTC_OK;
}

/* A header field without its quotes. */
static char *unquote(const char *f)
{
    size_t len = strlen(f);
    char *s = len >= 2 && f[0] == '"' && f[len - 1] == '"' ? strndup(f + 1, len - 2)
                                                           : strdup(f);
    return s;
}

/* node.json of @p n: the run id and the nodes; the columns of the first one read. */
static int read_node(node_file *n, char *run, json_t **cols, json_t **nodes)
{
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/node.json", n->dir);
    json_t *doc = NULL;
    if (rtc__json_read(path, &doc, err, sizeof err) != RTC_OK) {
        fprintf(stderr, "rtcosim merge: %s\n", err);
        return RTC_EPARSE;
    }
    const char *id = rtc__json_need_str(doc, "run_id", path, err, sizeof err);
    const char *node = id ? rtc__json_need_str(doc, "node", path, err, sizeof err) : NULL;
    json_t *c = json_object_get(doc, "columns"), *ns = json_object_get(doc, "nodes");
    int rc = RTC_OK;
    if (!node || !json_is_array(c) || !json_is_array(ns)) {
        fprintf(stderr, "rtcosim merge: %s\n", node ? "node.json: no columns or nodes" : err);
        rc = RTC_EPARSE;
    } else if (run[0] && strcmp(run, id)) {
        fprintf(stderr, "rtcosim merge: %s is node %s of another run (run id %s, not %s)\n",
                n->dir, node, id, run);
        rc = RTC_EINVAL;
    } else {
        snprintf(run, 24, "%s", id);
        snprintf(n->node, sizeof n->node, "%s", node);
        if (!*cols) {
            *cols = json_incref(c);
            *nodes = json_incref(ns);
        }
    }
    json_decref(doc);
    return rc;
}

static int open_results(node_file *n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/results.csv", n->dir);
    n->f = fopen(path, "r");
    if (!n->f || !next_row(n)) {
        fprintf(stderr, "rtcosim merge: %s: %s\n", path, n->f ? "empty" : "cannot open it");
        return RTC_EIO;
    }
    n->head = calloc(n->n_field + 1, sizeof *n->head);
    for (size_t i = 0; n->head && i < n->n_field; i++)
        if (!(n->head[n->n_head++] = unquote(n->field[i])))
            return RTC_ENOMEM;
    n->next = 1; /* after the time column */
    return n->head ? RTC_OK : RTC_ENOMEM;
}

/* Where each column comes from: node[i]'s fields first[i] .. first[i] + count[i] - 1. */
typedef struct plan {
    size_t n_cols;
    size_t *node, *first, *count;
} plan;

static long node_named(node_file *nf, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(nf[i].node, name))
            return (long)i;
    return -1;
}

/* The fields of column @p name in node @p n's header: the name itself, or its elements
 * name[1], name[2], ... (an array). */
static size_t take_fields(node_file *n, const char *name)
{
    size_t len = strlen(name), k = 0;
    while (n->next + k < n->n_head) {
        const char *h = n->head[n->next + k];
        if (strcmp(h, name) && !(strncmp(h, name, len) == 0 && h[len] == '['))
            break;
        k++;
    }
    return k;
}

static int make_plan(node_file *nf, size_t n, const json_t *cols, plan *pl)
{
    pl->n_cols = json_array_size(cols);
    pl->node = calloc(pl->n_cols + 1, sizeof *pl->node);
    pl->first = calloc(pl->n_cols + 1, sizeof *pl->first);
    pl->count = calloc(pl->n_cols + 1, sizeof *pl->count);
    if (!pl->node || !pl->first || !pl->count)
        return RTC_ENOMEM;
    for (size_t i = 0; i < pl->n_cols; i++) {
        const json_t *c = json_array_get(cols, i);
        const char *name = json_string_value(json_object_get(c, "name"));
        const char *node = json_string_value(json_object_get(c, "node"));
        long k = name && node ? node_named(nf, n, node) : -1;
        size_t cnt = k >= 0 ? take_fields(&nf[k], name) : 0;
        if (!cnt) {
            fprintf(stderr, "rtcosim merge: column %s: not where node.json says (node %s's "
                    "results.csv)\n", name ? name : "?", node ? node : "?");
            return RTC_EPARSE;
        }
        pl->node[i] = (size_t)k;
        pl->first[i] = nf[k].next;
        pl->count[i] = cnt;
        nf[k].next += cnt;
    }
    return RTC_OK;
}

/* Write one row (the header: row 0) from every node's current fields. */
static void write_row(FILE *out, node_file *nf, const plan *pl)
{
    fputs(nf[0].field[0], out);
    for (size_t i = 0; i < pl->n_cols; i++) {
        node_file *n = &nf[pl->node[i]];
        for (size_t j = 0; j < pl->count[i]; j++)
            fprintf(out, ",%s", pl->first[i] + j < n->n_field ? n->field[pl->first[i] + j] : "");
    }
    fputc('\n', out);
}

/* Every row: the nodes must have the same number and the same time in each. */
static int merge_rows(FILE *out, node_file *nf, size_t n, const plan *pl)
{
    write_row(out, nf, pl); /* the header, still split */
    for (long row = 1;; row++) {
        size_t got = 0;
        for (size_t i = 0; i < n; i++)
            got += next_row(&nf[i]);
        if (got == 0)
            return RTC_OK;
        for (size_t i = 1; i < n && got == n; i++) {
            if (strcmp(nf[i].field[0], nf[0].field[0])) {
                fprintf(stderr, "rtcosim merge: row %ld: node %s is at time %s, node %s at %s\n",
                        row, nf[0].node, nf[0].field[0], nf[i].node, nf[i].field[0]);
                return RTC_EPARSE;
            }
        }
        if (got != n) {
            fprintf(stderr, "rtcosim merge: the nodes' results.csv end at different rows "
                    "(after row %ld): the runs ended differently; merged up to there\n", row - 1);
            return RTC_EPARSE;
        }
        write_row(out, nf, pl);
    }
}

/* Every node of the run is given, once. */
static int check_nodes(node_file *nf, size_t n, const json_t *nodes)
{
    int rc = RTC_OK;
    for (size_t i = 0; i < json_array_size(nodes); i++) {
        const char *name = json_string_value(json_array_get(nodes, i));
        if (name && node_named(nf, n, name) < 0) {
            fprintf(stderr, "rtcosim merge: node %s of the run is missing (give its output "
                    "directory too)\n", name);
            rc = RTC_EINVAL;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (node_named(nf, i, nf[i].node) >= 0) {
            fprintf(stderr, "rtcosim merge: node %s is given twice\n", nf[i].node);
            rc = RTC_EINVAL;
        }
    return rc;
}

static int merge(node_file *nf, size_t n, const char *output)
{
    char run[24] = "";
    json_t *cols = NULL, *nodes = NULL;
    plan pl = {0};
    int rc = RTC_OK;
    for (size_t i = 0; rc == RTC_OK && i < n; i++)
        rc = read_node(&nf[i], run, &cols, &nodes);
    if (rc == RTC_OK)
        rc = check_nodes(nf, n, nodes);
    for (size_t i = 0; rc == RTC_OK && i < n; i++)
        rc = open_results(&nf[i]);
    if (rc == RTC_OK)
        rc = make_plan(nf, n, cols, &pl);
    FILE *out = rc == RTC_OK ? strcmp(output, "-") ? fopen(output, "w") : stdout : NULL;
    if (rc == RTC_OK && !out) {
        fprintf(stderr, "rtcosim merge: %s: cannot create it\n", output);
        rc = RTC_EIO;
    }
    if (rc == RTC_OK) {
        rc = merge_rows(out, nf, n, &pl);
        if ((out != stdout && fclose(out) != 0) || (out == stdout && fflush(out) != 0))
            rc = RTC_EIO;
    }
    json_decref(cols);
    json_decref(nodes);
    free(pl.node);
    free(pl.first);
    free(pl.count);
    return rc;
}

int rtc_cmd_merge(int argc, char **argv)
{
    const rtc_cli_command *cmd = rtc_cli_command_find("merge");
    rtc_cli_args a;
    int st = rtc_cli_parse(cmd, argc, argv, &a);
    if (st != RTC_EXIT_OK || a.help) {
        if (st == RTC_EXIT_OK) {
            fputs(merge_help, stdout);
            rtc_cli_print_options(cmd, RTC_CLI_G_OPTIONS, stdout);
        }
        rtc_cli_args_clear(&a);
        return st;
    }
    const char *output = "results.csv";
    for (size_t i = 0; i < a.n; i++)
        if (a.args[i].opt->id == RTC_CLI_MERGE_OUTPUT)
            output = a.args[i].v.text;
    size_t n = a.n_words;
    node_file *nf = calloc(n, sizeof *nf);
    if (!nf) {
        rtc_cli_args_clear(&a);
        return RTC_EXIT_ERROR;
    }
    for (size_t i = 0; i < n; i++)
        nf[i].dir = a.words[i];
    int rc = merge(nf, n, output);
    for (size_t i = 0; i < n; i++) {
        if (nf[i].f)
            fclose(nf[i].f);
        free(nf[i].line);
        free(nf[i].field);
        for (size_t j = 0; j < nf[i].n_head; j++)
            free(nf[i].head[j]);
        free(nf[i].head);
    }
    free(nf);
    if (rc == RTC_OK && strcmp(output, "-"))
        fprintf(stderr, "rtcosim merge: %zu node(s) merged into %s\n", n, output);
    rtc_cli_args_clear(&a);
    return rc == RTC_OK ? RTC_EXIT_OK : RTC_EXIT_ERROR;
}
