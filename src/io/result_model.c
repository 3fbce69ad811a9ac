#include "io/result_model.h"

#include "analysis/stats.h"
#include "util/kit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const unit_names[PB_UNIT_MAX] = {
	[PB_UNIT_NONE] = "",
	[PB_UNIT_PERCENT] = "%",
	[PB_UNIT_PERCENT_POINTS] = "percentage points",
	[PB_UNIT_RATIO] = "ratio",
	[PB_UNIT_NS] = "ns",
	[PB_UNIT_US] = "µs",
	[PB_UNIT_S] = "s",
	[PB_UNIT_KIB] = "KiB",
	[PB_UNIT_BYTES] = "bytes",
	[PB_UNIT_PAGES] = "pages",
	[PB_UNIT_SAMPLES] = "samples",
	[PB_UNIT_EVENTS] = "events",
	[PB_UNIT_RECORDS] = "records",
	[PB_UNIT_ITERATIONS] = "iterations",
	[PB_UNIT_THREADS] = "threads",
	[PB_UNIT_RUNS] = "runs",
	[PB_UNIT_SIGNALS] = "signals",
	[PB_UNIT_TICKS] = "ticks",
	[PB_UNIT_INSTRUCTIONS] = "instructions",
	[PB_UNIT_NS_PER_SAMPLE] = "ns per sample",
	[PB_UNIT_NS_PER_EVENT] = "ns per event",
	[PB_UNIT_TSC] = "timestamp-counter ticks",
	[PB_UNIT_ADDRESS] = "address",
	[PB_UNIT_COUNT] = "count",
};

const char *pb_unit_name(enum pb_unit unit)
{
	return unit < PB_UNIT_MAX && unit_names[unit] ? unit_names[unit] : "";
}

bool pb_unit_parse(const char *name, enum pb_unit *unit)
{
	for (int u = 0; u < PB_UNIT_MAX; u++)
		if (!strcmp(unit_names[u], name)) {
			*unit = (enum pb_unit)u;
			return true;
		}
	return false;
}

static char *dup_text(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (!d)
		abort();
	memcpy(d, s, n);
	return d;
}

/* The model has no error path for memory: a results document that cannot grow ends the run
 * rather than lose figures silently. */
static void room_for(void *array, size_t *cap, size_t n, size_t size)
{
	if (pb_grow(array, cap, n, size, 8))
		abort();
}

void pb_rvalue_clear(struct pb_rvalue *v)
{
	switch (v->kind) {
	case PB_RV_TEXT:
		free(v->as.text);
		break;
	case PB_RV_SET:
		pb_rset_clear(v->as.set);
		free(v->as.set);
		break;
	case PB_RV_LIST:
		pb_rlist_clear(v->as.list);
		free(v->as.list);
		break;
	default:
		break;
	}
	memset(v, 0, sizeof *v);
}

void pb_rset_clear(struct pb_rset *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->f[i].name);
		pb_rvalue_clear(&s->f[i].v);
	}
	free(s->f);
	memset(s, 0, sizeof *s);
}

void pb_rlist_clear(struct pb_rlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		pb_rvalue_clear(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

/* The slot for name, emptied: a name set again keeps its place, as in a JSON object. */
static struct pb_rvalue *slot(struct pb_rset *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->f[i].name, name)) {
			pb_rvalue_clear(&s->f[i].v);
			return &s->f[i].v;
		}
	room_for(&s->f, &s->cap, s->n, sizeof *s->f);
	struct pb_rfield *f = &s->f[s->n++];
	f->name = dup_text(name);
	memset(&f->v, 0, sizeof f->v);
	return &f->v;
}

static struct pb_rvalue *list_slot(struct pb_rlist *l)
{
	room_for(&l->v, &l->cap, l->n, sizeof *l->v);
	struct pb_rvalue *v = &l->v[l->n++];
	memset(v, 0, sizeof *v);
	return v;
}

void pb_rset_int(struct pb_rset *s, const char *name, enum pb_unit unit, int64_t v)
{
	struct pb_rvalue *x = slot(s, name);
	x->kind = PB_RV_INT;
	x->unit = unit;
	x->as.i = v;
}

void pb_rset_real(struct pb_rset *s, const char *name, enum pb_unit unit, double v)
{
	if (!isfinite(v)) {
		pb_rset_remove(s, name);
		return;
	}
	struct pb_rvalue *x = slot(s, name);
	x->kind = PB_RV_REAL;
	x->unit = unit;
	x->as.r = v;
}

void pb_rset_real_or_null(struct pb_rset *s, const char *name, enum pb_unit unit, double v)
{
	if (isfinite(v))
		pb_rset_real(s, name, unit, v);
	else
		pb_rset_null(s, name, unit);
}

void pb_rset_bool(struct pb_rset *s, const char *name, bool v)
{
	struct pb_rvalue *x = slot(s, name);
	x->kind = PB_RV_BOOL;
	x->as.b = v;
}

