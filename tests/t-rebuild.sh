#!/bin/sh
# t-rebuild.sh: the host was lost; the list's archive is the backup.  A
# first host runs the committee for three weeks (`tenure run --once` as
# each mail arrives: resignations, a recommendation and an appointment,
# a deferral, both halves of a removal, handovers of both roles (the
# new leader's confirmed by her key), a new key (confirmed by itself),
# and refusals and list chatter between them), its announcements
# going to the list like everything else.  A second host, set up with
# the same founding history (`tenure init`), imports the list's archive
# (`tenure import mbox:`) and must hold the same ledger, `Recorded:`
# aside, having sent nothing and queued nothing the list has seen.  What
# the admin's backup keeps (README.Debian) comes back: the bot's key and
# the Message-ID secret, by which the new host knows the first host's
# mail in the archive as its own.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"

committee_init
cd "$W" || exit 1
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
ALICE2=$(gpg_new_key "Alice Member" alice2@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
DAVE=$(gpg_new_key "Dave Member" dave@example.org)
ERIN=$(gpg_new_key "Erin Member" erin@example.org)
FAY=$(gpg_new_key "Fay Member" fay@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
MIA=$(gpg_new_key "Mia Leader" mia@example.org)
SAM=$(gpg_new_key "Sam Secretary" sam@example.org)
NINA=$(gpg_new_key "Nina Newcomer" nina@example.org)
NORA=$(gpg_new_key "Nora Newcomer" nora@example.org)
MALLORY=$(gpg_new_key "Mallory Outsider" mallory@example.org)
gpg_export_keyring keyring.gpg carol@example.org alice@example.org \
	alice2@example.org bob@example.org dave@example.org erin@example.org \
	fay@example.org \
	leo@example.org mia@example.org sam@example.org nina@example.org \
	nora@example.org

# An hour into today (UTC): the mails below come a minute apart from
# days before, and must not cross a midnight (a day's events would move).
NOW=$(($(date -u -d "$(date -u +%Y-%m-%d)" +%s) + 3600))
day() { date -u -d "@$((NOW + $1 * 86400))" +%Y-%m-%d; }

# The founding history both hosts start from.  Fixed terms of four
# years: Dave's ends in 39 days, which the chair defers; Fay's ended 15
# days ago, and her resignation after it is refused.
cat >history.ledger <<EOF
Event: rule
Date: $(day -2200)
Rule: fixed-term
Parameters: term=4y
Source: import

Event: appoint
Date: $(date -u -d "$(day 40) 4 years ago" +%Y-%m-%d)
Member: Dave Member <dave@example.org>
Fingerprint: $DAVE
Source: import

Event: appoint
Date: $(date -u -d "$(day -14) 4 years ago" +%Y-%m-%d)
Member: Fay Member <fay@example.org>
Fingerprint: $FAY
Source: import
EOF
for who in "Carol Chair:carol:$CAROL" "Alice Member:alice:$ALICE" \
	"Bob Member:bob:$BOB" "Erin Member:erin:$ERIN"; do
	fpr=${who##*:}
	who=${who%:*}
	printf '\nEvent: appoint\nDate: %s\nMember: %s <%s@example.org>\nFingerprint: %s\nSource: import\n' \
		"$(day -400)" "${who%%:*}" "${who#*:}" "$fpr" >>history.ledger
done

# host NAME [LOST]: its configuration NAME.conf, everything under NAME/,
# with a bot key of its own, or with the bot key and the Message-ID
# secret of host LOST, restored from the admin's backup.
host() {
	mkdir -p "$1/inbox/new" "$1/inbox/cur" "$1/inbox/tmp" "$1/g"
	chmod 700 "$1/g"
	if [ -n "${2:-}" ]; then
		gpg --homedir "$2/g" --batch --quiet --export-secret-keys |
			gpg --homedir "$1/g" --batch --quiet --import 2>/dev/null
		gpgconf --homedir "$2/g" --kill all
	else
		gpg --homedir "$1/g" --batch --quiet --passphrase '' \
			--quick-gen-key "tenure <tenure@example.org>" ed25519 sign never 2>/dev/null
	fi
	gpgconf --homedir "$1/g" --kill all
	test_cleanup "gpgconf --homedir '$W/$1/g' --kill all"
	local bot
	bot=$(gpg --homedir "$1/g" --with-colons --list-keys 2>/dev/null |
		awk -F: '$1 == "fpr" { print $10; exit }')
	committee_conf "$1.conf" rule.name=fixed-term roles.chair="$CAROL" \
		roles.leader="$LEO" roles.secretary="$SAM" \
		committee.ledger="$1/ledger" committee.state-dir="$1/state" \
		keys.gnupg-home="$1/g" keys.bot-key="$bot" \
		source.url="maildir:$1/inbox" sink.url="maildir:$1/sent"
	"$TENURE" --config "$1.conf" init --history history.ledger >/dev/null
	[ -z "${2:-}" ] || cp "$2/state/message-id-key" "$1/state/message-id-key"
}
host a

# The list's archive, in the order the list carried the mail.
: >archive.mbox
archive() { # FILE ARRIVAL
	printf 'From list-bounces@lists.debian.org %s\n' \
		"$(LC_ALL=C date -u -d "@$2" '+%a %b %e %H:%M:%S %Y')" >>archive.mbox
	sed 's/^\(>*From \)/>\1/' "$1" >>archive.mbox
	printf '\n' >>archive.mbox
}

n=0
# post SIGNER DAYS ID BODY: a command signed DAYS days from now (an
# hour before it reaches the list), handled by the first host as it
# arrives, its announcements carried by the list five minutes later.
post() {
	n=$((n + 1))
	local at=$((NOW + $2 * 86400 + n * 60))
	deliver_at "$(signed_mail --at "@$((at - 3600))" "$1" someone@example.org "$3" "$4" 2>/dev/null)" "$at"
}
# deliver_at FILE ARRIVAL: FILE reaches the list at ARRIVAL.
deliver_at() {
	archive "$1" "$2"
	deliver a/inbox "$1" "$2"
	"$TENURE" --config a.conf --now "$(date -u -d "@$(($2 + 60))" +%Y-%m-%dT%H:%M:%SZ)" \
		run --once >>a.log 2>&1 || echo "run --once failed at $2" >>a.failed
	for f in a/sent/new/*; do
		[ -f "$f" ] || continue
		grep -q '^X-Envelope-To: .*debian-ctte@lists.debian.org' "$f" &&
			archive "$f" "$(($2 + 300))"
		mv "$f" a/sent/cur/
	done
}

post "$ERIN" -20 erin-resign "Tenure: resign"
post "$MALLORY" -19 forged "Tenure: resign"
post "$CAROL" -18 rec-nina "Tenure: recommend
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01"
post "$LEO" -17 appoint-nina "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01"
post "$BOB" -16 bob-far "Tenure: resign
Effective: $(day 800)"
post "$CAROL" -15 defer-dave "Tenure: defer
Member: Dave Member <dave@example.org>
Until: $(day 100)
Reason: the vote on the TC size is pending"
post "$CAROL" -14 remove-bob-chair "Tenure: remove
Member: Bob Member <bob@example.org>"
post "$LEO" -13 remove-bob-leader "Tenure: remove
Member: Bob Member <bob@example.org>"
post "$SAM" -12 handover-leader "Tenure: handover
Role: leader
Member: Mia Leader <mia@example.org>
Fingerprint: $MIA"
post "$MIA" -12 handover-leader-mia "Tenure: handover
Role: leader
Member: Mia Leader <mia@example.org>
Fingerprint: $MIA"
post "$FAY" -12 fay-resign "Tenure: resign"
post "$LEO" -11 appoint-nora-leo "Tenure: appoint
Member: Nora Newcomer <nora@example.org>
Fingerprint: $NORA
Project-Joined: 2011-05-01"
post "$CAROL" -10 handover-chair "Tenure: handover
Role: chair
Fingerprint: $ALICE"
post "$ALICE" -9 alice-new-key "Tenure: new-key
Fingerprint: $ALICE2"
post "$ALICE2" -9 alice-new-key-confirms "Tenure: new-key
Member: Alice Member <alice@example.org>
Fingerprint: $ALICE2"
post "$ALICE" -8 alice-old-key "Tenure: resign"
printf 'From: dave@example.org\nTo: debian-ctte@lists.debian.org\nSubject: lunch\nMessage-ID: <lunch@example.org>\n\nAnyone?\n' >m/lunch.eml
deliver_at m/lunch.eml "$((NOW - 7 * 86400))"
deliver_at m/appoint-nina.eml "$((NOW - 6 * 86400))"
post "$NINA" -5 nina-resign "Tenure: resign
Effective: $(day 30)"
post "$ALICE2" -4 rec-nora "Tenure: recommend
Member: Nora Newcomer <nora@example.org>
Fingerprint: $NORA
Project-Joined: 2011-05-01"
post "$MIA" -3 appoint-nora "Tenure: appoint
Member: Nora Newcomer <nora@example.org>
Fingerprint: $NORA
Project-Joined: 2011-05-01"

test_begin "the first host handled every mail as it came"
test_expect_equal "" "$(cat a.failed 2>/dev/null)"

test_begin "the first host's ledger holds every kind of event, and refused what it should"
kinds=$(sed -n 's/^Event: //p' a/ledger | tail -n +8 | tr '\n' ' ')
refused=$(grep -c '^refused ' a.log)
test_expect_equal "resign appoint defer expire remove role role key resign appoint | 5" \
	"$kinds| $refused"

# --- The host is lost; a new one is set up from the list's archive ------------

host b a
"$TENURE" --config b.conf import mbox:archive.mbox >import.out 2>import.log
rc=$?
test_begin "the new host imports the archive"
test_expect_equal "0" "$rc"
[ "$rc" = 0 ] || sed 's/^/# /' import.log

test_begin "the rebuilt ledger is the lost one, Recorded: aside"
grep -v '^Recorded:' a/ledger >a.ledger
grep -v '^Recorded:' b/ledger >b.ledger
test_expect_equal_file a.ledger b.ledger

test_begin "the rebuild sent nothing"
test_expect_equal "0" "$(find b/sent -type f 2>/dev/null | wc -l)"

test_begin "the rebuild queued nothing: no transcript for refusals the first host answered"
test_expect_equal "0" "$(ls b/state/outbox/queue 2>/dev/null | wc -l)"

test_begin "the new host's first pass would append nothing and send nothing the list has seen"
"$TENURE" --config b.conf run --dry-run >dry.out 2>dry.log
test_expect_equal "append no event | " \
	"$(grep '^append' dry.out | sed 's/ to .*//') | $(sed -n '/^queue/,/^[a-z]/p' dry.out | grep 'debian-ctte@lists.debian.org')"

# --- An import interrupted: killed mid-way, then run again ---------------------
#
# The import writes what it decides of each signature in batches
# (cmd_import.c): killed in the middle of one, it must lose nothing and
# repeat nothing.  A third host's import is killed while it reads the
# chair's handover (TENURE_TEST_READ makes that reading hang), after a
# ledger append and refusals whose records wait for the batch's end;
# the same import run again must leave what the uninterrupted one left.

host c a
TENURE_TEST_READ=hang:handover-chair "$TENURE" --config c.conf \
	import mbox:archive.mbox >import-c1.out 2>import-c1.log &
pid=$!
test_begin "the third host's import is killed in the middle of the archive"
if wait_for 60 "grep -q '^test-read ' import-c1.log"; then
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	test_expect_equal "killed before the end, ledger events appended: yes" \
		"killed before the end, ledger events appended: $( [ ! -s import-c1.out ] &&
			[ "$(grep -c '^Event:' c/ledger)" -gt "$(grep -c '^Event:' history.ledger)" ] &&
			echo yes)"
else
	kill -KILL "$pid" 2>/dev/null
	test_fail "the import never reached the handover"
fi

"$TENURE" --config c.conf import mbox:archive.mbox >import-c2.out 2>import-c2.log
rc=$?
test_begin "the import run again after the kill finishes"
test_expect_equal "0" "$rc"

test_begin "after the kill and the second import: the ledger of one import, Recorded: aside"
grep -v '^Recorded:' c/ledger >c.ledger
test_expect_equal_file b.ledger c.ledger

test_begin "after the kill and the second import: the same signatures, messages and reply counts decided as one import"
test_expect_equal_file b/state/seen c/state/seen

test_begin "after the kill and the second import: the same pending records, nothing queued"
test_expect_equal "$(cat b/state/pending 2>/dev/null) | 0" \
	"$(cat c/state/pending 2>/dev/null) | $(ls c/state/outbox/queue 2>/dev/null | wc -l)"

test_done
