#!/bin/sh
# t-imap-clock-waiting.sh: the mailbox changes under mail that waits on
# a clock doubt (issue 33, item 7), on a private Dovecot.  Nothing is
# applied twice and nothing is lost silently:
#   - the mailbox renumbered (UIDVALIDITY changed) while a member's
#     resignation waits: after the doubt, the renumbering is logged, the
#     waiting resignation applied once, and one applied before the doubt
#     (read again in the window) neither applied nor announced again;
#   - a waiting resignation expunged, `run --once` on each side of the
#     doubt's end: the mail behind it is handled, and the log names the
#     UID gone (imap-mail-gone), once;
#   - the same under the daemon, which knew the message waited: logged,
#     and the cursor moves past it (it no longer stands before a message
#     that is not there).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/dovecot.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v dovecot >/dev/null || test_skip_all "dovecot is not installed"
[ -r /proc/sys/kernel/random/boot_id ] || test_skip_all "no boot id"

TENURE_TEST_CLOCK_NTP=unsynced
export TENURE_TEST_CLOCK_NTP

dovecot_setup
dovecot_start
committee_init
set --
for who in alice carol dave frank; do
	name="$(echo "$who" | sed 's/./\U&/') Member"
	fpr=$(gpg_new_key "$name" "$who@example.org")
	eval "$(echo "$who" | tr a-z A-Z)=\$fpr"
	set -- "$@" "$name <$who@example.org> $fpr"
done
committee_ledger "$@" "Bob Member <bob@example.org>"
gpg_export_keyring "$W/keyring.gpg" alice@example.org carol@example.org \
	dave@example.org frank@example.org
committee_conf "source.url=imaps://127.0.0.1:$DOVECOT_IMAPS_PORT/INBOX" \
	"source.user=$DOVECOT_USER" \
	"source.password-file=$DOVECOT_PASSWORD_FILE" \
	"source.ca-file=$DOVECOT_CA" source.poll-interval=1
STATE=$W/state

daemon=
stop_daemon() { [ -n "$daemon" ] && kill -KILL "$daemon" 2>/dev/null; daemon=; }
test_cleanup stop_daemon

