/* spe against a constructed Neoverse machine: config bits taken from the PMU's format files,
 * period rules, privilege for physical addresses, availability reasons. */
#include "check.h"
#include "fixture.h"
#include "facilities/facility.h"

#include <errno.h>

static struct pb_machine neoverse, vm, zen4;

static int build_keep(const struct pb_machine *m, const char *text, uint64_t period,
		      struct perf_event_attr *attr, struct pb_error *err)
{
	struct pb_spec spec;
	pb_error_clear(err);
	if (pb_spec_parse(text, &spec, err))
		return -1;
	return pb_spec_attr(m, &spec, NULL, period, attr, err);
}

static int build(const struct pb_machine *m, const char *text, uint64_t period,
		 struct perf_event_attr *attr, struct pb_error *err)
{
	memset(attr, 0, sizeof *attr);
	return build_keep(m, text, period, attr, err);
}

static struct pb_pmu *spe_pmu(struct pb_machine *m)
{
	for (unsigned i = 0; i < m->npmus; i++)
		if (!strncmp(m->pmus[i].name, "arm_spe_", 8))
			return &m->pmus[i];
	return NULL;
}

/* Replaces one "name=value" line of the PMU's format list (value NULL removes it). */
static void set_format_line(struct pb_pmu *p, const char *name, const char *value)
{
	char out[sizeof p->formats] = "";
	char copy[sizeof p->formats];
	snprintf(copy, sizeof copy, "%s", p->formats);
	char *save = NULL;
	size_t nlen = strlen(name);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, name, nlen) && line[nlen] == '=')
			continue;
		snprintf(out + strlen(out), sizeof out - strlen(out), "%s\n", line);
	}
	if (value)
		snprintf(out + strlen(out), sizeof out - strlen(out), "%s=%s\n", name, value);
	memcpy(p->formats, out, sizeof out);
}

