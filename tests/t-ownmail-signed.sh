#!/bin/sh
# t-ownmail-signed.sh: on import, only what the bot's signature covers
# names tenure's own mail (issue 32 item 3).  With a bot key, an
# archived mail was tenure's own when its PGP/MIME body carried the
# bot's signature, and its Message-ID: header, which the signature does
# not cover, was recorded as sent; and the public IDs of the releases
# before the secret (a hash of the list and the event) still counted as
# proof of sending.  Here Oscar re-posts a genuine bot-signed
# announcement from the list under the public IDs of a member's coming
# reminders and announcements, the archive is imported, and every one
# of them still goes out; the announcement itself is recorded under the
# Message-ID inside what the bot signed.  Keys (the bot's too) and mail
# are made for the run.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v sha256sum >/dev/null || test_skip_all "sha256sum is not installed"

committee_init

CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	bob@example.org leo@example.org

# The bot's key, secret part and all, in tenure's own GnuPG home.
BOT=$(committee_bot_key)
[ -n "$BOT" ] || test_skip_all "gpg made no bot key"

LIST=debian-ctte@lists.debian.org
SENT=$W/sent/new
STATE=$W/state

# One-year terms: Alice's ends in 20 days, Bob's in 40.
alice_end=$(date -u -d '+20 days' +%Y-%m-%d)
bob_end=$(date -u -d '+40 days' +%Y-%m-%d)
started() { date -u -d "$1 + 1 day - 1 year" +%Y-%m-%d; }
committee_conf roles.chair="$CAROL" roles.leader="$LEO" \
	rule.name=fixed-term rule.term=1y keys.bot-key="$BOT" \
	reminders.days-before="30;7" reminders.announce-days-before=30
cat >"$W/history" <<EOF
Event: appoint
Date: $(date -u -d '100 days ago' +%Y-%m-%d)
Member: Carol Chair <carol@example.org>
Fingerprint: $CAROL
Source: import

Event: appoint
Date: $(started "$alice_end")
Member: Alice Member <alice@example.org>
Fingerprint: $ALICE
Source: import

Event: appoint
Date: $(started "$bob_end")
Member: Bob Member <bob@example.org>
Fingerprint: $BOB
Source: import
EOF
"$TENURE" --config "$CONF" init --rule fixed-term --param term=1y \
	--date "$(date -u -d '2 years ago' +%Y-%m-%d)" --history "$W/history" \
	>"$W/out" 2>"$W/log"

run_once() {
	"$TENURE" --config "$CONF" "$@" run --once >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}
