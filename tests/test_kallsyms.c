/* Kernel addresses named from the running kernel's symbols (analysis/kallsyms.h): the kallsyms
 * table and the build id of /sys/kernel/notes, and the symbolizer's rule for using them, which
 * names a recording's kernel addresses only when its kernel is the running one, loaded where it
 * is now, and otherwise says why not. The running kernel is a saved tree's here. */
#include "analysis/kallsyms.h"
#include "analysis/profile.h"
#include "check.h"
#include "machine/machine.h"
#include "util/kit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char kallsyms_text[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 t first_fn\n"
	"ffffffff81001000 T first_alias\n"
	"ffffffff81002000 D some_data\n"
	"ffffffff81003000 W weak_fn\n"
	"not a symbol line\n"
	"ffffffff81004000 T\n"
	"ffffffffc0001000 t mod_fn\t[mod]\n";

static void test_table(void)
{
	struct pb_kallsyms k;
	CHECK(pb_kallsyms_parse(kallsyms_text, strlen(kallsyms_text), &k) == 0);
	/* code only (t, T, w, W), both shapes of bad line counted */
	CHECK_EQ_U64(k.n, 6);
	CHECK_EQ_U64(k.unparsed, 2);
	CHECK(!k.hidden);
	uint64_t at = 0, start = 0;
	CHECK(pb_kallsyms_address(&k, "_text", &at) && at == 0xffffffff81000000ull);
	CHECK(!pb_kallsyms_address(&k, "some_data", &at));
	/* of aliases at one address the last listed, as perf names it (each of the others ends
	 * where it begins); a symbol runs to the next one */
	const char *name = pb_kallsyms_find(&k, 0xffffffff81001234ull, &start);
	CHECK_MSG(name && !strcmp(name, "first_alias"), "%s", name ? name : "(none)");
	CHECK(start == 0xffffffff81001000ull);
	name = pb_kallsyms_find(&k, 0xffffffff81003010ull, &start);
	CHECK(name && !strcmp(name, "weak_fn"));
	/* a module's symbol, its module cut off */
	name = pb_kallsyms_find(&k, 0xffffffffc0001008ull, &start);
	CHECK(name && !strcmp(name, "mod_fn"));
	CHECK(!pb_kallsyms_find(&k, 0xffffffff80000000ull, &start));
	pb_kallsyms_free(&k);
	/* kptr_restrict: every address 0 */
	static const char hidden[] = "0000000000000000 T _text\n0000000000000000 t f\n";
	CHECK(pb_kallsyms_parse(hidden, strlen(hidden), &k) == 0 && k.hidden);
	pb_kallsyms_free(&k);
	CHECK(pb_kallsyms_parse("", 0, &k) == 0 && k.n == 0 && !k.hidden);
	pb_kallsyms_free(&k);
}

/* An ELF note: namesz, descsz, type, name and desc each padded to 4. */
static size_t put_note(uint8_t *at, const char *name, uint32_t type, const uint8_t *desc,
		       uint32_t descsz)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1;
	size_t n = 0;
	memcpy(at + n, &namesz, 4);
	memcpy(at + n + 4, &descsz, 4);
	memcpy(at + n + 8, &type, 4);
	n += 12;
	memset(at + n, 0, (namesz + 3) & ~3u);
	memcpy(at + n, name, namesz);
	n += (namesz + 3) & ~3u;
	memset(at + n, 0, (descsz + 3) & ~3u);
	memcpy(at + n, desc, descsz);
	return n + ((descsz + 3) & ~3u);
}

static const uint8_t build_id[20] = {0x85, 0xc7, 0xe4, 0xe2, 0xed, 0x76, 0xf4, 0x41, 0x7e, 0x8a,
				     0xaa, 0xd7, 0xc6, 0xb0, 0x40, 0xd2, 0xbb, 0x89, 0x7a, 0x26};
#define BUILD_ID_HEX "85c7e4e2ed76f4417e8aaad7c6b040d2bb897a26"

/* /sys/kernel/notes as the kernel lays it out: a Linux note before the GNU build id */
static size_t kernel_notes(uint8_t *buf)
{
	static const uint8_t version[4] = {1, 2, 3, 4};
	size_t n = put_note(buf, "Linux", 6, version, sizeof version);
	return n + put_note(buf + n, "GNU", 3, build_id, sizeof build_id);
}

static void test_notes(void)
{
	uint8_t buf[256];
	char hex[41];
	size_t n = kernel_notes(buf);
	CHECK(pb_kernel_notes_build_id(buf, n, hex, sizeof hex) && !strcmp(hex, BUILD_ID_HEX));
	/* cut inside the build id's note: none, never a part of it */
	CHECK(!pb_kernel_notes_build_id(buf, n - 4, hex, sizeof hex));
	/* no room for the hex */
	CHECK(!pb_kernel_notes_build_id(buf, n, hex, 40));
	CHECK(!pb_kernel_notes_build_id(buf, 0, hex, sizeof hex));
}

static void write_file(const char *root, const char *rel, const void *data, size_t len)
{
	char path[512];
	snprintf(path, sizeof path, "%s%s", root, rel);
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(data, 1, len, f) == len);
	if (f)
		fclose(f);
}

struct tree {
	char root[64];
	struct pb_machine m;
};

