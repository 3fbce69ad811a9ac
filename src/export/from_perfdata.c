/* A perf.data's samples as a profile: each sample's call chain (or its IP alone) symbolised
 * frame by frame with the file's MMAP/MMAP2 records current at the sample's time and the
 * objects' symbols and lines (named after the walk, export/raw.h), values per event (samples
 * and period). Memory grows with distinct addresses and distinct stacks (per era of a process's
 * mappings), not with samples. */
#include "export/from_perfdata.h"
#include "export/raw.h"
#include "util/kit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct pb_xperf {
	struct pb_perfdata *pd;
	struct pb_xraw raw;
	struct pb_xset set;         /* the named profile, made by pb_xperf_finish */
	struct pb_symbolizer sym;
	size_t nevents;             /* events known at start: each has two values */
	uint64_t *values;           /* one sample's values */
	/* each such event's sample period, 0 by frequency: read per sample, where a call to
	 * pb_perfdata_event took 6 % of an export's time */
	uint64_t *periods;
	uint64_t late_samples;      /* of events a pipe-mode file announced after the start */
};

int pb_xperf_start(struct pb_perfdata *pd, const char *name, struct pb_xperf **out,
		   struct pb_error *err)
{
	size_t nev = pb_perfdata_nevents(pd);
	if (!nev)
		return pb_fail(err, PB_EXIT_BAD_FILE, 0, "the file has no event to export");
	if (2 * nev > PB_XVALUES_MAX)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "the file has %zu events; an export holds at most %d", nev,
			       PB_XVALUES_MAX / 2);
	struct pb_xperf *x = calloc(1, sizeof *x);
	struct pb_xvalue_type types[PB_XVALUES_MAX] = {0};
	if (!x || !(x->values = calloc(2 * nev, sizeof *x->values)) ||
	    !(x->periods = calloc(nev, sizeof *x->periods))) {
		if (x)
			free(x->values);
		free(x);
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < nev; i++) {
		const struct pb_perfdata_event *ev = pb_perfdata_event(pd, i);
		const char *n = nev == 1 ? "" : ev->name;
		snprintf(types[2 * i].type, sizeof types[0].type, "%s%ssamples", n, nev == 1 ? "" : ":");
		snprintf(types[2 * i].unit, sizeof types[0].unit, "count");
		types[2 * i].primary = true;
		snprintf(types[2 * i + 1].type, sizeof types[0].type, "%s", ev->name);
		snprintf(types[2 * i + 1].unit, sizeof types[0].unit, "events");
		x->periods[i] = ev->attr.freq ? 0 : ev->attr.sample_period;
	}
	x->pd = pd;
	x->nevents = nev;
	if (pb_xraw_init(&x->raw, name, types, 2 * nev) ||
	    pb_xset_add_profile(&x->set, name, types, 2 * nev) < 0) {
		pb_xperf_free(x);
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
	}
	const struct pb_perfdata_event *ev0 = pb_perfdata_event(pd, 0);
	if (nev == 1 && !ev0->attr.freq) {
		x->set.profiles[0].period = (int64_t)ev0->attr.sample_period;
		x->set.profiles[0].period_type = 1;
	}
	*out = x;
	return 0;
}

void pb_xperf_no_source(struct pb_xperf *x)
{
	x->set.no_source = true;
}

static int sample(struct pb_xperf *x, int event, uint32_t pid, uint64_t ip, uint64_t time,
		  uint64_t period, const uint64_t *chain, uint64_t nchain, struct pb_error *err)
{
	if (event < 0)
		return 0;
	if ((size_t)event >= x->nevents) {
		x->late_samples++;
		return 0;
	}
	x->values[2 * (size_t)event] = 1;
	x->values[2 * (size_t)event + 1] = period;
	const struct pb_xraw_when when = {.time = time,
					  .era = pb_symbolizer_era(&x->sym, pid, time)};
	int rc = pb_xraw_add_at(&x->raw, pid, ip, when, chain, nchain, x->values);
	x->values[2 * (size_t)event] = 0;
	x->values[2 * (size_t)event + 1] = 0;
	return rc ? pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for the stacks") : 0;
}

static uint64_t fixed_period(const struct pb_xperf *x, int event)
{
	return event < 0 || (size_t)event >= x->nevents ? 0 : x->periods[event];
}

