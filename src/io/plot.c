/* Plots are planned from the data: an experiment's points differ in some parameters (period,
 * workload, threads, events opened, ...); the one with the most distinct values within a
 * facility becomes the x axis, the others (unless they follow from x) split the points into
 * series, and every summary metric of the points is a y axis. So an experiment added later
 * gets plots without a change here. Experiments whose figures are not "a metric against a
 * parameter" (bias shares per load, multi per event, mode per privilege level) have their
 * own plots as well. */
#include "io/plot.h"

#include "experiments/experiment.h"
#include "io/results.h"
#include "util/text.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SERIES 24
#define MAX_CATS 48
#define MAX_CANDIDATES 32

struct datum {
	double x, y, lo, hi;
	bool bars;              /* lo/hi are the runs' min and max */
};

struct series {
	char title[160];
	struct datum *d;
	size_t n, cap;
};

struct figure {
	char name[128], experiment[64], title[256], xlabel[160], ylabel[160], caption[512];
	bool categorical, logx;
	char cats[MAX_CATS][96];
	size_t ncats;
	struct series series[MAX_SERIES];
	size_t nseries;
	bool has_ref;
	double ref;
	char ref_title[64];
	unsigned max_runs;      /* the most runs behind one point, for the subtitle */
};

struct plot_ctx {
	json_t *results;
	char plots_dir[4200];
	bool write_files;
	const char *gnuplot;    /* NULL: not found */
	char machine[256];
	struct pb_plot_set *set;
	unsigned failed;
	char first_failure[256];
	struct pb_error *err;
	int error;
};

/* ---------- small helpers ---------- */

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

