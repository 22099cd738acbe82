#!/bin/sh
# t-plan: tenure plan and tenure simulate from the command line.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"

CTTE=$top_srcdir/tests/data/ctte-2014.ledger

# Only the named members' expiries: the placeholders' names are ours.
expiries() {
	awk -F '\t' '$2 == "expire" && $3 !~ /^Newcomer/ { print $1 " " $3 }'
}

test_begin "annual-expiry, six years: mail 004's schedule year by year"
cat >"$TEST_DIR/six.expected" <<'END'
2014-08-16 Ian Jackson <iwj@debian.org>
2014-08-16 Bdale Garbee <bdale@debian.org>
2015-08-16 Andreas Barth <aba@debian.org>
2015-08-16 Steve Langasek <vorlon@debian.org>
2016-08-16 Russ Allbery <rra@debian.org>
2016-08-16 Don Armstrong <don@debian.org>
2017-08-16 Colin Watson <cjwatson@debian.org>
2020-08-16 Keith Packard <keithp@debian.org>
END
"$TENURE" plan --ledger "$CTTE" --rule annual-expiry --param max-service=6y \
	--from 2014-06-01 --until 2020-12-31 --fill-after 14 --format=tsv \
	>"$TEST_DIR/six.tsv" 2>"$TEST_DIR/six.err"
expiries <"$TEST_DIR/six.tsv" >"$TEST_DIR/six.got"
test_expect_equal_file "$TEST_DIR/six.expected" "$TEST_DIR/six.got"

test_begin "annual-expiry, six years: a newcomer two weeks after each vacancy (Alice to Henry)"
test_expect_equal "2014-08-30 2
2015-08-30 2
2016-08-30 2
2017-08-30 1
2020-08-30 1" "$(awk -F '\t' '$2 == "appoint" { print $1 }' "$TEST_DIR/six.tsv" | uniq -c | awk '{ print $2 " " $1 }')"

test_begin "annual-expiry, 4.5 years: mail 004's second schedule, to 2018"
cat >"$TEST_DIR/four.expected" <<'END'
2014-08-16 Ian Jackson <iwj@debian.org>
2014-08-16 Bdale Garbee <bdale@debian.org>
2015-08-16 Andreas Barth <aba@debian.org>
2015-08-16 Steve Langasek <vorlon@debian.org>
2016-08-16 Russ Allbery <rra@debian.org>
2016-08-16 Don Armstrong <don@debian.org>
2017-08-16 Colin Watson <cjwatson@debian.org>
2018-08-16 Keith Packard <keithp@debian.org>
END
"$TENURE" plan --ledger "$CTTE" --rule annual-expiry --param max-service=4.5 \
	--from 2014-06-01 --until 2018-12-31 --fill-after 14 --format=tsv |
	expiries >"$TEST_DIR/four.got"
test_expect_equal_file "$TEST_DIR/four.expected" "$TEST_DIR/four.got"

test_begin "the TSV has a header row, then four tab-separated fields and known events, sorted by date"
header=$(head -n 1 "$TEST_DIR/six.tsv")
bad=$(tail -n +2 "$TEST_DIR/six.tsv" |
	awk -F '\t' 'NF != 4 || $2 !~ /^(appoint|resign|remove|expire|defer|eligible)$/')
sorted=$(tail -n +2 "$TEST_DIR/six.tsv" | cut -f1 | sort -c 2>&1)
test_expect_equal "$(printf 'date\tevent\tmember\tdetail')" "$header$bad$sorted"

test_begin "senior-rolling pushes Keith out after three years and eight months"
"$TENURE" plan --ledger "$CTTE" --rule senior-rolling --from 2014-07-01 \
	--until 2017-12-31 --fill-after 14 --format=tsv | expiries | tail -n 2 >"$TEST_DIR/sr.got"
test_expect_equal "2017-07-01 Colin Watson <cjwatson@debian.org>
2017-07-01 Keith Packard <keithp@debian.org>" "$(cat "$TEST_DIR/sr.got")"

