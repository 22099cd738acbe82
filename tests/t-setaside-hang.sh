#!/bin/sh
# t-setaside-hang.sh: a mail that kills a pass is set aside after a few
# tries, not read forever (issue 39, item 2).  The test hook
# TENURE_TEST_READ (intake.h) makes the reading of one mail never end
# (hang), or spin on the CPU (spin); a member's signed resignation waits
# behind it in the Maildir.  Passes killed in the hung reading, as the
# unit's watchdog or start timeout would kill them, count as the gpg
# runs' kills do (retry.h): the first two are free, and after two more
# the mail is set aside unread, the member's command behind it applied,
# and the set-aside counted by status and check and reported to the
# admin.  A spinning reading ends the process itself at the CPU bound
# (TENURE_TEST_READ_CPU makes it 1 s), the daemon's as `run --once`'s,
# and those ends count alike.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/hang.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
CAROL=$(gpg_new_key "Carol Member" carol@example.org)
DAVE=$(gpg_new_key "Dave Member" dave@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org dave@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB" \
	"Carol Member <carol@example.org> $CAROL" \
	"Dave Member <dave@example.org> $DAVE"
committee_conf

# poison WHO ID MARK [WHEN]: that mail delivered into the Maildir.
poison() {
	poison_mail "$1" "$2" "$3"
	deliver "$W/inbox" "$W/m/$2.eml" ${4:+"$4"}
}

# to_mbox FILE: FILE appended to $W/list.mbox.
to_mbox() {
	printf 'From someone@example.org %s\n' "$(date -u '+%a %b %e %H:%M:%S %Y')" \
		>>"$W/list.mbox"
	cat "$1" >>"$W/list.mbox"
	printf '\n' >>"$W/list.mbox"
}

# resign FPR WHO ID: WHO's signed resignation, delivered behind.
resign() {
	deliver "$W/inbox" "$(signed_mail "$1" "$2@example.org" "$3" "Tenure: resign")"
}

failed_count() { ls "$W/inbox/.tenure-failed/new" 2>/dev/null | wc -l; }
failed_holds() { grep -qs "$1" "$W/inbox/.tenure-failed/new/"*; }

# A first pass makes the committee keyring.
once

# 1. The hung reading, Alice's resignation behind it.
now=$(date +%s)
poison mallory hang1 HANG-ME $((now - 60))
resign "$ALICE" alice a
reads=0
for i in 1 2 3 4; do
	killed_in_reading HANG-ME && reads=$((reads + 1))
done
test_begin "four passes killed in the hung reading: each read it again, Alice waits"
if [ "$reads" = 4 ] && ! resigned Alice && [ "$(failed_count)" = 0 ]; then
	test_pass
else
	test_fail "$reads readings began" "$(cat "$W/log.all")"
fi
: >"$W/log.all"
TENURE_TEST_READ=hang:HANG-ME once 30
test_begin "the next pass sets the mail aside unread, saying its reading never finished"
if [ "$(cat "$W/status")" = 0 ] && ! grep -q "^test-read " "$W/log" &&
	grep -q "^set-aside id=[^ ]* reason=.*reading never finished 2 times" "$W/log" &&
	[ "$(failed_count)" = 1 ] && failed_holds HANG-ME; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
test_begin "... and applies Alice's resignation behind it"
if resigned Alice && grep -q "^applied .*alice" "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
test_begin "... and the admin's report is sent, naming why"
if report_sent "reading never finished"; then
	test_pass
else
	test_fail "$(ls -R "$W/sent")" "$(cat "$W/log")"
fi
test_begin "... status counts it"
"$TENURE" --config "$CONF" status --format=json >"$W/status.json"
if /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
aside = [u for u in d["undecided"] if u["state"] == "set-aside"]
sys.exit(not (d["set_aside_total"] == 1 and len(aside) == 1 and
              "reading never finished" in aside[0]["reason"]))' "$W/status.json"; then
	test_pass
else
	test_fail "$(cat "$W/status.json")"
fi
test_begin "... and so does check"
"$TENURE" --config "$CONF" check >"$W/check" 2>&1
code=$?
if [ "$code" = 1 ] && grep -q " set_aside=1;0 " "$W/check"; then
	test_pass
else
	test_fail "exit $code" "$(cat "$W/check")"
fi

# 2. Two kills, then a reading that ends: nothing is set aside (a
# machine that went down twice is no poison mail).
poison mallory slow SLOW-ONE
resign "$BOB" bob b
: >"$W/log.all"
killed_in_reading SLOW-ONE
killed_in_reading SLOW-ONE
once
test_begin "two passes killed in a reading, then one that ends: nothing set aside, Bob applied"
if [ "$(cat "$W/status")" = 0 ] && ! grep -q "^set-aside " "$W/log" &&
	[ "$(failed_count)" = 1 ] && resigned Bob; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log.all")"
fi

# 3. A reading that spins: the CPU bound ends the daemon, with no kill
# from outside, and then three passes of `run --once`; the fifth
# reading is not made, and Carol's resignation behind it is applied.
poison mallory spin SPIN-ME
resign "$CAROL" carol c
: >"$W/log.all"
TENURE_TEST_READ=spin:SPIN-ME TENURE_TEST_READ_CPU=1 \
	"$TENURE" --config "$CONF" run >"$W/out" 2>"$W/log" &
pid=$!
wait_for 60 '! kill -0 "$pid" 2>/dev/null' || stop_pass
[ -n "$pid" ] && wait "$pid" 2>/dev/null
code=$?
pid=
test_begin "a spinning reading ends the daemon at the CPU bound, saying so"
if [ "$code" = 3 ] && grep -q "^test-read .*mode=spin:SPIN-ME" "$W/log" &&
	grep -q "^read-cpu-bound id=[^ ]* limit=1s$" "$W/log" && ! resigned Carol; then
	test_pass
else
	test_fail "exit $code" "$(cat "$W/log")"
fi
codes=
for i in 1 2 3; do
	TENURE_TEST_READ=spin:SPIN-ME TENURE_TEST_READ_CPU=1 once 30
	codes="$codes$(cat "$W/status") "
done
test_begin "... as it ends three passes of run --once"
test_expect_equal "3 3 3 " "$codes"
TENURE_TEST_READ=spin:SPIN-ME TENURE_TEST_READ_CPU=1 once 30
test_begin "... and the next pass sets it aside unread and applies Carol's resignation"
if [ "$(cat "$W/status")" = 0 ] && ! grep -q "^test-read " "$W/log" &&
	grep -q "^set-aside .*reading never finished 2 times" "$W/log" &&
	[ "$(failed_count)" = 2 ] && failed_holds SPIN-ME && resigned Carol; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi

# 4. The same from an mbox: the hung mail is left behind once set
# aside, and Dave's resignation behind it applied.
: >"$W/list.mbox"
committee_conf source.url="mbox:$W/list.mbox"
once
poison_mail mallory mboxhang MBOX-HANG
to_mbox "$W/m/mboxhang.eml"
to_mbox "$(signed_mail "$DAVE" dave@example.org d "Tenure: resign")"
: >"$W/log.all"
reads=0
for i in 1 2 3 4; do
	killed_in_reading MBOX-HANG && reads=$((reads + 1))
done
TENURE_TEST_READ=hang:MBOX-HANG once 30
test_begin "an mbox source: four passes killed in the reading, then it is set aside and Dave applied"
if [ "$reads" = 4 ] && [ "$(cat "$W/status")" = 0 ] && ! grep -q "^test-read " "$W/log" &&
	grep -q "^set-aside .*reading never finished 2 times" "$W/log" && resigned Dave; then
	test_pass
else
	test_fail "$reads readings began; exit $(cat "$W/status")" "$(cat "$W/log.all")"
fi

test_done
