#include "facilities/facility.h"

#include <stdio.h>
#include <string.h>

static const struct pb_facility *const facilities[] = {
	&pb_facility_timer,  &pb_facility_sw,       &pb_facility_bp,
	&pb_facility_uprobe, &pb_facility_hw,       &pb_facility_pebs,
	&pb_facility_ibs_op, &pb_facility_ibs_fetch, &pb_facility_spe,
	NULL,
};

const struct pb_facility *const *pb_facility_list(void)
{
	return facilities;
}

const struct pb_facility *pb_facility_find(const char *name)
{
	for (const struct pb_facility *const *f = facilities; *f; f++)
		if (!strcmp((*f)->name, name))
			return *f;
	return NULL;
}

int pb_spec_parse(const char *text, struct pb_spec *spec, struct pb_error *err)
{
	memset(spec, 0, sizeof *spec);
	spec->precise = -1;
	if (!text || !*text)
		return pb_fail(err, PB_EXIT_USAGE, 0, "empty facility spec; `pesbench probe` lists them");
	if (strlen(text) >= sizeof spec->text)
		return pb_fail(err, PB_EXIT_USAGE, 0, "facility spec '%.40s...' is too long (max %zu)",
			       text, sizeof spec->text - 1);
	strcpy(spec->text, text);

	char name[64];
	const char *colon = strchr(text, ':');
	size_t len = colon ? (size_t)(colon - text) : strlen(text);
	if (len >= sizeof name)
		len = sizeof name - 1;
	memcpy(name, text, len);
	name[len] = '\0';

	spec->facility = pb_facility_find(name);
	if (!spec->facility) {
		char known[512] = "";
		for (const struct pb_facility *const *f = facilities; *f; f++) {
			strncat(known, (*f)->usage, sizeof known - strlen(known) - 3);
			if (f[1])
				strncat(known, ", ", sizeof known - strlen(known) - 1);
		}
		return pb_fail(err, PB_EXIT_USAGE, 0, "unknown facility '%s' in '%s'; known: %s", name,
			       text, known);
	}
	const char *args = colon && colon[1] ? colon + 1 : NULL;
	return spec->facility->parse(spec, args, err);
}

const char *pb_ip_kind_name(enum pb_ip_kind kind)
{
	switch (kind) {
	case PB_IP_EXACT: return "exact";
	case PB_IP_NEXT: return "next-insn";
	case PB_IP_SKID: return "skid";
	}
	return "?";
}
