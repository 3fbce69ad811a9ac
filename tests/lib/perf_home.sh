# perf's build-id cache is $HOME/.debug. Sourced by the tests that run perf beside other tests
# (ctest -j): each keeps its own cache in its scratch folder, so a perf record in one test never
# hands perf script in another a half-written copy of a binary.
# Needs: work (a scratch folder).
mkdir -p "$work/perf-home"
perf() { HOME="$work/perf-home" command perf "$@"; }
