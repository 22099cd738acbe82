#!/bin/sh
# t-outbox.sh: `tenure outbox` lists the mail waiting to be sent, and
# `tenure outbox drop ID --reason TEXT` removes one for good (issue 34,
# item 3).  The two cases that need it: mail kept under --now (the
# announcements a look ahead queued, which the next real pass would
# send, dated by --now), and a reminder to an address the mail server
# says no longer exists, for now (a 450), failing at every attempt.  A
# dropped mail is listed no more, never sent (nor queued again by the
# schedule, which finds the same event due), `tenure status` no longer
# counts it, and the log says why.  A real SMTP server (tests/lib/smtpd.py).

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/smtp.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
command -v certtool >/dev/null || command -v openssl >/dev/null ||
	test_skip_all "neither certtool nor openssl for the test CA"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
smtp_start plain || test_skip_all "aiosmtpd would not start"

# setup_case NAME: Alice and Bob, the two most senior, whose terms the
# debian rule ends on 2027-12-31, announced on 2027-01-01 (as in
# t-outcomes.sh) and reminded of 90 days before, and a configuration sending to the test server.
setup_case() {
	CASE=$TEST_DIR/$1
	mkdir -p "$CASE/list/new" "$CASE/list/cur" "$CASE/list/tmp"
	cat >"$CASE/tenure.conf" <<CONF
[committee]
name = Technical Committee
list = ctte@lists.example.org
ledger = $CASE/ledger
state-dir = $CASE/state
templates = $top_srcdir/templates

[rule]
name = debian

[keys]
keyring = $CASE/keyring.gpg
gnupg-home = $CASE/g

[source]
url = maildir:$CASE/list

[sink]
url = smtp://127.0.0.1:$SMTP_PORT
starttls = no
from = ctte-bot@example.org

[reminders]
days-before = 90
CONF
	: >"$CASE/keyring.gpg"
	cat >"$CASE/ledger" <<'LEDGER'
Event: rule
Date: 2015-01-01
Rule: debian
Source: import

Event: appoint
Date: 2023-01-10
Member: Alice Senior <alice@example.org>
Source: import

Event: appoint
Date: 2023-03-01
Member: Bob Second <bob@example.org>
Source: import

Event: appoint
Date: 2025-06-01
Member: Carol Junior <carol@example.org>
Source: import
LEDGER
	sleep 1
	touch "$CASE/start"
	sleep 1
}

# at WHEN ARG...: tenure with this case's configuration on a clock
# stopped at WHEN; the output in $CASE/out, the log in $CASE/err, the
# exit status in $rc.
at() {
	local when=$1
	shift
	tenure_at "$when" --config "$CASE/tenure.conf" "$@" \
		>"$CASE/out" 2>"$CASE/err"
	rc=$?
}

# The mails of this case the server took whose envelope has $1.
count_to() {
	find "$SMTP_MAILDIR/new" -type f -newer "$CASE/start" |
		xargs -r grep -l "^X-Envelope-To: \(.*, \)\{0,1\}$1[,$(printf '\r')]" |
		wc -l | tr -d ' '
}

queued() {
	ls "$CASE/state/outbox/queue" 2>/dev/null | wc -l | tr -d ' '
}

# --- Mail kept under --now -------------------------------------------
setup_case now
"$TENURE" --config "$CASE/tenure.conf" --now 2027-01-01T10:00:00Z \
	run --once >"$CASE/now.out" 2>"$CASE/now.err"
test_begin "under --now the announcements of the scheduled expiries are kept in the outbox"
test_expect_equal "0 2" "$(smtp_count) $(queued)" "$(cat "$CASE/now.out" "$CASE/now.err")"

