/* Profile accuracy against callgrind: the metric, the basic-block builder (exact counts plus
 * capstone), and the pipeline that maps sample IPs to objects' link-time addresses — the
 * addresses callgrind reports — and compares at three levels. ELF objects and mappings are
 * prof_object.c's, the histogram and the symbolizer symbolizer.c's. */
#include "analysis/profile.h"
#include "analysis/attribution.h"
#include "analysis/demangle.h"
#include "analysis/stats.h"
#include "util/kit.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the metric ---- */

void pb_share_error(const double *exact, const double *sampled, size_t n,
		    struct pb_share_error *out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < n; i++) {
		out->exact_total += exact[i];
		out->sampled_total += sampled[i];
	}
	for (size_t i = 0; i < n; i++) {
		double e = out->exact_total > 0 ? exact[i] / out->exact_total : 0;
		double s = out->sampled_total > 0 ? sampled[i] / out->sampled_total : 0;
		double d = fabs(s - e);
		out->error += d;
		if (d > out->max_abs) {
			out->max_abs = d;
			out->argmax = i;
		}
	}
}

int pb_share_ci95(const size_t *unit, size_t n, size_t nunits, double *ci95)
{
	int batches = n >= (size_t)PB_SHARE_BATCHES * PB_SHARE_BATCH_MIN ? PB_SHARE_BATCHES : 0;
	size_t nb = batches ? (size_t)batches : 1;
	double *counts = calloc(nunits * nb + 1, sizeof *counts);
	double *totals = calloc(nb, sizeof *totals), *shares = calloc(nb, sizeof *shares);
	double *whole = calloc(nunits + 1, sizeof *whole);
	int rc = -1;
	if (!counts || !totals || !shares || !whole)
		goto done;
	for (size_t i = 0; i < n; i++) {
		size_t b = i * nb / n;   /* batch sizes differ by at most one sample */
		totals[b] += 1;
		if (unit[i] < nunits) {
			counts[unit[i] * nb + b] += 1;
			whole[unit[i]] += 1;
		}
	}
	for (size_t u = 0; u < nunits; u++) {
		double lo = 0, hi = 0, p = n ? whole[u] / (double)n : 0;
		if (n)
			pb_wilson95(whole[u], (double)n, &lo, &hi);
		ci95[u] = fmax(hi - p, p - lo);
		if (!batches)
			continue;
		for (size_t b = 0; b < nb; b++)
			shares[b] = counts[u * nb + b] / totals[b];
		struct pb_summary batch_shares;
		pb_summarize(shares, nb, &batch_shares);
		ci95[u] = fmax(ci95[u], batch_shares.ci95);
	}
	rc = batches;
done:
	free(counts);
	free(totals);
	free(shares);
	free(whole);
	return rc;
}

/* ---- basic blocks ---- */

struct decoded {
	uint8_t len;                /* 0: undecodable */
	bool ends_block;
	bool has_target;
	uint64_t target;
};

/* Whether an instruction ends a basic block, and its direct target; per instruction set. */
#if defined(__x86_64__)
static void classify(csh cs, const cs_insn *insn, struct decoded *d)
{
	bool jump = cs_insn_group(cs, insn, CS_GRP_JUMP);
	bool call = cs_insn_group(cs, insn, CS_GRP_CALL);
	d->ends_block = jump || call || cs_insn_group(cs, insn, CS_GRP_RET) ||
			cs_insn_group(cs, insn, CS_GRP_INT) || cs_insn_group(cs, insn, CS_GRP_IRET) ||
			insn->id == X86_INS_SYSCALL || insn->id == X86_INS_HLT ||
			insn->id == X86_INS_UD2;
	if ((jump || call) && insn->detail && insn->detail->x86.op_count == 1 &&
	    insn->detail->x86.operands[0].type == X86_OP_IMM) {
		d->has_target = true;
		d->target = (uint64_t)insn->detail->x86.operands[0].imm;
	}
}
#elif defined(__aarch64__)
/* capstone 4 does not put every A64 branch in CS_GRP_JUMP/CALL: the ids decide. A direct
 * branch's target is its last operand (b/bl/b.cond: the only one; cbz: after the register;
 * tbz: after the register and the bit). */
