/* perf.data's header features (HEADER_EVENT_DESC, PMU mappings and capabilities, the machine's
 * strings and numbers), read through a cursor that refuses to step past its section, and the
 * accessors of what the header says. */
#include "perfdata/perfdata.h"
#include "perfdata/perfdata_internal.h"
#include "util/text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- feature payloads: a cursor that refuses to step past the section ---- */

struct fcur {
	const uint8_t *p;
	size_t pos, len;
	bool failed;
};

static bool fhave(struct fcur *c, uint64_t n)
{
	if (c->failed || n > c->len - c->pos) {
		c->failed = true;
		return false;
	}
	return true;
}

static uint32_t fu32(struct fcur *c)
{
	uint32_t v = 0;
	if (fhave(c, 4)) {
		memcpy(&v, c->p + c->pos, 4);
		c->pos += 4;
	}
	return v;
}

/* perf_header_string: u32 len (padded length), then len bytes holding a NUL-terminated
 * string. Copies it (cut to dst_len) into dst. */
static bool fstring(struct fcur *c, char *dst, size_t dst_len)
{
	uint32_t len = fu32(c);
	if (!fhave(c, len) || len == 0) {
		c->failed = true;
		return false;
	}
	const char *s = (const char *)c->p + c->pos;
	size_t n = strnlen(s, len);
	if (n == len) { /* not terminated inside its own length */
		c->failed = true;
		return false;
	}
	if (dst_len) {
		size_t k = n < dst_len - 1 ? n : dst_len - 1;
		memcpy(dst, s, k);
		dst[k] = '\0';
	}
	c->pos += len;
	return true;
}

static int parse_event_desc(struct pb_perfdata *pd, struct fcur *c)
{
	uint32_t nr = fu32(c), attr_size = fu32(c);
	if (c->failed || attr_size < ATTR_SIZE_VER0 || attr_size > MAX_ATTR_ENTRY)
		return -1;
	for (uint32_t i = 0; i < nr && !c->failed; i++) {
		if (!fhave(c, attr_size))
			return -1;
		c->pos += attr_size;
		uint32_t nr_ids = fu32(c);
		char name[PB_PERFDATA_NAME_MAX];
		if (!fstring(c, name, sizeof name))
			return -1;
		if (!fhave(c, (uint64_t)nr_ids * 8))
			return -1;
		int ev = -1;
		if (nr_ids > 0) {
			uint64_t id0;
			memcpy(&id0, c->p + c->pos, 8);
			ev = find_event_by_id(pd, id0);
		} else if (i < pd->nevents && nr == pd->nevents) {
			ev = (int)i;
		}
		c->pos += (size_t)nr_ids * 8;
		if (ev >= 0)
			memcpy(pd->events[ev].name, name, sizeof name);
	}
	return c->failed ? -1 : 0;
}

static int parse_pmu_mappings(struct pb_perfdata *pd, struct fcur *c)
{
	uint32_t nr = fu32(c);
	if (c->failed || nr > PB_PERFDATA_MAX_PMUS)
		return -1;
	pd->pmus = calloc(nr ? nr : 1, sizeof(*pd->pmus));
	if (!pd->pmus)
		return -1;
	for (uint32_t i = 0; i < nr; i++) {
		pd->pmus[i].type = fu32(c);
		if (!fstring(c, pd->pmus[i].name, sizeof pd->pmus[i].name))
			return -1;
		pd->npmus++;
	}
	return 0;
}

static int parse_pmu_caps(struct pb_perfdata *pd, struct fcur *c)
{
	uint32_t nr_pmu = fu32(c);
	if (c->failed || nr_pmu > PB_PERFDATA_MAX_PMUS)
		return -1;
	for (uint32_t i = 0; i < nr_pmu; i++) {
		uint32_t nr_caps = fu32(c);
		if (c->failed || nr_caps > MAX_PMU_CAPS)
			return -1;
		size_t first = pd->ncaps;
		if (pd->ncaps + nr_caps > MAX_PMU_CAPS)
			return -1;
		struct pmu_cap *grown =
			realloc(pd->caps, (pd->ncaps + nr_caps + 1) * sizeof(*grown));
		if (!grown)
			return -1;
		pd->caps = grown;
		for (uint32_t k = 0; k < nr_caps; k++) {
			struct pmu_cap *cap = &pd->caps[pd->ncaps];
			memset(cap, 0, sizeof(*cap));
			if (!fstring(c, cap->name, sizeof cap->name) ||
			    !fstring(c, cap->value, sizeof cap->value))
				return -1;
			pd->ncaps++;
		}
		char pmu[64];
		if (!fstring(c, pmu, sizeof pmu))
			return -1;
		for (size_t k = first; k < pd->ncaps; k++)
			memcpy(pd->caps[k].pmu, pmu, sizeof pmu);
	}
	return 0;
}

