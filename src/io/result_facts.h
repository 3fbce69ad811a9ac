/* The facilities' hardware facts of a results document's machine, by which report.html names
 * each fact's row without knowing any facility: results.json's machine document (its probe
 * document) lists them in "facts", each {"key", "value", "title"} (io/probe_json.h).
 *
 * Fallback, for a document that has no "facts" list (written before the list existed: its
 * facts are members of "machine" like any other): the title this build's facilities give the
 * key (pb_machine_fact_title), as report.html's own table named them then. This file and
 * io/result_traits.c are the only readers of results that consult the registry, and only for
 * such documents. */
#ifndef PB_RESULT_FACTS_H
#define PB_RESULT_FACTS_H

#include "io/result_model.h"

/* The title of the machine member key when it is a facility's fact with a title; NULL when it
 * is not a fact, or a fact without one (its name then reads as any member's). probe_doc: the
 * results' machine document ({schema, machine, facilities, facts}). */
const char *pb_result_fact_title(const struct pb_rset *probe_doc, const char *key);

#endif
