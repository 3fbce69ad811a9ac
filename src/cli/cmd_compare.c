/* `pesbench compare RESULTS...`: results files of several machines (or runs) side by side —
 * the Intel vs AMD tables of the main study. A row is one setting, matched across files by
 * experiment, kind of facility, workload, period, threads and the experiment's own parameter
 * (privilege levels, events opened together); a precise facility (PEBS, IBS, SPE) is matched
 * with whichever precise facility the other machine has, every other facility with the same
 * spec. A setting one file lacks is shown as '-'. */
#include "cli/commands.h"
#include "facilities/facility.h"
#include "cli/options.h"
#include "io/results.h"
#include "present/plot.h"
#include "present/report.h"
#include "util/kit.h"
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 16

struct input {
	char path[4200];
	struct pb_results results;
	char machine[256];
};

struct row {
	char key[768];
	char experiment[64], kind[192], workload[192], params[96];
	long long period, threads;
	const struct pb_result_point *cell[MAX_FILES];
};

struct compare_args {
	const char *paths[MAX_FILES];
	size_t nfiles;
	bool json;
};

static int add_file(void *args, const char *value, struct pb_error *err)
{
	struct compare_args *a = args;
	if (a->nfiles == MAX_FILES)
		return pb_fail(err, PB_EXIT_USAGE, 0, "at most %d results files", MAX_FILES);
	a->paths[a->nfiles++] = value;
	return 0;
}

static const struct pb_opt compare_options[] = {
	{.name = "json", .kind = PB_OPT_FLAG, .at = PB_AT(struct compare_args, json, bool),
	 .help = "print the table as JSON"},
	{0},
};

const struct pb_cmd_spec pb_cmd_compare_spec = {
	.name = "compare",
	.summary = "set two or more results files side by side",
	.operands = "RESULTS RESULTS [RESULTS...]",
	.description =
		"Sets two or more results (folders or results.json files) side by side: one row\n"
		"per setting (experiment, facility kind, workload, period, threads, and the\n"
		"experiment's own parameter), one column per file with accuracy mean +- stdev over\n"
		"the runs and the samples lost. PEBS, IBS and SPE are matched with each other as\n"
		"'precise'; other facilities by their spec. '-' marks a setting a file lacks.\n",
	.options = compare_options,
	.args_size = sizeof(struct compare_args),
	.positional = add_file,
	.epilogue =
		"Exit 0 on success, 2 for bad usage, 6 when a file is missing, corrupt or of\n"
		"another schema version.\n",
};

/* The facility a row matches on: precise facilities of different vendors are one kind. */
static void facility_kind(const char *facility, char *buf, size_t len)
{
	const struct pb_facility *f = pb_facility_of(facility);
	pb_format(buf, len, "%s", f && f->precise_family ? "precise" : facility);
}

/* The parameters an experiment varies besides the common ones, as "levels=user". */
static void own_params(const struct pb_result_point *p, char *buf, size_t len)
{
	static const char *const fields[] = {"levels", "events_opened_together", "delivery",
					      "ring_pages", "padding"};
	buf[0] = '\0';
	for (size_t i = 0; i < PB_ARRAY_SIZE(fields); i++) {
		const struct pb_rvalue *v = pb_rset_get(&p->params, fields[i]);
		if (!v || (!strcmp(fields[i], "delivery") && v->kind == PB_RV_TEXT &&
			   !strcmp(v->as.text, "none")))
			continue;
		size_t used = strlen(buf);
		const char *name = !strcmp(fields[i], "events_opened_together") ? "k" : fields[i];
		if (v->kind == PB_RV_TEXT)
			pb_format(buf + used, len - used, "%s%s=%s", used ? "," : "", name,
				  v->as.text);
		else if (v->kind == PB_RV_INT)
			pb_format(buf + used, len - used, "%s%s=%lld", used ? "," : "", name,
				  (long long)v->as.i);
	}
}

static void cell_text(const struct pb_result_point *p, const char *kind, char *buf, size_t len)
{
	if (!p) {
		pb_format(buf, len, "-");
		return;
	}
	char prefix[200] = "";
	if (strcmp(p->facility, kind))
		pb_format(prefix, sizeof prefix, "%s ", p->facility);
	if (pb_rset_get(&p->params, "not_applicable")) {
		pb_format(buf, len, "%sn/a", prefix);
		return;
	}
	const struct pb_rsummary *acc = pb_rset_get_summary(&p->metrics, "accuracy");
	if (!acc) {
		pb_format(buf, len, "%s%s", prefix,
			  pb_rset_get(&p->params, "error") ? "error" : "-");
		return;
	}
	const struct pb_rsummary *rr = pb_rset_get_summary(&p->metrics, "running_ratio");
	double ratio = rr ? rr->min : 1.0;
	char mux[32] = "";
	if (ratio < 0.999)
		pb_format(mux, sizeof mux, " run/en %.2f", ratio);
	pb_format(buf, len, "%s%.2f±%.2f lost %lld%s", prefix, acc->mean, acc->stdev,
		  (long long)pb_rset_get_int(&p->metrics, "lost_total"), mux);
}

