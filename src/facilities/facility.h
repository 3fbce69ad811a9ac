/* A facility turns a user's spec ("bp:w", "ibs-op:cycles", "pebs:INST_RETIRED:PREC_DIST:pp=3")
 * into perf_event_attrs, and says whether and why it can run here. It never opens anything:
 * the session does. One facility per file; all are listed in facility.c. */
#ifndef PB_FACILITY_H
#define PB_FACILITY_H

#include "facilities/machine.h"
#include "facilities/spec_options.h"
#include "util/error.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Where a sample's IP lands relative to the instruction that caused the event. */
enum pb_ip_kind {
	PB_IP_EXACT,   /* the causing instruction (uprobe, bp:x, page faults, PEBS pp>=2, IBS) */
	PB_IP_NEXT,    /* the instruction after it (data breakpoints trap after the access) */
	PB_IP_SKID     /* anywhere after it (timer, classic overflow) */
};

/* What the workload of one thread offers a facility that needs an address. */
struct pb_target {
	uint64_t data_addr;      /* bp:w / bp:rw watch this */
	unsigned data_len;       /* 1, 2, 4 or 8 */
	uint64_t code_addr;      /* bp:x, uprobe */
	const char *code_path;   /* NULL: code_addr is a runtime address of this process;
	                          * set: code_addr is a file offset in this ELF file */
};

/* Classes of probe site (a facility's event_cost_class): how the kernel carries out a probed
 * instruction on every hit, which the cost of the hit belongs to. */
#define PB_SITE_EMULATED "emulated"             /* done by the kernel inside the trap (x86
						 * "emulate", arm64 "simulate") */
#define PB_SITE_SINGLE_STEPPED "single-stepped" /* copied out of line and stepped: 2 traps */
#define PB_SITE_OPTIMIZED "optimized"           /* x86 5-byte nop: a call into the kernel */
#define PB_SITE_REFUSED "refused"               /* the kernel will not probe it */

struct pb_facility;
struct pb_truth;
struct pb_label_truth;
struct pb_aux;
struct pb_record;
struct pb_ring_stats;
struct pb_sample;
struct pb_perfdata;

/* A facility's own reading of a perf.data file's samples (pesbench perfdata --dump): the file's
 * events that are its own, their payloads decoded and printed, and its tallies. The walk over
 * the file stays generic (analysis/perfdata_summary.c); every hook is required. */
struct pb_perfdata_decoder {
	/* What it decodes and when, for `pesbench perfdata --help` (one sentence, no period). */
	const char *about;
	/* Its state for file pd: NULL when no event of the file is its own, or on a failure
	 * (err set, code non-zero). */
	void *(*open)(struct pb_perfdata *pd, struct pb_error *err);
	/* A sample of event `event` (an index into the file's events; a pipe-mode file may add
	 * events past those open saw): the lines printed after the sample's own line, if any. */
	void (*dump)(void *state, int event, const struct pb_sample *s, FILE *out);
	/* Its tallies, printed after the table of events when every sample went through dump. */
	void (*dump_summary)(const void *state, FILE *out);
	void (*close)(void *state);
};

/* What a workload is chosen for: each facility names the one that exercises it for each. */
enum pb_workload_role {
	PB_ROLE_NATURAL,   /* accuracy, interval, multi, buffer: produces the facility's events */
	PB_ROLE_COST,      /* the per-sample cost sweep: events at a steady rate */
	PB_ROLE_PREDICT,   /* a second workload the cost prediction is checked on */
	PB_ROLE_LEVELS     /* the privilege-level study: events in user and in kernel mode */
};

/* The periods the experiments use, legal for the facility (IBS: multiples of 16). "Prime" is
 * a period sharing no factor with a loop's length, so it cannot lock onto the loop. */