at 2027-01-01T10:05:00Z outbox
test_begin "tenure outbox lists each: ID, kind, recipients, no attempt yet, due now"
listed=$(tail -n +2 "$CASE/out" | cut -f2-6 | sort)
test_expect_equal "0 ID	KIND	RECIPIENTS	ATTEMPTS	NEXT-ATTEMPT	LAST-ERROR
announce-scheduled	ctte@lists.example.org, alice@example.org	0	now	-
announce-scheduled	ctte@lists.example.org, bob@example.org	0	now	-" \
	"$rc $(head -n 1 "$CASE/out")
$listed" "$(cat "$CASE/err")"

alice_id=$(grep 'alice@example.org' "$CASE/out" | cut -f1)
bob_id=$(grep 'bob@example.org' "$CASE/out" | cut -f1)

at 2027-01-01T10:05:00Z outbox drop "$alice_id"
test_begin "drop without --reason is refused, and drops nothing"
test_expect_equal "2 1 2" "$rc $(grep -c -- '--reason TEXT is required' "$CASE/err") $(queued)"

at 2027-01-01T10:05:00Z outbox drop "<nobody@example.org>" --reason typo
test_begin "drop of an ID the outbox does not hold says so"
test_expect_equal "1 1 2" "$rc $(grep -c 'is not in the outbox' "$CASE/err") $(queued)" \
	"$(cat "$CASE/err")"

at 2027-01-01T10:05:00Z outbox drop "$alice_id" --reason "sent by hand"
test_begin "drop removes it, and the log keeps the admin's reason"
test_expect_equal "0 1 1" \
	"$rc $(queued) $(grep -c "^outbox-dropped .*reason=\"\{0,1\}sent by hand" "$CASE/err")" \
	"$(cat "$CASE/out" "$CASE/err")"

at 2027-01-01T10:05:00Z outbox
test_begin "the list no longer shows it"
test_expect_equal "1 0 1" "$(tail -n +2 "$CASE/out" | wc -l | tr -d ' ') $(grep -c alice "$CASE/out") $(grep -c bob "$CASE/out")"

at 2027-01-01T10:05:00Z outbox drop "$alice_id" --reason again
test_begin "dropping it again says it was dropped already"
test_expect_equal "1 1" "$rc $(grep -c 'dropped already' "$CASE/err")" "$(cat "$CASE/err")"

at 2027-01-01T10:05:00Z status
test_begin "status counts the one left"
test_expect_equal "1" "$(grep -c '^Outbox: 1 message(s) waiting to be sent' "$CASE/out")" \
	"$(cat "$CASE/out")"

at 2027-01-01T10:10:00Z run --once
at 2027-01-01T12:00:00Z run --once
test_begin "the next real passes send Bob's, never Alice's, nor queue hers again"
test_expect_equal "0 0 1 0" \
	"$rc $(count_to alice@example.org) $(count_to bob@example.org) $(queued)" \
	"$(cat "$CASE/err")"

# --- A reminder to an address that no longer exists -----------------
setup_case gone
# The announcements of the scheduled expiries go on their day.
at 2027-01-01T10:00:00Z run --once
sleep 1
touch "$CASE/start"
sleep 1
smtp_refuse_rcpt alice@example.org \
	"450 4.1.2 <alice@example.org>: Recipient address rejected: Domain not found"
# Her 90-day reminder fails; Bob's goes.
at 2027-10-05T09:00:00Z run --once
test_begin "Bob's reminder goes; the one to the address that is gone fails"
test_expect_equal "1 1 0" "$rc $(count_to bob@example.org) $(count_to alice@example.org)" \
	"$(cat "$CASE/err")"

at 2027-10-05T09:00:20Z outbox
line=$(grep 'alice@example.org' "$CASE/out")
test_begin "tenure outbox lists it: kind, recipient, attempts, next attempt, the server's words"
test_expect_equal "reminder	alice@example.org	1	recipient alice@example.org: 450 4.1.2 <alice@example.org>: Recipient address rejected: Domain not found
2027-10-05 09:0" \
	"$(printf '%s\n' "$line" | cut -f2-4,6)
