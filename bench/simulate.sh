#!/bin/sh
# bench/simulate.sh: tenure simulate over all six rules, 10,000 runs of 50
# years each, against the 2-second budget; prints runs per second per
# rule.  Not a test: run it by hand from the build directory, or give the
# binary as TENURE.
#   sh /path/to/bench/simulate.sh [RUNS] [YEARS]
set -eu
TENURE=${TENURE:-./tenure}
RUNS=${1:-10000}
YEARS=${2:-50}
BUDGET=2.0

start=$(date +%s.%N)
"$TENURE" simulate --runs "$RUNS" --years "$YEARS" --seed 1 --format=tsv >bench-simulate.tsv
end=$(date +%s.%N)

awk -F '\t' 'NR > 1 { printf "%-50s %10.0f runs/s\n", $1, $9 }' bench-simulate.tsv
elapsed=$(echo "$end $start" | awk '{ printf "%.2f", $1 - $2 }')
echo "6 rules x $RUNS runs x $YEARS years: ${elapsed} s on $(nproc) cores (budget ${BUDGET} s)"
rm -f bench-simulate.tsv
awk -v e="$elapsed" -v b="$BUDGET" 'BEGIN { exit !(e < b) }' || {
	echo "over budget" >&2
	exit 1
}
