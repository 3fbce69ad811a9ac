/* The session: per-thread events around a measured region, four delivery modes, and an account
 * of every sample, kept or lost. All kernel calls go through the sys seam. */
#include "session/session.h"

#include "facilities/machine.h"
#include "ring/aux.h"
#include "sys/sys.h"
#include "util/kit.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif
/* glibc's siginfo_t lacks si_perf_data; the kernel puts it right after si_addr. */
#define SIGINFO_PERF_DATA_OFFSET 24

#define DEFAULT_MAX_RING_PAGES 16384u
#define SIGNAL_SLOTS 4096

/* ---- signal accounting: a slot per fd for signal mode, per (thread, event) for sigtrap ---- */

/* The handler compares pthread_self() (a register read) with the thread the slot expects, not
 * gettid(): a system call in every sample's handler was a fifth of signal mode's per-sample
 * path. */
struct signal_slot {
	_Atomic uint64_t signals;
	_Atomic uint64_t wrong_thread;
	_Atomic uintptr_t expected_thread;
};

static struct signal_slot fd_slots[SIGNAL_SLOTS];
static _Atomic uint64_t sigio_overflows;
static struct signal_slot trap_slots[PB_MAX_THREADS][PB_MAX_EVENTS];

static int current_tid(void)
{
	return (int)syscall(SYS_gettid);
}

static void count_signal(struct signal_slot *slot)
{
	atomic_fetch_add_explicit(&slot->signals, 1, memory_order_relaxed);
	if (atomic_load_explicit(&slot->expected_thread, memory_order_relaxed) !=
	    (uintptr_t)pthread_self())
		atomic_fetch_add_explicit(&slot->wrong_thread, 1, memory_order_relaxed);
}

static void on_async_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_fd >= 0 && si->si_fd < SIGNAL_SLOTS)
		count_signal(&fd_slots[si->si_fd]);
}

/* The kernel's fallback when a real-time signal cannot be queued: without a handler SIGIO
 * would end the process ("I/O possible"); with one, the loss is counted and reported. */
static void on_sigio(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	atomic_fetch_add_explicit(&sigio_overflows, 1, memory_order_relaxed);
}

static void on_sigtrap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code != TRAP_PERF)
		return;
	uint64_t cookie;
	memcpy(&cookie, (const char *)si + SIGINFO_PERF_DATA_OFFSET, sizeof cookie);
	uint64_t thread = cookie >> 8, event = cookie & 0xff;
	if (thread < PB_MAX_THREADS && event < PB_MAX_EVENTS)
		count_signal(&trap_slots[thread][event]);
}

/* ---- per-thread state ---- */

struct open_event {
	int fd;
	bool sampling;
	struct pb_ring ring;
	bool mapped;
	struct pb_record_format format;
	struct pb_aux aux;          /* facilities whose samples arrive in an AUX area */
};

struct session;

struct worker {
	struct session *s;
	unsigned index;
	int cpu;
	pthread_t thread;
	struct open_event ev[PB_MAX_EVENTS];
	bool failed;
	struct pb_error err;
};

struct session {
	const struct pb_session_config *cfg;
	struct pb_session_result *res;
	const struct pb_machine *machine;
	pthread_barrier_t opened, release;
	atomic_bool abort;
	int stop_fd;                 /* eventfd: wakes the collector to stop */
	struct worker *workers;
	/* Each worker drains its own rings as its region ends, while others may be draining
	 * theirs: held around delivery, so on_record is never called on two threads at once. */
	pthread_mutex_t deliver_lock;
	uint64_t release_ns;
	_Atomic uint64_t last_end_ns;
};

