#!/bin/sh
# t-status: tenure status on Debian's own ledger (examples/debian-ctte.ledger)
# and the published HTML page.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"

DEBIAN=$top_srcdir/examples/debian-ctte.ledger
cd "$TEST_DIR" || exit 1

test_begin "Debian's ledger on 2026-02-04: the eight members of that day, most senior first"
"$TENURE" --now 2026-02-04 status --ledger "$DEBIAN" --format=tsv >members.tsv 2>err
awk -F '\t' '$1 == "member" { sub(/ <.*/, "", $3); print $2 " " $3 }' members.tsv >members.got
cat >members.expected <<'END'
1 Helmut Grohne
2 Matthew Vernon
3 Stefano Rivera
4 Matthew Garrett
5 Timo Röhling
6 Craig Small
7 Paul Tagliamonte
8 David Prévot
END
test_expect_equal_file members.expected members.got

test_begin "Debian's ledger on 2026-02-04: Röhling chairs; no leader is recorded"
"$TENURE" --now 2026-02-04 status --ledger "$DEBIAN" >status.txt 2>err
test_expect_equal "Chair: Timo Röhling <roehling@debian.org>; leader: not recorded" \
	"$(sed -n 2p status.txt)"

test_begin "the chairs the notes name, each on a day of their chair"
got=""
for d in 2000-01-01 2002-01-31 2006-03-01 2010-01-01 2015-03-20 2017-01-01 \
	2019-01-01 2022-01-01 2024-09-23 2026-02-04; do
	got="$got$d $("$TENURE" status --ledger "$DEBIAN" --date "$d" --format=json |
		/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["roles"]["chair"]["holder"]["name"])')
"
done
test_expect_equal "2000-01-01 Raul Miller
2002-01-31 Ian Jackson
2006-03-01 Steve Langasek
2010-01-01 Bdale Garbee
2015-03-20 Don Armstrong
2017-01-01 Didier Raboud
2019-01-01 Margarita Manterola
2022-01-01 Sean Whitton
2024-09-23 Matthew Vernon
2026-02-04 Timo Röhling
" "$got"

test_begin "Debian's ledger: the rule's expiries 2015 to 2026 are the recorded ones, with no mismatch"
"$TENURE" plan --ledger "$DEBIAN" --from 2015-01-01 --until 2026-12-31 --format=tsv \
	>plan.tsv 2>plan.err
awk -F '\t' '$2 == "expire" { print $1 " " $3 }' plan.tsv >computed
# What the ledger records, plus the two expiries the rule fixed on
# 2026-01-01 that are still ahead.
awk '/^Event:/ { e = $2 } /^Date:/ { d = $2 }
	/^Member:/ && e == "expire" && d >= "2015" { sub(/^Member: /, ""); print d " " $0 }' \
	"$DEBIAN" >recorded
printf '2026-12-31 Helmut Grohne <helmut@debian.org>\n2026-12-31 Matthew Vernon <matthew@debian.org>\n' >>recorded
sort computed >computed.sorted
sort recorded >recorded.sorted
test_expect_equal_file recorded.sorted computed.sorted

test_begin "Debian's ledger: plan reports no difference from what the ledger records"
test_expect_equal "0 " "$(grep -c . plan.err) $(grep -i mismatch plan.tsv)"

test_begin "Debian's ledger: 2015 takes Langasek ahead of Barth, appointed the same day"
test_expect_equal "2015-12-31 Steve Langasek <vorlon@debian.org>" \
	"$(awk -F '\t' '$2 == "expire" && $1 == "2015-12-31" && $3 ~ /Langasek|Barth/ { print $1 " " $3 }' plan.tsv)"

test_begin "Debian's ledger: every stanza says where it comes from, and every uncertain date says so"
# Each event has a Comment; the dates the notes leave uncertain are
# named in one containing "Uncertain" or "Inferred".
missing=$(awk 'BEGIN { RS = ""; FS = "\n" } /^Event:/ && !/\nComment:/ { print $2 }' "$DEBIAN")
uncertain=0
for who in "Klee Dienes" "Jason Gunthorpe" "Wichert Akkerman" "Margarita Manterola" \
	"Christoph Berg" "Helmut Grohne" "Matthew Vernon" "Stefano Rivera" \
	"Matthew Garrett" "Timo Röhling" "Craig Small" "Paul Tagliamonte" \
	"David Prévot" "Elana Hashman"; do
	awk -v who="$who" 'BEGIN { RS = ""; FS = "\n" } index($0, who) && /Uncertain/ { found = 1 }
		END { exit !found }' "$DEBIAN" || uncertain="$uncertain $who"
