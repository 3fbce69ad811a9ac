/* Point requests: what a caller asks for (a parsed facility spec, workload, label, period)
 * checked and turned into a request the measuring code can run. */
#include "experiments/point.h"

#include <string.h>

void pb_point_request_defaults(struct pb_point_request *req)
{
	memset(req, 0, sizeof *req);
	req->iterations = 100000;
	req->threads = 1;
	req->delivery = PB_DELIVERY_NONE;
	req->exclude_kernel = true;
}

int pb_point_request_set_period(struct pb_point_request *req, uint64_t period,
				struct pb_error *err)
{
	if (req->no_perf || !req->nevents)
		return 0;
	if (pb_spec_check_period(&req->events[0].spec, period, "--period", err))
		return -1;
	req->events[0].period = period;
	return 0;
}

int pb_point_request_set(struct pb_point_request *req, const struct pb_spec *spec,
			 const char *workload, const char *label, const uint64_t *period,
			 struct pb_error *err)
{
	req->no_perf = !spec;
	req->nevents = req->no_perf ? 0 : 1;
	if (!req->no_perf) {
		req->events[0].spec = *spec;
		const struct pb_facility *f = spec->facility;
		if (pb_point_request_set_period(req, period ? *period : f->default_period, err))
			return -1;
		/* A facility that cannot leave out a level here (pb_spec_can_exclude false)
		 * samples every level. */
		const struct pb_spec *s = &req->events[0].spec;
		if (!pb_spec_can_exclude(s))
			req->exclude_kernel = false;
		if (f->samples_every_level &&
		    pb_machine_may_sample_kernel(req->machine ? req->machine : pb_machine_live()))
			req->exclude_kernel = false;
	}
	const char *w = workload ? workload
				 : pb_natural_workload(req->no_perf ? NULL : &req->events[0].spec);
	if (pb_workload_parse(w, &req->workload, err))
		return -1;
	/* Some events of a workload happen only in kernel mode (faults taken inside a system
	 * call): the facility says whether its spec must sample that level to see them. */
	struct pb_truth truth;
	if (!req->no_perf && !pb_workload_truth(&req->workload, 1, &truth, NULL) &&
	    pb_spec_needs_kernel_level(&req->events[0].spec, &truth))
		req->exclude_kernel = false;
	if (label) {
		if (strlen(label) >= sizeof req->label)
			return pb_fail(err, PB_EXIT_USAGE, 0, "--label '%s' is too long", label);
		strcpy(req->label, label);
	}
	if (pb_session_check_ring_pages(req->ring_pages, err))
		return -1;
	/* Last: a bad request is a usage error whatever the facility's state. The self-test
	 * delivers signals where the request does (known here when the caller set delivery
	 * first, as measure does). */
	return pb_point_refuse_untrusted_delivery(req, err);
}

int pb_point_refuse_untrusted_delivery(const struct pb_point_request *req, struct pb_error *err)
{
	if (req->no_perf)
		return 0;
	struct pb_spec judged = req->events[0].spec;
	judged.signal_per_sample = req->delivery == PB_DELIVERY_SIGNAL ||
				   req->delivery == PB_DELIVERY_SIGTRAP;
	judged.sigtrap_per_sample = req->delivery == PB_DELIVERY_SIGTRAP;
	return pb_point_refuse_untrusted(&judged, req->machine, err);
}

int pb_point_refuse_untrusted(const struct pb_spec *spec, const struct pb_machine *machine,
			      struct pb_error *err)
{
	const struct pb_machine *m = machine ? machine : pb_machine_live();
	struct pb_availability av;
	struct pb_self_test test;
	pb_facility_check(m, spec, NULL, &av, &test);
	/* Absence is the facility's attr()'s to report (tests drive absent facilities through a
	 * fake kernel); a facility that ran its self-test here and failed measures nothing. */
	if (test.verdict == PB_VERDICT_INERT || test.verdict == PB_VERDICT_INEXACT ||
	    test.verdict == PB_VERDICT_REFUSED)
		return pb_fail(err, PB_EXIT_UNAVAILABLE, test.sys_errno, "%s: %s", spec->text,
			       av.reason);
	return 0;
}