/* A generous size estimate of one sample record, for ring sizing in mode none. */
static uint64_t estimate_sample_bytes(const struct perf_event_attr *attr)
{
	uint64_t bytes = sizeof(struct perf_event_header);
	bytes += 8 * (uint64_t)__builtin_popcountll(attr->sample_type &
		(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
		 PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT |
		 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR));
	if (attr->sample_type & PERF_SAMPLE_READ)
		bytes += 8 * 5;
	if (attr->sample_type & PERF_SAMPLE_RAW)
		bytes += 128;
	if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK)
		bytes += 16 + 32 * 24;
	if (attr->sample_type & PERF_SAMPLE_CALLCHAIN)
		bytes += 8 * 128;
	return bytes;
}

static unsigned ring_pages_for(const struct pb_session_config *cfg,
			       const struct perf_event_attr *attr)
{
	if (cfg->ring_pages)
		return cfg->ring_pages;
	unsigned cap = cfg->max_ring_pages ? cfg->max_ring_pages : DEFAULT_MAX_RING_PAGES;
	if (cfg->delivery == PB_DELIVERY_DRAIN)
		return cap < 64 ? cap : 64;
	uint64_t expected = cfg->expected_samples ? cfg->expected_samples : 100000;
	return pb_ring_pages_for(pb_ring_bytes_for_samples(expected, estimate_sample_bytes(attr)),
				 cap);
}

static int open_one(struct worker *w, unsigned e, const struct pb_target *target)
{
	const struct pb_session_config *cfg = w->s->cfg;
	const struct pb_event_config *ec = &cfg->events[e];
	struct pb_event_result *er = &w->s->res->thread[w->index].events[e];
	struct open_event *oe = &w->ev[e];
	struct perf_event_attr *attr = &er->attr;
	oe->fd = -1;

	if (pb_event_attr(w->s->machine, ec, target, attr, &w->err))
		return -1;
	oe->sampling = ec->period != 0;
	if (oe->sampling) {
		switch (cfg->delivery) {
		case PB_DELIVERY_SIGNAL:
			if (cfg->wakeup_watermark) {
				attr->watermark = 1;
				attr->wakeup_watermark = cfg->wakeup_watermark;
			} else {
				attr->wakeup_events = cfg->wakeup_events ? cfg->wakeup_events : 1;
			}
			break;
		case PB_DELIVERY_SIGTRAP:
			attr->sigtrap = 1;
			attr->remove_on_exec = 1; /* the kernel requires it with sigtrap */
			attr->sig_data = ((uint64_t)w->index << 8) | e;
			break;
		case PB_DELIVERY_DRAIN:
		case PB_DELIVERY_NONE:
			break;
		}
	}

	const struct pb_sys *sys = pb_sys();
	char what[256];
	snprintf(what, sizeof what, "%.200s, thread %u", ec->spec.text, w->index);
	/* an event bound to one PMU of a hybrid machine counts on its thread's CPU only, which
	 * is one of that PMU's (pmu_cpu) */
	int fd = pb_event_open(attr, &ec->spec, 0, ec->spec.pmu[0] ? w->cpu : -1, what, er,
			       &w->err);
	if (fd < 0)
		return -1;
	oe->fd = fd;
	if (!oe->sampling)
		return 0;

	pb_record_format_from_attr(&oe->format, attr);
	er->ring_pages = ring_pages_for(cfg, attr);
	if (pb_ring_map(&oe->ring, fd, er->ring_pages, &w->err)) {
		return pb_error_append(&w->err, " (%s, thread %u, %u data pages; non-root users are "
				       "limited by /proc/sys/kernel/perf_event_mlock_kb)",
				       ec->spec.text, w->index, er->ring_pages);
	}
	oe->mapped = true;
	const struct pb_facility *f = ec->spec.facility;
	if (f->aux_pages) {
		unsigned most = cfg->max_ring_pages ? cfg->max_ring_pages : DEFAULT_MAX_RING_PAGES;
		unsigned aux_pages = pb_aux_pages_for(
			f->aux_pages, cfg->expected_samples * f->aux_record_bytes, most);
		/* the event is still disabled, as the AUX area needs */
		if (pb_aux_open(&oe->aux, &oe->ring, aux_pages, &w->err))
			return -1;
	}

	if (cfg->delivery == PB_DELIVERY_SIGNAL) {
		if (fd >= SIGNAL_SLOTS)
			return pb_fail(&w->err, PB_EXIT_FAILURE, 0, "fd %d beyond signal slots", fd);
		struct signal_slot *slot = &fd_slots[fd];
		atomic_store(&slot->signals, 0);
		atomic_store(&slot->wrong_thread, 0);
		atomic_store(&slot->expected_thread, (uintptr_t)pthread_self());
		struct f_owner_ex owner = {.type = F_OWNER_TID, .pid = current_tid()};
		int signo = cfg->signal_number ? cfg->signal_number : SIGRTMIN + 2;
		if (sys->fcntl(fd, F_SETOWN_EX, (unsigned long)(uintptr_t)&owner) ||
		    sys->fcntl(fd, F_SETSIG, (unsigned long)signo) ||
		    sys->fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK))
			return pb_fail(&w->err, PB_EXIT_FAILURE, errno,
				       "%s: cannot route signals to thread %u: %s", ec->spec.text,
				       w->index, strerror(errno));
	} else if (cfg->delivery == PB_DELIVERY_SIGTRAP) {
		struct signal_slot *slot = &trap_slots[w->index][e];
		atomic_store(&slot->signals, 0);
		atomic_store(&slot->wrong_thread, 0);
		atomic_store(&slot->expected_thread, (uintptr_t)pthread_self());
	}
	return 0;
}

