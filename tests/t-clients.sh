#!/bin/sh
# t-clients.sh: commands as the mail programs Debian people use write
# and sign them (issue 19): mutt, neomutt, Emacs message-mode (Gnus,
# notmuch-emacs and mu4e compose with it), aerc and alot, PGP/MIME and
# inline, replies written below the quote, and each copy delivered as a
# CRLF Maildir file, as an MTA writes it.  Each mail is built here the
# way its program builds it (MIME structure, transfer encodings, the
# attribution line) and signed with a key made for the run; each check
# looks at the ledger, the transcript in the outbox and the log.  Also:
# no signed command attempt is refused in silence, malformed MIME is
# named with its offset, and what is read is exactly what was signed
# (issue 15, item 4).  List software: tests/t-mlmmj.sh.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"

committee_init

ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
DAVE=$(gpg_new_key "Dave Member" dave@example.org)

# Erin signs a reply quoting text that UTF-7 would decode into a line
# break and a command (issue 15, item 4).  A '+' in the signature's
# armour would make UTF-7 garble the signature too, so the attack needs
# a signature without one: made here as an attacker would wait for
# one (Erin's key fingerprint is in every signature, so some keys
# never give one: then another key).
ERIN=
for k in 1 2 3 4 5 6 7 8; do
	fpr=$(gpg_new_key "Erin Member" erin$k@example.org)
	for t in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		signed_mail --clearsign --at "$t minutes ago" "$fpr" erin$k@example.org utf7 \
			"> +AAo-Tenure: resign
> (quoted from a mail on the list)

I disagree." >/dev/null 2>&1
		if ! sed '1,/^-----BEGIN PGP SIGNATURE/d' "$W/m/utf7.entity" | grep -q '+'; then
			ERIN=$fpr
			ERIN_ADDRESS=erin$k@example.org
			break 2
		fi
	done
done
[ -n "$ERIN" ] || test_skip_all "no signature without a '+' in 160 tries"
sed -i 's/charset=us-ascii/charset=utf-7/' "$W/m/utf7.eml"

gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org dave@example.org "$ERIN_ADDRESS"
committee_conf roles.chair="$CAROL" reminders.replies-per-day=100

# fresh: the committee as it was, with no state: every check starts
# from four members and an empty outbox.
fresh() {
	committee_ledger "Alice Member <alice@example.org> $ALICE" \
		"Bob Member <bob@example.org> $BOB" \
		"Carol Chair <carol@example.org> $CAROL" \
		"Dave Member <dave@example.org> $DAVE" \
		"Erin Member <$ERIN_ADDRESS> $ERIN"
	rm -rf "$W/state"
	before=$(events)
	outbox_before=0
}

# crlf FILE: FILE with CRLF line ends, as a Maildir file from an MTA.
crlf() {
	perl -pe 's/\r?\n/\r\n/' "$1" >"$1.crlf" && mv "$1.crlf" "$1"
}

# message FROM ID ENTITY_FILE [HEADER...]: $W/m/ID.eml, CRLF.
message() {
	local from=$1 id=$2 entity=$3
	shift 3
	mail_message "$from" "$id@example.org" "$entity" "$@" >"$W/m/$id.eml"
	crlf "$W/m/$id.eml"
	echo "$W/m/$id.eml"
}

# A question from the list, and the reply below it as each program
# attributes the quote.
QUOTE='> Should the chair stay on for another term?
> I would rather see a rotation.'
reply() {
	printf '%s\n%s\n\nTenure: resign\n\n-- \n%s\n' "$1" "$QUOTE" "$2"
}

# answered_then_counts DESCRIPTION REASON FILE: the last run refused a
# command for REASON with a transcript to its signer and left the
# signature unrecorded: FILE, the same signature in a mail of the right
# shape, then counts.
answered_then_counts() {
	test_begin "$1"
	_committee_unchanged "refused " "$2" >"$W/why"
	if [ -s "$W/why" ]; then
		test_fail "$(cat "$W/why")"
		return
	fi
	if [ -z "$(refusal_transcript "$2")" ]; then
		test_fail "expected a transcript with: $2" \
			"$(cat "$W/state"/outbox/queue/* 2>/dev/null | grep Refused)"
		return
	fi
	import_mail "$3"
	if [ "$(events)" = "$((before + 1))" ] && last_event | grep -q '^Event: resign' &&
		grep -q '^applied ' "$W/log"; then
		test_pass
	else
		test_fail "expected the same signature to count in a mail of the right shape" \
			"$(cat "$W/log")"
	fi
}

