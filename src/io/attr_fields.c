/* perf_event_attr's fields by name, and `pesbench attr --json`. */
#include "io/attr_fields.h"

#include <jansson.h>

unsigned pb_attr_fields(const struct perf_event_attr *a, struct pb_attr_field *f)
{
	unsigned n = 0;
#define ADD(name_, value_, hex_) f[n++] = (struct pb_attr_field){name_, (uint64_t)(value_), hex_}
	ADD("type", a->type, false);
	ADD("size", a->size, false);
	ADD("config", a->config, true);
	ADD("config1", a->config1, true);
	ADD("config2", a->config2, true);
	ADD("sample_period", a->sample_period, false);
	ADD("sample_type", a->sample_type, true);
	ADD("read_format", a->read_format, true);
	ADD("disabled", a->disabled, false);
	ADD("inherit", a->inherit, false);
	ADD("exclude_user", a->exclude_user, false);
	ADD("exclude_kernel", a->exclude_kernel, false);
	ADD("exclude_hv", a->exclude_hv, false);
	ADD("exclude_idle", a->exclude_idle, false);
	ADD("mmap", a->mmap, false);
	ADD("comm", a->comm, false);
	ADD("freq", a->freq, false);
	ADD("precise_ip", a->precise_ip, false);
	ADD("mmap2", a->mmap2, false);
	ADD("sample_id_all", a->sample_id_all, false);
	ADD("exclude_guest", a->exclude_guest, false);
	ADD("sigtrap", a->sigtrap, false);
	ADD("wakeup_events", a->wakeup_events, false);
	/* bp_addr and bp_len share their words with config1 and config2 */
	if (a->type == PERF_TYPE_BREAKPOINT) {
		ADD("bp_type", a->bp_type, false);
		ADD("bp_addr", a->bp_addr, true);
		ADD("bp_len", a->bp_len, false);
	}
#undef ADD
	return n;
}

json_t *pb_attr_json(const struct pb_attr_model *m, const struct pb_attr_field *f, unsigned n)
{
	json_t *o = json_object();
	json_object_set_new(o, "spec", json_string(m->spec));
	json_object_set_new(o, "machine", json_string(m->machine));
	json_t *a = json_object();
	for (unsigned i = 0; i < n; i++)
		json_object_set_new(a, f[i].name, json_integer((json_int_t)f[i].value));
	json_object_set_new(o, "attr", a);
	json_object_set_new(o, "workload", json_string(m->workload));
	json_object_set_new(o, "params", json_string(m->params));
	json_object_set_new(o, "basis", json_string(m->basis));
	json_object_set_new(o, "declared_per_1000_iterations",
			    json_integer((json_int_t)m->declared_per_1000));
	json_object_set_new(o, "ip", json_string(m->ip));
	json_object_set_new(o, "exclude_kernel", json_boolean(m->exclude_kernel));
	return o;
}
