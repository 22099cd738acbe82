#!/bin/sh
# t-clock-waiting.sh: while tenure doubts its clock, the mail in the
# source waits unread, with no verdict, and `tenure status` says how
# many messages wait (text, TSV, JSON; issue 25 item 2):
#   - the last pass 20 days ahead (a doubt only the admin ends here:
#     Maildir in and out, no NTP), a member's signed resignation and
#     two other mails in the inbox: run --once handles none of them,
#     and status counts 3 in each format (the JSON valid under the
#     schema);
#   - after tenure clock trust, the next pass applies the resignation
#     and status counts nothing;
#   - the same from an mbox and from an IMAP mailbox (Dovecot), whose
#     offset and cursor stay before the mail that waits.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -r /proc/sys/kernel/random/boot_id ] || test_skip_all "no boot id"

TENURE_TEST_CLOCK_NTP=unsynced
export TENURE_TEST_CLOCK_NTP

committee_init
ALICE=$(gpg_new_key "Alice Example" alice@example.org)
committee_ledger "Alice Example <alice@example.org> $ALICE" \
	"Bob Example <bob@example.org>"
gpg_export_keyring "$W/keyring.gpg" alice@example.org
committee_conf
STATE=$W/state

once() {
	: >"$W/log"
	"$TENURE" --config "$CONF" run --once >>"$W/out" 2>>"$W/log"
}

test_begin "on the right clock the pass is recorded, nothing waits"
once
test_expect_equal "0 yes" "$? $([ -s "$STATE/clock" ] && echo yes)" \
	"$(cat "$W/log")"

# The last pass 20 days ahead, in this boot: the clock moved 20 days
# further than the time since.
checked=$(sed -n 's/^Checked: //p' "$STATE/clock")
sed -i "s/^Checked: .*/Checked: $((checked - 20 * 86400))/" "$STATE/clock"
state_reseal "$STATE/clock"
deliver "$W/inbox" "$(signed_mail "$ALICE" alice@example.org wait-resign "Tenure: resign")"
for i in 1 2; do
	printf 'From: someone@example.org\nTo: debian-ctte@lists.debian.org\nMessage-ID: <talk-%s@example.org>\nSubject: talk\n\nsome talk\n' \
		"$i" >"$W/m/talk-$i.eml"
	deliver "$W/inbox" "$W/m/talk-$i.eml"
done

test_begin "in doubt: no message is handled, all three wait in the source"
once
test_expect_equal "1 1 0 3" \
	"$? $(grep -c '^clock-doubt reason="tenure.s clock moved \(19 days 23\|20 days 0\) h further' "$W/log") $(grep -c '^Event: resign' "$W/ledger") $(ls "$W/inbox/new" | wc -l | tr -d ' ')" \
	"$(cat "$W/log")"

test_begin "status counts them: text, TSV"
"$TENURE" --config "$CONF" status >"$W/status" 2>&1
"$TENURE" --config "$CONF" status --format=tsv >"$W/status.tsv" 2>&1
test_expect_equal "1 1" \
	"$(grep -c '^Clock: 3 message(s) wait in the source, unread, until tenure trusts its clock$' "$W/status") $(grep -c '^clock-waiting	3	' "$W/status.tsv")" \
	"$(cat "$W/status" "$W/status.tsv")"

test_begin "... and JSON (clock_doubt.waiting), valid under the schema"
"$TENURE" --config "$CONF" status --format=json >"$W/status.json" 2>&1
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	test_expect_equal "3 ok" "$(/usr/bin/python3 -c '
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
errors = [e.message[:200] for e in jsonschema.Draft202012Validator(schema).iter_errors(d)]
print(d["clock_doubt"]["waiting"], "\n".join(errors) or "ok")' "$top_srcdir/doc/tenure.schema.json" "$W/status.json")"
else
	test_fail "python3-jsonschema is not installed"
fi

test_begin "after tenure clock trust the resignation is applied, and nothing is counted"
"$TENURE" --config "$CONF" clock trust >/dev/null 2>>"$W/log"
once
status=$?
"$TENURE" --config "$CONF" status >"$W/status" 2>&1
"$TENURE" --config "$CONF" status --format=tsv >"$W/status.tsv" 2>&1
test_expect_equal "0 1 0 0 0" \
	"$status $(grep -c '^Event: resign' "$W/ledger") $(ls "$W/inbox/new" | wc -l | tr -d ' ') $(grep -c '^Clock: [0-9]* message' "$W/status") $(grep -c '^clock-waiting' "$W/status.tsv")" \
	"$(cat "$W/log" "$W/status")"

# --- The same from an mbox ----------------------------------------------

