#!/bin/sh
# t-clock.sh: tenure doubts its own clock before it acts irrevocably.
# tenure's clock is moved with libfaketime (the monotonic and boot clocks
# left alone, as a real clock jump leaves them):
#   - jumped 40 days past a term's end: no expire event is appended, no
#     expiry announced, the log and `status` say why; mail from the
#     ledger is still announced; back on the right clock, it is trusted;
#   - a year ahead while the SMTP server is down: back on the right
#     clock the mail goes out at once, not a year later;
#   - behind the real Dovecot's clock (the INTERNALDATE of mail already
#     in the mailbox): the daemon says so (a failure without Dovecot);
#   - an SMTP server whose greeting gives the date (as Exim's does)
#     settles a disagreement with tenure's own last pass.
#   - a server on this host is no witness: the local MTA 40 days ahead
#     vouches for nothing, and a member's command waits in the source
#     (TENURE_TEST_CLOCK_LOCAL_WITNESS=1 makes the tests' loopback
#     servers witnesses where a section needs one);
#   - the kernel's NTP state (TENURE_TEST_CLOCK_NTP) ends a doubt after
#     a 15-minute correction; status and the JSON say when and why;
#   - a torn record holds the acts, logs clock-doubt, and ends with
#     `tenure clock trust`; a jump across a reboot with no witness waits
#     for the admin; a fresh install acts; a start waits for a witness
#     heard before.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/smtp.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
[ -r /proc/sys/kernel/random/boot_id ] || test_skip_all "no boot id"
smtp_start plain || test_skip_all "aiosmtpd would not start"

# A real clock jump moves neither the monotonic clock nor the boot clock.
# The clocks are read in whole seconds, so a jump of 40 days may be told
# as 39 days 23 h.
FAKETIME_DONT_FAKE_MONOTONIC=1
export FAKETIME_DONT_FAKE_MONOTONIC
# The kernel's NTP state is the tests' (clock.h): not synchronised, as
# on a machine with no NTP, whatever this machine's is.
TENURE_TEST_CLOCK_NTP=unsynced
export TENURE_TEST_CLOCK_NTP

committee_init
in40=$(date -u -d '40 days' +%F)

# fixed_term_committee DIR: Erin's one-year term ends in 19 days, Frank's
# in ten months; the configuration in DIR/tenure.conf, from the rest.
fixed_term_committee() {
	mkdir -p "$1"
	CONF=$1/tenure.conf
	printf 'Event: rule\nDate: %s\nRule: fixed-term\nParameters: term=1y\nSource: import\n\nEvent: appoint\nDate: %s\nMember: Erin Example <erin@example.org>\nSource: import\n\nEvent: appoint\nDate: %s\nMember: Frank Example <frank@example.org>\nSource: import\n' \
		"$two_years_ago" "$(date -u -d '345 days ago' +%F)" \
		"$(date -u -d '60 days ago' +%F)" >"$1/ledger"
	: >"$1/keyring.gpg"
	mkdir -p "$1/inbox/new" "$1/inbox/cur" "$1/inbox/tmp"
	shift
	committee_conf "$CONF" rule.name=fixed-term rule.term=1y \
		"committee.ledger=$(dirname "$CONF")/ledger" \
		"committee.state-dir=$(dirname "$CONF")/state" \
		"keys.keyring=$(dirname "$CONF")/keyring.gpg" \
		"source.url=maildir:$(dirname "$CONF")/inbox" \
		"sink.url=maildir:$(dirname "$CONF")/sent" "$@"
}

once() {
	"$TENURE" --config "$CONF" run --once >>"$DIR/out" 2>>"$DIR/log"
}

later() {
	local when=$1
	shift
	"$FAKED" "$when" "$TENURE" --config "$CONF" "$@"
}

expires() {
	grep -c '^Event: expire' "$DIR/ledger"
}

