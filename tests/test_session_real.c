/* The session on the real kernel of this machine: exact facilities must be exact, signals must
 * reach the sampled thread once per sample, and every mode must account for every sample. */
#include "check.h"
#include "facilities/facility.h"
#include "session/session.h"
#include "util/kit.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* A store loop with a 5-byte nop a uprobe can sit on cheaply (the kernel rewrites a probed nop5
 * into a call instead of single-stepping). rdi = address to store to, rsi = iterations. */
__asm__(".text\n"
	".globl pbt_store_loop\n"
	".type pbt_store_loop,@function\n"
	"pbt_store_loop:\n"
	"	test %rsi, %rsi\n"
	"	jz 2f\n"
	"1:\n"
	".globl pbt_store_site\n"
	"pbt_store_site:\n"
	"	movq %rsi, (%rdi)\n"
	".globl pbt_after_store\n"
	"pbt_after_store:\n"
	".globl pbt_nop_site\n"
	"pbt_nop_site:\n"
	"	nopl 0x0(%rax,%rax,1)\n"
	"	dec %rsi\n"
	"	jnz 1b\n"
	"2:	ret\n"
	".size pbt_store_loop, .-pbt_store_loop\n");
void pbt_store_loop(volatile uint64_t *addr, uint64_t iterations);
extern const char pbt_store_site[], pbt_after_store[], pbt_nop_site[];

#define MAX_THREADS 2

struct loop_ctx {
	uint64_t iterations;
	volatile uint64_t slots[MAX_THREADS][8]; /* one cache line each, private per thread */
	uint64_t probe;                          /* code address for uprobe / bp:x */
};

static int loop_prepare(void *ctx, unsigned thread, struct pb_target *t)
{
	struct loop_ctx *c = ctx;
	t->data_addr = (uint64_t)(uintptr_t)&c->slots[thread][0];
	t->data_len = 8;
	t->code_addr = c->probe;
	return 0;
}

static void loop_run(void *ctx, unsigned thread)
{
	struct loop_ctx *c = ctx;
	pbt_store_loop(&c->slots[thread][0], c->iterations);
}

struct ip_tally {
	uint64_t samples[MAX_THREADS];
	uint64_t on_expected_ip[MAX_THREADS];
	uint64_t wrong_tid[MAX_THREADS];
	uint64_t expected_ip;
	const struct pb_session_result *res;
};

static void tally(void *ctx, unsigned thread, unsigned event, const struct pb_record *rec)
{
	(void)event;
	struct ip_tally *t = ctx;
	if (rec->type != PERF_RECORD_SAMPLE || thread >= MAX_THREADS)
		return;
	t->samples[thread]++;
	if (rec->u.sample.ip == t->expected_ip)
		t->on_expected_ip[thread]++;
	if ((pid_t)rec->u.sample.tid != t->res->thread[thread].tid)
		t->wrong_tid[thread]++;
}

static struct pb_session_result result;