struct pb_period_sets {
	uint64_t accuracy;       /* accuracy, bias, multi: often enough, yet never throttled */
	uint64_t round[4];       /* interval: round periods, longest first */
	uint64_t prime[4];       /* interval: prime-like periods near them */
	uint64_t cost[5];        /* the cost sweep, longest first */
	uint64_t buffer;         /* the buffer study: short, so the ring fills */
};

struct pb_spec {
	const struct pb_facility *facility;
	char text[192];          /* the spec as written */
	char event[128];         /* event name (sw, hw, pebs, timer) */
	uint32_t type;           /* PMU type, resolved by attr() where dynamic */
	uint64_t config, config1, config2;   /* encoded event / facility options */
	uint64_t options;        /* facility-private option bits */
	/* Facility-private fields: only facilities/ reads or writes them (tests/source_spec_private.sh
	 * checks it); the rest of pesbench asks through pb_spec_precise_requested,
	 * pb_spec_has_subset and pb_spec_drop_subset. */
	struct pb_spec_private {
		int precise;         /* requested precise_ip, -1 = facility default */
		unsigned bp_type;    /* HW_BREAKPOINT_* for bp */
		uint32_t subset;     /* ibs-op :subset=...: enum pb_ibs_op_flag mask, 0 = every op */
	} priv;
	char pmu[64];            /* "hw@cpu_atom:...": the core PMU of a hybrid machine it runs on
				  * (its threads pinned to that PMU's CPUs); "" = the default one */
	bool counting_only;      /* set by a caller that only counts (verify's oracles): its
				  * self-test judges the count, not sampling */
	bool signal_per_sample;  /* set by a caller measuring with a signal per sample (measure
				  * --delivery signal|sigtrap): the self-test delivers them too */
	bool sigtrap_per_sample; /* with signal_per_sample, for --delivery sigtrap: the self-test
				  * delivers them as attr.sigtrap does (a synchronous SIGTRAP) */
};

/* The facility-private fields, for callers outside facilities/: the precise level asked for
 * (-1: the facility's default), whether the spec names a subset of its samples (ibs-op
 * :subset=...), and the same spec without it (every sample its event takes). */
int pb_spec_precise_requested(const struct pb_spec *spec);
bool pb_spec_has_subset(const struct pb_spec *spec);
void pb_spec_drop_subset(struct pb_spec *spec);

/* A facility's self-test verdict: what a tiny known loop run under it produced. The kernel
 * accepting an event is no proof that it works (on one of our VM kinds breakpoints open and
 * never fire), so nothing is measured on a facility whose self-test did not pass. */
enum pb_verdict {
	PB_VERDICT_WORKS,     /* the loop's exact count (or samples at about the period) */
	PB_VERDICT_INERT,     /* the kernel accepted the event and it produced nothing */
	PB_VERDICT_INEXACT,   /* it produced a wrong count */
	PB_VERDICT_REFUSED,   /* the kernel refused to open it */
	PB_VERDICT_ABSENT,    /* the facility does not exist or is not permitted here */
	PB_VERDICT_UNTESTED   /* a fixture tree (--root): nothing can run there */
};

struct pb_self_test {
	enum pb_verdict verdict;
	uint64_t expected;       /* events the loop produces (counting) or samples expected */
	uint64_t counted;        /* what the kernel counted */
	uint64_t samples;        /* samples read (sampling tests) */
	uint64_t samples_inside; /* of those, with an IP inside the loop */
	double ms;               /* how long the self-test took */
	int sys_errno;           /* refused: the open's errno */
	uint64_t wrong_level;    /* samples at a level the test excluded (a kernel IP) */
	unsigned attempts;       /* runs the verdict took (1: no retry); every earlier one is in
				  * earlier, never dropped */
	char earlier[320];       /* "attempt 1: breakpoints miscount: 16 writes, 15 counted; ..." */
	char text[640];          /* one line: "the kernel accepts breakpoints but none fired: ..." */
};

