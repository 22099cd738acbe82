#!/bin/sh
# t-check-config-connect.sh: `tenure check-config --connect` logs in to
# the IMAP source (a private Dovecot) and the SMTP sink (the tests' SMTP
# server) as run would: TLS verified, AUTH, the mailbox selected, then
# LOGOUT and QUIT with no mail sent; one line per step (issue 26, item
# 4).  A wrong IMAP or SMTP password, a CA that did not sign the
# server's certificate, or a closed port is exit 1 and a line naming the
# step and quoting the server.  imaps:// or smtps:// at the servers'
# plain-text port is named as such, with the URL to use (issue 42 item
# 8), and a ca-file that does not exist is a problem without --connect.
# A Maildir source and sink have nothing to connect to.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/dovecot.sh"
. "$top_srcdir/tests/lib/smtp.sh"

dovecot_setup
dovecot_start
smtp_start starttls --auth "tenure:smtp-secret" ||
	test_skip_all "aiosmtpd would not start"

committee_init
cd "$W" || exit 1
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Leo Leader <leo@example.org> $LEO"
gpg_export_keyring keyring.gpg carol@example.org leo@example.org
mkdir -p state
mkdir -m 0700 -p g
printf 'smtp-secret\n' >smtp-password
printf 'wrong-secret\n' >wrong-password
chmod 0600 smtp-password wrong-password

# Two mails in the mailbox, for the count the selection reports.
for n in 1 2; do
	printf 'From: m%s@example.org\nTo: ctte@example.org\nSubject: m%s\nMessage-ID: <m%s@test>\n\nbody\n' \
		"$n" "$n" "$n" >"m/plain$n"
	dovecot_deliver "m/plain$n"
done

# connect [SECTION.KEY=VALUE...]: check-config --connect against the
# servers, with these settings over the good ones; stdout in cc.out,
# stderr in cc.err, both in cc.all, the exit status in $rc.
connect() {
	committee_conf roles.chair="$CAROL" roles.leader="$LEO" \
		committee.contact=secretary@example.org \
		"source.url=imaps://localhost:$DOVECOT_IMAPS_PORT" \
		"source.user=$DOVECOT_USER" \
		"source.password-file=$DOVECOT_PASSWORD_FILE" \
		"source.ca-file=$DOVECOT_CA" \
		"sink.url=smtp://localhost:$SMTP_PORT" \
		sink.user=tenure sink.password-file="$W/smtp-password" \
		"sink.ca-file=$SMTP_CA" "$@"
	rc=0
	"$TENURE" check-config --connect --config "$CONF" >cc.out 2>cc.err || rc=$?
	cat cc.out cc.err >cc.all
}

# expect_line DESCRIPTION STATUS TEXT: exit STATUS, and TEXT (fixed) on
# one line.
expect_line() {
	test_begin "$1"
	if [ "$rc" = "$2" ] && [ "$(grep -cF -- "$3" cc.all)" = 1 ]; then
		test_pass
	else
		test_fail "expected exit $2 and a line with: $3" \
			"got exit $rc:" "$(cat cc.all)"
	fi
}

logins() {
	grep -c "Login: user=<$DOVECOT_USER>" "$DOVECOT_DIR/dovecot.log" || true
}

connect
expect_line "all good: the IMAP server is reached over verified TLS" 0 \
	"imap: connected to imaps://localhost:$DOVECOT_IMAPS_PORT, TLS verified (CN=tenure test server, issued by CN=tenure test ca)"
expect_line "... logged in to" 0 "imap: logged in as $DOVECOT_USER"
expect_line "... the mailbox selected, with its messages counted" 0 \
	"imap: mailbox INBOX selected read-only (EXAMINE): 2 message(s)"
expect_line "... and left" 0 "imap: logged out"
expect_line "the SMTP server is reached over verified STARTTLS" 0 \
	"smtp: connected to localhost:$SMTP_PORT, STARTTLS, TLS verified (CN="
expect_line "... logged in to" 0 "smtp: logged in as tenure (AUTH)"
expect_line "... and left with QUIT, no mail sent" 0 "smtp: QUIT, no mail sent"
test_begin "... the steps come in order, before the configuration's OK"
steps=$(sed -n 's/^\(imap\|smtp\): \([a-zA-Z]*\).*/\1 \2/p' cc.out | tr '\n' ,)
test_expect_equal "imap connected,imap logged,imap mailbox,imap logged,smtp connected,smtp logged,smtp NOOP,smtp QUIT," \
	"$steps"
test_begin "... the SMTP server saw AUTH over TLS, and no mail"
test_expect_equal "1 0 0" \
	"$(grep -c '^AUTH-OK tls' "$SMTP_LOG") $(grep -c '^MAIL' "$SMTP_LOG") $(smtp_count)"
test_begin "... and the mailbox is as it was: nothing read, nothing flagged"
test_expect_equal "2 0" \
	"$(find "$DOVECOT_MAILDIR/new" -type f | wc -l) $(find "$DOVECOT_MAILDIR/cur" -type f | wc -l)"

