/* /init of the riscv64 guest (scripts/riscv64-guest.sh): Debian 12 has no busybox for riscv64,
 * so this small static program is the whole userland. It mounts proc, sysfs, tracefs and a
 * tmpfs, opens perf to every user (perf_event_paranoid = -1), runs each line of
 * /etc/guest-cmds as a command (words split on spaces; cwd /guest; PATH /guest) with its
 * output on the console, then prints every file under /out base64-encoded between markers so
 * the host can take the results back from the console log, and powers the machine off.
 * Console markers: "=== PB-GUEST CMD <status> <line>" after each command, "=== PB-GUEST FILE
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

static int run_line(char *line)
{
	char *argv[MAX_ARGS + 1];
	int argc = 0;
	for (char *w = strtok(line, " \t"); w && argc < MAX_ARGS; w = strtok(NULL, " \t"))
		argv[argc++] = w;
	argv[argc] = NULL;
	if (!argc)
		return 0;
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 126;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
		char shown[1024];
		snprintf(shown, sizeof shown, "%s", line);
		if (!shown[0] || shown[0] == '#')
			continue;
		printf("=== PB-GUEST RUN %s\n", shown);
		int rc = run_line(line);
		printf("=== PB-GUEST CMD %d %s\n", rc, shown);
		failed += rc != 0;
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
