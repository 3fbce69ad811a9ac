/* `pesbench profile`: how far is the sampled profile of a program from the truth? CMD runs
 * twice: once sampled (pesbench's own session or a user's perf.data), once under callgrind for
 * the exact count of every instruction it executes. Both are reduced to shares — a unit's share
 * of the samples against its share of the instructions — at instruction, basic-block and
 * function level, and compared with Nowak et al.'s metric. Timer sampling weighs code by time,
 * not by instructions; the comparison of shares says how well time stands for instructions. */
#include "analysis/callgrind.h"
#include "analysis/periods.h"
#include "analysis/profile.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "experiments/point.h"
#include "experiments/suite_defaults.h"
#include "export/from_profile.h"
#include "facilities/facility.h"
#include "perfdata/perfdata.h"
#include "session/process.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_EXPORTS 8

struct options {
	const char *facility, *perf_data, *record;
	uint64_t period, seed, top;
	bool period_given, json, call_graph;
	unsigned period_units;
	enum pb_period_method method;
	char **argv;
	struct pb_export_request exports[MAX_EXPORTS];
	size_t nexports;
};

static int add_export(void *args, const char *value, struct pb_error *err)
{
	struct options *o = args;
	return pb_export_add(o->exports, &o->nexports, MAX_EXPORTS, value, err);
}

static int set_method(void *args, const char *value, struct pb_error *err)
{
	return pb_period_method_parse(value, &((struct options *)args)->method, err);
}

static int no_operand(void *args, const char *value, struct pb_error *err)
{
	(void)args;
	return pb_fail(err, PB_EXIT_USAGE, 0, "unexpected argument '%s' (the command goes after --)",
		       value);
}

#define ARG(field, type) PB_AT(struct options, field, type)

static const struct pb_opt profile_options[] = {
	{.name = "facility", .arg = "SPEC", .kind = PB_OPT_STRING, .at = ARG(facility, const char *),
	 .help = "default timer:cpu-clock (`pesbench probe` lists the others)"},
	{.name = "period", .arg = "P", .kind = PB_OPT_PERIOD, .at = ARG(period, uint64_t),
	 .given_at = PB_GIVEN(struct options, period_given), .min = 1, .max = UINT64_MAX >> 2,
	 .units_at = PB_UNITS(struct options, period_units),
	 .help = "events per sample (10000, 10k), or for a timer a time (1ms, 100us; plain: "
		 "ns); default: the facility's"},
	{.name = "period-method", .arg = "M", .kind = PB_OPT_CALL, .parse = set_method,
	 .example = "prime",
	 .help = "round (P as given, default), prime (the next prime >= P), random (a new period "
		 "uniformly in [P/2, 3P/2] after each sample)"},
	{.name = "seed", .arg = "N", .kind = PB_OPT_U64, .at = ARG(seed, uint64_t), .min = 0,
	 .max = UINT64_MAX, .help = "seed of the random periods (default 1)"},
	{.name = "perf-data", .arg = "FILE", .kind = PB_OPT_STRING,
	 .at = ARG(perf_data, const char *),
	 .help = "take the samples from a `perf record` file of CMD instead"},
	{.name = "top", .arg = "N", .kind = PB_OPT_U64, .at = ARG(top, uint64_t), .min = 1,
	 .max = 100000, .help = "functions in the table (default 10)"},
	{.name = "json", .kind = PB_OPT_FLAG, .at = ARG(json, bool),
	 .help = "one JSON object on stdout instead of the tables"},
	{.name = "record", .arg = "FILE", .kind = PB_OPT_STRING, .at = ARG(record, const char *),
	 .help = "also write the samples as a perf.data (mappings and build-ids included: perf "
		 "script and perf report name them); not with --perf-data"},
	{.name = "call-graph", .short_name = 'g', .kind = PB_OPT_FLAG, .at = ARG(call_graph, bool),
	 .help = "record each sample's call chain (PERF_SAMPLE_CALLCHAIN, frame pointers) for "
		 "--export; the comparison stays per instruction, block and function"},
	{.name = "export", .arg = "FORMAT:FILE", .kind = PB_OPT_CALL, .parse = add_export,
	 .repeatable = true, .example = "folded:profile.folded",
	 .help = "the sampled and the exact profile in one symbol space: pprof (two files, FILE "
		 "and FILE's name with .exact before the extension, for pprof -diff_base), "
		 "speedscope (both in one file), folded (two files)"},
	{0},
};

