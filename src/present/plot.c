/* Drawing: a figure becomes NAME.dat (one block per series: x, mean, lowest and highest run)
 * and NAME.gp (a gnuplot script that draws NAME.png with pngcairo, or png where cairo is
 * missing, and NAME.svg), and gnuplot is run on it in DIR/plots. What is plotted, and the
 * driver over a results document, are in plot_choose.c, plot_special.c and plot_driver.c,
 * which call this file and never the other way round. */
#include "present/plot.h"

#include "io/results.h"
#include "machine/load.h"
#include "present/plot_figure.h"
#include "util/kit.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---------- small helpers ---------- */

static const char *text_of(const struct pb_rset *s, const char *name)
{
	const char *t = pb_rset_get_text(s, name);
	return t ? t : "";
}

void pb_results_machine_label(const struct pb_results *results, char *buf, size_t len)
{
	const struct pb_rset *m = &results->machine;
	/* results.machine is `pesbench probe`'s document: {schema, machine{...}, facilities} */
	if (pb_rset_get_set(m, "machine"))
		m = pb_rset_get_set(m, "machine");
	const char *vendor = text_of(m, "cpu_vendor"), *model = text_of(m, "cpu_model_name");
	const char *kernel = text_of(m, "kernel");
	if (!*vendor && !*model && !*kernel) {
		pb_format(buf, len, "unknown machine");
		return;
	}
	pb_format(buf, len, "%s%s%s%s%s%s", vendor, *vendor && *model ? " " : "", model,
		  *kernel ? ", kernel " : "", kernel,
		  pb_rset_is_true(m, "hypervisor") ? " (virtual machine)" : "");
}

/* A number of the document's top level, after its points (where a suite writes its closing
 * figures) or before them (a document written by another tool). */
static double top_number(const struct pb_results *r, const char *name, bool *known)
{
	const struct pb_rset *where = pb_rset_get(&r->tail, name) ? &r->tail : &r->head;
	return pb_rset_get_number(where, name, known);
}

bool pb_results_load_label(const struct pb_results *results, char *buf, size_t len)
{
	bool known = false;
	struct pb_machine_load load = {
		.other_cpus = top_number(results, "other_load_cpus", &known),
		.other_cpus_ci95 = top_number(results, "other_load_cpus_ci95", NULL),
		.steal_pct = top_number(results, "steal_pct", NULL),
		.steal_ci95_pp = top_number(results, "steal_ci95_pp", NULL),
		.cpus = top_number(results, "load_cpus", NULL),
	};
	buf[0] = '\0';
	if (!known)
		return false;
	char text[256];
	pb_machine_load_text(&load, text, sizeof text);
	pb_format(buf, len, "Beside the suite, %s.", text);
	return true;
}

bool pb_results_speed_label(const struct pb_results *results, char *buf, size_t len)
{
	const char *name = "cpu_speed_note";
	const char *note = pb_rset_get_text(pb_rset_get(&results->tail, name) ? &results->tail
						  : &results->head, name);
	buf[0] = '\0';
	if (!note || !note[0])
		return false;
	pb_format(buf, len, "%s", note);
	return true;
}

static void sanitize(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '.'))
			*s = '_';
}

/* A gnuplot double-quoted string: backslash and quote escaped, newline as \n. */
static void gp_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
	fputc('"', f);
}

struct pb_figure *pb_fig_new(struct pb_plot_ctx *c, const char *experiment, const char *stem)
{
	(void)c;
	struct pb_figure *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	pb_format(f->experiment, sizeof f->experiment, "%s", experiment);
	pb_format(f->name, sizeof f->name, "%s", stem);
	sanitize(f->name);
	return f;
}

static void fig_free(struct pb_figure *f)
{
	if (!f)
		return;
	for (size_t s = 0; s < f->nseries; s++)
		free(f->series[s].d);
	free(f);
}

