#!/bin/sh
# t-mbox-dates.sh: when a mail arrived decides its signature's age limit
# and whose authority counts, and an mbox tells it by the From_ line.
# The forms list archives write are read (asctime, asctime with a zone
# before the year, RFC 5322's form); a line with no date tenure can read
# sets its mail aside saying so, never a verdict on the member (it was
# refused as "signature dated in the future": arrival 1970).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/lib-gpg.sh"
. "$top_srcdir/tests/lib-committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
for who in alice bob carol dave; do
	name=$(printf '%s' "$who" | sed 's/^./\U&/')
	eval "$(printf '%s' "$who" | tr a-z A-Z)=\$(gpg_new_key \"$name Member\" $who@example.org)"
done
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org dave@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB" \
	"Carol Member <carol@example.org> $CAROL" \
	"Dave Member <dave@example.org> $DAVE"
committee_conf

asctime=$(date -u '+%a %b %e %H:%M:%S %Y')
zoned=$(date -u '+%a %b %e %H:%M:%S +0000 %Y')
rfc5322=$(date -u -R)
{
	printf 'From alice@example.org %s\n' "$asctime"
	cat "$(signed_mail "$ALICE" alice@example.org a "Tenure: resign")"
	printf '\nFrom bob@example.org %s\n' "$zoned"
	cat "$(signed_mail "$BOB" bob@example.org b "Tenure: resign")"
	printf '\nFrom carol@example.org %s\n' "$rfc5322"
	cat "$(signed_mail "$CAROL" carol@example.org c "Tenure: resign")"
	printf '\nFrom dave@example.org sometime last week\n'
	cat "$(signed_mail "$DAVE" dave@example.org d "Tenure: resign")"
} >"$W/archive.mbox"
"$TENURE" --config "$CONF" import "mbox:$W/archive.mbox" >"$W/out" 2>"$W/log"

for case in "Alice:asctime" "Bob:asctime with a zone before the year" \
	"Carol:RFC 5322's form"; do
	test_begin "a From_ line in $(echo "${case#*:}"): the resignation is applied"
	if resigned "${case%%:*}"; then
		test_pass
	else
		test_fail "$(cat "$W/log")"
	fi
done

test_begin "a From_ line without a date: set aside saying so, not refused"
if ! resigned Dave && ! grep -q '^refused .*dave' "$W/log" &&
	grep -q 'does not say when this mail arrived' "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi

test_done
