#!/bin/sh
# t-mbox-waiting.sh: a waiting mail is never forgotten by a live mbox
# source either (issue 25, item 4; t-imap-waiting.sh for IMAP).  The
# offset tenure keeps never passes a message without a final outcome;
# STATE_DIR/retry only schedules it.  Under the running daemon the
# record is deleted while the next message is verified, and torn, then
# removed as the error says: each time the member's command is applied,
# once, when gpgv answers.  The fake gpgv is tests/lib/fake-gpg.sh.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"

committee_init
set --
for who in alice bob carol dave; do
	name="$(echo "$who" | sed 's/./\U&/') Member"
	fpr=$(gpg_new_key "$name" "$who@example.org")
	eval "$(echo "$who" | tr a-z A-Z)=\$fpr"
	set -- "$@" "$name <$who@example.org> $fpr"
done
committee_ledger "$@"
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org dave@example.org
: >"$W/list.mbox"
committee_conf keys.gpg-timeout=20 source.url="mbox:$W/list.mbox" \
	source.poll-interval=1

. "$top_srcdir/tests/lib/fakegpg.sh"
retry=$W/state/retry

resignations() {
	awk -v who="Member: $1 Member" 'BEGIN { RS = "" }
		/Event: resign/ && index($0, who) { n++ } END { print n + 0 }' \
		"$W/ledger"
}
# resign WHO FPR: WHO's resignation appended to the mbox, in one write
# (the daemon reads it meanwhile).
resign() {
	local mail
	mail=$(signed_mail "$2" "$1@example.org" "$1" "Tenure: resign")
	{
		printf 'From %s@example.org %s\n' "$1" "$(date -u '+%a %b %e %H:%M:%S %Y')"
		cat "$mail"
		printf '\n'
	} >"$W/chunk"
	cat "$W/chunk" >>"$W/list.mbox"
}
expect_applied() {
	test_begin "$1"
	if [ "$(resignations "$2")" = 1 ]; then
		test_pass
	else
		test_fail "$(resignations "$2") resignation(s) of $2" \
			"$(cat "$W/daemon.log")" "$(cat "$W/state/mbox-offset")"
	fi
}

fault pass
"$TENURE" --config "$CONF" run >"$W/daemon.log" 2>&1 &
daemon=$!
test_cleanup "kill $daemon"
wait_for 20 'grep -q "^run-start" "$W/daemon.log"'

# The record deleted while the daemon verifies the next message.
fault exit2 1
resign Alice "$ALICE"
wait_for 20 'grep -q "^deferred " "$W/daemon.log"'
fault "slow 3"
resign Bob "$BOB"
wait_for 20 '[ -s "$FAKE_GPG_MODE.log" ]'
rm "$retry"
wait_for 30 '[ "$(resignations Bob)" = 1 ]'
expect_applied "the record deleted while the next message is verified: Bob's is applied" Bob
wait_for 30 '[ "$(resignations Alice)" = 1 ]'
expect_applied "... and Alice's waiting mail is tried again and applied once" Alice

# Torn while the daemon idles, then removed as the error says.
fault exit2 1
resign Carol "$CAROL"
wait_for 20 '[ "$(grep -c "^deferred " "$W/daemon.log")" = 2 ]'
printf 'torn' >"$retry"
resign Dave "$DAVE"
wait_for 20 'grep -q "retry.*remove it" "$W/daemon.log"'
rm "$retry"
wait_for 30 '[ "$(resignations Dave)" = 1 ] && [ "$(resignations Carol)" = 1 ]'
expect_applied "the record torn and removed: Carol's waiting mail is applied once" Carol
expect_applied "... and Dave's behind it" Dave

kill -TERM $daemon
wait $daemon
fault pass

test_done
