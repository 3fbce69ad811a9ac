#include "io/results.h"
#include "io/result_traits.h"

#include "facilities/facility.h"

#include "util/kit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double realtime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void iso_time(double t, char *buf, size_t len)
{
	time_t secs = (time_t)t;
	struct tm tm;
	gmtime_r(&secs, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int make_dirs(const char *dir, struct pb_error *err)
{
	char path[4096];
	if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
		return pb_fail(err, PB_EXIT_OUTPUT, 0, "output folder name too long");
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot create folder %s: %s", path,
				       strerror(errno));
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot create output folder %s: %s",
			       path, strerror(errno));
	struct stat st;
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return pb_fail(err, PB_EXIT_OUTPUT, ENOTDIR, "output path %s is not a folder", path);
	if (access(path, W_OK))
		return pb_fail(err, PB_EXIT_OUTPUT, errno,
			       "output folder %s is not writable: %s; choose another with --out",
			       path, strerror(errno));
	return 0;
}

int pb_results_open(struct pb_results *r, const char *dir, int argc, char **argv,
		    struct pb_error *err)
{
	pb_results_init(r);
	if (make_dirs(dir, err))
		return -1;
	snprintf(r->dir, sizeof r->dir, "%s", dir);
	snprintf(r->schema, sizeof r->schema, "%s", PB_RESULTS_SCHEMA);
	r->started = realtime();
	char when[32];
	iso_time(r->started, when, sizeof when);
	pb_rset_text(&r->head, "pesbench_version", PB_VERSION);
	pb_rset_bool(&r->head, "complete", false);
	pb_rset_text(&r->head, "started", when);
	struct pb_rlist *cmd = pb_rset_list(&r->head, "command");
	for (int i = 0; i < argc; i++)
		pb_rlist_text(cmd, argv[i]);
	return 0;
}

int pb_write_atomic(const char *path, const char *text, size_t len, struct pb_error *err)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot write %s: %s", tmp,
			       strerror(errno));
	size_t n = fwrite(text, 1, len, f);
	int flush_failed = fflush(f) || fsync(fileno(f));
	int saved = errno;
	if (fclose(f) || n != len || flush_failed) {
		unlink(tmp);
		return pb_fail(err, PB_EXIT_OUTPUT, saved, "cannot write %s: %s (disk full?)", path,
			       strerror(saved ? saved : EIO));
	}
	if (rename(tmp, path)) {
		saved = errno;
		unlink(tmp);
		return pb_fail(err, PB_EXIT_OUTPUT, saved, "cannot rename %s to %s: %s", tmp, path,
			       strerror(saved));
	}
	return 0;
}

/* ---- typed values to JSON and back ---- */

static json_t *value_json(const struct pb_rvalue *v);

json_t *pb_rvalue_json(const struct pb_rvalue *v)
{
	return value_json(v);
}

static json_t *set_json(const struct pb_rset *s)
{
	json_t *o = json_object();
	for (size_t i = 0; i < s->n; i++)
		json_object_set_new(o, s->f[i].name, value_json(&s->f[i].v));
	return o;
}

static json_t *value_json(const struct pb_rvalue *v)
{
	switch (v->kind) {
	case PB_RV_BOOL:
		return json_boolean(v->as.b);
	case PB_RV_INT:
		return json_integer((json_int_t)v->as.i);
	case PB_RV_REAL:
		return json_real(v->as.r);
	case PB_RV_TEXT:
		return json_string(v->as.text);
	case PB_RV_SUMMARY: {
		const struct pb_rsummary *s = &v->as.sum;
		return json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f}", "n", (int)s->n, "mean",
				 s->mean, "stdev", s->stdev, "min", s->min, "max", s->max, "median",
				 s->median, "ci95", s->ci95);
	}
	case PB_RV_SET:
		return set_json(v->as.set);
	case PB_RV_LIST: {
		json_t *a = json_array();
		for (size_t i = 0; i < v->as.list->n; i++)
			json_array_append_new(a, value_json(&v->as.list->v[i]));
		return a;
	}
	case PB_RV_NULL:
	default:
		return json_null();
	}
}

/* The unit of every named number, for the "units" object; conflict gets the first name that
 * carries two. */
struct unit_map {
	json_t *units;
	const char *conflict;
};

