#!/bin/sh
# t-publish: [publish] dir.  `tenure run` writes the status page, the
# calendar and the JSON there after a pass that changed the ledger and
# once a day, each replaced whole (a new inode, never a file rewritten in
# place), readable by a web server, names without addresses; a pass
# with nothing new writes nothing; a directory that cannot be written
# fails the pass with the file named, and the ledger is untouched.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

SCHEMA=$top_srcdir/doc/tenure.schema.json

faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
committee_init
cd "$W" || exit 1

CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org
# Alice's term ended on 2015-12-31 under the debian rule and the ledger
# does not record it yet: the first pass does, a change to the ledger.
cat >ledger <<END
Event: rule
Date: 2015-01-01
Rule: debian

Event: appoint
Date: 2010-01-01
Member: Alice Old <alice@example.org>

Event: appoint
Date: 2012-06-01
Member: Bob Example <bob@example.org>

Event: appoint
Date: 2016-01-15
Member: Carol Chair <carol@example.org>
Fingerprint: $CAROL
END
mkdir -p state www
committee_conf publish.dir=www

# pass WHEN: one `run --once` on a clock stopped at WHEN (--now would
# write nothing to [publish]); its log in pass.log.
pass() {
	tenure_at "$1" --config "$CONF" run --once >pass.out 2>pass.log
}
# inodes: the inode numbers of the three files, one line.
inodes() {
	ls -i www/index.html www/calendar.ics www/status.json 2>&1 | awk '{ print $1 }' | tr '\n' ' '
}
json() {
	/usr/bin/python3 -c 'import json, sys; d = json.load(open("www/status.json")); print(eval(sys.argv[1]))' "$1"
}

test_begin "the first pass records the expiry and publishes the page, the calendar and the JSON"
pass 2016-06-01T10:00:00Z
test_expect_equal "0 1 -rw-r--r-- -rw-r--r-- -rw-r--r-- 2016-06-01 Alice Old expire" \
	"$? $(grep -c '^published' pass.log) $(stat -c %A www/index.html www/calendar.ics www/status.json | tr '\n' ' ')$(json '" ".join([d["date"], d["former_members"][0]["person"]["name"], d["former_members"][0]["ended_by"]])')"

test_begin "the JSON published fits the schema; the calendar keeps the expiry past; no addresses"
valid=$(/usr/bin/python3 - "$SCHEMA" www/status.json <<'END'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
print("ok" if not errors else errors[0].message[:200])
END
)
past=$(tr -d '\r' <www/calendar.ics | perl -0pe 's/\n //g' |
	awk '/^DTSTART/ { sub(/.*:/, ""); d = $0 } /^SUMMARY:Alice/ { print d, $0 }' | head -n 1)
test_expect_equal "ok 20151231 SUMMARY:Alice Old: term expires 0 Test Committee" \
	"$valid $past $(cat www/* | grep -c 'example\.org') $(sed -n 's/.*<title>\([^<]*\) on .*/\1/p; s/.*<title>\([^<]*\)<.*/\1/p' www/index.html | head -n 1 | cut -c1-14)"

test_begin "a pass the same day with nothing new writes nothing"
before=$(inodes)
pass 2016-06-01T11:00:00Z
test_expect_equal "0 0 $before" "$? $(grep -c '^published' pass.log) $(inodes)"

test_begin "a new day publishes again, of that day"
before=$(inodes)
pass 2016-06-02T00:10:00Z
after=$(inodes)
test_expect_equal "0 1 2016-06-02 replaced" \
	"$? $(grep -c '^published' pass.log) $(json 'd["date"]') $(
		[ "$before" != "$after" ] && echo replaced)"

test_begin "a change to the ledger from outside (import, an edit) is published at the next pass"
committee_event resign 2016-06-01 "Member: Carol Chair <carol@example.org>"
pass 2016-06-02T12:00:00Z
test_expect_equal "0 1 Carol Chair resign" \
	"$? $(grep -c '^published' pass.log) $(json '" ".join([d["former_members"][0]["person"]["name"], d["former_members"][0]["ended_by"]])')"

test_begin "a published file that went missing is written again"
rm www/calendar.ics
pass 2016-06-02T12:30:00Z
test_expect_equal "0 1 BEGIN:VCALENDAR" \
	"$? $(grep -c '^published' pass.log) $(head -n 1 www/calendar.ics | tr -d '\r')"

test_begin "a directory that cannot be written fails the pass naming the file; the ledger stays"
: >notadir
committee_conf publish.dir=notadir/www
cp ledger ledger.before
pass 2016-06-03T10:00:00Z
status=$?
test_expect_equal "1 1 same" \
	"$status $(grep -c 'notadir/www/ledger.txt' pass.log) $(cmp -s ledger ledger.before && echo same)"

test_begin "without [publish] nothing is published"
rm -rf www2
committee_conf
pass 2016-06-04T10:00:00Z
test_expect_equal "0 0" "$? $(grep -c '^published' pass.log)"

test_done
