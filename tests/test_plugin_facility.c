/* Issue 22's "a facility is one file and one registry line", shown whole: the facility below is
 * defined in this file alone and registered with one call (pb_facility_register_extra, the
 * run-time form of the registry's line). Through its own hooks it has
 *   - a hardware fact (probe_machine, machine_facts): the number of PMUs the machine has;
 *   - a figure of its own (own_figure, own_tally_sample): the samples whose IP is odd;
 *   - a perf.data decoder (perfdata): its samples' payload, a magic word and a latency;
 * and each reaches what a user sees, through the commands' own code with no other source file
 * knowing the facility: `probe` (text and JSON, and its fact in `probe --help`), results.json and report.html of a point
 * measured through the fake kernel (`pesbench report` run as the command), and
 * `pesbench perfdata --dump` run as the command on a file the project's perf.data writer wrote
 * (and its decoder in `perfdata --help`).
 * What the older tests/test_plugin_*.c check beyond this (fact order, saved trees, traits read
 * by plots and compare, decoder sharing and failure) stays with them. */
#include "check.h"
#include "fake_kernel.h"
#include "fixture.h"
#include "plugin.h"
#include "results_json.h"
#include "run_cmd.h"
#include "cli/commands.h"
#include "experiments/point.h"
#include "facilities/facility.h"
#include "facilities/machine.h"
#include "io/results.h"
#include "io/run_files.h"
#include "perfdata/perfdata.h"
#include "workloads/workload.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAME "plugtest"
#define PERIOD 250000     /* ns: the facility is time-based */
#define MAGIC 0x31545050u /* "PPT1": the payload's first word in a perf.data file */
#define PMU_TYPE 42u      /* the type its PMU has in the written perf.data file */

/* ---- the facility ---- */

static int plug_parse(struct pb_spec *spec, const char *args, struct pb_error *err)
{
	(void)spec;
	if (args)
		return pb_fail(err, PB_EXIT_USAGE, 0, NAME " takes no words after its name");
	return 0;
}

static void plug_availability(const struct pb_machine *m, const struct pb_spec *spec,
			      struct pb_availability *out)
{
	(void)m;
	(void)spec;
	memset(out, 0, sizeof *out);
	out->available = true;
	snprintf(out->detail, sizeof out->detail, "a test's facility: the fake kernel opens it");
}

static int plug_attr(const struct pb_machine *m, const struct pb_spec *spec,
		     const struct pb_target *target, uint64_t period, struct perf_event_attr *attr,
		     struct pb_error *err)
{
	(void)m;
	(void)spec;
	(void)target;
	(void)period;
	(void)err;
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_CPU_CLOCK;
	return 0;
}

static const char *plug_declare(const struct pb_spec *spec, const struct pb_truth *truth,
				const struct pb_label_truth *label, uint64_t iterations,
				uint64_t *events)
{
	(void)spec;
	(void)truth;
	(void)label;
	(void)iterations;
	*events = 0;
	return "count";
}

static void plug_probe_machine(struct pb_machine *m, bool prove)
{
	(void)prove;
	pb_machine_note_set(m, NAME "_pmus", m->npmus);
}

static unsigned plug_machine_facts(const struct pb_machine *m, struct pb_machine_fact *out,
				   unsigned max)
{
	long long pmus = 0;
	bool known = pb_machine_note_get(m, NAME "_pmus", &pmus);
	if (max < 1)
		return 0;
	pb_fact_number(&out[0], NAME "_pmus", pmus, known, 4);
	out[0].label = NAME " PMUs";
	snprintf(out[0].line, sizeof out[0].line, "%lld (a test facility's fact)", pmus);
	return 1;
}

static const struct pb_own_figure odd_ips = {"odd_ip_samples", "samples",
					     "%llu samples at an odd IP"};

static const struct pb_own_figure *plug_own_figure(const struct pb_spec *spec, size_t i)
{
	(void)spec;
	return i == 0 ? &odd_ips : NULL;
}

static void plug_own_tally_sample(const struct pb_machine *m, const struct pb_spec *spec,
				  const struct pb_sample *s, uint64_t *own)
{
	(void)m;
	(void)spec;
	own[0] += s->ip & 1;
}

/* Its perf.data decoder: it claims the events of the PMU named after it; a payload is u32 magic,
 * u32 latency. */
struct plug_decoding {
	size_t nevents;
	bool *mine;
	uint64_t decoded, undecodable, latency_sum;
};

