#!/bin/sh
# t-watchdog-hang.sh: the watchdog hears progress only when every thread
# with due work makes it (issue 43 item 1).  A stand-in for systemd's
# notification socket (tests/lib/notify-listen.py, each message stamped
# with its time), WATCHDOG_USEC=3 s, and the fault shim
# (tests/lib/faultshim.so, TENURE_FAULT_FILE) hanging one file
# operation outside the work lock for good, as a hung disk or NFS mount
# would: the reader's move of a handled message into cur/, and the
# outbox's record of a sent mail while list chat keeps arriving.  The
# other thread goes on, but the daemon must fall silent (systemd would
# restart it); the controls, the same daemons before the hang, keep the
# WATCHDOG=1 coming.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/fault.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3"
command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v bc >/dev/null || test_skip_all "bc is not installed"
fault_require

committee_init
set --
for who in alice bob carol; do
	name="$(echo "$who" | sed 's/./\U&/') Member"
	fpr=$(gpg_new_key "$name" "$who@example.org")
	eval "$(echo "$who" | tr a-z A-Z)=\$fpr"
	set -- "$@" "$name <$who@example.org> $fpr"
done
committee_ledger "$@"
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org
committee_conf source.poll-interval=300

listener=
daemon=
chatter=
stop_all() {
	[ -n "$chatter" ] && kill "$chatter" 2>/dev/null
	[ -n "$daemon" ] && kill -KILL "$daemon" 2>/dev/null
	[ -n "$listener" ] && kill "$listener" 2>/dev/null
	chatter= daemon= listener=
}
test_cleanup stop_all

SOCK=$W/notify.sock MSGS=$W/notify
: >"$MSGS"
/usr/bin/python3 "$top_srcdir/tests/lib/notify-listen.py" "$SOCK" "$MSGS" --time \
	>"$W/listening" &
listener=$!
wait_for 10 'grep -q ready "$W/listening"' || test_skip_all "no listener"

now() { /usr/bin/python3 -c 'import time; print("%.3f" % time.monotonic())'; }
# pings FROM: how many WATCHDOG=1 came since FROM.
pings() {
	awk -v from="$1" '$2 == "WATCHDOG=1" && $1 >= from { n++ } END { print n + 0 }' "$MSGS"
}
# silent_for SECONDS: no WATCHDOG=1 came in the last SECONDS.
silent_for() {
	local last
	last=$(awk '$2 == "WATCHDOG=1" { t = $1 } END { print t + 0 }' "$MSGS")
	[ "$(echo "$(now) - $last >= $1" | bc)" = 1 ]
}
# fell_silent: within 90 s (by the wall clock, each look being slow),
# 8 s (more than 2 periods) came without a WATCHDOG=1.
fell_silent() {
	local end=$(($(date +%s) + 90))
	while [ "$(date +%s)" -lt "$end" ]; do
		silent_for 8 && return 0
		sleep 1
	done
	return 1
}
resigned() { grep -c "^Member: $1 Member" "$W/ledger" | awk '{ print $1 - 1 }'; }
start_daemon() {
	: >"$W/fault"
	env LD_PRELOAD="$FAULTSHIM" TENURE_FAULT_FILE="$W/fault" \
		NOTIFY_SOCKET="$SOCK" WATCHDOG_USEC=3000000 \
		"$TENURE" --config "$CONF" run 2>"$W/$1.log" &
	daemon=$!
}
# expect_pings NAME DESCRIPTION: 5 WATCHDOG=1 come from now on (the
# daemon NAME's log shown if not).
expect_pings() {
	local start
	start=$(now)
	test_begin "$2"
	if wait_for 60 '[ "$(pings "$start")" -ge 5 ]'; then
		test_pass
	else
		test_fail "$(pings "$start") WATCHDOG=1 since" "$(cat "$MSGS")" \
			"$(cat "$W/$1.log")"
	fi
}
# chat N: an unsigned mail to the list, as its discussion goes on.
chat() {
	cat >"$W/m/chat-$1.eml" <<MAIL
From: someone@example.org
To: debian-ctte@lists.debian.org
Subject: about the vote, again
Message-ID: <chat-$1@example.org>
Date: $(date -R)

I still think so.
MAIL
	deliver "$W/inbox" "$W/m/chat-$1.eml"
}

