#!/bin/sh
# t-imap.sh: the IMAP source against a private Dovecot: TLS accepted and
# refused, the cursor, a first contact that reads the window of the last
# max-signature-age days (by the server's clock), UIDVALIDITY changes,
# a lost cursor, IDLE and polling.  tests/unit/source-imap drives the source and prints what it
# was handed ("UID<TAB>Message-ID<TAB>arrival" per message).

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/dovecot.sh"

IMAP=$top_builddir/tests/unit/source-imap
[ -x "$IMAP" ] || test_skip_all "tests/unit/source-imap is not built"

dovecot_setup
dovecot_start

# make_mail N: a plain list message with Message-ID <mN@test>.
make_mail() {
	printf 'From: Member %s <m%s@example.org>\nTo: ctte@lists.example.org\nSubject: message %s\nDate: %s\nMessage-ID: <m%s@test>\n\nbody %s\n' \
		"$1" "$1" "$1" "$(date -R)" "$1" "$1" >"$TEST_DIR/m$1"
}

deliver() {
	for n in "$@"; do
		make_mail "$n"
		dovecot_deliver "$TEST_DIR/m$n"
	done
}

# write_conf NAME URL [CA-FILE]: a configuration with its own state dir.
write_conf() {
	{
		printf '[committee]\nstate-dir = %s\nledger = %s\n' \
			"$TEST_DIR/state-$1" "$TEST_DIR/state-$1/ledger"
		printf '[source]\nurl = %s\nuser = %s\npassword-file = %s\npoll-interval = 1\n' \
			"$2" "$DOVECOT_USER" "$DOVECOT_PASSWORD_FILE"
		[ -n "${3:-}" ] && printf 'ca-file = %s\n' "$3"
	} >"$TEST_DIR/$1.conf"
}

# imap NAME ARGS...: runs source-imap with NAME's configuration; stdout in
# $TEST_DIR/out, stderr in $TEST_DIR/err, the status in $rc.
imap() {
	local name=$1
	shift
	rc=0
	"$IMAP" "$TEST_DIR/$name.conf" "$@" >"$TEST_DIR/out" 2>"$TEST_DIR/err" || rc=$?
}

handed() {
	cut -f 2 "$TEST_DIR/out" | tr '\n' ' ' | sed 's/ $//'
}

logins() {
	grep -c "Login: user=<$DOVECOT_USER>" "$DOVECOT_DIR/dovecot.log" || true
}

expect_refusal() {
	# $1: what the error must say.
	if [ "$rc" -ne 0 ] && grep -q "$1" "$TEST_DIR/err" &&
		[ "$(logins)" = "$logins_before" ]; then
		test_pass
	else
		test_fail "expected: exit 1, no login, an error saying \"$1\"" \
			"got:      exit $rc, logins $logins_before -> $(logins), stderr: $(cat "$TEST_DIR/err")"
	fi
}

IMAPS=imaps://localhost:$DOVECOT_IMAPS_PORT
write_conf main "$IMAPS" "$DOVECOT_CA"

# m0 arrived (INTERNALDATE) ten days ago, m1 and m2 just now.
make_mail 0
dovecot_append "$TEST_DIR/m0" $(($(date +%s) - 10 * 86400))
deliver 1 2
test_begin "a first contact hands over the mail of the last max-signature-age days"
imap main fetch
test_expect_equal "0:<m1@test> <m2@test>" "$rc:$(handed)"

test_begin "... and none older, without listing it: the log says where the window starts"
if grep -q "^imap-first-contact .* read-from=[0-9]* first-uid=2\$" "$TEST_DIR/err"; then
	test_pass
else
	test_fail "expected the window to start at m1 (UID 2)" "$(cat "$TEST_DIR/err")"
fi

test_begin "the cursor file records server, mailbox, UIDVALIDITY and the last UID"
expected="server=$IMAPS
user=$DOVECOT_USER
mailbox=INBOX
uidvalidity=$(dovecot_uidvalidity)
last-uid=$(($(dovecot_uidnext) - 1))
reread-until=$(($(dovecot_uidnext) - 1))"
test_expect_equal "$expected" "$(grep -v -e horizon= -e read-from= -e '^#' "$TEST_DIR/state-main/imap-cursor" | grep =)"

test_begin "the cursor's horizon is the server's time: 7 days before the newest INTERNALDATE"
newest=$(tail -n 1 "$TEST_DIR/out" | cut -f 3)
test_expect_equal "horizon=$((newest - 7 * 86400))" "$(grep '^horizon=' "$TEST_DIR/state-main/imap-cursor")"

