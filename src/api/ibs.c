/* The IBS decoder of the public API (include/pesbench/ibs.h) over facilities/ibs_raw.c. */
#include "api/api.h"
#include "facilities/ibs_raw.h"

#include <pesbench/ibs.h>

#include <stdlib.h>

struct pesbench_ibs_sample {
	struct pb_ibs_sample s;
	struct pb_ibs_op_class cls;   /* of an op sample; flags 0 for fetch */
};

_Static_assert((unsigned)PESBENCH_IBS_OP_LOAD == PB_IBS_OP_LOAD &&
		       (unsigned)PESBENCH_IBS_OP_L1_MISS == PB_IBS_OP_L1_MISS &&
		       (unsigned)PESBENCH_IBS_OP_MICROCODE == PB_IBS_OP_MICROCODE &&
		       PB_IBS_OP_NFLAGS == 17,
	       "the public op flags are the classifier's");

struct pesbench_ibs_sample *pesbench_ibs_sample__new(void)
{
	return calloc(1, sizeof(struct pesbench_ibs_sample));
}

void pesbench_ibs_sample__delete(struct pesbench_ibs_sample *s)
{
	free(s);
}

int pesbench_ibs_sample__decode(struct pesbench_ibs_sample *s, const void *raw, size_t len,
				enum pesbench_ibs_kind kind, const struct pesbench_ibs_cpu *cpu,
				struct pesbench_error *err)
{
	struct pb_ibs_cpu c = {
		.family = cpu->family,
		.model = cpu->model,
		.zen4_ibs_extensions = cpu->flags & PESBENCH_IBS_CPU_ZEN4_EXT,
		.ldlat = cpu->flags & PESBENCH_IBS_CPU_LDLAT,
		.dtlb_pgsize = cpu->flags & PESBENCH_IBS_CPU_DTLB_PGSIZE,
	};
	struct pb_error e;
	enum pb_ibs_kind k = kind == PESBENCH_IBS_OP ? PB_IBS_OP : PB_IBS_FETCH;
	if (pb_ibs_decode(raw, len, k, &c, &s->s, &e))
		return pb_api_error(err, &e);
	s->cls = (struct pb_ibs_op_class){.data_src = -1};
	if (k == PB_IBS_OP && pb_ibs_op_classify(&s->s, &s->cls, &e))
		return pb_api_error(err, &e);
	return 0;
}

bool pesbench_ibs_sample__valid(const struct pesbench_ibs_sample *s)
{
	return s->s.valid;
}

unsigned pesbench_ibs_sample__nr_regs(const struct pesbench_ibs_sample *s)
{
	return s->s.nregs;
}

uint64_t pesbench_ibs_sample__reg(const struct pesbench_ibs_sample *s, unsigned index)
{
	return index < s->s.nregs ? s->s.regs[index] : 0;
}

int pesbench_ibs_sample__field(const struct pesbench_ibs_sample *s, enum pesbench_ibs_field field,
			       uint64_t *value)
{
	const struct pb_ibs_sample *d = &s->s;
	bool op = d->kind == PB_IBS_OP;
	uint64_t v = 0;
	bool has = false;

	switch (field) {
	case PESBENCH_IBS_IP:
		has = op ? d->op.rip_valid : true;
		v = op ? d->op.rip : d->fetch.lin_addr;
		break;
	case PESBENCH_IBS_PERIOD:
		has = true;
		v = op ? d->op.ctl.period : (uint64_t)d->fetch.ctl.max_cnt << 4;
		break;
	case PESBENCH_IBS_FETCH_LAT:
		has = !op;
		v = d->fetch.ctl.lat;
		break;
	case PESBENCH_IBS_DATA_ADDR:
		has = op && s->cls.data_addr_valid;
		v = s->cls.data_addr;
		break;
	case PESBENCH_IBS_PHYS_ADDR:
		has = op ? d->op.data3.dc_phy_addr_valid : d->fetch.ctl.phy_addr_valid;
		v = op ? d->op.dc_phys_addr : d->fetch.phys_addr;
		break;
	case PESBENCH_IBS_DC_MISS_LAT:
		has = op && s->cls.latency;
		v = s->cls.latency;
		break;
	case PESBENCH_IBS_DATA_SRC:
		has = op && s->cls.data_src >= 0;
		v = has ? (uint64_t)s->cls.data_src : 0;
		break;
	case PESBENCH_IBS_BR_TARGET:
		has = op && d->op.has_br_target;
		v = d->op.br_target;
		break;
	case PESBENCH_IBS_OP_FLAGS:
		has = op;
		v = s->cls.flags;
		break;
	}
	if (has)
		*value = v;
	return has ? 0 : -1;
}

const char *pesbench_ibs_op_flag__name(unsigned flag)
{
	return pb_ibs_op_flag_name(flag);
}

int pesbench_ibs_sample__fprintf(const struct pesbench_ibs_sample *s, FILE *out)
{
	return pb_ibs_print(out, &s->s);
}
