#!/bin/sh
# t-clock-trust.sh: `tenure clock trust` ends only the doubt the admin
# saw (issue 41 item 1).  The trust is the safety net for acts that
# cannot be taken back, so a jump of the clock found after it is a new
# doubt, however soon after:
#   - on a clock stopped at one second (libfaketime), as on a fast host
#     where trust, pass, jump and pass fit in one second: a trust, a
#     pass it lets act, a 20-day jump in the record, and the next pass
#     (a new process started in the trust's second) doubts again and
#     holds Erin's expiry; a second trust in that same second ends the
#     new doubt.  Before the fix the trust covered any doubt of a
#     process started in its second: the jump was trusted in 5 tries of
#     5;
#   - under the daemon, between two of its passes, in that same second:
#     the trust is given for its doubt, and the record then jumps 20
#     days again before the daemon's next pass; the daemon weighs the
#     jump and goes on doubting, and a second trust, for this second
#     doubt of the same second, ends it.  Before the fix the admin's word ended the doubt without
#     a look at the record.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/clock.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for the notification socket"
[ -r /proc/sys/kernel/random/boot_id ] || test_skip_all "no boot id"

# No NTP, Maildir in and out: nothing but the record and the admin
# vouches for the clock (clock.h).
TENURE_TEST_CLOCK_NTP=unsynced
export TENURE_TEST_CLOCK_NTP

committee_init
clock_committee "$W/c" source.poll-interval=1
STATE=$DIR/state
# One second, stopped: every process below is started in it.
second=$(date -u '+%Y-%m-%d %H:%M:%S')
at() { tenure_at "$second" --config "$CONF" "$@"; }
once() { at run --once >>"$W/out" 2>"$W/log"; echo $? >"$W/status"; }
trust() { at clock trust >>"$W/trust.out" 2>>"$W/trust.log"; }
# jump: the last pass recorded 20 days before it was, in this boot: the
# clock moved 20 days further than the time since.
jump() { clock_record_back 20; }
doubted() { grep -c '^clock-doubt reason="tenure.s clock moved' "$W/log"; }

once
test_begin "on the right clock the pass is recorded, nothing expires"
test_expect_equal "exit 0, 0 expired" \
	"exit $(cat "$W/status"), $(clock_expires) expired" "$(cat "$W/log")"

jump
once
test_begin "20 days ahead of the last pass: doubted, exit 1"
test_expect_equal "exit 1, 1 doubt logged" \
	"exit $(cat "$W/status"), $(doubted) doubt logged" "$(cat "$W/log")"

trust
once
test_begin "tenure clock trust, then a pass in the same second: it acts"
test_expect_equal "exit 0, 0 doubt logged" \
	"exit $(cat "$W/status"), $(doubted) doubt logged" \
	"$(cat "$W/log" "$W/trust.log")"

jump
once
test_begin "a jump found after the trust, by a pass started in its second: a new doubt, exit 1"
test_expect_equal "exit 1, 1 doubt logged, 0 trusted by the admin" \
	"exit $(cat "$W/status"), $(doubted) doubt logged, $(grep -c '^clock-trusted .*the admin trusted it' "$W/log") trusted by the admin" \
	"$(cat "$W/log" "$STATE/clock")"
test_begin "... the record and status say so"
at status >"$W/st" 2>&1
test_expect_equal "1 1" \
	"$(grep -c '^Doubt: ' "$STATE/clock") $(grep -c 'doubts its clock' "$W/st")" \
	"$(cat "$STATE/clock" "$W/st")"

trust
once
test_begin "a second trust in the same second ends the new doubt"
test_expect_equal "exit 0, 0 doubt logged" \
	"exit $(cat "$W/status"), $(doubted) doubt logged" \
	"$(cat "$W/log" "$W/trust.log")"

# The daemon, on the same stopped second (so that its two doubts and
# both trusts fall in one second too), told to read only every hour: its
# main thread, which alone weighs the clock, looks at it in a pass (the
# first, and one a SIGHUP starts) and says STATUS= when the pass is
# over (a stand-in for systemd's socket, tests/lib/notify-listen.py).
jump
sed -i 's/^poll-interval = .*/poll-interval = 3600/' "$CONF"
grep -q '^poll-interval = 3600' "$CONF" || test_fail "no poll-interval in $CONF"
SOCK=$W/notify.sock MSGS=$W/notify
: >"$MSGS"
/usr/bin/python3 "$top_srcdir/tests/lib/notify-listen.py" "$SOCK" "$MSGS" \
	>"$W/listening" &
listener=$!
wait_for 10 'grep -q ready "$W/listening"'
NOTIFY_SOCKET=$SOCK TZ=UTC FAKETIME_ONLY_CMDS=tenure FAKETIME_DONT_FAKE_MONOTONIC=1 \
	"$FAKED" "$second" "$TENURE" --config "$CONF" run 2>"$W/daemon.log" &
pid=$!
test_cleanup "kill $pid $listener 2>/dev/null"
passes() { grep -c '^STATUS=reading' "$MSGS"; }
test_begin "the daemon's first pass doubts the jump"
if wait_for 30 '[ "$(passes)" -ge 1 ]'; then
	test_expect_equal "1" \
		"$(grep -c '^clock-doubt reason="tenure.s clock moved' "$W/daemon.log")" \
		"$(cat "$W/daemon.log")"
else
	test_fail "no pass within 30 s" "$(cat "$W/daemon.log" "$MSGS")"
fi

# The admin trusts the doubt the record shows; the record jumps again
# before the daemon's next pass, which a reload starts.
trust
jump
kill -HUP "$pid"
test_begin "daemon: a jump after the trust, before its next pass, is still a doubt"
if wait_for 30 '[ "$(passes)" -ge 2 ]'; then
	test_expect_equal "0 trusted, 1 doubt recorded" \
		"$(grep -c '^clock-trusted' "$W/daemon.log") trusted, $(grep -c '^Doubt: ' "$STATE/clock") doubt recorded" \
		"$(cat "$W/daemon.log" "$STATE/clock")"
else
	test_fail "no second pass within 30 s" "$(cat "$W/daemon.log" "$MSGS")"
fi

trust
kill -HUP "$pid"
test_begin "daemon: the admin's trust of that doubt ends it"
if wait_for 30 '[ "$(passes)" -ge 3 ]'; then
	test_expect_equal "1 trusted, 0 doubt recorded" \
		"$(grep -c '^clock-trusted .*why="the admin trusted it (tenure clock trust)"' "$W/daemon.log") trusted, $(grep -c '^Doubt: ' "$STATE/clock") doubt recorded" \
		"$(cat "$W/daemon.log" "$STATE/clock")"
else
	test_fail "no third pass within 30 s" "$(cat "$W/daemon.log" "$MSGS")"
fi
kill -TERM "$pid"
wait "$pid"

test_done
