#!/bin/sh
# t-verdicts.sh: only tenure's own failures wait, and who may act is
# decided before when (issue 32, items 1 and 2).  Whatever gpgv answers
# after a normal run on the mail's bytes is a verdict: a member's real
# signature made at test time, its creation time set before the key
# existed (gpgv: ERRSIG 39, time conflict) or its last value (MPI)
# dropped (gpgv: only NODATA), is refused at once with its reason, only
# logged: no wait, no `run --once` failing, no report to the operator,
# no record in the state, and the command behind it applied.  A
# signature dated 20 hours ahead by an ordinary keyring key (no member,
# no role holder, no pending half) is refused at once too; a member's
# dated so still waits for tenure's clock, and so do a role holder's who
# is no member and a new key's that a pending key change waits for: each
# is applied once the clock has caught up.  gpgv dead by a signal still
# makes a member's mail wait (killed at its deadline: t-gpgfaults.sh; a
# member's key gone from the keyrings: t-keyring-missing.sh).
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
OUTSIDER=$(gpg_new_key "Ordinary Keyholder" keyholder@example.net)
LEADER=$(gpg_new_key "Project Leader" leader@example.net)
ERIN=$(gpg_new_key "Erin Member" erin@example.org)
ERIN2=$(gpg_new_key "Erin Member" erin2@example.org)
# The outsider's key is in the keyring tenure reads, like any Debian
# developer's, but the ledger records it for nobody.
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org dave@example.org keyholder@example.net \
	leader@example.net erin@example.org erin2@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB" \
	"Carol Member <carol@example.org> $CAROL" \
	"Dave Member <dave@example.org> $DAVE" \
	"Erin Member <erin@example.org> $ERIN"
# The project leader holds a role and is no member.
committee_conf roles.leader="$LEADER"
# gpgv is the real one but where a test makes it fail (fault).
. "$top_srcdir/tests/lib/fakegpg.sh"
craft="/usr/bin/python3 $top_srcdir/tests/lib/craft-packets.py"
retry=$W/state/retry

