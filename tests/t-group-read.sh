#!/bin/sh
# t-group-read.sh: the group reads what README.Debian says it can
# (issue 42 item 4).  The service user (nobody here, its group standing
# for tenure's) runs a pass that leaves every kind of state file: the
# record of a mail set aside, the outbox, the Message-ID secret.  Its
# files are mode 0640 and its folders 0750, whatever the service's
# umask (0077, as in the units), the secret 0600; a user in the group
# runs status, plan and check on the configured state, and a user
# outside it is refused.  The monitoring agent's user (nagios, made
# here when absent) in the group runs the command lines tenure(1)'s
# Icinga 2 and Nagios definitions and README.Debian give, as they are,
# with no sudo (issue 42 item 3).  Everything the other users run, the
# binary among it, is in a directory they can reach.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

[ "$(id -u)" = 0 ] || test_skip_all "needs root to run as the service user and a group member"
command -v setpriv >/dev/null || test_skip_all "setpriv (util-linux) is not installed"
getent passwd nobody >/dev/null || test_skip_all "no user nobody"

committee_init
chmod 0711 "$TEST_DIR"
S=$W/svc
mkdir -p "$S/inbox/new" "$S/inbox/cur" "$S/inbox/tmp" "$S/g" "$S/sent"
cp "$TENURE" "$S/tenure"
# tenure runs gpg through its helper, found in TENURE_LIBEXECDIR: a copy
# where the service user can reach it (the build tree may be 0700).
cp "$TENURE_LIBEXECDIR/tenure-gpg" "$S/tenure-gpg"
TENURE_LIBEXECDIR=$S
: >"$S/keyring.gpg"
committee_ledger --file "$S/ledger" "Carol Chair <carol@example.org>" \
	"Alice Member <alice@example.org>"
committee_conf "$S/tenure.conf" committee.ledger=ledger committee.state-dir=state \
	committee.templates="$S/templates" keys.gnupg-home=g source.url=maildir:inbox \
	sink.url=maildir:sent
cp -r "$top_srcdir/templates" "$S/templates"
# A mail that may carry a command, with two Message-ID headers: set
# aside (the record in state/retry) and reported (the outbox).
cat >"$S/inbox/new/1797000000.1.test" <<'MAIL'
From: Alice Member <alice@example.org>
To: debian-ctte@lists.debian.org
Subject: resign
Message-ID: <one@example.org>
Message-ID: <two@example.org>
Date: Thu, 01 Jan 2026 10:00:00 +0000

Tenure: resign
MAIL
chmod -R a+rX "$S"
chown -R nobody "$S"
chmod 700 "$S/g"
GROUP=$(id -g nobody)
# The service's umask, as its units set it.
(umask 0077 && HOME=$S setpriv --reuid=nobody --regid="$GROUP" --clear-groups \
	"$S/tenure" --config "$S/tenure.conf" run --once) >"$W/out" 2>"$W/log"
rc=$?

test_begin "the service's pass sets the mail aside and reports it"
if [ "$rc" = 0 ] && [ -f "$S/state/retry" ] && [ -f "$S/state/message-id-key" ] &&
	[ -n "$(ls "$S/state/outbox/sent")" ]; then
	test_pass
else
	test_fail "expected exit 0, state/retry, the secret and a sent mail, got $rc" \
		"$(cat "$W/log")" "$(ls -lR "$S/state")"
fi

test_begin "the state's files are 0640 and its folders 0750 under umask 0077; the secret 0600"
bad=$(find "$S/state" \( -type f ! -name message-id-key ! -name '*lock' ! -perm 0640 \) -o \
	\( -type d ! -perm 0750 \) -o \( -name message-id-key ! -perm 0600 \))
if [ -z "$bad" ]; then
	test_pass
else
	test_fail "wrong modes:" "$(ls -ld $bad)"
fi

# as_user GROUPS ARG...: tenure as a user of its own (uid 64123), with
# the supplementary GROUPS (empty: none).
as_user() {
	local groups=$1
	shift
	if [ -n "$groups" ]; then
		set -- --groups="$groups" "$@"
	else
		set -- --clear-groups "$@"
	fi
	HOME=$W setpriv --reuid=64123 --regid=64123 "$@"
}

