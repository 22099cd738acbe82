#!/bin/sh
# t-setaside-malformed.sh: what is set aside is seen (issue 42 item 5).
# A member's signed resignation in a mail with two Message-ID headers
# (GMime: a conflicting header) is set aside unread, as every mail the
# parser finds malformed: it is counted in status (its warning and its
# list), in status --format json (set_aside_total) and in check (WARNING,
# set_aside=1), and its signer, known by a good signature over the
# signed part, gets a transcript saying it was set aside and why.  The
# ledger is untouched.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
gw --export "$CAROL" "$ALICE" >"$W/keyring.gpg" 2>/dev/null
committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE"
committee_conf roles.chair="$CAROL"
before=$(events)

mail=$(signed_mail "$ALICE" alice@example.org two-ids "Tenure: resign" \
	"Message-ID: <other-id@example.org>")
test_begin "the mail has two Message-ID headers"
test_expect_equal 2 "$(grep -ci '^Message-ID:' "$mail")" "$(cat "$mail")"
deliver "$W/inbox" "$mail"

"$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
echo $? >"$W/status"

test_begin "it is set aside, the log naming the conflicting header; the ledger unchanged"
if [ "$(cat "$W/status")" = 0 ] && [ "$(events)" = "$before" ] &&
	grep -q '^set-aside id=.*reason="malformed MIME: conflicting header Message-ID' "$W/log"; then
	test_pass
else
	test_fail "expected exit 0, $before events and a set-aside line" "$(cat "$W/log")"
fi

"$TENURE" --config "$CONF" status >"$W/status.out" 2>&1
test_begin "status warns of it and lists it with its reason"
if grep -q '^warning: 1 message(s) were set aside' "$W/status.out" &&
	grep -q 'set aside .*malformed MIME: conflicting header Message-ID' "$W/status.out"; then
	test_pass
else
	test_fail "expected the warning and the mail listed" "$(cat "$W/status.out")"
fi

"$TENURE" --config "$CONF" status --format json >"$W/status.json" 2>&1
test_begin "status --format json counts it: set_aside_total 1"
if grep -q '"set_aside_total" *: *1\b' "$W/status.json"; then
	test_pass
else
	test_fail "expected set_aside_total 1" "$(cat "$W/status.json")"
fi

"$TENURE" --config "$CONF" check >"$W/check.out" 2>&1
test_begin "check counts it: WARNING, set_aside=1"
if grep -q '^TENURE WARNING - .*1 mail(s) set aside without a verdict.*set_aside=1;' "$W/check.out"; then
	test_pass
else
	test_fail "expected a WARNING counting 1 mail set aside" "$(cat "$W/check.out")"
fi

test_begin "its signer gets a transcript: set aside, and why"
reply=
for f in "$W"/sent/new/*; do
	[ -f "$f" ] && grep -q '^To: alice@example.org' "$f" &&
		tr '\r\n' '  ' <"$f" | tr -s ' ' |
		grep -q "Refused: set aside unread: malformed MIME: conflicting header Message-ID" &&
		reply=$f
done
if [ -n "$reply" ]; then
	test_pass
else
	test_fail "expected a reply to alice@example.org in $W/sent" \
		"$(cat "$W/log")" "$(cat "$W"/sent/new/* 2>/dev/null)"
fi

test_done
