/* Internal to `compare` (compare.c lines the records up, compare_view.c shows them as text,
 * JSON and HTML): the comparison's runs, tables, rows and cells. */
#ifndef PB_COMPARE_PARTS_H
#define PB_COMPARE_PARTS_H

#include "present/compare.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define MAX_RUNS 64

struct run {
	char id[256], label[128], name[8], group[256], source[4200];
	const json_t *machine;   /* borrowed from the first record of the run */
	json_t *scorecard;       /* the run's scorecard records */
	const json_t *load;      /* its "run" record's load, borrowed; NULL when it has none */
	int exit_code;           /* from its "done" record; -1 when it has none */
	bool complete;
};

struct cell {
	const json_t *rec;
	double value, lo, hi;
	bool has_interval, resolved;
};

struct row {
	char key[1024];
	char facility[256], kind[256], workload[256], settings[512], metric[64], unit[24];
	char rest[768];          /* what tells it from the other rows of its facility */
	struct cell cells[MAX_RUNS];
};

struct table {
	char experiment[64];
	char common[2048];       /* per facility, its workload and settings common to its rows */
	char differs[1024];      /* "delivery: A none, B signal; ..." */
	bool several_metrics;
	struct row *rows;
	size_t nrows, cap;
};

struct level_memo {
	char experiment[64], name[48];
	bool run_level;
};

struct pb_compare {
	json_t *records;
	struct level_memo *memo;
	size_t nmemo;
	size_t nargs;            /* arguments added so far */
	struct run runs[MAX_RUNS];
	size_t nruns;
	size_t order[MAX_RUNS];  /* column i shows runs[order[i]] */
	struct table *tables;
	size_t ntables;
};

/* A record's text field, "" when it has none. */
static inline const char *text_of(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

#endif
