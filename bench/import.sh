#!/bin/sh
# bench/import.sh: how fast `tenure import` gets through list traffic.
#
# usage: bench/import.sh [BUILDDIR] [COUNT] [BASE_BUILDDIR]
#        (BUILDDIR holds tenure and bench/bench-intake: `make check` or
#        `make bench/bench-intake`)
#
# Generates a Maildir of COUNT (10000) list messages, about 1% signed
# commands, some signed ordinary mail and the rest unsigned discussion,
# then reports beside each other, all measured in this run:
#   - the import: messages per second, wall time, peak memory;
#   - a bare GMime parse of the same messages;
#   - the cost of one signature verification;
#   - an empty mailbox's import, what every import costs once, and the
#     ratio again without it (the verifications are timed after their
#     first, which pays the same start).
# Only command-bearing messages may reach gpg, so the import should cost
# no more than parse + commands x verification, within 20%, and take
# under 10 seconds.  Peak memory is measured again on a quarter of the
# mailbox: it should stay flat as the mailbox grows.  Exits 1 if a target
# is missed.
#
# With BASE_BUILDDIR (another build, an older commit's say), both builds
# import the same mailbox in turn, ROUNDS (2) times each, alternating,
# every import beside its own parse and verification measured just
# before it: on a shared machine the load changes within minutes, and
# only figures taken side by side compare.  The targets are checked on
# BUILDDIR's figures; the load average is printed with each.
#
# The same figures are given in CPU seconds (user and system, every
# process's, gpgv's too), which the waits of a loaded machine change
# less than wall time.  With strace installed, one more import of each
# build is counted, not timed: its fsyncs and the programs it ran
# (gpgv, gpg, ...), per signed command (an empty mailbox's import
# subtracted): the costs a busy machine makes dearer than the budget's.
set -eu

top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top_srcdir}" && pwd)
count=${2:-10000}
basedir=
[ -z "${3:-}" ] || basedir=$(cd "$3" && pwd)
rounds=${ROUNDS:-2}
TENURE=$builddir/tenure
# tenure runs gpg through its helper tenure-gpg, built beside it.
TENURE_LIBEXECDIR=${TENURE_LIBEXECDIR:-$builddir}
export TENURE_LIBEXECDIR
BENCH=$builddir/bench/bench-intake
for program in "$TENURE" "$BENCH" ${basedir:+"$basedir/tenure" "$basedir/bench/bench-intake"}; do
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

# Seconds, peak RSS (KiB) and CPU seconds (its own and its children's,
# user and system) of a command.
measure() {
	/usr/bin/python3 -c 'import resource, subprocess, sys, time
start = time.monotonic()
with open(sys.argv[1], "w") as out, open(sys.argv[2], "w") as err:
    subprocess.run(sys.argv[3:], stdout=out, stderr=err, check=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.2f %d %.3f" % (time.monotonic() - start, usage.ru_maxrss,
                        usage.ru_utime + usage.ru_stime))' "$W/stdout" "$W/stderr" "$@"
}

field() {
	sed -n "s/.*$1=\([0-9.]*\).*/\1/p" "$2"
}

load() {
	cut -d' ' -f1 /proc/loadavg
}

# One measurement of the build in $1, its helper tenure-gpg in $2: its
# verification and parse, then its imports of the quarter and of the whole mailbox into
# a fresh state directory, each time the same ledger.  Prints one line
# of figures, in the order the report below reads them.
run_build() {
	dir=$1
	libexec=$2
	# The verifier also prepares GNUPGHOME.
	set -- $(TENURE_LIBEXECDIR=$libexec measure "$dir/bench/bench-intake" \
		verify "$W/tenure.conf" "$example" 40)
	cp "$W/stdout" "$W/verify"
	verify_each=$(awk -v s="$(field seconds "$W/verify")" 'BEGIN { printf "%.4f", s / 40 }')
	verify_cpu=$(awk -v s="$3" 'BEGIN { printf "%.4f", s / 40 }')
	set -- $(measure "$dir/bench/bench-intake" parse "$W/list")
	cp "$W/stdout" "$W/parse"
	parse=$(field seconds "$W/parse")
	parse_cpu=$3
	cp "$W/ledger.start" "$W/ledger"
	rm -rf "$W/state"
	set -- $(TENURE_LIBEXECDIR=$libexec measure "$dir/tenure" --config "$W/tenure.conf" \
		import --quiet "maildir:$W/small")
	small_rss=$2
	# An empty mailbox's import: what any import costs once (the
	# GnuPG home's checks, the engine, the state), which the budget's
	# verifications, measured after their first, leave out.
	cp "$W/ledger.start" "$W/ledger"
	rm -rf "$W/state"
	set -- $(TENURE_LIBEXECDIR=$libexec measure "$dir/tenure" --config "$W/tenure.conf" \
		import --quiet "maildir:$W/empty")
	empty=$1
	cp "$W/ledger.start" "$W/ledger"
	rm -rf "$W/state"
	before=$(load)
	set -- $(TENURE_LIBEXECDIR=$libexec measure "$dir/tenure" --config "$W/tenure.conf" \
		import --quiet "maildir:$W/list")
	echo "$parse $verify_each $1 $2 $small_rss $before $(load) $parse_cpu $verify_cpu $3 $empty"
	cat "$W/stdout" >&2
}

