/* Naming addresses in PLT stubs as perf names them: every stub of the objects this test runs
 * on (itself, ld.so, libc), as binutils' objdump finds them, is named on its first and last
 * byte by perf 6.1's rule, with readelf's list of the PLT relocations as the judge (perf_names);
 * the PLT header, which perf 6.1 names by no stub, gets no stub's name, and in this test's own
 * executable the name of the sizeless symbol before it (_init), as perf extends that one. */
#include "analysis/plt_symbols.h"
#include "analysis/profile.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && !strcmp(s + n - m, tail);
}

/* The names perf 6.1 gives path's stubs, in .plt order: "NAME@plt" after the i-th relocation of
 * .rela.plt (or .rel.plt) as readelf lists it, "@plt" when it names no symbol. perf pairs the
 * i-th stub with the i-th relocation; on x86 the linker puts IRELATIVE relocations after the
 * others whatever their stubs' places, so in libc perf's names are not objdump's labels (perf
 * 6.3 sorts them): pesbench gives perf's, as profiles are compared with perf's. */
static size_t perf_names(const char *path, char (*names)[256], size_t max)
{
	char cmd[PATH_MAX + 64], line[1024];
	snprintf(cmd, sizeof cmd, "readelf -rW '%s' 2>/dev/null", path);
	FILE *f = popen(cmd, "r");
	size_t n = 0;
	bool in_plt = false;
	while (f && fgets(line, sizeof line, f)) {
		if (!strncmp(line, "Relocation section", 18)) {
			in_plt = strstr(line, "'.rela.plt'") || strstr(line, "'.rel.plt'");
			continue;
		}
		char offset[32], info[32], type[64], value[32], name[252] = "";
		if (!in_plt || n == max ||
		    sscanf(line, "%31s %31s %63s %31s %251s", offset, info, type, value, name) < 3 ||
		    strncmp(type, "R_", 2))
			continue;
		if (!strcmp(name, "+") || !strcmp(name, "-"))  /* an addend only: no symbol */
			name[0] = '\0';
		name[strcspn(name, "@")] = '\0';                /* readelf adds the version */
		snprintf(names[n++], sizeof names[0], "%s@plt", name);
	}
	if (f)
		pclose(f);
	return n;
}

/* The name perf gives an address no symbol or stub holds (the PLT header), by readelf's list of
 * path's function symbols: the one starting last at or before addr when it is sizeless (perf
 * extends it to the next symbol). False when that symbol is sized or there is none. */
static bool sizeless_before(const char *path, uint64_t addr, char *name, size_t len)
{
	char cmd[PATH_MAX + 64], line[1024];
	snprintf(cmd, sizeof cmd, "readelf -sW '%s' 2>/dev/null", path);
	FILE *f = popen(cmd, "r");
	unsigned long long best = 0;
	bool found = false, sized = false;
	while (f && fgets(line, sizeof line, f)) {
		char num[32], type[32], bind[32], vis[32], ndx[32], sym[256] = "";
		unsigned long long value, size;
		if (sscanf(line, "%31s %llx %llu %31s %31s %31s %31s %255s", num, &value, &size, type,
			   bind, vis, ndx, sym) != 8 ||
		    (strcmp(type, "FUNC") && strcmp(type, "IFUNC")) || !strcmp(ndx, "UND") ||
		    value > addr || (found && value < best))
			continue;
		if (!found || value > best)
			sized = false;
		found = true, best = value;
		sized |= size != 0;
		sym[strcspn(sym, "@")] = '\0';
		snprintf(name, len, "%s", sym);
	}
	if (f)
		pclose(f);
	return found && !sized;
}

/* Checks every stub objdump finds in path's .plt, and its header when path's own symbol table is
 * the one pesbench reads (no debug file); the number of stubs checked. */
