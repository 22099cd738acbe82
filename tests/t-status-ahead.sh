#!/bin/sh
# t-status-ahead.sh: status looks ahead.  The warnings name the day,
# within 90 days, on which the committee falls below min-members or the
# chair falls vacant (and not when a handover is recorded, nor beyond
# the horizon); `status --date` on a day after today shows the committee
# as it will stand, with the rule's expiries up to then recorded rather
# than "overdue".

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
command -v gpg >/dev/null || test_skip_all "gpg is not installed"
committee_init
cd "$W" || exit 1

# Alice's four years end on 2027-01-14; she chairs; four members.
cat >ledger <<'END'
Event: rule
Date: 2015-01-01
Rule: fixed-term
Parameters: term=4y

Event: appoint
Date: 2023-01-15
Member: Alice Member <alice@example.org>

Event: appoint
Date: 2024-03-01
Member: Bob Member <bob@example.org>

Event: appoint
Date: 2024-06-01
Member: Carol Member <carol@example.org>

Event: appoint
Date: 2025-02-01
Member: Dave Member <dave@example.org>

Event: role
Date: 2023-01-15
Role: chair
Member: Alice Member <alice@example.org>
END

test_begin "41 days ahead: the day the committee falls to 3, and the day the chair falls vacant"
test_expect_equal "warning: the committee falls to 3 members on 2027-01-15, fewer than 4
warning: the chair falls vacant on 2027-01-15" \
	"$("$TENURE" --now 2026-12-04 status --ledger ledger | grep '^warning:')"

test_begin "the JSON carries them with their codes, valid under the schema"
"$TENURE" --now 2026-12-04 status --ledger ledger --format=json >s.json
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	test_expect_equal "few-members-ahead vacant-ahead valid" \
		"$(/usr/bin/python3 -c '
import json, sys, jsonschema
d = json.load(open("s.json"))
jsonschema.validate(d, json.load(open(sys.argv[1])))
print(*[w["code"] for w in d["warnings"]], "valid")' "$top_srcdir/doc/tenure.schema.json")"
else
	test_expect_equal "few-members-ahead vacant-ahead" \
		"$(/usr/bin/python3 -c 'import json; print(*[w["code"] for w in json.load(open("s.json"))["warnings"]])')"
fi

test_begin "more than 90 days ahead: no warning yet"
test_expect_equal "" "$("$TENURE" --now 2026-10-01 status --ledger ledger | grep '^warning:')"

test_begin "a handover recorded before the end: the chair does not fall vacant"
cp ledger handed.ledger
printf '\nEvent: role\nDate: 2027-01-10\nRole: chair\nMember: Bob Member <bob@example.org>\n' >>handed.ledger
test_expect_equal "warning: the committee falls to 3 members on 2027-01-15, fewer than 4" \
	"$("$TENURE" --now 2026-12-04 status --ledger handed.ledger | grep '^warning:')"

test_begin "an appointment recorded for the day after: the committee never falls to 3"
cp ledger filled.ledger
printf '\nEvent: appoint\nDate: 2027-01-15\nMember: Erin Member <erin@example.org>\n' >>filled.ledger
test_expect_equal "warning: the chair falls vacant on 2027-01-15" \
	"$("$TENURE" --now 2026-12-04 status --ledger filled.ledger | grep '^warning:')"

test_begin "status --date after the end: the member is former, not serving and overdue"
"$TENURE" --now 2026-12-04 status --ledger ledger --date 2027-07-01 --format=tsv >ahead.tsv
test_expect_equal "former Alice Member <alice@example.org> 2027-01-14
3 members, 0 overdue" \
	"$(awk -F '\t' '$3 ~ /^Alice/ { print $1, $3, $5 }' ahead.tsv)
$(grep -c '^member' ahead.tsv) members, $(grep -c 'overdue' ahead.tsv) overdue" \
	"$(cat ahead.tsv)"

test_begin "status --date after the end: the chair is vacant then"
test_expect_equal "Chair: vacant; leader: not recorded" \
	"$("$TENURE" --now 2026-12-04 status --ledger ledger --date 2027-07-01 | sed -n 2p)"

test_begin "an expiry due before today is still overdue on a later --date"
test_expect_equal "1" \
	"$("$TENURE" --now 2027-02-01 status --ledger ledger --date 2027-07-01 --format=tsv | grep -c '^warning.*the ledger does not record it yet$')"

# A handover and a resignation recorded ahead (Effective: in the future).
cp ledger future.ledger
printf '\nEvent: role\nDate: 2027-01-10\nRole: chair\nMember: Bob Member <bob@example.org>\n' >>future.ledger
printf '\nEvent: resign\nDate: 2027-03-31\nMember: Carol Member <carol@example.org>\n' >>future.ledger

test_begin "Upcoming has the recorded handover and the resignation ahead"
"$TENURE" --now 2026-12-04 status --ledger future.ledger --format=json >future.json
test_expect_equal "2027-01-10 handover Bob Member becomes chair (recorded)
2027-01-14 expire Alice Member
2027-03-31 resign Carol Member recorded" \
	"$(/usr/bin/python3 -c '
import json
for e in json.load(open("future.json"))["upcoming"][:3]:
    print(e["date"], e["kind"], e["person"]["name"], e["detail"] if e["kind"] != "expire" else "")' | sed 's/ $//')"

test_begin "plan shows the handover"
test_expect_equal "2027-01-10 handover Bob Member <bob@example.org> becomes chair (recorded)" \
	"$("$TENURE" --now 2026-12-04 plan --ledger future.ledger --until 2027-06-01 --format=tsv |
		awk -F '\t' '$2 == "handover" { print $1, $2, $3, $4 }')"

test_begin "the calendar has the handover and the resignation"
"$TENURE" --now 2026-12-04 plan --ledger future.ledger --until 2027-06-01 --format=ics >future.ics
test_expect_equal "SUMMARY:Bob Member: becomes chair (recorded)
SUMMARY:Alice Member: term expires
SUMMARY:Carol Member: last day (resigned)" \
	"$(grep '^SUMMARY' future.ics | tr -d '\r')"

test_begin "the published page and JSON carry both warnings: they are the committee's"
mkdir -p www
: >keyring.gpg
committee_conf publish.dir=www rule.name=fixed-term rule.term=4
# On a clock stopped at that time: --now would write nothing to [publish].
if faked_lib; then
	tenure_at 2026-12-04T10:00:00Z --config "$CONF" run --once >/dev/null 2>publish.log
	test_expect_equal "few-members-ahead vacant-ahead; 2" \
		"$(/usr/bin/python3 -c 'import json; print(*[w["code"] for w in json.load(open("www/status.json"))["warnings"]])'); $(grep -c 'falls' www/index.html)" \
		"$(cat publish.log)"
else
	test_skip "libfaketime (package faketime) is not installed"
fi

test_done
