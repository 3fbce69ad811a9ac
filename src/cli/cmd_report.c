/* `pesbench report RESULTS [--no-plots]`: (re)draws the plots and writes report.html for a
 * results folder, e.g. one measured on a machine without gnuplot, or after an upgrade of the
 * plotting; prints the same summary table as the end of `pesbench run`. */
#include "cli/commands.h"
#include "cli/options.h"
#include "experiments/experiment.h"
#include "io/results.h"
#include "present/report.h"
#include "present/summary.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: pesbench report RESULTS_DIR_OR_JSON [--no-plots] [--quiet]\n\n"
		"Writes plots (PNG and SVG, with their data and gnuplot scripts) into\n"
		"RESULTS_DIR/plots/ and a one-page RESULTS_DIR/report.html, from results.json.\n\n"
		"  --no-plots  do not (re)draw the plots; the report shows those already drawn\n"
		"  --quiet     do not print the summary table\n\n"
		"Without gnuplot the report is written anyway, with a warning. Exit 0 on success,\n"
		"2 for bad usage, 4 when the folder cannot be written, 6 when results.json is\n"
		"missing, corrupt or of another schema version.\n");
}

int pb_cmd_report(int argc, char **argv)
{
	static const char *const flags[] = {"no-plots", "quiet", NULL};
	struct pb_option_parser op;
	pb_options_begin(&op, argc, argv, flags);
	const char *name, *value, *target = NULL;
	bool no_plots = false, quiet = false;
	struct pb_error err = {0};
	int r;
	while ((r = pb_options_next(&op, &name, &value)) > 0) {
		if (!strcmp(name, "help")) {
			usage(stdout);
			return PB_EXIT_OK;
		} else if (!*name && !target) {
			target = value;
		} else if (!*name) {
			pb_fail(&err, PB_EXIT_USAGE, 0,
				"one results folder at a time ('%s' and '%s'); `pesbench compare` "
				"sets several side by side",
				target, value);
			return pb_cli_report("report", &err);
		} else if (!strcmp(name, "no-plots")) {
			no_plots = true;
		} else if (!strcmp(name, "quiet")) {
			quiet = true;
		} else {
			return pb_cli_unknown_option("report", name);
		}
	}
	if (r < 0)
		return pb_cli_report("report", &op.err);
	if (!target) {
		usage(stderr);
		return PB_EXIT_USAGE;
	}
	char json_path[4200], dir[4200];
	pb_results_locate(target, json_path, sizeof json_path, dir, sizeof dir);
	struct pb_results results;
	if (pb_results_load(json_path, &results, &err))
		return pb_cli_report("report", &err);
	size_t nplots = 0;
	int rc = pb_report_folder(&results, dir, no_plots, pb_experiment_summary, stderr, &nplots,
				  &err);
	if (!rc && !quiet)
		pb_summary_print(stdout, &results);
	pb_results_free(&results);
	if (rc)
		return pb_cli_report("report", &err);
	if (!quiet)
		fprintf(stderr, "report: %s/report.html (%zu plots in %s/plots)\n", dir, nplots,
			dir);
	return PB_EXIT_OK;
}
