/* A point: one workload run under one set of events (one facility spec each, with a period),
 * on N threads, with every figure an experiment needs — declared events and the samples they
 * imply, samples observed, counts, losses, multiplexing, signals, privilege levels, and where
 * the samples' IPs landed. Experiments are loops over points. */
#ifndef PB_POINT_H
#define PB_POINT_H

#include "analysis/attribution.h"
#include "facilities/facility.h"
#include "io/result_model.h"
#include "session/session.h"
#include "runner/runner.h"

#include <stdio.h>

struct pb_point_event {
	struct pb_spec spec;
	uint64_t period;             /* 0: count only; in pb_facility_period_unit of the spec's
				      * facility. Event 0's is the request's one period: written by
				      * pb_point_request_set(_period), checked there */
	bool optional;               /* a check beside the measured event: when it cannot open,
				      * the others run without it and it carries the reason */
};

struct pb_point_request {
	bool no_perf;                /* facility "none": the workload alone, for baselines */
	struct pb_point_event events[PB_MAX_EVENTS];
	unsigned nevents;
	struct pb_workload_choice workload;
	char label[64];              /* uprobe / bp:x site; "" = the workload's first event label */
	uint64_t iterations;
	unsigned threads;
	enum pb_delivery delivery;
	unsigned ring_pages;
	const struct pb_machine *machine;  /* NULL: this machine */
	bool exclude_kernel, exclude_user;
	bool attribute;              /* tally samples per instruction of the workload (event 0) */
	bool run_with_unopened;      /* events the kernel refuses are reported, the rest run */
	bool measure_skid;           /* event 0's skid in events, where its facility's samples
				      * carry the count (skid_in_sample_count): PERF_SAMPLE_READ */
	/* Also called with every record the point's rings give, after the point counted it (a
	 * capture keeps them); NULL: none. */
	void (*on_record)(void *ctx, unsigned thread, unsigned event, const struct pb_record *rec);
	void *record_ctx;
	/* Every record of event 0 as the session reads it, with the attr the event was opened
	 * with (measure --record); NULL: none. */
	void (*on_event0_record)(void *ctx, const struct perf_event_attr *attr,
				 const struct pb_record *rec);
	void *event0_record_ctx;
};

/* The fewest samples a run must expect for its accuracy to be a figure. The accuracy is a
 * ratio of sample counts, so one sample more or less moves it by 100 / expected points: below
 * 10 expected, one sample is worth more than 10 points, coarser than every effect the
 * experiments compare (periods, facilities and delivery modes differ by a few points), and the
 * figure would be the rounding of a tiny count rather than the facility's accuracy. Such a run
 * carries a reason instead; experiments that choose the run's size size it up to reach this. */
#define PB_MIN_EXPECTED_SAMPLES 10

/* Skid in events of one event's samples: per sample, the count it carries less k x period for
 * the k-th overflow (the count modulo the period, sound while the skid is below the period). */
struct pb_skid {
	bool measured;
	uint64_t samples;            /* samples that carried a count */
	uint64_t median, max;        /* events counted between the overflow and the sample */
	uint64_t out_of_step;        /* samples whose overflow number (count / period) is not
				      * their place in the thread's stream: a sample lost before
				      * them, or a skid of a period or more */
};

/* What the point knows about one event, summed over threads unless said otherwise. */
struct pb_point_figures {
	const char *basis;           /* "declared": events from the workload's truth; "time": the
				      * timer's own running time; "count": the kernel's count (no
				      * independent truth for this event) */
	uint64_t declared;           /* events per thread by the declaration (0 for other bases) */
	double expected;             /* samples expected, all threads */
	uint64_t observed;           /* samples read from the rings, all threads */
	uint64_t count;              /* the kernel's count, all threads */
	uint64_t lost, lost_format, lost_records, lost_samples, throttles, unthrottles;
	uint64_t filtered;           /* samples the kernel dropped on purpose (a facility that
				      * filters an excluded level in software,
				      * pb_spec_filters_in_software): not part of lost */
	uint64_t missed;             /* time-based: ticks due that neither arrived nor were lost
				      * (the kernel skips an overrun hrtimer tick, and drops one
				      * landing in an excluded level, without a LOST record) */
	uint64_t dropped;            /* records pesbench could not parse (malformed, or a
				      * hardware record cut short): neither observed nor lost by
				      * the kernel */
	uint64_t time_enabled, time_running;
	uint64_t signals, signals_wrong_thread;
	uint64_t user_samples, kernel_samples;   /* by the record's cpumode */
	uint64_t kernel_ip_samples;              /* IP in the kernel half of the address space */
	double accuracy;             /* the main study's formula; 100 when exact */
	uint64_t own[PB_OWN_FIGURES];/* the facility's own figures (pb_facility.own_figure),
				      * counted by its own_tally hooks */
	uint64_t aux_truncated, aux_collision;  /* AUX chunks flagged so (facilities
						 * with aux_pages), part of lost */
	unsigned ring_pages;
	int precise_requested;       /* precise_ip the spec asked for, -1: the facility's default */
	int precise_granted;         /* precise_ip the event was opened with (-1: none opened) */
	/* The share of the declared events the run's privilege levels could see: 1 unless the
	 * run left out a level where the workload takes some (the mode experiment's user-only run
	 * of faults taken inside a system call sees none, and its 0 is right). */
	double seen_share;
	bool no_samples;             /* samples were expected and none came: no accuracy is given,
				      * the facility produced nothing (a plain 0 % would read as a
				      * measured figure) */
	bool silent_zero;            /* the counter read 0 over its whole enabled time (running ==
				      * enabled: never multiplexed) although the workload declares
				      * its events or an identical event of the run counted some: a
				      * loss the kernel does not report and no scaling can reveal
				      * (QEMU 7.2's RISC-V PMU gives it); no accuracy is given */
	bool too_few_samples;        /* fewer than PB_MIN_EXPECTED_SAMPLES expected: no accuracy */
	double signed_error;         /* (observed - expected) / expected, in %: + over-count,
				      * - under-count; NAN where accuracy is */
	uint64_t wrong_level_samples;/* samples at a level the run excluded, by record flag or by
				      * IP (the union: a sample is counted once) */
	char withheld[200];          /* why accuracy is NAN, when a figure was expected */
	bool opened_all;
	char open_error[256];
	struct pb_skid skid;         /* event 0 with measure_skid only */
};

