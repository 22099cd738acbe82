#!/bin/sh
# t-mail-guide: tenure-mail(7), the member's page, tells the truth, and
# every mail points to it (issue 44 item 3).  Each example command block
# of man/tenure-mail.7 (the .nf block after a roff comment
# `.\" example: SIGNER`) is signed by that signer's test key, delivered
# to the Maildir tenure reads and handled by `tenure run --once`, in the
# page's order: each is applied, waits
# for its second half, or is refused by a rule, as the page says; none is
# a grammar error.  The transcript and the announcements end with
# "man 7 tenure-mail", or with [publish] mail-guide-url when it is set,
# which the status page also links.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

PAGE=$top_srcdir/man/tenure-mail.7
committee_init
cd "$W" || exit 1

ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
LEADER=$(gpg_new_key "Lee Leader" leader@example.org)
NINA=$(gpg_new_key "Nina Newcomer" nina@example.org)
BOBNEW=$(gpg_new_key "Bob Member" bob.new@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org leader@example.org nina@example.org bob.new@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB" \
	"Carol Chair <carol@example.org> $CAROL"
conf() {
	committee_conf "committee.name=Debian Technical Committee" \
		"roles.chair=$CAROL" "roles.leader=$LEADER" "$@"
}
conf

# The page's examples, one file each (examples/N.SIGNER), as a member
# would type them: roff's escapes undone.
mkdir examples
awk '
	/^\.\\" example: / { signers = signers " " $3; next }
	/^\.nf/ && signers != "" { grab = 1; text = ""; next }
	/^\.fi/ && grab {
		n = split(signers, who, " ")
		for (i = 1; i <= n; i++) {
			count++
			file = sprintf("examples/%02d.%s", count, who[i])
			printf "%s", text > file
			close(file)
		}
		grab = 0; signers = ""; next
	}
	grab { gsub(/\\-/, "-"); text = text $0 "\n" }
' "$PAGE"

test_begin "the page has an example of each command a member sends"
test_expect_equal "appoint defer handover new-key recommend resign" \
	"$(sed -n 's/^Tenure: //p' examples/* | sort -u | tr '\n' ' ' | sed 's/ $//')"

# The page's keys and dates stand for real ones: each example
# fingerprint becomes a test key's, each Effective or Until date a day
# ahead of today (the page's dates would pass), the rest as written.
in_days() {
	date -u -d "$1 days" +%Y-%m-%d
}
localize() {
	sed -e "s/0123456789ABCDEF0123456789ABCDEF01234567/$NINA/" \
		-e "s/89ABCDEF0123456789ABCDEF0123456789ABCDEF/$BOB/" \
		-e "s/FEDCBA9876543210FEDCBA9876543210FEDCBA98/$BOBNEW/" \
		-e "s/^Effective: .*/Effective: $(in_days 20)/" \
		-e "s/^Until: .*/Until: $(in_days 60)/" "$1"
}
key_of() {
	case $1 in
	alice) echo "$ALICE" ;;
	bob) echo "$BOB" ;;
	bob-new) echo "$BOBNEW" ;;
	carol) echo "$CAROL" ;;
	leader) echo "$LEADER" ;;
	esac
}
# outcome: what the last import did with the mail: applied, pending, a
# grammar error (the command block does not parse), or the refusal.
outcome() {
	if grep -q '^applied ' "$W/log"; then
		echo applied
	elif grep -q '^pending ' "$W/log"; then
		echo pending
	elif grep -E -q '^refused .*reason=.*(line [0-9]+: |needs a .*: field|no command at the top)' "$W/log"; then
		echo "grammar error: $(grep '^refused ' "$W/log")"
	elif grep -q '^refused ' "$W/log"; then
		sed -n 's/^refused .*reason="\{0,1\}\([^;:"]*\).*/refused: \1/p' "$W/log" | head -n 1
	else
		echo "nothing: $(cat "$W/log")"
	fi
}