void pb_results_machine_label(json_t *results, char *buf, size_t len)
{
	json_t *m = json_object_get(results, "machine");
	/* results.machine is `pesbench probe`'s document: {schema, machine{...}, facilities} */
	if (json_object_get(m, "machine"))
		m = json_object_get(m, "machine");
	const char *vendor = str(m, "cpu_vendor"), *model = str(m, "cpu_model_name");
	const char *kernel = str(m, "kernel");
	if (!*vendor && !*model && !*kernel) {
		pb_format(buf, len, "unknown machine");
		return;
	}
	pb_format(buf, len, "%s%s%s%s%s%s", vendor, *vendor && *model ? " " : "", model,
		  *kernel ? ", kernel " : "", kernel,
		  json_is_true(json_object_get(m, "hypervisor")) ? " (virtual machine)" : "");
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

static struct figure *fig_new(struct plot_ctx *c, const char *experiment, const char *stem)
{
	(void)c;
	struct figure *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	pb_format(f->experiment, sizeof f->experiment, "%s", experiment);
	pb_format(f->name, sizeof f->name, "%s", stem);
	sanitize(f->name);
	return f;
}

static void fig_free(struct figure *f)
{
	if (!f)
		return;
	for (size_t s = 0; s < f->nseries; s++)
		free(f->series[s].d);
	free(f);
}

static int fig_series(struct figure *f, const char *title)
{
	for (size_t s = 0; s < f->nseries; s++)
		if (!strcmp(f->series[s].title, title))
			return (int)s;
	if (f->nseries == MAX_SERIES)
		return -1;
	pb_format(f->series[f->nseries].title, sizeof f->series[0].title, "%s", title);
	return (int)f->nseries++;
}

static int fig_cat(struct figure *f, const char *label)
{
	for (size_t i = 0; i < f->ncats; i++)
		if (!strcmp(f->cats[i], label))
			return (int)i;
	if (f->ncats == MAX_CATS)
		return -1;
	pb_format(f->cats[f->ncats], sizeof f->cats[0], "%s", label);
	return (int)f->ncats++;
}

static void fig_add(struct figure *f, int s, double x, double y, double lo, double hi,
		    unsigned runs)
{
	if (s < 0 || !isfinite(y))
		return;
	struct series *se = &f->series[s];
	if (se->n == se->cap) {
		size_t cap = se->cap ? 2 * se->cap : 16;
		struct datum *d = realloc(se->d, cap * sizeof *d);
		if (!d)
			return;
		se->d = d;
		se->cap = cap;
	}
	se->d[se->n++] = (struct datum){x, y, lo, hi, runs >= 2};
	if (runs > f->max_runs)
		f->max_runs = runs;
}

/* Values over runs: mean and the min-max range. */
struct spread {
	double mean, min, max;
	unsigned n;
};

static void spread_add(struct spread *s, double v)
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
static bool metric_value(json_t *p, json_t *metrics, const char *name, struct spread *out)
{
	json_t *m = json_object_get(metrics, name);
	memset(out, 0, sizeof *out);
	if (json_is_object(m) && json_is_number(json_object_get(m, "mean"))) {
		out->mean = json_number_value(json_object_get(m, "mean"));
		out->min = json_is_number(json_object_get(m, "min"))
				   ? json_number_value(json_object_get(m, "min"))
				   : out->mean;
		out->max = json_is_number(json_object_get(m, "max"))
				   ? json_number_value(json_object_get(m, "max"))
				   : out->mean;
		json_t *n = json_object_get(m, "n");
		out->n = json_is_integer(n) ? (unsigned)json_integer_value(n)
					    : (unsigned)json_array_size(json_object_get(p, "runs"));
		return true;
	}
	if (!json_is_number(m))
		return false;
	size_t r;
	json_t *run;
	json_array_foreach(json_object_get(p, "runs"), r, run) {
		json_t *v = json_object_get(run, name);
		if (json_is_number(v))
			spread_add(out, json_number_value(v));
	}
	if (out->n < 2) {
		out->mean = out->min = out->max = json_number_value(m);
		out->n = 1;
	} else {
		/* the point's own figure is what the tables show; the runs give the range */
		out->mean = json_number_value(m);
	}
	return true;
}

/* ---------- labels and units ---------- */

static bool has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

static void humanize(const char *name, char *buf, size_t len)
{
	pb_format(buf, len, "%s", name);
	for (char *p = buf; *p; p++)
		if (*p == '_' || *p == '.')
			*p = ' ';
}

/* The unit a figure's name implies, by the suffix convention of results.json. */
static const char *unit_of(const char *name)
{
	static const struct {
		const char *suffix, *unit;
	} units[] = {
		{"_ns", "ns"},       {"_us", "µs"},       {"_ms", "ms"},     {"_s", "s"},
		{"_seconds", "s"},   {"_pct", "%"},       {"_percent", "%"}, {"_pp", "percentage points"},
		{"_kb", "KB"},       {"_kib", "KiB"},     {"_mb", "MB"},     {"_mib", "MiB"},
		{"_bytes", "bytes"}, {"_pages", "pages"}, {"_ratio", "ratio"}, {"ratio", "ratio"},
		{"_cycles", "cycles"}, {"_insns", "instructions"}, {"_instructions", "instructions"},
		{"_hz", "Hz"},       {"_per_s", "per second"},
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (has_suffix(name, units[i].suffix))
			return units[i].unit;
	return NULL;
}

static void metric_label(const char *name, char *buf, size_t len)
{
	static const struct {
		const char *name, *label;
	} known[] = {
		{"accuracy", "accuracy (%): 100 - |observed - expected| / expected x 100"},
		{"running_ratio", "time running / time enabled (ratio; 1 = never multiplexed)"},
		{"max_deviation", "largest deviation from the ideal share (percentage points)"},
		{"max_deviation_at_ip", "largest deviation from the ideal share, at the IP (percentage points)"},
		{"max_deviation_before_ip",
		 "largest deviation from the ideal share, IP+1-corrected (percentage points)"},
		{"lost_total", "samples lost, all runs (count)"},
		{"throttles_total", "throttle events, all runs (count)"},
		{"observed", "samples observed (count)"},
		{"expected", "samples expected (count)"},
		{"samples_total", "samples (count)"},
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(name, known[i].name)) {
			pb_format(buf, len, "%s", known[i].label);
			return;
		}
	char words[128];
	humanize(name, words, sizeof words);
	const char *unit = unit_of(name);
	pb_format(buf, len, "%s (%s)", words, unit ? unit : "value");
}

static bool facility_is_timer(const char *facility)
{
	return !strncmp(facility, "timer", 5);
}

static void field_label(const char *field, const char *facility, char *buf, size_t len)
{
	if (!strcmp(field, "period")) {
		if (facility && facility_is_timer(facility))
			pb_format(buf, len, "sampling period (ns of CPU time per sample)");
		else if (facility)
			pb_format(buf, len, "sampling period (events per sample)");
		else
			pb_format(buf, len, "sampling period (events per sample; ns for timers)");
	} else if (!strcmp(field, "threads")) {
		pb_format(buf, len, "threads (count)");
	} else if (!strcmp(field, "events_opened_together")) {
		pb_format(buf, len, "events opened together (count)");
	} else if (!strcmp(field, "workload")) {
		pb_format(buf, len, "workload (name:parameters)");
	} else if (!strcmp(field, "variant")) {
		pb_format(buf, len, "bias-loop variant (category)");
	} else if (!strcmp(field, "levels")) {
		pb_format(buf, len, "privilege levels sampled (category)");
	} else if (!strcmp(field, "facility")) {
		pb_format(buf, len, "facility (spec)");
	} else if (!strcmp(field, "delivery")) {
		pb_format(buf, len, "sample delivery to user space (mode)");
	} else if (!strcmp(field, "ring_pages")) {
		pb_format(buf, len, "ring buffer size (pages)");
	} else {
		char words[96];
		humanize(!strncmp(field, "workload.", 9) ? field + 9 : field, words, sizeof words);
		const char *unit = unit_of(field);
		pb_format(buf, len, "%s%s (%s)", !strncmp(field, "workload.", 9) ? "workload " : "",
			  words, unit ? unit : "value");
	}
}

/* ---------- the varying parameters of a set of points ---------- */

/* A point's parameter as text (and number when numeric): a scalar field of the point, or
 * "workload.K" for a parameter of its workload ("accuracy:ratio=20" → workload.ratio = 20).
 * Returns 0 absent, 1 text, 2 number. Real-valued fields are results, not parameters. */
static int param(json_t *p, const char *field, char *text, size_t len, double *num)
{
	if (!strncmp(field, "workload.", 9)) {
		const char *w = str(p, "workload"), *colon = strchr(w, ':');
		size_t klen = strlen(field + 9);
		for (const char *s = colon; s && *s;) {
			s++;
			if (!strncmp(s, field + 9, klen) && s[klen] == '=') {
				const char *v = s + klen + 1;
				size_t vlen = strcspn(v, ",");
				pb_format(text, len, "%.*s", (int)vlen, v);
				char *end;
				*num = strtod(text, &end);
				return end != text && !*end ? 2 : 1;
			}
			s = strchr(s, ',');
		}
		return 0;
	}
	json_t *v = json_object_get(p, field);
	if (json_is_string(v)) {
		pb_format(text, len, "%s", json_string_value(v));
		return 1;
	}
	if (json_is_integer(v)) {
		*num = (double)json_integer_value(v);
		pb_format(text, len, "%lld", (long long)json_integer_value(v));
		return 2;
	}
	if (json_is_boolean(v)) {
		pb_format(text, len, "%s", json_is_true(v) ? "yes" : "no");
		return 1;
	}
	return 0;
}

static bool excluded_field(const char *k)
{
	static const char *const not_parameters[] = {
		"experiment", "facility", "iterations", "not_applicable", "error", "ip_kind",
	};
	for (size_t i = 0; i < sizeof not_parameters / sizeof not_parameters[0]; i++)
		if (!strcmp(k, not_parameters[i]))
			return true;
	return false;
}

struct candidate {
	char name[64];
	bool numeric;           /* numeric on every point that has it */
	bool everywhere;        /* present on every point */
	size_t distinct;        /* most distinct values within one facility */
	bool varies;
};

static void add_candidate(struct candidate *c, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(c[i].name, name))
			return;
	if (*n < MAX_CANDIDATES)
		pb_format(c[(*n)++].name, sizeof c[0].name, "%s", name);
}

static size_t distinct_in_facility(json_t **pts, size_t n, const char *facility,
				   const char *field)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(str(pts[i], "facility"), facility))
			continue;
		char a[128] = "";
		double d;
		param(pts[i], field, a, sizeof a, &d);
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++) {
			if (strcmp(str(pts[j], "facility"), facility))
				continue;
			char b[128] = "";
			param(pts[j], field, b, sizeof b, &d);
			seen = !strcmp(a, b);
		}
		count += !seen;
	}
	return count;
}

