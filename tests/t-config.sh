#!/bin/sh
# t-config.sh: the configuration as `tenure run` and `tenure check-config`
# meet it, and the log as journald files it.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

cd "$TEST_DIR" || exit 1
W=$TEST_DIR
mkdir -p inbox/new inbox/cur inbox/tmp
: >ledger

cat >maildir.conf <<EOF
[committee]
name = Test Committee
templates = $top_srcdir/templates
list = debian-ctte@lists.debian.org
ledger = ledger
state-dir = state

[keys]
gnupg-home = g

[source]
url = maildir:inbox
poll-interval = 1

[sink]
url = maildir:sent
from = tenure@example.org
EOF
test_cleanup "gpgconf --homedir '$W/g' --kill all"

# --- Logs for journald ----------------------------------------------------

# journal_run LOG ARGS...: tenure ARGS with stderr on LOG and
# JOURNAL_STREAM naming LOG, as systemd names the journal's stream.
journal_run() {
	local log=$1
	shift
	: >"$log"
	JOURNAL_STREAM=$(stat -c '%d:%i' "$log") "$TENURE" "$@" >/dev/null 2>>"$log"
}

mkfifo inbox/new/not-a-message
journal_run j1.log --config maildir.conf run --once
test_begin "under journald every log line starts with its priority"
if [ -s j1.log ] && ! grep -qv '^<[346]>' j1.log; then
	test_pass
else
	test_fail "lines without a priority:" "$(grep -v '^<[346]>' j1.log)"
fi
test_begin "normal work is info (<6>) and a skipped file a warning (<4>)"
test_expect_equal "<6>run-start <4>skipped" \
	"$(grep -o '^<6>run-start' j1.log) $(grep -o '^<4>skipped' j1.log)"
rm inbox/new/not-a-message

test_begin "an error printed by a command is an error (<3>) for journald"
sed 's/^gnupg-home = g$/gnupg-home = g\nkeyring = missing.gpg/' maildir.conf >missing.conf
journal_run j2.log --config missing.conf run --once
test_expect_equal "<3>tenure run: [keys] keyring: $W/missing.gpg: No such file or directory" "$(cat j2.log)"

test_begin "without JOURNAL_STREAM the log has no priority prefix"
"$TENURE" --config maildir.conf run --once 2>plain.log >/dev/null
test_expect_equal "run-start" "$(head -n1 plain.log | cut -d' ' -f1)"

test_begin "with JOURNAL_STREAM naming another stream (stderr redirected) no prefix"
: >other
JOURNAL_STREAM=$(stat -c '%d:%i' other) "$TENURE" --config maildir.conf \
	run --once 2>redirected.log >/dev/null
test_expect_equal "run-start" "$(head -n1 redirected.log | cut -d' ' -f1)"

test_begin "a daemon's failed pass is an error (<3>run-error) for journald"
: >j3.log
JOURNAL_STREAM=$(stat -c '%d:%i' j3.log) "$TENURE" --config maildir.conf run \
	>/dev/null 2>>j3.log &
daemon=$!
test_cleanup "kill $daemon"
i=0
until grep -q 'run-start' j3.log || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
mv inbox inbox.away
i=0
until grep -q 'run-error' j3.log || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill "$daemon"
wait "$daemon" 2>/dev/null
mv inbox.away inbox
test_expect_equal "<3>run-error <4>run-retry" \
	"$(grep -o '^<3>run-error' j3.log | head -n1) $(grep -o '^<4>run-retry' j3.log | head -n1)"

test_done
