#include "session/process.h"

#include "facilities/machine.h"
#include "sys/sys.h"
#include "util/kit.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct ring_slot {
	int fd;
	unsigned event;
	struct pb_ring ring;
	bool mapped;
	struct pb_record_format format;
};

static void deliver(const struct pb_process_config *cfg, const struct ring_slot *slot,
		    const struct pb_record *rec, struct pb_process_result *res)
{
	if (cfg->on_record)
		cfg->on_record(cfg->record_ctx, slot->event, rec);
	if (rec->type == PERF_RECORD_SAMPLE && cfg->on_sample_period) {
		uint64_t period = cfg->on_sample_period(cfg->record_ctx, slot->event, &rec->u.sample);
		if (period) {
			if (pb_sys()->ioctl(slot->fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&period))
				res->period_errors++;
			else
				res->period_changes++;
		}
	}
}

static void drain_all(const struct pb_process_config *cfg, struct ring_slot *slots, unsigned n,
		      struct pb_process_result *res)
{
	for (unsigned i = 0; i < n; i++) {
		if (!slots[i].mapped)
			continue;
		struct pb_event_result *er = &res->events[slots[i].event];
		struct pb_ring_iter it;
		struct pb_record rec;
		pb_ring_iter_begin(&it, &slots[i].ring, &slots[i].format);
		while (pb_ring_iter_next(&it, &rec)) {
			if (rec.type == PERF_RECORD_SAMPLE)
				er->samples++;
			deliver(cfg, &slots[i], &rec, res);
		}
		pb_ring_iter_end(&it, &er->ring);
	}
}

extern char **environ;

/* Whether entry ("NAME=value") sets the variable that set ("NAME=...") sets. */
static bool same_name(const char *entry, const char *set)
{
	size_t n = strcspn(set, "=");
	return !strncmp(entry, set, n) && entry[n] == '=';
}

/* The command's environment: this process's, with cfg->env_set's entries in place of those of
 * the same names. Built before fork, so that the child only points environ at it (a forked
 * child of a process with threads must not allocate). NULL with *failed false when there is
 * nothing to set. */
static char **command_environment(const struct pb_process_config *cfg, bool *failed)
{
	*failed = false;
	if (!cfg->env_set || !cfg->env_set[0])
		return NULL;
	size_t n = 0, k = 0;
	while (environ && environ[n])
		n++;
	while (cfg->env_set[k])
		k++;
	char **env = calloc(n + k + 1, sizeof *env);
	if (!env) {
		*failed = true;
		return NULL;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;
		for (size_t j = 0; j < k && !replaced; j++)
			replaced = same_name(environ[i], cfg->env_set[j]);
		if (!replaced)
			env[m++] = environ[i];
	}
	for (size_t j = 0; j < k; j++)
		env[m++] = cfg->env_set[j];
	return env;
}

/* The child: wait for the go byte, exec, or report errno through the CLOEXEC pipe. */
static void child_main(const struct pb_process_config *cfg, char **env, int go_fd, int err_fd)
{
	char go;
	if (read(go_fd, &go, 1) != 1)
		_exit(126);
	close(go_fd);
	if (cfg->quiet) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
			close(null);
		}
	}
	if (env)
		environ = env;
	execvp(cfg->argv[0], cfg->argv);
	int e = errno;
	if (write(err_fd, &e, sizeof e) != (ssize_t)sizeof e)
		_exit(127);
	_exit(127);
}

static void close_slots(struct ring_slot *slots, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (slots[i].mapped)
			pb_ring_unmap(&slots[i].ring);
		if (slots[i].fd >= 0)
			pb_sys()->close(slots[i].fd);
	}
}

/* The CPU time of pid's main thread, from /proc/PID/schedstat (its first field, ns on CPU);
 * 0 when it cannot be read (a kernel without CONFIG_SCHED_INFO). */
static uint64_t main_thread_cpu_ns(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid);
	FILE *f = fopen(path, "r");
	unsigned long long ns = 0;
	if (f) {
		if (fscanf(f, "%llu", &ns) != 1)
			ns = 0;
		fclose(f);
	}
	return ns;
}