static void collect_units(struct unit_map *m, const char *name, const struct pb_rvalue *v)
{
	if (v->kind == PB_RV_SET) {
		for (size_t i = 0; i < v->as.set->n; i++)
			collect_units(m, v->as.set->f[i].name, &v->as.set->f[i].v);
		return;
	}
	if (v->kind == PB_RV_LIST) {
		for (size_t i = 0; i < v->as.list->n; i++)
			collect_units(m, name, &v->as.list->v[i]);
		return;
	}
	if (!name || v->unit == PB_UNIT_NONE)
		return;
	const char *unit = pb_unit_name(v->unit);
	json_t *had = json_object_get(m->units, name);
	if (!had)
		json_object_set_new(m->units, name, json_string(unit));
	else if (strcmp(json_string_value(had), unit) && !m->conflict)
		m->conflict = name;
}

static void collect_set_units(struct unit_map *m, const struct pb_rset *s)
{
	struct pb_rvalue v = {.kind = PB_RV_SET, .as.set = (struct pb_rset *)s};
	collect_units(m, NULL, &v);
}

static void collect_list_units(struct unit_map *m, const struct pb_rlist *l)
{
	struct pb_rvalue v = {.kind = PB_RV_LIST, .as.list = (struct pb_rlist *)l};
	collect_units(m, NULL, &v);
}

static struct unit_map doc_units(const struct pb_results *r)
{
	struct unit_map m = {.units = json_object()};
	collect_set_units(&m, &r->head);
	for (size_t i = 0; i < r->npoints; i++) {
		collect_set_units(&m, &r->points[i]->params);
		collect_list_units(&m, &r->points[i]->runs);
		collect_set_units(&m, &r->points[i]->metrics);
	}
	collect_set_units(&m, &r->tail);
	return m;
}

const char *pb_results_unit_conflict(const struct pb_results *r)
{
	struct unit_map m = doc_units(r);
	json_decref(m.units);
	return m.conflict;
}

static json_t *point_json(const struct pb_result_point *p, bool v1)
{
	json_t *o = json_pack("{s:s, s:s, s:s}", "experiment", p->experiment, "facility",
			      p->facility, "workload", p->workload);
	/* a point measured without them gets those the registry of the build that measured it
	 * gives its facility (io/result_traits.h); a /1 document is written back as it was */
	struct pb_rset scratch = {0};
	const struct pb_rset *traits = v1 ? &p->traits : pb_result_traits(p, &scratch);
	if (traits->n)
		json_object_set_new(o, "traits", set_json(traits));
	pb_rset_clear(&scratch);
	struct pb_rvalue runs = {.kind = PB_RV_LIST, .as.list = (struct pb_rlist *)&p->runs};
	json_object_set_new(o, "runs", value_json(&runs));
	json_object_set_new(o, "metrics", set_json(&p->metrics));
	json_t *params = set_json(&p->params);
	json_object_update(o, params);
	json_decref(params);
	return o;
}

json_t *pb_results_json(const struct pb_results *r)
{
	json_t *root = json_pack("{s:s}", "schema", r->schema[0] ? r->schema : PB_RESULTS_SCHEMA);
	json_t *part = set_json(&r->head);
	json_object_update(root, part);
	json_decref(part);
	json_object_set_new(root, "machine", set_json(&r->machine));
	struct pb_rvalue skipped = {.kind = PB_RV_LIST, .as.list = (struct pb_rlist *)&r->skipped};
	json_object_set_new(root, "skipped", value_json(&skipped));
	if (pb_rlist_size(&r->scorecard)) {
		struct pb_rvalue card = {.kind = PB_RV_LIST,
					 .as.list = (struct pb_rlist *)&r->scorecard};
		json_object_set_new(root, "scorecard", value_json(&card));
	}
	json_t *points = json_array();
	for (size_t i = 0; i < r->npoints; i++)
		json_array_append_new(points, point_json(r->points[i], !strcmp(r->schema, PB_RESULTS_SCHEMA_V1)));
	json_object_set_new(root, "points", points);
	part = set_json(&r->tail);
	json_object_update(root, part);
	json_decref(part);
	if (strcmp(json_string_value(json_object_get(root, "schema")), PB_RESULTS_SCHEMA_V1)) {
		struct unit_map m = doc_units(r);
		json_object_set_new(root, "units", m.units);
	}
	return root;
}
/* CSV: the point's scalar fields, then the run's scalar fields, one row per run. The header is
 * the union of names in first-seen order. */
static bool is_scalar(const struct pb_rvalue *v)
{
	return v->kind != PB_RV_SET && v->kind != PB_RV_LIST && v->kind != PB_RV_SUMMARY;
}

static void add_key(json_t *keys, const char *prefix, const char *key)
{
	char name[256];
	snprintf(name, sizeof name, "%s%s", prefix, key);
	size_t i;
	json_t *e;
	json_array_foreach(keys, i, e) if (!strcmp(json_string_value(e), name)) return;
	json_array_append_new(keys, json_string(name));
}

