#!/bin/sh
# t-replay.sh: a replay is known by what was signed, not by how it was
# framed (issue 40, item 3).  A member's clearsigned command is public
# once it reaches the list: anyone can post it again inside a frame of
# their own (an attachment, a multipart/mixed, new Content-Type
# parameters, another Subject and Message-ID).  Each copy is the same
# signature over the same text: logged once as a replay, no transcript
# to the member, the ledger unchanged.  A seen file an older tenure
# wrote is still honoured.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
OSCAR=$(gpg_new_key "Oscar Outsider" oscar@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	bob@example.org
committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB"
committee_conf roles.chair="$CAROL"
: "$OSCAR"

# The clearsigned block of MAIL (its entity's body: the text and the
# signature, as anyone reading the list has it).
block_of() {
	sed -n '/^-----BEGIN PGP SIGNED MESSAGE-----/,/^-----END PGP SIGNATURE-----/p' "$1"
}

# reframe ID HOW BLOCK: Oscar's mail ID carrying BLOCK in the frame HOW.
reframe() {
	local id=$1 how=$2 block=$3 b=frame-$1
	{
		printf 'From: oscar@example.org\nTo: debian-ctte@lists.debian.org\n'
		printf 'Subject: look what %s said (%s)\nDate: %s\n' "$id" "$how" "$(date -R)"
		printf 'Message-ID: <%s@example.org>\nMIME-Version: 1.0\n' "$id"
		case $how in
		attachment)
			printf 'Content-Type: multipart/mixed; boundary="%s"\n\n--%s\n' "$b" "$b"
			printf 'Content-Type: text/plain\n\nSee the attachment.\n\n--%s\n' "$b"
			printf 'Content-Type: text/plain; charset=us-ascii; name="cmd.txt"\n'
			printf 'Content-Disposition: attachment; filename="cmd.txt"\n\n'
			cat "$block"
			printf -- '--%s--\n' "$b"
			;;
		parameter)
			printf 'Content-Type: text/plain; charset=us-ascii; x-frame="%s"; format=fixed\n' "$id"
			printf 'Content-Disposition: inline; filename="%s.txt"\n\n' "$id"
			cat "$block"
			;;
		mixed)
			printf 'Content-Type: multipart/mixed; boundary="%s"; x-frame=%s\n\n--%s\n' "$b" "$id" "$b"
			printf 'Content-Type: text/plain; charset=us-ascii; delsp=no; x-frame=%s\n\n' "$id"
			cat "$block"
			printf -- '\n--%s\nContent-Type: application/octet-stream\n' "$b"
			printf 'Content-Disposition: attachment; filename="x.bin"\n\nxyz\n--%s--\n' "$b"
			;;
		esac
	} >"$W/m/$id.eml"
	echo "$W/m/$id.eml"
}

