#!/bin/sh
# t-two-runs.sh: two tenure processes on one state directory (issue 33,
# item 7): a `tenure run --once` from cron beside the running daemon,
# with mail in the source and in the outbox, and a daemon started while
# a `run --once` works.  The lock (STATE_DIR/lock) lets one `run` at a
# time work: the second refuses at once, naming the lock, exits 1 and
# touches nothing (no fetch, no schedule, no send); so each command is
# applied once and each mail sent once, whichever process gets there.
# A real SMTP server (tests/lib/smtpd.py) counts what was sent; the fake
# gpgv (tests/lib/fake-gpg.sh) makes each verification last, so that the
# second process comes while the first is at work.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/smtp.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
command -v gpg >/dev/null || test_skip_all "gpg is not installed"
smtp_start plain || test_skip_all "aiosmtpd would not start"

committee_init
set --
for who in alice bob carol dave erin; do
	name="$(echo "$who" | sed 's/./\U&/') Member"
	fpr=$(gpg_new_key "$name" "$who@example.org")
	eval "$(echo "$who" | tr a-z A-Z)=\$fpr"
	set -- "$@" "$name <$who@example.org> $fpr"
done
committee_ledger "$@"
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org dave@example.org erin@example.org
committee_conf keys.gpg-timeout=30 source.poll-interval=2 \
	"sink.url=smtp://127.0.0.1:$SMTP_PORT" "sink.starttls=no"
. "$top_srcdir/tests/lib/fakegpg.sh"

daemon=
stop_daemon() { [ -n "$daemon" ] && kill -KILL "$daemon" 2>/dev/null; daemon=; }
test_cleanup stop_daemon

resign() {
	deliver "$W/inbox" "$(signed_mail "$2" "$1@example.org" "r-$1" \
		"Tenure: resign")"
}
resignations() { grep -c "^Event: resign" "$W/ledger" || true; }
resigned_times() {
	awk -v who="Member: $1 Member" 'BEGIN { RS = "" }
		/Event: resign/ && index($0, who) { n++ } END { print n + 0 }' \
		"$W/ledger"
}
# The Message-IDs the SMTP server took more than once ("" when none).
twice() {
	cat "$SMTP_MAILDIR"/new/* 2>/dev/null | tr -d '\r' |
		grep -i '^Message-Id:' | sort | uniq -d
}
sent_ids() {
	cat "$SMTP_MAILDIR"/new/* 2>/dev/null | tr -d '\r' |
		grep -ci '^Message-Id:' || true
}
# second NAME [ARGS]: a `run --once` beside the process at work, its
# stderr in $W/NAME.err, its status in $W/NAME.status.
second() {
	local name=$1
	shift
	timeout 60 "$TENURE" --config "$CONF" run --once "$@" \
		>"$W/$name.out" 2>"$W/$name.err"
	echo $? >"$W/$name.status"
}
# refused NAME: it exited 1 saying the lock is held, and said nothing else.
expect_refused_beside() {
	test_begin "$1"
	if [ "$(cat "$W/$2.status")" = 1 ] &&
		grep -q 'another tenure run or import holds the lock' "$W/$2.err" &&
		[ "$(grep -vc 'holds the lock' "$W/$2.err")" = 0 ]; then
		test_pass
	else
		test_fail "exit $(cat "$W/$2.status")" "$(cat "$W/$2.err")"
	fi
}

# 1. Mail in the outbox: Alice's resignation applied by a pass while the
# server says 451, its announcement kept.
smtp_answer "451 4.3.0 try again later"
resign alice "$ALICE"
second first
test_begin "a pass with the server saying 451: Alice resigns, her announcement stays queued"
test_expect_equal "1 resigned, exit 1, queued yes" \
	"$(resigned_times Alice) resigned, exit $(cat "$W/first.status"), queued $([ "$(outbox_count)" -ge 1 ] && echo yes || echo no)" \
	"$(cat "$W/first.err")"
queued=$(outbox_count)

# 2. The daemon at work on a backlog (3 s a verification), the outbox
# due (the server takes mail again); cron's run --once beside it, three
# times: while it verifies, with --flush, and at the end.
smtp_answer ""
fault "slow 3"
resign bob "$BOB"
resign carol "$CAROL"
resign dave "$DAVE"
"$TENURE" --config "$CONF" run 2>"$W/daemon.log" &
daemon=$!
wait_for 20 '[ -s "$FAKE_GPG_MODE.log" ]'
second beside1
second beside2 --flush
expect_refused_beside "cron's run --once beside the daemon at work: refused, naming the lock, exit 1" beside1
expect_refused_beside "... and with --flush" beside2
kill -HUP "$daemon"
# The end state, not a moment on the way: Dave's announcement is queued
# after his resignation is recorded, so an empty outbox alone may come
# before it.
wait_for 60 '[ "$(resignations)" -ge 4 ] && [ "$(sent_ids)" -ge $((queued + 3)) ] &&
	[ "$(outbox_count)" = 0 ]'
second beside3
expect_refused_beside "... and beside the idle daemon" beside3

test_begin "the daemon applied Bob's, Carol's and Dave's resignations, each once, and Alice's stayed once"
test_expect_equal "1 1 1 1" \
	"$(resigned_times Alice) $(resigned_times Bob) $(resigned_times Carol) $(resigned_times Dave)" \
	"$(cat "$W/daemon.log")"

test_begin "each mail queued was sent once: none twice, the outbox empty"
sleep 2
test_expect_equal "twice: ; queued 0; sent >= $((queued + 3))" \
	"twice: $(twice); queued $(outbox_count); sent >= $([ "$(sent_ids)" -ge $((queued + 3)) ] && echo $((queued + 3)) || sent_ids)" \
	"$(cat "$W/daemon.log")"

kill -TERM "$daemon"
wait "$daemon"
daemon=

# 3. The other way round: a run --once at work (a slow verification),
# the daemon started beside it (systemd's restart, a boot).
sent=$(sent_ids)
resign erin "$ERIN"
fault "slow 4"
: >"$FAKE_GPG_MODE.log"
second cron &
cron=$!
wait_for 20 '[ -s "$FAKE_GPG_MODE.log" ]'
status=0
timeout 30 "$TENURE" --config "$CONF" run 2>"$W/daemon2.log" || status=$?
test_begin "the daemon started while a run --once works: refused, naming the lock, exit 1"
if [ "$status" = 1 ] && grep -q 'holds the lock' "$W/daemon2.log"; then
	test_pass
else
	test_fail "exit $status" "$(cat "$W/daemon2.log")"
fi
wait "$cron"
"$TENURE" --config "$CONF" run 2>"$W/daemon3.log" &
daemon=$!
wait_for 20 'grep -q "outbox-flush\|run-start" "$W/daemon3.log"'
sleep 4
kill -TERM "$daemon"
wait "$daemon"
daemon=
test_begin "... the run --once applied Erin's resignation once, the daemon after it nothing again"
test_expect_equal "exit 0, Erin 1, twice: , sent $((sent + 1))+" \
	"exit $(cat "$W/cron.status"), Erin $(resigned_times Erin), twice: $(twice), sent $([ "$(sent_ids)" -gt "$sent" ] && echo $((sent + 1))+ || echo "$(sent_ids)")" \
	"$(cat "$W/cron.err")" "$(cat "$W/daemon3.log")"

test_done
