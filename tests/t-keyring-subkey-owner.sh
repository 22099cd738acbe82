#!/bin/sh
# t-keyring-subkey-owner.sh: a signing subkey counts only under its own
# primary key, with its back-signature (issue 24 item 1).  Mallory is
# himself a recorded member; he binds Erin's public signing subkey under
# his own key as a signing subkey, without the back-signature only
# Erin's subkey could make.  Both keys are chosen by primary
# fingerprint, so both carry the subkey.  In both orders of the keyring
# files, Erin's resignation signed with her subkey is applied as Erin's,
# at once: never as Mallory's, never waiting, clearsigned too, and a
# tampered one is a bad signature.  Mallory's own key still speaks for
# him alone.  With Erin's key dropped from the keyrings, her
# mail waits, naming her key, though Mallory's still carries the subkey.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"

committee_init

# Mallory's key is older than Erin's subkey, so that his binding of it,
# dated when the subkey was made, is a valid one.
MALLORY=$(gpg_new_key "Mallory Member" mallory@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
ERIN=$(gpg_new_key "Erin Member" erin@example.org)
ERIN_SIGNING=$(gpg_add_signing_subkey erin@example.org)
gpg_steal_subkey "$MALLORY" "$ERIN_SIGNING" "$W/mallory.gpg"

test_begin "Mallory's key carries Erin's signing subkey, without its back-signature (the set-up)"
gpg --homedir "$GPG_WORLD" --no-options --with-colons --import-options show-only \
	--import "$W/mallory.gpg" 2>/dev/null |
	awk -F: '$1 == "pub" { p = 1 } $1 == "sub" { c = $12; p = 0 }
		$1 == "fpr" && p { print "pub", $10; p = 0 }
		$1 == "fpr" && c != "" { print c, $10; c = "" }' >"$W/mallory-keys"
backsigs=$(gpg --homedir "$GPG_WORLD" --list-packets "$W/mallory.gpg" 2>/dev/null | grep -c 'subpkt 32')
test_expect_equal "pub $MALLORY s $ERIN_SIGNING 0" \
	"$(cat "$W/mallory-keys" | tr '\n' ' ')$backsigs"

gpg_export_keyring "$W/members.gpg" alice@example.org erin@example.org
gpg_export_keyring "$W/no-erin.gpg" alice@example.org
# Written long ago: not a keyring caught being rewritten.
touch -d '1 hour ago' "$W"/*.gpg

MEMBERS="Alice Member <alice@example.org> $ALICE|Erin Member <erin@example.org> $ERIN|Mallory Member <mallory@example.org> $MALLORY"

# committee NAME KEYRINGS: a committee of its own (ledger, state, GnuPG
# home) reading KEYRINGS.
committee() {
	local name=$1 keyrings=$2
	local IFS='|'
	# shellcheck disable=SC2086
	committee_ledger --file "$W/ledger-$name" $MEMBERS
	unset IFS
	committee_conf committee.ledger="ledger-$name" \
		committee.state-dir="state-$name" keys.gnupg-home="g-$name" \
		keys.keyring="$keyrings"
	test_cleanup "gpgconf --homedir '$W/g-$name' --kill all"
}

# round NAME KEYRINGS: Erin's resignation signed with her subkey, then
# Mallory's with his own key, from Erin's address.
round() {
	local name=$1
	committee "$@"

	before=$(events)
	import_mail "$(signed_mail "$ERIN_SIGNING!" erin@example.org "erin-$name" "Tenure: resign")"
	expect_event --applied "$name: Erin's resignation, signed with her subkey, is applied as Erin's" \
		"Event: resign
Member: Erin Member"
	test_begin "$name: ... at once, never as Mallory's, nothing waits"
	if resigned Mallory ||
		grep -Eq 'unknown key|deferred|retry|could not be (decided|checked)' "$W/log"; then
		test_fail "$(cat "$W/log")" "$(last_event)"
	else
		test_pass
	fi

	before=$(events)
	import_mail "$(signed_mail "$MALLORY" erin@example.org "mallory-$name" "Tenure: resign")"
	expect_event --applied "$name: Mallory's own key signs for Mallory, whatever address he writes from" \
		"Event: resign
Member: Mallory Member"
}

round mallory-first "mallory.gpg; members.gpg"
round mallory-last "members.gpg; mallory.gpg"

# A clearsigned block, whose text gpgv replaces as it verifies: each key
# that carries the subkey is tried on the mail as it came.
committee clearsigned "mallory.gpg; members.gpg"
before=$(events)
import_mail "$(signed_mail --clearsign "$ERIN_SIGNING!" erin@example.org erin-clearsigned "Tenure: resign")"
expect_event --applied "clearsigned: Erin's resignation, signed with her subkey, is applied as Erin's" \
	"Event: resign
Member: Erin Member"

# A signature bad under one key that carries the subkey is bad under
# all: refused, not left waiting.
committee tampered "mallory.gpg; members.gpg"
signed_mail "$ERIN_SIGNING!" erin@example.org erin-tampered "Tenure: resign" >/dev/null
sed 's/^Tenure: resign$/Tenure: resigm/' "$W/m/erin-tampered.eml" >"$W/m/tampered.eml"
before=$(events)
outbox_before=$(outbox_count)
import_mail "$W/m/tampered.eml"
expect_refused "tampered: a bad signature by the contested subkey is refused as bad" \
	"bad signature"

# Erin's key dropped from the keyrings: Mallory's key, carrying her
# subkey, does not sign for her, and her recorded key in no keyring is
# tenure's problem (t-keyring-missing.sh): the mail waits, naming it.
cp "$W/members.gpg" "$W/dropped.gpg"
touch -d '1 hour ago' "$W/dropped.gpg"
committee dropped "dropped.gpg; mallory.gpg"
before=$(events)
import_mail "$(signed_mail "$ALICE" alice@example.org alice-dropped "Tenure: resign")"
expect_event --applied "dropped: with Erin's key in a keyring, a resignation is applied" \
	"Event: resign
Member: Alice Member"
cp "$W/no-erin.gpg" "$W/dropped.gpg"
touch -d '1 hour ago' "$W/dropped.gpg"
before=$(events)
import_mail "$(signed_mail "$ERIN_SIGNING!" erin@example.org erin-dropped "Tenure: resign")"
test_begin "Erin's key in no keyring, her subkey still on Mallory's: her mail waits, her key named"
if [ "$(events)" = "$before" ] && ! grep -q '^refused ' "$W/log" &&
	grep '^deferred ' "$W/log" | grep -q "no configured keyring holds the key $ERIN"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi

test_done
