#!/bin/sh
# t-intake2.sh: what a signed command may do, end to end (issue 8: the
# cap on every future day, plausibility, the public record, the context
# binding).  Keys and mail are made for the run; every check looks at
# the ledger, the outbox and the log after `tenure import` (or
# `tenure run --once`).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"

committee_init
LIST=debian-ctte@lists.debian.org
LIST_ID="<debian-ctte.lists.debian.org>"

# Carol chairs, Leo leads (no member); Alice to Grace are members;
# Nina is a newcomer; Oscar's key is in the keyring but he is nobody;
# the bot has a key of its own.
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
DAVE=$(gpg_new_key "Dave Member" dave@example.org)
ERIN=$(gpg_new_key "Erin Member" erin@example.org)
FRANK=$(gpg_new_key "Frank Member" frank@example.org)
GRACE=$(gpg_new_key "Grace Member" grace@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
NINA=$(gpg_new_key "Nina Newcomer" nina@example.org)
OSCAR=$(gpg_new_key "Oscar Outsider" oscar@example.org)
BOT=$(gpg_new_key "Tenure Bot" tenure@example.org)
PEOPLE="carol alice bob dave erin frank grace leo nina oscar tenure"
# shellcheck disable=SC2086
gpg_export_keyring "$W/keyring.gpg" $(for p in $PEOPLE; do echo "$p@example.org"; done)

committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE" "Bob Member <bob@example.org> $BOB" \
	"Dave Member <dave@example.org> $DAVE" "Erin Member <erin@example.org> $ERIN" \
	"Frank Member <frank@example.org> $FRANK" "Grace Member <grace@example.org> $GRACE"

# write_conf FILE LEDGER STATE [SECTION.KEY=VALUE...]
write_conf() {
	local file=$1 ledger=$2 state=$3
	shift 3
	committee_conf "$file" committee.list="$LIST" committee.max-members=8 \
		committee.ledger="$ledger" committee.state-dir="$state" \
		roles.chair="$CAROL" roles.leader="$LEO" keys.max-signature-age=7 "$@"
}
write_conf tenure.conf ledger state

# A mail as the list delivers it: To the list, with its List-Id.
listed() {
	local signer=$1 from=$2 id=$3 body=$4
	shift 4
	signed_mail "$signer" "$from" "$id" "$body" "List-Id: Test list $LIST_ID" "$@"
}

later=$(date -u -d '+20 days' +%Y-%m-%d)

# --- Item 8: a command may name its committee and list ---------------------

before=$(events)
import_mail "$(listed "$ALICE" alice@example.org bind-ok "Tenure: resign
Effective: $later
Committee: Test Committee")"
expect_event --applied "a command naming this committee counts" \
	"^Event: resign
^Date: $later
^Member: Alice Member <alice@example.org>"

before=$(events)
outbox_before=$(outbox_count)
import_mail "$(listed "$BOB" bob@example.org bind-other "Tenure: resign
Committee: Other Committee")"
expect_refused --reply "a command naming another committee is refused" \
	"is not this committee"

import_mail "$(listed "$BOB" bob@example.org bind-other-list "Tenure: resign
List: other@lists.example.org")"
expect_refused --reply "a command naming another list is refused" \
	"is not this committee's list"

before=$(events)
import_mail "$(listed "$BOB" bob@example.org bind-list-ok "Tenure: resign
Effective: $later
List: <$LIST>")"
expect_event --applied "a command naming this list counts" \
	"^Event: resign
^Member: Bob Member <bob@example.org>"

# --- Item 6: only mail that came through the list counts -------------------

before=$(events)
MAIL_LIST=tenure@example.org
import_mail "$(signed_mail "$DAVE" dave@example.org private "Tenure: resign
Effective: $later")"
unset MAIL_LIST
expect_refused --reply "a signed command sent to tenure alone is refused" \
	"commands count only when sent to the committee's list"
test_begin "... and its transcript says to send it to the list"
if [ -n "$(refusal_transcript "send it to the list")" ]; then
	test_pass
else
	test_fail "no transcript says so" "$(grep -h Refused "$W"/state/outbox/queue/*)"
fi

# The same signed part, sent to the list afterwards, counts.
sed -e "s/^To: .*/To: $LIST/" -e 's/^Message-ID: <private@/Message-ID: <private-then-list@/' \
	"$W/m/private.eml" >"$W/m/private-then-list.eml"
before=$(events)
import_mail "$W/m/private-then-list.eml"
expect_event --applied "the same signed command sent to the list afterwards counts" \
	"^Event: resign
^Member: Dave Member <dave@example.org>
^Source: <private-then-list@example.org>"

before=$(events)
outbox_before=$(outbox_count)
import_mail "$(signed_mail "$ERIN" erin@example.org other-list-id "Tenure: resign" \
	"List-Id: <other.lists.example.org>")"
expect_refused --reply "a mail whose List-Id names another list does not count, whatever its To" \
	"List-Id names another list"

before=$(events)
MAIL_LIST=erin@example.org
import_mail "$(signed_mail "$ERIN" erin@example.org cc-list "Tenure: resign
Effective: $later" "Cc: Test list <$LIST>")"
unset MAIL_LIST
expect_event --applied "without a List-Id, the list in Cc counts" \
	"^Event: resign
^Member: Erin Member <erin@example.org>"

# A list that adds no List-Id can be required to: public-record = list-id.
write_conf list-id.conf ledger state committee.public-record=list-id
CONF=$W/list-id.conf
before=$(events)
import_mail "$(signed_mail "$FRANK" frank@example.org to-only "Tenure: resign")"
expect_refused --reply "with public-record = list-id, To: the list is not enough" \
	"it has no List-Id"
CONF=$W/tenure.conf

# --- Item 5: plausibility ----------------------------------------------------

too_late=$(date -u -d '+13 months' +%Y-%m-%d)
before=$(events)
import_mail "$(listed "$FRANK" frank@example.org far-resign "Tenure: resign
Effective: $too_late")"
expect_refused --reply "an Effective date more than a year ahead is refused" \
	"Effective: is more than a year after"

import_mail "$(listed "$CAROL" carol@example.org far-defer "Tenure: defer
Member: Frank Member <frank@example.org>
Until: $too_late
Reason: a long vote")"
expect_refused --reply "a deferral more than a year ahead is refused" \
	"Until: is more than a year after"

# Leo appoints on a recommendation the chair made 100 days ago.
mkdir -p "$W/state"
printf '\n[recommend nina@example.org]\nmember=Nina Newcomer <nina@example.org>\nfingerprint=%s\nproject-joined=2010-05-01\nsigned-by=%s\nmessage-id=<old-rec@example.org>\ndate=%s\n' \
	"$NINA" "$CAROL" "$(date -u -d '100 days ago' +%Y-%m-%d)" >>"$W/state/pending"
state_reseal "$W/state/pending"
import_mail "$(listed "$LEO" leo@example.org appoint-lapsed "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01")"
expect_refused --reply "a recommendation older than recommendation-days has lapsed" \
	"lapsed after 90 days"

# A fresh recommendation, but of Grace's key under another name.
printf '\n[recommend mallory@example.org]\nmember=Mallory <mallory@example.org>\nfingerprint=%s\nproject-joined=2010-05-01\nsigned-by=%s\nmessage-id=<rec-mallory@example.org>\ndate=%s\n' \
	"$GRACE" "$CAROL" "$today" >>"$W/state/pending"
state_reseal "$W/state/pending"
import_mail "$(listed "$LEO" leo@example.org appoint-shared-key "Tenure: appoint
Member: Mallory <mallory@example.org>
Fingerprint: $GRACE
Project-Joined: 2010-05-01")"
expect_refused --reply "an appointment naming another member's key is refused" \
	"is the key of Grace Member"

import_mail "$(listed "$CAROL" carol@example.org recommend-shared-key "Tenure: recommend
Member: Mallory <mallory@example.org>
Fingerprint: $CAROL
Project-Joined: 2010-05-01")"
expect_refused --reply "a recommendation naming another member's key is refused" \
	"is the key of Carol Chair"

# The bot's key, were it a member's, still signs no command.
write_conf bot.conf ledger state keys.bot-key="$BOT"
committee_event appoint "$year_ago" "Member: Tenure Bot <tenure@example.org>" \
	"Fingerprint: $BOT"
CONF=$W/bot.conf
before=$(events)
outbox_before=$(outbox_count)
import_mail "$(listed "$BOT" tenure-admin@example.org bot-signs "Tenure: resign")"
expect_refused --no-reply "a command signed with tenure's own key is refused, unanswered" \
	"tenure's own key signs no command"
CONF=$W/tenure.conf

# Oscar guesses the Message-ID of Grace's coming mail and sends first.
before=$(events)
import_mail "$(listed "$OSCAR" oscar@example.org grace-resign "Tenure: resign")"
mv "$W/m/grace-resign.eml" "$W/m/oscar-preempt.eml"
expect_refused --reply "a non-member's command is refused" "is not a member"
before=$(events)
import_mail "$(listed "$GRACE" grace@example.org grace-resign "Tenure: resign
Effective: $later")"
expect_event --applied "a Message-ID taken first by someone else's mail does not suppress the member's" \
	"^Event: resign
^Member: Grace Member <grace@example.org>
^Source: <grace-resign@example.org>"

before=$(events)
import_mail "$W/m/grace-resign.eml"
test_begin "the same mail again is still suppressed by its Message-ID"
if [ "$(events)" = "$before" ] && grep -q 'reason="Message-ID already handled"' "$W/log"; then
	test_pass
else
	test_fail "expected $before events and the Message-ID suppression" \
		"got $(events) events" "$(cat "$W/log")"
fi

# The same through `tenure run --once` reading the Maildir.
before=$(events)
mkdir -p "$W/inbox/new" "$W/inbox/cur" "$W/inbox/tmp"
listed "$OSCAR" oscar@example.org frank-resign "Tenure: resign" >/dev/null
deliver "$W/inbox" "$W/m/frank-resign.eml"
listed "$FRANK" frank@example.org frank-resign "Tenure: resign
Effective: $later" >/dev/null
deliver "$W/inbox" "$W/m/frank-resign.eml" "$(($(date +%s) + 60))"
"$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
echo $? >"$W/status"
test_begin "tenure run: a guessed Message-ID does not suppress the member's mail"
if [ "$(events)" = "$((before + 1))" ] &&
	grep -q "^applied .*msgid=<frank-resign@example.org> command=resign member=\"Frank Member" "$W/log"; then
	test_pass
else
	test_fail "expected frank's resignation applied" "$(cat "$W/log")"
fi

# --- Item 4: the cap holds on every future day ------------------------------

# Eight members; an eight-year fixed term (a limit the committee sets
# itself, which a deferral may move: debian's may not be) ends the two
# most senior on 31 December; two newcomers are recorded from 1 January.
# Keeping one of the two past New Year would make nine.
y=$(date -u +%Y)
{
	printf 'Event: rule\nDate: %s-01-01\nRule: fixed-term\nParameters: term=8y\nSource: import\n' "$y"
	printf '\nEvent: appoint\nDate: %s-01-01\nMember: Sam Senior <sam@example.org>\nSource: import\n' "$((y - 7))"
	printf '\nEvent: appoint\nDate: %s-01-01\nMember: Sue Senior <sue@example.org>\nSource: import\n' "$((y - 7))"
	printf '\nEvent: appoint\nDate: %s-06-01\nMember: Carol Chair <carol@example.org>\nFingerprint: %s\nSource: import\n' "$((y - 1))" "$CAROL"
	for m in m3 m4 m5 m6 m7; do
		printf '\nEvent: appoint\nDate: %s-06-01\nMember: Member %s <%s@example.org>\nSource: import\n' "$((y - 1))" "$m" "$m"
	done
	for m in n1 n2; do
		printf '\nEvent: appoint\nDate: %s-01-01\nMember: Newcomer %s <%s@example.org>\nSource: import\n' "$((y + 1))" "$m" "$m"
	done
} >"$W/cap.ledger"
write_conf cap.conf cap.ledger cap-state
CONF=$W/cap.conf
next_year=$((y + 1))-01-01

test_begin "the cap scenario: Sam's term ends on 31 December"
"$TENURE" --config "$CONF" status --format=tsv >"$W/out" 2>&1
if grep -q "Sam Senior <sam@example.org>	[^	]*	[^	]*	$y-12-31" "$W/out"; then
	test_pass
else
	test_fail "expected Sam's term to end on $y-12-31" "$(cat "$W/out")"
fi

before=$(events)
outbox_before=$(outbox_count)
import_mail "$(listed "$CAROL" carol@example.org defer-over-cap "Tenure: defer
Member: Sam Senior <sam@example.org>
Until: $((y + 1))-02-01
Reason: a vote is running")"
expect_refused --reply "a deferral keeping a member past a newcomer's start, over the cap, is refused" \
	"would have 9 members on $next_year"

before=$(events)
import_mail "$(listed "$CAROL" carol@example.org recommend-over-cap "Tenure: recommend
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01")"
expect_refused --reply "a recommendation with no vacancy within its reach is refused" \
	"no place for another member"

# With m7 gone before New Year, Sam may stay a month longer.
committee_event resign "$y-12-20" "Member: Member m7 <m7@example.org>"
before=$(events)
import_mail "$(listed "$CAROL" carol@example.org defer-within-cap "Tenure: defer
Member: Sam Senior <sam@example.org>
Until: $((y + 1))-02-01
Reason: a vote is running, and m7 has left")"
test_begin "a deferral that keeps the cap is recorded"
if [ "$(events)" = "$((before + 1))" ] && grep -q '^applied .*command=defer' "$W/log"; then
	test_pass
else
	test_fail "expected the deferral recorded" "$(cat "$W/log")"
fi

test_done
