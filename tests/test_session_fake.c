/* The session over the fake kernel: PEBS-shaped, IBS raw and lossy streams go through the same
 * code as real ones, with the counts the constructed input implies; the attrs and fcntls the
 * session asks of the kernel follow each delivery mode's rules. */
#include "check.h"
#include "fixture.h"
#include "facilities/ibs_raw.h"
#include "facilities/machine.h"
#include "fake_kernel.h"
#include "ring/ring.h"
#include "session/session.h"
#include "util/kit.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

/* pthread_barrier_init cannot fail for the counts a session asks, so the test stands in for
 * it (the executable's definition wins over libc's) to make it fail on demand. */
static int barrier_init_errno;

int pthread_barrier_init(pthread_barrier_t *restrict b, const pthread_barrierattr_t *restrict a,
			 unsigned count)
{
	if (barrier_init_errno)
		return barrier_init_errno;
	int (*real)(pthread_barrier_t *, const pthread_barrierattr_t *, unsigned);
	*(void **)&real = dlsym(RTLD_NEXT, "pthread_barrier_init");
	return real(b, a, count);
}

static struct pb_machine machine;

static void load_fixture(const char *name)
{
	pb_test_fixture(&machine, name);
}

static void idle_run(void *ctx, unsigned thread)
{
	(void)ctx;
	(void)thread;
}

/* ---- scripts: what the "kernel" writes into each ring when the region ends ---- */

struct stream {
	unsigned n;              /* samples to write */
	uint64_t period;
	uint64_t ips[4];
	bool ibs;                /* add an IBS op raw payload whose RIP is the IP */
	uint64_t running_ppm;    /* time_running as parts per million of time_enabled */
};

static void write_stream(struct fake_event *ev, void *ctx)
{
	const struct stream *st = ctx;
	uint8_t rec[512], raw[4 + 7 * 8];
	for (unsigned i = 0; i < st->n; i++) {
		struct pb_sample s = {0};
		s.ip = st->ips[i % 4];
		s.pid = s.tid = 4242;
		s.time = 1000 + i;
		s.addr = 0x7f0000001000 + 64 * i;
		s.id = ev->id;
		s.identifier = ev->id;
		s.period = st->period;
		s.weight = 30 + i % 7;
		s.data_src = 0x68100142; /* L1 miss, hit in L2 (a perf mem encoding) */
		s.cpu = 1;
		if (st->ibs) {
			uint32_t caps = 0x7 | (1u << 4); /* AVAIL|FETCHSAM|OPSAM|OPCNT: 7 regs */
			uint64_t regs[7] = {
				(1ull << 17) | (1ull << 18) | 0x10, /* OpEn, OpVal, MaxCnt */
				s.ip,                               /* IbsOpRip */
				0,                                  /* OpData */
				0,                                  /* OpData2 */
				1 | (1ull << 7) | (1ull << 17) | ((uint64_t)(100 + i % 3) << 32),
				s.addr,                             /* DcLinAd */
				0,
			};
			memcpy(raw, &caps, 4);
			memcpy(raw + 4, regs, sizeof regs);
			s.raw = raw;
			s.raw_size = sizeof raw;
		}
		size_t len = fake_build_sample(rec, sizeof rec, &ev->attr, &s);
		fake_ring_write(ev, rec, len);
	}
	ev->count = (uint64_t)st->n * (st->period ? st->period : 1);
	ev->time_enabled = 1000000;
	ev->time_running = st->running_ppm ? st->running_ppm : 1000000;
}

struct seen {
	unsigned samples, with_addr, with_weight, with_data_src, ibs_decoded, ibs_rip_matches;
	unsigned ip_hits[4];
	uint64_t ips[4];
	struct pb_ibs_cpu cpu;
};

