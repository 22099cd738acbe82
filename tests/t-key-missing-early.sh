#!/bin/sh
# t-key-missing-early.sh: a serving member's key that no keyring holds is
# named at once (issue 40, item 4): by `tenure status` (text and JSON),
# as a WARNING by `tenure check`, and in the log of `tenure run`, before
# any mail names it.
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
test_begin "check warns of it (exit 1, a WARNING line naming key and member)"
if [ $status = 1 ] && head -n 1 "$W/out" | grep -q '^TENURE WARNING' &&
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

test_done
