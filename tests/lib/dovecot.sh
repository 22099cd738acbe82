# tests/lib/dovecot.sh: a private Dovecot for the IMAP scenarios and the
# benchmarks, sourced after tests/lib/common.sh.
#
#   dovecot_setup             make a test CA, certificates, a passwd-file user
#                             and a Maildir under $DOVECOT_DIR (no server yet)
#   dovecot_start [CERT]      start Dovecot on free loopback ports with the
#                             certificate CERT (default "server": signed by
#                             the test CA for localhost and 127.0.0.1;
#                             "wrongname": the test CA, for another name;
#                             "selfsigned": signed by no CA the client knows;
#                             "none": no TLS at all, so no STARTTLS and no
#                             imaps listener).  $DOVECOT_EXTRA, if set, is
#                             appended to the configuration (e.g. an
#                             imap_capability without IDLE).
#   dovecot_stop, dovecot_restart [CERT]
#   dovecot_deliver FILE      deliver FILE into the user's INBOX (doveadm save)
#   dovecot_append FILE [WHEN]  append FILE to INBOX over IMAP (python
#                             imaplib), with WHEN (Unix time) for its
#                             INTERNALDATE if given: mail that "arrived"
#                             then, by the server's clock (a past time:
#                             Dovecot makes a future one now)
#   dovecot_uidvalidity, dovecot_uidnext   the INBOX's current values
#   dovecot_reset_uidvalidity  give INBOX a new UIDVALIDITY (UIDs restart)
#
# After dovecot_setup: $DOVECOT_CA (the test CA), $DOVECOT_USER and
# $DOVECOT_PASSWORD_FILE (mode 0600), $DOVECOT_MAILDIR.  After
# dovecot_start: $DOVECOT_IMAP_PORT (plain, STARTTLS offered) and
# $DOVECOT_IMAPS_PORT (TLS from the first byte).  The server is stopped at
# exit through test_cleanup.
#
# Run by root, the instance is set up as a packaged Dovecot is: Dovecot
# refuses to run its login processes as root, so they run as dovenull,
# its internal processes as dovecot, and mail is stored as the mail user;
# the test directory is made traversable for them.  Run by anyone else,
# every process of the instance runs as that user (Dovecot's "running
# without root": no chroot, no change of user), so that a contributor's
# `make check` exercises IMAP too.

DOVECOT_USER=tenure
DOVECOT_PASSWORD=list-secret

# dovecot_missing: what this host lacks to run the private Dovecot, or
# nothing (and a non-zero status) when it has it all.  dovecot and
# doveadm are found in /usr/sbin, where Debian installs them, whatever
# the caller's PATH (tests/lib/common.sh).  A script that has checks
# without IMAP asks before its first result and skips the IMAP ones.
dovecot_missing() {
	if ! command -v dovecot >/dev/null 2>&1 || ! command -v doveadm >/dev/null 2>&1; then
		echo "dovecot is not installed (dovecot-imapd)"
	elif ! command -v certtool >/dev/null 2>&1 && ! command -v openssl >/dev/null 2>&1; then
		echo "neither certtool (gnutls-bin) nor openssl is installed"
	else
		return 1
	fi
}

dovecot_setup() {
	local missing
	missing=$(dovecot_missing) && test_skip_all "$missing"
	DOVECOT_DIR=$TEST_DIR/dovecot
	mkdir -p "$DOVECOT_DIR/run" "$DOVECOT_DIR/state" "$DOVECOT_DIR/home" \
		"$DOVECOT_DIR/tls"
	chmod 0711 "$TEST_DIR"
	chmod 0755 "$DOVECOT_DIR" "$DOVECOT_DIR/run"
	DOVECOT_MAILDIR=$DOVECOT_DIR/home/$DOVECOT_USER/Maildir
	mkdir -p "$DOVECOT_MAILDIR/new" "$DOVECOT_MAILDIR/cur" "$DOVECOT_MAILDIR/tmp"
	[ "$(id -u)" -eq 0 ] && chown -R mail:mail "$DOVECOT_DIR/home"
	chmod -R go-rwx "$DOVECOT_DIR/home"

	printf '%s:{PLAIN}%s::::::\n' "$DOVECOT_USER" "$DOVECOT_PASSWORD" \
		>"$DOVECOT_DIR/passwd"
	if [ "$(id -u)" -eq 0 ]; then
		chown root:dovecot "$DOVECOT_DIR/passwd"
		chmod 0640 "$DOVECOT_DIR/passwd"
	else
		chmod 0600 "$DOVECOT_DIR/passwd"
	fi
	DOVECOT_PASSWORD_FILE=$TEST_DIR/imap-password
	printf '%s\n' "$DOVECOT_PASSWORD" >"$DOVECOT_PASSWORD_FILE"
	chmod 0600 "$DOVECOT_PASSWORD_FILE"

	_dovecot_make_certificates
	DOVECOT_CA=$DOVECOT_DIR/tls/ca.crt
	export DOVECOT_DIR DOVECOT_MAILDIR DOVECOT_CA DOVECOT_USER \
		DOVECOT_PASSWORD_FILE
}

