#!/bin/sh
# bench/mime-cost.sh: what one mail of a costly MIME shape costs tenure
# to read, beside a plain mail of its size (issue 39 item 1).
#
# usage: bench/mime-cost.sh [TENURE...]     (default: ./tenure of the
#        source tree; give two, a build of an older commit and this one,
#        to measure before and after side by side in one run)
#
# For each size of MIME_COST_SIZES (bytes; default 300000 1200000
# 4000000) it makes, with tests/lib/mime-shapes.py, each mail holding a
# "Tenure:" line so that it is parsed:
#   plain          a text/plain mail of that size: the reference
#   unclosed       a multipart/mixed never closed, of small multipart
#                  parts whose closing lines end in a form feed (over
#                  mime-parts, once bounded)
#   unclosed-900   the same with 900 parts, under mime-parts, each
#                  padded to make up the size
#   parameters     one Content-Type with as many parameters as fit
# and prints the CPU seconds (user + system) of `tenure import` of that
# one mail, per TENURE, and the ratio to the plain mail's.  Target: no
# ratio above 3 (the shapes cost what their size allows).  A run is
# stopped at MIME_COST_LIMIT CPU seconds (default 60) and shows ">LIMIT".
# Exits 1 when the last TENURE misses the target.
set -eu

top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- "$top_srcdir/tenure"
sizes=${MIME_COST_SIZES:-300000 1200000 4000000}
limit=${MIME_COST_LIMIT:-60}
for program in "$@"; do
	[ -x "$program" ] || { echo "bench: $program is not built" >&2; exit 2; }
done

. "$top_srcdir/bench/lib-world.sh"

# cpu TENURE MAIL: the CPU seconds of importing MAIL alone, or ">LIMIT".
cpu() {
	rm -rf "$W/box" "$W/state"
	mkdir -p "$W/box/new" "$W/box/cur" "$W/box/tmp"
	cp "$2" "$W/box/new/1796000000.1.bench"
	TENURE_LIBEXECDIR=$(dirname "$1") /usr/bin/python3 -c '
import resource, subprocess, sys
limit = int(sys.argv[1])
def bound():
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1))
subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL, preexec_fn=bound)
use = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = use.ru_utime + use.ru_stime
print(">%d" % limit if cpu >= limit else "%.2f" % cpu)' "$limit" \
		"$1" --config "$W/tenure.conf" import --quiet "maildir:$W/box"
}

shape() {
	/usr/bin/python3 "$top_srcdir/tests/lib/mime-shapes.py" "$@"
}

printf '%-14s %9s' shape bytes
n=0
for program in "$@"; do
	n=$((n + 1))
	printf ' %12s %6s' "cpu-s[$n]" "x[$n]"
done
printf '\n'
n=0
for program in "$@"; do
	n=$((n + 1))
	echo "[$n] $program"
done

worst=0
for size in $sizes; do
	shape plain "$size" >"$W/plain.eml"
	shape unclosed $((size / 130)) >"$W/unclosed.eml"
	shape unclosed 900 "$size" >"$W/unclosed-900.eml"
	shape parameters $((size / 16)) >"$W/parameters.eml"
	for name in plain unclosed unclosed-900 parameters; do
		printf '%-14s %9d' "$name" "$(wc -c <"$W/$name.eml")"
		for program in "$@"; do
			eval "base=\${plain_$(echo "$program" | cksum | cut -d' ' -f1):-}"
			t=$(cpu "$program" "$W/$name.eml")
			if [ "$name" = plain ]; then
				eval "plain_$(echo "$program" | cksum | cut -d' ' -f1)=$t"
				base=$t
			fi
			ratio=$(awk -v t="$t" -v b="$base" 'BEGIN {
				sub(/^>/, "", t)
				if (b <= 0.01) b = 0.01
				printf "%.1f", t / b }')
			printf ' %12s %6s' "$t" "$ratio"
			worst=$ratio
		done
		printf '\n'
		if [ "$name" != plain ] &&
			awk -v r="$worst" 'BEGIN { exit !(r > 3) }'; then
			echo "bench: MISSED: $name at $size bytes costs ${worst}x a plain mail" >&2
			missed=1
		fi
	done
done
[ -z "${missed:-}" ]