$(printf '%s\n' "$line" | cut -f5 | cut -c1-15)" "$(cat "$CASE/out")"
alice_id=$(printf '%s\n' "$line" | cut -f1)

at 2027-10-05T09:01:00Z status
test_begin "status counts it as failing"
test_expect_equal "1" "$(grep -c 'could not be sent yet' "$CASE/out")" "$(cat "$CASE/out")"

bare=${alice_id#<}
at 2027-10-05T09:02:00Z outbox drop "${bare%>}" --reason "Alice's domain is gone; told by phone"
test_begin "drop takes the ID without its angle brackets too"
test_expect_equal "0 0" "$rc $(queued)" "$(cat "$CASE/out" "$CASE/err")"

at 2027-10-05T09:02:00Z status
test_begin "status no longer counts it"
test_expect_equal "0 0" "$(grep -c 'could not be sent yet' "$CASE/out") $(grep -c '^Outbox:' "$CASE/out")" \
	"$(cat "$CASE/out")"

rm -f "$SMTP_CONTROL.rcpt"
at 2027-10-06T09:00:00Z run --once
test_begin "with the address back, the dropped reminder is never sent"
test_expect_equal "0 0 0" "$rc $(count_to alice@example.org) $(queued)" "$(cat "$CASE/err")"

# --- Beside a running daemon -----------------------------------------
# The daemon's first pass queues Alice's announcement and her reminder,
# both refused for now; the reminder is dropped while it runs, the
# address comes back, and SIGHUP makes the rest due: the announcement
# goes, the reminder never.
setup_case daemon
smtp_refuse_rcpt alice@example.org "450 4.1.2 <alice@example.org>: try later"
TZ=UTC FAKETIME_ONLY_CMDS=tenure FAKETIME_DONT_FAKE_MONOTONIC=1 \
	"$FAKED" "$(faked_at 2027-10-05T09:00:00Z)" \
	"$TENURE" --config "$CASE/tenure.conf" run 2>"$CASE/daemon.log" &
daemon=$!
test_cleanup "kill -KILL $daemon"
test_begin "the daemon: Alice's announcement and reminder both wait"
if wait_for 60 '[ "$(grep -c "^deferred .*recipients=alice@example.org" "$CASE/daemon.log" 2>/dev/null)" -ge 2 ]'; then
	at 2027-10-05T09:00:10Z outbox
	reminder=$(grep '	reminder	alice@example.org	' "$CASE/out" | cut -f1)
	announcement=$(grep '	announce-scheduled	alice@example.org	' "$CASE/out" | cut -f1)
	test_expect_equal "yes yes" "${reminder:+yes} ${announcement:+yes}" "$(cat "$CASE/out")"
else
	test_fail "not deferred" "$(cat "$CASE/daemon.log")"
fi
at 2027-10-05T09:00:10Z outbox drop "$reminder" --reason "Alice left; the daemon runs"
test_begin "drop beside the running daemon"
test_expect_equal "0 1" "$rc $(queued)" "$(cat "$CASE/err")"
rm -f "$SMTP_CONTROL.rcpt"
kill -HUP $daemon
test_begin "after SIGHUP the announcement goes to Alice, the dropped reminder never"
# The retry after the flush SIGHUP asks for (the list's copy went before).
sent_after_flush() {
	sed -n '/^run-flush /,$p' "$CASE/daemon.log" | grep -c -F "sent message-id=$1"
}
if wait_for 60 '[ "$(sent_after_flush "$announcement")" -ge 1 ]'; then
	test_expect_equal "0 0 1" \
		"$(grep -c "^sent message-id=$reminder" "$CASE/daemon.log") $(queued) $(count_to alice@example.org)" \
		"$(cat "$CASE/daemon.log")"
else
	test_fail "the announcement was not sent" "$(cat "$CASE/daemon.log")"
fi
kill -TERM $daemon
wait $daemon
test_begin "the daemon ends cleanly"
test_expect_equal 0 "$?" "$(tail -n 5 "$CASE/daemon.log")"

test_done
