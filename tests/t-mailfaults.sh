#!/bin/sh
# t-mailfaults.sh: the mail promise under faults.  A full disk (a small
# tmpfs, or tests/lib/faultshim.so failing writes with ENOSPC) never repeats
# mail; a server refusing every message (554 greeting, 530 at MAIL FROM)
# keeps the queue; the reply limit survives a crash; SIGTERM and SIGHUP
# are honoured during every wait.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/smtp.sh"
. "$top_srcdir/tests/lib/fault.sh"
. "$top_srcdir/tests/lib/gpg.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
command -v gpg >/dev/null || test_skip_all "no gpg"
command -v certtool >/dev/null || command -v openssl >/dev/null ||
	test_skip_all "neither certtool nor openssl for the test CA"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
fault_require

smtp_start plain || test_skip_all "aiosmtpd would not start"

# setup_case NAME SINK-URL: a ledger whose resignation came by mail (so
# the schedule announces it: one mail to send), an empty list Maildir,
# state and a configuration.
setup_case() {
	CASE=$TEST_DIR/$1
	mkdir -p "$CASE/list/new" "$CASE/list/cur" "$CASE/list/tmp"
	cat >"$CASE/tenure.conf" <<EOF
[committee]
name = Technical Committee
list = ctte@lists.example.org
ledger = $CASE/ledger
state-dir = ${STATE:-$CASE/state}
templates = $top_srcdir/templates

[rule]
name = none

[keys]
gnupg-home = $CASE/gnupg

[source]
url = maildir:$CASE/list

[sink]
url = $2
from = ctte-bot@example.org
starttls = no
EOF
	cat >"$CASE/ledger" <<'EOF'
Event: appoint
Date: 2026-01-05
Member: Erin Example <erin@example.org>
Source: import

Event: resign
Date: 2026-12-31
Member: Erin Example <erin@example.org>
Source: <resign-erin@example.org>
EOF
}

# run_once WHEN: one pass on a clock stopped at WHEN (--now would keep
# the mail from the SMTP server).
run_once() {
	tenure_at "$1" --config "$CASE/tenure.conf" run --once \
		>"$CASE/stdout" 2>"$CASE/err"
}

count() {
	ls "$1" 2>/dev/null | wc -l | tr -d ' '
}

