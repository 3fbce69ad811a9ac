/* `pesbench perfdata FILE`: reads a user's perf.data (any facility perf records) and accounts for
 * it the way pesbench accounts for its own sessions (analysis/perfdata_summary.h: per event the
 * samples, losses and throttles; with --histogram the samples per IP; with --dump every sample,
 * with what the facilities that know its event decode of it; the samples per data source),
 * printed by io/perfdata_report.h; --export writes the samples as profiles. */
#include "analysis/perfdata_summary.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "export/from_perfdata.h"
#include "facilities/facility.h"
#include "io/perfdata_report.h"
#include "perfdata/perfdata.h"
#include "util/error.h"
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TOP 20
#define STR(x) #x
#define TEXT(x) STR(x)

#define MAX_EXPORTS 8

struct perfdata_args {
	const char *path;
	uint64_t top;
	bool histogram, dump, json;
	struct pb_export_request exports[MAX_EXPORTS];
	size_t nexports;
};

static int add_export(void *args, const char *value, struct pb_error *err)
{
	struct perfdata_args *a = args;
	return pb_export_add(a->exports, &a->nexports, MAX_EXPORTS, value, err);
}

static void say_written(void *ctx, const char *path, const char *profile)
{
	(void)profile;
	fprintf(stderr, "pesbench perfdata: wrote %s (%s)\n", path, (const char *)ctx);
}

/* Writes every --export of the walk's profile; the first failure ends it. */
static int write_exports(struct pb_xperf *exp, const struct perfdata_args *a,
			 const struct pb_perfdata_stats *st)
{
	struct pb_error err = {0};
	const struct pb_xset *set = pb_xperf_finish(exp, st, &err);
	for (size_t i = 0; set && i < a->nexports; i++)
		if (pb_export_write(&a->exports[i], set, say_written,
				    (void *)a->exports[i].format->name, &err))
			set = NULL;
	return set ? PB_EXIT_OK : pb_cli_report("perfdata", &err);
}

static int set_path(void *args, const char *value, struct pb_error *err)
{
	struct perfdata_args *a = args;
	if (a->path)
		return pb_fail(err, PB_EXIT_USAGE, 0, "one FILE only ('%s' and '%s')", a->path, value);
	a->path = value;
	return 0;
}

/* The facilities that decode their raw payloads (--dump), from their descriptors: one line per
 * decoder, naming every facility that shares it. */
static void list_decoders(FILE *out)
{
	fputs("Raw payloads --dump decodes, by facility:\n", out);
	for (const struct pb_facility *const *f = pb_facility_list(); *f; f++) {
		const struct pb_perfdata_decoder *d = (*f)->perfdata;
		const struct pb_facility *const *g = pb_facility_list();
		while (g != f && (*g)->perfdata != d)
			g++;
		if (!d || g != f)
			continue; /* none, or named with the first facility that has it */
		char names[128] = "";
		for (; *g; g++)
			if ((*g)->perfdata == d)
				pb_append(names, sizeof names, "%s%s", *names ? ", " : "", (*g)->name);
		fprintf(out, "  %s:", names);
		pb_put_wrapped(out, d->about ? d->about : "(no description)",
			       (unsigned)strlen(names) + 3, 4);
	}
}

#define ARG(field, type) PB_AT(struct perfdata_args, field, type)

static const struct pb_opt perfdata_options[] = {
	{.name = "histogram", .kind = PB_OPT_FLAG, .at = ARG(histogram, bool),
	 .help = "samples per instruction address, the N most sampled (--top) with their share; "
		 "memory grows with distinct addresses only"},
	{.name = "top", .arg = "N", .kind = PB_OPT_U64, .at = ARG(top, uint64_t), .min = 1,
	 .max = UINT64_C(1) << 32, .help = "addresses the histogram shows (default "
	 TEXT(DEFAULT_TOP) ")"},
	{.name = "dump", .kind = PB_OPT_FLAG, .at = ARG(dump, bool),
	 .help = "one line per sample (ip, pid/tid, time, addr, cpu, period, weight, data source "
		 "decoded as `perf script -F data_src` prints it); the raw payloads of a facility "
		 "listed above are decoded too"},
	{.name = "json", .kind = PB_OPT_FLAG, .at = ARG(json, bool),
	 .help = "the summary (and histogram) as JSON on stdout"},
	{.name = "export", .arg = "FORMAT:FILE", .kind = PB_OPT_CALL, .parse = add_export,
	 .repeatable = true, .example = "pprof:prof.pb.gz",
	 .help = "the samples as a profile, each call chain (perf record -g) or IP symbolised: "
		 "pprof (gzipped profile.proto), speedscope (JSON), folded (flame graph stacks); "
		 "values per event: samples and period; losses in the profile's comments"},
	{0},
};