const struct pb_cmd_spec pb_cmd_profile_spec = {
	.name = "profile",
	.summary = "how far a sampled profile of a program is from callgrind's exact one",
	.trailing = "-- CMD ARGS",
	.description =
		"Samples CMD, runs it again under callgrind for the exact count of every\n"
		"instruction, and prints how far the sampled profile is from the exact one at\n"
		"instruction, basic-block and function level (Nowak et al.'s metric: the sum over\n"
		"units of |sampled share - exact share|), with the top functions side by side.\n",
	.options = profile_options,
	.args_size = sizeof(struct options),
	.positional = no_operand,
	.takes_command = true,
	.epilogue =
		"CMD must be an ELF executable (for a script, profile its interpreter) that exits 0\n"
		"and does the same work on every run. User-level samples only.\n",
};

struct collect {
	pid_t pid;
	bool maps_read, oom;
	bool stacks;                 /* --export: the samples' stacks are kept */
	struct pb_xraw raw;
	struct pb_perfdata_recorder *recorder;   /* --record */
	const struct pb_process_result *res;     /* its events' attrs, for the recorder */
	const char *spec;
	struct pb_map *maps;
	size_t nmaps;
	uint64_t *ips;
	size_t nips, cap;
	uint64_t kernel;
	struct pb_period_rng rng;
	bool random;
};

static void add_sample(struct collect *c, const struct pb_sample *s, uint16_t misc)
{
	uint64_t ip = s->ip;
	unsigned mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL) {
		c->kernel++;
		return;
	}
	static const uint64_t one_sample[PB_XPROF_NTYPES] = {[PB_XPROF_SAMPLES] = 1};
	bool chain = s->sample_type & PERF_SAMPLE_CALLCHAIN;
	if (c->stacks && pb_xraw_add(&c->raw, 0, ip, chain ? s->callchain : NULL,
				     chain ? s->callchain_nr : 0, one_sample))
		c->oom = true;
	if (c->nips == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4096;
		uint64_t *v = realloc(c->ips, cap * sizeof *v);
		if (!v) {
			c->oom = true;
			return;
		}
		c->ips = v;
		c->cap = cap;
	}
	c->ips[c->nips++] = ip;
}

static void add_mmap(struct collect *c, const struct pb_record *rec)
{
	bool exec = rec->type == PERF_RECORD_MMAP2 ? (rec->u.mmap.prot & PROT_EXEC) != 0
						   : !(rec->misc & PERF_RECORD_MISC_MMAP_DATA);
	if (exec && rec->u.mmap.filename && rec->u.mmap.filename[0] == '/' &&
	    pb_maps_add(&c->maps, &c->nmaps, rec->u.mmap.addr, rec->u.mmap.len, rec->u.mmap.pgoff,
			rec->u.mmap.filename))
		c->oom = true;
}

static void on_start(void *ctx, pid_t child)
{
	((struct collect *)ctx)->pid = child;
}

static void on_record(void *ctx, unsigned event, const struct pb_record *rec)
{
	(void)event;
	struct collect *c = ctx;
	/* The mappings exec made happened before the events were enabled: no MMAP2 record tells
	 * of them. The first record comes after exec, while the process is alive: read them. */
	if (!c->maps_read && c->pid > 0 && pb_maps_read_proc(c->pid, &c->maps, &c->nmaps) > 0)
		c->maps_read = true;
	if (c->recorder && c->pid > 0)
		pb_perfdata_recorder_add(c->recorder, &c->res->events[0].attr, c->spec,
					 (uint32_t)c->pid, rec);
	if (rec->type == PERF_RECORD_SAMPLE)
		add_sample(c, &rec->u.sample, rec->misc);
	else if (rec->type == PERF_RECORD_MMAP2 || rec->type == PERF_RECORD_MMAP)
		add_mmap(c, rec);
}

static uint64_t next_period(void *ctx, unsigned event, const struct pb_sample *s)
{
	(void)event;
	(void)s;
	struct collect *c = ctx;
	return c->random ? pb_period_rng_next(&c->rng) : 0;
}