# The offset kept stays before the mail that waits.
committee_ledger --file "$W/mbox-ledger" \
	"Alice Example <alice@example.org> $ALICE" \
	"Bob Example <bob@example.org>"
CONF=$W/mbox.conf
committee_conf "$CONF" committee.ledger=mbox-ledger \
	committee.state-dir=mbox-state "source.url=mbox:$W/list.mbox"
STATE=$W/mbox-state
: >"$W/list.mbox"
once
checked=$(sed -n 's/^Checked: //p' "$STATE/clock")
sed -i "s/^Checked: .*/Checked: $((checked - 20 * 86400))/" "$STATE/clock"
state_reseal "$STATE/clock"
for mail in "$(signed_mail "$ALICE" alice@example.org mbox-resign "Tenure: resign")" \
	"$W/m/talk-1.eml"; do
	printf 'From someone@example.org %s\n' "$(date -u '+%a %b %e %H:%M:%S %Y')"
	cat "$mail"
	printf '\n'
done >>"$W/list.mbox"
test_begin "mbox, in doubt: nothing is handled, status counts 2"
once
status=$?
"$TENURE" --config "$CONF" status >"$W/status" 2>&1
test_expect_equal "1 0 1" \
	"$status $(grep -c '^Event: resign' "$W/mbox-ledger") $(grep -c '^Clock: 2 message(s) wait' "$W/status")" \
	"$(cat "$W/log" "$W/status")"
test_begin "mbox, after tenure clock trust: the resignation is applied"
"$TENURE" --config "$CONF" clock trust >/dev/null 2>>"$W/log"
once
status=$?
"$TENURE" --config "$CONF" status >"$W/status" 2>&1
test_expect_equal "0 1 0" \
	"$status $(grep -c '^Event: resign' "$W/mbox-ledger") $(grep -c '^Clock: [0-9]* message' "$W/status")" \
	"$(cat "$W/log" "$W/status")"

# --- The same from an IMAP mailbox ---------------------------------------

# The cursor stays before the mail that waits: after the trust, the
# resignation is read and applied.  Dovecot on this host is no witness.
if command -v dovecot >/dev/null && command -v certtool >/dev/null; then
	. "$top_srcdir/tests/lib/dovecot.sh"
	dovecot_setup
	dovecot_start
	committee_ledger --file "$W/imap-ledger" \
		"Alice Example <alice@example.org> $ALICE" \
		"Bob Example <bob@example.org>"
	CONF=$W/imap.conf
	committee_conf "$CONF" committee.ledger=imap-ledger \
		committee.state-dir=imap-state \
		"source.url=imaps://127.0.0.1:$DOVECOT_IMAPS_PORT/INBOX" \
		"source.user=$DOVECOT_USER" \
		"source.password-file=$DOVECOT_PASSWORD_FILE" \
		"source.ca-file=$DOVECOT_CA"
	STATE=$W/imap-state
	once
	checked=$(sed -n 's/^Checked: //p' "$STATE/clock")
	sed -i "s/^Checked: .*/Checked: $((checked - 20 * 86400))/" "$STATE/clock"
	state_reseal "$STATE/clock"
	dovecot_deliver "$(signed_mail "$ALICE" alice@example.org imap-resign "Tenure: resign")"
	dovecot_deliver "$W/m/talk-1.eml"
	test_begin "IMAP, in doubt: nothing is handled, status counts 2, the cursor stays before them"
	once
	status=$?
	"$TENURE" --config "$CONF" status >"$W/status" 2>&1
	test_expect_equal "1 0 1 0" \
		"$status $(grep -c '^Event: resign' "$W/imap-ledger") $(grep -c '^Clock: 2 message(s) wait' "$W/status") $(grep -c '^last-uid=[1-9]' "$STATE/imap-cursor")" \
		"$(cat "$W/log" "$W/status" "$STATE/imap-cursor")"
	test_begin "IMAP, after tenure clock trust: the resignation is applied, the cursor past both"
	"$TENURE" --config "$CONF" clock trust >/dev/null 2>>"$W/log"
	once
	status=$?
	"$TENURE" --config "$CONF" status >"$W/status" 2>&1
	test_expect_equal "0 1 0 1" \
		"$status $(grep -c '^Event: resign' "$W/imap-ledger") $(grep -c '^Clock: [0-9]* message' "$W/status") $(grep -c '^last-uid=2$' "$STATE/imap-cursor")" \
		"$(cat "$W/log" "$W/status")"
else
	test_begin "IMAP, in doubt: nothing is handled, status counts 2, the cursor stays before them"
	test_skip "needs dovecot (dovecot-imapd) and certtool (gnutls-bin)"
fi

test_done
