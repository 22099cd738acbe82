#!/bin/sh
# t-thunderbird-mime.sh: the MIME shapes of the GUI mail programs (issue
# 31, items 2 and 4).  Thunderbird wraps every signed body in a
# header-protection wrapper, multipart/mixed; protected-headers="v1"
# with copies of From/To/Subject as its headers; with an attachment (a
# PDF, or its "Attach My Public Key") the text and the attachment are a
# multipart/mixed inside that wrapper, and the text is base64 CRLF,
# format=flowed.  The command is read from the first text part through
# that nesting, past a legacy display part (Enigmail,
# draft-ietf-lamps-header-protection).  A command sent as HTML only (one
# <p> a line, as Thunderbird's composer writes it) is never read, and
# never silent: it is refused with a transcript saying to send plain
# text.  Each mail is built here as the client builds it, signed with a
# key made for the run, delivered as a CRLF Maildir file; each check
# looks at the ledger, the transcript in the outbox, the log and the
# exit status.  Other clients: tests/t-clients.sh.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"

committee_init

ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org
committee_conf roles.chair="$CAROL" reminders.replies-per-day=100

fresh() {
	committee_ledger "Alice Member <alice@example.org> $ALICE" \
		"Bob Member <bob@example.org> $BOB" \
		"Carol Chair <carol@example.org> $CAROL"
	rm -rf "$W/state"
	before=$(events)
	outbox_before=0
}

crlf() {
	perl -pe 's/\r?\n/\r\n/' "$1" >"$1.crlf" && mv "$1.crlf" "$1"
}

TB_AGENT="User-Agent: Mozilla Thunderbird"

# message FROM ID ENTITY_FILE [HEADER...]: $W/m/ID.eml, CRLF.
message() {
	local from=$1 id=$2 entity=$3
	shift 3
	mail_message "$from" "$id@example.org" "$entity" "$TB_AGENT" "$@" >"$W/m/$id.eml"
	crlf "$W/m/$id.eml"
	echo "$W/m/$id.eml"
}

# send SIGNER ADDRESS ID: $W/m/ID.part signed PGP/MIME by SIGNER, sent
# from ADDRESS and imported.
send() {
	pgpmime_entity "$1" "$W/m/$3.part" >"$W/m/$3.entity"
	import_mail "$(message "$2" "$3" "$W/m/$3.entity")"
}

# wrapper NAME ADDRESS BOUNDARY: the header of Thunderbird's
# header-protection wrapper, with the protected headers.
wrapper() {
	printf 'Content-Type: multipart/mixed; boundary="%s";\n protected-headers="v1"\n' "$3"
	printf 'From: %s <%s>\nTo: debian-ctte@lists.debian.org\n' "$1" "$2"
	printf 'Message-ID: <tb-%s@example.org>\nSubject: command\n\n' "$3"
	printf 'This is a multi-part message in MIME format.\n'
}

# flowed_text TEXT: Thunderbird's text part, format=flowed, base64 of
# CRLF lines.
flowed_text() {
	printf 'Content-Type: text/plain; charset=UTF-8; format=flowed\n'
	printf 'Content-Transfer-Encoding: base64\n\n'
	printf '%s\n' "$1" | perl -pe 's/\r?\n/\r\n/' | base64
}

# pdf BOUNDARY: a PDF attachment as Thunderbird attaches it, then the
# end of multipart BOUNDARY.
pdf() {
	printf -- '--%s\nContent-Type: application/pdf; name="minutes.pdf"\n' "$1"
	printf 'Content-Disposition: attachment; filename="minutes.pdf"\n'
	printf 'Content-Transfer-Encoding: base64\n\nJVBERi0xLjQKJcfsj6IK\n\n--%s--\n' "$1"
}

COMMAND='Tenure: resign

Alice

-- 
Alice Member'

# --- item 2: the protected-headers wrapper is transparent --------------

# Without an attachment the wrapper holds the text alone: applied today
# already, and must stay so.
fresh
{
	wrapper "Alice Member" alice@example.org tb-plain
	printf -- '--tb-plain\n'
	flowed_text "$COMMAND"
	printf -- '\n--tb-plain--\n'
} >"$W/m/tb-plain.part"
send "$ALICE" alice@example.org tb-plain
expect_resigned "Thunderbird: the wrapper around the text alone is read" "Alice Member"

