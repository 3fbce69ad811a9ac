/* The report holds no figure the results do not: it is results.json laid out for a reader,
 * with the same rows as the terminal summary, so the two never disagree. It is one file with
 * its style inline; the images sit next to it in plots/. */
#include "present/report.h"

#include "io/result_facts.h"
#include "io/results.h"
#include "present/report_parts.h"
#include "present/summary.h"
#include "util/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *str(const struct pb_rset *o, const char *k)
{
	const char *s = pb_rset_get_text(o, k);
	return s ? s : "";
}

static double num(const struct pb_rset *o, const char *k)
{
	return pb_rset_get_number(o, k, NULL);
}

/* The text of a value that is one, NULL otherwise. */
static const char *text_of(const struct pb_rvalue *v)
{
	return v && v->kind == PB_RV_TEXT ? v->as.text : NULL;
}

/* A field of the document's top level, before or after its points. */
static const struct pb_rvalue *doc_get(const struct pb_results *r, const char *name)
{
	const struct pb_rvalue *v = pb_rset_get(&r->head, name);
	return v ? v : pb_rset_get(&r->tail, name);
}

static void esc_char(FILE *f, char c)
{
	switch (c) {
	case '<': fputs("&lt;", f); break;
	case '>': fputs("&gt;", f); break;
	case '&': fputs("&amp;", f); break;
	case '"': fputs("&quot;", f); break;
	case '\'': fputs("&#39;", f); break;
	default: fputc(c, f);
	}
}

void pb_html_esc(FILE *f, const char *s)
{
	for (; s && *s; s++)
		esc_char(f, *s);
}

void pb_html_esc_breakable(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		esc_char(f, *s);
		if (*s == ',')
			fputs("<wbr>", f);
	}
}

void pb_html_esc_figure(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == ' ' && strncmp(s + 1, "±", strlen("±")))
			fputs("&nbsp;", f);
		else
			esc_char(f, *s);
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

static void scalar(FILE *f, const struct pb_rvalue *v)
{
	if (!v || v->kind == PB_RV_NULL) {
		fputs("&ndash;", f);
		return;
	}
	switch (v->kind) {
	case PB_RV_TEXT:
		pb_html_esc(f, v->as.text);
		break;
	case PB_RV_INT:
		fprintf(f, "%lld", (long long)v->as.i);
		break;
	case PB_RV_REAL:
		fprintf(f, "%.6g", v->as.r);
		break;
	case PB_RV_BOOL:
		fputs(v->as.b ? "yes" : "no", f);
		break;
	case PB_RV_LIST:
		for (size_t i = 0; i < v->as.list->n; i++) {
			const struct pb_rvalue *e = &v->as.list->v[i];
			fputs(i ? ", " : "", f);
			if (e->kind == PB_RV_SET && pb_rset_get(e->as.set, "name"))
				pb_html_esc(f, str(e->as.set, "name"));
			else
				scalar(f, e);
		}
		break;
	default:
		break;
	}
}

static bool is_object(const struct pb_rvalue *v)
{
	return v->kind == PB_RV_SET || v->kind == PB_RV_SUMMARY;
}

