#!/bin/sh
# t-journal.sh: under systemd (standard error is the journal stream that
# JOURNAL_STREAM names), each event goes to journald as fields that
# journalctl can match (TENURE_EVENT=refused, TENURE_MSGID=...), with
# its priority; elsewhere the key=value line stays on standard error.
# No journald runs here: in a private mount namespace, a stand-in
# (tests/lib/journal-listen.py) binds journald's native socket,
# /run/systemd/journal/socket, and records what it receives.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v unshare >/dev/null || test_skip_all "unshare is not installed"
# As root, or as a user where user namespaces are allowed.
unshare -rm true 2>/dev/null || test_skip_all "no mount namespace (needs root or user namespaces)"

committee_init
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
OSCAR=$(gpg_new_key "Oscar Outsider" oscar@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org oscar@example.org
committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE"
committee_conf roles.chair="$CAROL" roles.leader="$CAROL"

later=$(date -u -d '+30 days' +%Y-%m-%d)
signed_mail "$OSCAR" oscar@example.org oscar-resign "Tenure: resign" >/dev/null
deliver "$W/inbox" "$W/m/oscar-resign.eml" "$(($(date +%s) - 60))"
signed_mail "$ALICE" alice@example.org alice-resign "Tenure: resign
Effective: $later" >/dev/null
deliver "$W/inbox" "$W/m/alice-resign.eml"
# A FIFO is skipped with a warning.
mkfifo "$W/inbox/new/$(date +%s).fifo.test"

# under_journal CMD...: CMD with standard error the journal stream, in a
# namespace where the stand-in journald listens; the entries land in
# $W/journal, standard error in $W/stderr.
under_journal() {
	rm -rf "$W/journal"
	mkdir -p "$W/journal"
	: >"$W/stderr"
	unshare -rm sh -c '
		W=$1
		shift
		mount -t tmpfs tmpfs /run || exit 125
		mkdir -p /run/systemd/journal
		/usr/bin/python3 "$top_srcdir/tests/lib/journal-listen.py" \
			/run/systemd/journal/socket "$W/journal" &
		listener=$!
		i=0
		while [ ! -S /run/systemd/journal/socket ] && [ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		JOURNAL_STREAM=$(stat -c %d:%i "$W/stderr") "$@" 2>>"$W/stderr"
		status=$?
		sleep 0.5
		kill $listener
		exit $status' sh "$W" "$@"
}

# field EVENT FIELD: the value of FIELD in the first entry of EVENT.
field() {
	/usr/bin/python3 - "$W/journal" "$1" "$2" <<'PY'
import glob, json, os, sys
d, event, name = sys.argv[1:]
files = sorted(glob.glob(os.path.join(d, "*.json")),
               key=lambda f: int(os.path.basename(f)[:-5]))
for f in files:
    e = json.load(open(f))
    if e.get("TENURE_EVENT") == event:
        print(e.get(name, "(none)"))
        break
else:
    print("(no %s entry)" % event)
PY
}

under_journal "$TENURE" --config "$CONF" run --once
status=$?

test_begin "under systemd, tenure run --once sends its events to the journal, none to standard error"
if [ $status = 0 ] && [ "$(ls "$W/journal" | wc -l)" -ge 4 ] && [ ! -s "$W/stderr" ]; then
	test_pass
else
	test_fail "exit $status, $(ls "$W/journal" | wc -l) entries; standard error:" "$(cat "$W/stderr")"
fi

test_begin "a refusal: TENURE_EVENT=refused with its msgid, signer and reason, at priority 6"
test_expect_equal "6 <oscar-resign@example.org> $OSCAR tenure" \
	"$(field refused PRIORITY) $(field refused TENURE_MSGID) $(field refused TENURE_SIGNER) $(field refused SYSLOG_IDENTIFIER)"

test_begin "... whose MESSAGE is the line a terminal gets, and whose reason is a field of its own"
message=$(field refused MESSAGE)
reason=$(field refused TENURE_REASON)
case $message in
"refused id="*" msgid=<oscar-resign@example.org> "*"reason=\"$reason\"") test_pass ;;
*) test_fail "MESSAGE: $message" "TENURE_REASON: $reason" ;;
esac

test_begin "an applied command: TENURE_EVENT=applied, TENURE_MEMBER and TENURE_COMMAND"
test_expect_equal "Alice Member <alice@example.org> resign $later" \
	"$(field applied TENURE_MEMBER) $(field applied TENURE_COMMAND) $(field applied TENURE_DATE)"

test_begin "a warning (a FIFO skipped) has priority 4"
test_expect_equal "4 not a regular file" "$(field skipped PRIORITY) $(field skipped TENURE_REASON)"

test_begin "a key with '-' is a field with '_': TENURE_EVENT_KEY, TENURE_MESSAGE_ID of queued mail"
key=$(field queued TENURE_EVENT_KEY)
id=$(field queued TENURE_MESSAGE_ID)
case "$key $id" in
?*/*" <tenure."*">") test_pass ;;
*) test_fail "TENURE_EVENT_KEY=$key TENURE_MESSAGE_ID=$id" ;;
esac

test_begin "an error a command prints keeps its priority prefix on standard error"
under_journal "$TENURE" --config "$W/no-such.conf" status
if grep -q "^<3>tenure status: $W/no-such.conf" "$W/stderr"; then
	test_pass
else
	test_fail "standard error:" "$(cat "$W/stderr")"
fi

test_begin "where journald cannot be reached, the line goes to standard error with its prefix"
: >"$W/stderr"
JOURNAL_STREAM=$(stat -c %d:%i "$W/stderr") unshare -rm sh -c \
	'mount -t tmpfs tmpfs /run && exec "$@"' sh \
	"$TENURE" --config "$CONF" run --once 2>>"$W/stderr"
if grep -q '^<6>run-start ' "$W/stderr"; then
	test_pass
else
	test_fail "standard error:" "$(cat "$W/stderr")"
fi

test_begin "on a terminal, in a pipe or a file, the key=value line stays, without a prefix"
"$TENURE" --config "$CONF" run --once 2>"$W/stderr"
if grep -q '^run-start mode=once ' "$W/stderr"; then
	test_pass
else
	test_fail "standard error:" "$(cat "$W/stderr")"
fi

test_done