struct pb_availability {
	bool available;
	char reason[384];        /* when not: why, and what the user can do */
	char detail[256];        /* when available: what was found (slots, caps, max precise) */
};

struct pb_facility {
	const char *name;        /* the word before the first ':' */
	const char *usage;       /* "bp:w|rw|x" */
	const char *summary;
	const char *needs;       /* privileges / hardware / kernel, for README and --help */
	bool pmu_qualified;      /* takes NAME@PMU: one core PMU of a hybrid machine */
	enum pb_ip_kind ip_kind;
	bool exact;              /* every event is seen: counts are exact */
	uint64_t default_period; /* events (or ns for timers) */
	uint64_t min_period;
	uint64_t period_multiple; /* legal periods are multiples of this (IBS: 16); 0: any */
	unsigned aux_pages;      /* AUX area pages (a power of two) the samples arrive in; 0: none */
	unsigned aux_record_bytes; /* with aux_pages: about what one sample takes there, which
				    * sizes the area for a run's expected samples */
	/* With aux_pages: consumes the AUX chunk one PERF_RECORD_AUX announces and hands each
	 * sample in it to fn as a PERF_RECORD_SAMPLE. Returns the samples delivered. */
	uint64_t (*aux_deliver)(struct pb_aux *aux, const struct pb_record *aux_rec,
				void (*fn)(void *ctx, const struct pb_record *rec), void *ctx,
				struct pb_ring_stats *stats);
	/* The words its spec takes after the name, parsed by pb_spec_options_parse. */
	const struct pb_spec_options *options;
	/* args: what follows "name:" (NULL if nothing). Fills spec fields. */
	int (*parse)(struct pb_spec *spec, const char *args, struct pb_error *err);
	/* spec may be NULL: is the facility usable at all here. */
	void (*availability)(const struct pb_machine *m, const struct pb_spec *spec,
			     struct pb_availability *out);
	/* Fills the event-identity part of attr (type, config, facility sample bits, excludes the
	 * facility requires) and refuses a period its hardware cannot take (period: events or ns,
	 * 0 counts). The session adds the common part. Call it through pb_spec_attr, which writes
	 * sample_period. */
	int (*attr)(const struct pb_machine *m, const struct pb_spec *spec,
		    const struct pb_target *target, uint64_t period, struct perf_event_attr *attr,
		    struct pb_error *err);
	/* Runs a tiny known loop under the facility on the live machine (spec NULL: the facility
	 * as a whole, every kind it offers) and fills out; the helpers are in selftest.h. */
	void (*self_test)(const struct pb_machine *m, const struct pb_spec *spec,
			  struct pb_self_test *out);
	/* What the self-test of spec judges, written to buf: specs with one key share a verdict,
	 * and one verdict is cached per key (hw: the kind of counter an event lands on, as a
	 * PMU may sample on one kind and not the other). NULL hook: the spec's text. */
	const char *(*verdict_key)(const struct pb_spec *spec, char *buf, size_t len);
	/* Where this spec's sample IPs land on machine m, when it depends on the spec (PEBS: the
	 * granted precise level); NULL: ip_kind. Ask pb_spec_ip_kind(). */
	enum pb_ip_kind (*ip_kind_of)(const struct pb_machine *m, const struct pb_spec *spec);
	/* Whether this spec can leave out a privilege level (exclude_kernel/exclude_user); NULL:
	 * always. IBS can only with :swfilt, so without it the experiments sample both levels. */
	bool (*can_exclude)(const struct pb_spec *spec);
	/* Whether the kernel drops this spec's samples of an excluded level in software and
	 * announces them as PERF_RECORD_LOST_SAMPLES: those are filtered, not lost. NULL: never. */
	bool (*filters_in_software)(const struct pb_spec *spec);

