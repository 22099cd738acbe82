#!/bin/sh
# t-clock-lowerbound.sh: an IMAP INTERNALDATE vouches only for "not
# behind" (issue 33 item 2).  The real Dovecot is the only witness that
# speaks (the tests' SMTP server gives no date in its greeting, as
# Postfix's does not); after a reboot with tenure's clock 40 days ahead:
#   - the mailbox's INTERNALDATEs agree (tenure is not behind) but vouch
#     for no jump: the 2-day jump limit holds, no expiry is recorded or
#     announced, run --once exits 1, and no "a witness agrees" is logged;
#   - the record keeps no Witness-Dated from a lower bound, so the start
#     waits for none;
#   - a server's exact reading (the SMTP greeting's date, 40 days ahead
#     too) does vouch for the jump, and the expiry is recorded.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/clock.sh"
. "$top_srcdir/tests/lib/smtp.sh"
. "$top_srcdir/tests/lib/dovecot.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
[ -r /proc/sys/kernel/random/boot_id ] || test_skip_all "no boot id"
dovecot_setup
dovecot_start
smtp_start plain || test_skip_all "aiosmtpd would not start"

FAKETIME_DONT_FAKE_MONOTONIC=1
TENURE_TEST_CLOCK_NTP=unsynced
# The tests' servers are on this host: witnesses only as the tests say.
TENURE_TEST_CLOCK_LOCAL_WITNESS=1
export FAKETIME_DONT_FAKE_MONOTONIC TENURE_TEST_CLOCK_NTP \
	TENURE_TEST_CLOCK_LOCAL_WITNESS

committee_init
printf 'From: someone@example.org\nTo: ctte@lists.example.org\nMessage-ID: <hello@example.org>\nSubject: hello\n\nhello\n' \
	>"$W/hello.eml"
dovecot_deliver "$W/hello.eml"

clock_committee "$W/c" \
	"source.url=imaps://127.0.0.1:$DOVECOT_IMAPS_PORT/INBOX" \
	"source.user=$DOVECOT_USER" \
	"source.password-file=$DOVECOT_PASSWORD_FILE" \
	"source.ca-file=$DOVECOT_CA" \
	"sink.url=smtp://127.0.0.1:$SMTP_PORT" sink.starttls=no

expired_mails() {
	grep -l 'Erin Example expired' "$SMTP_MAILDIR"/new/* 2>/dev/null |
		wc -l | tr -d ' '
}

rm -f "$SMTP_CONTROL.date"
test_begin "on the right clock, the mailbox read: the pass is recorded, no witness heard from a lower bound"
"$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "0 0 0" \
	"$? $(clock_expires) $(grep -c '^Witness-' "$DIR/state/clock")" \
	"$(cat "$DIR/log" "$DIR/state/clock")"

clock_reboot
test_begin "after a reboot 40 days ahead, IMAP the only witness: no expiry recorded or announced, exit 1"
"$FAKED" +40d "$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "1 0 0 1 0" \
	"$? $(clock_expires) $(expired_mails) $(grep -c '^clock-doubt reason="tenure.s clock moved \(39 days 23\|40 days 0\) h across a restart.*no witness that gives its time' "$DIR/log") $(grep -c 'a witness agrees' "$DIR/log")" \
	"$(cat "$DIR/log")"

test_begin "... a second pass the same: the INTERNALDATEs never end the doubt"
"$FAKED" +40d "$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "1 0 0" "$? $(clock_expires) $(grep -c '^clock-trusted' "$DIR/log")" \
	"$(cat "$DIR/log")"

test_begin "a record from before (Witness-Heard, written for an INTERNALDATE), on the right clock after a reboot: no start wait for good, the pass acts"
clock_committee "$W/upgrade" \
	"source.url=imaps://127.0.0.1:$DOVECOT_IMAPS_PORT/INBOX" \
	"source.user=$DOVECOT_USER" \
	"source.password-file=$DOVECOT_PASSWORD_FILE" \
	"source.ca-file=$DOVECOT_CA" \
	"sink.url=smtp://127.0.0.1:$SMTP_PORT" sink.starttls=no
"$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
printf 'Witness-Heard: %s\n' "$(date +%s)" >>"$DIR/state/clock"
clock_reboot
"$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "0 0" "$? $(grep -c '^clock-doubt' "$DIR/log")" \
	"$(cat "$DIR/log" "$DIR/state/clock")"

DIR=$W/c
CONF=$DIR/tenure.conf
test_begin "the SMTP server's greeting gives its date, 40 days ahead too: an exact reading vouches, the expiry is recorded"
echo $((40 * 86400)) >"$SMTP_CONTROL.date"
# The greeting is read when mail goes out: a resignation to announce.
printf '\nEvent: resign\nDate: %s\nMember: Frank Example <frank@example.org>\nSource: <resign-frank@example.org>\n' \
	"$(date -u -d '40 days' +%F)" >>"$DIR/ledger"
"$FAKED" +40d "$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "0 1 1" \
	"$? $(clock_expires) $(grep -c '^clock-trusted .*why="the SMTP server 127.0.0.1:[0-9]* agrees"' "$DIR/log")" \
	"$(cat "$DIR/log")"
rm -f "$SMTP_CONTROL.date"

test_done
