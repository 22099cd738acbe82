#!/bin/sh
# t-restore-resend-imap.sh: a state directory restored from a backup
# resends nothing the list has seen, with the list read over IMAP
# (issue 33 item 6).  The restored state's place in the mailbox is from
# before the backup: the first pass after the restore reads again the
# mail since then, tenure's own announcement among it (known by the
# bot's signature over its Message-ID), and sends nothing before that
# read has gone through.  A private Dovecot; keys (the bot's too) and
# mail made for the run.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/dovecot.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

dovecot_setup
dovecot_start
committee_init
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB"
BOT=$(committee_bot_key)
[ -n "$BOT" ] || test_skip_all "gpg made no bot key"
committee_conf keys.bot-key="$BOT" \
	source.url="imaps://localhost:$DOVECOT_IMAPS_PORT" \
	source.user="$DOVECOT_USER" source.password-file="$DOVECOT_PASSWORD_FILE" \
	source.ca-file="$DOVECOT_CA"
mkdir -p "$W/state"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$W/state/message-id-key"
echo >>"$W/state/message-id-key"
chmod 600 "$W/state/message-id-key"

once() {
	"$TENURE" --config "$CONF" run --once --flush >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}
copies() {
	grep -il "^Message-I[Dd]: $1" "$W"/sent/new/* "$W"/sent/cur/* 2>/dev/null | wc -l
}

# The first contact, then the nightly backup.
once
cp -a "$W/state" "$W/backup"

# Alice resigns; the announcement goes to the list, which carries it
# back into the mailbox; tenure reads it.
dovecot_deliver "$(signed_mail "$ALICE" alice@example.org alice-resign "Tenure: resign")"
once
announce=$(grep -l "^X-Tenure: announce-resign" "$W"/sent/new/* | head -n 1)
announce_id=$(sed -n 's/^Message-Id: //p' "$announce")
dovecot_deliver "$announce"
once
test_begin "before the restore: the announcement went once, and came back"
if [ -n "$announce_id" ] && resigned Alice && [ "$(copies "$announce_id")" = 1 ] &&
	[ "$(cat "$W/status")" = 0 ]; then
	test_pass
else
	test_fail "announcement $announce_id" "$(cat "$W/log")"
fi
events_before=$(events)
sent_before=$(ls "$W/sent/new" | wc -l)

rm -rf "$W/state"
cp -a "$W/backup" "$W/state"
once
test_begin "the first pass after the restore exits 0 and applies nothing twice"
if [ "$(cat "$W/status")" = 0 ] && [ "$(events)" = "$events_before" ]; then
	test_pass
else
	test_fail "exit $(cat "$W/status"), events $(events) (were $events_before)" "$(cat "$W/log")"
fi
test_begin "... it reads its own announcement again before it sends anything"
if grep -q "^ledger-ahead-of-state " "$W/log" &&
	grep -q "^own-mail-seen .*message-id=$announce_id" "$W/log" &&
	! grep -q "^sent message-id=$announce_id" "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
test_begin "... and sends it not again"
test_expect_equal "1 $sent_before" "$(copies "$announce_id") $(ls "$W/sent/new" | wc -l)"

test_done
