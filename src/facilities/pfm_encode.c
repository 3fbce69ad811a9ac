/* libpfm4 wrapper. <linux/perf_event.h> comes first so libpfm4's own copy of the struct (in
 * <perfmon/perf_event.h>) steps aside and both sides agree on one perf_event_attr. */
#include <linux/perf_event.h>

#include "facilities/pfm_encode.h"
#include "util/kit.h"
#include "util/text.h"

#include <ctype.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_status = PFM_ERR_NOINIT;

static void init_library(void)
{
	/* Encode for PMUs that exist in the tables but not on this host (fixtures, VMs). */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	init_status = pfm_initialize();
}

static int ensure_init(struct pb_error *err)
{
	pthread_once(&init_once, init_library);
	if (init_status != PFM_SUCCESS)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "libpfm4 failed to initialise: %s",
			       pfm_strerror(init_status));
	return 0;
}

const char *pb_pfm_version(void)
{
	static char text[16];
	if (ensure_init(NULL))
		return "?";
	int v = pfm_get_version();
	snprintf(text, sizeof text, "%d.%d", PFM_MAJ_VERSION(v), PFM_MIN_VERSION(v));
	return text;
}

static bool find_pmu(const char *name, pfm_pmu_info_t *info)
{
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		memset(info, 0, sizeof *info);
		info->size = sizeof *info;
		if (pfm_get_pmu_info(p, info) == PFM_SUCCESS && info->name && !strcmp(info->name, name))
			return true;
	}
	return false;
}

bool pb_pfm_pmu_supported(const char *pmu)
{
	pfm_pmu_info_t info;
	return pmu && !ensure_init(NULL) && find_pmu(pmu, &info);
}

static const char *first_supported(const char *a, const char *b)
{
	if (a && pb_pfm_pmu_supported(a))
		return a;
	return b && pb_pfm_pmu_supported(b) ? b : NULL;
}

static const char *intel_pmu(unsigned model, unsigned stepping)
{
	switch (model) {
	case 0x3c: case 0x45: case 0x46: return first_supported("hsw", NULL);
	case 0x3f: return first_supported("hsw_ep", NULL);
	case 0x3d: case 0x47: return first_supported("bdw", NULL);
	case 0x4f: case 0x56: return first_supported("bdw_ep", NULL);
	case 0x4e: case 0x5e: case 0x8e: case 0x9e: case 0xa5: case 0xa6:
		return first_supported("skl", NULL);
	case 0x55: return stepping >= 5 ? first_supported("clx", "skx") : first_supported("skx", NULL);
	case 0x7d: case 0x7e: case 0xa7: case 0x8c: case 0x8d: return first_supported("icl", NULL);
	case 0x6a: case 0x6c: return first_supported("icx", NULL);
	case 0x8f: return first_supported("spr", NULL);
	case 0xcf: return first_supported("emr", "spr");
	case 0xad: case 0xae: return first_supported("gnr", "spr");
	}
	return NULL;
}

static const char *amd_pmu(unsigned family, unsigned model)
{
	if (family == 0x17)
		return model < 0x30 ? first_supported("amd64_fam17h_zen1", NULL)
				    : first_supported("amd64_fam17h_zen2", NULL);
	if (family == 0x19) {
		bool zen4 = (model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0x7f) ||
			    (model >= 0xa0 && model <= 0xaf);
		return zen4 ? first_supported("amd64_fam19h_zen4", NULL)
			    : first_supported("amd64_fam19h_zen3", NULL);
	}
	if (family == 0x1a)
		return first_supported("amd64_fam1ah_zen5", "amd64_fam19h_zen4");
	return NULL;
}

/* libpfm4's armv8 tables, by MIDR implementer and part as libpfm4's own detection reads them
 * (lib/pfmlib_arm_armv8.c). libpfm4 compiles them only into its arm64 builds. */
const char *pb_pfm_arm_table(unsigned implementer, unsigned part)
{
	switch (implementer << 12 | part) {
	case 0x41d03: return "arm_ac53";
	case 0x41d07: return "arm_ac57";
	case 0x41d0c: return "arm_n1";
	case 0x41d40: return "arm_v1";
	case 0x41d49: return "arm_n2";
	case 0x41d4f: return "arm_v2";
	case 0x42516: case 0x430af: return "arm_thunderx2";
	case 0x46001: return "arm_a64fx";
	case 0x48d01: return "arm_kunpeng";
	case 0x50000: return "arm_xgene";
	}
	return NULL;
}

