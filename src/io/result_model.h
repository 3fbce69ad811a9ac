/* The results document as typed values. Experiments fill it, io/results.c writes it as
 * results.json and results.csv and reads those back into it, and presentation and `compare`
 * read it. Every number carries its unit, set where the number is made: nothing downstream
 * has to guess a unit from a field's name. No jansson here, so experiments never see JSON.
 *
 * A point is: experiment, facility, workload; its parameters and notes (period, threads, role,
 * not_applicable, ...); its runs, each a set of one run's figures; and its metrics, the
 * figures over all runs (summaries with their spread, totals, tables of shares or fits). */
#ifndef PB_RESULT_MODEL_H
#define PB_RESULT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pb_unit {
	PB_UNIT_NONE,          /* a name, a flag, an identifier, a plain number */
	PB_UNIT_PERCENT,
	PB_UNIT_PERCENT_POINTS, /* a difference between two percentages */
	PB_UNIT_RATIO,         /* a fraction, 1 = the whole */
	PB_UNIT_NS,
	PB_UNIT_US,
	PB_UNIT_S,
	PB_UNIT_KIB,
	PB_UNIT_BYTES,
	PB_UNIT_PAGES,
	PB_UNIT_SAMPLES,
	PB_UNIT_EVENTS,        /* occurrences of the measured event */
	PB_UNIT_RECORDS,       /* ring records */
	PB_UNIT_ITERATIONS,
	PB_UNIT_THREADS,
	PB_UNIT_RUNS,
	PB_UNIT_SIGNALS,
	PB_UNIT_TICKS,         /* timer ticks */
	PB_UNIT_INSTRUCTIONS,
	PB_UNIT_NS_PER_SAMPLE,
	PB_UNIT_NS_PER_EVENT,
	PB_UNIT_TSC,           /* ticks of the timestamp counter (TSC; arm64: CNTVCT) */
	PB_UNIT_ADDRESS,
	PB_UNIT_COUNT,         /* a count of something the field's name says */
	PB_UNIT_MAX
};

/* "%", "ns", "samples", ...; "" for PB_UNIT_NONE. */
const char *pb_unit_name(enum pb_unit unit);
/* The reverse of pb_unit_name; false for a name it does not know. */
bool pb_unit_parse(const char *name, enum pb_unit *unit);

enum pb_rkind {
	PB_RV_NULL,            /* no figure: "not measured", not zero */
	PB_RV_BOOL,
	PB_RV_INT,
	PB_RV_REAL,
	PB_RV_TEXT,
	PB_RV_SUMMARY,         /* a figure over runs: mean with its spread */
	PB_RV_SET,             /* named values, in the order they were set */
	PB_RV_LIST,
};

/* The spread is both the standard deviation and the 95 % confidence half-width of the mean. */
struct pb_rsummary {
	unsigned n;
	double mean, stdev, min, max, median, ci95;
};

struct pb_rset;
struct pb_rlist;

struct pb_rvalue {
	enum pb_rkind kind;
	enum pb_unit unit;     /* of the number, of a summary, or of a list's numbers */
	union {
		bool b;
		int64_t i;
		double r;
		char *text;
		struct pb_rsummary sum;
		struct pb_rset *set;
		struct pb_rlist *list;
	} as;
};

struct pb_rfield {
	char *name;
	struct pb_rvalue v;
};

struct pb_rset {
	struct pb_rfield *f;
	size_t n, cap;
};

struct pb_rlist {
	struct pb_rvalue *v;
	size_t n, cap;
};

/* ---- building. Setting a name that is already there replaces its value in place. Pointers
 * returned for nested sets and lists stay valid until their parent is freed or the name is
 * set again; a pointer to a pb_rvalue does not survive the next change to its set. ---- */

void pb_rset_int(struct pb_rset *s, const char *name, enum pb_unit unit, int64_t v);
/* A NaN or infinite number leaves the name out: it is no figure (use pb_rset_real_or_null to
 * say so with a null). */
void pb_rset_real(struct pb_rset *s, const char *name, enum pb_unit unit, double v);
void pb_rset_real_or_null(struct pb_rset *s, const char *name, enum pb_unit unit, double v);
void pb_rset_bool(struct pb_rset *s, const char *name, bool v);
void pb_rset_text(struct pb_rset *s, const char *name, const char *v);
void pb_rset_null(struct pb_rset *s, const char *name, enum pb_unit unit);
void pb_rset_summary(struct pb_rset *s, const char *name, enum pb_unit unit,
		     const struct pb_rsummary *v);
