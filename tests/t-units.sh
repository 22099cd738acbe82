#!/bin/sh
# t-units.sh: the systemd units as shipped.  systemd-analyze checks them
# offline (no running systemd is needed): every unit, the templates
# through an instance, passes `verify`, and no service's exposure in
# `security --offline=true` rises above the figure recorded here.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"

command -v systemd-analyze >/dev/null ||
	test_skip_all "no systemd-analyze (package systemd)"
[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"

# The exposure of every service after the hardening of issue 12 (it was
# 1.5 before).  Lower it when a unit gets tighter; never raise it.
EXPOSURE_MAX=1.1

UNITS="tenure.service tenure-once.service tenure.timer tenure@.service
tenure-once@.service tenure-once@.timer"
# What systemd-analyze is given: the plain units and an instance of each
# template.
CHECKED="tenure.service tenure-once.service tenure.timer tenure@ctte.service
tenure-once@ctte.service tenure-once@ctte.timer"

mkdir -p "$TEST_DIR/units"
for unit in $UNITS; do
	# verify insists that ExecStart= names an executable.
	sed "s|/usr/bin/tenure|$TENURE|g" "$top_srcdir/systemd/$unit" \
		>"$TEST_DIR/units/$unit"
done

for unit in $CHECKED; do
	test_begin "$unit passes systemd-analyze verify"
	if (cd "$TEST_DIR/units" && systemd-analyze verify --man=no "./$unit") \
		>"$TEST_DIR/out" 2>&1 && ! grep -q . "$TEST_DIR/out"; then
		test_pass
	else
		test_fail "systemd-analyze verify:" "$(cat "$TEST_DIR/out")"
	fi
done

# systemd 252 has --offline; older ones cannot score a unit file.
if ! (cd "$TEST_DIR/units" &&
	systemd-analyze security --offline=true ./tenure.service) >/dev/null 2>&1; then
	echo "# systemd-analyze security --offline=true is not supported here"
	test_done
	exit
fi

for unit in $(echo $CHECKED | tr ' ' '\n' | grep '\.service$'); do
	test_begin "$unit: systemd-analyze security exposure at most $EXPOSURE_MAX"
	score=$(cd "$TEST_DIR/units" &&
		systemd-analyze security --offline=true --no-pager "./$unit" 2>&1 |
		sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p')
	if [ -z "$score" ]; then
		test_fail "no score from systemd-analyze security"
	elif awk -v s="$score" -v m="$EXPOSURE_MAX" 'BEGIN { exit !(s <= m) }'; then
		test_pass
	else
		test_fail "exposure $score, above $EXPOSURE_MAX:" \
			"$(cd "$TEST_DIR/units" && systemd-analyze security --offline=true \
				--no-pager "./$unit" 2>&1 | grep '✗')"
	fi
done

# The templates differ from the plain units only where an instance must.
test_begin "tenure@.service reads /etc/tenure/NAME.conf and writes only /var/lib/tenure/NAME"
if grep -qx 'ExecStart=/usr/bin/tenure --config /etc/tenure/%i.conf run' "$top_srcdir/systemd/tenure@.service" &&
	grep -qx 'StateDirectory=tenure/%i' "$top_srcdir/systemd/tenure@.service" &&
	grep -qx 'StateDirectory=tenure/%i' "$top_srcdir/systemd/tenure-once@.service" &&
	! grep -q '^ReadWritePaths=' "$top_srcdir/systemd/tenure@.service"; then
	test_pass
else
	test_fail "see $top_srcdir/systemd/tenure@.service"
fi

test_begin "the plain units and the templates share the same sandbox"
sandbox() {
	sed -n '/^UMask=/,$p' "$top_srcdir/systemd/$1" | grep -v '^\[Install\]\|^WantedBy='
}
if [ "$(sandbox tenure.service)" = "$(sandbox tenure@.service)" ] &&
	[ "$(sandbox tenure.service)" = "$(sandbox tenure-once.service)" ] &&
	[ "$(sandbox tenure.service)" = "$(sandbox tenure-once@.service)" ]; then
	test_pass
else
	test_fail "the lines from UMask= on differ between the service units"
fi

test_done