# The announcements of Erin's resignation the SMTP server took.
delivered() {
	grep -l 'Erin Example resigns' "$SMTP_MAILDIR"/new/* 2>/dev/null |
		wc -l | tr -d ' '
}

# wait_for SECONDS 'CONDITION': polls CONDITION every 0.1 s.
wait_for() {
	local tries=$(($1 * 10))
	while [ $tries -gt 0 ]; do
		eval "$2" && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

# --- A full disk -----------------------------------------------------

test_begin "sent record not writable (ENOSPC): run --once exits 1 and says why"
setup_case nospace-once "maildir:$TEST_DIR/nospace-once/out"
if with_fault 'write@/outbox/sent/:1+:ENOSPC' run_once 2026-12-31T10:00:00Z; then
	test_fail "run --once succeeded without its sent record"
else
	test_expect_equal "1 1" \
		"$(grep -c '^tenure run: .*sent but not recorded.*No space left on device' "$CASE/err") $(count "$CASE/out/new")"
fi

test_begin "disk back: the Maildir sink's copy is found and recorded, not delivered again"
run_once 2026-12-31T10:05:00Z
test_expect_equal "0 1 0 1 1" \
	"$? $(count "$CASE/out/new") $(count "$CASE/state/outbox/queue") $(count "$CASE/state/outbox/sent") $(grep -c 'sent-recorded.*found in the sink' "$CASE/err")"

test_begin "queue not writable before sending: nothing is sent, run --once exits 1"
setup_case nospace-before "smtp://127.0.0.1:$SMTP_PORT"
smtp_stop
run_once 2026-12-31T10:00:00Z   # queued; the server is down
smtp_start plain --port "$SMTP_PORT"
before=$(delivered)
with_fault 'write@/outbox/:1+:ENOSPC' run_once 2026-12-31T12:00:00Z
status=$?
test_expect_equal "1 $before 1" "$status $(delivered) $(count "$CASE/state/outbox/queue")"

test_begin "disk back: the announcement goes out once"
run_once 2026-12-31T12:10:00Z && run_once 2026-12-31T12:20:00Z
test_expect_equal "0 $((before + 1)) 0" "$? $(delivered) $(count "$CASE/state/outbox/queue")"

# The daemon, with the disk full for sent records while it runs: the
# mail goes out once, the outbox holds (and says so) instead of sending
# again at every pass.
test_begin "daemon, sent record not writable: the mail is sent once and the outbox holds"
setup_case nospace-daemon "smtp://127.0.0.1:$SMTP_PORT"
before=$(delivered)
echo 'write@/outbox/sent/:1+:ENOSPC' >"$CASE/fault"
LD_PRELOAD=$FAULTSHIM TENURE_FAULT_FILE=$CASE/fault \
	"$TENURE" --config "$CASE/tenure.conf" run 2>"$CASE/log" &
DAEMON=$!
test_cleanup "kill $DAEMON"
wait_for 10 'grep -q "^outbox-hold" "$CASE/log"'
sleep 4
test_expect_equal "$((before + 1)) 1 1" \
	"$(delivered) $(grep -c '^outbox-hold.*retry-in=60 .*No space left on device' "$CASE/log") $(grep -c '^smtp ' "$CASE/log")"

test_begin "daemon stopped while held: the Maildir of the SMTP server got the mail once"
kill -TERM $DAEMON
wait $DAEMON
test_expect_equal "0 $((before + 1)) 1" "$? $(delivered) $(count "$CASE/state/outbox/queue")"

# A real small file system, filled up, where mount works (root here and
# in CI; elsewhere this part is skipped, the shim above covers it).
TMPFS=$TEST_DIR/tmpfs
mkdir -p "$TMPFS"
if mount -t tmpfs -o size=512k tmpfs "$TMPFS" 2>/dev/null; then
	test_cleanup "umount $TMPFS"
	test_begin "state on a full tmpfs: nothing is sent, run --once exits 1 naming the device error"
	STATE=$TMPFS/state setup_case on-tmpfs "smtp://127.0.0.1:$SMTP_PORT"
	smtp_stop
	run_once 2026-12-31T10:00:00Z   # queued; the server is down
	smtp_start plain --port "$SMTP_PORT"
	before=$(delivered)
	dd if=/dev/zero of="$TMPFS/fill" bs=4k 2>/dev/null
	run_once 2026-12-31T12:00:00Z
	status=$?
	test_expect_equal "1 $before yes" \
		"$status $(delivered) $(grep -q 'No space left on device' "$CASE/err" && echo yes)"

	test_begin "tmpfs with room again: the announcement goes out once"
	rm -f "$TMPFS/fill"
	run_once 2026-12-31T12:10:00Z && run_once 2026-12-31T12:20:00Z
	test_expect_equal "0 $((before + 1))" "$? $(delivered)"
else
	echo "# mount -t tmpfs is not allowed here; the small-tmpfs checks are left out"
fi

# --- Refusals at connection level ------------------------------------

for refusal in "greeting:554 5.3.2 no SMTP service here" \
	"mail:530 5.7.0 Authentication required"; do
	step=${refusal%%:*}
	answer=${refusal#*:}
	test_begin "$answer at the $step: the mail stays queued, run --once exits 1, no dead letter"
	setup_case "refused-$step" "smtp://127.0.0.1:$SMTP_PORT"
	before=$(delivered)
	printf '%s\n' "$answer" >"$SMTP_CONTROL.$step"
	run_once 2026-12-31T10:00:00Z
	status=$?
	test_expect_equal "1 $before 1 0" \
		"$status $(delivered) $(count "$CASE/state/outbox/queue") $(count "$CASE/state/outbox/dead")"

	test_begin "$answer at the $step: tenure status quotes the server"
	"$TENURE" --config "$CASE/tenure.conf" --now 2026-12-31T10:00:10Z status \
		>"$CASE/status" 2>&1
	test_expect_equal "1" "$(grep -c "next 2026-12-31 10:01:00 UTC: .*$answer" "$CASE/status")"

	test_begin "$answer at the $step: still waiting before the retry is due, run --once exits 1"
	run_once 2026-12-31T10:00:30Z
	test_expect_equal "1 $before" "$? $(delivered)"

	test_begin "$answer at the $step: the server fixed, the retry delivers it once"
	rm -f "$SMTP_CONTROL.$step"
	run_once 2026-12-31T10:01:00Z && run_once 2026-12-31T10:30:00Z
	test_expect_equal "0 $((before + 1)) 0 0" \
		"$? $(delivered) $(count "$CASE/state/outbox/queue") $(count "$CASE/state/outbox/dead")"
done

# --- Stopping on time --------------------------------------------------

# start_netstall: a server that accepts and never says a word; sets
# STALL_PORT and STALL_LOG (an "ACCEPT" line per connection).
start_netstall() {
	STALL_LOG=$TEST_DIR/netstall.log
	: >"$STALL_LOG"
	/usr/bin/python3 "$top_srcdir/tests/lib/netstall.py" >"$TEST_DIR/netstall.port" \
		2>"$STALL_LOG" &
	STALL_PID=$!
	test_cleanup "kill $STALL_PID"
	wait_for 10 '[ -s "$TEST_DIR/netstall.port" ]'
	STALL_PORT=$(head -n 1 "$TEST_DIR/netstall.port")
}

start_netstall

test_begin "SIGTERM while the SMTP server says nothing: run --once stops within 10 s, the mail stays queued"
setup_case stop-greeting "smtp://127.0.0.1:$STALL_PORT"
TZ=UTC FAKETIME_ONLY_CMDS=tenure FAKETIME_DONT_FAKE_MONOTONIC=1 \
	"$FAKED" "$(faked_at 2026-12-31T10:00:00Z)" \
	"$TENURE" --config "$CASE/tenure.conf" run --once \
	2>"$CASE/err" &
pid=$!
wait_for 10 '[ "$(grep -c ACCEPT "$STALL_LOG")" -ge 1 ]'
sleep 0.5
stop_within 10 $pid
test_expect_equal "exit 0 fast 1" "$STOPPED $(count "$CASE/state/outbox/queue")"

test_begin "SIGTERM after the data went out: the answer that comes 2 s later is recorded, the mail not sent again"
setup_case stop-answer "smtp://127.0.0.1:$SMTP_PORT"
before=$(delivered)
echo 2 >"$SMTP_CONTROL.delay"
: >"$SMTP_LOG"
TZ=UTC FAKETIME_ONLY_CMDS=tenure FAKETIME_DONT_FAKE_MONOTONIC=1 \
	"$FAKED" "$(faked_at 2026-12-31T10:00:00Z)" \
	"$TENURE" --config "$CASE/tenure.conf" run --once \
	2>"$CASE/err" &
pid=$!
wait_for 10 'grep -q "^DATA" "$SMTP_LOG"'
stop_within 10 $pid
result=$STOPPED
rm -f "$SMTP_CONTROL.delay"
run_once 2026-12-31T10:30:00Z
test_expect_equal "exit 0 fast $((before + 1)) 0 1" \
	"$result $(delivered) $(count "$CASE/state/outbox/queue") $(count "$CASE/state/outbox/sent")"

test_begin "SIGTERM while the answer to the data never comes: run --once stops within 10 s"
setup_case stop-no-answer "smtp://127.0.0.1:$SMTP_PORT"
echo 100 >"$SMTP_CONTROL.delay"
: >"$SMTP_LOG"
TZ=UTC FAKETIME_ONLY_CMDS=tenure FAKETIME_DONT_FAKE_MONOTONIC=1 \
	"$FAKED" "$(faked_at 2026-12-31T10:00:00Z)" \
	"$TENURE" --config "$CASE/tenure.conf" run --once \
	2>"$CASE/err" &
pid=$!
wait_for 10 'grep -q "^DATA" "$SMTP_LOG"'
stop_within 10 $pid
test_expect_equal "exit 0 fast 1" "$STOPPED $(grep -c '^send-interrupted' "$CASE/err")"
rm -f "$SMTP_CONTROL.delay"

printf 'secret\n' >"$TEST_DIR/imap-password"
chmod 600 "$TEST_DIR/imap-password"
for scheme in imap imaps; do
	test_begin "SIGTERM while the $scheme:// server says nothing: the daemon stops within 10 s"
	setup_case "stop-$scheme" "maildir:$TEST_DIR/stop-$scheme/out"
	sed -i "s|^url = maildir:$CASE/list|url = $scheme://127.0.0.1:$STALL_PORT\\nuser = bot\\npassword-file = $TEST_DIR/imap-password|" \
		"$CASE/tenure.conf"
	accepted=$(grep -c ACCEPT "$STALL_LOG")
	"$TENURE" --config "$CASE/tenure.conf" run 2>"$CASE/log" &
	pid=$!
	wait_for 10 '[ "$(grep -c ACCEPT "$STALL_LOG")" -gt "$accepted" ]'
	sleep 0.5
	stop_within 10 $pid
	test_expect_equal "exit 0 fast" "$STOPPED"
done

test_begin "SIGHUP while the daemon idles on a Maildir reloads at once"
setup_case hup-idle "maildir:$TEST_DIR/hup-idle/out"
sed -i "s|^url = maildir:$CASE/list|&\\npoll-interval = 300|" "$CASE/tenure.conf"
"$TENURE" --config "$CASE/tenure.conf" run 2>"$CASE/log" &
pid=$!
wait_for 10 'grep -q "^outbox-flush" "$CASE/log"'
sleep 1
kill -HUP $pid
if wait_for 10 'grep -q "^run-reload result=loaded" "$CASE/log"'; then
	stop_within 10 $pid
	test_expect_equal "exit 0 fast" "$STOPPED"
else
	kill -TERM $pid
	test_fail "no reload within 10 s" "$(cat "$CASE/log")"
fi

# tenure held (SIGSTOP, by the shim) where it takes its lock, early in
# its start: a SIGHUP that comes then is a reload once it goes on, not
# the end of it.
test_begin "SIGHUP in the first moments after start is a reload, not the end"
setup_case hup-start "maildir:$TEST_DIR/hup-start/out"
LD_PRELOAD=$FAULTSHIM TENURE_FAULT='open@/state/lock:1:stop' \
	"$TENURE" --config "$CASE/tenure.conf" run 2>"$CASE/log" &
pid=$!
wait_for 10 '[ "$(cut -d" " -f3 /proc/$pid/stat 2>/dev/null)" = T ]'
kill -HUP $pid
kill -CONT $pid
if wait_for 10 'grep -q "^run-reload result=loaded" "$CASE/log"'; then
	stop_within 10 $pid
	test_expect_equal "exit 0 fast" "$STOPPED"
else
	kill -TERM $pid 2>/dev/null
	status=0
	wait $pid || status=$?
	test_fail "no reload after a SIGHUP at start (exit $status)" "$(cat "$CASE/log")"
fi

# --- The reply limit across a crash ----------------------------------

gpg_world_init
MAIL_LIST=ctte@lists.example.org
LEO=$(gpg_new_key "Leo Outsider" leo@example.org) ||
	test_skip_all "gpg could not make keys"
gpg_export_keyring "$TEST_DIR/keyring.gpg" leo@example.org
TENURE_GNUPG=$(mktemp -d /tmp/tn.XXXXXX)
test_cleanup "gpgconf --homedir $TENURE_GNUPG --kill all; rm -rf $TENURE_GNUPG"
for n in 1 2 3; do
	clearsigned_entity leo@example.org "Tenure: frobnicate-$n" \
		>"$TEST_DIR/entity-bad-$n"
	mail_message leo@example.org "bad-$n-$$@example.org" \
		"$TEST_DIR/entity-bad-$n" >"$TEST_DIR/bad-$n"
done

# Three refused commands from Leo with replies-per-day = 2; the first
# run is killed at a kill point: where the reply is queued, or where the
# signature (and the reply's count) is recorded after it.
n_case=0
for point in "rename@/outbox/queue/:1:kill=the reply is queued" \
	"rename@/state/seen:2:kill=a refusal is recorded after its reply was queued"; do
	spec=${point%%=*}
	n_case=$((n_case + 1))
	test_begin "killed where ${point#*=}: the two allowed replies still go out, the third is held back"
	setup_case "replies-$n_case" "maildir:$TEST_DIR/replies-$n_case/out"
	printf 'Event: appoint\nDate: 2026-01-05\nMember: Erin Example <erin@example.org>\nSource: import\n' \
		>"$CASE/ledger"
	cat >>"$CASE/tenure.conf" <<EOF

[keys]
keyring = $TEST_DIR/keyring.gpg
gnupg-home = $TENURE_GNUPG

[reminders]
replies-per-day = 2
EOF
	for n in 1 2 3; do
		deliver "$CASE/list" "$TEST_DIR/bad-$n" "$(($(date +%s) - 10 + n))"
	done
	LD_PRELOAD=$FAULTSHIM TENURE_FAULT=$spec \
		"$TENURE" --config "$CASE/tenure.conf" run --once 2>"$CASE/log1"
	killed=$?
	"$TENURE" --config "$CASE/tenure.conf" run --once 2>"$CASE/log2"
	"$TENURE" --config "$CASE/tenure.conf" run --once 2>>"$CASE/log2"
	replies=$(grep -l '^X-Envelope-To: leo@example.org' "$CASE/out"/new/* 2>/dev/null |
		wc -l | tr -d ' ')
	test_expect_equal "137 2 1 reply $LEO $(date -u +%F) 2" \
		"$killed $replies $(grep -c '^reply-suppressed' "$CASE/log2") $(grep '^reply ' "$CASE/state/seen")"
done

test_done
