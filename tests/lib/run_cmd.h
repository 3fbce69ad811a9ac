/* Runs one `pesbench` command's function in this process with its stdout in a string. */
#ifndef PB_TEST_RUN_CMD_H
#define PB_TEST_RUN_CMD_H

/* cmd(argc, argv) with stdout sent to a temporary file; returns what it printed (malloc'd,
 * NUL-terminated, the first MiB) and its return code in *rc. Skips the test (exit 77) when no
 * temporary file can be made. */
char *pb_test_run_cmd(int (*cmd)(int, char **), int argc, char **argv, int *rc);

#endif
