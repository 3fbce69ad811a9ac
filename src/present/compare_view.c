/* `compare` (compare.h) shown: each cell judged against the first run's, the tables as text
 * no wider than the terminal, the comparison as JSON, and as an HTML page with plots. */
#include "present/compare_parts.h"

#include "io/figures.h"
#include "io/results.h"
#include "present/report.h"
#include "present/summary.h"
#include "runner/cpu_speed.h"
#include "util/kit.h"
#include "util/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- judging a cell against the first run's ---- */

struct verdict {
	bool judged;        /* both have an interval and are resolved */
	bool exceeds;       /* the delta exceeds both intervals */
	double delta;
};

static struct verdict judge(const struct cell *ref, const struct cell *x)
{
	struct verdict v = {0};
	if (!ref->rec || !x->rec)
		return v;
	v.delta = x->value - ref->value;
	v.judged = ref->has_interval && x->has_interval && ref->resolved && x->resolved;
	v.exceeds = v.judged && (x->value < ref->lo || x->value > ref->hi) &&
		    (ref->value < x->lo || ref->value > x->hi);
	return v;
}

/* The first column with a figure in this row: the reference of the row's deltas. */
static const struct cell *reference(const struct pb_compare *c, const struct row *row,
				    size_t *col_out)
{
	for (size_t col = 0; col < c->nruns; col++)
		if (row->cells[c->order[col]].rec) {
			*col_out = col;
			return &row->cells[c->order[col]];
		}
	return NULL;
}

static void number(char *buf, size_t len, double x)
{
	double a = fabs(x);
	if (a >= 1e7)
		pb_format(buf, len, "%.3g", x);
	else if (a >= 100000)
		pb_format(buf, len, "%.0fk", x / 1000);
	else if (a >= 1000)
		pb_format(buf, len, "%.0f", x);
	else if (a >= 100)
		pb_format(buf, len, "%.1f", x);
	else
		pb_format(buf, len, "%.2f", x);
}

static void cell_text(const struct pb_compare *c, const struct row *row, size_t col, char *buf,
		      size_t len)
{
	const struct cell *x = &row->cells[c->order[col]];
	if (!x->rec) {
		pb_format(buf, len, "-");
		return;
	}
	char value[32], half[32] = "?", delta[32];
	number(value, sizeof value, x->value);
	if (x->has_interval)
		number(half, sizeof half, (x->hi - x->lo) / 2);
	/* a precise facility met by another vendor's: say which */
	const char *facility = text_of(x->rec, "facility");
	pb_format(buf, len, "%s%s%s±%s", strcmp(facility, row->facility) ? facility : "",
		  strcmp(facility, row->facility) ? " " : "", value, half);
	if (!x->resolved)
		pb_append(buf, len, " unres.");
	if (json_integer_value(json_object_get(x->rec, "lost")) > 0)
		pb_append(buf, len, " L");
	const json_t *rr = json_object_get(x->rec, "running_ratio_min");
	if (json_is_number(rr) && json_number_value(rr) < 0.999)
		pb_append(buf, len, " M");
	size_t ref_col = 0;
	const struct cell *ref = reference(c, row, &ref_col);
	if (ref_col == col)
		return;
	struct verdict v = judge(ref, x);
	number(delta, sizeof delta, v.delta);
	pb_append(buf, len, " Δ%s%s%s", v.delta >= 0 ? "+" : "", delta,
		  !v.judged ? "?" : v.exceeds ? "*" : "");
}

static void pad(FILE *out, const char *s, int width)
{
	fputs(s, out);
	for (int w = pb_utf8_columns(s, strlen(s)); w < width; w++)
		fputc(' ', out);
}

static void row_label(const struct table *t, const struct row *row, char *buf, size_t len)
{
	pb_format(buf, len, "%s", row->facility);
	if (t->several_metrics)
		pb_append(buf, len, " %s", row->metric);
	if (row->rest[0])
		pb_append(buf, len, " %s", row->rest);
}