static void plug_decoder_close(void *state)
{
	struct plug_decoding *d = state;
	if (d)
		free(d->mine);
	free(d);
}

static void *plug_decoder_open(struct pb_perfdata *pd, struct pb_error *err)
{
	struct plug_decoding *d = calloc(1, sizeof *d);
	if (d)
		d->mine = pb_test_plugin_events_of_pmu(pd, NAME, &d->nevents);
	if (!d || (!d->mine && d->nevents)) {
		plug_decoder_close(d);
		pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
		return NULL;
	}
	if (!d->mine) { /* no event of its PMU: not its file */
		plug_decoder_close(d);
		return NULL;
	}
	return d;
}

static void plug_decoder_dump(void *state, int event, const struct pb_sample *s, FILE *out)
{
	struct plug_decoding *d = state;
	uint32_t w[2];
	if (event < 0 || (size_t)event >= d->nevents || !d->mine[event] || !s->raw)
		return;
	if (s->raw_size < sizeof w || (memcpy(w, s->raw, sizeof w), w[0] != MAGIC)) {
		d->undecodable++;
		fprintf(out, "  (" NAME " payload without its magic word)\n");
		return;
	}
	d->decoded++;
	d->latency_sum += w[1];
	fprintf(out, "  " NAME " latency=%u\n", w[1]);
}

static void plug_decoder_summary(const void *state, FILE *out)
{
	const struct plug_decoding *d = state;
	fprintf(out, "\n  " NAME " payloads: %" PRIu64 " decoded, %" PRIu64 " without magic, "
		"mean latency %.1f cycles\n", d->decoded, d->undecodable,
		d->decoded ? (double)d->latency_sum / (double)d->decoded : 0.0);
}

static const struct pb_perfdata_decoder plug_decoder = {
	.about = NAME " payloads: a magic word and a latency",
	.open = plug_decoder_open,
	.dump = plug_decoder_dump,
	.dump_summary = plug_decoder_summary,
	.close = plug_decoder_close,
};

static const struct pb_facility plug_facility = {
	.name = NAME,
	.usage = NAME,
	.summary = "a facility defined in tests/test_plugin_facility.c alone",
	.needs = "nothing",
	.ip_kind = PB_IP_SKID,
	.default_period = PERIOD,
	.min_period = 1,
	.time_based = true,
	.parse = plug_parse,
	.availability = plug_availability,
	.attr = plug_attr,
	.declare = plug_declare,
	.probe_machine = plug_probe_machine,
	.machine_facts = plug_machine_facts,
	.perfdata = &plug_decoder,
	.own_figure = plug_own_figure,
	.own_tally_sample = plug_own_tally_sample,
};

/* ---- probe ---- */

static void test_probe(const char *root, unsigned npmus)
{
	char *argv[] = {"probe", "--root", (char *)root, "--json", NULL}, want[128];
	int rc;
	char *text = pb_test_run_cmd(pb_cmd_probe, 3, argv, &rc);
	CHECK_EQ_U64(rc, 0);
	snprintf(want, sizeof want, "\n  " NAME " PMUs    %u (a test facility's fact)\n", npmus);
	CHECK_STR_CONTAINS(text, want);
	CHECK_STR_CONTAINS(text, "\n" NAME "   yes       untested no     skid      " NAME "\n");
	free(text);

	text = pb_test_run_cmd(pb_cmd_probe, 4, argv, &rc);
	CHECK_EQ_U64(rc, 0);
	json_error_t je;
	json_t *doc = text ? json_loads(text, 0, &je) : NULL;
	CHECK_MSG(doc != NULL, "probe --json output parses");
	free(text);
	json_t *pmus = json_object_get(json_object_get(doc, "machine"), NAME "_pmus");
	CHECK_MSG(json_is_integer(pmus) && json_integer_value(pmus) == npmus,
		  "probe --json: machine." NAME "_pmus is %u", npmus);
	bool listed = false;
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(doc, "facilities"), i, f)
		listed |= !strcmp(json_string_value(json_object_get(f, "name")), NAME) &&
			  json_is_true(json_object_get(f, "available"));
	CHECK_MSG(listed, "probe --json lists " NAME ", available");
	json_decref(doc);
}

/* ---- results.json and report.html ---- */

/* One point of the facility measured through the fake kernel, written as a run writes it (the
 * machine's facts included) to dir/results.json. */
