/* Measuring a point: build the instance, open the session, run it, sum the figures. */
#include "experiments/point_parts.h"

#include <stdlib.h>
#include <string.h>

struct record_tee {
	struct pb_point_tally *tally;
	const struct pb_point_request *req;
};

static void tee_record(void *ctx, unsigned thread, unsigned event, const struct pb_record *rec)
{
	struct record_tee *t = ctx;
	pb_point_tally_record(t->tally, thread, event, rec);
	t->req->on_record(t->req->record_ctx, thread, event, rec);
}

int pb_point_measure(const struct pb_point_request *req, struct pb_point *pt,
		     struct pb_error *err)
{
	memset(pt, 0, sizeof *pt);
	pt->label = -1;
	/* the suite's experiments set a point's delivery after its request (overhead, cost,
	 * buffer): the facility is judged here with the delivery it is measured with */
	if (pb_point_refuse_untrusted_delivery(req, err))
		return -1;
	if (pb_instance_init(&pt->instance, &req->workload, req->iterations, req->threads, err))
		return -1;
	/* Only facilities that sit on an instruction need a label. */
	bool needs_label = req->label[0] != 0;
	for (unsigned e = 0; e < req->nevents; e++) {
		const struct pb_spec *s = &req->events[e].spec;
		needs_label |= pb_spec_sits_on_instruction(s);
	}
	int label = needs_label ? pb_point_find_label(&pt->instance.truth, req->label, err) : -1;
	if (label == -2)
		goto fail;
	pt->label = label;
	pt->instance.code_label = label;

	if (req->no_perf) {
		if (pb_runner_run(&pt->instance, &pt->runner, err))
			goto fail;
		pt->wall_ns = pt->runner.wall_ns;
		memcpy(pt->elapsed_ns, pt->runner.elapsed_ns, sizeof pt->elapsed_ns);
		memcpy(pt->cpu_ns, pt->runner.cpu_ns, sizeof pt->cpu_ns);
		for (unsigned th = 0; th < pt->runner.threads; th++)
			pt->unpinned_threads += !pt->runner.pinned[th];
		return 0;
	}

	if (req->attribute) {
		const struct pb_truth *tr = &pt->instance.truth;
		if (pb_code_map_build(&pt->code, tr->code_begin, tr->code_end, err))
			goto fail;
		for (unsigned l = 0; l < tr->nlabels; l++)
			pb_code_map_label(&pt->code, tr->labels[l].addr, (int)l);
		pt->insn_samples = calloc(pt->code.n, sizeof *pt->insn_samples);
		pt->insn_samples_before = calloc(pt->code.n, sizeof *pt->insn_samples_before);
		if (!pt->insn_samples || !pt->insn_samples_before) {
			pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
			goto fail;
		}
	}

	struct pb_session_config cfg = {
		.nevents = req->nevents,
		.delivery = req->delivery,
		.machine = req->machine,
		.ring_pages = req->ring_pages,
		.run_with_unopened = req->run_with_unopened,
	};
	uint64_t most_expected = 0;
	for (unsigned e = 0; e < req->nevents; e++) {
		cfg.events[e].spec = req->events[e].spec;
		cfg.events[e].period = req->events[e].period;
		cfg.events[e].exclude_kernel = req->exclude_kernel;
		cfg.events[e].exclude_user = req->exclude_user;
		cfg.events[e].optional = req->events[e].optional;
		uint64_t declared;
		/* The ring holds every op sample, not only a subset's. */
		struct pb_spec all_ops = req->events[e].spec;
		pb_spec_drop_subset(&all_ops);
		pb_declared_events(&all_ops, &pt->instance.truth, label, req->iterations, &declared);
		if (req->events[e].period && declared / req->events[e].period > most_expected)
			most_expected = declared / req->events[e].period;
	}
	cfg.expected_samples = most_expected;
	pb_instance_session(&pt->instance, &cfg);
	struct pb_point_tally tally = {.pt = pt, .nevents = req->nevents, .req = req,
				       .exclude_kernel = req->exclude_kernel,
				       .exclude_user = req->exclude_user};
	if (req->measure_skid && req->nevents && req->events[0].period &&
	    req->events[0].spec.facility->skid_in_sample_count) {
		tally.skid = calloc(req->threads, sizeof *tally.skid);
		if (!tally.skid) {
			pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
			goto fail;
		}
		tally.skid_period = req->events[0].period;
		cfg.events[0].extra_sample_type |= PERF_SAMPLE_READ;
	}
	for (unsigned e = 0; e < req->nevents; e++)
		tally.spec[e] = &req->events[e].spec;
	tally.machine = req->machine ? req->machine : pb_machine_live();
	cfg.on_record = pb_point_tally_record;
	cfg.record_ctx = &tally;
	struct record_tee tee = {.tally = &tally, .req = req};
	if (req->on_record) {
		cfg.on_record = tee_record;
		cfg.record_ctx = &tee;
	}

	pt->session = calloc(1, sizeof *pt->session);
	if (!pt->session) {
		pb_point_tally_free_skid(&tally, req->threads);
		pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
		goto fail;
	}
	int rc = pb_session_run(&cfg, pt->session, err);
	if (rc && pt->instance.thread_err.msg[0] && err)
		*err = pt->instance.thread_err;
	/* Figures are summed even on failure: which events opened is part of the answer. */
	pb_point_sum_figures(req, pt, &tally, rc != 0);
	pb_point_tally_free_skid(&tally, req->threads);
	pt->wall_ns = pt->session->wall_ns;
	pt->signal_overflows = pt->session->signal_overflows;
	pt->collector_cpu_ns = pt->session->collector_cpu_ns;
	pt->collector_wakeups = pt->session->collector_wakeups;
	for (unsigned th = 0; th < pt->session->threads; th++) {
		pt->elapsed_ns[th] = pt->session->thread[th].elapsed_ns;
		pt->cpu_ns[th] = pt->session->thread[th].cpu_ns;
		pt->unpinned_threads += !pt->session->thread[th].pinned;
	}
	if (rc)
		goto fail;
	return 0;
fail:
	pb_point_free(pt);
	return -1;
}

void pb_point_free(struct pb_point *pt)
{
	pb_instance_free(&pt->instance);
	free(pt->session);
	pt->session = NULL;
	pb_code_map_free(&pt->code);
	free(pt->insn_samples);
	free(pt->insn_samples_before);
	pt->insn_samples = pt->insn_samples_before = NULL;
}
