/* The facilities' own hardware facts in results: results.json's machine document lists them
 * ("facts", each with its facility's title) and report.html names each fact's row from that
 * list, so the page shows a title no registry knows; a document written before the list reads
 * with the titles this build's facilities give (io/result_facts.h), and its page is
 * byte-identical to the page of the same document with the list. */
#include "check.h"
#include "fixture.h"
#include "facilities/machine.h"
#include "io/probe_json.h"
#include "io/result_facts.h"
#include "io/results.h"
#include "io/run_files.h"
#include "present/report.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const json_t *fact_of(const json_t *facts, const char *key)
{
	size_t i;
	const json_t *f;
	json_array_foreach(facts, i, f) if (!strcmp(json_string_value(json_object_get(f, "key")), key))
		return f;
	return NULL;
}

/* a and b both a text, and the same */
static bool same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static const char *title_of(const json_t *fact)
{
	return json_string_value(json_object_get(fact, "title"));
}

/* The list of a Skylake machine: each fact's value as the "machine" object holds it, and its
 * title where its facility gives one. */
static void test_list(const struct pb_machine *skl)
{
	json_t *facts = pb_machine_facts_json(skl);
	json_t *probe = pb_probe_json(skl);
	const json_t *machine = json_object_get(probe, "machine");
	CHECK(json_array_size(facts) >= 5);
	size_t i;
	const json_t *f;
	json_array_foreach(facts, i, f) {
		const char *key = json_string_value(json_object_get(f, "key"));
		CHECK_MSG(key && json_equal(json_object_get(f, "value"), json_object_get(machine, key)),
			  "fact %zu (%s) has the value of the machine's member", i, key ? key : "?");
	}
	const json_t *precise = fact_of(facts, "max_precise");
	CHECK(precise && json_integer_value(json_object_get(precise, "value")) == 3);
	CHECK(precise && same(title_of(precise), "highest precise level"));
	const json_t *caps = fact_of(facts, "ibs_caps");
	CHECK(caps && json_is_null(json_object_get(caps, "value")) && !title_of(caps));
	const json_t *names = fact_of(facts, "ibs_caps_names");
	CHECK(names && same(title_of(names), "IBS capabilities"));
	const json_t *slots = fact_of(facts, "bp_exec_slots");
	CHECK(slots && same(title_of(slots), "execute-breakpoint slots"));
	json_decref(probe);
	json_decref(facts);
}

/* A run's results carry the list beside the machine. */
static void test_run_writes_list(const struct pb_machine *skl)
{
	struct pb_results r;
	pb_results_init(&r);
	pb_run_files_identify(&r, skl);
	const struct pb_rlist *facts = pb_rset_get_list(&r.machine, "facts");
	CHECK(pb_rlist_size(facts) >= 5);
	CHECK(pb_rset_get_set(&r.machine, "machine") != NULL);
	CHECK(same(pb_result_fact_title(&r.machine, "max_precise"), "highest precise level"));
	CHECK(pb_result_fact_title(&r.machine, "kernel") == NULL);
	pb_results_free(&r);
}

/* The page of results whose machine document is probe (with or without the list). */
static char *page(const json_t *probe)
{
	json_t *doc = json_pack("{s:s, s:O, s:[]}", "schema", PB_RESULTS_SCHEMA, "machine", probe,
				"points");
	char *text = json_dumps(doc, 0);
	struct pb_results r;
	struct pb_error err;
	pb_results_init(&r);
	CHECK(pb_results_load_buffer(text, strlen(text), "facts", &r, &err) == 0);
	size_t len;
	char *html = pb_report_html(&r, NULL, NULL, &len);
	CHECK(html != NULL);
	pb_results_free(&r);
	free(text);
	json_decref(doc);
	return html;
}

static void test_report(const struct pb_machine *skl)
{
	json_t *old = pb_probe_json(skl);
	json_t *listed = json_deep_copy(old);
	json_object_set_new(listed, "facts", pb_machine_facts_json(skl));
	char *with_list = page(listed), *without = page(old);
	CHECK_STR_CONTAINS(with_list, "<tr><th>highest precise level</th><td>3</td></tr>");
	CHECK_STR_CONTAINS(with_list, "<tr><th>breakpoint slots</th>");
	CHECK_MSG(!strcmp(with_list, without),
		  "a document without the list gives the page it gave before the list existed");
	free(without);

	/* The titles are the list's, whatever this build's facilities call them: a retitled fact
	 * and a fact of a facility no registry knows. */
	json_t *facts = json_object_get(listed, "facts");
	json_object_set_new((json_t *)fact_of(facts, "max_precise"), "title",
			    json_string("precise level as its writer named it"));
	json_array_append_new(facts, json_pack("{s:s, s:i, s:s}", "key", "plugged_widgets", "value",
					       5, "title", "widgets of a plugged facility"));
	json_object_set_new(json_object_get(listed, "machine"), "plugged_widgets",
			    json_integer(5));
	char *retitled = page(listed);
	CHECK_STR_CONTAINS(retitled, "<tr><th>precise level as its writer named it</th><td>3</td>");
	CHECK(!strstr(retitled, "highest precise level"));
	CHECK_STR_CONTAINS(retitled, "<tr><th>widgets of a plugged facility</th><td>5</td>");
	free(retitled);
	free(with_list);
	json_decref(listed);
	json_decref(old);
}

/* Without a list, the registry's titles (the fallback); a key no facility gives has none. */
static void test_fallback(void)
{
	struct pb_rset doc = {0};
	CHECK(same(pb_result_fact_title(&doc, "ibs_caps_names"), "IBS capabilities"));
	CHECK(same(pb_result_fact_title(&doc, "bp_slots"), "breakpoint slots"));
	CHECK(pb_result_fact_title(&doc, "ibs_caps") == NULL);
	CHECK(pb_result_fact_title(&doc, "kernel") == NULL);
}

int main(void)
{
	struct pb_machine skl;
	pb_test_fixture(&skl, "sysfs-skl");
	test_list(&skl);
	test_run_writes_list(&skl);
	test_report(&skl);
	test_fallback();
	return pb_check_done("result_facts");
}
