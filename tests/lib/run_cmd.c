#include "run_cmd.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

char *pb_test_run_cmd(int (*cmd)(int, char **), int argc, char **argv, int *rc)
{
	char path[] = "/tmp/pb-test-cmd-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		pb_skip("cannot make a temporary file for a command's output");
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	*rc = cmd(argc, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(fd);
	enum { MAX = 1 << 20 };
	FILE *f = fopen(path, "r");
	char *text = calloc(1, MAX);
	size_t n = f && text ? fread(text, 1, MAX - 1, f) : 0;
	if (text)
		text[n] = '\0';
	if (f)
		fclose(f);
	unlink(path);
	return text;
}
