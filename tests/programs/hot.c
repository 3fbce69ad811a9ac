/* A program with four hot functions of known weight (50, 30, 15 and 5 % of its instructions)
 * for `pesbench profile`'s function-level check. Every function runs the same loop, so time
 * shares equal instruction shares and a timer profile can be held to the exact one: a chain
 * of dependent divisions (few instructions per second, so callgrind stays quick) by a divisor
 * the compiler cannot see (argv), on operands that settle to one value (constant latency).
 * The four take turns in 200 rounds, so a slow spell of the machine (another process, the
 * host) falls on all of them alike, and a periodic sampler's error of at most one sample per
 * stretch averages out. Usage: hot [MILLIONS_OF_ITERATIONS] (default 8). */
#include <stdio.h>
#include <stdlib.h>

static unsigned long divisor = 3;
unsigned long sink;

static inline __attribute__((always_inline)) unsigned long spin(unsigned long n)
{
	unsigned long x = 1000003, d = divisor;
	for (unsigned long i = 0; i < n; i++)
		x = x / d + 1000003;
	return x;
}

__attribute__((noinline)) void hot_fifty(unsigned long n) { sink += spin(n); }
__attribute__((noinline)) void hot_thirty(unsigned long n) { sink += spin(n); }
__attribute__((noinline)) void hot_fifteen(unsigned long n) { sink += spin(n); }
__attribute__((noinline)) void hot_five(unsigned long n) { sink += spin(n); }

int main(int argc, char **argv)
{
	unsigned long millions = argc > 1 ? strtoul(argv[1], NULL, 10) : 8;
	if (argc > 2)
		divisor = strtoul(argv[2], NULL, 10) | 2;
	unsigned long unit = millions * 1000000 / 100, rounds = 200;
	for (unsigned long r = 0; r < rounds; r++) {
		hot_fifty(50 * unit / rounds);
		hot_thirty(30 * unit / rounds);
		hot_fifteen(15 * unit / rounds);
		hot_five(5 * unit / rounds);
	}
	printf("%lu\n", sink);
	return 0;
}
