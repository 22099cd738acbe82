#!/bin/sh
# t-publish-plan: [publish] dir when the plan cannot be made.  The status
# page and the JSON are still published, without the upcoming events and
# with a warning that says why and that the calendar is not updated; the
# calendar keeps its last version, whole; `run --once` exits 1 naming
# what failed; no temp file is left behind.  The warnings name people
# without their addresses, as everything published does.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

SCHEMA=$top_srcdir/doc/tenure.schema.json

faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
committee_init
cd "$W" || exit 1

CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org
# Eight members under the rule none: a committee at its cap.
for i in 1 2 3 4 5 6 7; do
	printf 'Event: appoint\nDate: 2016-0%d-01\nMember: M%d Member <m%d@example.org>\n\n' \
		"$i" "$i" "$i"
done >ledger
printf 'Event: appoint\nDate: 2016-08-01\nMember: Carol Chair <carol@example.org>\nFingerprint: %s\n' \
	"$CAROL" >>ledger
mkdir -p state www
committee_conf rule.name=none publish.dir=www

# pass WHEN: one `run --once` on a clock stopped at WHEN (--now would
# write nothing to [publish]); its log in pass.log.
pass() {
	tenure_at "$1" --config "$CONF" run --once >pass.out 2>pass.log
}
json() {
	/usr/bin/python3 -c 'import json, sys; d = json.load(open("www/status.json")); print(eval(sys.argv[1]))' "$1"
}
inode() {
	stat -c %i "$1"
}

test_begin "a committee at its cap publishes the four files (the ledger too)"
pass 2016-09-01T10:00:00Z
test_expect_equal "0 1 calendar.ics index.html ledger.txt status.json" \
	"$? $(grep -c '^published' pass.log) $(ls www | tr '\n' ' ' | sed 's/ $//')"
cp www/calendar.ics calendar.before
calendar_inode=$(inode www/calendar.ics)
page_inode=$(inode www/index.html)

# A ninth appointment recorded by hand: nine sit, and no plan can start
# from a committee the cap says cannot be.
committee_event appoint 2016-09-01 "Member: M9 Member <m9@example.org>"

test_begin "the plan failing: run --once exits 1, naming the calendar and why"
pass 2016-09-02T10:00:00Z
test_expect_equal "1 1" \
	"$? $(grep -c "^tenure run: $W/www/calendar.ics: not updated: $W/ledger:[0-9]*: appoint: M9 Member <m9@example.org>, appointed on 2016-09-01, is one of 9 members sitting on 2016-09-02 (--from), and the committee has at most 8$" pass.log)"

test_begin "the page and the JSON are published anew, of that day"
test_expect_equal "2016-09-02 new" \
	"$(json 'd["date"]') $([ "$(inode www/index.html)" != "$page_inode" ] && echo new)"

test_begin "the JSON says why, in its warnings, without addresses, and fits the schema"
valid=$(/usr/bin/python3 - "$SCHEMA" www/status.json <<'END'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
print("ok" if not errors else errors[0].message[:200])
END
)
test_expect_equal "ok|many-members plan calendar|[]|0" \
	"$valid|$(json '" ".join(w["code"] for w in d["warnings"])')|$(json 'd["upcoming"]')|$(grep -c 'example\.org' www/status.json)"

test_begin "the calendar warning names the reason, and that the calendar keeps its last version"
test_expect_equal "calendar.ics is not updated and keeps its last version: ledger line N: appoint: M9 Member, appointed on 2016-09-01, is one of 9 members sitting on 2016-09-02 (--from), and the committee has at most 8" \
	"$(json '[w["text"] for w in d["warnings"] if w["code"] == "calendar"][0]' | sed 's|^\(.*ledger line \)[0-9][0-9]*:|\1N:|')"

test_begin "nothing published names the server's files (the ledger's path)"
test_expect_equal "0 0 0" \
	"$(grep -c "$W" www/index.html) $(grep -c "$W" www/status.json) $(grep -c "$W" www/calendar.ics)"

test_begin "the page shows both notes, and does not claim that nothing is due"
test_expect_equal "2 0 1 0" \
	"$(grep -c 'data-code="\(plan\|calendar\)"' www/index.html) $(grep -c 'Nothing is due' www/index.html) $(grep -c 'The upcoming events cannot be planned' www/index.html) $(grep -c 'example\.org' www/index.html)"

test_begin "the calendar keeps its last version, whole, and no temp file is left"
test_expect_equal "same $calendar_inode calendar.ics index.html ledger.txt status.json" \
	"$(cmp -s calendar.before www/calendar.ics && echo same) $(inode www/calendar.ics) $(ls -A www | tr '\n' ' ' | sed 's/ $//')"

test_begin "with no calendar yet, the page, the JSON and the ledger are still published, and no calendar"
rm www/*
pass 2016-09-02T11:00:00Z
test_expect_equal "1 index.html ledger.txt status.json 2016-09-02" \
	"$? $(ls -A www | tr '\n' ' ' | sed 's/ $//') $(json 'd["date"]')"

test_begin "once the ledger fits again, the calendar is published again and the notes go"
committee_event resign 2016-09-02 "Member: M1 Member <m1@example.org>"
pass 2016-09-03T10:00:00Z
test_expect_equal "0 1 calendar.ics index.html ledger.txt status.json|" \
	"$? $(grep -c '^published' pass.log) $(ls -A www | tr '\n' ' ' | sed 's/ $//')|$(json '" ".join(w["code"] for w in d["warnings"])')"

test_done
