/* The CLI's output: errors on stderr, documents on stdout. cli/output.c is the one file of
 * cli/ that calls jansson; a command hands it a document built below (or by output.c's
 * builders) and never writes JSON itself. */
#ifndef PB_CLI_OUTPUT_H
#define PB_CLI_OUTPUT_H

struct pb_error;
struct json_t;

/* Reports an error on stderr as "pesbench NAME: message" and returns its exit code. */
int pb_cli_report(const char *command, const struct pb_error *err);
/* Prints doc (freed here) on standard output, indented, with a final newline, and flushes it:
 * PB_EXIT_OK, or PB_EXIT_OUTPUT reported as above when it did not all get there (a full disk,
 * a closed pipe) or doc is NULL. */
int pb_cli_print_json(const char *command, struct json_t *doc, int indent);

#endif
