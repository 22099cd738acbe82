#!/bin/sh
# t-flush.sh: a fix takes effect now (issue 26, item 5).  Mail held by a
# refused SMTP login waits out its backoff after the password is fixed;
# `run --once --flush`, or SIGHUP to the daemon, sends it at once, as
# `exim -qff` does.  So for a mail waiting for a verdict after gpgv
# failed.  And a dry run whose source could not be read says that it is
# incomplete, and exits non-zero.  A real SMTP server with AUTH.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/smtp.sh"
. "$top_srcdir/tests/lib/dovecot.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
smtp_start starttls --auth tenure:right ||
	test_skip_all "aiosmtpd would not start"
# The last check needs an IMAP server: decided here, before the first
# result, and skipped alone when this host has no Dovecot.
no_dovecot=$(dovecot_missing)

committee_init
cd "$W" || exit 1
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
CAROL=$(gpg_new_key "Carol Member" carol@example.org)
DAVE=$(gpg_new_key "Dave Member" dave@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org dave@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB" \
	"Carol Member <carol@example.org> $CAROL" \
	"Dave Member <dave@example.org> $DAVE"
printf 'wrong\n' >smtp-password
chmod 0600 smtp-password
committee_conf "sink.url=smtp://localhost:$SMTP_PORT" "sink.ca-file=$SMTP_CA" \
	sink.user=tenure sink.password-file=smtp-password source.poll-interval=300

pass() {
	timeout 120 "$TENURE" --config "$CONF" run --once "$@" >pass.out 2>pass.log
	echo $? >pass.status
}

# Alice resigns while the password is wrong: her announcement is held.
deliver inbox "$(signed_mail "$ALICE" alice@example.org alice-resigns \
	"Tenure: resign")"
pass
test_begin "a refused login: the announcement is held, run --once exits 1"
test_expect_equal "1 0 1" "$(cat pass.status) $(smtp_count) $(outbox_count)" \
	"$(cat pass.log)"

printf 'right\n' >smtp-password
pass
test_begin "the password fixed, a pass within the backoff still holds it"
test_expect_equal "1 0" "$(cat pass.status) $(smtp_count)" "$(cat pass.log)"

pass --flush
test_begin "run --once --flush sends it now, and exits 0"
test_expect_equal "0 1 0" "$(cat pass.status) $(smtp_count) $(outbox_count)" \
	"$(cat pass.log)"

test_begin "--flush without --once is a usage error"
"$TENURE" --config "$CONF" run --flush >/dev/null 2>flush.err
test_expect_equal "2 1" "$? $(grep -c 'goes with --once' flush.err)"

# The daemon: Bob resigns while the password is wrong again.
printf 'wrong\n' >smtp-password
"$TENURE" --config "$CONF" run 2>daemon.log &
daemon=$!
test_cleanup '[ -n "$daemon" ] && kill -KILL "$daemon"'
# The mail comes once the daemon runs (a sanitizer build starts slowly).
wait_for 120 'grep -q "^run-start " daemon.log'
deliver inbox "$(signed_mail "$BOB" bob@example.org bob-resigns \
	"Tenure: resign")"
kill -HUP $daemon
test_begin "the daemon holds Bob's announcement after the refused login"
if wait_for 120 'grep -q "^deferred " daemon.log && [ "$(outbox_count)" -ge 1 ]'; then
	test_expect_equal 1 "$(smtp_count)"
else
	test_fail "not held" "$(cat daemon.log)"
fi
printf 'right\n' >smtp-password
: >daemon.mark
kill -HUP $daemon
test_begin "SIGHUP after the fix: the daemon sends it at once, not after its backoff"
if wait_for 30 '[ "$(smtp_count)" -eq 2 ]'; then
	test_expect_equal "yes 0" \
		"$(grep -q '^run-flush result=' daemon.log && echo yes) $(outbox_count)"
else
	test_fail "still held" "$(cat daemon.log)"
fi
kill -TERM $daemon
wait $daemon
daemon=

# A mail waiting for a verdict: gpgv fails (the fake exits 2).
. "$top_srcdir/tests/lib/fakegpg.sh"
fault exit2
deliver inbox "$(signed_mail "$CAROL" carol@example.org carol-resigns \
	"Tenure: resign")"
pass
test_begin "gpgv failing: Carol's resignation waits for a verdict"
test_expect_equal "1 no" "$(cat pass.status) $(resigned Carol && echo yes || echo no)" \
	"$(cat pass.log)"
fault pass
pass
test_begin "gpgv mended, a pass within the backoff does not try it yet"
test_expect_equal "1 no" "$(cat pass.status) $(resigned Carol && echo yes || echo no)" \
	"$(cat pass.log)"
pass --flush
test_begin "run --once --flush tries it now: applied"
test_expect_equal "0 yes" "$(cat pass.status) $(resigned Carol && echo yes || echo no)" \
	"$(cat pass.log)"

test_begin "a dry run whose IMAP login is refused says it is incomplete, and exits 1"
if [ -n "$no_dovecot" ]; then
	test_skip "$no_dovecot"
	test_done
	exit
fi
dovecot_setup
dovecot_start
printf 'not-the-password\n' >imap-wrong
chmod 0600 imap-wrong
committee_conf dry.conf "source.url=imaps://localhost:$DOVECOT_IMAPS_PORT/INBOX" \
	source.user="$DOVECOT_USER" source.password-file="$W/imap-wrong" \
	source.ca-file="$DOVECOT_CA" "sink.url=smtp://localhost:$SMTP_PORT" \
	"sink.ca-file=$SMTP_CA" sink.user=tenure sink.password-file=smtp-password >/dev/null
"$TENURE" --config "$W/dry.conf" run --dry-run >dry.out 2>dry.err
status=$?
test_expect_equal "1 1 0" \
	"$status $(grep -c '^tenure run --dry-run: INCOMPLETE' dry.out) $(grep -c '^tenure run --dry-run: nothing was written' dry.out)" \
	"$(cat dry.out dry.err)"

test_done