done
test_expect_equal " 0" "$missing $uncertain"

# The page a member reads: a ledger whose members are all overdue (no
# expiry recorded since the rule was adopted).
cat >overdue.ledger <<'END'
Event: appoint
Date: 2010-01-01
Member: Alice Example <alice@example.org>

Event: appoint
Date: 2011-01-01
Member: Bob Example <bob@example.org>

Event: appoint
Date: 2012-06-01
Member: Carol Example <carol@example.org>

Event: role
Date: 2012-06-01
Role: chair
Member: Carol Example <carol@example.org>

Event: role
Date: 2013-04-17
Role: leader
Member: Leo Leader <leo@example.org>

Event: rule
Date: 2015-01-01
Rule: debian
END
"$TENURE" status --ledger overdue.ledger --date 2017-06-01 --format=html \
	--name "Example Committee" >page.html 2>err

test_expect_success "the page: a viewport for phones" \
	"grep -q '<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">' page.html"

test_expect_success "the page: the committee's name from --name, also with --ledger" \
	"grep -q '<h1>Example Committee</h1>' page.html"

test_expect_success "the page: the chair and the leader of the day" \
	"grep -q 'Chair: Carol Example; Leader: Leo Leader\.' page.html"

test_begin "the page: every date is kept from breaking at its hyphens"
# Each YYYY-MM-DD shown outside the SVG, in the tables and in the
# reasons, is inside <span class="date">.
bare=$(sed '/<svg/,/<\/svg>/d; /<title>/d' page.html | sed 's/<span class="date">[0-9-]*<\/span>//g' |
	grep -o '[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]' | head -n 3)
test_expect_equal "" "$bare"
test_expect_success "the page: the nowrap style for dates is there" \
	"grep -q '\.date{white-space:nowrap}' page.html"

test_begin "the page: Upcoming shows the overdue expiries, not \"nothing is due\""
upcoming=$(sed -n '/<h2 id="upcoming">Upcoming/,/<h2 id="timeline">Timeline/p' page.html)
test_expect_equal "3 0" "$(printf '%s\n' "$upcoming" | grep -c '>overdue</td>') $(printf '%s\n' "$upcoming" | grep -c 'Nothing is due')"

test_begin "the page: an expiry on the day itself is due today"
"$TENURE" status --ledger overdue.ledger --date 2015-12-31 --format=html >today.html 2>err
test_expect_equal "2 0" "$(grep -c '>due today</td>' today.html) $(grep -c '2015-12-31</span></td><td[^>]*>expire</td>' today.html)"

test_begin "the page: no e-mail addresses unless --show-addresses"
test_expect_equal "0" "$(grep -c 'example\.org' page.html)"

"$TENURE" status --ledger overdue.ledger --date 2017-06-01 --format=html \
	--show-addresses >full.html 2>err
test_expect_success "the page: --show-addresses shows them" \
	"grep -q 'Carol Example &lt;carol@example.org&gt;' full.html"

test_begin "json names the chair and the leader, and --name the committee"
"$TENURE" status --ledger overdue.ledger --date 2017-06-01 --format=json --name X \
	--show-addresses >s.json
test_expect_equal 'X Carol Example <carol@example.org> Leo Leader <leo@example.org>' \
	"$(/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["committee"], *("%s <%s>" % (d["roles"][r]["holder"]["name"], d["roles"][r]["holder"]["email"]) for r in ("chair", "leader")))' s.json)"

test_begin "the chair's role lapses with the chair's term"
printf '\nEvent: resign\nDate: 2016-03-31\nMember: Carol Example <carol@example.org>\n' >>overdue.ledger
test_expect_equal "Chair: vacant; leader: Leo Leader <leo@example.org>" \
	"$("$TENURE" status --ledger overdue.ledger --date 2016-04-01 | sed -n 2p)"

test_done
