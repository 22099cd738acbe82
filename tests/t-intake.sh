#!/bin/sh
# t-intake.sh: signed-mail intake, end to end.  Keys are made for the
# run, mails are built and signed for the run, and every check looks at
# the ledger (and the log line or the outbox) after `tenure import`.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"

committee_init

# The people.  Carol chairs; Leo leads the project and is no member;
# Dave's key expired 20 days ago; Erin's is revoked below; Frank signs
# with a subkey; Grace is in the ledger without a fingerprint (so she
# cannot act by mail, whatever key carries her address); Oscar's
# key is in no keyring; Olga left the committee two months ago.
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
DAVE=$(gpg_new_key "Dave Member" dave@example.org 10d)
ERIN=$(gpg_new_key "Erin Member" erin@example.org)
FRANK=$(gpg_new_key "Frank Member" frank@example.org)
FRANK_SUB=$(gpg_add_signing_subkey frank@example.org)
GRACE=$(gpg_new_key "Grace Member" grace@example.org)
HEIDI=$(gpg_new_key "Heidi Member" heidi@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
OSCAR=$(gpg_new_key "Oscar Outsider" oscar@example.org)
OLGA=$(gpg_new_key "Olga Former" olga@example.org)
NINA=$(gpg_new_key "Nina Newcomer" nina@example.org)
# Erin signs before her key is revoked: gpg will not sign after.
signed_mail "$ERIN" erin@example.org revoked-key "Tenure: resign" >/dev/null
gpg_revoke erin@example.org
KEYRING_PEOPLE="carol@example.org alice@example.org bob@example.org dave@example.org
erin@example.org frank@example.org grace@example.org heidi@example.org
leo@example.org olga@example.org nina@example.org"
# shellcheck disable=SC2086
gpg_export_keyring "$W/keyring.gpg" $KEYRING_PEOPLE

left=$(date -u -d '2 months ago' +%Y-%m-%d)

committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE" "Bob Member <bob@example.org> $BOB" \
	"Dave Member <dave@example.org> $DAVE" "Erin Member <erin@example.org> $ERIN" \
	"Frank Member <frank@example.org> $FRANK" "Grace Member <grace@example.org>" \
	"Heidi Member <heidi@example.org> $HEIDI"
committee_event appoint "$two_years_ago" "Member: Olga Former <olga@example.org>" \
	"Fingerprint: $OLGA"
committee_event resign "$left" "Member: Olga Former <olga@example.org>"
committee_conf committee.max-members=8 roles.chair="$CAROL" roles.leader="$LEO" \
	keys.max-signature-age=7

# The current members' addresses, one line, sorted.
members() {
	"$TENURE" --config "$W/tenure.conf" status --format=tsv 2>/dev/null |
		awk -F'\t' 'NR > 1 { print $2 }' | sort | tr '\n' ' '
}

# --- A full committee: the ninth member is refused -----------------------

before=$(events)
import_mail "$(signed_mail "$CAROL" carol@example.org rec-nina "Tenure: recommend
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01")"
expect_unchanged "a recommendation while the committee is full for the next year is refused" \
	"no place for another member"
test_begin "... and nothing is pending for it"
test_expect_equal "0" "$(cat "$W/state/pending" 2>/dev/null | grep -c 'recommend nina@example.org')"

# A recommendation made before the committee filled up.
mkdir -p "$W/state"
printf '\n[recommend nina@example.org]\nmember=Nina Newcomer <nina@example.org>\nfingerprint=%s\nproject-joined=2010-05-01\nsigned-by=%s\nmessage-id=<rec-nina@example.org>\ndate=%s\n' \
	"$NINA" "$CAROL" "$(date -u +%Y-%m-%d)" >>"$W/state/pending"
state_reseal "$W/state/pending"

import_mail "$(signed_mail "$LEO" leo@example.org appoint-nina-full "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01")"
expect_unchanged "a ninth member is refused while eight serve" "8"
test_begin "a refused signed command gets a private transcript reply"
if grep -rl "Refused:" "$W/state/outbox" 2>/dev/null | xargs grep -l "To: .*leo@example.org" >/dev/null 2>&1; then
	test_pass
else
	test_fail "expected a reply to leo@example.org in $W/state/outbox" \
		"$(ls -R "$W/state/outbox" 2>&1 | head)"
fi

# --- Resignations that count ----------------------------------------------

before=$(events)
# Signed three days ago, so that the audit below can let the key expire
# after the signature.
import_mail "$(signed_mail --at '3 days ago' "$ALICE" alice@example.org alice-resign "Tenure: resign

So long, and thanks.")" "$(date -d '3 days ago + 1 hour' +%s)"
expect_event "a valid PGP/MIME resignation is recorded" "^Event: resign
^Date: $(date -u -d '3 days ago' +%Y-%m-%d)
^Member: Alice Member <alice@example.org>
^Source: <alice-resign@example.org>
^Signed-By: $ALICE
^Signature: $ALICE .* sha256:"
test_begin "the message that changed the ledger is archived verbatim"
archived=$(grep -l '^Message-ID: <alice-resign@' "$W"/state/archive/*.eml 2>/dev/null | head -n 1)
if [ -n "$archived" ] && cmp -s "$archived" "$W/m/alice-resign.eml"; then
	test_pass
else
	test_fail "expected a verbatim copy of alice-resign.eml in state/archive" \
		"got: $(ls "$W/state/archive" 2>&1)"
fi

before=$(events)
import_mail "$W/m/alice-resign.eml"
test_begin "the same message twice changes nothing"
test_expect_equal "$before" "$(events)"

sed 's/^Message-ID: <alice-resign@/Message-ID: <alice-repost@/' \
	"$W/m/alice-resign.eml" >"$W/m/alice-repost.eml"
import_mail "$W/m/alice-repost.eml"
test_begin "the same signed part under a new Message-ID changes nothing"
if [ "$(events)" = "$before" ] && grep -q 'signature already handled' "$W/log"; then
	test_pass
else
	test_fail "expected $before events and 'signature already handled'" \
		"got $(events) events" "$(cat "$W/log")"
fi

import_mail "$(signed_mail --clearsign "$BOB" bob@example.org bob-resign "Tenure: resign
Effective: $(date -u -d '+10 days' +%Y-%m-%d)")"
expect_event "a valid clearsigned resignation is recorded with its date" \
	"^Event: resign
^Date: $(date -u -d '+10 days' +%Y-%m-%d)
^Member: Bob Member <bob@example.org>
^Signed-By: $BOB"

before=$(events)
import_mail "$(signed_mail "$GRACE" heidi@example.org forged-from "Tenure: resign")"
expect_unchanged "a forged From: counts for nothing, and a member without a recorded fingerprint is nobody by mail" \
	"the ledger records no key for Grace Member <grace@example.org>"

# --- Mail that must change nothing ------------------------------------------

before=$(events)
mime_text_part "Tenure: resign" >"$W/m/unsigned.entity"
mail_message heidi@example.org unsigned@example.org "$W/m/unsigned.entity" >"$W/m/unsigned.eml"
import_mail "$W/m/unsigned.eml"
expect_unchanged "an unsigned command is refused" "unsigned command"
test_begin "unsigned mail gets no reply (no backscatter)"
if grep -rl "heidi@example.org" "$W/state/outbox" >/dev/null 2>&1; then
	test_fail "found a reply to heidi in the outbox"
else
	test_pass
fi

signed_mail "$HEIDI" heidi@example.org tampered "Tenure: resign
Effective: 2099-01-01" >/dev/null
sed 's/^Effective: 2099-01-01/Effective: 2098-01-01/' "$W/m/tampered.eml" >"$W/m/tampered2.eml"
import_mail "$W/m/tampered2.eml"
expect_unchanged "a tampered body is refused" "bad signature"

import_mail "$(signed_mail "$OSCAR" heidi@example.org unknown-key "Tenure: resign")"
expect_unchanged "a key in no configured keyring is refused" "unknown key"

import_mail "$(signed_mail --at '25 days ago' "$DAVE" dave@example.org expired-key \
	"Tenure: resign")" "$(date -d '25 days ago + 1 hour' +%s)"
expect_unchanged "an expired key is refused" "expired key"

import_mail "$W/m/revoked-key.eml"
expect_unchanged "a revoked key is refused" "revoked key"

import_mail "$(signed_mail "$HEIDI" heidi@example.org sha1 "Tenure: resign" -- --digest-algo SHA1)"
expect_unchanged "a SHA-1 signature is refused" "SHA-1"

import_mail "$(signed_mail --at '1 year' "$HEIDI" heidi@example.org future "Tenure: resign")"
expect_unchanged "a signature dated next year is refused" "future"

import_mail "$(signed_mail --at '9 days ago' "$HEIDI" heidi@example.org too-old "Tenure: resign")"
expect_unchanged "a signature older than max-signature-age at arrival is refused" \
	"more than 7 days before the message arrived"

mime_text_part "Tenure: resign" >"$W/m/third.part"
mime_text_part "Unsigned extra words." >"$W/m/third.extra"
pgpmime_entity "$HEIDI" "$W/m/third.part" application/pgp-signature "$W/m/third.extra" \
	>"$W/m/third.entity"
mail_message heidi@example.org third@example.org "$W/m/third.entity" >"$W/m/third.eml"
import_mail "$W/m/third.eml"
expect_unchanged "a third unsigned part in multipart/signed is refused" "exactly 2 required"

mime_text_part "Tenure: resign" >"$W/m/before.part"
pgpmime_entity "$HEIDI" "$W/m/before.part" >"$W/m/before.signed"
mime_text_part "Tenure: resign" >"$W/m/before.unsigned"
mixed_entity "$W/m/before.unsigned" "$W/m/before.signed" >"$W/m/before.entity"
mail_message heidi@example.org before@example.org "$W/m/before.entity" >"$W/m/before.eml"
import_mail "$W/m/before.eml"
expect_unchanged "unsigned text before the signed part in multipart/mixed is refused" \
	"the signature does not cover the mail's text"

import_mail "$(signed_mail "$HEIDI" heidi@example.org quoted "Alice wrote:
> Tenure: resign

I do not agree.")"
test_begin "a command in a quoted block is not one (and never reaches gpg)"
if [ "$(events)" = "$before" ] && [ "$(cat "$W/status")" = 0 ] && [ ! -s "$W/log" ]; then
	test_pass
else
	test_fail "expected no change and nothing logged" "$(cat "$W/log")"
fi

rfc822_entity "$(signed_mail "$HEIDI" heidi@example.org inner "Tenure: resign")" >"$W/m/fwd.entity"
mail_message carol@example.org fwd@example.org "$W/m/fwd.entity" >"$W/m/fwd.eml"
import_mail "$W/m/fwd.eml"
expect_unchanged "a signed command forwarded as message/rfc822 is refused" \
	"command outside the signed part"

import_mail "$(signed_mail "$HEIDI $CAROL" heidi@example.org two-sigs "Tenure: resign")"
expect_unchanged "two signatures are refused" "2 signature packets"

mime_text_part "Tenure: resign" >"$W/m/proto.part"
pgpmime_entity "$HEIDI" "$W/m/proto.part" application/pkcs7-signature >"$W/m/proto.entity"
mail_message heidi@example.org proto@example.org "$W/m/proto.entity" >"$W/m/proto.eml"
import_mail "$W/m/proto.eml"
expect_unchanged "a wrong protocol parameter is refused" "application/pgp-signature required"

clearsigned_entity "$HEIDI" "Hello" >"$W/m/outside.block"
{
	printf 'Content-Type: text/plain; charset=us-ascii\n\nTenure: resign\n\n'
	sed '1,/^$/d' "$W/m/outside.block"
} >"$W/m/outside.entity"
mail_message heidi@example.org outside@example.org "$W/m/outside.entity" >"$W/m/outside.eml"
import_mail "$W/m/outside.eml"
expect_unchanged "a command in unsigned text outside a clearsigned block is refused" \
	"outside the clearsigned block"

import_mail "$(signed_mail "$HEIDI" heidi@example.org no-role "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01")"
expect_unchanged "an appointment signed by someone without the role is refused" \
	"only the leader"

import_mail "$(signed_mail "$LEO" leo@example.org non-member "Tenure: resign")"
expect_unchanged "a resignation by a non-member is refused" "not a member"

# The charset of a clearsigned part is outside the signature: a copy
# that claims another one is still the same signature.
signed_mail --clearsign "$LEO" leo@example.org leo-utf8 "Tenure: resign

À bientôt" >/dev/null
sed -i 's/charset=us-ascii/charset=utf-8/' "$W/m/leo-utf8.eml"
import_mail "$W/m/leo-utf8.eml"
sed -e 's/charset=utf-8/charset=iso-8859-1/' \
	-e 's/^Message-ID: <leo-utf8@/Message-ID: <leo-latin1@/' \
	"$W/m/leo-utf8.eml" >"$W/m/leo-latin1.eml"
import_mail "$W/m/leo-latin1.eml"
expect_unchanged "a clearsigned command copied under another charset is the same signature" \
	"signature already handled"

# Leo has had two refusals answered; two more make four, of which the
# last goes unanswered ([reminders] replies-per-day is 3 by default).
for i in 1 2; do
	import_mail "$(signed_mail "$LEO" leo@example.org leo-defer-$i "Tenure: defer
Member: Dave Member <dave@example.org>
Until: 2099-01-0$i
Reason: attempt $i")"
done
test_begin "refusal replies are limited per signer and day"
replies=$(grep -l '^To: leo@example.org' "$W"/state/outbox/queue/* 2>/dev/null | wc -l)
if [ "$replies" = 3 ] && grep -q '^reply-suppressed .*to=leo@example.org' "$W/log"; then
	test_pass
else
	test_fail "expected 3 replies to leo and a reply-suppressed line" \
		"got $replies replies" "$(cat "$W/log")"
fi

import_mail "$(signed_mail "$CAROL" tenure@example.org own-mail "Tenure: resign")"
test_begin "tenure's own mail is never a command"
if [ "$(events)" = "$before" ] && grep -q "reason=\"tenure's own mail\"" "$W/log"; then
	test_pass
else
	test_fail "expected no change and an own-mail log line" "$(cat "$W/log")"
fi

before=$(events)
signed_mail "$HEIDI" heidi@example.org auto "Tenure: resign" >/dev/null
sed 's/^MIME-Version: 1.0/Auto-Submitted: auto-replied\nMIME-Version: 1.0/' \
	"$W/m/auto.eml" >"$W/m/auto2.eml"
import_mail "$W/m/auto2.eml"
test_begin "mail marked Auto-Submitted is never a command"
if [ "$(events)" = "$before" ] && grep -q 'reason="Auto-Submitted mail"' "$W/log"; then
	test_pass
else
	test_fail "expected no change and an Auto-Submitted log line" "$(cat "$W/log")"
fi

printf 'From: heidi@example.org\nMessage-ID: <broken@example.org>\nMIME-Version: 1.0\nContent-Type: multipart/signed; protocol="application/pgp-signature"\n\nTenure: resign\n' >"$W/m/broken.eml"
import_mail "$W/m/broken.eml"
expect_unchanged "malformed MIME is refused with a clear log line" "malformed MIME"

# --- A 50 MB message is refused; the mail after it is still handled ------

before=$(events)
rm -rf "$W/big"
{
	printf 'From: heidi@example.org\nMessage-ID: <big@example.org>\nSubject: big\n\nTenure: resign\n'
	head -c 52428800 /dev/zero | tr '\0' 'x' | fold -w 76
} >"$W/m/big.eml"
deliver "$W/big" "$W/m/big.eml" "$(date -d '1 minute ago' +%s)"
mime_text_part "Tenure: resign" >"$W/m/footer.part"
pgpmime_entity "$FRANK_SUB!" "$W/m/footer.part" >"$W/m/footer.signed"
mime_text_part "_______________________________________________
debian-ctte mailing list" >"$W/m/footer.footer"
mixed_entity "$W/m/footer.signed" "$W/m/footer.footer" >"$W/m/footer.entity"
mail_message frank@example.org footer@example.org "$W/m/footer.entity" >"$W/m/footer.eml"
deliver "$W/big" "$W/m/footer.eml"
"$TENURE" --config "$W/tenure.conf" import "maildir:$W/big" >"$W/out" 2>"$W/log"
echo $? >"$W/status"
rm -f "$W/m/big.eml" "$W/big/new/"*
test_begin "a 50 MB message is refused with a clear log line"
if grep -q 'reason="message too large ([0-9]* bytes, limit 10485760)"' "$W/log"; then
	test_pass
else
	test_fail "expected a 'message too large' refusal" "$(cat "$W/log")"
fi
expect_event "a list footer after the signed part is ignored; a subkey signature counts for its primary key" \
	"^Event: resign
^Member: Frank Member <frank@example.org>
^Source: <footer@example.org>
^Signed-By: $FRANK"

# --- A refusal stays final whatever the line ends -------------------------

# Leo's appointment of Nina was refused while eight served; there is room
# now and the recommendation is still pending.  The same mail with CRLF
# line ends (as IMAP hands it over) is the same signature.
before=$(events)
sed -e 's/^Message-ID: <appoint-nina-full@/Message-ID: <appoint-nina-crlf@/' \
	-e 's/$/\r/' "$W/m/appoint-nina-full.eml" >"$W/m/appoint-nina-crlf.eml"
import_mail "$W/m/appoint-nina-crlf.eml"
expect_unchanged "a refused command replayed with CRLF line ends is not decided again" \
	"signature already handled"

# --- Appointments by the chair alone, and removal by chair and leader -----

later=$(date -u -d '+12 days' +%Y-%m-%d)
before=$(events)
import_mail "$(signed_mail "$CAROL" carol@example.org appoint-olga "Tenure: appoint
Member: Olga Former <olga@example.org>
Fingerprint: $OLGA
Project-Joined: 2003-03-03
Effective: $later")"
expect_unchanged "an appointment of an ineligible person is refused" \
	"may not be appointed"

# Half a removal of Nina, left from an earlier term of hers.
printf '\n[remove nina@example.org]\nmember=Nina Newcomer <nina@example.org>\nleader=%s\nleader-message=<old-remove@example.org>\n' \
	"$LEO" >>"$W/state/pending"
state_reseal "$W/state/pending"
import_mail "$(signed_mail "$CAROL" carol@example.org appoint-nina "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01
Effective: $later")"
expect_event "the chair alone appoints while the committee has 5 members or fewer" \
	"^Event: appoint
^Date: $later
^Member: Nina Newcomer <nina@example.org>
^Fingerprint: $NINA
^Project-Joined: 2010-05-01
^Signed-By: $CAROL"
test_begin "half a removal from an earlier term is dropped by the new appointment"
if grep -q 'remove nina@example.org' "$W/state/pending"; then
	test_fail "the old half is still pending" "$(cat "$W/state/pending")"
else
	test_pass
fi

before=$(events)
import_mail "$(signed_mail "$CAROL" carol@example.org remove-heidi-1 "Tenure: remove
Member: Heidi Member <heidi@example.org>
Effective: $later")"
test_begin "a removal signed by the chair alone is only pending"
test_expect_equal "$before" "$(events)"

before=$(events)
import_mail "$(signed_mail "$LEO" leo@example.org remove-heidi-2 "Tenure: remove
Member: Heidi Member <heidi@example.org>")"
expect_event "a removal signed by the chair and then the leader is recorded" \
	"^Event: remove
^Date: $later
^Member: Heidi Member <heidi@example.org>
^Source: <remove-heidi-2@example.org>
^Signed-By: $CAROL $LEO"

# --- Fail closed: no signature record, no ledger change -------------------

before=$(events)
mv "$W/state/seen" "$W/seen.saved"
mkdir "$W/state/seen"
import_mail "$(signed_mail "$CAROL" carol@example.org carol-closed "Tenure: resign")"
test_begin "when the signature records cannot be kept nothing is applied"
if [ "$(cat "$W/status")" != 0 ] && [ "$(events)" = "$before" ]; then
	test_pass
else
	test_fail "expected a failing import and $before events" \
		"got status $(cat "$W/status"), $(events) events" "$(cat "$W/log")"
fi
rmdir "$W/state/seen"
mv "$W/seen.saved" "$W/state/seen"

# --- A crash between the signature record and the ledger append ---------

# The two windows a crash can leave, made by hand: the record says
# "applying" and the ledger either lacks the event or already has it.
drop_last_stanza() {
	/usr/bin/python3 -c 'import sys
p = sys.argv[1]
text = open(p).read().rstrip("\n")
open(p, "w").write(text[:text.rfind("\n\n")] + "\n")' "$W/ledger"
}
mark_applying() {
	sed -i -e "/^signature .* <$1@example.org>\$/s/\$/ applying/" \
		-e "/^message <$1@example.org>\( .*\)\{0,1\}\$/d" "$W/state/seen"
	state_reseal "$W/state/seen"
}
later_still=$(date -u -d '+40 days' +%Y-%m-%d)
before=$(events)
# The ledger as it was before the append, and tenure's record of it.
cp "$W/state/ledger-mark" "$W/mark.saved"
import_mail "$(signed_mail "$CAROL" carol@example.org carol-crash "Tenure: resign
Effective: $later_still")"
drop_last_stanza
cp "$W/mark.saved" "$W/state/ledger-mark"
mark_applying carol-crash
import_mail "$W/m/carol-crash.eml"
expect_event "after a crash before the ledger append, the command is applied on restart" \
	"^Event: resign
^Date: $later_still
^Member: Carol Chair <carol@example.org>
^Source: <carol-crash@example.org>"
test_begin "the resumed command is logged as such"
if grep -q '^resuming .*msgid=<carol-crash@example.org>' "$W/log"; then
	test_pass
else
	test_fail "expected a resuming log line" "$(cat "$W/log")"
fi

test_begin "the resumed message is archived once"
test_expect_equal 1 "$(grep -l '^Message-ID: <carol-crash@' "$W"/state/archive/*.eml | wc -l)"

before=$(events)
mark_applying carol-crash
import_mail "$W/m/carol-crash.eml"
test_begin "after a crash after the ledger append, a restart applies nothing twice"
if [ "$(events)" = "$before" ] && grep -q 'signature already handled' "$W/log" &&
	! grep -q 'applying' "$W/state/seen"; then
	test_pass
else
	test_fail "expected $before events, 'already handled' and no 'applying' record" \
		"got $(events) events" "$(cat "$W/log")" "$(grep applying "$W/state/seen")"
fi

# --- mbox import judges old mail by its arrival ---------------------------

# Signed nine days ago: too old for live mail (see above), but the mbox
# says it arrived an hour after it was signed.
before=$(events)
much_later=$(date -u -d '+20 days' +%Y-%m-%d)
signed_mail --at '9 days ago' "$NINA" nina@example.org nina-resign "Tenure: resign
Effective: $much_later" >/dev/null
{
	printf 'From nina@example.org %s\n' "$(LC_ALL=C date -u -d '9 days ago + 1 hour' '+%a %b %e %H:%M:%S %Y')"
	sed 's/^From />From /' "$W/m/nina-resign.eml"
	printf '\n'
} >"$W/m/archive.mbox"
"$TENURE" --config "$W/tenure.conf" import "mbox:$W/m/archive.mbox" >"$W/out" 2>"$W/log"
echo $? >"$W/status"
expect_event "an mbox import judges a signature's age by the mbox From_ line" \
	"^Event: resign
^Date: $much_later
^Member: Nina Newcomer <nina@example.org>
^Signed-By: $NINA"

# --- A resignation dated ahead does not shield a member from removal ------

# Nina's term ends in 20 days; the chair and the leader remove her before.
removed_on=$(date -u -d '+15 days' +%Y-%m-%d)
before=$(events)
import_mail "$(signed_mail "$CAROL" carol@example.org remove-nina-1 "Tenure: remove
Member: Nina Newcomer <nina@example.org>
Effective: $removed_on")"
# Leo names no date, and Nina is no member yet today: the chair's date
# is the day that counts.
import_mail "$(signed_mail "$LEO" leo@example.org remove-nina-2 "Tenure: remove
Member: Nina Newcomer <nina@example.org>")"
expect_event "a removal dated before a resignation already recorded overtakes it" \
	"^Event: remove
^Date: $removed_on
^Member: Nina Newcomer <nina@example.org>
^Signed-By: $CAROL $LEO"
test_begin "Nina's last day is the removal's"
"$TENURE" --config "$W/tenure.conf" --now "$(date -u -d '+16 days' +%Y-%m-%d)" \
	status --format=tsv >"$W/out" 2>&1
if grep -Eq "^former	[^	]*	Nina Newcomer <nina@example.org>	[^	]*	$removed_on	" "$W/out"; then
	test_pass
else
	test_fail "expected nina as a former member, last day $removed_on" "$(cat "$W/out")"
fi

# A recommendation is used up by the appointment it was for, even when
# the process stopped before dropping it (put back here by hand).
printf '\n[recommend nina@example.org]\nmember=Nina Newcomer <nina@example.org>\nfingerprint=%s\nproject-joined=2010-05-01\nsigned-by=%s\nmessage-id=<rec-nina@example.org>\ndate=%s\n' \
	"$NINA" "$CAROL" "$today" >>"$W/state/pending"
state_reseal "$W/state/pending"
before=$(events)
import_mail "$(signed_mail "$LEO" leo@example.org appoint-nina-again "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01
Effective: $(date -u -d '+25 days' +%Y-%m-%d)")"
expect_unchanged "a recommendation used by an appointment does not count again" \
	"has not recommended"

# Likewise a removal made whose record was not dropped: Carol's half alone
# does not complete it again.
printf '\n[remove dave@example.org]\nmember=Dave Member <dave@example.org>\nchair=%s\nchair-message=<old-1@example.org>\nleader=%s\nleader-message=<old-2@example.org>\n' \
	"$CAROL" "$LEO" >>"$W/state/pending"
state_reseal "$W/state/pending"
before=$(events)
import_mail "$(signed_mail "$CAROL" carol@example.org remove-dave-stale "Tenure: remove
Member: Dave Member <dave@example.org>")"
test_begin "a removal record left over from one made does not complete another"
if [ "$(events)" = "$before" ] && grep -q '^pending .*msgid=<remove-dave-stale@' "$W/log"; then
	test_pass
else
	test_fail "expected $before events and the removal pending" \
		"got $(events) events" "$(cat "$W/log")"
fi

# --- A key dropped from the keyring no longer counts ----------------------

before=$(events)
# shellcheck disable=SC2086
gpg_export_keyring "$W/keyring.gpg" $(echo $KEYRING_PEOPLE | tr ' ' '\n' | grep -v heidi)
# Written long ago: a keyring that lost keys a moment ago may be half
# written, and no verdict rests on it (t-keyring.sh).
touch -d '1 hour ago' "$W/keyring.gpg"
import_mail "$(signed_mail "$HEIDI" heidi@example.org dropped-key "Tenure: resign")"
# Heidi serves: her recorded key in no keyring is tenure's problem, not
# hers (t-keyring-missing.sh): no verdict, the mail waits.
test_begin "a serving member's key dropped from the configured keyring is no verdict from the next message on"
if [ "$(events)" = "$before" ] && ! grep -q '^refused ' "$W/log" &&
	grep '^deferred ' "$W/log" | grep -q "no configured keyring holds the key $HEIDI"; then
	test_pass
else
	test_fail "expected $before events and a deferral naming $HEIDI" \
		"got $(events) events" "$(cat "$W/log")"
fi
# shellcheck disable=SC2086
gpg_export_keyring "$W/keyring.gpg" $KEYRING_PEOPLE

# --- The audit ------------------------------------------------------------

"$TENURE" --config "$W/tenure.conf" audit >"$W/audit" 2>"$W/audit.err"
status=$?
test_begin "audit re-verifies the archive and rebuilds the same ledger"
if [ "$status" = 0 ] && grep -q '0 problems, 0 differences' "$W/audit"; then
	test_pass
else
	test_fail "expected a clean audit (status $status)" "$(cat "$W/audit" "$W/audit.err")"
fi

# An event typed into the ledger by hand with a mail source is a difference.
cp "$W/ledger" "$W/ledger.saved"
printf '\nEvent: appoint\nDate: %s\nMember: Zed Smuggled <zed@example.org>\nSource: <forged@example.org>\nSigned-By: %s\n' \
	"$(date -u -d '+50 days' +%Y-%m-%d)" "$LEO" >>"$W/ledger"
"$TENURE" --config "$W/tenure.conf" audit >"$W/audit" 2>"$W/audit.err"
status=$?
test_begin "audit reports a ledger event no archived mail supports"
if [ "$status" != 0 ] && grep -q 'forged@example.org' "$W/audit"; then
	test_pass
else
	test_fail "expected the forged event to be reported" "$(cat "$W/audit" "$W/audit.err")"
fi
cp "$W/ledger.saved" "$W/ledger"

# Alice's key expires after her resignation was signed: still valid.
gpg_set_expire alice@example.org '2 days ago' 1
# shellcheck disable=SC2086
gpg_export_keyring "$W/keyring.gpg" $KEYRING_PEOPLE
"$TENURE" --config "$W/tenure.conf" audit >"$W/audit" 2>"$W/audit.err"
status=$?
test_begin "a signature made while its key was valid stays valid after the key expires"
if [ "$status" = 0 ] && grep -q "alice-resign@example.org.*stays valid" "$W/audit"; then
	test_pass
else
	test_fail "expected alice's resignation to stay valid, and said so" \
		"$(cat "$W/audit" "$W/audit.err")"
fi

gpg_revoke carol@example.org
# shellcheck disable=SC2086
gpg_export_keyring "$W/keyring.gpg" $KEYRING_PEOPLE
"$TENURE" --config "$W/tenure.conf" audit >"$W/audit" 2>"$W/audit.err"
status=$?
test_begin "audit reports a key revoked since it signed"
if [ "$status" != 0 ] && grep -q "^REVOKED <appoint-nina@example.org>" "$W/audit"; then
	test_pass
else
	test_fail "expected carol's signatures to be reported as revoked" \
		"$(cat "$W/audit" "$W/audit.err")"
fi

# --- A half-finished step by a former role holder does not count ----------

# Bob chairs for a while: he recommends Paul and signs half a removal of
# Dave.  Then Frank takes the chair, and Leo signs the other halves.
sed "s/^chair = .*/chair = $BOB/" "$W/tenure.conf" >"$W/bob-chairs.conf"
sed "s/^chair = .*/chair = $FRANK/" "$W/tenure.conf" >"$W/frank-chairs.conf"
import_as() {
	rm -rf "$W/as"
	deliver "$W/as" "$2"
	"$TENURE" --config "$W/$1.conf" import "maildir:$W/as" >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}
before=$(events)
import_as bob-chairs "$(signed_mail "$BOB" bob@example.org rec-frank-sub "Tenure: recommend
Member: Frank Member <frank@example.org>
Fingerprint: $FRANK_SUB
Project-Joined: 2004-04-04")"
expect_unchanged "a recommendation naming a subkey's fingerprint is refused" \
	"is a subkey of $FRANK"
test_begin "... and nothing is pending for it"
if grep -q 'recommend frank@example.org' "$W/state/pending"; then
	test_fail "found a pending recommendation of frank" "$(cat "$W/state/pending")"
else
	test_pass
fi
import_as bob-chairs "$(signed_mail "$BOB" bob@example.org rec-paul "Tenure: recommend
Member: Paul Pending <paul@example.org>
Fingerprint: $OSCAR
Project-Joined: 2012-02-02")"
import_as bob-chairs "$(signed_mail "$BOB" bob@example.org remove-dave-1 "Tenure: remove
Member: Dave Member <dave@example.org>")"
import_as frank-chairs "$(signed_mail "$LEO" leo@example.org appoint-paul "Tenure: appoint
Member: Paul Pending <paul@example.org>
Fingerprint: $OSCAR
Project-Joined: 2012-02-02")"
expect_unchanged "a recommendation by a former chair does not let the leader appoint" \
	"the chair has not recommended"
import_as frank-chairs "$(signed_mail "$LEO" leo@example.org remove-dave-2 "Tenure: remove
Member: Dave Member <dave@example.org>")"
test_begin "half a removal signed by a former chair does not complete with the leader's"
if [ "$(events)" = "$before" ] && grep -q '^pending .*msgid=<remove-dave-2@' "$W/log"; then
	test_pass
else
	test_fail "expected $before events and the removal still pending" \
		"got $(events) events" "$(cat "$W/log")"
fi

# Frank, the chair now, agrees to remove Erin from a day later than the
# one Leo names: she serves until the later day.
erin_off=$(date -u -d '+30 days' +%Y-%m-%d)
before=$(events)
import_as frank-chairs "$(signed_mail "$FRANK" frank@example.org remove-erin-1 "Tenure: remove
Member: Erin Member <erin@example.org>
Effective: $erin_off")"
import_as frank-chairs "$(signed_mail "$LEO" leo@example.org remove-erin-2 "Tenure: remove
Member: Erin Member <erin@example.org>
Effective: $(date -u -d '+20 days' +%Y-%m-%d)")"
expect_event "a removal takes effect on the later of the two signers' dates" \
	"^Event: remove
^Date: $erin_off
^Member: Erin Member <erin@example.org>
^Signed-By: $FRANK $LEO"

# --- A user ID naming a member's address is no proof of being them --------

# Ivan is in the ledger without a fingerprint.  Mallory, whose key is in
# the keyring, adds a user ID with Ivan's address to her own key.
IVAN=$(gpg_new_key "Ivan Member" ivan@example.org)
MALLORY=$(gpg_new_key "Mallory Member" mallory@example.org)
gw --quick-add-uid "$MALLORY" "Ivan Member <ivan@example.org>" 2>/dev/null
# shellcheck disable=SC2086
gpg_export_keyring "$W/keyring.gpg" $KEYRING_PEOPLE ivan@example.org mallory@example.org
committee_event appoint "$today" "Member: Ivan Member <ivan@example.org>"
before=$(events)
import_mail "$(signed_mail "$MALLORY" mallory@example.org mallory-as-ivan "Tenure: resign")"
expect_unchanged "a key merely claiming a member's address cannot resign for them" \
	"not a member"

# A FIFO (or a directory) in a Maildir is nobody's mail: reading it would
# block for ever.  It is skipped with a log line and the rest is handled.
before=$(events)
deliver "$W/fifo-box" "$(signed_mail "$ALICE" alice@example.org fifo-neighbour "Tenure: resign")"
mkfifo "$W/fifo-box/new/1.fifo.test"
mkdir "$W/fifo-box/new/2.dir.test"
timeout 60 "$TENURE" --config "$W/tenure.conf" import "maildir:$W/fifo-box" \
	>"$W/out" 2>"$W/log"
status=$?
test_begin "a FIFO and a directory in the Maildir are skipped, not read"
if [ "$status" = 0 ] && [ "$(grep -c 'reason="not a regular file"' "$W/log")" = 2 ]; then
	test_pass
else
	test_fail "exit $status" "$(cat "$W/log")"
fi

# --- The quick start's demo -------------------------------------------------

# As a newcomer runs it: no TENURE_LIBEXECDIR, the helper tenure-gpg
# found beside the built tenure.
env -u TENURE_LIBEXECDIR TENURE="$TENURE" sh "$top_srcdir/examples/demo.sh" >"$W/demo" 2>&1
status=$?
test_begin "the quick-start demo records the resignation and the appointment and refuses the forgery"
if [ "$status" = 0 ] &&
	grep -q '^   Member: Russ Allbery <rra@debian.org>' "$W/demo" &&
	grep -q '^   Member: Sam Hartman <hartmans@debian.org>' "$W/demo" &&
	grep -q 'msgid=<4-forged.demo@example.org> .*reason="unknown key"' "$W/demo" &&
	[ "$(grep -c '^   to debian-ctte@lists.debian.org: ' "$W/demo")" -ge 2 ]; then
	test_pass
else
	test_fail "the demo did not show what it should (status $status)" "$(cat "$W/demo")"
fi

test_done