/* Whether field's value follows from x's (within a facility): then it adds no series. */
static bool follows_from(json_t **pts, size_t n, const char *field, const char *x)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++) {
			if (strcmp(str(pts[i], "facility"), str(pts[j], "facility")))
				continue;
			char xi[128] = "", xj[128] = "", fi[128] = "", fj[128] = "";
			double d;
			param(pts[i], x, xi, sizeof xi, &d);
			param(pts[j], x, xj, sizeof xj, &d);
			if (strcmp(xi, xj))
				continue;
			param(pts[i], field, fi, sizeof fi, &d);
			param(pts[j], field, fj, sizeof fj, &d);
			if (strcmp(fi, fj))
				return false;
		}
	return true;
}

static void candidates_of(json_t **pts, size_t n, struct candidate *c, size_t *nc)
{
	*nc = 0;
	for (size_t i = 0; i < n; i++) {
		const char *k;
		json_t *v;
		json_object_foreach(pts[i], k, v) {
			if (excluded_field(k) || !(json_is_string(v) || json_is_integer(v) ||
						   json_is_boolean(v)))
				continue;
			add_candidate(c, nc, k);
		}
		const char *w = str(pts[i], "workload"), *colon = strchr(w, ':');
		for (const char *s = colon; s && *s;) {
			s++;
			size_t klen = strcspn(s, "=,");
			if (klen && s[klen] == '=') {
				char name[64];
				pb_format(name, sizeof name, "workload.%.*s", (int)klen, s);
				add_candidate(c, nc, name);
			}
			s = strchr(s, ',');
		}
	}
	for (size_t k = 0; k < *nc; k++) {
		c[k].numeric = c[k].everywhere = true;
		c[k].distinct = 0;
		for (size_t i = 0; i < n; i++) {
			char t[128];
			double d;
			int kind = param(pts[i], c[k].name, t, sizeof t, &d);
			if (!kind)
				c[k].everywhere = false;
			if (kind != 2)
				c[k].numeric = false;
			size_t dist = distinct_in_facility(pts, n, str(pts[i], "facility"), c[k].name);
			if (dist > c[k].distinct)
				c[k].distinct = dist;
		}
		c[k].varies = c[k].distinct > 1;
	}
}

/* The x axis: the parameter with the most distinct values within a facility; numbers before
 * text, a named parameter before the whole workload string. NULL when nothing varies. */
static const struct candidate *choose_x(const struct candidate *c, size_t nc)
{
	const struct candidate *best = NULL;
	for (size_t k = 0; k < nc; k++) {
		if (!c[k].varies || !c[k].everywhere)
			continue;
		if (!best || c[k].distinct > best->distinct) {
			best = &c[k];
			continue;
		}
		if (c[k].distinct < best->distinct)
			continue;
		if (c[k].numeric != best->numeric) {
			if (c[k].numeric)
				best = &c[k];
			continue;
		}
		if (!strcmp(best->name, "workload"))
			best = &c[k];
	}
	return best;
}

