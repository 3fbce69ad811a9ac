#include "present/summary.h"

#include "util/text.h"

#include <stdbool.h>
#include <string.h>

static double num(json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

static void point_row(FILE *out, json_t *p)
{
	const char *exp = json_string_value(json_object_get(p, "experiment"));
	const char *fac = json_string_value(json_object_get(p, "facility"));
	const char *wl = json_string_value(json_object_get(p, "workload"));
	char workload[40];
	pb_format(workload, sizeof workload, "%s", wl && *wl ? wl : "-");
	json_t *na = json_object_get(p, "not_applicable"), *error = json_object_get(p, "error");
	if (na || error) {
		fprintf(out, "%-9s %-16s %-28s %s: %.80s\n", exp, fac, workload,
			na ? "n/a" : "ERROR", json_string_value(na ? na : error));
		return;
	}
	json_t *m = json_object_get(p, "metrics");
	json_t *acc = json_object_get(m, "accuracy");
	json_t *ratio = json_object_get(m, "running_ratio");
	char accuracy[48] = "      -";
	if (acc)
		pb_format(accuracy, sizeof accuracy, "%8.3f %6.3f %8.3f-%-8.3f", num(acc, "mean"),
			  num(acc, "stdev"), num(acc, "min"), num(acc, "max"));
	char note[128] = "";
	json_t *v;
	json_int_t empty = json_integer_value(json_object_get(m, "no_samples_runs"));
	if (empty) {
		if (!acc)
			pb_format(accuracy, sizeof accuracy, "%-41s", "  NO SAMPLES");
		pb_format(note, sizeof note, "NO SAMPLES in %lld of %zu runs; ", (long long)empty,
			  json_array_size(json_object_get(p, "runs")));
	}
	if (json_integer_value(json_object_get(m, "precise_lowered_runs"))) {
		json_t *ev = json_array_get(
			json_object_get(json_array_get(json_object_get(p, "runs"), 0), "events"), 0);
		size_t n = strlen(note);
		pb_format(note + n, sizeof note - n, "pp LOWERED %lld->%lld; ",
			  (long long)json_integer_value(json_object_get(ev, "precise_requested")),
			  (long long)json_integer_value(json_object_get(ev, "precise_granted")));
	}
	json_int_t missed = json_integer_value(json_object_get(m, "missed_ticks_total"));
	if (missed) {
		size_t n = strlen(note);
		pb_format(note + n, sizeof note - n, "missed %lld ticks; ", (long long)missed);
	}
	json_int_t dropped = json_integer_value(json_object_get(m, "dropped_total"));
	if (dropped) {
		size_t n = strlen(note);
		pb_format(note + n, sizeof note - n, "DROPPED %lld unparseable records; ",
			  (long long)dropped);
	}
	size_t used = strlen(note);
	if ((v = json_object_get(m, "max_deviation")))
		pb_format(note + used, sizeof note - used, "max dev %.2f pp (%s)", json_number_value(v),
			  json_string_value(json_object_get(m, "attribution")));
	else if ((v = json_object_get(m, "wrong_level_by_flag")))
		pb_format(note + used, sizeof note - used, "%s: wrong level %lld flag / %lld ip of %lld",
			  json_string_value(json_object_get(p, "levels")),
			  (long long)json_integer_value(v),
			  (long long)json_integer_value(json_object_get(m, "wrong_level_by_ip")),
			  (long long)json_integer_value(json_object_get(m, "samples_total")));
	else if ((v = json_object_get(p, "events_opened_together")))
		pb_format(note + used, sizeof note - used, "%lld events, %lld scheduled",
			  (long long)json_integer_value(v),
			  (long long)json_integer_value(json_object_get(p, "events_scheduled")));
	else if ((v = json_object_get(m, "ns_per_sample")) && json_object_get(m, "r2"))
		pb_format(note + used, sizeof note - used, "fit: %.0f ns/sample +-%.0f, R2 %.3f (%s)%s",
			  json_number_value(v), num(m, "ci95_ns"), num(m, "r2"),
			  json_string_value(json_object_get(p, "delivery")),
			  json_is_false(json_object_get(m, "resolved")) ? " NOT RESOLVED" : "");
	else if ((v = json_object_get(m, "error_pct")))
		pb_format(note + used, sizeof note - used, "predicted vs measured: %+.1f %%",
			  json_is_object(v) ? num(v, "median") : json_number_value(v));
	else if ((v = json_object_get(m, "time_overhead_pct")))
		pb_format(note + used, sizeof note - used, "%s: time %+.1f %%, memory %+.1f %%%s",
			  json_string_value(json_object_get(p, "delivery")),
			  json_is_object(v) ? num(v, "median") : json_number_value(v),
			  num(m, "memory_overhead_pct"),
			  json_object_get(m, "loss_pct") ? " (buffer)" : "");
	else if ((v = json_object_get(p, "period_kind")))
		pb_format(note + used, sizeof note - used, "%s period", json_string_value(v));
	if (json_object_get(p, "variant")) {
		size_t n = strlen(note);
		pb_format(note + n, sizeof note - n, " %s",
			  json_string_value(json_object_get(p, "variant")));
	}
	/* the flags above end in "; " for what follows; nothing may follow */
	size_t end = strlen(note);
	while (end && (note[end - 1] == ' ' || note[end - 1] == ';'))
		note[--end] = '\0';
	fprintf(out, "%-9s %-16s %-28s %9lld %3lld %s %8lld %5.3f %s\n", exp, fac, workload,
		(long long)json_integer_value(json_object_get(p, "period")),
		(long long)json_integer_value(json_object_get(p, "threads")), accuracy,
		(long long)json_integer_value(json_object_get(m, "lost_total")),
		ratio ? num(ratio, "min") : 1.0, note);
}

static void bias_table(FILE *out, json_t *points)
{
	size_t i;
	json_t *p;
	bool header = false;
	json_array_foreach(points, i, p) {
		json_t *shares = json_object_get(json_object_get(p, "metrics"), "shares");
		if (!shares)
			continue;
		if (!header) {
			fprintf(out, "\nbias: mean share of samples per load (ideal 25%%), at the IP "
				     "and IP+1-corrected\n");
			header = true;
		}
		fprintf(out, "  %s %s period %lld:\n",
			json_string_value(json_object_get(p, "facility")),
			json_string_value(json_object_get(p, "workload")),
			(long long)json_integer_value(json_object_get(p, "period")));
		size_t j;
		json_t *s;
		json_array_foreach(shares, j, s)
			fprintf(out, "    %-24s %-30s at-ip %6.2f%%  before-ip %6.2f%%\n",
				json_string_value(json_object_get(s, "label")),
				json_string_value(json_object_get(s, "insn")),
				num(s, "share_at_ip"), num(s, "share_before_ip"));
	}
}

void pb_summary_print(FILE *out, json_t *results)
{
	json_t *points = json_object_get(results, "points");
	fprintf(out, "%-9s %-16s %-28s %9s %3s %8s %6s %17s %8s %5s %s\n", "exp", "facility",
		"workload", "period", "thr", "accuracy", "stdev", "min-max", "lost", "run/en",
		"notes");
	size_t i;
	json_t *p;
	json_array_foreach(points, i, p) point_row(out, p);
	bias_table(out, points);
	json_t *skipped = json_object_get(results, "skipped");
	if (json_array_size(skipped)) {
		fprintf(out, "\nnot run here:\n");
		json_array_foreach(skipped, i, p)
			fprintf(out, "  %-28s %s\n", json_string_value(json_object_get(p, "facility")),
				json_string_value(json_object_get(p, "reason")));
	}
	if (!json_is_true(json_object_get(results, "complete")))
		fprintf(out, "\nINCOMPLETE: the suite was interrupted; the rows above are what was "
			     "measured.\n");
}
