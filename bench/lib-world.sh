# bench/lib-world.sh: the world the Maildir benchmarks share.  Source it
# with top_srcdir set; it makes, in W, a scratch directory removed at
# exit (its gpg agents stopped):
#   $W/world         a GnuPG home with Sam Signer's key, its fingerprint
#                    in $signer
#   $W/keyring.gpg   that key, the committee's keyring
#   $W/ledger        Carol Chair appointed
#   $W/tenure.conf   rule none, the keyring, source maildir:inbox, sink
#                    maildir:sent, every path relative to $W
W=$(mktemp -d /tmp/tn.XXXXXX)
cleanup() {
	gpgconf --homedir "$W/world" --kill all >/dev/null 2>&1 || true
	gpgconf --homedir "$W/g" --kill all >/dev/null 2>&1 || true
	rm -rf "$W"
}
trap cleanup EXIT
mkdir -m 700 "$W/world"
gpg --homedir "$W/world" --batch --quiet --pinentry-mode loopback \
	--passphrase '' --quick-gen-key "Sam Signer <signer@example.org>" \
	ed25519 sign never 2>/dev/null
gpg --homedir "$W/world" --batch --export >"$W/keyring.gpg"
signer=$(gpg --homedir "$W/world" --with-colons --list-keys signer@example.org 2>/dev/null |
	awk -F: '$1 == "fpr" { print $10; exit }')

printf 'Event: appoint\nDate: 2024-01-01\nMember: Carol Chair <carol@example.org>\nSource: import\n' \
	>"$W/ledger"
cat >"$W/tenure.conf" <<EOF
[committee]
name = Bench Committee
list = debian-ctte@lists.debian.org
ledger = ledger
state-dir = state
templates = $top_srcdir/templates

[rule]
name = none

[keys]
keyring = keyring.gpg
gnupg-home = g

[source]
url = maildir:inbox

[sink]
url = maildir:sent
from = tenure@example.org
EOF
