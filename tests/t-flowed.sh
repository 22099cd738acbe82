#!/bin/sh
# t-flowed.sh: format=flowed is undone before the command is read
# (issue 40, item 5; RFC 3676).  Thunderbird, Balsa and Alpine wrap a
# long line at a space and mark the break with a trailing space; with
# DelSp=yes that space is the writer's own and goes, so a break may
# fall inside a word; a wrapped line starting "From " is space-stuffed.
# A deferral's Reason: and Member: lines wrapped so, in a PGP/MIME mail
# (whose label and trailing spaces are signed), are read as the member
# typed them: the ledger records them whole.  A quoted line under a
# flowed one is not joined to it.  The signature covers the wrapped
# bytes: a soft break made hard after signing is a bad signature.
# Each mail is signed with a key made for the run and delivered to a
# Maildir with CRLF line ends; each check looks at the ledger, the log,
# the exit status and the outbox.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"

committee_init

# Carol chairs, Leo leads; under an 18-month rule Leo may defer the
# chair's expiry (tests/t-defer.sh).
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	leo@example.org
committee_conf roles.chair="$CAROL" roles.leader="$LEO"
later=$(date -u -d '+300 days' +%Y-%m-%d)

fresh() {
	committee_ledger "Carol Chair <carol@example.org> $CAROL" \
		"Alice Member <alice@example.org> $ALICE"
	committee_event rule "$today" "Rule: fixed-term" "Parameters: term=18m"
	rm -rf "$W/state"
	before=$(events)
	outbox_before=0
}

# flowed ID PARAMS TEXT: $W/m/ID.part, TEXT (its lines as typed in
# printf's format, soft breaks included) as text/plain; format=flowed
# with PARAMS; then Leo's mail of it, signed PGP/MIME, CRLF.
flowed() {
	{
		printf 'Content-Type: text/plain; charset=UTF-8; format=flowed%s\n' "$2"
		printf 'Content-Transfer-Encoding: 7bit\n\n'
		printf "$3"
	} >"$W/m/$1.part"
	signed_mail --part "$W/m/$1.part" "$LEO" "Leo Leader <leo@example.org>" \
		"$1" "User-Agent: Mozilla Thunderbird" >/dev/null
	perl -pi -e 's/\r?\n/\r\n/' "$W/m/$1.eml"
}

# deferred DESCRIPTION COMMENT: the last run applied Leo's deferral of
# Carol's expiry to $later, its Comment exactly COMMENT, exit 0, no
# refusal queued.
deferred() {
	test_begin "$1"
	if [ "$(cat "$W/status")" != 0 ]; then
		test_fail "expected exit 0, got $(cat "$W/status")" "$(cat "$W/log")"
	elif [ "$(events)" != "$((before + 1))" ]; then
		test_fail "expected $((before + 1)) events, got $(events)" "$(cat "$W/log")"
	elif ! last_event | grep -q '^Event: defer$' ||
		! last_event | grep -qx 'Member: Carol Chair <carol@example.org>' ||
		! last_event | grep -qx "Until: $later" ||
		! last_event | grep -qx "Signed-By: $LEO"; then
		test_fail "expected Leo's deferral of Carol's expiry to $later, got:" \
			"$(last_event)" "$(cat "$W/log")"
	elif ! last_event | grep -qxF "Comment: $2"; then
		test_fail "expected the Comment \"$2\", got:" "$(last_event)"
	elif ! grep -q '^applied ' "$W/log" || grep -q '^refused ' "$W/log"; then
		test_fail "expected an applied log line and no refusal" "$(cat "$W/log")"
	elif [ "$(outbox_count)" != 0 ] && [ -n "$(refusal_transcript .)" ]; then
		test_fail "a refusal was queued:" "$(cat "$(refusal_transcript .)")"
	else
		test_pass
	fi
}

REASON="the committee is voting on its own size, and the chair should sit until the vote ends"

# Wrapped at a space, the space kept (no DelSp); the Member: line too.
fresh
flowed wrapped "" "Tenure: defer\nMember: Carol Chair \n<carol@example.org>\nUntil: $later\nReason: the committee is voting on its own size, and the chair \nshould sit until the vote \nends\n\nLeo\n-- \nLeo Leader\n"
import_mail "$W/m/wrapped.eml"
deferred "a flowed Reason: and Member:, wrapped at spaces, are read whole" "$REASON"

# DelSp=yes: the writer's space before the break goes; a break inside
# a word (a long address) joins it again.
fresh
flowed delsp "; delsp=yes" "Tenure: defer\nMember: Carol Chair <carol@exam \nple.org>\nUntil: $later\nReason: the committee is voting on its own size, and the chair  \nshould sit until the vote ends\n"
import_mail "$W/m/delsp.eml"
deferred "DelSp=yes: the soft break's space is dropped, a word broken by it joined" "$REASON"

# A continuation starting "From " is space-stuffed.
fresh
flowed stuffed "" "Tenure: defer\nMember: Carol Chair <carol@example.org>\nUntil: $later\nReason: as the minutes say \n From the first of December the committee votes on its size\n"
import_mail "$W/m/stuffed.eml"
deferred "a space-stuffed continuation line is unstuffed and joined" \
	"as the minutes say From the first of December the committee votes on its size"

# A quoted line under a flowed Reason: is not part of it, nor of the
# command.
fresh
flowed quoted "" "Tenure: defer\nMember: Carol Chair <carol@example.org>\nUntil: $later\nReason: a vote is running \n> Tenure: resign \n> Until: 2099-01-01\n"
import_mail "$W/m/quoted.eml"
deferred "a quoted line under a flowed Reason: is not joined to it" "a vote is running"

# The signature covers the wrapped bytes: a soft break made hard (its
# trailing space dropped) after signing is a bad signature.
fresh
perl -pe 's/the chair \r\n/the chair\r\n/' "$W/m/wrapped.eml" >"$W/m/hardened.eml"
test_begin "the test's change of a soft break took"
if cmp -s "$W/m/wrapped.eml" "$W/m/hardened.eml"; then
	test_fail "no soft break changed"
else
	test_pass
fi
import_mail "$W/m/hardened.eml"
expect_refused --no-reply "a soft break made hard after signing is a bad signature" \
	"bad signature"

# Without format=flowed the trailing spaces are the text's own: the
# Reason: ends at its line.
fresh
{
	printf 'Content-Type: text/plain; charset=UTF-8\n'
	printf 'Content-Transfer-Encoding: 7bit\n\n'
	printf "Tenure: defer\nMember: Carol Chair <carol@example.org>\nUntil: $later\nReason: a vote is running \n\nand more text\n"
} >"$W/m/fixed.part"
signed_mail --part "$W/m/fixed.part" "$LEO" "Leo Leader <leo@example.org>" fixed >/dev/null
import_mail "$W/m/fixed.eml"
deferred "without format=flowed a line with a trailing space is not joined" "a vote is running"

test_done
