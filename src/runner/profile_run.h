/* `pesbench profile`'s work below the CLI: a command sampled by pesbench's own session (or its
 * samples read from a user's perf.data), run again under callgrind, and the two profiles
 * compared (analysis/profile.h) and exported (export/). The CLI parses the options and the
 * spec, and prints the outcome; everything between is here. */
#ifndef PB_PROFILE_RUN_H
#define PB_PROFILE_RUN_H

#include "analysis/periods.h"
#include "analysis/profile.h"
#include "export/export.h"
#include "facilities/facility.h"
#include "session/process.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether argv0 (found as execvp would find it) can be profiled: an ELF executable (a script's
 * samples and callgrind would both see its interpreter), and callgrind there to count it. */
int pb_profile_check_command(const char *argv0, struct pb_error *err);

struct pb_profile_job {
	char **argv;                     /* the command, NULL-terminated */
	const struct pb_spec *spec;      /* what samples it; unused with perf_data */
	const char *perf_data;           /* or its samples from this `perf record` file */
	uint64_t base_period;            /* P, before the period method */
	enum pb_period_method method;
	uint64_t seed;                   /* of the random periods */
	bool call_graph;                 /* sample call chains (for the exports) */
	const char *record;              /* also write the samples as this perf.data; or NULL */
	const struct pb_export_request *exports;
	size_t nexports;
	bool announce_callgrind;         /* say() before the slow callgrind run */
	/* One line for the user on stderr ("wrote FILE (...)"), without a newline. */
	void (*say)(void *ctx, const char *line);
	void *say_ctx;
};

struct pb_profile_outcome {
	struct pb_profile_report report;
	struct pb_process_result process;  /* the sampled run: wall time, period changes */
	struct pb_period_setup setup;      /* the period it opened with, and how it moved */
	char spec_text[192];               /* the spec as sampled (the period method may add to it) */
};

/* Samples, runs callgrind, compares and exports; out->report is the comparison. Every file it
 * makes in /tmp is gone when it returns. */
int pb_profile_run(const struct pb_profile_job *job, struct pb_profile_outcome *out,
		   struct pb_error *err);
void pb_profile_outcome_free(struct pb_profile_outcome *out);

#endif