static void print_runs(FILE *out, const struct pb_compare *c)
{
	fprintf(out, "runs, by CPU model:\n");
	const char *group = NULL;
	for (size_t col = 0; col < c->nruns; col++) {
		const struct run *run = &c->runs[c->order[col]];
		if (!group || strcmp(group, run->group))
			fprintf(out, "  %s\n", run->group);
		group = run->group;
		const json_t *m = run->machine;
		char extra[256] = "";
		if (json_is_string(json_object_get(m, "microcode")))
			pb_append(extra, sizeof extra, ", microcode %s", text_of(m, "microcode"));
		if (json_is_true(json_object_get(m, "hypervisor")))
			pb_append(extra, sizeof extra, ", in a VM");
		if (!run->complete)
			pb_append(extra, sizeof extra, ", INCOMPLETE");
		if (!run->complete && run->exit_code >= 0)
			pb_append(extra, sizeof extra, " (exit %d)", run->exit_code);
		else if (run->exit_code > 0)
			pb_append(extra, sizeof extra, ", exit %d (a point FAILED)",
				  run->exit_code);
		fprintf(out, "    %-2s %s, kernel %s%s\n       %s\n", run->name, run->label,
			text_of(m, "kernel"), extra, run->source);
		const json_t *load = run->load;
		const json_t *other = json_object_get(load, "other_cpus");
		if (json_is_number(other)) {
			const json_t *ci = json_object_get(load, "other_cpus_ci95");
			char busy[64];
			pb_format_value_ci(busy, sizeof busy, "%.2f", json_number_value(other),
					   json_is_number(ci) ? json_number_value(ci) : NAN);
			fprintf(out, "       beside it, other work kept %s CPUs busy\n", busy);
		}
		const json_t *slowest = json_object_get(load, "cpu_speed_slowest_ratio");
		if (json_is_number(slowest))
			fprintf(out, "       a fixed loop took up to %.1f times its fastest time "
				"(%.0f of %.0f probes more than %.0f %% slower)\n",
				json_number_value(slowest),
				json_number_value(json_object_get(load, "cpu_speed_slower_probes")),
				json_number_value(json_object_get(load, "cpu_speed_probes")),
				100 * PB_SPEED_SLOWER);
	}
}

static void print_scorecards(FILE *out, const struct pb_compare *c)
{
	bool any = false;
	for (size_t r = 0; r < c->nruns; r++)
		any |= json_array_size(c->runs[r].scorecard) > 0;
	if (!any)
		return;
	fprintf(out, "\nscorecards:\n");
	for (size_t col = 0; col < c->nruns; col++) {
		const struct run *run = &c->runs[c->order[col]];
		fprintf(out, "  %s %s:%s\n", run->name, run->label,
			json_array_size(run->scorecard) ? "" : " no scorecard in its results");
		size_t i;
		json_t *rec;
		json_array_foreach(run->scorecard, i, rec) {
			const json_t *e = json_object_get(rec, "entry");
			const char *summary = text_of(e, "summary");
			if (!*summary)
				summary = text_of(e, "why");
			/* whole, wrapped under its column: cut at 75 characters, the timer's read
			 * "use for time estimates to" and stopped */
			char first[64];
			pb_format(first, sizeof first, "    %-10s %-9s ", text_of(e, "facility"),
				  text_of(e, "verdict"));
			pb_text_wrapped(out, first, summary, 25);
		}
	}
}