const char *pb_pd_feature_name(unsigned bit)
{
	switch (bit) {
	case PB_FEAT_TRACING_DATA: return "TRACING_DATA";
	case PB_FEAT_BUILD_ID: return "BUILD_ID";
	case PB_FEAT_HOSTNAME: return "HOSTNAME";
	case PB_FEAT_OSRELEASE: return "OSRELEASE";
	case PB_FEAT_VERSION: return "VERSION";
	case PB_FEAT_ARCH: return "ARCH";
	case PB_FEAT_NRCPUS: return "NRCPUS";
	case PB_FEAT_CPUID: return "CPUID";
	case PB_FEAT_EVENT_DESC: return "EVENT_DESC";
	case PB_FEAT_PMU_MAPPINGS: return "PMU_MAPPINGS";
	case PB_FEAT_PMU_CAPS: return "PMU_CAPS";
	default: return "feature";
	}
}

bool pb_pd_feature_wanted(unsigned bit)
{
	switch (bit) {
	case PB_FEAT_HOSTNAME: case PB_FEAT_OSRELEASE: case PB_FEAT_VERSION: case PB_FEAT_ARCH:
	case PB_FEAT_BUILD_ID: case PB_FEAT_NRCPUS: case PB_FEAT_CPUID: case PB_FEAT_EVENT_DESC:
	case PB_FEAT_PMU_MAPPINGS: case PB_FEAT_PMU_CAPS:
		return true;
	default:
		return false; /* not needed for the analysis: skipped unread */
	}
}

/* HEADER_BUILD_ID: perf_record_header_build_id entries (header, pid, the id in 24 bytes with
 * its length in the 21st when misc has PERF_RECORD_MISC_BUILD_ID_SIZE, else 20, the file name
 * to the entry's end); the host kernel's ("[kernel.kallsyms]", misc PERF_RECORD_MISC_KERNEL)
 * is kept, to tell whether a recording's kernel is the running one. */
static int parse_build_ids(struct header_facts *f, struct fcur *c)
{
	enum { ENTRY_FIXED = 8 + 4 + 24, MISC_CPUMODE = 7, MISC_KERNEL = 1,
	       MISC_ID_SIZE = 1 << 15 };
	while (c->pos < c->len) {
		if (!fhave(c, ENTRY_FIXED))
			return -1;
		const uint8_t *e = c->p + c->pos;
		uint16_t misc, size;
		memcpy(&misc, e + 4, 2);
		memcpy(&size, e + 6, 2);
		if (size < ENTRY_FIXED || !fhave(c, size))
			return -1;
		const uint8_t *id = e + 12;
		size_t id_len = misc & MISC_ID_SIZE ? id[20] : 20;
		const char *name = (const char *)e + ENTRY_FIXED;
		size_t name_len = strnlen(name, size - ENTRY_FIXED);
		c->pos += size;
		if ((misc & MISC_CPUMODE) != MISC_KERNEL || id_len == 0 || id_len > 20 ||
		    name_len != strlen("[kernel.kallsyms]") ||
		    memcmp(name, "[kernel.kallsyms]", name_len))
			continue;
		pb_hex(f->kernel_build_id, id, id_len);
	}
	return 0;
}

