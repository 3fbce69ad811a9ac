/* C++ names as shown: mangled symbols of the kinds compilers and linkers write (a template, a
 * constructor, a cold clone, a PLT entry, a versioned symbol) demangle to what c++filt prints;
 * names that are no C++ symbol (C names, C names spelling a type, damaged or overlong ones) stay
 * as linked; a display buffer too small shows its cut; and the export model keeps the symbol as
 * linked beside the name it shows. A build without a demangler is held to showing every name as
 * linked. tests/cli_cxx_names.sh holds a real C++ program to c++filt, perf and pprof. */
#include "analysis/demangle.h"
#include "check.h"
#include "export/export.h"

#include <stdlib.h>
#include <string.h>

#define CHECK_STR_EQ(got, want)                                                            \
	do {                                                                               \
		const char *g_ = (got), *w_ = (want);                                      \
		CHECK_MSG(g_ && !strcmp(g_, w_), "\"%s\", want \"%s\"", g_ ? g_ : "(null)", w_); \
	} while (0)

struct demangled {
	const char *symbol, *shown;
};

/* (what c++filt 2.40 prints for each) */
static const struct demangled mangled[] = {
	{"_ZN2ns3hotEi", "ns::hot(int)"},
	{"_ZN2ns3hotE", "ns::hot"},
	{"_ZN13pesbench_test4spinImEET_S1_",
	 "unsigned long pesbench_test::spin<unsigned long>(unsigned long)"},
	{"_ZNSt8ios_base4InitC1Ev", "std::ios_base::Init::Init()"},
	{"_Z3hotv.cold", "hot() [clone .cold]"},
	{"_ZdlPv@plt", "operator delete(void*)@plt"},
	{"_ZNSt8ios_base4InitC1Ev@@GLIBCXX_3.4", "std::ios_base::Init::Init()@@GLIBCXX_3.4"},
};

/* Names that must stay as linked, whatever the build */
static const char *const as_linked[] = {
	"main", "f", "i", "Ss", "hot_fifty", "[unknown]", "_Z", "_Zgarbage", "",
	"@plt", "memcpy@GLIBC_2.14",
};

/* Each symbol demangled, or as linked in a build without a demangler. */
static void test_mangled(void)
{
	bool demangles = pb_demangler_available();
	for (size_t i = 0; i < sizeof mangled / sizeof *mangled; i++) {
		const char *want = demangles ? mangled[i].shown : mangled[i].symbol;
		char *got = pb_demangle(mangled[i].symbol);
		CHECK_MSG(demangles ? got && !strcmp(got, want) : !got, "%s: \"%s\", want \"%s\"",
			  mangled[i].symbol, got ? got : "(none)", want);
		free(got);
		char out[256];
		CHECK_STR_EQ(pb_demangle_into(mangled[i].symbol, out, sizeof out), want);
	}
}

static void test_as_linked(void)
{
	for (size_t i = 0; i < sizeof as_linked / sizeof *as_linked; i++) {
		char *got = pb_demangle(as_linked[i]);
		CHECK_MSG(!got, "%s: demangled to \"%s\"", as_linked[i], got);
		free(got);
		char out[64];
		CHECK_STR_EQ(pb_demangle_into(as_linked[i], out, sizeof out), as_linked[i]);
	}
	CHECK(!pb_demangle(NULL));
	/* a symbol past the limit is not handed to the demangler, though it would demangle:
	 * "_ZN" then names of 9 letters ("3abc"-style counts) make a valid nested name */
	size_t n = 3;
	char *longest = malloc(PB_DEMANGLE_MAX_SYMBOL + 16);
	if (!CHECK_MSG(longest != NULL, "out of memory"))
		return;
	memcpy(longest, "_ZN", 3);
	while (n + 10 + 3 < PB_DEMANGLE_MAX_SYMBOL + 10) {
		memcpy(longest + n, "9abcdefghi", 10);
		n += 10;
	}
	memcpy(longest + n, "Ev", 3);
	CHECK(strlen(longest) > PB_DEMANGLE_MAX_SYMBOL);
	char *got = pb_demangle(longest);
	CHECK_MSG(!got, "a symbol of %zu characters was demangled", strlen(longest));
	free(got);
	/* the same shape within the limit demangles */
	memcpy(longest + 3 + 10 * 4, "Ev", 3);
	got = pb_demangle(longest);
	if (pb_demangler_available())
		CHECK_MSG(got && !strcmp(got, "abcdefghi::abcdefghi::abcdefghi::abcdefghi()"),
			  "%s", got ? got : "(none)");
	free(got);
	free(longest);
}

static void test_cut(void)
{
	char out[12];
	/* "ns::hot(int)" is 12 characters: one more than out holds */
	CHECK_STR_EQ(pb_demangle_into(pb_demangler_available() ? "_ZN2ns3hotEi" : "ns::hot(int)",
				      out, sizeof out),
		     "ns::hot(...");
	CHECK_STR_EQ(pb_demangle_into("ns::hot(in)", out, sizeof out), "ns::hot(in)");
	char tiny[3] = "xy";
	CHECK_STR_EQ(pb_demangle_into("main", tiny, sizeof tiny), "..");
	char one[1] = "z";
	CHECK_STR_EQ(pb_demangle_into("main", one, sizeof one), "");
	char none[1] = "z";
	pb_demangle_into("main", none, 0);
	CHECK(none[0] == 'z');
}

/* The export model: the name shown is demangled; the symbol as linked is pprof's system_name. */
static void test_export_frames(void)
{
	struct pb_xset s = {0};
	long cxx = pb_xset_frame(&s, "/bin/cxx", 0x1000, "_ZN2ns3hotEi", "hot.cc", 7);
	long c = pb_xset_frame(&s, "/bin/cxx", 0x2000, "main", "main.c", 3);
	long none = pb_xset_frame(&s, "/bin/cxx", 0x3000, NULL, "", 0);
	if (!CHECK_MSG(cxx >= 0 && c >= 0 && none >= 0, "frames not added"))
		return;
	CHECK_STR_EQ(s.frames[cxx].function,
		     pb_demangler_available() ? "ns::hot(int)" : "_ZN2ns3hotEi");
	CHECK_STR_EQ(s.frames[cxx].system_name, "_ZN2ns3hotEi");
	CHECK_STR_EQ(s.frames[c].function, "main");
	CHECK(s.frames[c].system_name == s.frames[c].function);
	CHECK_STR_EQ(s.frames[none].function, "[unknown]");
	CHECK_STR_EQ(s.frames[none].system_name, "[unknown]");
	/* the same address again is the same frame */
	CHECK(pb_xset_frame(&s, "/bin/cxx", 0x1000, "_ZN2ns3hotEi", "hot.cc", 7) == cxx);
	pb_xset_free(&s);
}

int main(void)
{
	test_mangled();
	test_as_linked();
	test_cut();
	test_export_frames();
	CHECK(strlen(pb_demangler_name()) > 0);
	return pb_check_done("demangle");
}