# No secret in it (a server, a user name, places): the group may read it,
# as every state file but the Message-ID secret (issue 42 item 4).
test_begin "the cursor file is the service user's, readable by its group (0640)"
test_expect_equal "640" "$(stat -c %a "$TEST_DIR/state-main/imap-cursor")"

deliver 3 4
test_begin "new mail is handed over in UID order"
imap main fetch
test_expect_equal "0:<m3@test> <m4@test>" "$rc:$(handed)"

test_begin "INTERNALDATE becomes the message's arrival time"
now=$(date +%s)
arrival=$(head -n 1 "$TEST_DIR/out" | cut -f 3)
if [ -n "$arrival" ] && [ $((now - arrival)) -ge 0 ] && [ $((now - arrival)) -lt 120 ]; then
	test_pass
else
	test_fail "expected: an arrival within 2 minutes before $now" "got:      $arrival"
fi

test_begin "mail handed over once is not handed over again"
imap main fetch
test_expect_equal "0:" "$rc:$(handed)"

test_begin "a URL's path names the mailbox, as mail clients read it (imaps://host/INBOX)"
write_conf path "$IMAPS/INBOX" "$DOVECOT_CA"
imap path fetch
test_expect_equal "0 mailbox=INBOX" "$rc $(grep '^mailbox=' "$TEST_DIR/state-path/imap-cursor")"

test_begin "a URL naming a mailbox the server lacks fails on that mailbox"
write_conf nobox "$IMAPS/Lists/ctte" "$DOVECOT_CA"
imap nobox fetch
if [ "$rc" -ne 0 ] && grep -q 'Lists/ctte' "$TEST_DIR/err"; then
	test_pass
else
	test_fail "expected an error naming Lists/ctte" "exit $rc: $(cat "$TEST_DIR/err")"
fi

test_begin "imap:// upgrades with STARTTLS, verifies the server and fetches"
write_conf starttls "imap://localhost:$DOVECOT_IMAP_PORT" "$DOVECOT_CA"
imap starttls fetch
deliver 5
imap starttls fetch
if [ "$rc:$(handed)" = "0:<m5@test>" ] && grep -q "tls=starttls" "$TEST_DIR/err"; then
	test_pass
else
	test_fail "expected: 0:<m5@test> over tls=starttls" "got:      $rc:$(handed) $(cat "$TEST_DIR/err")"
fi

test_begin "an IP address is checked against the certificate's IP entries"
write_conf byip "imaps://127.0.0.1:$DOVECOT_IMAPS_PORT" "$DOVECOT_CA"
imap byip fetch
test_expect_equal "0" "$rc"

test_begin "a certificate from a CA that is not the configured one is refused before login"
write_conf stranger "$IMAPS" "$DOVECOT_DIR/tls/stranger.crt"
logins_before=$(logins)
imap stranger fetch
expect_refusal "TLS certificate refused, not logging in.*issuer is unknown"

test_begin "without ca-file the system's CAs decide, and the test CA is not one of them"
write_conf system "$IMAPS"
logins_before=$(logins)
imap system fetch
expect_refusal "trusting the system's CAs.*issuer is unknown"

test_begin "a refused certificate changes no cursor"
test_expect_equal "no cursor" "$([ -e "$TEST_DIR/state-stranger/imap-cursor" ] && echo cursor || echo no cursor)"

test_begin "a wrong password is refused with the server's words"
printf 'not-the-password\n' >"$TEST_DIR/bad-password"
chmod 600 "$TEST_DIR/bad-password"
sed "s|^password-file = .*|password-file = $TEST_DIR/bad-password|" \
	"$TEST_DIR/main.conf" >"$TEST_DIR/badpw.conf"
imap badpw fetch
if [ "$rc" -ne 0 ] && grep -q "LOGIN: login refused" "$TEST_DIR/err"; then
	test_pass
else
	test_fail "expected: LOGIN: login refused" "got:      $rc $(cat "$TEST_DIR/err")"
fi

test_begin "a password file readable by others is refused before connecting"
chmod 644 "$TEST_DIR/bad-password"
imap badpw fetch
if [ "$rc" -ne 0 ] && grep -q "readable by others" "$TEST_DIR/err"; then
	test_pass
else
	test_fail "expected: readable by others" "got:      $rc $(cat "$TEST_DIR/err")"
fi