once() {
	"$TENURE" --config "$CONF" run --once >>"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}
# doubt: the last pass 20 days ahead, in this boot.
doubt() {
	local checked
	checked=$(sed -n 's/^Checked: //p' "$STATE/clock")
	sed -i "s/^Checked: .*/Checked: $((checked - 20 * 86400))/" "$STATE/clock"
	state_reseal "$STATE/clock"
}
trust() { "$TENURE" --config "$CONF" clock trust >/dev/null 2>>"$W/trust.log"; }
resign() {
	dovecot_deliver "$(signed_mail "$2" "$1@example.org" "r-$1" "Tenure: resign")"
}
talk() {
	printf 'From: someone@example.org\nTo: debian-ctte@lists.debian.org\nMessage-ID: <talk-%s@example.org>\nSubject: talk\n\nsome talk\n' \
		"$1" >"$W/m/talk-$1.eml"
	dovecot_deliver "$W/m/talk-$1.eml"
}
resigned_times() {
	awk -v who="Member: $1 Member" 'BEGIN { RS = "" }
		/Event: resign/ && index($0, who) { n++ } END { print n + 0 }' \
		"$W/ledger"
}
announced() { grep -l "$1 Member resigns" "$W/sent"/new/* 2>/dev/null | wc -l; }
cursor() { sed -n 's/^last-uid=//p' "$STATE/imap-cursor"; }
expunge() {
	doveadm -c "$DOVECOT_DIR/dovecot.conf" expunge -u "$DOVECOT_USER" \
		mailbox INBOX uid "$1"
}

# 1. A resignation applied, then the doubt; Alice's waits; the mailbox
# renumbered.
resign carol "$CAROL"
once
test_begin "on the right clock Carol's resignation is applied and announced"
test_expect_equal "exit 0, 1 applied, 1 announced" \
	"exit $(cat "$W/status"), $(resigned_times Carol) applied, $(announced Carol) announced" \
	"$(cat "$W/log")"
doubt
resign alice "$ALICE"
once
test_begin "in doubt, Alice's resignation waits"
test_expect_equal "exit 1, 0 applied" \
	"exit $(cat "$W/status"), $(resigned_times Alice) applied" "$(cat "$W/log")"
old=$(dovecot_uidvalidity)
dovecot_reset_uidvalidity
trust
once
test_begin "renumbered while it waited: logged, Alice's applied once after the doubt"
test_expect_equal "renumbered yes, 1 logged, exit 0, 1 applied, 1 announced" \
	"renumbered $([ "$(dovecot_uidvalidity)" != "$old" ] && echo yes || echo no), $(grep -c '^imap-uidvalidity-changed' "$W/log") logged, exit $(cat "$W/status"), $(resigned_times Alice) applied, $(announced Alice) announced" \
	"$(cat "$W/log")"
test_begin "... Carol's, read again in the window, is neither applied nor announced again"
test_expect_equal "1 applied, 1 announced" \
	"$(resigned_times Carol) applied, $(announced Carol) announced" \
	"$(cat "$W/log")"

# 2. Dave's resignation waits, and is expunged before the doubt ends.
doubt
resign dave "$DAVE"
d=$(($(dovecot_uidnext) - 1))
talk 1
once
test_begin "in doubt, Dave's resignation and the mail behind it wait"
test_expect_equal "exit 1, 0 applied, cursor before $d" \
	"exit $(cat "$W/status"), $(resigned_times Dave) applied, cursor before $([ "$(cursor)" -lt "$d" ] && echo "$d" || cursor)" \
	"$(cat "$W/log")"
expunge "$d"
trust
once
test_begin "expunged while it waited: not applied, the log names its UID gone"
test_expect_equal "exit 0, 0 applied, 1 logged" \
	"exit $(cat "$W/status"), $(resigned_times Dave) applied, $(grep -Ec "^imap-mail-gone .*uids=$d( |$)" "$W/log") logged" \
	"$(cat "$W/log")"
test_begin "... the mail behind it is handled, the cursor past both"
test_expect_equal "cursor $((d + 1))" "cursor $(cursor)" "$(cat "$W/log")"
once
test_begin "... and the next pass says nothing of it again"
test_expect_equal "exit 0, 0 logged" \
	"exit $(cat "$W/status"), $(grep -c '^imap-mail-gone' "$W/log") logged" \
	"$(cat "$W/log")"

# 3. Under the daemon, which knows that Frank's resignation waits.
doubt
"$TENURE" --config "$CONF" run 2>"$W/daemon.log" &
daemon=$!
resign frank "$FRANK"
f=$(($(dovecot_uidnext) - 1))
wait_for 20 "grep -q 'UID=$f.*waits\\|waiting' \"\$W/daemon.log\" && [ -s \"\$STATE/imap-cursor\" ]"
sleep 3
expunge "$f"
talk 2
t=$(($(dovecot_uidnext) - 1))
trust
wait_for 30 'grep -q "^clock-trusted" "$W/daemon.log"'
wait_for 20 '[ "$(cursor)" -ge "$t" ]'
sleep 2
test_begin "daemon: expunged while it waited: not applied, the log names its UID gone"
test_expect_equal "0 applied, 1 logged" \
	"$(resigned_times Frank) applied, $(grep -Ec "^imap-mail-gone .*uids=$f( |$)" "$W/daemon.log") logged" \
	"$(cat "$W/daemon.log")"
test_begin "... the mail behind it is handled, and the cursor moves past both"
test_expect_equal "cursor $t" "cursor $(cursor)" "$(cat "$W/daemon.log")"
kill -TERM "$daemon"
wait "$daemon"
daemon=

test_done
