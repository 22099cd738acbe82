#!/bin/sh
# t-plan-corners: the corners of `tenure plan` that issue 18 decided.
# A history that already seats more than max-members on --from is
# refused the same way under every rule, naming the appointment that
# seated the last of them, and so is a simulation from that day; one
# that fits is planned under every rule.
# A --fill-after placeholder that gives its seat to a recorded
# appointment is shown as `replaced`, not as a resignation: the rules
# that count "terms ended" do not count it, and the plan says so.
# A seat is vacant from the day after its member's last day, and an
# appointment fills only a seat vacant on its day (issue 27): Mia's last
# day is Noor's appointment day, so Mia's seat gets a placeholder.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
cd "$TEST_DIR" || exit 1

# Nine members appointed in 2009, none of them gone by 2010-06-01.
for i in 1 2 3 4 5 6 7 8 9; do
	printf 'Event: appoint\nDate: 2009-0%d-01\nMember: M%d <m%d@example.org>\n\n' \
		"$i" "$i" "$i"
done >nine.ledger
line=$(grep -n '^Member: M9 ' nine.ledger | cut -d: -f1)
line=$((line - 2))

rules=$(sed -n 's/^[[:space:]]*\.name = "\([a-z-]*\)",$/\1/p' "$top_srcdir"/src/rules/*.c | sort | tr '\n' ' ')
test_begin "every rule is found (src/rules)"
case $rules in
*annual-expiry*debian*fixed-term*none*senior-rolling*) test_pass ;;
*) test_fail "rules: $rules" ;;
esac

for rule in $rules; do
	test_begin "--rule $rule: nine seated before --from is refused, naming the ninth appointment"
	"$TENURE" plan --ledger nine.ledger --rule "$rule" --from 2010-06-01 \
		--until 2012-12-31 --format=tsv >out 2>err
	test_expect_equal "1 tenure plan: nine.ledger:$line: appoint: M9 <m9@example.org>, appointed on 2009-09-01, is one of 9 members sitting on 2010-06-01 (--from), and the committee has at most 8" \
		"$? $(cat err)"
done

for rule in debian none; do
	test_begin "simulate --rule $rule: nine seated on --from is refused the same way"
	"$TENURE" simulate --ledger nine.ledger --rule "$rule" --from 2010-06-01 \
		--years 5 --runs 10 --format=tsv >out 2>err
	test_expect_equal "1 tenure simulate: nine.ledger:$line: appoint: M9 <m9@example.org>, appointed on 2009-09-01, is one of 9 members sitting on 2010-06-01 (--from), and the committee has at most 8" \
		"$? $(cat err)"
done

# M1 resigns on 2010-03-31: eight sit on 2010-06-01.
printf 'Event: resign\nDate: 2010-03-31\nMember: M1 <m1@example.org>\n' >>nine.ledger
for rule in $rules; do
	test_begin "--rule $rule: the same history with one resignation before --from is planned"
	"$TENURE" plan --ledger nine.ledger --rule "$rule" --from 2010-06-01 \
		--until 2012-12-31 --format=tsv >out 2>err
	test_expect_equal "0 " "$? $(cat err)"
done
test_begin "simulate: the same history with one resignation before --from is simulated"
"$TENURE" simulate --ledger nine.ledger --rule debian --from 2010-06-01 \
	--years 5 --runs 10 --format=tsv >out 2>err
test_expect_equal "0 " "$? $(cat err)"

test_begin "status warns of what plan refuses"
head -n 36 nine.ledger >nine-only.ledger
"$TENURE" status --ledger nine-only.ledger --date 2010-06-01 >status.txt 2>&1
test_expect_equal "1" "$(grep -c '^warning: .*is one of 9 members sitting on 2010-06-01' status.txt)"

# Eight appointed in 2000; the ledger records Nina's appointment on
# 2011-01-01.  Under senior-rolling from 2010-01-01, M1 and M2 expire at
# once; placeholders fill their seats on 2010-01-31, so Nina's recorded
# appointment finds the committee full and Newcomer 2 gives its seat up
# on 2010-12-31.  That is no term ending: on 2011-01-01 no term ended in
# the 12 months before, so M3 and M4 both expire (were it counted, only
# M3 would).  Under annual-expiry M1 and M2 expire on 2010-08-16, the
# placeholders come on 2010-09-15 and Newcomer 2 gives way on
# 2010-12-31; on 2011-08-16 nobody left in the 12 months before, so M3
# and M4 both expire (were it counted, M4 would continue a year).
for i in 1 2 3 4 5 6 7 8; do
	printf 'Event: appoint\nDate: 2000-0%d-01\nMember: M%d <m%d@example.org>\n\n' \
		"$i" "$i" "$i"
done >fill.ledger
printf 'Event: appoint\nDate: 2011-01-01\nMember: Nina Neu <nina@example.org>\n' >>fill.ledger
plan_fill() {
	"$TENURE" plan --ledger fill.ledger --rule "$1" --from 2010-01-01 \
		--until 2012-12-31 --fill-after 30 --format="$2"
}
# newcomer2 FILE: the TSV rows of Newcomer 2 after its appointment.
newcomer2() {
	awk -F '\t' '$2 != "appoint" && $3 ~ /^Newcomer 2 / { print $1 " " $2 }' "$1" | paste -sd ' '
}

test_begin "--fill-after: a placeholder giving its seat to a recorded appointment is 'replaced' in the text"
plan_fill senior-rolling text >fill.txt 2>fill.err
test_expect_equal "0 2010-12-31  replaced  Newcomer 2 <newcomer2@example.invalid>     placeholder newcomer; gives its seat to the recorded appointment of 2011-01-01, which is no term ending for the rule" \
	"$? $(grep 'Newcomer 2' fill.txt | sed -n 2p)"

test_begin "--fill-after under senior-rolling: no resignation, and the seat given up is not counted as a term ended"
test_expect_equal "0 2011-01-01 expire M3 2011-01-01 expire M4" \
	"$(grep -c ' resign ' fill.txt) $(awk '$1 ~ /^2011/ && $2 == "expire" { printf "%s%s %s %s", sep, $1, $2, $3; sep = " " }' fill.txt)"

test_begin "--fill-after: TSV and JSON name the event 'replaced' too, and no re-eligibility follows it"
plan_fill senior-rolling tsv >fill.tsv 2>fill.err
plan_fill senior-rolling json >fill.json 2>>fill.err
test_expect_equal "2010-12-31 replaced|2010-12-31 replaced|" \
	"$(newcomer2 fill.tsv)|$(/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s %s" % (e["date"], e["kind"]) for e in d["events"] if e["kind"] != "appoint" and e["person"]["name"] == "Newcomer 2"))' fill.json)|$(cat fill.err)"

test_begin "--fill-after under annual-expiry: 'replaced', and nobody left in the 12 months before 2011-08-16"
plan_fill annual-expiry tsv >annual.tsv 2>annual.err
test_expect_equal "0 2010-12-31 replaced|2011-08-16 M3 0 left in the 12 months before|2011-08-16 M4 0 left in the 12 months before|" \
	"$? $(newcomer2 annual.tsv)|$(awk -F '\t' '$2 == "expire" && $1 ~ /^2011/ && match($4, /[0-9]+ left in the 12 months before/) { print $1 " " substr($3, 1, 2) " " substr($4, RSTART, RLENGTH) }' annual.tsv | paste -sd '|')|$(cat annual.err)"

# tenure(1)'s example: Noor sat beside Mia on Mia's last day, so Noor did
# not take Mia's seat; with Mia leaving the day before, Noor did.
eve_ledger() {
	printf 'Event: appoint\nDate: 2001-01-01\nMember: Mia <mia@example.org>\n\n'
	printf 'Event: appoint\nDate: 2002-01-01\nMember: Kai <kai@example.org>\n\n'
	printf 'Event: resign\nDate: %s\nMember: Mia <mia@example.org>\n\n' "$1"
	printf 'Event: appoint\nDate: 2005-06-30\nMember: Noor <noor@example.org>\n'
}
eve_ledger 2005-06-30 >eve.ledger
eve_ledger 2005-06-29 >eve-before.ledger
plan_eve() {
	"$TENURE" plan --ledger "$1" --rule none --from 2005-01-01 \
		--until 2005-12-31 --fill-after 14 --format=tsv 2>&1 |
		awk -F '\t' '$3 ~ /^Newcomer/ { print $1 " " $2 " " $3 }'
}
test_begin "--fill-after: a last day on the day of the ledger's last appointment leaves a seat the placeholder fills"
test_expect_equal "2005-07-14 appoint Newcomer 1 <newcomer1@example.invalid>|" \
	"$(plan_eve eve.ledger)|$(plan_eve eve-before.ledger)"

test_done