struct drain_target {
	const struct pb_session_config *cfg;
	unsigned thread, event;
	uint64_t samples;
	struct pb_aux *aux;          /* set when the event's samples arrive in an AUX area */
	const struct pb_facility *facility;
	struct pb_ring_stats *stats;
};

static void deliver_record(void *ctx, const struct pb_record *rec)
{
	struct drain_target *t = ctx;
	if (rec->type == PERF_RECORD_SAMPLE)
		t->samples++;
	if (t->cfg->on_record)
		t->cfg->on_record(t->cfg->record_ctx, t->thread, t->event, rec);
	/* Each record of the chunk comes back here as a sample. */
	if (rec->type == PERF_RECORD_AUX && t->aux)
		pb_facility_aux_deliver(t->facility, t->aux, rec, deliver_record, t, t->stats);
}

static void drain_event(struct session *s, struct worker *w, unsigned e)
{
	struct open_event *oe = &w->ev[e];
	if (!oe->mapped)
		return;
	struct pb_event_result *er = &s->res->thread[w->index].events[e];
	struct drain_target t = {.cfg = s->cfg, .thread = w->index, .event = e,
				 .aux = oe->aux.ring ? &oe->aux : NULL, .stats = &er->ring,
				 .facility = s->cfg->events[e].spec.facility};
	pthread_mutex_lock(&s->deliver_lock);
	pb_ring_drain(&oe->ring, &oe->format, deliver_record, &t, &er->ring);
	pthread_mutex_unlock(&s->deliver_lock);
	er->samples += t.samples;
}

/* Records the thread's first failure; later ones would only hide its cause. */
static void worker_failed(struct worker *w, const struct pb_error *err)
{
	if (!w->failed)
		w->err = *err;
	w->failed = true;
}

static void read_counts(struct worker *w, unsigned e)
{
	char what[256];
	struct pb_error err = {0};
	snprintf(what, sizeof what, "%.200s, thread %u", w->s->cfg->events[e].spec.text, w->index);
	if (pb_event_read(w->ev[e].fd, what, &w->s->res->thread[w->index].events[e], &err))
		worker_failed(w, &err);
}

/* ENABLE or DISABLE one event; a refusal fails the run, as its counts would not be the
 * measured region's. */
