/* The table of formats, the FORMAT:FILE request, and writing a set into files that appear
 * complete or not at all. */
#include "export/export.h"
#include "util/kit.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct pb_export_format *const formats[] = {
	&pb_export_pprof,
	&pb_export_speedscope,
	&pb_export_folded,
	NULL,
};

const struct pb_export_format *const *pb_export_formats(void)
{
	return formats;
}

static void format_names(char *out, size_t len)
{
	out[0] = '\0';
	for (size_t i = 0; formats[i]; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? ", " : "",
			 formats[i]->name);
}

int pb_export_parse(const char *text, struct pb_export_request *out, struct pb_error *err)
{
	char names[128];
	format_names(names, sizeof names);
	const char *colon = strchr(text, ':');
	if (!colon || !colon[1])
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "--export '%s': give FORMAT:FILE, FORMAT one of %s (e.g. "
			       "pprof:prof.pb.gz)", text, names);
	size_t n = (size_t)(colon - text);
	for (size_t i = 0; formats[i]; i++)
		if (strlen(formats[i]->name) == n && !strncmp(formats[i]->name, text, n)) {
			out->format = formats[i];
			out->path = colon + 1;
			return 0;
		}
	return pb_fail(err, PB_EXIT_USAGE, 0, "--export '%s': unknown format '%.*s' (formats: %s)",
		       text, (int)n, text, names);
}

int pb_export_add(struct pb_export_request *list, size_t *n, size_t max, const char *text,
		  struct pb_error *err)
{
	if (*n == max)
		return pb_fail(err, PB_EXIT_USAGE, 0, "at most %zu --export", max);
	if (pb_export_parse(text, &list[*n], err))
		return -1;
	++*n;
	return 0;
}

void pb_export_sibling_path(const char *path, const char *suffix, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	/* the extension starts at the first dot after a leading one: "prof.pb.gz" -> ".pb.gz" */
	const char *dot = strchr(base + (base[0] == '.'), '.');
	if (!dot)
		dot = base + strlen(base);
	snprintf(out, len, "%.*s.%s%s", (int)(dot - path), path, suffix, dot);
}

static int write_one(const struct pb_export_request *req, const struct pb_xset *s,
		     const size_t *profiles, size_t n, const char *path, struct pb_error *err)
{
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
		return pb_fail(err, PB_EXIT_USAGE, 0, "--export: path too long: %s", path);
	FILE *f = fopen(tmp, "wb");
	if (!f)
		return pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot write %s: %s", path,
			       strerror(errno));
	int rc = req->format->write(s, profiles, n, f, err);
	if (fclose(f) && !rc)
		rc = pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot write %s: %s", path,
			     strerror(errno));
	if (!rc && rename(tmp, path))
		rc = pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot write %s: %s", path,
			     strerror(errno));
	if (rc)
		unlink(tmp);
	return rc;
}

int pb_export_write(const struct pb_export_request *req, const struct pb_xset *s,
		    void (*written)(void *ctx, const char *path, const char *profile),
		    void *ctx, struct pb_error *err)
{
	size_t all[PB_XPROFILES_MAX];
	for (size_t i = 0; i < s->nprofiles; i++)
		all[i] = i;
	if (!s->nprofiles)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "nothing to export: no profile");
	if (req->format->all_in_one) {
		if (write_one(req, s, all, s->nprofiles, req->path, err))
			return -1;
		if (written)
			written(ctx, req->path, "all profiles");
		return 0;
	}
	for (size_t i = 0; i < s->nprofiles; i++) {
		char path[PATH_MAX];
		if (i)
			pb_export_sibling_path(req->path, s->profiles[i].name, path, sizeof path);
		else
			snprintf(path, sizeof path, "%s", req->path);
		if (write_one(req, s, &all[i], 1, path, err))
			return -1;
		if (written)
			written(ctx, path, s->profiles[i].name);
	}
	return 0;
}
