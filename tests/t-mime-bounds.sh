#!/bin/sh
# t-mime-bounds.sh: no mail costs more than its size allows to read
# (issue 39 item 1).  An outsider posts to the open list, ahead of a
# member's signed resignation, one mail over each MIME bound of
# base/mime.h (made here by tests/lib/mime-shapes.py, each holding a
# "Tenure:" line so that it is parsed), one that GMime finds truncated
# after a multipart of many parts (the shape whose explanation once
# rescanned the mail for every part), and one just within every bound.
# One `tenure run --once` later: each mail over a bound is set aside,
# the log naming the bound; status lists them and check counts them,
# with the unclosed one, set aside as malformed (issue 42 item 5);
# the mail within the bounds is read (refused, unsigned); the ledger
# holds the resignation and nothing else.  No timing is asserted: what
# the shapes cost is bench/mime-cost.sh's to measure.
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

shape() {
	/usr/bin/python3 "$top_srcdir/tests/lib/mime-shapes.py" "$@"
}

# bound NAME SHAPE COUNT: the mail over bound NAME, delivered.
t=1797000000
bound() {
	t=$((t + 1))
	shape "$2" "$3" >"$W/m/$1.eml"
	cp "$W/m/$1.eml" "$W/inbox/new/$t.$1.test"
}
bound header-block header-block 300000
bound headers headers 1001
bound parameters parameters 101
bound mime-parts parts 1000
bound mime-depth depth 33
t=$((t + 1))
shape unclosed 400 >"$W/inbox/new/$t.unclosed.test"
t=$((t + 1))
shape parts 900 >"$W/inbox/new/$t.within.test"
mail=$(signed_mail "$ALICE" alice@example.org resign-behind "Tenure: resign")
deliver "$W/inbox" "$mail" $((t + 1))

"$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
echo $? >"$W/status"

for name in header-block headers parameters mime-parts mime-depth; do
	test_begin "a mail over $name is set aside, the log naming the bound"
	if grep -q "^set-aside id=[0-9]*\.$name\.test .*reason=\"mail over the MIME bound $name ([0-9]*): " "$W/log" &&
		[ -f "$W/inbox/.tenure-failed/new/"*".$name.test" ]; then
		test_pass
	else
		test_fail "expected a set-aside line for $name and the mail in .tenure-failed" \
			"$(cat "$W/log")"
	fi
done

test_begin "a multipart of 400 parts never closed by GMime's rule is set aside, naming it"
if grep -q '^set-aside id=[0-9]*\.unclosed\.test reason="malformed MIME: multipart/mixed is never closed (no line \\"--o--\\")' "$W/log"; then
	test_pass
else
	test_fail "expected the unclosed multipart named" "$(cat "$W/log")"
fi

test_begin "a mail within every bound is read: refused as unsigned, not set aside"
if grep -q "^refused id=[0-9]*\.within\.test " "$W/log" &&
	! grep -q "^set-aside id=[0-9]*\.within\.test" "$W/log"; then
	test_pass
else
	test_fail "expected a refused line for the mail of 900 parts" "$(cat "$W/log")"
fi

test_begin "the member's signed resignation behind them is applied, and nothing else"
if [ "$(cat "$W/status")" = 0 ] && [ "$(events)" = $((before + 1)) ] &&
	resigned Alice; then
	test_pass
else
	test_fail "expected exit 0 and one resignation more than $before events, got $(events)" \
		"$(cat "$W/log")"
fi

"$TENURE" --config "$CONF" status >"$W/status.out" 2>&1
test_begin "status warns of six mails set aside and lists the latest five, each with the bound it passed or its fault"
# Six are set aside, the unclosed multipart among them; the list keeps
# the latest five, which five depending on the seconds they took.
n=0
for name in header-block headers parameters mime-parts mime-depth; do
	grep -q "\.$name\.test: set aside .*: mail over the MIME bound $name (" "$W/status.out" &&
		n=$((n + 1))
done
grep -q '\.unclosed\.test: set aside .*: malformed MIME: multipart/mixed is never closed' "$W/status.out" &&
	n=$((n + 1))
if [ "$n" = 5 ] && grep -q '^warning: 6 message(s) were set aside' "$W/status.out"; then
	test_pass
else
	test_fail "expected 5 mails listed with their bounds or faults, found $n" "$(cat "$W/status.out")"
fi

"$TENURE" --config "$CONF" check >"$W/check.out" 2>&1
test_begin "check counts them: WARNING, set_aside=6"
if grep -q '^TENURE WARNING - .*6 mail(s) set aside without a verdict.*set_aside=6;0 ' "$W/check.out"; then
	test_pass
else
	test_fail "expected a WARNING counting 6 mails set aside" "$(cat "$W/check.out")"
fi

# A source that hands a mail over again (IMAP tries one three times)
# adds no second record: the record is keyed by the mail's bytes.
mkdir -p "$W/again/new" "$W/again/cur" "$W/again/tmp"
cp "$W/m/headers.eml" "$W/again/new/1797000100.again.test"
"$TENURE" --config "$CONF" import "maildir:$W/again" >"$W/out" 2>"$W/log"
"$TENURE" --config "$CONF" check >"$W/check.out" 2>&1
test_begin "the same mail read again is set aside again, and counted once"
if grep -q '^set-aside id=1797000100.again.test .*MIME bound headers' "$W/log" &&
	grep -q 'set_aside=6;0 ' "$W/check.out"; then
	test_pass
else
	test_fail "expected it set aside and still 6 counted" "$(cat "$W/log" "$W/check.out")"
fi

test_done
