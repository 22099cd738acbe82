#!/bin/sh
# t-names.sh: names are data, never headers (issue 24 item 7).  Names the
# administrator recorded (Source: import, or appended by hand as news)
# go into tenure's mail, `tenure status` and `tenure plan`: an
# encoded-word that decodes to a line break and a Bcc: line stays text,
# a backslash composes, a tab or a backslash in a TSV field is escaped,
# and one mail that cannot be composed (a template broken for one kind)
# fails alone, logged once and listed by status, while the others go
# out.  Through `tenure run --once` into a Maildir sink.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init

CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org leo@example.org
SENT=$W/sent/new
NINA='=?utf-8?q?Nina=0D=0ABcc=3A_victim=40third.example?='

committee_ledger "Carol Chair <carol@example.org> $CAROL"
committee_event appoint "$today" "Member: $NINA <nina@example.org>" \
	"Source: <appoint-nina@example.org>"
committee_event key "$today" "Member: $NINA <nina@example.org>" \
	"Fingerprint: 0123456789ABCDEF0123456789ABCDEF01234567" \
	"Source: <key-nina@example.org>"
committee_event appoint "$today" 'Member: Bob Back\slash <bob@example.org>' \
	"Source: <appoint-bob@example.org>"
committee_event key "$today" 'Member: Bob Back\slash <bob@example.org>' \
	"Fingerprint: 89ABCDEF0123456789ABCDEF0123456789ABCDEF" \
	"Source: <key-bob@example.org>"
committee_event appoint "$today" "Member: Tab	Name <tab@example.org>" \
	"Source: import"
committee_conf roles.chair="$CAROL" roles.leader="$LEO"

run_once() {
	"$TENURE" --config "$CONF" "$@" run --once >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}

notice_to() {
	grep -l "^X-Tenure: notice-key" "$SENT"/* 2>/dev/null |
		xargs grep -l "^To: .*<$1>\|^To: $1" 2>/dev/null
}

run_once
test_begin "every announcement and notice is sent, the pass exits 0"
count=$(ls "$SENT" 2>/dev/null | wc -l | tr -d ' ')
if [ "$(cat "$W/status")" = 0 ] && [ "$count" = 6 ]; then
	test_pass
else
	test_fail "expected exit 0 and 6 mails, got $(cat "$W/status") and $count" \
		"$(cat "$W/log")"
fi

test_begin "an encoded-word name adds no Bcc: and no line to any header"
nina=$(notice_to nina@example.org)
if [ -z "$nina" ]; then
	test_fail "no notice to Nina" "$(cat "$W/log")"
elif grep -il "^bcc:" "$SENT"/* >/dev/null 2>&1; then
	test_fail "a Bcc: header was sent" "$(grep -il '^bcc:' "$SENT"/*)"
elif [ -x /usr/bin/python3 ] && ! /usr/bin/python3 - "$nina" <<'EOF'
import email, email.policy, sys
msg = email.message_from_binary_file(open(sys.argv[1], 'rb'),
                                     policy=email.policy.default)
to = msg['To'].addresses
subject = str(msg['Subject'])
ok = (len(to) == 1 and to[0].addr_spec == 'nina@example.org'
      and '\n' not in to[0].display_name and '\r' not in to[0].display_name
      and '\n' not in subject and '\r' not in subject)
sys.exit(0 if ok else 1)
EOF
then
	test_fail "the decoded To: or Subject: of Nina's notice holds a line break" \
		"$(grep -E '^(To|Subject):' "$nina")"
else
	test_pass
fi

test_begin "a name with a backslash composes, to that member alone"
bob=$(notice_to bob@example.org)
if [ -n "$bob" ] && grep -q '^To: "Bob Back\\\\slash" <bob@example.org>' "$bob"; then
	test_pass
else
	test_fail "expected a notice To: \"Bob Back\\\\slash\" <bob@example.org>" \
		"$(grep '^To:' "$bob" 2>/dev/null)" "$(cat "$W/log")"
fi

# --- TSV: every field escaped ---------------------------------------------

"$TENURE" --config "$CONF" status --format=tsv >"$W/status.tsv" 2>&1
test_begin "status --format=tsv keeps a tab in a name inside its field"
if grep -q '^member	[0-9]*	Tab\\tName <tab@example.org>	' "$W/status.tsv" &&
	! awk -F'\t' 'NF != 8 { bad = 1 } END { exit !bad }' "$W/status.tsv"; then
	test_pass
else
	test_fail "expected 8 columns in every row, the tab written \\t" \
		"$(cat "$W/status.tsv")"
fi

test_begin "status --format=tsv writes a backslash doubled"
if grep -q 'Bob Back\\\\slash <bob@example.org>' "$W/status.tsv"; then
	test_pass
else
	test_fail "expected Bob Back\\\\slash" "$(cat "$W/status.tsv")"
fi

"$TENURE" --config "$CONF" plan --format=tsv --until "$(date -u -d '+6 years' +%Y-%m-%d)" \
	>"$W/plan.tsv" 2>/dev/null
test_begin "plan --format=tsv keeps a tab in a name inside its field"
if grep -q 'Tab\\tName' "$W/plan.tsv" &&
	! awk -F'\t' '!/^date\t/ && NF != 4 { bad = 1 } END { exit !bad }' "$W/plan.tsv"; then
	test_pass
else
	test_fail "expected 4 columns in every row, the tab written \\t" \
		"$(cat "$W/plan.tsv")"
fi

# --- One mail that cannot be composed fails alone --------------------------

mkdir -p "$W/templates"
cp "$top_srcdir"/templates/*.txt "$W/templates/"
sed -i 's/{{name}} appointed/{{nmae}} appointed/' "$W/templates/announce-appoint.txt"
sed -i "s|^templates = .*|templates = $W/templates|" "$CONF"
committee_event appoint "$today" "Member: Dan New <dan@example.org>" \
	"Source: <appoint-dan@example.org>"
committee_event key "$today" "Member: Dan New <dan@example.org>" \
	"Fingerprint: 00000000000000000000000000000000000000AA" \
	"Source: <key-dan@example.org>"
run_once
test_begin "a mail that cannot be composed makes the pass exit 1, logged once"
if [ "$(cat "$W/status")" = 1 ] &&
	[ "$(grep -c "^mail-unsent .*unknown placeholder {{nmae}}" "$W/log")" = 1 ]; then
	test_pass
else
	test_fail "expected exit 1 and one mail-unsent line" "$(cat "$W/log")"
fi

test_begin "the mail after it is still sent"
if [ -n "$(notice_to dan@example.org)" ]; then
	test_pass
else
	test_fail "expected the key notice to Dan" "$(cat "$W/log")"
fi

"$TENURE" --config "$CONF" status >"$W/status.txt" 2>&1
test_begin "status lists the mail that was not composed"
if grep -q "not composed: .*unknown placeholder {{nmae}}" "$W/status.txt"; then
	test_pass
else
	test_fail "expected the unsent announcement in status" "$(cat "$W/status.txt")"
fi

run_once
test_begin "the next pass does not log it again"
if [ "$(cat "$W/status")" = 1 ] && ! grep -q "^mail-unsent" "$W/log"; then
	test_pass
else
	test_fail "expected exit 1 and no mail-unsent line" "$(cat "$W/log")"
fi

test_done
