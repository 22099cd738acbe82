#!/bin/sh
# examples/demo.sh: tenure's main job on the bundled example, in a scratch
# directory (the repository is left as it is).
#
# It makes throwaway OpenPGP keys for the chair, the leader, members, the
# newcomer and a forger; signs the example mails in examples/mail/ (a
# resignation, the chair's recommendation, the leader's appointment, and a
# forgery); drops them into the example list Maildir; runs
# `tenure run --once`; and shows the ledger events added, the mail in the
# outbox and the forged mail refused with its reason.
#
# The story is set in November 2014, on the committee of the example
# ledger: the keys and signatures are dated then (gpg --faked-system-time)
# and tenure runs with --now, so the demo gives the same result whenever
# it is run; the signatures are still checked by today's gpg.
#
# usage: examples/demo.sh [--keep]      (TENURE=path/to/tenure to choose
#                                        the binary; default: the build tree)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=$(cd "$here/.." && pwd)
# From the source tree: the built binary, the tests' gpg library and the
# tree's templates.  Installed by the Debian package (in
# /usr/share/doc/tenure/examples): the installed binary and templates and
# the copy of the gpg library shipped beside this script.
if [ -f "$top_srcdir/tests/lib/gpg.sh" ]; then
	lib_gpg=$top_srcdir/tests/lib/gpg.sh
	templates=$top_srcdir/templates
	TENURE=${TENURE:-$top_srcdir/tenure}
else
	lib_gpg=$here/gpg.sh
	templates=/usr/share/tenure/templates
	TENURE=${TENURE:-/usr/bin/tenure}
fi
keep=
[ "${1:-}" = "--keep" ] && keep=1
if [ ! -x "$TENURE" ]; then
	echo "demo: $TENURE is not built; run ./configure && make first (or set TENURE)" >&2
	exit 2
fi
for tool in gpg perl; do
	command -v "$tool" >/dev/null || { echo "demo: $tool is needed" >&2; exit 2; }
done

# A short path: gpg-agent refuses sockets under long ones.
D=$(mktemp -d /tmp/tenure-demo.XXXXXX)
GPG_WORLD=$D/world
cleanup() {
	gpgconf --homedir "$GPG_WORLD" --kill all >/dev/null 2>&1 || true
	gpgconf --homedir "$D/state/gnupg" --kill all >/dev/null 2>&1 || true
	if [ -n "$keep" ]; then
		echo "demo: kept $D"
	else
		rm -rf "$D"
	fi
}
trap cleanup EXIT
# tests/lib/gpg.sh is shared with the tests; the demo cleans up by itself.
test_cleanup() { :; }
. "$lib_gpg"
mkdir -m 700 "$GPG_WORLD"
_gpg_counter=0

echo "== Setting up $D"
cp "$here/tenure.conf" "$here/debian-ctte-2014.ledger" "$D/"
mkdir -p "$D/keys" "$D/mail/list/new" "$D/mail/list/cur" "$D/mail/list/tmp" \
	"$D/mail/outbox/new" "$D/mail/outbox/cur" "$D/mail/outbox/tmp" "$D/m"

# Keys as of January 2014, never expiring.
newkey() {
	gw "$(gpg_faked 2014-01-02)" --quick-gen-key "$1 <$2>" ed25519 sign never \
		2>/dev/null
	gpg_fpr "$2"
}
RUSS=$(newkey "Russ Allbery" rra@debian.org)
DON=$(newkey "Don Armstrong" don@debian.org)
LUCAS=$(newkey "Lucas Nussbaum" leader@debian.org)
SAM=$(newkey "Sam Hartman" hartmans@debian.org)
newkey "Keith Packard (forged)" forger@example.net >/dev/null
# The keyring tenure trusts holds everyone but the forger.
gpg_export_keyring "$D/keys/keyring.gpg" rra@debian.org don@debian.org \
	leader@debian.org hartmans@debian.org
# The scratch configuration gets the demo's role keys and this tree's
# templates.  The example ledger starts in 1998, long before any term
# rule: unless it records when its rule took effect, the scratch copy
# gets the debian rule as of 2015-01-01 (GR 2014_004) and no rule before
# it, so that 1998-2014 are not judged by a rule made in 2014.
sed -i -e "s/^chair = .*/chair = $DON/" -e "s/^leader = .*/leader = $LUCAS/" \
	-e "s|^templates = .*|templates = $templates|" \
	"$D/tenure.conf"