# The mails the Maildir sink got whose subject has TEXT.
mails() {
	grep -l "^Subject: .*$1" "$DIR"/sent/new/* 2>/dev/null | wc -l | tr -d ' '
}

# --- A jump forward past a term's end ---------------------------------

DIR=$W/jump
fixed_term_committee "$DIR"
test_begin "on the right clock: nothing has expired, the pass is recorded"
once
test_expect_equal "0 0 yes" "$? $(expires) $([ -s "$DIR/state/clock" ] && echo yes)"

printf '\nEvent: resign\nDate: %s\nMember: Frank Example <frank@example.org>\nSource: <resign-frank@example.org>\n' \
	"$in40" >>"$DIR/ledger"
test_begin "the clock 40 days ahead: no expire event, no expiry announced, run --once exits 1 saying why"
later +40d run --once >>"$DIR/out" 2>>"$DIR/log"
status=$?
test_expect_equal "1 0 0 1 1 1" \
	"$status $(expires) $(mails 'Erin Example expired') $(grep -c '^clock-doubt reason="tenure.s clock moved \(39 days 23\|40 days 0\) h further than the time since its last pass' "$DIR/log") $(grep -q '^expiry-held member="Erin Example <erin@example.org>"' "$DIR/log" && echo 1) $(grep -c '^tenure run: tenure doubts its clock' "$DIR/log")"

test_begin "while in doubt, what the ledger records from mail is still announced"
test_expect_equal "1" "$(mails 'Frank Example resigns')"

test_begin "tenure status says that tenure doubts its clock, since when and why"
later +40d status >"$DIR/status" 2>&1
later +40d status --format=json >"$DIR/status.json" 2>&1
test_expect_equal "1 1 moved 1" \
	"$(grep -c '^warning: tenure doubts its clock since [0-9-]* [0-9:]* UTC; expiries, their announcements, reminders and commands wait' "$DIR/status") $(grep -c '^Clock: tenure.s clock moved \(39 days 23\|40 days 0\) h further than the time since its last pass' "$DIR/status") $(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["clock_doubt"]["reason"].split()[2], sum(w["code"] == "clock" for w in d["warnings"]))' "$DIR/status.json")"

test_begin "the JSON with the doubt is valid under the schema"
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	test_expect_equal "ok" "$(/usr/bin/python3 -c '
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
errors = [e.message[:200] for e in jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2])))]
print("\n".join(errors) or "ok")' "$top_srcdir/doc/tenure.schema.json" "$DIR/status.json")"
else
	test_fail "python3-jsonschema is not installed"
fi

test_begin "back on the right clock: tenure trusts it again, still nothing expired"
once
status=$?
"$TENURE" --config "$CONF" status >"$DIR/status" 2>&1
test_expect_equal "0 0 1 0" \
	"$status $(expires) $(grep -c '^clock-trusted' "$DIR/log") $(grep -c 'doubts its clock' "$DIR/status")"

# --- Backoff set by a clock a year ahead -------------------------------

DIR=$W/backoff
fixed_term_committee "$DIR" "sink.url=smtp://127.0.0.1:$SMTP_PORT" \
	sink.starttls=no rule.name=none rule.term=
# Her resignation takes effect in a year; recorded from her mail, it is
# announced at once.
printf '\nEvent: resign\nDate: %s\nMember: Erin Example <erin@example.org>\nSource: <resign-erin@example.org>\n' \
	"$(date -u -d '365 days' +%F)" >>"$DIR/ledger"
sed -i 's/^Rule: fixed-term/Rule: none/; /^Parameters:/d' "$DIR/ledger"
smtp_stop
delivered() {
	grep -l 'Erin Example resigns' "$SMTP_MAILDIR"/new/* 2>/dev/null |
		wc -l | tr -d ' '
}
before=$(delivered)
test_begin "a year ahead, the SMTP server down: the mail is deferred"
later +365d run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "1 1" \
	"$? $(grep -c '^deferred .*retry-in=60 ' "$DIR/log")" "$(cat "$DIR/log")"

test_begin "back on the right clock, the server up: the mail goes out at once, not a year later"
smtp_start plain --port "$SMTP_PORT"
once
test_expect_equal "$((before + 1)) 1 0" \
	"$(delivered) $(grep -c '^retry-now .*further ahead than the longest backoff' "$DIR/log") $(ls "$DIR/state/outbox/queue" | wc -l | tr -d ' ')" \
	"$(cat "$DIR/log")"

# --- An SMTP server that gives its date settles it ---------------------

DIR=$W/smtpdate
fixed_term_committee "$DIR" "sink.url=smtp://127.0.0.1:$SMTP_PORT" \
	sink.starttls=no source.poll-interval=1
echo 0 >"$SMTP_CONTROL.date"
test_begin "a first pass with the clock 40 days ahead and no witness is recorded as the last pass"
later +40d run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "0" "$(grep -c '^clock-doubt' "$DIR/log")"
# The tests' SMTP server is on this host: a witness only as the tests
# say so.
TENURE_TEST_CLOCK_LOCAL_WITNESS=1
export TENURE_TEST_CLOCK_LOCAL_WITNESS

# Back on the right clock the last pass disagrees; the SMTP server's
# greeting, read when the announcement of a new event goes out, agrees:
# the daemon trusts its clock again.
printf '\nEvent: resign\nDate: %s\nMember: Frank Example <frank@example.org>\nSource: <resign-frank@example.org>\n' \
	"$today" >>"$DIR/ledger"
"$TENURE" --config "$CONF" run 2>"$DIR/daemon.log" &
pid=$!
test_cleanup "kill $pid"
test_begin "back on the right clock: the last pass disagrees, the SMTP server's date settles it"
if wait_for 20 'grep -q "^clock-trusted" "$DIR/daemon.log"'; then
	test_expect_equal "1 1" \
		"$(grep -c '^clock-doubt reason="tenure.s clock moved \(39 days 23\|40 days 0\) h less than the time since its last pass' "$DIR/daemon.log") $(grep -c '^clock-trusted .*why="the SMTP server 127.0.0.1:[0-9]* agrees"' "$DIR/daemon.log")"
else
	test_fail "no clock-trusted within 20 s" "$(cat "$DIR/daemon.log")"
fi
kill -TERM $pid
wait $pid
rm -f "$SMTP_CONTROL.date"
unset TENURE_TEST_CLOCK_LOCAL_WITNESS

# --- Behind the IMAP server's clock ------------------------------------

if command -v dovecot >/dev/null && command -v certtool >/dev/null; then
	. "$top_srcdir/tests/lib/dovecot.sh"
	dovecot_setup
	# tenure three days behind must find the test certificates valid:
	# made again, valid from a week ago.
	(
		cd "$DOVECOT_DIR/tls" || exit 1
		from=$(date -u -d '7 days ago' '+%Y-%m-%d %H:%M:%S')
		to=$(date -u -d '2 days' '+%Y-%m-%d %H:%M:%S')
		printf 'cn = "tenure test ca"\nca\ncert_signing_key\nactivation_date = "%s UTC"\nexpiration_date = "%s UTC"\n' \
			"$from" "$to" >ca.tmpl &&
			certtool --generate-self-signed --load-privkey ca.key \
				--template ca.tmpl --outfile ca.crt &&
			printf 'cn = "tenure test server"\ndns_name = "localhost"\nip_address = "127.0.0.1"\ntls_www_server\nsigning_key\nactivation_date = "%s UTC"\nexpiration_date = "%s UTC"\n' \
				"$from" "$to" >server.tmpl &&
			certtool --generate-certificate --load-privkey server.key \
				--load-ca-certificate ca.crt --load-ca-privkey ca.key \
				--template server.tmpl --outfile server.crt
	) >"$W/certs.log" 2>&1 || cat "$W/certs.log" >&2
	chmod 0644 "$DOVECOT_DIR"/tls/*.crt
	dovecot_start
	printf 'From: someone@example.org\nTo: ctte@lists.example.org\nMessage-ID: <hello@example.org>\nSubject: hello\n\nhello\n' \
		>"$W/hello.eml"
	dovecot_deliver "$W/hello.eml"
	DIR=$W/imap
	TENURE_TEST_CLOCK_LOCAL_WITNESS=1
	export TENURE_TEST_CLOCK_LOCAL_WITNESS
	fixed_term_committee "$DIR" \
		"source.url=imaps://127.0.0.1:$DOVECOT_IMAPS_PORT/INBOX" \
		"source.user=$DOVECOT_USER" \
		"source.password-file=$DOVECOT_PASSWORD_FILE" \
		"source.ca-file=$DOVECOT_CA" source.poll-interval=1
	"$FAKED" -3d "$TENURE" --config "$CONF" run \
		2>"$DIR/daemon.log" &
	pid=$!
	test_cleanup "kill $pid"
	test_begin "three days behind the IMAP server: the daemon doubts its clock and says so"
	if wait_for 20 'grep -q "^clock-doubt" "$DIR/daemon.log"'; then
		later -3d status >"$DIR/status" 2>&1
		test_expect_equal "1 1" \
			"$(grep -c '^clock-doubt reason="the IMAP server imaps://127.0.0.1:[0-9]* has passed .* already: tenure.s clock is \(2 days 23\|3 days 0\) h behind' "$DIR/daemon.log") $(grep -c '^Clock: the IMAP server' "$DIR/status")"
	else
		test_fail "no clock-doubt within 20 s" "$(cat "$DIR/daemon.log")"
	fi
	kill -TERM $pid
	wait $pid
else
	test_begin "three days behind the IMAP server: the daemon doubts its clock and says so"
	test_skip "needs dovecot (dovecot-imapd) and certtool (gnutls-bin)"
fi


# --- A clock on the same host is no witness ---------------------------

# The host's clock 40 days ahead, and the local MTA's with it: its
# greeting vouches for nothing, the expiry waits, and so does a
# member's command (no verdict, no date from the wrong clock).
unset TENURE_TEST_CLOCK_LOCAL_WITNESS
DIR=$W/local
fixed_term_committee "$DIR" "sink.url=smtp://127.0.0.1:$SMTP_PORT" \
	sink.starttls=no source.poll-interval=1
FRANK=$(gpg_new_key "Frank Example" frank@example.org)
gpg_export_keyring "$DIR/keyring.gpg" frank@example.org
sed -i "/^Member: Frank Example/a Fingerprint: $FRANK" "$DIR/ledger"
rm -f "$SMTP_CONTROL.date"
once
echo $((40 * 86400)) >"$SMTP_CONTROL.date"
deliver "$DIR/inbox" "$(signed_mail "$FRANK" frank@example.org local-resign "Tenure: resign")"
test_begin "40 days ahead with the local SMTP server's clock: no expiry, the command waits in the source"
# The daemon, so that a greeting read in one pass would count in the
# next (as it did: the expiry was recorded 20 days early).
"$FAKED" +40d "$TENURE" --config "$CONF" run 2>>"$DIR/log" &
pid=$!
wait_for 10 'grep -q "^clock-doubt" "$DIR/log"'
sleep 5
kill -TERM $pid
wait $pid
test_expect_equal "0 0 1 1" \
	"$(expires) $(grep -c '^Event: resign' "$DIR/ledger") $(ls "$DIR/inbox/new" | wc -l | tr -d ' ') $(grep -c '^clock-doubt reason="tenure.s clock moved' "$DIR/log")" \
	"$(cat "$DIR/log")"
rm -f "$SMTP_CONTROL.date"
test_begin "back on the right clock: the command is applied, dated by the right clock"
once
test_expect_equal "0 0 1 $today" \
	"$? $(expires) $(grep -c '^Event: resign' "$DIR/ledger") $(awk 'BEGIN { RS = "" } /Event: resign/ { sub(/.*Date: /, ""); sub(/\n.*/, ""); print }' "$DIR/ledger")" \
	"$(cat "$DIR/log")"

