#!/bin/sh
# t-sigbounds.sh: a signature is refused before gpg runs when gpg's work
# on it would not be bounded (issue 15, item 5): compressed data (the
# decompression bomb: 1.4 KB of "signature" cost gpg 89 s), more than one
# signature packet (55 ms each), a signature larger than a few KB, and
# packets no signer makes (another version, partial lengths).  Each mail
# is a member's genuine resignation with its signature block replaced;
# each check looks at the ledger, the outbox and the log.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB"
committee_conf
craft="/usr/bin/python3 $top_srcdir/tests/lib/craft-packets.py"

resign="Tenure: resign"
good=$(signed_mail "$ALICE" alice@example.org good "$resign")
signature_of "$good" >"$W/good.sig"

# try NAME SIGNATURE_FILE [--clearsign]: Alice's resignation under NAME,
# its signature replaced, imported.
try() {
	local name=$1 sig=$2 mail
	shift 2
	mail=$(signed_mail "$@" "$ALICE" alice@example.org "$name" "$resign")
	with_signature "$mail" "$sig" >"$W/m/$name.crafted"
	before=$(events)
	outbox_before=$(outbox_count)
	import_mail "$W/m/$name.crafted"
}

$craft compressed 3 4000000 >"$W/bomb.sig"
try bomb "$W/bomb.sig"
expect_refused --no-reply "three layers of compressed data in a PGP/MIME signature are refused before gpg" \
	"signature holds compressed data"

try bomb-clear "$W/bomb.sig" --clearsign
expect_refused --no-reply "... and in a clearsigned block" \
	"signature holds compressed data"

$craft compressed 1 100 >"$W/small.sig"
try small-bomb "$W/small.sig"
expect_refused --no-reply "a compressed packet of any size is refused" \
	"signature holds compressed data"

$craft repeat 40 "$W/good.sig" >"$W/forty.sig"
try forty "$W/forty.sig"
expect_refused --no-reply "forty copies of a member's signature packet are refused before gpg" \
	"signature holds 40 signature packets (exactly one allowed)"

try forty-clear "$W/forty.sig" --clearsign
expect_refused --no-reply "... and in a clearsigned block" \
	"signature holds 40 signature packets"

$craft version 5 "$W/good.sig" >"$W/v5.sig"
try v5 "$W/v5.sig"
expect_refused --no-reply "a signature packet of another version is refused" \
	"signature of version 5 (3 or 4 required)"

$craft partial "$W/good.sig" >"$W/partial.sig"
try partial "$W/partial.sig"
expect_refused --no-reply "a signature packet in partial lengths is refused" \
	"signature packet with partial lengths"

# A genuine signature made large by notations: gpg would accept it.
notes=
for i in 1 2 3 4 5 6 7 8 9 10; do
	notes="$notes --sig-notation n$i@example.org=$(head -c 900 /dev/zero | tr '\0' x)"
done
# shellcheck disable=SC2086
big=$(signed_mail "$ALICE" alice@example.org big "$resign" -- $notes)
before=$(events)
outbox_before=$(outbox_count)
import_mail "$big"
expect_refused --no-reply "a genuine signature larger than 8 KB is refused" \
	"signature larger than 8192 bytes"

printf '%s\n' "-----BEGIN PGP SIGNATURE-----" "" "not base64!" \
	"-----END PGP SIGNATURE-----" >"$W/junk.sig"
try junk "$W/junk.sig"
expect_refused --no-reply "armour that is not base64 is refused" \
	"signature armour holds a character that is not base64"

{ cat "$W/good.sig"; cat "$W/good.sig"; } >"$W/twice.sig"
try twice "$W/twice.sig"
expect_refused --no-reply "two armoured blocks in one signature part are refused" \
	"more than one signature block"

sed 's/^=\(.\)/=A/' "$W/good.sig" >"$W/crc.sig"
cmp -s "$W/crc.sig" "$W/good.sig" && sed 's/^=\(.\)/=B/' "$W/good.sig" >"$W/crc.sig"
try crc "$W/crc.sig"
expect_refused --no-reply "an armour checksum that does not match is refused" \
	"checksum does not match"

# What passes the check is what gpg decides on: the genuine signature.
before=$(events)
import_mail "$good"
expect_event --applied "the member's own signature, one packet, is applied" \
	"^Event: resign
^Member: Alice Member"

before=$(events)
bob=$(signed_mail --clearsign "$BOB" bob@example.org bob "$resign")
import_mail "$bob"
expect_event --applied "... and a clearsigned one too" \
	"^Event: resign
^Member: Bob Member"

test_done
