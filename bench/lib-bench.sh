# bench/lib-bench.sh: what the transport benchmarks share.  Source after
# tests/lib/common.sh, tests/lib/dovecot.sh, tests/lib/gpg.sh and tests/lib/smtp.sh, with Dovecot
# and the SMTP server started.
#
#   bench_members N        N members "Trial 1".."Trial N" with keys, a
#                          ledger appointing them ($CASE/ledger), their
#                          keyring and a signed resignation from each in
#                          $CASE/mails/Trial-I
#   bench_conf [LINE]      $CASE/tenure.conf for Dovecot (imaps) and the
#                          SMTP server; LINE goes into [committee]
#   bench_start_daemon     `tenure run` in the background, logging to
#                          $CASE/log; returns once it is connected
#   bench_stop_daemon      SIGTERM, and a count of the errors it logged

CASE=$TEST_DIR/bench
mkdir -p "$CASE/mails"

bench_members() {
	local n=$1 i fpr emails=
	gpg_world_init
	MAIL_LIST=ctte@lists.example.org
	TENURE_GNUPG=$(mktemp -d /tmp/tn.XXXXXX)
	test_cleanup "gpgconf --homedir $TENURE_GNUPG --kill all; rm -rf $TENURE_GNUPG"
	: >"$CASE/ledger"
	for i in $(seq "$n"); do
		fpr=$(gpg_new_key "Trial $i" "trial$i@example.org")
		emails="$emails trial$i@example.org"
		printf 'Event: appoint\nDate: 2025-01-01\nMember: Trial %s <trial%s@example.org>\nFingerprint: %s\nProject-Joined: 2000-01-01\nSource: import\n\n' \
			"$i" "$i" "$fpr" >>"$CASE/ledger"
	done
	# shellcheck disable=SC2086
	gpg_export_keyring "$CASE/keyring.gpg" $emails
	for i in $(seq "$n"); do
		clearsigned_entity "trial$i@example.org" "Tenure: resign" >"$CASE/entity"
		mail_message "trial$i@example.org" "resign-$i-$$@example.org" \
			"$CASE/entity" >"$CASE/mails/Trial-$i"
	done
}

bench_conf() {
	cat >"$CASE/tenure.conf" <<EOF
[committee]
name = Technical Committee
list = ctte@lists.example.org
ledger = $CASE/ledger
state-dir = $CASE/state
templates = $top_srcdir/templates
${1:-}

[keys]
keyring = $CASE/keyring.gpg
gnupg-home = $TENURE_GNUPG

[source]
url = imaps://localhost:$DOVECOT_IMAPS_PORT
user = $DOVECOT_USER
password-file = $DOVECOT_PASSWORD_FILE
ca-file = $DOVECOT_CA

[sink]
url = smtp://127.0.0.1:$SMTP_PORT
from = ctte-bot@example.org
ca-file = $SMTP_CA
EOF
}

bench_start_daemon() {
	"$TENURE" --config "$CASE/tenure.conf" run 2>"$CASE/log" &
	DAEMON=$!
	test_cleanup "kill $DAEMON"
	local i=0
	until grep -q "^imap-connected" "$CASE/log"; do
		i=$((i + 1))
		if [ $i -gt 200 ]; then
			cat "$CASE/log" >&2
			exit 1
		fi
		sleep 0.05
	done
}

bench_stop_daemon() {
	kill "$DAEMON"
	wait "$DAEMON" 2>/dev/null
	echo "# daemon errors logged: $(grep -c '^run-error' "$CASE/log")"
}