sent_of_kind() {
	grep -l "^X-Tenure: $1\$" "$SENT"/* 2>/dev/null | sort
}
# The outbox's record of a Message-ID (its file name: 32 hex digits of
# the SHA-256 of the ID).
record_of() {
	echo "$STATE/outbox/sent/$(printf '%s' "$1" | sha256sum | cut -c1-32)"
}
# The public Message-ID the releases before the secret gave an event.
public_id() {
	local hash check
	hash=$(printf '%s\n%s' "$LIST" "$1" | sha256sum | cut -c1-32)
	check=$(printf '%s\n%s' "$LIST" "$hash" | sha256sum | cut -c1-8)
	echo "<tenure.$hash.$check@example.org>"
}

# Today: Alice's 30-day reminder and the announcement of her coming
# expiry go out, signed by the bot.  Under --now at the real time, as
# the later pass is: --now is a rehearsal's, refused on a state a pass
# at the real time has written (issue 42 item 1).
run_once --now "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
announce=$(sent_of_kind announce-scheduled | head -n 1)
test_begin "the announcement is signed, its Message-ID inside the signed part"
id=$(sed -n 's/^Message-I[Dd]: *//p' "$announce" | head -n 1 | tr -d '\r')
if [ "$(cat "$W/status")" = 0 ] && grep -q "^Content-Type: multipart/signed" "$announce" &&
	grep -q "^X-Tenure-Message-ID: $id" "$announce" && [ -f "$(record_of "$id")" ]; then
	test_pass
else
	test_fail "exit $(cat "$W/status"), id $id" "$(cat "$announce")" "$(cat "$W/log")"
fi

# Oscar takes the list's copy and re-posts it, untouched but for its
# Message-ID header, under the public IDs of Bob's coming reminder,
# Bob's coming announcement and Alice's 7-day reminder.  The outbox's
# record of the announcement itself is gone (a state directory restored
# from before it): the archive holds only Oscar's copies.
rm -f "$(record_of "$id")"
n=0
for key in "reminder/bob@example.org/$bob_end/30" \
	"announce/scheduled/bob@example.org/$bob_end" \
	"reminder/alice@example.org/$alice_end/7"; do
	n=$((n + 1))
	claimed=$(public_id "$key")
	echo "$claimed" >>"$W/claimed"
	awk -v id="$claimed" 'done || !/^Message-I[Dd]:/ { print; next }
		{ print "Message-ID: " id "\r"; done = 1 }' "$announce" >"$W/m/repost$n.eml"
	deliver "$W/archive" "$W/m/repost$n.eml"
done
# And under an ID of its own.
awk 'done || !/^Message-I[Dd]:/ { print; next }
	{ print "Message-ID: <oscar-1@example.net>\r"; done = 1 }' "$announce" >"$W/m/repost4.eml"
deliver "$W/archive" "$W/m/repost4.eml"

"$TENURE" --config "$CONF" import "maildir:$W/archive" >"$W/out" 2>"$W/log"
echo $? >"$W/status"
test_begin "the import exits 0 and finds the bot's signed mail"
if [ "$(cat "$W/status")" = 0 ] && grep -q "^import-own-mail messages=4 " "$W/log"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi

test_begin "no Message-ID outside the signature is recorded as sent"
recorded=
while read -r claimed; do
	[ -f "$(record_of "$claimed")" ] && recorded="$recorded $claimed"
done <"$W/claimed"
[ -f "$(record_of "<oscar-1@example.net>")" ] && recorded="$recorded <oscar-1@example.net>"
if [ -z "$recorded" ]; then
	test_pass
else
	test_fail "recorded:$recorded"
fi

test_begin "the announcement is recorded under the ID the bot signed, noted by the import"
if grep -qx "Message-Id: $id" "$(record_of "$id")" 2>/dev/null &&
	grep -qx "Noted: import" "$(record_of "$id")"; then
	test_pass
else
	test_fail "expected $(record_of "$id")" "$(ls "$STATE/outbox/sent")"
fi

# Fourteen days on: Alice's 7-day reminder, Bob's 30-day reminder and
# the announcement of Bob's coming expiry are all due.
before=$(ls "$SENT" | wc -l)
run_once --now "$(date -u -d '+14 days' +%Y-%m-%d)T12:00:00Z"
test_begin "Bob's reminder still goes out"
if [ "$(cat "$W/status")" = 0 ] &&
	grep -q "^To: .*bob@example.org" $(sent_of_kind reminder) /dev/null; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
test_begin "the announcement of Bob's coming expiry still goes out"
if grep -q "^Cc: .*bob@example.org" $(sent_of_kind announce-scheduled) /dev/null; then
	test_pass
else
	test_fail "expected announce-scheduled for Bob" "$(cat "$W/log")"
fi
test_begin "Alice's 7-day reminder still goes out"
if [ "$(grep -l "^To: .*alice@example.org" $(sent_of_kind reminder) /dev/null | wc -l)" = 2 ]; then
	test_pass
else
	test_fail "expected two reminders to Alice" "$(cat "$W/log")"
fi
test_begin "the announcement of Alice's expiry is not sent again"
test_expect_equal 1 "$(grep -l "^Cc: .*alice@example.org" $(sent_of_kind announce-scheduled) /dev/null | wc -l)"

test_done
