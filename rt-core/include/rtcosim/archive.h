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
 * Returns: RTC_OK; RTC_EIO (cannot open / read / truncated / CRC error); RTC_EUNSAFE
 * (absolute path, "..", symlink entry); RTC_ELIMIT (size or count over the limit).
 * On failure, files already written stay in @p dest_dir: the caller removes the directory.
 * RT-safe: no.
 */
int rtc_archive_extract(const char *zip_path, const char *dest_dir,
                        const rtc_archive_limits *limits, const rtc_logger *lg);

/**
 * Create a private directory (mode 0700, mkdtemp) named "<TMPDIR or /tmp>/<prefix>XXXXXX".
 * Writes the path to @p out. Returns RTC_OK, RTC_ELIMIT (cap too small) or RTC_ESYS.
 * RT-safe: no.
 */
int rtc_tmpdir_new(const char *prefix, char *out, size_t cap);

/** Remove a directory tree without following links (nftw FTW_DEPTH|FTW_PHYS). A missing
 *  path is fine. Returns RTC_OK or RTC_ESYS. RT-safe: no. */
int rtc_tmpdir_remove(const char *path);

#endif
