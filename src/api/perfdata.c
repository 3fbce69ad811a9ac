/* The perf.data reader of the public API (include/pesbench/perfdata.h, the IBS part of ibs.h)
 * over perfdata/perfdata_read.c. */
#include "api/api.h"
#include "facilities/ibs_raw.h"
#include "perfdata/perfdata.h"

#include <pesbench/ibs.h>
#include <pesbench/perfdata.h>

#include <stdlib.h>
#include <string.h>

struct pesbench_perfdata {
	struct pb_perfdata *pd;
	struct pb_perfdata_stats stats;  /* of the last walk */
};

/* The reader's events are handed out as they are: the public type is never defined. */
static const struct pb_perfdata_event *event_of(const struct pesbench_perfdata_event *ev)
{
	return (const struct pb_perfdata_event *)ev;
}

static struct pesbench_perfdata *wrap(int rc, struct pb_perfdata *pd, const struct pb_error *e,
				      struct pesbench_error *err)
{
	if (rc) {
		pb_api_error(err, e);
		return NULL;
	}
	struct pesbench_perfdata *p = calloc(1, sizeof(*p));
	if (!p) {
		pb_perfdata_close(pd);
		pb_api_nomem(err, "a perf.data reader");
		return NULL;
	}
	p->pd = pd;
	return p;
}

struct pesbench_perfdata *pesbench_perfdata__open(const char *path, struct pesbench_error *err)
{
	struct pb_perfdata *pd = NULL;
	struct pb_error e;
	int rc = pb_perfdata_open(path, &pd, &e);
	return wrap(rc, pd, &e, err);
}

struct pesbench_perfdata *pesbench_perfdata__open_memory(const void *buf, size_t len,
							 struct pesbench_error *err)
{
	struct pb_perfdata *pd = NULL;
	struct pb_error e;
	int rc = pb_perfdata_open_memory(buf, len, &pd, &e);
	return wrap(rc, pd, &e, err);
}

void pesbench_perfdata__close(struct pesbench_perfdata *pd)
{
	if (!pd)
		return;
	pb_perfdata_close(pd->pd);
	free(pd);
}

size_t pesbench_perfdata__nr_events(const struct pesbench_perfdata *pd)
{
	return pb_perfdata_nevents(pd->pd);
}

struct pesbench_perfdata_event *pesbench_perfdata__event(struct pesbench_perfdata *pd, size_t index)
{
	return (struct pesbench_perfdata_event *)pb_perfdata_event(pd->pd, index);
}

const char *pesbench_perfdata_event__name(const struct pesbench_perfdata_event *ev)
{
	return event_of(ev)->name;
}

const struct perf_event_attr *pesbench_perfdata_event__attr(const struct pesbench_perfdata_event *ev)
{
	return &event_of(ev)->attr;
}

const struct pesbench_record_format *
pesbench_perfdata_event__format(const struct pesbench_perfdata_event *ev)
{
	return (const struct pesbench_record_format *)&event_of(ev)->fmt;
}

uint64_t pesbench_perfdata_event__nr_samples(const struct pesbench_perfdata_event *ev)
{
	return event_of(ev)->samples;
}

uint64_t pesbench_perfdata_event__nr_lost(const struct pesbench_perfdata_event *ev)
{
	return event_of(ev)->lost + event_of(ev)->lost_samples;
}

const char *pesbench_perfdata__hostname(const struct pesbench_perfdata *pd)
{
	return pb_perfdata_hostname(pd->pd);
}

const char *pesbench_perfdata__arch(const struct pesbench_perfdata *pd)
{
	return pb_perfdata_arch(pd->pd);
}

const char *pesbench_perfdata__cpuid(const struct pesbench_perfdata *pd)
{
	return pb_perfdata_cpuid(pd->pd);
}

const char *pesbench_perfdata__perf_version(const struct pesbench_perfdata *pd)
{
	return pb_perfdata_perf_version(pd->pd);
}

const char *pesbench_perfdata__pmu_name(const struct pesbench_perfdata *pd, uint32_t type)
{
	return pb_perfdata_pmu_name(pd->pd, type);
}

struct walk {
	pesbench_perfdata_fn fn;
	void *ctx;
	struct pesbench_error *err;   /* the caller's: fn explains its stop there */
	struct pesbench_error local;
	int stopped;                  /* fn's return */
	struct pesbench_record rec;
};

static int on_record(void *ctx, int event, const struct pb_record *rec, const uint8_t *bytes,
		     size_t len, struct pb_error *err)
{
	struct walk *w = ctx;
	(void)err;
	w->rec.rec = rec;
	w->rec.bytes = bytes;
	w->rec.len = len;
	w->stopped = w->fn(w->ctx, event, &w->rec, w->err ? w->err : &w->local);
	return w->stopped;
}

int pesbench_perfdata__for_each(struct pesbench_perfdata *pd, pesbench_perfdata_fn fn, void *ctx,
				struct pesbench_error *err)
{
	struct walk *w = calloc(1, sizeof(*w));
	struct pb_error e;
	if (!w)
		return pb_api_nomem(err, "a perf.data walk");
	w->fn = fn;
	w->ctx = ctx;
	w->err = err;
	memset(&pd->stats, 0, sizeof pd->stats);
	int rc = pb_perfdata_for_each(pd->pd, fn ? on_record : NULL, w, &pd->stats, &e);
	if (rc && w->stopped)
		rc = w->stopped;      /* fn's own stop, explained by fn in err */
	else if (rc)
		rc = pb_api_error(err, &e);
	free(w);
	return rc;
}

uint64_t pesbench_perfdata__nr_records(const struct pesbench_perfdata *pd)
{
	return pd->stats.records;
}

uint64_t pesbench_perfdata__nr_samples(const struct pesbench_perfdata *pd)
{
	return pd->stats.samples;
}

bool pesbench_perfdata__ibs_event(const struct pesbench_perfdata *pd, size_t index,
				  enum pesbench_ibs_kind *kind, struct pesbench_ibs_cpu *cpu)
{
	enum pb_ibs_kind k;
	struct pb_ibs_cpu c;
	if (!pb_perfdata_ibs_event(pd->pd, index, &k, &c))
		return false;
	*kind = k == PB_IBS_OP ? PESBENCH_IBS_OP : PESBENCH_IBS_FETCH;
	cpu->family = c.family;
	cpu->model = c.model;
	cpu->flags = (c.zen4_ibs_extensions ? PESBENCH_IBS_CPU_ZEN4_EXT : 0) |
		     (c.ldlat ? PESBENCH_IBS_CPU_LDLAT : 0) |
		     (c.dtlb_pgsize ? PESBENCH_IBS_CPU_DTLB_PGSIZE : 0);
	return true;
}