int pb_fig_series(struct pb_figure *f, const char *title)
{
	for (size_t s = 0; s < f->nseries; s++)
		if (!strcmp(f->series[s].title, title))
			return (int)s;
	if (f->nseries == PB_PLOT_MAX_SERIES)
		return -1;
	pb_format(f->series[f->nseries].title, sizeof f->series[0].title, "%s", title);
	f->series[f->nseries].colour = (int)f->nseries;
	return (int)f->nseries++;
}

int pb_fig_cat(struct pb_figure *f, const char *label)
{
	for (size_t i = 0; i < f->ncats; i++)
		if (!strcmp(f->cats[i], label))
			return (int)i;
	if (f->ncats == PB_PLOT_MAX_CATS)
		return -1;
	pb_format(f->cats[f->ncats], sizeof f->cats[0], "%s", label);
	return (int)f->ncats++;
}

void pb_fig_add(struct pb_figure *f, int s, double x, double y, double lo, double hi,
		    unsigned runs)
{
	if (s < 0 || !isfinite(y))
		return;
	struct pb_plot_series *se = &f->series[s];
	if (se->n == se->cap) {
		size_t cap = se->cap ? 2 * se->cap : 16;
		struct pb_plot_datum *d = realloc(se->d, cap * sizeof *d);
		if (!d)
			return;
		se->d = d;
		se->cap = cap;
	}
	se->d[se->n++] = (struct pb_plot_datum){x, y, lo, hi, runs >= 2};
	if (runs > f->max_runs)
		f->max_runs = runs;
}

void pb_spread_add(struct pb_spread *s, double v)
{
	if (!isfinite(v))
		return;
	if (!s->n || v < s->min)
		s->min = v;
	if (!s->n || v > s->max)
		s->max = v;
	s->mean = (s->mean * s->n + v) / (s->n + 1);
	s->n++;
}

/* A point's metric: a summary object {mean, min, max, n}, or a number whose per-run values
 * (runs[].NAME) give the spread. */
/* ---------- writing and drawing ---------- */

const char *pb_gnuplot_find(char *buf, size_t len)
{
	const char *want = getenv("PB_GNUPLOT");
	if (!want || !*want)
		want = "gnuplot";
	if (strchr(want, '/'))
		return access(want, X_OK) ? NULL : want;
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	for (const char *p = path; *p;) {
		size_t l = strcspn(p, ":");
		pb_format(buf, len, "%.*s/%s", (int)l, p, want);
		if (l && !access(buf, X_OK))
			return buf;
		p += l + (p[l] == ':');
	}
	return NULL;
}

