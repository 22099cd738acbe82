#!/bin/sh
# t-imap-cursor.sh: `tenure run` against a private Dovecot, when the IMAP
# cursor is new, lost or damaged, and when the server renumbers the
# mailbox.  A first contact reads the mail of the last max-signature-age
# days (so a command waiting in the mailbox is not lost) and nothing
# older; removing a lost or damaged cursor loses no mail and applies
# nothing twice.  After a renumbering, mail from before the first
# contact's window stays unread whatever tenure's own clock says: the
# window is reckoned by the server's clock.  The list mail here "arrives"
# by IMAP APPEND with the INTERNALDATE each case needs.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/dovecot.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
command -v gpg >/dev/null || test_skip_all "no gpg"

dovecot_setup
dovecot_start
committee_init
MAIL_LIST=ctte@lists.example.org
for who in alice bob carol dave; do
	gpg_new_key "$who Member" "$who@example.org" >/dev/null ||
		test_skip_all "gpg could not make keys"
done
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org dave@example.org

# case NAME: $CASE's configuration ($W/NAME.conf), ledger and state
# directory, all four members appointed a year ago.
case_init() {
	CASE=$1
	mkdir -p "$W/$CASE"
	committee_conf "$CASE.conf" committee.list=$MAIL_LIST \
		committee.ledger="$CASE/ledger" committee.state-dir="$CASE/state" \
		source.url="imaps://localhost:$DOVECOT_IMAPS_PORT" \
		source.user="$DOVECOT_USER" source.password-file="$DOVECOT_PASSWORD_FILE" \
		source.ca-file="$DOVECOT_CA" sink.url="maildir:$CASE/sent"
	CONF=$W/$CASE.conf
	set --
	for who in alice bob carol dave; do
		set -- "$@" "$who Member <$who@example.org> $(gpg_fpr "$who@example.org")"
	done
	committee_ledger --file "$W/$CASE/ledger" "$@"
	: >"$W/$CASE/log"
}

# arrive WHEN FILE: FILE appended to the list mailbox, arrived WHEN
# (Unix time) by the server's clock.
arrive() {
	dovecot_append "$2" "$1" || test_fail "could not append $2"
}

# resignation WHO ID [AT]: WHO's signed resignation, signed AT (date -d).
resignation() {
	signed_mail ${3:+--at "$3"} "$(gpg_fpr "$1@example.org")" "$1@example.org" \
		"$2" "Tenure: resign"
}

# chatter ID: list mail that is no command.
chatter() {
	mime_text_part "Shall we meet on Thursday?" >"$W/m/$1.part"
	mail_message dave@example.org "$1@example.org" "$W/m/$1.part" >"$W/m/$1.eml"
	echo "$W/m/$1.eml"
}

resigned() {
	grep -c "^Member: $1 Member" "$W/$CASE/ledger" | awk '{ print $1 - 1 }'
}

announced() {
	grep -l "^Subject: .*$1 Member resigns" "$W/$CASE/sent/new/"* 2>/dev/null |
		wc -l | tr -d ' '
}

refused_to() {
	grep -l "^To: .*$1@example.org" "$W/$CASE/sent/new/"* 2>/dev/null |
		xargs -r grep -l 'Refused:' | wc -l | tr -d ' '
}

DAEMON=
start_daemon() {
	"$TENURE" --config "$CONF" run 2>>"$W/$CASE/log" &
	DAEMON=$!
	test_cleanup "kill $DAEMON"
}

stop_daemon() {
	kill -TERM "$DAEMON" 2>/dev/null
	wait "$DAEMON"
}

log_tail() {
	tail -n 20 "$W/$CASE/log"
}

now=$(date +%s)
day=86400

# --- A first contact, a lost cursor, a damaged one ----------------------

case_init lost
# Ten days ago a command (and chatter); an hour ago Alice's command,
# waiting for tenure's first contact.
arrive $((now - 10 * day)) "$(resignation carol carol-old '10 days ago')"
arrive $((now - 10 * day)) "$(chatter chatter-old)"
arrive $((now - 3600)) "$(resignation alice alice-waiting '1 hour ago')"
start_daemon

test_begin "a first contact acts on the command of the last days waiting in the mailbox"
if wait_for 30 '[ "$(announced alice)" = 1 ]'; then
	test_expect_equal "1" "$(resigned alice)"
else
	test_fail "Alice's resignation was not applied" "$(log_tail)"
fi
test_begin "... and on nothing older: a ten-day-old command is skipped, the log says where the window starts"
test_expect_equal "0 1" "$(resigned carol) $(grep -c '^imap-first-contact .* first-uid=3$' "$W/$CASE/log")"

