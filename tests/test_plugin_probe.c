/* A facility defined only in this file and registered at run time: its hardware facts, probed and
 * described by its own descriptor hooks, take their place among the built-in facilities' facts in
 * `probe`'s text and JSON and survive a capture bundle's saved tree, with no other source file
 * knowing it (issue 22: a PMU is one file and one registry line; that the facts reach probe,
 * results and report at all is tests/test_plugin_facility.c's, with the facility's other hooks). */
#include "check.h"
#include "run_cmd.h"
#include "bundle/bundle.h"
#include "cli/commands.h"
#include "facilities/facility.h"
#include "facilities/machine.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAVED_PATH "/pesbench-plugtest"

/* Its facts: how many PMUs the machine has (from what machine/ read) and, on a saved tree, what
 * the tree kept of the machine it was saved from. */
static void plug_probe_machine(struct pb_machine *m, bool prove)
{
	(void)prove;
	pb_machine_note_set(m, "plugtest_pmus", m->npmus);
	char buf[32];
	if (m->root[0] && pb_machine_read_file(m, SAVED_PATH, buf, sizeof buf) > 0)
		pb_machine_note_set(m, "plugtest_saved", strtoll(buf, NULL, 10));
}

static unsigned plug_machine_facts(const struct pb_machine *m, struct pb_machine_fact *out,
				   unsigned max)
{
	long long pmus = 0, saved = 0;
	bool known = pb_machine_note_get(m, "plugtest_pmus", &pmus);
	bool kept = pb_machine_note_get(m, "plugtest_saved", &saved);
	if (max < 2)
		return 0;
	pb_fact_number(&out[0], "plugtest_pmus", pmus, known, 4);
	out[0].label = "plugtest PMUs";
	snprintf(out[0].line, sizeof out[0].line, "%lld (seen by a facility registered at run time)",
		 pmus);
	out[0].tree_path = SAVED_PATH;
	snprintf(out[0].tree_text, sizeof out[0].tree_text, "%lld\n", pmus);
	pb_fact_number(&out[1], "plugtest_saved", saved, kept, 4);
	return 2;
}

static void plug_availability(const struct pb_machine *m, const struct pb_spec *spec,
			      struct pb_availability *out)
{
	(void)m;
	(void)spec;
	memset(out, 0, sizeof *out);
	out->available = true;
	snprintf(out->detail, sizeof out->detail, "a test's facility: nothing to open");
}

static const struct pb_facility plug_facility = {
	.name = "plugtest",
	.usage = "plugtest",
	.summary = "a facility defined in tests/test_plugin_probe.c",
	.needs = "nothing",
	.ip_kind = PB_IP_SKID,
	.availability = plug_availability,
	.probe_machine = plug_probe_machine,
	.machine_facts = plug_machine_facts,
};

/* `pesbench probe [--json] --root ROOT` in this process, what it printed. */
static char *run_probe(const char *root, bool json, int *rc)
{
	char *argv[] = {"probe", "--root", (char *)root, json ? "--json" : NULL, NULL};
	return pb_test_run_cmd(pb_cmd_probe, json ? 4 : 3, argv, rc);
}

/* The position of key among obj's members (JSON_PRESERVE_ORDER output keeps it), -1 if absent. */
static int member_index(json_t *obj, const char *key)
{
	int i = 0;
	const char *k;
	json_t *v;
	json_object_foreach(obj, k, v) {
		if (!strcmp(k, key))
			return i;
		i++;
	}
	return -1;
}

static json_t *probe_json(const char *root)
{
	int rc;
	char *text = run_probe(root, true, &rc);
	CHECK_EQ_U64(rc, 0);
	json_error_t je;
	json_t *doc = text ? json_loads(text, 0, &je) : NULL;
	CHECK_MSG(doc != NULL, "probe --json output parses");
	free(text);
	return doc;
}

static void test_text(const char *root, unsigned npmus)
{
	int rc;
	char *text = run_probe(root, false, &rc), want[128];
	CHECK_EQ_U64(rc, 0);
	snprintf(want, sizeof want, "\n  plugtest PMUs    %u (seen by a facility registered at "
		 "run time)\n", npmus);
	CHECK_STR_CONTAINS(text, want);
	/* its line follows the built-in facilities' facts, which keep their place */
	const char *ibs = strstr(text, "\n  IBS caps         0x00000817 ");
	CHECK_MSG(ibs && strstr(text, want) > ibs, "IBS caps, then the test facility's fact");
	free(text);
}