if ! grep -q '^Event: rule' "$D/debian-ctte-2014.ledger"; then
	rule=$(sed -n '/^\[rule\]/,/^\[/s/^name = //p' "$D/tenure.conf")
	sed -i '/^\[rule\]/,/^\[/s/^name = .*/name = none/' "$D/tenure.conf"
	printf '\nEvent: rule\nDate: 2015-01-01\nRule: %s\nSource: import\n' \
		"${rule:-debian}" >>"$D/debian-ctte-2014.ledger"
fi
# The 2014 ledger has no fingerprints, and a member acts by mail only
# with the key the ledger records (an address on a key proves nothing).
# The administrator, having checked Russ's and Don's fingerprints with
# them, records them as key events (`tenure check-config` lists who
# lacks one); the configured chair holds the chair only as the member
# the ledger records with that key.
printf '\nEvent: key\nDate: 2014-01-02\nMember: Russ Allbery <rra@debian.org>\nFingerprint: %s\nSource: import\n' \
	"$RUSS" >>"$D/debian-ctte-2014.ledger"
printf '\nEvent: key\nDate: 2014-01-02\nMember: Don Armstrong <don@debian.org>\nFingerprint: %s\nSource: import\n' \
	"$DON" >>"$D/debian-ctte-2014.ledger"
echo "   chair  (Don Armstrong)  $DON"
echo "   leader (Lucas Nussbaum) $LUCAS"
echo "   member (Russ Allbery)   $RUSS"
echo "   newcomer (Sam Hartman)  $SAM"

# sign_example FILE WHEN: the example mail FILE, signed (PGP/MIME) by its
# Signer at WHEN and delivered to the list Maildir five minutes later.
sign_example() {
	local file=$1 when=$2 name signer
	name=$(basename "$file" .txt)
	signer=$(sed -n 's/^Signer: //p' "$file")
	sed '1,/^$/d' "$file" | sed "s/@SAM@/$SAM/" >"$D/m/$name.body"
	mime_text_part "$(cat "$D/m/$name.body")" >"$D/m/$name.part"
	pgpmime_entity "$(gpg_fpr "$signer")" "$D/m/$name.part" -- \
		"$(gpg_faked "$when")" >"$D/m/$name.entity" 2>/dev/null
	{
		sed -n '/^From: /p' "$file"
		printf 'To: debian-ctte@lists.debian.org\n'
		sed -n '/^Subject: /p' "$file"
		printf 'Date: %s\n' "$(LC_ALL=C date -u -R -d "$when")"
		printf 'Message-ID: <%s.demo@example.org>\nMIME-Version: 1.0\n' "$name"
		cat "$D/m/$name.entity"
	} >"$D/m/$name.eml"
	deliver "$D/mail/list" "$D/m/$name.eml" "$(date -u -d "$when 5 minutes" +%s)"
	echo "   signed $name by $signer at $when"
}

echo "== Signing the example mails"
sign_example "$here/mail/1-resign.txt" "2014-11-16 20:00:00 UTC"
sign_example "$here/mail/2-recommend.txt" "2014-11-20 10:00:00 UTC"
sign_example "$here/mail/3-appoint.txt" "2014-11-24 09:00:00 UTC"
sign_example "$here/mail/4-forged.txt" "2014-11-24 12:00:00 UTC"

cp "$D/debian-ctte-2014.ledger" "$D/ledger.before"
echo "== tenure run --once --now 2014-11-25T12:00:00Z"
status=0
"$TENURE" --config "$D/tenure.conf" --now 2014-11-25T12:00:00Z run --once \
	2>"$D/run.log" || status=$?
sed 's/^/   /' "$D/run.log"
echo "   (exit status $status)"

echo
echo "== Ledger events added"
diff "$D/ledger.before" "$D/debian-ctte-2014.ledger" | sed -n 's/^> /   /p'

echo
echo "== Mail in the outbox"
found=
for f in "$D"/mail/outbox/new/* "$D"/mail/outbox/cur/* "$D"/state/outbox/queue/*; do
	[ -f "$f" ] || continue
	found=1
	to=$(sed -n 's/^To: //p' "$f" | head -n 1)
	subject=$(sed -n 's/^Subject: //p' "$f" | head -n 1)
	echo "   to $to: $subject"
done
[ -n "$found" ] || echo "   (none)"

echo
echo "== Refused"
grep '^refused' "$D/run.log" | sed 's/^/   /' || echo "   (none)"
exit "$status"