const char *pb_pfm_pmu_for_machine(const struct pb_machine *m)
{
	if (pb_machine_is_arm(m))
		return first_supported(pb_pfm_arm_table(m->arm_implementer, m->cpu_model), NULL);
	if (!strcmp(m->cpu_vendor, "GenuineIntel") && m->cpu_family == 6)
		return intel_pmu(m->cpu_model, m->cpu_stepping);
	if (!strcmp(m->cpu_vendor, "AuthenticAMD"))
		return amd_pmu(m->cpu_family, m->cpu_model);
	return NULL;
}

/* Known bugs in libpfm4's tables, corrected after encoding. A row applies only when libpfm4
 * produced exactly the wrong value, so a fixed libpfm4 passes through untouched. */
struct pfm_fix {
	const char *pmu;
	const char *event;        /* "EVENT:UMASK"; a trailing ':' matches every umask */
	uint64_t wrong, right;    /* low 16 bits (umask<<8 | event); 0/0: no config fix */
	bool precise;             /* the event is PEBS-capable though the table says not */
	const char *source;
};

static const struct pfm_fix fixes[] = {
	{"spr", "INST_RETIRED:ANY", 0x1c0, 0x100, false,
	 "libpfm4 4.13 spr table encodes INST_RETIRED:ANY as 0x1c0; Intel perfmon SPR JSON and the "
	 "kernel use fixed-counter event 0x00 umask 0x01 = 0x100 (fixed upstream in libpfm4 489a940, "
	 "2024-06)"},
	{"spr", "MEM_TRANS_RETIRED:STORE_SAMPLE", 0x3cd, 0x2cd, false,
	 "libpfm4 4.13 spr table ORs umask 0x02 into an event code that already holds umask 0x01, "
	 "giving 0x3cd; Intel perfmon SPR JSON (event 0xCD umask 0x02) and the kernel's store-latency "
	 "constraint use 0x2cd (still wrong in libpfm4 git 2024-10)"},
	{"spr", "MEM_LOAD_L3_MISS_RETIRED:", 0, 0, true,
	 "libpfm4 4.13 spr table lacks the PEBS flag on MEM_LOAD_L3_MISS_RETIRED; Intel perfmon SPR "
	 "JSON marks it PEBS (fixed upstream in libpfm4 769b239, 2024-02)"},
};

static bool fix_matches(const struct pfm_fix *f, const char *pmu, const char *event)
{
	if (strcmp(f->pmu, pmu))
		return false;
	size_t n = strlen(f->event);
	if (f->event[n - 1] == ':')
		return !strncmp(event, f->event, n);
	return !strcmp(event, f->event);
}

/* "spr::INST_RETIRED:ANY:e=0:i=0:u=1" → "spr::INST_RETIRED:ANY" (stops at the first a=b). */
static void canonical_of(const char *fstr, char *out, size_t len)
{
	const char *sep = strstr(fstr, "::");
	const char *p = sep ? sep + 2 : fstr;
	size_t used = (size_t)(p - fstr);
	if (used >= len)
		used = 0, p = fstr;
	memcpy(out, fstr, used);
	out[used] = '\0';
	bool first = true;
	while (*p) {
		const char *end = strchr(p, ':');
		size_t tlen = end ? (size_t)(end - p) : strlen(p);
		if (memchr(p, '=', tlen) || used + tlen + 2 >= len)
			break;
		if (!first)
			out[used++] = ':';
		memcpy(out + used, p, tlen);
		used += tlen;
		out[used] = '\0';
		first = false;
		if (!end)
			break;
		p = end + 1;
	}
}

