/* A facility's perf.data decoder is the facility's own (issue 22): a test facility defined only
 * in this file, with its own payload format and decoder (struct pb_perfdata_decoder), reaches
 * `perfdata`'s output through the walk and the report that `pesbench perfdata` runs
 * (analysis/perfdata_summary.h, io/perfdata_report.h), with no other source file knowing it.
 * 1. A file whose PMU mappings name the test PMU: without --dump nothing is decoded (the decoded
 *    dump through the command itself is tests/test_plugin_facility.c's).
 * 2. The built-in facilities decode none of it, and the test decoder does not claim a file
 *    whose PMU is another one: nothing else knows the format.
 * 3. Two facilities sharing one decoder give the file one state of it (IBS's op and fetch do):
 *    the tallies are not doubled.
 * 4. A decoder that fails to start fails the summary with its message.
 * 5. --histogram of a file without samples: an empty table (it once sorted a NULL array, which
 *    UBSan stops on). */
#include "analysis/perfdata_summary.h"
#include "check.h"
#include "facilities/facility.h"
#include "io/perfdata_report.h"
#include "perfdata/perfdata.h"
#include "plugin.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEST_PMU_TYPE 42u
#define TEST_PMU "pbtest_pmu"
#define MAGIC 0x31544250u /* "PBT1" */

static char tmpdir[] = "/tmp/pb_plugin_perfdata_XXXXXX";

/* ---- the test facility: payload u32 magic, u32 latency, u32 flags ---- */

struct test_state {
	size_t nevents;
	bool *mine;
	uint64_t decoded, bad, latency_sum;
};

static void test_close(void *state)
{
	struct test_state *t = state;
	if (t)
		free(t->mine);
	free(t);
}

static void *test_open(struct pb_perfdata *pd, struct pb_error *err)
{
	struct test_state *t = calloc(1, sizeof *t);
	if (t)
		t->mine = pb_test_plugin_events_of_pmu(pd, TEST_PMU, &t->nevents);
	if (!t || (!t->mine && t->nevents)) {
		test_close(t);
		pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
		return NULL;
	}
	if (!t->mine) { /* no event of its PMU: not its file */
		test_close(t);
		return NULL;
	}
	return t;
}

static void test_dump(void *state, int event, const struct pb_sample *s, FILE *out)
{
	struct test_state *t = state;
	uint32_t w[3];
	if (event < 0 || (size_t)event >= t->nevents || !t->mine[event] || !s->raw)
		return;
	if (s->raw_size < sizeof w || (memcpy(w, s->raw, sizeof w), w[0] != MAGIC)) {
		t->bad++;
		fprintf(out, "  (pbtest payload not decoded: no PBT1 magic)\n");
		return;
	}
	t->decoded++;
	t->latency_sum += w[1];
	fprintf(out, "  pbtest latency=%u flags=%#x\n", w[1], w[2]);
}

static void test_summary(const void *state, FILE *out)
{
	const struct test_state *t = state;
	fprintf(out, "\n  pbtest payloads: %" PRIu64 " decoded, %" PRIu64 " not decodable, mean "
		"latency %.1f cycles\n", t->decoded, t->bad,
		t->decoded ? (double)t->latency_sum / (double)t->decoded : 0.0);
}

static const struct pb_perfdata_decoder test_decoder = {
	.open = test_open, .dump = test_dump, .dump_summary = test_summary, .close = test_close};

static const struct pb_facility test_facility = {
	.name = "pbtest",
	.usage = "pbtest",
	.summary = "a facility defined by test_plugin_perfdata alone",
	.needs = "nothing",
	.perfdata = &test_decoder,
};

/* a second facility of the same hardware, sharing the decoder (as ibs-op and ibs-fetch) */
static const struct pb_facility test_facility_twin = {
	.name = "pbtest-twin",
	.usage = "pbtest-twin",
	.summary = "the test facility's twin",
	.needs = "nothing",
	.perfdata = &test_decoder,
};

static void *failing_open(struct pb_perfdata *pd, struct pb_error *err)
{
	(void)pd;
	pb_fail(err, PB_EXIT_FAILURE, 0, "pbtest decoder cannot start");
	return NULL;
}

static const struct pb_perfdata_decoder failing_decoder = {
	.open = failing_open, .dump = test_dump, .dump_summary = test_summary, .close = test_close};

static const struct pb_facility failing_facility = {
	.name = "pbtest-failing", .perfdata = &failing_decoder};

