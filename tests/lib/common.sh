# tests/lib/common.sh: the scenario-test library, sourced by tests/t-*.sh.
#
# Every scenario prints TAP (automake's tap-driver counts each check).
#   test_begin "description"      start a check
#   test_pass / test_fail "why"   end it
#   test_expect_equal "$expected" "$actual"
#   test_expect_equal_file EXPECTED_FILE ACTUAL_FILE   (diff -u on failure)
#   test_expect_success "description" 'commands'   (eval; pass on exit 0)
#   test_expect_failure "description" 'commands'   (pass on non-zero exit)
#   test_skip "why"               end the check begun as skipped (its tools
#                                 are missing here): a skip, never a failure
#   test_done                     print the plan; exit 1 if any check failed
#   state_reseal FILE             a state file edited by hand made whole again
#   wait_for SECONDS 'CONDITION'  poll until CONDITION holds (or fail)
#   process_ended PID             PID is gone (or a zombie not yet reaped)
#   tenure_at WHEN ARG...         $TENURE on a clock set to WHEN (libfaketime)
# Also: $TENURE (the binary), $top_srcdir, $top_builddir, a scratch
# directory $TEST_DIR (short, under /tmp, removed at exit), and
# test_cleanup CMD to run CMD at exit (servers, gpg agents).
# $TENURE_CONFIG names no file: a command without --config or --ledger
# fails instead of reading the host's /etc/tenure/tenure.conf;
# $TENURE_SYSCONFDIR and $TENURE_DATADIR keep the host's installed
# templates from tenure in the same way.

set -u

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${TENURE:=$top_builddir/tenure}"
# tenure runs gpg through its helper tenure-gpg, built beside tenure.
: "${TENURE_LIBEXECDIR:=$top_builddir}"
export top_srcdir top_builddir TENURE TENURE_LIBEXECDIR

TEST_DIR=$(mktemp -d /tmp/tn.XXXXXX)
export TEST_DIR
# Tests move tenure's clock with libfaketime to let time pass: the
# kernel's NTP state vouches for it (src/base/clock.h), whatever this
# machine's is; t-clock.sh, which tests the doubt, says otherwise.
: "${TENURE_TEST_CLOCK_NTP:=synced}"
export TENURE_TEST_CLOCK_NTP
# No test reads the host's configuration (/etc/tenure/tenure.conf once
# the package is installed): without --config, tenure reads
# $TENURE_CONFIG, here a file that does not exist.
TENURE_CONFIG=$TEST_DIR/no-such-tenure.conf
export TENURE_CONFIG
# The mbox From_ dates tests write have no zone, and tenure reads those
# in the host's zone (source.h): the suite's are UTC, whatever this
# machine's zone; a test of another zone sets TZ for that run.
TZ=UTC
export TZ
# Nor the templates of a tenure installed on the host (any rebuild or
# upgrade of the package): those not in [committee] templates are looked
# for in $TENURE_SYSCONFDIR/tenure/templates and
# $TENURE_DATADIR/tenure/templates (the installation's /etc and
# /usr/share otherwise), here directories of the test's own, empty
# unless the test fills them.  t-host-installed.sh shows a decoy
# installation changes no result.
TENURE_SYSCONFDIR=$TEST_DIR/installed/etc
TENURE_DATADIR=$TEST_DIR/installed/usr/share
export TENURE_SYSCONFDIR TENURE_DATADIR
# Nor does it write in the home of whoever runs the suite (a gpg run
# without --homedir makes ~/.gnupg, a program may keep a cache): HOME is
# an empty directory of the test's own, and test_done fails the test if
# anything was left in it.  The caller's home stays in
# $TENURE_TEST_USER_HOME, for what a test may read there (a cache).
TENURE_TEST_USER_HOME=${HOME:-}
HOME=$TEST_DIR/home
mkdir "$HOME"
export HOME TENURE_TEST_USER_HOME
# The servers the tests start are where Debian installs them: dovecot
# in /usr/sbin, which a normal user's PATH lacks (a contributor's `make
# check` skipped every IMAP test), as it lacks /sbin.  Appended, so
# that the caller's PATH still comes first.
case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH=$PATH:/usr/sbin ;; esac
case ":$PATH:" in *:/sbin:*) ;; *) PATH=$PATH:/sbin ;; esac
export PATH
_test_count=0
_test_failed=0
_test_current=
_test_cleanups=

