/* Tallies: what the rings gave, per event and per instruction, summed into a point's figures. */
#include "experiments/point_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* x86-64 and arm64 kernels live in the upper half of the address space. */
#define KERNEL_HALF 0x8000000000000000ull

static void log_skid(struct pb_point_skid_log *l, uint64_t count, uint64_t period)
{
	l->ordinal++;
	if (count / period != l->ordinal)
		l->out_of_step++;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		uint64_t *v = realloc(l->values, cap * sizeof *v);
		if (!v)
			return; /* the figures then cover fewer samples, and say how many */
		l->values = v;
		l->cap = cap;
	}
	l->values[l->n++] = count % period;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Median (the lower one of an even count: a figure some sample really had) and max. */
static void sum_skid(const struct pb_point_tally *t, unsigned threads, struct pb_skid *out)
{
	memset(out, 0, sizeof *out);
	if (!t->skid)
		return;
	out->measured = true;
	size_t n = 0;
	for (unsigned th = 0; th < threads; th++) {
		n += t->skid[th].n;
		out->out_of_step += t->skid[th].out_of_step;
	}
	out->samples = n;
	if (!n)
		return;
	uint64_t *all = malloc(n * sizeof *all);
	if (!all) {
		out->measured = false;
		return;
	}
	size_t k = 0;
	for (unsigned th = 0; th < threads; th++) {
		memcpy(all + k, t->skid[th].values, t->skid[th].n * sizeof *all);
		k += t->skid[th].n;
	}
	qsort(all, n, sizeof *all, compare_u64);
	out->median = all[(n - 1) / 2];
	out->max = all[n - 1];
	free(all);
}

void pb_point_tally_free_skid(struct pb_point_tally *t, unsigned threads)
{
	for (unsigned th = 0; t->skid && th < threads; th++)
		free(t->skid[th].values);
	free(t->skid);
	t->skid = NULL;
}

void pb_point_tally_record(void *ctx, unsigned thread, unsigned event,
			   const struct pb_record *rec)
{
	struct pb_point_tally *t = ctx;
	if (event == 0 && t->req && t->req->on_event0_record && t->pt->session)
		t->req->on_event0_record(t->req->event0_record_ctx,
				  &t->pt->session->thread[thread].events[0].attr, rec);
	if (rec->type != PERF_RECORD_SAMPLE || event >= t->nevents)
		return;
	const struct pb_sample *s = &rec->u.sample;
	const struct pb_spec *spec = t->spec[event];
	pb_spec_own_tally_sample(t->machine, spec, s, t->pt->ev[event].own);
	if (pb_spec_has_subset(spec)) {
		if (!pb_spec_sample_in_subset(t->machine, spec, s))
			return;
		t->subset_samples[event]++;
	}
	if (event == 0 && t->skid && (s->sample_type & PERF_SAMPLE_READ) && s->read.nr >= 1)
		log_skid(&t->skid[thread], s->read.values[0].value, t->skid_period);
	unsigned mode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool kernel_flag = mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;
	bool kernel_ip = s->ip >= KERNEL_HALF;
	if (kernel_flag)
		t->kernel[event]++;
	else
		t->user[event]++;
	if (kernel_ip)
		t->kernel_ip[event]++;
	/* the flag and the IP can disagree (an arm64 guest writes kernel IPs into user-mode
	 * records): either one at an excluded level makes the sample misattributed */
	if ((t->exclude_kernel && (kernel_flag || kernel_ip)) ||
	    (t->exclude_user && (!kernel_flag || !kernel_ip)))
		t->wrong_level[event]++;
	struct pb_point *pt = t->pt;
	if (event != 0 || !pt->insn_samples)
		return;
	long at = pb_code_map_at(&pt->code, s->ip);
	long before = pb_code_map_before(&pt->code, s->ip);
	if (at >= 0)
		pt->insn_samples[at]++;
	if (before >= 0)
		pt->insn_samples_before[before]++;
	if (at < 0 && before < 0)
		pt->outside_samples++;
}


/* A counter that read 0 while it was on the PMU the whole time cannot be right when the
 * workload declares its events, or when an identical event of the same run counted them:
 * the events were lost without a word from the kernel. */
static void mark_silent_zeros(const struct pb_point_request *req, struct pb_point *pt)
{
	for (unsigned e = 0; e < req->nevents; e++) {
		struct pb_point_figures *f = &pt->ev[e];
		if (!f->opened_all || f->count || !f->time_enabled ||
		    f->time_running != f->time_enabled)
			continue;
		bool due = f->declared > 0 && f->seen_share > 0 && strcmp(f->basis, "undeclared");
		for (unsigned o = 0; o < req->nevents && !due; o++)
			due = o != e && pt->ev[o].count > 0 &&
			      !strcmp(req->events[o].spec.text, req->events[e].spec.text);
		if (!due)
			continue;
		f->silent_zero = true;
		f->accuracy = NAN;
	}
}

