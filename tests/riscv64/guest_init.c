/* /init of the riscv64 guest (scripts/riscv64-guest.sh): Debian 12 has no busybox for riscv64,
 * so this small static program is the whole userland. It mounts proc, sysfs, tracefs and a
 * tmpfs, opens perf to every user (perf_event_paranoid = -1), runs each line of
 * /etc/guest-cmds, "NAME WANT COMMAND ARGS..." (words split on spaces; cwd /guest; PATH
 * /guest), keeping its stdout, stderr, exit status and command line in /out as NAME.out,
 * NAME.err, NAME.rc and NAME.cmd (as tests/arm64/guest-tests.sh does), then prints every file
 * under /out base64-encoded between markers so the host can take the results back from the
 * console log, and powers the machine off. A command fails when its status is not WANT.
 * Console: "guest: ok NAME ..." or "guest: FAIL NAME ..." per command, "=== PB-GUEST FILE
 * <path>" ... "=== PB-GUEST FILE END", and last "=== PB-GUEST EXIT <n>" (n: the commands that
 * failed). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS 64

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			perror(path);
		close(fd);
	}
}

static void save_text(const char *name, const char *suffix, const char *text)
{
	char path[256];
	snprintf(path, sizeof path, "/out/%s.%s", name, suffix);
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "%s\n", text);
		fclose(f);
	}
}

static void show_tail(const char *name)
{
	char path[256], buf[400];
	snprintf(path, sizeof path, "/out/%s.err", name);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, size > (long)sizeof buf - 1 ? size - (long)sizeof buf + 1 : 0, SEEK_SET);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	printf("guest:      ...%s\n", buf);
}

/* "NAME WANT COMMAND ARGS...": 0 when the command exited WANT. */
static int run_line(char *line)
{
	char shown[1024];
	snprintf(shown, sizeof shown, "%s", line);
	char *argv[MAX_ARGS + 1];
	int argc = 0;
	for (char *w = strtok(line, " \t"); w && argc < MAX_ARGS; w = strtok(NULL, " \t"))
		argv[argc++] = w;
	argv[argc] = NULL;
	if (argc < 3) {
		printf("guest: FAIL malformed line (NAME WANT COMMAND...): %s\n", shown);
		return 1;
	}
	const char *name = argv[0];
	int want = atoi(argv[1]);
	char out[256], err[256];
	snprintf(out, sizeof out, "/out/%s.out", name);
	snprintf(err, sizeof err, "/out/%s.err", name);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int z = open("/dev/null", O_RDONLY);
		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || (z >= 0 && dup2(z, 0) < 0))
			_exit(126);
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	int status = 0, rc;
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		rc = 126;
	else
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	char rc_text[16];
	snprintf(rc_text, sizeof rc_text, "%d", rc);
	save_text(name, "rc", rc_text);
	save_text(name, "cmd", strchr(strchr(shown, ' ') + 1, ' ') + 1);
	if (rc == want) {
		printf("guest: ok   %s (exit %d, %.1f s)\n", name, rc, secs);
		return 0;
	}
	printf("guest: FAIL %s: exit %d, expected %d (%.1f s): %s\n", name, rc, want, secs, shown);
	show_tail(name);
	return 1;
}

static int dump_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	(void)st;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	printf("=== PB-GUEST FILE %s\n", path + strlen("/out/"));
	unsigned char in[57];
	size_t n;
	while ((n = fread(in, 1, sizeof in, f)) > 0) {
		char out[80];
		size_t o = 0;
		for (size_t i = 0; i < n; i += 3) {
			unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
				     (i + 2 < n ? in[i + 2] : 0);
			out[o++] = b64[v >> 18 & 63];
			out[o++] = b64[v >> 12 & 63];
			out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
			out[o++] = i + 2 < n ? b64[v & 63] : '=';
		}
		out[o] = '\0';
		printf("%s\n", out);
	}
	fclose(f);
	printf("=== PB-GUEST FILE END\n");
	return 0;
}

int main(void)
{
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	write_file("/proc/sys/kernel/perf_event_paranoid", "-1");
	write_file("/proc/sys/kernel/kptr_restrict", "0");
	setenv("PATH", "/guest", 1);
	setenv("HOME", "/tmp", 1);
	setenv("TMPDIR", "/tmp", 1);
	setenv("PB_OUT", "/out", 1);
	setenv("PB_BIN", "/guest/pesbench", 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (chdir("/guest"))
		perror("/guest");
	char release[128] = "?";
	FILE *v = fopen("/proc/sys/kernel/osrelease", "r");
	if (v) {
		if (fgets(release, sizeof release, v))
			release[strcspn(release, "\n")] = '\0';
		fclose(v);
	}
	printf("=== PB-GUEST BEGIN %s\n", release);
	int failed = 0;
	FILE *cmds = fopen("/etc/guest-cmds", "r");
	char line[1024];
	while (cmds && fgets(line, sizeof line, cmds)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		failed += run_line(line);
	}
	if (cmds)
		fclose(cmds);
	/* no kernel message may land inside a base64 block */
	write_file("/proc/sys/kernel/printk", "1");
	nftw("/out", dump_file, 16, FTW_PHYS);
	printf("=== PB-GUEST EXIT %d\n", failed);
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