static void series_part(const char *field, const char *value, char *buf, size_t len)
{
	if (!strcmp(field, "threads"))
		pb_format(buf, len, "%s thread%s", value, strcmp(value, "1") ? "s" : "");
	else if (!strcmp(field, "period"))
		pb_format(buf, len, "period %s", value);
	else if (!strcmp(field, "period_kind") || !strcmp(field, "variant") ||
		 !strcmp(field, "levels") || !strcmp(field, "workload"))
		pb_format(buf, len, "%s%s", value, !strcmp(field, "period_kind") ? " period" : "");
	else
		pb_format(buf, len, "%s=%s", !strncmp(field, "workload.", 9) ? field + 9 : field,
			  value);
}

/* Workload labels without the parameters every category shares ("factor=4,seed=1"). */
static void shorten_workload_categories(struct figure *f)
{
	char kept[MAX_CATS][96];
	for (size_t i = 0; i < f->ncats; i++) {
		char *colon = strchr(f->cats[i], ':');
		if (!colon) {
			pb_format(kept[i], sizeof kept[i], "%s", f->cats[i]);
			continue;
		}
		char out[96];
		pb_format(out, sizeof out, "%.*s", (int)(colon - f->cats[i]), f->cats[i]);
		char params[96];
		pb_format(params, sizeof params, "%s", colon + 1);
		bool first = true;
		for (char *save = NULL, *kv = strtok_r(params, ",", &save); kv;
		     kv = strtok_r(NULL, ",", &save)) {
			bool everywhere = f->ncats > 1;
			for (size_t j = 0; j < f->ncats && everywhere; j++) {
				const char *other = strchr(f->cats[j], ':');
				char needle[100];
				pb_format(needle, sizeof needle, "%s", kv);
				bool found = false;
				for (const char *s = other; s && *s && !found;) {
					s++;
					size_t l = strcspn(s, ",");
					found = l == strlen(needle) && !strncmp(s, needle, l);
					s = strchr(s, ',');
				}
				everywhere = found;
			}
			if (everywhere)
				continue;
			size_t used = strlen(out);
			pb_format(out + used, sizeof out - used, "%s%s", first ? ":" : ",", kv);
			first = false;
		}
		pb_format(kept[i], sizeof kept[i], "%s", out);
	}
	memcpy(f->cats, kept, sizeof kept[0] * f->ncats);
}

/* ---------- writing and drawing ---------- */

static const char *find_gnuplot(char *buf, size_t len)
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
static bool run_gnuplot(struct plot_ctx *c, const char *name)
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

static int write_text(struct plot_ctx *c, const char *name, const char *ext, char *text,
		      size_t len)
{
	char path[4400];
	snprintf(path, sizeof path, "%s/%s.%s", c->plots_dir, name, ext);
	int rc = pb_write_atomic(path, text, len, c->err);
	free(text);
	return rc;
}

static double x_of(const struct figure *f, size_t s, const struct datum *d)
{
	if (!f->categorical || f->nseries < 2)
		return d->x;
	/* side by side within a category, so the bars do not hide each other */
	double step = 0.6 / (double)f->nseries;
	if (step > 0.15)
		step = 0.15;
	return d->x + ((double)s - (double)(f->nseries - 1) / 2.0) * step;
}

