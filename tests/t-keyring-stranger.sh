#!/bin/sh
# t-keyring-stranger.sh: a key the keyring files hold but that is no
# one's on the committee gets the verdict it got when gpgv read every
# file whole: a good signature refused as not a member, with a
# transcript; a revoked key refused as revoked; a key in two files (gpg
# lists it twice) as an unknown key.  gpgv now reads only the keyblocks
# that carry the signer's key (issue 39 item 3), from a .gpg file or a
# .kbx keybox, by primary key or signing subkey.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
cd "$W" || exit 1
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
OSCAR=$(gpg_new_key "Oscar Outsider" oscar@example.org)
PAT=$(gpg_new_key "Pat Outsider" pat@example.org)
PAT_SIGNING=$(gpg_add_signing_subkey pat@example.org)
QUINN=$(gpg_new_key "Quinn Outsider" quinn@example.org)
RUTH=$(gpg_new_key "Ruth Outsider" ruth@example.org)
gpg_export_keyring keyring.gpg alice@example.org
gpg_export_keyring outsiders.gpg oscar@example.org quinn@example.org
gpg_export_keyring quinn.gpg quinn@example.org
# Ruth signs, then her key is revoked in its keyring.
RUTH_MAIL=$(signed_mail --clearsign "$RUTH" ruth@example.org ruth "Tenure: resign")
gpg_revoke ruth@example.org
gpg_export_keyring ruth.gpg ruth@example.org
# Pat's key is in a keybox, the format of gpg's own pubring.kbx.
gpg_export_keyring pat.gpg pat@example.org
mkdir -m 700 kbxhome
test_cleanup "gpgconf --homedir '$W/kbxhome' --kill all"
gpg --homedir kbxhome --batch --quiet --import pat.gpg 2>/dev/null
cp kbxhome/pubring.kbx others.kbx
touch -d '1 hour ago' ./*.gpg others.kbx

committee_ledger "Alice Member <alice@example.org> $ALICE"
committee_conf roles.chair="$ALICE" \
	keys.keyring="keyring.gpg;outsiders.gpg;others.kbx;quinn.gpg;ruth.gpg"

# claimed: the primary keys, one line each, of the keyblocks gpgv read
# last in tenure's GnuPG home, and how many keyblocks.
claimed() {
	gpg --homedir kbxhome --no-options --batch --with-colons --show-keys \
		g/claim/claimant.gpg 2>/dev/null | awk -F: '$1 == "pub" { p = 1; next }
		p && $1 == "fpr" { print $10; p = 0 }' | sort -u
	gpg --homedir kbxhome --no-options --batch --list-packets \
		g/claim/claimant.gpg 2>/dev/null | grep -c '^:public key packet:'
}

# gpgv, counting its runs in $W/gpgv-runs.
printf '#!/bin/sh\necho run >>"%s/gpgv-runs"\nexec gpgv "$@"\n' "$W" >count-gpgv
chmod +x count-gpgv
TENURE_GPGV_PROGRAM=$W/count-gpgv
export TENURE_GPGV_PROGRAM

# The committee keyring is made here, by the member's mail.
before=$(events)
import_mail "$(signed_mail --clearsign "$ALICE" alice@example.org alice "Tenure: resign")"
expect_event --applied "a member's resignation counts (the set-up)" "^Event: resign"

before=$(events)
: >gpgv-runs
import_mail "$(signed_mail --clearsign "$OSCAR" oscar@example.org oscar "Tenure: resign")"
expect_refused --reply "a non-member's key in a .gpg keyring: refused as not a member, with a transcript" \
	"is not a member"
test_begin "... gpgv read the keyblock of Oscar's key alone, not the keyring files"
test_expect_equal "$OSCAR 1" "$(claimed | tr '\n' ' ' | sed 's/ $//')"
test_begin "... in one gpgv run, as a member's signature takes"
test_expect_equal "1" "$(wc -l <gpgv-runs | tr -d ' ')"

before=$(events)
import_mail "$(signed_mail --clearsign "$PAT_SIGNING!" pat@example.org pat "Tenure: resign")"
expect_refused --reply "a non-member's signing subkey, the key in a keybox: refused as not a member" \
	"is not a member"
test_begin "... the refusal names Pat's primary key"
test_expect_equal "1" "$(grep -c "refused .*signer=$PAT " log)"

import_mail "$(signed_mail --clearsign "$QUINN" quinn@example.org quinn "Tenure: resign")"
expect_refused "a non-member's key in two keyring files: refused as an unknown key, as before" \
	"unknown key"
test_begin "... gpgv read both copies of Quinn's key, in the files' order"
test_expect_equal "$QUINN 2" "$(claimed | tr '\n' ' ' | sed 's/ $//')"

import_mail "$RUTH_MAIL"
expect_refused "a non-member's key revoked in its keyring: refused as revoked" "revoked key"

test_done
