# tests/lib/fault.sh: fault injection for the scenario tests, through
# tests/lib/faultshim.so (see tests/lib/faultshim.c for the TENURE_FAULT syntax).
# Source it after tests/lib/common.sh.
#
#   fault_require           skip the whole script when the shim is missing
#   with_fault SPEC CMD...  runs CMD with TENURE_FAULT=SPEC preloaded
#   FAULTSHIM               the library, for LD_PRELOAD by hand (with
#                           TENURE_FAULT_FILE for faults that change while
#                           a daemon runs)

FAULTSHIM=$top_builddir/tests/lib/faultshim.so
# An ASan build wants its runtime first in the library list; the shim
# only wraps a few libc calls, so the order does not matter here.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS

fault_require() {
	[ -f "$FAULTSHIM" ] || test_skip_all "no $FAULTSHIM (make check builds it)"
	LD_PRELOAD=$FAULTSHIM TENURE_FAULT=write:1:EIO \
		sh -c 'echo x >"$TEST_DIR/.fault-probe"' 2>/dev/null &&
		test_skip_all "LD_PRELOAD of $FAULTSHIM has no effect here"
	rm -f "$TEST_DIR/.fault-probe"
}

with_fault() {
	local spec=$1
	shift
	LD_PRELOAD=$FAULTSHIM TENURE_FAULT=$spec "$@"
}
