/* Fuzzes what `pesbench report` does with a results.json it did not write: any JSON with a
 * points array (given this pesbench's schema, so the schema check does not stop it short) is
 * read into the results document, planned into plots and rendered as the HTML page. Nothing
 * is written to disk. The page must be whole. */
#include "experiments/experiment.h"
#include "io/results.h"
#include "present/plot.h"
#include "present/report.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *root = json_loadb((const char *)data, size, 0, NULL);
	if (!root)
		return 0;
	if (!json_is_array(json_object_get(root, "points"))) {
		json_decref(root);
		return 0;
	}
	json_object_set_new(root, "schema", json_string(PB_RESULTS_SCHEMA));
	char *text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	struct pb_results doc;
	int rc = text ? pb_results_load_buffer(text, strlen(text), "fuzz input", &doc, NULL) : -1;
	free(text);
	if (rc)
		return 0;
	struct pb_plot_set set;
	if (pb_plots_make(&doc, "/nonexistent/pesbench-fuzz", false, pb_experiment_summary, &set,
			  NULL) == 0) {
		size_t len = 0;
		char *html = pb_report_html(&doc, &set, pb_experiment_summary, &len);
		if (html && (len < 16 || !strstr(html, "</html>")))
			abort();
		free(html);
	}
	pb_plot_set_free(&set);
	pb_results_free(&doc);
	return 0;
}
