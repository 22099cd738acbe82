#!/bin/sh
# t-publish-private: what [publish] writes is public (issue 26, item 6).
# With every local warning active at once (mail held by an SMTP login
# failure, a dead letter, mail waiting for a verdict, mail set aside,
# tenure doubting its clock), the page, the calendar and the JSON carry
# the committee only: members, roles, terms, upcoming events and the
# plan's warnings.  The outbox, the undecided and set-aside mail, the
# clock, server names, error texts and Message-IDs stay in the local
# `tenure status`, which still shows them all.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/smtp.sh"

[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
smtp_start starttls --auth tenure:right ||
	test_skip_all "aiosmtpd would not start"

committee_init
cd "$W" || exit 1
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
CAROL=$(gpg_new_key "Carol Member" carol@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org
# Three members, fewer than min-members (4): a committee warning, which
# is published.
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB" \
	"Carol Member <carol@example.org> $CAROL"
printf 'right\n' >smtp-password
chmod 0600 smtp-password
mkdir www
committee_conf "sink.url=smtp://localhost:$SMTP_PORT" "sink.ca-file=$SMTP_CA" \
	sink.user=tenure sink.password-file=smtp-password publish.dir=www

# pass [OFFSET]: one `run --once`, its clock OFFSET from the machine's.
pass() {
	"$FAKED" "${1:-+0}" timeout 120 "$TENURE" --config "$CONF" run --once \
		>pass.out 2>pass.log
}

# A dead letter: the server refuses Alice's announcement for good.
smtp_answer "554 5.7.1 relay.internal.example: list closed to tenure"
deliver inbox "$(signed_mail "$ALICE" alice@example.org alice-resigns \
	"Tenure: resign")"
pass
smtp_answer ""
# Held mail: the password is wrong, the server refuses the login.
printf 'wrong\n' >smtp-password
deliver inbox "$(signed_mail "$BOB" bob@example.org bob-resigns \
	"Tenure: resign")"
pass
# Mail without a verdict, one waiting and one set aside (retry.h's
# record, as the intake writes it).
now=$(date +%s)
cat >state/retry <<END
[wait maildir $now.1.test]
first=$now
next=$((now + 3600))
tries=1
id=<undecided-secret@example.org>
reason=gpgv killed by signal 9 on verifier.internal.example

[set-aside maildir $now.2.test]
when=$now
id=<set-aside-secret@example.org>
reason=gpg killed after 10 s (deadline) on verifier.internal.example
reported=true
END
state_reseal state/retry
# Tenure doubts its clock: three days further on than the time since
# its last pass, with no witness (the kernel's NTP state unsynchronised,
# the SMTP server on this host).  The files are written again by that
# pass.
rm -f www/*
TENURE_TEST_CLOCK_NTP=unsynced pass +3d

"$TENURE" --config "$CONF" status >status.out 2>&1
test_begin "the local status shows every local warning at once"
test_expect_equal "clock mail-dead mail-held mail-set-aside mail-undecided" \
	"$(for code in mail-held mail-dead mail-undecided mail-set-aside clock; do
		grep -q "$code" status.out 2>/dev/null || "$TENURE" --config "$CONF" \
			status --format=json | grep -q "\"code\" : \"$code\"" && echo "$code"
	done | sort | tr '\n' ' ' | sed 's/ $//')" "$(cat status.out pass.log)"

test_begin "that last pass, doubting its clock, published the three files"
if [ -s www/index.html ] && [ -s www/calendar.ics ] && [ -s www/status.json ]; then
	test_pass
else
	test_fail "missing: $(ls www)" "$(cat pass.log)"
fi

# Every local fact, as it would read in a published file.
cat >local-facts <<END
localhost
$SMTP_PORT
relay.internal.example
verifier.internal.example
Login
password
@example.org
message_id
alice-resigns
bob-resigns
secret
could not be sent
dead letter
verified yet
set aside
doubts its clock
last pass
last_error
queued
END
test_begin "no published file names a server, an error, a Message-ID, mail or the clock"
test_expect_equal "" "$(grep -F -i -n -f local-facts www/index.html www/calendar.ics www/status.json)"

json() {
	/usr/bin/python3 -c 'import json, sys; d = json.load(open("www/status.json")); print(eval(sys.argv[1]))' "$1"
}
test_begin "the published JSON has no outbox, undecided mail or clock; only committee warnings"
test_expect_equal "None None None few-members" \
	"$(json '" ".join([str(d["outbox"]), str(d["undecided"]), str(d["clock_doubt"])] + [w["code"] for w in d["warnings"]])')"

test_begin "the published page keeps the committee: members, the warning of too few"
test_expect_equal "Alice Member Bob Member Carol Member 1" \
	"$(grep -o -E '(Alice|Bob|Carol) Member' www/index.html | sort -u | tr '\n' ' ')$(grep -c 'data-code="few-members"' www/index.html)"

test_begin "the published JSON fits the schema"
valid=$(/usr/bin/python3 - "$top_srcdir/doc/tenure.schema.json" www/status.json <<'END'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
print("ok" if not errors else errors[0].message[:200])
END
)
test_expect_equal ok "$valid"

test_done
