// The guest's first check, before pesbench runs: the kernel's PMU driver counts. Under
// -icount shift=0 cycles equal instructions exactly, so a cycles count outside
// [instructions of the loop, + a small fixed overhead] means the guest is not what the
// harness assumes (no icount, another CPU's instructions, no PMU) and every later result
// would be misread. Prints "pmu_smoke: PASS ..." or "pmu_smoke: FAIL ..."; exit 0 on PASS.
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_counter(uint32_t type, uint64_t config, int group)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = group < 0;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, group, 0);
}

int main(void)
{
	const uint64_t iters = 1000000;
	uint64_t cycles = 0, insns = 0, n = iters;
	int cfd, ifd;

	cfd = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, -1);
	if (cfd < 0) {
		printf("pmu_smoke: FAIL cannot open cycles: %m\n");
		return 1;
	}
	ifd = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, cfd);
	if (ifd < 0) {
		printf("pmu_smoke: FAIL cannot open instructions: %m\n");
		return 1;
	}
	ioctl(cfd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
#if defined(__aarch64__)
	// two instructions per iteration
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#else
	while (n) {
		__asm__ volatile("" : "+r"(n));
		n--;
	}
#endif
	ioctl(cfd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	if (read(cfd, &cycles, sizeof(cycles)) != sizeof(cycles) ||
	    read(ifd, &insns, sizeof(insns)) != sizeof(insns)) {
		printf("pmu_smoke: FAIL read: %m\n");
		return 1;
	}
	// the loop is 2 instructions per iteration; enable/disable add a few dozen around it
	int ok = cycles == insns && insns >= 2 * iters && insns < 2 * iters + 200;
	printf("pmu_smoke: %s cycles %llu instructions %llu (loop: %llu)\n", ok ? "PASS" : "FAIL",
	       (unsigned long long)cycles, (unsigned long long)insns,
	       (unsigned long long)(2 * iters));
	return ok ? 0 : 1;
}
