#!/bin/sh
# t-run-setup-warnings.sh: `tenure run --once`, the timer's pass, which
# no check-config precedes, logs what check-config warns of in the
# committee's set-up (issue 26, item 4): a [roles] chair who no longer
# serves (the chair vacant), and a member's or role holder's key that no
# keyring holds; in check-config's words, once a pass however much mail
# the pass reads.  A set-up without either logs none.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
cd "$W" || exit 1
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE"
gpg_export_keyring keyring.gpg carol@example.org alice@example.org leo@example.org
mkdir -p state sent/new sent/cur sent/tmp
mkdir -m 0700 -p g
committee_conf roles.chair="$CAROL" roles.leader="$LEO"

# three_mails: three plain list mails (no command) in the inbox.
three_mails() {
	for n in 1 2 3; do
		printf 'From: m%s@example.org\nTo: debian-ctte@lists.debian.org\nSubject: m%s\nMessage-ID: <m%s-%s@test>\n\nbody\n' \
			"$n" "$n" "$n" "$1" >"inbox/new/$1-$n"
	done
}

# once NAME: run --once after three new mails; its log in NAME.log.
once() {
	three_mails "$1"
	rc=0
	"$TENURE" --config "$CONF" run --once >"$1.out" 2>"$1.log" || rc=$?
}

once good
test_begin "a set-up check-config passes without a warning: the pass logs none"
test_expect_equal "0" "$(grep -c 'setup-warning' good.log)" "$(cat good.log)"

# Carol, the [roles] chair the ledger records no role event for,
# resigned; Alice's key is no longer in the keyring.
committee_event resign "$(date -u -d '2 days ago' +%Y-%m-%d)" \
	"Member: Carol Chair <carol@example.org>"
gpg_export_keyring keyring.gpg carol@example.org leo@example.org
"$TENURE" --config "$CONF" check-config >cc.all 2>&1

once vacant
vacant="[roles] chair: $CAROL is the key of Carol Chair <carol@example.org>, who is not a member today: the chair is vacant"
missing="[committee] ledger: member Alice Member <alice@example.org>: key $ALICE is in no [keys] keyring"
test_begin "check-config says both (the premise)"
test_expect_equal "1 1" \
	"$(grep -cF -- "$vacant" cc.all) $(grep -cF -- "$missing" cc.all)" "$(cat cc.all)"

test_begin "run --once logs the vacant chair once, in check-config's words, after three mails"
test_expect_equal "1" \
	"$(grep 'setup-warning' vacant.log | grep -cF -- "$vacant")" "$(cat vacant.log)"

test_begin "... and the member's key no keyring holds, once"
test_expect_equal "1" \
	"$(grep 'setup-warning' vacant.log | grep -cF -- "$missing")" "$(cat vacant.log)"

test_begin "... and nothing else as a set-up warning"
test_expect_equal "2" "$(grep -c 'setup-warning' vacant.log)" "$(cat vacant.log)"

test_begin "... and the pass read the three mails all the same"
test_expect_equal "0" "$(find inbox/new -type f | wc -l)"

test_done