static int perfdata_record(void *ctx, int event, const struct pb_record *rec,
			   const uint8_t *bytes, size_t len, struct pb_error *err)
{
	(void)event;
	(void)bytes;
	(void)len;
	(void)err;
	struct collect *c = ctx;
	if (rec->type == PERF_RECORD_SAMPLE)
		add_sample(c, &rec->u.sample, rec->misc);
	else if (rec->type == PERF_RECORD_MMAP2 || rec->type == PERF_RECORD_MMAP)
		add_mmap(c, rec);
	return 0;
}

/* argv[0] as execvp would find it. */
static int resolve(const char *cmd, char *out, size_t len, struct pb_error *err)
{
	if (strchr(cmd, '/')) {
		if (access(cmd, X_OK))
			return pb_fail(err, PB_EXIT_USAGE, errno, "cannot run '%s': %s", cmd,
				       strerror(errno));
		snprintf(out, len, "%s", cmd);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		snprintf(out, len, "%.*s/%s", (int)n, path, cmd);
		struct stat st;
		if (n && !stat(out, &st) && S_ISREG(st.st_mode) && !access(out, X_OK))
			return 0;
		path += n + (path[n] == ':');
	}
	return pb_fail(err, PB_EXIT_USAGE, ENOENT, "cannot run '%s': not found in PATH", cmd);
}

static int sample_command(const struct options *opt, struct collect *c,
			  struct pb_process_result *res, char *spec_text, size_t spec_len,
			  struct pb_period_setup *setup, struct pb_error *err)
{
	struct pb_process_config cfg = {0};
	cfg.argv = opt->argv;
	cfg.nevents = 1;
	cfg.quiet = true;
	struct pb_event_config *ev = &cfg.events[0];
	if (pb_spec_parse(opt->facility, &ev->spec, err))
		return -1;
	uint64_t base = opt->period_given ? opt->period : pb_suite_accuracy_period(&ev->spec);
	if (pb_period_setup_for(opt->method, base, &ev->spec, setup, err))
		return -1;
	snprintf(spec_text, spec_len, "%s", ev->spec.text);
	ev->period = setup->initial;
	ev->exclude_kernel = true;
	ev->track_maps = true;
	if (opt->call_graph)
		ev->extra_sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (setup->ioctl_each_sample) {
		c->random = true;
		pb_period_rng_init(&c->rng, setup->base, opt->seed);
		cfg.on_sample_period = next_period;
	}
	cfg.on_record = on_record;
	cfg.on_start = on_start;
	cfg.record_ctx = c;
	c->res = res;
	c->spec = ev->spec.text;
	if (pb_process_run(&cfg, res, err))
		return -1;
	if (c->oom)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory collecting samples");
	if (res->signaled)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "%s was killed by signal %d", opt->argv[0],
			       res->term_signal);
	if (res->exit_code)
		return pb_fail(err, PB_EXIT_FAILURE, 0,
			       "%s exited with status %d: profile a command that succeeds",
			       opt->argv[0], res->exit_code);
	return 0;
}

static int read_perf_data(const struct options *opt, struct collect *c, struct pb_error *err)
{
	struct pb_perfdata *pd;
	if (pb_perfdata_open(opt->perf_data, &pd, err))
		return -1;
	int rc = pb_perfdata_for_each(pd, perfdata_record, c, NULL, err);
	pb_perfdata_close(pd);
	if (!rc && c->oom)
		rc = pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory reading %s",
			     opt->perf_data);
	if (!rc && !c->nmaps)
		rc = pb_fail(err, PB_EXIT_BAD_FILE, 0,
			     "%s has no MMAP records: symbols cannot be resolved (record with "
			     "`perf record` of the command itself)",
			     opt->perf_data);
	return rc;
}

/* Shares from fewer samples than an accuracy needs (experiments/point.h) are no measurement:
 * one sample is more than 10 points of a share. */
static bool too_few_samples(const struct pb_profile_report *r)
{
	return r->samples < PB_MIN_EXPECTED_SAMPLES;
}

static double pct(double fraction)
{
	return 100.0 * fraction;
}