static bool file_nonempty(const char *dir, const char *name, const char *ext)
{
	char path[4400];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
	return !stat(path, &st) && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* Runs `gnuplot NAME.gp` in the plots folder; its messages go to NAME.log, kept on failure. */
static bool run_gnuplot(struct pb_plot_ctx *c, const char *name)
{
	char log_path[4400], script[160];
	snprintf(log_path, sizeof log_path, "%s/%s.log", c->plots_dir, name);
	snprintf(script, sizeof script, "%s.gp", name);
	pid_t pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		int out = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (in < 0 || out < 0 || chdir(c->plots_dir))
			_exit(127);
		dup2(in, STDIN_FILENO);
		dup2(out, STDOUT_FILENO);
		dup2(out, STDERR_FILENO);
		execl(c->gnuplot, "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		  file_nonempty(c->plots_dir, name, "png") && file_nonempty(c->plots_dir, name, "svg");
	if (ok) {
		unlink(log_path);
	} else if (!c->failed++) {
		FILE *f = fopen(log_path, "r");
		char line[200] = "no message";
		/* gnuplot's last non-empty line names the error */
		char buf[200];
		while (f && fgets(buf, sizeof buf, f))
			if (buf[0] != '\n')
				pb_format(line, sizeof line, "%s", buf);
		if (f)
			fclose(f);
		line[strcspn(line, "\n")] = '\0';
		pb_format(c->first_failure, sizeof c->first_failure, "%s: %s (see %s)", name, line,
			  log_path);
	}
	return ok;
}

static int write_text(struct pb_plot_ctx *c, const char *name, const char *ext, char *text,
		      size_t len)
{
	char path[4400];
	snprintf(path, sizeof path, "%s/%s.%s", c->plots_dir, name, ext);
	int rc = pb_write_atomic(path, text, len, c->err);
	free(text);
	return rc;
}

static double x_of(const struct pb_figure *f, size_t s, const struct pb_plot_datum *d)
{
	if (!(f->categorical || f->dodge) || f->nseries < 2)
		return d->x;
	/* side by side within a category, so the bars do not hide each other */
	double step = 0.6 / (double)f->nseries;
	if (step > 0.15)
		step = 0.15;
	return d->x + ((double)s - (double)(f->nseries - 1) / 2.0) * step;
}

/* As many colours as a figure may have series, each dark enough to read on white and apart
 * from the others in hue or lightness (no yellow, no pale tint). */
static const char *const palette[PB_PLOT_COLOURS] = {
	"#1f4e9c", "#c0392b", "#1e8449", "#7d3c98", "#d35400", "#117a8b",
	"#8b5a2b", "#c2185b", "#4d4d4d", "#5b7a00", "#0b2f5c", "#9c6b00",
};

/* The smallest positive and the largest y a figure shows (bars included), and whether any is
 * <= 0. */
static void y_span(const struct pb_figure *f, double *lo, double *hi, bool *nonpositive)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	*nonpositive = false;
	for (size_t s = 0; s < f->nseries; s++)
		for (size_t i = 0; i < f->series[s].n; i++) {
			const struct pb_plot_datum *d = &f->series[s].d[i];
			double v[3] = {d->y, d->bars ? d->lo : d->y, d->bars ? d->hi : d->y};
			for (size_t k = 0; k < 3; k++) {
				/* a bar reaching 0 or below is cut by a log axis; a point is not */
				if (k && v[k] <= 0)
					continue;
				*nonpositive |= v[k] <= 0;
				if (v[k] > 0)
					*lo = fmin(*lo, v[k]);
				*hi = fmax(*hi, v[k]);
			}
		}
}

/* Positive values spanning more than 100x read on a log axis: on a linear one the small ones
 * sit on zero. A value at or below 0 cannot be on it; the caption names each such point
 * (nonpositive_points). */
static bool wants_log_y(const struct pb_figure *f)
{
	double lo, hi;
	bool nonpositive;
	y_span(f, &lo, &hi, &nonpositive);
	return !f->fixed_y && isfinite(lo) && hi / lo > 100;
}

/* "; series: value" for every point of f at or below 0, appended to buf. */
static size_t nonpositive_points(const struct pb_figure *f, char *buf, size_t len)
{
	size_t count = 0;
	for (size_t s = 0; s < f->nseries; s++)
		for (size_t i = 0; i < f->series[s].n; i++) {
			const struct pb_plot_datum *d = &f->series[s].d[i];
			if (d->y > 0)
				continue;
			char y[PB_NUM_LEN];
			pb_append(buf, len, "%s%s: %s", count ? "; " : " ", f->series[s].title,
				  pb_num(y, "%.4g", d->y));
			count++;
		}
	return count;
}

/* Where category labels of this length and count go without touching each other: level when
 * the longest fits its share of the width with a gap, slanted when one slanted line's height
 * fits between two labels (a 13 px line at 25°: 31 px apart), else upright. In a plot area of
 * about 880 px, at most 8 px a character of DejaVu Sans 10 (measured on these plots: "m"
 * and "=" are the widest). */
static const char *category_tics(size_t longest, size_t ncats)
{
	double spacing = 880.0 / (double)(ncats ? ncats : 1);
	if ((double)longest * 8 + 10 <= spacing)
		return "set xtics (";
	if (spacing >= 31)
		return "set xtics rotate by -25 left (";
	return "set xtics rotate by 90 right (";
}

static void emit_script(FILE *g, const struct pb_figure *f, const char *machine)
{
	fprintf(g, "# %s — drawn by pesbench from results.json; redraw with `gnuplot %s.gp` in "
		   "this folder.\n# Data: %s.dat, one block per series: x, mean, run minimum, run "
		   "maximum.\n",
		f->title, f->name, f->name);
	fprintf(g, "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
		   "  set terminal pngcairo size 1000,620 noenhanced font \"DejaVu Sans,10\"\n"
		   "} else {\n"
		   "  set terminal png size 1000,620 noenhanced\n"
		   "}\n");
	fprintf(g, "set output '%s.png'\n", f->name);
	char title[640];
	const char *runs_note = f->max_runs >= 2 ? "points: mean over runs; bars: lowest to highest run"
						 : "one value per point (no repeated runs)";
	pb_format(title, sizeof title, "%s\n%s; %s", f->title, machine,
		  f->runs_note[0] ? f->runs_note : runs_note);
	fputs("set title ", g);
	gp_string(g, title);
	fputs("\nset xlabel ", g);
	gp_string(g, f->xlabel);
	fputs("\nset ylabel ", g);
	gp_string(g, f->ylabel);
	fputs("\nset grid\nset key below\nset border 3\nset tics nomirror\n", g);
	if (f->categorical) {
		size_t longest = 0;
		for (size_t i = 0; i < f->ncats; i++)
			if (strlen(f->cats[i]) > longest)
				longest = strlen(f->cats[i]);
		fprintf(g, "set xrange [-0.5:%g]\n", (double)f->ncats - 0.5);
		fputs(category_tics(longest, f->ncats), g);
		for (size_t i = 0; i < f->ncats; i++) {
			fputs(i ? ", " : "", g);
			gp_string(g, f->cats[i]);
			fprintf(g, " %zu", i);
		}
		fputs(")\n", g);
	} else if (f->logx) {
		fputs("set logscale x 10\nset format x \"%g\"\n", g);
		/* the data's own span, not the decades around it (3 periods from 72 to 570 sat in
		 * the middle third of 10 to 1000), a tic at each x when there are few */
		double xs[12], lo = INFINITY, hi = -INFINITY;
		size_t nx = 0;
		bool few = true;
		for (size_t s = 0; s < f->nseries; s++)
			for (size_t i = 0; i < f->series[s].n; i++) {
				double x = f->series[s].d[i].x;
				lo = x < lo ? x : lo;
				hi = x > hi ? x : hi;
				bool seen = false;
				for (size_t k = 0; k < nx && !seen; k++)
					seen = xs[k] == x;
				if (!seen && nx < PB_ARRAY_SIZE(xs))
					xs[nx++] = x;
				else if (!seen)
					few = false;
			}
		if (lo > 0 && isfinite(hi))
			fprintf(g, "set xrange [%.10g:%.10g]\n", lo / 1.3, hi * 1.3);
		if (lo > 0 && few && nx) {
			fputs("set xtics (", g);
			for (size_t k = 0; k < nx; k++)
				fprintf(g, "%s\"%.4g\" %.10g", k ? ", " : "", xs[k], xs[k]);
			fputs(")\n", g);
		}
	} else {
		/* a count on x (threads, events): a tic per value, not 0.5 steps */
		bool integral = true;
		double lo = INFINITY, hi = -INFINITY;
		for (size_t s = 0; s < f->nseries; s++)
			for (size_t i = 0; i < f->series[s].n; i++) {
				double x = f->series[s].d[i].x;
				integral &= x == floor(x);
				lo = x < lo ? x : lo;
				hi = x > hi ? x : hi;
			}
		if (integral && hi - lo <= 24)
			fputs("set xtics 1\n", g);
	}
	/* quantities near zero start at zero: a negative share or count would only confuse */
	double ymin = INFINITY, ymax = -INFINITY;
	for (size_t s = 0; s < f->nseries; s++)
		for (size_t i = 0; i < f->series[s].n; i++) {
			const struct pb_plot_datum *d = &f->series[s].d[i];
			double lo = d->bars ? d->lo : d->y, hi = d->bars ? d->hi : d->y;
			ymin = lo < ymin ? lo : ymin;
			ymax = hi > ymax ? hi : ymax;
		}
	if (f->has_ref) {
		ymin = f->ref < ymin ? f->ref : ymin;
		ymax = f->ref > ymax ? f->ref : ymax;
	}
	if (f->fixed_y) {
		fprintf(g, "set offsets graph 0.02, graph 0.02, graph 0, graph 0\n"
			   "set yrange [%g:%g]\n",
			f->ylo, f->yhi);
		goto ranged;
	}
	if (wants_log_y(f)) {
		fputs("set offsets graph 0.02, graph 0.02, graph 0, graph 0\n"
		      "set logscale y 10\nset format y \"%g\"\n",
		      g);
		goto ranged;
	}
	bool from_zero = ymin >= 0 && ymin <= 0.1 * ymax;
	/* gnuplot widens even a fixed end by its offset, so the zero end gets none */
	fprintf(g, "set offsets graph 0.02, graph 0.02, graph 0.08, graph %s\n",
		from_zero || (ymin >= 0 && ymax <= 0) ? "0.02" : "0.08");
	if (ymin >= 0 && ymax <= 0)
		fputs("set yrange [0:1]\n", g);
	else if (from_zero)
		fputs("set yrange [0:*]\n", g);
ranged:
	for (size_t i = 0; i < f->nnotes; i++) {
		fputs("set label ", g);
		gp_string(g, f->notes[i].text);
		fprintf(g, " at first %.10g, graph 0.15 center textcolor rgb \"#a00000\" front\n",
			f->notes[i].x);
	}
	fputs("plot", g);
	const char *sep = " ";
	for (size_t s = 0; s < f->nseries; s++) {
		if (!f->series[s].n)
			continue;
		bool bars = false;
		for (size_t i = 0; i < f->series[s].n; i++)
			bars |= f->series[s].d[i].bars;
		const char *style = bars ? (f->categorical ? "yerrorbars" : "yerrorlines")
					 : (f->categorical ? "points" : "linespoints");
		/* filled, distinct marks: a plain '+' hides in its own error bar */
		static const int marks[] = {7, 5, 9, 13, 11, 15, 6, 4, 8, 12, 10, 14};
		size_t colour = (size_t)f->series[s].colour;
		fprintf(g, "%s'%s.dat' index %zu using 1:2%s with %s pointtype %d pointsize 1.2 "
			   "linecolor rgb \"%s\"%s title ",
			sep, f->name, s, bars ? ":3:4" : "", style,
			marks[colour % (PB_ARRAY_SIZE(marks))], palette[colour % PB_PLOT_COLOURS],
			f->series[s].dashed ? " dashtype 2" : "");
		gp_string(g, f->series[s].title);
		sep = ", \\\n     ";
	}
	if (f->has_ref) {
		fprintf(g, "%s%.10g with lines dashtype 2 linecolor rgb \"#777777\" title ", sep,
			f->ref);
		gp_string(g, f->ref_title);
	}
	fprintf(g, "\nset terminal svg size 1000,620 dynamic noenhanced font \"DejaVu Sans,10\" "
		   "background \"#ffffff\"\nset output '%s.svg'\nreplot\nset output\n",
		f->name);
}

/* Whether every series of f holds one value (its points and bars all equal): a plot of it
 * would show flat lines, or a value that cannot depend on x. */
static bool constant(const struct pb_figure *f)
{
	for (size_t s = 0; s < f->nseries; s++)
		for (size_t i = 0; i < f->series[s].n; i++) {
			const struct pb_plot_datum *d = &f->series[s].d[i], *first = &f->series[s].d[0];
			double tol = 1e-9 * fmax(1, fabs(first->y));
			if (fabs(d->y - first->y) > tol ||
			    (d->bars && (fabs(d->lo - d->y) > tol || fabs(d->hi - d->y) > tol)))
				return false;
		}
	return true;
}

/* A label without its unit and explanation: "accuracy (%): 100 - ..." reads "accuracy". */
static void bare_label(const char *label, char *buf, size_t len)
{
	pb_format(buf, len, "%s", label);
	buf[strcspn(buf, "(:")] = '\0';
	for (size_t n = strlen(buf); n && buf[n - 1] == ' ';)
		buf[--n] = '\0';
}

/* The sentence that replaces a constant figure: what it shows, and each series' one value
 * with its unit. */
static void constant_sentence(const struct pb_figure *f, char *buf, size_t len)
{
	char y[160], x[160], unit[32] = "";
	bare_label(f->ylabel, y, sizeof y);
	bare_label(f->xlabel, x, sizeof x);
	const char *open = strchr(f->ylabel, '(');
	if (open)
		pb_format(unit, sizeof unit, " %.*s", (int)strcspn(open + 1, ");"), open + 1);
	if (!strcmp(unit, " count") || !strcmp(unit, " value") || !strcmp(unit, " ratio"))
		unit[0] = '\0';
	pb_format(buf, len, "%s: not drawn, as %s does not change with the %s:", f->title, y, x);
	bool same = true;
	for (size_t s = 1; s < f->nseries; s++)
		same &= f->series[s].n && f->series[0].n &&
			f->series[s].d[0].y == f->series[0].d[0].y;
	if (same && f->nseries && f->series[0].n) {
		char y[PB_NUM_LEN];
		pb_append(buf, len, " %s%s in %s.", pb_num(y, "%.4g", f->series[0].d[0].y), unit,
			  f->nseries > 1 ? "every series" : f->series[0].title);
		return;
	}
	for (size_t s = 0; s < f->nseries; s++) {
		if (!f->series[s].n)
			continue;
		char y[PB_NUM_LEN];
		pb_append(buf, len, "%s %s %s%s", s ? ";" : "", f->series[s].title,
			  pb_num(y, "%.4g", f->series[s].d[0].y), unit);
	}
	pb_append(buf, len, ".");
}

/* The series of f past the palette, moved to a figure of their own ("NAME-part2", ...). */
static struct pb_figure *split_off(struct pb_plot_ctx *c, struct pb_figure *f, unsigned part)
{
	if (f->nseries <= PB_PLOT_COLOURS)
		return NULL;
	char stem[160];
	pb_format(stem, sizeof stem, "%.100s-part%u", f->name, part);
	struct pb_figure *rest = pb_fig_new(c, f->experiment, stem);
	if (!rest)
		return NULL;
	memcpy(rest, f, sizeof *rest);
	pb_format(rest->name, sizeof rest->name, "%s", stem);
	rest->nseries = f->nseries - PB_PLOT_COLOURS;
	memmove(rest->series, f->series + PB_PLOT_COLOURS, rest->nseries * sizeof rest->series[0]);
	memset(rest->series + rest->nseries, 0,
	       (PB_PLOT_MAX_SERIES - rest->nseries) * sizeof rest->series[0]);
	f->nseries = PB_PLOT_COLOURS;
	pb_append(f->title, sizeof f->title, " (part %u)", part - 1);
	pb_append(rest->title, sizeof rest->title, " (part %u)", part);
	return rest;
}

void pb_fig_finish(struct pb_plot_ctx *c, struct pb_figure *f)
{
	struct pb_figure *rest = NULL;
	if (c->error || !f)
		goto out;
	size_t points = 0;
	for (size_t s = 0; s < f->nseries; s++)
		points += f->series[s].n;
	if (!points)
		goto out;
	/* more series than distinct colours: the rest become a figure of their own */
	rest = split_off(c, f, 2);
	/* unique names: a second plot of the same stem gets a number */
	char base[128];
	pb_format(base, sizeof base, "%s", f->name);
	for (unsigned k = 2;; k++) {
		bool clash = false;
		for (size_t i = 0; i < c->set->n && !clash; i++)
			clash = !strcmp(c->set->plots[i].name, f->name);
		if (!clash)
			break;
		pb_format(f->name, sizeof f->name, "%.100s-%u", base, k);
	}
	if (c->set->n == c->set->cap) {
		size_t cap = c->set->cap ? 2 * c->set->cap : 16;
		struct pb_plot *p = realloc(c->set->plots, cap * sizeof *p);
		if (!p)
			goto out;
		c->set->plots = p;
		c->set->cap = cap;
	}
	struct pb_plot *plot = &c->set->plots[c->set->n++];
	memset(plot, 0, sizeof *plot);
	pb_format(plot->name, sizeof plot->name, "%s", f->name);
	pb_format(plot->experiment, sizeof plot->experiment, "%s", f->experiment);
	pb_format(plot->title, sizeof plot->title, "%s", f->title);
	pb_format(plot->caption, sizeof plot->caption, "%s", f->caption);
	plot->caption[0] = (char)toupper((unsigned char)plot->caption[0]);
	if (constant(f)) {
		constant_sentence(f, plot->sentence, sizeof plot->sentence);
		goto out;
	}
	if (wants_log_y(f)) {
		char below[400] = "";
		size_t k = nonpositive_points(f, below, sizeof below);
		if (k)
			pb_append(plot->caption, sizeof plot->caption,
				  " The axis is logarithmic (the values span more than 100x), so %s at "
				  "or below 0 %s not on it:%s.",
				  k == 1 ? "one point" : "these points", k == 1 ? "is" : "are", below);
	}
	if (!c->write_files) {
		plot->rendered = file_nonempty(c->plots_dir, f->name, "png") &&
				 file_nonempty(c->plots_dir, f->name, "svg");
		goto out;
	}

	char *text = NULL;
	size_t len = 0;
	FILE *d = open_memstream(&text, &len);
	if (!d)
		goto out;
	fprintf(d, "# %s\n# columns: x, mean, lowest run, highest run\n", f->title);
	for (size_t s = 0; s < f->nseries; s++) {
		fprintf(d, "# series %zu: %s\n", s, f->series[s].title);
		for (size_t i = 0; i < f->series[s].n; i++) {
			const struct pb_plot_datum *p = &f->series[s].d[i];
			fprintf(d, "%.10g %.10g %.10g %.10g\n", x_of(f, s, p), p->y,
				p->bars ? p->lo : p->y, p->bars ? p->hi : p->y);
		}
		fputs(f->series[s].n ? "\n\n" : "nan nan nan nan\n\n\n", d);
	}
	fclose(d);
	if (write_text(c, f->name, "dat", text, len)) {
		c->error = -1;
		goto out;
	}
	text = NULL;
	len = 0;
	FILE *g = open_memstream(&text, &len);
	if (!g)
		goto out;
	emit_script(g, f, c->machine);
	fclose(g);
	if (write_text(c, f->name, "gp", text, len)) {
		c->error = -1;
		goto out;
	}
	if (c->gnuplot)
		plot->rendered = run_gnuplot(c, f->name);
out:
	fig_free(f);
	if (rest)
		pb_fig_finish(c, rest);
}

void pb_plot_set_free(struct pb_plot_set *set)
{
	free(set->plots);
	memset(set, 0, sizeof *set);
}