void pb_rset_text(struct pb_rset *s, const char *name, const char *v)
{
	struct pb_rvalue *x = slot(s, name);
	x->kind = PB_RV_TEXT;
	x->as.text = dup_text(v ? v : "");
}

void pb_rset_null(struct pb_rset *s, const char *name, enum pb_unit unit)
{
	struct pb_rvalue *x = slot(s, name);
	x->kind = PB_RV_NULL;
	x->unit = unit;
}

static bool summary_finite(const struct pb_rsummary *v)
{
	return isfinite(v->mean) && isfinite(v->stdev) && isfinite(v->min) && isfinite(v->max) &&
	       isfinite(v->median) && isfinite(v->ci95);
}

void pb_rset_summary(struct pb_rset *s, const char *name, enum pb_unit unit,
		     const struct pb_rsummary *v)
{
	if (!summary_finite(v)) {
		pb_rset_remove(s, name);
		return;
	}
	struct pb_rvalue *x = slot(s, name);
	x->kind = PB_RV_SUMMARY;
	x->unit = unit;
	x->as.sum = *v;
}

void pb_rset_summarize(struct pb_rset *s, const char *name, enum pb_unit unit, const double *v,
		       size_t n)
{
	struct pb_summary st;
	pb_summarize(v, n, &st);
	struct pb_rsummary r = {
		.n = (unsigned)st.n, .mean = st.mean, .stdev = st.stdev, .min = st.min,
		.max = st.max, .median = st.median, .ci95 = st.ci95,
	};
	pb_rset_summary(s, name, unit, &r);
}

struct pb_rset *pb_rset_set(struct pb_rset *s, const char *name)
{
	struct pb_rvalue *x = slot(s, name);
	x->kind = PB_RV_SET;
	x->as.set = calloc(1, sizeof *x->as.set);
	if (!x->as.set)
		abort();
	return x->as.set;
}

struct pb_rlist *pb_rset_list(struct pb_rset *s, const char *name)
{
	struct pb_rvalue *x = slot(s, name);
	x->kind = PB_RV_LIST;
	x->as.list = calloc(1, sizeof *x->as.list);
	if (!x->as.list)
		abort();
	return x->as.list;
}

void pb_rvalue_copy(struct pb_rvalue *dst, const struct pb_rvalue *src)
{
	*dst = *src;
	switch (src->kind) {
	case PB_RV_TEXT:
		dst->as.text = dup_text(src->as.text);
		break;
	case PB_RV_SET:
		dst->as.set = calloc(1, sizeof *dst->as.set);
		if (!dst->as.set)
			abort();
		pb_rset_update(dst->as.set, src->as.set);
		break;
	case PB_RV_LIST:
		dst->as.list = calloc(1, sizeof *dst->as.list);
		if (!dst->as.list)
			abort();
		for (size_t i = 0; i < src->as.list->n; i++)
			pb_rlist_put(dst->as.list, &src->as.list->v[i]);
		break;
	default:
		break;
	}
}

void pb_rset_put(struct pb_rset *s, const char *name, const struct pb_rvalue *v)
{
	struct pb_rvalue copy;
	pb_rvalue_copy(&copy, v);   /* before the slot: v may be the very value replaced */
	*slot(s, name) = copy;
}

void pb_rset_update(struct pb_rset *s, const struct pb_rset *src)
{
	for (size_t i = 0; i < src->n; i++)
		pb_rset_put(s, src->f[i].name, &src->f[i].v);
}

void pb_rset_remove(struct pb_rset *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->f[i].name, name)) {
			free(s->f[i].name);
			pb_rvalue_clear(&s->f[i].v);
			memmove(&s->f[i], &s->f[i + 1], (s->n - i - 1) * sizeof *s->f);
			s->n--;
			return;
		}
}

void pb_rlist_int(struct pb_rlist *l, enum pb_unit unit, int64_t v)
{
	struct pb_rvalue *x = list_slot(l);
	x->kind = PB_RV_INT;
	x->unit = unit;
	x->as.i = v;
}

void pb_rlist_real(struct pb_rlist *l, enum pb_unit unit, double v)
{
	if (!isfinite(v))
		return;
	struct pb_rvalue *x = list_slot(l);
	x->kind = PB_RV_REAL;
	x->unit = unit;
	x->as.r = v;
}

void pb_rlist_real_or_null(struct pb_rlist *l, enum pb_unit unit, double v)
{
	if (isfinite(v)) {
		pb_rlist_real(l, unit, v);
		return;
	}
	struct pb_rvalue *x = list_slot(l);
	x->kind = PB_RV_NULL;
	x->unit = unit;
}

void pb_rlist_text(struct pb_rlist *l, const char *v)
{
	struct pb_rvalue *x = list_slot(l);
	x->kind = PB_RV_TEXT;
	x->as.text = dup_text(v ? v : "");
}