static void print_text(const struct options *opt, const char *spec, const struct pb_period_setup *setup,
		       const struct pb_process_result *res, const struct pb_profile_report *r)
{
	printf("pesbench profile:");
	for (char **a = opt->argv; *a; a++)
		printf(" %s", *a);
	printf("\n");
	if (opt->perf_data)
		printf("samples: %s (%llu user samples)\n", opt->perf_data,
		       (unsigned long long)r->samples);
	else
		printf("samples: %s, period %llu (%s%s), %llu user samples, run %.3f s%s\n", spec,
		       (unsigned long long)setup->initial, pb_period_method_name(setup->method),
		       setup->ioctl_each_sample ? ": new period in [P/2, 3P/2] after each sample"
		       : setup->facility_random ? ": the facility's own randomisation"
		       : "",
		       (unsigned long long)r->samples, (double)res->wall_ns / 1e9,
		       setup->ioctl_each_sample ? "" : "");
	if (setup->ioctl_each_sample && !opt->perf_data)
		printf("         period changes: %llu applied, %llu refused\n",
		       (unsigned long long)res->period_changes,
		       (unsigned long long)res->period_errors);
	printf("         %llu kernel samples left out (callgrind counts user code only); of the "
	       "rest\n         %llu outside any file mapping, %llu at addresses callgrind never "
	       "executed\n",
	       (unsigned long long)r->kernel_samples, (unsigned long long)r->unmapped_samples,
	       (unsigned long long)r->unexecuted_samples);
	printf("exact:   callgrind, %llu instructions in %zu objects, %zu executed instructions, "
	       "%zu basic blocks\n",
	       (unsigned long long)r->total_ir, r->nobjects, r->ninsns, r->nblocks);
	const struct pb_facility *facility = pb_facility_of(spec);
	if ((facility && facility->time_based) || opt->perf_data)
		printf("note:    compared are shares: a unit's share of the samples against its "
		       "share of the\n         instructions executed. Timer samples weigh code by "
		       "time, not instructions.\n");
	printf("\nerror (Nowak et al.: sum over units of |sampled share - exact share|)\n");
	if (too_few_samples(r)) {
		printf("  not given: too few samples, %llu where an error needs %d (one sample is\n"
		       "  %.0f points of a share); profile a longer run or use a shorter --period\n\n",
		       (unsigned long long)r->samples, PB_MIN_EXPECTED_SAMPLES,
		       r->samples ? 100.0 / (double)r->samples : 100.0);
	} else {
		printf("  %-12s %8.2f %%   largest difference %.2f pp\n", "instruction",
		       pct(r->insn.error), pct(r->insn.max_abs));
		printf("  %-12s %8.2f %%   largest difference %.2f pp\n", "basic block",
		       pct(r->block.error), pct(r->block.max_abs));
		printf("  %-12s %8.2f %%   largest difference %.2f pp\n\n", "function",
		       pct(r->func.error), pct(r->func.max_abs));
	}
	printf("%8s %9s %8s  %-32s %-20s %s\n", "exact %", "sampled %", "diff pp", "function",
	       "object", "source");
	for (size_t i = 0; i < r->nfuncs && i < opt->top; i++) {
		const struct pb_profile_func *f = &r->funcs[i];
		printf("%8.2f %9.2f %+8.2f  %-32.32s %-20.20s %s\n", pct(f->exact_share),
		       pct(f->sampled_share), pct(f->sampled_share - f->exact_share), f->name,
		       f->object, f->source[0] ? f->source : "-");
	}
}

static json_t *level_json(const struct pb_profile_report *r, const struct pb_share_error *e)
{
	if (too_few_samples(r))
		return json_null();
	return json_pack("{s:f, s:f}", "error_percent", pct(e->error), "max_difference_pp",
			 pct(e->max_abs));
}