test_cleanup() {
	_test_cleanups="$1
$_test_cleanups"
}

_test_exit() {
	local status=$?
	set +e
	printf '%s\n' "$_test_cleanups" | while IFS= read -r cmd; do
		[ -n "$cmd" ] && eval "$cmd" >/dev/null 2>&1
	done
	if [ -z "${TEST_KEEP:-}" ]; then
		rm -rf "$TEST_DIR"
	else
		echo "# kept $TEST_DIR"
	fi
	exit $status
}
trap _test_exit EXIT
trap 'exit 130' INT TERM

test_begin() {
	_test_current="$1"
}

test_pass() {
	_test_count=$((_test_count + 1))
	echo "ok $_test_count - $_test_current"
	_test_current=
}

test_fail() {
	_test_count=$((_test_count + 1))
	_test_failed=$((_test_failed + 1))
	echo "not ok $_test_count - $_test_current"
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/# /'
	_test_current=
}

# test_expect_equal EXPECTED GOT [MORE]: MORE (a log, say) is shown when
# they differ.
test_expect_equal() {
	if [ "$1" = "$2" ]; then
		test_pass
	else
		test_fail "expected: $1" "got:      $2" ${3:+"$3"}
	fi
}

test_expect_equal_file() {
	if diff -u "$1" "$2" >"$TEST_DIR/.diff" 2>&1; then
		test_pass
	else
		test_fail "$(cat "$TEST_DIR/.diff")"
	fi
}

test_expect_success() {
	test_begin "$1"
	if (eval "$2") >"$TEST_DIR/.out" 2>&1; then
		test_pass
	else
		test_fail "command failed: $2" "$(tail -n 20 "$TEST_DIR/.out")"
	fi
}

test_expect_failure() {
	test_begin "$1"
	if (eval "$2") >"$TEST_DIR/.out" 2>&1; then
		test_fail "command succeeded but should have failed: $2" \
			"$(tail -n 20 "$TEST_DIR/.out")"
	else
		test_pass
	fi
}

# test_skip REASON: the check begun cannot run here (a tool it needs is
# missing); TAP's "# SKIP", which the harness counts as a skip.
test_skip() {
	_test_count=$((_test_count + 1))
	echo "ok $_test_count - $_test_current # SKIP $1"
	_test_current=
}

# test_skip_all REASON: the whole script cannot run here.  Counted as a
# skip by the harness, never as a pass.  A script decides it before its
# first result: after one, "1..0" would contradict the results printed
# (a TAP error), so there it is a failure naming the reason.
test_skip_all() {
	if [ "$_test_count" -gt 0 ]; then
		test_begin "the rest of the script can run here"
		test_fail "cannot skip after $_test_count results: $1"
		test_done
		exit 1
	fi
	echo "1..0 # SKIP $1"
	exit 0
}

test_done() {
	if [ -n "$(ls -A "$TEST_DIR/home" 2>/dev/null)" ]; then
		test_begin "nothing was written to HOME"
		test_fail "left in HOME: $(cd "$TEST_DIR/home" && find . -mindepth 1 -maxdepth 3 | head -n 20 | tr '\n' ' ')"
	fi
	echo "1..$_test_count"
	[ "$_test_failed" -eq 0 ]
}

# state_reseal FILE: after a state file was changed by hand, gives it
# the first line that fits its content again ("# tenure-state bytes=LEN
# sha256=HEX", see src/base/state_file.h), as tenure writes it.
state_reseal() {
	sed '1{/^# tenure-state /d}' "$1" >"$1.body"
	{
		printf '# tenure-state bytes=%s sha256=%s\n' "$(wc -c <"$1.body" | tr -d ' ')" \
			"$(sha256sum <"$1.body" | cut -d ' ' -f 1)"
		cat "$1.body"
	} >"$1"
	rm -f "$1.body"
}