static void classify(csh cs, const cs_insn *insn, struct decoded *d)
{
	bool direct = false;
	switch (insn->id) {
	case ARM64_INS_B: case ARM64_INS_BL: case ARM64_INS_CBZ: case ARM64_INS_CBNZ:
	case ARM64_INS_TBZ: case ARM64_INS_TBNZ:
		direct = true;
		/* fall through */
	case ARM64_INS_BR: case ARM64_INS_BLR: case ARM64_INS_RET: case ARM64_INS_ERET:
	case ARM64_INS_SVC: case ARM64_INS_BRK: case ARM64_INS_HLT: case ARM64_INS_HVC:
	case ARM64_INS_SMC:
		d->ends_block = true;
		break;
	default:
		d->ends_block = cs_insn_group(cs, insn, CS_GRP_JUMP) ||
				cs_insn_group(cs, insn, CS_GRP_CALL) ||
				cs_insn_group(cs, insn, CS_GRP_RET);
	}
	if (direct && insn->detail && insn->detail->arm64.op_count > 0) {
		const cs_arm64_op *op = &insn->detail->arm64.operands[insn->detail->arm64.op_count - 1];
		if (op->type == ARM64_OP_IMM) {
			d->has_target = true;
			d->target = (uint64_t)op->imm;
		}
	}
}
#elif defined(__riscv)
/* Only capstone's generic groups (capstone 4 has no RISC-V: pb_capstone_open refuses and the
 * profile says so); no direct target. */
static void classify(csh cs, const cs_insn *insn, struct decoded *d)
{
	d->ends_block = cs_insn_group(cs, insn, CS_GRP_JUMP) || cs_insn_group(cs, insn, CS_GRP_CALL) ||
			cs_insn_group(cs, insn, CS_GRP_RET) || cs_insn_group(cs, insn, CS_GRP_INT);
}
#else
#error "profile: no basic-block rules for this architecture"
#endif

static void decode_one(csh cs, cs_insn *insn, const uint8_t *bytes, size_t n, uint64_t addr,
		       struct decoded *d)
{
	memset(d, 0, sizeof *d);
	const uint8_t *code = bytes;
	size_t size = n;
	uint64_t at = addr;
	if (!n || !cs_disasm_iter(cs, &code, &size, &at, insn))
		return;
	d->len = (uint8_t)insn->size;
	classify(cs, insn, d);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static bool in_sorted(const uint64_t *v, size_t n, uint64_t x)
{
	return n && bsearch(&x, v, n, sizeof *v, cmp_u64);
}

int pb_bb_build(const struct pb_cg_profile *exact, pb_code_read_fn read, void *ctx,
		struct pb_bb_table *out, struct pb_error *err)
{
	memset(out, 0, sizeof *out);
	if (!exact->n)
		return 0;
	csh cs;
	if (pb_capstone_open(&cs, err))
		return -1;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn *insn = cs_malloc(cs);
	struct decoded *dec = calloc(exact->n, sizeof *dec);
	uint64_t *targets = calloc(exact->n, sizeof *targets);
	out->bb = calloc(exact->n, sizeof *out->bb);
	if (!insn || !dec || !targets || !out->bb) {
		if (insn)
			cs_free(insn, 1);
		cs_close(&cs);
		free(dec);
		free(targets);
		pb_bb_table_free(out);
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
	}
	size_t ntargets = 0;
	for (size_t i = 0; i < exact->n; i++) {
		uint8_t bytes[16];
		size_t got = read(ctx, exact->instr[i].addr, bytes, sizeof bytes);
		decode_one(cs, insn, bytes, got, exact->instr[i].addr, &dec[i]);
		if (!dec[i].len)
			out->undecodable++;
		if (dec[i].has_target)
			targets[ntargets++] = dec[i].target;
	}
	qsort(targets, ntargets, sizeof *targets, cmp_u64);
	for (size_t i = 0; i < exact->n; i++) {
		const struct pb_cg_instr *in = &exact->instr[i];
		bool leader = i == 0;
		if (!leader) {
			const struct pb_cg_instr *prev = &exact->instr[i - 1];
			const struct decoded *pd = &dec[i - 1];
			leader = !pd->len || pd->ends_block || prev->addr + pd->len != in->addr ||
				 prev->ir != in->ir || in_sorted(targets, ntargets, in->addr);
		}
		if (leader) {
			struct pb_bb *b = &out->bb[out->n++];
			b->begin = in->addr;
			b->count = in->ir;
		}
		struct pb_bb *b = &out->bb[out->n - 1];
		b->end = in->addr + (dec[i].len ? dec[i].len : 1);
		b->ninsns++;
		b->instructions += in->ir;
	}
	cs_free(insn, 1);
	cs_close(&cs);
	free(dec);
	free(targets);
	return 0;
}

struct buffer_code {
	const uint8_t *code;
	size_t len;
	uint64_t base;
};

static size_t buffer_read(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	const struct buffer_code *b = ctx;
	if (addr < b->base || addr - b->base >= b->len)
		return 0;
	size_t off = (size_t)(addr - b->base), n = b->len - off < len ? b->len - off : len;
	memcpy(buf, b->code + off, n);
	return n;
}

int pb_bb_build_buffer(const struct pb_cg_profile *exact, const uint8_t *code, size_t len,
		       uint64_t base, struct pb_bb_table *out, struct pb_error *err)
{
	struct buffer_code b = {code, len, base};
	return pb_bb_build(exact, buffer_read, &b, out, err);
}

void pb_bb_table_free(struct pb_bb_table *t)
{
	free(t->bb);
	memset(t, 0, sizeof *t);
}

long pb_bb_find(const struct pb_bb_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->bb[mid].end <= addr)
			lo = mid + 1;
		else if (t->bb[mid].begin > addr)
			hi = mid;
		else
			return (long)mid;
	}
	return -1;
}

