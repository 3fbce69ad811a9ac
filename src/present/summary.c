/* The end of a run is short and fits 100 columns: the scorecard first (one row per facility,
 * then its "use it for / not for" line), what went wrong, and where the details are. Every
 * per-point figure is one step away, in report.html and results.json. */
#include "present/summary.h"

#include "util/kit.h"
#include "present/plot.h"
#include "util/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct pb_rset *figure_of(const struct pb_rset *entry, const char *name)
{
	const struct pb_rset *f = pb_rset_get_set(entry, name);
	bool ok;
	pb_rset_get_number(f, "value", &ok);
	return ok ? f : NULL;
}

/* A time in ns and its 95 % half-width (ci < 0: none), in the unit that keeps it short. */
static void duration(char *buf, size_t len, double ns, double ci)
{
	double a = fabs(ns), scale = 1;
	const char *unit = "ns";
	if (a >= 1e6)
		scale = 1e6, unit = "ms";
	else if (a >= 1e3)
		scale = 1e3, unit = "µs";
	char v[PB_NUM_LEN], h[PB_NUM_LEN];
	if (ci >= 0)
		pb_format(buf, len, "%s ±%s %s", pb_num(v, "%.3g", ns / scale),
			  pb_num(h, "%.2g", ci / scale), unit);
	else
		pb_format(buf, len, "%s %s", pb_num(v, "%.3g", ns / scale), unit);
}

/* A cost figure as "16.6 ±0.18 µs", or "n.r., est. 265 ns" when not resolved. */
static void cost_text(char *buf, size_t len, const struct pb_rset *fig)
{
	double v = pb_rset_get_number(fig, "value", NULL);
	double ci = pb_rset_get_number(fig, "hi", NULL) - v;
	char a[48];
	bool resolved = pb_rset_is_true(fig, "resolved");
	duration(a, sizeof a, v, resolved ? ci : -1);
	pb_format(buf, len, resolved ? "%s" : "n.r., est. %s", a);
}

void pb_scorecard_cells(const struct pb_rset *e, struct pb_scorecard_cells *c)
{
	memset(c, 0, sizeof *c);
	const struct pb_rset *med = figure_of(e, "accuracy_median"),
			     *worst = figure_of(e, "accuracy_worst");
	if (med && worst) {
		double v = pb_rset_get_number(worst, "value", NULL);
		double hi = pb_rset_get_number(worst, "hi", NULL);
		if (pb_rset_is_true(worst, "resolved"))
			pb_format(c->counts, sizeof c->counts, "%.4g / %.4g ±%.2g %%",
				  pb_rset_get_number(med, "value", NULL), v, hi - v);
		else
			pb_format(c->counts, sizeof c->counts, "%.4g / %.4g %% (1 run)",
				  pb_rset_get_number(med, "value", NULL), v);
	}
	const char *ip = pb_rset_get_text(e, "ip");
	const struct pb_rset *bias = figure_of(e, "bias_max_deviation");
	if (bias)
		pb_format(c->attribution, sizeof c->attribution, "%s, bias %.2g pp", ip ? ip : "?",
			  pb_rset_get_number(bias, "value", NULL));
	else if (ip && pb_rset_is_true(e, "measured"))
		pb_format(c->attribution, sizeof c->attribution, "%s", ip);
	const struct pb_rset *skid = figure_of(e, "skid");
	if (skid) {
		char v[PB_NUM_LEN];
		pb_append(c->attribution, sizeof c->attribution, "%sskid %s",
			  *c->attribution ? ", " : "",
			  pb_num(v, "%.3g", pb_rset_get_number(skid, "value", NULL)));
	}
	const struct pb_rset *loss = figure_of(e, "loss"), *thr = figure_of(e, "throttles"),
			     *mux = figure_of(e, "running_share_min");
	if (loss) {
		double pct = pb_rset_get_number(loss, "value", NULL);
		char num[32];
		pb_format_number(num, sizeof num, "%.2g", pct);
		pb_format(c->loss, sizeof c->loss, pct > 0 ? "%s %%" : "0", num);
		double t = thr ? pb_rset_get_number(thr, "value", NULL) : 0;
		if (t > 0)
			pb_append(c->loss, sizeof c->loss, " thr %.0f", t);
		double share = mux ? pb_rset_get_number(mux, "value", NULL) : 100;
		if (share < 100)
			pb_append(c->loss, sizeof c->loss, " mux %.0f%%", share);
	}
	const struct pb_rset *cost = figure_of(e, "ns_per_sample"), *trap = figure_of(e, "ns_per_event");
	if (trap) {
		/* a trap on every event: its cost first, the sample's on top */
		char ev[48];
		cost_text(ev, sizeof ev, trap);
		pb_format(c->cost, sizeof c->cost, "%s/event", ev);
	}
	if (cost) {
		char a[48];
		cost_text(a, sizeof a, cost);
		pb_append(c->cost, sizeof c->cost, "%s%s", trap ? " + " : "", a);
	}
	/* a cost that moved while the suite ran: what it was when measured again */
	const struct pb_rset *later = figure_of(e, "ns_per_sample_later");
	if (later && cost && pb_rset_is_true(later, "moved")) {
		char a[48];
		cost_text(a, sizeof a, later);
		pb_append(c->cost, sizeof c->cost, "; %s later", a);
	}
	/* what the suite's programs paid, beside the register-only loop's cost */
	const struct pb_rset *programs = figure_of(e, "program_ns_per_sample");
	if (programs && cost && pb_rset_is_true(cost, "resolved")) {
		double lo = pb_rset_get_number(programs, "lo", NULL);
		double hi = pb_rset_get_number(programs, "hi", NULL);
		bool us = hi >= 1000;
		char a[PB_NUM_LEN], z[PB_NUM_LEN];
		pb_append(c->cost, sizeof c->cost, "; programs %s to %s %s",
			  pb_num(a, "%.3g", us ? lo / 1000 : lo), pb_num(z, "%.3g", us ? hi / 1000 : hi),
			  us ? "µs" : "ns");
	}
	const struct pb_rset *k1 = figure_of(e, "overhead_1khz"), *k10 = figure_of(e, "overhead_10khz");
	if (k1 && k10 && pb_rset_is_true(k1, "resolved")) {
		char at1[32], at10[32];
		pb_format_number(at1, sizeof at1, "%.2g", pb_rset_get_number(k1, "value", NULL));
		pb_format_number(at10, sizeof at10, "%.2g", pb_rset_get_number(k10, "value", NULL));
		pb_format(c->overhead, sizeof c->overhead, "%s / %s %%", at1, at10);
	}
}

