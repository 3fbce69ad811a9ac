/* Which workload, and which place in it, a point measures when the caller does not say. */
#include "experiments/point_parts.h"
#include "util/suggest.h"

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
			struct pb_suggest near;
			pb_suggest_init(&near, name);
			for (unsigned i = 0; i < truth->nlabels; i++)
				pb_suggest_consider(&near, truth->labels[i].name);
			pb_suggest_fail(err, &near, "", "label",
					"`pesbench workloads WORKLOAD`");
			return -2;
		}
		return l;
	}
	return pb_truth_default_label(truth);
}

