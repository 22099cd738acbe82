#!/bin/sh
# t-clock-faults.sh: the clock's fault classes, tried (issue 33 item 7).
#   - witnesses that disagree: the kernel's NTP state (synchronised)
#     outweighs an SMTP server whose greeting says tenure is 40 days
#     behind: the pass acts, and the server's reading is no doubt;
#   - NTP synchronisation lost mid-run (systemd-timedated, a stand-in on
#     a private bus, says false from then on): no doubt by itself, the
#     time since boot carries the evidence; a +40 h step after it is
#     doubted, and no expiry is recorded;
#   - EROFS at STATE_DIR/clock.lock, EIO writing STATE_DIR/clock: logged
#     (clock-record), the pass still weighs its clock against the record
#     it can read, a +40 h step is doubted; `tenure clock trust` fails
#     naming the lock, and the doubt stands;
#   - EROFS and EIO making STATE_DIR/message-id-key: no mail is composed
#     or sent without it, run --once exits 1 naming it; the next pass
#     sends each mail once.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/clock.sh"
. "$top_srcdir/tests/lib/fault.sh"
. "$top_srcdir/tests/lib/smtp.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
fault_require
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
[ -r /proc/sys/kernel/random/boot_id ] || test_skip_all "no boot id"
command -v dbus-daemon >/dev/null || test_skip_all "no dbus-daemon (dbus-daemon)"
/usr/bin/python3 -c 'import dbus, gi' 2>/dev/null ||
	test_skip_all "no python3-dbus and python3-gi for tests/lib/timedated.py"
smtp_start plain || test_skip_all "aiosmtpd would not start"

FAKETIME_DONT_FAKE_MONOTONIC=1
TENURE_TEST_CLOCK_NTP=unsynced
export FAKETIME_DONT_FAKE_MONOTONIC TENURE_TEST_CLOCK_NTP
committee_init

sent() {
	ls "$DIR/sent/new" 2>/dev/null | wc -l | tr -d ' '
}

# --- Witnesses that disagree ---------------------------------------------

clock_committee "$W/disagree" "sink.url=smtp://127.0.0.1:$SMTP_PORT" \
	sink.starttls=no
echo $((40 * 86400)) >"$SMTP_CONTROL.date"
test_begin "NTP synchronised, the SMTP server's greeting 40 days ahead: the kernel outweighs the server, the pass acts"
TENURE_TEST_CLOCK_NTP=synced TENURE_TEST_CLOCK_LOCAL_WITNESS=1 \
	"$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "0 0 3" \
	"$? $(grep -c '^clock-doubt' "$DIR/log") $(smtp_count)" "$(cat "$DIR/log")"
test_begin "... NTP not synchronised: the same server's reading is a doubt"
printf '\nEvent: resign\nDate: %s\nMember: Frank Example <frank@example.org>\nSource: <resign-frank@example.org>\n' \
	"$today" >>"$DIR/ledger"
TENURE_TEST_CLOCK_LOCAL_WITNESS=1 \
	"$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "1 1" \
	"$? $(grep -c '^clock-doubt reason="the clock of the SMTP server 127.0.0.1:[0-9]* says .*: tenure.s is \(39 days 23\|40 days 0\) h behind' "$DIR/log")" \
	"$(cat "$DIR/log")"
rm -f "$SMTP_CONTROL.date"

# --- EROFS and EIO at the clock record's lock and the record -----------

clock_committee "$W/lock"
"$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
rm -f "$DIR/state/clock.lock"
test_begin "EROFS at clock.lock, +40 h: logged, the step still doubted, no expiry, exit 1"
FAKED_PRELOAD=$FAULTSHIM TENURE_FAULT=open@clock.lock:1+:EROFS \
	"$FAKED" +40h "$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "1 0 1 1" \
	"$? $(clock_expires) $(grep -c '^clock-record error=".*/clock.lock: Read-only file system"' "$DIR/log" | sed 's/^[1-9][0-9]*$/1/') $(grep -c '^clock-doubt reason="tenure.s clock moved 1 days\? 1[56] h further' "$DIR/log")" \
	"$(cat "$DIR/log")"
test_begin "EROFS at clock.lock: tenure clock trust fails naming it, and the doubt stands"
FAKED_PRELOAD=$FAULTSHIM TENURE_FAULT=open@clock.lock:1+:EROFS \
	"$FAKED" +40h "$TENURE" --config "$CONF" clock trust >/dev/null 2>"$DIR/trust.err"
status=$?
"$FAKED" +40h "$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "1 1 1 0" \
	"$([ $status -ne 0 ] && echo 1) $(grep -c 'clock.lock: Read-only file system' "$DIR/trust.err") $? $(clock_expires)" \
	"$(cat "$DIR/trust.err" "$DIR/log")"
