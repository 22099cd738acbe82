#!/bin/sh
# t-mailout.sh: announcements, reminders and expiries through
# `tenure run --once`, delivered over real SMTP (aiosmtpd on loopback,
# STARTTLS with a test CA), signed by a bot key made for the run.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/smtp.sh"
. "$top_srcdir/tests/lib/gpg.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
command -v gpg >/dev/null || test_skip_all "no gpg"
command -v certtool >/dev/null || command -v openssl >/dev/null ||
	test_skip_all "neither certtool nor openssl for the test CA"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"

# The bot's key, in a short GNUPGHOME (gpg-agent's socket path).
GNUPG_HOME=$(mktemp -d -p /tmp)
test_cleanup "gpgconf --homedir $GNUPG_HOME --kill all; rm -rf $GNUPG_HOME"
gpg --homedir "$GNUPG_HOME" --batch --passphrase '' --quick-gen-key \
	'Tenure Bot <ctte-bot@example.org>' ed25519 sign never 2>/dev/null
BOT_FPR=$(gpg --homedir "$GNUPG_HOME" --with-colons --list-secret-keys 2>/dev/null |
	awk -F: '/^fpr:/ { print $10; exit }')
gpg --homedir "$GNUPG_HOME" --export >"$TEST_DIR/keyring.gpg"

smtp_start starttls || test_skip_all "aiosmtpd would not start"

# setup_case NAME SINK-URL [EXTRA [sink] LINES]: a directory with a
# ledger, an empty list Maildir, state and a configuration.
setup_case() {
	CASE=$TEST_DIR/$1
	mkdir -p "$CASE/list/new" "$CASE/list/cur" "$CASE/list/tmp"
	cat >"$CASE/tenure.conf" <<EOF
[committee]
name = Technical Committee
list = ctte@lists.example.org
ledger = $CASE/ledger
state-dir = $CASE/state
templates = $top_srcdir/templates

[rule]
name = debian

[keys]
keyring = $TEST_DIR/keyring.gpg
gnupg-home = $GNUPG_HOME
bot-key = $BOT_FPR

[source]
url = maildir:$CASE/list

[sink]
url = $2
from = ctte-bot@example.org
${3:-ca-file = $SMTP_CA}

[reminders]
days-before = 90;30;7
EOF
}

# run_once WHEN: one pass on a clock stopped at WHEN (--now would keep
# the mail from the SMTP server).
run_once() {
	tenure_at "$1" --config "$CASE/tenure.conf" run --once \
		>"$CASE/out" 2>"$CASE/err"
}

