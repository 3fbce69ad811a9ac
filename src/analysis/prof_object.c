/* ELF objects for profiles, through elfutils: link-time addresses from file offsets, code
 * bytes, symbols and source lines; and a process's executable mappings (its MMAP records or
 * /proc/PID/maps). */
#include "analysis/plt_symbols.h"
#include "analysis/profile.h"
#include "analysis/symbol_alias.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- objects ---- */

struct pb_prof_object {
	char path[PATH_MAX];
	int fd;
	Elf *elf;
	GElf_Phdr *load;            /* PT_LOAD headers */
	size_t nload;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	/* The module's function symbols by address, built at the first symbol lookup: names
	 * point into the Dwfl's string tables, so they live as long as dwfl. */
	struct pb_symbol_alias_table aliases;
	bool aliases_built;
	/* The stubs of its PLT with perf's names (plt_symbols.h), built with the aliases from
	 * the object itself: a debug file's .plt holds no code. */
	struct pb_plt_table plt;
};

const char *pb_path_base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

bool pb_is_elf_file(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool elf = read(fd, magic, 4) == 4 && !memcmp(magic, ELFMAG, SELFMAG);
	close(fd);
	return elf;
}

/* Debug files by build-id only (/usr/lib/debug/.build-id: Debian's -dbg and -dbgsym packages;
 * DWARF inside the object itself is read either way). The standard search would also try
 * debuginfod: a network lookup when DEBUGINFOD_URLS is set, and even unset it loads libcurl
 * and its thirty libraries (8 MB, a noticeable part of exporting a profile) for every object
 * without debug lines. */
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_build_id_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

int pb_prof_object_open(const char *path, struct pb_prof_object **out, struct pb_error *err)
{
	*out = NULL;
	elf_version(EV_CURRENT);
	struct pb_prof_object *o = calloc(1, sizeof *o);
	if (!o)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
	snprintf(o->path, sizeof o->path, "%s", path);
	o->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (o->fd < 0) {
		int e = errno;
		free(o);
		return pb_fail(err, PB_EXIT_BAD_FILE, e, "cannot open %s: %s", path, strerror(e));
	}
	o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
	size_t nph = 0;
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF || elf_getphdrnum(o->elf, &nph)) {
		pb_prof_object_close(o);
		return pb_fail(err, PB_EXIT_BAD_FILE, 0, "%s is not an ELF file", path);
	}
	o->load = calloc(nph ? nph : 1, sizeof *o->load);
	for (size_t i = 0; o->load && i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(o->elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			o->load[o->nload++] = ph;
	}
	/* Base 0 with add_p_vaddr: module addresses are the file's link-time addresses, the ones
	 * callgrind reports. One Dwfl per object, since every shared object starts near 0. */
	o->dwfl = dwfl_begin(&offline_callbacks);
	if (o->dwfl) {
		o->mod = dwfl_report_elf(o->dwfl, path, path, -1, 0, true);
		dwfl_report_end(o->dwfl, NULL, NULL);
	}
	*out = o;
	return 0;
}

void pb_prof_object_close(struct pb_prof_object *o)
{
	if (!o)
		return;
	pb_symbol_alias_table_free(&o->aliases);
	pb_plt_table_free(&o->plt);
	if (o->dwfl)
		dwfl_end(o->dwfl);
	if (o->elf)
		elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
	free(o->load);
	free(o);
}

const char *pb_prof_object_path(const struct pb_prof_object *o)
{
	return o->path;
}

bool pb_prof_object_offset_to_addr(const struct pb_prof_object *o, uint64_t offset,
				   uint64_t *addr)
{
	for (size_t i = 0; i < o->nload; i++) {
		const GElf_Phdr *ph = &o->load[i];
		if (offset >= ph->p_offset && offset < ph->p_offset + ph->p_filesz) {
			*addr = ph->p_vaddr + (offset - ph->p_offset);
			return true;
		}
	}
	return false;
}

size_t pb_prof_object_read(void *object, uint64_t addr, uint8_t *buf, size_t len)
{
	const struct pb_prof_object *o = object;
	for (size_t i = 0; i < o->nload; i++) {
		const GElf_Phdr *ph = &o->load[i];
		if (addr < ph->p_vaddr || addr >= ph->p_vaddr + ph->p_filesz)
			continue;
		uint64_t left = ph->p_vaddr + ph->p_filesz - addr;
		size_t n = left < len ? (size_t)left : len;
		ssize_t got = pread(o->fd, buf, n, (off_t)(ph->p_offset + (addr - ph->p_vaddr)));
		return got > 0 ? (size_t)got : 0;
	}
	return 0;
}

static bool is_function(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);
	return type == STT_FUNC || type == STT_GNU_IFUNC;
}

/* One pass over the symbol table (the debug file's when there is one, as perf reads it):
 * every named, defined function symbol, as perf loads them. A table that could not be built
 * whole is left empty, and names stay elfutils' own. */
static void build_aliases(struct pb_prof_object *o)
{
	o->aliases_built = true;
	int nsyms = dwfl_module_getsymtab(o->mod);
	for (int i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(o->mod, i, &sym, &addr, &shndx, NULL,
							   NULL);
		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || !is_function(&sym))
			continue;
		struct pb_symbol_alias a = {.start = addr, .size = sym.st_size, .name = name,
					    .binding = (unsigned char)GELF_ST_BIND(sym.st_info),
					    .order = (uint32_t)i};
		if (pb_symbol_alias_table_add(&o->aliases, &a)) {
			pb_symbol_alias_table_free(&o->aliases);
			return;
		}
	}
	pb_symbol_alias_table_sort(&o->aliases);
}

