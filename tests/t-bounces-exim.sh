#!/bin/sh
# t-bounces-exim.sh: bounces as exim itself writes them (issue 42 item 7).
# tenure sends Alice and Bob their reminders through the tests' SMTP
# server with the envelope sender tenure-bounces@example.org (the case
# of t-bounces.sh, tests/lib/bounces.sh); each mail, exactly as the
# server received it, is handed to a private exim (exim4 -C, its
# configuration, spool and log in the test's directory; no daemon, no
# port of its own) with that envelope sender.  exim's router refuses
# Alice's address for good; Bob's mail it relays to the tests' SMTP
# server, which refuses him at RCPT with a 550.  For each, exim writes
# its own delivery status notification and delivers it, as the user
# mail, into the Maildir tenure reads.  The next pass counts both copies
# as dead letters, in the log and in status, and reads nothing of the
# bounces as list traffic.  The bounces are kept as $CASE/alice.eml and
# $CASE/bob.eml: tests/data/dsn/exim-real-*.eml are two such
# (tests/data/dsn/README).
#
# Only root can do this: exim keeps its privilege under a configuration
# of the caller's (-C) for root only, and only root can have the
# deliveries run as another user.

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
getent passwd mail >/dev/null || test_skip_all "no user mail for exim's deliveries"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
command -v certtool >/dev/null || command -v openssl >/dev/null ||
	test_skip_all "neither certtool nor openssl for the test CA"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
smtp_start plain || test_skip_all "aiosmtpd would not start"

setup_case exim "smtp://127.0.0.1:$SMTP_PORT"
cp "$CASE/ledger" "$CASE/ledger.before"
# exim's user is mail (an exim's own user, as Debian-exim is Debian's):
# its spool and log are mail's, and the Maildir it delivers into, on a
# path it can reach whatever the umask (the test's directory is 0700,
# the suite's tree may be); the exim it executes again as mail reads
# the configuration (0644).
X=$CASE/exim
mkdir -p "$X/spool" "$X/log"
chmod 0711 "$TEST_DIR" "$CASE" "$X"
chown mail:mail "$X/spool" "$X/log"
chown -R mail:mail "$CASE/list"
# deliver_drop_privilege: after taking the mail as root, exim routes
# and delivers as mail in the same process (without it, exim would
# execute itself again as mail to regain root, and under -C, a
# configuration not in the host's TRUSTED_CONFIG_LIST, lose it and log
# to standard error); exim never delivers as root (FIXED_NEVER_USERS).
# Alice's address fails in routing (:fail:), a permanent error made
# without network; Bob's mail goes to the tests' SMTP server on the
# loopback (self = send and allow_localhost let exim send to its own
# host), which refuses him.
cat >"$X/exim.conf" <<EOF
primary_hostname = mail.example.org
qualify_domain = example.org
exim_user = mail
exim_group = mail
deliver_drop_privilege = true
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

refusing_server:
  driver = manualroute
  domains = example.org
  local_parts = bob
  route_list = * 127.0.0.1
  self = send
  transport = test_server

bounce_address:
  driver = accept
  domains = example.org
  local_parts = tenure-bounces
  transport = tenure_maildir

begin transports

test_server:
  driver = smtp
  port = $SMTP_PORT
  allow_localhost
  hosts_avoid_tls = *

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

# How many messages exim's log says it completed.
completed() {
	cat "$X/log/mainlog" 2>/dev/null | grep -c ' Completed$'
}

# exim_bounce ADDRESS NAME: the reminder the server took for ADDRESS,
# as it received it (the file less the two envelope lines the server
# put first, tests/lib/smtpd.py), submitted to exim from
# tenure-bounces@example.org to ADDRESS; once exim has completed it and
# its bounce, the bounce (the one new mail in the Maildir) is kept as
# $CASE/NAME.eml.  Sets rc (exim's exit status), bounce (the file in
# the Maildir, or empty) and bounce_id (its Message-ID).
exim_bounce() {
	local reminder done_before
	reminder=$(reminder_to "$1")
	done_before=$(completed)
	sed -e '1{/^X-Envelope-From: /d;}' -e '2{/^X-Envelope-To: /d;}' \
		"${reminder:-/dev/null}" >"$CASE/$2-reminder.eml"
	ls "$CASE/list/new" >"$CASE/$2-before"
	"$EXIM" -C "$X/exim.conf" -odi -oi -f tenure-bounces@example.org \
		"$1" <"$CASE/$2-reminder.eml" >"$X/$2.out" 2>&1
	rc=$?
	wait_for 60 '[ "$(completed)" -ge $((done_before + 2)) ]'
	bounce=$(ls "$CASE/list/new" | grep -v -x -F -f "$CASE/$2-before" | head -n 1)
	bounce=${bounce:+$CASE/list/new/$bounce}
	[ -n "$bounce" ] && cp "$bounce" "$CASE/$2.eml"
	bounce_id=$(message_id_of "${bounce:-/dev/null}")
}