static int toggle(struct worker *w, unsigned e, bool enable)
{
	unsigned long request = enable ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
	if (!pb_sys()->ioctl(w->ev[e].fd, request, 0))
		return 0;
	int saved = errno;
	struct pb_error err = {0};
	pb_fail(&err, PB_EXIT_FAILURE, saved, "%s, thread %u: cannot %s the event: %s",
		w->s->cfg->events[e].spec.text, w->index, enable ? "enable" : "disable",
		strerror(saved));
	worker_failed(w, &err);
	return -1;
}

static void close_events(struct worker *w, unsigned nevents)
{
	for (unsigned e = 0; e < nevents; e++) {
		pb_aux_close(&w->ev[e].aux);
		if (w->ev[e].mapped)
			pb_ring_unmap(&w->ev[e].ring);
		w->ev[e].mapped = false;
		if (w->ev[e].fd >= 0)
			pb_sys()->close(w->ev[e].fd);
		w->ev[e].fd = -1;
	}
}

static bool pin(struct worker *w)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	/* A failed pin is not fatal (a cgroup may forbid the CPU): the result says so. */
	return pb_sys()->sched_setaffinity(0, sizeof set, &set) == 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct session *s = w->s;
	const struct pb_session_config *cfg = s->cfg;
	struct pb_thread_result *tr = &s->res->thread[w->index];
	tr->cpu = w->cpu;
	tr->tid = current_tid();
	for (unsigned e = 0; e < cfg->nevents; e++)
		w->ev[e].fd = -1;
	tr->pinned = pin(w);

	struct pb_target target = {0};
	if (cfg->prepare && cfg->prepare(cfg->ctx, w->index, &target)) {
		w->failed = true;
		if (!w->err.msg[0])
			pb_fail(&w->err, PB_EXIT_FAILURE, 0, "workload preparation failed on thread %u",
				w->index);
	}
	for (unsigned e = 0; !w->failed && e < cfg->nevents; e++) {
		if (!open_one(w, e, &target))
			continue;
		const struct pb_event_result *er = &s->res->thread[w->index].events[e];
		if ((cfg->run_with_unopened || cfg->events[e].optional) && er->open_errno &&
		    w->ev[e].fd < 0)
			continue; /* recorded in er: the others run without it */
		w->failed = true;
	}
	if (w->failed)
		atomic_store(&s->abort, true);

	pthread_barrier_wait(&s->opened);
	pthread_barrier_wait(&s->release);
	if (atomic_load(&s->abort)) {
		close_events(w, cfg->nevents);
		return NULL;
	}

	for (unsigned e = 0; e < cfg->nevents; e++) {
		if (w->ev[e].fd < 0 || !toggle(w, e, true))
			continue;
		/* Without all its events the region would be measured in part: stop the ones
		 * enabled so far and skip it; closing the events is the session's. */
		while (e-- > 0)
			if (w->ev[e].fd >= 0)
				pb_sys()->ioctl(w->ev[e].fd, PERF_EVENT_IOC_DISABLE, 0);
		return NULL;
	}
	uint64_t start = pb_now_ns();
	uint64_t cpu_start = pb_thread_cpu_ns();
	cfg->run(cfg->ctx, w->index);
	uint64_t cpu_end = pb_thread_cpu_ns();
	uint64_t end = pb_now_ns();
	tr->cpu_ns = cpu_end - cpu_start;
	for (unsigned e = 0; e < cfg->nevents; e++)
		if (w->ev[e].fd >= 0)
			toggle(w, e, false);
	tr->elapsed_ns = end - start;
	uint64_t last = atomic_load(&s->last_end_ns);
	while (end > last && !atomic_compare_exchange_weak(&s->last_end_ns, &last, end))
		;

	for (unsigned e = 0; e < cfg->nevents; e++)
		if (w->ev[e].fd >= 0)
			read_counts(w, e);
	if (cfg->delivery != PB_DELIVERY_DRAIN)
		for (unsigned e = 0; e < cfg->nevents; e++)
			drain_event(s, w, e);
	return NULL;
}