static void test_json(const char *root, unsigned npmus)
{
	json_t *doc = probe_json(root);
	json_t *machine = json_object_get(doc, "machine");
	CHECK_EQ_U64(json_integer_value(json_object_get(machine, "plugtest_pmus")), npmus);
	CHECK(json_is_null(json_object_get(machine, "plugtest_saved")));
	/* pesbench-probe/1's members keep their order: the facts sit where they always were */
	int is_root = member_index(machine, "is_root"), max_precise =
		member_index(machine, "max_precise"), ibs = member_index(machine, "ibs_caps"),
	    names = member_index(machine, "ibs_caps_names"), bp = member_index(machine, "bp_slots"),
	    bp_exec = member_index(machine, "bp_exec_slots"),
	    plug = member_index(machine, "plugtest_pmus"),
	    lost = member_index(machine, "has_format_lost");
	CHECK_MSG(is_root >= 0 && max_precise == is_root + 1 && ibs == is_root + 2 &&
			  names == is_root + 3 && bp == is_root + 4 && bp_exec == is_root + 5 &&
			  plug == is_root + 6 && lost == is_root + 8,
		  "machine members in order: is_root %d max_precise %d ibs_caps %d names %d "
		  "bp_slots %d bp_exec_slots %d plugtest_pmus %d has_format_lost %d",
		  is_root, max_precise, ibs, names, bp, bp_exec, plug, lost);
	CHECK_EQ_U64(json_integer_value(json_object_get(machine, "ibs_caps")), 0x817);
	json_decref(doc);
}

/* A capture bundle's tree keeps the fact where the facility said, and probing the tree reads it
 * back through the same hook. */
static void test_saved_tree(const struct pb_machine *m)
{
	char dir[] = "/tmp/pb-test-plugin-tree-XXXXXX";
	if (!mkdtemp(dir))
		pb_skip("cannot make a temporary directory");
	struct pb_error err = {0};
	CHECK_EQ_U64(pb_bundle_write_machine(dir, m, &err), 0);
	char path[256], buf[32] = "";
	snprintf(path, sizeof path, "%s" SAVED_PATH, dir);
	FILE *f = fopen(path, "r");
	CHECK_MSG(f != NULL, "%s written", path);
	if (f) {
		CHECK(fgets(buf, sizeof buf, f) != NULL);
		fclose(f);
	}
	CHECK_EQ_U64(strtoull(buf, NULL, 10), m->npmus);
	/* a built-in facility's fact goes the same way: IBS's caps, as bundles always kept them */
	snprintf(path, sizeof path, "%s/pesbench-ibs-caps", dir);
	f = fopen(path, "r");
	buf[0] = '\0';
	if (f) {
		CHECK(fgets(buf, sizeof buf, f) != NULL);
		fclose(f);
	}
	CHECK_MSG(!strcmp(buf, "00000817\n"), "%s holds \"%s\"", path, buf);
	json_t *doc = probe_json(dir);
	CHECK_EQ_U64(json_integer_value(json_object_get(json_object_get(doc, "machine"),
							"plugtest_saved")),
		     m->npmus);
	json_decref(doc);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK_EQ_U64(system(cmd), 0);
}

int main(void)
{
	CHECK_EQ_U64(pb_facility_register_extra(&plug_facility), 0);
	CHECK_MSG(pb_facility_register_extra(&plug_facility) == -1, "a second registration is refused");
	CHECK(pb_facility_find("plugtest") == &plug_facility);

	char root[512];
	const char *src = getenv("PB_SOURCE_DIR") ? getenv("PB_SOURCE_DIR") : PB_SOURCE_DIR;
	snprintf(root, sizeof root, "%s/tests/fixtures/sysfs-zen4", src);
	struct pb_machine m;
	pb_machine_probe(&m, root);
	long long noted = -1;
	CHECK(pb_machine_note_get(&m, "plugtest_pmus", &noted) && noted == m.npmus && m.npmus > 0);

	test_text(root, m.npmus);
	test_json(root, m.npmus);
	test_saved_tree(&m);
	return pb_check_done("plugin_probe");
}
