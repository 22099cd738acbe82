#!/bin/sh
# t-gpgstop.sh: a stop is not a poison mail (issue 25, item 8).  Only
# tenure's own gpgv deadline counts a verification as unfinished: two
# orderly stops (SIGTERM) during one slow verification, or two kills
# (SIGKILL), leave the member's command to be applied at the next start;
# two deadlines still set the mail aside.  The fake gpgv
# (tests/lib/fake-gpg.sh) sleeps before verifying, or hangs.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"

committee_init
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
CAROL=$(gpg_new_key "Carol Member" carol@example.org)
DAVE=$(gpg_new_key "Dave Member" dave@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org dave@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB" \
	"Carol Member <carol@example.org> $CAROL" \
	"Dave Member <dave@example.org> $DAVE"
committee_conf keys.gpg-timeout=60

. "$top_srcdir/tests/lib/fakegpg.sh"

# resign VAR FPR WHO ID: WHO's resignation, delivered into the inbox;
# VAR is set to its Maildir name.
resign() {
	local var=$1 fpr=$2 who=$3 id=$4 mail
	mail=$(signed_mail "$fpr" "$who@example.org" "$id" "Tenure: resign")
	ls "$W/inbox/new" >"$W/new.before"
	deliver "$W/inbox" "$mail"
	eval "$var=\$(ls \"\$W/inbox/new\" | grep -vxF -f \"\$W/new.before\")"
}

in_cur() { ls "$W/inbox/cur" | grep -qF "$1"; }
in_failed() { [ -f "$W/inbox/.tenure-failed/new/$1" ]; }
faults() { grep -c "^$1" "$FAKE_GPG_MODE.log"; }

# interrupt SIGNAL OFFSET: `tenure run --once` with the clock OFFSET
# ahead, sent SIGNAL while the fake gpgv sleeps (or hangs) in it.
interrupt() {
	local before i=0 pid
	before=$(cat "$FAKE_GPG_MODE.log" | wc -l)
	"$FAKED" "$2" "$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log" &
	pid=$!
	while [ "$(cat "$FAKE_GPG_MODE.log" | wc -l)" -le "$before" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.3
	kill "-$1" $pid 2>/dev/null
	i=0
	while kill -0 $pid 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	wait $pid 2>/dev/null
	cat "$W/log" >>"$W/log.all"
}

# A first pass makes the committee keyring, with the real gpgv.
once
# 1. Two orderly stops while gpgv works on Alice's resignation.
fault "slow 30"
resign a "$ALICE" alice a
interrupt TERM +0
interrupt TERM +10m
test_begin "two SIGTERMs during a slow verification: gpgv was stopped twice"
test_expect_equal 2 "$(faults slow)"
fault pass
once +30m
test_begin "... and at the next start Alice's resignation is applied, not set aside"
if in_cur "$a" && resigned Alice && ! grep -q '^set-aside ' "$W/log"; then
	test_pass
else
	test_fail "$(ls -R "$W/inbox")" "$(cat "$W/log.all" "$W/log")"
fi

# 2. Two kills while gpgv hangs on Bob's: the hung gpgv dies with them.
fault hang
resign b "$BOB" bob b
interrupt KILL +1h
interrupt KILL +2h
# It dies when it learns that tenure is gone: on a busy machine, a
# moment later.
wait_for 10 '[ -z "$(pgrep -f "$W/fake-gpg")" ]'
test_begin "two SIGKILLs during a verification: the hung gpgv died with tenure"
test_expect_equal "2 " "$(faults hang) $(pgrep -f "$W/fake-gpg" | tr '\n' ' ')"
fault pass
once +3h
test_begin "... and at the next start Bob's resignation is applied, not set aside"
if in_cur "$b" && resigned Bob && ! grep -q '^set-aside ' "$W/log"; then
	test_pass
else
	test_fail "$(ls -R "$W/inbox")" "$(cat "$W/log.all" "$W/log")"
fi

# 3. Tenure's own deadline still counts: two of them set the mail aside
# at its third start, without a third gpgv.
committee_conf keys.gpg-timeout=2
fault hang
resign c "$CAROL" carol c
once +4h
once +5h
once +6h
test_begin "two gpgv deadlines: the mail is set aside at its third start, gpgv not run"
if in_failed "$c" && [ "$(faults hang)" = 2 ] && ! resigned Carol &&
	grep -q "^set-aside id=$c reason=.*never finished" "$W/log"; then
	test_pass
else
	test_fail "gpgv hung $(faults hang) times" "$(ls -R "$W/inbox")" "$(cat "$W/log")"
fi
fault pass

test_done
