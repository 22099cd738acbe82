#!/bin/sh
# t-undecidable.sh: "cannot decide now" means the system failed, never
# something about the mail (issue 24, item 3).  Signatures gpgv never
# gives a verdict on (a key revocation, a certification, an unknown
# public key or hash algorithm), from a member's key or an outsider's,
# are refused at once and only logged: no retry, no report to the
# operator, no `run --once` failing, no record in the state.  gpgv that
# ends without a word twice on one mail while it answers an empty input
# refuses that mail; gpgv that says nothing at all is the system's
# failure and the mail waits.  What is set aside and reported is kept
# bounded in the state, and `status` counts it all.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"

committee_init
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
CAROL=$(gpg_new_key "Carol Member" carol@example.org)
STRANGER=$(gpg_new_key "Some Stranger" stranger@example.net)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB" \
	"Carol Member <carol@example.org> $CAROL"
committee_conf
. "$top_srcdir/tests/lib/fakegpg.sh"
craft="/usr/bin/python3 $top_srcdir/tests/lib/craft-packets.py"
retry=$W/state/retry

in_new() { [ -f "$W/inbox/new/$1" ]; }
in_cur() { ls "$W/inbox/cur" | grep -qF "$1"; }
reports() { grep -l "set aside without a verdict" "$W/sent"/*/* 2>/dev/null | wc -l; }
sent_count() { ls "$W/sent/new" 2>/dev/null | wc -l; }

# 1. 300 mails gpgv can give no verdict on: six kinds of signature
# packet, from Alice's key and from a stranger's, 25 copies of each
# under their own Message-IDs; a genuine command of Bob's behind them.
once
n=0
for signer in alice stranger; do
	case $signer in
	alice) fpr=$ALICE from=alice@example.org ;;
	stranger) fpr=$STRANGER from=stranger@example.net ;;
	esac
	mail=$(signed_mail "$fpr" "$from" "$signer" "Tenure: resign")
	signature_of "$mail" >"$W/$signer.sig"
	for kind in "class 0x20" "class 0x13" "pubkey 99" "pubkey 16" \
		"hash 99" "hash 12"; do
		# shellcheck disable=SC2086
		$craft field $kind "$W/$signer.sig" >"$W/crafted.sig"
		with_signature "$mail" "$W/crafted.sig" >"$W/crafted.eml"
		i=0
		while [ $i -lt 25 ]; do
			sed "s/^Message-ID: <$signer@/Message-ID: <$signer-$n@/" \
				"$W/crafted.eml" >"$W/m/crafted-$n.eml"
			deliver "$W/inbox" "$W/m/crafted-$n.eml"
			i=$((i + 1))
			n=$((n + 1))
		done
	done
done
sleep 1
b=$(signed_mail "$BOB" bob@example.org bob "Tenure: resign")
ls "$W/inbox/new" >"$W/new.before"
deliver "$W/inbox" "$b"
b=$(ls "$W/inbox/new" | grep -vxF -f "$W/new.before")
sent_before=$(sent_count)
once
test_begin "$n crafted signatures: run --once exits 0 and applies the command behind them"
if [ "$(cat "$W/status")" = 0 ] && resigned Bob && in_cur "$b"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(tail -n 20 "$W/log")"
fi
test_begin "... each refused once in the log, none deferred or set aside"
refused=$(grep -c '^refused .*reason="signature of class\|^refused .*reason="signature by public key algorithm\|^refused .*reason="signature with hash algorithm' "$W/log")
if [ "$refused" = "$n" ] && ! grep -q '^deferred \|^set-aside' "$W/log"; then
	test_pass
else
	test_fail "$refused refusals of $n" "$(grep -v '^refused ' "$W/log" | head -n 20)"
fi
test_begin "... no report, no transcript: one mail sent (Bob's announcement)"
test_expect_equal "0 1" "$(reports) $(($(sent_count) - sent_before))"
test_begin "... nothing kept in the state's retry record, nothing in status"
"$TENURE" --config "$CONF" status >"$W/status.out" 2>&1
if ! grep -q '^\[wait \|^\[set-aside ' "$retry" 2>/dev/null &&
	! grep -q "without a verdict" "$W/status.out"; then
	test_pass
else
	test_fail "$(cat "$retry")" "$(cat "$W/status.out")"
fi
test_begin "... the refusals name what gpgv cannot check"
if grep -q 'reason="signature of class 0x20 (a key revocation), not over the mail' "$W/log" &&
	grep -q 'reason="signature by public key algorithm 99, which gpgv cannot check"' "$W/log" &&
	grep -q 'reason="signature with hash algorithm 99, which gpgv cannot check"' "$W/log"; then
	test_pass
else
	test_fail "$(grep '^refused ' "$W/log" | sort -u -t' ' -k4 | head)"
fi

# 2. gpgv ends without a status line on one mail, twice, while it
# answers an empty input: refused, not tried again for a day.
fault exit2 2
c=$(signed_mail "$CAROL" carol@example.org carol "Tenure: resign")
deliver "$W/inbox" "$c"
once +1m
test_begin "gpgv silent twice on one mail, answering otherwise: refused, no retry"
if [ "$(cat "$W/status")" = 0 ] && ! resigned Carol &&
	grep -q '^refused .*gpgv can never check it: it ends without a status line, twice' "$W/log" &&
	! grep -q '^deferred ' "$W/log" && [ "$(grep -c '^exit2' "$FAKE_GPG_MODE.log")" = 2 ]; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi

# 3. gpgv that says nothing even on an empty input is the system
# failing: the mail waits (and after retry-hours is set aside, below).
fault exit2
sed 's/^Message-ID: <carol@/Message-ID: <carol-again@/' "$c" >"$W/m/carol-again.eml"
ls "$W/inbox/new" >"$W/new.before"
deliver "$W/inbox" "$W/m/carol-again.eml"
c2=$(ls "$W/inbox/new" | grep -vxF -f "$W/new.before")
once +2m
test_begin "gpgv silent on everything: the mail waits, run --once fails"
if [ "$(cat "$W/status")" != 0 ] && in_new "$c2" && ! grep -q '^refused ' "$W/log" &&
	grep -q "^deferred id=$c2 reason=.*even on an empty input" "$W/log"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi

# 4. Set-aside records are bounded: eight mails without a verdict for a
# day are set aside, and reported in one mail that names how many and
# lists the latest five (issue 32 item 5: an outsider does not decide
# how much mail the operator gets); the state keeps the latest five,
# and status counts all of them.
fault signal
i=0
while [ $i -lt 7 ]; do
	d=$(signed_mail "$ALICE" alice@example.org "aside-$i" "Tenure: resign")
	deliver "$W/inbox" "$d"
	i=$((i + 1))
done
once +3m
once +26h
test_begin "eight mails set aside after retry-hours: one report for the pass"
test_expect_equal 1 "$(reports)"
report=$(grep -l "set aside without a verdict" "$W/sent"/*/* 2>/dev/null | head -n 1)
test_begin "... it names how many, and lists the latest five"
if [ -n "$report" ] && grep -q "^Subject: .*: 8 mail(s) set aside without a verdict" "$report" &&
	[ "$(grep -c '^Mail: ' "$report")" = 5 ] &&
	grep -q "^set-aside-report messages=8 listed=5 " "$W/log" &&
	[ "$(grep -c '^set-aside-reported ' "$W/log")" = 8 ]; then
	test_pass
else
	test_fail "$(cat "$report" 2>/dev/null)" "$(grep set-aside "$W/log")"
fi
once +27h
test_begin "... the next pass, with nothing new set aside, sends no report"
test_expect_equal 1 "$(reports)"
test_begin "... the state keeps five of their records, and counts eight"
"$FAKED" +27h "$TENURE" --config "$CONF" status >"$W/status.out" 2>&1
if [ "$(grep -c '^\[set-aside ' "$retry")" = 5 ] &&
	grep -q "^Mail set aside without a verdict: 8, the latest 5:" "$W/status.out" &&
	grep -q "8 message(s) were set aside" "$W/status.out" && [ "$(reports)" = 1 ]; then
	test_pass
else
	test_fail "$(cat "$retry")" "$(cat "$W/status.out")"
fi
test_begin "... and so does status --format=json"
"$FAKED" +27h "$TENURE" --config "$CONF" status --format=json >"$W/status.json"
if /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
aside = [u for u in d["undecided"] if u["state"] == "set-aside"]
sys.exit(not (d["set_aside_total"] == 8 and len(aside) == 5))' "$W/status.json"; then
	test_pass
else
	test_fail "$(cat "$W/status.json")"
fi
fault pass

test_done