# 1. The reader hangs moving a handled message into cur/.
start_daemon daemon1
deliver "$W/inbox" "$(signed_mail "$ALICE" alice@example.org r-alice "Tenure: resign")"
wait_for 60 '[ "$(resigned Alice)" = 1 ] && [ -z "$(ls "$W/inbox/new")" ]'
expect_pings daemon1 "control: the daemon handles Alice's resignation, moves it into cur/ and keeps saying WATCHDOG=1"

echo 'rename@/inbox/cur/:1:hang' >"$W/fault"
deliver "$W/inbox" "$(signed_mail "$BOB" bob@example.org r-bob "Tenure: resign")"
wait_for 60 '[ "$(resigned Bob)" = 1 ]'
test_begin "Bob's resignation is applied, and the reader hangs moving it into cur/"
sleep 1
test_expect_equal "1 applied, 1 in new/" \
	"$(resigned Bob) applied, $(ls "$W/inbox/new" | wc -l) in new/" \
	"$(cat "$W/daemon1.log")"
test_begin "... the main loop goes on, yet WATCHDOG=1 stops: 8 s (more than 2 periods) without one"
if fell_silent; then
	test_pass
else
	test_fail "WATCHDOG=1 still comes" "$(tail -n 5 "$MSGS")"
fi
test_begin "... and the log names the thread that withholds it"
if grep -q '^watchdog-withheld thread=reader' "$W/daemon1.log"; then
	test_pass
else
	test_fail "$(cat "$W/daemon1.log")"
fi
kill -KILL "$daemon"
wait "$daemon" 2>/dev/null
daemon=

# 2. The main thread hangs writing the record of a sent mail, while list
# chat keeps arriving and the reader keeps handling it.
start_daemon daemon2
n=0
( while :; do n=$((n + 1)); chat "$n"; sleep 0.5; done ) &
chatter=$!
expect_pings daemon2 "control: list chat arriving, the daemon keeps saying WATCHDOG=1"
echo 'write@/outbox/sent/:1:hang' >"$W/fault"
deliver "$W/inbox" "$(signed_mail "$CAROL" carol@example.org r-carol "Tenure: resign")"
# Whole records of sent mail (not the file the hung write began).
records() { find "$W/state/outbox/sent" -type f -size +0 ! -name '*.tn-*' | wc -l; }
sent_before=$(records)
wait_for 60 'grep -q "^sent message-id=" "$W/daemon2.log"'
test_begin "Carol's resignation is applied and announced, and the outbox hangs recording it as sent"
test_expect_equal "1 applied, announced 1, recorded 0" \
	"$(resigned Carol) applied, announced $(grep -c "^sent message-id=" "$W/daemon2.log"), recorded $(($(records) - sent_before))" \
	"$(cat "$W/daemon2.log")"
# Chat handled is moved into cur/.
read_chat() { ls "$W/inbox/cur" | wc -l; }
test_begin "... the reader goes on handling the chat, yet WATCHDOG=1 stops: 8 s without one"
handled=$(read_chat)
if fell_silent; then
	test_pass
else
	test_fail "WATCHDOG=1 still comes" "$(tail -n 5 "$MSGS")"
fi
test_begin "... while the chat was still being read, and the log names the main thread"
if [ "$(read_chat)" -gt "$handled" ] &&
	grep -q '^watchdog-withheld thread=main' "$W/daemon2.log"; then
	test_pass
else
	test_fail "read $handled, then $(read_chat)" "$(tail -n 20 "$W/daemon2.log")"
fi
kill "$chatter"
chatter=
kill -KILL "$daemon"
wait "$daemon" 2>/dev/null
daemon=

test_done
