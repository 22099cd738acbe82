#!/bin/sh
# t-mlmmj.sh: commands through real list software (issue 19).  mlmmj,
# run once per mail as an MTA's pipe runs it, distributes each post
# through the test's own SMTP server (tests/lib/smtpd.py), whose Maildir then
# holds the list's copy as a subscriber receives it (CRLF, mlmmj's
# headers and footer); tenure imports that copy.  mlmmj appends its
# footer as raw text at the end of the mail: after a clearsigned block,
# or after the last boundary of PGP/MIME.  (Mailman 3, which puts its
# footer inside the text part and re-encodes it as base64, is not
# installed here: tests/t-clients.sh builds its shape by hand.)
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/smtp.sh"
. "$top_srcdir/tests/lib/mlmmj.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
[ -x /usr/bin/python3 ] || test_skip_all "python3 is not installed"

committee_init
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org carol@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB" "Carol Chair <carol@example.org> $CAROL"
committee_conf roles.chair="$CAROL" committee.public-record=list-id

smtp_start plain || test_skip_all "the test SMTP server did not start"

mlmmj_setup

# listed DESCRIPTION FILE FROM NAME: FILE through the list, imported:
# one check that NAME's resignation was applied, and the copy was the
# list's (its footer at the end when there is one, CRLF line ends).
listed() {
	local copy
	copy=$(through_list "$2" "$3")
	test_begin "$1"
	if [ -z "$copy" ]; then
		test_fail "mlmmj delivered nothing" "$(cat "$W/mlmmj.log")"
		return
	fi
	import_mail "$copy"
	if [ -f "$LIST/control/footer" ] && ! tail -n 3 "$copy" | grep -q 'UNSUBSCRIBE'; then
		test_fail "expected the list's footer at the end of its copy" "$(tail -n 5 "$copy")"
	elif ! grep -q "$(printf '\r$')" "$copy"; then
		test_fail "expected the list's copy with CRLF line ends"
	elif [ "$(events)" != "$((before + 1))" ] || ! last_event | grep -q "^Member: $4 "; then
		test_fail "expected $4's resignation" "$(cat "$W/log")" "$(last_event)"
	elif ! grep -q '^applied ' "$W/log" || grep -q '^refused ' "$W/log"; then
		test_fail "expected an applied log line and no refusal" "$(cat "$W/log")"
	else
		test_pass
	fi
}

ATTRIBUTION="On Thu, Dec 03, 2026 at 09:12:40AM +0100, Helmut Grohne wrote:"

# An inline-signed reply, bottom-posted, the footer after the block.
footer on
before=$(events)
signed_mail --clearsign "$ALICE" alice@example.org inline "$ATTRIBUTION
> Should the chair stay on for another term?

Tenure: resign" >/dev/null
listed "mlmmj with a footer: an inline-signed command is read from its block alone" \
	"$W/m/inline.eml" alice@example.org "Alice Member"

# A clearsigned command whose footer says "Tenure:" itself: the block is
# still all that is read.
before=$(events)
printf -- '-- \nTenure: remove\nMember: Carol Chair <carol@example.org>\n' >"$LIST/control/footer"
signed_mail --clearsign "$CAROL" carol@example.org inline-tenure-footer "$ATTRIBUTION
> Who chairs next year?

Tenure: resign" >/dev/null
copy=$(through_list "$W/m/inline-tenure-footer.eml" carol@example.org)
import_mail "$copy"
expect_event --applied "mlmmj: a footer holding command lines is never read" \
	"^Event: resign
^Member: Carol Chair "

# PGP/MIME, bottom-posted: mlmmj's footer lands after the last boundary.
footer on
before=$(events)
{
	printf 'Content-Type: text/plain; charset=us-ascii\nContent-Disposition: inline\n\n'
	printf '%s\n> Should the chair stay on for another term?\n\nTenure: resign\n' "$ATTRIBUTION"
} >"$W/m/pgpmime.part"
signed_mail --part "$W/m/pgpmime.part" "$BOB" bob@example.org pgpmime >/dev/null
listed "mlmmj with a footer: a PGP/MIME reply below the quote is applied" \
	"$W/m/pgpmime.eml" bob@example.org "Bob Member"

test_done
