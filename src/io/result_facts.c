/* A results document's facility facts, named by the list the writing build kept; the registry
 * only for documents without one (result_facts.h). */
#include "io/result_facts.h"

#include "facilities/machine.h"

#include <string.h>

const char *pb_result_fact_title(const struct pb_rset *probe_doc, const char *key)
{
	const struct pb_rvalue *listed = pb_rset_get(probe_doc, "facts");
	if (!listed)
		return pb_machine_fact_title(key);
	const struct pb_rlist *facts = pb_rset_get_list(probe_doc, "facts");
	for (size_t i = 0; i < pb_rlist_size(facts); i++) {
		const struct pb_rset *fact = pb_rlist_set_at(facts, i);
		const char *name = fact ? pb_rset_get_text(fact, "key") : NULL;
		if (name && !strcmp(name, key))
			return pb_rset_get_text(fact, "title");
	}
	return NULL;
}
