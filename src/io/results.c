#include "io/results.h"

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
	memset(r, 0, sizeof *r);
	if (make_dirs(dir, err))
		return -1;
	snprintf(r->dir, sizeof r->dir, "%s", dir);
	r->started = realtime();
	char when[32];
	iso_time(r->started, when, sizeof when);
	json_t *cmd = json_array();
	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	r->root = json_pack("{s:s, s:s, s:b, s:s, s:o, s:o, s:[], s:[]}", "schema",
			    PB_RESULTS_SCHEMA, "pesbench_version", PB_VERSION, "complete", 0,
			    "started", when, "command", cmd, "machine", json_object(), "skipped",
			    "points");
	r->points = json_object_get(r->root, "points");
	return 0;
}

void pb_results_set_machine(struct pb_results *r, json_t *machine)
{
	json_object_set_new(r->root, "machine", machine);
}

void pb_results_skip(struct pb_results *r, const char *facility, const char *reason)
{
	json_array_append_new(json_object_get(r->root, "skipped"),
			      json_pack("{s:s, s:s}", "facility", facility, "reason", reason));
}

json_t *pb_results_point(struct pb_results *r, const char *experiment, const char *facility,
			 const char *workload)
{
	json_t *p = json_pack("{s:s, s:s, s:s, s:[], s:{}}", "experiment", experiment, "facility",
			      facility, "workload", workload ? workload : "", "runs", "metrics");
	json_array_append_new(r->points, p);
	return p;
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

/* CSV: the point's scalar fields, then the run's scalar fields, one row per run. The header is
 * the union of keys in first-seen order. */
static void collect_keys(json_t *obj, json_t *keys, const char *prefix)
{
	const char *k;
	json_t *v;
	json_object_foreach(obj, k, v) {
		if (json_is_object(v) || json_is_array(v))
			continue;
		char name[256];
		snprintf(name, sizeof name, "%s%s", prefix, k);
		size_t i;
		json_t *e;
		bool seen = false;
		json_array_foreach(keys, i, e) if (!strcmp(json_string_value(e), name)) seen = true;
		if (!seen)
			json_array_append_new(keys, json_string(name));
	}
}

static void csv_value(FILE *f, json_t *v)
{
	if (!v || json_is_null(v))
		return;
	if (json_is_string(v)) {
		fputc('"', f);
		for (const char *s = json_string_value(v); *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else if (json_is_integer(v)) {
		fprintf(f, "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		fprintf(f, "%.6g", json_real_value(v));
	} else if (json_is_boolean(v)) {
		fputs(json_is_true(v) ? "true" : "false", f);
	}
}

static char *render_csv(json_t *points, size_t *len)
{
	json_t *keys = json_array();
	size_t i, j;
	json_t *p, *run;
	json_array_foreach(points, i, p) {
		collect_keys(p, keys, "");
		json_array_foreach(json_object_get(p, "runs"), j, run) collect_keys(run, keys, "run.");
	}
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	json_t *k;
	json_array_foreach(keys, i, k) fprintf(f, "%s%s", i ? "," : "", json_string_value(k));
	fputc('\n', f);
	json_array_foreach(points, i, p) {
		json_array_foreach(json_object_get(p, "runs"), j, run) {
			size_t c;
			json_array_foreach(keys, c, k) {
				const char *name = json_string_value(k);
				if (c)
					fputc(',', f);
				if (!strncmp(name, "run.", 4))
					csv_value(f, json_object_get(run, name + 4));
				else
					csv_value(f, json_object_get(p, name));
			}
			fputc('\n', f);
		}
	}
	fclose(f);
	json_decref(keys);
	return text;
}

int pb_results_write(struct pb_results *r, bool complete, struct pb_error *err)
{
	double now = realtime();
	char when[32];
	iso_time(now, when, sizeof when);
	json_object_set_new(r->root, "complete", json_boolean(complete));
	json_object_set_new(r->root, "finished", json_string(when));
	json_object_set_new(r->root, "elapsed_s", json_real(now - r->started));

	/* results.csv first: results.json is what says a run is whole, so when the disk fills
	 * up between the two writes no results.json is left beside a missing table. */
	char path[4200];
	size_t len = 0;
	char *csv = render_csv(r->points, &len);
	snprintf(path, sizeof path, "%s/results.csv", r->dir);
	int rc = pb_write_atomic(path, csv ? csv : "", csv ? len : 0, err);
	free(csv);
	if (rc)
		return -1;
	char *json = json_dumps(r->root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	if (!json)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "cannot render results.json");
	snprintf(path, sizeof path, "%s/results.json", r->dir);
	rc = pb_write_atomic(path, json, strlen(json), err);
	free(json);
	return rc;
}

void pb_results_close(struct pb_results *r)
{
	json_decref(r->root);
	r->root = r->points = NULL;
}

/* The checks shared by the file and buffer loaders, on what json_load* returned. */
static int check_loaded(const char *name, json_t **root, const json_error_t *je,
			struct pb_error *err)
{
	if (!*root)
		return pb_fail(err, PB_EXIT_BAD_FILE, 0,
			       "%s is not valid JSON (line %d, column %d: %s); was it cut short?",
			       name, je->line, je->column, je->text);
	const char *schema = json_string_value(json_object_get(*root, "schema"));
	if (!schema || strcmp(schema, PB_RESULTS_SCHEMA)) {
		int rc = pb_fail(err, PB_EXIT_BAD_FILE, 0,
				 "%s has schema '%s'; this pesbench reads '%s' (re-run the suite "
				 "with this version, or use the pesbench that wrote it)",
				 name, schema ? schema : "(none)", PB_RESULTS_SCHEMA);
		json_decref(*root);
		*root = NULL;
		return rc;
	}
	if (!json_is_array(json_object_get(*root, "points"))) {
		json_decref(*root);
		*root = NULL;
		return pb_fail(err, PB_EXIT_BAD_FILE, 0, "%s has no 'points' array", name);
	}
	return 0;
}

int pb_results_load(const char *path, json_t **root, struct pb_error *err)
{
	json_error_t je;
	*root = json_load_file(path, 0, &je);
	if (!*root && errno == ENOENT && je.line == -1)
		return pb_fail(err, PB_EXIT_BAD_FILE, ENOENT, "%s: %s", path, je.text);
	return check_loaded(path, root, &je, err);
}

int pb_results_load_buffer(const char *data, size_t len, const char *name, json_t **root,
			   struct pb_error *err)
{
	json_error_t je;
	*root = json_loadb(data, len, 0, &je);
	return check_loaded(name, root, &je, err);
}
