/* Which workload, and which place in it, a point measures when the caller does not say. */
#include "experiments/point_parts.h"
#include "util/text.h"

#include <string.h>

const char *pb_natural_workload(const struct pb_spec *spec)
{
	return pb_spec_workload(spec, PB_ROLE_NATURAL, NULL);
}

int pb_point_find_label(const struct pb_truth *truth, const char *name, struct pb_error *err)
{
	if (name[0]) {
		int l = pb_truth_label(truth, name);
		if (l < 0) {
			char known[512] = "";
			for (unsigned i = 0; i < truth->nlabels; i++)
				pb_list_add(known, sizeof known, truth->labels[i].name);
			pb_fail(err, PB_EXIT_USAGE, 0, "no label '%s' in this workload; labels: %s",
				name, known);
			return -2;
		}
		return l;
	}
	return pb_truth_default_label(truth);
}

