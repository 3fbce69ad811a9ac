/* The callgrind profile parser on constructed profiles (every position encoding, calls=
 * lines, object filtering, bad input), then on a real callgrind run when valgrind exists. */
#include "check.h"

#include "analysis/callgrind.h"

#include <stdlib.h>
#include <unistd.h>

static const char plain[] =
	"# callgrind format\n"
	"version: 1\n"
	"positions: instr line\n"
	"events: Ir Dr Dw\n"
	"ob=/bin/prog\n"
	"fl=a.c\n"
	"fn=loop\n"
	"0x1000 10 5 1\n"
	"0x1004 11 5 0 5\n"
	"cfn=leaf\n"
	"calls=5 0x2000 20\n"
	"0x1008 12 999 999 999\n"          /* inclusive cost of the call: skipped */
	"0x1008 12 5\n"
	"fn=loop'2\n"
	"0x1000 10 7 7\n"                  /* the same address in another context: summed */
	"ob=/lib/libc.so\n"
	"fn=strlen\n"
	"0x1000 1 100\n"                   /* another object at the same address */
	"ob=/bin/prog\n"
	"fn=leaf\n"
	"0x2000 20 5 5\n"
	"totals: 0\n";

/* The same costs with callgrind's compression: names by id, relative and repeated positions. */
static const char compressed[] =
	"version: 1\n"
	"positions: instr line\n"
	"events: Ir\n"
	"ob=(1) /bin/prog\n"
	"fn=(1) loop\n"
	"0x1000 10 5\n"
	"+4 +1 5\n"
	"cfn=(2) leaf\n"
	"calls=5 +4096 *\n"
	"+4 * 999\n"
	"* * 5\n"
	"ob=(2) /lib/libc.so\n"
	"fn=(3) strlen\n"
	"-8 -2 100\n"
	"ob=(1)\n"
	"fn=(1)\n"
	"0x1000 10 7\n"
	"fn=(2)\n"
	"0x2000 20 5\n";

static void check_prog(const struct pb_cg_profile *p)
{
	CHECK_EQ_U64(p->n, 4);
	const struct pb_cg_instr *i = pb_cg_find(p, 0x1000);
	CHECK(i != NULL);
	CHECK_EQ_U64(i ? i->ir : 0, 12);
	i = pb_cg_find(p, 0x1008);
	CHECK_EQ_U64(i ? i->ir : 0, 5);
	CHECK(pb_cg_find(p, 0x1003) == NULL);
	CHECK_EQ_U64(pb_cg_ir_range(p, 0x1000, 0x100c), 22);
	CHECK_EQ_U64(pb_cg_ir_range(p, 0x1000, 0x3000), 27);
}

static void test_parse(void)
{
	struct pb_cg_profile p;
	struct pb_error err = {0};
	CHECK(pb_callgrind_parse(plain, strlen(plain), "/bin/prog", &p, &err) == 0);
	check_prog(&p);
	CHECK(p.has_data);
	const struct pb_cg_instr *i = pb_cg_find(&p, 0x1000);
	CHECK_EQ_U64(i ? i->dr : 0, 8);
	i = pb_cg_find(&p, 0x1004);
	CHECK_EQ_U64(i ? i->dw : 0, 5);
	pb_cg_profile_free(&p);

	CHECK(pb_callgrind_parse(compressed, strlen(compressed), "/bin/prog", &p, &err) == 0);
	check_prog(&p);
	CHECK(!p.has_data);
	pb_cg_profile_free(&p);

	/* Without a filter every object counts, so libc's 0x1000 adds in. */
	CHECK(pb_callgrind_parse(plain, strlen(plain), NULL, &p, &err) == 0);
	i = pb_cg_find(&p, 0x1000);
	CHECK_EQ_U64(i ? i->ir : 0, 112);
	pb_cg_profile_free(&p);
}

static void expect_bad(const char *text, const char *msg)
{
	struct pb_cg_profile p;
	struct pb_error err = {0};
	CHECK(pb_callgrind_parse(text, strlen(text), NULL, &p, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_BAD_FILE);
	CHECK_STR_CONTAINS(err.msg, msg);
}

static void test_bad(void)
{
	expect_bad("", "no events: line");
	expect_bad("events: Dr\n", "no Ir");
	expect_bad("events: Ir\n0x10 5\n", "--dump-instr=yes");
	expect_bad("positions: instr\nevents: Ir\n0xzz 5\n", "line 3: bad hexadecimal");
	expect_bad("positions: instr\nevents: Ir\n0x10 5x\n", "bad event count");
	expect_bad("positions: instr line\nevents: Ir\n0x10\n", "fewer positions");
	expect_bad("positions: instr\nevents: Ir\n0x10 99999999999999999999\n", "bad event count");
	expect_bad("positions: instr\nevents: Ir\nob=(x) a\n", "bad compressed");
	struct pb_cg_profile p;
	struct pb_error err = {0};
	CHECK(pb_callgrind_parse_file("/nonexistent/cg.out", NULL, &p, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "/nonexistent/cg.out");
}

/* A real profile of a real program: /bin/true's instructions all come from its own object or
 * the libraries; filtered to /bin/true's path the profile is not empty. */
static void test_real(void)
{
	char why[256];
	if (!pb_callgrind_available(why, sizeof why)) {
		printf("test_callgrind: real run not done: %s\n", why);
		return;
	}
	char dir[] = "/tmp/pb-cg-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char out[64], so[64];
	snprintf(out, sizeof out, "%s/cg.out", dir);
	snprintf(so, sizeof so, "%s/stdout", dir);
	char *argv[] = {"/bin/echo", "hello", NULL};
	struct pb_error err = {0};
	CHECK(pb_callgrind_run(argv, out, so, true, &err) == 0);
	struct pb_cg_profile all, echo;
	CHECK(pb_callgrind_parse_file(out, NULL, &all, &err) == 0);
	CHECK(pb_callgrind_parse_file(out, "/usr/bin/echo", &echo, &err) == 0 ||
	      pb_callgrind_parse_file(out, "/bin/echo", &echo, &err) == 0);
	CHECK(all.has_data);
	CHECK(all.n > echo.n);
	CHECK(echo.n > 0);
	FILE *f = fopen(so, "r");
	char line[32] = "";
	CHECK(f && fgets(line, sizeof line, f));
	CHECK_STR_CONTAINS(line, "hello");
	if (f)
		fclose(f);
	pb_cg_profile_free(&all);
	pb_cg_profile_free(&echo);
	char *fail[] = {"/bin/false", NULL};
	CHECK(pb_callgrind_run(fail, out, so, false, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "exit status 1");
	unlink(out);
	unlink(so);
	rmdir(dir);
}

int main(void)
{
	test_parse();
	test_bad();
	test_real();
	return pb_check_done("test_callgrind");
}
