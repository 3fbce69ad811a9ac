/* The CLI's output: errors on stderr, documents on stdout. cli/output.c is the one file of
 * cli/ that calls jansson; a command hands it a document built below (or by output.c's
 * builders) and never writes JSON itself. */
#ifndef PB_CLI_OUTPUT_H
#define PB_CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_error;
struct json_t;

/* Reports an error on stderr as "pesbench NAME: message" and returns its exit code. */
int pb_cli_report(const char *command, const struct pb_error *err);
/* Prints doc (freed here) on standard output, indented, with a final newline, and flushes it:
 * PB_EXIT_OK, or PB_EXIT_OUTPUT reported as above when it did not all get there (a full disk,
 * a closed pipe) or doc is NULL. */
int pb_cli_print_json(const char *command, struct json_t *doc, int indent);

/* A document made below the CLI, printed as above with an indent of 2; NULL with err's message
 * set: that error reported instead. */
int pb_cli_print_document(const char *command, struct json_t *doc, const struct pb_error *err);

/* The documents of the commands' --json, printed as above. */
struct pb_profile_outcome;
/* `profile --json`: the command, its samples' source, the top functions and the error at
 * each level (null when too_few says the samples cannot give one). */
int pb_cli_print_profile(char *const *argv, const char *perf_data, uint64_t top, bool too_few,
			 const struct pb_profile_outcome *out);
struct pb_plan_request;
struct pb_plan;
struct pb_plan_checks;
/* `plan --json`: the plan, and its checks when there are some (the plan's own as "check", the
 * corrected periods' as "corrections"). */
int pb_cli_print_plan(const struct pb_plan_request *req, const struct pb_plan *plan,
		      const struct pb_plan_checks *checks);
struct pb_verify_report;
/* `verify --json`: every check with both numbers, and what was not run. */
int pb_cli_print_verify(const struct pb_verify_report *rep);
/* `version --json`: the program's version and the jansson it was built with. */
int pb_cli_print_version(const char *version);
/* `report --json`: the page written, its plots and the scorecard. */
struct pb_rlist;
int pb_cli_print_report(const char *html_path, size_t nplots, const struct pb_rlist *scorecard);

#endif