static const char *dash(const char *s)
{
	return s && *s ? s : "-";
}

/* Whether a word stays on the line of the word before it: a figure with its label ("thr 12",
 * "bias 0.12"), its interval and its unit ("257 ±15 ns", "0.12 pp", "98 / 99 %"). */
static bool binds_to_previous(const char *word, size_t n)
{
	static const char *const units[] = {"pp", "ns", "µs", "ms", "s", "Hz", "kHz", "MHz"};
	if (strchr("0123456789±%/", *word))
		return true;
	for (size_t k = 0; k < PB_ARRAY_SIZE(units); k++)
		if (strlen(units[k]) == n && !strncmp(word, units[k], n))
			return true;
	return false;
}

/* Bytes of s up to the next space a line may break at. */
static size_t unbreakable(const char *s)
{
	size_t n = strcspn(s, " ");
	while (s[n] == ' ' && s[n + 1] && s[n + 1] != ' ' &&
	       binds_to_previous(s + n + 1, strcspn(s + n + 1, " ")))
		n += 1 + strcspn(s + n + 1, " ");
	return n;
}

/* The widest unbreakable run of s: a column narrower than it would have to cut it. */
static int longest_word(const char *s)
{
	int widest = 0;
	for (s += strspn(s, " "); *s; s += strspn(s, " ")) {
		size_t n = unbreakable(s);
		int w = pb_utf8_columns(s, n);
		widest = w > widest ? w : widest;
		s += n;
	}
	return widest;
}

/* The next line of *s wrapped to width columns: its bytes, *s moved past it. A run wider than
 * the column (never, with widths from table_widths) is taken whole. */
static size_t next_line(const char **s, int width)
{
	const char *start = *s + strspn(*s, " "), *end = start, *q = start;
	while (*q) {
		size_t n = unbreakable(q);
		if (end != start && pb_utf8_columns(start, (size_t)(q + n - start)) > width)
			break;
		end = q + n;
		q = end + strspn(end, " ");
	}
	*s = end;
	return (size_t)(end - start);
}

static int lines_of(const char *s, int width)
{
	int lines = 0;
	while (next_line(&s, width))
		lines++;
	return lines;
}

#define SCORECARD_COLUMNS 7

/* The lines rows take with these widths. */
static int table_lines(const char *const (*rows)[SCORECARD_COLUMNS], size_t nrows,
		       const int *widths)
{
	int total = 0;
	for (size_t r = 0; r < nrows; r++) {
		int tallest = 1;
		for (int k = 0; k < SCORECARD_COLUMNS; k++) {
			int l = lines_of(rows[r][k], widths[k]);
			tallest = l > tallest ? l : tallest;
		}
		total += tallest;
	}
	return total;
}

