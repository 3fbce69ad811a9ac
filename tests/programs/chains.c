/* Four functions that call each other, for the export tests (tests/cli_export*.sh): compiled
 * there with -O0 (no inlining, no sibling calls, no hoisting) and frame pointers, so the
 * kernel's user call chains are whole: main;outer;middle;leaf_a and main;outer;middle;leaf_b,
 * leaf_a twice the instructions of leaf_b. argv[1]: the inner loop's length. */
#include <stdlib.h>

__attribute__((noinline)) long leaf_a(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i * 3 ^ (s >> 1);
	return s;
}

__attribute__((noinline)) long leaf_b(long n)
{
	long s = 1;
	for (long i = 0; i < n; i++)
		s = s * 7 + i;
	return s;
}

__attribute__((noinline)) long middle(long n)
{
	return leaf_a(n) + leaf_b(n / 2) + 1;
}

__attribute__((noinline)) long outer(long n)
{
	long s = 0;
	for (int k = 0; k < 20; k++)
		s += middle(n);
	return s;
}

int main(int argc, char **argv)
{
	volatile long sink = outer(argc > 1 ? atol(argv[1]) : 2000000);
	(void)sink;
	return 0;
}
