#include "io/run_files.h"

#include "io/figures.h"
#include "io/probe_json.h"
#include "io/results.h"
#include "util/kit.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

const char *pb_run_files_default_dir(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(buf, len, "results/%Y%m%dT%H%M%SZ", &tm);
	return buf;
}

int pb_run_files_check_new(const char *dir, struct pb_error *err)
{
	static const char *const names[] = {"results.json", "results.jsonl", "results.csv",
					    "report.html", "plots"};
	for (size_t i = 0; i < PB_ARRAY_SIZE(names); i++) {
		char path[4200];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (!lstat(path, &st))
			return pb_fail(err, PB_EXIT_OUTPUT, 0,
				       "--out %s already holds results (%s): choose a new folder, or "
				       "remove that one first; a run never mixes its files with an "
				       "earlier run's", dir, names[i]);
	}
	return 0;
}

void pb_run_files_identify(struct pb_results *res, const struct pb_machine *m)
{
	json_t *probe = pb_probe_json(m);
	json_object_set_new(probe, "facts", pb_machine_facts_json(m));
	pb_figures_identify_machine(probe);
	pb_results_set_machine(res, probe);
	char run_id[384];
	pb_figures_new_run_id(run_id, sizeof run_id);
	pb_rset_text(&res->head, "run_id", run_id);
	json_decref(probe);
}

int pb_run_files_write_records(const struct pb_results *res, int rc, struct pb_error *err)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/results.json", res->dir);
	const char *base = strrchr(res->dir, '/');
	json_t *records;
	if (pb_figures_of_file(path, base && base[1] ? base + 1 : res->dir, rc, &records, err))
		return -1;
	int failed = pb_figures_write_jsonl(res->dir, records, err);
	json_decref(records);
	return failed;
}
