/* Fuzzes what `pesbench report` does with a results.json it did not write: any JSON with a
 * points array (the schema check is left out to reach further) is planned into plots and
 * rendered as the HTML page. Nothing is written to disk. The page must be whole. */
#include "experiments/experiment.h"
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
	struct pb_plot_set set;
	if (pb_plots_make(root, "/nonexistent/pesbench-fuzz", false, pb_experiment_summary, &set,
			  NULL) == 0) {
		size_t len = 0;
		char *html = pb_report_html(root, &set, pb_experiment_summary, &len);
		if (html && (len < 16 || !strstr(html, "</html>")))
			abort();
		free(html);
	}
	pb_plot_set_free(&set);
	json_decref(root);
	return 0;
}
