#!/bin/sh
# t-bounces-exim.sh: a bounce as exim itself writes it (issue 42 item 7).
# tenure sends Alice's reminder through the tests' SMTP server with the
# envelope sender tenure-bounces@example.org (the case of t-bounces.sh,
# tests/lib/bounces.sh); the mail, exactly as the server received it,
# is handed to a private exim (exim4 -C, its configuration, spool and
# log in the test's directory; no daemon, no port) with that envelope
# sender.  exim's router refuses Alice's address for good, so exim
# writes its own delivery status notification and delivers it, as the
# user mail, into the Maildir tenure reads.  The next pass counts her
# copy as a dead letter, in the log and in status, and reads nothing of
# the bounce as list traffic.  The bounce is kept as $CASE/bounce.eml:
# tests/data/dsn/exim-real-failed.eml is one (tests/data/dsn/README).
#
# Only root can do this: exim keeps its privilege under a configuration
# of the caller's (-C) for root only, and only root can have the
# delivery run as another user.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/smtp.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/bounces.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
EXIM=$(command -v exim4 || command -v exim) ||
	test_skip_all "exim4 (package exim4-daemon-light) is not installed"
[ "$(id -u)" = 0 ] ||
	test_skip_all "needs root: exim takes the test's own configuration (-C) with its privilege, and delivers as the user mail, only for root"
getent passwd mail >/dev/null || test_skip_all "no user mail for exim's delivery"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
command -v certtool >/dev/null || command -v openssl >/dev/null ||
	test_skip_all "neither certtool nor openssl for the test CA"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
smtp_start plain || test_skip_all "aiosmtpd would not start"

setup_case exim "smtp://127.0.0.1:$SMTP_PORT"
cp "$CASE/ledger" "$CASE/ledger.before"
# exim's delivery runs as the user mail: the Maildir is its, on a path
# it can reach (the test's directory is 0700, the suite's tree may be).
chmod 0711 "$TEST_DIR" "$CASE"
chown -R mail:mail "$CASE/list"
X=$CASE/exim
mkdir -p "$X/spool" "$X/log"
# exim_user root: the exim this test runs as root stays the one process
# that receives, routes, writes the bounce and submits it (an
# unprivileged exim_user would have the re-executed exim lose root
# under -C, a configuration not in the host's TRUSTED_CONFIG_LIST, and
# log to standard error).  The delivery itself is the user mail's:
# exim never delivers as root (FIXED_NEVER_USERS).  Alice's address
# fails in routing (:fail:), a permanent error made without network.
cat >"$X/exim.conf" <<EOF
primary_hostname = mail.example.org
qualify_domain = example.org
exim_user = root
exim_group = root
spool_directory = $X/spool
log_file_path = $X/log/%slog
keep_environment =

begin routers

unknown_user:
  driver = redirect
  domains = example.org
  local_parts = alice
  data = :fail: User unknown
  allow_fail

bounce_address:
  driver = accept
  domains = example.org
  local_parts = tenure-bounces
  transport = tenure_maildir

begin transports

tenure_maildir:
  driver = appendfile
  directory = $CASE/list
  maildir_format
  user = mail
  group = mail
  delivery_date_add
  envelope_to_add
  return_path_add
EOF
chmod 0644 "$X/exim.conf"

test_begin "exim takes the test's own configuration"
"$EXIM" -C "$X/exim.conf" -bV >"$X/bV" 2>&1
rc=$?
test_expect_equal "0 1" \
	"$rc $(grep -c -x "Configuration file is $X/exim.conf" "$X/bV")"

test_begin "tenure sends Alice her reminder with the envelope sender tenure-bounces@example.org"
run_once 2027-10-02T10:00:00Z
alice=$(reminder_to alice@example.org)
alice_id=$(message_id_of "${alice:-/dev/null}")
sent=$(smtp_count)
test_expect_equal "yes tenure-bounces@example.org$CR" \
	"$([ -n "$alice_id" ] && echo yes) $(sed -n 's/^X-Envelope-From: //p' "${alice:-/dev/null}")"

test_begin "exim refuses Alice's address and delivers its own bounce into tenure's Maildir as mail"
# The mail as the server received it: the file less the two envelope
# lines the server put first (tests/lib/smtpd.py).
sed -e '1{/^X-Envelope-From: /d;}' -e '2{/^X-Envelope-To: /d;}' \
	"${alice:-/dev/null}" >"$CASE/reminder.eml"
"$EXIM" -C "$X/exim.conf" -odi -oi -f tenure-bounces@example.org \
	alice@example.org <"$CASE/reminder.eml" >"$X/submit.out" 2>&1
rc=$?
# The bounce is exim's second message: received, delivered, completed.
wait_for 60 '[ "$(grep -c " Completed$" "$X/log/mainlog" 2>/dev/null)" = 2 ]'
bounce=$(find "$CASE/list/new" -type f | head -n 1)
[ -n "$bounce" ] && cp "$bounce" "$CASE/bounce.eml"
bounce_id=$(message_id_of "${bounce:-/dev/null}")
test_expect_equal "0 1 1 1 mail 1 1 yes" \
	"$rc $(ls "$CASE/list/new" | wc -l | tr -d ' ') $(grep -c ' \*\* alice@example.org R=unknown_user: User unknown$' "$X/log/mainlog") $(grep -c ' => tenure-bounces <tenure-bounces@example.org> R=bounce_address T=tenure_maildir$' "$X/log/mainlog") $(stat -c %U "${bounce:-/dev/null}") $(grep -c -i '^Content-Type: multipart/report; report-type=delivery-status;' "${bounce:-/dev/null}") $(grep -c -i -x "Message-ID: $alice_id" "${bounce:-/dev/null}") $([ -n "$bounce_id" ] && echo yes)"

test_begin "tenure reads exim's bounce: Alice's copy is a dead letter"
run_once 2027-10-03T10:00:00Z
test_expect_equal "1 1" \
	"$(dead_count) $(grep -c "^bounce .*msgid=$bounce_id message-id=$alice_id recipient=alice@example.org status=5.0.0 outcome=dead-letter" "$CASE/err")"

test_begin "tenure status names it, with exim's report"
status_at 2027-10-03T10:01:00Z >"$CASE/status"
test_expect_equal "1" \
	"$(grep -c "$alice_id.*recipient alice@example.org bounced: Status 5.0.0; delivery status notification $bounce_id from dns; mail.example.org" "$CASE/status")"

test_begin "the bounce is no list traffic: no command, no refusal, nobody answered"
test_expect_equal "0 yes $sent 0 0 1" \
	"$(grep -c -e '^refused ' -e '^applied ' -e '^ignored ' -e '^set-aside' "$CASE/err") $(cmp -s "$CASE/ledger" "$CASE/ledger.before" && echo yes) $(smtp_count) $(ls "$CASE/state/outbox/queue" 2>/dev/null | wc -l | tr -d ' ') $(ls "$CASE/list/new" | wc -l | tr -d ' ') $(ls "$CASE/list/cur" | wc -l | tr -d ' ')"

test_done