static int print_json(const struct options *opt, const char *spec,
		      const struct pb_period_setup *setup, const struct pb_process_result *res,
		      const struct pb_profile_report *r)
{
	json_t *cmd = json_array();
	for (char **a = opt->argv; *a; a++)
		json_array_append_new(cmd, json_string(*a));
	json_t *funcs = json_array();
	for (size_t i = 0; i < r->nfuncs && i < opt->top; i++) {
		const struct pb_profile_func *f = &r->funcs[i];
		json_array_append_new(
			funcs, json_pack("{s:s, s:s, s:s, s:f, s:f, s:I, s:I}", "function", f->name,
					 "object", f->object, "source", f->source, "exact_share",
					 pct(f->exact_share), "sampled_share", pct(f->sampled_share),
					 "exact_instructions", (json_int_t)f->exact_ir, "samples",
					 (json_int_t)f->samples));
	}
	json_t *root = json_pack(
		"{s:o, s:s, s:s, s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:o, s:o, "
		"s:o, s:o, s:s}",
		"command", cmd, "source", opt->perf_data ? opt->perf_data : "sampled", "facility",
		opt->perf_data ? "perf.data" : spec, "period", (json_int_t)setup->initial,
		"period_method", pb_period_method_name(setup->method), "samples",
		(json_int_t)r->samples, "kernel_samples", (json_int_t)r->kernel_samples,
		"unmapped_samples", (json_int_t)r->unmapped_samples, "unexecuted_samples",
		(json_int_t)r->unexecuted_samples, "exact_instructions", (json_int_t)r->total_ir,
		"executed_instructions", (json_int_t)r->ninsns, "basic_blocks",
		(json_int_t)r->nblocks, "period_changes", (json_int_t)res->period_changes,
		"wall_s", (double)res->wall_ns / 1e9, "instruction", level_json(r, &r->insn),
		"basic_block", level_json(r, &r->block), "function", level_json(r, &r->func),
		"top_functions", funcs, "comparison",
		"shares: a unit's share of the samples against its share of the instructions");
	/* the levels' errors are null then, and this says why */
	json_object_set_new(root, "too_few_samples", json_boolean(too_few_samples(r)));
	return pb_cli_print_json("profile", root, 2);
}

static void say_written(void *ctx, const char *path, const char *profile)
{
	fprintf(stderr, "pesbench profile: wrote %s (%s, %s)\n", path, (const char *)ctx, profile);
}

/* The sampled and the exact profile in every --export format. */
static int write_exports(const struct options *opt, struct collect *c, const char *cg_out,
			 const char *spec, const struct pb_period_setup *setup,
			 struct pb_error *err)
{
	char source[PATH_MAX + 64];
	if (opt->perf_data)
		snprintf(source, sizeof source, "%s", opt->perf_data);
	else
		snprintf(source, sizeof source, "%s, period %llu (%s)", spec,
			 (unsigned long long)setup->initial, pb_period_method_name(setup->method));
	struct pb_xset set = {0};
	struct pb_xprof_input in = {.maps = c->maps, .nmaps = c->nmaps, .sampled = &c->raw,
				    .kernel_samples = c->kernel, .callgrind_file = cg_out,
				    .source = source};
	int rc = pb_xprof_build(&in, &set, err);
	for (size_t i = 0; !rc && i < opt->nexports; i++)
		rc = pb_export_write(&opt->exports[i], &set, say_written,
				     (void *)opt->exports[i].format->name, err);
	pb_xset_free(&set);
	return rc;
}

static void remove_dir(const char *dir, const char *a, const char *b)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, a);
	unlink(path);
	snprintf(path, sizeof path, "%s/%s", dir, b);
	unlink(path);
	rmdir(dir);
}