static void write_results(const char *dir, struct pb_machine *machine)
{
	struct pb_point_request req;
	struct pb_error err = {0};
	pb_point_request_defaults(&req);
	req.nevents = 1;
	req.events[0].spec = *pb_test_spec(NAME); /* found through the registry */
	CHECK(req.events[0].spec.facility == &plug_facility);
	req.events[0].period = PERIOD;
	req.iterations = 1000;
	req.threads = 1;
	req.machine = machine;
	CHECK(pb_workload_parse("accuracy:ratio=20", &req.workload, &err) == 0);

	fake_kernel_install();
	fake_kernel_on_disable(pb_test_plugin_samples, NULL);
	struct pb_point pt;
	int rc = pb_point_measure(&req, &pt, &err);
	fake_kernel_uninstall();
	CHECK_MSG(rc == 0, "measure: %s", err.msg);
	CHECK_EQ_U64(pt.ev[0].observed, PB_TEST_PLUGIN_SAMPLES);

	struct pb_results doc;
	char *argv[] = {"pesbench", "run"};
	CHECK(pb_results_open(&doc, dir, 2, argv, &err) == 0);
	pb_run_files_identify(&doc, machine);
	struct pb_result_point *p = pb_results_point(&doc, "accuracy", NAME, "accuracy:ratio=20");
	pb_rset_int(&p->params, "period", PB_UNIT_NONE, PERIOD);
	pb_rset_int(&p->params, "threads", PB_UNIT_THREADS, 1);
	pb_point_traits(&req, p);
	pb_point_record(&req, &pt, pb_rlist_set(&p->runs));
	pb_point_metrics(p);
	pb_point_free(&pt);
	CHECK_MSG(pb_results_write(&doc, true, 0, &err) == 0, "%s", err.msg);
	pb_results_close(&doc);
}

static void test_results(const char *dir, unsigned npmus)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/results.json", dir);
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	CHECK_MSG(root != NULL, "%s: %s", path, je.text);
	json_t *point = json_array_get(json_object_get(root, "points"), 0);
	CHECK(!strcmp(json_string_value(json_object_get(point, "facility")), NAME));
	json_t *ev = json_array_get(
		json_object_get(json_array_get(json_object_get(point, "runs"), 0), "events"), 0);
	json_t *odd = json_object_get(ev, "odd_ip_samples");
	CHECK_MSG(json_is_integer(odd) && json_integer_value(odd) == PB_TEST_PLUGIN_ODD,
		  "results.json: the run's event has odd_ip_samples %d", PB_TEST_PLUGIN_ODD);
	const char *listed = json_string_value(json_array_get(json_object_get(ev,
									      "facility_figures"), 0));
	CHECK(listed && !strcmp(listed, "odd_ip_samples"));
	const char *unit = json_string_value(json_object_get(json_object_get(root, "units"),
							     "odd_ip_samples"));
	CHECK(unit && !strcmp(unit, "samples"));
	/* the run keeps the probe's document as its "machine" */
	json_t *probed = json_object_get(json_object_get(root, "machine"), "machine");
	json_t *pmus = json_object_get(probed, NAME "_pmus");
	CHECK_MSG(json_is_integer(pmus) && json_integer_value(pmus) == npmus,
		  "results.json: machine.machine." NAME "_pmus is %u", npmus);
	json_decref(root);
}

static void test_report(const char *dir, unsigned npmus)
{
	char *argv[] = {"report", (char *)dir, "--no-plots", "--quiet", NULL};
	int rc;
	free(pb_test_run_cmd(pb_cmd_report, 4, argv, &rc));
	CHECK_EQ_U64(rc, 0);
	char path[4200], want[128];
	snprintf(path, sizeof path, "%s/report.html", dir);
	char *html = pb_test_read_file(path);
	CHECK_MSG(html != NULL, "pesbench report wrote %s", path);
	CHECK_STR_CONTAINS(html, "<th>the facility's own figures</th>");
	CHECK_STR_CONTAINS(html, "odd ip samples 11 samples");
	/* the machine section names a fact it has no label for by its key */
	snprintf(want, sizeof want, "<tr><th>" NAME " pmus</th><td>%u</td></tr>", npmus);
	CHECK_STR_CONTAINS(html, want);
	free(html);
}

/* ---- perfdata ---- */

static const uint32_t latencies[] = {120, 300, 300}; /* then one payload without the magic */