test_begin "a handler failure stops the fetch and leaves the cursor on the last message dealt with"
imap main fetch
deliver 6 7 8
rc=0
"$IMAP" --refuse-after 1 "$TEST_DIR/main.conf" fetch >"$TEST_DIR/out" 2>"$TEST_DIR/err" || rc=$?
first="$rc:$(handed)"
imap main fetch
test_expect_equal "1:<m6@test> then 0:<m7@test> <m8@test>" "$first then $rc:$(handed)"

test_begin "IDLE: mail appended while the source waits is handed over at once"
rc=0
"$IMAP" "$TEST_DIR/main.conf" watch 1 20 >"$TEST_DIR/out" 2>"$TEST_DIR/err" &
watcher=$!
sleep 1
start=$(date +%s%N)
deliver 9
wait $watcher || rc=$?
took=$((($(date +%s%N) - start) / 1000000))
if [ "$rc:$(handed)" = "0:<m9@test>" ] && [ "$took" -lt 10000 ] && grep -q "idle=yes" "$TEST_DIR/err"; then
	test_pass
else
	test_fail "expected: 0:<m9@test> within 10 s with idle=yes" "got:      $rc:$(handed) after $took ms; $(cat "$TEST_DIR/err")"
fi

test_begin "a UIDVALIDITY change reads the window again, but nothing from before the first contact's"
dovecot_reset_uidvalidity
imap main fetch
expected=$(for n in 1 2 3 4 5 6 7 8 9; do printf '<m%s@test> ' $n; done | sed 's/ $//')
if [ "$rc:$(handed)" = "0:$expected" ] &&
	grep -q "^imap-uidvalidity-changed .* read-from=[0-9]* first-uid=" "$TEST_DIR/err"; then
	test_pass
else
	test_fail "expected: 0:$expected, imap-uidvalidity-changed and m0 skipped" "got:      $rc:$(handed); $(cat "$TEST_DIR/err")"
fi

test_begin "after the re-read, mail from before the window is not listed again"
deliver 20
imap main fetch
if [ "$rc:$(handed)" = "0:<m20@test>" ] && ! grep -q '^imap-message-skipped' "$TEST_DIR/err"; then
	test_pass
else
	test_fail "expected: 0:<m20@test> and nothing skipped" "got:      $rc:$(handed); $(cat "$TEST_DIR/err")"
fi

test_begin "after the re-read, the cursor holds the new UIDVALIDITY"
test_expect_equal "uidvalidity=$(dovecot_uidvalidity)" "$(grep uidvalidity= "$TEST_DIR/state-main/imap-cursor")"

# A message that cannot be handled is tried IMAP_FAILED_TRIES (3) times,
# one fetch each, and then recorded as failed; the cursor moves past it
# and the mail after it is handed over.  A message too large to be a
# command is recorded as failed at once, without being fetched.
imap main fetch
make_mail big
{
	cat "$TEST_DIR/mbig"
	head -c 11000000 /dev/zero | tr '\0' 'x' | fold -w 76
} >"$TEST_DIR/mbig.full"
mv "$TEST_DIR/mbig.full" "$TEST_DIR/mbig"
dovecot_deliver "$TEST_DIR/mbig"
deliver 20 21
bad_uid=$(($(dovecot_uidnext) - 2))
big_uid=$((bad_uid - 1))
results=
for try in 1 2 3; do
	rc=0
	"$IMAP" --bad '<m20@test>' "$TEST_DIR/main.conf" fetch >"$TEST_DIR/out" 2>"$TEST_DIR/err" || rc=$?
	results="$results $rc:$(handed)"
	cat "$TEST_DIR/err" >>"$TEST_DIR/err.all"
done
test_begin "a message that cannot be handled is tried three times, then set aside; the next is handed over"
test_expect_equal " 0: 0: 0:<m21@test>" "$results"

test_begin "... the too-large message is set aside unfetched, once, and the failing one after its third try"
if [ "$(grep -c '^set-aside .*reason="message too large ([0-9]* bytes, limit 10485760)"' "$TEST_DIR/err.all")" = 1 ] &&
	[ "$(grep -c '^imap-message-retry .*tries=[12] ' "$TEST_DIR/err.all")" = 2 ] &&
	[ "$(grep -c '^set-aside .*UID='"$bad_uid"'" tries=3 reason="handler cannot handle' "$TEST_DIR/err.all")" = 1 ]; then
	test_pass
else
	test_fail "expected one set-aside for the big message, two retries and one set-aside for <m20@test>" \
		"$(cat "$TEST_DIR/err.all")"
fi

