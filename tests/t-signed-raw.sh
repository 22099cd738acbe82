#!/bin/sh
# t-signed-raw.sh: gpg is given the bytes that were signed, as they
# arrived (issue 40, item 1).  RFC 3156: the signed part of a
# multipart/signed is verified as transmitted, its line ends made CRLF
# and nothing else changed.  Each mail here is built byte for byte in a
# shape where a parser's rewriting of the part differs from what was
# sent: KMail's multipart/mixed with its preamble line and a blank line
# (KMail signs so whenever the member attaches something), an epilogue,
# folded and oddly spaced headers, quoted-printable and base64 text,
# nested multiparts, boundary lines with trailing blanks.  The part is
# signed with gpg --detach-sign over its CRLF form, assembled into a
# multipart/signed, and delivered to a Maildir, once with LF and once
# with CRLF line ends.  Each check looks at the ledger, the log, the
# exit status and the outbox (no transcript for an applied command).
# A byte changed after signing (in the preamble, in a boundary line's
# trailing blank) is still a bad signature.
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

# signed_mail SIGNER FROM ID OUTER [OPEN_SUFFIX]: $W/m/ID.eml, a
# multipart/signed (boundary OUTER, its boundary lines followed by
# OPEN_SUFFIX) around $W/m/ID.part as it is, signed by SIGNER over the
# part's CRLF form; KMail's header layout.  LF line ends.
signed_mail() {
	local signer=$1 from=$2 id=$3 outer=$4 suffix=${5:-}
	perl -pe 's/\r?\n/\r\n/' "$W/m/$id.part" >"$W/m/$id.crlf"
	gw -u "$signer" --armor --detach-sign --digest-algo SHA256 \
		-o - "$W/m/$id.crlf" >"$W/m/$id.sig" || return 1
	{
		printf 'From: %s\nTo: debian-ctte@lists.debian.org\n' "$from"
		printf 'Subject: command\nDate: %s\n' "$(date -R)"
		printf 'Message-ID: <%s@example.org>\n' "$id"
		printf 'User-Agent: KMail/5.22.3 (Linux/6.1.0-28-amd64; KDE/5.103.0; x86_64; ; )\n'
		printf 'MIME-Version: 1.0\n'
		printf 'Content-Type: multipart/signed; boundary="%s"; micalg="pgp-sha256"; protocol="application/pgp-signature"\n\n' "$outer"
		printf -- '--%s%s\n' "$outer" "$suffix"
		cat "$W/m/$id.part"
		printf '\n--%s%s\n' "$outer" "$suffix"
		printf 'Content-Type: application/pgp-signature; name="signature.asc"\n'
		printf 'Content-Description: This is a digitally signed message part.\n'
		printf 'Content-Transfer-Encoding: 7Bit\n\n'
		cat "$W/m/$id.sig"
		printf '\n--%s--%s\n' "$outer" "$suffix"
	} >"$W/m/$id.eml"
}

crlf_copy() {
	perl -pe 's/\r?\n/\r\n/' "$1" >"$2"
}

# both SIGNER FROM ID OUTER NAME DESCRIPTION [OPEN_SUFFIX]: the mail
# built from $W/m/ID.part applies NAME's resignation, delivered with LF
# line ends and again, in a fresh ledger, with CRLF.
both() {
	signed_mail "$1" "$2" "$3" "$4" "${7:-}"
	fresh
	import_mail "$W/m/$3.eml"
	expect_resigned "$6 (LF)" "$5"
	crlf_copy "$W/m/$3.eml" "$W/m/$3-crlf.eml"
	fresh
	import_mail "$W/m/$3-crlf.eml"
	expect_resigned "$6 (CRLF)" "$5"
}

KEY_ATTACHMENT() {
	printf 'Content-Disposition: attachment; filename="0x%s.asc"\n' "$1"
	printf 'Content-Transfer-Encoding: 7Bit\n'
	printf 'Content-Type: application/pgp-keys; name="0x%s.asc"\n\n' "$1"
	gw --armor --export "$1"
}

# --- KMail: the preamble of the signed multipart/mixed ------------------

# KMail's "Attach My Public Key": the signed part is a multipart/mixed
# opening with a preamble line and a blank line.
{
	printf 'Content-Type: multipart/mixed; boundary="nextPart2226870.Uu3VjL2Npr"\n'
	printf 'Content-Transfer-Encoding: 7Bit\n\n'
	printf 'This is a multi-part message in MIME format.\n\n'
	printf -- '--nextPart2226870.Uu3VjL2Npr\n'
	printf 'Content-Transfer-Encoding: 7Bit\n'
	printf 'Content-Type: text/plain; charset="us-ascii"\n\n'
	printf 'Tenure: resign\n\nAlice\n\n'
	printf -- '--nextPart2226870.Uu3VjL2Npr\n'
	KEY_ATTACHMENT "$ALICE"
	printf '\n--nextPart2226870.Uu3VjL2Npr--\n\n'
} >"$W/m/kmail-key.part"
both "$ALICE" "Alice Member <alice@example.org>" kmail-key \
	nextPart5197283.KCfXvjhS8o "Alice Member" \
	"KMail: a signed multipart/mixed with a preamble and a key attached is applied"

