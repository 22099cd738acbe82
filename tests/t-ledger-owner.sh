#!/bin/sh
# t-ledger-owner.sh: one ledger, one writer (issue 43 item 3).  Two
# installations, each with a state directory of its own, pointed at one
# ledger would each announce every event it sees, with Message-IDs of
# its own: the list would get every announcement twice.  The ledger's
# lock (LEDGER.lock, beside it) is held by the writer (`run`, the
# daemon, `import`, `init`) for as long as it runs and names its state
# directory and pid; the second writer is refused naming the first, and
# after the first stops it is refused still, as the lock file names the
# state directory the ledger belongs to, with the remedy in the message.
# The commands that only look (status, plan, check, audit) need no lock.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
command -v gpg >/dev/null || test_skip_all "gpg is not installed"

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
committee_conf source.poll-interval=1
committee_conf other.conf committee.state-dir=state2 source.poll-interval=1
OTHER=$W/other.conf

daemon=
stop_daemon() { [ -n "$daemon" ] && kill -KILL "$daemon" 2>/dev/null; daemon=; }
test_cleanup stop_daemon

resign() {
	deliver "$W/inbox" "$(signed_mail "$2" "$1@example.org" "r-$1" \
		"Tenure: resign")"
}
resignations() { grep -c "^Event: resign" "$W/ledger" || true; }
sent() { ls "$W/sent/new" 2>/dev/null | wc -l; }
# tenure_as NAME CONF ARGS...: its stderr in $W/NAME.err, its exit status
# in $W/NAME.status.
tenure_as() {
	local name=$1 conf=$2
	shift 2
	status=0
	timeout 60 "$TENURE" --config "$conf" "$@" >"$W/$name.out" \
		2>"$W/$name.err" || status=$?
	echo $status >"$W/$name.status"
}
# expect_refused DESCRIPTION NAME PATTERN: NAME exited 1 and said
# PATTERN (grep -F).
expect_refused() {
	test_begin "$1"
	if [ "$(cat "$W/$2.status")" = 1 ] && grep -qF -- "$3" "$W/$2.err"; then
		test_pass
	else
		test_fail "exit $(cat "$W/$2.status")" "$(cat "$W/$2.err")"
	fi
}

# 1. The first installation acts and announces; its lock names it.
resign alice "$ALICE"
tenure_as first "$CONF" run --once
test_begin "the first installation applies Alice's resignation and announces it; the lock names its state directory"
test_expect_equal "exit 0, 1 resigned, sent yes, owner $W/state" \
	"exit $(cat "$W/first.status"), $(resignations) resigned, sent $([ "$(sent)" -ge 1 ] && echo yes || echo no), owner $(sed -n 's/^state-dir //p' "$W/ledger.lock")" \
	"$(cat "$W/first.err")"
sent_before=$(sent)

# 2. The first as a daemon; the second installation's run --once, daemon
# and import beside it: refused, naming the first.
"$TENURE" --config "$CONF" run 2>"$W/daemon.log" &
daemon=$!
wait_for 30 'grep -q "^pid $daemon\$" "$W/ledger.lock" 2>/dev/null'
resign bob "$BOB"
tenure_as beside-once "$OTHER" run --once
expect_refused "a second state directory's run --once beside the first's daemon: refused, naming the first's state directory and pid" \
	beside-once "another tenure writes this ledger (state directory $W/state, pid $daemon)"
tenure_as beside-daemon "$OTHER" run
expect_refused "... and its daemon likewise, at once" \
	beside-daemon "another tenure writes this ledger (state directory $W/state, pid $daemon)"
tenure_as beside-import "$OTHER" import "maildir:$W/inbox"
expect_refused "... and its import" \
	beside-import "another tenure writes this ledger (state directory $W/state, pid $daemon)"