# The fsyncs, gpgv runs and other programs run (tenure's own aside) by
# an import of the maildir $3 by the build in $1 (helper in $2).
count_calls() {
	cp "$W/ledger.start" "$W/ledger"
	rm -rf "$W/state"
	TENURE_LIBEXECDIR=$2 strace -f -qq -o "$W/strace" \
		-e trace=fsync,fdatasync,execve "$1/tenure" --config "$W/tenure.conf" \
		import --quiet "maildir:$3" >/dev/null 2>&1
	awk '/fsync\(|fdatasync\(/ { sync++ }
	/execve\(/ && !/ENOENT/ && seen++ {
		if (/gpgv"/) gpgv++; else other++
	}
	END { printf "%d %d %d\n", sync, gpgv, other }' "$W/strace"
}

# Per signed command: the whole mailbox's counts less an empty one's
# (what every import costs once: the GnuPG home's checks, the state).
count_per_command() {
	set -- "$3" $(count_calls "$1" "$2" "$W/empty") \
		$(count_calls "$1" "$2" "$W/list")
	awk -v c="$commands" -v n="$1" -v s0="$2" -v g0="$3" -v o0="$4" \
		-v s="$5" -v g="$6" -v o="$7" 'BEGIN {
		printf "%-4s per command: %.2f fsyncs, %.2f gpgv, %.2f other programs run; once an import: %d fsyncs, %d programs\n",
			n, (s - s0) / c, (g - g0) / c, (o - o0) / c, s0, g0 + o0
	}'
}

cp "$W/ledger" "$W/ledger.start"
mkdir -p "$W/empty/new" "$W/empty/cur" "$W/empty/tmp"
: >"$W/figures"
for round in $(seq "$rounds"); do
	[ -n "$basedir" ] || [ "$round" -eq 1 ] || break
	echo "this $(run_build "$builddir" "$TENURE_LIBEXECDIR")" >>"$W/figures"
	[ -z "$basedir" ] || echo "base $(run_build "$basedir" "$basedir")" >>"$W/figures"
done

: >"$W/calls"
if command -v strace >/dev/null; then
	count_per_command "$builddir" "$TENURE_LIBEXECDIR" this >>"$W/calls"
	[ -z "$basedir" ] ||
		count_per_command "$basedir" "$basedir" base >>"$W/calls"
fi

# Each import beside its own reference figures ("this": BUILDDIR; "base":
# BASE_BUILDDIR); the targets on the best ratio of BUILDDIR's imports.
awk -v count="$count" -v commands="$commands" -v quarter="$quarter" '
function report(name, parse, verify, import, rss, small_rss, load1, load2,    budget) {
	budget = parse + commands * verify
	printf "%-4s import %6.2f s (%4.0f messages/s), parse %5.2f s, one verification %6.1f ms, budget %6.2f s: ratio %.2f (target <= 1.20); peak %.1f MiB (%.1f MiB for %d messages); load %s..%s\n",
		name, import, count / import, parse, verify * 1000, budget,
		import / budget, rss / 1024, small_rss / 1024, quarter, load1, load2
	return import / budget
}
# What an import costs beyond an empty mailbox: the part that grows with
# the mailbox, against the same budget.
function beyond(name, parse, verify, import, empty,    budget) {
	budget = parse + commands * verify
	printf "%-4s beyond an empty import (%.2f s): %6.2f s: ratio %.2f\n",
		name, empty, import - empty, (import - empty) / budget
}
# The same in CPU seconds (every process, gpgv too): what the waits of a
# loaded machine do not change.
function cpu(name, parse, verify, import,    budget) {
	budget = parse + commands * verify
	printf "%-4s CPU: import %6.2f s, parse %5.2f s, one verification %6.1f ms, budget %6.2f s: ratio %.2f\n",
		name, import, parse, verify * 1000, budget, import / budget
}
BEGIN { printf "messages: %d (%d signed commands); memory on %d and %d\n", count, commands, quarter, count }
{
	ratio = report($1, $2, $3, $4, $5, $6, $7, $8)
	beyond($1, $2, $3, $4, $12)
	cpu($1, $9, $10, $11)
	if ($1 == "this" && (best == "" || ratio < best)) {
		best = ratio; import = $4; rss = $5; small = $6
	}
}
END {
	ok = 1
	if (calls != "") system("cat " calls)
	if (best > 1.20) { print "bench: MISSED the 20% budget"; ok = 0 }
	if (import >= 10) { print "bench: MISSED the 10 s target"; ok = 0 }
	if (rss > small * 1.2) { print "bench: MISSED flat memory"; ok = 0 }
	exit ok ? 0 : 1
}' calls="$W/calls" "$W/figures"