	/* --- What the experiments need to know; ask through the pb_spec_* functions below. --- */
	/* The spec the default suite runs ("timer:cpu-clock"). */
	const char *suite_spec;
	/* A counting spec of L1 data-cache read misses, which checks a workload's declared misses
	 * (pb_l1_miss_counter); NULL: this facility counts none. */
	const char *l1_miss_counter;
	/* Periods are nanoseconds of the thread's clock and the basis of expectations is time. */
	bool time_based;
	/* Its samples sit on a grid of the period from enable (an hrtimer the kernel starts when
	 * the event is enabled, perf_swevent_start_hrtimer), so a run of count ns holds at most
	 * floor(count / period) of them: the expectation over time is floored, and a tick is
	 * missed only below that. */
	bool ticks_from_enable;
	/* Its basis covers every privilege level (a timer's clock runs in the kernel too, and the
	 * kernel drops the ticks that land in an excluded level without a LOST record): the
	 * experiments sample every level where the user may, so the expectation is sound. */
	bool samples_every_level;
	/* It traps on every event and samples some of them: its cost is per event as well as
	 * per sample (breakpoints, uprobes). */
	bool traps_every_event;
	/* It watches an address inside the program (a datum or an instruction), which only a
	 * workload that declares one can give. */
	bool needs_address;
	/* A precise facility (PEBS, IBS, SPE): compared with one another across vendors. */
	bool precise_family;
	/* The multi-event study opens this many copies: one more than fit, to show the one that
	 * does not (debug registers), or more than a PMU's counters, to force multiplexing. */
	unsigned multi_events;
	const struct pb_period_sets *periods;
	/* The basis of the expectation for a workload's truth: "declared" with *events set,
	 * "count" (the kernel's count), "time" or "undeclared" (no declared count exists).
	 * label: the label the facility sits on, NULL when none. */
	const char *(*declare)(const struct pb_spec *spec, const struct pb_truth *truth,
			       const struct pb_label_truth *label, uint64_t iterations,
			       uint64_t *events);
	/* The workload for a role (NULL hook: "accuracy"; "busy" for cost). A NULL answer: the
	 * role does not apply, *why says why. */
	const char *(*workload)(const struct pb_spec *spec, enum pb_workload_role role,
				const char **why);
	/* What the kernel's refusal to open its event (err_no from perf_event_open) means for
	 * this facility, in a parenthesis the error message carries; NULL hook or answer: the
	 * session's generic reading of err_no. */
	const char *(*open_refusal)(int err_no);
	/* Whether err_no from perf_event_open means the kernel will not place the event on the
	 * instruction it was asked to sit on (an instruction it can neither step out of line nor
	 * emulate): the note verify's row for that instruction says. NULL hook or answer: err_no
	 * is an error like any other. */
	const char *(*site_refusal)(int err_no);
	/* Whether the spec sits on one instruction (a label of the workload). NULL: never. */
	bool (*sits_on_instruction)(const struct pb_spec *spec);
	/* The class of probe site the cost of an event belongs to, for the spec sitting on
	 * code_addr (an address of this process) on machine m, with the instruction there written
	 * to insn: a uprobe's hit costs ~0.5 us where the kernel emulates the instruction and
	 * ~10 us where it single-steps it, so a cost per event measured on one class says nothing
	 * about another. NULL hook or NULL answer: the cost per event is the facility's own. */
	const char *(*event_cost_class)(const struct pb_machine *m, const struct pb_spec *spec,
					uint64_t code_addr, char *insn, size_t insn_len);
	/* The share of the workload's declared events the spec sees at user level alone, in
	 * [0, 1]: below 1 the spec must sample the kernel level to see them all (faults a
	 * workload takes inside a system call). NULL: all of them. */
	double (*user_level_share)(const struct pb_spec *spec, const struct pb_truth *truth);
	/* The spec whose spread over instructions the bias and shadow studies measure, written to
	 * buf; NULL with *why when the facility has no spread. NULL hook: the spec itself. */
	const char *(*spread_spec)(const struct pb_spec *spec, char *buf, size_t len,
				   const char **why);
	/* Randomises its own period in hardware: rewrites spec to ask for it (ibs-fetch:rand).
	 * NULL: period randomisation is pesbench's, by ioctl. */
	int (*randomise_in_hardware)(struct pb_spec *spec, struct pb_error *err);
	/* With a subset (pb_spec_has_subset): whether a sample belongs to the subset the spec names (ibs-op
	 * :subset=...: its raw registers decoded for machine m and classified). */
	bool (*sample_in_subset)(const struct pb_machine *m, const struct pb_spec *spec,
				 const struct pb_sample *sample);
	/* The i-th of perf's generic event names this facility takes as its event ("cycles" for
	 * hw:cycles), NULL past the last: a user may type one alone, as with perf -e, and
	 * pb_spec_parse reads it as NAME:EVENT (the first facility in the registry that takes it).
	 * NULL hook: none. */
	const char *(*perf_event_name)(size_t i);
	/* The name pesbench verify gives its oracle row; NULL: the spec text. */
	const char *oracle_name;
	/* Its overflow interrupt reads the counter into the event's count before it writes the
	 * sample (arm_pmu.c and x86's handlers: update, set the next period, then overflow), and
	 * the next overflow stays at a multiple of the period. So with PERF_SAMPLE_READ the k-th
	 * sample's count less k x period is the events counted between the k-th overflow and the
	 * sample: its skid in events. */
	bool skid_in_sample_count;