static void on_record(void *ctx, unsigned thread, unsigned event, const struct pb_record *rec)
{
	(void)thread;
	(void)event;
	struct seen *seen = ctx;
	if (rec->type != PERF_RECORD_SAMPLE)
		return;
	const struct pb_sample *s = &rec->u.sample;
	seen->samples++;
	for (int i = 0; i < 4; i++)
		seen->ip_hits[i] += s->ip == seen->ips[i];
	seen->with_addr += (s->sample_type & PERF_SAMPLE_ADDR) && s->addr >= 0x7f0000001000;
	seen->with_weight += (s->sample_type & PERF_SAMPLE_WEIGHT_TYPE) && s->weight >= 30;
	seen->with_data_src += (s->sample_type & PERF_SAMPLE_DATA_SRC) && s->data_src == 0x68100142;
	if (s->raw_size) {
		struct pb_ibs_sample ibs;
		if (!pb_ibs_decode(s->raw, s->raw_size, PB_IBS_OP, &seen->cpu, &ibs, NULL)) {
			seen->ibs_decoded++;
			seen->ibs_rip_matches += ibs.op.rip == s->ip && ibs.op.data3.dc_miss;
		}
	}
}

static struct pb_session_result result;

static int run_session(const char *spec, uint64_t period, enum pb_delivery mode,
		       unsigned ring_pages, struct stream *st, struct seen *seen)
{
	struct pb_session_config cfg = {
		.nevents = 1, .delivery = mode, .threads = 1, .machine = &machine,
		.ring_pages = ring_pages, .expected_samples = st->n, .run = idle_run,
		.on_record = on_record, .record_ctx = seen,
	};
	struct pb_error err = {0};
	if (pb_spec_parse(spec, &cfg.events[0].spec, &err)) {
		fprintf(stderr, "%s: %s\n", spec, err.msg);
		return -1;
	}
	cfg.events[0].period = period;
	fake_kernel_install();
	fake_kernel_on_disable(write_stream, st);
	int rc = pb_session_run(&cfg, &result, &err);
	if (rc)
		fprintf(stderr, "%s: %s\n", spec, err.msg);
	return rc;
}

static void pebs_stream(void)
{
	load_fixture("sysfs-skl");
	struct stream st = {.n = 500, .period = 10007, .ips = {0x401000, 0x401007, 0x40100e, 0x401015}};
	struct seen seen = {0};
	memcpy(seen.ips, st.ips, sizeof st.ips);
	CHECK(run_session("pebs:MEM_LOAD_RETIRED:L1_MISS:pp=2", 10007, PB_DELIVERY_NONE, 0, &st,
			  &seen) == 0);
	const struct pb_event_result *ev = &result.thread[0].events[0];
	CHECK(ev->opened);
	CHECK_EQ_U64(ev->attr.precise_ip, 2);
	CHECK(ev->attr.sample_type & PERF_SAMPLE_ADDR);
	CHECK(ev->attr.sample_type & PERF_SAMPLE_DATA_SRC);
	CHECK(ev->attr.sample_type & PERF_SAMPLE_WEIGHT_TYPE);
	CHECK_EQ_U64(ev->samples, 500);
	CHECK_EQ_U64(seen.samples, 500);
	CHECK_EQ_U64(seen.with_addr, 500);
	CHECK_EQ_U64(seen.with_weight, 500);
	CHECK_EQ_U64(seen.with_data_src, 500);
	for (int i = 0; i < 4; i++)
		CHECK_EQ_U64(seen.ip_hits[i], 125);
	CHECK_EQ_U64(ev->count, 500 * 10007ull);
	CHECK_EQ_U64(pb_event_lost(ev), 0);
	CHECK(!pb_event_multiplexed(ev));
	fake_kernel_uninstall();
}

static void ibs_stream(void)
{
	load_fixture("sysfs-zen4");
	struct stream st = {.n = 300, .period = 0x10000, .ibs = true,
			    .ips = {0x402000, 0x402004, 0x402008, 0x40200c}};
	struct seen seen = {0};
	memcpy(seen.ips, st.ips, sizeof st.ips);
	pb_ibs_cpu_from_machine(&machine, &seen.cpu);
	CHECK(run_session("ibs-op", 0x10000, PB_DELIVERY_NONE, 0, &st, &seen) == 0);
	const struct pb_event_result *ev = &result.thread[0].events[0];
	CHECK(ev->opened);
	CHECK(ev->attr.sample_type & PERF_SAMPLE_RAW);
	CHECK_EQ_U64(ev->attr.type, (uint64_t)pb_machine_pmu(&machine, "ibs_op")->type);
	CHECK_EQ_U64(ev->samples, 300);
	CHECK_EQ_U64(seen.ibs_decoded, 300);
	CHECK_EQ_U64(seen.ibs_rip_matches, 300);
	fake_kernel_uninstall();
}

