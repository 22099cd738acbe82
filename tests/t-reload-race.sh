#!/bin/sh
# t-reload-race.sh: a reload never races the reader.  The daemon works
# through a backlog of signed mail (each one verified by gpgv) while
# SIGHUPs come every few milliseconds: every reload builds its
# configuration, intake and verification context whole and hands them
# to the reader, which takes them up between two messages.  The daemon
# goes on, handles every mail exactly once, and stops cleanly.  Before,
# the reload and the reader each registered GMime's verification
# context at once (g_hash_table_replace on one table) and the daemon
# died of a double free.  Run under the ASan build and under
# ThreadSanitizer by .ci/run.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE"
committee_conf source.poll-interval=300

# The backlog: one signed resignation, delivered N times under N
# Message-IDs: each copy is verified, the first applied, the others
# ignored as the same signature.
N=60
mail=$(signed_mail "$ALICE" alice@example.org chatter "Tenure: resign
Effective: $(date -u -d '+30 days' +%Y-%m-%d)")
i=0
while [ $i -lt $N ]; do
	sed "s/^Message-ID: <chatter@example.org>/Message-ID: <chatter-$i@example.org>/" \
		"$mail" >"$W/m/copy.eml"
	deliver "$W/inbox" "$W/m/copy.eml"
	i=$((i + 1))
done

log=$W/daemon.log
"$TENURE" --config "$CONF" run 2>"$log" &
pid=$!
wait_for 10 'grep -q "^run-start" "$log"'
# A burst of reloads while the reader works through the backlog.
hups=0
while [ $hups -lt ${HUPS:-150} ] && kill -0 $pid 2>/dev/null; do
	kill -HUP $pid 2>/dev/null
	hups=$((hups + 1))
	sleep 0.01
done

test_begin "$hups SIGHUPs during a backlog of $N signed mails: the daemon lives and reloads"
if kill -0 $pid 2>/dev/null && grep -q '^run-reload result=loaded' "$log"; then
	test_pass
else
	test_fail "the daemon died or never reloaded" "$(tail -n 40 "$log")"
fi

test_begin "every mail of the backlog is handled, each once"
handled() {
	grep -c -E '^(applied|ignored|replay) .*msgid=<chatter-[0-9]+@example.org>' "$log"
}
wait_for 60 '[ "$(handled)" -ge $N ]'
test_expect_equal "$N handled, 1 applied, 1 resignation" \
	"$(handled) handled, $(grep -c '^applied ' "$log") applied, $(grep -c '^Event: resign' "$W/ledger") resignation"

test_begin "SIGTERM after the burst: exit 0, no sanitizer or heap report"
kill -TERM $pid 2>/dev/null
status=0
wait $pid || status=$?
# glibc's own heap checks (a plain build) say what they found, too.
if grep -q -E 'ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer|runtime error:|double free|malloc(_consolidate)?\(\)|corrupted' "$log"; then
	test_fail "a sanitizer or heap report" "$(grep -A30 -E 'Sanitizer|runtime error|double free|malloc|corrupted' "$log" | head -n 60)"
else
	test_expect_equal "exit 0" "exit $status"
fi

test_done
