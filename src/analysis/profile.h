/* Profile accuracy: how far a sampled profile of a program is from its exact profile
 * (callgrind's per-instruction counts), at instruction, basic-block and function level.
 *
 * The metric is Nowak et al.'s: the sum over units (instructions, blocks, functions) of
 * |sampled instructions executed − exact instructions executed|, normalised by the total
 * instructions executed. A sampled profile estimates a unit's instructions as its share of the
 * samples times the exact total, so the metric is Σ |s_u/S − e_u/E|: 0 for a perfect profile,
 * 2 (200 %) for one that shares nothing with the truth. Samples a unit of the exact profile
 * cannot hold (an object callgrind never saw, an address it never executed) form one more
 * unit whose exact share is zero, so they count as error rather than vanish. */
#ifndef PB_PROFILE_H
#define PB_PROFILE_H

#include "analysis/callgrind.h"
#include "analysis/kallsyms.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/kit.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- the metric ---- */

struct pb_share_error {
	double error;            /* Σ |s/S − e/E| over the units (a fraction: 0.05 = 5 %) */
	double max_abs;          /* the largest |s/S − e/E| */
	size_t argmax;           /* the unit where it occurs */
	double exact_total, sampled_total;
};
/* Over n units; a total of zero makes that side's shares zero. */
void pb_share_error(const double *exact, const double *sampled, size_t n,
		    struct pb_share_error *out);

/* 20 batches: Student t's 95 % quantile at 19 degrees of freedom (2.09) is within 7 % of the
 * normal one, while each batch stays a twentieth of the run, long beside a slow spell. At least
 * 10 samples a batch, as an accuracy needs (PB_MIN_EXPECTED_SAMPLES in experiments/point.h). */
#define PB_SHARE_BATCHES 20
#define PB_SHARE_BATCH_MIN 10
/* How far a unit's share of the samples may be from its share of the run's time: the 95 %
 * half-width of every unit's sampled share. Samples are not independent draws: a slow spell of
 * the machine or a sample's own cost in the sampled task's clock puts runs of neighbouring
 * samples in one unit, which a binomial interval ignores (±0.49 pp where a timer profile was
 * 1.71 pp off, at 30 % of 33121 samples in CI). So the samples, in the order they were taken,
 * are cut into PB_SHARE_BATCHES batches of equal size, a unit's share is taken in each, and
 * its interval is Student t's over those batch shares (batch means): it holds whatever
 * correlation is shorter than a batch, and counts a program's own phases as noise too
 * (docs/profile.md). The binomial (Wilson) interval is the floor, as batch shares of a rare
 * unit are far from normal. unit[i] is the i-th sample's unit (nunits or above: a sample in
 * none, counted in the total only). Returns the batches used: 0 when the samples are fewer
 * than PB_SHARE_BATCHES × PB_SHARE_BATCH_MIN (binomial alone), -1 out of memory. */
int pb_share_ci95(const size_t *unit, size_t n, size_t nunits, double *ci95);

/* ---- basic blocks ---- */

struct pb_bb {
	uint64_t begin, end;     /* [begin, end): addresses of its first and past its last insn */
	uint32_t ninsns;
	uint64_t count;          /* executions (exact) */
	uint64_t instructions;   /* instructions executed in it: count × ninsns (exact) */
};

struct pb_bb_table {
	struct pb_bb *bb;        /* sorted by begin, disjoint */
	size_t n;
	size_t undecodable;      /* executed addresses capstone could not decode (one-insn blocks) */
};

/* Reads up to len code bytes at a link-time address; returns how many it could. */
typedef size_t (*pb_code_read_fn)(void *ctx, uint64_t addr, uint8_t *buf, size_t len);

/* Builds the basic blocks of the executed code: a block starts at the first executed
 * instruction, after a control-flow instruction (jump, call, return, interrupt), at a direct
 * branch's target, after a gap (the next executed instruction does not follow the last), and
 * where the exact count changes (two instructions of one block execute equally often, so a
 * change proves an entry or exit callgrind saw even where the decoder cannot: an indirect
 * jump's target, a signal). Instructions are decoded with capstone from read(). */
