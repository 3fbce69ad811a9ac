/* Fuzzes the workload spec parser (pb_workload_parse, "name[:key=value,...]" from the command
 * line of measure, verify and workloads). Whatever the text, the parser either refuses with a
 * usage error that says why, or yields a known workload whose parameters all lie in their
 * declared ranges, whose spec prints back and parses to the same choice, and whose truth can
 * be computed. */
#include "workloads/workload.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[512];
	size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
	memcpy(text, data, n);
	text[n] = '\0';

	struct pb_workload_choice choice;
	struct pb_error err;
	memset(&err, 0, sizeof err);
	if (pb_workload_parse(text, &choice, &err)) {
		if (err.code != PB_EXIT_USAGE || !err.msg[0])
			abort(); /* every refusal says why and exits as bad usage */
		return 0;
	}
	const struct pb_workload *w = choice.workload;
	if (!w || pb_workload_find(w->name) != w)
		abort();
	for (unsigned i = 0; i < w->nparams; i++)
		if (choice.params[i] < w->params[i].min || choice.params[i] > w->params[i].max)
			abort();
	/* round trip: the canonical text of the choice parses to the same choice */
	char params[256], again[320];
	pb_workload_params_text(&choice, params, sizeof params);
	snprintf(again, sizeof again, "%s%s%s", w->name, w->nparams ? ":" : "",
		 w->nparams ? params : "");
	struct pb_workload_choice second;
	if (pb_workload_parse(again, &second, &err) || second.workload != w ||
	    memcmp(second.params, choice.params, sizeof choice.params))
		abort();
	struct pb_truth truth;
	if (pb_workload_truth(&choice, 1000, &truth, &err))
		abort(); /* a valid choice always has a truth */
	return 0;
}
