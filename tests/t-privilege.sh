#!/bin/sh
# t-privilege.sh: a command started by root against the service's state
# (owned by the service user) runs as that user, so it leaves no
# root-owned file behind that would lock the service out; check-config
# run by root checks as the service user and says so.  Needs root: a
# throwaway system user is created for the run and deleted at exit.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ "$(id -u)" = 0 ] || test_skip_all "needs root (creates a system user)"
command -v useradd >/dev/null || test_skip_all "no useradd"
command -v gpg >/dev/null || test_skip_all "no gpg"

# A short name, unique to this run, that no real account uses.
SVC=tnp$$
useradd --system --user-group --no-create-home --home-dir /nonexistent \
	--shell /usr/sbin/nologin "$SVC" >/dev/null 2>&1 ||
	test_skip_all "useradd could not create a system user"
test_cleanup "userdel $SVC; groupdel $SVC"
# The scratch directory is root's, mode 0700: let the service user in.
chmod 0755 "$TEST_DIR"
# The service user reads the templates: a copy, since the tree may lie
# where only root can enter (a clone in /root).
cp -R "$top_srcdir/templates" "$TEST_DIR/templates"
chmod -R a+rX "$TEST_DIR/templates"
# So does the helper tenure runs gpg through (tenure-gpg), run after the
# switch to the service user.
mkdir "$TEST_DIR/libexec"
cp "$TENURE_LIBEXECDIR/tenure-gpg" "$TEST_DIR/libexec/"
chmod -R a+rX "$TEST_DIR/libexec"
TENURE_LIBEXECDIR=$TEST_DIR/libexec
export TENURE_LIBEXECDIR

gpg_world_init
MAIL_LIST=ctte@lists.example.org
gpg_new_key "Alice Member" alice@example.org >/dev/null ||
	test_skip_all "gpg could not make keys"
ALICE=$(gpg_fpr alice@example.org)
gpg_export_keyring "$TEST_DIR/keyring.gpg" alice@example.org
chmod 0644 "$TEST_DIR/keyring.gpg"

# setup CASE [OWNER]: a committee whose ledger, state and GnuPG home sit
# in CASE/var (owned by OWNER, default the service user), configured as
# the package does it: the file root's, readable by the service's group.
setup() {
	CASE=$TEST_DIR/$1
	VAR=$CASE/var
	mkdir -p "$CASE/etc" "$VAR/list/new" "$VAR/list/cur" "$VAR/list/tmp"
	printf 'Event: appoint\nDate: 2024-01-10\nMember: Alice Member <alice@example.org>\nFingerprint: %s\nProject-Joined: 2000-01-01\nSource: import\n\n' \
		"$ALICE" >"$VAR/ledger"
	cat >"$CASE/etc/tenure.conf" <<EOF
[committee]
name = Technical Committee
list = ctte@lists.example.org
ledger = $VAR/ledger
state-dir = $VAR/state
templates = $TEST_DIR/templates

[roles]
chair = $ALICE
leader = $ALICE

[keys]
keyring = $TEST_DIR/keyring.gpg
gnupg-home = $VAR/gnupg

[source]
url = maildir:$VAR/list

[sink]
url = maildir:$VAR/out
from = ctte-bot@example.org
EOF
	chown -R "${2:-$SVC}:${2:-$SVC}" "$VAR"
	chmod 0750 "$VAR"
	chgrp "$SVC" "$CASE/etc/tenure.conf"
	chmod 0640 "$CASE/etc/tenure.conf"
	test_cleanup "gpgconf --homedir '$VAR/gnupg' --kill all"
}

# The service user's processes that still run (a zombie has ended: this
# machine's init may be slow to reap it).
live_processes() {
	ps -u "$SVC" -o pid=,stat=,args= | awk '$2 !~ /^Z/'
}

# Files under DIR not owned by the service user, one per line.
not_owned() {
	find "$1" ! -user "$SVC" -printf '%u %p\n' 2>&1
}

setup run
clearsigned_entity alice@example.org "Tenure: resign" >"$TEST_DIR/entity"
mail_message alice@example.org "resign-alice-$$@example.org" \
	"$TEST_DIR/entity" >"$TEST_DIR/resign"
deliver "$VAR/list" "$TEST_DIR/resign"
chown -R "$SVC:$SVC" "$VAR/list"

test_begin "tenure run --once started by root runs as the owner of the state"
"$TENURE" --config "$CASE/etc/tenure.conf" run --once >"$TEST_DIR/out" 2>&1
status=$?
if [ $status -eq 0 ] && grep -q "running as user $SVC, the owner of $VAR" "$TEST_DIR/out"; then
	test_pass