static void collect_keys(const struct pb_rset *s, json_t *keys, const char *prefix)
{
	for (size_t i = 0; i < s->n; i++)
		if (is_scalar(&s->f[i].v))
			add_key(keys, prefix, s->f[i].name);
}

static void csv_text(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_value(FILE *f, const struct pb_rvalue *v)
{
	if (!v)
		return;
	switch (v->kind) {
	case PB_RV_TEXT:
		csv_text(f, v->as.text);
		break;
	case PB_RV_INT:
		fprintf(f, "%lld", (long long)v->as.i);
		break;
	case PB_RV_REAL:
		fprintf(f, "%.6g", v->as.r);
		break;
	case PB_RV_BOOL:
		fputs(v->as.b ? "true" : "false", f);
		break;
	default:
		break;
	}
}

static void csv_point_value(FILE *f, const struct pb_result_point *p, const char *name)
{
	if (!strcmp(name, "experiment"))
		csv_text(f, p->experiment);
	else if (!strcmp(name, "facility"))
		csv_text(f, p->facility);
	else if (!strcmp(name, "workload"))
		csv_text(f, p->workload);
	else
		csv_value(f, pb_rset_get(&p->params, name));
}

static char *render_csv(const struct pb_results *r, size_t *len)
{
	json_t *keys = json_array();
	for (size_t i = 0; i < r->npoints; i++) {
		const struct pb_result_point *p = r->points[i];
		add_key(keys, "", "experiment");
		add_key(keys, "", "facility");
		add_key(keys, "", "workload");
		collect_keys(&p->params, keys, "");
		for (size_t j = 0; j < p->runs.n; j++)
			if (p->runs.v[j].kind == PB_RV_SET)
				collect_keys(p->runs.v[j].as.set, keys, "run.");
	}
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	size_t i;
	json_t *k;
	json_array_foreach(keys, i, k) fprintf(f, "%s%s", i ? "," : "", json_string_value(k));
	fputc('\n', f);
	for (size_t pi = 0; pi < r->npoints; pi++) {
		const struct pb_result_point *p = r->points[pi];
		for (size_t j = 0; j < p->runs.n; j++) {
			const struct pb_rset *run = pb_rlist_set_at(&p->runs, j);
			size_t c;
			json_array_foreach(keys, c, k) {
				const char *name = json_string_value(k);
				if (c)
					fputc(',', f);
				if (!strncmp(name, "run.", 4))
					csv_value(f, pb_rset_get(run, name + 4));
				else
					csv_point_value(f, p, name);
			}
			fputc('\n', f);
		}
	}
	fclose(f);
	json_decref(keys);
	return text;
}

int pb_results_write(struct pb_results *r, bool complete, int exit_code, struct pb_error *err)
{
	double now = realtime();
	char when[32];
	iso_time(now, when, sizeof when);
	pb_rset_bool(&r->head, "complete", complete);
	pb_rset_text(&r->tail, "finished", when);
	pb_rset_real(&r->tail, "elapsed_s", PB_UNIT_S, now - r->started);
	/* a folder says how its run ended as its results.jsonl's done record does */
	pb_rset_int(&r->tail, "exit_code", PB_UNIT_NONE, exit_code);
	/* results.csv first: results.json is what says a run is whole, so when the disk fills
	 * up between the two writes no results.json is left beside a missing table. */
	char path[4200];
	size_t len = 0;
	char *csv = render_csv(r, &len);
	snprintf(path, sizeof path, "%s/results.csv", r->dir);
	int rc = pb_write_atomic(path, csv ? csv : "", csv ? len : 0, err);
	free(csv);
	if (rc)
		return -1;
	json_t *root = pb_results_json(r);
	char *json = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!json)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "cannot render results.json");
	snprintf(path, sizeof path, "%s/results.json", r->dir);
	rc = pb_write_atomic(path, json, strlen(json), err);
	free(json);
	return rc;
}

void pb_results_close(struct pb_results *r)
{
	pb_results_free(r);
}

/* ---- reading results.json back ---- */

/* The units a pesbench-results/1 file implied for its fields: /1 wrote no "units" object, and
 * these are the units the /2 writer gives the same fields (a facility's own figures are its
 * own: pb_own_figure_named). */
static const struct {
	const char *name, *unit;
} v1_units[] = {
#include "io/implied_units.inc"
};

