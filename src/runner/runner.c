/* Workload instances and the perf-free runner. */
#include "util/kit.h"
#include "runner/runner.h"

#include "sys/sys.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int pb_instance_init(struct pb_instance *in, const struct pb_workload_choice *choice,
		     uint64_t iterations, unsigned threads, struct pb_error *err)
{
	memset(in, 0, sizeof *in);
	if (threads < 1 || threads > PB_MAX_THREADS)
		return pb_fail(err, PB_EXIT_USAGE, 0, "threads must be within 1..%d, not %u",
			       PB_MAX_THREADS, threads);
	in->choice = *choice;
	in->iterations = iterations;
	in->threads = threads;
	in->code_label = -1;
	if (pb_workload_truth(choice, iterations, &in->truth, err))
		return -1;
	in->states = calloc(threads, sizeof *in->states);
	if (!in->states)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	return 0;
}

static void drop_state(struct pb_instance *in, unsigned thread)
{
	if (!in->states[thread])
		return;
	if (in->choice.workload->teardown)
		in->choice.workload->teardown(in->states[thread]);
	free(in->states[thread]);
	in->states[thread] = NULL;
}

void pb_instance_free(struct pb_instance *in)
{
	if (!in->states)
		return;
	for (unsigned t = 0; t < in->threads; t++)
		drop_state(in, t);
	free(in->states);
	in->states = NULL;
}

int pb_instance_prepare(void *ctx, unsigned thread, struct pb_target *target)
{
	struct pb_instance *in = ctx;
	const struct pb_workload *w = in->choice.workload;
	struct pb_error err = {0};
	drop_state(in, thread);
	/* calloc of at least 1 byte, so a stateless workload still has a non-NULL state. */
	void *state = calloc(1, w->state_size ? w->state_size : 1);
	memset(target, 0, sizeof *target);
	if (!state) {
		pb_fail(&err, PB_EXIT_FAILURE, 0, "%s: out of memory", w->name);
	} else if (w->setup && w->setup(state, in->choice.params, target, &err)) {
		if (w->teardown)
			w->teardown(state);
		free(state);
		state = NULL;
	}
	if (!state) {
		/* Several threads may fail at once; any one message will do. */
		static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
		pthread_mutex_lock(&lock);
		if (!in->thread_err.msg[0])
			in->thread_err = err;
		pthread_mutex_unlock(&lock);
		return -1;
	}
	in->states[thread] = state;
	if (in->code_label >= 0 && (unsigned)in->code_label < in->truth.nlabels)
		target->code_addr = in->truth.labels[in->code_label].addr;
	return 0;
}

void pb_instance_run(void *ctx, unsigned thread)
{
	struct pb_instance *in = ctx;
	in->choice.workload->run(in->states[thread], in->choice.params, in->iterations);
}

void pb_instance_session(struct pb_instance *in, struct pb_session_config *cfg)
{
	cfg->threads = in->threads;
	cfg->prepare = pb_instance_prepare;
	cfg->run = pb_instance_run;
	cfg->ctx = in;
}

struct runner {
	struct pb_instance *in;
	struct pb_runner_result *res;
	/* A barrier built from a mutex and a condition, so that a thread that could not be
	 * started does not leave the others waiting forever. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned ready;
	bool go;
	atomic_bool failed;
	_Atomic uint64_t release_ns, last_end_ns;
};

struct runner_thread {
	struct runner *r;
	unsigned index;
	pthread_t id;
};

unsigned pb_runner_thread_cpu(unsigned thread)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	return thread % (unsigned)(ncpus > 0 ? ncpus : 1);
}

static void *runner_main(void *arg)
{
	struct runner_thread *t = arg;
	struct runner *r = t->r;
	int cpu = (int)pb_runner_thread_cpu(t->index);
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* An unpinned run is still a run (a cgroup may forbid the CPU); the result says so. */
	r->res->pinned[t->index] = pb_sys()->sched_setaffinity(0, sizeof set, &set) == 0;
	r->res->cpu[t->index] = cpu;
	struct pb_target target;
	if (pb_instance_prepare(r->in, t->index, &target))
		atomic_store(&r->failed, true);
	pthread_mutex_lock(&r->lock);
	r->ready++;
	pthread_cond_broadcast(&r->cond);
	while (!r->go)
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
	if (atomic_load(&r->failed))
		return NULL;
	uint64_t start = pb_now_ns();
	uint64_t expected = 0;
	atomic_compare_exchange_strong(&r->release_ns, &expected, start);
	uint64_t cpu_start = pb_thread_cpu_ns();
	pb_instance_run(r->in, t->index);
	uint64_t cpu_end = pb_thread_cpu_ns();
	uint64_t end = pb_now_ns();
	r->res->elapsed_ns[t->index] = end - start;
	r->res->cpu_ns[t->index] = cpu_end - cpu_start;
	uint64_t last = atomic_load(&r->last_end_ns);
	while (end > last && !atomic_compare_exchange_weak(&r->last_end_ns, &last, end))
		;
	return NULL;
}

int pb_runner_run(struct pb_instance *in, struct pb_runner_result *res, struct pb_error *err)
{
	struct runner r = {.in = in, .res = res, .lock = PTHREAD_MUTEX_INITIALIZER,
			   .cond = PTHREAD_COND_INITIALIZER};
	memset(res, 0, sizeof *res);
	res->threads = in->threads;
	struct runner_thread *threads = calloc(in->threads, sizeof *threads);
	if (!threads)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	unsigned started = 0;
	for (; started < in->threads; started++) {
		threads[started] = (struct runner_thread){.r = &r, .index = started};
		if (pthread_create(&threads[started].id, NULL, runner_main, &threads[started]))
			break;
	}
	if (started < in->threads)
		atomic_store(&r.failed, true);
	pthread_mutex_lock(&r.lock);
	while (r.ready < started)
		pthread_cond_wait(&r.cond, &r.lock);
	r.go = true;
	pthread_cond_broadcast(&r.cond);
	pthread_mutex_unlock(&r.lock);
	for (unsigned i = 0; i < started; i++)
		pthread_join(threads[i].id, NULL);
	free(threads);
	if (started < in->threads)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "cannot start %u threads", in->threads);
	if (atomic_load(&r.failed)) {
		*err = in->thread_err;
		if (!err->code)
			err->code = PB_EXIT_FAILURE;
		return -1;
	}
	res->wall_ns = atomic_load(&r.last_end_ns) - atomic_load(&r.release_ns);
	return 0;
}