static size_t check_object(const char *path, bool own_symbols)
{
	struct pb_prof_object *o;
	struct pb_error err = {0};
	if (!CHECK_MSG(pb_prof_object_open(path, &o, &err) == 0, "%s: %s", path, err.msg))
		return 0;
	static char names[4096][256];
	size_t nnames = perf_names(path, names, sizeof names / sizeof names[0]);
	char cmd[PATH_MAX + 64], line[1024];
	snprintf(cmd, sizeof cmd, "objdump -d -j .plt --no-show-raw-insn '%s' 2>/dev/null", path);
	FILE *f = popen(cmd, "r");
	size_t stubs = 0, headers = 0, unlike_objdump = 0;
	unsigned long long prev = 0;
	char prev_name[512] = "";
	while (f && fgets(line, sizeof line, f)) {
		unsigned long long addr;
		char label[512], want[512];
		if (sscanf(line, "%llx <%511[^>]>:", &addr, label) != 2)
			continue;
		uint64_t start = 0;
		const char *got = pb_prof_object_symbol(o, addr, &start);
		if (!ends_with(label, "@plt")) {  /* the header: "puts@plt-0x10" */
			headers++;
			CHECK_MSG(!got || !ends_with(got, "@plt"), "%s %#llx (%s): named %s", path,
				  addr, label, got);
			if (own_symbols && sizeless_before(path, addr, want, sizeof want))
				CHECK_MSG(got && !strcmp(got, want), "%s %#llx (%s): named %s, want %s",
					  path, addr, label, got ? got : "(nothing)", want);
			else if (own_symbols)
				CHECK_MSG(!got, "%s %#llx (%s): named %s", path, addr, label, got);
			continue;
		}
		if (!CHECK_MSG(stubs < nnames, "%s: more stubs than relocations", path))
			break;
		snprintf(want, sizeof want, "%s", names[stubs++]);
		unlike_objdump += strcmp(want, label) != 0 && strncmp(label, "*ABS*", 5) != 0;
		CHECK_MSG(got && !strcmp(got, want) && start == addr, "%s %#llx (%s): named %s at %#llx",
			  path, addr, label, got ? got : "(nothing)", (unsigned long long)start);
		/* the previous stub's last byte is still the previous stub */
		if (prev_name[0]) {
			got = pb_prof_object_symbol(o, addr - 1, &start);
			CHECK_MSG(got && !strcmp(got, prev_name) && start == prev, "%s %#llx: named %s",
				  path, addr - 1, got ? got : "(nothing)");
		}
		prev = addr;
		snprintf(prev_name, sizeof prev_name, "%s", want);
	}
	if (f)
		pclose(f);
	CHECK_MSG(stubs == nnames, "%s: %zu stubs, %zu relocations", path, stubs, nnames);
	printf("%s: %zu PLT stubs named as perf 6.1 names them (%zu unlike objdump's labels), "
	       "%zu header(s) checked\n", path, stubs, unlike_objdump, headers);
	pb_prof_object_close(o);
	return stubs;
}

/* The path of this test's mapping whose base name starts with prefix. */
static bool find_mapping(const char *prefix, char *path, size_t len)
{
	struct pb_map *maps = NULL;
	size_t n = 0;
	bool found = false;
	if (pb_maps_read_proc(getpid(), &maps, &n) > 0)
		for (size_t i = 0; i < n && !found; i++)
			if (!strncmp(pb_path_base(maps[i].path), prefix, strlen(prefix))) {
				snprintf(path, len, "%s", maps[i].path);
				found = true;
			}
	free(maps);
	return found;
}

int main(void)
{
	if (system("objdump --version >/dev/null 2>&1") != 0) {
		pb_skip_checks(1, "no objdump (binutils) to judge the stubs' names");
		return pb_check_done("plt_symbols");
	}
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
	CHECK(n > 0);
	if (n > 0) {
		path[n] = '\0';
		/* this test calls printf, strcmp and more through its own PLT */
		CHECK_MSG(check_object(path, true) > 0, "%s: objdump found no PLT stub", path);
	}
	if (find_mapping("ld-linux", path, sizeof path) || find_mapping("ld-", path, sizeof path))
		check_object(path, false);
	if (find_mapping("libc.so", path, sizeof path) || find_mapping("libc-", path, sizeof path))
		check_object(path, false);
	return pb_check_done("plt_symbols");
}
