#!/bin/sh
# t-source-contact.sh: tenure status shows when the list's source was
# last read, and a source that cannot be read is a warning there, not
# only a log line: a real Dovecot with the wrong password, then the
# right one.  The record is the operator's: the status of the day shows
# the server's words, and no published file carries them.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/dovecot.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
dovecot_setup
dovecot_start

committee_init
cd "$W" || exit 1
committee_ledger "Erin Example <erin@example.org>"
printf 'not-the-password\n' >wrong-password
chmod 0600 wrong-password
committee_conf source.url="imaps://localhost:$DOVECOT_IMAPS_PORT/INBOX" \
	source.user="$DOVECOT_USER" source.password-file="$W/wrong-password" \
	source.ca-file="$DOVECOT_CA"
: >keyring.gpg

test_begin "before any pass: status says nothing of the source"
"$TENURE" --config tenure.conf status >s0 2>&1
test_expect_equal "0" "$(grep -c '^Source:' s0)" "$(cat s0)"

"$TENURE" --config tenure.conf run --once >/dev/null 2>run1.log
"$TENURE" --config tenure.conf status >s1 2>&1

test_begin "a login refused: a warning since when, and the server's words under Source"
test_expect_equal "1 1 1" \
	"$(grep -c "^warning: the list's mail could not be read since [0-9-]* [0-9:]* UTC" s1) $(grep -c '^Source: imaps://localhost:[0-9]*/INBOX: last read never$' s1) $(grep -c '^  failing since .*UTC: .*' s1)" \
	"$(cat s1) $(cat run1.log)"

test_begin "the JSON: source-failing, and the source with its error, valid under the schema"
"$TENURE" --config tenure.conf status --format=json >s1.json
test_expect_equal "source-failing None True" \
	"$(/usr/bin/python3 -c '
import json, sys
d = json.load(open("s1.json"))
try:
    import jsonschema
    jsonschema.validate(d, json.load(open(sys.argv[1])))
except ImportError:
    pass
print(" ".join(w["code"] for w in d["warnings"] if w["code"].startswith("source")),
      d["source"]["last_read"], bool(d["source"]["error"]))' "$top_srcdir/doc/tenure.schema.json")"

test_begin "a second failure keeps the first failure's time"
since1=$(sed -n 's/^  failing since \(.*UTC\):.*/\1/p' s1)
sleep 1
"$TENURE" --config tenure.conf run --once >/dev/null 2>&1
"$TENURE" --config tenure.conf status >s2 2>&1
test_expect_equal "$since1" "$(sed -n 's/^  failing since \(.*UTC\):.*/\1/p' s2)"

test_begin "nothing of it is published: no source, no server words, no warning"
mkdir -p www
committee_conf source.url="imaps://localhost:$DOVECOT_IMAPS_PORT/INBOX" \
	source.user="$DOVECOT_USER" source.password-file="$W/wrong-password" \
	source.ca-file="$DOVECOT_CA" publish.dir=www
"$TENURE" --config tenure.conf run --once >/dev/null 2>&1
error=$(sed -n 's/^Error: //p' state/source-contact)
test_expect_equal "4 files; 0 0 0 0" \
	"$(ls www | wc -l) files; $(cat www/* | grep -c 'source-failing') $(cat www/* | grep -c "could not be read since") $(cat www/* | grep -c "$DOVECOT_IMAPS_PORT") $(cat www/* | grep -cF "$error")" \
	"$(ls www) $error"

test_begin "the password fixed: the warning is gone and the last read is recorded"
committee_conf source.url="imaps://localhost:$DOVECOT_IMAPS_PORT/INBOX" \
	source.user="$DOVECOT_USER" source.password-file="$DOVECOT_PASSWORD_FILE" \
	source.ca-file="$DOVECOT_CA"
"$TENURE" --config tenure.conf run --once >/dev/null 2>run3.log
"$TENURE" --config tenure.conf status >s3 2>&1
test_expect_equal "0 1 0" \
	"$(grep -c '^warning: the list' s3) $(grep -c '^Source: imaps://.*: last read [0-9-]* [0-9:]* UTC$' s3) $(grep -c 'failing since' s3)" \
	"$(cat s3) $(cat run3.log)"

test_begin "a dry run records nothing"
before=$(cat state/source-contact)
committee_conf source.url="imaps://localhost:$DOVECOT_IMAPS_PORT/INBOX" \
	source.user="$DOVECOT_USER" source.password-file="$W/wrong-password" \
	source.ca-file="$DOVECOT_CA"
"$TENURE" --config tenure.conf run --dry-run >/dev/null 2>&1
test_expect_equal "$before" "$(cat state/source-contact)"

test_done