# Two CAs: the test CA, which the client is told to trust, and a stranger
# nobody trusts.  The certificates live only as long as the test; they
# are made with certtool (gnutls-bin), or openssl where that is missing.
_dovecot_make_certificates() {
	local tls=$DOVECOT_DIR/tls
	(
		cd "$tls" || exit 1
		for ca in ca stranger; do
			_dovecot_ca "$ca" || exit 1
		done
		_dovecot_issue server ca "localhost" "127.0.0.1" &&
			_dovecot_issue wrongname ca "mail.example.org" "" &&
			_dovecot_issue selfsigned stranger "localhost" "127.0.0.1"
	) >"$DOVECOT_DIR/tls.log" 2>&1 || {
		cat "$DOVECOT_DIR/tls.log" >&2
		test_skip_all "could not make test certificates"
	}
	chmod 0644 "$tls"/*.crt
}

# The test certificates hold for any day a test sets tenure's clock to
# (tests/lib/common.sh, tenure_at: years ahead or back; GnuTLS checks them on
# that clock).  openssl's cannot start before today.
_DOVECOT_VALIDITY='activation_date = "2000-01-01 00:00:00 UTC"
expiration_date = "2099-12-31 23:59:59 UTC"
'

_dovecot_ca() {
	if command -v certtool >/dev/null 2>&1; then
		certtool --generate-privkey --key-type=ecdsa --curve=secp256r1 \
			--outfile "$1.key" &&
			printf 'cn = "tenure test %s"\nca\ncert_signing_key\ncrl_signing_key\n%s' \
				"$1" "$_DOVECOT_VALIDITY" >"$1.tmpl" &&
			certtool --generate-self-signed --load-privkey "$1.key" \
				--template "$1.tmpl" --outfile "$1.crt"
	else
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
			-nodes -keyout "$1.key" -out "$1.crt" -days 36500 \
			-subj "/CN=tenure test $1" \
			-addext basicConstraints=critical,CA:TRUE \
			-addext keyUsage=critical,keyCertSign,cRLSign
	fi
}

# _dovecot_issue NAME CA DNS-NAME IP: a server certificate signed by CA.
_dovecot_issue() {
	local name=$1 ca=$2 dns=$3 ip=$4
	if command -v certtool >/dev/null 2>&1; then
		certtool --generate-privkey --key-type=ecdsa --curve=secp256r1 \
			--outfile "$name.key" || return 1
		{
			printf 'cn = "tenure test %s"\ndns_name = "%s"\n' "$name" "$dns"
			[ -n "$ip" ] && printf 'ip_address = "%s"\n' "$ip"
			printf 'tls_www_server\nsigning_key\n%s' "$_DOVECOT_VALIDITY"
		} >"$name.tmpl"
		certtool --generate-certificate --load-privkey "$name.key" \
			--load-ca-certificate "$ca.crt" --load-ca-privkey "$ca.key" \
			--template "$name.tmpl" --outfile "$name.crt"
	else
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
			-keyout "$name.key" -out "$name.csr" -subj "/CN=tenure test $name" &&
			printf 'subjectAltName=DNS:%s%s\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' \
				"$dns" "${ip:+,IP:$ip}" >"$name.ext" &&
			openssl x509 -req -in "$name.csr" -CA "$ca.crt" -CAkey "$ca.key" \
				-CAcreateserial -days 36500 -extfile "$name.ext" -out "$name.crt"
	fi
}

# The users Dovecot's processes run as, and the ones it may store mail
# as: the packaged ones for root, the running user for anyone else.
_dovecot_users() {
	if [ "$(id -u)" -eq 0 ]; then
		cat <<EOF
default_login_user = dovenull
default_internal_user = dovecot
first_valid_uid = 8
first_valid_gid = 8
EOF
		return
	fi
	cat <<EOF
default_login_user = $(id -un)
default_internal_user = $(id -un)
default_internal_group = $(id -gn)
first_valid_uid = $(id -u)
first_valid_gid = $(id -g)
service anvil {
  chroot =
}
service imap-login {
  chroot =
}
EOF
}

_dovecot_mail_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		echo "uid=mail gid=mail"
	else
		echo "uid=$(id -u) gid=$(id -g)"
	fi
}

_dovecot_write_config() {
	local cert=$1 tls imaps_ssl=yes
	if [ "$cert" = none ]; then
		tls="ssl = no"
		imaps_ssl=no
	else
		tls="ssl = yes
ssl_cert = <$DOVECOT_DIR/tls/$cert.crt
ssl_key = <$DOVECOT_DIR/tls/$cert.key"
	fi
	cat >"$DOVECOT_DIR/dovecot.conf" <<EOF
base_dir = $DOVECOT_DIR/run
state_dir = $DOVECOT_DIR/state
instance_name = tenure-test-$$
log_path = $DOVECOT_DIR/dovecot.log
protocols = imap
listen = 127.0.0.1
$tls
disable_plaintext_auth = yes
auth_mechanisms = plain login
$(_dovecot_users)
mail_location = maildir:~/Maildir
passdb {
  driver = passwd-file
  args = scheme=PLAIN $DOVECOT_DIR/passwd
}
userdb {
  driver = static
  args = $(_dovecot_mail_owner) home=$DOVECOT_DIR/home/%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $DOVECOT_IMAP_PORT
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = $DOVECOT_IMAPS_PORT
    ssl = $imaps_ssl
  }
}
service stats {
  inet_listener http {
    port = 0
  }
}
${DOVECOT_EXTRA:-}
EOF
}

dovecot_start() {
	local cert=${1:-server}
	: "${DOVECOT_IMAP_PORT:=$(test_free_port)}"
	: "${DOVECOT_IMAPS_PORT:=$(test_free_port)}"
	export DOVECOT_IMAP_PORT DOVECOT_IMAPS_PORT
	_dovecot_write_config "$cert"
	if ! dovecot -c "$DOVECOT_DIR/dovecot.conf"; then
		cat "$DOVECOT_DIR/dovecot.log" >&2 2>/dev/null
		test_skip_all "dovecot did not start"
	fi
	if [ -z "${_dovecot_cleanup_set:-}" ]; then
		test_cleanup "dovecot_stop"
		_dovecot_cleanup_set=1
	fi
	_dovecot_wait_port "$DOVECOT_IMAP_PORT" && _dovecot_wait_port "$DOVECOT_IMAPS_PORT" ||
		test_skip_all "dovecot does not listen on 127.0.0.1:$DOVECOT_IMAP_PORT"
}

_dovecot_wait_port() {
	local i
	for i in $(seq 100); do
		if /usr/bin/python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $1), 1).close()" 2>/dev/null; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

dovecot_stop() {
	[ -f "$DOVECOT_DIR/run/master.pid" ] || return 0
	local pid children
	pid=$(cat "$DOVECOT_DIR/run/master.pid")
	# Logged-in imap processes outlive their master for a while; a real
	# restart (systemd kills the whole control group) ends them too.
	children=$(pgrep -P "$pid" 2>/dev/null | tr '\n' ' ')
	doveadm -c "$DOVECOT_DIR/dovecot.conf" stop >/dev/null 2>&1 || kill "$pid" 2>/dev/null
	# shellcheck disable=SC2086
	[ -n "$children" ] && kill $children 2>/dev/null
	# Wait for them all to go, so that the ports are free again.
	local i p
	for i in $(seq 100); do
		local alive=
		for p in $pid $children; do
			kill -0 "$p" 2>/dev/null && alive=1
		done
		[ -z "$alive" ] && break
		sleep 0.05
	done
	# shellcheck disable=SC2086
	kill -9 $pid $children 2>/dev/null
	rm -f "$DOVECOT_DIR/run/master.pid"
	return 0
}

dovecot_restart() {
	dovecot_stop
	dovecot_start "$@"
}

dovecot_deliver() {
	doveadm -c "$DOVECOT_DIR/dovecot.conf" save -u "$DOVECOT_USER" <"$1"
}

_dovecot_status() {
	doveadm -c "$DOVECOT_DIR/dovecot.conf" -f flow mailbox status \
		-u "$DOVECOT_USER" "$1" INBOX | sed 's/.*=//'
}

dovecot_uidvalidity() {
	_dovecot_status uidvalidity
}

dovecot_uidnext() {
	_dovecot_status uidnext
}

dovecot_messages() {
	_dovecot_status messages
}

# A UIDVALIDITY change, as after a server migration: the index and the
# Maildir's UID list are thrown away and Dovecot renumbers every message.
dovecot_reset_uidvalidity() {
	dovecot_stop
	rm -f "$DOVECOT_MAILDIR"/dovecot-uidlist "$DOVECOT_MAILDIR"/dovecot.index*
	# Dovecot takes the current time as the new UIDVALIDITY; make sure it
	# differs from the old one.
	sleep 1.1
	dovecot_start "${1:-server}"
}

# dovecot_append FILE [WHEN]: appends FILE to INBOX over IMAP (APPEND on
# an imaps connection), as a list server or a mail client would; WHEN
# (Unix time) becomes its INTERNALDATE.
dovecot_append() {
	/usr/bin/python3 - "$DOVECOT_IMAPS_PORT" "$DOVECOT_CA" "$DOVECOT_USER" \
		"$DOVECOT_PASSWORD_FILE" "$1" "${2:-}" <<'PY'
import imaplib, ssl, sys
port, ca, user, password_file, message, when = sys.argv[1:]
imap = imaplib.IMAP4_SSL("localhost", int(port),
                         ssl_context=ssl.create_default_context(cafile=ca))
imap.login(user, open(password_file).read().strip())
date = imaplib.Time2Internaldate(int(when)) if when else None
status, _ = imap.append("INBOX", None, date, open(message, "rb").read())
imap.logout()
sys.exit(0 if status == "OK" else 1)
PY
}
