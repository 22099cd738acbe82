#!/bin/sh
# t-config.sh: the configuration as `tenure run` and `tenure check-config`
# meet it, and the log as journald files it.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"

cd "$TEST_DIR" || exit 1
W=$TEST_DIR
mkdir -p inbox/new inbox/cur inbox/tmp
: >ledger

cat >maildir.conf <<EOF
[committee]
name = Test Committee
templates = $top_srcdir/templates
list = debian-ctte@lists.debian.org
ledger = ledger
state-dir = state

[keys]
gnupg-home = g

[source]
url = maildir:inbox
poll-interval = 1

[sink]
url = maildir:sent
from = tenure@example.org
EOF
test_cleanup "gpgconf --homedir '$W/g' --kill all"

# --- Logs for journald ----------------------------------------------------

# journal_run LOG ARGS...: tenure ARGS with stderr on LOG and
# JOURNAL_STREAM naming LOG, as systemd names the journal's stream.
journal_run() {
	local log=$1
	shift
	: >"$log"
	JOURNAL_STREAM=$(stat -c '%d:%i' "$log") "$TENURE" "$@" >/dev/null 2>>"$log"
}

mkfifo inbox/new/not-a-message
journal_run j1.log --config maildir.conf run --once
test_begin "under journald every log line starts with its priority"
if [ -s j1.log ] && ! grep -qv '^<[346]>' j1.log; then
	test_pass
else
	test_fail "lines without a priority:" "$(grep -v '^<[346]>' j1.log)"
fi
test_begin "normal work is info (<6>) and a skipped file a warning (<4>)"
test_expect_equal "<6>run-start <4>skipped" \
	"$(grep -o '^<6>run-start' j1.log) $(grep -o '^<4>skipped' j1.log)"
rm inbox/new/not-a-message

test_begin "an error printed by a command is an error (<3>) for journald"
sed 's/^gnupg-home = g$/gnupg-home = g\nkeyring = missing.gpg/' maildir.conf >missing.conf
journal_run j2.log --config missing.conf run --once
test_expect_equal "<3>tenure run: [keys] keyring: $W/missing.gpg: No such file or directory" "$(cat j2.log)"

test_begin "without JOURNAL_STREAM the log has no priority prefix"
"$TENURE" --config maildir.conf run --once 2>plain.log >/dev/null
test_expect_equal "run-start" "$(head -n1 plain.log | cut -d' ' -f1)"

test_begin "with JOURNAL_STREAM naming another stream (stderr redirected) no prefix"
: >other
JOURNAL_STREAM=$(stat -c '%d:%i' other) "$TENURE" --config maildir.conf \
	run --once 2>redirected.log >/dev/null
test_expect_equal "run-start" "$(head -n1 redirected.log | cut -d' ' -f1)"

test_begin "a daemon's failed pass is an error (<3>run-error) for journald"
: >j3.log
JOURNAL_STREAM=$(stat -c '%d:%i' j3.log) "$TENURE" --config maildir.conf run \
	>/dev/null 2>>j3.log &
daemon=$!
test_cleanup "kill $daemon"
i=0
until grep -q 'run-start' j3.log || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
mv inbox inbox.away
i=0
until grep -q 'run-error' j3.log || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill "$daemon"
wait "$daemon" 2>/dev/null
mv inbox.away inbox
test_expect_equal "<3>run-error <4>run-retry" \
	"$(grep -o '^<3>run-error' j3.log | head -n1) $(grep -o '^<4>run-retry' j3.log | head -n1)"


# --- check-config runs run's checks ----------------------------------------