/* Summarises n values (analysis/stats.h's figures) into a summary field. */
void pb_rset_summarize(struct pb_rset *s, const char *name, enum pb_unit unit, const double *v,
		       size_t n);
struct pb_rset *pb_rset_set(struct pb_rset *s, const char *name);
struct pb_rlist *pb_rset_list(struct pb_rset *s, const char *name);
/* A deep copy of v under name (v may belong to another set). */
void pb_rset_put(struct pb_rset *s, const char *name, const struct pb_rvalue *v);
/* Every field of src set into s, as json_object_update would. */
void pb_rset_update(struct pb_rset *s, const struct pb_rset *src);
void pb_rset_remove(struct pb_rset *s, const char *name);

void pb_rlist_int(struct pb_rlist *l, enum pb_unit unit, int64_t v);
void pb_rlist_real(struct pb_rlist *l, enum pb_unit unit, double v);
void pb_rlist_real_or_null(struct pb_rlist *l, enum pb_unit unit, double v);
void pb_rlist_text(struct pb_rlist *l, const char *v);
struct pb_rset *pb_rlist_set(struct pb_rlist *l);
void pb_rlist_put(struct pb_rlist *l, const struct pb_rvalue *v);

void pb_rset_clear(struct pb_rset *s);
void pb_rlist_clear(struct pb_rlist *l);
void pb_rvalue_clear(struct pb_rvalue *v);
void pb_rvalue_copy(struct pb_rvalue *dst, const struct pb_rvalue *src);

/* ---- reading. Absent names and values of another kind read as NULL, 0 or false. ---- */

const struct pb_rvalue *pb_rset_get(const struct pb_rset *s, const char *name);
const struct pb_rset *pb_rset_get_set(const struct pb_rset *s, const char *name);
const struct pb_rlist *pb_rset_get_list(const struct pb_rset *s, const char *name);
const char *pb_rset_get_text(const struct pb_rset *s, const char *name);
/* An integer or real as a double; ok (may be NULL) says whether it was a number. */
double pb_rset_get_number(const struct pb_rset *s, const char *name, bool *ok);
int64_t pb_rset_get_int(const struct pb_rset *s, const char *name);
bool pb_rset_is_true(const struct pb_rset *s, const char *name);
const struct pb_rsummary *pb_rset_get_summary(const struct pb_rset *s, const char *name);
bool pb_rvalue_is_number(const struct pb_rvalue *v);
double pb_rvalue_number(const struct pb_rvalue *v);
size_t pb_rlist_size(const struct pb_rlist *l);
const struct pb_rvalue *pb_rlist_at(const struct pb_rlist *l, size_t i);
/* The i-th element as a set, NULL when it is not one. */
const struct pb_rset *pb_rlist_set_at(const struct pb_rlist *l, size_t i);

/* ---- the document ---- */

struct pb_result_point {
	char *experiment, *facility, *workload;
	struct pb_rset params;     /* parameters and notes: period, threads, role, not_applicable */
	struct pb_rlist runs;      /* one set per run: that run's figures */
	struct pb_rset metrics;    /* figures over all runs */
	/* its facility's traits as the build that measured it knew them (io/result_traits.h);
	 * empty when not known (an older file, or a point made without them) */
	struct pb_rset traits;
};

struct pb_results {
	char dir[4096];
	double started;            /* CLOCK_REALTIME seconds */
	char schema[64];           /* of the file it was read from, or the one it will be written as */
	struct pb_rset head;       /* pesbench_version, complete, started, command */
	struct pb_rset machine;    /* the probe document of the machine that ran it */
	struct pb_rlist skipped;   /* {facility, reason} per facility the suite could not run */
	/* one set per facility family (scorecard/scorecard.h), written as the top-level
	 * "scorecard"; empty in a document from before it existed */
	struct pb_rlist scorecard;
	struct pb_result_point **points;
	size_t npoints, cap;
	struct pb_rset tail;       /* suite_seconds, finished, elapsed_s */
};

/* An empty document (no folder): what tests fill, and what the loader starts from. */
void pb_results_init(struct pb_results *r);
/* Records a facility the suite could not run, with the reason. */
void pb_results_skip(struct pb_results *r, const char *facility, const char *reason);
/* Appends a point with no runs and no metrics, and returns it (owned by r). */
struct pb_result_point *pb_results_point(struct pb_results *r, const char *experiment,
					 const char *facility, const char *workload);
void pb_results_free(struct pb_results *r);

#endif
