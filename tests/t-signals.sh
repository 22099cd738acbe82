#!/bin/sh
# t-signals.sh: SIGHUP from the first instant.  tenure is held (SIGSTOP,
# by tests/lib/faultshim.so) at the moment the dynamic loader hands over to
# it, before main and before the libraries' constructors; SIGHUP comes
# 0, 5, 10, 20 and 50 ms after it goes on (at 0 ms: while it is still
# held).  Each time the daemon reloads and goes on working; a daemon
# that handled the signals only from `tenure run` on died of it.  The
# time before the loader is done is out of every program's reach (see
# src/cli/main.c), so the clock starts there.  Commands other than `run`
# keep the signal mask they were started with: SIGTERM stops them.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/fault.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
fault_require

committee_init
committee_ledger "Erin Example <erin@example.org>"
committee_conf source.poll-interval=300
: >"$W/keyring.gpg"

proc_state() {
	cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null
}

for ms in 0 5 10 20 50; do
	for try in 1 2 3 4 5; do
		test_begin "SIGHUP $ms ms after the loader handed over (try $try): a reload, and the daemon goes on"
		log=$TEST_DIR/log-$ms-$try
		LD_PRELOAD=$FAULTSHIM TENURE_FAULT=init:1:stop \
			"$TENURE" --config "$CONF" run 2>"$log" &
		pid=$!
		if ! wait_for 10 '[ "$(proc_state $pid)" = T ]'; then
			kill -KILL $pid 2>/dev/null
			wait $pid 2>/dev/null
			test_fail "tenure was not held at its start"
			continue
		fi
		if [ "$ms" -eq 0 ]; then
			kill -HUP $pid
			kill -CONT $pid
		else
			kill -CONT $pid
			sleep "0.$(printf '%03d' "$ms")"
			kill -HUP $pid
		fi
		if wait_for 10 'grep -q "^run-reload result=loaded" "$log"'; then
			kill -TERM $pid
			status=0
			wait $pid || status=$?
			test_expect_equal "exit 0, 1 reload" \
				"exit $status, $(grep -c '^run-reload result=loaded' "$log") reload"
		else
			kill -TERM $pid 2>/dev/null
			status=0
			wait $pid || status=$?
			test_fail "no reload (exit $status)" "$(cat "$log")"
		fi
	done
done

test_begin "a command other than run keeps the mask it was started with: SIGTERM stops it"
"$TENURE" --config "$CONF" simulate --runs 1000000 --years 50 \
	>/dev/null 2>&1 &
pid=$!
sleep 0.5
blocked=$(sed -n 's/^SigBlk:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
kill -TERM $pid
status=0
wait $pid || status=$?
test_expect_equal "0000000000000000 143" "$blocked $status"

test_done
