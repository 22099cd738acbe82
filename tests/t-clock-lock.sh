#!/bin/sh
# t-clock-lock.sh: `tenure clock trust` and the daemon's pass both read,
# change and replace STATE_DIR/clock; each holds STATE_DIR/clock.lock
# from its read to its write, so that neither undoes the other.
#   - the daemon, 20 days ahead of its last pass (a doubt: the record
#     moved 20 days back, rather than the daemon's clock forward, since
#     the shim, taking itself out of LD_PRELOAD, would not outlive
#     faked.sh's shell), is held
#     (the fault shim's SIGSTOP) after it read the record and before it
#     replaced it; `tenure clock trust` is given then: the trust waits
#     for the daemon's write, is kept in the record, and the daemon's
#     next pass ends the doubt with it.  Before the lock the daemon's
#     write replaced the record the trust had just written: the trust
#     was lost and the doubt went on.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/fault.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
fault_require
[ -r /proc/sys/kernel/random/boot_id ] || test_skip_all "no boot id"

# No NTP vouches for the clock (clock.h), and Maildir in and out is no
# witness either: the admin's word is what ends the doubt.
TENURE_TEST_CLOCK_NTP=unsynced
export TENURE_TEST_CLOCK_NTP

committee_init
committee_ledger "Alice Example <alice@example.org>"
: >"$W/keyring.gpg"
committee_conf source.poll-interval=1
STATE=$W/state

test_begin "on the right clock the pass is recorded"
"$TENURE" --config "$CONF" run --once >>"$W/out" 2>>"$W/log"
test_expect_equal "0 yes" "$? $([ -s "$STATE/clock" ] && echo yes)" \
	"$(cat "$W/log")"

# The last pass 20 days back in the same boot: the clock moved 20 days
# further than the time since.  The daemon's first pass doubts it, and
# stops just before it replaces the record (the rename of its new copy
# over STATE_DIR/clock), having read it.
checked=$(sed -n 's/^Checked: //p' "$STATE/clock")
sed -i "s/^Checked: .*/Checked: $((checked - 20 * 86400))/" "$STATE/clock"
state_reseal "$STATE/clock"
LD_PRELOAD=$FAULTSHIM TENURE_FAULT="rename@$STATE/clock:1:stop" \
	"$TENURE" --config "$CONF" run 2>"$W/daemon.log" &
pid=$!
test_cleanup "kill -CONT $pid 2>/dev/null; kill $pid 2>/dev/null"
stopped() {
	case $(ps -o stat= -p "$pid" 2>/dev/null) in
	T*) return 0 ;;
	*) return 1 ;;
	esac
}
test_begin "the daemon's pass is held between its read of the clock record and its write"
if wait_for 20 stopped; then
	test_pass
else
	test_fail "the daemon did not stop at the record's rename" \
		"$(cat "$W/daemon.log")"
fi

# The trust meanwhile; with the lock it waits for the daemon's write.
"$TENURE" --config "$CONF" clock trust >"$W/trust.out" \
	2>"$W/trust.log" &
trust=$!
sleep 1
kill -CONT $pid
wait_for 20 'process_ended $trust'
wait $trust
trust_status=$?

test_begin "the trust is kept: the record says so once the daemon has written"
test_expect_equal "0 1 0" \
	"$trust_status $(grep -c '^Trusted: ' "$STATE/clock") $(grep -c '^Doubt: ' "$STATE/clock")" \
	"$(cat "$W/trust.out" "$W/trust.log" "$STATE/clock")"

test_begin "the daemon's next pass ends the doubt with the admin's word"
if wait_for 20 'grep -q "^clock-trusted" "$W/daemon.log"'; then
	test_expect_equal "1 1" \
		"$(grep -c '^clock-doubt reason="tenure.s clock moved \(19 days 23\|20 days 0\) h further' "$W/daemon.log") $(grep -c '^clock-trusted .*why="the admin trusted it (tenure clock trust)"' "$W/daemon.log")" \
		"$(cat "$W/daemon.log")"
else
	test_fail "no clock-trusted within 20 s" "$(cat "$W/daemon.log" "$STATE/clock")"
fi
kill -TERM $pid
wait $pid

test_begin "status no longer says that tenure doubts its clock"
"$TENURE" --config "$CONF" status >"$W/status" 2>&1
test_expect_equal "0" "$(grep -c 'doubts its clock' "$W/status")" \
	"$(cat "$W/status")"

test_done
