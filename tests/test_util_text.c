/* The name-list joiner of error messages ("known: a, b, c"), the appending formatter, the
 * edit distance that ranks suggestions, and an error message too long for its room. */
#include "check.h"
#include "util/error.h"
#include "util/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many times needle occurs in text. */
static unsigned count_of(const char *text, const char *needle)
{
	unsigned n = 0;
	for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
		n++;
	return n;
}

/* A listing's entry: the name padded to its column, the text wrapped under its own start
 * (a facility's option help ran to 185 columns in `pesbench facilities`). */
static void check_text_entry(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	CHECK(f != NULL);
	if (!f)
		return;
	char text[400] = "";
	for (int i = 0; i < 40; i++)
		pb_append(text, sizeof text, "%sword%02d", i ? " " : "", i);
	pb_text_entry(f, 2, ":cpu-clock", 23, text);
	pb_text_entry(f, 2, "short", 9, "fits");
	fclose(f);
	CHECK_MSG(!strncmp(out, "  :cpu-clock              word00 word01", 39), "%s", out);
	CHECK_STR_CONTAINS(out, "\n  short     fits\n");
	unsigned lines = 0;
	for (char *line = out; line && *line; lines++) {
		char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		CHECK_MSG(n <= 100, "%zu columns: %.*s", n, (int)n, line);
		if (lines && strncmp(line, "  short", 7))   /* a continuation, under the text */
			CHECK_MSG(n > 26 && !strncmp(line, "                          word", 30),
				  "%.*s", (int)n, line);
		line = end ? end + 1 : NULL;
	}
	/* 40 words of 7 columns in 74: four lines of ten, and the short entry */
	CHECK_MSG(lines == 5, "%u lines: %s", lines, out);
	free(out);
}

/* What pb_text_wrapped writes for text (never NULL; free it). */
static char *wrap_of(const char *text, int indent)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (f) {
		pb_text_wrapped(f, "", text, indent);
		fclose(f);
	}
	return out ? out : strdup("");
}

/* A line is as wide as its characters, not its bytes: "1 ± 2" after 94 columns makes 100 and
 * stays on the line ('±' is two bytes; it was wrapped a column early). One column more wraps. */
static void check_wrap_counts_characters(void)
{
	for (int extra = 0; extra < 2; extra++) {
		char text[128];
		memset(text, 'x', (size_t)(94 + extra));
		snprintf(text + 94 + extra, sizeof text - 94 - (size_t)extra, " 1 ± 2");
		char *out = wrap_of(text, 4);
		unsigned lines = count_of(out, "\n");
		CHECK_MSG(lines == (extra ? 2u : 1u), "%d columns: %u lines: %s", 100 + extra,
			  lines, out);
		free(out);
	}
}