/* The declared truth counts what the workload's user code does, and kernel-level events only
 * where the facility says its spec needs that level to see them (faults inside a system call).
 * A run that leaves out the user level, or samples a kernel level the declaration does not
 * cover though it could leave it out, has no declared truth: NULL, else why not. */
static const char *level_without_truth(const struct pb_point_request *req,
				       const struct pb_spec *spec, const struct pb_truth *truth)
{
	bool kernel_declared = pb_spec_needs_kernel_level(spec, truth);
	if (req->exclude_user && !kernel_declared)
		return "the workload declares user-level events only and this run left the user "
		       "level out: the kernel level has no declared truth, so no accuracy";
	if (!req->exclude_kernel && pb_spec_can_exclude(spec) && !kernel_declared)
		return "the workload declares user-level events only and this run sampled the "
		       "kernel level too: its events there have no declared truth, so no accuracy";
	return NULL;
}

double pb_point_seen_share(const struct pb_point_request *req, const struct pb_spec *spec,
			   const struct pb_truth *truth)
{
	if (!pb_spec_can_exclude(spec))
		return 1;
	double user = pb_spec_user_level_share(spec, truth);
	return req->exclude_kernel ? user : req->exclude_user ? 1 - user : 1;
}

void pb_point_sum_figures(const struct pb_point_request *req, struct pb_point *pt,
			  const struct pb_point_tally *t, bool run_failed)
{
	const struct pb_session_result *sr = pt->session;
	for (unsigned e = 0; e < req->nevents; e++) {
		struct pb_point_figures *f = &pt->ev[e];
		const struct pb_spec *spec = &req->events[e].spec;
		f->basis = pb_declared_events(spec, &pt->instance.truth, pt->label, req->iterations,
					      &f->declared);
		const char *no_truth = !strcmp(f->basis, "declared")
					       ? level_without_truth(req, spec, &pt->instance.truth)
					       : NULL;
		if (no_truth) {
			f->basis = "undeclared";
			f->declared = 0;
			snprintf(f->withheld, sizeof f->withheld, "%s", no_truth);
		}
		f->seen_share = strcmp(f->basis, "declared")
					? 1
					: pb_point_seen_share(req, spec, &pt->instance.truth);
		f->opened_all = true;
		f->precise_requested = pb_spec_precise_requested(spec);
		f->precise_granted = -1;
		for (unsigned th = 0; th < sr->threads; th++) {
			const struct pb_event_result *er = &sr->thread[th].events[e];
			if (er->opened && f->precise_granted < 0)
				f->precise_granted = (int)er->attr.precise_ip;
			if (!er->opened) {
				f->opened_all = false;
				snprintf(f->open_error, sizeof f->open_error, "%s", er->open_error);
				continue;
			}
			f->observed += er->samples;
			pb_spec_own_tally_thread(spec, er->samples, &er->ring, f->own);
			f->aux_truncated += er->ring.aux_truncated;
			f->aux_collision += er->ring.aux_collision;
			f->count += er->count;
			uint64_t filtered =
				pb_spec_filters_in_software(spec) ? er->ring.lost_samples : 0;
			f->filtered += filtered;
			f->lost += pb_event_lost(er) - filtered;
			f->dropped += er->ring.parse_errors;
			f->lost_format += er->lost_format;
			f->lost_records += er->ring.lost;
			f->lost_samples += er->ring.lost_samples;
			f->throttles += er->ring.throttles;
			f->unthrottles += er->ring.unthrottles;
			f->time_enabled += er->time_enabled;
			f->time_running += er->time_running;
			f->signals += er->signals;
			f->signals_wrong_thread += er->signals_wrong_thread;
			f->ring_pages = er->ring_pages;
			uint64_t period = req->events[e].period;
			if (!period || !strcmp(f->basis, "undeclared"))
				continue;
			f->expected += pb_point_expected_samples(
				f->basis, pb_spec_has_subset(spec), spec->facility->ticks_from_enable,
				f->declared, er->count, period);
		}
		/* A subset's samples are the op samples whose registers say they belong to it:
		 * expected (declared subset events / period) is compared with those. */
		if (pb_spec_has_subset(spec))
			f->observed = t->subset_samples[e];
		if (spec->facility->time_based && f->expected > (double)(f->observed + f->lost))
			f->missed = (uint64_t)llround(f->expected - (double)(f->observed + f->lost));
		if (e == 0)
			sum_skid(t, sr->threads, &f->skid);
		f->user_samples = t->user[e];
		f->kernel_samples = t->kernel[e];
		f->kernel_ip_samples = t->kernel_ip[e];
		f->wrong_level_samples = t->wrong_level[e];
		/* An event that did not open on every thread has no accuracy. */
		f->no_samples = f->opened_all && req->events[e].period &&
				f->expected * f->seen_share >= 1 && !f->observed;
		f->accuracy = pb_point_accuracy(f, req->events[e].period, sr->threads, run_failed);
		f->signed_error = pb_point_signed_error(f, req->events[e].period, sr->threads);
	}
	mark_silent_zeros(req, pt);
}
