#!/bin/sh
# t-bounces.sh: bounces reach tenure, not the list (issue 42 item 7).
# tenure sends its reminders through the tests' SMTP server
# (tests/lib/smtpd.py, which keeps each mail's envelope sender as
# X-Envelope-From) with the envelope sender [sink] envelope-from; the
# delivery status notifications that exim and Postfix send back
# (tests/data/dsn, with the reminder's real Message-ID put in) arrive in
# the mailbox tenure reads, and each failure is counted as a dead letter
# of that recipient's copy: in status, its JSON and check (WARNING).  The
# ledger is untouched, nobody is answered, a delay is no failure, and a
# report of mail tenure did not send, or of an address it did not send
# to, is logged and counted nowhere.  Then the same with the Maildir
# sink, which records the envelope sender as Return-Path.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/smtp.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/bounces.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
command -v certtool >/dev/null || command -v openssl >/dev/null ||
	test_skip_all "neither certtool nor openssl for the test CA"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
smtp_start plain || test_skip_all "aiosmtpd would not start"

DSN=$top_srcdir/tests/data/dsn
# The Message-ID the reports in tests/data/dsn return.
STANDIN='<tenure.9c1d5e0f7a3b2c4d6e8f0a1b2c3d4e5f.a1b2c3d4@example.org>'

# deliver FILE NAME [ID [ADDRESS]]: the report tests/data/dsn/FILE, with
# the Message-ID ID (and Alice's address replaced by ADDRESS), into the
# source's new/ as NAME, as the bounce address's delivery puts it there.
deliver() {
	local id=${3:-$STANDIN} address=${4:-alice@example.org}
	sed -e "s|$STANDIN|$id|g" -e "s|alice@example\.org|$address|g" \
		"$DSN/$1" >"$CASE/list/tmp/$2"
	mv "$CASE/list/tmp/$2" "$CASE/list/new/$2"
}

# The case (tests/lib/bounces.sh): the sink is the tests' SMTP server.
setup_case smtp "smtp://127.0.0.1:$SMTP_PORT"
cp "$CASE/ledger" "$CASE/ledger.before"

test_begin "check-config refuses an envelope sender that is no address"
sed 's/^envelope-from = .*/envelope-from = tenure bounces/' \
	"$CASE/tenure.conf" >"$CASE/bad.conf"
"$TENURE" --config "$CASE/bad.conf" check-config >"$CASE/bad.out" 2>&1
bad=$?
test_expect_equal "1 yes" \
	"$(grep -c '\[sink\] envelope-from.*"tenure bounces" is not an e-mail address' "$CASE/bad.out") $([ $bad -ne 0 ] && echo yes)"

test_begin "the reminders go out with the configured envelope sender, From: as before"
run_once 2027-10-02T10:00:00Z
alice=$(reminder_to alice@example.org)
bob=$(reminder_to bob@example.org)
alice_id=$(message_id_of "$alice")
bob_id=$(message_id_of "$bob")
sent=$(smtp_count)
test_expect_equal "yes yes 0 yes" \
	"$([ -n "$alice_id" ] && [ -n "$bob_id" ] && echo yes) $(grep -q -x "From: Technical Committee secretary <ctte-bot@example.org>$CR" "$alice" && echo yes) $(grep -L -x "X-Envelope-From: tenure-bounces@example.org$CR" "$SMTP_MAILDIR"/new/* | wc -l | tr -d ' ') $([ "$sent" -ge 2 ] && echo yes)"

test_begin "a delay Postfix reports is no failure"
deliver postfix-delayed.eml delayed "$alice_id"
run_once 2027-10-02T14:15:00Z
test_expect_equal "0 1 0" \
	"$(dead_count) $(grep -c '^bounce .*action=delayed outcome="ignored: not a failure"' "$CASE/err") $(ls "$CASE/list/new" | wc -l | tr -d ' ')"

test_begin "exim's report of Alice's reminder makes her copy a dead letter"
deliver exim-failed.eml exim "$alice_id"
run_once 2027-10-03T10:00:00Z
test_expect_equal "1 1" \
	"$(dead_count) $(grep -c "^bounce .*message-id=$alice_id recipient=alice@example.org status=5.0.0 outcome=dead-letter" "$CASE/err")"

test_begin "Postfix's report of Bob's reminder makes his a dead letter"
deliver postfix-failed.eml postfix "$bob_id" bob@example.org
run_once 2027-10-03T10:05:00Z
test_expect_equal "2 1" \
	"$(dead_count) $(grep -c "^bounce .*message-id=$bob_id recipient=bob@example.org status=5.1.1 outcome=dead-letter" "$CASE/err")"

