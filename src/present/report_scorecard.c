/* The top of report.html: the scorecard, one row per facility with the cells the terminal
 * shows, its "use it for / not for" line, and every figure with its interval below, so the
 * page and the terminal never disagree. */
#include "present/report_parts.h"
#include "present/summary.h"

#include "scorecard/scorecard.h"
#include "util/text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const figure_labels[][2] = {
	{"accuracy_median", "count accuracy, median row"},
	{"accuracy_worst", "count accuracy, worst row"},
	{"bias_max_deviation", "largest deviation from an equal share (bias, coprime period)"},
	{"skid", "skid"},
	{"loss", "samples lost (default ring)"},
	{"throttles", "throttling events"},
	{"running_share_min", "least time on the counter"},
	{"wrong_level_samples", "samples at an excluded privilege level"},
	{"ns_per_sample", "cost per sample"},
	{"ns_per_event", "cost per event"},
	{"ns_per_counted_event", "cost of counting an event, sampled or not"},
	{"program_ns_per_sample", "cost per sample paid by the suite's programs"},
	{"ns_per_sample_later", "cost per sample, the cost workload measured again later"},
	{"overhead_1khz", "overhead at 1 kHz"},
	{"overhead_10khz", "overhead at 10 kHz"},
	{"sampling_rate_hz", "sampling rate whose cost stays inside the timing noise"},
};

static const char *label_of(const char *name)
{
	for (size_t i = 0; i < sizeof figure_labels / sizeof figure_labels[0]; i++)
		if (!strcmp(figure_labels[i][0], name))
			return figure_labels[i][1];
	return name;
}

static void cell(FILE *f, const char *s)
{
	fputs("<td>", f);
	if (s && *s)
		pb_html_esc(f, s);
	else
		fputs("&ndash;", f);
	fputs("</td>", f);
}

/* text with every "n.r., est. " spelled out */
static void unabbreviated(char *buf, size_t len, const char *text)
{
	static const char abbreviated[] = "n.r., est. ";
	*buf = '\0';
	for (const char *at; (at = strstr(text, abbreviated)); text = at + strlen(abbreviated))
		pb_append(buf, len, "%.*snot resolved; estimate ", (int)(at - text), text);
	pb_append(buf, len, "%s", text);
}

static void figures(FILE *f, const struct pb_rset *e)
{
	bool any = false;
	for (const char *const *name = pb_scorecard_figures; *name; name++) {
		const struct pb_rset *fig = pb_rset_get_set(e, *name);
		bool ok;
		double v = pb_rset_get_number(fig, "value", &ok);
		if (!ok)
			continue;
		fputs(any ? "<br>" : "<details><summary>every figure</summary>", f);
		any = true;
		bool has_lo, has_hi;
		double lo = pb_rset_get_number(fig, "lo", &has_lo);
		double hi = pb_rset_get_number(fig, "hi", &has_hi);
		const char *unit = pb_rset_get_text(fig, "unit");
		/* four digits, never an exponent (a cost of 13361 ns read "1.336e+04") */
		char a[PB_NUM_LEN], b[PB_NUM_LEN];
		fprintf(f, "%s: %s", label_of(*name), pb_num(a, "%.4g", v));
		if (has_lo && has_hi && isfinite(lo) && isfinite(hi) && (lo != v || hi != v))
			fprintf(f, " [%s, %s]", pb_num(a, "%.4g", lo), pb_num(b, "%.4g", hi));
		else if (!has_lo || !has_hi)
			fputs(" (no interval)", f);
		fputs(" ", f);
		pb_html_esc(f, unit);
		if (!pb_rset_is_true(fig, "resolved"))
			fputs(" <b>(not resolved)</b>", f);
		const char *note = pb_rset_get_text(fig, "note");
		if (note) {
			fputs(" &mdash; ", f);
			pb_html_esc(f, note);
		}
	}
	if (any)
		fputs("</details>", f);
}

void pb_report_scorecard(FILE *f, const struct pb_results *doc)
{
	fputs("<h2 id=\"scorecard\">Scorecard</h2>\n", f);
	if (!pb_rlist_size(&doc->scorecard)) {
		fputs("<p>This results file holds no scorecard.</p>\n", f);
		return;
	}
	fputs("<p>Per facility on this machine: can it be trusted, for what, and what a sample "
	      "costs. How each verdict is reached: docs/scorecard.md.</p>\n"
	      "<div class=\"wide\"><table class=\"scorecard\">\n<tr><th>facility</th>"
	      "<th>self-test</th><th>counts: median / worst row (%)</th><th>attribution</th>"
	      "<th>lost</th><th>cost</th><th>overhead at 1 / 10 kHz</th>"
	      "<th>use it for / not for</th></tr>\n",
	      f);
	for (size_t i = 0; i < pb_rlist_size(&doc->scorecard); i++) {
		const struct pb_rset *e = pb_rlist_set_at(&doc->scorecard, i);
		bool measured = pb_rset_is_true(e, "measured");
		fputs(measured ? "<tr>" : "<tr class=\"bad\">", f);
		cell(f, pb_rset_get_text(e, "facility"));
		cell(f, pb_rset_get_text(e, "verdict"));
		if (!measured) {
			fputs("<td colspan=\"6\">not measured here: ", f);
			pb_html_esc(f, pb_rset_get_text(e, "why"));
			fputs("</td></tr>\n", f);
			continue;
		}
		struct pb_scorecard_cells c;
		pb_scorecard_cells(e, &c);
		cell(f, c.counts);
		cell(f, c.attribution);
		cell(f, c.loss);
		/* the page has room for the words the terminal abbreviates */
		char cost[2 * sizeof c.cost];
		unabbreviated(cost, sizeof cost, c.cost);
		cell(f, cost);
		cell(f, c.overhead);
		fputs("<td class=\"verdict\">", f);
		pb_html_esc(f, pb_rset_get_text(e, "summary"));
		figures(f, e);
		fputs("</td></tr>\n", f);
	}
	fputs("</table></div>\n", f);
}
