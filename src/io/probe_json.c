#include "io/probe_json.h"

#include "facilities/facility.h"

static json_t *int_or_null(long long v, bool known)
{
	return known ? json_integer(v) : json_null();
}

/* Every core PMU (several on hybrid machines): the CPUs it covers and its precise levels. */
static json_t *core_pmus_json(const struct pb_machine *m)
{
	const struct pb_pmu *core[PB_MAX_PMUS];
	unsigned n = pb_machine_core_pmus(m, core, PB_MAX_PMUS);
	json_t *list = json_array();
	for (unsigned i = 0; i < n; i++) {
		char buf[16];
		const char *caps = pb_pmu_caps(core[i], "max_precise", buf, sizeof buf);
		json_array_append_new(
			list, json_pack("{s:s, s:i, s:s, s:o, s:o}", "name", core[i]->name, "type",
					core[i]->type, "cpus", core[i]->cpus, "max_precise",
					caps ? json_integer(atoi(caps)) : json_null(),
					"precise_opened",
					core[i]->precise_opened >= 0
						? json_integer(core[i]->precise_opened)
						: json_null()));
	}
	return list;
}

static json_t *fact_json(const struct pb_machine_fact *f)
{
	switch (f->kind) {
	case PB_FACT_INT: return json_integer(f->number);
	case PB_FACT_TEXT: return json_string(f->text);
	case PB_FACT_NULL: break;
	}
	return json_null();
}

/* The facilities' own facts of the machine, as each descriptor describes them. */
static void facts_json(json_t *j, const struct pb_machine *m)
{
	struct pb_machine_fact facts[PB_MAX_MACHINE_FACTS];
	unsigned n = pb_machine_facts(m, facts, PB_MAX_MACHINE_FACTS);
	for (unsigned i = 0; i < n; i++)
		json_object_set_new(j, facts[i].key, fact_json(&facts[i]));
}

json_t *pb_machine_facts_json(const struct pb_machine *m)
{
	struct pb_machine_fact facts[PB_MAX_MACHINE_FACTS];
	unsigned n = pb_machine_facts(m, facts, PB_MAX_MACHINE_FACTS);
	json_t *list = json_array();
	for (unsigned i = 0; i < n; i++) {
		json_t *fact = json_pack("{s:s, s:o}", "key", facts[i].key, "value",
					 fact_json(&facts[i]));
		if (facts[i].title)
			json_object_set_new(fact, "title", json_string(facts[i].title));
		json_array_append_new(list, fact);
	}
	return list;
}

static json_t *machine_json(const struct pb_machine *m)
{
	json_t *j = json_object();
	json_object_set_new(j, "root", json_string(m->root));
	json_object_set_new(j, "kernel", json_string(m->kernel_release));
	json_object_set_new(j, "kernel_major", json_integer(m->kernel_major));
	json_object_set_new(j, "kernel_minor", json_integer(m->kernel_minor));
	json_object_set_new(j, "cpu_vendor", json_string(m->cpu_vendor));
	json_object_set_new(j, "cpu_family", json_integer(m->cpu_family));
	json_object_set_new(j, "cpu_model", json_integer(m->cpu_model));
	json_object_set_new(j, "cpu_stepping", json_integer(m->cpu_stepping));
	json_object_set_new(j, "cpu_model_name", json_string(m->cpu_model_name));
	json_object_set_new(j, "hypervisor", json_boolean(m->hypervisor));
	json_object_set_new(j, "ncpus", json_integer(m->ncpus));
	json_object_set_new(j, "paranoid", int_or_null(m->paranoid, m->paranoid != -99));
	json_object_set_new(j, "max_sample_rate",
			    int_or_null(m->max_sample_rate, m->max_sample_rate >= 0));
	json_object_set_new(j, "cap_perfmon", json_boolean(m->cap_perfmon));
	json_object_set_new(j, "cap_sys_admin", json_boolean(m->cap_sys_admin));
	json_object_set_new(j, "is_root", json_boolean(m->is_root));
	facts_json(j, m);
	json_object_set_new(j, "has_format_lost", json_boolean(m->has_format_lost));
	json_object_set_new(j, "l1d_size", json_integer(m->l1d_size));
	json_object_set_new(j, "l1d_line", json_integer(m->l1d_line));
	json_object_set_new(j, "l1d_source", json_string(m->l1d_source ? m->l1d_source : ""));
	json_object_set_new(j, "arm", json_boolean(m->arm));
	json_object_set_new(j, "midr", int_or_null((long long)m->midr, m->midr != 0));
	json_object_set_new(j, "riscv", json_boolean(m->riscv));
	json_object_set_new(j, "riscv_isa", json_string(m->riscv_isa));
	json_object_set_new(j, "riscv_sscofpmf", json_boolean(m->riscv_sscofpmf));
	json_object_set_new(j, "riscv_fw_counters", json_integer(m->riscv_fw_counters));
	const struct pb_pmu *core = pb_machine_core_pmu(m);
	json_object_set_new(j, "core_pmu", json_string(core ? core->name : ""));
	json_object_set_new(j, "core_pmu_type", int_or_null(core ? core->type : 0, core != NULL));
	json_object_set_new(j, "pmu_counters", int_or_null(m->pmu_counters, m->pmu_counters != 0));
	json_object_set_new(j, "pmu_counters_source",
			    json_string(m->pmu_counters_source ? m->pmu_counters_source : ""));
	json_t *pmus = json_array();
	for (unsigned i = 0; i < m->npmus; i++) {
		json_t *p = json_object();
		json_object_set_new(p, "name", json_string(m->pmus[i].name));
		json_object_set_new(p, "type", json_integer(m->pmus[i].type));
		json_array_append_new(pmus, p);
	}
	json_object_set_new(j, "pmus", pmus);
	json_object_set_new(j, "pmus_skipped", json_integer(m->pmus_skipped));
	json_object_set_new(j, "core_pmus", core_pmus_json(m));
	return j;
}