struct pb_rset *pb_rlist_set(struct pb_rlist *l)
{
	struct pb_rvalue *x = list_slot(l);
	x->kind = PB_RV_SET;
	x->as.set = calloc(1, sizeof *x->as.set);
	if (!x->as.set)
		abort();
	return x->as.set;
}

void pb_rlist_put(struct pb_rlist *l, const struct pb_rvalue *v)
{
	struct pb_rvalue copy;
	pb_rvalue_copy(&copy, v);
	*list_slot(l) = copy;
}

const struct pb_rvalue *pb_rset_get(const struct pb_rset *s, const char *name)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->f[i].name, name))
			return &s->f[i].v;
	return NULL;
}

const struct pb_rset *pb_rset_get_set(const struct pb_rset *s, const char *name)
{
	const struct pb_rvalue *v = pb_rset_get(s, name);
	return v && v->kind == PB_RV_SET ? v->as.set : NULL;
}

const struct pb_rlist *pb_rset_get_list(const struct pb_rset *s, const char *name)
{
	const struct pb_rvalue *v = pb_rset_get(s, name);
	return v && v->kind == PB_RV_LIST ? v->as.list : NULL;
}

const char *pb_rset_get_text(const struct pb_rset *s, const char *name)
{
	const struct pb_rvalue *v = pb_rset_get(s, name);
	return v && v->kind == PB_RV_TEXT ? v->as.text : NULL;
}

bool pb_rvalue_is_number(const struct pb_rvalue *v)
{
	return v && (v->kind == PB_RV_INT || v->kind == PB_RV_REAL);
}

double pb_rvalue_number(const struct pb_rvalue *v)
{
	if (!v)
		return 0;
	return v->kind == PB_RV_INT ? (double)v->as.i : v->kind == PB_RV_REAL ? v->as.r : 0;
}

double pb_rset_get_number(const struct pb_rset *s, const char *name, bool *ok)
{
	const struct pb_rvalue *v = pb_rset_get(s, name);
	if (ok)
		*ok = pb_rvalue_is_number(v);
	return pb_rvalue_number(v);
}

int64_t pb_rset_get_int(const struct pb_rset *s, const char *name)
{
	const struct pb_rvalue *v = pb_rset_get(s, name);
	return v && v->kind == PB_RV_INT ? v->as.i : 0;
}

bool pb_rset_is_true(const struct pb_rset *s, const char *name)
{
	const struct pb_rvalue *v = pb_rset_get(s, name);
	return v && v->kind == PB_RV_BOOL && v->as.b;
}

const struct pb_rsummary *pb_rset_get_summary(const struct pb_rset *s, const char *name)
{
	const struct pb_rvalue *v = pb_rset_get(s, name);
	return v && v->kind == PB_RV_SUMMARY ? &v->as.sum : NULL;
}

size_t pb_rlist_size(const struct pb_rlist *l)
{
	return l ? l->n : 0;
}

const struct pb_rvalue *pb_rlist_at(const struct pb_rlist *l, size_t i)
{
	return l && i < l->n ? &l->v[i] : NULL;
}

const struct pb_rset *pb_rlist_set_at(const struct pb_rlist *l, size_t i)
{
	const struct pb_rvalue *v = pb_rlist_at(l, i);
	return v && v->kind == PB_RV_SET ? v->as.set : NULL;
}

void pb_results_init(struct pb_results *r)
{
	memset(r, 0, sizeof *r);
}

void pb_results_skip(struct pb_results *r, const char *facility, const char *reason)
{
	struct pb_rset *s = pb_rlist_set(&r->skipped);
	pb_rset_text(s, "facility", facility);
	pb_rset_text(s, "reason", reason);
}

struct pb_result_point *pb_results_point(struct pb_results *r, const char *experiment,
					 const char *facility, const char *workload)
{
	room_for(&r->points, &r->cap, r->npoints, sizeof *r->points);
	struct pb_result_point *p = calloc(1, sizeof *p);
	if (!p)
		abort();
	p->experiment = dup_text(experiment);
	p->facility = dup_text(facility);
	p->workload = dup_text(workload ? workload : "");
	r->points[r->npoints++] = p;
	return p;
}

void pb_results_free(struct pb_results *r)
{
	for (size_t i = 0; i < r->npoints; i++) {
		struct pb_result_point *p = r->points[i];
		free(p->experiment);
		free(p->facility);
		free(p->workload);
		pb_rset_clear(&p->params);
		pb_rlist_clear(&p->runs);
		pb_rset_clear(&p->metrics);
		pb_rset_clear(&p->traits);
		free(p);
	}
	free(r->points);
	pb_rset_clear(&r->head);
	pb_rset_clear(&r->machine);
	pb_rlist_clear(&r->skipped);
	pb_rlist_clear(&r->scorecard);
	pb_rset_clear(&r->tail);
	r->points = NULL;
	r->npoints = r->cap = 0;
}
