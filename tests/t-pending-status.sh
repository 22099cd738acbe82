#!/bin/sh
# t-pending-status.sh: what waits for a second signature is shown by
# tenure status (text, TSV, JSON, HTML) with the day it lapses: a
# chair's recommendation (recommendation-days after it), half of a
# removal (no lapse: it waits for the other), and it is gone once the
# second step is taken.  Keys and mail are made for the run.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"

committee_init
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
NINA=$(gpg_new_key "Nina Newcomer" nina@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	bob@example.org leo@example.org nina@example.org
committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE" "Bob Member <bob@example.org> $BOB" \
	"Dora Member <dora@example.org>" "Eve Member <eve@example.org>" \
	"Finn Member <finn@example.org>"
committee_conf roles.chair="$CAROL" roles.leader="$LEO" \
	reminders.recommendation-days=30

send() {
	import_mail "$(signed_mail --at "$3" "$1" someone@example.org "$2" "$4")" \
		"$(date -d "$3 + 1 hour" +%s)"
}
day() { date -u -d "$1" +%Y-%m-%d; }

send "$CAROL" rec-nina '2 days ago' "Tenure: recommend
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01"
send "$CAROL" remove-bob '1 day ago' "Tenure: remove
Member: Bob Member <bob@example.org>"

"$TENURE" --config "$CONF" status >"$W/s.txt" 2>&1

test_begin "text: the recommendation with the day it lapses, the half removal waiting"
test_expect_equal "Waiting for a second signature:
  recommendation Nina Newcomer <nina@example.org>, signed for $(day '2 days ago') by $CAROL; lapses on $(day '2 days ago + 31 days')
  removal Bob Member <bob@example.org> by $CAROL; waits for the other signature" \
	"$(sed -n '/^Waiting for a second signature:/,/^$/p' "$W/s.txt" | sed '/^$/d')" \
	"$(cat "$W/s.txt")"

test_begin "TSV: a pending row each"
"$TENURE" --config "$CONF" status --format=tsv >"$W/s.tsv"
test_expect_equal "pending	recommendation	Nina Newcomer <nina@example.org>	$(day '2 days ago')	-	$(day '2 days ago + 31 days')	-	signed by $CAROL
pending	removal	Bob Member <bob@example.org>	-	-	-	-	signed by $CAROL" \
	"$(grep '^pending' "$W/s.tsv")"

test_begin "JSON: pending, valid under the schema"
"$TENURE" --config "$CONF" status --format=json >"$W/s.json"
test_expect_equal "recommendation Nina Newcomer $(day '2 days ago + 31 days')
removal Bob Member None" \
	"$(/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.validate(d, json.load(open(sys.argv[2])))
except ImportError:
    pass
for p in d["pending"]:
    print(p["kind"], p["person"]["name"], p["lapses"])' "$W/s.json" "$top_srcdir/doc/tenure.schema.json")"

test_begin "HTML: a section that says when each lapses"
"$TENURE" --config "$CONF" status --format=html >"$W/s.html"
test_expect_equal "2" \
	"$(sed -n '/<h2 id="pending">/,/<\/section>/p' "$W/s.html" | grep -c '<li>')"

test_begin "the leader appoints Nina: the recommendation no longer waits"
send "$LEO" appoint-nina '1 hour ago' "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01"
"$TENURE" --config "$CONF" status --format=tsv >"$W/s2.tsv"
test_expect_equal "removal" "$(awk -F '\t' '$1 == "pending" { print $2 }' "$W/s2.tsv")" \
	"$(cat "$W/log")"

test_done
