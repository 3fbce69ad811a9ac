/* `compare` (compare.h): figure records lined up in one table per experiment. */
#include "present/compare_parts.h"

#include "io/result_traits.h"
#include "io/figures.h"
#include "io/results.h"
#include "present/report.h"
#include "util/kit.h"
#include "util/text.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct pb_compare *pb_compare_new(void)
{
	struct pb_compare *c = calloc(1, sizeof *c);
	if (c)
		c->records = json_array();
	return c;
}

void pb_compare_free(struct pb_compare *c)
{
	if (!c)
		return;
	for (size_t t = 0; t < c->ntables; t++)
		free(c->tables[t].rows);
	free(c->tables);
	free(c->memo);
	for (size_t r = 0; r < c->nruns; r++)
		json_decref(c->runs[r].scorecard);
	json_decref(c->records);
	free(c);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Records from `before` on came from one argument: each is marked with where it was read, and a
 * run an earlier argument already gave (the same folder named twice) becomes a run of its own. */
static void tag_source(struct pb_compare *c, size_t before, const char *path)
{
	/* the runs earlier arguments gave (records of one run sit together in practice, so the
	 * distinct ids are few and found by comparing each record with the last one kept) */
	const char *earlier[MAX_RUNS + 1];
	size_t nearlier = 0;
	for (size_t k = 0; k < before && nearlier <= MAX_RUNS; k++) {
		const char *id = text_of(json_array_get(c->records, k), "run_id");
		bool known = false;
		for (size_t e = nearlier; e-- > 0 && !known;)
			known = !strcmp(earlier[e], id);
		if (!known)
			earlier[nearlier++] = id;
	}
	for (size_t i = before; i < json_array_size(c->records); i++) {
		json_t *rec = json_array_get(c->records, i);
		json_object_set_new(rec, "source", json_string(path));
		const char *id = text_of(rec, "run_id");
		bool seen = false;
		for (size_t e = 0; e < nearlier && !seen; e++)
			seen = !strcmp(earlier[e], id);
		if (seen) {
			char again[512];
			pb_format(again, sizeof again, "%s (again, argument %zu)", id, c->nargs + 1);
			json_object_set_new(rec, "run_id", json_string(again));
		}
	}
}

bool pb_compare_is_jsonl(const char *arg)
{
	size_t len = strlen(arg);
	return !is_dir(arg) && !(len >= 5 && !strcmp(arg + len - 5, ".json"));
}

int pb_compare_add(struct pb_compare *c, const char *arg, struct pb_error *err)
{
	size_t before = json_array_size(c->records);
	char path[4200], dir[4200];
	if (pb_compare_is_jsonl(arg)) {
		if (pb_figures_load_jsonl(arg, c->records, err))
			return -1;
		pb_format(path, sizeof path, "%s", arg);
	} else {
		pb_results_locate(arg, path, sizeof path, dir, sizeof dir);
		const char *base = strrchr(dir, '/');
		json_t *records;
		if (pb_figures_of_file(path, base && base[1] ? base + 1 : dir, -1, &records, err))
			return -1;
		json_array_extend(c->records, records);
		json_decref(records);
	}
	tag_source(c, before, path);
	c->nargs++;
	return 0;
}

int pb_compare_add_jsonl(struct pb_compare *c, const char *data, size_t len, const char *name,
			 struct pb_error *err)
{
	size_t before = json_array_size(c->records);
	if (pb_figures_parse_jsonl(data, len, name, c->records, err))
		return -1;
	tag_source(c, before, name);
	c->nargs++;
	return 0;
}

static struct run *run_of(struct pb_compare *c, const json_t *rec, struct pb_error *err)
{
	const char *id = text_of(rec, "run_id");
	for (size_t r = 0; r < c->nruns; r++)
		if (!strcmp(c->runs[r].id, id))
			return &c->runs[r];
	if (c->nruns == MAX_RUNS) {
		pb_fail(err, PB_EXIT_USAGE, 0,
			"at most %d runs can be compared at once; compare a selection (say one "
			"machine per CPU model)",
			MAX_RUNS);
		return NULL;
	}
	struct run *run = &c->runs[c->nruns++];
	const json_t *m = json_object_get(rec, "machine");
	pb_format(run->id, sizeof run->id, "%s", id);
	pb_format(run->label, sizeof run->label, "%s", text_of(m, "label"));
	pb_format(run->source, sizeof run->source, "%s", text_of(rec, "source"));
	/* runs of one CPU model sit together: vendor, family, model (arm64: MIDR) */
	const json_t *midr = json_object_get(m, "midr");
	if (json_is_integer(midr))
		pb_format(run->group, sizeof run->group, "%s %s (MIDR 0x%llx)",
			  text_of(m, "cpu_vendor"), text_of(m, "cpu_model_name"),
			  (unsigned long long)json_integer_value(midr));
	else
		pb_format(run->group, sizeof run->group, "%s %lld/%lld %s",
			  text_of(m, "cpu_vendor"),
			  (long long)json_integer_value(json_object_get(m, "cpu_family")),
			  (long long)json_integer_value(json_object_get(m, "cpu_model")),
			  text_of(m, "cpu_model_name"));
	run->machine = m;
	run->scorecard = json_array();
	run->exit_code = -1;
	run->complete = true;
	return run;
}

static void value_text(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		pb_format(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		pb_format(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		pb_format(buf, len, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		pb_format(buf, len, "%s", json_is_true(v) ? "yes" : "no");
	else
		pb_format(buf, len, "?");
}

static const char *short_setting(const char *name)
{
	static const char *const names[][2] = {
		{"events_opened_together", "k"}, {"threads", "thr"}, {"ring_pages", "pages"},
		{"period_kind", "periods"},
	};
	for (size_t i = 0; i < PB_ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i][0]))
			return names[i][1];
	return name;
}

/* Each run's value of a setting over the figures of an experiment (NULL: the run has none);
 * returns whether each run has at most one value. A setting that does is the run's own: it
 * tells runs apart, not rows. */
static bool setting_per_run(const struct pb_compare *c, const char *experiment,
			    const char *name, const json_t *value[MAX_RUNS])
{
	bool one_each = true;
	memset(value, 0, MAX_RUNS * sizeof *value);
	size_t i;
	json_t *rec;
	json_array_foreach(c->records, i, rec) {
		if (strcmp(text_of(rec, "record"), "figure") ||
		    strcmp(text_of(rec, "experiment"), experiment))
			continue;
		const json_t *v = json_object_get(json_object_get(rec, "settings"), name);
		size_t r = 0;
		while (r < c->nruns && strcmp(c->runs[r].id, text_of(rec, "run_id")))
			r++;
		if (!v || r == c->nruns)
			continue;
		if (value[r] && !json_equal((json_t *)value[r], (json_t *)v))
			one_each = false;
		value[r] = v;
	}
	return one_each;
}

static bool run_level(struct pb_compare *c, const char *experiment, const char *name)
{
	for (size_t i = 0; i < c->nmemo; i++)
		if (!strcmp(c->memo[i].experiment, experiment) && !strcmp(c->memo[i].name, name))
			return c->memo[i].run_level;
	const json_t *value[MAX_RUNS];
	bool level = setting_per_run(c, experiment, name, value);
	struct level_memo *grown = realloc(c->memo, (c->nmemo + 1) * sizeof *grown);
	if (grown) {
		c->memo = grown;
		struct level_memo *m = &c->memo[c->nmemo++];
		pb_format(m->experiment, sizeof m->experiment, "%s", experiment);
		pb_format(m->name, sizeof m->name, "%s", name);
		m->run_level = level;
	}
	return level;
}

/* "delivery: A none, B signal" for a run-level setting whose value differs between runs. */
static void note_difference(const struct pb_compare *c, const char *experiment,
			    const char *name, struct table *t)
{
	const json_t *value[MAX_RUNS];
	setting_per_run(c, experiment, name, value);
	const json_t *first = NULL;
	bool differ = false;
	for (size_t r = 0; r < c->nruns; r++) {
		if (!value[r])
			continue;
		if (first && !json_equal((json_t *)first, (json_t *)value[r]))
			differ = true;
		first = first ? first : value[r];
	}
	if (!differ)
		return;
	pb_append(t->differs, sizeof t->differs, "%s%s:", t->differs[0] ? "; " : "", name);
	for (size_t col = 0; col < c->nruns; col++) {
		size_t r = c->order[col];
		char text[96] = "-";
		if (value[r])
			value_text(value[r], text, sizeof text);
		pb_append(t->differs, sizeof t->differs, " %s %s", c->runs[r].name, text);
	}
}

static struct table *table_of(struct pb_compare *c, const char *experiment)
{
	for (size_t t = 0; t < c->ntables; t++)
		if (!strcmp(c->tables[t].experiment, experiment))
			return &c->tables[t];
	struct table *grown = realloc(c->tables, (c->ntables + 1) * sizeof *grown);
	if (!grown)
		return NULL;
	c->tables = grown;
	struct table *t = &c->tables[c->ntables++];
	memset(t, 0, sizeof *t);
	pb_format(t->experiment, sizeof t->experiment, "%s", experiment);
	return t;
}

static int add_figure(struct pb_compare *c, struct table *t, const json_t *rec, size_t run)
{
	struct row key;
	memset(&key, 0, sizeof key);
	pb_format(key.facility, sizeof key.facility, "%s", text_of(rec, "facility"));
	/* precise facilities of different vendors are one kind: the record's family says so */
	pb_figure_family(rec, key.kind, sizeof key.kind);
	pb_format(key.workload, sizeof key.workload, "%s", text_of(rec, "workload"));
	pb_format(key.metric, sizeof key.metric, "%s", text_of(rec, "metric"));
	pb_format(key.unit, sizeof key.unit, "%s", text_of(rec, "unit"));
	const char *name;
	json_t *v;
	json_object_foreach(json_object_get(rec, "settings"), name, v) {
		if (run_level(c, t->experiment, name))
			continue;
		char text[96];
		value_text(v, text, sizeof text);
		pb_append(key.settings, sizeof key.settings, "%s%s=%s", key.settings[0] ? " " : "",
			  short_setting(name), text);
	}
	/* the n-th figure of a setting in one run meets the n-th in another */
	for (unsigned occurrence = 0;; occurrence++) {
		pb_format(key.key, sizeof key.key, "%s|%s|%s|%s|%u", key.kind, key.workload,
			  key.settings, key.metric, occurrence);
		size_t k = 0;
		while (k < t->nrows && strcmp(t->rows[k].key, key.key))
			k++;
		if (k < t->nrows && t->rows[k].cells[run].rec)
			continue;
		if (k == t->nrows) {
			if (t->nrows == t->cap) {
				size_t cap = t->cap ? 2 * t->cap : 16;
				struct row *grown = realloc(t->rows, cap * sizeof *grown);
				if (!grown)
					return -1;
				t->rows = grown;
				t->cap = cap;
			}
			t->rows[t->nrows++] = key;
		}
		struct cell *cell = &t->rows[k].cells[run];
		const json_t *iv = json_object_get(rec, "interval");
		cell->rec = rec;
		cell->value = json_number_value(json_object_get(rec, "value"));
		cell->has_interval = json_is_object(iv);
		cell->lo = json_number_value(json_object_get(iv, "lo"));
		cell->hi = json_number_value(json_object_get(iv, "hi"));
		cell->resolved = !json_is_false(json_object_get(rec, "resolved"));
		return 0;
	}
}

static void name_runs(struct pb_compare *c)
{
	/* columns: CPU models in the order they first appear, runs within them likewise */
	size_t n = 0;
	for (size_t r = 0; r < c->nruns; r++) {
		bool placed = false;
		for (size_t k = 0; k < n && !placed; k++)
			placed = c->order[k] == r;
		if (placed)
			continue;
		for (size_t s = r; s < c->nruns; s++)
			if (!strcmp(c->runs[s].group, c->runs[r].group))
				c->order[n++] = s;
	}
	for (size_t col = 0; col < c->nruns; col++) {
		struct run *run = &c->runs[c->order[col]];
		if (col < 26)
			pb_format(run->name, sizeof run->name, "%c", (char)('A' + col));
		else
			pb_format(run->name, sizeof run->name, "%c%zu", (char)('A' + col / 26 - 1),
				  col % 26);
	}
}

/* A figure's rows together (cost: every ns/sample row, then every excess row), in the order
 * the figures first appear; the order within one figure is kept. */
static void group_by_metric(struct table *t)
{
	struct row *sorted = malloc(t->nrows * sizeof *sorted);
	if (!sorted)
		return;
	size_t n = 0;
	for (size_t first = 0; first < t->nrows; first++) {
		bool seen = false;
		for (size_t q = 0; q < first && !seen; q++)
			seen = !strcmp(t->rows[q].metric, t->rows[first].metric);
		if (seen)
			continue;
		for (size_t r = first; r < t->nrows; r++)
			if (!strcmp(t->rows[r].metric, t->rows[first].metric))
				sorted[n++] = t->rows[r];
	}
	memcpy(t->rows, sorted, n * sizeof *sorted);
	free(sorted);
}

static bool has_token(const char *list, const char *token)
{
	size_t n = strlen(token);
	for (const char *p = list; (p = strstr(p, token)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

/* Per facility, the workload and settings all its rows share go above the table once; each
 * row keeps only what tells it from the others. */
static void split_common(struct table *t)
{
	for (size_t r = 0; r < t->nrows; r++) {
		bool first = true;
		for (size_t q = 0; q < r && first; q++)
			first = strcmp(t->rows[q].facility, t->rows[r].facility) != 0;
		if (!first)
			continue;
		const char *facility = t->rows[r].facility;
		bool same_workload = true;
		char tokens[512], common[512] = "";
		pb_format(tokens, sizeof tokens, "%s", t->rows[r].settings);
		for (char *save = NULL, *tok = strtok_r(tokens, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save)) {
			bool everywhere = true;
			for (size_t q = r; q < t->nrows; q++)
				if (!strcmp(t->rows[q].facility, facility))
					everywhere &= has_token(t->rows[q].settings, tok);
			if (everywhere)
				pb_append(common, sizeof common, " %s", tok);
		}
		for (size_t q = r; q < t->nrows; q++)
			if (!strcmp(t->rows[q].facility, facility))
				same_workload &= !strcmp(t->rows[q].workload, t->rows[r].workload);
		pb_append(t->common, sizeof t->common, "%s%s: %s%s", t->common[0] ? "\n" : "",
			  facility, same_workload ? t->rows[r].workload : "various workloads",
			  common);
		for (size_t q = r; q < t->nrows; q++) {
			struct row *row = &t->rows[q];
			if (strcmp(row->facility, facility))
				continue;
			row->rest[0] = '\0';
			if (!same_workload)
				pb_append(row->rest, sizeof row->rest, "%s", row->workload);
			pb_format(tokens, sizeof tokens, "%s", row->settings);
			for (char *save = NULL, *tok = strtok_r(tokens, " ", &save); tok;
			     tok = strtok_r(NULL, " ", &save))
				if (!has_token(common, tok))
					pb_append(row->rest, sizeof row->rest, "%s%s",
						  row->rest[0] ? " " : "", tok);
		}
	}
}

int pb_compare_build(struct pb_compare *c, struct pb_error *err)
{
	size_t i;
	json_t *rec;
	json_array_foreach(c->records, i, rec) {
		struct run *run = run_of(c, rec, err);
		if (!run)
			return -1;
		const char *kind = text_of(rec, "record");
		if (!strcmp(kind, "scorecard"))
			json_array_append(run->scorecard, rec);
		if (!strcmp(kind, "run") && json_is_false(json_object_get(rec, "complete")))
			run->complete = false;
		if (!strcmp(kind, "run") && json_is_object(json_object_get(rec, "load")))
			run->load = json_object_get(rec, "load");
		if (!strcmp(kind, "done")) {
			run->exit_code = (int)json_integer_value(json_object_get(rec, "exit_code"));
			run->complete = json_is_true(json_object_get(rec, "complete"));
		}
	}
	if (c->nruns < 2)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "compare needs the results of two or more runs (got %zu); `pesbench "
			       "report` shows one",
			       c->nruns);
	name_runs(c);
	json_array_foreach(c->records, i, rec) {
		if (strcmp(text_of(rec, "record"), "figure"))
			continue;
		struct table *t = table_of(c, text_of(rec, "experiment"));
		size_t run = 0;
		while (strcmp(c->runs[run].id, text_of(rec, "run_id")))
			run++;
		if (!t || add_figure(c, t, rec, run))
			return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	}
	for (size_t k = 0; k < c->ntables; k++) {
		struct table *t = &c->tables[k];
		/* the settings that tell runs apart, said once above the table */
		char names[64][32];
		size_t nnames = 0;
		json_array_foreach(c->records, i, rec) {
			if (strcmp(text_of(rec, "record"), "figure") ||
			    strcmp(text_of(rec, "experiment"), t->experiment))
				continue;
			const char *name;
			json_t *v;
			json_object_foreach(json_object_get(rec, "settings"), name, v) {
				size_t n = 0;
				while (n < nnames && strcmp(names[n], name))
					n++;
				if (n == nnames && nnames < PB_ARRAY_SIZE(names))
					pb_format(names[nnames++], sizeof names[0], "%s", name);
			}
		}
		for (size_t n = 0; n < nnames; n++)
			if (run_level(c, t->experiment, names[n]))
				note_difference(c, t->experiment, names[n], t);
		for (size_t r = 1; r < t->nrows; r++)
			if (strcmp(t->rows[r].metric, t->rows[0].metric))
				t->several_metrics = true;
		group_by_metric(t);
		split_common(t);
	}
	return 0;
}