static void print_table(FILE *out, const struct pb_compare *c, const struct table *t, int width)
{
	fprintf(out, "\n== %s", t->experiment);
	if (!t->several_metrics && t->nrows)
		fprintf(out, ": %s (%s)", t->rows[0].metric, t->rows[0].unit);
	fputc('\n', out);
	/* what the rows share, a line per facility, each wrapped at the width */
	for (const char *line = t->common; *line;) {
		size_t len = strcspn(line, "\n");
		char one[sizeof t->common];
		pb_format(one, sizeof one, "%.*s", (int)len, line);
		pb_text_wrapped(out, "", one, 2);
		line += len + (line[len] == '\n');
	}
	if (t->differs[0]) {
		char differs[sizeof t->differs + 64];
		pb_format(differs, sizeof differs, "runs differ in %s (rows line up on the rest)",
			  t->differs);
		pb_text_wrapped(out, "", differs, 2);
	}
	int wlabel = 8, wcell[MAX_RUNS];
	for (size_t r = 0; r < t->nrows; r++) {
		char label[1024];
		row_label(t, &t->rows[r], label, sizeof label);
		int w = pb_utf8_columns(label, strlen(label));
		wlabel = w > wlabel ? w : wlabel;
	}
	if (wlabel > width / 2)
		wlabel = width / 2;
	for (size_t col = 0; col < c->nruns; col++) {
		wcell[col] = 4;
		for (size_t r = 0; r < t->nrows; r++) {
			char cell[160];
			cell_text(c, &t->rows[r], col, cell, sizeof cell);
			int w = pb_utf8_columns(cell, strlen(cell));
			wcell[col] = w > wcell[col] ? w : wcell[col];
		}
	}
	/* the label column gives way to the runs: a label wider than it goes on a line of its
	 * own, and two runs' cells stood in two blocks, one run each, under labels of 50
	 * columns (2026-11-27) */
	size_t cells = 0;
	for (size_t col = 0; col < c->nruns; col++)
		cells += 3 + (size_t)wcell[col];
	if ((size_t)wlabel + cells > (size_t)width && (size_t)width >= cells + 16)
		wlabel = width - (int)cells;
	/* runs in chunks that fit the width, the label column repeated */
	for (size_t first = 0; first < c->nruns;) {
		size_t last = first, used = (size_t)wlabel;
		while (last < c->nruns && (last == first || used + 3 + (size_t)wcell[last] <=
								 (size_t)width)) {
			used += 3 + (size_t)wcell[last];
			last++;
		}
		if (first)
			fputc('\n', out);
		pad(out, t->several_metrics ? "facility, figure" : "facility", wlabel);
		for (size_t col = first; col < last; col++) {
			fputs(" | ", out);
			/* the last column is not padded: no line ends in spaces */
			pad(out, c->runs[c->order[col]].name, col + 1 < last ? wcell[col] : 0);
		}
		fputc('\n', out);
		for (size_t r = 0; r < t->nrows; r++) {
			char label[1024];
			row_label(t, &t->rows[r], label, sizeof label);
			if (pb_utf8_columns(label, strlen(label)) > wlabel) {
				/* on a line of its own, wrapped at its spaces where wider than one */
				pb_text_wrapped(out, "", label, 2);
				label[0] = '\0';
			}
			pad(out, label, wlabel);
			for (size_t col = first; col < last; col++) {
				char cell[160];
				cell_text(c, &t->rows[r], col, cell, sizeof cell);
				fputs(" | ", out);
				pad(out, cell, col + 1 < last ? wcell[col] : 0);
			}
			fputc('\n', out);
		}
		first = last;
	}
}

void pb_compare_print(FILE *out, const struct pb_compare *c, int width)
{
	print_runs(out, c);
	print_scorecards(out, c);
	fprintf(out, "\nA cell is value ± half its 95 %% interval (?: none), then its delta to the "
		     "row's first run:\n* the delta exceeds both intervals, ? not judged (no "
		     "interval or not resolved).\nL samples lost, M multiplexed, unres. a cost fit "
		     "that did not resolve. Units: docs/fleet.md.\n");
	size_t rows = 0, everywhere = 0;
	for (size_t k = 0; k < c->ntables; k++) {
		print_table(out, c, &c->tables[k], width);
		for (size_t r = 0; r < c->tables[k].nrows; r++) {
			bool all = true;
			for (size_t run = 0; run < c->nruns; run++)
				all &= c->tables[k].rows[r].cells[run].rec != NULL;
			rows++;
			everywhere += all;
		}
	}
	fprintf(out, "\n%zu rows in %zu tables, %zu with a figure from every run\n", rows,
		c->ntables, everywhere);
}

/* ---- JSON ---- */