else
	test_fail "exit $status, expected a note naming user $SVC:" "$(cat "$TEST_DIR/out")"
fi

test_begin "that run did its work: the resignation is in the ledger"
if grep -q '^Event: resign' "$VAR/ledger"; then
	test_pass
else
	test_fail "no resign event in $VAR/ledger:" "$(cat "$TEST_DIR/out")"
fi

test_begin "every file that run wrote (lock, outbox, archive, gpg's files) is the service user's"
test_expect_equal "" "$(not_owned "$VAR")"

test_begin "tenure import started by root leaves no root-owned file either"
rm -rf "$VAR/gnupg"
mkdir -p "$TEST_DIR/archive/new" "$TEST_DIR/archive/cur" "$TEST_DIR/archive/tmp"
chmod -R a+rX "$TEST_DIR/archive"
if "$TENURE" --config "$CASE/etc/tenure.conf" import -q "maildir:$TEST_DIR/archive" \
	>"$TEST_DIR/out" 2>&1; then
	test_expect_equal "" "$(not_owned "$VAR")"
else
	test_fail "import failed:" "$(cat "$TEST_DIR/out")"
fi

test_begin "tenure audit started by root leaves no root-owned file"
rm -rf "$VAR/gnupg"
"$TENURE" --config "$CASE/etc/tenure.conf" audit >"$TEST_DIR/out" 2>&1
test_expect_equal "" "$(not_owned "$VAR")"

test_begin "check-config run by root says which user it checks as"
"$TENURE" --config "$CASE/etc/tenure.conf" check-config >"$TEST_DIR/out" 2>&1
status=$?
if [ $status -eq 0 ] && grep -q "running as user $SVC" "$TEST_DIR/out"; then
	test_pass
else
	test_fail "exit $status:" "$(cat "$TEST_DIR/out")"
fi

test_begin "check-config run by root reports a password file only root can read"
PW_FILE=$CASE/etc/imap-password
printf 'secret\n' >"$PW_FILE"
chmod 0600 "$PW_FILE"
cp "$CASE/etc/tenure.conf" "$CASE/etc/pw.conf"
sed -i "s|^url = maildir:$VAR/list|url = imaps://imap.example.org\nuser = tenure\npassword-file = $CASE/etc/imap-password|" \
	"$CASE/etc/pw.conf"
chgrp "$SVC" "$CASE/etc/pw.conf"
chmod 0640 "$CASE/etc/pw.conf"
"$TENURE" --config "$CASE/etc/pw.conf" check-config >"$TEST_DIR/pw.out" 2>&1
status=$?
cp "$TEST_DIR/pw.out" "$TEST_DIR/out"
if [ $status -eq 0 ]; then
	test_fail "check-config passed, but user $SVC cannot read the password file:" \
		"$(cat "$TEST_DIR/out")"
elif grep -q "\[source\] password-file: .*imap-password" "$TEST_DIR/out"; then
	test_pass
else
	test_fail "expected a [source] password-file problem:" "$(cat "$TEST_DIR/out")"
fi

test_begin "a state directory owned by a uid with no account: root refuses, nothing written"
setup orphan 4000999
before=$(find "$VAR" | sort)
if "$TENURE" --config "$CASE/etc/tenure.conf" run --once >"$TEST_DIR/out" 2>&1; then
	test_fail "run --once succeeded as root on a vanished user's files"
elif ! grep -q "uid 4000999, which has no account" "$TEST_DIR/out"; then
	test_fail "expected the refusal to name uid 4000999:" "$(cat "$TEST_DIR/out")"
else
	test_expect_equal "$before" "$(find "$VAR" | sort)"
fi

test_begin "state and ledger of two different users: root refuses"
setup split
chown root:root "$VAR/ledger"
chown nobody "$VAR/ledger"
if "$TENURE" --config "$CASE/etc/tenure.conf" import -q "maildir:$TEST_DIR/archive" \
	>"$TEST_DIR/out" 2>&1; then
	test_fail "import succeeded"
elif grep -q "belong to different users" "$TEST_DIR/out"; then
	test_pass
else
	test_fail "expected a refusal naming both paths:" "$(cat "$TEST_DIR/out")"
fi

