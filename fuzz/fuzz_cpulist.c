/* Fuzzes the kernel CPU-list parser (pb_cpulist_parse: a PMU's cpus file, "0-15,20") and the
 * two readers of a PMU's list built on it. Whatever the bytes, the parser returns -1 or the
 * number of bits it set, sets no bit at or above nbits, and a PMU's i-th CPU is one of them. */
#include "facilities/machine.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pb_pmu pmu;
	memset(&pmu, 0, sizeof pmu);
	size_t n = size < sizeof pmu.cpus - 1 ? size : sizeof pmu.cpus - 1;
	memcpy(pmu.cpus, data, n);
	pmu.cpus[n] = '\0';
	uint64_t mask[2];
	int count = pb_cpulist_parse(pmu.cpus, mask, 100);
	if (count < -1 || count > 100)
		abort();
	if (count >= 0) {
		int bits = __builtin_popcountll(mask[0]) + __builtin_popcountll(mask[1]);
		if (bits != count || mask[1] >> 36)
			abort();
	}
	unsigned cpus = pb_pmu_cpu_count(&pmu);
	int first = pb_pmu_cpu_at(&pmu, 0);
	if ((cpus == 0) != (first < 0))
		abort();
	return 0;
}
