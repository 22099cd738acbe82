#!/bin/sh
# t-check-config-rofs.sh: a [publish] directory on a read-only mount
# (EROFS: what the units' ProtectSystem=strict makes of every path
# their ReadWritePaths= does not name) is a problem that says so and
# names ReadWritePaths=, not its owner and mode, which would allow the
# write (issue 26, item 4).  A small tmpfs mounted read-only stands for
# it; where mounting is not allowed the test is skipped.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

committee_init
cd "$W" || exit 1
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Leo Leader <leo@example.org> $LEO"
gpg_export_keyring keyring.gpg carol@example.org leo@example.org
mkdir -p state www
mkdir -m 0700 -p g
mount -t tmpfs -o ro,size=64k,mode=0777 tenure-test "$W/www" 2>/dev/null ||
	test_skip_all "mounting a tmpfs is not allowed here"
test_cleanup "umount '$W/www'"

committee_conf roles.chair="$CAROL" roles.leader="$LEO" \
	committee.contact=secretary@example.org publish.dir=www
rc=0
"$TENURE" check-config --config "$CONF" >cc.all 2>&1 || rc=$?

test_begin "a [publish] dir on a read-only mount is a problem naming the mount and ReadWritePaths="
line="[publish] dir: $W/www is on a read-only mount (the status page, the calendar and the JSON are published there); the units run with ProtectSystem=strict, where only the paths their ReadWritePaths= names can be written: add it (systemctl edit tenure.service, or tenure-once.service for the timer: [Service] ReadWritePaths=$W/www), or mount it read-write"
if [ "$rc" = 1 ] && [ "$(grep -cF -- "$line" cc.all)" = 1 ]; then
	test_pass
else
	test_fail "expected exit 1 and a line with: $line" "got exit $rc:" "$(cat cc.all)"
fi

test_begin "... and it is the only problem, with no owner or mode that would allow the write"
test_expect_equal "1 0" \
	"$(grep -c 'tenure.conf: ' cc.all) $(grep -c 'mode 0777' cc.all)" "$(cat cc.all)"

test_done
