#!/bin/sh
# t-ledger-faults.sh: the ledger under faults.  A ledger that is missing
# or shorter than tenure last saw stops tenure (at start and while the
# daemon runs) and mail waiting meanwhile is applied once it is back;
# only `tenure init` creates a ledger.  A failed write or fsync of the
# ledger, or of what follows its append (the signature record, the
# archive, the ledger's mark), leaves no half state: the mail is seen
# again and applied exactly once, never refused for an event the ledger
# already holds, and `tenure audit` agrees.  After a crash no temp file,
# stale pending record or extra blank line is left.  Faults come from
# tests/lib/faultshim.so (see tests/lib/faultshim.c).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/fault.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"
fault_require

gpg_world_init
MAIL_LIST=ctte@lists.example.org
W=$TEST_DIR
mkdir -p "$W/m" "$W/inbox/new" "$W/inbox/cur" "$W/inbox/tmp"

# Carol chairs, Leo leads; the others are members who resign, one per
# check; Nina is appointed.
MEMBERS="alice bob dave erin frank grace heidi ivan judy kim"
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
NINA=$(gpg_new_key "Nina Newcomer" nina@example.org)
for who in $MEMBERS; do
	gpg_new_key "$who Member" "$who@example.org" >/dev/null
done
# shellcheck disable=SC2086
gpg_export_keyring "$W/keyring.gpg" carol@example.org leo@example.org \
	nina@example.org $(for who in $MEMBERS; do echo "$who@example.org"; done)
test_cleanup "gpgconf --homedir '$W/g' --kill all"

cat >"$W/tenure.conf" <<EOF
[committee]
name = Test Committee
templates = $top_srcdir/templates
list = ctte@lists.example.org
max-members = 16
ledger = ledger
state-dir = state

[rule]
name = none

[roles]
chair = $CAROL
leader = $LEO

[keys]
keyring = keyring.gpg
gnupg-home = g

[source]
url = maildir:inbox
poll-interval = 1

[sink]
url = maildir:sent
from = tenure@example.org
EOF

# --- tenure init ----------------------------------------------------------

year_ago=$(date -u -d '1 year ago' +%Y-%m-%d)
set -- --member "Carol Chair <carol@example.org> $CAROL"
for who in $MEMBERS; do
	set -- "$@" --member "$who Member <$who@example.org> $(gpg_fpr "$who@example.org")"
done
"$TENURE" --config "$W/tenure.conf" init --date "$year_ago" "$@" >"$W/out" 2>"$W/log"
echo $? >"$W/status"
test_begin "tenure init writes the rule event and the founding members"
if [ "$(cat "$W/status")" = 0 ] &&
	[ "$(grep -c '^Event: appoint' "$W/ledger")" = 11 ] &&
	[ "$(sed -n '1,3p' "$W/ledger")" = "Event: rule
Date: $year_ago
Rule: none" ]; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")" "$(head -n 12 "$W/ledger" 2>&1)"
fi
test_begin "the new committee has its eleven members"
test_expect_equal 11 "$("$TENURE" --config "$W/tenure.conf" status --format=tsv 2>/dev/null | tail -n +2 | wc -l)"

cp "$W/ledger" "$W/ledger.init"
"$TENURE" --config "$W/tenure.conf" init --rule debian >"$W/out" 2>"$W/log"
status=$?
test_begin "tenure init refuses when a ledger exists, and leaves it as it was"
if [ "$status" = 1 ] && cmp -s "$W/ledger" "$W/ledger.init" &&
	grep -q "^tenure init: $W/ledger: a ledger is already there" "$W/log"; then
	test_pass
else
	test_fail "exit $status" "$(cat "$W/log")"
fi

mv "$W/ledger" "$W/ledger.away"
"$TENURE" --config "$W/tenure.conf" init >"$W/out" 2>"$W/log"
status=$?
test_begin "tenure init refuses to start afresh where tenure kept another ledger"
if [ "$status" = 1 ] && [ ! -e "$W/ledger" ] &&
	grep -q "tenure kept a ledger of 12 events here; restore it" "$W/log"; then
	test_pass
else
	test_fail "exit $status" "$(cat "$W/log")"
fi

# --- Helpers --------------------------------------------------------------