# Bob resigns while tenure is down, and the cursor is lost meanwhile.
stop_daemon
arrive $((now - 1800)) "$(resignation bob bob-while-down '30 minutes ago')"
rm "$W/$CASE/state/imap-cursor"
start_daemon
test_begin "with imap-cursor lost, the command that arrived meanwhile is applied"
if wait_for 30 '[ "$(announced bob)" = 1 ]'; then
	test_expect_equal "1" "$(resigned bob)"
else
	test_fail "Bob's resignation was not applied" "$(log_tail)"
fi
test_begin "... what was handled before is read again and acts on nothing twice"
sleep 1
test_expect_equal "1 1 0 0" \
	"$(resigned alice) $(announced alice) $(refused_to alice) $(resigned carol)"

# A cursor cut short (a lying disk): the run stops, naming the file and
# the line, and says what to do; doing it loses nothing.
stop_daemon
head -c -5 "$W/$CASE/state/imap-cursor" >"$W/cursor.cut"
cat "$W/cursor.cut" >"$W/$CASE/state/imap-cursor"
arrive $((now - 600)) "$(resignation dave dave-after-damage '10 minutes ago')"
rc=0
"$TENURE" --config "$CONF" run --once >"$W/out" 2>&1 || rc=$?
test_begin "a damaged cursor is an error naming FILE:LINE and what to do"
if [ "$rc" = 1 ] &&
	grep -q "^tenure run: $W/$CASE/state/imap-cursor:[0-9]*: cut short: .*; remove it: tenure then reads the mail of the last \[keys\] max-signature-age days again, and acts on none of it twice\$" "$W/out"; then
	test_pass
else
	test_fail "exit $rc" "$(cat "$W/out")"
fi
rm "$W/$CASE/state/imap-cursor"
rc=0
"$TENURE" --config "$CONF" run --once >"$W/out" 2>&1 || rc=$?
test_begin "... and removing it, as it says, applies the waiting command and nothing twice"
test_expect_equal "0 1 1 1 1" \
	"$rc $(resigned dave) $(announced dave) $(resigned alice) $(resigned bob)"

# --- UIDVALIDITY: server times against server times ---------------------

# server_date ID WHEN: the message ID arrived WHEN (Unix time) by the
# server's clock.  Dovecot takes no future date in an APPEND, but reads
# a Maildir file's time as its INTERNALDATE once its index is rebuilt.
server_date() {
	touch -d "@$2" "$(grep -l "^Message-ID: <$1@" "$DOVECOT_MAILDIR"/new/* \
		"$DOVECOT_MAILDIR"/cur/* 2>/dev/null | head -n 1)"
}

# The server's clock is ten days ahead of tenure's (or tenure's ten days
# behind): the list's newest mail arrived at now+10d by the server's
# clock, and Carol's command, signed an hour ago, at now+2d.  The first
# contact's window starts at now+3d, server time; by tenure's clock the
# command came after the first contact.
case_init renumbered
arrive "$now" "$(resignation carol carol-before-contact '1 hour ago')"
arrive "$now" "$(chatter chatter-newest)"
server_date carol-before-contact $((now + 2 * day))
server_date chatter-newest $((now + 10 * day))
dovecot_reset_uidvalidity
start_daemon
# read_all: the daemon has dealt with every message in the mailbox.
read_all() {
	wait_for 30 'grep -q "^last-uid=$(($(dovecot_uidnext) - 1))\$" "$W/$CASE/state/imap-cursor"'
}

test_begin "a first contact ten days behind the server's clock skips what is older than its window"
if wait_for 30 'grep -q "^imap-first-contact" "$W/$CASE/log"' && read_all; then
	sleep 1
	test_expect_equal "0 0" "$(resigned carol) $(refused_to carol)"
else
	test_fail "expected the mailbox read" "$(log_tail)"
fi

# The server renumbers the mailbox: everything is read again from UID 1.
lines=$(wc -l <"$W/$CASE/log")
dovecot_reset_uidvalidity
test_begin "after a renumbering, mail from before the first contact's window stays unread"
if wait_for 30 'tail -n +$((lines + 1)) "$W/$CASE/log" | grep -q "^imap-uidvalidity-changed"' &&
	read_all; then
	sleep 1
	test_expect_equal "0 0 0" "$(resigned carol) $(announced carol) $(refused_to carol)"
else
	test_fail "expected the renumbering and Carol's command skipped again" "$(log_tail)"
fi

test_begin "... while mail that arrives after it is acted on"
arrive "$now" "$(resignation dave dave-after-renumbering '1 minute ago')"
if wait_for 30 '[ "$(announced dave)" = 1 ]'; then
	test_expect_equal "1 0" "$(resigned dave) $(resigned carol)"
else
	test_fail "Dave's resignation was not applied" "$(log_tail)"
fi
stop_daemon

test_done