# With a PDF: wrapper { multipart/mixed { text/plain, application/pdf } }.
fresh
{
	wrapper "Alice Member" alice@example.org tb-wrap
	printf -- '--tb-wrap\nContent-Type: multipart/mixed; boundary="tb-inner"\n\n'
	printf -- '--tb-inner\n'
	flowed_text "$COMMAND"
	pdf tb-inner
	printf -- '\n--tb-wrap--\n'
} >"$W/m/tb-pdf.part"
send "$ALICE" alice@example.org tb-pdf
expect_resigned "Thunderbird: the text beside a PDF, inside the wrapper, is read" "Alice Member"

# "Attach My Public Key": application/pgp-keys beside the text.
fresh
gw --armor --export "$BOB" >"$W/m/bob.asc"
{
	wrapper "Bob Member" bob@example.org tb-kwrap
	printf -- '--tb-kwrap\nContent-Type: multipart/mixed; boundary="tb-kinner"\n\n'
	printf -- '--tb-kinner\n'
	flowed_text "Tenure: resign"
	printf -- '--tb-kinner\nContent-Type: application/pgp-keys; name="OpenPGP_0x%s.asc"\n' \
		"$(printf '%s' "$BOB" | cut -c25-40)"
	printf 'Content-Disposition: attachment; filename="OpenPGP_0x%s.asc"\n' \
		"$(printf '%s' "$BOB" | cut -c25-40)"
	printf 'Content-Description: OpenPGP public key\n'
	printf 'Content-Transfer-Encoding: quoted-printable\n\n'
	cat "$W/m/bob.asc"
	printf -- '\n--tb-kinner--\n\n--tb-kwrap--\n'
} >"$W/m/tb-key.part"
send "$BOB" bob@example.org tb-key
expect_resigned "Thunderbird: the text beside \"Attach My Public Key\" is read" "Bob Member"

# A legacy display part first in the wrapper (Enigmail, the draft):
# the protected headers shown as text, skipped.
fresh
{
	wrapper "Alice Member" alice@example.org tb-legacy
	printf -- '--tb-legacy\nContent-Type: text/rfc822-headers; protected-headers="v1"\n'
	printf 'Content-Disposition: inline\n\nSubject: command\nFrom: Alice Member <alice@example.org>\n\n'
	printf -- '--tb-legacy\nContent-Type: multipart/mixed; boundary="tb-linner"\n\n'
	printf -- '--tb-linner\n'
	flowed_text "$COMMAND"
	pdf tb-linner
	printf -- '\n--tb-legacy--\n'
} >"$W/m/tb-legacy.part"
send "$ALICE" alice@example.org tb-legacy
expect_resigned "a wrapper's legacy display part is skipped" "Alice Member"

# Text and HTML (Thunderbird's "both", Evolution) inside the wrapper,
# with an attachment: the text/plain alternative is read.
fresh
{
	wrapper "Bob Member" bob@example.org tb-awrap
	printf -- '--tb-awrap\nContent-Type: multipart/mixed; boundary="tb-ainner"\n\n'
	printf -- '--tb-ainner\nContent-Type: multipart/alternative; boundary="tb-alt"\n\n'
	printf -- '--tb-alt\n'
	flowed_text "Tenure: resign"
	printf -- '--tb-alt\nContent-Type: text/html; charset=UTF-8\n'
	printf 'Content-Transfer-Encoding: 7bit\n\n'
	printf '<html><body><p>Tenure: resign</p></body></html>\n'
	printf -- '--tb-alt--\n\n'
	pdf tb-ainner
	printf -- '\n--tb-awrap--\n'
} >"$W/m/tb-alt.part"
send "$BOB" bob@example.org tb-alt
expect_resigned "text+HTML inside the wrapper, beside an attachment: the text/plain is read" "Bob Member"

# The first text part stays the first: a command in a later text part
# of the inner multipart/mixed is still refused, with a transcript.
fresh
{
	wrapper "Alice Member" alice@example.org tb-later
	printf -- '--tb-later\nContent-Type: multipart/mixed; boundary="tb-lainner"\n\n'
	printf -- '--tb-lainner\n'
	flowed_text "See the note attached."
	printf -- '--tb-lainner\nContent-Type: text/plain; charset=UTF-8\n\nTenure: resign\n\n'
	printf -- '--tb-lainner--\n\n--tb-later--\n'
} >"$W/m/tb-later.part"
send "$ALICE" alice@example.org tb-later
expect_refused --reply "a command in a later text part inside the wrapper is still refused" \
	"not in the first text part"

