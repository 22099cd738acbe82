#!/bin/bash
# fuzz/make-seeds.sh: (re)makes the seed corpora under fuzz/corpus/ from
# the project's own test material.  Run it from the top of the tree when
# the formats change; its output is committed, so `make fuzz` and the
# corpus replay in `make check` need no gpg.
#
#   intake/    signed mail of every shape the intake tests use (PGP/MIME,
#              clearsigned, a footer in multipart/mixed, nested, forwarded,
#              quoted-printable, a mail without MIME), signed by keys made
#              for the run (the keys are thrown away; only the mail stays)
#   packets/   signatures as a PGP/MIME part or a clearsigned block ends
#              with them: a genuine one armoured and binary, a clearsigned
#              block, and the crafted ones tenure refuses before gpg
#              (tests/lib/craft-packets.py)
#   ledger/    the example ledgers and the test ledger
#   conf/      the shipped and the example configuration
#   template/  the shipped templates
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/fuzz/corpus
. "$top/tests/lib/common.sh"
. "$top/tests/lib/gpg.sh"

mkdir -p "$out/intake" "$out/packets" "$out/ledger" "$out/conf" "$out/template"
cp "$top"/examples/*.ledger "$top"/tests/data/*.ledger "$out/ledger/"
cp "$top/etc/tenure.conf" "$out/conf/shipped.conf"
cp "$top/examples/tenure.conf" "$out/conf/example.conf"
cp "$top"/templates/*.txt "$out/template/"

gpg_world_init
gpg_new_key "Russ Allbery" rra@debian.org >/dev/null
gpg_new_key "Don Armstrong" don@debian.org >/dev/null
t=$TEST_DIR

mime_text_part "Tenure: resign
Effective: 2026-12-31

Thanks for all the fish.
" >"$t/resign.part"
pgpmime_entity rra@debian.org "$t/resign.part" >"$t/pgpmime"
mail_message "Russ Allbery <rra@debian.org>" pgpmime@example.org "$t/pgpmime" \
	"List-Id: <debian-ctte.lists.debian.org>" >"$out/intake/pgpmime.eml"

clearsigned_entity don@debian.org "Tenure: recommend
Member: Sam Hartman <hartmans@debian.org>
Fingerprint: 0123456789ABCDEF0123456789ABCDEF01234567
Project-Joined: 2000-01-01
thanks
- a dash-escaped line" >"$t/clear"
mail_message "Don Armstrong <don@debian.org>" clear@example.org "$t/clear" >"$out/intake/clearsigned.eml"

printf 'Content-Type: text/plain\n\n_______________\nlist footer\n' >"$t/footer"
mixed_entity "$t/pgpmime" "$t/footer" >"$t/mixed"
mail_message "Russ Allbery <rra@debian.org>" mixed@example.org "$t/mixed" >"$out/intake/footer.eml"

rfc822_entity "$out/intake/pgpmime.eml" >"$t/fwd"
mixed_entity "$t/fwd" >"$t/fwdmixed"
mail_message "Don Armstrong <don@debian.org>" fwd@example.org "$t/fwdmixed" >"$out/intake/forwarded.eml"

printf 'Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\nTenure: defer\nMember: Ren=C3=A9e <r@debian.org>\nUntil: 2027-01-01\nReason: a vote is under way\n' >"$t/qp.part"
pgpmime_entity don@debian.org "$t/qp.part" >"$t/qp"
mail_message "Don Armstrong <don@debian.org>" qp@example.org "$t/qp" >"$out/intake/quoted-printable.eml"

printf 'Content-Type: multipart/alternative; boundary="alt"\n\n--alt\nContent-Type: text/plain\n\nTenure: resign\n--alt\nContent-Type: text/html\n\n<p>Tenure: remove</p>\n--alt--\n' >"$t/alt.part"
pgpmime_entity rra@debian.org "$t/alt.part" >"$t/alt"
mail_message "Russ Allbery <rra@debian.org>" alt@example.org "$t/alt" >"$out/intake/alternative.eml"

printf 'From: someone@example.org\nSubject: plain\nMessage-ID: <plain@example.org>\n\n> Tenure: resign\nTenure: appoint\nMember: X <x@example.org>\n-- \nsig\n' >"$out/intake/no-mime.eml"
# The two shapes that once cost more than their size (issue 39 item 1),
# small: a multipart GMime finds unclosed after 300 closed parts, and a
# Content-Type of 3000 parameters (over the bound, set aside unparsed).
/usr/bin/python3 "$top/tests/lib/mime-shapes.py" unclosed 300 >"$out/intake/unclosed-300.eml"
/usr/bin/python3 "$top/tests/lib/mime-shapes.py" parameters 3000 >"$out/intake/parameters-3000.eml"
craft="/usr/bin/python3 $top/tests/lib/craft-packets.py"
printf 'Tenure: resign\n' >"$t/text"
gw -u rra@debian.org --armor --detach-sign -o "$out/packets/armoured.sig" "$t/text"
gw -u rra@debian.org --detach-sign -o "$out/packets/binary.sig" "$t/text"
gw -u don@debian.org --clearsign -o "$out/packets/clearsigned.txt" "$t/text"
$craft compressed 2 1000 >"$out/packets/compressed.sig"
$craft repeat 3 "$out/packets/armoured.sig" >"$out/packets/three.sig"
$craft version 5 "$out/packets/armoured.sig" >"$out/packets/version5.sig"
$craft partial "$out/packets/armoured.sig" >"$out/packets/partial.sig"
echo "seeds in $out"