static void make_tree(struct tree *t, const char *kallsyms)
{
	snprintf(t->root, sizeof t->root, "/tmp/pb_kallsyms.XXXXXX");
	CHECK(mkdtemp(t->root) != NULL);
	static const char *const dirs[] = {"/proc", "/proc/sys", "/proc/sys/kernel", "/sys",
					   "/sys/kernel"};
	for (size_t i = 0; i < PB_ARRAY_SIZE(dirs); i++) {
		char path[512];
		snprintf(path, sizeof path, "%s%s", t->root, dirs[i]);
		CHECK(mkdir(path, 0700) == 0);
	}
	write_file(t->root, "/proc/sys/kernel/osrelease", "6.18.44-test\n", 13);
	uint8_t notes[256];
	write_file(t->root, "/sys/kernel/notes", notes, kernel_notes(notes));
	write_file(t->root, "/proc/kallsyms", kallsyms, strlen(kallsyms));
	memset(&t->m, 0, sizeof t->m);
	snprintf(t->m.root, sizeof t->m.root, "%s", t->root);
}

static void remove_tree(struct tree *t)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", t->root);
	CHECK(system(cmd) == 0);
}

/* The name of a kernel address of a recording whose kernel is (release, build id) and whose
 * kernel mapping is path placed by pgoff, into name; the symbolizer's note into note. */
static void kernel_name(const struct tree *t, const char *release, const char *id,
			const char *path, uint64_t pgoff, char *name, size_t len, char *note,
			size_t note_len)
{
	struct pb_symbolizer sy = {0};
	sy.kernel.running = &t->m;
	snprintf(sy.kernel.recorded_release, sizeof sy.kernel.recorded_release, "%s", release);
	snprintf(sy.kernel.recorded_build_id, sizeof sy.kernel.recorded_build_id, "%s", id);
	CHECK(pb_symbolizer_add_map(&sy, UINT32_MAX, 0xffffffff81000000ull, 0x1000000, pgoff,
				    path, 0) == 0);
	pb_symbolizer_name(&sy, 42, 0xffffffff81001010ull, name, len);
	snprintf(note, note_len, "%s", sy.kernel.note);
	pb_symbolizer_free(&sy);
}

static void named_or_not(const struct tree *t, const char *release, const char *id,
			 const char *path, uint64_t pgoff, const char *want_name,
			 const char *want_note)
{
	char name[256], note[512];
	kernel_name(t, release, id, path, pgoff, name, sizeof name, note, sizeof note);
	CHECK_MSG(!strcmp(name, want_name), "named '%s', wanted '%s' (%s)", name, want_name, note);
	CHECK_STR_CONTAINS(note, want_note);
}

static void test_kernel_names(void)
{
	struct tree t;
	make_tree(&t, kallsyms_text);
	const uint64_t text_at = 0xffffffff81000000ull;
	const char *kernel = "[kernel.kallsyms]_text";
	/* the same build, loaded where it is now */
	named_or_not(&t, "6.18.44-test", BUILD_ID_HEX, kernel, text_at,
		     "first_alias+0x10 ([kernel.kallsyms])",
		     "named from /proc/kallsyms: the recording's kernel is this one (build id "
		     "85c7e4e2ed76..., _text at 0xffffffff81000000); 2 of its lines were no "
		     "symbol");
	/* another build of the same release */
	named_or_not(&t, "6.18.44-test", "00c7e4e2ed76f4417e8aaad7c6b040d2bb897a26", kernel,
		     text_at, "[kernel.kallsyms]",
		     "named by their mapping only ([kernel.kallsyms]): the recording's kernel "
		     "(build id 00c7e4e2ed76...) is not this one (build id 85c7e4e2ed76...)");
	/* no build id in the recording: its release decides */
	named_or_not(&t, "6.18.44-test", "", kernel, text_at,
		     "first_alias+0x10 ([kernel.kallsyms])",
		     "(release 6.18.44-test; the recording holds no build id, _text at");
	named_or_not(&t, "6.1.0-other", "", kernel, text_at, "[kernel.kallsyms]",
		     "the recording's kernel is 6.1.0-other, this one 6.18.44-test");
	named_or_not(&t, "", "", kernel, text_at, "[kernel.kallsyms]",
		     "the recording says neither its kernel's build id nor its release");
	/* this kernel, another boot: address-space randomisation put it elsewhere */
	named_or_not(&t, "6.18.44-test", BUILD_ID_HEX, kernel, text_at + 0x200000,
		     "[kernel.kallsyms]", "this kernel's _text is at 0xffffffff81000000, the "
		     "recording's at 0xffffffff81200000: a recording of another boot");
	/* a mapping that names no symbol to check its place by */
	named_or_not(&t, "6.18.44-test", BUILD_ID_HEX, "[kernel.kallsyms]", text_at,
		     "[kernel.kallsyms]", "names no symbol its address can be checked by");
	named_or_not(&t, "6.18.44-test", BUILD_ID_HEX, "[kernel.kallsyms]_nosuch", text_at,
		     "[kernel.kallsyms]", "/proc/kallsyms has no _nosuch");
	remove_tree(&t);
	/* a user kptr_restrict hides the addresses from */
	make_tree(&t, "0000000000000000 T _text\n0000000000000000 t first_fn\n");
	named_or_not(&t, "6.18.44-test", BUILD_ID_HEX, kernel, text_at, "[kernel.kallsyms]",
		     "hides its addresses from this user (kernel.kptr_restrict)");
	remove_tree(&t);
	/* no kallsyms at all */
	make_tree(&t, "");
	char path[512];
	snprintf(path, sizeof path, "%s/proc/kallsyms", t.root);
	CHECK(unlink(path) == 0);
	named_or_not(&t, "6.18.44-test", BUILD_ID_HEX, kernel, text_at, "[kernel.kallsyms]",
		     "/proc/kallsyms cannot be read");
	remove_tree(&t);
}

int main(void)
{
	test_table();
	test_notes();
	test_kernel_names();
	return pb_check_done("kallsyms");
}
