#!/bin/sh
# t-deadlines.sh: every wait has a deadline, and a stop is a stop.  A
# real Dovecot behind a proxy that passes one byte a second
# (tests/lib/netstall.py --trickle), so that no per-read timeout ever trips:
# the announcement that is due goes out all the same, at once (the
# schedule and the outbox never wait on the source); the IMAP connection
# is given up at its total deadline (60 s) and tried again; SIGTERM ends
# the daemon within 10 s.  A write that never returns (the fault shim's
# "hang", a disk that stopped answering) does not hold a stop either.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/dovecot.sh"
. "$top_srcdir/tests/lib/smtp.sh"
. "$top_srcdir/tests/lib/fault.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
command -v gpg >/dev/null || test_skip_all "no gpg"
fault_require
dovecot_setup
dovecot_start
smtp_start plain || test_skip_all "aiosmtpd would not start"

# The announcements of Erin's resignation the SMTP server took.
announced() {
	grep -l 'Erin Example resigns' "$SMTP_MAILDIR"/new/* 2>/dev/null |
		wc -l | tr -d ' '
}

committee_init
ERIN=$(gpg_new_key "Erin Example" erin@example.org) ||
	test_skip_all "gpg could not make keys"
gpg_export_keyring "$W/keyring.gpg" erin@example.org
committee_ledger "Erin Example <erin@example.org> $ERIN"
committee_event resign "$today" "Member: Erin Example <erin@example.org>" \
	"Source: <resign-erin@example.org>"

TRICKLE_LOG=$W/trickle.log
/usr/bin/python3 "$top_srcdir/tests/lib/netstall.py" \
	--trickle "127.0.0.1:$DOVECOT_IMAPS_PORT" >"$W/trickle.port" \
	2>"$TRICKLE_LOG" &
test_cleanup "kill $!"
wait_for 10 '[ -s "$W/trickle.port" ]'
TRICKLE_PORT=$(head -n 1 "$W/trickle.port")

committee_conf \
	"source.url=imaps://127.0.0.1:$TRICKLE_PORT/INBOX" \
	"source.user=$DOVECOT_USER" \
	"source.password-file=$DOVECOT_PASSWORD_FILE" \
	"source.ca-file=$DOVECOT_CA" \
	"sink.url=smtp://127.0.0.1:$SMTP_PORT" "sink.starttls=no"

"$TENURE" --config "$CONF" run 2>"$W/daemon.log" &
DAEMON=$!
test_cleanup "kill -KILL $DAEMON"
started=$(date +%s)

test_begin "a mailbox that trickles a byte a second does not delay a due announcement"
if wait_for 20 '[ "$(announced)" -ge 1 ]'; then
	test_expect_equal "1 accepted, not connected" \
		"$(announced) $(grep -q '^ACCEPT' "$TRICKLE_LOG" && echo accepted), $(grep -q '^imap-connected' "$W/daemon.log" && echo connected || echo not connected)"
else
	test_fail "no announcement within 20 s" "$(cat "$W/daemon.log")"
fi

test_begin "the trickling IMAP connection is given up at its total deadline of 60 s, and tried again"
if wait_for 90 'grep -q "^run-retry in=1 step=fetch" "$W/daemon.log"'; then
	took=$(($(date +%s) - started))
	test_expect_equal "1 yes" \
		"$(grep -c '^run-error step=fetch .*connect: no complete answer within 60 s' "$W/daemon.log") $([ $took -ge 59 ] && [ $took -le 80 ] && echo yes || echo "no ($took s)")"
else
	test_fail "no retry within 90 s" "$(cat "$W/daemon.log")"
fi

test_begin "SIGTERM while the IMAP server trickles: the daemon stops within 10 s"
wait_for 10 '[ "$(grep -c ^ACCEPT "$TRICKLE_LOG")" -ge 2 ]'
stop_within 10 $DAEMON
test_expect_equal "exit 0 fast 1" \
	"$STOPPED $(grep -c '^run-stop reason=signal' "$W/daemon.log")"

# The announcement is queued again for a second committee directory, and
# its queue file's fsync never returns: the schedule hangs in the middle
# of its write, holding the work lock.
test_begin "SIGTERM while a write hangs: the process ends within 10 s, and says why"
rm -rf "$W/state"
committee_conf "sink.url=smtp://127.0.0.1:$SMTP_PORT" "sink.starttls=no"
LD_PRELOAD=$FAULTSHIM TENURE_FAULT='fsync@/outbox/:1:hang' \
	TENURE_FAULT_LOG=$W/hang.fault \
	"$TENURE" --config "$CONF" run 2>"$W/hang.log" &
pid=$!
# The fault's log line is written as the fsync hangs: the daemon is
# there, however slow its start.
wait_for 30 'grep -q "^fsync .*/outbox/" "$W/hang.fault" 2>/dev/null'
stop_within 10 $pid
test_expect_equal "exit 0 fast 1 0" \
	"$STOPPED $(grep -c '^run-stop reason=deadline' "$W/hang.log") $(grep -c '^run-stop reason=signal' "$W/hang.log")"

test_begin "the next start finds what the hung write left, and the announcement goes out once"
before=$(announced)
"$TENURE" --config "$CONF" run --once 2>"$W/once.log"
test_expect_equal "0 $((before + 1))" "$? $(announced)"

test_done