# send_command WHO ID BODY: WHO's signed mail, delivered to the list Maildir.
arrival=$(($(date +%s) - 600))
send_command() {
	local who=$1 id=$2 body=$3 signer
	signer=$(gpg_fpr "$who@example.org")
	mime_text_part "$body" >"$W/m/$id.part"
	pgpmime_entity "$signer" "$W/m/$id.part" >"$W/m/$id.entity"
	mail_message "$who@example.org" "$id@example.org" "$W/m/$id.entity" >"$W/m/$id.eml"
	arrival=$((arrival + 1))
	deliver "$W/inbox" "$W/m/$id.eml" "$arrival"
}

# run [FAULT]: `tenure run --once`, with the fault if given; log in
# $W/log, exit status in $W/status.
run() {
	if [ -n "${1:-}" ]; then
		with_fault "$1" "$TENURE" --config "$W/tenure.conf" run --once >"$W/out" 2>"$W/log"
	else
		"$TENURE" --config "$W/tenure.conf" run --once >"$W/out" 2>"$W/log"
	fi
	echo $? >"$W/status"
}

unread() {
	ls "$W/inbox/new" | wc -l
}

# events KIND WHO: how many KIND events the ledger has for WHO.
events() {
	grep -A2 "^Event: $1\$" "$W/ledger" | grep -c "^Member: .*<$2@example.org>"
}