test_begin "tenure status names both, with the reports' words"
status_at 2027-10-03T10:06:00Z >"$CASE/status"
test_expect_equal "1 1" \
	"$(grep -c "$alice_id.*recipient alice@example.org bounced: Status 5.0.0 (smtp; 550 5.1.1 <alice@example.org>: Recipient address rejected: User unknown in local recipient table); delivery status notification <E1qZ7hE-0003Xk-1L@mail.example.org> from dns; mail.example.org" "$CASE/status") $(grep -c "$bob_id.*recipient bob@example.org bounced: Status 5.1.1" "$CASE/status")"

test_begin "the JSON lists both dead letters"
status_at 2027-10-03T10:06:00Z --format=json >"$CASE/status.json"
test_expect_equal "$(printf '%s bounced\n' "$alice_id" "$bob_id" | sort)" \
	"$(/usr/bin/python3 -c '
import json, sys
for d in json.load(open(sys.argv[1]))["outbox"]["dead"]:
    print(d["message_id"], "bounced" if " bounced: " in d["reason"] else d["reason"])
' "$CASE/status.json" | sort)"

test_begin "check says WARNING, with the dead letters in its figures"
"$TENURE" --config "$CASE/tenure.conf" --now 2027-10-03T10:06:00Z check \
	>"$CASE/check" 2>&1
rc=$?
# Other warnings (two terms end within 90 days) may come first.
test_expect_equal "yes 1 1" \
	"$([ $rc -ge 1 ] && [ $rc -le 2 ] && echo yes) $(grep -c 'WARNING.*2 mail(s) refused for good (dead letters): <' "$CASE/check") $(grep -c '|.* dead=2;0' "$CASE/check")"

test_begin "the ledger is untouched, nobody was answered, the reports were handled"
test_expect_equal "yes $sent 0 0 3" \
	"$(cmp -s "$CASE/ledger" "$CASE/ledger.before" && echo yes) $(smtp_count) $(ls "$CASE/state/outbox/queue" 2>/dev/null | wc -l | tr -d ' ') $(ls "$CASE/list/new" | wc -l | tr -d ' ') $(ls "$CASE/list/cur" | wc -l | tr -d ' ')"

test_begin "the same report again counts nothing more"
deliver exim-failed.eml exim-again "$alice_id"
run_once 2027-10-03T10:10:00Z
test_expect_equal "2 1" \
	"$(dead_count) $(grep -c "^bounce .*recipient=alice@example.org outcome=counted-already" "$CASE/err")"

test_begin "a report of mail tenure did not send is logged and ignored"
deliver exim-failed.eml stranger
run_once 2027-10-03T10:15:00Z
test_expect_equal "2 1" \
	"$(dead_count) $(grep -c "^bounce .*message-id=$STANDIN recipient=alice@example.org outcome=\"ignored: not mail tenure sent\"" "$CASE/err")"

test_begin "a report naming an address tenure did not send that mail to is ignored"
deliver exim-failed.eml carol "$alice_id" carol@example.org
run_once 2027-10-03T10:20:00Z
test_expect_equal "2 1 yes $sent" \
	"$(dead_count) $(grep -c "^bounce .*message-id=$alice_id recipient=carol@example.org outcome=\"ignored: not a recipient of that mail\"" "$CASE/err") $(cmp -s "$CASE/ledger" "$CASE/ledger.before" && echo yes) $(smtp_count)"

# The Maildir sink: the envelope sender is its Return-Path.
setup_case maildir "maildir:$TEST_DIR/maildir/sink"
mkdir -p "$TEST_DIR/maildir/sink/new" "$TEST_DIR/maildir/sink/cur" \
	"$TEST_DIR/maildir/sink/tmp"

test_begin "the Maildir sink records the envelope sender as Return-Path"
run_once 2027-10-02T10:00:00Z
alice=$(grep -l -x "X-Envelope-To: alice@example.org$CR\{0,1\}" \
	"$TEST_DIR/maildir/sink/new"/* | xargs -r grep -l '^Subject: Your term on the' | head -n 1)
alice_id=$(message_id_of "$alice")
test_expect_equal "yes 0" \
	"$([ -n "$alice_id" ] && echo yes) $(grep -L "^Return-Path: <tenure-bounces@example.org>" "$TEST_DIR/maildir/sink/new"/* | wc -l | tr -d ' ')"

test_begin "Postfix's report of a reminder the Maildir sink took is counted"
deliver postfix-failed.eml postfix "$alice_id"
run_once 2027-10-03T10:00:00Z
status_at 2027-10-03T10:01:00Z >"$CASE/status"
test_expect_equal "1 1" \
	"$(dead_count) $(grep -c "$alice_id.*recipient alice@example.org bounced: Status 5.1.1" "$CASE/status")"

test_done
