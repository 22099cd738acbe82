#!/bin/sh
# t-real-clients.sh: mail written and signed by the GUI mail programs
# themselves (issue 31: "keep the real-client mails you make in
# tests/data with how they were made").  Claws Mail, Thunderbird and
# Evolution, each driven under a virtual X display, composed and sent a
# signed resignation to the list; the bytes each one handed to an SMTP
# sink are kept as they came in tests/data/clients/, beside the signer's
# public key (tests/data/clients/README says how each was made).  The
# other tests build these shapes by shell (t-thunderbird-mime.sh,
# t-gui-commands.sh, t-clients.sh); here no mail is built, nor any
# client needed: each stored mail is delivered into a fresh Maildir as
# it arrived, and imported by a tenure whose clock (--now) is a few
# minutes after the mail was sent, to a ledger in which its signer,
# Alice Member, has served since 2025-12-01 (KMail's mails: issue 40).  Checked: the ledger (her
# resignation, effective 2027-02-01 as typed, signed by her key), the
# log, the exit status and the outbox (no transcript refusing anything);
# the HTML-only mail is refused with a transcript saying to send plain
# text.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

DATA=$top_srcdir/tests/data/clients
ALICE=73CF1A92860C6631AF0216393FFB76D68B247EA1

committee_init
# The ledger's dates are the mails' time, not this run's: the rule from
# 2024-12-01, Alice and Bob appointed on 2025-12-01.
two_years_ago=2024-12-01
gw --import "$DATA/alice.asc" 2>/dev/null
gpg_export_keyring "$W/keyring.gpg" alice@example.org
committee_conf

test_begin "the stored mails are the bytes the clients sent (SHA256SUMS)"
if (cd "$DATA" && sha256sum -c --quiet SHA256SUMS) >"$W/sums" 2>&1; then
	test_pass
else
	test_fail "$(cat "$W/sums")"
fi

test_begin "the stored key is Alice's, $ALICE"
if [ "$(gpg_fpr alice@example.org)" = "$ALICE" ]; then
	test_pass
else
	test_fail "got: $(gpg_fpr alice@example.org)"
fi

# deliver_stored NAME ARRIVAL: the stored mail NAME.eml, delivered into
# a fresh Maildir at ARRIVAL (when the SMTP sink took it, ISO 8601) and
# imported by a tenure whose clock stands five minutes later.
deliver_stored() {
	committee_ledger --date 2025-12-01 \
		"Alice Member <alice@example.org> $ALICE" \
		"Bob Member <bob@example.org>"
	rm -rf "$W/state" "$W/box"
	before=$(events)
	outbox_before=0
	deliver "$W/box" "$DATA/$1.eml" "$(date -u -d "$2" +%s)"
	"$TENURE" --config "$CONF" --now "$(date -u -d "$2 5 minutes" +%Y-%m-%dT%H:%M:%SZ)" \
		import "maildir:$W/box" >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}

# resigned_as_typed DESCRIPTION: the last import exited 0, recorded
# Alice's resignation effective 2027-02-01 signed by her key, logged it
# applied, and queued no transcript refusing anything.
resigned_as_typed() {
	test_begin "$1"
	if [ "$(cat "$W/status")" != 0 ]; then
		test_fail "expected exit 0, got $(cat "$W/status")" "$(cat "$W/log")"
	elif [ "$(events)" != "$((before + 1))" ]; then
		test_fail "expected $((before + 1)) events, got $(events)" "$(cat "$W/log")"
	elif ! last_event | grep -q '^Event: resign$' ||
		! last_event | grep -q '^Date: 2027-02-01$' ||
		! last_event | grep -q '^Member: Alice Member <alice@example.org>$' ||
		! last_event | grep -q "^Signed-By: $ALICE\$"; then
		test_fail "expected Alice's resignation effective 2027-02-01, got:" \
			"$(last_event)" "$(cat "$W/log")"
	elif ! grep -q '^applied ' "$W/log" || grep -q '^refused ' "$W/log"; then
		test_fail "expected an applied log line and no refusal" "$(cat "$W/log")"
	elif [ -n "$(refusal_transcript .)" ]; then
		test_fail "a refusal was queued:" "$(cat "$(refusal_transcript .)")"
	else
		test_pass
	fi
}

# --- Claws Mail 4.1.1 (GnuPG through its PGP/MIME and PGP/Inline plugins)

# text/plain, quoted-printable, the lines as typed: the blank
# line typed between the two lines is kept.
deliver_stored claws-paragraphs 2026-12-05T19:38:18Z
resigned_as_typed "Claws Mail, PGP/MIME: Tenure: resign, a blank line, Effective: read as one command"

deliver_stored claws-plain 2026-12-05T19:38:39Z
resigned_as_typed "Claws Mail, PGP/MIME: the two lines in one paragraph"

# Reply to all (To: the chair, Cc: the list) below Claws' default
# two-line attribution ("On <date>" / "<name> <address> wrote:").
deliver_stored claws-reply 2026-12-05T19:39:17Z
resigned_as_typed "Claws Mail, PGP/MIME: a reply below the two-line attribution and the quote"

