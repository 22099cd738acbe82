#!/bin/sh
# t-json: the JSON of `tenure status` and `tenure plan`, as real runs
# print it, validated against doc/tenure.schema.json (python3-jsonschema),
# and what a script reads from it: the version, the people, the roles,
# the upcoming events, the warnings, the outbox's held and dead mail.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/smtp.sh"

SCHEMA=$top_srcdir/doc/tenure.schema.json
DEBIAN=$top_srcdir/examples/debian-ctte.ledger
CTTE=$top_srcdir/tests/data/ctte-2014.ledger
# python3-jsonschema is a build dependency: without it the suite fails
# here rather than passing without the schema checked.
if ! /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	echo "Bail out! python3-jsonschema is not installed (apt-get install python3-jsonschema)"
	exit 1
fi
# The outbox's held mail is made on a clock moved on (tenure_at), decided
# before the first result.
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"

committee_init
cd "$W" || exit 1

# validate FILE...: "ok", or each document's errors, one per line.
validate() {
	/usr/bin/python3 - "$SCHEMA" "$@" <<'END'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
bad = []
for name in sys.argv[2:]:
    try:
        document = json.load(open(name))
    except ValueError as e:
        bad.append("%s: not JSON: %s" % (name, e))
        continue
    for error in validator.iter_errors(document):
        bad.append("%s: %s: %s" % (name, "/".join(map(str, error.absolute_path)), error.message[:200]))
print("\n".join(bad) or "ok")
END
}