	/* --- Its hardware facts (issue 22: the descriptor owns them, probe and describe). --- */
	/* Fills its own facts of m (its named notes, pb_machine_note_set: struct pb_machine has no
	 * field of any facility) from what pb_machine_read found. prove: m is this machine under the real kernel, so it may open events to prove
	 * what sysfs claims. NULL: it has none. */
	void (*probe_machine)(struct pb_machine *m, bool prove);
	/* Describes its facts of m for `probe` (text and JSON), results.json's "facts" list (with
	 * the title report.html shows) and capture bundles; returns how many it wrote to out (at
	 * most max). NULL: none. */
	unsigned (*machine_facts)(const struct pb_machine *m, struct pb_machine_fact *out,
				  unsigned max);
	/* Its reading of a perf.data file's samples (pesbench perfdata); NULL: none. Facilities
	 * that share a decoder (ibs-op, ibs-fetch) point to one, and a file gets one state of it. */
	const struct pb_perfdata_decoder *perfdata;
	/* --- Its own per-event figures (x22traits): the shared point has no field for them; the
	 * point counts them through these hooks and writes each, with its unit, into the run's
	 * event record of results.json (named in its "facility_figures" list), and measure and
	 * report.html show them. NULL hooks: none. --- */
	/* The i-th figure this spec has, NULL past the last (at most PB_OWN_FIGURES). */
	const struct pb_own_figure *(*own_figure)(const struct pb_spec *spec, size_t i);
	/* Every figure own_figure may give, whatever the spec, NULL-terminated: a document that
	 * names no units (pesbench-results/1) takes each one's unit from here. */
	const struct pb_own_figure *const *own_figures;
	/* Adds one thread's part of the event to own[] (indexed as own_figure): the samples its
	 * ring gave (every one, before a subset's filter) and the ring's statistics. */
	void (*own_tally_thread)(const struct pb_spec *spec, uint64_t samples,
				 const struct pb_ring_stats *ring, uint64_t *own);
	/* Adds one sample of the event (every one the ring gave) to own[]. */
	void (*own_tally_sample)(const struct pb_machine *m, const struct pb_spec *spec,
				 const struct pb_sample *sample, uint64_t *own);
};

/* One of a facility's own per-event figures (pb_facility.own_figure). */
#define PB_OWN_FIGURES 4
struct pb_own_figure {
	const char *name;        /* its field in the run's event record of results.json */
	const char *unit;        /* its unit as results.json names it (pb_unit_name: "samples",
				  * "events", "ns", ...); a name it does not know is "count" */
	const char *shown;       /* how measure prints it after the count: a printf format with
				  * one %llu for the value */
};

