# tests/lib/smtp.sh: a real SMTP server (aiosmtpd, tests/lib/smtpd.py) on a
# loopback port for the mail-out scenarios.  Source it after tests/lib/common.sh.
#
#   smtp_start MODE [--auth USER:PASS] [--port PORT]
#       MODE is plain (no STARTTLS offered), starttls or smtps.  Sets
#       SMTP_PORT, SMTP_MAILDIR (accepted mail, in new/), SMTP_LOG (one
#       line per SMTP event: "MAIL tls", "EHLO clear", ...), SMTP_CA (the
#       test CA that signed the server's certificate) and SMTP_OTHER_CA (a
#       CA that did not).  The certificates are made once per script.
#   smtp_stop               stop the server (the Maildir stays)
#   smtp_answer "451 ..."   answer DATA with this from now on
#   smtp_answer ""          accept mail again
#   smtp_count              how many messages the server accepted
#   smtp_refuse_rcpt ADDRESS ANSWER
#                           answer RCPT TO:<ADDRESS> with ANSWER ("550 5.1.1
#                           no such user") from now on
#   smtp_refuse_rcpt_once ADDRESS ANSWER
#                           the same, for the next RCPT TO:<ADDRESS> only
#                           (a 4xx that the retry gets past)
#   smtp_idle SECONDS [ANSWER]
#                           close sessions idle for SECONDS from now on,
#                           with ANSWER ("421 4.4.2 idle timeout") or
#                           without a word; smtp_idle "" stops it
#   smtp_serve MODE [ARGS]  the server in the foreground (exec), printing its
#                           port on stdout once it listens: for a program
#                           that starts servers itself (tests/unit/out-outbox.c
#                           runs sh -c '. tests/lib/smtp.sh; smtp_serve ...'
#                           with SMTP_DIR and SMTP_CERTS set, tests/lib/common.sh unread)
#
# SMTP_DIR (default $TEST_DIR/smtp) holds Maildir/, log and control;
# SMTP_CERTS (default $SMTP_DIR/certs) the certificates.

SMTP_DIR=${SMTP_DIR:-$TEST_DIR/smtp}
SMTP_CERTS=${SMTP_CERTS:-$SMTP_DIR/certs}
SMTP_MAILDIR=$SMTP_DIR/Maildir
SMTP_LOG=$SMTP_DIR/log
SMTP_CONTROL=$SMTP_DIR/control
SMTP_CA=$SMTP_CERTS/ca.pem
SMTP_OTHER_CA=$SMTP_CERTS/other-ca.pem
SMTP_PID=
SMTP_PORT=

# The test CA and the server's certificate, made once.
_smtp_certs() {
	mkdir -p "$SMTP_DIR" || return 1
	[ -f "$SMTP_CA" ] ||
		/usr/bin/python3 "$top_srcdir/tests/lib/smtpd.py" certs "$SMTP_CERTS"
}

smtp_serve() {
	local mode=$1
	shift
	_smtp_certs || return 1
	exec /usr/bin/python3 "$top_srcdir/tests/lib/smtpd.py" serve --mode "$mode" \
		--maildir "$SMTP_MAILDIR" --certs "$SMTP_CERTS" \
		--log "$SMTP_LOG" --control "$SMTP_CONTROL" "$@"
}

smtp_start() {
	_smtp_certs || return 1
	: >"$SMTP_DIR/port"
	(smtp_serve "$@") >"$SMTP_DIR/port" 2>"$SMTP_DIR/stderr" &
	SMTP_PID=$!
	test_cleanup "kill $SMTP_PID"
	local i=0
	while [ ! -s "$SMTP_DIR/port" ]; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$SMTP_PID" 2>/dev/null; then
			echo "# smtpd did not start:" >&2
			sed 's/^/# /' "$SMTP_DIR/stderr" >&2
			return 1
		fi
		sleep 0.1
	done
	SMTP_PORT=$(head -n 1 "$SMTP_DIR/port")
}

smtp_stop() {
	if [ -n "$SMTP_PID" ]; then
		kill "$SMTP_PID" 2>/dev/null
		wait "$SMTP_PID" 2>/dev/null
		SMTP_PID=
	fi
}

smtp_answer() {
	printf '%s\n' "$1" >"$SMTP_CONTROL"
}

smtp_count() {
	if [ -d "$SMTP_MAILDIR/new" ]; then
		find "$SMTP_MAILDIR/new" -type f | wc -l
	else
		echo 0
	fi
}

smtp_refuse_rcpt() {
	printf '%s %s\n' "$1" "$2" >>"$SMTP_CONTROL.rcpt"
}

smtp_refuse_rcpt_once() {
	printf '%s %s\n' "$1" "$2" >>"$SMTP_CONTROL.rcpt-once"
}

smtp_idle() {
	if [ -n "$1" ]; then
		printf '%s\n' "$*" >"$SMTP_CONTROL.idle"
	else
		rm -f "$SMTP_CONTROL.idle"
	fi
}