/* Copies the named value of s into o when s has it. */
static void copy_value(json_t *o, const char *key, const struct pb_rset *s, const char *name)
{
	const struct pb_rvalue *v = pb_rset_get(s, name);
	if (v)
		json_object_set_new(o, key, pb_rvalue_json(v));
}

static json_t *cell_json(const struct pb_result_point *p)
{
	if (!p)
		return json_null();
	const struct pb_rsummary *acc = pb_rset_get_summary(&p->metrics, "accuracy");
	json_t *o = json_pack("{s:s}", "facility", p->facility);
	copy_value(o, "not_applicable", &p->params, "not_applicable");
	copy_value(o, "error", &p->params, "error");
	if (acc) {
		json_object_set_new(o, "accuracy",
				    json_pack("{s:f, s:f, s:f, s:f, s:i}", "mean", acc->mean,
					      "stdev", acc->stdev, "min", acc->min, "max", acc->max,
					      "n", (int)acc->n));
		copy_value(o, "lost_total", &p->metrics, "lost_total");
		copy_value(o, "multiplexed", &p->metrics, "multiplexed");
		const struct pb_rsummary *rr = pb_rset_get_summary(&p->metrics, "running_ratio");
		if (rr)
			json_object_set_new(o, "running_ratio_min", json_real(rr->min));
	}
	return o;
}

