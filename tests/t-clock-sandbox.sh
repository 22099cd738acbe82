#!/bin/sh
# t-clock-sandbox.sh: the clock's evidence survives the unit's sandbox
# (issue 33 items 1 and 3).
#   - inside the mount namespace the shipped units make (ProcSubset=pid:
#     /proc mounted with subset=pid, the kernel's boot id and /proc/uptime
#     hidden), a +40 h step of tenure's clock within one boot is doubted
#     as it is on a full /proc: the boot is named by the id tenure keeps
#     in $RUNTIME_DIRECTORY (the unit's RuntimeDirectory=), the time since
#     boot read with clock_gettime(CLOCK_BOOTTIME);
#   - with neither boot id to read, the doubt is logged, never a silent
#     fall back to the after-a-reboot rules;
#   - a missing clock record beside state that only a pass leaves (mail
#     seen) is lost, not a first start: the acts wait for the admin.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/clock.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
[ "$(id -u)" = 0 ] || test_skip_all "needs root for a mount namespace"
unshare -m sh -c 'mount -t proc -o subset=pid proc /proc && ! test -e /proc/uptime' ||
	test_skip_all "cannot mount proc with subset=pid in a mount namespace"

FAKETIME_DONT_FAKE_MONOTONIC=1
export FAKETIME_DONT_FAKE_MONOTONIC
TENURE_TEST_CLOCK_NTP=unsynced
export TENURE_TEST_CLOCK_NTP

committee_init

# sandboxed OFFSET ARG...: tenure with its clock OFFSET, in a mount
# namespace whose /proc is the unit's (ProcSubset=pid).
sandboxed() {
	local offset=$1
	shift
	unshare -m sh -c 'mount -t proc -o subset=pid proc /proc && exec "$@"' \
		sh "$FAKED" "$offset" "$TENURE" --config "$CONF" "$@" \
		>>"$DIR/out" 2>>"$DIR/log"
}


test_begin "the shipped units hide /proc but keep a runtime directory across restarts"
n=0
for unit in tenure.service tenure@.service tenure-once.service tenure-once@.service; do
	f=$top_srcdir/systemd/$unit
	grep -q '^ProcSubset=pid' "$f" && grep -q '^RuntimeDirectory=tenure$' "$f" &&
		grep -q '^RuntimeDirectoryPreserve=yes' "$f" && n=$((n + 1))
done
test_expect_equal "4" "$n"

# --- Item 1: a step within the boot, in the sandbox ---------------------

clock_committee "$W/step"
RUNTIME_DIRECTORY=$DIR/run
export RUNTIME_DIRECTORY
test_begin "in the sandbox on the right clock: the pass is recorded with a boot id and the time since boot"
sandboxed +0 run --once
test_expect_equal "0 0 1 1" \
	"$? $(clock_expires) $(grep -c '^Boot-Id: [0-9a-f-]\{36\}$' "$DIR/state/clock") $(awk '/^Boottime:/ { print ($2 > 0) }' "$DIR/state/clock")" \
	"$(cat "$DIR/log" "$DIR/state/clock")"

test_begin "in the sandbox, +40 h within the same boot: doubted, no expiry recorded or announced, exit 1"
sandboxed +40h run --once
test_expect_equal "1 0 1 0" \
	"$? $(clock_expires) $(grep -c '^clock-doubt reason="tenure.s clock moved 1 days\? 1[56] h further than the time since its last pass' "$DIR/log") $(grep -l 'Erin Example expired' "$DIR"/sent/new/* 2>/dev/null | wc -l | tr -d ' ')" \
	"$(cat "$DIR/log")"

test_begin "tenure clock trust on the full /proc (the same runtime directory) names the boot as the sandboxed pass did"
boot=$(sed -n 's/^Boot-Id: //p' "$DIR/state/clock")
"$FAKED" +40h "$TENURE" --config "$CONF" clock trust >/dev/null 2>>"$DIR/log"
test_expect_equal "0 $boot $boot" \
	"$? $(sed -n 's/^Boot-Id: //p' "$DIR/state/clock") $(cat "$DIR/run/boot-id" 2>/dev/null)" \
	"$(cat "$DIR/log" "$DIR/state/clock")"

test_begin "the same step on the full /proc is doubted alike"
clock_committee "$W/full"
"$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
"$FAKED" +40h "$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "1 0 1" \
	"$? $(clock_expires) $(grep -c '^clock-doubt reason="tenure.s clock moved' "$DIR/log")" \
	"$(cat "$DIR/log")"

test_begin "in the sandbox with no runtime directory: the boot id that cannot be read is a logged doubt"
clock_committee "$W/noboot"
sandboxed +0 run --once
unset RUNTIME_DIRECTORY
sandboxed +40h run --once
test_expect_equal "1 0 1" \
	"$? $(clock_expires) $(grep -c '^clock-doubt reason="this boot.s id cannot be read' "$DIR/log")" \
	"$(cat "$DIR/log")"

test_begin "... and on the right clock it still says so: the evidence is missing, not the clock wrong"
sandboxed +0 run --once
test_expect_equal "1 0" "$? $(clock_expires)" "$(cat "$DIR/log")"

# --- Item 3: a missing record where tenure has run before --------------

clock_committee "$W/lost"
printf 'From: someone@example.org\nTo: ctte@lists.example.org\nMessage-ID: <hello@example.org>\nSubject: hello\n\nhello\n' \
	>"$DIR/inbox/new/1.hello"
"$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
rm -f "$DIR/state/clock"
test_begin "the clock record lost where mail was seen, 40 days ahead: nothing expires, the log says why"
"$FAKED" +40d "$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "1 0 1" \
	"$? $(clock_expires) $(grep -c '^clock-doubt reason="the clock record is missing, though tenure has run here before (.*/state/[a-z-]* is there)' "$DIR/log")" \
	"$(ls "$DIR/state"; cat "$DIR/log")"
test_begin "... a second process finds it so too, and run --once and status name the cause"
"$FAKED" +40d "$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
status=$?
"$FAKED" +40d "$TENURE" --config "$CONF" status >"$DIR/status" 2>&1
test_expect_equal "1 0 2 1" \
	"$status $(clock_expires) $(grep -c '^tenure run: tenure doubts its clock: the clock record is missing' "$DIR/log") $(grep -c '^Clock: the clock record is missing' "$DIR/status")" \
	"$(cat "$DIR/log" "$DIR/status")"
test_begin "tenure clock trust ends it, and the next pass acts"
"$FAKED" +40d "$TENURE" --config "$CONF" clock trust >/dev/null 2>>"$DIR/log"
status=$?
"$FAKED" +40d "$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "0 0 1 1" \
	"$status $? $(clock_expires) $(grep -c '^clock-trust by=admin was="the clock record is missing' "$DIR/log")" \
	"$(cat "$DIR/log")"

test_begin "a fresh install (no record, nothing seen or sent) is a first start: the pass acts"
clock_committee "$W/fresh"
"$FAKED" +40d "$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "0 1 0" "$? $(clock_expires) $(grep -c '^clock-doubt' "$DIR/log")" \
	"$(cat "$DIR/log")"

test_done