static void *collector_main(void *arg)
{
	struct session *s = arg;
	const struct pb_session_config *cfg = s->cfg;
	unsigned n = 0;
	struct pollfd *fds = calloc((size_t)cfg->threads * cfg->nevents + 1, sizeof *fds);
	if (!fds)
		return NULL;
	fds[n++] = (struct pollfd){.fd = s->stop_fd, .events = POLLIN};
	for (unsigned t = 0; t < cfg->threads; t++)
		for (unsigned e = 0; e < cfg->nevents; e++)
			if (s->workers[t].ev[e].mapped)
				fds[n++] = (struct pollfd){.fd = s->workers[t].ev[e].fd, .events = POLLIN};
	/* Without an interval the collector sleeps until the kernel wakes it (the ring half full,
	 * its default watermark) or the session ends, as perf record does: a timer every 1 ms
	 * cost the sampled thread a wakeup on a shared CPU whether or not there was anything to
	 * read. The buffer experiment asks for an interval to show what eager polling buys. */
	int timeout_ms = cfg->drain_interval_us ? (int)(cfg->drain_interval_us + 999) / 1000 : -1;
	uint64_t wakeups = 0;
	for (;;) {
		poll(fds, n, timeout_ms);
		wakeups++;
		bool stopping = fds[0].revents & POLLIN;
		for (unsigned t = 0; t < cfg->threads; t++)
			for (unsigned e = 0; e < cfg->nevents; e++)
				drain_event(s, &s->workers[t], e);
		/* An event whose thread has ended (POLLHUP) is ready on every poll from then on:
		 * polled again it spun the collector until the session stopped, thousands of
		 * wakeups on the CPU the other sampled threads need. Its last records were just
		 * taken, and the final pass after the stop takes any left. */
		for (unsigned i = 1; i < n; i++)
			if (fds[i].revents & (POLLHUP | POLLERR | POLLNVAL))
				fds[i].fd = -1;
		if (stopping)
			break;
	}
	free(fds);
	s->res->collector_cpu_ns = pb_thread_cpu_ns();
	s->res->collector_wakeups = wakeups;
	return NULL;
}

static void collect_signal_counts(struct session *s)
{
	const struct pb_session_config *cfg = s->cfg;
	for (unsigned t = 0; t < cfg->threads; t++) {
		for (unsigned e = 0; e < cfg->nevents; e++) {
			struct pb_event_result *er = &s->res->thread[t].events[e];
			struct signal_slot *slot = NULL;
			if (cfg->delivery == PB_DELIVERY_SIGNAL && s->workers[t].ev[e].fd >= 0 &&
			    s->workers[t].ev[e].fd < SIGNAL_SLOTS)
				slot = &fd_slots[s->workers[t].ev[e].fd];
			else if (cfg->delivery == PB_DELIVERY_SIGTRAP)
				slot = &trap_slots[t][e];
			if (!slot)
				continue;
			er->signals = atomic_load(&slot->signals);
			er->signals_wrong_thread = atomic_load(&slot->wrong_thread);
		}
	}
}

/* Thread t's CPU: one of the CPUs of the PMU an event names (hw@cpu_atom), so the event can
 * count there; else t modulo the CPUs. */
static int pmu_cpu(const struct session *s, unsigned t, unsigned ncpus)
{
	for (unsigned e = 0; e < s->cfg->nevents; e++) {
		const struct pb_spec *spec = &s->cfg->events[e].spec;
		int cpu = spec->pmu[0] ? pb_pmu_cpu_at(pb_machine_pmu(s->machine, spec->pmu), t) : -1;
		if (cpu >= 0)
			return cpu;
	}
	return (int)(t % ncpus);
}

