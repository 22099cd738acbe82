#!/bin/sh
# t-mbox-dates.sh: when a mail arrived decides its signature's age limit
# and whose authority counts, and an mbox tells it by the From_ line.
# The forms list archives write are read (asctime, asctime with a zone
# before the year, RFC 5322's form); a line with no date tenure can read
# sets its mail aside saying so, never a verdict on the member (it was
# refused as "signature dated in the future": arrival 1970).
# The date is read from the end of the line: what comes between "From "
# and it is the envelope sender, the sender's own text, and Exim, Postfix
# and Dovecot's LDA write a quoted local part with blanks and dates in it
# as it came.  A date there once became the arrival (a back-dated
# command judged by a former member's authority).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
for who in alice bob carol dave erin frank grace heidi; do
	name=$(printf '%s' "$who" | sed 's/^./\U&/')
	eval "$(printf '%s' "$who" | tr a-z A-Z)=\$(gpg_new_key \"$name Member\" $who@example.org)"
done
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org dave@example.org erin@example.org frank@example.org \
	grace@example.org heidi@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org> $BOB" \
	"Carol Member <carol@example.org> $CAROL" \
	"Dave Member <dave@example.org> $DAVE" \
	"Erin Member <erin@example.org> $ERIN" \
	"Frank Member <frank@example.org> $FRANK" \
	"Grace Member <grace@example.org> $GRACE" \
	"Heidi Member <heidi@example.org> $HEIDI"
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

# The senders below are quoted local parts an outsider can choose; the
# dates in them are twelve days old, the server's dates are now.
old=$(date -u -d '12 days ago' '+%b %e %H:%M:%S %Y')
old_asctime=$(date -u -d '12 days ago' '+%a %b %e %H:%M:%S %Y')
dovecot_asctime=$(date -u '+%a %b %d %H:%M:%S %Y')
{
	# Exim: "From ${return_path} ${tod_bsdinbox}", the sender verbatim.
	printf 'From "a %s b"@evil.example %s\n' "$old" "$asctime"
	cat "$(signed_mail "$ERIN" erin@example.org e "Tenure: resign")"
	# Postfix's local(8): two blanks before the date.
	printf '\nFrom "x %s y"@evil.example  %s\n' "$old_asctime" "$asctime"
	cat "$(signed_mail "$FRANK" frank@example.org f "Tenure: resign")"
	# Dovecot's LDA: two blanks, the day in two digits.
	printf '\nFrom "%s b"@evil.example  %s\n' "$old_asctime" "$dovecot_asctime"
	cat "$(signed_mail "$GRACE" grace@example.org g "Tenure: resign")"
	# A date in the sender and none at the end: the arrival is unknown.
	printf '\nFrom "a %s b"@evil.example\n' "$old_asctime"
	cat "$(signed_mail "$HEIDI" heidi@example.org h "Tenure: resign")"
} >"$W/quoted.mbox"
"$TENURE" --config "$CONF" import "mbox:$W/quoted.mbox" >"$W/out" 2>"$W/log"

