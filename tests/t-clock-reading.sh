#!/bin/sh
# t-clock-reading.sh: a server's reading of its clock is evidence for an
# hour (src/base/clock.c READING_LIFE), carried by the monotonic clock: a
# server whose clock was wrong and was put right holds no doubt longer,
# even when no new session with it comes (issue 25 item 3).
#   - the tests' SMTP server 40 days ahead (its greeting gives its date,
#     as Exim's does) puts the daemon in doubt when it sends a mail;
#   - the server's clock is put right, and nothing is left to send: a
#     few seconds on, the reading still holds the doubt;
#   - the daemon's clocks moved 61 minutes on (tests/lib/faked.sh --file,
#     the monotonic clock with them): the reading has expired, the
#     doubt ends, the log says what it was and what ended it.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/smtp.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
command -v flock >/dev/null || test_skip_all "no flock (util-linux)"
smtp_start plain || test_skip_all "aiosmtpd would not start"

# No NTP vouches for the clock (clock.h); the tests' SMTP server, on
# this host, is taken for a witness.
TENURE_TEST_CLOCK_NTP=unsynced
TENURE_TEST_CLOCK_LOCAL_WITNESS=1
export TENURE_TEST_CLOCK_NTP TENURE_TEST_CLOCK_LOCAL_WITNESS

committee_init
committee_ledger "Alice Example <alice@example.org>" \
	"Bob Example <bob@example.org>"
: >"$W/keyring.gpg"
committee_conf "sink.url=smtp://127.0.0.1:$SMTP_PORT" sink.starttls=no \
	source.poll-interval=1
STATE=$W/state
# Bob's resignation, recorded: its announcement is the one mail to send.
committee_event resign "$today" "Member: Bob Example <bob@example.org>" \
	"Source: <resign-bob@example.org>"

echo $((40 * 86400)) >"$SMTP_CONTROL.date"
echo +0 >"$W/offset"
"$FAKED" --file "$W/offset" "$TENURE" --config "$CONF" run \
	2>"$W/daemon.log" &
pid=$!
test_cleanup "kill $pid 2>/dev/null"

test_begin "the SMTP server's greeting 40 days ahead: the daemon doubts its clock"
if wait_for 30 'grep -q "^clock-doubt" "$W/daemon.log"'; then
	test_expect_equal "1 1" \
		"$(grep -c '^clock-doubt reason="the clock of the SMTP server 127.0.0.1:[0-9]* says .*: tenure.s is \(39 days 23\|40 days 0\) h behind"' "$W/daemon.log") $(smtp_count)" \
		"$(cat "$W/daemon.log")"
else
	test_fail "no clock-doubt within 30 s" "$(cat "$W/daemon.log")"
fi

# The server's clock put right; the outbox is empty, so no session
# comes to read it again.
rm -f "$SMTP_CONTROL.date"
sleep 3
test_begin "the server put right, no new session: within the hour the reading still holds the doubt"
"$TENURE" --config "$CONF" status >"$W/status" 2>&1
test_expect_equal "0 1" \
	"$(grep -c '^clock-trusted' "$W/daemon.log") $(grep -c '^Clock: the clock of the SMTP server' "$W/status")" \
	"$(cat "$W/daemon.log" "$W/status")"

# 61 minutes on for the daemon.  Its last pass must agree with that
# move, which the time since boot (read from /proc/uptime, never faked)
# does not make: the record's time since boot is set back as far, under
# the lock every writer of the record holds (t-clock-lock.sh).
exec 9>"$STATE/clock.lock"
flock 9
boottime=$(sed -n 's/^Boottime: //p' "$STATE/clock")
sed -i "s/^Boottime: .*/Boottime: $((boottime - 61 * 60))/" "$STATE/clock"
state_reseal "$STATE/clock"
echo +61m >"$W/offset"
exec 9>&-

test_begin "61 minutes on: the reading has expired and the doubt ends, saying what it was"
if wait_for 30 'grep -q "^clock-trusted" "$W/daemon.log"'; then
	"$TENURE" --config "$CONF" status >"$W/status" 2>&1
	test_expect_equal "1 0 1" \
		"$(grep -c '^clock-trusted was="the clock of the SMTP server 127.0.0.1:[0-9]* says' "$W/daemon.log") $(grep -c 'doubts its clock' "$W/status") $(smtp_count)" \
		"$(cat "$W/daemon.log" "$W/status")"
else
	test_fail "no clock-trusted within 30 s" "$(cat "$W/daemon.log" "$STATE/clock")"
fi
kill -TERM $pid
wait $pid

test_done
