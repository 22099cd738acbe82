#!/bin/sh
# t-torn.sh: a torn file is never taken as whole.  A ledger append cut
# short by a crash (after its Source line, before Signed-By and
# Recorded) is cut back at the next start and the command applied once,
# never refused as a repeat; a stanza added by hand is not taken for
# one.  State files cut short (seen, pending, an outbox queue file) stop
# the run with FILE:LINE and what to do, or, for a queued mail, keep it
# from being sent; nothing is read as shorter data.  State files of an
# older tenure (no first line) are accepted once and sealed.  Faults come
# from tests/lib/faultshim.so; the "power loss" is a cut made by hand to what
# a killed run left.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/fault.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
fault_require

committee_init
MAIL_LIST=ctte@lists.example.org
MEMBERS="alice bob dave erin"
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
NINA=$(gpg_new_key "Nina Newcomer" nina@example.org)
for who in $MEMBERS; do
	gpg_new_key "$who Member" "$who@example.org" >/dev/null
done
# shellcheck disable=SC2086
gpg_export_keyring "$W/keyring.gpg" carol@example.org leo@example.org \
	nina@example.org $(for who in $MEMBERS; do echo "$who@example.org"; done)
committee_conf committee.list=$MAIL_LIST committee.max-members=16 \
	rule.name=none roles.chair="$CAROL" roles.leader="$LEO"

set -- --member "Carol Chair <carol@example.org> $CAROL"
for who in $MEMBERS; do
	set -- "$@" --member "$who Member <$who@example.org> $(gpg_fpr "$who@example.org")"
done
"$TENURE" --config "$CONF" init --date "$year_ago" "$@" >"$W/out" 2>"$W/log" ||
	test_skip_all "tenure init failed: $(cat "$W/log")"

# send_command WHO ID BODY: WHO's signed mail, delivered to the list.
arrival=$(($(date +%s) - 600))
send_command() {
	arrival=$((arrival + 1))
	deliver "$W/inbox" "$(signed_mail "$(gpg_fpr "$1@example.org")" \
		"$1@example.org" "$2" "$3")" "$arrival"
}

# run [FAULT]: `tenure run --once`, with the fault if given; log in
# $W/log, exit status in $W/status.
run() {
	if [ -n "${1:-}" ]; then
		with_fault "$1" "$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
	else
		"$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
	fi
	echo $? >"$W/status"
}

unread() {
	ls "$W/inbox/new" | wc -l
}

# events_of KIND WHO: how many KIND events the ledger has for WHO.
events_of() {
	grep -A3 "^Event: $1\$" "$W/ledger" | grep -c "^Member: .*<$2@example.org>"
}