/* Every column as wide as its widest cell; while the row is wider than the terminal, a column
 * narrows by one, the one that adds the fewest lines (then the one with the most to give),
 * never below its longest unbreakable run: a cell wraps, it is never cut (cut to 6 characters,
 * a loss cell of "0.4 % thr 12 mux 50%" hid the throttling). */
static void table_widths(const char *const (*rows)[SCORECARD_COLUMNS], size_t nrows,
			 int *widths)
{
	int narrowest[SCORECARD_COLUMNS] = {0};
	for (size_t r = 0; r < nrows; r++)
		for (int k = 0; k < SCORECARD_COLUMNS; k++) {
			int w = pb_utf8_columns(rows[r][k], strlen(rows[r][k]));
			int word = longest_word(rows[r][k]);
			widths[k] = w > widths[k] ? w : widths[k];
			narrowest[k] = word > narrowest[k] ? word : narrowest[k];
		}
	for (;;) {
		int total = SCORECARD_COLUMNS - 1;
		for (int k = 0; k < SCORECARD_COLUMNS; k++)
			total += widths[k];
		if (total <= PB_TEXT_WIDTH)
			return;
		int best = -1, best_lines = 0;
		for (int k = 0; k < SCORECARD_COLUMNS; k++) {
			if (widths[k] <= narrowest[k])
				continue;
			widths[k]--;
			int lines = table_lines(rows, nrows, widths);
			widths[k]++;
			if (best < 0 || lines < best_lines ||
			    (lines == best_lines &&
			     widths[k] - narrowest[k] > widths[best] - narrowest[best]))
				best = k, best_lines = lines;
		}
		if (best < 0)
			return;
		widths[best]--;
	}
}

/* One row, each cell wrapped in its column, as many lines as its tallest cell; no trailing
 * spaces. */
static void table_row(FILE *out, const char *const *cells, const int *widths)
{
	const char *rest[SCORECARD_COLUMNS];
	memcpy(rest, cells, sizeof rest);
	bool more = true;
	while (more) {
		more = false;
		int pad = 0;
		for (int k = 0; k < SCORECARD_COLUMNS; k++) {
			size_t n = next_line(&rest[k], widths[k]);
			if (n) {
				fprintf(out, "%*s%.*s", pad, "", (int)n, rest[k] - n);
				pad = widths[k] - pb_utf8_columns(rest[k] - n, n) + 1;
			} else {
				pad += widths[k] + 1;
			}
			more |= rest[k][strspn(rest[k], " ")] != '\0';
		}
		fputc('\n', out);
	}
}

static void scorecard(FILE *out, const struct pb_rlist *card)
{
	size_t measured = 0;
	for (size_t i = 0; i < pb_rlist_size(card); i++)
		measured += pb_rset_is_true(pb_rlist_set_at(card, i), "measured");
	if (!measured) {
		fprintf(out, "No facility was measured: there is no scorecard.\n");
		return;
	}
	fprintf(out, "Scorecard: can each facility be trusted here, and what does a sample cost?\n");
	size_t n = pb_rlist_size(card);
	const char *(*rows)[SCORECARD_COLUMNS] = calloc(n + 1, sizeof *rows);
	struct pb_scorecard_cells *cells = calloc(n + 1, sizeof *cells);
	if (!rows || !cells) {
		fprintf(out, "(the scorecard's table: out of memory; every figure is in results.json)\n");
		n = 0;
	}
	const char *const heads[SCORECARD_COLUMNS] = {"facility", "self-test", "count median/worst",
						      "attribution", "lost", "cost",
						      "at 1/10 kHz"};
	size_t nrows = 0, unmeasured = 0;
	if (rows)
		memcpy(rows[nrows++], heads, sizeof heads);
	for (size_t i = 0; i < n; i++) {
		const struct pb_rset *e = pb_rlist_set_at(card, i);
		if (!pb_rset_is_true(e, "measured")) {
			unmeasured++;
			continue;
		}
		struct pb_scorecard_cells *c = &cells[nrows];
		pb_scorecard_cells(e, c);
		const char *row[SCORECARD_COLUMNS] = {
			dash(pb_rset_get_text(e, "facility")), dash(pb_rset_get_text(e, "verdict")),
			dash(c->counts), dash(c->attribution), dash(c->loss), dash(c->cost),
			dash(c->overhead)};
		memcpy(rows[nrows++], row, sizeof row);
	}
	int widths[SCORECARD_COLUMNS] = {0};
	table_widths(rows, nrows, widths);
	for (size_t r = 0; r < nrows; r++)
		table_row(out, rows[r], widths);
	free(rows);
	free(cells);
	fputc('\n', out);
	for (size_t i = 0; i < pb_rlist_size(card); i++) {
		const struct pb_rset *e = pb_rlist_set_at(card, i);
		if (!pb_rset_is_true(e, "measured"))
			continue;
		char first[48];
		pb_format(first, sizeof first, "%-9s ", pb_rset_get_text(e, "facility"));
		const char *summary = pb_rset_get_text(e, "summary");
		pb_text_wrapped(out, first, summary ? summary : "", 10);
	}
	if (unmeasured) {
		fprintf(out, "\nNot measured here:\n");
		for (size_t i = 0; i < pb_rlist_size(card); i++) {
			const struct pb_rset *e = pb_rlist_set_at(card, i);
			if (pb_rset_is_true(e, "measured"))
				continue;
			char first[48];
			pb_format(first, sizeof first, "%-9s ", pb_rset_get_text(e, "facility"));
			const char *why = pb_rset_get_text(e, "why");
			/* the first sentence is the reason; the rest (what to do) is in the report */
			char reason[240];
			pb_format(reason, sizeof reason, "%.*s", (int)strcspn(why ? why : "", ";"),
				  why ? why : "");
			pb_text_wrapped(out, first, reason, 10);
		}
	}
}

