#!/bin/sh
# t-charset.sh: in PGP/MIME the part's Content-Type, its charset
# included, is inside what was signed, and the command is read in that
# charset.  mutt's default send_charset (us-ascii:iso-8859-1:utf-8)
# sends a command with an accented name as ISO-8859-1, quoted-printable:
# it was refused with "line 2 is not UTF-8" from every list.  Here it is
# sent as mutt sends it, directly, through a real mlmmj list (its footer
# after the last boundary) and in the shape Mailman gives a signed post
# (multipart/mixed around it, the footer a part of its own).  A
# clearsigned part, whose label lies outside the signature, is still
# read as UTF-8 only, and a charset in which ASCII does not read as
# ASCII (UTF-7) is still refused.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/smtp.sh"
. "$top_srcdir/tests/lib/mlmmj.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
SEB=$(gpg_new_key "Sébastien Villemot" sebastien@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	sebastien@example.org
committee_conf roles.chair="$CAROL"

# fresh: the committee as it was, with no state.
fresh() {
	committee_ledger "Carol Chair <carol@example.org> $CAROL" \
		"Alice Member <alice@example.org> $ALICE"
	rm -rf "$W/state"
	before=$(events)
	outbox_before=0
}

# mutt_part FILE CHARSET: the chair's appointment of Sébastien as mutt
# writes the part under send_charset: Latin-1 (CHARSET names it),
# quoted-printable, inline.
mutt_part() {
	{
		printf 'Content-Type: text/plain; charset=%s\n' "$2"
		printf 'Content-Disposition: inline\nContent-Transfer-Encoding: quoted-printable\n\n'
		printf 'Tenure: appoint\nMember: S=E9bastien Villemot <sebastien@example.org>\n'
		printf 'Fingerprint: %s\nProject-Joined: 2005-05-01\n\n' "$SEB"
		printf -- '-- \nCarol\n'
	} >"$1"
}

# appointed DESCRIPTION: one check that the last import recorded the
# appointment, the name in UTF-8, logged as applied, with no refusal.
appointed() {
	test_begin "$1"
	if [ "$(events)" != "$((before + 1))" ]; then
		test_fail "expected $((before + 1)) events, got $(events)" "$(cat "$W/log")"
	elif ! last_event | grep -q '^Event: appoint' ||
		! last_event | grep -q '^Member: Sébastien Villemot <sebastien@example.org>$'; then
		test_fail "expected Sébastien's appointment in UTF-8, got:" "$(last_event)"
	elif ! grep -q '^applied ' "$W/log" || grep -q '^refused ' "$W/log"; then
		test_fail "expected an applied log line and no refusal" "$(cat "$W/log")"
	else
		test_pass
	fi
}

# --- Straight from mutt -----------------------------------------------

fresh
mutt_part "$W/m/mutt.part" iso-8859-1
pgpmime_entity "$CAROL" "$W/m/mutt.part" >"$W/m/mutt.entity"
mail_message carol@example.org mutt@example.org "$W/m/mutt.entity" \
	"User-Agent: Mutt/2.2.9 (2022-11-12)" >"$W/m/mutt.eml"
import_mail "$W/m/mutt.eml"
appointed "mutt, ISO-8859-1 quoted-printable: the appointment is read in its signed charset"

# windows-1252, as Outlook and Thunderbird label Latin-1 text.
fresh
mutt_part "$W/m/cp1252.part" windows-1252
pgpmime_entity "$CAROL" "$W/m/cp1252.part" >"$W/m/cp1252.entity"
mail_message carol@example.org cp1252@example.org "$W/m/cp1252.entity" \
	>"$W/m/cp1252.eml"
import_mail "$W/m/cp1252.eml"
appointed "windows-1252: the appointment is read in its signed charset"

# --- Through the lists ---------------------------------------------------

# Mailman wraps a signed post in multipart/mixed, its footer a part of
# its own after the signed one (built by hand: Mailman is not installed).
fresh
{
	printf 'Content-Type: text/plain; charset="us-ascii"\n'
	printf 'Content-Transfer-Encoding: 7bit\nContent-Disposition: inline\n\n'
	printf '_______________________________________________\n'
	printf 'debian-ctte mailing list -- debian-ctte@lists.debian.org\n'
} >"$W/m/mailman.footer"
mixed_entity "$W/m/mutt.entity" "$W/m/mailman.footer" >"$W/m/mailman.entity"
mail_message carol@example.org mailman@example.org "$W/m/mailman.entity" \
	"User-Agent: Mutt/2.2.9 (2022-11-12)" \
	"List-Id: <debian-ctte.lists.debian.org>" >"$W/m/mailman.eml"
import_mail "$W/m/mailman.eml"
appointed "Mailman's footer part after mutt's ISO-8859-1 post: the appointment is read"

# A real mlmmj list, its footer after the last boundary, CRLF.
if [ -x /usr/bin/mlmmj-receive ] && smtp_start plain; then
	mlmmj_setup
	footer on
	fresh
	copy=$(through_list "$W/m/mutt.eml" carol@example.org)
	if [ -n "$copy" ]; then
		import_mail "$copy"
	else
		echo "mlmmj delivered nothing" >"$W/log"
	fi
	appointed "mlmmj with a footer, mutt's ISO-8859-1 post: the appointment is read"
else
	echo "# mlmmj or the test SMTP server is missing: the list's case is not run"
fi

# --- What stays refused -----------------------------------------------

# A byte the signed charset does not define (0x81 in windows-1252).
fresh
sed 's/S=E9bastien/S=81bastien/' "$W/m/cp1252.part" >"$W/m/undefined.part"
pgpmime_entity "$CAROL" "$W/m/undefined.part" >"$W/m/undefined.entity"
mail_message carol@example.org undefined@example.org "$W/m/undefined.entity" \
	>"$W/m/undefined.eml"
import_mail "$W/m/undefined.eml"
expect_refused --reply "a byte its signed charset does not define is answered, saying so" \
	"labelled charset=windows-1252, but its byte [0-9]* is not text in that charset"

# A clearsigned part's label is not signed: its Latin-1 bytes are still
# no UTF-8, whatever the label says.
fresh
{
	printf 'Content-Type: text/plain; charset=iso-8859-1\n'
	printf 'Content-Transfer-Encoding: 8bit\n\n'
	printf 'Tenure: appoint\nMember: S\351bastien Villemot <sebastien@example.org>\nFingerprint: %s\nProject-Joined: 2005-05-01\n' "$SEB" |
		gw -u "$CAROL" --digest-algo SHA256 --clearsign
} >"$W/m/clear.entity"
mail_message carol@example.org clear@example.org "$W/m/clear.entity" >"$W/m/clear.eml"
import_mail "$W/m/clear.eml"
expect_refused --reply "a clearsigned Latin-1 command is still read as UTF-8 only, and answered" \
	"line 2 is not UTF-8"

test_done
