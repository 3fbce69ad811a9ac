/* A workload instance: a workload choice with an iteration count, run on 1..N threads, each
 * on private data it allocated itself. pb_instance_prepare/pb_instance_run have exactly the
 * signatures of struct pb_session_config's prepare/run, so an instance plugs into a session;
 * pb_runner_run runs one without perf (its own pinned threads, released by a barrier). */
#ifndef PB_RUNNER_H
#define PB_RUNNER_H

#include "session/session.h"
#include "workloads/workload.h"

#include <stdint.h>

struct pb_instance {
	struct pb_workload_choice choice;
	uint64_t iterations;
	unsigned threads;
	/* Which label's address prepare() puts in pb_target.code_addr (uprobe, bp:x); -1 none. */
	int code_label;
	struct pb_truth truth;
	void **states;               /* one per thread, set up by prepare on that thread */
	struct pb_error thread_err;  /* the first preparation failure */
};

int pb_instance_init(struct pb_instance *in, const struct pb_workload_choice *choice,
		     uint64_t iterations, unsigned threads, struct pb_error *err);
void pb_instance_free(struct pb_instance *in);
/* Session callbacks; ctx is the struct pb_instance. prepare (re)builds the thread's private
 * data, so one instance serves several sessions in a row. */
int pb_instance_prepare(void *ctx, unsigned thread, struct pb_target *target);
void pb_instance_run(void *ctx, unsigned thread);
/* Sets threads, prepare, run and ctx of a session config. */
void pb_instance_session(struct pb_instance *in, struct pb_session_config *cfg);

struct pb_runner_result {
	unsigned threads;
	uint64_t wall_ns;            /* from barrier release to the last thread's end */
	uint64_t elapsed_ns[PB_MAX_THREADS];
	uint64_t cpu_ns[PB_MAX_THREADS]; /* each thread's CPU time across its run */
	int cpu[PB_MAX_THREADS];      /* asked for */
	bool pinned[PB_MAX_THREADS];  /* false: sched_setaffinity refused cpu */
};

/* The CPU thread i of a run is pinned to: i % the CPUs online. */
unsigned pb_runner_thread_cpu(unsigned thread);
/* Runs the instance without perf: thread i pinned to pb_runner_thread_cpu(i), all released
 * together. */
int pb_runner_run(struct pb_instance *in, struct pb_runner_result *res, struct pb_error *err);

#endif