/* display width of UTF-8 text (the ± sign is two bytes, one column) */
static int columns(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

static void pad(FILE *out, const char *s, int width)
{
	fputs(s, out);
	for (int w = columns(s); w < width; w++)
		fputc(' ', out);
}

int pb_cmd_compare(int argc, char **argv)
{
	static struct compare_args a;
	memset(&a, 0, sizeof a);
	int rest, rc0 = pb_options_run(&pb_cmd_compare_spec, argc, argv, &a, &rest);
	if (rc0 >= 0)
		return rc0;
	const char *const *paths = a.paths;
	size_t nfiles = a.nfiles;
	bool json = a.json;
	struct pb_error err = {0};
	if (nfiles < 2) {
		pb_fail(&err, PB_EXIT_USAGE, 0,
			"compare needs two or more results folders or files (got %zu); `pesbench "
			"report` shows one",
			nfiles);
		return pb_cli_report("compare", &err);
	}

	struct input *in = calloc(nfiles, sizeof *in);
	struct row *rows = NULL;
	size_t nrows = 0, cap = 0;
	int rc = PB_EXIT_OK;
	if (!in) {
		pb_fail(&err, PB_EXIT_FAILURE, 0, "out of memory");
		return pb_cli_report("compare", &err);
	}
	for (size_t f = 0; f < nfiles; f++) {
		char dir[4200];
		pb_results_locate(paths[f], in[f].path, sizeof in[f].path, dir, sizeof dir);
		if (pb_results_load(in[f].path, &in[f].results, &err)) {
			rc = pb_cli_report("compare", &err);
			goto out;
		}
		pb_results_machine_label(&in[f].results, in[f].machine, sizeof in[f].machine);
	}

	/* rows: the first file's order, then what only later files have */
	for (size_t f = 0; f < nfiles; f++) {
		for (size_t i = 0; i < in[f].results.npoints; i++) {
			const struct pb_result_point *p = in[f].results.points[i];
			struct row key = {0};
			pb_format(key.experiment, sizeof key.experiment, "%s", p->experiment);
			facility_kind(p->facility, key.kind, sizeof key.kind);
			pb_format(key.workload, sizeof key.workload, "%s", p->workload);
			key.period = (long long)pb_rset_get_int(&p->params, "period");
			key.threads = (long long)pb_rset_get_int(&p->params, "threads");
			own_params(p, key.params, sizeof key.params);
			/* the n-th point of a setting in one file meets the n-th in another */
			for (unsigned occurrence = 0;; occurrence++) {
				pb_format(key.key, sizeof key.key, "%s|%s|%s|%lld|%lld|%s|%u",
					  key.experiment, key.kind, key.workload, key.period,
					  key.threads, key.params, occurrence);
				size_t k = 0;
				while (k < nrows && strcmp(rows[k].key, key.key))
					k++;
				if (k < nrows && rows[k].cell[f])
					continue;
				if (k == nrows) {
					if (nrows == cap) {
						cap = cap ? 2 * cap : 64;
						struct row *grown = realloc(rows, cap * sizeof *rows);
						if (!grown) {
							pb_fail(&err, PB_EXIT_FAILURE, 0, "out of memory");
							rc = pb_cli_report("compare", &err);
							goto out;
						}
						rows = grown;
					}
					rows[nrows++] = key;
				}
				rows[k].cell[f] = p;
				break;
			}
		}
	}

	if (json) {
		json_t *doc = json_object(), *files = json_array(), *out_rows = json_array();
		for (size_t f = 0; f < nfiles; f++)
			json_array_append_new(files, json_pack("{s:s, s:s}", "path", in[f].path,
							       "machine", in[f].machine));
		for (size_t k = 0; k < nrows; k++) {
			json_t *cells = json_array();
			for (size_t f = 0; f < nfiles; f++)
				json_array_append_new(cells, cell_json(rows[k].cell[f]));
			json_array_append_new(
				out_rows, json_pack("{s:s, s:s, s:s, s:I, s:I, s:s, s:o}", "experiment",
						    rows[k].experiment, "facility_kind", rows[k].kind,
						    "workload", rows[k].workload, "period",
						    (json_int_t)rows[k].period, "threads",
						    (json_int_t)rows[k].threads, "params",
						    rows[k].params, "cells", cells));
		}
		json_object_set_new(doc, "files", files);
		json_object_set_new(doc, "rows", out_rows);
		char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		if (text)
			puts(text);
		free(text);
		json_decref(doc);
		goto out;
	}

	/* columns as wide as their widest cell */
	int width[MAX_FILES];
	for (size_t f = 0; f < nfiles; f++) {
		width[f] = 8;
		for (size_t k = 0; k < nrows; k++) {
			char cell[320];
			cell_text(rows[k].cell[f], rows[k].kind, cell, sizeof cell);
			if (columns(cell) > width[f])
				width[f] = columns(cell);
		}
	}
	for (size_t f = 0; f < nfiles; f++)
		printf("%c: %s — %s\n", (char)('A' + f), in[f].path, in[f].machine);
	printf("\naccuracy (%%) mean±stdev over runs, samples lost; run/en = lowest time "
	       "running/enabled when multiplexed\n\n");
	int wexp = 3, wkind = 8, wload = 8, wparams = 6;
	for (size_t k = 0; k < nrows; k++) {
		wexp = columns(rows[k].experiment) > wexp ? columns(rows[k].experiment) : wexp;
		wkind = columns(rows[k].kind) > wkind ? columns(rows[k].kind) : wkind;
		wload = columns(rows[k].workload) > wload ? columns(rows[k].workload) : wload;
		wparams = columns(rows[k].params) > wparams ? columns(rows[k].params) : wparams;
	}
	printf("%-*s %-*s %-*s %9s %3s %-*s", wexp, "exp", wkind, "facility", wload, "workload",
	       "period", "thr", wparams, "params");
	for (size_t f = 0; f < nfiles; f++) {
		char head[8];
		snprintf(head, sizeof head, "%c", (char)('A' + f));
		fputs(" | ", stdout);
		pad(stdout, head, width[f]);
	}
	putchar('\n');
	size_t matched = 0;
	for (size_t k = 0; k < nrows; k++) {
		char period[24] = "-", threads[8] = "-";
		if (rows[k].period)
			snprintf(period, sizeof period, "%lld", rows[k].period);
		if (rows[k].threads)
			snprintf(threads, sizeof threads, "%lld", rows[k].threads);
		printf("%-*s %-*s %-*s %9s %3s %-*s", wexp, rows[k].experiment, wkind, rows[k].kind,
		       wload, rows[k].workload[0] ? rows[k].workload : "-", period, threads, wparams,
		       rows[k].params[0] ? rows[k].params : "-");
		bool all = true;
		for (size_t f = 0; f < nfiles; f++) {
			char cell[320];
			cell_text(rows[k].cell[f], rows[k].kind, cell, sizeof cell);
			fputs(" | ", stdout);
			pad(stdout, cell, width[f]);
			all &= rows[k].cell[f] != NULL;
		}
		matched += all;
		putchar('\n');
	}
	printf("\n%zu settings, %zu in every file\n", nrows, matched);
out:
	for (size_t f = 0; f < nfiles; f++)
		pb_results_free(&in[f].results);
	free(in);
	free(rows);
	return rc;
}