int pb_bb_build(const struct pb_cg_profile *exact, pb_code_read_fn read, void *ctx,
		struct pb_bb_table *out, struct pb_error *err);
/* The same over a code buffer whose first byte is at base (tests). */
int pb_bb_build_buffer(const struct pb_cg_profile *exact, const uint8_t *code, size_t len,
		       uint64_t base, struct pb_bb_table *out, struct pb_error *err);
void pb_bb_table_free(struct pb_bb_table *t);
/* Index of the block holding addr, or -1. */
long pb_bb_find(const struct pb_bb_table *t, uint64_t addr);

/* ---- objects: ELF files with symbols and source lines (elfutils) ---- */

struct pb_prof_object;
/* Opens an ELF file; not an ELF (or unreadable) is PB_EXIT_BAD_FILE naming it. */
int pb_prof_object_open(const char *path, struct pb_prof_object **out, struct pb_error *err);
void pb_prof_object_close(struct pb_prof_object *o);
const char *pb_prof_object_path(const struct pb_prof_object *o);
/* A file offset inside a PT_LOAD segment → its link-time address. */
bool pb_prof_object_offset_to_addr(const struct pb_prof_object *o, uint64_t offset,
				   uint64_t *addr);
size_t pb_prof_object_read(void *object, uint64_t addr, uint8_t *buf, size_t len);
/* The function holding addr (NULL if no symbol covers it) and its start address. Of the
 * function's aliases (names at one address), the one perf would give (symbol_alias.h). */
const char *pb_prof_object_symbol(struct pb_prof_object *o, uint64_t addr, uint64_t *start);
struct pb_symbol_alias_table;
/* The object's function symbols by address (symbol_alias.h), built at the first call; NULL
 * when elfutils could not report the object. */
const struct pb_symbol_alias_table *pb_prof_object_aliases(struct pb_prof_object *o);
/* Source file and line of addr, false when the object has no line table for it. */
bool pb_prof_object_source(struct pb_prof_object *o, uint64_t addr, const char **file,
			   int *line);
/* Whether path names an ELF file (reads its magic). */
bool pb_is_elf_file(const char *path);
/* The last component of path (the whole of it when it has no '/'). */
const char *pb_path_base(const char *path);

/* ---- samples per address: a histogram ---- */

/* One address of one group (an event, an object) and its samples. */
struct pb_hist_row {
	uint64_t group, addr;
	uint64_t count;
	/* of the first sample there: the mapping that names addr (pb_symbolizer_name_at); time
	 * is 0 unless the caller sets it once the row is added */
	uint32_t pid;
	uint64_t time;
};

/* Memory grows with distinct (group, address) pairs only, never with samples. */
struct pb_histogram {
	struct pb_hashmap index;  /* (group, addr) -> row */
	struct pb_hist_row *rows;
	size_t n, cap;
	bool sorted;
};

/* Counts one sample; -1 when out of memory or after pb_histogram_sort. Inline: it runs once per
 * sample of a perf.data file. */
static inline int pb_histogram_add(struct pb_histogram *h, uint64_t group, uint64_t addr,
				   uint32_t pid)
{
	/* Room for a new row first, so that a key in the index always has its row. */
	if (h->sorted || (h->n == h->cap && pb_grow(&h->rows, &h->cap, h->n, sizeof *h->rows, 1024)))
		return -1;
	bool added;
	uint64_t *row = pb_hashmap_upsert(&h->index, group, addr, &added);
	if (!row)
		return -1;
	if (added) {
		h->rows[h->n] = (struct pb_hist_row){.group = group, .addr = addr, .pid = pid};
		*row = h->n++;
	}
	h->rows[*row].count++;
	return 0;
}
/* Counts one more sample of a (group, addr) already in h and returns true; false, counting
 * nothing, when it is not there yet (or after pb_histogram_sort): then pb_histogram_add. No
 * allocation on this path, so a caller that keeps pb_histogram_add out of line saves and
 * restores fewer registers per sample. */
