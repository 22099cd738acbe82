#!/bin/sh
# t-setaside-hang-imap.sh: a mail that kills a pass is set aside after a
# few tries on an IMAP source too (issue 39, item 2), against a private
# Dovecot.  The test hook TENURE_TEST_READ (intake.h) makes the reading
# of one mail never end; four passes are killed in it, as the unit's
# watchdog would kill them, with the cursor held before it; the next
# pass does not read it, and once the IMAP source has given it its
# three fetches, it is set aside, reported, and the member's
# resignation behind it applied.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/dovecot.sh"
. "$top_srcdir/tests/lib/hang.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

dovecot_setup
dovecot_start
committee_init
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB"
committee_conf source.url="imaps://localhost:$DOVECOT_IMAPS_PORT" \
	source.user="$DOVECOT_USER" source.password-file="$DOVECOT_PASSWORD_FILE" \
	source.ca-file="$DOVECOT_CA" source.poll-interval=1

cursor() { sed -n 's/^last-uid=//p' "$W/state/imap-cursor"; }

# First contact, on an empty mailbox: the cursor starts at UIDNEXT.
once
hung_uid=$(dovecot_uidnext)
dovecot_deliver "$(poison_mail mallory hang HANG-ME && echo "$W/m/hang.eml")"
dovecot_deliver "$(signed_mail "$ALICE" alice@example.org a "Tenure: resign")"

reads=0
for i in 1 2 3 4; do
	killed_in_reading HANG-ME && reads=$((reads + 1))
done
test_begin "four passes killed in the hung reading: the cursor stays before it, Alice waits"
if [ "$reads" = 4 ] && [ "$(cursor)" = $((hung_uid - 1)) ] && ! resigned Alice; then
	test_pass
else
	test_fail "$reads readings began, cursor $(cursor)" "$(cat "$W/log.all")"
fi
: >"$W/log.all"
TENURE_TEST_READ=hang:HANG-ME once 30
test_begin "the next pass does not read it, and names why"
if [ "$(cat "$W/status")" = 0 ] && ! grep -q "^test-read " "$W/log" &&
	grep -q "UID=$hung_uid\".*reason=\"its reading never finished 2 times" "$W/log"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
# The IMAP source gives a message that cannot be handled
# IMAP_FAILED_TRIES fetches (imap_failed.h) before it passes it.
TENURE_TEST_READ=hang:HANG-ME once 30
TENURE_TEST_READ=hang:HANG-ME once 30
test_begin "... two fetches later it is set aside, Alice's resignation applied, the cursor past both"
if ! grep -q "^test-read " "$W/log.all" &&
	grep -q "^set-aside id=\"[^\"]*UID=$hung_uid\" tries=3 " "$W/log.all" &&
	resigned Alice && [ "$(cursor)" = $((hung_uid + 1)) ]; then
	test_pass
else
	test_fail "cursor $(cursor)" "$(cat "$W/log.all")"
fi
test_begin "... and the admin's report is sent, naming why"
if report_sent "reading never finished"; then
	test_pass
else
	test_fail "$(ls -R "$W/sent")" "$(cat "$W/log.all")"
fi

test_done
