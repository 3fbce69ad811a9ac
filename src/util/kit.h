/* Small parts every layer shares: array length and growth, the monotonic clock, little-endian
 * loads. */
#ifndef PB_KIT_H
#define PB_KIT_H

#include <stddef.h>
#include <stdint.h>

/* Elements of an array (not a pointer: -Wsizeof-pointer-div, on in -Wall, refuses one). */
#define PB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Room for element n of a growing array: when n has reached *cap, the array at *(T **)array
 * doubles (to first when empty). -1 when out of memory, the array left as it was. */
int pb_grow(void *array, size_t *cap, size_t n, size_t elem_size, size_t first);

/* Nanoseconds of CLOCK_MONOTONIC: durations, never wall-clock dates. */
uint64_t pb_now_ns(void);
/* Nanoseconds of CPU the calling thread has used (user + kernel, with the interrupts and traps
 * it took): what a sample costs the thread it lands on, without the time it waited for a CPU. */
uint64_t pb_thread_cpu_ns(void);

/* n (at most 8) little-endian bytes as a number. Payloads come from files written on any
 * machine, so bytes are assembled explicitly rather than loaded in the host's order. */
static inline uint64_t pb_load_le(const void *bytes, unsigned n)
{
	const uint8_t *p = bytes;
	uint64_t v = 0;
	for (unsigned i = 0; i < n && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

#endif
