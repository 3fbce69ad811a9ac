// A C++ program whose hot code is two instantiations of one function template in a namespace,
// for tests/cli_cxx_names.sh: their symbols are mangled (_ZN13pesbench_test4spinI...), and
// every view of a profile must show them as c++filt, callgrind_annotate and perf do. The two
// take turns in 100 rounds of equal work. Usage: cxx_names [TENS_OF_THOUSANDS] (default 20).
#include <cstdio>
#include <cstdlib>

namespace pesbench_test {
unsigned long sink;

template <typename T> __attribute__((noinline)) T spin(T n)
{
	T x = 1000003;
	for (T i = 0; i < n; i++)
		x = x / 3 + 1000003;
	return x;
}
} // namespace pesbench_test

int main(int argc, char **argv)
{
	unsigned long n = (argc > 1 ? strtoul(argv[1], nullptr, 10) : 20) * 10000;
	for (int round = 0; round < 100; round++) {
		pesbench_test::sink += pesbench_test::spin<unsigned long>(n);
		pesbench_test::sink += pesbench_test::spin<unsigned>(static_cast<unsigned>(n));
	}
	std::printf("%lu\n", pesbench_test::sink);
	return 0;
}