# Every invalid parameter is a usage error naming it.
for bad in "--rule annual-expiry --param max-service=banana:max-service" \
	"--rule fixed-term --param term=-4y:term" \
	"--rule rotation --param cooldown=:cooldown" \
	"--rule debian --param term=4y:term" \
	"--rule lifetime:lifetime" \
	"--rule annual-expiry --param day=13-01:day"; do
	args=${bad%:*}
	name=${bad##*:}
	test_begin "plan $args is refused, naming $name"
	# shellcheck disable=SC2086
	"$TENURE" plan --ledger "$CTTE" $args --from 2014-06-01 >"$TEST_DIR/out" 2>"$TEST_DIR/err"
	status=$?
	if [ $status -eq 2 ] && grep -q "$name" "$TEST_DIR/err" && [ ! -s "$TEST_DIR/out" ]; then
		test_pass
	else
		test_fail "expected exit 2 and an error naming $name" \
			"got exit $status: $(cat "$TEST_DIR/err")"
	fi
done

test_begin "a recorded expiry the rule does not give is reported"
cat "$CTTE" - >"$TEST_DIR/audit.ledger" <<'END'

Event: rule
Date: 2014-06-01
Rule: annual-expiry

Event: expire
Date: 2014-09-01
Member: Ian Jackson <iwj@debian.org>
END
"$TENURE" plan --ledger "$TEST_DIR/audit.ledger" --from 2014-06-01 \
	--until 2014-12-31 --format=tsv >"$TEST_DIR/audit.tsv" 2>"$TEST_DIR/audit.err"
test_expect_equal "tenure plan: 2014-09-01 Ian Jackson <iwj@debian.org>: recorded expire 2014-09-01; the rule gives 2014-08-16" \
	"$(cat "$TEST_DIR/audit.err")"

test_begin "the iCalendar file has an event per expiry and re-eligibility, CRLF-terminated"
"$TENURE" --now 2026-01-01 plan --ledger "$CTTE" --rule debian --from 2015-01-01 \
	--until 2016-12-31 --format=ics >"$TEST_DIR/plan.ics"
events=$(grep -c '^BEGIN:VEVENT' "$TEST_DIR/plan.ics")
expire=$(awk -F '\t' '$2 == "expire" || $2 == "eligible"' "$TEST_DIR/six.tsv" >/dev/null;
	"$TENURE" plan --ledger "$CTTE" --rule debian --from 2015-01-01 --until 2016-12-31 --format=tsv |
	awk -F '\t' '$2 == "expire" || $2 == "eligible"' | wc -l)
crlf=$(grep -vc "$(printf '\r')\$" "$TEST_DIR/plan.ics")
first=$(head -n 1 "$TEST_DIR/plan.ics" | tr -d '\r')
test_expect_equal "BEGIN:VCALENDAR 4 4 0" "$first $events $expire $crlf"

test_begin "simulate: the same seed gives the same table, another seed another"
sim() {
	"$TENURE" simulate --years 20 --runs 200 --seed "$1" --format=tsv | cut -f1-8
}
sim 7 >"$TEST_DIR/a"
sim 7 >"$TEST_DIR/b"
sim 8 >"$TEST_DIR/c"
if cmp -s "$TEST_DIR/a" "$TEST_DIR/b" && ! cmp -s "$TEST_DIR/a" "$TEST_DIR/c" &&
	[ "$(wc -l <"$TEST_DIR/a")" -eq 7 ]; then
	test_pass
else
	test_fail "$(diff "$TEST_DIR/a" "$TEST_DIR/b")" "$(cat "$TEST_DIR/a")"
fi

test_begin "simulate: without resignations, none never forces anyone out and debian at most two a year"
"$TENURE" simulate --rule none --rule debian --years 30 --runs 20 --resign-rate 0 \
	--format=tsv >"$TEST_DIR/sim.tsv"
test_expect_equal "none 0 0
debian 1 2" "$(awk -F '\t' 'NR > 1 { print $1, ($4 > 1 && $4 <= 2) ? 1 : $4 + 0, $5 }' "$TEST_DIR/sim.tsv")"

test_begin "simulate: a --param before any --rule is refused"
test_expect_failure "simulate --param term=4y" \
	'"$TENURE" simulate --param term=4y --runs 1'

# ---- Issue 10 ----

cat >"$TEST_DIR/named.conf" <<'END'
[committee]
name = Example Committee
END

test_begin "iCalendar: lines fold at 75 octets between UTF-8 characters"
# Names of every length before a run of 4-byte characters put a fold
# on every byte of one of them.
{
	for pad in a aa aaa aaaa aaaaa aaaaaa aaaaaaa aaaaaaaa; do
		printf 'Event: appoint\nDate: 2010-01-01\nMember: %s \360\235\224\204\360\235\224\204\360\235\224\204\360\235\224\204\360\235\224\204\360\235\224\204\360\235\224\204\360\235\224\204\360\235\224\204\360\235\224\204\360\235\224\204\360\235\224\204\360\235\224\204\360\235\224\204\360\235\224\204\360\235\224\204\360\235\224\204 <%s@example.org>\n\n' "$pad" "$pad"
	done
} >"$TEST_DIR/wide.ledger"
"$TENURE" --now 2026-01-01 plan --config "$TEST_DIR/named.conf" --ledger "$TEST_DIR/wide.ledger" \
	--rule fixed-term --from 2010-01-01 --until 2016-12-31 --format=ics >"$TEST_DIR/wide.ics"
test_expect_equal "ok" "$(python3 - "$TEST_DIR/wide.ics" <<'END'
import sys
data = open(sys.argv[1], 'rb').read()
bad = []
lines = data.split(b'\r\n')
for n, line in enumerate(lines[:-1], 1):
    if len(line) > 75:
        bad.append('line %d: %d octets' % (n, len(line)))
    try:
        line.decode('utf-8')
    except UnicodeDecodeError:
        bad.append('line %d splits a character' % n)
unfolded = data.replace(b'\r\n ', b'')
if unfolded.count('\U0001d504'.encode()) != 8 * 17:
    bad.append('characters lost: %d' % unfolded.count('\U0001d504'.encode()))
print('\n'.join(bad) or 'ok')
END
)"

