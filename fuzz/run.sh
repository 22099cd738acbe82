#!/bin/bash
# fuzz/run.sh [SECONDS]: builds the harnesses under fuzz/ with clang's
# libFuzzer, AddressSanitizer and UBSan, and runs each for SECONDS
# (default 60) on its seed corpus.  `make fuzz` runs it.
#
# The build is its own, in fuzz-build/ of the current (build) directory:
# every source of libtenure compiled with -fsanitize=fuzzer-no-link so
# libFuzzer sees coverage, against the config.h of this build.  New
# inputs that find new coverage are kept in fuzz-build/corpus/NAME (the
# committed seeds in fuzz/corpus/NAME are only read); an input that
# crashes or trips a sanitizer is saved as fuzz-build/crash-NAME-* and
# fails the run: copy it into fuzz/corpus/NAME once fixed, so
# `make check` replays it for ever.
#
# FUZZ_HARNESSES="packets intake" in the environment runs only those.
#
# FUZZ_TIMEOUT=N (default 3) is libFuzzer's -timeout for every harness:
# an input that takes longer than N seconds fails the run like a crash,
# saved as fuzz-build/crash-NAME-timeout-*.  No seed takes a tenth of
# that, so a slow input is a parse that grows faster than its input (a
# quadratic, issue 39 item 1): bound it, then keep the input as a seed.
# FUZZ_MAX_LEN (default 262144) is the largest input: large enough that
# a quadratic parse of it takes longer than FUZZ_TIMEOUT (GMime's parse
# of a header of 16000 parameters took 3 s unsanitized).
#
# FUZZ_SEED=N in the environment fixes libFuzzer's random seed, so that
# a run is a prefix of any longer run with the same seed and corpus (CI
# uses it: a 30-second run then finds nothing a longer run before it
# did not; exploring is for longer runs with random seeds).
#
# Prints one line per harness and "N passed, N failed".  Needs clang and
# libclang-rt-14-dev (or the runtime of the installed clang).
set -u
seconds=${1:-60}
timeout=${FUZZ_TIMEOUT:-3}
max_len=${FUZZ_MAX_LEN:-262144}
srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(pwd)
work=$builddir/fuzz-build
harnesses=${FUZZ_HARNESSES:-"intake packets ledger conf template"}
CC=${FUZZ_CC:-clang}

if [ ! -f "$builddir/config.h" ]; then
	echo "fuzz/run.sh: no config.h in $builddir: run ./configure first" >&2
	exit 1
fi
command -v "$CC" >/dev/null || { echo "fuzz/run.sh: $CC not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }

pkgs="glib-2.0 gmime-3.0 gpgme libcurl gnutls json-glib-1.0"
cflags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
	-I$builddir -I$srcdir/src $(pkg-config --cflags $pkgs)
	-DSYSCONFDIR=\"/etc\" -DDATADIR=\"/usr/share\" -DLOCALSTATEDIR=\"/var\"
	-DPKGLIBEXECDIR=\"/usr/libexec/tenure\""
libs="$(pkg-config --libs $pkgs) -letpan"
mkdir -p "$work/obj"
# Objects are rebuilt when their source changed; a changed header or
# config.h (which any object may include) rebuilds them all.
if [ -f "$work/libtenure-fuzz.a" ] &&
	[ -n "$(find "$srcdir/src" "$builddir/config.h" -name '*.h' -newer "$work/libtenure-fuzz.a" | head -n 1)" ]; then
	rm -f "$work"/obj/*.o
fi

# libtenure: every source but the programs' (main.c, tenure_gpg.c), compiled once, two at a time.
sources=$(cd "$srcdir" && ls src/*/*.c |
	grep -v -e '^src/cli/main\.c$' -e '^src/verify/tenure_gpg\.c$')
build_one() {
	local src=$1 obj
	obj=$work/obj/$(echo "$src" | tr / _).o
	if [ ! -f "$obj" ] || [ "$srcdir/$src" -nt "$obj" ]; then
		# shellcheck disable=SC2086
		$CC $cflags -c "$srcdir/$src" -o "$obj" || return 1
	fi
}
export -f build_one
export CC cflags srcdir work
echo "$sources" | xargs -P 2 -I{} bash -c 'build_one {}' || {
	echo "fuzz/run.sh: the fuzzing build failed" >&2; exit 1; }
rm -f "$work/libtenure-fuzz.a"
ar rcs "$work/libtenure-fuzz.a" "$work"/obj/*.o

pass=0 fail=0
for name in $harnesses; do
	# shellcheck disable=SC2086
	$CC $cflags -fsanitize=fuzzer "$srcdir/fuzz/fuzz-$name.c" \
		"$work/libtenure-fuzz.a" $libs -o "$work/fuzz-$name" || {
		echo "fuzz-$name: does not build"; fail=$((fail + 1)); continue; }
	mkdir -p "$work/corpus/$name"
	log=$work/fuzz-$name.log
	# Leaks are findings too, and so is an input slower than
	# FUZZ_TIMEOUT.
	if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$work/fuzz-$name" -max_total_time="$seconds" -timeout="$timeout" \
		-rss_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 \
		${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
		-artifact_prefix="$work/crash-$name-" \
		"$work/corpus/$name" "$srcdir/fuzz/corpus/$name" >"$log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
		echo "fuzz-$name: ${runs:-?} inputs in ${seconds}s, ${cov:-cov: ?}, no crash"
		pass=$((pass + 1))
	else
		echo "fuzz-$name: FAILED, see $log"
		grep -E -A25 '^==[0-9]+== ?ERROR|runtime error|invariant broken|Test unit written' "$log" | head -n 40
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
