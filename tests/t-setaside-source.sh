#!/bin/sh
# t-setaside-source.sh: what a source sets aside itself is counted and
# reported as what the intake sets aside (issue 39 item 1: over a bound,
# set aside with its reason in the log, status and check).  A message
# over the size bound (10 MiB) is never read: before, it was only
# logged, and status and check said nothing of it.  Each source: the
# configured Maildir, the configured mbox, and IMAP against a private Dovecot (too large by its RFC822.SIZE).
# The member's resignation behind each is applied.  And a signed command
# in an mbox whose From_ lines have no date: the intake sets it aside,
# and counts it too.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/dovecot.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org

LIST_ID="List-Id: <debian-ctte.lists.debian.org>"
asctime() { LC_ALL=C date -u -d "$1" '+%a %b %e %H:%M:%S %Y'; }

# big: a plain mail of 11 MiB, one byte per line being too few for the
# parser's bounds to matter: it is the size that sets it aside.
big() {
	printf 'From: mallory@example.org\nTo: debian-ctte@lists.debian.org\n'
	printf 'Subject: big\nMessage-ID: <big@example.org>\n\n'
	head -c $((11 * 1024 * 1024)) /dev/zero | tr '\0' 'x' | fold -w 76
	echo
}

# committee NAME URL...: a fresh committee in $W/NAME, $CONF from then
# on, its source URL.
committee() {
	local dir=$W/$1
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	CONF=$dir/tenure.conf
	STATE=$dir/state
	committee_ledger --file "$dir/ledger" \
		"Alice Member <alice@example.org> $ALICE" \
		"Bob Member <bob@example.org> $BOB"
	committee_conf "$CONF" keys.keyring="$W/keyring.gpg" "$@"
	BEFORE=$(events_in "$dir/ledger")
}
events_in() { grep -c '^Event:' "$1"; }

run() {
	"$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}

# counted NAME N WHY: status warns of N mail(s) set aside and lists one
# for WHY, its JSON counts N, check is a WARNING with set_aside=N; the
# run's log names WHY.
counted() {
	"$TENURE" --config "$CONF" status >"$W/status.out" 2>&1
	"$TENURE" --config "$CONF" status --format json >"$W/status.json" 2>&1
	"$TENURE" --config "$CONF" check >"$W/check.out" 2>&1
	test_begin "$1: the log names it; status, its JSON and check count $2 set aside"
	if grep -q "^set-aside .*reason=\"$3" "$W/log" &&
		grep -q "^warning: $2 message(s) were set aside" "$W/status.out" &&
		grep -q "set aside .*$3" "$W/status.out" &&
		grep -q "\"set_aside_total\" *: *$2\b" "$W/status.json" &&
		grep -q "^TENURE WARNING - .*set_aside=$2;" "$W/check.out"; then
		test_pass
	else
		test_fail "expected $2 counted for \"$3\"" "$(cat "$W/log")" \
			"$(cat "$W/status.out")" "$(cat "$W/check.out")"
	fi
}

# --- the configured Maildir -------------------------------------------
committee md "source.url=maildir:$W/md/inbox"
big >"$W/big.eml"
deliver "$W/md/inbox" "$W/big.eml"
deliver "$W/md/inbox" "$(signed_mail "$ALICE" alice@example.org md "Tenure: resign" "$LIST_ID")"
run
test_begin "Maildir: the big mail goes to .tenure-failed unread; Alice's resignation is applied"
if [ "$(cat "$W/status")" = 0 ] && [ "$(events_in "$W/md/ledger")" = $((BEFORE + 1)) ] &&
	[ "$(ls "$W/md/inbox/.tenure-failed/new" | wc -l)" = 1 ]; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
counted Maildir 1 "message too large ([0-9]* bytes, limit 10485760)"

# --- the configured mbox ----------------------------------------------
committee mb "source.url=mbox:$W/mb/inbox"
{
	printf 'From mallory@example.org %s\n' "$(asctime '1 minute ago')"
	cat "$W/big.eml"
	printf '\nFrom bob@example.org %s\n' "$(asctime now)"
	cat "$(signed_mail "$BOB" bob@example.org mb "Tenure: resign" "$LIST_ID")"
	printf '\n'
} >"$W/mb/inbox"
run
test_begin "mbox: the big mail is left behind unread; Bob's resignation is applied"
if [ "$(cat "$W/status")" = 0 ] && [ "$(events_in "$W/mb/ledger")" = $((BEFORE + 1)) ] &&
	grep -A3 '^Event: resign' "$W/mb/ledger" | grep -q 'Bob Member'; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")" "$(cat "$W/mb/ledger")"
fi
counted mbox 1 "message too large ([0-9]* bytes, limit 10485760)"
run
"$TENURE" --config "$CONF" check >"$W/check.out" 2>&1
test_begin "mbox: a second pass counts nothing twice"
if grep -q "^TENURE WARNING - .*set_aside=1;" "$W/check.out"; then
	test_pass
else
	test_fail "expected set_aside=1" "$(cat "$W/check.out")"
fi

# An mbox whose writer dates no From_ line: the intake cannot judge a
# command without its arrival, and sets it aside, counted.
committee mu "source.url=mbox:$W/mu/inbox"
{
	printf 'From alice@example.org\n'
	cat "$(signed_mail "$ALICE" alice@example.org mu "Tenure: resign" "$LIST_ID")"
	printf '\n'
} >"$W/mu/inbox"
run
test_begin "mbox without dates: Alice's command is not acted on"
if [ "$(cat "$W/status")" = 0 ] && [ "$(events_in "$W/mu/ledger")" = "$BEFORE" ]; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
counted "mbox without dates" 1 "the source does not say when this mail arrived"

# --- IMAP -------------------------------------------------------------
dovecot_setup
dovecot_start
committee im source.url="imaps://localhost:$DOVECOT_IMAPS_PORT" \
	source.user="$DOVECOT_USER" source.password-file="$DOVECOT_PASSWORD_FILE" \
	source.ca-file="$DOVECOT_CA" source.poll-interval=1
# First contact, on an empty mailbox: the cursor starts at UIDNEXT.
run
dovecot_deliver "$W/big.eml"
dovecot_deliver "$(signed_mail "$ALICE" alice@example.org im "Tenure: resign" "$LIST_ID")"
run
test_begin "IMAP: the big mail is never fetched; Alice's resignation is applied"
if [ "$(cat "$W/status")" = 0 ] && [ "$(events_in "$W/im/ledger")" = $((BEFORE + 1)) ]; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
counted IMAP 1 "message too large ([0-9]* bytes, limit 10485760)"

test_done
