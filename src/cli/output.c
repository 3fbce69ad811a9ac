/* The one place the CLI writes a document: errors as "pesbench NAME: message", and JSON on
 * standard output. No other file of cli/ calls jansson. */
#include "cli/output.h"

#include "util/error.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

int pb_cli_report(const char *command, const struct pb_error *err)
{
	fprintf(stderr, "pesbench %s: %s\n", command, err->msg[0] ? err->msg : "failed");
	return err->code ? err->code : PB_EXIT_FAILURE;
}

int pb_cli_print_json(const char *command, json_t *doc, int indent)
{
	errno = 0;
	int rc = doc ? json_dumpf(doc, stdout, JSON_INDENT(indent) | JSON_PRESERVE_ORDER) : -1;
	json_decref(doc);
	if (rc || fputc('\n', stdout) == EOF || fflush(stdout)) {
		struct pb_error err = {0};
		pb_fail(&err, PB_EXIT_OUTPUT, errno, "cannot write the JSON to standard output%s%s",
			errno ? ": " : "", errno ? strerror(errno) : "");
		return pb_cli_report(command, &err);
	}
	return PB_EXIT_OK;
}
