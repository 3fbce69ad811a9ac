/* Capture bundles: what one machine's sampling facilities gave, kept so that any other machine
 * can compute the same results again offline (`pesbench capture DIR`, `pesbench replay DIR`).
 *
 * A bundle is a folder:
 *   bundle.json            schema "pesbench-capture/1": what was captured and what pesbench
 *                          computed from it (below)
 *   machine/               the machine's facts in the layout of tests/fixtures/sysfs-* (proc/,
 *                          sys/, pesbench-caps, pesbench-dmesg): only the files pesbench reads
 *   points/NAME.tT.eE.perf.data
 *                          the records thread T's ring gave for event E of point NAME, as
 *                          perf.data (pesbench's writer), with the attr the event was opened with
 *
 * bundle.json holds, per point, the request (facility specs, periods, workload, iterations),
 * the workload's declared truth and code bytes as they were on the capturing machine (its
 * instruction set, its addresses), what read() gave per thread and event (counts, times), and
 * the results: each event's figures and the attribution per instruction. Replay recomputes
 * the results from the records and compares. */
#ifndef PB_BUNDLE_H
#define PB_BUNDLE_H

#include "facilities/machine.h"
#include "session/session.h"
#include "util/error.h"
#include "workloads/workload.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PB_BUNDLE_SCHEMA "pesbench-capture/1"
#define PB_BUNDLE_MAX_POINTS 64
#define PB_BUNDLE_MAX_THREADS 8
#define PB_BUNDLE_MAX_CODE (1u << 20)

/* What read() and the open gave for one thread's event: the figures no record carries. */
struct pb_bundle_reading {
	char file[160];              /* relative to the bundle: points/NAME.tT.eE.perf.data */
	bool opened;
	char open_error[256];
	unsigned ring_pages;
	bool has_lost_format;
	uint64_t lost_format, count, time_enabled, time_running, signals, signals_wrong_thread;
};

struct pb_bundle_event {
	char spec[192];
	uint64_t period;
	bool optional;
	struct pb_bundle_reading thread[PB_BUNDLE_MAX_THREADS];
};

struct pb_bundle_point {
	char name[64];               /* accuracy-timer, bias-bp, multi-sw, ... */
	char experiment[16];         /* accuracy, bias, multi */
	char workload[128];          /* "bias:variant=plain" */
	char label[64];
	uint64_t iterations;
	unsigned threads;
	bool attribute, exclude_kernel, exclude_user, run_with_unopened, run_failed;
	struct pb_truth truth;       /* as declared on the capturing machine */
	char watch_what[128];
	char isa[16];                /* "x86_64" or "aarch64": how to decode code[] */
	uint8_t *code;               /* [truth.code_begin, truth.code_end) */
	size_t code_len;
	struct pb_bundle_event events[PB_MAX_EVENTS];
	unsigned nevents;
	json_t *results;             /* what pesbench computed at capture */
};

/* One sampling run of a facility's self-test: its records are points/selftest-N.perf.data. */
struct pb_bundle_selftest_run {
	char facility[16];
	char spec[192];
	char file[160];
	uint64_t period, ip_lo, ip_hi;   /* the spin loop's code on the capturing machine */
	uint64_t exact_ip;               /* where every sample inside must be; 0: not checked */
	uint64_t counted;                /* the event's count over the run */
	uint64_t samples, samples_inside;/* what the self-test counted: replay counts them again */
	char verdict[16];
};
#define PB_BUNDLE_MAX_SELFTEST_RUNS 64

struct pb_bundle {
	char version[32];            /* pesbench's, at capture */
	char isa[16];
	json_t *probe;               /* pb_bundle_probe_json of machine/ at capture */
	json_t *self_tests;          /* [{facility, verdict, ...}]: the live self-tests */
	json_t *notes;               /* [text]: what was not captured, and why */
	struct pb_bundle_point *points;
	size_t npoints;
	struct pb_bundle_selftest_run *selftest_runs;
	size_t nselftest_runs;
};

/* Parses and checks bundle.json's text (outside bytes: every field's type and range, paths
 * inside the bundle). name is for messages. Fails with PB_EXIT_BAD_FILE naming the field. */
int pb_bundle_parse(const char *text, size_t len, const char *name, struct pb_bundle *out,
		    struct pb_error *err);
void pb_bundle_free(struct pb_bundle *b);
/* bundle.json of b (the inverse of pb_bundle_parse). */
json_t *pb_bundle_json(const struct pb_bundle *b);

/* Copies the files of the live machine pesbench reads into dir (made here), in the layout of
 * tests/fixtures/sysfs-*: procfs and sysfs entries, the kernel log lines about the PMU and
 * the debug registers, the privileges. No host name, user or process data. */
int pb_bundle_write_machine(const char *dir, const struct pb_machine *live, struct pb_error *err);
/* What a bundle keeps of the probe of its machine tree: the machine as probe --json shows it
 * (but its "root") and, per facility, whether it is available. */
json_t *pb_bundle_probe_json(const struct pb_machine *tree);

struct pb_capture_options {
	const char *dir;             /* must not exist, or be empty */
	const char *const *facilities; /* NULL: every facility available here */
	unsigned nfacilities;
	FILE *progress;              /* NULL: quiet */
};

/* Writes a bundle. Nothing at dir looks complete before it is: bundle.json is written last. */
int pb_capture(const struct pb_capture_options *o, struct pb_error *err);

struct pb_replay_report {
	unsigned points, identical, differ;
	unsigned selftest_runs, selftest_differ;
	bool probe_identical;
};

/* Recomputes every result of the bundle at dir and prints, per point, "identical" or the
 * differences (path: stored -> recomputed) to out. Returns 0 when it could replay (rep says
 * whether everything was identical), -1 with err when the bundle is unreadable or malformed. */
int pb_replay(const char *dir, FILE *out, struct pb_replay_report *rep, struct pb_error *err);

#endif
