#!/bin/sh
# t-dryrun-imap.sh: `tenure run --dry-run` over IMAP, against a private
# Dovecot: it reads the new mail and reports what it would do, and leaves
# the cursor, the state and the server's flags (no \Seen) as they were.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/dovecot.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"
command -v perl >/dev/null || test_skip_all "perl is not installed"
dovecot_setup
dovecot_start

committee_init
cd "$W" || exit 1
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
gpg_export_keyring keyring.gpg carol@example.org alice@example.org
committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE"
committee_conf roles.chair="$CAROL" roles.leader="$CAROL" \
	source.url="imaps://localhost:$DOVECOT_IMAPS_PORT/INBOX" \
	source.user="$DOVECOT_USER" source.password-file="$DOVECOT_PASSWORD_FILE" \
	source.ca-file="$DOVECOT_CA"

# The first pass makes first contact: the cursor starts at UIDNEXT.
"$TENURE" --config tenure.conf run --once >/dev/null 2>first.log ||
	{ cat first.log; exit 1; }
sleep 1
dovecot_deliver "$(signed_mail "$ALICE" alice@example.org resign "Tenure: resign")"

flags() {
	doveadm -c "$DOVECOT_DIR/dovecot.conf" fetch -u "$DOVECOT_USER" \
		'uid flags' mailbox INBOX all | tr '\n' ' '
}
snapshot() {
	find "$@" -printf '%p %y %m %s %T@ %i\n' 2>&1 | sort
	find "$@" -type f -exec sha256sum {} + 2>&1 | sort
}
gpgconf --homedir "$W/g" --kill all
snapshot state ledger sent g >before.snap
flags_before=$(flags)

"$TENURE" --config tenure.conf run --dry-run >dry.out 2>dry.log
rc=$?
test_begin "run --dry-run over IMAP reports the resignation it would append"
test_expect_equal "0 resign Alice Member <alice@example.org>" \
	"$rc $(sed -n 's/^ *Event: //p' dry.out) $(sed -n 's/^ *Member: //p' dry.out)"

test_begin "run --dry-run over IMAP leaves the cursor, the state, the ledger and the sink as they were"
snapshot state ledger sent g >after.snap
test_expect_equal_file before.snap after.snap

test_begin "run --dry-run over IMAP sets no flag on the server (no \\Seen)"
flags_after=$(flags)
case $flags_after in
*Seen* | "") test_fail "flags: $flags_after" ;;
*) test_expect_equal "$flags_before" "$flags_after" ;;
esac

test_begin "the real pass then acts on the mail the dry run read"
"$TENURE" --config tenure.conf run --once >/dev/null 2>run.log
test_expect_equal "resign" "$(sed -n 's/^Event: //p' ledger | tail -n 1)"

test_done
