# tests/lib/bounces.sh: a committee whose reminders go out with an
# envelope sender of their own, and what comes back of them, for the
# bounce scenarios (tests/t-bounces.sh, tests/t-bounces-exim.sh).
# Source it after tests/lib/common.sh, tests/lib/gpg.sh and
# tests/lib/committee.sh (and tests/lib/smtp.sh for reminder_to).
#
#   setup_case NAME SINK     the case $TEST_DIR/NAME (= $CASE = $W, its
#                            configuration $CONF): a ledger in which the
#                            debian rule ends the terms of Alice and Bob,
#                            the two most senior, on 2027-12-31 (as in
#                            t-outcomes.sh), so that a pass on 2027-10-02
#                            sends each of them the 90-day reminder; the
#                            Maildir source $CASE/list, the sink SINK
#                            (a URL), sink.from ctte-bot@example.org and
#                            sink.envelope-from tenure-bounces@example.org.
#                            No command is signed: no keys.
#   run_once WHEN            `tenure run --once` on a clock set to WHEN,
#                            stdout appended to $CASE/out, stderr (the
#                            log) to $CASE/err
#   reminder_to ADDRESS      the file of the reminder the tests' SMTP
#                            server took for ADDRESS
#   message_id_of FILE       the Message-ID of the mail in FILE, <...>
#   dead_count               how many dead letters the case's outbox holds
#   status_at WHEN [ARG...]  `tenure status ARG...` at WHEN, stderr too
#
# $CR is a carriage return (the SMTP server keeps the mail's CRLF).

CR=$(printf '\r')

setup_case() {
	CASE=$TEST_DIR/$1
	W=$CASE
	CONF=$CASE/tenure.conf
	mkdir -p "$CASE/list/new" "$CASE/list/cur" "$CASE/list/tmp"
	committee_conf "committee.name=Technical Committee" \
		committee.list=ctte@lists.example.org source.url=maildir:list \
		"sink.url=$2" sink.starttls=no sink.from=ctte-bot@example.org \
		sink.envelope-from=tenure-bounces@example.org
	: >"$CASE/keyring.gpg"
	: >"$CASE/ledger"
	committee_event rule 2015-01-01 "Rule: debian"
	committee_event appoint 2023-01-10 "Member: Alice Senior <alice@example.org>"
	committee_event appoint 2023-03-01 "Member: Bob Second <bob@example.org>"
	committee_event appoint 2025-06-01 "Member: Carol Junior <carol@example.org>"
}

run_once() {
	tenure_at "$1" --config "$CASE/tenure.conf" run --once \
		>>"$CASE/out" 2>>"$CASE/err"
}

reminder_to() {
	find "$SMTP_MAILDIR/new" -type f |
		xargs -r grep -l -x "X-Envelope-To: $1$CR" |
		xargs -r grep -l "^Subject: Your term on the" | head -n 1
}

message_id_of() {
	tr -d '\r' <"$1" | grep -i -m 1 '^Message-Id:' | cut -d' ' -f2
}

dead_count() {
	ls "$CASE/state/outbox/dead" 2>/dev/null | wc -l | tr -d ' '
}

status_at() {
	local when=$1
	shift
	"$TENURE" --config "$CASE/tenure.conf" --now "$when" status "$@" 2>&1
}
