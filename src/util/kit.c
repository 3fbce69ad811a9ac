#include "util/kit.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t pb_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t pb_thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int pb_grow(void *array, size_t *cap, size_t n, size_t elem_size, size_t first)
{
	if (n < *cap)
		return 0;
	size_t want = *cap ? 2 * *cap : first;
	if (want <= n || want > SIZE_MAX / elem_size)
		return -1;
	void *old;
	memcpy(&old, array, sizeof old);
	void *grown = realloc(old, want * elem_size);
	if (!grown)
		return -1;
	memcpy(array, &grown, sizeof grown);
	*cap = want;
	return 0;
}