/* The own figure of that name, of whichever facility gives it (pb_facility.own_figures);
 * NULL: none. */
const struct pb_own_figure *pb_own_figure_named(const char *name);

/* The first facility's l1_miss_counter; NULL: no facility counts L1 data-cache misses. */
const char *pb_l1_miss_counter(void);

/* NULL-terminated list of every facility. */
const struct pb_facility *const *pb_facility_list(void);
/* Adds f at the end of the registry, for a facility defined outside src/ (a test's: see
 * tests/test_plugin_probe.c). Not thread-safe: call it before anything reads the registry.
 * Returns -1 when the few spare slots are taken or a facility of that name exists. */
int pb_facility_register_extra(const struct pb_facility *f);
const struct pb_facility *pb_facility_find(const char *name);
/* The same, failing (exit 2) with the nearest facility names when there is none; text, when it
 * differs from name, starts the message ("--facility frob"). */
const struct pb_facility *pb_facility_find_or_fail(const char *name, const char *text,
						 struct pb_error *err);
/* Parses "name[:args]", or one of perf's generic event names alone ("cycles", read as
 * "hw:cycles"; spec->text is then the full spec). An unknown name gets the nearest known ones. */
int pb_spec_parse(const char *text, struct pb_spec *spec, struct pb_error *err);
/* The facility that takes perf's generic event name `event` (pb_facility.perf_event_name), or
 * NULL. */
const struct pb_facility *pb_facility_of_perf_name(const char *event);
const char *pb_ip_kind_name(enum pb_ip_kind kind);
const char *pb_verdict_name(enum pb_verdict verdict);
/* The IP relation of one spec on machine m (NULL: this machine). */
enum pb_ip_kind pb_spec_ip_kind(const struct pb_machine *m, const struct pb_spec *spec);

/* The IP relation of facility f's suite spec on machine m (NULL: this machine): what probe
 * shows for the facility as a whole (arm64 watchpoints are exact where x86's are next-insn). */
enum pb_ip_kind pb_facility_ip_kind(const struct pb_machine *m, const struct pb_facility *f);

/* The descriptor's model, with the defaults of facilities that leave a hook out. */
const char *pb_spec_declare(const struct pb_spec *spec, const struct pb_truth *truth, int label,
			    uint64_t iterations, uint64_t *events);
const char *pb_spec_workload(const struct pb_spec *spec, enum pb_workload_role role,
			     const char **why);
bool pb_spec_sits_on_instruction(const struct pb_spec *spec);
const char *pb_spec_open_refusal(const struct pb_spec *spec, int err_no);
/* site_refusal: NULL when err_no is not the kernel refusing the spec's instruction. */
const char *pb_spec_site_refusal(const struct pb_spec *spec, int err_no);
double pb_spec_user_level_share(const struct pb_spec *spec, const struct pb_truth *truth);
/* user_level_share below 1 */
bool pb_spec_needs_kernel_level(const struct pb_spec *spec, const struct pb_truth *truth);
const char *pb_spec_event_cost_class(const struct pb_machine *m, const struct pb_spec *spec,
				     uint64_t code_addr, char *insn, size_t insn_len);
const char *pb_spec_spread(const struct pb_spec *spec, char *buf, size_t len, const char **why);
/* The one check of a sampling period against its spec's facility, on every path a period
 * takes to an event (measure, run's --period and each experiment's own, capture, verify): at
 * least min_period and a multiple of period_multiple. 0 (counting) passes. what names the
 * period in the message ("--period"). Limits that depend on the machine (IBS's maximum, SPE's
 * min_interval) stay with the facility's attr(), which sees the machine. */
int pb_spec_check_period(const struct pb_spec *spec, uint64_t period, const char *what,
			 struct pb_error *err);
