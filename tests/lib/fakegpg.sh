# tests/lib/fakegpg.sh: tenure's gpg replaced by tests/lib/fake-gpg.sh, and the
# helpers of the tests that make gpg fail (t-gpgfaults.sh,
# t-gpgfaults-imap.sh).  Sourced after tests/lib/common.sh and tests/lib/committee.sh;
# sets TENURE_GPG_PROGRAM (tenure-gpg runs it), TENURE_GPGV_PROGRAM (tenure
# verifies with it) and FAKE_GPG_MODE.

cp "$top_srcdir/tests/lib/fake-gpg.sh" "$W/fake-gpg"
cp "$top_srcdir/tests/lib/fake-gpg.sh" "$W/fake-gpgv"
TENURE_GPG_PROGRAM=$W/fake-gpg
TENURE_GPGV_PROGRAM=$W/fake-gpgv
FAKE_GPG_MODE=$W/gpg-mode
export TENURE_GPG_PROGRAM TENURE_GPGV_PROGRAM FAKE_GPG_MODE

# fault MODE [TIMES]: the fake gpg's verifications fail so (TIMES of
# them, or all); "fault pass" makes them the real gpg.
fault() {
	echo "$1" >"$FAKE_GPG_MODE"
	rm -f "$FAKE_GPG_MODE.times"
	[ $# -gt 1 ] && echo "$2" >"$FAKE_GPG_MODE.times"
	: >"$FAKE_GPG_MODE.log"
}

# once [OFFSET]: `tenure run --once`, with tenure's clock OFFSET ahead
# (libfaketime's syntax: +2m); stderr in $W/log, exit status in $W/status.
once() {
	if [ $# -gt 0 ]; then
		"$FAKED" "$1" timeout 120 "$TENURE" --config "$CONF" run --once \
			>"$W/out" 2>"$W/log"
	else
		timeout 120 "$TENURE" --config "$CONF" run --once >"$W/out" 2>"$W/log"
	fi
	echo $? >"$W/status"
}
