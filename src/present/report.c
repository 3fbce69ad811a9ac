/* The report holds no figure the results do not: it is results.json laid out for a reader,
 * with the same rows as the terminal summary, so the two never disagree. It is one file with
 * its style inline; the images sit next to it in plots/. */
#include "present/report.h"

#include "io/results.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static double num(json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* A URL path component: plot names are [A-Za-z0-9._-] already; anything else is encoded. */
static void url(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    ch == '-' || ch == '_' || ch == '.')
			fputc(ch, f);
		else
			fprintf(f, "%%%02X", ch);
	}
}

static void scalar(FILE *f, json_t *v)
{
	if (json_is_string(v))
		esc(f, json_string_value(v));
	else if (json_is_integer(v))
		fprintf(f, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		fprintf(f, "%.6g", json_real_value(v));
	else if (json_is_boolean(v))
		fputs(json_is_true(v) ? "yes" : "no", f);
	else if (json_is_null(v) || !v)
		fputs("&ndash;", f);
	else if (json_is_array(v)) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e) {
			fputs(i ? ", " : "", f);
			if (json_is_object(e) && json_object_get(e, "name"))
				esc(f, str(e, "name"));
			else
				scalar(f, e);
		}
	}
}

static const char style[] =
	"body{font-family:'DejaVu Sans',Arial,sans-serif;margin:1.5em auto;max-width:1100px;"
	"color:#222;padding:0 1em}"
	"h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;margin-top:1.8em}"
	".meta{color:#555}.warn{background:#fff3cd;border:1px solid #e0c060;padding:.5em}"
	"table{border-collapse:collapse;margin:.5em 0;font-size:.88em}"
	"th,td{border:1px solid #ccc;padding:.2em .45em;text-align:left;vertical-align:top}"
	"th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums;"
	"white-space:nowrap}.wide{overflow-x:auto}"
	"tr.bad td{color:#8a1c1c}figure{margin:1em 0}"
	"figure img{max-width:100%;border:1px solid #ddd}figcaption{font-size:.9em;color:#444}"
	"nav a{margin-right:.8em}code{background:#f4f4f4}td.notes{min-width:22em}";