static void apply_fixes(struct pb_pfm_encoding *out)
{
	const char *sep = strstr(out->canonical, "::");
	if (!sep)
		return;
	char pmu[64];
	size_t plen = (size_t)(sep - out->canonical);
	if (plen >= sizeof pmu)
		return;
	memcpy(pmu, out->canonical, plen);
	pmu[plen] = '\0';
	const char *event = sep + 2;
	for (size_t i = 0; i < PB_ARRAY_SIZE(fixes); i++) {
		const struct pfm_fix *f = &fixes[i];
		if (!fix_matches(f, pmu, event))
			continue;
		if (f->wrong && (out->config & 0xffff) == f->wrong) {
			out->config = (out->config & ~UINT64_C(0xffff)) | f->right;
			snprintf(out->correction, sizeof out->correction, "config 0x%llx -> 0x%llx: %s",
				 (unsigned long long)f->wrong, (unsigned long long)f->right, f->source);
		}
		if (f->precise && !out->precise_capable) {
			out->precise_capable = true;
			snprintf(out->correction, sizeof out->correction, "precise allowed: %s",
				 f->source);
		}
	}
}

int pb_pfm_encode(const char *event, struct pb_pfm_encoding *out, struct pb_error *err)
{
	memset(out, 0, sizeof *out);
	if (ensure_init(err))
		return -1;
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof arg);
	char *fstr = NULL;
	arg.attr = &attr;
	arg.fstr = &fstr;
	arg.size = sizeof arg;
	int rc = pfm_get_os_event_encoding(event, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (rc != PFM_SUCCESS) {
		free(fstr);
		char close[320];
		const char *sep = strstr(event, "::");
		char pmu[64] = "";
		if (sep && (size_t)(sep - event) < sizeof pmu) {
			memcpy(pmu, event, (size_t)(sep - event));
			pmu[sep - event] = '\0';
		}
		if (pmu[0] && !pb_pfm_pmu_supported(pmu))
			return pb_fail(err, PB_EXIT_USAGE, 0,
				       "this libpfm4 has no PMU table named '%s' (event '%s')",
				       pmu, event);
		unsigned n = pb_pfm_suggest(pmu[0] ? pmu : NULL, event, close, sizeof close, 5);
		return pb_fail(err, PB_EXIT_USAGE, 0, "libpfm4 cannot encode '%s': %s%s%s", event,
			       pfm_strerror(rc), n ? "; close names: " : "", n ? close : "");
	}
	out->type = attr.type;
	out->config = attr.config;
	out->config1 = attr.config1;
	if (fstr) {
		canonical_of(fstr, out->canonical, sizeof out->canonical);
		out->precise_capable = strstr(fstr, ":precise=") != NULL;
		free(fstr);
	}
	apply_fixes(out);
	return 0;
}

/* ---- suggestions ---- */

static unsigned common_prefix(const char *a, const char *b)
{
	unsigned n = 0;
	while (a[n] && b[n] && toupper((unsigned char)a[n]) == toupper((unsigned char)b[n]))
		n++;
	return n;
}

struct candidate {
	char name[160];
	int score;
};

struct best_list {
	struct candidate c[8];
	unsigned n, max;
};

static void consider(struct best_list *best, const char *wanted, const char *name)
{
	int score = (int)pb_edit_distance(wanted, name, true) * 2 - (int)common_prefix(wanted, name);
	int limit = (int)strlen(wanted) + 2; /* beyond this a name is noise, not a suggestion */
	if (score > limit)
		return;
	for (unsigned i = 0; i < best->n; i++)
		if (!strcmp(best->c[i].name, name))
			return;
	unsigned pos = best->n;
	while (pos > 0 && best->c[pos - 1].score > score)
		pos--;
	if (pos >= best->max)
		return;
	unsigned last = best->n < best->max ? best->n : best->max - 1;
	for (unsigned i = last; i > pos; i--)
		best->c[i] = best->c[i - 1];
	snprintf(best->c[pos].name, sizeof best->c[pos].name, "%s", name);
	best->c[pos].score = score;
	if (best->n < best->max)
		best->n++;
}

static void consider_pmu(struct best_list *best, const pfm_pmu_info_t *pinfo, const char *wanted,
			 bool with_umask)
{
	for (int idx = pinfo->first_event; idx != -1; idx = pfm_get_event_next(idx)) {
		pfm_event_info_t einfo;
		memset(&einfo, 0, sizeof einfo);
		einfo.size = sizeof einfo;
		if (pfm_get_event_info(idx, PFM_OS_NONE, &einfo) != PFM_SUCCESS || !einfo.name)
			continue;
		if (!with_umask) {
			consider(best, wanted, einfo.name);
			continue;
		}
		for (int a = 0; a < einfo.nattrs; a++) {
			pfm_event_attr_info_t ainfo;
			memset(&ainfo, 0, sizeof ainfo);
			ainfo.size = sizeof ainfo;
			if (pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &ainfo) != PFM_SUCCESS ||
			    ainfo.type != PFM_ATTR_UMASK || !ainfo.name)
				continue;
			char full[160];
			snprintf(full, sizeof full, "%s:%s", einfo.name, ainfo.name);
			consider(best, wanted, full);
		}
	}
}