# The delivered mails whose envelope goes to $1, one file name a line.
mails_to() {
	grep -l "^X-Envelope-To: $1" "$SMTP_MAILDIR"/new/* 2>/dev/null | sort
}

mail_count_to() {
	mails_to "$1" | wc -l | tr -d ' '
}

# The delivered mails made from template $1 (X-Tenure names it).
mails_of_kind() {
	grep -l "^X-Tenure: $1" "$SMTP_MAILDIR"/new/* 2>/dev/null | sort
}

count_of_kind() {
	mails_of_kind "$1" | wc -l | tr -d ' '
}

# The unfolded Subject of mail $1.
subject_of() {
	tr -d '\r' <"$1" | sed -n '/^Subject:/,/^[^ \t]/p' |
		sed '$d' | tr -d '\n' | sed 's/^Subject: //; s/\t/ /g'
}

# The terms: under the debian rule, on 2027-01-01 Alice and Bob have
# served more than 42 months and are the two most senior, so their terms
# are set to expire on 2027-12-31.  Dave's resignation came from signed
# mail (a Message-ID as Source) and is announced; the imports are not.
setup_case schedule "smtp://127.0.0.1:$SMTP_PORT"
cat >"$CASE/ledger" <<'EOF'
Event: rule
Date: 2015-01-01
Rule: debian
Source: import

Event: appoint
Date: 2023-01-10
Member: Alice Senior <alice@example.org>
Source: import

Event: appoint
Date: 2023-03-01
Member: Bob Second <bob@example.org>
Source: import

Event: appoint
Date: 2025-06-01
Member: Carol Junior <carol@example.org>
Source: import

Event: appoint
Date: 2026-01-05
Member: Dave Brief <dave@example.org>
Source: import

Event: resign
Date: 2026-12-31
Member: Dave Brief <dave@example.org>
Source: <resign-dave@example.org>
Signed-By: 0123456789ABCDEF0123456789ABCDEF01234567
EOF

test_begin "a resignation from mail is announced to the list once, and nothing else"
run_once 2026-12-31 && run_once 2026-12-31
test_expect_equal "1 1" "$(smtp_count) $(count_of_kind announce-resign)"

test_begin "the announcement names the member and the last day"
f=$(mails_of_kind announce-resign | head -n 1)
test_expect_equal "Technical Committee: Dave Brief resigns, last day 2026-12-31" \
	"$(subject_of "$f")"

test_begin "every mail carries Auto-Submitted, Date, Message-ID and CRLF"
missing=
for h in 'Auto-Submitted: auto-generated' 'Date: ' 'Message-Id: <tenure\.' 'X-Tenure: announce-resign'; do
	grep -qi "^$h" "$f" || missing="$missing [$h]"
done
bare_lf=$(sed -n '3,$p' "$f" | grep -c -v "$(printf '\r')\$")
test_expect_equal "missing:; bare LF lines: 0" "missing:$missing; bare LF lines: $bare_lf"

test_begin "the bot-signed announcement verifies with gpg"
# Split the PGP/MIME message on its boundary: the signed part exactly as
# sent (CRLF) and the detached signature.
/usr/bin/python3 - "$f" "$CASE/signed" "$CASE/sig" <<'EOF'
import re, sys
raw = open(sys.argv[1], "rb").read()
boundary = re.search(rb'boundary="?([^";\r\n]+)"?', raw).group(1)
parts = raw.split(b"\r\n--" + boundary)
open(sys.argv[2], "wb").write(parts[1][2:])
sig = parts[2].split(b"\r\n\r\n", 1)[1]
open(sys.argv[3], "wb").write(sig)
EOF
if gpg --homedir "$GNUPG_HOME" --status-fd 1 --verify "$CASE/sig" "$CASE/signed" \
	>"$CASE/verify" 2>&1; then
	test_expect_equal "VALIDSIG $BOT_FPR" \
		"$(awk '/VALIDSIG/ { print $2, $3 }' "$CASE/verify")"
else
	test_fail "gpg --verify failed" "$(cat "$CASE/verify")"
fi

test_begin "the day the debian rule fixes the expiries, each is announced once"
run_once 2027-01-01 && run_once 2027-01-01
subjects=$(for m in $(mails_of_kind announce-scheduled); do subject_of "$m"; echo; done | sort)
test_expect_equal "Technical Committee: the term of Alice Senior will expire on 2027-12-31
Technical Committee: the term of Bob Second will expire on 2027-12-31" "$subjects"

test_begin "the announcement of a scheduled expiry goes to the list and the member"
envelopes=$(for m in $(mails_of_kind announce-scheduled); do
	grep '^X-Envelope-To:' "$m" | tr -d '\r'; done | sort)
test_expect_equal "X-Envelope-To: ctte@lists.example.org, alice@example.org
X-Envelope-To: ctte@lists.example.org, bob@example.org" "$envelopes"

test_begin "no reminder before the 90-day mark"
run_once 2027-10-01
test_expect_equal "0 0" "$(mail_count_to alice@example.org) $(mail_count_to bob@example.org)"

test_begin "the 90-day reminder goes to each member exactly once across runs"
run_once 2027-10-02 && run_once 2027-10-02 && run_once 2027-11-15
test_expect_equal "1 1" "$(mail_count_to alice@example.org) $(mail_count_to bob@example.org)"

test_begin "the reminder gives the date, the rule and when reappointment is possible"
r=$(mails_to alice@example.org | head -n 1)
body=$(tr -d '\r' <"$r")
case $body in
*"Subject: Your term on the Technical Committee expires on 2027-12-31"*"(90 days from today)"*"Term rule: debian"*"You may be appointed again from 20"*)
	test_pass ;;
*)	test_fail "unexpected reminder:" "$body" ;;
esac

test_begin "after downtime only the most recent missed reminder is sent (7 days, not 30)"
run_once 2027-12-26 && run_once 2027-12-27
test_expect_equal "2 2" "$(mail_count_to alice@example.org) $(mail_count_to bob@example.org)"

test_begin "a clock jumping back does not send the skipped 30-day reminder"
run_once 2027-12-02
test_expect_equal "2 2" "$(mail_count_to alice@example.org) $(mail_count_to bob@example.org)"

test_begin "the 7-day reminder says 7 days or fewer are left"
test_expect_equal "1" "$(grep -l '(5 days from today)' $(mails_to alice@example.org) | wc -l | tr -d ' ')"

test_begin "on the last day of service nothing is recorded yet"
run_once 2027-12-31
test_expect_equal "0" "$(grep -c '^Event: expire' "$CASE/ledger")"

test_begin "the day after, the expiries are recorded in the ledger with the rule's reason"
run_once 2028-01-01 && run_once 2028-01-01
test_expect_equal "2 2 2" "$(grep -c '^Event: expire' "$CASE/ledger") $(grep -c '^Source: tenure' "$CASE/ledger") $(grep -A3 '^Event: expire' "$CASE/ledger" | grep -c '^Date: 2027-12-31')"

test_begin "the recorded reason is the rule's, as of the last day"
test_expect_equal "Comment: more than 42 months on 2027-01-01 (appointed 2023-01-10) and one of the two most senior (debian 6.2.7)" \
	"$(grep -A6 '^Event: expire' "$CASE/ledger" | grep '^Comment:' | head -n 1)"

test_begin "each expiry is announced to the list once"
run_once 2028-01-02
subjects=$(for m in $(mails_of_kind announce-expire); do subject_of "$m"; echo; done | sort)
test_expect_equal "Technical Committee: the term of Alice Senior expired on 2027-12-31
Technical Committee: the term of Bob Second expired on 2027-12-31" "$subjects"

test_begin "tenure status lists no dead letters and nothing queued"
"$TENURE" --config "$CASE/tenure.conf" --now 2028-01-02 status >"$CASE/status" 2>&1
test_expect_equal "0 0" "$(ls "$CASE/state/outbox/queue" | wc -l | tr -d ' ') $(ls "$CASE/state/outbox/dead" | wc -l | tr -d ' ')"

# SMTP failure modes, each with one announcement to send.
one_announcement() {
	cat >"$CASE/ledger" <<'EOF'
Event: appoint
Date: 2026-01-05
Member: Erin Example <erin@example.org>
Source: import

Event: resign
Date: 2026-12-31
Member: Erin Example <erin@example.org>
Source: <resign-erin@example.org>
EOF
}

test_begin "SMTP down: the mail stays queued and run --once says so"
setup_case down "smtp://127.0.0.1:$SMTP_PORT"
one_announcement
before=$(smtp_count)
smtp_stop
if run_once 2026-12-31T10:00:00Z; then
	test_fail "run --once succeeded with the server down"
else
	test_expect_equal "$before 1" "$(smtp_count) $(ls "$CASE/state/outbox/queue" | wc -l | tr -d ' ')"
fi

test_begin "SMTP up again: after the backoff the mail is delivered exactly once"
smtp_start starttls --port "$SMTP_PORT"
run_once 2026-12-31T10:00:30Z   # before the first retry is due
early=$(smtp_count)
run_once 2026-12-31T10:02:00Z && run_once 2026-12-31T10:30:00Z
test_expect_equal "$before $((before + 1)) 1" \
	"$early $(smtp_count) $(grep -l 'Erin Example resigns' "$SMTP_MAILDIR"/new/* | wc -l | tr -d ' ')"

test_begin "a 5xx refusal moves the mail to the dead letters"
setup_case dead "smtp://127.0.0.1:$SMTP_PORT"
one_announcement
smtp_answer "554 5.7.1 no mail from robots"
run_once 2026-12-31
smtp_answer ""
test_expect_equal "0 1" "$(ls "$CASE/state/outbox/queue" | wc -l | tr -d ' ') $(ls "$CASE/state/outbox/dead" | wc -l | tr -d ' ')"

test_begin "tenure status reports the dead letter with the server's words"
"$TENURE" --config "$CASE/tenure.conf" --now 2026-12-31 status >"$CASE/status" 2>&1
if grep -q '554 5.7.1 no mail from robots' "$CASE/status"; then
	test_pass
else
	test_fail "status does not show the dead letter:" "$(cat "$CASE/status")"
fi

test_begin "a dead letter is not sent again on later runs"
before=$(smtp_count)
run_once 2026-12-31T12:00:00Z
test_expect_equal "$before" "$(smtp_count)"

test_begin "an untrusted server certificate is refused with a clear error"
setup_case untrusted "smtp://127.0.0.1:$SMTP_PORT" "ca-file = $SMTP_OTHER_CA"
one_announcement
: >"$SMTP_LOG"
before=$(smtp_count)
run_once 2026-12-31
if grep -qi 'certificate' "$CASE/err" && [ "$(smtp_count)" = "$before" ] &&
	! grep -q '^MAIL' "$SMTP_LOG"; then
	test_pass
else
	test_fail "expected a certificate error and nothing sent" \
		"stderr: $(cat "$CASE/err")" "smtp log: $(cat "$SMTP_LOG")"
fi

test_begin "STARTTLS required and not offered: refused, nothing sent in clear"
smtp_stop
smtp_start plain
setup_case nostarttls "smtp://127.0.0.1:$SMTP_PORT"
one_announcement
: >"$SMTP_LOG"
run_once 2026-12-31
if grep -q 'STARTTLS' "$CASE/err" && [ "$(smtp_count)" = "$before" ] &&
	! grep -q -e '^MAIL' -e '^DATA' "$SMTP_LOG"; then
	test_pass
else
	test_fail "expected a STARTTLS error and no envelope sent" \
		"stderr: $(cat "$CASE/err")" "smtp log: $(cat "$SMTP_LOG")"
fi

test_begin "starttls = no sends in plain text to a local MTA"
setup_case local "smtp://127.0.0.1:$SMTP_PORT" "starttls = no"
one_announcement
run_once 2026-12-31
test_expect_equal "$((before + 1))" "$(smtp_count)"

# A resignation signed just after midnight, on the day after a member's
# last day under the rule, reaches tenure before the schedule has run
# that day: the expiry is recorded first, and the late resignation finds
# no term to end.
test_begin "a new day's expiries are recorded before that day's mail is acted on"
gpg_world_init
MAIL_LIST=ctte@lists.example.org
RACE_FPR=$(gpg_new_key "Alice Senior" alice@example.org)
gpg_export_keyring "$TEST_DIR/race-keyring.gpg" alice@example.org
RACE=$TEST_DIR/race
mkdir -p "$RACE/list/new" "$RACE/list/cur" "$RACE/list/tmp" "$RACE/g"
chmod 700 "$RACE/g"
test_cleanup "gpgconf --homedir $RACE/g --kill all"
cat >"$RACE/tenure.conf" <<EOF
[committee]
name = Technical Committee
list = ctte@lists.example.org
ledger = $RACE/ledger
state-dir = $RACE/state
templates = $top_srcdir/templates

[rule]
name = debian

[keys]
keyring = $TEST_DIR/race-keyring.gpg
gnupg-home = $RACE/g

[source]
url = maildir:$RACE/list

[sink]
url = maildir:$RACE/sent
from = ctte-bot@example.org
EOF
cat >"$RACE/ledger" <<EOF
Event: rule
Date: 2015-01-01
Rule: debian
Source: import

Event: appoint
Date: 2023-01-10
Member: Alice Senior <alice@example.org>
Fingerprint: $RACE_FPR
Source: import
EOF
"$TENURE" --config "$RACE/tenure.conf" --now 2027-12-31T12:00:00Z run --once \
	>/dev/null 2>&1
mime_text_part "Tenure: resign" >"$RACE/resign.part"
pgpmime_entity "$RACE_FPR" "$RACE/resign.part" -- \
	"$(gpg_faked 2028-01-01T00:05:00)" >"$RACE/resign.entity" 2>/dev/null
mail_message alice@example.org late-resign@example.org "$RACE/resign.entity" \
	>"$RACE/resign.eml"
deliver "$RACE/list" "$RACE/resign.eml" "$(date -u -d 2028-01-01T00:06:00 +%s)"
"$TENURE" --config "$RACE/tenure.conf" --now 2028-01-01T00:10:00Z run --once \
	>"$RACE/out" 2>"$RACE/err"
test_expect_equal "Event: expire Date: 2027-12-31 -- Handled: 1" \
	"$(grep -A1 '^Event: \(expire\|resign\)' "$RACE/ledger" | tr '\n' ' ' | sed 's/ $//') -- Handled: $(ls "$RACE/list/cur" | wc -l | tr -d ' ')"

test_done
