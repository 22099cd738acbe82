#!/bin/sh
# t-status-future.sh: every member's resignation recorded, effective on
# days ahead (issue 42 item 6).  When the committee falls below
# min-members, or the chair's resignation takes effect, within 90 days,
# status (text and TSV), the JSON ("ahead", valid under the schema), the
# page and check (WARNING, with few_members_days in its performance
# data) say so; when the first of those days is beyond 90 days (below
# min-members in four months, empty in ten), none of them does.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
command -v gpg >/dev/null || test_skip_all "gpg is not installed"
committee_init
cd "$W" || exit 1
mkdir -p state
: >keyring.gpg
committee_conf rule.name=fixed-term rule.term=7

# resigned_ledger FILE DATE...: five members (terms of seven years, none
# ending before 2030), Alice the chair, each resigning on the DATE of
# their rank, Alice first.
resigned_ledger() {
	local file=$1 who
	shift
	printf 'Event: rule\nDate: 2015-01-01\nRule: fixed-term\nParameters: term=7y\n' >"$file"
	for who in Alice Bob Carol Dave Erin; do
		printf '\nEvent: appoint\nDate: 2024-01-%02d\nMember: %s Member <%s@example.org>\n' \
			$(($(printf '%s\n' Alice Bob Carol Dave Erin | grep -n "^$who$" | cut -d: -f1) + 1)) \
			"$who" "$(echo "$who" | tr A-Z a-z)" >>"$file"
	done
	printf '\nEvent: role\nDate: 2024-01-02\nRole: chair\nMember: Alice Member <alice@example.org>\n' >>"$file"
	for who in Alice Bob Carol Dave Erin; do
		[ $# -gt 0 ] || break
		printf '\nEvent: resign\nDate: %s\nMember: %s Member <%s@example.org>\n' \
			"$1" "$who" "$(echo "$who" | tr A-Z a-z)" >>"$file"
		shift
	done
}

# Today 2026-12-07.  Alice (chair) leaves on 2027-01-31, Bob on
# 2027-02-15: three members from 2027-02-16, 71 days ahead.
resigned_ledger soon.ledger 2027-01-31 2027-02-15 2027-06-30 2027-08-31 2027-10-31
# The issue's shape: below min-members in four months, empty in ten.
resigned_ledger later.ledger 2027-03-31 2027-04-07 2027-06-30 2027-08-31 2027-10-07

# json_ahead FILE: the status JSON's "ahead" and its warnings' codes.
json_ahead() {
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
a = d["ahead"]
print(a["days"], a["few_members"], a["chair_vacant"], a["leader_vacant"], end="; ")
print(*[w["code"] for w in d["warnings"]])' "$1"
}
status_of() { "$TENURE" --config "$CONF" --now 2026-12-07 status --ledger "$@"; }
# The record of a pass that read the source that day, as tenure seals
# it: a service that has never run is a WARNING of its own (issue 42
# item 3).
check_of() {
	sed "s|^ledger = .*|ledger = $W/$1|" "$CONF" >check.conf
	mkdir -p "$W/state"
	body="Url: maildir:$W/inbox
Last-Ok: $(date -u -d 2026-12-07 +%s)
"
	{
		printf '# tenure-state bytes=%s sha256=%s\n' "$(printf '%s' "$body" | wc -c | tr -d ' ')" \
			"$(printf '%s' "$body" | sha256sum | cut -d' ' -f1)"
		printf '%s' "$body"
	} >"$W/state/source-contact"
	"$TENURE" --config check.conf --now 2026-12-07 check
	echo "exit $?"
}

test_begin "within 90 days: status warns of the day below min-members and the chair's vacancy"
test_expect_equal "warning: the chair falls vacant on 2027-02-01
warning: the committee falls to 3 members on 2027-02-16, fewer than 4" \
	"$(status_of soon.ledger | grep '^warning:')"

test_begin "within 90 days: the TSV carries both warnings"
test_expect_equal "2" "$(status_of soon.ledger --format=tsv | grep -c '^warning.*\(fewer than 4\|falls vacant\)')"

test_begin "within 90 days: the JSON's ahead names both days, valid under the schema"
status_of soon.ledger --format=json >soon.json
test_expect_equal "90 2027-02-16 2027-02-01 None; vacant-ahead few-members-ahead" \
	"$(json_ahead soon.json)"
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	test_begin "within 90 days: the JSON is valid under doc/tenure.schema.json"
	test_expect_equal "valid" "$(/usr/bin/python3 -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open("soon.json")), json.load(open(sys.argv[1])))
print("valid")' "$top_srcdir/doc/tenure.schema.json" 2>&1)"
fi

test_begin "within 90 days: the page shows both warnings"
status_of soon.ledger --format=html >soon.html
test_expect_equal "1 1" \
	"$(grep -c 'data-code="few-members-ahead">the committee falls to 3 members on <span class="date">2027-02-16<' soon.html) $(grep -c 'data-code="vacant-ahead">the chair falls vacant on <span class="date">2027-02-01<' soon.html)"

test_begin "within 90 days: check is WARNING, both named, the days in the performance data"
check_of soon.ledger >soon.check
test_expect_equal "TENURE WARNING
few_members_days=71
WARNING: the chair falls vacant on 2027-02-01, in 56 days
exit 1" \
	"$(sed -n '1s/ - .*//p' soon.check)
$(grep -o 'few_members_days=[0-9U]*' soon.check)
$(grep '^WARNING: the chair' soon.check)
$(tail -n 1 soon.check)" "$(cat soon.check)"

test_begin "within 90 days: check's first line names the day below min-members"
test_expect_equal "1" \
	"$(head -n 1 soon.check | grep -c 'the committee falls below min-members (4) on 2027-02-16, in 71 days')" \
	"$(cat soon.check)"

test_begin "beyond 90 days: status has no warning"
test_expect_equal "" "$(status_of later.ledger | grep '^warning:')"

test_begin "beyond 90 days: the JSON's ahead is empty, no warning"
status_of later.ledger --format=json >later.json
test_expect_equal "90 None None None; " "$(json_ahead later.json)"

test_begin "beyond 90 days: the page has no warning"
status_of later.ledger --format=html >later.html
test_expect_equal "0" "$(grep -c 'data-code=' later.html)"

test_begin "beyond 90 days: check is OK, few_members_days U"
check_of later.ledger >later.check
test_expect_equal "TENURE OK
few_members_days=U
exit 0" \
	"$(sed -n '1s/ - .*//p' later.check)
$(grep -o 'few_members_days=[0-9U]*' later.check)
$(tail -n 1 later.check)" "$(cat later.check)"

test_begin "beyond 90 days, seen from 2027-01-15: status --date warns as the day comes near"
test_expect_equal "warning: the chair falls vacant on 2027-04-01" \
	"$("$TENURE" --config "$CONF" --now 2027-01-15 status --ledger later.ledger | grep '^warning: the chair')"

test_done
