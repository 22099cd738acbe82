#!/bin/sh
# t-unsent.sh: a mail that cannot be composed or signed waits; it is
# never dropped (issue 26 item 3), and a member's name is data, never
# header syntax (issue 24 item 7).  Through `tenure run --once` into a
# Maildir sink: a refusal whose transcript cannot be signed (the bot's
# secret key is not in tenure's GnuPG home) stays unsent, makes the pass
# exit 1, is logged in plain words once and listed by `tenure status`,
# and goes out once the key is back; an appointment naming an
# encoded-word is refused with a transcript.  Keys and mail are made for
# the run.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init

CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
OSCAR=$(gpg_new_key "Oscar Outsider" oscar@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
BOT=$(gpg_new_key "Tenure Bot" tenure@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	oscar@example.org leo@example.org

# tenure's own GnuPG home, short for gpg-agent's socket; the bot's
# secret key is not in it yet.
HOME_G=$(mktemp -d /tmp/tn.XXXXXX)
chmod 700 "$HOME_G"
test_cleanup "gpgconf --homedir '$HOME_G' --kill all; rm -rf '$HOME_G'"

SENT=$W/sent/new
STATE=$W/state
committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE"
committee_conf roles.chair="$CAROL" roles.leader="$LEO" \
	keys.gnupg-home="$HOME_G" keys.bot-key="$BOT"

# Every pass is under --now, at the real time when none is given: the
# state is a rehearsal's, where --now may come after (issue 42 item 1:
# --now is refused on a state that a pass at the real time wrote).
run_once() {
	[ $# -gt 0 ] || set -- --now "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	"$TENURE" --config "$CONF" "$@" run --once >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}

sent_of_kind() {
	grep -l "^X-Tenure: $1\$" "$SENT"/* 2>/dev/null | sort
}

# --- Issue 26 item 3: a refusal that cannot be signed waits -------------

deliver "$W/inbox" "$(signed_mail "$OSCAR" oscar@example.org oscar-resigns \
	"Tenure: resign")"
run_once

test_begin "a transcript that cannot be signed makes run --once exit 1"
test_expect_equal "$(cat "$W/status")" 1

test_begin "the log says in plain words that the bot's secret key is missing"
if grep -q "mail-unsent .*the bot's secret key $BOT is not in the GnuPG home" "$W/log" &&
	! grep -q "End of file" "$W/log"; then
	test_pass
else
	test_fail "expected mail-unsent naming the missing secret key" "$(cat "$W/log")"
fi

test_begin "the refusal is not logged as a reply that failed, and nothing is sent"
if grep -q "reply-failed" "$W/log" || [ -n "$(sent_of_kind reply)" ]; then
	test_fail "expected no reply-failed and no reply sent" "$(cat "$W/log")"
else
	test_pass
fi

test_begin "status lists the transcript as waiting, not composed"
"$TENURE" --config "$CONF" status >"$W/status-out" 2>&1
if grep -q "not composed: signing with \[keys\] bot-key $BOT: the bot's secret key" \
	"$W/status-out" && grep -q "warning: 1 message(s) could not be sent yet" "$W/status-out"; then
	test_pass
else
	test_fail "expected the unsent transcript in status" "$(cat "$W/status-out")"
fi

# A later pass, its retry not due yet: still waiting, still exit 1,
# and the same failure is not logged again.
run_once
test_begin "a pass before the retry is due exits 1 and logs nothing new"
if [ "$(cat "$W/status")" = 1 ] && ! grep -q "mail-unsent" "$W/log" &&
	! grep -q "^refused " "$W/log"; then
	test_pass
else
	test_fail "expected exit 1, no mail-unsent line, no second refusal" \
		"status $(cat "$W/status")" "$(cat "$W/log")"
fi

# The retry, due, with the key still missing: tried, failing the same
# way, logged no more.
later=$(date -u -d '+2 minutes' +%Y-%m-%dT%H:%M:%SZ)
run_once --now "$later"
test_begin "a due retry that fails the same way is not logged again"
if [ "$(cat "$W/status")" = 1 ] && ! grep -q "mail-unsent" "$W/log"; then
	test_pass
else
	test_fail "expected exit 1 and no mail-unsent line" "$(cat "$W/log")"
fi

# The admin restores the key: the transcript waits out its backoff, or
# goes out at once with --flush, signed.
gw --export-secret-keys "$BOT" |
	gpg --homedir "$HOME_G" --batch --quiet --import 2>/dev/null
run_once
test_begin "the key back, a pass before the retry is due still holds the transcript"
test_expect_equal "1 " "$(cat "$W/status") $(sent_of_kind reply)" "$(cat "$W/log")"
"$TENURE" --config "$CONF" --now "$(date -u +%Y-%m-%dT%H:%M:%SZ)" run --once --flush >"$W/out" 2>"$W/log"
echo $? >"$W/status"
later=$(date -u -d '+10 minutes' +%Y-%m-%dT%H:%M:%SZ)
test_begin "once the key is back, run --once --flush sends the transcript, signed, and the pass exits 0"
reply=$(sent_of_kind reply)
if [ "$(cat "$W/status")" = 0 ] && [ -n "$reply" ] &&
	grep -q "^To: oscar@example.org" "$reply" &&
	grep -q "multipart/signed" "$reply" &&
	[ -z "$(ls "$STATE/unsent" 2>/dev/null)" ]; then
	test_pass
else
	test_fail "expected the signed transcript to Oscar and exit 0" \
		"status $(cat "$W/status")" "$(cat "$W/log")"
fi

# --- Issue 24 item 7: a name that is an encoded-word is refused -----------

deliver "$W/inbox" "$(signed_mail "$CAROL" carol@example.org nina-appointed \
	"Tenure: appoint
Member: =?utf-8?q?Nina=0D=0ABcc=3A_victim=40third.example?= <nina@example.org>")"
before=$(events)
run_once --now "$later"
test_begin "an appointment naming an encoded-word is refused, the ledger unchanged"
if [ "$(events)" = "$before" ] &&
	grep -q "^refused .*the name holds an RFC 2047 encoded-word" "$W/log"; then
	test_pass
else
	test_fail "expected a refusal naming the encoded-word" "$(cat "$W/log")"
fi

test_begin "the chair gets a transcript saying why"
reply=$(grep -l "^To: carol@example.org" $(sent_of_kind reply) 2>/dev/null)
if [ -n "$reply" ] && tr -d '\r' <"$reply" | tr '\n' ' ' | tr -s ' ' |
	grep -q "Refused: line 2: Member: the name holds an RFC 2047 encoded-word"; then
	test_pass
else
	test_fail "expected a transcript to Carol naming the encoded-word" \
		"$(cat "$W/log")"
fi

test_done
