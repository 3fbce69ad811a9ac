/* The workload table, parameter parsing, and the helpers workloads declare their truth with. */
#include "util/suggest.h"
#include "util/text.h"
#include "workloads/workload.h"

#include "facilities/machine.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

static const struct pb_workload *const workloads[] = {
	&pb_workload_accuracy, &pb_workload_bias,      &pb_workload_mix,
	&pb_workload_mode,     &pb_workload_shadow,    &pb_workload_latency,
	&pb_workload_callchain, &pb_workload_busy,     NULL,
};

const struct pb_workload *const *pb_workload_list(void)
{
	return workloads;
}

const struct pb_workload *pb_workload_find(const char *name)
{
	for (unsigned i = 0; workloads[i]; i++)
		if (!strcmp(workloads[i]->name, name))
			return workloads[i];
	return NULL;
}

static const char *const kind_names[PB_EV_KINDS] = {
	"load", "store", "branch", "taken", "call", "return", "locked", "syscall", "l1-miss",
};

const char *pb_event_kind_name(unsigned bit_index)
{
	return bit_index < PB_EV_KINDS ? kind_names[bit_index] : "?";
}

const char *pb_event_kinds_text(unsigned kinds, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < PB_EV_KINDS && used < len; i++)
		if (kinds & (1u << i))
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "+" : "",
						 kind_names[i]);
	if (!used)
		snprintf(buf, len, "-");
	return buf;
}

static int param_index(const struct pb_workload *w, const char *name)
{
	for (unsigned i = 0; i < w->nparams; i++)
		if (!strcmp(w->params[i].name, name))
			return (int)i;
	return -1;
}

static void list_keys(const struct pb_workload *w, char *buf, size_t len)
{
	buf[0] = '\0';
	for (unsigned i = 0; i < w->nparams; i++)
		pb_list_add(buf, len, w->params[i].name);
	if (!w->nparams)
		snprintf(buf, len, "none");
}

static void list_choices(const struct pb_param_def *d, char *buf, size_t len)
{
	buf[0] = '\0';
	for (unsigned i = 0; d->choices[i]; i++)
		pb_list_add(buf, len, d->choices[i]);
}

static int parse_value(const struct pb_workload *w, const struct pb_param_def *d,
		       const char *value, int64_t *out, struct pb_error *err)
{
	char valid[256];
	if (d->choices) {
		for (int64_t i = 0; d->choices[i]; i++)
			if (!strcmp(d->choices[i], value)) {
				*out = i;
				return 0;
			}
		list_choices(d, valid, sizeof valid);
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s: %s='%s' is not one of: %s", w->name,
			       d->name, value, valid);
	}
	char *end;
	errno = 0;
	long long v = strtoll(value, &end, 10);
	if (!*value || *end || errno)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s: %s='%s' is not an integer", w->name,
			       d->name, value);
	if (v < d->min || v > d->max)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s: %s=%lld is outside %" PRId64 "..%" PRId64,
			       w->name, d->name, v, d->min, d->max);
	*out = v;
	return 0;
}

int pb_workload_parse(const char *text, struct pb_workload_choice *out, struct pb_error *err)
{
	char buf[256], names[256];
	memset(out, 0, sizeof *out);
	if (strlen(text) >= sizeof buf)
		return pb_fail(err, PB_EXIT_USAGE, 0, "workload '%.40s...' is too long", text);
	strcpy(buf, text);
	char *args = strchr(buf, ':');
	if (args)
		*args++ = '\0';
	const struct pb_workload *w = pb_workload_find(buf);
	if (!w) {
		struct pb_suggest near;
		pb_suggest_init(&near, buf);
		for (unsigned i = 0; workloads[i]; i++)
			pb_suggest_consider(&near, workloads[i]->name);
		return pb_suggest_fail(err, &near, "", "workload", "`pesbench workloads`");
	}
	out->workload = w;
	for (unsigned i = 0; i < w->nparams; i++)
		out->params[i] = w->params[i].def;
	if (!args || !*args)
		return 0;
	for (char *save = NULL, *item = strtok_r(args, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		if (!eq)
			return pb_fail(err, PB_EXIT_USAGE, 0,
				       "%s: parameter '%s' has no value; write key=value", w->name,
				       item);
		*eq = '\0';
		int idx = param_index(w, item);
		if (idx < 0) {
			list_keys(w, names, sizeof names);
			return pb_fail(err, PB_EXIT_USAGE, 0,
				       "%s has no parameter '%s'; its parameters: %s", w->name, item,
				       names);
		}
		if (parse_value(w, &w->params[idx], eq + 1, &out->params[idx], err))
			return -1;
	}
	return 0;
}

const char *pb_workload_params_text(const struct pb_workload_choice *c, char *buf, size_t len)
{
	const struct pb_workload *w = c->workload;
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < w->nparams && used < len; i++) {
		const struct pb_param_def *d = &w->params[i];
		if (d->choices)
			used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", i ? "," : "",
						 d->name, d->choices[c->params[i]]);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%s=%" PRId64,
						 i ? "," : "", d->name, c->params[i]);
	}
	if (!w->nparams)
		snprintf(buf, len, "-");
	return buf;
}