test_begin "iCalendar: UIDs differ between events, rules and committees; the calendar has the committee's name"
uids() {
	# shellcheck disable=SC2068
	"$TENURE" --now 2026-01-01 plan --ledger "$CTTE" $@ --from 2014-06-01 \
		--until 2020-12-31 --format=ics | tr -d '\r' | sed -n 's/^UID://p'
}
uids --rule annual-expiry --param max-service=6y >"$TEST_DIR/uid6"
uids --rule annual-expiry --param max-service=5y >"$TEST_DIR/uid5"
uids --config "$TEST_DIR/named.conf" --rule annual-expiry --param max-service=6y >"$TEST_DIR/uidn"
dups=$(sort "$TEST_DIR/uid6" | uniq -d | wc -l)
shared=$(sort "$TEST_DIR/uid6" "$TEST_DIR/uid5" "$TEST_DIR/uidn" | uniq -d | wc -l)
name=$("$TENURE" --now 2026-01-01 plan --config "$TEST_DIR/named.conf" --ledger "$CTTE" \
	--rule debian --from 2015-01-01 --until 2016-12-31 --format=ics | tr -d '\r' | grep '^X-WR-CALNAME:')
test_expect_equal "0 0 $(wc -l <"$TEST_DIR/uid6" | awk '$1 > 5 { print "several" }')
X-WR-CALNAME:Example Committee terms (debian)" "$dups $shared several
$name"

test_begin "iCalendar: an expiry past and not recorded is marked overdue"
cat "$CTTE" - >"$TEST_DIR/debian.ledger" <<'END'

Event: rule
Date: 2015-01-01
Rule: debian
END
"$TENURE" --now 2016-06-01 plan --ledger "$TEST_DIR/debian.ledger" --until 2017-12-31 \
	--format=ics | tr -d '\r' | perl -0pe 's/\n //g' | grep '^SUMMARY:' >"$TEST_DIR/overdue.txt"
