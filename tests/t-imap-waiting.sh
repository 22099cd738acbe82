#!/bin/sh
# t-imap-waiting.sh: a waiting mail is never forgotten (issue 25, item
# 4), against a private Dovecot.  The IMAP cursor never passes a message
# without a final outcome; STATE_DIR/retry only schedules the waiting
# ones.  The record is deleted, or torn and then removed as the error
# says, between passes of `run --once` and under the running daemon: at
# rest, and while the next message is being verified.  Each time the
# member's command is applied, once, when gpgv answers, and the cursor
# then moves past it.  The fake gpgv is tests/lib/fake-gpg.sh.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/dovecot.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"

dovecot_setup
dovecot_start
committee_init
set --
for who in alice bob carol dave erin frank grace heidi; do
	name="$(echo "$who" | sed 's/./\U&/') Member"
	fpr=$(gpg_new_key "$name" "$who@example.org")
	eval "$(echo "$who" | tr a-z A-Z)=\$fpr"
	set -- "$@" "$name <$who@example.org> $fpr"
done
committee_ledger "$@"
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org dave@example.org erin@example.org frank@example.org \
	grace@example.org heidi@example.org
committee_conf keys.gpg-timeout=20 \
	source.url="imaps://localhost:$DOVECOT_IMAPS_PORT" \
	source.user="$DOVECOT_USER" source.password-file="$DOVECOT_PASSWORD_FILE" \
	source.ca-file="$DOVECOT_CA" source.poll-interval=1

. "$top_srcdir/tests/lib/fakegpg.sh"
retry=$W/state/retry

cursor() { sed -n 's/^last-uid=//p' "$W/state/imap-cursor"; }
resignations() {
	awk -v who="Member: $1 Member" 'BEGIN { RS = "" }
		/Event: resign/ && index($0, who) { n++ } END { print n + 0 }' \
		"$W/ledger"
}
# resign WHO FPR: WHO's resignation into the INBOX; prints its UID.
resign() {
	local uid
	uid=$(dovecot_uidnext)
	dovecot_deliver "$(signed_mail "$2" "$1@example.org" "$1" "Tenure: resign")"
	echo "$uid"
}
# expect_applied DESCRIPTION WHO UID LOG: WHO's resignation applied once
# and the cursor at UID or beyond.  The daemon writes the ledger and the
# outbox before it moves the cursor past the mail: the end state, both,
# is waited for (at once after run --once), never the moment between.
expect_applied() {
	local who=$2 uid=$3
	test_begin "$1"
	wait_for 30 '[ "$(resignations "$who")" = 1 ] && [ "$(cursor)" -ge "$uid" ]'
	if [ "$(resignations "$2")" = 1 ] && [ "$(cursor)" -ge "$3" ]; then
		test_pass
	else
		test_fail "$(resignations "$2") resignation(s) of $2, cursor $(cursor) (expected $3)" \
			"$(cat "$4")"
	fi
}

fault pass
once

# 1. Between two passes of run --once: the record deleted, then torn and
# removed.
fault exit2 1
a=$(resign Alice "$ALICE")
b=$(resign Bob "$BOB")
once
test_begin "run --once: Alice's mail waits before the cursor, Bob's behind it is applied"
if [ "$(cursor)" = $((a - 1)) ] && [ "$(resignations Alice)" = 0 ] &&
	[ "$(resignations Bob)" = 1 ]; then
	test_pass
else
	test_fail "cursor $(cursor)" "$(cat "$W/log")"
fi
rm "$retry"
once
expect_applied "... the retry record deleted between passes: Alice's is applied at the next" \
	Alice "$b" "$W/log"

fault exit2 1
c=$(resign Carol "$CAROL")
once
printf 'torn' >"$retry"
d=$(resign Dave "$DAVE")
once
test_begin "... the record torn: the pass fails saying to remove it, and the cursor holds"
if [ "$(cat "$W/status")" != 0 ] && grep -q "remove it" "$W/log" &&
	[ "$(cursor)" = $((c - 1)) ]; then
	test_pass
else
	test_fail "exit $(cat "$W/status"), cursor $(cursor)" "$(cat "$W/log")"
fi
rm "$retry"
once
expect_applied "... removed as it says: Carol's is applied at the next pass" Carol "$c" "$W/log"
expect_applied "... and Dave's behind it" Dave "$d" "$W/log"

# 2. Under the running daemon.
"$TENURE" --config "$CONF" run >"$W/daemon.log" 2>&1 &
daemon=$!
test_cleanup "kill $daemon"
wait_for 20 'grep -q "^imap-connected" "$W/daemon.log"'

# 2a. Deleted while the daemon verifies the next message.
fault exit2 1
e=$(resign Erin "$ERIN")
wait_for 20 'grep -q "^deferred .*UID=$e\"" "$W/daemon.log"'
fault "slow 3"
f=$(resign Frank "$FRANK")
wait_for 20 '[ -s "$FAKE_GPG_MODE.log" ]'
rm "$retry"
expect_applied "daemon: the record deleted while the next message is verified: Frank's is applied" \
	Frank "$f" "$W/daemon.log"
expect_applied "... Erin's mail is tried again and applied once, the cursor then past both" \
	Erin "$f" "$W/daemon.log"

# 2b. Torn while the daemon idles, then removed as the error says; mail
# arrives behind the waiting one meanwhile.
fault exit2 1
g=$(resign Grace "$GRACE")
wait_for 20 'grep -q "^deferred .*UID=$g\"" "$W/daemon.log"'
printf 'torn' >"$retry"
h=$(resign Heidi "$HEIDI")
wait_for 20 'grep -q "retry.*remove it" "$W/daemon.log"'
test_begin "daemon: a torn record stops the fetch with an error saying to remove it"
if grep -q "retry.*remove it" "$W/daemon.log" && [ "$(cursor)" -lt "$g" ]; then
	test_pass
else
	test_fail "cursor $(cursor)" "$(cat "$W/daemon.log")"
fi
rm "$retry"
expect_applied "... removed: Grace's waiting mail is applied once" Grace "$h" "$W/daemon.log"
expect_applied "... and Heidi's behind it" Heidi "$h" "$W/daemon.log"

kill -TERM $daemon
wait $daemon
fault pass

test_done
