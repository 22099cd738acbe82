#!/bin/sh
# t-mbox-lock.sh: an mbox is read once its writer is done, and its place
# belongs to one file (issue 43, item 2).  Exim, Postfix's local(8) and
# dovecot-lda append to an mbox holding FILE.lock and a fcntl lock: a
# command written in two pieces was read half-written, refused, and the
# offset kept inside it, so every later read failed ("not an mbox").  A
# writer that takes no lock and stops inside a line is waited for too.
# The offset kept names its file (device, inode and a digest of the bytes
# before it): a rotated mbox (mv inbox inbox.1) or a rewritten one is read
# from its start, and the seen records keep its old mail from acting
# twice.  Keys and mail are made for the run; the writer is
# tests/lib/mbox-writer.py.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v python3 >/dev/null || test_skip_all "python3 is not installed"

committee_init

CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
DAVE=$(gpg_new_key "Dave Member" dave@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	bob@example.org dave@example.org

test_fail_all() {
	echo "Bail out! $*"
	exit 1
}

asctime() { LC_ALL=C date -u -d "$1" '+%a %b %e %H:%M:%S %Y'; }

# committee NAME: a fresh committee in $W/NAME, $CONF from then on, its
# source the mbox $INBOX ($W/NAME/inbox), holding one chat message.
committee() {
	local dir=$W/$1
	rm -rf "$dir"
	mkdir -p "$dir"
	CONF=$dir/tenure.conf
	committee_ledger --file "$dir/ledger" "Carol Chair <carol@example.org> $CAROL" \
		"Alice Member <alice@example.org> $ALICE" \
		"Bob Member <bob@example.org> $BOB" "Dave Member <dave@example.org> $DAVE"
	committee_conf "$CONF" roles.chair="$CAROL" keys.keyring="$W/keyring.gpg" \
		"source.url=mbox:$dir/inbox"
	INBOX=$dir/inbox
	chat "$1" >"$INBOX"
}

# chat ID [LINES]: a plain message from Alice, LINES lines long.
chat() {
	printf 'From alice@example.org %s\n' "$(asctime '1 hour ago')"
	printf 'From: alice@example.org\nSubject: chat\nMessage-ID: <chat-%s@example.org>\n\n' "$1"
	i=0
	while [ $i -lt "${2:-1}" ]; do
		printf 'Hello, line %d of the minutes of the last meeting.\n' $i
		i=$((i + 1))
	done
	printf '\n'
}

# command WHO ID: WHO's signed resignation as an mbox message, its
# From_ line now, a blank line after it.
command() {
	printf 'From %s@example.org %s\n' "$1" "$(asctime now)"
	cat "$(signed_mail "$(eval echo "\$$(echo "$1" | tr a-z A-Z)")" \
		"$1@example.org" "$2" "Tenure: resign" \
		"List-Id: <debian-ctte.lists.debian.org>" 2>/dev/null)"
	printf '\n'
}

run() {
	before=$(events)
	"$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}

check() {
	"$TENURE" --config "$CONF" check >"$W/check" 2>&1
	echo $? >"$W/check-status"
}

# expect CHECK DESCRIPTION: one check, CHECK a shell condition.
expect() {
	test_begin "$2"
	if eval "$1"; then
		test_pass
	else
		test_fail "status $(cat "$W/status")" "$(cat "$W/log")" \
			"check: $(cat "$W/check" 2>/dev/null)"
	fi
}

# --- 1. A writer holding FILE.lock and a fcntl lock ---------------------

committee l1
run
command bob bob-l1 >"$W/l1/command"
size=$(wc -c <"$W/l1/command")
head -c $((size / 2)) "$W/l1/command" >"$W/l1/part1"
tail -c +$((size / 2 + 1)) "$W/l1/command" >"$W/l1/part2"
python3 "$top_srcdir/tests/lib/mbox-writer.py" "$INBOX" "$W/l1/part1" \
	"$W/l1/part2" "$W/l1/go" >"$W/l1/writer" 2>&1 &
writer=$!
test_cleanup "kill $writer 2>/dev/null"
wait_for 60 "grep -q locked '$W/l1/writer'" ||
	test_fail_all "the writer never took its locks: $(cat "$W/l1/writer")"
run
check
expect "! resigned Bob && [ \"\$(cat '$W/status')\" = 0 ] && grep -q '^mbox-locked .*a writer holds its dotlock' '$W/log' && ! grep -q '^refused' '$W/log'" \
	"a writer holds the mbox's dotlock: the half-written command is not read"
expect "[ \"\$(cat '$W/check-status')\" = 1 ] && grep -q 'the mbox source .* waits for .*a writer holds' '$W/check'" \
	"... and tenure check says the source waits (WARNING)"
touch "$W/l1/go"
wait $writer
run
check
expect "resigned Bob && grep -q '^applied msgid=<bob-l1@example.org> ' '$W/log' && [ \"\$(cat '$W/status')\" = 0 ] && [ \$(events) = \$((before + 1)) ]" \
	"once the writer is done, the command is read whole and applied"
expect "! grep -q 'waits' '$W/check'" \
	"... and tenure check no longer says the source waits"

# Only the fcntl lock (dovecot-lda's mbox_write_locks = fcntl, or a
# writer between its two locks).
committee l1f
run
command bob bob-l1f >"$W/l1f/command"
python3 -c '
import fcntl, sys, time, os
with open(sys.argv[1], "ab") as out:
    fcntl.lockf(out, fcntl.LOCK_EX)
    out.write(open(sys.argv[2], "rb").read(200)); out.flush()
    print("locked", flush=True)
    while not os.path.exists(sys.argv[3]):
        time.sleep(0.1)
    out.write(open(sys.argv[2], "rb").read()[200:]); out.flush()
' "$INBOX" "$W/l1f/command" "$W/l1f/go" >"$W/l1f/writer" 2>&1 &
writer=$!
test_cleanup "kill $writer 2>/dev/null"
wait_for 60 "grep -q locked '$W/l1f/writer'" ||
	test_fail_all "the writer never took its lock: $(cat "$W/l1f/writer")"
run
expect "! resigned Bob && [ \"\$(cat '$W/status')\" = 0 ] && grep -q '^mbox-locked .*a fcntl lock' '$W/log'" \
	"a writer holds a fcntl lock on the mbox: nothing is read"
touch "$W/l1f/go"
wait $writer
run
expect "resigned Bob && grep -q '^applied msgid=<bob-l1f@example.org> ' '$W/log' && [ \"\$(cat '$W/status')\" = 0 ]" \
	"... and once it is done, the command is applied"

# --- 2. A writer that takes no lock, stopped inside a line -------------

committee l2
run
command bob bob-l2 >"$W/l2/command"
head -c 300 "$W/l2/command" >>"$INBOX"
run
expect "! resigned Bob && [ \"\$(cat '$W/status')\" = 0 ] && grep -q '^mbox-unfinished ' '$W/log' && ! grep -q '^refused' '$W/log'" \
	"a last message that stops inside a line, in a file just written: waited for, unread"
tail -c +301 "$W/l2/command" >>"$INBOX"
run
expect "resigned Bob && grep -q '^applied msgid=<bob-l2@example.org> ' '$W/log' && [ \"\$(cat '$W/status')\" = 0 ]" \
	"... and read whole, and applied, once it is written"

# --- 3. Rotation: mv inbox inbox.1, a new inbox -----------------------

committee l3
command dave dave-l3 >>"$INBOX"
run
expect "resigned Dave && [ \"\$(cat '$W/status')\" = 0 ]" "the first file's command is applied"
mv "$INBOX" "$INBOX.1"
{ chat l3-new 60; command bob bob-l3; } >"$INBOX"
run
expect "resigned Bob && grep -q '^applied msgid=<bob-l3@example.org> ' '$W/log' && [ \"\$(cat '$W/status')\" = 0 ] && [ \$(events) = \$((before + 1)) ] && grep -q '^mbox-new-file .*another file is in its place' '$W/log'" \
	"a rotated mbox: the new file is read from its start, its command applied"

# --- 4. A rewrite shorter than the offset -------------------------------

committee l4
{ chat l4 60; command dave dave-l4; } >"$INBOX"
run
{ command dave dave-l4; command bob bob-l4; } >"$W/l4/rewritten"
cat "$W/l4/rewritten" >"$INBOX"
run
expect "resigned Bob && [ \"\$(cat '$W/status')\" = 0 ] && [ \$(events) = \$((before + 1)) ] && grep -q '^mbox-new-file .*shorter' '$W/log'" \
	"an mbox rewritten shorter than the offset: read from its start, the old command not acted on twice"

# --- 5. A rewrite in place, longer, the bytes before the offset changed --

committee l5
command dave dave-l5 >>"$INBOX"
run
{
	sed 's/^Subject: chat$/Subject: chat\nStatus: RO\nX-Status: A/' "$INBOX"
	command bob bob-l5
} >"$W/l5/rewritten"
cat "$W/l5/rewritten" >"$INBOX"
run
expect "resigned Bob && grep -q '^applied msgid=<bob-l5@example.org> ' '$W/log' && [ \"\$(cat '$W/status')\" = 0 ] && [ \$(events) = \$((before + 1)) ] && grep -q '^mbox-new-file .*bytes before the offset kept changed' '$W/log'" \
	"an mbox rewritten in place (a mail reader's Status: headers): read from its start, only the new command acts"

test_done