# sent_to WHO PATTERN: mails in the sink to WHO whose text matches.
sent_to() {
	grep -l "^To: .*$1" "$W"/sent/new/* 2>/dev/null | xargs -r grep -l -- "$2" | wc -l
}

# cut_after FILE PATTERN: FILE cut just after its last line matching
# PATTERN, as a power loss leaves a write that only partly reached the
# disk.
cut_after() {
	/usr/bin/python3 - "$1" "$2" <<'EOF'
import re, sys
path, pattern = sys.argv[1], sys.argv[2]
text = open(path, 'rb').read()
lines = text.split(b'\n')
last = max(i for i, l in enumerate(lines) if re.search(pattern.encode(), l))
open(path, 'wb').write(b'\n'.join(lines[:last + 1]) + b'\n')
EOF
}

# expect_stopped DESCRIPTION PATTERN: the run failed (exit 1), saying
# PATTERN (a grep pattern) in its log.
expect_stopped() {
	test_begin "$1"
	if [ "$(cat "$W/status")" = 1 ] && grep -q "$2" "$W/log"; then
		test_pass
	else
		test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
	fi
}

# --- A ledger append cut short ------------------------------------------

# Alice resigns; the run is killed after writing her stanza and before
# its fsync, and the "power loss" keeps only the lines up to Source.
send_command alice alice-resign "Tenure: resign"
run "fsync@$W/ledger:1:kill"
test_begin "a run killed before the ledger's fsync (the fault took)"
test_expect_equal "137 1" "$(cat "$W/status") $(grep -c '<alice-resign@example.org>' "$W/ledger")"
cut_after "$W/ledger" '^Source: <alice-resign@'
tail -n 4 "$W/ledger" >"$W/torn-stanza"

"$TENURE" --config "$CONF" status >"$W/status-out" 2>"$W/status-err"
test_begin "tenure status does not take the cut stanza for an event, and says so"
if grep -E -q '^ +[0-9]+ +alice Member' "$W/status-out" &&
	grep -q "^tenure status: $W/ledger: the last [0-9]* bytes are an append a crash cut short, not an event" "$W/status-err"; then
	test_pass
else
	test_fail "$(cat "$W/status-out" "$W/status-err")"
fi

run
test_begin "the next start cuts the torn stanza back, with a log line naming FILE:LINE"
if grep -q "^ledger-cut-back at=$W/ledger:[0-9]* bytes=[0-9]* reason=" "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")" "$(cat "$W/torn-stanza")"
fi
test_begin "... and applies the resignation once, whole (Signed-By, Recorded)"
if [ "$(cat "$W/status")" = 0 ] && [ "$(events_of resign alice)" = 1 ] &&
	grep -A8 '^Source: <alice-resign@' "$W/ledger" | grep -q '^Signed-By: ' &&
	grep -A8 '^Source: <alice-resign@' "$W/ledger" | grep -q '^Recorded: ' &&
	[ "$(unread)" = 0 ]; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")" "$(tail -n 12 "$W/ledger")"
fi
test_begin "... announced once, and alice gets no refusal"
test_expect_equal "1 0" "$(sent_to ctte@lists.example.org 'alice Member resigns') $(sent_to alice@example.org 'Refused:')"
"$TENURE" --config "$CONF" audit >"$W/audit" 2>&1
test_begin "... and tenure audit agrees with the ledger"
if grep -q ' 0 problems, 0 differences$' "$W/audit"; then
	test_pass
else
	test_fail "$(cat "$W/audit")"
fi

# An event the administrator types in, ending without a blank line, is
# an event: only tenure's own unfinished append is ever cut.
printf '\nEvent: key\nDate: %s\nMember: bob Member <bob@example.org>\nFingerprint: %s\nSource: import\n' \
	"$(date -u +%Y-%m-%d)" "$(gpg_fpr bob@example.org)" >>"$W/ledger"
cp "$W/ledger" "$W/ledger.by-hand"
run
test_begin "a stanza added by hand is never cut back"
if [ "$(cat "$W/status")" = 0 ] && cmp -s "$W/ledger" "$W/ledger.by-hand" &&
	! grep -q '^ledger-cut-back' "$W/log"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")" "$(diff "$W/ledger.by-hand" "$W/ledger")"
fi

# --- State files cut short ----------------------------------------------

# seen loses its last record: without it, a handled command would look
# new; the run stops and says where and what to do.
cp "$W/state/seen" "$W/seen.whole"
head -n -1 "$W/state/seen" >"$W/seen.cut" && cat "$W/seen.cut" >"$W/state/seen"
send_command bob bob-resign "Tenure: resign"
ledger_before=$(cat "$W/ledger")
run
expect_stopped "a seen file cut short stops the run with FILE:LINE and what to do" \
	"^tenure run: $W/state/seen:[0-9]*: cut short: [0-9]* of the [0-9]* bytes its first line counts (a write that did not reach the disk); restore it from a backup, or remove it"
test_begin "... acting on nothing: the mail waits, the ledger and the sink are as they were"
if [ "$(unread)" = 1 ] && [ "$(cat "$W/ledger")" = "$ledger_before" ] &&
	[ "$(sent_to ctte@lists.example.org 'bob Member resigns')" = 0 ]; then
	test_pass
else
	test_fail "unread $(unread)" "$(diff "$W/ledger" - <<EOF
$ledger_before
EOF
)"
fi
cp "$W/seen.whole" "$W/state/seen"
run
test_begin "... and with seen restored the mail is applied once"
test_expect_equal "0 1 1" "$(cat "$W/status") $(events_of resign bob) $(sent_to ctte@lists.example.org 'bob Member resigns')"

# pending cut in the middle of the chair's recommendation: read as
# shorter data, the leader's appointment would find no recommendation.
send_command carol carol-recommend "Tenure: recommend
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01"
run
cp "$W/state/pending" "$W/pending.whole"
cut_after "$W/state/pending" '^fingerprint='
send_command leo leo-appoint "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01"
run
expect_stopped "a pending file cut mid-group stops the run with FILE:LINE and what to do" \
	"^tenure run: $W/state/pending:[0-9]*: cut short: .*; restore it from a backup, or remove it and ask the signers"
test_begin "... the leader's appointment is neither applied nor refused"
test_expect_equal "0 0 1" "$(events_of appoint nina) $(sent_to leo@example.org 'Refused:') $(unread)"
cp "$W/pending.whole" "$W/state/pending"
run
test_begin "... and with pending restored Nina is appointed once"
test_expect_equal "0 1 1" "$(cat "$W/status") $(events_of appoint nina) $(sent_to ctte@lists.example.org 'Nina Newcomer appointed')"

# --- A queued mail cut short --------------------------------------------

# Erin resigns while the sink cannot take mail (a full disk under the
# Maildir): the announcement waits in the queue, and is then cut short
# in its body.
send_command erin erin-resign "Tenure: resign"
run "open@$W/sent/:1+:ENOSPC"
queued=$(grep -l 'erin Member resigns' "$W"/state/outbox/queue/* 2>/dev/null | head -n 1)
test_begin "the announcement waits in the queue while the sink cannot take it"
if [ -n "$queued" ] && [ "$(sent_to ctte@lists.example.org 'erin Member resigns')" = 0 ]; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
head -c -200 "$queued" >"$W/queued.cut" && cat "$W/queued.cut" >"$queued"
name=$(basename "$queued")
"$FAKED" +2h "$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
echo $? >"$W/status"
test_begin "a queued mail cut short is never sent"
test_expect_equal "0" "$(sent_to ctte@lists.example.org 'erin Member resigns')"
test_begin "... it goes to the dead letters, logged with FILE:LINE"
if [ -f "$W/state/outbox/dead/$name" ] && [ ! -e "$queued" ] &&
	grep -q "^outbox-unreadable file=$queued error=\"$queued:[0-9]*: cut short: " "$W/log"; then
	test_pass
else
	test_fail "$(ls -R "$W/state/outbox")" "$(cat "$W/log")"
fi
"$TENURE" --config "$CONF" status >"$W/status-out" 2>&1
test_begin "... and tenure status lists it with the reason"
if grep -q "$name.*cut short" "$W/status-out"; then
	test_pass
else
	test_fail "$(cat "$W/status-out")"
fi

# --- State files of an older tenure ---------------------------------------

# What an older tenure wrote: the same records without the first line,
# and no state-format; an empty pending file among them.
for f in seen ledger-mark; do
	sed -i '1d' "$W/state/$f"
done
: >"$W/state/pending"
rm -f "$W/state/state-format"
cp "$W/state/seen" "$W/seen.old"
run
test_begin "the state files of an older tenure are accepted once, and sealed"
if [ "$(cat "$W/status")" = 0 ] && [ -f "$W/state/state-format" ] &&
	grep -q "^state-upgraded state-dir=$W/state sealed=3\$" "$W/log" &&
	head -n 1 "$W/state/seen" | grep -q '^# tenure-state bytes=' &&
	head -n 1 "$W/state/pending" | grep -q '^# tenure-state bytes=0 ' &&
	[ "$(tail -n +2 "$W/state/seen")" = "$(cat "$W/seen.old")" ]; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")" "$(head -n 2 "$W/state/seen" "$W/state/pending")"
fi
cp "$W/seen.old" "$W/state/seen"
run
expect_stopped "after that, a state file without its first line is refused" \
	"^tenure run: $W/state/seen:1: does not start with the \"# tenure-state bytes=... sha256=...\" line tenure writes"
: >"$W/state/seen"
run
expect_stopped "... and so is an empty one, the commonest thing a power loss leaves" \
	"^tenure run: $W/state/seen:1: empty, where tenure wrote"

test_done
