#!/bin/sh
# t-signature-record.sh: whether a command was already applied is read
# from the ledger's Signature field, compared whole.  Every part of a
# future record is predictable (a public fingerprint, the SHA-256 of a
# short command, the signing second), and a deferral's Reason is the
# chair's own text, copied into Comment: it was searched for the record,
# so a chair's deferral listing a window of records marked another
# member's later resignation as done (ignored, and every resend too).
# An older ledger's record in Comment still counts, read only from the
# Comment's exact final form.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
DAVE=$(gpg_new_key "Dave Member" dave@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	bob@example.org dave@example.org
members="Carol Chair <carol@example.org> $CAROL
Alice Member <alice@example.org> $ALICE
Bob Member <bob@example.org> $BOB
Dave Member <dave@example.org> $DAVE"
IFS='
'
# shellcheck disable=SC2086
committee_ledger $members
# shellcheck disable=SC2086
committee_ledger --file "$W/copy-ledger" $members
unset IFS
committee_conf roles.chair="$CAROL"
committee_conf copy.conf committee.ledger=copy-ledger committee.state-dir=copy-state \
	roles.chair="$CAROL"
SENT=$W/sent/new

run_once() {
	"$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}

# The record of MAIL's signature, as anyone can work it out: here by
# importing it into a copy of the committee (either form of the record).
record_of() {
	local main=$CONF
	CONF=$W/copy.conf
	import_mail "$1"
	CONF=$main
	grep -o '[0-9A-F]\{40\} [0-9T:Z-]* sha256:[0-9a-f]\{64\}' "$W/copy-ledger" |
		tail -n 1
}

bob_mail=$(signed_mail --at '1 hour ago' "$BOB" bob@example.org bob-resign "Tenure: resign")
bob_record=$(record_of "$bob_mail")
test_begin "the record of Bob's resignation could be worked out"
case $bob_record in
"$BOB "*) test_pass ;;
*) test_fail "got \"$bob_record\"" "$(cat "$W/log")" ;;
esac

# The chair defers Alice's expiry, the Reason listing a window of
# records around Bob's, his among them.  A deferral moves an expiry
# under a limit the committee sets itself (never debian's): Alice's
# 18-month term, from a year ago, ends in six months.
committee_event rule "$year_ago" "Rule: fixed-term" "Parameters: term=18m"
bob_time=${bob_record#* }
bob_time=${bob_time%% *}
window=
for s in -1 0 1; do
	t=$(date -u -d "$bob_time $s seconds" +%Y-%m-%dT%H:%M:%SZ)
	window="$window signature $BOB $t ${bob_record##* };"
done
before=$(events)
deliver "$W/inbox" "$(signed_mail "$CAROL" carol@example.org carol-defer "Tenure: defer
Member: Alice Member <alice@example.org>
Until: $(date -u -d '300 days' +%Y-%m-%d)
Reason: records$window")"
run_once
expect_event --applied "the chair's deferral is recorded, its Reason in Comment alone" \
	"^Event: defer
^Signature: $CAROL [0-9T:Z-]* sha256:[0-9a-f]{64}\$
^Comment: records signature $BOB "

before=$(events)
deliver "$W/inbox" "$bob_mail"
run_once
expect_event --applied "Bob's resignation is applied, the Reason naming its record notwithstanding" \
	"^Event: resign
^Member: Bob Member <bob@example.org>
^Signature: $bob_record\$"

test_begin "Bob's resignation is announced"
if grep -l '^X-Tenure: announce-resign$' "$SENT"/* 2>/dev/null |
	xargs grep -l 'Bob Member' >/dev/null 2>&1; then
	test_pass
else
	test_fail "no announce-resign naming Bob in $SENT" "$(cat "$W/log")"
fi

before=$(events)
deliver "$W/inbox" "$bob_mail"
run_once
test_begin "Bob's resignation sent again changes nothing"
test_expect_equal "$before" "$(events)" "$(cat "$W/log")"

# The same ledger as an older tenure wrote it, the records in Comment:
# tenure audit rebuilds it from the archive and finds it the same.
awk 'BEGIN { RS = ""; ORS = "\n\n" }
{
	n = split($0, line, "\n"); record = ""; out = ""
	for (i = 1; i <= n; i++)
		if (line[i] ~ /^Signature: /)
			record = substr(line[i], 12)
	for (i = 1; i <= n; i++) {
		if (line[i] ~ /^Signature: /)
			continue
		if (line[i] ~ /^Comment: / && record != "" && $0 ~ /Event: defer/) {
			line[i] = line[i] " (signature " record ")"
			record = ""
		}
		out = out line[i] "\n"
	}
	if (record != "")
		out = out "Comment: signature " record "\n"
	printf "%s\n", out
}' "$W/ledger" | sed '$d' >"$W/ledger.old"
cp "$W/ledger.old" "$W/ledger"
rm -f "$W/state/ledger-mark"
"$TENURE" --config "$CONF" audit >"$W/out" 2>"$W/log"
status=$?
test_begin "an older ledger, its records in Comment, audits as the same"
if [ $status = 0 ] && ! grep -q DIFFERENT "$W/out" &&
	grep -q "^Comment: signature $BOB " "$W/ledger" &&
	grep -q "^Comment: records.* (signature $CAROL " "$W/ledger"; then
	test_pass
else
	test_fail "exit $status" "$(cat "$W/out" "$W/log")" "$(cat "$W/ledger")"
fi

# A ledger written before the Signature field kept the record in
# Comment ("signature RECORD"): Dave's resignation recorded so is
# applied, and his mail read again is not applied twice.
dave_mail=$(signed_mail --at '1 hour ago' "$DAVE" dave@example.org dave-resign "Tenure: resign")
dave_record=$(record_of "$dave_mail")
committee_event resign "$today" "Member: Dave Member <dave@example.org>" \
	"Source: <dave-resign@example.org>" "Signed-By: $DAVE" \
	"Comment: signature $dave_record"
before=$(events)
deliver "$W/inbox" "$dave_mail"
run_once
test_begin "an older ledger's record in Comment still counts: the mail is not applied twice"
if [ "$(events)" = "$before" ] &&
	grep -q '^ignored .*signature already handled (its event is in the ledger)' "$W/log"; then
	test_pass
else
	test_fail "expected $before events and an ignored line, got $(events)" "$(cat "$W/log")"
fi

test_done
