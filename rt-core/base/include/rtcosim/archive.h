/*
 * rtcosim/archive.h — safe extraction of zip archives (.fmu, .ssp) into private temporary
 * directories, and their removal.
 *
 * Extraction never follows the archive's wishes blindly: absolute paths, ".." components,
 * symbolic-link entries, and archives whose entries add up to more than a limit are
 * refused before anything outside the destination can be touched. No chdir, no system().
 */
#ifndef RTCOSIM_ARCHIVE_H
#define RTCOSIM_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "rtcosim/log.h"

typedef struct rtc_archive_limits {
    uint64_t max_total_bytes; /**< sum of uncompressed entry sizes; 0: RTC_MAX_UNZIP_BYTES */
    uint64_t max_entries;     /**< 0: no limit on the entry count */
} rtc_archive_limits;

/**
 * Extract every entry of @p zip_path below @p dest_dir (an existing directory).
 *
 * @param limits NULL for defaults.
 * @param lg     one error line "ARCHIVE: ENTRY: reason" on failure.
 * Returns: RTC_OK; -errno (cannot open the archive or the destination, cannot create or
 * write a file: e.g. -ENOENT, -ENOSPC); RTC_EIO (not a zip file, truncated, CRC error,
 * encrypted); RTC_EUNSAFE (absolute path, "..", symlink entry); RTC_ELIMIT (size or
 * count over the limit).
 * On failure, files already written stay in @p dest_dir: the caller removes the directory.
 * RT-safe: no.
 */
int rtc_archive_extract(const char *zip_path, const char *dest_dir,
                        const rtc_archive_limits *limits, const rtc_logger *lg);

/**
 * Create a private directory (mode 0700, mkdtemp) named
 * "<TMPDIR or /tmp>/<prefix><pid>-<start>-XXXXXX": the owner's pid and its start time
 * (/proc/PID/stat field 22, clock ticks since boot; against pid reuse). Before creating
 * it, removes the directories of the same prefix that a process now gone left behind
 * (rtc_tmpdir_sweep). The path is remembered until rtc_tmpdir_remove(), for
 * rtc_tmpdir_remove_all(). Writes the path to @p out. Returns RTC_OK, RTC_ELIMIT (cap too
 * small) or -errno (mkdtemp failed). RT-safe: no. Thread: any.
 */
int rtc_tmpdir_new(const char *prefix, char *out, size_t cap);

/**
 * Remove the directories "<prefix><pid>-<start>-XXXXXX" of TMPDIR whose owner is gone
 * (no process @p pid, or one that started at another time). Only directories of this
 * user; names that do not parse and owners that cannot be checked are kept. Returns how
 * many were removed. RT-safe: no. Thread: any.
 */
int rtc_tmpdir_sweep(const char *prefix);

/** Remove a directory tree without following links (nftw FTW_DEPTH|FTW_PHYS). A missing
 *  path is fine. Returns RTC_OK or -errno of the call that failed. RT-safe: no.
 *  Thread: any. */
int rtc_tmpdir_remove(const char *path);

/**
 * Remove every directory rtc_tmpdir_new() made in this process and nobody removed yet:
 * the last step of an exit that cannot free its objects (watchdog, a unit hung in its
 * step). Removing the directory of a shared library that is still mapped, even one whose
 * code a hung thread is running, is safe: the mapping outlives the file. RT-safe: no.
 */
void rtc_tmpdir_remove_all(void);

#endif
