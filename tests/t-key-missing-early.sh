#!/bin/sh
# t-key-missing-early.sh: a serving member's key that no keyring holds is
# named at once (issue 40, item 4): by `tenure status` (text and JSON),
# as a WARNING by `tenure check`, and in the log of `tenure run`, before
# any mail names it.  Mail an outsider posts naming the key is one
# problem a pass, however many: one key-missing line, no exit 1, one
# report to [sink] from for the key, not one a mail after retry-hours.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
DAVE=$(gpg_new_key "Dave Member" dave@example.org)
# Dave's key is in no keyring: an update dropped it.
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org
committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE" \
	"Dave Member <dave@example.org> $DAVE"
committee_conf roles.chair="$CAROL"

"$TENURE" --config "$CONF" status >"$W/out" 2>"$W/err"
test_begin "status names Dave's key, missing from the keyrings, before any mail"
line=$(grep "^warning: .*$DAVE" "$W/out")
if printf '%s\n' "$line" | grep -q "Dave Member.*$DAVE.*no \[keys\] keyring" &&
	! printf '%s\n' "$line" | grep -q 'dave@example.org'; then
	test_pass
else
	test_fail "no line naming Dave Member and $DAVE (without his address)" \
		"$(cat "$W/out" "$W/err")"
fi

"$TENURE" --config "$CONF" status --format=json >"$W/out" 2>"$W/err"
test_begin "status --format=json carries it as a key-missing warning"
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = [x for x in d["warnings"] if x["code"] == "key-missing"]
sys.exit(0 if len(w) == 1 and sys.argv[2] in w[0]["text"] and "Dave Member" in w[0]["text"] else 1)
' "$W/out" "$DAVE"; then
	test_pass
else
	test_fail "no key-missing warning naming $DAVE" "$(cat "$W/out" "$W/err")"
fi

"$TENURE" --config "$CONF" check >"$W/out" 2>"$W/err"
status=$?
test_begin "check warns of it (exit 1, a WARNING line naming key and member, keys_missing=1)"
if [ $status = 1 ] && head -n 1 "$W/out" | grep -q '^TENURE WARNING' &&
	head -n 1 "$W/out" | grep -q ' keys_missing=1;0' &&
	grep -q "Dave Member.*$DAVE" "$W/out"; then
	test_pass
else
	test_fail "exit $status" "$(cat "$W/out" "$W/err")"
fi

"$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
test_begin "run names it in its log before any mail"
if grep -q "Dave Member.*$DAVE" "$W/log"; then
	test_pass
else
	test_fail "no log line naming Dave Member and $DAVE" "$(cat "$W/log")"
fi

# Two posts by an outsider, each signed with Dave's key (a signature
# anyone may copy from the list), From: Oscar.
for i in 1 2; do
	deliver "$W/inbox" "$(signed_mail "$DAVE" oscar@example.org oscar-$i "Tenure: resign")"
done
before=$(events)
"$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
status=$?
test_begin "two posts naming the missing key: one key-missing line in the pass, waiting=2"
if [ "$(grep -c '^key-missing ' "$W/log")" = 1 ] &&
	grep -q "^key-missing key=$DAVE waiting=2 .*Dave Member" "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
test_begin "... and the pass exits 0, the ledger unchanged"
test_expect_equal "0 $before" "$status $(events)" "$(cat "$W/log")"

# Past retry-hours (24): the mails still wait for the key (set aside and
# reported one by one, they would be a report each); the administrator
# was told of the key once.
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
tenure_at "$(date -u -d '+30 hours' '+%Y-%m-%d %H:%M:%S')" --config "$CONF" \
	run --once >"$W/out" 2>"$W/log"
status=$?
test_begin "past retry-hours no mail is set aside, and the pass exits 0"
if [ $status = 0 ] && ! grep -q '^set-aside' "$W/log" &&
	[ "$(grep -c '^key-missing ' "$W/log")" = 1 ]; then
	test_pass
else
	test_fail "exit $status" "$(cat "$W/log")"
fi
test_begin "over both passes, one report to [sink] from, naming Dave Member and his key"
reports=$(grep -l "^To: tenure@example.org" "$W/sent/new"/* 2>/dev/null)
if [ "$(echo "$reports" | grep -c .)" = 1 ] &&
	tr -d '\n' <"$reports" | tr -s ' ' | grep -F "Dave Member" | grep -qF "$DAVE"; then
	test_pass
else
	test_fail "reports: $reports" "$(cat $reports 2>/dev/null)"
fi

# The key back in the keyring: the outsider's copies are decided (Dave's
# key signed them: the resignation is applied once, the copy replayed).
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org dave@example.org
"$TENURE" --config "$CONF" run --once --flush >"$W/out" 2>"$W/log"
status=$?
test_begin "with the key back the waiting mail is decided"
if [ $status = 0 ] && [ "$(events)" = "$((before + 1))" ] &&
	! grep -q '^key-missing ' "$W/log"; then
	test_pass
else
	test_fail "exit $status, $(events) events" "$(cat "$W/log")"
fi

test_done
