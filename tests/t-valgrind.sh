#!/bin/bash
# t-valgrind: tenure's commands run clean under valgrind: no invalid read
# or write, no use of uninitialised memory, no definite leak.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"

command -v valgrind >/dev/null || test_skip_all "valgrind is not installed"
# A sanitizer build cannot run under valgrind; it checks itself.
grep -q __asan_init "$TENURE" && test_skip_all "tenure is a sanitizer build"
cd "$TEST_DIR"
ex="$top_srcdir/examples"
cp "$ex/debian-ctte-2014.ledger" ledger

vg() {
	valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite --show-leak-kinds=definite \
		"$TENURE" "$@"
}
expect_clean() { # description, expected exit status, arguments...
	local description=$1 expected=$2
	shift 2
	test_begin "$description"
	vg "$@" >out 2>err; rc=$?
	if [ "$rc" = "$expected" ]; then
		test_pass
	else
		test_fail "exit status $rc, expected $expected" "$(grep -E '==[0-9]+==' err | head -n 30)"
	fi
}

expect_clean "status of the 2014 committee is clean under valgrind" 0 \
	status --ledger ledger --date 2016-06-01
expect_clean "status as JSON and HTML is clean under valgrind" 0 \
	status --ledger ledger --date 2016-06-01 --format=html
expect_clean "plan with placeholders is clean under valgrind" 0 \
	plan --ledger ledger --from 2014-06-01 --until 2024-01-01 --fill-after 14 --format=tsv
expect_clean "plan as iCalendar is clean under valgrind" 0 \
	plan --ledger ledger --from 2014-06-01 --until 2020-01-01 --rule annual-expiry --param max-service=4y6m --format=ics
expect_clean "simulate is clean under valgrind" 0 \
	simulate --ledger ledger --from 2014-06-01 --runs 20 --years 10 --threads 1
printf '[committee]\ncolour = blue\n[rule]\nname = annual-expiry\nmax-service = banana\n' >bad.conf
expect_clean "a bad configuration is reported cleanly under valgrind" 1 \
	check-config --config bad.conf
printf 'Event: appoint\nDate: 2025-02-30\nMember: A <a@b.org>\n' >bad.ledger
expect_clean "a bad ledger is reported cleanly under valgrind" 1 \
	status --ledger bad.ledger

# The main job: signed mail verified, commands applied, a forgery
# refused, announcements composed and written out, under valgrind.
cat >vg-tenure <<E
#!/bin/sh
exec valgrind -q --error-exitcode=99 --leak-check=full \\
	--errors-for-leak-kinds=definite --show-leak-kinds=definite \\
	"$TENURE" "\$@"
E
chmod +x vg-tenure
test_begin "the example's run --once (verify, apply, refuse, send) is clean under valgrind"
TENURE=$PWD/vg-tenure sh "$ex/demo.sh" >demo.out 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q "^   (exit status 0)" demo.out &&
	grep -q "reason=\"unknown key\"" demo.out; then
	test_pass
else
	test_fail "demo exit $rc" "$(grep -E '==[0-9]+==|exit status' demo.out | head -n 30)"
fi

test_done