# wait_for SECONDS 'CONDITION': polls CONDITION (eval'd) every 0.1 s;
# fails when it did not hold within SECONDS.
wait_for() {
	local tries=$(($1 * 10))
	while [ $tries -gt 0 ]; do
		eval "$2" && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

# process_ended PID: the process PID has ended: it is gone, or a zombie
# that only waits for its parent (init, for a daemon) to reap it, which
# `kill -0` would still find.
process_ended() {
	case $(ps -o stat= -p "$1" 2>/dev/null) in
	'' | Z*) return 0 ;;
	*) return 1 ;;
	esac
}

# stop_within SECONDS PID: SIGTERM to PID (a child of the test) and
# its end; STOPPED becomes "exit STATUS fast" when it ended within
# SECONDS, "exit STATUS slow (N s)" otherwise.  A process still there
# 20 s past the bound is killed, so that a hang fails the check, not
# the suite.  The bounds the tests give are 10 s: what they tell apart
# is a prompt stop (tenure's own grace is 3 s, NETSTOP_GRACE_SECONDS)
# from a network or gpg timeout sat out (15 s and more), with room for
# a sanitized build on a busy machine.
stop_within() {
	local start end status=0
	start=$(date +%s.%N)
	kill -TERM "$2"
	wait_for $(($1 + 20)) 'process_ended "$2"' || kill -KILL "$2"
	wait "$2" || status=$?
	end=$(date +%s.%N)
	STOPPED="exit $status $(awk -v s="$start" -v e="$end" -v max="$1" \
		'BEGIN { d = e - s; print (d <= max ? "fast" : sprintf("slow (%.1f s)", d)) }')"
}

# A free TCP port on 127.0.0.1.
test_free_port() {
	/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# "$FAKED" OFFSET COMMAND...: COMMAND with its clock OFFSET from the
# machine's (tests/lib/faked.sh); COMMAND keeps the pid, so that
# "$FAKED" ... & leaves it in $!.  A command, not a function: a
# function run with & is a subshell, whose pid $! would be.  A test
# that cannot do without it calls faked_lib first and skips when it
# fails (faked.sh then exits 127).
FAKED=$top_srcdir/tests/lib/faked.sh
faked_lib() {
	"$FAKED" +0 true 2>/dev/null
}

# tenure_at WHEN ARG...: $TENURE ARG... on a clock stopped at WHEN (a
# date, which is midnight UTC, or an ISO 8601 time), by libfaketime, as
# --now stops tenure's: for a pass that sends through SMTP or writes
# [publish], which --now keeps from the world (tenure(1)).  Only
# tenure's clock is faked: the gpg it runs keeps the machine's, as under
# --now (the tests' keys and signatures are made on that clock), and so
# does its monotonic clock, which its timeouts count on.  Preloaded
# libraries (with_fault) still reach tenure (faked.sh, FAKED_PRELOAD).
# A background tenure, whose pid a test needs, is started the same way:
#   TZ=UTC FAKETIME_ONLY_CMDS=tenure FAKETIME_DONT_FAKE_MONOTONIC=1 \
#       "$FAKED" "$(faked_at WHEN)" "$TENURE" ... &
# (faked_at gives WHEN in UTC, as libfaketime reads it under TZ=UTC).
# A test that uses them calls faked_lib first.
faked_at() {
	date -u -d "$1" '+%Y-%m-%d %H:%M:%S'
}
tenure_at() {
	local at
	at=$(faked_at "$1") || return 1
	shift
	TZ=UTC FAKETIME_ONLY_CMDS=tenure FAKETIME_DONT_FAKE_MONOTONIC=1 \
		FAKED_PRELOAD=${LD_PRELOAD:-} LD_PRELOAD= \
		"$FAKED" "$at" "$TENURE" "$@"
}