: >outcomes
for example in examples/*; do
	signer=${example##*.}
	id=example-${example#examples/}
	localize "$example" >"$example.sent"
	# The last example's announcement points to the configured guide.
	[ "$example" = "$(ls examples/* | grep -v '\.sent$' | tail -n 1)" ] &&
		conf publish.mail-guide-url=https://ctte.example.org/tenure-mail.html
	mail=$(signed_mail "$(key_of "$signer")" "$signer@example.org" "$id" \
		"$(cat "$example.sent")")
	deliver inbox "$mail"
	timeout 120 "$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
	echo "$(sed -n 's/^Tenure: //p' "$example") $signer: $(outcome)" >>outcomes
done

test_begin "every example is one tenure takes, signed by whom the page says"
cat >expected <<END
resign alice: applied
recommend carol: pending
appoint leader: applied
defer carol: refused: no expiry can be deferred under the debian rule
handover carol: applied
new-key bob: pending
new-key bob-new: applied
END
test_expect_equal_file expected outcomes

test_begin "the ledger holds what they did: the resignation, the appointment, the handover, the key"
test_expect_equal "resign appoint role key" \
	"$(sed -n 's/^Event: //p' ledger | tail -n 4 | tr '\n' ' ' | sed 's/ $//')"

# sent PATTERN: the mails tenure sent (to the Maildir sink) whose text
# matches PATTERN.
sent() {
	grep -l -- "$1" sent/new/* sent/cur/* 2>/dev/null
}
last_body_line() {
	tr -d '\r' <"$1" | awk 'NF { line = $0 } END { print line }'
}

test_begin "the transcript of the refusal ends by pointing to the page"
reply=$(sent 'X-Tenure: reply' | head -n 1)
test_expect_equal "How members send commands: man 7 tenure-mail" \
	"$([ -n "$reply" ] && last_body_line "$reply")"

test_begin "so does the announcement of the resignation"
resign=$(sent 'X-Tenure: announce-resign' | head -n 1)
test_expect_equal "How members send commands: man 7 tenure-mail" \
	"$([ -n "$resign" ] && last_body_line "$resign")"

test_begin "with [publish] mail-guide-url set, the announcement points there"
key=$(sent 'X-Tenure: announce-key' | head -n 1)
test_expect_equal "How members send commands: https://ctte.example.org/tenure-mail.html" \
	"$([ -n "$key" ] && last_body_line "$key")"

test_begin "... and so does the status page, with a link, and the JSON"
"$TENURE" --config "$CONF" status --format=html >page.html 2>err
"$TENURE" --config "$CONF" status --format=json >status.json 2>>err
test_expect_equal "1 https://ctte.example.org/tenure-mail.html" \
	"$(grep -c '<a href="https://ctte.example.org/tenure-mail.html">' page.html) $(/usr/bin/python3 -c 'import json; print(json.load(open("status.json"))["mail_guide"])' 2>&1)" \
	"$(cat err)"

test_begin "every shipped announcement, reminder, notice and transcript ends with {{mail_guide}}"
missing=
for template in "$top_srcdir"/templates/*.txt; do
	case ${template##*/} in set-aside.txt) continue ;; esac
	[ "$(tail -n 1 "$template")" = "How members send commands: {{mail_guide}}" ] ||
		missing="$missing ${template##*/}"
done
test_expect_equal "" "$missing"

test_begin "a mail-guide-url that is not an http(s) URL is refused, naming the key"
conf 'publish.mail-guide-url=ftp://ctte.example.org/guide'
"$TENURE" --config "$CONF" check-config >cc.out 2>&1
test_expect_equal "1 1" "$([ $? -ne 0 ] && echo 1) $(grep -c 'mail-guide-url.*not an http:// or https:// URL' cc.out)" \
	"$(cat cc.out)"

test_begin "the page is short: at most 200 lines as a reader sees it"
if ! command -v mandoc >/dev/null; then
	test_skip "mandoc is not installed"
else
	lines=$(mandoc -T ascii "$PAGE" | wc -l)
	if [ "$lines" -le 200 ]; then test_pass; else test_fail "$lines lines"; fi
fi

test_done
