#!/bin/sh
# t-keyring-missing.sh: a missing key for a recorded member is tenure's
# problem, not the member's (issue 24 item 4).  When the key the ledger
# records for someone serving is in no configured keyring (a keyring
# caught at 0 bytes, an update that dropped the key), the member's mail
# is not refused as "unknown key": it waits like a mail without a
# verdict, until the key is back (not set aside after retry-hours:
# anyone could then have a report sent a post, issue 40 item 4), the
# key reported to [sink] from once, naming the member, and is applied
# once the key is back.
# So is the mail of a member who signs with a signing subkey, whose
# whole key is gone: tenure knows the subkey from when a keyring last
# held the key (HOME/committee.subkeys).  A stranger's key in no keyring
# is still an unknown key.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
faked_lib || test_skip_all "libfaketime (package faketime) is not installed"

committee_init
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
# Fay signs with a subkey of her key.
FAY=$(gpg_new_key "Fay Member" fay@example.org)
FAY_SIGNING=$(gpg_add_signing_subkey fay@example.org)
DAVE=$(gpg_new_key "Dave Stranger" dave@example.org)
DAVE_SIGNING=$(gpg_add_signing_subkey dave@example.org)
# Leo leads (the configuration says so), and no keyring holds his key.
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
gpg_export_keyring "$W/all.gpg" alice@example.org bob@example.org \
	carol@example.org fay@example.org
gpg_export_keyring "$W/no-alice.gpg" bob@example.org carol@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB" \
	"Carol Chair <carol@example.org> $CAROL" \
	"Fay Member <fay@example.org> $FAY"
committee_conf roles.chair="$CAROL" roles.leader="$LEO"

# keyring FILE: the configured keyring becomes FILE, written an hour ago
# (not a file caught being rewritten: that waits already).
keyring() {
	cp "$W/$1" "$W/keyring.gpg"
	touch -d '1 hour ago' "$W/keyring.gpg"
}

# once [OFFSET]: `tenure run --once` (its clock OFFSET ahead); stderr in
# $W/log, the exit status in $W/status.
once() {
	if [ $# -gt 0 ]; then
		"$FAKED" "$1" "$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
	else
		"$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
	fi
	echo $? >"$W/status"
}

# resign VAR FPR WHO ID: WHO's resignation signed with FPR, delivered
# into the inbox; VAR is set to its Maildir name.
resign() {
	local var=$1 fpr=$2 who=$3 id=$4 mail
	mail=$(signed_mail "$fpr" "$who@example.org" "$id" "Tenure: resign")
	ls "$W/inbox/new" >"$W/new.before"
	deliver "$W/inbox" "$mail"
	eval "$var=\$(ls \"\$W/inbox/new\" | grep -vxF -f \"\$W/new.before\")"
}

in_new() { [ -f "$W/inbox/new/$1" ]; }
in_failed() { [ -f "$W/inbox/.tenure-failed/new/$1" ]; }

# expect_waiting DESCRIPTION ID [NAME KEY]: one check: ID stays in new/,
# nothing is refused or applied, and its deferred line names NAME Member
# and KEY (Alice and her key unless given).
expect_waiting() {
	local name=${3:-Alice} key=${4:-$ALICE} email
	email=$(echo "$name" | tr 'A-Z' 'a-z')@example.org
	test_begin "$1"
	if ! in_new "$2"; then
		test_fail "expected $2 in new/" "$(cat "$W/log")"
	elif grep -q "^refused id=$2 " "$W/log" || resigned "$name"; then
		test_fail "expected nothing refused or applied" "$(cat "$W/log")"
	elif ! grep "^deferred id=$2 " "$W/log" | grep -F "$key" |
		grep -qF "$name Member <$email>"; then
		test_fail "expected a deferred line naming $name and $key" \
			"$(cat "$W/log")"
	else
		test_pass
	fi
}

keyring all.gpg
# A stranger's mail: the keyring is read, as for any signed mail, while
# it holds Fay's key.
resign d0 "$DAVE" dave d0
once

# 1. The keyring caught at 0 bytes.
: >"$W/keyring.gpg"
touch -d '1 hour ago' "$W/keyring.gpg"
resign a "$ALICE" alice a
resign f "$FAY_SIGNING!" fay f
once
expect_waiting "a keyring at 0 bytes: the member's mail waits, not refused as unknown key" "$a"
expect_waiting "a keyring at 0 bytes: a member's mail signed with her subkey waits too, her key named" \
	"$f" Fay "$FAY"

once +25h
test_begin "... still undecided after retry-hours, it still waits for the key, not refused"
if in_new "$a" && ! resigned Alice && ! grep -q '^refused ' "$W/log" &&
	! grep -q "^set-aside id=$a " "$W/log"; then
	test_pass
else
	test_fail "$(ls -R "$W/inbox")" "$(cat "$W/log")"
fi
test_begin "... and reported to [sink] from, naming the member and the missing key"
if grep -l "set aside without a verdict" "$W/sent"/*/* 2>/dev/null |
	xargs grep -l "^To: tenure@example.org" | xargs grep -l "$a" |
	xargs cat | tr -d '\n' | tr -s ' ' | grep -F "Alice Member" | grep -qF "$ALICE"; then
	test_pass
else
	test_fail "no such report in $W/sent" "$(cat "$W/log")"
fi
test_begin "... the subkey's mail too: waiting, reported naming Fay and her key"
if in_new "$f" && ! resigned Fay &&
	grep -l "set aside without a verdict" "$W/sent"/*/* 2>/dev/null |
	xargs grep -l "$f" | xargs cat | tr -d '\n' | tr -s ' ' |
	grep -F "Fay Member" | grep -qF "$FAY"; then
	test_pass
else
	test_fail "$(ls -R "$W/inbox")" "$(cat "$W/log")"
fi

# 2. A keyring update that dropped the member's key; a stranger's key
# is in no keyring either.
keyring no-alice.gpg
resign b "$ALICE" alice b
resign g "$FAY_SIGNING!" fay g
resign d "$DAVE" dave d
resign e "$DAVE_SIGNING!" dave e
resign l "$LEO" leo l
once
expect_waiting "a keyring without the member's key: the mail waits" "$b"
expect_waiting "a keyring without the key of a member who signs with her subkey: the mail waits" \
	"$g" Fay "$FAY"
test_begin "a role holder's key in no keyring: the mail waits, the log names the role and the key"
if in_new "$l" && ! grep -q "^refused id=$l " "$W/log" &&
	grep "^deferred id=$l " "$W/log" | grep -F "$LEO" | grep -qF "the leader"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
test_begin "a stranger's key in no keyring is still an unknown key"
if grep "^refused id=$d " "$W/log" | grep -q "reason=\"unknown key\""; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi
test_begin "... and so is a stranger's subkey"
if grep "^refused id=$e " "$W/log" | grep -q "reason=\"unknown key\""; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi

# 3. The key is back: the waiting mail is applied.
keyring all.gpg
once +2h
test_begin "once the keyring holds the key again, the waiting mail is applied"
if resigned Alice && ! in_new "$b" && resigned Fay && ! in_new "$g"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi

test_done
