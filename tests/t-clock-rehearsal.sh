#!/bin/sh
# t-clock-rehearsal.sh: --now is a rehearsal's, and a rehearsal's or an
# import's state is no lost clock record (issue 42 items 1 and 2).
#   - `run --once --now DATE` (and `import --now`) on a state that a
#     pass at the real time has written is refused, naming --dry-run:
#     nothing dated DATE reaches the append-only ledger or the outbox;
#     --dry-run --now still shows it.  A record written before the mark
#     (no Real-Passes: line) is taken for a real pass's.  Before the fix
#     the pass appended Erin's expiry, dated ahead, and queued its
#     announcement.
#   - a rehearsal's own state (only --now passes) still works as today,
#     and a later pass at the real time on it starts as a first start;
#     `check --now` at the rehearsal's time is not CRITICAL for a lost
#     clock record.  Before the fix it was ("the clock record is
#     missing, though tenure has run here before").
#   - `tenure init` and `tenure import` (README's rebuild of a host):
#     the first `run` acts, with no doubt.  Before the fix it doubted its
#     clock for a lost record and held every date-driven act.
#   - control: a record deleted after real passes still holds the acts.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/clock.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
command -v gpg >/dev/null || test_skip_all "gpg is not installed"

# No NTP, Maildir in and out: the record alone speaks for the clock.
TENURE_TEST_CLOCK_NTP=unsynced
export TENURE_TEST_CLOCK_NTP

committee_init
ahead=$(date -u -d '3 days' +%Y-%m-%d)

# --- A state that real passes have written --------------------------------

clock_committee "$W/real"
STATE=$DIR/state
"$TENURE" --config "$CONF" run --once >"$W/r1.out" 2>"$W/r1.log"
test_begin "a pass at the real time acts and marks its record"
test_expect_equal "exit 0, 0 expired, Real-Passes: yes" \
	"exit $?, $(clock_expires) expired, $(grep '^Real-Passes:' "$STATE/clock")" \
	"$(cat "$W/r1.log" "$STATE/clock")"

ledger_sum=$(md5sum <"$DIR/ledger")
queued=$(ls "$STATE/outbox/queue" 2>/dev/null | wc -l)
sent=$(ls "$DIR/sent/new" 2>/dev/null | wc -l)
"$TENURE" --config "$CONF" --now "$ahead" run --once >"$W/n1.out" 2>"$W/n1.log"
status=$?
test_begin "run --once --now on it is refused, and the error names --dry-run"
test_expect_equal "exit 1, 1 naming --dry-run" \
	"exit $status, $(grep -c "^tenure run: --now on .*passes at the real time have written.*add --dry-run" "$W/n1.log") naming --dry-run" \
	"$(cat "$W/n1.out" "$W/n1.log")"
test_begin "... nothing dated ahead reached the ledger, the outbox or the sink"
test_expect_equal "$ledger_sum $queued $sent" \
	"$(md5sum <"$DIR/ledger") $(ls "$STATE/outbox/queue" 2>/dev/null | wc -l) $(ls "$DIR/sent/new" 2>/dev/null | wc -l)" \
	"$(cat "$DIR/ledger")"

"$TENURE" --config "$CONF" --now "$ahead" run --dry-run >"$W/d1.out" 2>"$W/d1.log"
status=$?
test_begin "run --dry-run --now on it shows the expiry it would append, and writes nothing"
test_expect_equal "exit 0, 1 shown, $ledger_sum" \
	"exit $status, $(grep -c 'Event: expire' "$W/d1.out") shown, $(md5sum <"$DIR/ledger")" \
	"$(cat "$W/d1.out" "$W/d1.log")"

mkdir -p "$W/archive/new" "$W/archive/cur" "$W/archive/tmp"
"$TENURE" --config "$CONF" --now "$ahead" import "maildir:$W/archive" >"$W/i1.out" 2>"$W/i1.log"
status=$?
test_begin "import --now on it is refused too, naming --dry-run"
test_expect_equal "exit 1, 1 naming --dry-run, $ledger_sum" \
	"exit $status, $(grep -c '^tenure import: --now on .*add --dry-run' "$W/i1.log") naming --dry-run, $(md5sum <"$DIR/ledger")" \
	"$(cat "$W/i1.out" "$W/i1.log")"

# A record from before the mark: a real pass wrote it (--now never
# wrote the record then).
sed -i '/^Real-Passes:/d' "$STATE/clock"
state_reseal "$STATE/clock"
"$TENURE" --config "$CONF" --now "$ahead" run --once >"$W/n2.out" 2>"$W/n2.log"
status=$?
test_begin "a record written before the mark is taken for a real pass's: refused"
test_expect_equal "exit 1, $ledger_sum" "exit $status, $(md5sum <"$DIR/ledger")" \
	"$(cat "$W/n2.log")"

# Control: the record lost after real passes still holds the acts.
expired=$(clock_expires)
rm "$STATE/clock"
tenure_at "$ahead 12:00:00" --config "$CONF" run --once >"$W/l1.out" 2>"$W/l1.log"
status=$?
test_begin "control: the record deleted after real passes: a pass doubts (lost), holds the expiry, exit 1"
test_expect_equal "exit 1, 1 lost, $expired expired" \
	"exit $status, $(grep -c '^clock-doubt reason="the clock record is missing, though tenure has run here before' "$W/l1.log") lost, $(clock_expires) expired" \
	"$(cat "$W/l1.log")"
