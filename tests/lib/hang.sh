# tests/lib/hang.sh: passes of `tenure run --once` killed in a reading
# that never ends, through the test hook TENURE_TEST_READ (intake.h), for
# t-setaside-hang.sh and t-setaside-hang-imap.sh.  Source it after
# tests/lib/committee.sh.
#
#   once [SECONDS]           `tenure run --once`, killed after SECONDS (120);
#                            stderr in $W/log (and appended to $W/log.all),
#                            the exit status in $W/status
#   killed_in_reading MARK   `tenure run --once` with the reading of the
#                            mail holding MARK hung, killed with SIGKILL
#                            (as the watchdog's end) once that reading
#                            began; FALSE when it never began
#   poison_mail WHO ID MARK  an unsigned mail from WHO that looks like a
#                            command (so it is parsed), with MARK in it for
#                            the hook, in $W/m/ID.eml
#   report_sent TEXT         whether a report of mail set aside, sent to
#                            [sink] from (the Maildir $W/sent), says TEXT

pid=
stop_pass() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; pid=; }
test_cleanup stop_pass

once() {
	timeout "${1:-120}" "$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
	cat "$W/log" >>"$W/log.all"
}

killed_in_reading() {
	# Emptied here, not only by the redirection below: that one is made
	# in the background child, maybe after the first look at the log,
	# which would then see the last pass's test-read line and kill this
	# pass before its reading began (and before it counted the last
	# one's), losing a kill.
	: >"$W/log"
	TENURE_TEST_READ=hang:$1 "$TENURE" --config "$CONF" run --once \
		>"$W/out" 2>"$W/log" &
	pid=$!
	wait_for 30 'grep -q "^test-read " "$W/log"'
	local began=$?
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
	cat "$W/log" >>"$W/log.all"
	return $began
}

poison_mail() {
	cat >"$W/m/$2.eml" <<MAIL
From: $1@example.org
To: debian-ctte@lists.debian.org
Subject: about the vote
Message-ID: <$2@example.org>
Date: $(date -R)

Tenure: resign
$3
MAIL
}

report_sent() {
	grep -l "set aside without a verdict" "$W/sent"/*/* 2>/dev/null |
		xargs grep -l "$1" >/dev/null 2>&1
}
