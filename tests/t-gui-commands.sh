#!/bin/sh
# t-gui-commands.sh: commands as the GUI mail programs write them (issue
# 31 items 1, 3 and 5), through `tenure run --once` on a Maildir source.
# Each mail is built here in the shape its program sends (Thunderbird's
# protected-headers wrapper around a text/plain; charset=UTF-8;
# format=flowed part in base64 with CRLF line ends; Evolution's text and
# HTML alternative; Claws Mail's plain part), PGP/MIME signed with a key
# made for the run and delivered as a CRLF Maildir file.  Checked: the
# ledger, the announcement or the transcript in the sink, the log and
# the exit status.
#   item 1: Thunderbird's HTML composer puts a blank line between the
#     lines of the command: still one command; a field below prose is
#     refused, never dropped;
#   item 3: a fingerprint pasted from "gpg --fingerprint" through the
#     HTML editor carries a no-break space: read as a space; a
#     zero-width space is refused and shown in the transcript;
#   item 5: each client's default attribution above the quote,
#     Claws Mail's on two lines.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"

committee_init
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
DAVE=$(gpg_new_key "Dave Member" dave@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
NINA=$(gpg_new_key "Nina Newcomer" nina@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	bob@example.org dave@example.org leo@example.org nina@example.org
committee_conf roles.chair="$CAROL" roles.leader="$LEO" \
	reminders.replies-per-day=100

SENT=$W/sent/new
EFFECTIVE=$(date -u -d '+10 days' +%Y-%m-%d)

# fresh: the committee as it was, no state, an empty inbox and sink.
fresh() {
	committee_ledger "Carol Chair <carol@example.org> $CAROL" \
		"Alice Member <alice@example.org> $ALICE" \
		"Bob Member <bob@example.org> $BOB" \
		"Dave Member <dave@example.org> $DAVE"
	rm -rf "$W/state" "$W/inbox" "$W/sent"
	before=$(events)
}

run_once() {
	"$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}

# The mail in the sink of kind KIND (X-Tenure), one file name a line.
of_kind() {
	grep -l "^X-Tenure: $1" "$SENT"/* 2>/dev/null
}

# send SIGNER FROM ID PART [HEADER...]: PART signed (PGP/MIME), as a
# CRLF mail in the inbox.
send() {
	local signer=$1 from=$2 id=$3 part=$4
	shift 4
	pgpmime_entity "$signer" "$part" >"$W/m/$id.entity"
	mail_message "$from" "$id@example.org" "$W/m/$id.entity" "$@" \
		| perl -pe 's/\r?\n/\r\n/' >"$W/m/$id.eml"
	deliver "$W/inbox" "$W/m/$id.eml"
}

TB_AGENT="User-Agent: Mozilla Thunderbird"

# thunderbird FROM TEXT: the signed entity Thunderbird writes for TEXT:
# the protected-headers wrapper with copies of the headers, around the
# text as format=flowed UTF-8 in base64 with CRLF line ends.
thunderbird() {
	local b="------------tb$(date +%s%N)"
	printf 'Content-Type: multipart/mixed; boundary="%s";\n protected-headers="v1"\n' "$b"
	printf 'From: %s\nTo: debian-ctte@lists.debian.org\nSubject: command\n\n' "$1"
	printf 'This is a multi-part message in MIME format.\n--%s\n' "$b"
	printf 'Content-Type: text/plain; charset=UTF-8; format=flowed\n'
	printf 'Content-Transfer-Encoding: base64\n\n'
	printf '%s\n' "$2" | perl -pe 's/\r?\n/\r\n/' | base64
	printf '\n--%s--\n' "$b"
}

# applied DESCRIPTION KIND PATTERN: the last run exited 0, logged an
# applied (or, a recommendation, pending) command and no refusal, and
# sent a KIND announcement matching PATTERN.
applied() {
	test_begin "$1"
	if [ "$(cat "$W/status")" != 0 ]; then
		test_fail "expected exit 0, got $(cat "$W/status")" "$(cat "$W/log")"
	elif ! grep -Eq '^(applied|pending) ' "$W/log" || grep -q '^refused ' "$W/log"; then
		test_fail "expected an applied log line and no refusal" "$(cat "$W/log")"
	elif [ -n "$(of_kind reply)" ]; then
		test_fail "a reply was sent:" "$(cat $(of_kind reply))"
	elif ! grep -q -- "$3" $(of_kind "$2") /dev/null; then
		test_fail "expected a $2 announcement with: $3" "$(cat "$W/log")"
	else
		test_pass
	fi
}

# refused DESCRIPTION TEXT: the last run exited 0, left the ledger as it
# was, logged a refusal and sent its signer a transcript holding TEXT
# (a fixed string).
refused() {
	test_begin "$1"
	if [ "$(cat "$W/status")" != 0 ]; then
		test_fail "expected exit 0, got $(cat "$W/status")" "$(cat "$W/log")"
	elif [ "$(events)" != "$before" ]; then
		test_fail "expected $before events, got $(events)" "$(last_event)"
	elif ! grep -q '^refused ' "$W/log"; then
		test_fail "expected a refused log line" "$(cat "$W/log")"
	elif ! cat $(of_kind reply) /dev/null | tr -d '\r' | tr '\n' ' ' |
		tr -s ' ' | grep -qF -- "$2"; then
		test_fail "expected a transcript with: $2" \
			"$(cat $(of_kind reply) /dev/null)" "$(cat "$W/log")"
	else
		test_pass
	fi
}

# --- Item 1: a block in paragraphs ---------------------------------------

fresh
thunderbird "Alice Member <alice@example.org>" "Tenure: resign

Effective: $EFFECTIVE

Alice" >"$W/m/tb-resign.part"
send "$ALICE" alice@example.org tb-resign "$W/m/tb-resign.part" "$TB_AGENT"
run_once
test_begin "Thunderbird: a resignation in paragraphs is recorded with its Effective date"
if last_event | grep -q '^Event: resign' && last_event | grep -q "^Date: $EFFECTIVE" &&
	last_event | grep -q '^Member: Alice Member' && [ "$(events)" = $((before + 1)) ]; then
	test_pass
else
	test_fail "expected Alice's resignation dated $EFFECTIVE" "$(last_event)" "$(cat "$W/log")"
fi
applied "Thunderbird: the list hears the resignation's own date" announce-resign \
	"last day $EFFECTIVE"

fresh
thunderbird "Carol Chair <carol@example.org>" "Tenure: recommend

Member: Nina Newcomer <nina@example.org>

Fingerprint: $NINA

Project-Joined: 2010-05-01

Carol" >"$W/m/tb-recommend.part"
send "$CAROL" carol@example.org tb-recommend "$W/m/tb-recommend.part" "$TB_AGENT"
run_once
applied "Thunderbird: a recommendation in paragraphs is one command" \
	announce-recommend "Nina Newcomer recommended to the leader"

fresh
thunderbird "Alice Member <alice@example.org>" "Tenure: resign

I leave with thanks to all of you.

Effective: $EFFECTIVE" >"$W/m/tb-prose.part"
send "$ALICE" alice@example.org tb-prose "$W/m/tb-prose.part" "$TB_AGENT"
run_once
refused "Thunderbird: a field below prose is refused with a transcript, never dropped" \
	"Refused: line 5: Effective: comes after the end of the command"

# --- Item 3: spaces are spaces --------------------------------------------

# recommend_pasted ID MIDDLE: Carol recommends Nina in Thunderbird, the
# fingerprint as "gpg --fingerprint" prints it (groups of four, two
# spaces between the halves), the first of those two spaces being
# MIDDLE: Thunderbird's HTML editor writes a no-break space there.
grouped=$(printf '%s' "$NINA" | sed 's/..../& /g; s/ $//')
recommend_pasted() {
	fresh
	thunderbird "Carol Chair <carol@example.org>" "Tenure: recommend
Member: Nina Newcomer <nina@example.org>
Fingerprint: $(printf '%s' "$grouped" | cut -c1-24)$2 $(printf '%s' "$grouped" | cut -c26-)
Project-Joined: 2010-05-01" >"$W/m/$1.part"
	send "$CAROL" carol@example.org "$1" "$W/m/$1.part" "$TB_AGENT"
	run_once
}

recommend_pasted tb-nbsp "$(printf '\302\240')"
applied "Thunderbird: a fingerprint with a no-break space between its halves is read" \
	announce-recommend "Nina Newcomer recommended to the leader"

recommend_pasted tb-zwsp "$(printf '\342\200\213')"
refused "a zero-width space in a fingerprint is refused, and the transcript shows it" \
	"$(printf '%s' "$grouped" | cut -c1-24)<U+200B> $(printf '%s' "$grouped" | cut -c26-)\" is not a 40-digit OpenPGP fingerprint"

# An HTML composer's line may start with a no-break space, and its empty
# paragraph be one: the command is still found, and read whole.
fresh
nbsp=$(printf '\302\240')
thunderbird "Alice Member <alice@example.org>" "${nbsp}Tenure: resign
$nbsp
${nbsp}Effective: $EFFECTIVE" >"$W/m/tb-nbsp-lines.part"
send "$ALICE" alice@example.org tb-nbsp-lines "$W/m/tb-nbsp-lines.part" "$TB_AGENT"
run_once
applied "Thunderbird: a command whose lines start with a no-break space is applied, its date kept" \
	announce-resign "last day $EFFECTIVE"

# --- Item 5: each client's attribution above the quote --------------------

QUOTE='> Should the chair stay on for another term?
> I would rather see a rotation.'

fresh
thunderbird "Bob Member <bob@example.org>" "On 12/5/26 10:00, Alice Example wrote:
$QUOTE

Tenure: resign" >"$W/m/tb-reply.part"
send "$BOB" bob@example.org tb-reply "$W/m/tb-reply.part" "$TB_AGENT" \
	"In-Reply-To: <q@example.org>"
run_once
applied "Thunderbird: a reply below \"On 12/5/26 10:00, ... wrote:\" is applied" \
	announce-resign "Bob Member"

fresh
{
	printf 'Content-Type: multipart/alternative; boundary="=-evo1"\n\n--=-evo1\n'
	printf 'Content-Type: text/plain; charset="UTF-8"\nContent-Transfer-Encoding: 7bit\n\n'
	printf 'On Sat, 2026-12-05 at 10:00 +0000, Alice Example wrote:\n%s\n\nTenure: resign\n\n' "$QUOTE"
	printf -- '--=-evo1\nContent-Type: text/html; charset="utf-8"\n'
	printf 'Content-Transfer-Encoding: 7bit\n\n<html><body><div>On Sat, 2026-12-05 at 10:00 +0000,'
	printf ' Alice Example wrote:</div><blockquote>Should the chair stay on?</blockquote>'
	printf '<div>Tenure: resign</div></body></html>\n--=-evo1--\n'
} >"$W/m/evo-reply.part"
send "$DAVE" dave@example.org evo-reply "$W/m/evo-reply.part" \
	"X-Mailer: Evolution 3.46.4-2" "In-Reply-To: <q@example.org>"
run_once
applied "Evolution: a reply below \"On Sat, 2026-12-05 at 10:00 +0000, ... wrote:\" is applied" \
	announce-resign "Dave Member"

claws() {
	printf 'Content-Type: text/plain; charset=US-ASCII\nContent-Transfer-Encoding: 7bit\n\n'
	printf '%s\n' "$1"
}
fresh
claws "On Sat, 05 Dec 2026 10:00:00 +0000
Alice Example <alice@example.org> wrote:

$QUOTE

Tenure: resign

-- 
Bob" >"$W/m/claws-reply.part"
send "$BOB" bob@example.org claws-reply "$W/m/claws-reply.part" \
	"X-Mailer: Claws Mail 4.1.1 (GTK 3.24.38; x86_64-pc-linux-gnu)" \
	"In-Reply-To: <q@example.org>"
run_once
applied "Claws Mail: a reply below the two-line attribution is applied" \
	announce-resign "Bob Member"

# The security rule stands: text above the attribution is text, and a
# command below it is not at the top.
fresh
claws "Dear all, my answer is below.
On Sat, 05 Dec 2026 10:00:00 +0000
Alice Example <alice@example.org> wrote:
$QUOTE

Tenure: resign" >"$W/m/claws-prose.part"
send "$BOB" bob@example.org claws-prose "$W/m/claws-prose.part"
run_once
refused "prose above a two-line attribution: the command is still not at the top" \
	"no command at the top of the signed text"

test_done
