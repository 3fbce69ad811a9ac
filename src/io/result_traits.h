/* Each point's facility traits, written into results.json beside the point's facility (its
 * "traits": period_unit "ns" or "events", family "precise" or the facility's name, exact, ip
 * "exact" / "next-insn" / "skid", and spec, its canonical spec), so that report, plots and
 * compare read what the build that measured the point knew, never the registry of the build
 * reading it.
 *
 * Fallback, for a point that carries no traits (a file written before traits existed, or a
 * document built in memory without them): the traits this build's registry gives the point's
 * facility name, as every reader did before; a name the registry does not know has none (its
 * period counts events, its family is its own). This file is the only reader that consults the
 * registry, and only then. */
#ifndef PB_RESULT_TRAITS_H
#define PB_RESULT_TRAITS_H

#include "io/result_model.h"

#include <jansson.h>
#include <stdbool.h>

struct pb_facility;

/* f's traits into traits; spec: the point's canonical spec (facilities/canonical_spec.h),
 * ip: where the measured spec's sample IPs land on the machine that ran it (pb_ip_kind_name);
 * either NULL when not known (that trait is then left out). */
void pb_result_traits_set(struct pb_rset *traits, const struct pb_facility *f, const char *spec,
			  const char *ip);
/* The traits results.json holds for p: its own, else the fallback (empty when the registry does
 * not know the facility either), into *scratch; the returned set lives as long as both. */
const struct pb_rset *pb_result_traits(const struct pb_result_point *p, struct pb_rset *scratch);
/* p's canonical spec ("timer" reads "timer:cpu-clock"), by which results of different versions
 * line up; from the registry as the fallback when its traits do not say. */
void pb_result_spec(const struct pb_result_point *p, char *buf, size_t len);
/* Whether p's period counts nanoseconds (a time-based facility) rather than events. */
bool pb_result_time_based(const struct pb_result_point *p);
/* "precise" for a facility of the precise family (compared across vendors), else its name
 * (the spec text when no trait says otherwise). */
void pb_result_family(const struct pb_result_point *p, char *buf, size_t len);
/* What compare matches a figure record (io/figures.h) on: its "facility_kind" ("precise" or
 * its facility), or for a record from before it was written, the registry's answer for its
 * facility. */
void pb_figure_family(const json_t *rec, char *buf, size_t len);

#endif
