#include "facilities/selftest.h"

#include "ring/ring.h"
#include "sys/sys.h"
#include "util/kit.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The spin loop is assembly so that its instruction count is known, whatever the compiler. */
#if defined(__x86_64__)
__asm__(".text\n"
	".globl pb_selftest_spin\n"
	".type pb_selftest_spin, @function\n"
	"pb_selftest_spin:\n"
	".globl pb_selftest_spin_begin\n"
	"pb_selftest_spin_begin:\n"
	"1:	dec %rdi\n"
	".globl pb_selftest_spin_branch\n"
	"pb_selftest_spin_branch:\n"
	"	jnz 1b\n"
	".globl pb_selftest_spin_end\n"
	"pb_selftest_spin_end:\n"
	"	ret\n"
	".size pb_selftest_spin, . - pb_selftest_spin\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl pb_selftest_spin\n"
	".type pb_selftest_spin, %function\n"
	"pb_selftest_spin:\n"
	".globl pb_selftest_spin_begin\n"
	"pb_selftest_spin_begin:\n"
	"1:	subs x0, x0, #1\n"
	".globl pb_selftest_spin_branch\n"
	"pb_selftest_spin_branch:\n"
	"	b.ne 1b\n"
	".globl pb_selftest_spin_end\n"
	"pb_selftest_spin_end:\n"
	"	ret\n"
	".size pb_selftest_spin, . - pb_selftest_spin\n");
#elif defined(__riscv)
/* norvc: 4-byte instructions, as the workloads' (workloads/asm.h) */
__asm__(".text\n"
	".option push\n"
	".option norvc\n"
	".globl pb_selftest_spin\n"
	".type pb_selftest_spin, %function\n"
	"pb_selftest_spin:\n"
	".globl pb_selftest_spin_begin\n"
	"pb_selftest_spin_begin:\n"
	"1:	addi a0, a0, -1\n"
	".globl pb_selftest_spin_branch\n"
	"pb_selftest_spin_branch:\n"
	"	bnez a0, 1b\n"
	".globl pb_selftest_spin_end\n"
	"pb_selftest_spin_end:\n"
	"	ret\n"
	".size pb_selftest_spin, . - pb_selftest_spin\n"
	".option pop\n");
#else
#error "pb_selftest_spin has no loop for this architecture"
#endif

uint64_t pb_selftest_spin_instructions(uint64_t iterations)
{
	return 2 * iterations + 1;
}

static uint64_t spin_last_iterations;

void pb_selftest_spin_loop(void *arg, unsigned n)
{
	(void)arg;
	spin_last_iterations = (uint64_t)n * 1000;
	pb_selftest_spin(spin_last_iterations);
}

uint64_t pb_selftest_spin_last_iterations(void)
{
	return spin_last_iterations;
}

/* The attr of one self-test event: the facility's own, plus what a bare event needs. */
static int build_attr(const struct pb_machine *m, const struct pb_spec *spec,
		      const struct pb_selftest_run *run, uint64_t period,
		      struct perf_event_attr *attr, struct pb_self_test *out)
{
	memset(attr, 0, sizeof *attr);
	attr->exclude_kernel = !run->all_levels;
	attr->exclude_hv = !run->all_levels;
	struct pb_error err = {0};
	if (pb_spec_attr(m, spec, run->target, period, attr, &err)) {
		out->verdict = PB_VERDICT_REFUSED;
		snprintf(out->text, sizeof out->text, "%s", err.msg);
		return -1;
	}
	attr->size = sizeof *attr;
	attr->disabled = 1;
	return 0;
}

/* The verdict where a system call refused what the test asked: errno kept, and said. */
static void refused_by_errno(struct pb_self_test *out, const char *what)
{
	out->verdict = PB_VERDICT_REFUSED;
	out->sys_errno = errno;
	snprintf(out->text, sizeof out->text, "%s: %s", what, strerror(errno));
}