static void write_perfdata(const char *path)
{
	struct pb_error err = {0};
	struct pb_perfdata_writer *w;
	struct perf_event_attr a = {0};
	a.size = sizeof a;
	a.type = PMU_TYPE;
	a.sample_period = 1000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
	CHECK_MSG(pb_perfdata_writer_open(path, &w, &err) == 0, "%s", err.msg);
	CHECK(pb_perfdata_writer_add_event(w, &a, NAME "//", NULL, 0, &err) == 0);
	pb_perfdata_writer_clear_pmus(w);
	pb_perfdata_writer_add_pmu(w, PMU_TYPE, NAME);
	for (size_t i = 0; i <= PB_ARRAY_SIZE(latencies); i++) {
		uint32_t payload[2] = {MAGIC, 0};
		if (i < PB_ARRAY_SIZE(latencies))
			payload[1] = latencies[i];
		else
			payload[0] = 0xdeadbeef;
		struct pb_sample s = {.misc = PERF_RECORD_MISC_USER, .pid = 7, .tid = 7,
				      .ip = 0x401000 + 4 * i, .raw = (const uint8_t *)payload,
				      .raw_size = sizeof payload};
		CHECK_EQ_U64(pb_perfdata_writer_sample(w, 0, &s, &err), 0);
	}
	CHECK_MSG(pb_perfdata_writer_close(w, &err) == 0, "%s", err.msg);
}

static void test_perfdata(const char *path)
{
	char *argv[] = {"perfdata", (char *)path, "--dump", NULL};
	int rc;
	char *out = pb_test_run_cmd(pb_cmd_perfdata, 3, argv, &rc);
	CHECK_EQ_U64(rc, 0);
	/* raw=12: the writer pads the 8 payload bytes so the record stays 8-byte aligned */
	CHECK_STR_CONTAINS(out, "sample event=0 ip=0x401000 pid=7 tid=7 raw=12\n"
				"  " NAME " latency=120\n");
	CHECK_STR_CONTAINS(out, "ip=0x401004 pid=7 tid=7 raw=12\n  " NAME " latency=300\n");
	CHECK_STR_CONTAINS(out, "ip=0x40100c pid=7 tid=7 raw=12\n"
				"  (" NAME " payload without its magic word)\n");
	/* (120 + 300 + 300) / 3 */
	CHECK_STR_CONTAINS(out, "\n  " NAME " payloads: 3 decoded, 1 without magic, mean latency "
				"240.0 cycles\n");
	free(out);
}

/* ---- help texts: what a facility has, from its descriptor ---- */

static void test_help(void)
{
	char *probe_argv[] = {"probe", "--help", NULL};
	int rc;
	char *out = pb_test_run_cmd(pb_cmd_probe, 2, probe_argv, &rc);
	CHECK_EQ_U64(rc, 0);
	/* its fact has no title (report.html names it by its key): the key alone */
	CHECK_STR_CONTAINS(out, "\n  " NAME "_pmus\n");
	free(out);
	char *perfdata_argv[] = {"perfdata", "--help", NULL};
	out = pb_test_run_cmd(pb_cmd_perfdata, 2, perfdata_argv, &rc);
	CHECK_EQ_U64(rc, 0);
	CHECK_STR_CONTAINS(out, "\n  " NAME ": " NAME " payloads: a magic word and a latency\n");
	free(out);
}

int main(void)
{
	/* the one registry line */
	CHECK_EQ_U64(pb_facility_register_extra(&plug_facility), 0);

	const char *src = getenv("PB_SOURCE_DIR") ? getenv("PB_SOURCE_DIR") : PB_SOURCE_DIR;
	char root[512];
	snprintf(root, sizeof root, "%s/tests/fixtures/sysfs-skl", src);
	struct pb_machine machine;
	pb_test_fixture(&machine, "sysfs-skl");
	CHECK(machine.npmus > 0);
	test_probe(root, machine.npmus);
	test_help();

	char dir[] = "/tmp/pb_plugin_facility_XXXXXX";
	if (!mkdtemp(dir))
		pb_skip("cannot make a temporary directory");
	write_results(dir, &machine);
	test_results(dir, machine.npmus);
	test_report(dir, machine.npmus);

	char path[4200];
	snprintf(path, sizeof path, "%s/" NAME ".data", dir);
	write_perfdata(path);
	test_perfdata(path);

	char cmd[4300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	return pb_check_done("plugin_facility");
}