static inline bool pb_histogram_count_known(struct pb_histogram *h, uint64_t group, uint64_t addr)
{
	if (h->sorted)
		return false;
	const uint64_t *row = pb_hashmap_find(&h->index, group, addr);
	if (!row)
		return false;
	h->rows[*row].count++;
	return true;
}
/* Orders the rows by group, then samples descending, then address; adding ends here. */
void pb_histogram_sort(struct pb_histogram *h);
void pb_histogram_free(struct pb_histogram *h);

/* ---- naming addresses: a process's mappings and their ELF objects ---- */

struct pb_sym_map {
	uint32_t pid;            /* UINT32_MAX: any process's (kernel mappings) */
	uint64_t start, len, pgoff;
	uint64_t time;           /* when it was mapped, on the recording's clock; 0 unknown */
	uint64_t seq;            /* its place among the announcements (a copy keeps its origin's) */
	char *path;
};

/* A process that began as a copy of another: it holds its parent's mappings of that moment. */
struct pb_sym_fork {
	uint32_t pid, ppid;
	uint64_t time, seq;      /* as a mapping's */
};

struct pb_sym_object {
	char *path;
	struct pb_prof_object *object;   /* NULL when it could not be opened */
};

/* The times one process's own mappings were made, each the start of an era of it; id tells
 * the eras apart (pb_symbolizer_era). */
struct pb_sym_era {
	uint64_t time;
	uint32_t id;
};
struct pb_sym_eras {
	struct pb_sym_era *at;   /* by time */
	size_t n, cap;
};

/* A sample without a time (no PERF_SAMPLE_TIME): every mapping was made at or before it, so
 * the latest one names it. */
#define PB_SYM_TIME_UNKNOWN UINT64_MAX
/* The era of a sample at PB_SYM_TIME_UNKNOWN; 0 is that of one before its process's first
 * mapping. */
#define PB_SYM_ERA_UNKNOWN UINT32_MAX

struct pb_machine;

/* Mappings as a recording announced them; objects opened once, on first use. */
struct pb_symbolizer {
	struct pb_sym_map *maps;     /* in time order once settled */
	size_t nmaps, maps_cap;
	struct pb_sym_fork *forks;   /* not yet applied */
	size_t nforks, forks_cap;
	uint64_t next_seq;
	struct pb_hashmap era_index; /* (pid, 0) -> its eras in eras */
	struct pb_sym_eras *eras;
	size_t neras, eras_cap;
	uint32_t next_era;           /* the last id given */
	/* pb_symbolizer_era's last answer, good until an era starts: a process's samples come
	 * in runs, mostly in one era, so most samples compare and go */
	struct {
		uint32_t pid, era;
		uint64_t from, until;    /* the era's times: [from, until) */
		bool valid;
	} last_era;
	struct pb_sym_object *objects;
	size_t nobjects, objects_cap;
	/* Kernel addresses, named from the running kernel's symbols when the recording's kernel
	 * is this one (pb_symbolizer_kernel_symbol): the caller says what the recording says of
	 * it. */
	struct pb_sym_kernel {
		const struct pb_machine *running;   /* whose /proc and /sys; NULL: this machine */
		char recorded_release[128];         /* the recording's, "" when it does not say */
		char recorded_build_id[41];
		int state;                          /* 0 not decided, 1 named, -1 not */
		struct pb_kallsyms syms;
		char note[480];                     /* how kernel addresses are named, and why */
	} kernel;
};

/* A mapping announced at time (0 when the recording gives none: it then counts as made when it
 * was announced). */
int pb_symbolizer_add_map(struct pb_symbolizer *sy, uint32_t pid, uint64_t start, uint64_t len,
			  uint64_t pgoff, const char *path, uint64_t time);
/* Process pid forked from ppid at time. It inherits ppid's mappings of that time when
 * pb_symbolizer_settle runs, not now: a recording stores each CPU's records apart, so a
 * mapping the parent made before the fork can come after the FORK record in the file. */