static int open_event(struct perf_event_attr *attr, struct pb_self_test *out)
{
	int fd = pb_sys()->perf_event_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		refused_by_errno(out, "perf_event_open refused the event");
	return fd;
}

static int run_enabled(int fd, const struct pb_selftest_run *run, uint64_t *count,
		       struct pb_self_test *out)
{
	const struct pb_sys *sys = pb_sys();
	if (sys->ioctl(fd, PERF_EVENT_IOC_RESET, 0) || sys->ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		refused_by_errno(out, "enabling the event failed");
		return -1;
	}
	run->loop(run->arg, run->n);
	sys->ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	*count = 0;
	if (sys->read(fd, count, sizeof *count) != (ssize_t)sizeof *count) {
		refused_by_errno(out, "reading the event's count failed");
		return -1;
	}
	return 0;
}

/* The verdict of a count against the loop's events; how: "" or delivery_words(). */
static void judge_count(const struct pb_selftest_run *run, const char *how,
			struct pb_self_test *out)
{
	if (!out->counted) {
		out->verdict = PB_VERDICT_INERT;
		snprintf(out->text, sizeof out->text,
			 "the kernel accepts %s but none fired%s: %llu %s, 0 counted", run->accepted,
			 how, (unsigned long long)run->expected, run->what);
	} else if (out->counted != run->expected) {
		out->verdict = PB_VERDICT_INEXACT;
		bool over = out->counted > run->expected;
		snprintf(out->text, sizeof out->text, "%s miscount%s: %llu %s, %llu counted (%s by "
			 "%llu)", run->accepted, how, (unsigned long long)run->expected, run->what,
			 (unsigned long long)out->counted, over ? "over" : "under",
			 (unsigned long long)(over ? out->counted - run->expected
						   : run->expected - out->counted));
	} else {
		out->verdict = PB_VERDICT_WORKS;
		snprintf(out->text, sizeof out->text, "%llu %s, %llu counted%s",
			 (unsigned long long)run->expected, run->what,
			 (unsigned long long)out->counted, how);
	}
}

void pb_selftest_count(const struct pb_machine *m, const struct pb_spec *spec,
		       const struct pb_selftest_run *run, struct pb_self_test *out)
{
	memset(out, 0, sizeof *out);
	uint64_t t0 = pb_now_ns();
	out->expected = run->expected;
	struct perf_event_attr attr;
	if (build_attr(m, spec, run, 0, &attr, out) == 0) {
		int fd = open_event(&attr, out);
		if (fd >= 0) {
			if (run_enabled(fd, run, &out->counted, out) == 0)
				judge_count(run, "", out);
			pb_sys()->close(fd);
		}
	}
	out->ms = (double)(pb_now_ns() - t0) / 1e6;
	out->attempts = 1;
}

/* The tries of pb_selftest_count_offset: an interrupt in a run's window only adds, so each
 * length's smallest count is its cleanest; a pair that disagrees is run again up to this
 * many times in all, and a miscount believed when no try gave a clean pair. */
#define OFFSET_TRIES 3

