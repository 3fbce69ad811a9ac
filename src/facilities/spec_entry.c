/* Specs that reach pesbench by another door than the command line: the public API's text, a
 * spec a capture bundle recorded, and the oracles pesbench verify counts with. Each is parsed
 * here, in the facility layer, so the layers below the CLI take a parsed spec (issue 22: a spec
 * is parsed once, at the edge). */
#include "facilities/facility.h"

#include <string.h>

int pb_spec_text_availability(const struct pb_machine *m, const char *text, bool self_test,
			      struct pb_availability *av, struct pb_error *err)
{
	struct pb_spec spec;
	if (pb_spec_parse(text, &spec, err))
		return -1;
	/* A bare name asks about the facility as a whole, as `pesbench probe` does. */
	const struct pb_spec *s = strchr(text, ':') ? &spec : NULL;
	memset(av, 0, sizeof *av);
	if (self_test)
		pb_facility_check(m, s, spec.facility, av, NULL);
	else
		pb_facility_availability(m, spec.facility, s, av);
	return 0;
}

int pb_spec_of_recorded(const char *text, struct pb_spec *spec, struct pb_error *err)
{
	if (!pb_spec_parse(text, spec, err))
		return 0;
	if (err)
		err->code = PB_EXIT_BAD_FILE;
	return -1;
}

/* Each oracle is an event whose count the kernel keeps exactly for a user-level loop. */
static const char *const oracle_specs[PB_ORACLES] = {
	[PB_ORACLE_LABEL_HITS] = "uprobe",
	[PB_ORACLE_DATA_WRITES] = "bp:w",
	[PB_ORACLE_DATA_ACCESSES] = "bp:rw",
	[PB_ORACLE_PAGE_FAULTS] = "sw:page-faults",
	[PB_ORACLE_INSTRUCTIONS] = "hw:instructions",
};

int pb_oracle_spec(enum pb_oracle oracle, struct pb_spec *out, struct pb_error *err)
{
	if ((unsigned)oracle >= PB_ORACLES)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "no oracle %u", (unsigned)oracle);
	return pb_spec_parse(oracle_specs[oracle], out, err);
}
