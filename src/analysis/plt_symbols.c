/* The names perf gives the stubs of a PLT (plt_symbols.h). */
#include "analysis/plt_symbols.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The section named name, with its header and index; NULL when there is none. */
static Elf_Scn *section_by_name(Elf *elf, const char *name, GElf_Shdr *shdr, size_t *index)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		const char *n;
		if (gelf_getshdr(scn, shdr) && (n = elf_strptr(elf, shstrndx, shdr->sh_name)) &&
		    !strcmp(n, name)) {
			if (index)
				*index = elf_ndxscn(scn);
			return scn;
		}
	}
	return NULL;
}

/* perf's header and stub sizes by machine: fixed where .plt's entry size says nothing useful. */
static void plt_sizes(const GElf_Ehdr *ehdr, const GElf_Shdr *plt, uint64_t *header,
		      uint64_t *entry)
{
	switch (ehdr->e_machine) {
	case EM_ARM:
		*header = 20, *entry = 12;
		break;
	case EM_AARCH64:
		*header = 32, *entry = 16;
		break;
	case EM_SPARC:
		*header = 48, *entry = 12;
		break;
	case EM_SPARCV9:
		*header = 128, *entry = 32;
		break;
	default:
		*header = *entry = plt->sh_entsize;
		break;
	}
}

/* The .dynsym symbol of relocation i, or index 0 when it cannot be read. */
static size_t relocation_symbol(Elf_Data *rel, bool rela, size_t i)
{
	if (rela) {
		GElf_Rela r;
		return gelf_getrela(rel, (int)i, &r) ? GELF_R_SYM(r.r_info) : 0;
	}
	GElf_Rel r;
	return gelf_getrel(rel, (int)i, &r) ? GELF_R_SYM(r.r_info) : 0;
}

int pb_plt_table_build(Elf *elf, struct pb_plt_table *t)
{
	*t = (struct pb_plt_table){0};
	GElf_Ehdr ehdr;
	GElf_Shdr dynsym_sh, rel_sh, plt_sh;
	size_t dynsym_index = 0;
	if (!gelf_getehdr(elf, &ehdr))
		return 0;
	Elf_Scn *dynsym = section_by_name(elf, ".dynsym", &dynsym_sh, &dynsym_index);
	Elf_Scn *rel = section_by_name(elf, ".rela.plt", &rel_sh, NULL);
	if (!rel)
		rel = section_by_name(elf, ".rel.plt", &rel_sh, NULL);
	if (!dynsym || !rel || rel_sh.sh_link != dynsym_index || !rel_sh.sh_entsize ||
	    (rel_sh.sh_type != SHT_RELA && rel_sh.sh_type != SHT_REL) ||
	    !section_by_name(elf, ".plt", &plt_sh, NULL))
		return 0;
	Elf_Data *rel_data = elf_getdata(rel, NULL), *sym_data = elf_getdata(dynsym, NULL);
	if (!rel_data || !sym_data)
		return 0;
	uint64_t header, entry;
	plt_sizes(&ehdr, &plt_sh, &header, &entry);
	size_t n = (size_t)(rel_sh.sh_size / rel_sh.sh_entsize);
	if (!entry || !n)
		return 0;
	t->v = calloc(n, sizeof *t->v);
	if (!t->v)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name = NULL;
		size_t symbol = relocation_symbol(rel_data, rel_sh.sh_type == SHT_RELA, i);
		if (gelf_getsym(sym_data, (int)symbol, &sym))
			name = elf_strptr(elf, dynsym_sh.sh_link, sym.st_name);
		struct pb_plt_symbol *s = &t->v[t->n];
		s->start = plt_sh.sh_addr + header + i * entry;
		s->size = entry;
		size_t len = strlen(name ? name : "") + sizeof "@plt";
		s->name = malloc(len);
		if (!s->name) {
			pb_plt_table_free(t);
			return -1;
		}
		snprintf(s->name, len, "%s@plt", name ? name : "");
		t->n++;
	}
	return 0;
}

const struct pb_plt_symbol *pb_plt_table_find(const struct pb_plt_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addr < t->v[mid].start)
			hi = mid;
		else if (addr >= t->v[mid].start + t->v[mid].size)
			lo = mid + 1;
		else
			return &t->v[mid];
	}
	return NULL;
}

void pb_plt_table_free(struct pb_plt_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	*t = (struct pb_plt_table){0};
}
