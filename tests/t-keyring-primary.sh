#!/bin/sh
# t-keyring-primary.sh: the committee keyring holds each committee key
# once, by its primary fingerprint (issue 24 item 1).  Mallory, whose key
# is in a configured keyring as anyone's may be, attaches Alice's public
# primary key to his own key as an authentication subkey (no signature of
# Alice's is needed for that); Bob's key sits in two keyring files; so
# does Carol's, revoked in one of them.  In both orders of the files,
# Alice's and Bob's signed resignations are applied at once and Carol's
# is refused as revoked: nothing waits, nothing is "unknown key".  A
# second key of Mallory's, carrying the address of a member the ledger
# records without a key, also carries Erin's signing subkey: Erin's
# command signed with it is applied.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"

committee_init

# Mallory's key is older than Alice's, so that his binding of her key,
# dated when her key was made, is a valid one.
gw "$(gpg_faked '40 days ago')" --quick-gen-key "Mallory <mallory@example.org>" \
	ed25519 sign never 2>/dev/null
MALLORY=$(gpg_fpr mallory@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
CAROL=$(gpg_new_key "Carol Member" carol@example.org)
# Erin signs with a subkey of her key.
ERIN=$(gpg_new_key "Erin Member" erin@example.org)
ERIN_SIGNING=$(gpg_add_signing_subkey erin@example.org)

# gpg adds an existing key as a subkey by its keygrip, dated now: faking
# now to the key's own creation time gives the subkey Alice's
# fingerprint.  gpg needs the key's secret part for that (Mallory
# would not), so Mallory works in a copy of everyone's home, which keeps
# the world's own keys (and the key gpg signs Alice's mail with) as
# they were.
alice_created=$(gw --with-colons --list-keys "$ALICE" 2>/dev/null |
	awk -F: '$1 == "pub" { print $6; exit }')
alice_grip=$(gw --with-colons --with-keygrip --list-keys "$ALICE" 2>/dev/null |
	awk -F: '$1 == "grp" { print $10; exit }')
gpgconf --homedir "$GPG_WORLD" --kill all
MALLORY_HOME=$(mktemp -d /tmp/tn.XXXXXX)
test_cleanup "gpgconf --homedir '$MALLORY_HOME' --kill all; rm -rf '$MALLORY_HOME'"
cp -a "$GPG_WORLD/." "$MALLORY_HOME"
mg() {
	gpg --homedir "$MALLORY_HOME" --batch --quiet --no-tty \
		--pinentry-mode loopback --passphrase '' "$@"
}
printf 'addkey\n13\n%s\nS\nA\nQ\n0\nsave\n' "$alice_grip" |
	mg --expert --command-fd 0 --faked-system-time="$alice_created!" \
		--edit-key "$MALLORY" >/dev/null 2>&1
test_begin "Mallory's key carries Alice's primary key as a subkey (the set-up)"
mg --with-colons --list-keys "$MALLORY" 2>/dev/null |
	awk -F: '$1 == "sub" { sub_ = 1; next } sub_ && $1 == "fpr" { print $10 } { sub_ = 0 }' \
	>"$W/mallory-subkeys"
test_expect_equal "$ALICE" "$(cat "$W/mallory-subkeys")"
mg --export "$MALLORY" >"$W/mallory.gpg" 2>/dev/null

# Nina is a member the ledger records without a key, so keys carrying
# her address are read too (that she may learn how to have one
# recorded).  Anyone can put her address on a key: Mallory's second key
# carries it, and Erin's signing subkey, bound as a signing subkey of
# his own without the back-signature only Erin's subkey could make.
gw "$(gpg_faked '40 days ago')" --quick-gen-key "Nina Member <nina@example.org>" \
	ed25519 sign never 2>/dev/null
MALLORY2=$(gpg_fpr nina@example.org)
gpg_steal_subkey "$MALLORY2" "$ERIN_SIGNING" "$W/mallory2.gpg"
test_begin "Mallory's second key carries Erin's signing subkey, without its back-signature (the set-up)"
gpg --homedir "$MALLORY_HOME" --no-options --with-colons --import-options show-only \
	--import "$W/mallory2.gpg" 2>/dev/null |
	awk -F: '$1 == "sub" { c = $12 } $1 == "fpr" && c != "" { print c, $10; c = "" }' \
	>"$W/mallory2-subkeys"
backsigs=$(gpg --homedir "$GPG_WORLD" --list-packets "$W/mallory2.gpg" 2>/dev/null | grep -c 'subpkt 32')
test_expect_equal "s $ERIN_SIGNING 0" "$(cat "$W/mallory2-subkeys") $backsigs"
cat "$W/mallory2.gpg" >>"$W/mallory.gpg"

gpg_export_keyring "$W/members.gpg" alice@example.org bob@example.org \
	carol@example.org erin@example.org
gpg_export_keyring "$W/moved.gpg" bob@example.org
# Carol signs before her key is revoked (gpg signs with no revoked key).
for name in mallory-first mallory-last; do
	signed_mail "$CAROL" carol@example.org "carol-$name" "Tenure: resign" >/dev/null
done
gpg_revoke carol@example.org
gpg_export_keyring "$W/revoked.gpg" carol@example.org
# Written long ago: not a keyring caught being rewritten.
touch -d '1 hour ago' "$W"/*.gpg

MEMBERS="Alice Member <alice@example.org> $ALICE|Bob Member <bob@example.org> $BOB|Carol Member <carol@example.org> $CAROL|Erin Member <erin@example.org> $ERIN|Nina Member <nina@example.org>"

# round NAME KEYRINGS: a committee of its own (ledger, state, GnuPG home)
# reading KEYRINGS, and a resignation from each member.
round() {
	local name=$1 keyrings=$2
	local IFS='|'
	# shellcheck disable=SC2086
	committee_ledger --file "$W/ledger-$name" $MEMBERS
	unset IFS
	committee_conf committee.ledger="ledger-$name" \
		committee.state-dir="state-$name" keys.gnupg-home="g-$name" \
		keys.keyring="$keyrings"
	test_cleanup "gpgconf --homedir '$W/g-$name' --kill all"

	before=$(events)
	import_mail "$(signed_mail "$ALICE" alice@example.org "alice-$name" "Tenure: resign")"
	expect_event --applied "$name: Alice's resignation is applied, whatever Mallory's key carries" \
		"Event: resign
Member: Alice Member"
	test_begin "$name: Alice's mail is never taken for an unknown key, nor waits"
	if grep -Eq 'unknown key|deferred|retry|could not be decided' "$W/log"; then
		test_fail "$(cat "$W/log")"
	else
		test_pass
	fi

	before=$(events)
	import_mail "$(signed_mail "$ERIN_SIGNING!" erin@example.org "erin-$name" "Tenure: resign")"
	expect_event --applied "$name: Erin's resignation, signed with her subkey, is applied, whatever a key with a member's address carries" \
		"Event: resign
Member: Erin Member"

	before=$(events)
	import_mail "$(signed_mail "$BOB" bob@example.org "bob-$name" "Tenure: resign")"
	expect_event --applied "$name: Bob's resignation is applied, his key in two keyring files" \
		"Event: resign
Member: Bob Member"

	before=$(events)
	outbox_before=$(outbox_count)
	import_mail "$W/m/carol-$name.eml"
	expect_refused "$name: Carol's key, revoked in one of two files, is revoked" \
		"revoked key"
}

round mallory-first "mallory.gpg; members.gpg; moved.gpg; revoked.gpg"
round mallory-last "revoked.gpg; moved.gpg; members.gpg; mallory.gpg"

# Alice's own key dropped from the keyrings: Mallory's key, carrying it
# as a subkey, does not hold it for her.  Her recorded key in no keyring
# is tenure's problem (t-keyring-missing.sh): the mail waits.
IFS='|'
# shellcheck disable=SC2086
committee_ledger --file "$W/ledger-dropped" $MEMBERS
unset IFS
committee_conf committee.ledger=ledger-dropped committee.state-dir=state-dropped \
	keys.gnupg-home=g-dropped keys.keyring="mallory.gpg; moved.gpg"
test_cleanup "gpgconf --homedir '$W/g-dropped' --kill all"
before=$(events)
import_mail "$(signed_mail "$ALICE" alice@example.org alice-dropped "Tenure: resign")"
test_begin "Alice's key in no keyring but as Mallory's subkey: her mail waits, her key named"
if [ "$(events)" = "$before" ] && ! grep -q '^refused ' "$W/log" &&
	grep '^deferred ' "$W/log" | grep -q "no configured keyring holds the key $ALICE"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi

# Alice leads a committee whose ledger does not name her: status names
# her from her key's user ID, not from Mallory's key that carries it.
committee_ledger --file "$W/ledger-leader" "Bob Member <bob@example.org> $BOB"
committee_conf committee.ledger=ledger-leader committee.state-dir=state-leader \
	keys.gnupg-home=g-leader keys.keyring="mallory.gpg; members.gpg" \
	roles.leader="$ALICE"
test_cleanup "gpgconf --homedir '$W/g-leader' --kill all"
mkdir -p "$W/state-leader"
"$TENURE" --config "$CONF" status --format=json >"$W/status.json" 2>"$W/status.err"
test_begin "status names a leader from her own key's user ID, whatever key carries hers"
if /usr/bin/python3 -c 'import json, sys
doc = json.load(open(sys.argv[1]))
leader = doc["roles"]["leader"]
sys.exit(0 if leader["holder"]["name"] == "Alice Member" and
         leader["source"] == "keyring" else 1)' "$W/status.json"; then
	test_pass
else
	test_fail "$(cat "$W/status.json" "$W/status.err")"
fi

test_begin "Mallory's first key never enters a committee keyring"
for g in "$W"/g-*/committee.gpg; do
	gpg --homedir "$GPG_WORLD" --no-options --with-colons --import-options show-only --import "$g" 2>/dev/null
done | awk -F: '$1 == "pub" { pub = 1; next } pub && $1 == "fpr" { print $10 } { pub = 0 }' |
	grep -c "$MALLORY" >"$W/mallory-count"
test_expect_equal 0 "$(cat "$W/mallory-count")"

test_done
