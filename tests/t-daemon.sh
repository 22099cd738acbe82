#!/bin/sh
# t-daemon.sh: `tenure run` end to end, against a private Dovecot (the
# list mailbox) and a real SMTP server (aiosmtpd) that delivers into the
# very Maildir Dovecot serves, so announcements reappear on the "list" as
# they would in life.  Signed resignations are appended over IMAP.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/dovecot.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/smtp.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
command -v gpg >/dev/null || test_skip_all "no gpg"

dovecot_setup
dovecot_start
# The SMTP server delivers to the list, i.e. into Dovecot's Maildir.
SMTP_MAILDIR=$DOVECOT_MAILDIR
smtp_start starttls || test_skip_all "aiosmtpd would not start"

gpg_world_init
MAIL_LIST=ctte@lists.example.org
for who in alice:Alice bob:Bob carol:Carol dave:Dave erin:Erin frank:Frank; do
	gpg_new_key "${who#*:} Member" "${who%%:*}@example.org" >/dev/null ||
		test_skip_all "gpg could not make keys"
done
gpg_export_keyring "$TEST_DIR/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org dave@example.org erin@example.org frank@example.org
TENURE_GNUPG=$(mktemp -d /tmp/tn.XXXXXX)
test_cleanup "gpgconf --homedir $TENURE_GNUPG --kill all; rm -rf $TENURE_GNUPG"

