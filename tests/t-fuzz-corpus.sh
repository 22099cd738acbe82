#!/bin/bash
# The fuzz harnesses' corpora (seeds and inputs that once crashed) replay
# cleanly on this build: no crash, no sanitizer report, no broken
# invariant.  `make fuzz` finds new inputs; this keeps the old ones fixed.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"

for name in intake packets ledger conf template; do
	corpus=$top_srcdir/fuzz/corpus/$name
	count=$(find "$corpus" -type f | wc -l)
	test_begin "fuzz-$name replays its $count corpus inputs cleanly"
	if [ "$count" -gt 0 ] &&
		"$top_builddir/fuzz/fuzz-$name" "$corpus" >"$TEST_DIR/$name.out" 2>&1 &&
		[ "$(grep -c '^replayed ' "$TEST_DIR/$name.out")" -eq "$count" ]; then
		test_pass
	else
		test_fail "$(tail -n 20 "$TEST_DIR/$name.out")"
	fi
done
test_done
