/* The riscv64 guest's measurements of Linux's riscv_pmu_sbi driver (over OpenSBI's SBI PMU
 * extension) under qemu-system-riscv64 -icount shift=0, where cycles == instructions and both
 * are exact. Runs as part of the guest's /init (tests/riscv64/guest_init.c), writes one JSON
 * document to the path in argv[1] and a readable account on stdout; the host judges the
 * figures (tests/riscv64/check_results.py). Exit 0 when every measurement could be made (the
 * figures, defects included, are findings, not failures); 1 when one could not.
 *
 * What it measures, each on a loop of 4 instructions per iteration (addi, addi, addi, bnez):
 *   counting    c(2N) - c(N) against 4N, cycles and instructions, repeated: exact or not;
 *   sampling    samples against floor(count / P) at three periods, and how the sampled IPs
 *               spread over the loop's four instructions (the counts include the kernel's
 *               own instructions, QEMU 7.2 filtering no privilege level, so the overflow
 *               positions shift with them: pesbench's skid figure is the exact one);
 *   starved     a sampling event opened right after a counting one on the same event;
 *   silent      8 counting events (4 instructions, 4 cycles) at once: which read 0 while
 *               time_running == time_enabled (a loss no scaling reveals);
 *   multiplex   20 events: time_running < time_enabled, and how far the scaled values are off;
 *   mode        exclude_kernel sampling over a loop of system calls: samples with kernel IPs. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RING_PAGES 64
#define PAGE 4096

static FILE *json;
static int broken;

extern const char pb_probe_loop_begin[], pb_probe_loop_end[];

/* n iterations of 4 instructions; the loop's IPs are [pb_probe_loop_begin, _end). */
__attribute__((noinline)) static void loop4(uint64_t n)
{
#if defined(__riscv)
	__asm__ volatile(".option push\n.option norvc\n"
			 ".globl pb_probe_loop_begin\npb_probe_loop_begin:\n"
			 "1: addi t0, t0, 1\n addi t1, t1, 1\n addi %0, %0, -1\n bnez %0, 1b\n"
			 ".globl pb_probe_loop_end\npb_probe_loop_end:\n.option pop"
			 : "+r"(n) : : "t0", "t1");
#else
#error "pmu_probe is the riscv64 guest's program"
#endif
}

static int perf_open(struct perf_event_attr *a, int group)
{
	a->size = sizeof *a;
	return (int)syscall(SYS_perf_event_open, a, 0, -1, group, 0);
}

static struct perf_event_attr counting(uint64_t config)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = config;
	a.disabled = 1;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return a;
}

struct reading {
	uint64_t value, enabled, running;
};

static int read_counter(int fd, struct reading *r)
{
	return read(fd, r, sizeof *r) == (ssize_t)sizeof *r ? 0 : -1;
}

/* One count of n iterations of the loop; -1 when the event cannot be opened. */
static int64_t count_loop(uint64_t config, uint64_t n)
{
	struct perf_event_attr a = counting(config);
	int fd = perf_open(&a, -1);
	if (fd < 0)
		return -1;
	struct reading r;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	loop4(n);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	int bad = read_counter(fd, &r);
	close(fd);
	return bad ? -1 : (int64_t)r.value;
}

