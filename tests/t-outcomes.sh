#!/bin/sh
# t-outcomes.sh: every recipient of a mail gets a final outcome, and an
# unknown outcome is not resent for ever.  `tenure run --once` sends the
# announcements of two scheduled expiries, each to the list and its
# member, through the tests' SMTP server (tests/lib/smtpd.py), which refuses
# Alice once with a 451 and Bob for good with a 550: each list copy goes
# once, Alice gets exactly one copy at the retry, with the same
# Message-ID, and Bob's copy is a dead letter of its own, reported once
# and shown by `tenure status`.  Then a server that takes the data and
# drops every session before its answer: after three such attempts the
# mail is set aside as a dead letter ("the server may have it 3 times").

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/smtp.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
command -v certtool >/dev/null || command -v openssl >/dev/null ||
	test_skip_all "neither certtool nor openssl for the test CA"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
smtp_start plain || test_skip_all "aiosmtpd would not start"

# setup_case NAME: a ledger in which the debian rule fixes the expiries
# of Alice and Bob, the two most senior, on 2027-01-01 (as in
# t-mailout.sh), and a configuration sending to the test server.
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
}

# run_once WHEN: one pass on a clock stopped at WHEN (--now would keep
# the mail from the SMTP server).
run_once() {
	tenure_at "$1" --config "$CASE/tenure.conf" run --once \
		>>"$CASE/out" 2>>"$CASE/err"
}

# The mails of this case the server took whose envelope is exactly $1
# (the server's files keep CRLF), one file a line.
mails_to() {
	find "$SMTP_MAILDIR/new" -type f -newer "$CASE/start" |
		xargs -r grep -l -x "X-Envelope-To: $1$(printf '\r')" | sort
}

count_to() {
	mails_to "$1" | wc -l | tr -d ' '
}

message_ids() {
	for m in "$@"; do
		tr -d '\r' <"$m" | grep -i -m 1 '^Message-Id:' | cut -d' ' -f2
	done
}

queued() {
	ls "$CASE/state/outbox/queue" 2>/dev/null | wc -l | tr -d ' '
}

setup_case recipients
smtp_refuse_rcpt_once alice@example.org "451 4.2.0 mailbox busy, try later"
smtp_refuse_rcpt bob@example.org "550 5.1.1 no such user"
sleep 1
touch "$CASE/start"
sleep 1

test_begin "the first pass: each list copy goes at once, Alice's waits, Bob's is a dead letter"
run_once 2027-01-01T10:00:00Z
test_expect_equal "2 0 0 1 1" \
	"$(count_to ctte@lists.example.org) $(count_to alice@example.org) $(count_to bob@example.org) $(queued) $(grep -c '^dead-letter .*recipient=bob@example.org' "$CASE/err")"

test_begin "Alice's copy waits for her alone, with the server's words"
test_expect_equal "Recipients: alice@example.org
1" "$(grep -h '^Recipients:' "$CASE/state/outbox/queue"/*)
$(grep -c '^deferred .*recipients=alice@example.org .*451 4.2.0 mailbox busy' "$CASE/err")"

test_begin "tenure status shows Bob's dead letter and Alice's waiting copy"
"$TENURE" --config "$CASE/tenure.conf" --now 2027-01-01T10:00:30Z status \
	>"$CASE/status" 2>&1
test_expect_equal "1 1" \
	"$(grep -c 'recipient bob@example.org refused: 550 5.1.1 no such user' "$CASE/status") $(grep -c 'recipient alice@example.org: 451 4.2.0' "$CASE/status")"

test_begin "the retry brings Alice exactly one copy, with the same Message-ID; the list's copies are not sent again"
run_once 2027-01-01T10:05:00Z
run_once 2027-01-01T11:00:00Z
run_once 2027-01-02T11:00:00Z
alice_id=$(message_ids $(mails_to alice@example.org))
list_ids=$(message_ids $(mails_to ctte@lists.example.org) | sort)
test_expect_equal "2 1 0 0 yes" \
	"$(count_to ctte@lists.example.org) $(count_to alice@example.org) $(count_to bob@example.org) $(queued) $(printf '%s\n' "$list_ids" | grep -q -x -F "$alice_id" && echo yes)"

test_begin "Alice's announcement is recorded as sent, Bob's dead letter reported once"
test_expect_equal "2 1 1" \
	"$(ls "$CASE/state/outbox/sent" | wc -l | tr -d ' ') $(ls "$CASE/state/outbox/dead" | wc -l | tr -d ' ') $(grep -c '^dead-letter ' "$CASE/err")"

# A server that takes the data and drops the session before its 250.
setup_case unknown
rm -f "$SMTP_CONTROL.rcpt" "$SMTP_CONTROL.rcpt-once"
: >"$SMTP_CONTROL.drop"
sleep 1
touch "$CASE/start"
sleep 1
for at in 2027-01-01T10:00:00Z 2027-01-01T10:05:00Z 2027-01-01T10:10:00Z \
	2027-01-01T10:20:00Z 2027-01-01T11:00:00Z 2027-01-01T13:00:00Z \
	2027-01-02T13:00:00Z; do
	run_once "$at"
done
rm -f "$SMTP_CONTROL.drop"

test_begin "after three unanswered attempts each announcement is set aside: three copies each at most"
test_expect_equal "3 3 0 2 2" \
	"$(count_to "ctte@lists.example.org, alice@example.org") $(count_to "ctte@lists.example.org, bob@example.org") $(queued) $(ls "$CASE/state/outbox/dead" | wc -l | tr -d ' ') $(grep -c '^dead-letter .*the server may have it 3 times' "$CASE/err")"

test_begin "tenure status shows them as dead letters"
"$TENURE" --config "$CASE/tenure.conf" --now 2027-01-02T13:00:30Z status \
	>"$CASE/status" 2>&1
test_expect_equal "2" \
	"$(grep -c 'the server may have it 3 times' "$CASE/status")"

test_done
