/* A cost fit's rate model read back from its point's metrics (experiments/cost_fit.c writes
 * them). */
#include "io/rate_model.h"

#include "util/kit.h"

#include <math.h>
#include <string.h>

bool pb_rate_model_read(const struct pb_rset *m, struct pb_rate_model *rm)
{
	memset(rm, 0, sizeof *rm);
	static const char *const names[] = {"rate_ref_period", "rate_top_period",
					    "rate_ns_at_ref", "rate_ns_at_ref_se",
					    "rate_ns_per_decade", "rate_ns_per_decade_se",
					    "rate_correlation", "rate_t95"};
	double v[PB_ARRAY_SIZE(names)];
	for (size_t k = 0; k < PB_ARRAY_SIZE(names); k++) {
		bool has;
		v[k] = pb_rset_get_number(m, names[k], &has);
		if (!has || !isfinite(v[k]))
			return false;
	}
	/* periods of at least 1 and at most 1e18 (ns: 31 years) convert to integers whole */
	if (!(v[0] >= 1 && v[1] >= v[0] && v[1] <= 1e18 && v[3] >= 0 && v[5] >= 0 &&
	      fabs(v[6]) <= 1 && v[7] > 0))
		return false;
	struct pb_fit2 *g = &rm->fit;
	g->coef[1] = v[2];
	g->coef[2] = v[4];
	g->cov[1][1] = v[3] * v[3];
	g->cov[2][2] = v[5] * v[5];
	g->cov[1][2] = g->cov[2][1] = v[6] * v[3] * v[5];
	g->t95 = v[7];
	rm->ref_period = (uint64_t)v[0];
	rm->top_period = (uint64_t)v[1];
	rm->dependent = pb_rset_is_true(m, "rate_dependent");
	rm->fitted = true;
	return true;
}
