#!/bin/sh
# t-release.sh: the tree can be released as the version configure.ac
# sets (issue 34, item 1): tenure --version says it, and NEWS,
# debian/changelog, the manual pages and debian/upstream/metadata agree
# with it (mk/release-check.sh, which make dist runs too).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"

version=$(sed -n 's/^AC_INIT(\[tenure\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")

test_begin "configure.ac sets the version, and tenure --version says it"
test_expect_equal "tenure $version" "$("$TENURE" --version)"

check=$(sh "$top_srcdir/mk/release-check.sh" "$top_srcdir" "$version" 2>&1)
# 0: all agree; 1: some do not; anything else: it did not run.
[ $? -le 1 ] || check="release-check: NEWS debian/changelog man/ debian/upstream/metadata: not checked: $check"
for what in NEWS debian/changelog man/ debian/upstream/metadata; do
	test_begin "$what agrees with configure.ac's version ($version)"
	test_expect_equal "" "$(printf '%s\n' "$check" | grep -F "$what")"
done

test_begin "another version is refused: by NEWS, debian/changelog and each manual page"
test_expect_equal "5" "$(sh "$top_srcdir/mk/release-check.sh" "$top_srcdir" 99.0 | wc -l | tr -d ' ')"

# The manual pages as mandoc(1) lints them, as the package check and
# lintian read them: a line of prose longer than 80 bytes is a style
# report there, and fails this.
test_begin "mandoc -T lint finds nothing in the manual pages"
if ! command -v mandoc >/dev/null; then
	test_skip "mandoc is not installed"
else
	test_expect_equal "" "$(mandoc -T lint "$top_srcdir"/man/*.1 "$top_srcdir"/man/*.5 "$top_srcdir"/man/*.7 2>&1 |
		sed "s|$top_srcdir/||")"
fi

test_done