struct pb_point {
	struct pb_instance instance;
	struct pb_session_result *session;   /* NULL for no_perf */
	struct pb_runner_result runner;
	uint64_t wall_ns;
	uint64_t elapsed_ns[PB_MAX_THREADS];
	uint64_t cpu_ns[PB_MAX_THREADS];     /* each thread's CPU time across the region */
	unsigned unpinned_threads;           /* threads sched_setaffinity refused their CPU */
	uint64_t signal_overflows;           /* signal mode: signals the kernel could not queue
					      * (session.h), a lower bound */
	uint64_t collector_cpu_ns;           /* drain mode: the collector thread's CPU time */
	uint64_t collector_wakeups;          /* drain mode: its returns from poll */
	struct pb_point_figures ev[PB_MAX_EVENTS];
	int label;                           /* index of the probed label, -1 if none */
	/* attribution of event 0 */
	struct pb_code_map code;
	uint64_t *insn_samples;              /* [code.n]: samples whose IP is that instruction */
	uint64_t *insn_samples_before;       /* [code.n]: samples whose IP follows it (IP+1 fix) */
	uint64_t outside_samples;            /* IP outside the workload's code */
};

void pb_point_request_defaults(struct pb_point_request *req);
/* Sets the request for spec (parsed by the caller; NULL: the workload alone, without perf),
 * the workload (NULL: the facility's natural workload) and the label. The period is *period,
 * checked against the facility (pb_spec_check_period), or the facility's default when period
 * is NULL. */
int pb_point_request_set(struct pb_point_request *req, const struct pb_spec *spec,
			 const char *workload, const char *label, const uint64_t *period,
			 struct pb_error *err);
/* Event 0's period, the request's one period, checked against its facility: what every
 * experiment calls to change it between points. */
int pb_point_request_set_period(struct pb_point_request *req, uint64_t period,
				struct pb_error *err);
/* Fails (exit 3, the verdict and its figures in the message) when the facility ran its
 * self-test on this machine and did not pass it. */
/* The same for the request's facility measured with the request's delivery: a signal per
 * sample is self-tested with signals (a breakpoint may count one access more per signal).
 * Every point measured runs it (cached per spec and delivery), whoever set the delivery. */
int pb_point_refuse_untrusted_delivery(const struct pb_point_request *req, struct pb_error *err);
int pb_point_refuse_untrusted(const struct pb_spec *spec, const struct pb_machine *machine,
			      struct pb_error *err);
/* The workload a facility measures best when none is named: the one whose truth declares the
 * events it counts. */
const char *pb_natural_workload(const struct pb_spec *spec);

int pb_point_measure(const struct pb_point_request *req, struct pb_point *pt,
		     struct pb_error *err);
void pb_point_free(struct pb_point *pt);

/* One run's figures, per event, into a run record o of the results document. */
void pb_point_record(const struct pb_point_request *req, const struct pb_point *pt,
		     struct pb_rset *o);
/* The traits of req's measured facility (event 0) into the point of the results document
 * (io/result_traits.h), with the IP relation of its spec on the request's machine. */
void pb_point_traits(const struct pb_point_request *req, struct pb_result_point *point);
void pb_point_print(FILE *out, const struct pb_point_request *req, const struct pb_point *pt);
/* "over", "under", "exact", or "none" when f has no accuracy. */
const char *pb_point_direction(const struct pb_point_figures *f);

/* Iterations at least as many as given that let event 0 of req expect min_samples samples per
 * run (PB_MIN_EXPECTED_SAMPLES for an accuracy), where its expectation follows from the
 * iterations (a declared count); the iterations unchanged otherwise. */
uint64_t pb_point_iterations_for_samples(const struct pb_point_request *req,
					 uint64_t iterations, unsigned min_samples);

/* Offline: a point's figures from records read back instead of rings (a capture bundle). The
 * caller fills pt->instance.truth, pt->label, pt->code (attribution, with req->attribute) and
 * pt->session with what the capture kept (each thread's counts and attrs; ring statistics are
 * counted again from the records), then hands over every record of the run, in order, and
 * sums: the figures are those pb_point_measure gives for the same records. */
struct pb_point_offline;
struct pb_point_offline *pb_point_offline_start(const struct pb_point_request *req,
						struct pb_point *pt,
						const struct pb_machine *machine,
						struct pb_error *err);
void pb_point_offline_record(struct pb_point_offline *o, unsigned thread, unsigned event,
			     const struct pb_record *rec);
/* Sums into pt->ev and frees o. run_failed: the capture's session did not end its region. */
void pb_point_offline_finish(struct pb_point_offline *o, bool run_failed);

/* The share of spec's declared events in truth that the request's privilege levels can see
 * (pb_point_figures.seen_share): 1 unless it leaves out a level the facility says holds some. */
double pb_point_seen_share(const struct pb_point_request *req, const struct pb_spec *spec,
			   const struct pb_truth *truth);

/* Declared events per thread for one event of the request, and the basis of the expectation. */
const char *pb_declared_events(const struct pb_spec *spec, const struct pb_truth *truth,
			       int label, uint64_t iterations, uint64_t *events);

#endif
