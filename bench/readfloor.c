/* The read floor of bench/analysis.sh: every byte of a file through read(2) into one 1 MiB
 * buffer, the buffer pesbench's perf.data reader reads with, and nothing done with the bytes. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	if (argc != 2) {
		fprintf(stderr, "usage: readfloor FILE\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	long long total = 0;
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		total += n;
	if (n < 0) {
		perror(argv[1]);
		return 1;
	}
	printf("%lld\n", total);
	return 0;
}
