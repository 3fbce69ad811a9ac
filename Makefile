# Quick start: `make run` (install, build, run the default suite) and `make check` (all tests).
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc)
FUZZ_SECONDS ?= 20
OUT        ?= results
PREFIX     ?= /usr/local

.PHONY: all deps test-deps build program build-asan install run docs check test test-asan memcheck fuzz fuzz-smoke check-arm64 check-riscv64 bench-engine bench-analysis bench-peer bench-cost bench-cost-rate cross-arm64 cross-riscv64 clean

all: build

deps:
	@bash scripts/install-deps.sh

test-deps:
	@bash scripts/install-deps.sh --test
	@# speedscope's schema and offline page, the export tests' judges (npm, into .cache/)
	@bash scripts/fetch-speedscope.sh >/dev/null || echo "speedscope not fetched: tests/cli_export*.sh will say they skip its checks"

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPB_WERROR=ON

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The pesbench program alone, not the libraries' extra artefacts nor the test programs: what
# `make run` and the benchmarks need.
program: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target pesbench

# pesbench, libpesbench (.a and .so), include/pesbench/, pesbench.pc and pesbench(1) under PREFIX
# (default /usr/local); then `pkg-config --cflags --libs pesbench` builds a program on the library.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

$(ASAN_BUILD)/CMakeCache.txt:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DPB_SANITIZE=ON -DPB_WERROR=ON

build-asan: deps $(ASAN_BUILD)/CMakeCache.txt
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# The default suite: every experiment on every facility this machine has (about 2 minutes
# on a 2-core VM); the facilities it cannot run are listed with the reason.
run: program
	./$(BUILD)/pesbench probe
	./$(BUILD)/pesbench run $(if $(RUN_ARGS),$(RUN_ARGS),)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: build-asan
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j $(JOBS)

# What is generated from the code: the facility and command tables in README.md and docs/, and
# the bash completion completion/pesbench.bash; a test fails when they are stale.
docs: build
	@bash scripts/gen-docs.sh ./$(BUILD)/pesbench

$(FUZZ_BUILD)/CMakeCache.txt:
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DPB_FUZZ=ON -DPB_WERROR=ON

# Every fuzz target for FUZZ_SECONDS each, starting from its seed corpus in fuzz/corpus/.
fuzz: deps $(FUZZ_BUILD)/CMakeCache.txt
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	@JOBS=$(JOBS) bash scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=10

# The unit tests under valgrind memcheck, JOBS at a time: no memory error, no definitely lost
# block (~100 s on kind B; scripts/memcheck.sh lists the tests it leaves out and why).
memcheck: build
	@JOBS=$(JOBS) bash scripts/memcheck.sh $(BUILD)

# Every stage runs (build, tests, tests under ASan+UBSan, memcheck, fuzz, the Release and Debug
# builds with gcc and clang, the arm64 and riscv64 guests); the last line sums up tests and skipped checks per reason.
check: test-deps
	@BUILD=$(BUILD) ASAN_BUILD=$(ASAN_BUILD) JOBS=$(JOBS) FUZZ_SECONDS=10 bash scripts/check.sh

# An aarch64 pesbench, statically linked, cross-built here: build-arm64/pesbench (installs
# gcc-aarch64-linux-gnu and the arm64 -dev packages it needs; cmake/aarch64-linux-gnu.cmake).
ARM64_BUILD ?= build-arm64
cross-arm64:
	@JOBS=$(JOBS) bash scripts/cross-arm64.sh $(ARM64_BUILD)

# The cross-built pesbench on a real PMU driver: an arm64 kernel under QEMU (-icount shift=0,
# cycles == instructions), its results checked on the host; under 4 minutes with installation.
check-arm64:
	@ARM64_BUILD=$(ARM64_BUILD) JOBS=$(JOBS) bash scripts/check-arm64.sh

# A riscv64 pesbench, statically linked: build-riscv64/pesbench. Debian 12 has no riscv64
# architecture: its libraries are cross-built from Debian's sources (scripts/riscv64-deps.sh,
# cached in /var/cache/pesbench); cmake/riscv64-linux-gnu.cmake. See docs/riscv64.md.
RISCV64_BUILD ?= build-riscv64
cross-riscv64:
	@JOBS=$(JOBS) bash scripts/cross-riscv64.sh $(RISCV64_BUILD)

# pesbench on Linux's riscv_pmu_sbi driver: a kernel built from Debian's linux-source-6.1
# (cached by its config fragment's hash) under qemu-system-riscv64 -icount shift=0, its results
# checked on the host (tests/riscv64/check_results.py). Times in docs/riscv64.md.
check-riscv64:
	@RISCV64_BUILD=$(RISCV64_BUILD) JOBS=$(JOBS) bash scripts/check-riscv64.sh

bench-engine: program
	@bash bench/engine.sh ./$(BUILD)/pesbench

# pesbench's delivery modes vs perf record on one workload, facility and period (bench/peer.sh).
bench-peer: program
	@bash bench/peer.sh ./$(BUILD)/pesbench

# The cost of one timer sample: pesbench's fit vs perf record at two periods (bench/cost.sh).
bench-cost: program
	@bash bench/cost.sh ./$(BUILD)/pesbench

# What one timer sample costs the busy loop and the pointer chase at each of several periods
# (bench/cost-by-rate.sh): whether a sample is one cost at every rate.
bench-cost-rate: program
	@bash bench/cost-by-rate.sh ./$(BUILD)/pesbench

# perf.data reading speed and peak RSS: pesbench's per-IP histogram vs perf script and perf report.
bench-analysis: program
	@bash bench/analysis.sh ./$(BUILD)/pesbench

# Every deterministic output of BASE (a revision; default main) and of this working tree, byte
# for byte; exit 1 on a difference (docs/outputs.md): make output-compare BASE=f4910b6
.PHONY: output-compare
output-compare:
	@bash scripts/output-compare.sh $(if $(BASE),$(BASE),main)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
