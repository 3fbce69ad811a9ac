/* Tests that build result points by hand write them as results.json would hold them and read
 * them through the loader into the typed document; what an experiment computed on the typed
 * point is read back as results.json holds it, so assertions stay on the written document. */
#ifndef PB_TEST_RESULTS_JSON_H
#define PB_TEST_RESULTS_JSON_H

#include "experiments/experiment.h"
#include "io/results.h"

/* Reads point (a JSON object, consumed) into doc, emptied first, and returns doc's point. */
struct pb_result_point *pb_test_point_of_json(struct pb_results *doc, json_t *point);
/* Reads a whole results.json document (root, borrowed) into doc, as `pesbench report` would. */
void pb_test_results_of_json(struct pb_results *doc, const json_t *root);
/* doc's points as results.json holds them (a new reference). */
json_t *pb_test_points_json(const struct pb_results *doc);
/* doc's point i as results.json holds it (a new reference), NULL when there is none. */
json_t *pb_test_point_json(const struct pb_results *doc, size_t i);
/* Sets point's "metrics" (a JSON point with runs, changed in place) to what pb_point_metrics
 * computes from its runs. */
void pb_test_point_metrics(json_t *point);
/* One measured run's record (pb_point_record) as results.json holds it (a new reference). */
json_t *pb_test_run_json(const struct pb_point_request *req, const struct pb_point *pt);
/* A single-event request for facility on workload at period, for iterations, on machine m
 * (NULL: this machine); a request that does not parse fails the test. */
void pb_test_request(struct pb_point_request *req, const char *facility, const char *workload,
		     uint64_t period, uint64_t iterations, const struct pb_machine *m);
/* Checks, as test assertions, that doc gives no field name two units, and that every field
 * with a unit has the unit a pesbench-results/1 file's field of that name is read with. */
void pb_test_check_units(const struct pb_results *doc);
/* The scorecard entry of a facility in a results document; NULL when it has none. */
const struct pb_rset *pb_test_card_of(const struct pb_results *doc, const char *facility);
/* Opens results in a folder of its own made from template (a mkdtemp template such as
 * "/tmp/pb-test-x-XXXXXX", filled in place), so that two copies of a test running at once (ctest
 * -j beside the output snapshot, which runs tests too) never write each other's results. */
void pb_test_results_in_tmp(char *template, struct pb_results *res, const char *test);
/* Closes res and removes its folder. */
void pb_test_results_remove(struct pb_results *res, const char *dir);
/* A written file (report.html, a plot's script) whole, malloc'd; NULL when it cannot be read. */
char *pb_test_read_file(const char *path);

#endif
