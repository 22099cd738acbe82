#!/bin/bash
# t-cli: the command line, the ledger and the configuration as a user
# meets them: help, versions, exact one-line errors, an untouched ledger.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"

cd "$TEST_DIR"
ex="$top_srcdir/examples"

test_expect_success "tenure --version prints the version" \
	'"$TENURE" --version | grep -qx "tenure [0-9.]*"'
test_expect_success "tenure --help lists every command" \
	'out=$("$TENURE" --help); for c in run status plan simulate import audit check-config; do echo "$out" | grep -q "^  $c "; done'
for c in run status plan simulate import audit check-config; do
	test_expect_success "tenure $c --help explains the command" \
		'"$TENURE" '$c' --help | grep -q "^Usage:"'
done
test_expect_failure "an unknown command is a usage error" '"$TENURE" elect'

test_begin "an unknown command exits 2 and names the command"
"$TENURE" elect 2>err; rc=$?
test_expect_equal "2 tenure: unknown command 'elect'" "$rc $(head -n1 err)"

cp "$ex/debian-ctte-2014.ledger" ledger
test_begin "status lists the eight members of mail 001 by seniority"
"$TENURE" status --ledger ledger --date 2014-05-23 --format=tsv >out 2>err
cut -f1-3 out | sed -n '2,9p' >got
cat >expected <<'E'
member	1	Ian Jackson <ijackson@chiark.greenend.org.uk>
member	2	Bdale Garbee <bdale@gag.com>
member	3	Steve Langasek <vorlon@debian.org>
member	4	Andreas Barth <aba@debian.org>
member	5	Russ Allbery <rra@debian.org>
member	6	Don Armstrong <don@debian.org>
member	7	Colin Watson <cjwatson@debian.org>
member	8	Keith Packard <keithp@keithp.com>
E
test_expect_equal_file expected got

test_begin "status before anyone was appointed lists no member"
"$TENURE" status --ledger ledger --date 1998-01-01 --format=tsv >out
test_expect_equal "0" "$(grep -c '^member	' out)"

test_begin "status --format=json is valid JSON with eight members"
"$TENURE" status --ledger ledger --date 2014-05-23 --format=json >out.json
test_expect_equal 8 "$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["members"]))' out.json 2>&1)"

test_begin "the --now option sets the date status reports on"
"$TENURE" --now 2014-05-23 status --ledger ledger >out
test_expect_equal "Technical Committee on 2014-05-23: 8 of 8 seats filled" "$(head -n1 out | cut -d';' -f1)"

# Bad input: each gives one clear line and leaves the ledger alone.
expect_error() { # description, expected stderr line, ledger text
	printf '%s' "$3" >bad.ledger
	cp bad.ledger bad.before
	test_begin "$1"
	"$TENURE" status --ledger bad.ledger >/dev/null 2>err; rc=$?
	if [ $rc -ne 1 ]; then test_fail "exit status $rc, expected 1"; return; fi
	if ! cmp -s bad.ledger bad.before; then test_fail "the ledger changed"; return; fi
	test_expect_equal "$2" "$(cat err)"
}
expect_error "a malformed ledger line is refused with file and line" \
	"tenure status: bad.ledger:2: expected \"Field: value\", got \"Date 2014-01-01\"" \
	$'Event: appoint\nDate 2014-01-01\n'
expect_error "an unknown event is refused" \
	"tenure status: bad.ledger:1: Event: unknown event \"elect\" (expected appoint, resign, remove, expire, defer, rule, role or key)" \
	$'Event: elect\nDate: 2014-01-01\nMember: A <a@b.org>\n'
expect_error "a date that does not exist is refused" \
	"tenure status: bad.ledger:2: Date: \"2025-02-30\" is not a valid date (YYYY-MM-DD)" \
	$'Event: appoint\nDate: 2025-02-30\nMember: A <a@b.org>\n'
expect_error "a truncated ledger is refused" \
	"tenure status: bad.ledger:3: truncated: the last line has no newline" \
	$'Event: appoint\nDate: 2025-01-30\nMember: A <a@b'

test_begin "a missing ledger is refused"
"$TENURE" status --ledger missing.ledger 2>err >/dev/null; rc=$?
test_expect_equal "1 tenure status: missing.ledger: the ledger is missing; restore it, or start a new committee with \`tenure init\`" "$rc $(cat err)"

test_begin "an unreadable ledger is refused"
if [ "$(id -u)" = 0 ]; then
	# root reads any file; a directory stands in for an unreadable one.
	mkdir unreadable.ledger
	"$TENURE" status --ledger unreadable.ledger 2>err >/dev/null; rc=$?
	test_expect_equal "1 tenure status: unreadable.ledger: read: Is a directory" "$rc $(cat err)"
else
	cp ledger unreadable.ledger; chmod 000 unreadable.ledger
	"$TENURE" status --ledger unreadable.ledger 2>err >/dev/null; rc=$?
	test_expect_equal "1 tenure status: unreadable.ledger: cannot read the ledger: Permission denied" "$rc $(cat err)"
fi

test_begin "check-config names the file, section and key of an unknown key"
printf '[committee]\nname = TC\ncolour = blue\n' >bad.conf
"$TENURE" check-config --config bad.conf 2>err >/dev/null; rc=$?
test_expect_equal "1 bad.conf: [committee] colour: unknown key" "$rc $(cat err)"

test_begin "check-config reports every problem, not just the first"
printf '[committee]\nlist = nobody\n[rule]\nname = debian\n[sink]\nstarttls = maybe\n' >bad2.conf
"$TENURE" check-config --config bad2.conf 2>err >/dev/null
test_expect_equal 2 "$(wc -l <err)"

test_begin "an unknown rule in the configuration is named"
printf '[rule]\nname = forever\n' >bad3.conf
"$TENURE" check-config --config bad3.conf 2>err >/dev/null; rc=$?
test_expect_equal "1 yes" "$rc $(grep -q 'forever' err && echo yes)"

test_begin "a bad --now is a usage error"
"$TENURE" status --ledger ledger --now yesterday 2>err >/dev/null; rc=$?
test_expect_equal "2" "$rc"

test_done