test_begin "... both are recorded as failed in the state, and the cursor is past them"
failed_state=$(cat "$TEST_DIR/state-main/imap-failed" 2>/dev/null)
if printf '%s\n' "$failed_state" | grep -q "^\[uid $(dovecot_uidvalidity)/$big_uid\]" &&
	printf '%s\n' "$failed_state" | grep -q "^\[uid $(dovecot_uidvalidity)/$bad_uid\]" &&
	[ "$(printf '%s\n' "$failed_state" | grep -c '^failed=true')" = 2 ] &&
	grep -q "^last-uid=$((bad_uid + 1))\$" "$TEST_DIR/state-main/imap-cursor"; then
	test_pass
else
	test_fail "expected uids $big_uid and $bad_uid failed, last-uid $((bad_uid + 1))" \
		"$failed_state" "$(cat "$TEST_DIR/state-main/imap-cursor")"
fi

test_begin "a malformed cursor file is an error naming the file and the field, and what to do"
cp "$TEST_DIR/state-main/imap-cursor" "$TEST_DIR/cursor.saved"
sed -i 's/^last-uid=.*/last-uid=many/' "$TEST_DIR/state-main/imap-cursor"
state_reseal "$TEST_DIR/state-main/imap-cursor"
imap main fetch
if [ "$rc" -ne 0 ] && grep -q "imap-cursor: \[cursor\] last-uid: \"many\" .*; remove it: tenure then reads the mail of the last \[keys\] max-signature-age days again" "$TEST_DIR/err"; then
	test_pass
else
	test_fail "expected: an error naming imap-cursor and last-uid" "got:      $rc $(cat "$TEST_DIR/err")"
fi

test_begin "a cursor cut short is an error naming the file and the line, and what to do"
head -c -3 "$TEST_DIR/cursor.saved" >"$TEST_DIR/state-main/imap-cursor"
imap main fetch
if [ "$rc" -ne 0 ] && grep -q "imap-cursor:[0-9]*: cut short: .*; remove it: tenure then reads" "$TEST_DIR/err"; then
	test_pass
else
	test_fail "expected: an error naming imap-cursor and its line" "got:      $rc $(cat "$TEST_DIR/err")"
fi

test_begin "with the cursor removed, the window is read again: the mail of the last days, none older"
rm "$TEST_DIR/state-main/imap-cursor"
imap main fetch
if [ "$rc" = 0 ] && handed | grep -q '^<m1@test> <m2@test> .*<m21@test>$' &&
	! handed | grep -q '<m0@test>'; then
	test_pass
else
	test_fail "expected m1 ... m21 and not m0" "got:      $rc:$(handed); $(cat "$TEST_DIR/err")"
fi
cp "$TEST_DIR/cursor.saved" "$TEST_DIR/state-main/imap-cursor"

test_begin "a certificate for another host name is refused"
dovecot_restart wrongname
logins_before=$(logins)
imap main fetch
expect_refusal "not trusted.*does not match"

test_begin "a server that offers no STARTTLS is refused: no login over plain text"
dovecot_restart none
write_conf plain "imap://localhost:$DOVECOT_IMAP_PORT" "$DOVECOT_CA"
logins_before=$(logins)
imap plain fetch
expect_refusal "does not offer STARTTLS"

test_begin "polling: without IDLE, new mail is found by the next poll"
DOVECOT_EXTRA="imap_capability = IMAP4rev1 LITERAL+ SASL-IR LOGIN-REFERRALS ID ENABLE AUTH=PLAIN"
dovecot_restart
unset DOVECOT_EXTRA
rc=0
"$IMAP" "$TEST_DIR/main.conf" watch 1 20 >"$TEST_DIR/out" 2>"$TEST_DIR/err" &
watcher=$!
sleep 1
deliver 10
wait $watcher || rc=$?
if [ "$rc:$(handed)" = "0:<m10@test>" ] && grep -q "idle=no" "$TEST_DIR/err"; then
	test_pass
else
	test_fail "expected: 0:<m10@test> with idle=no" "got:      $rc:$(handed); $(cat "$TEST_DIR/err")"
fi

test_begin "the server going away is a network error naming the server"
dovecot_stop
imap main fetch
if [ "$rc" -ne 0 ] && grep -q "^source-imap: $IMAPS: connect: cannot connect" "$TEST_DIR/err"; then
	test_pass
else
	test_fail "expected: $IMAPS: connect: cannot connect" "got:      $rc $(cat "$TEST_DIR/err")"
fi

test_done