/* Words the verdict of the smallest counts at n (short) and 2n (long). */
static void judge_offset(const struct pb_selftest_run *run, uint64_t short_count,
			 uint64_t long_count, struct pb_self_test *out)
{
	uint64_t long_expected = run->expected + run->per_n * run->n;
	out->counted = short_count;
	if (!short_count && !long_count) {
		out->verdict = PB_VERDICT_INERT;
		snprintf(out->text, sizeof out->text,
			 "the kernel accepts %s but none fired: %llu %s, 0 counted", run->accepted,
			 (unsigned long long)run->expected, run->what);
		return;
	}
	uint64_t loop = run->per_n * run->n;
	int64_t more = (int64_t)(long_count - short_count);
	if (more != (int64_t)loop) {
		out->verdict = PB_VERDICT_INEXACT;
		bool over = more > (int64_t)loop;
		snprintf(out->text, sizeof out->text,
			 "%s miscount: %llu %s, %llu counted; %llu, %llu counted: the longer run "
			 "counted %lld more where its loop has %llu more (%s by %llu)",
			 run->accepted, (unsigned long long)run->expected, run->what,
			 (unsigned long long)short_count, (unsigned long long)long_expected,
			 (unsigned long long)long_count, (long long)more, (unsigned long long)loop,
			 over ? "over" : "under",
			 (unsigned long long)(over ? more - (int64_t)loop : (int64_t)loop - more));
	} else if (short_count < run->expected) {
		/* the loop's own events ran between enable and disable: fewer is a loss */
		out->verdict = PB_VERDICT_INEXACT;
		snprintf(out->text, sizeof out->text,
			 "%s miscount: %llu %s, %llu counted (under by %llu) at both lengths",
			 run->accepted, (unsigned long long)run->expected, run->what,
			 (unsigned long long)short_count,
			 (unsigned long long)(run->expected - short_count));
	} else {
		out->verdict = PB_VERDICT_WORKS;
		snprintf(out->text, sizeof out->text,
			 "%llu %s, %llu counted, and %llu, %llu counted: the loop exact, %llu more "
			 "at the enable/disable boundaries", (unsigned long long)run->expected,
			 run->what, (unsigned long long)short_count,
			 (unsigned long long)long_expected, (unsigned long long)long_count,
			 (unsigned long long)(short_count - run->expected));
	}
}

void pb_selftest_count_offset(const struct pb_machine *m, const struct pb_spec *spec,
			      const struct pb_selftest_run *run, struct pb_self_test *out)
{
	memset(out, 0, sizeof *out);
	uint64_t t0 = pb_now_ns();
	out->expected = run->expected;
	struct perf_event_attr attr;
	unsigned tries = 0;
	char earlier[sizeof out->earlier] = "";
	if (build_attr(m, spec, run, 0, &attr, out) == 0) {
		int fd = open_event(&attr, out);
		struct pb_selftest_run longer = *run;
		longer.n = 2 * run->n;
		uint64_t short_min = UINT64_MAX, long_min = UINT64_MAX;
		while (fd >= 0 && tries < OFFSET_TRIES) {
			uint64_t short_count = 0, long_count = 0;
			if (run_enabled(fd, run, &short_count, out) ||
			    run_enabled(fd, &longer, &long_count, out))
				break;
			tries++;
			short_min = short_count < short_min ? short_count : short_min;
			long_min = long_count < long_min ? long_count : long_min;
			judge_offset(run, short_min, long_min, out);
			if (out->verdict != PB_VERDICT_INEXACT || tries == OFFSET_TRIES)
				break;
			size_t used = strlen(earlier);
			snprintf(earlier + used, sizeof earlier - used,
				 "%sattempt %u: %llu and %llu counted", used ? "; " : "", tries,
				 (unsigned long long)short_count, (unsigned long long)long_count);
		}
		if (fd >= 0)
			pb_sys()->close(fd);
	}
	out->ms = (double)(pb_now_ns() - t0) / 1e6;
	out->attempts = tries ? tries : 1;
	if (out->verdict == PB_VERDICT_REFUSED)
		return;
	snprintf(out->earlier, sizeof out->earlier, "%s", tries > 1 ? earlier : "");
	if (tries > 1) {
		size_t n = strlen(out->text);
		snprintf(out->text + n, sizeof out->text - n,
			 " (the smallest counts of %u tries; %.200s)", tries, earlier);
	}
}

/* A sampling test's start: out cleared, the clock read, its ring's state allocated (NULL, out
 * refused, when memory is short). */
static struct pb_ring *start_sampling(struct pb_self_test *out, uint64_t *t0)
{
	memset(out, 0, sizeof *out);
	*t0 = pb_now_ns();
	struct pb_ring *ring = calloc(1, sizeof *ring);
	if (!ring) {
		out->verdict = PB_VERDICT_REFUSED;
		snprintf(out->text, sizeof out->text, "out of memory");
	}
	return ring;
}