static void emit_script(FILE *g, const struct figure *f, const char *machine)
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
	pb_format(title, sizeof title, "%s\n%s; %s", f->title, machine, runs_note);
	fputs("set title ", g);
	gp_string(g, title);
	fputs("\nset xlabel ", g);
	gp_string(g, f->xlabel);
	fputs("\nset ylabel ", g);
	gp_string(g, f->ylabel);
	fputs("\nset grid\nset key below\nset border 3\nset tics nomirror\n", g);
	fputs("set offsets graph 0.02, graph 0.02, graph 0.08, graph 0.08\n", g);
	if (f->categorical) {
		size_t longest = 0;
		for (size_t i = 0; i < f->ncats; i++)
			if (strlen(f->cats[i]) > longest)
				longest = strlen(f->cats[i]);
		fprintf(g, "set xrange [-0.5:%g]\n", (double)f->ncats - 0.5);
		fputs(longest > 12 && f->ncats > 3 ? "set xtics rotate by -25 left (" : "set xtics (",
		      g);
		for (size_t i = 0; i < f->ncats; i++) {
			fputs(i ? ", " : "", g);
			gp_string(g, f->cats[i]);
			fprintf(g, " %zu", i);
		}
		fputs(")\n", g);
	} else if (f->logx) {
		fputs("set logscale x 10\nset format x \"%g\"\n", g);
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
		fprintf(g, "%s'%s.dat' index %zu using 1:2%s with %s pointsize 1.3 title ", sep,
			f->name, s, bars ? ":3:4" : "", style);
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

static void finish(struct plot_ctx *c, struct figure *f)
{
	if (c->error || !f)
		goto out;
	size_t points = 0;
	for (size_t s = 0; s < f->nseries; s++)
		points += f->series[s].n;
	if (!points)
		goto out;
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
			const struct datum *p = &f->series[s].d[i];
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
}

/* ---------- plots ---------- */

static bool plottable(json_t *p)
{
	return !json_object_get(p, "not_applicable") &&
	       json_object_size(json_object_get(p, "metrics")) > 0 &&
	       json_array_size(json_object_get(p, "runs")) > 0;
}

static const char *experiment_summary(const char *experiment)
{
	const struct pb_experiment *e = pb_experiment_find(experiment);
	return e ? e->summary : NULL;
}

/* Which metrics of these points a generic plot shows: summaries (except the raw sample
 * counts, and the running ratio unless something was multiplexed), then numbers that vary. */
static size_t plain_metrics(json_t **pts, size_t n, const char *const *only, char names[][64],
			    size_t max)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++) {
		const char *k;
		json_t *v;
		json_object_foreach(json_object_get(pts[i], "metrics"), k, v) {
			bool wanted = true;
			if (only) {
				wanted = false;
				for (const char *const *o = only; *o; o++)
					wanted |= !strcmp(*o, k);
			} else if (json_is_object(v)) {
				wanted = json_is_number(json_object_get(v, "mean")) &&
					 strcmp(k, "observed") && strcmp(k, "expected");
				if (wanted && !strcmp(k, "running_ratio")) {
					wanted = false;
					for (size_t j = 0; j < n; j++) {
						json_t *rr = json_object_get(
							json_object_get(pts[j], "metrics"), k);
						wanted |= json_number_value(json_object_get(rr, "min")) <
							  0.999;
					}
				}
			} else if (json_is_number(v)) {
				wanted = false;
				for (size_t j = 0; j < n && !wanted; j++) {
					json_t *o = json_object_get(json_object_get(pts[j], "metrics"), k);
					wanted = json_is_number(o) &&
						 json_number_value(o) != json_number_value(v);
				}
			} else {
				wanted = false;
			}
			for (size_t j = 0; j < count && wanted; j++)
				wanted = strcmp(names[j], k);
			if (wanted && count < max)
				pb_format(names[count++], 64, "%s", k);
		}
	}
	return count;
}

/* One metric against the varying parameter, for the points of one experiment (split per
 * facility when x is a period: periods of different facilities are different units). */
static void generic_plots(struct plot_ctx *c, const char *experiment, json_t **all, size_t nall,
			  const char *const *only)
{
	json_t **pts = calloc(nall ? nall : 1, sizeof *pts);
	if (!pts)
		return;
	size_t n = 0;
	for (size_t i = 0; i < nall; i++)
		if (plottable(all[i]))
			pts[n++] = all[i];
	struct candidate cand[MAX_CANDIDATES];
	size_t ncand;
	candidates_of(pts, n, cand, &ncand);
	const struct candidate *x = choose_x(cand, ncand);
	bool split = x && x->numeric && strstr(x->name, "period");
	char metrics[16][64];
	size_t nmetrics = plain_metrics(pts, n, only, metrics, 16);
	const char *summary = experiment_summary(experiment);

	/* facilities, in order */
	const char *facilities[64];
	size_t nfac = 0;
	for (size_t i = 0; i < n; i++) {
		bool seen = false;
		for (size_t j = 0; j < nfac && !seen; j++)
			seen = !strcmp(facilities[j], str(pts[i], "facility"));
		if (!seen && nfac < 64)
			facilities[nfac++] = str(pts[i], "facility");
	}
	for (size_t m = 0; m < nmetrics; m++) {
		for (size_t g = 0; g < (split ? nfac : 1); g++) {
			const char *only_facility = split ? facilities[g] : NULL;
			char stem[160];
			pb_format(stem, sizeof stem, "%s-%s%s%s", experiment, metrics[m],
				  only_facility ? "-" : "", only_facility ? only_facility : "");
			struct figure *f = fig_new(c, experiment, stem);
			if (!f)
				break;
			const char *xname = x ? x->name : "facility";
			f->categorical = !x || !x->numeric;
			char mlabel[160], xlabel[160];
			metric_label(metrics[m], mlabel, sizeof mlabel);
			field_label(xname, only_facility ? only_facility
					   : nfac == 1 ? facilities[0] : NULL, xlabel, sizeof xlabel);
			pb_format(f->ylabel, sizeof f->ylabel, "%s", mlabel);
			pb_format(f->xlabel, sizeof f->xlabel, "%s", xlabel);
			char mshort[64], xshort[64];
			pb_format(mshort, sizeof mshort, "%s", mlabel);
			mshort[strcspn(mshort, "(:")] = '\0';
			pb_format(xshort, sizeof xshort, "%s", xlabel);
			xshort[strcspn(xshort, "(")] = '\0';
			pb_format(f->title, sizeof f->title, "%s%s%s%s: %.60s by %.60s", experiment,
				  only_facility ? " (" : "", only_facility ? only_facility : "",
				  only_facility ? ")" : "", mshort, xshort);
			if (!strcmp(metrics[m], "accuracy")) {
				f->has_ref = true;
				f->ref = 100;
				pb_format(f->ref_title, sizeof f->ref_title, "exact (100 %%)");
			}
			double xmin = INFINITY, xmax = -INFINITY;
			for (size_t i = 0; i < n; i++) {
				json_t *p = pts[i];
				const char *fac = str(p, "facility");
				if (only_facility && strcmp(fac, only_facility))
					continue;
				struct spread v;
				if (!metric_value(p, json_object_get(p, "metrics"), metrics[m], &v))
					continue;
				char series[160] = "";
				if (!only_facility)
					pb_format(series, sizeof series, "%s", fac);
				for (size_t k = 0; k < ncand; k++) {
					if (!cand[k].varies || (x && !strcmp(cand[k].name, x->name)) ||
					    (x && follows_from(pts, n, cand[k].name, x->name)))
						continue;
					char value[96] = "", part[128];
					double d;
					if (!param(p, cand[k].name, value, sizeof value, &d))
						continue;
					series_part(cand[k].name, value, part, sizeof part);
					size_t used = strlen(series);
					pb_format(series + used, sizeof series - used, "%s%s",
						  used ? ", " : "", part);
				}
				if (!*series)
					pb_format(series, sizeof series, "%s", only_facility ? only_facility
											     : "all");
				double xv = 0;
				char xt[96] = "";
				if (x) {
					param(p, x->name, xt, sizeof xt, &xv);
				} else {
					pb_format(xt, sizeof xt, "%s", fac);
				}
				if (f->categorical) {
					int cat = fig_cat(f, xt);
					if (cat < 0)
						continue;
					xv = cat;
				} else {
					if (xv < xmin)
						xmin = xv;
					if (xv > xmax)
						xmax = xv;
				}
				fig_add(f, fig_series(f, series), xv, v.mean, v.min, v.max, v.n);
			}
			if (f->categorical && x && !strcmp(x->name, "workload"))
				shorten_workload_categories(f);
			f->logx = !f->categorical && xmin > 0 && xmax / xmin >= 20;
			pb_format(f->caption, sizeof f->caption,
				  "%s%s%s by %s%s; one series per %s.", summary ? summary : "",
				  summary ? ". " : "", mshort, xshort,
				  f->logx ? " (log scale)" : "",
				  only_facility ? "remaining parameter" : "facility and remaining parameter");
			finish(c, f);
		}
	}
	free(pts);
}

