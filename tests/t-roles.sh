#!/bin/sh
# t-roles.sh: the chair's and the leader's roles and members' keys as
# ledger events, end to end.  A command is judged by who held the role,
# and whose key was which, on the signature's date (and on arrival);
# handovers and new keys arrive by signed mail, a key bound only with
# its own signature; audit rebuilds across the changes.  Keys and mails
# are made for the run.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"

committee_init

# Carol chairs and Leo leads, as the configuration says; Sam is the
# Project Secretary; Mia is elected leader; Bob replaces his key with
# a second one.  Stray's key is in no keyring.
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
MIA=$(gpg_new_key "Mia Leader" mia@example.org)
SAM=$(gpg_new_key "Sam Secretary" sam@example.org)
OSCAR=$(gpg_new_key "Oscar Outsider" oscar@example.org)
NINA=$(gpg_new_key "Nina Newcomer" nina@example.org)
NORA=$(gpg_new_key "Nora Newcomer" nora@example.org)
BOB2=$(gpg_new_key "Bob Member" bob2@example.org)
STRAY=$(gpg_new_key "Stray Key" stray@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	bob@example.org leo@example.org mia@example.org sam@example.org \
	oscar@example.org nina@example.org nora@example.org bob2@example.org

day() { date -u -d "$1" +%Y-%m-%d; }

committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE" "Bob Member <bob@example.org> $BOB"
committee_conf roles.chair="$CAROL" roles.leader="$LEO" roles.secretary="$SAM" \
	keys.max-signature-age=7

# send SIGNER ID WHEN BODY: a PGP/MIME mail signed WHEN (date -d) and
# arriving an hour later, imported from a fresh Maildir.
send() {
	before=$(events)
	import_mail "$(signed_mail --at "$3" "$1" someone@example.org "$2" "$4")" \
		"$(date -d "$3 + 1 hour" +%s)"
}

# --- The leader of the signature's date appoints ---------------------------

send "$CAROL" rec-nina '6 days ago' "Tenure: recommend
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01"
send "$LEO" appoint-nina '5 days ago' "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01"
expect_event "the configured leader appoints before any role event" "^Event: appoint
^Member: Nina Newcomer <nina@example.org>
^Signed-By: $LEO"

# --- Handovers ----------------------------------------------------------------

send "$OSCAR" handover-oscar '4 days ago' "Tenure: handover
Role: leader
Member: Mia Leader <mia@example.org>
Fingerprint: $MIA"
expect_refused "a handover signed by someone else is refused" \
	"only the leader or the secretary may hand over the leader's role"

send "$ALICE" handover-alice '4 days ago' "Tenure: handover
Role: chair
Fingerprint: $ALICE"
expect_refused "a member who does not chair cannot hand the chair to herself" \
	"only the chair or the secretary may hand over the chair's role"

send "$SAM" handover-mia '4 days ago' "Tenure: handover
Role: leader
Member: Mia Leader <mia@example.org>
Fingerprint: $MIA"
# The ledger records no key for Mia: hers signs the handover too.
send "$MIA" handover-mia-key '4 days ago' "Tenure: handover
Role: leader
Member: Mia Leader <mia@example.org>
Fingerprint: $MIA"
expect_event "the secretary announces the new leader, her key confirms: a role event" "^Event: role
^Date: $(day '4 days ago')
^Role: leader
^Member: Mia Leader <mia@example.org>
^Fingerprint: $MIA
^Source: <handover-mia-key@example.org>
^Signed-By: $SAM $MIA"

send "$CAROL" rec-nora '3 days ago' "Tenure: recommend
Member: Nora Newcomer <nora@example.org>
Fingerprint: $NORA
Project-Joined: 2011-05-01"
send "$LEO" appoint-nora-leo '3 days ago' "Tenure: appoint
Member: Nora Newcomer <nora@example.org>
Fingerprint: $NORA
Project-Joined: 2011-05-01"
expect_refused "the former leader's appointment after the handover is refused" \
	"only the leader"

send "$MIA" appoint-nora '2 days ago' "Tenure: appoint
Member: Nora Newcomer <nora@example.org>
Fingerprint: $NORA
Project-Joined: 2011-05-01"
expect_event "the new leader appoints" "^Event: appoint
^Member: Nora Newcomer <nora@example.org>
^Signed-By: $MIA"

send "$CAROL" handover-chair-oscar '2 days ago' "Tenure: handover
Role: chair
Member: Oscar Outsider <oscar@example.org>
Fingerprint: $OSCAR"
expect_refused "the chair cannot pass to someone who is no member" \
	"Oscar Outsider <oscar@example.org> is not a member on .* and cannot chair"

send "$CAROL" handover-chair-key '2 days ago' "Tenure: handover
Role: chair
Member: Alice Member <alice@example.org>
Fingerprint: $BOB"
expect_refused "a handover naming another member's key is refused" \
	"Fingerprint: $BOB is the key of Bob Member"

send "$CAROL" handover-chair '2 days ago' "Tenure: handover
Role: chair
Fingerprint: $ALICE
Effective: $(day '1 day ago')"
expect_event "the chair hands over to the member whose key is named, from Effective" "^Event: role
^Date: $(day '1 day ago')
^Role: chair
^Member: Alice Member <alice@example.org>
^Fingerprint: $ALICE
^Signed-By: $CAROL"

send "$CAROL" rec-old-chair 'today' "Tenure: recommend
Member: Oscar Outsider <oscar@example.org>
Fingerprint: $OSCAR
Project-Joined: 2011-05-01"
expect_refused "the former chair's recommendation is refused" \
	"only the chair may recommend"

# --- New keys -------------------------------------------------------------------

send "$BOB" newkey-stray '1 day ago' "Tenure: new-key
Fingerprint: $STRAY"
expect_refused "a new key that is not in the keyring is refused" \
	"Fingerprint: $STRAY is not a usable key in the keyring"

send "$OSCAR" newkey-oscar '1 day ago' "Tenure: new-key
Fingerprint: $NORA"
expect_refused "a new key signed by nobody the ledger knows is refused" \
	"the signer ($OSCAR) is nobody's key in the ledger"

send "$BOB" newkey-bob '1 day ago' "Tenure: new-key
Fingerprint: $BOB2"
send "$BOB2" newkey-bob2 '1 day ago' "Tenure: new-key
Member: Bob Member <bob@example.org>
Fingerprint: $BOB2"
expect_event "a member's new key, signed by the current one and by itself, is a key event" "^Event: key
^Date: $(day '1 day ago')
^Member: Bob Member <bob@example.org>
^Fingerprint: $BOB2
^Signed-By: $BOB $BOB2"

send "$BOB" resign-old-key 'today' "Tenure: resign"
expect_refused "after the change the old key no longer acts for the member" \
	"is not a member of the committee"

send "$BOB2" resign-new-key 'today' "Tenure: resign
Effective: $(day '+30 days')"
expect_event "the new key acts for the member" "^Event: resign
^Member: Bob Member <bob@example.org>
^Signed-By: $BOB2"

# --- What status, audit and check-config make of it ----------------------

test_begin "status names the chair and the leader of the day"
test_expect_equal "Chair: Alice Member <alice@example.org>; leader: Mia Leader <mia@example.org>" \
	"$("$TENURE" --config "$W/tenure.conf" status 2>&1 | sed -n 2p)"

test_begin "status on an earlier date names the holders of that date"
# The ledger does not know Leo: the configuration names only his key,
# and the keyring gives its user ID.
test_expect_equal "Chair: Carol Chair <carol@example.org>; leader: Leo Leader <leo@example.org> (key $LEO, [roles] leader)" \
	"$("$TENURE" --config "$W/tenure.conf" status --date "$(day '5 days ago')" 2>&1 | sed -n 2p)"

test_begin "audit rebuilds the ledger exactly across the leader's, the chair's and Bob's key changes"
"$TENURE" --config "$W/tenure.conf" audit >"$W/audit" 2>&1; rc=$?
test_expect_equal "0 audit: 10 archived messages, 10 ledger events, 0 problems, 0 differences" \
	"$rc $(tail -n 1 "$W/audit")"

# check-config opens the source as run does: the list Maildir must exist.
mkdir -p "$W/inbox/new" "$W/inbox/cur" "$W/inbox/tmp"
test_begin "check-config says that [roles] and the ledger disagree, and passes"
"$TENURE" --config "$W/tenure.conf" check-config >"$W/cc" 2>&1; rc=$?
test_expect_equal "0 2" "$rc $(grep -c '^note: .*\[roles\] \(chair\|leader\): .* is not the ledger' "$W/cc")"

# [roles] counts only before a role's first event: changing it now
# would change who appointed Nina, unless the ledger records Leo too.
sed "s/^leader = .*/leader = $MIA/" "$W/tenure.conf" >"$W/changed.conf"
test_begin "a changed [roles] leader with no earlier leader event: audit shows Nina's appointment"
"$TENURE" --config "$W/changed.conf" audit >"$W/audit2" 2>&1; rc=$?
test_expect_equal "1 yes" "$rc $(grep -q 'DIFFERENT in the ledger.*' "$W/audit2" &&
	grep -q 'Member: Nina Newcomer' "$W/audit2" && echo yes)"

test_begin "with Leo's leadership recorded by hand, [roles] no longer matters to audit"
committee_event role "$year_ago" "Role: leader" "Member: Leo Leader <leo@example.org>" \
	"Fingerprint: $LEO"
"$TENURE" --config "$W/changed.conf" audit >"$W/audit3" 2>&1; rc=$?
test_expect_equal "0 0 differences" "$rc $(tail -n 1 "$W/audit3" | sed 's/.*, //')"

test_begin "status then names the earlier leader from the ledger"
test_expect_equal "Chair: Carol Chair <carol@example.org>; leader: Leo Leader <leo@example.org>" \
	"$("$TENURE" --config "$W/changed.conf" status --date "$(day '5 days ago')" 2>&1 | sed -n 2p)"

test_done
