#!/bin/sh
# t-check-config.sh: check-config checks what `tenure run` opens (the bot
# key in this committee's GnuPG home and able to sign unattended, the
# state directory and the GnuPG home and who owns them, the templates,
# the source), says each problem once, and ends with what run would do:
# the committee as `tenure status` shows it, its roles' holders by name.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
cd "$W" || exit 1
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
gpg_export_keyring keyring.gpg carol@example.org alice@example.org \
	bob@example.org leo@example.org
committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE" "Bob Member <bob@example.org> $BOB"
committee_event role "$year_ago" "Role: leader" "Member: Leo Leader <leo@example.org>" \
	"Fingerprint: $LEO"
mkdir -p state

# bot_key HOME [PASSPHRASE]: a new signing key in the GnuPG home HOME
# (its agent stopped again, so that no passphrase stays cached); prints
# its fingerprint.
bot_key() {
	mkdir -p "$1"
	chmod 700 "$1"
	gpg --homedir "$1" --batch --quiet --pinentry-mode loopback \
		--passphrase "${2:-}" --quick-gen-key "tenure <tenure@example.org>" \
		ed25519 sign never 2>/dev/null
	gpgconf --homedir "$1" --kill all
	gpg --homedir "$1" --with-colons --list-keys 2>/dev/null |
		awk -F: '$1 == "fpr" { print $10; exit }'
}
BOT=$(bot_key g)
test_cleanup "gpgconf --homedir '$W/g2' --kill all; gpgconf --homedir '$W/g3' --kill all"

committee_conf roles.chair="$CAROL" roles.secretary="$BOB" keys.bot-key="$BOT"

# check [CONF]: check-config; stdout in cc.out, stderr in cc.err, the
# exit status in $rc.
check() {
	rc=0
	"$TENURE" check-config --config "${1:-tenure.conf}" >cc.out 2>cc.err || rc=$?
}
# expect_problem DESCRIPTION TEXT: one check: exit 1, and TEXT (fixed)
# on exactly one line of all check-config said.
expect_problem() {
	test_begin "$1"
	n=$(cat cc.out cc.err | grep -cF -- "$2")
	if [ "$rc" = 1 ] && [ "$n" = 1 ]; then
		test_pass
	else
		test_fail "expected exit 1 and one line with: $2" \
			"got exit $rc, $n such lines:" "$(cat cc.out cc.err)"
	fi
}

check
test_begin "check-config passes a committee whose every resource is there"
test_expect_equal "0 " "$rc $(cat cc.err)"

test_begin "check-config ends with the committee as tenure status shows it"
"$TENURE" --config tenure.conf status >status.out 2>&1
first=$(grep -nxF "$(head -n 1 status.out)" cc.out | cut -d: -f1)
tail -n +"${first:-1}" cc.out | head -n "$(wc -l <status.out)" >cc.status
test_expect_equal_file status.out cc.status

test_begin "check-config names the holders of the roles and says where mail comes from and goes"
if grep -qxF "Chair: Carol Chair <carol@example.org>; leader: Leo Leader <leo@example.org>" cc.out &&
	grep -qxF "Secretary ([roles] secretary, may sign handovers): Bob Member <bob@example.org>" cc.out &&
	grep -qxF "tenure run would read list mail from maildir:$W/inbox" cc.out &&
	grep -qxF "and send mail through maildir:$W/sent from tenure@example.org," cc.out &&
	grep -qxF "signed by $BOT, for this committee" cc.out; then
	test_pass
else
	test_fail "$(cat cc.out)"
fi

test_begin "check-config's test signature leaves no gpg-agent running"
if gpg-connect-agent --homedir "$W/g" --no-autostart /bye 2>&1 | grep -q 'no gpg-agent running'; then
	test_pass
else
	test_fail "a gpg-agent serves $W/g"
fi

# A second committee, set up by copying the first one's configuration:
# its own GnuPG home, but the first one's bot-key.
mkdir -p state2 g2
chmod 700 g2
committee_conf second.conf roles.chair="$CAROL" keys.bot-key="$BOT" \
	keys.gnupg-home=g2 committee.state-dir=state2
check second.conf
expect_problem "a bot-key whose secret key is not in this committee's GnuPG home is a problem" \
	"[keys] bot-key $BOT: [keys] gnupg-home $W/g2 holds no secret key for it"

