/* User/kernel identification (main study, IV-G): a loop whose user code is free of the event
 * alternates with system calls whose kernel path produces it. Each facility samples it three
 * times — user level only, kernel level only, both — and every sample is checked two ways: by
 * the privilege level the kernel wrote in the record, and by whether its IP lies in the kernel
 * half of the address space. A sample of an excluded level is a misattribution. */
#include "experiments/experiment.h"
#include "experiments/suite_defaults.h"
#include "util/kit.h"
#include "util/text.h"

#include <string.h>

static const struct {
	const char *name;
	bool exclude_kernel, exclude_user;
} levels[] = {
	{"user", true, false},
	{"kernel", false, true},
	{"both", false, false},
};
#define NLEVELS (PB_ARRAY_SIZE(levels))

static const char *mode_workload(const struct pb_spec *spec, const char **why)
{
	return pb_spec_workload(spec, PB_ROLE_LEVELS, why);
}

static unsigned mode_count_runs(const struct pb_suite_options *o, const struct pb_spec *spec)
{
	const char *why;
	return mode_workload(spec, &why) ? NLEVELS * o->runs : 0;
}

static int mode_run(const struct pb_suite_options *o, const struct pb_spec *facility,
		    struct pb_results *res, struct pb_error *err)
{
	const char *why = NULL;
	const char *workload = mode_workload(facility, &why);
	if (!workload) {
		pb_not_applicable(res, "mode", facility->text, why);
		return 0;
	}
	const struct pb_spec spec = *facility;
	uint64_t period = o->nperiods ? o->periods[0]
				      : spec.facility->exact ? 1 : pb_suite_accuracy_period(&spec);
	struct pb_point_request req;
	if (pb_suite_request(&req, &spec, workload, period, 1, o->delivery, err))
		return -1;
	if (pb_calibrate_request(o, &req, err))
		return -1;
	for (size_t l = 0; l < NLEVELS; l++) {
		req.exclude_kernel = levels[l].exclude_kernel;
		req.exclude_user = levels[l].exclude_user;
		struct pb_result_point *point = pb_measure_runs(o, "mode", &req, res, err);
		if (!point)
			return -1;
		pb_rset_text(&point->params, "levels", levels[l].name);
		/* a level the workload takes its events at, left out: the 0 % kept there is right */
		struct pb_truth truth;
		double seen = 1;
		if (!pb_workload_truth(&req.workload, 1, &truth, NULL))
			seen = pb_point_seen_share(&req, &spec, &truth);
		if (seen < 1) {
			char note[200];
			pb_format(note, sizeof note, "%.0f %% of the workload's declared events happen "
				  "at the level this run leaves out, so at most %.0f %% can be kept",
				  100 * (1 - seen), 100 * seen);
			pb_rset_text(&point->params, "note", note);
		}
		/* wrong level by record flag and by IP, summed over runs */
		uint64_t wrong_flag = 0, wrong_ip = 0, total = 0;
		for (size_t r = 0; r < pb_rlist_size(&point->runs); r++) {
			const struct pb_rset *run = pb_rlist_set_at(&point->runs, r);
			const struct pb_rset *ev = pb_rlist_set_at(pb_rset_get_list(run, "events"), 0);
			uint64_t user = (uint64_t)pb_rset_get_int(ev, "user_samples");
			uint64_t kern = (uint64_t)pb_rset_get_int(ev, "kernel_samples");
			uint64_t kip = (uint64_t)pb_rset_get_int(ev, "kernel_ip_samples");
			total += user + kern;
			if (levels[l].exclude_kernel) {
				wrong_flag += kern;
				wrong_ip += kip;
			}
			if (levels[l].exclude_user) {
				wrong_flag += user;
				wrong_ip += user + kern - kip;
			}
		}
		struct pb_rset *m = &point->metrics;
		pb_rset_int(m, "samples_total", PB_UNIT_SAMPLES, (int64_t)total);
		pb_rset_int(m, "wrong_level_by_flag", PB_UNIT_SAMPLES, (int64_t)wrong_flag);
		pb_rset_int(m, "wrong_level_by_ip", PB_UNIT_SAMPLES, (int64_t)wrong_ip);
	}
	return 0;
}

const struct pb_experiment pb_experiment_mode = {
	.name = "mode",
	.summary = "samples on the wrong privilege level, by record flag and by IP range",
	.run = mode_run,
	.count_runs = mode_count_runs,
};