"$TENURE" --config "$CONF" --now "$ahead" run --once >"$W/n3.out" 2>"$W/n3.log"
status=$?
test_begin "... and --now on it is refused: a lost record cannot say the state is a rehearsal's"
test_expect_equal "exit 1, $expired expired" "exit $status, $(clock_expires) expired" \
	"$(cat "$W/n3.log")"

# --- A rehearsal's own state ----------------------------------------------

clock_committee "$W/rehearsal"
STATE=$DIR/state
"$TENURE" --config "$CONF" --now "${ahead}T12:00:00Z" run --once >"$W/h1.out" 2>"$W/h1.log"
s1=$?
"$TENURE" --config "$CONF" --now "${ahead}T12:05:00Z" run --once >"$W/h2.out" 2>"$W/h2.log"
s2=$?
test_begin "a rehearsal's own state: passes under --now act as before (Erin's expiry, announced once)"
test_expect_equal "exit 0 0, 1 expired, 2 mail" \
	"exit $s1 $s2, $(clock_expires) expired, $(ls "$DIR/sent/new" | grep -c .) mail" \
	"$(cat "$W/h1.log" "$W/h2.log")"

"$TENURE" --config "$CONF" --now "${ahead}T12:10:00Z" check >"$W/c1.out" 2>&1
test_begin "check --now at the rehearsal's time: no lost clock record"
test_expect_equal "0" "$(grep -c -i 'clock record is missing' "$W/c1.out")" \
	"$(cat "$W/c1.out")"

"$TENURE" --config "$CONF" run --once >"$W/h3.out" 2>"$W/h3.log"
status=$?
test_begin "a pass at the real time on the rehearsal's state: a first start, no doubt, exit 0"
test_expect_equal "exit 0, 0 doubts, Real-Passes: yes" \
	"exit $status, $(grep -c '^clock-doubt' "$W/h3.log") doubts, $(grep '^Real-Passes:' "$STATE/clock")" \
	"$(cat "$W/h3.log")"

# The quick start's demo: its state, run under --now, checked at its
# own time.
env -u TENURE_LIBEXECDIR TENURE="$TENURE" sh "$top_srcdir/examples/demo.sh" --keep \
	>"$W/demo" 2>&1
demo=$(sed -n 's/^demo: kept //p' "$W/demo")
if [ -n "$demo" ] && [ -d "$demo" ]; then
	test_cleanup "rm -rf '$demo'"
	"$TENURE" --config "$demo/tenure.conf" --now 2014-11-25T12:05:00Z check \
		>"$W/c3.out" 2>&1
	test_begin "the demo's state, checked at its own time: no lost clock record"
	test_expect_equal "0 Real-Passes: no" \
		"$(grep -c -i 'clock record is missing' "$W/c3.out") $(grep '^Real-Passes:' "$demo/state/clock")" \
		"$(cat "$W/c3.out" "$W/demo")"
else
	test_begin "the demo ran and kept its state"
	test_fail "no kept state" "$(cat "$W/demo")"
fi

# --- init and import: README's rebuild of a host --------------------------

cd "$W" || exit 1
mkdir -p rebuild
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org
committee_ledger --file "$W/history" "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org>" "Carol Member <carol@example.org>"
committee_conf rebuild/tenure.conf keys.keyring="$W/keyring.gpg" \
	committee.ledger=ledger committee.state-dir=state \
	source.url="maildir:$W/rebuild/inbox" sink.url="maildir:$W/rebuild/sent"
CONF=$W/rebuild/tenure.conf
mkdir -p rebuild/inbox/new rebuild/inbox/cur rebuild/inbox/tmp
"$TENURE" --config "$CONF" init --history "$W/history" >"$W/init.log" 2>&1
mail=$(signed_mail --at '2 days ago' "$ALICE" alice@example.org resign-alice \
	"Tenure: resign
Effective: $(date -u -d '40 days' +%Y-%m-%d)" 2>/dev/null)
deliver "$W/rebuild/archive" "$mail" "$(date -u -d '2 days ago' +%s)"
"$TENURE" --config "$CONF" import "maildir:$W/rebuild/archive" >"$W/imp.out" 2>"$W/imp.log"
status=$?
test_begin "init and import: the archive's resignation is recorded, and state written"
test_expect_equal "exit 0, 1 resignation, seen there" \
	"exit $status, $(grep -c '^Event: resign' rebuild/ledger) resignation, $([ -e rebuild/state/seen ] && echo seen there)" \
	"$(cat "$W/init.log" "$W/imp.out" "$W/imp.log")"

"$TENURE" --config "$CONF" run --once >"$W/f1.out" 2>"$W/f1.log"
status=$?
test_begin "the first run after the import acts: no doubt of its clock, exit 0"
test_expect_equal "exit 0, 0 doubts" \
	"exit $status, $(grep -c '^clock-doubt' "$W/f1.log") doubts" \
	"$(cat "$W/f1.log")"
"$TENURE" --config "$CONF" check >"$W/c2.out" 2>&1
test_begin "... and check says nothing of a lost clock record"
test_expect_equal "0" "$(grep -c -i 'clock record is missing' "$W/c2.out")" \
	"$(cat "$W/c2.out")"

test_done