static const char style[] =
	"body{font-family:'DejaVu Sans',Arial,sans-serif;margin:1.5em 0;color:#222;padding:0 1em}"
	/* prose keeps a reading width; a table may take the window's, centred, and scrolls
	 * only when even that is too narrow */
	"body>*{max-width:1100px;margin-left:auto;margin-right:auto}"
	"body>.figures{max-width:100%;min-width:min(1100px,100%);width:max-content}"
	".wide{overflow-x:auto}.t{max-width:36em}.p{max-width:1060px}"
	"h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;margin-top:1.8em}"
	".meta{color:#555}.warn{background:#fff3cd;border:1px solid #e0c060;padding:.5em}"
	"table{border-collapse:collapse;margin:.5em 0;font-size:.88em}"
	"th,td{border:1px solid #ccc;padding:.2em .45em;text-align:left;vertical-align:top}"
	"th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"tr.bad td{color:#8a1c1c}figure{margin:1em 0}"
	"figure img{max-width:100%;border:1px solid #ddd}figcaption{font-size:.9em;color:#444}"
	"nav a{margin-right:.8em}code{background:#f4f4f4}"
	"tr.prose td{color:#444;border-top:none;padding-left:1.6em;white-space:normal}"
	"tr.group th{background:#e6edf5;font-weight:bold;padding-top:.35em}"
	"td:first-child{white-space:nowrap}td[colspan]{white-space:normal}"
	"table.scorecard td.verdict{min-width:24em}"
	"p.nodraw{color:#444;font-size:.9em;border-left:3px solid #ccc;padding-left:.6em}";

/* The machine layer's field names as a reader would say them; a facility's fact is named by its
 * title (io/result_facts.h), and a field neither names reads as its name with spaces. */
static const char *const machine_labels[][2] = {
	{"kernel", "kernel"}, {"cpu_vendor", "CPU vendor"}, {"cpu_family", "CPU family"},
	{"cpu_model", "CPU model number"}, {"cpu_stepping", "CPU stepping"},
	{"cpu_model_name", "CPU"}, {"hypervisor", "virtual machine"}, {"ncpus", "CPUs"},
	{"paranoid", "perf events paranoia (perf_event_paranoid)"},
	{"max_sample_rate", "kernel's max sample rate (/s)"},
	{"cap_perfmon", "CAP_PERFMON"}, {"cap_sys_admin", "CAP_SYS_ADMIN"}, {"is_root", "root"},
	{"has_format_lost", "kernel reports lost samples (PERF_FORMAT_LOST)"},
	{"l1d_size", "L1 data cache (bytes)"}, {"l1d_line", "L1 data cache line (bytes)"},
	{"l1d_source", "L1 figures from"}, {"arm", "Arm"}, {"midr", "Arm MIDR"},
	{"core_pmu", "core PMU"}, {"core_pmu_type", "core PMU type"},
	{"pmu_counters", "general-purpose counters"}, {"pmu_counters_source", "counters from"},
	{"pmus_skipped", "PMUs not listed"}, {"root", "file-system root"},
	{"riscv", "RISC-V"}, {"riscv_isa", "RISC-V ISA"}, {"riscv_sscofpmf", "Sscofpmf"},
	{"riscv_fw_counters", "SBI firmware counters"}, {"kernel_major", "kernel major"},
	{"kernel_minor", "kernel minor"},
};

/* Fields of one architecture's machine, shown only on that architecture ("riscv_isa" when
 * "riscv" is true; "midr" when "arm" is). */
static bool other_architecture(const struct pb_rset *m, const char *name)
{
	static const char *const arch[] = {"riscv", "arm"};
	for (size_t i = 0; i < sizeof arch / sizeof arch[0]; i++) {
		size_t n = strlen(arch[i]);
		if (!strncmp(name, arch[i], n) && (name[n] == '\0' || name[n] == '_') &&
		    !pb_rset_is_true(m, arch[i]))
			return true;
	}
	return !strcmp(name, "midr") && !pb_rset_is_true(m, "arm");
}

static void machine_label(const struct pb_rset *doc, const char *name, char *buf, size_t len)
{
	const char *title = pb_result_fact_title(doc, name);
	if (title) {
		pb_format(buf, len, "%s", title);
		return;
	}
	for (size_t i = 0; i < sizeof machine_labels / sizeof machine_labels[0]; i++)
		if (!strcmp(machine_labels[i][0], name)) {
			pb_format(buf, len, "%s", machine_labels[i][1]);
			return;
		}
	pb_format(buf, len, "%s", name);
	for (char *c = buf; *c; c++)
		if (*c == '_')
			*c = ' ';
}

/* A value worth a row: not null, not empty text, not an object or a list. */
static bool shown_value(const struct pb_rvalue *v)
{
	if (is_object(v) || v->kind == PB_RV_LIST || v->kind == PB_RV_NULL)
		return false;
	return v->kind != PB_RV_TEXT || (v->as.text && *v->as.text);
}

static void machine_section(FILE *f, const struct pb_results *results)
{
	const struct pb_rset *doc = &results->machine;
	const struct pb_rset *m =
		pb_rset_get(doc, "machine") ? pb_rset_get_set(doc, "machine") : doc;
	fputs("<h2 id=\"machine\">Machine</h2>\n<div class=\"wide\"><table>\n", f);
	for (size_t i = 0; m && i < m->n; i++) {
		if (!shown_value(&m->f[i].v) || other_architecture(m, m->f[i].name))
			continue;
		char label[96];
		machine_label(doc, m->f[i].name, label, sizeof label);
		fputs("<tr><th>", f);
		pb_html_esc(f, label);
		fputs("</th><td>", f);
		scalar(f, &m->f[i].v);
		fputs("</td></tr>\n", f);
	}
	fputs("</table></div>\n", f);
	const struct pb_rlist *facilities = pb_rset_get_list(doc, "facilities");
	if (pb_rlist_size(facilities)) {
		fputs("<div class=\"wide\"><table>\n<tr><th>facility</th><th>available</th><th>IP</th>"
		      "<th>what was "
		      "found, or why not</th></tr>\n",
		      f);
		for (size_t i = 0; i < pb_rlist_size(facilities); i++) {
			const struct pb_rset *fa = pb_rlist_set_at(facilities, i);
			bool ok = pb_rset_is_true(fa, "available");
			fprintf(f, "<tr%s><td>", ok ? "" : " class=\"bad\"");
			pb_html_esc(f, str(fa, "usage")[0] ? str(fa, "usage") : str(fa, "name"));
			fprintf(f, "</td><td>%s</td><td>", ok ? "yes" : "no");
			pb_html_esc(f, str(fa, "ip"));
			fputs("</td><td>", f);
			pb_html_esc(f, ok ? str(fa, "detail") : str(fa, "reason"));
			fputs("</td></tr>\n", f);
		}
		fputs("</table></div>\n", f);
	}
}

static void skipped_section(FILE *f, const struct pb_results *results)
{
	const struct pb_rlist *skipped = &results->skipped;
	fputs("<h2 id=\"skipped\">Not run here</h2>\n", f);
	if (!pb_rlist_size(skipped)) {
		fputs("<p>Every chosen facility ran.</p>\n", f);
		return;
	}
	/* in a block of the page's width, as every table: a table alone does not keep to it */
	fputs("<div class=\"wide\"><table>\n<tr><th>facility</th><th>reason</th></tr>\n", f);
	for (size_t i = 0; i < pb_rlist_size(skipped); i++) {
		const struct pb_rset *s = pb_rlist_set_at(skipped, i);
		fputs("<tr><td>", f);
		pb_html_esc(f, str(s, "facility"));
		fputs("</td><td>", f);
		pb_html_esc(f, str(s, "reason"));
		fputs("</td></tr>\n", f);
	}
	fputs("</table></div>\n", f);
}

static void shares_table(FILE *f, const struct pb_results *r, const char *experiment)
{
	bool header = false;
	for (size_t i = 0; i < r->npoints; i++) {
		const struct pb_result_point *p = r->points[i];
		const struct pb_rvalue *shares = pb_rset_get(&p->metrics, "shares");
		if (!shares || strcmp(p->experiment, experiment))
			continue;
		if (!header) {
			fputs("<h3>Share of samples per event instruction</h3>\n<p>Ideal: an equal "
			      "share on each. &lsquo;At the IP&rsquo; counts a sample on the instruction "
			      "its IP names; &lsquo;IP+1-corrected&rsquo; on the one before it.</p>\n"
			      "<div class=\"wide\"><table>\n<tr><th>facility</th><th>workload</th>"
			      "<th>period</th>"
			      "<th>label</th><th>instruction</th><th>at the IP (%)</th>"
			      "<th>IP+1-corrected (%)</th></tr>\n",
			      f);
			header = true;
		}
		for (size_t j = 0; shares->kind == PB_RV_LIST && j < shares->as.list->n; j++) {
			const struct pb_rset *s = pb_rlist_set_at(shares->as.list, j);
			fputs("<tr><td>", f);
			pb_html_esc(f, p->facility);
			fputs("</td><td>", f);
			pb_html_esc(f, p->workload);
			fprintf(f, "</td><td class=\"n\">%lld</td><td>",
				(long long)pb_rset_get_int(&p->params, "period"));
			pb_html_esc(f, str(s, "label"));
			fputs("</td><td><code>", f);
			pb_html_esc(f, str(s, "insn"));
			fprintf(f, "</code></td><td class=\"n\">%.2f</td><td class=\"n\">%.2f</td></tr>\n",
				num(s, "share_at_ip"), num(s, "share_before_ip"));
		}
	}
	if (header)
		fputs("</table></div>\n", f);
}

static void figures(FILE *f, const struct pb_plot_set *plots, const char *experiment)
{
	if (!plots)
		return;
	for (size_t i = 0; i < plots->n; i++) {
		const struct pb_plot *pl = &plots->plots[i];
		if (strcmp(pl->experiment, experiment))
			continue;
		if (pl->sentence[0]) {
			/* a plot of flat lines says less than this sentence */
			fputs("<p class=\"nodraw\">", f);
			pb_html_esc(f, pl->sentence);
			fputs("</p>\n", f);
			continue;
		}
		fputs("<figure>\n", f);
		if (pl->rendered) {
			fputs("<img src=\"plots/", f);
			url(f, pl->name);
			fputs(".png\" alt=\"", f);
			pb_html_esc(f, pl->title);
			fputs("\">\n", f);
		}
		fputs("<figcaption><b>", f);
		pb_html_esc(f, pl->title);
		fputs(".</b> ", f);
		pb_html_esc(f, pl->caption);
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

static size_t experiments_of(const struct pb_results *r, const char **names, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < r->npoints; i++) {
		const char *e = r->points[i]->experiment;
		bool seen = false;
		for (size_t j = 0; j < n && !seen; j++)
			seen = !strcmp(names[j], e);
		if (!seen && n < max)
			names[n++] = e;
	}
	return n;
}

/* a point's problem at the top of the page, as the terminal summary says it under its table */
static void warn_problem(void *ctx, const char *line)
{
	FILE *f = ctx;
	fputs("<p class=\"warn\">", f);
	pb_html_esc(f, line);
	fputs("</p>\n", f);
}

char *pb_report_html(const struct pb_results *doc, const struct pb_plot_set *plots,
		     pb_summary_fn *summary, size_t *len)
{
	char *text = NULL;
	*len = 0;
	FILE *f = open_memstream(&text, len);
	if (!f)
		return NULL;
	char machine[256];
	pb_results_machine_label(doc, machine, sizeof machine);
	const char *names[64];
	size_t nexp = experiments_of(doc, names, 64);

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
	      "pesbench results: ",
	      f);
	pb_html_esc(f, machine);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>pesbench results</h1>\n"
		   "<p class=\"meta\">",
		style);
	pb_html_esc(f, machine);
	fputs("<br>started ", f);
	pb_html_esc(f, text_of(doc_get(doc, "started")));
	fputs(", finished ", f);
	pb_html_esc(f, text_of(doc_get(doc, "finished")));
	if (pb_rvalue_is_number(doc_get(doc, "elapsed_s")))
		fprintf(f, " (%.1f s)", pb_rvalue_number(doc_get(doc, "elapsed_s")));
	fputs("; pesbench ", f);
	pb_html_esc(f, text_of(doc_get(doc, "pesbench_version")));
	char load[256];
	if (pb_results_load_label(doc, load, sizeof load)) {
		fputs("<br>", f);
		pb_html_esc(f, load);
	}
	char speed[512];
	if (pb_results_speed_label(doc, speed, sizeof speed)) {
		fputs("<br>", f);
		pb_html_esc(f, speed);
	}
	fputs("<br>command: <code>pesbench", f);
	const struct pb_rvalue *command = doc_get(doc, "command");
	for (size_t i = 0; command && command->kind == PB_RV_LIST && i < command->as.list->n;
	     i++) {
		fputc(' ', f);
		pb_html_esc(f, text_of(&command->as.list->v[i]));
	}
	fputs("</code></p>\n", f);
	pb_summary_problems(doc, warn_problem, f);
	const struct pb_rvalue *complete = doc_get(doc, "complete");
	if (!(complete && complete->kind == PB_RV_BOOL && complete->as.b))
		fputs("<p class=\"warn\">INCOMPLETE: the suite was interrupted; the tables show what "
		      "was measured.</p>\n",
		      f);
	if (plots && plots->warning[0]) {
		fputs("<p class=\"warn\">", f);
		pb_html_esc(f, plots->warning);
		fputs("</p>\n", f);
	}
	fputs("<nav><a href=\"#scorecard\">scorecard</a><a href=\"#machine\">machine</a>"
	      "<a href=\"#skipped\">not run here</a>",
	      f);
	for (size_t e = 0; e < nexp; e++) {
		fputs("<a href=\"#exp-", f);
		url(f, names[e]);
		fputs("\">", f);
		pb_html_esc(f, names[e]);
		fputs("</a>", f);
	}
	fputs("<a href=\"results.json\">results.json</a><a href=\"results.csv\">results.csv</a>"
	      "</nav>\n",
	      f);

	pb_report_scorecard(f, doc);
	machine_section(f, doc);
	skipped_section(f, doc);
	for (size_t e = 0; e < nexp; e++) {
		fputs("<h2 id=\"exp-", f);
		url(f, names[e]);
		fputs("\">", f);
		pb_html_esc(f, names[e]);
		fputs("</h2>\n", f);
		const char *about = summary ? summary(names[e]) : NULL;
		if (about) {
			fputs("<p>", f);
			pb_html_esc(f, about);
			fputs(".</p>\n", f);
		}
		pb_report_experiment_table(f, doc, names[e]);
		shares_table(f, doc, names[e]);
		figures(f, plots, names[e]);
	}
	fputs("</body>\n</html>\n", f);
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