void pb_summary_problems(const struct pb_results *r, pb_problem_fn *said, void *ctx)
{
	struct {
		const char *what;
		size_t count;
		const struct pb_result_point *first;
	} kinds[] = {
		{"FAILED", 0, NULL},
		{"had runs with NO SAMPLES where samples were expected", 0, NULL},
		{"ran with the precise level LOWERED by the kernel", 0, NULL},
		{"DROPPED unparseable records", 0, NULL},
		{"left a pair a disturbance moved out of its cost fit", 0, NULL},
		{"left a round a disturbance moved out of its prediction", 0, NULL},
		{"left a round a disturbance moved out of its time overheads", 0, NULL},
	};
	for (size_t i = 0; i < r->npoints; i++) {
		const struct pb_result_point *p = r->points[i];
		/* the overhead experiment's rounds leave its time overheads, the cost experiment's
		 * its predictions */
		bool rounds_left_out = pb_rset_get_int(&p->metrics, "rounds_left_out") > 0;
		bool overhead = !strcmp(p->experiment, "overhead");
		bool has[] = {pb_rset_get(&p->params, "error") != NULL,
			      pb_rset_get_int(&p->metrics, "no_samples_runs") > 0,
			      pb_rset_get_int(&p->metrics, "precise_lowered_runs") > 0,
			      pb_rset_get_int(&p->metrics, "dropped_total") > 0,
			      pb_rset_get_int(&p->metrics, "pairs_left_out") > 0,
			      rounds_left_out && !overhead, rounds_left_out && overhead};
		for (size_t k = 0; k < PB_ARRAY_SIZE(kinds); k++) {
			if (!has[k])
				continue;
			if (!kinds[k].count++)
				kinds[k].first = p;
		}
	}
	for (size_t k = 0; k < PB_ARRAY_SIZE(kinds); k++) {
		const struct pb_result_point *p = kinds[k].first;
		if (!kinds[k].count)
			continue;
		char line[600];
		pb_format(line, sizeof line, "%zu point%s %s, e.g. %s on %s%s%s", kinds[k].count,
			  kinds[k].count == 1 ? "" : "s", kinds[k].what, p->experiment, p->facility,
			  *p->workload ? " with " : "", p->workload);
		const char *why = pb_rset_get_text(&p->params, "error");
		if (k == 0)
			pb_append(line, sizeof line, ": %s", why ? why : "(no reason given)");
		said(ctx, line);
	}
}

struct problem_lines {
	FILE *out;
	bool any;
};

/* after a blank line, wrapped */
static void print_problem(void *ctx, const char *line)
{
	struct problem_lines *pl = ctx;
	if (!pl->any)
		fputc('\n', pl->out);
	pl->any = true;
	pb_text_wrapped(pl->out, "", line, 2);
}

void pb_summary_print(FILE *out, const struct pb_results *results)
{
	char machine[256];
	pb_results_machine_label(results, machine, sizeof machine);
	pb_text_wrapped(out, "", machine, 2);
	char load[256];
	if (pb_results_load_label(results, load, sizeof load))
		pb_text_wrapped(out, "", load, 2);
	char speed[512];
	if (pb_results_speed_label(results, speed, sizeof speed))
		pb_text_wrapped(out, "", speed, 2);
	fputc('\n', out);
	scorecard(out, &results->scorecard);
	pb_summary_problems(results, print_problem, &(struct problem_lines){out, false});
	if (!pb_rset_is_true(&results->head, "complete"))
		fprintf(out, "\nINCOMPLETE: the suite was interrupted; the figures above are what was "
			     "measured.\n");
}