connect "source.url=imap://localhost:$DOVECOT_IMAP_PORT/INBOX"
expect_line "imap:// is STARTTLS, verified too" 0 \
	"imap: connected to imap://localhost:$DOVECOT_IMAP_PORT, STARTTLS, TLS verified (CN=tenure test server"

connect "source.password-file=$W/wrong-password"
expect_line "a wrong IMAP password: exit 1, the LOGIN step and the server's words" 1 \
	"imap: imaps://localhost:$DOVECOT_IMAPS_PORT: LOGIN: login refused (server said: \""
test_begin "... and the SMTP server is still tried"
test_expect_equal 1 "$(grep -c '^smtp: QUIT, no mail sent' cc.out)" "$(cat cc.all)"

connect "sink.password-file=$W/wrong-password"
expect_line "a wrong SMTP password: exit 1, the AUTH step and the server's words" 1 \
	"smtp: smtp localhost:$SMTP_PORT (tls=starttls): AUTH as tenure: Login denied (server said: 535"

logins_before=$(logins)
connect "source.ca-file=$DOVECOT_DIR/tls/stranger.crt"
expect_line "an untrusted CA for IMAP: exit 1, the TLS step, and no login" 1 \
	"imap: imaps://localhost:$DOVECOT_IMAPS_PORT: TLS certificate refused, not logging in (trusting only $DOVECOT_DIR/tls/stranger.crt): the certificate for localhost is not trusted"
test_begin "... no password went to that server"
test_expect_equal "$logins_before" "$(logins)"

connect "sink.ca-file=$SMTP_OTHER_CA"
expect_line "an untrusted CA for SMTP: exit 1, the TLS step" 1 \
	"smtp: smtp localhost:$SMTP_PORT (tls=starttls): TLS: "

closed=$(test_free_port)
connect "source.url=imaps://localhost:$closed"
expect_line "a closed IMAP port: exit 1, the connect step" 1 \
	"imap: imaps://localhost:$closed: connect: cannot connect: Connection refused"
connect "sink.url=smtp://localhost:$closed"
expect_line "a closed SMTP port: exit 1, the connect step" 1 \
	"smtp: smtp localhost:$closed (tls=starttls): connect: "

connect "source.password-file=$W/no-such-password"
expect_line "a source that cannot be opened is not connected to, and says why above" 1 \
	"source: not connected to: it cannot be opened (the problem is above)"
expect_line "... the problem names the password file" 1 \
	"[source] password-file: $W/no-such-password"
expect_line "... and the SMTP server is still tried" 1 "smtp: QUIT, no mail sent"

# Issue 42 item 8: implicit TLS against a port that speaks plain text.
# The answer names the scheme or the port to use, not GnuTLS's words.
connect "source.url=imaps://localhost:$DOVECOT_IMAP_PORT"
expect_line "imaps:// at the plain IMAP port: exit 1, imap:// (STARTTLS) or imaps:// on 993 named" 1 \
	"imap: imaps://localhost:$DOVECOT_IMAP_PORT: TLS: the server at localhost:$DOVECOT_IMAP_PORT speaks plain text there: use imap://localhost:$DOVECOT_IMAP_PORT (STARTTLS) or imaps://localhost:993"
# (libetpan itself prints GnuTLS's words on stderr, "GnuTLS error: ...":
# tenure's line is the one that must not need them.)
test_begin "... in tenure's words, not GnuTLS's"
test_expect_equal 0 "$(grep '^imap: ' cc.all | grep -ci 'TLS packet\|handshake failed')" "$(cat cc.all)"

connect "sink.url=smtps://localhost:$SMTP_PORT"
expect_line "smtps:// at the plain SMTP port: exit 1, smtp:// with STARTTLS or smtps:// on 465 named" 1 \
	"smtp: smtp localhost:$SMTP_PORT (tls=smtps): TLS: the server at localhost:$SMTP_PORT speaks plain text there: use smtp://localhost:$SMTP_PORT (STARTTLS) or smtps://localhost:465"
test_begin "... in tenure's words, not curl's or GnuTLS's"
test_expect_equal 0 "$(grep -ci 'gnutls\|TLS packet' cc.all)" "$(cat cc.all)"

# A ca-file that does not exist: said without --connect, with the fix.
committee_conf roles.chair="$CAROL" roles.leader="$LEO" \
	"source.ca-file=$W/no-such-ca.pem"
rc=0
"$TENURE" check-config --config "$CONF" >cc.all 2>&1 || rc=$?
expect_line "a missing ca-file: exit 1 without --connect, the file named and the fix" 1 \
	"[source] ca-file: $W/no-such-ca.pem: No such file or directory: no server certificate can be checked against it, so tenure would not connect; fix: set ca-file to the CA certificate (PEM) that signed the server's, or remove it to trust the system's CAs"

committee_conf roles.chair="$CAROL" roles.leader="$LEO"
rc=0
"$TENURE" check-config --connect --config "$CONF" >cc.all 2>&1 || rc=$?
expect_line "a Maildir source has nothing to connect to" 0 \
	"source: maildir:$W/inbox is a mailbox on this host: nothing to connect to"
expect_line "... nor a Maildir sink" 0 \
	"sink: maildir:$W/sent is a Maildir on this host: nothing to connect to"

test_done
