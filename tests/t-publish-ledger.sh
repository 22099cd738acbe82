#!/bin/sh
# t-publish-ledger: the ledger in public form (issue 44 item 1).  With
# [publish] dir, every pass that publishes also writes ledger.txt beside
# status.json: every stanza of the ledger, the founding history (Source:
# import) included, with the member's name and no address (as the page
# and the JSON show it) and no Comment; replaced atomically (a new inode,
# no temp file left), 0644; updated by the pass that applies a command;
# linked from the page and named in status.json.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

committee_init
cd "$W" || exit 1

ALICE=$(gpg_new_key "Alice Member" alice@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org
# The founding history, typed in by hand: a rule, two appointments
# (one by a quoted name) and a Comment that names an address.
cat >ledger <<END
Event: rule
Date: $two_years_ago
Rule: debian
Source: import

Event: appoint
Date: $year_ago
Member: Alice Member <alice@example.org>
Fingerprint: $ALICE
Project-Joined: 2001-02-03
Source: import
Comment: agreed with carol@example.org

Event: appoint
Date: $year_ago
Member: "Allbery, Russ" <rra@example.org>
Source: import
END
mkdir www
committee_conf publish.dir=www

pass() {
	timeout 120 "$TENURE" --config "$CONF" run --once >pass.out 2>pass.log
}
json() {
	/usr/bin/python3 -c 'import json, sys; d = json.load(open("www/status.json")); print(eval(sys.argv[1]))' "$1"
}

pass
test_begin "the first pass publishes the ledger in public form: every stanza, names without addresses, no Comment"
cat >expected <<END
Event: rule
Date: $two_years_ago
Rule: debian
Source: import

Event: appoint
Date: $year_ago
Member: Alice Member
Fingerprint: $ALICE
Project-Joined: 2001-02-03
Source: import

Event: appoint
Date: $year_ago
Member: Allbery, Russ
Source: import
END
if [ -f www/ledger.txt ]; then
	test_expect_equal_file expected www/ledger.txt
else
	test_fail "no www/ledger.txt: $(ls www)" "$(cat pass.log)"
fi

test_begin "it is readable by all, and status.json and the page link it"
test_expect_equal "-rw-r--r-- ledger.txt 1 1" \
	"$(stat -c %A www/ledger.txt 2>&1) $(json 'd.get("published_ledger")' 2>&1) $(grep -c '<link rel="alternate" type="text/plain" href="ledger.txt"' www/index.html) $(sed -n 's/.*<footer>//p' www/index.html | grep -c 'href="ledger.txt"')"

# A signed resignation through the list: the pass that applies it
# publishes the ledger again, with the new stanza.
before_inode=$(stat -c %i www/ledger.txt 2>/dev/null)
deliver inbox "$(signed_mail "$ALICE" alice@example.org alice-resigns \
	"Tenure: resign")"
pass
test_begin "the pass that applies a command publishes the ledger with its event"
# The ledger's last stanza, with the Member's address and the Comment
# taken out, is the published ledger's last stanza.
last_public() {
	awk 'BEGIN { RS = "" } { s = $0 } END { print s }' "$1"
}
last_public ledger | sed '/^Comment:/d; s/^\(Member: .*\) <[^<>]*>$/\1/' >expected-last
last_public www/ledger.txt >got-last
if grep -q '^Event: resign' expected-last &&
	grep -q '^Signature: [0-9A-F]* [0-9TZ:-]* sha256:[0-9a-f]*$' got-last &&
	grep -q '^Source: <alice-resigns@example.org>$' got-last; then
	test_expect_equal_file expected-last got-last
else
	test_fail "expected Alice's signed resignation as the last stanza" \
		"ledger: $(cat expected-last)" "published: $(cat got-last)" "$(cat pass.log)"
fi

test_begin "... and holds the whole ledger, one stanza per event"
test_expect_equal "$(grep -c '^Event:' ledger) $(grep -c '^Event:' ledger)" \
	"$(grep -c '^Event:' www/ledger.txt) $(awk 'BEGIN { RS = "" } END { print NR }' www/ledger.txt)"

test_begin "it was replaced, not rewritten in place, and no temp file is left beside it"
test_expect_equal "replaced calendar.ics index.html ledger.txt status.json" \
	"$([ -n "$before_inode" ] && [ "$before_inode" != "$(stat -c %i www/ledger.txt)" ] && echo replaced) $(ls -A www | tr '\n' ' ' | sed 's/ $//')"

test_begin "no address in the published ledger but the list's Message-IDs"
test_expect_equal "" "$([ -s www/ledger.txt ] || echo "no www/ledger.txt"; grep -v '^Source: <' www/ledger.txt | grep '@')"

test_done