static bool pin_child(pid_t pid, unsigned cpu)
{
	if (cpu >= CPU_SETSIZE) {
		errno = EINVAL;
		return false;
	}
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pb_sys()->sched_setaffinity(pid, sizeof set, &set) == 0;
}

int pb_process_run(const struct pb_process_config *cfg, struct pb_process_result *res,
		   struct pb_error *err)
{
	memset(res, 0, sizeof *res);
	if (!cfg->argv || !cfg->argv[0])
		return pb_fail(err, PB_EXIT_USAGE, 0, "no command to run (give it after --)");
	const struct pb_machine *m = cfg->machine ? cfg->machine : pb_machine_live();
	unsigned ncpus = cfg->inherit ? (m->ncpus ? m->ncpus : 1) : 1;
	if (ncpus > PB_PROCESS_MAX_CPUS)
		ncpus = PB_PROCESS_MAX_CPUS;

	bool no_memory;
	char **env = command_environment(cfg, &no_memory);
	if (no_memory)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	int go[2], errp[2];
	if (pipe2(go, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
		free(env);
		return pb_fail(err, PB_EXIT_FAILURE, errno, "pipe: %s", strerror(errno));
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		free(env);
		return pb_fail(err, PB_EXIT_FAILURE, errno, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(go[1]);
		close(errp[0]);
		child_main(cfg, env, go[0], errp[1]);
	}
	/* the child has its own copy */
	free(env);
	close(go[0]);
	close(errp[1]);
	res->pid = pid;
	/* set from here, while the child waits for go: the affinity holds across its exec and is
	 * inherited by whatever it starts */
	if (cfg->pin && !pin_child(pid, cfg->cpu)) {
		res->unpinned = true;
		res->unpinned_errno = errno;
	}

	unsigned nslots = cfg->nevents * ncpus;
	struct ring_slot *slots = calloc(nslots ? nslots : 1, sizeof *slots);
	int rc = 0;
	if (!slots) {
		rc = pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
		goto abandon;
	}
	for (unsigned i = 0; i < nslots; i++)
		slots[i].fd = -1;
	for (unsigned e = 0; e < cfg->nevents; e++) {
		struct pb_event_result *er = &res->events[e];
		struct perf_event_attr attr;
		struct pb_target none = {0};
		if (pb_event_attr(m, &cfg->events[e], &none, &attr, err)) {
			rc = -1;
			goto abandon;
		}
		attr.enable_on_exec = 1;
		attr.inherit = cfg->inherit;
		if (cfg->on_sample_period && cfg->events[e].period) {
			attr.watermark = 0;
			attr.wakeup_events = 1;
		}
		for (unsigned c = 0; c < ncpus; c++) {
			struct ring_slot *s = &slots[e * ncpus + c];
			struct pb_event_result one = {0};
			char what[256];
			snprintf(what, sizeof what, "%.200s on %s", cfg->events[e].spec.text,
				 cfg->argv[0]);
			s->fd = pb_event_open(&attr, &cfg->events[e].spec, pid,
					      cfg->inherit ? (int)c : -1, what, &one, err);
			if (s->fd < 0) {
				er->open_errno = one.open_errno;
				memcpy(er->open_error, one.open_error, sizeof er->open_error);
				rc = -1;
				goto abandon;
			}
			s->event = e;
			er->opened = true;
			er->has_lost_format = one.has_lost_format;
			er->attr = attr;
			if (!cfg->events[e].period)
				continue;
			pb_record_format_from_attr(&s->format, &attr);
			er->ring_pages = cfg->ring_pages ? cfg->ring_pages : 256;
			if (pb_ring_map(&s->ring, s->fd, er->ring_pages, err)) {
				rc = -1;
				goto abandon;
			}
			s->mapped = true;
		}
	}
	if (cfg->on_start)
		cfg->on_start(cfg->record_ctx, pid);

	uint64_t start = pb_now_ns();
	if (write(go[1], "g", 1) != 1) {
		rc = pb_fail(err, PB_EXIT_FAILURE, errno, "cannot start the command: %s",
			     strerror(errno));
		goto abandon;
	}
	close(go[1]);
	go[1] = -1;
	int exec_errno = 0;
	ssize_t got = read(errp[0], &exec_errno, sizeof exec_errno);
	close(errp[0]);
	errp[0] = -1;

	/* The parent sleeps until the command exits (a pidfd turns readable) or a ring reaches
	 * its watermark, instead of waking every few ms: on a machine with as many busy threads
	 * as CPUs, each wakeup of ours takes a CPU from the command, sampled or not. Without
	 * pidfd_open (before Linux 5.3) it falls back to polling every 2 ms. */
	int pidfd = -1;
#ifdef SYS_pidfd_open
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	struct pollfd *pfds = calloc(nslots + 1, sizeof *pfds);
	unsigned npfds = 0;
	if (pfds && pidfd >= 0)
		pfds[npfds++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
	for (unsigned i = 0; pfds && i < nslots; i++)
		if (slots[i].mapped)
			pfds[npfds++] = (struct pollfd){.fd = slots[i].fd, .events = POLLIN};
	int status = 0;
	for (;;) {
		/* the exit is seen without reaping (WNOWAIT), so that the main thread's own CPU
		 * time is read while the command is a zombie, before wait4 reaps it and folds its
		 * reaped children into one rusage */
		siginfo_t exited = {0};
		int waited = waitid(P_PID, (id_t)pid, &exited, WEXITED | WNOHANG | WNOWAIT);
		drain_all(cfg, slots, nslots, res);
		if (!waited && exited.si_pid == pid) {
			res->main_thread_cpu_ns = main_thread_cpu_ns(pid);
			pid_t done;
			while ((done = wait4(pid, &status, 0, &res->rusage)) < 0 && errno == EINTR)
				;
			if (done != pid)
				rc = pb_fail(err, PB_EXIT_FAILURE, errno, "wait4: %s", strerror(errno));
			break;
		}
		if (waited < 0 && errno != EINTR) {
			rc = pb_fail(err, PB_EXIT_FAILURE, errno, "waitid: %s", strerror(errno));
			break;
		}
		if (pidfd >= 0 && npfds)
			poll(pfds, npfds, -1);
		else if (npfds)
			poll(pfds, npfds, 2);
		else
			usleep(2000);
	}
	res->wall_ns = pb_now_ns() - start;
	if (pidfd >= 0)
		close(pidfd);
	free(pfds);
	for (unsigned i = 0; i < nslots; i++) {
		struct pb_event_result one = {.has_lost_format =
						      res->events[slots[i].event].has_lost_format};
		char what[256];
		snprintf(what, sizeof what, "%.200s on %s", cfg->events[slots[i].event].spec.text,
			 cfg->argv[0]);
		/* A sum with one CPU's counts missing would look like a smaller count: fail. */
		if (pb_event_read(slots[i].fd, what, &one, rc ? NULL : err)) {
			rc = -1;
			continue;
		}
		struct pb_event_result *er = &res->events[slots[i].event];
		er->count += one.count;
		er->time_enabled += one.time_enabled;
		er->time_running += one.time_running;
		er->lost_format += one.lost_format;
	}
	close_slots(slots, nslots);
	free(slots);
	if (got == (ssize_t)sizeof exec_errno)
		return pb_fail(err, PB_EXIT_USAGE, exec_errno, "cannot run '%s': %s%s",
			       cfg->argv[0], strerror(exec_errno),
			       /* a path is not looked up in PATH */
			       exec_errno == ENOENT && !strchr(cfg->argv[0], '/')
				       ? " (not found in PATH)"
				       : "");
	if (WIFEXITED(status))
		res->exit_code = WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		res->signaled = true;
		res->term_signal = WTERMSIG(status);
	}
	return rc;

abandon:
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (go[1] >= 0)
		close(go[1]);
	if (errp[0] >= 0)
		close(errp[0]);
	if (slots)
		close_slots(slots, nslots);
	free(slots);
	return -1;
}
