#!/bin/sh
# t-watchdog.sh: the watchdog sees work, not one loop (issue 33, item 5).
# A stand-in for systemd's notification socket (tests/lib/notify-listen.py,
# each message stamped with its time) and WATCHDOG_USEC=3 s, as a unit's
# WatchdogSec= sets it; the fake gpgv (tests/lib/fake-gpg.sh) sleeps 2 s
# before each verification, or hangs.  A backlog of six slow
# verifications (12 s, four periods), during which the main loop waits
# for the work lock the reader holds, still says WATCHDOG=1 after each
# message and never leaves a period without one; a gpgv hung past the
# period (gpg-timeout 10 s) leaves the daemon silent, so that systemd
# would kill it, until the deadline kills gpgv and work goes on.  An
# outbox of five mails sent to an SMTP server (tests/lib/smtpd.py) that
# takes 2 s over each is work too: WATCHDOG=1 after each mail.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/smtp.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3"
command -v gpg >/dev/null || test_skip_all "gpg is not installed"
smtp_start plain || test_skip_all "aiosmtpd would not start"

committee_init
set --
for who in alice bob carol dave erin frank grace henry ivan judy ken liam; do
	name="$(echo "$who" | sed 's/./\U&/') Member"
	fpr=$(gpg_new_key "$name" "$who@example.org")
	eval "$(echo "$who" | tr a-z A-Z)=\$fpr"
	set -- "$@" "$name <$who@example.org> $fpr"
done
committee_ledger "$@"
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org dave@example.org erin@example.org frank@example.org \
	grace@example.org henry@example.org ivan@example.org judy@example.org \
	ken@example.org liam@example.org
committee_conf keys.gpg-timeout=10 source.poll-interval=300
. "$top_srcdir/tests/lib/fakegpg.sh"

listener=
daemon=
stop_all() {
	[ -n "$daemon" ] && kill -KILL "$daemon" 2>/dev/null
	[ -n "$listener" ] && kill "$listener" 2>/dev/null
	daemon= listener=
}
test_cleanup stop_all

SOCK=$W/notify.sock MSGS=$W/notify
: >"$MSGS"
/usr/bin/python3 "$top_srcdir/tests/lib/notify-listen.py" "$SOCK" "$MSGS" --time \
	>"$W/listening" &
listener=$!
wait_for 10 'grep -q ready "$W/listening"' || test_skip_all "no listener"

now() { python3 -c 'import time; print("%.3f" % time.monotonic())'; }
# pings FROM [TO]: the times of the WATCHDOG=1 that came from FROM (to TO).
pings() {
	awk -v from="$1" -v to="${2:-1e18}" \
		'$2 == "WATCHDOG=1" && $1 >= from && $1 <= to { print $1 }' "$MSGS"
}
# longest_gap FROM TO: the longest time without a WATCHDOG=1 in FROM..TO.
longest_gap() {
	{ echo "$1"; pings "$1" "$2"; echo "$2"; } |
		awk 'NR > 1 && $1 - last > gap { gap = $1 - last } { last = $1 }
		     END { printf "%.1f\n", gap }'
}
# expect_no_gap NAME FROM TO WHAT: no 3 s (the period) without a
# WATCHDOG=1 in FROM..TO.
expect_no_gap() {
	local gap
	test_begin "$1"
	gap=$(longest_gap "$2" "$3")
	if [ "$(echo "$gap < 3" | bc)" = 1 ]; then
		test_pass
	else
		test_fail "$gap s without WATCHDOG=1 in $4" "$(cat "$MSGS")"
	fi
}
resignations() { grep -c "^Event: resign" "$W/ledger" || true; }

# 1. A backlog of slow verifications is work.
for who in ALICE:alice BOB:bob CAROL:carol DAVE:dave ERIN:erin FRANK:frank; do
	eval "fpr=\$${who%%:*}"
	deliver "$W/inbox" "$(signed_mail "$fpr" "${who#*:}@example.org" \
		"r-${who#*:}" "Tenure: resign")"
done
before=$(resignations)
fault "slow 2"
env NOTIFY_SOCKET="$SOCK" WATCHDOG_USEC=3000000 "$TENURE" --config "$CONF" \
	run 2>"$W/daemon.log" &
daemon=$!
wait_for 20 '[ -s "$FAKE_GPG_MODE.log" ]'
start=$(now)
wait_for 60 '[ "$(resignations)" -ge $((before + 6)) ]'
end=$(now)
slow=$(grep -c '^slow' "$FAKE_GPG_MODE.log")

