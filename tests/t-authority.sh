#!/bin/sh
# t-authority.sh: what authorises a command, and when (issue 15, items
# 1, 2, 3, 8 and 9).  The membership, role and key that authorise a
# command must hold on the signature's date and when the mail arrived; a
# key is bound to a person only by that key's own signature; roles from
# the configuration lapse like roles from the ledger; transcripts carry
# no server internals; a forged List-Id does not make mail public.
# Keys and mail are made for the run; every mail is imported from a
# Maildir whose delivery time is its arrival, and every check looks at
# the ledger, the outbox (transcripts) and the log.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"

committee_init

# Carol chairs and Leo leads, as the configuration says; Sam is the
# Project Secretary; Alice, Bob and Dave are members.  Bob has a second
# key ready, Mia will be elected leader, Nina is a newcomer and Oscar an
# outsider whose key is in the keyring.
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
BOB2=$(gpg_new_key "Bob Member" bob2@example.org)
DAVE=$(gpg_new_key "Dave Member" dave@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
MIA=$(gpg_new_key "Mia Leader" mia@example.org)
SAM=$(gpg_new_key "Sam Secretary" sam@example.org)
NINA=$(gpg_new_key "Nina Newcomer" nina@example.org)
OSCAR=$(gpg_new_key "Oscar Outsider" oscar@example.org)
CAROL2=$(gpg_new_key "Carol Chair" carol2@example.org)
DAVE2=$(gpg_new_key "Dave Member" dave2@example.org)
BOT=$(gpg_new_key "Tenure Bot" tenure@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	bob@example.org bob2@example.org dave@example.org leo@example.org \
	mia@example.org sam@example.org nina@example.org oscar@example.org \
	carol2@example.org dave2@example.org tenure@example.org

day() { date -u -d "$1" +%Y-%m-%d; }

# committee NAME [SECTION.KEY=VALUE]...: a fresh committee in $W/NAME,
# $CONF from then on: Carol, Alice, Bob and Dave serve with their keys;
# [roles] names Carol, Leo and Sam; tenure signs with the bot's key.
committee() {
	local dir=$W/$1
	shift
	rm -rf "$dir"
	mkdir -p "$dir/inbox/new" "$dir/inbox/cur" "$dir/inbox/tmp"
	CONF=$dir/tenure.conf
	committee_ledger --file "$dir/ledger" "Carol Chair <carol@example.org> $CAROL" \
		"Alice Member <alice@example.org> $ALICE" \
		"Bob Member <bob@example.org> $BOB" "Dave Member <dave@example.org> $DAVE"
	committee_conf "$CONF" roles.chair="$CAROL" roles.leader="$LEO" \
		roles.secretary="$SAM" keys.keyring="$W/keyring.gpg" \
		keys.bot-key="$BOT" keys.max-signature-age=7 "$@"
	mkdir -m 700 "$dir/g"
	gw --export-secret-keys "$BOT" |
		gpg --homedir "$dir/g" --batch --quiet --import 2>/dev/null
	test_cleanup "gpgconf --homedir '$dir/g' --kill all"
}

# send SIGNER ID SIGNED ARRIVED BODY: a PGP/MIME mail signed at SIGNED
# and delivered at ARRIVED (date -d), imported into the committee of
# $CONF.  It carries the list's List-Id, and $RECEIVED, when set, as
# its topmost Received header.
send() {
	local mail
	mail=$(signed_mail --at "$3" "$1" someone@example.org "$2" "$5" \
		"List-Id: <debian-ctte.lists.debian.org>" 2>/dev/null)
	if [ -n "${RECEIVED:-}" ]; then
		{ printf 'Received: %s\n' "$RECEIVED"; cat "$mail"; } >"$mail.top"
		mv "$mail.top" "$mail"
	fi
	before=$(events)
	outbox_before=$(outbox_count)
	import_mail "$mail" "$(date -d "$4" +%s)"
}

# expect_pending DESCRIPTION: nothing appended, nothing refused, the
# command waits for its other half.
expect_pending() {
	test_begin "$1"
	if [ "$(events)" != "$before" ]; then
		test_fail "expected no new event" "$(last_event)"
	elif grep -q '^refused' "$W/log" || ! grep -q '^pending' "$W/log"; then
		test_fail "expected the command to wait for its other half" "$(cat "$W/log")"
	else
		test_pass
	fi
}

# --- 1. Authority is judged when the mail arrives -------------------------

committee c1
send "$CAROL" chair-to-alice '3 days ago' '3 days ago' "Tenure: handover
Role: chair
Fingerprint: $ALICE"
expect_event "the chair hands the chair to Alice" "^Event: role
^Date: $(day '3 days ago')
^Member: Alice Member <alice@example.org>"

send "$CAROL" former-chair-appoints '5 days ago' 'now' "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01"
expect_refused --reply "a former chair's back-dated appointment is refused" \
	"held the chair's role on the signature's date ($(day '5 days ago')) but no longer when the mail arrived ($(day now))"

# Bob's key is replaced (recorded by hand, as an administrator would).
committee_event key "$(day '2 days ago')" "Member: Bob Member <bob@example.org>" \
	"Fingerprint: $BOB2"
send "$BOB" replaced-key-resigns '4 days ago' 'now' "Tenure: resign"
expect_refused --reply "a replaced key's back-dated resignation is refused" \
	"the signing key ($BOB) was no longer the key of Bob Member <bob@example.org> when the mail arrived"

send "$DAVE" effective-too-early '5 days ago' 'now' "Tenure: resign
Effective: $(day '4 days ago')"
expect_refused --reply "an Effective before the day before the arrival is refused" \
	"Effective: is before $(day '1 day ago'), the day before this mail arrived"

send "$DAVE" backdated-resign '5 days ago' 'now' "Tenure: resign"
expect_event "a back-dated resignation takes effect the day before it arrived" "^Event: resign
^Date: $(day '1 day ago')
^Member: Dave Member <dave@example.org>
^Signed-By: $DAVE"

# The rule expired Alice yesterday; the schedule recorded it today.  Her
# resignation arrived yesterday but is read only now.
committee_event expire "$(day '1 day ago')" "Member: Alice Member <alice@example.org>" \
	"Recorded: $(day now)T00:05:00Z" "Source: tenure"
send "$ALICE" resign-before-expiry '3 days ago' '1 day ago' "Tenure: resign"
expect_refused --reply "a resignation does not overtake an expiry recorded after it was signed" \
	"since this command was signed, the ledger has recorded the expiry of Alice Member <alice@example.org>"

# tenure import of an mbox: the From_ line is the arrival.
before=$(events)
mime_text_part "Tenure: resign" >"$W/m/mbox.part"
pgpmime_entity "$CAROL" "$W/m/mbox.part" -- "$(gpg_faked '5 days ago')" >"$W/m/mbox.entity"
{
	printf 'From carol@example.org %s\n' "$(LC_ALL=C date -u '+%a %b %e %H:%M:%S %Y')"
	mail_message carol@example.org mbox-resign@example.org "$W/m/mbox.entity" \
		"List-Id: <debian-ctte.lists.debian.org>"
	printf '\n'
} >"$W/m/archive.mbox"
"$TENURE" --config "$CONF" import "mbox:$W/m/archive.mbox" >"$W/out" 2>"$W/log"
expect_event "an mbox import dates a back-dated resignation by the From_ line" "^Event: resign
^Date: $(day '1 day ago')
^Member: Carol Chair <carol@example.org>
^Signed-By: $CAROL"

test_begin "audit rebuilds the ledger, judging each mail as of its arrival"
"$TENURE" --config "$CONF" audit >"$W/audit" 2>&1
test_expect_equal "audit: 3 archived messages, 10 ledger events, 0 problems, 0 differences" \
	"$(tail -n 1 "$W/audit")"

# --- 2. A key is bound to a person only by that key ------------------------

committee c2
send "$DAVE" claim-appointee-key '1 hour ago' 'now' "Tenure: new-key
Fingerprint: $NINA"
expect_pending "a member's new-key naming a future appointee's key binds nothing by itself"

send "$CAROL" appoint-nina '1 hour ago' 'now' "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01"
expect_event "... and the appointee's appointment still goes through" "^Event: appoint
^Member: Nina Newcomer <nina@example.org>
^Fingerprint: $NINA"

send "$DAVE" claim-leader-key '1 hour ago' 'now' "Tenure: new-key
Fingerprint: $LEO"
expect_pending "a member's new-key naming the leader's key binds nothing by itself"

test_begin "... and the leader's key still leads"
test_expect_equal "Chair: Carol Chair <carol@example.org>; leader: Leo Leader <leo@example.org> (key $LEO, [roles] leader)" \
	"$("$TENURE" --config "$CONF" status 2>&1 | sed -n 2p)"

send "$DAVE2" dave-new-key-first '2 hours ago' 'now' "Tenure: new-key
Member: Dave Member <dave@example.org>
Fingerprint: $DAVE2"
expect_pending "the new key's own half, sent first, waits for the member's key"

send "$DAVE" dave-old-key-second '1 hour ago' 'now' "Tenure: new-key
Fingerprint: $DAVE2"
expect_event "the member's current key completes it: a key event signed by both" "^Event: key
^Member: Dave Member <dave@example.org>
^Fingerprint: $DAVE2
^Source: <dave-old-key-second@example.org>
^Signed-By: $DAVE $DAVE2"

# Bob's key is replaced (recorded by hand): his old key stays his.
committee_event key "$(day '2 days ago')" "Member: Bob Member <bob@example.org>" \
	"Fingerprint: $BOB2"
send "$ALICE" claim-replaced-key '1 hour ago' 'now' "Tenure: new-key
Fingerprint: $BOB"
expect_refused --reply "a key a member once held is never bound to another" \
	"Fingerprint: $BOB is the key of Bob Member <bob@example.org>"

send "$CAROL" appoint-leader-key '1 hour ago' 'now' "Tenure: appoint
Member: Oscar Outsider <oscar@example.org>
Fingerprint: $LEO
Project-Joined: 2010-05-01"
expect_refused --reply "an appointment naming the configured leader's key is refused" \
	"Fingerprint: $LEO is the key \[roles\] leader names"

send "$CAROL" appoint-bot-key '1 hour ago' 'now' "Tenure: appoint
Member: Oscar Outsider <oscar@example.org>
Fingerprint: $BOT
Project-Joined: 2010-05-01"
expect_refused --reply "an appointment naming tenure's own key is refused" \
	"Fingerprint: $BOT is tenure's own key"

send "$SAM" leader-to-mia '3 hours ago' 'now' "Tenure: handover
Role: leader
Member: Mia Leader <mia@example.org>
Fingerprint: $MIA"
expect_pending "a handover to a leader the ledger records no key for waits for that key"

send "$MIA" leader-mia-confirms '2 hours ago' 'now' "Tenure: handover
Role: leader
Member: Mia Leader <mia@example.org>
Fingerprint: $MIA"
expect_event "the new leader's key confirms it: a role event signed by both" "^Event: role
^Role: leader
^Member: Mia Leader <mia@example.org>
^Fingerprint: $MIA
^Signed-By: $SAM $MIA"

send "$MIA" leader-mia-names-bob-key '1 hour ago' 'now' "Tenure: handover
Role: leader
Member: Oscar Outsider <oscar@example.org>
Fingerprint: $BOB2"
expect_refused --reply "a handover never binds another member's key to the new holder" \
	"Fingerprint: $BOB2 is the key of Bob Member <bob@example.org>"

test_begin "audit rebuilds the ledger from both halves of each binding"
"$TENURE" --config "$CONF" audit >"$W/audit" 2>&1
test_expect_equal "audit: 7 archived messages, 9 ledger events, 0 problems, 0 differences" \
	"$(tail -n 1 "$W/audit")"

# Halves more than [keys] confirm-days apart do not make a binding.
committee c2w keys.confirm-days=2
send "$DAVE2" stale-first-half '5 days ago' '5 days ago' "Tenure: new-key
Member: Dave Member <dave@example.org>
Fingerprint: $DAVE2"
send "$DAVE" late-second-half '1 hour ago' 'now' "Tenure: new-key
Fingerprint: $DAVE2"
expect_pending "halves further apart than confirm-days make no binding"

# --- 3. Roles from the configuration lapse like roles from the ledger -----

committee c3
send "$CAROL" configured-chair-resigns '2 days ago' '2 days ago' "Tenure: resign"
expect_event "the configured chair resigns" "^Event: resign
^Member: Carol Chair <carol@example.org>"

send "$CAROL" resigned-chair-appoints '1 hour ago' 'now' "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01"
expect_refused --reply "a configured chair who resigned no longer appoints alone" \
	"only the leader (for a person the chair recommended) or the chair"

test_begin "status shows the configured chair's role vacant"
test_expect_equal "Chair: vacant; leader: Leo Leader <leo@example.org> (key $LEO, [roles] leader)" \
	"$("$TENURE" --config "$CONF" status 2>&1 | sed -n 2p)"

test_begin "check-config warns that the configured chair's role is vacant, and passes"
"$TENURE" --config "$CONF" check-config >"$W/cc" 2>&1; rc=$?
if [ "$rc" = 0 ] && grep -q "^warning: .*\[roles\] chair: $CAROL is the key of Carol Chair <carol@example.org>, who is not a member today: the chair is vacant" "$W/cc"; then
	test_pass
else
	test_fail "exit $rc" "$(cat "$W/cc")"
fi

committee c3k
committee_event key "$(day '2 days ago')" "Member: Carol Chair <carol@example.org>" \
	"Fingerprint: $CAROL2"
send "$CAROL" old-chair-key-appoints '1 hour ago' 'now' "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01"
expect_refused --reply "the configured chair's replaced key no longer holds the chair" \
	"only the leader (for a person the chair recommended) or the chair"

send "$CAROL2" new-chair-key-appoints '1 hour ago' 'now' "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01"
expect_event "the configured chair's new key holds the chair" "^Event: appoint
^Member: Nina Newcomer <nina@example.org>
^Signed-By: $CAROL2"

test_begin "status names the configured chair after her key change"
test_expect_equal "Chair: Carol Chair <carol@example.org>; leader: Leo Leader <leo@example.org> (key $LEO, [roles] leader)" \
	"$("$TENURE" --config "$CONF" status 2>&1 | sed -n 2p)"

test_begin "check-config warns that the configured chair signs with another key"
"$TENURE" --config "$CONF" check-config >"$W/cc" 2>&1; rc=$?
if [ "$rc" = 0 ] && grep -q "^warning: .*\[roles\] chair: $CAROL was the key of Carol Chair <carol@example.org>, who signs with $CAROL2 today" "$W/cc"; then
	test_pass
else
	test_fail "exit $rc" "$(cat "$W/cc")"
fi

# --- 8. Transcripts carry no server internals ------------------------------

committee c8
# A rule event whose parameters cannot be read: every appointment fails
# on the server's side, and says so without naming the ledger's file.
committee_event rule "$(day '+1 year')" "Rule: fixed-term" "Parameters: term=4y bogus=1"
send "$CAROL" appoint-broken-rule '1 hour ago' 'now' "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01"
expect_refused --reply "a command the server cannot judge is refused in the committee's terms" \
	"could not apply the committee's term rule"

test_begin "... the transcript names neither the ledger's file nor its line"
reply=$(refusal_transcript "could not apply")
if [ -z "$reply" ] || grep -q -e "$W/c8/ledger" -e 'ledger:[0-9]' "$reply"; then
	test_fail "$(cat "$reply" 2>/dev/null | grep -e ledger -e Refused)"
else
	test_pass
fi

test_begin "... and the log keeps the file and the line"
if grep -q "^refused .*detail=.*$W/c8/ledger:[0-9]*: Parameters" "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi

# --- 9. A forged List-Id does not make mail public -----------------------

committee c9 "source.list-relay=bendel.debian.org; 82.195.75.100"
RECEIVED="from bendel.debian.org (bendel.debian.org [82.195.75.100])
	by mx.example.org (Postfix) with ESMTPS id 4B2; $(date -R)"
send "$ALICE" relayed '1 hour ago' 'now' "Tenure: resign"
expect_event "a command the list's relay delivered counts" "^Event: resign
^Member: Alice Member <alice@example.org>"

RECEIVED="from bendel.debian.org (attacker.example.net [203.0.113.9])
	by mx.example.org (Postfix) with ESMTPS id 4B3; $(date -R)
Received: from bendel.debian.org (bendel.debian.org [82.195.75.100])
	by relay.example.net; $(date -R)"
send "$BOB" forged-list-id '1 hour ago' 'now' "Tenure: resign"
expect_refused --reply "a command sent to tenure directly under the list's List-Id is refused" \
	"did not come through it"

test_begin "... the log names the host that handed it over"
if grep -q '^not-relayed .*received-from="attacker.example.net 203.0.113.9"' "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi

RECEIVED=
send "$BOB" no-received '1 hour ago' 'now' "Tenure: resign"
expect_refused --reply "a command with no Received header at all is refused" \
	"did not come through it"

test_done
