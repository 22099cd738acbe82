#!/bin/sh
# bench/idle-bytes.sh: bytes exchanged by one idle cycle of the IMAP
# source (IDLE until the poll interval ends, DONE, and the look for new
# mail that follows) with 1,000 and with 100,000 messages in the mailbox.
# The two must be the same: an idle cycle costs nothing per message.
#
# The source (driven by tests/unit/source-imap "cycle", the same code the daemon
# runs) talks to Dovecot through bench/byte-counter.py, a TCP relay that
# logs every chunk with its time; the cycle's bytes are those between the
# "cycle start" and "cycle done" marks source-imap prints.  The bytes of
# connecting (TLS, LOGIN, EXAMINE) are shown too, for comparison: EXAMINE
# reports the message count, so they grow by a digit or two.
#
# Run from the build tree: top_builddir=$PWD sh $srcdir/bench/idle-bytes.sh

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/dovecot.sh"

IMAP=$top_builddir/tests/unit/source-imap
[ -x "$IMAP" ] || { echo "no tests/unit/source-imap in $top_builddir (make check builds it)" >&2; exit 1; }
POLL=${POLL:-3}

dovecot_setup
dovecot_start
RELAY_PORT=$(test_free_port)
RELAY_LOG=$TEST_DIR/relay.log
: >"$RELAY_LOG"
/usr/bin/python3 "$top_srcdir/bench/byte-counter.py" "$RELAY_PORT" \
	"$DOVECOT_IMAPS_PORT" "$RELAY_LOG" >"$TEST_DIR/relay.out" 2>&1 &
test_cleanup "kill $!"
until grep -q listening "$TEST_DIR/relay.out"; do sleep 0.05; done

cat >"$TEST_DIR/bytes.conf" <<EOF
[committee]
state-dir = $TEST_DIR/state
ledger = $TEST_DIR/state/ledger
[source]
url = imaps://localhost:$RELAY_PORT
user = $DOVECOT_USER
password-file = $DOVECOT_PASSWORD_FILE
ca-file = $DOVECOT_CA
poll-interval = $POLL
EOF

# bytes_between FROM TO: bytes the relay passed in (FROM, TO], as
# "up down total".
bytes_between() {
	awk -v from="$1" -v to="$2" '
		$1 > from && $1 <= to { if ($2 == "up") up += $3; else down += $3 }
		END { printf "%d %d %d\n", up, down, up + down }' "$RELAY_LOG"
}

# fill TOTAL: brings the mailbox to TOTAL messages, lets Dovecot index
# them and makes the source's first contact after that, so that the
# messages count as old mail (as a list archive would).
filled=0
fill() {
	/usr/bin/python3 "$top_srcdir/bench/make-maildir.py" "$DOVECOT_MAILDIR" \
		"$((filled + 1))" "$(($1 - filled))"
	chown -R mail:mail "$DOVECOT_MAILDIR"
	filled=$1
	echo "# mailbox: $(dovecot_messages) messages"
	rm -f "$TEST_DIR/state/imap-cursor"
	"$IMAP" "$TEST_DIR/bytes.conf" fetch >/dev/null 2>&1
}

# measure MODE: one connection, then one idle cycle; prints the figures.
# MODE "idle" is Dovecot as it is; "poll" restarts it with a capability
# list without IDLE, so that the source polls with NOOP.
measure() {
	if [ "$1" = poll ]; then
		DOVECOT_EXTRA="imap_capability = IMAP4rev1 LITERAL+ SASL-IR LOGIN-REFERRALS ID ENABLE AUTH=PLAIN"
	else
		unset DOVECOT_EXTRA
	fi
	dovecot_restart
	local t0 t1 t2 out mode=$1
	out=$TEST_DIR/cycle.out
	t0=$(date +%s.%N)
	"$IMAP" "$TEST_DIR/bytes.conf" cycle >"$out" 2>"$TEST_DIR/cycle.err" || {
		cat "$TEST_DIR/cycle.err" >&2
		exit 1
	}
	t1=$(awk '/^cycle start/ { print $3 }' "$out")
	t2=$(awk '/^cycle done/ { print $3 }' "$out")
	set -- $(bytes_between "$t0" "$t1")
	connect="$3 (up $1, down $2)"
	set -- $(bytes_between "$t1" "$t2")
	printf '%8d messages, %s: one cycle %5d bytes (up %d, down %d); connecting %s\n' \
		"$(dovecot_messages)" "$mode" "$3" "$1" "$2" "$connect"
}

fill 1000
measure idle
measure poll
fill 100000
measure idle
measure poll