/* Threads of an event bound to one PMU (hw@cpu_atom) each get a CPU of that PMU: more threads
 * than it has CPUs would share them and distort every figure. */
static int check_pmu_threads(const struct pb_session_config *cfg, const struct pb_machine *m,
			     struct pb_error *err)
{
	for (unsigned e = 0; e < cfg->nevents; e++) {
		const struct pb_spec *spec = &cfg->events[e].spec;
		unsigned cpus = spec->pmu[0] ? pb_pmu_cpu_count(pb_machine_pmu(m, spec->pmu)) : 0;
		if (cpus && cfg->threads > cpus)
			return pb_fail(err, PB_EXIT_USAGE, 0,
				       "%s: %s covers %u CPUs; %u threads pinned to them would share "
				       "CPUs (use at most %u)", spec->text, spec->pmu, cpus,
				       cfg->threads, cpus);
	}
	return 0;
}

static int validate(const struct pb_session_config *cfg, struct pb_error *err)
{
	if (!cfg->run)
		return pb_fail(err, PB_EXIT_USAGE, 0, "session without a workload");
	if (cfg->threads < 1 || cfg->threads > PB_MAX_THREADS)
		return pb_fail(err, PB_EXIT_USAGE, 0, "thread count %u outside 1..%d", cfg->threads,
			       PB_MAX_THREADS);
	if (cfg->nevents > PB_MAX_EVENTS)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%u events requested; at most %d at once",
			       cfg->nevents, PB_MAX_EVENTS);
	for (unsigned e = 0; e < cfg->nevents; e++)
		if (!cfg->events[e].spec.facility)
			return pb_fail(err, PB_EXIT_USAGE, 0, "event %u has no facility", e);
	return pb_session_check_ring_pages(cfg->ring_pages, err);
}

int pb_session_run(const struct pb_session_config *cfg, struct pb_session_result *res,
		   struct pb_error *err)
{
	if (validate(cfg, err))
		return -1;
	memset(res, 0, sizeof *res);
	res->threads = cfg->threads;
	res->nevents = cfg->nevents;

	struct session s = {.cfg = cfg, .res = res, .machine = cfg->machine ? cfg->machine : pb_machine_live(),
			    .deliver_lock = PTHREAD_MUTEX_INITIALIZER};
	s.workers = calloc(cfg->threads, sizeof *s.workers);
	if (!s.workers)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
	unsigned ncpus = s.machine->ncpus ? s.machine->ncpus : 1;
	if (!cfg->cpus && check_pmu_threads(cfg, s.machine, err)) {
		free(s.workers);
		return -1;
	}

	/* pthread functions return the error instead of setting errno. */
	int perr = pthread_barrier_init(&s.opened, NULL, cfg->threads + 1);
	if (perr) {
		free(s.workers);
		return pb_fail(err, PB_EXIT_FAILURE, perr,
			       "cannot create the session's barrier for %u threads: %s",
			       cfg->threads, strerror(perr));
	}
	perr = pthread_barrier_init(&s.release, NULL, cfg->threads + 1);
	if (perr) {
		pthread_barrier_destroy(&s.opened);
		free(s.workers);
		return pb_fail(err, PB_EXIT_FAILURE, perr,
			       "cannot create the session's barrier for %u threads: %s",
			       cfg->threads, strerror(perr));
	}

