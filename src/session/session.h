/* A session runs a workload on N pinned threads; each thread opens its own events (pid 0,
 * cpu -1), maps its own rings, enables them around the measured region only, and accounts
 * every sample kept or lost. Delivery modes decide who drains the rings and when. */
#ifndef PB_SESSION_H
#define PB_SESSION_H

#include "facilities/facility.h"
#include "ring/ring.h"
#include "util/error.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PB_MAX_EVENTS 8
#define PB_MAX_THREADS 256

enum pb_delivery {
	PB_DELIVERY_NONE,     /* samples stay in a ring sized for the run, read afterwards */
	PB_DELIVERY_SIGNAL,   /* a real-time signal per wakeup (O_ASYNC, F_SETSIG, F_SETOWN_EX) */
	PB_DELIVERY_SIGTRAP,  /* attr.sigtrap: a synchronous SIGTRAP per sample, no wakeup */
	PB_DELIVERY_DRAIN     /* a collector thread polls and drains, like perf record */
};

const char *pb_delivery_name(enum pb_delivery d);
int pb_delivery_parse(const char *text, enum pb_delivery *out, struct pb_error *err);

struct pb_event_config {
	struct pb_spec spec;
	uint64_t period;          /* 0 = count only (no sampling) */
	uint64_t extra_sample_type;  /* PERF_SAMPLE_* wanted beyond the defaults */
	bool exclude_kernel;      /* applied unless the facility cannot filter */
	bool exclude_user;
	bool track_maps;          /* attr.mmap/mmap2/comm: MMAP2 and COMM records, for symbols */
	bool optional;            /* when it cannot open, the others run without it (as
				   * run_with_unopened, for this event alone) */
};

struct pb_session_config {
	struct pb_event_config events[PB_MAX_EVENTS];
	unsigned nevents;
	enum pb_delivery delivery;
	const struct pb_machine *machine; /* NULL = this machine (pb_machine_live) */
	unsigned threads;             /* >= 1 */
	/* An event the kernel refuses to open (no free counter or debug register, not
	 * schedulable) is recorded as not opened and the others still run; otherwise any
	 * refusal ends the session. Errors building the attr always end it. */
	bool run_with_unopened;
	const int *cpus;              /* pin thread i to cpus[i]; NULL = i % ncpus */
	unsigned ring_pages;          /* data pages per event; 0 = sized from expected_samples */
	uint64_t expected_samples;    /* per thread per event, for ring sizing in mode none */
	unsigned max_ring_pages;      /* cap for automatic sizing; 0 = 16384 (64 MiB) */
	unsigned wakeup_events;       /* signal mode: samples per wakeup (default 1) */
	uint32_t wakeup_watermark;    /* bytes; when set, used instead of wakeup_events */
	unsigned drain_interval_us;   /* drain mode: poll at least this often; 0 (default): sleep
				       * until a ring reaches its watermark (half full) or the
				       * run ends, as perf record does */
	int signal_number;            /* signal mode: default SIGRTMIN+2 */
	/* Workload: prepare fills the thread's target (before its events are opened, outside the
	 * measured region), run is the measured region. Both run on the thread itself. */
	int (*prepare)(void *ctx, unsigned thread, struct pb_target *target);
	void (*run)(void *ctx, unsigned thread);
	void *ctx;
	/* Consumer: one call per record, from the workload thread after its run or from the
	 * collector, never from two threads at once (the session serialises them). May be NULL. */
	void (*on_record)(void *ctx, unsigned thread, unsigned event, const struct pb_record *rec);
	void *record_ctx;
};

struct pb_event_result {
	bool opened;
	int open_errno;
	char open_error[256];
	uint64_t samples;             /* PERF_RECORD_SAMPLE records read */
	struct pb_ring_stats ring;    /* all records, losses, throttles seen in the ring */
	unsigned ring_pages;
	bool has_lost_format;
	uint64_t lost_format;         /* PERF_FORMAT_LOST: samples the kernel dropped */
	uint64_t count;               /* events counted during the measured region */
	uint64_t time_enabled, time_running;
	uint64_t signals;             /* signals delivered for this event (signal, sigtrap) */
	uint64_t signals_wrong_thread;/* delivered to a thread other than the sampled one */
	struct perf_event_attr attr;  /* what was asked of the kernel */
};