# --- The kernel's NTP state is a witness ------------------------------

# A 15-minute correction: the last pass was 15 minutes ahead; back on
# the right clock the last pass disagrees until the kernel says its
# clock is synchronised.
DIR=$W/ntp
fixed_term_committee "$DIR"
later +15m run --once >>"$DIR/out" 2>>"$DIR/log"
test_begin "after a 15-minute correction without NTP: tenure doubts its clock"
once
test_expect_equal "1 1" "$? $(grep -c '^clock-doubt reason="tenure.s clock moved 1[2-5] min less' "$DIR/log")"
test_begin "the kernel's clock synchronised (NTP): the doubt ends at the next pass, status says when and why"
TENURE_TEST_CLOCK_NTP=synced once
status=$?
"$TENURE" --config "$CONF" status >"$DIR/status" 2>&1
"$TENURE" --config "$CONF" status --format=json >"$DIR/status.json" 2>&1
test_expect_equal "0 1 0 1" \
	"$status $(grep -c '^clock-trusted was="tenure.s clock moved 1[2-5] min less.*why="the kernel.s clock is synchronised (NTP)"' "$DIR/log") $(grep -c 'doubts its clock' "$DIR/status") $(grep -c '^Clock: trusted since [0-9-]* [0-9:]* UTC, when the kernel.s clock is synchronised (NTP); the doubt since [0-9-]* [0-9:]* UTC was: tenure.s clock moved 1[2-5] min less' "$DIR/status")" \
	"$(cat "$DIR/log" "$DIR/status")"
