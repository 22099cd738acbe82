#!/bin/sh
# t-check.sh: `tenure check`, the monitoring plugin (issue 34, item 2):
# exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN, a first line "TENURE
# STATE - the worst problem | performance data", and a line for each
# other problem.  From the state `tenure run --once` leaves, on a clock
# moved with libfaketime, through the tests' SMTP server
# (tests/lib/smtpd.py): healthy; each WARNING (the source failing, or not
# read for a while; mail failing within --critical-sink; mail refused
# for good; an old keyring; the chair vacant or not named); each
# CRITICAL (the clock in doubt; the source failing for longer than
# --critical-source; mail not sent for longer than --critical-sink; mail
# that cannot be composed; a torn state file); UNKNOWN (the
# configuration unreadable, a usage error).

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/smtp.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"
command -v certtool >/dev/null || command -v openssl >/dev/null ||
	test_skip_all "neither certtool nor openssl for the test CA"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"
smtp_start plain || test_skip_all "aiosmtpd would not start"

# setup_case NAME [LEDGER-LINES]: four members, Alice the chair; the
# debian rule ends the terms of Alice and Bob on 2027-12-31, announced on
# 2027-01-01 (as in t-outbox.sh); a configuration sending to the test
# server, its templates a copy of the shipped ones.
setup_case() {
	CASE=$TEST_DIR/$1
	mkdir -p "$CASE/list/new" "$CASE/list/cur" "$CASE/list/tmp"
	cp -r "$top_srcdir/templates" "$CASE/templates"
	cat >"$CASE/tenure.conf" <<CONF
[committee]
name = Technical Committee
list = ctte@lists.example.org
ledger = $CASE/ledger
state-dir = $CASE/state
templates = $CASE/templates

[rule]
name = debian

[keys]
keyring = $CASE/keyring.gpg
gnupg-home = $CASE/g

[source]
url = maildir:$CASE/list

[sink]
url = smtp://127.0.0.1:$SMTP_PORT
starttls = no
from = ctte-bot@example.org
CONF
	: >"$CASE/keyring.gpg"
	cat >"$CASE/ledger" <<'LEDGER'
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
Date: 2025-06-01
Member: Dave Junior <dave@example.org>
Source: import

Event: role
Date: 2023-01-15
Role: chair
Member: Alice Senior <alice@example.org>
Source: import
LEDGER
	[ $# -gt 1 ] && printf '%s\n' "$2" >>"$CASE/ledger"
	return 0
}

# at WHEN ARG...: tenure with this case's configuration on a clock
# stopped at WHEN; the output in $CASE/out, the log in $CASE/err, the
# exit status in $rc.
at() {
	local when=$1
	shift
	tenure_at "$when" --config "$CASE/tenure.conf" "$@" \
		>"$CASE/out" 2>"$CASE/err"
	rc=$?
}

# check_at WHEN [OPTION...]: tenure check as of WHEN (--now: it reads
# the state, and the files' times as they are); $rc, and $first its
# first line.
check_at() {
	local when=$1
	shift
	"$TENURE" --config "$CASE/tenure.conf" --now "$when" check "$@" \
		>"$CASE/out" 2>"$CASE/err"
	rc=$?
	first=$(head -n 1 "$CASE/out")
}

# expect_check DESCRIPTION RC PATTERN: the exit status is RC and the
# first line matches the basic regular expression PATTERN.
expect_check() {
	test_begin "$1"
	if [ "$rc" = "$2" ] && printf '%s\n' "$first" | grep -q -- "$3"; then
		test_pass
		echo "# $rc: $first"
	else
		test_fail "expected $2 and /$3/, got $rc" "$(cat "$CASE/out" "$CASE/err")"
	fi
}

T0=2026-12-20T10:00:00Z

# --- healthy ---------------------------------------------------------
setup_case healthy
at $T0 run --once
check_at 2026-12-20T10:01:00Z
expect_check "healthy: OK, the committee named, exit 0" 0 \
	'^TENURE OK - Technical Committee: 4 of 8 seats filled, 0 mail(s) queued, none failing | '
test_begin "... with the performance data: outbox, failing, waiting, set aside, source age, next expiry, days to fewer than min-members"
perf=${first#*| }
test_expect_equal "outbox=0 failing=0;0 waiting=0 set_aside=0;0 dead=0;0 source_age=60s;1800;3600;0 expiry_days=376 few_members_days=U keys_missing=0;0" \
	"$perf" "$(cat "$CASE/out")"
test_begin "... and one line"
test_expect_equal 1 "$(wc -l <"$CASE/out" | tr -d ' ')" "$(cat "$CASE/out")"

# --- WARNING: the source not read for a while; CRITICAL: for long ----
check_at 2026-12-20T10:45:00Z
expect_check "not read for 45 min: WARNING (--warning-source 1800)" 1 \
	'^TENURE WARNING - the source maildir:.*/list was not read for 45 min (last read 2026-12-20 10:00 UTC): is tenure running? | .*source_age=2700s;1800;3600;0'
check_at 2026-12-20T12:00:00Z
expect_check "not read for 2 h: CRITICAL (--critical-source 3600)" 2 \
	'^TENURE CRITICAL - the source maildir:.*/list was not read for 2 h (last read 2026-12-20 10:00 UTC)'
check_at 2026-12-20T12:00:00Z --warning-source 9000 --critical-source 9000
expect_check "... OK again with thresholds beyond it" 0 '^TENURE OK - '

# --- The Monitoring Plugins' options (issue 42 item 3) ----------------
check_at 2026-12-20T10:45:00Z -w 3600 -c 86400
expect_check "-w 3600 -c 86400 on a source read 45 min ago: OK, the thresholds in the performance data" 0 \
	'^TENURE OK - .*source_age=2700s;3600;86400;0 '
check_at 2026-12-20T10:45:00Z --warning @2000:3000
expect_check "-w @2000:3000 (inside): WARNING at 2700 s" 1 '^TENURE WARNING - the source .* was not read for 45 min'
check_at 2026-12-20T10:45:00Z -w 10: -c 20:
expect_check "-w 10: -c 20: (below): OK at 2700 s" 0 '^TENURE OK - '
check_at 2026-12-20T10:45:00Z -c 3000:4000
expect_check "-c 3000:4000 (outside): CRITICAL at 2700 s" 2 '^TENURE CRITICAL - the source '
check_at 2026-12-20T12:00:00Z -w '~:' -c '~:'
expect_check "-w ~: -c ~: (never): OK at 2 h" 0 '^TENURE OK - .*source_age=7200s;~:;~:;0 '
check_at 2026-12-20T12:00:00Z --warning-source 5000 -c 8000
expect_check "--warning-source and -c together" 1 '^TENURE WARNING - .*source_age=7200s;5000;8000;0 '
check_at 2026-12-20T10:45:00Z -w 1:x
expect_check "a range that is none: UNKNOWN, the reason on standard output" 3 \
	'^TENURE UNKNOWN - usage: -w: "1:x" is not a range'
test_begin "... and nothing on standard error (Nagios drops it)"
test_expect_equal "" "$(cat "$CASE/err")"
check_at 2026-12-20T10:45:00Z --no-such-option
expect_check "an unknown option: UNKNOWN, GLib's reason on standard output" 3 \
	'^TENURE UNKNOWN - usage: Unknown option --no-such-option'
for v in -V --version; do
	check_at 2026-12-20T10:45:00Z $v
	expect_check "$v: the version, exit 0" 0 '^tenure check [0-9][0-9.]*$'
done
check_at 2026-12-20T10:45:00Z -h
expect_check "-h: the usage on standard output, exit 0" 0 '^Usage:'
test_begin "... naming -w, -c, -t and -V"
if grep -q -- '-w, --warning=RANGE' "$CASE/out" && grep -q -- '-c, --critical=RANGE' "$CASE/out" &&
	grep -q -- '-t, --timeout=SECONDS' "$CASE/out" && grep -q -- '-V, --version' "$CASE/out"; then
	test_pass
else
	test_fail "expected -w, -c, -t and -V in the help" "$(cat "$CASE/out")"
fi
# A record the check cannot finish reading (a FIFO no one writes).
mkfifo "$CASE/state/retry"
timeout 300 "$TENURE" --config "$CASE/tenure.conf" --now 2026-12-20T10:45:00Z check -t 2 \
	>"$CASE/out" 2>"$CASE/err"
rc=$?
first=$(head -n 1 "$CASE/out")
expect_check "-t 2 on a check that does not finish: UNKNOWN, said on standard output" 3 \
	'^TENURE UNKNOWN - the check did not finish within its timeout (-t)'
rm "$CASE/state/retry"

# --- WARNING: a keyring older than --warning-keyring days ------------
touch -d 2026-01-01 "$CASE/keyring.gpg"
check_at 2026-12-20T10:01:00Z
expect_check "a keyring a year old: WARNING" 1 \
	"^TENURE WARNING - the keyring $CASE/keyring.gpg is 35[0-9] days old (more than 180): update it"
check_at 2026-12-20T10:01:00Z --warning-keyring 400
expect_check "... OK with --warning-keyring 400" 0 '^TENURE OK - '
touch "$CASE/keyring.gpg"

# --- WARNING: the source failing; CRITICAL: for longer ---------------
mv "$CASE/list" "$CASE/list.away"
: >"$CASE/list"
at 2026-12-20T10:02:00Z run --once
check_at 2026-12-20T10:03:00Z
expect_check "the source failing for a minute: WARNING" 1 \
	'^TENURE WARNING - the source maildir:.*/list cannot be read for 60 s (last read 2026-12-20 10:00 UTC, 3 min ago): '
check_at 2026-12-20T10:03:00Z --critical-source 30
expect_check "... CRITICAL past --critical-source" 2 \
	'^TENURE CRITICAL - the source maildir:.*/list cannot be read for 60 s'
# The state is judged on the figure the performance data shows: the
# source's age (140 s), not the time it has failed (20 s).
check_at 2026-12-20T10:02:20Z -c 30
expect_check "failing for 20 s, last read 140 s ago: CRITICAL past -c 30, as source_age says" 2 \
	'^TENURE CRITICAL - the source maildir:.*/list cannot be read for 20 s (last read 2026-12-20 10:00 UTC, 2 min ago): .*source_age=140s;1800;30;0'
rm "$CASE/list"
mv "$CASE/list.away" "$CASE/list"

# --- CRITICAL: a torn state file --------------------------------------
at 2026-12-20T10:04:00Z run --once
printf 'x' >>"$CASE/state/source-contact"
check_at 2026-12-20T10:05:00Z
expect_check "a torn state file: CRITICAL, naming the file" 2 \
	"^TENURE CRITICAL - a torn state file: $CASE/state/source-contact:[0-9]*: 1 bytes more than"

# --- CRITICAL: each state file a pass refuses (issue 43 item 4) ------
# The state of a pass that queued two announcements (the server said
# 451), so that the Message-ID secret and the queue exist; each state
# file damaged in turn, the state restored after each: check names it
# in a CRITICAL line, and a pass that reads it refuses it (run --once
# fails, naming it).
setup_case refused
smtp_answer "451 4.3.0 queue full, try later"
at 2027-01-01T10:00:00Z run --once
smtp_answer ""
cp -a "$CASE/state" "$CASE/state.good"
queued=$(ls "$CASE/state/outbox/queue" | head -n 1)
# torn_seal FILE: a sealed state file that its first line says is longer.
torn_seal() {
	printf '# tenure-state bytes=99 sha256=%064d\nshort\n' 0 >"$1"
}
# whole_seal FILE: whole as its first line says, but not what tenure
# writes there (a record in a format of another version).
whole_seal() {
	printf '# tenure-state bytes=13 sha256=%s\ngarbage line\n' \
		"$(printf 'garbage line\n' | sha256sum | cut -d' ' -f1)" >"$1"
}
for damage in message-id-key ledger-mark "outbox/queue/$queued" seen pending \
	retry imap-cursor imap-failed mbox-offset seen=whole imap-cursor=whole \
	imap-failed=whole; do
	file=${damage%=*}
	rm -rf "$CASE/state"
	cp -a "$CASE/state.good" "$CASE/state"
	case $damage in
	message-id-key) printf 'not a key\n' >"$CASE/state/$file" ;;
	ledger-mark | outbox/*) printf 'x' >>"$CASE/state/$file" ;;
	*=whole) whole_seal "$CASE/state/$file" ;;
	*) torn_seal "$CASE/state/$file" ;;
	esac
	check_at 2027-01-01T10:06:00Z --warning-source 99999 --critical-source 99999
	test_begin "a damaged $damage: check is CRITICAL, the file named"
	if [ "$rc" = 2 ] && grep -q "^\(TENURE \)\{0,1\}CRITICAL.*$CASE/state/$file" "$CASE/out"; then
		test_pass
		grep "$CASE/state/$file" "$CASE/out" | sed 's/^/# /'
	else
		test_fail "expected 2 and a CRITICAL line naming $CASE/state/$file, got $rc" "$(cat "$CASE/out" "$CASE/err")"
	fi
	# What a pass does with it (a torn queued mail is set aside as a
	# dead letter, outbox.h; the IMAP and mbox records are not read
	# from a Maildir).
	case $file in
	message-id-key | ledger-mark | seen | pending | retry)
		at 2027-01-01T10:05:00Z run --once
		test_begin "... and a pass refuses it"
		if [ "$rc" != 0 ] && grep -q "$CASE/state/$file" "$CASE/err"; then
			test_pass
		else
			test_fail "run --once exited $rc" "$(cat "$CASE/err")"
		fi ;;
	esac
done

# --- UNKNOWN ----------------------------------------------------------
tenure_at 2026-12-20T10:05:00Z --config "$CASE/missing.conf" check >"$CASE/out" 2>"$CASE/err"
rc=$?
first=$(head -n 1 "$CASE/out")
expect_check "a configuration that cannot be read: UNKNOWN" 3 \
	"^TENURE UNKNOWN - the configuration cannot be read: .*missing.conf"
check_at 2026-12-20T10:05:00Z --warning-source=many
expect_check "a usage error: UNKNOWN" 3 '^TENURE UNKNOWN - usage: '

# --- WARNING: no pass has run ------------------------------------------
setup_case fresh
check_at 2026-12-20T10:01:00Z
expect_check "a service that has never run: WARNING, not OK" 1 \
	'^TENURE WARNING - tenure has not read the source yet: no pass has run here .*source_age=U;'

# --- WARNING: the chair vacant, or not named --------------------------
setup_case vacant "
Event: resign
Date: 2026-06-01
Member: Alice Senior <alice@example.org>
Source: import"
at $T0 run --once
check_at 2026-12-20T10:01:00Z
expect_check "the chair's holder resigned: WARNING, the chair vacant" 1 \
	'^TENURE WARNING - the chair is vacant | '
sed -i '/^Event: role$/,$d' "$CASE/ledger"
check_at 2026-12-20T10:01:00Z
expect_check "no chair recorded or configured: WARNING" 1 \
	'^TENURE WARNING - the chair is not named (\[roles\] chair) | '

# --- WARNING: mail failing; CRITICAL: for longer than --critical-sink -
setup_case failing
smtp_answer "451 4.3.0 queue full, try later"
at 2027-01-01T10:00:00Z run --once
check_at 2027-01-01T10:01:00Z
expect_check "two announcements failing: WARNING, in the server's words" 1 \
	'^TENURE WARNING - 2 mail(s) failing, to be tried again: <tenure\..*>: 1 attempt(s): .*451 4.3.0 queue full, try later) | outbox=2 failing=2;0 '
check_at 2027-01-01T12:00:00Z --warning-source 99999 --critical-source 99999
expect_check "still failing 2 h after they were queued: CRITICAL" 2 \
	'^TENURE CRITICAL - 2 mail(s) not sent for 2 h after queueing: <tenure\..*>: .*451 4.3.0'
check_at 2027-01-01T12:00:00Z --warning-source 99999 --critical-source 99999 --critical-sink 9000
expect_check "... WARNING with --critical-sink beyond it" 1 '^TENURE WARNING - 2 mail(s) failing'
smtp_answer ""

# --- WARNING: mail refused for good (set aside, dead letters) ---------
setup_case dead
smtp_refuse_rcpt bob@example.org "550 5.1.1 <bob@example.org>: no such user"
at 2027-01-01T10:00:00Z run --once
check_at 2027-01-01T10:01:00Z
expect_check "Bob's copy refused for good: WARNING, a dead letter" 1 \
	'^TENURE WARNING - 1 mail(s) refused for good (dead letters): <tenure\..*>: .*550 5.1.1 .* | .*dead=1;0 '
rm -f "$SMTP_CONTROL.rcpt"

# --- WARNING: incoming mail set aside without a verdict ---------------
# The record of mail without a verdict (src/source/retry.h), sealed as
# tenure seals it: one mail waiting for its next try, one set aside.
setup_case aside
at $T0 run --once
body="[wait maildir 1797760000.1.host]
first=1797760000
next=1797763600
tries=3
id=<waits@example.org>
reason=gpgv was killed

[set-aside maildir 1797700000.1.host]
when=1797750000
id=<aside@example.org>
reason=gpgv did not finish twice
reported=true

[set-aside-total]
total=1
"
{
	printf '# tenure-state bytes=%s sha256=%s\n' "$(printf '%s' "$body" | wc -c | tr -d ' ')" \
		"$(printf '%s' "$body" | sha256sum | cut -d' ' -f1)"
	printf '%s' "$body"
} >"$CASE/state/retry"
check_at 2026-12-20T10:01:00Z
expect_check "a mail set aside without a verdict: WARNING; the one waiting counted" 1 \
	'^TENURE WARNING - 1 mail(s) set aside without a verdict (tenure status) | outbox=0 failing=0;0 waiting=1 set_aside=1;0 '

rm "$CASE/state/retry"
mkdir "$CASE/state/retry"
check_at 2026-12-20T10:01:00Z
expect_check "a state file that cannot be read (a directory in its place): UNKNOWN" 3 \
	"^TENURE UNKNOWN - the state cannot be read: .*$CASE/state/retry"

# --- CRITICAL: mail that cannot be composed ---------------------------
setup_case uncomposed
rm "$CASE/templates/announce-scheduled.txt"
at 2027-01-01T10:00:00Z run --once
check_at 2027-01-01T10:01:00Z
expect_check "an announcement whose template is gone: CRITICAL" 2 \
	'^TENURE CRITICAL - 2 mail(s) cannot be composed or signed: <tenure\..*>: '

# --- CRITICAL: the clock in doubt, the acts held -----------------------
# The kernel's NTP state vouches for no clock here (tests/lib/common.sh says
# synced for the others), and a Maildir sink is no witness.
setup_case clock
sed -i "s|^url = smtp.*|url = maildir:$CASE/sent|; /^starttls/d" "$CASE/tenure.conf"
TENURE_TEST_CLOCK_NTP=unsynced
at 2026-12-20T10:00:00Z run --once
at 2027-02-15T10:00:00Z run --once
TENURE_TEST_CLOCK_NTP=synced
check_at 2027-02-15T10:01:00Z
expect_check "tenure's clock jumped 57 days: CRITICAL, the acts held" 2 \
	'^TENURE CRITICAL - tenure doubts its clock since 2027-02-15 10:00 UTC and holds the acts the date decides (0 mail(s) wait in the source): tenure.s clock moved '

test_done