json_t *pb_self_test_json(const struct pb_self_test *test)
{
	if (test->verdict == PB_VERDICT_ABSENT || test->verdict == PB_VERDICT_UNTESTED)
		return json_null();
	json_t *j = json_object();
	json_object_set_new(j, "verdict", json_string(pb_verdict_name(test->verdict)));
	json_object_set_new(j, "expected", json_integer((json_int_t)test->expected));
	json_object_set_new(j, "counted", json_integer((json_int_t)test->counted));
	json_object_set_new(j, "samples", json_integer((json_int_t)test->samples));
	json_object_set_new(j, "samples_inside", json_integer((json_int_t)test->samples_inside));
	json_object_set_new(j, "ms", json_real(test->ms));
	json_object_set_new(j, "errno", json_integer(test->sys_errno));
	json_object_set_new(j, "text", json_string(test->text));
	/* a retried verdict keeps what each earlier run gave */
	json_object_set_new(j, "attempts", json_integer(test->attempts));
	json_object_set_new(j, "earlier_attempts", json_string(test->earlier));
	json_object_set_new(j, "wrong_level_samples", json_integer((json_int_t)test->wrong_level));
	return j;
}

json_t *pb_probe_json(const struct pb_machine *m)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_string("pesbench-probe/1"));
	json_object_set_new(root, "machine", machine_json(m));
	json_t *list = json_array();
	for (const struct pb_facility *const *f = pb_facility_list(); *f; f++) {
		struct pb_availability av;
		struct pb_self_test test;
		pb_facility_check(m, NULL, *f, &av, &test);
		json_t *j = json_object();
		json_object_set_new(j, "name", json_string((*f)->name));
		json_object_set_new(j, "usage", json_string((*f)->usage));
		json_object_set_new(j, "summary", json_string((*f)->summary ? (*f)->summary : ""));
		json_object_set_new(j, "needs", json_string((*f)->needs ? (*f)->needs : ""));
		json_object_set_new(j, "available", json_boolean(av.available));
		json_object_set_new(j, "reason", json_string(av.available ? "" : av.reason));
		json_object_set_new(j, "detail", json_string(av.available ? av.detail : ""));
		json_object_set_new(j, "exact", json_boolean((*f)->exact));
		json_object_set_new(j, "ip",
				    json_string(pb_ip_kind_name(pb_facility_ip_kind(m, *f))));
		json_object_set_new(j, "verdict", json_string(pb_verdict_name(test.verdict)));
		json_object_set_new(j, "self_test", pb_self_test_json(&test));
		json_array_append_new(list, j);
	}
	json_object_set_new(root, "facilities", list);
	return root;
}
