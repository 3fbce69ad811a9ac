/* Facility traits of a point, written by the build that measured it; the registry only as the
 * fallback for points without them (result_traits.h). */
#include "io/result_traits.h"

#include "facilities/facility.h"
#include "facilities/canonical_spec.h"
#include "util/text.h"

#include <string.h>

void pb_result_traits_set(struct pb_rset *traits, const struct pb_facility *f, const char *spec,
			  const char *ip)
{
	pb_rset_clear(traits);
	if (!f)
		return;
	pb_rset_text(traits, "period_unit", pb_facility_period_unit(f));
	pb_rset_text(traits, "family", f->precise_family ? "precise" : f->name);
	pb_rset_bool(traits, "exact", f->exact);
	if (ip)
		pb_rset_text(traits, "ip", ip);
	if (spec)
		pb_rset_text(traits, "spec", spec);
}

/* A facility whose IP relation depends on the spec (ip_kind_of: a precise level the kernel
 * granted) has no relation of its own to fall back on. */
static void fallback(const char *facility, struct pb_rset *out)
{
	const struct pb_facility *f = facility ? pb_facility_of(facility) : NULL;
	char spec[256];
	if (f)
		pb_spec_text_canonical(facility, spec, sizeof spec);
	pb_result_traits_set(out, f, f ? spec : NULL,
			     f && !f->ip_kind_of ? pb_ip_kind_name(f->ip_kind) : NULL);
}

const struct pb_rset *pb_result_traits(const struct pb_result_point *p, struct pb_rset *scratch)
{
	if (p->traits.n)
		return &p->traits;
	fallback(p->facility, scratch);
	return scratch;
}

void pb_result_spec(const struct pb_result_point *p, char *buf, size_t len)
{
	struct pb_rset scratch = {0};
	const char *spec = pb_rset_get_text(pb_result_traits(p, &scratch), "spec");
	/* a point measured under another spec than it names (bias: the facility's spread spec)
	 * has traits without its own spec */
	if (!spec && !scratch.n) {
		fallback(p->facility, &scratch);
		spec = pb_rset_get_text(&scratch, "spec");
	}
	pb_format(buf, len, "%s", spec ? spec : p->facility);
	pb_rset_clear(&scratch);
}

bool pb_result_time_based(const struct pb_result_point *p)
{
	struct pb_rset scratch = {0};
	const char *unit = pb_rset_get_text(pb_result_traits(p, &scratch), "period_unit");
	bool ns = unit && !strcmp(unit, "ns");
	pb_rset_clear(&scratch);
	return ns;
}

static void family_of(const char *family, const char *facility, char *buf, size_t len)
{
	pb_format(buf, len, "%s", family && !strcmp(family, "precise") ? "precise" : facility);
}

void pb_result_family(const struct pb_result_point *p, char *buf, size_t len)
{
	struct pb_rset scratch = {0};
	family_of(pb_rset_get_text(pb_result_traits(p, &scratch), "family"), p->facility, buf, len);
	pb_rset_clear(&scratch);
}

void pb_figure_family(const json_t *rec, char *buf, size_t len)
{
	const char *facility = json_string_value(json_object_get(rec, "facility"));
	const json_t *kind = json_object_get(rec, "facility_kind");
	if (json_is_string(kind)) {
		pb_format(buf, len, "%s", json_string_value(kind));
		return;
	}
	struct pb_rset scratch = {0};
	fallback(facility, &scratch);
	family_of(pb_rset_get_text(&scratch, "family"), facility ? facility : "", buf, len);
	pb_rset_clear(&scratch);
}