# sent_to WHO PATTERN: mails in the sink to WHO whose text matches.
sent_to() {
	grep -l "^To: .*$1" "$W"/sent/new/* 2>/dev/null | xargs -r grep -l "$2" | wc -l
}

# applied_once DESCRIPTION WHO: WHO's resignation is in the ledger once,
# announced once, archived once, never refused nor answered, and its
# signature recorded as decided.
applied_once() {
	test_begin "$1"
	local problems=
	[ "$(cat "$W/status")" = 0 ] || problems="$problems exit=$(cat "$W/status")"
	[ "$(events resign "$2")" = 1 ] || problems="$problems resign-events=$(events resign "$2")"
	[ "$(sent_to ctte@lists.example.org "$2 Member resigns")" = 1 ] ||
		problems="$problems announcements=$(sent_to ctte@lists.example.org "$2 Member resigns")"
	[ "$(sent_to "$2@example.org" 'Refused:')" = 0 ] || problems="$problems replies"
	! grep -q "^refused .*msgid=<$2-" "$W/log" || problems="$problems refused"
	[ "$(grep -l "^Message-ID: <$2-resign@" "$W"/state/archive/*.eml 2>/dev/null | wc -l)" = 1 ] ||
		problems="$problems archived=$(grep -l "^Message-ID: <$2-resign@" "$W"/state/archive/*.eml 2>/dev/null | wc -l)"
	! grep -q ' applying$' "$W/state/seen" || problems="$problems applying"
	[ "$(unread)" = 0 ] || problems="$problems unread=$(unread)"
	if [ -z "$problems" ]; then
		test_pass
	else
		test_fail "$problems" "$(cat "$W/log")"
	fi
}

# --- A vanished ledger ----------------------------------------------------

send_command alice alice-resign "Tenure: resign"
run
test_begin "tenure run --once stops when the ledger is missing, and says so"
if [ "$(cat "$W/status")" = 1 ] &&
	grep -q "^tenure run: $W/ledger: the ledger is missing; restore it, or start a new committee with \`tenure init\`\$" "$W/log"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
test_begin "without its ledger tenure creates none, reads no mail and records nothing"
if [ ! -e "$W/ledger" ] && [ "$(unread)" = 1 ] &&
	! grep -q "alice-resign" "$W/state/seen" 2>/dev/null; then
	test_pass
else
	test_fail "ledger: $(ls -l "$W/ledger" 2>&1)" "unread: $(unread)" "$(cat "$W/log")"
fi
mv "$W/ledger.away" "$W/ledger"
run
applied_once "a resignation that arrived meanwhile is applied once the ledger is back" alice

# --- A ledger replaced by a shorter one ----------------------------------

cp "$W/ledger" "$W/ledger.older"
send_command bob bob-resign "Tenure: resign"
run
cp "$W/ledger" "$W/ledger.newer"
cp "$W/ledger.older" "$W/ledger"
send_command dave dave-resign "Tenure: resign"
run
test_begin "a ledger with fewer events than tenure saw stops tenure, and it says so"
if [ "$(cat "$W/status")" = 1 ] &&
	grep -q "^tenure run: $W/ledger: the ledger has 13 events ([0-9]* bytes), fewer than the 14 events ([0-9]* bytes) tenure saw ($W/state/ledger-mark); it lost 1 event(s) tenure applied and announced: resign [^;]*; their stanzas are in $W/state/ledger-missing: restore them with \`cat $W/state/ledger-missing >> $W/ledger\`; restore it, or remove $W/state/ledger-mark to accept it as it is, without them (never applied again)\$" "$W/log"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/log")"
fi
test_begin "the shorter ledger is not written to and the mail waits"
if cmp -s "$W/ledger" "$W/ledger.older" && [ "$(unread)" = 1 ]; then
	test_pass
else
	test_fail "unread: $(unread)" "$(diff "$W/ledger.older" "$W/ledger")"
fi
cp "$W/ledger.newer" "$W/ledger"
run
applied_once "once the ledger is restored, the waiting resignation is applied" dave
test_begin "the earlier resignation is still there, once"
test_expect_equal 1 "$(events resign bob)"

# --- The ledger vanishing under the daemon -------------------------------

"$TENURE" --config "$W/tenure.conf" run 2>"$W/daemon.log" &
DAEMON=$!
test_cleanup "kill $DAEMON"
wait_for 20 'grep -q "^run-start" "$W/daemon.log"'
mv "$W/ledger" "$W/ledger.away"
send_command erin erin-resign "Tenure: resign"
test_begin "the daemon stops acting on mail while the ledger is missing, and says so"
if wait_for 30 'grep -q "^run-error step=ledger error=\"$W/ledger: the ledger is missing" "$W/daemon.log"' &&
	[ ! -e "$W/ledger" ] && [ "$(unread)" = 1 ] && kill -0 "$DAEMON" 2>/dev/null; then
	test_pass
else
	test_fail "unread: $(unread)" "$(tail -n 8 "$W/daemon.log")"
fi
mv "$W/ledger.away" "$W/ledger"
test_begin "the daemon applies the waiting resignation once the ledger is back"
# (and its announcement out of the outbox, before the stop below)
if wait_for 60 '[ "$(events resign erin)" = 1 ] && [ "$(unread)" = 0 ] &&
	[ "$(sent_to ctte@lists.example.org "erin Member resigns")" -ge 1 ]'; then
	test_pass
else
	test_fail "$(tail -n 8 "$W/daemon.log")"
fi
kill -TERM "$DAEMON"
wait "$DAEMON"
cp "$W/daemon.log" "$W/log"
echo 0 >"$W/status"
applied_once "the daemon's resignation is recorded and announced once" erin

# --- A failed write or fsync of the ledger, or of what follows it --------

# fault_then_restart WHO SPEC DESCRIPTION APPENDED: WHO resigns; the run
# meets the fault SPEC, fails (exit 1) and leaves the mail unread, with
# the event in the ledger (APPENDED = 1) or not (0) and nothing else
# half done (APPENDED = -: either, the order of the steps is free); the
# next run applies it exactly once.
fault_then_restart() {
	local who=$1 spec=$2 description=$3 appended=$4
	cp "$W/ledger" "$W/ledger.before"
	send_command "$who" "$who-resign" "Tenure: resign"
	run "$spec"
	test_begin "$description: the run fails and the mail waits"
	local problems=
	[ "$(cat "$W/status")" = 1 ] || problems="$problems exit=$(cat "$W/status")"
	[ "$(unread)" = 1 ] || problems="$problems unread=$(unread)"
	[ "$appended" = - ] || [ "$(events resign "$who")" = "$appended" ] ||
		problems="$problems resign-events=$(events resign "$who")"
	if [ "$appended" = 0 ]; then
		cmp -s "$W/ledger" "$W/ledger.before" || problems="$problems ledger-changed"
		! grep -lq "^Message-ID: <$who-resign@" "$W"/state/archive/*.eml ||
			problems="$problems archived"
	fi
	! grep -q "^signature .* <$who-resign@example.org>\$" "$W/state/seen" ||
		problems="$problems recorded-as-decided"
	if [ -z "$problems" ]; then
		test_pass
	else
		test_fail "$problems" "$(cat "$W/log")" "$(diff "$W/ledger.before" "$W/ledger")"
	fi
	run
	applied_once "$description: the next run applies it once" "$who"
}

fault_then_restart frank "fsync@$W/ledger:1:EIO" "a failed fsync of the ledger" 0
fault_then_restart grace "write@$W/ledger:1:ENOSPC" "a full disk at the ledger append" 0
fault_then_restart heidi "rename@$W/state/seen:2:EIO" \
	"a failed signature record after the append" 1
fault_then_restart ivan "write@$W/state/archive/:1:ENOSPC" \
	"a full disk at the archive" -
fault_then_restart judy "rename@$W/state/ledger-mark:2:EIO" \
	"a failed write of the ledger's mark after the append" 1

# --- Tidy after a crash ---------------------------------------------------

# Alice resigned already: her second resignation is refused with a reply,
# and tenure is killed before the signature record's rename.
send_command alice alice-again "Tenure: resign"
run "rename@$W/state/seen:1:kill"
test_begin "a run killed before a rename leaves its temp file (the fault took)"
if [ "$(cat "$W/status")" = 137 ] && ls "$W"/state/seen.* >/dev/null 2>&1; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(ls "$W/state")"
fi
run
test_begin "the next run removes the temp files a killed run left"
leftover=$(ls "$W/state" | grep -v -E '^(archive|outbox|lock|seen|pending|ledger-mark|ledger-seen|ledger-missing|state-format|retry|reading|clock|clock.lock|message-id-key|unsent|source-contact)$')
if [ "$(cat "$W/status")" = 0 ] && [ -z "$leftover" ] &&
	grep -q "^temp-removed file=$W/state/seen" "$W/log"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "left: $leftover" "$(cat "$W/log")"
fi
test_begin "the refusal's reply is queued once"
test_expect_equal 1 "$(sent_to alice@example.org 'Refused:')"

# Bob's second resignation too, killed as its reply is being queued: the
# reply goes out once and counts once against replies-per-day.
send_command bob bob-again "Tenure: resign"
run "rename@$W/state/outbox/queue/:1:kill"
run
test_begin "a refusal killed while its reply is queued: one reply, counted once"
bob=$(gpg_fpr bob@example.org)
if [ "$(sent_to bob@example.org 'Refused:')" = 1 ] &&
	grep -q "^reply $bob $(date -u +%Y-%m-%d) 1\$" "$W/state/seen"; then
	test_pass
else
	test_fail "replies: $(sent_to bob@example.org 'Refused:')" "$(grep '^reply' "$W/state/seen")"
fi

# The leader's appointment of the person the chair recommended: killed
# once the event is in the ledger, before the recommendation is dropped.
send_command carol carol-recommend "Tenure: recommend
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2015-06-01"
run
send_command leo leo-appoint "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2015-06-01"
run "rename@$W/state/pending:1:kill"
test_begin "killed after the appointment's append (the fault took)"
test_expect_equal "137 1" "$(cat "$W/status") $(events appoint nina)"
run
test_begin "after a crash, the recommendation the appointment used is dropped"
if [ "$(cat "$W/status")" = 0 ] && [ "$(events appoint nina)" = 1 ] &&
	! grep -q 'recommend nina@example.org' "$W/state/pending"; then
	test_pass
else
	test_fail "exit $(cat "$W/status")" "$(cat "$W/state/pending")" "$(cat "$W/log")"
fi
test_begin "the appointment is announced once"
test_expect_equal 1 "$(sent_to ctte@lists.example.org 'Nina Newcomer appointed')"

# A ledger that ends in a blank line (a crash of an earlier version
# between its separator and its stanza) gets no second one.
printf '\n' >>"$W/ledger"
send_command kim kim-resign "Tenure: resign"
run
applied_once "a resignation appended after a stray blank line" kim
test_begin "the ledger has one blank line between stanzas, never two"
if awk 'prev == "" && $0 == "" && NR > 1 { bad = 1 } { prev = $0 } END { exit bad }' "$W/ledger"; then
	test_pass
else
	test_fail "$(grep -n -B1 -A1 '^$' "$W/ledger" | head -n 20)"
fi

# --- And the audit agrees -------------------------------------------------

"$TENURE" --config "$W/tenure.conf" audit >"$W/audit" 2>&1
status=$?
test_begin "tenure audit agrees with the ledger after all of it"
if [ "$status" = 0 ] && grep -q ' 0 problems, 0 differences$' "$W/audit"; then
	test_pass
else
	test_fail "exit $status" "$(cat "$W/audit")"
fi

test_done
