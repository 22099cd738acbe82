#!/bin/sh
# t-keyring-named.sh: the keys a command names, and tenure's own key,
# are looked up in the keyblocks that carry them alone (issue 39 item
# 3), with the verdicts the keyring files read whole gave: a subkey's
# fingerprint named in an appointment is refused naming its primary
# key; a revoked or an expired key named as a new key is not usable;
# [keys] bot-key naming a subkey makes its primary key tenure's own
# key, for every command, however often it is asked.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
cd "$W" || exit 1
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
NINA=$(gpg_new_key "Nina Newcomer" nina@example.org)
NINA_SUB=$(gpg_add_signing_subkey nina@example.org)
VERA=$(gpg_new_key "Vera Revoked" vera@example.org)
gpg_revoke vera@example.org
# Made 30 days ago, for 10 days: expired 20 days ago.
EDDA=$(gpg_new_key "Edda Expired" edda@example.org 10d)
FRED=$(gpg_new_key "Fred Fresh" fred@example.org)
BOT=$(gpg_new_key "Tenure Bot" tenure@example.org)
BOT_SUB=$(gpg_add_signing_subkey tenure@example.org)
gpg_export_keyring keyring.gpg carol@example.org bob@example.org \
	nina@example.org tenure@example.org
gpg_export_keyring others.gpg vera@example.org edda@example.org \
	fred@example.org
touch -d '1 hour ago' ./*.gpg

committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Bob Member <bob@example.org> $BOB"
committee_conf roles.chair="$CAROL" keys.keyring="keyring.gpg;others.gpg" \
	keys.bot-key="$BOT_SUB"
mkdir -m 700 g
gw --export-secret-keys "$BOT" | gpg --homedir g --batch --quiet --import 2>/dev/null

# gpg, noting each run over a home that reads the keyring files whole
# in $W/whole-runs.
cat >count-gpg <<EOS
#!/bin/sh
prev=
for a; do
	[ "\$prev" = --homedir ] && grep -qsF -e '/keyring.gpg"' -e '/others.gpg"' \
		"\$a/gpg.conf" && echo "\$*" >>"$W/whole-runs"
	prev=\$a
done
exec gpg "\$@"
EOS
chmod +x count-gpg
TENURE_GPG_PROGRAM=$W/count-gpg
export TENURE_GPG_PROGRAM
: >whole-runs

send() {
	before=$(events)
	import_mail "$(signed_mail --clearsign "$1" "$2" "$3" "$4")"
}

send "$CAROL" carol@example.org appoint-sub "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA_SUB
Project-Joined: 2010-05-01"
expect_refused "an appointment naming a subkey's fingerprint is refused, naming its primary key" \
	"Fingerprint: $NINA_SUB is a subkey of $NINA"

send "$CAROL" carol@example.org appoint-bot "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $BOT
Project-Joined: 2010-05-01"
expect_refused "[keys] bot-key a subkey: an appointment naming its primary key is refused as tenure's own" \
	"Fingerprint: $BOT is tenure's own key"

send "$CAROL" carol@example.org appoint-bot-again "Tenure: appoint
Member: Fred Fresh <fred@example.org>
Fingerprint: $BOT
Project-Joined: 2010-05-02"
expect_refused "... and so is the next (the answer kept, not lost)" \
	"Fingerprint: $BOT is tenure's own key"

send "$BOB" bob@example.org newkey-revoked "Tenure: new-key
Fingerprint: $VERA"
expect_refused "a revoked key named as a new key is not usable" \
	"Fingerprint: $VERA is not a usable key in the keyring"

send "$BOB" bob@example.org newkey-expired "Tenure: new-key
Fingerprint: $EDDA"
expect_refused "an expired key named as a new key is not usable" \
	"Fingerprint: $EDDA is not a usable key in the keyring"

send "$BOB" bob@example.org newkey-subkey "Tenure: new-key
Fingerprint: $NINA_SUB"
expect_refused "a subkey named as a new key is refused, naming its primary key" \
	"Fingerprint: $NINA_SUB is a subkey of $NINA"

send "$BOB" bob@example.org newkey-fred "Tenure: new-key
Fingerprint: $FRED"
test_begin "a usable key of the second file named as a new key waits for its own half"
if grep -q "not a usable key\|refused" log; then
	test_fail "expected no refusal" "$(cat log)"
else
	test_pass
fi

test_begin "no gpg run read the keyring files whole"
test_expect_equal "" "$(cat whole-runs)"

test_done
