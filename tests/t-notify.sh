#!/bin/sh
# t-notify.sh: what `tenure run` tells systemd (sd_notify(3)), read from
# a stand-in for systemd's notification socket (tests/lib/notify-listen.py)
# named in NOTIFY_SOCKET, as a Type=notify unit names it.  READY=1 once
# the daemon is started, and never from one that could not start;
# STATUS= after each pass; WATCHDOG=1 only when WATCHDOG_USEC asks for
# it, at least twice a period; RELOADING=1 then READY=1 on SIGHUP;
# STOPPING=1 on SIGTERM.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3"

committee_init
committee_ledger "Erin Example <erin@example.org>"
committee_conf source.poll-interval=300
: >"$W/keyring.gpg"

listener=
daemon=
stop_all() {
	[ -n "$daemon" ] && kill -KILL "$daemon" 2>/dev/null
	[ -n "$listener" ] && kill "$listener" 2>/dev/null
	daemon= listener=
}
test_cleanup stop_all

# listen NAME: a fresh socket $W/NAME.sock, its messages in $W/NAME.
listen() {
	SOCK=$W/$1.sock MSGS=$W/$1
	rm -f "$SOCK" "$MSGS"
	: >"$MSGS"
	/usr/bin/python3 "$top_srcdir/tests/lib/notify-listen.py" "$SOCK" "$MSGS" \
		>"$W/$1.listening" &
	listener=$!
	wait_for 10 'grep -q ready "$W/$1.listening"'
}

# start_daemon [ENV...]: tenure run with NOTIFY_SOCKET=$SOCK.
start_daemon() {
	env NOTIFY_SOCKET="$SOCK" "$@" "$TENURE" --config "$CONF" run \
		2>"$W/log" &
	daemon=$!
}

listen plain
start_daemon

test_begin "the started daemon says READY=1 with a STATUS="
if wait_for 20 'grep -q "^READY=1 | STATUS=" "$MSGS"'; then
	test_pass
else
	test_fail "no READY=1" "$(cat "$MSGS")" "$(cat "$W/log")"
fi

test_begin "after its pass, STATUS= names the source and the outbox"
if wait_for 20 'grep -q "^STATUS=reading maildir:.*; outbox: 0 queued; undecided: 0$" "$MSGS"'; then
	test_pass
else
	test_fail "no pass status" "$(cat "$MSGS")"
fi

test_begin "SIGHUP: RELOADING=1, then READY=1 once the configuration is loaded"
kill -HUP "$daemon"
if wait_for 20 'grep -q "^READY=1 | STATUS=reloaded$" "$MSGS"'; then
	test_expect_equal "RELOADING=1 | STATUS=reloading the configuration" \
		"$(grep -B1 '^READY=1 | STATUS=reloaded$' "$MSGS" | head -n 1)" \
		"$(cat "$MSGS")"
else
	test_fail "no READY=1 after the reload" "$(cat "$MSGS")" "$(cat "$W/log")"
fi

test_begin "without WATCHDOG_USEC, no WATCHDOG=1"
test_expect_equal 0 "$(grep -c '^WATCHDOG=1$' "$MSGS")"

test_begin "SIGTERM: STOPPING=1, and the daemon exits 0"
kill -TERM "$daemon"
status=0
wait "$daemon" || status=$?
daemon=
test_expect_equal "exit 0, STOPPING=1 | STATUS=stopping" \
	"exit $status, $(grep '^STOPPING=1' "$MSGS")" "$(cat "$W/log")"
stop_all

listen watchdog
start_daemon WATCHDOG_USEC=2000000

test_begin "WATCHDOG_USEC=2 s: the idle daemon says WATCHDOG=1 again and again"
# It sleeps at most half the period between two, 1 s here, though its
# poll interval is 300 s.
if wait_for 60 '[ "$(grep -c "^WATCHDOG=1$" "$MSGS")" -ge 4 ]'; then
	test_pass
else
	test_fail "$(grep -c '^WATCHDOG=1$' "$MSGS") WATCHDOG=1 in 60 s" \
		"$(cat "$MSGS")"
fi

test_begin "a watchdog for another process (WATCHDOG_PID) is not this one's"
stop_all
listen other
start_daemon WATCHDOG_USEC=2000000 WATCHDOG_PID=1
wait_for 20 'grep -q "^STATUS=reading" "$MSGS"'
test_expect_equal "1 READY=1, 0 WATCHDOG=1" \
	"$(grep -c '^READY=1' "$MSGS") READY=1, $(grep -c '^WATCHDOG=1$' "$MSGS") WATCHDOG=1"
kill -TERM "$daemon"
wait "$daemon"
daemon=
stop_all

test_begin "a daemon that cannot start says no READY=1, and exits non-zero"
listen broken
committee_conf broken.conf source.url=nowhere:at-all >/dev/null
env NOTIFY_SOCKET="$SOCK" "$TENURE" --config "$W/broken.conf" run 2>"$W/log"
status=$?
test_expect_equal "exit 1, 0 READY=1" \
	"exit $status, $(grep -c '^READY=1' "$MSGS") READY=1" "$(cat "$W/log")"
stop_all

test_done