for case in "Erin:Exim's" "Frank:Postfix's" "Grace:Dovecot LDA's"; do
	test_begin "$(echo "${case#*:}") From_ line, a date in the quoted sender: the date at the end counts"
	if resigned "${case%%:*}"; then
		test_pass
	else
		test_fail "$(cat "$W/log")"
	fi
done

test_begin "a date only in the quoted sender: set aside, arrival unknown"
if ! resigned Heidi && grep -q 'does not say when this mail arrived' "$W/log"; then
	test_pass
else
	test_fail "$(cat "$W/log")"
fi

# Exim writes its From_ line in its host's local time, without a zone
# (tod_bsdinbox), and so does Dovecot's LDA.  Read in the zone [source]
# mbox-timezone names (or the host's, TZ), it is now; read as UTC, as it
# was (issue 40, item 2), it is hours off, and the day the command
# arrived on another.  A command signed days before takes effect the
# day before it arrived (decide.c, first_day): its event's date shows
# that day.  The zone is one whose date today is not UTC's: 12 hours
# behind it before 11:00 UTC, 14 hours ahead after.
if [ "$(date -u +%H)" -lt 11 ]; then
	zone=Etc/GMT+12
else
	zone=Etc/GMT-14
fi
# resigned_on WHO: the date of WHO's resignation in the ledger.
resigned_on() {
	awk -v who="$1" 'BEGIN { RS = "" }
		/Event: resign/ && index($0, who) {
			for (i = 1; i < NF; i++) if ($i == "Date:") print $(i + 1) }' \
		"$(_committee_path ledger)"
}
now=$(date +%s)
yesterday=$(date -u -d "@$((now - 86400))" +%Y-%m-%d)
{
	printf 'From dave@example.org %s\n' "$(TZ=$zone date -d "@$now" '+%a %b %e %H:%M:%S %Y')"
	cat "$(signed_mail --at '3 days ago' "$DAVE" dave@example.org d2 "Tenure: resign")"
} >"$W/local.mbox"
committee_conf source.mbox-timezone=$zone
"$TENURE" --config "$CONF" import "mbox:$W/local.mbox" >"$W/out" 2>"$W/log"
echo $? >"$W/status"
test_begin "an Exim From_ line in local time ($zone), mbox-timezone naming its zone: the resignation is applied, dated the day before it arrived"
if [ "$(resigned_on Dave)" = "$yesterday" ] && [ "$(cat "$W/status")" = 0 ] && ! grep -q '^refused' "$W/log"; then
	test_pass
else
	test_fail "status $(cat "$W/status")" "$(cat "$W/log")"
fi

committee_conf source.mbox-timezone=Mars/Olympus
"$TENURE" --config "$CONF" import "mbox:$W/local.mbox" >"$W/out" 2>"$W/log"
echo $? >"$W/status"
test_begin "an mbox-timezone tenure does not know: an error naming it"
if [ "$(cat "$W/status")" != 0 ] && grep -q 'mbox-timezone.*Mars/Olympus.*no time zone' "$W/log"; then
	test_pass
else
	test_fail "status $(cat "$W/status")" "$(cat "$W/log")"
fi
committee_conf

# A live mbox: source that Dovecot's LDA delivers to, given a quoted
# envelope sender with a date in it (dovecot-lda -f).  As root the LDA
# needs a user to deliver as; it runs as mail, as tests/lib/dovecot.sh's does.
lda=/usr/lib/dovecot/dovecot-lda
if [ -x "$lda" ]; then
	mkdir -p "$W/lda/home" "$W/lda/run"
	cat >"$W/lda/dovecot.conf" <<EOF
base_dir = $W/lda/run
log_path = $W/lda/log
mail_location = mbox:~/mail:INBOX=~/inbox
first_valid_uid = 0
EOF
	as_user=
	if [ "$(id -u)" -eq 0 ]; then
		chmod 0711 "$W"
		chown -R mail:mail "$W/lda"
		as_user="setpriv --reuid=mail --regid=mail --clear-groups"
	fi
	# The LDA writes the host's local time, in a zone whose date is not
	# UTC's; tenure reads it in the same zone (TZ).
	yesterday=$(date -u -d '1 day ago' +%Y-%m-%d)
	$as_user env TZ=$zone HOME="$W/lda/home" USER="$(id -un)" "$lda" \
		-c "$W/lda/dovecot.conf" -f "\"a $old b\"@evil.example" \
		<"$(signed_mail --at '3 days ago' "$HEIDI" heidi@example.org h2 "Tenure: resign")"
	committee_conf "source.url=mbox:$W/lda/home/inbox" source.mbox-format=mboxcl2
	TZ=$zone "$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
	test_begin "a live mbox: source, Dovecot's LDA's From_ line in local time (TZ=$zone) with a date in the quoted sender: the date at the end counts, read in that zone"
	if [ "$(resigned_on Heidi)" = "$yesterday" ]; then
		test_pass
	else
		test_fail "$(head -1 "$W/lda/home/inbox")" "resigned on $(resigned_on Heidi), not $yesterday" "$(cat "$W/lda/log" "$W/log")"
	fi
fi

test_done