#define SIGNALLED_PERIOD 4
static volatile sig_atomic_t signals_caught;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	signals_caught = signals_caught + 1;
}

/* A signal per sample as the measurement will have them: for --delivery signal a real-time
 * signal per wakeup (wakeup_events 1), routed to this thread (session.c's open_one); for
 * sigtrap attr.sigtrap's synchronous SIGTRAP per overflow. Set on the attr before the open. */
static void deliver_in_attr(const struct pb_spec *spec, struct perf_event_attr *attr)
{
	if (spec->sigtrap_per_sample) {
		attr->sigtrap = 1;
		attr->remove_on_exec = 1; /* the kernel requires it with sigtrap */
	} else {
		attr->wakeup_events = 1;
	}
}

static const char *delivery_words(const struct pb_spec *spec)
{
	return spec->sigtrap_per_sample ? " with a SIGTRAP per sample" : " with a signal per sample";
}

/* The handler stays until the event is closed: a signal still queued then would otherwise
 * take its default action, which ends the process. */
struct signal_route {
	int signo;
	bool installed;
	struct sigaction old;
};

static int route_signals(int fd, const struct pb_spec *spec, struct signal_route *r,
			 struct pb_self_test *out)
{
	r->signo = spec->sigtrap_per_sample ? SIGTRAP : SIGRTMIN + 3;
	r->installed = false;
	struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART};
	sigemptyset(&sa.sa_mask);
	if (sigaction(r->signo, &sa, &r->old)) {
		out->verdict = PB_VERDICT_REFUSED;
		snprintf(out->text, sizeof out->text, "cannot catch signal %d: %s", r->signo,
			 strerror(errno));
		return -1;
	}
	r->installed = true;
	signals_caught = 0;
	if (spec->sigtrap_per_sample)
		return 0; /* the kernel sends it to the thread that overflowed */
	struct f_owner_ex owner = {.type = F_OWNER_TID, .pid = (pid_t)syscall(SYS_gettid)};
	const struct pb_sys *sys = pb_sys();
	if (sys->fcntl(fd, F_SETOWN_EX, (unsigned long)(uintptr_t)&owner) ||
	    sys->fcntl(fd, F_SETSIG, (unsigned long)r->signo) ||
	    sys->fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK)) {
		refused_by_errno(out, "cannot route signals to the thread");
		return -1;
	}
	return 0;
}

/* After the event's close. */
static void unroute_signals(const struct signal_route *r)
{
	if (r->installed)
		sigaction(r->signo, &r->old, NULL);
}

void pb_selftest_count_signalled(const struct pb_machine *m, const struct pb_spec *spec,
				 const struct pb_selftest_run *run, struct pb_self_test *out)
{
	uint64_t t0;
	struct pb_ring *ring = start_sampling(out, &t0);
	if (!ring)
		return;
	out->expected = run->expected;
	struct perf_event_attr attr;
	/* Not period 1: where a delivered signal itself counts as an event (arm64 breakpoints
	 * under QEMU), each sample's signal would make the next sample, without end. At 4 the
	 * extra events die out (16 accesses: 4 signals, 1 more), and the miscount shows. */
	if (build_attr(m, spec, run, SIGNALLED_PERIOD, &attr, out))
		goto done;
	attr.sample_type |= PERF_SAMPLE_IP;
	deliver_in_attr(spec, &attr);
	int fd = open_event(&attr, out);
	if (fd < 0)
		goto done;
	struct pb_error err = {0};
	struct signal_route route = {0};
	if (pb_ring_map(ring, fd, 8, &err)) {
		out->verdict = PB_VERDICT_REFUSED;
		snprintf(out->text, sizeof out->text, "mapping its ring failed: %.280s", err.msg);
		pb_sys()->close(fd);
		goto done;
	}
	if (route_signals(fd, spec, &route, out) == 0 &&
	    run_enabled(fd, run, &out->counted, out) == 0)
		judge_count(run, delivery_words(spec), out);
	out->samples = (uint64_t)signals_caught;
	pb_ring_unmap(ring);
	pb_sys()->close(fd);
	unroute_signals(&route);
done:
	free(ring);
	out->ms = (double)(pb_now_ns() - t0) / 1e6;
	out->attempts = 1;
}

