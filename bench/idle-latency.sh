#!/bin/sh
# bench/idle-latency.sh: from the APPEND of a signed resignation to its
# announcement accepted by the SMTP server, with tenure idling (IDLE) on a
# private Dovecot, over TRIALS trials (default 100); beside it, the time a
# bare IDLE client in the same run takes to see the same APPEND (Dovecot
# holds IDLE notifications back about 500 ms: that is the floor).
#
# Run from the build tree: top_builddir=$PWD sh $srcdir/bench/idle-latency.sh

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/dovecot.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/smtp.sh"
. "$top_srcdir/bench/lib-bench.sh"

TRIALS=${TRIALS:-100}
[ -x "$TENURE" ] || { echo "no tenure binary at $TENURE" >&2; exit 1; }

dovecot_setup
dovecot_start
# Announcements go to the list: into the Maildir Dovecot serves.
SMTP_MAILDIR=$DOVECOT_MAILDIR
smtp_start starttls || exit 1

echo "# making $TRIALS keys and signed resignations"
bench_members "$TRIALS"
bench_conf "max-members = $((TRIALS + 10))"
bench_start_daemon

# shellcheck disable=SC2046
/usr/bin/python3 "$top_srcdir/bench/idle-latency.py" "$DOVECOT_IMAPS_PORT" \
	"$DOVECOT_CA" "$DOVECOT_USER" "$DOVECOT_PASSWORD_FILE" "$DOVECOT_MAILDIR" \
	$(for i in $(seq "$TRIALS"); do echo "$CASE/mails/Trial-$i"; done)
status=$?
bench_stop_daemon
exit $status