static const char *load_name(const char *label)
{
	/* "pb_wl_bias_plain_load3" → "load3": the position is what compares across variants */
	const char *u = strrchr(label, '_');
	return u ? u + 1 : label;
}

/* Bias: the share of samples on each of the identical loads, per variant, with the facility's
 * own attribution (both for skid, which has no right one), against the ideal share. */
static void bias_plots(struct plot_ctx *c, json_t **pts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_t *p = pts[i];
		if (!json_object_get(json_object_get(p, "metrics"), "shares"))
			continue;
		/* one figure per facility and period, made at its first point */
		bool first = true;
		for (size_t j = 0; j < i && first; j++)
			first = !(json_object_get(json_object_get(pts[j], "metrics"), "shares") &&
				  !strcmp(str(pts[j], "facility"), str(p, "facility")) &&
				  json_integer_value(json_object_get(pts[j], "period")) ==
					  json_integer_value(json_object_get(p, "period")));
		if (!first)
			continue;
		const char *fac = str(p, "facility");
		long long period = (long long)json_integer_value(json_object_get(p, "period"));
		char stem[160];
		pb_format(stem, sizeof stem, "bias-shares-%s-period%lld", fac, period);
		struct figure *f = fig_new(c, "bias", stem);
		if (!f)
			return;
		f->categorical = true;
		double ideal = 0;
		for (size_t j = i; j < n; j++) {
			json_t *q = pts[j];
			json_t *m = json_object_get(q, "metrics");
			if (!json_object_get(m, "shares") || strcmp(str(q, "facility"), fac) ||
			    json_integer_value(json_object_get(q, "period")) != period)
				continue;
			const char *own = str(m, "attribution");
			const char *variant = *str(q, "variant") ? str(q, "variant") : str(q, "workload");
			static const struct {
				const char *key, *field, *words;
			} kinds[] = {{"at_ip", "share_at_ip", "at the IP"},
				     {"before_ip", "share_before_ip", "IP+1-corrected"}};
			for (size_t k = 0; k < 2; k++) {
				bool show = !strcmp(own, kinds[k].key) || (strcmp(own, "at_ip") &&
									   strcmp(own, "before_ip"));
				if (!show)
					continue;
				char series[160];
				pb_format(series, sizeof series, "%s, %s", variant, kinds[k].words);
				int s = fig_series(f, series);
				json_t *runs = json_object_get(q, "runs");
				size_t nl = json_array_size(json_object_get(m, "shares"));
				for (size_t l = 0; l < nl; l++) {
					json_t *share = json_array_get(json_object_get(m, "shares"), l);
					struct spread v = {0};
					size_t r;
					json_t *run;
					json_array_foreach(runs, r, run) {
						json_t *a = json_object_get(run, "attribution");
						json_t *lab = json_array_get(json_object_get(a, "loads"), l);
						if (lab)
							spread_add(&v, json_number_value(
									       json_object_get(lab, kinds[k].field)));
						if (json_is_number(json_object_get(a, "ideal_share")))
							ideal = json_number_value(
								json_object_get(a, "ideal_share"));
					}
					int cat = fig_cat(f, load_name(str(share, "label")));
					if (cat < 0)
						continue;
					double mean = json_number_value(json_object_get(share, kinds[k].field));
					fig_add(f, s, cat, mean, v.n ? v.min : mean, v.n ? v.max : mean, v.n);
				}
			}
		}
		if (ideal > 0) {
			f->has_ref = true;
			f->ref = ideal;
			pb_format(f->ref_title, sizeof f->ref_title, "ideal share (%.4g %%)", ideal);
		}
		pb_format(f->title, sizeof f->title,
			  "bias (%s, period %lld): share of samples on each identical load", fac, period);
		pb_format(f->xlabel, sizeof f->xlabel,
			  "identical load in the loop (position, in program order)");
		pb_format(f->ylabel, sizeof f->ylabel, "share of all samples (%%)");
		pb_format(f->caption, sizeof f->caption,
			  "An unbiased facility puts the ideal share on every load (dashed line). "
			  "'At the IP' counts a sample on the instruction its IP names; "
			  "'IP+1-corrected' on the instruction before it (right for facilities that "
			  "report the next instruction). Shares do not add up to 100 %% when samples "
			  "land elsewhere in the loop.");
		finish(c, f);
	}
}

