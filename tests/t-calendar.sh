#!/bin/sh
# t-calendar: what a member subscribed to the calendar reads, and the
# plan's text columns: people named without their addresses unless
# --show-addresses (with the same UIDs either way), the calendar named by
# --name, the recent past kept (a year by default, --keep-past), and the
# text's columns lined up by the width a terminal gives each name.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"

DEBIAN=$top_srcdir/examples/debian-ctte.ledger
cd "$TEST_DIR" || exit 1

# ics FILE: the calendar with its folded lines joined and CRLF gone.
unfold() {
	tr -d '\r' <"$1" | perl -0pe 's/\n //g'
}

# On Debian's ledger, planned from today (2026-12-03).
"$TENURE" --now 2026-12-03T12:00:00Z plan --ledger "$DEBIAN" --until 2027-12-31 \
	--format=ics >feed.ics
"$TENURE" --now 2026-12-03T12:00:00Z plan --ledger "$DEBIAN" --until 2027-12-31 \
	--format=ics --show-addresses >addresses.ics

test_begin "the calendar names people without their addresses"
test_expect_equal "0 SUMMARY:Helmut Grohne: term expires" \
	"$(unfold feed.ics | grep -c '@[a-z]*\.org') $(unfold feed.ics | grep -m1 '^SUMMARY:Helmut')"

test_begin "--show-addresses adds them, and the events keep their UIDs"
test_expect_equal "SUMMARY:Helmut Grohne <helmut@debian.org>: term expires same" \
	"$(unfold addresses.ics | grep -m1 '^SUMMARY:Helmut') $(
		if [ "$(unfold feed.ics | grep '^UID:')" = "$(unfold addresses.ics | grep '^UID:')" ]; then
			echo same
		else
			echo different
		fi)"

test_begin "plan --name names the calendar, as status --name names the page"
test_expect_equal "X-WR-CALNAME:Debian Technical Committee terms (debian)" \
	"$("$TENURE" plan --ledger "$DEBIAN" --from 2026-12-03 --until 2027-12-31 \
		--format=ics --name "Debian Technical Committee" | unfold /dev/stdin | grep '^X-WR-CALNAME:')"

# Christoph Berg's term ended on 2025-12-31 and Sean Whitton became
# eligible again on 2026-01-01: within the year before today, so a
# subscribed calendar still shows them; Sean's term that ended on
# 2024-12-31 is older than that.
test_begin "the feed keeps the past year: an expiry and a re-eligibility that have passed"
test_expect_equal "20251231 SUMMARY:Christoph Berg: term expires
20260101 SUMMARY:Sean Whitton: may be appointed again" \
	"$(unfold feed.ics | awk '/^DTSTART/ { sub(/.*:/, ""); d = $0 } /^SUMMARY/ { print d, $0 }' |
		awk '$1 < 20261203')"

test_begin "--keep-past 0 drops what has passed, 6m keeps none of it here, 2y keeps two years"
past() {
	"$TENURE" --now 2026-12-03T12:00:00Z plan --ledger "$DEBIAN" --until 2027-12-31 \
		--format=ics --keep-past "$1" | unfold /dev/stdin |
		awk '/^DTSTART/ { sub(/.*:/, ""); d = $0 } /^SUMMARY/ { print d, $0 }' |
		awk '$1 < 20261203 { print $1 }' | tr '\n' ' '
}
test_expect_equal "0: 6m: 2y:20241231 20250101 20251231 20260101 " \
	"0:$(past 0) 6m:$(past 6m) 2y:$(past 2y)"

test_begin "the past kept is the ledger's: no mismatch, nothing recomputed before --from"
"$TENURE" --now 2026-12-03T12:00:00Z plan --ledger "$DEBIAN" --until 2027-12-31 \
	--format=ics --rule fixed-term --param term=2y >whatif.ics 2>whatif.err
test_expect_equal "0 20251231 SUMMARY:Christoph Berg: term expires" \
	"$(wc -c <whatif.err | tr -d ' ') $(unfold whatif.ics | awk '/^DTSTART/ { sub(/.*:/, ""); d = $0 } /^SUMMARY/ { print d, $0 }' | awk '$1 < 20261203' | head -n 1)"

test_begin "--keep-past is refused outside the calendar, and a bad span names itself"
"$TENURE" plan --ledger "$DEBIAN" --keep-past 1y >/dev/null 2>err1
s1=$?
"$TENURE" plan --ledger "$DEBIAN" --format=ics --keep-past soon >/dev/null 2>err2
s2=$?
test_expect_equal "2 tenure plan: --keep-past: only with --format=ics
2 tenure plan: --keep-past: \"soon\" is not a span (1y, 6m, 0)" "$s1 $(cat err1)
$s2 $(cat err2)"

# Names of every kind: two-byte Latin letters, a combining accent,
# wide CJK characters, and one longer than the usual column.
cat >names.ledger <<'END'
Event: appoint
Date: 2020-01-01
Member: Ann Lee <ann@example.org>

Event: appoint
Date: 2020-02-01
Member: Zoë Ünïcödé <zoe@example.org>

Event: appoint
Date: 2020-03-01
Member: 山田太郎 <taro@example.org>

Event: appoint
Date: 2020-04-01
Member: Noe̎l Combining <noel@example.org>

Event: appoint
Date: 2020-05-01
Member: Maximiliana Konstantinopoulou-Schwarzenberg <max@example.org>
END

test_begin "plan's text columns line up by display width"
"$TENURE" plan --ledger names.ledger --rule fixed-term --param term=4y \
	--from 2020-01-01 --until 2024-12-31 >names.txt
test_expect_equal "ok 15" "$(/usr/bin/python3 - names.txt <<'END'
import sys, unicodedata
def width(s):
    n = 0
    for c in s:
        if unicodedata.combining(c):
            continue
        n += 2 if unicodedata.east_asian_width(c) in 'WF' else 1
    return n
rows = [l.rstrip('\n') for l in open(sys.argv[1], encoding='utf-8')][2:]
starts = set()
for row in rows:
    # The detail starts after the member's closing ">" and one space.
    member_end = row.index('>') + 1
    rest = row[member_end:]
    starts.add(width(row[:member_end]) + len(rest) - len(rest.lstrip(' ')))
print('ok' if len(starts) == 1 else 'columns: %s' % sorted(starts), len(rows))
END
)"

test_done
