#!/bin/sh
# t-dryrun.sh: `tenure run --dry-run` and `tenure import --dry-run` show
# what a pass would do (the events it would append, the mail it would
# queue, the mail it would refuse) and write nothing: the state
# directory, the GnuPG home, the ledger, the source and the sink hash the
# same before and after.  The real pass that follows does what the dry
# run said.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"

committee_init
cd "$W" || exit 1
mkdir -p tmp

CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
DAVE=$(gpg_new_key "Dave Member" dave@example.org)
ERIN=$(gpg_new_key "Erin Member" erin@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
MALLORY=$(gpg_new_key "Mallory Outsider" mallory@example.org)
gpg_export_keyring keyring.gpg carol@example.org alice@example.org \
	bob@example.org dave@example.org erin@example.org leo@example.org

# tenure's own GnuPG home, inside the state directory as the package
# has it, with a bot key: the dry run signs its mail as a pass would.
mkdir -p state/gnupg
chmod 700 state state/gnupg
gpg --homedir state/gnupg --batch --quiet --passphrase '' \
	--quick-gen-key 'tenure <tenure@example.org>' ed25519 sign never 2>/dev/null
BOT=$(gpg --homedir state/gnupg --with-colons --list-keys 2>/dev/null |
	awk -F: '$1 == "fpr" { print $10; exit }')
test_cleanup "gpgconf --homedir '$W/state/gnupg' --kill all"

ago() { date -u -d "$1 ago" +%Y-%m-%d; }
printf 'Event: rule\nDate: %s\nRule: fixed-term\nParameters: term=4y\nSource: import\n' \
	"$(ago '6 years')" >ledger
for who in "Carol Chair:carol:$CAROL" "Alice Member:alice:$ALICE" "Bob Member:bob:$BOB"; do
	fpr=${who##*:}
	who=${who%:*}
	committee_event appoint "$year_ago" "Member: ${who%%:*} <${who#*:}@example.org>" \
		"Fingerprint: $fpr"
done
committee_conf rule.name=fixed-term roles.chair="$CAROL" roles.leader="$LEO" \
	keys.gnupg-home=state/gnupg keys.bot-key="$BOT"

# mbox_of FILE...: an mbox of the mails, arrived now.
mbox_of() {
	for f in "$@"; do
		printf 'From sender %s\n' "$(LC_ALL=C date -u '+%a %b %e %H:%M:%S %Y')"
		sed 's/^\(>*From \)/>\1/' "$f"
		printf '\n'
	done
}

# Bob's first command is refused (a date more than a year ahead), and
# `tenure import` queues the reply to him without sending it: a mail a
# pass would send, queued earlier.
mbox_of "$(signed_mail "$BOB" bob@example.org bob-early "Tenure: resign
Effective: $(date -u -d '3 years' +%Y-%m-%d)")" >early.mbox
"$TENURE" --config tenure.conf import -q mbox:early.mbox >/dev/null 2>&1
gpgconf --homedir "$W/state/gnupg" --kill all

# Then the administrator completes the history by hand with two members
# it had left out, and with them two expiries it never recorded: Dave's
# term ended a year ago, Erin's two months ago (fixed terms of four
# years).
committee_event appoint "$(ago '5 years')" "Member: Dave Member <dave@example.org>" \
	"Fingerprint: $DAVE"
committee_event appoint "$(ago '50 months')" "Member: Erin Member <erin@example.org>" \
	"Fingerprint: $ERIN"

# The list: Alice resigns, Bob's second command is refused again with a
# reply, Mallory's key is in no keyring, a discussion mail carries no
# command, and a FIFO is no mail at all (a pass sets it aside).
deliver inbox "$(signed_mail "$ALICE" alice@example.org alice-resign "Tenure: resign")"
deliver inbox "$(signed_mail "$BOB" bob@example.org bob-again "Tenure: resign
Effective: $(date -u -d '2 years' +%Y-%m-%d)")"
deliver inbox "$(signed_mail "$MALLORY" mallory@example.org forged "Tenure: resign")"
printf 'From: dave@example.org\nTo: debian-ctte@lists.debian.org\nSubject: hi\nMessage-ID: <chat@example.org>\n\nHello.\n' >m/chat.eml
deliver inbox m/chat.eml
mkfifo inbox/new/not-a-mail

# snapshot PATH...: every file and directory with its type, mode, size,
# modification time and inode, and every file's SHA-256: a write of any
# kind (even of the same bytes, or a file made and removed) changes it.
snapshot() {
	for p in "$@"; do
		if [ ! -e "$p" ]; then
			echo "absent $p"
			continue
		fi
		find "$p" -printf '%p %y %m %s %T@ %i\n' | sort
		find "$p" -type f -exec sha256sum {} + | sort
	done
}
real_things="state ledger inbox sent keyring.gpg tenure.conf"
snapshot $real_things >before.snap
cp ledger ledger.before

test_begin "run --dry-run exits 0"
TMPDIR=$W/tmp "$TENURE" --config tenure.conf run --dry-run >dry.out 2>dry.log
rc=$?
test_expect_equal 0 "$rc"
[ "$rc" = 0 ] || cat dry.log dry.out | sed 's/^/# /'

test_begin "run --dry-run writes nothing: state, GnuPG home, ledger, source and sink unchanged"
snapshot $real_things >after.snap
test_expect_equal_file before.snap after.snap

test_begin "run --dry-run leaves no copy behind and no gpg-agent running"
left=$(ls -A tmp)
agents=$(ps -eo args | grep -c "[g]pg-agent.*$W/tmp" || true)
test_expect_equal "0 0" "${#left} $agents"

# The sections of the report.
section() { # WORD: the lines of the report's WORD section (indented)
	awk -v w="$1" '/^[a-z]/ { on = ($1 == w); next } on' dry.out
}

test_begin "the dry run lists the past-due expiries and the resignation it would append"
events=$(section append | sed -n 's/^ *Event: //p' | tr '\n' ' ')
members=$(section append | sed -n 's/^ *Member: //p' | tr '\n' ' ')
test_expect_equal "expire expire resign | Dave Member <dave@example.org> Erin Member <erin@example.org> Alice Member <alice@example.org> " \
	"$events| $members"

test_begin "the dry run says how many events, and where"
test_expect_equal "append 3 events to $W/ledger:" "$(grep '^append' dry.out)"

test_begin "the dry run lists each mail it would queue, with its kind, recipients and subject"
queued=$(section queue | sed 's/: .*//')
test_expect_equal "2 expire, 1 resign, 1 reply, $(section queue | wc -l) with a subject" \
	"$(printf '%s\n' "$queued" | grep -c '^  announce-expire to debian-ctte@lists.debian.org$') expire, $(printf '%s\n' "$queued" | grep -c '^  announce-resign to debian-ctte@lists.debian.org$') resign, $(printf '%s\n' "$queued" | grep -c '^  reply to bob@example.org$') reply, $(section queue | grep -c '^  [a-z-]* to [^:]*: [^ ]') with a subject"

test_begin "the dry run lists the mail queued earlier that the pass would send"
test_expect_equal "  reply to bob@example.org" "$(section send | sed 's/: .*//')"

test_begin "the dry run lists the mail it would refuse, and why"
refused=$(section refuse)
if printf '%s\n' "$refused" | grep -q '<forged@example.org> from mallory@example.org: unknown key' &&
	printf '%s\n' "$refused" | grep -q '<bob-again@example.org> from bob@example.org: .*year'; then
	test_pass
else
	test_fail "got: $refused"
fi

test_begin "the dry run's mail is signed with the bot key (its GnuPG home was copied)"
if grep -q '^signing' dry.log || grep -q 'run-error' dry.log; then
	test_fail "$(cat dry.log)"
else
	test_pass
fi

# --- The real pass does what the dry run said --------------------------------

"$TENURE" --config tenure.conf run --once >run.out 2>run.log
test_begin "the real pass appends the stanzas the dry run showed (Recorded aside)"
tail -c +$(($(wc -c <ledger.before) + 1)) ledger | grep -v '^Recorded:' |
	sed '/./,$!d' >real.stanzas
section append | sed 's/^    //' | grep -v '^Recorded:' >dry.stanzas
test_expect_equal_file dry.stanzas real.stanzas

# mails DIR: "KIND to RECIPIENTS: SUBJECT" of each mail in a sink Maildir.
mails() {
	/usr/bin/python3 - "$1" <<'EOF'
import email, email.policy, os, sys
d = os.path.join(sys.argv[1], "new")
for name in sorted(os.listdir(d)):
    with open(os.path.join(d, name), "rb") as f:
        m = email.message_from_binary_file(f, policy=email.policy.default)
    print("  %s to %s: %s" % (m["X-Tenure"], m["X-Envelope-To"], m["Subject"]))
EOF
}
test_begin "the real pass sends the mail the dry run listed (queued now and earlier)"
{ section queue; section send; } | sort >dry.mails
mails sent | sort >real.mails
test_expect_equal_file dry.mails real.mails

test_begin "the real pass moved what the dry run left in new/"
test_expect_equal "0" "$(ls inbox/new | wc -l)"

# --- import --dry-run ---------------------------------------------------------

mbox_of "$(signed_mail "$CAROL" carol@example.org carol-resign "Tenure: resign")" >archive.mbox
gpgconf --homedir "$W/state/gnupg" --kill all
snapshot $real_things archive.mbox >before.snap
cp ledger ledger.before
TMPDIR=$W/tmp "$TENURE" --config tenure.conf import --dry-run mbox:archive.mbox \
	>dry.out 2>dry.log
rc=$?
test_begin "import --dry-run exits 0 and writes nothing"
snapshot $real_things archive.mbox >after.snap
if [ "$rc" = 0 ] && diff -u before.snap after.snap >snap.diff; then
	test_pass
else
	test_fail "exit $rc" "$(cat dry.log snap.diff)"
fi
test_begin "import --dry-run lists the event the import would append"
test_expect_equal "resign Carol Chair <carol@example.org>" \
	"$(section append | sed -n 's/^ *Event: //p') $(section append | sed -n 's/^ *Member: //p')"
test_begin "import --dry-run counts the messages it read"
test_expect_equal "import --dry-run: 1 messages read, 1 ledger events would be added" \
	"$(grep '^import' dry.out)"

"$TENURE" --config tenure.conf import -q mbox:archive.mbox >/dev/null 2>&1
test_begin "the real import appends what import --dry-run showed"
tail -c +$(($(wc -c <ledger.before) + 1)) ledger | grep -v '^Recorded:' |
	sed '/./,$!d' >real.stanzas
section append | sed 's/^    //' | grep -v '^Recorded:' >dry.stanzas
test_expect_equal_file dry.stanzas real.stanzas

# --- Refusals ---------------------------------------------------------------

test_begin "a dry run while another tenure holds the lock says so and writes nothing"
snapshot $real_things >before.snap
(exec 9<state/lock && flock -x 9 && exec sleep 30) &
holder=$!
test_cleanup "kill $holder"
sleep 0.3
TMPDIR=$W/tmp "$TENURE" --config tenure.conf run --dry-run >/dev/null 2>lock.err
rc=$?
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
snapshot $real_things >after.snap
if [ "$rc" = 1 ] && grep -q 'holds the lock' lock.err && cmp -s before.snap after.snap &&
	[ -z "$(ls -A tmp)" ]; then
	test_pass
else
	test_fail "exit $rc" "$(cat lock.err)" "$(diff before.snap after.snap)"
fi

test_begin "a dry run without a ledger names the real file and writes nothing"
mv ledger ledger.away
TMPDIR=$W/tmp "$TENURE" --config tenure.conf run --dry-run >/dev/null 2>missing.err
rc=$?
mv ledger.away ledger
test_expect_equal "1 tenure run: $W/ledger: the ledger is missing; restore it, or start a new committee with \`tenure init\`" \
	"$rc $(cat missing.err)"

test_done