void pb_selftest_count_delivered(const struct pb_machine *m, const struct pb_spec *spec,
				 const struct pb_selftest_run *run, const struct pb_spec *measured,
				 struct pb_self_test *out)
{
	if (!measured || !(measured->signal_per_sample || measured->sigtrap_per_sample) ||
	    out->verdict != PB_VERDICT_WORKS)
		return;
	struct pb_spec delivered = *spec;
	delivered.signal_per_sample = true;
	delivered.sigtrap_per_sample = measured->sigtrap_per_sample;
	struct pb_self_test signalled;
	pb_selftest_count_signalled(m, &delivered, run, &signalled);
	struct pb_self_test counted = *out;
	pb_selftest_merge(out, &counted, "counted", true);
	pb_selftest_merge(out, &signalled, "sampled", false);
}

/* Keeps what one attempt gave in the verdict that follows it, so no retry goes unrecorded. */
static void keep_earlier(char *earlier, size_t len, unsigned attempt,
			 const struct pb_self_test *t)
{
	size_t used = strlen(earlier);
	snprintf(earlier + used, len - used, "%sattempt %u: %s %.200s", used ? "; " : "", attempt,
		 pb_verdict_name(t->verdict), t->text);
}

/* Appends to the verdict's text which attempt it is and what the earlier ones gave. */
static void note_attempts(struct pb_self_test *out, unsigned attempts, unsigned most,
			  const char *earlier)
{
	out->attempts = attempts;
	snprintf(out->earlier, sizeof out->earlier, "%s", earlier);
	if (attempts < 2)
		return;
	size_t n = strlen(out->text);
	snprintf(out->text + n, sizeof out->text - n, " (attempt %u of %u; %.200s)", attempts,
		 most, earlier);
}

void pb_selftest_count_retried(const struct pb_machine *m, const struct pb_spec *spec,
			       const struct pb_selftest_run *run, unsigned most,
			       struct pb_self_test *out)
{
	char earlier[sizeof out->earlier] = "";
	double ms = 0;
	unsigned attempt = 0;
	for (;;) {
		pb_selftest_count(m, spec, run, out);
		ms += out->ms;
		if (out->verdict != PB_VERDICT_INEXACT || ++attempt >= most)
			break;
		keep_earlier(earlier, sizeof earlier, attempt, out);
	}
	out->ms = ms;
	note_attempts(out, out->verdict == PB_VERDICT_INEXACT ? most : attempt + 1, most, earlier);
}

static const struct pb_selftest_tap *capture_tap;

void pb_selftest_set_tap(const struct pb_selftest_tap *tap)
{
	capture_tap = tap;
}

struct sample_tally {
	uint64_t samples, inside, lo, hi, kernel_ip;
	uint64_t exact_ip, at_exact_ip;   /* run->exact_ip, and the samples inside at it */
};

/* x86-64 and arm64 kernels live in the upper half of the address space. */
#define KERNEL_HALF 0x8000000000000000ull

static void on_sample(void *ctx, const struct pb_record *rec)
{
	struct sample_tally *t = ctx;
	if (capture_tap)
		capture_tap->record(capture_tap->ctx, rec);
	if (rec->type != PERF_RECORD_SAMPLE)
		return;
	t->samples++;
	if (rec->u.sample.ip >= t->lo && rec->u.sample.ip < t->hi) {
		t->inside++;
		t->at_exact_ip += t->exact_ip && rec->u.sample.ip == t->exact_ip;
	}
	if (rec->u.sample.ip >= KERNEL_HALF)
		t->kernel_ip++;
}

