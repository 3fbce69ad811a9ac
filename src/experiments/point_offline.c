/* A point summed from records read back (a capture bundle) rather than from rings: the same
 * tallies and sums as pb_point_measure, so a replay recomputes what the capture computed. */
#include "experiments/point_parts.h"

#include <stdlib.h>
#include <string.h>

struct pb_point_offline {
	const struct pb_point_request *req;
	struct pb_point *pt;
	struct pb_point_tally tally;
};

struct pb_point_offline *pb_point_offline_start(const struct pb_point_request *req,
						struct pb_point *pt,
						const struct pb_machine *machine,
						struct pb_error *err)
{
	struct pb_point_offline *o = calloc(1, sizeof *o);
	if (!o || !pt->session) {
		free(o);
		pb_fail(err, PB_EXIT_FAILURE, 0, o ? "a replayed point needs its session" :
						     "out of memory");
		return NULL;
	}
	o->req = req;
	o->pt = pt;
	o->tally.pt = pt;
	o->tally.nevents = req->nevents;
	o->tally.machine = machine;
	for (unsigned e = 0; e < req->nevents; e++)
		o->tally.spec[e] = &req->events[e].spec;
	if (pt->code.n && (!pt->insn_samples || !pt->insn_samples_before)) {
		pt->insn_samples = calloc(pt->code.n, sizeof *pt->insn_samples);
		pt->insn_samples_before = calloc(pt->code.n, sizeof *pt->insn_samples_before);
		if (!pt->insn_samples || !pt->insn_samples_before) {
			free(o);
			pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
			return NULL;
		}
	}
	for (unsigned th = 0; th < pt->session->threads; th++)
		for (unsigned e = 0; e < req->nevents; e++) {
			struct pb_event_result *er = &pt->session->thread[th].events[e];
			memset(&er->ring, 0, sizeof er->ring);
			er->samples = 0;
		}
	return o;
}

void pb_point_offline_record(struct pb_point_offline *o, unsigned thread, unsigned event,
			     const struct pb_record *rec)
{
	struct pb_session_result *sr = o->pt->session;
	if (thread >= sr->threads || event >= o->req->nevents)
		return;
	struct pb_event_result *er = &sr->thread[thread].events[event];
	er->ring.records++;
	er->ring.bytes += rec->size;
	pb_ring_account(rec, &er->ring);
	if (rec->type == PERF_RECORD_SAMPLE)
		er->samples++;
	pb_point_tally_record(&o->tally, thread, event, rec);
}

void pb_point_offline_finish(struct pb_point_offline *o, bool run_failed)
{
	pb_point_sum_figures(o->req, o->pt, &o->tally, run_failed);
	free(o);
}
