/* multi's count of scheduled events from a constructed run: an event counts when it opened and
 * the kernel gave it running time; one the kernel refused or never put on the PMU does not. */
#include "check.h"
#include "experiments/experiment.h"

static json_t *event(bool opened, json_int_t running)
{
	return json_pack("{s:b, s:I, s:I}", "opened", opened, "time_enabled", (json_int_t)1000000,
			 "time_running", running);
}

int main(void)
{
	json_t *evs = json_array();
	CHECK_EQ_U64(pb_multi_scheduled(evs), 0);
	CHECK_EQ_U64(pb_multi_scheduled(NULL), 0);
	json_array_append_new(evs, event(true, 1000000));
	json_array_append_new(evs, event(true, 250000));   /* multiplexed: ran a quarter */
	CHECK_EQ_U64(pb_multi_scheduled(evs), 2);
	json_array_append_new(evs, event(true, 0));        /* opened, never ran */
	json_array_append_new(evs, event(false, 0));       /* refused (a fifth debug register) */
	CHECK_EQ_U64(pb_multi_scheduled(evs), 2);
	json_array_append_new(evs, json_pack("{s:b}", "opened", true)); /* no running time read */
	CHECK_EQ_U64(pb_multi_scheduled(evs), 2);
	json_decref(evs);
	return pb_check_done("multi");
}
