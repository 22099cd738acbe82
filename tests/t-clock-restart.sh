#!/bin/sh
# t-clock-restart.sh: a restart trusts its clock only after a witness is
# read (issue 43 item 7).  tenure's clock runs 2 days behind (libfaketime)
# the real Dovecot's, whose INTERNALDATE shows it: the first pass doubts
# and records the doubt.  A new process on the same clock must not end
# that doubt on its last pass's word before it has read the server:
# before the fix its first schedule logged `clock-trusted ...
# why="its last pass agrees"`, recorded an expiry the doubt held, and
# `run --once` exited 0, though the fetch then read the server behind
# tenure again.  The daemon is tried too: its first schedule comes before
# its first fetch.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/clock.sh"
. "$top_srcdir/tests/lib/dovecot.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
[ -r /proc/sys/kernel/random/boot_id ] || test_skip_all "no boot id"
dovecot_setup
dovecot_start

FAKETIME_DONT_FAKE_MONOTONIC=1
TENURE_TEST_CLOCK_NTP=unsynced
# The tests' Dovecot is on this host: a witness only as the test says.
TENURE_TEST_CLOCK_LOCAL_WITNESS=1
export FAKETIME_DONT_FAKE_MONOTONIC TENURE_TEST_CLOCK_NTP \
	TENURE_TEST_CLOCK_LOCAL_WITNESS

committee_init
printf 'From: someone@example.org\nTo: ctte@lists.example.org\nMessage-ID: <hello@example.org>\nSubject: hello\n\nhello\n' \
	>"$W/hello.eml"
dovecot_deliver "$W/hello.eml"

clock_committee "$W/c" \
	"source.url=imaps://127.0.0.1:$DOVECOT_IMAPS_PORT/INBOX" \
	"source.user=$DOVECOT_USER" \
	"source.password-file=$DOVECOT_PASSWORD_FILE" \
	"source.ca-file=$DOVECOT_CA" source.poll-interval=1
STATE=$DIR/state
behind() { "$FAKED" -2d "$TENURE" --config "$CONF" "$@"; }
gina_expired() {
	grep -c '^Member: Gina Example' "$DIR/ledger" | tr -d ' ' |
		{ read -r n; echo $((n - 1)); }
}

behind run --once >"$W/p1.out" 2>"$W/p1.log"
status=$?
test_begin "2 days behind the server: the first pass reads the INTERNALDATE, doubts, records the doubt, exit 1"
test_expect_equal "exit 1, 1 doubt, 1 recorded" \
	"exit $status, $(grep -c '^clock-doubt reason="the IMAP server .* has passed .*tenure.s clock is \(1 days 23 h\|2 days 0 h\) behind' "$W/p1.log") doubt, $(grep -c '^Doubt: the IMAP server' "$STATE/clock") recorded" \
	"$(cat "$W/p1.log" "$STATE/clock")"

# Gina's one-year term ended 5 days ago: an expiry due on tenure's clock
# too, which only a trusted clock may record.
printf '\nEvent: appoint\nDate: %s\nMember: Gina Example <gina@example.org>\nSource: import\n' \
	"$(date -u -d '370 days ago' +%F)" >>"$DIR/ledger"

behind run --once >"$W/p2.out" 2>"$W/p2.log"
status=$?
test_begin "a new process on the same clock: no trust on its last pass's word, no expiry recorded, exit 1"
test_expect_equal "exit 1, 0 trusted, 0 expired" \
	"exit $status, $(grep -c '^clock-trusted' "$W/p2.log") trusted, $(gina_expired) expired" \
	"$(cat "$W/p2.log" "$STATE/clock")"
test_begin "... the doubt is still recorded, and run --once says why"
test_expect_equal "1 1" \
	"$(grep -c '^Doubt: the IMAP server' "$STATE/clock") $(grep -c '^tenure run: tenure doubts its clock: the IMAP server' "$W/p2.log")" \
	"$(cat "$W/p2.log" "$STATE/clock")"

(exec "$FAKED" -2d "$TENURE" --config "$CONF" run >"$W/d.out" 2>"$W/d.log") &
pid=$!
test_cleanup "kill $pid 2>/dev/null"
# The daemon's first fetch reads the server (its session's EXAMINE and
# FETCH) and weighs the clock again.
wait_for 60 'grep -q "^imap-" "$W/d.log" && grep -q "^clock-doubt\|^fetch" "$W/d.log"' >/dev/null
sleep 2
kill -TERM "$pid"
wait "$pid"
test_begin "the daemon restarted on that clock: no trust before the server is read, no expiry recorded"
test_expect_equal "0 trusted, 0 expired" \
	"$(grep -c '^clock-trusted' "$W/d.log") trusted, $(gina_expired) expired" \
	"$(cat "$W/d.log")"

behind clock trust >"$W/t.out" 2>"$W/t.log"
test_begin "control: the admin's word ends the recorded doubt, and the held expiry is recorded"
# The pass after the trust reads the server behind again: a new doubt;
# the schedule before it acts on the admin's word.
behind run --once >"$W/p3.out" 2>"$W/p3.log"
test_expect_equal "1 expired" "$(gina_expired) expired" \
	"$(cat "$W/t.log" "$W/p3.log")"

test_done
