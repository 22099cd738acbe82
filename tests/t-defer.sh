#!/bin/sh
# t-defer.sh: what a deferral may and may not do, end to end (issue 27
# item 1).  A deferral is Ian's idea (mail 003): the committee delaying
# a limit it sets itself.  Under debian (6.2.7, the constitution's) none
# exists; nobody defers their own expiry, the chair's is the leader's to
# defer; and only an expiry the rule has already set can be moved.
# Every refusal is answered with a transcript that says why.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init

# Carol chairs, Leo leads (no member); Sam has sat for five years, so
# on 1 January the debian rule set his term to end on 31 December.
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	leo@example.org

committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE"
five_years_ago=$(date -u -d '5 years ago' +%Y-%m-%d)
committee_event appoint "$five_years_ago" "Member: Sam Senior <sam@example.org>"
committee_conf roles.chair="$CAROL" roles.leader="$LEO"
y=$(date -u +%Y)
later=$(date -u -d '+300 days' +%Y-%m-%d)

test_begin "the debian rule has set Sam's term to end on 31 December"
"$TENURE" --config "$CONF" status --format=tsv >"$W/out" 2>&1
if grep -q "Sam Senior <sam@example.org>	[^	]*	[^	]*	$y-12-31" "$W/out"; then
	test_pass
else
	test_fail "expected Sam's term to end on $y-12-31" "$(cat "$W/out")"
fi

before=$(events)
outbox_before=$(outbox_count)
import_mail "$(signed_mail "$CAROL" carol@example.org defer-sam "Tenure: defer
Member: Sam Senior <sam@example.org>
Until: $later
Reason: a vote is running")"
expect_refused --reply "under debian the chair's deferral is refused, and the transcript says why" \
	"no expiry can be deferred under the debian rule: its expiries are the constitution's (section 6.2.7)"

# From today an 18-month term, a limit the committee sets itself: the
# rule sets every term's end as it takes effect (Carol's and Alice's in
# about six months; Sam, long past it, leaves today).
committee_event rule "$today" "Rule: fixed-term" "Parameters: term=18m"

before=$(events)
import_mail "$(signed_mail "$CAROL" carol@example.org defer-carol "Tenure: defer
Member: Carol Chair <carol@example.org>
Until: $later
Reason: a vote is running")"
expect_refused --reply "the chair does not defer her own expiry" \
	"nobody may defer their own expiry"

before=$(events)
import_mail "$(signed_mail "$ALICE" alice@example.org alice-defers-carol "Tenure: defer
Member: Carol Chair <carol@example.org>
Until: $later
Reason: a vote is running")"
expect_refused --reply "a member does not defer the chair's expiry" \
	"only the chair may defer an expiry"

before=$(events)
import_mail "$(signed_mail "$LEO" leo@example.org leo-defers-carol "Tenure: defer
Member: Carol Chair <carol@example.org>
Until: $later
Reason: a vote is running")"
expect_event --applied "the leader defers the chair's expiry" \
	"^Event: defer
^Member: Carol Chair <carol@example.org>
^Until: $later
^Signed-By: $LEO"

test_begin "the chair's term now ends on the deferral's Until"
"$TENURE" --config "$CONF" status --format=tsv >"$W/out" 2>&1
if grep -q "Carol Chair <carol@example.org>	[^	]*	[^	]*	$later" "$W/out"; then
	test_pass
else
	test_fail "expected Carol's term to end on $later" "$(cat "$W/out")"
fi

test_done
