/* multi's count of scheduled events from a constructed run: an event counts when it opened and
 * the kernel gave it running time; one the kernel refused or never put on the PMU does not. */
#include "check.h"
#include "experiments/experiment.h"

static void event(struct pb_rlist *evs, bool opened, int64_t running)
{
	struct pb_rset *ev = pb_rlist_set(evs);
	pb_rset_bool(ev, "opened", opened);
	pb_rset_int(ev, "time_enabled", PB_UNIT_NS, 1000000);
	pb_rset_int(ev, "time_running", PB_UNIT_NS, running);
}

int main(void)
{
	struct pb_rlist evs = {0};
	CHECK_EQ_U64(pb_multi_scheduled(&evs), 0);
	CHECK_EQ_U64(pb_multi_scheduled(NULL), 0);
	event(&evs, true, 1000000);
	event(&evs, true, 250000);   /* multiplexed: ran a quarter */
	CHECK_EQ_U64(pb_multi_scheduled(&evs), 2);
	event(&evs, true, 0);        /* opened, never ran */
	event(&evs, false, 0);       /* refused (a fifth debug register) */
	CHECK_EQ_U64(pb_multi_scheduled(&evs), 2);
	pb_rset_bool(pb_rlist_set(&evs), "opened", true); /* no running time read */
	CHECK_EQ_U64(pb_multi_scheduled(&evs), 2);
	pb_rlist_clear(&evs);
	return pb_check_done("multi");
}