/* ---- the pipeline ---- */

struct obj_state {
	struct pb_prof_object *obj;
	struct pb_cg_profile exact;
	struct pb_bb_table blocks;
	uint64_t *samples;          /* sorted link-time addresses of its samples */
	size_t nsamples, cap;
	uint64_t ir;
};

struct func_key {
	size_t obj;
	uint64_t start;             /* symbol start; for no symbol: 0, one unit per object */
	const char *name;
	uint64_t exact_ir, samples;
	uint64_t hot_addr, hot_ir;
	double share_ci95;
};

static int cmp_key(const void *a, const void *b)
{
	const struct func_key *x = a, *y = b;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_func_share(const void *a, const void *b)
{
	const struct pb_profile_func *x = a, *y = b;
	double kx = x->exact_share > x->sampled_share ? x->exact_share : x->sampled_share;
	double ky = y->exact_share > y->sampled_share ? y->exact_share : y->sampled_share;
	return kx < ky ? 1 : kx > ky ? -1 : strcmp(x->name, y->name);
}

static int push_sample(struct obj_state *o, uint64_t addr)
{
	if (pb_grow(&o->samples, &o->cap, o->nsamples, sizeof *o->samples, 256))
		return -1;
	o->samples[o->nsamples++] = addr;
	return 0;
}

/* Functions are keyed by (object, symbol start). */
struct func_table {
	struct func_key *k;
	size_t n, cap;
	struct pb_hashmap index;    /* (obj, start) -> index into k */
};

static long func_index(struct func_table *t, struct obj_state *objs, size_t obj, uint64_t addr)
{
	uint64_t start = 0;
	const char *name = objs[obj].obj ? pb_prof_object_symbol(objs[obj].obj, addr, &start)
					 : NULL;
	if (!name)
		start = 0;
	if (pb_grow(&t->k, &t->cap, t->n, sizeof *t->k, 256))
		return -1;
	bool added;
	uint64_t *at = pb_hashmap_upsert(&t->index, obj, start, &added);
	if (!at)
		return -1;
	if (added) {
		t->k[t->n] = (struct func_key){.obj = obj, .start = start, .name = name};
		*at = t->n++;
	}
	return (long)*at;
}

/* Instruction level: the executed and sampled addresses merged, one unit each, and one for
 * the samples nowhere. */
static void insn_level(struct obj_state *objs, size_t nobjs, double *ve, double *vs,
		       double nowhere, struct pb_profile_report *out)
{
	size_t u = 0;
	for (size_t o = 0; o < nobjs; o++) {
		struct obj_state *os = &objs[o];
		size_t i = 0, j = 0;
		while (i < os->exact.n || j < os->nsamples) {
			uint64_t a = i < os->exact.n ? os->exact.instr[i].addr : UINT64_MAX;
			uint64_t b = j < os->nsamples ? os->samples[j] : UINT64_MAX;
			uint64_t at = a < b ? a : b;
			ve[u] = 0;
			vs[u] = 0;
			if (a == at)
				ve[u] = (double)os->exact.instr[i++].ir;
			while (j < os->nsamples && os->samples[j] == at) {
				vs[u] += 1;
				j++;
			}
			if (a != at)
				out->unexecuted_samples += (uint64_t)vs[u];
			u++;
		}
	}
	ve[u] = 0;
	vs[u++] = nowhere;
	pb_share_error(ve, vs, u, &out->insn);
}

/* Block level: every block, per object one "outside any block" unit, and the samples nowhere. */
static void block_level(struct obj_state *objs, size_t nobjs, double *ve, double *vs,
			double nowhere, struct pb_profile_report *out)
{
	size_t u = 0;
	for (size_t o = 0; o < nobjs; o++) {
		struct obj_state *os = &objs[o];
		size_t base = u;
		for (size_t b = 0; b < os->blocks.n; b++) {
			ve[u] = (double)os->blocks.bb[b].instructions;
			vs[u++] = 0;
		}
		size_t outside = u;
		ve[u] = 0;
		vs[u++] = 0;
		for (size_t j = 0; j < os->nsamples; j++) {
			long b = pb_bb_find(&os->blocks, os->samples[j]);
			vs[b < 0 ? outside : base + (size_t)b] += 1;
		}
	}
	ve[u] = 0;
	vs[u++] = nowhere;
	pb_share_error(ve, vs, u, &out->block);
}

struct timed_sample {
	size_t obj;                 /* SIZE_MAX: outside any object */
	uint64_t addr;
};

/* Each function's exact instructions and samples, and the address its source line is taken
 * from (its hottest instruction, or its lowest sampled one); unit[i] is the function of the
 * i-th sample taken (SIZE_MAX: outside any object), for the shares' intervals. */
static int func_table_fill(struct func_table *ft, struct obj_state *objs, size_t nobjs,
			   const struct timed_sample *timeline, size_t n, size_t *unit)
{
	for (size_t o = 0; o < nobjs; o++)
		for (size_t i = 0; i < objs[o].exact.n; i++) {
			const struct pb_cg_instr *ins = &objs[o].exact.instr[i];
			long f = func_index(ft, objs, o, ins->addr);
			if (f < 0)
				return -1;
			ft->k[f].exact_ir += ins->ir;
			if (ins->ir > ft->k[f].hot_ir) {
				ft->k[f].hot_ir = ins->ir;
				ft->k[f].hot_addr = ins->addr;
			}
		}
	for (size_t i = 0; i < n; i++) {
		unit[i] = SIZE_MAX;
		if (timeline[i].obj == SIZE_MAX)
			continue;
		uint64_t addr = timeline[i].addr;
		long f = func_index(ft, objs, timeline[i].obj, addr);
		if (f < 0)
			return -1;
		struct func_key *k = &ft->k[f];
		k->samples++;
		if (!k->exact_ir && (!k->hot_addr || addr < k->hot_addr))
			k->hot_addr = addr;
		unit[i] = (size_t)f;
	}
	return 0;
}

/* Each function's sampled share's interval. Returns the batches used (pb_share_ci95), -1 out of
 * memory. */
static int func_share_intervals(struct func_table *ft, const size_t *unit, size_t n)
{
	double *ci95 = calloc(ft->n ? ft->n : 1, sizeof *ci95);
	int batches = ci95 ? pb_share_ci95(unit, n, ft->n, ci95) : -1;
	for (size_t f = 0; batches >= 0 && f < ft->n; f++)
		ft->k[f].share_ci95 = ci95[f];
	free(ci95);
	return batches;
}

/* Function level: the error over functions, and every function with its shares. */
static int func_level(struct func_table *ft, struct obj_state *objs, double nowhere,
		      struct pb_profile_report *out)
{
	if (ft->n)
		qsort(ft->k, ft->n, sizeof *ft->k, cmp_key);
	double *fe = calloc(ft->n + 1, sizeof *fe), *fs = calloc(ft->n + 1, sizeof *fs);
	out->funcs = calloc(ft->n + 1, sizeof *out->funcs);
	if (!fe || !fs || !out->funcs) {
		free(fe);
		free(fs);
		return -1;
	}
	for (size_t f = 0; f < ft->n; f++) {
		fe[f] = (double)ft->k[f].exact_ir;
		fs[f] = (double)ft->k[f].samples;
	}
	fs[ft->n] = nowhere;
	pb_share_error(fe, fs, ft->n + 1, &out->func);
	free(fe);
	free(fs);
	double total_s = (double)out->samples;
	for (size_t f = 0; f < ft->n; f++) {
		struct pb_profile_func *pf = &out->funcs[out->nfuncs++];
		const struct func_key *k = &ft->k[f];
		const char *obj_path = pb_prof_object_path(objs[k->obj].obj);
		snprintf(pf->object, sizeof pf->object, "%.95s", pb_path_base(obj_path));
		if (k->name) {
			pb_demangle_into(k->name, pf->name, sizeof pf->name);
			snprintf(pf->symbol, sizeof pf->symbol, "%s", k->name);
		} else
			snprintf(pf->name, sizeof pf->name, "[%.100s, no symbol]", pf->object);
		const char *file;
		int line;
		if (k->hot_addr && pb_prof_object_source(objs[k->obj].obj, k->hot_addr, &file, &line))
			snprintf(pf->source, sizeof pf->source, "%.140s:%d", pb_path_base(file), line);
		pf->exact_ir = k->exact_ir;
		pf->samples = k->samples;
		pf->exact_share = out->total_ir ? (double)k->exact_ir / (double)out->total_ir : 0;
		pf->sampled_share = total_s > 0 ? (double)k->samples / total_s : 0;
		pf->sampled_share_ci95 = k->share_ci95;
	}
	return 0;
}

int pb_profile_compute(const struct pb_profile_input *in, struct pb_profile_report *out,
		       struct pb_error *err)
{
	memset(out, 0, sizeof *out);
	/* Objects: one per distinct file path among the mappings, opened by the symbolizer;
	 * objs holds those that opened, state_of maps the symbolizer's objects onto them. */
	struct pb_symbolizer sy = {0};
	struct obj_state *objs = calloc(in->nmaps ? in->nmaps : 1, sizeof *objs);
	size_t *state_of = calloc(in->nmaps ? in->nmaps : 1, sizeof *state_of);
	size_t nobjs = 0;
	int rc = -1;
	double *ve = NULL, *vs = NULL;
	struct func_table ft = {0};
	struct timed_sample *timeline = NULL;
	size_t *unit = NULL;
	if (!objs || !state_of) {
		pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
		goto done;
	}
	for (size_t m = 0; m < in->nmaps; m++) {
		const struct pb_map *map = &in->maps[m];
		size_t known = sy.nobjects;
		long o;
		if (pb_symbolizer_add_map(&sy, UINT32_MAX, map->start, map->end - map->start,
					  map->pgoff, map->path, 0) ||
		    (o = pb_symbolizer_object(&sy, map->path)) < 0) {
			pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
			goto done;
		}
		if ((size_t)o < known)
			continue;
		state_of[o] = SIZE_MAX;     /* not an object: its samples count as unmapped */
		if (!sy.objects[o].object)
			continue;
		objs[nobjs].obj = sy.objects[o].object;
		if (pb_callgrind_parse_file(in->callgrind_file, map->path, &objs[nobjs].exact, err))
			goto done;
		state_of[o] = nobjs++;
	}
	/* Samples → (object, link-time address); later mappings win. The timeline keeps them in
	 * the order they were taken, for the shares' intervals. */
	timeline = calloc(in->nips ? in->nips : 1, sizeof *timeline);
	if (!timeline) {
		pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < in->nips; i++) {
		size_t o;
		uint64_t addr;
		timeline[i].obj = SIZE_MAX;
		if (!pb_symbolizer_resolve(&sy, 0, in->ips[i], &o, &addr)) {
			out->unmapped_samples++;
			continue;
		}
		timeline[i] = (struct timed_sample){.obj = state_of[o], .addr = addr};
		if (push_sample(&objs[state_of[o]], addr)) {
			pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
			goto done;
		}
	}
	out->kernel_samples = in->kernel_samples;
	/* Kernel samples stay out of the comparison: callgrind sees user code only. */
	out->samples = in->nips;
	size_t ninsn_units = 0, nblock_units = 0;
	for (size_t o = 0; o < nobjs; o++) {
		struct obj_state *os = &objs[o];
		if (os->nsamples)
			qsort(os->samples, os->nsamples, sizeof *os->samples, cmp_u64);
		for (size_t i = 0; i < os->exact.n; i++)
			os->ir += os->exact.instr[i].ir;
		out->total_ir += os->ir;
		if (pb_bb_build(&os->exact, pb_prof_object_read, os->obj, &os->blocks, err))
			goto done;
		out->undecodable += os->blocks.undecodable;
		ninsn_units += os->exact.n + os->nsamples;
		nblock_units += os->blocks.n + 1;
		out->ninsns += os->exact.n;
		out->nblocks += os->blocks.n;
	}
	/* Units: every executed instruction or block, every sampled address callgrind did not
	 * execute, per object one "outside any block" unit, and one for samples nowhere. */
	size_t cap = ninsn_units + nblock_units + 1;
	ve = calloc(cap, sizeof *ve);
	vs = calloc(cap, sizeof *vs);
	if (!ve || !vs) {
		pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
		goto done;
	}
	double nowhere = (double)out->unmapped_samples;

	insn_level(objs, nobjs, ve, vs, nowhere, out);
	block_level(objs, nobjs, ve, vs, nowhere, out);
	unit = calloc(in->nips ? in->nips : 1, sizeof *unit);
	if (!unit || func_table_fill(&ft, objs, nobjs, timeline, in->nips, unit) ||
	    (out->share_batches = func_share_intervals(&ft, unit, in->nips)) < 0 ||
	    func_level(&ft, objs, nowhere, out))
		goto oom;
	out->nfuncs_total = out->nfuncs;
	qsort(out->funcs, out->nfuncs, sizeof *out->funcs, cmp_func_share);
	out->objects = calloc(nobjs ? nobjs : 1, sizeof *out->objects);
	if (!out->objects)
		goto oom;
	for (size_t o = 0; o < nobjs; o++) {
		snprintf(out->objects[o].path, sizeof out->objects[o].path, "%s",
			 pb_prof_object_path(objs[o].obj));
		out->objects[o].exact_ir = objs[o].ir;
		out->objects[o].samples = objs[o].nsamples;
	}
	out->nobjects = nobjs;
	rc = 0;
	goto done;
oom:
	pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
done:
	free(ft.k);
	pb_hashmap_free(&ft.index);
	free(timeline);
	free(unit);
	free(ve);
	free(vs);
	for (size_t o = 0; objs && o < nobjs; o++) {
		pb_cg_profile_free(&objs[o].exact);
		pb_bb_table_free(&objs[o].blocks);
		free(objs[o].samples);
	}
	free(objs);
	free(state_of);
	pb_symbolizer_free(&sy);   /* closes the objects */
	if (rc)
		pb_profile_report_free(out);
	return rc;
}

void pb_profile_report_free(struct pb_profile_report *r)
{
	free(r->funcs);
	free(r->objects);
	r->funcs = NULL;
	r->objects = NULL;
	r->nfuncs = r->nobjects = 0;
}
