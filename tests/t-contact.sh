#!/bin/sh
# t-contact.sh: replies reach a human (issue 26 item 9).  Reminders and
# transcripts carry Reply-To: [committee] contact and name it in their
# text; check-config wants a contact when [sink] from is the mailbox the
# IMAP source reads; a transcript's subject does not stack "Re:".
# Through `tenure run --once` into a Maildir sink; keys and mail are
# made for the run.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init

CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
OSCAR=$(gpg_new_key "Oscar Outsider" oscar@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	oscar@example.org leo@example.org
SENT=$W/sent/new

# --- check-config: the shipped mistake, one address for both ------------

echo secret >"$W/imap-password"
chmod 600 "$W/imap-password"
committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE"
committee_conf imap.conf roles.chair="$CAROL" roles.leader="$LEO" \
	source.url=imaps://127.0.0.1:1 source.user=tenure \
	source.password-file="$W/imap-password"
"$TENURE" --config "$W/imap.conf" check-config >"$W/out" 2>&1
test_begin "check-config wants a contact when [sink] from is the source's mailbox"
if grep -q "\[committee\] contact: missing, and \[sink\] from tenure@example.org is the mailbox the source reads" "$W/out"; then
	test_pass
else
	test_fail "expected the missing contact as a problem" "$(cat "$W/out")"
fi

committee_conf imap.conf roles.chair="$CAROL" roles.leader="$LEO" \
	source.url=imaps://127.0.0.1:1 source.user=tenure \
	source.password-file="$W/imap-password" committee.contact=carol@example.org
"$TENURE" --config "$W/imap.conf" check-config >"$W/out" 2>&1
test_begin "with a contact, check-config says nothing of it"
if grep -q "contact" "$W/out"; then
	test_fail "expected no word about the contact" "$(cat "$W/out")"
else
	test_pass
fi

# --- the transcript of a refusal ------------------------------------------

committee_conf roles.chair="$CAROL" roles.leader="$LEO" \
	committee.contact=secretary@example.org
mail=$(signed_mail "$OSCAR" oscar@example.org oscar-resigns "Tenure: resign")
sed -i 's/^Subject: command$/Subject: Re: RE: re[2]: Tenure  resign/' "$mail"
deliver "$W/inbox" "$mail"
"$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
reply=$(grep -l "^X-Tenure: reply" "$SENT"/* 2>/dev/null)

test_begin "the transcript's Reply-To is the contact"
if [ -n "$reply" ] && grep -q "^Reply-To: secretary@example.org" "$reply"; then
	test_pass
else
	test_fail "expected Reply-To: secretary@example.org" "$(cat "$W/log")"
fi

test_begin "the transcript names the contact in its text"
if [ -n "$reply" ] && tr -d '\r' <"$reply" | tr '\n' ' ' |
	grep -q "A reply to this mail goes to secretary@example.org"; then
	test_pass
else
	test_fail "expected the contact named in the text" "$(cat "$reply" 2>/dev/null)"
fi

test_begin "the transcript's subject has one Re:"
test_expect_equal "Subject: Re: Tenure  resign" \
	"$(grep '^Subject:' "$reply" 2>/dev/null | tr -d '\r')"

test_done
