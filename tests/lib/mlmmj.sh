# tests/lib/mlmmj.sh: a real mlmmj list for the scenario tests, sourced
# after tests/lib/common.sh, tests/lib/committee.sh and tests/lib/smtp.sh.
#
#   mlmmj_setup        the list debian-ctte@lists.debian.org, made as
#                      mlmmj-make-ml makes it, relaying to the test's SMTP
#                      server (smtp_start first), with Debian's List-Id
#                      and tenure's inbox as its one subscriber; $LIST is
#                      its directory.  The whole script is skipped when
#                      mlmmj is not installed or makes no list.
#   footer on|off      mlmmj's footer, as Debian's lists would word one
#   through_list FILE FROM
#                      posts FILE to the list from FROM, run once as an
#                      MTA's pipe runs mlmmj (Return-Path, Delivered-To),
#                      and prints the path of the copy the subscriber
#                      received (nothing when none came)
#
# mlmmj appends its footer as raw text at the end of the mail: after a
# clearsigned block, or after the last boundary of PGP/MIME.

mlmmj_setup() {
	[ -x /usr/bin/mlmmj-receive ] || test_skip_all "mlmmj is not installed"
	LIST=$W/spool/debian-ctte
	printf 'lists.debian.org\nowner@example.org\nen\n' |
		/usr/bin/mlmmj-make-ml -s "$W/spool" -L debian-ctte >/dev/null 2>&1
	[ -d "$LIST/control" ] || test_skip_all "mlmmj-make-ml made no list"
	echo 127.0.0.1 >"$LIST/control/relayhost"
	echo "$SMTP_PORT" >"$LIST/control/smtpport"
	printf 'List-Id: Debian Technical Committee <debian-ctte.lists.debian.org>\n' \
		>"$LIST/control/customheaders"
	/usr/bin/mlmmj-sub -L "$LIST" -a tenure@lists.example.org -f -q >/dev/null 2>&1
}

footer() {
	if [ "$1" = on ]; then
		printf -- '-- \nTo UNSUBSCRIBE, email to debian-ctte-request@lists.debian.org\n' \
			>"$LIST/control/footer"
	else
		rm -f "$LIST/control/footer"
	fi
}

through_list() {
	local count i=0 copy
	count=$(smtp_count)
	{
		printf 'Return-Path: <%s>\nDelivered-To: debian-ctte@lists.debian.org\n' "$2"
		cat "$1"
	} | /usr/bin/mlmmj-receive -F -L "$LIST" >>"$W/mlmmj.log" 2>&1
	while [ "$(smtp_count)" -le "$count" ] && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	copy=$(ls -t "$SMTP_MAILDIR/new" | head -n 1)
	[ "$(smtp_count)" -gt "$count" ] && echo "$SMTP_MAILDIR/new/$copy"
}
