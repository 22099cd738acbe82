#!/bin/sh
# bench/import.sh: how fast `tenure import` gets through list traffic.
#
# usage: bench/import.sh [BUILDDIR] [COUNT]    (BUILDDIR holds tenure and
#        bench/bench-intake: `make check` or `make bench/bench-intake`)
#
# Generates a Maildir of COUNT (10000) list messages, about 1% signed
# commands, some signed ordinary mail and the rest unsigned discussion,
# then reports beside each other, all measured in this run:
#   - the import: messages per second, wall time, peak memory;
#   - a bare GMime parse of the same messages;
#   - the cost of one signature verification.
# Only command-bearing messages may reach gpg, so the import should cost
# no more than parse + commands x verification, within 20%, and take
# under 10 seconds.  Peak memory is measured again on a quarter of the
# mailbox: it should stay flat as the mailbox grows.  Exits 1 if a target
# is missed.
set -eu

top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top_srcdir}" && pwd)
count=${2:-10000}
TENURE=$builddir/tenure
# tenure runs gpg through its helper tenure-gpg, built beside it.
TENURE_LIBEXECDIR=${TENURE_LIBEXECDIR:-$builddir}
export TENURE_LIBEXECDIR
BENCH=$builddir/bench/bench-intake
for program in "$TENURE" "$BENCH"; do
	[ -x "$program" ] || { echo "bench: $program is not built" >&2; exit 2; }
done

. "$top_srcdir/bench/lib-world.sh"

echo "bench: generating $count messages..."
set -- $(/usr/bin/python3 "$top_srcdir/bench/gen-maildir.py" "$W/list" \
	"$count" "$W/world" "$signer")
commands=$1
example=$2
quarter=$((count / 4))
/usr/bin/python3 "$top_srcdir/bench/gen-maildir.py" "$W/small" "$quarter" \
	"$W/world" "$signer" >/dev/null

# Seconds and peak RSS (KiB) of a command.
measure() {
	/usr/bin/python3 -c 'import resource, subprocess, sys, time
start = time.monotonic()
with open(sys.argv[1], "w") as out, open(sys.argv[2], "w") as err:
    subprocess.run(sys.argv[3:], stdout=out, stderr=err, check=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("%.2f %d" % (time.monotonic() - start, peak))' "$W/stdout" "$W/stderr" "$@"
}

field() {
	sed -n "s/.*$1=\([0-9.]*\).*/\1/p" "$2"
}

# The reference figures first; the verifier also prepares GNUPGHOME.
"$BENCH" verify "$W/tenure.conf" "$example" 40 >"$W/verify"
verify_each=$(awk -v s="$(field seconds "$W/verify")" 'BEGIN { printf "%.4f", s / 40 }')
"$BENCH" parse "$W/list" >"$W/parse"
parse=$(field seconds "$W/parse")

set -- $(measure "$TENURE" --config "$W/tenure.conf" import --quiet "maildir:$W/small")
small_rss=$2
rm -rf "$W/state"
set -- $(measure "$TENURE" --config "$W/tenure.conf" import --quiet "maildir:$W/list")
import=$1
rss=$2
cat "$W/stdout"

awk -v count="$count" -v commands="$commands" -v parse="$parse" \
	-v verify="$verify_each" -v import="$import" -v rss="$rss" \
	-v small_rss="$small_rss" -v quarter="$quarter" 'BEGIN {
	budget = parse + commands * verify
	printf "messages:            %d (%d signed commands)\n", count, commands
	printf "import:              %.2f s, %.0f messages/s, peak %.1f MiB\n", import, count / import, rss / 1024
	printf "bare GMime parse:    %.2f s, %.0f messages/s\n", parse, count / parse
	printf "one verification:    %.1f ms\n", verify * 1000
	printf "parse + %d x verify: %.2f s; import / that = %.2f (target <= 1.20)\n", commands, budget, import / budget
	printf "peak memory:         %.1f MiB for %d messages, %.1f MiB for %d (flat: <= +20%%)\n", small_rss / 1024, quarter, rss / 1024, count
	ok = 1
	if (import / budget > 1.20) { print "bench: MISSED the 20% budget"; ok = 0 }
	if (import >= 10) { print "bench: MISSED the 10 s target"; ok = 0 }
	if (rss > small_rss * 1.2) { print "bench: MISSED flat memory"; ok = 0 }
	exit ok ? 0 : 1
}'