unsigned pb_pfm_suggest(const char *pmu, const char *event, char *out, size_t len, unsigned max)
{
	if (len)
		out[0] = '\0';
	if (ensure_init(NULL) || !event || !len)
		return 0;
	const char *sep = strstr(event, "::");
	const char *name = sep ? sep + 2 : event;
	/* EVENT or EVENT:UMASK, without modifiers (anything holding '='). */
	char wanted[128];
	size_t used = 0;
	unsigned parts = 0;
	for (const char *p = name; *p && parts < 2;) {
		const char *end = strchr(p, ':');
		size_t tlen = end ? (size_t)(end - p) : strlen(p);
		if (memchr(p, '=', tlen) || used + tlen + 2 >= sizeof wanted)
			break;
		if (used)
			wanted[used++] = ':';
		memcpy(wanted + used, p, tlen);
		used += tlen;
		parts++;
		p = end ? end + 1 : p + tlen;
	}
	wanted[used] = '\0';
	if (!used)
		return 0;
	struct best_list best = {.n = 0, .max = max > 8 ? 8 : max};
	if (best.max == 0)
		return 0;
	bool with_umask = parts > 1;
	pfm_pmu_info_t pinfo;
	if (pmu) {
		if (find_pmu(pmu, &pinfo))
			consider_pmu(&best, &pinfo, wanted, with_umask);
	} else {
		pfm_pmu_t p;
		pfm_for_all_pmus(p) {
			memset(&pinfo, 0, sizeof pinfo);
			pinfo.size = sizeof pinfo;
			if (pfm_get_pmu_info(p, &pinfo) == PFM_SUCCESS && pinfo.is_present)
				consider_pmu(&best, &pinfo, wanted, with_umask);
		}
	}
	size_t w = 0;
	for (unsigned i = 0; i < best.n; i++) {
		int k = snprintf(out + w, len - w, "%s%s", i ? ", " : "", best.c[i].name);
		if (k < 0 || (size_t)k >= len - w) {
			out[w] = '\0';
			return i;
		}
		w += (size_t)k;
	}
	return best.n;
}

/* Whether the event of PMU index range [first..] named event has every umask of the list. */
static bool event_has_umasks(int idx, int nattrs, const char *umasks)
{
	for (const char *u = umasks; *u;) {
		size_t len = strcspn(u, ":");
		bool found = false;
		for (int a = 0; a < nattrs && !found; a++) {
			pfm_event_attr_info_t ainfo;
			memset(&ainfo, 0, sizeof ainfo);
			ainfo.size = sizeof ainfo;
			found = pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &ainfo) == PFM_SUCCESS &&
				ainfo.type == PFM_ATTR_UMASK && ainfo.name &&
				strlen(ainfo.name) == len && !strncasecmp(ainfo.name, u, len);
		}
		if (!found)
			return false;
		u += len + (u[len] == ':');
	}
	return true;
}

const char *pb_pfm_event_known(const char *event, const char *umasks)
{
	if (ensure_init(NULL))
		return NULL;
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pinfo;
		memset(&pinfo, 0, sizeof pinfo);
		pinfo.size = sizeof pinfo;
		if (pfm_get_pmu_info(p, &pinfo) != PFM_SUCCESS || !pinfo.name)
			continue;
		for (int idx = pinfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
			pfm_event_info_t einfo;
			memset(&einfo, 0, sizeof einfo);
			einfo.size = sizeof einfo;
			if (pfm_get_event_info(idx, PFM_OS_NONE, &einfo) == PFM_SUCCESS && einfo.name &&
			    !strcasecmp(einfo.name, event) &&
			    event_has_umasks(idx, einfo.nattrs, umasks))
				return pinfo.name;
		}
	}
	return NULL;
}