# query FILE EXPRESSION: a Python expression over the document "d".
query() {
	/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# --- status --------------------------------------------------------------

for d in 2000-01-01 2015-03-20 2026-02-04 2026-12-03; do
	"$TENURE" status --ledger "$DEBIAN" --date $d --format=json >"debian-$d.json"
done
"$TENURE" status --ledger "$DEBIAN" --date 2026-12-03 --format=json \
	--show-addresses >debian-addresses.json

test_begin "status on Debian's ledger, on four dates and with addresses, fits the schema"
test_expect_equal "ok" "$(validate debian-*.json)"

test_begin "status json: a versioned document a script can tell apart"
test_expect_equal "tenure-status 1 2026-12-03" \
	"$(query debian-2026-12-03.json '" ".join([d["format"], str(d["version"]), d["date"]])')"

test_begin "status json: members as objects, most senior first, with their term ends"
test_expect_equal "Helmut Grohne 1 2026-12-31 scheduled|Matthew Vernon 2 2026-12-31 scheduled|Stefano Rivera 3 2027-12-31 projected" \
	"$(query debian-2026-12-03.json '"|".join("%s %d %s %s" % (m["person"]["name"], m["seniority"], m["term_end"], m["term_end_status"]) for m in d["members"][:3])')"

test_begin "status json: no address unless --show-addresses"
test_expect_equal "0 helmut@debian.org" \
	"$(grep -c '@' debian-2026-12-03.json) $(query debian-addresses.json 'd["members"][0]["person"]["email"]')"

test_begin "status json: the chair as a person, from the ledger"
test_expect_equal "Timo Röhling ledger" \
	"$(query debian-2026-12-03.json 'd["roles"]["chair"]["holder"]["name"] + " " + d["roles"]["chair"]["source"]')"

test_begin "status json: the upcoming events, each with its date, kind and person"
test_expect_equal "2026-12-31 expire Helmut Grohne" \
	"$(query debian-2026-12-03.json '" ".join([d["upcoming"][0]["date"], d["upcoming"][0]["kind"], d["upcoming"][0]["person"]["name"]])')"

test_begin "status json: former members with how they left and when they may return"
test_expect_equal "Christoph Berg expire from" \
	"$(query debian-2026-12-03.json '" ".join([d["former_members"][0]["person"]["name"], d["former_members"][0]["ended_by"], d["former_members"][0]["eligible"]])')"

# A committee of three with an expiry overdue, a leader the keyring
# names, and mail the server refused and mail it asked to wait with.
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
gpg_export_keyring "$W/keyring.gpg" leo@example.org carol@example.org
cat >ledger <<END
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

Event: rule
Date: 2015-01-01
Rule: debian
END
cp ledger ledger.before
smtp_start plain || test_skip_all "aiosmtpd would not start"
committee_conf roles.chair="$CAROL" roles.leader="$LEO" \
	sink.url="smtp://127.0.0.1:$SMTP_PORT" sink.starttls=no
mkdir -p state

# The first pass records Alice's expiry and announces it, and Bob's
# expiry that the rule fixed for 2016-12-31: refused for good.  A later
# one reminds Bob 90 days before: the server asks it to wait.  On a
# clock stopped at those times: --now would keep the mail from the
# server.
smtp_answer "554 5.7.1 not from you"
tenure_at 2016-06-01T10:00:00Z --config "$CONF" run --once >run1.out 2>run1.err
smtp_answer "451 4.3.0 try again later"
tenure_at 2016-10-02T10:00:00Z --config "$CONF" run --once >run2.out 2>run2.err
"$TENURE" --config "$CONF" --now 2016-10-02T10:00:05Z status --date 2016-10-02 \
	--format=json >mail.json 2>err

test_begin "status json with held and dead mail and warnings fits the schema"
test_expect_equal "ok" "$(validate mail.json)"

test_begin "status json: the outbox's dead letters and held mail, each an object"
test_expect_equal "dead 2 True held 1 True 1 attempt(s) next 2016-10-02T10:01:00Z" \
	"$(query mail.json '"dead %d %s held %d %s %d attempt(s) next %s" % (len(d["outbox"]["dead"]), "said: 554" in d["outbox"]["dead"][0]["reason"], len(d["outbox"]["held"]), "said: 451" in d["outbox"]["held"][0]["last_error"], d["outbox"]["held"][0]["attempts"], d["outbox"]["held"][0]["next_attempt"])')"

test_begin "status json: the warnings, each with its code"
test_expect_equal "few-members mail-held mail-dead" \
	"$(query mail.json '" ".join(w["code"] for w in d["warnings"])')"

test_begin "status json: a leader named by the keyring's user ID, with the key"
test_expect_equal "Leo Leader keyring $LEO" \
	"$(query mail.json '" ".join([d["roles"]["leader"]["holder"]["name"], d["roles"]["leader"]["source"], d["roles"]["leader"]["key"]])')"

test_begin "status json with --ledger has no outbox (null)"
"$TENURE" status --ledger ledger.before --date 2016-06-01 --format=json >ledger-only.json
test_expect_equal "ok None" "$(validate ledger-only.json) $(query ledger-only.json 'd["outbox"]')"

test_begin "status json: an overdue expiry comes first among the upcoming, marked overdue"
test_expect_equal "ok 2015-12-31 expire True Alice Old" \
	"$(validate ledger-only.json) $(query ledger-only.json '" ".join(str(x) for x in [d["upcoming"][0]["date"], d["upcoming"][0]["kind"], d["upcoming"][0]["overdue"], d["upcoming"][0]["person"]["name"]])')"

# --- plan ----------------------------------------------------------------

"$TENURE" plan --ledger "$DEBIAN" --from 2015-01-01 --until 2026-12-31 \
	--format=json >plan-debian.json 2>plan-debian.err
"$TENURE" plan --ledger "$CTTE" --rule annual-expiry --param max-service=6y \
	--from 2014-06-01 --until 2020-12-31 --fill-after 14 --format=json \
	--show-addresses >plan-fill.json
cat "$CTTE" - >audit.ledger <<'END'

Event: rule
Date: 2014-06-01
Rule: annual-expiry

Event: expire
Date: 2014-09-01
Member: Ian Jackson <iwj@debian.org>
END
"$TENURE" plan --ledger audit.ledger --from 2014-06-01 --until 2014-12-31 \
	--format=json --name "Audit" >plan-audit.json 2>plan-audit.err
# A placeholder that gives its seat to Nina's recorded appointment: a
# `replaced` event (t-plan-corners.sh tells why).
for i in 1 2 3 4 5 6 7 8; do
	printf 'Event: appoint\nDate: 2000-0%d-01\nMember: M%d <m%d@example.org>\n\n' \
		"$i" "$i" "$i"
done >replaced.ledger
printf 'Event: appoint\nDate: 2011-01-01\nMember: Nina Neu <nina@example.org>\n' >>replaced.ledger
"$TENURE" plan --ledger replaced.ledger --rule senior-rolling --from 2010-01-01 \
	--until 2011-12-31 --fill-after 30 --format=json >plan-replaced.json

test_begin "plan json, with placeholders, addresses, a mismatch and a placeholder replaced, fits the schema"
test_expect_equal "ok 1" "$(validate plan-*.json) $(grep -c '"kind" : "replaced"' plan-replaced.json)"

test_begin "plan json: a versioned document with its range, rule and events"
test_expect_equal "tenure-plan 1 2014-06-01 2020-12-31 14 annual-expiry day=08-16 max-service=6y cooldown=1y" \
	"$(query plan-fill.json '" ".join(str(x) for x in [d["format"], d["version"], d["from"], d["until"], d["fill_after"], d["rule"]])')"

test_begin "plan json: the same expiries as the TSV"
"$TENURE" plan --ledger "$CTTE" --rule annual-expiry --param max-service=6y \
	--from 2014-06-01 --until 2020-12-31 --fill-after 14 --format=tsv |
	awk -F '\t' '$2 == "expire" { print $1 " " $3 }' >expiries.tsv
query plan-fill.json '"\n".join("%s %s <%s>" % (e["date"], e["person"]["name"], e["person"]["email"]) for e in d["events"] if e["kind"] == "expire")' >expiries.json
test_expect_equal_file expiries.tsv expiries.json

test_begin "plan json: a recorded expiry the rule does not give is a mismatch event, named by --name"
test_expect_equal "Audit mismatch Ian Jackson" \
	"$(query plan-audit.json '" ".join([d["committee"]] + [e["kind"] + " " + e["person"]["name"] for e in d["events"] if e["kind"] == "mismatch"])')"

test_begin "the schema refuses what it should: another version, an unknown kind"
sed 's/"version" : 1/"version" : 2/' plan-audit.json >bad-version.json
sed 's/"kind" : "mismatch"/"kind" : "guess"/' plan-audit.json >bad-kind.json
test_expect_equal "2" "$(validate bad-version.json bad-kind.json | grep -c .)"

test_done