int pb_symbolizer_fork(struct pb_symbolizer *sy, uint32_t pid, uint32_t ppid, uint64_t time);
/* A recording's record: an MMAP or MMAP2 with a file name is a mapping at its sample_id time, a
 * FORK of a new process a fork; any other record is left alone. -1 when out of memory. */
struct pb_record;
int pb_symbolizer_take(struct pb_symbolizer *sy, const struct pb_record *rec);
/* After the last record, before naming: the forks inherit (in time order, so a grandchild
 * gets what its parent inherited) and the mappings are put in time order, so that the one
 * holding an address at a time is the last made by then, whatever order the file gave. -1 when
 * out of memory. Without times (0) the file's order stands in for them. */
int pb_symbolizer_settle(struct pb_symbolizer *sy);
/* The object a path names, opened on first use; its index in sy->objects, or -1 when out of
 * memory. The object is NULL when the file is no ELF file or is unreadable. */
long pb_symbolizer_object(struct pb_symbolizer *sy, const char *path);
/* Where ip of process pid lands at time: the latest mapping holding it made at or before time,
 * else the earliest one made after it (a sample that precedes every mapping of its address);
 * kernel mappings hold any pid's IPs. NULL when none holds ip. At PB_SYM_TIME_UNKNOWN: the
 * latest mapping holding ip. */
const struct pb_sym_map *pb_symbolizer_map_at(const struct pb_symbolizer *sy, uint32_t pid,
					      uint64_t ip, uint64_t time);
/* The object of a file mapping holding ip at time and ip's link-time address in it; false when
 * no mapping holds ip, its object cannot be opened or the offset is in no loaded segment. */
bool pb_symbolizer_resolve_at(struct pb_symbolizer *sy, uint32_t pid, uint64_t ip, uint64_t time,
			      size_t *object, uint64_t *addr);
/* Whether m is the kernel's mapping ("[kernel.kallsyms]" and the name of the symbol its pgoff
 * is the address of: perf's "[kernel.kallsyms]_text"). */
bool pb_sym_map_is_kernel(const struct pb_sym_map *m);
/* The kernel function holding ip of the kernel mapping m, its start in *start, from the running
 * kernel's symbols; NULL when none holds ip, or when they do not name m's addresses. Whether
 * they do is decided once: the recording's kernel must be this one (the same GNU build id, or
 * without one in the recording the same release) and loaded where it is now (its reference
 * symbol at m's pgoff: the same boot, as address-space randomisation moves it at every boot).
 * sy->kernel.note says which, and why. */
const char *pb_symbolizer_kernel_symbol(struct pb_symbolizer *sy, const struct pb_sym_map *m,
					uint64_t ip, uint64_t *start);
/* What a perf.data says of the kernel it was recorded on (HEADER_BUILD_ID, HEADER_OSRELEASE),
 * for pb_symbolizer_kernel_symbol. */
struct pb_perfdata;
void pb_symbolizer_recorded_on(struct pb_symbolizer *sy, const struct pb_perfdata *pd);
/* ip at time as "symbol+0xOFF (object)", "(object+0xOFF)" without a symbol, a kernel address
 * as "symbol+0xOFF ([kernel.kallsyms])" (pb_symbolizer_kernel_symbol) or "[kernel.kallsyms]",
 * another mapping's name when it is no file ("[vdso]"), or "" when no mapping holds ip. */
void pb_symbolizer_name_at(struct pb_symbolizer *sy, uint32_t pid, uint64_t ip, uint64_t time,
			   char *out, size_t len);
/* The three above at PB_SYM_TIME_UNKNOWN: by the latest mapping, for addresses of no moment
 * (a process's maps read once, samples without a time). */
const struct pb_sym_map *pb_symbolizer_map(const struct pb_symbolizer *sy, uint32_t pid,
					   uint64_t ip);
bool pb_symbolizer_resolve(struct pb_symbolizer *sy, uint32_t pid, uint64_t ip, size_t *object,
			   uint64_t *addr);
