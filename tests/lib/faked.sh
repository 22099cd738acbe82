#!/bin/sh
# tests/lib/faked.sh OFFSET COMMAND [ARG...]: runs COMMAND with its clock
# OFFSET from the machine's (libfaketime's syntax: +2m, +28h, -3d).
#
# libfaketime is preloaded directly and COMMAND is exec'd, so that it
# keeps this script's pid: "faked.sh +1d tenure run &" leaves tenure's
# pid in $!, and a signal sent to it reaches tenure.  Not the faketime
# wrapper: it keeps a semaphore per pid in /dev/shm that a killed
# process leaves behind, and a later wrapper given the same pid fails to
# start ("sem_open: File exists") before it runs anything.  A sanitizer
# build accepts the preloaded library only with verify_asan_link_order=0.
# Exits 127 when libfaketime is not installed.
#
# FAKED_PRELOAD names libraries to preload after libfaketime for COMMAND
# alone: one in LD_PRELOAD that takes itself out of it when loaded (the
# fault shim, tests/lib/faultshim.c) would be gone by the time this shell
# sets it for COMMAND.
#
# tests/lib/faked.sh --file PATH COMMAND [ARG...]: the offset is read from
# PATH at every clock call (libfaketime's FAKETIME_TIMESTAMP_FILE, not
# cached), so that a test moves the clock of a process that runs: the
# monotonic clock moves with it unless FAKETIME_DONT_FAKE_MONOTONIC=1.
offset=$1
shift
if [ "$offset" = --file ]; then
	FAKETIME_TIMESTAMP_FILE=$1
	FAKETIME_NO_CACHE=1
	unset FAKETIME
	export FAKETIME_TIMESTAMP_FILE FAKETIME_NO_CACHE
	shift
fi
for lib in /usr/lib/*/faketime/libfaketimeMT.so.1 \
	/usr/lib/faketime/libfaketimeMT.so.1; do
	if [ -r "$lib" ]; then
		# FAKETIME, when set, would outweigh the file.
		[ "$offset" = --file ] || export FAKETIME="$offset"
		LD_PRELOAD=$lib${FAKED_PRELOAD:+:$FAKED_PRELOAD}${LD_PRELOAD:+:$LD_PRELOAD}
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
		export LD_PRELOAD ASAN_OPTIONS
		exec "$@"
	fi
done
echo "faked.sh: libfaketime (package faketime) is not installed" >&2
exit 127
