/* The machine part of a bundle: the live files pesbench reads, copied into the layout of
 * tests/fixtures/sysfs-*, so that `probe --root` and a replay see the machine the capture
 * saw. Only what machine/machine.c reads is kept: a user's bundle carries no host name, no
 * user name, no process and no file of theirs. */
#include "bundle/bundle.h"
#include "io/probe_json.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>

static int make_dirs(const char *path, struct pb_error *err)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot make %s", buf);
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot make %s", buf);
	return 0;
}

static int write_file(const char *dir, const char *rel, const char *text, size_t len,
		      struct pb_error *err)
{
	char path[1024];
	snprintf(path, sizeof path, "%s%s", dir, rel);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	if (make_dirs(path, err))
		return -1;
	*slash = '/';
	FILE *f = fopen(path, "w");
	if (!f)
		return pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot write %s", path);
	size_t n = fwrite(text, 1, len, f);
	if (fclose(f) || n != len)
		return pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot write %s", path);
	return 0;
}

/* A small sysfs or procfs file, whole (they are a line or a few). */
static long read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (long)n;
}

static int copy_glob(const char *dir, const char *pattern, struct pb_error *err)
{
	glob_t g;
	if (glob(pattern, 0, NULL, &g))
		return 0; /* none here: the tree says so by leaving it out */
	int rc = 0;
	for (size_t i = 0; i < g.gl_pathc && !rc; i++) {
		struct stat st;
		char buf[4096];
		long n;
		if (stat(g.gl_pathv[i], &st) || !S_ISREG(st.st_mode) ||
		    (n = read_small(g.gl_pathv[i], buf, sizeof buf)) < 0)
			continue;
		rc = write_file(dir, g.gl_pathv[i], buf, (size_t)n, err);
	}
	globfree(&g);
	return rc;
}

/* /proc/cpuinfo with only the lines machine.c reads (no "bogomips", "microcode" or
 * "physical id": they say nothing pesbench uses). */
static int copy_cpuinfo(const char *dir, struct pb_error *err)
{
	static const char *const keep[] = {
		"processor", "vendor_id", "cpu family", "model", "model name", "stepping", "flags",
		"CPU implementer", "CPU architecture", "CPU variant", "CPU part", "CPU revision",
		"isa", "mmu", "uarch", "mvendorid", "marchid", "mimpid", "hart isa",
	};
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return 0;
	size_t cap = 1 << 16, used = 0;
	char *out = malloc(cap);
	char line[8192];
	while (out && fgets(line, sizeof line, f)) {
		bool wanted = line[0] == '\n';
		for (size_t k = 0; !wanted && k < sizeof keep / sizeof keep[0]; k++) {
			size_t n = strlen(keep[k]);
			wanted = !strncmp(line, keep[k], n) && (line[n] == ' ' || line[n] == '\t' ||
								line[n] == ':');
		}
		size_t len = strlen(line);
		if (!wanted)
			continue;
		if (used + len + 1 > cap) {
			char *grown = realloc(out, cap *= 2);
			if (!grown)
				break;
			out = grown;
		}
		memcpy(out + used, line, len);
		used += len;
	}
	fclose(f);
	if (!out)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	int rc = write_file(dir, "/proc/cpuinfo", out, used, err);
	free(out);
	return rc;
}

/* The kernel log's lines machine.c parses (PMU counters, debug registers), nothing else. */
static int copy_kernel_log(const char *dir, struct pb_error *err)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	if (size <= 0)
		return 0;
	char *log = malloc((size_t)size + 1), *out = malloc((size_t)size + 1);
	int n = log ? klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, size) : -1;
	size_t used = 0;
	if (n > 0 && out) {
		log[n] = '\0';
		char *save = NULL;
		for (char *l = strtok_r(log, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			if (!strstr(l, "hw perfevents:") && !strstr(l, "hw-breakpoint:") &&
			    !strstr(l, "... generic registers:") &&
			    !strstr(l, "... fixed-purpose events:") && !strstr(l, "Performance Events:"))
				continue;
			/* the part after the level and the timestamp ("<6>[    0.1] ") */
			const char *text = l;
			if (text[0] == '<' && strchr(text, '>'))
				text = strchr(text, '>') + 1;
			if (text[0] == '[' && strchr(text, ']'))
				text = strchr(text, ']') + 1;
			while (*text == ' ')
				text++;
			used += (size_t)sprintf(out + used, "%s\n", text);
		}
	}
	int rc = used ? write_file(dir, "/pesbench-dmesg", out, used, err) : 0;
	free(log);
	free(out);
	return rc;
}

int pb_bundle_write_machine(const char *dir, const struct pb_machine *live, struct pb_error *err)
{
	static const char *const files[] = {
		"/proc/sys/kernel/osrelease",
		"/proc/sys/kernel/perf_event_paranoid",
		"/proc/sys/kernel/perf_event_max_sample_rate",
		"/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
		"/sys/devices/system/cpu/cpu0/cache/index*/level",
		"/sys/devices/system/cpu/cpu0/cache/index*/type",
		"/sys/devices/system/cpu/cpu0/cache/index*/size",
		"/sys/devices/system/cpu/cpu0/cache/index*/coherency_line_size",
	};
	if (make_dirs(dir, err) || copy_cpuinfo(dir, err) || copy_kernel_log(dir, err))
		return -1;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		if (copy_glob(dir, files[i], err))
			return -1;
	/* the PMUs machine.c kept (the first PB_MAX_PMUS, uncore last), each with what it reads */
	static const char *const pmu_files[] = {"type", "cpus", "caps/*", "format/*"};
	for (unsigned p = 0; p < live->npmus; p++)
		for (size_t k = 0; k < sizeof pmu_files / sizeof pmu_files[0]; k++) {
			char pattern[256];
			snprintf(pattern, sizeof pattern, "/sys/bus/event_source/devices/%s/%s",
				 live->pmus[p].name, pmu_files[k]);
			if (copy_glob(dir, pattern, err))
				return -1;
		}
	char caps[96];
	int n = snprintf(caps, sizeof caps, "perfmon=%d\nsys_admin=%d\nroot=%d\n",
			 live->cap_perfmon, live->cap_sys_admin, live->is_root);
	if (write_file(dir, "/pesbench-caps", caps, (size_t)n, err))
		return -1;
	/* what a facility read from outside the copied files (a live CPUID, say) */
	struct pb_machine_fact facts[PB_MAX_MACHINE_FACTS];
	unsigned nfacts = pb_machine_facts(live, facts, PB_MAX_MACHINE_FACTS);
	for (unsigned i = 0; i < nfacts; i++)
		if (facts[i].tree_path && write_file(dir, facts[i].tree_path, facts[i].tree_text,
						     strlen(facts[i].tree_text), err))
			return -1;
	return 0;
}

json_t *pb_bundle_probe_json(const struct pb_machine *tree)
{
	json_t *doc = pb_probe_json(tree);
	json_t *machine = json_incref(json_object_get(doc, "machine"));
	json_object_del(machine, "root");
	/* of each facility, whether the tree makes it available: its wording may change */
	json_t *facilities = json_object();
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(doc, "facilities"), i, f)
		json_object_set(facilities, json_string_value(json_object_get(f, "name")),
				json_object_get(f, "available"));
	json_decref(doc);
	return json_pack("{s:o, s:o}", "machine", machine, "available", facilities);
}
