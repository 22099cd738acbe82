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
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/lib-gpg.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"

gpg_world_init
W=$TEST_DIR
mkdir -p "$W/m"

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
BOT=$(gpg_new_key "Tenure Bot" tenure@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	bob@example.org bob2@example.org dave@example.org leo@example.org \
	mia@example.org sam@example.org nina@example.org oscar@example.org \
	tenure@example.org

day() { date -u -d "$1" +%Y-%m-%d; }

# committee DIR: a fresh committee in DIR (ledger, configuration, no
# state), with [roles] and [source] as given in $ROLES and $SOURCE_EXTRA.
committee() {
	rm -rf "$1"
	mkdir -p "$1"
	cat >"$1/ledger" <<EOF
Event: rule
Date: $(day '2 years ago')
Rule: debian
Source: import

Event: appoint
Date: $(day '1 year ago')
Member: Carol Chair <carol@example.org>
Fingerprint: $CAROL
Source: import

Event: appoint
Date: $(day '1 year ago')
Member: Alice Member <alice@example.org>
Fingerprint: $ALICE
Source: import

Event: appoint
Date: $(day '1 year ago')
Member: Bob Member <bob@example.org>
Fingerprint: $BOB
Source: import

Event: appoint
Date: $(day '1 year ago')
Member: Dave Member <dave@example.org>
Fingerprint: $DAVE
Source: import
EOF
	cat >"$1/tenure.conf" <<EOF
[committee]
name = Test Committee
templates = $top_srcdir/templates
list = debian-ctte@lists.debian.org
ledger = ledger
state-dir = state

[rule]
name = debian

[roles]
chair = $CAROL
leader = $LEO
secretary = $SAM

[keys]
keyring = $W/keyring.gpg
gnupg-home = g
bot-key = $BOT
max-signature-age = 7

[source]
url = maildir:inbox
${SOURCE_EXTRA:-}

[sink]
url = maildir:sent
from = tenure@example.org
EOF
	# tenure signs its transcripts with the bot's key.
	mkdir -m 700 "$1/g"
	gw --export-secret-keys "$BOT" |
		gpg --homedir "$1/g" --batch --quiet --import 2>/dev/null
	test_cleanup "gpgconf --homedir '$1/g' --kill all"
	C=$1
}

n=0
# send SIGNER ID SIGNED ARRIVED BODY [HEADER...]: a PGP/MIME mail signed
# at SIGNED and delivered at ARRIVED (date -d), imported from a Maildir
# of its own into the committee $C.  It carries the list's List-Id, and
# $RECEIVED, when set, as its topmost Received header.
send() {
	local signer=$1 id=$2 signed=$3 arrived=$4 body=$5
	shift 5
	n=$((n + 1))
	mime_text_part "$body" >"$W/m/$id.part"
	pgpmime_entity "$signer" "$W/m/$id.part" -- "$(gpg_faked "$signed")" >"$W/m/$id.entity"
	{
		[ -n "${RECEIVED:-}" ] && printf 'Received: %s\n' "$RECEIVED"
		mail_message someone@example.org "$id@example.org" "$W/m/$id.entity" \
			"List-Id: <debian-ctte.lists.debian.org>" "$@"
	} >"$W/m/$id.eml"
	rm -rf "$W/box$n"
	deliver "$W/box$n" "$W/m/$id.eml" "$(date -d "$arrived" +%s)"
	before=$(grep -c '^Event:' "$C/ledger")
	queued_before=$(queued)
	"$TENURE" --config "$C/tenure.conf" import "maildir:$W/box$n" >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}

queued() {
	ls "$C/state/outbox/queue" 2>/dev/null | wc -l
}

last_event() {
	awk 'BEGIN { RS = "" } { s = $0 } END { print s }' "$C/ledger"
}

# The transcript queued by the last send, or nothing.
last_transcript() {
	[ "$(queued)" -gt "$queued_before" ] || return 0
	ls -t "$C/state/outbox/queue"/* | head -n 1 | xargs cat
}

# The transcript on one line: a reason is wrapped in the mail.
transcript_line() {
	last_transcript | tr -d '\r' | tr '\n' ' ' | tr -s ' '
}

# expect_event DESCRIPTION PATTERN: one event was appended, matching
# every line of PATTERN (grep -E).
expect_event() {
	test_begin "$1"
	now=$(grep -c '^Event:' "$C/ledger")
	last=$(last_event)
	if [ "$now" != "$((before + 1))" ]; then
		test_fail "expected $((before + 1)) events, got $now" "$(cat "$W/log")"
		return
	fi
	echo "$2" | while IFS= read -r line; do
		printf '%s\n' "$last" | grep -Eq -- "$line" || echo "missing: $line"
	done >"$W/missing"
	if [ -s "$W/missing" ]; then
		test_fail "$(cat "$W/missing")" "got:" "$last"
	else
		test_pass
	fi
}

# expect_refused DESCRIPTION REASON [noreply]: nothing appended, a
# refusal with REASON (grep) logged, and a transcript saying it queued
# (with noreply: nothing queued).
expect_refused() {
	test_begin "$1"
	if [ "$(grep -c '^Event:' "$C/ledger")" != "$before" ]; then
		test_fail "expected no new event" "$(last_event)"
	elif [ "$(cat "$W/status")" != 0 ]; then
		test_fail "expected import to exit 0" "$(cat "$W/log")"
	elif ! grep -q -- "^refused .*reason=.*$2" "$W/log"; then
		test_fail "expected a refusal with reason $2" "got: $(cat "$W/log")"
	elif [ "${3:-}" = noreply ]; then
		if [ "$(queued)" != "$queued_before" ]; then
			test_fail "expected no transcript" "$(last_transcript)"
		else
			test_pass
		fi
	elif ! transcript_line | grep -q -- "$2"; then
		test_fail "expected a transcript with: $2" "$(last_transcript | grep -A3 Refused)"
	else
		test_pass
	fi
}

# expect_pending DESCRIPTION: nothing appended, nothing refused.
expect_pending() {
	test_begin "$1"
	if [ "$(grep -c '^Event:' "$C/ledger")" != "$before" ]; then
		test_fail "expected no new event" "$(last_event)"
	elif grep -q '^refused' "$W/log" || ! grep -q '^pending' "$W/log"; then
		test_fail "expected the command to wait for its other half" "$(cat "$W/log")"
	else
		test_pass
	fi
}

# --- 1. Authority is judged when the mail arrives -------------------------

committee "$W/c1"
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
expect_refused "a former chair's back-dated appointment is refused" \
	"held the chair's role on the signature's date ($(day '5 days ago')) but no longer when the mail arrived ($(day now))"

# Bob's key is replaced (recorded by hand, as an administrator would).
printf '\nEvent: key\nDate: %s\nMember: Bob Member <bob@example.org>\nFingerprint: %s\nSource: import\n' \
	"$(day '2 days ago')" "$BOB2" >>"$C/ledger"
send "$BOB" replaced-key-resigns '4 days ago' 'now' "Tenure: resign"
expect_refused "a replaced key's back-dated resignation is refused" \
	"the signing key ($BOB) was no longer the key of Bob Member <bob@example.org> when the mail arrived"

send "$DAVE" effective-too-early '5 days ago' 'now' "Tenure: resign
Effective: $(day '4 days ago')"
expect_refused "an Effective before the day before the arrival is refused" \
	"Effective: is before $(day '1 day ago'), the day before this mail arrived"

send "$DAVE" backdated-resign '5 days ago' 'now' "Tenure: resign"
expect_event "a back-dated resignation takes effect the day before it arrived" "^Event: resign
^Date: $(day '1 day ago')
^Member: Dave Member <dave@example.org>
^Signed-By: $DAVE"

# The rule expired Alice yesterday; the schedule recorded it today.  Her
# resignation arrived yesterday but is read only now.
printf '\nEvent: expire\nDate: %s\nMember: Alice Member <alice@example.org>\nSource: tenure\nRecorded: %sT00:05:00Z\n' \
	"$(day '1 day ago')" "$(day now)" >>"$C/ledger"
send "$ALICE" resign-before-expiry '3 days ago' '1 day ago' "Tenure: resign"
expect_refused "a resignation does not overtake an expiry recorded after it was signed" \
	"since this command was signed, the ledger has recorded the expiry of Alice Member <alice@example.org>"

# tenure import of an mbox: the From_ line is the arrival.
before=$(grep -c '^Event:' "$C/ledger")
mime_text_part "Tenure: resign" >"$W/m/mbox.part"
pgpmime_entity "$CAROL" "$W/m/mbox.part" -- "$(gpg_faked '5 days ago')" >"$W/m/mbox.entity"
{
	printf 'From carol@example.org %s\n' "$(LC_ALL=C date -u '+%a %b %e %H:%M:%S %Y')"
	mail_message carol@example.org mbox-resign@example.org "$W/m/mbox.entity" \
		"List-Id: <debian-ctte.lists.debian.org>"
	printf '\n'
} >"$W/m/archive.mbox"
"$TENURE" --config "$C/tenure.conf" import "mbox:$W/m/archive.mbox" >"$W/out" 2>"$W/log"
expect_event "an mbox import dates a back-dated resignation by the From_ line" "^Event: resign
^Date: $(day '1 day ago')
^Member: Carol Chair <carol@example.org>
^Signed-By: $CAROL"

test_begin "audit rebuilds the ledger, judging each mail as of its arrival"
"$TENURE" --config "$C/tenure.conf" audit >"$W/audit" 2>&1
test_expect_equal "audit: 3 archived messages, 10 ledger events, 0 problems, 0 differences" \
	"$(tail -n 1 "$W/audit")"

# --- 8. Transcripts carry no server internals ------------------------------

committee "$W/c8"
# A rule event whose parameters cannot be read: every appointment fails
# on the server's side, and says so without naming the ledger's file.
printf '\nEvent: rule\nDate: %s\nRule: fixed-term\nParameters: term=4y bogus=1\nSource: import\n' \
	"$(day '+1 year')" >>"$C/ledger"
send "$CAROL" appoint-broken-rule '1 hour ago' 'now' "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01"
expect_refused "a command the server cannot judge is refused in the committee's terms" \
	"could not apply the committee's term rule"

test_begin "... the transcript names neither the ledger's file nor its line"
if last_transcript | grep -q -e "$C/ledger" -e 'ledger:[0-9]'; then
	test_fail "$(last_transcript | grep -e ledger)"
else
	test_pass
fi

test_begin "... and the log keeps the file and the line"
if grep -q "^refused .*detail=.*$C/ledger:[0-9]*: Parameters" "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi

# --- 9. A forged List-Id does not make mail public -----------------------

SOURCE_EXTRA="list-relay = bendel.debian.org; 82.195.75.100"
committee "$W/c9"
unset SOURCE_EXTRA
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
expect_refused "a command sent to tenure directly under the list's List-Id is refused" \
	"did not come through it"

test_begin "... the log names the host that handed it over"
if grep -q '^not-relayed .*received-from="attacker.example.net 203.0.113.9"' "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi

RECEIVED=
send "$BOB" no-received '1 hour ago' 'now' "Tenure: resign"
expect_refused "a command with no Received header at all is refused" \
	"did not come through it"

test_done