test_begin "... and the JSON says so (clock_trusted), valid under the schema"
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	test_expect_equal "the kernel's clock is synchronised (NTP) moved ok" "$(/usr/bin/python3 -c '
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
errors = [e.message[:200] for e in jsonschema.Draft202012Validator(schema).iter_errors(d)]
print(d["clock_trusted"]["why"], d["clock_trusted"]["was"].split()[2], "\n".join(errors) or "ok")' "$top_srcdir/doc/tenure.schema.json" "$DIR/status.json")"
else
	test_fail "python3-jsonschema is not installed"
fi

# --- A torn record --------------------------------------------------------

DIR=$W/torn
fixed_term_committee "$DIR"
once
printf 'torn' >>"$DIR/state/clock"
test_begin "a torn clock record, the clock 40 days ahead: nothing expires, and the log says why"
later +40d run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "1 0 1" \
	"$? $(expires) $(grep -c '^clock-doubt reason="the clock record cannot be read' "$DIR/log")"
test_begin "tenure clock trust ends it: logged, shown by status, and the next pass acts"
"$TENURE" --config "$CONF" clock trust >"$DIR/trust.out" 2>>"$DIR/log"
status=$?
"$TENURE" --config "$CONF" status >"$DIR/status" 2>&1
once
test_expect_equal "0 1 1 0 0" \
	"$status $(grep -c '^clock-trust by=admin was="the clock record cannot be read' "$DIR/log") $(grep -c '^Clock: trusted since .*when the admin trusted it (tenure clock trust); the doubt since .* was: the clock record cannot be read' "$DIR/status") $? $(expires)" \
	"$(cat "$DIR/log" "$DIR/status")"