# (check's exit status says what it found, audit's of the second
# installation that it has no archive: only the first's status, plan and
# audit must say 0, the second's status and plan.)
test_begin "the commands that only look need no lock: status, plan, audit and check work beside the daemon, for either state directory"
out=
for conf in "$CONF" "$OTHER"; do
	for command in status plan audit check; do
		tenure_as look "$conf" $command
		case $conf:$command in
		"$CONF":check | "$OTHER":audit | "$OTHER":check) ;;
		*) out="$out $command $(cat "$W/look.status")" ;;
		esac
		cat "$W/look.out" "$W/look.err" >>"$W/looks.err"
	done
	out="$out;"
done
locked=$(grep -c 'writes this ledger\|belongs to\|ledger.lock' "$W/looks.err")
test_expect_equal " status 0 plan 0 audit 0; status 0 plan 0; locked 0" \
	"$out locked $locked" "$(cat "$W/looks.err")"

wait_for 60 '[ "$(resignations)" = 2 ] && [ "$(sent)" -gt "$sent_before" ]'
kill -TERM "$daemon"
wait "$daemon"
daemon=

# 3. The first stopped: the ledger still belongs to its state directory.
carol_mail=$(signed_mail "$CAROL" carol@example.org r-carol "Tenure: resign")
deliver "$W/inbox" "$carol_mail"
sent_before=$(sent)
tenure_as after "$OTHER" run --once
expect_refused "with the first stopped, the second is refused still: the ledger belongs to the first's state directory, and the message says how to move it" \
	after "the ledger $W/ledger belongs to the state directory $W/state, not to $W/state2"
test_begin "... the remedy named: remove the lock file"
if grep -qF "remove $W/ledger.lock to give the ledger to $W/state2" "$W/after.err"; then
	test_pass
else
	test_fail "$(cat "$W/after.err")"
fi
test_begin "the refused installation appended nothing and sent nothing"
test_expect_equal "2 resigned, sent $sent_before, no state2 mark" \
	"$(resignations) resigned, sent $(sent), $([ -e "$W/state2/ledger-mark" ] && echo a || echo no) state2 mark"

# 4. The administrator moves the ledger to the second installation: it
# acts, and the first is the one refused now.
rm "$W/ledger.lock"
tenure_as moved "$OTHER" run --once
test_begin "the lock removed, the second installation takes the ledger: Carol's resignation applied once, the lock names state2"
test_expect_equal "exit 0, 3 resigned, owner $W/state2" \
	"exit $(cat "$W/moved.status"), $(resignations) resigned, owner $(sed -n 's/^state-dir //p' "$W/ledger.lock")" \
	"$(cat "$W/moved.err")"
tenure_as back "$CONF" run --once
expect_refused "... and the first is refused now, naming the second" \
	back "belongs to the state directory $W/state2, not to $W/state"

# 5. The state's mark names its ledger: the second's state directory
# (the ledger's writer now) pointed at a copy of the ledger elsewhere,
# the ledger it writes still there.
cp "$W/ledger" "$W/ledger-copy"
committee_conf copy.conf committee.state-dir=state2 committee.ledger=ledger-copy
tenure_as copy "$W/copy.conf" run --once
expect_refused "a state directory pointed at another ledger while its own is still there: refused, naming both" \
	copy "state2/ledger-mark: this state directory keeps the ledger $W/ledger, not $W/ledger-copy"

# 6. A reload that moves the ledger is refused: the lock is on the old one.
"$TENURE" --config "$OTHER" run 2>"$W/daemon2.log" &
daemon=$!
wait_for 30 'grep -q "^pid $daemon\$" "$W/ledger.lock" 2>/dev/null'
sed -i "s|^ledger = .*|ledger = $W/ledger-copy|" "$OTHER"
kill -HUP "$daemon"
test_begin "a reload naming another ledger keeps the old configuration: restart to move it"
if wait_for 30 'grep -q "run-reload.*ledger changed: restart tenure to move it" "$W/daemon2.log"'; then
	test_pass
else
	test_fail "$(cat "$W/daemon2.log")"
fi
kill -TERM "$daemon"
wait "$daemon"
daemon=

test_done
