#!/bin/sh
# t-restore-resend.sh: a state directory restored from a backup resends
# nothing the list has seen (issue 33 item 6).  The restore README.Debian
# describes: the ledger kept, the state directory from a backup taken
# before the last mail went out.  tenure's own announcement came back
# through the list after it was sent; with the bot's signature (keys
# made for the run, the bot's too) the first pass after the restore
# knows it, records it as sent and sends it not again.  A transcript the
# restored outbox still holds, sent only to its member and never seen on
# the list, goes to the Maildir sink again, which holds that Message-ID
# already and does not deliver it twice.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
CAROL=$(gpg_new_key "Carol Member" carol@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB" \
	"Carol Member <carol@example.org> $CAROL"

BOT=$(committee_bot_key)
[ -n "$BOT" ] || test_skip_all "gpg made no bot key"

LIST=debian-ctte@lists.debian.org
# sink_at PATH: the configuration with the Maildir sink at PATH.
sink_at() { committee_conf keys.bot-key="$BOT" sink.url="maildir:$1"; }
once() {
	"$TENURE" --config "$CONF" run --once --flush >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}
# copies ID: how many mails in the sink's Maildir have Message-ID ID.
copies() {
	grep -il "^Message-I[Dd]: $1" "$W"/sent/new/* "$W"/sent/cur/* 2>/dev/null | wc -l
}
record_of() {
	echo "$W/state/outbox/sent/$(printf '%s' "$1" | sha256sum | cut -c1-32)"
}

# The installation's Message-ID secret, as `tenure init` makes it.
mkdir -p "$W/state"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$W/state/message-id-key"
echo >>"$W/state/message-id-key"
chmod 600 "$W/state/message-id-key"

# 1. Bob's command is refused, and its transcript is queued while the
# mail server is down.  The admin's nightly backup of the state
# directory is taken then.
committee_conf keys.bot-key="$BOT" sink.url="smtp://127.0.0.1:1"
deliver "$W/inbox" "$(signed_mail "$BOB" bob@example.org bob-bad "Tenure: frobnicate")"
once
reply_id=$(sed -n 's/^Message-Id: //p' "$W"/state/outbox/queue/* 2>/dev/null | head -n 1)
cp -a "$W/state" "$W/backup"

# 2. The next day: the sink is back, the transcript goes, Alice
# resigns, and her announcement goes to the list, which carries it back
# into the inbox, where the daemon reads it.
sink_at "$W/sent"
deliver "$W/inbox" "$(signed_mail "$ALICE" alice@example.org alice-resign "Tenure: resign")"
once
announce=$(grep -l "^X-Tenure: announce-resign" "$W"/sent/new/* | head -n 1)
announce_id=$(sed -n 's/^Message-Id: //p' "$announce")
test_begin "before the restore: the transcript and the announcement went once each"
if [ -n "$reply_id" ] && [ -n "$announce_id" ] && resigned Alice &&
	[ "$(copies "$reply_id") $(copies "$announce_id")" = "1 1" ]; then
	test_pass
else
	test_fail "reply $reply_id, announcement $announce_id" "$(cat "$W/log")"
fi
deliver "$W/inbox" "$announce"
once
events_before=$(events)

# 3. The disk is lost; the ledger is kept, the state directory comes
# back from the backup of step 1.
rm -rf "$W/state"
cp -a "$W/backup" "$W/state"
once
test_begin "the first pass after the restore exits 0 and applies nothing twice"
if [ "$(cat "$W/status")" = 0 ] && [ "$(events)" = "$events_before" ]; then
	test_pass
else
	test_fail "exit $(cat "$W/status"), events $(events) (were $events_before)" "$(cat "$W/log")"
fi
test_begin "... it sees the state is older than the ledger, and finds its own mail on the list"
if grep -q "^ledger-ahead-of-state " "$W/log" &&
	grep -q "^restore-own-mail messages=1 " "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
test_begin "... the announcement the list carried is recorded as sent, and not sent again"
if grep -qx "Noted: list" "$(record_of "$announce_id")" 2>/dev/null &&
	! grep -q "^sent message-id=$announce_id" "$W/log" &&
	[ "$(copies "$announce_id")" = 1 ]; then
	test_pass
else
	test_fail "$(copies "$announce_id") copies" "$(cat "$W/log")"
fi
test_begin "... the transcript the restored outbox held is not delivered twice"
if grep -q "^maildir-held .*message-id=$reply_id" "$W/log" &&
	[ "$(copies "$reply_id")" = 1 ] && [ -f "$(record_of "$reply_id")" ] &&
	[ -z "$(ls "$W/state/outbox/queue")" ]; then
	test_pass
else
	test_fail "$(copies "$reply_id") copies" "$(cat "$W/log")"
fi

test_done
