#!/bin/sh
# t-check-config-holders.sh: for each member the ledger records no key
# for, check-config names the keyring keys that carry the member's
# address on a user ID neither revoked nor invalid, whatever its case,
# from every keyring file: never a key whose address merely contains
# it.  One gpg run looks every address up (issue 39 item 3): the notes
# are what they were when each address took a run of its own.  The
# [roles] and recorded keys are found in the files' packets, without a
# second gpg run over the files: a subkey held counts, a key no file
# holds is named.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
cd "$W" || exit 1
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
CAROL_SUB=$(gpg_add_signing_subkey carol@example.org)
ANN=$(gpg_new_key "Ann Member" ann@example.org)
# An address that holds Ann's: not hers.
JOANN=$(gpg_new_key "Jo Ann" joann@example.org)
# Ann's address in capitals, on a second key, in a second file.
gpg_new_key "Ann Again" ANN@Example.ORG >/dev/null
ANN2=$(gw --with-colons --list-keys "Ann Again" 2>/dev/null |
	awk -F: '$1 == "fpr" { print $10; exit }')
# Ann's address on a user ID revoked since.
OTHER=$(gpg_new_key "Other Person" other@example.org)
gw --quick-add-uid "$OTHER" "Ann Once <ann@example.org>" 2>/dev/null
gw --quick-revoke-uid "$OTHER" "Ann Once <ann@example.org>" 2>/dev/null
gpg_export_keyring keyring.gpg carol@example.org ann@example.org \
	joann@example.org other@example.org
gw --export "$ANN2" >second.gpg 2>/dev/null
committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Ann Member <ann@example.org>" "Bea Member <bea@example.org>" \
	"Jo Ann <joann@example.org>"
mkdir -p state
BOT=$(committee_bot_key)
committee_conf roles.chair="$CAROL" roles.leader="$CAROL" keys.bot-key="$BOT" \
	keys.keyring="keyring.gpg;second.gpg"

# gpg, noting each run that reads the keyring files in $W/file-runs.
cat >count-gpg <<EOS
#!/bin/sh
case " \$* " in *" --keyring "*) echo "\$*" >>"$W/file-runs" ;; esac
exec gpg "\$@"
EOS
chmod +x count-gpg
TENURE_GPG_PROGRAM=$W/count-gpg
export TENURE_GPG_PROGRAM
: >file-runs

rc=0
"$TENURE" check-config --config tenure.conf >cc.out 2>cc.err || rc=$?
grep '^note: .*has no Fingerprint' cc.out |
	sed 's/.*: \(.*\) has no Fingerprint.*keyring keys with \([^:]*\): \(.*\) (a hint.*/\1; \2: \3/' >notes

test_begin "check-config names the keys with each keyless member's address, in any case, from every file"
if grep -qx "Ann Member <ann@example.org>; ann@example.org: $ANN, $ANN2" notes; then
	test_pass
else
	test_fail "expected Ann's note to name $ANN, $ANN2" "got:" "$(cat cc.out cc.err)"
fi

test_begin "... never a key whose address holds the member's, nor one where it is on a revoked user ID"
if ! grep -q "^Ann.*\($JOANN\|$OTHER\)" notes &&
	grep -qx "Jo Ann <joann@example.org>; joann@example.org: $JOANN" notes; then
	test_pass
else
	test_fail "expected Jo Ann's key for her alone, the revoked user ID's key for no one" \
		"got:" "$(cat cc.out cc.err)"
fi

test_begin "... and none for a member no key carries"
test_expect_equal "Bea Member <bea@example.org>; bea@example.org: none" \
	"$(grep '^Bea' notes)"

test_begin "... three notes, which leave check-config's exit status 0"
test_expect_equal "3 0" "$(wc -l <notes | tr -d ' ') $rc"

test_begin "... in one gpg run over the keyring files"
test_expect_equal "1" "$(wc -l <file-runs | tr -d ' ')"

NOBODY=0123456789ABCDEF0123456789ABCDEF01234567
committee_conf roles.chair="$CAROL" roles.leader="$NOBODY" \
	roles.secretary="$CAROL_SUB" keys.bot-key="$BOT" \
	keys.keyring="keyring.gpg;second.gpg"
"$TENURE" check-config --config tenure.conf >cc2.out 2>cc2.err || :
test_begin "a [roles] key no keyring file holds is named; a subkey one holds is not"
if grep -q "\[roles\] leader: key $NOBODY is in no \[keys\] keyring" cc2.out cc2.err &&
	! grep -q "$CAROL_SUB is in no" cc2.out cc2.err; then
	test_pass
else
	test_fail "expected the leader's key named, the secretary's subkey not" \
		"got:" "$(cat cc2.out cc2.err)"
fi

test_done