static void test_bits(void)
{
	struct perf_event_attr a;
	struct pb_error err;
	CHECK(build(&neoverse, "spe", 4096, &a, &err) == 0);
	CHECK_EQ_U64(a.type, 9); /* sysfs arm_spe_0/type */
	CHECK_EQ_U64(a.sample_period, 4096);
	CHECK_EQ_U64(a.config, 0);
	CHECK(a.disabled); /* enabled only after the AUX area is mapped */
	CHECK(!a.freq);
	CHECK(build(&neoverse, "spe:load:store:branch", 4096, &a, &err) == 0);
	CHECK_EQ_U64(a.config, (UINT64_C(1) << 32) | (UINT64_C(1) << 33) | (UINT64_C(1) << 34));
	CHECK(build(&neoverse, "spe:ts:pa:jitter", 4096, &a, &err) == 0);
	CHECK_EQ_U64(a.config, (UINT64_C(1) << 0) | (UINT64_C(1) << 1) | (UINT64_C(1) << 16));
	CHECK(build(&neoverse, "spe:load:min_latency=100:event_filter=0x2a", 4096, &a, &err) == 0);
	CHECK_EQ_U64(a.config, UINT64_C(1) << 33);
	CHECK_EQ_U64(a.config2, 100);
	CHECK_EQ_U64(a.config1, 0x2a);
	CHECK(build(&neoverse, "spe:event_filter=ffffffffffffffff", 4096, &a, &err) == 0);
	CHECK_EQ_U64(a.config1, UINT64_MAX);
	CHECK(build(&neoverse, "spe:min_latency=4095", 4096, &a, &err) == 0);
	CHECK_EQ_U64(a.config2, 4095);
	CHECK(build(&neoverse, "spe:min_latency=4096", 4096, &a, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "config2:0-11");
	memset(&a, 0, sizeof a);
	a.exclude_idle = 1;
	a.exclude_kernel = 1; /* real hardware filtering on SPE: kept */
	CHECK(build_keep(&neoverse, "spe", 4096, &a, &err) == 0);
	CHECK(!a.exclude_idle);
	CHECK(a.exclude_kernel);
}

static void test_format_files_decide(void)
{
	struct perf_event_attr a;
	struct pb_error err;
	struct pb_availability av;
	struct pb_machine m = neoverse;
	struct pb_pmu *p = spe_pmu(&m);
	CHECK(p != NULL);
	if (!p)
		return;
	set_format_line(p, "load_filter", "config:40");
	set_format_line(p, "min_latency", "config2:0-15"); /* a wider counter */
	CHECK(build(&m, "spe:load:min_latency=60000", 4096, &a, &err) == 0);
	CHECK_EQ_U64(a.config, UINT64_C(1) << 40);
	CHECK_EQ_U64(a.config2, 60000);
	set_format_line(p, "jitter", NULL);
	CHECK(build(&m, "spe:jitter", 4096, &a, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_UNAVAILABLE);
	CHECK_STR_CONTAINS(err.msg, "format/jitter");
	struct pb_spec spec;
	CHECK(pb_spec_parse("spe:jitter", &spec, &err) == 0);
	spec.facility->availability(&m, &spec, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, ":jitter");
	set_format_line(p, "store_filter", "config:0-7,32-35");
	CHECK(build(&m, "spe:store", 4096, &a, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "not a config field");
	/* A PMU that lists no formats: the driver's documented layout. */
	p->formats[0] = '\0';
	snprintf(p->name, sizeof p->name, "arm_spe_1");
	CHECK(build(&m, "spe:load:jitter:min_latency=7", 4096, &a, &err) == 0);
	CHECK_EQ_U64(a.config, (UINT64_C(1) << 33) | (UINT64_C(1) << 16));
	CHECK_EQ_U64(a.config2, 7);
}

static void test_period_and_errors(void)
{
	struct perf_event_attr a;
	struct pb_error err;
	struct pb_spec spec;
	CHECK(build(&neoverse, "spe", 512, &a, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "min_interval 1024");
	CHECK(build(&neoverse, "spe", 1024, &a, &err) == 0);
	CHECK(build(&neoverse, "spe", 0, &a, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "at least 1024");
	memset(&a, 0, sizeof a);
	a.freq = 1;
	CHECK(build_keep(&neoverse, "spe", 4000, &a, &err) == -1);
	CHECK_EQ_U64(err.sys_errno, EINVAL);
	CHECK_STR_CONTAINS(err.msg, "frequency");
	CHECK(pb_spec_parse("spe:loads", &spec, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "'loads'");
	CHECK(pb_spec_parse("spe:event_filter=zz", &spec, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "hexadecimal");
	CHECK(pb_spec_parse("spe:min_latency=", &spec, &err) == -1);

	/* Physical addresses need CAP_PERFMON. */
	struct pb_machine user = neoverse;
	user.cap_perfmon = user.cap_sys_admin = user.is_root = false;
	CHECK(build(&user, "spe:pa", 4096, &a, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_UNAVAILABLE);
	CHECK_STR_CONTAINS(err.msg, "CAP_PERFMON");
	CHECK(build(&user, "spe:load", 4096, &a, &err) == 0);
}

static void test_availability(void)
{
	const struct pb_facility *spe = pb_facility_find("spe");
	struct pb_availability av;
	CHECK(spe != NULL);
	spe->availability(&neoverse, NULL, &av);
	CHECK(av.available);
	CHECK_STR_CONTAINS(av.detail, "arm_spe_0 type 9");
	CHECK_STR_CONTAINS(av.detail, "min_interval 1024");
	CHECK_STR_CONTAINS(av.detail, "12-bit");
	spe->availability(&vm, NULL, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "Arm facility");
	CHECK_STR_CONTAINS(av.reason, "GenuineIntel");
	spe->availability(&zen4, NULL, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "ibs-op");
	struct pb_machine arm = neoverse;
	struct pb_pmu *p = spe_pmu(&arm);
	if (p)
		snprintf(p->name, sizeof p->name, "not_spe");
	spe->availability(&arm, NULL, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "kpti=off");
	arm.hypervisor = true;
	spe->availability(&arm, NULL, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "virtual machine");
	struct pb_machine locked = neoverse;
	locked.paranoid = 4;
	locked.cap_perfmon = locked.cap_sys_admin = false;
	spe->availability(&locked, NULL, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "perf_event_paranoid is 4");
}

int main(void)
{
	pb_test_fixture(&neoverse, "sysfs-neoverse");
	pb_test_fixture(&vm, "sysfs-vm");
	pb_test_fixture(&zen4, "sysfs-zen4");
	test_bits();
	test_format_files_decide();
	test_period_and_errors();
	test_availability();
	return pb_check_done("facility_spe");
}
