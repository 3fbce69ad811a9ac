/* Fuzzes machine discovery with arbitrary procfs/sysfs contents. Byte 0 picks which file the
 * rest becomes in a scratch root: /proc/cpuinfo, a PMU format file (also parsed directly as a
 * format string and applied to an attr), a PMU caps file, osrelease, the fixture caps files, a
 * cache size, a saved kernel log (arm64, x86 and riscv-pmu-sbi lines), or /proc/stat (the
 * machine's ticks, machine/load.h). The probe must never fail or read outside what it was
 * given. */
#include "facilities/machine.h"
#include "machine/load.h"
#include "util/kit.h"

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

static void write_file(const char *rel, const uint8_t *data, size_t size)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fwrite(data, 1, size, f);
	fclose(f);
}

static void mkdirs(const char *rel)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	mkdir(path, 0755);
}

static void remove_root(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
}

static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/pb-fuzz-machine-XXXXXX");
	if (!mkdtemp(root))
		abort();
	atexit(remove_root);
	mkdirs("proc/sys/kernel");
	mkdirs("sys/bus/event_source/devices/ibs_op/format");
	mkdirs("sys/bus/event_source/devices/ibs_op/caps");
	mkdirs("sys/devices/system/cpu/cpu0/cache/index0");
	write_file("sys/bus/event_source/devices/ibs_op/type", (const uint8_t *)"11\n", 3);
	write_file("sys/devices/system/cpu/cpu0/cache/index0/level", (const uint8_t *)"1\n", 2);
	write_file("sys/devices/system/cpu/cpu0/cache/index0/type", (const uint8_t *)"Data\n", 5);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!root[0])
		setup();
	if (size < 1)
		return 0;
	static const char *const targets[] = {
		"proc/cpuinfo",
		"sys/bus/event_source/devices/ibs_op/format/cnt_ctl",
		"sys/bus/event_source/devices/ibs_op/caps/zen4_ibs_extensions",
		"proc/sys/kernel/osrelease",
		"pesbench-caps",
		"pesbench-ibs-caps",
		"sys/devices/system/cpu/cpu0/cache/index0/size",
		"proc/sys/kernel/perf_event_paranoid",
		"pesbench-dmesg",
		"proc/stat",
	};
	const char *rel = targets[data[0] % (PB_ARRAY_SIZE(targets))];
	write_file(rel, data + 1, size - 1);

	static struct pb_machine m;
	pb_machine_probe(&m, root);
	char buf[64];
	const struct pb_pmu *op = pb_machine_pmu(&m, "ibs_op");
	if (op) {
		const char *fmt = pb_pmu_format(op, "cnt_ctl", buf, sizeof buf);
		struct pb_format_field f;
		if (fmt && pb_format_parse(fmt, &f) == 0) {
			struct perf_event_attr attr;
			memset(&attr, 0, sizeof attr);
			pb_format_apply(&attr, &f, pb_format_max(&f));
		}
	}
	/* The format parser on the raw bytes as a string. */
	char text[128];
	size_t n = size - 1 < sizeof text - 1 ? size - 1 : sizeof text - 1;
	memcpy(text, data + 1, n);
	text[n] = '\0';
	struct pb_format_field f;
	if (pb_format_parse(text, &f) == 0 && (f.lo > f.hi || f.hi > 63 || f.word > 2))
		abort();
	(void)pb_machine_kernel_at_least(&m, 6, 2);
	/* the ticks, parsed from the file and from the bytes, and a load between two readings */
	struct pb_cpu_ticks before, after;
	pb_machine_cpu_ticks(&m, &before);
	if (pb_cpu_ticks_parse(text, &after) == 0 && !after.valid)
		abort();
	struct pb_machine_load load;
	pb_machine_load_between(&before, &after, 0.5, 1.0, 100, m.ncpus, &load);
	if (load.valid && (!(load.other_cpus >= 0) || !(load.steal_pct >= 0) ||
			   !(load.steal_pct <= 100)))
		abort();
	write_file(rel, (const uint8_t *)"", 0);
	return 0;
}
