#!/bin/sh
# tests/lib/fake-gpg.sh: a gpg that fails on demand, for the tests of what
# tenure does when gpg does not give an answer (issue 16, items 1 and 2).
# tenure runs it as its real gpg (TENURE_GPG_PROGRAM=.../fake-gpg, through
# its helper tenure-gpg) and, copied as fake-gpgv, as its gpgv
# (TENURE_GPGV_PROGRAM=.../fake-gpgv, run by tenure itself to verify).
#
# The file $FAKE_GPG_MODE names what to do; read afresh at every run, so
# a test changes it while a daemon runs.  Its first word is the mode, the
# second (optional) which runs it applies to: "verify" (the default:
# runs with --verify, and every run as gpgv), "sign" (runs with --sign or --detach-sign), or
# "all".  Other runs, and every run without the file, are the real gpg.
#   hang      ignores SIGTERM, SIGINT and SIGHUP and never ends
#   exit2     exits 2 without a word
#   signal    dies by SIGSEGV
#   slow N    the real gpg, after sleeping N seconds
# When $FAKE_GPG_MODE.times exists, it holds how many more runs fail:
# each faulty run counts one down, and at 0 the runs are the real gpg.
# Each faulty run appends "MODE PID" to $FAKE_GPG_MODE.log.
real=${FAKE_GPG_REAL:-/usr/bin/gpg}
verifying=
# Installed as fake-gpgv, it stands for gpgv, which only verifies.
case $0 in
*gpgv) real=${FAKE_GPGV_REAL:-/usr/bin/gpgv} verifying=yes ;;
esac
mode=pass
applies=verify
if [ -n "${FAKE_GPG_MODE:-}" ] && [ -s "$FAKE_GPG_MODE" ]; then
	read -r mode applies arg <"$FAKE_GPG_MODE" || true
	case $applies in
	verify | sign | all) ;;
	*) arg=$applies; applies=verify ;;
	esac
fi
case $applies in
all) ;;
verify) case "$verifying $* " in yes* | *" --verify "*) ;; *) mode=pass ;; esac ;;
sign) case " $* " in *" --sign "* | *" --detach-sign "* | *" -bsau "*) ;; *) mode=pass ;; esac ;;
esac
if [ "$mode" != pass ] && [ -f "$FAKE_GPG_MODE.times" ]; then
	left=$(cat "$FAKE_GPG_MODE.times")
	if [ "${left:-0}" -gt 0 ]; then
		echo $((left - 1)) >"$FAKE_GPG_MODE.times"
	else
		mode=pass
	fi
fi
[ "$mode" = pass ] || echo "$mode $$" >>"$FAKE_GPG_MODE.log"
case $mode in
hang)
	trap '' TERM INT HUP
	while :; do sleep 1; done
	;;
exit2) exit 2 ;;
signal) kill -SEGV $$ ;;
slow)
	sleep "${arg:-1}"
	exec "$real" "$@"
	;;
*) exec "$real" "$@" ;;
esac
