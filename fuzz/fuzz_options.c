/* Fuzzes the table-driven option parser with every command's table. Input: byte 0 picks the
 * command; the rest is its arguments, separated by NUL bytes. Parsing only: the command
 * itself never runs. What the parser writes must stay inside the command's argument struct
 * (AddressSanitizer watches the exact-size allocation), an error must carry a message and
 * an exit code, and what follows "--" must start inside argv. */
#include "cli/commands.h"
#include "cli/options.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const struct pb_command *list = pb_command_list();
	size_t ncommands = 0;
	while (list[ncommands].spec)
		ncommands++;
	const struct pb_cmd_spec *spec = list[data[0] % ncommands].spec;
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	char *argv[MAX_ARGS + 1] = {(char *)spec->name};
	int argc = 1;
	for (char *p = text; p < text + size - 1 && argc < MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	void *args = calloc(1, spec->args_size);
	if (args) {
		struct pb_error err = {0};
		int rest;
		enum pb_parse_result r = pb_options_parse(spec, argc, argv, args, &rest, &err);
		if (r == PB_PARSE_ERROR && (!err.msg[0] || !err.code))
			abort();
		if (r == PB_PARSED && (rest < 1 || rest > argc))
			abort();
		free(args);
	}
	free(text);
	return 0;
}