/* One feature payload (a file section, or the body of a pipe-mode HEADER_FEATURE record). */
int pb_pd_parse_feature_buf(struct pb_perfdata *pd, unsigned bit, const uint8_t *buf,
			     size_t len, uint64_t offset, struct pb_error *err)
{
	struct fcur c = {.p = buf, .len = len};
	struct header_facts *f = &pd->facts;
	int rc = 0;
	switch (bit) {
	case PB_FEAT_HOSTNAME: rc = fstring(&c, f->hostname, sizeof f->hostname) ? 0 : -1; break;
	case PB_FEAT_OSRELEASE: rc = fstring(&c, f->osrelease, sizeof f->osrelease) ? 0 : -1; break;
	case PB_FEAT_VERSION: rc = fstring(&c, f->version, sizeof f->version) ? 0 : -1; break;
	case PB_FEAT_ARCH: rc = fstring(&c, f->arch, sizeof f->arch) ? 0 : -1; break;
	case PB_FEAT_CPUID: rc = fstring(&c, f->cpuid, sizeof f->cpuid) ? 0 : -1; break;
	case PB_FEAT_NRCPUS:
		f->nr_cpus_avail = fu32(&c);
		f->nr_cpus_online = fu32(&c);
		f->has_nrcpus = !c.failed;
		rc = c.failed ? -1 : 0;
		break;
	case PB_FEAT_EVENT_DESC: rc = parse_event_desc(pd, &c); break;
	case PB_FEAT_BUILD_ID: rc = parse_build_ids(f, &c); break;
	case PB_FEAT_PMU_MAPPINGS:
		if (pd->pmus) /* a second copy (pipe mode may repeat features): keep the first */
			return 0;
		rc = parse_pmu_mappings(pd, &c);
		break;
	case PB_FEAT_PMU_CAPS: rc = parse_pmu_caps(pd, &c); break;
	}
	if (rc)
		return pb_pd_bad(err, "the %s feature (offset %" PRIu64 ", %zu bytes) is corrupt",
			   pb_pd_feature_name(bit), offset, len);
	return 0;
}

int pb_pd_parse_feature(struct pb_perfdata *pd, unsigned bit, const struct section *s,
			 struct pb_error *err)
{
	if (!pb_pd_feature_wanted(bit))
		return 0;
	if (s->size > MAX_FEATURE_BYTES)
		return pb_pd_bad(
			err, "the %s section claims %" PRIu64 " bytes, more than any perf writes",
			pb_pd_feature_name(bit), s->size);
	uint8_t *buf = malloc(s->size ? s->size : 1);
	if (!buf)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "perf.data: out of memory");
	int rc = pb_pd_read_at(pd, s->offset, buf, s->size, pb_pd_feature_name(bit), err);
	if (!rc)
		rc = pb_pd_parse_feature_buf(pd, bit, buf, s->size, s->offset, err);
	free(buf);
	return rc;
}

size_t pb_perfdata_nevents(const struct pb_perfdata *pd) { return pd->nevents; }

struct pb_perfdata_event *pb_perfdata_event(struct pb_perfdata *pd, size_t index)
{
	return index < pd->nevents ? &pd->events[index] : NULL;
}

bool pb_perfdata_has_feature(const struct pb_perfdata *pd, unsigned feature)
{
	return feature < PB_FEAT_BITS && (pd->facts.features[feature / 64] >> (feature % 64)) & 1;
}

uint64_t pb_perfdata_data_size(const struct pb_perfdata *pd) { return pd->data.size; }
bool pb_perfdata_is_pipe(const struct pb_perfdata *pd) { return pd->pipe; }
const char *pb_perfdata_cpuid(const struct pb_perfdata *pd) { return pd->facts.cpuid; }
const char *pb_perfdata_arch(const struct pb_perfdata *pd) { return pd->facts.arch; }
const char *pb_perfdata_hostname(const struct pb_perfdata *pd) { return pd->facts.hostname; }
const char *pb_perfdata_osrelease(const struct pb_perfdata *pd) { return pd->facts.osrelease; }
const char *pb_perfdata_perf_version(const struct pb_perfdata *pd) { return pd->facts.version; }
const char *pb_perfdata_kernel_build_id(const struct pb_perfdata *pd)
{
	return pd->facts.kernel_build_id;
}

bool pb_perfdata_nr_cpus(const struct pb_perfdata *pd, uint32_t *available, uint32_t *online)
{
	if (!pd->facts.has_nrcpus)
		return false;
	*available = pd->facts.nr_cpus_avail;
	*online = pd->facts.nr_cpus_online;
	return true;
}

size_t pb_perfdata_npmus(const struct pb_perfdata *pd) { return pd->npmus; }

const struct pb_perfdata_pmu *pb_perfdata_pmu(const struct pb_perfdata *pd, size_t index)
{
	return index < pd->npmus ? &pd->pmus[index] : NULL;
}

const char *pb_perfdata_pmu_name(const struct pb_perfdata *pd, uint32_t type)
{
	for (size_t i = 0; i < pd->npmus; i++)
		if (pd->pmus[i].type == type)
			return pd->pmus[i].name;
	return NULL;
}

const char *pb_perfdata_pmu_cap(const struct pb_perfdata *pd, const char *pmu, const char *name)
{
	for (size_t i = 0; i < pd->ncaps; i++)
		if (!strcmp(pd->caps[i].pmu, pmu) && !strcmp(pd->caps[i].name, name))
			return pd->caps[i].value;
	return NULL;
}