test_expect_equal "SUMMARY:Ian Jackson: term expired\, overdue (not recorded)
SUMMARY:Bdale Garbee: term expired\, overdue (not recorded)" \
	"$(grep overdue "$TEST_DIR/overdue.txt")"

test_begin "a bad rule event names the ledger file, line and field"
cat "$CTTE" - >"$TEST_DIR/badrule.ledger" <<'END'

Event: rule
Date: 2015-01-01
Rule: fixed-term
Parameters: term=4y13m
END
line=$(grep -n '^Event: rule' "$TEST_DIR/badrule.ledger" | cut -d: -f1)
"$TENURE" plan --ledger "$TEST_DIR/badrule.ledger" --from 2015-01-01 >/dev/null 2>"$TEST_DIR/err"
status=$?
test_expect_equal "1 tenure plan: $TEST_DIR/badrule.ledger:$line: Parameters: rule fixed-term: parameter term:" \
	"$status $(cut -d'"' -f1 "$TEST_DIR/err" | sed 's/ $//')"

for bad in "--rule fixed-term --param term=4y13m:term" \
	"--rule fixed-term --param term=4y --param term=5y:given twice"; do
	args=${bad%:*}
	name=${bad##*:}
	test_begin "plan $args is refused, naming $name"
	# shellcheck disable=SC2086
	"$TENURE" plan --ledger "$CTTE" $args --from 2014-06-01 >"$TEST_DIR/out" 2>"$TEST_DIR/err"
	status=$?
	if [ $status -eq 2 ] && grep -q "$name" "$TEST_DIR/err" && [ ! -s "$TEST_DIR/out" ]; then
		test_pass
	else
		test_fail "expected exit 2 and an error naming $name" \
			"got exit $status: $(cat "$TEST_DIR/err")"
	fi
done

test_begin "a plan that would seat nine members exits 1 naming the appointment"
cat "$CTTE" - >"$TEST_DIR/nine.ledger" <<'END'

Event: appoint
Date: 2014-03-01
Member: Ninth Member <ninth@example.org>
END
line=$(grep -n 'Ninth' "$TEST_DIR/nine.ledger" | cut -d: -f1)
"$TENURE" plan --ledger "$TEST_DIR/nine.ledger" --rule none --from 2014-01-01 \
	--until 2014-12-31 >"$TEST_DIR/out" 2>"$TEST_DIR/err"
status=$?
test_expect_equal "1 tenure plan: $TEST_DIR/nine.ledger:$((line - 2)): appoint:" \
	"$status $(cut -d' ' -f1-4 "$TEST_DIR/err")"

test_begin "simulate: a --param key given twice for one rule is refused"
"$TENURE" simulate --rule fixed-term --param term=4y --param term=5y --runs 1 \
	>"$TEST_DIR/out" 2>"$TEST_DIR/err"
status=$?
if [ $status -eq 2 ] && grep -q "given twice" "$TEST_DIR/err" && [ ! -s "$TEST_DIR/out" ]; then
	test_pass
else
	test_fail "exit 2 and 'given twice'" "exit $status: $(cat "$TEST_DIR/err")"
fi

test_begin "simulate: under debian a full committee forces 2,2,2,2,0 a year (1.6), shares of 0, 1 and 2"
"$TENURE" simulate --rule debian --years 20 --runs 5 --resign-rate 0 --format=tsv \
	>"$TEST_DIR/shares.tsv"
test_expect_equal "forced_years_0 forced_years_1 forced_years_2
1.60 0.200 0.000 0.800" \
	"$(head -n 1 "$TEST_DIR/shares.tsv" | tr '\t' '\n' | grep '^forced_years' | head -n 3 | paste -sd ' ')
$(awk -F '\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
	NR == 2 { printf "%.2f %.3f %.3f %.3f\n", $c["expiries_per_year"], $c["forced_years_0"], $c["forced_years_1"], $c["forced_years_2"] }' "$TEST_DIR/shares.tsv")"

test_done
