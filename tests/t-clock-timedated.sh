#!/bin/sh
# t-clock-timedated.sh: where the shipped units' sandbox denies tenure
# adjtimex (ProtectClock=), systemd-timedated's NTPSynchronized, asked
# over the system bus, answers for the kernel's NTP state (src/base/clock.c).
# A private dbus-daemon stands for the system bus (DBUS_SYSTEM_BUS_ADDRESS),
# tests/lib/timedated.py for timedated, and the fault shim makes adjtimex
# fail with EPERM.  The last pass 15 minutes ahead of the clock (a doubt
# that only the NTP state can end here: Maildir in and out):
#   - timedated says false: the doubt stands, run --once exits 1;
#   - timedated says true: the doubt ends, "the kernel's clock is
#     synchronised (NTP)";
#   - no bus at all: no witness, the doubt stands, and the log says that
#     the NTP state could not be asked, and why (clock-ntp-unknown).

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/fault.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
fault_require
command -v dbus-daemon >/dev/null || test_skip_all "no dbus-daemon (dbus-daemon)"
/usr/bin/python3 -c 'import dbus, gi' 2>/dev/null ||
	test_skip_all "no python3-dbus and python3-gi for tests/lib/timedated.py"
[ -r /proc/sys/kernel/random/boot_id ] || test_skip_all "no boot id"

# The kernel's NTP state as tenure reads it, not the tests' stand-in
# (tests/lib/common.sh sets TENURE_TEST_CLOCK_NTP=synced).
TENURE_TEST_CLOCK_NTP=
export TENURE_TEST_CLOCK_NTP

committee_init
committee_ledger "Alice Example <alice@example.org>"
: >"$W/keyring.gpg"
committee_conf
STATE=$W/state

BUS=$W/bus
dbus-daemon --session --nofork --address="unix:path=$BUS" \
	>"$W/dbus.out" 2>"$W/dbus.log" &
dbus=$!
test_cleanup "kill $dbus 2>/dev/null"
wait_for 10 '[ -S "$BUS" ]' || test_skip_all "dbus-daemon would not start: $(cat "$W/dbus.log")"
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$BUS
export DBUS_SYSTEM_BUS_ADDRESS
echo false >"$W/ntp"
/usr/bin/python3 "$top_srcdir/tests/lib/timedated.py" "$W/ntp" \
	>"$W/timedated.out" 2>"$W/timedated.log" &
timedated=$!
test_cleanup "kill $timedated 2>/dev/null"
wait_for 10 'grep -qs ready "$W/timedated.out"' ||
	test_skip_all "tests/lib/timedated.py would not start: $(cat "$W/timedated.log")"

# once: run --once with adjtimex denied, as under the shipped units.
once() {
	: >"$W/log"
	with_fault adjtimex:1+:EPERM "$TENURE" --config "$CONF" run --once \
		>>"$W/out" 2>>"$W/log"
}

# behind MINUTES: the record's last pass MINUTES ahead of the clock, in
# this boot: the clock moved that much less than the time since.
behind() {
	local checked
	checked=$(sed -n 's/^Checked: //p' "$STATE/clock")
	sed -i "s/^Checked: .*/Checked: $((checked + $1 * 60))/" "$STATE/clock"
	state_reseal "$STATE/clock"
}

TENURE_TEST_CLOCK_NTP=unsynced "$TENURE" --config "$CONF" run --once \
	>>"$W/out" 2>>"$W/log"
behind 15

test_begin "adjtimex denied, timedated says NTPSynchronized=false: the doubt stands"
once
test_expect_equal "1 1 0" \
	"$? $(grep -c '^clock-doubt reason="tenure.s clock moved 1[2-5] min less' "$W/log") $(grep -c '^clock-ntp-unknown' "$W/log")" \
	"$(cat "$W/log")"

test_begin "timedated says NTPSynchronized=true: the kernel's NTP state vouches, the doubt ends"
echo true >"$W/ntp"
once
test_expect_equal "0 1" \
	"$? $(grep -c '^clock-trusted was="tenure.s clock moved 1[2-5] min less.*why="the kernel.s clock is synchronised (NTP)"' "$W/log")" \
	"$(cat "$W/log")"

test_begin "no system bus at all: no witness, the doubt stands, and the log says why"
behind 20
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$W/no-bus once
status=$?
test_expect_equal "1 1 1" \
	"$status $(grep -c '^clock-doubt reason="tenure.s clock moved \(1[7-9]\|20\) min less' "$W/log") $(grep -c "^clock-ntp-unknown error=.* means=\"the kernel's NTP state vouches for nothing (adjtimex is denied, and systemd-timedated did not answer)\"" "$W/log")" \
	"$(cat "$W/log")"

test_begin "the bus back, timedated saying true: the doubt ends"
once
test_expect_equal "0 1 0" \
	"$? $(grep -c '^clock-trusted was="tenure.s clock moved \(1[7-9]\|20\) min less.*why="the kernel.s clock is synchronised (NTP)"' "$W/log") $(grep -c '^clock-ntp-unknown' "$W/log")" \
	"$(cat "$W/log")"

kill $timedated $dbus
wait $timedated $dbus 2>/dev/null

test_done