static json_t *cell_json(const struct pb_compare *c, const struct row *row, size_t col)
{
	const struct cell *x = &row->cells[c->order[col]];
	if (!x->rec)
		return json_null();
	json_t *o = json_pack("{s:f}", "value", x->value);
	json_object_set(o, "interval", json_object_get(x->rec, "interval"));
	json_object_set(o, "n", json_object_get(x->rec, "n"));
	json_object_set(o, "resolved", json_object_get(x->rec, "resolved"));
	json_object_set(o, "lost", json_object_get(x->rec, "lost"));
	json_object_set(o, "running_ratio_min", json_object_get(x->rec, "running_ratio_min"));
	json_object_set(o, "facility", json_object_get(x->rec, "facility"));
	size_t ref_col = 0;
	const struct cell *ref = reference(c, row, &ref_col);
	if (ref_col != col) {
		struct verdict v = judge(ref, x);
		json_object_set_new(o, "delta", json_real(v.delta));
		json_object_set_new(o, "exceeds_both_intervals",
				    v.judged ? json_boolean(v.exceeds) : json_null());
	}
	return o;
}

json_t *pb_compare_json(const struct pb_compare *c)
{
	json_t *runs = json_array(), *tables = json_array();
	for (size_t col = 0; col < c->nruns; col++) {
		const struct run *run = &c->runs[c->order[col]];
		json_t *sc = json_array();
		size_t i;
		json_t *rec;
		json_array_foreach(run->scorecard, i, rec)
			json_array_append(sc, json_object_get(rec, "entry"));
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b}", "name", run->name, "run_id",
				      run->id, "label", run->label, "cpu_group", run->group,
				      "source", run->source, "complete", run->complete);
		json_object_set(o, "machine", (json_t *)run->machine);
		json_object_set_new(o, "scorecard", sc);
		json_array_append_new(runs, o);
	}
	for (size_t k = 0; k < c->ntables; k++) {
		const struct table *t = &c->tables[k];
		json_t *rows = json_array();
		for (size_t r = 0; r < t->nrows; r++) {
			const struct row *row = &t->rows[r];
			json_t *cells = json_array();
			for (size_t col = 0; col < c->nruns; col++)
				json_array_append_new(cells, cell_json(c, row, col));
			json_array_append_new(
				rows, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o}", "facility",
						row->facility, "facility_kind", row->kind, "workload",
						row->workload, "settings", row->settings, "metric",
						row->metric, "unit", row->unit, "cells", cells));
		}
		json_array_append_new(tables,
				      json_pack("{s:s, s:s, s:o}", "experiment", t->experiment,
						"runs_differ_in", t->differs, "rows", rows));
	}
	return json_pack("{s:s, s:o, s:o}", "schema", "pesbench-compare/1", "runs", runs,
			 "tables", tables);
}

void pb_compare_print_records(FILE *out, const struct pb_compare *c)
{
	json_t *copy = json_array();
	size_t i;
	json_t *rec;
	json_array_foreach(c->records, i, rec) {
		json_t *r = json_copy(rec);
		json_object_del(r, "source");
		json_array_append_new(copy, r);
	}
	pb_figures_print_jsonl(out, copy);
	json_decref(copy);
}

/* ---- HTML ---- */

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

/* Eight colours told apart by readers with the common colour-vision deficiencies (Okabe–Ito,
 * yellow darkened to read on white); runs past eight reuse them with a hollow marker. */
static const char *const palette[] = {"#000000", "#e69f00", "#56b4e9", "#009e73",
				      "#b8a000", "#0072b2", "#d55e00", "#cc79a7"};

/* One plot per experiment and figure: a band per row, each run's value with its interval; a
 * log axis when the values are all positive and span more than 100×. */
