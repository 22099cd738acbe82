#!/bin/sh
# t-ownmail.sh: tenure's own mail cannot be claimed by someone else
# (issue 24 item 8).  tenure's Message-IDs were a public hash of the list
# address and the event, and `tenure import` recorded any archived mail
# bearing one as sent.  Here an outsider posts three unsigned mails under
# the IDs a member's coming reminder, expiry announcement and
# announcement of the expiry would have had under that public hash; the
# archive is imported (the rebuild path), and all three still go out.
# An installation's Message-IDs are keyed by its secret
# (STATE_DIR/message-id-key, mode 0600), made by `tenure init`.  Keys
# and mail are made for the run.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v sha256sum >/dev/null || test_skip_all "sha256sum is not installed"

committee_init

CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	leo@example.org

LIST=debian-ctte@lists.debian.org
SENT=$W/sent/new
STATE=$W/state

# One-year terms; Alice's ends in 20 days.
expiry=$(date -u -d '+20 days' +%Y-%m-%d)
appointed=$(date -u -d "$expiry + 1 day - 1 year" +%Y-%m-%d)
committee_conf roles.chair="$CAROL" roles.leader="$LEO" \
	rule.name=fixed-term rule.term=1y \
	reminders.days-before="30;7" reminders.announce-days-before=30
cat >"$W/history" <<EOF
Event: appoint
Date: $appointed
Member: Carol Chair <carol@example.org>
Fingerprint: $CAROL
Source: import

Event: appoint
Date: $appointed
Member: Alice Member <alice@example.org>
Fingerprint: $ALICE
Source: import
EOF
"$TENURE" --config "$CONF" init --rule fixed-term --param term=1y \
	--date "$(date -u -d '2 years ago' +%Y-%m-%d)" --history "$W/history" \
	>"$W/out" 2>"$W/log"

test_begin "init makes the installation's Message-ID secret, mode 0600"
if [ "$(stat -c %a "$STATE/message-id-key" 2>/dev/null)" = 600 ] &&
	grep -Eqx '[0-9a-f]{64}' "$STATE/message-id-key"; then
	test_pass
else
	test_fail "expected $STATE/message-id-key, 64 hex digits, mode 0600" \
		"$(ls -l "$STATE" 2>&1)" "$(cat "$W/log")"
fi

# The Message-ID the releases before the secret gave an event key: the
# first 32 hex digits of SHA-256("LIST\nKEY"), a dot, and 8 of
# SHA-256("LIST\nHASH"), at the domain of [sink] from.
public_id() {
	local hash check
	hash=$(printf '%s\n%s' "$LIST" "$1" | sha256sum | cut -c1-32)
	check=$(printf '%s\n%s' "$LIST" "$hash" | sha256sum | cut -c1-8)
	echo "tenure.$hash.$check@example.org"
}

# Oscar, who has no key, posts three mails under those IDs.
n=0
for key in "reminder/alice@example.org/$expiry/30" \
	"announce/scheduled/alice@example.org/$expiry" \
	"announce/expire/alice@example.org/$expiry"; do
	n=$((n + 1))
	printf 'From: oscar@example.org\nTo: %s\nSubject: hello %s\nDate: %s\nMessage-ID: <%s>\n\nhello\n' \
		"$LIST" "$n" "$(date -R)" "$(public_id "$key")" >"$W/m/claim$n.eml"
	deliver "$W/archive" "$W/m/claim$n.eml"
done
"$TENURE" --config "$CONF" import "maildir:$W/archive" >"$W/out" 2>"$W/log"

test_begin "the outsider's mails under tenure's would-be IDs are not recorded as tenure's"
if grep -q "import-own-mail" "$W/log"; then
	test_fail "expected no import-own-mail line" "$(cat "$W/log")"
else
	test_pass
fi

run_once() {
	"$TENURE" --config "$CONF" "$@" run --once >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}

sent_of_kind() {
	grep -l "^X-Tenure: $1\$" "$SENT"/* 2>/dev/null | sort
}

# Under --now at the real time, as the later pass is: --now is a
# rehearsal's, refused on a state a pass at the real time has written
# (issue 42 item 1).
run_once --now "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
test_begin "the member's reminder still goes out"
reminder=$(grep -l "^To: .*alice@example.org" $(sent_of_kind reminder) /dev/null)
if [ -n "$reminder" ]; then
	test_pass
else
	test_fail "expected a reminder to Alice" "$(cat "$W/log")"
fi

test_begin "the announcement of her expiry still goes out"
if grep -q "^Cc: .*alice@example.org" $(sent_of_kind announce-scheduled) /dev/null; then
	test_pass
else
	test_fail "expected announce-scheduled" "$(cat "$W/log")"
fi

test_begin "tenure's own Message-IDs are not the public ones"
if grep -q "$(public_id "reminder/alice@example.org/$expiry/30")" "$reminder"; then
	test_fail "the reminder went out under the public ID"
else
	test_pass
fi

run_once --now "$(date -u -d "$expiry + 1 day" +%Y-%m-%d)T12:00:00Z"
test_begin "the expiry itself is announced"
if grep -q "^Subject: .*Alice Member expired" $(sent_of_kind announce-expire) /dev/null; then
	test_pass
else
	test_fail "expected announce-expire" "$(cat "$W/log")"
fi

# The list's copy of tenure's own mail, imported, is recorded as sent
# (the mail is known by an ID made with the secret).
rm -rf "$W/archive"
for f in "$SENT"/*; do
	deliver "$W/archive" "$f"
done
"$TENURE" --config "$CONF" import "maildir:$W/archive" >"$W/out" 2>"$W/log"
test_begin "the archive's copies of tenure's own mail are recognised"
if grep -q "import-own-mail messages=$(ls "$SENT" | wc -l | tr -d ' ')" "$W/log"; then
	test_pass
else
	test_fail "expected every sent mail recognised as tenure's" "$(cat "$W/log")"
fi

test_done