struct pb_thread_result {
	int cpu;                      /* the CPU the thread was to be pinned to */
	bool pinned;                  /* false: sched_setaffinity refused cpu (e.g. a cgroup's
				       * cpuset), the thread ran wherever the scheduler put it */
	pid_t tid;
	uint64_t elapsed_ns;          /* CLOCK_MONOTONIC across the measured region */
	uint64_t cpu_ns;              /* the thread's CPU time (user + kernel, interrupts taken
				       * while it ran included) across the measured region: what
				       * sampling costs the thread, without the time it waited for
				       * a CPU other programs held */
	struct pb_event_result events[PB_MAX_EVENTS];
};

struct pb_session_result {
	unsigned threads, nevents;
	struct pb_thread_result thread[PB_MAX_THREADS];
	uint64_t wall_ns;             /* from barrier release to the last thread's end */
	/* Signal mode: SIGIOs received, each a real-time signal the kernel could not queue (the
	 * queue was at RLIMIT_SIGPENDING) and so never delivered. A lower bound of the signals
	 * lost (a SIGIO arriving while one is pending merges with it), for the whole session:
	 * a SIGIO does not say which event it stands for. The samples are in the rings. */
	uint64_t signal_overflows;
	/* Drain mode: the collector thread's CPU time, its whole life (polling, reading the rings,
	 * delivering every record): what the engine costs beside what the sampled threads pay.
	 * 0 in the other modes, where a sampled thread reads its own ring once its region ends. */
	uint64_t collector_cpu_ns;
	uint64_t collector_wakeups;   /* drain mode: the collector's returns from poll */
};

/* Runs the session. Fails (returns -1 with err) if any thread could not open or map an event,
 * enable or disable it, or read its counts in full; per-event open failures are also recorded
 * in the results. A thread that could not be pinned is not a failure (see pinned). */
int pb_session_run(const struct pb_session_config *cfg, struct pb_session_result *res,
		   struct pb_error *err);

/* Building blocks shared with process.c: the attr of one event (the facility's identity part
 * plus the common part: disabled, read_format with PERF_FORMAT_LOST, sample fields), opening it
 * (retrying without PERF_FORMAT_LOST before Linux 6.0; errors named and explained in er, by
 * spec's facility where it reads them its own way; spec may be NULL), and
 * reading its counts. */
int pb_event_attr(const struct pb_machine *m, const struct pb_event_config *ec,
		  const struct pb_target *target, struct perf_event_attr *attr,
		  struct pb_error *err);
int pb_event_open(struct perf_event_attr *attr, const struct pb_spec *spec, pid_t pid, int cpu,
		  const char *what, struct pb_event_result *er, struct pb_error *err);
/* Fails (-1, err naming `what`) on a read error or a short read: er's counts are then left
 * as they were, never filled from a partial buffer. */
int pb_event_read(int fd, const char *what, struct pb_event_result *er, struct pb_error *err);

/* Losses of one event, all sources: the larger of the kernel's PERF_FORMAT_LOST and the
 * LOST records seen, plus LOST_SAMPLES. */
uint64_t pb_event_lost(const struct pb_event_result *ev);
/* True when the kernel multiplexed (time_running < time_enabled). */
bool pb_event_multiplexed(const struct pb_event_result *ev);

/* Bytes of ring for samples records of sample_bytes each in mode none: a quarter more, plus
 * room for side-band records; UINT64_MAX when that does not fit in 64 bits. */
uint64_t pb_ring_bytes_for_samples(uint64_t samples, uint64_t sample_bytes);

/* A ring size the kernel accepts (0: sized for the run, else a power of two). */
int pb_session_check_ring_pages(unsigned pages, struct pb_error *err);

#endif
