#!/bin/sh
# t-deadlines-smtp.sh: the other direction of t-deadlines.sh.  A real
# SMTP server (aiosmtpd) behind a proxy that passes one byte a second
# (tests/lib/netstall.py --trickle), so that libcurl's per-read and
# low-speed timeouts never trip: a member's resignation that arrives
# meanwhile is recorded at once (the reading of mail never waits on the
# sink); SIGTERM ends the daemon within 10 s while the server trickles;
# the SMTP attempt is given up at its deadline (15 s to connect, 60 s in
# all) and the mail stays queued for a retry.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/smtp.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
command -v gpg >/dev/null || test_skip_all "no gpg"
smtp_start plain || test_skip_all "aiosmtpd would not start"

# The announcements of Alice's resignation the SMTP server took.
announced() {
	grep -l 'Alice Example resigns' "$SMTP_MAILDIR"/new/* 2>/dev/null |
		wc -l | tr -d ' '
}

bob_resigned() {
	awk 'BEGIN { RS = "" } /Event: resign/ && /Member: Bob Example/ { f = 1 }
		END { exit !f }' "$W/ledger"
}

committee_init
ALICE=$(gpg_new_key "Alice Example" alice@example.org) ||
	test_skip_all "gpg could not make keys"
BOB=$(gpg_new_key "Bob Example" bob@example.org) ||
	test_skip_all "gpg could not make keys"
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org
committee_ledger "Alice Example <alice@example.org> $ALICE" \
	"Bob Example <bob@example.org> $BOB"

TRICKLE_LOG=$W/trickle.log
/usr/bin/python3 "$top_srcdir/tests/lib/netstall.py" \
	--trickle "127.0.0.1:$SMTP_PORT" >"$W/trickle.port" \
	2>"$TRICKLE_LOG" &
test_cleanup "kill $!"
wait_for 10 '[ -s "$W/trickle.port" ]'
TRICKLE_PORT=$(head -n 1 "$W/trickle.port")

committee_conf "sink.url=smtp://127.0.0.1:$TRICKLE_PORT" "sink.starttls=no"

"$TENURE" --config "$CONF" run 2>"$W/daemon.log" &
DAEMON=$!
test_cleanup "kill -KILL $DAEMON"

# Alice resigns: the announcement goes to the trickling server.
deliver "$W/inbox" "$(signed_mail "$ALICE" alice@example.org resign-alice "Tenure: resign")"
wait_for 20 '[ "$(grep -c ^ACCEPT "$TRICKLE_LOG")" -ge 1 ]'

test_begin "while the SMTP server trickles, a member's mail is still acted on at once"
sleep 2
deliver "$W/inbox" "$(signed_mail "$BOB" bob@example.org resign-bob "Tenure: resign")"
# The ledger is written before the log line: wait for both.
if wait_for 20 'bob_resigned && grep -q "^applied .*bob@" "$W/daemon.log"'; then
	# Recorded while the attempt for Alice's announcement still hung:
	# the log has Bob's "applied" before the attempt's "deferred".
	order=$(grep -E '^(applied .*bob@|deferred )' "$W/daemon.log" |
		head -n 1 | cut -d' ' -f1)
	test_expect_equal "applied 0 1" \
		"$order $(announced) $(grep -c ^ACCEPT "$TRICKLE_LOG")"
else
	test_fail "Bob's resignation not recorded within 20 s" "$(cat "$W/daemon.log")"
fi

test_begin "SIGTERM while the SMTP server trickles: the daemon stops within 10 s"
stop_within 10 $DAEMON
test_expect_equal "exit 0 fast 1 0" \
	"$STOPPED $(grep -c '^run-stop reason=signal' "$W/daemon.log") $(announced)"

# libcurl counts the greeting and EHLO as part of connecting: a server
# that trickles them is given up at the connect deadline (15 s); one
# that trickles later answers, at the total deadline (60 s).
test_begin "the trickling SMTP attempt is given up at its deadline; the mail stays queued"
accepted=$(grep -c ^ACCEPT "$TRICKLE_LOG")
"$TENURE" --config "$CONF" run 2>"$W/daemon2.log" &
DAEMON=$!
test_cleanup "kill -KILL $DAEMON"
wait_for 20 '[ "$(grep -c ^ACCEPT "$TRICKLE_LOG")" -gt $accepted ]'
started=$(date +%s)
if wait_for 90 'grep -q "^deferred " "$W/daemon2.log"'; then
	took=$(($(date +%s) - started))
	test_expect_equal "yes 0 2" \
		"$([ $took -ge 13 ] && [ $took -le 70 ] && echo yes || echo "no ($took s)") $(announced) $(outbox_count | tr -d ' ')"
else
	test_fail "no deferral within 90 s" "$(cat "$W/daemon2.log")"
fi
stop_within 10 $DAEMON

test_done
