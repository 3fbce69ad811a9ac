/* `pesbench capture DIR`: a bundle of this machine's facts and its facilities' raw records,
 * for `pesbench replay` on any machine (docs/capture.md). */
#include "bundle/bundle.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "facilities/facility.h"
#include "util/error.h"
#include "util/text.h"

#include <stdio.h>
#include <string.h>

#define CAPTURE_MAX_FACILITIES 16

struct capture_args {
	const char *dir;
	const char *facilities[CAPTURE_MAX_FACILITIES];
	unsigned nfacilities;
	bool quiet;
};

static int set_dir(void *args, const char *value, struct pb_error *err)
{
	struct capture_args *a = args;
	if (a->dir)
		return pb_fail(err, PB_EXIT_USAGE, 0, "unexpected argument '%s': give one DIR",
			       value);
	if (!*value)
		return pb_fail(err, PB_EXIT_USAGE, 0, "DIR is empty");
	a->dir = value;
	return 0;
}

static int add_facility(void *args, const char *value, struct pb_error *err)
{
	struct capture_args *a = args;
	char text[128];
	pb_format(text, sizeof text, "--facility %.100s", value);
	if (!pb_facility_find_or_fail(value, text, err))
		return -1;
	if (a->nfacilities == CAPTURE_MAX_FACILITIES)
		return pb_fail(err, PB_EXIT_USAGE, 0, "--facility given too often");
	a->facilities[a->nfacilities++] = value;
	return 0;
}

static const struct pb_opt capture_options[] = {
	{.name = "facility", .arg = "NAME", .kind = PB_OPT_CALL, .parse = add_facility,
	 .repeatable = true, .example = "timer",
	 .help = "capture only this facility (a name as `pesbench probe` lists it); may be "
		 "repeated; default: every facility available here"},
	{.name = "quiet", .kind = PB_OPT_FLAG, .at = PB_AT(struct capture_args, quiet, bool),
	 .help = "print nothing but errors"},
	{0},
};

const struct pb_cmd_spec pb_cmd_capture_spec = {
	.name = "capture",
	.summary = "save this machine's facts and sampling records as a bundle others can replay",
	.operands = "DIR",
	.description =
		"Writes a bundle into DIR (a new or empty folder): the machine's facts as pesbench\n"
		"reads them (machine/: procfs and sysfs files, no host or user names), every\n"
		"facility's self-test, and for each available facility one accuracy, bias and multi\n"
		"point with every record its rings gave (points/*.perf.data) and the results\n"
		"pesbench computed from them (bundle.json). `pesbench replay DIR` computes the results\n"
		"again anywhere. docs/capture.md says what is inside and where to send it.\n",
	.options = capture_options,
	.args_size = sizeof(struct capture_args),
	.positional = set_dir,
	.epilogue = "Exit 0 on success (a point that cannot run here is a note in bundle.json, not\n"
		    "a failure), 1 when the system fails, 2 for bad usage or a DIR that exists and\n"
		    "is not empty, 4 when DIR cannot be written. bundle.json is written last: a DIR\n"
		    "without it is no bundle.\n",
};

int pb_cmd_capture(int argc, char **argv)
{
	struct capture_args a = {0};
	int rest, rc = pb_options_run(&pb_cmd_capture_spec, argc, argv, &a, &rest);
	if (rc >= 0)
		return rc;
	struct pb_error err = {0};
	if (!a.dir) {
		pb_fail(&err, PB_EXIT_USAGE, 0, "DIR is required: pesbench capture DIR");
		return pb_cli_report("capture", &err);
	}
	struct pb_capture_options o = {
		.dir = a.dir,
		.facilities = a.nfacilities ? a.facilities : NULL,
		.nfacilities = a.nfacilities,
		.progress = a.quiet ? NULL : stderr,
	};
	if (pb_capture(&o, &err))
		return pb_cli_report("capture", &err);
	if (!a.quiet)
		fprintf(stderr, "capture: bundle in %s; check it with `pesbench replay %s`\n", a.dir,
			a.dir);
	return PB_EXIT_OK;
}
