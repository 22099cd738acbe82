#!/bin/sh
# t-admin.sh: what an administrator meets following README.Debian, as far
# as it can be tried without root (t-privilege.sh has the rest): the
# history file named as such, the default configuration named by
# TENURE_CONFIG, no gpg-agent left running after a command, and the
# template units the same as the plain ones.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v gpg-connect-agent >/dev/null || test_skip_all "gpg-connect-agent is not installed"

committee_init
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org
committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE"

# --- tenure init --history -----------------------------------------------

test_begin "a history file that cannot be read is named as the history file"
"$TENURE" init --ledger "$W/new.ledger" --history "$W/no-such-history" \
	>"$W/out" 2>&1
status=$?
test_expect_equal "1 tenure init: $W/no-such-history: cannot read the history file: No such file or directory" \
	"$status $(cat "$W/out")"

test_begin "a history that is no ledger is named by its file and line"
printf 'Event: appoint\nDate: 2024-13-01\nMember: A <a@example.org>\n' >"$W/bad-history"
"$TENURE" init --ledger "$W/new.ledger" --history "$W/bad-history" >"$W/out" 2>&1
status=$?
if [ $status = 1 ] && grep -q "^tenure init: $W/bad-history:2: " "$W/out" &&
	[ ! -e "$W/new.ledger" ]; then
	test_pass
else
	test_fail "exit $status, expected an error at bad-history:2 and no ledger" "$(cat "$W/out")"
fi

# --- The default configuration --------------------------------------------

committee_conf committee.name="Env Committee" roles.chair="$CAROL" roles.leader="$CAROL"
test_begin "without --config, tenure reads \$TENURE_CONFIG"
TENURE_CONFIG=$CONF "$TENURE" status >"$W/out" 2>&1
status=$?
if [ $status = 0 ] && head -n 1 "$W/out" | grep -q 'Env Committee'; then
	test_pass
else
	test_fail "exit $status" "$(cat "$W/out")"
fi

test_begin "... and names it when it is missing"
"$TENURE" status >"$W/out" 2>&1
status=$?
if [ $status = 1 ] && grep -qF "$TENURE_CONFIG" "$W/out"; then
	test_pass
else
	test_fail "exit $status, expected an error naming $TENURE_CONFIG" "$(cat "$W/out")"
fi

# --- Nothing tenure starts outlives it -------------------------------------

# The bot key in tenure's GnuPG home, made as README.Debian says, then
# the agent that made it stopped as it says.
mkdir -m 0700 "$W/g"
gpg --homedir "$W/g" --batch --passphrase '' \
	--quick-gen-key 'tenure <tenure@example.org>' ed25519 sign never 2>/dev/null
gpgconf --homedir "$W/g" --kill gpg-agent
BOT=$(gpg --homedir "$W/g" --with-colons --list-keys 2>/dev/null |
	awk -F: '$1 == "fpr" { print $10; exit }')
committee_conf roles.chair="$CAROL" roles.leader="$CAROL" keys.bot-key="$BOT"

# agent_answers: a gpg-agent answers on the socket of tenure's home
# (gpg-connect-agent exits 0 either way; only a running agent says its
# pid).
agent_answers() {
	gpg-connect-agent --homedir "$W/g" --no-autostart 'GETINFO pid' /bye 2>/dev/null |
		grep -q '^D '
}

test_begin "no gpg-agent runs for tenure's GnuPG home before tenure runs"
# gpgconf --kill only asks the agent to go: it may be exiting still.
wait_for 10 '! agent_answers'
if agent_answers; then
	test_fail "an agent answers already"
else
	test_pass
fi

test_begin "tenure run --once signs its announcement and leaves no gpg-agent running"
deliver "$W/inbox" "$(signed_mail "$ALICE" alice@example.org resign "Tenure: resign
Effective: $(date -u -d '+30 days' +%Y-%m-%d)")"
"$TENURE" --config "$CONF" run --once >"$W/out" 2>&1
status=$?
if [ $status != 0 ] || ! grep -rqs 'multipart/signed' "$W/sent/new"; then
	test_fail "exit $status, expected a signed announcement in $W/sent" "$(cat "$W/out")"
elif agent_answers; then
	test_fail "a gpg-agent still answers for $W/g"
else
	test_pass
fi

# --- The units -------------------------------------------------------------

# A template unit is its plain unit for committee %i: the same settings
# (TimeoutStopSec= included), its own configuration and state directory.
for pair in "tenure.service tenure@.service" "tenure-once.service tenure-once@.service" \
	"tenure.timer tenure-once@.timer"; do
	set -- $pair
	test_begin "$2 has the settings of $1, for committee %i"
	grep -v '^#' "$top_srcdir/systemd/$1" >"$W/plain"
	grep -v '^#' "$top_srcdir/systemd/$2" | sed -e 's| --config /etc/tenure/%i\.conf||' \
		-e 's|/etc/tenure/%i\.conf|/etc/tenure/tenure.conf|' \
		-e 's|tenure/%i|tenure|' -e 's| for %i||' -e 's|@%i||' >"$W/template"
	test_expect_equal_file "$W/plain" "$W/template"
done

test_done
