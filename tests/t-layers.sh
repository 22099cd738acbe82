#!/bin/sh
# t-layers.sh: src/ is layered as src/README.md says (issue 28): every
# file lies in a folder the order names, includes point down only, and
# no two modules include each other, directly or around a circle
# (tests/lib/check-layers.py).  The checks are shown to fail first, on a
# copy of src/ given an upward include and a circle.
. "${top_srcdir:-.}/tests/lib/common.sh"

[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3"
check="/usr/bin/python3 $top_srcdir/tests/lib/check-layers.py"

# A copy of src/ (sources and README only) to break on purpose.
copy=$TEST_DIR/src
mkdir -p "$copy"
(cd "$top_srcdir/src" && find . -name '*.[ch]' -o -name README.md | tar -c -T -) |
	tar -x -C "$copy"

test_expect_success "the copy of src/ passes both checks" \
	"$check down '$copy' && $check loops '$copy'"

test_begin "an include of a folder above is refused, naming the line"
cp "$copy/base/date.c" "$TEST_DIR/date.c"
printf '#include "cli/cmd.h"\n' >>"$copy/base/date.c"
line=$(wc -l <"$copy/base/date.c")
out=$($check down "$copy" 2>&1)
status=$?
cp "$TEST_DIR/date.c" "$copy/base/date.c"
if [ $status -ne 0 ] && printf '%s\n' "$out" |
	grep -qx "src/base/date.c:$line: #include \"cli/cmd.h\" points up: cli/ is above base/ (src/README.md)"; then
	test_pass
else
	test_fail "status $status" "$out"
fi

test_begin "a circle of includes is refused, naming its modules"
cp "$copy/base/util.c" "$TEST_DIR/util.c"
printf '#include "base/date.h"\n' >>"$copy/base/util.c"
printf '#include "base/util.h"\n' >>"$copy/base/date.c"
out=$($check loops "$copy" 2>&1)
status=$?
cp "$TEST_DIR/util.c" "$copy/base/util.c"
cp "$TEST_DIR/date.c" "$copy/base/date.c"
if [ $status -ne 0 ] && printf '%s\n' "$out" | grep -q 'a circle of includes: .*src/base/date, src/base/util'; then
	test_pass
else
	test_fail "status $status" "$out"
fi

test_begin "a folder the order does not name is refused"
mkdir "$copy/extra" && : >"$copy/extra/x.c"
out=$($check down "$copy" 2>&1)
status=$?
rm -r "$copy/extra"
if [ $status -ne 0 ] && printf '%s\n' "$out" | grep -q '^src/extra/: a folder the order in src/README.md does not name$'; then
	test_pass
else
	test_fail "status $status" "$out"
fi

test_begin "src/: includes point down only (src/README.md)"
if out=$($check down "$top_srcdir/src" 2>&1); then
	test_pass
else
	test_fail "$out"
fi

test_begin "src/: no circle of includes"
if out=$($check loops "$top_srcdir/src" 2>&1); then
	test_pass
else
	test_fail "$out"
fi

test_done