const struct pb_cmd_spec pb_cmd_perfdata_spec = {
	.name = "perfdata",
	.summary = "read a perf.data: samples, losses, per-IP histogram, raw payload decode",
	.operands = "FILE|-",
	.description =
		"Reads a perf.data file written by `perf record` (or by pesbench) and prints, per\n"
		"event, the samples, lost samples and throttles it holds, and the recording's\n"
		"machine (CPUID, CPUs, PMU mappings).\n",
	.extra = list_decoders,
	.options = perfdata_options,
	.args_size = sizeof(struct perfdata_args),
	.positional = set_path,
	.epilogue =
		"Samples with a data source (PERF_SAMPLE_DATA_SRC, perf's ABI for memory samples)\n"
		"are counted per operation and memory level, with their mean weight.\n"
		"Pipe-mode recordings (perf record -o -) are read too, from a file or from standard\n"
		"input (FILE -: perf record -o - ... | pesbench perfdata -). Exit 6 when the file is\n"
		"truncated, corrupt or of an unsupported kind (other byte order, compressed records).\n",
};

/* --export's profile sees the records as the summary walks them. */
static int tap_record(void *ctx, int event, const struct pb_record *rec, struct pb_error *err)
{
	return pb_xperf_record(ctx, event, rec, err);
}

static int tap_sample_ip(void *ctx, int event, uint64_t ip, uint32_t pid, uint64_t time,
			 struct pb_error *err)
{
	return pb_xperf_sample_ip(ctx, event, ip, pid, time, err);
}

/* Starts the --export profile of file pd named after path; *exp stays NULL without --export. */
static int start_exports(const struct perfdata_args *a, struct pb_perfdata *pd, const char *path,
			 struct pb_xperf **exp, struct pb_error *err)
{
	const char *base = strrchr(path, '/');
	if (!a->nexports)
		return 0;
	if (pb_xperf_start(pd, base ? base + 1 : path, exp, err))
		return -1;
	bool source = false;
	for (size_t i = 0; i < a->nexports; i++)
		source |= a->exports[i].format->source;
	if (!source)
		pb_xperf_no_source(*exp);
	return 0;
}

/* The walk and what it prints, over the open file pd. */
static int summarise(const struct perfdata_args *a, struct pb_perfdata *pd, const char *path)
{
	struct pb_pdsum sum = {.histogram = a->histogram, .dump = a->dump, .dump_out = stdout};
	struct pb_xperf *exp = NULL;
	struct pb_error err = {0};
	int rc = PB_EXIT_OK;
	if (start_exports(a, pd, path, &exp, &err) ||
	    pb_pdsum_open(&sum, pd, pb_facility_list(), &err)) {
		rc = pb_cli_report("perfdata", &err);
		goto out;
	}
	const struct pb_pdsum_tap tap = {.record = tap_record, .sample_ip = tap_sample_ip,
					 .needs_period = true, .ctx = exp};
	sum.tap = exp ? &tap : NULL;
	if (pb_pdsum_walk(&sum, &err)) {
		fprintf(stderr, "pesbench perfdata: %s: %s\n", path, err.msg);
		rc = err.code ? err.code : PB_EXIT_FAILURE;
		goto out;
	}
	if (exp && (rc = write_exports(exp, a, &sum.stats)))
		goto out;
	if (!a->json) {
		pb_perfdata_report_text(&sum, path, a->top, stdout);
	} else {
		struct json_t *doc = pb_perfdata_report_json(&sum, a->top);
		if (doc) {
			rc = pb_cli_print_json("perfdata", doc, 2);
		} else {
			fprintf(stderr, "pesbench perfdata: out of memory for the data source "
				"table\n");
			rc = PB_EXIT_FAILURE;
		}
	}
out:
	pb_xperf_free(exp);
	pb_pdsum_free(&sum);
	return rc;
}

int pb_cmd_perfdata(int argc, char **argv)
{
	struct perfdata_args a = {.top = DEFAULT_TOP};
	int rest, r = pb_options_run(&pb_cmd_perfdata_spec, argc, argv, &a, &rest);
	if (r >= 0)
		return r;
	if (!a.path) {
		pb_options_help(&pb_cmd_perfdata_spec, stderr);
		return PB_EXIT_USAGE;
	}
	if (a.dump && a.json) {
		fprintf(stderr, "pesbench perfdata: --dump and --json do not mix; pick one\n");
		return PB_EXIT_USAGE;
	}
	struct pb_perfdata *pd;
	struct pb_error err = {0};
	if (pb_perfdata_open(a.path, &pd, &err))
		return pb_cli_report("perfdata", &err);
	int rc = summarise(&a, pd, strcmp(a.path, "-") ? a.path : "standard input");
	pb_perfdata_close(pd);
	return rc;
}