/* Multi: each event's accuracy and running-time share against the number opened together. */
static void multi_plots(struct plot_ctx *c, json_t **pts, size_t n)
{
	static const struct {
		const char *metric, *stem;
	} what[] = {{"accuracy", "multi-accuracy"}, {"running_ratio", "multi-running"}};
	for (size_t i = 0; i < n; i++) {
		const char *fac = str(pts[i], "facility");
		bool first = plottable(pts[i]);
		for (size_t j = 0; j < i && first; j++)
			first = !(plottable(pts[j]) && !strcmp(str(pts[j], "facility"), fac));
		if (!first)
			continue;
		for (size_t w = 0; w < 2; w++) {
			char stem[160];
			pb_format(stem, sizeof stem, "%s-%s", what[w].stem, fac);
			struct figure *f = fig_new(c, "multi", stem);
			if (!f)
				return;
			for (size_t j = i; j < n; j++) {
				json_t *q = pts[j];
				if (!plottable(q) || strcmp(str(q, "facility"), fac))
					continue;
				double k = (double)json_integer_value(
					json_object_get(q, "events_opened_together"));
				json_t *evs = json_object_get(json_array_get(json_object_get(q, "runs"), 0),
							      "events");
				for (size_t e = 0; e < json_array_size(evs) && e < MAX_SERIES; e++) {
					/* an event the kernel refused has no figures, only its error */
					if (!json_is_true(json_object_get(json_array_get(evs, e), "opened")))
						continue;
					char key[32], series[32];
					snprintf(key, sizeof key, "event%zu", e);
					snprintf(series, sizeof series, "event %zu", e + 1);
					struct spread v;
					json_t *m = json_object_get(json_object_get(q, "metrics"), key);
					if (!metric_value(q, m, what[w].metric, &v))
						continue;
					fig_add(f, fig_series(f, series), k, v.mean, v.min, v.max, v.n);
				}
			}
			metric_label(what[w].metric, f->ylabel, sizeof f->ylabel);
			field_label("events_opened_together", fac, f->xlabel, sizeof f->xlabel);
			if (w == 0) {
				f->has_ref = true;
				f->ref = 100;
				pb_format(f->ref_title, sizeof f->ref_title, "exact (100 %%)");
			} else {
				f->has_ref = true;
				f->ref = 1;
				pb_format(f->ref_title, sizeof f->ref_title, "always running (1)");
			}
			pb_format(f->title, sizeof f->title, "multi (%s): %s of each event by events "
				  "opened together", fac, w == 0 ? "accuracy" : "running-time share");
			pb_format(f->caption, sizeof f->caption,
				  "k copies of the event opened together; one series per event. When "
				  "the PMU has fewer counters than events the kernel multiplexes them "
				  "(running share below 1) and the samples of the descheduled time are "
				  "never taken. Events the kernel refused to open are left out.");
			finish(c, f);
		}
	}
}

