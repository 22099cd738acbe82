#!/bin/sh
# t-maildir-names.sh: tenure never replaces a file in the list's Maildir
# when it moves a message there.  A handled message goes from new/ to
# cur/ with ":2,"; a message set aside goes to .tenure-failed/new/.  When
# a file of that name is there already (another reader's, or one a
# delivery agent gave the same name), both stay: the moved one takes
# "NAME.1".

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"

W=$TEST_DIR
mkdir -p "$W/inbox/new" "$W/inbox/cur" "$W/inbox/tmp" \
	"$W/inbox/.tenure-failed/new" "$W/inbox/.tenure-failed/cur" \
	"$W/inbox/.tenure-failed/tmp"
: >"$W/keyring.gpg"
cat >"$W/ledger" <<'LEDGER'
Event: rule
Date: 2015-01-01
Rule: debian
Source: import

Event: appoint
Date: 2025-06-01
Member: Carol Junior <carol@example.org>
Source: import
LEDGER
cat >"$W/tenure.conf" <<CONF
[committee]
name = Technical Committee
list = ctte@lists.example.org
ledger = $W/ledger
state-dir = $W/state
templates = $top_srcdir/templates

[rule]
name = debian

[keys]
keyring = $W/keyring.gpg
gnupg-home = $W/g

[source]
url = maildir:$W/inbox

[sink]
url = maildir:$W/sent
from = ctte-bot@example.org
CONF

now=$(date +%s)
name=$now.1.test
printf 'From: someone@example.org\nTo: ctte@lists.example.org\nMessage-ID: <earlier@example.org>\nSubject: an earlier message\n\nRead before.\n' \
	>"$W/inbox/cur/$name:2,S"
printf 'From: someone@example.org\nTo: ctte@lists.example.org\nMessage-ID: <hello@example.org>\nSubject: hello\n\nNo command here.\n' \
	>"$W/inbox/new/$name:2,S"
printf 'set aside before\n' >"$W/inbox/.tenure-failed/new/$now.2.test"
mkfifo "$W/inbox/new/$now.2.test" || test_skip_all "no mkfifo"

"$TENURE" --config "$W/tenure.conf" run --once >"$W/out" 2>"$W/log"
status=$?

test_begin "a handled message moved to cur/ leaves the one of the same name there"
test_expect_equal "0 0 2 <earlier@example.org> <hello@example.org>" \
	"$status $(ls "$W/inbox/new" | wc -l | tr -d ' ') $(ls "$W/inbox/cur" | wc -l | tr -d ' ') $(grep -h '^Message-ID:' "$W/inbox/cur/$name:2,S" | cut -d' ' -f2) $(grep -h '^Message-ID:' "$W/inbox/cur/$name.1:2,S" | cut -d' ' -f2)"

test_begin "a message set aside leaves the one of the same name in .tenure-failed/"
failed=$W/inbox/.tenure-failed/new/$now.2.test
test_expect_equal "set aside before
yes" "$([ -f "$failed" ] && cat "$failed")
$([ -p "$failed.1" ] && echo yes)"

test_done