/* The bound a sampling self-test is judged by. Samples at a period arrive about once per
 * period of the events counted: a count of samples is taken as Poisson with mean due =
 * floor(count / period), so it is accepted within due +- Z sqrt(due), Z = 3.29 (a working
 * facility fails one test in 1000). The bound means something only where it excludes half
 * and twice the rate, Z sqrt(due) <= due / 2, i.e. due >= 4 Z^2 = 43.3: a test with fewer
 * due is run again, longer. Samples outside the loop (the enable and disable edges, skid past
 * its end) are held to the same Z sqrt(due). */
#define SELFTEST_Z 3.29
#define SELFTEST_MIN_DUE 44

static double selftest_bound(uint64_t due)
{
	return SELFTEST_Z * sqrt((double)due);
}

static void sample_once(const struct pb_machine *m, const struct pb_spec *spec,
			const struct pb_selftest_run *run, struct pb_self_test *out)
{
	uint64_t t0;
	struct pb_ring *ring = start_sampling(out, &t0);
	if (!ring)
		return;
	struct perf_event_attr attr;
	if (build_attr(m, spec, run, run->period, &attr, out))
		goto done;
	attr.sample_type |= PERF_SAMPLE_IP;
	/* measured with a signal per sample: sampled with them too */
	bool signals = spec->signal_per_sample || spec->sigtrap_per_sample;
	const char *how = signals ? delivery_words(spec) : "";
	if (signals)
		deliver_in_attr(spec, &attr);
	int fd = open_event(&attr, out);
	if (fd < 0)
		goto done;
	struct pb_error err = {0};
	struct signal_route route = {0};
	if (pb_ring_map(ring, fd, 8, &err) ||
	    (run->aux_pages && pb_ring_map_aux(ring, run->aux_pages, &err))) {
		out->verdict = PB_VERDICT_REFUSED;
		snprintf(out->text, sizeof out->text, "mapping its ring failed: %.280s", err.msg);
		pb_sys()->close(fd);
		goto done;
	}
	if (signals && route_signals(fd, spec, &route, out)) {
		pb_ring_unmap(ring);
		pb_sys()->close(fd);
		unroute_signals(&route);
		goto done;
	}
	if (capture_tap)
		capture_tap->begin(capture_tap->ctx, spec, &attr, run);
	if (run_enabled(fd, run, &out->counted, out) == 0) {
		struct pb_record_format fmt;
		pb_record_format_from_attr(&fmt, &attr);
		struct pb_ring_stats stats = {0};
		struct sample_tally tally = {.lo = run->ip_lo, .hi = run->ip_hi,
					     .exact_ip = run->exact_ip};
		pb_ring_drain(ring, &fmt, on_sample, &tally, &stats);
		uint64_t aux_bytes = run->aux_pages ? __atomic_load_n(&ring->meta->aux_head,
								      __ATOMIC_ACQUIRE) : 0;
		out->samples = run->aux_pages ? aux_bytes : tally.samples;
		out->samples_inside = tally.inside;
		out->expected = run->period ? out->counted / run->period : 0;
		out->wrong_level = run->all_levels ? 0 : tally.kernel_ip;
		const char *unit = run->aux_pages ? "bytes of AUX data" : "samples";
		uint64_t due = out->expected;
		double bound = selftest_bound(due);
		double off = fabs((double)out->samples - (double)due);
		char level[96] = "";
		if (out->wrong_level)
			snprintf(level, sizeof level, "; %llu at a kernel IP though the kernel was "
				 "excluded", (unsigned long long)out->wrong_level);
		if (!out->samples) {
			out->verdict = PB_VERDICT_INERT;
			snprintf(out->text, sizeof out->text,
				 "the kernel accepts %s but none sampled%s: %.1f ms of %s, %llu "
				 "counted, 0 %s", run->accepted, how, (double)(pb_now_ns() - t0) / 1e6,
				 run->what,
				 (unsigned long long)out->counted, unit);
		} else if (!run->aux_pages && due < SELFTEST_MIN_DUE) {
			out->verdict = PB_VERDICT_INEXACT;
			snprintf(out->text, sizeof out->text,
				 "too short to judge: %llu samples due (count %llu, period %llu), a "
				 "bound needs %d", (unsigned long long)due,
				 (unsigned long long)out->counted, (unsigned long long)run->period,
				 SELFTEST_MIN_DUE);
		} else if (!run->aux_pages && off > bound) {
			out->verdict = PB_VERDICT_INEXACT;
			snprintf(out->text, sizeof out->text,
				 "%s sample too %s%s: %llu samples where %llu +- %.0f were due (count "
				 "%llu, period %llu)%s", run->accepted,
				 out->samples < due ? "rarely" : "often", how,
				 (unsigned long long)out->samples, (unsigned long long)due, bound,
				 (unsigned long long)out->counted, (unsigned long long)run->period,
				 level);
		} else if (!run->aux_pages && run->ip_hi &&
			   (double)(tally.samples - tally.inside) > bound) {
			out->verdict = PB_VERDICT_INEXACT;
			snprintf(out->text, sizeof out->text,
				 "%s sample outside the loop%s: %llu of %llu samples inside it (at "
				 "most %.0f may fall outside)%s", run->accepted, how,
				 (unsigned long long)tally.inside, (unsigned long long)tally.samples,
				 bound, level);
		} else if (signals && !run->aux_pages && !signals_caught) {
			/* a measurement with signal delivery would get none */
			out->verdict = PB_VERDICT_INERT;
			snprintf(out->text, sizeof out->text,
				 "the kernel accepts %s but no sample raised a signal: %llu samples, 0 "
				 "signals", run->accepted, (unsigned long long)out->samples);
		} else if (run->exact_ip && tally.at_exact_ip < tally.inside) {
			/* an exact IP is a promise about every sample, so one off it breaks it */
			out->verdict = PB_VERDICT_INEXACT;
			snprintf(out->text, sizeof out->text,
				 "%s promise the exact IP and %llu of %llu samples in the loop are not "
				 "at the instruction that caused them (0x%llx)", run->accepted,
				 (unsigned long long)(tally.inside - tally.at_exact_ip),
				 (unsigned long long)tally.inside, (unsigned long long)run->exact_ip);
		} else {
			out->verdict = PB_VERDICT_WORKS;
			if (run->aux_pages)
				snprintf(out->text, sizeof out->text,
					 "%llu bytes of AUX data over %s (count %llu)",
					 (unsigned long long)aux_bytes, run->what,
					 (unsigned long long)out->counted);
			else
				snprintf(out->text, sizeof out->text,
					 "%llu samples (%llu +- %.0f due), %llu inside the loop%s",
					 (unsigned long long)out->samples,
					 (unsigned long long)out->expected, bound,
					 (unsigned long long)tally.inside, level);
		}
		size_t used = strlen(out->text);
		if (signals && out->verdict == PB_VERDICT_WORKS && used < sizeof out->text)
			snprintf(out->text + used, sizeof out->text - used, ";%s: %llu signals",
				 how, (unsigned long long)signals_caught);
	}
	if (capture_tap)
		capture_tap->end(capture_tap->ctx, out);
	pb_ring_unmap(ring);
	pb_sys()->close(fd);
	unroute_signals(&route);
done:
	free(ring);
	out->ms = (double)(pb_now_ns() - t0) / 1e6;
}

