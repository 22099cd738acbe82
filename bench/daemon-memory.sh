#!/bin/sh
# bench/daemon-memory.sh: resident memory of `tenure run` over CYCLES
# passes (default 1000), sampled every hundred; the target is under 20 MB
# and no growth.
#
# Each pass is driven by a message appended over IMAP: the daemon wakes
# from IDLE, fetches, hands the message to the intake, runs the schedule
# and flushes the outbox.  Most messages are list chatter; every
# hundredth is a signed resignation, so gpg, the ledger, the outbox and
# SMTP take part too (their announcements come back through the list and
# are ignored, as in life).  Dovecot holds IDLE notifications back about
# 500 ms, so 1000 passes take some 10 minutes.
#
# Run from the build tree: top_builddir=$PWD sh $srcdir/bench/daemon-memory.sh

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/dovecot.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/smtp.sh"
. "$top_srcdir/bench/lib-bench.sh"

CYCLES=${CYCLES:-1000}
[ -x "$TENURE" ] || { echo "no tenure binary at $TENURE" >&2; exit 1; }

dovecot_setup
dovecot_start
SMTP_MAILDIR=$DOVECOT_MAILDIR
smtp_start starttls || exit 1

signed=$((CYCLES / 100 + 1))
bench_members "$signed"
bench_conf "max-members = $((signed + 10))"
bench_start_daemon

# shellcheck disable=SC2046
/usr/bin/python3 "$top_srcdir/bench/cycle-driver.py" "$DAEMON" "$CASE/log" \
	"$DOVECOT_IMAPS_PORT" "$DOVECOT_CA" "$DOVECOT_USER" "$DOVECOT_PASSWORD_FILE" \
	"$CYCLES" $(for i in $(seq "$signed"); do echo "$CASE/mails/Trial-$i"; done)
status=$?
echo "# resignations recorded: $(grep -c '^Event: resign' "$CASE/ledger"), announcements sent: $(grep -c '^sent ' "$CASE/log")"
bench_stop_daemon
exit $status