int main(void)
{
	check_text_entry();
	check_wrap_counts_characters();
	/* one column a character: the wrapper, the scorecard and compare's table count alike */
	CHECK_EQ_U64(pb_utf8_columns("13.2 ± 0.15 µs", strlen("13.2 ± 0.15 µs")), 14);
	CHECK_EQ_U64(pb_utf8_columns("±µ", 2), 1);
	/* a figure never in exponent form: whole where the format would write one */
	char num[32];
	pb_format_number(num, sizeof num, "%.2g", 99.6);
	CHECK_MSG(!strcmp(num, "100"), "99.6 by %%.2g: %s", num);
	pb_format_number(num, sizeof num, "%.2g", 0.026);
	CHECK(!strcmp(num, "0.026"));
	pb_format_number(num, sizeof num, "%.3g", 11640);
	CHECK(!strcmp(num, "11640"));
	pb_format_number(num, sizeof num, "%.3g", 16.62);
	CHECK(!strcmp(num, "16.6"));
	/* a sign asked for is kept when the figure is written whole */
	char sn[PB_NUM_LEN];
	CHECK_MSG(!strcmp(pb_num(sn, "%+.3g", 1234.4), "+1234"), "%s", sn);
	CHECK(!strcmp(pb_num(sn, "%+.3g", -1234.4), "-1234"));
	CHECK(!strcmp(pb_num(sn, "%.2g", 120), "120"));

	/* a figure with its interval: no digit finer than the interval's second */
	struct {
		const char *fmt;
		double v, ci;
		const char *want;
	} vc[] = {
		{"%.4g", 32.2412, 2.1, "32.2 ±2.1"},
		{"%.3f", 98.0, 2.5, "98.0 ±2.5"},
		{"%.3g", 29.2, 0.38, "29.20 ±0.38"},
		{"%.4g", 16446.2, 5001, "16400 ±5000"},
		{"%.4g", 16272.9, 183.6, "16270 ±180"},
		{"%.4g", 14.93, 9.96, "15 ±10"},   /* the rounded interval sets the place */
		{"%.4g", 100.4, 99.6, "100 ±100"},
		{"%.4g", -0.01, 2.1, "0.0 ±2.1"},  /* no sign on a zero */
		{"%.4g", -1.26, 2.1, "-1.3 ±2.1"},
		{"%.0f", 9984, 0, "9984 ±0"},      /* no spread: the figure by its format */
		{"%.4g", 11.31, NAN, "11.31"},     /* no interval */
		{"%.2f", 30, 1.8e-15, "30.00 ±0"}, /* spread only in the doubles' last bits */
		{"%.4g", 5e-13, 1e-13, "0 ±0"},    /* within 1e-9: no spread the page can show */
		{"%.4g", 2, 1e-300, "2 ±0"},
		{"%.4g", 12345.6, 0.0004, "12345.60000 ±0.00040"},
		{"%.4g", 99.6, 1.0, "99.6 ±1.0"},
		{"%.4g", 99.947, 0.06, "99.947 ±0.060"},
	};
	for (size_t i = 0; i < sizeof vc / sizeof vc[0]; i++) {
		char got[64];
		pb_format_value_ci(got, sizeof got, vc[i].fmt, vc[i].v, vc[i].ci);
		CHECK_MSG(!strcmp(got, vc[i].want), "%g ± %g: %s, not %s", vc[i].v, vc[i].ci, got,
			  vc[i].want);
	}

	/* a time in the unit of its size; the interval rounds it as above */
	const struct {
		double ns, ci;
		const char *want;
	} dc[] = {
		{30010, 440, "30.01 ±0.44 µs"},
		{29380000, 480000, "29.38 ±0.48 ms"},
		{999, NAN, "999 ns"},
		{1e9, 2e7, "1.000 ±0.020 s"},
		{-2500, 300, "-2.50 ±0.30 µs"},
		{0, 0, "0 ±0 ns"},
	};
	for (size_t i = 0; i < sizeof dc / sizeof dc[0]; i++) {
		char got[64];
		pb_format_duration_ci(got, sizeof got, dc[i].ns, dc[i].ci);
		CHECK_MSG(!strcmp(got, dc[i].want), "%g ns ± %g: %s, not %s", dc[i].ns, dc[i].ci, got,
			  dc[i].want);
	}

	/* a command as a shell takes it back; whole words or " ..." */
	char *const plain[] = {"xz", "-T1", "-6", "-c", "in.txt", NULL};
	char *const quoted[] = {"sh", "-c", "echo it's $HOME", "", NULL};
	char cmd[64];
	pb_command_text(cmd, sizeof cmd, plain);
	CHECK_MSG(!strcmp(cmd, "xz -T1 -6 -c in.txt"), "%s", cmd);
	pb_command_text(cmd, sizeof cmd, quoted);
	CHECK_MSG(!strcmp(cmd, "sh -c 'echo it'\\''s $HOME' ''"), "%s", cmd);
	char cut[16];
	pb_command_text(cut, sizeof cut, plain); /* "xz -T1 -6 -c ..." would need 17 bytes */
	CHECK_MSG(!strcmp(cut, "xz -T1 -6 ..."), "%s", cut);
	char tiny[4];
	pb_command_text(tiny, sizeof tiny, quoted);
	CHECK_MSG(!strcmp(tiny, "..."), "%s", tiny); /* "sh" fits, "sh ..." does not */
	char none[4];
	pb_command_text(none, sizeof none, (char *const[]){"python3", NULL});
	CHECK_MSG(!strcmp(none, "..."), "%s", none);

	char buf[64] = "";
	pb_list_add(buf, sizeof buf, "timer");
	CHECK(!strcmp(buf, "timer"));
	pb_list_add(buf, sizeof buf, "sw");
	pb_list_add(buf, sizeof buf, "bp");
	CHECK(!strcmp(buf, "timer, sw, bp"));

	/* Exactly full: "ab, cd" is 6 characters and a NUL. */
	char exact[7] = "";
	pb_list_add(exact, sizeof exact, "ab");
	pb_list_add(exact, sizeof exact, "cd");
	CHECK(!strcmp(exact, "ab, cd"));

	/* A name that does not fit is never cut: whole names only, then "...", and nothing after
	 * that, even a name short enough to fit. */
	char small[17] = "";
	pb_list_add(small, sizeof small, "alpha");
	pb_list_add(small, sizeof small, "beta");     /* "alpha, beta" = 11 */
	pb_list_add(small, sizeof small, "gamma");    /* would be 18 */
	CHECK(!strcmp(small, "alpha, beta, ..."));
	pb_list_add(small, sizeof small, "x");
	CHECK(!strcmp(small, "alpha, beta, ..."));

	/* No room for ", ..." after the names: names are dropped to make room for the mark. */
	char tight[14] = "";
	pb_list_add(tight, sizeof tight, "alpha");
	pb_list_add(tight, sizeof tight, "beta");     /* "alpha, beta" = 11, 2 left */
	pb_list_add(tight, sizeof tight, "gamma");
	CHECK(!strcmp(tight, "alpha, ..."));

	/* A name ending in "..." is a name, not the mark. */
	char dots[64] = "";
	pb_list_add(dots, sizeof dots, "sw:a|b|...");
	pb_list_add(dots, sizeof dots, "bp:w");
	CHECK(!strcmp(dots, "sw:a|b|..., bp:w"));

	char one[4] = "";
	pb_list_add(one, sizeof one, "toolong");
	CHECK(!strcmp(one, "..."));

	/* a text that does not fit is cut, and counted (a test fails on a cut it did not make on
	 * purpose: tests/lib/check.c), a full buffer's too */
	unsigned long cuts = pb_text_cuts;
	char app[8] = "ab";
	pb_append(app, sizeof app, "%s", "cdefghij");
	CHECK(!strcmp(app, "abcdefg"));
	CHECK_EQ_U64(pb_text_cuts, cuts + 1);
	CHECK(!strcmp(pb_text_last_cut, "abcdefg"));
	pb_append(app, sizeof app, "%s", "k");
	pb_append(app, sizeof app, "%s", "");
	CHECK_EQ_U64(pb_text_cuts, cuts + 2);
	char fits[8];
	pb_format(fits, sizeof fits, "%s", "1234567");
	CHECK_EQ_U64(pb_text_cuts, cuts + 2);
	pb_format(fits, sizeof fits, "%s", "12345678");
	CHECK_EQ_U64(pb_text_cuts, cuts + 3);
	pb_text_cuts = cuts; /* these were meant */
	/* The distance suggestions rank names by: one edit each for a substitution, an
	 * insertion, a deletion; case counts only without fold_case. */
	CHECK(pb_edit_distance("page-faults", "page-faults", false) == 0);
	CHECK(pb_edit_distance("page-fault", "page-faults", false) == 1);
	CHECK(pb_edit_distance("page-faultz", "page-faults", false) == 1);
	CHECK(pb_edit_distance("pagee-faults", "page-faults", false) == 1);
	CHECK(pb_edit_distance("kitten", "sitting", false) == 3);
	CHECK(pb_edit_distance("", "abc", false) == 3);
	CHECK(pb_edit_distance("Page-Faults", "page-faults", false) == 2);
	CHECK(pb_edit_distance("Page-Faults", "page-faults", true) == 0);
	CHECK(pb_edit_distance("inst_retired", "INST_RETIRED", true) == 0);
	char longest[PB_EDIT_DISTANCE_MAX_LEN + 2];
	memset(longest, 'a', sizeof longest - 1);
	longest[sizeof longest - 1] = '\0';
	CHECK(pb_edit_distance(longest, "a", false) == PB_EDIT_DISTANCE_FAR);
	longest[PB_EDIT_DISTANCE_MAX_LEN] = '\0';
	CHECK(pb_edit_distance(longest, "a", false) == PB_EDIT_DISTANCE_MAX_LEN - 1);

	/* a cut of UTF-8 text falls between characters: "aé" is a, then é in bytes 1 and 2 */
	CHECK(pb_utf8_floor("a\xc3\xa9", 2) == 1 && pb_utf8_ceil("a\xc3\xa9", 2) == 3);
	CHECK(pb_utf8_floor("a\xc3\xa9", 1) == 1 && pb_utf8_ceil("a\xc3\xa9", 3) == 3);

	/* an error message too long for its room keeps its start and its end (the advice), never
	 * cut inside a character; one that fits is kept whole */
	struct pb_error e = {0};
	char reason[1200] = "";
	for (int i = 0; i < 300; i++)
		pb_append(reason, sizeof reason, "é");
	CHECK(pb_fail(&e, 1, 0, "the run failed: %s; re-run with --runs 9", reason) == -1);
	size_t elen = strlen(e.msg);
	CHECK_MSG(elen < sizeof e.msg && elen > sizeof e.msg - 12, "%zu bytes", elen);
	CHECK(!strncmp(e.msg, "the run failed: é", strlen("the run failed: é")));
	CHECK_STR_CONTAINS(e.msg, " ... ");
	CHECK(elen >= strlen("; re-run with --runs 9") &&
	      !strcmp(e.msg + elen - strlen("; re-run with --runs 9"), "; re-run with --runs 9"));
	/* every character whole: a lead byte of é (0xC3) is always followed by its 0xA9 */
	for (size_t i = 0; i < elen; i++)
		if ((unsigned char)e.msg[i] == 0xC3)
			CHECK_MSG(i + 1 < elen && (unsigned char)e.msg[i + 1] == 0xA9, "cut at %zu", i);
		else if ((unsigned char)e.msg[i] == 0xA9)
			CHECK_MSG(i > 0 && (unsigned char)e.msg[i - 1] == 0xC3, "orphan at %zu", i);
	CHECK(e.code == 1);
	/* longer than pb_fail's own 4 KiB: the character that cut leaves half of is dropped */
	static char huge[5300];
	huge[0] = 0;
	for (int i = 0; i < 2600; i++)
		pb_append(huge, sizeof huge, "é");
	pb_fail(&e, 1, 0, "8 bytes %s", huge);
	elen = strlen(e.msg);
	CHECK_MSG(elen > 2 && (unsigned char)e.msg[elen - 1] == 0xA9 &&
			  (unsigned char)e.msg[elen - 2] == 0xC3,
		  "ends %02x %02x", (unsigned char)e.msg[elen - 2], (unsigned char)e.msg[elen - 1]);
	/* advice added to a message that is already long is kept, and so are its code and errno */
	pb_fail(&e, 6, 5, "the file is bad: %s", reason);
	CHECK(pb_error_append(&e, "; measure it again") == -1);
	elen = strlen(e.msg);
	CHECK(elen < sizeof e.msg && e.code == 6 && e.sys_errno == 5);
	CHECK(!strncmp(e.msg, "the file is bad: ", 17));
	CHECK(elen >= 18 && !strcmp(e.msg + elen - 18, "; measure it again"));
	/* advice given apart (pb_fail_advice) is kept whole even past the end's two fifths, the
	 * cut falling before it, while it leaves the start a fifth of the room; longer still, it
	 * is cut as any text; one that fits is as pb_fail writes it */
	char advice[480];
	memset(advice, 'a', sizeof advice);
	advice[300] = 0;
	CHECK(pb_fail_advice(&e, 6, 3, advice, "the file is bad: %s", reason) == -1);
	CHECK(e.code == 6 && e.sys_errno == 3);
	elen = strlen(e.msg);
	CHECK_MSG(elen >= 305 && !strncmp(e.msg + elen - 305, " ... ", 5) &&
			  !strcmp(e.msg + elen - 300, advice),
		  "%s", e.msg);
	CHECK(!strncmp(e.msg, "the file is bad: ", 17));
	/* 479 bytes: more than the 506 usable less a fifth for the start */
	memset(advice + 300, 'b', 179);
	advice[479] = 0;
	pb_fail_advice(&e, 6, 0, advice, "the file is bad: %s", reason);
	elen = strlen(e.msg);
	CHECK(elen < sizeof e.msg && !strncmp(e.msg, "the file is bad: ", 17));
	CHECK(strstr(e.msg, " ... ") && !strstr(e.msg, advice) && e.msg[elen - 1] == 'b');
	pb_fail_advice(&e, 1, 0, ": do this", "%s failed", "that");
	CHECK(!strcmp(e.msg, "that failed: do this"));
	pb_fail(&e, 1, 0, "short");
	pb_error_append(&e, " (%s)", "in x");
	CHECK(!strcmp(e.msg, "short (in x)"));
	CHECK(pb_error_append(NULL, "nothing") == -1);
	pb_fail(&e, 2, 0, "short: %s", "kept whole");
	CHECK(!strcmp(e.msg, "short: kept whole") && e.code == 2);
	/* a message already cut is cut again at its joint: added to twice, or given a place in
	 * front, it holds one " ... ", its start, and its end with what was added (hw.c's "generic
	 * events", ibs_op.c's "(in SPEC)", callgrind.c's "(PATH)" were cut twice before) */
	pb_fail(&e, 6, 5, "the file is bad: %s; measure it again", reason);
	pb_error_append(&e, " (in %s)", "ibs_op//");
	pb_error_append(&e, "; generic events: %s", "closed");
	elen = strlen(e.msg);
	CHECK(elen < sizeof e.msg && e.code == 6 && e.sys_errno == 5);
	CHECK_MSG(count_of(e.msg, " ... ") == 1, "%s", e.msg);
	CHECK(!strncmp(e.msg, "the file is bad: ", 17));
	const char *end = "; measure it again (in ibs_op//); generic events: closed";
	CHECK_MSG(elen >= strlen(end) && !strcmp(e.msg + elen - strlen(end), end), "%s", e.msg);
	pb_error_prefix(&e, "%s: ", "x.perf.data");
	elen = strlen(e.msg);
	CHECK_MSG(count_of(e.msg, " ... ") == 1 && !strncmp(e.msg, "x.perf.data: the file", 21),
		  "%s", e.msg);
	CHECK(elen < sizeof e.msg && !strcmp(e.msg + elen - strlen(end), end) && e.code == 6);
	for (size_t i = 0; i < elen; i++)
		if ((unsigned char)e.msg[i] == 0xC3)
			CHECK_MSG(i + 1 < elen && (unsigned char)e.msg[i + 1] == 0xA9, "cut at %zu", i);
		else if ((unsigned char)e.msg[i] == 0xA9)
			CHECK_MSG(i > 0 && (unsigned char)e.msg[i - 1] == 0xC3, "orphan at %zu", i);
	/* a place in front of a message that fits: kept whole; of one that fits alone but not with
	 * it: the message is kept whole and the cut falls in the place */
	pb_fail(&e, 6, 0, "not a perf.data");
	CHECK(pb_error_prefix(&e, "%s: ", "in.data") == -1);
	CHECK(!strcmp(e.msg, "in.data: not a perf.data"));
	char long_place[300], long_msg[381];
	memset(long_place, 'p', sizeof long_place - 1);
	long_place[sizeof long_place - 1] = 0;
	memset(long_msg, 'm', sizeof long_msg - 1);
	long_msg[sizeof long_msg - 1] = 0;
	pb_fail(&e, 6, 0, "%s", long_msg);
	pb_error_prefix(&e, "%s: ", long_place);
	elen = strlen(e.msg);
	CHECK_MSG(elen < sizeof e.msg && count_of(e.msg, " ... ") == 1 && e.msg[0] == 'p' &&
			  !strcmp(e.msg + elen - strlen(long_msg), long_msg),
		  "%s", e.msg);
	/* a cut message added to by a little keeps its one joint */
	pb_fail(&e, 1, 0, "%s", reason);
	pb_error_append(&e, "!");
	CHECK(count_of(e.msg, " ... ") == 1 && e.msg[strlen(e.msg) - 1] == '!');
	return pb_check_done("util_text");
}