# KMail's rich text: multipart/alternative with its preamble.
{
	printf 'Content-Type: multipart/alternative; boundary="nextPart3352211.vzRtLGpX4Z"\n'
	printf 'Content-Transfer-Encoding: 7Bit\n\n'
	printf 'This is a multi-part message in MIME format.\n\n'
	printf -- '--nextPart3352211.vzRtLGpX4Z\n'
	printf 'Content-Transfer-Encoding: 7Bit\n'
	printf 'Content-Type: text/plain; charset="us-ascii"\n\nTenure: resign\n\n'
	printf -- '--nextPart3352211.vzRtLGpX4Z\n'
	printf 'Content-Transfer-Encoding: 7Bit\n'
	printf 'Content-Type: text/html; charset="us-ascii"\n\n'
	printf '<html><head></head><body><p>Tenure: resign</p></body></html>\n'
	printf -- '--nextPart3352211.vzRtLGpX4Z--\n\n'
} >"$W/m/kmail-rich.part"
both "$BOB" "Bob Member <bob@example.org>" kmail-rich \
	nextPart1122334.AbCdEfGhIj "Bob Member" \
	"KMail: signed rich text (multipart/alternative with a preamble) is applied"

# --- the other places a writer may change bytes -------------------------

# An epilogue after the inner multipart's closing line, and a preamble
# of two lines with no blank line after it.
{
	printf 'Content-Type: multipart/mixed; boundary="epi"\n\n'
	printf 'preamble one\npreamble two\n'
	printf -- '--epi\nContent-Type: text/plain\n\nTenure: resign\n'
	printf -- '--epi\nContent-Type: application/octet-stream\n\nxyz\n'
	printf -- '--epi--\nAn epilogue line.\n\nAnd another.\n'
} >"$W/m/epilogue.part"
both "$ALICE" "Alice Member <alice@example.org>" epilogue outer-epi \
	"Alice Member" "an epilogue and a preamble without a blank line are signed as sent"

# Folded, oddly spaced and oddly cased headers in the signed part.
{
	printf 'content-type:   multipart/mixed;\n\tboundary="fold"  \n'
	printf 'X-Note:\n   folded\n\t value   \n\n'
	printf -- '--fold\n'
	printf 'Content-Type:text/plain;\n  charset="us-ascii";\n\tformat=fixed\n'
	printf 'Content-Description:  the command,\n  folded\n\n'
	printf 'Tenure: resign\n'
	printf -- '--fold--\n'
} >"$W/m/folded.part"
both "$BOB" "Bob Member <bob@example.org>" folded outer-fold \
	"Bob Member" "folded and oddly spaced headers are signed as sent"

# Quoted-printable text with soft breaks and encoded blanks, base64 in
# short lines, inside a nested multipart.
{
	printf 'Content-Type: multipart/mixed; boundary="enc"\n\n'
	printf -- '--enc\nContent-Type: text/plain; charset=utf-8\n'
	printf 'Content-Transfer-Encoding: quoted-printable\n\n'
	printf 'Tenure: re=\nsign=20\n\nAlice, with =C3=A9=\n\n'
	printf -- '--enc\nContent-Type: text/plain; charset=utf-8\n'
	printf 'Content-Transfer-Encoding: base64\n\n'
	printf 'SGVsbG8sIHRo\naXMgaXMgYSBu\nb3RlLgo=\n'
	printf -- '--enc--\n'
} >"$W/m/encodings.part"
both "$ALICE" "Alice Member <alice@example.org>" encodings outer-enc \
	"Alice Member" "quoted-printable and base64 text are signed as sent"

# Nested multiparts, mixed { alternative { plain, html }, attachment },
# each with its preamble.
{
	printf 'Content-Type: multipart/mixed; boundary="n1"\n\nThis is a multi-part message in MIME format.\n\n'
	printf -- '--n1\nContent-Type: multipart/alternative; boundary="n2"\n\n'
	printf 'This is a multi-part message in MIME format.\n\n'
	printf -- '--n2\nContent-Type: text/plain\n\nTenure: resign\n\n'
	printf -- '--n2\nContent-Type: text/html\n\n<p>Tenure: resign</p>\n\n'
	printf -- '--n2--\n\n'
	printf -- '--n1\n'
	KEY_ATTACHMENT "$BOB"
	printf '\n--n1--\n\n'
} >"$W/m/nested.part"
both "$BOB" "Bob Member <bob@example.org>" nested outer-nest \
	"Bob Member" "nested multiparts with preambles are signed as sent"

# Boundary lines with trailing blanks, inside the signed part and
# around it.
{
	printf 'Content-Type: multipart/mixed; boundary="ws"\n\n'
	printf -- '--ws  \t\nContent-Type: text/plain\n\nTenure: resign\n'
	printf -- '--ws \nContent-Type: text/plain\n\nAlice\n'
	printf -- '--ws--\t \n'
} >"$W/m/blanks.part"
both "$ALICE" "Alice Member <alice@example.org>" blanks outer-ws \
	"Alice Member" "boundary lines with trailing blanks are signed as sent" "  "

# --- what was not signed is still refused -------------------------------

# A byte of the preamble changed after signing.
signed_mail "$ALICE" "Alice Member <alice@example.org>" kmail-key \
	nextPart5197283.KCfXvjhS8o
sed 's/^This is a multi-part message in MIME format\.$/This is a multi-part message in MIME format!/' \
	"$W/m/kmail-key.eml" >"$W/m/kmail-changed.eml"
fresh
import_mail "$W/m/kmail-changed.eml"
expect_refused --no-reply "a preamble changed after signing is a bad signature" \
	"bad signature"

# A blank added after a boundary line inside the signed part.
signed_mail "$ALICE" "Alice Member <alice@example.org>" blanks outer-ws "  "
perl -pe 's/^--ws \n/--ws  \n/' "$W/m/blanks.eml" >"$W/m/blanks-changed.eml"
fresh
import_mail "$W/m/blanks-changed.eml"
expect_refused --no-reply "a blank added to a signed boundary line is a bad signature" \
	"bad signature"

test_done
