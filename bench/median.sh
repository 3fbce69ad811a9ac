# Shared by the benchmarks (sourced): the median of numbers on stdin, and a distribution-free
# 95 % interval for it.
median() { sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# The order-statistic interval for the median: [v_k, v_(n+1-k)] with the largest k whose
# two-sided binomial(n, 1/2) coverage is still >= 95 %; prints "lo hi coverage%" or "- - -".
median_ci() { sort -g | awk '{v[NR] = $1} END {
	n = NR; p = 0.5 ^ n; below = 0; k = 0; cover = 0
	for (j = 0; j < n; j++) {
		below += p # P(B <= j), B ~ binomial(n, 1/2)
		if (2 * below > 0.05) break
		k = j + 1; cover = 1 - 2 * below; p = p * (n - j) / (j + 1)
	}
	if (k < 1) { print "- - -"; exit }
	printf "%s %s %.1f\n", v[k], v[n + 1 - k], 100 * cover }'; }