in_new() { [ -f "$W/inbox/new/$1" ]; }
in_cur() { ls "$W/inbox/cur" | grep -qF "$1"; }
sent_count() { ls "$W/sent/new" 2>/dev/null | wc -l; }
reports() { grep -l "without a verdict" "$W/sent"/*/* 2>/dev/null | wc -l; }
# put VAR FILE: FILE delivered into the inbox; VAR is its Maildir name.
put() {
	ls "$W/inbox/new" >"$W/new.before"
	deliver "$W/inbox" "$2"
	eval "$1=\$(ls \"\$W/inbox/new\" | grep -vxF -f \"\$W/new.before\")"
}
# crafted VAR ID FPR FROM HOW...: FPR's real resignation, its signature
# packet changed by craft-packets.py HOW, delivered.
crafted() {
	local var=$1 id=$2 mail
	mail=$(signed_mail "$3" "$4" "$id" "Tenure: resign")
	shift 4
	signature_of "$mail" >"$W/$id.sig"
	# shellcheck disable=SC2086
	$craft "$@" "$W/$id.sig" >"$W/$id.crafted"
	with_signature "$mail" "$W/$id.crafted" >"$W/m/$id-crafted.eml"
	put "$var" "$W/m/$id-crafted.eml"
}
# no_wait NAME: nothing waits or was set aside for NAME.
no_wait() {
	! grep -q "^deferred \|^set-aside" "$W/log" &&
		! grep -q "$1" "$retry" 2>/dev/null
}

once
made() {
	gw --with-colons --list-keys "$1" 2>/dev/null |
		awk -F: '$1 == "pub" { print $6; exit }'
}

# 1. Alice's signature, dated an hour before her key was made: tenure
# tells it from the packet; and the outsider's, whose key only the whole
# keyring holds: there gpgv answers ERRSIG 39 (time conflict).  Carol's
# genuine command is behind them.
crafted a1 early "$ALICE" alice@example.org created $(($(made "$ALICE") - 3600))
crafted o1 early-outsider "$OUTSIDER" keyholder@example.net \
	created $(($(made "$OUTSIDER") - 3600))
c=$(signed_mail "$CAROL" carol@example.org carol "Tenure: resign")
sleep 1
put c "$c"
sent_before=$(sent_count)
once
test_begin "a signature dated before its key: run --once exits 0, Carol's command applied"
if [ "$(cat "$W/status")" = 0 ] && resigned Carol && in_cur "$c"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
test_begin "... it is refused at once, naming the key made after it"
if in_cur "$a1" && ! resigned Alice &&
	grep -q "^refused .*id=$a1 .*reason=\"signature dated .*, before its key $ALICE was made (" "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
test_begin "... and the outsider's is refused at once on gpgv's ERRSIG 39"
if in_cur "$o1" &&
	grep -q "^refused .*id=$o1 .*reason=\".*the signature is dated before the key that made it (ERRSIG 39)" "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
test_begin "... nothing waits, nothing in the state's retry record"
if no_wait "$a1" && no_wait "$o1"; then
	test_pass
else
	test_fail "$(cat "$W/log")" "$(cat "$retry" 2>/dev/null)"
fi
test_begin "... no transcript, no report: one mail sent (Carol's announcement)"
test_expect_equal "0 1" "$(reports) $(($(sent_count) - sent_before))"

# 2. Alice's signature without its last value (s of EdDSA's r and s),
# the packet's length fixed: gpgv says only NODATA.  Dave's command is
# behind it.
crafted a2 short "$ALICE" alice@example.org drop-value
d=$(signed_mail "$DAVE" dave@example.org dave "Tenure: resign")
sleep 1
put d "$d"
sent_before=$(sent_count)
once +1m
test_begin "a signature a value short: run --once exits 0, Dave's command applied"
if [ "$(cat "$W/status")" = 0 ] && resigned Dave && in_cur "$d"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
test_begin "... it is refused at once, naming the values its algorithm needs"
if in_cur "$a2" && ! resigned Alice &&
	grep -q "^refused .*id=$a2 .*reason=\"signature holds 1 value(s), where EdDSA signs with 2\"" "$W/log" &&
	no_wait "$a2"; then
	test_pass
else
	test_fail "$(cat "$W/log")" "$(cat "$retry" 2>/dev/null)"
fi
test_begin "... no transcript, no report: one mail sent (Dave's announcement)"
test_expect_equal "0 1" "$(reports) $(($(sent_count) - sent_before))"

# 2b. What is tenure's own failure still waits: gpgv dying by a signal
# on a member's mail (gpgv killed at its deadline: t-gpgfaults.sh; a
# member's key gone from the keyrings: t-keyring-missing.sh).
fault signal 1
e=$(signed_mail "$ALICE" alice@example.org alice "Tenure: resign")
put e "$e"
once +90s
test_begin "gpgv dead by a signal on Alice's genuine mail: it waits, run --once exits 1"
if [ "$(cat "$W/status")" != 0 ] && in_new "$e" && ! resigned Alice &&
	! grep -q '^refused ' "$W/log" && grep -q "^deferred id=$e " "$W/log"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
once +5m
test_begin "... and is applied once gpgv answers"
if [ "$(cat "$W/status")" = 0 ] && in_cur "$e" && resigned Alice; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi

# 3. An ordinary keyring key signs 20 hours ahead of tenure's clock: its
# holder can act on no day of the window, so it is refused at once.
o=$(signed_mail --at '+20 hours' "$OUTSIDER" keyholder@example.net outsider \
	"Tenure: resign")
put o "$o"
events_before=$(events)
sent_before=$(sent_count)
once +2m
test_begin "an outsider's signature 20 hours ahead: refused at once, run --once exits 0"
if [ "$(cat "$W/status")" = 0 ] && in_cur "$o" &&
	grep -q "^refused .*id=$o .*reason=\"signature dated .*, ahead of tenure's clock, by a key of no one who may act" "$W/log" &&
	no_wait "$o"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")" "$(cat "$retry" 2>/dev/null)"
fi
test_begin "... the ledger unchanged, nothing sent, nothing reported"
test_expect_equal "$events_before 0 0" \
	"$(events) $(($(sent_count) - sent_before)) $(reports)"

# 4. A member's signature 20 hours ahead still waits for the clock
# (tenure's clock may be behind), and is applied once it has caught up.
b=$(signed_mail --at '+20 hours' "$BOB" bob@example.org bob "Tenure: resign")
put b "$b"
once +3m
test_begin "a member's signature 20 hours ahead waits, unrefused"
if [ "$(cat "$W/status")" != 0 ] && in_new "$b" && ! resigned Bob &&
	! grep -q '^refused ' "$W/log" &&
	grep -q "^deferred id=$b reason=.*ahead of tenure's clock" "$W/log"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
# So does a role holder's who is no member: the leader's.
l=$(signed_mail --at '+20 hours' "$LEADER" leader@example.net leader \
	"Tenure: resign")
put l "$l"
once +4m
test_begin "the leader's signature 20 hours ahead (a role holder, no member) waits too"
if [ "$(cat "$W/status")" != 0 ] && in_new "$l" &&
	! grep -q '^refused ' "$W/log" &&
	grep -q "^deferred id=$l reason=.*ahead of tenure's clock" "$W/log"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
# So does the key a pending half waits for: Erin's new key, whose own
# confirmation completes the change her recorded key signed.
n=$(signed_mail "$ERIN" erin@example.org erin-old-key "Tenure: new-key
Fingerprint: $ERIN2")
put n "$n"
once +5m
test_begin "Erin's recorded key signs her new key: the change waits for the new key"
if in_cur "$n" && grep -q "^pending .*msgid=<erin-old-key@" "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
n2=$(signed_mail --at '+20 hours' "$ERIN2" erin@example.org erin-new-key \
	"Tenure: new-key
Member: Erin Member <erin@example.org>
Fingerprint: $ERIN2")
put n2 "$n2"
once +6m
test_begin "... the new key's confirmation 20 hours ahead (a pending half) waits too"
if [ "$(cat "$W/status")" != 0 ] && in_new "$n2" &&
	! grep -q '^refused ' "$W/log" &&
	grep -q "^deferred id=$n2 reason=.*ahead of tenure's clock" "$W/log"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
once +21h
test_begin "... and all three are applied once tenure's clock has caught up"
if [ "$(cat "$W/status")" = 0 ] && in_cur "$b" && resigned Bob && in_cur "$l" &&
	in_cur "$n2" && grep -q "^Fingerprint: $ERIN2" "$W/ledger"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi

test_done