static int run(const char *spec, uint64_t period, enum pb_delivery mode, unsigned threads,
	       struct loop_ctx *ctx, struct ip_tally *tl, unsigned ring_pages)
{
	struct pb_session_config cfg = {
		.nevents = 1,
		.delivery = mode,
		.threads = threads,
		.ring_pages = ring_pages,
		.expected_samples = period ? ctx->iterations / period : 0,
		.prepare = loop_prepare,
		.run = loop_run,
		.ctx = ctx,
		.on_record = tally,
		.record_ctx = tl,
	};
	struct pb_error err = {0};
	if (pb_spec_parse(spec, &cfg.events[0].spec, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	cfg.events[0].period = period;
	cfg.events[0].exclude_kernel = true;
	memset(tl, 0, sizeof *tl);
	tl->res = &result;
	if (pb_session_run(&cfg, &result, &err)) {
		if (err.sys_errno == EACCES || err.sys_errno == EPERM || err.sys_errno == ENOENT)
			pb_skip("%s cannot be opened here: %s", spec, err.msg);
		fprintf(stderr, "%s: %s\n", spec, err.msg);
		return -1;
	}
	return 0;
}

/* Breakpoints that the kernel accepts may never fire (one of our VM kinds): the checks that
 * are about breakpoints themselves are skipped, counted, where bp failed its self-test. */
static bool breakpoints_work(unsigned checks)
{
	char why[512];
	if (pb_test_facility_works("bp:w", why, sizeof why))
		return true;
	pb_skip_checks(checks, "%s", why);
	return false;
}

static void breakpoint_sampling_is_exact(void)
{
	if (!breakpoints_work(8))
		return;
	struct loop_ctx ctx = {.iterations = 10000};
	struct ip_tally tl;
	/* period 7: 10000 writes give floor(10000/7) = 1428 samples, each on the next insn */
	CHECK(run("bp:w", 7, PB_DELIVERY_NONE, 1, &ctx, &tl, 0) == 0);
	const struct pb_event_result *ev = &result.thread[0].events[0];
	CHECK_EQ_U64(ev->count, 10000);
	CHECK_EQ_U64(ev->samples, 10000 / 7);
	CHECK_EQ_U64(pb_event_lost(ev), 0);
	CHECK(!pb_event_multiplexed(ev));
	CHECK(ev->has_lost_format);
	CHECK_EQ_U64(tl.samples[0], 10000 / 7);
	CHECK_EQ_U64(tl.wrong_tid[0], 0);
}

static struct ip_tally expected_ip_tally;

static void tally_ip(void *ctx, unsigned thread, unsigned event, const struct pb_record *rec)
{
	tally(ctx, thread, event, rec);
}

static void breakpoint_ip_is_next_instruction(void)
{
	if (!breakpoints_work(4))
		return;
	struct loop_ctx ctx = {.iterations = 3000};
	struct ip_tally *tl = &expected_ip_tally;
	struct pb_session_config cfg = {
		.nevents = 1, .delivery = PB_DELIVERY_NONE, .threads = 1,
		.expected_samples = 3000, .prepare = loop_prepare, .run = loop_run, .ctx = &ctx,
		.on_record = tally_ip, .record_ctx = tl,
	};
	struct pb_error err = {0};
	CHECK(pb_spec_parse("bp:w", &cfg.events[0].spec, &err) == 0);
	cfg.events[0].period = 1;
	cfg.events[0].exclude_kernel = true;
	memset(tl, 0, sizeof *tl);
	tl->res = &result;
	tl->expected_ip = (uint64_t)(uintptr_t)pbt_after_store;
	CHECK(pb_session_run(&cfg, &result, &err) == 0);
	CHECK_EQ_U64(tl->samples[0], 3000);
	CHECK_EQ_U64(tl->on_expected_ip[0], 3000);
}

static void uprobe_counts_loop_iterations(void)
{
	struct loop_ctx ctx = {.iterations = 20000, .probe = (uint64_t)(uintptr_t)pbt_nop_site};
	struct ip_tally tl;
	CHECK(run("uprobe", 0, PB_DELIVERY_NONE, 1, &ctx, &tl, 0) == 0);
	CHECK_EQ_U64(result.thread[0].events[0].count, 20000);
	CHECK_EQ_U64(result.thread[0].events[0].samples, 0);

	ctx.iterations = 5000;
	CHECK(run("uprobe", 1, PB_DELIVERY_NONE, 1, &ctx, &tl, 0) == 0);
	CHECK_EQ_U64(result.thread[0].events[0].count, 5000);
	CHECK_EQ_U64(result.thread[0].events[0].samples, 5000);
	CHECK_EQ_U64(pb_event_lost(&result.thread[0].events[0]), 0);
}

static void uprobe_sample_ip_is_the_probe(void)
{
	struct loop_ctx ctx = {.iterations = 2000, .probe = (uint64_t)(uintptr_t)pbt_nop_site};
	struct ip_tally *tl = &expected_ip_tally;
	struct pb_session_config cfg = {
		.nevents = 1, .delivery = PB_DELIVERY_NONE, .threads = 1,
		.expected_samples = 2000, .prepare = loop_prepare, .run = loop_run, .ctx = &ctx,
		.on_record = tally_ip, .record_ctx = tl,
	};
	struct pb_error err = {0};
	CHECK(pb_spec_parse("uprobe", &cfg.events[0].spec, &err) == 0);
	cfg.events[0].period = 1;
	memset(tl, 0, sizeof *tl);
	tl->res = &result;
	tl->expected_ip = ctx.probe;
	CHECK(pb_session_run(&cfg, &result, &err) == 0);
	CHECK_EQ_U64(tl->on_expected_ip[0], 2000);
}

/* Rarely (seen twice in hundreds of runs, both with two threads and other tests running) this
 * VM's kernel misses one debug-register hit. The delivery checks below hold whatever the
 * count; the count itself must be exact in one of two runs, and a miss is printed. */
static void signals_reach_the_sampled_thread(enum pb_delivery mode, const char *facility)
{
	struct loop_ctx ctx = {.iterations = 4000, .probe = (uint64_t)(uintptr_t)pbt_nop_site};
	struct ip_tally tl;
	for (int attempt = 0; attempt < 2; attempt++) {
		CHECK(run(facility, 10, mode, 2, &ctx, &tl, 0) == 0);
		bool exact = true;
		for (unsigned t = 0; t < 2; t++) {
			const struct pb_event_result *ev = &result.thread[t].events[0];
			CHECK_EQ_U64(ev->samples, ev->count / 10);
			CHECK_EQ_U64(ev->signals, ev->samples);
			CHECK_EQ_U64(ev->signals_wrong_thread, 0);
			CHECK_EQ_U64(tl.wrong_tid[t], 0);
			CHECK_EQ_U64(pb_event_lost(ev), 0);
			if (ev->count != 4000) {
				exact = false;
				printf("WARNING: %s mode, thread %u: the kernel counted %llu of 4000 "
				       "%s hits\n", pb_delivery_name(mode), t,
				       (unsigned long long)ev->count, facility);
			}
		}
		CHECK(result.thread[0].tid != result.thread[1].tid);
		if (exact)
			return;
	}
	CHECK(!"exact facility's count inexact in two runs in a row");
}

static void signals_on(const char *facility)
{
	signals_reach_the_sampled_thread(PB_DELIVERY_SIGNAL, facility);
}

static void sigtrap_on(const char *facility)
{
	signals_reach_the_sampled_thread(PB_DELIVERY_SIGTRAP, facility);
}

static void drain_mode_accounts_for_every_sample(const char *facility)
{
	struct loop_ctx ctx = {.iterations = 20000, .probe = (uint64_t)(uintptr_t)pbt_nop_site};
	struct ip_tally tl;
	/* a small ring: the collector must keep up or the loss must show */
	CHECK(run(facility, 1, PB_DELIVERY_DRAIN, 1, &ctx, &tl, 4) == 0);
	const struct pb_event_result *ev = &result.thread[0].events[0];
	CHECK_EQ_U64(ev->count, 20000);
	CHECK_EQ_U64(ev->samples + ev->lost_format, 20000);
	CHECK_EQ_U64(tl.samples[0], ev->samples);
	printf("drain mode, %s, 4-page ring, 20000 samples: %llu kept, %llu lost\n", facility,
	       (unsigned long long)ev->samples, (unsigned long long)ev->lost_format);
}

static void none_mode_small_ring_reports_loss(const char *facility)
{
	struct loop_ctx ctx = {.iterations = 5000, .probe = (uint64_t)(uintptr_t)pbt_nop_site};
	struct ip_tally tl;
	CHECK(run(facility, 1, PB_DELIVERY_NONE, 1, &ctx, &tl, 1) == 0);
	const struct pb_event_result *ev = &result.thread[0].events[0];
	CHECK_EQ_U64(ev->count, 5000);
	CHECK(ev->samples < 5000);
	CHECK(ev->lost_format > 0);
	CHECK_EQ_U64(ev->samples + ev->lost_format, 5000);
	CHECK_EQ_U64(pb_event_lost(ev), ev->lost_format);
}

/* page faults: each first write to an anonymous page is exactly one fault */
struct fault_ctx {
	uint8_t *pages;
	size_t npages;
};

/* Not instrumented: under ASan every store would also fault in shadow memory pages. */
__attribute__((no_sanitize("address"))) static void touch_pages(void *ctx, unsigned thread)
{
	(void)thread;
	struct fault_ctx *c = ctx;
	long page = sysconf(_SC_PAGESIZE);
	for (size_t i = 0; i < c->npages; i++)
		((volatile uint8_t *)c->pages)[i * (size_t)page + 123] = 1;
}

/* A thread that blocks the sample signal while it faults lets the signals pile up; past
 * RLIMIT_SIGPENDING the kernel cannot queue them and sends SIGIO instead, which without a
 * handler ended the process ("I/O possible"). The session counts them, and every sample is
 * still in the ring. */
static int blocked_signo;

__attribute__((no_sanitize("address"))) static void touch_pages_signal_blocked(void *ctx,
									   unsigned thread)
{
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, blocked_signo);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	touch_pages(ctx, thread);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void signal_queue_overflow_is_counted(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct fault_ctx ctx = {.npages = 1024};
	ctx.pages = mmap(NULL, ctx.npages * (size_t)page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(ctx.pages != MAP_FAILED);
	madvise(ctx.pages, ctx.npages * (size_t)page, MADV_NOHUGEPAGE);
	struct rlimit saved, low = {.rlim_cur = 32, .rlim_max = 0};
	CHECK(getrlimit(RLIMIT_SIGPENDING, &saved) == 0);
	low.rlim_max = saved.rlim_max;
	CHECK(setrlimit(RLIMIT_SIGPENDING, &low) == 0);
	blocked_signo = SIGRTMIN + 2;
	struct pb_session_config cfg = {
		.nevents = 1, .delivery = PB_DELIVERY_SIGNAL, .threads = 1,
		.expected_samples = 1024, .run = touch_pages_signal_blocked, .ctx = &ctx,
		.signal_number = blocked_signo,
	};
	struct pb_error err = {0};
	CHECK(pb_spec_parse("sw:page-faults", &cfg.events[0].spec, &err) == 0);
	cfg.events[0].period = 1;
	cfg.events[0].exclude_kernel = true;
	CHECK(pb_session_run(&cfg, &result, &err) == 0);
	CHECK(setrlimit(RLIMIT_SIGPENDING, &saved) == 0);
	const struct pb_event_result *ev = &result.thread[0].events[0];
	CHECK_EQ_U64(ev->samples, 1024);
	CHECK(result.signal_overflows > 0);
	CHECK(ev->signals < 1024);
	CHECK(ev->signals + result.signal_overflows <= 1024);
	printf("signal queue at 32: %llu signals delivered, %llu overflows counted\n",
	       (unsigned long long)ev->signals, (unsigned long long)result.signal_overflows);
	munmap(ctx.pages, ctx.npages * (size_t)page);
}

static void page_faults_are_exact(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct fault_ctx ctx = {.npages = 1024};
	ctx.pages = mmap(NULL, ctx.npages * (size_t)page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(ctx.pages != MAP_FAILED);
	madvise(ctx.pages, ctx.npages * (size_t)page, MADV_NOHUGEPAGE);
	struct pb_session_config cfg = {
		.nevents = 1, .delivery = PB_DELIVERY_NONE, .threads = 1,
		.expected_samples = 1024, .run = touch_pages, .ctx = &ctx,
	};
	struct pb_error err = {0};
	CHECK(pb_spec_parse("sw:page-faults", &cfg.events[0].spec, &err) == 0);
	cfg.events[0].period = 1;
	cfg.events[0].exclude_kernel = true;
	CHECK(pb_session_run(&cfg, &result, &err) == 0);
	const struct pb_event_result *ev = &result.thread[0].events[0];
	CHECK_EQ_U64(ev->count, 1024);
	CHECK_EQ_U64(ev->samples, 1024);
	CHECK_EQ_U64(pb_event_lost(ev), 0);
	munmap(ctx.pages, ctx.npages * (size_t)page);
}

static void fifth_breakpoint_is_reported(void)
{
	/* the inert-breakpoint preload turns breakpoints into dummy events, which no debug
	 * register limits: the kernel's slot accounting is not what it stands in for */
	const char *inject = getenv("PB_INJECT");
	if (inject && !strcmp(inject, "inert-breakpoints")) {
		pb_skip_checks(3, "breakpoints are made inert (PB_INJECT): their slots are not");
		return;
	}
	struct loop_ctx ctx = {.iterations = 10};
	struct pb_session_config cfg = {
		.nevents = 5, .delivery = PB_DELIVERY_NONE, .threads = 1,
		.prepare = loop_prepare, .run = loop_run, .ctx = &ctx,
	};
	struct pb_error err = {0};
	for (unsigned e = 0; e < 5; e++) {
		CHECK(pb_spec_parse("bp:w", &cfg.events[e].spec, &err) == 0);
		cfg.events[e].exclude_kernel = true;
	}
	CHECK(pb_session_run(&cfg, &result, &err) != 0);
	CHECK_EQ_U64(result.thread[0].events[4].open_errno, ENOSPC);
	CHECK(result.thread[0].events[3].opened);
	CHECK_STR_CONTAINS(err.msg, "debug-register");
}

/* Thread 0 ends at once, thread 1 spins 50 ms of its CPU time. */
static void uneven_run(void *ctx, unsigned thread)
{
	(void)ctx;
	if (thread == 0)
		return;
	uint64_t until = pb_thread_cpu_ns() + 50000000;
	while (pb_thread_cpu_ns() < until)
		;
}

/* The drain collector sleeps in poll until there is something to do: each wakeup has a cause,
 * a thread's end (its event then reports POLLHUP) or the stop; a period of 10 s takes no
 * sample and reaches no watermark. An ended thread's event, polled again, is ready at once:
 * the collector spun on it, thousands of wakeups while thread 1 still ran. */
static void drain_collector_sleeps_after_a_thread_ends(void)
{
	struct pb_session_config cfg = {
		.nevents = 1, .delivery = PB_DELIVERY_DRAIN, .threads = 2, .run = uneven_run,
	};
	struct pb_error err = {0};
	CHECK(pb_spec_parse("timer:cpu-clock", &cfg.events[0].spec, &err) == 0);
	cfg.events[0].period = 10000000000ull;
	cfg.events[0].exclude_kernel = true;
	if (pb_session_run(&cfg, &result, &err)) {
		fprintf(stderr, "timer:cpu-clock, drain: %s\n", err.msg);
		CHECK(0);
		return;
	}
	printf("drain collector: %llu wakeups, %llu ns CPU\n",
	       (unsigned long long)result.collector_wakeups,
	       (unsigned long long)result.collector_cpu_ns);
	CHECK(result.collector_wakeups >= 1);
	CHECK(result.collector_wakeups <= cfg.threads + 1);
}

int main(void)
{
	breakpoint_sampling_is_exact();
	breakpoint_ip_is_next_instruction();
	uprobe_counts_loop_iterations();
	uprobe_sample_ip_is_the_probe();
	pb_test_on_exact_facilities(signals_on);
	pb_test_on_exact_facilities(sigtrap_on);
	pb_test_on_exact_facilities(drain_mode_accounts_for_every_sample);
	pb_test_on_exact_facilities(none_mode_small_ring_reports_loss);
	page_faults_are_exact();
	signal_queue_overflow_is_counted();
	fifth_breakpoint_is_reported();
	drain_collector_sleeps_after_a_thread_ends();
	return pb_check_done("session_real");
}
