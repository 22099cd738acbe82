#!/bin/sh
# t-page-links: the page's links lead somewhere (issue 26, item 12).  The
# page [publish] writes links the calendar, the JSON and the public
# ledger (issue 44 item 1) published beside
# it, in its head (rel="alternate", for feed readers and calendar
# clients) and as visible links; every in-page link has its target, and
# the timeline's caption names the Former members table only once
# someone has left.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

committee_init
cd "$W" || exit 1
committee_ledger "Alice Member <alice@example.org>" \
	"Bob Member <bob@example.org>"
: >keyring.gpg
mkdir www
committee_conf publish.dir=www

# broken_anchors FILE: every href="#X" of FILE with no id="X", one a line.
broken_anchors() {
	grep -o 'href="#[^"]*"' "$1" | sed 's/href="#//; s/"$//' | sort -u |
		while read -r anchor; do
			grep -q "id=\"$anchor\"" "$1" || echo "#$anchor"
		done
}

test_begin "nobody has left: no link to a Former members table the page lacks"
"$TENURE" --config "$CONF" status --format=html >page.html 2>err
test_expect_equal "" "$(broken_anchors page.html)" "$(cat err)"

test_begin "the published page links its calendar, its JSON and its ledger, in its head and in view"
timeout 120 "$TENURE" --config "$CONF" run --once >pass.out 2>pass.log
test_expect_equal "calendar.ics status.json ledger.txt calendar.ics status.json ledger.txt" \
	"$(grep -o '<link rel="alternate" type="[^"]*" href="[^"]*"' www/index.html |
		sed 's/.*href="//; s/"$//' | tr '\n' ' ')$(sed -n 's/.*<footer>//p' www/index.html |
		grep -o '<a href="[^"#]*"' | sed 's/.*href="//; s/"$//' | tr '\n' ' ' | sed 's/ $//')" \
	"$(cat pass.log)"

test_begin "... files that are there, beside the page"
test_expect_equal "calendar.ics index.html ledger.txt status.json" "$(ls www | tr '\n' ' ' | sed 's/ $//')"

test_begin "once someone has left, the caption links the Former members table, which is there"
committee_event resign "$(date -u -d "1 month ago" +%Y-%m-%d)" "Member: Bob Member <bob@example.org>"
"$TENURE" --config "$CONF" status --format=html >page.html 2>err
test_expect_equal "1 " "$(grep -c 'href="#former"' page.html) $(broken_anchors page.html)"

test_begin "status --format=html (not published) links no files"
test_expect_equal "0" "$(grep -c 'calendar.ics\|status.json\|ledger.txt' page.html)"

test_done