enum pb_unit pb_results_implied_unit(const char *name)
{
	enum pb_unit u = PB_UNIT_NONE;
	for (size_t i = 0; i < PB_ARRAY_SIZE(v1_units); i++)
		if (!strcmp(v1_units[i].name, name)) {
			pb_unit_parse(v1_units[i].unit, &u);
			return u;
		}
	const struct pb_own_figure *own = pb_own_figure_named(name);
	if (own)
		pb_unit_parse(own->unit, &u);
	return u;
}

/* Where a loaded document's units come from: its "units" object (/2), the /1 table, or
 * nowhere (the machine's probe document has no units). */
struct unit_source {
	const json_t *units;
	bool v1;
};

static enum pb_unit unit_for(const struct unit_source *units, const char *name)
{
	enum pb_unit u = PB_UNIT_NONE;
	if (!name || !units)
		return u;
	if (!units->v1) {
		const char *text = json_string_value(json_object_get(units->units, name));
		if (text)
			pb_unit_parse(text, &u);
		return u;
	}
	return pb_results_implied_unit(name);
}

static bool is_summary(const json_t *o)
{
	static const char *const keys[] = {"n", "mean", "stdev", "min", "max", "median", "ci95"};
	if (json_object_size(o) != PB_ARRAY_SIZE(keys) ||
	    !json_is_integer(json_object_get(o, "n")))
		return false;
	for (size_t i = 1; i < PB_ARRAY_SIZE(keys); i++)
		if (!json_is_number(json_object_get(o, keys[i])))
			return false;
	return true;
}

static void json_to_set(struct pb_rset *s, const json_t *o, const struct unit_source *units);

static void json_to_value(struct pb_rvalue *v, const json_t *j, const char *name,
			  const struct unit_source *units)
{
	memset(v, 0, sizeof *v);
	v->unit = unit_for(units, name);
	switch (json_typeof(j)) {
	case JSON_TRUE:
	case JSON_FALSE:
		v->kind = PB_RV_BOOL;
		v->as.b = json_is_true(j);
		v->unit = PB_UNIT_NONE;
		break;
	case JSON_INTEGER:
		v->kind = PB_RV_INT;
		v->as.i = (int64_t)json_integer_value(j);
		break;
	case JSON_REAL:
		v->kind = PB_RV_REAL;
		v->as.r = json_real_value(j);
		break;
	case JSON_STRING:
		v->kind = PB_RV_TEXT;
		v->unit = PB_UNIT_NONE;
		v->as.text = strdup(json_string_value(j));
		if (!v->as.text)
			abort();
		break;
	case JSON_OBJECT:
		if (is_summary(j)) {
			v->kind = PB_RV_SUMMARY;
			struct pb_rsummary *s = &v->as.sum;
			s->n = (unsigned)json_integer_value(json_object_get(j, "n"));
			s->mean = json_number_value(json_object_get(j, "mean"));
			s->stdev = json_number_value(json_object_get(j, "stdev"));
			s->min = json_number_value(json_object_get(j, "min"));
			s->max = json_number_value(json_object_get(j, "max"));
			s->median = json_number_value(json_object_get(j, "median"));
			s->ci95 = json_number_value(json_object_get(j, "ci95"));
			break;
		}
		/* a table of one figure (a summary written without its ci95) keeps the
		 * figure's unit */
		v->kind = PB_RV_SET;
		v->as.set = calloc(1, sizeof *v->as.set);
		if (!v->as.set)
			abort();
		json_to_set(v->as.set, j, units);
		break;
	case JSON_ARRAY: {
		v->kind = PB_RV_LIST;
		v->as.list = calloc(1, sizeof *v->as.list);
		if (!v->as.list)
			abort();
		size_t i;
		const json_t *e;
		json_array_foreach(j, i, e) {
			struct pb_rvalue x;
			/* a list's numbers carry the list's unit */
			json_to_value(&x, e, name, units);
			pb_rlist_put(v->as.list, &x);
			pb_rvalue_clear(&x);
		}
		break;
	}
	case JSON_NULL:
	default:
		v->kind = PB_RV_NULL;
		break;
	}
}

static void json_to_set(struct pb_rset *s, const json_t *o, const struct unit_source *units)
{
	const char *k;
	const json_t *j;
	json_object_foreach((json_t *)o, k, j) {
		struct pb_rvalue x;
		json_to_value(&x, j, k, units);
		pb_rset_put(s, k, &x);
		pb_rvalue_clear(&x);
	}
}