/* ---- files ---- */

/* Latencies of the good samples; the fourth sample's payload has no magic. */
static const uint32_t latencies[] = {100, 250, 250};

static void write_file(const char *path, const char *pmu_name, size_t nsamples)
{
	struct pb_error err = {0};
	struct pb_perfdata_writer *w;
	struct perf_event_attr a = {0};
	a.size = sizeof a;
	a.type = TEST_PMU_TYPE;
	a.sample_period = 1000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
	CHECK(pb_perfdata_writer_open(path, &w, &err) == 0);
	CHECK(pb_perfdata_writer_add_event(w, &a, "pbtest//", NULL, 0, &err) == 0);
	pb_perfdata_writer_clear_pmus(w);
	pb_perfdata_writer_add_pmu(w, TEST_PMU_TYPE, pmu_name);
	for (size_t i = 0; i < nsamples; i++) {
		uint32_t payload[3] = {MAGIC, 0, 0x10u + (uint32_t)i};
		if (i < PB_ARRAY_SIZE(latencies))
			payload[1] = latencies[i];
		else
			payload[0] = 0xdeadbeef;
		struct pb_sample s = {.misc = PERF_RECORD_MISC_USER, .pid = 7, .tid = 7,
				      .ip = 0x401000 + 4 * i, .raw = (const uint8_t *)payload,
				      .raw_size = sizeof payload};
		CHECK_EQ_U64(pb_perfdata_writer_sample(w, 0, &s, &err), 0);
	}
	CHECK(pb_perfdata_writer_close(w, &err) == 0);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
}

/* What `perfdata FILE [--dump]` prints with these facilities: the dump lines, then the text
 * summary, in one string (free it). */
static char *summarise_as(const char *path, const struct pb_facility *const *facilities,
			  bool dump, bool histogram, int *rc, char *why, size_t why_len)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct pb_perfdata *pd;
	struct pb_error err = {0};
	struct pb_pdsum sum = {.dump = dump, .histogram = histogram, .dump_out = out};
	*rc = pb_perfdata_open(path, &pd, &err);
	if (!*rc) {
		*rc = pb_pdsum_open(&sum, pd, facilities, &err);
		if (!*rc)
			*rc = pb_pdsum_walk(&sum, &err);
		if (!*rc)
			pb_perfdata_report_text(&sum, path, 20, out);
		pb_pdsum_free(&sum);
		pb_perfdata_close(pd);
	}
	snprintf(why, why_len, "%s", err.msg);
	fclose(out);
	return text;
}

static char *summarise(const char *path, const struct pb_facility *const *facilities, bool dump,
		       int *rc, char *why, size_t why_len)
{
	return summarise_as(path, facilities, dump, false, rc, why, why_len);
}

static void test_no_samples(const char *path)
{
	char why[sizeof(struct pb_error){0}.msg];
	int rc;
	char *out = summarise_as(path, pb_facility_list(), false, true, &rc, why, sizeof why);
	CHECK_MSG(rc == 0, "summary failed: %s", why);
	CHECK_STR_CONTAINS(out, "0 records, 0 samples\n");
	CHECK_STR_CONTAINS(out, "samples per IP, event 0 (pbtest//): 0 distinct IPs\n");
	free(out);
}

