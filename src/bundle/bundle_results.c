/* A point's results as a bundle keeps them (see bundle_parts.h). */
#include "bundle/bundle_parts.h"
#include "io/results.h"

static json_t *attribution_json(const struct pb_point *pt)
{
	json_t *insns = json_array();
	for (size_t i = 0; i < pt->code.n; i++) {
		const struct pb_insn *in = &pt->code.insns[i];
		uint64_t at = pt->insn_samples ? pt->insn_samples[i] : 0;
		uint64_t before = pt->insn_samples_before ? pt->insn_samples_before[i] : 0;
		if (in->label < 0 && !at && !before)
			continue;
		char addr[24];
		snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)in->addr);
		json_array_append_new(
			insns, json_pack("{s:s, s:i, s:s?, s:I, s:I}", "addr", addr, "len", in->len,
					 "label",
					 in->label >= 0 ? pt->instance.truth.labels[in->label].name
							: NULL,
					 "at", (json_int_t)at, "before", (json_int_t)before));
	}
	return json_pack("{s:I, s:I, s:o}", "instructions", (json_int_t)pt->code.n, "outside",
			 (json_int_t)pt->outside_samples, "insns", insns);
}

json_t *pb_bundle_results_json(const struct pb_point_request *req, const struct pb_point *pt)
{
	struct pb_rset run = {0};
	pb_point_record(req, pt, &run);
	struct pb_rvalue v = {.kind = PB_RV_SET, .as.set = &run};
	json_t *all = pb_rvalue_json(&v);
	json_t *out = json_object();
	json_object_set(out, "events", json_object_get(all, "events"));
	json_object_set(out, "label", json_object_get(all, "label"));
	if (req->attribute)
		json_object_set_new(out, "attribution", attribution_json(pt));
	json_decref(all);
	pb_rset_clear(&run);
	return out;
}
