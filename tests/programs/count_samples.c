/* Built against an installed libpesbench by tests/cli_install.sh: counts a perf.data's samples
 * through the public API, once by its own callback and once by the reader's count. */
#include <pesbench/pesbench.h>

#include <inttypes.h>
#include <stdio.h>

static int on_record(void *ctx, int event, const struct pesbench_record *rec,
		     struct pesbench_error *err)
{
	(void)event;
	(void)err;
	if (pesbench_record__type(rec) == PERF_RECORD_SAMPLE)
		++*(uint64_t *)ctx;
	return 0;
}

int main(int argc, char **argv)
{
	struct pesbench_error err = {0};
	uint64_t samples = 0;
	struct pesbench_perfdata *pd = argc == 2 ? pesbench_perfdata__open(argv[1], &err) : NULL;

	if (!pd || pesbench_perfdata__for_each(pd, on_record, &samples, &err)) {
		fprintf(stderr, "count_samples: %s\n", argc == 2 ? err.msg : "usage: count_samples FILE");
		pesbench_perfdata__close(pd);
		return 1;
	}
	printf("%" PRIu64 " %" PRIu64 " %s\n", samples, pesbench_perfdata__nr_samples(pd),
	       pesbench_version());
	pesbench_perfdata__close(pd);
	return 0;
}