/* A facility that samples too rarely or off the loop once may have met a busy machine (a
 * loaded 2-core VM has dropped 8 of 10 timer ticks in one 10 ms window); one that does so
 * three times running does not work. Inert and refused are never luck: no second try. A run
 * too short for its bound is run again, long enough. Every earlier attempt stays in the
 * verdict. */
#define SAMPLE_ATTEMPTS 3

void pb_selftest_sample(const struct pb_machine *m, const struct pb_spec *spec,
			const struct pb_selftest_run *given, struct pb_self_test *out)
{
	struct pb_selftest_run run = *given;
	char earlier[sizeof out->earlier] = "";
	double ms = 0;
	unsigned attempt = 0;
	for (;;) {
		sample_once(m, spec, &run, out);
		ms += out->ms;
		if (out->verdict != PB_VERDICT_INEXACT || ++attempt >= SAMPLE_ATTEMPTS)
			break;
		keep_earlier(earlier, sizeof earlier, attempt, out);
		if (!run.aux_pages && out->expected < SELFTEST_MIN_DUE) {
			/* twice what reaches the minimum, at most 64 times longer */
			uint64_t scale = out->expected ? 2 * SELFTEST_MIN_DUE / out->expected + 1
						       : 64;
			run.n = (unsigned)(run.n * (scale < 64 ? scale : 64));
		}
	}
	out->ms = ms;
	note_attempts(out, out->verdict == PB_VERDICT_INEXACT ? SAMPLE_ATTEMPTS : attempt + 1,
		      SAMPLE_ATTEMPTS, earlier);
}