int pb_xperf_record(struct pb_xperf *x, int event, const struct pb_record *rec,
		    struct pb_error *err)
{
	if (rec->type != PERF_RECORD_SAMPLE)
		return pb_symbolizer_take(&x->sym, rec)
			       ? pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for the mappings")
			       : 0;
	const struct pb_sample *s = &rec->u.sample;
	uint64_t period = (s->sample_type & PERF_SAMPLE_PERIOD) ? s->period
								  : fixed_period(x, event);
	uint64_t time = (s->sample_type & PERF_SAMPLE_TIME) ? s->time : PB_SYM_TIME_UNKNOWN;
	return sample(x, event, s->pid, s->ip, time, period,
		      (s->sample_type & PERF_SAMPLE_CALLCHAIN) ? s->callchain : NULL,
		      (s->sample_type & PERF_SAMPLE_CALLCHAIN) ? s->callchain_nr : 0, err);
}

/* The sink's "no time" is the symbolizer's, so a time passes on as it is. */
_Static_assert(PB_PERFDATA_NO_TIME == PB_SYM_TIME_UNKNOWN, "a sample without a time");

int pb_xperf_sample_ip(struct pb_xperf *x, int event, uint64_t ip, uint32_t pid, uint64_t time,
		       struct pb_error *err)
{
	return sample(x, event, pid, ip, time, fixed_period(x, event), NULL, 0, err);
}

struct pb_xset *pb_xperf_finish(struct pb_xperf *x, const struct pb_perfdata_stats *st,
				struct pb_error *err)
{
	struct pb_perfdata *pd = x->pd;
	pb_symbolizer_recorded_on(&x->sym, pd);
	if (pb_symbolizer_settle(&x->sym) || pb_xraw_name(&x->raw, &x->sym, &x->set, 0)) {
		pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory naming the frames");
		return NULL;
	}
	int rc = pb_xprofile_comment(&x->set, 0, "converted by pesbench from a perf.data recorded "
				     "by perf %s on %s (%s)",
				     pb_perfdata_perf_version(pd)[0] ? pb_perfdata_perf_version(pd) : "?",
				     pb_perfdata_hostname(pd)[0] ? pb_perfdata_hostname(pd) : "?",
				     pb_perfdata_arch(pd)[0] ? pb_perfdata_arch(pd) : "?");
	for (size_t i = 0; i < x->nevents && !rc; i++) {
		const struct pb_perfdata_event *ev = pb_perfdata_event(pd, i);
		rc = pb_xprofile_comment(&x->set, 0,
					 "event %zu %s: %" PRIu64 " samples, %" PRIu64
					 " lost (PERF_RECORD_LOST), %" PRIu64
					 " lost samples (PERF_RECORD_LOST_SAMPLES), %" PRIu64
					 " throttles",
					 i, ev->name, ev->samples, ev->lost, ev->lost_samples,
					 ev->throttles);
	}
	if (!rc && st && st->unattributed)
		rc = pb_xprofile_comment(&x->set, 0,
					 "%" PRIu64 " samples name no event of the file: left out",
					 st->unattributed);
	if (!rc && x->late_samples)
		rc = pb_xprofile_comment(&x->set, 0,
					 "%" PRIu64 " samples of events announced after the first "
					 "sample (pipe mode): left out",
					 x->late_samples);
	if (!rc && x->raw.cut_chains)
		rc = pb_xprofile_comment(&x->set, 0,
					 "%" PRIu64 " call chains deeper than %d frames: their "
					 "outermost callers cut",
					 x->raw.cut_chains, PB_XRAW_MAX_DEPTH);
	/* how its kernel frames are named, when it has any */
	if (!rc && x->sym.kernel.state)
		rc = pb_xprofile_comment(&x->set, 0, "%s", x->sym.kernel.note);
	if (rc) {
		pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
		return NULL;
	}
	return &x->set;
}

void pb_xperf_free(struct pb_xperf *x)
{
	if (!x)
		return;
	pb_xset_free(&x->set);
	pb_xraw_free(&x->raw);
	pb_symbolizer_free(&x->sym);
	free(x->values);
	free(x->periods);
	free(x);
}
