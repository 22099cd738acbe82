#!/bin/sh
# t-clock-ask.sh: a doubt ends soon after its cause (issue 33 item 4).
# While tenure doubts its clock it asks the witnesses again every few
# minutes (clock.h CLOCK_ASK_AGAIN): a fresh session with the SMTP server,
# whose greeting gives its date (as Exim's does), though no mail is to
# be sent; the kernel's NTP state is read at every pass.
#   - a start that waits for a witness heard before asks the SMTP server
#     at once, with nothing to send: run --once acts and exits 0, and the
#     log says what ended the doubt;
#   - the SMTP server's clock 40 days ahead puts the daemon in doubt; put
#     right, with no mail left to send, the doubt ends once the daemon's
#     clocks (faked, the monotonic one with them) are a few minutes on,
#     not an hour later when the old reading expires.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/smtp.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
[ -r /proc/sys/kernel/random/boot_id ] || test_skip_all "no boot id"
smtp_start plain || test_skip_all "aiosmtpd would not start"

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

# --- A start asks at once ------------------------------------------------

# Alice's resignation, announced: the greeting is heard, and waited for
# after a reboot.
committee_event resign "$today" "Member: Alice Example <alice@example.org>" \
	"Source: <resign-alice@example.org>"
echo 0 >"$SMTP_CONTROL.date"
"$TENURE" --config "$CONF" run --once >>"$W/out" 2>>"$W/log"
test_begin "a first pass on the right clock announces and hears the SMTP server"
test_expect_equal "0 1 1" \
	"$? $(smtp_count) $(grep -c '^Witness-Dated:' "$STATE/clock")" \
	"$(cat "$W/log")"
sed -i 's/^Boot-Id: .*/Boot-Id: 00000000-0000-0000-0000-000000000000/' \
	"$STATE/clock"
state_reseal "$STATE/clock"
: >"$W/log"
before=$(smtp_count)
test_begin "a start that waits for the SMTP server, nothing to send: it is asked at once, the pass acts"
"$TENURE" --config "$CONF" run --once >>"$W/out" 2>>"$W/log"
test_expect_equal "0 1 1 $before" \
	"$? $(grep -c '^clock-doubt reason="tenure started and no witness has vouched' "$W/log") $(grep -c '^clock-trusted was="tenure started.*why="the SMTP server 127.0.0.1:[0-9]* agrees"' "$W/log") $(smtp_count)" \
	"$(cat "$W/log")"

# --- A server put right ends the doubt within minutes -------------------

committee_event resign "$today" "Member: Bob Example <bob@example.org>" \
	"Source: <resign-bob@example.org>"
echo $((40 * 86400)) >"$SMTP_CONTROL.date"
echo +0 >"$W/offset"
"$FAKED" --file "$W/offset" "$TENURE" --config "$CONF" run \
	2>"$W/daemon.log" &
pid=$!
test_cleanup "kill $pid 2>/dev/null"
test_begin "the SMTP server's greeting 40 days ahead: the daemon doubts its clock"
if wait_for 30 'grep -q "^clock-doubt reason=\"the clock of the SMTP" "$W/daemon.log"'; then
	test_expect_equal "1" \
		"$(grep -c '^clock-doubt reason="the clock of the SMTP server 127.0.0.1:[0-9]* says .*: tenure.s is \(39 days 23\|40 days 0\) h behind"' "$W/daemon.log")" \
		"$(cat "$W/daemon.log")"
else
	test_fail "no clock-doubt within 30 s" "$(cat "$W/daemon.log")"
fi

echo 0 >"$SMTP_CONTROL.date"
sleep 3
test_begin "the server put right: not asked again within the minutes the rule gives"
test_expect_equal "0" "$(grep -c '^clock-trusted' "$W/daemon.log")" \
	"$(cat "$W/daemon.log")"

# Four minutes on for the daemon (its monotonic clock with it): asked
# again, the greeting agrees.
echo +4m >"$W/offset"
test_begin "four minutes on: the server is asked again, the doubt ends, the log says what ended it"
if wait_for 30 'grep -q "^clock-trusted" "$W/daemon.log"'; then
	"$TENURE" --config "$CONF" status >"$W/status" 2>&1
	test_expect_equal "1 0" \
		"$(grep -c '^clock-trusted was="the clock of the SMTP server 127.0.0.1:[0-9]* says.*why="the SMTP server 127.0.0.1:[0-9]* agrees"' "$W/daemon.log") $(grep -c 'doubts its clock' "$W/status")" \
		"$(cat "$W/daemon.log" "$W/status")"
else
	test_fail "no clock-trusted within 30 s" "$(cat "$W/daemon.log" "$STATE/clock")"
fi
kill -TERM $pid
wait $pid
test_begin "the daemon exits 0 on SIGTERM"
test_expect_equal "0" "$?"
rm -f "$SMTP_CONTROL.date"

test_done