static size_t count_lines(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The decoder's dump lines and tallies under `pesbench perfdata --dump` are
 * tests/test_plugin_facility.c's; here what it leaves: nothing decoded without --dump, and one
 * state of a decoder two facilities share. */
static void test_decoded(const char *path)
{
	const struct pb_facility *const facilities[] = {&test_facility, NULL};
	char why[sizeof(struct pb_error){0}.msg];
	int rc;
	/* without --dump no payload is decoded and no tally printed */
	char *out = summarise(path, facilities, false, &rc, why, sizeof why);
	CHECK_MSG(rc == 0, "summary failed: %s", why);
	CHECK_MSG(!strstr(out, "pbtest latency") && !strstr(out, "pbtest payloads"),
		  "decoded without --dump:\n%s", out);
	free(out);

	/* two facilities sharing the decoder: one state, tallies not doubled */
	const struct pb_facility *const twins[] = {&test_facility, &test_facility_twin, NULL};
	out = summarise(path, twins, true, &rc, why, sizeof why);
	CHECK(rc == 0);
	CHECK_EQ_U64(count_lines(out, "sample event=0 "), 4);
	CHECK_EQ_U64(count_lines(out, "pbtest latency="), 3);
	CHECK_STR_CONTAINS(out, "ip=0x40100c pid=7 tid=7 raw=12\n"
				"  (pbtest payload not decoded: no PBT1 magic)\n");
	/* (100 + 250 + 250) / 3, once */
	CHECK_EQ_U64(count_lines(out, "\n  pbtest payloads: 3 decoded, 1 not decodable, mean "
				      "latency 200.0 cycles\n"), 1);
	CHECK_STR_CONTAINS(out, "  0   pbtest//                     " TEST_PMU "              4");
	free(out);
}

static void test_nobody_else_knows(const char *path, const char *other_path)
{
	char why[sizeof(struct pb_error){0}.msg];
	int rc;
	/* the built-in facilities: the samples are counted, nothing is decoded */
	char *out = summarise(path, pb_facility_list(), true, &rc, why, sizeof why);
	CHECK_MSG(rc == 0, "summary failed: %s", why);
	CHECK_EQ_U64(count_lines(out, "sample event=0 "), 4);
	CHECK_MSG(!strstr(out, "pbtest latency") && !strstr(out, "pbtest payloads"),
		  "a built-in facility decoded the test format:\n%s", out);
	free(out);
	/* the test decoder claims only its own PMU's events */
	const struct pb_facility *const facilities[] = {&test_facility, NULL};
	out = summarise(other_path, facilities, true, &rc, why, sizeof why);
	CHECK(rc == 0);
	CHECK_EQ_U64(count_lines(out, "sample event=0 "), 4);
	CHECK_MSG(!strstr(out, "pbtest latency") && !strstr(out, "pbtest payloads"),
		  "the decoder claimed another PMU's events:\n%s", out);
	free(out);
}

static void test_decoder_failure(const char *path)
{
	const struct pb_facility *const facilities[] = {&test_facility, &failing_facility, NULL};
	char why[sizeof(struct pb_error){0}.msg];
	int rc;
	char *out = summarise(path, facilities, true, &rc, why, sizeof why);
	CHECK(rc != 0);
	CHECK_STR_CONTAINS(why, "pbtest decoder cannot start");
	CHECK(!strstr(out, "sample event="));
	free(out);
}

/* Addresses of zero are hex like every other, as perf script shows them: printf's "%#x" of a
 * zero drops the 0x, and the dump once wrote "addr=0" beside "ip=0x401000". */
static void test_zero_addresses(const char *path)
{
	struct pb_error err = {0};
	struct pb_perfdata_writer *w;
	struct perf_event_attr a = {0};
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR;
	CHECK(pb_perfdata_writer_open(path, &w, &err) == 0);
	CHECK(pb_perfdata_writer_add_event(w, &a, "page-faults", NULL, 0, &err) == 0);
	struct pb_sample s = {.misc = PERF_RECORD_MISC_USER, .pid = 7, .tid = 7};
	CHECK_EQ_U64(pb_perfdata_writer_sample(w, 0, &s, &err), 0);
	CHECK(pb_perfdata_writer_close(w, &err) == 0);
	char why[sizeof err.msg];
	int rc;
	char *out = summarise_as(path, pb_facility_list(), true, true, &rc, why, sizeof why);
	CHECK_MSG(rc == 0, "summary failed: %s", why);
	CHECK_STR_CONTAINS(out, "sample event=0 ip=0x0 pid=7 tid=7 addr=0x0");
	/* the histogram's row: the address, and "?" for the symbol no object holds */
	CHECK_STR_CONTAINS(out, "         1 100.000%  0x0                ?\n");
	free(out);
}

int main(void)
{
	CHECK(mkdtemp(tmpdir) != NULL);
	char path[128], other[128], empty[128];
	snprintf(path, sizeof path, "%s/pbtest.data", tmpdir);
	snprintf(other, sizeof other, "%s/other.data", tmpdir);
	snprintf(empty, sizeof empty, "%s/empty.data", tmpdir);
	const size_t nsamples = PB_ARRAY_SIZE(latencies) + 1;
	write_file(path, TEST_PMU, nsamples);
	write_file(other, "some_other_pmu", nsamples);
	write_file(empty, TEST_PMU, 0);
	test_decoded(path);
	test_nobody_else_knows(path, other);
	test_decoder_failure(path);
	test_no_samples(empty);
	test_zero_addresses(empty);
	unlink(empty);
	unlink(path);
	unlink(other);
	rmdir(tmpdir);
	return pb_check_done("plugin_perfdata");
}