/* The spec the bias and shadow studies sample for spec (pb_spec_spread), parsed into out: a
 * spec travels parsed below the command line. -1 with *why when the facility has no spread or
 * the spread does not parse. */
int pb_spec_spread_parsed(const struct pb_spec *spec, struct pb_spec *out, const char **why);
/* Facility f's suite spec parsed into out (what the default suite runs); -1 with err when it
 * has none or it does not parse. */
int pb_facility_suite_parsed(const struct pb_facility *f, struct pb_spec *out,
			     struct pb_error *err);
/* The event-identity part of spec's attr on machine m (the facility's attr hook), with
 * sample_period: the one place it is written. */
int pb_spec_attr(const struct pb_machine *m, const struct pb_spec *spec,
		 const struct pb_target *target, uint64_t period, struct perf_event_attr *attr,
		 struct pb_error *err);
/* A counting event built into the program (an experiment's side check, text fixed in its
 * source), parsed into out when it is available on m and its attr encodes there; -1 with why
 * (what a result records) otherwise. */
int pb_spec_counting_here(const struct pb_machine *m, const char *text, struct pb_spec *out,
			  char *why, size_t why_len);
/* The unit of the facility's sampling period: "ns" (time_based) or "events". */
const char *pb_facility_period_unit(const struct pb_facility *f);
/* The spec's facility, from a spec text ("timer:cpu-clock" -> timer); NULL if none. */
const struct pb_facility *pb_facility_of(const char *spec_text);

/* The run-time hooks, each with its facility's default when the hook is left out (spec_hooks.c):
 * nothing outside facilities/ calls a hook itself. */
/* availability: whether f (spec NULL) or spec is usable on m. */
void pb_facility_availability(const struct pb_machine *m, const struct pb_facility *f,
			      const struct pb_spec *spec, struct pb_availability *out);
/* aux_deliver: the samples of one AUX chunk handed to fn; 0 for a facility without AUX. */
uint64_t pb_facility_aux_deliver(const struct pb_facility *f, struct pb_aux *aux,
				 const struct pb_record *aux_rec,
				 void (*fn)(void *ctx, const struct pb_record *rec), void *ctx,
				 struct pb_ring_stats *stats);
/* perf_event_name: the i-th of perf's generic names f takes, NULL past the last or none. */
const char *pb_facility_perf_event_name(const struct pb_facility *f, size_t i);
/* can_exclude: whether spec can leave out a privilege level; true without the hook. */
bool pb_spec_can_exclude(const struct pb_spec *spec);
/* filters_in_software: whether spec's LOST_SAMPLES are filtered, not lost; false without it. */
bool pb_spec_filters_in_software(const struct pb_spec *spec);
/* sample_in_subset: whether a sample belongs to the subset spec names (pb_spec_has_subset);
 * true without the hook. */
bool pb_spec_sample_in_subset(const struct pb_machine *m, const struct pb_spec *spec,
			      const struct pb_sample *sample);
/* randomise_in_hardware: 1 when spec was rewritten to randomise its period in hardware, 0 when
 * the facility leaves randomisation to pesbench (no hook), -1 with err when it refused. */
int pb_spec_randomise_in_hardware(struct pb_spec *spec, struct pb_error *err);
/* own_figure: spec's i-th own figure, NULL past the last, past PB_OWN_FIGURES or none. */
const struct pb_own_figure *pb_spec_own_figure(const struct pb_spec *spec, size_t i);
/* own_tally_thread / own_tally_sample: add to own[] (indexed as pb_spec_own_figure); nothing
 * without the hook. */
void pb_spec_own_tally_thread(const struct pb_spec *spec, uint64_t samples,
			      const struct pb_ring_stats *ring, uint64_t *own);
void pb_spec_own_tally_sample(const struct pb_machine *m, const struct pb_spec *spec,
			      const struct pb_sample *sample, uint64_t *own);