int pb_workload_truth(const struct pb_workload_choice *c, uint64_t iterations,
		      struct pb_truth *out, struct pb_error *err)
{
	memset(out, 0, sizeof *out);
	if (!iterations)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s: iterations must be at least 1",
			       c->workload->name);
	return c->workload->truth(c->params, iterations, out, err);
}

uint64_t pb_truth_taken_total(const struct pb_truth *t, uint64_t iterations)
{
	return t->taken_branches * iterations - (t->taken_branches ? 1 : 0);
}

int pb_truth_default_label(const struct pb_truth *t)
{
	for (unsigned i = 0; i < t->nlabels; i++)
		if (t->labels[i].kinds && t->labels[i].per_iteration)
			return (int)i;
	return t->nlabels ? 0 : -1;
}

int pb_truth_label(const struct pb_truth *t, const char *name)
{
	for (unsigned i = 0; i < t->nlabels; i++)
		if (!strcmp(t->labels[i].name, name))
			return (int)i;
	return -1;
}

static void add_label(struct pb_truth *t, const char *name, const void *addr, unsigned kinds,
		      uint64_t per_iteration, uint64_t once)
{
	/* A table overflow is a programming error in a workload file, caught by its test. */
	if (t->nlabels >= PB_WL_MAX_LABELS) {
		fprintf(stderr, "pesbench: workload declares more than %d labels\n",
			PB_WL_MAX_LABELS);
		abort();
	}
	struct pb_label_truth *l = &t->labels[t->nlabels++];
	snprintf(l->name, sizeof l->name, "%s", name);
	l->addr = (uint64_t)(uintptr_t)addr;
	l->kinds = kinds;
	l->per_iteration = per_iteration;
	l->once = once;
}

void pb_truth_add_label(struct pb_truth *t, const char *name, const void *addr, unsigned kinds,
			uint64_t per_iteration)
{
	add_label(t, name, addr, kinds, per_iteration, 0);
}

void pb_truth_add_once(struct pb_truth *t, const char *name, const void *addr, unsigned kinds)
{
	add_label(t, name, addr, kinds, 0, 1);
}

void pb_truth_count_labels(struct pb_truth *t)
{
	uint64_t *field[PB_EV_KINDS] = {
		&t->loads, &t->stores, &t->branches, &t->taken_branches, &t->calls,
		&t->returns, &t->locked, &t->syscalls, &t->l1_misses,
	};
	for (unsigned k = 0; k < PB_EV_KINDS; k++)
		*field[k] = 0;
	for (unsigned i = 0; i < t->nlabels; i++)
		for (unsigned k = 0; k < PB_EV_KINDS; k++)
			if (t->labels[i].kinds & (1u << k))
				*field[k] += t->labels[i].per_iteration;
}

unsigned pb_workload_l1d_size(bool *assumed)
{
	const struct pb_machine *m = pb_machine_live();
	bool unknown = !m || !m->l1d_size;
	if (assumed)
		*assumed = unknown;
	return unknown ? 32 * 1024 : m->l1d_size;
}

void pb_truth_add_ret(struct pb_truth *t, const char *name, const void *addr)
{
	pb_truth_add_once(t, name, addr, PB_EV_RET_INSN);
}

void pb_truth_set_code(struct pb_truth *t, const void *begin, const void *end)
{
	t->code_begin = (uint64_t)(uintptr_t)begin;
	t->code_end = (uint64_t)(uintptr_t)end;
}

int pb_wl_buffer_setup(void *state, size_t bytes, const char *workload, struct pb_error *err)
{
	struct pb_wl_buffer *b = state;
	/* Whole cache lines, so no other data shares the buffer's lines. */
	size_t rounded = (bytes + 63) / 64 * 64;
	b->data = aligned_alloc(64, rounded);
	if (!b->data)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "%s: cannot allocate %zu bytes", workload,
			       rounded);
	memset(b->data, 0, rounded);
	b->bytes = rounded;
	return 0;
}

void pb_wl_buffer_teardown(void *state)
{
	struct pb_wl_buffer *b = state;
	free(b->data);
	b->data = NULL;
}

#if defined(__x86_64__)
void pb_wl_flush_line(const void *addr)
{
	_mm_clflush(addr);
}

void pb_wl_flush_wait(void)
{
	_mm_mfence();
}
#elif defined(__aarch64__)
void pb_wl_flush_line(const void *addr)
{
	__asm__ volatile("dc civac, %0" : : "r"(addr) : "memory");
}

void pb_wl_flush_wait(void)
{
	__asm__ volatile("dsb sy" : : : "memory");
}
#elif defined(__riscv)
/* RV64GC has no instruction that evicts a line (Zicbom's cbo.flush is an extension): the
 * workloads that need a miss by construction declare themselves absent here, and the one
 * that only starts colder with it (accuracy) says so in its assumptions. */
void pb_wl_flush_line(const void *addr)
{
	(void)addr;
}

void pb_wl_flush_wait(void)
{
	__asm__ volatile("fence rw, rw" : : : "memory");
}
#endif

void pb_wl_watch(struct pb_target *target, const void *addr, unsigned len)
{
	target->data_addr = (uint64_t)(uintptr_t)addr;
	target->data_len = len;
}