const struct pb_symbol_alias_table *pb_prof_object_aliases(struct pb_prof_object *o)
{
	if (!o->mod)
		return NULL;
	if (!o->aliases_built) {
		build_aliases(o);
		/* out of memory leaves it empty: PLT addresses then stay unnamed, as before */
		(void)pb_plt_table_build(o->elf, &o->plt);
	}
	return &o->aliases;
}

/* perf gives a sizeless function symbol (an executable's _init) the addresses up to the next
 * symbol's start, the last one's up to the page after its own (symbols__fixup_end), whatever
 * the sections; elfutils only within its section. So an address no symbol holds, such as the
 * PLT header after .init, is named by the sizeless symbol before it, as perf names it. Of
 * several sizeless names at one start perf extends the last in the symbol table, which then
 * wins as the sized one. Left unnamed: an address with a PLT stub between it and the
 * symbol (.plt.got, .plt.sec), which perf names by the symbol or by nothing depending on the
 * shape of its symbol tree. */
static const char *extended_sizeless(struct pb_prof_object *o, uint64_t addr, uint64_t *start)
{
	const struct pb_symbol_alias_table *t = pb_prof_object_aliases(o);
	size_t lo = 0, hi = t->n;   /* the first entry starting after addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct pb_symbol_alias *last = &t->v[lo - 1], *first = last;
	while (first > t->v && first[-1].start == last->start)
		first--;
	for (const struct pb_symbol_alias *a = first; a <= last; a++)
		if (a->size)
			return NULL;    /* sized: perf keeps its own end */
	uint64_t end = lo < t->n ? t->v[lo].start : (last->start + 4095) / 4096 * 4096 + 4096;
	if (addr >= end)
		return NULL;
	/* the stubs are in address order: the first one after the symbol */
	size_t slo = 0, shi = o->plt.n;
	while (slo < shi) {
		size_t mid = slo + (shi - slo) / 2;
		if (o->plt.v[mid].start <= last->start)
			slo = mid + 1;
		else
			shi = mid;
	}
	if (slo < o->plt.n && o->plt.v[slo].start <= addr)
		return NULL;
	const struct pb_symbol_alias *kept = first;
	for (const struct pb_symbol_alias *a = first; a <= last; a++)
		if (a->order > kept->order)
			kept = a;
	*start = kept->start;
	return kept->name;
}

const char *pb_prof_object_symbol(struct pb_prof_object *o, uint64_t addr, uint64_t *start)
{
	if (!o->mod)
		return NULL;
	/* No symbol covers a PLT stub (elfutils names none, or the sizeless symbol before it);
	 * perf names it by its relocation. perf also extends a sizeless symbol such as _init
	 * over the stubs that follow it, and which of the two overlapping symbols its lookup
	 * meets first depends on the shape of its symbol tree: the stub's name is the one
	 * kept. */
	pb_prof_object_aliases(o);
	const struct pb_plt_symbol *stub = pb_plt_table_find(&o->plt, addr);
	if (stub) {
		*start = stub->start;
		return stub->name;
	}
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(o->mod, addr, &off, &sym, NULL, NULL, NULL);
	if (!name)
		return extended_sizeless(o, addr, start);
	*start = addr - off;
	/* elfutils names the function by the first of its aliases it meets (of one binding);
	 * perf, whose names profiles are compared with, by its rules (symbol_alias.h). */
	if (is_function(&sym)) {
		const struct pb_symbol_alias *first;
		size_t n = pb_symbol_alias_table_at(pb_prof_object_aliases(o), *start, &first);
		const struct pb_symbol_alias *best = pb_symbol_alias_choose(first, n);
		if (best)
			name = best->name;
	}
	return name;
}

bool pb_prof_object_source(struct pb_prof_object *o, uint64_t addr, const char **file,
			   int *line)
{
	if (!o->mod)
		return false;
	Dwfl_Line *l = dwfl_module_getsrc(o->mod, addr);
	if (!l)
		return false;
	*file = dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
	return *file != NULL;
}

/* ---- maps ---- */

int pb_maps_add(struct pb_map **maps, size_t *n, uint64_t start, uint64_t len, uint64_t pgoff,
		const char *path)
{
	struct pb_map *m = realloc(*maps, (*n + 1) * sizeof **maps);
	if (!m)
		return -1;
	*maps = m;
	m[*n] = (struct pb_map){.start = start, .end = start + len, .pgoff = pgoff};
	snprintf(m[*n].path, sizeof m[*n].path, "%s", path);
	(*n)++;
	return 0;
}

int pb_maps_read_proc(pid_t pid, struct pb_map **maps, size_t *n)
{
	char name[64], line[PATH_MAX + 128];
	snprintf(name, sizeof name, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(name, "re");
	if (!f)
		return -1;
	int added = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long long start, end, pgoff;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &start, &end, perms, &pgoff, &pos) < 4)
			continue;
		const char *p = line + pos;
		while (*p == ' ')
			p++;
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s", p);
		path[strcspn(path, "\n")] = '\0';
		if (perms[2] != 'x' || path[0] != '/')
			continue;
		if (pb_maps_add(maps, n, start, end - start, pgoff, path) == 0)
			added++;
	}
	fclose(f);
	return added;
}
