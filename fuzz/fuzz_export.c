/* Fuzzes the profile export on arbitrary perf.data bytes: the walk feeds the converter as
 * `pesbench perfdata --export` does (call chains with perf's context markers, samples of events
 * a pipe-mode file announces late, mappings naming any path), then every format writes the
 * profile to memory. Each format's output is checked for what its readers rely on: folded
 * lines end in " COUNT" with no ';' at either end, pprof is gzip, speedscope parses as JSON
 * with one weight per sample. */
#include "export/from_perfdata.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int on_record(void *ctx, int event, const struct pb_record *rec, const uint8_t *bytes,
		     size_t len, struct pb_error *err)
{
	(void)bytes;
	(void)len;
	return pb_xperf_record(ctx, event, rec, err);
}

static int on_ip(void *ctx, int event, uint64_t ip, uint32_t pid, uint64_t time,
		 struct pb_error *err)
{
	return pb_xperf_sample_ip(ctx, event, ip, pid, time, err);
}

static void check_folded(const char *text, size_t len)
{
	const char *line = text, *end = text + len;
	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			__builtin_trap(); /* a line without its end */
		const char *space = nl;
		while (space > line && space[-1] != ' ')
			space--;
		if (space == line || space == nl || line[0] == ';' || space[-2] == ';')
			__builtin_trap(); /* no " COUNT", or an empty frame at either end */
		line = nl + 1;
	}
}

static void check_speedscope(const char *text, size_t len)
{
	json_error_t e;
	json_t *root = json_loadb(text, len, 0, &e);
	if (!root)
		__builtin_trap();
	json_t *profiles = json_object_get(root, "profiles");
	size_t nframes = json_array_size(json_object_get(json_object_get(root, "shared"), "frames"));
	for (size_t i = 0; i < json_array_size(profiles); i++) {
		json_t *p = json_array_get(profiles, i), *samples = json_object_get(p, "samples");
		if (json_array_size(samples) != json_array_size(json_object_get(p, "weights")))
			__builtin_trap();
		for (size_t k = 0; k < json_array_size(samples); k++) {
			json_t *stack = json_array_get(samples, k);
			for (size_t f = 0; f < json_array_size(stack); f++)
				if ((size_t)json_integer_value(json_array_get(stack, f)) >= nframes)
					__builtin_trap();
		}
	}
	json_decref(root);
}

static void write_all(const struct pb_xset *set)
{
	for (const struct pb_export_format *const *f = pb_export_formats(); *f; f++) {
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);
		if (!out)
			return;
		size_t all[PB_XPROFILES_MAX];
		for (size_t i = 0; i < set->nprofiles; i++)
			all[i] = i;
		struct pb_error err;
		int rc = (*f)->write(set, all, (*f)->all_in_one ? set->nprofiles : 1, out, &err);
		fclose(out);
		if (!rc && *f == &pb_export_folded)
			check_folded(text, len);
		if (!rc && *f == &pb_export_speedscope)
			check_speedscope(text, len);
		if (!rc && *f == &pb_export_pprof && (len < 2 || (uint8_t)text[0] != 0x1f ||
						      (uint8_t)text[1] != 0x8b))
			__builtin_trap(); /* not gzip */
		free(text);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a mapping may name /dev/stdin: the symbolizer must not wait on it */
	static int once;
	if (!once++ && !freopen("/dev/null", "r", stdin))
		abort();
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	struct pb_perfdata *pd;
	struct pb_error err;
	if (pb_perfdata_open_memory(copy, size, &pd, &err) == 0) {
		struct pb_xperf *x;
		if (pb_xperf_start(pd, "fuzz", &x, &err) == 0) {
			struct pb_perfdata_stats st;
			const struct pb_perfdata_ip_sink sink = {.fn = on_ip,
								 .exclude = PERF_SAMPLE_PERIOD};
			if (pb_perfdata_for_each_ip(pd, on_record, &sink, x, &st, &err) == 0) {
				const struct pb_xset *set = pb_xperf_finish(x, &st, &err);
				if (set)
					write_all(set);
			}
			pb_xperf_free(x);
		}
		pb_perfdata_close(pd);
	}
	free(copy);
	return 0;
}
