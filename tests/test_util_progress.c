/* The progress line: within its width (100 columns at most), the share done, the time elapsed
 * and left, and 100 % at the end even when the estimate of the total was high. */
#include "check.h"
#include "util/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	char line[256];
	const char *what = "cost timer:cpu-clock drain, period 100000, round 3 of a very long "
			   "description that goes on past any terminal's right edge, and on";
	pb_progress_format(line, sizeof line, 40, 98, 12.0, what, 99);
	CHECK_MSG(strlen(line) <= 99, "%zu columns: %s", strlen(line), line);
	CHECK_STR_CONTAINS(line, "40/98");
	CHECK_STR_CONTAINS(line, " 40 %");
	CHECK_STR_CONTAINS(line, "0:12");
	/* 12 s for 40 runs: 58 more take ~17 s */
	CHECK_STR_CONTAINS(line, "~0:17 left");
	CHECK_STR_CONTAINS(line, "cost timer:cpu-clock");
	CHECK(!strncmp(line, "[########............]", 22));

	/* nothing done yet: no estimate of the time left */
	pb_progress_format(line, sizeof line, 0, 98, 0.4, what, 99);
	CHECK(!strstr(line, "left"));
	CHECK_STR_CONTAINS(line, "  0 %");
	/* all done */
	pb_progress_format(line, sizeof line, 98, 98, 3725.0, NULL, 99);
	CHECK_MSG(!strcmp(line, "[####################] 98/98 100 %  1:02:05"), "'%s'", line);
	/* more done than estimated: the total grows, never beyond 100 % */
	pb_progress_format(line, sizeof line, 120, 98, 60.0, NULL, 99);
	CHECK_STR_CONTAINS(line, "120/120 100 %");
	/* a narrow terminal, and a buffer shorter than the width */
	pb_progress_format(line, sizeof line, 5, 10, 1.0, what, 40);
	CHECK(strlen(line) <= 40);
	char small[16];
	pb_progress_format(small, sizeof small, 5, 10, 1.0, what, 99);
	CHECK(strlen(small) < sizeof small);
	/* cut at the width on purpose, never inside a character: at every width a run of "µs"
	 * ends whole (a byte cut left half a "µ") */
	const char *micro = "cost timer:cpu-clock none, µµµµµµµµµµµµµµµµµµµµ"
			    "µµµµµµµµµµµµµµµµµµµµµµµµµµµµµµ";
	unsigned split = 0;
	for (unsigned width = 40; width < 99; width++) {
		pb_progress_format(line, sizeof line, 5, 10, 1.0, micro, width);
		size_t n = strlen(line), i = 0;
		while (i < n)
			i += (unsigned char)line[i] < 0x80 ? 1 : (unsigned char)line[i] < 0xE0 ? 2 : 3;
		split += i != n;
		CHECK(n <= width);
	}
	CHECK_EQ_U64(split, 0);

	/* the meter: its total grows with the runs begun and it ends at 100 % */
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	struct pb_progress p;
	pb_progress_start(&p, out, true, 98);
	for (int i = 0; i < 40; i++)
		pb_progress_step(&p, "run");
	pb_progress_finish(&p);
	fclose(out);
	const char *last = text;
	for (const char *c = text; (c = strstr(c, "\r")); c++)
		last = c;
	CHECK_MSG(strstr(last, "40/40 100 %") != NULL, "last line: %s", last);
	CHECK(strstr(text, "39/98") != NULL);
	free(text);

	/* corrected as the work learns its size: more runs, fewer, never below those begun */
	pb_progress_start(&p, NULL, false, 10);
	for (int i = 0; i < 4; i++)
		pb_progress_step(&p, "run");
	pb_progress_more(&p, 6);
	CHECK_EQ_U64(p.total, 16);
	pb_progress_more(&p, -9);
	CHECK_EQ_U64(p.total, 7);
	pb_progress_more(&p, -100);
	CHECK_EQ_U64(p.total, 4);

	/* not drawn when the caller says so (not a terminal, --quiet) */
	text = NULL;
	out = open_memstream(&text, &size);
	pb_progress_start(&p, out, false, 3);
	pb_progress_step(&p, "run");
	pb_progress_finish(&p);
	fclose(out);
	CHECK(size == 0);
	free(text);
	return pb_check_done("util_progress");
}