# --- item 4: a command in HTML only gets a transcript ------------------

# html_mail SIGNER NAME ADDRESS ID HTML_BODY: Thunderbird's HTML-only
# signed mail (text/html in the wrapper).
html_mail() {
	{
		wrapper "$2" "$3" "$4"
		printf -- '--%s\nContent-Type: text/html; charset=UTF-8\n' "$4"
		printf 'Content-Transfer-Encoding: 7bit\n\n'
		printf '<!DOCTYPE html>\n<html>\n  <head>\n'
		printf '    <meta http-equiv="content-type" content="text/html; charset=UTF-8">\n'
		printf '  </head>\n  <body>\n%s\n  </body>\n</html>\n' "$5"
		printf -- '\n--%s--\n' "$4"
	} >"$W/m/$4.part"
	pgpmime_entity "$1" "$W/m/$4.part" >"$W/m/$4.entity"
	message "$3" "$4" "$W/m/$4.entity"
}

HTML_REFUSAL="the command is in HTML.*send plain text"

fresh
import_mail "$(html_mail "$ALICE" "Alice Member" alice@example.org tb-html \
	'    <p>Tenure: resign</p>
    <p>Effective: 2027-02-01<br>
    </p>')"
expect_refused --reply "Thunderbird HTML only (<p> a line): refused with a transcript" \
	"$HTML_REFUSAL"

# <div>/<br> lines, &nbsp; and nested <span>s on one line.
fresh
import_mail "$(html_mail "$BOB" "Bob Member" bob@example.org tb-html-span \
	'    <div>Hello,<br><span style="font-family:monospace"><span>Tenure</span>:&nbsp;resign</span><br></div>')"
expect_refused --reply "HTML with <br>, nested <span> and &nbsp;: refused with a transcript" \
	"$HTML_REFUSAL"

# A signed HTML reply that only quotes a command (blockquote) is list
# traffic: nothing logged, no reply.
fresh
import_mail "$(html_mail "$ALICE" "Alice Member" alice@example.org tb-html-quote \
	'    <div class="moz-cite-prefix">On 03/12/2026 09:12, Bob Member wrote:<br></div>
    <blockquote type="cite"><p>Tenure: resign</p></blockquote>
    <p>Sad to see you go.</p>')"
test_begin "a signed HTML reply quoting a command stays silent"
if [ "$(events)" = "$before" ] && [ "$(outbox_count)" = 0 ] && [ ! -s "$W/log" ] &&
	[ "$(cat "$W/status")" = 0 ]; then
	test_pass
else
	test_fail "expected no event, no mail and no log line" "$(cat "$W/log")"
fi

# multipart/alternative holding only HTML.
fresh
{
	printf 'Content-Type: multipart/alternative; boundary="alt-only"\n\n--alt-only\n'
	printf 'Content-Type: text/html; charset=UTF-8\n\n<p>Tenure: resign</p>\n--alt-only--\n'
} >"$W/m/alt-only.part"
send "$BOB" bob@example.org alt-only
expect_refused --reply "multipart/alternative with HTML alone: refused with a transcript" \
	"$HTML_REFUSAL"

# text/html first, text/plain after it: the first text part is HTML.
fresh
{
	printf 'Content-Type: multipart/mixed; boundary="html-first"\n\n--html-first\n'
	printf 'Content-Type: text/html; charset=UTF-8\n\n<p>Tenure: resign</p>\n'
	printf -- '--html-first\nContent-Type: text/plain; charset=UTF-8\n\nTenure: resign\n'
	printf -- '--html-first--\n'
} >"$W/m/html-first.part"
send "$ALICE" alice@example.org html-first
expect_refused --reply "text/html first, text/plain later: refused with a transcript" \
	"$HTML_REFUSAL"

# The same mail unsigned: logged, never answered.
fresh
printf 'Content-Type: text/html; charset=UTF-8\n\n<p><b>Tenure</b>: resign</p>\n' \
	>"$W/m/tb-html-u.entity"
import_mail "$(message alice@example.org tb-html-u "$W/m/tb-html-u.entity")"
expect_refused --no-reply "an unsigned HTML command is logged and never answered" \
	"unsigned command"

test_done