# write_conf CASE [SOURCE-URL [CA-FILE]]
write_conf() {
	CASE=$TEST_DIR/$1
	mkdir -p "$CASE"
	cat >"$CASE/tenure.conf" <<EOF
[committee]
name = Technical Committee
list = ctte@lists.example.org
ledger = $CASE/ledger
state-dir = $CASE/state
templates = $top_srcdir/templates

[rule]
name = ${RULE:-none}

[keys]
keyring = $TEST_DIR/keyring.gpg
gnupg-home = $TENURE_GNUPG

[source]
url = ${2:-imaps://localhost:$DOVECOT_IMAPS_PORT}
user = $DOVECOT_USER
password-file = $DOVECOT_PASSWORD_FILE
ca-file = ${3:-$DOVECOT_CA}

[sink]
url = smtp://127.0.0.1:$SMTP_PORT
from = ctte-bot@example.org
ca-file = $SMTP_CA
EOF
}

write_ledger() {
	local day=10
	: >"$CASE/ledger"
	for who in alice:Alice bob:Bob carol:Carol dave:Dave erin:Erin frank:Frank; do
		printf 'Event: appoint\nDate: 2024-01-%s\nMember: %s Member <%s@example.org>\nFingerprint: %s\nProject-Joined: 2000-01-01\nSource: import\n\n' \
			"$day" "${who#*:}" "${who%%:*}" \
			"$(gpg_fpr "${who%%:*}@example.org")" >>"$CASE/ledger"
		day=$((day + 1))
	done
}

# resignation WHO: a clearsigned "Tenure: resign" from WHO@example.org,
# in $TEST_DIR/resign-WHO.
resignation() {
	clearsigned_entity "$1@example.org" "Tenure: resign" >"$TEST_DIR/entity-$1"
	mail_message "$1@example.org" "resign-$1-$$@example.org" \
		"$TEST_DIR/entity-$1" >"$TEST_DIR/resign-$1"
}

# The list's copies of the announcement of WHO's resignation.
announcements() {
	grep -l "^Subject: .*$1 Member resigns" "$DOVECOT_MAILDIR"/new/* \
		"$DOVECOT_MAILDIR"/cur/* 2>/dev/null | wc -l | tr -d ' '
}

resign_events() {
	grep -c "^Member: $1 Member" "$CASE/ledger" | awk '{ print $1 - 1 }'
}

DAEMON=
start_daemon() {
	"$TENURE" --config "$CASE/tenure.conf" run 2>>"$CASE/log" &
	DAEMON=$!
	test_cleanup "kill $DAEMON"
}

stop_daemon() {
	kill -TERM "$DAEMON" 2>/dev/null
	daemon_status=0
	wait "$DAEMON" || daemon_status=$?
}

connected_count() {
	grep -c "^imap-connected" "$CASE/log" || true
}

daemon_log() {
	tail -n 15 "$CASE/log"
}

write_conf live
write_ledger
: >"$CASE/log"
start_daemon

test_begin "the daemon connects, verifies the server and starts at UIDNEXT"
if wait_for 10 '[ "$(connected_count)" -ge 1 ]' &&
	grep -q "^imap-first-contact" "$CASE/log"; then
	test_pass
else
	test_fail "expected imap-first-contact and imap-connected" "$(daemon_log)"
fi

test_begin "a signed resignation appended over IMAP is recorded in the ledger"
resignation alice
dovecot_append "$TEST_DIR/resign-alice"
if wait_for 20 '[ "$(resign_events Alice)" = 1 ]'; then
	test_expect_equal "resign" "$(grep -B2 '^Member: Alice Member' "$CASE/ledger" | grep '^Event:' | tail -n 1 | cut -d' ' -f2)"
else
	test_fail "no resign event for Alice" "$(daemon_log)"
fi

test_begin "its announcement is accepted by the SMTP server and reappears on the list"
if wait_for 20 '[ "$(announcements Alice)" -ge 1 ]'; then
	test_pass
else
	test_fail "no announcement of Alice's resignation on the list" "$(daemon_log)"
fi

test_begin "the bot reads its own announcement back from the list and changes nothing"
sleep 2
test_expect_equal "1 1" "$(resign_events Alice) $(announcements Alice)"

test_begin "a second instance is kept out by the lock"
rc=0
"$TENURE" --config "$CASE/tenure.conf" run --once >"$TEST_DIR/out" 2>&1 || rc=$?
if [ "$rc" -eq 1 ] && grep -q "another tenure run or import holds the lock" "$TEST_DIR/out"; then
	test_pass
else
	test_fail "expected: exit 1, another tenure run or import holds the lock" "got:      exit $rc: $(cat "$TEST_DIR/out")"
fi

test_begin "Dovecot restarted while tenure idles: tenure reconnects and sees later mail"
before=$(connected_count)
dovecot_restart
resignation bob
dovecot_append "$TEST_DIR/resign-bob"
if wait_for 30 '[ "$(announcements Bob)" -ge 1 ]'; then
	test_expect_equal "reconnected 1 1" \
		"$([ "$(connected_count)" -gt "$before" ] && echo reconnected) $(resign_events Bob) $(announcements Bob)"
else
	test_fail "Bob's resignation was not announced after the restart" "$(daemon_log)"
fi

test_begin "SMTP down: the resignation is recorded, its announcement waits in the outbox"
smtp_stop
resignation carol
dovecot_append "$TEST_DIR/resign-carol"
if wait_for 20 '[ "$(resign_events Carol)" = 1 ]' &&
	wait_for 10 '[ "$(ls "$CASE/state/outbox/queue" 2>/dev/null | wc -l)" -ge 1 ]'; then
	test_expect_equal "0" "$(announcements Carol)"
else
	test_fail "Carol's resignation was not recorded and queued" "$(daemon_log)"
fi

test_begin "SMTP up again: the daemon retries when the outbox says and the mail arrives once"
smtp_start starttls --port "$SMTP_PORT"
# The outbox's first retry is due a minute after the failure.
if wait_for 90 '[ "$(announcements Carol)" -ge 1 ]'; then
	sleep 2
	test_expect_equal "1" "$(announcements Carol)"
else
	test_fail "Carol's announcement never arrived" "$(daemon_log)"
fi

test_begin "killed (SIGKILL) between the ledger write and the send: one announcement after restart"
# A stopped SMTP server accepts the connection (the kernel does) and
# never greets: tenure is caught inside the send, after the ledger and
# the outbox were written.
kill -STOP "$SMTP_PID"
resignation dave
dovecot_append "$TEST_DIR/resign-dave"
# The announcement queued is the end state to wait for: the ledger is
# written first, and a second after it may still come before the queue
# on a busy machine.
if wait_for 20 '[ "$(resign_events Dave)" = 1 ] &&
	[ "$(ls "$CASE/state/outbox/queue" 2>/dev/null | wc -l)" -ge 1 ]'; then
	kill -KILL "$DAEMON"
	wait "$DAEMON" 2>/dev/null
	kill -CONT "$SMTP_PID"
	start_daemon
	if wait_for 90 '[ "$(announcements Dave)" -ge 1 ]'; then
		sleep 2
		test_expect_equal "1 1" "$(resign_events Dave) $(announcements Dave)"
	else
		test_fail "Dave's announcement never arrived after the restart" "$(daemon_log)"
	fi
else
	kill -CONT "$SMTP_PID"
	test_fail "Dave's resignation was not recorded" "$(daemon_log)"
fi

test_begin "SIGHUP with a broken configuration keeps the old one"
cp "$CASE/tenure.conf" "$TEST_DIR/conf.saved"
printf '[nonsense]\nkey = value\n' >>"$CASE/tenure.conf"
kill -HUP "$DAEMON"
if wait_for 10 'grep -q "run-reload result=\"kept the old configuration\"" "$CASE/log"'; then
	test_pass
else
	test_fail "expected run-reload result=\"kept the old configuration\"" "$(daemon_log)"
fi

test_begin "SIGHUP with another state-dir keeps the old one (its lock is on the old one)"
sed "s|^state-dir = .*|state-dir = $CASE/state2|" "$TEST_DIR/conf.saved" >"$CASE/tenure.conf"
kill -HUP "$DAEMON"
if wait_for 10 'grep -q "run-reload result=\"kept the old configuration\" error=\"state-dir changed" "$CASE/log"'; then
	test_pass
else
	test_fail "expected the reload to be refused" "$(daemon_log)"
fi

test_begin "SIGHUP reloads the configuration, and the daemon goes on working"
cp "$TEST_DIR/conf.saved" "$CASE/tenure.conf"
kill -HUP "$DAEMON"
resignation erin
if wait_for 10 'grep -q "run-reload result=loaded" "$CASE/log"' &&
	dovecot_append "$TEST_DIR/resign-erin" &&
	wait_for 30 '[ "$(announcements Erin)" -ge 1 ]'; then
	test_pass
else
	test_fail "expected a reload and Erin's announcement" "$(daemon_log)"
fi

test_begin "IMAP server down: the daemon retries after 1, 2, 4 s (exponential backoff) and stays up"
lines_before=$(wc -l <"$CASE/log")
dovecot_stop
if wait_for 15 'tail -n +$((lines_before + 1)) "$CASE/log" | grep -q "^run-retry in=4"'; then
	test_expect_equal "1 2 4 alive" \
		"$(tail -n +$((lines_before + 1)) "$CASE/log" | sed -n 's/^run-retry in=\([0-9]*\) step=fetch$/\1/p' | head -n 3 | paste -sd' ') $(kill -0 "$DAEMON" 2>/dev/null && echo alive)"
else
	test_fail "expected run-retry in=1, 2, 4" "$(daemon_log)"
fi

test_begin "IMAP server back: the daemon reconnects on its next retry and handles new mail"
dovecot_start
resignation frank
dovecot_append "$TEST_DIR/resign-frank"
if wait_for 30 '[ "$(announcements Frank)" -ge 1 ]'; then
	test_expect_equal "1 1" "$(resign_events Frank) $(announcements Frank)"
else
	test_fail "Frank's resignation was not announced after the server came back" "$(daemon_log)"
fi

test_begin "SIGTERM: the daemon stops at once (within 10 s) and exits 0"
start=$(date +%s)
stop_daemon
test_expect_equal "0 fast" "$daemon_status $([ $(($(date +%s) - start)) -le 10 ] && echo fast)"

test_begin "UIDVALIDITY reset: the mailbox is read again and nothing is applied twice"
cp "$CASE/ledger" "$TEST_DIR/ledger.before"
mails_before=$(ls "$DOVECOT_MAILDIR"/new "$DOVECOT_MAILDIR"/cur | wc -l)
dovecot_reset_uidvalidity
start_daemon
if wait_for 30 'grep -q "^imap-uidvalidity-changed" "$CASE/log"' &&
	wait_for 30 '[ "$(grep last-uid= "$CASE/state/imap-cursor" | cut -d= -f2)" = "$(($(dovecot_uidnext) - 1))" ]'; then
	sleep 1
	if cmp -s "$TEST_DIR/ledger.before" "$CASE/ledger"; then
		test_expect_equal "$mails_before" "$(ls "$DOVECOT_MAILDIR"/new "$DOVECOT_MAILDIR"/cur | wc -l)"
	else
		test_fail "the ledger changed:" "$(diff "$TEST_DIR/ledger.before" "$CASE/ledger")"
	fi
else
	test_fail "the mailbox was not read again" "$(daemon_log)"
fi
stop_daemon

test_begin "run --once: an untrusted IMAP certificate is refused with a clear error, exit 1"
write_conf untrusted "imaps://localhost:$DOVECOT_IMAPS_PORT" "$DOVECOT_DIR/tls/stranger.crt"
cp "$TEST_DIR/live/ledger" "$CASE/ledger"
rc=0
"$TENURE" --config "$CASE/tenure.conf" run --once >"$TEST_DIR/out" 2>&1 || rc=$?
if [ "$rc" -eq 1 ] && grep -q "^tenure run: imaps://localhost:$DOVECOT_IMAPS_PORT: TLS certificate refused, not logging in" "$TEST_DIR/out"; then
	test_pass
else
	test_fail "expected: exit 1 and 'TLS certificate refused, not logging in'" "got:      exit $rc: $(cat "$TEST_DIR/out")"
fi

test_begin "run --once: a test CA that signed the server is accepted, exit 0"
write_conf trusted
cp "$TEST_DIR/live/ledger" "$CASE/ledger"
rc=0
"$TENURE" --config "$CASE/tenure.conf" run --once >"$TEST_DIR/out" 2>&1 || rc=$?
test_expect_equal "0" "$rc"

test_begin "run --once: an unreachable IMAP server means exit 1"
dovecot_stop
rc=0
"$TENURE" --config "$CASE/tenure.conf" run --once >"$TEST_DIR/out" 2>&1 || rc=$?
if [ "$rc" -eq 1 ] && grep -q "connect: cannot connect" "$TEST_DIR/out"; then
	test_pass
else
	test_fail "expected: exit 1, cannot connect" "got:      exit $rc: $(cat "$TEST_DIR/out")"
fi
dovecot_start

# Reminders through the IMAP-fed daemon's one-pass mode: under the
# debian rule Alice and Bob (the two most senior, past 42 months on
# 2027-01-01) get terms ending 2027-12-31.
RULE=debian write_conf reminders
cat >"$CASE/ledger" <<EOF
Event: rule
Date: 2015-01-01
Rule: debian
Source: import

Event: appoint
Date: 2023-01-10
Member: Alice Member <alice@example.org>
Source: import

Event: appoint
Date: 2023-03-01
Member: Bob Member <bob@example.org>
Source: import

Event: appoint
Date: 2025-06-01
Member: Carol Member <carol@example.org>
Source: import
EOF
reminders_to() {
	grep -l "^X-Envelope-To: $1" "$DOVECOT_MAILDIR"/new/* "$DOVECOT_MAILDIR"/cur/* 2>/dev/null |
		xargs -r grep -h "days from today" | tr -d '\r' |
		sed 's/.*(\([0-9]*\) days from today).*/\1/' | paste -sd, -
}

test_begin "reminders at 90, 30 and 7 days go out exactly once each across restarts"
# Each pass on a clock stopped at its day: --now would keep the mail
# from the SMTP server.
ok=yes
faked_lib || ok=no-faketime
for day in 2027-01-01 2027-10-02 2027-10-02 2027-11-01 2027-12-01 2027-12-01 \
	2027-12-10 2027-12-24 2027-12-24 2027-12-30; do
	[ "$ok" = yes ] || break
	tenure_at "$day" --config "$CASE/tenure.conf" run --once \
		>"$TEST_DIR/out" 2>&1 || { ok="run --once at $day failed: $(cat "$TEST_DIR/out")"; break; }
done
if [ "$ok" = no-faketime ]; then
	test_skip "libfaketime (package faketime) is not installed"
elif [ "$ok" = yes ]; then
	test_expect_equal "alice: 90,30,7 bob: 90,30,7" \
		"alice: $(reminders_to alice@example.org) bob: $(reminders_to bob@example.org)"
else
	test_fail "$ok"
fi

test_begin "the systemd units pass systemd-analyze verify"
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$TEST_DIR/units"
	for unit in tenure.service tenure-once.service tenure.timer; do
		sed "s|/usr/bin/tenure|$TENURE|g" "$top_srcdir/systemd/$unit" \
			>"$TEST_DIR/units/$unit"
	done
	if (cd "$TEST_DIR/units" && systemd-analyze verify --man=no \
		./tenure.service ./tenure-once.service ./tenure.timer) \
		>"$TEST_DIR/out" 2>&1 && ! grep -q . "$TEST_DIR/out"; then
		test_pass
	else
		test_fail "systemd-analyze verify:" "$(cat "$TEST_DIR/out")"
	fi
else
	test_fail "systemd-analyze is missing (package systemd)"
fi

test_done