# PGP/Inline: a clearsigned block, sent as a base64 text/plain whose
# lines end in CRLF inside the encoding.
deliver_stored claws-inline 2026-12-05T19:39:42Z
resigned_as_typed "Claws Mail, PGP/Inline: the base64 clearsigned block is read"

# --- Thunderbird 153.8.0esr (built-in OpenPGP, RNP) ----------------------
# Each signed body is in the header-protection wrapper (multipart/mixed;
# protected-headers="v1"; hp="clear"), the text format=flowed, base64 of
# CRLF lines; Enter in the default HTML composer starts a paragraph.

deliver_stored thunderbird-paragraphs 2026-12-05T19:43:07Z
resigned_as_typed "Thunderbird: two paragraphs (Enter in the HTML composer) inside the wrapper"

# Shift+Enter: a line break, one paragraph.
deliver_stored thunderbird-plain 2026-12-05T19:43:33Z
resigned_as_typed "Thunderbird: two lines of one paragraph (Shift+Enter) inside the wrapper"

# "Attach My Public Key": wrapper { multipart/mixed { text/plain,
# application/pgp-keys } }.
deliver_stored thunderbird-key-attached 2026-12-05T19:44:15Z
resigned_as_typed "Thunderbird: the text beside \"My OpenPGP Public Key\" inside the wrapper"

# Two spaces typed after each colon: the composer sends a no-break space
# and a space.
deliver_stored thunderbird-nbsp 2026-12-05T19:45:07Z
resigned_as_typed "Thunderbird: two spaces typed after the colons (no-break space, space)"

# Reply All below Thunderbird's one-line attribution and the quote, the
# command in two paragraphs.
deliver_stored thunderbird-reply 2026-12-05T19:46:11Z
resigned_as_typed "Thunderbird: a reply below the attribution and the quote, in paragraphs"

# Options > Sending Format > Only HTML: the wrapper holds text/html
# alone, one <p> a line.
deliver_stored thunderbird-html-only 2026-12-05T19:44:46Z
expect_refused --reply "Thunderbird, Only HTML: refused with a transcript saying to send plain text" \
	"the command is in HTML.*send plain text"

# --- Evolution 3.46.4 (GnuPG) ---------------------------------------------

deliver_stored evolution-paragraphs 2026-12-05T19:48:37Z
resigned_as_typed "Evolution, plain text composer: Tenure: resign, a blank line, Effective:"

deliver_stored evolution-plain 2026-12-05T19:49:02Z
resigned_as_typed "Evolution, plain text composer: the two lines in one paragraph"

# The HTML composer: multipart/alternative { text/plain, text/html }.
deliver_stored evolution-html 2026-12-05T19:49:27Z
resigned_as_typed "Evolution, HTML composer: the text/plain alternative is read"

# Group Reply (To: the chair and the list) below Evolution's attribution
# and the quote.
deliver_stored evolution-reply 2026-12-05T19:50:19Z
resigned_as_typed "Evolution: a reply below the attribution and the quote"

# --- KMail 5.22.3 (22.12.3; GnuPG) -----------------------------------------
# Signed by another key of Alice's, made for these mails (kmail-alice.asc):
# the ledger records that one for her here.  KMail signs the whole body:
# with an attachment, or rich text, it is a multipart opening with the
# line "This is a multi-part message in MIME format." and a blank line,
# which GMime writes again with that line's end bare (issue 40, item 1).
ALICE=EE7EE463417689307F38BED403391A08178D34F6
gw --import "$DATA/kmail-alice.asc" 2>/dev/null
gw --export "$ALICE" >"$W/keyring.gpg"

test_begin "the stored KMail key is Alice's, $ALICE"
if gw --with-colons --fingerprint alice@example.org | grep -q "^fpr:*$ALICE:"; then
	test_pass
else
	test_fail "got: $(gw --with-colons --fingerprint alice@example.org | grep '^fpr')"
fi

# A PDF attached: multipart/mixed (protected-headers="v1", with the
# preamble) { text/plain, application/pdf }.
deliver_stored kmail-pdf 2026-12-07T03:26:10Z
resigned_as_typed "KMail: the text beside an attached PDF, after KMail's preamble"

# No attachment, no formatting: one text/plain, protected-headers="v1".
deliver_stored kmail-plain 2026-12-07T03:26:48Z
resigned_as_typed "KMail: plain text alone"

# Attach > Attach Public Key...: multipart/mixed with the preamble
# { text/plain, application/pgp-keys }.
deliver_stored kmail-key-attached 2026-12-07T03:27:34Z
resigned_as_typed "KMail: the text beside its attached public key, after the preamble"

# Rich text with a word in bold: multipart/alternative with the
# preamble { text/plain, text/html }.
deliver_stored kmail-rich 2026-12-07T03:28:03Z
resigned_as_typed "KMail: rich text, the text/plain alternative after the preamble"

test_done
