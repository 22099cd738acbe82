#!/bin/sh
# t-resend.sh: the documented resend.  An SMTP server (tests/lib/smtpd.py)
# that takes the mail and drops the connection before its 250: tenure
# cannot know it was delivered, keeps it, and sends it again at the
# retry, with the same Message-ID (RFC 1047).  The log says so, the sent
# record keeps the count, and `tenure status` adds it up.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/smtp.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
command -v certtool >/dev/null || command -v openssl >/dev/null ||
	test_skip_all "neither certtool nor openssl for the test CA"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
smtp_start plain || test_skip_all "aiosmtpd would not start"

committee_init
CASE=$W
committee_ledger "Erin Example <erin@example.org>"
committee_event resign "$today" "Member: Erin Example <erin@example.org>" \
	"Source: <resign-erin@example.org>"
committee_conf "sink.url=smtp://127.0.0.1:$SMTP_PORT" "sink.starttls=no"
: >"$W/keyring.gpg"

# run_once TIME: one pass at TIME today, on a clock stopped there
# (--now would keep the mail from the SMTP server).
run_once() {
	tenure_at "${today}T$1" --config "$CONF" run --once \
		>"$CASE/stdout" 2>>"$CASE/log"
}

# The Message-IDs of the announcements of Erin's resignation the server
# took, one line each.
delivered_ids() {
	grep -l 'Erin Example resigns' "$SMTP_MAILDIR"/new/* 2>/dev/null |
		xargs -r grep -h -i '^Message-Id:' | tr -d '\r'
}

test_begin "the server takes the mail and drops the connection before its 250: run --once exits 1, the mail stays queued, the outcome is logged unknown"
: >"$SMTP_CONTROL.drop"
run_once 10:00:00Z
status=$?
rm -f "$SMTP_CONTROL.drop"
test_expect_equal "1 1 1 1 1" \
	"$status $(delivered_ids | wc -l) $(grep -c '^DROP' "$SMTP_LOG") $(ls "$CASE/state/outbox/queue" | wc -l) $(grep -c '^deferred .*outcome=unknown .*no answer to the message' "$CASE/log")"

test_begin "the retry sends it again, with the same Message-ID, and says why"
run_once 10:05:00Z
status=$?
ids=$(delivered_ids | sort -u | wc -l)
test_expect_equal "0 2 1 1 0" \
	"$status $(delivered_ids | wc -l) $ids $(grep -c '^resending .*outcome of an earlier attempt is unknown: .*no answer to the message' "$CASE/log") $(ls "$CASE/state/outbox/queue" | wc -l)"

test_begin "the sent record keeps the resend"
test_expect_equal "Resends: 1" "$(grep '^Resends:' "$CASE/state/outbox/sent"/*)"

test_begin "tenure status counts the resend"
"$TENURE" --config "$CONF" --now "${today}T10:10:00Z" status \
	>"$CASE/status" 2>&1
test_expect_equal "1" \
	"$(grep -c '^Outbox: 1 resend(s) of 1 message(s) whose earlier attempt had no answer' "$CASE/status")"

test_begin "tenure status --format=json counts it too"
"$TENURE" --config "$CONF" --now "${today}T10:10:00Z" status \
	--format=json >"$CASE/status.json" 2>&1
test_expect_equal "1 1" \
	"$(/usr/bin/python3 -c 'import json,sys; o = json.load(open(sys.argv[1]))["outbox"]; print(o["resends"], o["resent"])' "$CASE/status.json")"

test_done