static void plot_svg(FILE *f, const struct pb_compare *c, const struct table *t,
		     const char *metric)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t nrows = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		if (strcmp(t->rows[r].metric, metric))
			continue;
		nrows++;
		for (size_t run = 0; run < c->nruns; run++) {
			const struct cell *x = &t->rows[r].cells[run];
			if (!x->rec)
				continue;
			lo = fmin(lo, x->has_interval ? fmin(x->lo, x->value) : x->value);
			hi = fmax(hi, x->has_interval ? fmax(x->hi, x->value) : x->value);
		}
	}
	if (!nrows || !isfinite(lo) || !isfinite(hi))
		return;
	bool logx = lo > 0 && hi / lo > 100;
	if (hi == lo) {
		hi += 1;
		lo -= 1;
	}
	double a = logx ? log10(lo) : lo, b = logx ? log10(hi) : hi, margin = (b - a) * 0.05;
	a -= margin;
	b += margin;
	int left = 260, plotw = 560, band = 14 * (int)(c->nruns < 3 ? 3 : c->nruns) + 8;
	int height = 50 + band * (int)nrows;
	fprintf(f, "<figure><svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
		   "role='img'>\n", left + plotw + 20, height);
#define XPOS(v) (left + (int)(((logx ? log10(v) : (v)) - a) / (b - a) * plotw))
	size_t band_i = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		const struct row *row = &t->rows[r];
		if (strcmp(row->metric, metric))
			continue;
		int y0 = 10 + band * (int)band_i++;
		char label[1024];
		/* the full label is in the table above; here it must not run into the plot */
		pb_format(label, sizeof label, "%s %s", row->facility, row->rest);
		if (strlen(label) > 42)
			pb_format(label + 39, sizeof label - 39, "...");
		fprintf(f, "<text x='4' y='%d' font-size='11'><title>", y0 + band / 2);
		esc(f, row->facility);
		fputc(' ', f);
		esc(f, row->rest);
		fprintf(f, "</title>");
		esc(f, label);
		fprintf(f, "</text>\n<line x1='%d' x2='%d' y1='%d' y2='%d' stroke='#ddd'/>\n", left,
			left + plotw, y0 + band, y0 + band);
		for (size_t col = 0; col < c->nruns; col++) {
			const struct cell *x = &row->cells[c->order[col]];
			if (!x->rec || (logx && x->value <= 0))
				continue;
			int y = y0 + 8 + 14 * (int)col;
			const char *colour = palette[col % PB_ARRAY_SIZE(palette)];
			if (x->has_interval && (!logx || x->lo > 0))
				fprintf(f, "<line x1='%d' x2='%d' y1='%d' y2='%d' stroke='%s' "
					   "stroke-width='2'/>\n",
					XPOS(x->lo), XPOS(x->hi), y, y, colour);
			fprintf(f, "<circle cx='%d' cy='%d' r='4' fill='%s' stroke='%s'><title>%s: "
				   "%g</title></circle>\n",
				XPOS(x->value), y, col < PB_ARRAY_SIZE(palette) ? colour : "white",
				colour, c->runs[c->order[col]].name, x->value);
		}
	}
	for (int tick = 0; tick <= 4; tick++) {
		double at = a + (b - a) * tick / 4;
		int x = left + plotw * tick / 4;
		fprintf(f, "<line x1='%d' x2='%d' y1='%d' y2='%d' stroke='#999'/><text x='%d' "
			   "y='%d' font-size='11' text-anchor='middle'>%.4g</text>\n",
			x, x, height - 30, height - 24, x, height - 10, logx ? pow(10, at) : at);
	}
#undef XPOS
	fprintf(f, "</svg><figcaption>%s: ", t->experiment);
	esc(f, metric);
	fprintf(f, " (%s%s), each run's value with its 95 %% interval</figcaption></figure>\n",
		t->nrows ? t->rows[0].unit : "", logx ? ", log axis" : "");
}