test_begin "root's state beside the service user's GnuPG home: root refuses, writes neither"
setup mixed root
mkdir -p "$TEST_DIR/svc-gnupg"
chown "$SVC:$SVC" "$TEST_DIR/svc-gnupg"
chmod 0700 "$TEST_DIR/svc-gnupg"
sed -i "s|^gnupg-home = .*|gnupg-home = $TEST_DIR/svc-gnupg|" "$CASE/etc/tenure.conf"
if "$TENURE" --config "$CASE/etc/tenure.conf" run --once >"$TEST_DIR/out" 2>&1; then
	test_fail "run --once succeeded as root on files of two owners"
elif ! grep -q "belong to different users" "$TEST_DIR/out"; then
	test_fail "expected a refusal naming both paths:" "$(cat "$TEST_DIR/out")"
else
	test_expect_equal "" "$(find "$TEST_DIR/svc-gnupg" "$VAR/state" -mindepth 1 2>/dev/null)"
fi

test_begin "root's own state (owned by root) stays root's, with no note"
setup rootown root
"$TENURE" --config "$CASE/etc/tenure.conf" run --once >"$TEST_DIR/out" 2>&1
status=$?
if [ $status -eq 0 ] && ! grep -q "running as user" "$TEST_DIR/out" &&
	[ "$(stat -c %U "$VAR/state/lock")" = root ]; then
	test_pass
else
	test_fail "exit $status:" "$(cat "$TEST_DIR/out")"
fi

test_begin "tenure init started by root writes the new ledger as the service user"
setup init
rm -f "$VAR/ledger"
if "$TENURE" --config "$CASE/etc/tenure.conf" init --rule none --date 2024-01-10 \
	--member "Alice Member <alice@example.org>" >"$TEST_DIR/out" 2>&1 &&
	[ -f "$VAR/ledger" ]; then
	test_expect_equal "" "$(not_owned "$VAR")"
else
	test_fail "init failed:" "$(cat "$TEST_DIR/out")"
fi

# README.Debian, step 4: the admin's history file, wherever root keeps it.
test_begin "tenure init --history started by root reads a history file only root can read"
setup history
rm -f "$VAR/ledger"
mkdir -m 0700 "$TEST_DIR/root-only"
printf 'Event: rule\nDate: 2024-01-01\nRule: debian\nSource: import\n\nEvent: appoint\nDate: 2024-01-10\nMember: Alice Member <alice@example.org>\nFingerprint: %s\nSource: import\n' \
	"$ALICE" >"$TEST_DIR/root-only/history.ledger"
chmod 0600 "$TEST_DIR/root-only/history.ledger"
if "$TENURE" --config "$CASE/etc/tenure.conf" init \
	--history "$TEST_DIR/root-only/history.ledger" >"$TEST_DIR/out" 2>&1 &&
	[ "$(grep -c '^Event:' "$VAR/ledger")" = 2 ]; then
	test_expect_equal "" "$(not_owned "$VAR")"
else
	test_fail "init failed:" "$(cat "$TEST_DIR/out")"
fi

# README.Debian, step 2, as written, and a pass that signs with that key:
# neither leaves a process of the service user behind (a gpg-agent
# would keep the home's sockets, and the backup's tar warns of them).
test_begin "README.Debian's bot-key step leaves no process of the service user"
setup agent
install -d -o "$SVC" -g "$SVC" -m 0700 "$VAR/gnupg"
runuser -u "$SVC" -- gpg --homedir "$VAR/gnupg" \
	--batch --passphrase '' \
	--quick-gen-key 'tenure <ctte-bot@example.org>' ed25519 sign never \
	>"$TEST_DIR/out" 2>&1
runuser -u "$SVC" -- gpgconf --homedir "$VAR/gnupg" --kill gpg-agent >>"$TEST_DIR/out" 2>&1
BOT=$(runuser -u "$SVC" -- gpg --homedir "$VAR/gnupg" --with-colons --list-keys 2>/dev/null |
	awk -F: '$1 == "fpr" { print $10; exit }')
# gpgconf --kill only asks the agent to go: it may still be exiting.
wait_for 10 '[ -z "$(live_processes)" ]'
if [ -n "$BOT" ] && [ -z "$(live_processes)" ]; then
	test_pass
else
	test_fail "bot key '$BOT'; processes of $SVC:" "$(live_processes)" \
		"$(cat "$TEST_DIR/out")"
fi

# tenure waits for the agent it stopped to be gone before it exits: so
# this looks once, right after it.
test_begin "tenure run --once started by root and signing with the bot key leaves no process behind"
sed -i "s/^gnupg-home = .*/&\nbot-key = $BOT/" "$CASE/etc/tenure.conf"
deliver "$VAR/list" "$TEST_DIR/resign"
chown -R "$SVC:$SVC" "$VAR/list"
"$TENURE" --config "$CASE/etc/tenure.conf" run --once >"$TEST_DIR/out" 2>&1
status=$?
if [ $status -ne 0 ] || ! grep -rqs 'multipart/signed' "$VAR/out/new"; then
	test_fail "exit $status, expected a signed announcement in $VAR/out:" "$(cat "$TEST_DIR/out")"
