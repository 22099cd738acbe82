#!/bin/sh
# t-check-config-perms.sh: check-config says when others may write what
# tenure keeps (issue 26, item 4): a group- or world-writable state
# directory, ledger or GnuPG home is a problem, with the chmod that
# fixes it; and, run by a user who cannot read a password file, it
# names the file's owner and mode and the chgrp and chmod that let the
# service read it.  (Ownership by the service user, which needs root,
# is checked in t-privilege.sh.)
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

committee_init
cd "$W" || exit 1
committee_ledger "Alice Member <alice@example.org>" \
	"Bob Member <bob@example.org>"
committee_event role "$year_ago" "Role: chair" "Member: Alice Member <alice@example.org>"
committee_event role "$year_ago" "Role: leader" "Member: Bob Member <bob@example.org>"
: >keyring.gpg
mkdir -m 0700 state g
chmod 0644 ledger
committee_conf

# check: check-config; all it said in cc.all, its exit status in $rc.
check() {
	rc=0
	"$TENURE" check-config --config tenure.conf >cc.all 2>&1 || rc=$?
}
# expect_problem DESCRIPTION TEXT: one check: exit 1, and TEXT (fixed)
# on exactly one line of all check-config said.
expect_problem() {
	test_begin "$1"
	n=$(grep -cF -- "$2" cc.all)
	if [ "$rc" = 1 ] && [ "$n" = 1 ]; then
		test_pass
	else
		test_fail "expected exit 1 and one line with: $2" \
			"got exit $rc, $n such lines:" "$(cat cc.all)"
	fi
}

test_begin "modes as tenure init and the package make them pass"
check
test_expect_equal 0 "$rc" "$(cat cc.all)"

chmod 0770 state
check
expect_problem "a group-writable state directory is a problem, with its fix" \
	"[committee] state-dir: $W/state (mode 0770) is writable by its group: whoever can write there can change the committee's record or tenure's keys; fix: chmod go-w $W/state"
chmod 0700 state

chmod 0666 ledger
check
expect_problem "a world-writable ledger is a problem, with its fix" \
	"[committee] ledger: $W/ledger (mode 0666) is writable by everyone"
chmod 0644 ledger

chmod 0777 g
check
expect_problem "a world-writable GnuPG home is a problem, with its fix" \
	"[keys] gnupg-home: $W/g (mode 0777) is writable by everyone: whoever can write there can change the committee's record or tenure's keys; fix: chmod go-w $W/g"
chmod 0700 g

# Root reads every file: the unreadable password file is t-privilege.sh's
# there.
if [ "$(id -u)" -ne 0 ]; then
	printf 'secret\n' >imap-password
	chmod 0000 imap-password
	committee_conf source.url=imaps://imap.example.org source.user=tenure \
		source.password-file=imap-password
	check
	expect_problem "a password file the user cannot read: its owner and mode, and the fix" \
		": Permission denied (owner $(id -un), mode 0000; $(id -un) runs tenure here); fix: chgrp $(id -gn) $W/imap-password && chmod 0640 $W/imap-password"
fi

test_done
