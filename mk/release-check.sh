#!/bin/sh
# mk/release-check.sh SRCDIR VERSION: whether the tree at SRCDIR may be
# released as VERSION (configure.ac's AC_INIT, the one place the version
# is set): NEWS begins with "tenure VERSION", debian/changelog's latest
# entry is VERSION-REVISION, the manual pages say "tenure VERSION", and
# debian/upstream/metadata names the project.  One line per thing that
# disagrees, and exit 1; silent, exit 0, when all agree.  make dist runs
# it (dist-hook), and so does tests/t-release.sh.
srcdir=$1
version=$2
status=0
say() {
	echo "release-check: $*"
	status=1
}

news=$(sed -n 's/^tenure \([0-9][^ ]*\)$/\1/p' "$srcdir/NEWS" 2>/dev/null | head -n 1)
[ "$news" = "$version" ] ||
	say "NEWS: its newest entry is \"tenure ${news:-(none)}\", not \"tenure $version\": say what changed for users"

# The upstream part of "tenure (EPOCH:UPSTREAM-REVISION) ...".
changelog=$(sed -n '1s/^tenure (\([^)]*\)).*/\1/p' "$srcdir/debian/changelog" 2>/dev/null)
upstream=${changelog#*:}
upstream=${upstream%-*}
[ "$upstream" = "$version" ] ||
	say "debian/changelog: its latest entry is ${changelog:-(none)}, not $version-REVISION (dch -v $version-1)"

for page in "$srcdir"/man/*.[1-8]; do
	th=$(sed -n 's/^\.TH [^ ]* [0-9] [^ ]* "\([^"]*\)".*/\1/p' "$page" | head -n 1)
	[ "$th" = "tenure $version" ] ||
		say "man/${page##*/}: .TH says \"$th\", not \"tenure $version\""
done

grep -q '^Name: tenure$' "$srcdir/debian/upstream/metadata" 2>/dev/null ||
	say "debian/upstream/metadata: no \"Name: tenure\" (DEP-12)"

exit $status