static void counting_exactness(void)
{
	/* 0.4 ms of guest time per run (icount: 1 ns per instruction) against a 4 ms tick */
	const uint64_t n = 100000;
	const char *names[] = {"cycles", "instructions"};
	uint64_t configs[] = {PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS};
	fprintf(json, "\"counting\": {\"iterations\": %" PRIu64 ", \"per_iteration\": 4", n);
	for (int e = 0; e < 2; e++) {
		/* the least of 9 counts at N and of 9 at 2N: a timer tick in a run only adds */
		int64_t lo1 = -1, lo2 = -1;
		for (int rep = 0; rep < 9; rep++) {
			int64_t c1 = count_loop(configs[e], n), c2 = count_loop(configs[e], 2 * n);
			if (c1 < 0 || c2 < 0) {
				printf("counting: cannot open %s: %s\n", names[e], strerror(errno));
				broken = 1;
				break;
			}
			lo1 = lo1 < 0 || c1 < lo1 ? c1 : lo1;
			lo2 = lo2 < 0 || c2 < lo2 ? c2 : lo2;
		}
		int64_t best = lo2 - lo1, base = lo1;
		printf("counting %-12s c(2N) - c(N) = %" PRId64 " for 4N = %" PRIu64 " (%s), c(N) = %"
		       PRId64 "\n", names[e], best, 4 * n, best == (int64_t)(4 * n) ? "exact" : "NOT exact",
		       base);
		fprintf(json, ", \"%s\": {\"difference\": %" PRId64 ", \"c_n\": %" PRId64 "}", names[e],
			best, base);
	}
	/* cycles and instructions in one group: under -icount one clock; the closest of 5 */
	struct reading rc = {0}, ri = {0};
	for (int rep = 0; rep < 5; rep++) {
		struct perf_event_attr a = counting(PERF_COUNT_HW_CPU_CYCLES);
		int c = perf_open(&a, -1);
		a = counting(PERF_COUNT_HW_INSTRUCTIONS);
		a.disabled = 0;
		int i = c < 0 ? -1 : perf_open(&a, c);
		struct reading gc = {0}, gi = {0};
		if (i >= 0) {
			ioctl(c, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
			loop4(n);
			ioctl(c, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
			read_counter(c, &gc);
			read_counter(i, &gi);
			close(i);
		}
		if (c >= 0)
			close(c);
		uint64_t d = gc.value > gi.value ? gc.value - gi.value : gi.value - gc.value;
		uint64_t best = rc.value > ri.value ? rc.value - ri.value : ri.value - rc.value;
		if (rep == 0 || d < best) {
			rc = gc;
			ri = gi;
		}
	}
	printf("counting one group: cycles %" PRIu64 ", instructions %" PRIu64 "\n", rc.value,
	       ri.value);
	fprintf(json, ", \"group\": {\"cycles\": %" PRIu64 ", \"instructions\": %" PRIu64 "}}",
		rc.value, ri.value);
}

struct sampled {
	uint64_t samples, lost, count, in_loop, kernel_ips;
	uint64_t ip_hist[4]; /* samples per loop instruction */
};

/* A sampling event of period p over n iterations of the loop (or of fn when given). */
static int sample_run(uint64_t config, uint64_t p, uint64_t n, int exclude_kernel,
		      void (*fn)(uint64_t), struct sampled *out)
{
	memset(out, 0, sizeof *out);
	struct perf_event_attr a = counting(config);
	a.sample_period = p;
	a.sample_type = PERF_SAMPLE_IP;
	a.exclude_kernel = (unsigned)exclude_kernel;
	a.wakeup_events = 1u << 30;
	int fd = perf_open(&a, -1);
	if (fd < 0)
		return -1;
	size_t len = (RING_PAGES + 1) * PAGE;
	char *ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		close(fd);
		return -1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	(fn ? fn : loop4)(n);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	struct reading r;
	read_counter(fd, &r);
	out->count = r.value;
	struct perf_event_mmap_page *meta = (void *)ring;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	const char *data = ring + PAGE;
	uint64_t size = RING_PAGES * PAGE;
	for (uint64_t pos = meta->data_tail; pos < head;) {
		struct perf_event_header h;
		for (size_t b = 0; b < sizeof h; b++)
			((char *)&h)[b] = data[(pos + b) % size];
		if (h.size == 0)
			break;
		if (h.type == PERF_RECORD_SAMPLE) {
			uint64_t ip = 0;
			for (size_t b = 0; b < sizeof ip; b++)
				((char *)&ip)[b] = data[(pos + sizeof h + b) % size];
			out->samples++;
			if ((h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
				out->kernel_ips++;
			uintptr_t lo = (uintptr_t)pb_probe_loop_begin, hi = (uintptr_t)pb_probe_loop_end;
			if (ip >= lo && ip < hi) {
				out->in_loop++;
				out->ip_hist[(ip - lo) / 4 % 4]++;
			}
		} else if (h.type == PERF_RECORD_LOST) {
			uint64_t lost = 0;
			for (size_t b = 0; b < sizeof lost; b++)
				((char *)&lost)[b] = data[(pos + sizeof h + 8 + b) % size];
			out->lost += lost;
		}
		pos += h.size;
	}
	munmap(ring, len);
	close(fd);
	return 0;
}

static void json_sampled(const char *key, uint64_t p, const struct sampled *s)
{
	fprintf(json, "{\"what\": \"%s\", \"period\": %" PRIu64 ", \"samples\": %" PRIu64
		", \"lost\": %" PRIu64 ", \"count\": %" PRIu64 ", \"expected\": %" PRIu64
		", \"in_loop\": %" PRIu64 ", \"kernel_ips\": %" PRIu64 ", \"ip_hist\": [%" PRIu64
		", %" PRIu64 ", %" PRIu64 ", %" PRIu64 "]}",
		key, p, s->samples, s->lost, s->count, s->count / p, s->in_loop, s->kernel_ips,
		s->ip_hist[0], s->ip_hist[1], s->ip_hist[2], s->ip_hist[3]);
}

static void sampling_accuracy(void)
{
	const uint64_t periods[] = {10007, 100000, 1000001};
	const char *names[] = {"cycles", "instructions"};
	uint64_t configs[] = {PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS};
	const uint64_t n = 25000000; /* 100 M instructions */
	fprintf(json, "\"sampling\": [");
	int first = 1;
	for (int e = 0; e < 2; e++)
		for (unsigned k = 0; k < 3; k++) {
			struct sampled s;
			if (sample_run(configs[e], periods[k], n, 0, NULL, &s)) {
				printf("sampling %s P=%" PRIu64 ": cannot open: %s\n", names[e],
				       periods[k], strerror(errno));
				broken = 1;
				continue;
			}
			printf("sampling %-12s P=%-8" PRIu64 " samples %" PRIu64 " of floor(count/P) %"
			       PRIu64 " (%.3f %%), lost %" PRIu64 ", in the loop %" PRIu64
			       ", per loop instruction %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "\n",
			       names[e], periods[k], s.samples, s.count / periods[k],
			       s.count / periods[k] ? 100.0 * (double)s.samples /
							     (double)(s.count / periods[k])
						    : 0.0,
			       s.lost, s.in_loop, s.ip_hist[0], s.ip_hist[1], s.ip_hist[2], s.ip_hist[3]);
			fprintf(json, "%s", first ? "" : ", ");
			first = 0;
			json_sampled(names[e], periods[k], &s);
		}
	fprintf(json, "]");
}

/* Defect 1: the sampling event that follows a counting event on the same counter. */
static void starved_after_counting(void)
{
	const uint64_t p = 100003, n = 2500000; /* 10 M instructions: 99 samples due */
	struct sampled before, after;
	int bad = sample_run(PERF_COUNT_HW_INSTRUCTIONS, p, n, 0, NULL, &before);
	int64_t c = count_loop(PERF_COUNT_HW_INSTRUCTIONS, n);
	bad |= c < 0 || sample_run(PERF_COUNT_HW_INSTRUCTIONS, p, n, 0, NULL, &after);
	if (bad) {
		printf("starved: cannot open: %s\n", strerror(errno));
		broken = 1;
		return;
	}
	printf("starved: sampling alone %" PRIu64 " of %" PRIu64 " samples; right after a counting "
	       "event %" PRIu64 " of %" PRIu64 "\n", before.samples, before.count / p, after.samples,
	       after.count / p);
	fprintf(json, "\"starved\": {\"alone\": ");
	json_sampled("instructions", p, &before);
	fprintf(json, ", \"after_counting\": ");
	json_sampled("instructions", p, &after);
	fprintf(json, "}");
}

/* Defect 2 (and multiplexing): k events open at once, half instructions, half cycles. */
static void many_counters(const char *key, int k)
{
	int fds[32];
	struct reading r[32];
	const uint64_t n = 1000000;
	for (int i = 0; i < k; i++) {
		struct perf_event_attr a = counting(i % 2 ? PERF_COUNT_HW_CPU_CYCLES
							  : PERF_COUNT_HW_INSTRUCTIONS);
		fds[i] = perf_open(&a, -1);
		if (fds[i] < 0) {
			printf("%s: cannot open event %d: %s\n", key, i, strerror(errno));
			broken = 1;
			k = i;
			break;
		}
	}
	for (int i = 0; i < k; i++)
		ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
	loop4(n);
	for (int i = 0; i < k; i++)
		ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
	unsigned zero_full = 0, multiplexed = 0;
	fprintf(json, "\"%s\": {\"loop_instructions\": %" PRIu64 ", \"events\": [", key, 4 * n);
	printf("%s: %d events over %" PRIu64 " loop instructions:\n", key, k, 4 * n);
	for (int i = 0; i < k; i++) {
		memset(&r[i], 0, sizeof r[i]);
		read_counter(fds[i], &r[i]);
		close(fds[i]);
		int silent = r[i].value == 0 && r[i].running == r[i].enabled && r[i].enabled > 0;
		zero_full += (unsigned)silent;
		multiplexed += r[i].running < r[i].enabled;
		double scaled = r[i].running ? (double)r[i].value * (double)r[i].enabled /
						       (double)r[i].running
					     : 0.0;
		printf("  %-12s value %10" PRIu64 " scaled %12.0f running/enabled %" PRIu64 "/%" PRIu64
		       " ns%s\n", i % 2 ? "cycles" : "instructions", r[i].value, scaled, r[i].running,
		       r[i].enabled, silent ? "  <- 0 with full running time" : "");
		fprintf(json, "%s{\"event\": \"%s\", \"value\": %" PRIu64 ", \"enabled\": %" PRIu64
			", \"running\": %" PRIu64 "}", i ? ", " : "", i % 2 ? "cycles" : "instructions",
			r[i].value, r[i].enabled, r[i].running);
	}
	fprintf(json, "], \"zero_full_running\": %u, \"multiplexed\": %u}", zero_full, multiplexed);
	printf("%s: %u read 0 with time_running == time_enabled, %u multiplexed\n", key, zero_full,
	       multiplexed);
}

static void syscalls(uint64_t n)
{
	while (n--)
		syscall(SYS_getppid);
}

/* The privilege filter: exclude_kernel sampling over system calls. */
static void mode_filter(void)
{
	struct sampled s;
	const uint64_t p = 10007;
	/* right after the counting events above, a first sampling event is starved (defect 1):
	 * one run to clear that, then the measured one */
	if (sample_run(PERF_COUNT_HW_INSTRUCTIONS, p, 20000, 1, syscalls, &s) == 0)
		printf("mode: the run before the measured one got %" PRIu64 " samples\n", s.samples);
	if (sample_run(PERF_COUNT_HW_INSTRUCTIONS, p, 20000, 1, syscalls, &s)) {
		printf("mode: cannot open an exclude_kernel sampling event: %s\n", strerror(errno));
		fprintf(json, "\"mode\": {\"error\": \"%s\"}", strerror(errno));
		broken = 1;
		return;
	}
	printf("mode: exclude_kernel instructions P=%" PRIu64 " over 20000 getppid: %" PRIu64
	       " samples, %" PRIu64 " with a kernel IP (wrong level)\n", p, s.samples, s.kernel_ips);
	fprintf(json, "\"mode\": ");
	json_sampled("instructions:u", p, &s);
}

static void machine(void)
{
	char line[512], isa[256] = "";
	FILE *f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "isa", 3) && strchr(line, ':')) {
			snprintf(isa, sizeof isa, "%s", strchr(line, ':') + 2);
			isa[strcspn(isa, "\n")] = '\0';
			break;
		}
	if (f)
		fclose(f);
	printf("isa %s; Sscofpmf %s\n", isa, strstr(isa, "sscofpmf") ? "present" : "ABSENT");
	fprintf(json, "\"isa\": \"%s\", \"sscofpmf\": %s", isa,
		strstr(isa, "sscofpmf") ? "true" : "false");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: pmu_probe OUT.json\n");
		return 2;
	}
	json = fopen(argv[1], "w");
	if (!json) {
		perror(argv[1]);
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fprintf(json, "{");
	machine();
	fprintf(json, ", ");
	counting_exactness();
	fprintf(json, ", ");
	sampling_accuracy();
	fprintf(json, ", ");
	starved_after_counting();
	fprintf(json, ", ");
	many_counters("silent", 8);
	fprintf(json, ", ");
	many_counters("multiplex", 20);
	fprintf(json, ", ");
	mode_filter();
	fprintf(json, ", \"complete\": %s}\n", broken ? "false" : "true");
	fclose(json);
	return broken;
}