int pb_cmd_profile(int argc, char **argv)
{
	struct options opt = {.facility = "timer:cpu-clock", .seed = 1, .top = 10,
			      .method = PB_PERIOD_ROUND};
	struct pb_error err = {0};
	int rest, rc0 = pb_options_run(&pb_cmd_profile_spec, argc, argv, &opt, &rest);
	if (rc0 >= 0)
		return rc0;
	if (pb_period_check("--period", opt.period_units, opt.facility, &err))
		return pb_cli_report("profile", &err);
	if (rest >= argc) {
		pb_fail(&err, PB_EXIT_USAGE, 0,
			"no command to profile: give it after --, e.g. pesbench profile -- gzip -k FILE");
		return pb_cli_report("profile", &err);
	}
	opt.argv = argv + rest;
	char exe[PATH_MAX];
	if (resolve(opt.argv[0], exe, sizeof exe, &err))
		return pb_cli_report("profile", &err);
	if (!pb_is_elf_file(exe)) {
		pb_fail(&err, PB_EXIT_USAGE, 0,
			"%s is not an ELF executable (a script?): the samples and callgrind would "
			"both see its interpreter; profile the interpreter with the script as its "
			"argument",
			exe);
		return pb_cli_report("profile", &err);
	}
	char why[256];
	if (!pb_callgrind_available(why, sizeof why)) {
		pb_fail(&err, PB_EXIT_UNAVAILABLE, 0, "the exact reference needs callgrind: %s", why);
		return pb_cli_report("profile", &err);
	}

	if (opt.record && opt.perf_data) {
		pb_fail(&err, PB_EXIT_USAGE, 0,
			"--record writes pesbench's own samples; with --perf-data they are already in "
			"%s", opt.perf_data);
		return pb_cli_report("profile", &err);
	}
	struct collect c = {.stacks = opt.nexports > 0};
	if (opt.record && pb_perfdata_recorder_open(opt.record, &c.recorder, &err))
		return pb_cli_report("profile", &err);
	if (c.stacks && pb_xprof_raw_init(&c.raw)) {
		pb_perfdata_recorder_close(c.recorder, NULL, NULL);
		pb_fail(&err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
		return pb_cli_report("profile", &err);
	}
	struct pb_process_result res = {0};
	struct pb_period_setup setup = {.method = opt.method};
	char spec[192] = "";
	int rc;
	if (opt.perf_data)
		rc = read_perf_data(&opt, &c, &err);
	else
		rc = sample_command(&opt, &c, &res, spec, sizeof spec, &setup, &err);
	if (c.recorder) {
		/* the recording stands whatever the comparison says: it is what was sampled */
		int recorded = pb_perfdata_recorder_close(c.recorder, NULL, rc ? NULL : &err);
		if (!rc && recorded)
			rc = -1;
		else if (!recorded)
			fprintf(stderr, "pesbench profile: wrote %s (perf.data)\n", opt.record);
	}
	if (!rc && !c.nips && !c.kernel)
		rc = pb_fail(&err, PB_EXIT_FAILURE, 0,
			     "no samples: the command ran too briefly for period %llu; lower --period "
			     "or give it more work",
			     (unsigned long long)setup.initial);
	if (!rc && !c.nmaps)
		rc = pb_fail(&err, PB_EXIT_FAILURE, 0,
			     "the command's memory map could not be read: it exited before its first "
			     "sample was drained");
	char dir[] = "/tmp/pesbench-profile-XXXXXX";
	bool have_dir = false;
	if (!rc && !mkdtemp(dir))
		rc = pb_fail(&err, PB_EXIT_OUTPUT, errno, "cannot create a folder in /tmp: %s",
			     strerror(errno));
	else if (!rc)
		have_dir = true;
	char cg_out[PATH_MAX], cg_stdout[PATH_MAX];
	snprintf(cg_out, sizeof cg_out, "%s/callgrind.out", dir);
	snprintf(cg_stdout, sizeof cg_stdout, "%s/stdout", dir);
	if (!rc && !opt.json)
		fprintf(stderr, "pesbench profile: running %s under callgrind (slow)...\n",
			opt.argv[0]);
	if (!rc)
		rc = pb_callgrind_run(opt.argv, cg_out, cg_stdout, false, &err);
	struct pb_profile_report rep = {0};
	if (!rc) {
		struct pb_profile_input in = {.maps = c.maps, .nmaps = c.nmaps, .ips = c.ips,
					      .nips = c.nips, .kernel_samples = c.kernel,
					      .callgrind_file = cg_out};
		rc = pb_profile_compute(&in, &rep, &err);
	}
	if (!rc && opt.nexports)
		rc = write_exports(&opt, &c, cg_out, spec, &setup, &err);
	int printed = PB_EXIT_OK;
	if (!rc) {
		if (opt.json)
			printed = print_json(&opt, spec, &setup, &res, &rep);
		else
			print_text(&opt, spec, &setup, &res, &rep);
	}
	pb_profile_report_free(&rep);
	if (have_dir)
		remove_dir(dir, "callgrind.out", "stdout");
	free(c.maps);
	free(c.ips);
	pb_xraw_free(&c.raw);
	return rc ? pb_cli_report("profile", &err) : printed;
}
