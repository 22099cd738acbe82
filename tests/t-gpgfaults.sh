#!/bin/sh
# t-gpgfaults.sh: "cannot decide now" is not "no" (issue 16, item 1), and
# a mail whose verification never finishes cannot stop the secretary
# (issue 15, item 5).  A fake gpg (tests/lib/fake-gpg.sh, tenure's gpg
# through its helper) exits 2, dies by a signal or hangs; a signature is
# dated ahead of tenure's clock; tenure itself is killed while gpg runs;
# a keyring file is caught half-written.
# Each time the mail must stay unhandled (in new/, the IMAP cursor not
# past it), unrefused and unanswered, the mail behind it acted on, and
# it must be tried again and applied once gpg answers; after
# retry-hours, or after two runs killed at gpgv's deadline, it is set aside
# and reported (status, a mail to [sink] from).  Every check looks at
# the ledger, the outbox or what was sent, the source and the log.
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
ERIN=$(gpg_new_key "Erin Member" erin@example.org)
FRANK=$(gpg_new_key "Frank Member" frank@example.org)
GRACE=$(gpg_new_key "Grace Member" grace@example.org)
IVY=$(gpg_new_key "Ivy Member" ivy@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org dave@example.org erin@example.org frank@example.org \
	grace@example.org ivy@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB" \
	"Carol Member <carol@example.org> $CAROL" \
	"Dave Member <dave@example.org> $DAVE" \
	"Erin Member <erin@example.org> $ERIN" \
	"Frank Member <frank@example.org> $FRANK" \
	"Grace Member <grace@example.org> $GRACE" \
	"Ivy Member <ivy@example.org> $IVY"
committee_conf keys.gpg-timeout=2

. "$top_srcdir/tests/lib/fakegpg.sh"

# resign VAR FPR WHO ID [SIGNED_MAIL_OPTIONS]: WHO's resignation signed
# with FPR, delivered into the inbox; VAR is set to its Maildir name.
resign() {
	local var=$1 fpr=$2 who=$3 id=$4 mail
	shift 4
	mail=$(signed_mail "$@" "$fpr" "$who@example.org" "$id" "Tenure: resign")
	ls "$W/inbox/new" >"$W/new.before"
	deliver "$W/inbox" "$mail"
	eval "$var=\$(ls \"\$W/inbox/new\" | grep -vxF -f \"\$W/new.before\")"
}

in_new() { [ -f "$W/inbox/new/$1" ]; }
in_cur() { ls "$W/inbox/cur" | grep -qF "$1"; }
in_failed() { [ -f "$W/inbox/.tenure-failed/new/$1" ]; }

# 1. gpg exits 2 on the first mail; the second is behind it.
fault exit2 1
resign a "$ALICE" alice a
sleep 1
resign b "$BOB" bob b
before=$(events)
once
test_begin "gpg exiting 2: the mail stays in new/, neither refused nor answered"
if ! in_new "$a"; then
	test_fail "expected $a in new/" "$(ls -R "$W/inbox")" "$(cat "$W/log")"
elif grep -q '^refused ' "$W/log"; then
	test_fail "a refusal was logged" "$(cat "$W/log")"
elif resigned Alice; then
	test_fail "Alice's resignation was applied" "$(last_event)"
elif ! grep -q "^deferred id=$a reason=.*gpg" "$W/log"; then
	test_fail "expected a deferred line for $a" "$(cat "$W/log")"
elif [ -n "$(refusal_transcript "")" ]; then
	test_fail "a reply was queued"
else
	test_pass
fi
test_begin "... and the mail behind it is acted on in the same pass"
if in_cur "$b" && resigned Bob && [ "$(events)" = $((before + 1)) ]; then
	test_pass
else
	test_fail "expected Bob's resignation applied and $b in cur/" \
		"$(ls -R "$W/inbox")" "$(cat "$W/log")"
fi
test_begin "... run --once says mail waits, and fails"
if [ "$(cat "$W/status")" = 1 ] && grep -q "1 message(s) could not be decided yet" "$W/log"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
test_begin "... status lists it with its reason and next try"
"$TENURE" --config "$CONF" status >"$W/status.out" 2>&1
if grep -A1 "^Mail without a verdict yet" "$W/status.out" | grep -q "$a: 1 attempt(s), next .*gpg"; then
	test_pass
else
	test_fail "$(cat "$W/status.out")"
fi

fault pass
once
test_begin "... it is not tried again before its backoff (a minute)"
if in_new "$a" && ! resigned Alice && ! grep -q "^applied" "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
once +2m
test_begin "... and once gpg answers, it is applied and leaves new/"
if in_cur "$a" && resigned Alice && grep -q "^applied msgid=<a@example.org>" "$W/log" &&
	[ "$(cat "$W/status")" = 0 ]; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(ls -R "$W/inbox")" "$(cat "$W/log")"
fi
test_begin "... and status no longer lists it"
"$TENURE" --config "$CONF" status >"$W/status.out" 2>&1
if grep -q "without a verdict" "$W/status.out"; then
	test_fail "$(cat "$W/status.out")"
else
	test_pass
fi

# 2. gpg dies by a signal.
fault signal 1
resign c "$CAROL" carol c
once
test_begin "gpg dying by a signal: the mail stays in new/, unrefused"
if in_new "$c" && ! grep -q '^refused ' "$W/log" &&
	grep -q "^deferred id=$c reason=.*signal" "$W/log" && ! resigned Carol; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
fault pass
once +3m
test_begin "... and is applied once gpg answers"
if in_cur "$c" && resigned Carol; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi

# 3. tenure's clock five hours behind the sender's.
fault pass
resign d "$DAVE" dave d --at '+5 hours'
once
test_begin "a signature dated 5 hours ahead of tenure's clock waits, unrefused"
if in_new "$d" && ! grep -q '^refused ' "$W/log" &&
	grep -q "^deferred id=$d reason=.*ahead of tenure's clock" "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
once +6h
test_begin "... and is applied once tenure's clock has caught up"
if in_cur "$d" && resigned Dave; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi

# 3b. gpg fails while tenure's clock runs two days ahead: the retry is
# set two days out.  With the clock put right and gpg answering, the
# mail is due at once (a retry never lies further ahead than the longest
# backoff), not two days later.
fault exit2 1
resign v "$IVY" ivy v
once +2d
fault pass
once
test_begin "a retry set by a clock since put back is due at once"
if in_cur "$v" && resigned Ivy; then
	test_pass
else
	test_fail "expected Ivy's resignation applied" "$(cat "$W/log")"
fi

# 4. gpg fails for longer than retry-hours.
fault exit2
resign e "$ERIN" erin e
once
once +25h
test_begin "a mail without a verdict for 24 hours is set aside (.tenure-failed), not refused"
if in_failed "$e" && ! resigned Erin && ! grep -q '^refused ' "$W/log" &&
	grep -q "^set-aside id=$e .*report=yes" "$W/log"; then
	test_pass
else
	test_fail "$(ls -R "$W/inbox")" "$(cat "$W/log")"
fi
test_begin "... reported by mail to [sink] from"
if grep -l "set aside without a verdict" "$W/sent"/*/* 2>/dev/null | xargs grep -l "^To: tenure@example.org" |
	xargs grep -q "$e"; then
	test_pass
else
	test_fail "no report in $W/sent" "$(cat "$W/log")"
fi
test_begin "... and listed by status"
"$TENURE" --config "$CONF" status >"$W/status.out" 2>&1
if grep -A1 "^Mail set aside without a verdict" "$W/status.out" | grep -q "$e: set aside"; then
	test_pass
else
	test_fail "$(cat "$W/status.out")"
fi
test_begin "... and in status's JSON, valid against doc/tenure.schema.json"
"$TENURE" --config "$CONF" status --format=json >"$W/status.json" 2>&1
if /usr/bin/python3 - "$top_srcdir/doc/tenure.schema.json" "$W/status.json" "$e" <<'END'
import json, sys
import jsonschema
schema, doc = (json.load(open(f)) for f in sys.argv[1:3])
jsonschema.Draft202012Validator(schema).validate(doc)
assert any(u["state"] == "set-aside" and u["source"] == sys.argv[3]
           for u in doc["undecided"]), doc["undecided"]
assert "mail-set-aside" in [w["code"] for w in doc["warnings"]], doc["warnings"]
END
then
	test_pass
else
	test_fail "$(cat "$W/status.json")"
fi
once +26h
test_begin "... reported once"
if [ "$(grep -l "set aside without a verdict" "$W/sent"/*/* | xargs grep -l "$e" | wc -l)" = 1 ]; then
	test_pass
