#!/bin/sh
# t-mbox-split.sh: an mbox is split where its writer split it (issue 32,
# item 4).  Dovecot's LDA writes a Content-Length and leaves a body's
# "From " lines as they are (mboxcl2): a poster who puts a whole second
# mail in a body, with its own From_ line (the arrival, hence authority
# and the signature's age), Received: and List-Id, gets no second
# message: a former chair's back-dated appointment inside a body was
# applied.  Exim and Postfix write mboxo (a body's "From " quoted as
# ">From ", an author's ">From " left as it is): a member's signed
# ">From the minutes" was read as "From the minutes", a bad signature
# for good, where a Maildir gives the same mail applied.  mboxrd is still
# read as before.  Keys and mail are made for the run; the LDA writes
# the mbox of the first part for real.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"
lda=/usr/lib/dovecot/dovecot-lda
[ -x "$lda" ] || test_skip_all "Dovecot's LDA is not installed (dovecot-core)"

committee_init

CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
DAVE=$(gpg_new_key "Dave Member" dave@example.org)
NINA=$(gpg_new_key "Nina Newcomer" nina@example.org)
BOT=$(gpg_new_key "Tenure Bot" tenure@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	bob@example.org dave@example.org nina@example.org tenure@example.org

day() { date -u -d "$1" +%Y-%m-%d; }
asctime() { LC_ALL=C date -u -d "$1" '+%a %b %e %H:%M:%S %Y'; }

# committee NAME [FORMAT]: a fresh committee in $W/NAME, $CONF from
# then on: Carol (the configured chair), Alice, Bob and Dave serve; its
# source is the mbox $W/NAME/inbox, of [source] mbox-format FORMAT (the
# default, mboxo, without one).
committee() {
	local dir=$W/$1
	rm -rf "$dir"
	mkdir -p "$dir/lda/home" "$dir/lda/run"
	CONF=$dir/tenure.conf
	committee_ledger --file "$dir/ledger" "Carol Chair <carol@example.org> $CAROL" \
		"Alice Member <alice@example.org> $ALICE" \
		"Bob Member <bob@example.org> $BOB" "Dave Member <dave@example.org> $DAVE"
	committee_conf "$CONF" roles.chair="$CAROL" keys.keyring="$W/keyring.gpg" \
		keys.bot-key="$BOT" keys.max-signature-age=7 \
		"source.url=mbox:$dir/lda/home/inbox" ${2:+"source.mbox-format=$2"}
	mkdir -m 700 "$dir/g"
	gw --export-secret-keys "$BOT" |
		gpg --homedir "$dir/g" --batch --quiet --import 2>/dev/null
	test_cleanup "gpgconf --homedir '$dir/g' --kill all"
	INBOX=$dir/lda/home/inbox
}

# run: tenure run --once on $CONF's mbox; the exit status in $W/status.
run() {
	before=$(events)
	outbox_before=$(outbox_count)
	"$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}

# lda FILE SENDER: Dovecot's LDA delivers FILE to the committee's mbox
# (mboxcl2).  As root it runs as mail, as t-mbox-dates.sh's does.
lda() {
	local dir
	dir=$(dirname "$INBOX")/..
	cat >"$dir/dovecot.conf" <<EOF
base_dir = $dir/run
log_path = $dir/log
mail_location = mbox:~/mail:INBOX=~/inbox
first_valid_uid = 0
EOF
	local as_user=
	if [ "$(id -u)" -eq 0 ]; then
		chmod 0711 "$W" "$(dirname "$dir")"
		chown -R mail:mail "$dir"
		chmod 0644 "$1"
		as_user="setpriv --reuid=mail --regid=mail --clear-groups"
	fi
	$as_user env TZ=UTC HOME="$dir/home" USER="$(id -un)" "$lda" \
		-c "$dir/dovecot.conf" -f "$2" <"$1" ||
		test_fail_all "dovecot-lda failed: $(cat "$dir/log")"
}

test_fail_all() {
	echo "Bail out! $*"
	exit 1
}

# expect CHECK DESCRIPTION [DETAIL]: one check, CHECK a shell condition.
expect() {
	test_begin "$2"
	if eval "$1"; then
		test_pass
	else
		test_fail "${3:-}" "status $(cat "$W/status")" "$(cat "$W/log")"
	fi
}

nina_appointed() {
	grep -q '^Member: Nina Newcomer' "$(_committee_path ledger)"
}

# --- 1. Dovecot's LDA: the Content-Length splits -----------------------

committee a mboxcl2
# Alice took the chair from Carol three days ago.
committee_event role "$(day '3 days ago')" "Role: chair" \
	"Member: Alice Member <alice@example.org>"

# Carol's appointment of Nina, signed five days ago, while she chaired,
# as a whole mail behind a From_ line of that day, relayed by the list.
signed_mail --at '5 days ago' "$CAROL" carol@example.org embedded \
	"Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01" "List-Id: <debian-ctte.lists.debian.org>" >/dev/null 2>&1
{
	printf 'From: Mallory <mallory@example.net>\nTo: debian-ctte@lists.debian.org\n'
	printf 'Subject: old news\nDate: %s\nMessage-ID: <outer@example.net>\n' "$(date -R)"
	printf 'List-Id: <debian-ctte.lists.debian.org>\n\n'
	printf 'Look what I found in the archive:\n\n'
	printf 'From carol@example.org %s\n' "$(asctime '5 days ago')"
	printf 'Received: from bendel.debian.org (bendel.debian.org [82.195.75.100])\n'
	printf '\tby relay.example.net; %s\n' "$(date -R -d '5 days ago')"
	cat "$W/m/embedded.eml"
} >"$W/m/outer.eml"
lda "$W/m/outer.eml" mallory@example.net
# Bob's resignation, delivered after it.
lda "$(signed_mail "$BOB" bob@example.org bob-resigns "Tenure: resign" \
	"List-Id: <debian-ctte.lists.debian.org>" 2>/dev/null)" bob@example.org
embedded_at=$(grep -b '^From carol@example.org' "$INBOX" | cut -d: -f1)
bob_at=$(grep -b '^From bob@example.org' "$INBOX" | cut -d: -f1)
run

expect "grep -q '^Content-Length: ' '$INBOX' && [ -n '$embedded_at' ]" \
	"Dovecot's LDA wrote a Content-Length and left the body's From_ line as it is" \
	"$(cat "$INBOX")"
expect "! nina_appointed && ! grep -q 'id=$embedded_at ' '$W/log'" \
	"the former chair's back-dated appointment inside a body is no message"
expect "[ \"\$(outbox_count)\" = 0 ] || ! grep -rq 'carol@example.org' '$(_committee_path state-dir)/outbox/queue'" \
	"... and Carol gets no transcript for it"
expect "grep -q '^refused id=0 .*msgid=<outer@example.net>' '$W/log'" \
	"the mail around it is handled as one (a command attempt without a signature)"
expect "resigned Bob && grep -q '^applied msgid=<bob-resigns@example.org> ' '$W/log'" \
	"Bob's resignation behind it is applied"
expect "[ \"\$(cat '$W/status')\" = 0 ] && [ \$(events) = \$((before + 1)) ]" \
	"run --once exits 0, one event appended"

# An offset kept inside the body (where the From_ line split it before)
# is no place to start: reading goes on at the next message.
committee a2 mboxcl2
committee_event role "$(day '3 days ago')" "Role: chair" \
	"Member: Alice Member <alice@example.org>"
cp "$W/a/lda/home/inbox" "$INBOX"
mkdir -p "$W/a2/state"
printf '%s\t%s\n' "$embedded_at" "$INBOX" >"$W/a2/state/mbox-offset"
run
expect "! nina_appointed && resigned Bob && grep -q '^mbox-resync .*offset=$embedded_at next=$bob_at' '$W/log' && [ \"\$(cat '$W/status')\" = 0 ]" \
	"an offset kept inside a body: the reading goes on at the next message"

# A message the file cuts short, its From_ line recent: being written,
# read when it is whole.
committee a3 mboxcl2
committee_event role "$(day '3 days ago')" "Role: chair" \
	"Member: Alice Member <alice@example.org>"
perl -0pe 's/(\nFrom bob\@example.org.*?\nContent-Length: )(\d+)/$1 . ($2 + 7)/se' \
	"$W/a/lda/home/inbox" >"$INBOX"
run
expect "! nina_appointed && ! resigned Bob && grep -q '^refused id=0 ' '$W/log' && grep -q '^mbox-unfinished offset=$bob_at ' '$W/log' && [ \"\$(cat '$W/status')\" = 0 ]" \
	"a message the file cuts short while it is written waits, unread"
"$TENURE" --config "$CONF" check >"$W/out" 2>&1
echo $? >"$W/status"
expect "[ \"\$(cat '$W/status')\" = 1 ] && grep -q 'the mbox source .* waits for .*: $bob_at: the file ends inside the message' '$W/out'" \
	"... and tenure check says so, a WARNING naming where (issue 40, item 2)" "$(cat "$W/out")"

"$TENURE" --config "$CONF" import "mbox:$INBOX" >"$W/out" 2>"$W/log"
echo $? >"$W/status"
expect "! nina_appointed && ! resigned Bob && [ \"\$(cat '$W/status')\" != 0 ] && grep -q 'inbox:$bob_at: the file ends inside the message there' '$W/log'" \
	"... and an import of it fails naming the message, rather than end as if whole"

# A Content-Length that ends nowhere, in an mbox split by them: nothing
# from there on is read, and the run fails naming where.
committee a4 mboxcl2
committee_event role "$(day '3 days ago')" "Role: chair" \
	"Member: Alice Member <alice@example.org>"
perl -0pe 's/(\nFrom bob\@example.org.*?\nContent-Length: )(\d+)/$1 . ($2 - 7)/se' \
	"$W/a/lda/home/inbox" >"$INBOX"
run
expect "! nina_appointed && ! resigned Bob && grep -q '^refused id=0 ' '$W/log' && [ \"\$(cat '$W/status')\" != 0 ] && grep -q 'inbox:$bob_at: the message there has a Content-Length that ends neither' '$W/log'" \
	"a damaged Content-Length: the run fails naming its offset, nothing read from there"

# The same cut, in a file not changed for an hour: no writer is at it.
committee a5 mboxcl2
committee_event role "$(day '3 days ago')" "Role: chair" \
	"Member: Alice Member <alice@example.org>"
cp "$W/a3/lda/home/inbox" "$INBOX"
touch -d '1 hour ago' "$INBOX"
run
expect "! nina_appointed && ! resigned Bob && ! grep -q '^mbox-unfinished' '$W/log' && [ \"\$(cat '$W/status')\" != 0 ] && grep -q 'inbox:$bob_at: the message there has a Content-Length that ends neither' '$W/log'" \
	"a message cut short in a file no one writes is damaged: the run fails naming it"

# mboxcl: a Content-Length, and a body's "From " quoted all the same.
committee a6 mboxcl
signed_mail "$ALICE" alice@example.org alice-cl "Tenure: resign

From the start I said so." "List-Id: <debian-ctte.lists.debian.org>" >/dev/null 2>&1
printf 'From: bob@example.org\nSubject: hello\nMessage-ID: <hello-cl@example.org>\n\nHi.\n' \
	>"$W/m/hello-cl.eml"
{
	for mail in alice-cl hello-cl; do
		WHEN="$(asctime now)" perl -0ne 'my ($h, $b) = split /\n\n/, $_, 2;
			$b =~ s/^From />From /mg; $b .= "\n" unless $b =~ /\n\z/;
			printf "From x\@example.org %s\n%s\nContent-Length: %d\n\n%s\n",
				$ENV{WHEN}, $h, length($b), $b' "$W/m/$mail.eml"
	done
} >"$INBOX"
run
expect "resigned Alice && grep -q '^>From the start' '$INBOX' && [ \"\$(cat '$W/status')\" = 0 ] && ! grep -q '^refused' '$W/log'" \
	"mboxcl: a body's quoted \"From \" line is read back as signed"

# --- 2. mboxo, as Exim and Postfix write it -----------------------------

# Dave's signed resignation quotes the minutes with ">From"; an mboxo
# writer leaves that line as it is, and quotes the "From " line of the
# mail before it.
minutes="Tenure: resign

>From the minutes: Dave will step down."
signed_mail "$DAVE" dave@example.org dave-minutes "$minutes" \
	"List-Id: <debian-ctte.lists.debian.org>" >/dev/null 2>&1
committee b
{
	printf 'From alice@example.org %s\n' "$(asctime '1 hour ago')"
	printf 'From: alice@example.org\nSubject: hello\nMessage-ID: <hello@example.org>\n\n'
	printf 'Hi,\n>From now on we meet on Mondays.\n\n'
	printf 'From dave@example.org %s\n' "$(asctime now)"
	cat "$W/m/dave-minutes.eml"
	printf '\n'
} >"$INBOX"
run
expect "resigned Dave && grep -q '^applied ' '$W/log' && ! grep -q 'bad signature' '$W/log' && [ \"\$(cat '$W/status')\" = 0 ]" \
	"mboxo: a signed \">From the minutes\" is applied"

committee b2
mkdir -p "$W/b2/box"
deliver "$W/b2/box" "$W/m/dave-minutes.eml"
"$TENURE" --config "$CONF" import "maildir:$W/b2/box" >"$W/out" 2>"$W/log"
echo $? >"$W/status"
expect "resigned Dave && [ \"\$(cat '$W/status')\" = 0 ]" \
	"... as the same mail from a Maildir is"

# A reading counts only if the signature covers it: the text changed
# after signing is a bad signature in every reading.
committee b3
{
	printf 'From dave@example.org %s\n' "$(asctime now)"
	sed 's/^>From the minutes: Dave/>From the minutes: Bob/' "$W/m/dave-minutes.eml"
	printf '\n'
} >"$INBOX"
run
expect "! resigned Dave && [ \"\$(grep -c '^refused .*reason=.*bad signature' '$W/log')\" = 1 ] && [ \"\$(cat '$W/status')\" = 0 ]" \
	"mboxo: a text changed after signing is refused once, a bad signature"

# In an mboxo a Content-Length is its author's: a first message whose
# own fits makes no mbox split by them once a message has none.
committee b4
{
	printf 'From mallory@example.net %s\n' "$(asctime '1 hour ago')"
	printf 'From: mallory@example.net\nContent-Length: 4\n\nHi!\n\n'
	printf 'From dave@example.org %s\n' "$(asctime now)"
	cat "$W/m/dave-minutes.eml"
	printf '\n'
} >"$INBOX"
run
expect "resigned Dave && [ \"\$(cat '$W/status')\" = 0 ]" \
	"mboxo: a Content-Length its author wrote splits nothing"

# The split is the configuration's, never the first message's (issue 40,
# item 2).  A poster whose mail opens the file writes a Content-Length
# that covers a member's command delivered after it: the command is no
# part of the poster's mail.
committee b5
signed_mail "$BOB" bob@example.org bob-b5 "Tenure: resign" \
	"List-Id: <debian-ctte.lists.debian.org>" >/dev/null 2>&1
{
	printf 'Hi!\n\n'
	printf 'From bob@example.org %s\n' "$(asctime now)"
	cat "$W/m/bob-b5.eml"
	printf '\n'
} >"$W/b5/tail"
{
	printf 'From mallory@example.net %s\n' "$(asctime '1 hour ago')"
	printf 'From: mallory@example.net\nMessage-ID: <swallow@example.net>\n'
	printf 'Content-Length: %d\n\n' $(($(wc -c <"$W/b5/tail") - 1))
	cat "$W/b5/tail"
} >"$INBOX"
run
expect "resigned Bob && grep -q '^applied msgid=<bob-b5@example.org> ' '$W/log' && [ \"\$(cat '$W/status')\" = 0 ]" \
	"mboxo: a poster's Content-Length that covers a member's command swallows nothing"

# ... nor stops the reading: the poster's second mail has one that ends
# nowhere, after a first whose own fits.
committee b6
{
	printf 'From mallory@example.net %s\n' "$(asctime '1 hour ago')"
	printf 'From: mallory@example.net\nMessage-ID: <fits@example.net>\n'
	printf 'Content-Length: 4\n\nHi!\n\n'
	printf 'From mallory@example.net %s\n' "$(asctime '1 hour ago')"
	printf 'From: mallory@example.net\nMessage-ID: <nowhere@example.net>\n'
	printf 'Content-Length: 3\n\nHello again.\n\n'
	printf 'From bob@example.org %s\n' "$(asctime now)"
	cat "$W/m/bob-b5.eml"
	printf '\n'
} >"$INBOX"
run
expect "resigned Bob && [ \"\$(cat '$W/status')\" = 0 ] && ! grep -q 'Content-Length' '$W/log'" \
	"mboxo: a poster's Content-Length that ends nowhere stops nothing"

# Dovecot keeps a message of its own at the top of a folder emptied over
# IMAP, with no Content-Length: the mbox is still split by the
# Content-Length Dovecot writes, and that message is no mail.
committee d mboxcl2
committee_event role "$(day '3 days ago')" "Role: chair" \
	"Member: Alice Member <alice@example.org>"
{
	printf 'From MAILER_DAEMON %s\n' "$(asctime '1 day ago')"
	printf 'Date: %s\n' "$(date -R -d '1 day ago')"
	printf 'From: Mail System Internal Data <MAILER-DAEMON@example.org>\n'
	printf "Subject: DON'T DELETE THIS MESSAGE -- FOLDER INTERNAL DATA\n"
	printf 'Message-ID: <1796500000@example.org>\n'
	printf 'X-IMAP: 1796500000 0000000003\nStatus: RO\n\n'
	printf 'This text is part of the internal format of your mail folder, and is not\n'
	printf 'a real message.  It is created automatically by the mail system software.\n'
	printf 'If deleted, important folder data will be lost, and it will be re-created\n'
	printf 'with the data reset to initial values.\n\n'
} >"$INBOX"
pseudo_len=$(wc -c <"$INBOX")
cat "$W/a/lda/home/inbox" >>"$INBOX"
run
expect "! nina_appointed && resigned Bob && ! grep -q 'id=0 ' '$W/log' && grep -q '^refused id=$pseudo_len .*msgid=<outer@example.net>' '$W/log' && [ \"\$(cat '$W/status')\" = 0 ]" \
	"mboxcl2: Dovecot's pseudo message is skipped, and a body's From_ line is no message behind it"

# --- 3. mboxrd: one '>' undone on every quoted line ---------------------

committee c mboxrd
signed_mail "$ALICE" alice@example.org alice-rd "Tenure: resign

From the start I said so.
>From a reply, quoted." "List-Id: <debian-ctte.lists.debian.org>" >/dev/null 2>&1
{
	printf 'From alice@example.org %s\n' "$(asctime now)"
	sed 's/^\(>*From \)/>\1/' "$W/m/alice-rd.eml"
	printf '\n'
} >"$INBOX"
run
expect "resigned Alice && grep -q '^applied ' '$W/log' && ! grep -q '^refused' '$W/log' && [ \"\$(cat '$W/status')\" = 0 ]" \
	"mboxrd: \">From\" and \">>From\" lines are read one '>' less"

test_done
