#!/bin/sh
# bench/simulate.sh: tenure simulate over all six rules, 10,000 runs of 50
# years each, against the 2-second budget; prints runs per second per
# rule, the wall-clock time and the CPU time (which other work on the
# machine does not inflate).  Not a test: run it by hand from the build
# directory, or give the binary as TENURE.
#   sh /path/to/bench/simulate.sh [RUNS] [YEARS]
set -eu
TENURE=${TENURE:-./tenure}
RUNS=${1:-10000}
YEARS=${2:-50}
BUDGET=2.0
OUT=$(mktemp)
trap 'rm -f "$OUT" "$OUT.time"' EXIT

run() {
	"$TENURE" simulate --runs "$RUNS" --years "$YEARS" --seed 1 --format=tsv >"$OUT"
}
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f '%e %U %S' -o "$OUT.time" "$TENURE" simulate \
		--runs "$RUNS" --years "$YEARS" --seed 1 --format=tsv >"$OUT"
else
	# Without GNU time (Debian package "time"), wall-clock time only.
	start=$(date +%s.%N)
	run
	end=$(date +%s.%N)
	echo "$end $start" | awk '{ printf "%.2f 0 0\n", $1 - $2 }' >"$OUT.time"
fi

awk -F '\t' 'NR > 1 { printf "%-52s %8.0f runs/s\n", $1, $9 }' "$OUT"
read -r wall user sys <"$OUT.time"
cpu=$(echo "$user $sys" | awk '{ printf "%.2f", $1 + $2 }')
echo "6 rules x $RUNS runs x $YEARS years: ${wall} s wall, ${cpu} s CPU on $(nproc) cores (budget ${BUDGET} s wall)"
awk -v e="$wall" -v b="$BUDGET" 'BEGIN { exit !(e < b) }' || {
	echo "over budget (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
	exit 1
}