static void machine_section(FILE *f, json_t *results)
{
	json_t *doc = json_object_get(results, "machine");
	json_t *m = json_object_get(doc, "machine") ? json_object_get(doc, "machine") : doc;
	fputs("<h2 id=\"machine\">Machine</h2>\n<table>\n", f);
	const char *k;
	json_t *v;
	json_object_foreach(m, k, v) {
		if (json_is_object(v))
			continue;
		fputs("<tr><th>", f);
		esc(f, k);
		fputs("</th><td>", f);
		scalar(f, v);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	json_t *facilities = json_object_get(doc, "facilities");
	if (json_array_size(facilities)) {
		fputs("<table>\n<tr><th>facility</th><th>available</th><th>IP</th><th>what was "
		      "found, or why not</th></tr>\n",
		      f);
		size_t i;
		json_t *fa;
		json_array_foreach(facilities, i, fa) {
			bool ok = json_is_true(json_object_get(fa, "available"));
			fprintf(f, "<tr%s><td>", ok ? "" : " class=\"bad\"");
			esc(f, str(fa, "usage")[0] ? str(fa, "usage") : str(fa, "name"));
			fprintf(f, "</td><td>%s</td><td>", ok ? "yes" : "no");
			esc(f, str(fa, "ip"));
			fputs("</td><td>", f);
			esc(f, ok ? str(fa, "detail") : str(fa, "reason"));
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
}

static void skipped_section(FILE *f, json_t *results)
{
	json_t *skipped = json_object_get(results, "skipped");
	fputs("<h2 id=\"skipped\">Not run here</h2>\n", f);
	if (!json_array_size(skipped)) {
		fputs("<p>Every chosen facility ran.</p>\n", f);
		return;
	}
	fputs("<table>\n<tr><th>facility</th><th>reason</th></tr>\n", f);
	size_t i;
	json_t *s;
	json_array_foreach(skipped, i, s) {
		fputs("<tr><td>", f);
		esc(f, str(s, "facility"));
		fputs("</td><td>", f);
		esc(f, str(s, "reason"));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The terminal summary's notes column, for the same points. */
static void notes(FILE *f, json_t *p)
{
	json_t *m = json_object_get(p, "metrics");
	json_t *v;
	if ((v = json_object_get(m, "max_deviation")))
		fprintf(f, "max deviation %.2f pp (%s) ", json_number_value(v),
			str(m, "attribution"));
	else if ((v = json_object_get(m, "wrong_level_by_flag")))
		fprintf(f, "%s: wrong level %lld by flag / %lld by IP of %lld ", str(p, "levels"),
			(long long)json_integer_value(v),
			(long long)json_integer_value(json_object_get(m, "wrong_level_by_ip")),
			(long long)json_integer_value(json_object_get(m, "samples_total")));
	else if ((v = json_object_get(p, "events_opened_together")))
		fprintf(f, "%lld events, %lld scheduled ", (long long)json_integer_value(v),
			(long long)json_integer_value(json_object_get(p, "events_scheduled")));
	else if ((v = json_object_get(p, "period_kind")))
		fprintf(f, "%s period ", json_string_value(v));
	if (json_object_get(p, "variant"))
		esc(f, str(p, "variant"));
	if (*str(p, "note")) {
		fputs(" (", f);
		esc(f, str(p, "note"));
		fputs(")", f);
	}
	/* an experiment's conclusion over its points (e.g. the shadow length) */
	const char *k;
	json_object_foreach(json_object_get(p, "summary"), k, v) {
		if (json_is_object(v) || json_is_array(v) || !strcmp(k, "note"))
			continue;
		fputs("<br>", f);
		esc(f, k);
		fputs(": ", f);
		scalar(f, v);
	}
}

static void point_row(FILE *f, json_t *p)
{
	json_t *na = json_object_get(p, "not_applicable"), *error = json_object_get(p, "error");
	const char *wl = str(p, "workload");
	fputs(na || error ? "<tr class=\"bad\"><td>" : "<tr><td>", f);
	esc(f, str(p, "facility"));
	fputs("</td><td>", f);
	esc(f, *wl ? wl : "-");
	fputs("</td>", f);
	if ((na || error) && !json_array_size(json_object_get(p, "runs"))) {
		fprintf(f, "<td colspan=\"11\">%s: ", na ? "not applicable" : "ERROR");
		esc(f, json_string_value(na ? na : error));
		fputs("</td></tr>\n", f);
		return;
	}
	if (!json_array_size(json_object_get(p, "runs"))) {
		/* a point that concludes over the others: no figures of its own */
		fputs("<td colspan=\"11\">", f);
		notes(f, p);
		fputs("</td></tr>\n", f);
		return;
	}
	json_t *m = json_object_get(p, "metrics");
	json_t *acc = json_object_get(m, "accuracy"), *ratio = json_object_get(m, "running_ratio");
	fprintf(f, "<td class=\"n\">%lld</td><td class=\"n\">%lld</td><td class=\"n\">%zu</td>",
		(long long)json_integer_value(json_object_get(p, "period")),
		(long long)json_integer_value(json_object_get(p, "threads")),
		json_array_size(json_object_get(p, "runs")));
	if (acc)
		fprintf(f, "<td class=\"n\">%.3f</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f"
			   "&ndash;%.3f</td>",
			num(acc, "mean"), num(acc, "stdev"), num(acc, "min"), num(acc, "max"));
	else
		fputs("<td>-</td><td>-</td><td>-</td>", f);
	fprintf(f, "<td class=\"n\">%lld</td><td class=\"n\">%lld</td><td class=\"n\">%.3f</td>"
		   "<td>%s</td><td class=\"notes\">",
		(long long)json_integer_value(json_object_get(m, "lost_total")),
		(long long)json_integer_value(json_object_get(m, "throttles_total")),
		ratio ? num(ratio, "min") : 1.0,
		json_is_true(json_object_get(m, "multiplexed")) ? "yes" : "no");
	notes(f, p);
	if (error) {
		fputs(" ERROR: ", f);
		esc(f, json_string_value(error));
	}
	fputs("</td></tr>\n", f);
}

static void shares_table(FILE *f, json_t *points, const char *experiment)
{
	bool header = false;
	size_t i;
	json_t *p;
	json_array_foreach(points, i, p) {
		json_t *shares = json_object_get(json_object_get(p, "metrics"), "shares");
		if (!shares || strcmp(str(p, "experiment"), experiment))
			continue;
		if (!header) {
			fputs("<h3>Share of samples per event instruction</h3>\n<p>Ideal: an equal "
			      "share on each. &lsquo;At the IP&rsquo; counts a sample on the instruction "
			      "its IP names; &lsquo;IP+1-corrected&rsquo; on the one before it.</p>\n"
			      "<table>\n<tr><th>facility</th><th>workload</th><th>period</th>"
			      "<th>label</th><th>instruction</th><th>at the IP (%)</th>"
			      "<th>IP+1-corrected (%)</th></tr>\n",
			      f);
			header = true;
		}
		size_t j;
		json_t *s;
		json_array_foreach(shares, j, s) {
			fputs("<tr><td>", f);
			esc(f, str(p, "facility"));
			fputs("</td><td>", f);
			esc(f, str(p, "workload"));
			fprintf(f, "</td><td class=\"n\">%lld</td><td>",
				(long long)json_integer_value(json_object_get(p, "period")));
			esc(f, str(s, "label"));
			fputs("</td><td><code>", f);
			esc(f, str(s, "insn"));
			fprintf(f, "</code></td><td class=\"n\">%.2f</td><td class=\"n\">%.2f</td></tr>\n",
				num(s, "share_at_ip"), num(s, "share_before_ip"));
		}
	}
	if (header)
		fputs("</table>\n", f);
}

static void figures(FILE *f, const struct pb_plot_set *plots, const char *experiment)
{
	if (!plots)
		return;
	for (size_t i = 0; i < plots->n; i++) {
		const struct pb_plot *pl = &plots->plots[i];
		if (strcmp(pl->experiment, experiment))
			continue;
		fputs("<figure>\n", f);
		if (pl->rendered) {
			fputs("<img src=\"plots/", f);
			url(f, pl->name);
			fputs(".png\" alt=\"", f);
			esc(f, pl->title);
			fputs("\">\n", f);
		}
		fputs("<figcaption><b>", f);
		esc(f, pl->title);
		fputs(".</b> ", f);
		esc(f, pl->caption);
		if (pl->rendered) {
			fputs(" <a href=\"plots/", f);
			url(f, pl->name);
			fputs(".svg\">SVG</a>", f);
		} else {
			fputs(" (not drawn)", f);
		}
		fputs(" &middot; <a href=\"plots/", f);
		url(f, pl->name);
		fputs(".dat\">data</a> &middot; <a href=\"plots/", f);
		url(f, pl->name);
		fputs(".gp\">gnuplot script</a></figcaption>\n</figure>\n", f);
	}
}

static size_t experiments_of(json_t *points, const char **names, size_t max)
{
	size_t n = 0, i;
	json_t *p;
	json_array_foreach(points, i, p) {
		const char *e = str(p, "experiment");
		bool seen = false;
		for (size_t j = 0; j < n && !seen; j++)
			seen = !strcmp(names[j], e);
		if (!seen && n < max)
			names[n++] = e;
	}
	return n;
}

char *pb_report_html(const struct pb_results *doc, const struct pb_plot_set *plots,
		     pb_summary_fn *summary, size_t *len)
{
	char *text = NULL;
	*len = 0;
	FILE *f = open_memstream(&text, len);
	if (!f)
		return NULL;
	json_t *results = pb_results_json(doc);
	char machine[256];
	pb_results_machine_label(doc, machine, sizeof machine);
	json_t *points = json_object_get(results, "points");
	const char *names[64];
	size_t nexp = experiments_of(points, names, 64);

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
	      "pesbench results: ",
	      f);
	esc(f, machine);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>pesbench results</h1>\n"
		   "<p class=\"meta\">",
		style);
	esc(f, machine);
	fputs("<br>started ", f);
	esc(f, str(results, "started"));
	fputs(", finished ", f);
	esc(f, str(results, "finished"));
	if (json_is_number(json_object_get(results, "elapsed_s")))
		fprintf(f, " (%.1f s)", num(results, "elapsed_s"));
	fputs("; pesbench ", f);
	esc(f, str(results, "pesbench_version"));
	fputs("<br>command: <code>pesbench", f);
	size_t i;
	json_t *a;
	json_array_foreach(json_object_get(results, "command"), i, a) {
		fputc(' ', f);
		esc(f, json_string_value(a));
	}
	fputs("</code></p>\n", f);
	if (!json_is_true(json_object_get(results, "complete")))
		fputs("<p class=\"warn\">INCOMPLETE: the suite was interrupted; the tables show what "
		      "was measured.</p>\n",
		      f);
	if (plots && plots->warning[0]) {
		fputs("<p class=\"warn\">", f);
		esc(f, plots->warning);
		fputs("</p>\n", f);
	}
	fputs("<nav><a href=\"#machine\">machine</a><a href=\"#skipped\">not run here</a>", f);
	for (size_t e = 0; e < nexp; e++) {
		fputs("<a href=\"#exp-", f);
		url(f, names[e]);
		fputs("\">", f);
		esc(f, names[e]);
		fputs("</a>", f);
	}
	fputs("<a href=\"results.json\">results.json</a><a href=\"results.csv\">results.csv</a>"
	      "</nav>\n",
	      f);

	machine_section(f, results);
	skipped_section(f, results);
	for (size_t e = 0; e < nexp; e++) {
		fputs("<h2 id=\"exp-", f);
		url(f, names[e]);
		fputs("\">", f);
		esc(f, names[e]);
		fputs("</h2>\n", f);
		const char *about = summary ? summary(names[e]) : NULL;
		if (about) {
			fputs("<p>", f);
			esc(f, about);
			fputs(".</p>\n", f);
		}
		fputs("<div class=\"wide\"><table>\n<tr><th>facility</th><th>workload</th>"
		      "<th>period</th><th>threads</th><th>runs</th><th>accuracy (%)</th><th>stdev</th><th>min&ndash;max</th>"
		      "<th>lost</th><th>throttles</th><th>run/enabled (min)</th><th>multiplexed</th>"
		      "<th>notes</th></tr>\n",
		      f);
		json_t *p;
		json_array_foreach(points, i, p) if (!strcmp(str(p, "experiment"), names[e]))
			point_row(f, p);
		fputs("</table></div>\n", f);
		shares_table(f, points, names[e]);
		figures(f, plots, names[e]);
	}
	fputs("</body>\n</html>\n", f);
	json_decref(results);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

int pb_report_write(const struct pb_results *results, const char *dir, const struct pb_plot_set *plots,
		    pb_summary_fn *summary, struct pb_error *err)
{
	size_t len;
	char *text = pb_report_html(results, plots, summary, &len);
	if (!text)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "cannot build the report: out of memory");
	char path[4200];
	snprintf(path, sizeof path, "%s/report.html", dir);
	int rc = pb_write_atomic(path, text, len, err);
	free(text);
	return rc;
}

int pb_report_folder(const struct pb_results *results, const char *dir, bool no_plots, pb_summary_fn *summary,
		     FILE *warn, size_t *nplots, struct pb_error *err)
{
	struct pb_plot_set set;
	if (pb_plots_make(results, dir, !no_plots, summary, &set, err))
		return -1;
	if (set.warning[0] && warn)
		fprintf(warn, "pesbench: warning: %s\n", set.warning);
	int rc = pb_report_write(results, dir, &set, summary, err);
	if (nplots)
		*nplots = set.n;
	pb_plot_set_free(&set);
	return rc;
}

void pb_results_locate(const char *arg, char *json_path, size_t json_len, char *dir,
		       size_t dir_len)
{
	struct stat st;
	if (!stat(arg, &st) && S_ISDIR(st.st_mode)) {
		snprintf(json_path, json_len, "%s/results.json", arg);
		snprintf(dir, dir_len, "%s", arg);
		return;
	}
	snprintf(json_path, json_len, "%s", arg);
	const char *slash = strrchr(arg, '/');
	if (!slash)
		snprintf(dir, dir_len, ".");
	else if (slash == arg)
		snprintf(dir, dir_len, "/");
	else
		snprintf(dir, dir_len, "%.*s", (int)(slash - arg), arg);
}