/* Specs from elsewhere than the command line, parsed in this layer (spec_entry.c). */
/* The public API's probe of a spec text (a bare name: the facility as a whole, as `probe`
 * asks), with the self-test when self_test: av filled, or -1 with err when text does not
 * parse. */
int pb_spec_text_availability(const struct pb_machine *m, const char *text, bool self_test,
			      struct pb_availability *av, struct pb_error *err);
/* A spec pesbench recorded in a file it reads back (a capture bundle): parsed as
 * pb_spec_parse does, but a spec that does not parse is the file's fault (PB_EXIT_BAD_FILE). */
int pb_spec_of_recorded(const char *text, struct pb_spec *spec, struct pb_error *err);
/* The exact counting events pesbench verify checks a workload's declared truth against. */
enum pb_oracle {
	PB_ORACLE_LABEL_HITS,    /* entries of a labelled instruction */
	PB_ORACLE_DATA_WRITES,   /* writes of a watched datum */
	PB_ORACLE_DATA_ACCESSES, /* reads and writes of it */
	PB_ORACLE_PAGE_FAULTS,
	PB_ORACLE_INSTRUCTIONS,  /* instructions retired */
	PB_ORACLES
};
/* The spec counting oracle, parsed into out; -1 with err when it does not parse. */
int pb_oracle_spec(enum pb_oracle oracle, struct pb_spec *out, struct pb_error *err);

/* The hardware-event basis shared by hw and pebs: an event name (perf's generic names or
 * libpfm4's) mapped to the truth field that counts it, from one table. */
struct pb_declared_event {
	const char *event;       /* as perf or libpfm4 name it, without a PMU prefix */
	const char *umasks;      /* "READ:MISS": exactly these umasks; "": none written */
	bool perf_generic;       /* perf's generic name (hw:instructions), not libpfm4's */
	int counts;              /* the truth field (model.c) */
};
extern const struct pb_declared_event pb_declared_event_table[];
/* The period sets exact facilities and counter-overflow facilities share. */
extern const struct pb_period_sets pb_exact_periods, pb_counter_periods; /* ends with event NULL */
/* The row declaring an event name ("skl::MEM_INST_RETIRED:ALL_LOADS"); NULL: none. */
const struct pb_declared_event *pb_declared_event_find(const char *event);
/* The declare hook of hw and pebs: the count of the truth field the spec's event counts, or
 * "count" for an event the table does not declare. */
const char *pb_declare_spec_event(const struct pb_spec *spec, const struct pb_truth *truth,
				  const struct pb_label_truth *label, uint64_t iterations,
				  uint64_t *events);

/* The availability rules the hardware facilities share. pb_perf_forbidden: true, with
 * out->reason, when perf_event_paranoid above 2 refuses every perf event to a user without
 * CAP_PERFMON. pb_user_space_only_note: "" when m may sample the kernel, else the remark the
 * availability detail ends with. */
bool pb_perf_forbidden(const struct pb_machine *m, struct pb_availability *out);
const char *pb_user_space_only_note(const struct pb_machine *m);

/* Availability and, on the live machine, the self-test (run once per facility kind and
 * process): a facility that failed its self-test is not available, with the verdict and its
 * figures as the reason. spec NULL: the facility as a whole. test may be NULL. */
void pb_facility_check(const struct pb_machine *m, const struct pb_spec *spec,
		       const struct pb_facility *f, struct pb_availability *av,
		       struct pb_self_test *test);
/* Forgets cached self-test verdicts (tests that swap the sys seam). */
void pb_facility_forget_self_tests(void);

/* Each facility file defines one of these. */
extern const struct pb_facility pb_facility_timer, pb_facility_sw, pb_facility_bp,
	pb_facility_uprobe, pb_facility_hw, pb_facility_pebs, pb_facility_ibs_op,
	pb_facility_ibs_fetch, pb_facility_spe;

#endif
