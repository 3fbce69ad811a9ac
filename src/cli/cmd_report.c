/* `pesbench report RESULTS [--no-plots]`: (re)draws the plots and writes report.html for a
 * results folder, e.g. one measured on a machine without gnuplot, or after an upgrade of the
 * plotting; prints the same summary table as the end of `pesbench run`. */
#include "cli/commands.h"
#include "cli/options.h"
#include "scorecard/scorecard.h"
#include "experiments/experiment.h"
#include "io/results.h"
#include "present/report.h"
#include "present/summary.h"

#include <stdio.h>
#include <string.h>

struct report_args {
	const char *target;
	bool no_plots, quiet, json;
};

static int set_target(void *args, const char *value, struct pb_error *err)
{
	struct report_args *a = args;
	if (a->target)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "one results folder at a time ('%s' and '%s'); `pesbench compare` "
			       "sets several side by side",
			       a->target, value);
	a->target = value;
	return 0;
}

static const struct pb_opt report_options[] = {
	{.name = "no-plots", .kind = PB_OPT_FLAG, .at = PB_AT(struct report_args, no_plots, bool),
	 .help = "do not (re)draw the plots; the report shows those already drawn"},
	{.name = "quiet", .kind = PB_OPT_FLAG, .at = PB_AT(struct report_args, quiet, bool),
	 .help = "do not print the scorecard"},
	{.name = "json", .kind = PB_OPT_FLAG, .at = PB_AT(struct report_args, json, bool),
	 .help = "print the scorecard and where the report is as JSON instead"},
	{0},
};

const struct pb_cmd_spec pb_cmd_report_spec = {
	.name = "report",
	.summary = "draw the plots and write report.html for a results folder",
	.operands = "RESULTS_DIR_OR_JSON",
	.description =
		"Writes plots (PNG and SVG, with their data and gnuplot scripts) into\n"
		"RESULTS_DIR/plots/ and a one-page RESULTS_DIR/report.html, from results.json,\n"
		"and prints the scorecard (docs/scorecard.md); --json prints it as\n"
		"{\"report\", \"plots\", \"scorecard\"}.\n",
	.options = report_options,
	.args_size = sizeof(struct report_args),
	.positional = set_target,
	.epilogue =
		"Without gnuplot the report is written anyway, with a warning. Exit 0 on success,\n"
		"2 for bad usage, 4 when the folder cannot be written, 6 when results.json is\n"
		"missing, corrupt or of another schema version.\n",
};

int pb_cmd_report(int argc, char **argv)
{
	struct report_args a = {0};
	int rest, rc0 = pb_options_run(&pb_cmd_report_spec, argc, argv, &a, &rest);
	if (rc0 >= 0)
		return rc0;
	const char *target = a.target;
	bool no_plots = a.no_plots, quiet = a.quiet;
	struct pb_error err = {0};
	if (!target) {
		pb_options_help(&pb_cmd_report_spec, stderr);
		return PB_EXIT_USAGE;
	}
	char json_path[4200], dir[4200];
	pb_results_locate(target, json_path, sizeof json_path, dir, sizeof dir);
	struct pb_results results;
	if (pb_results_load(json_path, &results, &err))
		return pb_cli_report("report", &err);
	/* the scorecard is derived from the points: computed again by this version's rules (a
	 * file from before the scorecard gets one), for this report only */
	pb_scorecard_fill(&results);
	size_t nplots = 0;
	int rc = pb_report_folder(&results, dir, no_plots, pb_experiment_summary, stderr, &nplots,
				  &err);
	if (!rc && a.json) {
		char path[4300];
		snprintf(path, sizeof path, "%s/report.html", dir);
		rc = pb_cli_print_report(path, nplots, &results.scorecard);
		pb_results_free(&results);
		return rc;
	}
	if (!rc && !quiet) {
		pb_summary_print(stdout, &results);
		fflush(stdout);
	}
	pb_results_free(&results);
	if (rc)
		return pb_cli_report("report", &err);
	if (!quiet && !a.json)
		fprintf(stderr, "report: %s/report.html (%zu plots in %s/plots)\n", dir, nplots,
			dir);
	return PB_EXIT_OK;
}
