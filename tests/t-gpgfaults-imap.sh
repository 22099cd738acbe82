#!/bin/sh
# t-gpgfaults-imap.sh: "cannot decide now" is not "no" on an IMAP source
# (issue 16, item 1), against a private Dovecot.  A mail gpg gives no
# verdict on holds the cursor (it is never passed while it waits), the
# mail behind it is acted on all the same, and it is applied once gpg
# answers; after retry-hours it is recorded as failed, the cursor moves
# on, and it is reported.  The fake gpg is tests/lib/fake-gpg.sh.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/dovecot.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"

dovecot_setup
dovecot_start
committee_init
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
CAROL=$(gpg_new_key "Carol Member" carol@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB" \
	"Carol Member <carol@example.org> $CAROL"
committee_conf keys.gpg-timeout=2 \
	source.url="imaps://localhost:$DOVECOT_IMAPS_PORT" \
	source.user="$DOVECOT_USER" source.password-file="$DOVECOT_PASSWORD_FILE" \
	source.ca-file="$DOVECOT_CA" source.poll-interval=1

. "$top_srcdir/tests/lib/fakegpg.sh"

cursor() {
	sed -n 's/^last-uid=//p' "$W/state/imap-cursor"
}

# First contact, on an empty mailbox: the cursor starts at UIDNEXT.
fault pass
once
a_uid=$(dovecot_uidnext)
dovecot_deliver "$(signed_mail "$ALICE" alice@example.org a "Tenure: resign")"
dovecot_deliver "$(signed_mail "$BOB" bob@example.org b "Tenure: resign")"
b_uid=$((a_uid + 1))

fault exit2 1
once
test_begin "gpg exiting 2 on an IMAP message: it is not refused, and the cursor does not pass it"
if [ "$(cursor)" != $((a_uid - 1)) ]; then
	test_fail "expected last-uid=$((a_uid - 1)), got $(cursor)" "$(cat "$W/log")"
elif resigned Alice || grep -q '^refused ' "$W/log"; then
	test_fail "Alice's mail was decided" "$(cat "$W/log")"
elif ! grep -q "^deferred id=\"INBOX;UIDVALIDITY=[0-9]*/;UID=$a_uid\" reason=.*gpg" "$W/log"; then
	test_fail "expected a deferred line" "$(cat "$W/log")"
else
	test_pass
fi
test_begin "... and the message behind it is acted on"
if resigned Bob; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
before=$(events)
fault pass
once
test_begin "... a pass before its next try acts on nothing twice"
if [ "$(events)" = "$before" ] && ! resigned Alice && [ "$(cursor)" = $((a_uid - 1)) ]; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
once +2m
test_begin "... once gpg answers it is applied, and the cursor moves past both"
if resigned Alice && [ "$(cursor)" = "$b_uid" ] && [ "$(cat "$W/status")" = 0 ]; then
	test_pass
else
	test_fail "cursor $(cursor), exit $(cat "$W/status")" "$(cat "$W/log")"
fi

# A message gpg never answers on: after retry-hours, recorded as failed
# and reported; the cursor moves on.
c_uid=$(dovecot_uidnext)
dovecot_deliver "$(signed_mail "$CAROL" carol@example.org c "Tenure: resign")"
fault exit2
once +3m
once +26h
test_begin "after retry-hours the IMAP message is recorded as failed, and the cursor moves past it"
if grep -q "^\[uid [0-9]*/$c_uid\]" "$W/state/imap-failed" &&
	[ "$(cursor)" = "$c_uid" ] && ! resigned Carol &&
	grep -q "^set-aside id=\"INBOX;UIDVALIDITY=[0-9]*/;UID=$c_uid\" .*report=yes" "$W/log"; then
	test_pass
else
	test_fail "cursor $(cursor)" "$(cat "$W/state/imap-failed" 2>&1)" "$(cat "$W/log")"
fi
test_begin "... and reported to [sink] from"
if grep -l "set aside without a verdict" "$W/sent"/*/* 2>/dev/null | xargs grep -q "UID=$c_uid"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi

test_done
