/* What the files of a point share and nobody else needs: point_workload.c picks the label,
 * point_oracle.c says what a run should give, point_tally.c counts what it gave, and
 * point_measure.c runs it. */
#ifndef PB_POINT_PARTS_H
#define PB_POINT_PARTS_H

#include "experiments/point.h"

/* The truth's label named name ("" = the workload's default), or -2 with err when the workload
 * has no such label. */
int pb_point_find_label(const struct pb_truth *truth, const char *name, struct pb_error *err);

/* Samples one thread's event should give at period, by the basis of its expectation
 * (pb_declared_events). */
double pb_point_expected_samples(const char *basis, bool subset, bool ticks_from_enable,
				 uint64_t declared, uint64_t count, uint64_t period);
/* The accuracy of one event's summed figures, NAN when they hold none (see
 * struct pb_point_figures); f->withheld says why when a figure was expected. */
double pb_point_accuracy(struct pb_point_figures *f, uint64_t period, unsigned threads,
			 bool run_failed);

/* The accuracy's direction: (observed - expected) / expected in %, NAN where f has no
 * accuracy. */
double pb_point_signed_error(const struct pb_point_figures *f, uint64_t period,
			     unsigned threads);

/* One thread's skid figures: each worker drains its own ring, so each writes only its own. */
struct pb_point_skid_log {
	uint64_t *values;
	size_t n, cap;
	uint64_t ordinal;            /* samples of this thread so far */
	uint64_t out_of_step;
};

/* Sample tallies, per event for privilege levels and per instruction for attribution. */
struct pb_point_tally {
	uint64_t skid_period;                    /* event 0's period when its skid is measured */
	struct pb_point_skid_log *skid;          /* [threads] */
	struct pb_point *pt;
	unsigned nevents;
	uint64_t user[PB_MAX_EVENTS], kernel[PB_MAX_EVENTS], kernel_ip[PB_MAX_EVENTS];
	uint64_t wrong_level[PB_MAX_EVENTS];     /* at an excluded level, by flag or by IP */
	bool exclude_kernel, exclude_user;       /* the levels the request left out */
	const struct pb_spec *spec[PB_MAX_EVENTS];
	const struct pb_machine *machine;
	uint64_t subset_samples[PB_MAX_EVENTS];  /* samples of the spec's subset, if it names one */
	const struct pb_point_request *req;      /* its on_record, when set */
};

/* The session's record callback: ctx is a struct pb_point_tally. */
void pb_point_tally_record(void *ctx, unsigned thread, unsigned event,
			   const struct pb_record *rec);
/* Frees the skid logs of t's threads. */
void pb_point_tally_free_skid(struct pb_point_tally *t, unsigned threads);
/* The session's figures and the tallies into pt->ev. run_failed: the session did not run the
 * measured region to its end, so no figure of it is an accuracy, whatever the counts say. */
void pb_point_sum_figures(const struct pb_point_request *req, struct pb_point *pt,
			  const struct pb_point_tally *t, bool run_failed);

#endif