static void lossy_stream(void)
{
	load_fixture("sysfs-vm");
	/* 2000 samples into a one-page ring: most are lost, and the loss must be exact */
	struct stream st = {.n = 2000, .period = 100000, .ips = {1, 2, 3, 4}};
	struct seen seen = {0};
	CHECK(run_session("timer:cpu-clock", 100000, PB_DELIVERY_NONE, 1, &st, &seen) == 0);
	const struct pb_event_result *ev = &result.thread[0].events[0];
	struct fake_event *fe = fake_kernel_event_at(0);
	CHECK(fe->lost > 0);
	CHECK(ev->has_lost_format);
	CHECK_EQ_U64(ev->lost_format, fe->lost);
	CHECK_EQ_U64(pb_event_lost(ev), fe->lost);
	CHECK_EQ_U64(ev->samples + pb_event_lost(ev), 2000);
	CHECK_EQ_U64(seen.samples, ev->samples);
	fake_kernel_uninstall();
}

static void multiplexed_stream(void)
{
	load_fixture("sysfs-vm");
	struct stream st = {.n = 100, .period = 100000, .ips = {1, 2, 3, 4}, .running_ppm = 250000};
	struct seen seen = {0};
	CHECK(run_session("timer:cpu-clock", 100000, PB_DELIVERY_NONE, 0, &st, &seen) == 0);
	const struct pb_event_result *ev = &result.thread[0].events[0];
	CHECK(pb_event_multiplexed(ev));
	CHECK_EQ_U64(ev->time_running * 4, ev->time_enabled);
	fake_kernel_uninstall();
}