else
	test_fail "$(grep -l "set aside without a verdict" "$W/sent"/*/*)"
fi

# 5. A verification that never finishes: gpg hangs, killed at the
# deadline twice (an orderly stop or a killed tenure counts otherwise:
# t-gpgstop.sh).
fault hang
resign f "$FRANK" frank f
once +27h
test_begin "a verification killed at gpg-timeout leaves the mail waiting"
if in_new "$f" && grep -q "^deferred id=$f reason=.*killed after 2 s" "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
once +28h
once +29h
test_begin "... and at its third start, the mail is set aside without running gpg"
if in_failed "$f" && [ "$(grep -c '^hang' "$FAKE_GPG_MODE.log")" = 2 ] &&
	grep -q "^set-aside id=$f reason=.*never finished 2 times" "$W/log"; then
	test_pass
else
	test_fail "gpg hung $(grep -c '^hang' "$FAKE_GPG_MODE.log") times" \
		"$(ls -R "$W/inbox")" "$(cat "$W/log")"
fi
test_begin "... reported"
if grep -l "set aside without a verdict" "$W/sent"/*/* | xargs grep -q "never finished"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
committee_conf keys.gpg-timeout=2

# 6. An mbox import: what cannot be decided is named, the rest imported.
fault exit2 1
g=$(signed_mail "$GRACE" grace@example.org g "Tenure: resign")
h=$(signed_mail "$ERIN" erin@example.org h "Tenure: resign")
{
	printf 'From grace@example.org %s\n' "$(date -u '+%a %b %e %H:%M:%S %Y')"
	cat "$g"
	printf '\nFrom erin@example.org %s\n' "$(date -u '+%a %b %e %H:%M:%S %Y')"
	cat "$h"
} >"$W/import.mbox"
before=$(events)
"$TENURE" --config "$CONF" import "mbox:$W/import.mbox" >"$W/out" 2>"$W/log"
status=$?
test_begin "an import goes past a mail gpg failed on, and fails saying to run it again"
if [ "$status" != 0 ] && grep -q "could not be decided now" "$W/log" &&
	! resigned Grace && ! grep -q '^refused ' "$W/log"; then
	test_pass
else
	test_fail "exit $status" "$(cat "$W/log")"
fi
fault pass
"$TENURE" --config "$CONF" import "mbox:$W/import.mbox" >"$W/out" 2>"$W/log"
status=$?
test_begin "... and run again, it applies that mail"
if [ "$status" = 0 ] && resigned Grace; then
	test_pass
else
	test_fail "exit $status" "$(cat "$W/log")"
fi

# 7. A keyring file caught half-written while it is regenerated
# (`gpg --export >FILE`): its last packet cut.
fault pass
cp "$W/keyring.gpg" "$W/keyring.whole"
resign i "$FRANK" frank i
head -c $(($(wc -c <"$W/keyring.gpg") - 10)) "$W/keyring.whole" >"$W/keyring.gpg"
once
test_begin "a keyring caught half-written: the mail waits, not refused as from an unknown key"
if in_new "$i" && ! grep -q '^refused ' "$W/log" && ! resigned Frank &&
	grep -q "^deferred id=$i reason=.*not whole" "$W/log"; then
	test_pass
else
	test_fail "$(ls -R "$W/inbox")" "$(cat "$W/log")"
fi
cp "$W/keyring.whole" "$W/keyring.gpg"
once +2m
test_begin "... and is applied once the keyring is whole again"
if in_cur "$i" && resigned Frank; then
	test_pass
else
	test_fail "$(ls -R "$W/inbox")" "$(cat "$W/log")"
fi

test_done