test_begin "EIO writing the clock record, +40 h: logged, the step still doubted, no expiry"
: >"$DIR/log"
FAKED_PRELOAD=$FAULTSHIM TENURE_FAULT=write@/state/clock:1+:EIO \
	"$FAKED" +40h "$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "1 0 1 1" \
	"$? $(clock_expires) $(grep -c '^clock-record error=".*/state/clock: write: Input/output error"' "$DIR/log" | sed 's/^[1-9][0-9]*$/1/') $(grep -c '^clock-doubt reason="tenure.s clock moved 1 days\? 1[56] h further' "$DIR/log")" \
	"$(cat "$DIR/log")"

# --- EROFS and EIO at message-id-key ---------------------------------------

clock_committee "$W/key"
test_begin "EROFS making message-id-key: nothing composed or sent, exit 1 naming it"
with_fault open@message-id-key:1+:EROFS "$TENURE" --config "$CONF" run --once \
	>>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "1 0 1 0" \
	"$? $(sent) $(grep -c 'message-id-key.*Read-only file system' "$DIR/log") $(ls "$DIR/state/outbox/queue" 2>/dev/null | wc -l | tr -d ' ')" \
	"$(cat "$DIR/log")"
test_begin "EIO writing message-id-key: the same"
with_fault write@message-id-key:1+:EIO "$TENURE" --config "$CONF" run --once \
	>>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "1 0 1" \
	"$? $(sent) $(grep -c 'message-id-key.*Input/output error' "$DIR/log")" \
	"$(cat "$DIR/log")"
test_begin "the disk back: the next pass makes the key and sends each mail once"
"$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
"$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "0 3 3" \
	"$? $(sent) $(cat "$DIR"/sent/new/* | grep -i '^Message-ID:' | sort -u | wc -l | tr -d ' ')" \
	"$(cat "$DIR/log")"

# --- NTP synchronisation lost mid-run --------------------------------------

BUS=$W/bus
dbus-daemon --session --nofork --address="unix:path=$BUS" \
	>"$W/dbus.out" 2>"$W/dbus.log" &
dbus=$!
test_cleanup "kill $dbus 2>/dev/null"
wait_for 10 '[ -S "$BUS" ]' || test_skip_all "dbus-daemon would not start: $(cat "$W/dbus.log")"
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$BUS
export DBUS_SYSTEM_BUS_ADDRESS
echo true >"$W/ntp-state"
/usr/bin/python3 "$top_srcdir/tests/lib/timedated.py" "$W/ntp-state" \
	>"$W/timedated.out" 2>"$W/timedated.log" &
timedated=$!
test_cleanup "kill $timedated 2>/dev/null"
wait_for 10 'grep -qs ready "$W/timedated.out"' ||
	test_skip_all "tests/lib/timedated.py would not start: $(cat "$W/timedated.log")"

clock_committee "$W/ntp" source.poll-interval=1
# Erin's expiry a few days off, so that the daemon on the right clock
# has nothing to record.
sed -i "s/^Date: $(date -u -d '364 days ago' +%F)\$/Date: $(date -u -d '360 days ago' +%F)/" \
	"$DIR/ledger"
echo +0 >"$W/offset"
TENURE_TEST_CLOCK_NTP= FAKED_PRELOAD=$FAULTSHIM TENURE_FAULT=adjtimex:1+:EPERM \
	"$FAKED" --file "$W/offset" "$TENURE" --config "$CONF" run \
	2>"$DIR/daemon.log" &
pid=$!
test_cleanup "kill $pid 2>/dev/null"
wait_for 20 '[ -s "$DIR/state/clock" ]'
echo false >"$W/ntp-state"
sleep 3
test_begin "NTP synchronisation lost mid-run, the clock unmoved: no doubt"
test_expect_equal "0 0" \
	"$(grep -c '^clock-doubt' "$DIR/daemon.log") $(clock_expires)" "$(cat "$DIR/daemon.log")"
echo +5d >"$W/offset"
test_begin "then a +5 d step: doubted from the time since boot, no expiry recorded"
if wait_for 20 'grep -q "^clock-doubt" "$DIR/daemon.log"'; then
	sleep 2
	test_expect_equal "1 0" \
		"$(grep -c '^clock-doubt reason="tenure.s clock moved \(4 days 23\|5 days 0\) h further' "$DIR/daemon.log") $(clock_expires)" \
		"$(cat "$DIR/daemon.log")"
else
	test_fail "no clock-doubt within 20 s" "$(cat "$DIR/daemon.log")"
fi
kill -TERM $pid
wait $pid
kill $timedated $dbus
wait $timedated $dbus 2>/dev/null

test_done