run_once() {
	"$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}

SENT=$W/sent/new
sent_to() {
	grep -l "^To: $1" "$SENT"/* 2>/dev/null | wc -l
}

# resigns DESCRIPTION NAME ADDRESS KEY ID [--clearsign]: NAME's
# resignation, mail ID, is posted and applied (one check); $before is
# the ledger's count after it.
resigns() {
	before=$(events)
	deliver "$W/inbox" "$(signed_mail ${6:-} "$4" "$3" "$5" "Tenure: resign")"
	run_once
	expect_event --applied "$1" "^Event: resign
^Member: $2 <$3>"
	before=$(events)
}

# --- A member's applied command, framed anew three times ------------------

resigns "Bob's clearsigned resignation is applied" "Bob Member" \
	bob@example.org "$BOB" bob-resign --clearsign
block_of "$W/m/bob-resign.eml" >"$W/m/bob.block"
bob_before=$(sent_to bob@example.org)
sent_before=$(ls "$SENT" | wc -l)
for how in attachment parameter mixed; do
	deliver "$W/inbox" "$(reframe "oscar-$how" $how "$W/m/bob.block")"
done
run_once
test_begin "three new frames of Bob's applied command leave the ledger as it was"
test_expect_equal "$before" "$(events)" "$(cat "$W/log")"
test_begin "each frame is logged once, as a replay, and nothing refused"
for how in attachment parameter mixed; do
	n=$(grep -c "oscar-$how@" "$W/log")
	r=$(grep -c "^replay .*msgid=<oscar-$how@" "$W/log")
	[ "$n" = 1 ] && [ "$r" = 1 ] || echo "$how: $n lines, $r replay"
done >"$W/why"
grep '^refused ' "$W/log" >>"$W/why"
if [ -s "$W/why" ]; then
	test_fail "$(cat "$W/why")" "$(cat "$W/log")"
else
	test_pass
fi
test_begin "no transcript goes to Bob, and nothing else is sent"
test_expect_equal "$bob_before $sent_before $(cat "$W/status")" \
	"$(sent_to bob@example.org) $(ls "$SENT" | wc -l) 0" "$(cat "$W/log")"

# --- A refused command, replayed: no second transcript --------------------

# Alice is no chair: her appointment is refused, and she hears why.
before=$(events)
deliver "$W/inbox" "$(signed_mail --clearsign "$ALICE" alice@example.org alice-appoint "Tenure: appoint
Member: Oscar Outsider <oscar@example.org>
Fingerprint: $OSCAR
Project-Joined: 2010-05-01")"
run_once
test_begin "Alice's appointment is refused with a transcript"
if [ "$(events)" = "$before" ] && [ "$(sent_to alice@example.org)" = 1 ]; then
	test_pass
else
	test_fail "expected $before events and 1 mail to Alice" \
		"got $(events), $(sent_to alice@example.org)" "$(cat "$W/log")"
fi
block_of "$W/m/alice-appoint.eml" >"$W/m/alice.block"
for how in attachment parameter mixed; do
	deliver "$W/inbox" "$(reframe "alice-$how" $how "$W/m/alice.block")"
done
run_once
test_begin "Alice's refused command replayed in three frames: no second transcript"
test_expect_equal "$before 1 3 0" \
	"$(events) $(sent_to alice@example.org) $(grep -c '^replay .*msgid=<alice-' "$W/log") $(cat "$W/status")" \
	"$(cat "$W/log")"

# --- The same for PGP/MIME ------------------------------------------------

# Alice's PGP/MIME resignation, applied; Oscar posts its multipart/signed
# entity after text of his own, and alone with new parameters (the
# entity's own header is outside the signature).
resigns "Alice's PGP/MIME resignation is applied" "Alice Member" \
	alice@example.org "$ALICE" alice-resign
entity=$W/m/alice-resign.entity
{
	printf 'From: oscar@example.org\nTo: debian-ctte@lists.debian.org\n'
	printf 'Subject: Alice said\nDate: %s\nMessage-ID: <pgp-after-text@example.org>\n' "$(date -R)"
	printf 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="outer"\n\n'
	printf -- '--outer\nContent-Type: text/plain\n\nLook:\n\n--outer\n'
	cat "$entity"
	printf -- '\n--outer--\n'
} >"$W/m/pgp-after-text.eml"
{
	printf 'From: oscar@example.org\nTo: debian-ctte@lists.debian.org\n'
	printf 'Subject: again\nDate: %s\nMessage-ID: <pgp-parameter@example.org>\n' "$(date -R)"
	printf 'MIME-Version: 1.0\n'
	sed '1s/^Content-Type: multipart\/signed;/Content-Type: multipart\/signed; x-frame=1;/' "$entity"
} >"$W/m/pgp-parameter.eml"
alice_before=$(sent_to alice@example.org)
sent_before=$(ls "$SENT" | wc -l)
deliver "$W/inbox" "$W/m/pgp-after-text.eml"
deliver "$W/inbox" "$W/m/pgp-parameter.eml"
run_once
test_begin "Alice's PGP/MIME command in two new frames: two replays, nothing sent"
test_expect_equal "$before 2 0 $alice_before $sent_before 0" \
	"$(events) $(grep -c '^replay .*msgid=<pgp-' "$W/log") $(grep -c '^refused ' "$W/log") $(sent_to alice@example.org) $(ls "$SENT" | wc -l) $(cat "$W/status")" \
	"$(cat "$W/log")"

# --- A seen file an older tenure wrote is still honoured ------------------

# Carol's resignation, recorded in the old form of the seen file alone
# ("signature FPR CREATED SHA256 MESSAGE-ID", the SHA-256 of the text):
# reframed by Oscar, it is a replay all the same.
resigns "Carol's clearsigned resignation is applied" "Carol Chair" \
	carol@example.org "$CAROL" carol-resign --clearsign
record=$(sed -n "s/^Signature: $CAROL \([0-9T:Z-]*\) sha256:\([0-9a-f]*\)\$/\1 \2/p" "$W/ledger")
created=$(date -u -d "${record% *}" +%s)
{
	grep -v "$CAROL" "$W/state/seen"
	printf 'signature %s %s %s <carol-resign@example.org>\n' "$CAROL" "$created" "${record#* }"
} >"$W/seen.new"
mv "$W/seen.new" "$W/state/seen"
state_reseal "$W/state/seen"
before=$(events)
carol_before=$(sent_to carol@example.org)
block_of "$W/m/carol-resign.eml" >"$W/m/carol.block"
deliver "$W/inbox" "$(reframe carol-attachment attachment "$W/m/carol.block")"
run_once
test_begin "a record in the older seen file's form is a replay in a new frame"
test_expect_equal "$before 1 $carol_before 0" \
	"$(events) $(grep -c '^replay .*msgid=<carol-attachment@' "$W/log") $(sent_to carol@example.org) $(cat "$W/status")" \
	"$(cat "$W/log")" "$(cat "$W/state/seen")"

test_done