void pb_symbolizer_name(struct pb_symbolizer *sy, uint32_t pid, uint64_t ip, char *out,
			size_t len);
/* Which era of process pid's mappings taken so far time falls in: samples of pid in one era
 * see the same mappings, so an address of theirs has one name (an era ends where pid made a
 * mapping; its parent's later ones are not its). For keeping apart, while records stream by,
 * samples that different mappings may name; 0 before pid's first timed mapping,
 * PB_SYM_ERA_UNKNOWN at PB_SYM_TIME_UNKNOWN. A mapping taken after samples of its own time or
 * later (another CPU's ring) does not split the era they were put in. */
uint32_t pb_symbolizer_era(struct pb_symbolizer *sy, uint32_t pid, uint64_t time);
/* Whether pb_symbolizer_era's last answer holds for (pid, time), into *era: a test a hot loop
 * can make inline, calling pb_symbolizer_era only when it fails. */
static inline bool pb_symbolizer_era_cached(const struct pb_symbolizer *sy, uint32_t pid,
					    uint64_t time, uint32_t *era)
{
	if (!sy->last_era.valid || sy->last_era.pid != pid || time < sy->last_era.from ||
	    time >= sy->last_era.until)
		return false;
	*era = sy->last_era.era;
	return true;
}
void pb_symbolizer_free(struct pb_symbolizer *sy);

/* ---- a sampled profile against callgrind ---- */

/* A file mapping of the sampled process (from /proc/PID/maps or an MMAP2 record). */
struct pb_map {
	uint64_t start, end, pgoff;
	char path[PATH_MAX];
};
/* Adds the executable file mappings of /proc/PID/maps to *maps; returns how many, -1 if the
 * file could not be read. */
int pb_maps_read_proc(pid_t pid, struct pb_map **maps, size_t *n);
/* Appends one mapping (later ones win where they overlap). */
int pb_maps_add(struct pb_map **maps, size_t *n, uint64_t start, uint64_t len, uint64_t pgoff,
		const char *path);

struct pb_profile_input {
	const struct pb_map *maps;
	size_t nmaps;
	const uint64_t *ips;         /* user-mode sample IPs */
	size_t nips;
	uint64_t kernel_samples;     /* kernel-mode samples: left out of the comparison, since
				      * callgrind counts user code only */
	const char *callgrind_file;
};

struct pb_profile_func {
	char name[256];              /* the function as people read it (demangled: demangle.h),
				      * or "[object, no symbol]" without one */
	char symbol[160];            /* the symbol as linked, "" without one */
	char object[96];             /* file name of the object */
	char source[160];            /* "file.c:LINE" of its hottest instruction, "" unknown */
	double exact_share, sampled_share;   /* fractions */
	double sampled_share_ci95;   /* its 95 % half-width, a fraction (pb_share_ci95) */
	uint64_t exact_ir, samples;
};

struct pb_profile_object_summary {
	char path[PATH_MAX];
	uint64_t exact_ir, samples;
};

struct pb_profile_report {
	uint64_t total_ir;
	uint64_t samples;            /* user-mode samples: the ones compared */
	uint64_t unmapped_samples;   /* user IPs in no file mapping (vdso, JIT, anonymous) */
	uint64_t unexecuted_samples; /* IPs at addresses callgrind never executed */
	uint64_t kernel_samples;     /* left out (see pb_profile_input) */
	struct pb_share_error insn, block, func;
	size_t ninsns, nblocks, nfuncs_total;
	size_t undecodable;
	int share_batches;           /* batches of the shares' intervals, 0: binomial alone */
	struct pb_profile_func *funcs;   /* every function, by exact share descending */
	size_t nfuncs;
	struct pb_profile_object_summary *objects;
	size_t nobjects;
};

int pb_profile_compute(const struct pb_profile_input *in, struct pb_profile_report *out,
		       struct pb_error *err);
void pb_profile_report_free(struct pb_profile_report *r);

#endif