# exim_said NAME: how many lines exim wrote to the submission's output
# and to its panic log (a configuration or privilege problem): 0.
exim_said() {
	cat "$X/$1.out" "$X/log/paniclog" 2>/dev/null | wc -l | tr -d ' '
}

# bounce_form ID: the bounce's owner (its delivery's user), whether it
# is a report of delivery status returning the mail ID (1 1), and
# whether it has a Message-ID of its own.
bounce_form() {
	local file=${bounce:-/dev/null}
	echo "$(stat -c %U "$file") $(grep -c -i '^Content-Type: multipart/report; report-type=delivery-status;' "$file") $(grep -c -i -x "Message-ID: $1" "$file") $([ -n "$bounce_id" ] && echo yes)"
}

test_begin "exim takes the test's own configuration"
"$EXIM" -C "$X/exim.conf" -bV >"$X/bV" 2>&1
rc=$?
test_expect_equal "0 1" \
	"$rc $(grep -c -x "Configuration file is $X/exim.conf" "$X/bV")"

test_begin "tenure sends Alice and Bob their reminders with the envelope sender tenure-bounces@example.org"
run_once 2027-10-02T10:00:00Z
alice=$(reminder_to alice@example.org)
bob=$(reminder_to bob@example.org)
alice_id=$(message_id_of "${alice:-/dev/null}")
bob_id=$(message_id_of "${bob:-/dev/null}")
sent=$(smtp_count)
test_expect_equal "yes tenure-bounces@example.org$CR tenure-bounces@example.org$CR" \
	"$([ -n "$alice_id" ] && [ -n "$bob_id" ] && echo yes) $(sed -n 's/^X-Envelope-From: //p' "${alice:-/dev/null}") $(sed -n 's/^X-Envelope-From: //p' "${bob:-/dev/null}")"

test_begin "exim refuses Alice's address and delivers its own bounce into tenure's Maildir as mail"
exim_bounce alice@example.org alice
alice_bounce=$bounce_id
test_expect_equal "0 0 1 1 1 mail 1 1 yes" \
	"$rc $(exim_said alice) $(ls "$CASE/list/new" | wc -l | tr -d ' ') $(grep -c ' \*\* alice@example.org R=unknown_user: User unknown$' "$X/log/mainlog") $(grep -c ' => tenure-bounces <tenure-bounces@example.org> R=bounce_address T=tenure_maildir$' "$X/log/mainlog") $(bounce_form "$alice_id")"

test_begin "exim relays Bob's to a server that refuses him, and delivers its bounce likewise"
smtp_refuse_rcpt bob@example.org "550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown in local recipient table"
exim_bounce bob@example.org bob
bob_bounce=$bounce_id
test_expect_equal "0 0 2 1 2 mail 1 1 yes $sent" \
	"$rc $(exim_said bob) $(ls "$CASE/list/new" | wc -l | tr -d ' ') $(grep -c ' \*\* bob@example.org R=refusing_server T=test_server H=127.0.0.1 \[127.0.0.1\]: SMTP error from remote mail server after RCPT TO:<bob@example.org>: 550 5.1.1 ' "$X/log/mainlog") $(grep -c ' => tenure-bounces <tenure-bounces@example.org> R=bounce_address T=tenure_maildir$' "$X/log/mainlog") $(bounce_form "$bob_id") $(smtp_count)"

test_begin "tenure reads exim's bounces: Alice's and Bob's copies are dead letters"
run_once 2027-10-03T10:00:00Z
test_expect_equal "2 1 1" \
	"$(dead_count) $(grep -c "^bounce .*msgid=$alice_bounce message-id=$alice_id recipient=alice@example.org status=5.0.0 outcome=dead-letter" "$CASE/err") $(grep -c "^bounce .*msgid=$bob_bounce message-id=$bob_id recipient=bob@example.org status=5.0.0 outcome=dead-letter" "$CASE/err")"

test_begin "tenure status names both, with exim's reports"
status_at 2027-10-03T10:01:00Z >"$CASE/status"
test_expect_equal "1 1" \
	"$(grep -c "$alice_id.*recipient alice@example.org bounced: Status 5.0.0; delivery status notification $alice_bounce from dns; mail.example.org" "$CASE/status") $(grep -c "$bob_id.*recipient bob@example.org bounced: Status 5.0.0 (smtp; 550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown in local recipient table); delivery status notification $bob_bounce from dns; mail.example.org" "$CASE/status")"

test_begin "the bounces are no list traffic: no command, no refusal, nobody answered"
test_expect_equal "0 yes $sent 0 0 2" \
	"$(grep -c -e '^refused ' -e '^applied ' -e '^ignored ' -e '^set-aside' "$CASE/err") $(cmp -s "$CASE/ledger" "$CASE/ledger.before" && echo yes) $(smtp_count) $(ls "$CASE/state/outbox/queue" 2>/dev/null | wc -l | tr -d ' ') $(ls "$CASE/list/new" | wc -l | tr -d ' ') $(ls "$CASE/list/cur" | wc -l | tr -d ' ')"

test_done