test_begin "a backlog of 6 verifications of 2 s each is applied (12 s, 4 watchdog periods)"
test_expect_equal "6 applied, 6 slow" \
	"$((  $(resignations) - before )) applied, $slow slow" "$(cat "$W/daemon.log")"

test_begin "... WATCHDOG=1 at least once a message through the backlog"
n=$(pings "$start" "$end" | wc -l)
if [ "$n" -ge 5 ]; then
	test_pass
else
	test_fail "$n WATCHDOG=1 in $(echo "$end - $start" | bc) s for 6 messages" \
		"$(cat "$MSGS")"
fi

expect_no_gap "... and never a watchdog period (3 s) without one" \
	"$start" "$end" "the backlog"

# 2. A gpgv hung past the period is no work: the pings stop.
wait_for 30 '[ "$(outbox_count)" = 0 ]'
fault hang 1
deliver "$W/inbox" "$(signed_mail "$GRACE" grace@example.org r-grace \
	"Tenure: resign")"
wait_for 20 'grep -q "^hang" "$FAKE_GPG_MODE.log"'
hung=$(now)
# The deadline kills gpgv 10 s after it began; the pings come back.
wait_for 30 'grep -q "gpgv killed after 10 s" "$W/daemon.log"'
sleep 2
after=$(now)

# $hung is when the test saw the hang, which on a busy machine is a
# while after it began: the pause is looked for from 5 s before.
test_begin "a gpgv hung past the period: 7 s or more without WATCHDOG=1"
gap=$(longest_gap "$(echo "$hung - 5" | bc)" "$after")
if [ "$(echo "$gap >= 7" | bc)" = 1 ]; then
	test_pass
else
	test_fail "the longest pause: $gap s" "$(cat "$MSGS")"
fi

test_begin "... past gpg-timeout the daemon goes on, and says WATCHDOG=1 again"
n=$(pings "$(echo "$hung + 10" | bc)" "$after" | wc -l)
if [ "$n" -ge 1 ] && kill -0 "$daemon" 2>/dev/null; then
	test_pass
else
	test_fail "$n WATCHDOG=1 after the deadline" "$(cat "$MSGS")" \
		"$(cat "$W/daemon.log")"
fi

kill -TERM "$daemon"
wait "$daemon"
daemon=

# 3. Five mails to a server that takes 2 s over each: the main loop is
# in one flush for 10 s.  Queued by a pass while the server said 451,
# made due by SIGHUP.
committee_conf keys.gpg-timeout=10 source.poll-interval=300 \
	"sink.url=smtp://127.0.0.1:$SMTP_PORT" "sink.starttls=no"
fault pass
smtp_answer "451 4.3.0 try again later"
for who in HENRY:henry IVAN:ivan JUDY:judy KEN:ken LIAM:liam; do
	eval "fpr=\$${who%%:*}"
	deliver "$W/inbox" "$(signed_mail "$fpr" "${who#*:}@example.org" \
		"r-${who#*:}" "Tenure: resign")"
done
"$TENURE" --config "$CONF" run --once >/dev/null 2>"$W/once.log"
queued=$(outbox_count)
smtp_answer ""
echo 2 >"$SMTP_CONTROL.delay"
env NOTIFY_SOCKET="$SOCK" WATCHDOG_USEC=3000000 "$TENURE" --config "$CONF" \
	run 2>"$W/daemon2.log" &
daemon=$!
# (Each line of $MSGS begins with the time it came at.)
wait_for 20 'grep -q " STATUS=reading" "$MSGS"'
sleep 1
start=$(now)
kill -HUP "$daemon"
# The end state, not a moment on the way: Grace's mail, undecided when
# the daemon above was stopped, is made due by the SIGHUP too, and its
# announcement may be queued after the others are sent.
queued_all() { cat "$W/once.log" "$W/daemon2.log" | grep -c "queued kind=" || true; }
sent_all() { grep -c "sent message-id=" "$W/daemon2.log" || true; }
wait_for 60 'grep -q "applied msgid=<r-grace@" "$W/once.log" "$W/daemon2.log" &&
	[ "$(sent_all)" -ge "$(queued_all)" ] && [ "$(outbox_count)" = 0 ]'
end=$(now)

test_begin "an outbox of 5 or more mails, 2 s each: all sent"
test_expect_equal "yes, 0 left, $(queued_all) sent" \
	"$([ "$queued" -ge 5 ] && echo yes || echo "$queued queued"), $(outbox_count) left, $(sent_all) sent" \
	"$(cat "$W/once.log" "$W/daemon2.log")"

expect_no_gap "... and never a watchdog period (3 s) without WATCHDOG=1 while they go" \
	"$start" "$end" "the flush"
kill -TERM "$daemon"
wait "$daemon"
daemon=
test_done