/* Mode: share of the samples that fell on a privilege level that was excluded. */
static void mode_plots(struct plot_ctx *c, json_t **pts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *fac = str(pts[i], "facility");
		bool first = plottable(pts[i]);
		for (size_t j = 0; j < i && first; j++)
			first = !(plottable(pts[j]) && !strcmp(str(pts[j], "facility"), fac));
		if (!first)
			continue;
		char stem[160];
		pb_format(stem, sizeof stem, "mode-wrong-level-%s", fac);
		struct figure *f = fig_new(c, "mode", stem);
		if (!f)
			return;
		f->categorical = true;
		int by_flag = fig_series(f, "by the record's privilege flag");
		int by_ip = fig_series(f, "by the IP's address range");
		for (size_t j = i; j < n; j++) {
			json_t *q = pts[j];
			if (!plottable(q) || strcmp(str(q, "facility"), fac))
				continue;
			bool no_kernel = json_is_true(json_object_get(q, "exclude_kernel"));
			bool no_user = json_is_true(json_object_get(q, "exclude_user"));
			struct spread flag = {0}, ip = {0};
			size_t r;
			json_t *run;
			json_array_foreach(json_object_get(q, "runs"), r, run) {
				json_t *ev = json_array_get(json_object_get(run, "events"), 0);
				double user = (double)json_integer_value(json_object_get(ev, "user_samples"));
				double kern =
					(double)json_integer_value(json_object_get(ev, "kernel_samples"));
				double kip =
					(double)json_integer_value(json_object_get(ev, "kernel_ip_samples"));
				double total = user + kern;
				if (total <= 0)
					continue;
				double wrong_flag = (no_kernel ? kern : 0) + (no_user ? user : 0);
				double wrong_ip = (no_kernel ? kip : 0) + (no_user ? total - kip : 0);
				spread_add(&flag, 100 * wrong_flag / total);
				spread_add(&ip, 100 * wrong_ip / total);
			}
			const char *levels = *str(q, "levels") ? str(q, "levels") : str(q, "workload");
			int cat = fig_cat(f, levels);
			if (cat < 0 || !flag.n)
				continue;
			fig_add(f, by_flag, cat, flag.mean, flag.min, flag.max, flag.n);
			fig_add(f, by_ip, cat, ip.mean, ip.min, ip.max, ip.n);
		}
		pb_format(f->title, sizeof f->title,
			  "mode (%s): samples on an excluded privilege level", fac);
		pb_format(f->xlabel, sizeof f->xlabel, "privilege levels sampled (category)");
		pb_format(f->ylabel, sizeof f->ylabel, "samples on the wrong level (%% of samples)");
		pb_format(f->caption, sizeof f->caption,
			  "Each sample is checked by the privilege level the kernel wrote in the "
			  "record and by whether its IP lies in the kernel half of the address space; "
			  "0 %% is right. Settings where no sample was taken have no point.");
		finish(c, f);
	}
}

int pb_plots_make(json_t *results, const char *dir, bool write_files, struct pb_plot_set *set,
		  struct pb_error *err)
{
	memset(set, 0, sizeof *set);
	struct plot_ctx c = {.results = results, .write_files = write_files, .set = set,
			     .err = err};
	snprintf(c.plots_dir, sizeof c.plots_dir, "%s/plots", dir);
	pb_results_machine_label(results, c.machine, sizeof c.machine);
	if (write_files && mkdir(c.plots_dir, 0755) && errno != EEXIST)
		return pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot create %s: %s", c.plots_dir,
			       strerror(errno));
	char gnuplot_path[4200];
	c.gnuplot = find_gnuplot(gnuplot_path, sizeof gnuplot_path);
	if (write_files && !c.gnuplot) {
		set->gnuplot_missing = true;
		pb_format(set->warning, sizeof set->warning,
			  "gnuplot not found (%s): plot data and scripts are in %s but no images "
			  "were drawn; install gnuplot-nox (scripts/install-deps.sh) and run "
			  "`pesbench report %s`",
			  getenv("PB_GNUPLOT") && *getenv("PB_GNUPLOT") ? getenv("PB_GNUPLOT")
									: "not on PATH",
			  c.plots_dir, dir);
	}

	json_t *points = json_object_get(results, "points");
	size_t npoints = json_array_size(points);
	json_t **pts = calloc(npoints ? npoints : 1, sizeof *pts);
	if (!pts)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory planning plots");
	/* experiments in the order they ran */
	for (size_t i = 0; i < npoints && !c.error; i++) {
		const char *e = str(json_array_get(points, i), "experiment");
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(str(json_array_get(points, j), "experiment"), e);
		if (seen || !*e)
			continue;
		size_t n = 0;
		for (size_t j = i; j < npoints; j++)
			if (!strcmp(str(json_array_get(points, j), "experiment"), e))
				pts[n++] = json_array_get(points, j);
		bool any = false;
		for (size_t j = 0; j < n; j++)
			any |= plottable(pts[j]);
		if (!any)
			continue;
		if (!strcmp(e, "bias")) {
			static const char *const bias_metrics[] = {"accuracy", "max_deviation", NULL};
			bias_plots(&c, pts, n);
			generic_plots(&c, e, pts, n, bias_metrics);
		} else if (!strcmp(e, "multi")) {
			multi_plots(&c, pts, n);
		} else if (!strcmp(e, "mode")) {
			static const char *const mode_metrics[] = {"accuracy", NULL};
			mode_plots(&c, pts, n);
			generic_plots(&c, e, pts, n, mode_metrics);
		} else {
			generic_plots(&c, e, pts, n, NULL);
		}
	}
	free(pts);
	if (c.error)
		return -1;
	if (c.failed && !set->gnuplot_missing)
		pb_format(set->warning, sizeof set->warning,
			  "gnuplot failed to draw %u of %zu plots; first: %s", c.failed, set->n,
			  c.first_failure);
	return 0;
}

void pb_plot_set_free(struct pb_plot_set *set)
{
	free(set->plots);
	memset(set, 0, sizeof *set);
}