	/* Without the handlers a sample's signal would take the default action, which for both
	 * is to kill the process. */
	struct sigaction old_async, old_trap, old_io, sa = {.sa_flags = SA_SIGINFO | SA_RESTART};
	sigemptyset(&sa.sa_mask);
	int signo = cfg->signal_number ? cfg->signal_number : SIGRTMIN + 2;
	sa.sa_sigaction = on_async_signal;
	int bad_signo = sigaction(signo, &sa, &old_async) ? signo : 0;
	sa.sa_sigaction = on_sigtrap;
	if (!bad_signo && sigaction(SIGTRAP, &sa, &old_trap)) {
		bad_signo = SIGTRAP;
		int saved = errno;
		sigaction(signo, &old_async, NULL);
		errno = saved;
	}
	atomic_store(&sigio_overflows, 0);
	sa.sa_sigaction = on_sigio;
	if (!bad_signo && sigaction(SIGIO, &sa, &old_io)) {
		bad_signo = SIGIO;
		int saved = errno;
		sigaction(signo, &old_async, NULL);
		sigaction(SIGTRAP, &old_trap, NULL);
		errno = saved;
	}
	if (bad_signo) {
		int saved = errno;
		pthread_barrier_destroy(&s.opened);
		pthread_barrier_destroy(&s.release);
		free(s.workers);
		/* a signal_number of the caller's is a bad input; the default failing is not */
		int code = bad_signo == cfg->signal_number ? PB_EXIT_USAGE : PB_EXIT_FAILURE;
		return pb_fail(err, code, saved,
			       "sigaction: cannot install the handler of signal %d (%s): %s",
			       bad_signo, strsignal(bad_signo), strerror(saved));
	}

	unsigned started = 0;
	for (unsigned t = 0; t < cfg->threads; t++) {
		struct worker *w = &s.workers[t];
		w->s = &s;
		w->index = t;
		w->cpu = cfg->cpus ? cfg->cpus[t] : pmu_cpu(&s, t, ncpus);
		if (pthread_create(&w->thread, NULL, worker_main, w))
			break;
		started++;
	}
	int rc = 0;
	if (started < cfg->threads) {
		/* Threads already waiting at the barrier cannot be released safely: this only
		 * happens when the process is out of threads, and is fatal. */
		fprintf(stderr, "pesbench: cannot create thread %u of %u\n", started, cfg->threads);
		abort();
	}

	pthread_barrier_wait(&s.opened);
	pthread_t collector;
	bool collecting = false;
	s.stop_fd = -1;
	if (!atomic_load(&s.abort) && cfg->delivery == PB_DELIVERY_DRAIN) {
		s.stop_fd = eventfd(0, EFD_CLOEXEC);
		if (s.stop_fd < 0) {
			/* Without it the collector could not be stopped: fail the session. */
			int saved = errno;
			atomic_store(&s.abort, true);
			pb_fail(&s.workers[0].err, PB_EXIT_FAILURE, saved,
				"cannot create the drain collector's eventfd: %s", strerror(saved));
			s.workers[0].failed = true;
		} else {
			collecting = !pthread_create(&collector, NULL, collector_main, &s);
		}
	}
	s.release_ns = pb_now_ns();
	pthread_barrier_wait(&s.release);
	for (unsigned t = 0; t < cfg->threads; t++)
		pthread_join(s.workers[t].thread, NULL);
	if (collecting) {
		uint64_t one = 1;
		while (write(s.stop_fd, &one, sizeof one) < 0 && errno == EINTR)
			;
		pthread_join(collector, NULL);
	}
	if (s.stop_fd >= 0)
		close(s.stop_fd);
	res->wall_ns = atomic_load(&s.last_end_ns) > s.release_ns
			       ? atomic_load(&s.last_end_ns) - s.release_ns : 0;
	collect_signal_counts(&s);

	for (unsigned t = 0; t < cfg->threads; t++) {
		close_events(&s.workers[t], cfg->nevents);
		if (s.workers[t].failed && !rc) {
			if (err)
				*err = s.workers[t].err;
			rc = -1;
		}
	}
	res->signal_overflows = atomic_load(&sigio_overflows);
	sigaction(signo, &old_async, NULL);
	sigaction(SIGTRAP, &old_trap, NULL);
	sigaction(SIGIO, &old_io, NULL);
	pthread_barrier_destroy(&s.opened);
	pthread_barrier_destroy(&s.release);
	free(s.workers);
	return rc;
}
