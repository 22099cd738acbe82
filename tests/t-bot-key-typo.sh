#!/bin/sh
# t-bot-key-typo.sh: tenure never touches the administrator's keys
# (issue 26 item 2).  A [keys] bot-key with one character mistyped stops
# `run` (and `import`) before anything is removed, naming the secret key
# the GnuPG home does hold, and check-config says the same; a key with a
# secret part is never removed; a GnuPG home tenure did not fill itself
# (no stamp of an earlier version's import) keeps every key.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
cd "$W" || exit 1
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
OSCAR=$(gpg_new_key "Oscar Outsider" oscar@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org
gpg_export_keyring "$W/oscar.gpg" oscar@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE"
mkdir -p state

# The bot key, made in tenure's home as the administrator would.
mkdir -m 700 g
gpg --homedir g --batch --quiet --passphrase '' --quick-gen-key \
	'Tenure Bot <tenure@example.org>' ed25519 sign never 2>/dev/null
gpgconf --homedir g --kill all
BOT=$(gpg --homedir g --with-colons --list-secret-keys 2>/dev/null |
	awk -F: '$1 == "fpr" { print $10; exit }')
# One character off: the last hex digit, one more (F wraps to 0).
last=$(printf '%s' "$BOT" | tail -c 1)
case $last in
9) next=A ;;
F) next=0 ;;
[0-8]) next=$((last + 1)) ;;
*) next=$(printf '%s' "$last" | tr 'A-E' 'B-F') ;;
esac
TYPO=$(printf '%s' "$BOT" | sed "s/.\$/$next/")

# home_keys: the fingerprints of the primary keys in tenure's home, and
# whether each has its secret part ("FPR sec" or "FPR pub"), sorted.
home_keys() {
	{
		gpg --homedir g --no-options --batch --with-colons --list-secret-keys 2>/dev/null |
			awk -F: '$1 == "sec" { s = 1; next } s && $1 == "fpr" { print $10 " sec" } { s = 0 }'
		gpg --homedir g --no-options --batch --with-colons --list-keys 2>/dev/null |
			awk -F: '$1 == "pub" { p = 1; next } p && $1 == "fpr" { print $10 " pub" } { p = 0 }'
	} | sort | awk '{ if ($1 == last) next; print; last = $1 }'
	gpgconf --homedir g --kill all
}
home_keys >keys.before

committee_conf keys.bot-key="$TYPO"
"$TENURE" --config "$CONF" run --once >out 2>log
rc=$?
message="[keys] bot-key $TYPO is not in $W/g, which holds the secret key $BOT: mistyped?"

test_begin "run stops on a bot-key one character off, naming the key the home holds"
if [ "$rc" != 0 ] && grep -qF -- "$message" log; then
	test_pass
else
	test_fail "expected a non-zero exit and: $message" "got exit $rc:" "$(cat log)"
fi

test_begin "the mistyped bot-key removes nothing"
if grep -q keyring-cleanup log; then
	test_fail "$(cat log)"
else
	test_expect_equal_file keys.before "$(home_keys >keys.after; echo keys.after)"
fi

"$TENURE" --config "$CONF" check-config >cc.out 2>cc.err
rc=$?
test_begin "check-config says the same of the mistyped bot-key"
if [ "$rc" = 1 ] && [ "$(cat cc.out cc.err | grep -cF -- "$message")" = 1 ]; then
	test_pass
else
	test_fail "expected exit 1 and one line: $message" "got exit $rc:" \
		"$(cat cc.out cc.err)"
fi

test_begin "with the bot-key right, run goes on"
committee_conf keys.bot-key="$BOT"
"$TENURE" --config "$CONF" run --once >out 2>log
test_expect_equal 0 "$?"

# Someone else's keys in the home: Oscar's public key, and a second
# secret key of the administrator's.
gpg --homedir g --batch --quiet --import oscar.gpg 2>/dev/null
gpg --homedir g --batch --quiet --passphrase '' --quick-gen-key \
	'Admin <admin@example.org>' ed25519 sign never 2>/dev/null
home_keys >keys.before

test_begin "a home tenure did not fill keeps every key"
"$TENURE" --config "$CONF" run --once >out 2>log
if grep -q keyring-cleanup log; then
	test_fail "$(cat log)"
else
	test_expect_equal_file keys.before "$(home_keys >keys.after; echo keys.after)"
fi
test_begin "... and the log says that its public key besides the bot key counts"
if grep -q "^keyring home=$W/g other-keys=1 " log; then
	test_pass
else
	test_fail "$(cat log)"
fi

test_begin "keys an earlier version imported go; keys with a secret part stay"
echo "old stamp" >g/tenure-keyrings
"$TENURE" --config "$CONF" run --once >out 2>log
grep -v "^$OSCAR " keys.before >keys.expected
home_keys >keys.after
if [ -e g/tenure-keyrings ]; then
	test_fail "the stamp is still there" "$(cat log)"
else
	test_expect_equal_file keys.expected keys.after
fi

test_done