command -v gpg >/dev/null || { test_done; exit; }
gpg_world_init
CHAIR=$(gpg_new_key "Carol Chair" carol@example.org)
LEADER=$(gpg_new_key "Leo Leader" leo@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
OUTSIDER=$(gpg_new_key "Oscar Outsider" oscar@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org leo@example.org alice@example.org
printf 'Event: appoint\nDate: 2020-01-01\nMember: Alice Member <alice@example.org>\nFingerprint: %s\nSource: import\n\nEvent: appoint\nDate: 2020-01-01\nMember: Carol Chair <carol@example.org>\nFingerprint: %s\nSource: import\n' \
	"$ALICE" "$CHAIR" >checked.ledger
printf 'secret\n' >password
chmod 600 password

# checked_conf [SOURCE-URL [SINK-LINES [ROLES-LINES]]]: check.conf
checked_conf() {
	cat >check.conf <<EOF
[committee]
list = debian-ctte@lists.debian.org
templates = $top_srcdir/templates
ledger = checked.ledger
state-dir = state
[roles]
${3:-chair = $CHAIR
leader = $LEADER}
[keys]
keyring = keyring.gpg
gnupg-home = g
[source]
url = ${1:-imaps://imap.example.org/INBOX}
user = ctte
password-file = password
[sink]
${2:-url = smtp://127.0.0.1:25
starttls = no}
from = tenure@example.org
EOF
}
check() {
	"$TENURE" check-config --config check.conf >check.out 2>check.err
	echo $? >check.status
}

checked_conf
check
test_begin "check-config passes a configuration run accepts (an IMAP URL naming its mailbox)"
test_expect_equal "0 " "$(cat check.status) $(cat check.err)"

test_begin "check-config names every line of a syntax error, with its number"
printf '[committee]\nname = TC\nthis is wrong\n[keys\n' >syntax.conf
"$TENURE" check-config --config syntax.conf 2>err >/dev/null; rc=$?
test_expect_equal "1 syntax.conf:3: not \"key = value\", a [section] or a # comment: \"this is wrong\"
syntax.conf:4: a section header is \"[name]\": \"[keys\"" "$rc $(cat err)"

expect_check_problem() { # description, expected text in the problem
	check
	test_begin "$1"
	if [ "$(cat check.status)" = 1 ] && grep -qF -- "$2" check.err; then
		test_pass
	else
		test_fail "expected a problem with: $2" "status $(cat check.status)" "$(cat check.err)"
	fi
}
checked_conf "imaps://imap.example.org:99999/"
expect_check_problem "check-config refuses an IMAP port out of range, as run does" \
	"[source] url: \"imaps://imap.example.org:99999/\": Port"
checked_conf "imaps://imap.example.org/INBOX;UIDVALIDITY=5"
expect_check_problem "check-config refuses an IMAP path that is not a mailbox" \
	"the path holds \";\" parameters"
checked_conf "imaps://imap.example.org/INBOX"
sed -i '/^user = ctte$/d' check.conf
expect_check_problem "check-config refuses an IMAP source without a user" \
	"[source] user: required for imaps://imap.example.org:993"
checked_conf "imaps://imap.example.org/Lists/ctte"
sed -i '/^\[source\]$/a mailbox = INBOX' check.conf
expect_check_problem "a URL and [source] mailbox that name different mailboxes are refused" \
	"names mailbox \"Lists/ctte\" but [source] mailbox is \"INBOX\""
checked_conf "" "url = smtp://mail.example.org:25
starttls = no"
expect_check_problem "starttls = no to a host that is not loopback is refused" \
	"[sink] starttls = no: only for a local MTA on a loopback address"
checked_conf "" "" "chair = $OUTSIDER
leader = $LEADER"
expect_check_problem "a [roles] chair whose key is in no keyring is reported" \
	"[roles] chair: key $OUTSIDER is in no [keys] keyring"
gpg_export_keyring "$W/keyring.gpg" carol@example.org leo@example.org
checked_conf
expect_check_problem "a member whose key the keyrings lack is reported" \
	"[committee] ledger: member Alice Member <alice@example.org>: key $ALICE is in no [keys] keyring"
gpg_export_keyring "$W/keyring.gpg" carol@example.org leo@example.org alice@example.org

chmod 640 password
checked_conf
if [ "$(id -u)" = 0 ]; then
	check
	test_begin "a password file owned by root and readable by its group (0640) is accepted"
	test_expect_equal "0 " "$(cat check.status) $(cat check.err)"
else
	_test_count=$((_test_count + 1))
	echo "ok $_test_count # SKIP a password file owned by root (not root here)"
fi
chmod 644 password
expect_check_problem "a world-readable password file is refused" \
	"the password file is readable by others (mode 0644)"

test_begin "under journald check-config's problems are errors (<3>)"
: >jc.log
JOURNAL_STREAM=$(stat -c '%d:%i' jc.log) "$TENURE" check-config --config check.conf \
	>/dev/null 2>>jc.log
chmod 600 password
if [ -s jc.log ] && ! grep -qv '^<3>' jc.log; then test_pass; else test_fail "$(cat jc.log)"; fi

test_done
