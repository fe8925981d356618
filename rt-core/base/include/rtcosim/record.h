/*
 * rtcosim/record.h — result columns: which unit variables are recorded, how their values
 * are fetched, and how a row is written.
 *
 * A recording is built in the load phase (rtc_record_add*), then used in two halves so the
 * real-time thread never formats text: rtc_record_sample() fetches every column's value
 * from the units into a preallocated row buffer (one typed get per unit and type), and
 * rtc_record_write_row() formats a row buffer into the CSV. Array variables are expanded
 * into one column per element, named "name[i]" (1-based; "name[i,j]" for 2-D), the
 * fmi-cross-check convention.
 */
#ifndef RTCOSIM_RECORD_H
#define RTCOSIM_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/csv.h"
#include "rtcosim/model.h"
#include "rtcosim/rtsafe.h"
#include "rtcosim/unit.h"

typedef struct rtc_record rtc_record;

/** An empty recording. Returns RTC_OK or RTC_ENOMEM. RT-safe: no. */
int rtc_record_new(rtc_record **out);

/** Free; NULL is a no-op. RT-safe: no. */
void rtc_record_free(rtc_record *rec);

/**
 * Add variable @p var_index of @p unit (all its elements for arrays). Column names are
 * "<prefix><name>" (prefix may be NULL or "", or e.g. "plant." for systems).
 * Returns: RTC_OK; RTC_EUNSUPPORTED for Clock variables; RTC_ENOMEM.
 * RT-safe: no.
 */
int rtc_record_add(rtc_record *rec, const rtc_unit *unit, size_t var_index, const char *prefix);

/**
 * As rtc_record_add(), but the column is named "<prefix><name>" instead of after the
 * variable (a system's own connector recorded under its name). RT-safe: no.
 */
int rtc_record_add_as(rtc_record *rec, const rtc_unit *unit, size_t var_index,
                      const char *prefix, const char *name);

/** Add every output variable of @p unit, in modelDescription order. RT-safe: no. */
int rtc_record_add_outputs(rtc_record *rec, const rtc_unit *unit, const char *prefix);

/** Number of value columns (time excluded). RT-safe: yes. */
RTC_RT_SAFE size_t rtc_record_columns(const rtc_record *rec);

/** Size in bytes of one row buffer for rtc_record_sample(). RT-safe: yes. */
RTC_RT_SAFE size_t rtc_record_row_size(const rtc_record *rec);

/** Write the header row: "time" and every column name, quoted. RT-safe: no. */
void rtc_record_write_header(const rtc_record *rec, rtc_csv *csv);

/**
 * Fetch the current value of every column into @p row (rtc_record_row_size() bytes).
 * Strings and binaries are copied into the row (truncated to 255 bytes / 127 bytes) so the
 * row stays valid after the unit's next call.
 * Returns RTC_OK or the first failing unit's status.
 * RT-safe: yes (no allocation; the units' get may not be).
 */
RTC_RT_SAFE int rtc_record_sample(rtc_record *rec, void *row);

/** Name of column @p i (time excluded), or NULL past the end. RT-safe: yes. */
RTC_RT_SAFE const char *rtc_record_column_name(const rtc_record *rec, size_t i);

/** Unit of column @p i: its variable's (own or from its declared type; for an I/O
 *  component, the SSP connector's), or NULL when it has none or @p i is past the end. Valid
 *  while the recorded unit lives. RT-safe: yes. */
RTC_RT_SAFE const char *rtc_record_column_unit(const rtc_record *rec, size_t i);

/**
 * The value of column @p i in a row filled by rtc_record_sample(), as a double (booleans
 * 0/1, integers converted). Returns false for strings, binaries and out-of-range @p i.
 * RT-safe: yes.
 */
RTC_RT_SAFE bool rtc_record_column_double(const rtc_record *rec, const void *row, size_t i,
                                          double *out);

/** Format one row: time @p t_ns, then every column of @p row. RT-safe: no. */
void rtc_record_write_row(const rtc_record *rec, rtc_csv *csv, int64_t t_ns, const void *row);

#endif