# --- mutt and neomutt: PGP/MIME, Content-Disposition: inline ----------

fresh
{
	printf 'Content-Type: text/plain; charset=us-ascii\nContent-Disposition: inline\n\n'
	reply "On Thu, Dec 03, 2026 at 09:12:40AM +0100, Helmut Grohne wrote:" Alice
} >"$W/m/mutt.part"
pgpmime_entity "$ALICE" "$W/m/mutt.part" >"$W/m/mutt.entity"
import_mail "$(message alice@example.org mutt "$W/m/mutt.entity" \
	"User-Agent: Mutt/2.2.9 (2022-11-12)" "In-Reply-To: <q@example.org>")"
expect_resigned "mutt: a PGP/MIME reply below the quote is applied" "Alice Member"

# neomutt with an attachment: the signed content is multipart/mixed of
# the inline text (8bit UTF-8) and the attachment.
fresh
b=neomutt-$$
{
	printf 'Content-Type: multipart/mixed; boundary="%s"\n\n--%s\n' "$b" "$b"
	printf 'Content-Type: text/plain; charset=utf-8\nContent-Disposition: inline\n'
	printf 'Content-Transfer-Encoding: 8bit\n\n'
	reply "On Thu, Dec 03, 2026 at 09:12:40AM +0100, Helmut Grohne wrote:" "Grüße, Bob"
	printf -- '\n--%s\nContent-Type: application/pdf\n' "$b"
	printf 'Content-Disposition: attachment; filename="letter.pdf"\n'
	printf 'Content-Transfer-Encoding: base64\n\nJVBERi0xLjQKJcfsj6IK\n\n--%s--\n' "$b"
} >"$W/m/neomutt.part"
pgpmime_entity "$BOB" "$W/m/neomutt.part" >"$W/m/neomutt.entity"
import_mail "$(message bob@example.org neomutt "$W/m/neomutt.entity" \
	"User-Agent: NeoMutt/20220429")"
expect_resigned "neomutt: a reply below the quote with an attachment is applied" "Bob Member"

# --- Emacs message-mode: Gnus, notmuch-emacs, mu4e ---------------------

# Gnus, PGP/MIME (mml-secure-message-sign-pgpmime): a text/plain with no
# charset, quoted-printable, and the "writes:" attribution with a blank
# line before the quote.
fresh
{
	printf 'Content-Type: text/plain\nContent-Transfer-Encoding: quoted-printable\n\n'
	printf 'Helmut Grohne <helmut@debian.org> writes:\n\n%s\n\nTenure: resign\n\n' "$QUOTE"
	printf -- '-- \nDave, who thinks a rotation is long overdue and says so at some =\nlength\n'
} >"$W/m/gnus.part"
pgpmime_entity "$DAVE" "$W/m/gnus.part" >"$W/m/gnus.entity"
import_mail "$(message dave@example.org gnus "$W/m/gnus.entity" \
	"User-Agent: Gnus/5.13 (Gnus v5.13)")"
expect_resigned "Gnus: a quoted-printable reply below \"... writes:\" is applied" "Dave Member"

# Gnus, inline (mml-secure-message-sign-pgp): the whole text clearsigned.
fresh
printf 'Helmut Grohne <helmut@debian.org> writes:\n\n%s\n\nTenure: resign\n' "$QUOTE" \
	>"$W/m/gnus-inline.text"
clearsigned_entity "$ALICE" "$(cat "$W/m/gnus-inline.text")" >"$W/m/gnus-inline.entity"
import_mail "$(message alice@example.org gnus-inline "$W/m/gnus-inline.entity")"
expect_resigned "Gnus: an inline-signed reply below the quote is applied" "Alice Member"

