#!/bin/sh
# t-plan-corners: the corners of `tenure plan` that issue 18 decided.
# A history that already seats more than max-members on --from is
# refused the same way under every rule, naming the appointment that
# seated the last of them; one that fits is planned under every rule.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
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

# M1 resigns on 2010-03-31: eight sit on 2010-06-01.
printf 'Event: resign\nDate: 2010-03-31\nMember: M1 <m1@example.org>\n' >>nine.ledger
for rule in $rules; do
	test_begin "--rule $rule: the same history with one resignation before --from is planned"
	"$TENURE" plan --ledger nine.ledger --rule "$rule" --from 2010-06-01 \
		--until 2012-12-31 --format=tsv >out 2>err
	test_expect_equal "0 " "$? $(cat err)"
done

test_begin "status warns of what plan refuses"
head -n 36 nine.ledger >nine-only.ledger
"$TENURE" status --ledger nine-only.ledger --date 2010-06-01 >status.txt 2>&1
test_expect_equal "1" "$(grep -c '^warning: .*is one of 9 members sitting on 2010-06-01' status.txt)"

test_done
