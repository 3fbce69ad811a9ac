/* ibs-op and ibs-fetch against constructed AMD machines: config bits, period rules, option
 * capabilities, privilege and availability reasons. */
#include "check.h"
#include "fixture.h"
#include "facilities/facility.h"
#include "facilities/ibs_common.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

static struct pb_machine zen4, zen5, vm;

static void put(const char *root, const char *rel, const char *text)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	FILE *f = fopen(path, "w");
	if (!f)
		pb_skip("cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

/* Parses text and builds its attr on m; attr is zeroed first unless keep is set. */
static int build(const struct pb_machine *m, const char *text, uint64_t period,
		 struct perf_event_attr *attr, bool keep, struct pb_error *err)
{
	struct pb_spec spec;
	pb_error_clear(err);
	if (!keep)
		memset(attr, 0, sizeof *attr);
	if (pb_spec_parse(text, &spec, err))
		return -1;
	return pb_spec_attr(m, &spec, NULL, period, attr, err);
}

static void avail(const struct pb_machine *m, const char *text, struct pb_availability *out)
{
	struct pb_spec spec;
	struct pb_error err;
	if (pb_spec_parse(text, &spec, &err)) {
		fprintf(stderr, "parse %s: %s\n", text, err.msg);
		memset(out, 0, sizeof *out);
		return;
	}
	spec.facility->availability(m, &spec, out);
}

static void test_zen4_op_bits(void)
{
	struct perf_event_attr a;
	struct pb_error err;
	CHECK(build(&zen4, "ibs-op", 0x10000, &a, false, &err) == 0);
	CHECK_EQ_U64(a.type, 11); /* from sysfs ibs_op/type */
	CHECK_EQ_U64(a.sample_period, 0x10000);
	/* dispatched ops by default (cnt_ctl, config:19), as the main study counted them */
	CHECK_EQ_U64(a.config, UINT64_C(1) << 19);
	CHECK_EQ_U64(a.config2, 0);
	CHECK((a.sample_type & (PERF_SAMPLE_RAW | PERF_SAMPLE_IP | PERF_SAMPLE_CPU)) ==
	      (PERF_SAMPLE_RAW | PERF_SAMPLE_IP | PERF_SAMPLE_CPU));
	CHECK(!a.exclude_user && !a.exclude_kernel && !a.exclude_hv && !a.freq);

	CHECK(build(&zen4, "ibs-op:ops", 4096, &a, false, &err) == 0);
	CHECK_EQ_U64(a.config, UINT64_C(1) << 19);
	CHECK(build(&zen4, "ibs-op:cycles", 4096, &a, false, &err) == 0);
	CHECK_EQ_U64(a.config, 0);
	CHECK(build(&zen4, "ibs-op:l3missonly", 4096, &a, false, &err) == 0);
	CHECK_EQ_U64(a.config, (UINT64_C(1) << 16) | (UINT64_C(1) << 19));
	CHECK(build(&zen4, "ibs-op:cycles:l3missonly", 4096, &a, false, &err) == 0);
	CHECK_EQ_U64(a.config, UINT64_C(1) << 16);
	CHECK(build(&zen4, "ibs-op:ops:l3missonly", 4096, &a, false, &err) == 0);
	CHECK_EQ_U64(a.config, (UINT64_C(1) << 16) | (UINT64_C(1) << 19));

	/* exclude_guest/host/idle are never accepted: cleared. */
	memset(&a, 0, sizeof a);
	a.exclude_guest = 1;
	a.exclude_idle = 1;
	CHECK(build(&zen4, "ibs-op", 4096, &a, true, &err) == 0);
	CHECK(!a.exclude_guest && !a.exclude_idle && !a.exclude_host);
	/* exclude_kernel without swfilt: the kernel says EINVAL; we say why first. */
	memset(&a, 0, sizeof a);
	a.exclude_kernel = 1;
	CHECK(build(&zen4, "ibs-op", 4096, &a, true, &err) == -1);
	CHECK_EQ_U64(err.sys_errno, EINVAL);
	CHECK_STR_CONTAINS(err.msg, ":swfilt");
}

static void test_parse_errors(void)
{
	struct pb_spec spec;
	struct pb_error err;
	CHECK(pb_spec_parse("ibs-op:ops:cycles", &spec, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "exclude each other");
	CHECK(pb_spec_parse("ibs-op:ldlat=100", &spec, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "128 to 2048");
	CHECK(pb_spec_parse("ibs-op:ldlat=4096", &spec, &err) == -1);
	CHECK(pb_spec_parse("ibs-op:ldlat=x", &spec, &err) == -1);
	CHECK(pb_spec_parse("ibs-op:ldlat=2048", &spec, &err) == 0);
	CHECK_EQ_U64(spec.config1, 2048);
	CHECK(pb_spec_parse("ibs-op:ldlat=128", &spec, &err) == 0);
	CHECK(pb_spec_parse("ibs-op:bogus", &spec, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "'bogus'");
	CHECK_STR_CONTAINS(err.msg, "l3missonly");
	CHECK(pb_spec_parse("ibs-fetch:ops", &spec, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "rand");
	CHECK(pb_spec_parse("ibs-fetch:rand:swfilt:l3missonly", &spec, &err) == 0);
	CHECK(spec.options & PB_IBS_OPT_RAND);
	CHECK(spec.options & PB_IBS_OPT_SWFILT);
	CHECK(spec.options & PB_IBS_OPT_L3MISSONLY);
}

static void test_periods(void)
{
	struct perf_event_attr a;
	struct pb_error err;
	CHECK(build(&zen4, "ibs-op", 1000, &a, false, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "multiple of 16");
	CHECK_STR_CONTAINS(err.msg, "silently masks");
	CHECK_STR_CONTAINS(err.msg, "992 or 1008");
	CHECK(build(&zen4, "ibs-op", 100, &a, false, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "minimum 144");
	CHECK(build(&zen4, "ibs-op", 128, &a, false, &err) == -1); /* multiple of 16, below 0x90 */
	CHECK(build(&zen4, "ibs-op", 144, &a, false, &err) == 0);
	CHECK(build(&zen4, "ibs-op", 0, &a, false, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "give a period");
	/* Zen 4 fixture: caps rebuilt from sysfs lack OPCNTEXT → 16-bit MaxCnt. */
	CHECK(build(&zen4, "ibs-op", 0xFFFF0, &a, false, &err) == 0);
	CHECK(build(&zen4, "ibs-op", 0x100000, &a, false, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "1048560");
	CHECK_STR_CONTAINS(err.msg, "OpCntExt");
	/* Zen 5 fixture: CPUID caps with OPCNTEXT → 23-bit MaxCnt for op, not fetch. */
	CHECK(build(&zen5, "ibs-op:swfilt", 0x7FFFFF0, &a, false, &err) == 0);
	CHECK(build(&zen5, "ibs-op:swfilt", 0x8000000, &a, false, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "134217712");
	CHECK(build(&zen5, "ibs-fetch:swfilt", 0x100000, &a, false, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "1048560");
	CHECK(build(&zen5, "ibs-fetch:swfilt", 16, &a, false, &err) == 0);
	CHECK(build(&zen5, "ibs-fetch:swfilt", 8, &a, false, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "minimum 16");
	CHECK(build(&zen5, "ibs-fetch:swfilt", 24, &a, false, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "16 or 32");

	/* The rule table itself. */
	CHECK_EQ_U64(pb_ibs_min_period(PB_IBS_OP), 0x90);
	CHECK_EQ_U64(pb_ibs_min_period(PB_IBS_FETCH), 0x10);
	CHECK_EQ_U64(pb_ibs_max_period(PB_IBS_OP, 0), 0xFFFF0);
	CHECK_EQ_U64(pb_ibs_max_period(PB_IBS_OP, PB_IBS_CAPS_OPCNTEXT), 0x7FFFFF0);
	CHECK_EQ_U64(pb_ibs_max_period(PB_IBS_FETCH, PB_IBS_CAPS_OPCNTEXT), 0xFFFF0);
	for (uint64_t p = 0x90; p < 0x200; p++)
		CHECK((pb_ibs_check_period(PB_IBS_OP, "ibs-op", 0, p, NULL) == 0) == (p % 16 == 0));
}

static void test_zen4_capabilities(void)
{
	struct pb_availability av;
	avail(&zen4, "ibs-op", &av);
	CHECK(av.available);
	CHECK_STR_CONTAINS(av.detail, "ibs_op type 11");
	CHECK_STR_CONTAINS(av.detail, "0x00000817");
	CHECK_STR_CONTAINS(av.detail, "OPCNT");
	CHECK_STR_CONTAINS(av.detail, "144..1048560");
	avail(&zen4, "ibs-fetch", &av);
	CHECK(av.available);
	CHECK_STR_CONTAINS(av.detail, "ibs_fetch type 10");
	CHECK_STR_CONTAINS(av.detail, "16..1048560");
	/* Kernel 6.8: no swfilt. */
	avail(&zen4, "ibs-op:swfilt", &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "6.14");
	struct perf_event_attr a;
	struct pb_error err;
	CHECK(build(&zen4, "ibs-op:swfilt", 4096, &a, false, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_UNAVAILABLE);
	/* Zen 4 has no load-latency filter. */
	avail(&zen4, "ibs-op:ldlat=256", &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "ldlat");
	CHECK_STR_CONTAINS(av.reason, "bit 12");

	/* A Zen 3-like machine: no OPCNT, no Zen 4 extensions. */
	struct pb_machine zen3 = zen4;
	pb_machine_note_set(&zen3, "ibs_caps", 0x7); /* IBS's note of its caps word */
	avail(&zen3, "ibs-op:ops", &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "OPCNT");
	avail(&zen3, "ibs-fetch:l3missonly", &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "Zen 4");
	avail(&zen3, "ibs-op:cycles", &av);
	CHECK(av.available);
}

static void test_zen5(void)
{
	struct pb_availability av;
	struct perf_event_attr a;
	struct pb_error err;
	/* Unprivileged at paranoid 2: without swfilt IBS would include the kernel. */
	avail(&zen5, "ibs-op", &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "CAP_PERFMON");
	CHECK_STR_CONTAINS(av.reason, "perf_event_paranoid <= 1 (it is 2)");
	CHECK_STR_CONTAINS(av.reason, ":swfilt");
	zen5.cap_perfmon = false;
	const struct pb_facility *op = pb_facility_find("ibs-op");
	CHECK(op != NULL);
	op->availability(&zen5, NULL, &av); /* the facility as a whole: usable with swfilt */
	CHECK(av.available);
	CHECK_STR_CONTAINS(av.detail, "unprivileged");
	avail(&zen5, "ibs-op:swfilt", &av);
	CHECK(av.available);
	CHECK_STR_CONTAINS(av.detail, "OPLDLAT");

	memset(&a, 0, sizeof a);
	a.exclude_kernel = 1; /* allowed with swfilt: filtered by the kernel's NMI handler */
	CHECK(build(&zen5, "ibs-op:swfilt:ldlat=1024", 0x20000, &a, true, &err) == 0);
	CHECK_EQ_U64(a.config2, 1);
	CHECK_EQ_U64(a.config1, 1024);
	CHECK(a.exclude_kernel);
	CHECK(build(&zen5, "ibs-fetch:swfilt:rand", 0x20000, &a, false, &err) == 0);
	CHECK_EQ_U64(a.type, 10);
	CHECK_EQ_U64(a.config, UINT64_C(1) << 57);
	CHECK_EQ_U64(a.config2, 1);
	CHECK(build(&zen5, "ibs-fetch:swfilt:l3missonly", 0x20000, &a, false, &err) == 0);
	CHECK_EQ_U64(a.config, UINT64_C(1) << 59);
	CHECK(build(&zen5, "ibs-op", 0x20000, &a, false, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_UNAVAILABLE);
	CHECK_STR_CONTAINS(err.msg, "CAP_PERFMON");

	/* The same machine as root: everything opens without swfilt. */
	struct pb_machine root = zen5;
	root.cap_perfmon = root.cap_sys_admin = root.is_root = true;
	avail(&root, "ibs-op:ops", &av);
	CHECK(av.available);
}

static void test_unavailable_reasons(void)
{
	struct pb_availability av;
	avail(&vm, "ibs-op", &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "AMD facility");
	CHECK_STR_CONTAINS(av.reason, "GenuineIntel");
	CHECK_STR_CONTAINS(av.reason, "pebs");
	avail(&vm, "ibs-fetch", &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "ibs_fetch");

	char root[] = "/tmp/pb-ibs-XXXXXX";
	if (!mkdtemp(root))
		pb_skip("mkdtemp failed");
	put(root, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
				  "model\t\t: 1\nflags\t\t: fpu ibs hypervisor\n");
	put(root, "proc/sys/kernel/osrelease", "6.1.0\n");
	put(root, "sys/bus/event_source/devices/software/type", "1\n");
	struct pb_machine m;
	pb_machine_probe(&m, root);
	avail(&m, "ibs-op", &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "virtual machine");
	put(root, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
				  "model\t\t: 1\nflags\t\t: fpu\n");
	pb_machine_probe(&m, root);
	avail(&m, "ibs-op", &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "CONFIG_PERF_EVENTS_AMD");
	put(root, "sys/bus/event_source/devices/ibs_op/type", "9\n");
	pb_machine_probe(&m, root);
	avail(&m, "ibs-op", &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "6.2");
	CHECK_STR_CONTAINS(av.reason, "6.1.0");
	/* No format directory at all: options fall back to the documented bits. */
	put(root, "proc/sys/kernel/osrelease", "6.5.0\n");
	put(root, "pesbench-caps", "perfmon=1\n");
	put(root, "pesbench-ibs-caps", "0x1f\n");
	pb_machine_probe(&m, root);
	struct perf_event_attr a;
	struct pb_error err;
	CHECK(build(&m, "ibs-op:ops", 4096, &a, false, &err) == 0);
	CHECK_EQ_U64(a.type, 9);
	CHECK_EQ_U64(a.config, UINT64_C(1) << 19);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
}

static void test_caps_names(void)
{
	char buf[256];
	pb_ibs_caps_names(0x81bff, buf, sizeof buf);
	CHECK_STR_CONTAINS(buf, "OPCNTEXT");
	CHECK_STR_CONTAINS(buf, "ZEN4");
	CHECK_STR_CONTAINS(buf, "OPLDLAT");
	CHECK_STR_CONTAINS(buf, "OPDTLBPGSIZE");
	pb_ibs_caps_names(0x7, buf, sizeof buf);
	CHECK(!strcmp(buf, "AVAIL FETCHSAM OPSAM"));
	char tiny[8];
	pb_ibs_caps_names(0x7, tiny, sizeof tiny);
	CHECK(!strcmp(tiny, "AVAIL"));
}

int main(void)
{
	pb_test_fixture(&zen4, "sysfs-zen4");
	pb_test_fixture(&zen5, "sysfs-zen5");
	pb_test_fixture(&vm, "sysfs-vm");
	test_zen4_op_bits();
	test_parse_errors();
	test_periods();
	test_zen4_capabilities();
	test_zen5();
	test_unavailable_reasons();
	test_caps_names();
	return pb_check_done("facility_ibs");
}
