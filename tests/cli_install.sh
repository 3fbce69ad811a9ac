#!/usr/bin/env bash
# The installed library as a user builds on it: `cmake --install` (what `make install PREFIX=`
# runs) into a fresh prefix, then tests/programs/count_samples.c compiled against it with
# `pkg-config --cflags --libs pesbench`, linked once with the shared and once with the static
# library, reads perf.data files (one recorded here by perf when it can, and perf 6.1's file and
# pipe-mode recordings from the fuzz corpus) and must count the samples `pesbench perfdata
# --json` counts. The shared object must export the public API only. The installed man page
# must render and describe every command `pesbench --help` lists.
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
: "${PB_SOURCE_DIR:?PB_SOURCE_DIR must name the source tree}"
: "${PB_BUILD_DIR:?PB_BUILD_DIR must name the build tree}"
command -v pkg-config >/dev/null || { echo "pkg-config is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 77; }
cc=${CC:-cc}
command -v "$cc" >/dev/null || { echo "no C compiler"; exit 77; }
work=$(mktemp -d /tmp/pb_install.XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

prefix=$work/prefix
if ! cmake --install "$PB_BUILD_DIR" --prefix "$prefix" >"$work/install.log" 2>&1; then
	cat "$work/install.log"
	echo "FAIL: cmake --install"
	exit 1
fi
for f in bin/pesbench include/pesbench/pesbench.h lib/pkgconfig/pesbench.pc lib/libpesbench.a \
	share/man/man1/pesbench.1 share/bash-completion/completions/pesbench; do
	[ -e "$prefix/$f" ] || fail "not installed: $f"
done
# Internal headers stay private.
[ -z "$(find "$prefix/include" -name '*.h' ! -path '*/include/pesbench/*')" ] ||
	fail "headers outside include/pesbench installed"
shared=no
[ -e "$prefix/lib/libpesbench.so" ] && shared=yes
grep -q '^PB_STATIC:BOOL=ON' "$PB_BUILD_DIR/CMakeCache.txt" 2>/dev/null ||
	[ $shared = yes ] || fail "no shared library installed"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cflags=$(pkg-config --cflags pesbench) || fail "pkg-config --cflags pesbench"
libs=$(pkg-config --libs pesbench) || fail "pkg-config --libs pesbench"
static_libs=$(pkg-config --static --libs pesbench | sed 's/-lpesbench\b/-l:libpesbench.a/')
extra=()
# A sanitized build's library needs the sanitizer runtime in the program too.
if grep -q '^PB_SANITIZE:BOOL=ON' "$PB_BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
	extra=(-fsanitize=address,undefined)
fi
src=$PB_SOURCE_DIR/tests/programs/count_samples.c
strict=(-std=c11 -Wall -Wextra -Werror -pedantic)
progs=()
if [ $shared = yes ]; then
	# shellcheck disable=SC2086
	if "$cc" "${strict[@]}" "${extra[@]}" $cflags "$src" -o "$work/count_shared" $libs \
		2>"$work/cc_shared.log"; then
		progs+=(count_shared)
	else
		cat "$work/cc_shared.log"
		fail "compiling against the shared library"
	fi
	# Only the public API leaves the shared object; the layers under it stay inside.
	leaked=$(nm -D --defined-only "$prefix/lib/libpesbench.so" |
		awk '$2 != "A" && $3 !~ /^pesbench_/ {print $3}' | head -5)
	[ -z "$leaked" ] || fail "libpesbench.so exports internal symbols: $leaked"
fi
# shellcheck disable=SC2086
if "$cc" "${strict[@]}" "${extra[@]}" $cflags "$src" -o "$work/count_static" $static_libs \
	2>"$work/cc_static.log"; then
	progs+=(count_static)
	if ldd "$work/count_static" 2>/dev/null | grep -q libpesbench; then
		fail "the static link still needs libpesbench.so"
	fi
else
	cat "$work/cc_static.log"
	fail "compiling against the static library"
fi

files=()
if command -v perf >/dev/null &&
	perf record -q -e cpu-clock -o "$work/recorded.data" -- true >/dev/null 2>&1; then
	files+=("$work/recorded.data")
else
	echo "note: perf cannot record here; the stored recordings only"
fi
for f in perf61_cpu_clock.data perf61_pipe_mode.data; do
	[ -f "$PB_SOURCE_DIR/fuzz/corpus/perfdata/$f" ] && files+=("$PB_SOURCE_DIR/fuzz/corpus/perfdata/$f")
done
[ ${#files[@]} -gt 0 ] || { echo "no perf.data to read: perf cannot record and no stored file"; exit 77; }

for f in "${files[@]}"; do
	want=$("$PB_BIN" perfdata "$f" --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])') ||
		{ fail "pesbench perfdata $f --json"; continue; }
	for p in "${progs[@]}"; do
		got=$(LD_LIBRARY_PATH=$prefix/lib "$work/$p" "$f") || { fail "$p $f failed"; continue; }
		read -r counted reader version <<<"$got"
		[ "$counted" = "$want" ] || fail "$p counts $counted samples in $(basename "$f"), pesbench perfdata $want"
		[ "$reader" = "$want" ] || fail "$p: the reader counts $reader samples in $(basename "$f"), pesbench perfdata $want"
		[ -n "$version" ] || fail "$p: no version"
	done
	echo "$(basename "$f"): $want samples, ${progs[*]} agree"
done
# The error path reaches the caller as a message, not a crash.
for p in "${progs[@]}"; do
	LD_LIBRARY_PATH=$prefix/lib "$work/$p" "$work/does-not-exist" 2>"$work/err.txt" &&
		fail "$p opened a missing file"
	grep -q 'does-not-exist' "$work/err.txt" || fail "$p: error does not name the file: $(cat "$work/err.txt")"
done

# The man page: renders, and has a section for every command of `pesbench --help`.
man_page=$prefix/share/man/man1/pesbench.1
if command -v man >/dev/null; then
	LC_ALL=C MANWIDTH=100 man -l "$man_page" 2>"$work/man.err" | col -b >"$work/man.txt"
elif command -v groff >/dev/null; then
	LC_ALL=C groff -man -Tascii "$man_page" 2>"$work/man.err" | col -b >"$work/man.txt"
else
	echo "note: neither man nor groff: the man page is not rendered"
	sed 's/\\-/-/g' "$man_page" >"$work/man.txt"
fi
[ -s "$work/man.err" ] && fail "man page warnings: $(head -3 "$work/man.err")"
grep -q '^NAME' "$work/man.txt" || fail "man page has no NAME section"
commands=$("$PB_BIN" --help | awk '/^commands:/ {on = 1; next} on && /^$/ {exit} on {print $1}')
[ -n "$commands" ] || fail "no commands in pesbench --help"
for c in $commands; do
	grep -q "pesbench $c" "$work/man.txt" || fail "man page does not describe '$c'"
	# the command's own help text, not only its name
	first=$("$PB_BIN" "$c" --help | head -1)
	grep -qF -- "$first" "$work/man.txt" || fail "man page lacks '$c --help' ($first)"
done

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: installed library, pkg-config, ${progs[*]}, man page"