static const char *text_or_empty(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static void json_to_point(struct pb_results *r, const json_t *o, const struct unit_source *units)
{
	struct pb_result_point *p =
		pb_results_point(r, text_or_empty(o, "experiment"), text_or_empty(o, "facility"),
				 text_or_empty(o, "workload"));
	const char *k;
	const json_t *j;
	json_object_foreach((json_t *)o, k, j) {
		if (!strcmp(k, "experiment") || !strcmp(k, "facility") || !strcmp(k, "workload"))
			continue;
		struct pb_rvalue x;
		json_to_value(&x, j, k, units);
		if (!strcmp(k, "runs") && x.kind == PB_RV_LIST) {
			p->runs = *x.as.list;
			free(x.as.list);
		} else if (!strcmp(k, "metrics") && x.kind == PB_RV_SET) {
			p->metrics = *x.as.set;
			free(x.as.set);
		} else if (!strcmp(k, "traits") && x.kind == PB_RV_SET) {
			p->traits = *x.as.set;
			free(x.as.set);
		} else {
			pb_rset_put(&p->params, k, &x);
			pb_rvalue_clear(&x);
		}
	}
}

static void json_to_results(struct pb_results *r, const json_t *root)
{
	struct unit_source src = {.units = json_object_get(root, "units"),
				  .v1 = !strcmp(r->schema, PB_RESULTS_SCHEMA_V1)};
	const struct unit_source *units = &src;
	bool after_points = false;
	const char *k;
	const json_t *j;
	json_object_foreach((json_t *)root, k, j) {
		if (!strcmp(k, "schema") || !strcmp(k, "units"))
			continue;
		if (!strcmp(k, "machine")) {
			if (json_is_object(j))
				json_to_set(&r->machine, j, NULL);
		} else if (!strcmp(k, "skipped") || !strcmp(k, "scorecard")) {
			struct pb_rvalue x;
			json_to_value(&x, j, k, units);
			if (x.kind == PB_RV_LIST) {
				struct pb_rlist *to = !strcmp(k, "skipped") ? &r->skipped : &r->scorecard;
				pb_rlist_clear(to);
				*to = *x.as.list;
				free(x.as.list);
			} else {
				pb_rvalue_clear(&x);
			}
		} else if (!strcmp(k, "points")) {
			size_t i;
			const json_t *p;
			json_array_foreach(j, i, p) if (json_is_object(p)) json_to_point(r, p, units);
			after_points = true;
		} else {
			struct pb_rvalue x;
			json_to_value(&x, j, k, units);
			pb_rset_put(after_points ? &r->tail : &r->head, k, &x);
			pb_rvalue_clear(&x);
		}
	}
}

void pb_results_set_machine(struct pb_results *r, const json_t *machine)
{
	pb_rset_clear(&r->machine);
	if (json_is_object(machine))
		json_to_set(&r->machine, machine, NULL);
}

/* The checks shared by the file and buffer loaders, on what json_load* returned. */
static int check_loaded(const char *name, json_t *root, const json_error_t *je,
			struct pb_results *r, struct pb_error *err)
{
	pb_results_init(r);
	if (!root)
		return pb_fail(err, PB_EXIT_BAD_FILE, 0,
			       "%s is not valid JSON (line %d, column %d: %s); was it cut short?",
			       name, je->line, je->column, je->text);
	const char *schema = json_string_value(json_object_get(root, "schema"));
	if (!schema || (strcmp(schema, PB_RESULTS_SCHEMA) && strcmp(schema, PB_RESULTS_SCHEMA_V1))) {
		int rc = pb_fail(err, PB_EXIT_BAD_FILE, 0,
				 "%s has schema '%s'; this pesbench reads '%s' and '%s' (re-run the "
				 "suite with this version, or use the pesbench that wrote it)",
				 name, schema ? schema : "(none)", PB_RESULTS_SCHEMA,
				 PB_RESULTS_SCHEMA_V1);
		json_decref(root);
		return rc;
	}
	if (!json_is_array(json_object_get(root, "points"))) {
		json_decref(root);
		return pb_fail(err, PB_EXIT_BAD_FILE, 0, "%s has no 'points' array", name);
	}
	snprintf(r->schema, sizeof r->schema, "%s", schema);
	json_to_results(r, root);
	json_decref(root);
	return 0;
}

int pb_results_load(const char *path, struct pb_results *r, struct pb_error *err)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root && errno == ENOENT && je.line == -1) {
		pb_results_init(r);
		return pb_fail(err, PB_EXIT_BAD_FILE, ENOENT, "%s: %s", path, je.text);
	}
	return check_loaded(path, root, &je, r, err);
}

int pb_results_load_buffer(const char *data, size_t len, const char *name,
			   struct pb_results *r, struct pb_error *err)
{
	json_error_t je;
	json_t *root = json_loadb(data, len, 0, &je);
	return check_loaded(name, root, &je, r, err);
}
