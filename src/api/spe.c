/* The SPE decoder of the public API (include/pesbench/spe.h) over facilities/spe_packet.c. */
#include "api/api.h"
#include "facilities/spe_packet.h"

#include <pesbench/spe.h>

#include <stdlib.h>

struct pesbench_spe_record {
	struct pb_spe_record r;
};

struct pesbench_spe_decoder {
	struct pb_spe_decoder d;
	struct pesbench_spe_record rec;   /* the last record handed out */
};

struct pesbench_spe_decoder *pesbench_spe_decoder__new(const void *buf, size_t len)
{
	struct pesbench_spe_decoder *d = calloc(1, sizeof(*d));
	if (d)
		pb_spe_decoder_init(&d->d, buf, len);
	return d;
}

void pesbench_spe_decoder__delete(struct pesbench_spe_decoder *d)
{
	free(d);
}

const struct pesbench_spe_record *pesbench_spe_decoder__next(struct pesbench_spe_decoder *d)
{
	return pb_spe_next_record(&d->d, &d->rec.r) ? &d->rec : NULL;
}

size_t pesbench_spe_record__offset(const struct pesbench_spe_record *r)
{
	return r->r.offset;
}

size_t pesbench_spe_record__length(const struct pesbench_spe_record *r)
{
	return r->r.length;
}

bool pesbench_spe_record__complete(const struct pesbench_spe_record *r)
{
	return r->r.complete;
}

unsigned pesbench_spe_record__nr_bad_packets(const struct pesbench_spe_record *r)
{
	return r->r.bad_packets;
}

int pesbench_spe_record__field(const struct pesbench_spe_record *rec, enum pesbench_spe_field field,
			       uint64_t *value)
{
	const struct pb_spe_record *r = &rec->r;
	uint64_t v = 0;
	bool has = false;

	switch (field) {
	case PESBENCH_SPE_PC: has = r->has_pc; v = r->pc; break;
	case PESBENCH_SPE_EL: has = r->has_pc; v = r->el; break;
	case PESBENCH_SPE_BRANCH_TARGET: has = r->has_target; v = r->target; break;
	case PESBENCH_SPE_DATA_VA: has = r->has_data_va; v = r->data_va; break;
	case PESBENCH_SPE_DATA_PA: has = r->has_data_pa; v = r->data_pa; break;
	case PESBENCH_SPE_TOTAL_LAT: has = r->has_total_lat; v = r->total_lat; break;
	case PESBENCH_SPE_ISSUE_LAT: has = r->has_issue_lat; v = r->issue_lat; break;
	case PESBENCH_SPE_XLAT_LAT: has = r->has_xlat_lat; v = r->xlat_lat; break;
	case PESBENCH_SPE_EVENTS: has = r->has_events; v = r->events; break;
	case PESBENCH_SPE_OP_CLASS: has = r->has_op; v = r->op_class; break;
	case PESBENCH_SPE_OP_TYPE: has = r->has_op; v = r->op_raw; break;
	case PESBENCH_SPE_DATA_SOURCE: has = r->has_data_source; v = r->data_source; break;
	case PESBENCH_SPE_TIMESTAMP: has = r->has_timestamp; v = r->timestamp; break;
	case PESBENCH_SPE_CONTEXT: has = r->has_context; v = r->context; break;
	}
	if (has)
		*value = v;
	return has ? 0 : -1;
}

const char *pesbench_spe_event__name(unsigned bit)
{
	return pb_spe_event_name(bit);
}
