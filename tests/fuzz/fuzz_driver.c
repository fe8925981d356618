/*
 * tests/fuzz/fuzz_driver.c — main() of the harnesses in the normal (non-libFuzzer) build:
 * feeds every regular file of each directory argument, in name order, to
 * LLVMFuzzerTestOneInput(). A crash, sanitizer report or abort fails the ctest entry; a
 * run that found no input at all fails too (a test that checks nothing is a defect).
 */
#include "fuzz_util.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0, got;
    if (!f)
        return NULL;
    do {
        if (n == cap) {
            unsigned char *nb = realloc(buf, cap = cap * 2 + 4096);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *size = n;
    return buf;
}

/* Run every regular file of @p dir; returns the count, or -1 on an unreadable file. */
static long run_dir(const char *dir)
{
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, by_name);
    long done = 0;
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, list[i]->d_name);
        if (done >= 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
            size_t size = 0;
            unsigned char *data = slurp(path, &size);
            if (!data) {
                fprintf(stderr, "%s: cannot read\n", path);
                done = -1;
            } else {
                fprintf(stderr, "running %s (%zu bytes)\n", path, size);
                LLVMFuzzerTestOneInput(data, size);
                free(data);
                done++;
            }
        }
        free(list[i]);
    }
    free(list);
    return done;
}

int main(int argc, char **argv)
{
    long total = 0;
    for (int i = 1; i < argc; i++) {
        long n = run_dir(argv[i]);
        if (n < 0)
            return 1;
        total += n;
    }
    if (total == 0) {
        fprintf(stderr, "%s: no input files in the given directories\n", argv[0]);
        return 1;
    }
    printf("%s: %ld input(s) ran without a finding\n", argv[0], total);
    return 0;
}