static void html_table(FILE *f, const struct pb_compare *c, const struct table *t)
{
	fprintf(f, "<h2>");
	esc(f, t->experiment);
	fprintf(f, "</h2>\n");
	if (t->common[0]) {
		fprintf(f, "<pre>");
		esc(f, t->common);
		fprintf(f, "</pre>\n");
	}
	if (t->differs[0]) {
		fprintf(f, "<p>runs differ in ");
		esc(f, t->differs);
		fprintf(f, " (rows line up on the rest)</p>\n");
	}
	fprintf(f, "<div class='wide'><table><tr><th>facility</th><th>figure</th><th>settings</th>");
	for (size_t col = 0; col < c->nruns; col++) {
		fprintf(f, "<th>%s<br><small>", c->runs[c->order[col]].name);
		esc(f, c->runs[c->order[col]].label);
		fprintf(f, "</small></th>");
	}
	fprintf(f, "</tr>\n");
	for (size_t r = 0; r < t->nrows; r++) {
		const struct row *row = &t->rows[r];
		fprintf(f, "<tr><td>");
		esc(f, row->facility);
		fprintf(f, "</td><td>");
		esc(f, row->metric);
		fprintf(f, " (");
		esc(f, row->unit);
		fprintf(f, ")</td><td>");
		esc(f, row->rest);
		fprintf(f, "</td>");
		for (size_t col = 0; col < c->nruns; col++) {
			char cell[160];
			cell_text(c, row, col, cell, sizeof cell);
			fprintf(f, "<td>");
			esc(f, cell);
			fprintf(f, "</td>");
		}
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</table></div>\n");
	char done[16][64];
	size_t ndone = 0;
	for (size_t r = 0; r < t->nrows && ndone < PB_ARRAY_SIZE(done); r++) {
		size_t d = 0;
		while (d < ndone && strcmp(done[d], t->rows[r].metric))
			d++;
		if (d < ndone)
			continue;
		pb_format(done[ndone++], sizeof done[0], "%s", t->rows[r].metric);
		plot_svg(f, c, t, t->rows[r].metric);
	}
}

int pb_compare_write_html(const struct pb_compare *c, const char *path, struct pb_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>pesbench compare"
		   "</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:1em auto}"
		   "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;"
		   "padding:2px 6px;text-align:left}.wide{overflow-x:auto}</style></head><body>\n"
		   "<h1>pesbench compare</h1>\n<table><tr><th>run</th><th>machine</th><th>CPU"
		   "</th><th>kernel</th><th>results</th></tr>\n");
	for (size_t col = 0; col < c->nruns; col++) {
		const struct run *run = &c->runs[c->order[col]];
		fprintf(f, "<tr><td style='color:%s'>&#9679; %s</td><td>",
			palette[col % PB_ARRAY_SIZE(palette)], run->name);
		esc(f, run->label);
		fprintf(f, "%s</td><td>", run->complete ? "" : " (INCOMPLETE)");
		esc(f, run->group);
		fprintf(f, "</td><td>");
		esc(f, text_of(run->machine, "kernel"));
		fprintf(f, "</td><td>");
		esc(f, run->source);
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n<p>A cell is value ± half its 95 %% interval, then its delta to the "
		   "row's first run: * the delta exceeds both intervals, ? not judged. L samples "
		   "lost, M multiplexed.</p>\n");
	for (size_t col = 0; col < c->nruns; col++) {
		const struct run *run = &c->runs[c->order[col]];
		if (!json_array_size(run->scorecard))
			continue;
		fprintf(f, "<h3>scorecard of %s (", run->name);
		esc(f, run->label);
		fprintf(f, ")</h3><table>\n");
		size_t i;
		json_t *rec;
		json_array_foreach(run->scorecard, i, rec) {
			const json_t *e = json_object_get(rec, "entry");
			fprintf(f, "<tr><td>");
			esc(f, text_of(e, "facility"));
			fprintf(f, "</td><td>");
			esc(f, text_of(e, "verdict"));
			fprintf(f, "</td><td>");
			esc(f, *text_of(e, "summary") ? text_of(e, "summary") : text_of(e, "why"));
			fprintf(f, "</td></tr>\n");
		}
		fprintf(f, "</table>\n");
	}
	for (size_t k = 0; k < c->ntables; k++)
		html_table(f, c, &c->tables[k]);
	fprintf(f, "</body></html>\n");
	if (fclose(f)) {
		free(buf);
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	}
	int rc = pb_write_atomic(path, buf, len, err);
	free(buf);
	return rc;
}