elif [ -n "$(live_processes)" ]; then
	test_fail "processes of $SVC left:" "$(live_processes)"
else
	test_pass
fi

# Issue 26, item 4: check-config checks what the service will meet.
test_begin "check-config run by root says how to let the service read the password file"
if grep -qF "(owner root, mode 0600; $SVC runs tenure here); fix: chgrp $SVC $PW_FILE && chmod 0640 $PW_FILE" "$TEST_DIR/pw.out" &&
	[ "$(grep -c "$PW_FILE" "$TEST_DIR/pw.out")" = 1 ]; then
	test_pass
else
	test_fail "expected the chgrp and chmod that fix it:" "$(cat "$TEST_DIR/pw.out")"
fi

# Issue 42 item 8: a root-owned password file others can read.  The fix
# "chmod 600 it" would have locked the service out; the one given keeps
# it readable at every step, and check-config then passes the file.
test_begin "a root-owned password file others can read: the group first, then the mode"
OPEN_PW=$CASE/etc/open-password
printf 'secret\n' >"$OPEN_PW"
chmod 0644 "$OPEN_PW"
sed "s|^url = maildir:$VAR/list|url = imaps://imap.example.org\nuser = tenure\npassword-file = $OPEN_PW|" \
	"$CASE/etc/tenure.conf" >"$CASE/etc/open.conf"
chgrp "$SVC" "$CASE/etc/open.conf"
chmod 0640 "$CASE/etc/open.conf"
"$TENURE" --config "$CASE/etc/open.conf" check-config >"$TEST_DIR/open.out" 2>&1
fix="chgrp $SVC $OPEN_PW && chmod 0640 $OPEN_PW"
if grep -qF "$OPEN_PW: the password file is readable by others (mode 0644); fix, in this order: $fix" "$TEST_DIR/open.out"; then
	test_pass
else
	test_fail "expected: ...; fix, in this order: $fix" "$(cat "$TEST_DIR/open.out")"
fi

test_begin "... and once it is applied, the service reads the file: no password-file problem"
sh -c "$fix"
"$TENURE" --config "$CASE/etc/open.conf" check-config >"$TEST_DIR/open.out" 2>&1
test_expect_equal "0" "$(grep -c 'password-file' "$TEST_DIR/open.out")" "$(cat "$TEST_DIR/open.out")"

test_begin "one root-owned file in the service's state: check-config names it, and the chown that fixes it"
setup rootfile
mkdir -p "$VAR/state"
chown "$SVC:$SVC" "$VAR/state"
printf 'x\n' >"$VAR/state/seen"
if "$TENURE" --config "$CASE/etc/tenure.conf" check-config >"$TEST_DIR/out" 2>&1; then
	test_fail "check-config passed:" "$(cat "$TEST_DIR/out")"
elif grep -qF "[committee] state-dir: 1 file(s) of $VAR/state do not belong to $SVC, who runs the service ($VAR/state/seen belongs to root): the service cannot replace them; fix: chown -R $SVC:$SVC $VAR/state" "$TEST_DIR/out"; then
	test_pass
else
	test_fail "expected the root-owned seen and the chown:" "$(cat "$TEST_DIR/out")"
fi

# A backup restored as root: everything root's.  Root's check-config
# stays root, and learns the service user from the configuration's
# group (the package installs it root:tenure 0640).
test_begin "state restored as root: check-config names the service user and the chown -R that fixes it"
setup restored root
mkdir -p "$VAR/state"
touch "$VAR/state/lock"
if "$TENURE" --config "$CASE/etc/tenure.conf" check-config >"$TEST_DIR/out" 2>&1; then
	test_fail "check-config passed:" "$(cat "$TEST_DIR/out")"
elif grep -qF "do not belong to $SVC, who runs the service" "$TEST_DIR/out" &&
	grep -qF "fix: chown -R $SVC:$SVC $VAR/state" "$TEST_DIR/out" &&
	grep -qF "fix: chown -R $SVC:$SVC $VAR/ledger" "$TEST_DIR/out"; then
	test_pass
else
	test_fail "expected the state and the ledger, with the chown:" "$(cat "$TEST_DIR/out")"
fi
test_done
