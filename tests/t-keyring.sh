#!/bin/sh
# t-keyring.sh: the configured keyring files are read in place, as gpgv
# reads them: nothing is imported into tenure's GnuPG home, a key dropped
# or revoked in a file counts from the next message, a .gpg keyring and a
# .kbx keybox work side by side, and the bot key (in the home, in no
# keyring file) still signs.  Two `tenure run --once` passes over a
# Maildir stand for the daemon's messages.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"

gpg_world_init
W=$TEST_DIR
cd "$W" || exit 1
mkdir -p m kbx

ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
CAROL=$(gpg_new_key "Carol Member" carol@example.org)
HEIDI=$(gpg_new_key "Heidi Member" heidi@example.org)
gpg_export_keyring "$W/members.gpg" alice@example.org bob@example.org \
	heidi@example.org
# Keyring files that lose keys are judged by their age (a file being
# rewritten is empty or short at first): these were written long ago.
touch -d '1 hour ago' "$W/members.gpg"
# Carol's key is in a keybox, the format of gpg's own pubring.kbx.
gpg_export_keyring "$W/carol.gpg" carol@example.org
mkdir -m 700 "$W/kbxhome"
gpg --homedir "$W/kbxhome" --batch --quiet --import "$W/carol.gpg" 2>/dev/null
cp "$W/kbxhome/pubring.kbx" "$W/kbx/others.kbx"

# tenure's home, with the bot key made there as an administrator would.
G=$W/g
mkdir -m 700 "$G"
test_cleanup "gpgconf --homedir '$G' --kill all"
gpg --homedir "$G" --batch --quiet --passphrase '' --quick-gen-key \
	'Tenure Bot <tenure@example.org>' ed25519 sign never 2>/dev/null
BOT=$(gpg --homedir "$G" --with-colons --list-secret-keys 2>/dev/null |
	awk -F: '$1 == "fpr" { print $10; exit }')