/* Worse verdicts first: the whole is as good as its weakest part. */
static int severity(enum pb_verdict v)
{
	switch (v) {
	case PB_VERDICT_WORKS: return 0;
	case PB_VERDICT_UNTESTED: return 1;
	case PB_VERDICT_INEXACT: return 2;
	case PB_VERDICT_INERT: return 3;
	case PB_VERDICT_REFUSED: return 4;
	case PB_VERDICT_ABSENT: return 5;
	}
	return 5;
}

void pb_selftest_merge(struct pb_self_test *whole, const struct pb_self_test *part,
		       const char *label, bool first)
{
	if (first) {
		memset(whole, 0, sizeof *whole);
		whole->verdict = part->verdict;
	} else if (severity(part->verdict) > severity(whole->verdict)) {
		whole->verdict = part->verdict;
	}
	whole->expected += part->expected;
	whole->counted += part->counted;
	whole->samples += part->samples;
	whole->samples_inside += part->samples_inside;
	whole->wrong_level += part->wrong_level;
	whole->ms += part->ms;
	if (part->attempts > whole->attempts)
		whole->attempts = part->attempts;
	if (part->earlier[0]) {
		size_t n = strlen(whole->earlier);
		snprintf(whole->earlier + n, sizeof whole->earlier - n, "%s%s: %s", n ? "; " : "",
			 label, part->earlier);
	}
	if (!whole->sys_errno)
		whole->sys_errno = part->sys_errno;
	size_t used = strlen(whole->text);
	snprintf(whole->text + used, sizeof whole->text - used, "%s%s: %s", first ? "" : "; ",
		 label, part->text);
}

void pb_selftest_sampling_pmu(const struct pb_machine *m, const struct pb_spec *spec,
			      const char *default_text, const char *accepted, bool all_levels,
			      struct pb_self_test *out)
{
	struct pb_spec parsed;
	struct pb_error err = {0};
	if (!spec) {
		if (pb_spec_parse(default_text, &parsed, &err)) {
			memset(out, 0, sizeof *out);
			out->verdict = PB_VERDICT_REFUSED;
			snprintf(out->text, sizeof out->text, "%s", err.msg);
			return;
		}
		spec = &parsed;
	}
	/* 64 periods of the spin loop's instructions: above the bound's minimum of due samples */
	uint64_t period = spec->facility->default_period;
	uint64_t thousands = period * 64 / 2 / 1000;
	struct pb_selftest_run run = {
		.loop = pb_selftest_spin_loop,
		.n = (unsigned)(thousands ? thousands : 1),
		.what = "a spin loop",
		.accepted = accepted,
		.period = period,
		.ip_lo = (uint64_t)(uintptr_t)pb_selftest_spin_begin,
		.ip_hi = (uint64_t)(uintptr_t)pb_selftest_spin_end,
		.aux_pages = spec->facility->aux_pages,
		.all_levels = all_levels,
	};
	pb_selftest_sample(m, spec, &run, out);
}
