#include "cli/options.h"

#include "cli/commands.h"

#include "facilities/machine.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

void pb_options_begin(struct pb_option_parser *op, int argc, char **argv,
		      const char *const *flags)
{
	memset(op, 0, sizeof *op);
	op->argc = argc;
	op->argv = argv;
	op->i = 1;
	op->flags = flags;
	op->rest = argc;
}

static bool is_flag(const struct pb_option_parser *op, const char *name)
{
	if (!strcmp(name, "help"))
		return true;
	for (const char *const *f = op->flags; f && *f; f++)
		if (!strcmp(*f, name))
			return true;
	return false;
}

int pb_options_next(struct pb_option_parser *op, const char **name, const char **value)
{
	static _Thread_local char buf[64];
	if (op->i >= op->argc)
		return 0;
	char *arg = op->argv[op->i++];
	if (!strcmp(arg, "--")) {
		op->rest = op->i;
		op->i = op->argc;
		return 0;
	}
	if (!strcmp(arg, "-h")) {
		*name = "help";
		*value = NULL;
		return 1;
	}
	if (strncmp(arg, "--", 2)) {
		*name = "";
		*value = arg;
		return 1;
	}
	const char *eq = strchr(arg + 2, '=');
	size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
	if (len == 0 || len >= sizeof buf) {
		pb_fail(&op->err, PB_EXIT_USAGE, 0, "malformed option '%s'", arg);
		return -1;
	}
	memcpy(buf, arg + 2, len);
	buf[len] = '\0';
	*name = buf;
	if (is_flag(op, buf)) {
		if (eq) {
			pb_fail(&op->err, PB_EXIT_USAGE, 0, "option --%s takes no value", buf);
			return -1;
		}
		*value = NULL;
		return 1;
	}
	if (eq) {
		*value = eq + 1;
		return 1;
	}
	if (op->i >= op->argc) {
		/* An unknown option at the end of the line lands here too: point at the list. */
		pb_fail(&op->err, PB_EXIT_USAGE, 0,
			"option --%s needs a value, or is not an option of this command "
			"(`pesbench %s --help` lists them)", buf, op->argv[0]);
		return -1;
	}
	*value = op->argv[op->i++];
	return 1;
}

int pb_parse_u64(const char *what, const char *text, uint64_t min, uint64_t max, uint64_t *out,
		 struct pb_error *err)
{
	if (!text || !*text)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s needs a number", what);
	const char *p = text;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '-')
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s': must not be negative", what, text);
	if (!isdigit((unsigned char)*p))
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s' is not a number", what, text);
	errno = 0;
	char *end;
	unsigned long long v = strtoull(p, &end, 0);
	if (errno == ERANGE)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s' is too large (max %llu)", what, text,
			       (unsigned long long)max);
	uint64_t scale = 1;
	if (*end == 'k' || *end == 'K')
		scale = 1000, end++;
	else if (*end == 'M')
		scale = 1000000, end++;
	else if (*end == 'G')
		scale = 1000000000, end++;
	if (*end)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s': unexpected '%s' after the number",
			       what, text, end);
	if (v > UINT64_MAX / scale || v * scale > max)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s' is too large (max %llu)", what, text,
			       (unsigned long long)max);
	v *= scale;
	if (v < min)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s' is too small (min %llu)", what, text,
			       (unsigned long long)min);
	*out = v;
	return 0;
}

int pb_parse_u64_list(const char *what, const char *text, uint64_t min, uint64_t max,
		      uint64_t *out, unsigned max_n, unsigned *n, struct pb_error *err)
{
	char buf[512];
	if (!text || strlen(text) >= sizeof buf)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s: list missing or too long", what);
	strcpy(buf, text);
	*n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n >= max_n)
			return pb_fail(err, PB_EXIT_USAGE, 0, "%s: at most %u values", what, max_n);
		if (pb_parse_u64(what, tok, min, max, &out[*n], err))
			return -1;
		(*n)++;
	}
	if (!*n)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s: empty list", what);
	return 0;
}

int pb_parse_threads(const char *what, const char *text, uint64_t *out, struct pb_error *err)
{
	unsigned ncpus = pb_machine_live()->ncpus;
	if (pb_parse_u64(what, text, 1, UINT32_MAX, out, err))
		return -1;
	if (ncpus && *out > ncpus)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "%s %llu: this machine has %u CPUs; pinned threads sharing a CPU would "
			       "distort every figure (use at most %u)", what,
			       (unsigned long long)*out, ncpus, ncpus);
	return 0;
}

int pb_cli_report(const char *command, const struct pb_error *err)
{
	fprintf(stderr, "pesbench %s: %s\n", command, err->msg[0] ? err->msg : "failed");
	return err->code ? err->code : PB_EXIT_FAILURE;
}

int pb_cli_unknown_option(const char *command, const char *name)
{
	struct pb_error err = {0};
	pb_fail(&err, PB_EXIT_USAGE, 0, "unknown option --%s; see `pesbench %s --help`", name,
		command);
	return pb_cli_report(command, &err);
}
