/*
 * The folders and files a run makes (cli.h): --output-dir a/b/c is created with its
 * parents, and a run refused before its first step (a file that does not load, a port in
 * use, a token file others can read, a CPU the machine does not have) takes away what it
 * made — the folders it created and the files that did not exist before it — so a refusal
 * leaves nothing behind but its one error line. Files that existed before are left alone.
 */
#include "cli.h"

#include "rtcosim/archive.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void rtc_cli_made_init(rtc_cli_made *m)
{
    *m = (rtc_cli_made){0};
}

int rtc_cli_make_dir(const char *path, rtc_cli_made *m)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "%.200s...: cannot create: %s", path,
                rtc_strerror(RTC_ELIMIT));
        return RTC_ELIMIT;
    }
    /* each prefix ending before a '/', then the whole path */
    for (char *p = buf + 1;; p++) {
        if (*p && *p != '/')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0755) == 0) {
            if (m && !m->top)
                m->top = strdup(buf);
        } else if (errno != EEXIST) {
            int rc = rtc_status_from_errno(errno);
            rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "%s: cannot create: %s", buf, rtc_strerror(rc));
            return rc;
        }
        *p = c;
        if (!c)
            break;
    }
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
        int rc = rtc_status_from_errno(ENOTDIR);
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "%s: cannot create: %s", path, rtc_strerror(rc));
        return rc;
    }
    return RTC_OK;
}

void rtc_cli_made_note(rtc_cli_made *m, const char *path)
{
    if (access(path, F_OK) == 0)
        return; /* it was there before: not ours to remove */
    char **f = realloc(m->files, (m->n_files + 1) * sizeof *f);
    if (!f)
        return;
    m->files = f;
    if ((f[m->n_files] = strdup(path)) != NULL)
        m->n_files++;
}

void rtc_cli_made_undo(rtc_cli_made *m)
{
    for (size_t i = 0; i < m->n_files; i++)
        unlink(m->files[i]); /* ENOENT: never made */
    if (m->top)
        rtc_tmpdir_remove(m->top); /* removes any tree, not only temporary ones */
}

void rtc_cli_made_clear(rtc_cli_made *m)
{
    for (size_t i = 0; i < m->n_files; i++)
        free(m->files[i]);
    free(m->files);
    free(m->top);
    *m = (rtc_cli_made){0};
}
