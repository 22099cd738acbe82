#!/bin/sh
# t-host-installed.sh: the suite a packager can trust (issue 41 items 2
# and 3).  It reads only the tree's own files, however tenure is
# installed on the build host: an installed-looking decoy (every
# template, as an older package would ship them, its subjects marked)
# beside the tree changes no result of the tests that once found the
# installed templates.  And it finds the servers where Debian installs
# them, whatever the caller's PATH, and decides a skip before its first
# result.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

# The decoy: DIR/tenure/templates for /etc and /usr/share, a copy of the
# tree's, each subject marked, the reminder's too.
DECOY=$TEST_DIR/decoy
for dir in "$DECOY/etc" "$DECOY/usr/share"; do
	mkdir -p "$dir/tenure"
	cp -r "$top_srcdir/templates" "$dir/tenure/templates"
	sed -i 's/^Subject: /Subject: [installed decoy] /' "$dir/tenure/templates"/*.txt
done

committee_init
cd "$W" || exit 1
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE"
mkdir -p state
# The committee's own templates lack the reminder: tenure looks for it
# in the installation's directories.
cp -r "$top_srcdir/templates" tpl
rm tpl/reminder.txt
committee_conf roles.chair="$ALICE" committee.templates=tpl

# reminder_found: check-config's word on the reminder's template.
reminder_found() {
	"$TENURE" --config "$CONF" check-config >cc.out 2>&1
	if grep -q 'no template reminder.txt' cc.out; then
		echo missing
	else
		echo found
	fi
}

test_begin "the suite's tenure finds no template installed: the reminder's is missing"
test_expect_equal missing "$(reminder_found)" "$(cat cc.out)"

test_begin "a tenure installed in /etc would be found: a decoy there is read (TENURE_SYSCONFDIR)"
test_expect_equal found "$(TENURE_SYSCONFDIR=$DECOY/etc reminder_found)" "$(cat cc.out)"

test_begin "... and in /usr/share (TENURE_DATADIR)"
test_expect_equal found "$(TENURE_DATADIR=$DECOY/usr/share reminder_found)" "$(cat cc.out)"

# The tests that once read the installed templates, run as the suite
# runs them, by a tenure whose installation is the decoy: a build made
# with --prefix in the decoy, whose directories the variables would
# otherwise not replace.  Their results are those of the suite without
# it: every check passes (the root-only one is a skip for a normal user,
# with the decoy or without).
# The wrapper runs a copy of the binary in a directory any user can
# reach: t-check-config.sh copies $TENURE (the wrapper, here) and runs
# it as nobody, and the build tree may be where only root can enter (a
# clone in /root, CI's 0700 directory).
mkdir "$TEST_DIR/bin"
cp "$TENURE" "$TEST_DIR/bin/tenure"
chmod 0711 "$TEST_DIR"
chmod 0755 "$TEST_DIR/bin" "$TEST_DIR/bin/tenure"
cat >"$TEST_DIR/bin/tenure-installed" <<EOF
#!/bin/sh
: "\${TENURE_SYSCONFDIR=$DECOY/etc}"
: "\${TENURE_DATADIR=$DECOY/usr/share}"
export TENURE_SYSCONFDIR TENURE_DATADIR
exec "$TEST_DIR/bin/tenure" "\$@"
EOF
chmod 0755 "$TEST_DIR/bin/tenure-installed"
for t in t-check-config.sh t-check.sh; do
	test_begin "$t beside a decoy installation: no result changes"
	env -u TENURE_SYSCONFDIR -u TENURE_DATADIR HOME="$TENURE_TEST_USER_HOME" \
		TENURE="$TEST_DIR/bin/tenure-installed" \
		sh "$top_srcdir/tests/$t" >"$W/$t.tap" 2>"$W/$t.err"
	status=$?
	plan=$(sed -n 's/^1\.\.//p' "$W/$t.tap")
	ok=$(grep -c '^ok ' "$W/$t.tap")
	if [ $status -eq 0 ] && [ -n "$plan" ] && [ "$plan" -gt 0 ] &&
		[ "$ok" = "$plan" ]; then
		test_pass
	else
		test_fail "exit $status, $ok of ${plan:-no plan} ok" \
			"$(grep -v '^ok ' "$W/$t.tap" | head -n 20)"
	fi
done

# A normal user's PATH has no /usr/sbin, where Debian installs dovecot,
# doveadm and exim4: the library finds them there all the same.
test_begin "with /usr/sbin and /sbin not on PATH, the library finds Dovecot"
if [ ! -x /usr/sbin/dovecot ]; then
	test_skip "dovecot is not installed in /usr/sbin (dovecot-imapd)"
else
	found=$(env PATH=/usr/local/bin:/usr/bin:/bin sh -c '
		. "$top_srcdir/tests/lib/common.sh"
		. "$top_srcdir/tests/lib/dovecot.sh"
		dovecot_missing || echo found' 2>&1)
	test_expect_equal found "$found"
fi

# A skip decided after a result would make the harness read "1..0"
# after "ok 1": a TAP error.  There it is a failure naming the reason.
test_begin "a script that cannot run on after a result fails, naming why"
cat >"$W/late-skip.sh" <<'EOF'
. "$top_srcdir/tests/lib/common.sh"
test_begin "a first check"
test_pass
test_skip_all "a server is missing"
EOF
sh "$W/late-skip.sh" >late.tap 2>&1
status=$?
test_expect_equal "1 ok 1|not ok 2|1..2|cannot skip after 1 results: a server is missing" \
	"$status $(grep -E '^(ok|not ok|1\.\.)' late.tap | sed 's/ - .*//' | tr '\n' '|')$(sed -n 's/^# //p' late.tap)" \
	"$(cat late.tap)"

test_done