committee_conf nostate.conf roles.chair="$CAROL" committee.state-dir=nostate
check nostate.conf
expect_problem "a state directory that does not exist is a problem" \
	"[committee] state-dir: $W/nostate does not exist"

LOCKED=$(bot_key g3 secret)
mkdir -p state3
committee_conf locked.conf roles.chair="$CAROL" keys.bot-key="$LOCKED" \
	keys.gnupg-home=g3 committee.state-dir=state3
check locked.conf
expect_problem "a bot key that needs a passphrase cannot sign unattended: a problem" \
	"[keys] bot-key $LOCKED: cannot sign unattended"

cp -r "$top_srcdir/templates" tpl
chmod -R u+w tpl
printf 'From: {{from_name}} <{{from}}>\nTo: {{to}}\nSubject: {{subject\n\n{{transcript}}\n' >tpl/reply.txt
rm tpl/reminder.txt
committee_conf tpl.conf roles.chair="$CAROL" committee.templates=tpl
check tpl.conf
expect_problem "a template that does not make a mail is a problem naming its file and line" \
	"[committee] templates: $W/tpl/reply.txt:3:"
expect_problem "a missing template is a problem" \
	"[committee] templates: no template reminder.txt in $W/tpl"

mkdir -p empty
committee_conf empty.conf roles.chair="$CAROL" committee.templates=empty
check empty.conf
test_begin "check-config checks the template of every kind of mail tenure sends"
expected=$(cd "$top_srcdir/templates" && ls *.txt | tr '\n' ' ')
checked=$(sed -n 's/.*\[committee\] templates: no template \(.*\) in .*/\1/p' cc.err |
	tr -d ',' | tr ' ' '\n' | sort | tr '\n' ' ')
test_expect_equal "$expected" "$checked"

# Eight members the ledger records no key for, and a keyring that cannot
# be read: one line about the keyring, not one more per member.
committee_ledger --file keyless.ledger "Carol Chair <carol@example.org> $CAROL" \
	"M1 <m1@example.org>" "M2 <m2@example.org>" "M3 <m3@example.org>" \
	"M4 <m4@example.org>" "M5 <m5@example.org>" "M6 <m6@example.org>" \
	"M7 <m7@example.org>"
committee_conf keyless.conf roles.chair="$CAROL" roles.leader="$CAROL" \
	committee.ledger=keyless.ledger keys.keyring=missing.gpg
check keyless.conf
expect_problem "a keyring that cannot be read is said once, not in every member's note" \
	"missing.gpg"

# --- Owners: as another user than the one owning the files --------------

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	for what in "a GnuPG home of another user's" "a Maildir source the user cannot write"; do
		_test_count=$((_test_count + 1))
		echo "ok $_test_count # SKIP $what (needs root and setpriv)"
	done
	test_done
	exit
fi
# The user nobody checks a committee of its own, in a tree it can
# reach, whose GnuPG home and list Maildir are root's.
chmod 0711 "$TEST_DIR"
S=$W/svc
mkdir -p "$S/state" "$S/inbox/new" "$S/inbox/cur" "$S/inbox/tmp" "$S/g"
cp "$TENURE" "$S/tenure"
cp -r "$top_srcdir/templates" "$S/templates"
cp keyring.gpg "$S/"
committee_ledger --file "$S/ledger" "Carol Chair <carol@example.org> $CAROL"
committee_conf "$S/tenure.conf" roles.chair="$CAROL" roles.leader="$CAROL" \
	committee.ledger=ledger committee.state-dir=state committee.templates=templates \
	keys.gnupg-home=g source.url=maildir:inbox
chmod -R a+rX "$S"
chown -R nobody "$S/state" "$S/ledger"
chmod 700 "$S/g"
rc=0
setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	"$S/tenure" --config "$S/tenure.conf" check-config >cc.out 2>cc.err || rc=$?
expect_problem "a GnuPG home of another user's is a problem naming both" \
	"[keys] gnupg-home: $S/g belongs to root, not to nobody"
expect_problem "a Maildir source the user cannot write is a problem" \
	"[source] url: $S/inbox/new (owner root, mode 0755) is not writable by nobody"

test_done