for cmd in status plan check; do
	as_user "$GROUP" "$S/tenure" --config "$S/tenure.conf" $cmd \
		>"$W/$cmd.out" 2>"$W/$cmd.err"
	rc=$?
	test_begin "a user in the group runs $cmd on the configured state"
	if grep -qi 'permission denied\|UNKNOWN' "$W/$cmd.out" "$W/$cmd.err"; then
		test_fail "$cmd exited $rc" "$(cat "$W/$cmd.out" "$W/$cmd.err")"
	elif [ "$cmd" = check ] && ! grep -q '^TENURE WARNING - .*set_aside=1;' "$W/$cmd.out"; then
		test_fail "expected a WARNING counting the mail set aside, got $rc" \
			"$(cat "$W/$cmd.out" "$W/$cmd.err")"
	elif [ "$cmd" != check ] && [ "$rc" != 0 ]; then
		test_fail "$cmd exited $rc" "$(cat "$W/$cmd.out" "$W/$cmd.err")"
	else
		test_pass
	fi
done

test_begin "... and reads no secret: the Message-ID key is the service user's"
if as_user "$GROUP" cat "$S/state/message-id-key" >/dev/null 2>&1; then
	test_fail "a group member read state/message-id-key"
else
	test_pass
fi

as_user "" "$S/tenure" --config "$S/tenure.conf" status >"$W/other.out" 2>&1
rc=$?
test_begin "a user outside the group is refused"
if [ "$rc" != 0 ] && grep -qi 'permission denied' "$W/other.out"; then
	test_pass
else
	test_fail "expected Permission denied, got $rc" "$(cat "$W/other.out")"
fi

# --- The monitoring agent's user runs the documented check ----------
if ! getent passwd nagios >/dev/null; then
	useradd -r nagios 2>"$W/useradd.err" ||
		test_skip_all "no user nagios, and useradd -r nagios failed: $(cat "$W/useradd.err")"
fi
# The command lines as documented: Icinga 2's CheckCommand with its
# variables unset, Nagios's command_line with the service's arguments,
# README.Debian's two; /usr/bin/tenure is the copy in $S, and
# TENURE_CONFIG stands for /etc/tenure/tenure.conf.
icinga=$(sed -n 's/^  command = \[ "\([^"]*\)", "\([^"]*\)" \]$/\1 \2/p' "$top_srcdir/man/tenure.1")
nagios=$(sed -n 's/^    command_line  //p' "$top_srcdir/man/tenure.1" | sed 's/\\-/-/g')
args=$(sed -n 's/^    check_command        check_tenure!//p' "$top_srcdir/man/tenure.1")
nagios=$(printf '%s\n' "$nagios" | sed "s/\\\$ARG1\\\$/${args%%!*}/; s/\\\$ARG2\\\$/${args#*!}/")
readme=$(sed -n 's|^  \(/usr/bin/tenure check[^#]*\).*|\1|p' "$top_srcdir/debian/README.Debian" |
	sed 's/ *$//')
test_begin "the documented command lines are found, none through sudo"
if [ "$icinga" = "/usr/bin/tenure check" ] &&
	[ "$nagios" = "/usr/bin/tenure check -w 1800 -c 3600" ] &&
	[ "$(printf '%s\n' "$readme" | wc -l)" = 2 ] &&
	! grep -q 'sudo.*tenure check' "$top_srcdir/man/tenure.1" "$top_srcdir/debian/README.Debian"; then
	test_pass
else
	test_fail "got: [$icinga] [$nagios] [$readme]"
fi
while IFS= read -r line; do
	[ -n "$line" ] || continue
	cmd=$S/tenure${line#/usr/bin/tenure}
	# shellcheck disable=SC2086
	TENURE_CONFIG=$S/tenure.conf HOME=/ setpriv --reuid=nagios \
		--regid="$(id -g nagios)" --groups="$GROUP" $cmd >"$W/nagios.out" 2>"$W/nagios.err"
	rc=$?
	test_begin "the agent's user in the group runs '$line': the answer, not UNKNOWN"
	if [ "$rc" = 1 ] && grep -q '^TENURE WARNING - 1 mail(s) set aside without a verdict' "$W/nagios.out"; then
		test_pass
	else
		test_fail "expected 1 and the mail set aside, got $rc" "$(cat "$W/nagios.out" "$W/nagios.err")"
	fi
done <<LINES
$icinga
$nagios
$readme
LINES

test_done