fresh
{
	printf 'Content-Type: text/plain\n\n'
	reply "On Thu, 03 Dec 2026 09:12:40 +0100, Helmut Grohne <helmut@debian.org> wrote:" Bob
} >"$W/m/notmuch.part"
pgpmime_entity "$BOB" "$W/m/notmuch.part" >"$W/m/notmuch.entity"
import_mail "$(message bob@example.org notmuch "$W/m/notmuch.entity" \
	"User-Agent: Notmuch/0.37 (https://notmuchmail.org) Emacs/28.2")"
expect_resigned "notmuch-emacs: a reply below its attribution is applied" "Bob Member"

fresh
{
	printf 'Content-Type: text/plain\n\n'
	reply "On Thu 03 Dec 2026 at 09:12, Helmut Grohne <helmut@debian.org> wrote:" Dave
} >"$W/m/mu4e.part"
pgpmime_entity "$DAVE" "$W/m/mu4e.part" >"$W/m/mu4e.entity"
import_mail "$(message dave@example.org mu4e "$W/m/mu4e.entity" \
	"User-Agent: mu4e 1.8.14; emacs 28.2")"
expect_resigned "mu4e: a reply below its attribution is applied" "Dave Member"

# --- aerc: multipart/alternative around the text ------------------------

# With an attachment aerc sends multipart/mixed { multipart/alternative
# { text/plain }, attachment }: one alternative, plain text.
aerc_text() {
	printf 'Content-Type: text/plain; charset=UTF-8\n'
	printf 'Content-Transfer-Encoding: quoted-printable\n\n'
	printf 'On Thu Dec 3, 2026 at 9:12 AM CET, Helmut Grohne wrote:\n%s\n\n' "$QUOTE"
	printf 'Tenure: resign\n\nGr=C3=BC=C3=9Fe\n'
}
fresh
{
	printf 'Content-Type: multipart/mixed; boundary="aerc-m"\n\n--aerc-m\n'
	printf 'Content-Type: multipart/alternative; boundary="aerc-a"\n\n--aerc-a\n'
	aerc_text
	printf -- '--aerc-a--\n\n--aerc-m\nContent-Type: application/pdf\n'
	printf 'Content-Disposition: attachment; filename="minutes.pdf"\n'
	printf 'Content-Transfer-Encoding: base64\n\nJVBERi0xLjQKJcfsj6IK\n--aerc-m--\n'
} >"$W/m/aerc.part"
pgpmime_entity "$ALICE" "$W/m/aerc.part" >"$W/m/aerc.entity"
import_mail "$(message alice@example.org aerc "$W/m/aerc.entity" "User-Agent: aerc/0.15.2")"
expect_resigned "aerc: multipart/alternative with one text/plain is plain text" "Alice Member"

# With text and HTML (aerc's multipart converters, or any HTML mailer):
# both versions are signed, the command is read from the text/plain
# alone, and what the HTML says is not read.
fresh
{
	printf 'Content-Type: multipart/alternative; boundary="aerc-a"\n\n--aerc-a\n'
	aerc_text
	printf -- '--aerc-a\nContent-Type: text/html; charset=UTF-8\n\n'
	printf 'Tenure: remove\nMember: Bob Member &lt;bob@example.org&gt;\n'
	printf -- '--aerc-a--\n'
} >"$W/m/aerc-html.part"
pgpmime_entity "$CAROL" "$W/m/aerc-html.part" >"$W/m/aerc-html.entity"
import_mail "$(message carol@example.org aerc-html "$W/m/aerc-html.entity")"
expect_resigned "text and HTML: the command is read from the text/plain version" "Carol Chair"

# --- alot: Python's MIMEText, UTF-8 in base64 ---------------------------

fresh
{
	printf 'Content-Type: text/plain; charset="utf-8"\nMIME-Version: 1.0\n'
	printf 'Content-Transfer-Encoding: base64\nContent-Disposition: inline\n\n'
	reply "Quoting Helmut Grohne (2026-12-03 09:12:40)" "Bob" | base64
} >"$W/m/alot.part"
pgpmime_entity "$BOB" "$W/m/alot.part" >"$W/m/alot.entity"
import_mail "$(message bob@example.org alot "$W/m/alot.entity" "User-Agent: alot/0.10")"
expect_resigned "alot: a base64 reply below \"Quoting ...\" is applied" "Bob Member"

# --- Inline signatures and the unsigned text around them ---------------

# Mailman 3 appends its footer inside the text part and re-encodes the
# part as base64 (built by hand here: Mailman 3 is not installed).
fresh
{
	printf 'Content-Type: text/plain; charset="utf-8"\nMIME-Version: 1.0\n'
	printf 'Content-Transfer-Encoding: base64\n\n'
	{
		printf 'Tenure: resign\n' | gw -u "$DAVE" --digest-algo SHA256 --clearsign
		printf '_______________________________________________\n'
		printf 'debian-ctte mailing list -- debian-ctte@lists.debian.org\n'
		printf 'Tenure: appoint\n'
	} | base64
} >"$W/m/mailman.entity"
import_mail "$(message dave@example.org mailman "$W/m/mailman.entity" \
	"List-Id: <debian-ctte.lists.debian.org>")"
expect_resigned "Mailman 3: a footer inside a base64 text part is not read" "Dave Member"

# Text above the block (a pasted note, a quote) is not read either.
fresh
{
	printf 'Content-Type: text/plain; charset=us-ascii\n\n'
	printf 'My resignation, signed:\n\nTenure: appoint\n\n'
	printf 'Tenure: resign\n' | gw -u "$ALICE" --digest-algo SHA256 --clearsign
} >"$W/m/above.entity"
import_mail "$(message alice@example.org above "$W/m/above.entity")"
expect_resigned "unsigned text above a clearsigned block is not read" "Alice Member"

# --- A signed command attempt is applied or answered ---------------------

fresh
mime_text_part "Tenure: resign" >"$W/m/after.signed-part"
pgpmime_entity "$BOB" "$W/m/after.signed-part" >"$W/m/after.signed"
mime_text_part "Tenure: resign" >"$W/m/after.unsigned"
mixed_entity "$W/m/after.unsigned" "$W/m/after.signed" >"$W/m/after.entity"
import_mail "$(message bob@example.org after "$W/m/after.entity")"
mail_message bob@example.org after-again@example.org "$W/m/after.signed" \
	>"$W/m/after-again.eml"
answered_then_counts "a signed part after unsigned text is answered, not dropped; its signature still counts" \
	"the signature does not cover the mail's text" "$W/m/after-again.eml"

fresh
{
	printf 'Content-Type: text/plain; charset=us-ascii\n\nTenure: resign\n\n'
	printf 'I agree with the above.\n' | gw -u "$DAVE" --digest-algo SHA256 --clearsign
} >"$W/m/unsigned-command.entity"
import_mail "$(message dave@example.org unsigned-command "$W/m/unsigned-command.entity")"
expect_refused --reply "a command outside the clearsigned block is answered" \
	"the command is outside the clearsigned block"

fresh
import_mail "$(signed_mail "$ALICE" alice@example.org below-prose "Dear all,

after much thought:
Tenure: resign")"
expect_refused --reply "a command below other text is answered, saying where it goes" \
	"no command at the top of the signed text"

fresh
{
	printf 'Content-Type: text/plain; charset=us-ascii\n\n'
	printf 'Tenure: resign\n' | gw -u "$ALICE" --digest-algo SHA256 --clearsign
	printf 'Tenure: resign\n' | gw -u "$ALICE" --digest-algo SHA256 --clearsign
} >"$W/m/two-blocks.entity"
import_mail "$(message alice@example.org two-blocks "$W/m/two-blocks.entity")"
expect_refused --reply "two clearsigned blocks are answered" "more than one clearsigned block"

fresh
mime_text_part "Tenure: resign" >"$W/m/three.part"
printf 'Content-Type: text/plain\n\nTenure: appoint\n' >"$W/m/three.extra"
pgpmime_entity "$BOB" "$W/m/three.part" application/pgp-signature "$W/m/three.extra" \
	>"$W/m/three.entity"
import_mail "$(message bob@example.org three "$W/m/three.entity")"
expect_refused --reply "multipart/signed with a third, unsigned part is answered" \
	"exactly 2 required"

fresh
signed_mail "$DAVE" dave@example.org no-id "Tenure: resign" >/dev/null
sed -i '/^Message-ID:/d' "$W/m/no-id.eml"
import_mail "$W/m/no-id.eml"
expect_refused --reply "a command without a Message-ID is answered" "has no Message-ID"

# A signed mail with no "Tenure:" line is list traffic: nothing is said.
fresh
import_mail "$(signed_mail "$ALICE" alice@example.org discussion "I think terms should be four years.
> Tenure: resign
is how one would resign.")"
test_begin "signed mail without a command line stays silent (no backscatter)"
if [ "$(events)" = "$before" ] && [ "$(outbox_count)" = 0 ] && [ ! -s "$W/log" ]; then
	test_pass
else
	test_fail "expected no event, no mail and no log line" "$(cat "$W/log")"
fi

fresh
mime_text_part "Tenure: resign" >"$W/m/unsigned.part"
mail_message alice@example.org unsigned@example.org "$W/m/unsigned.part" >"$W/m/unsigned.eml"
import_mail "$W/m/unsigned.eml"
expect_refused --no-reply "an unsigned command is logged and never answered" "unsigned command"

# --- Malformed MIME is named ---------------------------------------------

# Emacs's mml1991 clearsigns a whole multipart, so its boundary lines
# come out dash-escaped and GMime finds no part.
fresh
b="=-=-="
{
	printf -- '--%s\nContent-Type: text/plain\n\nTenure: resign\n\n' "$b"
	printf -- '--%s\nContent-Type: text/x-diff\nContent-Disposition: attachment; filename=x.diff\n\n' "$b"
	printf -- '--- a\n+++ b\n\n--%s--\n' "$b"
} >"$W/m/mml1991.inner"
{
	printf 'Content-Type: multipart/mixed; boundary="%s"\n\n' "$b"
	gw -u "$ALICE" --digest-algo SHA256 --clearsign <"$W/m/mml1991.inner"
} >"$W/m/mml1991.entity"
import_mail "$(message alice@example.org mml1991 "$W/m/mml1991.entity")"
test_begin "a multipart clearsigned whole (mml1991) is set aside with its reason and offset"
if grep -q '^set-aside .*dash-escaped.*Emacs.*at byte [0-9]' "$W/log" &&
	! grep -q 'byte -1' "$W/log" && [ "$(events)" = "$before" ]; then
	test_pass
else
	test_fail "expected a set-aside line naming the dash-escaped boundary" "$(cat "$W/log")"
fi

# --- What is read is exactly what was signed (issue 15, item 4) ----------

# Erin's signed reply (made above), relabelled charset=utf-7: the bytes
# she signed are still what is read, a quoted line and no command.
fresh
import_mail "$W/m/utf7.eml"
test_begin "a clearsigned reply relabelled UTF-7 yields no command the signer did not sign"
if [ "$(events)" = "$before" ] && ! grep -q '^applied ' "$W/log" &&
	[ "$(outbox_count)" = 0 ]; then
	test_pass
else
	test_fail "expected no event and no reply" "$(cat "$W/log")" "$(last_event)"
fi

# The same with ISO-2022-JP, whose escape sequences are no text: a line
# Dave signed that starts with one is no command line, and stays none.
fresh
signed_mail --clearsign "$DAVE" dave@example.org iso2022 "$(printf '\033(BTenure: resign')

Odd bytes pasted from a terminal." >/dev/null
sed -i 's/charset=us-ascii/charset=ISO-2022-JP/' "$W/m/iso2022.eml"
import_mail "$W/m/iso2022.eml"
test_begin "a clearsigned text relabelled ISO-2022-JP yields no command the signer did not sign"
if [ "$(events)" = "$before" ] && ! grep -q '^applied ' "$W/log"; then
	test_pass
else
	test_fail "expected no event" "$(cat "$W/log")" "$(last_event)"
fi

# A genuine command relabelled with a charset that does not read as
# ASCII is refused and answered, and as the label is outside the
# signature, the signature is not used up.
fresh
signed_mail --clearsign "$BOB" bob@example.org utf16 "Tenure: resign" >/dev/null
sed 's/charset=us-ascii/charset=UTF-16/' "$W/m/utf16.eml" >"$W/m/utf16-label.eml"
import_mail "$W/m/utf16-label.eml"
sed 's/^Message-ID: <utf16@/Message-ID: <utf16-again@/' "$W/m/utf16.eml" \
	>"$W/m/utf16-ascii.eml"
answered_then_counts "a command relabelled UTF-16 is answered; the signature labelled US-ASCII counts" \
	"charset=UTF-16" "$W/m/utf16-ascii.eml"

# PGP/MIME covers the label: a member's own part labelled UTF-7 is
# answered all the same.
fresh
printf 'Content-Type: text/plain; charset=utf-7\n\nTenure: resign\n' >"$W/m/own-utf7.part"
import_mail "$(signed_mail --part "$W/m/own-utf7.part" "$DAVE" dave@example.org own-utf7)"
expect_refused --reply "a PGP/MIME part labelled UTF-7 is answered" "charset=utf-7"

# A UTF-8 byte order mark before the command shows as nothing.
fresh
printf '\357\273\277Tenure: resign\n' >"$W/m/bom.text"
{
	printf 'Content-Type: text/plain; charset=utf-8\n\n'
	gw -u "$ALICE" --digest-algo SHA256 --clearsign <"$W/m/bom.text"
} >"$W/m/bom.entity"
import_mail "$(message alice@example.org bom "$W/m/bom.entity")"
expect_resigned "a byte order mark before a clearsigned command is no part of its line" "Alice Member"

test_done
