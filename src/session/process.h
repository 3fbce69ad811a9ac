/* Sampling a command a user already has: fork, open the events on the child before it execs
 * (enable_on_exec, so pesbench's own work is never counted), exec, drain the rings while it
 * runs (like perf record), reap it with its rusage. With `inherit`, events follow the
 * command's threads and children: the kernel then needs one event per CPU (an inherited
 * per-task event cannot be mmapped). */
#ifndef PB_PROCESS_H
#define PB_PROCESS_H

#include "session/session.h"

#include <sys/resource.h>

#define PB_PROCESS_MAX_CPUS 512

struct pb_process_config {
	char *const *argv;                 /* the command; argv[0] searched in PATH */
	char *const *env_set;              /* "NAME=value" entries put in the command's
					    * environment over this process's, NULL-terminated;
					    * NULL: this process's as it is */
	struct pb_event_config events[PB_MAX_EVENTS];
	unsigned nevents;
	bool inherit;                      /* follow threads and child processes */
	bool pin;                          /* run the command, and all it starts, on cpu alone */
	unsigned cpu;
	unsigned ring_pages;               /* data pages per ring (power of two); 0 = 256 */
	const struct pb_machine *machine;  /* NULL: this machine */
	bool quiet;                        /* send the command's stdout/stderr to /dev/null */
	/* Called from the calling thread for every record, with the event index. */
	void (*on_record)(void *ctx, unsigned event, const struct pb_record *rec);
	void *record_ctx;
	/* Called once after the events are open and before exec (e.g. to write a perf.data
	 * header); may be NULL. */
	void (*on_start)(void *ctx, pid_t child);
	/* Called for every sample of a sampling event after on_record; a non-zero return becomes
	 * the event's next period (PERF_EVENT_IOC_PERIOD), e.g. a randomised period. When set,
	 * the event wakes the reader at every sample (wakeup_events = 1), so the new period takes
	 * effect a few microseconds after the sample, not a whole drain interval later. */
	uint64_t (*on_sample_period)(void *ctx, unsigned event, const struct pb_sample *s);
};

struct pb_process_result {
	pid_t pid;
	int exit_code;                     /* when exited normally */
	bool signaled;
	int term_signal;
	uint64_t wall_ns;                  /* exec to reap */
	struct rusage rusage;              /* the command's, from wait4 (ru_maxrss: its peak RSS) */
	uint64_t main_thread_cpu_ns;       /* its main thread's alone (what a task event without
					    * inherit sees); 0: not readable here */
	struct pb_event_result events[PB_MAX_EVENTS];  /* summed over CPUs */
	bool unpinned;                     /* pin asked and sched_setaffinity refused it (a
					    * cgroup's cpuset): the command ran where the kernel
					    * put it */
	int unpinned_errno;
	uint64_t period_changes;           /* PERF_EVENT_IOC_PERIOD calls that succeeded */
	uint64_t period_errors;            /* ... and that failed */
};

/* Runs the command to completion. Fails (PB_EXIT_USAGE) if it cannot be executed (not found,
 * not executable), and when an event cannot be opened (the command is then not run). A
 * command that exits non-zero or is killed is a result, not an error: see exit_code and
 * signaled. */
int pb_process_run(const struct pb_process_config *cfg, struct pb_process_result *res,
		   struct pb_error *err);

#endif
