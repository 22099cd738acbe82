#!/bin/sh
# t-announce.sh: what tenure's outgoing mail says and to whom, through
# `tenure run --once` into a Maildir sink.  Every event appended to the
# ledger is announced to the list (a deferral from signed mail, a
# handover and a new key however they were appended), a new key is also
# mailed to the member, announcements carry Reply-To: the list, a history
# that had not recorded two past expiries gets them recorded with
# announcements that say they are late, and a field line of a template
# stays its own line.  Keys and mail are made for the run.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 to read MIME"

committee_init

CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
BOB2=$(gpg_new_key "Bob Member" bob2@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	bob@example.org bob2@example.org leo@example.org

LIST=debian-ctte@lists.debian.org
SENT=$W/sent/new

committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE" "Bob Member <bob@example.org> $BOB"
committee_conf roles.chair="$CAROL" roles.leader="$LEO"

run_once() {
	"$TENURE" --config "$CONF" "$@" run --once >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}

# The mail in the sink made from template $1 (X-Tenure names it).
sent_of_kind() {
	grep -l "^X-Tenure: $1\$" "$SENT"/* 2>/dev/null | sort
}

sent_count() {
	ls "$SENT" 2>/dev/null | wc -l | tr -d ' '
}

# header FILE NAME: the unfolded, decoded value of header NAME.
header() {
	/usr/bin/python3 - "$1" "$2" <<'EOF'
import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
v = m.get(sys.argv[2])
print("" if v is None else str(v))
EOF
}

# body FILE: the decoded text of the mail.
body() {
	/usr/bin/python3 - "$1" <<'EOF'
import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
part = m.get_body(("plain",))
sys.stdout.write(part.get_content())
EOF
}

# expect_mail DESCRIPTION KIND RECIPIENT TO SUBJECT BODY_LINES: one
# check: exactly one mail of KIND went to RECIPIENT (the envelope), its
# To: and Subject: are TO and SUBJECT, Reply-To: is the list, From: is
# the committee's secretary, and each line of BODY_LINES is a line of
# its body (grep -x).
expect_mail() {
	test_begin "$1"
	local files f
	files=$(sent_of_kind "$2")
	if [ "$(printf '%s\n' "$files" | grep -c .)" != 1 ]; then
		test_fail "expected one mail of kind $2, got: $files" "$(cat "$W/log")"
		return
	fi
	f=$files
	body "$f" >"$W/body"
	printf '%s\n' "$6" | while IFS= read -r line; do
		grep -qxF -- "$line" "$W/body" || echo "body lacks the line: $line"
	done >"$W/missing"
	for pair in "X-Envelope-To|$3" "To|$4" "Subject|$5" "Reply-To|$LIST" \
		"From|Test Committee secretary <tenure@example.org>" \
		"Auto-Submitted|auto-generated"; do
		got=$(header "$f" "${pair%%|*}")
		[ "$got" = "${pair#*|}" ] ||
			echo "${pair%%|*}: expected \"${pair#*|}\", got \"$got\""
	done >>"$W/missing"
	if [ -s "$W/missing" ]; then
		test_fail "$(cat "$W/missing")" "the mail:" "$(cat "$f")"
	else
		test_pass
	fi
}

# --- A deferral from signed mail --------------------------------------------

# A deferral moves an expiry the rule has set, under a limit the
# committee sets itself (never debian's): Alice's 18-month term, from a
# year ago, ends in six months.
committee_event rule "$year_ago" "Rule: fixed-term" "Parameters: term=18m"
until=$(date -u -d '300 days' +%Y-%m-%d)
deliver "$W/inbox" "$(signed_mail "$CAROL" carol@example.org defer-alice "Tenure: defer
Member: Alice Member <alice@example.org>
Until: $until
Reason: a vote on the committee's size is under way")"
run_once

test_begin "the deferral from signed mail is recorded"
test_expect_equal "Event: defer" "$(last_event | grep '^Event:')"

expect_mail "the deferral is announced to the list with Reply-To" \
	announce-defer "$LIST" "$LIST" \
	"Test Committee: the expiry of the term of Alice Member is deferred until $until" \
	"Reason: a vote on the committee's size is under way
Term rule in force: fixed-term term=1y6m anti-cabal=false
Recorded from <defer-alice@example.org>, signed by
$CAROL."

test_begin "the log says the announcement was queued, with its event"
grep -q "^queued kind=announce-defer event-key=announce/defer/alice@example.org/$today/$until " "$W/log"
test_expect_equal 0 $?

# --- A handover and a new key, appended however they were -------------------

committee_event role "$today" "Role: chair" "Member: Alice Member <alice@example.org>" \
	"Fingerprint: $ALICE" "Source: <handover-alice@example.org>" "Signed-By: $CAROL"
committee_event key "$today" "Member: Bob Member <bob@example.org>" \
	"Fingerprint: $BOB2" "Source: <new-key-bob@example.org>" "Signed-By: $BOB $BOB2"
run_once

expect_mail "the handover is announced, naming the holder before" \
	announce-role "$LIST" "$LIST" \
	"Test Committee: Alice Member holds the chair's role from $today" \
	"From $today, Alice Member <alice@example.org> holds the chair's role
for the Test Committee, in place of Carol Chair <carol@example.org>.
Key: $ALICE"

expect_mail "the new key is announced to the list with the key before it" \
	announce-key "$LIST" "$LIST" \
	"Test Committee: Bob Member signs with a new key from $today" \
	"New key: $BOB2
Key before: $BOB"

expect_mail "the new key is mailed to the member at the ledger's address" \
	notice-key bob@example.org "Bob Member <bob@example.org>" \
	"Your key for the Test Committee changes on $today" \
	"Dear Bob Member,
New key: $BOB2
Key before: $BOB
If this was not you, tell the committee at once: a reply to this mail
goes to the list, $LIST."

# Eight: the three expiries the 18-month terms set, Alice's again as
# deferred, the deferral, the handover, the new key and its notice.
test_begin "each announcement is sent once: another pass sends nothing"
count=$(sent_count)
run_once
run_once
test_expect_equal "8 8 0" "$count $(sent_count) $(cat "$W/status")"

test_begin "history typed in by hand (Source: import) is not announced"
committee_event key "$today" "Member: Alice Member <alice@example.org>" \
	"Fingerprint: $BOB"
run_once 2>/dev/null
test_expect_equal "8" "$(sent_count)"

# --- A first run over a history that had not recorded two expiries ----------

# Under the debian rule, on 2025-01-01 Ann and Ben had served more than
# 42 months and were the two most senior: their terms ended on
# 2025-12-31, which the history does not record.
mkdir -p "$W/late"
cat >"$W/late/history" <<'EOF'
Event: rule
Date: 2015-01-01
Rule: debian
Source: import

Event: appoint
Date: 2021-05-01
Member: Ann Ångström-Øvergård <ann@example.org>
Source: import

Event: appoint
Date: 2021-06-01
Member: Ben Senior <ben@example.org>
Source: import

Event: appoint
Date: 2023-01-10
Member: Cat Junior <cat@example.org>
Source: import

Event: appoint
Date: 2024-02-01
Member: Dan Newer <dan@example.org>
Source: import
EOF
committee_conf late/tenure.conf keys.keyring="$W/keyring.gpg" \
	keys.gnupg-home="$W/g"
CONF=$W/late/tenure.conf
SENT=$W/late/sent/new
mkdir -p "$W/late/inbox/new" "$W/late/inbox/cur" "$W/late/inbox/tmp"
"$TENURE" --config "$CONF" --now 2026-12-03 init --history "$W/late/history" \
	>"$W/out" 2>&1
run_once --now 2026-12-03

test_begin "the first run records both past expiries, and logs them as late"
test_expect_equal "2 2" \
	"$(grep -c '^Event: expire' "$W/late/ledger") $(grep -c '^expired .*last-day=2025-12-31 .*late=yes' "$W/log")"

test_begin "both are announced to the list, their subjects saying they are late"
late_subjects=0
for f in $(sent_of_kind announce-expire); do
	case $(header "$f" Subject) in
	*" expired on 2025-12-31 (announced late)") late_subjects=$((late_subjects + 1)) ;;
	esac
done
test_expect_equal "2 2" "$(sent_of_kind announce-expire | wc -l | tr -d ' ') $late_subjects"

f=$(grep -l "^Subject: .*Ben Senior" $(sent_of_kind announce-expire))
body "$f" >"$W/ben"
test_begin "the announcement says first that it is late, with the last day"
test_expect_equal "This announcement is late: this term ended on 2025-12-31; the record is
being caught up. The term of Ben Senior <ben@example.org> on the Test" \
	"$(head -n 2 "$W/ben")"

test_begin "the expiry's announcement says that replies go to the list, and they do"
grep -q 'replies go to the list' "$W/ben"
test_expect_equal "0 $LIST Test Committee secretary <tenure@example.org>" \
	"$? $(header "$f" Reply-To) $(header "$f" From)"

test_begin "the reason and the term rule stay lines of their own"
reason_line=$(grep -n '^Reason: more than 42 months' "$W/ben" | cut -d: -f1)
rule_line=$(grep -n '^Term rule: debian$' "$W/ben" | cut -d: -f1)
if [ -n "$reason_line" ] && [ -n "$rule_line" ] &&
	! grep -q '6\.2\.7) Term rule' "$W/ben" &&
	sed -n "$((reason_line + 1)),$((rule_line - 1))p" "$W/ben" |
		grep -qv '^        '; then
	test_fail "a continuation of Reason: is not indented" "$(cat "$W/ben")"
elif [ -n "$reason_line" ] && [ -n "$rule_line" ] &&
	! grep -q '6\.2\.7) Term rule' "$W/ben"; then
	test_pass
else
	test_fail "expected Reason: and Term rule: on lines of their own" "$(cat "$W/ben")"
fi

test_begin "no line of any mail sent is longer than 72 characters but a single word"
long=$(for m in "$W"/sent/new/* "$W"/late/sent/new/*; do
	[ -f "$m" ] || continue
	body "$m" | /usr/bin/python3 -c '
import sys
for line in sys.stdin.read().splitlines():
    if len(line) > 72 and " " in line.strip():
        print(sys.argv[1] + ": " + line)' "$m"
done)
test_expect_equal "" "$long"

test_begin "a second pass the next day records and sends nothing more"
run_once --now 2026-12-04
test_expect_equal "2 2" "$(grep -c '^Event: expire' "$W/late/ledger") $(sent_count)"

test_done
