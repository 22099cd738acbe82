#!/bin/sh
# t-check-config-publish: check-config checks the [publish] directory as
# it checks the state directory: one that does not exist, is not a
# directory, or that the user who runs tenure cannot write is a problem
# (exit 1, one line naming [publish] dir and the path); one that is
# fine passes.  Run by root, check-config checks as the service user
# (the owner of the state), so a directory only root can write is a
# problem then too.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

committee_init
cd "$W" || exit 1
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
committee_ledger "Carol Chair <carol@example.org> $CAROL"
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
gpg_export_keyring keyring.gpg carol@example.org leo@example.org
mkdir -p state
mkdir -m 0700 -p g

# check DIR: check-config with [publish] dir = DIR; stdout and stderr in
# cc.out, the exit status in $rc.
check() {
	committee_conf roles.chair="$CAROL" roles.leader="$LEO" publish.dir="$1"
	rc=0
	"$TENURE" check-config --config "$CONF" >cc.out 2>&1 || rc=$?
}
# expect_problem DESCRIPTION TEXT: exit 1, TEXT (fixed) on one line,
# and no other line names [publish].
expect_problem() {
	test_begin "$1"
	n=$(grep -cF -- "$2" cc.out)
	others=$(grep -F '[publish]' cc.out | grep -cvF -- "$2")
	if [ "$rc" = 1 ] && [ "$n" = 1 ] && [ "$others" = 0 ]; then
		test_pass
	else
		test_fail "expected exit 1 and one line with: $2" \
			"got exit $rc, $n such lines:" "$(cat cc.out)"
	fi
}

mkdir www
check www
test_begin "a [publish] dir that is there and writable passes"
test_expect_equal "0 0" "$rc $(grep -c 'publish' cc.out)"

check nowww
expect_problem "a [publish] dir that does not exist is a problem" \
	"[publish] dir: $W/nowww does not exist (run does not create it: make it, writable by the user who runs tenure)"

: >afile
check afile
expect_problem "a [publish] dir that is a file is a problem" \
	"[publish] dir: $W/afile is not a directory"

if [ "$(id -u)" = 0 ]; then
	# Root checks as the owner of the state: make that a user of its
	# own whose state it is, and the directory root's alone.
	SVC=tncp$$
	useradd --system --user-group --no-create-home --home-dir /nonexistent \
		--shell /usr/sbin/nologin "$SVC" >/dev/null 2>&1 ||
		test_skip_all "useradd could not create a system user"
	test_cleanup "userdel $SVC; groupdel $SVC 2>/dev/null"
	# The tree may lie where only root can enter: the service user
	# reads copies.
	cp -R "$top_srcdir/templates" templates
	mkdir libexec
	cp "$TENURE_LIBEXECDIR/tenure-gpg" libexec/
	TENURE_LIBEXECDIR=$W/libexec
	export TENURE_LIBEXECDIR
	chmod 0755 "$W"
	chmod -R a+rX templates libexec keyring.gpg tenure.conf
	mkdir -p sent
	chown -R "$SVC:" state ledger g inbox sent
	mkdir rootonly
	chmod 0755 rootonly
	who=$SVC
	owner=root
	committee_conf roles.chair="$CAROL" roles.leader="$LEO" committee.templates="$W/templates" \
		publish.dir=rootonly
	rc=0
	"$TENURE" check-config --config "$CONF" >cc.out 2>&1 || rc=$?
	chmod 0644 tenure.conf
else
	mkdir rootonly
	chmod 0555 rootonly
	who=$(id -un)
	owner=$who
	check rootonly
fi
expect_problem "a [publish] dir the user who runs tenure cannot write is a problem" \
	"[publish] dir: $W/rootonly (owner $owner, mode 0$(stat -c %a rootonly)) is not writable by $who, who runs tenure here (the status page, the calendar and the JSON are published there)"

test_begin "... and that is the only problem"
test_expect_equal "1" "$(grep -c 'tenure.conf: ' cc.out)"

test_done