year_ago=$(date -u -d '1 year ago' +%Y-%m-%d)
: >ledger
for who in "Alice Member:alice:$ALICE" "Bob Member:bob:$BOB" \
	"Carol Member:carol:$CAROL" "Heidi Member:heidi:$HEIDI"; do
	name=${who%%:*}
	rest=${who#*:}
	printf 'Event: appoint\nDate: %s\nMember: %s <%s@example.org>\nFingerprint: %s\nSource: import\n\n' \
		"$year_ago" "$name" "${rest%%:*}" "${rest#*:}" >>ledger
done

write_conf() { # KEYRING-VALUE
	cat >tenure.conf <<EOF
[committee]
name = Test Committee
templates = $top_srcdir/templates
list = debian-ctte@lists.debian.org
ledger = ledger
state-dir = state

[rule]
name = none

[keys]
keyring = $1
gnupg-home = g
bot-key = $BOT

[source]
url = maildir:inbox

[sink]
url = maildir:sent
from = tenure@example.org
EOF
}
write_conf "members.gpg; kbx/others.kbx"

# signed_resignation WHO FILE: a clearsigned resignation from WHO.
n=0
signed_resignation() {
	n=$((n + 1))
	clearsigned_entity "$1@example.org" "Tenure: resign" >"m/$n.entity"
	mail_message "$1@example.org" "resign-$n@example.org" "m/$n.entity" >"$2"
}

# run_with FILE: FILE into the inbox, then one pass; the log goes to
# $W/log, the exit status to $W/status.
run_with() {
	deliver inbox "$1"
	"$TENURE" --config tenure.conf run --once >out 2>log
	echo $? >status
}

resign() {
	signed_resignation "$1" "m/$1.eml"
	run_with "m/$1.eml"
}

resigned() {
	grep -c "^Member: .* <$1@example.org>" ledger | tr -d ' '
}

resign alice
test_begin "a member whose key is in a .gpg keyring file resigns"
test_expect_equal "0 2" "$(cat status) $(resigned alice)"

resign carol
test_begin "a member whose key is in a second keyring file, a .kbx keybox, resigns"
test_expect_equal "0 2" "$(cat status) $(resigned carol)"

test_begin "nothing from the keyring files is imported into tenure's GnuPG home"
gpg --homedir "$G" --no-options --batch --with-colons --list-keys 2>/dev/null |
	awk -F: '$1 == "fpr" { print $10 }' >home-keys
test_expect_equal "$BOT" "$(cat home-keys)"

test_begin "the configured keyring files are left as they were"
gpg_export_keyring "$W/expected.gpg" alice@example.org bob@example.org \
	heidi@example.org
if cmp -s expected.gpg members.gpg && [ ! -e members.gpg~ ] && [ ! -e kbx/others.kbx~ ]; then
	test_pass
else
	test_fail "a keyring file was written to"
fi

test_begin "the announcement is signed by the bot key, which no keyring file holds"
announcement=$(grep -l 'Alice Member' sent/new/* 2>/dev/null | head -n1)
if [ -n "$announcement" ] && grep -q 'application/pgp-signature' "$announcement"; then
	test_pass
else
	test_fail "no signed announcement of Alice's resignation" "$(cat log)"
fi

# Bob's key is dropped from the file and the file keeps its old time:
# what counts is what the file holds when the message is checked.
touch -r members.gpg stamp
gpg_export_keyring "$W/members.gpg" heidi@example.org
touch -r stamp members.gpg
resign bob
# Bob serves: his recorded key in no keyring file is tenure's problem,
# not his (t-keyring-missing.sh): no verdict, the mail waits.
test_begin "a key dropped from a keyring file no longer counts at the next message"
if [ "$(resigned bob)" = 1 ] && ! grep -q '^refused ' log &&
	grep '^deferred ' log | grep -q "no configured keyring holds the key $BOB"; then
	test_pass
else
	test_fail "expected Bob's mail to wait, his key named" "$(cat log)"
fi

# Heidi signs before her key is revoked: gpg will not sign after.
signed_resignation heidi m/heidi.eml
gpg_revoke heidi@example.org
gpg_export_keyring "$W/members.gpg" heidi@example.org
run_with m/heidi.eml
test_begin "a key revoked in a keyring file is refused at the next message"
if [ "$(resigned heidi)" = 1 ] && grep -q 'reason="revoked key"' log; then
	test_pass
else
	test_fail "expected a refusal for a revoked key" "$(cat log)"
fi

test_begin "audit re-verifies the archive against the keyrings in place"
gpg_export_keyring "$W/members.gpg" alice@example.org bob@example.org
"$TENURE" --config tenure.conf audit >audit.out 2>audit.err; rc=$?
test_expect_equal 0 "$rc"

test_begin "keys an earlier version imported into the home are removed; the bot key stays"
gpg --homedir "$G" --no-options --batch --quiet --import members.gpg 2>/dev/null
echo "old stamp" >"$G/tenure-keyrings"
"$TENURE" --config tenure.conf run --once >out 2>log
gpg --homedir "$G" --no-options --batch --with-colons --list-keys 2>/dev/null |
	awk -F: '$1 == "fpr" { print $10 }' >home-keys
test_expect_equal "$BOT no-stamp" "$(cat home-keys) $([ -e "$G/tenure-keyrings" ] || echo no-stamp)"

test_begin "a keyring file that is missing stops the run with its name"
write_conf "members.gpg;missing.gpg"
resign alice
test_expect_equal "1 yes" "$(cat status) $(grep -q 'missing.gpg: No such file' log && echo yes)"

test_begin "an armoured keyring is refused: gpg reads only binary keyrings in place"
gw --armor --export alice@example.org >armoured.asc 2>/dev/null
write_conf "armoured.asc"
resign alice
test_expect_equal "1 yes" "$(cat status) $(grep -q 'armoured.asc: an armoured keyring' log && echo yes)"

# --- The committee keyring: only the committee's keys, and a keyring
# being rewritten is no verdict (the mail waits, then counts) ----------
ERIN=$(gpg_new_key "Erin Member" erin@example.org)
FAY=$(gpg_new_key "Fay Member" fay@example.org)
OSCAR=$(gpg_new_key "Oscar Outsider" oscar@example.org)
gpg_export_keyring "$W/new.gpg" erin@example.org fay@example.org
gpg_export_keyring "$W/outsiders.gpg" oscar@example.org
touch -d '1 hour ago' new.gpg outsiders.gpg
for who in "Erin Member:erin:$ERIN" "Fay Member:fay:$FAY"; do
	name=${who%%:*}
	rest=${who#*:}
	printf '\nEvent: appoint\nDate: %s\nMember: %s <%s@example.org>\nFingerprint: %s\nSource: import\n' \
		"$year_ago" "$name" "${rest%%:*}" "${rest#*:}" >>ledger
done
write_conf "members.gpg; kbx/others.kbx; new.gpg; outsiders.gpg"
rm -rf inbox

in_new() { ls inbox/new 2>/dev/null | wc -l | tr -d ' '; }

cp new.gpg new.whole
head -c $(($(wc -c <new.whole) - 7)) new.whole >new.gpg
signed_resignation erin m/erin.eml
run_with m/erin.eml
test_begin "a keyring file cut short (being rewritten) is no verdict: the mail waits"
if [ "$(resigned erin) $(in_new)" = "1 1" ] &&
	grep -q 'new.gpg is not whole (cut packet at byte' log &&
	! grep -q 'refused' log; then
	test_pass
else
	test_fail "expected Erin's resignation unread in new/ and the cut file named" \
		"$(cat log)"
fi

cp new.whole new.gpg
touch -d '1 hour ago' new.gpg
# The mail waits for its next try (a minute later, retry.h).
"$FAKED" +2m "$TENURE" --config tenure.conf run --once >out 2>log
test_begin "... and counts once the file is whole again"
test_expect_equal "0 2 0" "$(echo $?) $(resigned erin) $(in_new)"

test_begin "verification reads only the committee's keys, not the rest of the keyrings"
gpg --homedir "$W/kbxhome" --no-options --batch --with-colons --show-keys \
	"$G/committee.gpg" 2>/dev/null | awk -F: '$1 == "pub" { p = 1; next }
	p && $1 == "fpr" { print $10; p = 0 }' | sort >committee-keys
# Heidi's key is in no file any more (dropped above).
printf '%s\n' "$ALICE" "$BOB" "$CAROL" "$ERIN" "$FAY" | sort >expected-keys
if cmp -s expected-keys committee-keys && ! grep -q "$OSCAR" committee-keys; then
	test_pass
else
	test_fail "$(diff -u expected-keys committee-keys)"
fi

signed_resignation oscar m/oscar.eml
run_with m/oscar.eml
test_begin "a keyring key that is not the committee's is refused as not a member, with a transcript"
if grep -q "signer=$OSCAR reason=.*is not a member" log &&
	grep -q 'kind=reply' log && grep -q 'recipients=oscar@example.org' log; then
	test_pass
else
	test_fail "expected the outsider refused as no member, and told" "$(cat log)"
fi

: >new.gpg
signed_resignation fay m/fay.eml
run_with m/fay.eml
test_begin "a keyring file emptied a moment ago is no verdict either: the mail waits"
if [ "$(resigned fay) $(in_new)" = "1 1" ] && grep -q 'new.gpg holds 0 keys, 2 when last read' log; then
	test_pass
else
	test_fail "expected Fay's resignation to wait" "$(cat log)"
fi
cp new.whole new.gpg
touch -d '1 hour ago' new.gpg

# The daemon, with gpg.conf removed under it between two messages.
sed -i 's/^url = maildir:inbox$/url = maildir:inbox\npoll-interval = 1/' tenure.conf
# Its clock two minutes on: Fay's mail is due for its next try
# (retry.h).
"$FAKED" +2m "$TENURE" --config tenure.conf run >daemon.out 2>daemon.log &
daemon=$!
test_cleanup "kill $daemon"
wait_for() { # SECONDS CONDITION
	i=0
	while [ $i -lt $(($1 * 10)) ]; do
		eval "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
wait_for 20 '[ "$(resigned fay)" = 2 ]'
rm "$G/gpg.conf"
# Heidi's key was dropped from members.gpg above; Bob's too: Alice's
# is still there, and she resigns again (a new signature).
signed_resignation alice m/alice2.eml
deliver inbox m/alice2.eml
test_begin "gpg.conf removed under the daemon is written again, and the next command counts"
# Alice's term has ended already: her mail is refused for that, which
# only a good signature by her key can earn.
wait_for 20 'grep -q "msgid=<resign-$n@example.org>.*signer=$ALICE" daemon.log'
if grep -q "msgid=<resign-$n@example.org>.*signer=$ALICE" daemon.log && [ -s "$G/gpg.conf" ] &&
	grep -q 'problem="changed or removed under tenure; written again"' daemon.log; then
	test_pass
else
	test_fail "expected Alice's second resignation recorded" "$(cat daemon.log)"
fi
kill $daemon 2>/dev/null
wait $daemon 2>/dev/null

test_done
