#!/bin/sh
# t-ledger-stale.sh: "accept the ledger as it is" says what it loses
# (issue 43 item 5).  An administrator's editor saves a stale copy of
# the ledger over the event the daemon appended: the next run refuses
# the shorter ledger and names the missing event (kind, member, date),
# writes its stanza to STATE_DIR/ledger-missing, and the command given
# (cat ... >> LEDGER) restores it.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
set --
for who in alice bob; do
	name="$(echo "$who" | sed 's/./\U&/') Member"
	fpr=$(gpg_new_key "$name" "$who@example.org")
	eval "$(echo "$who" | tr a-z A-Z)=\$fpr"
	set -- "$@" "$name <$who@example.org> $fpr"
done
committee_ledger "$@"
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org
committee_conf

"$TENURE" --config "$CONF" run --once 2>"$W/log0" ||
	test_skip_all "the first run failed: $(cat "$W/log0")"
cp "$W/ledger" "$W/ledger.stale"
deliver "$W/inbox" "$(signed_mail "$ALICE" alice@example.org r-alice "Tenure: resign")"
"$TENURE" --config "$CONF" run --once 2>"$W/log1"
test_begin "a run appends Alice's resignation"
test_expect_equal "1" "$(grep -c '^Event: resign' "$W/ledger")" "$(cat "$W/log1")"

# The editor's stale copy saved over it.
cp "$W/ledger.stale" "$W/ledger"
status=0
"$TENURE" --config "$CONF" run --once 2>"$W/log2" || status=$?
test_begin "the next run refuses the shorter ledger, naming the event it lost: kind, member, date"
if [ "$status" = 1 ] &&
	grep -qF "it lost 1 event(s) tenure applied and announced: resign Alice Member <alice@example.org> $today" "$W/log2"; then
	test_pass
else
	test_fail "exit $status" "$(cat "$W/log2")"
fi
test_begin "... acceptance is offered only as a loss of that event, and the restore command is given"
if grep -qF "restore them with \`cat $W/state/ledger-missing >> $W/ledger\`" "$W/log2" &&
	grep -qF "to accept it as it is, without them (never applied again)" "$W/log2"; then
	test_pass
else
	test_fail "$(cat "$W/log2")"
fi
cat "$W/state/ledger-missing" >>"$W/ledger"
status=0
"$TENURE" --config "$CONF" run --once 2>"$W/log3" || status=$?
test_begin "the command restores it: the next run goes on, Alice's resignation once in the ledger"
test_expect_equal "exit 0, 1 resign" \
	"exit $status, $(grep -c '^Event: resign' "$W/ledger") resign" "$(cat "$W/log3")"

test_done