# --- A start is not a clean slate -----------------------------------------

# fake_reboot: the clock record says its last pass was in another boot.
fake_reboot() {
	sed -i 's/^Boot-Id: .*/Boot-Id: 00000000-0000-0000-0000-000000000000/' \
		"$DIR/state/clock"
	state_reseal "$DIR/state/clock"
}

DIR=$W/reboot
fixed_term_committee "$DIR"
once
fake_reboot
test_begin "no witness configured, 20 days ahead across a reboot: nothing expires until the admin trusts the clock"
later +20d run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "1 0 1" \
	"$? $(expires) $(grep -c '^clock-doubt reason="tenure.s clock moved \(19 days 23\|20 days 0\) h across a restart' "$DIR/log")" \
	"$(cat "$DIR/log")"
test_begin "after tenure clock trust, the next pass records the expiry"
later +20d clock trust >/dev/null 2>>"$DIR/log"
status=$?
later +20d run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "0 0 1" "$status $? $(expires)" "$(cat "$DIR/log")"

test_begin "a first start with no clock record (a fresh install) is no jump: the pass acts"
DIR=$W/fresh
fixed_term_committee "$DIR"
later +20d run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "0 1 0" "$? $(expires) $(grep -c '^clock-doubt' "$DIR/log")"

# A witness heard once (the SMTP server's greeting gives its date) is
# waited for after every start; one never heard (a server that gives
# no date) holds nothing.
DIR=$W/start
fixed_term_committee "$DIR" "sink.url=smtp://127.0.0.1:$SMTP_PORT" \
	sink.starttls=no
echo 0 >"$SMTP_CONTROL.date"
TENURE_TEST_CLOCK_LOCAL_WITNESS=1 once
rm -f "$SMTP_CONTROL.date"
fake_reboot
test_begin "a witness configured, 40 days ahead after a reboot: the first schedule waits for the witness"
TENURE_TEST_CLOCK_LOCAL_WITNESS=1 later +40d run --once >>"$DIR/out" 2>>"$DIR/log"
test_expect_equal "1 0 1" \
	"$? $(expires) $(grep -c '^clock-doubt reason="tenure started and no witness has vouched' "$DIR/log")" \
	"$(cat "$DIR/log")"

test_done