static void delivery_modes_configure_the_kernel(void)
{
	load_fixture("sysfs-vm");
	struct stream st = {.n = 10, .period = 100000, .ips = {1, 2, 3, 4}};
	struct seen seen = {0};

	CHECK(run_session("timer:cpu-clock", 100000, PB_DELIVERY_SIGNAL, 0, &st, &seen) == 0);
	struct fake_event *fe = fake_kernel_event_at(0);
	CHECK_EQ_U64(fe->attr.wakeup_events, 1);
	CHECK(fe->async);
	CHECK_EQ_U64(fe->owner_tid, result.thread[0].tid);
	CHECK_EQ_U64(fe->async_signal, SIGRTMIN + 2);
	CHECK_EQ_U64(fe->enables, 1);
	CHECK_EQ_U64(fe->disables, 1);
	fake_kernel_uninstall();

	CHECK(run_session("timer:cpu-clock", 100000, PB_DELIVERY_SIGTRAP, 0, &st, &seen) == 0);
	fe = fake_kernel_event_at(0);
	CHECK(fe->attr.sigtrap && fe->attr.remove_on_exec);
	CHECK_EQ_U64(fe->attr.wakeup_events, 0);
	CHECK(!fe->async);
	fake_kernel_uninstall();

	CHECK(run_session("timer:cpu-clock", 100000, PB_DELIVERY_DRAIN, 0, &st, &seen) == 0);
	CHECK_EQ_U64(result.thread[0].events[0].samples, 10);
	/* the record perf record writes for the same event, 32 bytes: no IDENTIFIER, as each
	 * event has a ring of its own */
	CHECK_EQ_U64(result.thread[0].events[0].attr.sample_type,
		     PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
	CHECK_EQ_U64(result.thread[0].events[0].ring_pages, 64);
	fake_kernel_uninstall();
}

/* A reader that costs 300 us of its thread's CPU per sample. */
static void costly_record(void *ctx, unsigned thread, unsigned event, const struct pb_record *rec)
{
	(void)thread;
	(void)event;
	if (rec->type != PERF_RECORD_SAMPLE)
		return;
	(*(unsigned *)ctx)++;
	uint64_t until = pb_thread_cpu_ns() + 300000;
	while (pb_thread_cpu_ns() < until)
		;
}

static int run_costly(enum pb_delivery mode, struct stream *st, unsigned *delivered)
{
	struct pb_session_config cfg = {
		.nevents = 1, .delivery = mode, .threads = 1, .machine = &machine,
		.expected_samples = st->n, .run = idle_run, .on_record = costly_record,
		.record_ctx = delivered,
	};
	struct pb_error err = {0};
	CHECK(pb_spec_parse("timer:cpu-clock", &cfg.events[0].spec, &err) == 0);
	cfg.events[0].period = 100000;
	fake_kernel_install();
	fake_kernel_on_disable(write_stream, st);
	int rc = pb_session_run(&cfg, &result, &err);
	fake_kernel_uninstall();
	return rc;
}

/* The drain collector's CPU time is the engine's own cost beside the sampled thread's: it must
 * hold the time spent delivering every record on that thread, and be 0 in the modes where the
 * sampled thread reads its own ring. */
static void collector_cpu_time_is_the_readers(void)
{
	load_fixture("sysfs-vm");
	struct stream st = {.n = 20, .period = 100000, .ips = {1, 2, 3, 4}};
	unsigned delivered = 0;
	CHECK(run_costly(PB_DELIVERY_DRAIN, &st, &delivered) == 0);
	CHECK_EQ_U64(delivered, 20);
	CHECK(result.collector_cpu_ns >= 20 * 300000ull);
	printf("drain collector: %llu ns CPU for 20 records of 300000 ns\n",
	       (unsigned long long)result.collector_cpu_ns);

	delivered = 0;
	CHECK(run_costly(PB_DELIVERY_NONE, &st, &delivered) == 0);
	CHECK_EQ_U64(delivered, 20);
	CHECK_EQ_U64(result.collector_cpu_ns, 0);
}

static void open_failure_is_reported(void)
{
	load_fixture("sysfs-vm");
	struct stream st = {.n = 1};
	struct seen seen = {0};
	struct pb_session_config cfg = {
		.nevents = 1, .threads = 1, .machine = &machine, .run = idle_run,
		.on_record = on_record, .record_ctx = &seen,
	};
	struct pb_error err = {0};
	CHECK(pb_spec_parse("timer:cpu-clock", &cfg.events[0].spec, &err) == 0);
	cfg.events[0].period = 100000;
	fake_kernel_install();
	fake_kernel_on_disable(write_stream, &st);
	fake_kernel_fail_next_open(ENOENT);
	CHECK(pb_session_run(&cfg, &result, &err) != 0);
	CHECK_EQ_U64(err.code, PB_EXIT_UNAVAILABLE);
	CHECK_STR_CONTAINS(err.msg, "does not exist");
	CHECK(!result.thread[0].events[0].opened);
	CHECK_EQ_U64(result.thread[0].events[0].open_errno, ENOENT);
	/* no slot left: a timer gets the generic reading, not a breakpoint's debug registers */
	fake_kernel_on_disable(write_stream, &st);
	fake_kernel_fail_next_open(ENOSPC);
	err = (struct pb_error){0};
	CHECK(pb_session_run(&cfg, &result, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "no free counter or slot for this event");
	CHECK(strstr(err.msg, "debug-register") == NULL);
	fake_kernel_uninstall();
}

/* --iterations goes up to 2^56: the expected samples times the record size must saturate to
 * the largest ring, not wrap around to a tiny one that loses nearly everything. */
static void ring_sizing_saturates(void)
{
	CHECK_EQ_U64(pb_ring_bytes_for_samples(1ull << 62, 48), UINT64_MAX);
	CHECK_EQ_U64(pb_ring_bytes_for_samples(1ull << 61, 8), UINT64_MAX); /* only +25 % wraps */
	CHECK_EQ_U64(pb_ring_bytes_for_samples(UINT64_MAX / 2, 2), UINT64_MAX);
	CHECK_EQ_U64(pb_ring_bytes_for_samples(1000, 40), 50000 + 65536);
	CHECK_EQ_U64(pb_ring_bytes_for_samples(0, 40), 65536);
	CHECK_EQ_U64(pb_ring_pages_for(pb_ring_bytes_for_samples(1ull << 62, 48), 16384), 16384);

	/* through the session: the default cap of 16384 pages (64 MiB) */
	load_fixture("sysfs-vm");
	struct stream st = {.n = 1, .period = 100000, .ips = {1, 2, 3, 4}};
	struct seen seen = {0};
	struct pb_session_config cfg = {
		.nevents = 1, .delivery = PB_DELIVERY_NONE, .threads = 1, .machine = &machine,
		.expected_samples = 1ull << 62, .run = idle_run, .on_record = on_record,
		.record_ctx = &seen,
	};
	struct pb_error err = {0};
	CHECK(pb_spec_parse("timer:cpu-clock", &cfg.events[0].spec, &err) == 0);
	cfg.events[0].period = 100000;
	fake_kernel_install();
	fake_kernel_on_disable(write_stream, &st);
	CHECK(pb_session_run(&cfg, &result, &err) == 0);
	CHECK_EQ_U64(result.thread[0].events[0].ring_pages, 16384);
	CHECK_EQ_U64(result.thread[0].events[0].samples, 1);
	fake_kernel_uninstall();
}

/* A config of one counting or sampling timer event per thread, the fake kernel installed. */
static struct pb_session_config fault_config(unsigned nevents, uint64_t period, struct stream *st,
					     struct seen *seen)
{
	load_fixture("sysfs-vm");
	struct pb_session_config cfg = {
		.nevents = nevents, .threads = 1, .machine = &machine, .run = idle_run,
		.on_record = on_record, .record_ctx = seen, .expected_samples = st->n,
	};
	struct pb_error err = {0};
	for (unsigned e = 0; e < nevents; e++) {
		CHECK(pb_spec_parse("timer:cpu-clock", &cfg.events[e].spec, &err) == 0);
		cfg.events[e].period = period;
	}
	fake_kernel_install();
	fake_kernel_on_disable(write_stream, st);
	return cfg;
}

/* A refused ENABLE fails the run, naming the event and the errno; the region is not run with
 * the event off, and the events enabled before it are disabled again. */
static unsigned runs;

static void counting_run(void *ctx, unsigned thread)
{
	(void)ctx;
	(void)thread;
	runs++;
}

static void enable_failure_fails_the_run(void)
{
	struct stream st = {.n = 10, .period = 100000};
	struct seen seen = {0};
	struct pb_session_config cfg = fault_config(1, 100000, &st, &seen);
	cfg.run = counting_run;
	runs = 0;
	struct pb_error err = {0};
	fake_kernel_fail_next_ioctl(EBUSY);
	CHECK(pb_session_run(&cfg, &result, &err) != 0);
	CHECK_EQ_U64(err.code, PB_EXIT_FAILURE);
	CHECK_EQ_U64(err.sys_errno, EBUSY);
	CHECK_STR_CONTAINS(err.msg, "enable");
	CHECK_STR_CONTAINS(err.msg, "timer:cpu-clock");
	CHECK_STR_CONTAINS(err.msg, strerror(EBUSY));
	CHECK_EQ_U64(runs, 0);
	struct fake_event *fe = fake_kernel_event_at(0);
	CHECK_EQ_U64(fe->enables, 0);
	CHECK(fe->closed);
	fake_kernel_uninstall();

	/* the second of two events refused: the first, enabled, is disabled again */
	cfg = fault_config(2, 0, &st, &seen);
	cfg.run = counting_run;
	runs = 0;
	fake_kernel_fail_ioctl(FAKE_FD_BASE + 1, PERF_EVENT_IOC_ENABLE, EINVAL);
	CHECK(pb_session_run(&cfg, &result, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "enable");
	CHECK_EQ_U64(err.sys_errno, EINVAL);
	CHECK_EQ_U64(runs, 0);
	CHECK_EQ_U64(fake_kernel_event_at(0)->enables, 1);
	CHECK_EQ_U64(fake_kernel_event_at(0)->disables, 1);
	CHECK(!fake_kernel_event_at(0)->enabled);
	CHECK_EQ_U64(fake_kernel_event_at(1)->enables, 0);
	fake_kernel_uninstall();
}

static void disable_failure_fails_the_run(void)
{
	struct stream st = {.n = 10, .period = 100000};
	struct seen seen = {0};
	struct pb_session_config cfg = fault_config(1, 100000, &st, &seen);
	struct pb_error err = {0};
	fake_kernel_fail_ioctl(-1, PERF_EVENT_IOC_DISABLE, EIO);
	CHECK(pb_session_run(&cfg, &result, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "disable");
	CHECK_STR_CONTAINS(err.msg, "timer:cpu-clock, thread 0");
	CHECK_EQ_U64(err.sys_errno, EIO);
	fake_kernel_uninstall();
}

/* A read shorter than the read_format (here without its PERF_FORMAT_LOST word) fails the run
 * and leaves the counts untouched, never half filled. */
static void short_read_fails_the_run(void)
{
	struct stream st = {.n = 10, .period = 100000};
	struct seen seen = {0};
	struct pb_session_config cfg = fault_config(1, 0, &st, &seen);
	struct pb_error err = {0};
	CHECK(pb_session_run(&cfg, &result, &err) == 0);
	CHECK_EQ_U64(result.thread[0].events[0].count, 10 * 100000);
	fake_kernel_uninstall();

	cfg = fault_config(1, 0, &st, &seen);
	fake_kernel_short_read_next();
	CHECK(pb_session_run(&cfg, &result, &err) != 0);
	CHECK_EQ_U64(err.code, PB_EXIT_FAILURE);
	CHECK_STR_CONTAINS(err.msg, "short read");
	CHECK_STR_CONTAINS(err.msg, "timer:cpu-clock, thread 0");
	CHECK(result.thread[0].events[0].has_lost_format);
	CHECK_EQ_U64(result.thread[0].events[0].count, 0);
	CHECK_EQ_U64(result.thread[0].events[0].time_enabled, 0);
	fake_kernel_uninstall();
}

/* A CPU the system refuses (a cgroup's cpuset) leaves the thread unpinned: said, not fatal. */
static void unpinned_thread_is_reported(void)
{
	struct stream st = {.n = 10, .period = 100000};
	struct seen seen = {0};
	struct pb_session_config cfg = fault_config(1, 100000, &st, &seen);
	static const int cpus[2] = {0, 1};
	cfg.threads = 2;
	cfg.cpus = cpus;
	fake_kernel_refuse_cpu(1, EINVAL);
	struct pb_error err = {0};
	CHECK(pb_session_run(&cfg, &result, &err) == 0);
	CHECK(result.thread[0].pinned);
	CHECK(!result.thread[1].pinned);
	CHECK_EQ_U64(result.thread[1].cpu, 1);
	CHECK_EQ_U64(result.thread[1].events[0].samples, 10);
	fake_kernel_uninstall();
}

/* Handlers that cannot be installed, or barriers that cannot be made, fail the run before any
 * thread starts, and leave the process's handlers as they were. */
static void setup_failures_fail_the_run(void)
{
	struct stream st = {.n = 10, .period = 100000};
	struct seen seen = {0};
	struct pb_session_config cfg = fault_config(1, 100000, &st, &seen);
	cfg.delivery = PB_DELIVERY_SIGNAL;
	cfg.signal_number = SIGKILL;
	struct sigaction before, after;
	sigaction(SIGTRAP, NULL, &before);
	struct pb_error err = {0};
	CHECK(pb_session_run(&cfg, &result, &err) != 0);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "sigaction");
	CHECK_STR_CONTAINS(err.msg, "signal 9");
	CHECK_EQ_U64(fake_kernel_nevents(), 0);
	sigaction(SIGTRAP, NULL, &after);
	CHECK(after.sa_handler == before.sa_handler);
	fake_kernel_uninstall();

	cfg = fault_config(1, 100000, &st, &seen);
	barrier_init_errno = EAGAIN;
	CHECK(pb_session_run(&cfg, &result, &err) != 0);
	barrier_init_errno = 0;
	CHECK_EQ_U64(err.sys_errno, EAGAIN);
	CHECK_STR_CONTAINS(err.msg, "barrier");
	CHECK_EQ_U64(fake_kernel_nevents(), 0);
	fake_kernel_uninstall();
	/* and the session works again */
	cfg = fault_config(1, 100000, &st, &seen);
	CHECK(pb_session_run(&cfg, &result, &err) == 0);
	fake_kernel_uninstall();
}

int main(void)
{
	pebs_stream();
	ibs_stream();
	lossy_stream();
	multiplexed_stream();
	delivery_modes_configure_the_kernel();
	collector_cpu_time_is_the_readers();
	open_failure_is_reported();
	ring_sizing_saturates();
	enable_failure_fails_the_run();
	disable_failure_fails_the_run();
	short_read_fails_the_run();
	unpinned_thread_is_reported();
	setup_failures_fail_the_run();
	return pb_check_done("session_fake");
}
