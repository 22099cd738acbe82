#!/bin/sh
# tests/lib/timelimit.sh TEST [ARGS...]: runs one test of the suite (the
# harness's LOG_COMPILER) under a time limit, so that a test that hangs
# (a cleanup waiting on a stopped process, a server that never answers)
# is a failure that names it instead of a `make check` that never ends.
#
# The limit is $TENURE_TEST_TIME_LIMIT seconds (default 900, many times
# what the slowest file takes on two busy CPUs).  timeout(1) runs the
# test in a process group of its own and, when the limit passes, sends
# SIGTERM to the whole group (the test's trap then runs its cleanups),
# and SIGKILL 30 s later to whatever is left of it.  The failure is a
# TAP line, which the tap driver counts as a failed check.  Each log
# ends with the test's time, a TAP comment ("# time: 12 s"): where the
# suite's time goes is `grep -H '^# time:' tests/*.log tests/unit/*.log`.

limit=${TENURE_TEST_TIME_LIMIT:-900}
start=$(date +%s)
timeout --kill-after=30 "$limit" "$@"
status=$?
echo "# time: $(($(date +%s) - start)) s"
if [ $status -ne 0 ] && [ $(($(date +%s) - start)) -ge "$limit" ]; then
	echo "not ok - $1 did not end within $limit s (TENURE_TEST_TIME_LIMIT): killed"
	exit 1
fi
exit $status
