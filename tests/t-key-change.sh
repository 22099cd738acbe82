#!/bin/sh
# t-key-change.sh: a key change and a new leader's key, end to end, as
# the daemon meets them: each mail delivered into the source Maildir and
# read by its own `tenure run --once` (issue 15, item 2).  A new key is
# bound by two mails, one signed by the member's recorded key and one by
# the new key itself; a new leader the ledger records no key for is bound
# by the secretary's handover and the leader's own.  The mail signed by
# the key still waited for is verified against the committee's small
# keyring, which holds the key a pending half names; once bound, the new
# key acts and the old one no longer does; the change is announced; and
# `tenure audit` verifies every mail again and rebuilds the same ledger.
# What never binds: a confirmation later than [keys] confirm-days (2
# here), a claim of a key someone else holds or held, a handover
# completed by anyone but the new holder's own key.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init

CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
ALICE2=$(gpg_new_key "Alice Member" alice2@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
BOB2=$(gpg_new_key "Bob Member" bob2@example.org)
DAVE=$(gpg_new_key "Dave Member" dave@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
MIA=$(gpg_new_key "Mia Leader" mia@example.org)
SAM=$(gpg_new_key "Sam Secretary" sam@example.org)
ZOE=$(gpg_new_key "Zoe Newcomer" zoe@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	alice2@example.org \
	bob@example.org bob2@example.org dave@example.org leo@example.org \
	mia@example.org sam@example.org zoe@example.org

committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB" "Dave Member <dave@example.org> $DAVE"
committee_conf roles.chair="$CAROL" roles.leader="$LEO" roles.secretary="$SAM" \
	keys.confirm-days=2

SENT=$W/sent/new

# run_mail SIGNER ID WHEN BODY [ARRIVAL]: a mail to the list signed WHEN
# (date -d) is delivered into the source Maildir, at ARRIVAL (a Unix
# time, default now), and read by one pass.
run_mail() {
	local mail
	mail=$(signed_mail --at "$3" "$1" someone@example.org "$2" "$4" \
		"List-Id: <debian-ctte.lists.debian.org>" 2>/dev/null)
	before=$(events)
	outbox_before=$(outbox_count)
	deliver "$W/inbox" "$mail" "${5:-}"
	"$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}

# expect_pending DESCRIPTION: the pass ended well, appended nothing,
# refused nothing, and the command waits for its other half.
expect_pending() {
	test_begin "$1"
	if [ "$(cat "$W/status")" != 0 ] || [ "$(events)" != "$before" ]; then
		test_fail "exit $(cat "$W/status"), $(events) events" "$(cat "$W/log")"
	elif grep -q '^refused' "$W/log" || ! grep -q '^pending' "$W/log"; then
		test_fail "expected the command to wait for its other half" "$(cat "$W/log")"
	else
		test_pass
	fi
}

# committee_keys: the primary keys of the keyring verification last read.
committee_keys() {
	gpg --homedir "$W/g" --no-options --batch --with-colons --show-keys \
		"$W/g/committee.gpg" 2>/dev/null | awk -F: '$1 == "pub" { p = 1; next }
		p && $1 == "fpr" { print $10; p = 0 }'
}

# sent_to KIND RECIPIENT: whether a mail made from template KIND went
# to RECIPIENT (in its To:).
sent_to() {
	grep -l "^X-Tenure: $1\$" "$SENT"/* 2>/dev/null |
		xargs -r grep -l "^To: .*$2" | grep -q .
}

# --- A member's new key -----------------------------------------------------

run_mail "$BOB" bob-old-key '2 hours ago' "Tenure: new-key
Fingerprint: $BOB2"
expect_pending "the member's recorded key signs the new key: it waits for the new key"

run_mail "$BOB2" bob-new-key '1 hour ago' "Tenure: new-key
Member: Bob Member <bob@example.org>
Fingerprint: $BOB2"
expect_event --applied "the new key confirms it: a key event signed by both keys" "^Event: key
^Member: Bob Member <bob@example.org>
^Fingerprint: $BOB2
^Source: <bob-new-key@example.org>
^Signed-By: $BOB $BOB2"

test_begin "... its confirmation was verified against the committee's keyring, which held the key waited for"
if committee_keys | grep -qx "$BOB2"; then
	test_pass
else
	test_fail "committee.gpg holds: $(committee_keys | tr '\n' ' ')" "$(cat "$W/log")"
fi

test_begin "... the new key is announced to the list and mailed to the member"
if sent_to announce-key debian-ctte@lists.debian.org && sent_to notice-key bob@example.org; then
	test_pass
else
	test_fail "$(grep -h '^X-Tenure:\|^To:' "$SENT"/* 2>/dev/null)" "$(cat "$W/log")"
fi

test_begin "... and nothing of the key change is left waiting"
if grep -q "new-key\|$BOB2" "$W/state/pending" 2>/dev/null; then
	test_fail "$(cat "$W/state/pending")"
else
	test_pass
fi

run_mail "$BOB" bob-old-key-resigns '30 minutes ago' "Tenure: resign"
expect_refused "the old key no longer acts for the member" \
	"is not a member"

run_mail "$BOB2" bob-new-key-resigns '20 minutes ago' "Tenure: resign"
expect_event --applied "the new key acts for the member" "^Event: resign
^Member: Bob Member <bob@example.org>
^Source: <bob-new-key-resigns@example.org>
^Signed-By: $BOB2"

# --- A confirmation too late -------------------------------------------------

run_mail "$ALICE" alice-old-key '4 days ago' "Tenure: new-key
Fingerprint: $ALICE2" "$(date -d '4 days ago' +%s)"
expect_pending "Alice's recorded key signs a new key, four days ago"

run_mail "$ALICE2" alice-late '1 hour ago' "Tenure: new-key
Member: Alice Member <alice@example.org>
Fingerprint: $ALICE2"
expect_pending "the new key confirms it four days later, past confirm-days: nothing is bound"

run_mail "$ALICE2" alice-new-key-resigns '50 minutes ago' "Tenure: resign"
expect_refused "... the new key does not act for Alice" "is not a member"

run_mail "$ALICE" alice-old-key-again '30 minutes ago' "Tenure: new-key
Fingerprint: $ALICE2"
expect_event --applied "her recorded key signs again: with the new key's last confirmation the key is bound" "^Event: key
^Member: Alice Member <alice@example.org>
^Fingerprint: $ALICE2
^Signed-By: $ALICE $ALICE2"

# --- Keys someone else holds or held -----------------------------------------

run_mail "$ALICE2" alice-claims-dave '29 minutes ago' "Tenure: new-key
Fingerprint: $DAVE"
expect_refused "a member's key cannot claim the key another member holds" \
	"is the key of Dave Member"

run_mail "$DAVE" dave-gives-alice '28 minutes ago' "Tenure: new-key
Member: Alice Member <alice@example.org>
Fingerprint: $DAVE"
expect_refused "nor can that key give itself to her" \
	"is the key of Dave Member"

run_mail "$DAVE" dave-claims-alice-old '27 minutes ago' "Tenure: new-key
Fingerprint: $ALICE"
expect_refused "nor the key a member held before a key change" \
	"is the key of Alice Member"

run_mail "$ALICE2" alice-claims-sam '26 minutes ago' "Tenure: new-key
Fingerprint: $SAM"
expect_pending "the key [roles] secretary names waits for its own signature"

run_mail "$DAVE" dave-claims-sam '25 minutes ago' "Tenure: new-key
Fingerprint: $SAM"
test_begin "... so that another member's claim of it is never bound"
if [ "$(events)" != "$before" ] || grep -q '^applied' "$W/log"; then
	test_fail "$(last_event)" "$(cat "$W/log")"
else
	test_pass
fi

# --- A new leader's key -----------------------------------------------------

run_mail "$SAM" leader-to-mia '2 hours ago' "Tenure: handover
Role: leader
Member: Mia Leader <mia@example.org>
Fingerprint: $MIA"
expect_pending "the secretary hands the leader's role to Mia: it waits for her key"

run_mail "$MIA" mia-acts-early '110 minutes ago' "Tenure: remove
Member: Dave Member <dave@example.org>"
expect_refused "... until her key confirms it, Mia's key is not the leader's" \
	"only the chair and the leader"

run_mail "$ALICE" alice-completes-for-mia '100 minutes ago' "Tenure: handover
Role: leader
Member: Mia Leader <mia@example.org>
Fingerprint: $MIA"
expect_refused "... and no other key than hers completes the handover" \
	"only the leader or the secretary"

run_mail "$MIA" mia-confirms '1 hour ago' "Tenure: handover
Role: leader
Member: Mia Leader <mia@example.org>
Fingerprint: $MIA"
expect_event --applied "Mia's key confirms it: a role event signed by both" "^Event: role
^Role: leader
^Member: Mia Leader <mia@example.org>
^Fingerprint: $MIA
^Signed-By: $SAM $MIA"

test_begin "... and the handover is announced to the list"
if sent_to announce-role debian-ctte@lists.debian.org; then
	test_pass
else
	test_fail "$(grep -h '^X-Tenure:\|^To:' "$SENT"/* 2>/dev/null)"
fi

run_mail "$LEO" former-leader-removes '30 minutes ago' "Tenure: remove
Member: Dave Member <dave@example.org>"
expect_refused "the leader before Mia no longer acts as leader" \
	"only the chair and the leader"

run_mail "$CAROL" chair-removes '25 minutes ago' "Tenure: remove
Member: Dave Member <dave@example.org>"
expect_pending "the chair's half of a removal waits for the leader's"

run_mail "$MIA" mia-removes '20 minutes ago' "Tenure: remove
Member: Dave Member <dave@example.org>"
expect_event --applied "the new leader acts with her key: the removal is made" "^Event: remove
^Member: Dave Member <dave@example.org>
^Signed-By: $CAROL $MIA"

# --- The audit ------------------------------------------------------------------

test_begin "audit verifies every mail again, the new keys' too, and rebuilds the same ledger"
"$TENURE" --config "$CONF" audit >"$W/audit" 2>&1
test_expect_equal "audit: 12 archived messages, 10 ledger events, 0 problems, 0 differences" \
	"$(tail -n 1 "$W/audit")"

test_done
